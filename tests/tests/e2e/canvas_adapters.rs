//! The first-party adapters end to end on real source files, through the
//! daemon: pull → patch (a text, a style, a new node, an attribute) → push;
//! the file re-parses (a fresh pull finds the change), only the bound span
//! changed, and where the file renders as is (HTML, a custom element) a
//! browser shows the change. Then the refusals real sources bring: a locked
//! node (a component, an expression) changed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::canvas::{install, project};
use super::plugin_install::plugins_root;
use crate::Daemon;

/// (adapter folder, component, fixture, file name in the project).
struct Case {
    dir: &'static str,
    wasm: &'static str,
    fixture: PathBuf,
    file: &'static str,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/canvas")
}

fn case(dir: &'static str, wasm: &'static str, fixture: PathBuf, file: &'static str) -> Case {
    Case {
        dir,
        wasm,
        fixture,
        file,
    }
}

fn install_case(d: &Daemon, c: &Case) {
    install(
        d,
        c.wasm,
        &plugins_root()
            .join("adapters")
            .join(c.dir)
            .join("plugin.toml"),
    );
}

/// What a pull gave: the binding, its bound span, the document.
struct Pulled {
    binding: String,
    bound: (usize, usize),
    doc: Value,
}

fn pull(d: &Daemon, root: &Path, name: &str, c: &Case) -> Pulled {
    d.ok(
        "default",
        "canvas_new",
        json!({ "name": name, "root": root, "replace": true }),
    );
    let r = d.ok(
        "default",
        "canvas_code_pull",
        json!({ "name": name, "root": root, "file": c.file, "adapter": c.dir }),
    );
    let binding = r["pulled"]["binding"]
        .as_str()
        .expect("binding")
        .to_string();
    let doc = d.ok(
        "default",
        "canvas_open",
        json!({ "name": name, "root": root }),
    )["document"]
        .clone();
    let span = &doc["bindings"][&binding]["entry"]["span"];
    Pulled {
        bound: (
            span["start"].as_u64().expect("start") as usize,
            span["end"].as_u64().expect("end") as usize,
        ),
        binding,
        doc,
    }
}

/// The binding's nodes, parents first.
fn nodes_of<'a>(doc: &'a Value, binding: &str) -> Vec<&'a Value> {
    let root = doc["bindings"][binding]["root"].as_str().expect("root");
    let mut out = Vec::new();
    let mut stack = vec![root.to_string()];
    while let Some(id) = stack.pop() {
        let n = &doc["nodes"][&id];
        out.push(n);
        if let Some(children) = n["children"].as_array() {
            for c in children.iter().rev() {
                stack.push(c.as_str().expect("id").to_string());
            }
        }
    }
    out
}

fn unlocked(n: &Value) -> bool {
    n.get("locked").is_none_or(Value::is_null)
}

/// Changes a text, a style, an attribute and inserts a paragraph; returns
/// the new text and the paragraph's text.
fn edit(d: &Daemon, root: &Path, name: &str, p: &Pulled) -> (String, String) {
    let nodes = nodes_of(&p.doc, &p.binding);
    let text = nodes
        .iter()
        .find(|n| {
            n["kind"] == "text"
                && unlocked(n)
                && n["text"].as_str().is_some_and(|t| t.trim().len() > 3)
        })
        .expect("an editable text");
    // An element (not the bound root) with an editable parent.
    let element = nodes
        .iter()
        .skip(1)
        .find(|n| {
            n["kind"] == "frame" && unlocked(n) && n["tag"] != "script" && n["tag"] != "style"
        })
        .expect("an editable element");
    let holder = nodes
        .iter()
        .find(|n| {
            n["kind"] == "frame"
                && unlocked(n)
                && ["div", "section", "main", "header", "template", "body"]
                    .contains(&n["tag"].as_str().unwrap_or(""))
        })
        .unwrap_or(&nodes[0]);
    let new_text = "Edited by the canvas".to_string();
    let para = "A paragraph the canvas added".to_string();
    let rev = p.doc["revision"].as_u64().expect("rev");
    let r = d.cmd(
        "default",
        "canvas_patch",
        json!({ "name": name, "root": root, "base_revision": rev, "ops": [
            { "op": "node.update", "id": text["id"], "set": { "text": new_text } },
            { "op": "node.update", "id": element["id"], "set": {
                "style": { "color": "rgb(1, 2, 3)" }, "attributes": { "data-canvas": "yes" } } },
            { "op": "node.insert", "parent": holder["id"], "node": { "id": "added", "kind": "frame", "tag": "p" } },
            { "op": "node.insert", "parent": "added", "node": { "kind": "text", "text": para } }
        ]}),
    );
    assert_eq!(r["ok"], true, "{r}");
    (new_text, para)
}

/// The file changed only inside the bound span.
fn only_the_bound_span_changed(before: &str, after: &str, bound: (usize, usize)) {
    assert_eq!(
        &after[..bound.0],
        &before[..bound.0],
        "bytes before the bound span"
    );
    let tail = before.len() - bound.1;
    assert_eq!(
        &after[after.len() - tail..],
        &before[bound.1..],
        "bytes after the bound span"
    );
}

/// Pull → edit → push → re-pull; returns the pushed text.
fn round_trip(d: &Daemon, root: &Path, c: &Case) -> String {
    install_case(d, c);
    let original = std::fs::read_to_string(&c.fixture).expect("fixture");
    std::fs::write(root.join(c.file), &original).expect("copy");
    let name = c.dir.replace('-', "_");
    let p = pull(d, root, &name, c);
    let (text, para) = edit(d, root, &name, &p);
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": name, "root": root }),
    );
    assert_eq!(r["pushed"]["unchanged"], false, "{r}");
    let after = std::fs::read_to_string(root.join(c.file)).expect("pushed");
    only_the_bound_span_changed(&original, &after, p.bound);
    assert!(
        after.contains(&text) && after.contains(&para),
        "{}: {after}",
        c.dir
    );
    assert!(
        after.contains("rgb(1, 2, 3)") && after.contains("data-canvas"),
        "{}: {after}",
        c.dir
    );
    // A fresh pull of the pushed file: it re-parses, with the changes.
    let again = pull(d, root, &format!("{name}_again"), c);
    let texts: Vec<&str> = nodes_of(&again.doc, &again.binding)
        .iter()
        .filter_map(|n| n["text"].as_str())
        .collect();
    assert!(
        texts.contains(&text.as_str()) && texts.contains(&para.as_str()),
        "{texts:?}"
    );
    // Nothing left to push; status agrees.
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": name, "root": root }),
    );
    assert_eq!(r["pushed"]["unchanged"], true, "{r}");
    after
}

#[test]
fn html_static_round_trips_a_landing_page_and_the_browser_shows_the_change() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    let c = case(
        "html-static",
        "webrig_adapter_html_static",
        fixtures().join("landing.html"),
        "landing.html",
    );
    round_trip(&d, root, &c);
    // The pushed file in a browser.
    let url = format!("file://{}", root.join("landing.html").display());
    d.ok("default", "goto", json!({ "url": url }));
    let v = d.ok("default", "eval", json!({ "script": "document.body.innerText.includes('Edited by the canvas') && !!document.querySelector('[data-canvas=yes]') && getComputedStyle(document.querySelector('[data-canvas=yes]')).color" }));
    assert_eq!(v["value"], "rgb(1, 2, 3)", "{v}");
    // Tokens: pulled from the :root rule, set on the canvas, pushed back.
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "html_static", "root": root }),
    );
    let tokens = open["document"]["tokens"]
        .as_object()
        .expect("tokens")
        .clone();
    let (token, _) = tokens.iter().next().expect("landing.html defines tokens");
    let rev = open["revision"].as_u64().expect("rev");
    let r = d.ok(
        "default",
        "canvas_patch",
        json!({ "name": "html_static", "root": root, "base_revision": rev,
                "ops": [{ "op": "token.set", "name": token, "value": "rgb(9, 8, 7)" }] }),
    );
    assert_eq!(r["tokens"], tokens.len());
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": "html_static", "root": root }),
    );
    assert_eq!(r["pushed"]["tokens_written"], 1, "{r}");
    let after = std::fs::read_to_string(root.join("landing.html")).expect("read");
    assert!(
        after.contains(&format!("{token}: rgb(9, 8, 7)"))
            || after.contains(&format!("{token}:rgb(9, 8, 7)")),
        "{after}"
    );
    d.ok("default", "reload", json!({}));
    let v = d.ok("default", "eval", json!({ "script": format!("getComputedStyle(document.documentElement).getPropertyValue('{token}').trim()") }));
    assert_eq!(v["value"], "rgb(9, 8, 7)");
}

#[test]
fn react_tsx_round_trips_a_dashboard_and_refuses_a_changed_expression() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    let c = case(
        "react-tsx",
        "webrig_adapter_react_tsx",
        plugins_root().join("adapters/react-tsx/tests/fixtures/canvas/Dashboard.tsx"),
        "Dashboard.tsx",
    );
    let after = round_trip(&d, root, &c);
    assert!(after.contains("className="), "JSX keeps className: {after}");
    // A locked node (a component or an expression) changed: refused, the file untouched.
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "react_tsx", "root": root }),
    );
    let doc = &open["document"];
    let binding = doc["bindings"]
        .as_object()
        .expect("b")
        .keys()
        .next()
        .expect("one")
        .clone();
    let locked = nodes_of(doc, &binding)
        .into_iter()
        .find(|n| n["kind"] == "dom-binding" || n["kind"] == "component-instance")
        .expect("Dashboard.tsx has a component or an expression");
    let r = d.ok(
        "default",
        "canvas_patch",
        json!({ "name": "react_tsx", "root": root, "base_revision": open["revision"],
                "ops": [{ "op": "node.update", "id": locked["id"], "set": { "attributes": { "title": "x" } } }] }),
    );
    assert!(r["revision"].as_u64().is_some());
    let e = d.err(
        "default",
        "canvas_code_push",
        json!({ "name": "react_tsx", "root": root }),
        "conflict",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("unsupported"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("Dashboard.tsx")).expect("read"),
        after
    );
    // Undo the change: the push has nothing to do.
    d.ok(
        "default",
        "canvas_history",
        json!({ "name": "react_tsx", "root": root, "step": "undo" }),
    );
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": "react_tsx", "root": root }),
    );
    assert_eq!(r["pushed"]["unchanged"], true, "{r}");
}

#[test]
fn vue_and_svelte_components_round_trip_their_markup() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    for c in [
        case(
            "vue-sfc",
            "webrig_adapter_vue_sfc",
            fixtures().join("Card.vue"),
            "Card.vue",
        ),
        case(
            "svelte-sfc",
            "webrig_adapter_svelte_sfc",
            fixtures().join("Counter.svelte"),
            "Counter.svelte",
        ),
    ] {
        let after = round_trip(&d, root, &c);
        // The script and style blocks are outside the bound span: untouched.
        let original = std::fs::read_to_string(&c.fixture).expect("fixture");
        let script = |s: &str| {
            s.find("<script")
                .map(|i| s[i..].split("</script>").next().unwrap_or("").to_string())
        };
        assert_eq!(script(&after), script(&original), "{}", c.dir);
    }
}

#[test]
fn a_custom_elements_template_round_trips_and_the_element_renders_the_change() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    let c = case(
        "custom-elements",
        "webrig_adapter_custom_elements",
        plugins_root().join("adapters/custom-elements/tests/fixtures/canvas/x-card.js"),
        "x-card.js",
    );
    let after = round_trip(&d, root, &c);
    // The pushed module defines the element; its shadow DOM shows the edit.
    d.ok(
        "default",
        "goto",
        json!({ "url": crate::web().url("index.html") }),
    );
    let script = format!(
        "(async () => {{
            const url = URL.createObjectURL(new Blob([{src}], {{ type: 'text/javascript' }}));
            await import(url);
            document.body.insertAdjacentHTML('beforeend', '<x-card heading=\"H\"><p>body</p></x-card>');
            await customElements.whenDefined('x-card');
            const shadow = document.querySelector('x-card').shadowRoot;
            const styled = shadow.querySelector('[data-canvas=yes]');
            return shadow.textContent.includes('Edited by the canvas')
                && shadow.textContent.includes('A paragraph the canvas added')
                && !!styled && getComputedStyle(styled).color;
        }})()",
        src = serde_json::to_string(&after).expect("json")
    );
    let v = d.ok("default", "eval", json!({ "script": script }));
    assert_eq!(v["value"], "rgb(1, 2, 3)", "{v}");
}

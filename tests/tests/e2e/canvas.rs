//! The design canvas through the real daemon: documents changed by atomic,
//! revisioned patches under a lease, undo and redo, a preview in a real
//! Chromium whose pixels show the patch, the HTTP door refused, the project
//! folder held against path tricks, symlinks and size bombs, and a hostile
//! adapter contained (loops, huge answers, cycles, dangling ids, edits out
//! of bounds, drift, a result that does not parse).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use crate::Daemon;

/// A project folder of this user's alone.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("webrig-canvas-")
        .tempdir()
        .expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    dir
}

pub fn install(d: &Daemon, wasm: &str, manifest: &Path) {
    d.ok(
        "default",
        "plugin_install",
        json!({ "path": wasm_path(wasm), "manifest": manifest, "grant": true }),
    );
}

fn install_hostile(d: &Daemon) {
    install(
        d,
        "adapter_guest",
        &plugins_root().join("tests/adapter-guest/plugin.toml"),
    );
}

fn new_doc(d: &Daemon, root: &Path, name: &str) -> Value {
    d.ok(
        "default",
        "canvas_new",
        json!({ "name": name, "root": root }),
    )
}

fn patch(d: &Daemon, root: &Path, name: &str, base: u64, ops: Value) -> Value {
    d.cmd(
        "default",
        "canvas_patch",
        json!({ "name": name, "root": root, "base_revision": base, "ops": ops }),
    )
}

fn doc_file(root: &Path, name: &str) -> PathBuf {
    root.join(".webrig/canvas")
        .join(format!("{name}.canvas.json"))
}

fn starter_ops() -> Value {
    json!([
        { "op": "token.set", "name": "--brand", "value": "rgb(0, 170, 119)" },
        { "op": "node.insert", "parent": "p1", "node": { "id": "hero", "kind": "frame", "tag": "section",
            "style": { "background": "var(--brand)", "height": "200px", "width": "400px" } } },
        { "op": "node.insert", "parent": "hero", "node": { "id": "title", "kind": "text", "text": "Hello" } }
    ])
}

#[test]
fn patches_are_atomic_revisioned_leased_and_undoable() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    let made = new_doc(&d, root, "site");
    assert_eq!(made["revision"], 0, "{made}");
    let file = doc_file(root, "site");
    let meta = std::fs::metadata(&file).expect("written");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let folder = std::fs::metadata(file.parent().expect("dir")).expect("dir");
    assert_eq!(folder.permissions().mode() & 0o777, 0o700);

    let r = patch(&d, root, "site", 0, starter_ops());
    assert_eq!(r["result"]["revision"], 1, "{r}");
    // Sorted keys on disk.
    let text = std::fs::read_to_string(&file).expect("read");
    let keys: Vec<usize> = [
        "\"assets\"",
        "\"bindings\"",
        "\"format\"",
        "\"name\"",
        "\"nodes\"",
    ]
    .iter()
    .map(|k| text.find(k).expect(k))
    .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{text}");

    // A stale base revision: a conflict naming the current one; nothing changes.
    let before = std::fs::read(&file).expect("read");
    let r = patch(&d, root, "site", 0, starter_ops());
    assert_eq!(r["error"]["code"], "conflict", "{r}");
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(
        msg.starts_with("revision_conflict") && msg.contains("revision 1"),
        "{msg}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), before);

    // One bad op: the whole batch is refused, the file is byte-identical.
    let r = patch(
        &d,
        root,
        "site",
        1,
        json!([
            { "op": "node.update", "id": "title", "set": { "text": "Changed" } },
            { "op": "node.remove", "id": "no-such-node" }
        ]),
    );
    assert_eq!(r["error"]["code"], "invalid_argument", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("op 1"),
        "{r}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), before);
    // Unknown ops and fields do not parse.
    let r = patch(
        &d,
        root,
        "site",
        1,
        json!([{ "op": "node.explode", "id": "title" }]),
    );
    assert_eq!(r["error"]["code"], "invalid_argument", "{r}");

    // Another agent is refused while the lease runs; the holder is named.
    let r = d.cmd(
        "default",
        "canvas_patch",
        json!({ "name": "site", "root": root, "base_revision": 1, "agent": "other",
                "ops": [{ "op": "token.set", "name": "--x", "value": "1" }] }),
    );
    assert_eq!(r["error"]["code"], "conflict", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("lease_held"),
        "{r}"
    );
    // Released, the other agent may edit.
    d.ok(
        "default",
        "canvas_close",
        json!({ "name": "site", "root": root }),
    );
    let r = d.ok(
        "default",
        "canvas_patch",
        json!({ "name": "site", "root": root, "base_revision": 1, "agent": "other",
                "ops": [{ "op": "node.update", "id": "title", "set": { "text": "Changed" } }] }),
    );
    assert_eq!(r["revision"], 2);

    // Undo and redo move forward in revisions.
    let r = d.ok(
        "default",
        "canvas_history",
        json!({ "name": "site", "root": root, "agent": "other", "step": "undo" }),
    );
    assert_eq!(r["revision"], 3, "{r}");
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "site", "root": root, "agent": "other" }),
    );
    assert_eq!(
        open["document"]["nodes"]["title"]["text"], "Hello",
        "{open}"
    );
    let r = d.ok(
        "default",
        "canvas_history",
        json!({ "name": "site", "root": root, "agent": "other", "step": "redo" }),
    );
    assert_eq!(r["revision"], 4);
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "site", "root": root, "agent": "other" }),
    );
    assert_eq!(open["document"]["nodes"]["title"]["text"], "Changed");
    // A document changed behind the history: the step is refused, not applied.
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    doc["revision"] = json!(40);
    std::fs::write(&file, doc.to_string()).expect("write");
    let r = d.cmd(
        "default",
        "canvas_history",
        json!({ "name": "site", "root": root, "agent": "other", "step": "undo" }),
    );
    assert_eq!(r["error"]["code"], "conflict", "{r}");
}

#[test]
fn the_cli_works_in_its_folder_and_reads_the_patch_file() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let out = d.cli_in(&["canvas", "new", "notes"], Some(dir.path()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(doc_file(dir.path(), "notes").is_file());
    std::fs::write(dir.path().join("p.json"), starter_ops().to_string()).expect("write");
    let out = d.cli_in(
        &["canvas", "patch", "notes", "--base-revision", "0", "p.json"],
        Some(dir.path()),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("notes r1"));
    let out = d.cli_in(
        &["canvas", "patch", "notes", "--base-revision", "0", "p.json"],
        Some(dir.path()),
    );
    assert_eq!(out.status.code(), Some(17), "conflict's exit code");
    // A malformed patch file names the bad op.
    std::fs::write(
        dir.path().join("bad.json"),
        r#"[{"op":"token.set","name":"--a","value":"1"},{"op":"nope"}]"#,
    )
    .expect("write");
    let out = d.cli_in(
        &[
            "canvas",
            "patch",
            "notes",
            "--base-revision",
            "1",
            "bad.json",
        ],
        Some(dir.path()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("op 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The RGB of the pixel at (x, y) of a PNG file.
fn pixel(png_path: &Path, x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).expect("png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("frame");
    let channels = info.color_type.samples();
    let at = ((y * info.width + x) as usize) * channels;
    [buf[at], buf[at + 1], buf[at + 2]]
}

#[test]
fn a_preview_shows_the_patch_in_the_nodes_box() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "look");
    assert_eq!(patch(&d, root, "look", 0, starter_ops())["ok"], true);
    let first = d.ok(
        "default",
        "canvas_preview",
        json!({ "name": "look", "root": root }),
    );
    assert!(
        first["console_errors"].as_array().expect("list").is_empty(),
        "{first}"
    );
    // The node's box, from the page the preview left in the tab.
    let rect = d.ok(
        "default",
        "eval",
        json!({ "script": "JSON.stringify(document.querySelector('[data-node-id=hero]').getBoundingClientRect())" }),
    );
    let rect: Value = serde_json::from_str(rect["value"].as_str().expect("string")).expect("rect");
    let (cx, cy) = (
        (rect["x"].as_f64().expect("x") + 300.0) as u32,
        (rect["y"].as_f64().expect("y") + 150.0) as u32,
    );
    let shot = PathBuf::from(first["screenshot"].as_str().expect("path"));
    assert_eq!(
        pixel(&shot, cx, cy),
        [0, 170, 119],
        "the token's colour at the hero's box"
    );

    let r = patch(
        &d,
        root,
        "look",
        1,
        json!([{ "op": "node.update", "id": "hero", "set": { "style": { "background": "rgb(200, 0, 0)" } } }]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let diff = d.ok(
        "default",
        "canvas_preview",
        json!({ "name": "look", "root": root, "diff": true, "viewport": "800x600" }),
    );
    assert_eq!(diff["width"], 800);
    let after = PathBuf::from(diff["screenshot"].as_str().expect("path"));
    let before = PathBuf::from(diff["before"].as_str().expect("before"));
    assert_eq!(pixel(&after, cx, cy), [200, 0, 0], "{diff}");
    assert_eq!(pixel(&before, cx, cy), [0, 170, 119], "{diff}");
    assert_eq!(diff["changed_nodes"], json!(["hero"]), "{diff}");
    // Outside the node, the page is white before and after.
    assert_eq!(pixel(&after, 790, 590), [255, 255, 255]);
    // The text node is text on the page.
    let text = d.ok(
        "default",
        "eval",
        json!({ "script": "document.querySelector('[data-node-id=title]').textContent" }),
    );
    assert_eq!(text["value"], "Hello");
}

#[test]
fn a_document_cannot_run_script_in_the_preview() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "evil");
    let r = patch(
        &d,
        root,
        "evil",
        0,
        json!([
            { "op": "token.set", "name": "--x", "value": "red;}</style><script>window.pwned=1</script>" },
            { "op": "node.insert", "parent": "p1", "node": { "id": "a", "kind": "frame", "tag": "img",
                "attributes": { "src": "x", "onerror": "window.pwned=2" } } },
            { "op": "node.insert", "parent": "p1", "node": { "id": "b", "kind": "frame", "tag": "script" } },
            { "op": "node.insert", "parent": "p1", "node": { "id": "c", "kind": "frame", "tag": "a",
                "attributes": { "href": "java\tscript:window.pwned=3" } } },
            { "op": "node.insert", "parent": "c", "node": { "kind": "text", "text": "a link" } },
            { "op": "node.insert", "parent": "p1", "node": { "id": "t", "kind": "text", "text": "<img src=x onerror=window.pwned=4>" } }
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    d.ok(
        "default",
        "canvas_preview",
        json!({ "name": "evil", "root": root }),
    );
    d.ok("default", "click", json!({ "target": "[data-node-id=c]" }));
    let v = d.ok(
        "default",
        "eval",
        json!({ "script": "String(window.pwned)" }),
    );
    assert_eq!(v["value"], "undefined", "script ran in the preview");
    let scripts = d.ok(
        "default",
        "eval",
        json!({ "script": "document.scripts.length" }),
    );
    assert_eq!(scripts["value"], 0);
}

#[test]
fn the_http_door_refuses_the_canvas() {
    let d = Daemon::start().expect("daemon");
    let dir = project();
    for (command, args) in [
        ("canvas_new", json!({ "name": "x", "root": dir.path() })),
        (
            "canvas_code_pull",
            json!({ "name": "x", "root": dir.path(), "file": "a.html" }),
        ),
        ("canvas_preview", json!({ "name": "x", "root": dir.path() })),
    ] {
        let r = d.request_tcp(json!({ "session": "default", "command": command, "args": args }));
        assert_eq!(r["error"]["code"], "forbidden", "{command}: {r}");
    }
    assert!(!dir.path().join(".webrig").exists(), "nothing was written");
}

#[test]
fn the_project_folder_holds_against_path_tricks_symlinks_and_bombs() {
    let d = Daemon::start().expect("daemon");
    install_hostile(&d);
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "p");
    let outside = project();
    std::fs::write(outside.path().join("secret.hostile"), "top secret\n").expect("write");
    std::os::unix::fs::symlink(
        outside.path().join("secret.hostile"),
        root.join("link.hostile"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(outside.path(), root.join("linked-dir")).expect("symlink");
    std::fs::write(root.join("bomb.hostile"), vec![b'a'; 5 << 20]).expect("bomb");
    let secret_abs = outside.path().join("secret.hostile");
    for (file, code) in [
        ("../secret.hostile", "invalid_argument"),
        (secret_abs.to_str().expect("utf8"), "forbidden"),
        ("link.hostile", "invalid_argument"),
        ("linked-dir/secret.hostile", "forbidden"),
        (".webrig/canvas/p.canvas.json", "forbidden"),
        ("bomb.hostile", "limit_exceeded"),
        ("missing.hostile", "invalid_argument"),
    ] {
        let e = d.err(
            "default",
            "canvas_code_pull",
            json!({ "name": "p", "root": root, "file": file }),
            code,
        );
        assert!(
            !e["message"].as_str().unwrap_or("").contains("top secret"),
            "{e}"
        );
    }
    // A document that is a symlink, or hand-made inconsistent, is refused.
    let file = doc_file(root, "p");
    let good = std::fs::read(&file).expect("read");
    std::fs::remove_file(&file).expect("rm");
    std::os::unix::fs::symlink(outside.path().join("secret.hostile"), &file).expect("symlink");
    d.err(
        "default",
        "canvas_open",
        json!({ "name": "p", "root": root }),
        "invalid_argument",
    );
    std::fs::remove_file(&file).expect("rm");
    let mut doc: Value = serde_json::from_slice(&good).expect("json");
    doc["pages"][0]["children"] = json!(["n1"]);
    doc["nodes"] =
        json!({ "n1": { "id": "n1", "kind": "frame", "page": "p1", "children": ["n1"] } });
    std::fs::write(&file, doc.to_string()).expect("write");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    d.err(
        "default",
        "canvas_open",
        json!({ "name": "p", "root": root }),
        "invalid_argument",
    );
    // Document names are ids, not paths.
    d.err(
        "default",
        "canvas_new",
        json!({ "name": "../x", "root": root }),
        "invalid_argument",
    );
    // A project folder others may write is refused.
    let shared = project();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    d.err(
        "default",
        "canvas_new",
        json!({ "name": "x", "root": shared.path() }),
        "forbidden",
    );
}

#[test]
fn a_hostile_adapter_is_contained_and_nothing_is_written() {
    let d = Daemon::start().expect("daemon");
    install_hostile(&d);
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "h");
    let pull = |file: &str| {
        d.cmd(
            "default",
            "canvas_code_pull",
            json!({ "name": "h", "root": root, "file": file, "adapter": "adapter-guest" }),
        )
    };
    for (file, says) in [
        ("loop.hostile", "deadline"),
        ("huge.hostile", "limit"),
        ("cycle.hostile", "not reachable"),
        ("dangling.hostile", "dangling"),
    ] {
        std::fs::write(root.join(file), "one\ntwo\n").expect("write");
        let r = pull(file);
        assert_eq!(r["error"]["code"], "plugin_failed", "{file}: {r}");
        assert!(
            r["error"]["message"].as_str().unwrap_or("").contains(says),
            "{file}: {r}"
        );
    }
    // The daemon is fine, and the document unchanged.
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "h", "root": root }),
    );
    assert_eq!(open["revision"], 0, "{open}");

    for (mode, says) in [
        ("outside", "outside the bound span"),
        ("drift", "drift"),
        ("broken", "does not re-parse"),
    ] {
        let file = format!("{mode}-push.hostile");
        let text = format!("mode:{mode}\nsecond line\n");
        std::fs::write(root.join(&file), &text).expect("write");
        let r = pull(&file);
        assert_eq!(r["ok"], true, "{r}");
        let binding = r["result"]["pulled"]["binding"]
            .as_str()
            .expect("binding")
            .to_string();
        let base = r["result"]["revision"].as_u64().expect("rev");
        let open = d.ok(
            "default",
            "canvas_open",
            json!({ "name": "h", "root": root }),
        );
        let root_node = open["document"]["bindings"][&binding]["root"]
            .as_str()
            .expect("root")
            .to_string();
        let second = open["document"]["nodes"][&root_node]["children"][1]
            .as_str()
            .expect("child")
            .to_string();
        let r = patch(
            &d,
            root,
            "h",
            base,
            json!([{ "op": "node.update", "id": second, "set": { "text": "changed" } }]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let r = d.cmd(
            "default",
            "canvas_code_push",
            json!({ "name": "h", "root": root, "binding": binding }),
        );
        assert_eq!(r["error"]["code"], "plugin_failed", "{mode}: {r}");
        assert!(
            r["error"]["message"].as_str().unwrap_or("").contains(says),
            "{mode}: {r}"
        );
        assert_eq!(
            std::fs::read_to_string(root.join(&file)).expect("read"),
            text,
            "{mode}: written"
        );
    }
    assert!(
        !root.join(".webrig/canvas/backups").exists()
            || std::fs::read_dir(root.join(".webrig/canvas/backups"))
                .expect("dir")
                .next()
                .is_none()
    );
}

#[test]
fn a_push_refuses_a_file_changed_since_the_pull_unless_the_canvas_wins() {
    let d = Daemon::start().expect("daemon");
    install_hostile(&d);
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "s");
    std::fs::write(root.join("doc.hostile"), "alpha\nbeta\n").expect("write");
    let r = d.ok(
        "default",
        "canvas_code_pull",
        json!({ "name": "s", "root": root, "file": "doc.hostile" }),
    );
    assert_eq!(r["pulled"]["adapter"], "adapter-guest", "{r}");
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "s", "root": root }),
    );
    let b = r["pulled"]["binding"].as_str().expect("b");
    let root_node = open["document"]["bindings"][b]["root"]
        .as_str()
        .expect("root");
    let first = open["document"]["nodes"][root_node]["children"][0]
        .as_str()
        .expect("first")
        .to_string();
    let r = patch(
        &d,
        root,
        "s",
        1,
        json!([{ "op": "node.update", "id": first, "set": { "text": "ALPHA" } }]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let status = d.ok(
        "default",
        "canvas_code_status",
        json!({ "name": "s", "root": root }),
    );
    assert_eq!(status["status"][0]["canvas_changes"], 1, "{status}");
    assert_eq!(status["status"][0]["file_changed"], false, "{status}");

    // Someone edits the file meanwhile.
    std::fs::write(root.join("doc.hostile"), "alpha\nbeta\ngamma\n").expect("write");
    let status = d.ok(
        "default",
        "canvas_code_status",
        json!({ "name": "s", "root": root }),
    );
    assert_eq!(status["status"][0]["file_changed"], true, "{status}");
    let e = d.err(
        "default",
        "canvas_code_push",
        json!({ "name": "s", "root": root }),
        "conflict",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("source_changed"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("doc.hostile")).expect("read"),
        "alpha\nbeta\ngamma\n"
    );
    // --prefer canvas: the canvas's version of the bound part wins.
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": "s", "root": root, "prefer": "canvas" }),
    );
    assert_eq!(r["pushed"]["changed"], 1, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("doc.hostile")).expect("read"),
        "ALPHA\nbeta\n"
    );
    let backup = PathBuf::from(r["pushed"]["backup"].as_str().expect("backup"));
    assert_eq!(
        std::fs::read_to_string(&backup).expect("backup"),
        "alpha\nbeta\ngamma\n"
    );
    assert_eq!(
        std::fs::metadata(&backup)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    // In sync again: nothing to push, the file left alone.
    let r = d.ok(
        "default",
        "canvas_code_push",
        json!({ "name": "s", "root": root }),
    );
    assert_eq!(r["pushed"]["unchanged"], true, "{r}");
    let status = d.ok(
        "default",
        "canvas_code_status",
        json!({ "name": "s", "root": root }),
    );
    assert_eq!(status["status"][0]["canvas_changes"], 0, "{status}");
    assert_eq!(status["status"][0]["file_changed"], false, "{status}");
}

#[test]
fn another_users_folder_in_or_as_the_project_is_refused() {
    let Some(other) = webrig_tests::other_user::OtherUser::get(
        "another_users_folder_in_or_as_the_project_is_refused",
    ) else {
        return;
    };
    let d = Daemon::start().expect("daemon");
    install_hostile(&d);
    let dir = project();
    let root = dir.path();
    new_doc(&d, root, "p");
    // A folder of theirs inside the project: they could swap what is in it
    // between the check and the write, so nothing under it is read or written.
    let theirs = root.join("src");
    std::fs::create_dir(&theirs).expect("mkdir");
    std::fs::write(theirs.join("a.hostile"), "one\n").expect("write");
    std::os::unix::fs::chown(&theirs, Some(other.uid()), Some(other.gid())).expect("chown");
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let e = d.err(
        "default",
        "canvas_code_pull",
        json!({ "name": "p", "root": root, "file": "src/a.hostile" }),
        "forbidden",
    );
    assert!(e["message"].as_str().unwrap_or("").contains("uid"), "{e}");
    // A project folder of theirs: refused before anything is written.
    let top = project();
    std::os::unix::fs::chown(top.path(), Some(other.uid()), Some(other.gid())).expect("chown");
    d.err(
        "default",
        "canvas_new",
        json!({ "name": "x", "root": top.path() }),
        "forbidden",
    );
    assert!(!top.path().join(".webrig").exists());
}

#[test]
fn the_preview_opens_in_the_users_browser_through_the_extension() {
    let s = crate::relay_session("relay-canvas");
    s.ok("tab_new", json!({}));
    let dir = project();
    let root = dir.path();
    s.ok("canvas_new", json!({ "name": "mine", "root": root }));
    s.ok(
        "canvas_patch",
        json!({ "name": "mine", "root": root, "base_revision": 0, "ops": starter_ops() }),
    );
    let shown = s.ok("canvas_preview", json!({ "name": "mine", "root": root }));
    let shot = PathBuf::from(shown["screenshot"].as_str().expect("path"));
    assert!(
        std::fs::metadata(&shot).expect("screenshot").len() > 1000,
        "{shown}"
    );
    // The user's tab shows the document.
    let text = s.ok(
        "eval",
        json!({ "script": "document.querySelector('[data-node-id=title]').textContent" }),
    );
    assert_eq!(text["value"], "Hello", "{text}");
}

//! The inspiredesign workflow end to end: styles read, ranked and reported; hanging, error and unstyled pages left out.

use super::*;

#[test]
fn inspiredesign_reads_three_styles_ranks_them_against_the_brief_and_writes_a_visual_report() {
    let d = small_daemon(&[], &[]);
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let urls: Vec<String> = ["brutal", "calm", "neon"]
        .iter()
        .map(|p| web().url(&format!("small/design/{p}.html")))
        .collect();
    let r = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "calm editorial serif with warm natural colours", "url": urls}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let refs = read_json(&bundle.join("references.json"));
    let first = refs
        .as_array()
        .and_then(|a| a.first())
        .cloned()
        .unwrap_or(refs.clone());
    assert!(
        first.to_string().contains("calm.html"),
        "calm ranks first: {refs}"
    );
    let tokens = read_json(&bundle.join("tokens.json")).to_string();
    for colour in ["#2f5d3a", "#ffe600", "#ff2bd6"] {
        assert!(
            tokens.contains(colour),
            "{colour} (one per reference) in tokens.json"
        );
    }
    for n in 1..=3 {
        let shot = bundle.join(format!("screenshots/ref-{n}.png"));
        let bytes = std::fs::read(&shot).expect("screenshot");
        assert_eq!(&bytes[1..4], b"PNG", "{shot:?}");
    }
    assert!(
        std::fs::read_to_string(bundle.join("design-brief.md"))
            .expect("md")
            .contains("calm")
    );
    check_report_renders(&bundle.join("report.html"), 3, 0);

    // One reference the workflow may not open: a failure named, the run goes on.
    let r = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "neon", "url": [urls[2].clone(), "http://10.255.255.1/x.html"]}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let failures = r["result"]["failures"].to_string();
    assert!(failures.contains("10.255.255.1"), "{failures}");
}

#[test]
fn inspiredesign_reads_past_a_hanging_page_and_leaves_out_error_and_unstyled_pages() {
    // A hanging reference first: once, it ate the run's whole deadline and
    // nothing after it was read. Then a page whose stylesheets 404 (the
    // brief's own words in its title), a 404 page, the styled studio (given
    // twice), and a page with no styles at all.
    let d = Daemon::start_with_config("").expect("daemon");
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let hanging = web().url("delay/60000/design/studio.html");
    let gone = web().url("design/gone.html");
    let urls = [
        hanging.clone(),
        web().url("design/broken.html"),
        gone.clone(),
        web().url("design/studio.html"),
        web().url("design/studio.html#again"),
        web().url("design/plain.html"),
    ];
    let started = std::time::Instant::now();
    let r = run(
        &d,
        "inspiredesign",
        json!({
            "params": {"brief": "warm orange studio with clean sans type", "url": urls},
            "timeout_ms": 40000,
        }),
    );
    let took = started.elapsed();
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        took < std::time::Duration::from_secs(25),
        "the hanging page is given 10 s, not the run: {took:?}"
    );
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));

    // references.json: the styled page first; the unstyled ones read but
    // flagged and weighted out; the hanging and the 404 page failed.
    let refs = read_json(&bundle.join("references.json"));
    let rows: Vec<(String, String, Value)> = refs
        .as_array()
        .expect("list")
        .iter()
        .map(|r| {
            let url = r["url"].as_str().unwrap_or_default();
            let name = url.rsplit('/').next().unwrap_or_default().to_string();
            (
                name,
                r["status"].as_str().unwrap_or_default().to_string(),
                r["weight"].clone(),
            )
        })
        .collect();
    let expected: Vec<(String, String, Value)> = vec![
        ("studio.html".into(), "read".into(), json!(1.0)),
        ("broken.html".into(), "default_styles".into(), json!(0.0)),
        ("plain.html".into(), "default_styles".into(), json!(0.0)),
        ("studio.html".into(), "failed".into(), Value::Null),
        ("gone.html".into(), "failed".into(), Value::Null),
    ];
    assert_eq!(rows, expected, "{refs:#}");
    assert_eq!(refs[3]["url"], hanging.as_str());
    assert_eq!(refs[3]["problems"][0]["step"], "open");
    assert_eq!(refs[3]["problems"][0]["code"], "timeout", "{refs:#}");
    assert_eq!(refs[4]["problems"][0]["code"], "not_found");
    assert_eq!(
        refs[4]["problems"][0]["message"],
        "the page answered HTTP 404"
    );
    assert!(
        refs[1]["default_styles"]
            .as_str()
            .unwrap_or_default()
            .starts_with("rendered with default styles: none of its 2 stylesheets loaded"),
        "{refs:#}"
    );
    assert!(
        refs[2]["default_styles"]
            .as_str()
            .unwrap_or_default()
            .contains("every token is a browser default"),
        "{refs:#}"
    );
    // Screenshots in rank order, one per read page.
    for (n, page) in [(1, "studio"), (2, "broken"), (3, "plain")] {
        assert_eq!(
            refs[n - 1]["screenshot"],
            format!("screenshots/ref-{n}.png"),
            "{page}"
        );
        let bytes = std::fs::read(bundle.join(format!("screenshots/ref-{n}.png"))).expect("png");
        assert_eq!(&bytes[1..4], b"PNG");
    }
    assert!(!bundle.join("screenshots/ref-4.png").exists());

    // The proposed system is the studio's alone: its orange accent, its
    // fonts with their generic fallback, spacing without the centring
    // margins or the aside's 300 px offset.
    let tokens = read_json(&bundle.join("tokens.json"));
    let proposed = &tokens["proposed"];
    assert_eq!(proposed["accent"], "#d9480f", "{proposed:#}");
    assert_eq!(proposed["background"], "#fbf7f2");
    assert_eq!(
        proposed["fonts"][0]["family"],
        "\"Helvetica Neue\", Helvetica, Arial, sans-serif"
    );
    assert_eq!(proposed["fonts"][1]["family"], "Georgia, serif");
    assert_eq!(proposed["spacing"], json!([8, 12, 16, 24, 32, 48, 64]));
    assert!(!proposed.to_string().contains("Times New Roman"));
    assert_eq!(tokens["weights"].as_array().map(Vec::len), Some(1));

    let md = std::fs::read_to_string(bundle.join("design-brief.md")).expect("md");
    for line in [
        "3 of 5 references read",
        "1. **Kiln \\& Co — a ceramics studio**",
        "Screenshot: `screenshots/ref-1.png`",
        "**Rendered with default styles: none of its 2 stylesheets loaded",
        "Given more than once, read once: ",
        "Weighted from: Kiln \\& Co — a ceramics studio (1.00).",
        "Left out (rendered with default styles): Warm orange studio with clean sans type, Warm orange notes.",
        "accent `#d9480f`",
        "(open: not_found: the page answered HTTP 404)",
        "- Georgia, serif (",
        "generic fallback: sans-serif)",
    ] {
        assert!(md.contains(line), "{line:?} in\n{md}");
    }
    assert!(
        md.contains(&format!("- {hanging} (open: timeout: ")),
        "{md}"
    );
    assert_eq!(out["status"], "partial");
    inspiredesign_report_renders(&bundle.join("report.html"), 3);

    // The run's pages are closed with it.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while tab_count(&d, "plugin-inspiredesign").unwrap_or(0) > 0 {
        assert!(
            std::time::Instant::now() < until,
            "{}",
            d.ok("default", "sessions", json!({}))
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn inspiredesign_fails_when_every_reference_shows_only_browser_defaults() {
    let d = Daemon::start_with_config("").expect("daemon");
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let e = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "warm orange", "url": [
            web().url("design/broken.html"), web().url("design/plain.html"),
        ]}}),
    );
    assert_eq!(e["ok"], false, "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("no reference page could be used"), "{e}");
    assert!(
        msg.contains("broken.html (styles: upstream: rendered with default styles"),
        "{e}"
    );
}

/// Like [`check_report_renders`], in a session of its own: tests run in
/// parallel, and two guards of one session name close it under each other.
fn inspiredesign_report_renders(report: &Path, images: usize) {
    let d = crate::daemon();
    let s = crate::SessionGuard::new(d, &format!("design-report-{}", std::process::id()));
    s.ok(
        "goto",
        json!({ "url": format!("file://{}", report.display()) }),
    );
    let v = s.ok(
        "eval",
        json!({ "script": "({ text: document.body.innerText, imgs: [...document.images].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]), specimens: [...document.querySelectorAll('.specimen')].map(e => e.style.fontFamily) })" }),
    );
    let v = &v["value"];
    let text = v["text"].as_str().unwrap_or_default();
    assert!(text.contains("generic fallback: serif"), "{text}");
    assert!(
        text.contains("weighted out of the proposed system"),
        "{text}"
    );
    let imgs = v["imgs"].as_array().expect("imgs");
    let srcs: Vec<&str> = imgs.iter().filter_map(|i| i[0].as_str()).collect();
    let expected: Vec<String> = (1..=images)
        .map(|n| format!("screenshots/ref-{n}.png"))
        .collect();
    assert_eq!(srcs, expected, "screenshots in rank order");
    for img in imgs {
        assert_eq!(img[1], true, "{report:?}: image {} did not load", img[0]);
    }
    let specimens = v["specimens"].to_string();
    assert!(specimens.contains("Georgia, serif"), "{specimens}");
}

#[test]
fn inspiredesign_seeds_a_canvas_whose_preview_uses_the_merged_tokens() {
    let d = small_daemon(&[], &[]);
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let project = super::super::canvas::project();
    let url = web().url("small/design/calm.html");
    let r = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "calm editorial", "url": [url.clone()]},
               "canvas": "brand", "root": project.path()}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let seeded = &r["result"]["canvas"];
    assert_eq!(seeded["name"], "brand", "{r}");
    assert!(seeded["tokens"].as_u64().unwrap_or(0) >= 3, "{seeded}");
    let open = d.ok(
        "default",
        "canvas_open",
        json!({ "name": "brand", "root": project.path() }),
    );
    let doc = &open["document"];
    let bundle = PathBuf::from(r["result"]["bundle"].as_str().expect("bundle"));
    let proposed = read_json(&bundle.join("tokens.json"))["proposed"].clone();
    assert_eq!(
        doc["tokens"]["--color-background"], proposed["background"],
        "{doc}"
    );
    assert_eq!(doc["nodes"]["headline-text"]["text"], "calm editorial");
    // The starter page renders with the tokens.
    let preview = d.ok(
        "default",
        "canvas_preview",
        json!({ "name": "brand", "root": project.path() }),
    );
    assert!(
        preview["console_errors"]
            .as_array()
            .expect("list")
            .is_empty(),
        "{preview}"
    );
    let bg = d.ok(
        "default",
        "eval",
        json!({ "script": "getComputedStyle(document.querySelector('[data-node-id=hero]')).backgroundColor" }),
    );
    let want = proposed["background"].as_str().expect("colour");
    let normal = d.ok(
        "default",
        "eval",
        json!({ "script": format!("(() => {{ const e = document.createElement('i'); e.style.color = {want:?}; document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c }})()") }),
    );
    assert_eq!(
        bg["value"], normal["value"],
        "the hero paints the proposed background"
    );
    // A second seed of the same name is refused before the run; a workflow
    // without tokens is refused too.
    let again = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "x", "url": [url]}, "canvas": "brand", "root": project.path()}),
    );
    assert_eq!(again["error"]["code"], "invalid_argument", "{again}");
}

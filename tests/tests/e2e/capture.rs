//! screenshot and pdf: image contents, file rules (owner-only, no clobber).

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::{both_transports, session, web};

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

both_transports!(screenshots_of_viewport_full_page_and_element, |s| {
    let dir = tempfile::tempdir().expect("temp dir");
    s.ok("goto", json!({ "url": web().url("long.html") }));
    let path = |name: &str| dir.path().join(name).display().to_string();

    // The viewport's size, read on both sides of the screenshot: a window
    // the user's browser just opened may still be growing its "started
    // debugging" bar (it animates in), and the bar comes and goes as other
    // tests' sessions attach and detach; the screenshot is taken again
    // until the size held on both sides and the picture has it.
    let viewport =
        || s.ok("eval", json!({ "script": "[innerWidth, innerHeight]" }))["value"].clone();
    let (mut view, mut vp) = (Vec::new(), json!(null));
    for _ in 0..10 {
        let before = viewport();
        let out = s.ok(
            "screenshot",
            json!({ "path": path("view.png"), "overwrite": true }),
        );
        view = std::fs::read(path("view.png")).expect("viewport file");
        assert_eq!(out["bytes"], view.len());
        vp = viewport();
        let (w, h) = png_size(&view);
        if vp == before && json!([w, h]) == vp {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (vw, vh) = png_size(&view);
    assert_eq!(json!([vw, vh]), vp, "the viewport's size");
    assert_eq!(
        vw, 1280,
        "webrig's headless width, and the user browser's window"
    );
    let mode = std::fs::metadata(path("view.png"))
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);

    s.ok(
        "screenshot",
        json!({ "path": path("full.png"), "full": true }),
    );
    let (fw, fh) = png_size(&std::fs::read(path("full.png")).expect("full file"));
    // A page with a scrollbar (the user's browser shows one) is that much narrower.
    assert!((vw - 20..=vw).contains(&fw), "full page width {fw} of {vw}");
    assert!(fh > 8000, "full page is 200 rows of 40px, got {fh}");

    s.ok(
        "screenshot",
        json!({ "path": path("box.png"), "target": "#box" }),
    );
    let (bw, bh) = png_size(&std::fs::read(path("box.png")).expect("element file"));
    assert_eq!((bw, bh), (120, 80));

    s.ok(
        "screenshot",
        json!({ "path": path("view.jpg"), "format": "jpeg", "quality": 50 }),
    );
    let jpg = std::fs::read(path("view.jpg")).expect("jpeg file");
    assert_eq!(&jpg[..3], b"\xff\xd8\xff");
});

#[test]
fn screenshot_never_replaces_a_file_unless_asked() {
    let s = session!();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("taken.png");
    std::fs::write(&file, b"precious").expect("write");
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let e = s.err("screenshot", json!({ "path": file }), "invalid_argument");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("already exists"),
        "{e}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), b"precious");
    s.ok("screenshot", json!({ "path": file, "overwrite": true }));
    png_size(&std::fs::read(&file).expect("read"));
    let names: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
    assert_eq!(names.len(), 1, "no temp files left behind");
}

#[test]
fn screenshot_refuses_unwritable_relative_and_missing_paths() {
    let s = session!();
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("plain-file");
    std::fs::write(&plain, b"").expect("write");
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    s.err(
        "screenshot",
        json!({ "path": plain.join("x.png") }),
        "invalid_argument",
    );
    s.err(
        "screenshot",
        json!({ "path": dir.path().join("no/such/dir/x.png") }),
        "invalid_argument",
    );
    s.err(
        "screenshot",
        json!({ "path": "relative.png" }),
        "invalid_argument",
    );
    s.err(
        "screenshot",
        json!({ "path": dir.path().join("x.png"), "target": "#nope" }),
        "not_found",
    );
    s.err(
        "screenshot",
        json!({ "path": dir.path().join("y.png"), "target": "a", "full": true }),
        "invalid_argument",
    );
    assert!(!dir.path().join("x.png").exists());
}

#[test]
fn screenshot_without_a_path_goes_to_the_artifacts_folder() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let out = s.ok("screenshot", json!({}));
    let path = std::path::PathBuf::from(out["path"].as_str().unwrap_or_default());
    assert!(
        path.starts_with(s.daemon.home().join("artifacts")),
        "{}",
        path.display()
    );
    png_size(&std::fs::read(&path).expect("artifact"));
}

#[test]
fn pdf_writes_a_pdf_and_keeps_the_same_file_rules() {
    let s = session!();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("page.pdf");
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let out = s.ok("pdf", json!({ "path": file }));
    let bytes = std::fs::read(&file).expect("pdf file");
    assert_eq!(&bytes[..5], b"%PDF-");
    assert_eq!(out["bytes"], bytes.len());
    s.err("pdf", json!({ "path": file }), "invalid_argument");
    s.ok(
        "pdf",
        json!({ "path": file, "overwrite": true, "landscape": true }),
    );
}

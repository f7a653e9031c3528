//! Files webrig writes and reads on a page's or an agent's word: downloads
//! (who may start them, the budgets, what `close` leaves), `route --body`,
//! `state load` and `debug bundle --path`, attacked by a web page, by
//! hostile paths (devices, FIFOs, symlinks) and by another local user racing
//! a path swap.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webrig_tests::other_user::OtherUser;
use webrig_tests::{Daemon, SessionGuard};

use crate::{session, web};

fn entries(v: &Value) -> Vec<Value> {
    v["downloads"].as_array().cloned().unwrap_or_default()
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The files in `dir`, sorted, once they are `want`: Chromium removes a
/// cancelled download's partial file on its own time. Gives up after 15 s
/// and returns what is there.
fn files_become(dir: &Path, want: &[&str]) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let mut names = files_in(dir);
        names.sort();
        if names == want || std::time::Instant::now() > deadline {
            return names;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A daemon with small download budgets: 1 MB and 3 files per session.
fn budget_daemon() -> &'static Daemon {
    static D: std::sync::OnceLock<Daemon> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        Daemon::start_with_config(
            "[limits]\ndownload_bytes_per_session = 1000000\n\
             download_files_per_session = 3\n",
        )
        .expect("daemon with download budgets")
    })
}

#[test]
fn a_page_that_starts_twenty_downloads_on_its_own_gets_none() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("files/spray.html") }));
    s.until(
        "eval",
        json!({ "script": "document.getElementById('status').textContent" }),
        |v| v["value"] == "started 20",
    );
    // Chromium itself lets only some of a burst begin; every one that does
    // is seen, and refused.
    let mut v = s.until("downloads", json!({}), |v| !entries(v).is_empty());
    loop {
        std::thread::sleep(Duration::from_millis(700));
        let now = s.ok("downloads", json!({}));
        if entries(&now).len() == entries(&v).len() {
            break;
        }
        v = now;
    }
    let folder = PathBuf::from(v["folder"].as_str().expect("folder"));
    let came = entries(&v).len();
    eprintln!("{came} of the page's 20 downloads began; all refused");
    for e in entries(&v) {
        assert_eq!(e["state"], "refused", "{e}");
        let why = e["error"].as_str().unwrap_or_default();
        assert!(why.contains("no agent action"), "{e}");
    }
    // Nothing of them stays on disk, partial or whole.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(files_in(&folder), Vec::<String>::new());
    // The agent's own download still comes, and only it.
    s.ok("goto", json!({ "url": web().url("files/index.html") }));
    let got = s.ok("click", json!({ "target": "#tiny", "download": true }));
    assert!(got["value"]["path"].as_str().is_some(), "{got}");
    assert_eq!(files_in(&folder), vec!["tiny.txt".to_string()]);
    // A plain click (no --download) is no request for a file.
    s.ok("click", json!({ "target": "#tiny" }));
    let v = s.until("downloads", json!({}), |v| entries(v).len() >= came + 2);
    let last = entries(&v).pop().unwrap_or_default();
    assert_eq!(last["state"], "refused", "{v}");
}

#[test]
fn a_download_over_the_session_budget_is_cancelled_naming_the_limit() {
    let s = SessionGuard::new(budget_daemon(), "over-budget");
    s.ok("goto", json!({ "url": web().url("files/index.html") }));
    let e = s.err(
        "click",
        json!({ "target": "#big", "download": true }),
        "limit_exceeded",
    );
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("limits.download_bytes_per_session"), "{e}");
    let v = s.until("downloads", json!({}), |v| {
        entries(v).first().is_some_and(|d| d["state"] == "canceled")
    });
    let folder = PathBuf::from(v["folder"].as_str().expect("folder"));
    assert_eq!(
        files_become(&folder, &[]),
        Vec::<String>::new(),
        "partial removed"
    );
}

#[test]
fn the_byte_budget_holds_across_several_downloads() {
    let s = SessionGuard::new(budget_daemon(), "several");
    s.ok("goto", json!({ "url": web().url("files/index.html") }));
    // 400 kB twice fits in 1 MB; the third passes it.
    for _ in 0..2 {
        s.ok("click", json!({ "target": "#small", "download": true }));
    }
    let e = s.err(
        "click",
        json!({ "target": "#small", "download": true }),
        "limit_exceeded",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("download_bytes_per_session"),
        "{e}"
    );
    let v = s.ok("downloads", json!({}));
    let folder = PathBuf::from(v["folder"].as_str().expect("folder"));
    let names = files_become(&folder, &["small (1).bin", "small.bin"]);
    assert_eq!(names, ["small (1).bin", "small.bin"], "{v}");
    // The fourth is past the file count (3) and refused at once.
    let e = s.err(
        "click",
        json!({ "target": "#tiny", "download": true }),
        "limit_exceeded",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("download_files_per_session"),
        "{e}"
    );
}

#[test]
fn close_keeps_asked_for_downloads_reports_them_and_removes_partials() {
    let name = "close-reports-downloads";
    let s = SessionGuard::new(crate::daemon(), name);
    s.ok("goto", json!({ "url": web().url("files/index.html") }));
    let got = s.ok("click", json!({ "target": "#tiny", "download": true }));
    let path = PathBuf::from(got["value"]["path"].as_str().expect("path"));
    let folder = path.parent().expect("folder").to_path_buf();
    // A partial file a crashed browser left behind.
    let partial = folder.join("0f0f0f0f-0000-4000-8000-00000000beef.crdownload");
    std::fs::write(&partial, b"half").expect("write");
    let closed = s.ok("close", json!({}));
    assert_eq!(
        closed["downloads"]["kept"],
        json!([path.display().to_string()]),
        "{closed}"
    );
    assert_eq!(closed["downloads"]["removed"], 1, "{closed}");
    assert!(path.exists(), "what the agent asked for stays");
    assert!(!partial.exists());
    // A session that downloaded nothing leaves no folder.
    let empty = SessionGuard::new(crate::daemon(), "close-no-downloads");
    empty.ok("goto", json!({ "url": web().url("files/index.html") }));
    let closed = empty.ok("close", json!({}));
    assert_eq!(closed["downloads"]["folder_removed"], true, "{closed}");
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn route_body_reads_only_regular_files_and_at_most_the_cap() {
    let s = session!();
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let to_zero = dir.path().join("zero-link");
    std::os::unix::fs::symlink("/dev/zero", &to_zero).expect("symlink");
    let to_fifo = dir.path().join("fifo-link");
    std::os::unix::fs::symlink(&fifo, &to_fifo).expect("symlink");
    for (path, needle) in [
        (PathBuf::from("/dev/zero"), "a device"),
        (fifo.clone(), "a FIFO"),
        (to_zero, "a device"),
        (to_fifo, "a FIFO"),
        (dir.path().to_path_buf(), "a folder"),
    ] {
        let started = Instant::now();
        let e = s.err(
            "route",
            json!({ "pattern": "*/x", "body": path }),
            "invalid_argument",
        );
        assert!(
            e["message"].as_str().unwrap_or_default().contains(needle),
            "{}: {e}",
            path.display()
        );
        assert!(started.elapsed() < Duration::from_secs(5), "no hang");
    }
    // One byte over the cap (4 MiB) is refused; the cap itself is fine.
    let big = dir.path().join("big.bin");
    std::fs::write(&big, vec![b'x'; (4 << 20) + 1]).expect("write");
    s.err(
        "route",
        json!({ "pattern": "*/x", "body": big }),
        "limit_exceeded",
    );
    let at_cap = dir.path().join("cap.bin");
    std::fs::write(&at_cap, vec![b'x'; 4 << 20]).expect("write");
    s.ok("route", json!({ "pattern": "*/x", "body": at_cap }));
}

fn state_json(cookies: &[(&str, &str)]) -> String {
    let list: Vec<Value> = cookies
        .iter()
        .map(|(n, v)| {
            json!({ "name": n, "value": v, "domain": "127.0.0.1", "path": "/",
                    "secure": false, "http_only": false })
        })
        .collect();
    json!({ "webrig_state": 1, "cookies": list, "origins": [] }).to_string()
}

#[test]
fn state_load_refuses_fifos_devices_and_symlinks_without_hanging() {
    let s = session!();
    let dir = tempfile::tempdir().expect("tempdir");
    let good = dir.path().join("good.json");
    std::fs::write(&good, state_json(&[("mine", "1")])).expect("write");
    std::fs::set_permissions(&good, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&good, &link).expect("symlink");
    for (path, needle) in [
        (fifo, "a FIFO"),
        (PathBuf::from("/dev/zero"), "a device"),
        (link, "symlink"),
    ] {
        let started = Instant::now();
        let e = s.err("state_load", json!({ "path": path }), "invalid_argument");
        assert!(
            e["message"].as_str().unwrap_or_default().contains(needle),
            "{}: {e}",
            path.display()
        );
        assert!(started.elapsed() < Duration::from_secs(5), "no hang");
    }
    assert_eq!(s.ok("state_load", json!({ "path": good }))["cookies"], 1);
}

/// A folder `other` owns inside a temp folder it can reach.
fn their_folder(other: OtherUser) -> (tempfile::TempDir, PathBuf) {
    let top = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let theirs = top.path().join("theirs");
    std::fs::create_dir(&theirs).expect("mkdir");
    std::os::unix::fs::chown(&theirs, Some(other.uid()), Some(other.gid())).expect("chown");
    (top, theirs)
}

#[test]
fn state_load_never_reads_a_symlink_swapped_in_by_another_user() {
    let Some(other) = OtherUser::get("state_load_never_reads_a_symlink_swapped_in") else {
        return;
    };
    let s = session!();
    let (_top, theirs) = their_folder(other);
    let mine = theirs.join("state.json");
    std::fs::write(&mine, state_json(&[("mine", "1")])).expect("write");
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    // Their file: two cookies, so a load that read it says 2.
    let evil = theirs.join("evil.json");
    std::fs::write(&evil, state_json(&[("evil", "1"), ("evil2", "2")])).expect("write");
    std::os::unix::fs::chown(&evil, Some(other.uid()), Some(other.gid())).expect("chown");
    // They swap their symlink in and out of the path, as fast as they can.
    let swapper = other
        .command("/usr/bin/perl")
        .arg("-e")
        .arg(
            r#"my ($d, $secs) = @ARGV; my $end = time + $secs;
               while (time < $end) {
                 rename("$d/state.json", "$d/real.json");
                 symlink("$d/evil.json", "$d/state.json");
                 rename("$d/real.json", "$d/state.json");
               }"#,
        )
        .arg(&theirs)
        .arg("8")
        .spawn()
        .expect("the other user's swapper");
    let mut loaded = 0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(6) {
        let r = s.cmd("state_load", json!({ "path": mine }));
        if r["ok"] == true {
            loaded += 1;
            assert_eq!(r["result"]["cookies"], 1, "their file was read: {r}");
        }
    }
    let mut swapper = swapper;
    let _ = swapper.wait();
    let cookies = s.ok("cookies", json!({ "all": true }));
    assert!(!cookies.to_string().contains("evil"), "{cookies}");
    eprintln!("state load under a swap race: {loaded} loads, none of their file");
}

#[test]
fn debug_bundle_writes_nothing_through_a_symlink_another_user_races_in() {
    let Some(other) = OtherUser::get("debug_bundle_writes_nothing_through_a_symlink") else {
        return;
    };
    let s = session!();
    s.ok("goto", json!({ "url": web().url("files/index.html") }));
    let (_top, theirs) = their_folder(other);
    // Where they want root to write (and chmod): a folder of theirs.
    let loot = theirs.join("loot");
    std::fs::create_dir(&loot).expect("mkdir");
    std::fs::set_permissions(&loot, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    std::os::unix::fs::chown(&loot, Some(other.uid()), Some(other.gid())).expect("chown");
    // They plant a symlink at the bundle's path, take it away, and move
    // the real folder aside for one, again and again.
    let racer = other
        .command("/usr/bin/perl")
        .arg("-e")
        .arg(
            r#"use Time::HiRes qw(time sleep); my ($d, $secs) = @ARGV;
               my $end = time + $secs; my $n = 0;
               while (time < $end) {
                 if (-d "$d/bundle" && !-l "$d/bundle") { rename("$d/bundle", "$d/moved" . $n++); }
                 symlink("$d/loot", "$d/bundle");
                 sleep(0.002 + rand(0.01));
                 unlink("$d/bundle") if -l "$d/bundle";
                 sleep(0.002 + rand(0.01));
               }"#,
        )
        .arg(&theirs)
        .arg("12")
        .spawn()
        .expect("the other user's racer");
    let target = theirs.join("bundle");
    let (mut made, mut refused) = (0, 0);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) && made + refused < 25 {
        let r = s.cmd("debug_bundle", json!({ "path": target }));
        if r["ok"] == true {
            made += 1;
        } else {
            refused += 1;
            assert_eq!(r["error"]["code"], "invalid_argument", "{r}");
        }
        assert_eq!(
            files_in(&loot),
            Vec::<String>::new(),
            "written through: {r}"
        );
    }
    let mut racer = racer;
    let _ = racer.wait();
    let mode = std::fs::metadata(&loot).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o777, "their folder was chmodded");
    eprintln!("debug bundle under a symlink race: {made} made, {refused} refused");
}

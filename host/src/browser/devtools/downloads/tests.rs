//! Unit tests of [`super::Downloads`]: names, the policy, the budgets and close.

use super::*;
use serde_json::json;

#[test]
fn names_are_one_safe_component() {
    assert_eq!(safe_name("../../etc/passwd"), "passwd");
    assert_eq!(safe_name(".bashrc"), "bashrc");
    assert_eq!(safe_name("a\u{0}b\nc.txt"), "a_b_c.txt");
    assert_eq!(safe_name(""), "download");
    assert_eq!(safe_name(".."), "download");
    assert_eq!(safe_name("C:\\x\\report.pdf"), "report.pdf");
}

fn rules(policy: DownloadPolicy) -> Rules {
    Rules {
        policy,
        files_per_session: 3,
        bytes_per_session: 10_000,
        files_total: 100,
        bytes_total: 1 << 30,
    }
}

fn begin(d: &Downloads, guid: &str, frame: &str) -> Verdict {
    d.apply(
        "Browser.downloadWillBegin",
        &json!({ "guid": guid, "url": "http://x/r", "suggestedFilename": "report.csv",
                 "frameId": frame }),
    )
}

fn progress(d: &Downloads, guid: &str, state: &str, got: u64, total: u64) -> Verdict {
    d.apply(
        "Browser.downloadProgress",
        &json!({ "guid": guid, "state": state, "receivedBytes": got, "totalBytes": total }),
    )
}

fn state_of(d: &Downloads, guid: &str) -> (String, Option<String>) {
    let list = d.list();
    let e = list.iter().find(|e| e.id == guid).expect("listed");
    (e.state.clone(), e.error.clone())
}

#[test]
fn a_finished_download_gets_its_name_and_never_overwrites() {
    let (_home, dir) = session_dir();
    let d = Downloads::new(dir.path().to_path_buf(), rules(DownloadPolicy::Always));
    std::fs::write(dir.path().join("report.csv"), b"old").expect("write");
    for guid in ["g1", "g2"] {
        std::fs::write(dir.path().join(guid), b"new").expect("write");
        assert_eq!(begin(&d, guid, "F").cancel, None);
        progress(&d, guid, "completed", 3, 3);
    }
    let list = d.list();
    assert_eq!(
        list[0].path.as_deref(),
        Some(
            dir.path()
                .join("report (1).csv")
                .to_str()
                .unwrap_or_default()
        )
    );
    assert_eq!(
        list[1].path.as_deref(),
        Some(
            dir.path()
                .join("report (2).csv")
                .to_str()
                .unwrap_or_default()
        )
    );
    assert_eq!(
        std::fs::read(dir.path().join("report.csv")).expect("read"),
        b"old"
    );
    let mode = std::fs::metadata(dir.path().join("report (1).csv"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(!dir.path().join("g1").exists());
}

#[test]
fn a_pages_own_download_is_refused_and_an_armed_one_accepted_once() {
    let (_home, dir) = session_dir();
    let d = Arc::new(Downloads::new(
        dir.path().join("s"),
        rules(DownloadPolicy::Agent),
    ));
    // No agent action: refused, cancelled, its partial file removed.
    std::fs::create_dir(dir.path().join("s")).expect("mkdir");
    let guid = "0f0f0f0f-0000-4000-8000-000000000001";
    std::fs::write(dir.path().join("s").join(guid), b"xx").expect("write");
    assert_eq!(begin(&d, guid, "T1").cancel.as_deref(), Some(guid));
    let (state, why) = state_of(&d, guid);
    assert_eq!(state, "refused");
    assert!(why.unwrap_or_default().contains("no agent action"));
    assert!(!dir.path().join("s").join(guid).exists());
    // A browser still reporting it running is told again.
    assert_eq!(
        progress(&d, guid, "inProgress", 5, 0).cancel.as_deref(),
        Some(guid)
    );
    // One action, one download: the tab's own first, a second refused.
    let other = d.arm("T2");
    let armed = d.arm("T1");
    assert_eq!(begin(&d, "a", "T1").cancel, None);
    assert!(begin(&d, "b", "T1").cancel.is_none(), "T2's arm took it");
    assert!(begin(&d, "c", "T1").cancel.is_some(), "no arm left");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let got = rt.block_on(armed.wait_begun(std::time::Duration::from_millis(10)));
    assert_eq!(got.as_deref(), Some("a"));
    drop((armed, other));
    assert!(d.lock().arms.is_empty(), "arms are released when dropped");
}

#[test]
fn never_refuses_even_an_armed_download() {
    let (_home, dir) = session_dir();
    let d = Arc::new(Downloads::new(
        dir.path().into(),
        rules(DownloadPolicy::Never),
    ));
    let _armed = d.arm("T1");
    assert!(begin(&d, "a", "T1").cancel.is_some());
    assert!(state_of(&d, "a").1.unwrap_or_default().contains("never"));
}

#[test]
fn budgets_refuse_or_cancel_with_the_limit_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = Downloads::new(dir.path().join("s"), rules(DownloadPolicy::Always));
    std::fs::create_dir(dir.path().join("s")).expect("mkdir");
    // An announced size over the budget: cancelled at its first progress.
    begin(&d, "big", "T");
    assert_eq!(
        progress(&d, "big", "inProgress", 0, 20_000)
            .cancel
            .as_deref(),
        Some("big")
    );
    let (state, why) = state_of(&d, "big");
    assert_eq!(state, "canceled");
    assert!(
        why.unwrap_or_default()
            .contains("limits.download_bytes_per_session"),
        "{:?}",
        d.list()
    );
    assert!(d.list()[0].over_limit);
    // Unannounced: cancelled once its bytes on disk pass the budget.
    begin(&d, "stream", "T");
    assert_eq!(progress(&d, "stream", "inProgress", 100, 0).cancel, None);
    std::fs::write(dir.path().join("s").join("stream"), vec![0u8; 10_001]).expect("write");
    assert_eq!(d.measure(), vec!["stream".to_string()]);
    assert!(!dir.path().join("s").join("stream").exists(), "removed");
    // A fourth file passes the file count (3).
    assert_eq!(begin(&d, "third", "T").cancel, None);
    assert!(begin(&d, "fourth", "T").cancel.is_some());
    let (state, why) = state_of(&d, "fourth");
    assert_eq!(state, "refused");
    assert!(
        why.unwrap_or_default()
            .contains("download_files_per_session")
    );
    // Several small ones add up to the byte budget.
    let d = Downloads::new(dir.path().join("s"), rules(DownloadPolicy::Always));
    for g in ["a", "b"] {
        std::fs::write(dir.path().join("s").join(g), vec![0u8; 6000]).expect("write");
        assert_eq!(begin(&d, g, "T").cancel, None);
        if progress(&d, g, "inProgress", 6000, 6000).cancel.is_none() {
            progress(&d, g, "completed", 6000, 6000);
        }
    }
    assert_eq!(state_of(&d, "a").0, "completed");
    let (state, why) = state_of(&d, "b");
    assert_eq!(state, "canceled");
    assert!(
        why.unwrap_or_default()
            .contains("download_bytes_per_session")
    );
    assert!(!dir.path().join("s").join("b").exists());
}

#[test]
fn the_home_budget_counts_what_other_sessions_keep() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("old")).expect("mkdir");
    std::fs::write(dir.path().join("old").join("kept.bin"), vec![0u8; 900]).expect("write");
    let mut r = rules(DownloadPolicy::Always);
    r.bytes_total = 1000;
    let d = Downloads::new(dir.path().join("s"), r);
    begin(&d, "g", "T");
    assert_eq!(
        progress(&d, "g", "inProgress", 0, 200).cancel.as_deref(),
        Some("g")
    );
    assert!(
        state_of(&d, "g")
            .1
            .unwrap_or_default()
            .contains("limits.download_bytes_total")
    );
    let mut r = rules(DownloadPolicy::Always);
    r.files_total = 1;
    let d = Downloads::new(dir.path().join("s2"), r);
    assert!(begin(&d, "h", "T").cancel.is_some());
    assert!(
        state_of(&d, "h")
            .1
            .unwrap_or_default()
            .contains("limits.download_files_total")
    );
}

#[test]
fn close_removes_partials_keeps_completed_and_reports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = dir.path().join("s");
    std::fs::create_dir(&s).expect("mkdir");
    let d = Downloads::new(s.clone(), rules(DownloadPolicy::Always));
    std::fs::write(s.join("g1"), b"done").expect("write");
    begin(&d, "g1", "T");
    progress(&d, "g1", "completed", 4, 4);
    let partial = "0f0f0f0f-0000-4000-8000-000000000002.crdownload";
    std::fs::write(s.join(partial), b"half").expect("write");
    let left = d.close();
    assert_eq!(left.kept, vec![s.join("report.csv").display().to_string()]);
    assert_eq!(left.removed, 1);
    assert!(!left.folder_removed);
    std::fs::remove_file(s.join("report.csv")).expect("rm");
    assert!(d.close().folder_removed, "an empty folder goes");
    assert!(!s.exists());
}

/// A session's folder inside a downloads folder of its own: the home
/// budget counts the session folder's siblings, so it must not be the
/// system's temp folder.
fn session_dir() -> (tempfile::TempDir, SessionDir) {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("s");
    std::fs::create_dir(&dir).expect("mkdir");
    (home, SessionDir(dir))
}

struct SessionDir(std::path::PathBuf);

impl SessionDir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

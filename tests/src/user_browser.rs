//! "The user's own browser" for the relay tests: a Chromium the test starts
//! itself with the unpacked webrig extension loaded (as a user would), and a
//! DevTools port the test uses only to drive the extension's popup (pairing)
//! and to stop its service worker. webrig never touches that port: it
//! reaches this browser through the extension alone.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webrig::browser::cdp::Connection;

pub struct UserBrowser {
    child: Child,
    _profile: tempfile::TempDir,
    rt: tokio::runtime::Runtime,
    conn: Connection,
    ws: String,
}

/// The extension's folder in this repository.
pub fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension")
}

/// The pinned id of the unpacked extension (its manifest `key`).
pub fn extension_id() -> String {
    std::fs::read_to_string(extension_dir().join("test-id.txt"))
        .expect("extension/test-id.txt")
        .trim()
        .to_string()
}

fn chromium() -> PathBuf {
    std::env::var_os("WEBRIG_BROWSER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/chromium/chromium"))
}

/// The browser-level DevTools WebSocket of a Chromium started with
/// `--remote-debugging-port=0 --user-data-dir=PROFILE`, once it wrote
/// `DevToolsActivePort` (panics after 20 s).
pub fn devtools_ws(profile: &std::path::Path) -> String {
    let port_file = profile.join("DevToolsActivePort");
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(&port_file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return format!("ws://127.0.0.1:{port}{path}");
            }
        }
        assert!(Instant::now() < until, "chromium gave no DevTools port");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl UserBrowser {
    pub fn start() -> UserBrowser {
        let profile = tempfile::tempdir().expect("profile dir");
        let ext = extension_dir().canonicalize().expect("extension dir");
        let child = Command::new(chromium())
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-port=0",
                // The viewport webrig's own headless browsers get.
                "--window-size=1280,800",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--load-extension={}", ext.display()))
            .arg(format!("--disable-extensions-except={}", ext.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        let ws = devtools_ws(profile.path());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let conn = rt
            .block_on(Connection::connect_ws(&ws))
            .expect("DevTools connection");
        UserBrowser {
            child,
            _profile: profile,
            rt,
            conn,
            ws,
        }
    }

    /// The browser's DevTools WebSocket (`ws://127.0.0.1:PORT/devtools/browser/…`).
    pub fn ws(&self) -> &str {
        &self.ws
    }

    /// A browser-level DevTools call.
    pub fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.rt
            .block_on(self.conn.call(session, method, params))
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// Opens `url` in a new tab as the user would; returns (targetId, session).
    pub fn open(&self, url: &str) -> (String, String) {
        let t = self.call(None, "Target.createTarget", json!({ "url": url }));
        let target = t["targetId"].as_str().expect("targetId").to_string();
        let s = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        (
            target,
            s["sessionId"].as_str().expect("sessionId").to_string(),
        )
    }

    pub fn eval(&self, session: &str, expr: &str) -> Value {
        let v = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        v["result"]["value"].clone()
    }

    /// Pairs the extension with the daemon on `port` by typing `code` into
    /// its popup, as a user does; waits until it says it is connected.
    pub fn pair(&self, port: u16, code: &str) {
        let popup = format!("chrome-extension://{}/popup.html", extension_id());
        let (target, s) = self.open(&popup);
        let until = Instant::now() + Duration::from_secs(10);
        let ready = "document.readyState === 'complete' && !!document.getElementById('pair') \
                     && document.getElementById('state').textContent !== '…'";
        while self.eval(&s, ready) != json!(true) {
            assert!(Instant::now() < until, "the popup did not load");
            std::thread::sleep(Duration::from_millis(50));
        }
        let fill = format!(
            "(() => {{ const set = (id, v) => {{ const e = document.getElementById(id); e.value = v; \
             e.dispatchEvent(new Event('input', {{bubbles: true}})); }}; set('port', '{port}'); \
             set('code', '{code}'); document.getElementById('pair').click(); return true; }})()"
        );
        self.eval(&s, &fill);
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let state = self.eval(&s, "document.getElementById('state').dataset.state");
            if state == json!("connected") {
                break;
            }
            assert!(
                Instant::now() < until,
                "the extension did not connect: {state} {}",
                self.eval(&s, "document.body.innerText")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        self.call(None, "Target.closeTarget", json!({ "targetId": target }));
    }
}

impl UserBrowser {
    /// The popup, loaded, in a tab of its own: (targetId, session).
    fn popup(&self) -> (String, String) {
        let popup = format!("chrome-extension://{}/popup.html", extension_id());
        let (target, s) = self.open(&popup);
        let until = Instant::now() + Duration::from_secs(10);
        let ready = "document.readyState === 'complete' && !!document.getElementById('pair') \
                     && document.getElementById('state').textContent !== '…'";
        while self.eval(&s, ready) != json!(true) {
            assert!(Instant::now() < until, "the popup did not load");
            std::thread::sleep(Duration::from_millis(50));
        }
        (target, s)
    }

    /// Lends the user's tab whose URL contains `url_part` to the agent by
    /// pressing its "lend" button in the popup, as a user does.
    pub fn lend(&self, url_part: &str) {
        let (target, s) = self.popup();
        let part = serde_json::to_string(url_part).expect("json");
        let click = format!(
            "(() => {{ const b = [...document.querySelectorAll('#lendable button.lend')] \
             .find((b) => b.dataset.url.includes({part})); if (!b) return false; b.click(); \
             return true; }})()"
        );
        let lent = format!(
            "[...document.querySelectorAll('#lendable button.unlend')] \
             .some((b) => b.dataset.url.includes({part}))"
        );
        let until = Instant::now() + Duration::from_secs(10);
        let mut clicked = false;
        while self.eval(&s, &lent) != json!(true) {
            if !clicked {
                clicked = self.eval(&s, &click) == json!(true);
            }
            assert!(
                Instant::now() < until,
                "no lend button for {url_part}: {}",
                self.eval(&s, "document.body.innerText")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        self.call(None, "Target.closeTarget", json!({ "targetId": target }));
    }

    /// Runs `expr` in the extension's popup page (its chrome.* APIs), e.g.
    /// to learn the tab ids `chrome.tabs` gives the user's tabs.
    pub fn in_extension(&self, expr: &str) -> Value {
        let (target, s) = self.popup();
        let v = self.eval(&s, expr);
        self.call(None, "Target.closeTarget", json!({ "targetId": target }));
        v
    }
}

impl Drop for UserBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

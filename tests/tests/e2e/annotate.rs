//! Annotations: a person points at elements (trusted mouse and keyboard
//! input over CDP, as a person's hand would), the agent gets refs it can
//! act on; a page can neither read nor forge the overlay; the inbox keeps
//! sends by its rules. In a launched browser and through the relay.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::cdp::{Raw, attach_first, ticket_url};
use crate::{SessionGuard, both_transports, daemon, web};

/// A person at the session's page: a CDP client of the session (the CDP
/// front end) sending the Input domain's trusted events.
struct Person {
    conn: Conn,
    page: String,
}

enum Conn {
    /// The session's CDP front end (`cdp-url`).
    Front(Box<Raw>),
    /// The user's own browser's DevTools (a person at their own Chrome).
    User(&'static webrig_tests::user_browser::UserBrowser),
}

impl Person {
    fn at(s: &SessionGuard<'_>) -> Person {
        let mut raw = Raw::open(&ticket_url(s, false), &[]).expect("cdp");
        let (_, page) = attach_first(&mut raw);
        Person {
            conn: Conn::Front(Box::new(raw)),
            page,
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        match &mut self.conn {
            Conn::Front(raw) => raw.call(method, params, Some(&self.page)),
            Conn::User(u) => json!({ "result": u.call(Some(&self.page), method, params) }),
        }
    }

    /// An expression's value in the page's own world (what its scripts see).
    fn eval(&mut self, expr: &str) -> Value {
        let v = self.call(
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        v["result"]["result"]["value"].clone()
    }

    fn center(&mut self, selector: &str) -> (f64, f64) {
        let sel = serde_json::to_string(selector).expect("json");
        let r = self.eval(&format!(
            "(() => {{ const r = document.querySelectorAll({sel})[0].getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        (r[0].as_f64().expect("x"), r[1].as_f64().expect("y"))
    }

    fn input(&mut self, method: &str, params: Value) {
        let v = self.call(method, params);
        assert!(v.get("error").is_none(), "{method}: {v}");
    }

    fn click(&mut self, (x, y): (f64, f64)) {
        self.input(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.input(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let c = c.to_string();
            self.input(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyDown", "key": c, "text": c }),
            );
            self.input(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyUp", "key": c }),
            );
        }
    }

    fn press(&mut self, key: &str) {
        let code = if key == "Enter" { 13 } else { 27 };
        let mut down =
            json!({ "type": "rawKeyDown", "key": key, "code": key, "windowsVirtualKeyCode": code });
        self.input("Input.dispatchKeyEvent", down.clone());
        if key == "Enter" {
            down["type"] = json!("char");
            down["text"] = json!("\r");
            self.input("Input.dispatchKeyEvent", down);
        }
        self.input(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code }),
        );
    }

    /// Whether something other than the element itself is at its center
    /// (the overlay covers the page while it is up).
    fn covered(&mut self, selector: &str) -> bool {
        let sel = serde_json::to_string(selector).expect("json");
        self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); const r = e.getBoundingClientRect(); \
             return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) !== e; }})()"
        )) == json!(true)
    }

    fn wait_overlay(&mut self, selector: &str, up: bool) {
        let until = Instant::now() + Duration::from_secs(20);
        while self.covered(selector) != up {
            assert!(
                Instant::now() < until,
                "the overlay never went {}",
                if up { "up" } else { "away" }
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `annotate` with `args`, from a thread: the person acts meanwhile.
fn annotate_in_background(s: &SessionGuard<'_>, args: Value) -> std::thread::JoinHandle<Value> {
    let name = s.name.clone();
    std::thread::spawn(move || daemon().cmd(&name, "annotate", args))
}

fn page(s: &SessionGuard<'_>) {
    s.ok(
        "goto",
        json!({ "url": web().url("annotate/page.html?session=abcdef0123456789abcdef&q=shoes") }),
    );
}

both_transports!(
    a_person_picks_two_elements_with_notes_and_the_agent_acts_on_them,
    |s| {
        page(&s);
        let mut person = Person::at(&s);
        let pay_box =
            person.eval("JSON.stringify(document.getElementById('pay').getBoundingClientRect())");
        let pay_box: Value = serde_json::from_str(pay_box.as_str().expect("box")).expect("json");
        let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
        person.wait_overlay("#pay", true);
        let pay = person.center("#pay");
        person.click(pay);
        person.type_text("make it green, ask jane@example.com");
        let second = person.center(".items button:nth-of-type(2)");
        person.click(second);
        person.type_text("not this one");
        // The page got none of those clicks.
        assert_eq!(
            person.eval("String(window.paid) + String(window.deleted)"),
            json!("undefinedundefined")
        );
        person.press("Enter");
        let out = waiting.join().expect("thread");
        assert_eq!(out["ok"], true, "{out}");
        let r = &out["result"];
        assert_eq!(r["status"], "sent", "{r}");
        let a = &r["annotation"];
        let items = a["items"].as_array().expect("items");
        assert_eq!(items.len(), 2, "{a}");

        // The first: its ref, ranked candidates (test id first), box, styles, note.
        let first = &items[0];
        assert_eq!(first["n"], 1);
        assert!(
            first["ref"].as_str().expect("ref").starts_with("@e"),
            "{first}"
        );
        assert_eq!(
            (first["role"].as_str(), first["name"].as_str()),
            (Some("button"), Some("Pay now"))
        );
        assert_eq!(first["tag"], "button");
        let cands = first["candidates"].as_array().expect("candidates");
        assert_eq!(cands[0]["value"], "testid=\"pay-now\"", "{cands:?}");
        assert_eq!(cands[0]["matches"], 1);
        assert!(
            cands
                .iter()
                .any(|c| c["value"] == "role=button[name=\"Pay now\"]"),
            "{cands:?}"
        );
        assert!(cands.iter().any(|c| c["value"] == "#pay"), "{cands:?}");
        let conf: Vec<f64> = cands
            .iter()
            .map(|c| c["confidence"].as_f64().expect("c"))
            .collect();
        assert!(conf.windows(2).all(|w| w[0] >= w[1]), "ranked: {conf:?}");
        for (k, want) in [
            ("x", "x"),
            ("y", "y"),
            ("width", "width"),
            ("height", "height"),
        ] {
            let got = first["rect"][k].as_f64().expect("rect");
            let was = pay_box[want].as_f64().expect("box");
            assert!((got - was).abs() <= 1.5, "rect.{k}: {got} vs {was}");
        }
        assert_eq!(
            first["styles"]["background-color"], "rgb(0, 128, 0)",
            "{first}"
        );
        assert_eq!(first["frame"], "main");
        let note = first["note"].as_str().expect("note");
        assert!(
            note.starts_with("make it green, ask ") && !note.contains("jane@"),
            "{note}"
        );

        // The second of three alike: its candidates name it with nth=.
        let second = &items[1];
        assert_eq!(second["note"], "not this one");
        let role = second["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .find(|c| c["kind"] == "role")
            .expect("a role candidate");
        assert_eq!(
            role["value"], "role=button[name=\"Delete\"] >> nth=1",
            "{role}"
        );
        assert_eq!(role["matches"], 3);

        // Redacted, with a report: the URL's secret parameter, the title's
        // and the note's addresses.
        assert!(
            !a["url"].as_str().expect("url").contains("abcdef0123456789"),
            "{}",
            a["url"]
        );
        assert!(a["url"].as_str().expect("url").contains("q=shoes"));
        assert!(!a["title"].as_str().expect("title").contains("jane@"));
        let fields: Vec<&str> = a["redacted"]
            .as_array()
            .expect("redacted")
            .iter()
            .filter_map(|m| m["field"].as_str())
            .collect();
        for f in ["url", "title", "items[0].note"] {
            assert!(fields.contains(&f), "{f} in {fields:?}");
        }
        // The screenshot is a file (0600, a PNG), never in the text.
        let shot = a["screenshot"].as_str().expect("screenshot");
        let bytes = std::fs::read(shot).expect("the screenshot file");
        assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(shot).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let text = out.to_string();
        assert!(
            !text.contains("iVBOR") && text.len() < 24 * 1024 + 2048,
            "{} bytes",
            text.len()
        );
        // The overlay is gone.
        person.wait_overlay("#pay", false);

        // The agent acts on the picked element: its ref, or the inbox target.
        let id = r["stored"]["id"].as_str().expect("id").to_string();
        s.ok("click", json!({ "target": format!("inbox:{id}#1") }));
        s.ok("click", json!({ "target": first["ref"] }));
        s.ok("click", json!({ "target": format!("inbox:{id}#2") }));
        assert_eq!(
            person.eval("String(window.paid) + window.deleted"),
            json!("2b")
        );
        // The inbox has it (read: the agent got it).
        let shown = s.ok("inbox_show", json!({ "id": id }));
        assert_eq!(shown["read"], true);
        assert_eq!(shown["annotation"]["items"][1]["note"], "not this one");
        // Another session cannot use it; a page that moved on fails closed.
        let e = daemon().err(
            "default",
            "click",
            json!({ "target": format!("inbox:{id}#1") }),
            "invalid_argument",
        );
        assert!(e["message"].as_str().expect("m").contains("session"), "{e}");
        s.ok("reload", json!({}));
        let e = s.err(
            "click",
            json!({ "target": format!("inbox:{id}#1") }),
            "not_found",
        );
        let msg = e["message"].as_str().expect("message");
        assert!(
            msg.contains(&format!("inbox:{id}#1")) && msg.contains("stale"),
            "{e}"
        );
        assert!(
            e["hint"]
                .as_str()
                .expect("hint")
                .contains("testid=\"pay-now\""),
            "{e}"
        );
        s.err(
            "click",
            json!({ "target": format!("inbox:{id}#3") }),
            "not_found",
        );
        assert_eq!(
            person.eval("String(window.paid)"),
            json!("undefined"),
            "nothing was clicked after the reload"
        );
    }
);

both_transports!(a_page_can_neither_read_nor_forge_the_overlay, |s| {
    page(&s);
    let mut person = Person::at(&s);
    let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
    person.wait_overlay("#pay", true);
    let found = person.eval("window.forge()");
    let found: Value = serde_json::from_str(found.as_str().expect("report")).expect("json");
    assert_eq!(found["host"], true, "{found}");
    assert_eq!(found["shadowRoot"], Value::Null, "closed: {found}");
    assert_eq!(found["attach"], "refused", "{found}");
    assert_eq!(found["webrig"], "undefined", "{found}");
    assert_eq!(found["text"], "", "nothing of the panel reads out: {found}");
    // Forged clicks and keys picked nothing, sent nothing, clicked nothing
    // on the page; styling and removing it did not take it away.
    assert_eq!(found["under"], "overlay", "{found}");
    assert_eq!(
        person.eval("String(window.paid)"),
        json!("undefined"),
        "nothing reached the page"
    );
    person.wait_overlay("#pay", true);
    // The person picks one element and sends: exactly that one arrives
    // (a forged click picked nothing, a forged Esc or Enter ended nothing).
    let pay = person.center("#pay");
    person.click(pay);
    person.press("Enter");
    let out = waiting.join().expect("thread");
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["result"]["status"], "sent", "{out}");
    let items = out["result"]["annotation"]["items"]
        .as_array()
        .expect("items");
    assert_eq!(items.len(), 1, "{out}");
    assert_eq!(items[0]["name"], "Pay now");
    person.wait_overlay("#pay", false);
});

#[test]
fn nobody_answers_and_the_capture_times_out() {
    let s = crate::session!();
    page(&s);
    let mut person = Person::at(&s);
    let out = s.cmd("annotate", json!({ "timeout_ms": 4000 }));
    assert_eq!(out["error"]["code"], "timeout", "{out}");
    // The test's browser is headless: the error says nobody could see it.
    let says = out["error"]["message"].as_str().unwrap_or_default();
    assert!(says.contains("headless"), "{out}");
    assert!(
        out["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("--headed"),
        "{out}"
    );
    person.wait_overlay("#pay", false);
    // The person cancels: a trusted Esc, after picking something.
    let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
    person.wait_overlay("#pay", true);
    // One capture per tab: a second one is refused while it runs.
    s.err("annotate", json!({ "timeout_ms": 5000 }), "busy");
    let pay = person.center("#pay");
    person.click(pay);
    person.press("Escape");
    let out = waiting.join().expect("thread");
    assert_eq!(out["result"]["status"], "cancelled", "{out}");
    person.wait_overlay("#pay", false);
    assert_eq!(person.eval("String(window.paid)"), json!("undefined"));
    // And a navigation ends a capture at once.
    let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
    person.wait_overlay("#pay", true);
    person.eval("location.reload()");
    let out = waiting.join().expect("thread");
    assert_eq!(out["error"]["code"], "navigation_failed", "{out}");
    // A session that does not exist, a bad timeout.
    daemon().err("no-such-session", "annotate", json!({}), "not_found");
    s.err(
        "annotate",
        json!({ "timeout_ms": 999_999_999 }),
        "invalid_argument",
    );
}

/// Picks the pay button with `note` and sends (no screenshot); the result.
fn send_one(s: &SessionGuard<'_>, person: &mut Person, note: &str) -> Value {
    let out = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            s.cmd(
                "annotate",
                json!({ "timeout_ms": 60000, "no_screenshot": true }),
            )
        });
        person.wait_overlay("#pay", true);
        let pay = person.center("#pay");
        person.click(pay);
        person.type_text(note);
        person.press("Enter");
        waiting.join().expect("thread")
    });
    assert_eq!(out["ok"], true, "{out}");
    person.wait_overlay("#pay", false);
    out["result"].clone()
}

#[test]
fn sends_route_by_scope_and_identical_ones_within_a_minute_are_stored_once() {
    let d = webrig_tests::Daemon::start().expect("daemon");
    let s = SessionGuard::new(&d, "scopes");
    page(&s);
    let mut person = Person::at(&s);
    let scoped = |r: &Value| {
        (
            r["stored"]["scope"].clone(),
            r["stored"]["ambiguous"].clone(),
        )
    };
    // No scope active: stored for whoever reads.
    let none = send_one(&s, &mut person, "first");
    assert_eq!(scoped(&none), (Value::Null, Value::Null), "{none}");
    assert_eq!(none["stored"]["deduped"], false);
    // The same again within the minute: one entry.
    let again = send_one(&s, &mut person, "first");
    assert_eq!(again["stored"]["deduped"], true, "{again}");
    assert_eq!(again["stored"]["id"], none["stored"]["id"]);
    // One scope: it gets the send.
    d.ok("x", "inbox_scope", json!({ "name": "alpha" }));
    let one = send_one(&s, &mut person, "second");
    assert_eq!(scoped(&one), (json!("alpha"), Value::Null), "{one}");
    // Two: the send is flagged ambiguous and names both.
    let both = d.ok("x", "inbox_scope", json!({ "name": "beta" }));
    assert_eq!(both["active"], json!(["alpha", "beta"]));
    let two = send_one(&s, &mut person, "third");
    assert_eq!(
        scoped(&two),
        (Value::Null, json!(["alpha", "beta"])),
        "{two}"
    );
    // What each scope sees (--all: these were read by the agent that waited).
    let ids = |scope: &str| -> Vec<String> {
        d.ok("x", "inbox_list", json!({ "scope": scope, "all": true }))["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["id"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let id = |r: &Value| r["stored"]["id"].as_str().expect("id").to_string();
    assert_eq!(ids("alpha"), vec![id(&two), id(&one), id(&none)]);
    assert_eq!(ids("beta"), vec![id(&two), id(&none)]);
    assert_eq!(ids("gamma"), vec![id(&none)]);
    // Released: no scope again.
    d.ok(
        "x",
        "inbox_scope",
        json!({ "name": "alpha", "release": true }),
    );
    let left = d.ok(
        "x",
        "inbox_scope",
        json!({ "name": "beta", "release": true }),
    );
    assert_eq!(left["active"], json!([]));
    d.err(
        "x",
        "inbox_scope",
        json!({ "name": "no spaces" }),
        "invalid_argument",
    );
    // The CLI shows the same.
    let out = d.cli(&["inbox", "list", "--all"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(&id(&two)) && text.contains("ambiguous: alpha, beta"),
        "{text}"
    );
}

/// Writes unread entries into a home's inbox as the daemon would:
/// (id, scope, age in ms).
pub(crate) fn seed_inbox(home: &std::path::Path, entries: &[(&str, Option<&str>, u64)]) {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = home.join("inbox");
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_millis() as u64;
    let mut text = String::new();
    for (id, scope, age) in entries {
        let mut e = json!({
            "id": id, "at_ms": now - age, "source": "extension", "read": false, "digest": id,
            "annotation": {
                "url": "https://shop.test/", "title": "Shop", "at_ms": now - age, "session": "default",
                "tab": "t1", "redacted": [],
                "items": [{ "n": 1, "ref": "@e1", "tag": "button", "name": "Pay", "text": "Pay",
                    "rect": { "x": 1, "y": 2, "width": 3, "height": 4 }, "frame": "main",
                    "candidates": [], "styles": {}, "attributes": {}, "note": format!("for {scope:?}") }],
            },
        });
        if let Some(scope) = scope {
            e["scope"] = json!(scope);
        }
        text.push_str(&e.to_string());
        text.push('\n');
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(dir.join("inbox.jsonl"))
        .expect("inbox file");
    use std::io::Write;
    f.write_all(text.as_bytes()).expect("write");
}

#[test]
fn the_inbox_keeps_its_ttl_and_refuses_files_that_are_not_its_own() {
    let d = webrig_tests::Daemon::start().expect("daemon");
    let day = 24 * 3600 * 1000;
    seed_inbox(
        d.home(),
        &[
            ("0000old1", None, 8 * day),
            ("0000new1", None, day),
            ("0000new2", Some("x"), 0),
        ],
    );
    let listed = d.ok("x", "inbox_list", json!({}));
    let ids: Vec<&str> = listed["entries"]
        .as_array()
        .expect("e")
        .iter()
        .filter_map(|e| e["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        vec!["0000new2", "0000new1"],
        "the 8-day-old entry is gone: {listed}"
    );
    // consume: the oldest unread for the caller; then it is read.
    let got = d.ok("x", "inbox_consume", json!({}));
    assert_eq!(got["entry"]["id"], "0000new1");
    assert_eq!(got["unread"], 1);
    assert_eq!(
        d.ok("x", "inbox_consume", json!({}))["entry"]["id"],
        "0000new2"
    );
    assert!(d.ok("x", "inbox_consume", json!({}))["entry"].is_null());
    d.err("x", "inbox_show", json!({ "id": "0000old1" }), "not_found");
    d.err(
        "x",
        "inbox_show",
        json!({ "id": "../../etc/passwd" }),
        "not_found",
    );
    assert_eq!(d.ok("x", "inbox_clear", json!({}))["removed"], 2);
    // The file: 0600 in a 0700 folder, and the old entry's bytes are gone.
    use std::os::unix::fs::PermissionsExt;
    let file = d.home().join("inbox/inbox.jsonl");
    let meta = std::fs::metadata(&file).expect("file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let dir = std::fs::metadata(d.home().join("inbox")).expect("dir");
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert!(
        !std::fs::read_to_string(&file)
            .expect("read")
            .contains("0000old1")
    );
    // A symlink put in its place is not followed, a file others may write
    // is not read, a size bomb is refused: each a clear error, nothing lost.
    std::fs::remove_file(&file).expect("rm");
    let elsewhere = d.home().join("elsewhere.jsonl");
    std::fs::write(&elsewhere, "{}\n").expect("write");
    std::os::unix::fs::symlink(&elsewhere, &file).expect("symlink");
    let e = d.err("x", "inbox_list", json!({}), "invalid_argument");
    assert!(e["message"].as_str().expect("m").contains("symlink"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&elsewhere).expect("read"),
        "{}\n",
        "the target is untouched"
    );
    std::fs::remove_file(&file).expect("rm");
    seed_inbox(d.home(), &[("0000abcd", None, 0)]);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    d.err("x", "inbox_list", json!({}), "invalid_argument");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    f.set_len(40 << 20).expect("grow");
    d.err("x", "inbox_list", json!({}), "limit_exceeded");
    // Hostile lines, targets and names get errors, never a crash.
    seed_inbox(d.home(), &[("0000abcd", None, 0)]);
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str("not json\n{\"id\": 5}\n");
    std::fs::write(&file, text).expect("write");
    assert_eq!(
        d.ok("x", "inbox_list", json!({}))["entries"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    for t in [
        "inbox:",
        "inbox:0000abcd",
        "inbox:0000abcd#0",
        "inbox:0000abcd#99999999999999999999",
        "inbox:x/../y#1",
    ] {
        let r = d.cmd("x", "click", json!({ "target": t }));
        assert_eq!(r["ok"], false, "{t}: {r}");
    }
    assert!(
        d.ok("x", "inbox_list", json!({}))["entries"].is_array(),
        "the daemon lives"
    );
}

#[test]
fn another_local_user_cannot_read_the_inbox() {
    let d = webrig_tests::Daemon::start().expect("daemon");
    seed_inbox(d.home(), &[("0000abcd", None, 0)]);
    let Some(other) =
        webrig_tests::other_user::OtherUser::get("another_local_user_cannot_read_the_inbox")
    else {
        return;
    };
    use std::os::unix::fs::PermissionsExt;
    // Even with the home opened for traversal, the inbox folder keeps
    // another user out of the file and the screenshots.
    let home_mode = std::fs::metadata(d.home())
        .expect("home")
        .permissions()
        .mode();
    std::fs::set_permissions(d.home(), std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let file = d.home().join("inbox/inbox.jsonl");
    let read = other.command("cat").arg(&file).output().expect("cat");
    let list = other
        .command("ls")
        .arg(d.home().join("inbox"))
        .output()
        .expect("ls");
    std::fs::set_permissions(d.home(), std::fs::Permissions::from_mode(home_mode)).expect("chmod");
    assert!(!read.status.success(), "another user read the inbox");
    assert!(
        !list.status.success(),
        "another user listed the inbox folder"
    );
}

#[test]
fn the_person_starts_an_annotation_from_the_extension_and_it_lands_in_the_inbox() {
    // The extension connected to the shared daemon.
    let _bound = crate::relay_session("annotate-from-extension-wait");
    let user = crate::user_browser();
    let (tab, page) = user.open(&web().url("annotate/page.html?from=extension"));
    let until = Instant::now() + Duration::from_secs(20);
    while user.eval(&page, "document.readyState") != json!("complete") {
        assert!(Instant::now() < until, "the page did not load");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The person presses "annotate" for that tab in the popup.
    let popup_url = format!(
        "chrome-extension://{}/popup.html",
        webrig_tests::user_browser::extension_id()
    );
    let (popup, ps) = user.open(&popup_url);
    let click = "(() => { const b = document.querySelector('#lendable button.annotate[data-url*=\"from=extension\"]'); \
                 if (!b) return false; b.click(); return true; })()";
    let until = Instant::now() + Duration::from_secs(20);
    while user.eval(&ps, click) != json!(true) {
        assert!(
            Instant::now() < until,
            "no annotate button: {}",
            user.eval(&ps, "document.body.innerText")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let told = "document.getElementById('message').textContent";
    while !user
        .eval(&ps, told)
        .as_str()
        .unwrap_or_default()
        .contains("point at elements")
    {
        assert!(
            Instant::now() < until,
            "the popup said {}",
            user.eval(&ps, told)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    user.call(None, "Target.closeTarget", json!({ "targetId": popup }));
    // The person, at their own tab: picks, writes, sends.
    let mut person = Person {
        conn: Conn::User(user),
        page,
    };
    person.wait_overlay("#pay", true);
    let pay = person.center("#pay");
    person.click(pay);
    person.type_text("from the popup");
    person.press("Enter");
    person.wait_overlay("#pay", false);
    // It is in the inbox, unread, for the agent.
    let d = daemon();
    let until = Instant::now() + Duration::from_secs(20);
    let id = loop {
        let listed = d.ok("default", "inbox_list", json!({}));
        let found = listed["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| {
                e["source"] == "extension"
                    && e["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("from=extension"))
            });
        if let Some(e) = found {
            assert_eq!(e["read"], false);
            assert_eq!(e["note"], "from the popup");
            break e["id"].as_str().expect("id").to_string();
        }
        assert!(Instant::now() < until, "nothing arrived: {listed}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let got = d.ok("default", "inbox_consume", json!({ "id": id }));
    let entry = &got["entry"];
    assert_eq!(entry["read"], true);
    let a = &entry["annotation"];
    assert_eq!(a["items"][0]["name"], "Pay now");
    assert!(
        a["items"][0]["ref"]
            .as_str()
            .expect("ref")
            .starts_with("@e")
    );
    let shot = a["screenshot"].as_str().expect("a screenshot file");
    assert!(std::fs::read(shot).expect("file").starts_with(b"\x89PNG"));
    // The agent acts on it in the session that holds the tab.
    let session = a["session"].as_str().expect("session").to_string();
    d.ok(
        &session,
        "click",
        json!({ "target": format!("inbox:{id}#1") }),
    );
    assert_eq!(person.eval("String(window.paid)"), json!("1"));
    user.call(None, "Target.closeTarget", json!({ "targetId": tab }));
}

#[test]
fn an_agent_that_goes_away_takes_its_overlay_with_it() {
    let s = crate::session!();
    page(&s);
    let mut person = Person::at(&s);
    // The agent runs `webrig annotate` and is stopped (Ctrl-C) while the
    // person has not sent yet.
    let mut cli = std::process::Command::new(webrig_tests::webrig_bin())
        .args(["--session", &s.name, "annotate", "--timeout", "100s"])
        .env("WEBRIG_HOME", daemon().home())
        .env("WEBRIG_PORT", daemon().port().to_string())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("webrig runs");
    person.wait_overlay("#pay", true);
    cli.kill().expect("kill");
    let _ = cli.wait();
    // The overlay goes, and with it the hold on the tab (let go first):
    // the next capture opens at once.
    person.wait_overlay("#pay", false);
    let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
    person.wait_overlay("#pay", true);
    person.press("Escape");
    assert_eq!(
        waiting.join().expect("thread")["result"]["status"],
        "cancelled"
    );
}

both_transports!(
    a_pick_inside_same_and_cross_origin_frames_gets_that_frames_ref,
    |s| {
        s.ok("goto", json!({ "url": web().url("snap/frames.html") }));
        // Both children loaded (the cross-site one on its own).
        let until = Instant::now() + Duration::from_secs(20);
        while s.snapshot(json!({})).matches("button \"Press me\"").count() < 2 {
            assert!(Instant::now() < until, "the frames did not load");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut person = Person::at(&s);
        // Where "Press me" is in each frame: the same file in both, so the
        // same-origin one's layout gives the other's too.
        let at = person.eval(
        "(() => { const fs = document.querySelectorAll('iframe'); \
         const b = fs[0].contentDocument.getElementById('go').getBoundingClientRect(); \
         return [...fs].map((f) => { const r = f.getBoundingClientRect(); \
         return [r.left + f.clientLeft + b.left + b.width / 2, r.top + f.clientTop + b.top + b.height / 2]; }); })()",
    );
        let point = |i: usize| (at[i][0].as_f64().expect("x"), at[i][1].as_f64().expect("y"));
        let waiting = annotate_in_background(&s, json!({ "timeout_ms": 60000 }));
        person.wait_overlay("h1", true);
        person.click(point(0));
        person.type_text("same");
        person.click(point(1));
        person.type_text("cross");
        person.press("Enter");
        let out = waiting.join().expect("thread");
        assert_eq!(out["result"]["status"], "sent", "{out}");
        let items = out["result"]["annotation"]["items"]
            .as_array()
            .expect("items")
            .clone();
        assert_eq!(items.len(), 2, "{out}");
        for (item, who) in items.iter().zip(["same", "cross"]) {
            assert_eq!(item["name"], "Press me", "{item}");
            assert_eq!(item["note"], who);
            let frame = item["frame"].as_str().expect("frame");
            assert!(frame.starts_with('f') && frame != "main", "{item}");
            assert!(
                item["ref"]
                    .as_str()
                    .expect("ref")
                    .starts_with(&format!("@{frame}e")),
                "{item}"
            );
            assert!(
                item["frame_url"]
                    .as_str()
                    .expect("frame url")
                    .contains(&format!("who={who}")),
                "{item}"
            );
            // Its box is in the top frame's viewport: around the point clicked.
            let r = &item["rect"];
            let i = if who == "same" { 0 } else { 1 };
            let (x, y) = point(i);
            let (rx, ry) = (r["x"].as_f64().expect("x"), r["y"].as_f64().expect("y"));
            let (rw, rh) = (
                r["width"].as_f64().expect("w"),
                r["height"].as_f64().expect("h"),
            );
            assert!(
                rx <= x && x <= rx + rw && ry <= y && y <= ry + rh,
                "{r} vs ({x}, {y})"
            );
        }
        person.wait_overlay("h1", false);
        // The agent acts in each frame through the inbox targets.
        let id = out["result"]["stored"]["id"]
            .as_str()
            .expect("id")
            .to_string();
        s.ok("click", json!({ "target": format!("inbox:{id}#1") }));
        s.ok("click", json!({ "target": format!("inbox:{id}#2") }));
        let text = s.snapshot(json!({}));
        assert!(
            text.contains("Clicked in same") && text.contains("Clicked in cross"),
            "{text}"
        );
    }
);

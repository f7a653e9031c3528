//! A tab's console, errors and network, as bounded rings fed by CDP events.
//!
//! Each ring keeps its newest entries up to a cap and numbers every entry it
//! ever took (`seq`), so a caller reads what is new with `--since`. Network
//! entries are updated in place as a request progresses (answer, body,
//! failure). Bodies are not copied here: the browser keeps them (its own
//! buffer, bounded per tab, oldest evicted) and `network body` asks it.

use std::collections::{HashMap, VecDeque};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::entry::{Header, Request, Timing};

/// The newest `cap` entries of a stream, numbered from 1.
#[derive(Debug)]
pub struct Ring<T> {
    items: VecDeque<T>,
    cap: usize,
    next: u64,
}

impl<T> Ring<T> {
    pub fn new(cap: usize) -> Self {
        Ring {
            items: VecDeque::new(),
            cap: cap.max(1),
            next: 1,
        }
    }

    /// Takes the next entry (`make` gets its seq); drops the oldest past the cap.
    pub fn push(&mut self, make: impl FnOnce(u64) -> T) -> u64 {
        let seq = self.next;
        self.next += 1;
        self.items.push_back(make(seq));
        while self.items.len() > self.cap {
            self.items.pop_front();
        }
        seq
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut T> {
        self.items.iter_mut()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many entries were ever taken (the last seq handed out).
    pub fn taken(&self) -> u64 {
        self.next - 1
    }

    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.max(1);
        while self.items.len() > self.cap {
            self.items.pop_front();
        }
    }
}

/// What a listing of a ring answers: the entries, the newest seq handed
/// out (the caller's next `--since`), and how many more matched than fit.
#[derive(Debug)]
pub struct Selection<T> {
    pub items: Vec<T>,
    pub last: u64,
    pub more: usize,
}

/// An entry that knows its place in its ring.
pub trait Numbered {
    fn seq(&self) -> u64;
}

impl<T: Clone + Numbered> Ring<T> {
    /// Entries after `since` that pass `keep`, the newest `max` of them.
    pub fn select(
        &self,
        since: Option<u64>,
        keep: impl Fn(&T) -> bool,
        max: usize,
    ) -> Selection<T> {
        let mut items: Vec<T> = self
            .items
            .iter()
            .filter(|e| e.seq() > since.unwrap_or(0) && keep(e))
            .cloned()
            .collect();
        let more = items.len().saturating_sub(max);
        items.drain(..more);
        Selection {
            items,
            last: self.taken(),
            more,
        }
    }
}

macro_rules! numbered {
    ($($t:ty),*) => {
        $(impl Numbered for $t {
            fn seq(&self) -> u64 {
                self.seq
            }
        })*
    };
}

numbered!(ConsoleEntry, PageError, Request);

/// One console message (the page's `console.*`, or the browser's own log:
/// failed loads, CSP and other violations).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleEntry {
    pub seq: u64,
    pub tab: String,
    /// `debug`, `info` (log), `warning` or `error`.
    pub level: String,
    /// The console method (`log`, `table`, `assert`…) or the browser log's
    /// source (`network`, `security`, `violation`…).
    pub kind: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Seconds since the Unix epoch.
    pub time: f64,
}

/// An uncaught exception or unhandled promise rejection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageError {
    pub seq: u64,
    pub tab: String,
    /// The first line: `Error: boom`, `Uncaught (in promise) TypeError: …`.
    pub message: String,
    /// The stack, one frame a line (`at fn (url:line:col)`), when known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stack: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    pub time: f64,
}

/// Caps of one tab's rings.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub console: usize,
    pub errors: usize,
    pub network: usize,
}

/// A tab's three rings.
#[derive(Debug)]
pub struct Rings {
    tab: String,
    pub console: Ring<ConsoleEntry>,
    pub errors: Ring<PageError>,
    pub network: Ring<Request>,
    caps: Caps,
    /// Monotonic start of each request still in the ring (CDP `timestamp`).
    starts: HashMap<String, f64>,
    /// Raw headers that came before their request (extra info may).
    early_headers: HashMap<String, Vec<Header>>,
    /// While a HAR is recorded: the first seq it covers.
    pub har_from: Option<u64>,
}

/// Most requests a HAR recording keeps (the ring grows to this while one runs).
pub const HAR_ENTRIES: usize = 10_000;
/// Raw headers kept for requests not seen yet.
const EARLY_HEADERS: usize = 256;

impl Rings {
    pub fn new(tab: &str, caps: Caps) -> Self {
        Rings {
            tab: tab.to_string(),
            console: Ring::new(caps.console),
            errors: Ring::new(caps.errors),
            network: Ring::new(caps.network),
            caps,
            starts: HashMap::new(),
            early_headers: HashMap::new(),
            har_from: None,
        }
    }

    /// Starts a HAR recording: entries from the next one on stay until it stops.
    pub fn har_start(&mut self) {
        self.har_from = Some(self.network.taken() + 1);
        self.network.set_cap(HAR_ENTRIES);
    }

    /// Ends a recording; returns the entries it covers.
    pub fn har_stop(&mut self) -> Option<Vec<Request>> {
        let from = self.har_from.take()?;
        let entries = self
            .network
            .iter()
            .filter(|r| r.seq >= from)
            .cloned()
            .collect();
        self.network.set_cap(self.caps.network);
        self.prune_starts();
        Some(entries)
    }

    /// Takes one CDP event of this tab's session. Returns true if it was one
    /// of the captured domains' (so callers can stop looking).
    pub fn apply(&mut self, method: &str, p: &Value) -> bool {
        match method {
            "Runtime.consoleAPICalled" => self.console_api(p),
            "Log.entryAdded" => self.log_entry(&p["entry"]),
            "Runtime.exceptionThrown" => {
                self.exception(&p["exceptionDetails"], p["timestamp"].as_f64())
            }
            "Network.requestWillBeSent" => self.request(p),
            "Network.requestWillBeSentExtraInfo" => {
                let headers = headers_of(&p["headers"]);
                let id = p["requestId"].as_str().unwrap_or_default();
                match self.find(id) {
                    Some(r) => r.request_headers = headers,
                    None => {
                        if self.early_headers.len() >= EARLY_HEADERS {
                            self.early_headers.clear();
                        }
                        self.early_headers.insert(id.to_string(), headers);
                    }
                }
            }
            "Network.responseReceived" => self.response(p),
            "Network.responseReceivedExtraInfo" => {
                let headers = headers_of(&p["headers"]);
                if let Some(r) = self.find(p["requestId"].as_str().unwrap_or_default()) {
                    r.response_headers = headers;
                }
            }
            "Network.dataReceived" => {
                if let Some(r) = self.find(p["requestId"].as_str().unwrap_or_default()) {
                    r.body_bytes += p["dataLength"].as_u64().unwrap_or(0);
                }
            }
            "Network.requestServedFromCache" => {
                if let Some(r) = self.find(p["requestId"].as_str().unwrap_or_default()) {
                    r.from_cache = true;
                }
            }
            "Network.loadingFinished" => {
                let id = p["requestId"].as_str().unwrap_or_default().to_string();
                let duration = self.duration(&id, p["timestamp"].as_f64());
                if let Some(r) = self.find(&id) {
                    r.pending = false;
                    r.transfer_bytes =
                        p["encodedDataLength"].as_f64().unwrap_or(0.0).max(0.0) as u64;
                    r.duration_ms = duration;
                }
            }
            "Network.loadingFailed" => {
                let id = p["requestId"].as_str().unwrap_or_default().to_string();
                let duration = self.duration(&id, p["timestamp"].as_f64());
                if let Some(r) = self.find(&id) {
                    r.pending = false;
                    r.duration_ms = duration;
                    let mut why = p["errorText"].as_str().unwrap_or("failed").to_string();
                    if let Some(reason) = p["blockedReason"].as_str() {
                        why = format!("{why} (blocked: {reason})");
                    } else if p["canceled"] == true {
                        why = format!("{why} (canceled)");
                    }
                    r.failed = Some(why);
                }
            }
            _ => return false,
        }
        true
    }

    fn find(&mut self, id: &str) -> Option<&mut Request> {
        if id.is_empty() {
            return None;
        }
        self.network.iter_mut().rev().find(|r| r.id == id)
    }

    fn duration(&self, id: &str, now: Option<f64>) -> Option<f64> {
        let start = self.starts.get(id)?;
        Some(((now? - start) * 1e3).max(0.0))
    }

    fn console_api(&mut self, p: &Value) {
        let kind = p["type"].as_str().unwrap_or("log").to_string();
        let level = match kind.as_str() {
            "error" | "assert" => "error",
            "warning" => "warning",
            "debug" => "debug",
            _ => "info",
        }
        .to_string();
        let text = console_text(p["args"].as_array().map(Vec::as_slice).unwrap_or(&[]));
        let frame = &p["stackTrace"]["callFrames"][0];
        let tab = self.tab.clone();
        self.console.push(|seq| ConsoleEntry {
            seq,
            tab,
            level,
            kind,
            text,
            url: frame["url"]
                .as_str()
                .filter(|u| !u.is_empty())
                .map(str::to_string),
            line: frame["lineNumber"].as_u64().map(|l| l + 1),
            time: epoch_ms(p["timestamp"].as_f64()),
        });
    }

    fn log_entry(&mut self, e: &Value) {
        let level = match e["level"].as_str().unwrap_or("info") {
            "verbose" => "debug",
            "warning" => "warning",
            "error" => "error",
            _ => "info",
        }
        .to_string();
        let tab = self.tab.clone();
        self.console.push(|seq| ConsoleEntry {
            seq,
            tab,
            level,
            kind: e["source"].as_str().unwrap_or("other").to_string(),
            text: cut(e["text"].as_str().unwrap_or_default()),
            url: e["url"]
                .as_str()
                .filter(|u| !u.is_empty())
                .map(str::to_string),
            line: e["lineNumber"].as_u64().map(|l| l + 1),
            time: epoch_ms(e["timestamp"].as_f64()),
        });
    }

    fn exception(&mut self, d: &Value, timestamp: Option<f64>) {
        let description = d["exception"]["description"]
            .as_str()
            .or_else(|| d["exception"]["value"].as_str())
            .map(str::to_string)
            .or_else(|| d["exception"]["value"].as_f64().map(|v| v.to_string()))
            .unwrap_or_default();
        let text = d["text"].as_str().unwrap_or("Uncaught");
        let first = description.lines().next().unwrap_or_default();
        // `text` is "Uncaught" or "Uncaught (in promise)"; the description's
        // first line names the error.
        let message = if first.is_empty() {
            text.to_string()
        } else if text.starts_with("Uncaught") {
            format!("{text} {first}")
        } else {
            first.to_string()
        };
        let mut stack: Vec<String> = description
            .lines()
            .skip(1)
            .map(|l| l.trim().to_string())
            .filter(|l| l.starts_with("at "))
            .collect();
        if stack.is_empty() {
            for f in d["stackTrace"]["callFrames"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let name = f["functionName"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .unwrap_or("<anonymous>");
                stack.push(format!(
                    "at {name} ({}:{}:{})",
                    f["url"].as_str().unwrap_or_default(),
                    f["lineNumber"].as_u64().unwrap_or(0) + 1,
                    f["columnNumber"].as_u64().unwrap_or(0) + 1
                ));
            }
        }
        let tab = self.tab.clone();
        self.errors.push(|seq| PageError {
            seq,
            tab,
            message: cut(&message),
            stack: cut(&stack.join("\n")),
            url: d["url"]
                .as_str()
                .filter(|u| !u.is_empty())
                .map(str::to_string),
            line: d["lineNumber"].as_u64().map(|l| l + 1),
            column: d["columnNumber"].as_u64().map(|c| c + 1),
            time: epoch_ms(timestamp),
        });
    }

    fn request(&mut self, p: &Value) {
        let id = p["requestId"].as_str().unwrap_or_default().to_string();
        let now = p["timestamp"].as_f64();
        // A redirect: the hop before ends with the redirect's answer.
        if let Some(answer) = p.get("redirectResponse") {
            let duration = self.duration(&id, now);
            if let Some(r) = self.find(&id) {
                fill_response(r, answer);
                r.pending = false;
                r.duration_ms = duration;
                r.transfer_bytes =
                    answer["encodedDataLength"].as_f64().unwrap_or(0.0).max(0.0) as u64;
            }
        }
        let req = &p["request"];
        let headers = self
            .early_headers
            .remove(&id)
            .unwrap_or_else(|| headers_of(&req["headers"]));
        let tab = self.tab.clone();
        let started = p["wallTime"].as_f64().unwrap_or_else(now_epoch);
        let entry = |seq| Request {
            seq,
            id: id.clone(),
            tab,
            method: req["method"].as_str().unwrap_or("GET").to_string(),
            url: req["url"].as_str().unwrap_or_default().to_string()
                + req["urlFragment"].as_str().unwrap_or_default(),
            resource_type: p["type"].as_str().unwrap_or("other").to_ascii_lowercase(),
            started,
            request_headers: headers,
            post_data: req["postData"].as_str().map(cut),
            initiator: initiator(&p["initiator"]),
            pending: true,
            ..Request::default()
        };
        self.network.push(entry);
        if let Some(now) = now {
            self.starts.insert(id, now);
        }
        if self.starts.len() > 2 * self.network.len() + 64 {
            self.prune_starts();
        }
    }

    /// Marks request `id` as refused by the domain policy.
    pub fn mark_blocked(&mut self, id: &str, why: String) {
        if let Some(r) = self.find(id) {
            r.blocked = Some(why);
        }
    }

    /// Records a WebSocket the policy refuses that the page opened anyway
    /// (`Network.webSocketCreated`): it shows in `network` as escaped.
    pub fn note_escape(&mut self, p: &Value, why: String) {
        let tab = self.tab.clone();
        let url = p["url"].as_str().unwrap_or_default().to_string();
        let id = p["requestId"].as_str().unwrap_or_default().to_string();
        self.network.push(|seq| Request {
            seq,
            id,
            tab,
            method: "GET".into(),
            url,
            resource_type: "websocket".into(),
            started: now_epoch(),
            blocked: Some(format!("escaped the page's guard: {why}")),
            ..Request::default()
        });
    }

    fn prune_starts(&mut self) {
        let live: std::collections::HashSet<&str> =
            self.network.iter().map(|r| r.id.as_str()).collect();
        self.starts.retain(|id, _| live.contains(id.as_str()));
    }

    fn response(&mut self, p: &Value) {
        let kind = p["type"].as_str().map(str::to_ascii_lowercase);
        if let Some(r) = self.find(p["requestId"].as_str().unwrap_or_default()) {
            fill_response(r, &p["response"]);
            if let Some(kind) = kind {
                r.resource_type = kind;
            }
        }
    }
}

fn fill_response(r: &mut Request, answer: &Value) {
    r.status = answer["status"].as_u64().map(|s| s as u16);
    r.status_text = answer["statusText"].as_str().map(str::to_string);
    r.mime_type = answer["mimeType"].as_str().map(str::to_string);
    r.protocol = answer["protocol"].as_str().map(str::to_string);
    r.remote_address =
        answer["remoteIPAddress"]
            .as_str()
            .map(|ip| match answer["remotePort"].as_u64() {
                Some(port) => format!("{ip}:{port}"),
                None => ip.to_string(),
            });
    // Raw headers (extra info) may have come first; they win.
    if r.response_headers.is_empty() {
        r.response_headers = headers_of(&answer["headers"]);
    }
    if answer["fromDiskCache"] == true || answer["fromPrefetchCache"] == true {
        r.from_cache = true;
    }
    if let Some(t) = answer.get("timing").filter(|t| t.is_object()) {
        let f = |k: &str| t[k].as_f64().unwrap_or(-1.0);
        r.timing = Some(Timing {
            request_time: f("requestTime"),
            dns_start: f("dnsStart"),
            dns_end: f("dnsEnd"),
            connect_start: f("connectStart"),
            connect_end: f("connectEnd"),
            ssl_start: f("sslStart"),
            ssl_end: f("sslEnd"),
            send_start: f("sendStart"),
            send_end: f("sendEnd"),
            receive_headers_end: f("receiveHeadersEnd"),
        });
    }
}

/// CDP's header object (`{name: value}`; repeats joined by `\n`) as a list.
fn headers_of(v: &Value) -> Vec<Header> {
    let Some(map) = v.as_object() else {
        return Vec::new();
    };
    map.iter()
        .map(|(name, value)| Header {
            name: name.clone(),
            value: match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        })
        .collect()
}

fn initiator(v: &Value) -> Option<String> {
    let kind = v["type"].as_str()?;
    let frame = &v["stack"]["callFrames"][0];
    let url = v["url"]
        .as_str()
        .or_else(|| frame["url"].as_str())
        .filter(|u| !u.is_empty());
    let line = v["lineNumber"]
        .as_u64()
        .or_else(|| frame["lineNumber"].as_u64())
        .map(|l| l + 1);
    Some(match (url, line) {
        (Some(url), Some(line)) => format!("{kind} {url}:{line}"),
        (Some(url), None) => format!("{kind} {url}"),
        _ => kind.to_string(),
    })
}

/// Longest text one entry keeps (a page logging megabytes must not fill
/// the daemon: 500 entries × this is the ring's bound).
const ENTRY_CHARS: usize = 8 * 1024;

fn cut(s: &str) -> String {
    if s.len() <= ENTRY_CHARS {
        return s.to_string();
    }
    let mut end = ENTRY_CHARS;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes more)", &s[..end], s.len() - end)
}

/// A console call's arguments as one line, the way DevTools prints them:
/// strings raw, other values by their description; `%s %d %i %f %o %O %c`
/// in a first string argument consume the arguments after it.
fn console_text(args: &[Value]) -> String {
    let show = |a: &Value| -> String {
        if let Some(s) = a["value"].as_str() {
            return s.to_string();
        }
        if let Some(v) = a.get("value").filter(|v| !v.is_null()) {
            return v.to_string();
        }
        if let Some(u) = a["unserializableValue"].as_str() {
            return u.to_string();
        }
        if a["type"] == "undefined" {
            return "undefined".into();
        }
        if a["subtype"] == "null" {
            return "null".into();
        }
        if let Some(preview) = a.get("preview").filter(|p| p.is_object()) {
            return preview_text(preview);
        }
        a["description"].as_str().unwrap_or("?").to_string()
    };
    let mut rest = args.iter();
    let mut out = String::new();
    if let Some(first) = args.first().and_then(|a| a["value"].as_str()) {
        rest.next();
        let mut chars = first.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%'
                && let Some(&spec) = chars.peek()
            {
                match spec {
                    's' | 'd' | 'i' | 'f' | 'o' | 'O' => {
                        chars.next();
                        match rest.next() {
                            Some(a) => out.push_str(&show(a)),
                            None => {
                                out.push('%');
                                out.push(spec);
                            }
                        }
                        continue;
                    }
                    'c' => {
                        chars.next();
                        rest.next();
                        continue;
                    }
                    '%' => {
                        chars.next();
                        out.push('%');
                        continue;
                    }
                    _ => {}
                }
            }
            out.push(c);
        }
    }
    for a in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&show(a));
    }
    cut(&out)
}

/// An object preview as DevTools shows it inline: `{a: 1, b: 'x'}`, `[1, 2]`.
fn preview_text(p: &Value) -> String {
    let props = p["properties"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let array = p["subtype"] == "array";
    let items: Vec<String> = props
        .iter()
        .map(|prop| {
            let v = prop["value"].as_str().unwrap_or_default();
            let v = if prop["type"] == "string" {
                format!("'{v}'")
            } else {
                v.to_string()
            };
            if array {
                v
            } else {
                format!("{}: {v}", prop["name"].as_str().unwrap_or_default())
            }
        })
        .collect();
    let more = if p["overflow"] == true { ", …" } else { "" };
    if array {
        format!("[{}{more}]", items.join(", "))
    } else {
        let name = p["description"].as_str().filter(|d| *d != "Object");
        let body = format!("{{{}{more}}}", items.join(", "));
        match name {
            Some(n) => format!("{n} {body}"),
            None => body,
        }
    }
}

/// CDP console timestamps are epoch milliseconds; entries keep seconds.
fn epoch_ms(ms: Option<f64>) -> f64 {
    ms.map(|ms| ms / 1e3).unwrap_or_else(now_epoch)
}

pub fn now_epoch() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps() -> Caps {
        Caps {
            console: 3,
            errors: 2,
            network: 3,
        }
    }

    #[test]
    fn a_ring_keeps_the_newest_and_numbers_every_entry() {
        let mut r = Ring::new(3);
        for i in 0..5 {
            r.push(|seq| (seq, i));
        }
        let kept: Vec<_> = r.iter().copied().collect();
        assert_eq!(kept, vec![(3, 2), (4, 3), (5, 4)]);
        assert_eq!(r.taken(), 5);
    }

    #[test]
    fn console_formats_like_devtools() {
        let mut rings = Rings::new("t1", caps());
        rings.apply(
            "Runtime.consoleAPICalled",
            &json!({
                "type": "warning",
                "timestamp": 1_700_000_000_000.0,
                "args": [
                    { "type": "string", "value": "%s has %d items %c!" },
                    { "type": "string", "value": "cart" },
                    { "type": "number", "value": 3 },
                    { "type": "string", "value": "color: red" },
                    { "type": "object", "preview": { "type": "object", "description": "Object", "overflow": false,
                      "properties": [{ "name": "a", "type": "number", "value": "1" }, { "name": "b", "type": "string", "value": "x" }] } },
                    { "type": "undefined" },
                ],
                "stackTrace": { "callFrames": [{ "url": "http://x/app.js", "lineNumber": 9 }] },
            }),
        );
        let e = rings.console.iter().next().expect("an entry");
        assert_eq!(e.text, "cart has 3 items ! {a: 1, b: 'x'} undefined");
        assert_eq!(e.level, "warning");
        assert_eq!(e.line, Some(10));
        assert_eq!(e.time, 1_700_000_000.0);
    }

    #[test]
    fn exceptions_keep_message_and_stack() {
        let mut rings = Rings::new("t1", caps());
        rings.apply(
            "Runtime.exceptionThrown",
            &json!({ "timestamp": 1.0, "exceptionDetails": {
                "text": "Uncaught (in promise)", "lineNumber": 4, "columnNumber": 2, "url": "http://x/",
                "exception": { "description": "TypeError: nope\n    at f (http://x/a.js:1:2)\n    at http://x/a.js:3:4" } } }),
        );
        let e = rings.errors.iter().next().expect("an error");
        assert_eq!(e.message, "Uncaught (in promise) TypeError: nope");
        assert_eq!(e.stack, "at f (http://x/a.js:1:2)\nat http://x/a.js:3:4");
        assert_eq!((e.line, e.column), (Some(5), Some(3)));
    }

    #[test]
    fn a_request_is_followed_through_redirect_answer_and_end() {
        let mut rings = Rings::new("t1", caps());
        rings.apply(
            "Network.requestWillBeSentExtraInfo",
            &json!({ "requestId": "1", "headers": { "Cookie": "a=1" } }),
        );
        rings.apply("Network.requestWillBeSent", &json!({ "requestId": "1", "timestamp": 10.0, "wallTime": 1000.0, "type": "Document",
            "request": { "url": "http://x/old", "method": "GET", "headers": {} }, "initiator": { "type": "other" } }));
        rings.apply("Network.requestWillBeSent", &json!({ "requestId": "1", "timestamp": 10.1, "wallTime": 1000.1, "type": "Document",
            "redirectResponse": { "status": 302, "statusText": "Found", "headers": { "Location": "/new" } },
            "request": { "url": "http://x/new", "method": "GET", "headers": {} } }));
        rings.apply("Network.responseReceived", &json!({ "requestId": "1", "type": "Document", "response": {
            "status": 200, "statusText": "OK", "mimeType": "text/html", "headers": { "Content-Type": "text/html" },
            "timing": { "requestTime": 10.1, "sendStart": 1.0, "sendEnd": 1.5, "receiveHeadersEnd": 20.0 } } }));
        rings.apply(
            "Network.dataReceived",
            &json!({ "requestId": "1", "dataLength": 100 }),
        );
        rings.apply(
            "Network.dataReceived",
            &json!({ "requestId": "1", "dataLength": 23 }),
        );
        rings.apply(
            "Network.loadingFinished",
            &json!({ "requestId": "1", "timestamp": 10.2, "encodedDataLength": 300 }),
        );
        let all: Vec<_> = rings.network.iter().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].status, Some(302));
        assert_eq!(all[0].request_headers[0].name, "Cookie");
        assert!(!all[0].pending);
        assert_eq!(all[1].url, "http://x/new");
        assert_eq!(all[1].status, Some(200));
        assert_eq!(all[1].body_bytes, 123);
        assert_eq!(all[1].transfer_bytes, 300);
        assert_eq!(all[1].resource_type, "document");
        let ms = all[1].duration_ms.expect("a duration");
        assert!((ms - 100.0).abs() < 1e-6, "{ms}");
    }

    #[test]
    fn the_network_ring_evicts_and_a_har_recording_keeps_everything() {
        let mut rings = Rings::new("t1", caps());
        let send = |rings: &mut Rings, id: u32| {
            rings.apply(
                "Network.requestWillBeSent",
                &json!({ "requestId": id.to_string(), "timestamp": 1.0,
                "request": { "url": format!("http://x/{id}"), "method": "GET" } }),
            );
        };
        for id in 0..5 {
            send(&mut rings, id);
        }
        assert_eq!(rings.network.len(), 3);
        assert_eq!(rings.network.iter().next().map(|r| r.seq), Some(3));
        rings.har_start();
        for id in 5..12 {
            send(&mut rings, id);
        }
        let har = rings.har_stop().expect("a recording");
        assert_eq!(har.len(), 7);
        assert_eq!(har[0].url, "http://x/5");
        assert_eq!(rings.network.len(), 3);
        assert!(rings.har_stop().is_none());
    }

    #[test]
    fn failures_and_huge_text_are_bounded() {
        let mut rings = Rings::new("t1", caps());
        rings.apply(
            "Network.requestWillBeSent",
            &json!({ "requestId": "9", "timestamp": 1.0,
            "request": { "url": "http://x/", "method": "POST", "postData": "x".repeat(100_000) } }),
        );
        rings.apply("Network.loadingFailed", &json!({ "requestId": "9", "timestamp": 1.5, "errorText": "net::ERR_FAILED", "blockedReason": "inspector" }));
        let r = rings.network.iter().next().expect("an entry");
        assert_eq!(
            r.failed.as_deref(),
            Some("net::ERR_FAILED (blocked: inspector)")
        );
        assert!(r.post_data.as_ref().is_some_and(|p| p.len() < 9000));
        rings.apply(
            "Runtime.consoleAPICalled",
            &json!({ "type": "log", "args": [{ "type": "string", "value": "é".repeat(10_000) }] }),
        );
        assert!(
            rings
                .console
                .iter()
                .next()
                .is_some_and(|e| e.text.len() < 9000)
        );
    }
}

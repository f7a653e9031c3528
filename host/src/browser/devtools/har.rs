//! HAR 1.2 export of captured requests (`network export --har`).
//!
//! Owns the mapping from [`Request`] to the HAR 1.2 document
//! (<https://w3c.github.io/web-performance/specs/HAR/Overview.html>) that
//! Chrome DevTools' importer and HAR validators accept. It must not mask
//! secrets: callers run `redact` over the requests first unless `--reveal`.

use std::time::{Duration, UNIX_EPOCH};

use serde_json::{Value, json};

use super::entry::{Header, Request, Timing};

/// One page (a tab) the entries belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The tab id; an entry whose `tab` equals it gets it as `pageref`.
    pub id: String,
    pub title: String,
    pub url: String,
    /// Seconds since the Unix epoch.
    pub started: f64,
}

/// The HAR 1.2 document for `entries`, sorted by start time.
///
/// An entry's `pageref` is the page whose id is the entry's tab (a tab is
/// our unit of "page"; its navigations are not split); an entry whose tab
/// has no page gets no `pageref`, which HAR allows. Failed requests stay
/// valid entries: status 0, `_failed` and `response._error` (the field
/// Chrome's importer reads) say why. `_resourceType` is Chrome's field too.
pub fn har(entries: &[Request], pages: &[Page], creator_version: &str) -> Value {
    let mut sorted: Vec<&Request> = entries.iter().collect();
    sorted.sort_by(|a, b| a.started.total_cmp(&b.started).then(a.seq.cmp(&b.seq)));
    let pages_json: Vec<Value> = pages
        .iter()
        .map(|page| {
            json!({
                "startedDateTime": iso8601(page.started),
                "id": page.id,
                "title": page.title,
                "pageTimings": { "onContentLoad": -1, "onLoad": -1 },
                "_url": page.url,
            })
        })
        .collect();
    let entries_json: Vec<Value> = sorted
        .into_iter()
        .map(|request| entry(request, pages))
        .collect();
    json!({
        "log": {
            "version": "1.2",
            "creator": { "name": "webrig", "version": creator_version },
            "pages": pages_json,
            "entries": entries_json,
        }
    })
}

fn entry(request: &Request, pages: &[Page]) -> Value {
    let timings = Timings::of(request);
    let http_version = http_version(request.protocol.as_deref());
    let post_body = request.post_data.as_deref();
    let mut har_request = json!({
        "method": request.method,
        "url": request.url,
        "httpVersion": http_version,
        "cookies": [],
        "headers": headers(&request.request_headers),
        "queryString": query_string(&request.url),
        "headersSize": -1,
        "bodySize": post_body.map_or(0, str::len),
    });
    if let Some(text) = post_body {
        har_request["postData"] = json!({
            "mimeType": header(&request.request_headers, "content-type").unwrap_or(""),
            "text": text,
        });
    }
    let mut response = json!({
        "status": request.status.unwrap_or(0),
        "statusText": request.status_text.as_deref().unwrap_or(""),
        "httpVersion": http_version,
        "cookies": [],
        "headers": headers(&request.response_headers),
        "content": {
            "size": request.body_bytes,
            "mimeType": request.mime_type.as_deref().filter(|m| !m.is_empty()).unwrap_or("x-unknown"),
        },
        "redirectURL": header(&request.response_headers, "location").unwrap_or(""),
        "headersSize": -1,
        // Per the spec 0 for a cached response; otherwise unknown, because
        // `transfer_bytes` counts headers and body together.
        "bodySize": if request.from_cache { 0 } else { -1 },
        "_transferSize": request.transfer_bytes,
    });
    if let Some(reason) = &request.failed {
        response["_error"] = json!(reason);
    }
    let mut har_entry = json!({
        "startedDateTime": iso8601(request.started),
        "time": timings.total(),
        "request": har_request,
        "response": response,
        "cache": {},
        "timings": timings.to_json(),
        "_resourceType": request.resource_type,
    });
    if let Some(page) = pages.iter().find(|p| p.id == request.tab) {
        har_entry["pageref"] = json!(page.id);
    }
    if let Some(ip) = request.remote_address.as_deref().and_then(server_ip) {
        har_entry["serverIPAddress"] = json!(ip);
    }
    if let Some(reason) = &request.failed {
        har_entry["_failed"] = json!(reason);
    }
    har_entry
}

/// HAR `timings`, in milliseconds; -1 for an optional phase that did not
/// happen.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Timings {
    blocked: f64,
    dns: f64,
    connect: f64,
    ssl: f64,
    send: f64,
    wait: f64,
    receive: f64,
}

impl Timings {
    /// From CDP's `ResourceTiming` the way Chrome's own HAR export does it:
    /// blocked until the first of DNS, connect or send starts; `connect`
    /// includes `ssl` (the spec says so); send, wait and receive are never
    /// negative. Receive runs from the response headers to the end of
    /// `duration_ms` (which starts at `started`, a little before CDP's
    /// `request_time`, so receive also holds that queueing gap). Without a
    /// timing (failed early, served from memory) the whole duration is wait.
    fn of(request: &Request) -> Timings {
        let duration = request
            .duration_ms
            .filter(|d| d.is_finite())
            .unwrap_or(0.0)
            .max(0.0);
        let Some(t): Option<&Timing> = request.timing.as_ref() else {
            return Timings {
                blocked: -1.0,
                dns: -1.0,
                connect: -1.0,
                ssl: -1.0,
                send: 0.0,
                wait: round3(duration),
                receive: 0.0,
            };
        };
        let phase = |start: f64, end: f64| {
            if start >= 0.0 && end >= start {
                round3(end - start)
            } else {
                -1.0
            }
        };
        let blocked = [t.dns_start, t.connect_start, t.send_start]
            .into_iter()
            .find(|v| *v >= 0.0)
            .map_or(-1.0, round3);
        let send = if t.send_start >= 0.0 {
            round3((t.send_end - t.send_start).max(0.0))
        } else {
            0.0
        };
        let wait = round3((t.receive_headers_end - t.send_end.max(0.0)).max(0.0));
        let receive = if t.receive_headers_end >= 0.0 {
            round3((duration - t.receive_headers_end).max(0.0))
        } else {
            0.0
        };
        Timings {
            blocked,
            dns: phase(t.dns_start, t.dns_end),
            connect: phase(t.connect_start, t.connect_end),
            ssl: phase(t.ssl_start, t.ssl_end),
            send,
            wait,
            receive,
        }
    }

    /// The entry's `time`: the sum of the phases that happened (the spec's
    /// definition), `ssl` left out since `connect` already holds it.
    fn total(&self) -> f64 {
        let parts = [
            self.blocked,
            self.dns,
            self.connect,
            self.send,
            self.wait,
            self.receive,
        ];
        round3(parts.into_iter().filter(|v| *v >= 0.0).sum())
    }

    fn to_json(self) -> Value {
        json!({
            "blocked": self.blocked,
            "dns": self.dns,
            "connect": self.connect,
            "send": self.send,
            "wait": self.wait,
            "receive": self.receive,
            "ssl": self.ssl,
        })
    }
}

/// Microsecond precision is all CDP gives; it keeps the JSON short.
fn round3(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

fn headers(list: &[Header]) -> Value {
    Value::Array(
        list.iter()
            .map(|h| json!({ "name": h.name, "value": h.value }))
            .collect(),
    )
}

fn header<'a>(list: &'a [Header], name: &str) -> Option<&'a str> {
    list.iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// The URL's query parameters, percent-decoded and `+` read as a space (as
/// Chrome shows them), in order with repeats.
fn query_string(url: &str) -> Value {
    let before_fragment = url.split('#').next().unwrap_or("");
    let query = before_fragment.split_once('?').map_or("", |(_, q)| q);
    Value::Array(
        url::form_urlencoded::parse(query.as_bytes())
            .map(|(name, value)| json!({ "name": name, "value": value }))
            .collect(),
    )
}

/// CDP's protocol (`http/1.1`, `h2`, `h3`) as HAR's HTTP version.
fn http_version(protocol: Option<&str>) -> String {
    match protocol.map(str::to_ascii_lowercase).as_deref() {
        None | Some("") => String::new(),
        Some("h2") | Some("http/2") | Some("http/2.0") => "HTTP/2.0".to_string(),
        Some("h3") | Some("http/3") => "HTTP/3".to_string(),
        Some(other) if other.starts_with("http/") => other.to_ascii_uppercase(),
        Some(other) => other.to_string(),
    }
}

/// The IP of `1.2.3.4:443`, `[::1]:443`, `::1` or `1.2.3.4`.
fn server_ip(address: &str) -> Option<&str> {
    let address = address.trim();
    let ip = if let Some(rest) = address.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else if address.matches(':').count() == 1 {
        address.split(':').next().unwrap_or("")
    } else {
        address
    };
    (!ip.is_empty()).then_some(ip)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC) for seconds since the Unix epoch,
/// rounded to the millisecond. Out-of-range input (negative, NaN, past
/// year 9999) is clamped: the formatter cannot show it and a HAR needs a
/// date.
pub fn iso8601(epoch_seconds: f64) -> String {
    const MAX_MS: f64 = 253_402_300_799_999.0; // 9999-12-31T23:59:59.999Z
    let ms = if epoch_seconds.is_nan() {
        0.0
    } else {
        (epoch_seconds * 1000.0).round().clamp(0.0, MAX_MS)
    };
    let time = UNIX_EPOCH + Duration::from_millis(ms as u64);
    humantime::format_rfc3339_millis(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(name: &str, value: &str) -> Header {
        Header {
            name: name.into(),
            value: value.into(),
        }
    }

    /// A realistic CDP `ResourceTiming` for a fresh HTTPS connection.
    fn cdp_timing() -> Timing {
        Timing {
            request_time: 81234.567,
            dns_start: 0.812,
            dns_end: 20.104,
            connect_start: 20.104,
            connect_end: 85.331,
            ssl_start: 40.207,
            ssl_end: 85.329,
            send_start: 85.611,
            send_end: 85.902,
            receive_headers_end: 150.437,
        }
    }

    fn document() -> Request {
        Request {
            seq: 1,
            id: "1000.1".into(),
            tab: "T1".into(),
            method: "GET".into(),
            url: "https://shop.test/search?q=red+shoes&size=42&q=caf%C3%A9#top".into(),
            resource_type: "document".into(),
            started: 1_700_000_000.25,
            request_headers: vec![hdr("Accept", "text/html")],
            status: Some(200),
            status_text: Some("OK".into()),
            mime_type: Some("text/html".into()),
            protocol: Some("h2".into()),
            remote_address: Some("93.184.216.34:443".into()),
            response_headers: vec![hdr("Content-Type", "text/html")],
            timing: Some(cdp_timing()),
            transfer_bytes: 5120,
            body_bytes: 20480,
            duration_ms: Some(180.5),
            ..Request::default()
        }
    }

    fn page() -> Page {
        Page {
            id: "T1".into(),
            title: "Shop".into(),
            url: "https://shop.test/".into(),
            started: 1_700_000_000.0,
        }
    }

    // ---- a HAR 1.2 checker, field by field from the spec ----

    fn obj<'a>(v: &'a Value, at: &str) -> &'a serde_json::Map<String, Value> {
        v.as_object()
            .unwrap_or_else(|| panic!("{at}: not an object: {v}"))
    }

    fn req_str(o: &serde_json::Map<String, Value>, key: &str, at: &str) {
        assert!(
            o.get(key).is_some_and(Value::is_string),
            "{at}.{key}: required string"
        );
    }

    fn req_num(o: &serde_json::Map<String, Value>, key: &str, at: &str) -> f64 {
        o.get(key)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{at}.{key}: required number"))
    }

    fn req_arr<'a>(o: &'a serde_json::Map<String, Value>, key: &str, at: &str) -> &'a Vec<Value> {
        o.get(key)
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{at}.{key}: required array"))
    }

    fn opt_str(o: &serde_json::Map<String, Value>, key: &str, at: &str) {
        assert!(
            o.get(key).is_none_or(Value::is_string),
            "{at}.{key}: string if present"
        );
    }

    fn is_iso8601_ms(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 24
            && b.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 => *c == b':',
                19 => *c == b'.',
                23 => *c == b'Z',
                _ => c.is_ascii_digit(),
            })
    }

    fn name_values(list: &[Value], at: &str) {
        for (i, item) in list.iter().enumerate() {
            let o = obj(item, at);
            req_str(o, "name", &format!("{at}[{i}]"));
            req_str(o, "value", &format!("{at}[{i}]"));
        }
    }

    fn check_har(doc: &Value) {
        let log = obj(&doc["log"], "log");
        assert_eq!(log.get("version"), Some(&json!("1.2")));
        let creator = obj(&log["creator"], "log.creator");
        req_str(creator, "name", "log.creator");
        req_str(creator, "version", "log.creator");
        let mut page_ids = Vec::new();
        if let Some(pages) = log.get("pages") {
            for (i, p) in pages
                .as_array()
                .expect("log.pages is an array")
                .iter()
                .enumerate()
            {
                let at = format!("log.pages[{i}]");
                let p = obj(p, &at);
                req_str(p, "startedDateTime", &at);
                assert!(
                    is_iso8601_ms(p["startedDateTime"].as_str().unwrap_or("")),
                    "{at}"
                );
                req_str(p, "id", &at);
                req_str(p, "title", &at);
                let pt = obj(&p["pageTimings"], &format!("{at}.pageTimings"));
                for key in ["onContentLoad", "onLoad"] {
                    assert!(
                        pt.get(key).is_none_or(Value::is_number),
                        "{at}.pageTimings.{key}"
                    );
                }
                page_ids.push(p["id"].clone());
            }
        }
        for (i, e) in req_arr(log, "entries", "log").iter().enumerate() {
            let at = format!("log.entries[{i}]");
            let e = obj(e, &at);
            if let Some(pageref) = e.get("pageref") {
                assert!(page_ids.contains(pageref), "{at}.pageref names a page");
            }
            req_str(e, "startedDateTime", &at);
            assert!(
                is_iso8601_ms(e["startedDateTime"].as_str().unwrap_or("")),
                "{at}"
            );
            let time = req_num(e, "time", &at);
            assert!(time >= 0.0, "{at}.time");
            opt_str(e, "serverIPAddress", &at);
            opt_str(e, "connection", &at);

            let rat = format!("{at}.request");
            let r = obj(&e["request"], &rat);
            for key in ["method", "url", "httpVersion"] {
                req_str(r, key, &rat);
            }
            name_values(req_arr(r, "cookies", &rat), &format!("{rat}.cookies"));
            name_values(req_arr(r, "headers", &rat), &format!("{rat}.headers"));
            name_values(
                req_arr(r, "queryString", &rat),
                &format!("{rat}.queryString"),
            );
            if let Some(post) = r.get("postData") {
                let post = obj(post, &format!("{rat}.postData"));
                req_str(post, "mimeType", &rat);
                assert!(
                    post.get("text").is_some_and(Value::is_string)
                        || post.get("params").is_some_and(Value::is_array),
                    "{rat}.postData: text or params"
                );
            }
            req_num(r, "headersSize", &rat);
            req_num(r, "bodySize", &rat);

            let sat = format!("{at}.response");
            let s = obj(&e["response"], &sat);
            assert!(s.get("status").is_some_and(Value::is_u64), "{sat}.status");
            for key in ["statusText", "httpVersion", "redirectURL"] {
                req_str(s, key, &sat);
            }
            name_values(req_arr(s, "cookies", &sat), &format!("{sat}.cookies"));
            name_values(req_arr(s, "headers", &sat), &format!("{sat}.headers"));
            let c = obj(&s["content"], &format!("{sat}.content"));
            req_num(c, "size", &sat);
            req_str(c, "mimeType", &sat);
            req_num(s, "headersSize", &sat);
            req_num(s, "bodySize", &sat);

            obj(&e["cache"], &format!("{at}.cache"));
            let tat = format!("{at}.timings");
            let t = obj(&e["timings"], &tat);
            let mut sum = 0.0;
            for key in ["send", "wait", "receive"] {
                let v = req_num(t, key, &tat);
                assert!(v >= 0.0, "{tat}.{key} >= 0");
                sum += v;
            }
            for key in ["blocked", "dns", "connect", "ssl"] {
                if let Some(v) = t.get(key) {
                    let v = v.as_f64().unwrap_or_else(|| panic!("{tat}.{key}: number"));
                    assert!(v == -1.0 || v >= 0.0, "{tat}.{key}: -1 or >= 0");
                    if key != "ssl" && v >= 0.0 {
                        sum += v;
                    }
                }
            }
            assert!(
                (sum - time).abs() < 1e-6,
                "{at}.time {time} is the sum of timings {sum}"
            );
        }
    }

    // ---- tests ----

    #[test]
    fn empty_capture_is_a_valid_har() {
        let doc = har(&[], &[], "0.1.0");
        check_har(&doc);
        assert_eq!(doc["log"]["entries"], json!([]));
        assert_eq!(
            doc["log"]["creator"],
            json!({"name": "webrig", "version": "0.1.0"})
        );
    }

    #[test]
    fn checker_rejects_broken_documents() {
        let good = har(&[document()], &[page()], "x");
        check_har(&good);
        let breakages: [fn(&mut Value); 7] = [
            |d| d["log"]["version"] = json!("1.1"),
            |d| d["log"]["entries"][0]["cache"] = Value::Null,
            |d| d["log"]["entries"][0]["response"]["status"] = json!("200"),
            |d| d["log"]["entries"][0]["timings"]["wait"] = json!(-1),
            |d| d["log"]["entries"][0]["time"] = json!(1.0),
            |d| d["log"]["entries"][0]["startedDateTime"] = json!("2023-11-14 22:13:20"),
            |d| d["log"]["entries"][0]["pageref"] = json!("nope"),
        ];
        for (i, breakage) in breakages.iter().enumerate() {
            let mut broken = good.clone();
            breakage(&mut broken);
            let caught = std::panic::catch_unwind(|| check_har(&broken));
            assert!(caught.is_err(), "breakage {i} went unnoticed");
        }
    }

    #[test]
    fn document_request_maps_every_field() {
        let doc = har(&[document()], &[page()], "1.2.3");
        check_har(&doc);
        let e = &doc["log"]["entries"][0];
        assert_eq!(e["pageref"], "T1");
        assert_eq!(e["startedDateTime"], "2023-11-14T22:13:20.250Z");
        assert_eq!(e["serverIPAddress"], "93.184.216.34");
        assert_eq!(e["_resourceType"], "document");
        assert!(e.get("_failed").is_none());
        let r = &e["request"];
        assert_eq!(r["httpVersion"], "HTTP/2.0");
        assert_eq!(
            r["headers"],
            json!([{"name": "Accept", "value": "text/html"}])
        );
        assert_eq!(
            r["queryString"],
            json!([
                {"name": "q", "value": "red shoes"},
                {"name": "size", "value": "42"},
                {"name": "q", "value": "café"},
            ])
        );
        assert_eq!(r["bodySize"], 0);
        assert!(r.get("postData").is_none());
        let s = &e["response"];
        assert_eq!(s["status"], 200);
        assert_eq!(s["statusText"], "OK");
        assert_eq!(
            s["content"],
            json!({"size": 20480, "mimeType": "text/html"})
        );
        assert_eq!(s["redirectURL"], "");
        assert_eq!(s["bodySize"], -1);
        assert_eq!(s["_transferSize"], 5120);
        let p = &doc["log"]["pages"][0];
        assert_eq!(p["startedDateTime"], "2023-11-14T22:13:20.000Z");
        assert_eq!(p["pageTimings"], json!({"onContentLoad": -1, "onLoad": -1}));
    }

    #[test]
    fn timings_follow_the_spec_on_a_cdp_sample() {
        let t = Timings::of(&document());
        assert_eq!(t.blocked, 0.812);
        assert_eq!(t.dns, 19.292);
        assert_eq!(t.connect, 65.227);
        assert_eq!(t.ssl, 45.122);
        assert_eq!(t.send, 0.291);
        assert_eq!(t.wait, 64.535);
        assert_eq!(t.receive, 30.063);
        // ssl is inside connect, so it is not added again.
        assert_eq!(t.total(), 180.22);
    }

    #[test]
    fn reused_connection_has_no_dns_or_connect() {
        let mut request = document();
        request.timing = Some(Timing {
            dns_start: -1.0,
            dns_end: -1.0,
            connect_start: -1.0,
            connect_end: -1.0,
            ssl_start: -1.0,
            ssl_end: -1.0,
            send_start: 2.0,
            send_end: 2.5,
            receive_headers_end: 40.0,
            ..cdp_timing()
        });
        request.duration_ms = Some(45.0);
        let t = Timings::of(&request);
        assert_eq!((t.dns, t.connect, t.ssl), (-1.0, -1.0, -1.0));
        assert_eq!(
            (t.blocked, t.send, t.wait, t.receive),
            (2.0, 0.5, 37.5, 5.0)
        );
        check_har(&har(&[request], &[], "x"));
    }

    #[test]
    fn inconsistent_timing_never_goes_negative() {
        let mut request = document();
        request.timing = Some(Timing {
            send_start: 10.0,
            send_end: 5.0,
            receive_headers_end: 3.0,
            ..cdp_timing()
        });
        request.duration_ms = Some(1.0);
        let t = Timings::of(&request);
        assert!(t.send >= 0.0 && t.wait >= 0.0 && t.receive >= 0.0, "{t:?}");
        check_har(&har(&[request], &[], "x"));
    }

    #[test]
    fn failed_request_is_a_valid_entry_with_status_zero() {
        let request = Request {
            seq: 2,
            tab: "T1".into(),
            method: "GET".into(),
            url: "https://down.test/app.js".into(),
            resource_type: "script".into(),
            started: 1_700_000_001.0,
            failed: Some("net::ERR_NAME_NOT_RESOLVED".into()),
            duration_ms: Some(12.0),
            ..Request::default()
        };
        let doc = har(&[request], &[page()], "x");
        check_har(&doc);
        let e = &doc["log"]["entries"][0];
        assert_eq!(e["response"]["status"], 0);
        assert_eq!(e["response"]["statusText"], "");
        assert_eq!(e["response"]["httpVersion"], "");
        assert_eq!(e["response"]["content"]["mimeType"], "x-unknown");
        assert_eq!(e["response"]["content"]["size"], 0);
        assert_eq!(e["_failed"], "net::ERR_NAME_NOT_RESOLVED");
        assert_eq!(e["response"]["_error"], "net::ERR_NAME_NOT_RESOLVED");
        assert_eq!(e["time"], 12.0);
        assert_eq!(e["timings"]["wait"], 12.0);
        assert_eq!(e["timings"]["dns"], -1.0);
        assert!(e.get("serverIPAddress").is_none());
    }

    #[test]
    fn redirect_carries_its_location() {
        let mut request = document();
        request.status = Some(302);
        request.status_text = Some("Found".into());
        request.response_headers = vec![hdr("location", "https://shop.test/login?next=%2F")];
        let doc = har(&[request], &[page()], "x");
        check_har(&doc);
        assert_eq!(
            doc["log"]["entries"][0]["response"]["redirectURL"],
            "https://shop.test/login?next=%2F"
        );
    }

    #[test]
    fn post_with_a_body_has_post_data() {
        let body = r#"{"name":"Zoë"}"#;
        let request = Request {
            method: "POST".into(),
            url: "https://api.test/users".into(),
            resource_type: "fetch".into(),
            started: 1_700_000_002.0,
            request_headers: vec![hdr("Content-Type", "application/json")],
            post_data: Some(body.into()),
            status: Some(201),
            ..Request::default()
        };
        let doc = har(&[request], &[], "x");
        check_har(&doc);
        let r = &doc["log"]["entries"][0]["request"];
        assert_eq!(
            r["postData"],
            json!({"mimeType": "application/json", "text": body})
        );
        assert_eq!(r["bodySize"], body.len());
        assert_eq!(r["queryString"], json!([]));
        // No page for its tab: no pageref rather than a dangling one.
        assert!(doc["log"]["entries"][0].get("pageref").is_none());
    }

    #[test]
    fn entries_are_sorted_by_start_then_seq() {
        let mk = |seq: u64, started: f64| Request {
            seq,
            started,
            url: format!("https://x.test/{seq}"),
            ..Request::default()
        };
        let doc = har(&[mk(3, 5.0), mk(1, 9.0), mk(2, 5.0), mk(4, 1.5)], &[], "x");
        check_har(&doc);
        let urls: Vec<&str> = doc["log"]["entries"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["request"]["url"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            urls,
            [
                "https://x.test/4",
                "https://x.test/2",
                "https://x.test/3",
                "https://x.test/1"
            ]
        );
    }

    #[test]
    fn cached_response_has_zero_body_size() {
        let mut request = document();
        request.from_cache = true;
        request.timing = None;
        request.duration_ms = None;
        let doc = har(&[request], &[], "x");
        check_har(&doc);
        assert_eq!(doc["log"]["entries"][0]["response"]["bodySize"], 0);
        assert_eq!(doc["log"]["entries"][0]["time"], 0.0);
    }

    #[test]
    fn dates_format_as_utc_with_milliseconds() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_709_164_800.0), "2024-02-29T00:00:00.000Z");
        assert_eq!(iso8601(4_107_542_400.0), "2100-03-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000.123_4), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso8601(1_700_000_000.123_6), "2023-11-14T22:13:20.124Z");
        assert_eq!(iso8601(1_700_000_000.999_6), "2023-11-14T22:13:21.000Z");
        assert_eq!(iso8601(1_704_067_199.999_6), "2024-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_704_067_199.999_4), "2023-12-31T23:59:59.999Z");
    }

    #[test]
    fn out_of_range_dates_are_clamped_not_panics() {
        assert_eq!(iso8601(-5.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(f64::NAN), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(f64::NEG_INFINITY), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(f64::INFINITY), "9999-12-31T23:59:59.999Z");
        assert_eq!(iso8601(1e15), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn protocol_and_address_helpers() {
        assert_eq!(http_version(Some("http/1.1")), "HTTP/1.1");
        assert_eq!(http_version(Some("h2")), "HTTP/2.0");
        assert_eq!(http_version(Some("h3")), "HTTP/3");
        assert_eq!(http_version(None), "");
        assert_eq!(http_version(Some("data")), "data");
        assert_eq!(server_ip("1.2.3.4:443"), Some("1.2.3.4"));
        assert_eq!(server_ip("[2001:db8::1]:443"), Some("2001:db8::1"));
        assert_eq!(server_ip("2001:db8::1"), Some("2001:db8::1"));
        assert_eq!(server_ip("1.2.3.4"), Some("1.2.3.4"));
        assert_eq!(server_ip(""), None);
        assert_eq!(server_ip("[]:1"), None);
    }
}

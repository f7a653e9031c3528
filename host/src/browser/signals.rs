//! Signals: whether a session's browser looks coherent (tier 1,
//! [`coherence`]), how sites are answering it (tier 2, [`health`]), and
//! whether a page is a bot check or a login step only a person can take
//! ([`challenge`]); and, when a navigation meets one, a bounded wait or
//! polite reload and then a yield to a person (`needs_human`).
//!
//! webrig reports, backs off and yields here; it never evades or solves a
//! check (no stealth patches, no solving services, nothing spoofed beyond
//! the emulation the user set; see docs/SECURITY.md). [`Signals`] is one
//! per session, on `devtools::Shared`; it is fed by the tabs' CDP events
//! ([`Signals::on_event`]) and by the probe the dispatcher runs after a
//! command that acts on a page ([`after_command`]). It knows no command.

pub mod challenge;
pub mod coherence;
pub mod health;

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

pub use challenge::{Challenge, Kind};
pub use coherence::Warning;

use super::devtools::{Emulation, redact};
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// Main documents awaiting their commit, and redirect chains, per tab.
const PENDING: usize = 16;
/// Hops of one redirect chain kept (Chromium gives up after 20).
const CHAIN: usize = 24;
/// Tabs followed per session; the one seen longest ago is forgotten.
const TABS: usize = 64;
/// The longest wait for a self-clearing challenge, per attempt.
const CLEAR_WAIT: Duration = Duration::from_secs(5);
/// The longest `Retry-After` honoured before a reload; a site asking for
/// more is left alone (and reported).
const RETRY_CAP: Duration = Duration::from_secs(5);
/// The wait before reloading a 429 that names no `Retry-After`.
const RETRY_DEFAULT: Duration = Duration::from_secs(1);
/// Time kept back from the command's deadline for the answer.
const MARGIN: Duration = Duration::from_millis(750);
/// How long one probe may take.
const PROBE_TIME: Duration = Duration::from_secs(3);

/// A main document's response, as the tab's events told it.
#[derive(Debug, Clone, Default)]
struct Doc {
    url: String,
    status: u16,
    retry_after: Option<Duration>,
    /// Fetched with GET (so reloading it resends nothing).
    get: bool,
    /// Its status counted against the site.
    counted_bad: bool,
}

#[derive(Debug, Default)]
struct TabRecord {
    /// Navigation requests by loader id, until their document commits.
    pending: VecDeque<(String, Doc)>,
    /// Redirect chains by loader id; `true` once a loop was counted.
    chains: VecDeque<(String, Vec<String>, bool)>,
    last: Option<Doc>,
    /// The document the last check saw (`performance.timeOrigin`).
    seen_origin: Option<f64>,
    challenge: Option<Challenge>,
    touched: u64,
}

#[derive(Debug, Default)]
struct Inner {
    health: health::Health,
    tabs: HashMap<String, TabRecord>,
    facts: Option<coherence::Facts>,
    proxy_country: Option<String>,
    clock: u64,
}

/// One session's signals (see the module's doc).
#[derive(Debug, Default)]
pub struct Signals {
    inner: Mutex<Inner>,
}

fn header(headers: &Value, name: &str) -> Option<String> {
    headers.as_object()?.iter().find_map(|(k, v)| {
        k.eq_ignore_ascii_case(name)
            .then(|| v.as_str().unwrap_or_default().to_string())
    })
}

/// `Retry-After` in seconds (an HTTP date is not honoured: no clock games).
fn retry_after(headers: &Value) -> Option<Duration> {
    header(headers, "retry-after")?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

impl Inner {
    fn tab(&mut self, key: &str) -> &mut TabRecord {
        self.clock += 1;
        if !self.tabs.contains_key(key) && self.tabs.len() >= TABS {
            let oldest = self
                .tabs
                .iter()
                .min_by_key(|(_, t)| t.touched)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.tabs.remove(&k);
            }
        }
        let clock = self.clock;
        let t = self.tabs.entry(key.to_string()).or_default();
        t.touched = clock;
        t
    }
}

impl Signals {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The proxy's exit country (ISO 3166 alpha-2) for the coherence
    /// check; None when the session has no proxy or its exit is unknown.
    pub fn set_proxy_country(&self, country: Option<String>) {
        self.lock().proxy_country = country;
    }

    /// Takes one CDP event of the tab whose flat session is `key`: main
    /// documents' responses and redirects (with capture on, the Network
    /// domain's), and their commits.
    pub fn on_event(&self, key: &str, method: &str, p: &Value) {
        let documentish = p["type"] == "Document";
        match method {
            "Network.requestWillBeSent" if documentish => {
                let Some(loader) = p["loaderId"].as_str() else {
                    return;
                };
                let url = p["request"]["url"].as_str().unwrap_or_default().to_string();
                let get = p["request"]["method"] == "GET";
                let redirected = p.get("redirectResponse").is_some();
                let mut inner = self.lock();
                let t = inner.tab(key);
                match t.pending.iter_mut().find(|(l, _)| l == loader) {
                    Some((_, d)) => {
                        d.url = url.clone();
                        d.get = get;
                    }
                    None => {
                        if t.pending.len() >= PENDING {
                            t.pending.pop_front();
                        }
                        t.pending.push_back((
                            loader.to_string(),
                            Doc {
                                url: url.clone(),
                                get,
                                ..Doc::default()
                            },
                        ));
                    }
                }
                let looped = {
                    let chain = match t.chains.iter_mut().position(|(l, ..)| l == loader) {
                        Some(i) => &mut t.chains[i],
                        None => {
                            if t.chains.len() >= PENDING {
                                t.chains.pop_front();
                            }
                            t.chains.push_back((loader.to_string(), Vec::new(), false));
                            t.chains.back_mut().expect("a chain was just pushed")
                        }
                    };
                    if !redirected {
                        chain.1.clear();
                        chain.2 = false;
                    }
                    let again = chain.1.contains(&url);
                    if chain.1.len() < CHAIN {
                        chain.1.push(url.clone());
                    }
                    let first = again && !chain.2;
                    if first {
                        chain.2 = true;
                    }
                    first
                };
                if looped {
                    inner.health.redirect_loop(&url);
                }
            }
            "Network.responseReceived" if documentish => {
                let Some(loader) = p["loaderId"].as_str() else {
                    return;
                };
                let r = &p["response"];
                let status = r["status"].as_u64().unwrap_or(0).min(999) as u16;
                let mut inner = self.lock();
                let t = inner.tab(key);
                if let Some((_, d)) = t.pending.iter_mut().find(|(l, _)| l == loader) {
                    d.status = status;
                    d.retry_after = retry_after(&r["headers"]);
                    if let Some(u) = r["url"].as_str() {
                        d.url = u.to_string();
                    }
                }
            }
            "Page.frameNavigated" => {
                let frame = &p["frame"];
                let Some(loader) = frame["loaderId"].as_str() else {
                    return;
                };
                let mut inner = self.lock();
                let t = inner.tab(key);
                let doc = t
                    .pending
                    .iter()
                    .position(|(l, _)| l == loader)
                    .and_then(|i| t.pending.remove(i))
                    .map(|(_, d)| d);
                t.chains.retain(|(l, ..)| l != loader);
                if frame.get("parentId").is_some() {
                    return;
                }
                t.last = None;
                let Some(mut doc) = doc.filter(|d| d.status != 0) else {
                    return;
                };
                doc.counted_bad = inner.health.document(&doc.url, doc.status);
                inner.tab(key).last = Some(doc);
            }
            _ => {}
        }
    }

    /// Notes what a probe saw; true when it is a document no check saw before.
    fn seen(&self, key: &str, f: &challenge::Features) -> bool {
        let mut inner = self.lock();
        inner.facts = Some(f.facts.clone());
        let t = inner.tab(key);
        let fresh = t.seen_origin != Some(f.time_origin);
        t.seen_origin = Some(f.time_origin);
        fresh
    }

    /// The page's challenge, if any: the probe's verdict, or a refusal the
    /// tab's events saw for this document when the page could not say.
    fn judge(&self, key: &str, f: &challenge::Features) -> Option<Challenge> {
        let mut f = f.clone();
        if f.status == 0
            && let Some(d) = self.last(key).filter(|d| d.url == f.url)
        {
            f.status = d.status;
        }
        challenge::classify(&f)
    }

    fn last(&self, key: &str) -> Option<Doc> {
        self.lock().tabs.get(key).and_then(|t| t.last.clone())
    }

    /// Records a challenge found on a new document of tab `key`.
    fn met(&self, key: &str, c: &Challenge) {
        let mut inner = self.lock();
        let last = inner.tab(key).last.clone();
        let counted_bad = last
            .as_ref()
            .is_some_and(|d| d.url == c.url && d.counted_bad);
        if c.kind != Kind::RateLimited {
            inner.health.challenge(c, counted_bad);
        }
        if let Some(d) = inner.tab(key).last.as_mut()
            && d.url == c.url
        {
            d.counted_bad = true;
        }
    }

    fn set_challenge(&self, key: &str, c: Option<Challenge>) {
        self.lock().tab(key).challenge = c;
    }

    /// The challenge tab `key`'s page was last found to be.
    pub fn tab_challenge(&self, key: &str) -> Option<Challenge> {
        self.lock().tabs.get(key).and_then(|t| t.challenge.clone())
    }

    /// The session's health over the sites it visited.
    pub fn health(&self) -> health::Summary {
        health::summary(self.lock().health.sites())
    }

    /// Where the browser, as the pages last saw it, and the session's
    /// emulation disagree (none before a page was probed).
    pub fn warnings(&self, emulation: &Emulation) -> Vec<Warning> {
        let inner = self.lock();
        let Some(facts) = inner.facts.clone() else {
            return Vec::new();
        };
        let accept_language = emulation
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("accept-language"))
            .map(|(_, v)| v.clone())
            .or_else(|| emulation.locale.clone());
        coherence::check(&coherence::Input {
            facts,
            accept_language,
            geo: emulation.geo,
            proxy_country: inner.proxy_country.clone(),
        })
    }

    /// Reads the browser's facts from `tab` again (after a launch or an
    /// emulation change); a page that cannot answer leaves them as they were.
    pub async fn refresh(&self, tab: &Tab) {
        const FACTS: &str = r#"(() => { let tz = '', locale = '';
            try { const o = Intl.DateTimeFormat().resolvedOptions(); tz = o.timeZone || ''; locale = o.locale || ''; } catch (e) {}
            return { user_agent: navigator.userAgent, platform: navigator.platform,
                     languages: [...(navigator.languages || [])].slice(0, 8), timezone: tz, locale }; })()"#;
        if tab.dialog().is_some() {
            return;
        }
        if let Ok(Ok(v)) = tokio::time::timeout(PROBE_TIME, tab.eval(FACTS)).await
            && let Ok(facts) = serde_json::from_value::<coherence::Facts>(v)
        {
            self.lock().facts = Some(facts);
        }
    }
}

/// Reads the page's features; None when it cannot answer (a dialog is
/// open, the document is being replaced, the tab is gone).
async fn probe(tab: &Tab, deadline: Instant) -> Option<challenge::Features> {
    if tab.dialog().is_some() {
        return None;
    }
    let until = (Instant::now() + PROBE_TIME).min(deadline);
    for _ in 0..3 {
        match tokio::time::timeout_at(until, tab.eval(challenge::PROBE)).await {
            Ok(Ok(v)) => return serde_json::from_value(v).ok(),
            Ok(Err(e)) if e.code() == ErrorCode::Internal => {
                // The context was destroyed by a navigation: look again.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            _ => return None,
        }
    }
    None
}

/// One automatic attempt at getting past a challenge.
enum Step {
    /// Wait for a self-clearing challenge to move on.
    Wait,
    /// Reload after this long (a 429 or 503 fetched with GET).
    Reload(Duration),
}

fn step(c: &Challenge, doc: Option<&Doc>) -> Option<Step> {
    let doc = doc.filter(|d| d.url == c.url);
    let status = c.status.or(doc.map(|d| d.status)).unwrap_or(0);
    if matches!(status, 429 | 503) && doc.is_some_and(|d| d.get) {
        let asked = doc.and_then(|d| d.retry_after);
        let wait = match (status, asked) {
            (_, Some(a)) if a <= RETRY_CAP => Some(a),
            (_, Some(_)) => None,
            (429, None) => Some(RETRY_DEFAULT),
            _ => None,
        };
        if let Some(wait) = wait {
            return Some(Step::Reload(wait));
        }
    }
    c.kind.self_clearing().then_some(Step::Wait)
}

/// What the dispatcher runs after a command that acts on a tab answered
/// `value`: a page that is a challenge adds `challenge` to the answer; a
/// new document that is one (the command navigated, or the page did) gets
/// up to `attempts` automatic attempts (a wait for a self-clearing check,
/// a reload honouring `Retry-After` up to a few seconds), then fails the
/// command with `needs_human`. A 429 that outlasts them is reported, not
/// yielded: nobody can clear it sooner than the site allows.
pub async fn after_command(
    tab: &Tab,
    mut value: Value,
    attempts: u32,
    deadline: Instant,
) -> Result<Value, ApiError> {
    if !value.is_object() {
        return Ok(value);
    }
    let signals = &tab.devtools().shared.signals;
    let key = tab.cdp().id();
    let Some(mut page) = probe(tab, deadline).await else {
        return Ok(value);
    };
    let fresh = signals.seen(key, &page);
    let mut found = signals.judge(key, &page);
    signals.set_challenge(key, found.clone());
    let Some(c) = found.clone() else {
        return Ok(value);
    };
    if !fresh {
        value["challenge"] = json!(c);
        return Ok(value);
    }
    signals.met(key, &c);
    let mut tried = 0;
    while let Some(c) = found.as_ref()
        && tried < attempts
    {
        let Some(step) = step(c, signals.last(key).as_ref()) else {
            break;
        };
        let budget = deadline.saturating_duration_since(Instant::now());
        let origin = page.time_origin;
        match step {
            Step::Reload(wait) => {
                if budget < wait + MARGIN * 2 {
                    break;
                }
                tokio::time::sleep(wait).await;
                tried += 1;
                if super::nav::reload(tab, super::nav::LoadState::Usable, deadline - MARGIN)
                    .await
                    .is_err()
                {
                    break;
                }
            }
            Step::Wait => {
                if budget < MARGIN * 2 {
                    break;
                }
                tried += 1;
                let until = (Instant::now() + CLEAR_WAIT).min(deadline - MARGIN);
                while Instant::now() < until {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    match probe(tab, until).await {
                        Some(p) if p.time_origin != origin || signals.judge(key, &p).is_none() => {
                            break;
                        }
                        _ => {}
                    }
                }
            }
        }
        let Some(next) = probe(tab, deadline).await else {
            break;
        };
        page = next;
        let fresh = signals.seen(key, &page);
        found = signals.judge(key, &page);
        signals.set_challenge(key, found.clone());
        if let Some(c) = &found
            && fresh
        {
            signals.met(key, c);
        }
    }
    if let Some(obj) = value.as_object_mut() {
        for (field, now) in [("url", &page.url), ("title", &page.title)] {
            if obj.get(field).is_some_and(Value::is_string) {
                obj.insert(field.into(), json!(now));
            }
        }
    }
    match found {
        None => Ok(value),
        Some(c) if c.kind == Kind::RateLimited => {
            value["challenge"] = json!(c);
            Ok(value)
        }
        Some(c) => Err(needs_human(tab, &page.title, &c, Some(tried)).await),
    }
}

/// `resume`: looks at the tab's page again. Ok with its URL and title when
/// it is no challenge (any more); `needs_human` when it still is.
pub async fn recheck(tab: &Tab, deadline: Instant) -> Result<(String, String), ApiError> {
    let signals = &tab.devtools().shared.signals;
    let key = tab.cdp().id();
    let page = probe(tab, deadline).await.ok_or_else(|| {
        ApiError::timeout(format!("tab {} did not answer; try again", tab.id()))
            .with_hint("a dialog may be open: webrig dialog accept|dismiss")
    })?;
    signals.seen(key, &page);
    let found = signals.judge(key, &page);
    signals.set_challenge(key, found.clone());
    match found {
        None => Ok((page.url, page.title)),
        Some(c) => Err(needs_human(tab, &page.title, &c, None).await),
    }
}

/// Whether a person can see the tab: the user's own browser, or a
/// browser that is not headless. None when the browser does not say.
async fn visible(tab: &Tab) -> Option<bool> {
    if tab.devtools().shared.is_relay() {
        return Some(true);
    }
    let v = tokio::time::timeout(
        Duration::from_secs(2),
        tab.cdp()
            .connection()
            .call(None, "Browser.getVersion", json!({})),
    )
    .await
    .ok()?
    .ok()?;
    // New headless names itself in the user agent, not always in `product`.
    let product = v["product"].as_str()?;
    let agent = v["userAgent"].as_str().unwrap_or_default();
    Some(!product.contains("Headless") && !agent.contains("Headless"))
}

/// The yield: names the tab, the URL (masked), the title and the kind;
/// the hint says how a person gets to it.
async fn needs_human(tab: &Tab, title: &str, c: &Challenge, tried: Option<u32>) -> ApiError {
    let by = c
        .vendor
        .as_deref()
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    let what = match c.kind {
        Kind::Mfa => "a login step that asks for a one-time code".to_string(),
        Kind::Blocked => format!("a block page{by}"),
        Kind::JsChallenge => format!("a browser check{by}"),
        Kind::Captcha => format!("a captcha{by}"),
        Kind::RateLimited => "a rate limit (429)".to_string(),
    };
    let after = match tried {
        Some(0) => String::new(),
        Some(1) => "; 1 automatic attempt did not clear it".to_string(),
        Some(n) => format!("; {n} automatic attempts did not clear it"),
        None => "; it is still there".to_string(),
    };
    let message = format!(
        "tab {} is at {} ({:?}), which is {what} [{}]{after}",
        tab.id(),
        redact::url(&c.url),
        redact::text(title),
        c.kind.as_str(),
    );
    let resume = format!("webrig resume --tab {}", tab.id());
    let act = if c.kind == Kind::Mfa {
        "enter the code"
    } else {
        "solve it"
    };
    let hint = match visible(tab).await {
        Some(true) => format!(
            "a person can {act} in the browser window (tab {}), then run {resume}",
            tab.id()
        ),
        Some(false) => format!(
            "the browser is headless, so nobody can see it: relaunch the session with a window \
             (webrig close; webrig launch --headed) or use your own Chrome (webrig connect \
             --extension), open the page again, let a person {act}, then run {resume}"
        ),
        None => format!(
            "a person must {act} in the browser (if it is headless, relaunch with webrig launch \
             --headed or use webrig connect --extension), then run {resume}"
        ),
    };
    ApiError::new(ErrorCode::NeedsHuman, message).with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_events(s: &Signals, key: &str, loader: &str, url: &str, status: u16, headers: Value) {
        s.on_event(
            key,
            "Network.requestWillBeSent",
            &json!({ "requestId": loader, "loaderId": loader, "type": "Document",
                     "request": { "url": url, "method": "GET" } }),
        );
        s.on_event(
            key,
            "Network.responseReceived",
            &json!({ "requestId": loader, "loaderId": loader, "type": "Document",
                     "response": { "url": url, "status": status, "headers": headers } }),
        );
        s.on_event(
            key,
            "Page.frameNavigated",
            &json!({ "frame": { "id": "F", "loaderId": loader, "url": url } }),
        );
    }

    #[test]
    fn main_documents_feed_the_site_health() {
        let s = Signals::default();
        doc_events(&s, "S1", "L1", "https://a.example/", 200, json!({}));
        doc_events(
            &s,
            "S1",
            "L2",
            "https://www.a.example/x",
            429,
            json!({ "Retry-After": "3" }),
        );
        // An iframe's document is not the site's answer.
        s.on_event(
            "S1",
            "Network.responseReceived",
            &json!({ "loaderId": "L3", "type": "Document", "response": { "url": "https://ads.test/", "status": 403 } }),
        );
        s.on_event(
            "S1",
            "Page.frameNavigated",
            &json!({ "frame": { "id": "G", "parentId": "F", "loaderId": "L3" } }),
        );
        let h = s.health();
        assert_eq!(h.sites.len(), 1, "{h:?}");
        let a = &h.sites[0];
        assert_eq!(
            (a.site.as_str(), a.documents, a.status_429, a.score),
            ("a.example", 2, 1, 50)
        );
        let last = s.last("S1").expect("a last document");
        assert_eq!(last.retry_after, Some(Duration::from_secs(3)));
        assert!(last.get && last.counted_bad);
    }

    #[test]
    fn a_redirect_loop_is_counted_once() {
        let s = Signals::default();
        let hop = |url: &str, redirected: bool| {
            let mut p = json!({ "requestId": "L1", "loaderId": "L1", "type": "Document",
                                "request": { "url": url, "method": "GET" } });
            if redirected {
                p["redirectResponse"] = json!({ "status": 302 });
            }
            s.on_event("S1", "Network.requestWillBeSent", &p);
        };
        hop("http://127.0.0.1:9/loop/a", false);
        for _ in 0..10 {
            hop("http://127.0.0.1:9/loop/b", true);
            hop("http://127.0.0.1:9/loop/a", true);
        }
        let h = s.health();
        assert_eq!(h.redirect_loops, 1, "{h:?}");
        assert_eq!(h.sites[0].site, "127.0.0.1");
    }

    #[test]
    fn retries_honour_retry_after_up_to_the_cap_and_never_resend_a_post() {
        let c = |status| Challenge {
            kind: Kind::RateLimited,
            url: "https://a.example/".into(),
            vendor: None,
            status: Some(status),
        };
        let doc = |retry: Option<u64>, get: bool| Doc {
            url: "https://a.example/".into(),
            status: 429,
            retry_after: retry.map(Duration::from_secs),
            get,
            counted_bad: true,
        };
        assert!(
            matches!(step(&c(429), Some(&doc(Some(2), true))), Some(Step::Reload(d)) if d == Duration::from_secs(2))
        );
        assert!(
            matches!(step(&c(429), Some(&doc(None, true))), Some(Step::Reload(d)) if d == RETRY_DEFAULT)
        );
        assert!(step(&c(429), Some(&doc(Some(3600), true))).is_none());
        assert!(
            step(&c(429), Some(&doc(Some(1), false))).is_none(),
            "a POST is not resent"
        );
        assert!(step(&c(429), None).is_none());
        assert!(
            step(&c(503), Some(&doc(None, true))).is_none(),
            "a 503 without Retry-After is an outage"
        );
        let js = Challenge {
            kind: Kind::JsChallenge,
            ..c(403)
        };
        assert!(matches!(step(&js, None), Some(Step::Wait)));
        let captcha = Challenge {
            kind: Kind::Captcha,
            ..c(200)
        };
        assert!(
            step(&captcha, None).is_none(),
            "nobody but a person solves a captcha"
        );
    }

    #[test]
    fn tabs_and_pending_documents_are_bounded() {
        let s = Signals::default();
        for i in 0..(TABS + 5) {
            for j in 0..(PENDING + 5) {
                s.on_event(
                    &format!("S{i}"),
                    "Network.requestWillBeSent",
                    &json!({ "loaderId": format!("L{j}"), "type": "Document", "request": { "url": "https://a.test/" } }),
                );
            }
        }
        let inner = s.lock();
        assert_eq!(inner.tabs.len(), TABS);
        assert!(
            inner
                .tabs
                .values()
                .all(|t| t.pending.len() <= PENDING && t.chains.len() <= PENDING)
        );
    }

    #[test]
    fn warnings_use_the_emulated_headers_and_position() {
        let s = Signals::default();
        assert!(s.warnings(&Emulation::default()).is_empty(), "no facts yet");
        s.lock().facts = Some(coherence::Facts {
            user_agent: "Mozilla/5.0 (X11; Linux x86_64)".into(),
            platform: "Linux x86_64".into(),
            languages: vec!["de-DE".into()],
            timezone: "Asia/Tokyo".into(),
            locale: "de-DE".into(),
        });
        let e = Emulation {
            locale: Some("de-DE".into()),
            ..Emulation::default()
        };
        let kinds: Vec<String> = s.warnings(&e).into_iter().map(|w| w.kind).collect();
        assert_eq!(kinds, ["timezone_locale"]);
        s.set_proxy_country(Some("JP".into()));
        let kinds: Vec<String> = s.warnings(&e).into_iter().map(|w| w.kind).collect();
        assert_eq!(kinds, ["timezone_locale", "proxy_locale"]);
    }
}

//! Tier 2: does a page look like a bot check, a block, or a login step only
//! a person can take? [`PROBE`] reads a few features of the page (title,
//! a short text sample, frames, marker elements, the document's status);
//! [`classify`] decides from them. Pure, so it is tested on features
//! without a browser, and over real pages end to end.
//!
//! Markers are the ones vendors' challenge pages carry and ordinary pages
//! do not: a site behind Cloudflare loads `/cdn-cgi/challenge-platform/`
//! scripts on every page, and a reCAPTCHA v3 badge sits on many, so
//! neither alone is a challenge. A captcha widget counts when it is
//! visible on a page with little else on it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of wall a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An interstitial that checks the browser and may clear by itself
    /// ("Just a moment...").
    JsChallenge,
    /// A captcha (hCaptcha, reCAPTCHA, Turnstile, DataDome, PerimeterX, or
    /// a generic "verify you are human").
    Captcha,
    /// A block page ("Access Denied", "Attention Required!").
    Blocked,
    /// A login step asking for a one-time code.
    Mfa,
    /// The site answered 429 Too Many Requests and kept answering it.
    RateLimited,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::JsChallenge => "js_challenge",
            Kind::Captcha => "captcha",
            Kind::Blocked => "blocked",
            Kind::Mfa => "mfa",
            Kind::RateLimited => "rate_limited",
        }
    }

    /// Whether waiting may clear it without anyone's help.
    pub fn self_clearing(self) -> bool {
        self == Kind::JsChallenge
    }
}

/// A page found to be a challenge: what the result of a command that
/// met it carries as `challenge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Challenge {
    pub kind: Kind,
    pub url: String,
    /// Whose check it looks like (`cloudflare`, `hcaptcha`, `recaptcha`,
    /// `turnstile`, `datadome`, `perimeterx`, `akamai`, `google`), when
    /// a marker says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// The document's HTTP status, when the page reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// A frame of the page, as the probe saw it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Frame {
    #[serde(default)]
    pub src: String,
    #[serde(default)]
    pub visible: bool,
}

/// What the probe read of a page.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Features {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The main document's HTTP status (0: unknown, e.g. a cached page).
    #[serde(default)]
    pub status: u16,
    /// Identifies the document: a new one is a navigation.
    #[serde(default)]
    pub time_origin: f64,
    /// Length of the page's text (visible text for small pages).
    #[serde(default)]
    pub text_len: usize,
    /// The start of the visible text, lowercased; empty for large pages.
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub frames: Vec<Frame>,
    #[serde(default)]
    pub scripts: Vec<String>,
    /// Names of marker elements present (see [`PROBE`]): `cf_form`,
    /// `cf_opt`, `px_captcha`, `hcaptcha`, `recaptcha`, `turnstile`
    /// (the last three only when visible), `otp` (a visible one-time-code input).
    #[serde(default)]
    pub markers: Vec<String>,
    /// The browser as the page sees it (coherence's facts).
    #[serde(default)]
    pub facts: super::coherence::Facts,
}

/// Pages with more visible text than this are content, not an interstitial.
const SHORT_PAGE: usize = 3000;

/// Reads [`Features`] of the page; runs in the page's main world and
/// touches nothing. The visible text is read only for a small document
/// (innerText lays the page out; a large page is not an interstitial).
pub const PROBE: &str = r#"(() => {
  const d = document;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 2 && r.height > 2 && s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0';
  };
  const any = (sel, needVisible) => {
    for (const el of d.querySelectorAll(sel)) { if (!needVisible || visible(el)) return true; }
    return false;
  };
  const raw = d.body ? d.body.textContent.length : 0;
  const text = raw < 60000 && d.body ? (d.body.innerText || '') : '';
  const markers = [];
  const probe = {
    cf_form: ['#challenge-form, #challenge-running, #challenge-stage, #cf-challenge-running, [id^="cf-chl-"]', false],
    px_captcha: ['#px-captcha', false],
    hcaptcha: ['.h-captcha, iframe[src*="hcaptcha.com"]', true],
    recaptcha: ['.g-recaptcha, iframe[src*="/recaptcha/"]:not([src*="size=invisible"])', true],
    turnstile: ['.cf-turnstile, iframe[src*="challenges.cloudflare.com"]', true],
    otp: ['input[autocomplete~="one-time-code"]', true],
  };
  for (const [name, [sel, vis]] of Object.entries(probe)) { try { if (any(sel, vis)) markers.push(name); } catch (e) {} }
  if (typeof window._cf_chl_opt !== 'undefined') markers.push('cf_opt');
  const nav = performance.getEntriesByType('navigation')[0];
  let tz = '', locale = '';
  try { const o = Intl.DateTimeFormat().resolvedOptions(); tz = o.timeZone || ''; locale = o.locale || ''; } catch (e) {}
  return {
    url: location.href,
    title: d.title || '',
    status: (nav && nav.responseStatus) || 0,
    time_origin: performance.timeOrigin,
    text_len: text ? text.length : raw,
    text: text.slice(0, 4000).toLowerCase(),
    frames: [...d.querySelectorAll('iframe')].slice(0, 30).map((f) => ({ src: (f.src || '').slice(0, 300), visible: visible(f) })),
    scripts: [...d.scripts].map((s) => s.src).filter(Boolean).slice(0, 60).map((s) => s.slice(0, 300)),
    markers,
    facts: { user_agent: navigator.userAgent, platform: navigator.platform,
             languages: [...(navigator.languages || [])].slice(0, 8), timezone: tz, locale },
  };
})()"#;

/// Phrases of interstitials that check the browser and move on by themselves.
const CHECKING: &[&str] = &[
    "checking your browser before accessing",
    "checking if the site connection is secure",
    "verifying you are human. this may take a few seconds",
    "enable javascript and cookies to continue",
];

/// Phrases of pages that ask a person to prove it.
const VERIFY: &[&str] = &[
    "verify you are human",
    "verify that you are human",
    "verify you are a human",
    "confirm you are human",
    "are you a robot",
    "prove you're not a robot",
    "please complete the security check",
    "press & hold to confirm you are",
    "our systems have detected unusual traffic from your computer",
];

fn found(kind: Kind, vendor: Option<&str>, f: &Features) -> Option<Challenge> {
    Some(Challenge {
        kind,
        url: f.url.clone(),
        vendor: vendor.map(str::to_string),
        status: (f.status != 0).then_some(f.status),
    })
}

/// The challenge a URL alone gives away (a redirect to a vendor's page).
pub fn by_url(url: &str) -> Option<(Kind, &'static str)> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed.host_str().unwrap_or_default().to_ascii_lowercase();
    let path = parsed.path();
    let query = parsed.query().unwrap_or_default();
    if path.contains("/cdn-cgi/challenge-platform/") || query.contains("__cf_chl_") {
        return Some((Kind::JsChallenge, "cloudflare"));
    }
    if host == "captcha-delivery.com" || host.ends_with(".captcha-delivery.com") {
        return Some((Kind::Captcha, "datadome"));
    }
    let google = host == "google.com"
        || host.starts_with("www.google.")
        || host.starts_with("google.")
        || host == "ipv4.google.com";
    if google && path.starts_with("/sorry/") {
        return Some((Kind::Captcha, "google"));
    }
    None
}

/// Decides whether the page is a challenge, and which.
pub fn classify(f: &Features) -> Option<Challenge> {
    let has = |m: &str| f.markers.iter().any(|x| x == m);
    let title = f.title.trim().to_lowercase();
    let short = f.text_len < SHORT_PAGE;
    let text_has = |phrases: &[&str]| short && phrases.iter().any(|p| f.text.contains(p));

    if let Some((kind, vendor)) = by_url(&f.url) {
        return found(kind, Some(vendor), f);
    }
    // Cloudflare's interstitial: its form or options object, or its
    // orchestration script (ordinary pages load only its `jsd` script).
    let cf_page_script = f
        .scripts
        .iter()
        .any(|s| s.contains("/cdn-cgi/challenge-platform/") && s.contains("/orchestrate/"));
    if has("cf_form") || has("cf_opt") || cf_page_script {
        return found(Kind::JsChallenge, Some("cloudflare"), f);
    }
    if title.starts_with("just a moment") && short {
        return found(Kind::JsChallenge, None, f);
    }
    if title.starts_with("attention required") && title.contains("cloudflare") {
        return found(Kind::Blocked, Some("cloudflare"), f);
    }
    if f.frames
        .iter()
        .any(|fr| fr.src.contains("captcha-delivery.com"))
    {
        return found(Kind::Captcha, Some("datadome"), f);
    }
    if has("px_captcha") {
        return found(Kind::Captcha, Some("perimeterx"), f);
    }
    if title.starts_with("access denied")
        && short
        && (f.text.contains("reference #") || f.text.contains("edgesuite.net"))
    {
        return found(Kind::Blocked, Some("akamai"), f);
    }
    if has("otp") {
        return found(Kind::Mfa, None, f);
    }
    if short {
        for (marker, vendor) in [
            ("hcaptcha", "hcaptcha"),
            ("recaptcha", "recaptcha"),
            ("turnstile", "turnstile"),
        ] {
            if has(marker) {
                return found(Kind::Captcha, Some(vendor), f);
            }
        }
    }
    if text_has(CHECKING) {
        return found(Kind::JsChallenge, None, f);
    }
    if text_has(VERIFY) || (short && title.contains("verify") && title.contains("human")) {
        return found(Kind::Captcha, None, f);
    }
    if f.status == 429 {
        return found(Kind::RateLimited, None, f);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str, text: &str) -> Features {
        Features {
            url: "https://shop.example/item".into(),
            title: title.into(),
            status: 200,
            text_len: text.len(),
            text: text.to_lowercase(),
            ..Features::default()
        }
    }

    fn kind(f: &Features) -> Option<(Kind, Option<String>)> {
        classify(f).map(|c| (c.kind, c.vendor))
    }

    #[test]
    fn cloudflare_interstitials_are_js_challenges() {
        let mut f = page(
            "Just a moment...",
            "Checking if the site connection is secure",
        );
        f.status = 403;
        assert_eq!(classify(&f).map(|c| c.kind), Some(Kind::JsChallenge));
        assert_eq!(classify(&f).and_then(|c| c.status), Some(403));
        let mut g = page("Shop", "");
        g.markers = vec!["cf_opt".into()];
        assert_eq!(
            kind(&g),
            Some((Kind::JsChallenge, Some("cloudflare".into())))
        );
        let mut h = page("Shop", "");
        h.scripts = vec![
            "https://shop.example/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=1"
                .into(),
        ];
        assert_eq!(kind(&h).map(|k| k.0), Some(Kind::JsChallenge));
        let u = Features {
            url: "https://shop.example/?__cf_chl_rt_tk=abc".into(),
            ..page("Shop", "")
        };
        assert_eq!(kind(&u).map(|k| k.0), Some(Kind::JsChallenge));
    }

    #[test]
    fn a_site_behind_cloudflare_is_not_a_challenge_by_its_scripts() {
        let mut f = page("Shop — shoes", &"Great shoes. ".repeat(400));
        f.scripts =
            vec!["https://shop.example/cdn-cgi/challenge-platform/scripts/jsd/main.js".into()];
        assert_eq!(classify(&f), None);
    }

    #[test]
    fn vendors_are_named() {
        let mut f = page("Shop", "");
        f.frames = vec![Frame {
            src: "https://geo.captcha-delivery.com/captcha/?initialCid=x".into(),
            visible: true,
        }];
        assert_eq!(kind(&f), Some((Kind::Captcha, Some("datadome".into()))));
        let mut p = page(
            "Access to this page has been denied",
            "Press & Hold to confirm you are a human",
        );
        p.markers = vec!["px_captcha".into()];
        assert_eq!(kind(&p), Some((Kind::Captcha, Some("perimeterx".into()))));
        let a = page(
            "Access Denied",
            "You don't have permission to access \"http://shop.example/\" on this server. Reference #18.1234",
        );
        assert_eq!(kind(&a), Some((Kind::Blocked, Some("akamai".into()))));
        let c = page(
            "Attention Required! | Cloudflare",
            "Sorry, you have been blocked",
        );
        assert_eq!(kind(&c), Some((Kind::Blocked, Some("cloudflare".into()))));
        let s = Features {
            url: "https://www.google.com/sorry/index?continue=x".into(),
            ..page("", "")
        };
        assert_eq!(kind(&s), Some((Kind::Captcha, Some("google".into()))));
    }

    #[test]
    fn a_captcha_counts_on_a_short_page_only() {
        let mut f = page("Sign in", "Sign in. Email. Password.");
        f.markers = vec!["recaptcha".into()];
        assert_eq!(kind(&f), Some((Kind::Captcha, Some("recaptcha".into()))));
        let mut long = page("A long article", &"words ".repeat(2000));
        long.markers = vec!["recaptcha".into(), "hcaptcha".into(), "turnstile".into()];
        assert_eq!(classify(&long), None);
        let v = page("Security check", "Please verify you are human to continue");
        assert_eq!(kind(&v), Some((Kind::Captcha, None)));
        let mut article = page("How bots verify you are human", "");
        article.text_len = 50_000;
        article.text = String::new();
        assert_eq!(classify(&article), None, "a long page about captchas");
    }

    #[test]
    fn one_time_codes_are_mfa_and_429_is_rate_limited() {
        let mut f = page("Two-step verification", "Enter the code we sent");
        f.markers = vec!["otp".into()];
        assert_eq!(kind(&f), Some((Kind::Mfa, None)));
        let mut r = page("Too Many Requests", "slow down");
        r.status = 429;
        assert_eq!(kind(&r), Some((Kind::RateLimited, None)));
        let mut e = page("Service Unavailable", "");
        e.status = 503;
        assert_eq!(classify(&e), None, "a 503 without markers is an outage");
    }

    #[test]
    fn ordinary_pages_and_junk_are_not_challenges() {
        for f in [
            page("", ""),
            page(
                "Just a moment of your time: our newsletter",
                &"news ".repeat(1000),
            ),
            page("Access Denied", "You must sign in to see this folder."),
            Features {
                url: "not a url".into(),
                ..Features::default()
            },
        ] {
            assert_eq!(classify(&f), None, "{f:?}");
        }
    }
}

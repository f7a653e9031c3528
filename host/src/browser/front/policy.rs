//! What a CDP client may send on a page's session, and which targets a
//! `filter` names. Browser-level methods never get here: the front end
//! answers or emulates each one it knows and refuses the rest.
//!
//! A page's own session reaches past the page through a few domains:
//! Chrome lets it list, create and attach to every target of the browser
//! (`Target.*`), and read or clear the whole profile's cookies and cache
//! (`Network.getAllCookies`, `clearBrowserCookies`, `Storage.*`). Those are
//! refused; on the user's own browser (the relay), cookie calls are held
//! to the sites the session's tabs show.

use serde_json::Value;

/// A refused call, as the client sees it.
pub fn refused(method: &str, why: &str) -> Value {
    serde_json::json!({
        "code": -32000,
        "message": format!("{method} is refused by webrig's CDP front end: {why}"),
    })
}

/// What to do with a call on a page's session.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    Pass,
    /// Answered here with this result, never sent.
    Answer(Value),
    /// Pass once the URLs it touches are the session's sites (relay).
    SitesOnly(Vec<String>),
    Refuse(&'static str),
}

/// Session-level `Target` methods a page may use on itself.
const TARGET_OWN: &[&str] = &[
    "Target.setAutoAttach",
    "Target.autoAttachRelated",
    "Target.detachFromTarget",
    "Target.getTargetInfo",
];

/// Session-level `Browser` methods about the page's own window.
const BROWSER_OWN: &[&str] = &[
    "Browser.getVersion",
    "Browser.getWindowForTarget",
    "Browser.setContentsSize",
];

/// Calls that read or clear every site's data in the profile.
const PROFILE_WIDE: &[&str] = &[
    "Network.getAllCookies",
    "Network.clearBrowserCookies",
    "Network.clearBrowserCache",
    "Storage.getCookies",
    "Storage.setCookies",
    "Storage.clearCookies",
    "Storage.clearDataForOrigin",
    "Storage.clearDataForStorageKey",
    "Storage.getUsageAndQuota",
    "Storage.overrideQuotaForOrigin",
];

/// The verdict on `method` sent on one of the client's sessions of page
/// target `page`. `relay`: the session drives the user's own browser.
pub fn on_session(method: &str, params: &Value, page: &str, relay: bool) -> Verdict {
    let domain = method.split('.').next().unwrap_or_default();
    // A method that names a target may name only the session's own page
    // (on the user's browser, another tab's title and URL are the user's).
    if matches!(domain, "Target" | "Browser")
        && params["targetId"].as_str().is_some_and(|t| t != page)
    {
        return Verdict::Refuse("it names a target that is not this page");
    }
    match domain {
        "Target" if !TARGET_OWN.contains(&method) => {
            Verdict::Refuse("a page's session may not reach other targets")
        }
        // The extension set the tab's own auto-attach (and must keep it:
        // a child that waits for a debugger that left would hang).
        "Target" if relay && method == "Target.setAutoAttach" => {
            Verdict::Answer(Value::Object(Default::default()))
        }
        "Browser" if !BROWSER_OWN.contains(&method) => {
            Verdict::Refuse("it acts on the whole browser, not the page")
        }
        "SystemInfo" | "Tethering" | "Extensions" | "PWA" => {
            Verdict::Refuse("it reaches outside the session")
        }
        _ if PROFILE_WIDE.contains(&method) => {
            if relay {
                Verdict::Refuse("it reads or clears every site's data in your own browser")
            } else {
                // A launched session's profile or context is its own.
                Verdict::Pass
            }
        }
        _ if relay && method.starts_with("Network.") && touches_cookies(method) => {
            Verdict::SitesOnly(cookie_urls(method, params))
        }
        _ => Verdict::Pass,
    }
}

fn touches_cookies(method: &str) -> bool {
    matches!(
        method,
        "Network.getCookies" | "Network.setCookie" | "Network.setCookies" | "Network.deleteCookies"
    )
}

/// The URLs a cookie call reads or writes (a domain as `https://domain/`).
fn cookie_urls(method: &str, p: &Value) -> Vec<String> {
    let mut urls = Vec::new();
    let mut one = |c: &Value| {
        if let Some(u) = c["url"].as_str() {
            urls.push(u.to_string());
        } else if let Some(d) = c["domain"].as_str() {
            urls.push(format!("https://{}/", d.trim_start_matches('.')));
        } else {
            // A cookie with neither names no site: held to none.
            urls.push(String::new());
        }
    };
    match method {
        // Without urls: the page's own (Chrome's default), allowed.
        "Network.getCookies" => {
            if let Some(list) = p["urls"].as_array() {
                urls.extend(
                    list.iter()
                        .map(|u| u.as_str().unwrap_or_default().to_string()),
                );
            }
        }
        "Network.setCookies" => p["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .for_each(&mut one),
        _ => one(p),
    }
    urls
}

/// The host a URL names, lowercased; None for URLs without one.
pub fn host_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    url.host_str().map(|h| h.to_ascii_lowercase())
}

/// Whether `host` is one of `sites` or a subdomain or parent domain of
/// one (cookies are shared along the domain chain; a parent must still
/// hold a dot, so no bare public suffix like `com` passes).
pub fn same_site(host: &str, sites: &[String]) -> bool {
    sites.iter().any(|s| {
        s == host
            || (s.ends_with(&format!(".{host}")) && host.contains('.'))
            || host.ends_with(&format!(".{s}"))
    })
}

/// A `Target.*` filter: entries in order, the first whose type matches
/// decides; a type no entry matches is left out.
#[derive(Debug, Clone)]
pub struct Filter(Vec<(Option<String>, bool)>);

impl Filter {
    /// The client's `filter`, or Chrome's default (everything but the
    /// browser and tabs).
    pub fn parse(p: &Value) -> Filter {
        match p["filter"].as_array() {
            Some(list) => Filter(
                list.iter()
                    .map(|e| {
                        (
                            e["type"].as_str().map(str::to_string),
                            e["exclude"].as_bool().unwrap_or(false),
                        )
                    })
                    .collect(),
            ),
            None => Filter(vec![
                (Some("browser".into()), true),
                (Some("tab".into()), true),
                (None, false),
            ]),
        }
    }

    pub fn admits(&self, kind: &str) -> bool {
        for (t, exclude) in &self.0 {
            if t.as_deref().is_none_or(|t| t == kind) {
                return !exclude;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pages_session_cannot_reach_past_the_page() {
        for m in [
            "Target.getTargets",
            "Target.createTarget",
            "Target.attachToTarget",
            "Target.createBrowserContext",
            "Target.setDiscoverTargets",
            "Browser.close",
            "Browser.setDownloadBehavior",
            "SystemInfo.getInfo",
        ] {
            for relay in [false, true] {
                assert!(
                    matches!(on_session(m, &json!({}), "P", relay), Verdict::Refuse(_)),
                    "{m} relay={relay}"
                );
            }
        }
        for m in [
            "Runtime.evaluate",
            "Page.navigate",
            "Target.setAutoAttach",
            "Browser.getWindowForTarget",
        ] {
            assert_eq!(on_session(m, &json!({}), "P", false), Verdict::Pass, "{m}");
        }
        // The user's own profile: nothing profile-wide, cookies by site.
        assert!(matches!(
            on_session("Network.getAllCookies", &json!({}), "P", true),
            Verdict::Refuse(_)
        ));
        assert!(matches!(
            on_session("Storage.clearDataForOrigin", &json!({}), "P", true),
            Verdict::Refuse(_)
        ));
        assert_eq!(
            on_session("Network.getAllCookies", &json!({}), "P", false),
            Verdict::Pass
        );
        assert_eq!(
            on_session(
                "Network.getCookies",
                &json!({"urls": ["https://bank.example/"]}),
                "P",
                true
            ),
            Verdict::SitesOnly(vec!["https://bank.example/".into()])
        );
        assert_eq!(
            on_session(
                "Network.setCookie",
                &json!({"name": "a", "value": "b", "domain": ".x.example"}),
                "P",
                true
            ),
            Verdict::SitesOnly(vec!["https://x.example/".into()])
        );
        assert_eq!(
            on_session("Target.setAutoAttach", &json!({}), "P", true),
            Verdict::Answer(json!({}))
        );
        // Only the page's own target may be named.
        for m in [
            "Target.getTargetInfo",
            "Target.autoAttachRelated",
            "Browser.getWindowForTarget",
        ] {
            assert_eq!(
                on_session(m, &json!({"targetId": "P"}), "P", true),
                Verdict::Pass,
                "{m}"
            );
            assert!(
                matches!(
                    on_session(m, &json!({"targetId": "OTHER"}), "P", true),
                    Verdict::Refuse(_)
                ),
                "{m}"
            );
        }
    }

    #[test]
    fn sites_follow_the_domain_chain_but_not_past_a_suffix() {
        let sites = vec!["shop.example.com".to_string()];
        assert!(same_site("shop.example.com", &sites));
        assert!(same_site("a.shop.example.com", &sites));
        assert!(same_site("example.com", &sites));
        assert!(!same_site("com", &sites));
        assert!(!same_site("bank.com", &sites));
        assert!(!same_site("evilshop.example.com", &sites));
    }

    #[test]
    fn filters_match_in_order() {
        let default = Filter::parse(&json!({}));
        assert!(default.admits("page") && !default.admits("tab") && !default.admits("browser"));
        let puppeteer = Filter::parse(&json!({"filter": [{"type": "page", "exclude": true}, {}]}));
        assert!(!puppeteer.admits("page") && puppeteer.admits("tab"));
        assert!(!Filter::parse(&json!({"filter": []})).admits("page"));
    }
}

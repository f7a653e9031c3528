//! Which providers serve a call: a search's source policy, a fetch's route
//! by grants, and whether the installed providers can take a call at all.
//!
//! Nothing that can serve a call is an error, never an empty success, and
//! the error says which of three cases it is:
//! - nothing installed does it: `not_found`, with the setup command as hint;
//! - providers that would do it are installed but none is ready (refused at
//!   load, its `describe` failed, granted nothing it asks for):
//!   `unsupported`, naming each and why, with what fixes it. Not
//!   `plugin_failed`: no plugin ran, and retrying will not help until the
//!   user changes something;
//! - a provider ran and found nothing: a success with empty results.
//!
//! An open breaker or a cooldown is not "not ready" here: it passes with
//! time, and a call reports it as that provider's failure (`circuit_open`,
//! `rate_limited`, with the wait).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Failure, FailureCode, Providers, SOURCES};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::Plugin;
use crate::plugins::grants::Grant;
use crate::plugins::manifest::{BrowserAccess, Capabilities, Kind};

/// The hint of "nothing installed".
pub const SETUP_HINT: &str =
    "`webrig setup` installs the first-party providers and workflows (see `webrig plugin list`)";

/// Why an installed provider cannot take any call, and what fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unready {
    pub why: String,
    pub fix: String,
}

/// What a caller wanted served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// A search of a source policy or of one provider.
    Search(String),
    Fetch,
    /// Either (what a workflow without network access of its own needs).
    Any,
}

impl Want {
    fn describe(&self) -> String {
        match self {
            Want::Search(s) if s == "auto" || s == "all" => "search".into(),
            Want::Search(s) if SOURCES.contains(&s.as_str()) => format!("search source {s:?}"),
            Want::Search(id) => format!("search as provider {id:?}"),
            Want::Fetch => "fetch pages".into(),
            Want::Any => format!("search or fetch (sources: {})", SOURCES[1..5].join(", ")),
        }
    }
}

/// Nothing can serve a call (see the module doc for the cases).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unserved {
    /// No installed provider does it; `installed` are the providers there are.
    Missing { want: Want, installed: Vec<String> },
    /// Those that would do it are installed, none is ready.
    NotReady {
        want: Want,
        why: Vec<(String, Unready)>,
    },
}

impl Unserved {
    pub fn error(&self) -> ApiError {
        self.error_in("")
    }

    /// The error, its message led by `context` (the macro, the workflow).
    pub fn error_in(&self, context: &str) -> ApiError {
        let lead = if context.is_empty() {
            String::new()
        } else {
            format!("{context}: ")
        };
        match self {
            Unserved::Missing { want, installed } if installed.is_empty() => {
                ApiError::not_found(format!(
                    "{lead}no provider is installed, so nothing can {}",
                    want.describe()
                ))
                .with_hint(SETUP_HINT)
            }
            Unserved::Missing { want, installed } => ApiError::not_found(format!(
                "{lead}no installed provider can {} (installed: {})",
                want.describe(),
                installed.join(", ")
            ))
            .with_hint(format!(
                "{SETUP_HINT}; `webrig providers` shows what each installed one serves"
            )),
            Unserved::NotReady { want, why } => {
                let reasons: Vec<String> = why
                    .iter()
                    .map(|(id, u)| format!("{id}: {}", u.why))
                    .collect();
                let mut fixes: Vec<&str> = why.iter().map(|(_, u)| u.fix.as_str()).collect();
                fixes.dedup();
                ApiError::new(
                    ErrorCode::Unsupported,
                    format!(
                        "{lead}no provider that can {} is ready: {}",
                        want.describe(),
                        reasons.join("; ")
                    ),
                )
                .with_hint(format!(
                    "{}; `webrig providers` shows each one's state",
                    fixes.join("; ")
                ))
            }
        }
    }
}

/// Why `p` cannot take any call now (None: it can). See the module doc.
pub fn unready(p: &Plugin) -> Option<Unready> {
    let id = p.id();
    if let Err(why) = p.ready() {
        return Some(Unready {
            why: format!("refused at load: {why}"),
            fix: format!(
                "fix what the message names, then `webrig plugin reload {id}`; \
                 or reinstall it (`webrig setup` for a first-party one)"
            ),
        });
    }
    if p.installed.manifest.kind == Kind::Provider && p.info.is_none() {
        return Some(Unready {
            why: "its describe() failed".into(),
            fix: format!("see `webrig plugin logs {id}`"),
        });
    }
    let caps = &p.installed.manifest.capabilities;
    granted_nothing(caps, &p.installed.grant, &p.access.settings).map(|asks| Unready {
        why: format!("it was granted none of what it asks for ({asks})"),
        fix: format!("`webrig plugin grant {id} --all` grants it"),
    })
}

/// What a plugin asks for, when it asks for something and was granted none
/// of it (no host, no configured endpoint, no browser): it can reach
/// nothing. A plugin that asks for nothing computes on its input alone.
fn granted_nothing(
    asked: &Capabilities,
    grant: &Grant,
    settings: &BTreeMap<String, String>,
) -> Option<String> {
    let mut asks = Vec::new();
    if !asked.http.is_empty() {
        asks.push(format!("http to {}", asked.http.join(", ")));
    }
    if asked.browser != BrowserAccess::None {
        asks.push("the browser".into());
    }
    if asks.is_empty() {
        return None;
    }
    let a_host = asked
        .http
        .iter()
        .any(|h| grant.http.iter().any(|g| g.eq_ignore_ascii_case(h)));
    let an_endpoint = asked
        .http_from_config
        .iter()
        .any(|k| settings.contains_key(k));
    let browser = asked.browser.min(grant.browser) != BrowserAccess::None;
    (!a_host && !an_endpoint && !browser).then(|| asks.join(" and "))
}

/// The ready ones of `selected` (with a failure for each one that is not),
/// else why nothing serves `want`. `refused` are installed providers that
/// did not load (what they serve is unknown: named when nothing else is
/// ready); `installed` every installed provider's id.
fn verdict<T>(
    want: Want,
    selected: Vec<(String, T, Option<Unready>)>,
    refused: Vec<(String, Unready)>,
    installed: Vec<String>,
) -> Result<(Vec<T>, Vec<Failure>), Unserved> {
    let mut ready = Vec::new();
    let mut not = Vec::new();
    for (id, t, why) in selected {
        match why {
            None => ready.push(t),
            Some(u) => not.push((id, u)),
        }
    }
    if !ready.is_empty() {
        let failures = not
            .into_iter()
            .map(|(id, u)| Failure {
                message: format!("{id} is not ready: {} ({})", u.why, u.fix),
                provider: id,
                code: FailureCode::Unavailable,
            })
            .collect();
        return Ok((ready, failures));
    }
    // A refused one that was selected is already there.
    let others: Vec<(String, Unready)> = refused
        .into_iter()
        .filter(|(id, _)| !not.iter().any(|(n, _)| n == id))
        .collect();
    not.extend(others);
    if not.is_empty() {
        Err(Unserved::Missing { want, installed })
    } else {
        Err(Unserved::NotReady { want, why: not })
    }
}

impl Providers {
    /// Every installed provider's id, sorted.
    fn installed_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .host
            .all()
            .iter()
            .filter(|p| p.installed.manifest.kind == Kind::Provider)
            .map(|p| p.id().to_string())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Installed providers that did not load (unknown operations).
    fn refused(&self) -> Vec<(String, Unready)> {
        self.host
            .all()
            .iter()
            .filter(|p| p.installed.manifest.kind == Kind::Provider && p.info.is_none())
            .filter_map(|p| unready(p).map(|u| (p.id().to_string(), u)))
            .collect()
    }

    /// The ready providers among `selected` for `want`, and a failure for
    /// each selected one that is not ready; else why nothing serves it.
    pub fn ready_of(
        &self,
        want: Want,
        selected: Vec<Arc<Plugin>>,
    ) -> Result<(Vec<Arc<Plugin>>, Vec<Failure>), Unserved> {
        let selected = selected
            .into_iter()
            .map(|p| (p.id().to_string(), p.clone(), unready(&p)))
            .collect();
        verdict(want, selected, self.refused(), self.installed_ids())
    }

    /// The installed providers that do any of `ops`.
    fn doing(&self, ops: &[&str]) -> Vec<Arc<Plugin>> {
        self.host
            .all()
            .into_iter()
            .filter(|p| ops.iter().any(|op| p.does(op)))
            .collect()
    }

    /// Whether a provider can fetch now (which one depends on the URL).
    pub fn can_fetch(&self) -> Result<(), Unserved> {
        let fetching = self.doing(&["fetch"]);
        self.ready_of(Want::Fetch, fetching).map(drop)
    }

    /// Whether anything can search or fetch now (a workflow that reaches
    /// the web only through providers needs one of them).
    pub fn any_ready(&self) -> Result<(), Unserved> {
        let selected = self.doing(&["search", "fetch"]);
        self.ready_of(Want::Any, selected).map(drop)
    }

    /// The providers a source policy selects, in a stable order, ready or
    /// not. `auto`: web and community, plus shopping for shopping-like
    /// queries and social for `#tags`; everything when none of those is
    /// installed. `source` is a source policy (see [`SOURCES`]) or one
    /// installed provider's id.
    pub fn select(&self, source: &str, query: &str) -> Result<Vec<Arc<Plugin>>, ApiError> {
        let searchable: Vec<Arc<Plugin>> = self.doing(&["search"]);
        if !SOURCES.contains(&source) {
            if let Some(p) = searchable.iter().find(|p| p.id() == source) {
                return Ok(vec![p.clone()]);
            }
            let mut ids: Vec<&str> = searchable.iter().map(|p| p.id()).collect();
            ids.sort_unstable();
            return Err(ApiError::invalid(format!(
                "unknown source {source:?}; one of {}, or a provider id ({})",
                SOURCES.join(", "),
                if ids.is_empty() {
                    "none installed".to_string()
                } else {
                    ids.join(", ")
                }
            )));
        }
        let wanted: Vec<String> = match source {
            "all" => return Ok(searchable),
            "auto" => {
                let q = query.to_lowercase();
                let mut w = vec!["web".to_string(), "community".to_string()];
                let shopping = [
                    "buy", "price", "cheap", "deal", "sale", "review", "$", "€", "£",
                ];
                if shopping.iter().any(|k| q.contains(k)) {
                    w.push("shopping".into());
                }
                if q.split_whitespace()
                    .any(|t| t.starts_with('#') && t.len() > 1)
                {
                    w.push("social".into());
                }
                w
            }
            one => vec![one.to_string()],
        };
        let picked: Vec<Arc<Plugin>> = searchable
            .iter()
            .filter(|p| wanted.iter().any(|w| w == p.source()))
            .cloned()
            .collect();
        if picked.is_empty() && source == "auto" {
            return Ok(searchable);
        }
        Ok(picked)
    }

    /// [`Providers::select`], narrowed to the ready providers (and a
    /// failure for each selected one that is not); an error when none is.
    pub fn select_ready(
        &self,
        source: &str,
        query: &str,
    ) -> Result<(Vec<Arc<Plugin>>, Vec<Failure>), ApiError> {
        let selected = self.select(source, query)?;
        self.ready_of(Want::Search(source.to_string()), selected)
            .map_err(|u| u.error())
    }

    /// The provider that should read `url`, among the ready ones:
    /// `provider` when given; else, by host *and* port, one whose manifest
    /// names it, then one whose configured endpoint it is, then a `web`
    /// provider whose grant covers it, then any provider whose grant covers
    /// it; else a `web` provider (which then says the host:port was not
    /// granted).
    pub fn fetcher(&self, url: &url::Url, provider: Option<&str>) -> Result<Arc<Plugin>, ApiError> {
        if let Some(id) = provider {
            let p = self.host.get(id).ok_or_else(|| {
                ApiError::not_found(format!("no provider {id:?} is installed"))
                    .with_hint("`webrig providers` lists the installed ones")
            })?;
            if p.info.is_some() && !p.does("fetch") {
                return Err(ApiError::invalid(format!("provider {id:?} does not fetch")));
            }
            return self
                .ready_of(Want::Fetch, vec![p])
                .map(|(mut ready, _)| ready.remove(0))
                .map_err(|u| u.error());
        }
        let fetching: Vec<Arc<Plugin>> = self.doing(&["fetch"]);
        let (all, _) = self
            .ready_of(Want::Fetch, fetching)
            .map_err(|u| u.error())?;
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(0);
        // Routed by what each provider was actually granted, so a URL never
        // goes to a plugin that may not reach its host and port.
        let named = all.iter().find(|p| p.access.grants.names_host(host, port));
        // Several providers may be configured on one endpoint (a test site,
        // a local mirror): the one whose configured URL shares the most
        // leading path segments with this one, then the general-purpose
        // `web` reader.
        let configured = || {
            all.iter()
                .filter(|p| p.access.grants.configured_for(host, port))
                .max_by_key(|p| (path_affinity(p, url), p.source() == "web"))
        };
        let web_covers = || {
            all.iter()
                .find(|p| p.source() == "web" && p.access.grants.covers(host, port))
        };
        let covers = || all.iter().find(|p| p.access.grants.covers(host, port));
        let web = || all.iter().find(|p| p.source() == "web");
        named
            .or_else(configured)
            .or_else(web_covers)
            .or_else(covers)
            .or_else(web)
            .or(all.first())
            .cloned()
            .ok_or_else(|| ApiError::internal("a ready fetcher went missing"))
    }
}

/// Leading path segments `url` shares with the closest endpoint `p` was
/// configured with on the same host and port (its folder: a configured
/// `…/shop/search.html` makes `…/shop/` its own).
fn path_affinity(p: &Plugin, url: &url::Url) -> usize {
    let target: Vec<&str> = url
        .path_segments()
        .map(Iterator::collect)
        .unwrap_or_default();
    p.installed
        .manifest
        .capabilities
        .http_from_config
        .iter()
        .filter_map(|key| p.access.settings.get(key))
        .filter_map(|v| url::Url::parse(&v.replace("{query}", "q")).ok())
        .filter(|c| {
            c.host_str() == url.host_str()
                && c.port_or_known_default() == url.port_or_known_default()
        })
        .map(|c| {
            let mut dir: Vec<&str> = c.path_segments().map(Iterator::collect).unwrap_or_default();
            if dir.last().is_some_and(|l| l.contains('.') || l.is_empty()) {
                dir.pop();
            }
            dir.iter().zip(&target).take_while(|(a, b)| a == b).count()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(http: &[&str], from_config: &[&str], browser: BrowserAccess) -> Capabilities {
        Capabilities {
            http: http.iter().map(|s| s.to_string()).collect(),
            http_from_config: from_config.iter().map(|s| s.to_string()).collect(),
            browser,
            cache: false,
        }
    }

    fn grant(http: &[&str], browser: BrowserAccess) -> Grant {
        Grant {
            http: http.iter().map(|s| s.to_string()).collect(),
            browser,
            cache: false,
        }
    }

    fn why(s: &str) -> Unready {
        Unready {
            why: s.into(),
            fix: format!("fix {s}"),
        }
    }

    #[test]
    fn granted_nothing_is_only_when_it_can_reach_nothing() {
        let none = BTreeMap::new();
        let asked = caps(&["a.test", "b.test"], &["base_url"], BrowserAccess::None);
        let out = granted_nothing(&asked, &Grant::default(), &none);
        assert_eq!(out.as_deref(), Some("http to a.test, b.test"));
        // One host, a configured endpoint or the browser is enough.
        assert_eq!(
            granted_nothing(&asked, &grant(&["B.test"], BrowserAccess::None), &none),
            None
        );
        let configured = BTreeMap::from([("base_url".to_string(), "http://x/".to_string())]);
        assert_eq!(
            granted_nothing(&asked, &Grant::default(), &configured),
            None
        );
        let browsing = caps(&["a.test"], &[], BrowserAccess::Read);
        assert_eq!(
            granted_nothing(&browsing, &grant(&[], BrowserAccess::Interact), &none),
            None
        );
        assert_eq!(
            granted_nothing(&browsing, &Grant::default(), &none).as_deref(),
            Some("http to a.test and the browser")
        );
        // A grant for a host it never asked for is no grant.
        assert!(
            granted_nothing(&asked, &grant(&["evil.test"], BrowserAccess::None), &none).is_some()
        );
        // Asking for nothing: it computes on its input.
        assert_eq!(
            granted_nothing(
                &caps(&[], &[], BrowserAccess::None),
                &Grant::default(),
                &none
            ),
            None
        );
    }

    #[test]
    fn verdict_tells_missing_from_not_ready_from_ready() {
        let want = || Want::Search("web".into());
        // Nothing installed.
        let e = verdict::<()>(want(), vec![], vec![], vec![]).expect_err("missing");
        assert_eq!(
            e,
            Unserved::Missing {
                want: want(),
                installed: vec![]
            }
        );
        let err = e.error();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(err.message().contains("no provider is installed"), "{err}");
        assert!(
            err.hint().unwrap_or_default().contains("webrig setup"),
            "{err:?}"
        );
        // Installed, but none for this source.
        let e = verdict::<()>(want(), vec![], vec![], vec!["shop".into()])
            .expect_err("none for web")
            .error();
        assert_eq!(e.code(), ErrorCode::NotFound);
        assert!(
            e.message().contains("search source \"web\"")
                && e.message().contains("installed: shop"),
            "{e}"
        );
        // Installed, not ready: which and why, with the fix; refused ones named too.
        let e = verdict(
            want(),
            vec![("web".into(), (), Some(why("not granted")))],
            vec![("broken".into(), why("refused"))],
            vec!["broken".into(), "web".into()],
        )
        .expect_err("not ready")
        .error_in("@web.search");
        assert_eq!(e.code(), ErrorCode::Unsupported);
        assert_eq!(
            e.message(),
            "@web.search: no provider that can search source \"web\" is ready: \
             web: not granted; broken: refused"
        );
        assert!(
            e.hint()
                .unwrap_or_default()
                .starts_with("fix not granted; fix refused"),
            "{e:?}"
        );
        // One ready: it serves; the other is a failure of its own.
        let (ready, failures) = verdict(
            Want::Fetch,
            vec![
                ("a".into(), 1, Some(why("not granted"))),
                ("b".into(), 2, None),
            ],
            vec![("c".into(), why("refused"))],
            vec![],
        )
        .expect("ready");
        assert_eq!(ready, vec![2]);
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].provider, "a");
        assert_eq!(failures[0].code, FailureCode::Unavailable);
    }

    #[test]
    fn wants_read_as_what_was_asked() {
        assert_eq!(Want::Search("auto".into()).describe(), "search");
        assert_eq!(
            Want::Search("shopping".into()).describe(),
            "search source \"shopping\""
        );
        assert_eq!(
            Want::Search("hello".into()).describe(),
            "search as provider \"hello\""
        );
        assert_eq!(Want::Fetch.describe(), "fetch pages");
    }
}

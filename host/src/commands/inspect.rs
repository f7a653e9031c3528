//! `inspect` (the session on one screen) and `debug bundle` (everything
//! about a tab in one folder, to attach to a bug report or read later).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::devtools::{is_failed, request_line};
use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::browser::Tab;
use crate::browser::capture::{self, Area, ImageFormat};
use crate::browser::devtools::entry::Request;
use crate::browser::devtools::{self, ConsoleEntry, Emulation, PageError, redact};
use crate::browser::session::TabInfo;
use crate::browser::signals;
use crate::browser::snapshot;
use crate::error::ApiError;

/// What went wrong lately on one tab, masked.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TabHealth {
    pub id: String,
    /// Console messages at level error, and the newest few.
    pub console_errors: usize,
    pub recent_console_errors: Vec<ConsoleEntry>,
    pub errors: usize,
    pub recent_errors: Vec<PageError>,
    pub failed_requests: usize,
    pub recent_failed_requests: Vec<Request>,
    /// Requests still waiting for an answer.
    pub pending_requests: usize,
    /// The last actions run on the tab, oldest first.
    pub last_actions: Vec<String>,
    pub recording_har: bool,
    /// A dialog open on the tab (it blocks the page until answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<crate::browser::tab::Dialog>,
    /// The challenge the tab's page was last found to be (a bot check, a
    /// block, a one-time-code login step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<signals::Challenge>,
}

/// Whether the browser looks coherent, and how sites are answering it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SignalsOut {
    /// Where the user agent, platform, languages, Accept-Language, time
    /// zone, locale, geolocation and proxy exit disagree.
    pub warnings: Vec<signals::Warning>,
    /// Per site (registrable host): documents, 403/429/503 answers,
    /// challenges, redirect loops, and a 0-100 score.
    pub health: signals::health::Summary,
}

const RECENT: usize = 3;

/// The newest `RECENT` of `items` (oldest first), shown masked unless
/// `reveal`.
fn recent<'a, T: Clone + 'a>(
    items: impl DoubleEndedIterator<Item = &'a T>,
    reveal: bool,
    redact: fn(&mut T),
) -> Vec<T> {
    let mut newest: Vec<T> = items.rev().take(RECENT).cloned().collect();
    newest.reverse();
    if !reveal {
        newest.iter_mut().for_each(redact);
    }
    newest
}

fn health(tab: &Tab, reveal: bool) -> TabHealth {
    let d = tab.devtools();
    let rings = d.rings();
    let console_errors = || rings.console.iter().filter(|e| e.level == "error");
    let failed = || rings.network.iter().filter(|r| is_failed(r));
    TabHealth {
        id: tab.id().to_string(),
        console_errors: console_errors().count(),
        recent_console_errors: recent(console_errors(), reveal, redact::console),
        errors: rings.errors.len(),
        recent_errors: recent(rings.errors.iter(), reveal, redact::error),
        failed_requests: failed().count(),
        recent_failed_requests: recent(failed(), reveal, redact::request),
        pending_requests: rings.network.iter().filter(|r| r.pending).count(),
        last_actions: d.actions(),
        recording_har: rings.har_from.is_some(),
        dialog: tab.dialog(),
        challenge: d.shared.signals.tab_challenge(tab.cdp().id()).map(|mut c| {
            if !reveal {
                c.url = redact::url(&c.url);
            }
            c
        }),
    }
}

/// The session on one screen: tabs, dialogs, errors, failed requests, last
/// actions, routes, emulation, downloads.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Inspect {
    /// Show secrets (tokens in tab URLs and titles, in errors and requests)
    /// instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct InspectOut {
    pub session: String,
    /// `none`, `launched`, `connected` or `gone`.
    pub browser: String,
    pub tabs: Vec<TabInfo>,
    pub health: Vec<TabHealth>,
    pub routes: usize,
    pub emulation: Emulation,
    pub downloads: usize,
    pub downloads_in_progress: usize,
    pub capture: bool,
    pub signals: SignalsOut,
    /// The domain policy the session's pages are held to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<crate::browser::policy::PolicyInfo>,
    /// The proxy its browser goes through (never its credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<crate::browser::proxy::ProxyInfo>,
}

impl Command for Inspect {
    const NAME: &'static str = "inspect";
    const ABOUT: &'static str =
        "Summarize the session: tabs, dialogs, errors, failed requests, last actions";
    const SCOPE: Scope = Scope::Session;
    const READ_ONLY: bool = true;
    type Output = InspectOut;

    async fn run(self, mut cx: Cx) -> Result<InspectOut, ApiError> {
        let capture = cx.state().limits().devtools.capture;
        let session = cx.session()?;
        let info = session.info();
        let shared = session.devtools().clone();
        let mut tabs = if session.has_browser() {
            session.list_tabs().await?
        } else {
            Vec::new()
        };
        let all = session.all_tabs();
        let active = tabs.iter().find(|t| t.active).map(|t| t.id.clone());
        if let Some(tab) = all.iter().find(|t| Some(t.id()) == active.as_deref()) {
            shared.signals.refresh(tab).await;
        }
        if !self.reveal {
            tabs.iter_mut().for_each(redact::tab);
        }
        let mut site_health = shared.signals.health();
        if !self.reveal {
            for s in &mut site_health.sites {
                if let Some(c) = &mut s.last_challenge {
                    c.url = redact::url(&c.url);
                }
            }
        }
        let health = all.iter().map(|t| health(t, self.reveal)).collect();
        let downloads = shared.downloads.list();
        Ok(InspectOut {
            session: info.name,
            browser: info.browser,
            tabs,
            health,
            routes: shared.routes().len(),
            emulation: shared.emulation(),
            downloads: downloads.len(),
            downloads_in_progress: downloads
                .iter()
                .filter(|d| d.state == "in_progress")
                .count(),
            capture,
            signals: SignalsOut {
                warnings: shared.signals.warnings(&shared.emulation()),
                health: site_health,
            },
            policy: info.policy,
            proxy: info.proxy,
        })
    }

    fn human(out: &InspectOut) -> String {
        let mut l = vec![format!(
            "session {} — browser {}, {} tabs",
            out.session,
            out.browser,
            out.tabs.len()
        )];
        for t in &out.tabs {
            let mark = if t.active { "*" } else { " " };
            l.push(format!("{mark}{} {} — {}", t.id, t.title, t.url));
            let Some(h) = out.health.iter().find(|h| h.id == t.id) else {
                continue;
            };
            if let Some(d) = &h.dialog {
                l.push(format!("    dialog open: {} {:?}", d.kind, d.message));
            }
            l.push(format!(
                "    {} console errors, {} page errors, {} failed requests, {} pending{}",
                h.console_errors,
                h.errors,
                h.failed_requests,
                h.pending_requests,
                if h.recording_har {
                    ", recording HAR"
                } else {
                    ""
                }
            ));
            for e in &h.recent_errors {
                l.push(format!("    error: {}", e.message));
            }
            for e in &h.recent_console_errors {
                l.push(format!("    console: {}", e.text));
            }
            for r in &h.recent_failed_requests {
                l.push(format!("    {}", request_line(r)));
            }
            for a in &h.last_actions {
                l.push(format!("    did: {a}"));
            }
            if let Some(c) = &h.challenge {
                l.push(format!("    challenge: {} at {}", c.kind.as_str(), c.url));
            }
        }
        if !out.capture {
            l.push("capture is off ([devtools] capture = false)".into());
        }
        let emulation = serde_json::to_value(&out.emulation).unwrap_or_default();
        let set: Vec<String> = emulation
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| !(k.as_str() == "offline" && **v == false))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !set.is_empty() {
            l.push(format!("emulating: {}", set.join(", ")));
        }
        if let Some(policy) = &out.policy {
            l.push(format!("policy: {}", policy.human()));
        }
        if let Some(proxy) = &out.proxy {
            l.push(format!("proxy: {}", proxy.human()));
        }
        for w in &out.signals.warnings {
            l.push(format!("warning: {}", w.message));
        }
        for s in &out.signals.health.sites {
            l.push(format!(
                "site {}: health {}/100, {} documents, {} × 403, {} × 429, {} × 503, {} challenges, {} redirect loops",
                s.site, s.score, s.documents, s.status_403, s.status_429, s.status_503,
                s.challenges, s.redirect_loops
            ));
        }
        l.push(format!(
            "{} routes, {} downloads ({} in progress)",
            out.routes, out.downloads, out.downloads_in_progress
        ));
        l.join("\n")
    }
}

/// Write url, title, snapshot, screenshot, console, errors and network of
/// the tab into one new folder.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DebugBundle {
    /// The folder to create (default: a new one in the artifacts folder).
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Keep secrets (header values, URL tokens) instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct BundleOut {
    pub path: PathBuf,
    pub files: Vec<String>,
    /// Parts that could not be captured, and why (the rest is written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl Command for DebugBundle {
    const NAME: &'static str = "debug bundle";
    const ABOUT: &'static str =
        "Save url, title, snapshot, screenshot, console, errors and network to a folder";
    const SCOPE: Scope = Scope::Tab;
    type Output = BundleOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<BundleOut, ApiError> {
        let dir = super::capture::destination(&cx, self.path, "debug", "")?;
        let tab = cx.tab().await?;
        // One mkdir, before the work (a refused path costs nothing); every
        // file goes in through the folder's descriptor, so a symlink swapped
        // in later redirects nothing.
        let folder = crate::artifacts::PrivateDir::create_new(&dir)?;
        let mut missing = Vec::new();
        let page = tab
            .eval("({ url: location.href, title: document.title, width: innerWidth, height: innerHeight })")
            .await
            .unwrap_or_else(|e| {
                missing.push(format!("page: {}", e.message()));
                serde_json::Value::Null
            });
        let snap = snapshot::snapshot(&tab, &snapshot::Options::default()).await;
        let shot = capture::screenshot(&tab, Area::Viewport, ImageFormat::Png, None).await;
        let (mut console, mut errors, mut network) = {
            let rings = tab.devtools().rings();
            (
                rings.console.iter().cloned().collect::<Vec<_>>(),
                rings.errors.iter().cloned().collect::<Vec<_>>(),
                rings.network.iter().cloned().collect::<Vec<_>>(),
            )
        };
        let mut page = page;
        let mut snap = snap;
        if !self.reveal {
            console.iter_mut().for_each(redact::console);
            errors.iter_mut().for_each(redact::error);
            network.iter_mut().for_each(redact::request);
            if let Some(u) = page["url"].as_str() {
                page["url"] = redact::url(u).into();
            }
            if let Some(t) = page["title"].as_str() {
                page["title"] = redact::text(t).into();
            }
            // The outline holds the page's URL, link targets and text.
            if let Ok(s) = &mut snap {
                s.text = redact::text(&s.text);
            }
        }
        page["tab"] = tab.id().into();
        page["actions"] = tab.devtools().actions().into();
        page["time"] = devtools::har::iso8601(devtools::rings::now_epoch()).into();

        let mut files = Vec::new();
        let mut put = |name: &str, bytes: &[u8]| -> Result<(), ApiError> {
            folder.write_new(name, bytes)?;
            files.push(name.to_string());
            Ok(())
        };
        put("page.json", &pretty(&page))?;
        match snap {
            Ok(s) => put("snapshot.txt", s.text.as_bytes())?,
            Err(e) => missing.push(format!("snapshot: {}", e.message())),
        }
        match shot {
            Ok(png) => put("screenshot.png", &png)?,
            Err(e) => missing.push(format!("screenshot: {}", e.message())),
        }
        put("console.json", &pretty(&console))?;
        put("errors.json", &pretty(&errors))?;
        put("network.json", &pretty(&network))?;
        Ok(BundleOut {
            path: dir,
            files,
            missing,
        })
    }

    fn human(out: &BundleOut) -> String {
        let mut s = format!("{}: {}", out.path.display(), out.files.join(", "));
        for m in &out.missing {
            s.push_str(&format!("\nmissing {m}"));
        }
        s
    }
}

fn pretty<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(v).unwrap_or_default()
}

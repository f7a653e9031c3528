//! `webrig setup`: installs, or upgrades, the first-party providers and
//! workflows this webrig carries (`crate::plugins::first_party`). Each goes
//! through `plugin install`'s own path ([`install_source`]): manifest
//! checks, its sha256 recorded, compiled and described before anything
//! installed is touched, then the user's grant.
//!
//! Consent is all or nothing and shown once: what every plugin asks for is
//! listed, and nothing is installed without `--yes` or a "y" at the prompt.
//! An upgrade that asks for nothing its installed version did not keeps the
//! user's grant as it is (revocations included) and needs no consent. A
//! plugin of the same id that the user installed is never replaced.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::plugins::{describe_asks, host, install_source, needs_grant, registry_error};
use super::{Command, Cx, Scope};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::first_party::{self, Embedded};
use crate::plugins::grants::Grant;
use crate::plugins::manifest::{BrowserAccess, Capabilities, Kind, Manifest};
use crate::plugins::registry::Installed;

/// Install the first-party providers and workflows this webrig carries
/// (shows what they ask for once; --yes grants it).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Install them and grant what they ask for without asking (scripts, CI).
    #[arg(long)]
    #[serde(default)]
    pub yes: bool,
    /// Only say what would be installed, upgraded or left alone.
    #[arg(long)]
    #[serde(default)]
    pub dry_run: bool,
    /// What the user approved at the prompt, by plugin id (the CLI sets it):
    /// nothing is installed if a plugin asks for anything else.
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<BTreeMap<String, Capabilities>>,
}

/// What `setup` did, per first-party plugin.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SetupReport {
    pub plugins: Vec<SetupItem>,
    /// Every first-party plugin is installed and ready.
    pub ready: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SetupItem {
    pub id: String,
    pub kind: Kind,
    pub version: String,
    pub action: Action,
    /// What it asks for, in words.
    pub asks: Vec<String>,
    /// What it is granted now.
    pub granted: Vec<String>,
    /// Why it was left alone, or why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Installed,
    Upgraded,
    /// The installed bytes are the ones this webrig carries.
    Unchanged,
    /// A plugin the user installed has the same id.
    Skipped,
    Failed,
    /// `--dry-run`: what a run would do.
    WouldInstall,
    WouldUpgrade,
}

/// One plugin's step, decided before anything is installed.
struct Step {
    embedded: &'static Embedded,
    manifest: Manifest,
    action: Action,
    /// The grant it gets (install, upgrade) or has.
    grant: Grant,
    /// Needs the user's consent: it asks for something not granted before.
    consent: bool,
    note: Option<String>,
}

impl Command for Setup {
    const NAME: &'static str = "setup";
    const ABOUT: &'static str = "Install the first-party providers and workflows this webrig \
         carries, or upgrade them (shows what they ask for; --yes grants it)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = SetupReport;

    fn prepare(&mut self) -> Result<(), ApiError> {
        use std::io::{BufRead, IsTerminal, Write};
        if self.yes || self.dry_run || !std::io::stdin().is_terminal() {
            return Ok(());
        }
        let carried = carried()?;
        let mut err = std::io::stderr();
        let _ = writeln!(
            err,
            "webrig setup installs the first-party plugins this webrig carries \
             (upgrades keep your grants):"
        );
        for (_, m) in &carried {
            let asks = asks_in_words(&m.capabilities);
            let _ = writeln!(
                err,
                "  {} {} ({}): {asks}",
                m.id,
                m.version,
                m.kind.as_str()
            );
        }
        let _ = write!(err, "Install them and grant what they ask for? [y/N] ");
        let _ = err.flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES") {
            return Err(ApiError::invalid("nothing was installed")
                .with_hint("webrig setup --yes installs them without asking"));
        }
        self.approved = Some(
            carried
                .into_iter()
                .map(|(_, m)| (m.id, m.capabilities))
                .collect(),
        );
        Ok(())
    }

    async fn run(self, cx: Cx) -> Result<SetupReport, ApiError> {
        let carried = carried()?;
        let host = host(&cx).await?;
        let registry = host.registry().clone();
        let mut steps = Vec::new();
        for (embedded, manifest) in carried {
            // A folder of that id that does not read back is not ours to
            // judge: installing over it fails, and the step says why.
            let installed = registry.get(&manifest.id).ok();
            steps.push(plan(embedded, manifest, installed.as_ref()));
        }
        if let Some(approved) = &self.approved {
            for s in steps.iter().filter(|s| s.consent) {
                if approved.get(&s.manifest.id) != Some(&s.manifest.capabilities) {
                    return Err(ApiError::new(
                        ErrorCode::Forbidden,
                        format!(
                            "{} asks for other things than you approved; nothing was installed",
                            s.manifest.id
                        ),
                    ));
                }
            }
        }
        let consented = self.yes || self.approved.is_some();
        let wanting: Vec<&Step> = steps.iter().filter(|s| s.consent).collect();
        if !consented && !self.dry_run && !wanting.is_empty() {
            let list: Vec<String> = wanting
                .iter()
                .map(|s| {
                    format!(
                        "\n  {} {} ({}) asks for {}",
                        s.manifest.id,
                        s.manifest.version,
                        s.manifest.kind.as_str(),
                        asks_in_words(&s.manifest.capabilities)
                    )
                })
                .collect();
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "nothing was installed: the first-party plugins ask for what only you can \
                     grant:{}",
                    list.concat()
                ),
            )
            .with_hint(
                "run `webrig setup --yes` to install them and grant that, or `webrig setup` \
                 at a terminal to be asked",
            ));
        }
        let mut items: Vec<SetupItem> = Vec::new();
        for step in steps {
            items.push(execute(&cx, &host, step, self.dry_run).await);
        }
        // Ready: each one is installed by setup and loads (an unchanged one
        // that a grant or config change broke says why).
        for item in items.iter_mut().filter(|i| i.action == Action::Unchanged) {
            if let Some(Err(why)) = host.get(&item.id).map(|p| p.ready().map(drop)) {
                item.note = Some(format!("installed but not ready: {why}"));
            }
        }
        let ready = !self.dry_run
            && items.iter().all(|i| {
                i.note
                    .as_deref()
                    .is_none_or(|n| !n.starts_with("installed but"))
                    && matches!(
                        i.action,
                        Action::Installed | Action::Upgraded | Action::Unchanged
                    )
            });
        Ok(SetupReport {
            plugins: items,
            ready,
        })
    }

    fn human(out: &SetupReport) -> String {
        let mut lines = Vec::new();
        for i in &out.plugins {
            let action = serde_json::to_value(i.action)
                .ok()
                .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
                .unwrap_or_default();
            let mut line = format!("{action} {} {} ({})", i.id, i.version, i.kind.as_str());
            if let Some(note) = &i.note {
                line.push_str(&format!(": {note}"));
            }
            lines.push(line);
            let verb = match i.action {
                Action::WouldInstall | Action::WouldUpgrade => "would grant",
                _ => "granted",
            };
            for g in &i.granted {
                lines.push(format!("  {verb} {g}"));
            }
        }
        if out.ready {
            lines.push(
                "ready: try webrig search \"rust wasm\", webrig fetch URL, \
                 webrig run workflow research --topic T"
                    .into(),
            );
        }
        lines.join("\n")
    }

    fn failed(out: &SetupReport) -> bool {
        out.plugins.iter().any(|i| i.action == Action::Failed)
    }
}

/// Every plugin this webrig carries, with its manifest; an error with the
/// way out when it carries none.
fn carried() -> Result<Vec<(&'static Embedded, Manifest)>, ApiError> {
    if first_party::all().is_empty() {
        return Err(
            ApiError::new(ErrorCode::Unsupported, first_party::NOT_BUILT)
                .with_hint(first_party::NOT_BUILT_HINT),
        );
    }
    first_party::all()
        .iter()
        .map(|e| Ok((e, e.manifest().map_err(registry_error)?)))
        .collect()
}

/// What to do with one carried plugin, given what is installed.
fn plan(embedded: &'static Embedded, manifest: Manifest, installed: Option<&Installed>) -> Step {
    let fresh = Grant::all_of(&manifest.capabilities);
    let step = |action, grant, consent, note: Option<String>| Step {
        embedded,
        manifest: manifest.clone(),
        action,
        grant,
        consent,
        note,
    };
    match installed {
        None => {
            let consent = !needs_grant(&manifest.capabilities).is_empty();
            step(Action::Installed, fresh, consent, None)
        }
        Some(old) if !old.first_party => step(
            Action::Skipped,
            old.grant.clone(),
            false,
            Some(format!(
                "a plugin you installed is called {0}; left alone (webrig plugin remove {0}, \
                 then webrig setup, to use the first-party one)",
                manifest.id
            )),
        ),
        Some(old) if old.manifest.sha256.as_deref() == Some(embedded.sha256) => {
            step(Action::Unchanged, old.grant.clone(), false, None)
        }
        Some(old) => {
            let new = asks_beyond(&manifest.capabilities, &old.manifest.capabilities);
            let note = Some(format!("from {}", old.manifest.version));
            match new {
                // Nothing new asked: the user's grant stays as it is.
                None => step(Action::Upgraded, old.grant.clone(), false, note),
                Some(more) => step(Action::Upgraded, widen(&old.grant, &more), true, note),
            }
        }
    }
}

/// What `new` asks for that `old` did not, if anything.
fn asks_beyond(new: &Capabilities, old: &Capabilities) -> Option<Capabilities> {
    let http: Vec<String> = new
        .http
        .iter()
        .filter(|h| !old.http.iter().any(|o| o.eq_ignore_ascii_case(h)))
        .cloned()
        .collect();
    let browser = if new.browser != BrowserAccess::None && new.browser != old.browser {
        new.browser
    } else {
        BrowserAccess::None
    };
    let cache = new.cache && !old.cache;
    let more = Capabilities {
        http,
        http_from_config: Vec::new(),
        browser,
        cache,
    };
    (!needs_grant(&more).is_empty()).then_some(more)
}

/// The user's grant plus what an upgrade newly asks for.
fn widen(grant: &Grant, more: &Capabilities) -> Grant {
    let mut out = grant.clone();
    out.http.extend(more.http.iter().cloned());
    if more.browser != BrowserAccess::None {
        out.browser = more.browser;
    }
    out.cache |= more.cache;
    out
}

/// What a manifest asks for, on one line.
fn asks_in_words(c: &Capabilities) -> String {
    let asks = needs_grant(c);
    if asks.is_empty() {
        "nothing beyond the installed providers".into()
    } else {
        asks.join("; ")
    }
}

async fn execute(
    cx: &Cx,
    host: &std::sync::Arc<crate::plugins::PluginHost>,
    step: Step,
    dry_run: bool,
) -> SetupItem {
    let m = &step.manifest;
    let mut item = SetupItem {
        id: m.id.clone(),
        kind: m.kind,
        version: m.version.clone(),
        action: step.action,
        asks: describe_asks(&m.capabilities, &m.id, &Default::default()),
        granted: Vec::new(),
        note: step.note.clone(),
    };
    let grant_words = |g: &Grant| needs_grant(&g.as_capabilities(&[]));
    if !matches!(step.action, Action::Installed | Action::Upgraded) {
        item.granted = grant_words(&step.grant);
        return item;
    }
    if dry_run {
        item.action = match step.action {
            Action::Installed => Action::WouldInstall,
            _ => Action::WouldUpgrade,
        };
        item.granted = grant_words(&step.grant);
        return item;
    }
    let replace = step.action == Action::Upgraded;
    let source = match step.embedded.source() {
        Ok(s) => s,
        Err(e) => return failed(item, registry_error(e)),
    };
    match install_source(cx, host, source, step.grant, replace).await {
        Ok(view) => {
            item.granted = grant_words(&view.granted);
            item
        }
        Err(e) => failed(item, e),
    }
}

fn failed(mut item: SetupItem, e: ApiError) -> SetupItem {
    item.action = Action::Failed;
    item.note = Some(e.message().to_string());
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(http: &[&str], cache: bool) -> Capabilities {
        Capabilities {
            http: http.iter().map(|s| s.to_string()).collect(),
            http_from_config: Vec::new(),
            browser: BrowserAccess::None,
            cache,
        }
    }

    #[test]
    fn an_upgrade_asks_only_for_what_is_new() {
        let old = caps(&["a.example"], false);
        assert!(asks_beyond(&caps(&["A.example"], false), &old).is_none());
        assert!(asks_beyond(&caps(&[], false), &old).is_none());
        let more = asks_beyond(&caps(&["a.example", "b.example"], true), &old).expect("new");
        assert_eq!(more.http, ["b.example"]);
        assert!(more.cache);
    }

    #[test]
    fn widening_keeps_what_the_user_revoked_revoked() {
        // The user revoked a.example; the upgrade newly asks for b.example.
        let grant = Grant {
            http: vec![],
            browser: BrowserAccess::None,
            cache: false,
        };
        let more = caps(&["b.example"], false);
        let g = widen(&grant, &more);
        assert_eq!(g.http, ["b.example"]);
        assert!(!g.cache);
    }
}

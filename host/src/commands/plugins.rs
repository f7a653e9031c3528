//! Plugin commands: install, list, info, remove, verify, grant, revoke.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::grants::Grant;
use crate::plugins::manifest::{BrowserAccess, Capabilities, Kind};
use crate::plugins::registry::{RegistryError, Source};
use crate::plugins::{Plugin, PluginHost, first_party, wit};

/// A plugin as the commands show it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PluginView {
    pub id: String,
    pub version: String,
    pub kind: Kind,
    /// The WIT version it was built against, and what this webrig accepts.
    pub wit: WitView,
    pub description: String,
    pub sha256: Option<String>,
    pub dir: String,
    /// What its manifest asks for.
    pub asks: Capabilities,
    /// What the user granted.
    pub granted: Grant,
    /// Installed by `webrig setup` from the plugins this webrig carries.
    pub first_party: bool,
    /// This webrig carries another build of it (first-party only): the
    /// version `webrig setup` would install.
    pub upgrade: Option<String>,
    /// Loaded and callable.
    pub ready: bool,
    /// Why it is not ready.
    pub error: Option<String>,
    /// For providers: their source (web, community, social, shopping).
    pub source: Option<String>,
    pub operations: Vec<String>,
    /// Hosts it may reach because config.toml names them (`[plugins.<id>]`
    /// keys its manifest lists in `http_from_config`), key → `host:port`.
    /// They stay reachable whatever is revoked, until the setting goes.
    pub endpoints: std::collections::BTreeMap<String, String>,
}

/// A plugin's WIT version and the versions this webrig accepts for its kind.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WitView {
    /// The version it was built against (plugin.toml `wit`).
    pub built: String,
    /// The versions this webrig runs plugins of its kind against, oldest
    /// first.
    pub accepts: Vec<String>,
    /// The same as a range: `0.1.0`, `0.1.0 to 0.3.0`, or `none`.
    pub range: String,
}

impl WitView {
    fn of(kind: Kind, built: &str) -> WitView {
        WitView {
            built: built.to_string(),
            accepts: wit::accepted(kind).iter().map(|v| v.to_string()).collect(),
            range: wit::range(kind),
        }
    }
}

impl PluginView {
    fn of(p: &Plugin) -> PluginView {
        let m = &p.installed.manifest;
        let ready = p.ready().map(drop);
        PluginView {
            id: m.id.clone(),
            version: m.version.clone(),
            kind: m.kind,
            wit: WitView::of(m.kind, &m.wit),
            description: m.description.clone(),
            sha256: m.sha256.clone(),
            dir: p.installed.dir.display().to_string(),
            asks: m.capabilities.clone(),
            granted: p.installed.grant.clone(),
            first_party: p.installed.first_party,
            upgrade: upgrade_for(&p.installed),
            ready: ready.is_ok(),
            error: ready.err(),
            source: p.info.as_ref().map(|_| p.source().to_string()),
            operations: p.operations().to_vec(),
            endpoints: endpoints(&m.capabilities, &p.access.settings),
        }
    }

    pub(crate) fn line(&self) -> String {
        let state = match &self.error {
            None => "ready".to_string(),
            Some(e) => format!("REFUSED: {e}"),
        };
        let kind = format!("{:?}", self.kind).to_lowercase();
        let source = self
            .source
            .as_ref()
            .map(|s| format!(", {s}"))
            .unwrap_or_default();
        let first_party = if self.first_party {
            ", first-party"
        } else {
            ""
        };
        let upgrade = self
            .upgrade
            .as_ref()
            .map(|v| format!(" (webrig setup upgrades it to this webrig's {v})"))
            .unwrap_or_default();
        format!(
            "{} {} ({kind}{source}{first_party}) — {state}{upgrade}",
            self.id, self.version
        )
    }
}

/// The version this webrig carries of an installed first-party plugin,
/// when its bytes differ from what is installed.
pub(super) fn upgrade_for(installed: &crate::plugins::registry::Installed) -> Option<String> {
    if !installed.first_party {
        return None;
    }
    let carried = first_party::find(&installed.manifest.id)?;
    if installed.manifest.sha256.as_deref() == Some(carried.sha256) {
        return None;
    }
    carried.manifest().ok().map(|m| m.version)
}

/// The `host:port` each `http_from_config` key names in `settings`.
pub fn endpoints(
    c: &Capabilities,
    settings: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    c.http_from_config
        .iter()
        .filter_map(|k| {
            let url = url::Url::parse(&settings.get(k)?.replace("{query}", "q")).ok()?;
            let host = url.host_str()?.to_string();
            let port = url.port_or_known_default()?;
            Some((k.clone(), format!("{host}:{port}")))
        })
        .collect()
}

/// What a manifest asks for, in words; configured endpoints as they are now.
pub fn describe_asks(
    c: &Capabilities,
    id: &str,
    endpoints: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = needs_grant(c);
    for k in &c.http_from_config {
        out.push(match endpoints.get(k) {
            Some(at) => format!("http: {at} (your [plugins.{id}] {k}; config.toml is the consent)"),
            None => format!("http: the host you set in [plugins.{id}] {k} (not set)"),
        });
    }
    out
}

/// What needs the user's grant: everything but configured endpoints
/// (writing config.toml is the consent for those).
pub(super) fn needs_grant(c: &Capabilities) -> Vec<String> {
    let mut out = Vec::new();
    for h in &c.http {
        if h == "*" {
            out.push("http: any public web host (never loopback or private addresses)".into());
        } else {
            out.push(format!("http: {h}"));
        }
    }
    if c.browser != BrowserAccess::None {
        out.push(format!("browser: {:?}", c.browser).to_lowercase());
    }
    if c.cache {
        out.push("cache: a private key/value store".into());
    }
    out
}

/// Whether `grant` already covers everything `c` asks for (a `--replace`
/// that asks for nothing new needs no new consent).
fn covered_by(c: &Capabilities, grant: &Grant) -> bool {
    c.http
        .iter()
        .all(|h| grant.http.iter().any(|g| g.eq_ignore_ascii_case(h)))
        && (c.browser == BrowserAccess::None || grant.browser == c.browser)
        && (!c.cache || grant.cache)
}

pub(super) fn registry_error(e: RegistryError) -> ApiError {
    let code = match &e {
        RegistryError::NotFound(_) => ErrorCode::NotFound,
        RegistryError::Invalid(_) | RegistryError::Exists(_) => ErrorCode::InvalidArgument,
        RegistryError::Tampered(_) => ErrorCode::Forbidden,
        RegistryError::Io(_) => ErrorCode::Internal,
    };
    let hint = match &e {
        RegistryError::Exists(_) => Some("add --replace to install over it"),
        RegistryError::NotFound(_) => Some("see webrig plugin list"),
        _ => None,
    };
    let err = ApiError::new(code, e.to_string());
    match hint {
        Some(h) => err.with_hint(h),
        None => err,
    }
}

pub(super) async fn host(cx: &Cx) -> Result<std::sync::Arc<PluginHost>, ApiError> {
    Ok(cx.state().providers().await?.host().clone())
}

/// Reloads one plugin off the async workers (loading runs guest code) and
/// resets its breaker: a new component, grant or config is a new chance.
async fn reload(cx: &Cx, id: &str) -> Result<(), ApiError> {
    let providers = cx.state().providers().await?;
    let id = id.to_string();
    tokio::task::spawn_blocking(move || drop(providers.reload(Some(&id))))
        .await
        .map_err(|e| ApiError::internal(format!("loading: {e}")))
}

fn view(host: &PluginHost, id: &str) -> Result<PluginView, ApiError> {
    host.get(id)
        .map(|p| PluginView::of(&p))
        .ok_or_else(|| registry_error(RegistryError::NotFound(id.to_string())))
}

/// Install a plugin from a folder, its plugin.toml, or a .wasm (with
/// --manifest). Shows what it asks for; --grant grants it.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginInstall {
    /// A plugin folder, its plugin.toml, or a .wasm component.
    pub path: PathBuf,
    /// The manifest, when PATH is a .wasm without a plugin.toml beside it.
    #[arg(long)]
    #[serde(default)]
    pub manifest: Option<PathBuf>,
    /// Grant everything the manifest asks for (without it, a plugin that asks
    /// for anything is not installed unless you answer yes at the prompt).
    #[arg(long)]
    #[serde(default)]
    pub grant: bool,
    /// Replace an installed plugin with the same id.
    #[arg(long)]
    #[serde(default)]
    pub replace: bool,
    /// The capabilities the user approved (the CLI sets it after the
    /// prompt): nothing is installed if the manifest asks for anything else
    /// by the time the daemon reads it.
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<Capabilities>,
}

impl Command for PluginInstall {
    const NAME: &'static str = "plugin install";
    const ABOUT: &'static str =
        "Install a WebAssembly plugin (shows what it asks for; --grant grants it)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = PluginView;

    fn prepare(&mut self) -> Result<(), ApiError> {
        let mut path = Some(self.path.clone());
        absolutize(&mut path)?;
        self.path = path.unwrap_or_default();
        absolutize(&mut self.manifest)?;
        if self.grant {
            return Ok(());
        }
        // At a terminal, show what the plugin asks for and ask.
        use std::io::{BufRead, IsTerminal, Write};
        if !std::io::stdin().is_terminal() {
            return Ok(());
        }
        let source =
            Source::resolve(&self.path, self.manifest.as_deref()).map_err(registry_error)?;
        let asks = needs_grant(&source.manifest.capabilities);
        if asks.is_empty() {
            return Ok(());
        }
        let mut err = std::io::stderr();
        let _ = writeln!(
            err,
            "{} {} asks for:",
            source.manifest.id, source.manifest.version
        );
        for a in &asks {
            let _ = writeln!(err, "  - {a}");
        }
        let _ = write!(err, "Grant all of it? [y/N] ");
        let _ = err.flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        self.grant = matches!(answer.trim(), "y" | "Y" | "yes" | "YES");
        if self.grant {
            self.approved = Some(source.manifest.capabilities.clone());
        }
        Ok(())
    }

    async fn run(self, cx: Cx) -> Result<PluginView, ApiError> {
        cx.require_local_files("plugin install")?;
        let host = host(&cx).await?;
        let source =
            Source::resolve(&self.path, self.manifest.as_deref()).map_err(registry_error)?;
        if let Some(approved) = &self.approved
            && approved != &source.manifest.capabilities
        {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{} changed what it asks for after you approved it; nothing was installed",
                    source.manifest.id
                ),
            ));
        }
        let asks = needs_grant(&source.manifest.capabilities);
        // A --replace that asks for nothing beyond what is granted keeps
        // the user's earlier consent.
        let consented = self.grant
            || (self.replace
                && host
                    .registry()
                    .get(&source.manifest.id)
                    .is_ok_and(|old| covered_by(&source.manifest.capabilities, &old.grant)));
        if !asks.is_empty() && !consented {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{} asks for {}; nothing was installed",
                    source.manifest.id,
                    asks.join("; ")
                ),
            )
            .with_hint("rerun with --grant to grant what it asks for"));
        }
        let grant = Grant::all_of(&source.manifest.capabilities);
        install_source(&cx, &host, source, grant, self.replace).await
    }

    fn human(v: &PluginView) -> String {
        let mut out = format!("installed {}", v.line());
        let granted = v.granted.as_capabilities(&v.asks.http_from_config);
        for a in describe_asks(&granted, &v.id, &v.endpoints) {
            out.push_str(&format!("\n  granted {a}"));
        }
        out
    }
}

/// Installs a resolved plugin with `grant`: compiled, linked and asked who
/// it is before anything installed is touched (a bad component, or a failed
/// `replace`, leaves the old one working), then loaded. `plugin install`
/// and `setup` both come here.
pub(super) async fn install_source(
    cx: &Cx,
    host: &std::sync::Arc<PluginHost>,
    source: Source,
    grant: Grant,
    replace: bool,
) -> Result<PluginView, ApiError> {
    // Checked when plugin.toml was read (an adapter, which no version
    // runs yet, stops there).
    let version = source
        .manifest
        .wit_version()
        .map_err(|e| ApiError::invalid(format!("plugin.toml: field `wit`: {e}")))?;
    let id = source.manifest.id.clone();
    let registry = host.registry().clone();
    let checker = host.clone();
    // Compiled, linked and asked who it is before anything installed is
    // touched, so a bad component (or a failed --replace) leaves the old
    // one working. Its describe() must give the manifest's id: routing,
    // grants and settings are all keyed by it.
    let kind = source.manifest.kind;
    let (caps, mut limits) = (
        source.manifest.capabilities.clone(),
        source.manifest.limits.clone(),
    );
    limits.time_ms = limits.time_ms.min(2000);
    let installed = tokio::task::spawn_blocking(move || {
        registry
            .install(&source, grant, replace, |bytes, sha| {
                let runtime = checker.runtime();
                let loaded = runtime
                    .load(bytes, sha, kind, version)
                    .map_err(|e| e.to_string())?;
                let access = crate::plugins::host::Access::new(
                    crate::plugins::grants::Effective::new(&caps, &Grant::default()),
                    Default::default(),
                );
                let said = match kind {
                    Kind::Workflow => crate::plugins::described::describe_workflow(
                        runtime, &loaded, &limits, &access,
                    )
                    .and_then(|w| crate::workflows::check_declaration(&w).map(|()| w))
                    .map(|w| w.id),
                    _ => runtime
                        .describe(&loaded, &limits, &access)
                        .map(|i| i.id)
                        // A describe that fails is reported when it loads.
                        .map_err(|_| String::new()),
                };
                match said {
                    Ok(id) if id != source.manifest.id => Err(format!(
                        "its describe() says its id is {:?}, but plugin.toml (field `id`) \
                         says {:?}; they must agree",
                        id, source.manifest.id
                    )),
                    Err(e) if !e.is_empty() => Err(e),
                    _ => Ok(()),
                }
            })
            .map(drop)
    })
    .await
    .map_err(|e| ApiError::internal(format!("install: {e}")))?;
    installed.map_err(registry_error)?;
    reload(cx, &id).await?;
    let v = view(host, &id)?;
    if let Some(e) = &v.error {
        return Err(ApiError::new(
            ErrorCode::PluginFailed,
            format!("{id} was installed but does not load: {e}"),
        )
        .with_hint("see webrig plugin info; remove it with webrig plugin remove"));
    }
    Ok(v)
}

/// List installed plugins.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginList {}

impl Command for PluginList {
    const NAME: &'static str = "plugin list";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List installed plugins and whether each is ready";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<PluginView>;

    async fn run(self, cx: Cx) -> Result<Vec<PluginView>, ApiError> {
        let host = host(&cx).await?;
        Ok(host.all().iter().map(|p| PluginView::of(p)).collect())
    }

    fn human(out: &Vec<PluginView>) -> String {
        if out.is_empty() {
            return "no plugins installed".into();
        }
        out.iter()
            .map(PluginView::line)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Show one plugin: manifest, what it asks, what is granted.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginInfo {
    /// The plugin id.
    pub id: String,
}

impl Command for PluginInfo {
    const NAME: &'static str = "plugin info";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show a plugin's manifest, requests and grants";
    const SCOPE: Scope = Scope::Daemon;
    type Output = PluginView;

    async fn run(self, cx: Cx) -> Result<PluginView, ApiError> {
        view(&*host(&cx).await?, &self.id)
    }

    fn human(v: &PluginView) -> String {
        let mut out = format!(
            "{}\n  {}\n  built against WIT {} (this webrig accepts {} for {} plugins)\n  sha256 {}\n  in {}",
            v.line(),
            v.description,
            v.wit.built,
            v.wit.range,
            v.kind.as_str(),
            v.sha256.as_deref().unwrap_or("-"),
            v.dir
        );
        if !v.operations.is_empty() {
            out.push_str(&format!("\n  operations: {}", v.operations.join(", ")));
        }
        let granted = v.granted.as_capabilities(&v.asks.http_from_config);
        for a in describe_asks(&v.asks, &v.id, &v.endpoints) {
            out.push_str(&format!("\n  asks {a}"));
        }
        for a in describe_asks(&granted, &v.id, &v.endpoints) {
            out.push_str(&format!("\n  granted {a}"));
        }
        out
    }
}

/// Remove an installed plugin.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginRemove {
    /// The plugin id.
    pub id: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Removed {
    pub removed: String,
}

impl Command for PluginRemove {
    const NAME: &'static str = "plugin remove";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Remove an installed plugin";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Removed;

    async fn run(self, cx: Cx) -> Result<Removed, ApiError> {
        let host = host(&cx).await?;
        host.registry().remove(&self.id).map_err(registry_error)?;
        reload(&cx, &self.id).await?;
        Ok(Removed { removed: self.id })
    }

    fn human(out: &Removed) -> String {
        format!("removed {}", out.removed)
    }
}

/// Check installed components against the sha256 recorded at install.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginVerify {
    /// One plugin id (default: all).
    #[serde(default)]
    pub id: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Verified {
    pub id: String,
    pub ok: bool,
    pub message: String,
}

impl Command for PluginVerify {
    const NAME: &'static str = "plugin verify";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Check plugins' files against the sha256 recorded at install";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<Verified>;

    async fn run(self, cx: Cx) -> Result<Vec<Verified>, ApiError> {
        let host = host(&cx).await?;
        let registry = host.registry().clone();
        let only = self.id.clone();
        let out = tokio::task::spawn_blocking(move || {
            let all = registry.list();
            if let Some(id) = &only
                && !all.iter().any(|(i, _)| i == id)
            {
                return Err(RegistryError::NotFound(id.clone()));
            }
            Ok(all
                .into_iter()
                .filter(|(id, _)| only.as_ref().is_none_or(|o| o == id))
                .map(|(id, got)| {
                    let checked = got.and_then(|i| i.component().map(|(_, sha)| sha));
                    match checked {
                        Ok(sha) => Verified {
                            id,
                            ok: true,
                            message: format!("sha256 {sha} as installed"),
                        },
                        Err(e) => Verified {
                            id,
                            ok: false,
                            message: e.to_string(),
                        },
                    }
                })
                .collect::<Vec<_>>())
        })
        .await
        .map_err(|e| ApiError::internal(format!("verify: {e}")))?
        .map_err(registry_error)?;
        Ok(out)
    }

    fn failed(out: &Vec<Verified>) -> bool {
        out.iter().any(|v| !v.ok)
    }

    fn human(out: &Vec<Verified>) -> String {
        if out.is_empty() {
            return "no plugins installed".into();
        }
        out.iter()
            .map(|v| {
                format!(
                    "{} {}: {}",
                    if v.ok { "ok " } else { "BAD" },
                    v.id,
                    v.message
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Which capabilities `plugin grant` / `plugin revoke` change.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrantArgs {
    /// The plugin id.
    pub id: String,
    /// A host from the manifest's `http` list (repeatable).
    #[arg(long = "http")]
    #[serde(default)]
    pub http: Vec<String>,
    /// Browser access (grant: read or interact; revoke: any value removes it).
    #[arg(long)]
    #[serde(default)]
    pub browser: Option<BrowserAccess>,
    /// The plugin's cache.
    #[arg(long)]
    #[serde(default)]
    pub cache: bool,
    /// Everything the manifest asks for.
    #[arg(long)]
    #[serde(default)]
    pub all: bool,
}

impl clap::ValueEnum for BrowserAccess {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            BrowserAccess::None,
            BrowserAccess::Read,
            BrowserAccess::Interact,
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            BrowserAccess::None => "none",
            BrowserAccess::Read => "read",
            BrowserAccess::Interact => "interact",
        }))
    }
}

/// Grant a plugin capabilities its manifest asks for.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginGrant {
    #[command(flatten)]
    #[serde(flatten)]
    pub args: GrantArgs,
}

/// Take capabilities back from a plugin.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginRevoke {
    #[command(flatten)]
    #[serde(flatten)]
    pub args: GrantArgs,
}

/// Reload a plugin (or all) from disk: component, grant and config.toml
/// settings; its circuit breaker starts closed again.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginReload {
    /// The plugin's id (default: every plugin).
    pub id: Option<String>,
}

impl Command for PluginReload {
    const NAME: &'static str = "plugin reload";
    const ABOUT: &'static str =
        "Reload a plugin (or all) from disk and config.toml; resets its breaker";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<PluginView>;

    async fn run(self, cx: Cx) -> Result<Vec<PluginView>, ApiError> {
        let providers = cx.state().providers().await?;
        if let Some(id) = &self.id
            && providers.host().get(id).is_none()
        {
            return Err(
                ApiError::not_found(format!("no plugin {id:?} is installed"))
                    .with_hint("see webrig plugin list"),
            );
        }
        let id = self.id.clone();
        let reloaded = {
            let providers = providers.clone();
            tokio::task::spawn_blocking(move || providers.reload(id.as_deref()))
                .await
                .map_err(|e| ApiError::internal(format!("loading: {e}")))?
        };
        let host = providers.host();
        Ok(reloaded
            .iter()
            .filter_map(|id| host.get(id))
            .map(|p| PluginView::of(&p))
            .collect())
    }

    fn human(out: &Vec<PluginView>) -> String {
        out.iter()
            .map(|v| format!("reloaded {}", v.line()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Applies a grant change and reloads the plugin with it.
async fn change_grant(cx: &Cx, a: &GrantArgs, give: bool) -> Result<PluginView, ApiError> {
    let host = host(cx).await?;
    let installed = host.registry().get(&a.id).map_err(registry_error)?;
    let asked = &installed.manifest.capabilities;
    let mut g = installed.grant.clone();
    if !a.all && a.http.is_empty() && a.browser.is_none() && !a.cache {
        return Err(ApiError::invalid(
            "name what to change: --http HOST, --browser, --cache or --all",
        ));
    }
    for h in &a.http {
        if !asked.http.iter().any(|x| x.eq_ignore_ascii_case(h)) {
            return Err(ApiError::invalid(format!(
                "{} does not ask for http {h:?}; it asks for {:?}",
                a.id, asked.http
            )));
        }
    }
    if give {
        if a.all {
            g = Grant::all_of(asked);
        }
        for h in &a.http {
            if !g.http.iter().any(|x| x.eq_ignore_ascii_case(h)) {
                g.http.push(h.clone());
            }
        }
        if let Some(b) = a.browser {
            if b > asked.browser {
                return Err(ApiError::invalid(format!(
                    "{} asks for browser {:?} at most",
                    a.id, asked.browser
                )));
            }
            g.browser = b;
        }
        if a.cache && !asked.cache {
            return Err(ApiError::invalid(format!(
                "{} does not ask for the cache",
                a.id
            )));
        }
        g.cache |= a.cache;
    } else {
        if a.all {
            g = Grant::default();
        }
        g.http
            .retain(|x| !a.http.iter().any(|h| h.eq_ignore_ascii_case(x)));
        if a.browser.is_some() {
            g.browser = BrowserAccess::None;
        }
        if a.cache {
            g.cache = false;
        }
    }
    host.registry()
        .set_grant(&a.id, &g)
        .map_err(registry_error)?;
    reload(cx, &a.id).await?;
    view(&host, &a.id)
}

fn human_grant(v: &PluginView) -> String {
    let g = Capabilities {
        http: v.granted.http.clone(),
        http_from_config: v.asks.http_from_config.clone(),
        browser: v.granted.browser,
        cache: v.granted.cache,
    };
    let mut lines = describe_asks(&g, &v.id, &v.endpoints);
    lines.retain(|l| !l.ends_with("(not set)"));
    let mut out = if lines.is_empty() {
        format!("{}: nothing granted", v.id)
    } else {
        format!("{} granted:\n  {}", v.id, lines.join("\n  "))
    };
    if !v.endpoints.is_empty() {
        out.push_str(
            "\n  (configured endpoints stay reachable until their setting is removed from config.toml)",
        );
    }
    out
}

impl Command for PluginGrant {
    const NAME: &'static str = "plugin grant";
    const ABOUT: &'static str = "Grant a plugin capabilities its manifest asks for";
    const SCOPE: Scope = Scope::Daemon;
    type Output = PluginView;

    async fn run(self, cx: Cx) -> Result<PluginView, ApiError> {
        change_grant(&cx, &self.args, true).await
    }

    fn human(v: &PluginView) -> String {
        human_grant(v)
    }
}

impl Command for PluginRevoke {
    const NAME: &'static str = "plugin revoke";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Take capabilities back from a plugin";
    const SCOPE: Scope = Scope::Daemon;
    type Output = PluginView;

    async fn run(self, cx: Cx) -> Result<PluginView, ApiError> {
        change_grant(&cx, &self.args, false).await
    }

    fn human(v: &PluginView) -> String {
        human_grant(v)
    }
}

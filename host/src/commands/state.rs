//! Page state: cookies, local and session storage, and `state save|load`
//! (cookies plus local storage per origin in one owner-only file), so a
//! login survives into a new session.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::session::absolutize_given;
use super::{Command, Cx, Scope};
use crate::artifacts;
use crate::browser::Tab;
use crate::browser::devtools::redact;
use crate::error::ApiError;

pub use crate::browser::cookie::Cookie;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CookiesOut {
    pub cookies: Vec<Cookie>,
}

fn human_cookies(out: &CookiesOut) -> String {
    if out.cookies.is_empty() {
        return "no cookies".into();
    }
    out.cookies
        .iter()
        .map(|c| {
            let mut flags = Vec::new();
            if c.http_only {
                flags.push("httpOnly".to_string());
            }
            if c.secure {
                flags.push("secure".to_string());
            }
            if let Some(s) = &c.same_site {
                flags.push(format!("sameSite={s}"));
            }
            format!(
                "{}={}\t{}{}\t{}",
                c.name,
                c.value,
                c.domain,
                c.path,
                flags.join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The page's URL, for cookie calls that default to it.
async fn page_url(tab: &Tab) -> Result<String, ApiError> {
    let url = crate::browser::nav::current(tab).await?.url;
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(
            ApiError::invalid(format!("the page ({url}) has no cookies of its own"))
                .with_hint("open a web page first, or name one with --url"),
        );
    }
    Ok(url)
}

async fn all_cookies(tab: &Tab) -> Result<Vec<Cookie>, ApiError> {
    let reply = tab.call("Network.getAllCookies", json!({})).await?;
    Ok(reply["cookies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(Cookie::from_cdp)
        .collect())
}

async fn cookies_for(tab: &Tab, urls: Vec<String>) -> Result<Vec<Cookie>, ApiError> {
    let reply = tab
        .call("Network.getCookies", json!({ "urls": urls }))
        .await?;
    Ok(reply["cookies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(Cookie::from_cdp)
        .collect())
}

/// Cookies the page sends (or those of `--url`, or all with `--all`).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cookies {
    /// Cookies sent to this URL (repeatable; default: the page's).
    #[arg(long)]
    #[serde(default)]
    pub url: Vec<String>,
    /// Every cookie of the browser.
    #[arg(long, conflicts_with = "url")]
    #[serde(default)]
    pub all: bool,
    /// Show values instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

impl Command for Cookies {
    const NAME: &'static str = "cookies";
    const ABOUT: &'static str = "List cookies (the page's, --url's or --all); values masked";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = CookiesOut;

    async fn run(self, mut cx: Cx) -> Result<CookiesOut, ApiError> {
        for u in &self.url {
            check_http_url(u)?;
        }
        let tab = cx.tab().await?;
        let mut cookies = if self.all {
            all_cookies(&tab).await?
        } else if self.url.is_empty() {
            cookies_for(&tab, vec![page_url(&tab).await?]).await?
        } else {
            cookies_for(&tab, self.url).await?
        };
        if !self.reveal {
            for c in &mut cookies {
                c.value = redact::MASK.to_string();
            }
        }
        Ok(CookiesOut { cookies })
    }

    fn human(out: &CookiesOut) -> String {
        human_cookies(out)
    }
}

fn check_http_url(u: &str) -> Result<(), ApiError> {
    let parsed = url::Url::parse(u).map_err(|e| ApiError::invalid(format!("--url {u:?}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ApiError::invalid(format!(
            "--url {u:?}: cookies belong to http and https URLs"
        )));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
pub enum SameSite {
    Strict,
    Lax,
    None,
}

/// Set a cookie (for the page's URL unless --url or --domain says otherwise).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesSet {
    pub name: String,
    pub value: String,
    /// The URL the cookie is for (sets its domain, path and secure).
    #[arg(long)]
    pub url: Option<String>,
    /// The cookie's domain (e.g. example.com; a leading dot is implied).
    #[arg(long)]
    pub domain: Option<String>,
    #[arg(long)]
    pub path: Option<String>,
    #[arg(long)]
    #[serde(default)]
    pub http_only: bool,
    #[arg(long)]
    #[serde(default)]
    pub secure: bool,
    #[arg(long, value_enum)]
    pub same_site: Option<SameSite>,
    /// Expiry, seconds since the Unix epoch (default: a session cookie).
    #[arg(long)]
    pub expires: Option<f64>,
}

impl Command for CookiesSet {
    const NAME: &'static str = "cookies set";
    const ABOUT: &'static str = "Set a cookie";
    const SCOPE: Scope = Scope::Tab;
    type Output = CookiesOut;

    async fn run(self, mut cx: Cx) -> Result<CookiesOut, ApiError> {
        if self.name.is_empty()
            || self
                .name
                .chars()
                .any(|c| c.is_control() || c.is_whitespace() || "=;,".contains(c))
        {
            return Err(ApiError::invalid(format!(
                "{:?} is not a cookie name",
                self.name
            )));
        }
        if self.value.chars().any(|c| c.is_control() || c == ';') {
            return Err(ApiError::invalid(
                "the value has a ; or a control character",
            ));
        }
        if let Some(u) = &self.url {
            check_http_url(u)?;
        }
        if let Some(e) = self.expires
            && !(e.is_finite() && e > 0.0)
        {
            return Err(ApiError::invalid(
                "--expires must be seconds since the Unix epoch",
            ));
        }
        let tab = cx.tab().await?;
        let url = match (&self.url, &self.domain) {
            (Some(u), _) => Some(u.clone()),
            (None, Some(_)) => None,
            (None, None) => Some(page_url(&tab).await?),
        };
        let mut p = json!({ "name": self.name, "value": self.value,
                            "httpOnly": self.http_only, "secure": self.secure });
        if let Some(u) = &url {
            p["url"] = json!(u);
        }
        if let Some(d) = &self.domain {
            p["domain"] = json!(d);
        }
        if let Some(path) = &self.path {
            p["path"] = json!(path);
        }
        if let Some(s) = self.same_site {
            p["sameSite"] = json!(format!("{s:?}"));
        }
        if let Some(e) = self.expires {
            p["expires"] = json!(e);
        }
        let reply = tab.call("Network.setCookie", p).await.map_err(|e| {
            ApiError::invalid(format!("the browser refused the cookie: {}", e.message()))
        })?;
        if reply["success"] == false {
            return Err(ApiError::invalid(
                "the browser refused the cookie (a Secure or SameSite=None cookie needs https, \
                 a domain must match the URL)",
            ));
        }
        let mut cookies = match &url {
            Some(u) => cookies_for(&tab, vec![u.clone()]).await?,
            None => all_cookies(&tab).await?,
        };
        cookies.retain(|c| c.name == self.name);
        for c in &mut cookies {
            c.value = redact::MASK.to_string();
        }
        Ok(CookiesOut { cookies })
    }

    fn human(out: &CookiesOut) -> String {
        human_cookies(out)
    }
}

/// Delete cookies: the page's, a domain's (--domain), or all (--all).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesClear {
    /// Only cookies of this domain (and its subdomains).
    #[arg(long)]
    pub domain: Option<String>,
    /// Only cookies of this name.
    #[arg(long)]
    pub name: Option<String>,
    /// Every cookie of the browser (refused in your own browser through
    /// the extension: those are your logins).
    #[arg(long, conflicts_with = "domain")]
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Cleared {
    pub removed: usize,
}

fn domain_matches(cookie_domain: &str, domain: &str) -> bool {
    let c = cookie_domain.trim_start_matches('.').to_ascii_lowercase();
    let d = domain.trim_start_matches('.').to_ascii_lowercase();
    c == d || c.ends_with(&format!(".{d}"))
}

impl Command for CookiesClear {
    const NAME: &'static str = "cookies clear";
    const ABOUT: &'static str = "Delete cookies (the page's, --domain's, or --all)";
    const SCOPE: Scope = Scope::Tab;
    const DESTRUCTIVE: bool = true;
    type Output = Cleared;

    async fn run(self, mut cx: Cx) -> Result<Cleared, ApiError> {
        let tab = cx.tab().await?;
        if self.all && self.name.is_none() {
            if tab.devtools().shared.is_relay() {
                return Err(ApiError::invalid(
                    "not clearing every cookie of your own browser (your logins)",
                )
                .with_hint("name a --domain, or clear the page's cookies (no flag)"));
            }
            let n = all_cookies(&tab).await?.len();
            tab.call("Network.clearBrowserCookies", json!({})).await?;
            return Ok(Cleared { removed: n });
        }
        let mut doomed = match (&self.domain, self.all) {
            (Some(d), _) => {
                let mut all = all_cookies(&tab).await?;
                all.retain(|c| domain_matches(&c.domain, d));
                all
            }
            (None, true) => all_cookies(&tab).await?,
            (None, false) => cookies_for(&tab, vec![page_url(&tab).await?]).await?,
        };
        if let Some(n) = &self.name {
            doomed.retain(|c| &c.name == n);
        }
        for c in &doomed {
            tab.call(
                "Network.deleteCookies",
                json!({ "name": c.name, "domain": c.domain, "path": c.path }),
            )
            .await?;
        }
        Ok(Cleared {
            removed: doomed.len(),
        })
    }

    fn human(out: &Cleared) -> String {
        format!("removed {} cookies", out.removed)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    Local,
    Session,
}

#[derive(Debug, Clone, Copy, PartialEq, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StorageOp {
    Get,
    Set,
    Remove,
    Clear,
}

/// Read or change the page's localStorage or sessionStorage.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    #[arg(value_enum)]
    pub area: Area,
    #[arg(value_enum)]
    pub op: StorageOp,
    /// The key (get: omit for every key; set, remove: required).
    pub key: Option<String>,
    /// The value (set).
    pub value: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StorageOut {
    /// The page's origin.
    pub origin: String,
    /// The items now (get: those asked for).
    pub items: std::collections::BTreeMap<String, String>,
}

impl Command for Storage {
    const NAME: &'static str = "storage";
    const ABOUT: &'static str = "Get, set, remove or clear the page's local or session storage";
    const SCOPE: Scope = Scope::Tab;
    type Output = StorageOut;

    async fn run(self, mut cx: Cx) -> Result<StorageOut, ApiError> {
        let need = |what: &str| ApiError::invalid(format!("storage {:?} needs {what}", self.op));
        match self.op {
            StorageOp::Set if self.key.is_none() || self.value.is_none() => {
                return Err(need("a key and a value"));
            }
            StorageOp::Remove if self.key.is_none() => return Err(need("a key")),
            StorageOp::Get | StorageOp::Remove | StorageOp::Clear if self.value.is_some() => {
                return Err(ApiError::invalid("only storage … set takes a value"));
            }
            StorageOp::Clear if self.key.is_some() => {
                return Err(ApiError::invalid(
                    "storage … clear takes no key (remove does)",
                ));
            }
            _ => {}
        }
        let area = match self.area {
            Area::Local => "localStorage",
            Area::Session => "sessionStorage",
        };
        let op = serde_json::to_value(self.op).unwrap_or_default();
        let script = format!(
            "(() => {{ let s; try {{ s = window.{area}; }} catch (e) {{ return {{ error: String(e) }}; }} \
             if (!s) return {{ error: 'this page has no {area}' }}; \
             const [op, k, v] = {args}; \
             try {{ if (op === 'set') s.setItem(k, v); else if (op === 'remove') s.removeItem(k); \
                   else if (op === 'clear') s.clear(); }} catch (e) {{ return {{ error: String(e) }}; }} \
             const items = {{}}; \
             for (let i = 0; i < s.length; i++) {{ const key = s.key(i); \
               if (op !== 'get' || k === null || key === k) items[key] = s.getItem(key); }} \
             return {{ origin: location.origin, items }}; }})()",
            args = json!([op, self.key, self.value]),
        );
        let tab = cx.tab().await?;
        let v = tab.eval(&script).await?;
        if let Some(e) = v["error"].as_str() {
            return Err(ApiError::invalid(format!("{area}: {e}")).with_hint(
                "storage belongs to web pages (http, https), not about:blank or data:",
            ));
        }
        let items = serde_json::from_value(v["items"].clone()).unwrap_or_default();
        Ok(StorageOut {
            origin: v["origin"].as_str().unwrap_or_default().to_string(),
            items,
        })
    }

    fn human(out: &StorageOut) -> String {
        if out.items.is_empty() {
            return format!("{}: empty", out.origin);
        }
        out.items
            .iter()
            .map(|(k, v)| format!("{k}\t{v}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// What `state save` writes: cookies and local storage per origin.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    /// Format version (1).
    pub webrig_state: u32,
    pub cookies: Vec<Cookie>,
    pub origins: Vec<OriginState>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OriginState {
    pub origin: String,
    pub local_storage: std::collections::BTreeMap<String, String>,
}

/// Largest state file `state load` reads.
const STATE_BYTES: u64 = 16 << 20;

/// Save cookies and local storage (of the origins open in the session) to
/// a file only you can read, for `state load` in another session.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateSave {
    #[arg(value_name = "FILE")]
    pub path: PathBuf,
    /// Replace the file if it exists.
    #[arg(long)]
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StateOut {
    pub path: PathBuf,
    pub cookies: usize,
    pub origins: Vec<String>,
}

fn human_state(out: &StateOut) -> String {
    format!(
        "{}: {} cookies, local storage of {}",
        out.path.display(),
        out.cookies,
        if out.origins.is_empty() {
            "no origin".to_string()
        } else {
            out.origins.join(", ")
        }
    )
}

impl Command for StateSave {
    const NAME: &'static str = "state save";
    const ABOUT: &'static str = "Save cookies and local storage to a file (0600)";
    const SCOPE: Scope = Scope::Session;
    type Output = StateOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize_given(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<StateOut, ApiError> {
        cx.require_local_files("state save")?;
        super::capture::check_writable(&self.path, self.overwrite)?;
        let session = cx.session()?;
        let active = session.tab(None).await?;
        let tabs = session.all_tabs();
        let cookies = all_cookies(&active).await?;
        let mut origins: Vec<OriginState> = Vec::new();
        for tab in tabs {
            let v = tab
                .eval(
                    "(() => { if (!/^https?:$/.test(location.protocol)) return null; \
                     try { return { origin: location.origin, items: Object.fromEntries(\
                       Array.from({ length: localStorage.length }, (_, i) => \
                         [localStorage.key(i), localStorage.getItem(localStorage.key(i))])) }; \
                     } catch (e) { return null; } })()",
                )
                .await;
            let Ok(v) = v else { continue };
            let Some(origin) = v["origin"].as_str() else {
                continue;
            };
            if origins.iter().any(|o| o.origin == origin) {
                continue;
            }
            origins.push(OriginState {
                origin: origin.to_string(),
                local_storage: serde_json::from_value(v["items"].clone()).unwrap_or_default(),
            });
        }
        let file = StateFile {
            webrig_state: 1,
            cookies,
            origins,
        };
        let text = serde_json::to_vec_pretty(&file)
            .map_err(|e| ApiError::internal(format!("encoding the state: {e}")))?;
        let path = artifacts::write_new(&self.path, &text, self.overwrite)?;
        Ok(StateOut {
            path,
            cookies: file.cookies.len(),
            origins: file.origins.into_iter().map(|o| o.origin).collect(),
        })
    }

    fn human(out: &StateOut) -> String {
        human_state(out)
    }
}

/// Load cookies and local storage saved by `state save`.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateLoad {
    #[arg(value_name = "FILE")]
    pub path: PathBuf,
}

/// Reads and checks a state file: a regular file of this user that no one
/// else may write, of the right shape, not too big. The file is opened once
/// (no symlink, no FIFO or device) and its owner, mode and size are checked
/// on that descriptor before it is read, to the cap.
pub fn read_state(path: &std::path::Path) -> Result<StateFile, ApiError> {
    use std::os::unix::fs::MetadataExt;
    let bad = |why: String| ApiError::invalid(format!("{}: {why}", path.display()));
    let text = artifacts::read_regular(path, STATE_BYTES, artifacts::Symlinks::Refuse, |meta| {
        if Some(meta.uid()) != crate::config::own_uid() {
            return Err(format!(
                "owned by uid {}, not you: a state file carries logins",
                meta.uid()
            ));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!(
                "others may write it (mode {:o}): chmod 600 it first",
                meta.mode() & 0o777
            ));
        }
        Ok(())
    })?;
    let file: StateFile =
        serde_json::from_slice(&text).map_err(|e| bad(format!("not a webrig state file: {e}")))?;
    if file.webrig_state != 1 {
        return Err(bad(format!(
            "state format {} is not one this webrig reads (1)",
            file.webrig_state
        )));
    }
    for c in &file.cookies {
        if c.name.is_empty() || c.domain.is_empty() {
            return Err(bad("a cookie without a name or domain".into()));
        }
    }
    for o in &file.origins {
        let ok = url::Url::parse(&o.origin)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .is_some_and(|u| u.origin().ascii_serialization() == o.origin);
        if !ok {
            return Err(bad(format!("{:?} is not an http(s) origin", o.origin)));
        }
    }
    Ok(file)
}

impl Command for StateLoad {
    const NAME: &'static str = "state load";
    const ABOUT: &'static str = "Load cookies and local storage saved by state save";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = StateOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize_given(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<StateOut, ApiError> {
        cx.require_local_files("state load")?;
        // Everything is checked before anything is applied.
        let file = read_state(&self.path)?;
        let session = cx.session()?;
        let tab = session.tab(None).await?;
        let cookies: Vec<Value> = file.cookies.iter().map(Cookie::to_cdp).collect();
        if !cookies.is_empty() {
            tab.call("Network.setCookies", json!({ "cookies": cookies }))
                .await
                .map_err(|e| {
                    ApiError::invalid(format!(
                        "{}: the browser refused its cookies: {}",
                        self.path.display(),
                        e.message()
                    ))
                })?;
        }
        let origins: Vec<_> = file
            .origins
            .iter()
            .filter(|o| !o.local_storage.is_empty())
            .map(|o| (o.origin.clone(), o.local_storage.clone()))
            .collect();
        crate::browser::devtools::seed_local_storage(tab.cdp().connection(), &origins).await?;
        Ok(StateOut {
            path: self.path,
            cookies: file.cookies.len(),
            origins: file.origins.into_iter().map(|o| o.origin).collect(),
        })
    }

    fn human(out: &StateOut) -> String {
        human_state(out)
    }
}

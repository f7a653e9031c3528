//! Commands of the extension relay: `borrow` and `release` a tab you have
//! open in your own browser, `extension path` and `extension status`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::session::relay_link;
use super::{Command, Cx, Scope};
use crate::error::ApiError;

/// Take a tab you have open into this session (bound with
/// `connect --extension`); it stays in your tab group and goes back on
/// `release`.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Borrow {
    /// Chrome's tab id (see `webrig extension status`).
    #[arg(long = "tab-id", conflicts_with = "url_match")]
    #[serde(default)]
    pub tab_id: Option<u64>,
    /// The first tab whose URL contains this text.
    #[arg(long)]
    #[serde(default)]
    pub url_match: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Borrowed {
    /// The session's id for the tab (`t3`).
    pub tab: String,
    pub url: String,
    pub title: String,
}

impl Command for Borrow {
    const NAME: &'static str = "borrow";
    const ABOUT: &'static str = "Take a tab you have open in your own browser into the session";
    const SCOPE: Scope = Scope::Session;
    type Output = Borrowed;

    async fn run(self, mut cx: Cx) -> Result<Borrowed, ApiError> {
        let session = cx.session()?;
        let tabs = session.user_tabs().await?;
        let pick = |t: &&Value| match (&self.tab_id, &self.url_match) {
            (Some(id), _) => t["tabId"].as_u64() == Some(*id),
            (None, Some(m)) => t["url"].as_str().is_some_and(|u| u.contains(m.as_str())),
            (None, None) => t["active"] == true,
        };
        let found = tabs.iter().find(pick).ok_or_else(|| {
            ApiError::not_found("no open tab matches")
                .with_hint("see webrig extension status for your tabs")
        })?;
        let target = found["targetId"].as_str().unwrap_or_default().to_string();
        let tab = session.borrow(&target).await?;
        Ok(Borrowed {
            tab: tab.id().to_string(),
            url: found["url"].as_str().unwrap_or_default().to_string(),
            title: found["title"].as_str().unwrap_or_default().to_string(),
        })
    }

    fn human(out: &Borrowed) -> String {
        format!("borrowed {} as {}: {}", out.url, out.tab, out.title)
    }
}

/// Give a borrowed tab back to you (detached, left open).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The session's tab id (default: every borrowed tab).
    #[serde(default)]
    pub tab: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Released {
    pub released: Vec<String>,
}

impl Command for Release {
    const NAME: &'static str = "release";
    const ABOUT: &'static str = "Give borrowed tabs back to you (left open)";
    const SCOPE: Scope = Scope::Session;
    type Output = Released;

    async fn run(self, mut cx: Cx) -> Result<Released, ApiError> {
        let session = cx.session()?;
        let ids = match self.tab {
            Some(t) => vec![t],
            None => session.borrowed(),
        };
        for id in &ids {
            session.release(id).await?;
        }
        Ok(Released { released: ids })
    }

    fn human(out: &Released) -> String {
        if out.released.is_empty() {
            "nothing was borrowed".into()
        } else {
            format!("released {}", out.released.join(", "))
        }
    }
}

/// Print the extension's folder (load it unpacked in chrome://extensions).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtensionPath {}

impl Command for ExtensionPath {
    const NAME: &'static str = "extension path";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print the folder of the webrig extension, to load it unpacked";
    const SCOPE: Scope = Scope::Daemon;
    const AUTOSTART: bool = true;
    type Output = String;

    async fn run(self, _cx: Cx) -> Result<String, ApiError> {
        extension_dir()
            .map(|p| p.display().to_string())
            .ok_or_else(|| {
                ApiError::not_found("the extension folder is not next to this webrig")
                    .with_hint("it is extension/ in the webrig repository")
            })
    }

    fn human(out: &String) -> String {
        out.clone()
    }
}

/// The unpacked extension: `WEBRIG_EXTENSION_DIR`, else `extension/` of the
/// source tree this binary was built from.
pub fn extension_dir() -> Option<std::path::PathBuf> {
    let candidates = [
        std::env::var_os("WEBRIG_EXTENSION_DIR").map(std::path::PathBuf::from),
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("manifest.json").is_file())
        .and_then(|p| p.canonicalize().ok())
}

/// Whether the extension is connected, what it said, and your tabs.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtensionStatus {}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RelayStatus {
    pub connected: bool,
    /// The origin that paired (`chrome-extension://<id>`).
    pub paired: Option<String>,
    /// Its hello: browser, extension version, held tabs.
    pub hello: Value,
    /// The tabs the extension shows the daemon: the agent's own and those
    /// you lent in its popup (tabId, url, title, held).
    pub tabs: Vec<Value>,
}

impl Command for ExtensionStatus {
    const NAME: &'static str = "extension status";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Whether the webrig extension is connected, and the tabs it shows";
    const SCOPE: Scope = Scope::Daemon;
    type Output = RelayStatus;

    async fn run(self, cx: Cx) -> Result<RelayStatus, ApiError> {
        let paired = crate::rig::pairing::paired_origin(cx.state());
        let Ok(link) = relay_link(&cx) else {
            return Ok(RelayStatus {
                connected: false,
                paired,
                hello: Value::Null,
                tabs: Vec::new(),
            });
        };
        let hello = link.hello.lock().map(|h| h.clone()).unwrap_or_default();
        let tabs = link
            .tabs()
            .await
            .map_err(|e| ApiError::new(crate::error::ErrorCode::BrowserGone, e.to_string()))?;
        Ok(RelayStatus {
            connected: true,
            paired,
            hello,
            tabs,
        })
    }

    fn human(out: &RelayStatus) -> String {
        if !out.connected {
            return format!(
                "the extension is not connected ({})",
                match &out.paired {
                    Some(p) => format!("paired: {p}"),
                    None => "not paired: run webrig pair".into(),
                }
            );
        }
        let mut s = format!(
            "connected: {}",
            out.hello["browser"].as_str().unwrap_or("?")
        );
        for t in &out.tabs {
            s.push_str(&format!(
                "\n  {} {}{}",
                t["tabId"],
                t["url"].as_str().unwrap_or_default(),
                if t["held"] == true { " (held)" } else { "" }
            ));
        }
        s
    }
}

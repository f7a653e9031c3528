//! `cdp-url`: a URL for the CDP front end (`daemon::cdp`,
//! `browser::front`), so Playwright, Puppeteer or any DevTools client
//! drives this session through the daemon.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::ApiError;
use crate::rig::tickets::TICKET_TTL;

/// Print a one-time URL a CDP client (Playwright `connectOverCDP`,
/// Puppeteer `connect`) opens to drive this session through the daemon,
/// launching its browser if it has none. The URL carries a ticket that
/// works once, within 30 s; it never carries the daemon's token.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CdpUrl {
    /// An `http://` discovery base (for clients that read `/json/version`)
    /// instead of the `ws://` browser endpoint.
    #[arg(long)]
    #[serde(default)]
    pub http: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CdpUrlOut {
    /// The one-time URL.
    pub url: String,
    pub session: String,
    /// Seconds it stays valid unused.
    pub expires_in_s: u64,
    /// The reusable base for clients that can send the daemon's token as
    /// `Authorization: Bearer` (Playwright's `headers` option); add
    /// `/json/version`, or `/devtools/browser` for the WebSocket.
    pub with_token: String,
}

impl Command for CdpUrl {
    const NAME: &'static str = "cdp-url";
    const ABOUT: &'static str =
        "Print a one-time URL for Playwright, Puppeteer or any CDP client to drive this session";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = CdpUrlOut;

    async fn run(self, mut cx: Cx) -> Result<CdpUrlOut, ApiError> {
        let state = cx.state().clone();
        let session = cx.session()?;
        let name = session.name().to_string();
        let slot = state.session(&name, false)?;
        // The browser is up before the URL is handed out: the client's
        // first call does not wait for a launch.
        session.seat(slot.gates().clone()).await?;
        let ticket = state.tickets().mint(&name)?;
        let port = state.port();
        let url = if self.http {
            format!("http://127.0.0.1:{port}/cdp/{ticket}")
        } else {
            format!("ws://127.0.0.1:{port}/cdp/{ticket}/devtools/browser")
        };
        Ok(CdpUrlOut {
            url,
            session: name.clone(),
            expires_in_s: TICKET_TTL.as_secs(),
            with_token: format!("http://127.0.0.1:{port}/session/{name}"),
        })
    }

    fn human(out: &CdpUrlOut) -> String {
        format!(
            "{}\n(works once, within {} s; for a reusable URL send the daemon's token as \
             Authorization: Bearer to {})",
            out.url, out.expires_in_s, out.with_token
        )
    }
}

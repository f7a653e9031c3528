//! The `browser` import's daemon side: a plugin's pages are tabs of its own
//! session, `plugin-<id>` (visible in `webrig sessions`, closed with
//! `webrig --session plugin-<id> close`). The same browser layer serves
//! plugins and every other transport.
//!
//! Plugin calls run on blocking worker threads; each bridge call blocks on
//! the daemon's runtime until it is done or the plugin call's deadline.

use std::sync::{Arc, Weak};
use std::time::Instant;

use crate::browser::Tab;
use crate::browser::capture::{self, Area, ImageFormat};
use crate::browser::{nav, read, snapshot};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::engine::wit::Error as WitError;
use crate::plugins::host::BrowserBridge;

use super::State;

#[derive(Debug)]
pub struct PluginBrowser {
    state: Weak<State>,
    runtime: tokio::runtime::Handle,
}

impl PluginBrowser {
    pub fn new(state: &Arc<State>, runtime: tokio::runtime::Handle) -> Arc<PluginBrowser> {
        Arc::new(PluginBrowser {
            state: Arc::downgrade(state),
            runtime,
        })
    }

    fn session_name(plugin: &str) -> String {
        // Plugin ids are at most 56 characters: the name is unique per plugin.
        format!("{}{plugin}", super::PLUGIN_SESSION)
    }

    /// Runs `f` on the daemon's runtime, bounded by `deadline`.
    fn block<T>(
        &self,
        deadline: Instant,
        f: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, WitError> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.runtime
            .block_on(async { tokio::time::timeout(left, f).await })
            .map_err(|_| {
                WitError::Timeout("the browser call ran past the plugin's deadline".into())
            })?
            .map_err(to_wit)
    }

    fn state(&self) -> Result<Arc<State>, ApiError> {
        self.state
            .upgrade()
            .ok_or_else(|| ApiError::new(ErrorCode::BrowserGone, "the daemon is stopping"))
    }

    /// The plugin's tab `page`.
    async fn tab(&self, plugin: &str, page: &str) -> Result<Tab, ApiError> {
        let state = self.state()?;
        let slot = state.session(&Self::session_name(plugin), false)?;
        let mut session = slot.state().lock().await;
        session.tab(Some(page)).await
    }
}

fn to_wit(e: ApiError) -> WitError {
    let m = e.message().to_string();
    match e.code() {
        ErrorCode::NotFound => WitError::NotFound(m),
        ErrorCode::InvalidArgument => WitError::InvalidInput(m),
        ErrorCode::Timeout | ErrorCode::OutcomeUnknown => WitError::Timeout(m),
        ErrorCode::NavigationFailed => WitError::Upstream(m),
        ErrorCode::Forbidden | ErrorCode::Unauthorized => WitError::Denied(m),
        ErrorCode::LimitExceeded | ErrorCode::Busy => WitError::RateLimited(m),
        ErrorCode::Unsupported => WitError::Unsupported(m),
        _ => WitError::Internal(m),
    }
}

impl BrowserBridge for PluginBrowser {
    fn open(&self, plugin: &str, url: &url::Url, deadline: Instant) -> Result<String, WitError> {
        self.block(deadline, async {
            let state = self.state()?;
            let slot = state.plugin_session(&Self::session_name(plugin))?;
            let tab = slot.state().lock().await.new_tab().await?;
            let until = tokio::time::Instant::from_std(deadline);
            if let Err(e) = nav::goto(&tab, url, Default::default(), until).await {
                let _ = slot.state().lock().await.close_tab(tab.id()).await;
                return Err(e);
            }
            Ok(tab.id().to_string())
        })
    }

    fn url(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            Ok(nav::current(&tab).await?.url)
        })
    }

    fn snapshot(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            let opts = snapshot::Options::default();
            Ok(snapshot::snapshot(&tab, &opts).await?.text)
        })
    }

    fn text(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            read::text(&tab, None).await
        })
    }

    fn extract(
        &self,
        plugin: &str,
        page: &str,
        selector: &str,
        deadline: Instant,
    ) -> Result<Vec<String>, WitError> {
        if selector.trim().is_empty() || selector.len() > 1024 {
            return Err(WitError::InvalidInput(
                "a CSS selector of 1-1024 bytes".into(),
            ));
        }
        let sel = serde_json::to_string(selector).unwrap_or_default();
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            let js = format!(
                "(() => {{ try {{ return [...document.querySelectorAll({sel})].slice(0, 1000)\
                 .map(e => (e.innerText ?? e.textContent ?? '').trim()); }} \
                 catch (e) {{ return {{ bad: String(e.message || e) }}; }} }})()"
            );
            let v = tab.eval(&js).await?;
            if let Some(bad) = v.get("bad").and_then(|b| b.as_str()) {
                return Err(ApiError::invalid(format!("bad selector: {bad}")));
            }
            Ok(v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|s| s.as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default())
        })
    }

    fn screenshot(&self, plugin: &str, page: &str, deadline: Instant) -> Result<Vec<u8>, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            capture::screenshot(&tab, Area::Viewport, ImageFormat::Png, None).await
        })
    }

    fn close(&self, plugin: &str, page: &str, deadline: Instant) {
        let _ = self.block(deadline, async {
            let state = self.state()?;
            let slot = state.session(&Self::session_name(plugin), false)?;
            slot.state().lock().await.close_tab(page).await
        });
    }
}

//! One page target: its CDP session, its main frame's load state, and running
//! script in it.
//!
//! Owns the per-tab event watcher (lifecycle of the main frame) and the mapping of
//! page exceptions to API errors. Navigation and reading build on it.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::cdp::{CdpError, Session as CdpSession};
use crate::error::{ApiError, ErrorCode};

/// What the tab's watcher knows of the main frame's current document.
#[derive(Debug, Default)]
pub struct Lifecycle {
    pub loader_id: String,
    pub events: HashSet<String>,
}

#[derive(Clone)]
pub struct Tab {
    inner: Arc<TabInner>,
}

struct TabInner {
    id: String,
    target_id: String,
    cdp: CdpSession,
    lifecycle: Arc<Mutex<Lifecycle>>,
}

impl Tab {
    /// Enables the domains webrig relies on and starts the watcher.
    pub async fn attach(id: String, target_id: String, cdp: CdpSession) -> Result<Tab, ApiError> {
        let lifecycle = Arc::new(Mutex::new(Lifecycle::default()));
        spawn_watcher(&cdp, &target_id, Arc::downgrade(&lifecycle));
        let (page, events) = tokio::join!(
            cdp.call("Page.enable", json!({})),
            cdp.call("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
        );
        page?;
        events?;
        Ok(Tab {
            inner: Arc::new(TabInner {
                id,
                target_id,
                cdp,
                lifecycle,
            }),
        })
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    pub fn target_id(&self) -> &str {
        &self.inner.target_id
    }

    /// The main frame's id (Chromium gives a page's main frame its target id).
    pub fn main_frame(&self) -> &str {
        &self.inner.target_id
    }

    pub fn cdp(&self) -> &CdpSession {
        &self.inner.cdp
    }

    pub async fn call(&self, method: &str, params: Value) -> Result<Value, ApiError> {
        Ok(self.inner.cdp.call(method, params).await?)
    }

    /// Whether the main frame's current document has reached lifecycle `name`.
    pub fn reached(&self, name: &str) -> bool {
        self.inner
            .lifecycle
            .lock()
            .map(|l| l.events.contains(name))
            .unwrap_or(false)
    }

    /// Evaluates `expression` in the page's main world and returns its JSON value.
    /// Promises are awaited. A thrown exception becomes `invalid_argument` with
    /// the page's message.
    pub async fn eval(&self, expression: &str) -> Result<Value, ApiError> {
        let reply = self
            .call(
                "Runtime.evaluate",
                json!({
                    "expression": expression,
                    "returnByValue": true,
                    "awaitPromise": true,
                    "userGesture": true,
                    "replMode": true,
                }),
            )
            .await?;
        value_of(&reply)
    }
}

/// Reads a `Runtime.evaluate` / `callFunctionOn` reply.
pub fn value_of(reply: &Value) -> Result<Value, ApiError> {
    if let Some(details) = reply.get("exceptionDetails") {
        let message = details["exception"]["description"]
            .as_str()
            .or_else(|| details["exception"]["value"].as_str())
            .or_else(|| details["text"].as_str())
            .unwrap_or("the script threw")
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        return Err(ApiError::invalid(format!("page script failed: {message}")));
    }
    let result = &reply["result"];
    if let Some(value) = result.get("value") {
        return Ok(value.clone());
    }
    // NaN, Infinity, -0 and bigints have no JSON form: return their text.
    if let Some(text) = result.get("unserializableValue") {
        return Ok(text.clone());
    }
    Ok(Value::Null)
}

impl From<CdpError> for ApiError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Closed => ApiError::new(
                ErrorCode::BrowserGone,
                "the browser connection closed while the command ran",
            )
            .with_hint("start a new one with webrig launch, or end the session with webrig close"),
            CdpError::Protocol { message, .. }
                if message.contains("session") && message.contains("not found")
                    || message.contains("No target with given id") =>
            {
                ApiError::not_found(format!("the tab is gone: {message}"))
                    .with_hint("list tabs with webrig tabs")
            }
            CdpError::Protocol { message, .. } => {
                ApiError::internal(format!("browser refused: {message}"))
            }
            CdpError::Connect { url, reason } => ApiError::new(
                ErrorCode::BrowserGone,
                format!("cannot reach the browser at {url}: {reason}"),
            ),
        }
    }
}

/// Follows the main frame's lifecycle events for as long as the tab lives.
fn spawn_watcher(cdp: &CdpSession, main_frame: &str, lifecycle: std::sync::Weak<Mutex<Lifecycle>>) {
    let mut events = cdp.connection().subscribe();
    let session = cdp.id().to_string();
    let frame = main_frame.to_string();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            let Some(lifecycle) = lifecycle.upgrade() else { break };
            if event.session_id.as_deref() != Some(&session)
                || event.method != "Page.lifecycleEvent"
                || event.params["frameId"] != frame.as_str()
            {
                continue;
            }
            let loader = event.params["loaderId"].as_str().unwrap_or_default();
            let name = event.params["name"].as_str().unwrap_or_default();
            let Ok(mut state) = lifecycle.lock() else { break };
            if name == "init" || state.loader_id != loader {
                state.loader_id = loader.to_string();
                state.events.clear();
            }
            state.events.insert(name.to_string());
        }
    });
}

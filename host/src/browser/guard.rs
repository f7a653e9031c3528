//! A request guard on a whole browser: every request any of its pages,
//! frames, popups, workers and service workers makes is paused by the
//! Fetch domain on the browser target and goes out only when the judge
//! allows its URL; a proxy's request for credentials is answered here too,
//! so they never reach a page, a URL or a log.
//!
//! Plugin sessions (their grants) and sessions with a domain policy use
//! it. It needs the browser's root connection, so such a session runs a
//! browser of its own (a context in the shared browser could pause every
//! other context's requests). The user's browser through the extension is
//! guarded per tab instead (`devtools::TabDevtools`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use super::cdp::{Connection, Event};
use crate::error::ApiError;

/// Decides whether a request may go out; the error says why not.
pub trait Judge: Send + Sync + 'static {
    fn judge<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<(), String>>;
    /// Extra headers for a response of this type the guard sees before
    /// the page does (worker scripts: a `Content-Security-Policy` that
    /// holds their sockets to the policy too).
    fn response_headers(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// A script run in every shared and service worker before its own
    /// (the policy's socket guard), if any.
    fn worker_script(&self) -> Option<String> {
        None
    }
}

/// Lets every request go (a guard only there to answer a proxy).
pub struct Anything;

impl Judge for Anything {
    fn judge<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Credentials a proxy asks for (`Fetch.authRequired` from a proxy).
#[derive(Clone)]
pub struct ProxyCredentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for ProxyCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyCredentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// Requests refused lately, by the browser's request id (for `network`).
const REMEMBERED: usize = 512;

/// A running guard: what it refused.
#[derive(Default)]
pub struct Refusals {
    /// Why the last document request was refused (for a navigation's error).
    last_document: Mutex<Option<String>>,
    recent: Mutex<VecDeque<(String, String)>>,
}

impl Refusals {
    pub fn take_last_document(&self) -> Option<String> {
        self.last_document
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Why request `id` was refused, if it was.
    pub fn of(&self, id: &str) -> Option<String> {
        self.recent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .rev()
            .find(|(i, _)| i == id)
            .map(|(_, why)| why.clone())
    }

    pub fn note(&self, id: &str, document: bool, why: &str) {
        if document {
            *self.last_document.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.to_string());
        }
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() >= REMEMBERED {
            recent.pop_front();
        }
        recent.push_back((id.to_string(), why.to_string()));
    }
}

/// The Fetch patterns a guard (or a guarded tab) pauses on.
pub fn patterns(csp: bool) -> Value {
    let mut p = vec![json!({ "urlPattern": "*", "requestStage": "Request" })];
    if csp {
        // Worker scripts come as "Other": their responses get the policy's
        // Content-Security-Policy, so a worker's sockets are held too.
        p.push(json!({ "urlPattern": "*", "resourceType": "Other", "requestStage": "Response" }));
    }
    Value::Array(p)
}

/// Starts guarding every request of the browser behind `conn` (its root
/// connection). Returns once interception is on.
pub async fn start(
    conn: &Connection,
    judge: Arc<dyn Judge>,
    auth: Option<ProxyCredentials>,
) -> Result<Arc<Refusals>, ApiError> {
    let refusals = Arc::new(Refusals::default());
    // Subscribed before enabling, so no paused request is missed.
    let mut events = conn.subscribe();
    let csp = !judge.response_headers().is_empty();
    conn.call(
        None,
        "Fetch.enable",
        json!({ "patterns": patterns(csp), "handleAuthRequests": auth.is_some() }),
    )
    .await?;
    // Shared and service workers wait, attached, until the worker script
    // ran in them. (Chromium then holds new pages too, attached or not:
    // they are attached as well, to be let run at once.)
    let worker_script = judge.worker_script();
    if worker_script.is_some() {
        conn.call(
            None,
            "Target.setAutoAttach",
            json!({
                "autoAttach": true,
                "waitForDebuggerOnStart": true,
                "flatten": true,
                "filter": [
                    { "type": "shared_worker", "exclude": false },
                    { "type": "service_worker", "exclude": false },
                    { "type": "page", "exclude": false },
                ],
            }),
        )
        .await?;
    }
    let conn = conn.clone();
    let refused = refusals.clone();
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        let asked = Arc::new(Mutex::new(VecDeque::<String>::new()));
        loop {
            let event = tokio::select! {
                e = events.recv() => e,
                () = conn.closed() => break,
            };
            let event = match event {
                Ok(e) => e,
                // A lost pause leaves its request waiting: it fails closed
                // (the page never gets it).
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            if event.session_id.is_some() {
                continue;
            }
            if event.method == "Target.attachedToTarget" {
                let (conn, script) = (conn.clone(), worker_script.clone());
                tokio::spawn(async move { run_worker(&conn, script, &event.params).await });
                continue;
            }
            let (conn, judge, refused, auth, asked) = (
                conn.clone(),
                judge.clone(),
                refused.clone(),
                auth.clone(),
                asked.clone(),
            );
            match event.method.as_str() {
                "Fetch.requestPaused" => {
                    tokio::spawn(async move { decide(&conn, &*judge, &refused, &event).await });
                }
                "Fetch.authRequired" => {
                    tokio::spawn(async move { answer_auth(&conn, auth, &asked, &event).await });
                }
                _ => {}
            }
        }
    });
    Ok(refusals)
}

/// A shared or service worker attached waiting: the worker script runs in
/// it, then the worker does. Anything else attached is let go.
async fn run_worker(conn: &Connection, script: Option<String>, p: &Value) {
    let Some(session) = p["sessionId"].as_str() else {
        return;
    };
    let worker = matches!(
        p["targetInfo"]["type"].as_str(),
        Some("shared_worker" | "service_worker")
    );
    let target = super::cdp::Session::new(conn.clone(), session);
    let script = script.filter(|_| worker);
    let_run(&target, script.as_deref(), p["waitingForDebugger"] == true).await;
}

/// A worker or frame attached waiting (`waiting`): `script` (the policy's
/// socket guard) runs in it first, then it does.
pub async fn let_run(target: &super::cdp::Session, script: Option<&str>, waiting: bool) {
    if let Some(script) = script
        && let Err(e) = target
            .call("Runtime.evaluate", json!({ "expression": script }))
            .await
    {
        tracing::debug!(error = %e, "guarding a worker");
    }
    if waiting {
        let _ = target
            .call("Runtime.runIfWaitingForDebugger", json!({}))
            .await;
    }
}

/// The guard's answer to a paused request (`params` of
/// `Fetch.requestPaused`): a call that fails a refused request, or adds
/// the policy's CSP to a worker script's response; None when the request
/// may go on (the caller continues it, or hands it to its routes).
pub async fn verdict(
    judge: &dyn Judge,
    refused: &Refusals,
    p: &Value,
) -> Option<(&'static str, Value)> {
    let id = p["requestId"].as_str()?;
    if let Some(code) = p["responseStatusCode"].as_u64() {
        let mut headers: Vec<Value> = p["responseHeaders"].as_array().cloned().unwrap_or_default();
        headers.extend(
            judge
                .response_headers()
                .into_iter()
                .map(|(name, value)| json!({ "name": name, "value": value })),
        );
        return Some((
            "Fetch.continueResponse",
            json!({ "requestId": id, "responseCode": code, "responseHeaders": headers }),
        ));
    }
    if p.get("responseErrorReason").is_some() {
        return None;
    }
    let url = p["request"]["url"].as_str().unwrap_or_default();
    let why = judge.judge(url).await.err()?;
    tracing::debug!(%why, "a request was blocked");
    let network = p["networkId"].as_str().unwrap_or(id);
    refused.note(network, p["resourceType"] == "Document", &why);
    Some((
        "Fetch.failRequest",
        json!({ "requestId": id, "errorReason": "BlockedByClient" }),
    ))
}

/// Answers one paused request of the browser target.
async fn decide(conn: &Connection, judge: &dyn Judge, refused: &Refusals, event: &Event) {
    let p = &event.params;
    let Some(id) = p["requestId"].as_str() else {
        return;
    };
    let (method, params) = verdict(judge, refused, p)
        .await
        .unwrap_or_else(|| ("Fetch.continueRequest", json!({ "requestId": id })));
    if let Err(e) = conn.call(None, method, params).await {
        // The request's page may have gone meanwhile.
        tracing::debug!(error = %e, "answering a paused request");
    }
}

/// Answers a request for credentials: a proxy's with the session's proxy
/// credentials, once per request (wrong ones are not retried forever); a
/// site's the browser's own way (none given).
pub async fn answer_auth(
    conn: &Connection,
    auth: Option<ProxyCredentials>,
    asked: &Mutex<VecDeque<String>>,
    event: &Event,
) {
    let p = &event.params;
    let Some(id) = p["requestId"].as_str() else {
        return;
    };
    let from_proxy = p["authChallenge"]["source"] == "Proxy";
    let first = {
        let mut asked = asked.lock().unwrap_or_else(|e| e.into_inner());
        let first = !asked.iter().any(|a| a == id);
        if first {
            if asked.len() >= REMEMBERED {
                asked.pop_front();
            }
            asked.push_back(id.to_string());
        }
        first
    };
    let response = match (&auth, from_proxy, first) {
        (Some(c), true, true) => json!({
            "response": "ProvideCredentials",
            "username": c.username,
            "password": c.password,
        }),
        (Some(_), true, false) => json!({ "response": "CancelAuth" }),
        _ => json!({ "response": "Default" }),
    };
    if let Err(e) = conn
        .call(
            event.session_id.as_deref(),
            "Fetch.continueWithAuth",
            json!({ "requestId": id, "authChallengeResponse": response }),
        )
        .await
    {
        tracing::debug!(error = %e, "answering a request for credentials");
    }
}

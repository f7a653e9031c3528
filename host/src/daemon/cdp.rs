//! The CDP front end's door: DevTools discovery (`/json/version`,
//! `/json/list`, `/json`) and the `/devtools/browser` and
//! `/devtools/page/{targetId}` WebSockets, for one session each. What the
//! client may do once connected is the browser layer's (`browser::front`).
//!
//! Two ways in, never the token in a URL:
//! - `/session/{name}/…` with the daemon's token in `Authorization:
//!   Bearer`, or (WebSockets) offered as the subprotocol
//!   `webrig.token.<token>` beside `webrig.cdp`;
//! - `/cdp/{ticket}/…` with a one-time ticket from `webrig cdp-url`
//!   (`rig::tickets`). Discovery through a ticket answers URLs that carry
//!   fresh tickets, so each URL still works once.
//!
//! Host and Origin are checked in front of this as on every path (a web
//! page's WebSocket always carries an Origin and is refused); failed
//! authentications count against the same budget as elsewhere; clients at
//! once are capped.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State as AxState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use super::Door;
use super::guard::{Caller, Purpose};
use super::listen::Via;
use super::routes::{caller, refuse, token_matches, too_many};
use crate::browser::front::{self, Entry, Seat};
use crate::error::{ApiError, ErrorCode};

/// The subprotocol a client offers to carry the token in
/// (`webrig.token.<token>`), beside [`PROTOCOL`], which is the one chosen.
const TOKEN_PROTOCOL: &str = "webrig.token.";
pub const PROTOCOL: &str = "webrig.cdp";
/// CDP clients connected at once, over every session.
pub const MAX_CLIENTS: usize = 64;
/// How long a client waits for a busy session to hand over its browser.
const SEAT_WITHIN: std::time::Duration = std::time::Duration::from_secs(60);
/// Pages listed by `/json/list` (each a ticket when asked through one).
const MAX_LISTED: usize = 100;

pub fn routes() -> Router<Arc<Door>> {
    let mut r = Router::new();
    for (base, by_ticket) in [("/session/{key}", false), ("/cdp/{key}", true)] {
        for (path, what) in [
            ("/json/version", What::Version),
            ("/json/list", What::List),
            ("/json", What::List),
        ] {
            for path in [path.to_string(), format!("{path}/")] {
                r = r.route(
                    &format!("{base}{path}"),
                    get(
                        move |s: AxState<Arc<Door>>, k: Path<String>, req: Request| {
                            discovery(s, k, req, by_ticket, what)
                        },
                    ),
                );
            }
        }
        r = r.route(
            &format!("{base}/devtools/{{*rest}}"),
            get(
                move |s: AxState<Arc<Door>>, k: Path<(String, String)>, req: Request| {
                    devtools(s, k, req, by_ticket)
                },
            ),
        );
    }
    r
}

#[derive(Debug, Clone, Copy)]
enum What {
    Version,
    List,
}

/// The session a request may use, or the refusal.
fn admit(
    state: &Door,
    key: &str,
    headers: &HeaderMap,
    who: Caller,
    same_user: bool,
    by_ticket: bool,
) -> Result<String, Box<Response>> {
    if by_ticket {
        // Checked before the ticket is spent: another user who read the
        // URL (in `ps`) neither uses it nor takes it from its owner.
        if !same_user {
            return Err(Box::new(refuse(
                ErrorCode::Forbidden,
                "a CDP ticket works only for the user who asked for it",
            )));
        }
        return state.tickets().redeem(key).ok_or_else(|| {
            Box::new(unauthorized(
                state,
                who,
                "this CDP ticket is unknown, spent or expired; get a new URL with webrig cdp-url",
            ))
        });
    }
    if !(token_matches(headers, &state.token()) || protocol_token(headers, &state.token())) {
        return Err(Box::new(unauthorized(
            state,
            who,
            "missing or wrong bearer token",
        )));
    }
    if let Err(e) = crate::commands::envelope::check_session_name(key) {
        return Err(Box::new(refuse(ErrorCode::InvalidArgument, e.message())));
    }
    Ok(key.to_string())
}

fn unauthorized(state: &Door, who: Caller, message: &str) -> Response {
    let budget = state.limits().unauthenticated_per_minute;
    match state.limiter().hit(Purpose::Auth, who, budget) {
        Ok(()) => refuse(ErrorCode::Unauthorized, message),
        Err(retry) => too_many(retry),
    }
}

/// The token offered as a subprotocol, compared in constant time.
fn protocol_token(headers: &HeaderMap, token: &str) -> bool {
    super::upgrade::offered(headers).any(|p| {
        p.strip_prefix(TOKEN_PROTOCOL)
            .is_some_and(|t| bool::from(t.as_bytes().ct_eq(token.as_bytes())))
    })
}

/// The session's seat for the front end: its browser, launched if needed.
async fn seat(state: &Door, name: &str) -> Result<Seat, ApiError> {
    if name.starts_with(crate::rig::PLUGIN_SESSION) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "plugin sessions are the plugins' own; connect to a session of yours",
        ));
    }
    let slot = state.session(name, true)?;
    let mut session = slot
        .lock_until(name, tokio::time::Instant::now() + SEAT_WITHIN)
        .await?;
    session.seat(slot.gates().clone()).await
}

/// Who may use which session, then its seat; or the refusal.
fn admitted(
    state: &Door,
    key: &str,
    req: &Request,
    by_ticket: bool,
) -> impl Future<Output = Result<(String, Seat), Box<Response>>> + Send {
    // Checked now: the request itself is not held across the wait.
    let same_user = match req.extensions().get::<Via>() {
        Some(Via::Local) => true,
        Some(Via::Tcp(peer)) => super::peer::same_user(*peer, state.port()),
        None => false,
    };
    let admitted = admit(state, key, req.headers(), caller(req), same_user, by_ticket);
    async move {
        let name = admitted?;
        match seat(state, &name).await {
            Ok(seat) => Ok((name, seat)),
            Err(e) => Err(Box::new(refuse(e.code(), e.message()))),
        }
    }
}

/// `ws://host/…` base of the URLs discovery answers, from the request's
/// own (already checked) Host.
fn ws_base(req: &Request) -> String {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("ws://{host}")
}

async fn discovery(
    AxState(state): AxState<Arc<Door>>,
    Path(key): Path<String>,
    req: Request,
    by_ticket: bool,
    what: What,
) -> Response {
    let (name, seat) = match admitted(&state, &key, &req, by_ticket).await {
        Ok(x) => x,
        Err(resp) => return *resp,
    };
    let base = ws_base(&req);
    // Where a URL in the answer points: the same session, by a fresh
    // ticket when this request came with one.
    let url_for = |tail: &str| -> Result<String, ApiError> {
        if by_ticket {
            let ticket = state.tickets().mint(&name)?;
            Ok(format!("{base}/cdp/{ticket}/devtools/{tail}"))
        } else {
            Ok(format!("{base}/session/{name}/devtools/{tail}"))
        }
    };
    let answer = match what {
        What::Version => version(&seat, url_for("browser")).await,
        What::List => list(&seat, &url_for).await,
    };
    match answer {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => refuse(e.code(), e.message()),
    }
}

async fn version(seat: &Seat, ws: Result<String, ApiError>) -> Result<Value, ApiError> {
    let v = seat
        .conn
        .call(None, "Browser.getVersion", json!({}))
        .await?;
    Ok(json!({
        "Browser": v["product"],
        "Protocol-Version": v["protocolVersion"],
        "User-Agent": v["userAgent"],
        "V8-Version": v["jsVersion"],
        "WebKit-Version": "",
        "webSocketDebuggerUrl": ws?,
    }))
}

async fn list(
    seat: &Seat,
    url_for: &(dyn Fn(&str) -> Result<String, ApiError> + Sync),
) -> Result<Value, ApiError> {
    let targets = seat.conn.call(None, "Target.getTargets", json!({})).await?;
    let mut pages = Vec::new();
    for t in targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "page")
        .take(MAX_LISTED)
    {
        let id = t["targetId"].as_str().unwrap_or_default();
        pages.push(json!({
            "description": "",
            "id": id,
            "type": "page",
            "title": t["title"],
            "url": t["url"],
            "webSocketDebuggerUrl": url_for(&format!("page/{id}"))?,
        }));
    }
    Ok(Value::Array(pages))
}

/// `…/devtools/browser[/…]` and `…/devtools/page/{targetId}`: the upgrade.
async fn devtools(
    AxState(state): AxState<Arc<Door>>,
    Path((key, rest)): Path<(String, String)>,
    req: Request,
    by_ticket: bool,
) -> Response {
    let entry = match rest.split_once('/') {
        _ if rest == "browser" => Entry::Browser,
        Some(("browser", _)) => Entry::Browser,
        Some(("page", id)) if !id.is_empty() && !id.contains('/') => Entry::Page(id.to_string()),
        _ => {
            return refuse(
                ErrorCode::NotFound,
                &format!("no such DevTools endpoint {rest:?}"),
            );
        }
    };
    if !super::upgrade::is_websocket(req.headers()) {
        return refuse(
            ErrorCode::InvalidArgument,
            "this is a WebSocket endpoint (a CDP client connects here)",
        );
    }
    // Checked before the ticket is spent or the token compared.
    let Ok(permit) = state.cdp_clients.clone().try_acquire_owned() else {
        let mut resp = refuse(
            ErrorCode::LimitExceeded,
            &format!("{MAX_CLIENTS} CDP clients are connected already"),
        );
        *resp.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        return resp;
    };
    let (name, seat) = match admitted(&state, &key, &req, by_ticket).await {
        Ok(x) => x,
        Err(resp) => return *resp,
    };
    let protocol = super::upgrade::offered(req.headers())
        .any(|p| p == PROTOCOL)
        .then_some(PROTOCOL);
    let (resp, upgrade) = match super::upgrade::accept(req, protocol) {
        Ok(x) => x,
        Err(resp) => return *resp,
    };
    tokio::spawn(async move {
        let Some(ws) = upgrade.websocket(front::Limits::default().max_frame).await else {
            return;
        };
        tracing::info!(session = %name, ?entry, "cdp client connected");
        front::serve(ws, seat, entry, front::Limits::default()).await;
        tracing::info!(session = %name, "cdp client disconnected");
        drop(permit);
    });
    resp
}

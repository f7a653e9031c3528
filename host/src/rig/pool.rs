//! Placing a session's browser on a remote pool (`[[pool]]` in
//! config.toml): which endpoint, in what order to try them, and which of
//! this daemon's sessions run where.
//!
//! A browserless pool is asked for `/pressure` on every endpoint and the
//! one with the most free room goes first (the first listed on a tie); a
//! `cdp` pool goes by this daemon's own sessions (fewest first) or round
//! robin. When every endpoint is full, down or at `max_sessions`, the
//! answer is `busy` with a retry-after. The pool engine owns placement
//! beyond that: nothing here is a cluster manager. The tokens stay inside
//! [`Secret`]s.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::browser::SessionState;
use crate::browser::pool::{self as remote, Placement, Probe};
use crate::config::pool::{Engine, PoolEntry, Secret, Strategy};
use crate::error::{ApiError, ErrorCode};

use super::State;

/// The daemon's pool bookkeeping: where its sessions were placed, and the
/// round-robin turn of each `cdp` pool.
#[derive(Default)]
pub struct Pools {
    placed: Mutex<HashMap<String, Placement>>,
    turns: Mutex<HashMap<String, usize>>,
}

/// One endpoint as `pool status` reports it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct EndpointStatus {
    pub endpoint: String,
    /// `ok`, `full` or `down`.
    pub health: String,
    /// Why it is full or down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// From browserless's `/pressure`: sessions it runs at once, running
    /// and queued now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<u64>,
    /// This daemon's sessions on it.
    pub sessions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<usize>,
}

/// One pool as `pool status` reports it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct PoolStatus {
    pub name: String,
    pub engine: Engine,
    pub default: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// What keeps the whole pool from working (its token cannot be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub endpoints: Vec<EndpointStatus>,
}

impl Pools {
    fn placed(&self) -> std::sync::MutexGuard<'_, HashMap<String, Placement>> {
        self.placed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The `[[pool]]` entries, or why config.toml cannot be read.
fn entries(state: &State) -> Result<Vec<PoolEntry>, ApiError> {
    crate::config::pool::load(state.home()).map_err(|e| {
        ApiError::invalid(format!("config.toml: {e}"))
            .with_hint("fix the [[pool]] entries in config.toml (see docs/SCALING.md)")
    })
}

/// The entry named `name`, else the one with `default = true` when `name`
/// is None (Ok(None): no default pool).
pub fn find(state: &State, name: Option<&str>) -> Result<Option<PoolEntry>, ApiError> {
    let all = entries(state)?;
    let Some(name) = name else {
        return Ok(all.into_iter().find(|p| p.default));
    };
    let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
    let hint = if names.is_empty() {
        "add a [[pool]] entry to config.toml (see docs/SCALING.md)".to_string()
    } else {
        format!("configured pools: {}", names.join(", "))
    };
    match all.iter().find(|p| p.name == name) {
        Some(p) => Ok(Some(p.clone())),
        None => {
            Err(ApiError::not_found(format!("no pool {name:?} in config.toml")).with_hint(hint))
        }
    }
}

fn token(state: &State, pool: &PoolEntry) -> Result<Option<Secret>, ApiError> {
    pool.token(state.home()).map_err(|e| {
        ApiError::invalid(e).with_hint("fix token_file or token_env of the pool in config.toml")
    })
}

impl State {
    /// This daemon's live sessions on each endpoint of `pool`, by endpoint.
    /// A session busy with a command (its lock held) counts as it was placed.
    fn sessions_on(&self, pool: &str) -> HashMap<String, Vec<String>> {
        let slots: HashMap<String, _> = self.sessions().into_iter().collect();
        let mut placed = self.pools.placed();
        placed.retain(|name, placement| {
            let Some(slot) = slots.get(name) else {
                return false;
            };
            match slot.state().try_lock() {
                Ok(mut s) => {
                    let info = s.info();
                    !s.is_closed()
                        && info.browser != "gone"
                        && info.pool.as_ref() == Some(placement)
                }
                Err(_) => true,
            }
        });
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for (name, p) in placed.iter().filter(|(_, p)| p.pool == pool) {
            out.entry(p.endpoint.clone())
                .or_default()
                .push(name.clone());
        }
        for names in out.values_mut() {
            names.sort();
        }
        out
    }

    /// Puts `session`'s browser on `pool`: tries its endpoints in order of
    /// room until one gives a browser. `busy` when none can; nothing is
    /// left half made (the session keeps no browser, nothing persisted).
    pub async fn place(
        &self,
        session: &mut SessionState,
        pool: &PoolEntry,
    ) -> Result<(), ApiError> {
        if matches!(session.info().browser.as_str(), "launched" | "connected") {
            return Err(ApiError::invalid(format!(
                "session {:?} already has a browser",
                session.name()
            ))
            .with_hint("close it first (webrig close), or pick another --session"));
        }
        if pool.engine == Engine::Cdp && session.proxy().is_some() {
            return Err(ApiError::invalid(format!(
                "pool {:?} is a cdp pool: its browsers already run, so they take no --proxy",
                pool.name
            ))
            .with_hint("start them with --proxy-server, or use a browserless pool"));
        }
        let token = token(self, pool)?;
        let mine = self.sessions_on(&pool.name);
        let count = |e: &str| mine.get(e).map_or(0, Vec::len);
        let under_cap = |e: &String| pool.max_sessions.is_none_or(|m| count(e) < m);
        let mut skipped: Vec<String> = pool
            .endpoints
            .iter()
            .filter(|e| !under_cap(e))
            .map(|e| format!("{e}: this daemon's max_sessions reached"))
            .collect();
        let open: Vec<String> = pool
            .endpoints
            .iter()
            .filter(|e| under_cap(e))
            .cloned()
            .collect();
        let order: Vec<String> = match pool.engine {
            Engine::Browserless => {
                let probes = probe_all(&open, token.as_ref()).await;
                let mut room: Vec<(u64, String)> = Vec::new();
                for (e, probe) in open.iter().zip(probes) {
                    match probe {
                        Probe::Pressure(p) if p.free() > 0 => room.push((p.free(), e.clone())),
                        Probe::Pressure(p) => skipped.push(format!(
                            "{e}: full ({} running of {}, {} queued{})",
                            p.running,
                            p.max_concurrent,
                            p.queued,
                            if p.reason.is_empty() {
                                String::new()
                            } else {
                                format!(", {}", p.reason)
                            }
                        )),
                        Probe::Full(why) => skipped.push(format!("{e}: full ({why})")),
                        Probe::Up => room.push((1, e.clone())),
                        Probe::Down(why) => skipped.push(format!("{e}: down ({why})")),
                    }
                }
                // Most room first; a stable sort keeps the listed order on ties.
                room.sort_by_key(|r| std::cmp::Reverse(r.0));
                room.into_iter().map(|(_, e)| e).collect()
            }
            Engine::Cdp => match pool.strategy() {
                Strategy::LeastLoaded => {
                    let mut v = open.clone();
                    v.sort_by_key(|e| count(e));
                    v
                }
                Strategy::RoundRobin => {
                    let mut turns = self.pools.turns.lock().unwrap_or_else(|e| e.into_inner());
                    let turn = turns.entry(pool.name.clone()).or_default();
                    let n = open.len().max(1);
                    let start = *turn % n;
                    *turn = turn.wrapping_add(1);
                    let mut v = open.clone();
                    v.rotate_left(start);
                    v
                }
            },
        };
        let mut busy = false;
        for endpoint in order {
            let placement = Placement {
                pool: pool.name.clone(),
                endpoint: endpoint.clone(),
            };
            let ws = match ws_url(pool, &endpoint, token.as_ref(), session.proxy()).await {
                Ok(ws) => ws,
                Err(e) => {
                    skipped.push(format!("{endpoint}: down ({})", e.message()));
                    continue;
                }
            };
            match session.connect_pooled(&ws, placement.clone()).await {
                Ok(()) => {
                    self.pools
                        .placed()
                        .insert(session.name().to_string(), placement);
                    return Ok(());
                }
                Err(e) => {
                    busy |= e.code() == ErrorCode::Busy;
                    skipped.push(format!("{endpoint}: {}", e.message()));
                }
            }
        }
        let why = format!(
            "no endpoint of pool {:?} took the session: {}",
            pool.name,
            skipped.join("; ")
        );
        // A cdp pool whose every endpoint failed to give a browser (none
        // full, none at max_sessions) is down, not busy.
        let capped = skipped.iter().any(|s| s.contains("max_sessions reached"));
        if pool.engine == Engine::Cdp && !busy && !capped {
            return Err(ApiError::new(ErrorCode::BrowserGone, why)
                .with_hint("check the endpoints with webrig pool status"));
        }
        // Full, over max_sessions, or /pressure not answering: try later.
        Err(remote::busy(&why))
    }

    /// Every pool and endpoint: health, capacity, running and queued
    /// counts, and this daemon's sessions there.
    pub async fn pool_status(&self) -> Result<Vec<PoolStatus>, ApiError> {
        let mut out = Vec::new();
        for pool in entries(self)? {
            let mine = self.sessions_on(&pool.name);
            let (token, error) = match token(self, &pool) {
                Ok(t) => (t, None),
                Err(e) => (None, Some(e.message().to_string())),
            };
            let probes: Vec<Option<Probe>> = match (pool.engine, &error) {
                (_, Some(_)) => vec![None; pool.endpoints.len()],
                (Engine::Browserless, None) => probe_all(&pool.endpoints, token.as_ref())
                    .await
                    .into_iter()
                    .map(Some)
                    .collect(),
                (Engine::Cdp, None) => cdp_all(&pool.endpoints)
                    .await
                    .into_iter()
                    .map(Some)
                    .collect(),
            };
            let endpoints = pool
                .endpoints
                .iter()
                .zip(probes)
                .map(|(e, probe)| {
                    let mut s = EndpointStatus {
                        endpoint: e.clone(),
                        health: "down".into(),
                        detail: None,
                        capacity: None,
                        running: None,
                        queued: None,
                        sessions: mine.get(e).cloned().unwrap_or_default(),
                        max_sessions: pool.max_sessions,
                    };
                    match probe {
                        None => {
                            s.detail = Some("not asked: the pool's token cannot be read".into())
                        }
                        Some(Probe::Pressure(p)) => {
                            s.health = if p.is_available { "ok" } else { "full" }.into();
                            s.detail = (!p.reason.is_empty()).then(|| p.reason.clone());
                            s.capacity = Some(p.max_concurrent);
                            s.running = Some(p.running);
                            s.queued = Some(p.queued);
                        }
                        Some(Probe::Full(why)) => {
                            s.health = "full".into();
                            s.detail = Some(why);
                        }
                        Some(Probe::Up) => s.health = "ok".into(),
                        Some(Probe::Down(why)) => s.detail = Some(why),
                    }
                    s
                })
                .collect();
            out.push(PoolStatus {
                name: pool.name.clone(),
                engine: pool.engine,
                default: pool.default,
                strategy: (pool.engine == Engine::Cdp).then(|| pool.strategy()),
                error,
                endpoints,
            });
        }
        Ok(out)
    }
}

/// A pool entry's layer of the domain policy, if it has rules.
pub fn layer(pool: &PoolEntry) -> Result<Option<crate::browser::policy::Layer>, ApiError> {
    crate::browser::policy::Layer::parse(
        &format!("[[pool]] {}", pool.name),
        &pool.allow,
        &pool.block,
    )
}

/// A pool entry's proxy, its credentials read now (a file relative to the
/// webrig home).
pub fn proxy(
    pool: &PoolEntry,
    home: &crate::config::Home,
) -> Result<Option<crate::browser::proxy::Proxy>, ApiError> {
    let Some(url) = &pool.proxy else {
        return Ok(None);
    };
    let file = pool.proxy_auth_file.as_ref().map(|f| {
        if f.is_relative() {
            home.root().join(f)
        } else {
            f.clone()
        }
    });
    let name = format!("pool {:?}: ", pool.name);
    let credentials =
        crate::browser::proxy::credentials(file.as_deref(), pool.proxy_auth_env.as_deref())
            .map_err(|e| e.prefixed(&name))?;
    crate::browser::proxy::Proxy::parse(url, &pool.proxy_bypass, credentials)
        .map(Some)
        .map_err(|e| e.prefixed(&name))
}

/// The WebSocket URL to make a browser at on `endpoint`.
async fn ws_url(
    pool: &PoolEntry,
    endpoint: &str,
    token: Option<&Secret>,
    proxy: Option<&crate::browser::proxy::Proxy>,
) -> Result<Secret, ApiError> {
    match pool.engine {
        Engine::Browserless => {
            remote::browserless_ws(pool, endpoint, token, proxy).map_err(ApiError::invalid)
        }
        Engine::Cdp => {
            let e = endpoint.to_string();
            let ws = tokio::task::spawn_blocking(move || remote::resolve_cdp(&e))
                .await
                .map_err(|e| ApiError::internal(e.to_string()))?
                .map_err(|why| {
                    ApiError::new(ErrorCode::BrowserGone, format!("{endpoint}: {why}"))
                })?;
            let Some(t) = token else {
                return Ok(Secret::new(ws));
            };
            let mut url = url::Url::parse(&ws).map_err(|e| ApiError::invalid(e.to_string()))?;
            url.query_pairs_mut().append_pair("token", t.expose());
            Ok(Secret::new(url.into()))
        }
    }
}

/// `/pressure` of every endpoint, at once.
async fn probe_all(endpoints: &[String], token: Option<&Secret>) -> Vec<Probe> {
    let tasks: Vec<_> = endpoints
        .iter()
        .map(|e| {
            let (e, t) = (e.clone(), token.cloned());
            tokio::task::spawn_blocking(move || remote::pressure(&e, t.as_ref()))
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap_or_else(|e| Probe::Down(e.to_string())));
    }
    out
}

/// Health of every plain CDP endpoint, at once.
async fn cdp_all(endpoints: &[String]) -> Vec<Probe> {
    let tasks: Vec<_> = endpoints
        .iter()
        .map(|e| {
            let e = e.clone();
            tokio::task::spawn_blocking(move || remote::cdp_health(&e))
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(match t.await {
            Ok(Ok(())) => Probe::Up,
            Ok(Err(why)) => Probe::Down(why),
            Err(e) => Probe::Down(e.to_string()),
        });
    }
    out
}

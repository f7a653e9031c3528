//! Pool commands: `pool status` (remote browser pools, `[[pool]]` in
//! config.toml). Placing a session is `launch --pool` (`session.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::ApiError;
use crate::rig::pool::PoolStatus as Pool;

/// Show each remote pool's endpoints: health, capacity, running and queued
/// sessions (browserless `/pressure`), and this daemon's sessions there.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolStatus {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Pools {
    pub pools: Vec<Pool>,
}

impl Command for PoolStatus {
    const NAME: &'static str = "pool status";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show remote browser pools and their load";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Pools;

    async fn run(self, cx: Cx) -> Result<Pools, ApiError> {
        Ok(Pools {
            pools: cx.state().pool_status().await?,
        })
    }

    fn human(out: &Pools) -> String {
        if out.pools.is_empty() {
            return "no pools (add [[pool]] entries to config.toml)".into();
        }
        let mut lines = Vec::new();
        for p in &out.pools {
            let mark = if p.default { " (default)" } else { "" };
            lines.push(format!(
                "{}{mark}\t{}",
                p.name,
                serde_json::to_value(p.engine)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            ));
            if let Some(e) = &p.error {
                lines.push(format!("  error: {e}"));
            }
            for e in &p.endpoints {
                let load = match (e.running, e.capacity, e.queued) {
                    (Some(r), Some(c), Some(q)) => format!("\t{r}/{c} running, {q} queued"),
                    _ => String::new(),
                };
                let detail = e
                    .detail
                    .as_deref()
                    .map(|d| format!("\t{d}"))
                    .unwrap_or_default();
                lines.push(format!(
                    "  {}\t{}{load}\t{} session(s) here{detail}",
                    e.endpoint,
                    e.health,
                    e.sessions.len()
                ));
            }
        }
        lines.join("\n")
    }
}

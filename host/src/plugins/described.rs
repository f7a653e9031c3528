//! What a workflow plugin says it is (`describe`): its name, the
//! parameters it takes and the outputs it writes, read once when it loads.
//! Checking a declaration against what a run accepts is the workflows
//! layer's (`workflows::check_declaration`), handed to the plugin host.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::engine::{Loaded, Runtime};
use super::host::{Access, HostState};
use super::manifest::PluginLimits;
use super::wit::v0_2_0;

/// What a workflow says it is and takes (`describe`), checked at load.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct WorkflowInfo {
    pub id: String,
    pub name: String,
    pub description: String,
    pub params: Vec<Param>,
    pub outputs: Vec<String>,
}

/// One parameter a workflow takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Param {
    /// snake_case; the CLI also takes it with dashes (`--limit-per-source`).
    pub name: String,
    /// string, integer, number, boolean, date (YYYY-MM-DD), url or choice.
    pub kind: String,
    pub required: bool,
    /// May be given more than once (a list).
    pub repeated: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub description: String,
}

impl From<v0_2_0::types::WorkflowInfo> for WorkflowInfo {
    fn from(w: v0_2_0::types::WorkflowInfo) -> WorkflowInfo {
        WorkflowInfo {
            id: w.id,
            name: w.name,
            description: w.description,
            params: w
                .params
                .into_iter()
                .map(|p| Param {
                    name: p.name,
                    kind: p.kind,
                    required: p.required,
                    repeated: p.repeated,
                    default: p.default,
                    choices: p.choices,
                    description: p.description,
                })
                .collect(),
            outputs: w.outputs,
        }
    }
}

/// A workflow's `describe`, at load (at most the given limits).
pub fn describe_workflow(
    runtime: &Runtime,
    loaded: &Loaded,
    limits: &PluginLimits,
    access: &Access,
) -> Result<WorkflowInfo, String> {
    let Loaded::Workflow(pre) = loaded else {
        return Err("not a workflow".into());
    };
    let deadline = Instant::now() + Duration::from_millis(u64::from(limits.time_ms));
    let info = runtime
        .in_store(
            limits,
            HostState::new(access.clone(), deadline),
            None,
            |store| {
                let w = pre.instantiate(&mut *store)?;
                w.call_describe(store)
            },
        )
        .map_err(|e| e.to_string())?;
    Ok(info.into())
}

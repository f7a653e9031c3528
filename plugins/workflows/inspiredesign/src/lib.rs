//! The inspiredesign workflow (being written).

use webrig_workflow_sdk::serde_json::Value;
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{Workflow, export_workflow};

struct Flow;

impl Workflow for Flow {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "inspiredesign".into(),
            name: "inspiredesign".into(),
            description: String::new(),
            params: Vec::new(),
            outputs: Vec::new(),
        }
    }

    fn run(_input: Value) -> Result<Value, Error> {
        Err(Error::Unsupported("not written yet".into()))
    }
}

export_workflow!(Flow);

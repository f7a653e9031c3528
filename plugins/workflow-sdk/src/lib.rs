//! Guest SDK for webrig workflow plugins.
//!
//! It owns the bindings to `webrig:plugin@0.2.0` (world `workflow-plugin`)
//! and thin helpers over its imports, so a workflow is a [`Workflow`] impl
//! plus [`export_workflow!`]. The pure helpers (HTML, dates, URLs) come from
//! `webrig-kit`, re-exported here as [`kit`].
//!
//! ```ignore
//! use webrig_workflow_sdk::{export_workflow, Workflow, types::*};
//! struct Mine;
//! impl Workflow for Mine {
//!     fn info() -> WorkflowInfo { /* … */ }
//!     fn run(input: serde_json::Value) -> Result<serde_json::Value, Error> { /* … */ }
//! }
//! export_workflow!(Mine);
//! ```

wit_bindgen::generate!({
    world: "workflow-plugin",
    path: "../../wit/v0.2.0",
    pub_export_macro: true,
    default_bindings_module: "webrig_workflow_sdk",
    export_macro_name: "export_bindings",
    generate_all,
});

pub use serde_json;
pub use webrig_kit as kit;

#[cfg(not(target_arch = "wasm32"))]
pub mod testing;

/// The WIT records and error type, under short names.
pub mod types {
    pub use crate::webrig::plugin0_1_0::types::{Document, Error, ResultItem, SearchRequest};
    pub use crate::webrig::plugin0_2_0::types::{
        Failure, Fetched, Hit, Param, Saved, SearchOutcome, WorkflowInfo,
    };
}

use types::*;

/// What a workflow implements.
pub trait Workflow {
    /// Identity, parameters and outputs (`describe`).
    fn info() -> WorkflowInfo;

    /// Runs with the parameters the host validated against [`Workflow::info`]
    /// (a JSON object). The result must be a JSON object; see the WIT
    /// `workflow.run` for the keys the host renders.
    fn run(input: serde_json::Value) -> Result<serde_json::Value, Error>;
}

/// Exports a [`Workflow`] as the component's `workflow` interface.
///
/// In a `crate-type = ["cdylib", "rlib"]` crate, export only for wasm32:
/// `cargo test` then builds the cdylib natively too, and a native library
/// cannot carry the component's export names (the link fails):
///
/// ```ignore
/// #[cfg(target_arch = "wasm32")]
/// export_workflow!(Mine);
/// ```
#[macro_export]
macro_rules! export_workflow {
    ($ty:ident) => {
        impl $crate::exports::webrig::plugin0_2_0::workflow::Guest for $ty {
            fn describe() -> $crate::types::WorkflowInfo {
                <$ty as $crate::Workflow>::info()
            }
            fn run(
                input: ::std::string::String,
            ) -> ::core::result::Result<::std::string::String, $crate::types::Error> {
                $crate::run_json::<$ty>(&input)
            }
        }
        $crate::export_bindings!($ty with_types_in $crate);
    };
}

#[doc(hidden)]
pub fn run_json<W: Workflow>(input: &str) -> Result<String, Error> {
    let value: serde_json::Value = serde_json::from_str(input)
        .map_err(|e| Error::InvalidInput(format!("the input is not JSON: {e}")))?;
    let out = W::run(value)?;
    serde_json::to_string(&out).map_err(|e| Error::Internal(format!("encoding the result: {e}")))
}

/// A parameter declaration, for [`Workflow::info`].
pub fn param(name: &str, kind: &str, required: bool, description: &str) -> Param {
    Param {
        name: name.into(),
        kind: kind.into(),
        required,
        repeated: false,
        default: None,
        choices: Vec::new(),
        description: description.into(),
    }
}

/// Builders on [`Param`] for the optional parts.
pub trait ParamExt {
    fn with_default(self, value: &str) -> Param;
    fn choices(self, choices: &[&str]) -> Param;
    fn repeated(self) -> Param;
}

impl ParamExt for Param {
    fn with_default(mut self, value: &str) -> Param {
        self.default = Some(value.into());
        self
    }
    fn choices(mut self, choices: &[&str]) -> Param {
        self.kind = "choice".into();
        self.choices = choices.iter().map(|c| c.to_string()).collect();
        self
    }
    fn repeated(mut self) -> Param {
        self.repeated = true;
        self
    }
}

/// Tells the user what the run is doing.
pub fn progress(stage: &str, message: &str, done: u32, total: u32) {
    #[cfg(target_arch = "wasm32")]
    webrig::plugin0_2_0::progress::report(stage, message, done, total);
    #[cfg(not(target_arch = "wasm32"))]
    testing::report(stage, message, done, total);
}

/// The provider runtime. Natively (`cargo test`), [`crate::testing`]'s
/// mock answers.
pub mod runtime {
    use super::types::*;
    #[cfg(target_arch = "wasm32")]
    use crate::webrig::plugin0_2_0::runtime as rt;

    /// Natively: the same calls, answered by the mock.
    #[cfg(not(target_arch = "wasm32"))]
    mod rt {
        use crate::testing;
        use crate::types::*;

        pub fn search(source: &str, req: &SearchRequest) -> Result<SearchOutcome, Error> {
            testing::search(source, req)
        }

        pub fn search_many(
            sources: &[String],
            req: &SearchRequest,
        ) -> Vec<Result<SearchOutcome, Error>> {
            sources.iter().map(|s| testing::search(s, req)).collect()
        }

        pub fn fetch_many(urls: &[String]) -> Vec<Result<Fetched, Failure>> {
            urls.iter().map(|u| testing::fetch(u)).collect()
        }
    }

    fn request(query: &str, limit: u32) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            limit,
            options: Vec::new(),
        }
    }

    /// One search over the providers `source` selects.
    pub fn search(source: &str, query: &str, limit: u32) -> Result<SearchOutcome, Error> {
        rt::search(source, &request(query, limit))
    }

    /// One search per source, all at once.
    pub fn search_many(
        sources: &[String],
        query: &str,
        limit: u32,
    ) -> Vec<Result<SearchOutcome, Error>> {
        rt::search_many(sources, &request(query, limit))
    }

    /// Reads every URL at once.
    pub fn fetch_many(urls: &[String]) -> Vec<Result<Fetched, Failure>> {
        rt::fetch_many(urls)
    }
}

/// The run's bundle. Natively (`cargo test`), files are kept for
/// [`crate::testing::artifacts`].
pub mod artifacts {
    use super::types::*;
    #[cfg(not(target_arch = "wasm32"))]
    use crate::testing as a;
    #[cfg(target_arch = "wasm32")]
    use crate::webrig::plugin0_2_0::artifacts as a;

    pub fn write(name: &str, bytes: &[u8]) -> Result<String, Error> {
        a::write(name, bytes)
    }

    pub fn write_json(name: &str, value: &serde_json::Value) -> Result<String, Error> {
        let text = serde_json::to_vec_pretty(value)
            .map_err(|e| Error::Internal(format!("encoding {name}: {e}")))?;
        a::write(name, &text)
    }

    pub fn download(url: &str, name: &str) -> Result<Saved, Error> {
        a::download(url, name)
    }
}

/// Pages in the workflow's own browser session (browser grant).
pub mod browser {
    pub use crate::webrig::plugin0_1_0::browser::{
        close, extract, open, screenshot, snapshot, text,
    };

    /// Design tokens of an open page, as JSON text.
    pub fn tokens(page: &str) -> Result<String, super::types::Error> {
        crate::webrig::plugin0_2_0::design::tokens(page)
    }
}

/// Settings from `[plugins.<id>]` in config.toml, trimmed; None when blank.
pub fn config(key: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    let v = webrig::plugin0_1_0::config::get(key)?;
    #[cfg(not(target_arch = "wasm32"))]
    let v = testing::config(key)?;
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// Messages for the host's log. Natively (`cargo test`) they are kept for
/// [`crate::testing::logs`].
pub mod log {
    #[cfg(target_arch = "wasm32")]
    use crate::webrig::plugin0_1_0::log::{Level, log};

    #[cfg(target_arch = "wasm32")]
    pub fn info(message: &str) {
        log(Level::Info, message);
    }
    #[cfg(target_arch = "wasm32")]
    pub fn warn(message: &str) {
        log(Level::Warn, message);
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn info(message: &str) {
        crate::testing::log("info", message);
    }
    #[cfg(not(target_arch = "wasm32"))]
    pub fn warn(message: &str) {
        crate::testing::log("warn", message);
    }
}

/// The runtime's failure code (as in `failure.code`) for an error a host
/// import returned.
pub fn failure_code(e: &Error) -> &'static str {
    match e {
        Error::Denied(_) => "policy_blocked",
        Error::NotFound(_) => "not_found",
        Error::InvalidInput(_) => "invalid_input",
        Error::RateLimited(_) => "rate_limited",
        Error::Auth(_) => "auth",
        Error::Timeout(_) => "timeout",
        Error::Upstream(_) => "upstream",
        Error::Unsupported(_) => "not_supported",
        Error::Internal(_) => "internal",
    }
}

/// The error's message, whatever its kind.
pub fn error_message(e: &Error) -> &str {
    match e {
        Error::Denied(m)
        | Error::NotFound(m)
        | Error::InvalidInput(m)
        | Error::RateLimited(m)
        | Error::Auth(m)
        | Error::Timeout(m)
        | Error::Upstream(m)
        | Error::Unsupported(m)
        | Error::Internal(m) => m,
    }
}

//! The WIT versions this host implements: one complete package per released
//! version in `wit/vX.Y.Z/`, one bindings module per version here
//! (`wit/vX_Y_Z.rs`), and [`RELEASES`], the table of which worlds each
//! version defines and which of them this host runs.
//!
//! A plugin declares the version it was built against (`wit = "0.1.0"` in
//! its plugin.toml); [`check`] accepts it when that version's row runs the
//! plugin's kind, and otherwise names the versions that would do. Loading
//! binds the component with that version's bindings ([`bind`]); calls go
//! through [`Provider`] and [`Workflow`], which answer in the types the
//! rest of the host uses, whatever version the guest speaks.
//!
//! A later version re-uses the interfaces that did not change (its package
//! imports them from the earlier one through `deps/`), and its bindings
//! map them to the earlier module with bindgen `with:`, so each interface
//! has one implementation. Adding a version: `wit/README.md`.
//!
//! Published versions are frozen: `wit/v0.1.0/` and `wit/v0.2.0/` never
//! change, byte for byte.

pub mod v0_1_0;
pub mod v0_2_0;
pub mod v0_3_0;

use std::fmt;

use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

use super::engine::CallState;
use super::manifest::Kind;

/// The 0.1.0 types every later version re-uses (`error`, `provider-info`,
/// requests and results): what providers and the runtime speak.
pub use v0_1_0::types;

/// Every released version, oldest first: what each defines and runs.
pub const RELEASES: &[Release] = &[v0_1_0::RELEASE, v0_2_0::RELEASE, v0_3_0::RELEASE];

/// A WIT package version, `MAJOR.MINOR.PATCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// `MAJOR.MINOR.PATCH` of decimal numbers, nothing else.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.');
        let mut next = || {
            let p = parts.next()?;
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let v = Version::new(next()?, next()?, next()?);
        parts.next().is_none().then_some(v)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Binds a component linked against every version's imports to one
/// version's world.
pub type Bind = fn(InstancePre<CallState>) -> wasmtime::Result<Loaded>;

/// What this host does with a world a version defines.
#[derive(Clone, Copy)]
pub enum Support {
    /// It runs plugins of that world, bound this way.
    Runs(Bind),
    /// The version defines the world, but this host does not run it: why.
    Not(&'static str),
}

/// One released version: its worlds, by the plugin kind that implements
/// each, and how its imports are added to the linker.
#[derive(Clone, Copy)]
pub struct Release {
    pub version: Version,
    pub worlds: &'static [(Kind, Support)],
    pub add_to_linker: fn(&mut Linker<CallState>) -> wasmtime::Result<()>,
}

impl Release {
    fn support(&self, kind: Kind) -> Option<Support> {
        self.worlds
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, s)| *s)
    }

    fn runs(&self, kind: Kind) -> Option<Bind> {
        match self.support(kind)? {
            Support::Runs(bind) => Some(bind),
            Support::Not(_) => None,
        }
    }
}

/// The world plugins of `kind` implement: `provider-plugin`, …
pub fn world(kind: Kind) -> String {
    format!("{}-plugin", kind.as_str())
}

/// The versions this host runs `kind` plugins of, oldest first.
pub fn accepted(kind: Kind) -> Vec<Version> {
    RELEASES
        .iter()
        .filter(|r| r.runs(kind).is_some())
        .map(|r| r.version)
        .collect()
}

/// The accepted versions for `kind` as a range: `0.1.0`, `0.2.0 to 0.3.0`,
/// or `none` (no version runs it yet).
pub fn range(kind: Kind) -> String {
    let ok = accepted(kind);
    match (ok.first(), ok.last()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => "none".into(),
    }
}

/// What this host accepts for `kind`, as a sentence's end.
fn accepts(kind: Kind) -> String {
    let ok = accepted(kind);
    if ok.is_empty() {
        return format!(
            "this webrig runs no {} plugins yet (no WIT version it implements has their world)",
            kind.as_str()
        );
    }
    let list: Vec<String> = ok.iter().map(Version::to_string).collect();
    format!(
        "this webrig accepts WIT {} for {} plugins",
        list.join(", "),
        kind.as_str()
    )
}

/// Checks the version a `kind` plugin declares it was built against:
/// the version, or what is wrong with it and which versions would do.
pub fn check(kind: Kind, declared: &str) -> Result<Version, String> {
    let Some(version) = Version::parse(declared) else {
        return Err(format!(
            "{declared:?} is not a WIT version (MAJOR.MINOR.PATCH); {}",
            accepts(kind)
        ));
    };
    let Some(release) = RELEASES.iter().find(|r| r.version == version) else {
        let known: Vec<String> = RELEASES.iter().map(|r| r.version.to_string()).collect();
        return Err(format!(
            "WIT {version} is not a version this webrig knows (it knows {}; a newer webrig may); {}",
            known.join(", "),
            accepts(kind)
        ));
    };
    match release.support(kind) {
        Some(Support::Runs(_)) => Ok(version),
        Some(Support::Not(why)) => Err(format!(
            "WIT {version}'s {} world is not implemented by this webrig ({why}); {}",
            world(kind),
            accepts(kind)
        )),
        None => Err(format!(
            "WIT {version} has no {} world; {}",
            world(kind),
            accepts(kind)
        )),
    }
}

/// Adds every released version's imports (and nothing else) to `linker`.
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    for release in RELEASES {
        (release.add_to_linker)(linker)
            .map_err(|e| e.context(format!("WIT {}", release.version)))?;
    }
    Ok(())
}

/// Binds a linked component as a `kind` plugin built against `version`.
pub fn bind(kind: Kind, version: Version, pre: InstancePre<CallState>) -> Result<Loaded, String> {
    let bind = RELEASES
        .iter()
        .find(|r| r.version == version)
        .and_then(|r| r.runs(kind))
        .ok_or_else(|| {
            check(kind, &version.to_string())
                .err()
                .unwrap_or_else(|| format!("WIT {version} {} is not bound", world(kind)))
        })?;
    bind(pre).map_err(|e| {
        format!(
            "the component does not export WIT {version}'s {} interface: {e}",
            kind.as_str()
        )
    })
}

/// A plugin compiled, linked and bound to its version's world, ready to
/// instantiate per call.
pub enum Loaded {
    Provider(ProviderPre),
    Workflow(WorkflowPre),
    Adapter(AdapterPre),
}

/// A provider, by the version it was built against.
pub enum ProviderPre {
    V0_1_0(v0_1_0::ProviderPluginPre<CallState>),
}

/// A workflow, by the version it was built against.
pub enum WorkflowPre {
    V0_2_0(v0_2_0::WorkflowPluginPre<CallState>),
}

/// An adapter, by the version it was built against.
pub enum AdapterPre {
    V0_3_0(v0_3_0::AdapterPluginPre<CallState>),
}

/// An adapter instance (one per call).
pub enum Adapter {
    V0_3_0(v0_3_0::AdapterPlugin),
}

impl AdapterPre {
    pub fn instantiate(&self, store: &mut Store<CallState>) -> wasmtime::Result<Adapter> {
        Ok(match self {
            AdapterPre::V0_3_0(pre) => Adapter::V0_3_0(pre.instantiate(store)?),
        })
    }
}

impl Adapter {
    /// The adapter interface, whatever version the guest speaks (one so
    /// far; a later version converts here).
    pub fn guest(&self) -> &v0_3_0::guest::Guest {
        match self {
            Adapter::V0_3_0(a) => a.webrig_plugin0_3_0_adapter(),
        }
    }
}

/// A provider instance (one per call).
pub enum Provider {
    V0_1_0(v0_1_0::ProviderPlugin),
}

/// A workflow instance (one per call).
pub enum Workflow {
    V0_2_0(v0_2_0::WorkflowPlugin),
}

impl ProviderPre {
    pub fn instantiate(&self, store: &mut Store<CallState>) -> wasmtime::Result<Provider> {
        Ok(match self {
            ProviderPre::V0_1_0(pre) => Provider::V0_1_0(pre.instantiate(store)?),
        })
    }
}

impl WorkflowPre {
    pub fn instantiate(&self, store: &mut Store<CallState>) -> wasmtime::Result<Workflow> {
        Ok(match self {
            WorkflowPre::V0_2_0(pre) => Workflow::V0_2_0(pre.instantiate(store)?),
        })
    }
}

type Answer<T> = wasmtime::Result<Result<T, types::Error>>;

impl Provider {
    pub fn call_describe(
        &self,
        store: &mut Store<CallState>,
    ) -> wasmtime::Result<types::ProviderInfo> {
        match self {
            Provider::V0_1_0(p) => p.webrig_plugin_provider().call_describe(store),
        }
    }

    pub fn call_search(
        &self,
        store: &mut Store<CallState>,
        req: &types::SearchRequest,
    ) -> Answer<Vec<types::ResultItem>> {
        match self {
            Provider::V0_1_0(p) => p.webrig_plugin_provider().call_search(store, req),
        }
    }

    pub fn call_fetch(
        &self,
        store: &mut Store<CallState>,
        req: &types::FetchRequest,
    ) -> Answer<types::Document> {
        match self {
            Provider::V0_1_0(p) => p.webrig_plugin_provider().call_fetch(store, req),
        }
    }
}

impl Workflow {
    pub fn call_describe(
        &self,
        store: &mut Store<CallState>,
    ) -> wasmtime::Result<v0_2_0::types::WorkflowInfo> {
        match self {
            Workflow::V0_2_0(w) => w.webrig_plugin0_2_0_workflow().call_describe(store),
        }
    }

    /// `input` and the answer are JSON objects.
    pub fn call_run(&self, store: &mut Store<CallState>, input: &str) -> Answer<String> {
        match self {
            Workflow::V0_2_0(w) => w.webrig_plugin0_2_0_workflow().call_run(store, input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_strictly() {
        assert_eq!(Version::parse("0.1.0"), Some(Version::new(0, 1, 0)));
        assert_eq!(Version::parse("10.20.30"), Some(Version::new(10, 20, 30)));
        for bad in [
            "",
            "0.1",
            "0.1.0.0",
            "v0.1.0",
            "0.1.x",
            "0..1",
            " 0.1.0",
            "0.1.-1",
            "+1.0.0",
            "9999999999.0.0",
        ] {
            assert_eq!(Version::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Version::new(0, 2, 0).to_string(), "0.2.0");
    }

    #[test]
    fn the_table_lists_each_version_once_in_order() {
        let versions: Vec<Version> = RELEASES.iter().map(|r| r.version).collect();
        let mut sorted = versions.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(versions, sorted);
    }

    #[test]
    fn each_kind_accepts_the_versions_that_run_its_world() {
        assert_eq!(accepted(Kind::Provider), vec![Version::new(0, 1, 0)]);
        assert_eq!(accepted(Kind::Workflow), vec![Version::new(0, 2, 0)]);
        assert_eq!(accepted(Kind::Adapter), vec![Version::new(0, 3, 0)]);
        assert_eq!(range(Kind::Provider), "0.1.0");
        assert_eq!(range(Kind::Adapter), "0.3.0");
        assert_eq!(check(Kind::Adapter, "0.3.0"), Ok(Version::new(0, 3, 0)));
        assert_eq!(check(Kind::Provider, "0.1.0"), Ok(Version::new(0, 1, 0)));
        assert_eq!(check(Kind::Workflow, "0.2.0"), Ok(Version::new(0, 2, 0)));
    }

    #[test]
    fn refusals_say_what_is_wrong_and_name_the_accepted_versions() {
        let cases = [
            (
                Kind::Provider,
                "0.2.0",
                "has no provider-plugin world",
                "accepts WIT 0.1.0",
            ),
            (
                Kind::Workflow,
                "0.1.0",
                "workflow-plugin world is not implemented",
                "accepts WIT 0.2.0",
            ),
            (
                Kind::Provider,
                "0.9.0",
                "not a version this webrig knows (it knows 0.1.0, 0.2.0, 0.3.0",
                "accepts WIT 0.1.0",
            ),
            (
                Kind::Workflow,
                "zero",
                "\"zero\" is not a WIT version",
                "accepts WIT 0.2.0",
            ),
            (
                Kind::Adapter,
                "0.1.0",
                "adapter-plugin world is not implemented",
                "accepts WIT 0.3.0 for adapter",
            ),
        ];
        for (kind, declared, what, accepted) in cases {
            let err = check(kind, declared).expect_err(declared);
            assert!(
                err.contains(what) && err.contains(accepted),
                "{kind:?} {declared}: {err}"
            );
        }
    }
}

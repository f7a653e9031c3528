//! `plugin.toml`: what a plugin is and what it asks for.
//!
//! Parsing is strict (unknown keys are errors) and every error names the
//! field, so a typo can never widen or silently drop a capability.

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Provider,
    Workflow,
    Adapter,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Provider => "provider",
            Kind::Workflow => "workflow",
            Kind::Adapter => "adapter",
        }
    }
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum BrowserAccess {
    #[default]
    None,
    Read,
    Interact,
}

/// What a plugin asks to use. Absent means none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    /// Hosts it may reach: `api.example.com`, `*.example.org` (subdomains
    /// only), optionally with `:port`.
    pub http: Vec<String>,
    /// Config keys (`[plugins.<id>]` in config.toml) whose URL value's host
    /// the plugin may also reach: the user setting the key is the grant.
    pub http_from_config: Vec<String>,
    pub browser: BrowserAccess,
    pub cache: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PluginLimits {
    pub memory_mb: u32,
    pub time_ms: u32,
    /// Largest result the plugin may return, bytes.
    pub output_kb: u32,
}

impl Default for PluginLimits {
    fn default() -> Self {
        PluginLimits {
            memory_mb: 64,
            time_ms: 10_000,
            output_kb: 4096,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub id: String,
    pub version: String,
    pub kind: Kind,
    /// The WIT package version it was built against: one this host
    /// accepts for its kind (`crate::plugins::wit::RELEASES`).
    pub wit: String,
    #[serde(default)]
    pub description: String,
    /// The component file, relative to the manifest.
    pub component: String,
    /// Hex sha256 of the component; recorded at install, checked at load.
    #[serde(default)]
    pub sha256: Option<String>,
    #[serde(default)]
    pub capabilities: Capabilities,
    #[serde(default)]
    pub limits: PluginLimits,
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{file}: {message}")]
pub struct ManifestError {
    file: String,
    message: String,
}

impl ManifestError {
    fn new(file: &Path, message: impl Into<String>) -> Self {
        ManifestError {
            file: file.display().to_string(),
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl Manifest {
    pub fn parse(text: &str, file: &Path) -> Result<Manifest, ManifestError> {
        let m: Manifest = toml::from_str(text)
            .map_err(|e| ManifestError::new(file, e.to_string().trim().to_string()))?;
        let bad = |field: &str, why: &str| {
            Err(ManifestError::new(file, format!("field `{field}`: {why}")))
        };
        let id_ok = !m.id.is_empty()
            && m.id.len() <= 56
            && m.id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !m.id.starts_with('-');
        if !id_ok {
            return bad("id", "1-56 of a-z 0-9 -, not starting with -");
        }
        let version_ok = m.version.split('.').count() == 3
            && m.version
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if !version_ok {
            return bad("version", "must be MAJOR.MINOR.PATCH");
        }
        if let Err(why) = m.wit_version() {
            return bad("wit", &why);
        }
        let comp = Path::new(&m.component);
        if m.component.is_empty()
            || comp.is_absolute()
            || comp
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return bad("component", "a file name inside the plugin's folder");
        }
        if let Some(sha) = &m.sha256
            && (sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return bad("sha256", "64 hex digits");
        }
        for host in &m.capabilities.http {
            if let Err(why) = super::grants::HostRule::parse(host) {
                return bad("capabilities.http", &format!("{host:?}: {why}"));
            }
        }
        for key in &m.capabilities.http_from_config {
            let ok = !key.is_empty()
                && key.len() <= 64
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !ok {
                return bad("capabilities.http_from_config", "keys of 1-64 a-z 0-9 _");
            }
        }
        if matches!(m.component.as_str(), "plugin.toml" | "grant.toml") {
            return bad("component", "plugin.toml and grant.toml are reserved names");
        }
        let l = &m.limits;
        if !(1..=1024).contains(&l.memory_mb) {
            return bad("limits.memory_mb", "1..=1024");
        }
        if !(1..=120_000).contains(&l.time_ms) {
            return bad("limits.time_ms", "1..=120000");
        }
        if !(1..=65_536).contains(&l.output_kb) {
            return bad("limits.output_kb", "1..=65536");
        }
        Ok(m)
    }

    /// The WIT version it was built against, checked against what this
    /// host accepts for its kind.
    pub fn wit_version(&self) -> Result<super::wit::Version, String> {
        super::wit::check(self.kind, &self.wit)
    }

    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| ManifestError::new(path, e.to_string()))?;
        Manifest::parse(&text, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
        id = "hello-provider"
        version = "0.1.0"
        kind = "provider"
        wit = "0.1.0"
        component = "hello_provider.wasm"
        [capabilities]
        http = ["api.example.com", "*.example.org:8443"]
        cache = true
    "#;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse(text, Path::new("plugin.toml"))
    }

    #[test]
    fn a_good_manifest_parses_with_defaults() {
        let m = parse(GOOD).expect("parses");
        assert_eq!(m.kind, Kind::Provider);
        assert_eq!(m.capabilities.browser, BrowserAccess::None);
        assert_eq!(m.limits, PluginLimits::default());
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                GOOD.replace("kind = \"provider\"", "kind = \"daemon\""),
                "kind",
            ),
            (
                GOOD.replace("\"0.1.0\"\n        kind", "\"1\"\n        kind"),
                "version",
            ),
            (GOOD.replace("wit = \"0.1.0\"", "wit = \"9.9.9\""), "wit"),
            (
                GOOD.replace("hello_provider.wasm", "../../etc/passwd"),
                "component",
            ),
            (
                GOOD.replace("cache = true", "cache = true\nsockets = true"),
                "sockets",
            ),
            (
                GOOD.replace("api.example.com", "http://api.example.com/x"),
                "capabilities.http",
            ),
            (
                GOOD.replace("id = \"hello-provider\"", "id = \"Hello Provider\""),
                "id",
            ),
            (
                GOOD.replace("api.example.com", "localhost"),
                "capabilities.http",
            ),
            (
                GOOD.replace("api.example.com", "127.0.0.1"),
                "capabilities.http",
            ),
            (
                format!("{GOOD}\n[limits]\nmemory_mb = 0\n"),
                "limits.memory_mb",
            ),
            (GOOD.replace("id = \"hello-provider\"\n", ""), "id"),
        ];
        for (text, field) in cases {
            let err = parse(&text).expect_err(field);
            assert!(err.to_string().contains(field), "{field}: {err}");
        }
    }
}

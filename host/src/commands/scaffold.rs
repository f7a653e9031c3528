//! `plugin new`: writes an out-of-tree plugin crate that builds with one
//! command and tests natively.
//!
//! The SDK is not published, so the crate carries it: the SDK crates'
//! sources and the WIT files are embedded in this binary (`include_str!`)
//! and written under `vendor/`, in the same layout as this repository
//! (`vendor/plugins/provider-sdk`, `vendor/wit/v0.1.0`, …) so the SDK's
//! `wit_bindgen::generate!(path: "../../wit/…")` resolves unchanged. The
//! crate's own `Cargo.toml` declares a workspace whose
//! `[workspace.package]`, `[workspace.dependencies]` and
//! `[workspace.lints.*]` are copied from `plugins/Cargo.toml` (paths
//! pointed into `vendor/`), so the vendored
//! manifests are byte-for-byte webrig's, and `plugins/Cargo.lock` comes
//! along to pin the same crates.io versions. Templates: `host/src/scaffold/`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::error::{ApiError, ErrorCode};

/// Which kind of plugin to start.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A provider: search and fetch for one service (WIT 0.1.0).
    #[default]
    Provider,
    /// A workflow: searches, reads and writes a bundle (WIT 0.2.0).
    Workflow,
    /// A framework adapter for the design canvas: source text to a graph
    /// and back (WIT 0.3.0).
    Adapter,
}

/// Start a new plugin crate: a provider or workflow with the SDK vendored,
/// unit tests against canned HTTP, plugin.toml and a README.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginNew {
    /// The plugin's id and crate name: 1-56 of a-z 0-9 -, starting with a letter.
    pub name: String,
    /// provider, workflow or adapter.
    #[arg(long, value_enum, default_value_t = Kind::Provider)]
    #[serde(default)]
    pub kind: Kind,
    /// The folder to write (default: ./NAME); it must not exist or be empty.
    #[arg(long)]
    #[serde(default)]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Scaffolded {
    pub name: String,
    pub kind: Kind,
    /// The crate's folder.
    pub dir: String,
    /// Every file written, relative to `dir`.
    pub files: Vec<String>,
    /// Commands to run next, in `dir`.
    pub next: Vec<String>,
}

impl Command for PluginNew {
    const NAME: &'static str = "plugin new";
    const ABOUT: &'static str =
        "Start a plugin crate (provider, workflow or adapter): SDK vendored, tests, plugin.toml";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Scaffolded;

    fn prepare(&mut self) -> Result<(), ApiError> {
        check_name(&self.name).map_err(ApiError::invalid)?;
        if self.dir.is_none() {
            self.dir = Some(PathBuf::from(&self.name));
        }
        absolutize(&mut self.dir)
    }

    async fn run(self, cx: Cx) -> Result<Scaffolded, ApiError> {
        cx.require_local_files("plugin new")?;
        check_name(&self.name).map_err(ApiError::invalid)?;
        let dir = match self.dir {
            Some(d) if d.is_absolute() => d,
            _ => {
                return Err(ApiError::invalid(
                    "dir: give the folder to write as an absolute path",
                ));
            }
        };
        if !is_empty_or_missing(&dir) {
            return Err(ApiError::new(
                ErrorCode::InvalidArgument,
                format!("{} exists and is not an empty folder", dir.display()),
            )
            .with_hint("give another --dir, or remove that folder"));
        }
        let (name, kind, at) = (self.name.clone(), self.kind, dir.clone());
        let written = tokio::task::spawn_blocking(move || write(&name, kind, &at))
            .await
            .map_err(|e| ApiError::internal(format!("writing: {e}")))?
            .map_err(ApiError::internal)?;
        let files = written
            .iter()
            .map(|p| {
                p.strip_prefix(&dir)
                    .unwrap_or(p)
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        Ok(Scaffolded {
            next: next_steps(
                &self.name,
                self.kind,
                &dir,
                &cx.state().home().root().join("config.toml"),
            ),
            name: self.name,
            kind: self.kind,
            dir: dir.display().to_string(),
            files,
        })
    }

    fn human(out: &Scaffolded) -> String {
        let (vendored, own): (Vec<&String>, Vec<&String>) =
            out.files.iter().partition(|f| f.starts_with("vendor/"));
        let mut lines = vec![format!(
            "created {} {} in {}",
            format!("{:?}", out.kind).to_lowercase(),
            out.name,
            out.dir
        )];
        lines.extend(own.iter().map(|f| format!("  {f}")));
        lines.push(format!(
            "  vendor/ ({} files: the SDK and WIT)",
            vendored.len()
        ));
        lines.push("next:".into());
        lines.extend(out.next.iter().map(|c| format!("  {c}")));
        lines.join("\n")
    }
}

/// The commands a new crate's author runs next.
fn next_steps(name: &str, kind: Kind, dir: &Path, config: &Path) -> Vec<String> {
    let mut steps = vec![
        format!("cd {}", dir.display()),
        "cargo test".to_string(),
        "cargo build --release --target wasm32-wasip2".to_string(),
        format!(
            "webrig plugin install target/wasm32-wasip2/release/{}.wasm --manifest plugin.toml --grant",
            crate_ident(name)
        ),
    ];
    steps.push(match kind {
        Kind::Provider => format!(
            "set base_url in [plugins.{name}] of {}, then: webrig search \"test\" --provider {name}",
            config.display()
        ),
        Kind::Workflow => format!("webrig run workflow {name} --topic \"test\""),
        Kind::Adapter => format!(
            "webrig canvas new notes && webrig canvas code pull notes notes.lines --adapter {name}"
        ),
    });
    steps
}

/// Files embedded from this repository: (path relative to the repository
/// root, which is also the path under `vendor/`, contents).
macro_rules! embed {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../../", $path)))),*]
    };
}

const KIT: &[(&str, &str)] = embed![
    "plugins/kit/Cargo.toml",
    "plugins/kit/src/lib.rs",
    "plugins/kit/src/date.rs",
    "plugins/kit/src/escape.rs",
    "plugins/kit/src/html.rs",
    "plugins/kit/src/html/entities.rs",
    "plugins/kit/src/html/meta.rs",
    "plugins/kit/src/html/parse.rs",
    "plugins/kit/src/html/product.rs",
    "plugins/kit/src/html/product/jsonld.rs",
    "plugins/kit/src/html/product/microdata.rs",
    "plugins/kit/src/html/product/sections.rs",
    "plugins/kit/src/html/product/tests.rs",
    "plugins/kit/src/html/select.rs",
    "plugins/kit/src/html/text.rs",
    "plugins/kit/src/readable.rs",
    "plugins/kit/src/readable/content.rs",
    "plugins/kit/src/readable/metadata.rs",
    "plugins/kit/src/readable/tests.rs",
    "plugins/kit/src/url.rs",
];

const PROVIDER_SDK: &[(&str, &str)] = embed![
    "plugins/provider-sdk/Cargo.toml",
    "plugins/provider-sdk/src/lib.rs",
    "plugins/provider-sdk/src/http.rs",
    "plugins/provider-sdk/src/testing.rs",
    "wit/v0.1.0/plugin.wit",
];

const ADAPTER_SDK: &[(&str, &str)] = embed![
    "plugins/adapter-sdk/Cargo.toml",
    "plugins/adapter-sdk/src/lib.rs",
    "wit/v0.3.0/adapter.wit",
];

const WORKFLOW_SDK: &[(&str, &str)] = embed![
    "plugins/workflow-sdk/Cargo.toml",
    "plugins/workflow-sdk/src/lib.rs",
    "plugins/workflow-sdk/src/testing.rs",
    "wit/v0.2.0/workflow.wit",
];

/// `wit/v0.2.0/deps/plugin-0.1.0` is a symlink in the repository; the
/// scaffold writes a copy (symlinks do not survive every checkout).
const WORKFLOW_DEPS: (&str, &str) = (
    "wit/v0.2.0/deps/plugin-0.1.0/plugin.wit",
    include_str!("../../../wit/v0.1.0/plugin.wit"),
);

/// 0.3.0's link to 0.1.0, written as a copy too.
const ADAPTER_DEPS: (&str, &str) = (
    "wit/v0.3.0/deps/plugin-0.1.0/plugin.wit",
    include_str!("../../../wit/v0.1.0/plugin.wit"),
);

/// Where the vendored crates' shared versions come from.
const PLUGINS_MANIFEST: &str = include_str!("../../../plugins/Cargo.toml");
const PLUGINS_LOCK: &str = include_str!("../../../plugins/Cargo.lock");

const CARGO_TOML: &str = include_str!("../scaffold/Cargo.toml.tmpl");
const GITIGNORE: &str = include_str!("../scaffold/gitignore.tmpl");
const VENDOR_README: &str = include_str!("../scaffold/vendor-README.md.tmpl");
const PROVIDER_LIB: &str = include_str!("../scaffold/provider/lib.rs.tmpl");
const PROVIDER_MANIFEST: &str = include_str!("../scaffold/provider/plugin.toml.tmpl");
const PROVIDER_README: &str = include_str!("../scaffold/provider/README.md.tmpl");
const WORKFLOW_LIB: &str = include_str!("../scaffold/workflow/lib.rs.tmpl");
const WORKFLOW_MANIFEST: &str = include_str!("../scaffold/workflow/plugin.toml.tmpl");
const WORKFLOW_README: &str = include_str!("../scaffold/workflow/README.md.tmpl");
const ADAPTER_LIB: &str = include_str!("../scaffold/adapter/lib.rs.tmpl");
const ADAPTER_MANIFEST: &str = include_str!("../scaffold/adapter/plugin.toml.tmpl");
const ADAPTER_README: &str = include_str!("../scaffold/adapter/README.md.tmpl");

/// Names a crate cannot take: Rust's own crates and keywords.
const RESERVED: &str = "std core alloc test proc-macro self super crate as async await \
    break const continue dyn else enum extern false fn for if impl in \
    let loop match mod move mut pub ref return static struct trait \
    true type unsafe use where while abstract become box do final \
    macro override priv typeof unsized virtual yield try gen";

/// A plugin id (as plugin.toml wants it) that is also a usable crate name.
pub fn check_name(name: &str) -> Result<(), String> {
    let id_ok = !name.is_empty()
        && name.len() <= 56
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-');
    if !id_ok {
        return Err(format!(
            "{name:?}: a plugin name is 1-56 of a-z 0-9 -, not starting with -"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(format!(
            "{name:?}: the name is also the crate's, which must start with a letter"
        ));
    }
    if RESERVED.split_whitespace().any(|w| w == name) {
        return Err(format!("{name:?} is reserved by Rust; choose another name"));
    }
    // The crates the vendored SDK pulls in: a crate of the same name would
    // clash with its own dependency.
    let taken = PLUGINS_LOCK.lines().any(|l| {
        l.strip_prefix("name = \"")
            .and_then(|r| r.strip_suffix('"'))
            .is_some_and(|n| n.replace('_', "-") == name)
    });
    if taken {
        return Err(format!(
            "{name:?} is the name of a crate the SDK depends on; choose another name"
        ));
    }
    Ok(())
}

fn is_empty_or_missing(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// The crate's library name: the component is `target/…/<ident>.wasm`.
fn crate_ident(name: &str) -> String {
    name.replace('-', "_")
}

/// `[workspace.package]`, `[workspace.dependencies]` and the
/// `[workspace.lints.*]` tables of plugins/Cargo.toml, with the SDK crates' paths pointed into `vendor/`
/// and the crates not vendored for `kind` left out.
fn workspace_tables(kind: Kind) -> Result<String, String> {
    let vendored: &[&str] = match kind {
        Kind::Provider => &["provider-sdk", "kit"],
        Kind::Workflow => &["workflow-sdk", "kit"],
        Kind::Adapter => &["adapter-sdk"],
    };
    let mut out = String::new();
    // The vendored crates opt into the workspace's lints (`[lints]
    // workspace = true`), so the lint tables come along too.
    for table in [
        "[workspace.package]",
        "[workspace.dependencies]",
        "[workspace.lints.rust]",
        "[workspace.lints.clippy]",
    ] {
        let start = PLUGINS_MANIFEST
            .find(&format!("\n{table}\n"))
            .ok_or_else(|| format!("plugins/Cargo.toml has no {table}"))?;
        let mut body = String::new();
        for line in PLUGINS_MANIFEST[start + table.len() + 2..].lines() {
            if line.starts_with('[') {
                break;
            }
            match path_of(line) {
                None => body.push_str(line),
                Some(p) if vendored.contains(&p) => {
                    body.push_str(&line.replace(
                        &format!("path = \"{p}\""),
                        &format!("path = \"vendor/plugins/{p}\""),
                    ));
                }
                Some(_) => continue,
            }
            body.push('\n');
        }
        out.push_str(&format!("{table}\n{}\n\n", body.trim_end()));
    }
    Ok(out)
}

/// The `path = "…"` of a dependency line.
fn path_of(line: &str) -> Option<&str> {
    let rest = &line[line.find("path = \"")? + 8..];
    Some(&rest[..rest.find('"')?])
}

/// Writes a new plugin crate for `name` into `dir` (created; it must not
/// exist or be empty) and returns the files written. On failure nothing
/// written is left behind.
pub fn write(name: &str, kind: Kind, dir: &Path) -> Result<Vec<PathBuf>, String> {
    check_name(name)?;
    if !is_empty_or_missing(dir) {
        return Err(format!(
            "{} exists and is not an empty folder",
            dir.display()
        ));
    }
    let files = files(name, kind)?;
    let existed = dir.exists();
    let mut written = Vec::new();
    let result = files.iter().try_for_each(|(rel, text)| {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("creating {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        written.push(path);
        Ok::<(), String>(())
    });
    if let Err(e) = result {
        if existed {
            // Only what this call wrote: the folder was empty before.
            if let Ok(entries) = std::fs::read_dir(dir) {
                for entry in entries.flatten() {
                    let p = entry.path();
                    let _ = if p.is_dir() {
                        std::fs::remove_dir_all(&p)
                    } else {
                        std::fs::remove_file(&p)
                    };
                }
            }
        } else {
            let _ = std::fs::remove_dir_all(dir);
        }
        return Err(e);
    }
    Ok(written)
}

/// Every file of the new crate: (path relative to its folder, contents).
fn files(name: &str, kind: Kind) -> Result<Vec<(String, String)>, String> {
    let ident = crate_ident(name);
    let fill = |t: &str| {
        t.replace("__NAME__", name)
            .replace("__CRATE__", &ident)
            .replace("__WEBRIG_VERSION__", crate::VERSION)
    };
    let (lib, manifest, readme, sdk, vendored) = match kind {
        Kind::Provider => (
            PROVIDER_LIB,
            PROVIDER_MANIFEST,
            PROVIDER_README,
            "webrig-provider-sdk",
            PROVIDER_SDK.to_vec(),
        ),
        Kind::Workflow => {
            let mut v = WORKFLOW_SDK.to_vec();
            v.push(WORKFLOW_DEPS);
            (
                WORKFLOW_LIB,
                WORKFLOW_MANIFEST,
                WORKFLOW_README,
                "webrig-workflow-sdk",
                v,
            )
        }
        Kind::Adapter => {
            let mut v = ADAPTER_SDK.to_vec();
            v.push(ADAPTER_DEPS);
            (
                ADAPTER_LIB,
                ADAPTER_MANIFEST,
                ADAPTER_README,
                "webrig-adapter-sdk",
                v,
            )
        }
    };
    // Adapters do not use the kit (HTML, dates, URLs).
    let kit: &[(&str, &str)] = if kind == Kind::Adapter { &[] } else { KIT };
    let cargo = fill(CARGO_TOML)
        .replace("__SDK__", sdk)
        .replace("__WORKSPACE_TABLES__", &workspace_tables(kind)?);
    let mut out = vec![
        ("Cargo.toml".to_string(), cargo),
        ("Cargo.lock".to_string(), PLUGINS_LOCK.to_string()),
        (".gitignore".to_string(), GITIGNORE.to_string()),
        ("README.md".to_string(), fill(readme)),
        ("plugin.toml".to_string(), fill(manifest)),
        ("src/lib.rs".to_string(), fill(lib)),
        ("vendor/README.md".to_string(), fill(VENDOR_README)),
    ];
    out.extend(
        kit.iter()
            .chain(vendored.iter())
            .map(|(p, text)| (format!("vendor/{p}"), text.to_string())),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// Every file of `dir` (relative to the repository), sorted.
    fn on_disk(dir: &str) -> Vec<String> {
        fn walk(root: &Path, at: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(at).expect("readable").flatten() {
                let p = entry.path();
                if p.is_dir() {
                    if p.file_name().is_some_and(|n| n != "target") {
                        walk(root, &p, out);
                    }
                } else if let Ok(rel) = p.strip_prefix(root) {
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        let mut out = Vec::new();
        walk(&repo(), &repo().join(dir), &mut out);
        out.sort();
        out
    }

    fn embedded(list: &[(&str, &str)], under: &str) -> Vec<String> {
        let mut v: Vec<String> = list
            .iter()
            .map(|(p, _)| p.to_string())
            .filter(|p| p.starts_with(under))
            .collect();
        v.sort();
        v
    }

    /// A file added to an SDK crate must be added to the embedded lists,
    /// or scaffolded crates would not build.
    #[test]
    fn the_embedded_sdk_is_every_file_of_it() {
        let wit2: Vec<String> = on_disk("wit/v0.2.0")
            .into_iter()
            .filter(|p| !p.contains("/deps/"))
            .collect();
        let wit3: Vec<String> = on_disk("wit/v0.3.0")
            .into_iter()
            .filter(|p| !p.contains("/deps/"))
            .collect();
        for (list, name, under, disk) in [
            (KIT, "KIT", "plugins/kit/", on_disk("plugins/kit")),
            (
                PROVIDER_SDK,
                "PROVIDER_SDK",
                "plugins/provider-sdk/",
                on_disk("plugins/provider-sdk"),
            ),
            (
                WORKFLOW_SDK,
                "WORKFLOW_SDK",
                "plugins/workflow-sdk/",
                on_disk("plugins/workflow-sdk"),
            ),
            (PROVIDER_SDK, "PROVIDER_SDK", "wit/", on_disk("wit/v0.1.0")),
            (WORKFLOW_SDK, "WORKFLOW_SDK", "wit/", wit2),
            (
                ADAPTER_SDK,
                "ADAPTER_SDK",
                "plugins/adapter-sdk/",
                on_disk("plugins/adapter-sdk"),
            ),
            (ADAPTER_SDK, "ADAPTER_SDK", "wit/", wit3),
        ] {
            let listed = embedded(list, under);
            let missing: Vec<&String> = disk.iter().filter(|p| !listed.contains(p)).collect();
            let gone: Vec<&String> = listed.iter().filter(|p| !disk.contains(p)).collect();
            assert!(
                missing.is_empty() && gone.is_empty(),
                "{name} in host/src/commands/scaffold.rs: add {missing:?}, remove {gone:?}"
            );
        }
    }

    #[test]
    fn names_are_plugin_ids_and_crate_names() {
        for ok in ["demo", "demo-provider", "a", "x9", &"a".repeat(56)] {
            assert_eq!(check_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "-x",
            "Demo",
            "a_b",
            "a.b",
            "9gag",
            &"a".repeat(57),
            "fn",
            "test",
            "serde",
            "wit-bindgen",
            "webrig-kit",
            "webrig-provider-sdk",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn the_workspace_tables_point_into_vendor() {
        for kind in [Kind::Provider, Kind::Workflow, Kind::Adapter] {
            let files = files("demo-x", kind).expect("files");
            let cargo = &files[0].1;
            let parsed: toml::Table = toml::from_str(cargo).expect("Cargo.toml is TOML");
            assert_eq!(parsed["package"]["name"].as_str(), Some("demo-x"));
            let deps = parsed["workspace"]["dependencies"]
                .as_table()
                .expect("deps");
            assert!(deps.contains_key("wit-bindgen"));
            if kind != Kind::Adapter {
                assert_eq!(
                    deps["webrig-kit"]["path"].as_str(),
                    Some("vendor/plugins/kit")
                );
            }
            let (sdk, other) = match kind {
                Kind::Provider => ("webrig-provider-sdk", "webrig-workflow-sdk"),
                Kind::Workflow => ("webrig-workflow-sdk", "webrig-provider-sdk"),
                Kind::Adapter => ("webrig-adapter-sdk", "webrig-kit"),
            };
            let path = deps[sdk]["path"].as_str().expect("sdk path");
            assert!(
                files
                    .iter()
                    .any(|(p, _)| p == &format!("{path}/Cargo.toml")),
                "{path}"
            );
            assert!(!deps.contains_key(other), "{other} is not vendored");
            assert!(parsed["dependencies"][sdk]["workspace"].as_bool() == Some(true));
            assert!(parsed["workspace"]["package"]["edition"].is_str());
            // The vendored crates inherit the workspace's lints.
            assert!(parsed["workspace"]["lints"]["rust"]["unsafe_code"].is_str());
            assert!(parsed["workspace"]["lints"]["clippy"]["unwrap_used"].is_str());
            // No placeholder survives.
            for (p, text) in &files {
                if !p.starts_with("vendor/plugins") && !p.starts_with("vendor/wit") {
                    assert!(!text.contains("__"), "{p} keeps a placeholder");
                }
            }
        }
    }

    #[test]
    fn the_manifests_are_valid_and_least_privilege() {
        use crate::plugins::manifest::{BrowserAccess, Manifest};
        for (kind, wit) in [
            (Kind::Provider, "0.1.0"),
            (Kind::Workflow, "0.2.0"),
            (Kind::Adapter, "0.3.0"),
        ] {
            let files = files("demo-x", kind).expect("files");
            let (_, text) = files
                .iter()
                .find(|(p, _)| p == "plugin.toml")
                .expect("plugin.toml");
            let m = Manifest::parse(text, Path::new("plugin.toml")).expect("valid manifest");
            assert_eq!(m.id, "demo-x");
            assert_eq!(m.wit, wit);
            assert_eq!(m.component, "demo_x.wasm");
            assert!(m.capabilities.http.is_empty());
            assert_eq!(m.capabilities.browser, BrowserAccess::None);
            assert!(!m.capabilities.cache);
            let from_config: &[&str] = match kind {
                Kind::Provider => &["base_url"],
                Kind::Workflow | Kind::Adapter => &[],
            };
            assert_eq!(m.capabilities.http_from_config, from_config);
        }
    }

    #[test]
    fn write_refuses_a_folder_in_use_and_writes_a_new_one() {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::write(tmp.path().join("x"), "").expect("write");
        let err = write("demo", Kind::Provider, tmp.path()).expect_err("refused");
        assert!(err.contains("not an empty folder"), "{err}");
        assert!(write("Bad", Kind::Provider, &tmp.path().join("b")).is_err());

        let dir = tmp.path().join("demo");
        let written = write("demo", Kind::Workflow, &dir).expect("written");
        assert!(written.iter().all(|p| p.starts_with(&dir) && p.is_file()));
        for f in [
            "Cargo.toml",
            "Cargo.lock",
            ".gitignore",
            "README.md",
            "plugin.toml",
            "src/lib.rs",
            "vendor/plugins/workflow-sdk/src/lib.rs",
            "vendor/plugins/kit/src/html/parse.rs",
            "vendor/wit/v0.2.0/workflow.wit",
            "vendor/wit/v0.2.0/deps/plugin-0.1.0/plugin.wit",
        ] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        assert!(!dir.join("vendor/plugins/provider-sdk").exists());
        // An empty folder is fine.
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        assert!(write("demo", Kind::Provider, &empty).is_ok());
        assert!(
            std::fs::read_to_string(empty.join("README.md"))
                .expect("readme")
                .contains("target/wasm32-wasip2/release/demo.wasm --manifest plugin.toml --grant")
        );
    }

    /// The plugins workspace's target folder: `cargo xtask test` has built
    /// the same dependencies there (same lockfile), so only the new crate and
    /// its vendored SDK compile.
    fn shared_target() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/target")
    }

    fn cargo(dir: &Path, args: &[&str]) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(args)
            .arg("--offline")
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", shared_target())
            .env_remove("CARGO_BUILD_TARGET")
            .status()
            .expect("cargo runs");
        assert!(
            status.success(),
            "cargo {} failed in {}",
            args.join(" "),
            dir.display()
        );
    }

    /// The scaffolded crates build to components and pass their own tests,
    /// outside any workspace (sharing the plugins' compiled dependencies).
    #[test]
    fn scaffolded_crates_build_and_pass_their_tests() {
        let tmp = tempfile::tempdir().expect("tempdir");
        for (name, kind) in [
            ("demo-provider", Kind::Provider),
            ("demo-workflow", Kind::Workflow),
            ("demo-adapter", Kind::Adapter),
        ] {
            let dir = tmp.path().join(name);
            write(name, kind, &dir).expect("written");
            cargo(&dir, &["test", "--lib"]);
            cargo(&dir, &["build", "--release", "--target", "wasm32-wasip2"]);
            let wasm = shared_target()
                .join("wasm32-wasip2/release")
                .join(format!("{}.wasm", crate_ident(name)));
            assert!(wasm.is_file(), "{}", wasm.display());
        }
    }
}

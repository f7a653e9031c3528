//! Two things for the `webrig` binary: its link options, and the
//! first-party plugins it carries.
//!
//! Embeds the first-party plugins (the providers, workflows and adapters under
//! `plugins/`, built for wasm32-wasip2 by `cargo xtask`) in the binary,
//! deflate-compressed, with their manifests: `webrig setup` installs them
//! through the same manifest, hash and grant checks as any plugin.
//!
//! A build without them (the plugins were never built) embeds none, and
//! `webrig setup` says how to get them. `WEBRIG_FIRST_PARTY_DIR` points at
//! another folder of built components.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::Digest as _;

const KINDS: [&str; 3] = ["providers", "workflows", "adapters"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    link_options();
    embed_first_party();
}

fn link_options() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    // Release builds link `webrig` position-dependent (not PIE). As a PIE
    // this binary carries ~51k relative relocations, and applying them on
    // every start writes ~200 pages: ~0.8 ms of a 2 ms `webrig --version` on
    // a 2-core VM, the most of what the CLI costs beyond starting a process
    // (docs/BENCHMARKS.md, "CLI start"). The price: the executable's own code
    // and data sit at a fixed address (its heap, stack, libraries and JIT
    // code stay randomised); docs/SECURITY.md says so. Delete these lines to
    // link a PIE again.
    if var("PROFILE") == "release" && var("CARGO_CFG_TARGET_OS") == "linux" {
        println!("cargo:rustc-link-arg-bin=webrig=-no-pie");
    }
}

fn embed_first_party() {
    println!("cargo:rerun-if-env-changed=WEBRIG_FIRST_PARTY_DIR");
    let host = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let plugins = host.join("../plugins");
    let built = std::env::var_os("WEBRIG_FIRST_PARTY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| plugins.join("target/wasm32-wasip2/release"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));

    let mut found = Vec::new();
    let mut missing = Vec::new();
    for kind in KINDS {
        let Ok(dirs) = std::fs::read_dir(plugins.join(kind)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = dirs.filter_map(Result::ok).map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let manifest = dir.join("plugin.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            println!("cargo:rerun-if-changed={}", manifest.display());
            let Some(component) = field(&text, "component") else {
                panic!("{}: no `component` field", manifest.display());
            };
            let wasm = built.join(&component);
            match std::fs::read(&wasm) {
                Ok(bytes) => {
                    println!("cargo:rerun-if-changed={}", wasm.display());
                    found.push((manifest, text, component, bytes));
                }
                Err(_) => missing.push(wasm),
            }
        }
    }

    // All or none: a binary that carries half of them would install a
    // research workflow without the providers it reads.
    let mut code = String::new();
    if !missing.is_empty() || found.is_empty() {
        watch_nearest(&built);
        println!(
            "cargo:warning=webrig is built without its first-party plugins ({} not built): \
             `cargo xtask install` builds them first",
            missing
                .first()
                .map_or("none".into(), |p| p.display().to_string())
        );
        code.push_str("pub const EMBEDDED: &[Embedded] = &[];\n");
    } else {
        code.push_str("pub const EMBEDDED: &[Embedded] = &[\n");
        for (i, (manifest, text, component, bytes)) in found.iter().enumerate() {
            let packed = miniz_oxide::deflate::compress_to_vec(bytes, 9);
            let file = out.join(format!("first-party-{i}.wasm.deflate"));
            std::fs::write(&file, &packed).expect("writing OUT_DIR");
            let _ = writeln!(
                code,
                "    Embedded {{ id: {id:?}, manifest: {text:?}, source: {source:?}, component: {component:?}, \
                 size: {size}, sha256: {sha:?}, deflated: include_bytes!({file:?}) }},",
                source = manifest
                    .strip_prefix(host.join(".."))
                    .unwrap_or(manifest)
                    .display()
                    .to_string(),
                id = field(text, "id").unwrap_or_default(),
                size = bytes.len(),
                sha = sha2::Sha256::digest(bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>(),
                file = file.display().to_string(),
            );
        }
        code.push_str("];\n");
    }
    std::fs::write(out.join("first_party.rs"), code).expect("writing OUT_DIR");
}

/// `key = "value"` at the top of a plugin.toml.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// When the components are not built yet, reruns once the nearest folder
/// that exists changes (cargo reruns a script on every build for a path
/// that does not exist).
fn watch_nearest(path: &Path) {
    let mut at = path;
    while !at.exists() {
        match at.parent() {
            Some(parent) => at = parent,
            None => return,
        }
    }
    println!("cargo:rerun-if-changed={}", at.display());
}

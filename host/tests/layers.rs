//! The layers of `host/src`, as `lib.rs` maps them, checked on the source:
//! every `crate::<module>` a file names must sit in a lower layer than the
//! file's own top-level module. A new upward import (or a cycle between
//! folders) fails here, naming the files, before a reviewer has to find it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Top-level modules by layer, lowest first. A module may import only
/// modules of lower layers.
const LAYERS: &[&[&str]] = &[
    &["error", "config"],
    &["artifacts"],
    &["browser"],
    &["plugins"],
    &["providers"],
    &["workflows"],
    &["canvas"],
    &["macros"],
    &["rig"],
    &["commands"],
    &["client"],
    &["mcp"],
    &["daemon"],
    &["cli"],
];

/// Upward imports kept on purpose: (from, to, why).
const ALLOWED: &[(&str, &str, &str)] = &[];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is listable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules `src` names through `crate::…` paths, comments
/// left out (`use crate::{a, b::c}` included).
fn imports(src: &str) -> Vec<String> {
    let code: String = src
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names in the group (up to its matching `}`): those
            // after the `{` or a `,` at depth 0.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        found.push(ident(&group[j..]));
                    }
                    _ => {}
                }
            }
        } else {
            found.push(ident(rest));
        }
    }
    found
}

#[test]
fn every_import_runs_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs").to_string())
            .expect("a name");
        if matches!(top.as_str(), "lib" | "main") {
            continue;
        }
        let Some(from) = layer(&top) else {
            unknown.push(top);
            continue;
        };
        let text = std::fs::read_to_string(f).expect("readable");
        for to in imports(&text) {
            if to == top || to.is_empty() {
                continue;
            }
            let Some(at) = layer(&to) else {
                // `crate::VERSION` and other items of lib.rs.
                continue;
            };
            let allowed = ALLOWED.iter().any(|(a, b, _)| *a == top && *b == to);
            if at >= from && !allowed {
                wrong
                    .entry((top.clone(), to))
                    .or_default()
                    .push(rel.display().to_string());
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(
        unknown.is_empty(),
        "top-level modules missing from LAYERS (place each in its layer): {unknown:?}"
    );
    let report: Vec<String> = wrong
        .iter()
        .map(|((a, b), files)| {
            let mut files = files.clone();
            files.sort();
            files.dedup();
            format!("{a} -> {b}: {}", files.join(", "))
        })
        .collect();
    assert!(
        report.is_empty(),
        "imports that run up (or across) the layers of host/src/lib.rs:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_import_reader_sees_groups_and_skips_comments() {
    let got = imports(
        "use crate::{browser::Tab, config::{Home, Limits}, error};\n\
         // crate::daemon in a comment\n\
         let x = crate::rig::State::new();",
    );
    assert_eq!(got, ["browser", "config", "error", "rig"]);
}

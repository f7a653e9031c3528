//! Design tokens of a static page: the custom properties (`--brand: …`)
//! declared in `:root { … }` rules of its `<style>` elements. Reading takes
//! every such rule in document order (a later declaration wins, as in the
//! cascade); writing changes a token's value where it is declared, adds new
//! ones to the end of the first `:root` rule, and creates that rule (and a
//! `<style>` in `<head>`) when the page has none. Everything else in the
//! CSS is left byte for byte.
//!
//! A tiny CSS scanner, enough for this: it skips comments and strings and
//! matches braces; it does not parse selectors beyond comparing a rule's
//! selector to `:root`.

use webrig_adapter_markup::emit::minimal_edit;
use webrig_adapter_markup::{Dialect, parse_doc};
use webrig_adapter_sdk::types::{Error, NodeKind, SourceEdit, Token};

/// One custom property declared in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Decl {
    name: String,
    value: String,
    /// The value's byte range in the source.
    value_at: (usize, usize),
}

/// A `:root` rule: its body's byte range and declarations.
#[derive(Clone, Debug)]
struct RootRule {
    body: (usize, usize),
    decls: Vec<Decl>,
    /// Where the last declaration ends and whether a `;` closed it.
    last_end: Option<(usize, bool)>,
}

/// Skips a comment or string starting at `i`; the index after it.
fn skip(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'/' if b.get(i + 1) == Some(&b'*') => {
            let end = b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(b.len(), |p| i + 2 + p + 2);
            Some(end)
        }
        q @ (b'"' | b'\'') => {
            let mut j = i + 1;
            while j < b.len() && b[j] != q {
                if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            Some((j + 1).min(b.len()))
        }
        _ => None,
    }
}

/// `text` without `/* … */` comments, trimmed.
fn uncommented(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        rest = rest[at + 2..]
            .find("*/")
            .map_or("", |e| &rest[at + 2 + e + 2..]);
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// The `:root` rules of the CSS `src[range]`.
fn root_rules(src: &str, range: (usize, usize)) -> Vec<RootRule> {
    let b = src.as_bytes();
    let mut rules = Vec::new();
    let mut i = range.0;
    let mut sel_start = i;
    while i < range.1 {
        if let Some(next) = skip(b, i) {
            i = next;
            continue;
        }
        match b[i] {
            b'{' => {
                let is_root = uncommented(&src[sel_start..i]) == ":root";
                let body_start = i + 1;
                let mut depth = 1usize;
                let mut j = body_start;
                while j < range.1 && depth > 0 {
                    if let Some(next) = skip(b, j) {
                        j = next;
                        continue;
                    }
                    match b[j] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let body_end = if depth == 0 { j - 1 } else { range.1 };
                if is_root {
                    rules.push(rule(src, (body_start, body_end)));
                }
                i = j;
                sel_start = i;
            }
            b'}' | b';' => {
                i += 1;
                sel_start = i;
            }
            _ => i += 1,
        }
    }
    rules
}

/// A rule body's custom-property declarations.
fn rule(src: &str, body: (usize, usize)) -> RootRule {
    let b = src.as_bytes();
    let mut decls = Vec::new();
    let mut last_end = None;
    let mut start = body.0;
    let mut i = body.0;
    let mut parens = 0usize;
    while i <= body.1 {
        let at_end = i == body.1;
        if !at_end {
            if let Some(next) = skip(b, i) {
                i = next.min(body.1);
                continue;
            }
            match b[i] {
                b'(' => parens += 1,
                b')' => parens = parens.saturating_sub(1),
                _ => {}
            }
        }
        if at_end || (b[i] == b';' && parens == 0) {
            let piece = &src[start..i];
            if let Some(colon) = piece.find(':') {
                let name = uncommented(&piece[..colon]);
                let raw_value = &piece[colon + 1..];
                let lead = raw_value.len() - raw_value.trim_start().len();
                let v_start = start + colon + 1 + lead;
                let v_end = start + colon + 1 + raw_value.trim_end().len();
                if v_end > v_start || !uncommented(piece).is_empty() {
                    last_end = Some((if at_end { v_end } else { i + 1 }, !at_end));
                }
                if name.starts_with("--") {
                    decls.push(Decl {
                        name,
                        value: src[v_start..v_end.max(v_start)].to_string(),
                        value_at: (v_start, v_end.max(v_start)),
                    });
                }
            }
            start = i + 1;
        }
        i += 1;
    }
    RootRule {
        body,
        decls,
        last_end,
    }
}

/// The content ranges of the page's `<style>` elements.
fn style_ranges(source: &str) -> Result<Vec<(usize, usize)>, Error> {
    let doc = parse_doc(source, Dialect::Html)?;
    let mut out = Vec::new();
    for i in doc.preorder() {
        let n = &doc.nodes[i];
        if n.kind == NodeKind::Opaque && n.tag == "style" {
            let raw = &source[n.span.0..n.span.1];
            let (Some(open), Some(close)) = (raw.find('>'), raw.rfind("</")) else {
                continue;
            };
            if open < close {
                out.push((n.span.0 + open + 1, n.span.0 + close));
            }
        }
    }
    Ok(out)
}

/// The tokens `source` defines, in order of first declaration.
pub fn read(source: &str) -> Result<Vec<Token>, Error> {
    let mut out: Vec<Token> = Vec::new();
    for range in style_ranges(source)? {
        for r in root_rules(source, range) {
            for d in r.decls {
                match out.iter_mut().find(|t| t.name == d.name) {
                    Some(t) => t.value = d.value,
                    None => out.push(Token {
                        name: d.name,
                        value: d.value,
                    }),
                }
            }
        }
    }
    Ok(out)
}

fn check(t: &Token) -> Result<(), Error> {
    let name_ok = t.name.len() > 2
        && t.name.starts_with("--")
        && t.name[2..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !name_ok {
        return Err(Error::InvalidInput(format!(
            "{:?} is not a custom property name (--a-z0-9_)",
            t.name
        )));
    }
    let v = t.value.trim();
    if v.is_empty() || v.contains([';', '{', '}', '<', '\n', '\r']) || v.contains("/*") {
        return Err(Error::InvalidInput(format!(
            "token {}: {:?} is not a value this adapter writes (empty, or has ; {{ }} < a comment or a line break)",
            t.name, t.value
        )));
    }
    Ok(())
}

/// The whitespace before `at` on its line.
fn indent_at(src: &str, at: usize) -> &str {
    let line = src[..at].rfind('\n').map_or(0, |p| p + 1);
    let ws = src[line..at].len() - src[line..at].trim_start().len();
    &src[line..line + ws]
}

/// An edit making `source` define `tokens` (others kept).
pub fn emit(source: &str, tokens: &[Token]) -> Result<SourceEdit, Error> {
    for t in tokens {
        check(t)?;
    }
    let ranges = style_ranges(source)?;
    let rules: Vec<RootRule> = ranges.iter().flat_map(|&r| root_rules(source, r)).collect();
    // (at, remove up to, insert): applied from the end.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut missing = Vec::new();
    for t in tokens {
        let value = t.value.trim();
        let mut found = false;
        for d in rules
            .iter()
            .flat_map(|r| &r.decls)
            .filter(|d| d.name == t.name)
        {
            found = true;
            if d.value != value {
                edits.push((d.value_at.0, d.value_at.1, value.to_string()));
            }
        }
        if !found && !missing.iter().any(|m: &&Token| m.name == t.name) {
            missing.push(t);
        }
    }
    if !missing.is_empty() {
        match rules.first() {
            Some(r) => {
                let (at, closed) = r.last_end.unwrap_or((r.body.0, true));
                let indent = match r.decls.last() {
                    Some(d) => indent_at(source, d.value_at.0).to_string(),
                    None => format!("{}  ", indent_at(source, r.body.0)),
                };
                let mut text = String::new();
                if !closed {
                    text.push(';');
                }
                for t in &missing {
                    text.push_str(&format!("\n{indent}{}: {};", t.name, t.value.trim()));
                }
                edits.push((at, at, text));
            }
            None => {
                let decls = |indent: &str| {
                    missing
                        .iter()
                        .map(|t| format!("{indent}{}: {};\n", t.name, t.value.trim()))
                        .collect::<String>()
                };
                match ranges.first() {
                    Some(&(start, _)) => {
                        let base = format!("{}  ", indent_at(source, start));
                        let rule =
                            format!("\n{base}:root {{\n{}{base}}}", decls(&format!("{base}  ")));
                        edits.push((start, start, rule));
                    }
                    None => {
                        let head = source.to_ascii_lowercase().find("</head").unwrap_or(0);
                        let style =
                            format!("<style>\n  :root {{\n{}  }}\n</style>\n", decls("    "));
                        edits.push((head, head, style));
                    }
                }
            }
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = source.to_string();
    for (at, to, text) in edits {
        out.replace_range(at..to, &text);
    }
    Ok(minimal_edit(source, (0, source.len()), &out))
}

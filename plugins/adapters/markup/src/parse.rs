//! The tokenizer and tree builder: source text to an arena of nodes with
//! exact byte spans. It owns the dialect rules (which attributes make an
//! element unsupported, what opens an expression); it never prints.
//!
//! Hand-written rather than taken from a crate: the emitter needs, for every
//! element, where its open tag ends and its close tag starts, and spans of
//! every text run, in the dialect's syntax (`{{ }}`, `{#if}`, `on:click={f}`
//! as an attribute value). html5gum has spans but no tree and no dialects;
//! html5ever rebuilds (fixes) the tree, which breaks exact spans.
//!
//! The tree builder is deliberately simple: an explicit stack of open
//! elements, void elements never opened, a close tag closing the nearest
//! open element of its name (and any left open inside it), a stray close tag
//! ignored, `/>` closing any element. It does not apply HTML's implied end
//! tags (`<p>` closed by a block, `<li>` by the next `<li>`): such markup
//! nests as written. Depth is capped at [`MAX_DEPTH`].

use webrig_adapter_sdk::parse_style;
use webrig_adapter_sdk::types::{Attribute, Declaration, NodeKind};

use crate::entities::decode;

/// The deepest element nesting parsed; deeper input is refused with an
/// error (never a stack overflow: nothing here recurses).
pub const MAX_DEPTH: usize = 256;

/// The syntax a file's markup is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Plain HTML.
    Html,
    /// A Vue template: `{{ }}` interpolations and `v-`/`:`/`@`/`#`
    /// directives.
    Vue,
    /// Svelte markup: `{expr}`, `{#if}` blocks, `on:`/`bind:` directives.
    Svelte,
}

impl Dialect {
    /// The characters the emitter must escape in text and attribute values
    /// so that they are not read back as an expression.
    pub fn braces(self) -> &'static [char] {
        match self {
            Dialect::Html => &[],
            Dialect::Vue => &['{'],
            Dialect::Svelte => &['{', '}'],
        }
    }
}

/// One parsed node. Spans are byte offsets into the parsed source.
#[derive(Clone, Debug)]
pub struct PNode {
    pub kind: NodeKind,
    pub tag: String,
    /// Literal attributes (not `style`, not directives), decoded.
    pub attributes: Vec<Attribute>,
    pub style: Vec<Declaration>,
    /// Decoded text (text nodes) or the raw source (opaque nodes).
    pub text: String,
    pub children: Vec<usize>,
    /// Start of the open tag to the end of the close tag (or the text).
    pub span: (usize, usize),
    /// End of the open tag (`span.0` for text, opaque and fragments).
    pub open_end: usize,
    /// Start of the close tag; `span.1` when there is none.
    pub close_start: usize,
    /// Written `<x/>`.
    pub self_closing: bool,
    /// A fragment made by [`Doc::add_fragment`]: no tags of its own.
    pub fragment: bool,
    pub unsupported: Option<String>,
}

/// A parsed source: every node, and the top-level ones in order.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub nodes: Vec<PNode>,
    pub top: Vec<usize>,
}

impl Doc {
    /// Adds a tagless node holding `children` over `span` (for a bound part
    /// that is a run of top-level nodes, like Svelte markup); its index.
    pub fn add_fragment(&mut self, tag: &str, children: Vec<usize>, span: (usize, usize)) -> usize {
        self.nodes.push(PNode {
            kind: NodeKind::Element,
            tag: tag.to_string(),
            attributes: Vec::new(),
            style: Vec::new(),
            text: String::new(),
            children,
            span,
            open_end: span.0,
            close_start: span.1,
            self_closing: false,
            fragment: true,
            unsupported: None,
        });
        self.nodes.len() - 1
    }

    /// Every node in document order (pre-order), without recursion.
    pub fn preorder(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<usize> = self.top.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            if let Some(n) = self.nodes.get(i) {
                stack.extend(n.children.iter().rev());
            }
        }
        out
    }

    /// The element whose span is exactly `span`, outermost first.
    pub fn element_at(&self, span: (usize, usize)) -> Option<usize> {
        self.preorder()
            .into_iter()
            .find(|&i| self.nodes[i].span == span && self.nodes[i].kind == NodeKind::Element)
    }
}

/// HTML's void elements: never opened, never closed.
pub fn is_void(tag: &str) -> bool {
    matches!(
        tag.to_ascii_lowercase().as_str(),
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Elements whose content is raw text, kept whole as an opaque node.
fn is_opaque_raw(tag: &str) -> bool {
    matches!(tag.to_ascii_lowercase().as_str(), "script" | "style")
}

/// Elements whose content is text with references (no tags).
pub fn is_rcdata(tag: &str) -> bool {
    matches!(tag.to_ascii_lowercase().as_str(), "textarea" | "title")
}

/// An attribute as written.
#[derive(Clone, Debug)]
pub struct RawAttr {
    pub name: String,
    /// Decoded value; `None` for a bare name.
    pub value: Option<String>,
    /// Written as `{…}` (Svelte).
    pub expr: bool,
}

/// What an element is in `dialect`, from its tag and attributes: its kind,
/// literal attributes, style and why it cannot be edited (if so).
pub fn classify(
    dialect: Dialect,
    tag: &str,
    attrs: &[RawAttr],
) -> (NodeKind, Vec<Attribute>, Vec<Declaration>, Option<String>) {
    let mut kind = NodeKind::Element;
    let mut why: Option<String> = None;
    let first_upper = tag.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if dialect != Dialect::Html && (first_upper || tag.contains('.')) {
        kind = NodeKind::Component;
        why = Some(format!("component <{tag}> is kept as an instance"));
    } else if dialect == Dialect::Svelte && tag.starts_with("svelte:") {
        why = Some(format!("Svelte special element <{tag}>"));
    } else if dialect == Dialect::Vue && matches!(tag, "slot" | "component") {
        why = Some(format!("Vue <{tag}> outlet"));
    }
    let mut literal = Vec::new();
    let mut style = Vec::new();
    for a in attrs {
        let directive = match dialect {
            Dialect::Html => None,
            Dialect::Vue => (a.name.starts_with("v-")
                || a.name.starts_with(':')
                || a.name.starts_with('@')
                || a.name.starts_with('#'))
            .then(|| format!("Vue directive `{}`", a.name)),
            Dialect::Svelte => {
                if a.expr || a.value.as_deref().is_some_and(|v| v.contains('{')) {
                    Some(format!("Svelte expression attribute `{}`", a.name))
                } else if a.name.contains(':') {
                    Some(format!("Svelte directive `{}`", a.name))
                } else {
                    None
                }
            }
        };
        if let Some(d) = directive {
            why.get_or_insert(d);
            continue;
        }
        if a.name.eq_ignore_ascii_case("style") {
            style.extend(parse_style(a.value.as_deref().unwrap_or("")));
            continue;
        }
        literal.push(Attribute {
            name: a.name.clone(),
            value: a.value.clone().unwrap_or_default(),
        });
    }
    (kind, literal, style, why)
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// Whether `s` is only ASCII whitespace (such text is not a node).
pub fn is_blank(s: &str) -> bool {
    s.bytes().all(is_ws)
}

/// The first index of `needle` in `b` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > b.len() {
        return None;
    }
    b[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Like [`find`], ASCII case-insensitively.
fn find_ci(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > b.len() {
        return None;
    }
    b[from..]
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| p + from)
}

/// The index after the `}` matching the `{` at `at`, skipping quoted
/// strings.
fn brace_end(b: &[u8], at: usize) -> Result<usize, String> {
    let mut depth = 0usize;
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(format!("unclosed `{{` at byte {at}"))
}

/// The end of the Svelte block `{#…}` at `at`: after its matching `{/…}`.
fn svelte_block_end(b: &[u8], at: usize) -> Result<usize, String> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        let end = brace_end(b, i)?;
        match b.get(i + 1) {
            Some(b'#') => depth += 1,
            Some(b'/') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 {
            return Ok(end);
        }
        i = match find(b, end, b"{") {
            Some(next) => next,
            None => return Err(format!("unclosed Svelte block at byte {at}")),
        };
    }
}

/// A start tag read from the source.
struct StartTag {
    name: String,
    attrs: Vec<RawAttr>,
    end: usize,
    self_closing: bool,
}

fn read_start_tag(src: &str, at: usize, dialect: Dialect) -> Result<StartTag, String> {
    let b = src.as_bytes();
    let unterminated = || format!("unterminated tag at byte {at}");
    let mut j = at + 1;
    while j < b.len()
        && !is_ws(b[j])
        && b[j] != b'>'
        && !(b[j] == b'/' && b.get(j + 1) == Some(&b'>'))
    {
        j += 1;
    }
    let name = &src[at + 1..j];
    let name = if dialect == Dialect::Html {
        name.to_ascii_lowercase()
    } else {
        name.to_string()
    };
    let mut attrs = Vec::new();
    loop {
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        let Some(&c) = b.get(j) else {
            return Err(unterminated());
        };
        match c {
            b'>' => {
                return Ok(StartTag {
                    name,
                    attrs,
                    end: j + 1,
                    self_closing: false,
                });
            }
            b'/' if b.get(j + 1) == Some(&b'>') => {
                return Ok(StartTag {
                    name,
                    attrs,
                    end: j + 2,
                    self_closing: true,
                });
            }
            b'/' => {
                j += 1;
                continue;
            }
            b'{' if dialect == Dialect::Svelte => {
                let e = brace_end(b, j)?;
                attrs.push(RawAttr {
                    name: src[j..e].to_string(),
                    value: None,
                    expr: true,
                });
                j = e;
                continue;
            }
            _ => {}
        }
        let start = j;
        j += 1; // a name may start with `=`; always advance
        while j < b.len()
            && !is_ws(b[j])
            && b[j] != b'>'
            && b[j] != b'='
            && !(b[j] == b'/' && b.get(j + 1) == Some(&b'>'))
        {
            j += 1;
        }
        let attr_name = src[start..j].to_string();
        let mut k = j;
        while k < b.len() && is_ws(b[k]) {
            k += 1;
        }
        if b.get(k) != Some(&b'=') {
            attrs.push(RawAttr {
                name: attr_name,
                value: None,
                expr: false,
            });
            continue;
        }
        k += 1;
        while k < b.len() && is_ws(b[k]) {
            k += 1;
        }
        let Some(&q) = b.get(k) else {
            return Err(unterminated());
        };
        let (value, expr) = match q {
            b'"' | b'\'' => {
                let end = find(b, k + 1, &[q]).ok_or_else(unterminated)?;
                let v = decode(&src[k + 1..end]);
                j = end + 1;
                (v, false)
            }
            b'{' if dialect == Dialect::Svelte => {
                let e = brace_end(b, k)?;
                let v = src[k..e].to_string();
                j = e;
                (v, true)
            }
            _ => {
                let mut e = k;
                while e < b.len() && !is_ws(b[e]) && b[e] != b'>' {
                    e += 1;
                }
                j = e;
                (decode(&src[k..e]), false)
            }
        };
        attrs.push(RawAttr {
            name: attr_name,
            value: Some(value),
            expr,
        });
    }
}

/// The tree builder's state.
struct Builder<'s> {
    src: &'s str,
    dialect: Dialect,
    doc: Doc,
    stack: Vec<usize>,
}

impl Builder<'_> {
    fn attach(&mut self, node: PNode) -> usize {
        self.doc.nodes.push(node);
        let idx = self.doc.nodes.len() - 1;
        match self.stack.last() {
            Some(&parent) => self.doc.nodes[parent].children.push(idx),
            None => self.doc.top.push(idx),
        }
        idx
    }

    fn leaf(&mut self, kind: NodeKind, tag: &str, text: String, span: (usize, usize)) {
        let unsupported = (kind == NodeKind::Opaque).then(|| format!("{tag} is kept verbatim"));
        self.attach(PNode {
            kind,
            tag: tag.to_string(),
            attributes: Vec::new(),
            style: Vec::new(),
            text,
            children: Vec::new(),
            span,
            open_end: span.0,
            close_start: span.1,
            self_closing: false,
            fragment: false,
            unsupported,
        });
    }

    fn flush_text(&mut self, start: &mut Option<usize>, end: usize) {
        if let Some(s) = start.take() {
            let raw = &self.src[s..end];
            if !is_blank(raw) {
                self.leaf(NodeKind::Text, "", decode(raw), (s, end));
            }
        }
    }

    /// Closes the open element `pos` in the stack (and those inside it):
    /// the close tag spans `close`.
    fn close(&mut self, pos: usize, close: (usize, usize)) {
        while self.stack.len() > pos + 1 {
            if let Some(inner) = self.stack.pop() {
                let n = &mut self.doc.nodes[inner];
                n.close_start = close.0;
                n.span.1 = close.0;
            }
        }
        if let Some(el) = self.stack.pop() {
            let n = &mut self.doc.nodes[el];
            n.close_start = close.0;
            n.span.1 = close.1;
        }
    }
}

/// Parses `src` as `dialect` markup. Errors (with a byte offset) on a tag,
/// comment-free `{`, or raw-text element left unterminated, and on nesting
/// deeper than [`MAX_DEPTH`].
pub fn parse(src: &str, dialect: Dialect) -> Result<Doc, String> {
    let b = src.as_bytes();
    let mut bld = Builder {
        src,
        dialect,
        doc: Doc::default(),
        stack: Vec::new(),
    };
    let mut text: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied().unwrap_or(0);
        if c == b'<' && b[i..].starts_with(b"<!--") {
            bld.flush_text(&mut text, i);
            i = find(b, i + 4, b"-->").map_or(b.len(), |e| e + 3);
        } else if c == b'<' && (next == b'!' || next == b'?') {
            bld.flush_text(&mut text, i);
            i = find(b, i + 1, b">").map_or(b.len(), |e| e + 1);
        } else if c == b'<' && next == b'/' && b.get(i + 2).is_some_and(u8::is_ascii_alphabetic) {
            bld.flush_text(&mut text, i);
            let mut j = i + 2;
            while j < b.len() && !is_ws(b[j]) && b[j] != b'>' && b[j] != b'/' {
                j += 1;
            }
            let name = &src[i + 2..j];
            let end = find(b, j, b">")
                .map(|e| e + 1)
                .ok_or_else(|| format!("unterminated close tag at byte {i}"))?;
            let pos = bld.stack.iter().rposition(|&e| {
                let tag = &bld.doc.nodes[e].tag;
                if dialect == Dialect::Html {
                    tag.eq_ignore_ascii_case(name)
                } else {
                    tag == name
                }
            });
            if let Some(pos) = pos {
                bld.close(pos, (i, end));
            }
            i = end;
        } else if c == b'<' && next.is_ascii_alphabetic() {
            bld.flush_text(&mut text, i);
            i = start_element(&mut bld, i)?;
        } else if dialect == Dialect::Vue && c == b'{' && next == b'{' {
            bld.flush_text(&mut text, i);
            let end = find(b, i + 2, b"}}")
                .map(|e| e + 2)
                .ok_or_else(|| format!("unclosed `{{{{` at byte {i}"))?;
            bld.leaf(
                NodeKind::Opaque,
                "interpolation",
                src[i..end].to_string(),
                (i, end),
            );
            i = end;
        } else if dialect == Dialect::Svelte && c == b'{' {
            bld.flush_text(&mut text, i);
            let (end, tag) = if next == b'#' {
                let word_end = b[i + 2..]
                    .iter()
                    .position(|c| !c.is_ascii_alphabetic())
                    .map_or(b.len(), |p| p + i + 2);
                (
                    svelte_block_end(b, i)?,
                    format!("{{#{}}} block", &src[i + 2..word_end]),
                )
            } else {
                (brace_end(b, i)?, "expression".to_string())
            };
            bld.leaf(NodeKind::Opaque, &tag, src[i..end].to_string(), (i, end));
            i = end;
        } else {
            if text.is_none() {
                text = Some(i);
            }
            i += 1;
        }
    }
    bld.flush_text(&mut text, b.len());
    if !bld.stack.is_empty() {
        bld.close(0, (b.len(), b.len()));
    }
    Ok(bld.doc)
}

/// Reads the element starting at `at`; the index after what was consumed.
fn start_element(bld: &mut Builder<'_>, at: usize) -> Result<usize, String> {
    let src = bld.src;
    let b = src.as_bytes();
    let tag = read_start_tag(src, at, bld.dialect)?;
    if is_opaque_raw(&tag.name) && !tag.self_closing {
        let close = find_ci(b, tag.end, format!("</{}", tag.name).as_bytes())
            .ok_or_else(|| format!("unclosed <{}> at byte {at}", tag.name))?;
        let end = find(b, close, b">").map_or(b.len(), |e| e + 1);
        let name = tag.name.to_ascii_lowercase();
        bld.leaf(NodeKind::Opaque, &name, src[at..end].to_string(), (at, end));
        return Ok(end);
    }
    if bld.stack.len() >= MAX_DEPTH {
        return Err(format!(
            "elements nest deeper than {MAX_DEPTH} levels at byte {at}"
        ));
    }
    let (kind, attributes, style, unsupported) = classify(bld.dialect, &tag.name, &tag.attrs);
    let closed = tag.self_closing || is_void(&tag.name);
    let rcdata = is_rcdata(&tag.name) && !closed;
    let idx = bld.attach(PNode {
        kind,
        tag: tag.name.clone(),
        attributes,
        style,
        text: String::new(),
        children: Vec::new(),
        span: (at, tag.end),
        open_end: tag.end,
        close_start: tag.end,
        self_closing: tag.self_closing,
        fragment: false,
        unsupported,
    });
    if closed {
        return Ok(tag.end);
    }
    bld.stack.push(idx);
    if rcdata {
        let close = find_ci(b, tag.end, format!("</{}", tag.name).as_bytes())
            .ok_or_else(|| format!("unclosed <{}> at byte {at}", tag.name))?;
        let end = find(b, close, b">").map_or(b.len(), |e| e + 1);
        let mut text = Some(tag.end);
        bld.flush_text(&mut text, close);
        let pos = bld.stack.len() - 1;
        bld.close(pos, (close, end));
        return Ok(end);
    }
    Ok(tag.end)
}

//! Tokenizer and tree builder behind [`Document::parse`](super::Document::parse).
//!
//! It implements the parts of HTML's tree rules that decide what is inside
//! what on real pages: void elements, raw-text elements (`script`, `style`,
//! `title`, `textarea`), implied end tags (`p`, `li`, `dt`/`dd`, table
//! rows and cells, `option`), implied `tbody`/`tr` parents of rows and
//! cells, and end tags that close whatever is left open inside them. Nesting is capped so hostile input cannot exhaust memory or
//! the stack of code that walks the tree.

use super::{Document, Node, NodeData, NodeId, entities};

/// Open elements beyond this depth are kept flat (as siblings).
const MAX_DEPTH: usize = 256;

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
];

/// Elements whose content is text up to their end tag; the bool says
/// whether entities are decoded inside (RCDATA).
const RAW_TEXT: &[(&str, bool)] = &[
    ("script", false),
    ("style", false),
    ("xmp", false),
    ("iframe", false),
    ("noembed", false),
    ("noframes", false),
    ("noscript", false),
    ("textarea", true),
    ("title", true),
];

/// Start tags that close an open `<p>`.
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "li",
    "dd",
    "dt",
];

/// Elements an implied end tag does not look past.
const SCOPE: &[&str] = &[
    "html", "table", "td", "th", "caption", "button", "object", "marquee", "applet", "template",
];

pub(super) fn parse(html: &str) -> Document {
    let mut b = Builder {
        nodes: vec![Node {
            data: NodeData::Root,
            parent: None,
            children: Vec::new(),
        }],
        open: vec![0],
    };
    let bytes = html.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &html[i..];
        let Some(tag) = read_markup(rest) else {
            i += 1;
            continue;
        };
        b.text(&html[text_start..i]);
        i += tag.len;
        match tag.kind {
            Markup::Start {
                name,
                attrs,
                self_closing,
            } => {
                let raw = RAW_TEXT.iter().find(|(n, _)| *n == name);
                if let Some(&(raw_name, decode)) = raw {
                    let body_end = find_end_tag(&html[i..], raw_name)
                        .map(|p| i + p)
                        .unwrap_or(html.len());
                    let id = b.element(name, attrs, true);
                    let body = &html[i..body_end];
                    if !body.is_empty() && !self_closing {
                        let body = if decode {
                            entities::decode(body)
                        } else {
                            body.to_string()
                        };
                        b.push(id, NodeData::Text(body));
                    }
                    // Skip the end tag itself.
                    i = match html[body_end..].find('>') {
                        Some(p) if body_end < html.len() => body_end + p + 1,
                        _ => html.len(),
                    };
                } else {
                    let void = self_closing || VOID.contains(&name.as_str());
                    b.start(name, attrs, void);
                }
            }
            Markup::End(name) => b.end(&name),
            Markup::Other => {}
        }
        text_start = i;
    }
    b.text(&html[text_start.min(html.len())..]);
    Document { nodes: b.nodes }
}

struct Builder {
    nodes: Vec<Node>,
    /// Open elements, root first.
    open: Vec<NodeId>,
}

impl Builder {
    fn current(&self) -> NodeId {
        self.open.last().copied().unwrap_or(0)
    }

    fn push(&mut self, parent: NodeId, data: NodeData) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node {
            data,
            parent: Some(parent),
            children: Vec::new(),
        });
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children.push(id);
        }
        id
    }

    fn text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let parent = self.current();
        // Merge with a preceding text node (text split by a skipped comment).
        if let Some(&last) = self.nodes[parent].children.last()
            && let NodeData::Text(t) = &mut self.nodes[last].data
        {
            t.push_str(&entities::decode(raw));
            return;
        }
        self.push(parent, NodeData::Text(entities::decode(raw)));
    }

    fn name_of(&self, id: NodeId) -> &str {
        match &self.nodes[id].data {
            NodeData::Element { name, .. } => name,
            _ => "",
        }
    }

    /// Index in `open` of the nearest open `target` not hidden behind a
    /// scope element (or one of `stop`).
    fn in_scope(&self, targets: &[&str], stop: &[&str]) -> Option<usize> {
        for (pos, &id) in self.open.iter().enumerate().rev() {
            let name = self.name_of(id);
            if targets.contains(&name) {
                return Some(pos);
            }
            if SCOPE.contains(&name) || stop.contains(&name) {
                return None;
            }
        }
        None
    }

    fn close_implied(&mut self, name: &str) {
        if CLOSES_P.contains(&name)
            && let Some(pos) = self.in_scope(&["p"], &[])
        {
            self.open.truncate(pos);
        }
        let (targets, stop): (&[&str], &[&str]) = match name {
            "li" => (&["li"], &["ul", "ol", "menu"]),
            "dt" | "dd" => (&["dt", "dd"], &["dl"]),
            "tr" => (&["tr"], &["tbody", "thead", "tfoot"]),
            "td" | "th" => (&["td", "th"], &["tr"]),
            "thead" | "tbody" | "tfoot" => (&["thead", "tbody", "tfoot"], &[]),
            "option" => (&["option"], &["select", "datalist"]),
            "optgroup" => (&["option", "optgroup"], &["select"]),
            _ => return,
        };
        // Cells and rows look through their own scope elements.
        let pos = if matches!(name, "td" | "th" | "tr" | "thead" | "tbody" | "tfoot") {
            self.open
                .iter()
                .rposition(|&id| targets.contains(&self.name_of(id)))
                .filter(|&p| {
                    !self.open[p..]
                        .iter()
                        .any(|&id| self.name_of(id) == "table" && p < self.open.len())
                })
        } else {
            self.in_scope(targets, stop)
        };
        if let Some(pos) = pos {
            self.open.truncate(pos);
        }
    }

    fn element(&mut self, name: String, attrs: Vec<(String, String)>, void: bool) -> NodeId {
        self.close_implied(&name);
        self.imply_table_parents(&name);
        let parent = self.current();
        let id = self.push(parent, NodeData::Element { name, attrs });
        if !void && self.open.len() < MAX_DEPTH {
            self.open.push(id);
        }
        id
    }

    /// Rows straight in a `table` get a `tbody`, and cells straight in a
    /// table or section a `tr`, as browsers build them (so selectors
    /// copied from a browser, `table > tbody > tr`, match).
    fn imply_table_parents(&mut self, name: &str) {
        let cell = matches!(name, "td" | "th");
        if !cell && name != "tr" {
            return;
        }
        if self.name_of(self.current()) == "table" {
            self.open_implied("tbody");
        }
        if cell && matches!(self.name_of(self.current()), "tbody" | "thead" | "tfoot") {
            self.open_implied("tr");
        }
    }

    fn open_implied(&mut self, name: &str) {
        let parent = self.current();
        let id = self.push(
            parent,
            NodeData::Element {
                name: name.to_string(),
                attrs: Vec::new(),
            },
        );
        if self.open.len() < MAX_DEPTH {
            self.open.push(id);
        }
    }

    fn start(&mut self, name: String, attrs: Vec<(String, String)>, void: bool) {
        self.element(name, attrs, void);
    }

    fn end(&mut self, name: &str) {
        if let Some(pos) = self.open.iter().rposition(|&id| self.name_of(id) == name)
            && pos > 0
        {
            self.open.truncate(pos);
        }
    }
}

enum Markup {
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    End(String),
    /// Comment, doctype or processing instruction: dropped.
    Other,
}

struct Tag {
    kind: Markup,
    /// Bytes consumed, from the `<`.
    len: usize,
}

/// Reads the markup at the start of `s` (which starts with `<`); `None`
/// when the `<` is just text.
fn read_markup(s: &str) -> Option<Tag> {
    let b = s.as_bytes();
    if let Some(comment) = s.strip_prefix("<!--") {
        let len = comment.find("-->").map(|p| 4 + p + 3).unwrap_or(s.len());
        return Some(Tag {
            kind: Markup::Other,
            len,
        });
    }
    if matches!(b.get(1), Some(b'!' | b'?')) {
        let len = s.find('>').map(|p| p + 1).unwrap_or(s.len());
        return Some(Tag {
            kind: Markup::Other,
            len,
        });
    }
    let (closing, name_start) = if b.get(1) == Some(&b'/') {
        (true, 2)
    } else {
        (false, 1)
    };
    if !b.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let name_len = b[name_start..]
        .iter()
        .take_while(|c| !c.is_ascii_whitespace() && **c != b'/' && **c != b'>')
        .count();
    let name = s[name_start..name_start + name_len].to_ascii_lowercase();
    let mut i = name_start + name_len;
    if closing {
        let len = s[i..].find('>').map(|p| i + p + 1).unwrap_or(s.len());
        return Some(Tag {
            kind: Markup::End(name),
            len,
        });
    }
    let mut attrs: Vec<(String, String)> = Vec::new();
    let mut self_closing = false;
    loop {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        match b.get(i) {
            None => break,
            Some(b'>') => {
                i += 1;
                break;
            }
            Some(b'/') => {
                i += 1;
                if b.get(i) == Some(&b'>') {
                    self_closing = true;
                    i += 1;
                    break;
                }
                continue;
            }
            _ => {}
        }
        let start = i;
        while b
            .get(i)
            .is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b'=' | b'>' | b'/'))
            || i == start && b.get(i) == Some(&b'=')
        {
            i += 1;
        }
        let key = s[start..i].to_ascii_lowercase();
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = s[i + 1..]
                        .find(q as char)
                        .map(|p| i + 1 + p)
                        .unwrap_or(s.len());
                    value = entities::decode(&s[i + 1..end]);
                    i = (end + 1).min(s.len());
                }
                _ => {
                    let start = i;
                    while b
                        .get(i)
                        .is_some_and(|c| !c.is_ascii_whitespace() && *c != b'>')
                    {
                        i += 1;
                    }
                    value = entities::decode(&s[start..i]);
                }
            }
        }
        if !key.is_empty() && !attrs.iter().any(|(k, _)| *k == key) {
            attrs.push((key, value));
        }
    }
    Some(Tag {
        kind: Markup::Start {
            name,
            attrs,
            self_closing,
        },
        len: i.min(s.len()),
    })
}

/// Offset of `</name` (ASCII case-insensitive) in `s`.
fn find_end_tag(s: &str, name: &str) -> Option<usize> {
    let b = s.as_bytes();
    let n = name.len();
    let mut from = 0;
    while let Some(p) = s[from..].find("</") {
        let at = from + p;
        let cand = b.get(at + 2..at + 2 + n)?;
        let after = b.get(at + 2 + n);
        if cand.eq_ignore_ascii_case(name.as_bytes())
            && after.is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'>' | b'/'))
        {
            return Some(at);
        }
        from = at + 2;
    }
    None
}

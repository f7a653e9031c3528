//! Turning markup into readable plain text: whitespace collapsing, tag
//! stripping for HTML fragments (API fields such as Mastodon's `content`),
//! and block-aware rendering of a subtree (paragraphs on their own lines).

use super::{Document, NodeId};

/// Elements that start a new line of text when rendered.
pub const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
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
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

/// Collapses runs of whitespace (including no-break spaces) to one space
/// and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Plain text of an HTML fragment: paragraphs and `<br>` become line
/// breaks, other tags disappear, entities are decoded.
pub fn html_to_text(fragment: &str) -> String {
    let doc = Document::parse(fragment);
    render(&doc, doc.root(), &|_| false)
}

/// Renders `id`'s subtree as text: one line per block element, blank
/// lines between paragraphs, whitespace collapsed inside lines. Nodes for
/// which `skip` answers true are left out with their subtrees.
pub fn render(doc: &Document, id: NodeId, skip: &dyn Fn(NodeId) -> bool) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let flush = |line: &mut String, lines: &mut Vec<String>| {
        let text = collapse_whitespace(line);
        if !text.is_empty() {
            lines.push(text);
        }
        line.clear();
    };
    // Iterative walk: (node, entering?) so deep trees cannot overflow.
    let mut stack = vec![(id, true)];
    while let Some((node, entering)) = stack.pop() {
        let name = doc.name(node);
        let block = name.is_some_and(|n| BLOCK.contains(&n));
        if !entering {
            if block {
                flush(&mut line, &mut lines);
            }
            continue;
        }
        if node != id && skip(node) {
            continue;
        }
        if node != id
            && matches!(
                name,
                Some("script" | "style" | "template" | "noscript" | "head")
            )
        {
            continue;
        }
        if let Some(t) = doc.text_node(node) {
            line.push_str(t);
            continue;
        }
        if block || name == Some("br") {
            flush(&mut line, &mut lines);
        }
        stack.push((node, false));
        for &child in doc.children(node).iter().rev() {
            stack.push((child, true));
        }
    }
    flush(&mut line, &mut lines);
    lines.join("\n\n")
}

/// The first `max` characters of `text` on a word boundary, with `…` when
/// cut.
pub fn truncate(text: &str, max: usize) -> String {
    let text = collapse_whitespace(text);
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(p) if p > max / 2 => &cut[..p],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([',', '.', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_become_paragraph_text() {
        let html =
            "<p>Hello <a href=\"x\">#webrig</a> &amp; friends</p><p>line one<br>line two</p>";
        assert_eq!(
            html_to_text(html),
            "Hello #webrig & friends\n\nline one\n\nline two"
        );
    }

    #[test]
    fn truncates_on_word_boundaries() {
        assert_eq!(truncate("short", 80), "short");
        assert_eq!(truncate("one two three four", 10), "one two…");
        assert_eq!(truncate("ééééééééééé", 5), "ééééé…");
    }
}

//! A page of a canvas document as HTML, for the preview: every node an
//! element carrying `data-node-id`, tokens as CSS custom properties on
//! `:root`. The document may hold anything a source file held, so the
//! output runs no script: a CSP with no script source, tags and attribute
//! names checked against what HTML allows, event handlers and `javascript:`
//! URLs dropped, every text and value escaped.

use std::fmt::Write as _;

use super::doc::{Document, NodeKind};

/// Tags rendered as themselves; any other tag renders as a `div` with a
/// `data-tag` naming it.
const ALLOWED: &[&str] = &[
    "a",
    "abbr",
    "article",
    "aside",
    "b",
    "blockquote",
    "br",
    "button",
    "caption",
    "code",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "em",
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
    "i",
    "img",
    "input",
    "label",
    "legend",
    "li",
    "main",
    "mark",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "section",
    "select",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "svg",
    "path",
    "circle",
    "rect",
    "g",
];

const VOID: &[&str] = &["br", "hr", "img", "input"];

/// The HTML of page `page` (the first page when none), `width` wide.
pub fn page(doc: &Document, page: Option<&str>) -> Result<String, String> {
    let p = match page {
        Some(id) => doc
            .page(id)
            .ok_or_else(|| format!("no page {id:?} in {}", doc.name))?,
        None => doc.pages.first().ok_or("the document has no page")?,
    };
    let mut out = String::with_capacity(4096);
    out.push_str(
        "<!doctype html><html><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data: https: http:; font-src data:\">",
    );
    let _ = write!(out, "<title>{}</title><style>:root{{", escape(&doc.name));
    for (name, value) in &doc.tokens {
        let _ = write!(out, "{name}:{};", css_value(value));
    }
    out.push_str(
        "}body{margin:0;font-family:system-ui,sans-serif}\
         [data-kind=component-instance],[data-kind=dom-binding]{outline:1px dashed #999;\
         padding:4px;color:#555;font:12px monospace}</style></head><body>",
    );
    // Iterative: (node id, closing tag to write after its children).
    enum Step<'a> {
        Open(&'a str),
        Close(&'static str),
    }
    let mut stack: Vec<Step> = p.children.iter().rev().map(|c| Step::Open(c)).collect();
    while let Some(step) = stack.pop() {
        let id = match step {
            Step::Close(tag) => {
                let _ = write!(out, "</{tag}>");
                continue;
            }
            Step::Open(id) => id,
        };
        let Some(n) = doc.nodes.get(id) else { continue };
        let given = n.tag.as_deref().unwrap_or("").to_ascii_lowercase();
        let tag: &'static str = match n.kind {
            NodeKind::Text => "span",
            NodeKind::ComponentInstance | NodeKind::DomBinding | NodeKind::Shape => "div",
            NodeKind::Frame | NodeKind::Group => ALLOWED
                .iter()
                .find(|t| **t == given)
                .copied()
                .unwrap_or("div"),
        };
        let _ = write!(
            out,
            "<{tag} data-node-id=\"{}\" data-kind=\"{}\"",
            escape(&n.id),
            kind_name(n.kind)
        );
        if !given.is_empty() && given != tag {
            let _ = write!(out, " data-tag=\"{}\"", escape(&given));
        }
        for (k, v) in &n.attributes {
            if !attribute_ok(k, v) {
                continue;
            }
            let _ = write!(out, " {}=\"{}\"", k.to_ascii_lowercase(), escape(v));
        }
        if !n.style.is_empty() {
            out.push_str(" style=\"");
            for (k, v) in &n.style {
                if css_name_ok(k) {
                    let _ = write!(out, "{k}:{};", escape(&css_value(v)));
                }
            }
            out.push('"');
        }
        out.push('>');
        match n.kind {
            NodeKind::Text => out.push_str(&escape(n.text.as_deref().unwrap_or(""))),
            NodeKind::ComponentInstance | NodeKind::DomBinding => {
                let label = n.tag.as_deref().or(n.name.as_deref()).unwrap_or("…");
                out.push_str(&escape(label));
            }
            _ => {}
        }
        if VOID.contains(&tag) {
            continue;
        }
        stack.push(Step::Close(tag));
        stack.extend(n.children.iter().rev().map(|c| Step::Open(c)));
    }
    out.push_str("</body></html>");
    Ok(out)
}

pub fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Frame => "frame",
        NodeKind::Group => "group",
        NodeKind::Text => "text",
        NodeKind::Shape => "shape",
        NodeKind::ComponentInstance => "component-instance",
        NodeKind::DomBinding => "dom-binding",
    }
}

fn attribute_ok(name: &str, value: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let well_formed = !name.is_empty()
        && name.len() <= 128
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'));
    let url_attr = matches!(
        lower.as_str(),
        "href" | "src" | "action" | "formaction" | "xlink:href"
    );
    let script_url = url_attr && {
        let v: String = value
            .chars()
            .filter(|c| !c.is_whitespace() && !c.is_control())
            .collect::<String>()
            .to_ascii_lowercase();
        v.starts_with("javascript:") || v.starts_with("vbscript:") || v.starts_with("data:text")
    };
    well_formed
        && !lower.starts_with("on")
        && !matches!(
            lower.as_str(),
            "style" | "data-node-id" | "data-kind" | "srcdoc"
        )
        && !script_url
}

fn css_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A CSS value that cannot close its declaration, rule or element.
fn css_value(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, ';' | '{' | '}' | '<' | '>' | '\\') && !c.is_control())
        .take(4096)
        .collect()
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canvas::patch::{Op, apply};

    #[test]
    fn nodes_render_with_ids_tokens_and_nothing_that_runs() {
        let doc = Document::new("Demo <x>");
        let ops: Vec<Op> = serde_json::from_str(
            r##"[
              {"op":"token.set","name":"--brand","value":"#0a7;}</style><script>alert(1)</script>"},
              {"op":"node.insert","parent":"p1","node":{"id":"hero","kind":"frame","tag":"section",
                 "style":{"background":"var(--brand)"},
                 "attributes":{"onclick":"alert(1)","href":"javascript:alert(1)","class":"hero\"><script>"}}},
              {"op":"node.insert","parent":"hero","node":{"id":"t","kind":"text","text":"<b>hi</b>"}},
              {"op":"node.insert","parent":"hero","node":{"id":"s","kind":"frame","tag":"script"}},
              {"op":"node.insert","parent":"hero","node":{"id":"i","kind":"frame","tag":"img"}}
            ]"##,
        )
        .expect("ops");
        let doc = apply(&doc, &ops).expect("applies");
        let html = page(&doc, None).expect("renders");
        assert!(html.contains("data-node-id=\"hero\""), "{html}");
        assert!(
            html.contains("--brand:#0a7/stylescriptalert(1)/script"),
            "{html}"
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(
            !html.contains("onclick") && !html.contains("javascript:"),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;hi&lt;/b&gt;"), "{html}");
        assert!(html.contains("data-tag=\"script\""), "{html}");
        assert!(
            html.contains("<img data-node-id=\"i\" data-kind=\"frame\">"),
            "{html}"
        );
        assert!(html.contains("default-src 'none'"), "{html}");
    }
}

//! What a product page shows in its HTML besides the structured data:
//! feature lists and spec tables.
//!
//! A **feature list** is a `<ul>`/`<ol>` whose class or id says so
//! (`features`, `highlights`, `benefits`, `key-features`), or the first
//! list after a heading that does ("Features", "Highlights", "Why you'll
//! love it"). A **spec table** is a `<table>` (rows of `th`/`td` or two
//! `td`s) or a `<dl>` (`dt`/`dd`) whose class or id names specs
//! (`specs`, `specifications`, `tech`, `attributes`) or that follows a
//! heading that does ("Specifications", "Tech specs", "Details"); a list
//! with such a class or heading gives `Name: value` items as specs.
//! Lists in `nav`, `header`, `footer` and `aside` are never read.

use crate::html::{Document, NodeId};

/// Words in a class, id or heading that mark a feature list.
const FEATURE_WORDS: &[&str] = &["feature", "highlight", "benefit", "why you"];
/// Words that mark a spec table or list.
const SPEC_WORDS: &[&str] = &[
    "spec",
    "technical",
    "tech-",
    "attribute",
    "dimension",
    "details",
    "product-info",
];
/// Longest item kept as a feature, in characters.
const MAX_FEATURE_CHARS: usize = 160;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sections {
    pub features: Vec<String>,
    pub specs: Vec<(String, String)>,
}

/// The page's feature lists and spec tables, in document order.
pub fn read(doc: &Document) -> Sections {
    let mut out = Sections::default();
    for id in doc.elements() {
        let Some(tag) = doc.name(id) else { continue };
        if !matches!(tag, "ul" | "ol" | "table" | "dl") || in_chrome(doc, id) {
            continue;
        }
        let kind = kind_of(doc, id);
        let is_spec = kind == Some(Kind::Spec);
        let is_feature = kind == Some(Kind::Feature);
        match tag {
            "table" if is_spec => out.specs.extend(table_rows(doc, id)),
            "dl" if is_spec => out.specs.extend(definitions(doc, id)),
            "ul" | "ol" if is_spec => {
                out.specs
                    .extend(items(doc, id).iter().filter_map(|i| name_value(i)));
            }
            "ul" | "ol" if is_feature => {
                for item in items(doc, id) {
                    match name_value(&item) {
                        // "Weight: 255 g" in a feature list is a spec.
                        Some(spec) if item.chars().count() <= 60 => out.specs.push(spec),
                        _ if item.chars().count() <= MAX_FEATURE_CHARS => out.features.push(item),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn mentions(label: &str, words: &[&str]) -> bool {
    words.iter().any(|w| label.contains(w))
}

/// Inside site chrome (navigation, header, footer, sidebar).
fn in_chrome(doc: &Document, id: NodeId) -> bool {
    doc.ancestors(id)
        .any(|a| matches!(doc.name(a), Some("nav" | "header" | "footer" | "aside")))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Feature,
    Spec,
}

/// What marks the element, nearest first: its own class/id/label, the
/// heading before it, its parent's class/id (a "product-details" wrapper
/// around a "Features" list does not make the list specs).
fn kind_of(doc: &Document, id: NodeId) -> Option<Kind> {
    let attrs = |n: NodeId| {
        ["class", "id", "aria-label"]
            .iter()
            .filter_map(|a| doc.attr(n, a))
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let labels = [
        Some(attrs(id)),
        heading_before(doc, id).map(|h| doc.text(h).to_lowercase()),
        doc.parent(id).map(attrs),
    ];
    labels.into_iter().flatten().find_map(|label| {
        if mentions(&label, SPEC_WORDS) {
            Some(Kind::Spec)
        } else if mentions(&label, FEATURE_WORDS) {
            Some(Kind::Feature)
        } else {
            None
        }
    })
}

fn is_heading(doc: &Document, id: NodeId) -> bool {
    matches!(
        doc.name(id),
        Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "caption" | "summary")
    )
}

/// The heading just before `id`: a preceding sibling (only text, `p` or
/// other headings between), or the first heading of the parent when
/// `id` is the parent's only list, or a `caption` inside a table.
fn heading_before(doc: &Document, id: NodeId) -> Option<NodeId> {
    if let Some(c) = doc.children(id).iter().find(|&&c| doc.is(c, "caption")) {
        return Some(*c);
    }
    let mut node = id;
    for _ in 0..2 {
        let parent = doc.parent(node)?;
        let siblings = doc.children(parent);
        let at = siblings.iter().position(|&s| s == node)?;
        for &s in siblings[..at].iter().rev() {
            match doc.name(s) {
                None | Some("p" | "span" | "br") => continue,
                Some(_) if is_heading(doc, s) => return Some(s),
                Some(_) => return None,
            }
        }
        node = parent;
    }
    None
}

/// The texts of a list's own items.
fn items(doc: &Document, list: NodeId) -> Vec<String> {
    doc.children(list)
        .iter()
        .filter(|&&c| doc.is(c, "li"))
        .map(|&li| doc.text(li))
        .filter(|t| !t.is_empty())
        .collect()
}

/// "Weight: 255 g" → ("Weight", "255 g").
fn name_value(item: &str) -> Option<(String, String)> {
    let (k, v) = item.split_once(':')?;
    let (k, v) = (k.trim(), v.trim());
    let ok = (1..=40).contains(&k.chars().count())
        && k.split_whitespace().count() <= 5
        && (1..=120).contains(&v.chars().count());
    ok.then(|| (k.to_string(), v.to_string()))
}

/// Rows of a table: the first header or cell is the name, the next cell
/// the value.
fn table_rows(doc: &Document, table: NodeId) -> Vec<(String, String)> {
    doc.descendants(table)
        .filter(|&r| doc.is(r, "tr"))
        .filter_map(|tr| {
            let cells: Vec<String> = doc
                .children(tr)
                .iter()
                .filter(|&&c| doc.is(c, "th") || doc.is(c, "td"))
                .map(|&c| doc.text(c))
                .collect();
            match cells.as_slice() {
                [k, v, ..] if !k.is_empty() && !v.is_empty() => Some((k.clone(), v.clone())),
                _ => None,
            }
        })
        .collect()
}

/// `dt`/`dd` pairs of a definition list (a `div` around each pair, as
/// HTML allows, is looked through).
fn definitions(doc: &Document, dl: NodeId) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut term: Option<String> = None;
    for n in doc.descendants(dl) {
        if doc.is(n, "dt") {
            term = Some(doc.text(n));
        } else if doc.is(n, "dd")
            && let Some(k) = term.take()
        {
            let v = doc.text(n);
            if !k.is_empty() && !v.is_empty() {
                out.push((k, v));
            }
        }
    }
    out
}

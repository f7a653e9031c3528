//! Main-content extraction ([`main_text`]) after Mozilla's Readability
//! (<https://github.com/mozilla/readability>, `Readability.js`):
//!
//! 1. drop what is never content: scripts, styles, navigation, asides,
//!    footers, hidden nodes, and blocks whose class/id says "sidebar",
//!    "comment", "share", … (unless it also says "article", "content", …);
//! 2. score each paragraph (1 + commas + one point per 100 characters, at
//!    most 3) and credit its ancestors (parent fully, grandparent half,
//!    further ones a third per level), with a bonus or malus for the
//!    ancestor's tag and class names;
//! 3. scale scores by (1 − link density), take the best candidate, climb
//!    to an ancestor when that holds more of the content, and add
//!    siblings that score close to it;
//! 4. render the chosen nodes as text, leaving out lists, tables and
//!    blocks that look like link farms or forms.
//!
//! If that yields little text, it runs again with fewer rules, as
//! Readability does.

use crate::html::{Document, NodeId, text};

/// Class/id words that mark a block as unlikely content.
const UNLIKELY: &[&str] = &[
    "-ad-",
    "ai2html",
    "banner",
    "breadcrumbs",
    "combx",
    "comment",
    "community",
    "cover-wrap",
    "disqus",
    "extra",
    "footer",
    "gdpr",
    "header",
    "legends",
    "menu",
    "related",
    "remark",
    "replies",
    "rss",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "supplemental",
    "ad-break",
    "agegate",
    "pagination",
    "pager",
    "popup",
    "yom-remote",
];
/// Class/id words that rescue an unlikely-looking block.
const MAYBE: &[&str] = &[
    "and", "article", "body", "column", "content", "main", "shadow",
];
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
];
const NEGATIVE: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "footer",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "widget",
];
/// Elements removed before scoring, with their content.
const NEVER_CONTENT: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "aside", "footer", "iframe", "svg", "button",
    "input", "select", "textarea", "object", "embed", "canvas", "dialog", "menu", "link", "meta",
    "head", "title",
];
const UNLIKELY_ROLES: &[&str] = &[
    "menu",
    "menubar",
    "complementary",
    "navigation",
    "alert",
    "alertdialog",
    "dialog",
];
/// Elements whose presence makes a `div` a container rather than a paragraph.
const BLOCKISH: &[&str] = &[
    "blockquote",
    "dl",
    "div",
    "img",
    "ol",
    "p",
    "pre",
    "table",
    "ul",
    "select",
    "section",
    "article",
    "figure",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];
const SCORED: &[&str] = &["p", "td", "pre", "section", "h2", "h3", "h4", "h5", "h6"];
/// Output under this many characters triggers a retry with fewer rules.
const MIN_TEXT: usize = 500;

#[derive(Clone, Copy)]
struct Flags {
    strip_unlikely: bool,
    weigh_classes: bool,
    clean_conditionally: bool,
}

/// The page's main text: paragraphs separated by blank lines.
pub fn main_text(doc: &Document) -> String {
    let attempts = [
        Flags {
            strip_unlikely: true,
            weigh_classes: true,
            clean_conditionally: true,
        },
        Flags {
            strip_unlikely: false,
            weigh_classes: true,
            clean_conditionally: true,
        },
        Flags {
            strip_unlikely: false,
            weigh_classes: false,
            clean_conditionally: true,
        },
        Flags {
            strip_unlikely: false,
            weigh_classes: false,
            clean_conditionally: false,
        },
    ];
    let mut best = String::new();
    for flags in attempts {
        let text = Extractor::new(doc, flags).run();
        if text.chars().count() >= MIN_TEXT {
            return text;
        }
        if text.len() > best.len() {
            best = text;
        }
    }
    best
}

struct Extractor<'a> {
    doc: &'a Document,
    flags: Flags,
    /// Nodes dropped before scoring (their subtrees are skipped too).
    removed: Vec<bool>,
    score: Vec<Option<f64>>,
}

impl<'a> Extractor<'a> {
    fn new(doc: &'a Document, flags: Flags) -> Self {
        Extractor {
            doc,
            flags,
            removed: vec![false; doc.len()],
            score: vec![None; doc.len()],
        }
    }

    fn run(mut self) -> String {
        self.mark_removed();
        self.score_paragraphs();
        let Some(top) = self.top_candidate() else {
            let body = self.doc.find("body").unwrap_or(self.doc.root());
            return self.render(&[body]);
        };
        let nodes = self.with_siblings(top);
        self.render(&nodes)
    }

    fn class_and_id(&self, id: NodeId) -> String {
        let d = self.doc;
        format!(
            "{} {}",
            d.attr(id, "class").unwrap_or_default(),
            d.attr(id, "id").unwrap_or_default()
        )
        .to_ascii_lowercase()
    }

    fn is_hidden(&self, id: NodeId) -> bool {
        let d = self.doc;
        if d.attr(id, "hidden").is_some() || d.attr(id, "aria-hidden") == Some("true") {
            return true;
        }
        d.attr(id, "style").is_some_and(|s| {
            let s: String = s
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            s.contains("display:none") || s.contains("visibility:hidden")
        })
    }

    fn mark_removed(&mut self) {
        let d = self.doc;
        let mut id = 1;
        while id < d.len() {
            let Some(name) = d.name(id) else {
                id += 1;
                continue;
            };
            let drop = NEVER_CONTENT.contains(&name)
                || self.is_hidden(id)
                || d.attr(id, "role")
                    .is_some_and(|r| UNLIKELY_ROLES.contains(&r))
                || (self.flags.strip_unlikely
                    && name != "body"
                    && name != "a"
                    && name != "html"
                    && self.looks_unlikely(id));
            if drop {
                let end = d.subtree_end(id);
                for r in &mut self.removed[id..=end] {
                    *r = true;
                }
                id = end + 1;
            } else {
                id += 1;
            }
        }
    }

    fn looks_unlikely(&self, id: NodeId) -> bool {
        let d = self.doc;
        let ci = self.class_and_id(id);
        if ci.trim().is_empty() {
            return false;
        }
        UNLIKELY.iter().any(|w| ci.contains(w))
            && !MAYBE.iter().any(|w| ci.contains(w))
            && !d
                .ancestors(id)
                .any(|a| matches!(d.name(a), Some("table" | "code")))
    }

    fn class_weight(&self, id: NodeId) -> f64 {
        if !self.flags.weigh_classes {
            return 0.0;
        }
        let d = self.doc;
        let mut weight = 0.0;
        for attr in ["class", "id"] {
            let Some(v) = d.attr(id, attr) else { continue };
            let v = v.to_ascii_lowercase();
            if NEGATIVE.iter().any(|w| v.contains(w)) {
                weight -= 25.0;
            }
            if POSITIVE.iter().any(|w| v.contains(w)) {
                weight += 25.0;
            }
        }
        weight
    }

    /// (visible characters, characters inside links, commas) of `id`,
    /// skipping removed nodes (and, when `skip` says so, others).
    fn stats(&self, id: NodeId, skip: &dyn Fn(NodeId) -> bool) -> (usize, usize, usize) {
        let d = self.doc;
        let (mut chars, mut link_chars, mut commas) = (0, 0, 0);
        let mut link_end: Option<NodeId> = None;
        let end = d.subtree_end(id);
        let mut n = id;
        while n <= end {
            if n != id && (self.removed[n] || skip(n)) {
                n = d.subtree_end(n) + 1;
                continue;
            }
            if d.is(n, "a") && link_end.is_none_or(|e| n > e) {
                link_end = Some(d.subtree_end(n));
            }
            if let Some(t) = d.text_node(n) {
                let len = visible_len(t);
                chars += len;
                if link_end.is_some_and(|e| n <= e) {
                    link_chars += len;
                }
                commas += t.matches([',', '，', '،']).count();
            }
            n += 1;
        }
        (chars, link_chars, commas)
    }

    fn link_density(&self, id: NodeId) -> f64 {
        let (chars, links, _) = self.stats(id, &|_| false);
        if chars == 0 {
            0.0
        } else {
            links as f64 / chars as f64
        }
    }

    fn initial_score(&self, id: NodeId) -> f64 {
        let base = match self.doc.name(id).unwrap_or_default() {
            "div" | "article" | "main" => 5.0,
            "pre" | "td" | "blockquote" => 3.0,
            "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
            _ => 0.0,
        };
        base + self.class_weight(id)
    }

    /// True for a `div` with no block-level descendants (a paragraph in
    /// all but name).
    fn is_paragraph_div(&self, id: NodeId) -> bool {
        let d = self.doc;
        d.descendants(id)
            .all(|n| self.removed[n] || !d.name(n).is_some_and(|name| BLOCKISH.contains(&name)))
    }

    /// Text length and commas of the inline content directly in `id`
    /// (text and phrasing children, not block children).
    fn inline_stats(&self, id: NodeId) -> (usize, usize) {
        let d = self.doc;
        let (mut chars, mut commas) = (0, 0);
        for &c in d.children(id) {
            if self.removed[c] {
                continue;
            }
            if let Some(t) = d.text_node(c) {
                chars += visible_len(t);
                commas += t.matches(',').count();
            } else if d
                .name(c)
                .is_some_and(|n| !BLOCKISH.contains(&n) && !text::BLOCK.contains(&n))
            {
                let (len, _, cm) = self.stats(c, &|_| false);
                chars += len;
                commas += cm;
            }
        }
        (chars, commas)
    }

    fn score_paragraphs(&mut self) {
        let d = self.doc;
        for id in 1..d.len() {
            if self.removed[id] {
                continue;
            }
            let Some(name) = d.name(id) else { continue };
            // (node whose ancestors get the credit, text length, commas)
            let (len, commas, from) =
                if SCORED.contains(&name) || (name == "div" && self.is_paragraph_div(id)) {
                    let (len, _, commas) = self.stats(id, &|_| false);
                    (len, commas, id)
                } else if name == "div" {
                    // Loose text between blocks counts as a paragraph of this div.
                    let (len, commas) = self.inline_stats(id);
                    if len < 25 {
                        continue;
                    }
                    self.credit(id, 1.0 + commas as f64 + (len / 100).min(3) as f64, 0);
                    continue;
                } else {
                    continue;
                };
            if len < 25 {
                continue;
            }
            let points = 1.0 + commas as f64 + (len / 100).min(3) as f64;
            let Some(parent) = d.parent(from) else {
                continue;
            };
            self.credit(parent, points, 0);
        }
        // Scale by how much of each candidate is links.
        for id in 0..d.len() {
            if let Some(s) = self.score[id] {
                self.score[id] = Some(s * (1.0 - self.link_density(id)));
            }
        }
    }

    /// Credits `points` to `id` (as ancestor level `level`) and upwards,
    /// five levels in all.
    fn credit(&mut self, id: NodeId, points: f64, level: usize) {
        let d = self.doc;
        let mut node = Some(id);
        let mut level = level;
        while let Some(n) = node {
            if n == 0 || level >= 5 || d.name(n).is_none() {
                break;
            }
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f64 * 3.0,
            };
            let current = match self.score[n] {
                Some(s) => s,
                None => self.initial_score(n),
            };
            self.score[n] = Some(current + points / divider);
            node = d.parent(n);
            level += 1;
        }
    }

    fn top_candidate(&self) -> Option<NodeId> {
        let d = self.doc;
        let mut ranked: Vec<(NodeId, f64)> = self
            .score
            .iter()
            .enumerate()
            .filter_map(|(id, s)| s.map(|s| (id, s)))
            .filter(|(id, _)| !matches!(d.name(*id), Some("html" | "body")))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let &(mut top, top_score) = ranked.first()?;
        if top_score <= 0.0 {
            return None;
        }
        // When several strong candidates share an ancestor, the article is
        // that ancestor (content split into sibling blocks).
        let close: Vec<NodeId> = ranked
            .iter()
            .skip(1)
            .take(4)
            .filter(|(_, s)| *s / top_score >= 0.75)
            .map(|(id, _)| *id)
            .collect();
        if close.len() >= 2 {
            for anc in d.ancestors(top) {
                if d.is(anc, "body") {
                    break;
                }
                if close.iter().filter(|&&c| d.contains(anc, c)).count() >= 2 {
                    top = anc;
                    break;
                }
            }
        }
        // Climb while the parent scores higher (it holds more content).
        let mut last = self.score[top].unwrap_or(top_score);
        let threshold = last / 3.0;
        let mut parent = d.parent(top);
        while let Some(p) = parent {
            if p == 0 || d.is(p, "body") {
                break;
            }
            if let Some(ps) = self.score[p] {
                if ps < threshold {
                    break;
                }
                if ps > last {
                    top = p;
                    break;
                }
                last = ps;
            }
            parent = d.parent(p);
        }
        // An only child stands for its parent.
        while let Some(p) = d.parent(top) {
            if p == 0 || d.is(p, "body") {
                break;
            }
            let element_children = d
                .children(p)
                .iter()
                .filter(|&&c| d.name(c).is_some() && !self.removed[c])
                .count();
            if element_children != 1 {
                break;
            }
            top = p;
        }
        Some(top)
    }

    /// The top candidate and the siblings that belong with it.
    fn with_siblings(&self, top: NodeId) -> Vec<NodeId> {
        let d = self.doc;
        let Some(parent) = d.parent(top) else {
            return vec![top];
        };
        if parent == 0 {
            return vec![top];
        }
        let top_score = self.score[top].unwrap_or(0.0);
        let threshold = (top_score * 0.2).max(10.0);
        let top_class = d.attr(top, "class").unwrap_or_default();
        d.children(parent)
            .iter()
            .copied()
            .filter(|&s| !self.removed[s] && d.name(s).is_some())
            .filter(|&s| {
                if s == top {
                    return true;
                }
                let bonus = if !top_class.is_empty() && d.attr(s, "class") == Some(top_class) {
                    top_score * 0.2
                } else {
                    0.0
                };
                if self.score[s].is_some_and(|sc| sc + bonus >= threshold) {
                    return true;
                }
                if d.is(s, "p") {
                    let (len, links, _) = self.stats(s, &|_| false);
                    let density = if len == 0 {
                        0.0
                    } else {
                        links as f64 / len as f64
                    };
                    let txt = d.text(s);
                    return (len > 80 && density < 0.25)
                        || (len > 0
                            && len <= 80
                            && density == 0.0
                            && (txt.ends_with('.') || txt.contains(". ")));
                }
                false
            })
            .collect()
    }

    /// Readability's "clean conditionally": containers that look like
    /// link lists, forms or widgets rather than prose.
    fn is_junk_container(&self, id: NodeId) -> bool {
        if !self.flags.clean_conditionally {
            return false;
        }
        let d = self.doc;
        let Some(name) = d.name(id) else { return false };
        if !matches!(
            name,
            "form" | "fieldset" | "table" | "ul" | "ol" | "div" | "section" | "header"
        ) {
            return false;
        }
        if name == "table" && self.is_data_table(id) {
            return false;
        }
        let weight = self.class_weight(id);
        if weight + self.score[id].unwrap_or(0.0) < 0.0 {
            return true;
        }
        let (len, links, commas) = self.stats(id, &|_| false);
        if commas >= 10 {
            return false;
        }
        let (mut p, mut img, mut li, mut input, mut embeds) =
            (0usize, 0usize, 0isize, 0usize, 0usize);
        for n in d.descendants(id) {
            if self.removed[n] {
                continue;
            }
            match d.name(n) {
                Some("p") => p += 1,
                Some("img") => img += 1,
                Some("li") => li += 1,
                Some("input") => input += 1,
                Some("object" | "embed" | "iframe" | "video") => embeds += 1,
                _ => {}
            }
        }
        let li = li - 100;
        let density = if len == 0 {
            0.0
        } else {
            links as f64 / len as f64
        };
        let in_figure = d.ancestors(id).any(|a| d.is(a, "figure"));
        (img > 1 && (p as f64) / (img as f64) < 0.5 && !in_figure)
            || (!matches!(name, "ul" | "ol") && li > p as isize)
            || (input as f64 > (p as f64 / 3.0).floor())
            || (len < 25 && (img == 0 || img > 2) && !in_figure && embeds == 0)
            || (weight < 25.0 && density > 0.2)
            || (weight >= 25.0 && density > 0.5)
            || ((embeds == 1 && len < 75) || embeds > 1)
    }

    /// Tables of data (headers, captions, many cells) are content.
    fn is_data_table(&self, id: NodeId) -> bool {
        let d = self.doc;
        if d.attr(id, "role") == Some("presentation") {
            return false;
        }
        let mut cells = 0;
        for n in d.descendants(id) {
            match d.name(n) {
                Some("th" | "caption" | "thead" | "tfoot" | "colgroup") => return true,
                Some("table") => return false,
                Some("td") => cells += 1,
                _ => {}
            }
        }
        cells >= 10
    }

    fn render(&self, nodes: &[NodeId]) -> String {
        let skip = |n: NodeId| self.removed[n] || self.is_junk_container(n);
        nodes
            .iter()
            .map(|&n| text::render(self.doc, n, &skip))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// Characters of `t` as rendered: whitespace runs count once.
fn visible_len(t: &str) -> usize {
    let mut len = 0;
    let mut in_space = true;
    for c in t.chars() {
        if c.is_whitespace() {
            if !in_space {
                len += 1;
                in_space = true;
            }
        } else {
            len += 1;
            in_space = false;
        }
    }
    len
}

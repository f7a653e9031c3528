//! CSS selectors over a [`Document`]: the subset scrapers use, matched as
//! browsers match `querySelectorAll`.
//!
//! Supported:
//!
//! | syntax | matches |
//! | --- | --- |
//! | `*`, `div` | any element, elements named `div` (ASCII case-insensitive) |
//! | `.price`, `#main` | class list contains `price`, `id` is `main` |
//! | `[href]` | has the attribute |
//! | `[rel=author]`, `[rel="author"]` | value is exactly `author` |
//! | `[class~=big]` | whitespace-separated list contains `big` |
//! | `[lang\|=en]` | `en` or starts with `en-` |
//! | `[href^=https]`, `[href$=".pdf"]`, `[href*=shop]` | starts with, ends with, contains |
//! | `[type=Text i]` | any of the above, ASCII case-insensitive |
//! | `A B`, `A > B`, `A + B`, `A ~ B` | descendant, child, next sibling, later sibling |
//! | `A, B` | either |
//! | `:first-child`, `:last-child`, `:only-child` | position among element siblings |
//! | `:first-of-type`, `:last-of-type` | position among same-named siblings |
//! | `:nth-child(2)`, `:nth-child(odd)`, `:nth-child(3n+1)` | `An+B` positions, from 1 |
//! | `:root`, `:empty` | the top element; an element with no element or text children |
//! | `:not(.ad, [hidden])` | none of the listed compound selectors |
//!
//! Anything else (`:hover`, `:has()`, `::before`, namespaces, escapes) is
//! a [`SelectorError`] that names the position and what is unsupported,
//! never a silent non-match.

use super::{Document, NodeId};
use std::fmt;

/// A selector that could not be parsed: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// The selector as given.
    pub selector: String,
    /// Byte offset of the problem in `selector`.
    pub position: usize,
    pub message: String,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CSS selector `{}` at byte {}: {}",
            self.selector, self.position, self.message
        )
    }
}

impl std::error::Error for SelectorError {}

/// A parsed selector list, reusable across documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    alternatives: Vec<Complex>,
}

/// Compound selectors joined by combinators, left to right; the first
/// part's combinator is unused.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Complex {
    parts: Vec<(Combinator, Compound)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combinator {
    Descendant,
    Child,
    NextSibling,
    LaterSibling,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Compound {
    /// Lowercased; `None` for `*` or no type.
    tag: Option<String>,
    ids: Vec<String>,
    classes: Vec<String>,
    attrs: Vec<AttrTest>,
    pseudos: Vec<Pseudo>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AttrTest {
    /// Lowercased.
    name: String,
    op: AttrOp,
    value: String,
    ignore_case: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrOp {
    Exists,
    Equals,
    Includes,
    DashMatch,
    Prefix,
    Suffix,
    Substring,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pseudo {
    FirstChild,
    LastChild,
    OnlyChild,
    FirstOfType,
    LastOfType,
    /// `An+B`.
    NthChild(i64, i64),
    Root,
    Empty,
    Not(Vec<Compound>),
}

const PSEUDOS: &str = ":first-child, :last-child, :only-child, :first-of-type, :last-of-type, \
                       :nth-child(An+B), :root, :empty, :not(…)";

impl Selector {
    /// Parses a selector list such as `article h2 > a[href], .title`.
    pub fn parse(css: &str) -> Result<Selector, SelectorError> {
        let mut p = Parser { s: css, i: 0 };
        let alternatives = p.selector_list()?;
        Ok(Selector { alternatives })
    }

    /// True when element `id` matches.
    pub fn matches(&self, doc: &Document, id: NodeId) -> bool {
        Matcher::new(doc, self).matches(id)
    }

    /// Matching elements inside `scope` (not `scope` itself), in document
    /// order. As with the DOM's `querySelectorAll`, the selector is
    /// matched against the whole document: in `div p`, the `div` may be
    /// above `scope`.
    pub fn select<'a>(
        &'a self,
        doc: &'a Document,
        scope: NodeId,
    ) -> impl Iterator<Item = NodeId> + 'a {
        let mut m = Matcher::new(doc, self);
        doc.descendants(scope).filter(move |&id| m.matches(id))
    }
}

impl std::str::FromStr for Selector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selector::parse(s)
    }
}

/// Matching with memory: whether a node matches the first `k` parts of a
/// complex selector does not depend on where the match started, so
/// descendant combinators cost one walk per node, not one per path.
struct Matcher<'a> {
    doc: &'a Document,
    sel: &'a Selector,
    /// Per (alternative, part), one byte per node: 0 unknown, 1 no, 2
    /// yes. Allocated on first use (combinator-free selectors never do).
    memo: Vec<Vec<u8>>,
}

impl<'a> Matcher<'a> {
    fn new(doc: &'a Document, sel: &'a Selector) -> Self {
        Matcher {
            doc,
            sel,
            memo: Vec::new(),
        }
    }

    fn matches(&mut self, id: NodeId) -> bool {
        if self.doc.name(id).is_none() {
            return false;
        }
        let sel = self.sel;
        sel.alternatives
            .iter()
            .enumerate()
            .any(|(n, c)| self.complex(n, c.parts.len() - 1, id))
    }

    /// The memo cell of (alternative `n`, part `part`, node `id`).
    fn cell(&mut self, n: usize, part: usize, id: NodeId) -> &mut u8 {
        let alternatives = &self.sel.alternatives;
        if self.memo.is_empty() {
            self.memo = vec![Vec::new(); alternatives.iter().map(|c| c.parts.len()).sum()];
        }
        let index = alternatives[..n]
            .iter()
            .map(|c| c.parts.len())
            .sum::<usize>()
            + part;
        let row = &mut self.memo[index];
        if row.is_empty() {
            row.resize(self.doc.len(), 0);
        }
        &mut row[id]
    }

    /// True when `id` matches parts `0..=last` of alternative `n`, part
    /// `last` on `id`.
    fn complex(&mut self, n: usize, last: usize, id: NodeId) -> bool {
        // Only parts left of a combinator are ever asked twice.
        let memoize = last + 1 < self.sel.alternatives[n].parts.len();
        if memoize {
            match *self.cell(n, last, id) {
                1 => return false,
                2 => return true,
                _ => {}
            }
        }
        let doc = self.doc;
        let (comb, compound) = &self.sel.alternatives[n].parts[last];
        let hit = compound.matches(doc, id)
            && (last == 0
                || match comb {
                    Combinator::Child => doc
                        .ancestors(id)
                        .next()
                        .is_some_and(|p| self.complex(n, last - 1, p)),
                    Combinator::Descendant => {
                        doc.ancestors(id).any(|a| self.complex(n, last - 1, a))
                    }
                    Combinator::NextSibling => element_siblings_before(doc, id)
                        .last()
                        .is_some_and(|&s| self.complex(n, last - 1, s)),
                    Combinator::LaterSibling => element_siblings_before(doc, id)
                        .into_iter()
                        .rev()
                        .any(|s| self.complex(n, last - 1, s)),
                });
        if memoize {
            *self.cell(n, last, id) = if hit { 2 } else { 1 };
        }
        hit
    }
}

/// Element siblings of `id` that come before it, in document order.
fn element_siblings_before(doc: &Document, id: NodeId) -> Vec<NodeId> {
    let Some(parent) = doc.parent(id) else {
        return Vec::new();
    };
    let siblings = doc.children(parent);
    // Children are in document order, so ids ascend.
    let pos = siblings.binary_search(&id).unwrap_or(0);
    siblings[..pos]
        .iter()
        .copied()
        .filter(|&s| doc.name(s).is_some())
        .collect()
}

fn element_siblings_after(doc: &Document, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let siblings = doc.parent(id).map(|p| doc.children(p)).unwrap_or(&[]);
    let pos = siblings.binary_search(&id).map(|p| p + 1).unwrap_or(0);
    siblings[pos..]
        .iter()
        .copied()
        .filter(|&s| doc.name(s).is_some())
}

impl Compound {
    fn matches(&self, doc: &Document, id: NodeId) -> bool {
        let Some(name) = doc.name(id) else {
            return false;
        };
        self.tag.as_deref().is_none_or(|t| t == name)
            && self
                .ids
                .iter()
                .all(|want| doc.attr(id, "id") == Some(want.as_str()))
            && self.classes.iter().all(|c| doc.has_class(id, c))
            && self.attrs.iter().all(|a| a.matches(doc, id))
            && self.pseudos.iter().all(|p| p.matches(doc, id, name))
    }
}

impl AttrTest {
    fn matches(&self, doc: &Document, id: NodeId) -> bool {
        let Some(have) = doc.attr(id, &self.name) else {
            return false;
        };
        let (have, want) = if self.ignore_case {
            (have.to_ascii_lowercase(), self.value.to_ascii_lowercase())
        } else {
            (have.to_string(), self.value.clone())
        };
        match self.op {
            AttrOp::Exists => true,
            AttrOp::Equals => have == want,
            AttrOp::Includes => {
                !want.is_empty()
                    && !want.contains(|c: char| c.is_ascii_whitespace())
                    && have.split_ascii_whitespace().any(|w| w == want)
            }
            AttrOp::DashMatch => {
                have == want
                    || have
                        .strip_prefix(want.as_str())
                        .is_some_and(|r| r.starts_with('-'))
            }
            // Per the spec, an empty value matches nothing here.
            AttrOp::Prefix => !want.is_empty() && have.starts_with(&want),
            AttrOp::Suffix => !want.is_empty() && have.ends_with(&want),
            AttrOp::Substring => !want.is_empty() && have.contains(&want),
        }
    }
}

impl Pseudo {
    fn matches(&self, doc: &Document, id: NodeId, name: &str) -> bool {
        match self {
            Pseudo::FirstChild => element_siblings_before(doc, id).is_empty(),
            Pseudo::LastChild => element_siblings_after(doc, id).next().is_none(),
            Pseudo::OnlyChild => {
                element_siblings_before(doc, id).is_empty()
                    && element_siblings_after(doc, id).next().is_none()
            }
            Pseudo::FirstOfType => !element_siblings_before(doc, id)
                .into_iter()
                .any(|s| doc.is(s, name)),
            Pseudo::LastOfType => !element_siblings_after(doc, id).any(|s| doc.is(s, name)),
            &Pseudo::NthChild(a, b) => {
                let index = element_siblings_before(doc, id).len() as i64 + 1;
                if a == 0 {
                    index == b
                } else {
                    let diff = index - b;
                    diff % a == 0 && diff / a >= 0
                }
            }
            Pseudo::Root => doc.parent(id) == Some(doc.root()),
            Pseudo::Empty => doc
                .children(id)
                .iter()
                .all(|&c| doc.text_node(c).is_none_or(str::is_empty) && doc.name(c).is_none()),
            Pseudo::Not(list) => !list.iter().any(|c| c.matches(doc, id)),
        }
    }
}

struct Parser<'s> {
    s: &'s str,
    i: usize,
}

impl Parser<'_> {
    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, SelectorError> {
        Err(SelectorError {
            selector: self.s.to_string(),
            position: at,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }

    fn skip_ws(&mut self) -> bool {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
        self.i > start
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn selector_list(&mut self) -> Result<Vec<Complex>, SelectorError> {
        let mut list = Vec::new();
        loop {
            self.skip_ws();
            list.push(self.complex()?);
            self.skip_ws();
            match self.peek() {
                None => return Ok(list),
                Some(',') => self.i += 1,
                Some(c) => return self.error(self.i, format!("unexpected '{c}'")),
            }
        }
    }

    fn complex(&mut self) -> Result<Complex, SelectorError> {
        let mut parts = vec![(Combinator::Descendant, self.compound()?)];
        loop {
            let spaced = self.skip_ws();
            let comb = match self.peek() {
                Some('>') => Combinator::Child,
                Some('+') => Combinator::NextSibling,
                Some('~') => Combinator::LaterSibling,
                Some(',') | None => break,
                Some(_) if spaced => {
                    parts.push((Combinator::Descendant, self.compound()?));
                    continue;
                }
                Some(c) => return self.error(self.i, format!("unexpected '{c}'")),
            };
            self.i += 1;
            self.skip_ws();
            parts.push((comb, self.compound()?));
        }
        Ok(Complex { parts })
    }

    fn compound(&mut self) -> Result<Compound, SelectorError> {
        let start = self.i;
        let mut c = Compound::default();
        if !self.eat('*') && self.peek().is_some_and(is_name_char) {
            c.tag = Some(self.name("a tag name")?.to_ascii_lowercase());
        }
        loop {
            let at = self.i;
            match self.peek() {
                Some('.') => {
                    self.i += 1;
                    c.classes.push(self.name("a class name after '.'")?);
                }
                Some('#') => {
                    self.i += 1;
                    c.ids.push(self.name("an id after '#'")?);
                }
                Some('[') => {
                    self.i += 1;
                    c.attrs.push(self.attr()?);
                }
                Some(':') => {
                    self.i += 1;
                    c.pseudos.push(self.pseudo(at)?);
                }
                Some('|') => {
                    return self.error(at, "namespaces (`ns|tag`) are not supported");
                }
                Some('\\') => return self.error(at, "escapes (`\\`) are not supported"),
                _ => break,
            }
        }
        if self.i == start {
            return match self.peek() {
                None => self.error(self.i, "expected a selector, found the end"),
                Some(ch) => self.error(self.i, format!("expected a selector, found '{ch}'")),
            };
        }
        Ok(c)
    }

    fn name(&mut self, what: &str) -> Result<String, SelectorError> {
        let start = self.i;
        while self.peek().is_some_and(is_name_char) {
            self.i += self.peek().map_or(1, char::len_utf8);
        }
        if self.i == start {
            if self.peek() == Some('\\') {
                return self.error(start, "escapes (`\\`) are not supported");
            }
            return self.error(start, format!("expected {what}"));
        }
        Ok(self.s[start..self.i].to_string())
    }

    fn attr(&mut self) -> Result<AttrTest, SelectorError> {
        self.skip_ws();
        if self.peek() == Some('|') || self.s[self.i..].starts_with("*|") {
            return self.error(self.i, "attribute namespaces are not supported");
        }
        let name = self
            .name("an attribute name after '['")?
            .to_ascii_lowercase();
        self.skip_ws();
        let at = self.i;
        let op = if self.eat(']') {
            return Ok(AttrTest {
                name,
                op: AttrOp::Exists,
                value: String::new(),
                ignore_case: false,
            });
        } else if self.eat('=') {
            AttrOp::Equals
        } else {
            let op = match self.peek() {
                Some('~') => AttrOp::Includes,
                Some('|') => AttrOp::DashMatch,
                Some('^') => AttrOp::Prefix,
                Some('$') => AttrOp::Suffix,
                Some('*') => AttrOp::Substring,
                _ => {
                    return self.error(
                        at,
                        "expected ']' or one of = ~= |= ^= $= *= after the attribute name",
                    );
                }
            };
            self.i += 1;
            if !self.eat('=') {
                return self.error(at, "expected '=' after the attribute operator");
            }
            op
        };
        self.skip_ws();
        let value = match self.peek() {
            Some(q @ ('"' | '\'')) => {
                let open = self.i;
                self.i += 1;
                let Some(len) = self.s[self.i..].find(q) else {
                    return self.error(open, "unterminated string");
                };
                let v = &self.s[self.i..self.i + len];
                if v.contains('\\') {
                    return self.error(open, "escapes (`\\`) are not supported");
                }
                self.i += len + 1;
                v.to_string()
            }
            _ => self.name("a value (a name or a quoted string)")?,
        };
        self.skip_ws();
        let mut ignore_case = false;
        match self.peek() {
            Some('i' | 'I') => {
                ignore_case = true;
                self.i += 1;
            }
            Some('s' | 'S') => self.i += 1,
            _ => {}
        }
        self.skip_ws();
        if !self.eat(']') {
            return self.error(self.i, "expected ']' to close the attribute selector");
        }
        Ok(AttrTest {
            name,
            op,
            value,
            ignore_case,
        })
    }

    /// After the ':' at `at`.
    fn pseudo(&mut self, at: usize) -> Result<Pseudo, SelectorError> {
        if self.peek() == Some(':') {
            return self.error(
                at,
                "pseudo-elements (`::before`, …) are not elements and cannot be selected",
            );
        }
        let name = self
            .name("a pseudo-class name after ':'")?
            .to_ascii_lowercase();
        let simple = match name.as_str() {
            "first-child" => Some(Pseudo::FirstChild),
            "last-child" => Some(Pseudo::LastChild),
            "only-child" => Some(Pseudo::OnlyChild),
            "first-of-type" => Some(Pseudo::FirstOfType),
            "last-of-type" => Some(Pseudo::LastOfType),
            "root" => Some(Pseudo::Root),
            "empty" => Some(Pseudo::Empty),
            "nth-child" | "not" => None,
            other => {
                return self.error(
                    at,
                    format!("unsupported pseudo-class :{other} (supported: {PSEUDOS})"),
                );
            }
        };
        if let Some(p) = simple {
            if self.peek() == Some('(') {
                return self.error(self.i, format!(":{name} takes no argument"));
            }
            return Ok(p);
        }
        if !self.eat('(') {
            return self.error(self.i, format!("expected '(' after :{name}"));
        }
        let p = if name == "not" {
            let mut list = Vec::new();
            loop {
                self.skip_ws();
                list.push(self.compound()?);
                self.skip_ws();
                if !self.eat(',') {
                    break;
                }
            }
            if !matches!(self.peek(), Some(')')) {
                return self.error(
                    self.i,
                    ":not() takes compound selectors only (no combinators)",
                );
            }
            Pseudo::Not(list)
        } else {
            let open = self.i;
            let Some(len) = self.s[self.i..].find(')') else {
                return self.error(open, "expected ')' to close :nth-child(");
            };
            let arg = &self.s[open..open + len];
            let Some((a, b)) = parse_an_plus_b(arg) else {
                return self.error(
                    open,
                    format!("expected An+B, odd or even in :nth-child(), found `{arg}`"),
                );
            };
            self.i = open + len;
            Pseudo::NthChild(a, b)
        };
        if !self.eat(')') {
            return self.error(self.i, format!("expected ')' to close :{name}("));
        }
        Ok(p)
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii()
}

/// `odd`, `even`, `5`, `-n+3`, `2n + 1`, `n`: (A, B).
fn parse_an_plus_b(arg: &str) -> Option<(i64, i64)> {
    let s: String = arg
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match s.as_str() {
        "odd" => return Some((2, 1)),
        "even" => return Some((2, 0)),
        "" => return None,
        _ => {}
    }
    let int = |t: &str| -> Option<i64> {
        let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    match s.split_once('n') {
        None => Some((0, int(&s)?)),
        Some((a, b)) => {
            let a = match a {
                "" | "+" => 1,
                "-" => -1,
                a => int(a)?,
            };
            let b = if b.is_empty() {
                0
            } else if b.starts_with(['+', '-']) {
                int(b)?
            } else {
                return None;
            };
            Some((a, b))
        }
    }
}

impl Document {
    /// Elements matching the CSS selector `css`, in document order; an
    /// `Err` says what in `css` is unsupported or malformed (see
    /// [`select`](self) for the subset).
    ///
    /// ```
    /// # use webrig_kit::html::Document;
    /// let doc = Document::parse(r#"<ul id=menu><li><a href="/a">A</a><li class=ad><a href="https://ads.example/">B</a></ul>"#);
    /// let local: Vec<_> = doc
    ///     .select(r#"#menu > li:not(.ad) a[href^="/"]"#)?
    ///     .into_iter()
    ///     .map(|a| doc.text(a))
    ///     .collect();
    /// assert_eq!(local, ["A"]);
    /// assert!(doc.select("a:hover").is_err());
    /// # Ok::<(), webrig_kit::html::SelectorError>(())
    /// ```
    pub fn select(&self, css: &str) -> Result<Vec<NodeId>, SelectorError> {
        Ok(Selector::parse(css)?.select(self, self.root()).collect())
    }

    /// The first element matching `css`, if any.
    pub fn select_first(&self, css: &str) -> Result<Option<NodeId>, SelectorError> {
        Ok(Selector::parse(css)?.select(self, self.root()).next())
    }

    /// Elements inside `scope` (not `scope` itself) matching `css`, in
    /// document order; see [`Selector::select`].
    pub fn select_in(&self, scope: NodeId, css: &str) -> Result<Vec<NodeId>, SelectorError> {
        Ok(Selector::parse(css)?.select(self, scope).collect())
    }

    /// The first element inside `scope` matching `css`, if any.
    pub fn select_first_in(
        &self,
        scope: NodeId,
        css: &str,
    ) -> Result<Option<NodeId>, SelectorError> {
        Ok(Selector::parse(css)?.select(self, scope).next())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html lang="en-GB"><body>
        <div id="main" class="content wide">
          <h1 class="title">Title</h1>
          <p class="lead">First <a href="/one" rel="author nofollow">one</a></p>
          <p>Second <a href="https://other.example/two.PDF">two</a></p>
          <ul><li>a</li><li class="ad">b</li><li>c</li><li>d</li><li></li></ul>
        </div>
        <div class="sidebar"><p>Side <a href="/three" data-x="">three</a></p></div>
        </body></html>"#;

    fn texts(doc: &Document, css: &str) -> Vec<String> {
        doc.select(css)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|id| doc.text(id))
            .collect()
    }

    #[test]
    fn simple_selectors() {
        let doc = Document::parse(PAGE);
        assert_eq!(texts(&doc, "h1"), ["Title"]);
        assert_eq!(texts(&doc, "H1"), ["Title"]);
        assert_eq!(texts(&doc, ".title"), ["Title"]);
        assert_eq!(texts(&doc, "#main > .title"), ["Title"]);
        assert_eq!(texts(&doc, "div.content.wide h1"), ["Title"]);
        assert!(texts(&doc, "div.content.narrow h1").is_empty());
        assert_eq!(doc.select("*").expect("ok").len(), doc.elements().count());
        assert_eq!(texts(&doc, "p.lead a"), ["one"]);
    }

    #[test]
    fn attribute_selectors() {
        let doc = Document::parse(PAGE);
        assert_eq!(texts(&doc, "a[href]").len(), 3);
        assert_eq!(texts(&doc, "a[href='/one']"), ["one"]);
        assert_eq!(texts(&doc, r#"a[href="/one"]"#), ["one"]);
        assert_eq!(texts(&doc, "a[href^='/']"), ["one", "three"]);
        assert_eq!(texts(&doc, "a[href^=https]"), ["two"]);
        assert_eq!(texts(&doc, "a[href*=other]"), ["two"]);
        assert!(texts(&doc, "a[href$='.pdf']").is_empty());
        assert_eq!(texts(&doc, "a[href$='.pdf' i]"), ["two"]);
        assert_eq!(texts(&doc, "a[rel~=nofollow]"), ["one"]);
        assert!(texts(&doc, "a[rel=nofollow]").is_empty());
        assert_eq!(doc.select("html[lang|=en]").expect("ok").len(), 1);
        assert!(doc.select("html[lang|=en-G]").expect("ok").is_empty());
        assert_eq!(texts(&doc, "a[data-x]"), ["three"]);
        assert_eq!(texts(&doc, "a[data-x='']"), ["three"]);
        // Empty prefix/suffix/substring values match nothing, as in CSS.
        assert!(texts(&doc, "a[href^='']").is_empty());
        assert_eq!(texts(&doc, "[ href = '/three' ]"), ["three"]);
    }

    #[test]
    fn combinators_and_lists() {
        let doc = Document::parse(PAGE);
        assert_eq!(texts(&doc, "body > div > p > a").len(), 3);
        assert_eq!(texts(&doc, "body > #main > p > a"), ["one", "two"]);
        assert!(texts(&doc, "body > p").is_empty());
        assert_eq!(texts(&doc, "div p a"), ["one", "two", "three"]);
        assert_eq!(texts(&doc, ".sidebar a, h1"), ["Title", "three"]);
        assert_eq!(texts(&doc, "h1 + p"), ["First one"]);
        assert_eq!(texts(&doc, "h1 ~ p"), ["First one", "Second two"]);
        assert_eq!(texts(&doc, "li.ad + li"), ["c"]);
        assert_eq!(texts(&doc, "li.ad ~ li"), ["c", "d", ""]);
        assert_eq!(texts(&doc, "h1>p,li.ad"), ["b"]);
        // The same element matched by two alternatives comes once.
        assert_eq!(texts(&doc, "h1, .title, #main h1"), ["Title"]);
    }

    #[test]
    fn pseudo_classes() {
        let doc = Document::parse(PAGE);
        assert_eq!(texts(&doc, "li:first-child"), ["a"]);
        assert_eq!(texts(&doc, "li:last-child"), [""]);
        assert_eq!(texts(&doc, "#main > :first-child"), ["Title"]);
        assert_eq!(texts(&doc, "#main p:first-of-type"), ["First one"]);
        assert_eq!(texts(&doc, "#main p:last-of-type"), ["Second two"]);
        assert_eq!(texts(&doc, ".sidebar p:only-child"), ["Side three"]);
        assert_eq!(texts(&doc, "li:nth-child(2)"), ["b"]);
        assert_eq!(texts(&doc, "li:nth-child(odd)"), ["a", "c", ""]);
        assert_eq!(texts(&doc, "li:nth-child(even)"), ["b", "d"]);
        assert_eq!(texts(&doc, "li:nth-child(-n + 2)"), ["a", "b"]);
        assert_eq!(texts(&doc, "li:nth-child(n+4)"), ["d", ""]);
        assert_eq!(texts(&doc, "li:not(.ad):not(:empty)"), ["a", "c", "d"]);
        assert_eq!(texts(&doc, "li:not(.ad, :first-child)"), ["c", "d", ""]);
        assert_eq!(
            doc.select(":root").expect("ok"),
            [doc.find("html").expect("present")]
        );
    }

    #[test]
    fn first_and_scoped() {
        let doc = Document::parse(PAGE);
        let side = doc.select_first(".sidebar").expect("ok").expect("present");
        assert_eq!(doc.select_in(side, "a").expect("ok").len(), 1);
        // Ancestors outside the scope still count, as in the DOM.
        assert_eq!(doc.select_in(side, "body a").expect("ok").len(), 1);
        // The scope itself is not a candidate.
        assert!(doc.select_in(side, ".sidebar").expect("ok").is_empty());
        let a = doc
            .select_first_in(side, "a")
            .expect("ok")
            .expect("present");
        assert_eq!(doc.attr(a, "href"), Some("/three"));
        assert_eq!(doc.select_first("table").expect("ok"), None);
        let sel: Selector = "p > a".parse().expect("parses");
        assert!(sel.matches(&doc, a));
        assert!(!sel.matches(&doc, side));
    }

    #[test]
    fn errors_name_the_problem() {
        let doc = Document::parse(PAGE);
        for (css, position, needle) in [
            ("", 0, "expected a selector"),
            ("a,", 2, "expected a selector"),
            ("a > ", 4, "found the end"),
            ("a:hover", 1, "unsupported pseudo-class :hover"),
            ("div:has(p)", 3, "unsupported pseudo-class :has"),
            ("p::before", 1, "pseudo-elements"),
            ("a[href", 6, "expected ']'"),
            ("a[href=']", 7, "unterminated string"),
            ("a[href!=x]", 6, "expected ']' or one of"),
            ("svg|a", 3, "namespaces"),
            (".a\\:b", 2, "escapes"),
            ("li:nth-child(x)", 13, "expected An+B"),
            ("li:not(a b)", 9, "compound selectors only"),
            ("a:first-child(2)", 13, "takes no argument"),
            ("a )", 2, "found ')'"),
            ("a)", 1, "unexpected ')'"),
            ("#", 1, "expected an id"),
        ] {
            let e = doc.select(css).expect_err(css);
            assert_eq!(e.position, position, "{css}: {e}");
            assert!(e.message.contains(needle), "{css}: {e}");
            assert!(e.to_string().contains(&format!("`{css}`")), "{e}");
        }
    }

    #[test]
    fn deep_descendant_chains_stay_fast() {
        let page = format!("{}<p>x</p>", "<div>".repeat(200));
        let doc = Document::parse(&page);
        let start = std::time::Instant::now();
        assert_eq!(doc.select("div div div div div p").expect("ok").len(), 1);
        assert!(doc.select("div div div div span p").expect("ok").is_empty());
        assert!(start.elapsed().as_secs() < 2);
    }
}

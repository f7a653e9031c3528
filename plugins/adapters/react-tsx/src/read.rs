//! Reading bound JSX into a graph (the mapping is described in the crate
//! docs), with what [`crate::emit`] needs to copy unchanged source.

use std::collections::HashMap;

use oxc_allocator::Allocator;
use oxc_ast::ast::*;
use oxc_span::GetSpan;
use webrig_adapter_sdk::types::{Declaration, Error, Graph, Node, NodeKind, Span as WitSpan};
use webrig_adapter_sdk::{node, token_refs};

use crate::detect::{candidates, wit_span};
use crate::{source, style, text};

/// How deep the graph may nest (the bound JSX, and a graph handed to
/// `emit`).
pub const MAX_DEPTH: usize = 256;

/// The graph of the JSX at `bound` in `source`.
pub fn parse(source: &str, bound: WitSpan) -> Result<Graph, Error> {
    let alloc = Allocator::default();
    let program = source::program(&alloc, source)?;
    let read = read_bound(source, &program, bound)?;
    Ok(read.graph)
}

/// Where an element's parts are in the source.
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    /// The opening tag, `<div …>` or `<br />`.
    pub open: (u32, u32),
    /// Where the closing tag starts (the element's end when self-closing).
    pub close_start: u32,
}

/// A read: the graph and, per element id, its [`Parts`].
pub struct Read {
    pub graph: Graph,
    pub parts: HashMap<u32, Parts>,
}

/// Reads the exported component JSX whose root is exactly at `bound`.
pub fn read_bound(source: &str, program: &Program<'_>, bound: WitSpan) -> Result<Read, Error> {
    let found = candidates(program);
    let root = found
        .iter()
        .find(|c| same_span(wit_span(c.root.span()), bound))
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "no exported component's JSX starts at {} and ends at {}",
                bound.start, bound.end
            ))
        })?;
    let mut b = Builder {
        src: source,
        nodes: Vec::new(),
        parts: HashMap::new(),
    };
    let root_id = match root.root {
        Expression::JSXElement(e) => b.element(e, 0)?,
        Expression::JSXFragment(f) => b.fragment(f),
        _ => return Err(Error::Internal("a candidate root is not JSX".into())),
    };
    Ok(Read {
        graph: Graph {
            root: root_id,
            nodes: b.nodes,
        },
        parts: b.parts,
    })
}

pub fn same_span(a: WitSpan, b: WitSpan) -> bool {
    a.start == b.start && a.end == b.end
}

struct Builder<'s> {
    src: &'s str,
    nodes: Vec<Node>,
    parts: HashMap<u32, Parts>,
}

impl Builder<'_> {
    /// A new node, numbered in source order from 1.
    fn push(&mut self, kind: NodeKind, tag: &str, span: oxc_span::Span) -> usize {
        let id = self.nodes.len() as u32 + 1;
        let mut n = node(id, kind, tag);
        n.span = Some(wit_span(span));
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    fn text_of(&self, s: oxc_span::Span) -> &str {
        &self.src[s.start as usize..s.end as usize]
    }

    fn element(&mut self, e: &JSXElement<'_>, depth: usize) -> Result<u32, Error> {
        if depth > MAX_DEPTH {
            return Err(Error::InvalidInput(format!(
                "the JSX nests deeper than {MAX_DEPTH} elements"
            )));
        }
        let open = &e.opening_element;
        let name = self.text_of(open.name.span()).to_string();
        let intrinsic = matches!(&open.name, JSXElementName::Identifier(_))
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            || matches!(&open.name, JSXElementName::NamespacedName(_));
        let kind = if intrinsic {
            NodeKind::Element
        } else {
            NodeKind::Component
        };
        let at = self.push(kind, &name, e.span);
        let id = self.nodes[at].id;
        let mut reasons = Vec::new();
        self.attributes(at, &open.attributes, &mut reasons);
        if !intrinsic {
            // A component is an instance: its children are its own business.
            self.nodes[at].unsupported = Some("a component".into());
            return Ok(id);
        }
        if !reasons.is_empty() {
            self.nodes[at].unsupported = Some(reasons.join("; "));
        }
        self.parts.insert(
            id,
            Parts {
                open: (open.span.start, open.span.end),
                close_start: e
                    .closing_element
                    .as_ref()
                    .map_or(e.span.end, |c| c.span.start),
            },
        );
        let mut kids = Vec::new();
        for child in &e.children {
            if let Some(k) = self.child(child, depth + 1)? {
                kids.push(k);
            }
        }
        self.nodes[at].children = kids;
        Ok(id)
    }

    fn fragment(&mut self, f: &JSXFragment<'_>) -> u32 {
        let at = self.push(NodeKind::Component, "", f.span);
        self.nodes[at].unsupported = Some("a fragment".into());
        self.nodes[at].id
    }

    fn child(&mut self, c: &JSXChild<'_>, depth: usize) -> Result<Option<u32>, Error> {
        Ok(Some(match c {
            JSXChild::Text(t) => {
                let raw = self.text_of(t.span);
                let cleaned = text::clean(raw);
                if cleaned.is_empty() {
                    return Ok(None);
                }
                let ws: &[char] = &[' ', '\t', '\n', '\r'];
                let lead = raw.len() - raw.trim_start_matches(ws).len();
                let trail = raw.len() - raw.trim_end_matches(ws).len();
                let span = if lead + trail >= raw.len() {
                    t.span
                } else {
                    oxc_span::Span::new(t.span.start + lead as u32, t.span.end - trail as u32)
                };
                let at = self.push(NodeKind::Text, "", span);
                self.nodes[at].text = text::decode_entities(&cleaned);
                self.nodes[at].id
            }
            JSXChild::Element(e) => self.element(e, depth)?,
            JSXChild::Fragment(f) => self.fragment(f),
            JSXChild::ExpressionContainer(x) => {
                let why = match x.expression {
                    JSXExpression::EmptyExpression(_) => "a comment",
                    _ => "an expression",
                };
                let at = self.push(NodeKind::Opaque, "", x.span);
                self.nodes[at].unsupported = Some(why.into());
                // The source, for the canvas to show; kept verbatim.
                self.nodes[at].text = self.text_of(x.span).to_string();
                self.nodes[at].id
            }
            JSXChild::Spread(s) => {
                let at = self.push(NodeKind::Opaque, "", s.span);
                self.nodes[at].unsupported = Some("a spread child".into());
                self.nodes[at].text = self.text_of(s.span).to_string();
                self.nodes[at].id
            }
        }))
    }

    /// The literal attributes and style of node `at`; what it cannot
    /// model goes to `reasons`.
    fn attributes(&mut self, at: usize, items: &[JSXAttributeItem<'_>], reasons: &mut Vec<String>) {
        for item in items {
            let a = match item {
                JSXAttributeItem::Attribute(a) => a,
                JSXAttributeItem::SpreadAttribute(_) => {
                    reasons.push("a spread attribute".into());
                    continue;
                }
            };
            let written = self.text_of(a.name.span()).to_string();
            if written == "style" {
                match &a.value {
                    Some(JSXAttributeValue::ExpressionContainer(x)) => {
                        if let Some(Expression::ObjectExpression(o)) = x.expression.as_expression()
                        {
                            let (decls, ok) = style_object(o);
                            if !ok {
                                reasons.push("the style has a non-literal part".into());
                            }
                            let n = &mut self.nodes[at];
                            for d in &decls {
                                for t in token_refs(&d.value) {
                                    if !n.token_refs.contains(&t) {
                                        n.token_refs.push(t);
                                    }
                                }
                            }
                            n.style = decls;
                        } else {
                            reasons.push("the style is an expression".into());
                        }
                    }
                    _ => reasons.push("the style is not an object".into()),
                }
                continue;
            }
            let value = match &a.value {
                None => Some(String::new()),
                Some(JSXAttributeValue::StringLiteral(s)) => {
                    let raw = self.text_of(s.span);
                    Some(text::decode_entities(&raw[1..raw.len() - 1]))
                }
                Some(JSXAttributeValue::ExpressionContainer(x)) => match &x.expression {
                    JSXExpression::StringLiteral(s) => Some(s.value.to_string()),
                    _ => None,
                },
                Some(_) => None,
            };
            match value {
                Some(value) => {
                    let name = match written.as_str() {
                        "className" => "class".to_string(),
                        "htmlFor" => "for".to_string(),
                        _ => written,
                    };
                    self.nodes[at]
                        .attributes
                        .push(webrig_adapter_sdk::types::Attribute { name, value });
                }
                None => reasons.push(format!("the attribute {written} is an expression")),
            }
        }
    }
}

/// The literal declarations of a style object, and whether it was all
/// literal.
fn style_object(o: &ObjectExpression<'_>) -> (Vec<Declaration>, bool) {
    let mut out = Vec::new();
    let mut all = true;
    for p in &o.properties {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            all = false;
            continue;
        };
        if p.computed || p.method || p.shorthand {
            all = false;
            continue;
        }
        let key = match &p.key {
            PropertyKey::StaticIdentifier(id) => id.name.to_string(),
            PropertyKey::StringLiteral(s) => s.value.to_string(),
            _ => {
                all = false;
                continue;
            }
        };
        let property = style::css_name(&key);
        let value = match p.value.get_inner_expression() {
            Expression::StringLiteral(s) => Some(s.value.to_string()),
            Expression::NumericLiteral(n) => Some(style::number_value(&property, n.value)),
            Expression::UnaryExpression(u) if u.operator == UnaryOperator::UnaryNegation => {
                match &u.argument {
                    Expression::NumericLiteral(n) => Some(style::number_value(&property, -n.value)),
                    _ => None,
                }
            }
            Expression::TemplateLiteral(t) if t.expressions.is_empty() => t
                .quasis
                .first()
                .and_then(|q| q.value.cooked.as_ref())
                .map(|c| c.to_string()),
            _ => None,
        };
        match value {
            Some(value) => out.push(Declaration { property, value }),
            None => all = false,
        }
    }
    (out, all)
}

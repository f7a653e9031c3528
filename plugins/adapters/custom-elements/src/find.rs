//! Finding the bound template with oxc: each `customElements.define('x-tag',
//! Class)` call, and the template literal assigned to an `innerHTML` in
//! that class (else at the module's top level, as in `template.innerHTML =
//! \`…\``).

use oxc_allocator::Allocator;
use oxc_ast::ast::*;
use oxc_parser::Parser;
use oxc_span::SourceType;
use webrig_adapter_sdk::types::Error;

/// The largest file read, bytes.
pub const MAX_SOURCE: usize = 4 << 20;
/// How deep brackets may nest before the (recursive) parser is not run.
pub const MAX_NESTING: usize = 400;
/// How deep statements are searched for the assignment.
const MAX_WALK: usize = 16;

/// A defined element and its template: the literal's byte range without
/// the backticks, and where each `${` substitution starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub tag: String,
    pub content: (usize, usize),
    pub substitutions: Vec<usize>,
}

/// Every element `source` defines that has a template, in source order.
pub fn templates(source: &str) -> Result<Vec<Found>, Error> {
    if source.len() > MAX_SOURCE {
        return Err(Error::InvalidInput("the file is over 4 MiB".into()));
    }
    if nesting(source) > MAX_NESTING {
        return Err(Error::InvalidInput(format!(
            "the file nests deeper than {MAX_NESTING} levels"
        )));
    }
    let alloc = Allocator::default();
    // TypeScript is a superset for what custom element files hold.
    let ret = Parser::new(&alloc, source, SourceType::ts()).parse();
    if ret.panicked || !ret.errors.is_empty() {
        let why = ret
            .errors
            .first()
            .map(|e| e.to_string())
            .unwrap_or_else(|| "the parser gave up".into());
        return Err(Error::InvalidInput(format!("not valid JavaScript: {why}")));
    }
    let program = &ret.program;
    let mut out = Vec::new();
    for (tag, class) in defines(program) {
        let in_class = class.and_then(|c| {
            c.body.body.iter().find_map(|e| match e {
                ClassElement::MethodDefinition(m) => m
                    .value
                    .body
                    .as_ref()
                    .and_then(|b| in_statements(&b.statements, 0)),
                _ => None,
            })
        });
        if let Some(t) = in_class.or_else(|| in_statements(&program.body, MAX_WALK - 2)) {
            out.push(Found {
                tag,
                content: (t.span.start as usize + 1, t.span.end as usize - 1),
                substitutions: t
                    .quasis
                    .iter()
                    .rev()
                    .skip(1)
                    .rev()
                    .map(|q| q.span.end as usize)
                    .collect(),
            });
        }
    }
    Ok(out)
}

/// The `customElements.define` calls (also `window.customElements…`, and
/// inside an `if`), with the class they name when it is in this file.
fn defines<'s, 'a>(program: &'s Program<'a>) -> Vec<(String, Option<&'s Class<'a>>)> {
    let class_named = |name: &str| -> Option<&'s Class<'a>> {
        program.body.iter().find_map(|s| {
            let c = match s {
                Statement::ClassDeclaration(c) => c,
                Statement::ExportNamedDeclaration(e) => match &e.declaration {
                    Some(Declaration::ClassDeclaration(c)) => c,
                    _ => return None,
                },
                Statement::ExportDefaultDeclaration(e) => match &e.declaration {
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => c,
                    _ => return None,
                },
                _ => return None,
            };
            (c.id.as_ref()?.name == name).then_some(&**c)
        })
    };
    let mut calls = Vec::new();
    for s in &program.body {
        collect_calls(s, 0, &mut calls);
    }
    calls
        .into_iter()
        .filter_map(|call| {
            let tag = match call.arguments.first()?.as_expression()? {
                Expression::StringLiteral(s) => s.value.to_string(),
                _ => return None,
            };
            let class = match call
                .arguments
                .get(1)?
                .as_expression()?
                .get_inner_expression()
            {
                Expression::Identifier(id) => class_named(&id.name),
                Expression::ClassExpression(c) => Some(&**c),
                _ => None,
            };
            Some((tag, class))
        })
        .collect()
}

fn collect_calls<'s, 'a>(
    s: &'s Statement<'a>,
    depth: usize,
    out: &mut Vec<&'s CallExpression<'a>>,
) {
    if depth > MAX_WALK {
        return;
    }
    match s {
        Statement::ExpressionStatement(e) => {
            if let Expression::CallExpression(c) = e.expression.get_inner_expression()
                && is_define(&c.callee)
            {
                out.push(c);
            }
        }
        Statement::IfStatement(i) => {
            collect_calls(&i.consequent, depth + 1, out);
            if let Some(a) = &i.alternate {
                collect_calls(a, depth + 1, out);
            }
        }
        Statement::BlockStatement(b) => {
            b.body.iter().for_each(|s| collect_calls(s, depth + 1, out))
        }
        _ => {}
    }
}

fn is_define(callee: &Expression<'_>) -> bool {
    let Expression::StaticMemberExpression(m) = callee else {
        return false;
    };
    m.property.name == "define"
        && match &m.object {
            Expression::Identifier(id) => id.name == "customElements",
            Expression::StaticMemberExpression(o) => o.property.name == "customElements",
            _ => false,
        }
}

/// The first template literal assigned to an `…innerHTML` in `body`.
fn in_statements<'s, 'a>(
    body: &'s [Statement<'a>],
    depth: usize,
) -> Option<&'s TemplateLiteral<'a>> {
    if depth > MAX_WALK {
        return None;
    }
    body.iter().find_map(|s| match s {
        Statement::ExpressionStatement(e) => match e.expression.get_inner_expression() {
            Expression::AssignmentExpression(a) => {
                let target = matches!(&a.left,
                    AssignmentTarget::StaticMemberExpression(m) if m.property.name == "innerHTML");
                match a.right.get_inner_expression() {
                    Expression::TemplateLiteral(t) if target => Some(&**t),
                    _ => None,
                }
            }
            _ => None,
        },
        Statement::BlockStatement(b) => in_statements(&b.body, depth + 1),
        Statement::IfStatement(i) => in_statements(std::slice::from_ref(&i.consequent), depth + 1)
            .or_else(|| {
                i.alternate
                    .as_ref()
                    .and_then(|a| in_statements(std::slice::from_ref(a), depth + 1))
            }),
        _ => None,
    })
}

/// Bracket depth, an upper estimate of how deep the parser recurses
/// (strings and comments are not skipped, so it may overcount).
fn nesting(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

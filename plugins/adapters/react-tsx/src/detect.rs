//! Finding the bound JSX: the exports of a module that are function
//! components, and the JSX each returns.

use oxc_allocator::Allocator;
use oxc_ast::ast::*;
use oxc_span::GetSpan;
use webrig_adapter_sdk::types::{Entrypoint, Span as WitSpan};

use crate::source;

/// One exported component and the root of the JSX it returns (an element
/// or a fragment, parentheses unwrapped).
pub struct Candidate<'s, 'a> {
    /// The export's name, `default` for the default export.
    pub name: String,
    pub root: &'s Expression<'a>,
}

/// A component's body: a function or an arrow function.
#[derive(Clone, Copy)]
enum Body<'s, 'a> {
    Function(&'s Function<'a>),
    Arrow(&'s ArrowFunctionExpression<'a>),
}

/// The entrypoint in `source`: the export `want` when given, else the
/// default export, else the first exported component returning JSX.
pub fn detect(source: &str, want: Option<&str>) -> Option<Entrypoint> {
    let alloc = Allocator::default();
    let program = source::program(&alloc, source).ok()?;
    let found = candidates(&program);
    let pick = match want {
        Some(w) => found.iter().find(|c| c.name == w),
        None => found
            .iter()
            .find(|c| c.name == "default")
            .or_else(|| found.first()),
    }?;
    Some(Entrypoint {
        name: pick.name.clone(),
        span: wit_span(pick.root.span()),
    })
}

pub fn wit_span(s: oxc_span::Span) -> WitSpan {
    WitSpan {
        start: s.start,
        end: s.end,
    }
}

/// Every export of `program` that is a function returning JSX, in source
/// order.
pub fn candidates<'s, 'a>(program: &'s Program<'a>) -> Vec<Candidate<'s, 'a>> {
    // Local functions first, so `export default Dashboard` and
    // `export { Card }` find what they name.
    let mut locals: Vec<(&str, Body<'s, 'a>)> = Vec::new();
    for stmt in &program.body {
        let decl = match stmt {
            Statement::ExportNamedDeclaration(e) => e.declaration.as_ref(),
            s => s.as_declaration(),
        };
        if let Some(d) = decl {
            declared(d, &mut locals);
        }
    }
    let local = |name: &str| locals.iter().find(|(n, _)| *n == name).map(|(_, b)| *b);
    let mut out = Vec::new();
    let mut push = |name: String, body: Option<Body<'s, 'a>>| {
        if let Some(root) = body.and_then(returned_jsx) {
            out.push(Candidate { name, root });
        }
    };
    for stmt in &program.body {
        match stmt {
            Statement::ExportDefaultDeclaration(e) => {
                let body = match &e.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => Some(Body::Function(f)),
                    ExportDefaultDeclarationKind::Identifier(id) => local(&id.name),
                    // `export default memo(Dashboard)`
                    ExportDefaultDeclarationKind::CallExpression(c) => {
                        match c.arguments.first().and_then(|a| a.as_expression()) {
                            Some(Expression::Identifier(id)) => local(&id.name),
                            _ => function_of(e.declaration.to_expression()),
                        }
                    }
                    other => other.as_expression().and_then(function_of),
                };
                push("default".into(), body);
            }
            Statement::ExportNamedDeclaration(e) if e.source.is_none() => {
                if let Some(d) = &e.declaration {
                    let mut mine = Vec::new();
                    declared(d, &mut mine);
                    for (name, body) in mine {
                        push(name.to_string(), Some(body));
                    }
                }
                for s in &e.specifiers {
                    push(s.exported.name().to_string(), local(&s.local.name()));
                }
            }
            _ => {}
        }
    }
    out
}

/// The function components a declaration declares.
fn declared<'s, 'a>(d: &'s Declaration<'a>, out: &mut Vec<(&'s str, Body<'s, 'a>)>) {
    match d {
        Declaration::FunctionDeclaration(f) => {
            if let Some(id) = &f.id {
                out.push((id.name.as_str(), Body::Function(f)));
            }
        }
        Declaration::VariableDeclaration(v) => {
            for d in &v.declarations {
                if let (BindingPatternKind::BindingIdentifier(id), Some(init)) =
                    (&d.id.kind, &d.init)
                    && let Some(body) = function_of(init)
                {
                    out.push((id.name.as_str(), body));
                }
            }
        }
        _ => {}
    }
}

/// The function an expression is: an arrow or function expression, also
/// wrapped once in a call (`memo(() => …)`, `forwardRef(function …)`).
fn function_of<'s, 'a>(e: &'s Expression<'a>) -> Option<Body<'s, 'a>> {
    match e.get_inner_expression() {
        Expression::ArrowFunctionExpression(a) => Some(Body::Arrow(a)),
        Expression::FunctionExpression(f) => Some(Body::Function(f)),
        Expression::CallExpression(c) => c
            .arguments
            .first()
            .and_then(|a| a.as_expression())
            .and_then(|a| match a.get_inner_expression() {
                Expression::ArrowFunctionExpression(a) => Some(Body::Arrow(a)),
                Expression::FunctionExpression(f) => Some(Body::Function(f)),
                _ => None,
            }),
        _ => None,
    }
}

/// The JSX a component returns: an arrow's expression body, else the last
/// `return <…>` among the body's own statements (the main render after
/// early returns), else the first in a nested block.
fn returned_jsx<'s, 'a>(body: Body<'s, 'a>) -> Option<&'s Expression<'a>> {
    let statements = match body {
        Body::Function(f) => &f.body.as_ref()?.statements,
        Body::Arrow(a) if a.expression => {
            return match a.body.statements.first()? {
                Statement::ExpressionStatement(s) => jsx(&s.expression),
                _ => None,
            };
        }
        Body::Arrow(a) => &a.body.statements,
    };
    statements
        .iter()
        .rev()
        .find_map(|s| match s {
            Statement::ReturnStatement(r) => r.argument.as_ref().and_then(jsx),
            _ => None,
        })
        .or_else(|| statements.iter().find_map(|s| nested_return(s, 0)))
}

fn nested_return<'s, 'a>(s: &'s Statement<'a>, depth: usize) -> Option<&'s Expression<'a>> {
    if depth > 8 {
        return None;
    }
    match s {
        Statement::ReturnStatement(r) => r.argument.as_ref().and_then(jsx),
        Statement::BlockStatement(b) => b.body.iter().find_map(|s| nested_return(s, depth + 1)),
        Statement::IfStatement(i) => nested_return(&i.consequent, depth + 1).or_else(|| {
            i.alternate
                .as_ref()
                .and_then(|a| nested_return(a, depth + 1))
        }),
        _ => None,
    }
}

/// `e` without parentheses and TS wrappers, when it is JSX.
fn jsx<'s, 'a>(e: &'s Expression<'a>) -> Option<&'s Expression<'a>> {
    let inner = e.get_inner_expression();
    matches!(
        inner,
        Expression::JSXElement(_) | Expression::JSXFragment(_)
    )
    .then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_and_text(src: &str, want: Option<&str>) -> Option<(String, String)> {
        detect(src, want).map(|e| {
            (
                e.name,
                src[e.span.start as usize..e.span.end as usize].to_string(),
            )
        })
    }

    #[test]
    fn default_export_wins_without_want() {
        let src = "export function A() { return <a/>; }\n\
                   export default function B() { if (x) { return <i/>; } return (<b>hi</b>); }";
        assert_eq!(
            name_and_text(src, None),
            Some(("default".into(), "<b>hi</b>".into()))
        );
        assert_eq!(
            name_and_text(src, Some("A")),
            Some(("A".into(), "<a/>".into()))
        );
        assert_eq!(name_and_text(src, Some("C")), None);
    }

    #[test]
    fn arrows_locals_and_specifiers_are_found() {
        let src = "const Card = () => (<div className=\"c\"/>);\n\
                   function Page() { return <main/>; }\n\
                   export const Row = memo(() => <tr/>);\n\
                   export { Card };\nexport default Page;";
        let memo = "function Page() { return <main/>; }\nexport default memo(Page);";
        assert_eq!(
            name_and_text(memo, None).map(|x| x.1),
            Some("<main/>".into())
        );
        assert_eq!(
            name_and_text(src, None).map(|x| x.1),
            Some("<main/>".into())
        );
        assert_eq!(
            name_and_text(src, Some("Row")).map(|x| x.1),
            Some("<tr/>".into())
        );
        assert_eq!(
            name_and_text(src, Some("Card")).map(|x| x.1),
            Some("<div className=\"c\"/>".into())
        );
    }

    #[test]
    fn no_jsx_no_entrypoint() {
        assert!(detect("export function f() { return 1; }", None).is_none());
        assert!(detect("export default function A() { return <", None).is_none());
    }
}

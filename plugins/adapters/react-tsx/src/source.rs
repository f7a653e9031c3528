//! Parsing a file with oxc, behind limits: oxc's parser is recursive, so
//! input that nests deeper than [`MAX_NESTING`] is refused before it is
//! parsed (a guest's stack is small and an overflow would trap).

use oxc_allocator::Allocator;
use oxc_ast::ast::Program;
use oxc_parser::Parser;
use oxc_span::SourceType;
use webrig_adapter_sdk::types::Error;

/// The largest file read, bytes.
pub const MAX_SOURCE: usize = 4 << 20;
/// How deep brackets and JSX tags may nest (by the estimate of
/// [`nesting_estimate`]). Real components stay far below it.
pub const MAX_NESTING: usize = 400;

/// The program in `source`, read as TSX (a superset of what `.jsx` files
/// hold, but for the rare `<T>x` cast). Any syntax error refuses it: a
/// recovered tree could print back differently.
pub fn program<'a>(alloc: &'a Allocator, source: &'a str) -> Result<Program<'a>, Error> {
    if source.len() > MAX_SOURCE {
        return Err(Error::InvalidInput(format!(
            "the file is over {} MiB",
            MAX_SOURCE >> 20
        )));
    }
    let depth = nesting_estimate(source);
    if depth > MAX_NESTING {
        return Err(Error::InvalidInput(format!(
            "the file nests deeper than {MAX_NESTING} levels"
        )));
    }
    let ret = Parser::new(alloc, source, SourceType::tsx()).parse();
    if ret.panicked || !ret.errors.is_empty() {
        let why = ret
            .errors
            .first()
            .map(|e| e.to_string())
            .unwrap_or_else(|| "the parser gave up".into());
        return Err(Error::InvalidInput(format!("not valid TSX: {why}")));
    }
    Ok(ret.program)
}

/// An upper estimate of how deep the parser will recurse: bracket depth
/// plus JSX tag depth. A `<` opens a tag when a name, `>` or `/` follows
/// and no name character precedes it (so `Array<T>` and `a < b` do not
/// count); `</` and `/>` close one. Strings and comments are not skipped,
/// so it may overcount, never undercount a real nesting of tags.
pub fn nesting_estimate(source: &str) -> usize {
    let b = source.as_bytes();
    let (mut brackets, mut tags, mut max) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => brackets += 1,
            b')' | b']' | b'}' => brackets = brackets.saturating_sub(1),
            b'<' => {
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                let prev = if i == 0 { b' ' } else { b[i - 1] };
                let name_before = prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'$';
                if next == b'/' {
                    tags = tags.saturating_sub(1);
                    i += 1;
                } else if !name_before && (next.is_ascii_alphabetic() || next == b'>') {
                    tags += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'>') => {
                tags = tags.saturating_sub(1);
                i += 1;
            }
            _ => {}
        }
        max = max.max(brackets + tags);
        i += 1;
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_tags_and_brackets_not_generics() {
        assert_eq!(nesting_estimate("<div><p>a</p><br/></div>"), 2);
        assert_eq!(nesting_estimate("const a: Array<Array<T>> = f(x < y);"), 1);
        assert_eq!(nesting_estimate("(((x)))"), 3);
    }

    #[test]
    fn deep_input_is_refused_before_parsing() {
        let deep = "<div>".repeat(10_000) + &"</div>".repeat(10_000);
        let src = format!("export default function A() {{ return {deep}; }}");
        let alloc = Allocator::default();
        assert!(matches!(program(&alloc, &src), Err(Error::InvalidInput(_))));
        let parens = "(".repeat(100_000);
        assert!(program(&alloc, &parens).is_err());
    }

    #[test]
    fn syntax_errors_are_refused() {
        let alloc = Allocator::default();
        let src = "export default function A() { return <div><p>hi</div>; }";
        assert!(program(&alloc, src).is_err());
        assert!(program(&alloc, "export default function A() { return <di").is_err());
    }
}

//! The `@macro(...)` expression language: `@name(arg, …, key=value)` steps
//! joined by `|`. Parsing only, no side effects; every error knows its column.
//!
//! Values: strings in single or double quotes (escapes `\n \t \r \\ \' \" \u{…}`),
//! numbers, `true`/`false`, lists `[…]`, and bare words (anything else up to a
//! delimiter, taken as a string). Hand-written (about 200 lines) rather than
//! through a parser crate: the grammar is tiny, and exact columns in errors
//! are the point.

use serde::Serialize;
use serde_json::{Map, Number, Value};

/// Longest expression accepted, bytes.
pub const MAX_EXPR: usize = 8192;
/// Deepest list nesting accepted.
const MAX_DEPTH: usize = 16;
/// Most steps in one pipe.
pub const MAX_STEPS: usize = 16;

/// One `@name(...)` of a pipe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub name: String,
    pub positional: Vec<Value>,
    pub named: Map<String, Value>,
    /// Column (1-based, in characters) where the step's `@` is.
    pub col: usize,
}

impl Step {
    /// Argument lookup: `named[key]`, else `positional[i]`.
    pub fn arg(&self, key: &str, i: usize) -> Option<&Value> {
        self.named.get(key).or_else(|| self.positional.get(i))
    }
}

/// A parse error: where and what, and the expression to show it in.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("col {col}: {message}\n  {line}\n  {caret}^")]
pub struct ParseError {
    pub col: usize,
    pub message: String,
    line: String,
    caret: String,
}

pub fn parse(expr: &str) -> Result<Vec<Step>, ParseError> {
    let chars: Vec<char> = expr.chars().collect();
    let mut p = Parser {
        src: expr,
        chars,
        pos: 0,
    };
    if expr.len() > MAX_EXPR {
        return Err(p.error_at(0, format!("the expression is over {MAX_EXPR} bytes")));
    }
    let mut steps = Vec::new();
    loop {
        p.skip_ws();
        steps.push(p.step()?);
        if steps.len() > MAX_STEPS {
            return Err(p.error(format!("a pipe has at most {MAX_STEPS} steps")));
        }
        p.skip_ws();
        match p.peek() {
            None => return Ok(steps),
            Some('|') => p.pos += 1,
            Some(c) => return Err(p.error(format!("expected '|' or the end, found {c:?}"))),
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    chars: Vec<char>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        // The expression on one line (newlines shown as spaces) so the caret
        // lines up; very long expressions are shown around the column.
        let line: String = self
            .src
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let start = pos.saturating_sub(60);
        let shown: String = line.chars().skip(start).take(120).collect();
        ParseError {
            col: pos + 1,
            message: message.into(),
            line: shown,
            caret: " ".repeat(pos - start),
        }
    }

    fn step(&mut self) -> Result<Step, ParseError> {
        let col = self.pos + 1;
        match self.peek() {
            Some('@') => self.pos += 1,
            Some(c) => {
                return Err(self.error(format!("expected '@' before a macro name, found {c:?}")));
            }
            None => return Err(self.error("expected '@' before a macro name, found the end")),
        }
        let name = self.name()?;
        let mut step = Step {
            name,
            positional: Vec::new(),
            named: Map::new(),
            col,
        };
        self.skip_ws();
        if self.peek() != Some('(') {
            // `@name` without arguments.
            return Ok(step);
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(')') {
            self.pos += 1;
            return Ok(step);
        }
        loop {
            self.skip_ws();
            let at = self.pos;
            if let Some(key) = self.keyword() {
                let value = self.value(0)?;
                if step.named.insert(key.clone(), value).is_some() {
                    return Err(self.error_at(at, format!("argument {key:?} is given twice")));
                }
            } else {
                if !step.named.is_empty() {
                    return Err(self.error_at(at, "a positional argument after key=value"));
                }
                let value = self.value(0)?;
                step.positional.push(value);
            }
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(')') => {
                    self.pos += 1;
                    return Ok(step);
                }
                Some(c) => return Err(self.error(format!("expected ',' or ')', found {c:?}"))),
                None => return Err(self.error("expected ')', found the end")),
            }
        }
    }

    /// A dotted name: letters, digits, `_`, `-`, with single dots between parts.
    fn name(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        let part = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
        let mut name = String::new();
        loop {
            let from = self.pos;
            while self.peek().is_some_and(part) {
                name.push(self.chars[self.pos]);
                self.pos += 1;
            }
            if self.pos == from {
                return Err(self.error("expected a macro name (letters, digits, '_', '-', '.')"));
            }
            if self.peek() == Some('.') {
                name.push('.');
                self.pos += 1;
            } else {
                break;
            }
        }
        if name.len() > 128 {
            return Err(self.error_at(start, "the macro name is over 128 characters"));
        }
        Ok(name)
    }

    /// `key=` ahead (consumed when present).
    fn keyword(&mut self) -> Option<String> {
        let mut i = self.pos;
        let mut key = String::new();
        while let Some(&c) = self.chars.get(i) {
            if c.is_alphanumeric() || c == '_' {
                key.push(c);
                i += 1;
            } else {
                break;
            }
        }
        if key.is_empty() || key.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        while self.chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        (self.chars.get(i) == Some(&'=')).then(|| {
            self.pos = i + 1;
            key
        })
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.skip_ws();
        match self.peek() {
            Some('"') | Some('\'') => self.string(),
            Some('[') => self.list(depth),
            Some(c) if c == ',' || c == ')' || c == ']' || c == '|' => {
                Err(self.error(format!("expected a value, found {c:?}")))
            }
            None => Err(self.error("expected a value, found the end")),
            Some(_) => self.word(),
        }
    }

    fn list(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(format!("lists nest at most {MAX_DEPTH} deep")));
        }
        self.pos += 1; // [
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(c) => return Err(self.error(format!("expected ',' or ']', found {c:?}"))),
                None => return Err(self.error("expected ']', found the end")),
            }
        }
    }

    fn string(&mut self) -> Result<Value, ParseError> {
        let quote = self.chars[self.pos];
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error_at(open, format!("this {quote} string is never closed")));
            };
            self.pos += 1;
            match c {
                c if c == quote => return Ok(Value::String(out)),
                '\\' => {
                    let at = self.pos - 1;
                    let Some(e) = self.peek() else {
                        return Err(
                            self.error_at(open, format!("this {quote} string is never closed"))
                        );
                    };
                    self.pos += 1;
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\\' | '\'' | '"' => out.push(e),
                        'u' => out.push(self.unicode(at)?),
                        other => {
                            return Err(self.error_at(at, format!("unknown escape \\{other}")));
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// `\u{1F600}` or `\u00e9`.
    fn unicode(&mut self, at: usize) -> Result<char, ParseError> {
        let braced = self.peek() == Some('{');
        if braced {
            self.pos += 1;
        }
        let mut hex = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_ascii_hexdigit()) {
            hex.push(c);
            self.pos += 1;
            if !braced && hex.len() == 4 {
                break;
            }
        }
        if braced {
            if self.peek() != Some('}') {
                return Err(self.error_at(at, "expected '}' to end \\u{…}"));
            }
            self.pos += 1;
        }
        u32::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| (1..=6).contains(&hex.len()))
            .and_then(char::from_u32)
            .ok_or_else(|| self.error_at(at, "a \\u escape needs a valid code point"))
    }

    /// A bare word: a number, `true`/`false`, or a string up to a delimiter.
    fn word(&mut self) -> Result<Value, ParseError> {
        let mut word = String::new();
        while let Some(c) = self.peek() {
            if matches!(c, ',' | ')' | ']' | '|' | '(' | '[' | '"' | '\'' | '=')
                || c.is_whitespace()
            {
                break;
            }
            word.push(c);
            self.pos += 1;
        }
        if word.is_empty() {
            let c = self.peek().unwrap_or(' ');
            return Err(self.error(format!("expected a value, found {c:?}")));
        }
        Ok(match word.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            w => number(w).unwrap_or(Value::String(word)),
        })
    }
}

fn number(w: &str) -> Option<Value> {
    if !w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        return None;
    }
    if let Ok(i) = w.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    w.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
        .map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_literal_kind_parses() {
        let steps = parse(
            r#"@web.search("rust \"wasm\"\n", 'it\'s', 42, -1.5, true, false, [1, ['a', b]], bare-word, limit=5, x = "\u{e9}\u00e9")"#,
        )
        .expect("parses");
        assert_eq!(steps.len(), 1);
        let s = &steps[0];
        assert_eq!(s.name, "web.search");
        assert_eq!(
            Value::Array(s.positional.clone()),
            json!([
                "rust \"wasm\"\n",
                "it's",
                42,
                -1.5,
                true,
                false,
                [1, ["a", "b"]],
                "bare-word"
            ])
        );
        assert_eq!(s.named["limit"], json!(5));
        assert_eq!(s.named["x"], json!("éé"));
        assert_eq!(s.arg("limit", 9), Some(&json!(5)));
        assert_eq!(s.arg("query", 0), Some(&json!("rust \"wasm\"\n")));
    }

    #[test]
    fn pipes_keep_order_and_columns() {
        let steps = parse(r#"@web.search("rust wasm", limit=5) | @fetch.top(3)|@x"#).expect("ok");
        let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["web.search", "fetch.top", "x"]);
        assert_eq!(steps[1].col, 37);
        assert_eq!(steps[1].positional, [json!(3)]);
        assert!(steps[2].positional.is_empty());
    }

    #[test]
    fn malformed_inputs_say_where() {
        let cases: &[(&str, usize, &str)] = &[
            ("", 1, "expected '@'"),
            ("web.search(1)", 1, "expected '@'"),
            ("@", 2, "expected a macro name"),
            ("@web.(1)", 6, "expected a macro name"),
            ("@web.search(\"x\"", 16, "expected ')'"),
            ("@web.search(\"x\" 2)", 17, "expected ',' or ')'"),
            ("@web.search('x)", 13, "never closed"),
            ("@a(1,)", 6, "expected a value"),
            ("@a(k=1, 2)", 9, "positional argument after key=value"),
            ("@a(k=1, k=2)", 9, "given twice"),
            ("@a([1, 2)", 9, "expected ',' or ']'"),
            ("@a(\"\\q\")", 5, "unknown escape"),
            ("@a(\"\\u{110000}\")", 5, "valid code point"),
            ("@a(1) @b(2)", 7, "expected '|'"),
            ("@a(1) |", 8, "expected '@'"),
            ("@a(1) || @b", 8, "expected '@'"),
        ];
        for (input, col, what) in cases {
            let err = parse(input).expect_err(input);
            assert_eq!(err.col, *col, "{input}: {err}");
            assert!(err.message.contains(what), "{input}: {err}");
            let shown = err.to_string();
            let caret_line = shown.lines().last().unwrap_or_default();
            assert_eq!(caret_line.find('^'), Some(col + 1), "{input}:\n{shown}");
        }
    }

    #[test]
    fn limits_hold() {
        let deep = format!("@a({}{})", "[".repeat(40), "]".repeat(40));
        assert!(parse(&deep).expect_err("deep").message.contains("nest"));
        let long = format!("@a(\"{}\")", "x".repeat(MAX_EXPR));
        assert!(parse(&long).is_err());
        let many = vec!["@a"; MAX_STEPS + 1].join("|");
        assert!(parse(&many).expect_err("many").message.contains("steps"));
    }
}

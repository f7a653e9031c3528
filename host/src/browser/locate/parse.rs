//! The locator language: `text=Stop`, `role=button[name="Stop"]`,
//! `label=Email`, `placeholder=…`, `testid=…`, `alt=…`, `title=…`,
//! `css=…`, chained with `>>` and picked with `nth=N`.
//!
//! Owns parsing a target string into parts the page library can run (a JSON
//! description, so no locator string is parsed in the page) and every limit
//! on it. Parsing never panics: a malformed or oversized locator is an
//! `invalid_argument` that says what is wrong.

use serde::Serialize;

use crate::error::ApiError;

/// The longest locator (or CSS selector) taken, in bytes.
pub const MAX_LEN: usize = 4096;
/// The most `>>` parts in one locator.
pub const MAX_PARTS: usize = 16;
/// The largest `nth=` index (either way).
pub const MAX_NTH: i64 = 10_000;

const ENGINES: &[&str] = &[
    "text",
    "role",
    "label",
    "placeholder",
    "testid",
    "alt",
    "title",
    "css",
    "nth",
];

/// States `role=` takes in brackets besides `name`.
const STATES: &[&str] = &[
    "checked", "expanded", "selected", "disabled", "pressed", "level",
];

const HINT: &str = "locators look like text=Stop, text=\"Stop\", role=button[name=\"Stop\"], \
                    label=Email, placeholder=Search, testid=save, css=.item >> nth=1";

/// Text to compare: `exact` (quoted): equal after whitespace is collapsed,
/// case-sensitive; else a case-insensitive substring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub text: String,
    pub exact: bool,
}

/// A `[state]` or `[state=value]` filter of `role=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct State {
    pub name: String,
    /// `true`, `false`, `mixed`, or a level 1-6; None: `true`.
    pub value: Option<String>,
}

/// One step of a locator, as the page library takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "engine", rename_all = "lowercase")]
pub enum Part {
    Css {
        selector: String,
    },
    Text(Match),
    Role {
        role: String,
        name: Option<Match>,
        states: Vec<State>,
    },
    Label(Match),
    Placeholder(Match),
    Alt(Match),
    Title(Match),
    Testid {
        text: String,
    },
    Nth {
        index: i64,
    },
}

/// A parsed locator: its parts and the string it came from (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    parts: Vec<Part>,
    source: String,
}

impl Locator {
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `raw` is a locator rather than a plain CSS selector: a known
    /// engine before its first `=` (`input[name=q]` and `a[href="x"]` are
    /// CSS: `[` comes first), a leading quote, or a `>>` outside quotes.
    pub fn is_locator(raw: &str) -> bool {
        let raw = raw.trim_start();
        raw.starts_with('"') || raw.starts_with('\'') || engine_of(raw).is_some() || {
            // Unbalanced quotes are not a locator's business here: a plain
            // selector with one keeps failing as CSS does today.
            matches!(split_chain(raw), Ok(parts) if parts.len() > 1)
        }
    }

    /// Parses a locator (callers check [`Locator::is_locator`] first; a
    /// string without an engine parses as one `css=` part).
    pub fn parse(raw: &str) -> Result<Locator, ApiError> {
        check_chars(raw)?;
        let source = raw.trim().to_string();
        if source.is_empty() {
            return Err(ApiError::invalid("the locator is empty"));
        }
        let pieces = split_chain(&source)?;
        if pieces.len() > MAX_PARTS {
            return Err(ApiError::invalid(format!(
                "the locator has {} `>>` parts; at most {MAX_PARTS} are taken",
                pieces.len()
            ))
            .with_hint("narrow it with fewer steps, or use a ref from a snapshot"));
        }
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in &pieces {
            let piece = piece.trim();
            if piece.is_empty() {
                return Err(
                    ApiError::invalid(format!("{source:?} has an empty part around `>>`"))
                        .with_hint(HINT),
                );
            }
            parts.push(part(piece)?);
        }
        if parts.iter().all(|p| matches!(p, Part::Nth { .. })) {
            return Err(
                ApiError::invalid(format!("{source:?} picks (nth=) from nothing"))
                    .with_hint("put nth= after what it picks from: text=Save >> nth=1"),
            );
        }
        if matches!(parts.first(), Some(Part::Nth { .. })) {
            return Err(ApiError::invalid(format!(
                "{source:?} starts with nth=: it picks from the part before it"
            ))
            .with_hint("put nth= after what it picks from: text=Save >> nth=1"));
        }
        Ok(Locator { parts, source })
    }

    /// The plain text `find` takes: `Stop` means `text=Stop`.
    pub fn parse_find(raw: &str) -> Result<Locator, ApiError> {
        if Locator::is_locator(raw) {
            return Locator::parse(raw);
        }
        check_chars(raw)?;
        let text = raw.trim();
        if text.is_empty() {
            return Err(ApiError::invalid("find needs text or a locator"));
        }
        Ok(Locator {
            parts: vec![Part::Text(Match {
                text: collapse(text),
                exact: false,
            })],
            source: format!("text={}", collapse(text)),
        })
    }

    /// The trailing `nth=` (applied across frames), if any, and the parts
    /// before it.
    pub fn split_nth(&self) -> (&[Part], Option<i64>) {
        match self.parts.split_last() {
            Some((Part::Nth { index }, rest)) => (rest, Some(*index)),
            _ => (&self.parts, None),
        }
    }
}

/// Length and control characters: a target is one line of text.
pub fn check_chars(raw: &str) -> Result<(), ApiError> {
    if raw.len() > MAX_LEN {
        return Err(ApiError::invalid(format!(
            "the target is {} bytes; at most {MAX_LEN} are taken",
            raw.len()
        ))
        .with_hint("use a shorter text or a ref from a snapshot"));
    }
    if let Some(c) = raw
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(ApiError::invalid(format!(
            "the target holds a control character ({:?})",
            c
        )));
    }
    Ok(())
}

/// The engine a part names (`text` in `text=Stop`), when it names one.
fn engine_of(part: &str) -> Option<&'static str> {
    let (head, _) = part.split_once('=')?;
    let head = head.trim();
    ENGINES
        .iter()
        .copied()
        .find(|e| e.eq_ignore_ascii_case(head))
}

/// Splits at `>>` outside quotes. Quotes open only where a value starts
/// (after `=`, at a part's start, or inside brackets), so an apostrophe in
/// `text=Don't >> nth=0` is text.
fn split_chain(raw: &str) -> Result<Vec<&str>, ApiError> {
    let bytes = raw.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => {
                if b == b'>' && bytes.get(i + 1) == Some(&b'>') {
                    parts.push(&raw[start..i]);
                    i += 2;
                    start = i;
                    continue;
                }
                if (b == b'"' || b == b'\'') && opens_quote(&raw[start..i]) {
                    quote = Some(b);
                }
            }
        }
        i += 1;
    }
    if let Some(q) = quote {
        return Err(
            ApiError::invalid(format!("{raw:?} has an unclosed {} quote", q as char))
                .with_hint("close the quote, or escape a quote inside it with \\"),
        );
    }
    parts.push(&raw[start..]);
    Ok(parts)
}

/// Whether a quote after `before` (the part so far) starts a quoted value.
fn opens_quote(before: &str) -> bool {
    let t = before.trim_end();
    t.is_empty() || t.ends_with('=') || t.ends_with('[')
}

fn part(piece: &str) -> Result<Part, ApiError> {
    if piece.starts_with('"') || piece.starts_with('\'') {
        return Ok(Part::Text(value(piece, "text")?));
    }
    let Some(engine) = engine_of(piece) else {
        return Ok(Part::Css {
            selector: piece.to_string(),
        });
    };
    let body = piece.split_once('=').map(|(_, b)| b.trim()).unwrap_or("");
    if body.is_empty() {
        return Err(
            ApiError::invalid(format!("{piece:?}: {engine}= needs a value")).with_hint(HINT),
        );
    }
    Ok(match engine {
        "text" => Part::Text(value(body, engine)?),
        "label" => Part::Label(value(body, engine)?),
        "placeholder" => Part::Placeholder(value(body, engine)?),
        "alt" => Part::Alt(value(body, engine)?),
        "title" => Part::Title(value(body, engine)?),
        "testid" => Part::Testid {
            text: value(body, engine)?.text,
        },
        "css" => Part::Css {
            selector: body.to_string(),
        },
        "nth" => Part::Nth {
            index: body
                .parse::<i64>()
                .ok()
                .filter(|n| n.abs() <= MAX_NTH)
                .ok_or_else(|| {
                    ApiError::invalid(format!(
                        "nth={body} is not an index (0 is the first, -1 the last, up to {MAX_NTH})"
                    ))
                })?,
        },
        _ => role(body)?,
    })
}

/// A value: `"exact"` / `'exact'` (with `\` escapes) or bare (a substring).
fn value(body: &str, engine: &str) -> Result<Match, ApiError> {
    let body = body.trim();
    let Some(q) = body.chars().next().filter(|c| *c == '"' || *c == '\'') else {
        return Ok(Match {
            text: collapse(body),
            exact: false,
        });
    };
    let (text, rest) = quoted(body, q)?;
    if !rest.trim().is_empty() {
        return Err(ApiError::invalid(format!(
            "{engine}={body}: unexpected {:?} after the closing quote",
            rest.trim()
        ))
        .with_hint(HINT));
    }
    Ok(Match {
        text: collapse(&text),
        exact: true,
    })
}

/// The string in quotes at the start of `s` (which starts with `q`), and
/// what follows the closing quote.
fn quoted(s: &str, q: char) -> Result<(String, &str), ApiError> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some((_, e)) => out.push(e),
                None => break,
            }
        } else if c == q {
            return Ok((out, &s[i + c.len_utf8()..]));
        } else {
            out.push(c);
        }
    }
    Err(
        ApiError::invalid(format!("{s:?} has an unclosed {q} quote"))
            .with_hint("close the quote, or escape a quote inside it with \\"),
    )
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `menuitem[name="Stop"][checked]`.
fn role(body: &str) -> Result<Part, ApiError> {
    let end = body.find('[').unwrap_or(body.len());
    let role = body[..end].trim().to_ascii_lowercase();
    if role.is_empty() || !role.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
        return Err(ApiError::invalid(format!(
            "role={body}: {:?} is not a role name",
            &body[..end]
        ))
        .with_hint("roles as the snapshot shows them: button, link, menuitem, checkbox, textbox, clickable, …"));
    }
    let mut name = None;
    let mut states = Vec::new();
    let mut rest = body[end..].trim_start();
    while !rest.is_empty() {
        let Some(inner) = rest.strip_prefix('[') else {
            return Err(ApiError::invalid(format!(
                "role={body}: expected [attribute] at {rest:?}"
            ))
            .with_hint(HINT));
        };
        let inner = inner.trim_start();
        let key_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(inner.len());
        let key = inner[..key_end].to_ascii_lowercase();
        let mut after = inner[key_end..].trim_start();
        let mut val: Option<Match> = None;
        if let Some(v) = after.strip_prefix('=') {
            let v = v.trim_start();
            if let Some(q) = v.chars().next().filter(|c| *c == '"' || *c == '\'') {
                let (text, tail) = quoted(v, q)?;
                val = Some(Match {
                    text: collapse(&text),
                    exact: true,
                });
                after = tail.trim_start();
            } else {
                let close = v.find(']').ok_or_else(|| unclosed_bracket(body))?;
                val = Some(Match {
                    text: collapse(&v[..close]),
                    exact: false,
                });
                after = &v[close..];
            }
        }
        rest = after
            .strip_prefix(']')
            .ok_or_else(|| unclosed_bracket(body))?
            .trim_start();
        if key == "name" {
            let v = val.ok_or_else(|| {
                ApiError::invalid(format!(
                    "role={body}: [name] needs a value: [name=\"Stop\"]"
                ))
            })?;
            name = Some(v);
            continue;
        }
        if !STATES.contains(&key.as_str()) {
            return Err(ApiError::invalid(format!(
                "role={body}: [{key}] is not a filter role= takes"
            ))
            .with_hint(format!("role= takes [name=…] and {}", STATES.join(", "))));
        }
        let value = val.map(|m| m.text.to_ascii_lowercase());
        let ok = match (key.as_str(), value.as_deref()) {
            (_, None | Some("true" | "false")) => true,
            ("checked" | "pressed", Some("mixed")) => true,
            ("level", Some(v)) => matches!(v, "1" | "2" | "3" | "4" | "5" | "6"),
            _ => false,
        };
        if !ok || (key == "level" && value.is_none()) {
            return Err(ApiError::invalid(format!(
                "role={body}: [{key}{}] is not a value it takes",
                value
                    .as_deref()
                    .map(|v| format!("={v}"))
                    .unwrap_or_default()
            ))
            .with_hint(
                "[checked], [checked=false], [checked=mixed], [expanded=true], [level=2], …",
            ));
        }
        states.push(State { name: key, value });
    }
    Ok(Part::Role { role, name, states })
}

fn unclosed_bracket(body: &str) -> ApiError {
    ApiError::invalid(format!("role={body}: a [ is not closed")).with_hint(HINT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn parts(raw: &str) -> Vec<Part> {
        Locator::parse(raw)
            .unwrap_or_else(|e| panic!("{raw}: {e:?}"))
            .parts
    }

    fn m(text: &str, exact: bool) -> Match {
        Match {
            text: text.into(),
            exact,
        }
    }

    #[test]
    fn css_with_equals_signs_is_not_a_locator() {
        for css in [
            "a[href=\"x\"]",
            "input[name=q]",
            "#main a",
            "em",
            "div > p",
            "a[title='>>']",
            "[data-x=\"text=Stop\"]",
            "texts",
        ] {
            assert!(!Locator::is_locator(css), "{css}");
        }
        for loc in [
            "text=Stop",
            "TEXT=Stop",
            "role=button",
            "label = Email",
            "\"Stop\"",
            ".menu >> text=Stop",
            "css=a >> nth=1",
            "#a >> #b",
        ] {
            assert!(Locator::is_locator(loc), "{loc}");
        }
    }

    #[test]
    fn text_is_a_substring_bare_and_exact_quoted() {
        assert_eq!(parts("text=Stop  now"), [Part::Text(m("Stop now", false))]);
        assert_eq!(parts("text=\"Stop\""), [Part::Text(m("Stop", true))]);
        assert_eq!(
            parts("text='Say \\'hi\\''"),
            [Part::Text(m("Say 'hi'", true))]
        );
        assert_eq!(parts("\"Stop\""), [Part::Text(m("Stop", true))]);
        assert_eq!(parts("text=Don't"), [Part::Text(m("Don't", false))]);
    }

    #[test]
    fn roles_take_a_name_and_states() {
        assert_eq!(
            parts("role=menuitem[name=\"Stop\"]"),
            [Part::Role {
                role: "menuitem".into(),
                name: Some(m("Stop", true)),
                states: vec![]
            }]
        );
        assert_eq!(
            parts("role=checkbox[name=remember me][checked=false][disabled]"),
            [Part::Role {
                role: "checkbox".into(),
                name: Some(m("remember me", false)),
                states: vec![
                    State {
                        name: "checked".into(),
                        value: Some("false".into())
                    },
                    State {
                        name: "disabled".into(),
                        value: None
                    }
                ]
            }]
        );
        assert_eq!(
            parts("role=heading[level=2]"),
            [Part::Role {
                role: "heading".into(),
                name: None,
                states: vec![State {
                    name: "level".into(),
                    value: Some("2".into())
                }]
            }]
        );
        for bad in [
            "role=button[nme=x]",
            "role=heading[level=9]",
            "role=heading[level]",
            "role=button[name=\"x\"",
            "role=button[name=x",
            "role=but ton",
            "role=button[checked=maybe]",
            "role=button junk",
        ] {
            assert_eq!(
                Locator::parse(bad).map_err(|e| e.code()),
                Err(ErrorCode::InvalidArgument),
                "{bad}"
            );
        }
    }

    #[test]
    fn chains_split_outside_quotes_and_nth_picks() {
        assert_eq!(
            parts("css=.menu >> text=\"a >> b\" >> nth=-1"),
            [
                Part::Css {
                    selector: ".menu".into()
                },
                Part::Text(m("a >> b", true)),
                Part::Nth { index: -1 }
            ]
        );
        assert_eq!(
            parts("#list li >> label=Email"),
            [
                Part::Css {
                    selector: "#list li".into()
                },
                Part::Label(m("Email", false))
            ]
        );
        let loc = Locator::parse("text=Save >> nth=2").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(loc.split_nth(), (&loc.parts[..1], Some(2)));
        assert_eq!(
            parts("testid=save-btn"),
            [Part::Testid {
                text: "save-btn".into()
            }]
        );
    }

    #[test]
    fn hostile_locators_are_refused_with_a_reason() {
        let huge = format!("text={}", "a".repeat(100_000));
        let many = vec!["text=a"; 50].join(" >> ");
        let deep_nth = "text=a >> nth=99999999999999999999".to_string();
        for bad in [
            huge.as_str(),
            many.as_str(),
            "text=\"unclosed",
            "role=button[name='x]",
            "text=a\u{0}b",
            "text=a\u{1b}[2J",
            "text=",
            "nth=1",
            "nth=1 >> text=a",
            "text=a >> >> text=b",
            "text=a >> nth=x",
            deep_nth.as_str(),
            "text=\"a\" trailing",
            " ",
        ] {
            let e = Locator::parse(bad).err();
            assert_eq!(
                e.as_ref().map(|e| e.code()),
                Some(ErrorCode::InvalidArgument),
                "{bad:.60}"
            );
            assert!(
                !e.map(|e| e.message().to_string())
                    .unwrap_or_default()
                    .is_empty()
            );
        }
    }

    #[test]
    fn find_takes_plain_text_as_a_substring() {
        let loc = Locator::parse_find("  Stop   it ").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(loc.parts, [Part::Text(m("Stop it", false))]);
        let loc = Locator::parse_find("role=button").unwrap_or_else(|e| panic!("{e:?}"));
        assert!(matches!(loc.parts[0], Part::Role { .. }));
        assert!(Locator::parse_find("").is_err());
    }

    #[test]
    fn parts_serialize_as_the_page_library_reads_them() {
        let v = serde_json::to_value(parts("role=tab[name=\"A\"][selected] >> nth=0"))
            .unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!([
                { "engine": "role", "role": "tab", "name": { "text": "A", "exact": true },
                  "states": [{ "name": "selected", "value": null }] },
                { "engine": "nth", "index": 0 }
            ])
        );
        let v = serde_json::to_value(parts("text=x")).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!([{ "engine": "text", "text": "x", "exact": false }])
        );
    }
}

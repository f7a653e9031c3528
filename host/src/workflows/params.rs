//! Workflow parameters: what a workflow declares (`describe`), and the
//! user's values checked against it before the run starts — kinds, choices,
//! required ones, repeats — with defaults filled in. A bad value is refused
//! naming the parameter; nothing reaches the guest unchecked.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::ApiError;

pub use crate::plugins::described::Param;

const KINDS: &[&str] = &[
    "string", "integer", "number", "boolean", "date", "url", "choice",
];
const MAX_TEXT: usize = 4096;
const MAX_REPEATS: usize = 64;

/// Refuses a declaration the host could not check values against.
pub fn check_declared(params: &[Param]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for p in params {
        let plain = !p.name.is_empty()
            && p.name.len() <= 64
            && p.name.starts_with(|c: char| c.is_ascii_lowercase())
            && p.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !plain {
            return Err(format!("parameter name {:?} is not snake_case", p.name));
        }
        if p.name.starts_with('_') || RUN_OPTIONS.contains(&p.name.as_str()) {
            return Err(format!("parameter name {:?} is reserved", p.name));
        }
        if !KINDS.contains(&p.kind.as_str()) {
            return Err(format!("parameter {}: unknown kind {:?}", p.name, p.kind));
        }
        if p.kind == "choice" && p.choices.is_empty() {
            return Err(format!("parameter {}: a choice without choices", p.name));
        }
        if !seen.insert(p.name.as_str()) {
            return Err(format!("parameter {} is declared twice", p.name));
        }
        if let Some(d) = &p.default {
            convert(p, &Value::String(d.clone()))
                .map_err(|e| format!("parameter {}: its default: {e}", p.name))?;
        }
    }
    Ok(())
}

/// The runner's own options, which no workflow parameter may shadow.
pub const RUN_OPTIONS: &[&str] = &["format", "out", "ttl_hours", "timeout_ms", "input", "now"];

/// Checks `given` against `params` and returns the guest's input object.
pub fn validate(
    workflow: &str,
    params: &[Param],
    given: &BTreeMap<String, Value>,
) -> Result<Map<String, Value>, ApiError> {
    let by_name: BTreeMap<&str, &Param> = params.iter().map(|p| (p.name.as_str(), p)).collect();
    let mut out = Map::new();
    for (raw, value) in given {
        let name = raw.trim_start_matches('-').replace('-', "_");
        let Some(p) = by_name.get(name.as_str()) else {
            let known: Vec<String> = params
                .iter()
                .map(|p| format!("--{}", p.name.replace('_', "-")))
                .collect();
            return Err(ApiError::invalid(format!(
                "{workflow} takes no parameter --{}",
                name.replace('_', "-")
            ))
            .with_hint(if known.is_empty() {
                format!("{workflow} takes no parameters")
            } else {
                format!("{workflow} takes {}", known.join(", "))
            }));
        };
        let flag = format!("--{}", p.name.replace('_', "-"));
        let named = |e: String| ApiError::invalid(format!("{workflow} {flag}: {e}"));
        let v = match (p.repeated, value) {
            (true, Value::Array(items)) => {
                if items.len() > MAX_REPEATS {
                    return Err(named(format!("at most {MAX_REPEATS} values")));
                }
                Value::Array(
                    items
                        .iter()
                        .map(|i| convert(p, i))
                        .collect::<Result<_, _>>()
                        .map_err(named)?,
                )
            }
            (true, one) => Value::Array(vec![convert(p, one).map_err(named)?]),
            (false, Value::Array(items)) if items.len() != 1 => {
                return Err(named("given more than once".into()));
            }
            (false, Value::Array(items)) => convert(p, &items[0]).map_err(named)?,
            (false, one) => convert(p, one).map_err(named)?,
        };
        out.insert(p.name.clone(), v);
    }
    for p in params {
        if out.contains_key(&p.name) {
            continue;
        }
        match &p.default {
            Some(d) => {
                let v = convert(p, &Value::String(d.clone())).map_err(ApiError::invalid)?;
                let v = if p.repeated { Value::Array(vec![v]) } else { v };
                out.insert(p.name.clone(), v);
            }
            None if p.required => {
                return Err(ApiError::invalid(format!(
                    "{workflow} needs --{} ({})",
                    p.name.replace('_', "-"),
                    p.description
                ))
                .with_hint(format!("see webrig run workflow {workflow} --help")));
            }
            None => {}
        }
    }
    Ok(out)
}

/// One value as the parameter's kind (CLI values come as strings).
fn convert(p: &Param, v: &Value) -> Result<Value, String> {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => return Err(format!("expected a {} value, got {other}", p.kind)),
    };
    if text.len() > MAX_TEXT {
        return Err(format!("longer than {MAX_TEXT} bytes"));
    }
    match p.kind.as_str() {
        "string" => {
            if text.is_empty() {
                return Err("empty".into());
            }
            Ok(Value::String(text))
        }
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{text:?} is not a whole number")),
        "number" => text
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("{text:?} is not a number")),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("{text:?} is not true or false")),
        },
        "date" => {
            let ok = text.len() == 10
                && text.as_bytes()[4] == b'-'
                && text.as_bytes()[7] == b'-'
                && humantime::parse_rfc3339(&format!("{text}T00:00:00Z")).is_ok();
            if ok {
                Ok(Value::String(text))
            } else {
                Err(format!("{text:?} is not a date (YYYY-MM-DD)"))
            }
        }
        "url" => match url::Url::parse(&text) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {
                Ok(Value::String(u.to_string()))
            }
            _ => Err(format!("{text:?} is not an http(s) URL")),
        },
        "choice" => {
            if p.choices.contains(&text) {
                Ok(Value::String(text))
            } else {
                Err(format!("{text:?} is not one of {}", p.choices.join(", ")))
            }
        }
        other => Err(format!("unknown kind {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(name: &str, kind: &str, required: bool) -> Param {
        Param {
            name: name.into(),
            kind: kind.into(),
            required,
            repeated: false,
            default: None,
            choices: Vec::new(),
            description: format!("the {name}"),
        }
    }

    fn given(v: Value) -> BTreeMap<String, Value> {
        serde_json::from_value(v).expect("map")
    }

    #[test]
    fn values_are_converted_defaults_filled_and_bad_ones_named() {
        let mut sources = p("sources", "choice", false);
        sources.choices = vec!["auto".into(), "web".into()];
        sources.default = Some("auto".into());
        let mut urls = p("url", "url", false);
        urls.repeated = true;
        let params = vec![
            p("topic", "string", true),
            p("days", "integer", false),
            p("from", "date", false),
            sources,
            urls,
            p("budget", "number", false),
        ];
        check_declared(&params).expect("declared");
        let out = validate(
            "research",
            &params,
            &given(json!({"topic": "x", "limit-per-source": "3"})),
        );
        let e = out.expect_err("unknown");
        assert!(
            e.message().contains("--limit-per-source"),
            "{}",
            e.message()
        );
        assert!(e.hint().unwrap_or_default().contains("--topic"));

        let out = validate(
            "research",
            &params,
            &given(json!({"topic": "x", "days": "7", "url": ["http://a.example/", "https://b.example/x"], "budget": "12.5"})),
        )
        .expect("valid");
        assert_eq!(out["days"], 7);
        assert_eq!(out["sources"], "auto");
        assert_eq!(out["budget"], 12.5);
        assert_eq!(out["url"].as_array().map(Vec::len), Some(2));

        for (bad, flag) in [
            (json!({"topic": "x", "days": "seven"}), "--days"),
            (json!({"topic": "x", "from": "2026-02-30"}), "--from"),
            (json!({"topic": "x", "sources": "mars"}), "--sources"),
            (json!({"topic": "x", "url": "file:///etc/passwd"}), "--url"),
            (json!({"topic": ["a", "b"]}), "--topic"),
            (json!({"days": "1"}), "--topic"),
        ] {
            let e = validate("research", &params, &given(bad.clone())).expect_err("bad");
            assert!(e.message().contains(flag), "{bad}: {}", e.message());
        }
    }

    #[test]
    fn declarations_must_be_checkable() {
        assert!(check_declared(&[p("Topic", "string", true)]).is_err());
        assert!(check_declared(&[p("format", "string", true)]).is_err());
        assert!(check_declared(&[p("a", "colour", true)]).is_err());
        assert!(check_declared(&[p("a", "choice", true)]).is_err());
        assert!(check_declared(&[p("a", "string", true), p("a", "string", true)]).is_err());
        let mut d = p("n", "integer", false);
        d.default = Some("many".into());
        assert!(check_declared(&[d]).is_err());
    }
}

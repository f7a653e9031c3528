//! The workflow's parameters, read strictly from the host's JSON input:
//! the host checks kinds and fills defaults, this module checks ranges and
//! the timebox rules (days *or* from/to, from ≤ to, nothing after `_now`'s
//! date), and names the parameter at fault.

use crate::dates;
use webrig_workflow_sdk::serde_json::Value;
use webrig_workflow_sdk::types::Error;

/// Timebox when the user gives neither `days` nor `from`/`to`.
pub const DEFAULT_DAYS: i64 = 30;
/// Largest `days` (ten years).
pub const MAX_DAYS: i64 = 3650;

/// Which providers to ask (the `sources` choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sources {
    /// The runtime's `auto` policy: one search.
    Auto,
    Web,
    Community,
    Social,
    /// Web, community and social, one search each, at once.
    All,
}

impl Sources {
    pub const NAMES: [&'static str; 5] = ["auto", "web", "community", "social", "all"];

    fn parse(s: &str) -> Option<Sources> {
        Some(match s {
            "auto" => Sources::Auto,
            "web" => Sources::Web,
            "community" => Sources::Community,
            "social" => Sources::Social,
            "all" => Sources::All,
            _ => return None,
        })
    }

    /// The runtime source names searched, in order.
    pub fn searched(self) -> Vec<String> {
        let names: &[&str] = match self {
            Sources::Auto => &["auto"],
            Sources::Web => &["web"],
            Sources::Community => &["community"],
            Sources::Social => &["social"],
            Sources::All => &["web", "community", "social"],
        };
        names.iter().map(|s| s.to_string()).collect()
    }
}

/// The dates a record must fall in: UTC days `from..=to` (day numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timebox {
    pub from: i64,
    pub to: i64,
    /// How it was given: `days`, `from/to` or `default`.
    pub given: &'static str,
}

impl Timebox {
    /// Days covered, both ends included.
    pub fn span_days(&self) -> i64 {
        self.to - self.from + 1
    }

    pub fn contains_day(&self, day: i64) -> bool {
        (self.from..=self.to).contains(&day)
    }

    /// `2026-11-01 → 2026-12-01`.
    pub fn label(&self) -> String {
        format!(
            "{} → {}",
            dates::format_day(self.from),
            dates::format_day(self.to)
        )
    }
}

/// Everything `run` needs, validated.
#[derive(Debug, Clone)]
pub struct Params {
    pub topic: String,
    pub timebox: Timebox,
    pub sources: Sources,
    pub limit_per_source: u32,
    pub fetch: u32,
    /// `_now` in seconds since the epoch, and as given.
    pub now: i64,
    pub now_text: String,
}

/// Reads and checks the input object.
pub fn parse(input: &Value) -> Result<Params, Error> {
    let bad = |m: String| Error::InvalidInput(m);
    if !input.is_object() {
        return Err(bad("the input is not a JSON object".into()));
    }
    let topic = input
        .get("topic")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| bad("topic: a non-empty topic is required".into()))?
        .to_string();
    let now_text = input
        .get("_now")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("_now: the host gave no reference time".into()))?
        .to_string();
    let now = dates::unix_secs(&now_text)
        .ok_or_else(|| bad(format!("_now: {now_text:?} is not an RFC 3339 time")))?;
    let sources = match input.get("sources") {
        None | Some(Value::Null) => Sources::Auto,
        Some(v) => v.as_str().and_then(Sources::parse).ok_or_else(|| {
            bad(format!(
                "sources: {v} is not one of {}",
                Sources::NAMES.join(", ")
            ))
        })?,
    };
    let limit_per_source = int(input, "limit_per_source", 10, 1, 50)? as u32;
    let fetch = int(input, "fetch", 5, 0, 20)? as u32;
    let timebox = timebox(input, now.div_euclid(dates::DAY))?;
    Ok(Params {
        topic,
        timebox,
        sources,
        limit_per_source,
        fetch,
        now,
        now_text,
    })
}

/// The timebox from `days` or `from`/`to`, relative to `today` (the UTC
/// day of `_now`): `days` N is `today − N ..= today`; `from` alone ends
/// today; `to` alone starts [`DEFAULT_DAYS`] before it.
pub fn timebox(input: &Value, today: i64) -> Result<Timebox, Error> {
    let bad = |m: String| Error::InvalidInput(m);
    let given = |k: &str| input.get(k).is_some_and(|v| !v.is_null());
    let days = given("days");
    let (has_from, has_to) = (given("from"), given("to"));
    if days && (has_from || has_to) {
        let other = if has_from { "from" } else { "to" };
        return Err(bad(format!(
            "days and {other}: give either days or from/to, not both"
        )));
    }
    if days {
        let n = int(input, "days", DEFAULT_DAYS, 1, MAX_DAYS)?;
        return Ok(Timebox {
            from: today - n,
            to: today,
            given: "days",
        });
    }
    if !has_from && !has_to {
        return Ok(Timebox {
            from: today - DEFAULT_DAYS,
            to: today,
            given: "default",
        });
    }
    let day = |k: &str| -> Result<Option<i64>, Error> {
        match input.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_str()
                .and_then(dates::parse_day)
                .map(Some)
                .ok_or_else(|| bad(format!("{k}: {v} is not a date (YYYY-MM-DD)"))),
        }
    };
    let to = day("to")?.unwrap_or(today);
    if to > today {
        return Err(bad(format!(
            "to: {} is after today ({}, the run's _now)",
            dates::format_day(to),
            dates::format_day(today)
        )));
    }
    let from = day("from")?.unwrap_or(to - DEFAULT_DAYS);
    if from > to {
        return Err(bad(format!(
            "from: {} is after to ({})",
            dates::format_day(from),
            dates::format_day(to)
        )));
    }
    Ok(Timebox {
        from,
        to,
        given: "from/to",
    })
}

/// An integer parameter in `min..=max`, `default` when absent. Accepts a
/// JSON integer or a string of digits (what a CLI may pass through).
fn int(input: &Value, key: &str, default: i64, min: i64, max: i64) -> Result<i64, Error> {
    let n = match input.get(key) {
        None | Some(Value::Null) => default,
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| Error::InvalidInput(format!("{key}: {n} is not a whole number")))?,
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map_err(|_| Error::InvalidInput(format!("{key}: {s:?} is not a whole number")))?,
        Some(v) => {
            return Err(Error::InvalidInput(format!(
                "{key}: {v} is not a whole number"
            )));
        }
    };
    if !(min..=max).contains(&n) {
        return Err(Error::InvalidInput(format!(
            "{key}: {n} is out of range {min}..={max}"
        )));
    }
    Ok(n)
}

//! The workflow's parameters: declared for `describe`, read and checked
//! from the run's input. The host checked kinds and filled defaults; the
//! "exactly one of product_url / product_name" rule and the duration's
//! range are checked here.

use webrig_workflow_sdk::serde_json::Value;
use webrig_workflow_sdk::types::{Error, Param};
use webrig_workflow_sdk::{ParamExt, param};

pub const MIN_DURATION: u64 = 10;
pub const MAX_DURATION: u64 = 120;

pub fn declare() -> Vec<Param> {
    vec![
        param(
            "product_url",
            "url",
            false,
            "The product page to read (give this or product_name).",
        ),
        param(
            "product_name",
            "string",
            false,
            "A product to look up with the shopping providers (give this or product_url).",
        ),
        param(
            "duration",
            "integer",
            false,
            "Length of the video in seconds, 10 to 120.",
        )
        .with_default("30"),
    ]
}

/// Where the product comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Url(String),
    Name(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub target: Target,
    pub duration: u32,
    /// The run's reference time (`_now`).
    pub now: String,
}

fn text(input: &Value, key: &str) -> Option<String> {
    input[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

pub fn read(input: &Value) -> Result<Params, Error> {
    let target = match (text(input, "product_url"), text(input, "product_name")) {
        (Some(_), Some(_)) => {
            return Err(Error::InvalidInput(
                "give product_url or product_name, not both".into(),
            ));
        }
        (None, None) => {
            return Err(Error::InvalidInput(
                "give product_url (a product page) or product_name (to look up)".into(),
            ));
        }
        (Some(url), None) => {
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(Error::InvalidInput(format!(
                    "product_url {url:?}: an http or https URL"
                )));
            }
            Target::Url(url)
        }
        (None, Some(name)) => Target::Name(name),
    };
    let duration = match &input["duration"] {
        Value::Null => 30,
        v => match v.as_u64() {
            Some(d) if (MIN_DURATION..=MAX_DURATION).contains(&d) => d as u32,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "duration {v}: whole seconds from {MIN_DURATION} to {MAX_DURATION}"
                )));
            }
        },
    };
    Ok(Params {
        target,
        duration,
        now: input["_now"].as_str().unwrap_or_default().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use webrig_workflow_sdk::serde_json::json;

    fn bad(v: Value) -> String {
        match read(&v) {
            Err(Error::InvalidInput(m)) => m,
            other => panic!("{v} should be refused, got {other:?}"),
        }
    }

    #[test]
    fn exactly_one_of_url_and_name() {
        let p = read(&json!({"product_url": "https://shop.test/p/1"})).expect("url");
        assert_eq!(p.target, Target::Url("https://shop.test/p/1".into()));
        assert_eq!(p.duration, 30);
        let p = read(&json!({"product_name": " Talus Ultra ", "duration": 45})).expect("name");
        assert_eq!(
            (p.target, p.duration),
            (Target::Name("Talus Ultra".into()), 45)
        );
        assert!(
            bad(json!({"product_url": "https://a.test/", "product_name": "x"}))
                .contains("not both")
        );
        assert!(bad(json!({})).contains("give product_url"));
        assert!(bad(json!({"product_name": "  "})).contains("give product_url"));
        assert!(bad(json!({"product_url": "ftp://a.test/x"})).contains("http or https"));
    }

    #[test]
    fn duration_range() {
        let ok = |d: u64| read(&json!({"product_name": "x", "duration": d})).map(|p| p.duration);
        assert_eq!(ok(10).ok(), Some(10));
        assert_eq!(ok(120).ok(), Some(120));
        assert!(bad(json!({"product_name": "x", "duration": 9})).contains("10 to 120"));
        assert!(bad(json!({"product_name": "x", "duration": 121})).contains("10 to 120"));
        assert!(bad(json!({"product_name": "x", "duration": 12.5})).contains("10 to 120"));
    }
}

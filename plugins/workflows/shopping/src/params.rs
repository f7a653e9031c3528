//! The workflow's parameters: declared for `describe`, read and checked
//! from the run's input (the host checked kinds and filled defaults; the
//! ranges and the region → currency mapping are checked here).

use crate::pipeline::Options;
use crate::score::Sort;
use webrig_workflow_sdk::serde_json::Value;
use webrig_workflow_sdk::types::{Error, Param};
use webrig_workflow_sdk::{ParamExt, param};

/// Regions and their currencies, in the order the choice lists them.
pub const REGIONS: &[(&str, &str)] = &[
    ("us", "USD"),
    ("uk", "GBP"),
    ("eu", "EUR"),
    ("jp", "JPY"),
    ("ca", "CAD"),
    ("au", "AUD"),
    ("ch", "CHF"),
    ("in", "INR"),
];

pub const MAX_LIMIT: u64 = 100;

pub fn declare() -> Vec<Param> {
    let regions: Vec<&str> = REGIONS.iter().map(|(r, _)| *r).collect();
    vec![
        param("query", "string", true, "The product to look for, e.g. \"trail running shoes\"."),
        param("budget", "number", false, "Highest total (price + shipping) to keep, in the region's currency; above 0."),
        param("region", "choice", false, "Where you buy: offers in other currencies than its own (us USD, uk GBP, eu EUR, jp JPY, ca CAD, au AUD, ch CHF, in INR) are dropped.")
            .choices(&regions)
            .with_default("us"),
        param("providers", "string", false, "Comma-separated shopping provider ids to keep (default: every shopping provider)."),
        param("sort", "choice", false, "best_deal (score), lowest_price (total) or highest_rating.")
            .choices(&Sort::CHOICES)
            .with_default("best_deal"),
        param("limit", "integer", false, "Results asked of each provider, and offers listed at most (1 to 100).")
            .with_default("20"),
    ]
}

/// The checked parameters: the pipeline's options plus the provider filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub options: Options,
    /// Provider ids to keep; empty keeps all.
    pub providers: Vec<String>,
}

pub fn read(input: &Value) -> Result<Params, Error> {
    let query = input["query"].as_str().map(str::trim).unwrap_or_default();
    if query.is_empty() {
        return Err(Error::InvalidInput(
            "query: give the product to look for".into(),
        ));
    }
    let budget = match &input["budget"] {
        Value::Null => None,
        v => match v.as_f64() {
            Some(b) if b > 0.0 && b.is_finite() => Some(b),
            _ => {
                return Err(Error::InvalidInput(format!(
                    "budget {v}: give an amount above 0"
                )));
            }
        },
    };
    let region = input["region"].as_str().unwrap_or("us");
    let currency = REGIONS
        .iter()
        .find(|(r, _)| *r == region)
        .map(|(_, c)| c.to_string())
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "region {region:?}: one of {}",
                REGIONS
                    .iter()
                    .map(|(r, _)| *r)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let sort_name = input["sort"].as_str().unwrap_or("best_deal");
    let sort = Sort::parse(sort_name).ok_or_else(|| {
        Error::InvalidInput(format!(
            "sort {sort_name:?}: one of {}",
            Sort::CHOICES.join(", ")
        ))
    })?;
    let limit = match &input["limit"] {
        Value::Null => 20,
        v => match v.as_u64() {
            Some(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "limit {v}: give a whole number from 1 to {MAX_LIMIT}"
                )));
            }
        },
    };
    let providers: Vec<String> = input["providers"]
        .as_str()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let now = input["_now"].as_str().unwrap_or_default().to_string();
    if webrig_workflow_sdk::kit::date::unix_millis(&now).is_none() {
        return Err(Error::InvalidInput(format!(
            "_now {now:?}: the host must give the run's reference time (RFC 3339)"
        )));
    }
    Ok(Params {
        options: Options {
            query: query.to_string(),
            region: region.to_string(),
            currency,
            budget,
            sort,
            limit: limit as usize,
            now,
        },
        providers,
    })
}

/// Checks the provider filter against the providers the search asked;
/// names one that is not a shopping provider.
pub fn check_providers(wanted: &[String], asked: &[String]) -> Result<(), Error> {
    let unknown: Vec<&String> = wanted.iter().filter(|w| !asked.contains(w)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "providers: {} {} not a shopping provider here; the shopping providers are: {}",
        unknown
            .iter()
            .map(|u| format!("{u:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        if unknown.len() == 1 { "is" } else { "are" },
        if asked.is_empty() {
            "none".to_string()
        } else {
            asked.join(", ")
        }
    )))
}

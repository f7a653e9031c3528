//! The evidence gate: is there enough to stand on? `pass` with at least
//! [`MIN_RECORDS`] records from at least [`MIN_DOMAINS`] domains and one
//! record with at least [`SUBSTANTIAL`](crate::rank::SUBSTANTIAL)
//! characters of text; `fail` with no record; `partial` otherwise.

use crate::rank::SUBSTANTIAL;
use crate::records::Record;
use std::collections::BTreeSet;

pub const MIN_RECORDS: usize = 3;
pub const MIN_DOMAINS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Partial,
    Fail,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Partial => "partial",
            Status::Fail => "fail",
        }
    }
}

/// The gate's verdict and the sentence that explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub status: Status,
    pub reason: String,
}

/// Judges the kept records.
pub fn judge<'a>(records: impl IntoIterator<Item = &'a Record>) -> Verdict {
    let records: Vec<&Record> = records.into_iter().collect();
    let domains: BTreeSet<&str> = records.iter().map(|r| r.domain.as_str()).collect();
    let substantial = records
        .iter()
        .filter(|r| r.text_chars() >= SUBSTANTIAL)
        .count();
    let facts = format!(
        "{} record{} from {} host{}, {substantial} with ≥ {SUBSTANTIAL} characters of text",
        records.len(),
        plural(records.len()),
        domains.len(),
        plural(domains.len()),
    );
    let status = if records.is_empty() {
        Status::Fail
    } else if records.len() >= MIN_RECORDS && domains.len() >= MIN_DOMAINS && substantial >= 1 {
        Status::Pass
    } else {
        Status::Partial
    };
    let reason = match status {
        Status::Pass => facts,
        Status::Fail => "no usable record".into(),
        Status::Partial => format!(
            "{facts}; a pass needs ≥ {MIN_RECORDS} records from ≥ {MIN_DOMAINS} hosts and one with ≥ {SUBSTANTIAL} characters"
        ),
    };
    Verdict { status, reason }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

//! Themes: ranked records grouped by the significant terms they share,
//! deterministically (no randomness, no map iteration order leaks).
//!
//! Each record contributes the stems of its title (site suffix dropped)
//! and of its description, or without one the first [`LEAD_CHARS`]
//! characters of its text, minus stopwords and the topic's own words
//! (every record shares those). Then, greedily: the stem shared by the
//! most remaining records — at least two, at most [`MAX_SHARE`] of all
//! records, since a term nearly everyone uses tells nothing apart; ties go
//! to the stem found in more titles, then alphabetical — makes a theme of
//! those records, named by its most common spelling plus the next stem
//! most of them share (ties: more titles, then alphabetical). At most [`MAX_THEMES`]; what is left is "other".

use crate::terms;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// Text read per record without a description.
pub const LEAD_CHARS: usize = 300;
pub const MAX_THEMES: usize = 5;
/// Largest share of all records one theme term may cover.
pub const MAX_SHARE: f64 = 0.6;

/// One theme: its name and its members (indices into the ranked list, in
/// rank order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    pub terms: Vec<String>,
    pub members: Vec<usize>,
}

/// What clustering reads of a record.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub title: String,
    pub description: String,
    pub text: String,
}

struct Bag {
    stems: BTreeSet<String>,
    in_title: BTreeSet<String>,
}

/// Groups `records` (in rank order) into themes.
pub fn cluster(records: &[Input], topic: &[String]) -> Vec<Theme> {
    let mut spellings: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let off_topic = |stem: &str| {
        !topic
            .iter()
            .any(|t| stem.contains(t.as_str()) || t.contains(stem))
    };
    let bags: Vec<Bag> = records
        .iter()
        .map(|r| {
            let lead: String = if r.description.trim().is_empty() {
                r.text.chars().take(LEAD_CHARS).collect()
            } else {
                r.description.clone()
            };
            let title = crate::canon::strip_site_suffix(&r.title).to_string();
            let mut bag = Bag {
                stems: BTreeSet::new(),
                in_title: BTreeSet::new(),
            };
            let parts = [(&title, true), (&lead, false)];
            for (part, is_title) in parts {
                for w in terms::words(part).filter(|w| terms::significant(w)) {
                    let s = terms::stem(&w);
                    if !off_topic(&s) {
                        continue;
                    }
                    *spellings
                        .entry(s.clone())
                        .or_default()
                        .entry(w)
                        .or_default() += 1;
                    if is_title {
                        bag.in_title.insert(s.clone());
                    }
                    bag.stems.insert(s);
                }
            }
            bag
        })
        .collect();
    let spelling = |stem: &str| -> String {
        spellings
            .get(stem)
            .and_then(|m| m.iter().max_by_key(|(w, n)| (**n, Reverse(*w))))
            .map(|(w, _)| w.clone())
            .unwrap_or_else(|| stem.to_string())
    };
    let max_members = ((records.len() as f64 * MAX_SHARE).floor() as usize).max(2);
    let mut remaining: BTreeSet<usize> = (0..records.len()).collect();
    let mut themes = Vec::new();
    while themes.len() < MAX_THEMES {
        let mut shared: BTreeMap<&str, (Vec<usize>, usize)> = BTreeMap::new();
        for &i in &remaining {
            for s in &bags[i].stems {
                let e = shared.entry(s.as_str()).or_default();
                e.0.push(i);
                e.1 += usize::from(bags[i].in_title.contains(s));
            }
        }
        let best = shared
            .iter()
            .filter(|(_, (m, _))| (2..=max_members).contains(&m.len()))
            .max_by_key(|(s, (m, t))| (m.len(), *t, Reverse(**s)));
        let Some((stem, (members, _))) = best else {
            break;
        };
        let (stem, members) = (stem.to_string(), members.clone());
        let mut names = vec![spelling(&stem)];
        let mut co: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for &i in &members {
            for s in bags[i].stems.iter().filter(|s| **s != stem) {
                let e = co.entry(s.as_str()).or_default();
                e.0 += 1;
                e.1 += usize::from(bags[i].in_title.contains(s));
            }
        }
        if let Some((second, _)) = co
            .iter()
            .filter(|(_, (n, _))| *n >= 2)
            .max_by_key(|(s, (n, t))| (*n, *t, Reverse(**s)))
        {
            names.push(spelling(second));
        }
        for i in &members {
            remaining.remove(i);
        }
        themes.push(Theme {
            name: names.join(", "),
            terms: names,
            members,
        });
    }
    if !remaining.is_empty() {
        themes.push(Theme {
            name: "other".into(),
            terms: Vec::new(),
            members: remaining.into_iter().collect(),
        });
    }
    themes
}

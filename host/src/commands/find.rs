//! The find command: elements matching a locator or a text, each with its
//! ref and one line of context, without reprinting the page. The matching is
//! `browser/locate.rs`, the same that resolves locator targets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::browser::locate::{self, Found, Locator, Query};
use crate::error::ApiError;

/// The most matches one `find` lists.
const MAX_MATCHES: usize = 50;

/// Find elements by text or locator: their refs and what they sit in.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Find {
    /// Text to look for (a case-insensitive substring), or a locator:
    /// text="Exact", role=button[name="Stop"], label=Email, placeholder=…,
    /// testid=…, alt=…, title=…, css=…, chained with >>.
    pub query: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FindOut {
    /// The locator searched for (plain text reads as text=…).
    pub locator: String,
    /// Visible matches (at most 50), in frame then document order.
    pub matches: Vec<Found>,
    /// Visible matches in all.
    pub count: usize,
    /// Matches that are not visible (no ref: act on them once shown).
    pub hidden: usize,
}

impl Command for Find {
    const NAME: &'static str = "find";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str =
        "Find elements by text or locator: their refs and what they sit in, one line each";
    const SCOPE: Scope = Scope::Tab;
    type Output = FindOut;

    async fn run(self, mut cx: Cx) -> Result<FindOut, ApiError> {
        let locator = Locator::parse_find(&self.query)?;
        let tab = cx.tab().await?;
        let mut frames = tab.frames().await;
        let q = Query {
            locator: &locator,
            limit: MAX_MATCHES,
            context: true,
            gate: None,
        };
        let mut s = locate::search(&tab, &mut frames, &q).await?;
        // A trailing nth= picks one of them, as it does for a target.
        if let (_, Some(n)) = locator.split_nth() {
            let one = locate::nth_of(&mut frames, &s, n, true).await?;
            s.count = usize::from(one.is_some());
            s.found = one.into_iter().collect();
        }
        Ok(FindOut {
            locator: locator.source().to_string(),
            matches: s.found,
            count: s.count,
            hidden: s.hidden,
        })
    }

    fn human(out: &FindOut) -> String {
        let mut lines: Vec<String> = out
            .matches
            .iter()
            .map(|m| {
                if m.context.is_empty() {
                    m.line.clone()
                } else {
                    format!("{} — in {}", m.line, m.context)
                }
            })
            .collect();
        if out.count > out.matches.len() {
            lines.push(format!(
                "… {} more (narrow it: role=…, text=\"exact\", css=#section >> …)",
                out.count - out.matches.len()
            ));
        }
        if out.matches.is_empty() {
            lines.push(format!("no visible element matches {}", out.locator));
        }
        if out.hidden > 0 {
            lines.push(format!(
                "({} hidden match{} not listed)",
                out.hidden,
                if out.hidden == 1 { "" } else { "es" }
            ));
        }
        lines.join("\n")
    }
}

//! `resume`: after a person solved a challenge a command yielded on
//! (`needs_human`), look at the page again and carry on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::ApiError;

/// Check the tab again after a person solved a challenge or a login step
/// (`needs_human`): ok with the page when it is gone, `needs_human` again
/// if not. Changes nothing on the page.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Resume {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Resumed {
    pub tab: String,
    pub url: String,
    pub title: String,
}

impl Command for Resume {
    const NAME: &'static str = "resume";
    const ABOUT: &'static str = "Carry on after a person solved a challenge (needs_human)";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = Resumed;

    async fn run(self, mut cx: Cx) -> Result<Resumed, ApiError> {
        let tab = cx.tab().await?;
        let (url, title) = crate::browser::signals::recheck(&tab, cx.deadline()).await?;
        Ok(Resumed {
            tab: tab.id().to_string(),
            url,
            title,
        })
    }

    fn human(out: &Resumed) -> String {
        format!("{}: {} — {}", out.tab, out.title, out.url)
    }
}

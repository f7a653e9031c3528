//! Tab commands: tabs, tab new, tab select, tab close.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::browser::nav;
use crate::browser::session::TabInfo;
use crate::error::ApiError;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TabList {
    pub tabs: Vec<TabInfo>,
    /// `tab close`: the dialog that was open on the closed tab (dismissed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed_dialog: Option<crate::browser::tab::Dialog>,
}

fn human_tabs(out: &TabList) -> String {
    if out.tabs.is_empty() {
        return "no tabs".into();
    }
    out.tabs
        .iter()
        .map(|t| {
            let mark = if t.active { "*" } else { " " };
            format!("{mark}{}\t{}\t{}", t.id, t.title, t.url)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// List the session's tabs.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tabs {}

impl Command for Tabs {
    const NAME: &'static str = "tabs";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List the session's tabs (* marks the active one)";
    const SCOPE: Scope = Scope::Session;
    type Output = TabList;

    async fn run(self, mut cx: Cx) -> Result<TabList, ApiError> {
        Ok(TabList {
            tabs: cx.session()?.list_tabs().await?,
            dismissed_dialog: None,
        })
    }

    fn human(out: &TabList) -> String {
        human_tabs(out)
    }
}

/// Open a new tab (optionally at a URL) and make it active.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabNew {
    /// A URL to open in the new tab.
    pub url: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct NewTab {
    pub id: String,
    pub url: String,
    pub title: String,
}

impl Command for TabNew {
    const NAME: &'static str = "tab new";
    const ABOUT: &'static str = "Open a new tab and make it active";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = NewTab;

    async fn run(self, mut cx: Cx) -> Result<NewTab, ApiError> {
        let url = self.url.as_deref().map(nav::normalize_url).transpose()?;
        if url.as_ref().is_some_and(|u| u.scheme() == "file") {
            cx.require_local_files("a file:// URL")?;
        }
        let deadline = cx.deadline();
        let tab = cx.session()?.new_tab().await?;
        let page = match url {
            Some(url) => nav::goto(&tab, &url, Default::default(), deadline).await?,
            None => nav::current(&tab).await?,
        };
        Ok(NewTab {
            id: tab.id().to_string(),
            url: page.url,
            title: page.title,
        })
    }

    fn human(out: &NewTab) -> String {
        format!("{}\t{}", out.id, out.url)
    }
}

/// Make a tab the active one.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabSelect {
    /// Tab id from `webrig tabs`, e.g. t2.
    pub id: String,
}

impl Command for TabSelect {
    const NAME: &'static str = "tab select";
    const ABOUT: &'static str = "Make a tab the active one";
    const SCOPE: Scope = Scope::Session;
    type Output = TabList;

    async fn run(self, mut cx: Cx) -> Result<TabList, ApiError> {
        let session = cx.session()?;
        let tab = session.select_tab(&self.id)?;
        // Bring it to the front so a headed browser shows it too.
        tab.call("Page.bringToFront", serde_json::json!({})).await?;
        Ok(TabList {
            tabs: session.list_tabs().await?,
            dismissed_dialog: None,
        })
    }

    fn human(out: &TabList) -> String {
        human_tabs(out)
    }
}

/// Close a tab (default: the active one).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabClose {
    /// Tab id from `webrig tabs`; default the active tab.
    pub id: Option<String>,
}

impl Command for TabClose {
    const NAME: &'static str = "tab close";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Close a tab";
    const SCOPE: Scope = Scope::Session;
    type Output = TabList;

    async fn run(self, mut cx: Cx) -> Result<TabList, ApiError> {
        let id = match self.id {
            Some(id) => id,
            None => cx.tab().await?.id().to_string(),
        };
        let session = cx.session()?;
        // Closing is an explicit wish to leave: an open dialog is answered
        // (and reported) rather than left to block the page's teardown.
        let dismissed = match session.tab(Some(&id)).await {
            Ok(tab) => tab.leave_dialog().await.ok().flatten(),
            Err(_) => None,
        };
        session.close_tab(&id).await?;
        Ok(TabList {
            tabs: session.list_tabs().await?,
            dismissed_dialog: dismissed,
        })
    }

    fn human(out: &TabList) -> String {
        human_tabs(out)
    }
}

//! Navigation commands: goto, back, forward, reload, wait.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::browser::locate::Locator;
use crate::browser::nav::{self, Condition, ElementState, LoadState, Navigated};
use crate::error::ApiError;

/// Open a URL in the tab and wait until it loads.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Goto {
    /// The URL; `example.com` means https://example.com/.
    pub url: String,
    /// How far loading must get before returning (default: usable — the
    /// load event, or a ready DOM after a few seconds, reporting what still
    /// loads; `load` waits for the load event however long it takes).
    #[arg(long, value_enum)]
    pub until: Option<LoadState>,
}

impl Command for Goto {
    const NAME: &'static str = "goto";
    const ABOUT: &'static str = "Open a URL and wait until it loads";
    const SCOPE: Scope = Scope::TabCreate;
    type Output = Navigated;

    async fn run(self, mut cx: Cx) -> Result<Navigated, ApiError> {
        let url = nav::normalize_url(&self.url)?;
        if url.scheme() == "file" {
            cx.require_local_files("a file:// URL")?;
        }
        let tab = cx.tab().await?;
        let dismissed = tab.leave_dialog().await?;
        let mut out = nav::goto(&tab, &url, self.until.unwrap_or_default(), cx.deadline()).await?;
        out.dismissed_dialog = dismissed;
        Ok(out)
    }

    fn human(out: &Navigated) -> String {
        human_nav(out)
    }
}

fn human_nav(out: &Navigated) -> String {
    let mut text = if out.title.is_empty() {
        out.url.clone()
    } else {
        format!("{}\n{}", out.title, out.url)
    };
    if let Some(d) = &out.dismissed_dialog {
        text.push_str(&format!(
            "\n(answered the {} dialog {:?} to leave)",
            d.kind, d.message
        ));
    }
    if !out.pending.is_empty() {
        text.push_str(&format!(
            "\n(usable; still loading: {})",
            out.pending.join(", ")
        ));
    }
    text
}

macro_rules! history_command {
    ($name:ident, $cli:literal, $about:literal, $doc:literal, $delta:expr) => {
        #[doc = $doc]
        #[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// How far loading must get before returning (default: usable).
            #[arg(long, value_enum)]
            pub until: Option<LoadState>,
        }

        impl Command for $name {
            const NAME: &'static str = $cli;
            const ABOUT: &'static str = $about;
            const SCOPE: Scope = Scope::Tab;
            type Output = Navigated;

            async fn run(self, mut cx: Cx) -> Result<Navigated, ApiError> {
                let tab = cx.tab().await?;
                let until = self.until.unwrap_or_default();
                let dismissed = tab.leave_dialog().await?;
                let mut out = match $delta {
                    0 => nav::reload(&tab, until, cx.deadline()).await?,
                    delta => nav::history(&tab, delta, until, cx.deadline()).await?,
                };
                out.dismissed_dialog = dismissed;
                Ok(out)
            }

            fn human(out: &Navigated) -> String {
                human_nav(out)
            }
        }
    };
}

history_command!(
    Back,
    "back",
    "Go back in the tab's history",
    "Go back one page.",
    -1
);
history_command!(
    Forward,
    "forward",
    "Go forward in the tab's history",
    "Go forward one page.",
    1
);
history_command!(Reload, "reload", "Reload the page", "Reload the page.", 0);

/// Wait for a condition: text, an element's state, the URL, a load state, a
/// script, or a fixed time. Give exactly one.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wait {
    /// Milliseconds (a number), or a locator (text=Done) or CSS selector to wait for.
    pub target: Option<String>,
    /// Text that must appear on the page.
    #[arg(long)]
    pub text: Option<String>,
    /// Text that must disappear from the page.
    #[arg(long)]
    pub text_gone: Option<String>,
    /// A locator or CSS selector whose element must reach --state.
    #[arg(long)]
    pub selector: Option<String>,
    /// The state for a selector (default: visible).
    #[arg(long, value_enum)]
    pub state: Option<ElementState>,
    /// URL pattern: a substring, or a glob with `*`.
    #[arg(long)]
    pub url: Option<String>,
    /// A load state of the current document.
    #[arg(long, value_enum)]
    pub load: Option<LoadState>,
    /// A JavaScript expression that must become truthy.
    #[arg(long = "fn", value_name = "JS")]
    #[serde(rename = "fn")]
    pub script: Option<String>,
    /// A fixed delay in milliseconds.
    #[arg(long)]
    pub ms: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Waited {
    pub waited_ms: u64,
}

impl Wait {
    /// An element to wait for: a locator (searched in every frame) or a
    /// CSS selector.
    fn element(&self, raw: &str) -> Result<Condition, ApiError> {
        let state = self.state.unwrap_or_default();
        if Locator::is_locator(raw) {
            return Ok(Condition::Locator {
                locator: Box::new(Locator::parse(raw)?),
                state,
            });
        }
        Ok(Condition::Selector {
            selector: raw.to_string(),
            state,
        })
    }

    fn condition(&self) -> Result<Condition, ApiError> {
        let mut found: Vec<Condition> = Vec::new();
        if let Some(target) = &self.target {
            found.push(match target.parse::<u64>() {
                Ok(ms) => Condition::Delay(Duration::from_millis(ms)),
                Err(_) => self.element(target)?,
            });
        }
        if let Some(text) = &self.text {
            found.push(Condition::Text {
                text: text.clone(),
                present: true,
            });
        }
        if let Some(text) = &self.text_gone {
            found.push(Condition::Text {
                text: text.clone(),
                present: false,
            });
        }
        if let Some(selector) = &self.selector {
            found.push(self.element(selector)?);
        }
        if let Some(url) = &self.url {
            found.push(Condition::Url(url.clone()));
        }
        if let Some(load) = self.load {
            found.push(Condition::Load(load));
        }
        if let Some(script) = &self.script {
            found.push(Condition::Script(script.clone()));
        }
        if let Some(ms) = self.ms {
            found.push(Condition::Delay(Duration::from_millis(ms)));
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(ApiError::invalid("wait needs a condition")
                .with_hint("e.g. webrig wait --text Done, webrig wait '#result', webrig wait 500")),
            _ => Err(ApiError::invalid("wait takes exactly one condition")),
        }
    }
}

impl Command for Wait {
    const NAME: &'static str = "wait";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Wait for text, an element, a URL, a load state or a delay";
    const SCOPE: Scope = Scope::Tab;
    type Output = Waited;

    async fn run(self, mut cx: Cx) -> Result<Waited, ApiError> {
        let condition = self.condition()?;
        let start = tokio::time::Instant::now();
        let tab = cx.tab().await?;
        nav::wait(&tab, &condition, cx.deadline()).await?;
        Ok(Waited {
            waited_ms: start.elapsed().as_millis() as u64,
        })
    }

    fn human(out: &Waited) -> String {
        format!("done after {} ms", out.waited_ms)
    }
}

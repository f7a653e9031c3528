//! The snapshot command.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::browser::frames::Target;
use crate::browser::locate;
use crate::browser::snapshot::{self, Options, Snapshot as Shot};
use crate::error::ApiError;

/// A compact outline of the page with @e refs on everything an agent can act on.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// Only elements an agent can act on, one per line.
    #[arg(long, short = 'i')]
    #[serde(default)]
    pub interactive: bool,
    /// Only the subtree of this element: a ref from an earlier snapshot, or
    /// a locator that names one element (role=list, css=#main).
    #[arg(long, value_name = "TARGET")]
    pub scope: Option<String>,
    /// Only this many levels of nesting.
    #[arg(long, short = 'd')]
    pub depth: Option<u32>,
    /// Cap the outline at this many characters (default and max: the daemon's limit, 192000).
    #[arg(long)]
    pub max_chars: Option<usize>,
    /// Show link targets.
    #[arg(long)]
    #[serde(default)]
    pub urls: bool,
    /// Only what changed since this tab's previous snapshot (+/- lines).
    #[arg(long)]
    #[serde(default)]
    pub diff: bool,
}

impl Command for Snapshot {
    const NAME: &'static str = "snapshot";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Outline the page with @e refs (--diff: only what changed)";
    const SCOPE: Scope = Scope::Tab;
    const ASK_FOR_LESS: &'static str =
        "outline less: --max-chars, --scope REF, --depth N or --interactive";
    type Output = Shot;

    async fn run(self, mut cx: Cx) -> Result<Shot, ApiError> {
        let scope = self.scope.as_deref().map(Target::parse).transpose()?;
        if self.max_chars == Some(0) {
            return Err(ApiError::invalid("--max-chars must be at least 1"));
        }
        let tab = cx.tab().await?;
        // A plain selector stays refused, as before locators; css= takes one.
        if let Some(Target::Selector(s)) = &scope {
            return Err(ApiError::invalid(format!(
                "--scope takes a ref like @e12 or a locator, not {s:?}"
            ))
            .with_hint(format!("as a CSS selector: --scope 'css={s}'")));
        }
        // A locator scope is the one element it names, as a ref.
        let scope = match scope {
            Some(Target::Locator(loc)) => {
                let mut frames = tab.frames().await;
                frames.main(&tab);
                Some(locate::resolve(&tab, &mut frames, &loc, cx.deadline()).await?)
            }
            other => other,
        };
        let limits = cx.state().limits();
        let opts = Options {
            cap_nodes: Some(limits.snapshot_nodes),
            cap_chars: Some(limits.snapshot_chars),
            interactive: self.interactive,
            scope,
            depth: self.depth,
            max_chars: self.max_chars,
            urls: self.urls,
            diff: self.diff,
            frames: None,
        };
        snapshot::snapshot(&tab, &opts).await
    }

    fn human(out: &Shot) -> String {
        out.text.clone()
    }
}

//! Reading commands: text, html, value, attr, title, url, eval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::envelope::{Size, too_large};
use super::{Command, Cx, Scope};
use crate::browser::read::Capped;
use crate::browser::{nav, read};
use crate::error::ApiError;

/// A value measured in the page, or the refusal of one over the cap.
fn fits<T, C: Command>(read: Capped<T>, cap: usize) -> Result<T, ApiError> {
    match read {
        Capped::Fits(v) => Ok(v),
        Capped::TooLarge(n) => Err(too_large(
            &C::NAME.replace(' ', "_"),
            Size::AtLeast(n),
            cap,
            C::ASK_FOR_LESS,
        )),
    }
}

/// A piece of text, the output of most reading commands.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TextOut {
    pub text: String,
}

/// The visible text of the page or of one element.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// @eN ref, locator (text=…, role=…) or CSS selector (default: the whole page).
    pub target: Option<String>,
}

impl Command for Text {
    const NAME: &'static str = "text";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print the visible text of the page or an element";
    const SCOPE: Scope = Scope::Tab;
    const ASK_FOR_LESS: &'static str = "read a narrower element (webrig text SELECTOR), \
         or outline the page with webrig snapshot (--max-chars, --scope)";
    type Output = TextOut;

    async fn run(self, mut cx: Cx) -> Result<TextOut, ApiError> {
        let cap = cx.result_bytes();
        let tab = cx.tab().await?;
        let read = read::text_at_most(&tab, self.target.as_deref(), cap, cx.deadline()).await?;
        Ok(TextOut {
            text: fits::<_, Self>(read, cap)?,
        })
    }

    fn human(out: &TextOut) -> String {
        out.text.clone()
    }
}

/// The HTML of the page or of one element.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Html {
    /// @eN ref, locator or CSS selector (default: the whole document).
    pub target: Option<String>,
    /// The element's inner HTML instead of its outer HTML.
    #[arg(long)]
    #[serde(default)]
    pub inner: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HtmlOut {
    pub html: String,
}

impl Command for Html {
    const NAME: &'static str = "html";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print the HTML of the page or an element";
    const SCOPE: Scope = Scope::Tab;
    const ASK_FOR_LESS: &'static str = "read a narrower element (webrig html SELECTOR, --inner), \
         or outline the page with webrig snapshot (--max-chars, --scope)";
    type Output = HtmlOut;

    async fn run(self, mut cx: Cx) -> Result<HtmlOut, ApiError> {
        let cap = cx.result_bytes();
        let tab = cx.tab().await?;
        let read = read::html_at_most(&tab, self.target.as_deref(), self.inner, cap, cx.deadline())
            .await?;
        Ok(HtmlOut {
            html: fits::<_, Self>(read, cap)?,
        })
    }

    fn human(out: &HtmlOut) -> String {
        out.html.clone()
    }
}

/// The current value of a form field.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Value {
    /// @eN ref, locator (label=Email) or CSS selector of an input, textarea, select or contenteditable.
    pub target: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ValueOut {
    /// A string; an array for a multiple select; null when the element has no value.
    pub value: serde_json::Value,
}

impl Command for Value {
    const NAME: &'static str = "value";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print a form field's current value";
    const SCOPE: Scope = Scope::Tab;
    type Output = ValueOut;

    async fn run(self, mut cx: Cx) -> Result<ValueOut, ApiError> {
        let tab = cx.tab().await?;
        Ok(ValueOut {
            value: read::value(&tab, &self.target, cx.deadline()).await?,
        })
    }

    fn human(out: &ValueOut) -> String {
        render_json(&out.value)
    }
}

/// An attribute of an element.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attr {
    /// @eN ref, locator or CSS selector.
    pub target: String,
    /// Attribute name, e.g. href.
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AttrOut {
    /// Null when the element has no such attribute.
    pub value: Option<String>,
}

impl Command for Attr {
    const NAME: &'static str = "attr";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print an element's attribute";
    const SCOPE: Scope = Scope::Tab;
    type Output = AttrOut;

    async fn run(self, mut cx: Cx) -> Result<AttrOut, ApiError> {
        let tab = cx.tab().await?;
        Ok(AttrOut {
            value: read::attr(&tab, &self.target, &self.name, cx.deadline()).await?,
        })
    }

    fn human(out: &AttrOut) -> String {
        out.value
            .clone()
            .unwrap_or_else(|| "(no such attribute)".into())
    }
}

/// The page's title.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Title {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TitleOut {
    pub title: String,
}

impl Command for Title {
    const NAME: &'static str = "title";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print the page title";
    const SCOPE: Scope = Scope::Tab;
    type Output = TitleOut;

    async fn run(self, mut cx: Cx) -> Result<TitleOut, ApiError> {
        let tab = cx.tab().await?;
        Ok(TitleOut {
            title: nav::current(&tab).await?.title,
        })
    }

    fn human(out: &TitleOut) -> String {
        out.title.clone()
    }
}

/// The page's URL.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Url {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct UrlOut {
    pub url: String,
}

impl Command for Url {
    const NAME: &'static str = "url";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Print the page URL";
    const SCOPE: Scope = Scope::Tab;
    type Output = UrlOut;

    async fn run(self, mut cx: Cx) -> Result<UrlOut, ApiError> {
        let tab = cx.tab().await?;
        Ok(UrlOut {
            url: nav::current(&tab).await?.url,
        })
    }

    fn human(out: &UrlOut) -> String {
        out.url.clone()
    }
}

/// Run JavaScript in the page and return its JSON value (promises are awaited).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Eval {
    /// A JavaScript expression or statements; the last value is returned.
    pub script: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EvalOut {
    /// The value as JSON (NaN, Infinity and bigints as strings; DOM nodes as {}).
    pub value: serde_json::Value,
}

impl Command for Eval {
    const NAME: &'static str = "eval";
    const ABOUT: &'static str = "Run JavaScript in the page and print its JSON value";
    const SCOPE: Scope = Scope::Tab;
    const ASK_FOR_LESS: &'static str = "return less: a slice (s.slice(0, 10000)), a count, \
         or only the fields you need (({ a, b }) => ({ a, b }))(obj)";
    type Output = EvalOut;

    async fn run(self, mut cx: Cx) -> Result<EvalOut, ApiError> {
        if self.script.trim().is_empty() {
            return Err(ApiError::invalid("the script is empty"));
        }
        let cap = cx.result_bytes();
        let tab = cx.tab().await?;
        let value = tab.eval_user(&self.script, cap).await?;
        Ok(EvalOut {
            value: fits::<_, Self>(value, cap)?,
        })
    }

    fn human(out: &EvalOut) -> String {
        render_json(&out.value)
    }
}

/// Strings print raw; everything else as JSON.
fn render_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

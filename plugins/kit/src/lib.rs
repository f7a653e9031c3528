//! Pure helpers shared by webrig's guest plugins. It holds no WIT
//! bindings, so provider and workflow components can both link it without
//! taking on each other's world. Providers reach it through
//! `webrig_provider_sdk::{date, html, url}`, workflows as
//! `webrig_workflow_sdk::kit`.
//!
//! What plugin authors need most:
//!
//! * [`html::Document::parse`] — a forgiving HTML parser (any input gives
//!   a tree, never an error or a panic), with tag/class lookups
//!   ([`find`](html::Document::find), [`find_all`](html::Document::find_all),
//!   [`has_class`](html::Document::has_class)), attributes and text.
//! * [`Document::select`](html::Document::select) /
//!   [`select_first`](html::Document::select_first) (and `select_in` for a
//!   subtree) — CSS selectors: type, `*`, `.class`, `#id`, `[attr]`,
//!   `[attr=v]`, `~=`, `|=`, `^=`, `$=`, `*=`, descendant/`>`/`+`/`~`
//!   combinators, comma lists, `:first-child`, `:nth-child()`, `:not()`,
//!   …; anything else is a [`SelectorError`](html::SelectorError) saying
//!   where and why. Parse once with [`html::Selector`] to reuse.
//! * [`readable::extract`] — a page as a reader sees it: main text after
//!   Mozilla's Readability, title, publication time, author, description,
//!   site name, language, canonical URL ([`readable::Readable`]);
//!   [`readable::main_text`] for the text alone.
//! * [`html::meta`] — `<meta>` by name/property, `<link rel>`, microdata,
//!   JSON-LD objects (`@graph` and arrays flattened); [`html::text`] —
//!   whitespace collapsing, fragment-to-text, truncation.
//! * [`date::normalize`] — an ISO-style date (`2024-01-15`,
//!   `2024-01-15 10:00`, RFC 3339 with any zone form) to RFC 3339, or
//!   `None` (never "now"; no zone means UTC);
//!   [`date::normalize_lenient`] also reads RFC 2822 and English month
//!   names; [`date::unix_millis`] and [`date::from_unix`] convert.
//! * [`url::encode`] (a query value or path segment),
//!   [`url::query_param`] (decoded), [`url::host`] (lowercased, no port),
//!   [`url::resolve`] (an `href` against the page URL; `None` for
//!   non-http links).

pub mod date;
pub mod escape;
pub mod html;
pub mod readable;
pub mod url;

pub use serde_json;

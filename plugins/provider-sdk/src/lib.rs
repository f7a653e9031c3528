//! Guest SDK for webrig provider plugins.
//!
//! It owns the bindings to `webrig:plugin@0.1.0` (world `provider-plugin`)
//! and the small helpers every provider needs, so a provider is a
//! [`Provider`] impl plus [`export_provider!`]. It must not hold provider
//! logic: parsers for one service live in that service's crate.
//!
//! ```ignore
//! use webrig_provider_sdk::{export_provider, Provider, types::*};
//! struct Mine;
//! impl Provider for Mine {
//!     fn info() -> ProviderInfo { /* … */ }
//!     fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> { /* … */ }
//! }
//! export_provider!(Mine);
//! ```

wit_bindgen::generate!({
    world: "provider-plugin",
    path: "../../wit/v0.1.0",
    // Downstream crates invoke the export macro, so it must be public and
    // know where the bindings live (this crate).
    pub_export_macro: true,
    default_bindings_module: "webrig_provider_sdk",
    export_macro_name: "export_bindings",
});

pub mod http;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;

// The pure helpers live in webrig-kit (workflows use them too).
pub use webrig_kit::{date, html, readable, url};

// Re-exported so provider crates name one path for everything.
pub use serde_json;

/// The WIT record and error types, under short names.
pub mod types {
    pub use crate::webrig::plugin::types::{
        CrawlRequest, Document, Error, FetchRequest, PostRequest, ProviderInfo, ResultItem,
        SearchRequest,
    };
}

use types::*;

/// What a provider implements. Only [`Provider::info`] is required: the
/// other operations answer `unsupported` until a provider overrides them,
/// which is what the WIT contract asks of optional operations.
pub trait Provider {
    /// Identity and the operations it implements (`describe`).
    fn info() -> ProviderInfo;

    fn search(_req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        Err(Error::Unsupported("search".into()))
    }

    fn fetch(_req: FetchRequest) -> Result<Document, Error> {
        Err(Error::Unsupported("fetch".into()))
    }

    fn crawl(_req: CrawlRequest) -> Result<Vec<Document>, Error> {
        Err(Error::Unsupported("crawl".into()))
    }

    fn post(_req: PostRequest) -> Result<String, Error> {
        Err(Error::Unsupported("post".into()))
    }
}

/// Exports a [`Provider`] as the component's `provider` interface.
///
/// The type must be a plain identifier declared in the calling crate (the
/// bindings' export macro matches an `ident`).
///
/// In a `crate-type = ["cdylib", "rlib"]` crate, export only for wasm32:
/// `cargo test` then builds the cdylib natively too, and a native library
/// cannot carry the component's export names (the link fails):
///
/// ```ignore
/// #[cfg(target_arch = "wasm32")]
/// export_provider!(Mine);
/// ```
#[macro_export]
macro_rules! export_provider {
    ($ty:ident) => {
        impl $crate::exports::webrig::plugin::provider::Guest for $ty {
            fn describe() -> $crate::types::ProviderInfo {
                <$ty as $crate::Provider>::info()
            }
            fn search(
                req: $crate::types::SearchRequest,
            ) -> ::core::result::Result<::std::vec::Vec<$crate::types::ResultItem>, $crate::types::Error>
            {
                <$ty as $crate::Provider>::search(req)
            }
            fn fetch(
                req: $crate::types::FetchRequest,
            ) -> ::core::result::Result<$crate::types::Document, $crate::types::Error> {
                <$ty as $crate::Provider>::fetch(req)
            }
            fn crawl(
                req: $crate::types::CrawlRequest,
            ) -> ::core::result::Result<::std::vec::Vec<$crate::types::Document>, $crate::types::Error>
            {
                <$ty as $crate::Provider>::crawl(req)
            }
            fn post(
                req: $crate::types::PostRequest,
            ) -> ::core::result::Result<::std::string::String, $crate::types::Error> {
                <$ty as $crate::Provider>::post(req)
            }
        }
        $crate::export_bindings!($ty with_types_in $crate);
    };
}

/// A setting from the user's `[plugins.<id>]` table, trimmed; `None` when
/// unset or blank, so callers fall back to the real service's default.
/// Natively (`cargo test`), what [`testing::set_config`] set.
pub fn config(key: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    let value = webrig::plugin::config::get(key)?;
    #[cfg(not(target_arch = "wasm32"))]
    let value = testing::config(key)?;
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// [`config`] with a default, for base URLs. A trailing `/` is dropped so
/// callers can append paths that start with `/`.
pub fn config_url(key: &str, default: &str) -> String {
    let url = config(key).unwrap_or_else(|| default.to_string());
    url.trim_end_matches('/').to_string()
}

/// The number of results to ask a service for: `0` (no limit given) means
/// `default`, and nothing above `max` (what the service allows per page).
pub fn effective_limit(limit: u32, default: u32, max: u32) -> u32 {
    if limit == 0 {
        default.min(max)
    } else {
        limit.min(max)
    }
}

/// Refuses a query that is blank, so services are not asked for nothing.
pub fn require_query(query: &str) -> Result<&str, Error> {
    let q = query.trim();
    if q.is_empty() {
        return Err(Error::InvalidInput("the query is empty".into()));
    }
    Ok(q)
}

/// Refuses a URL that is not absolute http(s): providers fetch web pages
/// only, and the host would refuse other schemes less clearly.
pub fn require_http_url(url: &str) -> Result<&str, Error> {
    let u = url.trim();
    let lower = u.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://"))
        || crate::url::host(u).is_none()
    {
        return Err(Error::InvalidInput(format!("not an http(s) URL: {u:?}")));
    }
    Ok(u)
}

/// Messages for the host's log (tagged with the plugin id by the host).
/// Natively (`cargo test`) they are kept for [`testing::logs`].
pub mod log {
    #[cfg(target_arch = "wasm32")]
    use crate::webrig::plugin::log::{Level, log};

    #[cfg(not(target_arch = "wasm32"))]
    enum Level {
        Debug,
        Info,
        Warn,
        Error,
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn log(level: Level, message: &str) {
        let level = match level {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        };
        crate::testing::log(level, message);
    }

    pub fn debug(message: &str) {
        log(Level::Debug, message);
    }
    pub fn info(message: &str) {
        log(Level::Info, message);
    }
    pub fn warn(message: &str) {
        log(Level::Warn, message);
    }
    pub fn error(message: &str) {
        log(Level::Error, message);
    }
}

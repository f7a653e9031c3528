//! The host imports plugins call: `http`, `cache`, `log`, `browser`. Each
//! checks the plugin's effective grant first and refuses with a typed
//! `denied` error value, never a trap.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::engine::webrig::plugin::{browser, cache, http, log, types};
use super::engine::wit::Error as WitError;
use super::grants::Effective;
use super::manifest::BrowserAccess;

const MAX_REDIRECTS: usize = 5;
const HTTP_TIMEOUT: Duration = Duration::from_secs(15);
const MAX_RESPONSE: u64 = 8 << 20;

pub struct HostState {
    grants: Effective,
    output_cap: usize,
    cache: HashMap<String, (Vec<u8>, Instant)>,
    pub logs: Vec<(String, String)>,
}

impl HostState {
    pub fn new(grants: Effective, output_cap: usize) -> Self {
        HostState {
            grants,
            output_cap,
            cache: HashMap::new(),
            logs: Vec::new(),
        }
    }

    pub fn output_cap(&self) -> usize {
        self.output_cap
    }
}

impl types::Host for HostState {}

impl log::Host for HostState {
    fn log(&mut self, level: log::Level, message: String) {
        let level = format!("{level:?}").to_lowercase();
        tracing::debug!(%level, message = %message.chars().take(2000).collect::<String>(), "plugin");
        if self.logs.len() < 1000 {
            self.logs
                .push((level, message.chars().take(2000).collect()));
        }
    }
}

impl cache::Host for HostState {
    fn get(&mut self, key: String) -> Option<Vec<u8>> {
        if !self.grants.cache() {
            return None;
        }
        match self.cache.get(&key) {
            Some((v, until)) if Instant::now() < *until => Some(v.clone()),
            _ => None,
        }
    }

    fn set(&mut self, key: String, value: Vec<u8>, ttl_seconds: u32) {
        if !self.grants.cache() || value.len() > 1 << 20 || self.cache.len() > 1024 {
            return;
        }
        let until = Instant::now() + Duration::from_secs(u64::from(ttl_seconds.min(86_400)));
        self.cache.insert(key, (value, until));
    }
}

impl browser::Host for HostState {
    fn open(&mut self, _url: String) -> Result<String, WitError> {
        self.browser_denied()?;
        Err(WitError::Unsupported(
            "the browser import is not wired to sessions yet".into(),
        ))
    }

    fn snapshot(&mut self, _page: String) -> Result<String, WitError> {
        self.browser_denied()?;
        Err(WitError::NotFound("no such page".into()))
    }

    fn text(&mut self, _page: String) -> Result<String, WitError> {
        self.browser_denied()?;
        Err(WitError::NotFound("no such page".into()))
    }

    fn screenshot(&mut self, _page: String) -> Result<Vec<u8>, WitError> {
        self.browser_denied()?;
        Err(WitError::NotFound("no such page".into()))
    }

    fn close(&mut self, _page: String) {}
}

impl HostState {
    fn browser_denied(&self) -> Result<(), WitError> {
        if self.grants.browser() == BrowserAccess::None {
            return Err(WitError::Denied(
                "this plugin was not granted the browser".into(),
            ));
        }
        Ok(())
    }
}

impl http::Host for HostState {
    fn fetch(&mut self, req: http::Request) -> Result<http::Response, WitError> {
        let mut url = url::Url::parse(&req.url)
            .map_err(|e| WitError::InvalidInput(format!("bad URL: {e}")))?;
        let method = req.method.to_ascii_uppercase();
        if !matches!(
            method.as_str(),
            "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD"
        ) {
            return Err(WitError::InvalidInput(format!(
                "method {method} is not allowed"
            )));
        }
        // Every hop is checked, so a granted host cannot redirect the
        // plugin somewhere it was not granted.
        for _ in 0..=MAX_REDIRECTS {
            let addrs = self.check(&url)?;
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_global(Some(HTTP_TIMEOUT))
                .build()
                .into();
            let _ = addrs;
            let mut builder = ureq::http::Request::builder()
                .method(method.as_str())
                .uri(url.as_str());
            for (k, v) in &req.headers {
                if !k.eq_ignore_ascii_case("host") {
                    builder = builder.header(k, v);
                }
            }
            let request = builder
                .body(req.body.clone().unwrap_or_default())
                .map_err(|e| WitError::InvalidInput(format!("bad request: {e}")))?;
            let mut resp = agent.run(request).map_err(|e| match e {
                ureq::Error::Timeout(_) => WitError::Timeout(format!("{url}: {e}")),
                other => WitError::Upstream(format!("{url}: {other}")),
            })?;
            let status = resp.status().as_u16();
            if (300..400).contains(&status)
                && let Some(loc) = resp.headers().get("location").and_then(|l| l.to_str().ok())
            {
                url = url
                    .join(loc)
                    .map_err(|e| WitError::Upstream(format!("bad redirect: {e}")))?;
                continue;
            }
            let headers = resp
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                .collect();
            let body = resp
                .body_mut()
                .with_config()
                .limit(MAX_RESPONSE)
                .read_to_vec()
                .map_err(|e| WitError::Upstream(format!("reading {url}: {e}")))?;
            return Ok(http::Response {
                status,
                headers,
                body,
                final_url: url.to_string(),
            });
        }
        Err(WitError::Upstream(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }
}

impl HostState {
    /// The grant check for one hop, with the host's addresses (SSRF guard).
    fn check(&self, url: &url::Url) -> Result<Vec<std::net::IpAddr>, WitError> {
        use std::net::ToSocketAddrs;
        // Refuse before resolving anything when the host was not granted.
        self.grants.check_url(url, &[]).map_err(WitError::Denied)?;
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs: Vec<std::net::IpAddr> = (host, port)
            .to_socket_addrs()
            .map_err(|e| WitError::Upstream(format!("cannot resolve {host}: {e}")))?
            .map(|a| a.ip())
            .collect();
        self.grants
            .check_url(url, &addrs)
            .map_err(WitError::Denied)?;
        Ok(addrs)
    }
}

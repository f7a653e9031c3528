//! `[[pool]]` in `config.toml`: remote browser pools a session's browser
//! may run on (`launch --pool NAME`), and the pool's token.
//!
//! Owns the shape and the checks of a pool entry (names, engines, endpoint
//! URLs, limits) and reading its token. A token never sits in the file
//! itself: it comes from `token_file` (a file of ours that no one else may
//! read, not a symlink) or `token_env`, and lives in a [`Secret`], which
//! prints as `***` and cannot be serialized. Nothing here talks to a pool.

use std::path::{Path, PathBuf};

use super::Home;

/// Most pools, endpoints per pool, launch args per pool.
const MAX_POOLS: usize = 32;
const MAX_ENDPOINTS: usize = 64;
const MAX_ARGS: usize = 64;
/// The most a pool's token file may hold.
const TOKEN_BYTES: u64 = 4096;

/// A secret string: `Debug` and `Display` print `***`, and it has no
/// `Serialize`, so it cannot land in a result, a log line or sessions.json.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the secret replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            return text.to_string();
        }
        let mut out = text.replace(&self.0, "***");
        // Also as it appears percent-encoded in a URL.
        let encoded: String = url::form_urlencoded::byte_serialize(self.0.as_bytes()).collect();
        if encoded != self.0 {
            out = out.replace(&encoded, "***");
        }
        out
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// The pool's engine: what its endpoints speak.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// browserless 2 (`@browserless.io/browserless`): its `/chromium`
    /// WebSocket, `/pressure` for capacity.
    Browserless,
    /// Plain Chrome DevTools endpoints (`ws://…` or `http://host:port`).
    Cdp,
}

/// How a `cdp` pool picks among its endpoints (browserless pools always
/// pick the least loaded by `/pressure`).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The endpoint with the fewest of this daemon's sessions.
    #[default]
    LeastLoaded,
    RoundRobin,
}

/// One `[[pool]]` entry as written.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolEntry {
    pub name: String,
    pub engine: Engine,
    /// browserless base URLs (`http://host:3000`), or DevTools endpoints
    /// for `cdp`.
    pub endpoints: Vec<String>,
    /// A file holding the token (mode 600, ours, not a symlink); relative
    /// to the webrig home.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// An environment variable of the daemon holding the token.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Refused: present only to say so (a token is never written here).
    #[serde(default)]
    token: Option<serde::de::IgnoredAny>,
    /// This daemon's sessions per endpoint, at most.
    #[serde(default)]
    pub max_sessions: Option<usize>,
    #[serde(default)]
    pub strategy: Option<Strategy>,
    /// The pool a plain `launch` uses (at most one entry).
    #[serde(default)]
    pub default: bool,
    /// browserless: launch the browser headless (default true).
    #[serde(default)]
    pub headless: Option<bool>,
    /// browserless: extra browser arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// browserless: how long one session may live there, ms (its
    /// `timeout` parameter; else the deployment's own `TIMEOUT`).
    #[serde(default)]
    pub session_timeout_ms: Option<u64>,
    /// Hosts the pool's sessions may reach, and may not: a layer on top of
    /// `[policy]` and the launch's `--allow/--block` (the stricter holds).
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub block: Vec<String>,
    /// browserless: the proxy the pool's browsers go through
    /// (`scheme://host:port`, no credentials), unless `launch --proxy`.
    #[serde(default)]
    pub proxy: Option<String>,
    #[serde(default)]
    pub proxy_bypass: Vec<String>,
    /// The proxy's `user:password`: a file of yours (mode 600; relative to
    /// the webrig home), or an environment variable of the daemon.
    #[serde(default)]
    pub proxy_auth_file: Option<PathBuf>,
    #[serde(default)]
    pub proxy_auth_env: Option<String>,
}

impl PoolEntry {
    pub fn strategy(&self) -> Strategy {
        self.strategy.unwrap_or_default()
    }

    /// The pool's token, read now (a rotated file is picked up), or None
    /// when the pool has none. The error says what is wrong, never the token.
    pub fn token(&self, home: &Home) -> Result<Option<Secret>, String> {
        let raw = if let Some(file) = &self.token_file {
            let path = if file.is_relative() {
                home.root().join(file)
            } else {
                file.clone()
            };
            read_token_file(&path).map_err(|e| format!("pool {:?}: token_file {e}", self.name))?
        } else if let Some(var) = &self.token_env {
            std::env::var(var).map_err(|_| {
                format!(
                    "pool {:?}: the environment variable {var} (token_env) is not set for the \
                     daemon; set it before the daemon starts",
                    self.name
                )
            })?
        } else {
            return Ok(None);
        };
        let token = raw.trim().to_string();
        if token.is_empty() {
            return Err(format!("pool {:?}: its token is empty", self.name));
        }
        if token.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(format!(
                "pool {:?}: its token holds spaces or control characters",
                self.name
            ));
        }
        Ok(Some(Secret::new(token)))
    }
}

fn read_token_file(path: &Path) -> Result<String, String> {
    super::trust::check_ancestors(path).map_err(|e| e.to_string())?;
    let bytes = super::trust::read_owned(path, true, TOKEN_BYTES)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{}: no such file", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// Checks every `[[pool]]` entry; the error names the pool and the key.
pub fn validate(pools: &[PoolEntry]) -> Result<(), String> {
    if pools.len() > MAX_POOLS {
        return Err(format!("more than {MAX_POOLS} [[pool]] entries"));
    }
    let mut names = std::collections::HashSet::new();
    for p in pools {
        let name = &p.name;
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "pool {name:?}: a name is 1 to 64 letters, digits, '-' or '_'"
            ));
        }
        if !names.insert(name.as_str()) {
            return Err(format!("pool {name:?} is named twice"));
        }
        if p.token.is_some() {
            return Err(format!(
                "pool {name:?}: a literal `token` is not allowed in config.toml (it would be \
                 copied, backed up and shown); put it in a file of yours with mode 600 and name \
                 it with token_file, or in an environment variable named by token_env"
            ));
        }
        if p.token_file.is_some() && p.token_env.is_some() {
            return Err(format!(
                "pool {name:?}: give token_file or token_env, not both"
            ));
        }
        if p.endpoints.is_empty() || p.endpoints.len() > MAX_ENDPOINTS {
            return Err(format!(
                "pool {name:?}: endpoints must list 1 to {MAX_ENDPOINTS} URLs"
            ));
        }
        for e in &p.endpoints {
            check_endpoint(name, p.engine, e)?;
        }
        if p.max_sessions == Some(0) {
            return Err(format!(
                "pool {name:?}: max_sessions must be greater than 0"
            ));
        }
        if p.engine == Engine::Browserless && p.strategy == Some(Strategy::RoundRobin) {
            return Err(format!(
                "pool {name:?}: strategy is for cdp pools; a browserless pool picks the least \
                 loaded endpoint by its /pressure"
            ));
        }
        if p.engine == Engine::Cdp
            && (p.headless.is_some() || !p.args.is_empty() || p.session_timeout_ms.is_some())
        {
            return Err(format!(
                "pool {name:?}: headless, args and session_timeout_ms are browserless launch \
                 options; a cdp endpoint's browser is already running"
            ));
        }
        // (Its rules and its proxy URL are parsed by `rig::check_config`.)
        if p.proxy.is_some() {
            if p.engine == Engine::Cdp {
                return Err(format!(
                    "pool {name:?}: proxy is a browserless launch option; a cdp endpoint's \
                     browser is already running (give it --proxy-server where it starts)"
                ));
            }
        } else if !p.proxy_bypass.is_empty()
            || p.proxy_auth_file.is_some()
            || p.proxy_auth_env.is_some()
        {
            return Err(format!(
                "pool {name:?}: proxy_bypass, proxy_auth_file and proxy_auth_env need proxy"
            ));
        }
        if p.args.iter().any(|a| a.starts_with("--proxy")) {
            return Err(format!(
                "pool {name:?}: give the proxy with proxy = \"scheme://host:port\" (and \
                 proxy_auth_file for credentials), not in args"
            ));
        }
        if p.args.len() > MAX_ARGS || p.args.iter().any(|a| a.len() > 1024) {
            return Err(format!(
                "pool {name:?}: at most {MAX_ARGS} args of at most 1024 bytes"
            ));
        }
    }
    if pools.iter().filter(|p| p.default).count() > 1 {
        return Err("more than one [[pool]] has default = true".into());
    }
    Ok(())
}

/// An endpoint is an http(s) or ws(s) URL with a host, no credentials and
/// no token in it (that belongs in token_file or token_env).
fn check_endpoint(pool: &str, engine: Engine, endpoint: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "pool {pool:?}: endpoint {:?} {why}",
            endpoint.chars().take(200).collect::<String>()
        ))
    };
    if endpoint.len() > 2048 {
        return bad("is longer than 2048 bytes");
    }
    let Ok(url) = url::Url::parse(endpoint) else {
        return bad("is not a URL");
    };
    let schemes: &[&str] = match engine {
        Engine::Browserless => &["http", "https", "ws", "wss"],
        Engine::Cdp => &["http", "https", "ws", "wss"],
    };
    if !schemes.contains(&url.scheme()) {
        return bad("is not http(s):// or ws(s)://");
    }
    if url.host_str().is_none_or(str::is_empty) {
        return bad("has no host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return bad("holds credentials; put the token in token_file or token_env");
    }
    if url.query_pairs().any(|(k, _)| k == "token") {
        return bad("holds a token; put it in token_file or token_env");
    }
    if engine == Engine::Browserless && (url.path() != "/" || url.query().is_some()) {
        return bad("must be a browserless base URL (scheme, host and port only)");
    }
    Ok(())
}

/// The validated `[[pool]]` entries of `config.toml` in `home`.
pub fn load(home: &Home) -> anyhow::Result<Vec<PoolEntry>> {
    Ok(super::read_config(home)?.1.pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn parse(text: &str) -> Result<Vec<PoolEntry>, String> {
        #[derive(serde::Deserialize)]
        struct F {
            pool: Vec<PoolEntry>,
        }
        let f: F = toml::from_str(text).map_err(|e| e.to_string())?;
        validate(&f.pool)?;
        Ok(f.pool)
    }

    const OK: &str = "[[pool]]\nname = \"bl\"\nengine = \"browserless\"\n\
                      endpoints = [\"http://127.0.0.1:3000\"]\ntoken_env = \"BL_TOKEN\"\n";

    #[test]
    fn a_good_pool_parses_and_bad_ones_say_what_is_wrong() {
        let p = parse(OK).expect("parses");
        assert_eq!(p[0].engine, Engine::Browserless);
        for (text, says) in [
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"http://h:1\"]\ntoken = \"s3cret\"\n",
                "literal `token` is not allowed",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"file:///etc/passwd\"]\n",
                "is not http(s):// or ws(s)://",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://u:p@h:1/x\"]\n",
                "credentials",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1/x?token=abc\"]\n",
                "holds a token",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"http://h:1\"]\nendpont = 1\n",
                "endpont",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"selenium\"\nendpoints = [\"http://h:1\"]\n",
                "selenium",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = []\n",
                "endpoints must list",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\nheadless = false\n",
                "browserless launch options",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"http://h:1\"]\nstrategy = \"round-robin\"\n",
                "strategy is for cdp",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\ndefault = true\n\
                 [[pool]]\nname = \"b\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\ndefault = true\n",
                "more than one",
            ),
            (
                "[[pool]]\nname = \"a b\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\n",
                "a name is",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\nmax_sessions = 0\n",
                "max_sessions",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"cdp\"\nendpoints = [\"ws://h:1\"]\nproxy = \"http://p:3128\"\n",
                "already running",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"http://h:1\"]\nproxy_auth_file = \"p.auth\"\n",
                "need proxy",
            ),
            (
                "[[pool]]\nname = \"a\"\nengine = \"browserless\"\nendpoints = [\"http://h:1\"]\nargs = [\"--proxy-server=http://p:1\"]\n",
                "not in args",
            ),
        ] {
            let err = parse(text).expect_err(says);
            assert!(err.contains(says), "{says}: {err}");
            assert!(!err.contains("s3cret"), "the token is never echoed: {err}");
        }
    }

    #[test]
    fn a_secret_never_prints() {
        let s = Secret::new("t0k/en+x".into());
        assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
        assert_eq!(
            s.redact("ws://h/?token=t0k%2Fen%2Bx and t0k/en+x"),
            "ws://h/?token=*** and ***"
        );
    }

    #[test]
    fn a_token_file_must_be_ours_private_and_not_a_link() {
        let dir = tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .expect("temp dir");
        let home = Home::at(dir.path().to_path_buf());
        let file = dir.path().join("bl.token");
        std::fs::write(&file, "abc\n").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let mut p = parse(OK).expect("parses").remove(0);
        p.token_env = None;
        p.token_file = Some("bl.token".into());
        assert_eq!(
            p.token(&home).expect("read").map(|s| s.0),
            Some("abc".into())
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let err = p.token(&home).expect_err("group-readable");
        assert!(err.contains("others may read it"), "{err}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::os::unix::fs::symlink(&file, dir.path().join("link")).expect("symlink");
        p.token_file = Some("link".into());
        let err = p.token(&home).expect_err("a symlink");
        assert!(err.contains("symlink"), "{err}");
        assert!(!err.contains("abc"), "{err}");
        p.token_file = None;
        p.token_env = Some("WEBRIG_TEST_SURELY_UNSET_TOKEN".into());
        let err = p.token(&home).expect_err("unset");
        assert!(err.contains("is not set"), "{err}");
    }
}

//! Logins imported from the system browser (`launch --cookies-from`): finds
//! a Chromium-family cookie store ([`source`]), reads a private copy of it
//! ([`store`]), decrypts ([`crypt`]) and checks ([`check`]) each cookie, and
//! loads what passes into the new session's browser in one call before its
//! first page. Cookie values stay in the daemon's memory and go only to the
//! session's browser: never into a result, a log line or a file.
//!
//! It must not touch the store itself (the copy is read, read-only) nor
//! load anything when something fails.

mod check;
mod crypt;
mod source;
mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::SessionState;
use crate::browser::cookie::Cookie;
use crate::error::{ApiError, ErrorCode};

pub use check::Reason;

/// Cookies one import loads at most, and their names and values' bytes
/// (Chromium itself keeps about 3300 cookies).
pub const MAX_COOKIES: usize = store::MAX_ROWS;
pub const MAX_BYTES: usize = 4 << 20;
/// Domains a report lists by name (the rest are counted).
const REPORT_DOMAINS: usize = 200;
/// Domains named per skip reason.
const REASON_DOMAINS: usize = 20;

pub use crate::config::CookiesPolicy;

/// What an import did: never a cookie's value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LoginsReport {
    /// The cookie store read (a copy of it was).
    pub source: PathBuf,
    /// chrome, chromium or brave, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    /// The profile folder, and its name in the browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_name: Option<String>,
    /// Cookies loaded into the session.
    pub loaded: usize,
    /// Loaded cookies per domain (the most-counted ones).
    pub domains: BTreeMap<String, usize>,
    /// Domains with loaded cookies not listed in `domains`.
    #[serde(default)]
    pub more_domains: usize,
    /// Cookies left out, by reason.
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    pub reason: Reason,
    pub count: usize,
    /// Some of the domains they were for.
    pub domains: Vec<String>,
}

impl LoginsReport {
    /// One line for people.
    pub fn human(&self) -> String {
        let from = match (&self.browser, &self.profile) {
            (Some(b), Some(p)) => format!("{b} profile {p:?}"),
            _ => self.source.display().to_string(),
        };
        let skipped: usize = self.skipped.iter().map(|s| s.count).sum();
        let mut s = format!(
            "logins from {from}: {} cookie(s) for {} site(s)",
            self.loaded,
            self.domains.len() + self.more_domains
        );
        if skipped > 0 {
            let why = self
                .skipped
                .iter()
                .map(|s| {
                    format!(
                        "{} {}",
                        s.count,
                        serde_json::to_value(s.reason)
                            .unwrap_or_default()
                            .as_str()
                            .unwrap_or("?")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            s.push_str(&format!("; {skipped} skipped ({why})"));
        }
        s
    }
}

/// An import asked for: the store and the policy.
#[derive(Debug)]
pub struct Wanted {
    spec: source::Spec,
    policy: CookiesPolicy,
}

/// A store read and checked, ready to load.
pub struct Prepared {
    cookies: Vec<Cookie>,
    report: LoginsReport,
}

/// The store `--cookies-from` names, when an import is wanted: checks the
/// flags before anything starts. `extension`: the session is the user's
/// own browser, which has its logins already.
pub fn wanted(
    from: Option<&str>,
    policy: Option<CookiesPolicy>,
    extension: bool,
) -> Result<Option<Wanted>, ApiError> {
    let policy = policy.unwrap_or_default();
    let Some(from) = from else {
        if policy == CookiesPolicy::Required {
            return Err(ApiError::invalid(
                "--cookies-policy required needs --cookies-from",
            ));
        }
        return Ok(None);
    };
    if extension {
        return Err(ApiError::invalid(
            "--cookies-from is for a browser webrig starts: your own browser (--extension) \
             has its logins already",
        ));
    }
    let spec = source::Spec::parse(from)?;
    Ok((policy != CookiesPolicy::Off).then_some(Wanted { spec, policy }))
}

/// Makes a relative path in `--cookies-from` absolute against the CLI's
/// folder (a browser name stays as it is).
pub fn absolutize(from: &mut Option<String>) -> Result<(), ApiError> {
    if let Some(f) = from.as_mut()
        && f.contains('/')
        && !f.starts_with('/')
    {
        let cwd = std::env::current_dir()
            .map_err(|e| ApiError::invalid(format!("no working directory: {e}")))?;
        *f = cwd.join(&*f).to_string_lossy().into_owned();
    }
    Ok(())
}

/// Why an import does not go to a remote pool.
pub fn not_on_a_pool() -> ApiError {
    ApiError::invalid(
        "--cookies-from loads your logins into a browser on this machine only, not on a remote pool",
    )
    .with_hint("launch locally (--own-browser, --profile or --headed), or sign in on the pool")
}

/// Finds, copies, reads, decrypts and checks the store (on a blocking
/// thread: SQLite and the keyring are synchronous). Fails when the store
/// cannot be read, and with `auth_required` under `required` when no
/// cookie passes.
pub async fn read(wanted: Wanted) -> Result<Prepared, ApiError> {
    let Wanted { spec, policy } = wanted;
    let prepared =
        tokio::task::spawn_blocking(move || read_blocking(&spec, &source::Env::current()))
            .await
            .map_err(|e| ApiError::internal(format!("reading the cookie store: {e}")))??;
    tracing::info!(
        source = %prepared.report.source.display(),
        cookies = prepared.cookies.len(),
        skipped = prepared.report.skipped.iter().map(|s| s.count).sum::<usize>(),
        "logins read"
    );
    if policy == CookiesPolicy::Required && prepared.cookies.is_empty() {
        return Err(ApiError::new(
            ErrorCode::AuthRequired,
            format!(
                "{}: no usable login to import ({})",
                prepared.report.source.display(),
                prepared.report.human()
            ),
        )
        .with_hint("sign in with that browser first, or launch with --cookies-policy auto"));
    }
    Ok(prepared)
}

fn read_blocking(spec: &source::Spec, env: &source::Env) -> Result<Prepared, ApiError> {
    let found = source::find(spec, env)?;
    let store = store::read(&found.cookies)?;
    let mut keys = crypt::Keys {
        v10: Some(crypt::v10_key()),
        v11: Vec::new(),
    };
    let needs_keyring = store.rows.iter().any(|r| {
        r.encrypted
            .as_deref()
            .is_some_and(|b| b.starts_with(b"v11"))
    });
    if needs_keyring {
        let apps: Vec<source::Browser> = match found.browser {
            Some(b) => vec![b],
            None => source::Browser::ALL.to_vec(),
        };
        for app in apps {
            if let Some(pw) = crypt::keyring_password(app.keyring_application()) {
                keys.v11.push(crypt::key(&pw));
            }
        }
        keys.v11.push(crypt::key(b""));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut cookies = Vec::new();
    let mut bytes = 0usize;
    let mut skipped: BTreeMap<Reason, (usize, BTreeSet<String>)> = BTreeMap::new();
    let mut skip = |reason: Reason, domain: Option<&str>| {
        let entry = skipped.entry(reason).or_default();
        entry.0 += 1;
        if let Some(d) = domain
            && entry.1.len() < REASON_DOMAINS
        {
            entry.1.insert(d.trim_start_matches('.').to_string());
        }
    };
    for row in &store.rows {
        match check::cookie(row, &keys, store.domain_hash, now) {
            Ok(c) if bytes + c.name.len() + c.value.len() > MAX_BYTES => {
                skip(Reason::OverCap, Some(&c.domain))
            }
            Ok(c) => {
                bytes += c.name.len() + c.value.len();
                cookies.push(c);
            }
            Err(reason) => skip(reason, row.host_key.as_deref()),
        }
    }
    if store.unread > 0 {
        // Rows past the read cap are counted, not read.
        skipped.entry(Reason::OverCap).or_default().0 += store.unread;
    }
    let mut per_domain: BTreeMap<String, usize> = BTreeMap::new();
    for c in &cookies {
        *per_domain
            .entry(c.domain.trim_start_matches('.').to_string())
            .or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = per_domain.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let more_domains = ranked.len().saturating_sub(REPORT_DOMAINS);
    ranked.truncate(REPORT_DOMAINS);
    let report = LoginsReport {
        source: found.cookies,
        browser: found.browser.map(|b| b.name().to_string()),
        profile: found.profile,
        profile_name: found.profile_name,
        loaded: cookies.len(),
        domains: ranked.into_iter().collect(),
        more_domains,
        skipped: skipped
            .into_iter()
            .map(|(reason, (count, domains))| Skipped {
                reason,
                count,
                domains: domains.into_iter().collect(),
            })
            .collect(),
    };
    Ok(Prepared { cookies, report })
}

/// The browser's form of `c`: a host-only cookie (no leading dot) is set
/// for its URL, so it stays host-only (a `domain` would widen it to the
/// subdomains).
fn cookie_param(c: &Cookie) -> Value {
    let mut p = c.to_cdp();
    if !c.domain.starts_with('.') {
        let scheme = if c.secure { "https" } else { "http" };
        if let Some(o) = p.as_object_mut() {
            o.remove("domain");
        }
        p["url"] = json!(format!("{scheme}://{}{}", c.domain, c.path));
    }
    p
}

/// Loads the cookies into the session's browser (its context) in one
/// `Storage.setCookies`. If the browser refuses them, what it had before
/// is put back and the error returned: nothing half-loaded stays.
pub async fn load(
    session: &mut SessionState,
    prepared: Prepared,
) -> Result<LoginsReport, ApiError> {
    let Prepared { cookies, report } = prepared;
    if cookies.is_empty() {
        return Ok(report);
    }
    let tab = session.tab(None).await?;
    let conn = tab.cdp().connection().clone();
    let before = conn.call(None, "Storage.getCookies", json!({})).await?;
    let params: Vec<Value> = cookies.iter().map(cookie_param).collect();
    if let Err(e) = conn
        .call(None, "Storage.setCookies", json!({ "cookies": params }))
        .await
    {
        let _ = conn.call(None, "Storage.clearCookies", json!({})).await;
        let restore: Vec<Value> = before["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .map(restorable)
            .collect();
        if !restore.is_empty() {
            let _ = conn
                .call(None, "Storage.setCookies", json!({ "cookies": restore }))
                .await;
        }
        return Err(ApiError::invalid(format!(
            "{}: the browser refused the imported cookies ({}); none was loaded",
            report.source.display(),
            e
        )));
    }
    tracing::info!(loaded = report.loaded, "logins loaded");
    Ok(report)
}

/// A cookie the browser listed, as it takes one back.
fn restorable(c: &Value) -> Value {
    let mut p = serde_json::Map::new();
    for k in [
        "name",
        "value",
        "domain",
        "path",
        "secure",
        "httpOnly",
        "sameSite",
        "priority",
        "sourceScheme",
        "sourcePort",
        "partitionKey",
    ] {
        if !c[k].is_null() {
            p.insert(k.to_string(), c[k].clone());
        }
    }
    if c["session"] != true
        && let Some(e) = c["expires"].as_f64().filter(|e| *e > 0.0)
    {
        p.insert("expires".into(), json!(e));
    }
    Value::Object(p)
}

/// Ends and forgets a session a failed `launch --cookies-from` made, so no
/// half-set-up session stays behind.
pub async fn discard(state: &crate::rig::State, session: &mut SessionState) {
    let name = session.name().to_string();
    session.shutdown().await;
    state.remove_session(&name);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crypt::tests::seal;

    fn chrome_time(unix: f64) -> i64 {
        ((unix + 11_644_473_600.0) * 1e6) as i64
    }

    #[test]
    fn a_store_becomes_cookies_and_a_report_without_values() {
        let dir = tempfile::tempdir().expect("ok");
        let path = dir.path().join("Cookies");
        let conn = store::tests::make_store(&path, 24);
        let later = chrome_time(4_000_000_000.0);
        let insert = |host: &str, name: &str, plain: &str, enc: Vec<u8>, exp: i64| {
            conn.execute(
                "INSERT INTO cookies(creation_utc, host_key, name, value, encrypted_value, path,
                   expires_utc, is_secure, is_httponly, samesite) VALUES (1, ?1, ?2, ?3, ?4, '/', ?5, 1, 1, -1)",
                rusqlite::params![host, name, plain, enc, exp],
            )
            .expect("ok");
        };
        insert(
            ".shop.test",
            "sid",
            "",
            seal(b"v10", b"peanuts", ".shop.test", "SECRET-1", true),
            later,
        );
        insert("127.0.0.1", "theme", "dark", Vec::new(), 0);
        insert(".old.test", "gone", "x", Vec::new(), chrome_time(1_000.0));
        insert(".google.com", "SID", "x", Vec::new(), later);
        drop(conn);
        let p =
            read_blocking(&source::Spec::Path(path.clone()), &source::Env::default()).expect("ok");
        let names: Vec<_> = p.cookies.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["sid", "theme"]);
        assert_eq!(p.cookies[0].value, "SECRET-1");
        assert_eq!(p.report.loaded, 2);
        assert_eq!(p.report.domains.get("shop.test"), Some(&1));
        assert_eq!(p.report.domains.get("127.0.0.1"), Some(&1));
        let reasons: Vec<_> = p
            .report
            .skipped
            .iter()
            .map(|s| (s.reason, s.count))
            .collect();
        assert_eq!(reasons, [(Reason::Expired, 1), (Reason::GoogleSignIn, 1)]);
        let json = serde_json::to_string(&p.report).expect("ok");
        assert!(
            !json.contains("SECRET-1") && !json.contains("dark"),
            "{json}"
        );
        assert!(!p.report.human().contains("SECRET-1"));
        // A host-only cookie stays host-only; a domain cookie keeps its domain.
        let host_only = cookie_param(&p.cookies[1]);
        assert_eq!(host_only["url"], "https://127.0.0.1/");
        assert!(host_only.get("domain").is_none(), "{host_only}");
        assert_eq!(cookie_param(&p.cookies[0])["domain"], ".shop.test");
    }

    #[test]
    fn caps_bound_an_import() {
        let dir = tempfile::tempdir().expect("ok");
        let path = dir.path().join("Cookies");
        let conn = store::tests::make_store(&path, 24);
        conn.execute_batch(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
             INSERT INTO cookies(creation_utc, host_key, name, value, path, expires_utc, is_secure, is_httponly)
             SELECT i, 'a.test', 'c' || i, printf('%.4000c', 'v'), '/', 0, 0, 0 FROM n;",
            MAX_COOKIES + 100
        ))
        .expect("ok");
        drop(conn);
        let p = read_blocking(&source::Spec::Path(path), &source::Env::default()).expect("ok");
        let bytes: usize = p.cookies.iter().map(|c| c.name.len() + c.value.len()).sum();
        assert!(bytes <= MAX_BYTES, "{bytes}");
        assert!(p.cookies.len() < MAX_COOKIES);
        let over = p
            .report
            .skipped
            .iter()
            .find(|s| s.reason == Reason::OverCap)
            .expect("ok");
        assert_eq!(p.cookies.len() + over.count, MAX_COOKIES + 100);
    }

    #[test]
    fn flags_are_checked_before_anything_starts() {
        assert!(wanted(None, None, false).expect("ok").is_none());
        assert!(
            wanted(Some("chrome"), Some(CookiesPolicy::Off), false)
                .expect("ok")
                .is_none()
        );
        assert!(wanted(Some("chrome"), None, false).expect("ok").is_some());
        assert!(
            wanted(Some("chrome"), None, true).is_err(),
            "not into your own browser"
        );
        assert!(wanted(None, Some(CookiesPolicy::Required), false).is_err());
        assert!(wanted(Some("opera"), None, false).is_err());
    }
}

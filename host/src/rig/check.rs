//! What `config.toml` holds that only the layers reading it can parse: the
//! domain policy's rules, the `[session]` logins default and a pool's rules
//! and proxy. Checked when the daemon starts, so a bad rule is an error
//! there, naming the file, not at the first launch.

use crate::config::{Access, Home};

/// Every rule, default and pool proxy of `access` and the home's pools.
pub fn check_config(home: &Home, access: &Access) -> anyhow::Result<()> {
    let path = home.root().join("config.toml");
    let bad = |why: String| anyhow::anyhow!("{}: {why}", path.display());
    let policy = &access.policy;
    crate::browser::policy::configured(policy, None).map_err(|e| bad(e.message().into()))?;
    for name in policy.sessions.keys() {
        crate::browser::policy::configured(policy, Some(name))
            .map_err(|e| bad(e.message().into()))?;
    }
    let session = &access.session;
    if let Some(from) = &session.cookies_from
        && from.contains('/')
        && !from.starts_with('/')
    {
        return Err(bad(format!(
            "session.cookies_from {from:?}: a path here must be absolute"
        )));
    }
    super::logins::wanted(
        session.cookies_from.as_deref(),
        session.cookies_policy,
        false,
    )
    .map_err(|e| bad(format!("session: {}", e.message())))?;
    for pool in crate::config::pool::load(home)? {
        super::pool::layer(&pool)
            .map_err(|e| bad(format!("pool {:?}: {}", pool.name, e.message())))?;
        if let Some(url) = &pool.proxy {
            crate::browser::proxy::Proxy::parse(url, &pool.proxy_bypass, None)
                .map_err(|e| bad(format!("pool {:?}: {}", pool.name, e.message())))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_cookie_defaults_load_and_bad_ones_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = Home::at(dir.path().to_path_buf());
        assert_eq!(
            Access::load(&home).expect("defaults").session,
            crate::config::SessionDefaults::default()
        );
        let write =
            |text: &str| std::fs::write(dir.path().join("config.toml"), text).expect("write");
        write("[session]\ncookies_from = \"chromium:Work\"\ncookies_policy = \"required\"\n");
        let s = Access::load(&home).expect("parses").session;
        assert_eq!(s.cookies_from.as_deref(), Some("chromium:Work"));
        assert_eq!(
            s.cookies_policy,
            Some(crate::config::CookiesPolicy::Required)
        );
        write("[session]\ncookies_from = \"/home/me/.config/chromium\"\n");
        let s = Access::load(&home).expect("an absolute path");
        assert_eq!(s.session.cookies_policy, None);
        for (bad, why) in [
            ("cookies_from = \"firefox\"", "firefox"),
            ("cookies_from = \"./profile\"", "absolute"),
            ("cookies_policy = \"required\"", "needs --cookies-from"),
            ("cookies_policy = \"sometimes\"", "sometimes"),
            ("cookies = \"chrome\"", "cookies"),
        ] {
            write(&format!("[session]\n{bad}\n"));
            // What only the logins import can parse is checked by
            // `rig::check_config` at daemon start.
            let err = Access::load(&home)
                .and_then(|a| check_config(&home, &a))
                .expect_err(bad)
                .to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn bad_policy_rules_and_pool_proxies_are_refused_at_start() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = Home::at(dir.path().to_path_buf());
        let pool = "[[pool]]\nname = \"bl\"\nengine = \"browserless\"\nendpoints = [\"http://127.0.0.1:3000\"]\n";
        for (text, why) in [
            ("[policy]\nallow = [\"http://x.com\"]\n", "http://x.com"),
            (
                "[policy.sessions.a]\nblock = [\"*evil.com\"]\n",
                "*evil.com",
            ),
            (&*format!("{pool}allow = [\"a.com/path\"]\n"), "a.com/path"),
            (
                &*format!("{pool}proxy = \"http://u:s3cret@p:3128\"\n"),
                "credentials do not go in the URL",
            ),
            (
                &*format!("{pool}proxy = \"ftp://p:21\"\n"),
                "not a proxy scheme",
            ),
        ] {
            std::fs::write(dir.path().join("config.toml"), text).expect("write");
            let err = Access::load(&home)
                .and_then(|a| check_config(&home, &a))
                .expect_err(text)
                .to_string();
            assert!(err.contains(why), "{text}: {err}");
            assert!(!err.contains("s3cret"), "{err}");
        }
        std::fs::write(
            dir.path().join("config.toml"),
            format!("[policy]\nallow = [\"example.com\"]\n{pool}allow = [\"example.com\"]\nproxy = \"http://127.0.0.1:3128\"\n"),
        )
        .expect("write");
        let access = Access::load(&home).expect("loads");
        check_config(&home, &access).expect("good rules pass");
        let pools = crate::config::pool::load(&home).expect("pools");
        let proxy = crate::rig::pool::proxy(&pools[0], &home).expect("proxy");
        let ws = crate::browser::pool::browserless_ws(
            &pools[0],
            "http://127.0.0.1:3000",
            None,
            proxy.as_ref(),
        )
        .expect("url");
        assert!(
            ws.expose().contains("proxy-server"),
            "the pool's browser gets the proxy"
        );
    }
}

//! Where a browser's cookie store is: `chrome[:PROFILE]`, `chromium[:…]`,
//! `brave[:…]` (the user data directory under `$XDG_CONFIG_HOME`, else
//! `~/.config`, and the profile `Local State` last used), or a path to a
//! profile, a user data directory or a `Cookies` file. Pure but for
//! looking at the file system; nothing here reads a cookie.

use std::path::{Path, PathBuf};

use crate::error::ApiError;

/// A browser whose store webrig knows how to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Browser {
    Chrome,
    Chromium,
    Brave,
}

impl Browser {
    pub const ALL: [Browser; 3] = [Browser::Chrome, Browser::Chromium, Browser::Brave];

    pub fn name(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Brave => "brave",
        }
    }

    /// Its user data directory under the config home.
    fn folder(self) -> &'static str {
        match self {
            Browser::Chrome => "google-chrome",
            Browser::Chromium => "chromium",
            Browser::Brave => "BraveSoftware/Brave-Browser",
        }
    }

    /// The `application` attribute of its keyring item.
    pub fn keyring_application(self) -> &'static str {
        self.name()
    }

    /// The browser a user data directory at `path` belongs to, by its name.
    fn of_path(path: &Path) -> Option<Browser> {
        let s = path.to_string_lossy();
        if s.contains("Brave-Browser") {
            Some(Browser::Brave)
        } else if s.contains("google-chrome") {
            Some(Browser::Chrome)
        } else if s.contains("chromium") {
            Some(Browser::Chromium)
        } else {
            None
        }
    }
}

/// What `--cookies-from` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    Browser {
        browser: Browser,
        profile: Option<String>,
    },
    Path(PathBuf),
}

impl Spec {
    /// `chrome`, `chromium:Work`, `brave:Profile 2`, or a path (anything
    /// with a `/`; `./chrome` for a folder named like a browser).
    pub fn parse(s: &str) -> Result<Spec, ApiError> {
        if s.contains('/') {
            return Ok(Spec::Path(PathBuf::from(s)));
        }
        let (name, profile) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let browser = Browser::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "--cookies-from {s:?}: not chrome, chromium or brave (with an optional \
                     :PROFILE), nor a path"
                ))
                .with_hint("name a folder or file with a / in it (./NAME)")
            })?;
        if let Some(p) = profile
            && p.trim().is_empty()
        {
            return Err(ApiError::invalid(format!(
                "--cookies-from {s:?}: the profile after : is empty"
            )));
        }
        Ok(Spec::Browser {
            browser,
            profile: profile.map(str::to_string),
        })
    }
}

/// The parts of the environment discovery reads.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
}

impl Env {
    pub fn current() -> Env {
        Env {
            home: std::env::var_os("HOME").map(PathBuf::from),
            xdg_config_home: std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        }
    }

    /// `$XDG_CONFIG_HOME` when set to an absolute path (the spec says a
    /// relative one is ignored), else `$HOME/.config`.
    fn config_home(&self) -> Option<PathBuf> {
        self.xdg_config_home
            .clone()
            .filter(|p| p.is_absolute())
            .or_else(|| {
                self.home
                    .as_ref()
                    .filter(|h| h.is_absolute())
                    .map(|h| h.join(".config"))
            })
    }
}

/// What `Local State` says about profiles.
#[derive(Debug, Default, PartialEq)]
pub struct LocalState {
    pub last_used: Option<String>,
    /// (folder, display name), in the file's order.
    pub profiles: Vec<(String, String)>,
}

/// Largest `Local State` read (a real one is tens of KiB).
pub const LOCAL_STATE_BYTES: u64 = 8 << 20;

impl LocalState {
    pub fn parse(bytes: &[u8]) -> Result<LocalState, String> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        let profile = &v["profile"];
        let last_used = profile["last_used"]
            .as_str()
            .filter(|s| is_folder_name(s))
            .map(str::to_string);
        let profiles = profile["info_cache"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(dir, _)| is_folder_name(dir))
            .map(|(dir, info)| {
                (
                    dir.clone(),
                    info["name"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        Ok(LocalState {
            last_used,
            profiles,
        })
    }

    /// The profile folder `wanted` names (a folder or a display name), else
    /// the one last used, else `Default`.
    pub fn pick(&self, wanted: Option<&str>) -> Result<String, String> {
        let Some(w) = wanted else {
            return Ok(self
                .last_used
                .clone()
                .unwrap_or_else(|| "Default".to_string()));
        };
        if self.profiles.iter().any(|(dir, _)| dir == w) {
            return Ok(w.to_string());
        }
        let by_name = |exact: bool| -> Vec<&String> {
            self.profiles
                .iter()
                .filter(|(_, name)| {
                    if exact {
                        name == w
                    } else {
                        name.to_lowercase() == w.to_lowercase()
                    }
                })
                .map(|(dir, _)| dir)
                .collect()
        };
        let mut found = by_name(true);
        if found.is_empty() {
            found = by_name(false);
        }
        match found.as_slice() {
            [one] => Ok(one.to_string()),
            [] if is_folder_name(w) => Ok(w.to_string()),
            [] => Err(format!("no profile is named {w:?}")),
            many => Err(format!(
                "{} profiles are named {w:?} ({}): name its folder",
                many.len(),
                many.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn display_name(&self, dir: &str) -> Option<String> {
        self.profiles
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, n)| n.clone())
            .filter(|n| !n.is_empty())
    }
}

/// One path component that is neither `.` nor `..`.
fn is_folder_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains('/') && !s.contains('\0')
}

/// A cookie store found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The `Cookies` file.
    pub cookies: PathBuf,
    /// The browser it belongs to, when known (its keyring item).
    pub browser: Option<Browser>,
    /// The profile folder's name, and its display name when known.
    pub profile: Option<String>,
    pub profile_name: Option<String>,
}

/// Finds the store `spec` names.
pub fn find(spec: &Spec, env: &Env) -> Result<Found, ApiError> {
    match spec {
        Spec::Browser { browser, profile } => {
            let root = env.config_home().ok_or_else(|| {
                ApiError::not_found("neither XDG_CONFIG_HOME nor HOME is set: no browser to find")
            })?;
            let data = root.join(browser.folder());
            if !data.is_dir() {
                return Err(ApiError::not_found(format!(
                    "no {} user data in {}",
                    browser.name(),
                    data.display()
                ))
                .with_hint("is it installed and used as this user? else name its profile folder"));
            }
            in_user_data(&data, profile.as_deref(), Some(*browser))
        }
        Spec::Path(p) => {
            let meta = std::fs::metadata(p)
                .map_err(|e| ApiError::not_found(format!("{}: {e}", p.display())))?;
            let browser = Browser::of_path(p);
            if !meta.is_dir() {
                return Ok(Found {
                    cookies: p.clone(),
                    browser,
                    profile: None,
                    profile_name: None,
                });
            }
            if p.join("Local State").exists() {
                return in_user_data(p, None, browser);
            }
            let cookies = in_profile(p).ok_or_else(|| {
                ApiError::not_found(format!(
                    "{} holds no Cookies (nor Network/Cookies) and no Local State: \
                     not a browser profile",
                    p.display()
                ))
            })?;
            // A profile's Local State is in the folder above it.
            let above = p.parent().map(|d| d.join("Local State"));
            let state = above.and_then(|s| read_local_state(&s).ok());
            let dir = p.file_name().map(|n| n.to_string_lossy().into_owned());
            Ok(Found {
                cookies,
                browser,
                profile_name: dir
                    .as_deref()
                    .and_then(|d| state.as_ref().and_then(|s| s.display_name(d))),
                profile: dir,
            })
        }
    }
}

fn in_user_data(
    data: &Path,
    wanted: Option<&str>,
    browser: Option<Browser>,
) -> Result<Found, ApiError> {
    let state_path = data.join("Local State");
    let state = if state_path.exists() {
        read_local_state(&state_path)?
    } else {
        LocalState::default()
    };
    let dir = state.pick(wanted).map_err(|why| {
        ApiError::not_found(format!("{}: {why}", data.display())).with_hint(profiles_hint(&state))
    })?;
    let folder = data.join(&dir);
    let cookies = in_profile(&folder).ok_or_else(|| {
        ApiError::not_found(format!(
            "profile {dir:?} has no cookie store ({})",
            folder.display()
        ))
        .with_hint(profiles_hint(&state))
    })?;
    Ok(Found {
        cookies,
        browser,
        profile_name: state.display_name(&dir),
        profile: Some(dir),
    })
}

fn profiles_hint(state: &LocalState) -> String {
    if state.profiles.is_empty() {
        return "name a profile folder (Default, Profile 1, …)".into();
    }
    format!(
        "its profiles: {}",
        state
            .profiles
            .iter()
            .map(|(d, n)| format!("{d} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The store of a profile folder: `Network/Cookies` (Chromium 96 and
/// later), else `Cookies`.
fn in_profile(folder: &Path) -> Option<PathBuf> {
    ["Network/Cookies", "Cookies"]
        .into_iter()
        .map(|f| folder.join(f))
        .find(|p| p.symlink_metadata().is_ok())
}

fn read_local_state(path: &Path) -> Result<LocalState, ApiError> {
    use std::os::unix::fs::MetadataExt;
    // Another user's Local State would choose which profile is read.
    let bytes = crate::artifacts::read_regular(
        path,
        LOCAL_STATE_BYTES,
        crate::artifacts::Symlinks::Refuse,
        |meta| {
            if Some(meta.uid()) == crate::config::own_uid() {
                Ok(())
            } else {
                Err(format!("owned by uid {}, not you", meta.uid()))
            }
        },
    )?;
    LocalState::parse(&bytes).map_err(|why| ApiError::invalid(format!("{}: {why}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = r#"{"profile": {"last_used": "Profile 2", "info_cache": {
        "Default": {"name": "Person 1"},
        "Profile 2": {"name": "Work"},
        "Profile 3": {"name": "work"},
        "../../etc": {"name": "Sneaky"}
    }}, "other": 1}"#;

    #[test]
    fn local_state_names_profiles_and_the_last_used() {
        let s = LocalState::parse(STATE.as_bytes()).expect("ok");
        assert_eq!(s.last_used.as_deref(), Some("Profile 2"));
        assert_eq!(
            s.profiles.len(),
            3,
            "a folder that climbs out is dropped: {s:?}"
        );
        assert_eq!(s.pick(None).expect("ok"), "Profile 2");
        assert_eq!(s.pick(Some("Default")).expect("ok"), "Default");
        assert_eq!(s.pick(Some("Person 1")).expect("ok"), "Default");
        assert_eq!(
            s.pick(Some("Work")).expect("ok"),
            "Profile 2",
            "exact name first"
        );
        assert_eq!(s.pick(Some("work")).expect("ok"), "Profile 3");
        assert_eq!(
            s.pick(Some("person 1")).expect("ok"),
            "Default",
            "then any case"
        );
        assert_eq!(
            s.pick(Some("Profile 9")).expect("ok"),
            "Profile 9",
            "a folder not listed"
        );
        assert!(s.pick(Some("../x")).is_err());
        assert!(s.pick(Some("..")).is_err());
    }

    #[test]
    fn local_state_falls_back_to_default() {
        let s = LocalState::parse(br#"{"profile": {"last_used": "../x"}}"#).expect("ok");
        assert_eq!(s.pick(None).expect("ok"), "Default");
        let s = LocalState::parse(b"{}").expect("ok");
        assert_eq!(s.pick(None).expect("ok"), "Default");
        assert!(LocalState::parse(b"not json").is_err());
        let twice = LocalState::parse(
            br#"{"profile": {"info_cache": {"A": {"name": "X"}, "B": {"name": "X"}}}}"#,
        )
        .expect("ok");
        assert!(
            twice
                .pick(Some("X"))
                .expect_err("an error")
                .contains("2 profiles")
        );
    }

    #[test]
    fn specs_name_a_browser_or_a_path() {
        assert_eq!(
            Spec::parse("chrome").expect("ok"),
            Spec::Browser {
                browser: Browser::Chrome,
                profile: None
            }
        );
        assert_eq!(
            Spec::parse("Brave:Profile 1").expect("ok"),
            Spec::Browser {
                browser: Browser::Brave,
                profile: Some("Profile 1".into())
            }
        );
        assert_eq!(
            Spec::parse("./chrome").expect("ok"),
            Spec::Path("./chrome".into())
        );
        assert_eq!(
            Spec::parse("/a:b/c").expect("ok"),
            Spec::Path("/a:b/c".into())
        );
        assert!(Spec::parse("firefox").is_err());
        assert!(Spec::parse("chrome:").is_err());
    }

    #[test]
    fn xdg_config_home_wins_when_absolute() {
        let env = Env {
            home: Some("/h".into()),
            xdg_config_home: Some("/x".into()),
        };
        assert_eq!(env.config_home(), Some(PathBuf::from("/x")));
        let env = Env {
            home: Some("/h".into()),
            xdg_config_home: Some("rel".into()),
        };
        assert_eq!(env.config_home(), Some(PathBuf::from("/h/.config")));
        assert_eq!(Env::default().config_home(), None);
    }

    #[test]
    fn discovery_finds_the_last_used_profiles_store() {
        let root = tempfile::tempdir().expect("ok");
        let data = root.path().join("chromium");
        std::fs::create_dir_all(data.join("Profile 2/Network")).expect("ok");
        std::fs::create_dir_all(data.join("Default")).expect("ok");
        std::fs::write(data.join("Local State"), STATE).expect("ok");
        std::fs::write(data.join("Profile 2/Network/Cookies"), b"").expect("ok");
        std::fs::write(data.join("Default/Cookies"), b"").expect("ok");
        let env = Env {
            home: None,
            xdg_config_home: Some(root.path().into()),
        };
        let found = find(&Spec::parse("chromium").expect("ok"), &env).expect("ok");
        assert_eq!(found.cookies, data.join("Profile 2/Network/Cookies"));
        assert_eq!(found.profile_name.as_deref(), Some("Work"));
        let found = find(&Spec::parse("chromium:Person 1").expect("ok"), &env).expect("ok");
        assert_eq!(found.cookies, data.join("Default/Cookies"));
        let missing =
            find(&Spec::parse("chromium:Profile 3").expect("ok"), &env).expect_err("an error");
        assert!(missing.message().contains("no cookie store"), "{missing:?}");
        assert!(find(&Spec::parse("chrome").expect("ok"), &env).is_err());
        // PATH: the user data dir, the profile, the file.
        let by_dir = find(&Spec::Path(data.clone()), &env).expect("ok");
        assert_eq!(by_dir.cookies, data.join("Profile 2/Network/Cookies"));
        assert_eq!(by_dir.browser, Some(Browser::Chromium));
        let by_profile = find(&Spec::Path(data.join("Default")), &env).expect("ok");
        assert_eq!(by_profile.cookies, data.join("Default/Cookies"));
        assert_eq!(by_profile.profile_name.as_deref(), Some("Person 1"));
        let by_file = find(&Spec::Path(data.join("Default/Cookies")), &env).expect("ok");
        assert_eq!(by_file.cookies, data.join("Default/Cookies"));
        assert!(find(&Spec::Path(root.path().join("nope")), &env).is_err());
        assert!(
            find(&Spec::Path(root.path().into()), &env).is_err(),
            "no profile"
        );
    }
}

//! Which browser each named session is bound to, persisted to
//! `sessions.json` (0600, atomic writes) so a restarted daemon re-attaches to
//! the browsers that still run instead of losing the agent's pages.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// The browser's `ws://…/devtools/browser/…` endpoint.
    pub endpoint: String,
    /// True for browsers webrig launched (and must close); false for `connect`.
    pub owned: bool,
    pub pid: Option<u32>,
    /// A throwaway profile to delete when the browser closes.
    pub temp_profile: Option<PathBuf>,
    pub headless: bool,
    pub executable: Option<PathBuf>,
    /// The session's browser context in a shared browser (`endpoint` is
    /// then the shared browser's keeper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `--allow`/`--block` rules the session was started with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<String>,
}

pub struct Bindings {
    path: Option<PathBuf>,
    map: Mutex<BTreeMap<String, Binding>>,
}

impl Bindings {
    /// Bindings kept in `path`, starting from what the file holds (an
    /// unreadable file counts as empty: it only ever speeds things up).
    pub fn load(path: PathBuf) -> Bindings {
        let map = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        Bindings {
            path: Some(path),
            map: Mutex::new(map),
        }
    }

    /// Bindings that are never written (unit tests).
    pub fn in_memory() -> Bindings {
        Bindings {
            path: None,
            map: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn all(&self) -> Vec<(String, Binding)> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Records (or, with None, forgets) a session's browser and saves.
    pub fn set(&self, session: &str, binding: Option<Binding>) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        match binding {
            Some(b) => map.insert(session.to_string(), b),
            None => map.remove(session),
        };
        if let Some(path) = &self.path {
            let text = serde_json::to_string_pretty(&*map).unwrap_or_default();
            if let Err(e) = crate::config::write_private(path, text.as_bytes()) {
                tracing::warn!(error = %e, "cannot save session bindings");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_survive_a_reload() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sessions.json");
        let b = Binding {
            endpoint: "ws://127.0.0.1:1/devtools/browser/x".into(),
            owned: true,
            pid: Some(42),
            temp_profile: None,
            headless: true,
            executable: None,
            context: Some("CTX".into()),
            ..Binding::default()
        };
        Bindings::load(path.clone()).set("work", Some(b.clone()));
        assert_eq!(
            Bindings::load(path.clone()).all(),
            vec![("work".to_string(), b)]
        );
        Bindings::load(path.clone()).set("work", None);
        assert!(Bindings::load(path).all().is_empty());
    }
}

//! The browser's events as a client should see them: its own sessions'
//! events only, target events only as it asked, and pages that go told
//! once whoever reports it.

use std::sync::Arc;

use serde_json::{Value, json};

use super::emulate::seen;
use super::{Client, Kind, Sess, lock, tab_of};
use crate::browser::cdp::Event;

impl Client {
    /// An event from the session's browser, as the client should see it.
    pub(super) fn event(self: &Arc<Self>, e: &Event) -> Vec<Value> {
        match &e.session_id {
            Some(s) => {
                let mut state = lock(&self.state);
                let Some(sess) = state.sessions.get(s).cloned() else {
                    return Vec::new();
                };
                match e.method.as_str() {
                    "Target.attachedToTarget" => {
                        if let Some(child) = e.params["sessionId"].as_str() {
                            state.sessions.insert(
                                child.to_string(),
                                Sess {
                                    page: sess.page.clone(),
                                    kind: Kind::Child,
                                },
                            );
                        }
                    }
                    "Target.detachedFromTarget" => {
                        if let Some(child) = e.params["sessionId"].as_str() {
                            state.sessions.remove(child);
                        }
                    }
                    _ => {}
                }
                drop(state);
                let mut frame = json!({"method": e.method, "params": e.params});
                // A page entry's own session speaks without a sessionId.
                if lock(&self.page_session).as_deref() != Some(s.as_str()) {
                    frame["sessionId"] = json!(s);
                }
                vec![frame]
            }
            None => self.browser_event(e),
        }
    }

    fn browser_event(self: &Arc<Self>, e: &Event) -> Vec<Value> {
        let p = &e.params;
        match e.method.as_str() {
            "Target.detachedFromTarget" => {
                let Some(s) = p["sessionId"].as_str() else {
                    return Vec::new();
                };
                let Some(sess) = lock(&self.state).sessions.remove(s) else {
                    return Vec::new();
                };
                vec![json!({"method": e.method, "params": {"sessionId": s, "targetId": sess.page}})]
            }
            "Target.targetCreated" | "Target.targetInfoChanged"
                if p["targetInfo"]["type"] == "page" =>
            {
                let info = self.dress(p["targetInfo"].clone());
                if e.method == "Target.targetCreated" {
                    // A page the client did not open (a popup, webrig's
                    // `tab new`): announced and attached as it asked.
                    let me = self.clone();
                    let created = info.clone();
                    tokio::spawn(async move {
                        me.announce(std::slice::from_ref(&created));
                        let _ = me.auto_attach_all(std::slice::from_ref(&created)).await;
                    });
                    return Vec::new();
                }
                let state = lock(&self.state);
                let Some(filter) = &state.discover else {
                    return Vec::new();
                };
                let id = info["targetId"].as_str().unwrap_or_default();
                if !state.announced.contains(id) {
                    return Vec::new();
                }
                seen(filter, &info)
                    .into_iter()
                    .map(|shown| json!({"method": e.method, "params": {"targetInfo": shown}}))
                    .collect()
            }
            "Target.targetDestroyed" | "Target.targetCrashed" => match p["targetId"].as_str() {
                Some(id) => self.gone(id, e.method == "Target.targetCrashed"),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The frames that tell the client page `id` is gone (or crashed):
    /// its sessions detach, and a discovering client hears of it. Told
    /// once, whoever reports it first (the browser, or a close the client
    /// asked for on a transport that reports none).
    pub(super) fn gone(&self, id: &str, crashed: bool) -> Vec<Value> {
        let mut state = lock(&self.state);
        let mut frames = Vec::new();
        if !crashed {
            let mine: Vec<(String, Sess)> = state
                .sessions
                .iter()
                .filter(|(_, s)| s.page == id && s.kind != Kind::Child)
                .map(|(k, s)| (k.clone(), s.clone()))
                .collect();
            for (s, sess) in mine {
                state.sessions.remove(&s);
                let target = if sess.kind == Kind::Tab {
                    tab_of(id)
                } else {
                    id.to_string()
                };
                frames.push(json!({"method": "Target.detachedFromTarget", "params": {"sessionId": s, "targetId": target}}));
            }
        }
        let method = if crashed {
            "Target.targetCrashed"
        } else {
            "Target.targetDestroyed"
        };
        if state.announced.contains(id)
            && let Some(filter) = &state.discover
        {
            let mut params = json!({"targetId": id});
            if crashed {
                params["status"] = json!("crashed");
                params["errorCode"] = json!(0);
            }
            if filter.admits("page") {
                frames.push(json!({"method": method, "params": params}));
            }
            if filter.admits("tab") && !crashed {
                frames.push(json!({"method": method, "params": {"targetId": tab_of(id)}}));
            }
        }
        if !crashed {
            state.announced.remove(id);
        }
        frames
    }
}

//! Who acts on a tab at a time, when webrig and a CDP client share it.
//!
//! One gate per page target: a webrig command on the tab holds it
//! exclusively for the whole command, and a CDP client's call on the tab
//! (or on a frame or worker inside it) holds it shared for that one call.
//! So a client's calls run side by side (a dialog answered while an
//! `evaluate` waits on it), a webrig command never sees a client's call in
//! the middle of it, and the two take turns in arrival order (tokio's
//! `RwLock` is fair: a waiting command holds back later calls).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

type Gate = Arc<RwLock<()>>;

/// The gates of one webrig session's page targets.
#[derive(Default)]
pub struct Gates {
    by_target: Mutex<HashMap<String, Gate>>,
}

impl Gates {
    fn gate(&self, target: &str) -> Gate {
        let mut map = self.by_target.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = map.get(target) {
            return g.clone();
        }
        // Gates nobody holds or waits on are dropped as new ones come:
        // the map stays as small as the tabs in use.
        map.retain(|_, g| Arc::strong_count(g) > 1);
        let g = Gate::default();
        map.insert(target.to_string(), g.clone());
        g
    }

    /// For a webrig command: the tab alone, until the guard drops.
    pub async fn exclusive(&self, target: &str) -> OwnedRwLockWriteGuard<()> {
        self.gate(target).write_owned().await
    }

    /// For one CDP client call on the tab.
    pub async fn shared(&self, target: &str) -> OwnedRwLockReadGuard<()> {
        self.gate(target).read_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;
    use std::pin::pin;

    /// Whether `f` is still waiting after one poll (no timing involved).
    fn waits<F: Future>(f: std::pin::Pin<&mut F>) -> bool {
        f.now_or_never().is_none()
    }

    #[tokio::test]
    async fn a_command_waits_for_calls_and_holds_back_later_ones() {
        let gates = Gates::default();
        let call = gates.shared("T").await;
        let also = gates.shared("T").await; // calls run side by side
        let mut command = pin!(gates.exclusive("T"));
        assert!(waits(command.as_mut()), "the command waits for the calls");
        // A call that comes after the waiting command waits behind it.
        let mut later = pin!(gates.shared("T"));
        assert!(waits(later.as_mut()), "a later call waits for the command");
        drop((call, also));
        let held = command.await;
        assert!(waits(later.as_mut()), "no call while the command runs");
        drop(held);
        drop(later.await);
        // Another tab is never held up.
        let _other = gates.exclusive("U").await;
        drop(gates.shared("T").await);
    }
}

//! The plugin host: manifests, grants, the wasmtime engine, the WIT
//! versions and their bindings ([`wit`]) and the host imports. Plugins are
//! WebAssembly components built against a released WIT version (`wit/`);
//! they get only what their manifest asked for and the user granted.
//!
//! [`PluginHost`] is what the daemon holds: the installed plugins, each
//! verified (sha256), compiled (or loaded from the cache) and linked once,
//! ready for a fresh instance per call.

pub mod adapter;
pub mod described;
pub mod engine;
pub mod first_party;
pub mod grants;
pub mod host;
pub mod manifest;
pub mod registry;
pub mod wit;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use engine::{Loaded, PluginError, Runtime};
use grants::Effective;
use host::{Access, BrowserBridge};
use registry::{Installed, Registry};

use crate::config::{Home, PluginSettings};

/// One installed plugin as the daemon sees it.
pub struct Plugin {
    pub installed: Installed,
    pub access: Access,
    /// Ready to call, or why it was refused (tampered, does not link, …).
    pub loaded: Result<Loaded, String>,
    /// What a provider says it is (`describe`), when it loaded.
    pub info: Option<wit::types::ProviderInfo>,
    /// What a workflow says it is and takes (`describe`), when it loaded.
    pub workflow: Option<described::WorkflowInfo>,
    /// What an adapter says it is and does (`describe`), when it loaded.
    pub adapter: Option<adapter::AdapterInfo>,
    /// The component file as it was when verified (see [`Plugin::ready`]).
    stamp: std::sync::Mutex<Option<FileStamp>>,
    /// Set once the file on disk is found changed: the plugin never runs again.
    tampered: std::sync::OnceLock<String>,
}

/// What changes when a file's content may have: size, inode, and the
/// modification and change times (ctime cannot be set back by a writer).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    ino: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl FileStamp {
    fn of(path: &std::path::Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            len: m.len(),
            ino: m.ino(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        })
    }
}

impl Plugin {
    pub fn id(&self) -> &str {
        &self.installed.manifest.id
    }

    /// Ready to call: it loaded, and its component file is still what was
    /// installed. Checked on every call and every `list`/`verify`: a cheap
    /// stat, and the sha256 again only when the file's stamp moved. A
    /// changed file refuses this call and every later one.
    pub fn ready(&self) -> Result<&Loaded, String> {
        if let Some(why) = self.tampered.get() {
            return Err(why.clone());
        }
        let loaded = self.loaded.as_ref().map_err(Clone::clone)?;
        self.check_intact()?;
        Ok(loaded)
    }

    fn check_intact(&self) -> Result<(), String> {
        let now = FileStamp::of(&self.installed.component_path());
        let mut stamp = self.stamp.lock().unwrap_or_else(|e| e.into_inner());
        if now.is_some() && *stamp == now {
            return Ok(());
        }
        match self.installed.component() {
            Ok(_) => {
                *stamp = now;
                Ok(())
            }
            Err(e) => {
                let why = e.to_string();
                let _ = self.tampered.set(why.clone());
                Err(why)
            }
        }
    }

    /// Its source (`web`, `community`, …), as `describe` said; "" if unknown.
    pub fn source(&self) -> &str {
        self.info.as_ref().map_or("", |i| i.source.as_str())
    }

    /// The operations `describe` listed (none when it did not load).
    pub fn operations(&self) -> &[String] {
        self.info.as_ref().map_or(&[], |i| i.operations.as_slice())
    }

    pub fn does(&self, operation: &str) -> bool {
        self.operations().iter().any(|o| o == operation)
    }
}

/// The daemon's plugins: the registry on disk, the engine, and every
/// installed plugin loaded.
pub struct PluginHost {
    runtime: Runtime,
    registry: Registry,
    home: Home,
    browser: Option<Arc<dyn BrowserBridge>>,
    plugins: RwLock<BTreeMap<String, Arc<Plugin>>>,
    /// `config.toml` as last read: its stamp and the `[plugins.*]` settings.
    config: std::sync::Mutex<(Option<FileStamp>, PluginSettings)>,
    /// Each plugin's log, by id (kept across reloads).
    logs: std::sync::Mutex<BTreeMap<String, Arc<host::LogRing>>>,
    /// Refuses a workflow whose declaration the host could not honour.
    check_workflow: CheckWorkflow,
}

/// Checks what a workflow declares when it loads (the workflows layer's
/// rule, handed down so this layer need not know it).
pub type CheckWorkflow = fn(&described::WorkflowInfo) -> Result<(), String>;

impl PluginHost {
    /// Opens the registry in `home` and loads every installed plugin; a
    /// plugin that fails to load is kept with its error (never fatal).
    /// `check_workflow` refuses a workflow whose declaration is bad.
    pub fn open(
        home: &Home,
        browser: Option<Arc<dyn BrowserBridge>>,
        check_workflow: CheckWorkflow,
    ) -> Result<PluginHost, PluginError> {
        let runtime = Runtime::new(Some(home.plugin_cache_dir()))?;
        let host = PluginHost {
            runtime,
            registry: Registry::new(home.plugins_dir()),
            home: home.clone(),
            browser,
            plugins: RwLock::default(),
            config: std::sync::Mutex::new((None, PluginSettings::default())),
            logs: std::sync::Mutex::default(),
            check_workflow,
        };
        host.reload_all();
        Ok(host)
    }

    /// Plugin `id`'s log ring (made on first use).
    pub fn logs_of(&self, id: &str) -> Arc<host::LogRing> {
        self.logs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(id.to_string())
            .or_default()
            .clone()
    }

    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    fn settings(&self) -> PluginSettings {
        crate::config::plugin_settings(&self.home).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "plugin settings unreadable; using none");
            PluginSettings::default()
        })
    }

    /// Whether `config.toml` changed since it was last read (one stat).
    pub fn config_changed(&self) -> bool {
        let now = FileStamp::of(&self.home.root().join("config.toml"));
        self.config.lock().unwrap_or_else(|e| e.into_inner()).0 != now
    }

    /// Applies an edited `config.toml`: reloads the plugins whose
    /// `[plugins.<id>]` settings changed; returns their ids.
    pub fn apply_config(&self) -> Vec<String> {
        let stamp = FileStamp::of(&self.home.root().join("config.toml"));
        let settings = self.settings();
        let before = {
            let mut config = self.config.lock().unwrap_or_else(|e| e.into_inner());
            let before = std::mem::replace(&mut config.1, settings.clone());
            config.0 = stamp;
            before
        };
        let changed: Vec<String> = self
            .all()
            .iter()
            .map(|p| p.id().to_string())
            .filter(|id| before.get(id) != settings.get(id))
            .collect();
        for id in &changed {
            tracing::info!(plugin = %id, "settings changed; reloading");
            self.reload(id);
        }
        changed
    }

    /// Reloads every plugin from disk (settings re-read).
    pub fn reload_all(&self) {
        let stamp = FileStamp::of(&self.home.root().join("config.toml"));
        let settings = self.settings();
        *self.config.lock().unwrap_or_else(|e| e.into_inner()) = (stamp, settings.clone());
        let mut map = BTreeMap::new();
        for (id, got) in self.registry.list() {
            match got {
                Ok(installed) => {
                    let p = self.load(installed, &settings);
                    map.insert(id, Arc::new(p));
                }
                Err(e) => tracing::warn!(plugin = %id, error = %e, "plugin not loaded"),
            }
        }
        *self.plugins.write().unwrap_or_else(|e| e.into_inner()) = map;
    }

    /// Reloads one plugin after an install, grant or removal.
    pub fn reload(&self, id: &str) {
        let settings = self.settings();
        // Load (guest code runs) before taking the lock.
        let fresh = self
            .registry
            .get(id)
            .ok()
            .map(|installed| Arc::new(self.load(installed, &settings)));
        let mut map = self.plugins.write().unwrap_or_else(|e| e.into_inner());
        match fresh {
            Some(p) => {
                map.insert(id.to_string(), p);
            }
            None => {
                map.remove(id);
            }
        }
    }

    fn load(&self, installed: Installed, settings: &PluginSettings) -> Plugin {
        let mine = settings
            .get(&installed.manifest.id)
            .cloned()
            .unwrap_or_default();
        let problems = Effective::setting_problems(
            &installed.manifest.id,
            &installed.manifest.capabilities,
            &mine,
        );
        let access = Access::new(
            Effective::with_settings(&installed.manifest.capabilities, &installed.grant, &mine),
            mine,
        )
        .for_plugin(&installed.manifest.id, self.browser.clone())
        .with_logs(self.logs_of(&installed.manifest.id));
        let stamp = FileStamp::of(&installed.component_path());
        let loaded = if problems.is_empty() {
            self.link(&installed)
        } else {
            Err(problems.join("; "))
        };
        let limits = describe_limits(&installed);
        let (mut info, mut workflow) = (None, None);
        let adapter = None;
        let loaded = match loaded {
            Ok(l @ Loaded::Provider(_)) => match self.runtime.describe(&l, &limits, &access) {
                Ok(i) => {
                    info = Some(i);
                    Ok(l)
                }
                Err(e) => {
                    tracing::warn!(plugin = %installed.manifest.id, error = %e, "describe failed");
                    Ok(l)
                }
            },
            Ok(l @ Loaded::Workflow(_)) => {
                let described = described::describe_workflow(&self.runtime, &l, &limits, &access)
                    .and_then(|w| (self.check_workflow)(&w).map(|()| w));
                match described {
                    Ok(w) if w.id == installed.manifest.id => {
                        workflow = Some(w);
                        Ok(l)
                    }
                    Ok(w) => Err(format!(
                        "describe() says it is {:?}, its manifest {:?}",
                        w.id, installed.manifest.id
                    )),
                    Err(e) => Err(format!("describe failed: {e}")),
                }
            }
            Ok(l @ Loaded::Adapter(_)) => Ok(l),
            Err(e) => {
                tracing::warn!(plugin = %installed.manifest.id, error = %e, "plugin refused");
                Err(e)
            }
        };
        let mut plugin = Plugin {
            installed,
            access,
            loaded,
            info,
            workflow,
            adapter,
            stamp: std::sync::Mutex::new(stamp),
            tampered: std::sync::OnceLock::new(),
        };
        if plugin.loaded.is_ok() && plugin.installed.manifest.kind == manifest::Kind::Adapter {
            match adapter::AdapterCall::new(&self.runtime, &plugin).describe() {
                Ok(i) if i.id == plugin.id() => plugin.adapter = Some(i),
                Ok(i) => {
                    plugin.loaded = Err(format!(
                        "describe() says it is {:?}, its manifest {:?}",
                        i.id,
                        plugin.id()
                    ))
                }
                Err(e) => plugin.loaded = Err(format!("describe failed: {e}")),
            }
        }
        plugin
    }

    fn link(&self, installed: &Installed) -> Result<Loaded, String> {
        // A kind no released version runs stops here.
        let version = installed.manifest.wit_version()?;
        let (bytes, sha) = installed.component().map_err(|e| e.to_string())?;
        self.runtime
            .load(&bytes, &sha, installed.manifest.kind, version)
            .map_err(|e| e.to_string())
    }

    pub fn get(&self, id: &str) -> Option<Arc<Plugin>> {
        self.plugins
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    pub fn all(&self) -> Vec<Arc<Plugin>> {
        self.plugins
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }
}

/// `describe` answers at load, before anything else can run: it gets at
/// most two seconds, so one slow plugin cannot hold up the others.
fn describe_limits(installed: &Installed) -> manifest::PluginLimits {
    let mut limits = installed.manifest.limits.clone();
    limits.time_ms = limits.time_ms.min(2000);
    limits
}

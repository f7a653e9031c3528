//! Installed plugins on disk. `<home>/plugins/<id>/` holds `plugin.toml`
//! (the manifest, with the component's sha256 recorded at install), the
//! component, and `grant.toml` (the user's decision). Installs are staged in
//! a temporary folder and renamed into place, so a failed install leaves
//! nothing behind; a component whose bytes changed after install is refused
//! at load.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::grants::Grant;
use super::manifest::Manifest;

pub const MANIFEST: &str = "plugin.toml";
pub const GRANT: &str = "grant.toml";
/// Present in a plugin's folder when `webrig setup` installed it from the
/// binary (holds the webrig version that did).
pub const FIRST_PARTY: &str = "first-party";

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{0}")]
    Invalid(String),
    #[error("no plugin {0:?} is installed")]
    NotFound(String),
    #[error("plugin {0:?} is already installed")]
    Exists(String),
    #[error("{0}")]
    Tampered(String),
    #[error("{0}")]
    Io(String),
}

/// One installed plugin.
#[derive(Debug, Clone)]
pub struct Installed {
    pub manifest: Manifest,
    pub dir: PathBuf,
    pub grant: Grant,
    /// Installed by `webrig setup` from the plugins this binary carries.
    pub first_party: bool,
}

impl Installed {
    pub fn component_path(&self) -> PathBuf {
        self.dir.join(&self.manifest.component)
    }

    /// The component's bytes, refused when they are not what was installed.
    pub fn component(&self) -> Result<(Vec<u8>, String), RegistryError> {
        let path = self.component_path();
        let bytes = std::fs::read(&path)
            .map_err(|e| RegistryError::Io(format!("{}: {e}", path.display())))?;
        let sha = sha256_hex(&bytes);
        match &self.manifest.sha256 {
            Some(want) if want.eq_ignore_ascii_case(&sha) => Ok((bytes, sha)),
            Some(want) => Err(RegistryError::Tampered(format!(
                "{}: the component changed since it was installed (sha256 {sha}, installed {want}); \
                 reinstall it with webrig plugin install",
                path.display()
            ))),
            None => Err(RegistryError::Tampered(format!(
                "{}: no sha256 was recorded at install; reinstall it",
                self.dir.join(MANIFEST).display()
            ))),
        }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What `plugin install` was pointed at, resolved to a manifest and a
/// component; or a first-party plugin the binary carries.
#[derive(Debug)]
pub struct Source {
    pub manifest: Manifest,
    /// The manifest's file (for an embedded plugin, where it came from in
    /// the source tree).
    pub manifest_path: PathBuf,
    pub component: Component,
    /// Carried by this binary (`webrig setup`), never set from a path.
    pub first_party: bool,
}

/// Where a component's bytes come from.
#[derive(Debug)]
pub enum Component {
    File(PathBuf),
    Embedded { name: String, bytes: Vec<u8> },
}

impl Component {
    fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>, RegistryError> {
        match self {
            Component::File(path) => std::fs::read(path)
                .map(Into::into)
                .map_err(|e| RegistryError::Io(format!("{}: {e}", path.display()))),
            Component::Embedded { bytes, .. } => Ok(bytes.as_slice().into()),
        }
    }
}

impl std::fmt::Display for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Component::File(path) => write!(f, "{}", path.display()),
            Component::Embedded { name, .. } => write!(f, "{name} (first-party, in this webrig)"),
        }
    }
}

impl Source {
    /// `path` is a plugin folder (plugin.toml + component), a plugin.toml, or
    /// a `.wasm` (with `manifest`, or a plugin.toml beside it).
    pub fn resolve(path: &Path, manifest: Option<&Path>) -> Result<Source, RegistryError> {
        let meta = std::fs::metadata(path)
            .map_err(|e| RegistryError::Invalid(format!("{}: {e}", path.display())))?;
        let (manifest_path, wasm) = if meta.is_dir() {
            (
                manifest.map_or_else(|| path.join(MANIFEST), Path::to_path_buf),
                None,
            )
        } else if path.extension().is_some_and(|e| e == "wasm") {
            let beside = path.parent().unwrap_or(Path::new(".")).join(MANIFEST);
            (
                manifest.map_or(beside, Path::to_path_buf),
                Some(path.to_path_buf()),
            )
        } else if path.extension().is_some_and(|e| e == "toml") {
            (path.to_path_buf(), None)
        } else {
            return Err(RegistryError::Invalid(format!(
                "{}: give a plugin folder, its plugin.toml, or a .wasm component",
                path.display()
            )));
        };
        let m =
            Manifest::load(&manifest_path).map_err(|e| RegistryError::Invalid(e.to_string()))?;
        let component = wasm.unwrap_or_else(|| {
            manifest_path
                .parent()
                .unwrap_or(Path::new("."))
                .join(&m.component)
        });
        if !component.is_file() {
            return Err(RegistryError::Invalid(format!(
                "{}: the component named by {} (field `component`) is not there",
                component.display(),
                manifest_path.display()
            )));
        }
        Ok(Source {
            manifest: m,
            manifest_path,
            component: Component::File(component),
            first_party: false,
        })
    }
}

/// The folder of installed plugins.
#[derive(Debug, Clone)]
pub struct Registry {
    dir: PathBuf,
}

impl Registry {
    pub fn new(dir: PathBuf) -> Registry {
        Registry { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn plugin_dir(&self, id: &str) -> Result<PathBuf, RegistryError> {
        let ok = !id.is_empty()
            && id.len() <= 56
            && id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !ok {
            return Err(RegistryError::Invalid(format!(
                "{id:?} is not a plugin id (a-z, 0-9, -)"
            )));
        }
        Ok(self.dir.join(id))
    }

    /// Every installed plugin, by id; a broken one as its error.
    pub fn list(&self) -> Vec<(String, Result<Installed, RegistryError>)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        ids.sort();
        ids.into_iter()
            .map(|id| {
                let got = self.get(&id);
                (id, got)
            })
            .collect()
    }

    pub fn get(&self, id: &str) -> Result<Installed, RegistryError> {
        let dir = self.plugin_dir(id)?;
        let manifest_path = dir.join(MANIFEST);
        if !manifest_path.is_file() {
            return Err(RegistryError::NotFound(id.to_string()));
        }
        let manifest =
            Manifest::load(&manifest_path).map_err(|e| RegistryError::Invalid(e.to_string()))?;
        if manifest.id != id {
            return Err(RegistryError::Invalid(format!(
                "{}: field `id` is {:?}, but the plugin is installed as {id:?}",
                manifest_path.display(),
                manifest.id
            )));
        }
        let grant_path = dir.join(GRANT);
        let grant = match std::fs::read_to_string(&grant_path) {
            Ok(text) => toml::from_str(&text).map_err(|e| {
                RegistryError::Invalid(format!(
                    "{}: {}",
                    grant_path.display(),
                    e.to_string().trim()
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Grant::default(),
            Err(e) => return Err(RegistryError::Io(format!("{}: {e}", grant_path.display()))),
        };
        let first_party = dir.join(FIRST_PARTY).is_file();
        Ok(Installed {
            manifest,
            dir,
            grant,
            first_party,
        })
    }

    /// Copies a plugin in, recording its sha256. A manifest that already
    /// carries a sha256 must match the component.
    /// `check` sees the component's bytes and sha256 after the integrity
    /// checks and before anything installed is touched (the caller compiles
    /// and links it there); its error installs nothing.
    pub fn install(
        &self,
        source: &Source,
        grant: Grant,
        replace: bool,
        check: impl FnOnce(&[u8], &str) -> Result<(), String>,
    ) -> Result<Installed, RegistryError> {
        let id = source.manifest.id.clone();
        let dest = self.plugin_dir(&id)?;
        if dest.exists() && !replace {
            return Err(RegistryError::Exists(id));
        }
        let bytes = source.component.read()?;
        if !bytes.starts_with(b"\0asm") {
            return Err(RegistryError::Invalid(format!(
                "{}: not a WebAssembly file",
                source.component
            )));
        }
        let sha = sha256_hex(&bytes);
        if let Some(want) = &source.manifest.sha256
            && !want.eq_ignore_ascii_case(&sha)
        {
            return Err(RegistryError::Tampered(format!(
                "{}: sha256 is {sha}, but {} (field `sha256`) says {want}",
                source.component,
                source.manifest_path.display()
            )));
        }
        check(&bytes, &sha)
            .map_err(|e| RegistryError::Invalid(format!("{id} was not installed: {e}")))?;
        let mut manifest = source.manifest.clone();
        manifest.sha256 = Some(sha);
        let io = |what: &Path, e: &dyn std::fmt::Display| {
            RegistryError::Io(format!("{}: {e}", what.display()))
        };
        crate::config::ensure_private_dir(&self.dir).map_err(|e| io(&self.dir, &e))?;
        // 0700 like every plugin folder (tempfile's mode follows the umask).
        let stage = tempfile::Builder::new()
            .prefix(".install-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&self.dir)
            .map_err(|e| io(&self.dir, &e))?;
        let text = toml::to_string(&manifest).map_err(|e| io(&source.manifest_path, &e))?;
        let write = |name: &str, data: &[u8]| {
            let path = stage.path().join(name);
            crate::config::write_private(&path, data).map_err(|e| io(&path, &e))
        };
        write(&manifest.component, &bytes)?;
        write(MANIFEST, text.as_bytes())?;
        let grant_text = toml::to_string(&grant).map_err(|e| io(&dest, &e))?;
        write(GRANT, grant_text.as_bytes())?;
        if source.first_party {
            write(FIRST_PARTY, crate::VERSION.as_bytes())?;
        }
        let stage = stage.keep();
        let old = self.dir.join(format!(".old-{id}-{}", std::process::id()));
        let had_old = dest.exists();
        if had_old && let Err(e) = std::fs::rename(&dest, &old) {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(io(&dest, &e));
        }
        if let Err(e) = std::fs::rename(&stage, &dest) {
            // Put the previous version back; drop the staged copy.
            if had_old {
                let _ = std::fs::rename(&old, &dest);
            }
            let _ = std::fs::remove_dir_all(&stage);
            return Err(io(&dest, &e));
        }
        if had_old {
            let _ = std::fs::remove_dir_all(&old);
        }
        self.get(&id)
    }

    pub fn remove(&self, id: &str) -> Result<(), RegistryError> {
        let dir = self.plugin_dir(id)?;
        if !dir.join(MANIFEST).is_file() {
            return Err(RegistryError::NotFound(id.to_string()));
        }
        std::fs::remove_dir_all(&dir)
            .map_err(|e| RegistryError::Io(format!("{}: {e}", dir.display())))
    }

    pub fn set_grant(&self, id: &str, grant: &Grant) -> Result<Installed, RegistryError> {
        let installed = self.get(id)?;
        let path = installed.dir.join(GRANT);
        let text = toml::to_string(grant)
            .map_err(|e| RegistryError::Io(format!("{}: {e}", path.display())))?;
        crate::config::write_private(&path, text.as_bytes())
            .map_err(|e| RegistryError::Io(format!("{}: {e}", path.display())))?;
        self.get(id)
    }
}

//! The first-party plugins this binary carries: the providers, workflows
//! and framework adapters under `plugins/`, deflated into the binary by `host/build.rs` with their
//! manifests. `webrig setup` installs them as [`Source`]s through the same
//! registry path as any plugin (manifest checks, sha256 recorded, compiled
//! and described before anything installed is touched, the user's grant).
//!
//! Embedded rather than a data folder beside the binary: one file to
//! install, copy or upgrade, and the bytes a `setup` installs are the ones
//! the running binary was built with (no folder another user or a stale
//! install could swap). The eight cost 0.97 MB deflated (2.48 MB raw).

use std::path::Path;

use super::manifest::Manifest;
use super::registry::{Component, RegistryError, Source};

/// One embedded plugin: its manifest text and deflated component.
#[derive(Debug)]
pub struct Embedded {
    /// The manifest's `id` (read again, whole, by [`Embedded::manifest`]).
    pub id: &'static str,
    /// plugin.toml as committed.
    pub manifest: &'static str,
    /// Where the manifest came from in the source tree (for messages).
    pub source: &'static str,
    /// The component's file name (the manifest's `component`).
    pub component: &'static str,
    /// The component's size and sha256, inflated.
    pub size: usize,
    pub sha256: &'static str,
    pub deflated: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/first_party.rs"));

/// Every first-party plugin this binary carries (none when it was built
/// before the plugins were).
pub fn all() -> &'static [Embedded] {
    EMBEDDED
}

/// The embedded plugin with this id.
pub fn find(id: &str) -> Option<&'static Embedded> {
    all().iter().find(|e| e.id == id)
}

/// Why a build carries none, and what to do.
pub const NOT_BUILT: &str = "this webrig was built without its first-party plugins";
pub const NOT_BUILT_HINT: &str = "install with `cargo xtask install` (it builds the plugins, then \
     webrig with them inside), or install plugins one by one with `webrig plugin install`";

impl Embedded {
    pub fn manifest(&self) -> Result<Manifest, RegistryError> {
        Manifest::parse(self.manifest, Path::new(self.source))
            .map_err(|e| RegistryError::Invalid(e.to_string()))
    }

    /// The component's bytes, inflated and checked against the size
    /// recorded at build time.
    pub fn bytes(&self) -> Result<Vec<u8>, RegistryError> {
        let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(self.deflated, self.size)
            .map_err(|e| RegistryError::Invalid(format!("{}: {e:?}", self.component)))?;
        if bytes.len() != self.size || super::registry::sha256_hex(&bytes) != self.sha256 {
            return Err(RegistryError::Tampered(format!(
                "{}: inflated to other bytes than were built in",
                self.component
            )));
        }
        Ok(bytes)
    }

    /// What `setup` installs: the manifest and the bytes, marked first-party.
    pub fn source(&self) -> Result<Source, RegistryError> {
        Ok(Source {
            manifest: self.manifest()?,
            manifest_path: Path::new(self.source).to_path_buf(),
            component: Component::Embedded {
                name: self.component.to_string(),
                bytes: self.bytes()?,
            },
            first_party: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_plugin_inflates_to_a_component_its_manifest_names() {
        // A build without the plugins embeds none; `cargo xtask test` builds
        // them first, so this runs over all thirteen there.
        for e in all() {
            let source = e.source().expect("embedded plugin reads back");
            assert_eq!(source.manifest.component, e.component);
            assert_eq!(source.manifest.id, e.id);
            let Component::Embedded { bytes, .. } = &source.component else {
                panic!("an embedded source");
            };
            assert!(bytes.starts_with(b"\0asm"), "{}", e.component);
            assert!(e.deflated.len() < e.size, "{} is compressed", e.component);
        }
        if std::env::var_os("WEBRIG_EXPECT_FIRST_PARTY").is_some() {
            assert_eq!(
                all().len(),
                13,
                "the four providers, four workflows and five adapters"
            );
        }
    }
}

//! Chromium's cookie encryption on Linux: `v10` values under a key from the
//! fixed password `peanuts`, `v11` under one from the password the Secret
//! Service keyring keeps for the browser ("Chrome Safe Storage"). Pure
//! except [`keyring_password`], which asks `secret-tool`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aes::cipher::{BlockModeDecrypt, KeyIvInit, block_padding::Pkcs7};
use sha2::Digest;

/// A 128-bit AES key.
pub type Key = [u8; 16];

/// The key Chromium derives from `password`: PBKDF2-HMAC-SHA1, salt
/// `saltysalt`, one iteration, 16 bytes.
pub fn key(password: &[u8]) -> Key {
    pbkdf2::pbkdf2_hmac_array::<sha1::Sha1, 16>(password, b"saltysalt", 1)
}

/// The `v10` key (no keyring: `--password-store=basic`, or none found).
pub fn v10_key() -> Key {
    key(b"peanuts")
}

/// Why a value could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// `v11` and no keyring password (or none that opens it).
    NoKey,
    /// A prefix other than `v10`/`v11` (another OS's scheme, or garbage).
    UnknownScheme,
    /// The ciphertext does not decrypt (bad length or padding).
    Garbled,
    /// The SHA-256 of the cookie's domain that newer stores put before the
    /// value is missing or names another domain.
    Integrity,
    /// Not UTF-8 once decrypted.
    NotText,
}

/// The keys a store's values may be under.
#[derive(Default)]
pub struct Keys {
    pub v10: Option<Key>,
    /// Tried in order: the keyring's password, then the empty one Chromium
    /// falls back to when the keyring answers with nothing.
    pub v11: Vec<Key>,
}

/// Decrypts `blob` (an `encrypted_value`) of a cookie of `host_key`.
/// `domain_hash`: the store puts SHA-256(host_key) before each value
/// (cookie DB version 24 and later); it is checked and stripped.
pub fn decrypt(
    blob: &[u8],
    keys: &Keys,
    host_key: &str,
    domain_hash: bool,
) -> Result<String, Failure> {
    let (candidates, body): (Vec<&Key>, &[u8]) = match blob.split_at_checked(3) {
        Some((b"v10", body)) => (keys.v10.iter().collect(), body),
        Some((b"v11", body)) => (keys.v11.iter().collect(), body),
        _ => return Err(Failure::UnknownScheme),
    };
    if candidates.is_empty() {
        return Err(Failure::NoKey);
    }
    let mut last = Failure::NoKey;
    for key in candidates {
        match open(body, key, host_key, domain_hash) {
            Ok(v) => return Ok(v),
            Err(f) => last = f,
        }
    }
    // A wrong key and a garbled value look alike to AES-CBC (bad padding,
    // or a hash that does not match). A v11 value that no key opens most
    // likely wants a keyring password webrig did not get (no keyring
    // answered, and the empty fallback was tried alone): say so.
    Err(if blob.starts_with(b"v11") {
        Failure::NoKey
    } else {
        last
    })
}

fn open(body: &[u8], key: &Key, host_key: &str, domain_hash: bool) -> Result<String, Failure> {
    if body.is_empty() || !body.len().is_multiple_of(16) {
        return Err(Failure::Garbled);
    }
    let mut buf = body.to_vec();
    let plain = cbc::Decryptor::<aes::Aes128>::new(key.into(), &[b' '; 16].into())
        .decrypt_padded::<Pkcs7>(&mut buf)
        .map_err(|_| Failure::Garbled)?;
    let plain = if domain_hash {
        let (hash, rest) = plain.split_at_checked(32).ok_or(Failure::Integrity)?;
        if hash != sha2::Sha256::digest(host_key.as_bytes()).as_slice() {
            return Err(Failure::Integrity);
        }
        rest
    } else {
        plain
    };
    String::from_utf8(plain.to_vec()).map_err(|_| Failure::NotText)
}

/// How long `secret-tool` may take (a locked keyring may prompt: no one
/// answers a daemon's prompt).
const KEYRING_PATIENCE: Duration = Duration::from_secs(3);
/// Largest password read from it.
const PASSWORD_BYTES: usize = 4096;

/// The browser's "Safe Storage" password from the Secret Service keyring
/// (`secret-tool lookup application APP`), when `secret-tool` exists and
/// answers in time; None otherwise. The password is never logged.
pub fn keyring_password(application: &str) -> Option<Vec<u8>> {
    let tool = [
        "/usr/bin/secret-tool",
        "/usr/local/bin/secret-tool",
        "/bin/secret-tool",
    ]
    .into_iter()
    .map(Path::new)
    .find(|p| p.is_file())?;
    let mut child = Command::new(tool)
        .args(["lookup", "application", application])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if started.elapsed() > KEYRING_PATIENCE => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::info!(application, "the keyring did not answer in time");
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    use std::io::Read;
    let mut out = Vec::new();
    child
        .stdout
        .take()?
        .take(PASSWORD_BYTES as u64)
        .read_to_end(&mut out)
        .ok()?;
    while out.last() == Some(&b'\n') {
        out.pop();
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use aes::cipher::BlockModeEncrypt;

    /// Encrypts `value` the way Chromium does (what the tests feed back).
    pub fn seal(
        prefix: &[u8; 3],
        password: &[u8],
        host_key: &str,
        value: &str,
        hash: bool,
    ) -> Vec<u8> {
        let mut plain = Vec::new();
        if hash {
            plain.extend_from_slice(&sha2::Sha256::digest(host_key.as_bytes()));
        }
        plain.extend_from_slice(value.as_bytes());
        let k = key(password);
        let ct = cbc::Encryptor::<aes::Aes128>::new((&k).into(), &[b' '; 16].into())
            .encrypt_padded_vec::<Pkcs7>(&plain);
        [prefix.as_slice(), &ct].concat()
    }

    fn v10_only() -> Keys {
        Keys {
            v10: Some(v10_key()),
            v11: Vec::new(),
        }
    }

    #[test]
    fn the_peanuts_key_is_chromiums() {
        // The v10 key every Linux Chromium without a keyring uses.
        assert_eq!(
            v10_key(),
            [
                0xfd, 0x62, 0x1f, 0xe5, 0xa2, 0xb4, 0x02, 0x53, 0x9d, 0xfa, 0x14, 0x7c, 0xa9, 0x27,
                0x27, 0x78
            ]
        );
    }

    #[test]
    fn v10_values_decrypt_with_and_without_the_domain_hash() {
        let old = seal(b"v10", b"peanuts", ".example.com", "hello", false);
        assert_eq!(
            decrypt(&old, &v10_only(), ".example.com", false),
            Ok("hello".into())
        );
        let new = seal(b"v10", b"peanuts", ".example.com", "hello", true);
        assert_eq!(
            decrypt(&new, &v10_only(), ".example.com", true),
            Ok("hello".into())
        );
        // The hash names the domain: a value moved to another row is refused.
        assert_eq!(
            decrypt(&new, &v10_only(), ".evil.example", true),
            Err(Failure::Integrity)
        );
        let empty = seal(b"v10", b"peanuts", "a.test", "", true);
        assert_eq!(
            decrypt(&empty, &v10_only(), "a.test", true),
            Ok(String::new())
        );
        let short = seal(b"v10", b"peanuts", "a.test", "x", false);
        assert_eq!(
            decrypt(&short, &v10_only(), "a.test", true),
            Err(Failure::Integrity),
            "a value shorter than the hash"
        );
    }

    #[test]
    fn v11_needs_the_keyrings_password() {
        let blob = seal(b"v11", b"s3cret-from-keyring", "x.test", "token", true);
        assert_eq!(
            decrypt(&blob, &v10_only(), "x.test", true),
            Err(Failure::NoKey)
        );
        let keys = Keys {
            v10: Some(v10_key()),
            v11: vec![key(b"wrong"), key(b"s3cret-from-keyring"), key(b"")],
        };
        assert_eq!(decrypt(&blob, &keys, "x.test", true), Ok("token".into()));
        let wrong = Keys {
            v10: None,
            v11: vec![key(b"wrong"), key(b"")],
        };
        assert_eq!(decrypt(&blob, &wrong, "x.test", true), Err(Failure::NoKey));
        let fallback_only = Keys {
            v10: Some(v10_key()),
            v11: vec![key(b"")],
        };
        assert_eq!(
            decrypt(&blob, &fallback_only, "x.test", true),
            Err(Failure::NoKey),
            "no keyring answered: the empty password alone was tried"
        );
        let empty_pw = seal(b"v11", b"", "x.test", "t", true);
        assert_eq!(decrypt(&empty_pw, &keys, "x.test", true), Ok("t".into()));
    }

    #[test]
    fn garbage_is_refused_not_panicked_on() {
        let keys = v10_only();
        assert_eq!(decrypt(b"", &keys, "a", false), Err(Failure::UnknownScheme));
        assert_eq!(
            decrypt(b"v1", &keys, "a", false),
            Err(Failure::UnknownScheme)
        );
        assert_eq!(
            decrypt(b"v20abc", &keys, "a", false),
            Err(Failure::UnknownScheme)
        );
        assert_eq!(decrypt(b"v10", &keys, "a", false), Err(Failure::Garbled));
        assert_eq!(decrypt(b"v10abc", &keys, "a", false), Err(Failure::Garbled));
        assert!(
            decrypt(
                &[
                    b'v', b'1', b'0', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
                ],
                &keys,
                "a",
                false
            )
            .is_err()
        );
        let mut flipped = seal(b"v10", b"peanuts", "a", "hello world", false);
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        assert!(decrypt(&flipped, &keys, "a", false).is_err());
        let latin = {
            let k = v10_key();
            let ct = cbc::Encryptor::<aes::Aes128>::new((&k).into(), &[b' '; 16].into())
                .encrypt_padded_vec::<Pkcs7>(&[0xff, 0xfe]);
            [b"v10".as_slice(), &ct].concat()
        };
        assert_eq!(decrypt(&latin, &keys, "a", false), Err(Failure::NotText));
    }
}

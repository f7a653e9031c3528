//! Where webrig keeps its state, and the daemon's token.
//!
//! Owns directory layout (`WEBRIG_HOME` moves everything), permissions (0700 dirs,
//! 0600 files written through a temp file and renamed) and the port choice. It must
//! not know about HTTP or browsers.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub mod pool;
pub mod trust;

pub const DEFAULT_PORT: u16 = 9377;

/// Every limit the daemon enforces, in one table (`[limits]` in
/// `config.toml`; documented in docs/SECURITY.md). Unknown keys and bad
/// values are errors that name the key: a typo must not silently lift a limit.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest HTTP request body, bytes.
    pub body_bytes: usize,
    /// Commands waiting behind the running one, per session; more → `busy`.
    pub waiting_per_session: usize,
    pub sessions: usize,
    pub tabs_per_session: usize,
    /// Tabs of one session whose commands may run at the same time.
    pub parallel_tabs_per_session: usize,
    /// A tab's lease ends when its client has been idle this long.
    pub lease_idle_s: u64,
    pub timeout_default_ms: u64,
    pub timeout_max_ms: u64,
    /// Pairing code lifetime.
    pub pair_code_ttl_s: u64,
    /// Unused since wrong tries stopped voiding a code (a stranger could
    /// void every code; see `daemon::guard::Pairing`); kept so that config
    /// files naming it still load.
    pub pair_attempts: u32,
    /// Pairing tries and failed authentications per minute, per caller
    /// class (the owner's socket, loopback TCP, extension origins), before `429`.
    pub unauthenticated_per_minute: u32,
    /// Snapshot caps.
    pub snapshot_nodes: usize,
    pub snapshot_chars: usize,
    /// Largest result of one command (its JSON, bytes); more → `limit_exceeded`.
    pub result_bytes: usize,
    /// Open connections per door (loopback TCP, the CLI's Unix socket); a
    /// full door closes its oldest idle connection. Default: a quarter of
    /// the open-files limit, at most 1024.
    pub connections: usize,
    /// Time a client has to send a whole request header, ms.
    pub header_timeout_ms: u64,
    /// A connection with no request running is closed after this, ms.
    pub idle_timeout_ms: u64,
    /// Time a client has to send a whole request body once its header is
    /// in, ms; a connection still receiving one may also be closed to make
    /// room for a newcomer (a promised body that never comes holds nothing).
    pub body_timeout_ms: u64,
    /// What one session's browser is expected to cost, MiB: the default
    /// `sessions` is what the machine's memory holds at this price.
    pub session_memory_mib: u64,
    /// What one session costs as a context of the shared browser, MiB (its
    /// renderer): a context is not opened with less than this plus
    /// `min_free_memory_mib` available, and the default `sessions` is what
    /// memory holds at this price.
    pub context_memory_mib: u64,
    /// A browser is not started when less than `session_memory_mib` plus
    /// this much memory is available, MiB (refused before the machine swaps).
    pub min_free_memory_mib: u64,
    /// Downloads one session may keep (files, bytes): past them a download
    /// is refused, or cancelled and its partial file removed.
    pub download_files_per_session: usize,
    pub download_bytes_per_session: u64,
    /// Downloads of all sessions together, as found on disk under the
    /// home's `downloads` folder (what earlier sessions kept counts too).
    pub download_files_total: usize,
    pub download_bytes_total: u64,
    /// One `@macro` call: the memory it may hold, MiB, and the `print`/`debug`
    /// lines and bytes it may log (past them: one note, the rest dropped).
    pub macro_memory_mib: usize,
    pub macro_print_lines: u32,
    pub macro_print_bytes: usize,
    /// Automatic attempts at a challenge a navigation meets (a wait for a
    /// self-clearing check, a reload honouring `Retry-After`) before the
    /// command yields to a person with `needs_human`; 0: yield at once.
    pub challenge_attempts: u32,
    /// `[devtools]`: what the tabs' console and network capture keeps.
    #[serde(skip)]
    pub devtools: Devtools,
}

/// `[devtools]` in config.toml: the capture of console, errors and network.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Devtools {
    /// Record console, errors and network of every tab (off: those
    /// commands answer empty, and pages run without the extra events).
    pub capture: bool,
    /// Entries kept per tab.
    pub console_entries: usize,
    pub error_entries: usize,
    pub network_entries: usize,
    /// Response bodies the browser keeps per tab for `network body`, bytes
    /// (its own buffer; the oldest go first).
    pub network_body_bytes: usize,
    /// When a page may download: `agent` (default: only for an agent
    /// action that asked for one, `click --download`), `always`, `never`.
    pub downloads: DownloadPolicy,
}

/// `[devtools] downloads`: which downloads a session's browser accepts.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DownloadPolicy {
    /// Only a download an agent action asked for (`click --download`): a
    /// page that starts downloads on its own gets them refused.
    #[default]
    Agent,
    /// Any download, within the `[limits]` download budgets.
    Always,
    /// None.
    Never,
}

impl Default for Devtools {
    fn default() -> Self {
        Devtools {
            capture: true,
            console_entries: 500,
            error_entries: 500,
            network_entries: 500,
            network_body_bytes: 8 << 20,
            downloads: DownloadPolicy::Agent,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 2 << 20,
            waiting_per_session: 32,
            sessions: sessions_for(mem_total_mib(), CONTEXT_MEMORY_MIB),
            tabs_per_session: 32,
            parallel_tabs_per_session: 4,
            lease_idle_s: 30,
            timeout_default_ms: 30_000,
            timeout_max_ms: 120_000,
            pair_code_ttl_s: 300,
            pair_attempts: 5,
            unauthenticated_per_minute: 60,
            snapshot_nodes: 4000,
            snapshot_chars: 192_000,
            result_bytes: 8 << 20,
            connections: default_connections(),
            header_timeout_ms: 5_000,
            idle_timeout_ms: 30_000,
            body_timeout_ms: 10_000,
            session_memory_mib: SESSION_MEMORY_MIB,
            context_memory_mib: CONTEXT_MEMORY_MIB,
            min_free_memory_mib: 512,
            download_files_per_session: 32,
            download_bytes_per_session: 256 << 20,
            download_files_total: 256,
            download_bytes_total: 1 << 30,
            macro_memory_mib: 32,
            macro_print_lines: 50,
            macro_print_bytes: 16 << 10,
            challenge_attempts: 2,
            devtools: Devtools::default(),
        }
    }
}

/// A session's browser costs 150–200 MB (measured: a headless Chromium with
/// one tab of a typical page).
const SESSION_MEMORY_MIB: u64 = 200;

/// A session as a context of the shared browser costs its renderer: 40–60
/// MB with one page (docs/BENCHMARKS.md, "Density").
const CONTEXT_MEMORY_MIB: u64 = 64;

/// Sessions the machine's memory holds: all of it but 1 GiB for the system
/// and the daemon, at `per_session` MiB each; 1 to 128.
pub fn sessions_for(total_mib: Option<u64>, per_session: u64) -> usize {
    let Some(total) = total_mib else { return 16 };
    let fit = total.saturating_sub(1024) / per_session.max(1);
    fit.clamp(1, 128) as usize
}

/// A field of `/proc/meminfo`, in MiB.
fn meminfo_mib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn mem_total_mib() -> Option<u64> {
    meminfo_mib("MemTotal:")
}

/// Memory available now without swapping, MiB (None where unknown).
pub fn mem_available_mib() -> Option<u64> {
    meminfo_mib("MemAvailable:")
}

/// A quarter of the soft open-files limit, 64 to 1024: a flood of
/// connections must leave descriptors for browsers, plugins and files.
fn default_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        })
        .unwrap_or(1024);
    (soft / 4).clamp(64, 1024)
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigFile {
    limits: Limits,
    /// `[plugins.<id>]`: settings handed to that plugin through its `config`
    /// import (e.g. a provider's `base_url`).
    plugins: PluginSettings,
    access: Access,
    devtools: Devtools,
    /// `[[pool]]`: remote browser pools (see [`pool`]).
    pool: Vec<pool::PoolEntry>,
    policy: PolicyConfig,
    session: SessionDefaults,
}

/// `[session]`: what `launch` does when its flags do not say.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionDefaults {
    /// `--cookies-from` for a local launch from the CLI (a browser name
    /// or an absolute path); never for a remote pool or the HTTP API.
    pub cookies_from: Option<String>,
    /// `--cookies-policy` when the flag is not given.
    pub cookies_policy: Option<CookiesPolicy>,
}

/// What `launch` does with `--cookies-from`.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum CookiesPolicy {
    /// Import nothing.
    Off,
    /// Import the cookies that pass the checks (a store that cannot be
    /// read is still an error).
    #[default]
    Auto,
    /// Like auto, and fail with `auth_required` when none passes.
    Required,
}

/// `[policy]`: the domain policy every session's pages are held to, and
/// `[policy.sessions.NAME]` one session's on top (see `browser::policy`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    pub allow: Vec<String>,
    pub block: Vec<String>,
    pub sessions: std::collections::BTreeMap<String, PolicyRules>,
}

/// Allowed and blocked host patterns (`example.com`, `*.example.org`,
/// with an optional `:port`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyRules {
    pub allow: Vec<String>,
    pub block: Vec<String>,
}

/// `[access]`: what the daemon lets a token holder on the HTTP API do beyond
/// the browser. Requests through the Unix socket come from this user's own
/// processes (the CLI), which can touch these files anyway; a token holder
/// on loopback TCP may be anything the token leaked to (a paired extension,
/// an agent's HTTP client), so by default it cannot name local paths.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Access {
    /// Let HTTP API callers use local files: `file://` URLs, `upload`,
    /// screenshot/pdf `--path`, `launch --profile/--browser-path` (runs an
    /// executable), `plugin install` paths.
    pub http_local_files: bool,
    /// `[policy]`, read with it.
    #[serde(skip)]
    pub policy: PolicyConfig,
    /// `[session]`, read with it.
    #[serde(skip)]
    pub session: SessionDefaults,
}

impl Access {
    /// Reads `[access]` from `config.toml` in `home` (defaults when absent).
    pub fn load(home: &Home) -> anyhow::Result<Access> {
        let (_, file) = read_config(home)?;
        let mut access = file.access;
        // Checked by the layers that read them (`rig::check_config`).
        access.policy = file.policy;
        access.session = file.session;
        Ok(access)
    }
}

/// Per-plugin settings from `config.toml`, by plugin id.
pub type PluginSettings =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

/// The most `config.toml` may hold.
const CONFIG_BYTES: u64 = 1 << 20;

fn read_config(home: &Home) -> anyhow::Result<(PathBuf, ConfigFile)> {
    let path = home.root().join("config.toml");
    // Read only a file of ours that no one else may write: it names
    // executables, plugin hosts and limits.
    let Some(bytes) = trust::read_owned(&path, false, CONFIG_BYTES)? else {
        return Ok((path, ConfigFile::default()));
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?;
    let file: ConfigFile = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim()))?;
    pool::validate(&file.pool).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok((path, file))
}

/// Reads `[plugins.*]` from `config.toml` in `home` (empty when absent).
pub fn plugin_settings(home: &Home) -> anyhow::Result<PluginSettings> {
    Ok(read_config(home)?.1.plugins)
}

impl Limits {
    /// Reads `[limits]` from `config.toml` in `home` (defaults when absent).
    pub fn load(home: &Home) -> anyhow::Result<Limits> {
        let (path, file) = read_config(home)?;
        let mut l = file.limits;
        l.devtools = file.devtools;
        let positive = [
            ("limits.body_bytes", l.body_bytes as u64),
            ("limits.sessions", l.sessions as u64),
            ("limits.tabs_per_session", l.tabs_per_session as u64),
            (
                "parallel_tabs_per_session",
                l.parallel_tabs_per_session as u64,
            ),
            ("limits.timeout_default_ms", l.timeout_default_ms),
            ("limits.timeout_max_ms", l.timeout_max_ms),
            ("limits.pair_attempts", u64::from(l.pair_attempts)),
            ("limits.snapshot_nodes", l.snapshot_nodes as u64),
            ("limits.snapshot_chars", l.snapshot_chars as u64),
            ("limits.result_bytes", l.result_bytes as u64),
            ("limits.connections", l.connections as u64),
            ("limits.header_timeout_ms", l.header_timeout_ms),
            ("limits.idle_timeout_ms", l.idle_timeout_ms),
            ("limits.body_timeout_ms", l.body_timeout_ms),
            ("limits.session_memory_mib", l.session_memory_mib),
            ("limits.context_memory_mib", l.context_memory_mib),
            ("limits.macro_memory_mib", l.macro_memory_mib as u64),
            (
                "limits.download_files_per_session",
                l.download_files_per_session as u64,
            ),
            (
                "limits.download_bytes_per_session",
                l.download_bytes_per_session,
            ),
            ("limits.download_files_total", l.download_files_total as u64),
            ("limits.download_bytes_total", l.download_bytes_total),
            (
                "devtools.console_entries",
                l.devtools.console_entries as u64,
            ),
            ("devtools.error_entries", l.devtools.error_entries as u64),
            (
                "devtools.network_entries",
                l.devtools.network_entries as u64,
            ),
        ];
        if let Some((key, _)) = positive.iter().find(|(_, v)| *v == 0) {
            anyhow::bail!("{}: {key} must be greater than 0", path.display());
        }
        if l.timeout_default_ms > l.timeout_max_ms {
            anyhow::bail!(
                "{}: limits.timeout_default_ms exceeds limits.timeout_max_ms",
                path.display()
            );
        }
        Ok(l)
    }
}

/// Directory layout of one webrig installation.
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `$WEBRIG_HOME`, else `$XDG_CONFIG_HOME/webrig`, else `~/.config/webrig`.
    pub fn from_env() -> anyhow::Result<Self> {
        if let Some(dir) = std::env::var_os("WEBRIG_HOME").filter(|v| !v.is_empty()) {
            return Ok(Home::at(PathBuf::from(dir)));
        }
        if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
            return Ok(Home::at(PathBuf::from(dir).join("webrig")));
        }
        let home = std::env::var_os("HOME")
            .filter(|v| !v.is_empty())
            .context("neither WEBRIG_HOME nor HOME is set")?;
        Ok(Home::at(PathBuf::from(home).join(".config").join("webrig")))
    }

    pub fn at(root: PathBuf) -> Self {
        Home { root }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn token_path(&self) -> PathBuf {
        self.root.join("token")
    }

    pub fn log_path(&self) -> PathBuf {
        self.root.join("daemon.log")
    }

    /// The daemon's Unix socket for the CLI (one per port): inside the
    /// 0700 root, so only this user reaches it, and a process squatting on
    /// the TCP port never sees the token.
    pub fn daemon_socket(&self, port: u16) -> PathBuf {
        self.root.join(format!("daemon.{port}.sock"))
    }

    pub fn artifacts_dir(&self) -> PathBuf {
        self.root.join("artifacts")
    }

    /// Checks, before anything in it is read, that the home is this user's
    /// alone (creating it 0700 when missing), and so are the token, the
    /// config and the plugin and macro folders in it. The daemon calls this
    /// before it starts, the CLI before it starts a daemon or sends a token.
    pub fn adopt(&self) -> anyhow::Result<()> {
        trust::adopt_dir(&self.root)?;
        trust::read_owned(&self.token_path(), true, TOKEN_BYTES)?;
        trust::read_owned(&self.root.join("config.toml"), false, CONFIG_BYTES)?;
        trust::check_dir(&self.plugins_dir())?;
        trust::check_dir(&self.macros_dir())?;
        Ok(())
    }

    /// The user's macro packs (`*.rhai`).
    pub fn macros_dir(&self) -> PathBuf {
        self.root.join("macros")
    }

    /// Creates the root (and `sub`) with mode 0700 if missing; an existing
    /// one must be this user's alone (see [`trust::adopt_dir`]).
    pub fn ensure_dir(&self, sub: Option<&str>) -> anyhow::Result<PathBuf> {
        let dir = match sub {
            Some(sub) => self.root.join(sub),
            None => self.root.clone(),
        };
        ensure_private_dir(&dir)?;
        Ok(dir)
    }

    /// Installed plugins, one folder each.
    pub fn plugins_dir(&self) -> PathBuf {
        self.root.join("plugins")
    }

    /// Compiled plugin components (a cache: safe to delete).
    pub fn plugin_cache_dir(&self) -> PathBuf {
        self.root.join("cache").join("components")
    }

    /// The daemon token, if one was ever created: read only from a file of
    /// ours that no one else may read or write.
    pub fn read_token(&self) -> anyhow::Result<Option<String>> {
        let Some(raw) = trust::read_owned(&self.token_path(), true, TOKEN_BYTES)? else {
            return Ok(None);
        };
        let token = String::from_utf8_lossy(&raw).trim().to_string();
        Ok((!token.is_empty()).then_some(token))
    }

    /// Returns the existing token or creates one (32 random bytes, hex).
    pub fn ensure_token(&self) -> anyhow::Result<String> {
        if let Some(token) = self.read_token()? {
            return Ok(token);
        }
        self.ensure_dir(None)?;
        let token = random_hex(32)?;
        let path = self.token_path();
        let dir = path.parent().unwrap_or(self.root());
        let mut tmp = tempfile::Builder::new()
            .prefix(".webrig-")
            .tempfile_in(dir)
            .with_context(|| format!("creating a temp file in {}", dir.display()))?;
        tmp.write_all(token.as_bytes())?;
        tmp.as_file().sync_all()?;
        // No-clobber: when two daemons start at once, the first token wins and
        // the other reads it, so both agree.
        match tmp.persist_noclobber(&path) {
            Ok(_) => Ok(token),
            Err(_) => self
                .read_token()?
                .with_context(|| format!("reading {}", path.display())),
        }
    }
}

/// The most a token file may hold.
const TOKEN_BYTES: u64 = 4096;

/// This process's uid (the owner of `/proc/self`), None where unknown.
pub fn own_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| m.uid()).ok()
}

/// Whether a file or folder is this user's and no one else may write it.
pub fn is_mine_alone(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    Some(meta.uid()) == own_uid() && meta.mode() & 0o022 == 0
}

/// Creates `dir` (and parents) with mode 0700 if missing; an existing one
/// must be this user's alone, and is tightened to 0700 only then.
pub fn ensure_private_dir(dir: &Path) -> anyhow::Result<()> {
    Ok(trust::adopt_dir(dir)?)
}

/// A fresh directory named `prefix…` in `parent` (or the system's temp
/// directory), mode 0700, kept on disk: tempfile's own mode follows the umask.
pub fn private_tempdir(prefix: &str, parent: Option<&Path>) -> std::io::Result<PathBuf> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700));
    let dir = match parent {
        Some(p) => b.tempdir_in(p)?,
        None => b.tempdir()?,
    }
    .keep();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// The daemon port: `--port`, else `WEBRIG_PORT`, else 9377.
pub fn port(flag: Option<u16>) -> anyhow::Result<u16> {
    if let Some(port) = flag {
        return Ok(port);
    }
    match std::env::var("WEBRIG_PORT") {
        Ok(raw) if !raw.is_empty() => raw
            .parse()
            .with_context(|| format!("WEBRIG_PORT={raw:?} is not a port number")),
        _ => Ok(DEFAULT_PORT),
    }
}

pub fn random_hex(bytes: usize) -> anyhow::Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `bytes` to `path` with mode 0600 through a temp file in the same
/// directory and an atomic rename, so readers never see half a file.
pub fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic(path, bytes, 0o600, true)
}

/// [`write_private`] without waiting for the disk: for copies webrig keeps
/// for itself (a backup), which a crash may lose without harm.
pub fn write_private_unsynced(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic(path, bytes, 0o600, false)
}

/// Writes `bytes` to `path` with `mode` through a temp file in the same
/// directory (made 0600, then given `mode`) and an atomic rename; `sync`
/// waits for the disk before the rename.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32, sync: bool) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .with_context(|| format!("{} has no parent directory", path.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".webrig-")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temp file in {}", dir.display()))?;
    if mode != 0o600 {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path)
        .with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_load_from_config_and_name_bad_keys() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = Home::at(dir.path().to_path_buf());
        assert_eq!(Limits::load(&home).expect("defaults"), Limits::default());
        std::fs::write(dir.path().join("config.toml"), "[limits]\nsessions = 4\n").expect("write");
        assert_eq!(Limits::load(&home).expect("parses").sessions, 4);
        std::fs::write(dir.path().join("config.toml"), "[limits]\nsesions = 4\n").expect("write");
        let err = Limits::load(&home).expect_err("typo").to_string();
        assert!(err.contains("sesions"), "{err}");
        std::fs::write(dir.path().join("config.toml"), "[limits]\nbody_bytes = 0\n")
            .expect("write");
        let err = Limits::load(&home).expect_err("zero").to_string();
        assert!(err.contains("limits.body_bytes"), "{err}");
    }

    #[test]
    fn download_budgets_and_policy_load_and_refuse_zero() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = Home::at(dir.path().to_path_buf());
        let d = Limits::default();
        assert_eq!(
            d.devtools.downloads,
            DownloadPolicy::Agent,
            "deny by default"
        );
        assert!(d.download_bytes_per_session > 0 && d.download_bytes_total > 0);
        std::fs::write(
            dir.path().join("config.toml"),
            "[limits]\ndownload_bytes_per_session = 1000\ndownload_files_total = 3\n\
             [devtools]\ndownloads = \"always\"\n",
        )
        .expect("write");
        let l = Limits::load(&home).expect("parses");
        assert_eq!(l.download_bytes_per_session, 1000);
        assert_eq!(l.download_files_total, 3);
        assert_eq!(l.devtools.downloads, DownloadPolicy::Always);
        for (text, key) in [
            (
                "[limits]\ndownload_files_per_session = 0\n",
                "download_files_per_session",
            ),
            (
                "[limits]\ndownload_bytes_total = 0\n",
                "download_bytes_total",
            ),
            ("[devtools]\ndownloads = \"sometimes\"\n", "sometimes"),
        ] {
            std::fs::write(dir.path().join("config.toml"), text).expect("write");
            let err = Limits::load(&home).expect_err(key).to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn default_sessions_follow_memory() {
        assert_eq!(sessions_for(Some(24 * 1024), 200), 117);
        assert_eq!(sessions_for(Some(2 * 1024), 200), 5);
        assert_eq!(sessions_for(Some(512), 200), 1, "at least one");
        assert_eq!(sessions_for(Some(1 << 30), 200), 128, "at most 128");
        assert_eq!(
            sessions_for(None, 200),
            16,
            "unknown memory: a modest default"
        );
    }

    #[test]
    fn token_is_created_once_with_private_modes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = Home::at(dir.path().join("home"));
        let first = home.ensure_token().expect("token");
        let second = home.ensure_token().expect("token");
        assert_eq!(first, second);
        assert_eq!(first.len(), 64);
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(home.root()), 0o700);
        assert_eq!(mode(&home.token_path()), 0o600);
    }
}

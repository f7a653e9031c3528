//! The browser keeper: a small process (`webrig browser-keeper`) that starts a
//! managed Chromium with `--remote-debugging-pipe` and holds the pipe.
//!
//! Why a process of its own: with a pipe, nothing listens on a TCP port, so no
//! other local user can reach the browser's DevTools (a `--remote-debugging-port`
//! is unauthenticated and open to every uid). But a pipe dies with the process
//! holding it, and the daemon must be able to crash and re-attach to its
//! browsers. The keeper outlives the daemon and offers the pipe on a Unix socket
//! inside a fresh 0700 directory (socket 0600), reachable only by the daemon's
//! user. One client at a time; a new client replaces the old one (the old
//! daemon is gone). Messages are NUL-terminated JSON on both sides, and only
//! whole messages cross: a client that drops mid-message cannot leave half a
//! command in the browser's pipe.
//!
//! It must stay tiny: std threads, no runtime, no CDP knowledge.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use command_fds::{CommandFdExt, FdMapping};

/// Name of the socket inside the keeper's directory.
pub const SOCKET: &str = "cdp.sock";

/// Largest message relayed either way (full-page screenshots are big).
const MAX_MESSAGE: usize = 256 << 20;

type Client = Arc<Mutex<Option<UnixStream>>>;

/// Runs the keeper: `dir` is a fresh private directory for the socket,
/// `browser` the executable and its arguments. Prints `ready <pid>` on
/// stdout once the socket listens and the browser runs, then relays until
/// the browser exits. Never returns normally.
pub fn run(dir: &Path, browser: &[String]) -> anyhow::Result<()> {
    let (exe, args) = browser.split_first().context("no browser to start")?;
    let socket = dir.join(SOCKET);
    let listener =
        UnixListener::bind(&socket).with_context(|| format!("binding {}", socket.display()))?;
    set_mode(&socket, 0o600)?;

    let (to_browser_read, to_browser) = std::io::pipe().context("creating a pipe")?;
    let (from_browser, from_browser_write) = std::io::pipe().context("creating a pipe")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(args)
        .arg("--remote-debugging-pipe")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    cmd.fd_mappings(vec![
        FdMapping {
            parent_fd: to_browser_read.into(),
            child_fd: 3,
        },
        FdMapping {
            parent_fd: from_browser_write.into(),
            child_fd: 4,
        },
    ])
    .context("mapping the pipe")?;
    let mut child = cmd.spawn().with_context(|| format!("starting {exe}"))?;
    // The command holds our copies of the browser's ends; dropping it closes
    // them, so the browser's exit is seen as end of file on `from_browser`.
    drop(cmd);
    println!("ready {}", child.id());
    std::io::stdout().flush().ok();

    let client: Client = Arc::new(Mutex::new(None));
    let to_browser = Arc::new(Mutex::new(to_browser));
    {
        let client = client.clone();
        std::thread::spawn(move || accept(listener, client, to_browser));
    }
    relay_from_browser(from_browser, &client);
    // The browser closed its end: it has exited or is exiting.
    let _ = child.wait();
    let _ = std::fs::remove_file(&socket);
    let _ = std::fs::remove_dir(dir);
    std::process::exit(0);
}

/// Accepts clients; each replaces the one before.
fn accept(listener: UnixListener, client: Client, to_browser: Arc<Mutex<std::io::PipeWriter>>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // Out of descriptors, most likely: wait rather than spin.
            std::thread::sleep(std::time::Duration::from_millis(50));
            continue;
        };
        let Ok(reader) = stream.try_clone() else {
            continue;
        };
        if let Some(old) = lock(&client).replace(stream) {
            let _ = old.shutdown(std::net::Shutdown::Both);
        }
        let to_browser = to_browser.clone();
        std::thread::spawn(move || relay_to_browser(reader, &to_browser));
    }
}

/// Client → browser, whole messages only.
fn relay_to_browser(stream: UnixStream, to_browser: &Mutex<std::io::PipeWriter>) {
    relay(stream, |message| {
        lock(to_browser).write_all(message).is_ok()
    });
}

/// Browser → the current client; messages are dropped while none is there.
fn relay_from_browser(from_browser: std::io::PipeReader, client: &Client) {
    relay(from_browser, |message| {
        let mut current = lock(client);
        if let Some(stream) = current.as_mut()
            && stream.write_all(message).is_err()
        {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            *current = None;
        }
        true
    });
}

/// Reads whole messages from `source` and hands each to `deliver` until the
/// source ends or `deliver` says stop.
fn relay(source: impl std::io::Read, mut deliver: impl FnMut(&[u8]) -> bool) {
    let mut reader = BufReader::new(source);
    let mut message = Vec::new();
    loop {
        message.clear();
        if !matches!(read_message(&mut reader, &mut message), Ok(true)) || !deliver(&message) {
            return;
        }
    }
}

/// Reads one NUL-terminated message (terminator included) into `out`;
/// `Ok(false)` at end of input, an error for an oversized message.
fn read_message(reader: &mut impl BufRead, out: &mut Vec<u8>) -> std::io::Result<bool> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let (take, done) = match buf.iter().position(|b| *b == 0) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        out.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if done {
            return Ok(true);
        }
        if out.len() > MAX_MESSAGE {
            return Err(std::io::Error::other("message too large"));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each guarded value stays consistent: every change is one call.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn set_mode(path: &Path, mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting {mode:o} on {}", path.display()))
}

/// A keeper started by the daemon: its process, and where to reach the browser.
pub struct Started {
    pub keeper: tokio::process::Child,
    pub browser_pid: u32,
    pub socket: PathBuf,
}

/// Starts `webrig browser-keeper` for `browser` (executable first) and waits
/// for its `ready` line. `stderr` receives the keeper's and the browser's logs.
pub async fn start(browser: &[String], stderr: std::fs::File) -> Result<Started, String> {
    let dir = crate::config::private_tempdir("webrig-cdp-", None)
        .map_err(|e| format!("cannot create a socket dir: {e}"))?;
    // The running binary itself: after an upgrade replaced the file on
    // disk, `current_exe` names a deleted path, but /proc/self/exe still
    // opens the image this daemon runs.
    let proc_exe = std::path::PathBuf::from("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe
    } else {
        std::env::current_exe().map_err(|e| format!("finding webrig: {e}"))?
    };
    let mut keeper = tokio::process::Command::new(exe)
        .arg("browser-keeper")
        .arg(&dir)
        .arg("--")
        .args(browser)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::from(stderr))
        // Its own process group: a Ctrl-C aimed at a terminal, or the
        // daemon's exit, does not take it (or the browser) down.
        .process_group(0)
        .kill_on_drop(false)
        .spawn()
        .map_err(|e| format!("cannot start the browser keeper: {e}"))?;
    let stdout = keeper.stdout.take().ok_or("the keeper has no stdout")?;
    let mut line = String::new();
    use tokio::io::AsyncBufReadExt;
    let read = tokio::io::BufReader::new(stdout).read_line(&mut line).await;
    let pid = line
        .strip_prefix("ready ")
        .and_then(|p| p.trim().parse::<u32>().ok());
    match (read, pid) {
        (Ok(_), Some(browser_pid)) => Ok(Started {
            keeper,
            browser_pid,
            socket: dir.join(SOCKET),
        }),
        _ => {
            let _ = keeper.start_kill();
            let _ = std::fs::remove_dir_all(&dir);
            Err("the browser keeper did not start the browser".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_cut_at_nul_and_partial_tails_are_not_messages() {
        let mut input: &[u8] = b"{\"id\":1}\0{\"id\":2}\0{\"id\":";
        let mut out = Vec::new();
        assert!(read_message(&mut input, &mut out).expect("read"));
        assert_eq!(out, b"{\"id\":1}\0");
        out.clear();
        assert!(read_message(&mut input, &mut out).expect("read"));
        assert_eq!(out, b"{\"id\":2}\0");
        out.clear();
        assert!(
            !read_message(&mut input, &mut out).expect("read"),
            "a partial tail is dropped"
        );
    }
}

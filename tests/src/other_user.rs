//! "Another local user" for the attack tests: a real second uid. As root the
//! harness creates `webrig-other` once (`useradd --system`); as anyone else
//! the cases that need it are skipped with a message saying so (CI runs as
//! root, so there they always run).

use std::ffi::OsStr;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The user's name in `/etc/passwd`.
pub const NAME: &str = "webrig-other";

/// A second local user: its uid and gid, and a way to run programs as it.
#[derive(Clone, Copy, Debug)]
pub struct OtherUser {
    uid: u32,
    gid: u32,
}

impl OtherUser {
    /// The second user, created on first use when running as root; `None`
    /// (and a line on stderr naming the test) when it cannot be had.
    pub fn get(test: &str) -> Option<OtherUser> {
        static USER: OnceLock<Option<OtherUser>> = OnceLock::new();
        let user = *USER.get_or_init(create);
        if user.is_none() {
            eprintln!(
                "SKIPPED {test}: it needs a second local user, which only root can create \
                 (CI runs as root)"
            );
        }
        user
    }

    pub fn uid(&self) -> u32 {
        self.uid
    }

    pub fn gid(&self) -> u32 {
        self.gid
    }

    /// A command that runs `program` as this user, with no supplementary groups.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg(program);
        cmd
    }

    /// Runs a Perl snippet (Perl is essential on Debian) with `args` as this user.
    pub fn perl(&self, script: &str, args: &[&str]) -> Output {
        self.command("/usr/bin/perl")
            .arg("-e")
            .arg(script)
            .args(args)
            .output()
            .expect("setpriv and perl run")
    }
}

pub fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn create() -> Option<OtherUser> {
    if !is_root() {
        return None;
    }
    if lookup().is_none() {
        // Several test binaries may race here; a lost race is "already exists".
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                NAME,
            ])
            .output();
    }
    lookup()
}

fn lookup() -> Option<OtherUser> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let cols: Vec<&str> = line.split(':').collect();
        (cols.first() == Some(&NAME)).then_some(())?;
        Some(OtherUser {
            uid: cols.get(2)?.parse().ok()?,
            gid: cols.get(3)?.parse().ok()?,
        })
    })
}

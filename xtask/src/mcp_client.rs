//! The Python virtualenv for the MCP client test (`tests/mcp/client.py`, the
//! official `mcp` SDK against `webrig mcp`): `target/mcp-venv`, made with
//! `python3 -m venv` and filled from `tests/mcp/requirements.txt`, again only
//! when it is missing or the requirements changed.

use std::path::PathBuf;
use std::process::Command;

use crate::setup;

/// Python versions the pinned `mcp` package installs on.
const MIN_PYTHON: (u32, u32) = (3, 10);

/// Makes (or reuses) the venv; returns its python, for `WEBRIG_MCP_PYTHON`.
/// An Err says what is missing (python3, its venv module, the network).
pub fn ensure_venv() -> Result<PathBuf, String> {
    let requirements = setup::root().join("tests/mcp/requirements.txt");
    let wanted = std::fs::read(&requirements)
        .map_err(|e| format!("reading {}: {e}", requirements.display()))?;
    let venv = setup::target_dir().join("mcp-venv");
    let python = venv.join("bin").join("python");
    let stamp = venv.join("requirements.hash");
    let hash = format!("{:016x}\n", fnv1a(&wanted));
    if python.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(hash.as_str()) {
        return Ok(python);
    }

    check_python3()?;
    if !python.is_file() {
        setup::step(&format!("creating {}", venv.display()));
        if venv.exists() {
            std::fs::remove_dir_all(&venv)
                .map_err(|e| format!("removing the broken {}: {e}", venv.display()))?;
        }
        run(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv (on Debian/Ubuntu: apt-get install python3-venv)",
        )?;
    }
    let _ = std::fs::remove_file(&stamp);
    setup::step(&format!(
        "installing the MCP client test's packages ({})",
        requirements.display()
    ));
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg("-r")
            .arg(&requirements),
        "pip install -r tests/mcp/requirements.txt (is PyPI reachable?)",
    )?;
    std::fs::write(&stamp, hash).map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    Ok(python)
}

fn check_python3() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('%d %d' % sys.version_info[:2])"])
        .output()
        .map_err(|e| {
            format!(
                "python3 is missing ({e}): the MCP client test needs Python {}.{}+ with venv \
                 (on Debian/Ubuntu: apt-get install python3 python3-venv)",
                MIN_PYTHON.0, MIN_PYTHON.1
            )
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text
        .split_whitespace()
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if !out.status.success() || version < MIN_PYTHON {
        return Err(format!(
            "python3 is {}.{}: the MCP client test needs Python {}.{}+",
            version.0, version.1, MIN_PYTHON.0, MIN_PYTHON.1
        ));
    }
    Ok(())
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot run: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: failed ({status})"))
    }
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

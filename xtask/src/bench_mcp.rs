//! MCP's cost (`mcp-bench`, release): `eval 1` as an MCP `tools/call` over
//! `/mcp` against the same command on `/command`, and `tools/list`.

use super::setup;

pub fn run() -> Result<(), String> {
    let release = setup::target_dir().join("release");
    let browser = setup::ensure_browser()?;
    println!("\n| MCP measure | p50 | p99 |");
    println!("| --- | --- | --- |");
    let out = std::process::Command::new(release.join("mcp-bench"))
        .env("WEBRIG_BROWSER", browser)
        .env("WEBRIG_BIN", release.join("webrig"))
        .output()
        .map_err(|e| format!("running mcp-bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "mcp-bench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

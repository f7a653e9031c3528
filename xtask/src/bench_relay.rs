//! The extension relay's cost (`relay-bench`, release): `eval 1` and a
//! snapshot of the corpus page wikipedia-2, inside the daemon, through a
//! browser webrig launched and through the user's browser via the extension.

use super::setup;

pub fn run() -> Result<(), String> {
    let bin = setup::target_dir().join("release").join("relay-bench");
    let browser = setup::ensure_browser()?;
    println!("\n| relay measure | p50 | p99 |");
    println!("| --- | --- | --- |");
    let out = std::process::Command::new(bin)
        .env("WEBRIG_BROWSER", browser)
        .env(
            "WEBRIG_BIN",
            setup::target_dir().join("release").join("webrig"),
        )
        .output()
        .map_err(|e| format!("running relay-bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "relay-bench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

//! A throwaway webrig setup for the demo and the benchmarks: the fixture web on
//! loopback, and the `webrig` CLI pointed at a private home and port.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub struct Rig {
    bin: PathBuf,
    /// A fresh private directory (random name, 0700, made with one `mkdir`):
    /// a predictable `/tmp` name could be planted by another user first.
    home: tempfile::TempDir,
    port: u16,
    web: Child,
    base: String,
}

/// Writes `text` to a file that this call creates (`O_CREAT|O_EXCL`: never
/// through a link someone planted), replacing one this rig wrote earlier.
pub fn write_new(path: &std::path::Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("{}: {e}", path.display()));
        }
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(9378)
}

impl Rig {
    /// `profile` is `debug` or `release`; both binaries must be built.
    pub fn start(profile: &str) -> Result<Rig, String> {
        let dir = super::setup::target_dir().join(profile);
        let mut web = Command::new(dir.join("fixture-web"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("starting fixture-web: {e}"))?;
        let mut first = String::new();
        let stdout = web.stdout.take().ok_or("fixture-web has no stdout")?;
        BufReader::new(stdout)
            .read_line(&mut first)
            .map_err(|e| format!("reading fixture-web's URL: {e}"))?;
        let base = first.trim().trim_end_matches('/').to_string();
        let home = tempfile::Builder::new()
            .prefix("webrig-xtask-")
            .tempdir()
            .map_err(|e| format!("creating a private home: {e}"))?;
        Ok(Rig {
            bin: dir.join("webrig"),
            home,
            port: free_port(),
            web,
            base,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn home(&self) -> &std::path::Path {
        self.home.path()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.args(args)
            .env("WEBRIG_HOME", self.home.path())
            .env("WEBRIG_PORT", self.port.to_string())
            .env_remove("WEBRIG_SESSION");
        cmd
    }

    /// Runs the CLI; returns its output and wall time.
    pub fn run(&self, args: &[&str]) -> Result<(Output, Duration), String> {
        let start = Instant::now();
        let out = self
            .command(args)
            .output()
            .map_err(|e| format!("running webrig: {e}"))?;
        Ok((out, start.elapsed()))
    }

    /// Like [`run`], failing on a non-zero exit.
    pub fn run_ok(&self, args: &[&str]) -> Result<(String, Duration), String> {
        let (out, took) = self.run(args)?;
        if !out.status.success() {
            return Err(format!(
                "webrig {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok((String::from_utf8_lossy(&out.stdout).into_owned(), took))
    }
}

/// The first-party providers: folders under plugins/providers, each
/// building `webrig_provider_<name>.wasm`.
const FIRST_PARTY: [&str; 4] = ["web", "community", "shopping", "social"];

impl Rig {
    /// Points the first-party providers at the fixture web (config.toml in
    /// the rig's home). Call before the daemon starts.
    pub fn configure_providers(&self) -> Result<(), String> {
        let base = self.url("providers");
        let config = format!(
            "[plugins.web]\nbase_url = \"{base}/ddg\"\n\
             [plugins.community]\nhn_url = \"{base}/hn\"\nreddit_url = \"{base}/reddit\"\n\
             [plugins.shop]\nsearch_url = \"{base}/shop/search.html?q={{query}}\"\n\
             [plugins.social]\nbase_url = \"{base}/mastodon\"\n"
        );
        write_new(&self.home.path().join("config.toml"), &config)
    }

    /// Points the first-party providers at the fixture web and installs
    /// them through `webrig plugin install`, the same path third-party
    /// plugins take.
    pub fn install_providers(&self) -> Result<(), String> {
        self.configure_providers()?;
        let plugins = super::setup::root().join("plugins");
        for dir in FIRST_PARTY {
            let wasm = plugins
                .join("target/wasm32-wasip2/release")
                .join(format!("webrig_provider_{dir}.wasm"));
            let manifest = plugins.join("providers").join(dir).join("plugin.toml");
            self.install_plugin(&wasm, &manifest)?;
        }
        Ok(())
    }

    /// `webrig plugin install WASM --manifest MANIFEST --grant --replace`.
    pub fn install_plugin(
        &self,
        wasm: &std::path::Path,
        manifest: &std::path::Path,
    ) -> Result<(), String> {
        self.run_ok(&[
            "plugin",
            "install",
            &wasm.display().to_string(),
            "--manifest",
            &manifest.display().to_string(),
            "--grant",
            // Over what `webrig setup` installed, in the demo.
            "--replace",
        ])
        .map(drop)
    }
}

impl Rig {
    /// Points the providers at the fixture web's "small internet" (news,
    /// stores); the daemon applies config.toml on the next provider command.
    pub fn use_small_web(&self) -> Result<(), String> {
        let base = self.url("small");
        let config = format!(
            "[plugins.web]\nbase_url = \"{base}/news/ddg\"\n\
             [plugins.community]\nhn_url = \"{base}/news/hn\"\nreddit_url = \"{base}/news/reddit\"\n\
             [plugins.shop]\nsearch_url = \"{base}/shop/search.html?q={{query}}\"\n\
             [plugins.social]\nbase_url = \"{base}/news/mastodon\"\n"
        );
        write_new(&self.home.path().join("config.toml"), &config)
    }

    /// Installs first-party workflow `id` (plugins/workflows/<id>). One
    /// that reaches any host (`http = ["*"]`) also gets the fixture web's
    /// loopback host:port, which only an exact rule opens.
    pub fn install_workflow(&self, id: &str) -> Result<(), String> {
        let plugins = super::setup::root().join("plugins");
        let wasm = plugins
            .join("target/wasm32-wasip2/release")
            .join(format!("webrig_workflow_{}.wasm", id.replace('-', "_")));
        let text = std::fs::read_to_string(plugins.join("workflows").join(id).join("plugin.toml"))
            .map_err(|e| e.to_string())?;
        let local = self
            .base
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let text = text.replace("http = [\"*\"]", &format!("http = [\"*\", \"{local}\"]"));
        let manifest = self.home.path().join(format!("{id}.plugin.toml"));
        write_new(&manifest, &text)?;
        self.install_plugin(&wasm, &manifest)
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = self.command(&["daemon", "stop"]).output();
        let _ = self.web.kill();
        let _ = self.web.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_new_never_writes_through_a_planted_link() {
        let dir = tempfile::tempdir().expect("dir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").expect("write");
        let planted = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&victim, &planted).expect("symlink");
        write_new(&planted, "mine").expect("written");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        assert_eq!(std::fs::read_to_string(&planted).expect("read"), "mine");
        assert!(
            !std::fs::symlink_metadata(&planted)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
    }
}

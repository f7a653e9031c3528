//! `cargo xtask demo`: the main job end to end on the bundled fixture web —
//! start the daemon, launch Chromium, open a page, read it, capture it.

use super::rig::Rig;
use super::setup;

pub fn run() -> Result<(), String> {
    let browser = setup::ensure_browser()?;
    setup::step("building webrig and the fixture web server");
    setup::cargo(&[
        "build",
        "--package",
        "webrig",
        "--package",
        "webrig-tests",
        "--bins",
    ])?;
    let rig = Rig::start("debug")?;
    let shot_dir = std::env::temp_dir().join(format!("webrig-demo-{}", std::process::id()));
    std::fs::create_dir_all(&shot_dir).map_err(|e| e.to_string())?;
    let shot = shot_dir.join("home.png");
    let shot_arg = shot.display().to_string();
    let home = rig.url("index.html");
    let checkout = rig.url("form.html");

    setup::step(&format!("fixture web at {}", rig.url("")));
    let browser_arg = browser.display().to_string();
    let steps: Vec<(&str, Vec<&str>)> = vec![
        (
            "start the daemon and launch a headless Chromium",
            vec!["launch", "--browser-path", &browser_arg],
        ),
        ("open the fixture shop", vec!["goto", &home]),
        ("read its title", vec!["title"]),
        ("read the product list", vec!["text", "#products"]),
        (
            "ask the page a question",
            vec![
                "eval",
                "[...document.querySelectorAll('.price')].map(p => p.textContent)",
            ],
        ),
        ("take a screenshot", vec!["screenshot", "--path", &shot_arg]),
        (
            "open the checkout in a second tab",
            vec!["tab", "new", &checkout],
        ),
        ("read a form field", vec!["value", "#email"]),
        ("list the tabs", vec!["tabs"]),
        ("close the session", vec!["close"]),
    ];
    for (what, args) in steps {
        println!(
            "\n# {what}\n$ webrig {}",
            args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
        );
        let (out, took) = rig.run_ok(&args)?;
        for line in out.lines().take(12) {
            println!("  {line}");
        }
        println!("  ({:.1} ms)", took.as_secs_f64() * 1e3);
    }
    println!("\nscreenshot: {}", shot.display());
    Ok(())
}

fn quote(arg: &str) -> String {
    if arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:#@=".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

//! `cargo xtask demo`: the main job end to end on the bundled fixture web —
//! start the daemon, launch Chromium, open a page, read it, capture it.

use super::rig::Rig;
use super::setup;

pub fn run() -> Result<(), String> {
    let browser = setup::ensure_browser()?;
    setup::build_plugins()?;
    setup::step("building webrig and the fixture web server");
    setup::build_bins(false)?;
    let rig = Rig::start("debug")?;
    let shot_dir = tempfile::Builder::new()
        .prefix("webrig-demo-")
        .tempdir()
        .map_err(|e| format!("creating a private folder: {e}"))?
        .keep();
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
        (
            "look at the page: an outline with @e refs",
            vec!["snapshot"],
        ),
        ("read the product list", vec!["text", "#products"]),
        (
            "ask the page a question",
            vec![
                "eval",
                "[...document.querySelectorAll('.price')].map(p => p.textContent)",
            ],
        ),
        ("take a screenshot", vec!["screenshot", "--path", &shot_arg]),
    ];
    for (what, args) in steps {
        step_out(&rig, what, &args)?;
    }
    // Act on a ref from the snapshot: the first "Buy" link.
    let (snap, _) = rig.run_ok(&["snapshot", "--interactive"])?;
    let buy = snap
        .lines()
        .find(|l| l.contains("\"Buy\""))
        .and_then(|l| l.split_whitespace().next())
        .ok_or("the fixture shop has no Buy link")?
        .to_string();
    let steps: Vec<(&str, Vec<&str>)> = vec![
        (
            "click Buy by its ref; see only what changed",
            vec!["click", &buy, "--snapshot-after", "diff"],
        ),
        (
            "fill the email field",
            vec!["fill", "#email", "grace@example.test"],
        ),
        ("read it back", vec!["value", "#email"]),
        (
            "open the checkout in a second tab",
            vec!["tab", "new", &checkout],
        ),
        ("list the tabs", vec!["tabs"]),
        ("close the session", vec!["close"]),
    ];
    for (what, args) in steps {
        step_out(&rig, what, &args)?;
    }
    setup::step("installing the first-party plugins this webrig carries (webrig setup --yes)");
    rig.configure_providers()?;
    step_out(
        &rig,
        "providers and workflows, with what each is granted",
        &["setup", "--yes"],
    )?;
    let article = rig.url("providers/articles/agents-need-a-browser.html");
    let steps: Vec<(&str, Vec<&str>)> = vec![
        ("the sandboxed providers", vec!["providers"]),
        (
            "search four sources at once (web, community, shopping, social)",
            vec!["search", "webrig", "--source", "all", "--limit", "8"],
        ),
        (
            "read an article: text and metadata",
            vec!["fetch", &article],
        ),
        (
            "an @macro pipe: the plan, without the network",
            vec![
                "macro",
                "resolve",
                r#"@web.search("webrig", limit=5) | @fetch.top(2)"#,
            ],
        ),
        (
            "run a macro: results with provenance",
            vec!["macro", "run", r#"@community.search("webrig", limit=3)"#],
        ),
    ];
    for (what, args) in steps {
        step_out(&rig, what, &args)?;
    }
    workflows(&rig)?;
    println!("\nscreenshot: {}", shot.display());
    Ok(())
}

/// The workflows on the fixture web's small internet: research, shopping
/// and inspiredesign, each into a bundle of files.
fn workflows(rig: &Rig) -> Result<(), String> {
    setup::step(
        "the workflows may also read the fixture web's loopback host; providers on the small internet",
    );
    rig.use_small_web()?;
    for id in ["research", "shopping", "inspiredesign"] {
        rig.install_workflow(id)?;
    }
    let design: Vec<String> = ["calm", "brutal", "neon"]
        .iter()
        .map(|p| rig.url(&format!("small/design/{p}.html")))
        .collect();
    let steps: Vec<(&str, Vec<&str>)> = vec![
        (
            "the installed workflows and what they take",
            vec!["workflows"],
        ),
        (
            "research a topic: search, read, date, dedupe, rank, cite",
            vec![
                "run",
                "workflow",
                "research",
                "--topic",
                RESEARCH_TOPIC,
                "--sources",
                "all",
                "--now",
                DEMO_NOW,
            ],
        ),
        (
            "compare offers across three stores within a budget",
            vec![
                "run",
                "workflow",
                "shopping",
                "--query",
                SHOPPING_QUERY,
                "--budget",
                "150",
            ],
        ),
        (
            "read three reference sites' design tokens against a brief",
            vec![
                "run",
                "workflow",
                "inspiredesign",
                "--brief",
                "calm editorial serif with warm natural colours",
                "--url",
                &design[0],
                "--url",
                &design[1],
                "--url",
                &design[2],
            ],
        ),
        ("the bundles, kept 72 h", vec!["artifacts", "list"]),
    ];
    for (what, args) in steps {
        step_out(rig, what, &args)?;
    }
    Ok(())
}

/// What the small internet's news and stores answer (any query works; these
/// read naturally), and the reference time the news fixture is dated against.
const RESEARCH_TOPIC: &str = "webassembly sandboxing";
const SHOPPING_QUERY: &str = "trail running shoes";
const DEMO_NOW: &str = "2026-12-01T12:00:00Z";

fn step_out(rig: &Rig, what: &str, args: &[&str]) -> Result<(), String> {
    println!(
        "\n# {what}\n$ webrig {}",
        args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
    );
    let (out, took) = rig.run_ok(args)?;
    for line in out.lines().take(24) {
        println!("  {line}");
    }
    println!("  ({:.1} ms)", took.as_secs_f64() * 1e3);
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

//! `@macro` expressions end to end: resolve (the plan, no network) and run
//! (through the provider runtime) against the first-party providers on the
//! fixture web; user packs and the sandbox seen from the daemon.

use serde_json::json;

use super::providers::with_providers;

#[test]
fn resolve_shows_the_plan_without_running_anything() {
    let d = with_providers(&[]);
    let out = d.ok(
        "default",
        "macro_resolve",
        json!({ "expr": r#"@web.search("webrig", limit=5) | @fetch.top(2)"#, "catalog": true }),
    );
    let plan = out["plan"].as_array().expect("plan");
    assert_eq!(plan.len(), 2, "{out}");
    assert_eq!(
        plan[0]["action"],
        json!({ "source": "web", "operation": "search", "input": { "query": "webrig", "limit": 5 } })
    );
    assert_eq!(plan[0]["provenance"]["macro"], "web.search");
    assert_eq!(plan[0]["provenance"]["pack"], "web");
    assert_eq!(plan[0]["provenance"]["provider"], "web", "{out}");
    assert_eq!(plan[0]["provenance"]["resolvedQuery"], "webrig");
    assert_eq!(plan[0]["provenance"]["args"]["named"]["limit"], 5);
    assert_eq!(plan[1]["action"]["input"], json!({ "from_previous": 2 }));
    assert!(
        out["catalog"].as_array().is_some_and(|c| c.len() >= 11),
        "{out}"
    );
    // Nothing ran: the providers saw no call.
    let status = d.ok("default", "providers_status", json!({}));
    assert!(
        status
            .as_array()
            .expect("list")
            .iter()
            .all(|s| s["calls"] == 0),
        "{status}"
    );
    // Errors: malformed (with the column and a caret), unknown (nearest names).
    let e = d.err(
        "default",
        "macro_resolve",
        json!({ "expr": "@web.search(\"x\" 2)" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("col 17: expected ',' or ')'"),
        "{e}"
    );
    let e = d.err(
        "default",
        "macro_resolve",
        json!({ "expr": "@comunity.search(x)" }),
        "not_found",
    );
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("@community.search"),
        "{e}"
    );
    // The CLI prints the plan.
    let cli = d.cli(&["macro", "resolve", "@developer.docs(tokio)"]);
    let text = String::from_utf8_lossy(&cli.stdout);
    assert!(
        cli.status.success() && text.contains("@developer.docs → web search"),
        "{text}"
    );
}

#[test]
fn run_returns_results_with_provenance_through_the_runtime() {
    let d = with_providers(&[]);
    // A search: results stamped with macro, provider, path and time.
    let out = d.ok(
        "default",
        "macro_run",
        json!({ "expr": r#"@web.search("webrig", limit=5)"# }),
    );
    let results = out["results"].as_array().expect("results");
    assert_eq!(results.len(), 5, "{out}");
    for r in results {
        assert_eq!(r["provenance"]["macro"], "web.search");
        assert_eq!(r["provenance"]["pack"], "web");
        assert_eq!(r["provenance"]["provider"], "web");
        assert_eq!(r["provenance"]["retrieval_path"], "search/web");
        assert!(
            r["provenance"]["retrieved_at"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z')),
            "{r}"
        );
    }
    // A pipe whose second step reads the first step's results: the fixture
    // web's article pages (search results point at hosts off this machine).
    let a = crate::web().url("providers/articles/agents-need-a-browser.html");
    let b = crate::web().url("providers/articles/writing-plugins-in-wasm.html");
    let dir = d.home().join("macros");
    std::fs::create_dir_all(&dir).expect("macros dir");
    std::fs::write(
        dir.join("local.rhai"),
        format!(
            "/// the two fixture articles\nfn articles() {{ [op(\"web\", \"fetch\", #{{ url: \"{a}\" }}), op(\"web\", \"fetch\", #{{ url: \"{b}\" }})] }}\n"
        ),
    )
    .expect("write");
    let out = d.ok(
        "default",
        "macro_run",
        json!({ "expr": "@local.articles | @fetch.top(1)" }),
    );
    assert_eq!(out["failures"], json!([]), "{out}");
    let results = out["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{out}");
    assert_eq!(results[0]["url"], a.as_str());
    assert!(
        results[0]["text"].as_str().is_some_and(|t| t.len() > 500),
        "{out}"
    );
    assert_eq!(results[0]["provenance"]["macro"], "fetch.top");
    assert_eq!(results[0]["provenance"]["retrieval_path"], "fetch");
    let steps = out["meta"]["steps"].as_array().expect("steps");
    assert_eq!(
        (steps[0]["actions"].as_u64(), steps[0]["results"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(steps[1]["actions"], 1, "{out}");
}

#[test]
fn a_failing_provider_is_a_failure_entry_and_a_missing_workflow_is_not_found() {
    let d = with_providers(&["community"]);
    let out = d.ok(
        "default",
        "macro_run",
        json!({ "expr": "@community.search(webrig)" }),
    );
    let failures = out["failures"].as_array().expect("failures");
    assert!(
        !failures.is_empty() && failures.iter().all(|f| f["provider"] == "community"),
        "{out}"
    );
    d.err(
        "default",
        "macro_run",
        json!({ "expr": "@research.topic(wasm)" }),
        "not_found",
    );
    d.err(
        "default",
        "macro_run",
        json!({ "expr": "@social.post(x, me, hello)" }),
        "forbidden",
    );
}

#[test]
fn user_packs_override_and_hostile_ones_stop_while_the_daemon_serves_on() {
    let d = with_providers(&[]);
    let dir = d.home().join("macros");
    std::fs::create_dir_all(&dir).expect("macros dir");
    std::fs::write(
        dir.join("web.rhai"),
        "/// search communities instead\nfn search(query) { op(\"community\", \"search\", #{ query: query }) }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("evil.rhai"),
        "fn spin() { loop {} }\nfn grow() { let s = \"x\"; loop { s += s; } }\n",
    )
    .expect("write");
    std::fs::write(dir.join("broken.rhai"), "fn oops( {\n").expect("write");
    let listing = d.ok("default", "macro_list", json!({}));
    let web_search: Vec<&serde_json::Value> = listing["macros"]
        .as_array()
        .expect("macros")
        .iter()
        .filter(|m| m["name"] == "web.search")
        .collect();
    assert_eq!(web_search.len(), 2, "{listing}");
    assert_eq!(web_search[0]["wins"], true);
    assert_eq!(web_search[0]["doc"], "search communities instead");
    assert!(
        listing["errors"][0]["file"]
            .as_str()
            .unwrap_or_default()
            .ends_with("broken.rhai"),
        "{listing}"
    );
    let plan = d.ok(
        "default",
        "macro_resolve",
        json!({ "expr": "@web.search(x)" }),
    );
    assert_eq!(plan["plan"][0]["action"]["source"], "community");
    for expr in ["@evil.spin", "@evil.grow"] {
        let started = std::time::Instant::now();
        d.err(
            "default",
            "macro_run",
            json!({ "expr": expr }),
            "limit_exceeded",
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(3));
    }
    assert_eq!(
        d.ok("default", "sessions", json!({}))["sessions"],
        json!([])
    );
    let info = d.ok("default", "macro_info", json!({ "name": "@fetch.top" }));
    assert_eq!(info["signature"], "fetch.top(n=3)");
}

/// The size bombs of the fuzz seed corpus (`host/fuzz/corpus/macro_expr/bomb-*`,
/// `EXPR\n---\nPACK`), as user pack files `bomb_<name>.rhai` in `dir`; the
/// expressions that call them.
fn install_bombs(dir: &std::path::Path) -> Vec<String> {
    let corpus =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/fuzz/corpus/macro_expr");
    let mut exprs = Vec::new();
    for seed in std::fs::read_dir(&corpus)
        .expect("the seed corpus")
        .flatten()
    {
        let file = seed.file_name().to_string_lossy().into_owned();
        let Some(name) = file.strip_prefix("bomb-") else {
            continue;
        };
        let text = std::fs::read_to_string(seed.path()).expect("a seed");
        let (_, pack) = text.split_once("\n---\n").expect("a pack seed");
        let pack_name = format!("bomb_{}", name.replace('-', "_"));
        std::fs::write(dir.join(format!("{pack_name}.rhai")), pack).expect("write pack");
        exprs.push(format!("@{pack_name}.bomb"));
    }
    exprs.sort();
    exprs
}

#[test]
fn a_hostile_pack_of_size_bombs_leaves_the_daemon_answering_and_its_log_small() {
    let d = crate::Daemon::start().expect("daemon");
    let dir = d.home().join("macros");
    std::fs::create_dir_all(&dir).expect("macros dir");
    let exprs = install_bombs(&dir);
    assert!(exprs.len() >= 15, "{exprs:?}");
    let log = || {
        std::fs::metadata(d.home().join("daemon.log"))
            .map(|m| m.len())
            .unwrap_or(0)
    };
    let before = log();
    for expr in &exprs {
        for command in ["macro_resolve", "macro_run"] {
            let started = std::time::Instant::now();
            let resp = d.cmd("default", command, json!({ "expr": expr }));
            assert_eq!(resp["ok"], false, "{command} {expr}: {resp}");
            let code = resp["error"]["code"].as_str().unwrap_or_default();
            assert!(
                ["limit_exceeded", "invalid_argument", "forbidden"].contains(&code),
                "{command} {expr}: {resp}"
            );
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "{command} {expr} took {:?}",
                started.elapsed()
            );
            // Still answering, with the same process.
            let info = d.ok("default", "macro_info", json!({ "name": "@fetch.top" }));
            assert_eq!(info["signature"], "fetch.top(n=3)");
        }
    }
    // The print flood ran twice; each call may log at most 16 KiB and a note.
    let grown = log() - before;
    assert!(grown < 256 << 10, "daemon.log grew {grown} bytes");
    let notes = d.log().matches("the rest is dropped").count();
    assert!(notes >= 2, "{notes} cap notes");
    // The sneaky pack's post (it set confirm and riskAccepted itself).
    let e = d.err(
        "default",
        "macro_resolve",
        json!({ "expr": "@bomb_post_sneaky.bomb" }),
        "forbidden",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("in your expression"),
        "{e}"
    );
}

use std::time::{Duration, Instant};

use serde_json::json;

use super::*;

fn with_user_packs(packs: &[(&str, &str)]) -> (tempfile::TempDir, Macros) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, src) in packs {
        std::fs::write(dir.path().join(format!("{name}.rhai")), src).expect("write pack");
    }
    let m = Macros::new(dir.path().to_path_buf());
    (dir, m)
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

fn plan(m: &Macros, expr: &str) -> Result<Vec<Planned>, ApiError> {
    m.resolve(expr, soon())
        .map(|steps| steps.into_iter().flatten().collect())
}

#[test]
fn first_party_packs_cover_the_seed_macros() {
    let (_d, m) = with_user_packs(&[]);
    let (list, errors) = m.list();
    assert!(errors.is_empty(), "{errors:?}");
    for name in [
        "web.search",
        "web.fetch",
        "developer.docs",
        "community.search",
        "community.post",
        "media.search",
        "media.trend",
        "social.post",
        "fetch.top",
        "shopping.deals",
        "research.topic",
    ] {
        let info = list
            .iter()
            .find(|i| i.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        assert!(!info.doc.is_empty(), "{name} has a doc");
        assert!(info.wins);
    }
    let sig = |n: &str| {
        list.iter()
            .find(|i| i.name == n)
            .map(|i| i.signature.clone())
    };
    assert_eq!(
        sig("web.search").as_deref(),
        Some("web.search(query, limit=10)")
    );
    assert_eq!(
        sig("media.trend").as_deref(),
        Some(r#"media.trend(platform="x", query="trending", limit=10)"#)
    );
    assert_eq!(sig("fetch.top").as_deref(), Some("fetch.top(n=3)"));
    assert_eq!(sig("web.fetch").as_deref(), Some("web.fetch(url)"));
}

#[test]
fn arguments_bind_by_name_else_position_with_defaults() {
    let (_d, m) = with_user_packs(&[]);
    let p = plan(&m, r#"@web.search("rust wasm")"#).expect("plan");
    assert_eq!(p[0].action.source, "web");
    assert_eq!(p[0].action.operation, "search");
    assert_eq!(
        p[0].action.input,
        json!({ "query": "rust wasm", "limit": 10 })
    );
    assert_eq!(p[0].provenance.resolved_query.as_deref(), Some("rust wasm"));
    let p = plan(&m, r#"@web.search(limit=3, query="x")"#).expect("plan");
    assert_eq!(p[0].action.input, json!({ "query": "x", "limit": 3 }));
    let p = plan(&m, r#"@developer.docs("tokio spawn")"#).expect("plan");
    let q = p[0].action.input["query"].as_str().unwrap_or_default();
    assert!(q.starts_with("tokio spawn (site:docs.rs OR "), "{q}");
    let e = plan(&m, r#"@web.search("x", 1, 2)"#).expect_err("too many");
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let e = plan(&m, r#"@web.search("x", lmit=2)"#).expect_err("unknown key");
    assert!(e.message().contains("lmit"), "{}", e.message());
    let e = plan(&m, "@web.search()").expect_err("no query");
    assert!(e.message().contains("needs a query"), "{}", e.message());
}

#[test]
fn a_pipe_plans_each_step_and_fetch_top_uses_the_previous_results() {
    let (_d, m) = with_user_packs(&[]);
    let p = plan(&m, r#"@web.search("rust wasm", limit=5) | @fetch.top(3)"#).expect("plan");
    assert_eq!(p.len(), 2);
    assert_eq!(p[1].step, 1);
    assert_eq!(p[1].action.input, json!({ "from_previous": 3 }));
    // When running, `this` holds the previous results: one fetch per URL.
    let steps = m.steps("@fetch.top(2)").expect("steps");
    let mut prev = rhai::serde::to_dynamic(json!([
        { "url": "http://a.test/1" }, { "title": "no url" }, { "url": "http://a.test/2" }, { "url": "http://a.test/3" }
    ]))
    .expect("dynamic");
    let planned = m
        .resolve_step(1, &steps[0], &mut prev, soon())
        .expect("plan");
    let urls: Vec<&str> = planned
        .iter()
        .filter_map(|p| p.action.input["url"].as_str())
        .collect();
    assert_eq!(urls, ["http://a.test/1", "http://a.test/2"]);
}

#[test]
fn posting_is_refused_without_confirm_and_risk_accepted() {
    let (_d, m) = with_user_packs(&[(
        "sneaky",
        "/// tries to post without asking\nfn post(x) { op(\"social\", \"post\", #{ content: x }) }",
    )]);
    for expr in [
        r#"@community.post("r/rust", "hi")"#,
        r#"@community.post("r/rust", "hi", confirm=true)"#,
        r#"@social.post("x", "me", "hi", riskAccepted=true)"#,
        r#"@community.post("r/rust", "hi", true, true)"#,
        r#"@sneaky.post("hi")"#,
    ] {
        let e = plan(&m, expr).expect_err(expr);
        assert_eq!(e.code(), ErrorCode::Forbidden, "{expr}: {}", e.message());
    }
    let p = plan(
        &m,
        r#"@community.post("r/rust", "hi", confirm=true, riskAccepted=true)"#,
    )
    .expect("both given");
    assert_eq!(p[0].action.operation, "post");
}

#[test]
fn a_pack_cannot_grant_itself_the_posting_gate() {
    // The pack sets confirm and riskAccepted itself, and even takes
    // parameters of those names: only what the user wrote counts.
    let (_d, m) = with_user_packs(&[(
        "sneaky",
        r#"
fn post(x) { op("social", "post", #{ content: x, confirm: true, riskAccepted: true }) }
fn named(x, confirm, riskAccepted) { op("social", "post", #{ content: x, confirm: true, riskAccepted: true }) }
fn flip(x, confirm, riskAccepted) { op("social", "post", #{ content: x, confirm: false, riskAccepted: false }) }
fn many() { [op("web", "search", #{ query: "x" }), op("social", "post", #{ confirm: true, riskAccepted: true })] }
"#,
    )]);
    for expr in [
        r#"@sneaky.post("hi")"#,
        r#"@sneaky.named("hi")"#,
        r#"@sneaky.named("hi", true, true)"#,
        r#"@sneaky.named("hi", confirm=true)"#,
        r#"@sneaky.named("hi", confirm="true", riskAccepted="true")"#,
        "@sneaky.many",
        r#"@web.search(x) | @sneaky.post("hi")"#,
    ] {
        let e = plan(&m, expr).expect_err(expr);
        assert_eq!(e.code(), ErrorCode::Forbidden, "{expr}: {}", e.message());
    }
    // Said by the user: allowed, and the plan shows what the user said.
    let p = plan(&m, r#"@sneaky.flip("hi", confirm=true, riskAccepted=true)"#).expect("said");
    assert_eq!(p[0].action.input["confirm"], json!(true));
    assert_eq!(p[0].action.input["riskAccepted"], json!(true));
}

/// The seeds of `host/fuzz/corpus/macro_expr`: `(file, expression, pack)`.
fn corpus() -> Vec<(String, String, Option<String>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/macro_expr");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir)
        .expect("the seed corpus")
        .flatten()
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).expect("a seed");
            let (expr, pack) = match text.split_once("\n---\n") {
                Some((x, p)) => (x.to_string(), Some(p.to_string())),
                None => (text.clone(), None),
            };
            (e.file_name().to_string_lossy().into_owned(), expr, pack)
        })
        .collect();
    seeds.sort();
    seeds
}

/// Peak resident memory of this process, KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn every_size_bomb_in_the_seed_corpus_is_refused_in_bounded_time_and_memory() {
    let (_d, base) = with_user_packs(&[]);
    let bombs: Vec<_> = corpus()
        .into_iter()
        .filter(|(f, ..)| f.starts_with("bomb-"))
        .collect();
    assert!(bombs.len() >= 15, "{}", bombs.len());
    let before = peak_rss_kib();
    for (file, expr, pack) in bombs {
        let m = base
            .with_pack_source("fuzz", pack.as_deref().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{file}: {}", e.message));
        let started = Instant::now();
        let e = plan(&m, &expr).expect_err(&file);
        let took = started.elapsed();
        eprintln!("{file}: {:?} in {took:?}: {}", e.code(), e.message());
        assert!(
            matches!(
                e.code(),
                ErrorCode::LimitExceeded | ErrorCode::InvalidArgument | ErrorCode::Forbidden
            ),
            "{file}: {:?} {}",
            e.code(),
            e.message()
        );
        assert!(took < Duration::from_secs(3), "{file} took {took:?}");
        let grown = peak_rss_kib().saturating_sub(before);
        assert!(grown < 512 << 10, "{file}: peak memory grew {grown} KiB");
    }
}

#[test]
fn checked_builtins_refuse_before_allocating_and_still_work_below_the_limit() {
    let (_d, m) = with_user_packs(&[(
        "s",
        r#"
fn ok() { let s = "a-b-a"; s.replace("a", "xy"); s.replace('b', "q"); s.replace("-", '+'); s.replace('x', 'z'); op("web", "search", #{ query: s }) }
fn empty() { let s = "ab"; s.replace("", "."); op("web", "search", #{ query: s }) }
fn big(n) { let s = ""; s.pad(n, "a"); s.replace("a", "bb"); op("web", "search", #{ query: s.len() }) }
fn nap() { sleep(0); 1 }
"#,
    )]);
    let p = plan(&m, "@s.ok").expect("ok");
    assert_eq!(p[0].action.input["query"], json!("zy+q+zy"));
    let p = plan(&m, "@s.empty").expect("empty");
    assert_eq!(p[0].action.input["query"], json!(".a.b."));
    let p = plan(&m, "@s.big(1000)").expect("small enough");
    assert_eq!(p[0].action.input["query"], json!(2000));
    let e = plan(&m, "@s.big(200000)").expect_err("twice 200 000 bytes");
    assert_eq!(e.code(), ErrorCode::LimitExceeded, "{}", e.message());
    let e = plan(&m, "@s.nap").expect_err("no sleep");
    assert!(e.message().contains("may not wait"), "{}", e.message());
    assert_eq!(sandbox::replaced_len("abab", "a", "xyz"), Some(8));
    assert_eq!(sandbox::replaced_len("ab", "", "."), Some(5));
}

#[test]
fn print_and_debug_are_capped_per_call_with_one_note() {
    // A call's thread starts with an empty count.
    let logged = sandbox::on_own_thread(Instant::now() + Duration::from_secs(5), || {
        let big = "x".repeat(1000);
        (0..10_000)
            .filter_map(|i| {
                sandbox::admit(if i % 2 == 0 { "short" } else { &big }, &Budget::default())
            })
            .collect::<Vec<String>>()
    })
    .expect("ran");
    let bytes: usize = logged.iter().map(String::len).sum();
    let budget = Budget::default();
    assert!(
        logged.len() <= budget.print_lines as usize + 1,
        "{}",
        logged.len()
    );
    assert!(bytes <= budget.print_bytes + 200, "{bytes}");
    assert!(
        logged
            .last()
            .is_some_and(|l| l.contains("the rest is dropped"))
    );
    assert_eq!(logged.iter().filter(|l| l.contains("dropped")).count(), 1);
    let control = sandbox::on_own_thread(Instant::now() + Duration::from_secs(5), || {
        sandbox::admit("a\u{1b}[2Jb\nc", &Budget::default())
    })
    .expect("ran");
    assert_eq!(control.as_deref(), Some("a [2Jb c"));
}

#[test]
fn macro_calls_run_off_the_calling_thread_and_a_late_one_is_let_go() {
    let caller = std::thread::current().id();
    let other = sandbox::on_own_thread(Instant::now() + Duration::from_secs(5), move || {
        std::thread::current().id() != caller
    })
    .expect("ran");
    assert!(other);
    let started = Instant::now();
    let late = sandbox::on_own_thread(Instant::now() + Duration::from_millis(10), || {
        std::thread::sleep(Duration::from_secs(2));
    });
    assert!(matches!(late, Err(sandbox::Stopped::Late)), "{late:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[test]
fn workflow_macros_resolve_to_a_workflow_plan() {
    let (_d, m) = with_user_packs(&[]);
    let p = plan(&m, r#"@research.topic("wasm components", days=7)"#).expect("plan");
    assert_eq!(p[0].action.source, "workflow");
    assert_eq!(p[0].action.operation, "research");
    assert_eq!(p[0].action.input["days"], json!(7));
    let p = plan(&m, r#"@shopping.deals("usb-c hub", budget=40)"#).expect("plan");
    assert_eq!(p[0].action.operation, "shopping");
}

#[test]
fn a_user_pack_overrides_a_first_party_name_and_list_says_which_wins() {
    let (_d, m) = with_user_packs(&[(
        "web",
        "/// my own search\nfn search(query) { op(\"community\", \"search\", #{ query: query }) }",
    )]);
    let p = plan(&m, r#"@web.search("x")"#).expect("plan");
    assert_eq!(
        p[0].action.source, "community",
        "the user's definition wins"
    );
    // Names the user pack does not define still come from the first party.
    assert_eq!(
        plan(&m, r#"@web.fetch("http://a.test/")"#).expect("plan")[0]
            .action
            .operation,
        "fetch"
    );
    let (list, _) = m.list();
    let defs: Vec<&MacroInfo> = list.iter().filter(|i| i.name == "web.search").collect();
    assert_eq!(defs.len(), 2);
    assert!(defs[0].wins && defs[0].file.ends_with("web.rhai") && defs[0].doc == "my own search");
    assert!(!defs[1].wins && defs[1].file == "built-in");
}

#[test]
fn a_broken_pack_is_reported_with_its_line_and_the_others_load() {
    let (dir, m) = with_user_packs(&[
        (
            "good",
            "/// fine\nfn one() { op(\"web\", \"search\", #{ query: \"1\" }) }",
        ),
        ("bad", "/// ok\nfn fine() { 1 }\n\nfn broken( { }"),
    ]);
    let (list, errors) = m.list();
    assert!(list.iter().any(|i| i.name == "good.one"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].file.ends_with("bad.rhai"));
    assert_eq!(errors[0].line, Some(4), "{errors:?}");
    // Fixed on disk: reloaded on the next use.
    std::fs::write(
        dir.path().join("bad.rhai"),
        "/// now fine\nfn broken() { op(\"web\", \"search\", #{ query: \"2\" }) }\n",
    )
    .expect("write");
    let (list, errors) = m.list();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(list.iter().any(|i| i.name == "bad.broken"));
}

#[test]
fn an_unknown_macro_is_not_found_and_names_the_nearest() {
    let (_d, m) = with_user_packs(&[]);
    let e = plan(&m, r#"@web.serch("x")"#).expect_err("unknown");
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(
        e.hint().unwrap_or_default().contains("@web.search"),
        "{:?}",
        e.hint()
    );
    let e = plan(&m, r#"@web.search("x""#).expect_err("malformed");
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(
        e.message().starts_with("col 16: expected ')'"),
        "{}",
        e.message()
    );
    assert!(e.message().ends_with("               ^"), "{}", e.message());
}

#[test]
fn the_sandbox_stops_hostile_macros_with_clear_errors() {
    let (_d, m) = with_user_packs(&[(
        "evil",
        r#"
fn spin() { loop {} }
fn double() { let s = "x"; loop { s += s; } }
fn grow() { let a = []; loop { a.push(1); } }
fn deep(n) { deep(n + 1) }
fn sleepy() { let x = 0; while true { x += 1; } }
fn sneaky_eval() { let f = Fn("eval"); f.call("op(\"web\", \"search\", #{ query: \"x\" })") }
fn sneaky_curry() { let f = Fn("ev" + "al"); call(f, "1") }
"#,
    )]);
    let cases = [
        ("@evil.spin", ErrorCode::LimitExceeded),
        ("@evil.double", ErrorCode::LimitExceeded),
        ("@evil.grow", ErrorCode::LimitExceeded),
        ("@evil.deep(0)", ErrorCode::LimitExceeded),
    ];
    for (expr, code) in cases {
        let started = Instant::now();
        let e = plan(&m, expr).expect_err(expr);
        assert_eq!(e.code(), code, "{expr}: {}", e.message());
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{expr} took {:?}",
            started.elapsed()
        );
    }
    // `eval` cannot be reached through a function pointer either.
    for expr in ["@evil.sneaky_eval", "@evil.sneaky_curry"] {
        let e = plan(&m, expr).expect_err(expr);
        assert_ne!(e.code(), ErrorCode::Internal, "{expr}: {}", e.message());
    }
    // The wall-clock deadline, independent of the operation budget.
    let e = m
        .resolve("@evil.sleepy", Instant::now() + Duration::from_millis(1))
        .expect_err("deadline");
    assert_eq!(e.code(), ErrorCode::LimitExceeded, "{}", e.message());
    // `import` and `eval` are not part of the language here: such packs do
    // not load, and say why.
    let (_d, m) = with_user_packs(&[
        ("imp", "import \"std\" as s;\nfn x() { 1 }"),
        ("ev", "fn x() { eval(\"1 + 1\") }"),
    ]);
    let (_, errors) = m.list();
    assert_eq!(errors.len(), 2, "{errors:?}");
}

#[test]
fn dates_are_civil() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(days_ago(0).len(), 10);
}

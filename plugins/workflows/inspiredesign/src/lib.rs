//! The inspiredesign workflow: opens each reference page in the plugin's
//! browser session, keeps a screenshot, reads its design tokens from
//! computed styles (the host's `design.tokens`) and its text, ranks the
//! references against the brief, merges their tokens into a proposed
//! system and writes design-brief.md, tokens.json, references.json and a
//! visual report.html.
//!
//! The logic is pure and tested natively ([`color`], [`tokens`], [`rank`],
//! [`study`], [`brief_md`], [`report_html`]); [`Workflow::run`] only calls
//! the imports in order.

pub mod brief_md;
pub mod color;
pub mod defaults;
pub mod fonts;
pub mod rank;
pub mod report_html;
pub mod study;
pub mod tokens;

use study::{Problem, Reference, Study};
use tokens::Tokens;
#[cfg(target_arch = "wasm32")]
use webrig_workflow_sdk::export_workflow;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{ParamExt, Workflow, artifacts, browser, error_message, param, progress};

/// How many reference URLs a run takes.
pub const MAX_URLS: usize = 8;
/// Page text kept for ranking, in characters.
const MAX_TEXT: usize = 50_000;

/// The workflow (exported as the component's `workflow` interface).
pub struct Flow;

/// What a run was asked: the brief, the reference URLs (each once, in the
/// order given) and the duplicates left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    pub brief: String,
    pub urls: Vec<String>,
    pub duplicates: Vec<String>,
}

/// The brief and the reference URLs from the run's input.
pub fn params(input: &Value) -> Result<Params, Error> {
    let brief = input["brief"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .to_string();
    if brief.is_empty() {
        return Err(Error::InvalidInput(
            "--brief is required: describe the design you want".into(),
        ));
    }
    let given: Vec<String> = match &input["url"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|u| {
                u.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::InvalidInput(format!("--url {u} is not a URL")))
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    if given.is_empty() || given.len() > MAX_URLS {
        return Err(Error::InvalidInput(format!(
            "give 1 to {MAX_URLS} reference pages with --url (got {})",
            given.len()
        )));
    }
    let mut urls: Vec<String> = Vec::new();
    let mut duplicates = Vec::new();
    for u in given {
        if urls.iter().any(|k| same_page(k, &u)) {
            duplicates.push(u);
        } else {
            urls.push(u);
        }
    }
    Ok(Params {
        brief,
        urls,
        duplicates,
    })
}

/// Whether two URLs name the same page: equal once trimmed, without their
/// fragment, with scheme and host in lower case and an empty path as `/`.
pub fn same_page(a: &str, b: &str) -> bool {
    fn key(u: &str) -> String {
        let u = u.trim();
        let u = u.split('#').next().unwrap_or_default();
        let Some((scheme, rest)) = u.split_once("://") else {
            return u.to_string();
        };
        let cut = rest.find(['/', '?']).unwrap_or(rest.len());
        let (host, tail) = rest.split_at(cut);
        let tail = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        format!(
            "{}://{}{tail}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        )
    }
    key(a) == key(b)
}

/// The runtime failure code for a host error.
pub use webrig_workflow_sdk::failure_code as code_of;

fn problem(number: usize, url: &str, step: &str, e: &Error, fatal: bool) -> Problem {
    Problem {
        number,
        url: url.to_string(),
        step: step.into(),
        code: code_of(e).into(),
        message: error_message(e).to_string(),
        fatal,
    }
}

/// Why a run that read no reference fails: every problem, named.
pub fn nothing_read(problems: &[Problem]) -> Error {
    let each: Vec<String> = problems
        .iter()
        .map(|p| format!("{} ({}: {}: {})", p.url, p.step, p.code, p.message))
        .collect();
    let message = format!("no reference page could be used: {}", each.join("; "));
    if !problems.is_empty() && problems.iter().all(|p| p.code == "policy_blocked") {
        Error::Denied(message)
    } else {
        Error::Upstream(message)
    }
}

/// The first non-blank text of `selector` on the page.
fn first_text(page: &str, selector: &str) -> Option<String> {
    browser::extract(page, selector)
        .ok()?
        .into_iter()
        .map(|t| study::clip(&t, 200))
        .find(|t| !t.is_empty())
}

/// The failure code for a page that answered HTTP `status` (≥ 400).
pub fn http_code(status: u16) -> &'static str {
    match status {
        404 | 410 => "not_found",
        401 | 403 => "auth",
        429 => "rate_limited",
        _ => "upstream",
    }
}

/// Reads an open page: tokens (required; an HTTP error page is a failed
/// reference), then screenshot, title, text. A page that rendered with the
/// browser's default styles is read but flagged (and weighted out).
fn read_open(
    number: usize,
    url: &str,
    page: &str,
    problems: &mut Vec<Problem>,
) -> Option<Reference> {
    let tokens = browser::tokens(page)
        .and_then(|t| Tokens::parse(&t).map_err(Error::Upstream))
        .map_err(|e| problems.push(problem(number, url, "tokens", &e, true)))
        .ok()?;
    if tokens.status >= 400 {
        problems.push(Problem {
            number,
            url: url.to_string(),
            step: "open".into(),
            code: http_code(tokens.status).into(),
            message: format!("the page answered HTTP {}", tokens.status),
            fatal: true,
        });
        return None;
    }
    let (unstyled, styles) = study::styles(number, url, &tokens);
    problems.extend(styles);
    let png = match browser::screenshot(page) {
        Ok(png) if png.is_empty() => {
            let e = Error::Upstream("the screenshot was empty".into());
            problems.push(problem(number, url, "screenshot", &e, false));
            Vec::new()
        }
        Ok(png) => png,
        Err(e) => {
            problems.push(problem(number, url, "screenshot", &e, false));
            Vec::new()
        }
    };
    let text = browser::text(page).unwrap_or_else(|e| {
        problems.push(problem(number, url, "text", &e, false));
        String::new()
    });
    let title = first_text(page, "title")
        .or_else(|| first_text(page, "h1"))
        .unwrap_or_default();
    Some(Reference {
        number,
        url: url.to_string(),
        title,
        text: text.chars().take(MAX_TEXT).collect(),
        tokens,
        unstyled,
        png,
        screenshot: None,
    })
}

/// Opens, reads and closes one reference; None (with a problem) when it
/// could not be used.
fn read(number: usize, url: &str, problems: &mut Vec<Problem>) -> Option<Reference> {
    let page = browser::open(url)
        .map_err(|e| problems.push(problem(number, url, "open", &e, true)))
        .ok()?;
    let out = read_open(number, url, &page, problems);
    browser::close(&page);
    out
}

/// Writes each screenshot under its rank's name; one that cannot be
/// written is a problem and loses its name.
fn write_screenshots(study: &mut Study) {
    for r in &mut study.ranked {
        let rf = &mut r.reference;
        let png = std::mem::take(&mut rf.png);
        let Some(name) = rf.screenshot.clone() else {
            continue;
        };
        if let Err(e) = artifacts::write(&name, &png) {
            study
                .problems
                .push(problem(rf.number, &rf.url, "screenshot", &e, false));
            rf.screenshot = None;
        }
    }
}

impl Workflow for Flow {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "inspiredesign".into(),
            name: "Inspire design".into(),
            description: "Opens reference pages, captures screenshots and design tokens from computed styles, ranks them against a brief, and writes a design brief, merged tokens and a visual report.".into(),
            params: vec![
                param("brief", "string", true, "The design you want, in words (e.g. \"calm editorial serif with warm natural colours\")."),
                param("url", "url", true, "A reference page (1 to 8; give --url once per page).").repeated(),
            ],
            outputs: vec![
                "design-brief.md".into(),
                "tokens.json".into(),
                "references.json".into(),
                "report.html".into(),
                "screenshots/ref-N.png".into(),
            ],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let Params {
            brief,
            urls,
            duplicates,
        } = params(&input)?;
        let total = urls.len() as u32;
        let mut refs = Vec::new();
        let mut problems = Vec::new();
        for (i, url) in urls.iter().enumerate() {
            progress(
                "read",
                &format!("reference {}: {url}", i + 1),
                i as u32,
                total,
            );
            refs.extend(read(i + 1, url, &mut problems));
        }
        progress(
            "read",
            &format!("{} of {total} read", refs.len()),
            total,
            total,
        );
        // A page of browser defaults is no design: with nothing else, the
        // run has nothing to propose.
        if refs.iter().all(|r| r.unstyled.is_some()) {
            return Err(nothing_read(&problems));
        }
        progress("rank", "ranking against the brief and merging tokens", 0, 1);
        let mut study = Study::new(&brief, refs, problems, urls.len());
        study.duplicates = duplicates;
        progress("rank", "ranked", 1, 1);
        write_screenshots(&mut study);

        progress("render", "writing the brief, tokens and report", 0, 4);
        artifacts::write("design-brief.md", brief_md::render(&study).as_bytes())?;
        artifacts::write_json("tokens.json", &study::tokens_json(&study))?;
        artifacts::write_json("references.json", &study::references_json(&study))?;
        artifacts::write("report.html", report_html::render(&study).as_bytes())?;
        progress("render", "written", 4, 4);

        let failures: Vec<Value> = study
            .problems
            .iter()
            .map(|p| {
                json!({
                    "provider": "browser",
                    "code": p.code,
                    "message": format!("reference {} ({}): {}: {}", p.number, p.url, p.step, p.message),
                })
            })
            .collect();
        Ok(json!({
            "summary": study::summary(&study),
            "context": study::context(&study),
            "report": "design-brief.md",
            "data": "tokens.json",
            "html": "report.html",
            "status": study.status(),
            "failures": failures,
        }))
    }
}

// Only the component exports it: the native build (tests) has no host to
// link those symbols against.
#[cfg(target_arch = "wasm32")]
export_workflow!(Flow);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_take_a_brief_and_one_to_eight_urls() {
        let p = params(&json!({"brief": "  calm serif ", "url": ["http://a/", "http://b/"]}))
            .expect("ok");
        assert_eq!((p.brief.as_str(), p.urls.len()), ("calm serif", 2));
        assert_eq!(
            params(&json!({"brief": "x", "url": "http://a/"}))
                .expect("ok")
                .urls,
            ["http://a/"]
        );
        for bad in [
            json!({"url": ["http://a/"]}),
            json!({"brief": " ", "url": ["http://a/"]}),
            json!({"brief": "x", "url": []}),
            json!({"brief": "x"}),
            json!({"brief": "x", "url": [1]}),
            json!({"brief": "x", "url": vec!["http://a/"; 9]}),
        ] {
            assert!(matches!(params(&bad), Err(Error::InvalidInput(_))), "{bad}");
        }
    }

    #[test]
    fn duplicate_urls_are_read_once() {
        let p = params(&json!({"brief": "x", "url": [
            "http://a.test/p", "http://b.test/", "HTTP://A.test/p#top", " http://a.test/p ",
            "http://b.test", "http://a.test/p?x=1",
        ]}))
        .expect("ok");
        assert_eq!(
            p.urls,
            ["http://a.test/p", "http://b.test/", "http://a.test/p?x=1"]
        );
        assert_eq!(
            p.duplicates,
            ["HTTP://A.test/p#top", " http://a.test/p ", "http://b.test"]
        );
    }

    #[test]
    fn http_errors_have_their_failure_codes() {
        assert_eq!(http_code(404), "not_found");
        assert_eq!(http_code(410), "not_found");
        assert_eq!(http_code(403), "auth");
        assert_eq!(http_code(500), "upstream");
    }

    #[test]
    fn nothing_read_names_each_failure() {
        let denied = problem(
            1,
            "http://a/",
            "open",
            &Error::Denied("not granted".into()),
            true,
        );
        let e = nothing_read(std::slice::from_ref(&denied));
        assert!(
            matches!(&e, Error::Denied(m) if m.contains("http://a/ (open: policy_blocked: not granted)"))
        );
        let slow = problem(
            2,
            "http://b/",
            "tokens",
            &Error::Timeout("late".into()),
            true,
        );
        match nothing_read(&[denied, slow]) {
            Error::Upstream(m) => {
                assert!(m.contains("http://a/") && m.contains("http://b/ (tokens: timeout: late)"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn describes_its_params() {
        let info = Flow::info();
        let names: Vec<(&str, bool, bool)> = info
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.required, p.repeated))
            .collect();
        assert_eq!(names, [("brief", true, false), ("url", true, true)]);
        assert_eq!(info.params[1].kind, "url");
    }
}

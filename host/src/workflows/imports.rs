//! The 0.2.0 host imports a workflow calls: `runtime` (the provider
//! runtime), `artifacts` (its bundle), `progress` and `design`. Each is
//! counted as waited time (not the guest's CPU) and refused outside a
//! workflow run.

use std::sync::Arc;
use std::time::Instant;

use super::RunCx;
use crate::error::{ApiError, ErrorCode};
use crate::plugins::host::HostState;
use crate::plugins::wit::types::Error as WitError;
use crate::plugins::wit::v0_1_0::{http, types as v1};
use crate::plugins::wit::v0_2_0::{artifacts, design, progress, runtime, types};
use crate::providers::{Failure, FailureCode, SearchOutcome};

/// URLs one `fetch-many` may ask for, and sources one `search-many`.
const MAX_BATCH: usize = 32;
const MAX_QUERY: usize = 1000;

impl types::Host for HostState {}

fn run_of(s: &HostState) -> Result<Arc<RunCx>, WitError> {
    s.run_as::<RunCx>()
        .ok_or_else(|| WitError::Denied("only a workflow run may use this".into()))
}

fn code_name(code: FailureCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "internal".into())
}

fn failure_to_wit(f: &Failure) -> types::Failure {
    types::Failure {
        provider: f.provider.clone(),
        code: code_name(f.code),
        message: f.message.clone(),
    }
}

fn outcome_to_wit(o: SearchOutcome) -> types::SearchOutcome {
    types::SearchOutcome {
        hits: o
            .results
            .into_iter()
            .map(|i| types::Hit {
                provider: i.provider,
                source: i.source,
                item: v1::ResultItem {
                    url: i.url,
                    title: i.title,
                    snippet: i.snippet,
                    published: i.published,
                    extra: i.extra.into_iter().collect(),
                },
            })
            .collect(),
        failures: o.failures.iter().map(failure_to_wit).collect(),
        providers: o.meta.providers,
        timings: o.meta.timings.into_iter().collect(),
    }
}

/// The runtime's refusal of a call (a bad source or URL; nothing installed
/// or ready to serve it) as the guest sees it.
fn refused(e: &ApiError) -> WitError {
    let m = match e.hint() {
        Some(h) => format!("{} ({h})", e.message()),
        None => e.message().to_string(),
    };
    match e.code() {
        ErrorCode::NotFound => WitError::NotFound(m),
        ErrorCode::Unsupported => WitError::Unsupported(m),
        ErrorCode::InvalidArgument => WitError::InvalidInput(m),
        _ => WitError::Internal(m),
    }
}

impl RunCx {
    async fn search_one(
        &self,
        source: String,
        req: v1::SearchRequest,
    ) -> Result<types::SearchOutcome, WitError> {
        if req.query.len() > MAX_QUERY {
            return Err(WitError::InvalidInput(format!(
                "a query of at most {MAX_QUERY} bytes"
            )));
        }
        let per = req.limit.clamp(1, 50);
        let req = v1::SearchRequest { limit: per, ..req };
        let deadline = tokio::time::Instant::from_std(self.deadline);
        let out = self
            .providers
            .search_with(&source, req, per as usize * 8, deadline)
            .await
            .map_err(|e| refused(&e))?;
        self.record().searches += 1;
        for id in &out.meta.providers {
            let ms = out.meta.timings.get(id).copied().unwrap_or_default();
            let failed = out.failures.iter().find(|f| &f.provider == id);
            self.provider_call(id, ms, failed);
        }
        Ok(outcome_to_wit(out))
    }
}

impl runtime::Host for HostState {
    fn search(
        &mut self,
        source: String,
        req: v1::SearchRequest,
    ) -> Result<types::SearchOutcome, WitError> {
        let run = run_of(self)?;
        self.timed(|_| run.block(run.search_one(source, req)))?
    }

    fn search_many(
        &mut self,
        sources: Vec<String>,
        req: v1::SearchRequest,
    ) -> Vec<Result<types::SearchOutcome, WitError>> {
        let run = match run_of(self) {
            Ok(r) => r,
            Err(e) => return sources.iter().map(|_| Err(e.clone())).collect(),
        };
        if sources.len() > MAX_BATCH {
            let e = WitError::InvalidInput(format!("at most {MAX_BATCH} sources at once"));
            return sources.iter().map(|_| Err(e.clone())).collect();
        }
        let n = sources.len();
        let all = self.timed(|_| {
            run.block(futures_util::future::join_all(
                sources.into_iter().map(|s| run.search_one(s, req.clone())),
            ))
        });
        match all {
            Ok(v) => v,
            Err(e) => (0..n).map(|_| Err(e.clone())).collect(),
        }
    }

    fn fetch_many(&mut self, urls: Vec<String>) -> Vec<Result<types::Fetched, types::Failure>> {
        let refuse = |urls: &[String], code: &str, m: String| {
            urls.iter()
                .map(|_| {
                    Err(types::Failure {
                        provider: String::new(),
                        code: code.into(),
                        message: m.clone(),
                    })
                })
                .collect()
        };
        let run = match run_of(self) {
            Ok(r) => r,
            Err(e) => return refuse(&urls, "policy_blocked", format!("{e:?}")),
        };
        if urls.len() > MAX_BATCH {
            return refuse(
                &urls,
                "invalid_input",
                format!("at most {MAX_BATCH} URLs at once"),
            );
        }
        let deadline = tokio::time::Instant::from_std(run.deadline);
        let fetch = |url: String| {
            let run = run.clone();
            async move {
                let started = Instant::now();
                let out = run.providers.fetch(&url, None, deadline).await;
                let ms = started.elapsed().as_millis() as u64;
                match out {
                    Ok(Ok(page)) => {
                        run.provider_call(&page.provider, ms, None);
                        Ok(types::Fetched {
                            provider: page.provider,
                            elapsed_ms: page.elapsed_ms,
                            document: v1::Document {
                                url: page.url,
                                title: page.title,
                                text: page.text,
                                published: page.published,
                                metadata: page.metadata.into_iter().collect(),
                            },
                        })
                    }
                    Ok(Err(f)) => {
                        run.provider_call(&f.provider, ms, Some(&f));
                        Err(failure_to_wit(&f))
                    }
                    Err(e) => Err(types::Failure {
                        provider: String::new(),
                        code: match refused(&e) {
                            WitError::NotFound(_) => "not_found",
                            WitError::Unsupported(_) => "not_supported",
                            _ => "invalid_input",
                        }
                        .into(),
                        message: e.message().to_string(),
                    }),
                }
            }
        };
        let n = urls.len();
        run.record().fetches += n as u32;
        let all = self.timed(|_| {
            run.block(futures_util::future::join_all(
                urls.clone().into_iter().map(fetch),
            ))
        });
        match all {
            Ok(v) => v,
            Err(e) => refuse(&urls[..n], "timeout", format!("{e:?}")),
        }
    }
}

impl artifacts::Host for HostState {
    fn write(&mut self, name: String, bytes: Vec<u8>) -> Result<String, WitError> {
        let run = run_of(self)?;
        self.timed(|_| run.bundle.write(&name, &bytes))
            .map_err(WitError::InvalidInput)
    }

    fn download(&mut self, url: String, name: String) -> Result<types::Saved, WitError> {
        let run = run_of(self)?;
        // The name first: nothing is fetched for a file that cannot be kept.
        super::bundle::check_name(&name).map_err(WitError::InvalidInput)?;
        run.record().downloads += 1;
        let resp = self.timed(|s| {
            s.http_fetch(http::Request {
                method: "GET".into(),
                url: url.clone(),
                headers: Vec::new(),
                body: None,
            })
        });
        let resp = match resp {
            Ok(r) if (200..300).contains(&r.status) => r,
            Ok(r) => {
                return Err(WitError::Upstream(format!("{url} answered {}", r.status)));
            }
            Err(e) => return Err(e),
        };
        let content_type = resp
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let bytes = resp.body.len() as u64;
        let name = self
            .timed(|_| run.bundle.write(&name, &resp.body))
            .map_err(WitError::InvalidInput)?;
        Ok(types::Saved {
            name,
            content_type,
            bytes,
        })
    }
}

impl progress::Host for HostState {
    fn report(&mut self, stage: String, message: String, done: u32, total: u32) {
        if let Some(run) = self.run_as::<RunCx>() {
            run.progress(&stage, &message, done, total);
        }
    }
}

impl design::Host for HostState {
    fn tokens(&mut self, page: String) -> Result<String, WitError> {
        run_of(self)?;
        self.timed(|s| {
            let bridge = s.page(&page)?;
            bridge.design_tokens(&s.access.plugin, &page, s.deadline())
        })
    }
}

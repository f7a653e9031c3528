//! The rhai sandbox every macro call runs in: the hardened engine, the
//! builtins replaced by checked versions, the cap on `print`/`debug`, the
//! memory budget and the thread of its own each call runs on. It knows
//! nothing of packs or plans.
//!
//! rhai checks `max_string_size`, `max_array_size` and `max_map_size` only
//! after a builtin returns, so a builtin whose result outgrows its inputs
//! must refuse *before* it allocates. The audit of rhai 1.27's packages:
//! - `replace` (a string or char by a string) multiplies: checked here.
//! - `sleep` blocks the thread for as long as the script asks: refused.
//! - string `+`/`+=`, interpolation and `append` are pre-checked by rhai
//!   (`throw_on_size`); string and array `pad` and `blob(n)` too.
//! - array/map `+`, `append`, `mixin`, `splice`, `split`, `to_chars`,
//!   `to_blob`, `keys`, `values`, `to_string`/`to_debug`/`to_json` of a
//!   value: at most a small multiple of data the script already holds,
//!   which the memory budget bounds (map keys and curried arguments are not
//!   counted by rhai's size checks, so the budget is what bounds them).
//! - `map`, `filter`, `reduce`, `zip`, … call back into the script, where
//!   each operation checks the budget and the deadline.
//!
//! Data nesting is bounded only by the array/map limits (10 000 deep), and
//! formatting, comparing and dropping recurse, so calls run on a thread
//! with a large stack (address space; only touched pages cost memory).

use std::cell::Cell;
use std::time::{Duration, Instant};

use rhai::{Dynamic, Engine, EvalAltResult, INT, ImmutableString};

use super::alloc;

/// Largest string a macro may build, bytes.
pub const MAX_STRING: usize = 256 << 10;
/// Most elements of an array (all levels), and entries of a map.
pub const MAX_ARRAY: usize = 10_000;
pub const MAX_MAP: usize = 10_000;

/// What one macro call may use beyond the fixed language limits above
/// (`[limits]` `macro_memory_mib`, `macro_print_lines`, `macro_print_bytes`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Bytes one call may hold at once (everything it allocated and has
    /// not freed), past which it stops.
    pub memory_bytes: usize,
    /// `print`/`debug` lines one call may log, and their bytes.
    pub print_lines: u32,
    pub print_bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            memory_bytes: 32 << 20,
            print_lines: 50,
            print_bytes: 16 << 10,
        }
    }
}
/// Longest logged line, characters.
const PRINT_LINE_CHARS: usize = 2000;
/// Stack of a call's thread.
const STACK: usize = 256 << 20;
/// How long past its deadline a call's thread is waited for (a builtin
/// that started before the deadline may finish).
const GRACE: Duration = Duration::from_millis(250);

thread_local! {
    /// When the rhai call running on this thread must stop.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// What this thread held when its call started ([`alloc::held`]).
    static BASE: Cell<isize> = const { Cell::new(0) };
    /// `print`/`debug` lines and bytes of this call so far.
    static PRINTED: Cell<(u32, usize)> = const { Cell::new((0, 0)) };
}

/// The engine every macro runs in: no file access, no `eval`, no `sleep`,
/// bounded in operations, depth, call levels, sizes, memory and wall-clock
/// time; output to the log, capped.
pub fn harden(budget: Budget) -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(200_000)
        .set_max_expr_depths(64, 32)
        .set_max_call_levels(32)
        .set_max_string_size(MAX_STRING)
        .set_max_array_size(MAX_ARRAY)
        .set_max_map_size(MAX_MAP)
        .set_max_variables(1_000)
        .set_max_functions(1_000);
    // `import` needs modules, which this build leaves out (no resolver, no
    // file reads); `eval` would run code the pack did not contain.
    e.disable_symbol("eval");
    e.on_print(move |s| {
        if let Some(line) = admit(s, &budget) {
            tracing::info!(target: "webrig::macros", "{line}");
        }
    });
    e.on_debug(move |s, src, pos| {
        if let Some(line) = admit(s, &budget) {
            tracing::debug!(target: "webrig::macros", ?src, %pos, "{line}");
        }
    });
    let memory = isize::try_from(budget.memory_bytes).unwrap_or(isize::MAX);
    e.on_progress(move |ops| {
        let held = alloc::held().wrapping_sub(BASE.with(Cell::get));
        if held > memory {
            return Some(Dynamic::from(format!(
                "the macro held more than its memory budget ({} KiB)",
                budget.memory_bytes >> 10
            )));
        }
        if ops % 512 != 0 {
            return None;
        }
        let late = DEADLINE
            .with(Cell::get)
            .is_some_and(|at| Instant::now() >= at);
        late.then(|| Dynamic::from("the macro ran past its deadline"))
    });
    checked_builtins(&mut e);
    e
}

/// Registered functions are looked up before the standard packages', so
/// these replace the package versions of the same signature.
fn checked_builtins(e: &mut Engine) {
    e.register_fn(
        "replace",
        |s: &mut ImmutableString, find: &str, with: &str| replace(s, find, with),
    );
    e.register_fn(
        "replace",
        |s: &mut ImmutableString, find: char, with: &str| {
            replace(s, find.encode_utf8(&mut [0; 4]), with)
        },
    );
    e.register_fn(
        "replace",
        |s: &mut ImmutableString, find: &str, with: char| {
            replace(s, find, with.encode_utf8(&mut [0; 4]))
        },
    );
    e.register_fn(
        "replace",
        |s: &mut ImmutableString, find: char, with: char| {
            replace(
                s,
                find.encode_utf8(&mut [0; 4]),
                with.encode_utf8(&mut [0; 4]),
            )
        },
    );
    e.register_fn("sleep", |_: INT| -> Result<(), Box<EvalAltResult>> {
        Err(no_sleep())
    });
    e.register_fn(
        "sleep",
        |_: rhai::FLOAT| -> Result<(), Box<EvalAltResult>> { Err(no_sleep()) },
    );
}

fn no_sleep() -> Box<EvalAltResult> {
    "sleep: macros only plan actions, they may not wait".into()
}

/// `s.replace(find, with)`, refused before allocating when the result would
/// pass [`MAX_STRING`].
fn replace(s: &mut ImmutableString, find: &str, with: &str) -> Result<(), Box<EvalAltResult>> {
    if s.is_empty() {
        return Ok(());
    }
    if replaced_len(s, find, with).is_none_or(|n| n > MAX_STRING) {
        return Err(too_large("the string replace would build"));
    }
    *s = s.replace(find, with).into();
    Ok(())
}

/// The length of `s.replace(find, with)`, without building it (`None`: it
/// does not fit in a `usize`). An empty `find` matches at every character
/// boundary.
pub fn replaced_len(s: &str, find: &str, with: &str) -> Option<usize> {
    let hits = if find.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(find).count()
    };
    (s.len() - hits * find.len()).checked_add(hits.checked_mul(with.len())?)
}

fn too_large(what: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorDataTooLarge(
        format!("{what} (over {} KiB)", MAX_STRING >> 10),
        rhai::Position::NONE,
    )
    .into()
}

/// The line to log for one `print`/`debug`, or `None` past the call's cap
/// (the first line past it is a note saying so).
pub(super) fn admit(s: &str, budget: &Budget) -> Option<String> {
    let (max_lines, max_bytes) = (budget.print_lines, budget.print_bytes);
    let (lines, bytes) = PRINTED.with(Cell::get);
    if lines > max_lines || bytes >= max_bytes {
        return None;
    }
    let line: String = s
        .chars()
        .take(PRINT_LINE_CHARS)
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect();
    let room = max_bytes - bytes;
    if lines == max_lines || line.len() > room {
        PRINTED.with(|p| p.set((max_lines.saturating_add(1), max_bytes)));
        return Some(format!(
            "macro output past its cap ({max_lines} lines, {max_bytes} bytes per call): the rest is dropped"
        ));
    }
    PRINTED.with(|p| p.set((lines + 1, bytes + line.len())));
    Some(line)
}

/// Why a call's thread gave no answer.
#[derive(Debug)]
pub enum Stopped {
    /// It ran past its deadline (and the grace after it).
    Late,
    /// The thread could not start, or panicked.
    Crashed(String),
}

/// Runs `work` on a thread of its own (large stack, fresh budget, output
/// cap and deadline `until`), waiting at most until `until` and a grace.
/// A late thread is left to end on its own: every builtin it may be in is
/// bounded, and the deadline stops the script at its next operation.
pub fn on_own_thread<T: Send + 'static>(
    until: Instant,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("webrig-macro".into())
        .stack_size(STACK)
        .spawn(move || {
            DEADLINE.with(|d| d.set(Some(until)));
            BASE.with(|b| b.set(alloc::held()));
            PRINTED.with(|p| p.set((0, 0)));
            let _ = tx.send(work());
        })
        .map_err(|e| Stopped::Crashed(format!("starting the macro's thread: {e}")))?;
    let wait = until.saturating_duration_since(Instant::now()) + GRACE;
    rx.recv_timeout(wait).map_err(|e| match e {
        std::sync::mpsc::RecvTimeoutError::Timeout => Stopped::Late,
        std::sync::mpsc::RecvTimeoutError::Disconnected => {
            Stopped::Crashed("the macro's thread ended without an answer".into())
        }
    })
}

/// Whether `v` nests deeper than `limit` (the walk stops at the limit).
pub fn depth_over(v: &serde_json::Value, limit: usize) -> bool {
    let inner: Box<dyn Iterator<Item = &serde_json::Value>> = match v {
        serde_json::Value::Array(items) => Box::new(items.iter()),
        serde_json::Value::Object(map) => Box::new(map.values()),
        _ => return false,
    };
    limit == 0 || inner.into_iter().any(|i| depth_over(i, limit - 1))
}

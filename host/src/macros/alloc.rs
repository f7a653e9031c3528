//! The process allocator, counting the bytes each thread holds, so a macro
//! call (which runs on a thread of its own) can be stopped when the data it
//! builds passes its memory budget. Owns nothing else; it must stay cheap
//! (one thread-local add per allocation) and must never allocate itself.
//!
//! Why by hand: rhai checks string, array and map sizes only after a builtin
//! returns, and map keys and function-pointer curries are not counted at
//! all, so a script can hold far more than its size limits suggest. The
//! well-kept counting allocators (`cap`, `stats_alloc`) count the whole
//! process; a per-thread figure is what tells one call's growth apart from
//! the daemon's, and it is a dozen lines on top of `System`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Bytes allocated minus bytes freed on this thread. Freeing on another
    /// thread makes it drift, so callers look at differences over a call.
    static HELD: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: during thread teardown the slot may be gone; a const,
    // drop-free thread local never allocates, so this cannot recurse.
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(delta)));
}

/// Bytes this thread holds now (see [`HELD`] for what it means).
pub fn held() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// `System`, counting.
pub struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and only adds bookkeeping on a thread-local integer.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (that is, from `System`)
        // with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and `new_size` is the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

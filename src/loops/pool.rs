//! The package's thread pool: one pool of rayon workers, owned by the package (not
//! rayon's global pool, which other extensions in the process may size and use), made
//! on the first call that needs it, of [`threads`] workers.
//!
//! [`in_parts`] runs a loop with a bool or int64 output over a call's elements: a call
//! of fewer than [`THRESHOLD`] elements, or with one thread allowed, runs on the calling
//! thread as before; a larger one is split into contiguous parts that the workers run,
//! each writing its own elements of the output, while the calling thread waits. The
//! result is the one thread's, bit for bit: on an error, the first in element order is
//! raised, and the parts after the failing one are put back as they were (each saves
//! its elements before writing them), so the output holds exactly what one thread
//! would have written before stopping.
//!
//! The pool after `fork()`: a child has none of the parent's threads, and the parent's
//! pool may have been copied in the middle of an operation. The pool remembers the
//! process it was made in; in another one (a child) it is forgotten, never touched
//! again, and a new one is made. The calling thread holds a fork session while workers
//! run (they take lent ones, [`LentSession`]), so a fork waits until a parallel call is
//! over and no worker is ever copied in the middle of a loop.
//!
//! Workers never touch Python: the loops that use the pool run without the GIL (NumPy
//! releases it for loops not registered with `REQUIRES_PYAPI`), errors are `PyErr`
//! values built without it, and a panic in a worker is caught there and becomes the
//! part's error, raised on the calling thread by the loop's guard.

use std::ffi::c_int;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;
use rayon_core::{ThreadPool, ThreadPoolBuilder};
use stringdtype_core::arena::PART_SPAN;
use stringdtype_core::fork::{LentSession, Session};

use super::{Elems, Value, Values};
use crate::error::panic_to_py;

/// Calls of fewer elements run on the calling thread alone, by default. Chosen by
/// measurement (docs/performance.md); a call of 2,000 never reaches the pool.
pub const THRESHOLD: usize = 1 << 15;

/// The threshold in force: [`THRESHOLD`], or what `_set_pool_threshold` set (for
/// measurements).
static MIN_ELEMENTS: AtomicUsize = AtomicUsize::new(THRESHOLD);

/// Parts per thread: more parts than threads, so that a thread slowed by another
/// process on its core leaves its parts to the others.
const PARTS_PER_THREAD: usize = 4;

/// The environment variable that sets the number of threads (read once, at the first
/// call that asks).
pub const ENV: &str = "STRINGDTYPE_NUM_THREADS";

/// Most threads a pool gets, whatever is asked.
const MAX_THREADS: usize = 1024;

/// The number of threads calls may use (0 until first read).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// The number of threads a parallel call uses: [`set_threads`]'s, else the value of
/// [`ENV`], else the cores available to the process.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = default_threads();
            let _ = THREADS.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed);
            THREADS.load(Ordering::Relaxed)
        }
        n => n,
    }
}

/// The number of threads [`ENV`] asks for (a positive integer), else the cores
/// available.
fn default_threads() -> usize {
    let cores = || std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    std::env::var(ENV)
        .ok()
        .and_then(|value| value.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(cores)
        .min(MAX_THREADS)
}

/// Sets the number of threads calls use from now on (at least 1); a pool of another
/// size is replaced at the next parallel call.
pub fn set_threads(n: usize) {
    THREADS.store(n.clamp(1, MAX_THREADS), Ordering::Relaxed);
}

/// The pool and the process and size it was made for.
struct Shared {
    pid: u32,
    threads: usize,
    pool: Arc<ThreadPool>,
}

/// The pool. Locked only inside a fork session, so never copied locked by a fork.
static POOL: Mutex<Option<Shared>> = Mutex::new(None);

/// The pool of `threads` workers of this process, made if needed; `None` if the
/// workers cannot be started (the call then runs on the calling thread).
fn pool(threads: usize) -> Option<Arc<ThreadPool>> {
    let _session = Session::enter();
    let mut slot = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = std::process::id();
    if let Some(shared) = slot.as_ref() {
        if shared.pid != pid {
            // A child after `fork()`: the parent's workers do not exist here, and their
            // pool's state may be mid-operation. Dropping it would wake them through
            // that state: leave it alone for good.
            std::mem::forget(slot.take());
        } else if shared.threads == threads {
            return Some(Arc::clone(&shared.pool));
        }
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|k| format!("stringdtype-{k}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    // A pool of the old size stops when the last call using it ends.
    *slot = Some(Shared {
        pid,
        threads,
        pool: Arc::clone(&pool),
    });
    Some(pool)
}

/// Runs `body` over `elems`, a loop with output `out`: on the calling thread, or split
/// between the pool's workers for a call of at least [`THRESHOLD`] elements when more
/// than one thread is allowed. `body(part)` computes and writes the elements of `part`
/// and nothing else, and reads no output element it has not written (an element's
/// inputs may be its own output element, as in an in-place call).
///
/// `body` should be a `move` closure holding its operands (views, kernels' parameters)
/// by value: the calling thread then runs it on its own copy ([`on_this_thread`]), whose
/// fields the compiler keeps in registers across the loop. Operands captured by
/// reference are reread from memory after every output element written, since the
/// parallel half's use of `body` lets other code see them.
#[inline(always)]
pub fn in_parts<T: Value, F>(elems: Elems, out: Values<T>, body: F) -> PyResult<()>
where
    F: Fn(Elems) -> PyResult<()> + Sync,
{
    match split_threads(elems.len()) {
        None => on_this_thread(elems, body),
        Some(threads) => parallel(elems, out, threads, &body),
    }
}

/// [`in_parts`] for a loop decided from the 16-byte views alone (`==` with a scalar,
/// `startswith` of a short prefix): such a loop streams the views at the memory bandwidth
/// of one core (`==` of 2,000,000 strings: 1.42 ms with one thread, 1.30 ms with two on
/// an idle 2-core machine, 2.43 ms with two while other processes ran; 100,000 strings:
/// 0.073 ms, 0.131 ms with two), so it splits only from [`VIEWS_FACTOR`] times the
/// threshold (2,097,152 elements by default), where a machine with more memory channels
/// than one core uses may still gain.
#[inline(always)]
pub fn in_parts_views<T: Value, F>(elems: Elems, out: Values<T>, body: F) -> PyResult<()>
where
    F: Fn(Elems) -> PyResult<()> + Sync,
{
    let views_min = MIN_ELEMENTS
        .load(Ordering::Relaxed)
        .saturating_mul(VIEWS_FACTOR);
    if elems.len() < views_min {
        return on_this_thread(elems, body);
    }
    in_parts(elems, out, body)
}

/// How many times [`THRESHOLD`] a loop over the views alone needs to split
/// ([`in_parts_views`]).
pub const VIEWS_FACTOR: usize = 64;

/// The number of threads a call of `len` elements is split between: `None` (the
/// calling thread alone) below [`THRESHOLD`] elements or with one thread allowed.
#[inline(always)]
pub(crate) fn split_threads(len: usize) -> Option<usize> {
    if len < MIN_ELEMENTS.load(Ordering::Relaxed) {
        return None;
    }
    let threads = threads();
    (threads >= 2).then_some(threads)
}

/// The contiguous parts a call over `elems` is cut into for `threads` threads: four
/// per thread, none under a quarter of the threshold.
pub(super) fn cut(elems: &Elems, threads: usize) -> Vec<Elems> {
    let size = elems
        .len()
        .div_ceil(threads * PARTS_PER_THREAD)
        .max(MIN_ELEMENTS.load(Ordering::Relaxed) / 4)
        .max(1);
    elems.chunks(size).collect()
}

/// Runs `work(k, &mut items[k])` for every item on the pool of `threads` workers and
/// returns each one's result (a panic becomes its item's error), or `None` when the
/// workers cannot be started (nothing ran). The calling thread holds a fork session
/// while the workers run (they take lent ones) and waits for them.
pub(crate) fn on_pool<T: Send>(
    threads: usize,
    items: &mut [T],
    work: &(dyn Fn(usize, &mut T) -> PyResult<()> + Sync),
) -> Option<Vec<PyResult<()>>> {
    // Held while the workers run: their lent sessions rely on it (see the module docs).
    let _session = Session::enter();
    let pool = pool(threads)?;
    let mut results: Vec<PyResult<()>> = items.iter().map(|_| Ok(())).collect();
    pool.scope(|scope| {
        for (k, (item, result)) in items.iter_mut().zip(&mut results).enumerate() {
            scope.spawn(move |_| {
                let _lent = LentSession::enter();
                let run = || work(k, item);
                *result =
                    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|p| Err(panic_to_py(p)));
            });
        }
    });
    Some(results)
}

/// The loop of [`in_parts`] on the calling thread. A function of its own, taking `body`
/// by value: the compiler knows that nothing else reaches this copy of it (the one the
/// parallel half borrows is another), so the loop's operands stay in registers (one
/// thread's instruction counts rose by up to 76 % while the two halves shared `body`).
#[inline(never)]
fn on_this_thread<F: Fn(Elems) -> PyResult<()>>(elems: Elems, body: F) -> PyResult<()> {
    body(elems)
}

/// The parallel half of [`in_parts`].
#[inline(never)]
fn parallel<T: Value>(
    elems: Elems,
    out: Values<T>,
    threads: usize,
    body: &(dyn Fn(Elems) -> PyResult<()> + Sync),
) -> PyResult<()> {
    let mut parts: Vec<(Elems, Vec<u8>)> = cut(&elems, threads)
        .into_iter()
        .map(|part| (part, Vec::new()))
        .collect();
    let results = on_pool(threads, &mut parts, &|k, (part, saved)| {
        // The first part is never put back: one thread writes it first too.
        if k > 0 {
            *saved = out.save(part.clone());
        }
        body(part.clone())
    });
    let Some(mut results) = results else {
        return body(elems);
    };
    let Some(failed) = results.iter().position(Result::is_err) else {
        return Ok(());
    };
    for (part, saved) in &parts[failed + 1..] {
        out.restore(part.clone(), saved);
    }
    results.swap_remove(failed)
}

/// _pool_threads()
/// --
///
/// The number of threads large calls use (see ``STRINGDTYPE_NUM_THREADS``).
#[pyfunction]
pub fn _pool_threads() -> usize {
    threads()
}

/// _pool_threshold()
/// --
///
/// The number of elements from which a call is split between threads.
#[pyfunction]
pub fn _pool_threshold() -> usize {
    MIN_ELEMENTS.load(Ordering::Relaxed)
}

/// _set_pool_threshold(n)
/// --
///
/// Sets the number of elements from which a call is split between threads (for
/// measurements; the default is chosen by measurement).
#[pyfunction]
pub fn _set_pool_threshold(n: usize) {
    MIN_ELEMENTS.store(n, Ordering::Relaxed);
}

/// The chunk ids each part of a call with string results may use: the arena's
/// [`PART_SPAN`], or what `_set_part_span` set (for tests of a part that runs out).
static PART_IDS: AtomicU32 = AtomicU32::new(PART_SPAN);

/// The chunk ids each part of a call with string results reserves.
pub(super) fn part_span() -> u32 {
    PART_IDS.load(Ordering::Relaxed)
}

/// _set_part_span(n)
/// --
///
/// Sets the chunk ids each part of a parallel call with string results reserves (a
/// power of two; for tests of a part that runs out of them).
#[pyfunction]
pub fn _set_part_span(n: u32) -> PyResult<()> {
    if !n.is_power_of_two() {
        return Err(pyo3::exceptions::PyValueError::new_err("a power of two"));
    }
    PART_IDS.store(n, Ordering::Relaxed);
    Ok(())
}

/// _set_pool_threads(n)
/// --
///
/// Sets the number of threads large calls use (at least 1; 1 runs every call on the
/// calling thread).
#[pyfunction]
pub fn _set_pool_threads(n: usize) {
    set_threads(n);
}

/// The number of threads large calls use, for threadpoolctl (`stringdtype/_threadpool.py`
/// finds the extension by this symbol).
#[no_mangle]
pub extern "C" fn stringdtype_get_num_threads() -> c_int {
    c_int::try_from(threads()).unwrap_or(c_int::MAX)
}

/// Sets the number of threads large calls use, for threadpoolctl (below 1 counts as 1).
#[no_mangle]
pub extern "C" fn stringdtype_set_num_threads(n: c_int) {
    set_threads(usize::try_from(n).unwrap_or(1));
}

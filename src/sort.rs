//! Sorting: NumPy's `sort` and `argsort` functions of the DType (its default `quicksort`
//! kind), sorting in Rust with the array's arena locked once, instead of NumPy's generic
//! sort calling the `compare` slot (and taking the lock) for every pair.
//!
//! Comparisons decide from the views (prefix, or whole inline strings) and read the
//! arena only for long strings that tie on their prefix. Missing values follow NumPy's StringDType: NaN-like ones sort
//! last, a string one sorts as its string, any other one is an error.

use std::cmp::Ordering;
use std::ffi::{c_int, c_void};

use pyo3::prelude::*;
use stringdtype_core::{Arena, View};

use crate::descr::{DescrState, StringDescr};
use crate::element::{compare_elements, read_view, sorting_order, write_view};
use crate::error::loop_guard;
use crate::ffi::npy_intp;
use crate::loops::pool;
use crate::missing;

/// The element order as a total order (`element::sorting_order`).
#[inline]
fn consistent_order(arena: &Arena, state: &DescrState, a: &View, b: &View) -> PyResult<Ordering> {
    sorting_order(arena, &state.na, *a, *b)
}

/// Sorts `items` by their views with `order`; the first comparison error, if any, is
/// returned after the (then meaningless) sort. A call of at least the pool's threshold
/// with more than one thread allowed sorts contiguous parts on the pool's threads and
/// merges them stably (ties from the earlier part first), so a stable sort gives one
/// thread's order exactly; an unstable one gives the same strings in the same order
/// (equal strings may trade places, which no string comparison can see).
fn sort_by_view<T: Copy + Send + Sync>(
    items: &mut [T],
    view: impl Fn(&T) -> &View + Sync,
    arena: &Arena,
    state: &DescrState,
    stable: bool,
) -> PyResult<()> {
    // A missing value that cannot be compared fails before sorting: an erring comparison
    // would not be a total order, which Rust's sorts may reject with a panic.
    if missing::unorderable(&state.na) {
        if let Some(missing) = items.iter().map(&view).find(|v| v.is_na()) {
            compare_elements(arena, &state.na, *missing, *missing)?;
        }
    }
    if let Some(threads) = pool::split_threads(items.len()) {
        if let Some(sorted) = sort_in_parts(items, threads, &view, arena, state, stable) {
            return sorted;
        }
    }
    sort_part(items, &view, arena, state, stable)
}

/// One thread's sort of `items` (see [`sort_by_view`]).
fn sort_part<T>(
    items: &mut [T],
    view: &impl Fn(&T) -> &View,
    arena: &Arena,
    state: &DescrState,
    stable: bool,
) -> PyResult<()> {
    let mut error = None;
    let mut compare = |x: &T, y: &T| match consistent_order(arena, state, view(x), view(y)) {
        Ok(ordering) => ordering,
        Err(err) => {
            error.get_or_insert(err);
            Ordering::Equal
        }
    };
    if stable {
        items.sort_by(&mut compare);
    } else {
        items.sort_unstable_by(&mut compare);
    }
    error.map_or(Ok(()), Err)
}

/// Sorts one contiguous part of `items` per thread on the pool, then merges the sorted
/// parts pairwise, each merge cut into pieces of about equal output that the pool's
/// threads merge at once. `None` when nothing was done (the pool or the scratch buffer
/// could not be had): the caller sorts on its own thread.
fn sort_in_parts<T: Copy + Send + Sync>(
    items: &mut [T],
    threads: usize,
    view: &(impl Fn(&T) -> &View + Sync),
    arena: &Arena,
    state: &DescrState,
    stable: bool,
) -> Option<PyResult<()>> {
    let n = items.len();
    // The merge buffer first: once the parts are sorted, nothing is left to fail.
    let mut scratch: Vec<T> = Vec::new();
    scratch.try_reserve_exact(n).ok()?;
    let width = n.div_ceil(threads).max(1);
    let mut parts: Vec<&mut [T]> = items.chunks_mut(width).collect();
    // Each pass halves the number of runs: ceil(log2(runs)) passes.
    let passes = parts.len().next_power_of_two().trailing_zeros();
    let results = pool::on_pool(threads, &mut parts, &|_, part| {
        sort_part(part, view, arena, state, stable)
    })?;
    if let Some(failed) = results.into_iter().find(Result::is_err) {
        return Some(failed);
    }
    let order = |x: &T, y: &T| consistent_order(arena, state, view(x), view(y));
    // The passes alternate between `items` and `scratch` and the last one writes
    // `items`: after an odd number of them the runs start in `scratch` (after an even
    // number the copy only gives `scratch` its length; the first pass writes over it).
    scratch.extend_from_slice(items);
    let mut in_scratch = passes % 2 == 1;
    let mut width = width;
    let mut error = None;
    while width < n {
        let (from, to) = if in_scratch {
            (&scratch[..], &mut *items)
        } else {
            (&items[..], &mut scratch[..])
        };
        if let Err(err) = merge_pass(from, to, width, threads, &order) {
            error.get_or_insert(err);
        }
        in_scratch = !in_scratch;
        width = width.saturating_mul(2);
    }
    debug_assert!(!in_scratch, "the last pass wrote `items`");
    Some(error.map_or(Ok(()), Err))
}

/// What one thread merges in a pass of [`merge_pass`]: two sorted pieces of a pair of
/// runs, into the place of their elements in the merged pair.
struct MergePiece<'a, T> {
    left: &'a [T],
    right: &'a [T],
    out: &'a mut [T],
}

/// Merges the sorted runs of `width` elements of `from` pairwise into `to` (as long),
/// stably: on a tie the element of the earlier run goes first. Each pair's merge is cut
/// by output position into pieces that `threads` threads merge at once, each piece's
/// start found by a binary search over both runs ([`co_rank`]); the pieces cover each
/// pair exactly whatever `order` answers, so `to` is always a permutation of `from`.
/// The first comparison error is returned after the pass.
fn merge_pass<T: Copy + Send + Sync>(
    from: &[T],
    to: &mut [T],
    width: usize,
    threads: usize,
    order: &(dyn Fn(&T, &T) -> PyResult<Ordering> + Sync),
) -> PyResult<()> {
    let pair_len = width.saturating_mul(2);
    let per_pair = threads.div_ceil(from.len().div_ceil(pair_len)).max(1);
    let mut error = None;
    let mut less = less_noting_errors(order, &mut error);
    let mut pieces = Vec::new();
    let mut rest = to;
    for pair in from.chunks(pair_len) {
        let (left, right) = pair.split_at(width.min(pair.len()));
        let (mut i0, mut k0) = (0, 0);
        for q in 1..=per_pair {
            let k1 = pair.len() * q / per_pair;
            // Clamped so that the pieces tile the pair even for an inconsistent order
            // (a consistent one is never clamped).
            let i1 = co_rank(left, right, k1, &mut less).clamp(i0, i0 + (k1 - k0));
            let (out, tail) = std::mem::take(&mut rest).split_at_mut(k1 - k0);
            rest = tail;
            pieces.push(MergePiece {
                left: &left[i0..i1],
                right: &right[k0 - i0..k1 - i1],
                out,
            });
            (i0, k0) = (i1, k1);
        }
    }
    drop(less);
    let merge = |piece: &mut MergePiece<T>| {
        let mut error = None;
        merge_into(
            piece.left,
            piece.right,
            piece.out,
            &mut less_noting_errors(order, &mut error),
        );
        error.map_or(Ok(()), Err)
    };
    let results = if pieces.len() > 1 {
        pool::on_pool(threads, &mut pieces, &|_, piece| merge(piece))
    } else {
        None
    };
    let results = results.unwrap_or_else(|| pieces.iter_mut().map(merge).collect());
    let failed = results.into_iter().find_map(Result::err);
    error.or(failed).map_or(Ok(()), Err)
}

/// `order` as "sorts before", noting its first error in `error` (and answering `false`).
fn less_noting_errors<'a, T>(
    order: &'a (dyn Fn(&T, &T) -> PyResult<Ordering> + Sync),
    error: &'a mut Option<PyErr>,
) -> impl FnMut(&T, &T) -> bool + 'a {
    move |x, y| match order(x, y) {
        Ok(ordering) => ordering == Ordering::Less,
        Err(err) => {
            error.get_or_insert(err);
            false
        }
    }
}

/// How many elements of `left` are among the first `k` of the stable merge of `left`
/// and `right` (ties from `left` first): the least `i` for which `right[k - i - 1]`
/// sorts before `left[i]`, by a binary search of `log2(min(k, len))` comparisons.
fn co_rank<T>(left: &[T], right: &[T], k: usize, less: &mut impl FnMut(&T, &T) -> bool) -> usize {
    let (mut lo, mut hi) = (k.saturating_sub(right.len()), k.min(left.len()));
    while lo < hi {
        let i = lo + (hi - lo) / 2;
        // lo <= i < hi, so left[i] exists and 1 <= k - i <= right.len().
        if less(&right[k - i - 1], &left[i]) {
            hi = i;
        } else {
            lo = i + 1;
        }
    }
    lo
}

/// Merges the sorted `left` and `right` into `out` (as long as both), stably: on a tie
/// the element of `left` goes first.
fn merge_into<T: Copy>(
    left: &[T],
    right: &[T],
    out: &mut [T],
    less: &mut impl FnMut(&T, &T) -> bool,
) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < left.len() && j < right.len() {
        if less(&right[j], &left[i]) {
            out[k] = right[j];
            j += 1;
        } else {
            out[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    let rest = if i < left.len() {
        &left[i..]
    } else {
        &right[j..]
    };
    out[k..].copy_from_slice(rest);
}

/// `PyArray_SortFunc`: sorts `num` contiguous elements at `start` of `array`'s dtype.
pub unsafe extern "C" fn sort(start: *mut c_void, num: npy_intp, array: *mut c_void) -> c_int {
    loop_guard(|| {
        // SAFETY: NumPy passes a StringDType array and `num` contiguous elements of it.
        let state = unsafe { StringDescr::of_array(array) }.state();
        let start = start as *mut u8;
        let n = num.max(0) as usize;
        // Held for writing from the first read to the last write: a concurrent setitem
        // waits instead of landing between them (which would tear the permutation and
        // leave two elements sharing one string).
        let arena = state.arena.write();
        // SAFETY: element i of the buffer, for i < num.
        let mut views: Vec<View> = (0..n)
            .map(|i| unsafe { read_view(start.add(16 * i)) })
            .collect();
        sort_by_view(&mut views, |v| v, &arena, state, false)?;
        for (i, view) in views.into_iter().enumerate() {
            // SAFETY: as above; the same elements, permuted.
            unsafe { write_view(start.add(16 * i), view) };
        }
        Ok(())
    })
}

/// `PyArray_ArgSortFunc`: orders the indices `tosort[..num]` by the contiguous elements
/// at `data` (stable, so equal strings keep their order).
pub unsafe extern "C" fn argsort(
    data: *mut c_void,
    tosort: *mut npy_intp,
    num: npy_intp,
    array: *mut c_void,
) -> c_int {
    loop_guard(|| {
        // SAFETY: NumPy passes a StringDType array, its contiguous elements and `num`
        // indices into them.
        let state = unsafe { StringDescr::of_array(array) }.state();
        let n = num.max(0) as usize;
        let indices = unsafe { std::slice::from_raw_parts_mut(tosort, n) };
        let data = data as *const u8;
        // Held from the first read of an element to the end of the sort.
        let arena = state.arena.read();
        let mut keyed: Vec<(View, npy_intp)> = indices
            .iter()
            // SAFETY: every index names an element of the buffer.
            .map(|&i| (unsafe { read_view(data.add(16 * i as usize)) }, i))
            .collect();
        sort_by_view(&mut keyed, |(v, _)| v, &arena, state, true)?;
        for (slot, (_, i)) in indices.iter_mut().zip(keyed) {
            *slot = i;
        }
        Ok(())
    })
}

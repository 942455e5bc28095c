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
fn sort_by_view<T: Copy + Send>(
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
/// parts pairwise into a scratch buffer and back. `None` when nothing was done (the
/// pool or the scratch buffer could not be had): the caller sorts on its own thread.
fn sort_in_parts<T: Copy + Send>(
    items: &mut [T],
    threads: usize,
    view: &(impl Fn(&T) -> &View + Sync),
    arena: &Arena,
    state: &DescrState,
    stable: bool,
) -> Option<PyResult<()>> {
    let n = items.len();
    // Both merge buffers first: once the parts are sorted, nothing is left to fail.
    let (mut from, mut to): (Vec<T>, Vec<T>) = (Vec::new(), Vec::new());
    from.try_reserve_exact(n).ok()?;
    to.try_reserve_exact(n).ok()?;
    let width = n.div_ceil(threads).max(1);
    let mut parts: Vec<&mut [T]> = items.chunks_mut(width).collect();
    let results = pool::on_pool(threads, &mut parts, &|_, part| {
        sort_part(part, view, arena, state, stable)
    })?;
    if let Some(failed) = results.into_iter().find(Result::is_err) {
        return Some(failed);
    }
    let mut error = None;
    let mut less = |x: &T, y: &T| match consistent_order(arena, state, view(x), view(y)) {
        Ok(ordering) => ordering == Ordering::Less,
        Err(err) => {
            error.get_or_insert(err);
            false
        }
    };
    from.extend_from_slice(items);
    let mut width = width;
    while width < n {
        to.clear();
        merge_runs(&from, &mut to, width, &mut less);
        std::mem::swap(&mut from, &mut to);
        width = width.saturating_mul(2);
    }
    items.copy_from_slice(&from);
    Some(error.map_or(Ok(()), Err))
}

/// Merges the sorted runs of `width` elements of `from` pairwise into `to` (which has
/// room for them all), stably: on a tie the element of the earlier run goes first.
fn merge_runs<T: Copy>(
    from: &[T],
    to: &mut Vec<T>,
    width: usize,
    less: &mut impl FnMut(&T, &T) -> bool,
) {
    for pair in from.chunks(width.saturating_mul(2)) {
        let (left, right) = pair.split_at(width.min(pair.len()));
        let (mut i, mut j) = (0, 0);
        while i < left.len() && j < right.len() {
            if less(&right[j], &left[i]) {
                to.push(right[j]);
                j += 1;
            } else {
                to.push(left[i]);
                i += 1;
            }
        }
        to.extend_from_slice(&left[i..]);
        to.extend_from_slice(&right[j..]);
    }
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

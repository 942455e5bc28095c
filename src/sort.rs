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
use crate::missing;

/// The element order as a total order (`element::sorting_order`).
#[inline]
fn consistent_order(arena: &Arena, state: &DescrState, a: &View, b: &View) -> PyResult<Ordering> {
    sorting_order(arena, &state.na, *a, *b)
}

/// Sorts `items` by their views with `order`; the first comparison error, if any, is
/// returned after the (then meaningless) sort.
fn sort_by_view<T>(
    items: &mut [T],
    view: impl Fn(&T) -> &View,
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

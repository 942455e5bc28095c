//! Sorting: NumPy's `sort` and `argsort` functions of the DType (its default `quicksort`
//! kind), sorting in Rust with the array's arena locked once, instead of NumPy's generic
//! sort calling the `compare` slot (and taking the lock) for every pair.
//!
//! Comparisons decide from the views (prefix, or whole inline strings) and read the
//! arena only for long strings that tie on their prefix. Missing values follow NumPy's StringDType: NaN-like ones sort
//! last, a string one sorts as its string, any other one is an error.

use std::cmp::Ordering;
use std::ffi::{c_int, c_void};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use pyo3::prelude::*;
use stringdtype_core::kernels::sort_keys::{self, OneThread, Sorter};
use stringdtype_core::{Arena, View};

use crate::descr::{DescrState, StringDescr};
use crate::element::{compare_elements, read_view, sorting_order, write_view};
use crate::error::{loop_guard, CoreResultExt};
use crate::ffi::npy_intp;
use crate::loops::pool;
use crate::missing::{self, NaKind};

/// The most items sorted by keys: [`sort_keys::MAX_ITEMS`], or what `_set_key_sort_limit`
/// set (tests set 0 to run the comparisons' path).
static KEY_SORT_LIMIT: AtomicUsize = AtomicUsize::new(sort_keys::MAX_ITEMS);

/// _set_key_sort_limit(n)
/// --
///
/// Sets the most elements a sort orders by keys, at most 2**28 (for tests: 0 sorts every
/// array by comparisons, the path of larger ones). Returns the limit before.
#[pyfunction]
pub fn _set_key_sort_limit(n: usize) -> usize {
    KEY_SORT_LIMIT.swap(n.min(sort_keys::MAX_ITEMS), AtomicOrdering::Relaxed)
}

/// The element order as a total order (`element::sorting_order`).
#[inline]
fn consistent_order(arena: &Arena, state: &DescrState, a: &View, b: &View) -> PyResult<Ordering> {
    sorting_order(arena, &state.na, *a, *b)
}

/// How [`sort_by_view`] left the items: sorted in place, or to be taken in the order of
/// the positions its keys carry (`kernels::sort_keys::position`), which the caller does
/// as it writes them out.
enum Order {
    InPlace,
    ByKeys(Vec<u128>),
}

/// Sorts `items` by their views, stably when `stable` asks; the first comparison error,
/// if any, is returned after the (then meaningless) sort. Strings are sorted by integer
/// keys ([`sort_by_keys`]); where that does not apply (more than 2^28 items), by
/// comparisons.
/// A call of at least the pool's threshold with more than one thread allowed sorts on
/// the pool's threads: the keys in parts cut at chosen keys, the comparisons in
/// contiguous parts merged stably afterwards (ties from the earlier part first), so a
/// stable sort gives one thread's order exactly; an unstable one gives the same strings
/// in the same order (equal strings may trade places, which no string comparison can
/// see).
fn sort_by_view<T: Copy + Send + Sync>(
    items: &mut [T],
    view: impl Fn(&T) -> &View + Sync,
    arena: &Arena,
    state: &DescrState,
    stable: bool,
) -> PyResult<Order> {
    // A missing value that cannot be compared fails before sorting: an erring comparison
    // would not be a total order, which Rust's sorts may reject with a panic.
    if missing::unorderable(&state.na) {
        if let Some(missing) = items.iter().map(&view).find(|v| v.is_na()) {
            compare_elements(arena, &state.na, *missing, *missing)?;
        }
    }
    let threads = pool::split_threads(items.len());
    if let Some(keys) = sort_by_keys(items, &view, arena, &state.na, threads, stable) {
        return keys.map(Order::ByKeys);
    }
    if let Some(threads) = threads {
        let sort_one = |part: &mut [T]| sort_part(part, &view, arena, state, stable);
        let order = |x: &T, y: &T| consistent_order(arena, state, view(x), view(y));
        if let Some(sorted) = sort_in_parts(items, threads, &sort_one, &order) {
            return sorted.map(|()| Order::InPlace);
        }
    }
    sort_part(items, &view, arena, state, stable).map(|()| Order::InPlace)
}

/// The keys of `items`' strings (`kernels::sort_keys`: 12 bytes of the string as one
/// integer, with its length and the item's position) in the order of the strings, equal
/// ones by position when `stable`: the keys are made and sorted as integers, on
/// `threads` threads when given, then ties sorted by the bytes that follow; missing
/// values (of `na`) by the rules of NumPy's StringDType. `None` when this does not apply
/// and nothing was done: a missing value that has no place in the order (never here: the
/// caller raised for it), more items than keys have positions for, or no memory for the
/// keys.
fn sort_by_keys<T: Sync>(
    items: &[T],
    view: &(impl Fn(&T) -> &View + Sync),
    arena: &Arena,
    na: &NaKind,
    threads: Option<usize>,
    stable: bool,
) -> Option<PyResult<Vec<u128>>> {
    let n = items.len();
    if n > KEY_SORT_LIMIT.load(AtomicOrdering::Relaxed) {
        return None;
    }
    let mut keys: Vec<u128> = Vec::new();
    keys.try_reserve_exact(n).ok()?;
    let width = n.div_ceil(threads.unwrap_or(1)).max(1);
    // Each part writes its keys into the vector's room (the thread that writes a page
    // first takes its fault); the length is set once every key is written.
    let mut parts: Vec<KeyPart<T>> = items
        .chunks(width)
        .zip(keys.spare_capacity_mut()[..n].chunks_mut(width))
        .enumerate()
        .map(|(k, (items, keys))| KeyPart {
            items,
            keys,
            first: k * width,
            missing: false,
        })
        .collect();
    // Missing values sort as NumPy's StringDType sorts them: NaN-like ones after every
    // string (equal among themselves), a string one as its string.
    let (missing_key, missing_string): (_, &[u8]) = match na {
        NaKind::NanLike => (Some(sort_keys::AFTER_STRINGS), &[]),
        NaKind::String(text) => (Some(sort_keys::key_at(text, 0)), text),
        NaKind::Unset | NaKind::Other => (None, &[]),
    };
    let make = |_: usize, part: &mut KeyPart<T>| part.make(view, arena, missing_key);
    let made = match threads {
        Some(threads) if parts.len() > 1 => pool::on_pool(threads, &mut parts, &make),
        _ => None,
    };
    let made = made.unwrap_or_else(|| parts.iter_mut().map(|part| make(0, part)).collect());
    if parts.iter().any(|part| part.missing) {
        return None;
    }
    drop(parts);
    if let Some(Err(err)) = made.into_iter().find(Result::is_err) {
        return Some(Err(err));
    }
    // SAFETY: every part wrote each of its keys (a part stops early only for a missing
    // value or an error, both returned above), and the parts cover `0..n`.
    unsafe { keys.set_len(n) };
    let sorter = PoolSorter {
        one: OneThread { stable },
        threads,
    };
    sorter.sort_keys(&mut keys);
    let string = |position: usize| match view(&items[position]) {
        v if v.is_na() => Ok(missing_string),
        v => arena.get(v).py(),
    };
    Some(sort_keys::finish_sorted(&mut keys, &string, &sorter).map(|()| keys))
}

/// The sorter of [`sort_by_keys`]: what is at least the pool's threshold long is sorted
/// on `threads` threads when given, the rest as [`OneThread`] does.
struct PoolSorter {
    one: OneThread,
    threads: Option<usize>,
}

impl PoolSorter {
    /// The threads for `len` items, if they go to the pool.
    fn threads_for(&self, len: usize) -> Option<usize> {
        self.threads.and(pool::split_threads(len))
    }
}

impl Sorter for PoolSorter {
    fn sort_keys(&self, keys: &mut [u128]) {
        if let Some(threads) = self.threads_for(keys.len()) {
            let mut parts = cut_at_keys(keys, threads, self.one.stable);
            let sort = |_: usize, part: &mut &mut [u128]| {
                self.one.sort_keys(part);
                Ok(())
            };
            if pool::on_pool(threads, &mut parts, &sort).is_some() {
                return;
            }
            // The cuts stand: sorting each part sorts the whole.
            parts.iter_mut().for_each(|part| self.one.sort_keys(part));
            return;
        }
        self.one.sort_keys(keys);
    }

    fn sort_rest(&self, items: &mut [(&[u8], u128)]) {
        if let Some(threads) = self.threads_for(items.len()) {
            let sort_one = |part: &mut [(&[u8], u128)]| {
                self.one.sort_rest(part);
                Ok(())
            };
            let order = |x: &(&[u8], u128), y: &(&[u8], u128)| Ok(x.0.cmp(y.0));
            if sort_in_parts(items, threads, &sort_one, &order).is_some() {
                return;
            }
        }
        self.one.sort_rest(items);
    }
}

/// `keys` cut into `parts` parts (fewer for fewer keys) such that every key of a part
/// sorts before or with every key of the next (as integers when `stable`, else by
/// `without_position`): each cut is a selection of the key of its rank
/// (`select_nth_unstable`), which leaves the keys that sort before it before it.
fn cut_at_keys(keys: &mut [u128], parts: usize, stable: bool) -> Vec<&mut [u128]> {
    if parts <= 1 || keys.len() < 2 {
        return vec![keys];
    }
    let left_parts = parts / 2;
    let mid = keys.len() * left_parts / parts;
    if stable {
        keys.select_nth_unstable(mid);
    } else {
        keys.select_nth_unstable_by_key(mid, |key| sort_keys::without_position(*key));
    }
    let (left, right) = keys.split_at_mut(mid);
    let mut cut = cut_at_keys(left, left_parts, stable);
    cut.extend(cut_at_keys(right, parts - left_parts, stable));
    cut
}

/// One thread's share of the keys of [`sort_by_keys`]: the keys of `items`, whose first
/// is item `first` of the call; `missing` when one of them is a missing value (the keys
/// are then left unfinished).
struct KeyPart<'a, T> {
    items: &'a [T],
    keys: &'a mut [MaybeUninit<u128>],
    first: usize,
    missing: bool,
}

/// How many elements ahead [`KeyPart::make`] asks for the first line of a long string:
/// a long string's key reads its first 12 bytes, and strings of hundreds of bytes lie
/// lines apart, where the processor's own prefetching does not follow (the long set's
/// sort took 0.9x the time with it, 1.05x the instructions).
const PREFETCH_AHEAD: usize = 8;

/// The length over which a string being keyed has the strings ahead prefetched: shorter
/// strings lie on neighbouring lines, which the processor fetches on its own (the medium
/// set's sort took the same time with the prefetch and 1.05x the instructions).
const PREFETCH_AFTER: usize = 128;

impl<T> KeyPart<'_, T> {
    fn make(
        &mut self,
        view: &impl Fn(&T) -> &View,
        arena: &Arena,
        missing_key: Option<u128>,
    ) -> PyResult<()> {
        for (offset, (item, slot)) in self.items.iter().zip(self.keys.iter_mut()).enumerate() {
            let v = view(item);
            let key = if v.is_inline_string() {
                sort_keys::inline_key(*v)
            } else if v.is_na() {
                let Some(key) = missing_key else {
                    self.missing = true;
                    return Ok(());
                };
                key
            } else {
                if v.len() > PREFETCH_AFTER {
                    if let Some(ahead) = self.items.get(offset + PREFETCH_AHEAD) {
                        arena.prefetch(view(ahead));
                    }
                }
                sort_keys::key_at(arena.get(v).py()?, 0)
            };
            slot.write(sort_keys::keyed(key, self.first + offset));
        }
        Ok(())
    }
}

/// One thread's sort of `items` by comparisons (see [`sort_by_view`]).
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

/// Sorts one contiguous part of `items` per thread on the pool with `sort_one`, then
/// merges the sorted parts pairwise by `order`, each merge cut into pieces of about equal
/// output that the pool's threads merge at once. `None` when nothing was done (the pool
/// or the scratch buffer could not be had): the caller sorts on its own thread.
fn sort_in_parts<T: Copy + Send + Sync>(
    items: &mut [T],
    threads: usize,
    sort_one: &(impl Fn(&mut [T]) -> PyResult<()> + Sync),
    order: &(impl Fn(&T, &T) -> PyResult<Ordering> + Sync),
) -> Option<PyResult<()>> {
    let n = items.len();
    // The merge buffer first: once the parts are sorted, nothing is left to fail.
    let mut scratch: Vec<T> = Vec::new();
    scratch.try_reserve_exact(n).ok()?;
    let width = n.div_ceil(threads).max(1);
    let mut parts: Vec<&mut [T]> = items.chunks_mut(width).collect();
    // Each pass halves the number of runs: ceil(log2(runs)) passes.
    let passes = parts.len().next_power_of_two().trailing_zeros();
    let results = pool::on_pool(threads, &mut parts, &|_, part| sort_one(part))?;
    if let Some(failed) = results.into_iter().find(Result::is_err) {
        return Some(failed);
    }
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
        if let Err(err) = merge_pass(from, to, width, threads, order) {
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
    order: &(impl Fn(&T, &T) -> PyResult<Ordering> + Sync),
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
    order: &'a (impl Fn(&T, &T) -> PyResult<Ordering> + Sync),
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
        let order = sort_by_view(&mut views, |v| v, &arena, state, false)?;
        let put = |i: usize, view: View| {
            // SAFETY: as above; the same elements, permuted.
            unsafe { write_view(start.add(16 * i), view) };
        };
        match order {
            Order::InPlace => views.into_iter().enumerate().for_each(|(i, v)| put(i, v)),
            Order::ByKeys(keys) => {
                for (i, key) in keys.into_iter().enumerate() {
                    put(i, views[sort_keys::position(key)]);
                }
            }
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
        match sort_by_view(&mut keyed, |(v, _)| v, &arena, state, true)? {
            Order::InPlace => {
                for (slot, (_, i)) in indices.iter_mut().zip(keyed) {
                    *slot = i;
                }
            }
            Order::ByKeys(keys) => {
                for (slot, key) in indices.iter_mut().zip(keys) {
                    *slot = keyed[sort_keys::position(key)].1;
                }
            }
        }
        Ok(())
    })
}

//! Casts between StringDType and the other string-like dtypes: StringDType with other
//! parameters, `U` (UCS4), `S` and `V` (bytes) and `bool`. Rust loops over the views that
//! run without the GIL; every input is converted before anything is written, so a failed
//! cast leaves the destination as it was.

use std::ptr;

use pyo3::exceptions::{PyTypeError, PyUnicodeDecodeError, PyUnicodeEncodeError};
use pyo3::ffi as pyffi;
use pyo3::prelude::*;
use stringdtype_core::{kernels, Arena, Error as CoreError, View};

use super::pairs::{elsize, is_kind, na_text, strided_loop, Pairs};
use crate::arenas::lock_pair;
use crate::descr::DescrState;
use crate::element::{
    element_truth, is_fresh_destination, read_view, replace_element, write_element, write_view,
};
use crate::error::{to_py, CoreResultExt};
use crate::ffi::PyArray_Descr;
use crate::missing;
use crate::numpy_version::{rules, InvalidUtf8};

// The locked copy, for what `inline::string_to_string` does not copy itself: a call of
// its own, whose frame cost every call of the per-call path when it was inlined there.
strided_loop!(#[inline(never)] pub(super) string_to_string_locked, |pairs| {
    let (src_state, dst_state) = (pairs.src().state(), pairs.dst().state());
    let keep_na = missing::has_na(&dst_state.na);
    let (source, target) = (&src_state.arena, &dst_state.arena);
    if !ptr::eq(source, target) {
        // Two arenas. NumPy's `take`, fancy indexing and masked copies call this once
        // per element or short run, so it takes just the two locks.
        let (read, mut write) = lock_pair(source, target);
        // The arenas themselves, not their guards, are what the loop keeps in registers.
        let (read, write): (&Arena, &mut Arena) = (&read, &mut write);
        let fresh = is_fresh_destination(write, pairs.dst_stride);
        if fresh && pairs.n > 1 {
            if let Some(copied) = copy_sharing(&pairs, read, write) {
                return copied;
            }
            return copy_gathering(&pairs, read, write);
        }
        return pairs.for_each(|src, dst| {
            // SAFETY: `src` and `dst` are elements of the loop's arrays.
            let view = unsafe { read_view(src) };
            // An own copy is written apart from the other cases, in which the view comes
            // back as a `PyResult` through the stack, where its reload stalled.
            if is_own_copy(view, keep_na) {
                // SAFETY: as above; `write` is the destination's arena.
                unsafe { write_element(write, dst, view, fresh) };
                return Ok(());
            }
            let view = store_copy(view, src_state, read, write)?;
            // SAFETY: as above.
            unsafe { write_element(write, dst, view, fresh) };
            Ok(())
        });
    }
    // Source and destination share an arena (a copy within one array).
    let mut arena = target.write();
    let fresh = is_fresh_destination(&arena, pairs.dst_stride);
    pairs.for_each(|src, dst| {
        // SAFETY: `src` and `dst` are elements of the loop's arrays.
        let view = unsafe { read_view(src) };
        if is_own_copy(view, keep_na) {
            // SAFETY: as above; `arena` is the destination's.
            unsafe { write_element(&mut arena, dst, view, fresh) };
            return Ok(());
        }
        let view = if view.is_na() {
            arena.store(na_text(src_state))
        } else {
            arena.duplicate(view)
        };
        // SAFETY: as above.
        unsafe { write_element(&mut arena, dst, view.py()?, fresh) };
        Ok(())
    })
});

/// A copy of (most of) an array into a fresh destination, as `np.copy`, `np.sort` and
/// `astype` make, when `write` can share the chunks of `read` ([`Arena::share_from`]):
/// each long string then takes its place in the new arena instead of having its bytes
/// copied. `None` when it cannot, and nothing was done. Kept out of
/// `string_to_string_locked`, whose per-element calls (NumPy's `take`) it made slower
/// inline.
#[inline(never)]
fn copy_sharing(pairs: &Pairs<'_>, read: &Arena, write: &mut Arena) -> Option<PyResult<()>> {
    // A source stride of 0 repeats one element: each copy needs its own block.
    if pairs.src_stride == 0 {
        return None;
    }
    // SAFETY: the elements of the loop's source array.
    let views = (0..pairs.n).map(|i| unsafe { read_view(pairs.src_at(i)) });
    match write.share_from(read, views) {
        Ok(true) => {}
        Ok(false) => return None,
        Err(err) => return Some(Err(to_py(err))),
    }
    let (src_state, dst_state) = (pairs.src().state(), pairs.dst().state());
    let keep_na = missing::has_na(&dst_state.na);
    let from = read.slot();
    let copied = pairs.for_each(|src, dst| {
        // SAFETY: `src` and `dst` are elements of the loop's arrays.
        let view = unsafe { read_view(src) };
        let view = match write.claim_shared(view, from) {
            Some(view) => view,
            None if is_own_copy(view, keep_na) => view,
            None => store_copy(view, src_state, read, write)?,
        };
        // SAFETY: as above; the destination is fresh (nothing of `write` to release).
        unsafe { write_element(write, dst, view, true) };
        Ok(())
    });
    write.finish_shared();
    Some(copied)
}

/// Long views (or missing values to store) that [`copy_gathering`] gathers before
/// copying them.
const GATHER: usize = 16;

/// A copy into a fresh destination (nothing of `write` to release) that does not share
/// chunks: every element is written as it is read, and the indices of those that are
/// not their own copy are gathered, without a branch, then stored GATHER at a time. In
/// a random mix of inline, long and missing elements the branch on each element's kind
/// was mispredicted about once in three elements, most of the time of the copy. An
/// error empties the gathered elements not stored yet, so that the destination never
/// keeps a view of the source's arena (those after it were not written). Kept out of
/// `string_to_string_locked`, whose per-element calls (NumPy's `take`) it would make
/// slower inline.
#[inline(never)]
fn copy_gathering(pairs: &Pairs<'_>, read: &Arena, write: &mut Arena) -> PyResult<()> {
    let src_state = pairs.src().state();
    let keep_na = missing::has_na(&pairs.dst().state().na);
    let mut store_gathered = |gathered: &[isize]| -> PyResult<()> {
        for (done, &i) in gathered.iter().enumerate() {
            // SAFETY: `i` indexes a pair of the loop's arrays.
            let view = unsafe { read_view(pairs.src_at(i)) };
            match store_copy(view, src_state, read, write) {
                // SAFETY: as above; the destination is fresh.
                Ok(view) => unsafe { write_view(pairs.dst_at(i), view) },
                Err(err) => {
                    for &i in &gathered[done..] {
                        // SAFETY: as above.
                        unsafe { write_view(pairs.dst_at(i), View::EMPTY) };
                    }
                    return Err(err);
                }
            }
        }
        Ok(())
    };
    // An element needs an arena when it is a long string, or a missing value the
    // destination does not keep (its text is stored): one compare, no branch.
    let store_na = !keep_na;
    let mut gathered = [0isize; GATHER];
    let mut count = 0;
    for i in 0..pairs.n {
        // SAFETY: `i` indexes a pair of the loop's arrays; the destination is fresh.
        let view = unsafe { read_view(pairs.src_at(i)) };
        unsafe { write_view(pairs.dst_at(i), view) };
        gathered[count % GATHER] = i;
        count += view.is_long_or_na(store_na) as usize;
        if count == GATHER {
            store_gathered(&gathered)?;
            count = 0;
        }
    }
    store_gathered(&gathered[..count])
}

/// Whether `view` is its own copy in a destination that keeps missing values when
/// `keep_na`: an inline string, or a missing value the destination keeps, lives in no
/// arena.
#[inline(always)]
fn is_own_copy(view: View, keep_na: bool) -> bool {
    view.is_inline_string() || (view.is_na() && keep_na)
}

/// The copy in `target` of a `view` of `source` that is not its own copy: a missing value
/// becomes the text of the source's missing value, a long string a block of `target`
/// holding its bytes.
#[inline(always)]
pub(super) fn store_copy(
    view: View,
    src_state: &DescrState,
    source: &Arena,
    target: &mut Arena,
) -> PyResult<View> {
    if view.is_na() {
        return target.store(na_text(src_state)).py();
    }
    target.store(source.get(&view).py()?).py()
}

// ---------------------------------------------------------------------------------------
// Fixed-width unicode ('U', UCS4) and bytes ('S')

fn is_swapped(descr: *const PyArray_Descr) -> bool {
    // SAFETY: a live descriptor.
    let order = unsafe { (*descr).byteorder } as u8;
    (order == b'>' && cfg!(target_endian = "little"))
        || (order == b'<' && cfg!(target_endian = "big"))
}

/// Stores the strings of `bytes` (ending at `ends`, one per pair) into the destination
/// elements; a failure leaves the destination as it was (`Pairs::in_place`).
fn store_all(pairs: &Pairs<'_>, bytes: &[u8], ends: &[usize]) -> PyResult<()> {
    let mut arena = pairs.dst().arena().write();
    let mut next = (0, 0);
    if pairs.in_place(&arena) {
        pairs.store_in_place(&mut arena, |_, arena| {
            arena.store(next_string(bytes, ends, &mut next)).py()
        })
    } else {
        pairs.store_after(&mut arena, |_, arena| {
            arena.store(next_string(bytes, ends, &mut next)).py()
        })
    }
}

/// The string of `bytes` (strings ending at `ends`) at `next`, a (start, index) pair
/// moved on to the following string.
#[inline(always)]
fn next_string<'b>(bytes: &'b [u8], ends: &[usize], next: &mut (usize, usize)) -> &'b [u8] {
    let (start, i) = *next;
    let end = ends[i];
    *next = (end, i + 1);
    &bytes[start..end]
}

/// Fixed-width strings are NUL padded: trailing NULs are not part of the string.
fn trim_nuls(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1)]
}

// Each string is encoded into a scratch buffer and stored in the destination's arena at
// once, under its lock (nothing here calls into Python: an invalid code point is a lazily
// built error); a failed cast leaves the destination as it was and releases what it
// stored (`Pairs::in_place`).
strided_loop!(pub(super) unicode_to_string, |pairs| {
    let (chars, swapped) = (elsize(pairs.src_descr) / 4, is_swapped(pairs.src_descr));
    let mut utf8 = Vec::new();
    let mut arena = pairs.dst().arena().write();
    if pairs.in_place(&arena) {
        pairs.store_in_place(&mut arena, |src, arena| {
            store_ucs4(src, chars, swapped, &mut utf8, arena)
        })
    } else {
        pairs.store_after(&mut arena, |src, arena| {
            store_ucs4(src, chars, swapped, &mut utf8, arena)
        })
    }
});

/// Stores the `chars` UCS4 code units at `src` in `arena` as UTF-8, encoded in `utf8`.
#[inline(always)]
fn store_ucs4(
    src: *mut u8,
    chars: usize,
    swapped: bool,
    utf8: &mut Vec<u8>,
    arena: &mut Arena,
) -> PyResult<View> {
    // SAFETY: a 'U' element holds `chars` UCS4 code units; `[u8; 4]` has alignment 1.
    let units = unsafe { std::slice::from_raw_parts(src.cast::<[u8; 4]>(), chars) };
    utf8.clear();
    kernels::ucs4_to_utf8(units, swapped, utf8).py()?;
    arena.store(utf8).py()
}

strided_loop!(pub(super) string_to_unicode, |pairs| {
    let (chars, swapped) = (elsize(pairs.dst_descr) / 4, is_swapped(pairs.dst_descr));
    // SAFETY: a 'U' element has room for `chars` UCS4 code units, and `[u8; 4]` has
    // alignment 1; nothing else refers to the element during the call.
    let units = |dst: *mut u8| unsafe { std::slice::from_raw_parts_mut(dst.cast(), chars) };
    pairs.for_each_source_view_or_string(
        |view, dst| kernels::inline_ascii_to_ucs4(view, swapped, units(dst)),
        |bytes, dst| kernels::utf8_to_ucs4(bytes, swapped, units(dst)).py(),
    )
});

strided_loop!(pub(super) bytes_to_string, |pairs| { fixed_bytes_to_string(&pairs) });

// `V` elements are bytes like `S` ones: UTF-8, trailing NULs trimmed, as NumPy's StringDType
// (for bytes that are not UTF-8, see `utf8_error`).
strided_loop!(pub(super) void_to_string, |pairs| {
    if !rules().structured_void_to_string {
        refuse_structured(pairs.src_descr)?;
    }
    fixed_bytes_to_string(&pairs)
});

/// NumPy 2.5's TypeError for a structured or subarray `source` cast to StringDType.
fn refuse_structured(source: *mut PyArray_Descr) -> PyResult<()> {
    crate::error::attach(|py| {
        // SAFETY: the loop's live source descriptor.
        let source = unsafe { Bound::from_borrowed_ptr(py, source.cast()) };
        if source.getattr("names")?.is_none() && source.getattr("subdtype")?.is_none() {
            return Ok(());
        }
        Err(PyTypeError::new_err(format!(
            "Only casts from unstructured void dtypes to StringDType are supported, but {} \
             is a structured or subarray dtype.",
            source.repr()?
        )))
    })
}

/// Stores the UTF-8 text of NUL-padded fixed-width byte elements (`S`, `V`), after
/// validating all of them.
fn fixed_bytes_to_string(pairs: &Pairs<'_>) -> PyResult<()> {
    let width = elsize(pairs.src_descr);
    let n = pairs.n.max(0) as usize;
    // The bytes are copied as they are checked (what is stored is what was checked), into
    // buffers allocated fallibly: the elements can be any size.
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    let reserved = ends.try_reserve_exact(n);
    reserved.map_err(|_| to_py(CoreError::OutOfMemory(n.saturating_mul(8))))?;
    pairs.for_each(|src, _| {
        // SAFETY: an 'S' element holds `width` bytes.
        let raw = trim_nuls(unsafe { std::slice::from_raw_parts(src, width) });
        if std::str::from_utf8(raw).is_err() {
            return Err(utf8_error(raw, pairs.src_descr));
        }
        let reserved = all.try_reserve(raw.len());
        reserved.map_err(|_| to_py(CoreError::OutOfMemory(raw.len())))?;
        all.extend_from_slice(raw);
        ends.push(all.len());
        Ok(())
    })?;
    store_all(pairs, &all, &ends)
}

/// The error for `S` or `V` elements (of descriptor `source`) that are not UTF-8: NumPy
/// 2.5's TypeError, or before it the UnicodeDecodeError Python's own UTF-8 codec raises for
/// `raw` (`numpy_version::InvalidUtf8`).
fn utf8_error(raw: &[u8], source: *const PyArray_Descr) -> PyErr {
    if rules().invalid_utf8 == InvalidUtf8::TypeError {
        let target = if is_kind(source, b"V") {
            "UTF-8"
        } else {
            "StringDType"
        };
        return PyTypeError::new_err(format!(
            "Invalid UTF-8 bytes found, cannot convert to {target}"
        ));
    }
    crate::error::attach(|py| {
        // SAFETY: `raw` is a live byte slice; the codec returns a new reference or null
        // with the exception set.
        let decoded = unsafe {
            pyffi::PyUnicode_DecodeUTF8(raw.as_ptr().cast(), raw.len() as isize, c"strict".as_ptr())
        };
        // SAFETY: `decoded` is a new reference or null.
        match unsafe { Bound::from_owned_ptr_or_err(py, decoded) } {
            Err(err) => err,
            Ok(_) => PyUnicodeDecodeError::new_err("invalid UTF-8"),
        }
    })
}

/// The UnicodeEncodeError Python's ASCII codec raises for `text`, whose first non-ASCII
/// byte is at `at`. Built lazily: this runs under an arena lock, where no Python may run.
fn ascii_error(text: &[u8], at: usize) -> PyErr {
    let text = String::from_utf8_lossy(text).into_owned();
    let start = text.char_indices().take_while(|(i, _)| *i < at).count();
    PyUnicodeEncodeError::new_err(("ascii", text, start, start + 1, "ordinal not in range(128)"))
}

strided_loop!(pub(super) string_to_bytes, |pairs| {
    string_to_fixed_bytes(&pairs, true)
});

strided_loop!(pub(super) string_to_void, |pairs| {
    string_to_fixed_bytes(&pairs, false)
});

/// Copies each string's bytes into a fixed-width byte element (`S`, `V`), cut to its
/// width and NUL padded; for `S` (`ascii`) a non-ASCII string is an error, found before
/// anything is written, so that the destination stays as it was (as NumPy leaves it).
fn string_to_fixed_bytes(pairs: &Pairs<'_>, ascii: bool) -> PyResult<()> {
    let width = elsize(pairs.dst_descr);
    if ascii {
        pairs.for_each_source_string(|bytes, _| match bytes.iter().position(|&b| b >= 0x80) {
            Some(at) => Err(ascii_error(bytes, at)),
            None => Ok(()),
        })?;
    }
    pairs.for_each_source_string(|bytes, dst| {
        let n = bytes.len().min(width);
        // SAFETY: an 'S' element has room for `width` bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n);
            ptr::write_bytes(dst.add(n), 0, width - n);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Bool

strided_loop!(pub(super) bool_to_string, |pairs| {
    let mut arena = pairs.dst().arena().write();
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is a bool element.
        let text: &[u8] = if unsafe { *src } != 0 {
            b"True"
        } else {
            b"False"
        };
        let view = View::try_inline(text).expect("short");
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

strided_loop!(pub(super) string_to_bool, |pairs| {
    let state = pairs.src().state();
    // Only read, but under the lock all the same: a loop writing the elements meanwhile
    // cannot tear them.
    let _arena = state.arena.read();
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is a string element and `dst` a bool element.
        unsafe { *dst = element_truth(&state.na, read_view(src)) as u8 };
        Ok(())
    })
});

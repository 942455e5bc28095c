//! One element of a StringDType array: reading and writing its 16-byte view, converting
//! it from and to Python objects, and comparing elements (missing values: `missing`).
//! Everything that loops over elements builds on this.

use std::cmp::Ordering;
use std::ptr;

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use stringdtype_core::{kernels, Arena, ArenaLock, View, MAX_INLINE_LEN};

use crate::descr::{na_equal, StringDescr};
use crate::error::CoreResultExt;
use crate::missing::{self, NaKind};

/// Reads the element at `ptr` (any alignment).
///
/// # Safety
/// `ptr` must point at 16 readable bytes.
#[inline]
pub unsafe fn read_view(ptr: *const u8) -> View {
    // Read as two words, straight into registers: one 16-byte load makes the compiler
    // spill the view to the stack and load its words back from there.
    // SAFETY: forwarded contract; any 16 bytes are a View.
    unsafe {
        let low = ptr::read_unaligned(ptr as *const u64);
        let high = ptr::read_unaligned(ptr.add(8) as *const u64);
        View::from_words(u64::from_le(low), u64::from_le(high))
    }
}

/// Reads the element at `ptr`, of an array whose arena is `arena`, whole: never the first
/// word of one view and the second of another, which a loop running without the GIL
/// could be writing meanwhile. Without a lock where no such loop counts itself as the
/// arena's writer (see `stringdtype_core::lock::hold`), else under the read lock.
///
/// # Safety
/// `ptr` must point at 16 readable bytes. The thread holds the GIL (`_py`) until the
/// view is read.
#[inline]
pub unsafe fn read_view_whole(_py: Python<'_>, arena: &ArenaLock, ptr: *const u8) -> View {
    if arena.may_read_unlocked() {
        // SAFETY: forwarded contract.
        unsafe { read_view(ptr) }
    } else {
        // The GIL is held throughout.
        let _locked = arena.read_holding_gil();
        // SAFETY: forwarded contract.
        unsafe { read_view(ptr) }
    }
}

/// The first word of the element at `ptr`, its length and prefix
/// ([`View::len_and_prefix`]), read without the rest of the view: a loop that decides
/// most elements from it keeps it in a register.
///
/// # Safety
/// `ptr` must point at 16 readable bytes.
#[inline]
pub unsafe fn read_len_and_prefix(ptr: *const u8) -> u64 {
    // SAFETY: forwarded contract; a view's bytes 0..8 are that word, little-endian.
    u64::from_le(unsafe { ptr::read_unaligned(ptr as *const u64) })
}

/// Writes the element at `ptr` (any alignment).
///
/// # Safety
/// `ptr` must point at 16 writable bytes.
#[inline]
pub unsafe fn write_view(ptr: *mut u8, view: View) {
    // Written as an integer: a view just returned through memory (a `Result<View>`) is
    // then moved in two word loads, which the callee's two word stores forward to,
    // where one 16-byte load of them would stall.
    // SAFETY: forwarded contract.
    unsafe { ptr::write_unaligned(ptr as *mut u128, view.as_u128()) }
}

/// Converts an object to the `str` to store, as NumPy's StringDType does: `str` as is,
/// `str` subclasses as exact `str`, and with `coerce` bytes as UTF-8 and anything else
/// through `str()`.
pub fn as_pystring<'py>(obj: &Bound<'py, PyAny>, coerce: bool) -> PyResult<Bound<'py, PyString>> {
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(s.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(PyString::new(obj.py(), s.to_str()?));
    }
    if !coerce {
        return Err(PyValueError::new_err(
            "StringDType only allows string data when string coercion is disabled.",
        ));
    }
    if let Ok(b) = obj.cast_exact::<PyBytes>() {
        let text = std::str::from_utf8(b.as_bytes()).map_err(|e| {
            pyo3::exceptions::PyUnicodeDecodeError::new_utf8(obj.py(), b.as_bytes(), e)
                .map(|err| PyErr::from_value(err.into_any()))
                .unwrap_or_else(|err| err)
        })?;
        return Ok(PyString::new(obj.py(), text));
    }
    obj.str()
}

/// What `obj` is stored as in an array with descriptor `descr`: its `str` (see
/// [`as_pystring`]), or `None` for the descriptor's missing value.
pub fn convert_object<'py>(
    py: Python<'py>,
    descr: StringDescr<'_>,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let na = descr.na_object(py);
    if na.is_some() && na_equal(Some(obj), na.as_ref()) {
        return Ok(None);
    }
    as_pystring(obj, descr.coerce()).map(Some)
}

/// Stores `obj` into the element at `dst` of an array with descriptor `descr`; on error
/// the element keeps its old value.
///
/// # Safety
/// `dst` must be an element of an array whose descriptor is `descr`.
pub unsafe fn set_element(
    py: Python<'_>,
    descr: StringDescr<'_>,
    obj: &Bound<'_, PyAny>,
    dst: *mut u8,
) -> PyResult<()> {
    let converted;
    let bytes = match obj.cast_exact::<PyString>() {
        // The common case, without a new reference: a `str` for a descriptor whose
        // missing value no `str` can be.
        Ok(text) if descr.na_object(py).is_none() => Some(text.to_str()?),
        _ => {
            converted = convert_object(py, descr, obj)?;
            converted.as_ref().map(|text| text.to_str()).transpose()?
        }
    };
    // An inline string or a missing value over an element that names no block needs no
    // arena: written without the lock (see `write_view_unlocked`). The length is tested
    // here although `try_inline` tests it again: without the test a long string's path
    // counted 4-22 more instructions (performance.md, "Creation and single writes").
    if bytes.is_none_or(|bytes| bytes.len() <= MAX_INLINE_LEN) {
        let view = match bytes {
            Some(bytes) => View::try_inline(bytes.as_bytes()),
            None => Some(View::NA),
        };
        // SAFETY: `dst` is an element (forwarded contract); `py` is held throughout.
        if view.is_some_and(|view| unsafe { write_view_unlocked(descr, dst, view) }) {
            return Ok(());
        }
    }
    // The GIL (`py`) is held until the guard is dropped: no fork session needed.
    let mut arena = descr.arena().write_holding_gil();
    // SAFETY (both arms): `dst` is an element (forwarded contract).
    match bytes {
        Some(bytes) => {
            let view = arena.store(bytes.as_bytes()).py()?;
            unsafe { replace_element(&mut arena, dst, view) };
        }
        None => unsafe { replace_element(&mut arena, dst, View::NA) },
    }
    Ok(())
}

/// Writes the inline string or missing value `view` to the element at `dst` without the
/// arena's lock, as the per-call path's copy does (src/casts/inline.rs), when the element
/// names no block and no loop holds the arena (the GIL, which the caller holds
/// throughout, keeps one from starting: docs/design.md, "The per-call path"); `false`
/// (nothing written) otherwise.
///
/// # Safety
/// `dst` must be an element of an array whose descriptor is `descr`, and the caller
/// must hold the GIL.
#[inline]
unsafe fn write_view_unlocked(descr: StringDescr<'_>, dst: *mut u8, view: View) -> bool {
    // SAFETY (both): `dst` is an element, which no other thread reads or writes while the
    // arena counts no holder and this one holds the GIL.
    if descr.arena().may_write_unlocked() && unsafe { read_view(dst) }.location().is_none() {
        unsafe { write_view(dst, view) };
        return true;
    }
    false
}

/// Writes `view` to the element at `dst` and releases the string it held.
///
/// # Safety
/// `dst` must be an element of an array whose arena is `arena`.
pub unsafe fn replace_element(arena: &mut Arena, dst: *mut u8, view: View) {
    // SAFETY: forwarded contract.
    let old = unsafe { read_view(dst) };
    arena.release(old);
    // SAFETY: as above.
    unsafe { write_view(dst, view) };
}

/// Whether a destination whose arena is `arena` and whose stride is `stride` can be
/// written without reading (and releasing) its old elements: its arena holds no long
/// string, and no element is visited twice. Reading a freshly allocated page before
/// writing it would also fault it in twice.
pub fn is_fresh_destination(arena: &Arena, stride: isize) -> bool {
    stride != 0 && arena.memory_usage().string_bytes == 0
}

/// Writes `view` to the element at `dst`, releasing the old element's string first
/// unless the destination is fresh (see [`is_fresh_destination`]).
///
/// # Safety
/// As for [`replace_element`].
#[inline]
pub unsafe fn write_element(arena: &mut Arena, dst: *mut u8, view: View, fresh: bool) {
    // SAFETY: forwarded contract.
    unsafe {
        if fresh {
            write_view(dst, view);
        } else {
            replace_element(arena, dst, view);
        }
    }
}

/// Reads the element at `src` as a Python object: `str`, or the `na_object`.
///
/// # Safety
/// `src` must point at an element (16 readable bytes).
pub unsafe fn get_element(
    py: Python<'_>,
    descr: StringDescr<'_>,
    src: *const u8,
) -> PyResult<Py<PyAny>> {
    // SAFETY: forwarded contract; `py` is held.
    let view = unsafe { read_view_whole(py, descr.arena(), src) };
    if view.is_na() {
        return Ok(missing_element(py, descr));
    }
    if let Some(bytes) = view.inline_bytes() {
        return Ok(decode(py, bytes)?.into_any().unbind());
    }
    // The bytes are copied out, and the str built after the lock is released: no Python
    // runs under an arena lock. Most strings fit a buffer on the stack.
    let (mut small, mut large) = ([0u8; SMALL_STRING], Vec::new());
    let len = {
        let arena = descr.arena().read_holding_gil(); // `py` is held throughout
        let bytes = arena.get(&view).py()?;
        match small.get_mut(..bytes.len()) {
            Some(buf) => buf.copy_from_slice(bytes),
            None => large = bytes.to_vec(),
        }
        bytes.len()
    };
    let bytes = if large.is_empty() {
        &small[..len]
    } else {
        &large[..]
    };
    Ok(decode(py, bytes)?.into_any().unbind())
}

/// What [`get_element`] gives for a missing value: the `na_object`.
pub fn missing_element(py: Python<'_>, descr: StringDescr<'_>) -> Py<PyAny> {
    match descr.na_object(py) {
        Some(na) => na.unbind(),
        None => PyString::new(py, "").into_any().unbind(),
    }
}

/// Longest string that [`get_element`] copies out of the arena onto the stack.
const SMALL_STRING: usize = 256;

/// A new `str` of UTF-8 `bytes`.
pub fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    if bytes.len() > 1 && bytes.is_ascii() {
        // SAFETY: checked just above.
        return unsafe { decode_ascii(py, bytes) };
    }
    // SAFETY: PyUnicode_DecodeUTF8 reads `len` bytes and validates them (raising
    // UnicodeDecodeError for corrupt data); it returns a new reference or null.
    unsafe {
        let obj = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast(),
            bytes.len() as isize,
            c"strict".as_ptr(),
        );
        Bound::from_owned_ptr_or_err(py, obj).map(|o| o.cast_into_unchecked())
    }
}

/// A new `str` of ASCII `bytes`, for a caller that checked a whole element at once.
/// ASCII text needs no decoding: a new ASCII `str` filled with one copy. Strings of up
/// to one byte go to the decoder, which hands out Python's shared ones.
///
/// # Safety
/// Every byte of `bytes` is below 0x80 (they are copied into an ASCII `str` unchecked).
#[inline]
pub unsafe fn decode_ascii<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    debug_assert!(bytes.is_ascii());
    if bytes.len() <= 1 {
        return decode(py, bytes);
    }
    // SAFETY: `PyUnicode_New(len, 127)` returns a new compact ASCII `str` of `len`
    // characters (terminated) or null; its `len` bytes of data are filled, with ASCII
    // (the caller's promise), before anything else sees it.
    unsafe {
        let obj = ffi::PyUnicode_New(bytes.len() as isize, 127);
        if !obj.is_null() {
            ptr::copy_nonoverlapping(bytes.as_ptr(), ffi::PyUnicode_1BYTE_DATA(obj), bytes.len());
        }
        Bound::from_owned_ptr_or_err(py, obj).map(|o| o.cast_into_unchecked())
    }
}

/// The order of two elements of one array (the `compare` slot, argmax, argmin).
pub fn compare_elements(arena: &Arena, na: &NaKind, a: View, b: View) -> PyResult<Ordering> {
    compare_with_na(na, &a, arena, &b, arena)
}

/// The order of two elements with the missing-value rule `na` (the call's): see
/// [`missing::order_missing`] for missing values.
#[inline]
pub fn compare_with_na(
    na: &NaKind,
    a: &View,
    arena_a: &Arena,
    b: &View,
    arena_b: &Arena,
) -> PyResult<Ordering> {
    if a.is_na() || b.is_na() {
        return missing::order_missing(na, (a, arena_a), (b, arena_b));
    }
    kernels::compare_views(a, b, || arena_a.get(a).py(), || arena_b.get(b).py())
}

/// The order of two elements of one array for sorts and `searchsorted` (the `compare`
/// slot): a total order, see [`missing::sorting_order`].
#[inline]
pub fn sorting_order(arena: &Arena, na: &NaKind, a: View, b: View) -> PyResult<Ordering> {
    if a.is_na() || b.is_na() {
        return missing::sorting_order(na, (&a, arena), (&b, arena));
    }
    kernels::compare_views(&a, &b, || arena.get(&a).py(), || arena.get(&b).py())
}

/// Truth of an element: non-empty; a missing value's is [`missing::missing_truth`].
pub fn element_truth(na: &NaKind, view: View) -> bool {
    if view.is_na() {
        return missing::missing_truth(na);
    }
    !view.is_empty()
}

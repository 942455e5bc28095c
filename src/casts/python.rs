//! Casts that go through Python (these loops hold the GIL): numbers, datetimes and
//! timedeltas through Python's own `int()` / `float()` / `complex()` and NumPy's scalars,
//! so that results and errors are exactly NumPy's StringDType's; and `object` to
//! StringDType, converting every element before writing any.

use std::ptr;

use pyo3::exceptions::PyValueError;
use pyo3::ffi as pyffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use stringdtype_core::{Error as CoreError, View};

use super::pairs::{elsize, is_kind, strided_loop};
use crate::element::{
    convert_object, decode, get_element, missing_element, read_view, read_view_whole,
    replace_element,
};
use crate::error::{to_py, CoreResultExt};
use crate::ffi::{PyArray_Descr, PyArray_Pack, PyArray_Scalar};
use crate::missing;
use crate::numpy_version::rules;

strided_loop!(pub(super) scalar_to_string, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let state = pairs.dst().state();
    let keep_na = missing::has_na(&state.na);
    // SAFETY: a live descriptor.
    let src_kind = unsafe { (*pairs.src_descr).kind } as u8;
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an aligned element of the source descriptor.
        let scalar = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                PyArray_Scalar(src.cast(), pairs.src_descr, ptr::null_mut()),
            )?
        };
        // As NumPy: NaT becomes a missing value whenever the target has one, a float NaN
        // (of a float64) only when its missing value is NaN-like (and NumPy is 2.3 or newer).
        let missing = match src_kind {
            b'M' | b'm' => keep_na && scalar.ne(&scalar)?,
            b'f' => {
                missing::float_nan_is_missing(&state.na)
                    && elsize(pairs.src_descr) == 8
                    && scalar.ne(&scalar)?
            }
            _ => false,
        };
        let text = if missing {
            None
        } else if src_kind == b'm' && !scalar.ne(&scalar)? {
            // A timedelta is written as its integer count of units.
            Some(scalar.call_method1("astype", ("int64",))?.str()?)
        } else {
            Some(scalar.str()?)
        };
        let bytes = text.as_ref().map(|text| text.to_str()).transpose()?;
        let mut arena = state.arena.write();
        let view = match bytes {
            None => View::NA,
            Some(bytes) => arena.store(bytes.as_bytes()).py()?,
        };
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

strided_loop!(pub(super) string_to_scalar, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let dst_descr = pairs.dst_descr;
    let state = pairs.src().state();
    let builtins = py.import("builtins")?;
    // Long doubles and datetimes parse strings themselves (at full precision).
    let long = elsize(dst_descr) > if is_kind(dst_descr, b"c") { 16 } else { 8 };
    let timedelta = is_kind(dst_descr, b"m");
    // NumPy 2.5 refuses a NUL inside a long double's text; 2.0-2.4 read up to it.
    let refuse_nul = long && is_kind(dst_descr, b"f") && !rules().longdouble_stops_at_nul;
    let convert = if is_kind(dst_descr, b"ium") {
        Some(builtins.getattr("int")?)
    } else if is_kind(dst_descr, b"f") && !long {
        Some(builtins.getattr("float")?)
    } else if is_kind(dst_descr, b"c") && !long {
        Some(builtins.getattr("complex")?)
    } else {
        None
    };
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an element of the source array; `py` is held.
        let view = unsafe { read_view_whole(py, &state.arena, src) };
        let value = if view.is_na() && missing::stays_missing(&state.na) {
            missing_value(py, dst_descr)?
        } else {
            // SAFETY: as above.
            let text = unsafe { get_element(py, pairs.src(), src) }?.into_bound(py);
            match &convert {
                Some(_) if timedelta && is_nat_text(&text)? => PyString::new(py, "NaT").into_any(),
                // A timedelta is the integer count of its units, as NumPy's `int(text)`
                // (whitespace, `_` and non-ASCII digits included), within int64.
                Some(convert) if timedelta => {
                    let count = convert.call1((text,))?;
                    count.extract::<i64>()?;
                    count
                }
                Some(convert) => convert.call1((text,))?,
                None if refuse_nul && text.str()?.to_str()?.contains('\0') => {
                    return Err(PyValueError::new_err(format!(
                        "invalid literal for long double: {}",
                        text.repr()?
                    )));
                }
                None => text,
            }
        };
        // SAFETY: `dst` is an element of the destination descriptor.
        if unsafe { PyArray_Pack(dst_descr, dst.cast(), value.as_ptr()) } < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(())
    })
});

// Object to string, converting every element before writing any (NumPy's own path calls
// `setitem` element by element and leaves the elements before a failing one written).
strided_loop!(pub(super) object_to_string, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let mut texts = Vec::with_capacity(pairs.n.max(0) as usize);
    pairs.for_each(|src, _| {
        // SAFETY: an object element holds a (possibly null) object pointer.
        let raw = unsafe { ptr::read_unaligned(src.cast::<*mut pyffi::PyObject>()) };
        let obj = if raw.is_null() {
            py.None().into_bound(py)
        } else {
            // SAFETY: a non-null element is a live object the source array holds.
            unsafe { Bound::from_borrowed_ptr(py, raw) }
        };
        texts.push(convert_object(py, pairs.dst(), &obj)?);
        Ok(())
    })?;
    let bytes: Vec<Option<&str>> = texts
        .iter()
        .map(|text| text.as_ref().map(|t| t.to_str()).transpose())
        .collect::<PyResult<_>>()?;
    let mut arena = pairs.dst().arena().write();
    let mut next = bytes.into_iter();
    pairs.for_each(|_, dst| {
        let view = match next.next().flatten() {
            Some(text) => arena.store(text.as_bytes()).py()?,
            None => View::NA,
        };
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

// StringDType to object: each element becomes what `getitem` gives (a `str`, or the
// `na_object`), where NumPy's generic path would call `getitem` once per element. The
// long strings of a batch are copied out under one read lock, and every `str` is made
// after it is released: no Python runs under an arena lock.
strided_loop!(pub(super) string_to_object, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let descr = pairs.src();
    // A batch's views, and its long strings end to end.
    let (mut views, mut long) = (Vec::with_capacity(OBJECT_BATCH as usize), Vec::new());
    let mut first = 0;
    while first < pairs.n {
        let last = pairs.n.min(first + OBJECT_BATCH);
        views.clear();
        long.clear();
        // Locked at the batch's first long string, or at once when a loop running without
        // the GIL may be writing the elements (see `element::read_view_whole`).
        let mut arena = None;
        if !descr.arena().may_read_unlocked() {
            arena = Some(descr.arena().read_holding_gil()); // `py` is held throughout
        }
        for i in first..last {
            // SAFETY: element i of the source array.
            let view = unsafe { read_view(pairs.src_at(i)) };
            views.push(view);
            if view.is_na() || view.is_inline() {
                continue;
            }
            // `py` is held throughout.
            let arena = arena.get_or_insert_with(|| descr.arena().read_holding_gil());
            let bytes = arena.get(&view).py()?;
            let reserved = long.try_reserve(bytes.len());
            reserved.map_err(|_| to_py(CoreError::OutOfMemory(bytes.len())))?;
            long.extend_from_slice(bytes);
        }
        drop(arena);
        let mut at = 0;
        for (i, view) in (first..last).zip(&views) {
            let obj = if view.is_na() {
                missing_element(py, descr)
            } else if let Some(bytes) = view.inline_bytes() {
                decode(py, bytes)?.into()
            } else {
                at += view.len();
                decode(py, &long[at - view.len()..at])?.into()
            };
            let dst = pairs.dst_at(i).cast::<*mut pyffi::PyObject>();
            // SAFETY: an object element holds null or a reference it owns, which the new
            // object replaces (as NumPy's own casts to object do).
            unsafe {
                let old = ptr::read_unaligned(dst);
                ptr::write_unaligned(dst, obj.into_ptr());
                pyffi::Py_XDECREF(old);
            }
        }
        first = last;
    }
    Ok(())
});

/// Elements [`string_to_object`] reads under one lock.
const OBJECT_BATCH: isize = 1024;

/// Whether `text` is a timedelta's NaT as NumPy's StringDType reads it: empty, or `nat` in
/// any case (nothing around it).
fn is_nat_text(text: &Bound<'_, PyAny>) -> PyResult<bool> {
    let text = text.cast::<PyString>()?.to_str()?;
    Ok(text.is_empty() || text.eq_ignore_ascii_case("nat"))
}

/// What a missing value becomes in a number or time array, as NumPy's StringDType does.
fn missing_value<'py>(
    py: Python<'py>,
    target: *const PyArray_Descr,
) -> PyResult<Bound<'py, PyAny>> {
    if is_kind(target, b"Mm") {
        return Ok(PyString::new(py, "NaT").into_any());
    }
    Err(PyValueError::new_err(
        "Arrays with missing data cannot be converted to a non-nullable type",
    ))
}

//! `resolve_descriptors` of the package's loops: which descriptors a loop runs with, and
//! so which arena an output's strings go to.

use std::ffi::{c_int, c_void};
use std::ptr;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi as pyffi;
use pyo3::prelude::*;

use crate::descr::{self, dtype_class, StringDescr};
use crate::error::with_gil_guard;
use crate::ffi::*;
use crate::missing;

/// Fills the `n` loop descriptors: a given one as it is (a new reference), a missing one
/// (null in `given`) from `make(i, dtype)`. All or nothing: when `make` fails, the
/// references taken so far are dropped and the error is returned.
///
/// # Safety
/// `dtypes`, `given` and `loop_descrs` must be NumPy's arguments to `resolve_descriptors`
/// for a method with `n` operands.
pub unsafe fn fill_descriptors(
    n: usize,
    dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    mut make: impl FnMut(usize, *mut PyArray_DTypeMeta) -> PyResult<*mut PyArray_Descr>,
) -> PyResult<()> {
    let mut chosen = [ptr::null_mut(); 6];
    for i in 0..n {
        // SAFETY: NumPy passes `n` DTypes and `n` given descriptors (null when missing).
        let (dtype, descr) = unsafe { (*dtypes.add(i), *given.add(i)) };
        let made = if descr.is_null() {
            make(i, dtype)
        } else {
            // SAFETY: a live descriptor; the loop takes its own reference.
            unsafe { pyffi::Py_INCREF(descr.cast()) };
            Ok(descr)
        };
        match made {
            Ok(made) => chosen[i] = made,
            Err(err) => {
                for taken in chosen.iter().filter(|d| !d.is_null()) {
                    // SAFETY: drop the references taken so far.
                    unsafe { pyffi::Py_DECREF(taken.cast()) };
                }
                return Err(err);
            }
        }
    }
    for (i, descr) in chosen.into_iter().take(n).enumerate() {
        // SAFETY: NumPy passes room for `n` loop descriptors.
        unsafe { *loop_descrs.add(i) = descr };
    }
    Ok(())
}

/// The default descriptor of a DType, as a new reference.
pub fn default_descr(
    py: Python<'_>,
    dtype: *mut PyArray_DTypeMeta,
) -> PyResult<*mut PyArray_Descr> {
    // SAFETY: `dtype` is a live DType class; a new reference or null comes back.
    let descr = unsafe { PyArray_GetDefaultDescr(dtype) };
    if descr.is_null() {
        return Err(PyErr::fetch(py));
    }
    Ok(descr)
}

/// `resolve_descriptors` for a loop with `nargs` operands.
/// Outputs from operand `outs_from` on are refused when given (`out=`); pass `nargs` to
/// accept them.
pub fn resolver(nargs: usize, outs_from: usize) -> *mut c_void {
    match (nargs, outs_from) {
        (2, 2) => resolve_descriptors::<2, 2> as *mut c_void,
        (3, 3) => resolve_descriptors::<3, 3> as *mut c_void,
        (4, 4) => resolve_descriptors::<4, 4> as *mut c_void,
        (5, 5) => resolve_descriptors::<5, 5> as *mut c_void,
        (5, 2) => resolve_descriptors::<5, 2> as *mut c_void,
        (5, 4) => resolve_descriptors::<5, 4> as *mut c_void,
        _ => unreachable!("no loop refuses out= from operand {outs_from} of {nargs}"),
    }
}

/// The loops' descriptor resolution: inputs as given; a missing string output gets a
/// brand-new descriptor (so the new array owns its strings) whose `na_object` and
/// `coerce` combine those of the string inputs; other outputs get their default.
unsafe extern "C" fn resolve_descriptors<const NARGS: usize, const OUTS_FROM: usize>(
    _method: *mut c_void,
    dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // Decide everything that can fail before any reference is taken: on error the
        // loop descriptors must hold none.
        if OUTS_FROM < NARGS {
            // SAFETY: NumPy passes NARGS given descriptors; a given output is `out=`.
            if (OUTS_FROM..NARGS).any(|i| unsafe { !(*given.add(i)).is_null() }) {
                return Err(PyTypeError::new_err(
                    "The StringDType ufunc does not currently support the 'out' keyword",
                ));
            }
        }
        let string_inputs: Vec<StringDescr<'_>> = (0..NARGS)
            // SAFETY: NumPy passes NARGS given descriptors, live for the call.
            .filter_map(|i| unsafe { StringDescr::try_from_raw(*given.add(i)) })
            .collect();
        let (na, coerce) = missing::common_params(
            py,
            &string_inputs,
            |a, b| a && b,
            |a, b| {
                Ok(PyTypeError::new_err(format!(
                    "Cannot find a compatible null string value for null strings '{}' and '{}'",
                    a.repr()?,
                    b.repr()?
                )))
            },
        )?;
        // SAFETY: NumPy's arguments, for NARGS operands.
        unsafe {
            fill_descriptors(NARGS, dtypes, given, loop_descrs, |_, dtype| {
                if dtype == dtype_class() {
                    descr::new_descr(py, na.as_ref(), coerce)
                } else {
                    default_descr(py, dtype)
                }
            })?;
        }
        Ok(NPY_NO_CASTING)
    })
}

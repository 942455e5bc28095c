//! The legacy `copyswap` and `copyswapn` functions of the DType. NumPy's DType API has no
//! slot for them and leaves them null for new-style DTypes, yet releases without
//! numpy#32151 call them unchecked (`ndarray.byteswap`, `np.place`; numpy#30795): a call
//! through a null pointer. The package fills them in after registering the DType, in the
//! DType's `PyArray_ArrFuncs` (`_PyDataType_GetArrFuncs`, whose layout is public).
//!
//! A string has no byte order, so a swap in place does nothing; a copy copies the string
//! into the destination array's arena, as every write of an element does, so that two
//! elements never share bytes.

use std::ffi::{c_int, c_void};
use std::ptr;

use pyo3::prelude::*;

use crate::descr::{self, StringDescr};
use crate::element::{read_view, replace_element};
use crate::error::{loop_guard, CoreResultExt};
use crate::ffi::{_PyDataType_GetArrFuncs, npy_intp, PyArrayFuncsHead};

/// `void copyswapn(void *dst, npy_intp dstride, void *src, npy_intp sstride, npy_intp n,
/// int swap, void *arr)`: `n` elements of `src` to `dst`, an element of `arr`.
unsafe extern "C" fn copyswapn(
    dst: *mut c_void,
    dstride: npy_intp,
    src: *mut c_void,
    sstride: npy_intp,
    n: npy_intp,
    _swap: c_int,
    arr: *mut c_void,
) {
    if src.is_null() || n <= 0 {
        // A swap in place: strings have no byte order.
        return;
    }
    loop_guard(|| {
        if arr.is_null() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "cannot copy StringDType elements without their array",
            ));
        }
        // SAFETY: NumPy passes the destination's array, of this DType.
        let descr = unsafe { StringDescr::of_array(arr) };
        let mut arena = descr.arena().write();
        for i in 0..n {
            let (from, to) = (
                src.cast::<u8>().wrapping_offset(i * sstride),
                dst.cast::<u8>().wrapping_offset(i * dstride),
            );
            if ptr::eq(from, to) {
                continue;
            }
            // SAFETY: NumPy passes `n` elements at each end.
            let view = unsafe { read_view(from) };
            let copy = if view.is_inline() {
                view
            } else {
                arena.duplicate(view).py()?
            };
            // SAFETY: `to` is an element of `arr`, whose arena is `arena`.
            unsafe { replace_element(&mut arena, to, copy) };
        }
        Ok(())
    });
}

/// `void copyswap(void *dst, void *src, int swap, void *arr)`: one element.
unsafe extern "C" fn copyswap(dst: *mut c_void, src: *mut c_void, swap: c_int, arr: *mut c_void) {
    // SAFETY: forwarded from NumPy.
    unsafe { copyswapn(dst, 0, src, 0, 1, swap, arr) };
}

/// Fills in the DType's `copyswap` and `copyswapn` (once, at import, after registration).
pub fn install(py: Python<'_>) -> PyResult<()> {
    let descr = descr::new_descr(py, None, true)?;
    // SAFETY: `descr` is a live descriptor of the registered DType; the ArrFuncs NumPy
    // returns are the DType's own, alive for the process, and nothing reads their two
    // copy functions concurrently at import.
    unsafe {
        let funcs = _PyDataType_GetArrFuncs(descr).cast::<PyArrayFuncsHead>();
        (*funcs).copyswapn = copyswapn as *mut c_void;
        (*funcs).copyswap = copyswap as *mut c_void;
        pyo3::ffi::Py_DECREF(descr.cast());
    }
    Ok(())
}

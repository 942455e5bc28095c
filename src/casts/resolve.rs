//! `resolve_descriptors` of the casts: which descriptors a cast runs with (a missing
//! StringDType destination gets a fresh, unowned descriptor, so that the new array owns
//! its strings) and the casting level it reports.

use std::ffi::c_int;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::descr::{self, StringDescr};
use crate::ffi::*;
use crate::loops::resolve::{default_descr, fill_descriptors};
use crate::missing;
use crate::numpy_version::rules;

/// The arguments NumPy passes to `resolve_descriptors`, for a cast (two operands).
pub(super) struct Resolution {
    pub(super) dtypes: *const *mut PyArray_DTypeMeta,
    pub(super) given: *const *mut PyArray_Descr,
    pub(super) loop_descrs: *mut *mut PyArray_Descr,
}

impl Resolution {
    /// The given descriptor of operand `k` (null when NumPy leaves it to the cast).
    pub(super) fn given(&self, k: usize) -> *mut PyArray_Descr {
        // SAFETY: NumPy passes two given descriptors.
        unsafe { *self.given.add(k) }
    }

    /// The DType of operand `k`.
    pub(super) fn dtype(&self, k: usize) -> *mut PyArray_DTypeMeta {
        // SAFETY: NumPy passes two DTypes.
        unsafe { *self.dtypes.add(k) }
    }

    /// Fills both loop descriptors, making a missing one with `make`.
    pub(super) fn fill(
        &self,
        make: impl FnMut(usize, *mut PyArray_DTypeMeta) -> PyResult<*mut PyArray_Descr>,
    ) -> PyResult<()> {
        // SAFETY: NumPy's arguments for a method with two operands.
        unsafe { fill_descriptors(2, self.dtypes, self.given, self.loop_descrs, make) }
    }

    /// The loop descriptor of operand `k`, once filled.
    pub(super) fn chosen(&self, k: usize) -> *mut PyArray_Descr {
        // SAFETY: filled by `fill` (two entries).
        unsafe { *self.loop_descrs.add(k) }
    }
}

/// Defines a `resolve_descriptors` entry point that runs `$body` on a [`Resolution`]
/// under the GIL guard and returns its casting level.
macro_rules! resolver {
    ($(#[$meta:meta])* $name:ident $([$($gen:tt)*])?, |$py:ident, $r:ident| $body:block) => {
        $(#[$meta])*
        pub(super) unsafe extern "C" fn $name $(<$($gen)*>)? (
            _method: *mut std::ffi::c_void,
            dtypes: *const *mut $crate::ffi::PyArray_DTypeMeta,
            given: *const *mut $crate::ffi::PyArray_Descr,
            loop_descrs: *mut *mut $crate::ffi::PyArray_Descr,
            _view_offset: *mut $crate::ffi::npy_intp,
        ) -> std::ffi::c_int {
            let $r = $crate::casts::resolve::Resolution { dtypes, given, loop_descrs };
            $crate::error::with_gil_guard(-1, |$py| $body)
        }
    };
}
pub(super) use resolver;

resolver!(
    /// StringDType to StringDType: unsafe when missing values would become strings.
    resolve_string_to_string,
    |py, r| {
        // SAFETY: the source of this cast is a given StringDType descriptor.
        let src = unsafe { StringDescr::from_raw(r.given(0)) };
        r.fill(|_, _| src.clone_params(py))?;
        // SAFETY: the destination is a StringDType descriptor too (filled above).
        let dst = unsafe { StringDescr::from_raw(r.chosen(1)) };
        let lossy = missing::has_na(src.na()) && !missing::has_na(dst.na());
        Ok(if lossy {
            NPY_UNSAFE_CASTING
        } else {
            NPY_NO_CASTING
        })
    }
);

resolver!(
    /// Any dtype to StringDType, at the level `CASTING`.
    resolve_to_string[const CASTING: c_int],
    |py, r| {
        r.fill(|_, _| descr::new_descr(py, None, true))?;
        Ok(CASTING)
    }
);

/// NumPy's StringDType's error for a cast to `U`, `S` or `V` without a size.
const UNSIZED_TARGET: &str = "Casting from StringDType to a fixed-width dtype with an \
    unspecified size is not currently supported, specify an explicit size for the output \
    dtype instead.";

resolver!(
    /// StringDType to another dtype, at the level `CASTING`: a sized `U`/`S` or a
    /// datetime unit must be given, as NumPy's StringDType asks.
    resolve_from_string[const CASTING: c_int],
    |py, r| {
        let target = r.dtype(1);
        if r.given(1).is_null() {
            let flexible = target == builtin_dtype(BuiltinDType::Unicode)
                || target == builtin_dtype(BuiltinDType::Bytes);
            if flexible {
                // NumPy chains this under its own "cannot cast dtype ..." error.
                return Err(PyTypeError::new_err(UNSIZED_TARGET));
            }
            let time = target == builtin_dtype(BuiltinDType::Datetime)
                || target == builtin_dtype(BuiltinDType::Timedelta);
            if time {
                return Err(PyTypeError::new_err(
                    "Cannot cast a StringDType array to a datetime64 or timedelta64 dtype \
                     without a unit; give one, for example 'datetime64[s]'",
                ));
            }
        }
        r.fill(|_, dtype| default_descr(py, dtype))?;
        Ok(CASTING)
    }
);

resolver!(
    /// To a void dtype: only a sized, unstructured one, as NumPy's StringDType (the level
    /// is unsafe: bytes may be cut anywhere).
    resolve_string_to_void,
    |py, r| {
        if r.given(1).is_null() {
            return Err(PyTypeError::new_err(UNSIZED_TARGET));
        }
        // SAFETY: a given, live descriptor.
        let target = unsafe { Bound::from_borrowed_ptr(py, r.given(1).cast()) };
        if !target.getattr("names")?.is_none() || !target.getattr("subdtype")?.is_none() {
            let message = rules().string_to_structured_message(&target.repr()?.to_string());
            return Err(PyTypeError::new_err(message));
        }
        r.fill(|_, _| unreachable!("both descriptors are given"))?;
        Ok(NPY_UNSAFE_CASTING)
    }
);

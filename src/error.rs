//! Errors at the C boundary: every `extern "C"` callback runs its body through one of
//! these guards, which catch panics and turn errors into Python exceptions.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use stringdtype_core::Error;

/// Converts an error of the pure layers into the Python exception users see.
pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::StringTooLong(_) => PyOverflowError::new_err(err.to_string()),
        Error::CorruptView(_) | Error::InvalidUtf8(_) => PyValueError::new_err(err.to_string()),
        Error::InvalidCodePoint(_) => PyTypeError::new_err(err.to_string()),
        Error::OutOfMemory(_) | Error::ArenaFull(_) => PyMemoryError::new_err(err.to_string()),
    }
}

/// `result.map_err(to_py)` in method form.
pub trait CoreResultExt<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> CoreResultExt<T> for Result<T, Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

pub(crate) fn panic_to_py(payload: Box<dyn Any + Send>) -> PyErr {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    PyRuntimeError::new_err(format!("internal error in stringdtype: {msg}"))
}

/// Runs the body of a callback that NumPy or CPython calls with the GIL held. On an error
/// or a panic it sets the Python exception and returns `on_error`.
pub fn with_gil_guard<R>(on_error: R, body: impl FnOnce(Python<'_>) -> PyResult<R>) -> R {
    // SAFETY: callers are callbacks that CPython/NumPy invoke with the GIL held.
    let py = unsafe { Python::assume_attached() };
    match catch_unwind(AssertUnwindSafe(|| body(py))) {
        Ok(Ok(value)) => value,
        Ok(Err(err)) => {
            err.restore(py);
            on_error
        }
        Err(payload) => {
            panic_to_py(payload).restore(py);
            on_error
        }
    }
}

/// Runs the body of a loop that may run without the GIL; returns 0 on success, else takes
/// the GIL to set the exception and returns -1.
pub fn loop_guard(body: impl FnOnce() -> PyResult<()>) -> std::ffi::c_int {
    let err = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return 0,
        Ok(Err(err)) => err,
        Err(payload) => panic_to_py(payload),
    };
    attach(|py| err.restore(py));
    -1
}

/// Takes the GIL from code that may run without it. Never called with an arena lock
/// held: a thread holding the GIL may be waiting for that lock (checked in debug
/// builds; errors made under a lock are plain values, built into exceptions here).
pub fn attach<R>(f: impl FnOnce(Python<'_>) -> R) -> R {
    debug_assert!(
        !stringdtype_core::fork::in_session(),
        "Python entered while an arena lock may be held"
    );
    Python::attach(f)
}

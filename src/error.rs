//! Errors at the C boundary: every `extern "C"` callback runs its body through one of
//! these guards, which catch panics and turn errors into Python exceptions.
//!
//! The one bridge from the core crate's errors to Python's exceptions is here: each
//! error type of the core ([`Error`], [`ArgumentError`], [`ArrowError`],
//! [`PatternError`]) names its exception in [`ToPyErr`], and every caller converts with
//! `.py()` ([`CoreResultExt`]), whatever the type.

use std::any::Any;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{
    PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyUnicodeDecodeError, PyValueError,
};
use pyo3::prelude::*;
use stringdtype_core::arrow::ArrowError;
use stringdtype_core::kernels::ArgumentError;
use stringdtype_core::regex::PatternError;
use stringdtype_core::Error;

/// `ENOMEM`, the error code an Arrow C stream returns when it ran out of memory.
const ENOMEM: i32 = 12;

/// A Python exception type's constructor, taking the message.
type Exception = fn(String) -> PyErr;

/// An error of the core crate as the Python exception users see.
pub trait ToPyErr: Sized + std::fmt::Display {
    /// The Python exception this error raises.
    fn exception(&self) -> Exception;

    /// The exception, with the error's own message.
    fn to_py(self) -> PyErr {
        (self.exception())(self.to_string())
    }

    /// The exception of an error about one element of the package's own functions
    /// (`stringdtype.strings`, `stringdtype.regex`): its message names the operation
    /// and the element, as `translate: character mapping must be in range(0x110000)
    /// (element 'abc')`. `np.strings` keeps NumPy's messages and does not use this.
    fn in_element(self, op: &str, element: &[u8]) -> PyErr {
        let message = format!("{op}: {self} (element {})", element_repr(element));
        (self.exception())(message)
    }
}

/// Converts an error of the pure layers into the Python exception users see.
pub fn to_py(err: impl ToPyErr) -> PyErr {
    err.to_py()
}

/// How many characters of an element an error message shows.
const SHOWN: usize = 40;

/// An element in single quotes, as Python's `repr` of a `str` without quotes or
/// unprintable characters shows it (backslash, quote and ASCII control characters
/// escaped), cut after [`SHOWN`] characters with `...`. Bytes that are not UTF-8 show
/// as U+FFFD.
pub fn element_repr(element: &[u8]) -> String {
    let text = String::from_utf8_lossy(element);
    let mut shown = String::with_capacity(SHOWN + 8);
    shown.push('\'');
    for (i, c) in text.chars().enumerate() {
        if i == SHOWN {
            shown.push_str("'...");
            return shown;
        }
        match c {
            '\\' => shown.push_str("\\\\"),
            '\'' => shown.push_str("\\'"),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                shown.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => shown.push(c),
        }
    }
    shown.push('\'');
    shown
}

impl ToPyErr for Error {
    fn exception(&self) -> Exception {
        match self {
            Error::StringTooLong(_) => PyOverflowError::new_err::<String>,
            Error::CorruptView(_) | Error::InvalidUtf8(_) => PyValueError::new_err::<String>,
            Error::InvalidCodePoint(_) => PyTypeError::new_err::<String>,
            Error::OutOfMemory(_) | Error::ArenaFull(_) => PyMemoryError::new_err::<String>,
        }
    }
}

impl ToPyErr for ArgumentError {
    /// Python's `ValueError` for a bad argument (as `str.partition("")` raises), NumPy's
    /// `TypeError` for a bad fill character, Python's for a `translate` value of the
    /// wrong type.
    fn exception(&self) -> Exception {
        match self {
            ArgumentError::FillCharacter | ArgumentError::MappingType => {
                PyTypeError::new_err::<String>
            }
            ArgumentError::EmptySeparator
            | ArgumentError::ZeroStep
            | ArgumentError::MappingRange
            | ArgumentError::MappingSurrogate => PyValueError::new_err::<String>,
        }
    }
}

impl ToPyErr for PatternError {
    fn exception(&self) -> Exception {
        PyValueError::new_err::<String>
    }
}

impl ToPyErr for ArrowError {
    fn exception(&self) -> Exception {
        match self {
            ArrowError::UnsupportedFormat(_) => PyTypeError::new_err::<String>,
            ArrowError::Element {
                error: Error::StringTooLong(_),
                ..
            } => PyOverflowError::new_err::<String>,
            ArrowError::Element {
                error: Error::OutOfMemory(_) | Error::ArenaFull(_),
                ..
            }
            | ArrowError::Stream { code: ENOMEM, .. } => PyMemoryError::new_err::<String>,
            _ => PyValueError::new_err::<String>,
        }
    }

    /// Arrow's errors name the element by its index in the Arrow array; an invalid
    /// UTF-8 one is Python's `UnicodeDecodeError`.
    fn to_py(self) -> PyErr {
        match &self {
            ArrowError::InvalidUtf8 { index, bytes } => unicode_error(*index, bytes),
            ArrowError::UnexpectedNull { .. } => (self.exception())(format!(
                "{self}; pass na_object=... to from_arrow to keep nulls as missing values"
            )),
            _ => (self.exception())(self.to_string()),
        }
    }
}

/// A `UnicodeDecodeError` whose object is element `index`'s bytes up to the end of its
/// first invalid sequence, and whose reason names the element (of an Arrow array).
fn unicode_error(index: usize, bytes: &[u8]) -> PyErr {
    let (start, end, what) = match std::str::from_utf8(bytes) {
        Ok(_) => (0, bytes.len(), "invalid data"),
        Err(error) => {
            let start = error.valid_up_to();
            match error.error_len() {
                None => (start, bytes.len(), "unexpected end of data"),
                Some(len) if is_start_byte(bytes[start]) => {
                    (start, start + len, "invalid continuation byte")
                }
                Some(len) => (start, start + len, "invalid start byte"),
            }
        }
    };
    let reason = format!("{what} in element {index} of the Arrow array");
    let reason = CString::new(reason).expect("no NUL in the message");
    // Arrow's conversions run attached to the interpreter (they make arrays).
    Python::attach(
        |py| match PyUnicodeDecodeError::new(py, c"utf-8", bytes, start..end, &reason) {
            Ok(exc) => PyErr::from_value(exc.into_any()),
            Err(err) => err,
        },
    )
}

/// Whether `byte` can start a multi-byte UTF-8 sequence.
fn is_start_byte(byte: u8) -> bool {
    (0xC2..=0xF4).contains(&byte)
}

/// `result.map_err(to_py)` in method form, for every error type of the core.
pub trait CoreResultExt<T> {
    fn py(self) -> PyResult<T>;
}

impl<T, E: ToPyErr> CoreResultExt<T> for Result<T, E> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(ToPyErr::to_py)
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

//! The rule of each operation for a missing operand ([`OnMissing`]): NumPy's
//! StringDType's, messages included.

use crate::missing::Absent::{Error, Missing, NanMissing};
use crate::missing::{NaKind, OnMissing};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::PyErr;

fn value(message: &str) -> PyErr {
    PyValueError::new_err(message.to_string())
}

fn type_error(message: &str) -> PyErr {
    PyTypeError::new_err(message.to_string())
}

/// `+`.
pub const ADD: OnMissing = OnMissing::new(NanMissing, |_, _| {
    value("Cannot add null that is not a nan-like value")
});
/// `*` (multiply).
pub const MULTIPLY: OnMissing = OnMissing::new(NanMissing, |_, _| {
    type_error("Cannot multiply null that is not a nan-like value")
});
/// `str_len`.
pub const STR_LEN: OnMissing = OnMissing::new(Error, |_, _| {
    value("The length of a null string is undefined")
});
/// The case conversions (`upper`, ...).
pub const CASE: OnMissing = OnMissing::new(NanMissing, |_, _| {
    type_error("Cannot change the case of a null that is not a nan-like value or a string")
});
/// `translate`.
pub const TRANSLATE: OnMissing = OnMissing::new(NanMissing, |_, _| {
    type_error("Cannot translate a null that is not a nan-like value or a string")
});
/// UTF-8 `encode` and its size.
pub const ENCODE: OnMissing = OnMissing::new(Error, |_, _| {
    type_error("Cannot encode a null that is not a string")
});
/// The `is*` predicates, named.
pub const PREDICATE: OnMissing = OnMissing::new(NanMissing, |_, name| {
    value(&format!(
        "Cannot use the {name} function with a null that is not a nan-like value"
    ))
});
/// `find rfind index rindex count`, named.
pub const SEARCH: OnMissing = OnMissing::new(Error, |_, name| {
    value(&format!(
        "'{name}' not supported for null values that are not strings."
    ))
});
/// `startswith endswith`, named.
pub const TAILMATCH: OnMissing = OnMissing::new(NanMissing, |_, name| {
    value(&format!(
        "'{name}' not supported for null values that are not nan-like or strings."
    ))
});
/// The string to strip.
pub const STRIP: OnMissing = OnMissing::new(NanMissing, |_, _| strip_error());
/// The characters to strip, named by the ufunc.
pub const STRIP_CHARS: OnMissing = OnMissing::new(Error, |na, name| {
    if *na == NaKind::NanLike {
        value(&format!(
            "Cannot use a null string that is not a string as the {name} delimiter"
        ))
    } else {
        strip_error()
    }
});
fn strip_error() -> PyErr {
    value("Can only strip null values that are strings or NaN-like values")
}
/// The string `replace` searches.
pub const REPLACE: OnMissing = OnMissing::new(NanMissing, |_, _| {
    value("Only string or NaN-like null strings can be used as search strings for replace")
});
/// The search pattern and replacement of `replace`.
pub const REPLACE_PATTERN: OnMissing = OnMissing::new(Error, |_, _| {
    value("Null values are not supported as search patterns or replacement strings for replace")
});
/// `expandtabs`.
pub const EXPANDTABS: OnMissing = OnMissing::new(Error, |_, _| {
    value("Null values are not supported arguments for expandtabs")
});
/// `center ljust rjust` (string and fill character), named.
pub const PAD: OnMissing = OnMissing::new(NanMissing, |_, name| {
    value(&format!("Cannot {name} null that is not a nan-like value"))
});
/// `zfill`.
pub const ZFILL: OnMissing = OnMissing::new(NanMissing, |_, _| {
    type_error("Cannot zfill null string that is not a nan-like value")
});
/// `partition rpartition`, named.
pub const PARTITION: OnMissing = OnMissing::new(Error, |_, name| {
    value(&format!("Null values are not supported in {name}"))
});
/// `slice`: every missing value, a string one included, is an error.
pub const SLICE: OnMissing = OnMissing {
    strings_act: false,
    ..OnMissing::new(Error, |_, _| type_error("Cannot slice null string"))
};
/// The regex searches, `sub` and `extract`.
pub const REGEX: OnMissing = OnMissing::new(NanMissing, |_, _| {
    value("regular expressions cannot be used with a null that is not a string or NaN-like")
});
/// The regex `count`.
pub const REGEX_COUNT: OnMissing = OnMissing::new(Error, |_, _| {
    value("regular expressions cannot be used with a null that is not a string")
});
/// The lists of `split`, `rsplit` and `join`: a missing value that is not a string
/// gives a missing list (or joined string).
pub const LISTS: OnMissing = OnMissing::new(Missing, |_, _| {
    unreachable!("every missing value gives a string or a missing list")
});

//! The kinds of `na_object` ([`NaKind`]) and how an object is classified, apart from the
//! rest of [`crate::missing`] so that the descriptor, which holds a kind, imports nothing
//! that imports it.

use pyo3::prelude::*;
use pyo3::types::PyString;

/// How the dtype treats missing values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NaKind {
    /// No `na_object`: every element is a string.
    Unset,
    /// A NaN-like object (`np.nan`, `pd.NA`): propagates through operations, sorts last.
    NanLike,
    /// A string: missing values act as this string in operations.
    String(Box<[u8]>),
    /// Any other object (`None`): operations that need a value raise.
    Other,
}

/// The kind of the `na_object` `na`: a `str`; NaN-like when `na != na` is truthy or its
/// truth value raises (`pandas.NA`); else any other object.
pub fn classify(na: &Bound<'_, PyAny>) -> PyResult<NaKind> {
    if let Ok(s) = na.cast::<PyString>() {
        return Ok(NaKind::String(s.to_str()?.as_bytes().into()));
    }
    let nan_like = match na.ne(na) {
        Ok(unequal) => unequal,
        Err(_) => {
            let raw = na.rich_compare(na, pyo3::basic::CompareOp::Ne)?;
            raw.is_truthy().unwrap_or(true)
        }
    };
    Ok(if nan_like {
        NaKind::NanLike
    } else {
        NaKind::Other
    })
}

/// The kind of `na_object` (unset: `None`) and `str(na_object)` in UTF-8, what a
/// missing value becomes in a dtype without one.
pub fn params(na_object: Option<&Bound<'_, PyAny>>) -> PyResult<(NaKind, Box<[u8]>)> {
    Ok(match na_object {
        None => (NaKind::Unset, Box::default()),
        Some(obj) => (classify(obj)?, obj.str()?.to_str()?.as_bytes().into()),
    })
}

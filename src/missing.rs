//! Missing values: every decision the package makes about them. Which `na_object` rules a
//! call ([`effective_na`], [`comparison_na`]), what an operation sees for a missing
//! operand ([`operand`], [`string_or_default`], [`na_text`]), how missing values compare
//! and order ([`compare_missing`], [`order_missing`]), their truth, and how the
//! `na_object` and `coerce` of several descriptors combine ([`common_params`]). Messages
//! are the caller's: each operation names itself as NumPy's StringDType does.
//!
//! The rules, by the kind of `na_object` ([`NaKind`]): a NaN-like one propagates (a result
//! is missing, a predicate false) and compares as float NaN does; a string one acts as its
//! string; any other one (`None`) equals only itself and is an error wherever a value is
//! needed; under a descriptor without one, a missing value (of another operand) is the
//! empty string.

use std::cmp::Ordering;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::kernels::Comparison;
use stringdtype_core::{Arena, View};

pub use crate::descr::NaKind;
use crate::descr::{na_equal, DescrState, StringDescr};
use crate::error::CoreResultExt;
use crate::numpy_version::{rules, NaRule};

/// The missing-value rule of an operation over several string operands: the first
/// operand's up to NumPy 2.4, the first one set from 2.5 on (`numpy_version::NaRule`).
/// A missing value of another operand follows it; under `NaKind::Unset` it acts as the
/// empty string.
pub fn effective_na<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    match rules().na {
        NaRule::FirstOperand => &states[0].na,
        NaRule::Common => first_set(states),
    }
}

/// The missing-value rule of a comparison: the first one set among the operands, on every
/// release (`numpy_version`, "Comparisons"), so that `"" == arr` and `arr == ""` agree.
pub fn comparison_na<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    first_set(states)
}

fn first_set<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    states
        .iter()
        .map(|state| &state.na)
        .find(|na| **na != NaKind::Unset)
        .unwrap_or(&states[0].na)
}

/// An error for an operation on a missing value that is not NaN-like or a string.
pub fn na_error(message: &str) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// The bytes an operation sees for a string operand: its own, or for a missing value the
/// `na_object` string; `None` for a NaN-like missing value when `nan_propagates` (the
/// result is then missing, or false); `error()` for a missing value the operation cannot
/// use.
#[inline(always)]
pub fn operand<'a>(
    view: &'a View,
    arena: &'a Arena,
    na: &'a NaKind,
    nan_propagates: bool,
    error: impl FnOnce() -> PyErr,
) -> PyResult<Option<&'a [u8]>> {
    if !view.is_na() {
        return arena.get(view).py().map(Some);
    }
    match na {
        NaKind::String(default) => Ok(Some(default)),
        // A missing value of another operand, under a first operand without one.
        NaKind::Unset => Ok(Some(b"")),
        NaKind::NanLike if nan_propagates => Ok(None),
        _ => Err(error()),
    }
}

/// What a missing value of an operand with `na` stands for when it is copied as a string:
/// a string `na_object`; `None` when the missing value stays missing (or is an error).
#[inline(always)]
pub fn default_string(na: &NaKind) -> Option<&[u8]> {
    match na {
        NaKind::String(default) => Some(default),
        _ => None,
    }
}

/// The bytes of `view`, or of the dtype's default string for a missing value. Inlined:
/// the slice would otherwise come back through memory, once per element.
#[inline(always)]
pub fn string_or_default<'r>(
    view: &'r View,
    arena: &'r Arena,
    na: &'r NaKind,
) -> PyResult<&'r [u8]> {
    match (default_string(na), view.is_na()) {
        (Some(default), true) => Ok(default),
        _ => arena.get(view).py(),
    }
}

/// What a missing value becomes in a dtype without one (casts to `U`, `S`, another
/// StringDType): `str(na_object)`, or the string itself for a string `na_object`.
pub fn na_text(state: &DescrState) -> &[u8] {
    default_string(&state.na).unwrap_or(&state.na_name)
}

/// The result of comparison `op` when `a` or `b` is missing, under the rule `na`. NumPy's
/// fixed rules (numpy#32564, `numpy_version`), which are Python's: NaN-like missing values
/// compare as float NaN (every comparison false, `!=` true); a non-string sentinel such as
/// `None` equals only another missing value, `!=` being its negation, and cannot be
/// ordered (an error with `message`); a string one compares as that string, and under a
/// rule without one the missing value is the empty string.
#[cold]
pub fn compare_missing(
    op: Comparison,
    na: &NaKind,
    (a, arena_a): (&View, &Arena),
    (b, arena_b): (&View, &Arena),
    message: impl FnOnce() -> String,
) -> PyResult<bool> {
    let unequal = op == Comparison::NotEqual;
    match na {
        NaKind::NanLike => Ok(unequal),
        NaKind::Other if op.is_equality() => Ok((a.is_na() && b.is_na()) != unequal),
        NaKind::Other => Err(na_error(&message())),
        NaKind::String(_) | NaKind::Unset => {
            let never = || unreachable!("a string or no na_object gives every missing value");
            let x = operand(a, arena_a, na, false, never)?.unwrap_or_default();
            let y = operand(b, arena_b, na, false, never)?.unwrap_or_default();
            Ok(op.holds(x.cmp(y)))
        }
    }
}

/// The order of `a` and `b` when one of them is missing (sorts, `maximum`, `minimum`,
/// argmax, argmin), with the rule `na`: a NaN-like missing value is greater than anything,
/// itself included, when it is `a` (so `argmax` finds the last one, as NumPy does; sorts
/// call two of them equal); a string one, or any missing value under a descriptor without
/// `na_object`, orders as that string (the empty string); any other one is an error.
#[cold]
pub fn order_missing(
    na: &NaKind,
    (a, arena_a): (&View, &Arena),
    (b, arena_b): (&View, &Arena),
) -> PyResult<Ordering> {
    let default: &[u8] = match na {
        NaKind::NanLike if a.is_na() => return Ok(Ordering::Greater),
        NaKind::NanLike => return Ok(Ordering::Less),
        NaKind::Other => {
            return Err(PyValueError::new_err(
                "Cannot compare null that is not a nan-like value",
            ))
        }
        NaKind::String(default) => default,
        NaKind::Unset => b"",
    };
    let x = if a.is_na() {
        default
    } else {
        arena_a.get(a).py()?
    };
    let y = if b.is_na() {
        default
    } else {
        arena_b.get(b).py()?
    };
    Ok(x.cmp(y))
}

/// [`order_missing`] made a total order, for sorts and `searchsorted` (the `compare`
/// slot): two missing values are equal, so that a NaN-like one sorts after every string
/// and `searchsorted` finds the run of them from either side, as for float NaN.
#[cold]
pub fn sorting_order(
    na: &NaKind,
    (a, arena_a): (&View, &Arena),
    (b, arena_b): (&View, &Arena),
) -> PyResult<Ordering> {
    if a.is_na() && b.is_na() && !unorderable(na) {
        return Ok(Ordering::Equal);
    }
    order_missing(na, (a, arena_a), (b, arena_b))
}

/// Whether a descriptor with `na` can hold missing values at all.
#[inline]
pub fn has_na(na: &NaKind) -> bool {
    *na != NaKind::Unset
}

/// Whether the missing values of `na` propagate through operations (NaN-like ones): a
/// result is missing, a predicate false, `isnan` true.
#[inline]
pub fn propagates(na: &NaKind) -> bool {
    *na == NaKind::NanLike
}

/// Whether a sort must refuse the missing values of a descriptor with `na` (they cannot
/// be ordered).
pub fn unorderable(na: &NaKind) -> bool {
    matches!(na, NaKind::Other)
}

/// Truth of a missing value: a NaN-like one is true (as NaN is), a string one is true when
/// that string is empty (NumPy's StringDType's surprising answer, kept for parity), any
/// other one false.
pub fn missing_truth(na: &NaKind) -> bool {
    match na {
        NaKind::NanLike => true,
        NaKind::String(default) => default.is_empty(),
        NaKind::Other | NaKind::Unset => false,
    }
}

/// The `na_object` and `coerce` of a result over the string descriptors `descrs`: an unset
/// `na_object` combines with anything, two different ones are the error `conflict(a, b)`
/// builds; `coerce` folds the descriptors' with `coerce_rule` (the loops: all of them;
/// `np.result_type`: NumPy's release rule, `numpy_version::Rules::common_coerce`).
pub fn common_params<'py>(
    py: Python<'py>,
    descrs: &[StringDescr<'_>],
    coerce_rule: impl Fn(bool, bool) -> bool,
    conflict: impl FnOnce(&Bound<'py, PyAny>, &Bound<'py, PyAny>) -> PyResult<PyErr>,
) -> PyResult<(Option<Bound<'py, PyAny>>, bool)> {
    let mut na: Option<Bound<'py, PyAny>> = None;
    let mut coerce = descrs.first().is_none_or(|d| d.coerce());
    for d in descrs.iter().skip(1) {
        coerce = coerce_rule(coerce, d.coerce());
    }
    for d in descrs {
        match (&na, d.na_object(py)) {
            (Some(a), Some(b)) if !na_equal(Some(a), Some(&b)) => return Err(conflict(a, &b)?),
            (None, Some(b)) => na = Some(b),
            _ => {}
        }
    }
    Ok((na, coerce))
}

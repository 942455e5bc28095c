//! Missing values: every decision the package makes about them. What an `na_object` is
//! ([`NaKind`], [`classify`]), which one rules a call ([`effective_na`],
//! [`comparison_na`]), what each operation does with a missing operand ([`OnMissing`], one
//! named rule per operation in [`ops`], applied through [`Missing`]), what a missing value
//! becomes in a dtype without one ([`na_text`]), how missing values compare and order
//! ([`compare_missing`], [`order_missing`]), their truth, and how the `na_object` and
//! `coerce` of several descriptors combine ([`common_params`]). Messages are NumPy's
//! StringDType's, each naming its operation.
//!
//! The rules, by the kind of `na_object` ([`NaKind`]): a NaN-like one propagates (a result
//! is missing, a predicate false) and compares as float NaN does; a string one acts as its
//! string; any other one (`None`) equals only itself and is an error wherever a value is
//! needed; under a descriptor without one, a missing value (of another operand) is the
//! empty string.

pub(crate) mod kind;
pub mod ops;

use std::cell::Cell;
use std::cmp::Ordering;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::kernels::Comparison;
use stringdtype_core::{Arena, View};

pub use kind::NaKind;

use crate::descr::{na_equal, DescrState, StringDescr};
use crate::error::CoreResultExt;
use crate::numpy_version::{rules, NaRule};

/// Whether a float64 NaN cast to a dtype with `na` becomes its missing value: when that
/// one is NaN-like, from NumPy 2.3 on (`numpy_version`).
pub fn float_nan_is_missing(na: &NaKind) -> bool {
    propagates(na) && rules().float_nan_is_missing
}

/// Whether a missing value of a dtype with `na` stays missing when copied out of it (to
/// Python objects, or to a dtype that keeps missing values), rather than becoming the
/// string it acts as.
pub fn stays_missing(na: &NaKind) -> bool {
    default_string(na).is_none()
}

/// What an operation gives for a missing operand that stands for no string (a NaN-like
/// or other `na_object`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Absent {
    /// A missing result (or false) for every such missing value.
    Missing,
    /// A missing result (or false) for a NaN-like missing value, an error for any other.
    NanMissing,
    /// An error.
    Error,
}

/// What one operation does with a missing operand: `absent` for one that stands for no
/// string; a string `na_object` acts as its string when `strings_act` (else it is an
/// error too), and so does the empty string for a missing value of another operand under
/// a rule without `na_object`. `error(na, name)` is the operation's error.
#[derive(Clone, Copy)]
pub struct OnMissing {
    pub absent: Absent,
    pub strings_act: bool,
    error: fn(&NaKind, &str) -> PyErr,
}

impl OnMissing {
    pub(crate) const fn new(absent: Absent, error: fn(&NaKind, &str) -> PyErr) -> OnMissing {
        OnMissing {
            absent,
            strings_act: true,
            error,
        }
    }
}

/// The missing-value policy of a call: NumPy's StringDType's rules (`np.strings`, the
/// ufuncs), or pandas' and polars' (`stringdtype.strings`, `stringdtype.regex`): every
/// missing operand, whatever the kind of `na_object`, gives a missing result, and a
/// bool result `na`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Policy {
    NumPy,
    Propagate { na: bool },
}

thread_local! {
    static POLICY: Cell<Policy> = const { Cell::new(Policy::NumPy) };
}

/// The calling thread's policy. A loop reads it once per call, when it makes its
/// [`Missing`] rules, in the thread NumPy calls it in.
#[inline]
pub fn policy() -> Policy {
    POLICY.with(Cell::get)
}

/// `_set_missing_policy(propagate, na)`: sets the calling thread's missing-value policy
/// (pandas' with bool results `na` when `propagate`, else NumPy's) and returns the
/// previous one as `(propagate, na)`. `stringdtype.strings` and `stringdtype.regex` set
/// it around their calls.
#[pyfunction]
pub fn _set_missing_policy(propagate: bool, na: bool) -> (bool, bool) {
    let new = if propagate {
        Policy::Propagate { na }
    } else {
        Policy::NumPy
    };
    match POLICY.with(|cell| cell.replace(new)) {
        Policy::NumPy => (false, false),
        Policy::Propagate { na } => (true, na),
    }
}

/// The rule `on` of one operation (named `name` in its messages) under the call's
/// `na_object` kind `na` and policy: what each missing operand of the call gives.
#[derive(Clone, Copy)]
pub struct Missing<'a> {
    na: &'a NaKind,
    on: OnMissing,
    name: &'a str,
    policy: Policy,
}

/// The rule `on` under `na` and the calling thread's policy for one call of the
/// operation `name`.
#[inline]
pub fn rule<'a>(na: &'a NaKind, on: OnMissing, name: &'a str) -> Missing<'a> {
    Missing {
        na,
        on,
        name,
        policy: policy(),
    }
}

/// A result type's value for a missing result: a missing bool is false under NumPy's
/// policy, `na` under pandas'; a missing count is NaN in a float64 result and an error
/// in an int64 one.
pub trait MissingResult: Sized {
    fn missing(rule: &Missing) -> PyResult<Self>;
}

impl MissingResult for bool {
    #[inline]
    fn missing(rule: &Missing) -> PyResult<bool> {
        Ok(match rule.policy {
            Policy::NumPy => false,
            Policy::Propagate { na } => na,
        })
    }
}

impl MissingResult for i64 {
    #[cold]
    fn missing(rule: &Missing) -> PyResult<i64> {
        Err(rule.error())
    }
}

impl MissingResult for f64 {
    #[inline]
    fn missing(_: &Missing) -> PyResult<f64> {
        Ok(f64::NAN)
    }
}

impl<'a> Missing<'a> {
    /// Whether every missing operand gives a missing result (pandas' policy).
    #[inline]
    pub fn propagates_all(&self) -> bool {
        self.policy != Policy::NumPy
    }

    /// What a missing operand stands for: a string, `None` for a missing result (or
    /// false), or the operation's error.
    #[inline]
    pub fn stand_in(&self) -> PyResult<Option<&'a [u8]>> {
        if self.propagates_all() {
            return Ok(None);
        }
        match (self.na, self.on.absent) {
            (NaKind::String(default), _) if self.on.strings_act => Ok(Some(default)),
            (NaKind::Unset, _) => Ok(Some(b"")),
            (NaKind::NanLike, Absent::Missing | Absent::NanMissing) => Ok(None),
            (NaKind::Other, Absent::Missing) => Ok(None),
            _ => Err(self.error()),
        }
    }

    /// The bytes the operation sees for `view` (of `arena`): its own, or for a missing
    /// value [`Missing::stand_in`]. Inlined: the slice would otherwise come back through
    /// memory, once per element.
    #[inline(always)]
    pub fn operand<'r>(&self, view: &'r View, arena: &'r Arena) -> PyResult<Option<&'r [u8]>>
    where
        'a: 'r,
    {
        if !view.is_na() {
            return arena.get(view).py().map(Some);
        }
        self.stand_in()
    }

    /// The operation's error for a missing operand it cannot use.
    #[cold]
    pub fn error(&self) -> PyErr {
        (self.on.error)(self.na, self.name)
    }
}

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
/// Under pandas' policy every missing value compares as a NaN-like one does.
pub fn comparison_na<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    static NAN_LIKE: NaKind = NaKind::NanLike;
    match policy() {
        Policy::NumPy => first_set(states),
        Policy::Propagate { .. } => &NAN_LIKE,
    }
}

fn first_set<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    states
        .iter()
        .map(|state| &state.na)
        .find(|na| **na != NaKind::Unset)
        .unwrap_or(&states[0].na)
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
        NaKind::Other => Err(PyValueError::new_err(message())),
        NaKind::String(_) | NaKind::Unset => {
            let default = default_string(na).unwrap_or_default();
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

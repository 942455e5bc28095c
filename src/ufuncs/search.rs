//! Loops with a non-string result: the `is*` predicates (bool) and the substring
//! searches `find rfind index rindex count` (int64) and `startswith endswith` (bool).
//!
//! A search whose needle operand has stride 0 (a Python `str`, or broadcasting) prepares
//! the needle once per loop call instead of once per element.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, Needle, Predicate};

use super::registry::{Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::descr::NaKind;
use crate::element::read_view;
use crate::loops::{effective_na, operand, read_i64, ufunc_loop, Args};
use crate::unicode::{tables, PythonTables};

const T: Dt = Dt::Ours;

pub fn loops() -> Vec<LoopDef> {
    const PREDICATE: &[Dt] = &[T, Dt::Bool];
    const FIND: &[Dt] = &[T, T, Dt::Int64, Dt::Int64, Dt::Int64];
    const TAILMATCH: &[Dt] = &[T, T, Dt::Int64, Dt::Int64, Dt::Bool];
    vec![
        LoopDef::new("isalpha", PREDICATE, predicate_loop::<ISALPHA>),
        LoopDef::new("isdigit", PREDICATE, predicate_loop::<ISDIGIT>),
        LoopDef::new("isspace", PREDICATE, predicate_loop::<ISSPACE>),
        LoopDef::new("isalnum", PREDICATE, predicate_loop::<ISALNUM>),
        LoopDef::new("islower", PREDICATE, predicate_loop::<ISLOWER>),
        LoopDef::new("isupper", PREDICATE, predicate_loop::<ISUPPER>),
        LoopDef::new("istitle", PREDICATE, predicate_loop::<ISTITLE>),
        LoopDef::new("isdecimal", PREDICATE, predicate_loop::<ISDECIMAL>),
        LoopDef::new("isnumeric", PREDICATE, predicate_loop::<ISNUMERIC>),
        LoopDef::new("find", FIND, find_loop::<FIND_FIRST>),
        LoopDef::new("rfind", FIND, find_loop::<FIND_LAST>),
        LoopDef::new("index", FIND, find_loop::<INDEX_FIRST>),
        LoopDef::new("rindex", FIND, find_loop::<INDEX_LAST>),
        LoopDef::new("count", FIND, find_loop::<COUNT>),
        LoopDef::new("startswith", TAILMATCH, tailmatch_loop::<false>),
        LoopDef::new("endswith", TAILMATCH, tailmatch_loop::<true>),
    ]
}

const ISALPHA: u8 = 0;
const ISDIGIT: u8 = 1;
const ISSPACE: u8 = 2;
const ISALNUM: u8 = 3;
const ISLOWER: u8 = 4;
const ISUPPER: u8 = 5;
const ISTITLE: u8 = 6;
const ISDECIMAL: u8 = 7;
const ISNUMERIC: u8 = 8;

const PREDICATE_NAMES: [&str; 9] = [
    "isalpha",
    "isdigit",
    "isspace",
    "isalnum",
    "islower",
    "isupper",
    "istitle",
    "isdecimal",
    "isnumeric",
];

/// The predicate that short ASCII strings can answer from their views alone.
const fn ascii_predicate(p: u8) -> Option<Predicate> {
    match p {
        ISALPHA => Some(Predicate::Alpha),
        ISDIGIT | ISDECIMAL | ISNUMERIC => Some(Predicate::Digit),
        ISALNUM => Some(Predicate::Alnum),
        ISSPACE => Some(Predicate::Space),
        ISLOWER => Some(Predicate::Lower),
        ISUPPER => Some(Predicate::Upper),
        _ => None,
    }
}

#[inline]
fn predicate<const P: u8>(s: &[u8], tables: &PythonTables) -> bool {
    match P {
        ISALPHA => kernels::isalpha(s, tables),
        ISDIGIT => kernels::isdigit(s, tables),
        ISSPACE => kernels::isspace(s, tables),
        ISALNUM => kernels::isalnum(s, tables),
        ISLOWER => kernels::islower(s, tables),
        ISUPPER => kernels::isupper(s, tables),
        ISTITLE => kernels::istitle(s, tables),
        ISDECIMAL => kernels::isdecimal(s, tables),
        _ => kernels::isnumeric(s, tables),
    }
}

ufunc_loop!(predicate_loop[const P: u8], 2, |args| {
    let state = args.state(0);
    let locks = ArenaLocks::reading(&[&state.arena]);
    let tables = tables();
    for i in 0..args.n {
        // SAFETY: element i of the input.
        let view = unsafe { read_view(args.at(0, i)) };
        let error = || {
            PyValueError::new_err(format!(
                "Cannot use the {} function with a null that is not a nan-like value",
                PREDICATE_NAMES[P as usize]
            ))
        };
        let fast = ascii_predicate(P).and_then(|p| kernels::inline_ascii(view, p));
        let result = match fast {
            Some(result) => result,
            // A NaN-like missing value is never alpha, digit, ...
            None => operand(&view, locks.get(0), &state.na, true, error)?
                .is_some_and(|s| predicate::<P>(s, tables)),
        };
        // SAFETY: element i of the bool output.
        unsafe { *args.at(1, i) = result as u8 };
    }
    Ok(())
});

const FIND_FIRST: u8 = 0;
const FIND_LAST: u8 = 1;
const INDEX_FIRST: u8 = 2;
const INDEX_LAST: u8 = 3;
const COUNT: u8 = 4;

const FIND_NAMES: [&str; 5] = ["find", "rfind", "index", "rindex", "count"];

/// Runs `f(haystack, needle, start, end)` on each element of a search loop's operands
/// (string, string, int64, int64), with NumPy's missing-value rules: a string missing
/// value acts as its string, a NaN-like one gives `nan_result` when `nan_result` is
/// given, any other is `error`.
fn for_each_search<R>(
    args: &Args,
    nan_result: Option<R>,
    error: impl Fn() -> PyErr,
    mut f: impl FnMut(isize, &[u8], Option<&Needle<'_>>, &[u8], isize, isize) -> PyResult<R>,
    mut write: impl FnMut(isize, R),
) -> PyResult<()>
where
    R: Copy,
{
    let (sa, sb) = (args.state(0), args.state(1));
    let na = effective_na(&[sa, sb]);
    let nan_propagates = nan_result.is_some();
    let locks = ArenaLocks::reading(&[&sa.arena, &sb.arena]);
    // A needle with stride 0 is the same for every element: prepare it once.
    let scalar = args.scalar_view(1);
    let fixed = match &scalar {
        Some(view) => {
            let bytes = operand(view, locks.get(1), na, nan_propagates, &error)?;
            Some(Needle::new(bytes.unwrap_or(b"")))
        }
        None => None,
    };
    for i in 0..args.n {
        // SAFETY: element i of each string input.
        let (a, b) = unsafe { (read_view(args.at(0, i)), read_view(args.at(1, i))) };
        let haystack = operand(&a, locks.get(0), na, nan_propagates, &error)?;
        let needle = operand(&b, locks.get(1), na, nan_propagates, &error)?;
        let result = match (haystack, needle, nan_result) {
            (Some(haystack), Some(needle), _) => {
                // SAFETY: operands 2 and 3 are int64.
                let (start, end) = unsafe { (read_i64(args, 2, i), read_i64(args, 3, i)) };
                let (start, end) = (clamp(start), clamp(end));
                f(i, haystack, fixed.as_ref(), needle, start, end)?
            }
            (_, _, Some(nan_result)) => nan_result,
            _ => unreachable!("a missing operand without a NaN-like rule is an error"),
        };
        write(i, result);
    }
    Ok(())
}

/// An int64 position as `isize` (they are the same width on the supported platforms).
#[inline]
fn clamp(value: i64) -> isize {
    value.clamp(isize::MIN as i64, isize::MAX as i64) as isize
}

ufunc_loop!(find_loop[const K: u8], 5, |args| {
    let name = FIND_NAMES[K as usize];
    let error = || {
        PyValueError::new_err(format!(
            "'{name}' not supported for null values that are not strings."
        ))
    };
    let search = |_, haystack: &[u8], fixed: Option<&Needle<'_>>, needle: &[u8], start, end| {
        let found = match (K, fixed) {
            (FIND_FIRST | INDEX_FIRST, Some(n)) => n.find(haystack, start, end),
            (FIND_FIRST | INDEX_FIRST, None) => kernels::find(haystack, needle, start, end),
            (FIND_LAST | INDEX_LAST, Some(n)) => n.rfind(haystack, start, end),
            (FIND_LAST | INDEX_LAST, None) => kernels::rfind(haystack, needle, start, end),
            (_, Some(n)) => return Ok(n.count(haystack, start, end) as i64),
            (_, None) => return Ok(kernels::count(haystack, needle, start, end) as i64),
        };
        match found {
            Some(position) => Ok(position as i64),
            None if matches!(K, INDEX_FIRST | INDEX_LAST) => {
                Err(PyValueError::new_err("substring not found"))
            }
            None => Ok(-1),
        }
    };
    // SAFETY: element i of the int64 output.
    let write = |i, value: i64| unsafe {
        std::ptr::write_unaligned(args.at(4, i) as *mut i64, value)
    };
    for_each_search(&args, None, error, search, write)
});

ufunc_loop!(tailmatch_loop[const END: bool], 5, |args| {
    let name = if END { "endswith" } else { "startswith" };
    let error = || {
        PyValueError::new_err(format!(
            "'{name}' not supported for null values that are not nan-like or strings."
        ))
    };
    if !END && startswith_from_views(&args, &error)? {
        return Ok(());
    }
    let matches = |_, s: &[u8], _: Option<&Needle<'_>>, affix: &[u8], start, end| {
        Ok(if END {
            kernels::endswith(s, affix, start, end)
        } else {
            kernels::startswith(s, affix, start, end)
        })
    };
    // SAFETY: element i of the bool output.
    let write = |i, value: bool| unsafe { *args.at(4, i) = value as u8 };
    for_each_search(&args, Some(false), error, matches, write)
});

/// `startswith` of one prefix of at most four bytes, over whole strings (the common
/// `np.strings.startswith(a, "ab")`): decided from each view's length and 4-byte prefix,
/// without touching an arena. Returns false, having written nothing, when the call is
/// not of that kind.
fn startswith_from_views(args: &Args, error: &dyn Fn() -> PyErr) -> PyResult<bool> {
    let Some(prefix) = args.scalar_view(1) else {
        return Ok(false);
    };
    if args.strides[2..4].iter().any(|&stride| stride != 0) {
        return Ok(false);
    }
    // SAFETY: element 0 of each operand exists (n >= 2); operands 2 and 3 are int64.
    let (start, end) = unsafe { (read_i64(args, 2, 0), read_i64(args, 3, 0)) };
    let whole = start == 0 && end >= i64::from(u32::MAX);
    if !whole || prefix.is_na() || prefix.len() > 4 {
        return Ok(false);
    }
    let wanted = prefix.prefix();
    let len = prefix.len();
    let mask = u32::MAX.checked_shr(32 - 8 * len as u32).unwrap_or(0);
    let wanted_bits = u32::from_le_bytes(wanted) & mask;
    let na = &args.state(0).na;
    for i in 0..args.n {
        // SAFETY: element i of the string operand and of the bool output.
        let view = unsafe { read_view(args.at(0, i)) };
        let result = if view.is_na() {
            match na {
                NaKind::NanLike => false,
                NaKind::String(default) => default.starts_with(&wanted[..len]),
                _ => return Err(error()),
            }
        } else {
            view.len() >= len && u32::from_le_bytes(view.prefix()) & mask == wanted_bits
        };
        // SAFETY: as above.
        unsafe { *args.at(4, i) = result as u8 };
    }
    Ok(true)
}

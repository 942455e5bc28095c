//! Loops with a non-string result: the `is*` predicates (bool) and the substring
//! searches `find rfind index rindex count` (int64, and float64 for the package's own
//! twins `_find_nan`, ...: see `catalog`) and `startswith endswith` (bool).
//!
//! A search whose needle operand has stride 0 (a Python `str`, or broadcasting) prepares
//! the needle once per loop call instead of once per element.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, Needle, Predicate};
use stringdtype_core::{swar, Arena, View, MAX_INLINE_LEN};

use super::registry::{Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::error::CoreResultExt;
use crate::loops::{
    in_parts, in_parts_views, ufunc_loop, values_out, Args, CountValue, Elem, Elems, Value, Values,
};
use crate::missing::{self, effective_na, ops, Missing, MissingResult, OnMissing};
use crate::unicode::{tables, PythonTables};

const T: Dt = Dt::Ours;

pub fn loops() -> Vec<LoopDef> {
    const TAILMATCH: &[Dt] = &[T, T, Dt::Int64, Dt::Int64, Dt::Bool];
    vec![
        predicate::<IsAlpha>(),
        predicate::<IsDigit>(),
        predicate::<IsSpace>(),
        predicate::<IsAlnum>(),
        predicate::<IsLower>(),
        predicate::<IsUpper>(),
        predicate::<IsTitle>(),
        predicate::<IsDecimal>(),
        predicate::<IsNumeric>(),
        search::<Find>(),
        search::<RFind>(),
        search::<Index>(),
        search::<RIndex>(),
        search::<Count>(),
        LoopDef::new("startswith", TAILMATCH, tailmatch_loop::<false>),
        LoopDef::new("endswith", TAILMATCH, tailmatch_loop::<true>),
    ]
}

/// A predicate ufunc (`isalpha`, ...) as a type: its name, its kernel and the predicate
/// that answers from a view alone where it can ([`kernels::from_view`]).
trait PredicateOp {
    const NAME: &'static str;
    const VIEW: Predicate;
    fn test(s: &[u8], tables: &PythonTables) -> bool;
}

macro_rules! predicate_ops {
    ($($ty:ident: $name:literal, $kernel:ident, $view:ident;)*) => {$(
        struct $ty;
        impl PredicateOp for $ty {
            const NAME: &'static str = $name;
            const VIEW: Predicate = Predicate::$view;
            #[inline]
            fn test(s: &[u8], tables: &PythonTables) -> bool {
                kernels::$kernel(s, tables)
            }
        }
    )*};
}
predicate_ops! {
    IsAlpha: "isalpha", isalpha, Alpha;
    IsDigit: "isdigit", isdigit, Digit;
    IsSpace: "isspace", isspace, Space;
    IsAlnum: "isalnum", isalnum, Alnum;
    IsLower: "islower", islower, Lower;
    IsUpper: "isupper", isupper, Upper;
    IsTitle: "istitle", istitle, Title;
    // On ASCII, decimal and numeric characters are the digits.
    IsDecimal: "isdecimal", isdecimal, Digit;
    IsNumeric: "isnumeric", isnumeric, Digit;
}

/// The loop of predicate `P`.
fn predicate<P: PredicateOp>() -> LoopDef {
    LoopDef::new(P::NAME, &[T, Dt::Bool], predicate_loop::<P>)
}

ufunc_loop!(predicate_loop[P: PredicateOp], 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<bool>(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, ops::PREDICATE, P::NAME);
    let locks = ArenaLocks::reading(&[&state.arena]);
    let tables = tables();
    values_out(args.elements(), out, move |e| {
        let view = strings.view(e);
        match kernels::from_view(view, P::VIEW) {
            Some(result) => Ok(result),
            None => predicate_of_string::<P>(view, locks.get(0), &missing, tables),
        }
    })
});

/// Predicate `P` of a string that its view does not decide, read from its arena. Kept
/// out of the loop, whose registers then hold only what the view path needs.
#[inline(never)]
fn predicate_of_string<P: PredicateOp>(
    view: View,
    arena: &Arena,
    missing: &Missing,
    tables: &PythonTables,
) -> PyResult<bool> {
    // A NaN-like missing value is never alpha, digit, ...
    match missing.operand(&view, arena)? {
        Some(s) => Ok(P::test(s, tables)),
        None => bool::missing(missing),
    }
}

// `str.isascii` (which `np.strings` lacks): true for `""` too. An inline string, and a
// long one with a non-ASCII byte in its 4-byte prefix, are decided from the view.
ufunc_loop!(pub(super) isascii_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<bool>(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, ops::PREDICATE, "isascii");
    let locks = ArenaLocks::reading(&[&state.arena]);
    values_out(args.elements(), out, move |e| {
        let view = strings.view(e);
        if view.is_inline_string() {
            return Ok(view.inline_ascii_lanes().is_some());
        }
        if !view.is_na() && !view.prefix().is_ascii() {
            return Ok(false);
        }
        match missing.operand(&view, locks.get(0))? {
            Some(s) => Ok(s.is_ascii()),
            None => bool::missing(&missing),
        }
    })
});

/// A substring search ufunc (`find`, ...) as a type: its name, whether it searches from
/// the end, whether a miss raises (`index`) and whether it counts instead.
pub(super) trait SearchOp {
    const NAME: &'static str;
    const LAST: bool;
    const RAISES: bool;
    const COUNTS: bool;
}

macro_rules! search_ops {
    ($($ty:ident: $name:literal, last $last:literal, raises $raises:literal, counts $counts:literal;)*) => {$(
        pub(super) struct $ty;
        impl SearchOp for $ty {
            const NAME: &'static str = $name;
            const LAST: bool = $last;
            const RAISES: bool = $raises;
            const COUNTS: bool = $counts;
        }
    )*};
}
search_ops! {
    Find: "find", last false, raises false, counts false;
    RFind: "rfind", last true, raises false, counts false;
    Index: "index", last false, raises true, counts false;
    RIndex: "rindex", last true, raises true, counts false;
    Count: "count", last false, raises false, counts true;
}

/// The loop of search `S`.
fn search<S: SearchOp>() -> LoopDef {
    LoopDef::new(
        S::NAME,
        &[T, T, Dt::Int64, Dt::Int64, Dt::Int64],
        find_loop::<S, i64>,
    )
}

/// Runs `f(haystack, needle, start, end)` on each element of a search loop's operands
/// (string, string, int64, int64), with the missing-value rule `missing` (made for the
/// two string operands by [`search_rule`]).
fn for_each_search<R>(
    args: &Args,
    missing: Missing,
    f: impl Fn(Elem, &[u8], Option<&Needle<'_>>, &[u8], isize, isize) -> PyResult<R> + Sync,
    out: Values<R>,
) -> PyResult<()>
where
    R: Value + MissingResult,
{
    let (haystacks, needles) = (args.strings(0), args.strings(1));
    let (starts, ends) = (args.counts(2), args.counts(3));
    let (sa, sb) = (haystacks.state(), needles.state());
    let locks = ArenaLocks::reading(&[&sa.arena, &sb.arena]);
    let (arena_a, arena_b) = (locks.get(0), locks.get(1));
    // A needle with stride 0 is the same for every element: prepare it once.
    let scalar = needles.scalar();
    let fixed = match &scalar {
        Some(view) => {
            let bytes = missing.operand(view, arena_b)?;
            Some(Needle::new(bytes.unwrap_or(b"")))
        }
        None => None,
    };
    values_out(args.elements(), out, move |e| {
        let (a, b) = (haystacks.view(e), needles.view(e));
        let haystack = missing.operand(&a, arena_a)?;
        let needle = missing.operand(&b, arena_b)?;
        match (haystack, needle) {
            (Some(haystack), Some(needle)) => {
                let (start, end) = (clamp(starts.get(e)), clamp(ends.get(e)));
                f(e, haystack, fixed.as_ref(), needle, start, end)
            }
            _ => R::missing(&missing),
        }
    })
}

/// An int64 position as `isize` (they are the same width on the supported platforms).
#[inline]
fn clamp(value: i64) -> isize {
    value.clamp(isize::MIN as i64, isize::MAX as i64) as isize
}

/// The missing-value rule `on` of the search `name` over the call's two string operands.
fn search_rule<'a>(args: &Args<'a>, on: OnMissing, name: &'a str) -> Missing<'a> {
    missing::rule(effective_na(&[args.state(0), args.state(1)]), on, name)
}

ufunc_loop!(pub(super) find_loop[S: SearchOp, R: CountValue], 5, |args| {
    if byte_search_from_views::<S, R>(&args)? {
        return Ok(());
    }
    let search = |_, haystack: &[u8], fixed: Option<&Needle<'_>>, needle: &[u8], start, end| {
        match fixed {
            Some(n) => prepared_search::<S>(n, haystack, start, end),
            None if S::COUNTS => Ok(kernels::count(haystack, needle, start, end) as i64),
            None if S::LAST => answer::<S>(kernels::rfind(haystack, needle, start, end)),
            None => answer::<S>(kernels::find(haystack, needle, start, end)),
        }
        .map(R::count)
    };
    let missing = search_rule(&args, ops::SEARCH, S::NAME);
    for_each_search(&args, missing, search, args.values::<R>(4))
});

/// The result of search `S` from the code point position it found, or not.
#[inline]
fn answer<S: SearchOp>(found: Option<usize>) -> PyResult<i64> {
    match found {
        Some(position) => Ok(position as i64),
        None if S::RAISES => Err(PyValueError::new_err("substring not found")),
        None => Ok(-1),
    }
}

/// Search `S` with a prepared needle.
#[inline]
fn prepared_search<S: SearchOp>(
    needle: &Needle<'_>,
    haystack: &[u8],
    start: isize,
    end: isize,
) -> PyResult<i64> {
    if S::COUNTS {
        return Ok(needle.count(haystack, start, end) as i64);
    }
    answer::<S>(if S::LAST {
        needle.rfind(haystack, start, end)
    } else {
        needle.find(haystack, start, end)
    })
}

/// The string scalar of operand 1 (stride 0), when the start and end operands are the
/// same for every element and cover whole strings (the common `np.strings.find(a, "x")`).
fn whole_string_scalar(args: &Args) -> Option<View> {
    let scalar = args.strings(1).scalar()?;
    let (start, end) = (args.counts(2).scalar()?, args.counts(3).scalar()?);
    (start == 0 && end >= i64::from(u32::MAX) && !scalar.is_na()).then_some(scalar)
}

/// Search `S` for one needle of at most one byte over whole strings (`""` included): an
/// inline string answers from its view's lanes ([`Needle::inline_matches`]), without a
/// load from memory; a long one through the prepared needle. Returns false, having
/// written nothing, when the call is not of that kind.
fn byte_search_from_views<S: SearchOp, R: CountValue>(args: &Args) -> PyResult<bool> {
    let Some(scalar) = whole_string_scalar(args) else {
        return Ok(false);
    };
    let Some(bytes) = scalar.inline_bytes().filter(|bytes| bytes.len() <= 1) else {
        return Ok(false);
    };
    let empty = bytes.is_empty();
    let needle = Needle::new(bytes);
    let (strings, out) = (args.strings(0), args.values::<R>(4));
    let missing = search_rule(args, ops::SEARCH, S::NAME);
    let locks = ArenaLocks::reading(&[&strings.state().arena]);
    in_parts(args.elements(), out, move |part| {
        // `find`/`index` of "" over a whole string is 0, whatever the string. Decided
        // here, where `S` makes it a constant for the other searches.
        let zero = empty && !S::LAST && !S::COUNTS;
        for e in part {
            let view = strings.view(e);
            let result = if zero && !view.is_na() {
                R::count(0)
            } else {
                match needle.inline_matches(view) {
                    Some(matches) if S::COUNTS => R::count(matches.count() as i64),
                    Some(matches) if S::LAST => R::count(answer::<S>(matches.rfind())?),
                    Some(matches) => R::count(answer::<S>(matches.find())?),
                    None => match missing.operand(&view, locks.get(0))? {
                        Some(haystack) => {
                            R::count(prepared_search::<S>(&needle, haystack, 0, isize::MAX)?)
                        }
                        None => R::missing(&missing)?,
                    },
                }
            };
            out.set(e, result);
        }
        Ok(())
    })?;
    Ok(true)
}

ufunc_loop!(tailmatch_loop[const END: bool], 5, |args| {
    let name = if END { "endswith" } else { "startswith" };
    if tailmatch_from_views::<END>(&args, name)? {
        return Ok(());
    }
    let matches = |_, s: &[u8], _: Option<&Needle<'_>>, affix: &[u8], start, end| {
        Ok(if END {
            kernels::endswith(s, affix, start, end)
        } else {
            kernels::startswith(s, affix, start, end)
        })
    };
    let missing = search_rule(&args, ops::TAILMATCH, name);
    for_each_search(&args, missing, matches, args.values::<bool>(4))
});

/// `startswith`/`endswith` of one short affix over whole strings (the common
/// `np.strings.startswith(a, "ab")`), decided from the views where they can: a prefix of
/// at most four bytes from each view's 4-byte prefix, without touching an arena; a suffix
/// of at most 12 bytes from each inline view's lanes, and from a long string's last 16
/// bytes in its arena as one integer (`kernels::Suffix`). Returns false, having written
/// nothing, when the call is not of that kind.
fn tailmatch_from_views<const END: bool>(args: &Args, name: &str) -> PyResult<bool> {
    let Some(affix) = whole_string_scalar(args) else {
        return Ok(false);
    };
    if affix.len() > if END { MAX_INLINE_LEN } else { 4 } {
        return Ok(false);
    }
    let wanted = affix
        .inline_bytes()
        .expect("an affix of at most 12 bytes is inline");
    // The prefix lanes a prefix of at most four bytes covers.
    let mask = swar::low_bytes(wanted.len()) as u32;
    let wanted_prefix = u32::from_le_bytes(affix.prefix()) & mask;
    let (strings, out) = (args.strings(0), args.values::<bool>(4));
    let state = strings.state();
    let missing = missing::rule(&state.na, ops::TAILMATCH, name);
    let locks = ArenaLocks::reading(&[&state.arena]);
    let arena = locks.get(0);
    let body = move |part: Elems| {
        // Made here rather than captured, so that `startswith`'s loop carries only what
        // it uses.
        let suffix = kernels::Suffix::new(affix);
        for e in part {
            let view = strings.view(e);
            let result = if view.is_na() {
                match missing.stand_in()? {
                    Some(default) if END => default.ends_with(wanted),
                    Some(default) => default.starts_with(wanted),
                    None => bool::missing(&missing)?,
                }
            } else if END {
                match suffix.ends_inline(view) {
                    Some(result) => result,
                    None => suffix.ends(arena.get(&view).py()?),
                }
            } else {
                view.len() >= wanted.len()
                    && u32::from_le_bytes(view.prefix()) & mask == wanted_prefix
            };
            out.set(e, result);
        }
        Ok(())
    };
    // A prefix is decided from the views alone; a suffix reads long strings' ends.
    if END {
        in_parts(args.elements(), out, body)?;
    } else {
        in_parts_views(args.elements(), out, body)?;
    }
    Ok(true)
}

//! Comparisons, `maximum` / `minimum`, `add`, `multiply`, `str_len` and `isnan`.
//!
//! Comparisons decide from the 16-byte views (length and 4-byte prefix, or the whole view
//! when both strings are inline) before touching an arena. Missing values follow NumPy's
//! StringDType: a NaN-like one propagates (and compares unequal), a string one acts as its
//! string, any other one is an error where a value is needed.

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, Comparison};
use stringdtype_core::{Arena, Error as CoreError, View, MAX_STRING_LEN};

use super::registry::{Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::element::compare_with_na;
use crate::element::{read_len_and_prefix, read_view};
use crate::error::CoreResultExt;
use crate::loops::{read_i64, ufunc_loop, Args, Output};
use crate::missing::NaKind;
use crate::missing::{
    compare_missing, comparison_na, default_string, effective_na, has_na, na_error, operand,
    propagates, string_or_default,
};

pub fn loops() -> Vec<LoopDef> {
    const TTT: &[Dt] = &[Dt::Ours, Dt::Ours, Dt::Ours];
    vec![
        comparison::<Equal>(),
        comparison::<NotEqual>(),
        comparison::<Less>(),
        comparison::<LessEqual>(),
        comparison::<Greater>(),
        comparison::<GreaterEqual>(),
        LoopDef::new("maximum", TTT, extreme_loop::<true>),
        LoopDef::new("minimum", TTT, extreme_loop::<false>),
        LoopDef::new("add", TTT, add_loop),
        LoopDef::new(
            "multiply",
            &[Dt::Ours, Dt::Int64, Dt::Ours],
            multiply_loop::<0>,
        )
        .unsigned_counts(),
        LoopDef::new(
            "multiply",
            &[Dt::Int64, Dt::Ours, Dt::Ours],
            multiply_loop::<1>,
        )
        .unsigned_counts(),
        LoopDef::new("str_len", &[Dt::Ours, Dt::Int64], str_len_loop),
        LoopDef::new("isnan", &[Dt::Ours, Dt::Bool], isnan_loop),
    ]
}

/// A comparison ufunc as a type, so that one generic loop serves all six.
trait ComparisonOp {
    const OP: Comparison;
}

macro_rules! comparison_ops {
    ($($ty:ident),*) => {$(
        struct $ty;
        impl ComparisonOp for $ty {
            const OP: Comparison = Comparison::$ty;
        }
    )*};
}
comparison_ops!(Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual);

/// The loop of comparison `O`.
fn comparison<O: ComparisonOp>() -> LoopDef {
    const TTB: &[Dt] = &[Dt::Ours, Dt::Ours, Dt::Bool];
    LoopDef::new(O::OP.name(), TTB, compare_loop::<O>)
}

/// `a == s` or `a != s` for a scalar `s` (stride 0) and an operand without missing
/// values. A short scalar takes one 16-byte comparison per element (inline views are
/// zero padded, so equal strings have equal views), which the compiler vectorises; a
/// long one compares length and prefix first and reads bytes only when they match.
/// Returns false, having written nothing, when the call is not of that kind.
fn equal_to_scalar(args: &Args, ne: bool) -> PyResult<bool> {
    let Some(scalar) = args.scalar_view(1) else {
        return Ok(false);
    };
    let (sa, sb) = (args.state(0), args.state(1));
    if has_na(&sa.na) || scalar.is_na() {
        return Ok(false);
    }
    // SAFETY (for the writes below): element i of the string operand and of the output.
    let write = |i: isize, equal: bool| unsafe { *args.at(2, i) = (equal != ne) as u8 };
    if scalar.is_inline() {
        let wanted = scalar.as_u128();
        for i in 0..args.n {
            // SAFETY: element i of the string operand.
            write(i, unsafe { read_view(args.at(0, i)) }.as_u128() == wanted);
        }
        return Ok(true);
    }
    let locks = ArenaLocks::reading(&[&sa.arena, &sb.arena]);
    let (arena, wanted) = (locks.get(0), locks.get(1).get(&scalar).py()?);
    let key = scalar.len_and_prefix();
    for i in 0..args.n {
        let element = args.at(0, i);
        // Length and prefix decide almost every element; the bytes are read out of line.
        // SAFETY: element i of the string operand.
        let equal =
            unsafe { read_len_and_prefix(element) } == key && same_bytes(arena, element, wanted)?;
        write(i, equal);
    }
    Ok(true)
}

/// Whether the string of the element at `element` (in `arena`) is `wanted`. Reading the
/// whole view here, not in the loop, keeps the loop's views out of memory.
#[cold]
#[inline(never)]
fn same_bytes(arena: &Arena, element: *const u8, wanted: &[u8]) -> PyResult<bool> {
    // SAFETY: the caller's element of the string operand.
    let view = unsafe { read_view(element) };
    Ok(arena.get(&view).py()? == wanted)
}

ufunc_loop!(compare_loop[O: ComparisonOp], 3, |args| {
    let op = O::OP;
    if op.is_equality() && equal_to_scalar(&args, op == Comparison::NotEqual)? {
        return Ok(());
    }
    let (sa, sb) = (args.state(0), args.state(1));
    let na = comparison_na(&[sa, sb]);
    let locks = ArenaLocks::reading(&[&sa.arena, &sb.arena]);
    let (arena_a, arena_b) = (locks.get(0), locks.get(1));
    let message = || {
        format!(
            "'{}' not supported for null values that are not nan-like or strings.",
            op.name()
        )
    };
    for i in 0..args.n {
        // SAFETY: element i of each operand lies in its buffer.
        let (a, b) = unsafe { (read_view(args.at(0, i)), read_view(args.at(1, i))) };
        let result = if !a.is_na() && !b.is_na() {
            op.apply(&a, &b, || arena_a.get(&a).py(), || arena_b.get(&b).py())?
        } else {
            compare_missing(op, na, (&a, arena_a), (&b, arena_b), message)?
        };
        // SAFETY: element i of the bool output.
        unsafe { *args.at(2, i) = result as u8 };
    }
    Ok(())
});

ufunc_loop!(extreme_loop[const MAX: bool], 3, |args| {
    let (sa, sb, so) = (args.state(0), args.state(1), args.state(2));
    let na = effective_na(&[sa, sb]);
    let mut locks = ArenaLocks::new(&[&sa.arena, &sb.arena, &so.arena], 2);
    let output = Output::new(&args, 2, locks.get(2));
    let mut scratch = Vec::new();
    // Copies element `i` of input `k` to element `at` of the output. NumPy copies the
    // chosen element, a missing one included (a NaN-like missing value counts as the
    // greatest, see `compare_with_na`).
    let mut copy = |locks: &mut ArenaLocks, k: usize, i: isize, at: isize| {
        // SAFETY: element i of input k.
        let view = unsafe { read_view(args.at(k, i)) };
        if !view.is_na() {
            scratch.clear();
            scratch.extend_from_slice(locks.get(k).get(&view).py()?);
        }
        let result = (!view.is_na()).then_some(&scratch[..]);
        // SAFETY: element `at` of output 2, whose arena is lock 2.
        unsafe { output.write(&args, locks.get_mut(2), at, result) }
    };
    let is_reduction = args.strides[0] == 0 && args.strides[2] == 0;
    if args.n > 0 && is_reduction && args.at(0, 0) == args.at(2, 0) {
        // `np.min(a)`: input 0 is the output, the running value. Its view stays here and
        // the chosen element is copied once, at the end.
        let chosen = {
            let (arena_a, arena_b) = (locks.get(0), locks.get(1));
            // SAFETY: element 0 of input 0.
            let mut best = (unsafe { read_view(args.at(0, 0)) }, arena_a);
            let mut chosen = None;
            for i in 0..args.n {
                // SAFETY: element i of input 1.
                let b = unsafe { read_view(args.at(1, i)) };
                if compare_with_na(na, &best.0, best.1, &b, arena_b)?.is_lt() == MAX {
                    (best, chosen) = ((b, arena_b), Some(i));
                }
            }
            chosen
        };
        return chosen.map_or(Ok(()), |i| copy(&mut locks, 1, i, 0));
    }
    for i in 0..args.n {
        // SAFETY: element i of each input.
        let (a, b) = unsafe { (read_view(args.at(0, i)), read_view(args.at(1, i))) };
        let ordering = compare_with_na(na, &a, locks.get(0), &b, locks.get(1))?;
        let k = if ordering.is_lt() != MAX { 0 } else { 1 };
        // The chosen element already is the output (an in-place call): nothing to copy.
        if args.at(k, i) != args.at(2, i) {
            copy(&mut locks, k, i, i)?;
        }
    }
    Ok(())
});

/// The two parts of `a + b`, or `None` for a missing result. Always inlined: called out
/// of line, its result came back through memory and the call was 7 % of `+` of short
/// strings.
#[inline(always)]
fn add_parts<'r>(
    (a, arena_a): (&'r View, &'r Arena),
    (b, arena_b): (&'r View, &'r Arena),
    na: &'r NaKind,
) -> PyResult<Option<[&'r [u8]; 2]>> {
    let error = || na_error("Cannot add null that is not a nan-like value");
    match (
        operand(a, arena_a, na, true, error)?,
        operand(b, arena_b, na, true, error)?,
    ) {
        (Some(x), Some(y)) if x.len() + y.len() > MAX_STRING_LEN => Err(PyOverflowError::new_err(
            "Overflow encountered in string add",
        )),
        (Some(x), Some(y)) => Ok(Some([x, y])),
        _ => Ok(None),
    }
}

ufunc_loop!(add_loop, 3, |args| {
    let (sa, sb, so) = (args.state(0), args.state(1), args.state(2));
    let na = effective_na(&[sa, sb]);
    let mut locks = ArenaLocks::new(&[&sa.arena, &sb.arena, &so.arena], 2);
    let output = Output::new(&args, 2, locks.get(2));
    // SAFETY: element i of each input.
    let views = |i| unsafe { (read_view(args.at(0, i)), read_view(args.at(1, i))) };
    if let Some((readers, writer)) = locks.split(2) {
        // The output's arena is no input's: parts go straight into it.
        for i in 0..args.n {
            let (a, b) = views(i);
            let view = match View::concat_inline(a, b) {
                // Short results come from the two views alone.
                Some(view) => view,
                None => match add_parts((&a, readers.get(0)), (&b, readers.get(1)), na)? {
                    Some(parts) => writer.store_parts(&parts).py()?,
                    None => View::NA,
                },
            };
            // SAFETY: element i of output 2, whose arena is `writer`.
            unsafe { output.write_view(&args, writer, i, view) };
        }
        return Ok(());
    }
    let mut scratch = Vec::new();
    for i in 0..args.n {
        let (a, b) = views(i);
        let view = match View::concat_inline(a, b) {
            Some(view) => view,
            None => {
                let parts = add_parts((&a, locks.get(0)), (&b, locks.get(1)), na)?;
                match parts {
                    Some([x, y]) => {
                        scratch.clear();
                        scratch.extend_from_slice(x);
                        scratch.extend_from_slice(y);
                        locks.get_mut(2).store(&scratch).py()?
                    }
                    None => View::NA,
                }
            }
        };
        // SAFETY: element i of output 2, whose arena is lock 2.
        unsafe { output.write_view(&args, locks.get_mut(2), i, view) };
    }
    Ok(())
});

ufunc_loop!(multiply_loop[const STRING_AT: usize], 3, |args| {
    let (ss, so) = (args.state(STRING_AT), args.state(2));
    let mut locks = ArenaLocks::new(&[&ss.arena, &so.arena], 1);
    let output = Output::new(&args, 2, locks.get(1));
    // Split once per call, not per element: the split copies the lock table.
    if let Some((readers, writer)) = locks.split(1) {
        // The output's arena is not the input's: results go straight into it.
        return repeat_each::<STRING_AT>(&args, &output, Some(readers.get(0)), writer);
    }
    // The strings live in the arena being written: each is repeated from a copy.
    repeat_each::<STRING_AT>(&args, &output, None, locks.get_mut(1))
});

/// The loop of `multiply_loop`: each string (operand `STRING_AT`, in `source`, or in
/// `writer` itself when `source` is `None`) repeated by the count of the other operand
/// into output 2, whose arena is `writer`.
#[inline(always)]
fn repeat_each<const STRING_AT: usize>(
    args: &Args<'_>,
    output: &Output,
    source: Option<&Arena>,
    writer: &mut Arena,
) -> PyResult<()> {
    let count_at = 1 - STRING_AT;
    let ss = args.state(STRING_AT);
    let mut scratch = Vec::new();
    for i in 0..args.n {
        // SAFETY: element i of each input; the count operand is int64 or uint64.
        let (s, count) = unsafe {
            (
                read_view(args.at(STRING_AT, i)),
                read_i64(args, count_at, i),
            )
        };
        let count = repeat_count(count, args.is_unsigned(count_at));
        if let Some(view) = View::repeat_inline(s, count) {
            // Short results come from the view alone.
            // SAFETY: element i of output 2, whose arena is `writer`.
            unsafe { output.write_view(args, writer, i, view) };
            continue;
        }
        if s.is_na() && default_string(&ss.na).is_none() {
            if !propagates(&ss.na) {
                return Err(PyTypeError::new_err(
                    "Cannot multiply null that is not a nan-like value",
                ));
            }
            // SAFETY: element i of output 2, whose arena is `writer`.
            unsafe { output.write_view(args, writer, i, View::NA) };
            continue;
        }
        let stored = match source {
            Some(source) => writer.store_repeat(string_or_default(&s, source, &ss.na)?, count),
            None => {
                scratch.clear();
                scratch.extend_from_slice(string_or_default(&s, writer, &ss.na)?);
                writer.store_repeat(&scratch, count)
            }
        };
        let view = stored.map_err(|err| match err {
            CoreError::OutOfMemory(_) => crate::error::to_py(err),
            _ => PyOverflowError::new_err("Overflow encountered in string multiply"),
        })?;
        // SAFETY: element i of output 2, whose arena is `writer`.
        unsafe { output.write_view(args, writer, i, view) };
    }
    Ok(())
}

/// The copies a `multiply` count asks for: none for a negative one, as in Python, and a
/// uint64 one beyond int64 as its value, so that an empty string repeats that often (as in
/// NumPy 2.5) and any other overflows.
fn repeat_count(raw: i64, unsigned: bool) -> usize {
    if unsigned {
        usize::try_from(raw as u64).unwrap_or(usize::MAX)
    } else {
        usize::try_from(raw).unwrap_or(0)
    }
}

ufunc_loop!(str_len_loop, 2, |args| {
    let state = args.state(0);
    let locks = ArenaLocks::reading(&[&state.arena]);
    let arena = locks.get(0);
    // SAFETY (both): element i of the input, and of the int64 output.
    let view = |i| unsafe { read_view(args.at(0, i)) };
    let write =
        |i, len: usize| unsafe { std::ptr::write_unaligned(args.at(1, i) as *mut i64, len as i64) };
    let of_string = |view| str_len_of_string(view, arena, &state.na);
    // Where short and long strings mix, a branch on the kind of view is lost to the
    // predictor as often as not: such batches go in two passes over a local copy of the
    // batch's results. The first counts every element as if it were inline, with no
    // branch, and notes the others; the second reads those from the arena. The batch is
    // written out only then, so an error (a missing value without a length) leaves the
    // output's elements of the batch as they were, never a count of the wrong kind. A
    // batch after one of mostly long strings (every string of the medium set) goes
    // element by element.
    let mut lens = [0usize; BATCH];
    let mut others = [0u8; BATCH];
    let mut mixed = true;
    let mut start = 0;
    while start < args.n {
        let len = (args.n - start).min(BATCH as isize) as usize;
        let mut count = 0;
        if mixed {
            for (j, slot) in lens[..len].iter_mut().enumerate() {
                let view = view(start + j as isize);
                *slot = kernels::inline_str_len(view);
                others[count] = j as u8;
                count += usize::from(!view.is_inline_string());
            }
            for &j in &others[..count] {
                let j = usize::from(j);
                lens[j] = of_string(view(start + j as isize))?;
            }
            for (j, &n) in lens[..len].iter().enumerate() {
                write(start + j as isize, n);
            }
        } else {
            for i in start..start + len as isize {
                let view = view(i);
                let inline = view.is_inline_string();
                count += usize::from(!inline);
                write(
                    i,
                    if inline {
                        kernels::inline_str_len(view)
                    } else {
                        of_string(view)?
                    },
                );
            }
        }
        mixed = count * 2 <= len;
        start += len as isize;
    }
    Ok(())
});

/// Elements per batch of [`str_len_loop`] (their positions are noted as `u8`).
const BATCH: usize = 256;

/// The length in code points of a long string or a missing value, read from its
/// arena. Kept out of the loop, whose registers then hold only what inline views need.
#[inline(never)]
fn str_len_of_string(view: View, arena: &Arena, na: &NaKind) -> PyResult<usize> {
    let error = || na_error("The length of a null string is undefined");
    let s = operand(&view, arena, na, false, error)?.unwrap_or(b"");
    Ok(if s.len() <= 16 {
        kernels::short_str_len(s)
    } else {
        kernels::str_len(s)
    })
}

ufunc_loop!(isnan_loop, 2, |args| {
    let nan_like = propagates(&args.state(0).na);
    for i in 0..args.n {
        // SAFETY: element i of the input and of the bool output.
        unsafe { *args.at(1, i) = (nan_like && read_view(args.at(0, i)).is_na()) as u8 };
    }
    Ok(())
});

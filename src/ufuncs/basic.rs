//! Comparisons, `maximum` / `minimum`, `add`, `multiply`, `str_len` and `isnan`, and the
//! loops of the package's own `_str_len_nan` and `_isna` (see `catalog`).
//!
//! Comparisons decide from the 16-byte views (length and 4-byte prefix, or the whole view
//! when both strings are inline) before touching an arena. Missing values follow NumPy's
//! StringDType: a NaN-like one propagates (and compares unequal), a string one acts as its
//! string, any other one is an error where a value is needed.

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, Comparison};
use stringdtype_core::{Arena, View, MAX_STRING_LEN};

use super::registry::{Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::element::compare_with_na;
use crate::error::CoreResultExt;
use crate::loops::{self, strings_out, ufunc_loop, values_out, Args, Elem, Piece, Strings};
use crate::missing::{
    self, compare_missing, comparison_na, effective_na, has_na, ops, propagates, Missing,
    MissingResult,
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
/// Returns false, having written nothing, when the call is not of that kind. Never
/// inlined: a whole-call path, whose loop ThinLTO otherwise compiles differently from
/// one build to the next.
#[inline(never)]
fn equal_to_scalar(args: &Args, ne: bool) -> PyResult<bool> {
    let (a, b, out) = (args.strings(0), args.strings(1), args.values::<bool>(2));
    let Some(scalar) = b.scalar() else {
        return Ok(false);
    };
    if has_na(&a.state().na) || scalar.is_na() {
        return Ok(false);
    }
    if scalar.is_inline() {
        let wanted = scalar.as_u128();
        loops::in_parts_views(args.elements(), out, move |part| {
            for e in part {
                out.set(e, (a.view(e).as_u128() == wanted) != ne);
            }
            Ok(())
        })?;
        return Ok(true);
    }
    let locks = ArenaLocks::reading(&[&a.state().arena, &b.state().arena]);
    let (arena, wanted) = (locks.get(0), locks.get(1).get(&scalar).py()?);
    let key = scalar.len_and_prefix();
    loops::in_parts_views(args.elements(), out, move |part| {
        for e in part {
            // Length and prefix decide almost every element; the bytes are read out of line.
            let equal = a.len_and_prefix(e) == key && same_bytes(&a, e, arena, wanted)?;
            out.set(e, equal != ne);
        }
        Ok(())
    })?;
    Ok(true)
}

/// Whether the string of element `e` of `a` (in `arena`) is `wanted`. Reading the whole
/// view here, not in the loop, keeps the loop's views out of memory.
#[cold]
#[inline(never)]
fn same_bytes(a: &Strings, e: Elem, arena: &Arena, wanted: &[u8]) -> PyResult<bool> {
    let view = a.view(e);
    Ok(arena.get(&view).py()? == wanted)
}

ufunc_loop!(compare_loop[O: ComparisonOp], 3, |args| {
    let op = O::OP;
    if op.is_equality() && equal_to_scalar(&args, op == Comparison::NotEqual)? {
        return Ok(());
    }
    let (a, b, out) = (args.strings(0), args.strings(1), args.values::<bool>(2));
    let na = comparison_na(&[a.state(), b.state()]);
    let locks = ArenaLocks::reading(&[&a.state().arena, &b.state().arena]);
    let (arena_a, arena_b) = (locks.get(0), locks.get(1));
    let message = || {
        format!(
            "'{}' not supported for null values that are not nan-like or strings.",
            O::OP.name()
        )
    };
    loops::in_parts(args.elements(), out, move |part| {
        // The comparison as a constant, not a captured value: the loop is compiled for it.
        let op = O::OP;
        for e in part {
            let (x, y) = (a.view(e), b.view(e));
            let result = if !x.is_na() && !y.is_na() {
                op.apply(&x, &y, || arena_a.get(&x).py(), || arena_b.get(&y).py())?
            } else {
                compare_missing(op, na, (&x, arena_a), (&y, arena_b), message)?
            };
            out.set(e, result);
        }
        Ok(())
    })
});

ufunc_loop!(extreme_loop[const MAX: bool], 3, |args| {
    let inputs = [args.strings(0), args.strings(1)];
    let out = args.strings_out(2);
    let na = effective_na(&[inputs[0].state(), inputs[1].state()]);
    let mut locks = loops::lock(&inputs, &[out]);
    if inputs[0].is_running_value_of(&out) {
        // `np.min(a)`: input 0 is the output, the running value. Its view stays here and
        // the chosen element is copied once, at the end.
        let Some(first) = args.elements().first() else {
            return Ok(());
        };
        let chosen = {
            let (arena_a, arena_b) = (locks.get(0), locks.get(1));
            let mut best = (inputs[0].view(first), arena_a);
            let mut chosen = None;
            for e in args.elements() {
                let b = inputs[1].view(e);
                if compare_with_na(na, &best.0, best.1, &b, arena_b)?.is_lt() == MAX {
                    (best, chosen) = ((b, arena_b), Some(e));
                }
            }
            chosen
        };
        let Some(chosen) = chosen else {
            return Ok(());
        };
        // NumPy copies the chosen element, a missing one included.
        let view = inputs[1].view(chosen);
        let bytes = match view.is_na() {
            true => None,
            false => Some(locks.get(1).get(&view).py()?.to_vec()),
        };
        let out = out.bind(locks.get(2));
        return out.write(locks.get_mut(2), first, bytes.as_deref());
    }
    let no_shortcut = |_, _: &[View; 2]| None;
    strings_out(args.elements(), &mut locks, inputs, out, no_shortcut, |e, [a, b], readers, _| {
        // A NaN-like missing value counts as the greatest (see `compare_with_na`).
        let ordering = compare_with_na(na, a, readers.get(0), b, readers.get(1))?;
        let k = if ordering.is_lt() != MAX { 0 } else { 1 };
        let view = [a, b][k];
        // The chosen element already is the output (an in-place call): nothing to copy.
        Ok(if inputs[k].is_element_of(e, &out) {
            Piece::Unchanged
        } else if view.is_na() {
            Piece::Missing
        } else {
            Piece::Bytes(readers.get(k).get(view).py()?)
        })
    })
});

/// The two parts of `a + b`, or `None` for a missing result. Always inlined: called out
/// of line, its result came back through memory and the call was 7 % of `+` of short
/// strings.
#[inline(always)]
fn add_parts<'r>(
    (a, arena_a): (&'r View, &'r Arena),
    (b, arena_b): (&'r View, &'r Arena),
    missing: &Missing<'r>,
) -> PyResult<Piece<'r>> {
    match (missing.operand(a, arena_a)?, missing.operand(b, arena_b)?) {
        (Some(x), Some(y)) if x.len() + y.len() > MAX_STRING_LEN => Err(PyOverflowError::new_err(
            "Overflow encountered in string add",
        )),
        (Some(x), Some(y)) => Ok(Piece::Concat([x, y])),
        _ => Ok(Piece::Missing),
    }
}

ufunc_loop!(add_loop, 3, |args| {
    let inputs = [args.strings(0), args.strings(1)];
    let out = args.strings_out(2);
    let na = effective_na(&[inputs[0].state(), inputs[1].state()]);
    let missing = missing::rule(na, ops::ADD, "");
    let mut locks = loops::lock(&inputs, &[out]);
    // Short results come from the two views alone.
    let shortcut = |_, &[a, b]: &[View; 2]| View::concat_inline(a, b);
    strings_out(
        args.elements(),
        &mut locks,
        inputs,
        out,
        shortcut,
        |_, [a, b], readers, _| add_parts((a, readers.get(0)), (b, readers.get(1)), &missing),
    )
});

ufunc_loop!(multiply_loop[const STRING_AT: usize], 3, |args| {
    let (strings, counts) = (args.strings(STRING_AT), args.counts(1 - STRING_AT));
    let out = args.strings_out(2);
    let missing = missing::rule(&strings.state().na, ops::MULTIPLY, "");
    let mut locks = loops::lock(&[strings], &[out]);
    let count = |e| repeat_count(counts.get(e), counts.is_unsigned());
    // Short results come from the view alone.
    let shortcut = |e, &[s]: &[View; 1]| View::repeat_inline(s, count(e));
    strings_out(args.elements(), &mut locks, [strings], out, shortcut, |e, [s], readers, _| {
        let Some(unit) = missing.operand(s, readers.get(0))? else {
            return Ok(Piece::Missing);
        };
        let count = count(e);
        if unit.len().checked_mul(count).is_none_or(|len| len > MAX_STRING_LEN) {
            return Err(PyOverflowError::new_err(
                "Overflow encountered in string multiply",
            ));
        }
        Ok(Piece::Repeat(unit, count))
    })
});

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
    let (strings, out) = (args.strings(0), args.values::<i64>(1));
    let state = strings.state();
    let locks = ArenaLocks::reading(&[&state.arena]);
    let arena = locks.get(0);
    let missing = missing::rule(&state.na, ops::STR_LEN, "");
    let of_string = |view| str_len_of_string(view, arena, &missing);
    // Where short and long strings mix, a branch on the kind of view is lost to the
    // predictor as often as not: such batches go in two passes over a local copy of the
    // batch's results. The first counts every element as if it were inline, with no
    // branch, and notes the others; the second reads those from the arena. The batch is
    // written out only then, so an error (a missing value without a length) leaves the
    // output's elements of the batch as they were, never a count of the wrong kind. A
    // batch after one of mostly long strings (every string of the medium set) goes
    // element by element.
    loops::in_parts(args.elements(), out, move |part| {
        let mut lens = [0usize; BATCH];
        let mut others = [0u8; BATCH];
        let mut mixed = true;
        for batch in part.chunks(BATCH) {
            let len = batch.len();
            let mut count = 0;
            if mixed {
                for (j, (slot, e)) in lens.iter_mut().zip(batch.clone()).enumerate() {
                    let view = strings.view(e);
                    *slot = kernels::inline_str_len(view);
                    others[count] = j as u8;
                    count += usize::from(!view.is_inline_string());
                }
                for &j in &others[..count] {
                    let j = usize::from(j);
                    let e = batch.get(j).expect("a position in the batch");
                    lens[j] = of_string(strings.view(e))?;
                }
                for (&n, e) in lens.iter().zip(batch) {
                    out.set(e, n as i64);
                }
            } else {
                for e in batch {
                    let view = strings.view(e);
                    let inline = view.is_inline_string();
                    count += usize::from(!inline);
                    let n = if inline {
                        kernels::inline_str_len(view)
                    } else {
                        of_string(view)?
                    };
                    out.set(e, n as i64);
                }
            }
            mixed = count * 2 <= len;
        }
        Ok(())
    })
});

/// Elements per batch of [`str_len_loop`] (their positions are noted as `u8`).
const BATCH: usize = 256;

/// The length in code points of a long string or a missing value, read from its
/// arena. Kept out of the loop, whose registers then hold only what inline views need.
#[inline(never)]
fn str_len_of_string(view: View, arena: &Arena, missing: &Missing) -> PyResult<usize> {
    let s = missing
        .operand(&view, arena)?
        .ok_or_else(|| missing.error())?;
    Ok(if s.len() <= 16 {
        kernels::short_str_len(s)
    } else {
        kernels::str_len(s)
    })
}

ufunc_loop!(isnan_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<bool>(1));
    let nan_like = propagates(&strings.state().na);
    values_out(args.elements(), out, move |e| {
        Ok(nan_like && strings.view(e).is_na())
    })
});

ufunc_loop!(pub(super) str_len_nan_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<f64>(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, ops::STR_LEN, "");
    let locks = ArenaLocks::reading(&[&state.arena]);
    values_out(args.elements(), out, move |e| {
        let view = strings.view(e);
        match missing.operand(&view, locks.get(0))? {
            Some(s) => Ok(kernels::str_len(s) as f64),
            None => f64::missing(&missing),
        }
    })
});

ufunc_loop!(pub(super) isna_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<bool>(1));
    values_out(args.elements(), out, move |e| Ok(strings.view(e).is_na()))
});

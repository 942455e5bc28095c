//! Loops with string results: strip (whitespace and chars), replace, expandtabs, center,
//! ljust, rjust, zfill, partition, rpartition and slice.
//!
//! Each element's result is built in a scratch buffer by a kernel and then stored in the
//! output's arena (inline when it fits in 12 bytes). Sizes that could exceed the largest
//! string are checked before anything is allocated, so an absurd width or count is an
//! `OverflowError`, not an allocation failure.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, CharSet, Finder, Justify, Separator, Side};
use stringdtype_core::{Arena, View, MAX_STRING_LEN};

use super::registry::{Dt, LoopDef};
use crate::error::CoreResultExt;
use crate::loops::{self, overflow, parts_out, reserve, strings_out, ufunc_loop, Piece};
use crate::missing::{self, effective_na, ops, Missing};
use crate::unicode::tables;

const T: Dt = Dt::Ours;
const I: Dt = Dt::Int64;

pub fn loops() -> Vec<LoopDef> {
    const UNARY: &[Dt] = &[T, T];
    const BINARY: &[Dt] = &[T, T, T];
    const WIDTH: &[Dt] = &[T, I, T];
    vec![
        LoopDef::new("_strip_whitespace", UNARY, strip_whitespace_loop::<Both>),
        LoopDef::new("_lstrip_whitespace", UNARY, strip_whitespace_loop::<Left>),
        LoopDef::new("_rstrip_whitespace", UNARY, strip_whitespace_loop::<Right>),
        LoopDef::new(Both::CHARS, BINARY, strip_chars_loop::<Both>),
        LoopDef::new(Left::CHARS, BINARY, strip_chars_loop::<Left>),
        LoopDef::new(Right::CHARS, BINARY, strip_chars_loop::<Right>),
        LoopDef::new("_replace", &[T, T, T, I, T], replace_loop).unsigned_counts(),
        LoopDef::new("_expandtabs", WIDTH, expandtabs_loop).unsigned_counts(),
        pad::<Center>(),
        pad::<Ljust>(),
        pad::<Rjust>(),
        pad::<Zfill>(),
        LoopDef::new("_partition", &[T, T, T, T, T], partition_loop::<false>).without_out(),
        LoopDef::new("_rpartition", &[T, T, T, T, T], partition_loop::<true>).without_out(),
    ]
}

/// The side a strip ufunc works on, as a type: the kernels' `Side` and the name of the
/// `chars` ufunc (NumPy's error messages name it).
trait StripSide {
    const SIDE: Side;
    const CHARS: &'static str;
}

macro_rules! strip_sides {
    ($($ty:ident: $chars:literal;)*) => {$(
        struct $ty;
        impl StripSide for $ty {
            const SIDE: Side = Side::$ty;
            const CHARS: &'static str = $chars;
        }
    )*};
}
strip_sides! {
    Left: "_lstrip_chars";
    Right: "_rstrip_chars";
    Both: "_strip_chars";
}

ufunc_loop!(strip_whitespace_loop[S: StripSide], 2, |args| {
    let (strings, out) = (args.strings(0), args.strings_out(1));
    let missing = missing::rule(&strings.state().na, ops::STRIP, "");
    let mut locks = loops::lock(&[strings], &[out]);
    let tables = tables();
    let shortcut = |_, &[view]: &[View; 1]| kernels::inline_ascii_strip_whitespace(view, S::SIDE);
    strings_out(args.elements(), &mut locks, [strings], out, shortcut, |_, [view], readers, _| {
        let s = missing.operand(view, readers.get(0))?;
        Ok(s.map(|s| kernels::strip_whitespace(s, S::SIDE, tables)).into())
    })
});

ufunc_loop!(strip_chars_loop[S: StripSide], 3, |args| {
    let inputs = [args.strings(0), args.strings(1)];
    let out = args.strings_out(2);
    let na = effective_na(&[inputs[0].state(), inputs[1].state()]);
    let missing = missing::rule(na, ops::STRIP, "");
    let chars_missing = missing::rule(na, ops::STRIP_CHARS, S::CHARS);
    let mut locks = loops::lock(&inputs, &[out]);
    let fixed: Option<CharSet> = match inputs[1].scalar() {
        Some(view) => chars_missing.operand(&view, locks.get(1))?.map(CharSet::new),
        None => None,
    };
    let shortcut = |_, &[a, _]: &[View; 2]| fixed.as_ref()?.inline_ascii_strip(a, S::SIDE);
    strings_out(args.elements(), &mut locks, inputs, out, shortcut, |_, [a, c], readers, _| {
        let chars = chars_missing.operand(c, readers.get(1))?;
        let Some(s) = missing.operand(a, readers.get(0))? else {
            return Ok(Piece::Missing);
        };
        Ok(Piece::Bytes(match (&fixed, chars) {
            (Some(set), _) => set.strip(s, S::SIDE),
            (None, Some(chars)) => kernels::strip_chars(s, chars, S::SIDE),
            (None, None) => return Ok(Piece::Missing),
        }))
    })
});

ufunc_loop!(replace_loop, 5, |args| {
    let inputs = [args.strings(0), args.strings(1), args.strings(2)];
    let (counts, out) = (args.counts(3), args.strings_out(4));
    let na = effective_na(&inputs.map(|s| s.state()));
    let mut locks = loops::lock(&inputs, &[out]);
    let missing = missing::rule(na, ops::REPLACE, "");
    let pattern_missing = missing::rule(na, ops::REPLACE_PATTERN, "");
    // A pattern with stride 0 (a Python str) is prepared once.
    let fixed: Option<Finder<'static>> = match inputs[1].scalar() {
        Some(view) => {
            let old = pattern_missing.operand(&view, locks.get(1))?.unwrap_or(b"");
            (!old.is_empty()).then(|| Finder::new(old).into_owned())
        }
        None => None,
    };
    // Replacing one byte, with a fixed present `new` and a signed count (any count then
    // leaves a string without the byte as it is, and no operand can raise): an inline
    // string is decided on its view.
    let new_present = inputs[2].scalar().is_some_and(|new| !new.is_na());
    let lone_byte = match fixed.as_ref().map(Finder::needle) {
        Some(&[byte]) if new_present && !counts.is_unsigned() => Some(byte),
        _ => None,
    };
    strings_out(
        args.elements(),
        &mut locks,
        inputs,
        out,
        |_, &[s, _, _]: &[View; 3]| kernels::replace::inline_without_byte(s, lone_byte?),
        |e, views, readers, out| {
            let old = pattern_missing.operand(&views[1], readers.get(1))?;
            let new = pattern_missing.operand(&views[2], readers.get(2))?;
            let (Some(old), Some(new)) = (old, new) else {
                return Ok(Piece::Missing);
            };
            let Some(s) = missing.operand(&views[0], readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            let count = counts.count(e, "replace")?;
            if let Some(finder) = &fixed {
                // Nothing to replace: the string itself, without building a copy.
                let absent = match finder.needle() {
                    [byte] => kernels::replace::short_contains_byte(s, *byte).map(|has| !has),
                    _ => None,
                };
                if count == 0 || absent.unwrap_or_else(|| finder.find(s).is_none()) {
                    return Ok(Piece::Bytes(s));
                }
            }
            let size = kernels::replace_size(s, old, new, count);
            let size = size.ok_or_else(|| overflow("replace"))?;
            reserve(out, size)?;
            match &fixed {
                Some(finder) => kernels::replace_with(s, finder, new, count, out),
                None => kernels::replace(s, old, new, count, out),
            }
            Ok(Piece::Bytes(out))
        },
    )
});

ufunc_loop!(expandtabs_loop, 3, |args| {
    let (strings, tabsizes, out) = (args.strings(0), args.counts(1), args.strings_out(2));
    let missing = missing::rule(&strings.state().na, ops::EXPANDTABS, "");
    let mut locks = loops::lock(&[strings], &[out]);
    strings_out(
        args.elements(),
        &mut locks,
        [strings],
        out,
        |_, _| None,
        |e, [view], readers, out| {
            let Some(s) = missing.operand(view, readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            let tabsize = tabsizes.count(e, "expandtabs")? as isize;
            if s.contains(&b'\t') {
                let size = kernels::expanded_len(s, tabsize);
                reserve(
                    out,
                    size.ok_or_else(|| PyOverflowError::new_err("new string is too long"))?,
                )?;
            }
            kernels::expandtabs(s, tabsize, out);
            Ok(Piece::Bytes(out))
        },
    )
});

/// A padding ufunc as a type: its name (NumPy's errors use it) and where it puts the
/// string, `None` for `zfill` (which takes no fill character).
trait PadOp {
    const UFUNC: &'static str;
    const NAME: &'static str;
    const JUSTIFY: Option<Justify>;
}

macro_rules! pad_ops {
    ($($ty:ident: $ufunc:literal, $name:literal, $justify:expr;)*) => {$(
        struct $ty;
        impl PadOp for $ty {
            const UFUNC: &'static str = $ufunc;
            const NAME: &'static str = $name;
            const JUSTIFY: Option<Justify> = $justify;
        }
    )*};
}
pad_ops! {
    Center: "_center", "_center", Some(Justify::Center);
    Ljust: "_ljust", "_ljust", Some(Justify::Left);
    Rjust: "_rjust", "_rjust", Some(Justify::Right);
    Zfill: "_zfill", "zfill", None;
}

/// The loop of padding `P`: (string, width, fill) or, for `zfill`, (string, width).
fn pad<P: PadOp>() -> LoopDef {
    const PAD: &[Dt] = &[T, I, T, T];
    const WIDTH: &[Dt] = &[T, I, T];
    let dtypes = if P::JUSTIFY.is_some() { PAD } else { WIDTH };
    LoopDef::new(P::UFUNC, dtypes, pad_loop::<P>).unsigned_counts()
}

ufunc_loop!(pad_loop[P: PadOp], if P::JUSTIFY.is_some() { 4 } else { 3 }, |args| {
    let name = P::NAME;
    let (fill_at, out_at) = if P::JUSTIFY.is_some() { (Some(2), 3) } else { (None, 2) };
    // zfill has no fill operand: operand 0 stands in, unread.
    let inputs = [args.strings(0), args.strings(fill_at.unwrap_or(0))];
    let (widths, out) = (args.counts(1), args.strings_out(out_at));
    let on = if P::JUSTIFY.is_some() { ops::PAD } else { ops::ZFILL };
    let missing = missing::rule(effective_na(&inputs.map(|s| s.state())), on, name);
    let mut locks = loops::lock(&inputs, &[out]);
    // A fill character with stride 0 (the usual scalar) is decoded once. A missing or
    // malformed one is left to the per-element path, which answers in NumPy's order.
    let fixed_fill = fill_at
        .and_then(|_| inputs[1].scalar())
        .and_then(|view| match missing.operand(&view, locks.get(1)) {
            Ok(Some(fill)) => first_char(fill).ok(),
            _ => None,
        });
    let no_shortcut = |_, _: &[View; 2]| None;
    strings_out(args.elements(), &mut locks, inputs, out, no_shortcut, |e, [view, fill_view], readers, out| {
        let fill = match (fixed_fill, fill_at) {
            (Some(fill), _) => fill,
            (None, Some(_)) => match missing.operand(fill_view, readers.get(1))? {
                Some(fill) => first_char(fill)?,
                None => return Ok(Piece::Missing),
            },
            (None, None) => '0',
        };
        let Some(s) = missing.operand(view, readers.get(0))? else {
            return Ok(Piece::Missing);
        };
        let width = widths.count(e, name)?;
        let width = isize::try_from(width).unwrap_or(isize::MAX);
        let margin = kernels::pad_margin(s, width);
        if margin == 0 {
            return Ok(Piece::Bytes(s));
        }
        let size = margin.checked_mul(fill.len_utf8()).and_then(|m| m.checked_add(s.len()));
        let size = size.filter(|&size| size <= MAX_STRING_LEN).ok_or_else(|| overflow(name))?;
        reserve(out, size)?;
        match P::JUSTIFY {
            Some(justify) => kernels::justify(s, justify, margin, width, fill, out),
            None => kernels::zfill_margin(s, margin, out),
        }
        Ok(Piece::Bytes(out))
    })
});

/// The fill character: the first code point of `fill`, else NumPy's TypeError.
fn first_char(fill: &[u8]) -> PyResult<char> {
    kernels::fill_char(fill).py()
}

/// The three parts of `s.partition(sep)` (or `rpartition`), with NumPy's missing-value
/// rule: a missing value acts as its string, any other one is `error()`. `fixed` is the
/// separator prepared once when it is the same for every element.
///
/// Inlined: its three slices would otherwise come back through memory, and the loop's
/// reload of them stalls on the stores.
#[inline(always)]
fn partition_parts<'r, const LAST: bool>(
    (s, arena_s): (&'r View, &'r Arena),
    (sep, arena_sep): (&'r View, &'r Arena),
    fixed: Option<&Separator<'_>>,
    missing: &Missing<'r>,
) -> PyResult<[&'r [u8]; 3]> {
    let s = missing
        .operand(s, arena_s)?
        .ok_or_else(|| missing.error())?;
    let parts = match fixed {
        Some(sep) if LAST => sep.rpartition(s),
        Some(sep) => sep.partition(s),
        None => {
            let sep = missing
                .operand(sep, arena_sep)?
                .ok_or_else(|| missing.error())?;
            let parts = if LAST {
                kernels::rpartition(s, sep)
            } else {
                kernels::partition(s, sep)
            };
            parts.py()?
        }
    };
    Ok(parts.to_array())
}

ufunc_loop!(partition_loop[const LAST: bool], 5, |args| {
    let name = if LAST { "_rpartition" } else { "_partition" };
    let inputs = [args.strings(0), args.strings(1)];
    let outputs = [2, 3, 4].map(|k| args.strings_out(k));
    let missing = missing::rule(effective_na(&inputs.map(|s| s.state())), ops::PARTITION, name);
    let mut locks = loops::lock(&inputs, &outputs);
    // A separator with stride 0 (the usual scalar) is prepared once. An empty or
    // erroring one is left to the per-element path, which raises in NumPy's order.
    let scalar = match inputs[1].scalar() {
        Some(view) => missing
            .operand(&view, locks.get(1))
            .ok()
            .flatten()
            .map(<[u8]>::to_vec),
        None => None,
    };
    let fixed = scalar.as_deref().and_then(Separator::new);
    let propagates_all = missing.propagates_all();
    parts_out(
        args.elements(),
        &mut locks,
        inputs,
        outputs,
        |_, &[s, sep]: &[View; 2]| {
            // Under pandas' policy a missing operand gives three missing parts.
            if propagates_all && (s.is_na() || sep.is_na()) {
                return Some([View::NA; 3]);
            }
            fixed.as_ref()?.partition_inline(s, LAST)
        },
        |_, [s, sep], [arena_s, arena_sep]| {
            partition_parts::<LAST>((s, arena_s), (sep, arena_sep), fixed.as_ref(), &missing)
        },
    )
});

ufunc_loop!(pub(super) slice_loop, 5, |args| {
    let strings = args.strings(0);
    let [starts, stops, steps] = [1, 2, 3].map(|k| args.counts(k));
    let out = args.strings_out(4);
    let missing = missing::rule(&strings.state().na, ops::SLICE, "");
    let mut locks = loops::lock(&[strings], &[out]);
    let bounds = |e| [starts, stops, steps].map(|counts| counts.get(e) as isize);
    strings_out(
        args.elements(),
        &mut locks,
        [strings],
        out,
        |e, &[view]: &[View; 1]| {
            let [start, stop, step] = bounds(e);
            (step == 1).then(|| kernels::inline_ascii_slice(view, Some(start), Some(stop)))?
        },
        |e, [view], readers, out| {
            let [start, stop, step] = bounds(e);
            if step == 0 {
                return Err(PyValueError::new_err("slice step cannot be zero"));
            }
            let Some(s) = missing.operand(view, readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            if step == 1 {
                return Ok(Piece::Bytes(kernels::slice_contiguous(
                    s,
                    Some(start),
                    Some(stop),
                )));
            }
            let step = step.max(-isize::MAX);
            kernels::slice(s, Some(start), Some(stop), Some(step), out).py()?;
            Ok(Piece::Bytes(out))
        },
    )
});

ufunc_loop!(pub(super) slice_replace_loop, 5, |args| {
    let inputs = [args.strings(0), args.strings(3)];
    let [starts, stops] = [1, 2].map(|k| args.counts(k));
    let out = args.strings_out(4);
    let missing = missing::rule(effective_na(&inputs.map(|s| s.state())), ops::SLICE, "");
    let propagates_all = missing.propagates_all();
    let mut locks = loops::lock(&inputs, &[out]);
    // The Python function passes 0 for an omitted start and the largest int64 for an
    // omitted stop, which give the same results.
    let bounds = |e| [starts, stops].map(|counts| Some(counts.get(e) as isize));
    strings_out(
        args.elements(),
        &mut locks,
        inputs,
        out,
        |e, &[view, repl]: &[View; 2]| {
            if propagates_all && (view.is_na() || repl.is_na()) {
                return Some(View::NA);
            }
            let [start, stop] = bounds(e);
            kernels::inline_ascii_slice_replace(view, start, stop, repl)
        },
        |e, [view, repl], readers, out| {
            let Some(s) = missing.operand(view, readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            let Some(repl) = missing.operand(repl, readers.get(1))? else {
                return Ok(Piece::Missing);
            };
            let [start, stop] = bounds(e);
            let cut = kernels::slice_replace::Cut::new(s, start, stop);
            let size = cut.result_len(s.len(), repl.len());
            reserve(out, size.ok_or_else(|| overflow("slice_replace"))?)?;
            kernels::slice_replace(s, cut, repl, out);
            Ok(Piece::Bytes(out))
        },
    )
});

ufunc_loop!(pub(super) join_chars_loop, 3, |args| {
    let inputs = [args.strings(0), args.strings(1)];
    let out = args.strings_out(2);
    let missing = missing::rule(effective_na(&inputs.map(|s| s.state())), ops::SLICE, "");
    let propagates_all = missing.propagates_all();
    let mut locks = loops::lock(&inputs, &[out]);
    strings_out(
        args.elements(),
        &mut locks,
        inputs,
        out,
        |_, &[view, sep]: &[View; 2]| {
            if propagates_all && (view.is_na() || sep.is_na()) {
                return Some(View::NA);
            }
            // A string of at most one character is its own result, whatever `sep` is.
            (view.is_inline_string() && view.len() <= 1 && !sep.is_na()).then_some(view)
        },
        |_, [view, sep], readers, out| {
            let Some(s) = missing.operand(view, readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            let Some(sep) = missing.operand(sep, readers.get(1))? else {
                return Ok(Piece::Missing);
            };
            let size = kernels::join_chars_len(s, sep).ok_or_else(|| overflow("join"))?;
            reserve(out, size)?;
            kernels::join_chars(s, sep, out);
            Ok(Piece::Bytes(out))
        },
    )
});

//! The loops of the package's own ufuncs for what NumPy runs per element in Python: the
//! case conversions `upper lower swapcase capitalize title casefold`, `_translate` (over
//! a string and the int64 id of a `translate::TranslateTable`), and the two halves of
//! UTF-8 `encode` (`_utf8_nbytes` sizes the `S` output, `_encode_utf8` fills it).
//!
//! They are real `np.ufunc` objects (see `catalog`), so broadcasting, `out=`, `where=`
//! and strides come from NumPy; `stringdtype.strings` wraps them with `np.strings`'
//! signatures.

use pyo3::prelude::*;
use stringdtype_core::kernels::{self, AsciiCase};
use stringdtype_core::View;

use crate::arenas::ArenaLocks;
use crate::error::ToPyErr;
use crate::loops::{self, strings_out, strings_out_mut, ufunc_loop, values_out, Piece};
use crate::missing::{self, ops};
use crate::translate;
use crate::unicode::{tables, PythonTables};

/// A case conversion as a type: its kernel, the kernel of an all-ASCII string (whose
/// result is as long, so it is written straight into the result's block) and, where
/// short ASCII strings convert on their views alone, the byte-parallel conversion.
pub(super) trait CaseOp {
    const ASCII: Option<AsciiCase>;
    fn convert(s: &[u8], tables: &PythonTables, out: &mut Vec<u8>);
    fn convert_ascii(s: &[u8], dst: &mut [u8]);
}

macro_rules! case_ops {
    ($($ty:ident: $kernel:ident, $ascii_kernel:ident, $ascii:expr;)*) => {
        $(
            pub(super) struct $ty;
            impl CaseOp for $ty {
                const ASCII: Option<AsciiCase> = $ascii;
                #[inline]
                fn convert(s: &[u8], tables: &PythonTables, out: &mut Vec<u8>) {
                    kernels::$kernel(s, tables, out)
                }
                #[inline(always)]
                fn convert_ascii(s: &[u8], dst: &mut [u8]) {
                    kernels::$ascii_kernel(s, dst)
                }
            }
        )*
    };
}
case_ops! {
    Upper: upper, upper_ascii, Some(AsciiCase::Upper);
    Lower: lower, lower_ascii, Some(AsciiCase::Lower);
    Swapcase: swapcase, swapcase_ascii, Some(AsciiCase::Swap);
    Capitalize: capitalize, capitalize_ascii, Some(AsciiCase::Capitalize);
    Title: title, title_ascii, Some(AsciiCase::Title);
    Casefold: casefold, lower_ascii, None;
}

ufunc_loop!(pub(super) case_loop[C: CaseOp], 2, |args| {
    let (strings, out) = (args.strings(0), args.strings_out(1));
    let missing = missing::rule(&strings.state().na, ops::CASE, "");
    let mut locks = loops::lock(&[strings], &[out]);
    let tables = tables();
    // Short ASCII strings convert on their views alone.
    let shortcut = |_, &[view]: &[View; 1]| kernels::inline_ascii_case(view, C::ASCII?);
    strings_out(args.elements(), &mut locks, [strings], out, shortcut, |_, [view], readers, scratch| {
        Ok(match missing.operand(view, readers.get(0))? {
            // An ASCII string's result is as long: written straight into its block.
            Some(s) if s.is_ascii() => Piece::Mapped(s, C::convert_ascii),
            Some(s) => {
                C::convert(s, tables, scratch);
                Piece::Bytes(scratch)
            }
            None => Piece::Missing,
        })
    })
});

ufunc_loop!(pub(super) translate_loop, 3, |args| {
    let (strings, ids, out) = (args.strings(0), args.counts(1), args.strings_out(2));
    let missing = missing::rule(&strings.state().na, ops::TRANSLATE, "");
    let mut tables = translate::tables();
    // The table of a scalar id (the usual call) lets inline strings it leaves alone
    // through on their views alone.
    let fixed = match ids.scalar() {
        Some(id) => Some(tables.get(id)?.clone()),
        None => None,
    };
    let mut locks = loops::lock(&[strings], &[out]);
    let shortcut = |_, &[view]: &[View; 1]| kernels::inline_unchanged(view, fixed.as_deref()?);
    if let Some(table) = fixed.as_deref() {
        // One table for the call: no state between elements, so a large call may be
        // split between threads (a `TranslateTable` is only read).
        return strings_out(args.elements(), &mut locks, [strings], out, shortcut, move |_, [view], readers, scratch| {
            let Some(s) = missing.operand(view, readers.get(0))? else {
                return Ok(Piece::Missing);
            };
            translate(s, table, scratch)
        });
    }
    // A table per element: the lookup caches the last one read, a kernel with state,
    // on one thread.
    strings_out_mut(args.elements(), &mut locks, [strings], out, shortcut, |e, [view], readers, scratch| {
        let Some(s) = missing.operand(view, readers.get(0))? else {
            return Ok(Piece::Missing);
        };
        translate(s, tables.get(ids.get(e))?, scratch)
    })
});

/// `s` translated by `table` into `scratch`, as a loop's result.
#[inline(always)]
fn translate<'r>(
    s: &'r [u8],
    table: &kernels::TranslateTable,
    scratch: &'r mut Vec<u8>,
) -> PyResult<Piece<'r>> {
    let translated = kernels::translate(s, table, scratch);
    Ok(Piece::Bytes(
        translated.map_err(|err| err.in_element("translate", s))?,
    ))
}

ufunc_loop!(pub(super) nbytes_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.values::<i64>(1));
    let missing = missing::rule(&strings.state().na, ops::ENCODE, "");
    values_out(args.elements(), out, move |e| {
        let view = strings.view(e);
        // The length is in the view: no arena is needed.
        match view.is_na() {
            false => Ok(view.len() as i64),
            true => Ok(missing.stand_in()?.ok_or_else(|| missing.error())?.len() as i64),
        }
    })
});

ufunc_loop!(pub(super) encode_loop, 2, |args| {
    let (strings, out) = (args.strings(0), args.bytes_out(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, ops::ENCODE, "");
    let locks = ArenaLocks::reading(&[&state.arena]);
    for e in args.elements() {
        let view = strings.view(e);
        let bytes = missing
            .operand(&view, locks.get(0))?
            .ok_or_else(|| missing.error())?;
        out.write(e, bytes)?;
    }
    Ok(())
});

//! The package's own ufuncs, for what NumPy runs per element in Python: the case
//! conversions `upper lower swapcase capitalize title casefold`, and the two halves of
//! UTF-8 `encode` (`_utf8_nbytes` sizes the `S` output, `_encode_utf8` fills it).
//!
//! They are real `np.ufunc` objects, so broadcasting, `out=`, `where=` and strides come
//! from NumPy; `stringdtype.strings` wraps them with `np.strings`' signatures.

use std::ffi::CStr;

use pyo3::prelude::*;
use stringdtype_core::kernels::{self, AsciiCase};
use stringdtype_core::View;

use super::registry::{add_own_ufunc, Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::ffi::StridedLoop;
use crate::loops::{self, strings_out, ufunc_loop, values_out, Piece};
use crate::missing::{self, ops};
use crate::unicode::{tables, PythonTables};

/// A case conversion as a type: its ufunc's name and docstring, its kernel and, where
/// short ASCII strings convert on their views alone, the byte-parallel conversion.
trait CaseOp {
    const NAME: &'static CStr;
    const DOC: &'static CStr;
    const ASCII: Option<AsciiCase>;
    fn convert(s: &[u8], tables: &PythonTables, out: &mut Vec<u8>);
}

macro_rules! case_ops {
    ($($ty:ident: $name:literal, $doc:literal, $kernel:ident, $ascii:expr;)*) => {
        $(
            struct $ty;
            impl CaseOp for $ty {
                const NAME: &'static CStr = $name;
                const DOC: &'static CStr = $doc;
                const ASCII: Option<AsciiCase> = $ascii;
                #[inline]
                fn convert(s: &[u8], tables: &PythonTables, out: &mut Vec<u8>) {
                    kernels::$kernel(s, tables, out)
                }
            }
        )*
        /// Name, docstring and loop of each case ufunc.
        const CASE_UFUNCS: &[(&CStr, &CStr, StridedLoop)] =
            &[$(($ty::NAME, $ty::DOC, case_loop::<$ty>)),*];
    };
}
case_ops! {
    Upper: c"upper", c"Element-wise str.upper.", upper, Some(AsciiCase::Upper);
    Lower: c"lower", c"Element-wise str.lower.", lower, Some(AsciiCase::Lower);
    Swapcase: c"swapcase", c"Element-wise str.swapcase.", swapcase, Some(AsciiCase::Swap);
    Capitalize: c"capitalize", c"Element-wise str.capitalize.", capitalize, Some(AsciiCase::Capitalize);
    Title: c"title", c"Element-wise str.title.", title, None;
    Casefold: c"casefold", c"Element-wise str.casefold.", casefold, None;
}

/// Creates the package's ufuncs, registers their loops and adds them to `module`.
pub fn add_ufuncs(module: &Bound<'_, PyModule>) -> PyResult<()> {
    for &(name, doc, strided) in CASE_UFUNCS {
        add_own_ufunc(
            module,
            name,
            doc,
            1,
            &LoopDef::new("", &[Dt::Ours, Dt::Ours], strided),
        )?;
    }
    add_own_ufunc(
        module,
        c"_utf8_nbytes",
        c"UTF-8 byte length of each string.",
        1,
        &LoopDef::new("", &[Dt::Ours, Dt::Int64], nbytes_loop),
    )?;
    add_own_ufunc(
        module,
        c"_encode_utf8",
        c"UTF-8 bytes into a given S array.",
        1,
        &LoopDef::new("", &[Dt::Ours, Dt::Bytes], encode_loop),
    )
}

ufunc_loop!(case_loop[C: CaseOp], 2, |args| {
    let (strings, out) = (args.strings(0), args.strings_out(1));
    let missing = missing::rule(&strings.state().na, ops::CASE, "");
    let mut locks = loops::lock(&[strings], &[out]);
    let tables = tables();
    // Short ASCII strings convert on their views alone.
    let shortcut = |_, &[view]: &[View; 1]| kernels::inline_ascii_case(view, C::ASCII?);
    strings_out(args.elements(), &mut locks, [strings], out, shortcut, |_, [view], readers, scratch| {
        Ok(match missing.operand(view, readers.get(0))? {
            Some(s) => {
                C::convert(s, tables, scratch);
                Piece::Bytes(scratch)
            }
            None => Piece::Missing,
        })
    })
});

ufunc_loop!(nbytes_loop, 2, |args| {
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

ufunc_loop!(encode_loop, 2, |args| {
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

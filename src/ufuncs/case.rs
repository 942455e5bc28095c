//! The package's own ufuncs, for what NumPy runs per element in Python: the case
//! conversions `upper lower swapcase capitalize title casefold`, and the two halves of
//! UTF-8 `encode` (`_utf8_nbytes` sizes the `S` output, `_encode_utf8` fills it).
//!
//! They are real `np.ufunc` objects, so broadcasting, `out=`, `where=` and strides come
//! from NumPy; `stringdtype.strings` wraps them with `np.strings`' signatures.

use std::ffi::CStr;
use std::ptr;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use stringdtype_core::kernels::{self, AsciiCase};

use super::registry::{add_own_ufunc, Dt, LoopDef};
use crate::arenas::ArenaLocks;
use crate::element::read_view;
use crate::ffi::StridedLoop;
use crate::loops::{ufunc_loop, Output};
use crate::missing::{default_string, operand};
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

fn case_error() -> PyErr {
    PyTypeError::new_err(
        "Cannot change the case of a null that is not a nan-like value or a string",
    )
}

ufunc_loop!(case_loop[C: CaseOp], 2, |args| {
    let (si, so) = (args.state(0), args.state(1));
    let mut locks = ArenaLocks::new(&[&si.arena, &so.arena], 1);
    let output = Output::new(&args, 1, locks.get(1));
    let tables = tables();
    let mut scratch = Vec::new();
    for i in 0..args.n {
        scratch.clear();
        // SAFETY: element i of the input.
        let view = unsafe { read_view(args.at(0, i)) };
        if let Some(converted) = C::ASCII.and_then(|c| kernels::inline_ascii_case(view, c)) {
            // SAFETY: element i of the output; an inline view needs no arena.
            unsafe { output.write_view(&args, locks.get_mut(1), i, converted) };
            continue;
        }
        let present = match operand(&view, locks.get(0), &si.na, true, case_error)? {
            Some(s) => {
                C::convert(s, tables, &mut scratch);
                true
            }
            None => false,
        };
        let result = present.then_some(&scratch[..]);
        // SAFETY: element i of the output, whose arena is lock 1.
        unsafe { output.write(&args, locks.get_mut(1), i, result) }?;
    }
    Ok(())
});

fn encode_error() -> PyErr {
    PyTypeError::new_err("Cannot encode a null that is not a string")
}

ufunc_loop!(nbytes_loop, 2, |args| {
    let state = args.state(0);
    for i in 0..args.n {
        // SAFETY: element i of the input.
        let view = unsafe { read_view(args.at(0, i)) };
        // The length is in the view: no arena is needed.
        let len = match (view.is_na(), default_string(&state.na)) {
            (false, _) => view.len(),
            (true, Some(default)) => default.len(),
            (true, None) => return Err(encode_error()),
        };
        // SAFETY: element i of the int64 output.
        unsafe { ptr::write_unaligned(args.at(1, i) as *mut i64, len as i64) };
    }
    Ok(())
});

ufunc_loop!(encode_loop, 2, |args| {
    // SAFETY: operand 0 is a StringDType operand; operand 1 is an `S` array.
    let (state, width) = unsafe { (args.state(0), (*args.descrs[1]).elsize as usize) };
    let locks = ArenaLocks::reading(&[&state.arena]);
    for i in 0..args.n {
        // SAFETY: element i of the input.
        let view = unsafe { read_view(args.at(0, i)) };
        let bytes = operand(&view, locks.get(0), &state.na, false, encode_error)?.unwrap_or(b"");
        if bytes.len() > width {
            return Err(PyValueError::new_err(format!(
                "a string of {} bytes does not fit in S{width}",
                bytes.len()
            )));
        }
        // SAFETY: element i of the output holds `width` bytes; zero padding as NumPy's `S`.
        unsafe {
            let dst = args.at(1, i);
            ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
            ptr::write_bytes(dst.add(bytes.len()), 0, width - bytes.len());
        }
    }
    Ok(())
});

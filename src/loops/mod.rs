//! The toolkit every strided loop (casts and ufuncs) is written with: the entry-point
//! macro, the loop's arguments with typed access to its string operands, reading
//! operands and counts, and writing results. Resolution of descriptors is in [`resolve`].

pub mod resolve;

use std::ffi::c_char;
use std::ptr;

use pyo3::exceptions::{PyMemoryError, PyOverflowError};
use pyo3::prelude::*;
use stringdtype_core::{Arena, View};

use crate::descr::{DescrState, StringDescr};
use crate::element::{is_fresh_destination, read_view, write_element};
use crate::error::CoreResultExt;
use crate::ffi::*;
pub use resolve::resolver;

/// Defines a strided-loop entry point (a cast or a ufunc loop) that runs `$body` inside
/// `error::loop_guard` with `$args`, the loop's [`Args`] for `$nargs` operands.
macro_rules! ufunc_loop {
    ($(#[$meta:meta])* $vis:vis $name:ident $([$($gen:tt)*])?, $nargs:expr, |$args:ident| $body:block) => {
        $(#[$meta])*
        $vis unsafe extern "C" fn $name $(<$($gen)*>)? (
            context: *mut $crate::ffi::PyArrayMethod_Context,
            data: *const *mut std::ffi::c_char,
            dimensions: *const $crate::ffi::npy_intp,
            strides: *const $crate::ffi::npy_intp,
            _auxdata: *mut std::ffi::c_void,
        ) -> std::ffi::c_int {
            $crate::error::loop_guard(|| {
                // SAFETY: NumPy calls a loop with its registered number of operands.
                let $args = unsafe {
                    $crate::loops::Args::new(context, data, dimensions, strides, $nargs)
                };
                $body
            })
        }
    };
}
pub(crate) use ufunc_loop;

/// The strided arguments of a loop call: pointers, strides and descriptors per operand,
/// and the typed descriptor of each string operand.
pub struct Args<'a> {
    pub data: [*mut u8; 5],
    pub strides: [isize; 5],
    pub descrs: [*mut PyArray_Descr; 5],
    strings: [Option<StringDescr<'a>>; 5],
    pub n: isize,
}

impl<'a> Args<'a> {
    /// # Safety
    /// The arguments must be those NumPy passes to a strided loop with `nargs` operands;
    /// the descriptors must stay alive for `'a` (NumPy keeps them for the call).
    ///
    /// Inlined: built by a call, the arguments came back through memory, and the loops
    /// that NumPy calls once per element (`take`, masks) stalled on reading them back.
    #[inline(always)]
    pub unsafe fn new(
        context: *mut PyArrayMethod_Context,
        data: *const *mut c_char,
        dimensions: *const npy_intp,
        strides: *const npy_intp,
        nargs: usize,
    ) -> Args<'a> {
        let mut args = Args {
            data: [ptr::null_mut(); 5],
            strides: [0; 5],
            descrs: [ptr::null_mut(); 5],
            strings: [None; 5],
            n: 0,
        };
        // SAFETY: forwarded contract: NumPy passes `nargs` pointers, strides and live
        // descriptors, and the dimension.
        unsafe {
            for i in 0..nargs {
                args.data[i] = (*data.add(i)).cast();
                args.strides[i] = *strides.add(i);
                args.descrs[i] = *(*context).descriptors.add(i);
                args.strings[i] = StringDescr::try_from_raw(args.descrs[i]);
            }
            args.n = *dimensions;
        }
        args
    }

    /// Address of element `i` of operand `k`.
    #[inline]
    pub fn at(&self, k: usize, i: isize) -> *mut u8 {
        self.data[k].wrapping_offset(i * self.strides[k])
    }

    /// Whether operand `k` is an unsigned integer (a uint64 count).
    #[inline]
    pub fn is_unsigned(&self, k: usize) -> bool {
        let descr = self.descrs[k];
        // SAFETY: a non-null descriptor is live for the call (`Args::new`).
        !descr.is_null() && unsafe { (*descr).kind } as u8 == b'u'
    }

    /// The one element of string operand `k` when the operand has stride 0 (a Python
    /// `str`, or broadcasting) and the call has more than one element, so that work on it
    /// can be done once per call; else `None`.
    pub fn scalar_view(&self, k: usize) -> Option<View> {
        // SAFETY: element 0 of operand k exists when the call has elements.
        (self.n > 1 && self.strides[k] == 0).then(|| unsafe { read_view(self.at(k, 0)) })
    }

    /// The descriptor of operand `k`, a string operand of the loop's signature (else an
    /// internal error, which the loop guard reports).
    #[inline]
    pub fn string(&self, k: usize) -> StringDescr<'a> {
        self.strings[k].expect("the loop's signature makes this operand a StringDType one")
    }

    /// The descriptor of operand `k` if it is a StringDType operand.
    #[inline]
    pub fn try_string(&self, k: usize) -> Option<StringDescr<'a>> {
        self.strings[k]
    }

    /// The parameters and arena of string operand `k` (see [`Args::string`]).
    #[inline]
    pub fn state(&self, k: usize) -> &'a DescrState {
        self.string(k).state()
    }
}

/// Element `i` of a count operand `k` (int64, or uint64 for a loop registered with
/// [`LoopDef::unsigned_counts`]); a uint64 beyond int64 is an `OverflowError` naming
/// `what`.
///
/// # Safety
/// Operand `k` must be an int64 or uint64 operand with at least `i + 1` elements.
#[inline]
pub unsafe fn read_count(args: &Args<'_>, k: usize, i: isize, what: &str) -> PyResult<i64> {
    // SAFETY: forwarded contract; both types are 8 bytes.
    let raw = unsafe { read_i64(args, k, i) };
    if raw < 0 && args.is_unsigned(k) {
        return Err(PyOverflowError::new_err(format!(
            "Overflow encountered in {what}"
        )));
    }
    Ok(raw)
}

/// Makes room for `bytes` more bytes in a result buffer, or fails with `MemoryError`:
/// result sizes come from users' counts and widths.
#[inline]
pub fn reserve(out: &mut Vec<u8>, bytes: usize) -> PyResult<()> {
    if out.capacity() - out.len() >= bytes {
        return Ok(());
    }
    grow(out, bytes)
}

#[cold]
fn grow(out: &mut Vec<u8>, bytes: usize) -> PyResult<()> {
    out.try_reserve(bytes)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {bytes} bytes for a string")))
}

/// Element `i` of an int64 operand `k`.
///
/// # Safety
/// Operand `k` must be an int64 operand with at least `i + 1` elements.
#[inline]
pub unsafe fn read_i64(args: &Args<'_>, k: usize, i: isize) -> i64 {
    // SAFETY: forwarded contract; NumPy's int64 operands need not be aligned here.
    unsafe { ptr::read_unaligned(args.at(k, i) as *const i64) }
}

/// How a loop writes the string results of its output operand `k`.
#[derive(Clone, Copy)]
pub struct Output {
    k: usize,
    /// See `element::is_fresh_destination`.
    fresh: bool,
}

impl Output {
    /// Output operand `k`, whose arena is `arena` (a reduction's output, with stride 0,
    /// is never fresh: it is written again and again).
    pub fn new(args: &Args, k: usize, arena: &Arena) -> Output {
        let fresh = is_fresh_destination(arena, args.strides[k]);
        Output { k, fresh }
    }

    /// Stores `bytes` (or a missing value, for `None`) as element `i`.
    ///
    /// # Safety
    /// `arena` must be the output operand's arena and `i` one of the loop's elements.
    #[inline(always)]
    pub unsafe fn write(
        &self,
        args: &Args,
        arena: &mut Arena,
        i: isize,
        bytes: Option<&[u8]>,
    ) -> PyResult<()> {
        let view = match bytes {
            Some(bytes) => arena.store(bytes).py()?,
            None => View::NA,
        };
        // SAFETY: forwarded contract.
        unsafe { self.write_view(args, arena, i, view) };
        Ok(())
    }

    /// Stores `view`, whose long string (if any) lives in `arena`, as element `i`.
    ///
    /// # Safety
    /// As for [`Output::write`].
    #[inline]
    pub unsafe fn write_view(&self, args: &Args, arena: &mut Arena, i: isize, view: View) {
        // SAFETY: forwarded contract.
        unsafe { write_element(arena, args.at(self.k, i), view, self.fresh) };
    }
}

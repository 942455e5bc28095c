//! The toolkit every strided loop (casts and ufuncs) is written with: the entry-point
//! macro and the loop's arguments ([`Args`]), the typed views of its operands through
//! which every element is read and written ([`operands`]), and one driver per loop shape
//! with string results ([`drivers`]). Resolution of descriptors is in [`resolve`]; the
//! thread pool that large calls are split across is in [`pool`].

mod drivers;
mod operands;
pub mod pool;
pub mod resolve;

use std::ffi::c_char;
use std::ptr;

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;

use crate::descr::{DescrState, StringDescr};
use crate::ffi::*;
pub use drivers::{lock, parts_out, strings_out, strings_out_mut, values_out, Piece};
pub use operands::{
    overflow, BytesOut, CountValue, Counts, Elem, Elems, Strings, StringsOut, Value, Values,
};
pub use pool::{in_parts, in_parts_views};
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
/// and the typed descriptor of each string operand. Loops reach their operands through
/// the typed views it makes ([`Args::strings`], [`Args::counts`], [`Args::values`],
/// [`Args::strings_out`], [`Args::bytes_out`]) and their elements through
/// [`Args::elements`].
pub struct Args<'a> {
    data: [*mut u8; 5],
    strides: [isize; 5],
    descrs: [*mut PyArray_Descr; 5],
    strings: [Option<StringDescr<'a>>; 5],
    n: isize,
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

    /// The number of elements of the call.
    #[inline]
    pub fn len(&self) -> isize {
        self.n
    }

    /// Every element of the call.
    #[inline]
    pub fn elements(&self) -> Elems {
        Elems::all(self.n)
    }

    /// String input `k`.
    #[inline]
    pub fn strings(&self, k: usize) -> Strings<'a> {
        Strings::new(self, k)
    }

    /// Count input `k` (int64, or uint64 for a loop registered with
    /// `LoopDef::unsigned_counts`).
    #[inline]
    pub fn counts(&self, k: usize) -> Counts {
        Counts::new(self, k)
    }

    /// Output `k`, of bools or int64s.
    #[inline]
    pub fn values<T: Value>(&self, k: usize) -> Values<T> {
        Values::new(self, k)
    }

    /// String output `k`.
    #[inline]
    pub fn strings_out(&self, k: usize) -> StringsOut<'a> {
        StringsOut::new(self, k)
    }

    /// `S` output `k`.
    #[inline]
    pub fn bytes_out(&self, k: usize) -> BytesOut {
        BytesOut::new(self, k)
    }

    /// Pointer, stride and descriptor of operand `k`, for the cast loops, which walk
    /// element pairs of any DType themselves (`casts::pairs`).
    #[inline(always)]
    pub fn raw(&self, k: usize) -> (*mut u8, isize, *mut PyArray_Descr) {
        (self.data[k], self.strides[k], self.descrs[k])
    }

    /// NumPy's kind character and item size of operand `k`.
    fn kind_and_size(&self, k: usize) -> (u8, usize) {
        let descr = self.descrs[k];
        assert!(!descr.is_null(), "every operand of a loop has a descriptor");
        // SAFETY: a non-null descriptor is live for the call (`Args::new`).
        unsafe { ((*descr).kind as u8, (*descr).elsize as usize) }
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

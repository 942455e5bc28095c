//! Typed views of a loop's operands, made once per call from its [`Args`]: string
//! inputs ([`Strings`]), counts and widths ([`Counts`]), bool and int64 results
//! ([`Values`]), string results ([`StringsOut`]) and fixed-width bytes results
//! ([`BytesOut`]). Each checks its operand's DType when it is made; every element read
//! and write of the ufunc loops happens here, at an [`Elem`] of the call.

use std::marker::PhantomData;
use std::ops::Range;
use std::ptr;

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use stringdtype_core::{Arena, View};

use super::Args;
use crate::descr::{DescrState, StringDescr};
use crate::element::{
    is_fresh_destination, read_len_and_prefix, read_view, write_element, write_view,
};
use crate::error::CoreResultExt;
use crate::missing::MissingResult;

/// One element of the current loop call. Only [`Elems`] makes them, from the call's own
/// range, so every operand of the call has the element: the views below read and write
/// it without a bounds check. An `Elem` belongs to the call that made it (a loop body
/// sees one call). Elements order as the call's (a loop that answers some elements
/// after a split call answers them in that order).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Elem(isize);

/// A range of the call's elements: all of them ([`Args::elements`]), or a part of it
/// (a driver may hand parts of a call to different threads).
#[derive(Clone, Debug)]
pub struct Elems(Range<isize>);

impl Elems {
    /// The elements `0..n` of a call of `n` elements.
    pub(super) fn all(n: isize) -> Elems {
        Elems(0..n.max(0))
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        (self.0.end - self.0.start) as usize
    }

    /// The `j`-th element of the range, if it has one.
    #[inline(always)]
    pub fn get(&self, j: usize) -> Option<Elem> {
        (j < self.len()).then(|| Elem(self.0.start + j as isize))
    }

    /// The first element, if any.
    #[inline]
    pub fn first(&self) -> Option<Elem> {
        self.get(0)
    }

    /// The elements of this range from `first` on (none if `first` is past it).
    pub fn starting_at(&self, first: Elem) -> Elems {
        Elems(first.0.clamp(self.0.start, self.0.end)..self.0.end)
    }

    /// Consecutive parts of at most `size` elements (`size` > 0).
    pub fn chunks(&self, size: usize) -> impl Iterator<Item = Elems> {
        let Range { start, end } = self.0;
        (start..end)
            .step_by(size)
            .map(move |at| Elems(at..end.min(at + size as isize)))
    }
}

impl Iterator for Elems {
    type Item = Elem;

    #[inline(always)]
    fn next(&mut self) -> Option<Elem> {
        self.0.next().map(Elem)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// Address of element `e` of a strided operand.
#[inline(always)]
fn address(data: *mut u8, stride: isize, e: Elem) -> *mut u8 {
    data.wrapping_offset(e.0 * stride)
}

/// A string input operand.
#[derive(Clone, Copy)]
pub struct Strings<'a> {
    data: *mut u8,
    stride: isize,
    n: isize,
    descr: StringDescr<'a>,
}

// SAFETY: a string input is only read during a call, from any thread of the call (a
// parallel loop reads it from the pool's workers while the calling thread waits).
unsafe impl Send for Strings<'_> {}
// SAFETY: as above.
unsafe impl Sync for Strings<'_> {}

impl<'a> Strings<'a> {
    /// Operand `k` of `args`, which the loop's signature makes a StringDType operand
    /// (else an internal error, which the loop guard reports).
    pub(super) fn new(args: &Args<'a>, k: usize) -> Strings<'a> {
        Strings {
            data: args.data[k],
            stride: args.strides[k],
            n: args.n,
            descr: args.string(k),
        }
    }

    /// The view of element `e`.
    #[inline(always)]
    pub fn view(&self, e: Elem) -> View {
        // SAFETY: `e` is an element of this call (`Elem`), so its 16 bytes lie in the
        // operand's buffer; any 16 bytes are a view.
        unsafe { read_view(address(self.data, self.stride, e)) }
    }

    /// The length and prefix word of element `e` ([`View::len_and_prefix`]), read
    /// without the rest of the view.
    #[inline(always)]
    pub fn len_and_prefix(&self, e: Elem) -> u64 {
        // SAFETY: as in `view`.
        unsafe { read_len_and_prefix(address(self.data, self.stride, e)) }
    }

    /// The one element when the operand has stride 0 (a Python `str`, or broadcasting)
    /// and the call has more than one element, so that work on it is done once per call.
    #[inline]
    pub fn scalar(&self) -> Option<View> {
        (self.n > 1 && self.stride == 0).then(|| self.view(Elem(0)))
    }

    /// The operand's parameters and arena.
    #[inline]
    pub fn state(&self) -> &'a DescrState {
        self.descr.state()
    }

    /// Whether element `e` of this operand is element `e` of `out` (an in-place call).
    #[inline]
    pub fn is_element_of(&self, e: Elem, out: &StringsOut<'_>) -> bool {
        ptr::eq(
            address(self.data, self.stride, e),
            address(out.data, out.stride, e),
        )
    }

    /// Whether this operand and `out` are one element, both with stride 0: a reduction
    /// (`np.min(a)`) whose running value is that element.
    pub fn is_running_value_of(&self, out: &StringsOut<'_>) -> bool {
        self.n > 0 && self.stride == 0 && out.stride == 0 && ptr::eq(self.data, out.data)
    }
}

/// An integer input operand that holds counts or widths: int64, or uint64 for a loop
/// registered with `LoopDef::unsigned_counts`.
#[derive(Clone, Copy)]
pub struct Counts {
    data: *mut u8,
    stride: isize,
    n: isize,
    unsigned: bool,
}

// SAFETY: as for `Strings`: an input, only read during the call.
unsafe impl Send for Counts {}
// SAFETY: as above.
unsafe impl Sync for Counts {}

impl Counts {
    /// Operand `k` of `args`, which must be an 8-byte integer operand.
    pub(super) fn new(args: &Args<'_>, k: usize) -> Counts {
        let (kind, size) = args.kind_and_size(k);
        assert!(
            matches!(kind, b'i' | b'u') && size == 8,
            "the loop's signature makes operand {k} an int64 or uint64 one"
        );
        Counts {
            data: args.data[k],
            stride: args.strides[k],
            n: args.n,
            unsigned: kind == b'u',
        }
    }

    /// Element `e` as an int64 (a uint64 beyond int64 comes out negative).
    #[inline(always)]
    pub fn get(&self, e: Elem) -> i64 {
        // SAFETY: `e` is an element of this call, and the operand's elements are 8-byte
        // integers (checked in `new`), not necessarily aligned.
        unsafe { ptr::read_unaligned(address(self.data, self.stride, e) as *const i64) }
    }

    /// Element `e` as a count: a uint64 beyond int64 is an `OverflowError` naming `what`.
    #[inline(always)]
    pub fn count(&self, e: Elem, what: &str) -> PyResult<i64> {
        let raw = self.get(e);
        if raw < 0 && self.unsigned {
            return Err(overflow(what));
        }
        Ok(raw)
    }

    /// Whether the operand is uint64.
    #[inline]
    pub fn is_unsigned(&self) -> bool {
        self.unsigned
    }

    /// The one element when the operand has stride 0 and the call more than one element.
    #[inline]
    pub fn scalar(&self) -> Option<i64> {
        (self.n > 1 && self.stride == 0).then(|| self.get(Elem(0)))
    }
}

/// The `OverflowError` of operation `what` (NumPy's words).
#[cold]
pub fn overflow(what: &str) -> PyErr {
    PyOverflowError::new_err(format!("Overflow encountered in {what}"))
}

/// A value a loop writes to a NumPy output of a fixed-size type.
pub trait Value: Copy + Send + Sync {
    /// NumPy's kind character and item size of the output's DType.
    const KIND: u8;
}

impl Value for bool {
    const KIND: u8 = b'b';
}

impl Value for i64 {
    const KIND: u8 = b'i';
}

impl Value for f64 {
    const KIND: u8 = b'f';
}

/// A count a loop writes: int64, or float64 where a missing operand gives NaN (pandas'
/// policy, `missing::Policy`).
pub trait CountValue: Value + MissingResult {
    fn count(n: i64) -> Self;
}

impl CountValue for i64 {
    #[inline(always)]
    fn count(n: i64) -> i64 {
        n
    }
}

impl CountValue for f64 {
    #[inline(always)]
    fn count(n: i64) -> f64 {
        n as f64
    }
}

/// An output operand of bools, int64s or float64s.
#[derive(Clone, Copy)]
pub struct Values<T: Value> {
    data: *mut u8,
    stride: isize,
    _value: PhantomData<T>,
}

// SAFETY: elements are written only at an `Elem` of the call, and a parallel loop
// (`loops::pool`) gives each worker its own range of elements, so no two threads write
// one element; the calling thread waits for the workers before it reads the output.
unsafe impl<T: Value> Send for Values<T> {}
// SAFETY: as above.
unsafe impl<T: Value> Sync for Values<T> {}

impl<T: Value> Values<T> {
    /// Operand `k` of `args`, whose DType must be `T`'s.
    pub(super) fn new(args: &Args<'_>, k: usize) -> Values<T> {
        let (kind, size) = args.kind_and_size(k);
        assert!(
            kind == T::KIND && size == std::mem::size_of::<T>(),
            "the loop's signature gives operand {k} the result's type"
        );
        Values {
            data: args.data[k],
            stride: args.strides[k],
            _value: PhantomData,
        }
    }

    /// Writes `value` as element `e`.
    #[inline(always)]
    pub fn set(&self, e: Elem, value: T) {
        // SAFETY: `e` is an element of this call and the operand's elements are `T`s
        // (checked in `new`), not necessarily aligned.
        unsafe { ptr::write_unaligned(address(self.data, self.stride, e) as *mut T, value) }
    }

    /// The bytes of the elements of `elems` as they are now, for [`Values::restore`]
    /// (bytes, not `T`s: a bool output may hold any byte).
    pub fn save(&self, elems: Elems) -> Vec<u8> {
        let size = std::mem::size_of::<T>();
        let mut saved = Vec::with_capacity(elems.len() * size);
        for e in elems {
            // SAFETY: `e` is an element of this call, `size` bytes of the output.
            let bytes =
                unsafe { std::slice::from_raw_parts(address(self.data, self.stride, e), size) };
            saved.extend_from_slice(bytes);
        }
        saved
    }

    /// Puts back the elements of `elems` that [`Values::save`] saved as `saved`.
    pub fn restore(&self, elems: Elems, saved: &[u8]) {
        let size = std::mem::size_of::<T>();
        for (e, bytes) in elems.zip(saved.chunks_exact(size)) {
            // SAFETY: as in `save`; `saved` is a buffer of its own, no part of the output.
            unsafe {
                ptr::copy_nonoverlapping(bytes.as_ptr(), address(self.data, self.stride, e), size)
            };
        }
    }
}

/// A string output operand.
#[derive(Clone, Copy)]
pub struct StringsOut<'a> {
    data: *mut u8,
    stride: isize,
    descr: StringDescr<'a>,
    /// Whether elements are written without releasing their old strings: see
    /// `element::is_fresh_destination`, decided once the arena is locked ([`Self::bind`]).
    fresh: bool,
}

// SAFETY: as for `Values`: a parallel loop (`loops::drivers`) gives each worker its own
// range of elements, and writes elements only without releasing their old strings (a
// fresh output), so a worker touches no arena through it; the calling thread waits for
// the workers before it reads the output.
unsafe impl Send for StringsOut<'_> {}
// SAFETY: as above.
unsafe impl Sync for StringsOut<'_> {}

impl<'a> StringsOut<'a> {
    /// Operand `k` of `args`, a StringDType operand (as [`Strings::new`]).
    pub(super) fn new(args: &Args<'a>, k: usize) -> StringsOut<'a> {
        StringsOut {
            data: args.data[k],
            stride: args.strides[k],
            descr: args.string(k),
            fresh: false,
        }
    }

    /// The operand's parameters and arena.
    #[inline]
    pub fn state(&self) -> &'a DescrState {
        self.descr.state()
    }

    /// This output, to be written with `arena` (its arena, locked for writing) in hand:
    /// decides whether its old elements need releasing.
    #[inline]
    pub fn bind(mut self, arena: &Arena) -> StringsOut<'a> {
        self.fresh = is_fresh_destination(arena, self.stride);
        self
    }

    /// Whether elements are written without releasing their old strings (decided by
    /// [`Self::bind`]): then no element holds a string of the output's arena.
    #[inline]
    pub fn is_fresh(&self) -> bool {
        self.fresh
    }

    /// The views of the elements of `elems` as they are now, for [`Self::restore`].
    pub fn save(&self, elems: Elems) -> Vec<View> {
        // SAFETY: `e` is an element of this call; any 16 bytes are a view.
        elems
            .map(|e| unsafe { read_view(address(self.data, self.stride, e)) })
            .collect()
    }

    /// Puts back the views of the elements of `elems` that [`Self::save`] saved, without
    /// releasing what the elements hold now (the caller frees those strings).
    pub fn restore(&self, elems: Elems, saved: &[View]) {
        for (e, view) in elems.zip(saved) {
            // SAFETY: `e` is an element of this call, 16 bytes of the output's buffer.
            unsafe { write_view(address(self.data, self.stride, e), *view) };
        }
    }

    /// Stores `bytes` (or a missing value, for `None`) in `arena`, the output's, as
    /// element `e`.
    #[inline(always)]
    pub fn write(&self, arena: &mut Arena, e: Elem, bytes: Option<&[u8]>) -> PyResult<()> {
        let view = match bytes {
            Some(bytes) => arena.store(bytes).py()?,
            None => View::NA,
        };
        self.write_view(arena, e, view);
        Ok(())
    }

    /// Writes `view`, whose long string (if any) lives in `arena`, the output's, as
    /// element `e`, releasing the string it held.
    #[inline(always)]
    pub fn write_view(&self, arena: &mut Arena, e: Elem, view: View) {
        // SAFETY: `e` is an element of this call, so its 16 bytes lie in the output's
        // buffer. An arena releases only strings it can prove its own, so a wrong
        // `arena` costs a leak, never memory.
        unsafe { write_element(arena, address(self.data, self.stride, e), view, self.fresh) };
    }
}

/// An output operand of NumPy's `S`, of a fixed width.
#[derive(Clone, Copy)]
pub struct BytesOut {
    data: *mut u8,
    stride: isize,
    width: usize,
}

impl BytesOut {
    /// Operand `k` of `args`, which must be an `S` operand.
    pub(super) fn new(args: &Args<'_>, k: usize) -> BytesOut {
        let (kind, width) = args.kind_and_size(k);
        assert!(
            kind == b'S',
            "the loop's signature makes operand {k} an S one"
        );
        BytesOut {
            data: args.data[k],
            stride: args.strides[k],
            width,
        }
    }

    /// Writes `bytes`, zero padded as NumPy's `S`, as element `e`; a `ValueError` when
    /// they do not fit.
    #[inline]
    pub fn write(&self, e: Elem, bytes: &[u8]) -> PyResult<()> {
        let width = self.width;
        if bytes.len() > width {
            return Err(PyValueError::new_err(format!(
                "a string of {} bytes does not fit in S{width}",
                bytes.len()
            )));
        }
        let dst = address(self.data, self.stride, e);
        // SAFETY: `e` is an element of this call, and the operand's elements are `width`
        // bytes (checked in `new`); `bytes` is no part of the output.
        unsafe {
            ptr::copy(bytes.as_ptr(), dst, bytes.len());
            ptr::write_bytes(dst.add(bytes.len()), 0, width - bytes.len());
        }
        Ok(())
    }
}

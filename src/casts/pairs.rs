//! What every cast loop shares: its (source, destination) element pairs with typed access
//! to the StringDType end(s), and small facts about the other end's descriptor.

use pyo3::prelude::*;

use crate::descr::StringDescr;
use crate::element::read_view;
use crate::error::CoreResultExt;
use crate::ffi::PyArray_Descr;
use crate::loops::Args;
use stringdtype_core::View;

/// The loop's descriptors and its `n` (source, destination) element pointers.
pub(super) struct Pairs<'a> {
    pub src_descr: *mut PyArray_Descr,
    pub dst_descr: *mut PyArray_Descr,
    src: Option<StringDescr<'a>>,
    dst: Option<StringDescr<'a>>,
    pub src_ptr: *mut u8,
    pub dst_ptr: *mut u8,
    pub src_stride: isize,
    pub dst_stride: isize,
    pub n: isize,
}

impl<'a> Pairs<'a> {
    /// The pairs of a 1-in-1-out loop call.
    pub fn new(args: Args<'a>) -> Pairs<'a> {
        let (src_ptr, src_stride, src_descr) = args.raw(0);
        let (dst_ptr, dst_stride, dst_descr) = args.raw(1);
        Pairs {
            src_descr,
            dst_descr,
            src: args.try_string(0),
            dst: args.try_string(1),
            src_ptr,
            dst_ptr,
            src_stride,
            dst_stride,
            n: args.len(),
        }
    }

    /// Calls `f(src, dst)` for each element pair.
    pub fn for_each(&self, mut f: impl FnMut(*mut u8, *mut u8) -> PyResult<()>) -> PyResult<()> {
        for i in 0..self.n {
            f(self.src_at(i), self.dst_at(i))?;
        }
        Ok(())
    }

    /// The source element of pair `i` (pointer arithmetic only: NumPy guarantees that
    /// every pair lies in its buffers).
    pub fn src_at(&self, i: isize) -> *mut u8 {
        self.src_ptr.wrapping_offset(i * self.src_stride)
    }

    /// The destination element of pair `i`.
    pub fn dst_at(&self, i: isize) -> *mut u8 {
        self.dst_ptr.wrapping_offset(i * self.dst_stride)
    }

    /// Calls `f(bytes, dst)` for each pair, with the source's string (or, for a missing
    /// value, what it becomes in a dtype without one: [`na_text`]), its arena locked for
    /// reading.
    pub fn for_each_source_string(
        &self,
        f: impl FnMut(&[u8], *mut u8) -> PyResult<()>,
    ) -> PyResult<()> {
        self.for_each_source_view_or_string(|_, _| false, f)
    }

    /// [`Pairs::for_each_source_string`], except for the pairs whose work
    /// `from_view(view, dst)` did from the source's view alone (returning true).
    pub fn for_each_source_view_or_string(
        &self,
        mut from_view: impl FnMut(View, *mut u8) -> bool,
        mut f: impl FnMut(&[u8], *mut u8) -> PyResult<()>,
    ) -> PyResult<()> {
        let state = self.src().state();
        let arena = state.arena.read();
        self.for_each(|src, dst| {
            // SAFETY: `src` is an element of the source array.
            let view = unsafe { read_view(src) };
            if from_view(view, dst) {
                return Ok(());
            }
            let bytes = if view.is_na() {
                na_text(state)
            } else {
                arena.get(&view).py()?
            };
            f(bytes, dst)
        })
    }

    /// The source's descriptor, a StringDType (the cast's signature says so).
    pub fn src(&self) -> StringDescr<'a> {
        self.src.expect("the cast's source is a StringDType")
    }

    /// The destination's descriptor, a StringDType (the cast's signature says so).
    pub fn dst(&self) -> StringDescr<'a> {
        self.dst.expect("the cast's destination is a StringDType")
    }
}

/// Defines a cast loop entry point that builds `Pairs` and runs `$body` in the guard.
macro_rules! strided_loop {
    ($(#[$meta:meta])* $vis:vis $name:ident, |$pairs:ident| $body:block) => {
        $crate::loops::ufunc_loop!($(#[$meta])* $vis $name, 2, |args| {
            let $pairs = $crate::casts::pairs::Pairs::new(args);
            $body
        });
    };
}
pub(super) use strided_loop;

pub(super) use crate::missing::na_text;

/// The element size of a (fixed-width) descriptor.
pub(super) fn elsize(descr: *const PyArray_Descr) -> usize {
    // SAFETY: a live descriptor.
    unsafe { (*descr).elsize as usize }
}

/// Whether a descriptor's kind is one of `kinds`.
pub(super) fn is_kind(descr: *const PyArray_Descr, kinds: &[u8]) -> bool {
    // SAFETY: a live descriptor.
    kinds.contains(&(unsafe { (*descr).kind } as u8))
}

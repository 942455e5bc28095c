//! What every cast loop shares: its (source, destination) element pairs with typed access
//! to the StringDType end(s), and small facts about the other end's descriptor.

use pyo3::prelude::*;

use crate::descr::StringDescr;
use crate::element::{is_fresh_destination, read_view, replace_element, write_view};
use crate::error::{to_py, CoreResultExt};
use crate::ffi::PyArray_Descr;
use crate::loops::Args;
use stringdtype_core::{Arena, Error as CoreError, View};

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

    /// Whether the destination, whose arena is `arena`, can be written by
    /// [`Pairs::store_in_place`]: its arena holds no long string (a new array, or one of
    /// inline strings; [`is_fresh_destination`]). Any other is written by
    /// [`Pairs::store_after`]. Both leave the destination as it was when a string fails
    /// to convert or to be stored, and release what was stored.
    ///
    /// The two are called apart, each with its own closure, so that the compiler
    /// inlines each closure into its loop: one loop for both, or one closure for both
    /// functions, counted up to 1.13x the instructions of `from_U` (docs/performance.md,
    /// "Casts into new arrays written in place").
    pub fn in_place(&self, arena: &Arena) -> bool {
        is_fresh_destination(arena, self.dst_stride)
    }

    /// Writes `make(src, arena)`, a view stored in `arena` (the destination's, locked)
    /// for the source element `src`, to each destination element as it is made, the
    /// old element kept aside unless all zero bits (a new array's are); after an error
    /// the views written are released and the old elements put back. Only where
    /// [`Pairs::in_place`] says so: the old elements then hold no string to release.
    #[inline(always)]
    pub fn store_in_place(
        &self,
        arena: &mut Arena,
        mut make: impl FnMut(*mut u8, &mut Arena) -> PyResult<View>,
    ) -> PyResult<()> {
        let mut kept: Vec<(isize, View)> = Vec::new();
        let mut made = 0;
        let stored = (0..self.n).try_for_each(|i| {
            let dst = self.dst_at(i);
            // SAFETY: `dst` is an element of the destination array.
            let old = unsafe { read_view(dst) };
            if old != View::EMPTY {
                let size = size_of::<(isize, View)>();
                kept.try_reserve(1)
                    .map_err(|_| to_py(CoreError::OutOfMemory(size)))?;
                kept.push((i, old));
            }
            let view = make(self.src_at(i), arena)?;
            // SAFETY: as above. The old element holds no string of `arena`.
            unsafe { write_view(dst, view) };
            made = i + 1;
            Ok(())
        });
        if let Err(err) = stored {
            self.undo(arena, made, kept);
            return Err(err);
        }
        Ok(())
    }

    /// Puts the destination back after [`Pairs::store_in_place`] failed: the views of
    /// its first `made` elements released, those elements zeroed, the `kept` old ones
    /// written back.
    #[cold]
    #[inline(never)]
    fn undo(&self, arena: &mut Arena, made: isize, kept: Vec<(isize, View)>) {
        for i in 0..made {
            let dst = self.dst_at(i);
            // SAFETY: as above; the element holds a view made here.
            unsafe {
                arena.release(read_view(dst));
                write_view(dst, View::EMPTY);
            }
        }
        for (i, old) in kept {
            // SAFETY: as above.
            unsafe { write_view(self.dst_at(i), old) };
        }
    }

    /// Writes `make(src, arena)` (as for [`Pairs::store_in_place`]) to each destination
    /// element once every view was made, releasing the old elements' strings then; after
    /// an error the views made are released and the destination is untouched.
    #[inline(always)]
    pub fn store_after(
        &self,
        arena: &mut Arena,
        mut make: impl FnMut(*mut u8, &mut Arena) -> PyResult<View>,
    ) -> PyResult<()> {
        let n = self.n.max(0) as usize;
        let mut views = Vec::new();
        let reserved = views.try_reserve_exact(n);
        reserved.map_err(|_| to_py(CoreError::OutOfMemory(n.saturating_mul(16))))?;
        let made = self.for_each(|src, _| {
            views.push(make(src, arena)?);
            Ok(())
        });
        if let Err(err) = made {
            for &view in &views {
                arena.release(view);
            }
            return Err(err);
        }
        let mut views = views.into_iter();
        self.for_each(|_, dst| {
            let view = views.next().expect("a view per element");
            // SAFETY: `dst` is an element of the destination array, whose arena is `arena`.
            unsafe { replace_element(arena, dst, view) };
            Ok(())
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

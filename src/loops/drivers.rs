//! The loop drivers, one per shape of result: [`values_out`] (a bool or int64 per
//! element), [`strings_out`] (one string output) and [`parts_out`] (several, as
//! `partition`). The two with string results own the rule of where results are built:
//! when no input shares an output's arena (a new array, or `out=` another one), a result
//! goes straight from the inputs' arenas into the output's; otherwise it is copied out
//! of the locked arenas first, since storing a result may reuse the hole that an input's
//! overwritten string left.
//!
//! A driver runs over a range of the call's elements ([`Elems`]), so that a call can be
//! split between threads, each with its own range. Loops with a whole-call fast path
//! (`==` with a scalar, `str_len` in batches) read and write through the operand views
//! themselves.

use pyo3::prelude::*;
use stringdtype_core::arena::PartArena;
use stringdtype_core::{Arena, View};

use super::pool::{cut, in_parts, on_pool, part_span, split_threads};
use super::{Elem, Elems, Strings, StringsOut, Value, Values};
use crate::arenas::{ArenaLocks, Readers};
use crate::error::CoreResultExt;

/// The result of one element of a loop with string results, as its kernel gives it: a
/// driver stores it in the output's arena.
pub enum Piece<'r> {
    /// A missing value.
    Missing,
    /// These bytes: a part of an input, or what the kernel wrote to its scratch buffer.
    Bytes(&'r [u8]),
    /// The bytes that `map` makes of `src`, as many as `src` holds (the ASCII case
    /// conversions): the driver has `map` write them straight into the result's block,
    /// where the kernel writing a scratch buffer ([`Piece::Bytes`]) made two copies.
    Mapped(&'r [u8], fn(&[u8], &mut [u8])),
    /// The concatenation of two parts.
    Concat([&'r [u8]; 2]),
    /// `unit` repeated `count` times; the kernel has checked that the result's length
    /// is a string's.
    Repeat(&'r [u8], usize),
    /// The output's element already holds the result (an in-place call).
    Unchanged,
}

impl<'r> From<Option<&'r [u8]>> for Piece<'r> {
    #[inline(always)]
    fn from(bytes: Option<&'r [u8]>) -> Piece<'r> {
        match bytes {
            Some(bytes) => Piece::Bytes(bytes),
            None => Piece::Missing,
        }
    }
}

impl Piece<'_> {
    /// Stores the piece in `arena`: its view, or `None` for [`Piece::Unchanged`].
    #[inline(always)]
    fn store(self, arena: &mut Arena) -> PyResult<Option<View>> {
        Ok(Some(match self {
            Piece::Missing => View::NA,
            Piece::Bytes(bytes) => arena.store(bytes).py()?,
            Piece::Mapped(src, map) => arena.store_mapped(src, map).py()?,
            Piece::Concat(parts) => arena.store_parts(&parts).py()?,
            Piece::Repeat(unit, count) => arena.store_repeat(unit, count).py()?,
            Piece::Unchanged => return Ok(None),
        }))
    }
}

/// Runs a loop with one bool or int64 output over `elems`: `element(e)` gives element
/// `e`'s value. An error stops the loop; the elements before it keep their values. A
/// large call is split between the pool's threads ([`in_parts`]), with the same result.
#[inline(always)]
pub fn values_out<T: Value>(
    elems: Elems,
    out: Values<T>,
    element: impl Fn(Elem) -> PyResult<T> + Sync,
) -> PyResult<()> {
    in_parts(elems, out, move |part| {
        for e in part {
            out.set(e, element(e)?);
        }
        Ok(())
    })
}

/// Locks the arenas of a loop's string operands: `inputs` for reading, then `outputs`
/// for writing, in the order the drivers index them (input `k` is lock `k`, output `j`
/// lock `N + j`).
pub fn lock<'a, const N: usize>(
    inputs: &[Strings<'a>; N],
    outputs: &[StringsOut<'a>],
) -> ArenaLocks<'a> {
    let count = N + outputs.len();
    assert!(
        !outputs.is_empty() && count <= 6,
        "one to six operands, an output among them"
    );
    let mut arenas = [&outputs[0].state().arena; 6];
    let operands = inputs
        .iter()
        .map(Strings::state)
        .chain(outputs.iter().map(StringsOut::state));
    for (slot, state) in arenas.iter_mut().zip(operands) {
        *slot = &state.arena;
    }
    ArenaLocks::new(&arenas[..count], N)
}

/// Runs a loop with one string output over `elems`, its string operands locked by
/// [`lock`] (`&[inputs], &[out]`): `shortcut(e, views)` may give element `e`'s result
/// from the input views alone (an inline view computed in registers); else
/// `element(e, views, readers, scratch)` gives it as a [`Piece`] borrowing from the
/// inputs' arenas (`readers`, input `k` at `k`) or from `scratch` (cleared for each
/// element).
///
/// When the output's arena is no input's, results are stored in it as they come. Else
/// each result is held in a buffer while the arenas are read, then stored, one element
/// at a time: an accumulation (`np.maximum.accumulate`) reads as input the output
/// element written just before. Either way one function ([`fill`]) calls `element`, so
/// that the compiler inlines the kernel into the loop.
///
/// A large call whose output is fresh (a new array: no element holds a string of its
/// arena) and shares no input's arena is split between the pool's threads
/// ([`fill_in_parts`]), with the same result; [`strings_out_mut`] is the loop for
/// kernels that keep state between elements, on the calling thread. Each worker runs a
/// clone of `element`, as the calling thread runs its own: one instance of [`fill`]
/// per kernel, with the kernel inlined (workers calling it through a reference made a
/// second instance, and cost `upper` 12 % more instructions on one thread, `strip`
/// 21 % when the calling thread used the reference too).
#[inline(always)]
pub fn strings_out<'a, const N: usize, S, F>(
    elems: Elems,
    locks: &mut ArenaLocks<'a>,
    inputs: [Strings<'a>; N],
    out: StringsOut<'a>,
    shortcut: S,
    element: F,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<View> + Sync,
    F: for<'r> Fn(Elem, &'r [View; N], &'r Readers<'r, 'a>, &'r mut Vec<u8>) -> PyResult<Piece<'r>>
        + Sync
        + Clone,
{
    let out = out.bind(locks.get(N));
    let kernel = Kernel {
        inputs,
        out,
        shortcut,
    };
    if let Some(threads) = split_threads(elems.len()).filter(|_| out.is_fresh()) {
        if let Some((readers, writer)) = locks.split(N) {
            return fill_in_parts(elems, &kernel, &element, &readers, writer, threads);
        }
    }
    on_this_thread(elems, locks, kernel, element)
}

/// [`strings_out`] for a kernel that keeps state between elements (`FnMut`): always on
/// the calling thread.
pub fn strings_out_mut<'a, const N: usize, S, F>(
    elems: Elems,
    locks: &mut ArenaLocks<'a>,
    inputs: [Strings<'a>; N],
    out: StringsOut<'a>,
    shortcut: S,
    element: F,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<View>,
    F: for<'r> FnMut(
        Elem,
        &'r [View; N],
        &'r Readers<'r, 'a>,
        &'r mut Vec<u8>,
    ) -> PyResult<Piece<'r>>,
{
    let out = out.bind(locks.get(N));
    let kernel = Kernel {
        inputs,
        out,
        shortcut,
    };
    on_this_thread(elems, locks, kernel, element)
}

/// The loop of [`strings_out`] on the calling thread.
#[inline(always)]
fn on_this_thread<'a, const N: usize, S, F>(
    elems: Elems,
    locks: &mut ArenaLocks<'a>,
    kernel: Kernel<'a, N, S>,
    mut element: F,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<View>,
    F: for<'r> FnMut(
        Elem,
        &'r [View; N],
        &'r Readers<'r, 'a>,
        &'r mut Vec<u8>,
    ) -> PyResult<Piece<'r>>,
{
    let mut scratch = Vec::new();
    if let Some((readers, writer)) = locks.split(N) {
        let sink = Sink::Direct(writer);
        return fill(elems, &kernel, &mut element, &readers, sink, &mut scratch);
    }
    let mut held = Held::default();
    for one in elems.chunks(1) {
        let sink = Sink::Held(&mut held);
        fill(
            one.clone(),
            &kernel,
            &mut element,
            &locks.readers(),
            sink,
            &mut scratch,
        )?;
        held.store(one, &kernel.out, locks.get_mut(N))?;
    }
    Ok(())
}

/// One part of a call split by [`fill_in_parts`]: its elements, the arena its results
/// go to, and the views its elements held before.
struct Part {
    elems: Elems,
    arena: PartArena,
    saved: Vec<View>,
}

/// The parallel half of [`strings_out`]: the output's arena (`writer`, fresh) reserves
/// a [`PartArena`] for each part of the call, each worker stores its part's results in
/// its own and writes their views, and the output's arena then takes the parts' chunks
/// back, so the views stay as written.
///
/// The result is one thread's. On an error, the first part in element order that
/// failed gives it; its chunks and those of the parts before it are kept (their
/// elements hold what one thread would have written), and the parts after it get their
/// old views back and are dropped with their chunks. A part that ran out of chunk ids
/// is redone, with everything after it, on this thread in the output's arena.
#[inline(never)]
fn fill_in_parts<'a, const N: usize, S, F>(
    elems: Elems,
    kernel: &Kernel<'a, N, S>,
    element: &F,
    readers: &Readers<'_, 'a>,
    writer: &mut Arena,
    threads: usize,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<View> + Sync,
    F: for<'r> Fn(Elem, &'r [View; N], &'r Readers<'r, 'a>, &'r mut Vec<u8>) -> PyResult<Piece<'r>>
        + Sync
        + Clone,
{
    let mut scratch = Vec::new();
    let ranges = cut(&elems, threads);
    let Ok(arenas) = writer.reserve_parts(ranges.len(), part_span()) else {
        let sink = Sink::Direct(writer);
        return fill(
            elems,
            kernel,
            &mut element.clone(),
            readers,
            sink,
            &mut scratch,
        );
    };
    let mut parts: Vec<Part> = ranges
        .into_iter()
        .zip(arenas)
        .map(|(elems, arena)| Part {
            elems,
            arena,
            saved: Vec::new(),
        })
        .collect();
    let results = on_pool(threads, &mut parts, &|_, part| {
        let elems = part.elems.clone();
        part.saved = kernel.out.save(elems.clone());
        let sink = Sink::Direct(part.arena.arena());
        fill(
            elems,
            kernel,
            &mut element.clone(),
            readers,
            sink,
            &mut Vec::new(),
        )
    });
    let Some(mut results) = results else {
        // No worker ran: the reserved ids stay unused.
        let sink = Sink::Direct(writer);
        return fill(
            elems,
            kernel,
            &mut element.clone(),
            readers,
            sink,
            &mut scratch,
        );
    };
    let failed = results.iter().position(Result::is_err);
    let keep = failed.map_or(parts.len(), |f| f + 1);
    for part in &parts[keep..] {
        kernel.out.restore(part.elems.clone(), &part.saved);
    }
    let redo = failed.filter(|&f| parts[f].arena.is_exhausted());
    if let Some(f) = redo {
        let part = &parts[f];
        kernel.out.restore(part.elems.clone(), &part.saved);
        let rest = elems.starting_at(part.elems.first().expect("parts are not empty"));
        writer.absorb_parts(parts.into_iter().map(|p| p.arena).collect(), f);
        let sink = Sink::Direct(writer);
        return fill(
            rest,
            kernel,
            &mut element.clone(),
            readers,
            sink,
            &mut scratch,
        );
    }
    writer.absorb_parts(parts.into_iter().map(|p| p.arena).collect(), keep);
    match failed {
        Some(f) => results.swap_remove(f),
        None => Ok(()),
    }
}

/// What [`fill`] needs of a loop besides its element function.
struct Kernel<'a, const N: usize, S> {
    inputs: [Strings<'a>; N],
    out: StringsOut<'a>,
    shortcut: S,
}

/// Where [`fill`] puts results: the output's arena, or a buffer.
enum Sink<'w> {
    Direct(&'w mut Arena),
    Held(&'w mut Held),
}

/// Results held before they are stored: each a view (inline, or missing), a span of
/// `bytes` to store, that span repeated, or nothing to write.
#[derive(Default)]
struct Held {
    bytes: Vec<u8>,
    results: Vec<HeldResult>,
}

enum HeldResult {
    View(View),
    Bytes(usize, usize),
    Repeat(usize, usize, usize),
    Unchanged,
}

impl Held {
    /// Holds `piece`, copying its bytes.
    fn hold(&mut self, piece: Piece<'_>) {
        let start = self.bytes.len();
        let result = match piece {
            Piece::Missing => HeldResult::View(View::NA),
            Piece::Unchanged => HeldResult::Unchanged,
            Piece::Bytes(bytes) => {
                self.bytes.extend_from_slice(bytes);
                HeldResult::Bytes(start, self.bytes.len())
            }
            Piece::Mapped(src, map) => {
                self.bytes.resize(start + src.len(), 0);
                map(src, &mut self.bytes[start..]);
                HeldResult::Bytes(start, self.bytes.len())
            }
            Piece::Concat([x, y]) => {
                self.bytes.extend_from_slice(x);
                self.bytes.extend_from_slice(y);
                HeldResult::Bytes(start, self.bytes.len())
            }
            Piece::Repeat(unit, count) => {
                self.bytes.extend_from_slice(unit);
                HeldResult::Repeat(start, self.bytes.len(), count)
            }
        };
        self.results.push(result);
    }

    /// Stores the held results as the elements of `batch` of `out`, whose arena is
    /// `arena`, and empties the buffer.
    fn store(&mut self, batch: Elems, out: &StringsOut<'_>, arena: &mut Arena) -> PyResult<()> {
        for (e, result) in batch.zip(self.results.drain(..)) {
            let piece = match result {
                HeldResult::View(view) => {
                    out.write_view(arena, e, view);
                    continue;
                }
                HeldResult::Bytes(start, end) => Piece::Bytes(&self.bytes[start..end]),
                HeldResult::Repeat(start, end, count) => {
                    Piece::Repeat(&self.bytes[start..end], count)
                }
                HeldResult::Unchanged => continue,
            };
            if let Some(view) = piece.store(arena)? {
                out.write_view(arena, e, view);
            }
        }
        self.bytes.clear();
        Ok(())
    }
}

/// The loop of [`strings_out`] over `elems`, reading the inputs through `readers` and
/// putting results in `sink`. Never inlined: its two callers would each get a copy of
/// the kernel, which the compiler then keeps out of line.
#[inline(never)]
fn fill<'a, const N: usize, S, F>(
    elems: Elems,
    kernel: &Kernel<'a, N, S>,
    element: &mut F,
    readers: &Readers<'_, 'a>,
    mut sink: Sink<'_>,
    scratch: &mut Vec<u8>,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<View>,
    F: for<'r> FnMut(
        Elem,
        &'r [View; N],
        &'r Readers<'r, 'a>,
        &'r mut Vec<u8>,
    ) -> PyResult<Piece<'r>>,
{
    for e in elems {
        let views = std::array::from_fn(|k| kernel.inputs[k].view(e));
        if let Some(view) = (kernel.shortcut)(e, &views) {
            match &mut sink {
                Sink::Direct(arena) => kernel.out.write_view(arena, e, view),
                Sink::Held(held) => held.results.push(HeldResult::View(view)),
            }
            continue;
        }
        scratch.clear();
        let piece = element(e, &views, readers, scratch)?;
        match &mut sink {
            Sink::Direct(arena) => {
                if let Some(view) = piece.store(arena)? {
                    kernel.out.write_view(arena, e, view);
                }
            }
            Sink::Held(held) => held.hold(piece),
        }
    }
    Ok(())
}

/// Runs a loop with `M` string outputs (the parts of `partition`) over `elems`, its
/// string operands locked by [`lock`] (`&inputs, &outputs`): `shortcut(e, views)` may
/// give element `e`'s parts as inline views; else `element(e, views, arenas)` gives them
/// as bytes in the inputs' arenas (input `k` at `k`).
#[inline(always)]
pub fn parts_out<'a, const N: usize, const M: usize, S, F>(
    elems: Elems,
    locks: &mut ArenaLocks<'a>,
    inputs: [Strings<'a>; N],
    outputs: [StringsOut<'a>; M],
    shortcut: S,
    mut element: F,
) -> PyResult<()>
where
    S: Fn(Elem, &[View; N]) -> Option<[View; M]>,
    F: for<'r> FnMut(Elem, &'r [View; N], [&'r Arena; N]) -> PyResult<[&'r [u8]; M]>,
{
    let outputs: [StringsOut<'a>; M] = std::array::from_fn(|j| outputs[j].bind(locks.get(N + j)));
    if let Some((readers, mut writers)) = locks.distinct_outputs::<N, M>() {
        for e in elems {
            let views = std::array::from_fn(|k| inputs[k].view(e));
            if let Some(parts) = shortcut(e, &views) {
                for ((out, writer), view) in outputs.iter().zip(&mut writers).zip(parts) {
                    out.write_view(writer, e, view);
                }
                continue;
            }
            let parts = element(e, &views, readers)?;
            for ((out, writer), part) in outputs.iter().zip(&mut writers).zip(parts) {
                let view = writer.store(part).py()?;
                out.write_view(writer, e, view);
            }
        }
        return Ok(());
    }
    let mut scratch = Vec::new();
    for e in elems {
        let views = std::array::from_fn(|k| inputs[k].view(e));
        if let Some(parts) = shortcut(e, &views) {
            for (j, (out, view)) in outputs.iter().zip(parts).enumerate() {
                out.write_view(locks.get_mut(N + j), e, view);
            }
            continue;
        }
        let sizes = {
            let arenas = std::array::from_fn(|k| locks.get(k));
            let parts = element(e, &views, arenas)?;
            scratch.clear();
            parts.map(|part| {
                scratch.extend_from_slice(part);
                part.len()
            })
        };
        let mut start = 0;
        for (j, (out, size)) in outputs.iter().zip(sizes).enumerate() {
            let part = &scratch[start..start + size];
            start += size;
            out.write(locks.get_mut(N + j), e, Some(part))?;
        }
    }
    Ok(())
}

//! Imports on every core: the element loop of a large plain import cut into parts that
//! the glue's thread pool runs ([`set_part_runner`]), each part storing the long strings
//! it copies into a region of its own (a packed chunk, [`Arena::new_region`]) while the
//! arena is only read. See docs/design.md, "Imports on every core".

use std::ops::Range;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::error::ArrowError;
use crate::arena::{Arena, Packed, RegionToken, RegionWriter, MAX_CHUNK};
use crate::error::{Error, Result};
use crate::view::View;

/// Where the element loops store long strings they copy: a [`Packed`] writer on one
/// thread, a part's region on many.
pub(super) trait LongStore {
    /// Stores `data` and returns its view.
    fn store(&mut self, data: &[u8]) -> Result<View>;
    /// The arena (for [`Arena::adopted_view`]).
    fn arena(&self) -> &Arena;
}

impl LongStore for Packed<'_> {
    #[inline(always)]
    fn store(&mut self, data: &[u8]) -> Result<View> {
        Packed::store(self, data)
    }

    #[inline(always)]
    fn arena(&self) -> &Arena {
        Packed::arena(self)
    }
}

impl<T: LongStore> LongStore for &mut T {
    #[inline(always)]
    fn store(&mut self, data: &[u8]) -> Result<View> {
        T::store(self, data)
    }

    #[inline(always)]
    fn arena(&self) -> &Arena {
        T::arena(self)
    }
}

/// A part's store: its region's writer, or none when the part copies nothing.
pub(super) struct PartStore<'a> {
    arena: &'a Arena,
    writer: Option<RegionWriter<'a>>,
}

impl LongStore for PartStore<'_> {
    #[inline(always)]
    fn store(&mut self, data: &[u8]) -> Result<View> {
        match &mut self.writer {
            Some(writer) => writer.store(data),
            None => Err(Error::ArenaFull("a string that its part did not count")),
        }
    }

    #[inline(always)]
    fn arena(&self) -> &Arena {
        self.arena
    }
}

/// How many threads a call over `len` elements uses (`None`: the calling thread alone).
pub type Split = fn(len: usize) -> Option<usize>;
/// Runs `work(k)` for every `k < parts` on worker threads and returns when all have
/// (a panic ends that call only); `false` when the workers could not start (nothing ran).
pub type Runner = fn(parts: usize, work: &(dyn Fn(usize) + Sync)) -> bool;

static RUNNER: OnceLock<(Split, Runner)> = OnceLock::new();

/// Sets how large imports are split between threads and run (once; later calls are
/// ignored). Without it, imports run on the calling thread.
pub fn set_part_runner(split: Split, run: Runner) {
    let _ = RUNNER.set((split, run));
}

/// The element ranges a loop over `len` elements is cut into, two per thread, or `None`
/// to run it on the calling thread.
pub(super) fn part_ranges(len: usize) -> Option<Vec<Range<usize>>> {
    let threads = RUNNER.get().and_then(|(split, _)| split(len))?;
    let size = len.div_ceil(threads.saturating_mul(2)).max(1);
    let ranges: Vec<_> = (0..len)
        .step_by(size)
        .map(|start| start..(start + size).min(len))
        .collect();
    (ranges.len() >= 2).then_some(ranges)
}

/// Runs `work(k)` for every `k < parts`, on the pool, or here when it cannot start.
pub(super) fn run(parts: usize, work: &(dyn Fn(usize) + Sync)) {
    let started = RUNNER.get().is_some_and(|(_, run)| run(parts, work));
    if !started {
        (0..parts).for_each(work);
    }
}

/// `count(k)` for every `k < parts`, counted on the pool (a part whose thread stopped
/// counts 0: its loop then fails the import).
pub(super) fn count_parts(parts: usize, count: &(dyn Fn(usize) -> usize + Sync)) -> Vec<usize> {
    let counts: Vec<_> = (0..parts).map(|_| Mutex::new(0usize)).collect();
    run(parts, &|k| {
        let bytes = count(k);
        *counts[k].lock().unwrap_or_else(PoisonError::into_inner) = bytes;
    });
    (counts.into_iter())
        .map(|count| count.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

/// Whether parts copying `copied[k]` bytes each fit regions (one chunk each).
pub(super) fn fit_regions(copied: &[usize]) -> bool {
    copied.iter().all(|&bytes| bytes <= MAX_CHUNK)
}

/// An element loop over one part: `(out, first, store)` fills `out`, the elements from
/// `first` on, and returns the first error, its indices counted from `first` (as the
/// element loops count them over a part's strings).
pub(super) type PartLoop<'f> = dyn Fn(&mut [View], usize, &mut PartStore<'_>) -> std::result::Result<(), (usize, ArrowError)>
    + Sync
    + 'f;

/// Fills `out` part by part (`ranges`, each copying `copied[k]` bytes into a region of
/// its own) with `fill`, on the pool. On success the regions' strings count in the
/// arena; on error (the first element's in order, its indices shifted to count in the
/// whole of `out`) the regions are let go of again and `out` must not be read (no view
/// of it is to be released).
pub(super) fn fill_in_parts(
    out: &mut [View],
    arena: &mut Arena,
    ranges: &[Range<usize>],
    copied: &[usize],
    fill: &PartLoop<'_>,
) -> std::result::Result<(), ArrowError> {
    let mut tokens: Vec<Option<RegionToken>> = Vec::with_capacity(ranges.len());
    for (range, &bytes) in ranges.iter().zip(copied) {
        let token = (bytes > 0).then(|| arena.new_region(bytes)).transpose();
        match token {
            Ok(token) => tokens.push(token),
            Err(error) => {
                drop_regions(arena, tokens);
                let index = range.start;
                return Err(ArrowError::Element { index, error });
            }
        }
    }
    let (results, tokens) = run_parts(out, arena, ranges, tokens, fill);
    let failed = results.into_iter().zip(ranges).find_map(|(result, range)| {
        let stopped = || {
            let error = Error::ArenaFull("an import thread stopped");
            ArrowError::Element {
                index: range.start,
                error,
            }
        };
        match result {
            Some(Ok(())) => None,
            Some(Err((_, error))) => Some(error.offset_index(range.start)),
            None => Some(stopped()),
        }
    });
    match failed {
        None => {
            tokens
                .into_iter()
                .flatten()
                .for_each(|t| arena.finish_region(t));
            Ok(())
        }
        Some(error) => {
            drop_regions(arena, tokens);
            Err(error)
        }
    }
}

/// A part on its way through the pool: its elements, the index of the first, its store
/// and, once it ran, what came of it.
struct Part<'a, 'o> {
    out: &'o mut [View],
    first: usize,
    store: PartStore<'a>,
    result: Option<std::result::Result<(), (usize, ArrowError)>>,
}

/// The parallel step of [`fill_in_parts`]: each part's result (`None`: its thread
/// stopped) and its region's token back.
#[allow(clippy::type_complexity)]
fn run_parts(
    mut out: &mut [View],
    arena: &Arena,
    ranges: &[Range<usize>],
    tokens: Vec<Option<RegionToken>>,
    fill: &PartLoop<'_>,
) -> (
    Vec<Option<std::result::Result<(), (usize, ArrowError)>>>,
    Vec<Option<RegionToken>>,
) {
    let mut parts = Vec::with_capacity(ranges.len());
    for (range, token) in ranges.iter().zip(tokens) {
        let (head, rest) = std::mem::take(&mut out).split_at_mut(range.len());
        out = rest;
        let writer = token.map(|token| token.writer(arena));
        parts.push(Mutex::new(Part {
            out: head,
            first: range.start,
            store: PartStore { arena, writer },
            result: None,
        }));
    }
    run(parts.len(), &|k| {
        let mut part = parts[k].lock().unwrap_or_else(PoisonError::into_inner);
        let Part {
            out, first, store, ..
        } = &mut *part;
        let result = fill(out, *first, store);
        part.result = Some(result);
    });
    parts
        .into_iter()
        .map(|part| {
            let part = part.into_inner().unwrap_or_else(PoisonError::into_inner);
            (part.result, part.store.writer.map(RegionWriter::done))
        })
        .unzip()
}

fn drop_regions(arena: &mut Arena, tokens: Vec<Option<RegionToken>>) {
    tokens
        .into_iter()
        .flatten()
        .for_each(|t| arena.drop_region(t));
}

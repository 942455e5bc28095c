//! Import of `string_view` arrays ([`fill_views`]): views checked and copied as the 16
//! bytes they are where inline, long strings read in place from adopted buffers or copied
//! into packed chunks, on the calling thread or in parts on the thread pool.

use std::ops::Range;
use std::sync::Arc;

use super::adopt::{adopt_buffers, unadopt_on_error};
use super::buffers::is_valid;
use super::element::{prefetch, release_on_error, PREFETCH_AHEAD};
use super::error::ArrowError;
use super::kept::Kept;
use super::parts::{count_parts, fill_in_parts, fit_regions, part_ranges, LongStore, PartStore};
use super::strings::ViewStrings;
use crate::arena::Arena;
use crate::view::{View, MAX_INLINE_LEN};

/// [`fill`] for `string_view` arrays, in one pass as [`fill_offsets`]: an inline element
/// is checked and copied as the 16 bytes it is, without looking at it as a string.
pub(super) fn fill_views(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &ViewStrings<'_>,
    kept: &Arc<Kept>,
) -> Result<(), ArrowError> {
    let views = || strings.views.chunks_exact(16).enumerate();
    // With the loop cut into parts, their long strings are counted on the pool.
    let ranges = part_ranges(out.len());
    let long_by_part = (ranges.as_ref()).map(|ranges| copied_by_part(strings, ranges, None));
    let long_bytes = match &long_by_part {
        Some(by_part) => by_part.iter().fold(0usize, |sum, &b| sum.saturating_add(b)),
        None => copied_bytes(strings, 0..out.len(), None),
    };
    // The long strings' bytes by data buffer: with one buffer, all of them (a view naming
    // another buffer is an error below); else counted in a second pass, unless they are
    // too few to be worth adopting whatever buffers hold them (the views buffer alone
    // pins more than twice their bytes).
    let mut by_buffer = vec![0usize; strings.data.len()];
    match &mut by_buffer[..] {
        [] => {}
        [only] => *only = long_bytes,
        _ if long_bytes.saturating_mul(2) < strings.views.len() => {}
        by_buffer => {
            for (index, view) in views() {
                let word = |at| u32::from_le_bytes(view[at..at + 4].try_into().expect("4 bytes"));
                let len = word(0) as usize;
                if len > MAX_INLINE_LEN && is_valid(strings.validity, index) {
                    if let Some(bytes) = by_buffer.get_mut(word(8) as usize) {
                        *bytes = bytes.saturating_add(len);
                    }
                }
            }
        }
    }
    let adopted = adopt_buffers(arena, kept, &strings.data, &by_buffer, strings.views.len());
    let kept_bytes: usize = (by_buffer.iter().zip(&adopted))
        .filter(|(_, adopted)| adopted.is_some())
        .map(|(bytes, _)| bytes)
        .fold(0, |sum, &bytes| sum.saturating_add(bytes));
    let copied = long_bytes.saturating_sub(kept_bytes);
    let filled = match (ranges, long_by_part) {
        (Some(ranges), Some(long_by_part)) => {
            let parts = (&ranges[..], long_by_part);
            fill_views_in_parts(out, arena, allow_na, strings, &adopted, parts, copied)
        }
        _ => views_on_one_thread(out, arena, allow_na, strings, &adopted, copied),
    };
    let released = release_on_error(out, arena, filled);
    unadopt_on_error(arena, &adopted, released)
}

/// The bytes of the long strings of each part (`ranges`) that are copied: all of them, or
/// those not in a buffer that is `adopted`; counted on the pool.
#[inline(never)]
fn copied_by_part(
    strings: &ViewStrings<'_>,
    ranges: &[Range<usize>],
    adopted: Option<&[Option<u32>]>,
) -> Vec<usize> {
    count_parts(ranges.len(), &|k| {
        copied_bytes(strings, ranges[k].clone(), adopted)
    })
}

/// The bytes of the long strings of the elements `range` that are copied: all of them,
/// or those not in a buffer that is `adopted`.
#[inline]
fn copied_bytes(
    strings: &ViewStrings<'_>,
    range: Range<usize>,
    adopted: Option<&[Option<u32>]>,
) -> usize {
    let views = strings.views[range.start * 16..range.end * 16].chunks_exact(16);
    let word = |view: &[u8], at| u32::from_le_bytes(view[at..at + 4].try_into().expect("4"));
    let long = (range.zip(views)).filter(|&(index, view)| {
        word(view, 0) as usize > MAX_INLINE_LEN && is_valid(strings.validity, index)
    });
    match adopted {
        None => long
            .map(|(_, view)| word(view, 0) as usize)
            .fold(0usize, usize::saturating_add),
        Some(adopted) => long
            .filter(|(_, view)| (adopted.get(word(view, 8) as usize)).is_none_or(Option::is_none))
            .map(|(_, view)| word(view, 0) as usize)
            .fold(0usize, usize::saturating_add),
    }
}

/// [`fill_views`]' element loop on the calling thread, `copied` bytes to copy (a function
/// of its own: beside the parallel branch, which takes the operands' addresses, the loop
/// reloaded them on every element).
#[inline(never)]
fn views_on_one_thread(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &ViewStrings<'_>,
    adopted: &[Option<u32>],
    copied: usize,
) -> Result<(), (usize, ArrowError)> {
    let n = out.len();
    let packed = arena.packed(copied);
    // Two loops: one that adopts buffers, and the copying one as it was.
    if adopted.iter().any(Option::is_some) {
        fill_views_loop::<true, _>(out, packed, allow_na, strings, (adopted, n))
    } else {
        fill_views_loop::<false, _>(out, packed, allow_na, strings, (adopted, n))
    }
}

/// [`fill_views`]' element loop cut into `ranges` for the thread pool, `copied` bytes to
/// copy in all, each part into a region of its own sized by its long strings
/// (`long_by_part`), or, where some buffers are adopted, by those it copies (counted
/// again on the pool). An error comes with 0: nothing to release.
#[inline(never)]
fn fill_views_in_parts(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &ViewStrings<'_>,
    adopted: &[Option<u32>],
    (ranges, long_by_part): (&[Range<usize>], Vec<usize>),
    copied: usize,
) -> Result<(), (usize, ArrowError)> {
    let n = out.len();
    let any_adopted = adopted.iter().any(Option::is_some);
    let by_part = match (any_adopted, copied) {
        (false, _) => long_by_part,
        (true, 0) => vec![0; ranges.len()],
        (true, _) => copied_by_part(strings, ranges, Some(adopted)),
    };
    if !fit_regions(&by_part) {
        let packed = arena.packed(copied);
        return fill_views_loop::<true, _>(out, packed, allow_na, strings, (adopted, n));
    }
    let fill = |out: &mut [View], first: usize, store: &mut PartStore<'_>| {
        let part = strings.from(first);
        if any_adopted {
            fill_views_loop::<true, _>(out, store, allow_na, &part, (adopted, n))
        } else {
            fill_views_loop::<false, _>(out, store, allow_na, &part, (adopted, n))
        }
    };
    fill_in_parts(out, arena, ranges, &by_part, &fill).map_err(|error| (0, error))
}

/// The element loop of [`fill_views`] (or of a part of it, `strings` then counting from
/// the part's first element): long strings of the `adopted` buffers get views into their
/// chunks when `ADOPT`, the others are stored by `packed`; the data buffers serve
/// `elements` elements in all. An error comes with the number of elements written
/// before it.
#[inline(always)]
fn fill_views_loop<const ADOPT: bool, S: LongStore>(
    out: &mut [View],
    mut packed: S,
    allow_na: bool,
    strings: &ViewStrings<'_>,
    (adopted, elements): (&[Option<u32>], usize),
) -> Result<(), (usize, ArrowError)> {
    let views = strings.views.chunks_exact(16).enumerate();
    // As in `fill_offsets_of`: the strings of adopted buffers, 128 bytes long on average,
    // are prefetched a few views ahead.
    let data_bytes: usize = strings.data.iter().map(|data| data.len()).sum();
    let far_apart = ADOPT && data_bytes / elements.max(1) >= 128;
    for (slot, (index, view)) in out.iter_mut().zip(views) {
        if far_apart {
            let ahead = (index + PREFETCH_AHEAD) * 16;
            if let Some(next) = strings.views.get(ahead..ahead + 16) {
                let word = |at| u32::from_le_bytes(next[at..at + 4].try_into().expect("4 bytes"));
                if let Some(data) = strings.data.get(word(8) as usize) {
                    prefetch(data, word(12).into());
                }
            }
        }
        if !is_valid(strings.validity, index) {
            if !allow_na {
                return Err((index, ArrowError::UnexpectedNull { index }));
            }
            *slot = View::NA;
            continue;
        }
        let view = u128::from_le_bytes(view.try_into().expect("16 bytes"));
        let len = view as u32 as usize;
        let at = |error| (index, error);
        if len <= MAX_INLINE_LEN {
            // Bytes past the string must be zero in a view of ours; Arrow does not say.
            let kept = if len == MAX_INLINE_LEN {
                view
            } else {
                view & ((1u128 << (32 + 8 * len)) - 1)
            };
            let ascii = (kept >> 32) & 0x8080_8080_8080_8080_8080_8080 == 0;
            if !ascii {
                strings.get(index).map_err(at)?; // the full check, for its error
            }
            *slot = View::from_u128(kept);
        } else {
            let bytes = strings.get(index).map_err(at)?;
            let bytes = bytes
                .ok_or(ArrowError::UnexpectedNull { index })
                .map_err(at)?;
            let (buffer, offset) = ((view >> 64) as u32 as usize, (view >> 96) as u32);
            let local = if ADOPT {
                adopted.get(buffer).copied().flatten()
            } else {
                None
            };
            *slot = match local {
                Some(local) => (packed.arena().adopted_view(local, offset as usize, bytes))
                    .ok_or(at(ArrowError::BadView { index }))?,
                None => (packed.store(bytes))
                    .map_err(|error| at(ArrowError::Element { index, error }))?,
            };
        }
    }
    Ok(())
}

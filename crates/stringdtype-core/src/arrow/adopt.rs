//! Reading an imported array's long strings in place: which data buffers become chunks
//! of the arena as they are ([`crate::arena::Arena::adopt`]), and letting go of them
//! after a failed import. See docs/arrow.md, "What is shared and what is copied".

use std::sync::Arc;

use super::error::ArrowError;
use super::kept::Kept;
use crate::arena::{Arena, ChunkBuf};

/// Adopts `data`, a buffer of the kept array, as a packed chunk of `arena` instead of
/// copying its long strings (`long_bytes` of them) when they are at least half of what
/// the chunk pins: `data` itself and `extra`, the array's other buffers, which stay
/// alive with it. A copy holds the long strings alone, so adopting never keeps more
/// than twice what copying would. `None`: copy (also when `data` is empty, 4 GiB or
/// more, or the chunk cannot be made).
pub(super) fn adopt(
    arena: &mut Arena,
    kept: &Arc<Kept>,
    data: &[u8],
    long_bytes: usize,
    extra: usize,
) -> Option<u32> {
    let pinned = data.len().checked_add(extra)?;
    if data.is_empty() || u32::try_from(data.len()).is_err() || long_bytes < pinned.div_ceil(2) {
        return None;
    }
    // SAFETY: `data` is a buffer of `kept`'s array, valid and unchanged until the array is
    // released (the C data interface's contract), which the keeper delays until the
    // chunk goes.
    let buf = unsafe { ChunkBuf::adopt(data, Arc::clone(kept) as _) };
    arena.adopt(buf, long_bytes).ok()
}

/// [`adopt`] for the data buffers of a `string_view` array: each buffer whose long
/// strings (`by_buffer`) are at least half of it, if those buffers' strings are at least
/// half of what they pin with the `views` bytes. The chunk of each adopted buffer, by
/// buffer.
pub(super) fn adopt_buffers(
    arena: &mut Arena,
    kept: &Arc<Kept>,
    data: &[&[u8]],
    by_buffer: &[usize],
    views: usize,
) -> Vec<Option<u32>> {
    let worth = |i: usize| by_buffer[i] >= data[i].len().div_ceil(2);
    let (mut strings, mut pinned) = (0usize, views);
    for i in (0..data.len()).filter(|&i| worth(i)) {
        strings = strings.saturating_add(by_buffer[i]);
        pinned = pinned.saturating_add(data[i].len());
    }
    if strings < pinned.div_ceil(2) {
        return vec![None; data.len()];
    }
    (0..data.len())
        .map(|i| {
            let whole = if worth(i) { by_buffer[i] } else { 0 };
            adopt(arena, kept, data[i], whole, 0)
        })
        .collect()
}

/// Lets go of the `adopted` chunks after an error (their views are released already), so
/// that a failed import leaves the arena as it was.
pub(super) fn unadopt_on_error(
    arena: &mut Arena,
    adopted: &[Option<u32>],
    result: Result<(), ArrowError>,
) -> Result<(), ArrowError> {
    if result.is_err() {
        adopted
            .iter()
            .flatten()
            .for_each(|&local| arena.unadopt(local));
    }
    result
}

//! Sharing chunks, with an Arrow consumer or with a copy of the array: what is shared and
//! pinned. A shared chunk is never rewritten; the free blocks of a shared chunk wait
//! until the share ends (`pop_free_block`).

use std::sync::Arc;

use super::blocks::size_class;
use super::{Arena, Chunk, ChunkBuf, Kind, DEDICATED_THRESHOLD};
use crate::error::{Error, Result};
use crate::view::View;

/// How [`Arena::share_chunks`] shares one chunk.
pub enum ChunkShare {
    /// The chunk as it is: its first `len` bytes may hold strings and are pinned.
    Shared { chunk: Arc<ChunkBuf>, len: usize },
    /// A chunk with many holes: a consumer copies the strings it needs.
    Copy,
    /// A freed chunk's place: no string lives there.
    Empty,
}

impl ChunkShare {
    /// The chunk and its pinned length, when it is shared as it is.
    pub fn as_shared(&self) -> Option<(&Arc<ChunkBuf>, usize)> {
        match self {
            ChunkShare::Shared { chunk, len } => Some((chunk, *len)),
            _ => None,
        }
    }
}

impl Arena {
    /// Shares the chunks, by local index, for example with an Arrow consumer. A shared
    /// chunk's first `len` bytes hold every string it has now and are never rewritten
    /// while the share lives; a chunk with more than a quarter of holes is not shared
    /// (the consumer copies what it needs), so that repeated exports cannot pin free
    /// space for ever.
    pub fn share_chunks(&self) -> Vec<ChunkShare> {
        let share = |buf: &Arc<ChunkBuf>, len: usize, live: usize| {
            if (len - live.min(len)) * 4 > len {
                ChunkShare::Copy
            } else {
                ChunkShare::Shared {
                    chunk: Arc::clone(buf),
                    len,
                }
            }
        };
        self.chunks
            .iter()
            .map(|chunk| {
                let len = match &chunk.kind {
                    Kind::Free => return ChunkShare::Empty,
                    Kind::Ordinary(blocks) => blocks.carved(),
                    Kind::Dedicated { len } => *len,
                    Kind::Packed { fill, .. } => *fill,
                };
                share(&chunk.buf, len, chunk.live_bytes())
            })
            .collect()
    }
}

/// Fewest bytes of long strings per element for which a copy shares chunks (see
/// [`Arena::share_from`]): `copy` of arrays of 0-16 bytes, three strings in four
/// inline, counted 21 % more instructions when shared.
pub const SHARE_BYTES_PER_VIEW: usize = 16;

impl Arena {
    /// Starts a copy of most of `source`'s strings that shares `source`'s chunks instead
    /// of copying their bytes: the views to copy are `views`, and each then takes its
    /// place in this arena with [`Arena::claim_shared`]; [`Arena::finish_shared`] ends the
    /// copy. Both arenas pin the shared chunks (nothing in them is rewritten) until one of
    /// them lets go, so writes to either array never reach the other.
    ///
    /// Returns false, and changes nothing, unless this arena is empty and the long
    /// strings of `source` among `views` are at least three quarters of its string bytes
    /// and no more than all of them (more means some view is there twice). Sharing
    /// saves copying the bytes but costs a pass over the views to count them, so it is
    /// not tried with fewer than [`SHARE_BYTES_PER_VIEW`] bytes of `source`'s strings per
    /// view (an array of mostly inline strings). Chunks of a single string (larger than
    /// [`DEDICATED_THRESHOLD`]) and chunks less than three quarters full of live strings
    /// are not shared: their strings are copied.
    ///
    /// Never inlined: once per copy, and inlined into the copy loop's function it cost
    /// that loop about 3 instructions per element (`copy` of the medium set 1.016x).
    #[inline(never)]
    pub fn share_from(
        &mut self,
        source: &Arena,
        views: impl ExactSizeIterator<Item = View>,
    ) -> Result<bool> {
        let whole = source.usage.string_bytes;
        let worth = whole / SHARE_BYTES_PER_VIEW >= views.len().max(1);
        if self.span != 0 || !self.chunks.is_empty() || source.span == 0 || !worth {
            return Ok(false);
        }
        let covered = views
            .filter(|view| source.is_own(view))
            .try_fold(0usize, |sum, view| sum.checked_add(view.len()));
        if covered.is_none_or(|covered| covered > whole || covered < whole - whole / 4) {
            return Ok(false);
        }
        let oom = |_| Error::OutOfMemory(0);
        let mut chunks = Vec::new();
        chunks.try_reserve_exact(source.chunks.len()).map_err(oom)?;
        let mut free_locals = Vec::new();
        free_locals
            .try_reserve_exact(source.chunks.len())
            .map_err(oom)?;
        // A chunk whose live strings fill less than three quarters of it (holes, or the
        // unused tail of the current chunk) is not shared: its strings are copied, so
        // that the copy holds no more than it needs, as a copy always did.
        let full = |chunk: &Chunk| chunk.live_bytes() >= chunk.buf.len() - chunk.buf.len() / 4;
        for (local, chunk) in source.chunks.iter().enumerate() {
            let kind = match &chunk.kind {
                Kind::Ordinary(blocks) if full(chunk) => Kind::Ordinary(blocks.try_clone_free()?),
                Kind::Packed { fill, .. } if full(chunk) => Kind::Packed {
                    fill: *fill,
                    live: 0,
                },
                _ => {
                    chunks.push(Chunk::free());
                    free_locals.push(local as u32);
                    continue;
                }
            };
            let buf = Arc::clone(&chunk.buf);
            chunks.push(Chunk { buf, kind });
        }
        if free_locals.len() == chunks.len() {
            return Ok(false);
        }
        // The copy's views keep the source's local chunk indices, in a range of its own.
        self.chunks = chunks;
        let bytes = self.chunks.iter().map(|chunk| chunk.buf.len()).sum();
        if let Err(err) = self.claim_ids(self.chunks.len(), bytes) {
            self.chunks = Vec::new();
            return Err(err);
        }
        self.usage.capacity = self.chunks.iter().map(|chunk| chunk.buf.len()).sum();
        let rare = self.rare_mut();
        rare.free_locals = free_locals;
        rare.shared_from = source.ranges;
        self.shared_current = (source.base, source.span);
        // New strings go to chunks of this arena's own (from the smallest size up): the
        // tails of the shared chunks belong to `source`.
        self.current = None;
        Ok(true)
    }

    /// The view in this arena of `view`'s string, shared by [`Arena::share_from`] from
    /// the arena whose [`Arena::slot`] is `source_slot`: its block is claimed, each block
    /// once. `None` for a view that names no free block of a shared chunk (another
    /// arena's view, a chunk that was not shared, a block claimed before): the caller
    /// stores a copy of those.
    #[inline]
    pub fn claim_shared(&mut self, view: View, source_slot: u32) -> Option<View> {
        let location = view.location()?;
        let (base, span) = self.shared_current;
        if base != source_slot || span == 0 {
            return None;
        }
        let mut local = location.chunk.wrapping_sub(base);
        if local >= span {
            local = self.rare.get()?.shared_from.local_of(location.chunk)?;
        }
        let (len, offset) = (view.len(), location.offset as usize);
        let held = match &mut self.chunks.get_mut(local as usize)?.kind {
            Kind::Ordinary(blocks) => {
                let (_, block) = size_class(len);
                if block > DEDICATED_THRESHOLD || !blocks.claim(offset, block) {
                    return None;
                }
                block
            }
            // A packed chunk is freed with the arena and its bytes are never reused, so
            // a view that is there twice only counts twice.
            Kind::Packed { fill, live } => {
                if offset.checked_add(len).is_none_or(|end| end > *fill) {
                    return None;
                }
                *live += len;
                len
            }
            Kind::Dedicated { .. } | Kind::Free => return None,
        };
        self.usage.used += held;
        self.usage.string_bytes += len;
        Some(view.with_chunk(self.base | local))
    }

    /// Ends a copy started by [`Arena::share_from`]: lets go of the shared chunks that
    /// no string of the copy lives in.
    pub fn finish_shared(&mut self) {
        for local in 0..self.chunks.len() {
            let chunk = &self.chunks[local];
            let unused = !matches!(chunk.kind, Kind::Free) && chunk.live_bytes() == 0;
            if unused && chunk.is_shared() {
                self.free_chunk(local as u32);
            }
        }
    }

    /// Whether `view` is a long string of this arena (by the id range it names).
    #[inline]
    fn is_own(&self, view: &View) -> bool {
        view.location()
            .is_some_and(|location| self.own_local(location.chunk).is_some())
    }
}

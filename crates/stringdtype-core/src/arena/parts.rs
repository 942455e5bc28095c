//! Parts of an arena for writers on other threads: [`Arena::reserve_parts`] hands out
//! [`PartArena`]s, each an arena of its own whose chunks take ids from a disjoint span
//! of the owner's current range, and [`Arena::absorb_parts`] takes their chunks back.
//!
//! A view written by a part names its chunk by the owner's range base plus a local index
//! of the part's span, exactly as a view the owner writes itself, so once the owner has
//! absorbed the part's chunks at those local indices every view the part wrote is a
//! view of the owner: nothing is rewritten, and the owner reads it with its usual one
//! compare. A part touches neither the owner nor the registry while it works (its chunks
//! are published when they are absorbed), so parts run on as many threads as there are
//! parts while the owner stays locked by the thread that reserved them.

use std::sync::Arc;

use super::registry::{self, MAX_LOCAL_CHUNKS};
use super::{Arena, BlockRef, Chunk, Kind};
use crate::error::{Error, Result};

/// Local chunk indices each part may use: ordinary chunks double up to `MAX_CHUNK`, so
/// 64 of them hold far more than a part writes, and only more than 64 strings of over
/// 1 MiB (a dedicated chunk each) exhaust a part (see [`PartArena::is_exhausted`]).
pub const PART_SPAN: u32 = 64;

/// The [`Error::ArenaFull`] limit of an exhausted part.
const EXHAUSTED: &str = "a part of a parallel call used every chunk id reserved for it";

/// One part's arena (see the module docs). Dropped without being absorbed, it frees its
/// chunks, whose ids are then no string's.
pub struct PartArena {
    arena: Arena,
    /// The first local index of the part's span in the owner.
    first: u32,
    /// The base of the owner's current range when the part was reserved.
    owner_base: u32,
}

impl PartArena {
    /// The part's arena, to store results in. Its strings take chunk ids of the part's
    /// span only; it holds no id range of its own, so it cannot share chunks with
    /// another arena (`share_from` refuses it).
    #[inline]
    pub fn arena(&mut self) -> &mut Arena {
        &mut self.arena
    }

    /// Whether the part has used every chunk id of its span: a store that needs a new
    /// chunk then fails with [`Error::ArenaFull`], and the caller may redo the part's
    /// work in the owner instead.
    pub fn is_exhausted(&self) -> bool {
        let arena = &self.arena;
        arena.chunks.len() >= arena.span as usize && arena.free_locals().is_empty()
    }
}

impl Arena {
    /// Reserves `n` disjoint spans of `span` chunk ids (a power of two, [`PART_SPAN`]
    /// but for tests) in this arena's current range (taking a larger range first if
    /// needed) and returns a writer for each, in order. Hand them back with
    /// [`Arena::absorb_parts`] before writing to this arena again. Fails when the ids or
    /// the memory to absorb the parts later are not there.
    pub fn reserve_parts(&mut self, n: usize, span: u32) -> Result<Vec<PartArena>> {
        assert!(span.is_power_of_two(), "a part's span is a power of two");
        let span = span as usize;
        let first = self.chunks.len().next_multiple_of(span);
        let needed = n
            .checked_mul(span)
            .and_then(|ids| ids.checked_add(first))
            .filter(|&needed| needed <= MAX_LOCAL_CHUNKS)
            .ok_or(Error::ArenaFull("an array holds at most 1,048,576 chunks"))?;
        self.claim_ids(needed, self.usage.capacity)?;
        // Room for absorbing, so that it cannot fail once parts wrote their views.
        self.chunks
            .try_reserve(needed - self.chunks.len())
            .map_err(|_| Error::OutOfMemory(0))?;
        let more = needed - self.chunks.len();
        self.rare_mut()
            .free_locals
            .try_reserve(more)
            .map_err(|_| Error::OutOfMemory(0))?;
        registry::make_room(self.base, needed as u32)?;
        let mut parts = Vec::new();
        parts.try_reserve(n).map_err(|_| Error::OutOfMemory(0))?;
        for k in 0..n {
            let first = (first + k * span) as u32;
            let mut arena = Arena::new();
            // `first` is a multiple of the span, a power of two, and the base is aligned
            // to the range's size, so `base | local` of the part is the owner's id.
            (arena.base, arena.span) = (self.base + first, span as u32);
            arena.next_chunk = self.next_chunk;
            parts.push(PartArena {
                arena,
                first,
                owner_base: self.base,
            });
        }
        Ok(parts)
    }

    /// Takes back the chunks of the first `keep` of `parts` (as [`Arena::reserve_parts`]
    /// returned them, in order) at the local indices of their spans, so that the views
    /// they wrote are this arena's; the other parts are dropped with their chunks.
    ///
    /// # Panics
    /// If this arena wrote a chunk since the parts were reserved (their ids may be
    /// taken), or `parts` are not this arena's in order.
    pub fn absorb_parts(&mut self, parts: Vec<PartArena>, keep: usize) {
        for part in parts.into_iter().take(keep) {
            self.absorb(part);
        }
    }

    fn absorb(&mut self, mut part: PartArena) {
        assert!(
            part.owner_base == self.base && self.chunks.len() <= part.first as usize,
            "parts are absorbed into the arena that reserved them, in order"
        );
        while self.chunks.len() < part.first as usize {
            let local = self.chunks.len() as u32;
            self.rare_mut().free_locals.push(local);
            self.chunks.push(Chunk::free());
        }
        let first = part.first;
        let at = |block: BlockRef| BlockRef {
            local: block.local + first,
            ..block
        };
        let inner = &mut part.arena;
        // Room was reserved in `reserve_parts`: none of this allocates.
        self.chunks.append(&mut inner.chunks);
        let chunks = &self.chunks[first as usize..];
        let held = chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| !matches!(c.kind, Kind::Free));
        registry::publish_all(self.base, held.map(|(k, c)| (first + k as u32, &c.buf)));
        if let Some(inner) = inner.rare.get_mut() {
            let rare = self.rare.get_mut().expect("made by `reserve_parts`");
            let locals = inner.free_locals.drain(..).map(|local| local + first);
            rare.free_locals.extend(locals);
            rare.outbox.append(&mut inner.outbox);
            if rare.free_blocks.len() < inner.free_blocks.len() {
                rare.free_blocks
                    .resize_with(inner.free_blocks.len(), Vec::new);
            }
            for (class, blocks) in inner.free_blocks.drain(..).enumerate() {
                rare.free_blocks[class].extend(blocks.into_iter().map(at));
            }
            let parked = inner.parked.drain(..);
            rare.parked
                .extend(parked.map(|(class, block)| (class, at(block))));
        }
        self.usage.capacity += inner.usage.capacity;
        self.usage.used += inner.usage.used;
        self.usage.string_bytes += inner.usage.string_bytes;
        if self.current.is_none() {
            self.current = inner.current.map(|local| local + first);
        }
        self.next_chunk = self.next_chunk.max(inner.next_chunk);
    }

    /// Whether this is a part's arena: it has ids (a span) but no range of its own.
    #[inline]
    pub(super) fn is_part(&self) -> bool {
        self.span != 0 && self.ranges.current().is_none()
    }

    /// Adds a chunk to a part's arena: the next local index of its span, published
    /// nowhere until the owner absorbs it.
    pub(super) fn push_part_chunk(&mut self, size: usize, kind: Kind) -> Result<u32> {
        let local = match self.pop_free_local() {
            Some(local) => local,
            None if self.chunks.len() < self.span as usize => {
                self.chunks
                    .try_reserve(1)
                    .map_err(|_| Error::OutOfMemory(0))?;
                self.chunks.push(Chunk::free());
                (self.chunks.len() - 1) as u32
            }
            None => return Err(Error::ArenaFull(EXHAUSTED)),
        };
        let buf = match super::ChunkBuf::new(size) {
            Ok(buf) => Arc::new(buf),
            Err(err) => {
                self.rare_mut().free_locals.push(local);
                return Err(err);
            }
        };
        self.chunks[local as usize] = Chunk { buf, kind };
        self.usage.capacity += size;
        Ok(local)
    }
}

#[cfg(test)]
#[path = "parts_tests.rs"]
mod tests;

//! Where blocks come from: a bump of the current chunk, a class's free list, or a new
//! chunk; and how chunks are added and freed.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::blocks::{size_class, Blocks};
use super::registry::{self, MAX_LOCAL_CHUNKS};
use super::{
    note_unshared, Arena, BlockRef, Chunk, ChunkBuf, Kind, DEDICATED_THRESHOLD, MAX_CHUNK, UNSHARED,
};
use crate::error::{Error, Result};

impl Arena {
    /// A block for a string of `len` bytes. The common case, a class with no free
    /// blocks waiting and room in the current chunk, is a bump of the carved bytes.
    #[inline(always)]
    pub(super) fn allocate(&mut self, len: usize) -> Result<BlockRef> {
        let (class, block) = size_class(len);
        let none_free = self.rare.get().is_none_or(|rare| rare.none_free(class));
        if none_free && block <= DEDICATED_THRESHOLD {
            if let Some(at) = self.carve_current(block) {
                self.usage.used += block;
                self.usage.string_bytes += len;
                return Ok(at);
            }
        }
        self.allocate_slow(len, class, block)
    }

    #[cold]
    fn allocate_slow(&mut self, len: usize, class: usize, block: usize) -> Result<BlockRef> {
        if block > DEDICATED_THRESHOLD {
            let local = self.push_chunk(len, Kind::Dedicated { len })?;
            self.usage.used += len;
            self.usage.string_bytes += len;
            return Ok(BlockRef { local, offset: 0 });
        }
        let at = match self.pop_free_block(class) {
            Some(at) => {
                let Kind::Ordinary(blocks) = &mut self.chunks[at.local as usize].kind else {
                    unreachable!("free blocks are in ordinary chunks");
                };
                blocks.revive(at.offset as usize, block);
                at
            }
            None => match self.carve_current(block) {
                Some(at) => at,
                None => self.carve_new(block)?,
            },
        };
        self.usage.used += block;
        self.usage.string_bytes += len;
        Ok(at)
    }

    /// A new block of `block` bytes from the current chunk, if it has room.
    #[inline(always)]
    fn carve_current(&mut self, block: usize) -> Option<BlockRef> {
        let local = self.current?;
        let chunk = &mut self.chunks[local as usize];
        let Kind::Ordinary(blocks) = &mut chunk.kind else {
            return None;
        };
        if chunk.buf.len() - blocks.carved() < block {
            return None;
        }
        let offset = blocks.carve(block) as u32;
        Some(BlockRef { local, offset })
    }

    /// A new block of `block` bytes at the front of a new chunk, which becomes
    /// the current one.
    fn carve_new(&mut self, block: usize) -> Result<BlockRef> {
        // Powers of two: chunks from MIN_CHUNK up then go back to the pool when freed.
        let size = self.next_chunk.max(block.next_power_of_two());
        let local = self.push_chunk(size, Kind::Ordinary(Blocks::new(size)?))?;
        self.next_chunk = (size * 2).min(MAX_CHUNK);
        self.current = Some(local);
        Ok(self
            .carve_current(block)
            .expect("a new chunk has room for the block it is made for"))
    }

    /// The newest free block of `class` in a chunk that is not shared; blocks of shared
    /// chunks are parked until their share ends.
    fn pop_free_block(&mut self, class: usize) -> Option<BlockRef> {
        let rare = self.rare.get_mut()?;
        let chunks = &self.chunks;
        loop {
            let list = rare.free_blocks.get_mut(class)?;
            while let Some(at) = list.pop() {
                if !chunks[at.local as usize].is_shared() {
                    return Some(at);
                }
                rare.parked.push((class, at));
            }
            let unshared = UNSHARED.load(Ordering::Relaxed);
            if rare.parked.is_empty() || unshared == rare.parked_seen {
                return None;
            }
            rare.parked_seen = unshared;
            let free_blocks = &mut rare.free_blocks;
            rare.parked.retain(|&(class, at)| {
                let waiting = chunks[at.local as usize].is_shared();
                if !waiting {
                    free_blocks[class].push(at);
                }
                waiting
            });
        }
    }

    /// Adds a chunk of `size` bytes used as `kind`; returns its local index.
    pub(super) fn push_chunk(&mut self, size: usize, kind: Kind) -> Result<u32> {
        if self.is_part() {
            return self.push_part_chunk(size, kind);
        }
        self.push_buf(ChunkBuf::new(size)?, kind)
    }

    /// Adds `buf` as a chunk of `kind` (not to a part's arena), published in the
    /// registry under the arena's current range.
    pub(super) fn push_buf(&mut self, buf: ChunkBuf, kind: Kind) -> Result<u32> {
        debug_assert!(!self.is_part());
        let size = buf.len();
        let buf = Arc::new(buf);
        let local = match self.pop_free_local() {
            Some(local) => local,
            None => {
                if self.chunks.len() >= MAX_LOCAL_CHUNKS {
                    return Err(Error::ArenaFull("an array holds at most 1,048,576 chunks"));
                }
                // Room for one chunk only at first: most arrays are small and keep
                // their first chunk (a doubling `Vec` reserved four, 168 bytes more).
                let reserved = if self.chunks.is_empty() {
                    self.chunks.try_reserve_exact(1)
                } else {
                    self.chunks.try_reserve(1)
                };
                reserved.map_err(|_| Error::OutOfMemory(0))?;
                self.chunks.push(Chunk::free());
                (self.chunks.len() - 1) as u32
            }
        };
        let level = registry::level_for(self.chunks.len(), self.usage.capacity + size);
        let published = if level.is_some_and(|level| Some(level) <= self.ranges.current()) {
            registry::publish(self.base, local, &buf)
        } else {
            // The new chunk is published with the others in the new range.
            self.chunks[local as usize].buf = Arc::clone(&buf);
            self.claim_ids(self.chunks.len(), self.usage.capacity + size)
        };
        if let Err(err) = published {
            self.chunks[local as usize] = Chunk::free();
            self.rare_mut().free_locals.push(local);
            return Err(err);
        }
        self.chunks[local as usize] = Chunk { buf, kind };
        self.usage.capacity += size;
        Ok(local)
    }

    /// Gives the arena a range of ids for `chunks` chunks of `bytes` bytes in all (see
    /// [`registry::level_for`]), if its current one is smaller, and publishes its chunks
    /// there. Its smaller ranges stay its own, for the views that name them.
    pub(super) fn claim_ids(&mut self, chunks: usize, bytes: usize) -> Result<()> {
        let level = registry::level_for(chunks, bytes)
            .filter(|_| !self.is_part())
            .ok_or(Error::ArenaFull("an array holds at most 1,048,576 chunks"))?;
        if Some(level) <= self.ranges.current() {
            return Ok(());
        }
        if self.span == 0 {
            // Releases posted from now on are for this arena.
            self.mail_seen = registry::posts();
        }
        let base = registry::claim(level, self.chunks.iter().map(|chunk| &chunk.buf))?;
        self.ranges.bases[level] = base;
        (self.base, self.span) = (base, registry::span(level));
        Ok(())
    }

    /// Frees a chunk that holds no live string and makes its place reusable.
    pub(super) fn free_chunk(&mut self, local: u32) {
        registry::withdraw(&self.ranges, local);
        // A share keeps its own reference, so dropping ours is safe either way.
        let chunk = std::mem::replace(&mut self.chunks[local as usize], Chunk::free());
        self.usage.capacity -= chunk.buf.len();
        if self.current == Some(local) {
            self.current = None;
        }
        self.rare_mut().free_locals.push(local);
        let shared = chunk.is_shared();
        drop(chunk);
        if shared {
            // Whoever else holds it may hold it alone now (see `pop_free_block`).
            note_unshared();
        }
    }
}

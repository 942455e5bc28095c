//! Packed chunks: a bulk import's long strings stored end to end, one copy each, in
//! chunks of their own (see [`Arena::packed`]).

use crate::error::{Error, Result};
use crate::view::View;

use super::{Arena, BlockRef, ChunkBuf, Kind, MAX_CHUNK};

impl Arena {
    /// A writer that stores strings end to end in packed chunks of their own, for a
    /// bulk import: `long_bytes` is the total length of the long strings to come (a
    /// hint; more still fit). Packed chunks are at most [`MAX_CHUNK`] bytes, or one
    /// string.
    pub fn packed(&mut self, long_bytes: usize) -> Packed<'_> {
        Packed {
            arena: self,
            chunk: None,
            at: 0,
            end: 0,
            remaining: long_bytes,
        }
    }
}

impl Arena {
    /// Adds `buf` (bytes of someone else's, [`ChunkBuf::adopt`]) as a packed chunk that
    /// holds `live` bytes of strings, all of it filled; returns its local index, for
    /// [`Arena::adopted_view`]. Its strings are never written or freed one by one: the
    /// chunk, and so the keeper, is let go of with the arena (or its last share). Not for
    /// a part's arena, nor for an empty `buf`.
    pub fn adopt(&mut self, buf: ChunkBuf, live: usize) -> Result<u32> {
        if self.is_part() || buf.is_empty() || u32::try_from(buf.len()).is_err() {
            debug_assert!(
                false,
                "adopt: a part's arena, or no bytes, or 4 GiB or more"
            );
            return Err(Error::ArenaFull("adopted bytes fit no chunk"));
        }
        let fill = buf.len();
        let local = self.push_buf(buf, Kind::Packed { fill, live })?;
        // Saturating: views of a `string_view` array may share bytes, and a malformed
        // array's lengths may add up to anything (its import then fails).
        self.usage.used = self.usage.used.saturating_add(live);
        self.usage.string_bytes = self.usage.string_bytes.saturating_add(live);
        Ok(local)
    }

    /// Lets go of the adopted chunk `local` ([`Arena::adopt`]) after a failed import,
    /// whatever views of it were released: the arena is then as before the adoption.
    pub fn unadopt(&mut self, local: u32) {
        let chunk = &self.chunks[local as usize];
        let Kind::Packed { live, .. } = chunk.kind else {
            return;
        };
        if !chunk.buf.is_adopted() {
            return;
        }
        self.usage.used = self.usage.used.saturating_sub(live);
        self.usage.string_bytes = self.usage.string_bytes.saturating_sub(live);
        self.free_chunk(local);
    }

    /// The view of `bytes`, a long string at `offset` in the adopted chunk `local`
    /// ([`Arena::adopt`]), whose `live` bytes counted it; `None` unless `bytes` are the
    /// chunk's at `offset` and longer than an inline string.
    pub fn adopted_view(&self, local: u32, offset: usize, bytes: &[u8]) -> Option<View> {
        let chunk = &self.chunks[local as usize];
        let inside = chunk.buf.slice(offset, bytes.len());
        if !matches!(chunk.kind, Kind::Packed { .. })
            || inside.is_none_or(|inside| inside.as_ptr() != bytes.as_ptr())
            || bytes.len() <= crate::view::MAX_INLINE_LEN
        {
            return None;
        }
        let block = BlockRef {
            local,
            offset: offset as u32,
        };
        View::long(
            bytes.len(),
            [bytes[0], bytes[1], bytes[2], bytes[3]],
            self.location(block),
        )
        .ok()
    }
}

/// Stores strings into packed chunks: see [`Arena::packed`].
pub struct Packed<'a> {
    arena: &'a mut Arena,
    /// The packed chunk being filled, its next free byte and its size.
    chunk: Option<u32>,
    at: usize,
    end: usize,
    /// Bytes the caller announced and that were not stored yet.
    remaining: usize,
}

impl Packed<'_> {
    /// The arena being written (for [`Arena::adopted_view`] beside the stores).
    pub fn arena(&self) -> &Arena {
        self.arena
    }

    /// Stores `data` as [`Arena::store`] does, but a long string goes right after the
    /// previous one, in a packed chunk. Always inlined: a view returned through memory
    /// and read back as one 16-byte load stalls on store forwarding.
    #[inline(always)]
    pub fn store(&mut self, data: &[u8]) -> Result<View> {
        if let Some(view) = View::try_inline(data) {
            return Ok(view);
        }
        let len = data.len();
        if len > crate::view::MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        let local = match self.chunk {
            Some(local) if self.end - self.at >= len => local,
            _ => self.next_chunk(len)?,
        };
        let block = BlockRef {
            local,
            offset: self.at as u32,
        };
        self.arena.write_block(block, data.as_ptr(), len);
        self.at += len;
        self.remaining = self.remaining.saturating_sub(len);
        if let Kind::Packed { fill, live } = &mut self.arena.chunks[local as usize].kind {
            *fill = self.at;
            *live += len;
        }
        self.arena.usage.used += len;
        self.arena.usage.string_bytes += len;
        let location = self.arena.location(block);
        Ok(View::long(
            len,
            [data[0], data[1], data[2], data[3]],
            location,
        )?)
    }

    #[cold]
    fn next_chunk(&mut self, len: usize) -> Result<u32> {
        let size = self.remaining.min(MAX_CHUNK).max(len);
        let local = self
            .arena
            .push_chunk(size, Kind::Packed { fill: 0, live: 0 })?;
        // The previous chunk's unused tail (if any) stays unused.
        (self.chunk, self.at, self.end) = (Some(local), 0, size);
        Ok(local)
    }
}

//! Packed chunks: a bulk import's long strings stored end to end, one copy each, in
//! chunks of their own (see [`Arena::packed`]).

use crate::error::{Error, Result};
use crate::view::View;

use super::{Arena, BlockRef, Kind, MAX_CHUNK};

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

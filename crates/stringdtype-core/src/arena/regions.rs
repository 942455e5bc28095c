//! Regions: packed chunks that the parts of a bulk import fill on threads of their own,
//! each its own chunk, while the arena itself is only read (see docs/design.md, "Imports
//! on every core").
//!
//! [`Arena::new_region`] adds an empty packed chunk and hands out its one
//! [`RegionToken`]; [`RegionToken::writer`] turns the token into a [`RegionWriter`] that
//! borrows the arena shared, so that many writers (one per chunk) and reads such as
//! [`Arena::adopted_view`] run side by side; [`RegionWriter::done`] gives the token back,
//! and [`Arena::finish_region`] counts its strings (or [`Arena::drop_region`] lets go of
//! the chunk after a failed import).

use crate::error::{Error, Result};
use crate::view::{Location, View, MAX_STRING_LEN};

use super::{Arena, BlockRef, ChunkBuf, Kind};

/// The one right to fill a region's chunk: not `Clone`, made only by
/// [`Arena::new_region`], so no two writers ever write one chunk.
#[derive(Debug)]
pub struct RegionToken {
    local: u32,
    /// Bytes stored so far (the chunk is full at its length).
    fill: usize,
}

/// Stores strings end to end into a region's chunk, without the arena's `&mut`.
pub struct RegionWriter<'a> {
    arena: &'a Arena,
    buf: &'a ChunkBuf,
    chunk: u32,
    token: RegionToken,
}

impl Arena {
    /// Adds an empty packed chunk of `size` bytes (at most [`super::MAX_CHUNK`]) to be
    /// filled by one writer; its strings count once [`Arena::finish_region`] is called.
    /// Not for a part's arena.
    pub fn new_region(&mut self, size: usize) -> Result<RegionToken> {
        if self.is_part() || size == 0 || size > super::MAX_CHUNK {
            return Err(Error::ArenaFull(
                "a region is 1 byte to 16 MiB, of an array",
            ));
        }
        let local = self.push_chunk(size, Kind::Packed { fill: 0, live: 0 })?;
        Ok(RegionToken { local, fill: 0 })
    }

    /// Counts the strings the writer of `token` stored: they are live from now on.
    pub fn finish_region(&mut self, token: RegionToken) {
        if let Kind::Packed { fill, live } = &mut self.chunks[token.local as usize].kind {
            (*fill, *live) = (token.fill, token.fill);
        }
        self.usage.used += token.fill;
        self.usage.string_bytes += token.fill;
    }

    /// Lets go of the region's chunk (after a failed import: the views into it must not
    /// be read): the arena is then as before [`Arena::new_region`].
    pub fn drop_region(&mut self, token: RegionToken) {
        self.free_chunk(token.local);
    }
}

impl RegionToken {
    /// The writer of this region of `arena` (the arena that made the token: checked).
    pub fn writer(self, arena: &Arena) -> RegionWriter<'_> {
        let buf = &*arena.chunks[self.local as usize].buf;
        assert!(
            matches!(
                arena.chunks[self.local as usize].kind,
                Kind::Packed { fill: 0, live: 0 }
            ) && !buf.is_adopted(),
            "a region's token writes the region of the arena that made it"
        );
        let first = BlockRef {
            local: self.local,
            offset: 0,
        };
        let chunk = arena.location(first).chunk;
        RegionWriter {
            arena,
            buf,
            chunk,
            token: self,
        }
    }
}

impl<'a> RegionWriter<'a> {
    /// The arena being read (for [`Arena::adopted_view`] beside the stores).
    pub fn arena(&self) -> &'a Arena {
        self.arena
    }

    /// Stores `data` as [`super::Packed::store`] does, right after the previous string;
    /// an error when it does not fit (the caller sized the region from the same strings).
    #[inline(always)]
    pub fn store(&mut self, data: &[u8]) -> Result<View> {
        if let Some(view) = View::try_inline(data) {
            return Ok(view);
        }
        let len = data.len();
        if len > MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        let at = self.token.fill;
        if self.buf.len() - at < len {
            return Err(Error::ArenaFull("more bytes than the region was made for"));
        }
        // SAFETY: the bytes `at..at + len` are past every string stored so far, and the
        // token, of which there is one per chunk, is this writer's: nothing else writes
        // or reads them until `finish_region`.
        unsafe { self.buf.write(at, data) };
        self.token.fill = at + len;
        let location = Location {
            chunk: self.chunk,
            offset: at as u32,
        };
        Ok(View::long(
            len,
            [data[0], data[1], data[2], data[3]],
            location,
        )?)
    }

    /// The token back, with what was stored.
    pub fn done(self) -> RegionToken {
        self.token
    }
}

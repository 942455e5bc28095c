//! Results written straight into their block: [`Arena::store_with`] hands a producer
//! that knows a result's length before making it (the ASCII case conversions) the bytes
//! the result will live in, so the result is written once, where building it in a
//! buffer and storing that buffer wrote it twice. [`Arena::store_mapped`] is the form for
//! a result computed from one string's bytes, safe whatever those bytes are.

use super::{Arena, BlockRef};
use crate::error::{Error, Result};
use crate::view::{View, MAX_INLINE_LEN, MAX_STRING_LEN};

impl Arena {
    /// Stores the `len` bytes that `fill` writes to the slice it is given (`len` bytes
    /// long) and returns their view, as [`Arena::store`] would of the same bytes: inline
    /// up to 12 bytes, else in a new block. The errors are `store`'s (a length over
    /// [`MAX_STRING_LEN`], no memory, no chunk id), found before `fill` runs, which then
    /// does not run.
    ///
    /// The slice holds unspecified bytes (zeros, or a freed string's) until `fill`
    /// writes them: a byte it leaves is stored as it is. `fill` cannot read this arena,
    /// which is borrowed; for a result made from a string's bytes read through another
    /// arena use [`Arena::store_mapped`], which also copes with a stale view's bytes.
    #[inline(always)]
    pub fn store_with(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<View> {
        if len <= MAX_INLINE_LEN {
            return Ok(inline_with(len, fill));
        }
        let block = self.allocate_checked(len)?;
        Ok(self.fill_block(block, len, fill))
    }

    /// Stores `map(src, dst)`, a result as long as `src` that `map` writes to `dst`,
    /// as [`Arena::store_with`] does. `src` may be any bytes, read through any arena:
    /// if it overlaps the new block (only a stale view, whose string was released,
    /// names a block that is handed out again) it is copied first, so that `map` never
    /// reads what it writes.
    #[inline(always)]
    pub fn store_mapped(&mut self, src: &[u8], map: impl FnOnce(&[u8], &mut [u8])) -> Result<View> {
        let len = src.len();
        if len <= MAX_INLINE_LEN {
            return Ok(inline_with(len, |dst| map(src, dst)));
        }
        let block = self.allocate_checked(len)?;
        let start = self.chunks[block.local as usize].buf.as_ptr() as usize + block.offset as usize;
        let from = src.as_ptr() as usize;
        if from < start + len && start < from + len {
            return self.store_mapped_overlapping(block, src, map);
        }
        Ok(self.fill_block(block, len, |dst| map(src, dst)))
    }

    /// [`Arena::store_mapped`] of bytes that overlap the block they are stored in.
    #[cold]
    #[inline(never)]
    fn store_mapped_overlapping(
        &mut self,
        block: BlockRef,
        src: &[u8],
        map: impl FnOnce(&[u8], &mut [u8]),
    ) -> Result<View> {
        let mut copy = Vec::new();
        // Without memory for the copy the block stays allocated, unused, until the
        // arena is dropped: the cost of a stale view met when memory ran out.
        copy.try_reserve_exact(src.len())
            .map_err(|_| Error::OutOfMemory(src.len()))?;
        copy.extend_from_slice(src);
        Ok(self.fill_block(block, src.len(), |dst| map(&copy, dst)))
    }

    /// A block for a long string of `len` bytes, after the length check of every store.
    #[inline(always)]
    pub(super) fn allocate_checked(&mut self, len: usize) -> Result<BlockRef> {
        if len > MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        self.allocate(len)
    }

    /// Has `fill` write the `len` bytes (more than 12) of the new `block` and returns
    /// their view.
    #[inline(always)]
    fn fill_block(&mut self, block: BlockRef, len: usize, fill: impl FnOnce(&mut [u8])) -> View {
        let buf = &self.chunks[block.local as usize].buf;
        // SAFETY: the block was just allocated, so no view of a live string and no
        // share covers it (see `write_block`); the slice is dropped before `self` is
        // used again, and `fill` cannot reach this arena's chunks otherwise: `self` is
        // borrowed, and bytes read through another arena are a live string's (the
        // callers' contracts: `store_mapped` copies overlapping bytes first).
        let dst = unsafe { buf.slice_mut(block.offset as usize, len) };
        fill(dst);
        let prefix = [dst[0], dst[1], dst[2], dst[3]];
        View::long(len, prefix, self.location(block)).expect("the length was checked")
    }
}

/// The inline view of the `len` (at most 12) bytes that `fill` writes, laid out as
/// [`View::try_inline`] lays out any string's.
#[inline(always)]
fn inline_with(len: usize, fill: impl FnOnce(&mut [u8])) -> View {
    let mut buf = [0u8; MAX_INLINE_LEN];
    fill(&mut buf[..len]);
    View::try_inline(&buf[..len]).expect("fits inline")
}

#[cfg(test)]
#[path = "store_with_tests.rs"]
mod tests;

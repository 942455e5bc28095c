//! Blocks of ordinary chunks: the size classes, and the map that lets an arena prove
//! that a view it is asked to release is one of its own live strings.
//!
//! An ordinary chunk is carved from the front into blocks of a size class, every block
//! starting on a 16-byte granule. The chunk keeps one byte per granule: the class (plus
//! one) of the live block that starts there, and 0 everywhere else (inside a block, at a
//! free block, past the carved bytes). A class fixes a block's size, so a release of
//! `(offset, len)` is proven with one load: the byte of `offset`'s granule names the size
//! class of `len`. A view made up from raw bytes fails that test and is ignored, where
//! trusting it would put a block twice on a free list, or a block of the wrong size, and
//! let two strings share bytes. The cost is one byte per 16 bytes of chunk.

use crate::error::{Error, Result};
use crate::view::MAX_INLINE_LEN;

/// Number of size classes: 16 classes of 16-byte steps up to 256 bytes, then four classes
/// per power of two up to 2^31.
pub(super) const CLASS_COUNT: usize = 16 + 4 * 23;
// Every class (plus one) fits the byte the map keeps per granule.
const _: () = assert!(CLASS_COUNT < u8::MAX as usize);

const GRANULE: usize = 16;

/// The size class of a block for a string of `len` (> 12) bytes: (class index, block size).
#[inline]
pub(super) fn size_class(len: usize) -> (usize, usize) {
    debug_assert!(len > MAX_INLINE_LEN);
    if len <= 256 {
        let block = len.div_ceil(16) * 16;
        return (block / 16 - 1, block);
    }
    // 2^k < len <= 2^(k+1); four blocks per such range, so at most 25% is wasted.
    let k = (usize::BITS - 1 - (len - 1).leading_zeros()) as usize;
    let step = 1usize << (k - 2);
    let block = len.div_ceil(step) * step;
    let j = (block - (1 << k)) / step; // 1..=4
    (16 + (k - 8) * 4 + (j - 1), block)
}

/// The block bookkeeping of one ordinary chunk.
pub(super) struct Blocks {
    /// Per granule: the class plus one of the live block that starts there, else 0.
    live: Vec<u8>,
    /// Bytes carved from the front so far.
    carved: usize,
    /// Bytes of the live blocks.
    live_bytes: usize,
}

impl Blocks {
    /// Bookkeeping for a chunk of `len` bytes.
    pub(super) fn new(len: usize) -> Result<Blocks> {
        let granules = len.div_ceil(GRANULE);
        let mut live = Vec::new();
        live.try_reserve_exact(granules)
            .map_err(|_| Error::OutOfMemory(granules))?;
        live.resize(granules, 0);
        Ok(Blocks {
            live,
            carved: 0,
            live_bytes: 0,
        })
    }

    /// Bytes carved from the front: the part of the chunk that may hold strings.
    #[inline]
    pub(super) fn carved(&self) -> usize {
        self.carved
    }

    /// Bytes of the live blocks.
    pub(super) fn live_bytes(&self) -> usize {
        self.live_bytes
    }

    /// Carves a new live block of `class` (`block` bytes) at the end of the carved bytes
    /// and returns its offset. The caller checked that it fits in the chunk.
    #[inline]
    pub(super) fn carve(&mut self, class: usize, block: usize) -> usize {
        let offset = self.carved;
        self.live[offset / GRANULE] = class as u8 + 1;
        self.carved += block;
        self.live_bytes += block;
        offset
    }

    /// Marks the free block of `class` (`block` bytes) at `offset` live again.
    #[inline]
    pub(super) fn revive(&mut self, offset: usize, class: usize, block: usize) {
        self.live[offset / GRANULE] = class as u8 + 1;
        self.live_bytes += block;
    }

    /// Whether a live block of `class` starts at `offset`.
    #[inline]
    pub(super) fn is_live_block(&self, offset: usize, class: usize) -> bool {
        offset % GRANULE == 0 && self.live.get(offset / GRANULE) == Some(&(class as u8 + 1))
    }

    /// Marks the live block at `offset` (checked with [`Blocks::is_live_block`]) of
    /// `block` bytes free.
    #[inline]
    pub(super) fn kill(&mut self, offset: usize, block: usize) {
        self.live[offset / GRANULE] = 0;
        self.live_bytes -= block;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_cover_every_length_with_bounded_waste() {
        let mut last_class = 0;
        for len in 13..5000 {
            let (class, block) = size_class(len);
            assert!(block >= len && block % GRANULE == 0);
            assert!(block - len < 16 || (block - len) * 4 <= block, "len {len}");
            assert!(class >= last_class && class < CLASS_COUNT);
            last_class = class;
        }
        let (class, block) = size_class(i32::MAX as usize);
        assert!(class < CLASS_COUNT && block >= i32::MAX as usize);
    }

    #[test]
    fn only_live_blocks_of_the_right_class_pass() {
        let class = |len| size_class(len).0;
        let mut blocks = Blocks::new(4096).unwrap();
        let a = blocks.carve(class(32), 32);
        let b = blocks.carve(class(64), 64);
        let c = blocks.carve(class(16), 16);
        assert_eq!((a, b, c), (0, 32, 96));
        assert!(blocks.is_live_block(a, class(32)));
        assert!(blocks.is_live_block(b, class(64)));
        assert!(blocks.is_live_block(c, class(16)));
        assert!(!blocks.is_live_block(a, class(16)), "too small");
        assert!(!blocks.is_live_block(a, class(96)), "spans two blocks");
        assert!(!blocks.is_live_block(16, class(16)), "not a block start");
        assert!(!blocks.is_live_block(8, class(32)), "not on a granule");
        assert!(
            !blocks.is_live_block(112, class(16)),
            "past the carved bytes"
        );
        assert!(!blocks.is_live_block(1 << 20, class(16)), "past the chunk");
        assert!(!blocks.is_live_block(usize::MAX - 15, class(32)));
        blocks.kill(b, 64);
        assert!(!blocks.is_live_block(b, class(64)), "released twice");
        assert_eq!(blocks.live_bytes(), 48);
        blocks.revive(b, class(64), 64);
        assert!(blocks.is_live_block(b, class(64)));
    }

    #[test]
    fn a_chunk_of_any_length_has_a_byte_per_granule() {
        let blocks = Blocks::new(4097).unwrap();
        assert_eq!(blocks.live.len(), 257);
    }
}

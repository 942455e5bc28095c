//! Blocks of ordinary chunks: the size classes, and the two bitmaps that let an arena
//! prove that a view it is asked to release is one of its own live strings.
//!
//! An ordinary chunk is carved from the front into blocks of a size class, every block
//! starting on a 16-byte granule. `starts` marks the first granule of every block carved
//! so far (live or free) and `live` the first granule of every live one. A block's size
//! is the distance to the next start (or to the end of the carved bytes), so a release
//! of `(offset, len)` is proven when a live block starts at `offset` and its size is
//! exactly the size class of `len`. A view made up from raw bytes fails that test and is
//! ignored, where trusting it would put a block twice on a free list, or a block of the
//! wrong size, and let two strings share bytes. The cost is two bits per 16 bytes.

use crate::error::{Error, Result};
use crate::view::MAX_INLINE_LEN;

/// Number of size classes: 16 classes of 16-byte steps up to 256 bytes, then four classes
/// per power of two up to 2^31.
pub(super) const CLASS_COUNT: usize = 16 + 4 * 23;

const GRANULE: usize = 16;

/// The size class of a block for a string of `len` (> 12) bytes: (class index, block size).
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
    starts: Vec<u64>,
    live: Vec<u64>,
    /// Bytes carved from the front so far.
    carved: usize,
    /// Bytes of the live blocks.
    live_bytes: usize,
}

impl Blocks {
    /// Bookkeeping for a chunk of `len` bytes.
    pub(super) fn new(len: usize) -> Result<Blocks> {
        let words = len.div_ceil(GRANULE * 64);
        let bitmap = || -> Result<Vec<u64>> {
            let mut bits = Vec::new();
            bits.try_reserve_exact(words)
                .map_err(|_| Error::OutOfMemory(words * 8))?;
            bits.resize(words, 0);
            Ok(bits)
        };
        Ok(Blocks {
            starts: bitmap()?,
            live: bitmap()?,
            carved: 0,
            live_bytes: 0,
        })
    }

    /// Bytes carved from the front: the part of the chunk that may hold strings.
    pub(super) fn carved(&self) -> usize {
        self.carved
    }

    /// Bytes of the live blocks.
    pub(super) fn live_bytes(&self) -> usize {
        self.live_bytes
    }

    /// Carves a new live block of `block` bytes at the end of the carved bytes and
    /// returns its offset. The caller checked that it fits in the chunk.
    pub(super) fn carve(&mut self, block: usize) -> usize {
        let offset = self.carved;
        set(&mut self.starts, offset / GRANULE);
        set(&mut self.live, offset / GRANULE);
        self.carved += block;
        self.live_bytes += block;
        offset
    }

    /// Marks the free block at `offset` live again.
    pub(super) fn revive(&mut self, offset: usize, block: usize) {
        set(&mut self.live, offset / GRANULE);
        self.live_bytes += block;
    }

    /// Whether a live block of exactly `block` bytes starts at `offset`.
    pub(super) fn is_live_block(&self, offset: usize, block: usize) -> bool {
        let Some(end) = offset.checked_add(block).filter(|&end| end <= self.carved) else {
            return false;
        };
        if offset % GRANULE != 0 || !get(&self.live, offset / GRANULE) {
            return false;
        }
        let (first, last) = (offset / GRANULE, end / GRANULE);
        let next_starts_at_end = end == self.carved || get(&self.starts, last);
        next_starts_at_end && !any_set(&self.starts, first + 1, last)
    }

    /// Marks the live block at `offset` (checked with [`Blocks::is_live_block`]) free.
    pub(super) fn kill(&mut self, offset: usize, block: usize) {
        clear(&mut self.live, offset / GRANULE);
        self.live_bytes -= block;
    }
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn clear(bits: &mut [u64], i: usize) {
    bits[i / 64] &= !(1 << (i % 64));
}

fn get(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Whether any bit in `from..to` is set.
fn any_set(bits: &[u64], from: usize, to: usize) -> bool {
    if from >= to {
        return false;
    }
    let (first, last) = (from / 64, (to - 1) / 64);
    let low = u64::MAX << (from % 64);
    let high = u64::MAX >> (63 - (to - 1) % 64);
    if first == last {
        return bits[first] & low & high != 0;
    }
    bits[first] & low != 0
        || bits[first + 1..last].iter().any(|&w| w != 0)
        || bits[last] & high != 0
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
    fn any_set_checks_exactly_the_range() {
        let mut bits = vec![0u64; 4];
        set(&mut bits, 70);
        for (from, to, want) in [
            (0, 70, false),
            (0, 71, true),
            (70, 71, true),
            (71, 256, false),
            (64, 128, true),
            (5, 5, false),
        ] {
            assert_eq!(any_set(&bits, from, to), want, "{from}..{to}");
        }
    }

    #[test]
    fn only_live_blocks_of_the_right_size_pass() {
        let mut blocks = Blocks::new(4096).unwrap();
        let a = blocks.carve(32);
        let b = blocks.carve(64);
        let c = blocks.carve(16);
        assert_eq!((a, b, c), (0, 32, 96));
        assert!(blocks.is_live_block(a, 32));
        assert!(blocks.is_live_block(b, 64));
        assert!(blocks.is_live_block(c, 16));
        assert!(!blocks.is_live_block(a, 16), "too small");
        assert!(!blocks.is_live_block(a, 96), "spans two blocks");
        assert!(!blocks.is_live_block(16, 16), "not a block start");
        assert!(!blocks.is_live_block(8, 32), "not on a granule");
        assert!(!blocks.is_live_block(c, 32), "past the carved bytes");
        assert!(!blocks.is_live_block(usize::MAX - 8, 32));
        blocks.kill(b, 64);
        assert!(!blocks.is_live_block(b, 64), "released twice");
        assert_eq!(blocks.live_bytes(), 48);
        blocks.revive(b, 64);
        assert!(blocks.is_live_block(b, 64));
    }
}

//! Blocks of ordinary chunks: the size classes, and the bitmaps that let an arena prove
//! that a view it is asked to release is one of its own live strings.
//!
//! An ordinary chunk is carved from the front into blocks of a size class, every block
//! starting on a 16-byte granule. Two bits per granule record the first granule of every
//! block carved so far (live or free) and of every live one. A block's size is the
//! distance to the next start (or to the end of the carved bytes), so a release of
//! `(offset, len)` is proven when a live block starts at `offset` and the next start is
//! exactly the size class of `len` further on. A view made up from raw bytes fails that
//! test and is ignored, where trusting it would put a block twice on a free list, or a
//! block of the wrong size, and let two strings share bytes.
//!
//! The two bits of 64 granules sit side by side in one 16-byte pair of words, so a proof
//! reads one or two adjacent pairs: releases in random order (an assignment through a
//! permutation) then miss the cache once, in bookkeeping of 1/64 of the chunk.
//!
//! The pairs are zeroed as carving reaches them, [`ZEROED_AHEAD`] at a time, not all
//! when the chunk is made: a pair not zeroed yet holds no start, and reads as zero.

use crate::error::{Error, Result};
use crate::view::MAX_INLINE_LEN;

/// Number of size classes: 16 classes of 16-byte steps up to 256 bytes, then four classes
/// per power of two up to 2^31.
#[cfg(test)]
pub(super) const CLASS_COUNT: usize = 16 + 4 * 23;

const GRANULE: usize = 16;

/// Pairs zeroed at a time as carving reaches them (1 KiB of bits for 64 KiB of chunk).
/// Zeroing the bits of a whole chunk (up to 16 KiB) when it is made was one `memset`
/// large enough for glibc to use `rep stosb`, which callgrind counts once per byte:
/// 11.6 instructions per element of `strip` on the long set. Allocating them zeroed
/// instead (`alloc_zeroed`) counted the same, as `calloc` clears memory it reuses.
/// Smaller pieces are cleared with vector stores, and a chunk only partly carved
/// (the last one of an array) clears only the bits it uses.
const ZEROED_AHEAD: usize = 64;

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
    /// Per 64 granules: the block-start bits and the live-block bits, as far as they
    /// were zeroed ([`Blocks::carve`]); the capacity holds the whole chunk's.
    bits: Vec<Pair>,
    /// Bytes carved from the front so far.
    carved: usize,
    /// Bytes of the live blocks.
    live_bytes: usize,
}

#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Pair {
    starts: u64,
    live: u64,
}

impl Blocks {
    /// Bookkeeping for a chunk of `len` bytes.
    pub(super) fn new(len: usize) -> Result<Blocks> {
        let pairs = len.div_ceil(GRANULE * 64);
        let mut bits = Vec::new();
        bits.try_reserve_exact(pairs)
            .map_err(|_| Error::OutOfMemory(pairs * 16))?;
        Ok(Blocks {
            bits,
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

    /// Carves a new live block of `block` bytes at the end of the carved bytes and
    /// returns its offset. The caller checked that it fits in the chunk. Always inlined:
    /// a few instructions on the path of every long string stored, which ThinLTO kept
    /// out of line in some loops.
    #[inline(always)]
    pub(super) fn carve(&mut self, block: usize) -> usize {
        let offset = self.carved;
        let (pair, bit) = place(offset);
        // As cheap as the bounds check of an index: one compare per block carved.
        let bits = match self.bits.get_mut(pair) {
            Some(bits) => bits,
            None => zero_ahead(&mut self.bits, pair),
        };
        bits.starts |= bit;
        bits.live |= bit;
        self.carved += block;
        self.live_bytes += block;
        offset
    }

    /// Gives the live block of `block` bytes at `offset`, the last one carved (checked
    /// with [`Blocks::is_live_block`]), back to the uncarved tail.
    #[inline]
    pub(super) fn uncarve(&mut self, offset: usize, block: usize) {
        debug_assert_eq!(offset + block, self.carved);
        let (pair, bit) = place(offset);
        self.bits[pair].starts &= !bit;
        self.bits[pair].live &= !bit;
        self.carved = offset;
        self.live_bytes -= block;
    }

    /// Marks the free block of `block` bytes at `offset` live again.
    #[inline]
    pub(super) fn revive(&mut self, offset: usize, block: usize) {
        let (pair, bit) = place(offset);
        self.bits[pair].live |= bit;
        self.live_bytes += block;
    }

    /// The same blocks, all of them free: the bookkeeping of a chunk shared into a copy
    /// of an array, whose strings claim their blocks one by one ([`Blocks::claim`]).
    pub(super) fn try_clone_free(&self) -> Result<Blocks> {
        let mut bits = Vec::new();
        bits.try_reserve_exact(self.bits.capacity())
            .map_err(|_| Error::OutOfMemory(self.bits.capacity() * 16))?;
        bits.extend(self.bits.iter().map(|pair| Pair {
            starts: pair.starts,
            live: 0,
        }));
        Ok(Blocks {
            bits,
            carved: self.carved,
            live_bytes: 0,
        })
    }

    /// Marks the free block of exactly `block` bytes at `offset` live; false (and no
    /// change) when no such free block starts there, for example a second view of a
    /// block already claimed.
    #[inline]
    pub(super) fn claim(&mut self, offset: usize, block: usize) -> bool {
        if !self.is_block(offset, block, false) {
            return false;
        }
        self.revive(offset, block);
        true
    }

    /// Whether a live block of exactly `block` bytes starts at `offset`.
    #[inline]
    pub(super) fn is_live_block(&self, offset: usize, block: usize) -> bool {
        self.is_block(offset, block, true)
    }

    /// Whether a block of exactly `block` bytes, live or free as `live` says, starts at
    /// `offset`.
    #[inline(always)]
    fn is_block(&self, offset: usize, block: usize, live: bool) -> bool {
        let Some(end) = offset.checked_add(block).filter(|&end| end <= self.carved) else {
            return false;
        };
        if offset % GRANULE != 0 || block % GRANULE != 0 || block == 0 {
            return false;
        }
        let (first, granules) = (offset / GRANULE, block / GRANULE);
        let (pair, bit) = place(offset);
        let Some(bits) = self.bits.get(pair) else {
            return false;
        };
        // A live block is a block start; a free one must be checked for it.
        if (bits.live & bit != 0) != live || (!live && bits.starts & bit == 0) {
            return false;
        }
        let shift = first % 64;
        if shift + granules >= 64 {
            return self.is_block_across_words(first, first + granules, end);
        }
        // Bit 0 is the block's own start: no other start inside it, and the next one
        // where it ends.
        let starts = bits.starts >> shift;
        let inside = (starts >> 1) & ((1 << (granules - 1)) - 1);
        inside == 0 && (end == self.carved || starts >> granules & 1 == 1)
    }

    /// [`Blocks::is_live_block`]'s size check for a block from granule `first` to `last`
    /// whose start bits reach into the next pair.
    #[cold]
    fn is_block_across_words(&self, first: usize, last: usize, end: usize) -> bool {
        let start = |i: usize| {
            let pair = self.bits.get(i / 64).copied().unwrap_or_default();
            pair.starts >> (i % 64) & 1 == 1
        };
        let ends_here = end == self.carved || start(last);
        ends_here && !any_start(&self.bits, first + 1, last)
    }

    /// Whether a live block starts at `offset` (of whatever size).
    #[inline(always)]
    pub(super) fn is_live_start(&self, offset: usize) -> bool {
        let (pair, bit) = place(offset);
        offset % GRANULE == 0 && self.bits.get(pair).is_some_and(|bits| bits.live & bit != 0)
    }

    /// How many live blocks the chunk holds.
    pub(super) fn live_count(&self) -> usize {
        self.bits
            .iter()
            .map(|pair| pair.live.count_ones() as usize)
            .sum()
    }

    /// Marks the live block at `offset` (checked with [`Blocks::is_live_block`]) of
    /// `block` bytes free.
    #[inline]
    pub(super) fn kill(&mut self, offset: usize, block: usize) {
        let (pair, bit) = place(offset);
        self.bits[pair].live &= !bit;
        self.live_bytes -= block;
    }
}

/// Whether any block starts at a granule in `from..to`.
fn any_start(bits: &[Pair], from: usize, to: usize) -> bool {
    let to = to.min(bits.len() * 64); // no start in pairs not zeroed yet
    if from >= to {
        return false;
    }
    let (first, last) = (from / 64, (to - 1) / 64);
    let low = u64::MAX << (from % 64);
    let high = u64::MAX >> (63 - (to - 1) % 64);
    if first == last {
        return bits[first].starts & low & high != 0;
    }
    bits[first].starts & low != 0
        || bits[first + 1..last].iter().any(|p| p.starts != 0)
        || bits[last].starts & high != 0
}

/// Zeroes the pairs from the end of `bits` to at least `pair`, [`ZEROED_AHEAD`] at a
/// time, within the capacity (which covers the whole chunk, so nothing is allocated),
/// and returns `pair`.
#[cold]
#[inline(never)]
fn zero_ahead(bits: &mut Vec<Pair>, pair: usize) -> &mut Pair {
    assert!(pair < bits.capacity(), "pair {pair} past the chunk");
    let len = (pair + 1)
        .max(bits.len() + ZEROED_AHEAD)
        .min(bits.capacity());
    bits.resize(len, Pair::default());
    &mut bits[pair]
}

/// The pair and the bit of the granule at `offset`.
#[inline]
fn place(offset: usize) -> (usize, u64) {
    let granule = offset / GRANULE;
    (granule / 64, 1 << (granule % 64))
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
    fn only_live_blocks_of_the_right_size_pass() {
        let mut blocks = Blocks::new(1 << 16).unwrap();
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
        assert!(!blocks.is_live_block(usize::MAX - 15, 32));
        blocks.kill(b, 64);
        assert!(!blocks.is_live_block(b, 64), "released twice");
        assert_eq!(blocks.live_bytes(), 48);
        blocks.revive(b, 64);
        assert!(blocks.is_live_block(b, 64));
    }

    #[test]
    fn a_free_copy_claims_each_block_once() {
        let mut blocks = Blocks::new(1 << 16).unwrap();
        let (a, b) = (blocks.carve(32), blocks.carve(1280));
        blocks.kill(a, 32);
        let mut copy = blocks.try_clone_free().unwrap();
        assert_eq!((copy.carved(), copy.live_bytes()), (blocks.carved(), 0));
        assert!(!copy.is_live_block(b, 1280));
        assert!(!copy.claim(b, 1296), "not the block's size");
        assert!(!copy.claim(16, 16), "not a block start");
        assert!(
            copy.claim(b, 1280) && copy.claim(a, 32),
            "a free block of the source too"
        );
        assert!(!copy.claim(b, 1280), "claimed twice");
        assert!(copy.is_live_block(b, 1280) && copy.is_live_block(a, 32));
        assert_eq!(copy.live_bytes(), 1312);
        assert!(!blocks.is_live_block(a, 32), "the source is unchanged");
    }

    #[test]
    fn blocks_across_words_and_over_64_granules() {
        let mut blocks = Blocks::new(1 << 16).unwrap();
        // Starts at granules 0, 60 (crosses into the next pair), 124, and a block of
        // 80 granules from 188.
        let sizes = [960, 1024, 1024, 1280, 16];
        let offsets: Vec<usize> = sizes.iter().map(|&s| blocks.carve(s)).collect();
        for (&offset, &size) in offsets.iter().zip(&sizes) {
            assert!(blocks.is_live_block(offset, size), "{offset} {size}");
            assert!(!blocks.is_live_block(offset, size + 16), "{offset} longer");
            assert!(!blocks.is_live_block(offset, size - 16), "{offset} shorter");
        }
        assert!(!blocks.is_live_block(offsets[1], 2048), "two blocks as one");
        assert!(
            !blocks.is_live_block(offsets[3], 1296),
            "the long block and the next"
        );
    }

    #[test]
    fn a_chunk_of_any_length_has_bits_for_every_granule() {
        let mut blocks = Blocks::new(1024 * 16 + 1).unwrap();
        assert!(blocks.bits.capacity() >= 17);
        assert_eq!(blocks.carve(1024 * 16), 0);
        assert_eq!(blocks.carve(16), 1024 * 16);
        assert!(blocks.is_live_block(1024 * 16, 16));
        assert_eq!(blocks.bits.len(), 17);
    }

    #[test]
    fn bits_are_zeroed_as_carving_reaches_them() {
        let chunk = 1 << 20;
        let mut blocks = Blocks::new(chunk).unwrap();
        assert!(
            blocks.bits.is_empty(),
            "nothing zeroed before a block is carved"
        );
        // Blocks that skip pairs, so that some are zeroed but never carved into.
        let mut offsets = Vec::new();
        while blocks.carved() + 2048 <= chunk {
            offsets.push(blocks.carve(2048));
            assert!(blocks.bits.len() * 1024 > blocks.carved() - 2048);
            let (first, last) = (blocks.carved() / 16, blocks.bits.len() * 64);
            assert!(
                !any_start(&blocks.bits, first, last),
                "zeroed bits hold no start"
            );
        }
        assert_eq!(blocks.bits.len(), chunk / 1024);
        for &offset in &offsets {
            assert!(blocks.is_live_block(offset, 2048));
            assert!(!blocks.is_live_block(offset + 1024, 1024), "a skipped pair");
        }
    }

    #[test]
    fn pairs_not_zeroed_yet_read_as_no_start() {
        let mut blocks = Blocks::new(1 << 20).unwrap();
        let a = blocks.carve(4096 * 33);
        let len = blocks.bits.len();
        assert!(len < 132, "the carved block's tail is not zeroed: {len}");
        assert!(blocks.is_live_block(a, 4096 * 33));
        assert!(!blocks.is_live_block(a, 4096 * 32), "ends inside the block");
        assert!(!blocks.is_live_start(1024 * 140));
        let copy = blocks.try_clone_free().unwrap();
        assert!(copy.bits.capacity() >= 1024);
        assert!(!copy.is_live_block(a, 4096 * 33));
    }

    #[test]
    fn a_huge_chunk_is_out_of_memory() {
        assert!(matches!(
            Blocks::new(usize::MAX),
            Err(Error::OutOfMemory(_))
        ));
    }
}

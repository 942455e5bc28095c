//! Lengths in code points (`str_len`) and conversions between code point and byte offsets.
//!
//! A code point starts at every byte that is not a UTF-8 continuation byte (`0b10xx_xxxx`),
//! so counting code points is counting bytes, which the loops below do eight at a time
//! in the byte lanes of a `u64` (like `core::str::count`), without needing `&str`.

use super::unicode::is_continuation;
use crate::swar;
use crate::view::View;

/// 32-byte blocks per batch: each byte lane of the accumulator gains at most four per
/// block, so 63 blocks keep every lane under 256.
const BLOCKS_PER_BATCH: usize = 63;

/// Minimum number of code points left for `byte_offset` to count in bulk.
const BULK: usize = 32;

/// Number of code points in the UTF-8 string `s` (Python's `len(str)`).
#[inline]
pub fn str_len(s: &[u8]) -> usize {
    if (8..=WORDS_UP_TO).contains(&s.len()) {
        return s.len() - count_continuation_words(s);
    }
    // Most strings are ASCII, and the standard library checks that a word at a time.
    if s.is_ascii() {
        return s.len();
    }
    s.len() - count_continuation_bytes(s)
}

/// The longest string that `str_len` counts with [`count_continuation_words`]. On
/// strings of tens of bytes, one pass with no branch on the bytes beats an ASCII check
/// followed, for a string that is not ASCII, by a second pass (medium set of the
/// benchmark: 34 -> 28 ms); on longer ASCII strings, the standard library's ASCII check
/// takes fewer instructions per byte.
const WORDS_UP_TO: usize = 64;

/// Number of continuation bytes in `s` (8 to 2040 bytes, so that no byte lane of the
/// accumulator, gaining at most one per word, reaches 256), a word at a time: the last
/// word is loaded overlapping the one before and shifted to its unread bytes.
#[inline]
fn count_continuation_words(s: &[u8]) -> usize {
    debug_assert!((8..=255 * 8).contains(&s.len()));
    let word = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("eight bytes"));
    let mut lanes = 0u64;
    let whole = s.len() / 8;
    for k in 0..whole {
        lanes += continuation_bits(word(8 * k)) >> 7;
    }
    let unread = s.len() % 8;
    if unread > 0 {
        lanes += (continuation_bits(word(s.len() - 8)) >> 7) >> (8 * (8 - unread));
    }
    sum_lanes(lanes)
}

/// Number of code points of a UTF-8 string of at most 16 bytes, counted in one 16-byte
/// integer without a loop. For the `str_len` loop, where every long string of the
/// commonest short ones (13-16 bytes) comes here; in the other kernels, which mostly
/// count strings of 0-12 bytes, [`str_len`]'s ASCII check is cheaper.
#[inline]
pub fn short_str_len(s: &[u8]) -> usize {
    debug_assert!(s.len() <= 16);
    s.len() - swar::continuation_lanes(swar::load(s)).count_ones() as usize
}

/// Number of code points of an inline (`len <= 12`, not missing) view, from its 16 bytes
/// without a branch: the unused bytes of an inline view are zero, and zero is no
/// continuation byte. For a long string or a missing value the number means nothing
/// (the caller tells them apart with [`View::is_inline_string`]), and costs no branch.
#[inline]
pub fn inline_str_len(view: View) -> usize {
    let continuation = swar::continuation_lanes(view.data_lanes()).count_ones();
    view.len().wrapping_sub(continuation as usize)
}

/// Number of continuation bytes in `s`.
#[inline]
pub fn count_continuation_bytes(s: &[u8]) -> usize {
    let mut blocks = s.chunks_exact(32);
    let mut total = 0;
    while blocks.len() > 0 {
        // One byte-wide counter per lane, summed once per batch.
        let mut lanes = 0u64;
        for block in blocks.by_ref().take(BLOCKS_PER_BATCH) {
            for word in block.chunks_exact(8) {
                let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
                lanes += continuation_bits(x) >> 7;
            }
        }
        total += sum_lanes(lanes);
    }
    let tail = blocks.remainder();
    let mut words = tail.chunks_exact(8);
    let mut lanes = 0u64;
    for word in &mut words {
        lanes += continuation_bits(u64::from_le_bytes(word.try_into().expect("eight bytes"))) >> 7;
    }
    total
        + sum_lanes(lanes)
        + words
            .remainder()
            .iter()
            .filter(|&&b| is_continuation(b))
            .count()
}

/// Bit 7 of each byte of the result is set where that byte of `x` is a continuation byte:
/// shifting moves each byte's bit 6 under its bit 7, and continuation is `10` on top.
#[inline]
fn continuation_bits(x: u64) -> u64 {
    x & !(x << 1) & 0x8080_8080_8080_8080
}

/// Sum of the eight byte lanes of `lanes`.
#[inline]
fn sum_lanes(lanes: u64) -> usize {
    const EVEN_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    let pairs = (lanes & EVEN_BYTES) + ((lanes >> 8) & EVEN_BYTES);
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
}

/// Byte offset of code point number `index` in `s`, or `s.len()` when `s` has no more
/// than `index` code points.
#[inline]
pub fn byte_offset(s: &[u8], index: usize) -> usize {
    let mut offset = 0;
    let mut remaining = index;
    // The next `remaining` bytes start at most `remaining` code points: count those starts
    // in bulk and go on from the first code point at or after the window.
    while remaining >= BULK {
        let end = offset + remaining;
        if end > s.len() {
            return s.len();
        }
        remaining -= str_len(&s[offset..end]);
        offset = end;
        while offset < s.len() && is_continuation(s[offset]) {
            offset += 1;
        }
    }
    skip_chars(s, offset, remaining)
}

/// Byte offset of code point number `index` counted from the end of `s` (`index` code
/// points are after the returned offset), or 0 when `s` has no more than `index`.
#[inline]
pub fn byte_offset_from_end(s: &[u8], index: usize) -> usize {
    let mut end = s.len();
    let mut count = index;
    while count > 0 && end > 0 {
        end -= 1;
        while end > 0 && is_continuation(s[end]) {
            end -= 1;
        }
        count -= 1;
    }
    end
}

/// Byte offset reached from `offset` after skipping `count` code points (or `s.len()`).
#[inline]
fn skip_chars(s: &[u8], mut offset: usize, mut count: usize) -> usize {
    while count > 0 && offset < s.len() {
        offset += 1;
        while offset < s.len() && is_continuation(s[offset]) {
            offset += 1;
        }
        count -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_len_matches_chars_count() {
        let samples = ["", "a", "é", "aé€😀", "ß🎉 中文 abc", "\0\0x"];
        for sample in samples {
            for reps in [1, 7, 31, 32, 33, 300, 9000] {
                let s = sample.repeat(reps);
                assert_eq!(
                    str_len(s.as_bytes()),
                    s.chars().count(),
                    "{sample:?} x {reps}"
                );
            }
        }
        // Every length of the word count and past it, with continuation bytes at the end.
        for len in (0..WORDS_UP_TO + 20).chain(2030..2050) {
            for text in [
                "é".repeat(len / 2),
                "a".repeat(len),
                "aé".repeat(len / 3) + "é",
            ] {
                assert_eq!(str_len(text.as_bytes()), text.chars().count(), "{text:?}");
            }
        }
        // Every length from 0 to 33 bytes, through ASCII and multi-byte characters.
        let mixed = "aé€😀bß中x\0yzé€😀";
        for (end, _) in mixed.char_indices().chain([(mixed.len(), ' ')]) {
            let s = &mixed[..end];
            assert_eq!(str_len(s.as_bytes()), s.chars().count(), "{s:?}");
            if s.len() <= 16 {
                assert_eq!(short_str_len(s.as_bytes()), s.chars().count(), "{s:?}");
            }
        }
    }

    #[test]
    fn byte_offsets_match_char_indices() {
        for sample in ["abc", "aé€😀x", "中文字符", "é"] {
            let s = sample.repeat(50);
            let bytes = s.as_bytes();
            let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
            let n = starts.len();
            for index in 0..n + 3 {
                let want = starts.get(index).copied().unwrap_or(s.len());
                assert_eq!(byte_offset(bytes, index), want, "{sample:?} {index}");
                let want_back = match index {
                    0 => s.len(),
                    i if i >= n => 0,
                    i => starts[n - i],
                };
                assert_eq!(
                    byte_offset_from_end(bytes, index),
                    want_back,
                    "{sample:?} {index}"
                );
            }
        }
    }

    #[test]
    fn inline_lengths_match_str_len() {
        for text in [
            "",
            "a",
            "exactly12byt",
            "é",
            "日本語",
            "😀😀😀",
            "a\0b",
            "ßßßßßß",
        ] {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            assert_eq!(inline_str_len(view), text.chars().count(), "{text:?}");
        }
    }
}

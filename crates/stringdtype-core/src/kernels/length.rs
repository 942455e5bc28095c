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
    if s.len() >= 16 {
        return count_code_points_wide(s);
    }
    if s.len() >= 8 {
        return s.len() - count_continuation_words(s);
    }
    // Most strings are ASCII, and the standard library checks that a word at a time.
    if s.is_ascii() {
        return s.len();
    }
    s.len() - count_continuation_bytes(s)
}

/// Number of code points of a string of at least 16 bytes, 16 bytes at a time in SSE2
/// registers (part of every x86-64 processor), with no branch on the bytes: each lane
/// of an accumulator counts the code point starts of its column, and one sum of
/// absolute differences adds the lanes up. A length that is no multiple of 16 ends
/// with the block of the last 16 bytes, masked to the lanes not counted yet.
///
/// On the benchmark's medium set (16-64 bytes, a fifth with non-ASCII characters) this
/// replaced a count in the byte lanes of `u64` words.
#[cfg(target_arch = "x86_64")]
#[inline]
fn count_code_points_wide(s: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpgt_epi8, _mm_cvtsi128_si64, _mm_extract_epi16,
        _mm_loadu_si128, _mm_sad_epu8, _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8,
    };
    debug_assert!(s.len() >= 16);
    let mut blocks = s.chunks_exact(16);
    let unread = blocks.remainder().len();
    let last = &s[s.len() - 16..];
    let mask = &TAIL_MASK[unread..unread + 16];
    let mut total = 0;
    // SAFETY: SSE2 is enabled on every x86-64 target. Every unaligned load reads the 16
    // bytes of a slice of exactly 16 bytes: a block of `chunks_exact(16)`, `last` and
    // `mask`.
    unsafe {
        // A byte starts a code point unless it is a continuation byte, which as an `i8`
        // is -128..=-65.
        let above_continuation = _mm_set1_epi8(-65);
        let starts = |block: &[u8]| {
            _mm_cmpgt_epi8(_mm_loadu_si128(block.as_ptr().cast()), above_continuation)
        };
        // Each start subtracts -1 from its lane; 255 blocks fill a lane at most.
        // The two sums of eight lanes are at most 2040 each, so the high one is its
        // low 16 bits.
        let sum = |lanes: __m128i| {
            let halves = _mm_sad_epu8(lanes, _mm_setzero_si128());
            _mm_cvtsi128_si64(halves) as usize + _mm_extract_epi16::<4>(halves) as usize
        };
        while blocks.len() >= 255 {
            let mut lanes = _mm_setzero_si128();
            for block in blocks.by_ref().take(255) {
                lanes = _mm_sub_epi8(lanes, starts(block));
            }
            total += sum(lanes);
        }
        // At most 254 blocks and the last one.
        let mut lanes = _mm_setzero_si128();
        for block in blocks {
            lanes = _mm_sub_epi8(lanes, starts(block));
        }
        let tail = _mm_and_si128(starts(last), _mm_loadu_si128(mask.as_ptr().cast()));
        lanes = _mm_sub_epi8(lanes, tail);
        total += sum(lanes);
    }
    total
}

/// 16 zero bytes, then 16 of all ones: its 16 bytes from `n` select the last `n` lanes.
#[cfg(target_arch = "x86_64")]
static TAIL_MASK: [u8; 32] = {
    let mut table = [0; 32];
    let mut i = 16;
    while i < 32 {
        table[i] = 0xff;
        i += 1;
    }
    table
};

/// [`str_len`] of a string of at least 16 bytes, elsewhere: in the byte lanes of `u64`
/// words up to [`WORDS_UP_TO`] bytes, past it an ASCII check first.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn count_code_points_wide(s: &[u8]) -> usize {
    if s.len() <= WORDS_UP_TO {
        return s.len() - count_continuation_words(s);
    }
    if s.is_ascii() {
        return s.len();
    }
    s.len() - count_continuation_bytes(s)
}

/// The longest string that `str_len` counts with [`count_continuation_words`] where it
/// has no SSE2 count. On
/// strings of tens of bytes, one pass with no branch on the bytes beats an ASCII check
/// followed, for a string that is not ASCII, by a second pass (medium set of the
/// benchmark: 34 -> 28 ms); on longer ASCII strings, the standard library's ASCII check
/// takes fewer instructions per byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
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
    view.len().wrapping_sub(inline_continuation_bytes(view))
}

/// Continuation bytes among the twelve data bytes of a view, in SSE2 registers: one
/// compare of the 16 bytes (a continuation byte, 0x80-0xBF, is below -64 as a signed
/// byte), a mask of the data lanes and a count of its bits.
#[cfg(target_arch = "x86_64")]
#[inline]
fn inline_continuation_bytes(view: View) -> usize {
    use std::arch::x86_64::{_mm_cmplt_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
    let lanes = view.as_u128();
    // SAFETY: SSE2 is part of every x86_64 CPU.
    let below = unsafe {
        let bytes = _mm_set_epi64x((lanes >> 64) as i64, lanes as i64);
        _mm_movemask_epi8(_mm_cmplt_epi8(bytes, _mm_set1_epi8(-64)))
    };
    // Lanes 0-3 are the length field.
    (below as u32 & 0xfff0).count_ones() as usize
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn inline_continuation_bytes(view: View) -> usize {
    swar::continuation_lanes(view.data_lanes()).count_ones() as usize
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
    fn str_len_counts_every_block_position() {
        // A character of two, three or four bytes at every byte position of strings of
        // 0 to 80 bytes (every place in and across 16-byte blocks, the masked last one
        // included), with NULs around it.
        for len in 0..=80 {
            let ascii: String = (0..len)
                .map(|i| if i % 7 == 3 { '\0' } else { 'x' })
                .collect();
            assert_eq!(str_len(ascii.as_bytes()), len, "{ascii:?}");
            for wide in ["é", "€", "😀"].into_iter().filter(|w| w.len() <= len) {
                for at in 0..=len - wide.len() {
                    let text = format!("{}{wide}{}", &ascii[..at], &ascii[at + wide.len()..]);
                    assert_eq!(text.len(), len);
                    assert_eq!(str_len(text.as_bytes()), text.chars().count(), "{text:?}");
                }
            }
        }
        // Around the 255 blocks after which the lanes are summed: every lane full of
        // starts (ASCII), or of continuation bytes.
        for len in (255 * 16 - 20..255 * 16 + 40).chain(510 * 16 - 3..510 * 16 + 20) {
            let ascii = "a".repeat(len);
            assert_eq!(str_len(ascii.as_bytes()), len);
            let wide = "€".repeat(len / 3) + &"a".repeat(len % 3);
            assert_eq!(str_len(wide.as_bytes()), wide.chars().count(), "{len}");
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

    #[test]
    fn inline_lengths_count_every_lane() {
        // A character of two, three or four bytes at every position of every length up
        // to twelve bytes, ASCII around it: each continuation byte in each data lane.
        for wide in ["\u{e9}", "\u{65e5}", "\u{1f600}"] {
            for len in wide.len()..=12 {
                for at in 0..=len - wide.len() {
                    let text = format!(
                        "{}{wide}{}",
                        "a".repeat(at),
                        "\0".repeat(len - wide.len() - at)
                    );
                    let view = View::try_inline(text.as_bytes()).expect("inline");
                    assert_eq!(inline_str_len(view), text.chars().count(), "{text:?}");
                }
            }
        }
    }
}

//! Case conversion: `upper`, `lower`, `swapcase`, `capitalize`, `title` and `casefold`,
//! appended to the caller's buffer with Python's results.
//!
//! Mappings are full (one code point may become up to three: 'ß'.upper() == 'SS'). The
//! final sigma rule of `lower` (and of the lowering inside `swapcase`, `capitalize` and
//! `title`) is applied here, as CPython's `handle_capital_sigma` does, because it depends
//! on the neighbouring code points, not on the tables. A string that is all ASCII is
//! converted byte by byte, without decoding.

use super::unicode::{decode_at, push_char, CharIndices, UnicodeTables};
use crate::swar;
use crate::view::View;

const CAPITAL_SIGMA: char = '\u{3a3}';
const SMALL_SIGMA: char = '\u{3c3}';
const FINAL_SIGMA: char = '\u{3c2}';

/// The case conversions that [`inline_ascii_case`] does from a view alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiCase {
    Upper,
    Lower,
    Swap,
    Capitalize,
    Title,
}

/// `upper`, `lower`, `swapcase`, `capitalize` or `title` of an inline, all-ASCII string, computed
/// on its view (every byte at once: a letter's case is bit 5); `None` for a long or
/// missing string or one with a non-ASCII byte.
#[inline]
pub fn inline_ascii_case(view: View, case: AsciiCase) -> Option<View> {
    let data = view.inline_ascii_lanes()?;
    // The top bit of a lane, shifted down twice, is its case bit (0x20).
    let lower = swar::in_range(data, b'a', b'z') >> 2;
    let upper = swar::in_range(data, b'A', b'Z') >> 2;
    let flip = match case {
        AsciiCase::Upper => lower,
        AsciiCase::Lower => upper,
        AsciiCase::Swap => lower | upper,
        // The first letter up, the others down.
        AsciiCase::Capitalize => (lower & 0xff) | (upper & !0xff),
        AsciiCase::Title => title_flips(data, false),
    };
    Some(View::from_u128(view.as_u128() ^ (flip << 32)))
}

/// Calls `map` with the byte offset and value of each code point of `s`.
#[inline]
fn for_each_char(s: &[u8], mut map: impl FnMut(usize, char)) {
    let mut i = 0;
    while i < s.len() {
        let (c, width) = decode_at(s, i);
        map(i, c);
        i += width;
    }
}

/// Which ASCII letters a conversion flips the case bit (0x20) of: the bytes that, with
/// `FOLD` set, are one of the 26 letters from `FIRST` on.
trait Flips {
    const FOLD: u8;
    const FIRST: u8;

    /// The bits to flip in `b`: 0x20 for a selected letter, else 0.
    #[inline(always)]
    fn byte(b: u8) -> u8 {
        u8::from((b | Self::FOLD).wrapping_sub(Self::FIRST) < 26) << 5
    }
}

/// The 26 letters from `FIRST` on: [`Up`] flips the lower case ones, [`Down`] the upper.
struct Letters<const FIRST: u8>;
type Up = Letters<b'a'>;
type Down = Letters<b'A'>;

impl<const FIRST: u8> Flips for Letters<FIRST> {
    const FOLD: u8 = 0;
    const FIRST: u8 = FIRST;
}

/// Every letter (`swapcase`): setting the case bit first folds both cases onto one range.
struct Both;

impl Flips for Both {
    const FOLD: u8 = 0x20;
    const FIRST: u8 = b'a';
}

/// The 16 lanes of `x` (ASCII bytes) with the case bits `F` selects flipped.
#[inline(always)]
fn flip_lanes<F: Flips>(x: u128) -> u128 {
    let folded = x | (swar::LANES * u128::from(F::FOLD));
    // The top bit of a lane, shifted down twice, is its case bit.
    x ^ (swar::in_range(folded, F::FIRST, F::FIRST + 25) >> 2)
}

/// Writes the 16 bytes of `src` to `dst` with the case bits `F` selects flipped, in
/// SSE2 registers (part of every x86-64 processor).
///
/// Explicit, because the compiler's own vectorisation of this step was fragile: over
/// `[u8; 16]` blocks it vectorised across blocks (a load per byte), and inlined into a
/// loop driver (where `src` and `dst` are no longer known apart) it did not vectorise.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn flip16<F: Flips>(src: &[u8; 16], dst: &mut [u8; 16]) {
    use std::arch::x86_64::{
        _mm_add_epi8, _mm_and_si128, _mm_cmplt_epi8, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi8,
        _mm_storeu_si128, _mm_xor_si128,
    };
    // SAFETY: SSE2 is enabled on every x86-64 target; the unaligned load reads the 16
    // bytes `src` borrows, and the unaligned store writes the 16 bytes `dst` borrows.
    unsafe {
        let lane = |byte: u8| _mm_set1_epi8(byte as i8);
        let x = _mm_loadu_si128(src.as_ptr().cast());
        // Moving `FIRST` to -128 makes the unsigned test `< 26` a signed one.
        let moved = _mm_add_epi8(_mm_or_si128(x, lane(F::FOLD)), lane(0x80 - F::FIRST));
        let letters = _mm_cmplt_epi8(moved, lane(0x80 + 26));
        let flipped = _mm_xor_si128(x, _mm_and_si128(letters, lane(0x20)));
        _mm_storeu_si128(dst.as_mut_ptr().cast(), flipped);
    }
}

/// [`flip16`] in the lanes of an integer, elsewhere.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn flip16<F: Flips>(src: &[u8; 16], dst: &mut [u8; 16]) {
    *dst = flip_lanes::<F>(u128::from_le_bytes(*src)).to_le_bytes();
}

/// [`flip16`] of the 16 bytes at `at` of `src` into the same place of `dst`.
#[inline(always)]
fn flip16_at<F: Flips>(src: &[u8], dst: &mut [u8], at: usize) {
    let src = src[at..at + 16].try_into().expect("16 bytes");
    let dst = (&mut dst[at..at + 16]).try_into().expect("16 bytes");
    flip16::<F>(src, dst);
}

/// Writes `src` (ASCII bytes only) to `dst` (as long) with the case bits `F` selects
/// flipped, 16 bytes at a time. A length that is no multiple of 16 ends with a block
/// overlapping the one before, and a string of 4 to 15 bytes is two overlapping words
/// in one integer: each output byte depends on its input byte alone, so the bytes
/// written twice are written the same (`src` and `dst` never overlap). The tail of
/// chunks of 16 in one `u128` (a variable shift and a `memcpy` call) cost about 100
/// instructions an element on the benchmark's medium strings.
#[inline(always)]
fn map_ascii<F: Flips>(src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let len = src.len().min(dst.len());
    if len >= 16 {
        let mut at = 0;
        while at + 16 <= len {
            flip16_at::<F>(src, dst, at);
            at += 16;
        }
        if at < len {
            flip16_at::<F>(src, dst, len - 16);
        }
    } else if len >= 8 {
        let word = |at: usize| u64::from_le_bytes(src[at..at + 8].try_into().expect("8 bytes"));
        let x = flip_lanes::<F>(u128::from(word(0)) | (u128::from(word(len - 8)) << 64));
        dst[..8].copy_from_slice(&(x as u64).to_le_bytes());
        dst[len - 8..len].copy_from_slice(&((x >> 64) as u64).to_le_bytes());
    } else if len >= 4 {
        let word = |at: usize| u32::from_le_bytes(src[at..at + 4].try_into().expect("4 bytes"));
        let x = flip_lanes::<F>(u128::from(word(0)) | (u128::from(word(len - 4)) << 64));
        dst[..4].copy_from_slice(&(x as u32).to_le_bytes());
        dst[len - 4..len].copy_from_slice(&((x >> 64) as u32).to_le_bytes());
    } else {
        for (to, &from) in dst[..len].iter_mut().zip(src) {
            *to = from ^ F::byte(from);
        }
    }
}

/// Appends `s` (ASCII bytes only) converted by `map`, which writes as many bytes.
#[inline(always)]
fn extend_mapped(s: &[u8], out: &mut Vec<u8>, map: impl FnOnce(&[u8], &mut [u8])) {
    let start = out.len();
    out.resize(start + s.len(), 0);
    map(s, &mut out[start..]);
}

/// Appends `ascii` (ASCII bytes only) with the case bits `F` selects flipped.
#[inline(always)]
fn extend_ascii<F: Flips>(ascii: &[u8], out: &mut Vec<u8>) {
    extend_mapped(ascii, out, map_ascii::<F>);
}

/// `s.upper()` of an all-ASCII `s`, written to `dst` (as long as `s`, the result's
/// length): the kernel a loop runs straight into the result's block.
#[inline(always)]
pub fn upper_ascii(s: &[u8], dst: &mut [u8]) {
    map_ascii::<Up>(s, dst);
}

/// `s.lower()` (and `s.casefold()`) of an all-ASCII `s`, written to `dst` (as long).
#[inline(always)]
pub fn lower_ascii(s: &[u8], dst: &mut [u8]) {
    map_ascii::<Down>(s, dst);
}

/// `s.swapcase()` of an all-ASCII `s`, written to `dst` (as long).
#[inline(always)]
pub fn swapcase_ascii(s: &[u8], dst: &mut [u8]) {
    map_ascii::<Both>(s, dst);
}

/// `s.capitalize()` of an all-ASCII `s`, written to `dst` (as long).
#[inline(always)]
pub fn capitalize_ascii(s: &[u8], dst: &mut [u8]) {
    if let (Some((&first, rest)), Some((to, dst))) = (s.split_first(), dst.split_first_mut()) {
        *to = first.to_ascii_uppercase();
        map_ascii::<Down>(rest, dst);
    }
}

/// The case bits `title` flips in 16 lanes of ASCII bytes: a letter after a letter
/// goes down, any other letter up. `after_letter` says whether the byte before lane 0
/// is a letter (ASCII's cased code points are its letters).
#[inline(always)]
fn title_flips(x: u128, after_letter: bool) -> u128 {
    let lower = swar::in_range(x, b'a', b'z');
    let upper = swar::in_range(x, b'A', b'Z');
    // The top bit of each lane whose byte follows a letter.
    let follows = ((lower | upper) << 8) | (u128::from(after_letter) << 7);
    // The top bit of a lane, shifted down twice, is its case bit.
    ((lower & !follows) | (upper & follows)) >> 2
}

/// `s.title()` of an all-ASCII `s`, written to `dst` (as long): 16 bytes at a time in
/// the lanes of an integer, each block told whether the byte before it is a letter, the
/// last block overlapping the one before (a byte at a time with the state in a
/// variable took about 17 instructions a byte).
#[inline(always)]
pub fn title_ascii(s: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(s.len(), dst.len());
    let len = s.len().min(dst.len());
    if len < 16 {
        let x = swar::load(&s[..len]);
        dst[..len].copy_from_slice(&(x ^ title_flips(x, false)).to_le_bytes()[..len]);
        return;
    }
    let mut at = 0;
    while at < len {
        let start = at.min(len - 16);
        let after_letter = start > 0 && s[start - 1].is_ascii_alphabetic();
        let x = u128::from_le_bytes(s[start..start + 16].try_into().expect("16 bytes"));
        let flipped = x ^ title_flips(x, after_letter);
        dst[start..start + 16].copy_from_slice(&flipped.to_le_bytes());
        at += 16;
    }
}

/// The length of the run of ASCII bytes that starts `s`, eight bytes at a time (a
/// byte-wise search took about a fifth of `upper`'s instructions on the benchmark's
/// medium strings, a fifth of which hold two non-ASCII code points).
#[inline]
fn ascii_run(s: &[u8]) -> usize {
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let high = u64::from_le_bytes(word.try_into().expect("8 bytes")) & 0x8080_8080_8080_8080;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let rest = words.remainder();
    at + rest
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(rest.len())
}

/// Converts the runs of ASCII bytes of `s` from byte `start` on with `F`
/// ([`extend_ascii`]) and hands each other code point, with its byte offset, to `other`.
#[inline]
fn for_each_run<F: Flips>(
    s: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    mut other: impl FnMut(usize, char, &mut Vec<u8>),
) {
    let mut i = start;
    while i < s.len() {
        let run = ascii_run(&s[i..]);
        extend_ascii::<F>(&s[i..i + run], out);
        i += run;
        if i < s.len() {
            let (c, width) = decode_at(s, i);
            other(i, c, out);
            i += width;
        }
    }
}

/// Whether the capital sigma at byte `at` of `s` ends a word (CPython's
/// `handle_capital_sigma`): a cased code point precedes it and none follows it, skipping
/// case-ignorable code points both ways.
fn is_final_sigma<U: UnicodeTables + ?Sized>(s: &[u8], at: usize, tables: &U) -> bool {
    let is_significant = |&(_, c): &(usize, char)| !tables.is_case_ignorable(c);
    let before = CharIndices::new(&s[..at]).rev().find(is_significant);
    if !before.is_some_and(|(_, c)| tables.is_cased(c)) {
        return false;
    }
    let after_sigma = at + CAPITAL_SIGMA.len_utf8();
    let after = CharIndices::new(&s[after_sigma..]).find(is_significant);
    !after.is_some_and(|(_, c)| tables.is_cased(c))
}

/// Appends the lower case of `c` (at byte `at` of `s`), with the final sigma rule.
#[inline]
fn push_lower<U: UnicodeTables + ?Sized>(
    s: &[u8],
    at: usize,
    c: char,
    tables: &U,
    out: &mut Vec<u8>,
) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase() as u8);
    } else if c == CAPITAL_SIGMA {
        let sigma = if is_final_sigma(s, at, tables) {
            FINAL_SIGMA
        } else {
            SMALL_SIGMA
        };
        push_char(out, sigma);
    } else {
        tables.to_lower(c).push_utf8(out);
    }
}

/// `s.lower()`.
pub fn lower<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Down>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Down>(s, 0, out, |at, c, out| push_lower(s, at, c, tables, out));
}

/// `s.upper()`.
pub fn upper<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Up>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Up>(s, 0, out, |_, c, out| tables.to_upper(c).push_utf8(out));
}

/// `s.casefold()`: lower case for ASCII, full case folding elsewhere ('ß' -> 'ss').
pub fn casefold<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Down>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Down>(s, 0, out, |_, c, out| tables.to_fold(c).push_utf8(out));
}

/// `s.swapcase()`: upper case code points lowered (with final sigma), lower case ones
/// uppered, the rest kept.
pub fn swapcase<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, swapcase_ascii);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Both>(s, 0, out, |at, c, out| {
        if tables.is_upper(c) {
            push_lower(s, at, c, tables, out);
        } else if tables.is_lower(c) {
            tables.to_upper(c).push_utf8(out);
        } else {
            push_char(out, c);
        }
    });
}

/// Appends the title case of `c`.
#[inline]
fn push_title<U: UnicodeTables + ?Sized>(c: char, tables: &U, out: &mut Vec<u8>) {
    if c.is_ascii() {
        out.push(c.to_ascii_uppercase() as u8);
    } else {
        tables.to_title(c).push_utf8(out);
    }
}

/// `s.capitalize()`: the first code point title-cased (Python 3.8+), the rest lowered.
pub fn capitalize<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, capitalize_ascii);
        return;
    }
    out.reserve(s.len());
    let (first, width) = decode_at(s, 0);
    push_title(first, tables, out);
    for_each_run::<Down>(s, width, out, |at, c, out| {
        push_lower(s, at, c, tables, out)
    });
}

/// `s.title()`: a code point after a cased one is lowered, any other is title-cased.
/// Like CPython, only "cased" matters, so `"they're".title() == "They'Re"`.
pub fn title<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, title_ascii);
        return;
    }
    let mut previous_is_cased = false;
    out.reserve(s.len());
    for_each_char(s, |at, c| {
        if previous_is_cased {
            push_lower(s, at, c, tables, out);
        } else {
            push_title(c, tables, out);
        }
        previous_is_cased = if c.is_ascii() {
            c.is_ascii_alphabetic()
        } else {
            tables.is_cased(c)
        };
    });
}

#[cfg(test)]
#[path = "case_tests.rs"]
mod tests;

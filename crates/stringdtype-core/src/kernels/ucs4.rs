//! NumPy's fixed-width `U` elements (UCS4 code units) to UTF-8 and back, for the casts.
//!
//! An element is a run of code units of four bytes each, in the array's byte order
//! (`swapped` when it is not the machine's), padded with NUL code units; it comes as
//! `[[u8; 4]]`, which any alignment of NumPy's data satisfies. ASCII, the common case, is
//! converted eight code units at a time.

use crate::error::{Error, Result};
use crate::view::{View, MAX_INLINE_LEN};

/// Code units converted at once (NUL padding, ASCII runs).
const ASCII_RUN: usize = 8;

/// The code point of `unit`, a code unit of an element in the byte order `swapped` says.
#[inline(always)]
fn decode(unit: [u8; 4], swapped: bool) -> u32 {
    let raw = u32::from_ne_bytes(unit);
    if swapped {
        raw.swap_bytes()
    } else {
        raw
    }
}

/// `code` as a code unit in the byte order `swapped` says.
#[inline(always)]
fn encode(code: u32, swapped: bool) -> [u8; 4] {
    decode(code.to_ne_bytes(), swapped).to_ne_bytes()
}

/// Appends the UTF-8 encoding of the code units `units` to `out`, without their trailing
/// NULs (padding, not part of the string). Errors with [`Error::InvalidCodePoint`] for a
/// surrogate or a code unit over U+10FFFF (`out` then holds the text before it), and with
/// [`Error::OutOfMemory`] when `out` cannot grow.
#[inline]
pub fn ucs4_to_utf8(units: &[[u8; 4]], swapped: bool, out: &mut Vec<u8>) -> Result<()> {
    // The padding is skipped a run at a time, then code unit by code unit.
    let mut units = units;
    while let Some((before, run)) = units.split_last_chunk::<ASCII_RUN>() {
        if run
            .iter()
            .fold(0, |any, &unit| any | u32::from_ne_bytes(unit))
            != 0
        {
            break;
        }
        units = before;
    }
    let len = units
        .iter()
        .rposition(|&unit| u32::from_ne_bytes(unit) != 0)
        .map_or(0, |last| last + 1);
    out.try_reserve(4 * len)
        .map_err(|_| Error::OutOfMemory(4 * len))?;
    let done = narrow_ascii_blocks(&units[..len], swapped, out);
    let mut rest = &units[done..len];
    while let Some((&unit, after)) = rest.split_first() {
        // Runs in the machine's byte order only: the common case, one load each.
        let run = if swapped {
            None
        } else {
            rest.split_first_chunk::<ASCII_RUN>()
        };
        if let Some((run, after)) = run {
            let run = run.map(u32::from_ne_bytes);
            if run.iter().fold(0, |any, &code| any | code) < 0x80 {
                out.extend(run.map(|code| code as u8));
                rest = after;
                continue;
            }
        }
        let code = decode(unit, swapped);
        let c = char::from_u32(code).ok_or(Error::InvalidCodePoint(code))?;
        let mut buf = [0; 4];
        for &byte in c.encode_utf8(&mut buf).as_bytes() {
            out.push(byte);
        }
        rest = after;
    }
    Ok(())
}

/// Narrows the leading ASCII code units of `units` 16 at a time onto the end of `out`,
/// stopping at the first block with a code unit of 0x80 or more or when `out` has no
/// room left for a block; returns the code units done. Native byte order only (0
/// otherwise): SSE2 checks the 64 bytes of a block with one compare and packs them with
/// three saturating packs, where the eight-unit runs' `extend` checked the vector's room
/// each time and compiled to other code in each loop it was inlined into (`from_U` of
/// the long set 1.13x the instructions in one of them).
#[inline(always)]
fn narrow_ascii_blocks(units: &[[u8; 4]], swapped: bool, out: &mut Vec<u8>) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_packs_epi32, _mm_packus_epi16, _mm_setzero_si128, _mm_srli_epi32, _mm_storeu_si128,
        };
        const BLOCK: usize = 16;
        if swapped {
            return 0;
        }
        let mut at = 0;
        while at + BLOCK <= units.len() && out.capacity() - out.len() >= BLOCK {
            let from = &units[at..at + BLOCK];
            // SAFETY: SSE2 is enabled on every x86-64 target. The four loads read the 64
            // bytes of `from`; the store writes 16 bytes of `out`'s spare capacity
            // (checked above), which the new length then covers.
            unsafe {
                let units = from.as_ptr().cast::<__m128i>();
                let (a, b) = (_mm_loadu_si128(units), _mm_loadu_si128(units.add(1)));
                let (c, d) = (_mm_loadu_si128(units.add(2)), _mm_loadu_si128(units.add(3)));
                // ASCII: no code unit has a bit set from bit 7 up.
                let high =
                    _mm_srli_epi32::<7>(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
                if _mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) != 0xFFFF {
                    break;
                }
                // Below 0x80 the signed and unsigned saturations keep every value.
                let bytes = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
                _mm_storeu_si128(out.as_mut_ptr().add(out.len()).cast(), bytes);
                out.set_len(out.len() + BLOCK);
            }
            at += BLOCK;
        }
        at
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (units, swapped, out);
        0
    }
}

/// Writes the UTF-8 text `bytes` as code units into the element `units`: cut to its
/// length, the rest NUL padded. Errors with [`Error::InvalidUtf8`] when the text, from
/// its first non-ASCII byte among those that fit, is not UTF-8 (the error's positions
/// count from that byte); `units` then holds the ASCII before it.
#[inline]
pub fn utf8_to_ucs4(bytes: &[u8], swapped: bool, units: &mut [[u8; 4]]) -> Result<()> {
    let fits = units.len().min(bytes.len());
    // ASCII is widened 16 bytes at a time, then a run of eight, then byte by byte, up
    // to the first non-ASCII byte; only the rest is validated and decoded.
    let mut at = widen_ascii_blocks(bytes, swapped, units, fits);
    while at + ASCII_RUN <= fits {
        let run: [u8; ASCII_RUN] = bytes[at..at + ASCII_RUN].try_into().expect("a run");
        if u64::from_ne_bytes(run) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        let wide: &mut [[u8; 4]; ASCII_RUN] =
            (&mut units[at..at + ASCII_RUN]).try_into().expect("a run");
        // The byte order outside the map, so that the run widens as one shuffle.
        *wide = if swapped {
            run.map(|byte| u32::from(byte).swap_bytes().to_ne_bytes())
        } else {
            run.map(|byte| u32::from(byte).to_ne_bytes())
        };
        at += ASCII_RUN;
    }
    while at < fits && bytes[at].is_ascii() {
        units[at] = encode(u32::from(bytes[at]), swapped);
        at += 1;
    }
    let mut written = at;
    if at < fits {
        let rest = std::str::from_utf8(&bytes[at..]).map_err(Error::InvalidUtf8)?;
        for (unit, c) in units[at..].iter_mut().zip(rest.chars()) {
            *unit = encode(c as u32, swapped);
            written += 1;
        }
    }
    units[written..].fill([0; 4]);
    Ok(())
}

/// Widens the leading ASCII of `bytes` 16 bytes at a time into `units`, up to `fits`
/// bytes and stopping at the first block with a non-ASCII byte; returns the bytes (and
/// code units) done. Native byte order only (0 otherwise): SSE2 interleaves each byte
/// with three zero bytes, four stores per block, where the eight-byte runs' widening
/// was left to the compiler, which did not always find the shuffle.
#[inline(always)]
fn widen_ascii_blocks(bytes: &[u8], swapped: bool, units: &mut [[u8; 4]], fits: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_storeu_si128,
            _mm_unpackhi_epi16, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi8,
        };
        const BLOCK: usize = 16;
        if swapped {
            return 0;
        }
        let (bytes, units) = (&bytes[..fits], &mut units[..fits]);
        let mut at = 0;
        while at + BLOCK <= fits {
            let (from, to) = (&bytes[at..at + BLOCK], &mut units[at..at + BLOCK]);
            // SAFETY: SSE2 is enabled on every x86-64 target. The load reads the 16 bytes
            // of `from`, and the four stores write the 64 bytes of `to` (16 code units
            // of 4 bytes, byte-aligned, as the unaligned stores allow).
            unsafe {
                let block = _mm_loadu_si128(from.as_ptr().cast());
                if _mm_movemask_epi8(block) != 0 {
                    break;
                }
                let zero = _mm_setzero_si128();
                let (low, high) = (
                    _mm_unpacklo_epi8(block, zero),
                    _mm_unpackhi_epi8(block, zero),
                );
                let out = to.as_mut_ptr().cast::<__m128i>();
                _mm_storeu_si128(out, _mm_unpacklo_epi16(low, zero));
                _mm_storeu_si128(out.add(1), _mm_unpackhi_epi16(low, zero));
                _mm_storeu_si128(out.add(2), _mm_unpacklo_epi16(high, zero));
                _mm_storeu_si128(out.add(3), _mm_unpackhi_epi16(high, zero));
            }
            at += BLOCK;
        }
        at
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, swapped, units, fits);
        0
    }
}

/// [`utf8_to_ucs4`] of an inline ASCII string, widened straight from its view: its unused
/// bytes are zero, so the widened data pads the element too. Returns false, writing
/// nothing, for a long string, a missing value or non-ASCII text.
#[inline]
pub fn inline_ascii_to_ucs4(view: View, swapped: bool, units: &mut [[u8; 4]]) -> bool {
    let data = view.data_lanes();
    if !view.is_inline_string() || data & 0x8080_8080_8080_8080_8080_8080 != 0 {
        return false;
    }
    let bytes: [u8; MAX_INLINE_LEN] = data.to_le_bytes()[..MAX_INLINE_LEN]
        .try_into()
        .expect("12 bytes");
    match units.split_first_chunk_mut::<MAX_INLINE_LEN>() {
        // The byte order decided once for the twelve units, so that each is a shuffle.
        Some((head, rest)) if swapped => {
            *head = bytes.map(|byte| u32::from(byte).swap_bytes().to_ne_bytes());
            rest.fill([0; 4]);
        }
        Some((head, rest)) => {
            *head = bytes.map(|byte| u32::from(byte).to_ne_bytes());
            rest.fill([0; 4]);
        }
        None => {
            for (unit, &byte) in units.iter_mut().zip(&bytes) {
                *unit = encode(u32::from(byte), swapped);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_ascii_agrees_with_the_general_kernel() {
        let strings: [&[u8]; 8] = [
            b"",
            b"a",
            b"abc\0",
            b"abcdefghijkl",
            b"\0\0x",
            b"12345678",
            b"x\x7f",
            b"caf\xc3\xa9",
        ];
        for bytes in strings {
            for width in [0, 1, 3, 5, 11, 12, 13, 16, 40] {
                for swapped in [false, true] {
                    let view = View::try_inline(bytes).expect("inline");
                    let mut fast = vec![[9; 4]; width];
                    let mut general = vec![[9; 4]; width];
                    utf8_to_ucs4(bytes, swapped, &mut general).expect("UTF-8");
                    if inline_ascii_to_ucs4(view, swapped, &mut fast) {
                        assert!(bytes.is_ascii());
                        assert_eq!(fast, general, "{bytes:?} {width}");
                    } else {
                        assert!(!bytes.is_ascii(), "{bytes:?}");
                        assert!(fast.iter().all(|unit| *unit == [9; 4]));
                    }
                }
            }
        }
        let location = crate::view::Location {
            chunk: 0,
            offset: 0,
        };
        let long = View::long(13, *b"abcd", location).expect("a long view");
        assert!(!inline_ascii_to_ucs4(long, false, &mut [[0; 4]; 16]));
        assert!(!inline_ascii_to_ucs4(View::NA, false, &mut [[0; 4]; 16]));
    }

    /// `codes` as an element of `width` code units, NUL padded.
    fn element(codes: &[u32], width: usize, swapped: bool) -> Vec<[u8; 4]> {
        let mut units: Vec<[u8; 4]> = codes.iter().map(|&c| encode(c, swapped)).collect();
        units.resize(width, [0; 4]);
        units
    }

    fn to_utf8(units: &[[u8; 4]], swapped: bool) -> Result<String> {
        let mut out = b"<".to_vec();
        ucs4_to_utf8(units, swapped, &mut out)?;
        assert_eq!(out[0], b'<', "the kernel appends to the buffer");
        Ok(String::from_utf8(out[1..].to_vec()).expect("UTF-8"))
    }

    /// The reference: every code point but the trailing NULs, by `char::from_u32`.
    fn reference_utf8(codes: &[u32]) -> Option<String> {
        let len = codes
            .iter()
            .rposition(|&c| c != 0)
            .map_or(0, |last| last + 1);
        codes[..len].iter().map(|&c| char::from_u32(c)).collect()
    }

    const TEXTS: &[&str] = &[
        "",
        "a",
        "abcdefg",
        "abcdefgh",
        "abcdefghi",
        "abcdefghijklmnopq",
        "é",
        "abcdefgé",
        "abcdefghé",
        "é€😀",
        "日本語のテキスト、とても長い",
        "😀😀😀😀😀😀😀😀😀",
        "a\0b",
        "\0\0x",
        "ascii then 😀 and more ascii text",
    ];

    #[test]
    fn ucs4_to_utf8_matches_reference() {
        for text in TEXTS {
            let codes: Vec<u32> = text.chars().map(u32::from).collect();
            for pad in [0, 1, 7, 8, 9, 17] {
                for swapped in [false, true] {
                    let units = element(&codes, codes.len() + pad, swapped);
                    let want = reference_utf8(&codes).expect("valid");
                    let got = to_utf8(&units, swapped).expect("valid");
                    assert_eq!(got, want, "{text:?} pad {pad} swapped {swapped}");
                }
            }
        }
    }

    #[test]
    fn ucs4_to_utf8_blocks_meet_every_kind_of_code_point_everywhere() {
        // A non-ASCII code point (or one just past ASCII, or a NUL inside the text) at
        // every position of ASCII strings of 0-40 code units: blocks of 16 before it,
        // runs of 8 and single units after it.
        for len in 0..=40usize {
            for at in 0..len {
                for odd in [
                    0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xFFFF, 0x1_0000, 0x10_FFFF, 0,
                ] {
                    let mut codes: Vec<u32> =
                        (0..len as u32).map(|i| u32::from(b'a') + i % 26).collect();
                    codes[at] = odd;
                    if odd == 0 && at + 1 == len {
                        continue; // a trailing NUL is padding
                    }
                    for swapped in [false, true] {
                        let units = element(&codes, len + 3, swapped);
                        let want = reference_utf8(&codes).expect("valid");
                        let got = to_utf8(&units, swapped).expect("valid");
                        assert_eq!(got, want, "len {len} at {at} {odd:#x} swapped {swapped}");
                    }
                }
            }
            let codes: Vec<u32> = (0..len as u32).map(|i| 0x20 + i % 0x5F).collect();
            let want = reference_utf8(&codes).expect("valid");
            assert_eq!(to_utf8(&element(&codes, len, false), false).unwrap(), want);
        }
    }

    #[test]
    fn ucs4_to_utf8_appends_after_what_out_holds() {
        let codes: Vec<u32> = (0..35).map(|i| u32::from(b'A') + i % 26).collect();
        let units = element(&codes, 40, false);
        for held in [0, 1, 15, 16, 100] {
            let mut out = vec![b'#'; held];
            ucs4_to_utf8(&units, false, &mut out).expect("valid");
            let mut want = vec![b'#'; held];
            want.extend(reference_utf8(&codes).expect("valid").as_bytes());
            assert_eq!(out, want, "held {held}");
        }
    }

    #[test]
    fn ucs4_to_utf8_trims_only_trailing_nuls() {
        assert_eq!(to_utf8(&[], false).unwrap(), "");
        assert_eq!(to_utf8(&element(&[], 20, false), false).unwrap(), "");
        let codes = [0, 0, 0x61, 0, 0x62];
        assert_eq!(
            to_utf8(&element(&codes, 30, true), true).unwrap(),
            "\0\0a\0b"
        );
    }

    #[test]
    fn ucs4_to_utf8_refuses_invalid_code_points() {
        for bad in [0xD800, 0xDFFF, 0x11_0000, u32::MAX] {
            for before in [0, 3, 8, 9, 15, 16, 17, 32, 40] {
                let mut codes = vec![u32::from(b'a'); before];
                codes.push(bad);
                codes.push(u32::from(b'z'));
                assert_eq!(reference_utf8(&codes), None);
                for swapped in [false, true] {
                    let units = element(&codes, codes.len() + 2, swapped);
                    let mut out = Vec::new();
                    let err = ucs4_to_utf8(&units, swapped, &mut out);
                    assert_eq!(err, Err(Error::InvalidCodePoint(bad)), "{bad:#x} {before}");
                    assert_eq!(out, vec![b'a'; before], "the text before the bad unit");
                }
            }
        }
        let message = Error::InvalidCodePoint(0xD800).to_string();
        assert_eq!(message, "Invalid unicode code point found");
    }

    /// The reference: the code points that fit, then NULs.
    fn reference_ucs4(text: &str, width: usize) -> Vec<u32> {
        let mut codes: Vec<u32> = text.chars().map(u32::from).take(width).collect();
        codes.resize(width, 0);
        codes
    }

    #[test]
    fn utf8_to_ucs4_matches_reference() {
        for text in TEXTS {
            let len = text.chars().count();
            for width in [0, 1, len.saturating_sub(1), len, len + 1, len + 9] {
                for swapped in [false, true] {
                    // A dirty element: every unit must be written.
                    let mut units = vec![[0xee; 4]; width];
                    utf8_to_ucs4(text.as_bytes(), swapped, &mut units).expect("valid");
                    let got: Vec<u32> = units.iter().map(|&u| decode(u, swapped)).collect();
                    let want = reference_ucs4(text, width);
                    assert_eq!(got, want, "{text:?} width {width} swapped {swapped}");
                }
            }
        }
    }

    #[test]
    fn utf8_to_ucs4_widens_blocks_up_to_the_first_non_ascii_byte() {
        // ASCII of every length around the 16-byte blocks, alone or with a non-ASCII
        // character (two or four bytes) at each position, cut at each width around it.
        for len in [15, 16, 17, 31, 32, 33, 47, 64, 70] {
            let ascii: String = (0..len)
                .map(|i| char::from(b'!' + (i % 90) as u8))
                .collect();
            let mut texts = vec![ascii.clone()];
            for at in [0, 1, 7, 15, 16, 17, 31, 32, len - 1, len] {
                for other in ["é", "😀"] {
                    let (before, after) = ascii.split_at(at.min(len));
                    texts.push(format!("{before}{other}{after}"));
                }
            }
            for text in &texts {
                let chars = text.chars().count();
                for width in [0, 5, 16, 17, 32, chars - 1, chars, chars + 3] {
                    for swapped in [false, true] {
                        let mut units = vec![[0xee; 4]; width];
                        utf8_to_ucs4(text.as_bytes(), swapped, &mut units).expect("valid");
                        let got: Vec<u32> = units.iter().map(|&u| decode(u, swapped)).collect();
                        assert_eq!(got, reference_ucs4(text, width), "{text:?} width {width}");
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_to_ucs4_validates_from_the_first_non_ascii_byte() {
        let mut units = vec![[0; 4]; 6];
        let err = utf8_to_ucs4(b"abc\xff", false, &mut units).unwrap_err();
        // The position counts from the first non-ASCII byte, as the cast always reported.
        assert_eq!(
            err.to_string(),
            "invalid utf-8 sequence of 1 bytes from index 0"
        );
        let err = utf8_to_ucs4(b"a\xc3\xa9\xe6\x97", false, &mut units).unwrap_err();
        assert_eq!(
            err.to_string(),
            "incomplete utf-8 byte sequence from index 2"
        );
        // Bytes past the first non-ASCII one are validated even beyond the element...
        let mut short = vec![[0; 4]; 2];
        let err = utf8_to_ucs4(b"a\xc3\xa9\xff", false, &mut short);
        assert!(matches!(err, Err(Error::InvalidUtf8(_))));
        // ...but an element filled by ASCII reads no further.
        utf8_to_ucs4(b"ab\xff", false, &mut short).expect("the element holds ASCII");
        assert_eq!(short, [encode(0x61, false), encode(0x62, false)]);
    }
}

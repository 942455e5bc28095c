//! Substring search: `find`, `rfind`, `count`, `startswith` and `endswith`.
//!
//! `start` and `end` are code point positions with Python's slice rules (negative counts
//! from the end, out of range clamps; pass `isize::MAX` for a missing `end`), and results
//! are code point positions. `str.index` and `str.rindex` are `find` and `rfind` where the
//! caller raises `ValueError("substring not found")` on `None`.
//!
//! Searching uses `memchr::memmem` on the bytes of the window: UTF-8 is self-synchronising,
//! so a byte match of a valid needle is a code point match. Positions are converted to and
//! from code points only at the window's edges and at the match.

use memchr::memmem::{self, Finder, FinderRev};

use super::length::{byte_offset, str_len};
use crate::swar;
use crate::view::View;

/// Python's `ADJUST_INDICES`: clamps `start` and `end` to `0..=len` the way slices do.
/// The result may have `end < start`, meaning an empty window with no position in it.
#[inline]
pub fn adjust_indices(start: isize, end: isize, len: usize) -> (usize, isize) {
    let len = len as isize;
    let end = if end > len {
        len
    } else if end < 0 {
        (end + len).max(0)
    } else {
        end
    };
    let start = if start < 0 {
        (start + len).max(0)
    } else {
        start
    };
    (start as usize, end)
}

/// The part of a string that `start` and `end` select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    /// Code point position of the window's start.
    start: usize,
    /// Code point position of the window's end (its length plus `start`).
    end: usize,
    /// Byte offsets of the window.
    byte_start: usize,
    byte_end: usize,
}

/// The window `start..end` of `s`, or `None` when it is empty because `end < start`.
fn window(s: &[u8], start: isize, end: isize) -> Option<Window> {
    let len = str_len(s);
    let (start, end) = adjust_indices(start, end, len);
    if end < start as isize {
        return None;
    }
    let end = end as usize;
    let (byte_start, byte_end) = if len == s.len() {
        (start, end)
    } else {
        let byte_start = byte_offset(s, start);
        (
            byte_start,
            byte_start + byte_offset(&s[byte_start..], end - start),
        )
    };
    Some(Window {
        start,
        end,
        byte_start,
        byte_end,
    })
}

/// Whether `start..end` selects all of `s` without counting its code points: the common
/// call with no `start` and no `end` (a byte length is never less than the code point
/// length).
#[inline]
fn whole(s: &[u8], start: isize, end: isize) -> bool {
    start == 0 && end >= s.len() as isize
}

/// Byte range to search for a non-empty needle, and the code point position of its start.
/// A non-empty needle never matches an empty window, so the exact clamping of an empty
/// window does not matter and the common `start == 0, end >= len` needs no counting.
#[inline]
fn search_range(s: &[u8], start: isize, end: isize) -> Option<(usize, &[u8])> {
    if whole(s, start, end) {
        return Some((0, s));
    }
    let w = window(s, start, end)?;
    Some((w.start, &s[w.byte_start..w.byte_end]))
}

/// A needle prepared once for searching many haystacks (a scalar operand of a ufunc).
pub struct Needle<'n> {
    forward: Finder<'n>,
    backward: FinderRev<'n>,
    /// The needle when it is one byte: searched in short haystacks without `memmem`.
    byte: Option<u8>,
}

/// A short whole haystack as one integer, and the lanes where a needle of at most one
/// byte matches: `find`, `rfind` and `count` of the whole haystack without a loop.
#[derive(Clone, Copy)]
pub struct ByteMatches {
    haystack: u128,
    lanes: u128,
}

impl ByteMatches {
    #[inline]
    fn new(haystack: u128, len: usize, byte: u8) -> ByteMatches {
        let lanes = swar::equal_lanes(haystack, byte) & swar::used(len);
        ByteMatches { haystack, lanes }
    }

    /// The matches of the empty needle: at every character's start and at the end.
    #[inline]
    fn boundaries(haystack: u128, len: usize) -> ByteMatches {
        let starts = swar::used(len) & !swar::continuation_lanes(haystack);
        let end = 0x80 << (8 * len);
        ByteMatches {
            haystack,
            lanes: starts | end,
        }
    }

    /// The code point position of the first match.
    #[inline]
    pub fn find(self) -> Option<usize> {
        (self.lanes != 0).then(|| self.position(self.lanes.trailing_zeros() / 8))
    }

    /// The code point position of the last match.
    #[inline]
    pub fn rfind(self) -> Option<usize> {
        (self.lanes != 0).then(|| self.position(15 - self.lanes.leading_zeros() / 8))
    }

    /// The number of matches.
    #[inline]
    pub fn count(self) -> usize {
        self.lanes.count_ones() as usize
    }

    /// The code point position of the byte in `lane`.
    #[inline]
    fn position(self, lane: u32) -> usize {
        let before = self.haystack & swar::low_bytes(lane as usize);
        lane as usize - swar::continuation_lanes(before).count_ones() as usize
    }
}

impl<'n> Needle<'n> {
    /// Prepares `needle` (UTF-8) for forward and backward searches.
    pub fn new(needle: &'n [u8]) -> Needle<'n> {
        Needle {
            forward: Finder::new(needle),
            backward: FinderRev::new(needle),
            byte: match needle {
                [byte] => Some(*byte),
                _ => None,
            },
        }
    }

    /// The needle's bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        self.forward.needle()
    }

    /// The matches of a one-byte needle in a short haystack searched from start to end.
    #[inline]
    fn byte_matches(&self, haystack: &[u8], start: isize, end: isize) -> Option<ByteMatches> {
        let byte = self.byte?;
        (whole(haystack, start, end) && haystack.len() <= 16)
            .then(|| ByteMatches::new(swar::load(haystack), haystack.len(), byte))
    }

    /// The matches of a needle of at most one byte in the whole of an inline string,
    /// from its view's lanes (no load from memory); `None` for a longer needle, a long
    /// string or a missing value.
    #[inline]
    pub fn inline_matches(&self, view: View) -> Option<ByteMatches> {
        if !view.is_inline_string() {
            return None;
        }
        let (haystack, len) = (view.data_lanes(), view.len());
        match (self.byte, self.bytes().is_empty()) {
            (Some(byte), _) => Some(ByteMatches::new(haystack, len, byte)),
            (None, true) => Some(ByteMatches::boundaries(haystack, len)),
            (None, false) => None,
        }
    }

    /// `haystack.find(needle, start, end)`: lowest code point position, `None` for -1.
    #[inline]
    pub fn find(&self, haystack: &[u8], start: isize, end: isize) -> Option<usize> {
        if let Some(matches) = self.byte_matches(haystack, start, end) {
            return matches.find();
        }
        find_with(haystack, self.bytes(), (start, end), false, |w| {
            self.forward.find(w)
        })
    }

    /// `haystack.rfind(needle, start, end)`: highest code point position, `None` for -1.
    pub fn rfind(&self, haystack: &[u8], start: isize, end: isize) -> Option<usize> {
        if let Some(matches) = self.byte_matches(haystack, start, end) {
            return matches.rfind();
        }
        find_with(haystack, self.bytes(), (start, end), true, |w| {
            self.backward.rfind(w)
        })
    }

    /// `haystack.count(needle, start, end)`: non-overlapping occurrences.
    pub fn count(&self, haystack: &[u8], start: isize, end: isize) -> usize {
        if let Some(matches) = self.byte_matches(haystack, start, end) {
            return matches.count();
        }
        count_with(haystack, self.bytes(), start, end, |w| {
            self.forward.find_iter(w).count()
        })
    }
}

/// The code point position of the first (or, with `last`, the last) match that
/// `search` finds in the window; an empty needle matches at the window's start (end).
#[inline]
fn find_with(
    haystack: &[u8],
    needle: &[u8],
    (start, end): (isize, isize),
    last: bool,
    search: impl FnOnce(&[u8]) -> Option<usize>,
) -> Option<usize> {
    if needle.is_empty() {
        if whole(haystack, start, end) {
            return Some(if last { str_len(haystack) } else { 0 });
        }
        return window(haystack, start, end).map(|w| if last { w.end } else { w.start });
    }
    let (start, range) = search_range(haystack, start, end)?;
    let at = search(range)?;
    Some(start + str_len(&range[..at]))
}

#[inline]
fn count_with(
    haystack: &[u8],
    needle: &[u8],
    start: isize,
    end: isize,
    search: impl FnOnce(&[u8]) -> usize,
) -> usize {
    if needle.is_empty() {
        if whole(haystack, start, end) {
            return str_len(haystack) + 1;
        }
        return window(haystack, start, end).map_or(0, |w| w.end - w.start + 1);
    }
    search_range(haystack, start, end).map_or(0, |(_, range)| search(range))
}

/// `haystack.find(needle, start, end)`: lowest code point position, `None` for Python's -1.
pub fn find(haystack: &[u8], needle: &[u8], start: isize, end: isize) -> Option<usize> {
    find_with(haystack, needle, (start, end), false, |w| {
        memmem::find(w, needle)
    })
}

/// `haystack.rfind(needle, start, end)`: highest code point position, `None` for -1.
pub fn rfind(haystack: &[u8], needle: &[u8], start: isize, end: isize) -> Option<usize> {
    find_with(haystack, needle, (start, end), true, |w| {
        memmem::rfind(w, needle)
    })
}

/// `haystack.count(needle, start, end)`: number of non-overlapping occurrences.
pub fn count(haystack: &[u8], needle: &[u8], start: isize, end: isize) -> usize {
    count_with(haystack, needle, start, end, |w| {
        memmem::find_iter(w, needle).count()
    })
}

/// `s.startswith(prefix, start, end)`.
pub fn startswith(s: &[u8], prefix: &[u8], start: isize, end: isize) -> bool {
    if prefix.is_empty() {
        return window(s, start, end).is_some();
    }
    search_range(s, start, end).is_some_and(|(_, range)| {
        // Most candidates differ in the first byte: decide those without a memcmp call.
        range.first() == prefix.first() && range.starts_with(prefix)
    })
}

/// `s.endswith(suffix)` of an inline string, from its view's lanes without a branch per
/// byte; `None` for a long string or a missing value. `suffix` is the view of an inline
/// string. Both rely on the unused lanes of an inline view being zero.
#[inline]
pub fn inline_endswith(view: View, suffix: View) -> Option<bool> {
    debug_assert!(suffix.is_inline_string());
    if !view.is_inline_string() {
        return None;
    }
    let (len, n) = (view.len(), suffix.len());
    if n > len {
        return Some(false);
    }
    // The last n bytes, moved to the low lanes; the lanes above them are the zero
    // padding past the string's end.
    let tail = view.data_lanes() >> (8 * (len - n));
    Some(tail == suffix.data_lanes())
}

/// A suffix of at most 12 bytes, prepared once to test the ends of many strings from
/// their last 16 bytes as one integer: no call to compare bytes, no branch on them.
#[derive(Clone, Copy)]
pub struct Suffix {
    /// The suffix in the top lanes of a 16-byte integer.
    lanes: u128,
    /// The lanes the suffix covers.
    mask: u128,
    /// The suffix as a view, for strings of less than 16 bytes.
    view: View,
}

impl Suffix {
    /// The suffix that `view` (an inline string) holds.
    #[inline]
    pub fn new(view: View) -> Suffix {
        debug_assert!(view.is_inline_string());
        let unused = 8 * (16 - view.len()) as u32;
        Suffix {
            lanes: view.data_lanes().checked_shl(unused).unwrap_or(0),
            mask: u128::MAX.checked_shl(unused).unwrap_or(0),
            view,
        }
    }

    /// `s.endswith(suffix)` for the bytes of any string.
    #[inline]
    pub fn ends(&self, s: &[u8]) -> bool {
        match s.len().checked_sub(16) {
            Some(at) => {
                let tail = u128::from_le_bytes(s[at..].try_into().expect("16 bytes"));
                tail & self.mask == self.lanes
            }
            None => s.ends_with(self.view.inline_bytes().expect("an inline suffix")),
        }
    }

    /// `endswith` of an inline string from its view's lanes: see [`inline_endswith`].
    #[inline]
    pub fn ends_inline(&self, view: View) -> Option<bool> {
        inline_endswith(view, self.view)
    }
}

/// `s.endswith(suffix, start, end)`.
pub fn endswith(s: &[u8], suffix: &[u8], start: isize, end: isize) -> bool {
    if suffix.is_empty() {
        return window(s, start, end).is_some();
    }
    search_range(s, start, end)
        .is_some_and(|(_, range)| range.last() == suffix.last() && range.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: isize = isize::MAX;

    /// Every string of up to four of a few characters (ASCII, NUL, two-byte UTF-8).
    fn short_texts() -> Vec<String> {
        let chars = ["a", "b", "\0", "é"];
        let mut texts = vec![String::new()];
        for n in 1..=4 {
            for code in 0..chars.len().pow(n) {
                texts.push(
                    (0..n)
                        .map(|k| chars[code / chars.len().pow(k) % chars.len()])
                        .collect(),
                );
            }
        }
        texts
    }

    #[test]
    fn inline_matches_agree_with_the_search() {
        let mut cases = 0;
        for head in short_texts() {
            for tail in ["", "b", "ab\0a", "aéb\0ba"] {
                let text = head.clone() + tail;
                let Some(view) = View::try_inline(text.as_bytes()) else {
                    continue;
                };
                for needle in ["a", "b", "\0", "x", ""] {
                    let prepared = Needle::new(needle.as_bytes());
                    let matches = prepared.inline_matches(view).expect("inline, one byte");
                    let (h, n) = (text.as_str(), needle);
                    let position = |at: Option<usize>| at.map(|b| h[..b].chars().count());
                    assert_eq!(matches.find(), position(h.find(n)), "{h:?} {n:?}");
                    assert_eq!(matches.rfind(), position(h.rfind(n)), "{h:?} {n:?}");
                    assert_eq!(matches.count(), h.matches(n).count(), "{h:?} {n:?}");
                    cases += 1;
                }
            }
        }
        assert!(cases > 1000);
        let two = Needle::new(b"ab");
        assert!(two
            .inline_matches(View::try_inline(b"ab").expect("inline"))
            .is_none());
        assert!(Needle::new(b"a").inline_matches(View::NA).is_none());
    }

    #[test]
    fn inline_endswith_agrees_with_the_bytes() {
        // Every string of up to four of these characters before tails of 0-8 bytes,
        // against every suffix of up to 12 bytes drawn from the same characters.
        let texts = short_texts();
        let tails = ["", "a", "ab\0", "aéb", "abababab"];
        let mut cases = 0;
        for head in &texts {
            for tail in tails {
                let text = head.clone() + tail;
                let Some(view) = View::try_inline(text.as_bytes()) else {
                    continue;
                };
                for suffix in texts.iter().map(|h| h.clone() + tail) {
                    let Some(wanted) = View::try_inline(suffix.as_bytes()) else {
                        continue;
                    };
                    let expected = text.as_bytes().ends_with(suffix.as_bytes());
                    assert_eq!(
                        inline_endswith(view, wanted),
                        Some(expected),
                        "{text:?} {suffix:?}"
                    );
                    cases += 1;
                }
            }
        }
        assert!(cases > 10_000);
        let long = View::long(
            13,
            *b"abcd",
            crate::Location {
                chunk: 1,
                offset: 0,
            },
        );
        assert_eq!(inline_endswith(long.expect("long"), View::EMPTY), None);
        assert_eq!(inline_endswith(View::NA, View::EMPTY), None);
    }

    #[test]
    fn prepared_suffixes_agree_with_the_bytes() {
        // Strings of 0 to 40 bytes (NULs and multi-byte characters included) against
        // every suffix of up to 12 bytes that ends them, and the same with one byte
        // changed at each position.
        let source = "ab\0cé€d😀efghij\0klmnopqrstuvwxyz".as_bytes();
        let mut cases = 0;
        for len in 0..=source.len() {
            let text = &source[source.len() - len..];
            for n in 0..=12.min(len) {
                let mut affix = text[len - n..].to_vec();
                for changed in std::iter::once(None).chain((0..n).map(Some)) {
                    if let Some(at) = changed {
                        affix[at] ^= 0x41;
                    }
                    let view = View::try_inline(&affix).expect("inline");
                    let suffix = Suffix::new(view);
                    for s in [text, &text[..len.saturating_sub(1)]] {
                        assert_eq!(suffix.ends(s), s.ends_with(&affix), "{s:?} {affix:?}");
                        cases += 1;
                    }
                    if let Some(at) = changed {
                        affix[at] ^= 0x41;
                    }
                }
            }
        }
        assert!(cases > 500);
    }

    // (haystack, needle, start, end, find, rfind, count, startswith, endswith), from
    // Python 3.11 (find/rfind -1 written as None).
    type Row = (
        &'static str,
        &'static str,
        isize,
        isize,
        Option<usize>,
        Option<usize>,
        usize,
        bool,
        bool,
    );
    #[rustfmt::skip]
    const CASES: &[Row] = &[
        ("abc", "", 0, MAX, Some(0), Some(3), 4, true, true),
        ("abc", "", 5, MAX, None, None, 0, false, false),
        ("abc", "", 3, MAX, Some(3), Some(3), 1, true, true),
        ("abc", "", 4, MAX, None, None, 0, false, false),
        ("abc", "", 1, 2, Some(1), Some(2), 2, true, true),
        ("abc", "", 2, 1, None, None, 0, false, false),
        ("", "", 0, MAX, Some(0), Some(0), 1, true, true),
        ("", "a", 0, MAX, None, None, 0, false, false),
        ("héllo wörld", "", 0, MAX, Some(0), Some(11), 12, true, true),
        ("héllo", "", 0, 6, Some(0), Some(5), 6, true, true),
        ("héllo", "", 0, 5, Some(0), Some(5), 6, true, true),
        ("héllo", "", 0, 4, Some(0), Some(4), 5, true, true),
        ("abcabc", "bc", 0, MAX, Some(1), Some(4), 2, false, true),
        ("abcabc", "bc", 2, MAX, Some(4), Some(4), 1, false, true),
        ("abcabc", "bc", -3, MAX, Some(4), Some(4), 1, false, true),
        ("abcabc", "bc", 0, -1, Some(1), Some(1), 1, false, false),
        ("abcabc", "bc", -100, 100, Some(1), Some(4), 2, false, true),
        ("aaaa", "aa", 0, MAX, Some(0), Some(2), 2, true, true),
        ("aaaa", "aa", 1, 3, Some(1), Some(1), 1, true, true),
        ("héllo wörld", "ö", 0, MAX, Some(7), Some(7), 1, false, false),
        ("héllo wörld", "l", 3, MAX, Some(3), Some(9), 2, true, false),
        ("héllo wörld", "l", -3, -1, Some(9), Some(9), 1, false, true),
        ("héllo wörld", "é", 1, 2, Some(1), Some(1), 1, true, true),
        ("héllo wörld", "é", 2, MAX, None, None, 0, false, false),
        ("héllo wörld", "", -2, MAX, Some(9), Some(11), 3, true, true),
        ("日本語日本語", "本語", 1, MAX, Some(1), Some(4), 2, true, true),
        ("日本語日本語", "本語", 2, 5, None, None, 0, false, false),
        ("😀a😀b", "😀", 1, MAX, Some(2), Some(2), 1, false, false),
        ("😀a😀b", "b", 0, MAX, Some(3), Some(3), 1, false, true),
    ];

    #[test]
    fn search_matches_python() {
        for &(hay, needle, start, end, fi, rfi, cnt, sw, ew) in CASES {
            let (h, n) = (hay.as_bytes(), needle.as_bytes());
            let prepared = Needle::new(n);
            let ctx = format!("{hay:?} {needle:?} {start} {end}");
            assert_eq!(find(h, n, start, end), fi, "find {ctx}");
            assert_eq!(prepared.find(h, start, end), fi, "Needle::find {ctx}");
            assert_eq!(rfind(h, n, start, end), rfi, "rfind {ctx}");
            assert_eq!(prepared.rfind(h, start, end), rfi, "Needle::rfind {ctx}");
            assert_eq!(count(h, n, start, end), cnt, "count {ctx}");
            assert_eq!(prepared.count(h, start, end), cnt, "Needle::count {ctx}");
            assert_eq!(startswith(h, n, start, end), sw, "startswith {ctx}");
            assert_eq!(endswith(h, n, start, end), ew, "endswith {ctx}");
        }
    }

    #[test]
    fn adjust_indices_like_cpython() {
        assert_eq!(adjust_indices(0, MAX, 3), (0, 3));
        assert_eq!(adjust_indices(-1, -1, 3), (2, 2));
        assert_eq!(adjust_indices(-10, -10, 3), (0, 0));
        assert_eq!(adjust_indices(5, 2, 3), (5, 2));
        assert_eq!(adjust_indices(isize::MIN, isize::MIN, 3), (0, 0));
    }
}

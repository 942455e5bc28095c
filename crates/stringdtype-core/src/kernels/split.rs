//! `split` and `rsplit`: the byte ranges of the pieces of a string, as Python's
//! `str.split(sep, maxsplit)` and `str.rsplit(sep, maxsplit)` cut it.

use std::ops::Range;

use memchr::memmem::{Finder, FinderRev};

use super::strip::is_ascii_space;
use super::unicode::{decode_at, decode_before, UnicodeTables};
use crate::swar;

/// What to split at: runs of whitespace (`sep=None`) or a non-empty separator.
pub enum SplitAt<'a> {
    Whitespace,
    Separator(Box<Separator<'a>>),
}

/// A non-empty separator, prepared for searching in both directions.
pub struct Separator<'a> {
    forward: Finder<'a>,
    backward: FinderRev<'a>,
}

impl<'a> Separator<'a> {
    /// `None` for an empty separator, which Python refuses (`ValueError: empty separator`).
    pub fn new(sep: &'a [u8]) -> Option<Separator<'a>> {
        (!sep.is_empty()).then(|| Separator {
            forward: Finder::new(sep),
            backward: FinderRev::new(sep),
        })
    }

    /// The separator's bytes (never empty).
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        self.forward.needle()
    }

    /// The separator's byte, when it is one byte long.
    #[inline]
    fn byte(&self) -> Option<u8> {
        match self.bytes() {
            &[byte] => Some(byte),
            _ => None,
        }
    }

    /// Byte offset of the first occurrence in `s`.
    #[inline]
    pub fn find(&self, s: &[u8]) -> Option<usize> {
        self.forward.find(s)
    }

    /// Byte offset of the last occurrence in `s`.
    #[inline]
    pub fn rfind(&self, s: &[u8]) -> Option<usize> {
        self.backward.rfind(s)
    }
}

/// Appends to `pieces` the ranges of `s.split(sep, maxsplit)` (or of `s.rsplit(...)`
/// when `right`), in order. A negative `maxsplit` means no limit.
pub fn split<U: UnicodeTables + ?Sized>(
    s: &[u8],
    at: &SplitAt<'_>,
    maxsplit: i64,
    right: bool,
    tables: &U,
    pieces: &mut Vec<Range<usize>>,
) {
    let max = usize::try_from(maxsplit).unwrap_or(usize::MAX);
    let first = pieces.len();
    match (at, right) {
        (SplitAt::Whitespace, false) => split_whitespace(s, max, tables, pieces),
        (SplitAt::Whitespace, true) => rsplit_whitespace(s, max, tables, pieces),
        (SplitAt::Separator(sep), false) => match sep.byte() {
            Some(byte) => split_at_byte(s, byte, max, pieces),
            None => split_at(s, sep, max, pieces),
        },
        (SplitAt::Separator(sep), true) => match sep.byte() {
            Some(byte) => rsplit_at_byte(s, byte, max, pieces),
            None => rsplit_at(s, sep, max, pieces),
        },
    }
    if right {
        pieces[first..].reverse();
    }
}

/// `split` at the separator `sep`, left to right.
fn split_at(s: &[u8], sep: &Separator<'_>, max: usize, pieces: &mut Vec<Range<usize>>) {
    let mut start = 0;
    for _ in 0..max {
        let Some(found) = sep.find(&s[start..]) else {
            break;
        };
        pieces.push(start..start + found);
        start += found + sep.bytes().len();
    }
    pieces.push(start..s.len());
}

/// `rsplit` at the separator `sep`: the pieces right to left (the caller reverses them).
fn rsplit_at(s: &[u8], sep: &Separator<'_>, max: usize, pieces: &mut Vec<Range<usize>>) {
    let mut end = s.len();
    for _ in 0..max {
        let Some(found) = sep.rfind(&s[..end]) else {
            break;
        };
        pieces.push(found + sep.bytes().len()..end);
        end = found;
    }
    pieces.push(0..end);
}

// A one-byte separator is found 16 bytes at a time in registers, every match of a block
// at once: most strings are a few tens of bytes with pieces of a few bytes, where a
// `memchr` call per piece costs more in its setup than in its search.

/// `split` at the byte `byte`, left to right.
fn split_at_byte(s: &[u8], byte: u8, max: usize, pieces: &mut Vec<Range<usize>>) {
    let mut start = 0;
    let mut left = max;
    if left > 0 {
        'blocks: for (k, block) in s.chunks(16).enumerate() {
            let mut hits = swar::equal_lanes(swar::load(block), byte) & swar::used(block.len());
            while hits != 0 {
                let at = 16 * k + hits.trailing_zeros() as usize / 8;
                pieces.push(start..at);
                start = at + 1;
                left -= 1;
                if left == 0 {
                    break 'blocks;
                }
                hits &= hits - 1;
            }
        }
    }
    pieces.push(start..s.len());
}

/// `rsplit` at the byte `byte`: the pieces right to left (the caller reverses them).
fn rsplit_at_byte(s: &[u8], byte: u8, max: usize, pieces: &mut Vec<Range<usize>>) {
    let mut end = s.len();
    let mut left = max;
    if left > 0 {
        'blocks: for (k, block) in s.rchunks(16).enumerate() {
            let base = s.len() - 16 * k - block.len();
            let mut hits = swar::equal_lanes(swar::load(block), byte) & swar::used(block.len());
            while hits != 0 {
                let lane = (127 - hits.leading_zeros() as usize) / 8;
                let at = base + lane;
                pieces.push(at + 1..end);
                end = at;
                left -= 1;
                if left == 0 {
                    break 'blocks;
                }
                hits &= !(0xff << (8 * lane));
            }
        }
    }
    pieces.push(0..end);
}

/// The width of the character at byte `i` of `s` when it is whitespace (`space`) or
/// not (`!space`), else 0.
#[inline]
fn width_at<U: UnicodeTables + ?Sized>(s: &[u8], i: usize, tables: &U, space: bool) -> usize {
    match s[i] {
        byte if byte < 0x80 => usize::from(is_ascii_space(byte) == space),
        _ => match decode_at(s, i) {
            (c, width) if tables.is_space(c) == space => width,
            _ => 0,
        },
    }
}

/// The same for the character that ends at byte `end` of `s`.
#[inline]
fn width_before<U: UnicodeTables + ?Sized>(s: &[u8], end: usize, tables: &U, space: bool) -> usize {
    match s[end - 1] {
        byte if byte < 0x80 => usize::from(is_ascii_space(byte) == space),
        _ => match decode_before(s, end) {
            (c, width) if tables.is_space(c) == space => width,
            _ => 0,
        },
    }
}

/// Skips forward from `i` over characters of width `width(s, i)` > 0.
#[inline]
fn skip_forward(s: &[u8], mut i: usize, width: impl Fn(&[u8], usize) -> usize) -> usize {
    while i < s.len() {
        match width(s, i) {
            0 => break,
            w => i += w,
        }
    }
    i
}

/// Skips backward from `end` over characters of width `width(s, end)` > 0.
#[inline]
fn skip_backward(s: &[u8], mut end: usize, width: impl Fn(&[u8], usize) -> usize) -> usize {
    while end > 0 {
        match width(s, end) {
            0 => break,
            w => end -= w,
        }
    }
    end
}

fn split_whitespace<U: UnicodeTables + ?Sized>(
    s: &[u8],
    max: usize,
    tables: &U,
    pieces: &mut Vec<Range<usize>>,
) {
    let space = |s: &[u8], i| width_at(s, i, tables, true);
    let word = |s: &[u8], i| width_at(s, i, tables, false);
    let mut i = 0;
    for _ in 0..max {
        i = skip_forward(s, i, space);
        if i == s.len() {
            return;
        }
        let start = i;
        i = skip_forward(s, i, word);
        pieces.push(start..i);
    }
    let i = skip_forward(s, i, space);
    if i < s.len() {
        pieces.push(i..s.len());
    }
}

fn rsplit_whitespace<U: UnicodeTables + ?Sized>(
    s: &[u8],
    max: usize,
    tables: &U,
    pieces: &mut Vec<Range<usize>>,
) {
    let space = |s: &[u8], end| width_before(s, end, tables, true);
    let word = |s: &[u8], end| width_before(s, end, tables, false);
    let mut end = s.len();
    for _ in 0..max {
        end = skip_backward(s, end, space);
        if end == 0 {
            return;
        }
        let stop = end;
        end = skip_backward(s, end, word);
        pieces.push(end..stop);
    }
    let end = skip_backward(s, end, space);
    if end > 0 {
        pieces.push(0..end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::unicode::RustTables;

    fn run(s: &str, sep: Option<&str>, maxsplit: i64, right: bool) -> Vec<String> {
        let at = match sep {
            None => SplitAt::Whitespace,
            Some(sep) => SplitAt::Separator(Box::new(Separator::new(sep.as_bytes()).unwrap())),
        };
        // Pieces are appended after what the vector held.
        let mut pieces = Vec::new();
        pieces.push(0..0);
        split(s.as_bytes(), &at, maxsplit, right, &RustTables, &mut pieces);
        assert_eq!(pieces[0], 0..0);
        pieces[1..]
            .iter()
            .map(|r| s[r.clone()].to_string())
            .collect()
    }

    /// A one-byte separator (found in registers) cuts as a general one (found by
    /// `memchr`), at every position of a match in strings of 0 to 70 bytes, each limit.
    #[test]
    fn one_byte_separator_agrees_with_the_search() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for len in 0..70 {
            for _ in 0..20 {
                let s: Vec<u8> = (0..len)
                    .map(|_| match next() % 5 {
                        0 => b',',
                        1 => 0,
                        2 => 0xc3,
                        _ => b'a',
                    })
                    .collect();
                for byte in [b',', 0, 0xc3] {
                    let sep = Separator::new(std::slice::from_ref(&byte)).unwrap();
                    for max in [0, 1, 2, 3, 7, usize::MAX] {
                        let (mut fast, mut general) = (vec![], vec![]);
                        split_at_byte(&s, byte, max, &mut fast);
                        split_at(&s, &sep, max, &mut general);
                        assert_eq!(fast, general, "{s:?} {byte} {max}");
                        let (mut fast, mut general) = (vec![], vec![]);
                        rsplit_at_byte(&s, byte, max, &mut fast);
                        rsplit_at(&s, &sep, max, &mut general);
                        assert_eq!(fast, general, "{s:?} {byte} {max} right");
                    }
                }
            }
        }
    }

    /// `(string, sep, maxsplit, str.split, str.rsplit)`, from Python 3.11.
    type Case = (
        &'static str,
        Option<&'static str>,
        i64,
        &'static [&'static str],
        &'static [&'static str],
    );

    const CASES: &[Case] = &[
        ("", None, -1, &[], &[]),
        ("", Some(","), -1, &[""], &[""]),
        ("   ", None, -1, &[], &[]),
        ("  a  b c ", None, -1, &["a", "b", "c"], &["a", "b", "c"]),
        ("  a  b c ", None, 1, &["a", "b c "], &["  a  b", "c"]),
        ("  a  b c ", None, 0, &["a  b c "], &["  a  b c"]),
        (
            "a\u{3000}b\u{85}c\u{a0}d",
            None,
            -1,
            &["a", "b", "c", "d"],
            &["a", "b", "c", "d"],
        ),
        ("é\u{2028}ü x", None, 1, &["é", "ü x"], &["é\u{2028}ü", "x"]),
        (
            "a,b,,c,",
            Some(","),
            -1,
            &["a", "b", "", "c", ""],
            &["a", "b", "", "c", ""],
        ),
        (
            "a,b,,c,",
            Some(","),
            2,
            &["a", "b", ",c,"],
            &["a,b,", "c", ""],
        ),
        ("a,b", Some(","), 0, &["a,b"], &["a,b"]),
        ("aaa", Some("aa"), -1, &["", "a"], &["a", ""]),
        ("xαβxαβ", Some("αβ"), -1, &["x", "x", ""], &["x", "x", ""]),
        ("no sep", Some("::"), -1, &["no sep"], &["no sep"]),
        (
            "a\x00b\x00",
            Some("\x00"),
            -1,
            &["a", "b", ""],
            &["a", "b", ""],
        ),
    ];

    #[test]
    fn split_and_rsplit_as_python() {
        for &(s, sep, maxsplit, split, rsplit) in CASES {
            assert_eq!(
                run(s, sep, maxsplit, false),
                split,
                "{s:?}.split({sep:?}, {maxsplit})"
            );
            assert_eq!(
                run(s, sep, maxsplit, true),
                rsplit,
                "{s:?}.rsplit({sep:?}, {maxsplit})"
            );
        }
    }

    #[test]
    fn empty_separator_is_refused() {
        assert!(Separator::new(b"").is_none());
    }
}

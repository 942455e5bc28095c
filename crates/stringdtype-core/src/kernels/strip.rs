//! `strip`, `lstrip` and `rstrip`: sub-slices without leading and/or trailing whitespace or
//! characters from a set.
//!
//! Only the ends are examined: ASCII bytes are classified by table, and a non-ASCII code
//! point is decoded (forwards or backwards) only when it is at an end.

use super::unicode::{decode_at, decode_before, UnicodeTables};
use crate::swar;
use crate::view::View;

/// Which ends to strip: `lstrip`, `rstrip` or `strip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
    Both,
}

impl Side {
    #[inline]
    fn left(self) -> bool {
        matches!(self, Side::Left | Side::Both)
    }

    #[inline]
    fn right(self) -> bool {
        matches!(self, Side::Right | Side::Both)
    }
}

/// Python's ASCII whitespace: `\t\n\v\f\r`, the separators U+001C..U+001F, and space.
#[inline]
pub fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | 0x1c..=b' ')
}

/// Strips from the chosen ends of `s` the ASCII bytes for which `ascii` holds and the
/// other code points for which `other` holds. Always inlined: whether ThinLTO inlined it
/// into a loop changed with unrelated changes elsewhere (`lstrip` of the medium set: 8 %
/// more instructions as a call).
#[inline(always)]
fn strip_by(
    s: &[u8],
    side: Side,
    ascii: impl Fn(u8) -> bool,
    other: impl Fn(char) -> bool,
) -> &[u8] {
    let mut start = 0;
    let mut end = s.len();
    if side.left() {
        while start < end {
            let width = match s[start] {
                byte if byte < 0x80 => usize::from(ascii(byte)),
                _ => match decode_at(s, start) {
                    (c, width) if other(c) => width,
                    _ => 0,
                },
            };
            if width == 0 {
                break;
            }
            start += width;
        }
    }
    if side.right() {
        while end > start {
            let width = match s[end - 1] {
                byte if byte < 0x80 => usize::from(ascii(byte)),
                _ => match decode_before(&s[start..], end - start) {
                    (c, width) if other(c) => width,
                    _ => 0,
                },
            };
            if width == 0 {
                break;
            }
            end -= width;
        }
    }
    &s[start..end]
}

/// `s.strip()`, `s.lstrip()` or `s.rstrip()` with no argument: strips Python whitespace
/// (`str.isspace`; `tables.is_space` for non-ASCII code points).
pub fn strip_whitespace<'a, U: UnicodeTables + ?Sized>(
    s: &'a [u8],
    side: Side,
    tables: &U,
) -> &'a [u8] {
    strip_by(s, side, is_ascii_space, |c| tables.is_space(c))
}

/// `strip_whitespace` of an inline, all-ASCII string, computed on its view (every byte
/// at once); `None` for a missing or long string or one with a non-ASCII byte.
#[inline]
pub fn inline_ascii_strip_whitespace(view: View, side: Side) -> Option<View> {
    let data = view.inline_ascii_lanes()?;
    let len = view.len();
    let space = swar::in_range(data, b'\t', b'\r') | swar::in_range(data, 0x1c, b' ');
    Some(strip_lanes(data, len, !space & swar::used(len), side))
}

/// What is left of an inline string with lanes `data` and length `len` when the lanes
/// whose top bit `kept` lacks are stripped from `side`.
#[inline]
fn strip_lanes(data: u128, len: usize, kept: u128, side: Side) -> View {
    if kept == 0 {
        return View::EMPTY;
    }
    let first = if side.left() {
        kept.trailing_zeros() / 8
    } else {
        0
    } as usize;
    let end = if side.right() {
        16 - kept.leading_zeros() / 8
    } else {
        len as u32
    } as usize;
    let new_len = end - first;
    View::from_lanes((data >> (8 * first)) & swar::low_bytes(new_len), new_len)
}

/// Most ASCII members a [`CharSet`] may have for its inline strip, which compares every
/// lane with each of them.
const LANE_MEMBERS: usize = 4;

/// The code points of a `chars` argument, prepared once for stripping many strings.
#[derive(Clone, Debug)]
pub struct CharSet {
    ascii: [bool; 128],
    /// The ASCII members, each once, in the order given.
    ascii_members: Vec<u8>,
    others: Vec<char>,
}

impl CharSet {
    /// The set of code points in the UTF-8 string `chars`.
    pub fn new(chars: &[u8]) -> CharSet {
        let mut set = CharSet {
            ascii: [false; 128],
            ascii_members: Vec::new(),
            others: Vec::new(),
        };
        let mut i = 0;
        while i < chars.len() {
            let (c, width) = decode_at(chars, i);
            if c.is_ascii() {
                if !set.ascii[c as usize] {
                    set.ascii_members.push(c as u8);
                }
                set.ascii[c as usize] = true;
            } else if !set.others.contains(&c) {
                set.others.push(c);
            }
            i += width;
        }
        set
    }

    /// Whether `c` is in the set.
    #[inline]
    pub fn contains(&self, c: char) -> bool {
        match self.ascii.get(c as usize) {
            Some(&hit) => hit,
            None => self.others.contains(&c),
        }
    }

    /// `strip` of an inline, all-ASCII string, computed on its view (every lane compared
    /// with each member at once); `None` for a missing, long or non-ASCII string, or when
    /// the set has more than four ASCII members.
    #[inline]
    pub fn inline_ascii_strip(&self, view: View, side: Side) -> Option<View> {
        if self.ascii_members.len() > LANE_MEMBERS {
            return None;
        }
        let data = view.inline_ascii_lanes()?;
        let len = view.len();
        let members = self.ascii_members.iter();
        let stripped = members.fold(0, |lanes, &c| lanes | swar::equal_lanes(data, c));
        Some(strip_lanes(data, len, !stripped & swar::used(len), side))
    }

    /// `s.strip(chars)`, `s.lstrip(chars)` or `s.rstrip(chars)` with this set as `chars`.
    pub fn strip<'a>(&self, s: &'a [u8], side: Side) -> &'a [u8] {
        if self.others.is_empty() {
            // No non-ASCII code point can match: stop at the first non-ASCII byte.
            return strip_by(s, side, |b| self.ascii[usize::from(b)], |_| false);
        }
        strip_by(
            s,
            side,
            |b| self.ascii[usize::from(b)],
            |c| self.others.contains(&c),
        )
    }
}

/// `s.strip(chars)`, `s.lstrip(chars)` or `s.rstrip(chars)`: strips any code point of the
/// UTF-8 string `chars`. For one `chars` and many strings, build a [`CharSet`] once.
pub fn strip_chars<'a>(s: &'a [u8], chars: &[u8], side: Side) -> &'a [u8] {
    if let [byte] = *chars {
        if byte < 0x80 {
            return strip_by(s, side, |b| b == byte, |_| false);
        }
    }
    CharSet::new(chars).strip(s, side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::unicode::RustTables;

    // (string, strip, lstrip, rstrip), from Python 3.11.
    const WHITESPACE: &[(&str, &str, &str, &str)] = &[
        ("", "", "", ""),
        ("   ", "", "", ""),
        ("  a b  ", "a b", "a b  ", "  a b"),
        (
            "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1fx\x1f ",
            "x",
            "x\x1f ",
            "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1fx",
        ),
        (
            "\u{a0}\u{3000}é\u{2029}",
            "é",
            "é\u{2029}",
            "\u{a0}\u{3000}é",
        ),
        (
            "\u{85}x\u{200b}",
            "x\u{200b}",
            "x\u{200b}",
            "\u{85}x\u{200b}",
        ),
        ("\0 a \0", "\0 a \0", "\0 a \0", "\0 a \0"),
        (" 😀 ", "😀", "😀 ", " 😀"),
    ];

    // (string, chars, strip, lstrip, rstrip), from Python 3.11.
    const CHARS: &[(&str, &str, &str, &str, &str)] = &[
        ("xxaxx", "x", "a", "axx", "xxa"),
        ("abcba", "ab", "c", "cba", "abc"),
        ("abc", "", "abc", "abc", "abc"),
        ("ééaé", "é", "a", "aé", "ééa"),
        ("é😀a😀é", "😀é", "a", "a😀é", "é😀a"),
        ("éaé", "a", "éaé", "éaé", "éaé"),
        ("aaa", "a", "", "", ""),
        ("  a ", " ", "a", "a ", "  a"),
        (
            "\u{e9}x\u{e9}",
            "\u{c3}",
            "\u{e9}x\u{e9}",
            "\u{e9}x\u{e9}",
            "\u{e9}x\u{e9}",
        ),
    ];

    #[test]
    fn whitespace_matches_python() {
        for &(s, both, left, right) in WHITESPACE {
            let s = s.as_bytes();
            let strip = |side| strip_whitespace(s, side, &RustTables);
            assert_eq!(strip(Side::Both), both.as_bytes(), "{s:?}");
            assert_eq!(strip(Side::Left), left.as_bytes(), "{s:?}");
            assert_eq!(strip(Side::Right), right.as_bytes(), "{s:?}");
        }
    }

    #[test]
    fn chars_match_python() {
        for &(s, chars, both, left, right) in CHARS {
            let (s, chars) = (s.as_bytes(), chars.as_bytes());
            let set = CharSet::new(chars);
            for (side, want) in [(Side::Both, both), (Side::Left, left), (Side::Right, right)] {
                assert_eq!(
                    strip_chars(s, chars, side),
                    want.as_bytes(),
                    "{s:?} {chars:?}"
                );
                assert_eq!(set.strip(s, side), want.as_bytes(), "{s:?} {chars:?}");
            }
        }
    }

    #[test]
    fn strip_returns_a_sub_slice() {
        let s = b"  abc  ";
        let stripped = strip_whitespace(s, Side::Both, &RustTables);
        assert_eq!(stripped.as_ptr(), s[2..].as_ptr());
    }

    #[test]
    fn inline_whitespace_strip_matches_the_byte_loop() {
        let samples = [
            "",
            " ",
            "  a ",
            "\tab\n",
            "a b",
            "exactly12byt",
            " \x1c x\x1f",
            "\0 ",
            "   ",
        ];
        for text in samples {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for side in [Side::Left, Side::Right, Side::Both] {
                let want = strip_whitespace(text.as_bytes(), side, &RustTables);
                let got = inline_ascii_strip_whitespace(view, side).expect("ASCII inline");
                assert_eq!(got.inline_bytes(), Some(want), "{text:?} {side:?}");
            }
        }
    }

    #[test]
    fn inline_chars_strip_matches_the_byte_loop() {
        let samples = [
            "",
            "a",
            "ab",
            "ba ab",
            "xaby",
            "abababababab",
            "a\0b\0",
            "\0\0",
            " ab ",
        ];
        for chars in ["ab", "b", "\0", "ab ", "a\0", "abcd", "éa", "aaab"] {
            let set = CharSet::new(chars.as_bytes());
            for text in samples {
                let view = View::try_inline(text.as_bytes()).expect("inline");
                for side in [Side::Left, Side::Right, Side::Both] {
                    let want = set.strip(text.as_bytes(), side);
                    let got = set
                        .inline_ascii_strip(view, side)
                        .expect("four members or fewer");
                    assert_eq!(
                        got.inline_bytes(),
                        Some(want),
                        "{text:?} {chars:?} {side:?}"
                    );
                }
            }
        }
        let five = CharSet::new(b"abcde");
        assert_eq!(
            five.inline_ascii_strip(View::try_inline(b"ab").unwrap(), Side::Both),
            None
        );
        let set = CharSet::new(b"a");
        assert_eq!(
            set.inline_ascii_strip(View::try_inline("aé".as_bytes()).unwrap(), Side::Both),
            None
        );
        assert_eq!(set.inline_ascii_strip(View::NA, Side::Both), None);
    }
}

//! `partition` and `rpartition`: three zero-copy sub-slices around a separator.
//!
//! An empty separator is Python's `ValueError("empty separator")`, returned as
//! [`ArgumentError::EmptySeparator`] for the caller to raise.

use memchr::memmem;

use super::split::Separator;
use super::ArgumentError;
use crate::swar;
use crate::view::View;

/// The three parts of a partitioned string: `head + sep + tail` is the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    pub head: &'a [u8],
    /// The separator, or empty when it was not found.
    pub sep: &'a [u8],
    pub tail: &'a [u8],
}

impl<'a> Parts<'a> {
    /// Whether the separator was found (a found separator is never empty).
    #[inline]
    pub fn found(&self) -> bool {
        !self.sep.is_empty()
    }

    /// The parts as an array, in order.
    #[inline]
    pub fn to_array(self) -> [&'a [u8]; 3] {
        [self.head, self.sep, self.tail]
    }

    /// The parts of `s` around a separator of `sep_len` bytes found at byte `at`; not
    /// found, all of `s` is the head (`partition`) or, with `last`, the tail
    /// (`rpartition`).
    #[inline]
    fn around(s: &'a [u8], at: Option<usize>, sep_len: usize, last: bool) -> Parts<'a> {
        match at {
            Some(at) => Parts {
                head: &s[..at],
                sep: &s[at..at + sep_len],
                tail: &s[at + sep_len..],
            },
            None if last => Parts {
                head: &s[..0],
                sep: &s[..0],
                tail: s,
            },
            None => Parts {
                head: s,
                sep: &s[s.len()..],
                tail: &s[s.len()..],
            },
        }
    }
}

/// `s.partition(sep)`: split at the first `sep`; `(s, "", "")` when there is none.
pub fn partition<'a>(s: &'a [u8], sep: &[u8]) -> Result<Parts<'a>, ArgumentError> {
    if sep.is_empty() {
        return Err(ArgumentError::EmptySeparator);
    }
    Ok(Parts::around(s, memmem::find(s, sep), sep.len(), false))
}

/// `s.rpartition(sep)`: split at the last `sep`; `("", "", s)` when there is none.
pub fn rpartition<'a>(s: &'a [u8], sep: &[u8]) -> Result<Parts<'a>, ArgumentError> {
    if sep.is_empty() {
        return Err(ArgumentError::EmptySeparator);
    }
    Ok(Parts::around(s, memmem::rfind(s, sep), sep.len(), true))
}

impl Separator<'_> {
    /// `s.partition(sep)` with the separator prepared once for many strings.
    #[inline]
    pub fn partition<'a>(&self, s: &'a [u8]) -> Parts<'a> {
        Parts::around(s, self.find(s), self.bytes().len(), false)
    }

    /// `s.rpartition(sep)` with the separator prepared once for many strings.
    #[inline]
    pub fn rpartition<'a>(&self, s: &'a [u8]) -> Parts<'a> {
        Parts::around(s, self.rfind(s), self.bytes().len(), true)
    }

    /// The three parts of an inline string as inline views, found in the view's 16
    /// bytes when the separator is one byte: `partition`, or `rpartition` with `last`.
    /// `None` for a missing or long string or a longer separator.
    #[inline]
    pub fn partition_inline(&self, view: View, last: bool) -> Option<[View; 3]> {
        let &[byte] = self.bytes() else {
            return None;
        };
        if !view.is_inline_string() {
            return None;
        }
        let len = view.len();
        // An inline view's unused bytes are zero, so the parts' unused bytes are too.
        let data = view.data_lanes();
        let empty = View::EMPTY;
        let lanes = swar::equal_lanes(data, byte) & swar::used(len);
        if lanes == 0 {
            return Some(if last {
                [empty, empty, view]
            } else {
                [view, empty, empty]
            });
        }
        let at = if last {
            15 - lanes.leading_zeros() / 8
        } else {
            lanes.trailing_zeros() / 8
        } as usize;
        let head = data & swar::low_bytes(at);
        let tail = data >> (8 * (at + 1));
        Some([
            View::from_lanes(head, at),
            View::from_lanes(u128::from(byte), 1),
            View::from_lanes(tail, len - at - 1),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // (string, sep, partition, rpartition), from Python 3.11.
    #[rustfmt::skip]
    const CASES: &[(&str, &str, [&str; 3], [&str; 3])] = &[
        ("a,b,c", ",", ["a", ",", "b,c"], ["a,b", ",", "c"]),
        ("abc", ",", ["abc", "", ""], ["", "", "abc"]),
        ("", ",", ["", "", ""], ["", "", ""]),
        (",", ",", ["", ",", ""], ["", ",", ""]),
        ("aXYbXYc", "XY", ["a", "XY", "bXYc"], ["aXYb", "XY", "c"]),
        ("aaa", "aa", ["", "aa", "a"], ["a", "aa", ""]),
        ("é→ü→", "→", ["é", "→", "ü→"], ["é→ü", "→", ""]),
        ("x", "x", ["", "x", ""], ["", "x", ""]),
        ("é é", " ", ["é", " ", "é"], ["é", " ", "é"]),
        ("ab cd ef gh ", " ", ["ab", " ", "cd ef gh "], ["ab cd ef gh", " ", ""]),
        (" bcdefghijkl", " ", ["", " ", "bcdefghijkl"], ["", " ", "bcdefghijkl"]),
        ("a cdefghijklm", " ", ["a", " ", "cdefghijklm"], ["a", " ", "cdefghijklm"]),
        ("abcdefghijkl", " ", ["abcdefghijkl", "", ""], ["", "", "abcdefghijkl"]),
        ("a\0b", "\0", ["a", "\0", "b"], ["a", "\0", "b"]),
    ];

    #[test]
    fn partition_matches_python() {
        for &(s, sep, want, rwant) in CASES {
            let (s_bytes, sep_bytes) = (s.as_bytes(), sep.as_bytes());
            let got = partition(s_bytes, sep_bytes).unwrap();
            let rgot = rpartition(s_bytes, sep_bytes).unwrap();
            let prepared = Separator::new(sep_bytes).unwrap();
            assert_eq!(prepared.partition(s_bytes), got, "{s:?} {sep:?}");
            assert_eq!(prepared.rpartition(s_bytes), rgot, "{s:?} {sep:?}");
            let inline = |parts: Parts<'_>| parts.to_array().map(|p| View::try_inline(p).unwrap());
            let view = View::try_inline(s_bytes);
            let short = view.is_some() && sep_bytes.len() == 1;
            let (first, last) = match view {
                Some(view) => (
                    prepared.partition_inline(view, false),
                    prepared.partition_inline(view, true),
                ),
                None => (None, None),
            };
            assert_eq!(first, short.then(|| inline(got)), "inline {s:?} {sep:?}");
            assert_eq!(last, short.then(|| inline(rgot)), "inline {s:?} {sep:?}");
            assert_eq!(got.to_array(), want.map(str::as_bytes), "{s:?} {sep:?}");
            assert_eq!(rgot.to_array(), rwant.map(str::as_bytes), "{s:?} {sep:?}");
            assert_eq!(got.found(), !want[1].is_empty());
            assert_eq!(rgot.found(), !rwant[1].is_empty());
        }
    }

    #[test]
    fn empty_separator_is_an_error() {
        assert_eq!(partition(b"abc", b""), Err(ArgumentError::EmptySeparator));
        assert_eq!(rpartition(b"abc", b""), Err(ArgumentError::EmptySeparator));
        assert_eq!(ArgumentError::EmptySeparator.to_string(), "empty separator");
    }
}

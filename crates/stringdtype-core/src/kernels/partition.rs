//! `partition` and `rpartition`: three zero-copy sub-slices around a separator.
//!
//! An empty separator is Python's `ValueError("empty separator")`, returned as
//! [`ArgumentError::EmptySeparator`] for the caller to raise.

use memchr::memmem;

use super::ArgumentError;

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

    #[inline]
    fn split_at(s: &'a [u8], at: usize, sep_len: usize) -> Parts<'a> {
        Parts {
            head: &s[..at],
            sep: &s[at..at + sep_len],
            tail: &s[at + sep_len..],
        }
    }
}

/// `s.partition(sep)`: split at the first `sep`; `(s, "", "")` when there is none.
pub fn partition<'a>(s: &'a [u8], sep: &[u8]) -> Result<Parts<'a>, ArgumentError> {
    if sep.is_empty() {
        return Err(ArgumentError::EmptySeparator);
    }
    Ok(match memmem::find(s, sep) {
        Some(at) => Parts::split_at(s, at, sep.len()),
        None => Parts {
            head: s,
            sep: &s[s.len()..],
            tail: &s[s.len()..],
        },
    })
}

/// `s.rpartition(sep)`: split at the last `sep`; `("", "", s)` when there is none.
pub fn rpartition<'a>(s: &'a [u8], sep: &[u8]) -> Result<Parts<'a>, ArgumentError> {
    if sep.is_empty() {
        return Err(ArgumentError::EmptySeparator);
    }
    Ok(match memmem::rfind(s, sep) {
        Some(at) => Parts::split_at(s, at, sep.len()),
        None => Parts {
            head: &s[..0],
            sep: &s[..0],
            tail: s,
        },
    })
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
    ];

    #[test]
    fn partition_matches_python() {
        for &(s, sep, want, rwant) in CASES {
            let (s_bytes, sep_bytes) = (s.as_bytes(), sep.as_bytes());
            let got = partition(s_bytes, sep_bytes).unwrap();
            let rgot = rpartition(s_bytes, sep_bytes).unwrap();
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

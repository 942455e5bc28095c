//! `join_chars`: pandas' `s.str.join(sep)` of one string, which is Python's
//! `sep.join(s)`: the string's characters (code points) with `sep` between each two.

use super::length::str_len;
use crate::view::MAX_STRING_LEN;

/// The length in bytes of `sep.join(s)`, or `None` when it exceeds the largest string.
#[inline]
pub fn join_chars_len(s: &[u8], sep: &[u8]) -> Option<usize> {
    let gaps = str_len(s).saturating_sub(1);
    gaps.checked_mul(sep.len())?
        .checked_add(s.len())
        .filter(|&len| len <= MAX_STRING_LEN)
}

/// Appends `sep.join(s)` to `out`.
#[inline]
pub fn join_chars(s: &[u8], sep: &[u8], out: &mut Vec<u8>) {
    if s.is_ascii() {
        if let Some((&first, rest)) = s.split_first() {
            out.push(first);
            for &byte in rest {
                out.extend_from_slice(sep);
                out.push(byte);
            }
        }
        return;
    }
    // A character starts at every byte that does not continue one (0b10xx_xxxx).
    let mut start = 0;
    for end in 1..=s.len() {
        if end == s.len() || s[end] & 0xC0 != 0x80 {
            if start > 0 {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(&s[start..end]);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(s: &str, sep: &str) -> String {
        let mut out = Vec::new();
        join_chars(s.as_bytes(), sep.as_bytes(), &mut out);
        assert_eq!(
            join_chars_len(s.as_bytes(), sep.as_bytes()),
            Some(out.len())
        );
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn agrees_with_str_join() {
        let strings = [
            "",
            "a",
            "ab",
            "abc",
            "ß",
            "aßc",
            "中文😀",
            "a\0b",
            "abcdefghijklm",
            "é",
        ];
        for s in strings {
            for sep in ["", "-", "--", "é", "\0", "中"] {
                let reference: Vec<String> = s.chars().map(String::from).collect();
                assert_eq!(joined(s, sep), reference.join(sep), "{s:?} {sep:?}");
            }
        }
    }

    #[test]
    fn length_is_checked() {
        assert_eq!(join_chars_len(b"ab", &[0; 8]), Some(10));
        assert_eq!(join_chars_len(b"abc", b""), Some(3));
        assert_eq!(join_chars_len(b"", b"--"), Some(0));
        let long = vec![b'-'; MAX_STRING_LEN / 2 + 1];
        assert_eq!(join_chars_len(b"abc", &long), None);
        assert_eq!(join_chars_len(b"ab", &long), Some(MAX_STRING_LEN / 2 + 3));
    }
}

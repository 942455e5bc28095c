//! `repeat` (`s * n`): a string repeated into the caller's buffer, with the length checked.

use crate::error::{Error, Result};
use crate::view::MAX_STRING_LEN;

/// Appends `s` repeated `n` times to `out` (nothing when `n <= 0`, as in Python).
///
/// Errors with [`Error::StringTooLong`] (carrying the requested length, saturated at
/// `usize::MAX`) when the result would exceed [`MAX_STRING_LEN`], before allocating, and
/// with [`Error::OutOfMemory`] when the result cannot be allocated.
pub fn repeat(s: &[u8], n: i64, out: &mut Vec<u8>) -> Result<()> {
    if n <= 0 || s.is_empty() {
        return Ok(());
    }
    let total = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(s.len()))
        .unwrap_or(usize::MAX);
    if total > MAX_STRING_LEN {
        return Err(Error::StringTooLong(total));
    }
    let start = out.len();
    out.try_reserve(total)
        .map_err(|_| Error::OutOfMemory(total))?;
    out.extend_from_slice(s);
    // Double the copied part: log2(n) large copies instead of n small ones.
    while out.len() - start <= total / 2 {
        out.extend_from_within(start..);
    }
    let missing = total - (out.len() - start);
    out.extend_from_within(start..start + missing);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_matches_python() {
        // (string, n, expected), from Python 3.11.
        let cases: &[(&str, i64, &str)] = &[
            ("ab", 3, "ababab"),
            ("ab", 1, "ab"),
            ("ab", 0, ""),
            ("ab", -5, ""),
            ("", 1000, ""),
            ("é😀", 2, "é😀é😀"),
            ("x", 7, "xxxxxxx"),
        ];
        for &(s, n, want) in cases {
            let mut out = b">".to_vec();
            repeat(s.as_bytes(), n, &mut out).unwrap();
            assert_eq!(&out[1..], want.as_bytes(), "{s:?} * {n}");
        }
        for n in 0..100 {
            let mut out = Vec::new();
            repeat(b"abc", n, &mut out).unwrap();
            assert_eq!(out, b"abc".repeat(n as usize));
        }
    }

    #[test]
    fn too_long_results_are_errors() {
        let mut out = Vec::new();
        let limit = MAX_STRING_LEN as i64;
        assert!(matches!(
            repeat(b"ab", limit, &mut out),
            Err(Error::StringTooLong(_))
        ));
        assert!(matches!(
            repeat(b"ab", i64::MAX, &mut out),
            Err(Error::StringTooLong(_))
        ));
        assert!(out.is_empty());
    }
}

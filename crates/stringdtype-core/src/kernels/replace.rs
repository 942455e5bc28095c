//! `replace`: `s.replace(old, new, count)` into the caller's buffer.
//!
//! Matches are found with `memchr::memmem` and are non-overlapping, left to right, as in
//! Python. An empty `old` matches at every code point boundary, including both ends
//! (`"ab".replace("", "-") == "-a-b-"`).

use memchr::memmem::Finder;

use super::length::str_len;
use super::search::count as count_matches;
use super::unicode::is_continuation;
use crate::swar;
use crate::view::{View, MAX_STRING_LEN};

/// Appends `s.replace(old, new, count)` to `out`; `count < 0` replaces every match.
/// For one `old` and many strings, prepare a [`Finder`] once and use [`replace_with`].
pub fn replace(s: &[u8], old: &[u8], new: &[u8], count: i64, out: &mut Vec<u8>) {
    if old.is_empty() {
        interleave(s, new, limit(count), out);
    } else {
        replace_with(s, &Finder::new(old), new, count, out);
    }
}

/// Bound below which [`replace_size`] answers a cheap upper bound of the size, and above
/// which the exact size (worth one more pass over the string).
const EXACT_FROM: usize = 1 << 20;

/// The byte length of `s.replace(old, new, count)` or an upper bound of it (exact when
/// the cheap bound is over [`EXACT_FROM`]), for reserving the result's buffer; `None`
/// when the result is longer than the largest string.
#[inline]
pub fn replace_size(s: &[u8], old: &[u8], new: &[u8], count: i64) -> Option<usize> {
    // Every match but those of an empty `old` consumes at least one byte.
    let bound_matches = s.len() + 1;
    let matches = usize::try_from(count).map_or(bound_matches, |c| c.min(bound_matches));
    let bound = new.len().saturating_mul(matches).saturating_add(s.len());
    if bound <= EXACT_FROM {
        return Some(bound);
    }
    exact_size(s, old, new, count)
}

/// [`replace_size`] when the cheap bound is large: the matches counted.
#[cold]
fn exact_size(s: &[u8], old: &[u8], new: &[u8], count: i64) -> Option<usize> {
    let found = if old.is_empty() {
        str_len(s) + 1
    } else {
        count_matches(s, old, 0, isize::MAX)
    };
    let replaced = usize::try_from(count).map_or(found, |c| c.min(found));
    let size = (s.len() - replaced * old.len()).checked_add(replaced.saturating_mul(new.len()));
    size.filter(|&size| size <= MAX_STRING_LEN)
}

/// The most replacements `count` allows.
#[inline]
fn limit(count: i64) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// [`replace`] with `old` prepared as `finder`.
pub fn replace_with(s: &[u8], finder: &Finder<'_>, new: &[u8], count: i64, out: &mut Vec<u8>) {
    let old_len = finder.needle().len();
    if old_len == 0 {
        return interleave(s, new, limit(count), out);
    }
    if let ([byte], true) = (finder.needle(), s.len() <= 16) {
        return replace_byte_short(s, *byte, new, limit(count), out);
    }
    out.reserve(s.len());
    let mut copied = 0;
    for at in finder.find_iter(s).take(limit(count)) {
        out.extend_from_slice(&s[copied..at]);
        out.extend_from_slice(new);
        copied = at + old_len;
    }
    out.extend_from_slice(&s[copied..]);
}

/// [`replace_with`] of a one-byte `old` in a string of at most 16 bytes: the matches are
/// the set lanes of one comparison, not `memchr` calls.
fn replace_byte_short(s: &[u8], byte: u8, new: &[u8], limit: usize, out: &mut Vec<u8>) {
    let mut lanes = swar::equal_lanes(swar::load(s), byte) & swar::used(s.len());
    let mut copied = 0;
    for _ in 0..limit {
        if lanes == 0 {
            break;
        }
        let at = (lanes.trailing_zeros() / 8) as usize;
        lanes &= lanes - 1;
        out.extend_from_slice(&s[copied..at]);
        out.extend_from_slice(new);
        copied = at + 1;
    }
    out.extend_from_slice(&s[copied..]);
}

/// Whether a string of at most 16 bytes holds `byte` (`None` for a longer one).
#[inline]
pub fn short_contains_byte(s: &[u8], byte: u8) -> Option<bool> {
    (s.len() <= 16).then(|| swar::equal_lanes(swar::load(s), byte) & swar::used(s.len()) != 0)
}

/// `view` itself when it is an inline string without `byte`, which `replace` of that byte
/// leaves as it is; `None` for a missing or long string, or one holding `byte`.
#[inline]
pub fn inline_without_byte(view: View, byte: u8) -> Option<View> {
    if !view.is_inline_string() {
        return None;
    }
    let lanes = view.data_lanes();
    (swar::equal_lanes(lanes, byte) & swar::used(view.len()) == 0).then_some(view)
}

/// Replacing an empty `old`: `new` before each of the first `limit` code points, and at
/// the end too when the limit allows `len + 1` insertions.
fn interleave(s: &[u8], new: &[u8], limit: usize, out: &mut Vec<u8>) {
    if limit == 0 {
        out.extend_from_slice(s);
        return;
    }
    out.reserve(s.len() + new.len() * (s.len() + 1).min(limit));
    // Every code point start is a boundary, and so is the end.
    let starts = s.iter().enumerate().filter(|&(_, &b)| !is_continuation(b));
    let boundaries = starts.map(|(i, _)| i).chain(std::iter::once(s.len()));
    let mut copied = 0;
    for at in boundaries.take(limit) {
        out.extend_from_slice(&s[copied..at]);
        out.extend_from_slice(new);
        copied = at;
    }
    out.extend_from_slice(&s[copied..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_without_byte_reads_only_the_string() {
        for text in ["", "a", "xyz", "exactly12byt", "abcdefghijk\0", "\0", "é"] {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for byte in [b'a', b'z', b't', 0, 0xa9] {
                let want = (!text.as_bytes().contains(&byte)).then_some(view);
                assert_eq!(inline_without_byte(view, byte), want, "{text:?} {byte}");
            }
        }
        assert_eq!(inline_without_byte(View::NA, b'a'), None);
        let long = View::long(
            13,
            *b"bbbb",
            crate::view::Location {
                chunk: 1,
                offset: 0,
            },
        );
        assert_eq!(inline_without_byte(long.unwrap(), b'a'), None);
    }

    // (string, old, new, count, expected), from Python 3.11.
    #[rustfmt::skip]
    const CASES: &[(&str, &str, &str, i64, &str)] = &[
        ("ab", "", "-", -1, "-a-b-"),
        ("ab", "", "-", 2, "-a-b"),
        ("ab", "", "-", 3, "-a-b-"),
        ("ab", "", "-", 10, "-a-b-"),
        ("ab", "", "-", 0, "ab"),
        ("", "", "x", -1, "x"),
        ("", "", "x", 1, "x"),
        ("", "", "x", 0, ""),
        ("é€é", "", "|", 2, "|é|€é"),
        ("é€é", "", "", -1, "é€é"),
        ("aaa", "a", "bb", 2, "bbbba"),
        ("aaa", "aa", "b", -1, "ba"),
        ("aaa", "a", "", -1, ""),
        ("hello world", "o", "0", -1, "hell0 w0rld"),
        ("hello world", "xyz", "0", -1, "hello world"),
        ("hello", "hello", "bye", -1, "bye"),
        ("hello", "l", "L", 1, "heLlo"),
        ("hello", "l", "L", 0, "hello"),
        ("", "a", "b", -1, ""),
        ("日本語日本語", "本", "ほん", -1, "日ほん語日ほん語"),
        ("😀a😀", "😀", "<>", -1, "<>a<>"),
    ];

    #[test]
    fn replace_matches_python() {
        for &(s, old, new, count, want) in CASES {
            let mut out = b">".to_vec();
            replace(
                s.as_bytes(),
                old.as_bytes(),
                new.as_bytes(),
                count,
                &mut out,
            );
            assert_eq!(&out[1..], want.as_bytes(), "{s:?} {old:?} {new:?} {count}");
            let mut out = Vec::new();
            let finder = Finder::new(old.as_bytes());
            replace_with(s.as_bytes(), &finder, new.as_bytes(), count, &mut out);
            assert_eq!(out, want.as_bytes(), "{s:?} {old:?} {new:?} {count}");
        }
    }

    /// The reference: the length of Rust's own replacement, which agrees with Python's
    /// (an empty `old` matches at every code point boundary, both ends included).
    fn reference_len(s: &str, old: &str, new: &str, count: i64) -> usize {
        match usize::try_from(count) {
            Ok(count) => s.replacen(old, new, count).len(),
            Err(_) => s.replace(old, new).len(),
        }
    }

    #[test]
    fn replace_size_bounds_the_result() {
        let counts = [0, 1, 2, -1, i64::MIN, i64::MAX];
        for &(s, old, new, _, _) in CASES {
            for count in counts {
                let want = reference_len(s, old, new, count);
                let got = replace_size(s.as_bytes(), old.as_bytes(), new.as_bytes(), count);
                let got = got.expect("small");
                assert!(got >= want, "{s:?} {old:?} {new:?} {count}: {got} < {want}");
            }
        }
    }

    #[test]
    fn replace_size_is_exact_for_large_results() {
        // Longer than the bound, so that every size is counted exactly.
        let long = "ab日😀".repeat(EXACT_FROM / 8);
        let cases = [
            ("b", "xyz"),
            ("日", ""),
            ("😀", "12345"),
            ("", "-"),
            ("zz", "-"),
        ];
        for (old, new) in cases {
            for count in [0, 1, 1000, -1, i64::MAX] {
                let want = reference_len(&long, old, new, count);
                let got = replace_size(long.as_bytes(), old.as_bytes(), new.as_bytes(), count);
                assert_eq!(got, Some(want), "{old:?} {new:?} {count}");
            }
        }
    }

    #[test]
    fn replace_size_refuses_results_over_the_largest_string() {
        let s = vec![b'a'; 1 << 20];
        let new = vec![b'x'; 1 << 12];
        // 2^20 matches of 4 KiB each: 4 GiB.
        assert_eq!(replace_size(&s, b"a", &new, -1), None);
        assert_eq!(replace_size(&s, b"", &new, -1), None);
        // Within the limit when the count keeps it small, or nothing matches.
        assert_eq!(replace_size(&s, b"a", &new, 10), Some(s.len() + 10 * 4095));
        assert_eq!(replace_size(&s, b"b", &new, -1), Some(s.len()));
        assert_eq!(replace_size(&s, b"a", &new, 0), Some(s.len()));
    }
}

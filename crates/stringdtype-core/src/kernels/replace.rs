//! `replace`: `s.replace(old, new, count)` into the caller's buffer.
//!
//! Matches are found with `memchr::memmem` and are non-overlapping, left to right, as in
//! Python. An empty `old` matches at every code point boundary, including both ends
//! (`"ab".replace("", "-") == "-a-b-"`).

use memchr::memmem::Finder;

use super::unicode::is_continuation;
use crate::swar;
use crate::view::View;

/// Appends `s.replace(old, new, count)` to `out`; `count < 0` replaces every match.
/// For one `old` and many strings, prepare a [`Finder`] once and use [`replace_with`].
pub fn replace(s: &[u8], old: &[u8], new: &[u8], count: i64, out: &mut Vec<u8>) {
    if old.is_empty() {
        interleave(s, new, limit(count), out);
    } else {
        replace_with(s, &Finder::new(old), new, count, out);
    }
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
}

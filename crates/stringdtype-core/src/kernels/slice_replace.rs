//! `slice_replace`: pandas' `s.str.slice_replace(start, stop, repl)` of one string, in
//! code points with Python's slice rules, in one pass:
//!
//! ```text
//! local_stop = start if s[start:stop] == "" else stop
//! s[:start] + repl + s[local_stop:]       (s[:start] is "" for start None, and
//!                                          s[local_stop:] is "" for stop None)
//! ```
//!
//! With `start` and `stop` resolved against the length (clamped to `0..=len`) this keeps
//! `s[..start]` and `s[max(start, stop)..]`: a [`Cut`] of the string's bytes.

use super::length::{byte_offset, str_len};
use crate::swar;
use crate::view::{View, MAX_INLINE_LEN, MAX_STRING_LEN};

/// Where `slice_replace` cuts a string: it keeps the bytes before `head` and from `tail`
/// on, and puts the replacement between them (`head <= tail <= s.len()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub head: usize,
    pub tail: usize,
}

impl Cut {
    /// The cut of `s` for `start:stop` in code points (`None` for an omitted bound).
    ///
    /// Bounds from the front need no length: the cut walks to them, and takes the bytes
    /// for code points when the bytes it walks over are ASCII. A bound from the end
    /// counts the code points of the whole string first.
    #[inline]
    pub fn new(s: &[u8], start: Option<isize>, stop: Option<isize>) -> Cut {
        let start = start.unwrap_or(0);
        let (start, stop) = if start >= 0 && stop.is_none_or(|stop| stop >= 0) {
            (start as usize, stop.map(|stop| stop as usize))
        } else {
            let len = str_len(s);
            let start = from_end(start, len);
            let stop = stop.map(|stop| from_end(stop, len));
            if len == s.len() {
                return Cut::of_ascii(s.len(), start, stop);
            }
            (start, stop)
        };
        let reach = stop.map_or(start, |stop| stop.max(start));
        if s[..reach.min(s.len())].is_ascii() {
            Cut::of_ascii(s.len(), start, stop)
        } else {
            Cut::walking(s, start, stop)
        }
    }

    /// The cut when code points are bytes up to the bounds (`len` bytes in all).
    #[inline]
    fn of_ascii(len: usize, start: usize, stop: Option<usize>) -> Cut {
        let head = start.min(len);
        let tail = stop.map_or(len, |stop| stop.clamp(head, len));
        Cut { head, tail }
    }

    /// The cut of a string with a non-ASCII code point before a bound: a walk over the
    /// code points up to the bounds.
    fn walking(s: &[u8], start: usize, stop: Option<usize>) -> Cut {
        let head = byte_offset(s, start);
        let tail = match stop {
            None => s.len(),
            Some(stop) if stop <= start => head,
            Some(stop) => head + byte_offset(&s[head..], stop - start),
        };
        Cut { head, tail }
    }

    /// The kept parts of `s`: the bytes before the replacement and after it.
    #[inline]
    pub fn parts(self, s: &[u8]) -> [&[u8]; 2] {
        [&s[..self.head], &s[self.tail..]]
    }

    /// The length in bytes of the result for a string of `len` bytes and a replacement
    /// of `repl_len`, or `None` when it would be longer than a string can be.
    #[inline]
    pub fn result_len(self, len: usize, repl_len: usize) -> Option<usize> {
        let kept = self.head + (len - self.tail);
        kept.checked_add(repl_len)
            .filter(|&size| size <= MAX_STRING_LEN)
    }
}

/// A bound counted from the end of a string of `len` code points, as a count from its
/// start (Python's rule for a negative index; clamped at 0).
#[inline]
fn from_end(index: isize, len: usize) -> usize {
    if index < 0 {
        len.saturating_sub(index.unsigned_abs())
    } else {
        index as usize
    }
}

/// Appends `slice_replace(s, start, stop, repl)` to `out`, for the cut that
/// [`Cut::new`] found (the caller checks the size with [`Cut::result_len`]).
#[inline]
pub fn slice_replace(s: &[u8], cut: Cut, repl: &[u8], out: &mut Vec<u8>) {
    let [head, tail] = cut.parts(s);
    out.extend_from_slice(head);
    out.extend_from_slice(repl);
    out.extend_from_slice(tail);
}

/// `slice_replace` of an inline, all-ASCII string with an inline replacement (of any
/// bytes) when the result is inline too, computed on the views' byte lanes; `None`
/// otherwise (a missing operand, a long one, a non-ASCII string, a long result).
#[inline]
pub fn inline_ascii_slice_replace(
    view: View,
    start: Option<isize>,
    stop: Option<isize>,
    repl: View,
) -> Option<View> {
    let data = view.inline_ascii_lanes()?;
    if !repl.is_inline_string() {
        return None;
    }
    let len = view.len();
    let start = from_end(start.unwrap_or(0), len);
    let Cut { head, tail } = Cut::of_ascii(len, start, stop.map(|stop| from_end(stop, len)));
    let new_len = head + repl.len() + (len - tail);
    if new_len > MAX_INLINE_LEN {
        return None;
    }
    // Every shift is by at most 12 lanes, and the lanes past a string are zero.
    let kept = data & swar::low_bytes(head);
    let inserted = repl.data_lanes() << (8 * head);
    let moved = (data >> (8 * tail)) << (8 * (head + repl.len()));
    Some(View::from_lanes(kept | inserted | moved, new_len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::slice::SliceIndices;

    /// pandas' rule, element by element on code points, with Python's slices.
    fn reference(s: &str, start: Option<isize>, stop: Option<isize>, repl: &str) -> String {
        let chars: Vec<char> = s.chars().collect();
        let slice = |from: Option<isize>, to: Option<isize>| -> String {
            let indices = SliceIndices::new(chars.len(), from, to, None).expect("step 1");
            chars[indices.start..indices.start + indices.count]
                .iter()
                .collect()
        };
        let local_stop = if slice(start, stop).is_empty() {
            start
        } else {
            stop
        };
        let mut out = String::new();
        if start.is_some() {
            out += &slice(None, start);
        }
        out += repl;
        if stop.is_some() {
            out += &slice(local_stop, None);
        }
        out
    }

    fn replaced(s: &str, start: Option<isize>, stop: Option<isize>, repl: &str) -> String {
        let cut = Cut::new(s.as_bytes(), start, stop);
        assert!(cut.head <= cut.tail && cut.tail <= s.len(), "{s:?} {cut:?}");
        let mut out = Vec::new();
        slice_replace(s.as_bytes(), cut, repl.as_bytes(), &mut out);
        assert_eq!(cut.result_len(s.len(), repl.len()), Some(out.len()));
        String::from_utf8(out).expect("cut at code point boundaries")
    }

    // (string, start, stop, repl, result), generated with pandas 3.1.1's object path.
    type Row = (
        &'static str,
        Option<isize>,
        Option<isize>,
        &'static str,
        &'static str,
    );
    #[rustfmt::skip]
    const CASES: &[Row] = &[
        ("abcdef", Some(1), Some(3), "X", "aXdef"),
        ("abcdef", Some(3), Some(1), "X", "abcXdef"),
        ("abcdef", None, Some(2), "X", "Xcdef"),
        ("abcdef", Some(2), None, "X", "abX"),
        ("abcdef", None, None, "X", "X"),
        ("abcdef", Some(-2), None, "X", "abcdX"),
        ("abcdef", Some(-10), Some(-4), "", "cdef"),
        ("abcdef", Some(10), Some(20), "X", "abcdefX"),
        ("abcdef", Some(-1), Some(-3), "X", "abcdeXf"),
        ("", Some(1), Some(3), "X", "X"),
        ("", None, None, "", ""),
        ("aé€😀xyz", Some(1), Some(3), "-", "a-😀xyz"),
        ("aé€😀xyz", Some(-3), Some(-1), "日本", "aé€😀日本z"),
        ("aé€😀xyz", Some(5), Some(2), "|", "aé€😀x|yz"),
        ("日本語", Some(1), None, "", "日"),
        ("a\0b\0c", Some(1), Some(2), "-", "a-b\0c"),
    ];

    #[test]
    fn slice_replace_matches_pandas() {
        for &(s, start, stop, repl, want) in CASES {
            assert_eq!(reference(s, start, stop, repl), want, "reference {s:?}");
            assert_eq!(
                replaced(s, start, stop, repl),
                want,
                "{s:?} {start:?}:{stop:?} {repl:?}"
            );
        }
    }

    const BOUNDS: [Option<isize>; 12] = [
        None,
        Some(isize::MIN),
        Some(-40),
        Some(-13),
        Some(-3),
        Some(-1),
        Some(0),
        Some(1),
        Some(5),
        Some(12),
        Some(13),
        Some(isize::MAX),
    ];

    #[test]
    fn every_bound_matches_the_reference() {
        let mut texts = vec![
            String::new(),
            "exactly12byt".to_string(),
            "exactly13byte".to_string(),
            "a\0b".to_string(),
            "abcdefghijklmnopqrstuvwxyz".repeat(3),
        ];
        // A wide code point before, between and after the bounds.
        for at in [0, 1, 4, 12, 20] {
            for wide in ["é", "€", "😀"] {
                let ascii = "abcdefghijklmnopqrstuvwxyz";
                texts.push(format!("{}{wide}{}", &ascii[..at], &ascii[at..]));
            }
        }
        for text in &texts {
            for start in BOUNDS {
                for stop in BOUNDS {
                    for repl in ["", "X", "日本", "a much longer replacement"] {
                        assert_eq!(
                            replaced(text, start, stop, repl),
                            reference(text, start, stop, repl),
                            "{text:?} {start:?}:{stop:?} {repl:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn inline_views_match_the_bytes() {
        let texts = ["", "a", "abc", "exactly12byt", "a\0b\0"];
        let repls = ["", "X", "é", "twelve bytes", "thirteen byte"];
        for text in texts {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for repl in repls {
                let repl_view = View::try_inline(repl.as_bytes()).unwrap_or(View::NA);
                for start in BOUNDS {
                    for stop in BOUNDS {
                        let want = replaced(text, start, stop, repl);
                        let got = inline_ascii_slice_replace(view, start, stop, repl_view);
                        let fits = want.len() <= MAX_INLINE_LEN && repl.len() <= MAX_INLINE_LEN;
                        assert_eq!(got.is_some(), fits, "{text:?} {start:?}:{stop:?} {repl:?}");
                        if let Some(got) = got {
                            assert_eq!(got.inline_bytes(), Some(want.as_bytes()));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn inline_views_leave_other_strings_to_the_bytes() {
        let repl = View::try_inline(b"X").expect("inline");
        let wide = View::try_inline("é".as_bytes()).expect("inline");
        assert_eq!(inline_ascii_slice_replace(wide, None, None, repl), None);
        assert_eq!(inline_ascii_slice_replace(View::NA, None, None, repl), None);
        let view = View::try_inline(b"abc").expect("inline");
        assert_eq!(inline_ascii_slice_replace(view, None, None, View::NA), None);
    }

    #[test]
    fn result_length_is_checked() {
        let cut = Cut { head: 3, tail: 5 };
        assert_eq!(cut.result_len(10, 4), Some(12));
        assert_eq!(cut.result_len(10, MAX_STRING_LEN - 8), Some(MAX_STRING_LEN));
        assert_eq!(cut.result_len(10, MAX_STRING_LEN - 7), None);
        assert_eq!(cut.result_len(10, usize::MAX), None);
    }
}

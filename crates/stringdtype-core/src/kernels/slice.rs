//! `slice`: `s[start:stop:step]` in code points, with Python's slice rules
//! (`None` bounds, negative indices, clamping, any non-zero step).

use super::length::{byte_offset, byte_offset_from_end, str_len};
use super::unicode::decode_at;
use super::ArgumentError;
use crate::swar;
use crate::view::View;

/// A slice resolved against a length: the first index, the step and the number of items
/// (CPython's `PySlice_Unpack` followed by `PySlice_AdjustIndices`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceIndices {
    pub start: usize,
    pub step: isize,
    pub count: usize,
}

impl SliceIndices {
    /// Resolves `start:stop:step` (`None` for an omitted part) against `len` items.
    pub fn new(
        len: usize,
        start: Option<isize>,
        stop: Option<isize>,
        step: Option<isize>,
    ) -> Result<SliceIndices, ArgumentError> {
        let step = step.unwrap_or(1).max(-isize::MAX);
        if step == 0 {
            return Err(ArgumentError::ZeroStep);
        }
        let len = len as isize;
        let clamp = |index: isize| {
            if index < 0 {
                let index = index + len;
                if index < 0 {
                    if step < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    index
                }
            } else if index >= len {
                if step < 0 {
                    len - 1
                } else {
                    len
                }
            } else {
                index
            }
        };
        let start = clamp(start.unwrap_or(if step < 0 { isize::MAX } else { 0 }));
        let stop = clamp(stop.unwrap_or(if step < 0 { isize::MIN } else { isize::MAX }));
        let count = match step {
            _ if step < 0 && stop < start => (start - stop - 1) / -step + 1,
            _ if step > 0 && start < stop => (stop - start - 1) / step + 1,
            _ => 0,
        };
        Ok(SliceIndices {
            start: start.max(0) as usize,
            step,
            count: count as usize,
        })
    }
}

/// The bytes of `count` consecutive code points from code point `start` (`len` is the
/// string's length in code points).
#[inline]
fn contiguous(s: &[u8], len: usize, start: usize, count: usize) -> &[u8] {
    if count == 0 {
        return &s[..0];
    }
    if len == s.len() {
        return &s[start..start + count];
    }
    let begin = byte_offset(s, start);
    &s[begin..begin + byte_offset(&s[begin..], count)]
}

/// `s[start:stop]` of an inline, all-ASCII string, computed on its view (code points are
/// bytes there); `None` for a missing or long string or one with a non-ASCII byte.
#[inline]
pub fn inline_ascii_slice(view: View, start: Option<isize>, stop: Option<isize>) -> Option<View> {
    let data = view.inline_ascii_lanes()?;
    let indices = SliceIndices::new(view.len(), start, stop, None).ok()?;
    let bytes = (data >> (8 * indices.start)) & swar::low_bytes(indices.count);
    Some(View::from_lanes(bytes, indices.count))
}

/// `s[start:stop]`: a zero-copy sub-slice (a step-1 slice of code points).
pub fn slice_contiguous(s: &[u8], start: Option<isize>, stop: Option<isize>) -> &[u8] {
    // Bounds from the front need no length: walk to them (a long string is not counted).
    if let (Some(start @ 0..), Some(stop @ 0..)) = (start.or(Some(0)), stop) {
        if let Some(bytes) = ascii_head_slice(s, start as usize, stop as usize) {
            return bytes;
        }
        let begin = byte_offset(s, start as usize);
        let count = stop.saturating_sub(start).max(0) as usize;
        return &s[begin..begin + byte_offset(&s[begin..], count)];
    }
    let len = str_len(s);
    let indices = SliceIndices::new(len, start, stop, None).expect("step 1 is not zero");
    contiguous(s, len, indices.start, indices.count)
}

/// `s[start:stop]` for `stop <= 16` when the first `stop` bytes of `s` are ASCII, so that
/// code points are bytes there: checked in the lanes of one 16-byte integer, where
/// walking the code points went byte by byte with a branch on each (`a[2:8]` of the
/// benchmark's medium set). `None` otherwise.
#[inline]
fn ascii_head_slice(s: &[u8], start: usize, stop: usize) -> Option<&[u8]> {
    if stop > 16 {
        return None;
    }
    let head = match s.get(..16) {
        Some(head) => u128::from_le_bytes(head.try_into().expect("16 bytes")),
        // Zero past the end of `s`, and zero is ASCII.
        None => swar::load(s),
    };
    if head & swar::used(stop) != 0 {
        return None;
    }
    let end = stop.min(s.len());
    Some(&s[start.min(end)..end])
}

/// Appends `s[start:stop:step]` to `out`. Errors with [`ArgumentError::ZeroStep`] for
/// `step == Some(0)` (Python's `ValueError`).
pub fn slice(
    s: &[u8],
    start: Option<isize>,
    stop: Option<isize>,
    step: Option<isize>,
    out: &mut Vec<u8>,
) -> Result<(), ArgumentError> {
    let len = str_len(s);
    let indices = SliceIndices::new(len, start, stop, step)?;
    if indices.step == 1 || indices.count <= 1 {
        out.extend_from_slice(contiguous(s, len, indices.start, indices.count));
    } else if len == s.len() {
        let first = indices.start as isize;
        let at = |k: usize| (first + k as isize * indices.step) as usize;
        out.extend((0..indices.count).map(|k| s[at(k)]));
    } else if indices.step > 0 {
        slice_forward(s, indices, out);
    } else {
        slice_backward(s, indices, out);
    }
    Ok(())
}
/// A stepped slice of a non-ASCII string with `step > 1`.
fn slice_forward(s: &[u8], indices: SliceIndices, out: &mut Vec<u8>) {
    let step = indices.step as usize;
    let mut at = byte_offset(s, indices.start);
    for taken in 0..indices.count {
        let (_, width) = decode_at(s, at);
        out.extend_from_slice(&s[at..at + width]);
        if taken + 1 < indices.count {
            at += byte_offset(&s[at..], step);
        }
    }
}

/// A stepped slice of a non-ASCII string with `step < 0`.
fn slice_backward(s: &[u8], indices: SliceIndices, out: &mut Vec<u8>) {
    let step = indices.step.unsigned_abs();
    let mut at = byte_offset(s, indices.start);
    for taken in 0..indices.count {
        let (_, width) = decode_at(s, at);
        out.extend_from_slice(&s[at..at + width]);
        if taken + 1 < indices.count {
            at = byte_offset_from_end(&s[..at], step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // (string, start, stop, step, s[start:stop:step]), generated with Python 3.11.
    type Row = (
        &'static str,
        Option<isize>,
        Option<isize>,
        Option<isize>,
        &'static str,
    );
    #[rustfmt::skip]
    const CASES: &[Row] = &[
        ("", Some(-1), Some(-10), Some(-1), ""),
        ("", Some(-1), Some(-10), Some(1), ""),
        ("", Some(-1), Some(10), Some(2), ""),
        ("", Some(-1), Some(5), Some(1), ""),
        ("", Some(-10), Some(10), None, ""),
        ("", Some(-10), Some(2), Some(3), ""),
        ("", Some(-10), Some(5), Some(3), ""),
        ("", Some(-3), Some(10), None, ""),
        ("", Some(0), Some(5), Some(-2), ""),
        ("", Some(1), None, None, ""),
        ("", Some(10), Some(-3), Some(2), ""),
        ("", Some(10), Some(1), Some(2), ""),
        ("", Some(2), None, Some(1), ""),
        ("", Some(5), Some(10), Some(3), ""),
        ("", None, Some(-1), Some(3), ""),
        ("", None, Some(0), Some(-2), ""),
        ("abcdef", Some(-1), Some(-10), Some(-1), "fedcba"),
        ("abcdef", Some(-1), None, Some(3), "f"),
        ("abcdef", Some(-10), Some(-3), Some(1), "abc"),
        ("abcdef", Some(-10), Some(1), Some(-2), ""),
        ("abcdef", Some(-10), Some(5), None, "abcde"),
        ("abcdef", Some(0), Some(-3), Some(-2), ""),
        ("abcdef", Some(0), Some(0), None, ""),
        ("abcdef", Some(1), Some(-10), Some(-1), "ba"),
        ("abcdef", Some(10), Some(10), Some(-4), ""),
        ("abcdef", Some(10), None, Some(-4), "fb"),
        ("abcdef", Some(2), Some(-1), Some(1), "cde"),
        ("abcdef", Some(2), Some(-3), Some(-2), ""),
        ("abcdef", Some(2), Some(10), Some(2), "ce"),
        ("abcdef", Some(2), Some(2), Some(-4), ""),
        ("abcdef", Some(5), Some(-3), Some(3), ""),
        ("abcdef", None, Some(-3), Some(-1), "fe"),
        ("abcdef", None, None, Some(-4), "fb"),
        ("aé€😀xyz", Some(-1), Some(-1), Some(-4), ""),
        ("aé€😀xyz", Some(-10), Some(-10), Some(3), ""),
        ("aé€😀xyz", Some(-10), Some(0), Some(-1), ""),
        ("aé€😀xyz", Some(-10), Some(2), Some(3), "a"),
        ("aé€😀xyz", Some(-3), Some(1), Some(-4), "x"),
        ("aé€😀xyz", Some(-3), Some(10), Some(-1), ""),
        ("aé€😀xyz", Some(-3), Some(2), Some(-2), "x"),
        ("aé€😀xyz", Some(1), Some(1), Some(3), ""),
        ("aé€😀xyz", Some(10), Some(-3), None, ""),
        ("aé€😀xyz", Some(10), Some(5), Some(2), ""),
        ("aé€😀xyz", Some(5), Some(-3), Some(-1), "y"),
        ("aé€😀xyz", Some(5), Some(0), Some(1), ""),
        ("aé€😀xyz", Some(5), Some(1), Some(2), ""),
        ("aé€😀xyz", Some(5), Some(5), None, ""),
        ("aé€😀xyz", None, Some(-10), Some(-4), "z€"),
        ("aé€😀xyz", None, Some(10), Some(1), "aé€😀xyz"),
        ("aé€😀xyz", None, Some(5), Some(2), "a€x"),
        ("日本語", Some(-1), Some(1), Some(1), ""),
        ("日本語", Some(-10), Some(-3), Some(1), ""),
        ("日本語", Some(-10), Some(-3), Some(3), ""),
        ("日本語", Some(-3), Some(1), Some(1), "日"),
        ("日本語", Some(-3), Some(10), None, "日本語"),
        ("日本語", Some(-3), Some(5), Some(-2), ""),
        ("日本語", Some(0), Some(-10), None, ""),
        ("日本語", Some(0), Some(2), Some(-2), ""),
        ("日本語", Some(1), Some(0), Some(1), ""),
        ("日本語", Some(1), Some(2), Some(1), "本"),
        ("日本語", Some(1), Some(5), Some(-1), ""),
        ("日本語", Some(1), None, None, "本語"),
        ("日本語", Some(10), Some(0), Some(-2), "語"),
        ("日本語", Some(10), Some(0), Some(1), ""),
        ("日本語", Some(2), Some(2), None, ""),
        ("日本語", Some(2), None, Some(-2), "語日"),
        ("日本語", Some(2), None, Some(1), "語"),
        ("日本語", Some(5), Some(0), None, ""),
        ("日本語", None, Some(-10), Some(1), ""),
        ("日本語", None, Some(5), Some(-2), ""),
    ];

    fn sliced(s: &str, start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> String {
        let mut out = Vec::new();
        slice(s.as_bytes(), start, stop, step, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn slice_matches_python() {
        for &(s, start, stop, step, want) in CASES {
            assert_eq!(
                sliced(s, start, stop, step),
                want,
                "{s:?}[{start:?}:{stop:?}:{step:?}]"
            );
            if step.is_none() {
                let got = slice_contiguous(s.as_bytes(), start, stop);
                assert_eq!(got, want.as_bytes(), "{s:?}[{start:?}:{stop:?}]");
            }
        }
    }

    #[test]
    fn utf8_paths_agree_with_ascii_paths() {
        // Replacing ASCII letters by wider code points must commute with slicing.
        let widen = |s: &str| s.replace('b', "é").replace('d', "😀").replace('f', "日");
        let ascii = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
        let bounds = [
            None,
            Some(-60),
            Some(-7),
            Some(-1),
            Some(0),
            Some(3),
            Some(40),
            Some(99),
        ];
        let steps = [
            None,
            Some(2),
            Some(5),
            Some(-1),
            Some(-3),
            Some(isize::MAX),
            Some(isize::MIN),
        ];
        for start in bounds {
            for stop in bounds {
                for step in steps {
                    let want = widen(&sliced(ascii, start, stop, step));
                    assert_eq!(sliced(&widen(ascii), start, stop, step), want);
                }
            }
        }
    }

    #[test]
    fn zero_step_is_an_error() {
        let mut out = Vec::new();
        assert_eq!(
            slice(b"abc", None, None, Some(0), &mut out),
            Err(ArgumentError::ZeroStep)
        );
        assert_eq!(
            ArgumentError::ZeroStep.to_string(),
            "slice step cannot be zero"
        );
    }

    #[test]
    fn inline_ascii_slices_match_python() {
        let text = "exactly12byt";
        let view = View::try_inline(text.as_bytes()).expect("inline");
        let bounds = [
            None,
            Some(-20),
            Some(-3),
            Some(0),
            Some(2),
            Some(11),
            Some(12),
            Some(40),
        ];
        for start in bounds {
            for stop in bounds {
                let want = slice_contiguous(text.as_bytes(), start, stop);
                let got = inline_ascii_slice(view, start, stop).expect("ASCII inline");
                assert_eq!(got.inline_bytes(), Some(want), "{start:?}:{stop:?}");
            }
        }
    }

    #[test]
    fn ascii_heads_slice_as_python() {
        // Non-ASCII characters at every byte position of the first 16 bytes, and strings
        // of every length from 0 to 40 bytes, sliced by every pair of bounds up to 20.
        let mut texts = vec![String::new()];
        for len in 1..40 {
            texts.push(("abcdefghij\0".repeat(4))[..len].to_string());
        }
        for at in 0..18 {
            for wide in ["é", "€", "😀"] {
                let ascii = "a\0bcdefghijklmnopqrstuvwxyz";
                texts.push(format!("{}{wide}{}", &ascii[..at], &ascii[at..]));
            }
        }
        for text in &texts {
            let chars: Vec<char> = text.chars().collect();
            for start in 0..20 {
                for stop in 0..20 {
                    let first = start.min(chars.len());
                    let want: String = chars[first..stop.clamp(first, chars.len())]
                        .iter()
                        .collect();
                    let got = slice_contiguous(
                        text.as_bytes(),
                        Some(start as isize),
                        Some(stop as isize),
                    );
                    assert_eq!(got, want.as_bytes(), "{text:?}[{start}:{stop}]");
                }
            }
        }
    }

    #[test]
    fn contiguous_slices_agree_with_general_slices() {
        for text in ["", "abc", &"aé日😀b".repeat(5)] {
            for start in -3..40 {
                for stop in -3..40 {
                    let want = sliced(text, Some(start), Some(stop), None);
                    let got = slice_contiguous(text.as_bytes(), Some(start), Some(stop));
                    assert_eq!(got, want.as_bytes(), "{text:?}[{start}:{stop}]");
                }
            }
        }
    }
}

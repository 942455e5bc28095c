//! Padding: `center`, `ljust`, `rjust`, `zfill` and `expandtabs`.
//!
//! Widths and tab columns count code points, as in Python. Results are appended to the
//! caller's buffer; a string already as wide as `width` is appended unchanged.

use memchr::{memchr, memrchr2};

use super::length::str_len;
use super::ArgumentError;
use crate::view::MAX_STRING_LEN;

/// Appends `count` copies of `fill`.
#[inline]
fn push_fill(out: &mut Vec<u8>, fill: char, count: usize) {
    if fill.is_ascii() {
        out.resize(out.len() + count, fill as u8);
    } else {
        let mut buf = [0u8; 4];
        let encoded = fill.encode_utf8(&mut buf).as_bytes();
        out.reserve(count * encoded.len());
        for _ in 0..count {
            out.extend_from_slice(encoded);
        }
    }
}

/// The fill character of `center`, `ljust` and `rjust`: the first code point of `fill`;
/// [`ArgumentError::FillCharacter`] when `fill` is empty or not UTF-8.
pub fn fill_char(fill: &[u8]) -> Result<char, ArgumentError> {
    std::str::from_utf8(fill)
        .ok()
        .and_then(|s| s.chars().next())
        .ok_or(ArgumentError::FillCharacter)
}

/// Number of fill characters that `width` asks for around `s`, 0 if none.
#[inline]
pub fn pad_margin(s: &[u8], width: isize) -> usize {
    if width <= 0 {
        return 0;
    }
    (width as usize).saturating_sub(str_len(s))
}

/// Where `center`, `ljust` and `rjust` put the string among its fill characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Justify {
    Center,
    Left,
    Right,
}

impl Justify {
    /// How many of the `margin` fill characters go before the string; the rest go after.
    /// Python's `center` puts the odd one first exactly when both the margin and `width`
    /// are odd (`"ab".center(5) == "  ab "`).
    #[inline]
    pub fn fill_before(self, margin: usize, width: isize) -> usize {
        match self {
            Justify::Left => 0,
            Justify::Right => margin,
            Justify::Center => margin / 2 + (margin & width as usize & 1),
        }
    }
}

/// Appends `s` with `margin` fill characters placed as `justify` says; `margin` is
/// `pad_margin(s, width)`, which callers that check the result's size have already counted.
///
/// Always inlined: where the compiler kept it a call, `ljust` and `rjust` cost 4 % more
/// instructions per element.
#[inline(always)]
pub fn justify(
    s: &[u8],
    justify: Justify,
    margin: usize,
    width: isize,
    fill: char,
    out: &mut Vec<u8>,
) {
    let before = justify.fill_before(margin, width);
    out.reserve(s.len() + margin * fill.len_utf8());
    push_fill(out, fill, before);
    out.extend_from_slice(s);
    push_fill(out, fill, margin - before);
}

/// `s.zfill(width)` (zeros on the left, after a leading `+` or `-` sign), where `margin`
/// is `pad_margin(s, width)`.
#[inline]
pub fn zfill_margin(s: &[u8], margin: usize, out: &mut Vec<u8>) {
    out.reserve(s.len() + margin);
    match s {
        [sign @ (b'+' | b'-'), rest @ ..] if margin > 0 => {
            out.push(*sign);
            push_fill(out, '0', margin);
            out.extend_from_slice(rest);
        }
        _ => {
            push_fill(out, '0', margin);
            out.extend_from_slice(s);
        }
    }
}

/// `s.expandtabs(tabsize)`: each tab becomes the spaces up to the next multiple of
/// `tabsize` columns; `\n` and `\r` reset the column; `tabsize <= 0` removes tabs.
pub fn expandtabs(s: &[u8], tabsize: isize, out: &mut Vec<u8>) {
    let Some(first_tab) = memchr(b'\t', s) else {
        out.extend_from_slice(s);
        return;
    };
    out.reserve(s.len() + 8);
    let tabsize = tabsize.max(0) as usize;
    let mut column = 0;
    let mut segment_start = 0;
    let mut tab = Some(first_tab);
    while let Some(tab_at) = tab {
        let segment = &s[segment_start..tab_at];
        column = column_after(column, segment);
        out.extend_from_slice(segment);
        if tabsize > 0 {
            let spaces = tabsize - column % tabsize;
            out.resize(out.len() + spaces, b' ');
            column += spaces;
        }
        segment_start = tab_at + 1;
        tab = memchr(b'\t', &s[segment_start..]).map(|i| i + segment_start);
    }
    out.extend_from_slice(&s[segment_start..]);
}

/// The byte length of `s.expandtabs(tabsize)`, for reserving the result's buffer; `None`
/// when the result is longer than the largest string.
#[inline]
pub fn expanded_len(s: &[u8], tabsize: isize) -> Option<usize> {
    let tabsize = usize::try_from(tabsize).unwrap_or(0);
    let (mut column, mut total) = (0usize, 0usize);
    for &byte in s {
        match byte {
            b'\t' if tabsize > 0 => {
                let spaces = tabsize - column % tabsize;
                column = column.checked_add(spaces)?;
                total = total.checked_add(spaces)?;
            }
            b'\t' => {}
            b'\n' | b'\r' => {
                column = 0;
                total += 1;
            }
            _ => {
                // Columns count code points: continuation bytes take no column.
                column += usize::from((byte as i8) >= -0x40);
                total += 1;
            }
        }
    }
    Some(total).filter(|&total| total <= MAX_STRING_LEN)
}

/// The column after `segment` (which has no tab) when it starts at `column`.
#[inline]
fn column_after(column: usize, segment: &[u8]) -> usize {
    match memrchr2(b'\n', b'\r', segment) {
        Some(newline) => str_len(&segment[newline + 1..]),
        None => column + str_len(segment),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Python's methods, from the margin-based kernels the padding loop calls.
    fn center(s: &[u8], width: isize, fill: char, out: &mut Vec<u8>) {
        justify(s, Justify::Center, pad_margin(s, width), width, fill, out);
    }

    fn ljust(s: &[u8], width: isize, fill: char, out: &mut Vec<u8>) {
        justify(s, Justify::Left, pad_margin(s, width), width, fill, out);
    }

    fn rjust(s: &[u8], width: isize, fill: char, out: &mut Vec<u8>) {
        justify(s, Justify::Right, pad_margin(s, width), width, fill, out);
    }

    fn zfill(s: &[u8], width: isize, out: &mut Vec<u8>) {
        zfill_margin(s, pad_margin(s, width), out);
    }

    fn run(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = b"<".to_vec();
        f(&mut out);
        assert_eq!(out[0], b'<', "kernels append to the buffer");
        String::from_utf8(out[1..].to_vec()).unwrap()
    }

    // (string, width, fill, center, ljust, rjust), from Python 3.11.
    const JUSTIFY: &[(&str, isize, char, &str, &str, &str)] = &[
        ("ab", 5, '*', "**ab*", "ab***", "***ab"),
        ("abc", 6, '*', "*abc**", "abc***", "***abc"),
        ("abc", 5, '*', "*abc*", "abc**", "**abc"),
        ("ab", 6, '*', "**ab**", "ab****", "****ab"),
        ("a", 4, '-', "-a--", "a---", "---a"),
        ("a", 3, '-', "-a-", "a--", "--a"),
        ("abc", 2, '*', "abc", "abc", "abc"),
        ("abc", -3, '*', "abc", "abc", "abc"),
        ("", 3, 'x', "xxx", "xxx", "xxx"),
        ("é", 4, 'ü', "üéüü", "éüüü", "üüüé"),
        ("日本", 5, '😀', "😀😀日本😀", "日本😀😀😀", "😀😀😀日本"),
        ("日本", 2, '*', "日本", "日本", "日本"),
    ];

    #[test]
    fn justify_matches_python() {
        for &(s, width, fill, c, l, r) in JUSTIFY {
            let s = s.as_bytes();
            assert_eq!(
                run(|o| center(s, width, fill, o)),
                c,
                "center {s:?} {width}"
            );
            assert_eq!(run(|o| ljust(s, width, fill, o)), l, "ljust {s:?} {width}");
            assert_eq!(run(|o| rjust(s, width, fill, o)), r, "rjust {s:?} {width}");
        }
    }

    // (string, width, zfill), from Python 3.11.
    const ZFILL: &[(&str, isize, &str)] = &[
        ("-42", 5, "-0042"),
        ("+x", 4, "+00x"),
        ("42", 5, "00042"),
        ("-", 3, "-00"),
        ("--1", 5, "-00-1"),
        ("a-1", 5, "00a-1"),
        ("", 3, "000"),
        ("-42", 2, "-42"),
        ("-42", 3, "-42"),
        ("é", 3, "00é"),
        ("-é", 3, "-0é"),
    ];

    #[test]
    fn zfill_matches_python() {
        for &(s, width, want) in ZFILL {
            assert_eq!(
                run(|o| zfill(s.as_bytes(), width, o)),
                want,
                "{s:?} {width}"
            );
        }
    }

    // (string, tabsize, expandtabs), from Python 3.11.
    const TABS: &[(&str, isize, &str)] = &[
        ("a\tb", 8, "a       b"),
        ("a\tb", 4, "a   b"),
        ("abcd\tb", 4, "abcd    b"),
        ("\t", 8, "        "),
        ("a\tb", 0, "ab"),
        ("a\tb", -1, "ab"),
        ("a\tb", 1, "a b"),
        ("ab\ncd\tef", 4, "ab\ncd  ef"),
        ("ab\rc\td\te", 3, "ab\rc  d  e"),
        ("é\tü\t", 4, "é   ü   "),
        ("日本\tx\n\ty", 3, "日本 x\n   y"),
        ("no tabs", 8, "no tabs"),
        ("", 8, ""),
    ];

    #[test]
    fn expandtabs_matches_python() {
        for &(s, tabsize, want) in TABS {
            assert_eq!(run(|o| expandtabs(s.as_bytes(), tabsize, o)), want, "{s:?}");
        }
    }

    /// The reference: Python's `expandtabs`, code point by code point.
    fn reference_expandtabs(s: &str, tabsize: isize) -> String {
        let mut out = String::new();
        let mut column = 0;
        for c in s.chars() {
            match c {
                '\t' if tabsize > 0 => {
                    let spaces = tabsize as usize - column % tabsize as usize;
                    out.extend(std::iter::repeat_n(' ', spaces));
                    column += spaces;
                }
                '\t' => {}
                '\n' | '\r' => {
                    out.push(c);
                    column = 0;
                }
                _ => {
                    out.push(c);
                    column += 1;
                }
            }
        }
        out
    }

    #[test]
    fn expanded_len_is_the_length_of_expandtabs() {
        let texts = [
            "",
            "\t",
            "\t\t",
            "a\tbc\tdef\t",
            "日本\t😀\n\té\r\t",
            "no tabs",
        ];
        let texts = TABS.iter().map(|&(s, _, _)| s).chain(texts);
        for s in texts {
            for tabsize in [isize::MIN, -8, -1, 0, 1, 3, 8, 1000] {
                let want = reference_expandtabs(s, tabsize);
                assert_eq!(run(|o| expandtabs(s.as_bytes(), tabsize, o)), want, "{s:?}");
                let got = expanded_len(s.as_bytes(), tabsize);
                assert_eq!(got, Some(want.len()), "{s:?} {tabsize}");
            }
        }
    }

    #[test]
    fn expanded_len_refuses_results_over_the_largest_string() {
        let max = MAX_STRING_LEN as isize;
        assert_eq!(expanded_len(b"\t", max), Some(MAX_STRING_LEN));
        assert_eq!(expanded_len(b"a\t", max), Some(MAX_STRING_LEN));
        assert_eq!(expanded_len(b"a\t", max + 1), None);
        assert_eq!(expanded_len(b"\t\t", max), None);
        // Columns that overflow `usize` (the third tab's).
        assert_eq!(expanded_len(b"\t\t\t", isize::MAX), None);
        assert_eq!(expanded_len(b"\t\t\t", 0), Some(0));
    }

    #[test]
    fn fill_char_is_the_first_code_point() {
        for (fill, want) in [
            ("a", 'a'),
            ("ab", 'a'),
            ("é", 'é'),
            ("😀x", '😀'),
            ("\0", '\0'),
        ] {
            assert_eq!(fill_char(fill.as_bytes()), Ok(want), "{fill:?}");
        }
        for fill in [&b""[..], b"\xff", b"\xe6\x97", b"a\xff"] {
            assert_eq!(
                fill_char(fill),
                Err(ArgumentError::FillCharacter),
                "{fill:?}"
            );
        }
        assert_eq!(
            ArgumentError::FillCharacter.to_string(),
            "The fill character must be exactly one character long"
        );
    }
}

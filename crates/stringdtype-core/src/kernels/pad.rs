//! Padding: `center`, `ljust`, `rjust`, `zfill` and `expandtabs`.
//!
//! Widths and tab columns count code points, as in Python. Results are appended to the
//! caller's buffer; a string already as wide as `width` is appended unchanged.

use memchr::{memchr, memrchr2};

use super::length::str_len;

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
#[inline]
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
}

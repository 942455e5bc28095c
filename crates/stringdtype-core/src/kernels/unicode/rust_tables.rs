//! [`RustTables`]: the kernels' Unicode data for their unit tests, from Rust's `char`
//! methods and a few small tables. The extension never uses it: it compiles in tables
//! generated from the Python it is built for (`src/unicode.rs` of the root crate).

use super::{CaseMapping, UnicodeTables};

/// [`UnicodeTables`] from Rust's `char` methods and a few small tables from Unicode 14.0
/// (the version of Python 3.11).
///
/// Exact: `is_decimal`, `is_digit`, `is_space`, `is_title` (tables taken from Python 3.11).
/// Exact up to Rust's newer Unicode version: `is_lower`, `is_upper`, `is_cased`, `to_lower`,
/// `to_upper`. Approximate: `is_alpha` (Rust's Alphabetic property also holds for some
/// marks and letter numbers), `is_numeric` (misses CJK numerals such as '一'),
/// `is_case_ignorable` (ASCII, Latin-1 and combining marks only), `to_title` (upper case
/// with the rest lowered, plus the Lt letters) and `to_fold` (lower of upper, which
/// agrees with full case folding except for a few scripts such as Cherokee).
#[derive(Clone, Copy, Debug, Default)]
pub struct RustTables;

/// First code point ('0') of each run of ten decimal digits (category Nd), Unicode 14.0.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// Ranges of code points that are digits but not decimals (such as '²'), Unicode 14.0.
const NON_DECIMAL_DIGITS: [(u32, u32); 20] = [
    (0xB2, 0xB3),
    (0xB9, 0xB9),
    (0x1369, 0x1371),
    (0x19DA, 0x19DA),
    (0x2070, 0x2070),
    (0x2074, 0x2079),
    (0x2080, 0x2089),
    (0x2460, 0x2468),
    (0x2474, 0x247C),
    (0x2488, 0x2490),
    (0x24EA, 0x24EA),
    (0x24F5, 0x24FD),
    (0x24FF, 0x24FF),
    (0x2776, 0x277E),
    (0x2780, 0x2788),
    (0x278A, 0x2792),
    (0x10A40, 0x10A43),
    (0x10E60, 0x10E68),
    (0x11052, 0x1105A),
    (0x1F100, 0x1F10A),
];

/// The titlecase letters (category Lt), Unicode 14.0.
const TITLECASE: [u32; 31] = [
    0x1C5, 0x1C8, 0x1CB, 0x1F2, 0x1F88, 0x1F89, 0x1F8A, 0x1F8B, 0x1F8C, 0x1F8D, 0x1F8E, 0x1F8F,
    0x1F98, 0x1F99, 0x1F9A, 0x1F9B, 0x1F9C, 0x1F9D, 0x1F9E, 0x1F9F, 0x1FA8, 0x1FA9, 0x1FAA, 0x1FAB,
    0x1FAC, 0x1FAD, 0x1FAE, 0x1FAF, 0x1FBC, 0x1FCC, 0x1FFC,
];

/// Whether `c` is whitespace for Python: Unicode White_Space plus U+001C..U+001F.
#[inline]
fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

fn mapping_from_iter(chars: impl Iterator<Item = char>) -> CaseMapping {
    let mut buf = ['\0'; 3];
    let mut len = 0;
    for c in chars.take(3) {
        buf[len] = c;
        len += 1;
    }
    CaseMapping::from_chars(&buf[..len]).expect("a case mapping has one to three chars")
}

impl UnicodeTables for RustTables {
    fn is_alpha(&self, c: char) -> bool {
        c.is_alphabetic() && !c.is_numeric()
    }
    fn is_decimal(&self, c: char) -> bool {
        let cp = c as u32;
        let i = DECIMAL_ZEROS.partition_point(|&zero| zero <= cp);
        i > 0 && cp - DECIMAL_ZEROS[i - 1] < 10
    }
    fn is_digit(&self, c: char) -> bool {
        let cp = c as u32;
        self.is_decimal(c)
            || NON_DECIMAL_DIGITS
                .iter()
                .any(|&(a, b)| (a..=b).contains(&cp))
    }
    fn is_numeric(&self, c: char) -> bool {
        c.is_numeric()
    }
    fn is_space(&self, c: char) -> bool {
        is_python_space(c)
    }
    fn is_lower(&self, c: char) -> bool {
        c.is_lowercase()
    }
    fn is_upper(&self, c: char) -> bool {
        c.is_uppercase()
    }
    fn is_title(&self, c: char) -> bool {
        TITLECASE.binary_search(&(c as u32)).is_ok()
    }
    fn is_cased(&self, c: char) -> bool {
        c.is_lowercase() || c.is_uppercase() || self.is_title(c)
    }
    fn is_case_ignorable(&self, c: char) -> bool {
        matches!(
            c,
            '\'' | '.'
                | ':'
                | '^'
                | '`'
                | '\u{a8}'
                | '\u{ad}'
                | '\u{af}'
                | '\u{b4}'
                | '\u{b7}'
                | '\u{b8}'
                | '\u{2b0}'..='\u{36f}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{2024}'
                | '\u{2027}'
                | '\u{200b}'..='\u{200f}'
        )
    }
    fn to_lower(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_lowercase())
    }
    fn to_upper(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_uppercase())
    }
    fn to_title(&self, c: char) -> CaseMapping {
        if self.is_title(c) {
            return CaseMapping::one(c);
        }
        // The Lt letters are the title case of their lower and upper forms (ǆ, Ǆ -> ǅ).
        let lower = c.to_lowercase();
        if lower.len() == 1 {
            let lower = self.to_lower(c).as_slice()[0];
            let title = TITLECASE
                .iter()
                .filter_map(|&t| char::from_u32(t))
                .find(|&t| t.to_lowercase().eq(std::iter::once(lower)) && t != lower);
            if let Some(title) = title {
                return CaseMapping::one(title);
            }
        }
        let mut upper = c.to_uppercase();
        let first = upper.next().unwrap_or(c);
        mapping_from_iter(std::iter::once(first).chain(upper.flat_map(char::to_lowercase)))
    }
    fn to_fold(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_uppercase().flat_map(char::to_lowercase))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_tables_agree_with_python_on_samples() {
        let t = RustTables;
        // (char, isalpha, isdecimal, isdigit, isnumeric, isspace, islower, isupper, istitle)
        // checked with Python 3.11.
        let table = [
            ('a', true, false, false, false, false, true, false, false),
            ('É', true, false, false, false, false, false, true, false),
            ('ß', true, false, false, false, false, true, false, false),
            ('ǅ', true, false, false, false, false, false, false, true),
            ('٣', false, true, true, true, false, false, false, false),
            ('²', false, false, true, true, false, false, false, false),
            ('½', false, false, false, true, false, false, false, false),
            (
                '\u{3000}', false, false, false, false, true, false, false, false,
            ),
            (
                '\u{1f}', false, false, false, false, true, false, false, false,
            ),
            ('中', true, false, false, false, false, false, false, false),
            ('😀', false, false, false, false, false, false, false, false),
        ];
        for (c, alpha, decimal, digit, numeric, space, lower, upper, title) in table {
            let got = (
                t.is_alpha(c),
                t.is_decimal(c),
                t.is_digit(c),
                t.is_numeric(c),
                t.is_space(c),
                t.is_lower(c),
                t.is_upper(c),
                t.is_title(c),
            );
            let want = (alpha, decimal, digit, numeric, space, lower, upper, title);
            assert_eq!(got, want, "{c:?}");
        }
    }

    #[test]
    fn rust_tables_case_mappings() {
        let t = RustTables;
        let s = |m: CaseMapping| m.as_slice().iter().collect::<String>();
        // (char, lower, upper, title, fold), checked with Python 3.11.
        let table = [
            ('ß', "ß", "SS", "Ss", "ss"),
            ('İ', "i̇", "İ", "İ", "i̇"),
            ('ǆ', "ǆ", "Ǆ", "ǅ", "ǆ"),
            ('Ǆ', "ǆ", "Ǆ", "ǅ", "ǆ"),
            ('ﬁ', "ﬁ", "FI", "Fi", "fi"),
            ('Σ', "σ", "Σ", "Σ", "σ"),
            ('ς', "ς", "Σ", "Σ", "σ"),
            ('ᾳ', "ᾳ", "ΑΙ", "ᾼ", "αι"),
        ];
        for (c, lower, upper, title, fold) in table {
            let got = (
                s(t.to_lower(c)),
                s(t.to_upper(c)),
                s(t.to_title(c)),
                s(t.to_fold(c)),
            );
            assert_eq!(got, (lower.into(), upper.into(), title.into(), fold.into()));
        }
    }

    #[test]
    fn rust_mappings_fit_three_chars() {
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            assert!(c.to_uppercase().flat_map(char::to_lowercase).count() <= 3);
            assert!(c.to_uppercase().count() <= 3 && c.to_lowercase().count() <= 3);
        }
    }
}

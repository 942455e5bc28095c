//! Predicates: `isalpha`, `isdigit`, `isdecimal`, `isnumeric`, `isalnum`, `isspace`,
//! `islower`, `isupper` and `istitle`, with Python's semantics (all false for "").
//!
//! ASCII bytes are classified by a table (Python's ASCII rules are fixed); other code points
//! are decoded and asked of the [`UnicodeTables`].
//!
//! The predicates are `#[inline]`: each ufunc loop calls one per element, and left to
//! ThinLTO's heuristics, whether they were inlined changed with unrelated code elsewhere
//! (`istitle` of the benchmark's medium strings: 87 or 103 instructions per element).

use super::unicode::{decode_at, UnicodeTables};
use crate::swar::{self, in_range, LANES, TOPS};
use crate::view::View;

const ALPHA: u8 = 1;
const DIGIT: u8 = 2;
const SPACE: u8 = 4;
const LOWER: u8 = 8;
const UPPER: u8 = 16;

/// Character classes of the ASCII bytes, as Python's `str` methods see them.
static ASCII_CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        table[b] = match byte {
            b'a'..=b'z' => ALPHA | LOWER,
            b'A'..=b'Z' => ALPHA | UPPER,
            b'0'..=b'9' => DIGIT,
            b'\t'..=b'\r' | 0x1c..=b' ' => SPACE,
            _ => 0,
        };
        b += 1;
    }
    table
};

/// The class bits of an ASCII byte.
#[inline]
fn class(byte: u8) -> u8 {
    ASCII_CLASS[usize::from(byte & 0x7f)]
}

/// Whether `s` is not empty and every code point is in `ascii` classes (for ASCII bytes)
/// or satisfies `other` (for the rest).
#[inline]
fn all_chars(s: &[u8], ascii: u8, other: impl Fn(char) -> bool) -> bool {
    if s.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < s.len() {
        let byte = s[i];
        if byte < 0x80 {
            if class(byte) & ascii == 0 {
                return false;
            }
            i += 1;
        } else {
            let (c, width) = decode_at(s, i);
            if !other(c) {
                return false;
            }
            i += width;
        }
    }
    true
}

/// The predicates that [`from_view`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predicate {
    Alpha,
    /// `isdigit`, `isdecimal` and `isnumeric`, which agree on ASCII.
    Digit,
    Alnum,
    Space,
    Lower,
    Upper,
    Title,
}

/// `predicate` decided from the 16 bytes of a view alone, without reading an arena:
/// - an inline, all-ASCII string, for all its bytes at once (no branch per byte);
/// - a long string whose 4-byte prefix holds an ASCII character that rules the
///   predicate out (false: a digit for `isalpha`, an uppercase letter for `islower`, a
///   lowercase letter at the start for `istitle`, ...).
///   An ASCII byte is always a whole character in UTF-8, whatever the bytes around it.
///
/// `None` when the view does not decide it (a missing value, a non-ASCII inline string,
/// a long string whose prefix does not rule the predicate out).
///
/// Always inlined: called out of line, the view goes through memory and the loop
/// stalls on reading it back (`isdigit` of the short set took twice as long).
#[inline(always)]
pub fn from_view(view: View, predicate: Predicate) -> Option<bool> {
    if view.is_na() {
        return None;
    }
    if !view.is_inline() {
        return prefix_rules_out(view, predicate).then_some(false);
    }
    let data = view.inline_ascii_lanes()?;
    let len = view.len();
    // The top bits of the string's lanes.
    let used = swar::used(len);
    let classes = Classes::of(data);
    let all = |bits: u128| len > 0 && bits & used == used;
    Some(match predicate {
        Predicate::Alpha => all(classes.letters),
        Predicate::Digit => all(classes.digits),
        Predicate::Alnum => all(classes.letters | classes.digits),
        Predicate::Space => all(classes.spaces),
        Predicate::Lower | Predicate::Upper => {
            let (wanted, other) = match predicate {
                Predicate::Lower => (classes.lower, classes.upper),
                _ => (classes.upper, classes.lower),
            };
            wanted & used != 0 && other & used == 0
        }
        Predicate::Title => {
            let cased = classes.lower | classes.upper;
            // An empty string has no cased lane; the lanes past it are zero (uncased).
            cased != 0 && title_breaks(&classes, cased << 8, used) == 0
        }
    })
}

/// The lanes of `considered` that break `istitle`: an uppercase letter after a cased
/// character, a lowercase one after an uncased character (or at the start). `after_cased`
/// is the top bit of each lane whose previous character is cased.
#[inline]
fn title_breaks(classes: &Classes, after_cased: u128, considered: u128) -> u128 {
    (classes.upper & after_cased | classes.lower & !after_cased) & considered
}

/// Whether an ASCII character of a long string's prefix makes `predicate` false.
#[inline]
fn prefix_rules_out(view: View, predicate: Predicate) -> bool {
    let prefix = u128::from(u32::from_le_bytes(view.prefix()));
    // The lanes of ASCII bytes; the others are zeroed, so that no lane carries.
    let wide = prefix & TOPS;
    let ascii = TOPS & swar::low_bytes(4) & !wide;
    let classes = Classes::of(prefix & !((wide >> 7) * 0xff));
    let rejected = match predicate {
        Predicate::Alpha => !classes.letters,
        Predicate::Digit => !classes.digits,
        Predicate::Alnum => !(classes.letters | classes.digits),
        Predicate::Space => !classes.spaces,
        Predicate::Lower => classes.upper,
        Predicate::Upper => classes.lower,
        // Only where the previous byte is ASCII too (or the lane is the first): a
        // character before it that is not ASCII may be cased or not.
        Predicate::Title => {
            let after_ascii = ascii << 8 | 0x80;
            let after_cased = (classes.lower | classes.upper) & ascii;
            title_breaks(&classes, after_cased << 8, after_ascii)
        }
    };
    rejected & ascii != 0
}

/// The top bit of each lane (of bytes below 0x80) in each ASCII class.
struct Classes {
    letters: u128,
    digits: u128,
    spaces: u128,
    lower: u128,
    upper: u128,
}

impl Classes {
    #[inline]
    fn of(data: u128) -> Classes {
        Classes {
            letters: in_range(data | (LANES * 0x20), b'a', b'z'),
            digits: in_range(data, b'0', b'9'),
            spaces: in_range(data, b'\t', b'\r') | in_range(data, 0x1c, b' '),
            lower: in_range(data, b'a', b'z'),
            upper: in_range(data, b'A', b'Z'),
        }
    }
}

/// `s.isalpha()`.
#[inline]
pub fn isalpha<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, ALPHA, |c| tables.is_alpha(c))
}

/// `s.isdecimal()`.
#[inline]
pub fn isdecimal<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, DIGIT, |c| tables.is_decimal(c))
}

/// `s.isdigit()`.
#[inline]
pub fn isdigit<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, DIGIT, |c| tables.is_digit(c))
}

/// `s.isnumeric()`.
#[inline]
pub fn isnumeric<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, DIGIT, |c| tables.is_numeric(c))
}

/// `s.isalnum()`: every code point is alphabetic, decimal, digit or numeric.
#[inline]
pub fn isalnum<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, ALPHA | DIGIT, |c| {
        tables.is_alpha(c) || tables.is_decimal(c) || tables.is_digit(c) || tables.is_numeric(c)
    })
}

/// `s.isspace()`.
#[inline]
pub fn isspace<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    all_chars(s, SPACE, |c| tables.is_space(c))
}

/// Case of one code point, as the case predicates need it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    Upper,
    Title,
    Lower,
    Uncased,
}

/// The [`Case`] of each code point of `s`, in order. Checks follow CPython's order: a code
/// point that were both upper and lower would count as upper.
#[inline]
fn cases<'a, U: UnicodeTables + ?Sized>(
    s: &'a [u8],
    tables: &'a U,
) -> impl Iterator<Item = Case> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        let byte = *s.get(i)?;
        if byte < 0x80 {
            i += 1;
            let bits = class(byte);
            return Some(if bits & UPPER != 0 {
                Case::Upper
            } else if bits & LOWER != 0 {
                Case::Lower
            } else {
                Case::Uncased
            });
        }
        let (c, width) = decode_at(s, i);
        i += width;
        Some(if tables.is_upper(c) {
            Case::Upper
        } else if tables.is_title(c) {
            Case::Title
        } else if tables.is_lower(c) {
            Case::Lower
        } else {
            Case::Uncased
        })
    })
}

/// `s.islower()`: no uppercase or titlecase code point and at least one lowercase.
#[inline]
pub fn islower<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    has_only_case(s, tables, Case::Lower, Case::Upper)
}

/// `s.isupper()`: no lowercase or titlecase code point and at least one uppercase.
#[inline]
pub fn isupper<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    has_only_case(s, tables, Case::Upper, Case::Lower)
}

/// Whether `s` has a code point of case `wanted` and none of case `opposite` or titlecase.
#[inline]
fn has_only_case<U: UnicodeTables + ?Sized>(
    s: &[u8],
    tables: &U,
    wanted: Case,
    opposite: Case,
) -> bool {
    let mut cased = false;
    for case in cases(s, tables) {
        if case == opposite || case == Case::Title {
            return false;
        }
        cased |= case == wanted;
    }
    cased
}

/// `s.istitle()`: uppercase and titlecase code points only follow uncased ones, lowercase
/// code points only follow cased ones, and there is at least one cased code point.
#[inline]
pub fn istitle<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U) -> bool {
    let mut cased = false;
    let mut previous_is_cased = false;
    for case in cases(s, tables) {
        match case {
            Case::Upper | Case::Title if previous_is_cased => return false,
            Case::Lower if !previous_is_cased => return false,
            Case::Uncased => previous_is_cased = false,
            _ => {
                previous_is_cased = true;
                cased = true;
            }
        }
    }
    cased
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::unicode::RustTables;

    // (string, [isalpha, isdecimal, isdigit, isnumeric, isalnum, isspace, islower,
    // isupper, istitle]), generated with Python 3.11.
    #[rustfmt::skip]
    const CASES: &[(&str, [bool; 9])] = &[
        ("", [false, false, false, false, false, false, false, false, false]),
        ("a", [true, false, false, false, true, false, true, false, false]),
        ("A", [true, false, false, false, true, false, false, true, true]),
        ("abc", [true, false, false, false, true, false, true, false, false]),
        ("ABC", [true, false, false, false, true, false, false, true, false]),
        ("Abc", [true, false, false, false, true, false, false, false, true]),
        ("aBc", [true, false, false, false, true, false, false, false, false]),
        ("Abc Def", [false, false, false, false, false, false, false, false, true]),
        ("Abc def", [false, false, false, false, false, false, false, false, false]),
        ("ABC def", [false, false, false, false, false, false, false, false, false]),
        ("123", [false, true, true, true, true, false, false, false, false]),
        ("1a", [false, false, false, false, true, false, true, false, false]),
        ("a1", [false, false, false, false, true, false, true, false, false]),
        (" ", [false, false, false, false, false, true, false, false, false]),
        (" \u{9}\u{a}", [false, false, false, false, false, true, false, false, false]),
        ("\u{1c}\u{1f}", [false, false, false, false, false, true, false, false, false]),
        ("a b", [false, false, false, false, false, false, true, false, false]),
        ("é", [true, false, false, false, true, false, true, false, false]),
        ("É", [true, false, false, false, true, false, false, true, true]),
        ("Éa", [true, false, false, false, true, false, false, false, true]),
        ("ß", [true, false, false, false, true, false, true, false, false]),
        ("ǅ", [true, false, false, false, true, false, false, false, true]),
        ("ǅa", [true, false, false, false, true, false, false, false, true]),
        ("Σίσυφος", [true, false, false, false, true, false, false, false, true]),
        ("ΣΊΣΥΦΟΣ", [true, false, false, false, true, false, false, true, false]),
        ("日本", [true, false, false, false, true, false, false, false, false]),
        ("日本a", [true, false, false, false, true, false, true, false, false]),
        ("A日本", [true, false, false, false, true, false, false, true, true]),
        ("٣", [false, true, true, true, true, false, false, false, false]),
        ("²", [false, false, true, true, true, false, false, false, false]),
        ("½", [false, false, false, true, true, false, false, false, false]),
        ("\u{3000}", [false, false, false, false, false, true, false, false, false]),
        ("\u{a0} ", [false, false, false, false, false, true, false, false, false]),
        ("😀", [false, false, false, false, false, false, false, false, false]),
        ("x😀", [false, false, false, false, false, false, true, false, false]),
        ("Hello, World!", [false, false, false, false, false, false, false, false, true]),
        ("Hello, world!", [false, false, false, false, false, false, false, false, false]),
        ("HELLO 123", [false, false, false, false, false, false, false, true, false]),
        ("hello 123", [false, false, false, false, false, false, true, false, false]),
        ("12abc", [false, false, false, false, true, false, true, false, false]),
        ("_", [false, false, false, false, false, false, false, false, false]),
        ("a_B", [false, false, false, false, false, false, false, false, false]),
        ("Ab1Cd", [false, false, false, false, true, false, false, false, true]),
        ("They're", [false, false, false, false, false, false, false, false, false]),
        ("They'Re", [false, false, false, false, false, false, false, false, true]),
        ("\u{0}", [false, false, false, false, false, false, false, false, false]),
        ("abc\u{0}", [false, false, false, false, false, false, true, false, false]),
    ];

    #[test]
    fn predicates_match_python() {
        let t = &RustTables;
        for &(s, want) in CASES {
            let b = s.as_bytes();
            let got = [
                isalpha(b, t),
                isdecimal(b, t),
                isdigit(b, t),
                isnumeric(b, t),
                isalnum(b, t),
                isspace(b, t),
                islower(b, t),
                isupper(b, t),
                istitle(b, t),
            ];
            assert_eq!(got, want, "{s:?}");
        }
    }

    type Slow = fn(&[u8], &RustTables) -> bool;

    /// Each predicate that [`from_view`] decides, with the kernels it stands for.
    const FROM_VIEW: [(Predicate, Slow); 9] = [
        (Predicate::Alpha, isalpha),
        (Predicate::Digit, isdigit),
        (Predicate::Digit, isdecimal),
        (Predicate::Digit, isnumeric),
        (Predicate::Alnum, isalnum),
        (Predicate::Space, isspace),
        (Predicate::Lower, islower),
        (Predicate::Upper, isupper),
        (Predicate::Title, istitle),
    ];

    #[test]
    fn from_view_agrees_with_the_byte_loop() {
        let samples = [
            "",
            "a",
            "Z",
            "abc",
            "ABC",
            "aBc",
            "a1",
            "123",
            " \t\n",
            "\x1c\x1f",
            "a b",
            "exactly12byt",
            "EXACTLY12BYT",
            "0123456789ab",
            "\0",
            "a\0",
            "@[`{",
            "/:",
            "\x7f",
        ];
        // And every string of up to four of these characters, alone and before a tail.
        let chars = ["a", "Z", "5", " ", "_"];
        let mut texts: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
        for n in 0..=4 {
            for code in 0..chars.len().pow(n) {
                let head: String = (0..n)
                    .map(|k| chars[code / chars.len().pow(k) % chars.len()])
                    .collect();
                texts.extend(["", "Ab Cd", "aBcD e", "A1b"].map(|tail| head.clone() + tail));
            }
        }
        for text in &texts {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for (predicate, slow) in FROM_VIEW {
                let want = slow(text.as_bytes(), &RustTables);
                assert_eq!(
                    from_view(view, predicate),
                    Some(want),
                    "{text:?} {predicate:?}"
                );
            }
        }
        let wide = View::try_inline("é".as_bytes()).expect("inline");
        assert_eq!(from_view(wide, Predicate::Alpha), None);
        assert_eq!(from_view(View::NA, Predicate::Alpha), None);
    }

    #[test]
    fn from_view_of_long_strings_agrees_with_the_byte_loop() {
        // Every string of four of these characters (cut anywhere by the 4-byte prefix)
        // and a tail that makes it long; the prefix decides some, the rest are `None`.
        let chars = [
            "a", "Z", "5", " ", "\t", "\0", "_", "\x1c", "\x7f", "é", "日", "😀", "٣",
        ];
        let tails = [
            "bcdefghijklm",
            "BCDEFGHIJKLM",
            "123456789012",
            "            ",
            "xY1 é_xY1 é_",
        ];
        let location = crate::view::Location {
            chunk: 1,
            offset: 0,
        };
        let mut decided = 0;
        for code in 0..chars.len().pow(4) {
            let head: String = (0..4)
                .map(|k| chars[code / chars.len().pow(k) % chars.len()])
                .collect();
            for tail in tails {
                let text = head.clone() + tail;
                let bytes = text.as_bytes();
                let prefix = [bytes[0], bytes[1], bytes[2], bytes[3]];
                let view = View::long(bytes.len(), prefix, location).expect("long");
                for (predicate, slow) in FROM_VIEW {
                    if let Some(got) = from_view(view, predicate) {
                        assert_eq!(got, slow(bytes, &RustTables), "{text:?} {predicate:?}");
                        decided += 1;
                    }
                }
            }
        }
        assert!(decided > 100_000, "the prefix decided only {decided} cases");
    }
}

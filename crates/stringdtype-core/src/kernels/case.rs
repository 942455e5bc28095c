//! Case conversion: `upper`, `lower`, `swapcase`, `capitalize`, `title` and `casefold`,
//! appended to the caller's buffer with Python's results.
//!
//! Mappings are full (one code point may become up to three: 'ß'.upper() == 'SS'). The
//! final sigma rule of `lower` (and of the lowering inside `swapcase`, `capitalize` and
//! `title`) is applied here, as CPython's `handle_capital_sigma` does, because it depends
//! on the neighbouring code points, not on the tables. A string that is all ASCII is
//! converted byte by byte, without decoding.

use super::unicode::{decode_at, push_char, CharIndices, UnicodeTables};
use crate::swar;
use crate::view::View;

const CAPITAL_SIGMA: char = '\u{3a3}';
const SMALL_SIGMA: char = '\u{3c3}';
const FINAL_SIGMA: char = '\u{3c2}';

/// The case conversions that [`inline_ascii_case`] does from a view alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiCase {
    Upper,
    Lower,
    Swap,
    Capitalize,
}

/// `upper`, `lower`, `swapcase` or `capitalize` of an inline, all-ASCII string, computed
/// on its view (every byte at once: a letter's case is bit 5); `None` for a long or
/// missing string or one with a non-ASCII byte.
#[inline]
pub fn inline_ascii_case(view: View, case: AsciiCase) -> Option<View> {
    let data = view.inline_ascii_lanes()?;
    // The top bit of a lane, shifted down twice, is its case bit (0x20).
    let lower = swar::in_range(data, b'a', b'z') >> 2;
    let upper = swar::in_range(data, b'A', b'Z') >> 2;
    let flip = match case {
        AsciiCase::Upper => lower,
        AsciiCase::Lower => upper,
        AsciiCase::Swap => lower | upper,
        // The first letter up, the others down.
        AsciiCase::Capitalize => (lower & 0xff) | (upper & !0xff),
    };
    Some(View::from_u128(view.as_u128() ^ (flip << 32)))
}

/// Calls `map` with the byte offset and value of each code point of `s`.
#[inline]
fn for_each_char(s: &[u8], mut map: impl FnMut(usize, char)) {
    let mut i = 0;
    while i < s.len() {
        let (c, width) = decode_at(s, i);
        map(i, c);
        i += width;
    }
}

/// Which ASCII letters a conversion flips the case bit (0x20) of: per byte, and in the
/// 16 lanes of a `u128` (for a tail shorter than 16 bytes).
trait Flips {
    fn byte(b: u8) -> u8;
    fn lanes(x: u128) -> u128;
}

/// The 26 letters from `FIRST` on: [`Up`] flips the lower case ones, [`Down`] the upper.
struct Letters<const FIRST: u8>;
type Up = Letters<b'a'>;
type Down = Letters<b'A'>;

impl<const FIRST: u8> Flips for Letters<FIRST> {
    #[inline(always)]
    fn byte(b: u8) -> u8 {
        u8::from(b.wrapping_sub(FIRST) < 26) << 5
    }
    #[inline(always)]
    fn lanes(x: u128) -> u128 {
        // The top bit of a lane, shifted down twice, is its case bit.
        swar::in_range(x, FIRST, FIRST + 25) >> 2
    }
}

/// Writes `src` (ASCII bytes only) to `dst` (as long) with the case bits `F` selects
/// flipped: 16 bytes at a time (a loop the compiler vectorises), the tail in the lanes of
/// one integer. A per-byte map through `extend` took about five instructions a byte on
/// strings of tens of bytes.
#[inline(always)]
fn map_ascii<F: Flips>(src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let mut to = dst.chunks_exact_mut(16);
    let mut from = src.chunks_exact(16);
    for (to, from) in (&mut to).zip(&mut from) {
        for (to, &from) in to.iter_mut().zip(from) {
            *to = from ^ F::byte(from);
        }
    }
    let (to, from) = (to.into_remainder(), from.remainder());
    if !to.is_empty() {
        // Zero lanes above the tail are no letters: nothing flips there.
        let x = swar::load(from);
        let len = to.len();
        to.copy_from_slice(&(x ^ F::lanes(x)).to_le_bytes()[..len]);
    }
}

/// Appends `s` (ASCII bytes only) converted by `map`, which writes as many bytes.
#[inline(always)]
fn extend_mapped(s: &[u8], out: &mut Vec<u8>, map: impl FnOnce(&[u8], &mut [u8])) {
    let start = out.len();
    out.resize(start + s.len(), 0);
    map(s, &mut out[start..]);
}

/// Appends `ascii` (ASCII bytes only) with the case bits `F` selects flipped.
#[inline(always)]
fn extend_ascii<F: Flips>(ascii: &[u8], out: &mut Vec<u8>) {
    extend_mapped(ascii, out, map_ascii::<F>);
}

/// `s.upper()` of an all-ASCII `s`, written to `dst` (as long as `s`, the result's
/// length): the kernel a loop runs straight into the result's block.
#[inline]
pub fn upper_ascii(s: &[u8], dst: &mut [u8]) {
    map_ascii::<Up>(s, dst);
}

/// `s.lower()` (and `s.casefold()`) of an all-ASCII `s`, written to `dst` (as long).
#[inline]
pub fn lower_ascii(s: &[u8], dst: &mut [u8]) {
    map_ascii::<Down>(s, dst);
}

/// `s.swapcase()` of an all-ASCII `s`, written to `dst` (as long).
#[inline]
pub fn swapcase_ascii(s: &[u8], dst: &mut [u8]) {
    // A flat map, which the compiler vectorises here; the 16-byte steps of `map_ascii`
    // it does not for this test of both cases (1.6x the instructions on the
    // benchmark's long strings).
    for (to, &b) in dst.iter_mut().zip(s) {
        *to = match b {
            b'a'..=b'z' | b'A'..=b'Z' => b ^ 0x20,
            _ => b,
        };
    }
}

/// `s.capitalize()` of an all-ASCII `s`, written to `dst` (as long).
#[inline]
pub fn capitalize_ascii(s: &[u8], dst: &mut [u8]) {
    if let (Some((&first, rest)), Some((to, dst))) = (s.split_first(), dst.split_first_mut()) {
        *to = first.to_ascii_uppercase();
        map_ascii::<Down>(rest, dst);
    }
}

/// `s.title()` of an all-ASCII `s`, written to `dst` (as long).
#[inline]
pub fn title_ascii(s: &[u8], dst: &mut [u8]) {
    let mut previous_is_cased = false;
    for (to, &b) in dst.iter_mut().zip(s) {
        *to = if previous_is_cased {
            b.to_ascii_lowercase()
        } else {
            b.to_ascii_uppercase()
        };
        previous_is_cased = b.is_ascii_alphabetic();
    }
}

/// Converts the runs of ASCII bytes of `s` with `F` ([`extend_ascii`]) and hands each
/// other code point, with its byte offset, to `other`.
#[inline]
fn for_each_run<F: Flips>(
    s: &[u8],
    out: &mut Vec<u8>,
    mut other: impl FnMut(usize, char, &mut Vec<u8>),
) {
    let mut i = 0;
    while i < s.len() {
        let run = s[i..]
            .iter()
            .position(|b| !b.is_ascii())
            .unwrap_or(s.len() - i);
        extend_ascii::<F>(&s[i..i + run], out);
        i += run;
        if i < s.len() {
            let (c, width) = decode_at(s, i);
            other(i, c, out);
            i += width;
        }
    }
}

/// Whether the capital sigma at byte `at` of `s` ends a word (CPython's
/// `handle_capital_sigma`): a cased code point precedes it and none follows it, skipping
/// case-ignorable code points both ways.
fn is_final_sigma<U: UnicodeTables + ?Sized>(s: &[u8], at: usize, tables: &U) -> bool {
    let is_significant = |&(_, c): &(usize, char)| !tables.is_case_ignorable(c);
    let before = CharIndices::new(&s[..at]).rev().find(is_significant);
    if !before.is_some_and(|(_, c)| tables.is_cased(c)) {
        return false;
    }
    let after_sigma = at + CAPITAL_SIGMA.len_utf8();
    let after = CharIndices::new(&s[after_sigma..]).find(is_significant);
    !after.is_some_and(|(_, c)| tables.is_cased(c))
}

/// Appends the lower case of `c` (at byte `at` of `s`), with the final sigma rule.
#[inline]
fn push_lower<U: UnicodeTables + ?Sized>(
    s: &[u8],
    at: usize,
    c: char,
    tables: &U,
    out: &mut Vec<u8>,
) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase() as u8);
    } else if c == CAPITAL_SIGMA {
        let sigma = if is_final_sigma(s, at, tables) {
            FINAL_SIGMA
        } else {
            SMALL_SIGMA
        };
        push_char(out, sigma);
    } else {
        tables.to_lower(c).push_utf8(out);
    }
}

/// `s.lower()`.
pub fn lower<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Down>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Down>(s, out, |at, c, out| push_lower(s, at, c, tables, out));
}

/// `s.upper()`.
pub fn upper<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Up>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Up>(s, out, |_, c, out| tables.to_upper(c).push_utf8(out));
}

/// `s.casefold()`: lower case for ASCII, full case folding elsewhere ('ß' -> 'ss').
pub fn casefold<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_ascii::<Down>(s, out);
        return;
    }
    out.reserve(s.len());
    for_each_run::<Down>(s, out, |_, c, out| tables.to_fold(c).push_utf8(out));
}

/// `s.swapcase()`: upper case code points lowered (with final sigma), lower case ones
/// uppered, the rest kept.
pub fn swapcase<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, swapcase_ascii);
        return;
    }
    out.reserve(s.len());
    for_each_char(s, |at, c| {
        if c.is_ascii() {
            let b = c as u8;
            out.push(if b.is_ascii_alphabetic() { b ^ 0x20 } else { b });
        } else if tables.is_upper(c) {
            push_lower(s, at, c, tables, out);
        } else if tables.is_lower(c) {
            tables.to_upper(c).push_utf8(out);
        } else {
            push_char(out, c);
        }
    });
}

/// Appends the title case of `c`.
#[inline]
fn push_title<U: UnicodeTables + ?Sized>(c: char, tables: &U, out: &mut Vec<u8>) {
    if c.is_ascii() {
        out.push(c.to_ascii_uppercase() as u8);
    } else {
        tables.to_title(c).push_utf8(out);
    }
}

/// `s.capitalize()`: the first code point title-cased (Python 3.8+), the rest lowered.
pub fn capitalize<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, capitalize_ascii);
        return;
    }
    out.reserve(s.len());
    for_each_char(s, |at, c| {
        if at == 0 {
            push_title(c, tables, out);
        } else {
            push_lower(s, at, c, tables, out);
        }
    });
}

/// `s.title()`: a code point after a cased one is lowered, any other is title-cased.
/// Like CPython, only "cased" matters, so `"they're".title() == "They'Re"`.
pub fn title<U: UnicodeTables + ?Sized>(s: &[u8], tables: &U, out: &mut Vec<u8>) {
    if s.is_ascii() {
        extend_mapped(s, out, title_ascii);
        return;
    }
    let mut previous_is_cased = false;
    out.reserve(s.len());
    for_each_char(s, |at, c| {
        if previous_is_cased {
            push_lower(s, at, c, tables, out);
        } else {
            push_title(c, tables, out);
        }
        previous_is_cased = if c.is_ascii() {
            c.is_ascii_alphabetic()
        } else {
            tables.is_cased(c)
        };
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::unicode::RustTables;

    // (string, [upper, lower, swapcase, capitalize, title, casefold]), generated with
    // Python 3.11.
    #[rustfmt::skip]
    const CASES: &[(&str, [&str; 6])] = &[
        ("", ["", "", "", "", "", ""]),
        ("hello world", ["HELLO WORLD", "hello world", "HELLO WORLD", "Hello world", "Hello World", "hello world"]),
        ("Hello World", ["HELLO WORLD", "hello world", "hELLO wORLD", "Hello world", "Hello World", "hello world"]),
        ("hELLO wORLD", ["HELLO WORLD", "hello world", "Hello World", "Hello world", "Hello World", "hello world"]),
        ("they're bill's friends from the UK", ["THEY'RE BILL'S FRIENDS FROM THE UK", "they're bill's friends from the uk", "THEY'RE BILL'S FRIENDS FROM THE uk", "They're bill's friends from the uk", "They'Re Bill'S Friends From The Uk", "they're bill's friends from the uk"]),
        ("123abc ABC", ["123ABC ABC", "123abc abc", "123ABC abc", "123abc abc", "123Abc Abc", "123abc abc"]),
        ("a1b2 c3", ["A1B2 C3", "a1b2 c3", "A1B2 C3", "A1b2 c3", "A1B2 C3", "a1b2 c3"]),
        ("snake_case_name", ["SNAKE_CASE_NAME", "snake_case_name", "SNAKE_CASE_NAME", "Snake_case_name", "Snake_Case_Name", "snake_case_name"]),
        ("x", ["X", "x", "X", "X", "X", "x"]),
        ("X", ["X", "x", "x", "X", "X", "x"]),
        ("ß", ["SS", "ß", "SS", "Ss", "Ss", "ss"]),
        ("straße", ["STRASSE", "straße", "STRASSE", "Straße", "Straße", "strasse"]),
        ("STRASSE", ["STRASSE", "strasse", "strasse", "Strasse", "Strasse", "strasse"]),
        ("İstanbul", ["İSTANBUL", "i̇stanbul", "i̇STANBUL", "İstanbul", "İstanbul", "i̇stanbul"]),
        ("ﬁne", ["FINE", "ﬁne", "FINE", "Fine", "Fine", "fine"]),
        ("ǆemal", ["ǄEMAL", "ǆemal", "ǄEMAL", "ǅemal", "ǅemal", "ǆemal"]),
        ("ΑΣ", ["ΑΣ", "ας", "ας", "Ας", "Ας", "ασ"]),
        ("ΑΣ ΟΔΟΣ", ["ΑΣ ΟΔΟΣ", "ας οδος", "ας οδος", "Ας οδος", "Ας Οδος", "ασ οδοσ"]),
        ("Σ", ["Σ", "σ", "σ", "Σ", "Σ", "σ"]),
        ("aΣ", ["AΣ", "aς", "Aς", "Aς", "Aς", "aσ"]),
        ("aΣb", ["AΣB", "aσb", "AσB", "Aσb", "Aσb", "aσb"]),
        ("aΣ.", ["AΣ.", "aς.", "Aς.", "Aς.", "Aς.", "aσ."]),
        ("aΣ'", ["AΣ'", "aς'", "Aς'", "Aς'", "Aς'", "aσ'"]),
        ("a'Σ", ["A'Σ", "a'ς", "A'ς", "A'ς", "A'Σ", "a'σ"]),
        ("ΣΑ", ["ΣΑ", "σα", "σα", "Σα", "Σα", "σα"]),
        ("ὈΔΥΣΣΕΎΣ", ["ὈΔΥΣΣΕΎΣ", "ὀδυσσεύς", "ὀδυσσεύς", "Ὀδυσσεύς", "Ὀδυσσεύς", "ὀδυσσεύσ"]),
        ("éCOLE", ["ÉCOLE", "école", "École", "École", "École", "école"]),
        ("École", ["ÉCOLE", "école", "éCOLE", "École", "École", "école"]),
        ("ÉCOLE normale", ["ÉCOLE NORMALE", "école normale", "école NORMALE", "École normale", "École Normale", "école normale"]),
        ("日本語 text", ["日本語 TEXT", "日本語 text", "日本語 TEXT", "日本語 text", "日本語 Text", "日本語 text"]),
        ("emoji 😀 Mix", ["EMOJI 😀 MIX", "emoji 😀 mix", "EMOJI 😀 mIX", "Emoji 😀 mix", "Emoji 😀 Mix", "emoji 😀 mix"]),
        ("mIxEd CaSe ünïcödé", ["MIXED CASE ÜNÏCÖDÉ", "mixed case ünïcödé", "MiXeD cAsE ÜNÏCÖDÉ", "Mixed case ünïcödé", "Mixed Case Ünïcödé", "mixed case ünïcödé"]),
        ("hello\u{a0}world", ["HELLO\u{a0}WORLD", "hello\u{a0}world", "HELLO\u{a0}WORLD", "Hello\u{a0}world", "Hello\u{a0}World", "hello\u{a0}world"]),
        ("café CAFÉ", ["CAFÉ CAFÉ", "café café", "CAFÉ café", "Café café", "Café Café", "café café"]),
        ("ǅ", ["Ǆ", "ǆ", "ǅ", "ǅ", "ǅ", "ǆ"]),
        ("ǅEMAL x", ["ǄEMAL X", "ǆemal x", "ǅemal X", "ǅemal x", "ǅemal X", "ǆemal x"]),
    ];

    type CaseKernel = fn(&[u8], &RustTables, &mut Vec<u8>);

    #[test]
    fn case_matches_python() {
        let kernels: [(&str, CaseKernel); 6] = [
            ("upper", upper),
            ("lower", lower),
            ("swapcase", swapcase),
            ("capitalize", capitalize),
            ("title", title),
            ("casefold", casefold),
        ];
        for &(s, want) in CASES {
            for ((name, kernel), want) in kernels.iter().zip(want) {
                let mut out = b">".to_vec();
                kernel(s.as_bytes(), &RustTables, &mut out);
                let got = std::str::from_utf8(&out[1..]).unwrap();
                assert_eq!(got, want, "{s:?}.{name}()");
            }
        }
    }

    #[test]
    fn inline_ascii_case_matches_python() {
        let samples = [
            "",
            "a",
            "Hello World",
            "ABC def",
            "x1y2",
            "@[`{",
            "exactly12byt",
            "mIxEd CaSe!",
        ];
        type Slow = fn(&[u8], &RustTables, &mut Vec<u8>);
        let cases: [(AsciiCase, Slow); 4] = [
            (AsciiCase::Upper, upper),
            (AsciiCase::Lower, lower),
            (AsciiCase::Swap, swapcase),
            (AsciiCase::Capitalize, capitalize),
        ];
        for text in samples {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for (case, slow) in cases {
                let mut want = Vec::new();
                slow(text.as_bytes(), &RustTables, &mut want);
                let got = inline_ascii_case(view, case).expect("ASCII inline");
                assert_eq!(got.inline_bytes(), Some(&want[..]), "{text:?} {case:?}");
            }
        }
        let wide = View::try_inline("é".as_bytes()).expect("inline");
        assert_eq!(inline_ascii_case(wide, AsciiCase::Upper), None);
    }

    #[test]
    fn ascii_kernels_write_what_the_full_ones_append() {
        type Direct = fn(&[u8], &mut [u8]);
        let pairs: [(&str, CaseKernel, Direct); 6] = [
            ("upper", upper, upper_ascii),
            ("lower", lower, lower_ascii),
            ("swapcase", swapcase, swapcase_ascii),
            ("capitalize", capitalize, capitalize_ascii),
            ("title", title, title_ascii),
            ("casefold", casefold, lower_ascii),
        ];
        // Every ASCII byte, at every length across the 16-byte steps and their tails.
        let all: Vec<u8> = (0..128u8).cycle().skip(57).take(300).collect();
        let samples = CASES
            .iter()
            .map(|(s, _)| s.as_bytes())
            .filter(|s| s.is_ascii());
        let lengths = (0..40).chain([63, 64, 65, 300]).map(|len| &all[..len]);
        for s in samples.chain(lengths) {
            for (name, full, direct) in pairs {
                let mut want = Vec::new();
                full(s, &RustTables, &mut want);
                let mut got = vec![0xff; s.len()];
                direct(s, &mut got);
                assert_eq!(got, want, "{name} of {:?}", String::from_utf8_lossy(s));
            }
        }
    }

    #[test]
    fn ascii_runs_sixteen_at_a_time_match_bytewise_case() {
        // Every ASCII byte, at every length across the 16-byte steps and their tails,
        // alone and between non-ASCII code points (which split the runs).
        let all: Vec<u8> = (0..128u8).cycle().skip(57).take(300).collect();
        for len in (0..40).chain([63, 64, 65, 300]) {
            let ascii = &all[..len];
            let text = std::str::from_utf8(ascii).expect("ASCII");
            let mixed = format!("é{text}ü{text}");
            for s in [text, mixed.as_str()] {
                let check = |f: fn(&[u8], &RustTables, &mut Vec<u8>), want: String| {
                    let mut out = b"kept".to_vec();
                    f(s.as_bytes(), &RustTables, &mut out);
                    assert_eq!(&out[..4], b"kept");
                    assert_eq!(std::str::from_utf8(&out[4..]), Ok(want.as_str()), "{s:?}");
                };
                check(upper, s.to_uppercase());
                check(lower, s.to_lowercase());
                check(casefold, s.to_lowercase());
                let swapped: String = s
                    .chars()
                    .map(|c| match c {
                        'a'..='z' => c.to_ascii_uppercase(),
                        'A'..='Z' => c.to_ascii_lowercase(),
                        'é' => 'É',
                        'ü' => 'Ü',
                        _ => c,
                    })
                    .collect();
                check(swapcase, swapped);
            }
        }
    }
}

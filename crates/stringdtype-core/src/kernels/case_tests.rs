//! Tests of the case conversions (`case.rs`): Python's results, the ASCII kernels
//! and blocks against byte-at-a-time conversions.

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
    let cases: [(AsciiCase, Slow); 5] = [
        (AsciiCase::Upper, upper),
        (AsciiCase::Lower, lower),
        (AsciiCase::Swap, swapcase),
        (AsciiCase::Capitalize, capitalize),
        (AsciiCase::Title, title),
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
fn blocks_and_lanes_flip_what_bytes_flip() {
    fn check<F: Flips>(want: fn(u8) -> u8) {
        let all: Vec<u8> = (0..128u8).collect();
        for bytes in all.chunks(16) {
            let src: [u8; 16] = bytes.try_into().expect("16 bytes");
            let expect = src.map(want);
            let mut dst = [0xff; 16];
            flip16::<F>(&src, &mut dst);
            assert_eq!(dst, expect, "flip16 of {src:?}");
            let lanes = flip_lanes::<F>(u128::from_le_bytes(src)).to_le_bytes();
            assert_eq!(lanes, expect, "flip_lanes of {src:?}");
            assert_eq!(src.map(|b| b ^ F::byte(b)), expect, "byte of {src:?}");
        }
    }
    check::<Up>(|b| b.to_ascii_uppercase());
    check::<Down>(|b| b.to_ascii_lowercase());
    check::<Both>(|b| b ^ (u8::from(b.is_ascii_alphabetic()) << 5));
}

#[test]
fn title_blocks_match_a_byte_at_a_time() {
    let all: Vec<u8> = (0..128u8).cycle().skip(57).take(300).collect();
    let words = b"ab CD eF Gh 1x _y z'z ".repeat(14);
    for text in [&all[..], &words[..]] {
        for len in (0..70).chain([255, 256, 257, 300]) {
            let s = &text[..len];
            let mut previous_is_letter = false;
            let want: Vec<u8> = s
                .iter()
                .map(|&b| {
                    let to = match previous_is_letter {
                        true => b.to_ascii_lowercase(),
                        false => b.to_ascii_uppercase(),
                    };
                    previous_is_letter = b.is_ascii_alphabetic();
                    to
                })
                .collect();
            let mut got = vec![0xff; len];
            title_ascii(s, &mut got);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(s));
        }
    }
}

#[test]
fn ascii_run_stops_at_the_first_non_ascii_byte() {
    for len in 0..40 {
        let mut s = vec![b'a'; len];
        assert_eq!(ascii_run(&s), len);
        for at in 0..len {
            s.fill(b'a');
            s[at] = 0xc3;
            assert_eq!(ascii_run(&s), at, "{len} bytes, non-ASCII at {at}");
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

//! Tests of the early answers from the first-byte set ([`Pattern::cannot_match`],
//! [`Pattern::cannot_match_at_start`]): every operation gives Python's no-match answer
//! for a string holding no byte a match can start with (single searches: a string of up
//! to 16 bytes), also for the strings the engine otherwise leaves to Python, and a
//! pattern that can match empty gets no early answer.
//!
//! Expected values are CPython 3.11's (`re.search`, `re.match`, `re.fullmatch`,
//! `re.findall`, `re.split`).

use super::classes::tests::shared;
use super::{Flags, NeedsPython, Pattern};

const NONE: Flags = Flags::empty();
const I: Flags = Flags::IGNORECASE;
const M: Flags = Flags::MULTILINE;

fn compile(pattern: &str, flags: Flags) -> Pattern {
    Pattern::new(pattern, flags, shared()).unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
}

/// `(pattern, flags, string)`: the string holds no byte a match can start with.
const NO_CANDIDATE: &[(&str, Flags, &str)] = &[
    (r"(\d+)", NONE, ""),
    (r"(\d+)", NONE, "abcdefghijkl"),
    (r"(\d+)", NONE, "abcdefghijklm"),
    (r"(\d+)", NONE, "x\0y é²"),
    ("(a)|(b)", NONE, "xyz"),
    ("(?i)k", I, "xyz"),
    ("é+", NONE, "e\u{301}"),
    // Strings the engine leaves to Python: several newlines with `$`, `\B` on an empty
    // string, a character whose word class Python and the engine disagree on.
    ("(x)$", NONE, "a\nb\n"),
    ("(?m)(x)$", M, "a\nb\n"),
    (r"\B(x)", NONE, ""),
    (r"\b(x)", NONE, "²"),
    (r"\B(x)", NONE, "‿a"),
];

#[test]
fn strings_without_a_candidate_have_no_match() {
    for &(pattern, flags, haystack) in NO_CANDIDATE {
        let p = compile(pattern, flags);
        let h = haystack.as_bytes();
        let case = format!("{pattern:?} {haystack:?}");
        assert!(p.cannot_match(h) && p.cannot_match_at_start(h), "{case}");
        assert_eq!(p.is_match(h), Ok(false), "{case}");
        assert_eq!(p.is_match_at_start(h), Ok(false), "{case}");
        assert_eq!(p.is_fullmatch(h), Ok(false), "{case}");
        assert_eq!(p.search(h), Ok(None), "{case}");
        assert_eq!(p.search_captures(h), Ok(None), "{case}");
        assert_eq!(p.fullmatch_captures(h), Ok(None), "{case}");
        assert_eq!(p.extract(h, 1), Ok(None), "{case}");
        assert_eq!(p.count(h), Ok(0), "{case}");
        assert_eq!(p.find_iter(h).map(Iterator::count), Ok(0), "{case}");
        assert_eq!(p.captures_iter(h).map(Iterator::count), Ok(0), "{case}");
        for maxsplit in [0, 1, -1] {
            assert_eq!(p.split(h, maxsplit), Ok(vec![Some(h)]), "{case}");
        }
        let (mut out, template) = (b"x".to_vec(), p.template("-").unwrap());
        assert_eq!(p.sub_if_changed(h, &template, 0, &mut out), Ok(0), "{case}");
        assert_eq!(out, b"x", "{case}");
    }
}

/// `(pattern, string, re.match(...) is not None, re.fullmatch(...) is not None)`, where
/// the string has a byte a match can start with somewhere.
const AT_START: &[(&str, &str, bool, bool)] = &[
    (r"\d+", "a1", false, false),
    (r"\d+", "1a", true, false),
    (r"\d+", "12", true, true),
    (r"\d+", "é1", false, false),
    (r"\d+", "\x001", false, false),
    ("(?i)k", "\u{212a}", true, true),
    ("(?i)k", "a\u{212a}", false, false),
    ("b|ab", "cab", false, false),
    // `$` with several newlines: the first byte decides before Python is needed.
    ("x$", "ax\nx\n", false, false),
];

#[test]
fn match_needs_its_first_byte_in_the_set() {
    for &(pattern, haystack, at_start, full) in AT_START {
        let p = compile(pattern, NONE);
        let h = haystack.as_bytes();
        let case = format!("{pattern:?} {haystack:?}");
        assert!(!p.cannot_match(h), "{case}");
        assert_eq!(p.cannot_match_at_start(h), !at_start, "{case}");
        assert_eq!(p.is_match_at_start(h), Ok(at_start), "{case}");
        assert_eq!(p.is_fullmatch(h), Ok(full), "{case}");
        assert_eq!(p.fullmatch_captures(h).unwrap().is_some(), full, "{case}");
    }
    // The first byte can start a match, so the engine is asked, and it leaves this one
    // to Python: re.match('x$', 'x\nx\n') is None, which the engine would not say.
    let p = compile("x$", NONE);
    assert!(!p.cannot_match_at_start(b"x\nx\n"));
    assert_eq!(
        p.is_match_at_start(b"x\nx\n"),
        Err(NeedsPython::FinalNewline)
    );
}

#[test]
fn searches_of_strings_with_a_candidate() {
    // The engine answers: single searches from the start, iterations from the first
    // candidate, where looks still see the bytes before it.
    // (pattern, string, re.search(...).span() in bytes, len(re.findall(...)))
    type Case<'a> = (&'a str, &'a str, Option<(usize, usize)>, usize);
    let cases: &[Case<'_>] = &[
        (r"\bx", "ax x", Some((3, 4)), 1),
        (r"\Bx", "ax x", Some((1, 2)), 1),
        ("(?m)^x", "ax\nx", Some((3, 4)), 1),
        (r"\d+", "ab12c3", Some((2, 4)), 2),
        (r"(\d)x", "é1y1x", Some((4, 6)), 1),
        // Longer than a scan before the search: the engine finds it from the start.
        (r"\bx", "aaaaaaaaaaaaaaaaaaaax x", Some((22, 23)), 1),
    ];
    for &(pattern, haystack, span, count) in cases {
        let p = compile(pattern, NONE);
        let h = haystack.as_bytes();
        let case = format!("{pattern:?} {haystack:?}");
        assert_eq!(p.search(h), Ok(span.map(|(s, e)| s..e)), "{case}");
        assert_eq!(p.is_match(h), Ok(span.is_some()), "{case}");
        assert_eq!(p.count(h), Ok(count), "{case}");
        assert_eq!(p.find_iter(h).map(Iterator::count), Ok(count), "{case}");
        let group0 = p.search_captures(h).unwrap().and_then(|c| c.span(0));
        assert_eq!(group0, span.map(|(s, e)| s..e), "{case}");
    }
}

#[test]
fn long_strings_go_to_the_engine_for_a_single_search() {
    // 17 bytes and several newlines: a single search asks the engine, which leaves the
    // string to Python; an iteration knows from its scan that nothing matches.
    let p = compile("(x)$", NONE);
    let h = b"aaaaaaaaaaaaaa\nb\n";
    assert!(h.len() > 16 && p.cannot_match(h));
    assert_eq!(p.is_match(h), Err(NeedsPython::FinalNewline));
    assert_eq!(p.count(h), Err(NeedsPython::FinalNewline));
    assert_eq!(p.extract(h, 1), Err(NeedsPython::FinalNewline));
    assert_eq!(p.is_match_at_start(h), Ok(false));
    assert_eq!(p.find_iter(h).map(Iterator::count), Ok(0));
    assert_eq!(p.split(h, 0), Ok(vec![Some(&h[..])]));
}

#[test]
fn patterns_that_can_match_empty_get_no_early_answer() {
    // (pattern, string, re.search is not None, re.match is not None, len(re.findall),
    // re.split) for strings with none of the pattern's non-empty first bytes.
    type Case<'a> = (&'a str, &'a str, bool, bool, usize, &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        ("a*", "", true, true, 1, &["", ""]),
        ("a*", "bc", true, true, 3, &["", "b", "c", ""]),
        ("(?:x)?", "yz", true, true, 3, &["", "y", "z", ""]),
        ("x|", "", true, true, 1, &["", ""]),
        ("^", "b", true, true, 1, &["", "b"]),
        (r"\b", "b", true, true, 2, &["", "b", ""]),
    ];
    for &(pattern, haystack, found, at_start, count, pieces) in cases {
        let p = compile(pattern, NONE);
        let h = haystack.as_bytes();
        let case = format!("{pattern:?} {haystack:?}");
        assert!(p.can_match_empty(), "{case}");
        assert!(!p.cannot_match(h) && !p.cannot_match_at_start(h), "{case}");
        assert_eq!(p.is_match(h), Ok(found), "{case}");
        assert_eq!(p.is_match_at_start(h), Ok(at_start), "{case}");
        assert_eq!(p.count(h), Ok(count), "{case}");
        let split: Vec<_> = p.split(h, 0).unwrap().into_iter().flatten().collect();
        let pieces: Vec<&[u8]> = pieces.iter().map(|s| s.as_bytes()).collect();
        assert_eq!(split, pieces, "{case}");
    }
    // And the strings the engine leaves to Python still go there.
    let p = compile(r"\B", NONE);
    assert!(!p.cannot_match(b""));
    assert_eq!(p.is_match(b""), Err(NeedsPython::EmptyString));
    assert_eq!(p.count(b""), Err(NeedsPython::EmptyString));
}

//! Table-driven tests of the regex module against Python 3.11's `re`.
//!
//! Every expected value was computed with CPython 3.11 (`re.search(p, s, flags).span()`
//! converted to byte offsets, `re.findall`, `re.split`, `re.subn`, ...) when the tables
//! were written. The Unicode classes come from `RustTables`, whose answers agree with
//! Python's on every character used here (it is approximate for combining marks, letter
//! numbers and CJK numerals, which these tables avoid outside the word-boundary checks).

use super::classes::tests::shared;
use super::{Flags, NeedsPython, Pattern, PatternError, TemplateError};

const NONE: Flags = Flags::empty();
const I: Flags = Flags::IGNORECASE;
const M: Flags = Flags::MULTILINE;
const S: Flags = Flags::DOTALL;
const X: Flags = Flags::VERBOSE;
const A: Flags = Flags::ASCII;
const I_A: Flags = Flags(Flags::IGNORECASE.bits() | Flags::ASCII.bits());
const M_S: Flags = Flags(Flags::MULTILINE.bits() | Flags::DOTALL.bits());

fn compile(pattern: &str, flags: Flags) -> Pattern {
    Pattern::new(pattern, flags, shared()).unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// A byte span.
type Span = Option<(usize, usize)>;

/// `(pattern, flags, string, re.search(pattern, string, flags).span())` in bytes.
const SEARCH: &[(&str, Flags, &str, Span)] = &[
    ("a", NONE, "bab", Some((1, 2))),
    ("a|ab", NONE, "ab", Some((0, 1))),
    ("ab|a", NONE, "xab", Some((1, 3))),
    ("x", NONE, "abc", None),
    ("", NONE, "abc", Some((0, 0))),
    ("\\d+", NONE, "ab12c", Some((2, 4))),
    ("\\d+", NONE, "x٣٤y", Some((1, 5))),
    ("\\d", NONE, "²", None),
    ("\\d", A, "٣1", Some((2, 3))),
    ("\\w+", NONE, " é中x_² ", Some((1, 10))),
    ("\\w+", A, " é_x1 ", Some((3, 6))),
    ("\\w", NONE, "\u{203f}", None),
    ("\\W+", NONE, "ab, cd", Some((2, 4))),
    ("\\s+", NONE, "a\u{1c}\u{3000}b", Some((1, 5))),
    ("\\s", A, "\u{1c}\u{3000} ", Some((4, 5))),
    ("\\S+", NONE, "  ab  ", Some((2, 4))),
    ("\\D+", NONE, "12ab34", Some((2, 4))),
    (".", NONE, "\nb", Some((1, 2))),
    (".", S, "\nb", Some((0, 1))),
    ("a.c", NONE, "a\ncabc", Some((3, 6))),
    ("[^a]", NONE, "aab", Some((2, 3))),
    ("[]a]+", NONE, "x]a]", Some((1, 4))),
    ("[a-]+", NONE, "b-a-", Some((1, 4))),
    ("[\\d-]+", NONE, "x1-2", Some((1, 4))),
    ("[\\b]", NONE, "a\u{8}b", Some((1, 2))),
    ("[^\\W\\d]+", NONE, "12ab_c3", Some((2, 6))),
    ("\\x41\\u00e9\\0", NONE, "Aé\u{0}", Some((0, 4))),
    ("\\101\\.", NONE, "A.", Some((0, 2))),
    ("a{}", NONE, "a{}", Some((0, 3))),
    ("a{1,x}", NONE, "a{1,x}", Some((0, 6))),
    ("^a", NONE, "ba\na", None),
    ("^a", M, "ba\na", Some((3, 4))),
    ("a$", NONE, "a\nb", None),
    ("a$", M, "a\nb", Some((0, 1))),
    ("a$", NONE, "ba\n", Some((1, 2))),
    ("a\\Z", NONE, "ba\n", None),
    ("\\Aa", M, "b\na", None),
    ("$", NONE, "ab\n", Some((2, 2))),
    ("$", NONE, "ab", Some((2, 2))),
    ("^$", M, "a\n\nb", Some((2, 2))),
    ("(?m)$", NONE, "a\nb", Some((1, 1))),
    ("\\bb", NONE, "ab b", Some((3, 4))),
    ("\\Bb", NONE, "ab b", Some((1, 2))),
    ("\\b\\w+\\b", NONE, " é中 ", Some((1, 6))),
    ("(?a)\\b\\w+", NONE, "éab cd", Some((2, 4))),
    ("a*", NONE, "baa", Some((0, 0))),
    ("a+?", NONE, "baa", Some((1, 2))),
    ("a{2}", NONE, "abaaa", Some((2, 4))),
    ("a{2,}", NONE, "aaaa", Some((0, 4))),
    ("a{,2}", NONE, "aaa", Some((0, 2))),
    ("a{1,3}?", NONE, "aaa", Some((0, 1))),
    ("(?:ab)+", NONE, "xababa", Some((1, 5))),
    ("(a|b)*c", NONE, "abac", Some((0, 4))),
    ("a{0}b", NONE, "ab", Some((1, 2))),
    ("(?x) a b # c", NONE, "xab", Some((1, 3))),
    ("a b", X, "ab a b", Some((0, 2))),
    ("[a b]+", X, "x a b", Some((1, 5))),
    ("a\\ b", X, "a b", Some((0, 3))),
    ("a{1, 2}", X, "a{1,2}", Some((0, 6))),
    ("(?i)k", NONE, "x\u{212a}", Some((1, 4))),
    ("(?i)K", NONE, "xk", Some((1, 2))),
    ("k", I_A, "x\u{212a}k", Some((4, 5))),
    ("(?i)i", NONE, "x\u{131}", Some((1, 3))),
    ("(?i)\u{131}", NONE, "xI", Some((1, 2))),
    ("(?i)\u{130}", NONE, "xi", Some((1, 2))),
    ("(?i)s", NONE, "x\u{17f}", Some((1, 3))),
    ("(?i)ß", NONE, "x\u{1e9e}ß", Some((1, 4))),
    ("(?i)\\u1e9e", NONE, "xß", Some((1, 3))),
    ("(?i)[a-c]+", NONE, "xAbC", Some((1, 4))),
    ("(?i)[^k]", NONE, "k\u{212a}K.", Some((5, 6))),
    ("(?i)é", NONE, "É", Some((0, 2))),
    ("(?i)µ", NONE, "Μ", Some((0, 2))),
    ("(?i:a)b", NONE, "ABAb", Some((2, 4))),
    ("(?i)a(?-i:b)", NONE, "ABAb", Some((2, 4))),
    ("(?i)(?a:k)", NONE, "\u{212a}k", Some((3, 4))),
    ("(?i)[𐐀x]", NONE, "𐐀𐐨X", Some((8, 9))),
    ("(?i)[𐐨-𐐩]", NONE, "𐐀", Some((0, 4))),
    ("[#]+", X, "a#b", Some((1, 2))),
    ("a\\#b", X, "a#b", Some((0, 3))),
    ("a # c\n b", X, "ab", Some((0, 2))),
    ("(?x: a b )c", NONE, "abc", Some((0, 3))),
    ("a(?-x: b)", X, "a b", Some((0, 3))),
    (".+", M_S, "a\nb", Some((0, 3))),
    ("^b", M_S, "a\nb", Some((2, 3))),
    ("(?s:.)x", NONE, "\nx", Some((0, 2))),
    ("(?m:^)b|c$", NONE, "a\nb", Some((2, 3))),
    // Repeats of bodies that can match empty, rewritten to their non-empty paths.
    ("(?:a?b?)*", NONE, "abba", Some((0, 4))),
    ("(?:a*)*b", NONE, "aab", Some((0, 3))),
    ("(?:\\w*\\s*)*", NONE, "ab cd", Some((0, 5))),
    ("(?:a?b?){2,}?c", NONE, "abc", Some((0, 3))),
    ("x(?:a|\\b)*", NONE, "xa a", Some((0, 2))),
    ("(?:\\b)*a", NONE, "a", Some((0, 1))),
    ("(?:a|){3}b", NONE, "aab", Some((0, 3))),
    // A literal surrogate never matches a UTF-8 string.
    ("\\ud800|a", NONE, "xa", Some((1, 2))),
    ("[^\\ud800]", NONE, "x", Some((0, 1))),
];

#[test]
fn search() {
    for &(pattern, flags, haystack, expected) in SEARCH {
        let p = compile(pattern, flags);
        let h = haystack.as_bytes();
        let found = p.search(h).unwrap().map(|r| (r.start, r.end));
        assert_eq!(
            found, expected,
            "re.search({pattern:?}, {haystack:?}, {flags:?})"
        );
        assert_eq!(
            p.is_match(h).unwrap(),
            expected.is_some(),
            "{pattern:?} {haystack:?}"
        );
    }
}

/// `(pattern, string, re.match(...) is not None, re.fullmatch(...) is not None)`.
const MATCH_FULL: &[(&str, &str, bool, bool)] = &[
    ("a|ab", "ab", true, true),
    ("ab|a", "ab", true, true),
    ("a*?", "aa", true, true),
    ("(a|ab)(c|bcd)(d*)", "abcd", true, true),
    ("\\d+", "12x", true, false),
    ("x", "ax", false, false),
    ("a$", "a\n", true, false),
    ("a\n", "a\n", true, true),
    ("", "", true, true),
    ("a?", "", true, true),
    ("\\w+", "é_1", true, true),
    ("(?i)[k]+", "kK\u{212a}", true, true),
    ("a|b", "b", true, true),
];

#[test]
fn match_and_fullmatch() {
    for &(pattern, haystack, at_start, full) in MATCH_FULL {
        let p = compile(pattern, NONE);
        let h = haystack.as_bytes();
        assert_eq!(
            p.is_match_at_start(h).unwrap(),
            at_start,
            "re.match({pattern:?}, {haystack:?})"
        );
        assert_eq!(
            p.is_fullmatch(h).unwrap(),
            full,
            "re.fullmatch({pattern:?}, {haystack:?})"
        );
        let caps = p.fullmatch_captures(h).unwrap();
        assert_eq!(caps.is_some(), full);
    }
}

/// `(pattern, string, [m.group(0), *m.groups()])` for `m = re.search(pattern, string)`.
const GROUPS: &[(&str, &str, &[Option<&str>])] = &[
    ("(a)(b)?", "ac", &[Some("a"), Some("a"), None]),
    ("(a)|(b)", "b", &[Some("b"), None, Some("b")]),
    (
        "(?P<x>a)(?P<y>b)",
        "ab",
        &[Some("ab"), Some("a"), Some("b")],
    ),
    ("((a)|b)+", "ab", &[Some("ab"), Some("b"), Some("a")]),
    ("(a|b)*", "abab", &[Some("abab"), Some("b")]),
    ("(?:(a)|b)*", "ab", &[Some("ab"), Some("a")]),
    ("(a)(?:x|(b))?", "ab", &[Some("ab"), Some("a"), Some("b")]),
    ("(a){0}(b)", "ab", &[Some("b"), None, Some("b")]),
    (
        "(a|ab)(c|bcd)(d*)",
        "abcd",
        &[Some("abcd"), Some("a"), Some("bcd"), Some("")],
    ),
    ("(a*)b", "xaab", &[Some("aab"), Some("aa")]),
    ("(a*?)(a*)", "aa", &[Some("aa"), Some(""), Some("aa")]),
    (
        "(?i)(k)(s)",
        "\u{212a}\u{17f}",
        &[Some("\u{212a}\u{17f}"), Some("\u{212a}"), Some("\u{17f}")],
    ),
    ("(x)?y", "y", &[Some("y"), None]),
    ("(é)(中)", "é中", &[Some("é中"), Some("é"), Some("中")]),
];

#[test]
fn groups() {
    for &(pattern, haystack, expected) in GROUPS {
        let p = compile(pattern, NONE);
        let caps = p.search_captures(haystack.as_bytes()).unwrap().unwrap();
        let found: Vec<Option<&str>> = (0..caps.len()).map(|g| caps.get(g).map(text)).collect();
        assert_eq!(
            found, expected,
            "re.search({pattern:?}, {haystack:?}).groups()"
        );
        assert_eq!(p.groups() + 1, expected.len());
        for (g, want) in expected.iter().enumerate() {
            assert_eq!(p.extract(haystack.as_bytes(), g).unwrap().map(text), *want);
        }
    }
}

/// `(pattern, flags, string, [m.group() for m in re.finditer(pattern, string, flags)])`.
const FINDALL: &[(&str, Flags, &str, &[&str])] = &[
    ("x*", NONE, "abxd", &["", "", "x", "", ""]),
    ("\\b|a", NONE, "a", &["", "a", ""]),
    ("a*?", NONE, "baac", &["", "", "a", "", "a", "", ""]),
    ("|a", NONE, "aa", &["", "a", "", "a", ""]),
    ("a??", NONE, "aa", &["", "a", "", "a", ""]),
    ("(?:)|a", NONE, "a", &["", "a", ""]),
    ("a|", NONE, "ab", &["a", "", ""]),
    ("\\d*", NONE, "1a22", &["1", "", "22", ""]),
    ("$", NONE, "a\n", &["", ""]),
    ("$", M, "a\nb", &["", ""]),
    ("^", M, "a\nb\n", &["", "", ""]),
    ("\\b", NONE, "ab cd", &["", "", "", ""]),
    ("\\B", NONE, "ab c", &[""]),
    ("\\w+", NONE, "ab, é中! x_1", &["ab", "é中", "x_1"]),
    (".", NONE, "a\nb", &["a", "b"]),
    ("a*?b?", NONE, "ab", &["", "ab", ""]),
    ("a??b?", NONE, "ab", &["", "ab", ""]),
    ("x{0,2}?", NONE, "xx", &["", "x", "", "x", ""]),
    ("(?:\\b|x)y?", NONE, "xy z", &["", "xy", "", "", ""]),
    (
        "(?i)s",
        NONE,
        "sS\u{17f}\u{17f}x",
        &["s", "S", "\u{17f}", "\u{17f}"],
    ),
    ("", NONE, "é中", &["", "", ""]),
    ("a*", NONE, "é", &["", ""]),
    ("(?:a?b?)*", NONE, "abxab", &["ab", "", "ab", ""]),
];

#[test]
fn findall_and_count() {
    for &(pattern, flags, haystack, expected) in FINDALL {
        let p = compile(pattern, flags);
        let h = haystack.as_bytes();
        let found: Vec<&str> = p.find_iter(h).unwrap().map(|r| text(&h[r])).collect();
        assert_eq!(
            found, expected,
            "re.findall({pattern:?}, {haystack:?}, {flags:?})"
        );
        let with_groups: Vec<&str> = p
            .captures_iter(h)
            .unwrap()
            .map(|c| text(c.get(0).unwrap()))
            .collect();
        assert_eq!(with_groups, expected);
        assert_eq!(p.count(h).unwrap(), expected.len());
    }
}

/// `(pattern, string, maxsplit, re.split(pattern, string, maxsplit))`.
const SPLIT: &[(&str, &str, i64, &[Option<&str>])] = &[
    (
        ",",
        "a,b,,c",
        0,
        &[Some("a"), Some("b"), Some(""), Some("c")],
    ),
    (",", "a,b,,c", 2, &[Some("a"), Some("b"), Some(",c")]),
    (",", "a,b", -1, &[Some("a,b")]),
    (
        "x*",
        "axb",
        0,
        &[Some(""), Some("a"), Some(""), Some("b"), Some("")],
    ),
    ("(,)", "a,b", 0, &[Some("a"), Some(","), Some("b")]),
    (
        "(,)|(;)",
        "a,b;c",
        0,
        &[
            Some("a"),
            Some(","),
            None,
            Some("b"),
            None,
            Some(";"),
            Some("c"),
        ],
    ),
    (
        "\\b",
        "ab cd",
        0,
        &[Some(""), Some("ab"), Some(" "), Some("cd"), Some("")],
    ),
    ("", "ab", 0, &[Some(""), Some("a"), Some("b"), Some("")]),
    ("$", "a\n", 0, &[Some("a"), Some("\n"), Some("")]),
    ("a", "", 0, &[Some("")]),
    ("x", "abc", 0, &[Some("abc")]),
    ("\\s+", " a  b ", 1, &[Some(""), Some("a  b ")]),
];

#[test]
fn split() {
    for &(pattern, haystack, maxsplit, expected) in SPLIT {
        let p = compile(pattern, NONE);
        let pieces = p.split(haystack.as_bytes(), maxsplit).unwrap();
        let found: Vec<Option<&str>> = pieces.into_iter().map(|x| x.map(text)).collect();
        assert_eq!(
            found, expected,
            "re.split({pattern:?}, {haystack:?}, {maxsplit})"
        );
    }
}

/// `(pattern, repl, string, count, *re.subn(pattern, repl, string, count))`.
const SUB: &[(&str, &str, &str, i64, &str, usize)] = &[
    ("x*", "-", "abxd", 0, "-a-b--d-", 5),
    ("a*?", "-", "baac", 0, "-b-----c-", 7),
    ("a", "b", "aaa", 2, "bba", 2),
    ("a", "b", "aaa", -1, "aaa", 0),
    ("(a)|x", "[\\1]", "bxab", 0, "b[][a]b", 2),
    (
        "(\\w+) (\\w+)",
        "\\2 \\1",
        "hello world",
        0,
        "world hello",
        1,
    ),
    (
        "(?P<first>\\w+) (?P<second>\\w+)",
        "\\g<second>-\\g<first>",
        "ab cd",
        0,
        "cd-ab",
        1,
    ),
    ("a", "<\\g<0>>", "banana", 0, "b<a>n<a>n<a>", 3),
    ("a", "\\n\\t\\\\\\.", "a", 0, "\n\t\\\\.", 1),
    ("(a)", "\\101\\08", "a", 0, "A\u{0}8", 1),
    ("(b)?a", "[\\1]", "a", 0, "[]", 1),
    ("\\b", "|", "ab cd", 0, "|ab| |cd|", 4),
    ("", "-", "é中", 0, "-é-中-", 3),
    ("^", "> ", "a\nb", 0, "> a\nb", 1),
    ("(?m)^", "> ", "a\nb\n", 0, "> a\n> b\n> ", 3),
    ("$", "!", "a\n", 0, "a!\n!", 2),
    ("(?i)ß", "ss", "ß\u{1e9e}", 0, "ssss", 2),
    ("(a)(b)?", "\\2\\1", "ab a", 0, "ba a", 2),
    ("(?:a|)*", "-", "baac", 0, "-b--c-", 4),
];

#[test]
fn sub() {
    for &(pattern, repl, haystack, count, expected, replaced) in SUB {
        let p = compile(pattern, NONE);
        let template = p.template(repl).unwrap();
        let mut out = b"kept:".to_vec();
        let n = p
            .sub(haystack.as_bytes(), &template, count, &mut out)
            .unwrap();
        assert_eq!(
            text(&out[5..]),
            expected,
            "re.sub({pattern:?}, {repl:?}, {haystack:?}, {count})"
        );
        assert_eq!(n, replaced);
        assert_eq!(&out[..5], b"kept:");
    }
}

#[test]
fn patterns_are_shared_between_threads() {
    fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<Pattern>();
    shared_between_threads::<super::UnicodeClasses<'static>>();
    let p = compile(r"\w+", NONE);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| assert_eq!(p.count("a b c".as_bytes()), Ok(3)));
        }
    });
}

#[test]
fn findall_with_groups() {
    // [m.groups() for m in re.finditer('(a)|x', 'bxab')] == [(None,), ('a',)]
    let p = compile("(a)|x", NONE);
    let found: Vec<Vec<Option<&str>>> = p
        .captures_iter(b"bxab")
        .unwrap()
        .map(|c| (1..c.len()).map(|g| c.get(g).map(text)).collect())
        .collect();
    assert_eq!(found, [vec![None], vec![Some("a")]]);
    // The retry after an empty match keeps Python's group numbers:
    // [m.groups() for m in re.finditer(r'(?:\b|(a))(b)?', 'ab')]
    //     == [(None, None), ('a', 'b'), (None, None)]
    let p = compile(r"(?:\b|(a))(b)?", NONE);
    let found: Vec<Vec<Option<&str>>> = p
        .captures_iter(b"ab")
        .unwrap()
        .map(|c| (1..c.len()).map(|g| c.get(g).map(text)).collect())
        .collect();
    assert_eq!(
        found,
        [
            vec![None, None],
            vec![Some("a"), Some("b")],
            vec![None, None]
        ]
    );
}

#[test]
fn group_names() {
    let p = compile("(?P<year>\\d+)-(\\d+)-(?P<day>\\d+)", NONE);
    assert_eq!(p.groups(), 3);
    assert_eq!(p.group_index("day"), Some(3));
    assert_eq!(p.group_index("month"), None);
    assert_eq!(
        p.group_names().collect::<Vec<_>>(),
        [("year", 1), ("day", 3)]
    );
    assert_eq!(p.extract(b"2024-05-17", 3).unwrap(), Some(&b"17"[..]));
    assert_eq!(p.extract(b"2024-05-17", 4).unwrap(), None);
    assert_eq!(p.extract(b"no date", 1).unwrap(), None);
    let unknown = TemplateError::UnknownGroupName {
        message: "unknown group name 'month'".into(),
    };
    assert_eq!(p.template(r"\g<month>"), Err(unknown));
    assert!(p.template(r"\g<day>/\2/\g<1>").is_ok());
    // Python: 'invalid group reference 4 at position 1'.
    let invalid = TemplateError::Invalid {
        message: "invalid group reference 4".into(),
        position: 1,
    };
    assert_eq!(p.template(r"\4"), Err(invalid));
}

#[test]
fn flags_in_effect() {
    assert_eq!(compile("(?i)a", NONE).flags(), I | Flags::UNICODE);
    assert_eq!(compile("a", A).flags(), A);
    assert_eq!(Flags::from_bits(2 | 8), Some(I | M));
    assert_eq!(Flags::from_bits(1 << 9), None);
    // re.DEBUG changes nothing.
    assert!(Pattern::new("a", Flags::DEBUG, shared()).is_ok());
}

#[test]
fn too_large_is_an_error() {
    let error = Pattern::new(r"(?:\w{1000}){1000}", NONE, shared()).unwrap_err();
    assert!(matches!(error, PatternError::TooLarge { .. }), "{error:?}");
    assert!(error
        .to_string()
        .starts_with("regular expression too large"));
}

#[test]
fn no_catastrophic_backtracking() {
    // Python's re takes exponential time here; the engine answers at once.
    let p = compile("(a+)+$", NONE);
    let mut haystack = "a".repeat(40);
    haystack.push('b');
    assert_eq!(p.search(haystack.as_bytes()).unwrap(), None);
    assert_eq!(p.count(haystack.as_bytes()).unwrap(), 0);
    haystack.pop();
    assert_eq!(p.search(haystack.as_bytes()).unwrap(), Some(0..40));
}

#[test]
fn strings_that_need_python() {
    // (pattern, flags, string, why the engine cannot answer for it)
    let cases = [
        // re.findall(r'\w\b', 'e\u0301') == ['e']: the combining accent is not \w for Python.
        (r"\w\b", NONE, "e\u{301}", NeedsPython::WordBoundary),
        // '²' is \w for Python (isdigit), not for the engine.
        (r"\bx", NONE, "²x", NeedsPython::WordBoundary),
        (r"\Bx", NONE, "‿x", NeedsPython::WordBoundary),
        // Python's `$` is before the last '\n' only: re.findall('a$', 'a\na\n') == ['a'].
        ("a$", NONE, "a\na\n", NeedsPython::FinalNewline),
        // re.search(r'\B', '') is None.
        (r"\B", NONE, "", NeedsPython::EmptyString),
        (r"(?a)\B", NONE, "", NeedsPython::EmptyString),
    ];
    for (pattern, flags, haystack, reason) in cases {
        let p = compile(pattern, flags);
        let h = haystack.as_bytes();
        assert!(!p.engine_is_exact_for(h), "{pattern:?} {haystack:?}");
        assert_eq!(p.search(h), Err(reason));
        // A string whose first byte starts no match has its answer at the start without
        // the engine ('²x' and '‿x' for `x`): Python's too.
        let at_start = if p.cannot_match_at_start(h) {
            Ok(false)
        } else {
            Err(reason)
        };
        assert_eq!(p.is_match_at_start(h), at_start);
        assert_eq!(p.is_fullmatch(h), at_start);
        assert_eq!(p.count(h), Err(reason));
        assert_eq!(p.split(h, 0), Err(reason));
        let mut out = b"x".to_vec();
        let template = p.template("-").unwrap();
        assert_eq!(p.sub(h, &template, 0, &mut out), Err(reason.into()));
        assert_eq!(out, b"x");
    }
}

#[test]
fn strings_the_engine_answers() {
    // ASCII strings, and strings whose characters agree on being word characters, take
    // the engine; so do '$' with one final newline and `\b` in ASCII mode.
    let cases = [
        (r"\b\w+\b", NONE, "plain ASCII text, with punctuation!"),
        (r"\b\w+\b", NONE, "café 中文 naïve"),
        (r"\bx", A, "²x e\u{301}"),
        ("a$", NONE, "a\n"),
        ("a$", M, "a\na\n"),
        (r"\B", NONE, "x"),
        ("x$", NONE, ""),
    ];
    for (pattern, flags, haystack) in cases {
        let p = compile(pattern, flags);
        assert!(
            p.engine_is_exact_for(haystack.as_bytes()),
            "{pattern:?} {haystack:?}"
        );
        assert!(p.count(haystack.as_bytes()).is_ok());
    }
}

#[test]
fn python_word_characters() {
    // [m.group() for m in re.finditer(r'\w+', s)] with Python's classes, not the engine's:
    // '²' and '٣' are \w, the connector '‿' and the combining accent are not.
    let p = compile(r"\w+", NONE);
    let h = "x²٣‿y e\u{301}".as_bytes();
    let found: Vec<&str> = p.find_iter(h).unwrap().map(|r| text(&h[r])).collect();
    assert_eq!(found, ["x²٣", "y", "e"]);
    let p = compile(r"\d+", NONE);
    let h = "²٣4".as_bytes();
    let found: Vec<&str> = p.find_iter(h).unwrap().map(|r| text(&h[r])).collect();
    assert_eq!(found, ["٣4"]);
}

"""``stringdtype.regex`` against Python's ``re``, element by element, on random strings and a
corpus of patterns (classes, anchors, groups, alternation, Unicode classes, flags, empty
matches, and the constructs that run through Python's ``re``); missing values, shapes,
strides, broadcasting and ``out=``; errors; linear time; threads."""

import random
import re
import threading

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    REFERENCE,
    UNSET,
    StringDType,
    is_nan,
    package_only,
    random_strings,
    run_isolated,
)

pytestmark = package_only

if not REFERENCE:
    from stringdtype import _core
    from stringdtype import regex as sre

# Characters where Python's and a regex engine's ideas of words, digits, spaces, case and
# line ends differ or are easy to get wrong.
TRICKY = [
    "a", "b", "A", "B", "z", "0", "1", "9", "_", " ", "-", ".", ",", "=", "@", "\n", "\t",
    "\r", "\x0b", "\x00", "é", "É", "ß", "ẞ", "ſ", "K", "k", "\u212a", "ı", "İ", "i", "²",
    "٣", "๑", "\u0301", "\u00a0", "\u2028", "\u3000", "中", "😀", "Σ", "σ", "ς", "ǅ",
]  # fmt: skip


def tricky_string(rng):
    return "".join(rng.choice(TRICKY) for _ in range(rng.choice([0, 1, 2, 5, 12, 13, 40])))


def corpus(seed, n=160, na_object=UNSET):
    rng = random.Random(seed)
    strings = random_strings(rng, n // 2, na_object)
    strings += [tricky_string(rng) for _ in range(n - len(strings))]
    strings += ["id=12 ok", "a\nb\n", "\n", "abc\n", "x@y z@w", "aaaa" * 10 + "b"]
    return strings


PATTERNS = [
    # literals, classes, sets
    "a", "ab", "é", "中", "\\x00", "[abc]", "[^abc]", "[a-z]+", "[]a]", "[\\]\\-]", "[^\\W\\d]",
    "\\d", "\\d+", "\\D+", "\\w+", "\\W", "\\s+", "\\S+", ".", ".+", "[\\d\\s]+", "[é-ü]+",
    # anchors
    "^a", "a$", "^$", "\\Aab", "b\\Z", "\\bk", "\\b\\w+\\b", "\\B", "\\Bb", "$", "^", "(?m)^\\w",
    "(?m)\\w$", "(?s)a.b", "a.b",
    # groups and alternation
    "(a)(b)?", "(?P<x>\\d+)-(?P<y>\\w)", "(a|b)+", "a|b|c", "ab|ac", "(?:ab)+", "(\\w)(\\d)",
    "((a)|b)+", "(a*)*b", "x(y)?z",
    # repeats
    "a{2}", "a{2,}", "a{,2}", "a{1,3}?", "\\w+?", "a*", "a??", "(?:a?b?)*", "\\d*", "",
    # flags
    "(?i)k", "(?i)ß", "(?i)ẞ", "(?i)σ", "(?i)[a-z]+", "(?i)i", "(?a)\\w+", "(?a)\\b\\w",
    "(?x) a  b # comment", "(?i:a)b", "(?-i:a)",
    # constructs left to Python's re
    "(a)\\1", "(?P<q>.)(?P=q)", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a|)*",
]  # fmt: skip

FALLBACK = ["(a)\\1", "(?P<q>.)(?P=q)", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a|)*"]

FLAGS = [
    0,
    re.IGNORECASE,
    re.MULTILINE,
    re.DOTALL,
    re.ASCII,
    re.IGNORECASE | re.ASCII,
    re.MULTILINE | re.DOTALL,
    re.VERBOSE,
]


def array(strings, dtype=None):
    return np.array(strings, dtype=dtype or StringDType())


def expected(op, compiled, s, **kw):
    if op == "search":
        return compiled.search(s) is not None
    if op == "match":
        return compiled.match(s) is not None
    if op == "fullmatch":
        return compiled.fullmatch(s) is not None
    if op == "count":
        return sum(1 for _ in compiled.finditer(s))
    if op == "findall":
        return compiled.findall(s)
    if op == "split":
        return compiled.split(s, maxsplit=kw.get("maxsplit", 0))
    if op == "sub":
        return compiled.sub(kw["repl"], s, count=kw.get("count", 0))
    if op == "extract":
        m = compiled.search(s)
        return None if m is None else m.group(kw["group"])
    raise ValueError(op)


def run(op, pattern, a, flags=0, **kw):
    if op in ("search", "match", "fullmatch", "count", "findall"):
        return getattr(sre, op)(pattern, a, flags)
    if op == "split":
        return sre.split(pattern, a, kw.get("maxsplit", 0), flags)
    if op == "sub":
        return sre.sub(pattern, kw["repl"], a, kw.get("count", 0), flags)
    if op == "extract":
        return sre.extract(pattern, a, kw["group"], flags)
    raise ValueError(op)


def check(op, pattern, strings, flags=0, **kw):
    compiled = re.compile(pattern, flags)
    got = run(op, pattern, array(strings), flags, **kw).tolist()
    want = [expected(op, compiled, s, **kw) for s in strings]
    assert len(got) == len(want)
    for s, g, w in zip(strings, got, want):
        assert g == w, (op, pattern, flags, s, g, w)


OPS = ["search", "match", "fullmatch", "count", "findall", "split"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_operation_agrees_with_re(pattern):
    strings = corpus(pattern)
    for op in OPS:
        check(op, pattern, strings)
    check("split", pattern, strings, maxsplit=2)
    for repl in ("-", "", "<\\g<0>>", "[\\n]"):
        check("sub", pattern, strings, repl=repl)
    check("sub", pattern, strings, repl="#", count=1)
    groups = re.compile(pattern).groups
    for group in {0, groups}:
        check("extract", pattern, strings, group=group)


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("pattern", ["a", "k", "ß", "^\\w+$", "\\bb", "a.b", "[a-zé]+", "σ$"])
def test_flags_agree_with_re(pattern, flags):
    strings = corpus(f"{pattern}-{flags}")
    for op in OPS:
        check(op, pattern, strings, flags)
    check("sub", pattern, strings, flags, repl="<\\g<0>>")


@pytest.mark.parametrize(
    ("pattern", "repl"),
    [
        ("(\\w+)@(\\w+)", "\\2 at \\1"),
        ("(?P<user>\\w+)@(?P<host>\\w+)", "\\g<host>/\\g<user>"),
        ("(a)|b", "[\\1]"),
        ("x*", "-"),
        ("", "|"),
        ("\\s+", "\\t"),
        ("(é+)", "\\1\\1"),
        ("(a)(b)?", "\\g<2>"),
    ],
)
def test_sub_templates_agree_with_re(pattern, repl):
    strings = corpus(repl) + ["x@y z@w", "abxd", "a b", "éé"]
    for count in (0, 1, 2, -1):
        check("sub", pattern, strings, repl=repl, count=count)


def test_sub_with_a_callable_replacement():
    strings = corpus("callable")
    a = array(strings)
    got = sre.sub(r"\d+", lambda m: str(int(m.group()) * 2), a).tolist()
    assert got == [re.sub(r"\d+", lambda m: str(int(m.group()) * 2), s) for s in strings]


@pytest.mark.parametrize("pattern", FALLBACK)
def test_constructs_the_engine_lacks_run_in_python(pattern):
    assert not sre.uses_engine(pattern)
    strings = corpus(pattern) + ["aa", "ab", "ba", "abab"]
    for op in OPS:
        check(op, pattern, strings)
    check("sub", pattern, strings, repl="<\\g<0>>")


def test_engine_runs_the_everyday_patterns():
    for pattern in ["\\d{3}-\\d{4}", "(\\w+)@(\\w+)", "(?i)^id=(\\d+)$", "\\s*,\\s*", "[aeiou]"]:
        assert sre.uses_engine(pattern), pattern


def test_findall_with_groups_gives_tuples():
    a = array(["a1b2", "", "c3"])
    assert sre.findall(r"(\w)(\d)", a).tolist() == [[("a", "1"), ("b", "2")], [], [("c", "3")]]
    assert sre.findall(r"(\w)\d", a).tolist() == [["a", "b"], [], ["c"]]


def test_extract_by_name_and_missing_values():
    a = array(["id=12", "x", "id="])
    result = sre.extract(r"id=(?P<n>\d+)?", a, "n")
    assert result.tolist() == ["12", None, None]
    assert result.dtype == StringDType(na_object=None)
    assert sre.extract(r"id=(\d+)", a, na_object="").tolist() == ["12", "", ""]


# ---------------------------------------------------------------- missing values


@pytest.mark.parametrize("flavor", FLAVORS, ids=str)
def test_missing_values(flavor):
    strings = corpus(str(flavor), 40, flavor.na_object)
    a = np.array(strings, dtype=flavor.dtype())
    na = flavor.na_object

    def per_element(op, **kw):
        # Every missing string gives a missing result (pandas' rules), whatever its kind.
        compiled = re.compile(r"(\w)\w*")
        return [
            "NA" if flavor.has_na and s is na else expected(op, compiled, s, **kw) for s in strings
        ]

    def same(got, want, missing):
        for g, w in zip(got, want):
            if w == "NA":
                assert missing(g), g
            else:
                assert g == w

    def is_na_object(g):
        return g is na or (is_nan(g) and is_nan(na))

    def checked(result, want):
        mask = _core._isna(result).tolist()
        for g, m, w in zip(result.tolist(), mask, want, strict=True):
            assert m if w == "NA" else (not m and g == w), (g, w)

    same(sre.search(r"(\w)\w*", a).tolist(), per_element("search"), lambda g: g is False)
    checked(sre.sub(r"(\w)\w*", "<\\1>", a), per_element("sub", repl="<\\1>"))
    extracted = sre.extract(r"(\w)\w*", a)
    mask = _core._isna(extracted).tolist()
    for g, m, w in zip(extracted.tolist(), mask, per_element("extract", group=1), strict=True):
        assert m if w in ("NA", None) else (not m and g == w)
    same(sre.findall(r"(\w)\w*", a).tolist(), per_element("findall"), is_na_object)
    same(sre.split(r"(\w)\w*", a).tolist(), per_element("split"), is_na_object)
    counts = sre.count(r"(\w)\w*", a)
    same(counts.tolist(), per_element("count"), is_nan)
    assert counts.dtype == (np.float64 if "NA" in per_element("count") else np.int64)


# ---------------------------------------------------- shapes, strides and out=


def test_shapes_strides_and_broadcasting():
    strings = corpus("shapes", 48)[:48]
    base = array(strings).reshape(6, 8)
    for a in (base, base.T, base[::2, 1::3], base[:, ::-1], base[0], base[0, 0, ...]):
        want = np.vectorize(lambda s: re.search(r"\w\d", s) is not None, otypes=[bool])(
            a.astype(object)
        )
        assert np.array_equal(sre.search(r"\w\d", a), want)
        subbed = np.vectorize(lambda s: re.sub(r"\s+", "_", s), otypes=[object])(a.astype(object))
        assert np.asarray(sre.sub(r"\s+", "_", a), dtype=object).tolist() == subbed.tolist()
        lists = sre.findall(r"\w", a)
        flat = [re.findall(r"\w", s) for s in np.asarray(a, dtype=object).ravel()]
        if a.ndim == 0:
            assert lists == flat[0]  # one string, one list
        else:
            assert lists.shape == a.shape
            assert list(lists.ravel()) == flat


def test_out_and_broadcasting_into_it():
    a = array(["ab", "cd", "a1"])
    out = np.zeros((2, 3), dtype=bool)
    result = sre.search("a", a, out=out)
    assert result is out
    assert out.tolist() == [[True, False, True]] * 2
    counts = np.full(3, -1, dtype=np.int64)
    sre.count(r"\w", a, out=counts)
    assert counts.tolist() == [2, 2, 2]
    target = array(["keep"] * 3)
    assert sre.sub("[a-c]", "", a, out=target) is target
    assert target.tolist() == ["", "d", "1"]
    in_place = array(["aaaaaaaaaaaaaaaaaa", "b", "(a)(a)"])
    sre.sub("(a)(a)", r"\2", in_place, out=in_place)
    assert in_place.tolist() == ["aaaaaaaaa", "b", "(a)(a)"]
    extracted = np.empty(3, dtype=StringDType(na_object=None))
    sre.extract(r"a(\d)", a, out=extracted)
    assert extracted.tolist() == [None, None, "1"]


def test_inputs_of_other_kinds():
    assert sre.search("b", "abc") is np.True_
    assert sre.count("b", ["abc", "bb"]).tolist() == [1, 2]
    assert sre.sub("b", "x", np.array(["abc", "b"])).tolist() == ["axc", "x"]
    assert sre.findall(r"\d", "a1b2") == ["1", "2"]
    assert sre.split(",", "a,b") == ["a", "b"]
    assert sre.search(re.compile("B", re.IGNORECASE), ["abc"]).tolist() == [True]


# ------------------------------------------------------------------------ errors


def test_errors_are_pythons():
    a = array(["abc"])
    for bad in ("(", "[a", "a{2,1}", "(?P<1>a)", "*"):
        with pytest.raises(re.error) as ours:
            sre.search(bad, a)
        with pytest.raises(re.error) as pythons:
            re.compile(bad)
        assert str(ours.value) == str(pythons.value)
    with pytest.raises(re.error, match="invalid group reference"):
        sre.sub("(a)", r"\2", a)
    with pytest.raises(IndexError):
        sre.sub("(a)", r"\g<nope>", a)
    with pytest.raises(IndexError):
        sre.extract("(a)", a, 2)
    with pytest.raises(IndexError):
        sre.extract("(a)", a, "nope")
    with pytest.raises(TypeError):
        sre.search(b"a", a)
    with pytest.raises(ValueError, match="flags"):
        sre.search(re.compile("a"), a, re.IGNORECASE)
    with pytest.raises(TypeError):
        sre.sub("a", 3, a)
    with pytest.raises(TypeError):
        sre.split("a", a, maxsplit=1.5)


def test_a_callable_replacement_that_raises():
    a = array(["a1", "b"])

    def boom(m):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        sre.sub(r"\d", boom, a)


def test_pattern_too_large_for_the_engine():
    with pytest.raises(ValueError, match="too large"):
        sre.search(r"(?:\w{1000}){1000}", array(["a"]))


def test_unknown_program_ids_are_refused():
    from stringdtype import _core

    with pytest.raises(ValueError, match="no regular expression program"):
        _core._regex_test(array(["a"]), 10**12)


# --------------------------------------------------------- linear time, threads


def test_no_catastrophic_backtracking():
    # Python's re takes minutes on each of these strings; the engine answers at once.
    run_isolated(
        """
        from stringdtype import regex as sre
        a = np.array(["a" * 40 + "b"] * 1000, dtype=StringDType())
        assert not sre.search(r"(a+)+$", a).any()
        assert sre.count(r"(a|aa)+c", a).sum() == 0
        assert sre.sub(r"(a+)+$", "", a)[0] == "a" * 40 + "b"
        print("ok")
        """,
        timeout=30,
    )


def test_threads_with_engine_and_python_patterns():
    strings = corpus("threads", 400)
    a = array(strings)
    patterns = [r"\w+", r"(a)\1", r"\b\w", r"(?<=a)b"]
    want = {p: [len(re.findall(p, s)) for s in strings] for p in patterns}
    errors = []

    def work(p):
        try:
            for _ in range(20):
                assert sre.count(p, a).tolist() == want[p]
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(p,)) for p in patterns * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("pattern", ["\\w+", "(\\w)(\\d)?", "\\s*,\\s*", "(,)|;", "(a)\\1", ""])
def test_flat_forms_hold_the_same_lists(pattern):
    strings = corpus(f"flat{pattern}", 60, np.nan)
    a = array(strings, StringDType(na_object=np.nan))
    for flat, lists in (
        (sre.findall_flat(pattern, a), sre.findall(pattern, a)),
        (sre.split_flat(pattern, a, 1), sre.split(pattern, a, 1)),
    ):
        parts, offsets = flat
        assert parts.dtype == StringDType(na_object=None) and offsets.dtype == np.int64
        items, bounds = parts.tolist(), offsets.tolist()
        for i, want in enumerate(lists.tolist()):
            got = items[bounds[i] : bounds[i + 1]]
            if is_nan(want):
                assert got == [None]
            else:
                assert got == [
                    x for item in want for x in (item if isinstance(item, tuple) else (item,))
                ]


@pytest.mark.parametrize("pattern", ["(\\w)(\\w)$", "(\\w)$", "\\w$", "(\\n)|(\\w)$"])
def test_lists_mix_python_and_engine_answers(pattern):
    # `$` before a final newline with another newline before it is answered by Python's
    # `re`, every other string by the engine: each list lands in its element's place.
    strings = ["ab\ncd\n", "abcd", "x\ny\n", "", "é1\n2\n", "zz", "q\n", "a\nb"] * 3
    assert sre.uses_engine(pattern)
    a = array(strings)
    compiled = re.compile(pattern)
    assert sre.findall(pattern, a).tolist() == [compiled.findall(s) for s in strings]
    assert sre.split(pattern, a).tolist() == [compiled.split(s) for s in strings]
    parts, offsets = sre.split_flat(pattern, a, 0)
    items, bounds = parts.tolist(), offsets.tolist()
    for i, s in enumerate(strings):
        assert items[bounds[i] : bounds[i + 1]] == compiled.split(s)

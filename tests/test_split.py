"""``stringdtype.strings.split``, ``rsplit``, ``split_flat`` and ``join`` against Python's
``str.split``, ``str.rsplit`` and ``str.join`` on random strings, separators, limits,
missing values and shapes."""

import random

import numpy as np
import pytest
from conftest import FLAVORS, REFERENCE, StringDType, is_nan, package_only, random_strings

pytestmark = package_only

if not REFERENCE:
    import stringdtype.strings as sds

SPACES = [" ", "  ", "\t", "\n", "\x1f", "\u00a0", "\u2028", "\u3000", "\x85"]
PIECES = ["a", "b", "ab", ",", ",,", "é", "中", "\x00", "aa", "x" * 13, "😀", "", "ß"]
SEPARATORS = [None, ",", " ", "ab", "aa", "\x00", "é", ",,", "中"]
LIMITS = [-1, 0, 1, 2, 5, None]


def corpus(seed, n=120, na_object=None, has_na=False):
    rng = random.Random(seed)
    kwargs = {"na_object": na_object} if has_na else {}
    strings = random_strings(rng, n // 2, **kwargs)
    strings += [
        "".join(rng.choice(PIECES + SPACES) for _ in range(rng.randint(0, 12)))
        for _ in range(n - len(strings))
    ]
    return strings + ["", " ", "a,b,,c,", "aaa", "  a  b  "]


def python_split(s, sep, maxsplit, right):
    maxsplit = -1 if maxsplit is None else maxsplit
    return s.rsplit(sep, maxsplit) if right else s.split(sep, maxsplit)


@pytest.mark.parametrize("sep", SEPARATORS, ids=repr)
@pytest.mark.parametrize("maxsplit", LIMITS)
def test_split_and_rsplit_agree_with_str(sep, maxsplit):
    strings = corpus(f"{sep!r}{maxsplit}")
    a = np.array(strings, dtype=StringDType())
    for right, function in ((False, sds.split), (True, sds.rsplit)):
        got = function(a, sep, maxsplit)
        assert got.dtype == object and got.shape == a.shape
        assert got.tolist() == [python_split(s, sep, maxsplit, right) for s in strings]
    parts, offsets = sds.split_flat(a, sep, -1 if maxsplit is None else maxsplit)
    assert parts.dtype == a.dtype and offsets.dtype == np.int64
    assert len(offsets) == len(strings) + 1 and offsets[0] == 0
    pieces = parts.tolist()
    for i, s in enumerate(strings):
        assert pieces[offsets[i] : offsets[i + 1]] == python_split(s, sep, maxsplit, False)
    if sep is not None:
        assert sds.join(sep, parts, offsets).tolist() == strings


@pytest.mark.parametrize("flavor", FLAVORS, ids=str)
def test_missing_values(flavor):
    strings = corpus(str(flavor), 60, flavor.na_object, flavor.has_na)
    a = np.array(strings, dtype=flavor.dtype())
    na = flavor.na_object
    lists = sds.split(a, ",").tolist()
    parts, offsets = sds.split_flat(a, ",")
    rejoined = sds.join(",", parts, offsets).tolist()
    for s, got, back in zip(strings, lists, rejoined):
        # A missing string gives a missing list, whatever its kind (pandas' rules).
        if flavor.has_na and s is na:
            assert got is na or (is_nan(got) and is_nan(na))
            assert back is na or (is_nan(back) and is_nan(na))
        else:
            text = na if s is na else s
            assert got == text.split(",")
            assert back == text


def test_shapes_and_strides():
    strings = corpus("shapes", 40)[:40]
    base = np.array(strings, dtype=StringDType()).reshape(5, 8)
    for a in (base, base.T, base[::2, ::-3]):
        got = sds.split(a)
        assert got.shape == a.shape
        want = [s.split() for s in np.asarray(a, dtype=object).ravel()]
        assert list(got.ravel()) == want
        parts, offsets = sds.split_flat(a)
        assert len(offsets) == a.size + 1
        assert parts.tolist() == [piece for pieces in want for piece in pieces]
    assert sds.split(np.array("a b", dtype=StringDType())) == ["a", "b"]
    assert sds.split(["a b", "c"]).tolist() == [["a", "b"], ["c"]]


def test_join_of_arbitrary_lists():
    parts = np.array(["a", "bb", "", "c" * 20, "é"], dtype=StringDType())
    offsets = np.array([0, 0, 2, 2, 5])
    got = sds.join("--", parts, offsets).tolist()
    assert got == ["", "a--bb", "", "--" + "c" * 20 + "--é"]
    assert sds.join("", parts, [1, 3]).tolist() == ["bb"]


def test_errors():
    a = np.array(["a,b"], dtype=StringDType())
    with pytest.raises(ValueError, match="empty separator"):
        sds.split(a, "")
    with pytest.raises(ValueError, match="empty separator"):
        sds.split_flat(a, "")
    with pytest.raises(TypeError):
        sds.split(a, 3)
    with pytest.raises(TypeError):
        sds.split(a, ",", 1.5)
    parts, _ = sds.split_flat(a, ",")
    for bad in ([0, 3], [1, 0], [-1, 1], [], [[0, 1]]):
        with pytest.raises(ValueError, match="offsets"):
            sds.join(",", parts, np.array(bad, dtype=np.int64))
    with pytest.raises(TypeError):
        sds.join(",", parts, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="1-D"):
        sds.join(",", parts.reshape(1, 2), [0, 2])


@pytest.mark.parametrize("enabled", [True, False])
def test_lists_leave_the_garbage_collector_as_it_was(enabled):
    """Lists are built with Python's cyclic collector paused; its state comes back,
    also when building fails."""
    import gc

    from stringdtype import regex as sre

    a = np.array(["a b", "c d e"] * 50, dtype=StringDType())
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert sds.split(a)[1] == ["c", "d", "e"]
        assert sre.findall(r"\w", a)[0] == ["a", "b"]
        assert gc.isenabled() == enabled
        with pytest.raises(TypeError):
            sds.split(a, maxsplit="x")
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("sep", [s for s in SEPARATORS if s is not None], ids=repr)
@pytest.mark.parametrize("flavor", FLAVORS, ids=str)
def test_partition_objects_agree_with_str(sep, flavor):
    """The pandas column's partition: a tuple per string, the ``na`` given for a missing
    value that is not a string (a string ``na_object`` is partitioned as text)."""
    from stringdtype import _core

    strings = corpus(f"{sep!r}{flavor}", 80, flavor.na_object, flavor.has_na)
    a = np.array(strings, dtype=flavor.dtype())
    marker = object()
    for right in (False, True):
        got = _core._partition_objects(a, sep, right, marker)
        assert got.dtype == object and got.shape == a.shape
        for s, value in zip(strings, got.tolist()):
            if flavor.has_na and s is flavor.na_object and not isinstance(s, str):
                assert value is marker
            else:
                assert type(value) is tuple
                assert value == (s.rpartition(sep) if right else s.partition(sep))


def test_partition_objects_shapes_and_errors():
    from stringdtype import _core

    strings = corpus("partition shapes", 40)[:40]
    base = np.array(strings, dtype=StringDType()).reshape(5, 8)
    for a in (base, base.T, base[::2, ::-3]):
        got = _core._partition_objects(a, "a", False)
        assert got.shape == a.shape
        assert got.ravel().tolist() == [s.partition("a") for s in a.ravel().tolist()]
    with pytest.raises(ValueError, match="empty separator"):
        _core._partition_objects(base, "", True)
    with pytest.raises(TypeError):
        _core._partition_objects(np.array(["a"]), "a", True)

"""StringDType as a field of a structured dtype (NumPy's own dtype refuses to be one).

Every array of one structured dtype uses the field's descriptor, so they all share its
arena: strings freed by one array are reused by the next, and the arena lives as long as
the structured dtype. Values are checked against Python lists and ``object`` fields.
"""

import pickle

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    NUMPY_RELEASE,
    NumpyStringDType,
    StringDType,
    is_nan,
    long_string,
    normalize,
    package_only,
    random_strings,
    run_isolated,
    stringdtype,
    utf8_len,
)

pytestmark = package_only

INLINE_LIMIT = 12


def structured(sd):
    return np.dtype([("i", "i8"), ("s", sd), ("t", sd)])


def as_object(dt):
    """The same layout of names with ``object`` in place of each StringDType field."""
    return np.dtype(
        [
            (name, "O" if isinstance(dt.fields[name][0], StringDType) else dt.fields[name][0])
            for name in dt.names
        ]
    )


def rows(rng, n, flavor):
    s = random_strings(rng, n, flavor.na_object)
    t = random_strings(rng, n, flavor.na_object)
    return [(k, s[k], t[k]) for k in range(n)]


def long_bytes(values):
    return sum(utf8_len(v) for v in values if isinstance(v, str) and utf8_len(v) > INLINE_LIMIT)


def test_numpys_own_dtype_refuses_to_be_a_field():
    with pytest.raises(TypeError, match="structured dtype fields"):
        np.dtype([("s", NumpyStringDType())])


@pytest.mark.parametrize("make", [np.zeros, np.empty], ids=["zeros", "empty"])
def test_new_arrays_hold_empty_strings(flavor, make):
    a = make((3, 2), dtype=structured(flavor.dtype()))
    # The dtype needs zero-filled memory, which is empty strings, np.empty included.
    assert a["s"].tolist() == a["t"].tolist() == [[""] * 2] * 3
    if make is np.zeros:
        assert a.tolist() == [[(0, "", "")] * 2] * 3
    assert type(a["s"].dtype) is StringDType


def test_array_of_tuples(flavor, rng):
    values = rows(rng, 60, flavor)
    dt = structured(flavor.dtype())
    a = np.array(values, dtype=dt)
    assert normalize(a.tolist()) == normalize(values)
    assert normalize(a.tolist()) == normalize(np.array(values, dtype=as_object(dt)).tolist())
    assert normalize(a["s"].tolist()) == normalize([r[1] for r in values])
    assert normalize(a[7].item()) == normalize(values[7])
    got = a[7]["t"]
    assert normalize(got) == normalize(values[7][2])
    if not (flavor.has_na and (got is flavor.na_object or is_nan(got))):
        assert type(got) is str


def test_field_assignment(flavor, rng):
    n = 40
    dt = structured(flavor.dtype())
    a = np.zeros(n, dtype=dt)
    model = [[0, "", ""] for _ in range(n)]
    s = random_strings(rng, n, flavor.na_object)
    a["s"] = np.array(s, dtype=flavor.dtype())  # an array
    for k in range(n):
        model[k][1] = s[k]
    t = random_strings(rng, n, flavor.na_object)
    a["t"] = t  # a list
    for k in range(n):
        model[k][2] = t[k]
    for _ in range(200):
        k = rng.randrange(n)
        value = rng.choice([long_string(rng, rng.randint(13, 300)), "short", "", "é" * 6])
        if flavor.has_na and rng.random() < 0.2:
            value = flavor.na_object
        how = rng.randrange(4)
        if how == 0:
            a["s"][k] = value
            model[k][1] = value
        elif how == 1:
            a[k] = (k, value, value)
            model[k] = [k, value, value]
        elif how == 2:
            a[k]["t"] = value  # a[k] is a view of the row
            model[k][2] = value
        else:
            a["s"][k : k + 3] = value  # a scalar broadcast
            for j in range(k, min(k + 3, n)):
                model[j][1] = value
        assert normalize(a[k].item()) == normalize(tuple(model[k]))
    assert normalize(a.tolist()) == normalize([tuple(r) for r in model])
    info = stringdtype.memory_info(a["s"])
    live = [r[1] for r in model] + [r[2] for r in model]
    assert info["string_bytes"] == long_bytes(live)


def test_copies_are_independent(flavor, rng):
    values = rows(rng, 50, flavor)
    dt = structured(flavor.dtype())
    a = np.array(values, dtype=dt)
    other = np.dtype([("i", "i4"), ("s", StringDType(**flavor.kwargs)), ("t", flavor.dtype())])
    copies = {
        "copy": a.copy(),
        "astype": a.astype(other),
        "astype_same": a.astype(dt),
        "concatenate": np.concatenate([a, a[::-1]]),
        "take": a[[3, 1, 4, 1, 5]],
    }
    expected = {
        "copy": values,
        "astype": values,
        "astype_same": values,
        "concatenate": values + values[::-1],
        "take": [values[k] for k in [3, 1, 4, 1, 5]],
    }
    # The same operations on the object field give the same rows.
    objects = np.array(values, dtype=as_object(dt))
    assert normalize(np.concatenate([objects, objects[::-1]]).tolist()) == normalize(
        expected["concatenate"]
    )
    for name, copy in copies.items():
        assert normalize(copy.tolist()) == normalize(expected[name]), name
        copy["s"] = "overwritten " + "x" * 30
        copy["t"][:] = ""
    assert normalize(a.tolist()) == normalize(values)
    assert type(copies["astype"].dtype.fields["s"][0]) is StringDType
    back = a.astype(as_object(dt)).astype(dt)
    assert normalize(back.tolist()) == normalize(values)


def sort_key(flavor):
    """Python's order for one field: missing NaN-likes last, a string na_object as its
    string (the same rules as a plain StringDType array)."""

    def key(v):
        if flavor.has_na and (v is flavor.na_object or is_nan(v)):
            return (1, "") if flavor.na_is_nan else (0, flavor.na_object)
        return (0, v)

    return key


def sortable(flavor, rng, n=80):
    """Rows in random order, with ties in ``s`` for the other fields to break."""
    values = rows(rng, n, flavor)
    values += [(k + n, s, t) for k, (_, s, t) in enumerate(values[:10])]
    rng.shuffle(values)
    return values


@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.na_object is not None], ids=str)
def test_sort_by_field(flavor, rng):
    values = sortable(flavor, rng)
    a = np.array(values, dtype=structured(flavor.dtype()))
    key = sort_key(flavor)
    # The field sorts as the plain array of its strings does.
    expected_s = sorted((r[1] for r in values), key=key)
    assert normalize(np.sort(a, order="s")["s"].tolist()) == normalize(expected_s)
    assert normalize(np.sort(a["s"]).tolist()) == normalize(expected_s)
    order = np.argsort(a, order="s")
    assert normalize(a["s"][order].tolist()) == normalize(expected_s)
    if flavor.na_is_nan:
        return  # ties between missing values: test_missing_values_tie_in_a_sort_by_field
    # NumPy breaks ties with the fields that `order` leaves out, in dtype order.
    by_s = sorted(range(len(values)), key=lambda r: (key(values[r][1]), values[r][0]))
    assert np.argsort(a, order="s", kind="stable").tolist() == by_s
    assert order.tolist() == by_s
    assert normalize(np.sort(a, order="s").tolist()) == normalize([values[r] for r in by_s])
    by_t_s = sorted(
        range(len(values)), key=lambda r: (key(values[r][2]), key(values[r][1]), values[r][0])
    )
    assert np.argsort(a, order=["t", "s"]).tolist() == by_t_s
    b = a.copy()
    b.sort(order="s")
    assert normalize(b.tolist()) == normalize([values[r] for r in by_s])


@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.na_is_nan], ids=str)
def test_missing_values_tie_in_a_sort_by_field(flavor):
    # As float NaNs do in a float64 field: np.argsort gives [3, 5, 4, 1, 2, 0] there.
    na = flavor.na_object
    values = [(5, na, ""), (1, na, ""), (3, na, ""), (2, "a", ""), (0, na, ""), (4, "a", "")]
    a = np.array(values, dtype=structured(flavor.dtype()))
    assert np.argsort(a, order="s").tolist() == [3, 5, 4, 1, 2, 0]


def test_sort_with_a_missing_value_that_is_not_nan_like_raises_as_a_plain_sort_does():
    sd = StringDType(na_object=None)
    a = np.array([(1, "b", ""), (2, None, "")], dtype=structured(sd))
    with pytest.raises(ValueError, match="nan-like"):
        np.sort(a["s"])
    with pytest.raises(ValueError, match="nan-like"):
        np.sort(a, order="s")


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(flavor, rng, protocol):
    values = rows(rng, 40, flavor)
    a = np.array(values, dtype=structured(flavor.dtype())).reshape(4, 10)
    b = pickle.loads(pickle.dumps(a, protocol=protocol))
    assert normalize(b.tolist()) == normalize(a.tolist())
    assert b.dtype.names == a.dtype.names
    assert b.dtype.fields["s"][0] == a.dtype.fields["s"][0]
    b["s"] = "changed " * 5
    assert normalize(a.reshape(-1).tolist()) == normalize(values)


@pytest.mark.xfail(
    strict=True,
    raises=ValueError,
    reason="np.save writes the field as the text of its descriptor, "
    "[('s', 'StringDType(na_object=None)')], which np.load cannot parse",
)
def test_save_and_load(tmp_path, rng):
    flavor = FLAVORS[2]  # na_object=None
    values = rows(rng, 30, flavor)
    a = np.array(values, dtype=structured(flavor.dtype()))
    np.save(tmp_path / "a.npy", a)
    b = np.load(tmp_path / "a.npy", allow_pickle=True)
    assert normalize(b.tolist()) == normalize(values)


def test_two_equal_structured_dtypes_are_equivalent_not_equal():
    # Each has its own field descriptor and so its own arena: a cast between them copies
    # the strings, never views them, and NumPy calls such dtypes unequal.
    d1, d2 = structured(StringDType()), structured(StringDType())
    assert d1 == np.dtype(d1) and d1 != d2
    assert np.can_cast(d1, d2, "equiv") and not np.can_cast(d1, d2, "no")
    a = np.array([(1, "x" * 20, "a")], dtype=d1)
    b = np.array([(2, "y" * 20, "b")], dtype=d2)
    assert np.concatenate([a, b]).tolist() == [(1, "x" * 20, "a"), (2, "y" * 20, "b")]
    a[:] = b
    assert a.tolist() == b.tolist()
    assert (a == b).all()


def test_subarray_fields_from_numpy_2_5_are_refused():
    # NumPy 2.5 refuses new-style DTypes inside subarray dtypes.
    if NUMPY_RELEASE < (2, 5):
        pytest.skip("NumPy before 2.5 allows subarray fields of this dtype")
    with pytest.raises(TypeError, match="subarray"):
        np.dtype([("m", StringDType(), (3,))])


@pytest.mark.skipif(NUMPY_RELEASE >= (2, 5), reason="NumPy 2.5 refuses subarray fields")
def test_nested_and_subarray_fields(rng):
    values = random_strings(rng, 12)
    sd = StringDType()
    a = np.zeros(2, dtype=[("n", structured(sd)), ("m", sd, (3,)), ("f", "f8")])
    a["m"] = np.array(values[:6], dtype=object).reshape(2, 3)
    a["n"]["s"] = values[6:8]
    a[1]["n"]["t"] = values[8]
    assert a["m"].tolist() == [values[0:3], values[3:6]]
    assert a["n"].tolist() == [(0, values[6], ""), (0, values[7], values[8])]
    # Sorting by a subarray field compares its elements in turn.
    b = np.sort(a, order=["f", "m"])
    assert b["m"].tolist() == sorted(a["m"].tolist())
    assert b["n"].tolist() == [r for _, r in sorted(zip(a["m"].tolist(), a["n"].tolist()))]


def test_field_view_memory_info(rng):
    values = rows(rng, 50, FLAVORS[0])
    dt = structured(StringDType())
    a = np.array(values, dtype=dt)
    plain = np.array([r[1] for r in values] + [r[2] for r in values], dtype=StringDType())
    info = stringdtype.memory_info(a["s"])
    assert info["views"] == a["s"].nbytes == 16 * len(values)
    # Both fields hold their strings in the arena of the one field descriptor.
    assert info["string_bytes"] == stringdtype.memory_info(plain)["string_bytes"]
    shared = stringdtype.memory_info(np.empty(0, dtype=dt)["t"])
    assert {k: v for k, v in shared.items() if k != "views"} == {
        k: v for k, v in info.items() if k != "views"
    }
    assert stringdtype.memory_usage(a["s"]) == info["views"] + info["arena_capacity"]


def test_memory_stays_bounded_when_the_dtype_outlives_its_arrays(rng):
    dt = structured(StringDType())

    def arena():
        return stringdtype.memory_info(np.empty(0, dtype=dt)["s"])

    strings = [long_string(rng, rng.randint(100, 400)) for _ in range(64)]
    capacity = []
    for round_ in range(2000):
        a = np.zeros(64, dtype=dt)
        a["s"] = strings
        a["t"] = strings[::-1]
        b = np.sort(a, order="s") if round_ % 10 == 0 else a.copy()
        del a, b
        capacity.append(arena()["arena_capacity"])
        assert arena()["string_bytes"] == 0
    # One array's strings twice over (a and its copy) fit in what the first rounds took;
    # a round whose last array dies with every string of the arena gives its chunks back.
    assert max(capacity) <= max(capacity[:20])
    assert capacity[-1] < 2 * 64 * 2 * 512

    a = np.zeros(64, dtype=dt)
    for k in range(20000):
        a["s"][k % 64] = strings[(k * 7) % 64]
    held = arena()["arena_capacity"]
    for k in range(20000):
        a["s"][k % 64] = strings[(k * 5) % 64]
    assert arena()["arena_capacity"] == held


def test_threads_write_rows_of_one_array():
    out = run_isolated(
        """
        import threading
        sd = StringDType(na_object=None)
        dt = np.dtype([("i", "i8"), ("s", sd), ("t", sd)])
        n, workers = 4000, 4
        a = np.zeros(n, dtype=dt)
        start = threading.Barrier(workers + 1)

        def value(r, k):
            return None if r % 17 == 0 else f"row {r} pass {k} " + "x" * (r % 40)

        def write(w):
            start.wait()
            for k in range(3):
                for r in range(w, n, workers):
                    a[r] = (r, value(r, k), value(r + 1, k))
                    a["t"][r] = value(r, k)

        def churn():
            # Arrays of the same dtype share its field's arena with `a`.
            start.wait()
            for k in range(200):
                b = np.zeros(50, dtype=dt)
                b["s"] = ["y" * (20 + j) for j in range(50)]
                assert b.copy()["s"].tolist() == ["y" * (20 + j) for j in range(50)]

        threads = [threading.Thread(target=write, args=(w,)) for w in range(workers)]
        threads.append(threading.Thread(target=churn))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        expected = [(r, value(r, 2), value(r, 2)) for r in range(n)]
        assert a.tolist() == expected, "wrong rows"
        print("ok")
        """,
        timeout=120,
    )
    assert out.split() == ["ok"]

"""NumPy functions that call a dtype's legacy ``copyswap``/``copyswapn``: NumPy leaves
them null for new-style DTypes and, before numpy#32151, calls them unchecked
(``ndarray.byteswap``, ``np.place``: a segfault, for NumPy's own StringDType too). The
package fills them in; each case runs in a child process first, so a crash fails one
test, not the suite.
"""

import numpy as np
import pytest
from conftest import (
    normalize,
    package_only,
    random_strings,
    run_isolated,
)

pytestmark = package_only


@pytest.mark.parametrize(
    "code",
    [
        "a.byteswap()",
        "a.byteswap(inplace=True)",
        "np.place(a, [True, False] * 3, ['x' * 20, 'y'])",
        "a[:1].squeeze().byteswap()",
        "np.zeros(2, dtype=[('i', 'i8'), ('s', a.dtype)]).byteswap()",
    ],
)
def test_no_crash(code):
    out = run_isolated(
        f"""
        a = np.array(["a", "b" * 20, "c" * 15, "", "d", "e" * 40], dtype=StringDType())
        {code}
        print("ok")
        """
    )
    assert out == "ok\n"


def test_byteswap_leaves_strings_as_they_are(flavor, rng):
    # Strings have no byte order (NumPy's own StringDType does the same from numpy#32150).
    values = random_strings(rng, 50, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    expected = normalize(a.tolist())
    swapped = a.byteswap()
    assert normalize(swapped.tolist()) == expected
    swapped[:] = "overwritten long string, not shared"
    assert normalize(a.tolist()) == expected
    assert a.byteswap(inplace=True) is a
    assert normalize(a.tolist()) == expected


def test_place_copies_strings_as_object_arrays_do(flavor, rng):
    from stringdtype import memory_info

    values = random_strings(rng, 60, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    reference = np.array(values, dtype=object)
    for round_ in range(20):
        mask = np.array([rng.random() < 0.4 for _ in values])
        new = random_strings(rng, rng.randint(1, 7), flavor.na_object)
        np.place(a, mask, new)
        np.place(reference, mask, np.array(new, dtype=object))
        assert normalize(a.tolist()) == normalize(reference.tolist()), round_
    # Each placed string is the element's own: overwriting the values array or the
    # elements does not touch the others, and the arena does not grow without bound.
    everything = np.ones(len(a), dtype=bool)
    for _ in range(20):
        np.place(a, everything, ["a long string that replaces " * 3])
    steady = memory_info(a)["arena_capacity"]
    for _ in range(200):
        np.place(a, everything, ["a long string that replaces " * 3])
    assert memory_info(a)["arena_capacity"] == steady
    a[0] = "first"
    assert a[1] == "a long string that replaces " * 3

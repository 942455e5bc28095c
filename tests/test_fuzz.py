"""A seeded stateful fuzz test: random sequences of writes, views, overlapping ufunc
outputs, sorts, copies and Arrow round trips on one array, checked after every step
against a Python list that models it, and against the arena's own accounting (every
element owns its string: the live long-string bytes are exactly the model's)."""

import math

import numpy as np
import pytest
from conftest import StringDType, normalize, package_only

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

pytestmark = package_only

N = 24
NA = math.nan
DT = None if StringDType is None else StringDType(na_object=NA)

ALPHABET = "aAbé日🙂\x00 xyz-"
texts = st.one_of(
    st.text(ALPHABET, max_size=14),
    st.text(ALPHABET, min_size=10, max_size=40),
    st.text(ALPHABET, min_size=100, max_size=300),
)
values = st.one_of(texts, texts, texts, st.just(NA))
positions = st.integers(0, N - 1)
masks = st.lists(st.booleans(), min_size=N, max_size=N)


def is_na(v):
    return isinstance(v, float) and math.isnan(v)


def add(x, y):
    return NA if is_na(x) or is_na(y) else x + y


def upper(x):
    return NA if is_na(x) else x.upper()


def sort_key(x):
    # NumPy's order: missing values last, strings by UTF-8 bytes (code points).
    return (1, "") if is_na(x) else (0, x)


class ArrayMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.model = [""] * N
        self.a = np.array(self.model, dtype=DT)

    @rule(i=positions, value=values)
    def set_item(self, i, value):
        self.a[i] = value
        self.model[i] = value

    @rule(start=positions, step=st.integers(1, 4), data=st.data())
    def set_slice(self, start, step, data):
        indices = range(start, N, step)
        new = data.draw(st.lists(values, min_size=len(indices), max_size=len(indices)))
        self.a[start::step] = np.array(new, dtype=DT)
        for i, v in zip(indices, new):
            self.model[i] = v

    @rule(mask=masks, value=values)
    def set_masked(self, mask, value):
        self.a[np.array(mask)] = value
        self.model = [value if m else v for m, v in zip(mask, self.model)]

    @rule(order=st.permutations(range(N)))
    def fancy_gather(self, order):
        self.a[:] = self.a[list(order)]
        self.model = [self.model[i] for i in order]

    @rule()
    def assign_reversed(self):
        self.a[:] = self.a[::-1]
        self.model = self.model[::-1]

    @rule(suffix=texts, mask=masks)
    def add_into_overlapping_output(self, suffix, mask):
        # Through stringdtype.strings: NumPy's own np.add turns a Python str operand
        # into a 'U' array, which cannot hold trailing NULs, before any dtype sees it.
        import stringdtype.strings as sds

        sds.add(self.a[::-1], suffix, out=self.a, where=np.array(mask))
        reversed_ = self.model[::-1]
        self.model = [add(r, suffix) if m else v for r, m, v in zip(reversed_, mask, self.model)]

    @rule(old=st.sampled_from(["a", "é", "日🙂", "x"]), new=texts)
    def replace(self, old, new):
        import stringdtype.strings as sds

        self.a[...] = sds.replace(self.a, old, new)
        self.model = [v if is_na(v) else v.replace(old, new) for v in self.model]

    @rule(start=st.integers(0, 3))
    def upper_through_a_view(self, start):
        import stringdtype.strings as sds

        view = self.a[start::2]
        view[...] = sds.upper(view)
        for i in range(start, N, 2):
            self.model[i] = upper(self.model[i])

    @rule()
    def sort(self):
        self.a.sort()
        self.model.sort(key=sort_key)

    @rule(i=positions, j=positions)
    def copy_element_between_views(self, i, j):
        self.a[j : j + 1] = self.a.view()[i : i + 1]
        self.model[j] = self.model[i]

    @rule()
    def arrow_round_trip(self):
        from stringdtype import from_arrow, to_arrow

        back = from_arrow(to_arrow(self.a), na_object=NA)
        assert normalize(back.tolist()) == normalize(self.model)
        self.a = back

    @rule()
    def copy(self):
        self.a = self.a.copy()

    @invariant()
    def matches_the_model(self):
        from stringdtype import memory_info

        assert normalize(self.a.tolist()) == normalize(self.model)
        long_bytes = sum(
            len(v.encode()) for v in self.model if not is_na(v) and len(v.encode()) > 12
        )
        assert memory_info(self.a)["string_bytes"] == long_bytes


TestArrayMachine = ArrayMachine.TestCase
TestArrayMachine.settings = settings(
    max_examples=150, stateful_step_count=30, derandomize=True, deadline=None
)

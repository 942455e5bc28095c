"""dask.distributed with process workers: StringDType arrays cross to the workers and back
by pickle, string ufuncs run there, and the results equal the local computation."""

import logging
import os

import numpy as np
import pytest
from conftest import StringDType, random_strings

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    # Loopback only (the dashboard on a free port): two worker processes of one thread each.
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    )
    with cluster, distributed.Client(cluster) as client:
        yield client


def test_string_ufuncs_on_process_workers(client, rng):
    values = [v for v in random_strings(rng, 400) if not v.endswith("\x00")]
    a = np.array(values, dtype=StringDType())
    x = da.from_array(a, chunks=50)
    upper = x.map_blocks(np.strings.upper, dtype=a.dtype)
    lengths = x.map_blocks(np.strings.str_len, dtype=np.int64)
    pids = x.map_blocks(lambda block: np.full(block.shape, os.getpid()), dtype=np.int64)
    got_upper, got_lengths, got_pids = client.compute([upper, lengths, pids], sync=True)
    assert type(got_upper.dtype) is StringDType
    assert got_upper.tolist() == np.strings.upper(a).tolist()
    assert got_lengths.tolist() == np.strings.str_len(a).tolist()
    # The blocks were computed in the worker processes, not here.
    workers = set(client.run(os.getpid).values())
    assert set(got_pids.tolist()) <= workers
    assert os.getpid() not in workers


def test_missing_values_cross_to_workers(client):
    a = np.array(["a", None, "a much longer string"] * 20, dtype=StringDType(na_object=None))
    x = da.from_array(a, chunks=7)
    got = client.compute(x.map_blocks(lambda block: block.copy(), dtype=a.dtype), sync=True)
    assert got.dtype == a.dtype
    assert got.tolist() == a.tolist()

"""Thread counts (``--threads``): stringdtype's pool set around a cell, polars in a child.

``stringdtype@n`` runs each of its cells with the package's pool at ``n`` threads
(``_core._set_pool_threads``), put back to what it was when the cell ends (``pinned``).

``polars@n`` cannot be run in this process: polars sizes its pool once, from
``POLARS_MAX_THREADS`` at import.  So each ``polars@n`` is a ``Child``: a Python process
started with ``POLARS_MAX_THREADS=n`` that generates the same seeded data set, builds
its own Series, reports its memory and pool size, and then times one op per request
with the same ``time_call``.  The parent asks for a row's ``polars@n`` cell at that
row's turn and waits for the answer, so the cells of a row are still timed one after
the other, seconds apart, with nothing else of the benchmark running; the requests and
answers (JSON lines over a pipe) are outside the timed calls.
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import IO, Any

from .contestants import Contestant, all_contestants, measure_memory, prepare
from .datasets import DatasetSpec, make_inputs, make_strings
from .libraries import attempt, pl, sd
from .operations import OPS
from .timing import Timing, time_call

__all__ = ["Child", "child_main", "in_child", "pinned", "pool_threads"]

POLARS_THREADS = "POLARS_MAX_THREADS"
# The child runs this rather than ``-m stringdtype.bench.threads``, which would import
# this module twice (once as part of the package, once as ``__main__``).
CHILD_MAIN = "from stringdtype.bench.threads import child_main; child_main()"


def pool_threads() -> int | None:
    """The number of threads stringdtype's pool runs now (None: a build without one)."""
    found, error = attempt(lambda: sd._core._pool_threads())
    return None if error else found


def in_child(contestant: Contestant) -> bool:
    """Whether the contestant's cells are timed in a child process (``polars@n``)."""
    return contestant.library == "polars" and contestant.threads is not None


@contextlib.contextmanager
def pinned(contestant: Contestant) -> Iterator[None]:
    """stringdtype's pool at ``contestant.threads`` within the block, then as before."""
    if contestant.library != "stringdtype" or contestant.threads is None:
        yield
        return
    core = sd._core
    before = core._pool_threads()
    core._set_pool_threads(contestant.threads)
    try:
        yield
    finally:
        core._set_pool_threads(before)


class Child:
    """A process that times one contestant's cells on its own copy of a data set.

    Started at once, so that it generates its data while the parent generates its own;
    ``ready`` waits for it.  Once the child has failed, every later cell reports why.
    """

    def __init__(self, contestant: Contestant, spec: DatasetSpec) -> None:
        self.contestant = contestant
        env = {**os.environ, POLARS_THREADS: str(contestant.threads)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD_MAIN],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )
        self.failure: str | None = None
        first = {"spec": dataclasses.asdict(spec), "contestant": contestant.library}
        self._send(first)

    def _send(self, message: dict[str, Any]) -> None:
        if self.failure is not None:
            return
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except OSError as exc:
            self.failure = f"child process gone ({type(exc).__name__})"

    def _receive(self) -> dict[str, Any]:
        if self.failure is None:
            line = self.process.stdout.readline()
            if line:
                return json.loads(line)
            self.failure = f"child process exited with code {self.process.wait()}"
        return {"error": self.failure}

    def ready(self) -> tuple[dict[str, Any] | None, str | None]:
        """The memory of the child's container, or why the child could not build it."""
        reply = self._receive()
        if reply.get("error") is not None:
            self.failure = self.failure or reply["error"]
            return None, reply["error"]
        if reply["threads"] != self.contestant.threads:
            self.failure = f"polars runs {reply['threads']} threads, not {self.contestant.threads}"
            return None, self.failure
        return reply["memory"], None

    def time(self, op: str, repeat: int, budget: float) -> Timing:
        """One cell, timed in the child as ``time_call`` times it here."""
        self._send({"op": op, "repeat": repeat, "budget": budget})
        reply = self._receive()
        return Timing(best=reply.get("best"), error=reply.get("error"))

    def close(self) -> None:
        """End the child (its input closed, it exits) and wait for it."""
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _build(library: str, spec: DatasetSpec) -> tuple[Any, dict[str, Any]]:
    contestant = next(c for c in all_contestants() if c.key == library)
    strings = make_strings(spec)
    d = prepare(contestant, make_inputs(spec, strings))
    return d, measure_memory(contestant, d)


def serve(requests: IO[str], replies: IO[str]) -> None:
    """The child's side: build the data set, then answer one request per line."""

    def reply(message: dict[str, Any]) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    first = json.loads(requests.readline())
    library = first["contestant"]
    built, error = attempt(_build, library, DatasetSpec(**first["spec"]))
    if error is not None:
        reply({"error": error})
        return
    d, memory = built
    reply({"memory": memory, "threads": pl.thread_pool_size() if pl else None})
    for line in requests:
        request = json.loads(line)
        timing = time_call(OPS[request["op"]][library], d, request["repeat"], request["budget"])
        reply({"best": timing.best, "error": timing.error})


def child_main() -> None:
    """Entry point of a child: replies on the original stdout, anything printed to stderr."""
    faulthandler.enable()
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin, replies)

"""``python -m stringdtype``: a short side-by-side demo against NumPy's StringDType.

``python -m stringdtype --help`` prints the usage; ``--version`` the versions in use.
"""

from __future__ import annotations

import argparse
import platform
import time
from importlib import metadata

import numpy as np

import stringdtype.strings as sds
from stringdtype import StringDType, memory_info


def _words(n: int, seed: int = 0) -> list[str]:
    """Generated strings: short and long, ASCII and not."""
    rng = np.random.default_rng(seed)
    alphabet = np.array(list("abcdefghijklmnopqrstuvwxyz     ") + ["é", "ß", "中", "😀"])
    lengths = rng.integers(0, 40, n)
    codes = rng.integers(0, len(alphabet), lengths.sum())
    flat = alphabet[codes]
    out, at = [], 0
    for length in lengths:
        out.append("".join(flat[at : at + length]))
        at += length
    return out


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m stringdtype",
        description=(
            "Show a StringDType array, then time common operations on generated strings "
            "against NumPy's own StringDType (np.dtypes.StringDType) on the same data."
        ),
        epilog=(
            "The full benchmark (NumPy's StringDType, U, object, pyarrow, polars): "
            "python -m stringdtype.bench --help"
        ),
    )
    parser.add_argument(
        "-n",
        "--size",
        type=int,
        default=200_000,
        metavar="N",
        help="number of generated strings to time (default: %(default)s)",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=(
            f"stringdtype {metadata.version('stringdtype')} "
            f"(NumPy {np.__version__}, {platform.python_implementation()} "
            f"{platform.python_version()})"
        ),
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.size < 1:
        raise SystemExit("python -m stringdtype: --size must be at least 1")
    demo = np.array(["apple", "a much longer string", None], dtype=StringDType(na_object=None))
    demo[0] = "pear"
    print("array:        ", repr(demo))
    print("copy[::-1]:   ", demo.copy()[::-1])
    print("astype(U20):  ", repr(demo.astype("U20")))
    print("astype(object)", repr(demo.astype(object)))
    print()

    n = args.size
    words = _words(n)
    ours = np.array(words, dtype=StringDType())
    numpy_dtype = np.dtypes.StringDType()
    theirs = np.array(words, dtype=numpy_dtype)
    order = np.random.default_rng(1).permutation(n)
    cases = {
        "create from list": (
            lambda: np.array(words, dtype=StringDType()),
            lambda: np.array(words, dtype=numpy_dtype),
        ),
        "copy": (ours.copy, theirs.copy),
        "take (shuffle)": (lambda: ours[order], lambda: theirs[order]),
        "astype(object)": (lambda: ours.astype(object), lambda: theirs.astype(object)),
        "astype('U40')": (lambda: ours.astype("U40"), lambda: theirs.astype("U40")),
        "from 'U40'": (
            lambda: ours.astype("U40").astype(StringDType()),
            lambda: theirs.astype("U40").astype(numpy_dtype),
        ),
        "a < a[::-1]": (lambda: ours < ours[::-1], lambda: theirs < theirs[::-1]),
        "a + a": (lambda: ours + ours, lambda: theirs + theirs),
        "str_len": (lambda: np.strings.str_len(ours), lambda: np.strings.str_len(theirs)),
        "strip": (lambda: np.strings.strip(ours), lambda: np.strings.strip(theirs)),
        "find('ab')": (lambda: np.strings.find(ours, "ab"), lambda: np.strings.find(theirs, "ab")),
        "replace": (
            lambda: np.strings.replace(ours, "a", "XY"),
            lambda: np.strings.replace(theirs, "a", "XY"),
        ),
        "upper": (lambda: sds.upper(ours), lambda: np.strings.upper(theirs)),
        "argsort": (lambda: np.argsort(ours), lambda: np.argsort(theirs)),
    }
    print(f"{n:,} generated strings (0-40 characters, some non-ASCII); best of 3")
    print("(upper: stringdtype.strings.upper; np.strings.upper runs str.upper per element)")
    print(f"{'operation':<18}{'stringdtype':>14}{'numpy T':>12}{'ratio':>9}")
    for name, (ours_fn, theirs_fn) in cases.items():
        t_ours, t_theirs = _best(ours_fn), _best(theirs_fn)
        print(
            f"{name:<18}{t_ours * 1e3:>11.1f} ms{t_theirs * 1e3:>9.1f} ms{t_ours / t_theirs:>8.2f}x"
        )
    info = memory_info(ours)
    print()
    print(
        f"memory held by the stringdtype array: {info['views'] + info['arena_capacity']:,} bytes "
        f"({info['views']:,} in views, {info['arena_capacity']:,} in its arena for "
        f"{info['string_bytes']:,} bytes of long strings)"
    )
    print("(for every np.strings function and more: python -m stringdtype.bench)")


if __name__ == "__main__":
    main()

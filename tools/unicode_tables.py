"""Writes the Unicode tables of the running Python as Rust source; `build.rs` runs it.

    python tools/unicode_tables.py OUT.rs

Every answer is what this interpreter's ``str`` methods give, so the extension agrees
with the ``str`` of the Python it is built for (its Unicode version and CPython's own
definitions) without calling CPython's private functions:

- the predicates (``isalpha`` ... ``isupper``) of a one-character string are CPython's
  ``Py_UNICODE_IS*`` of that code point (``islower`` and ``isupper`` have a
  one-character shortcut that asks exactly that, so they give the Lowercase and
  Uppercase properties, which need no other cased character);
- ``istitle`` of one character is "titlecase or uppercase"; titlecase itself is
  category Lt, as in CPython's ``makeunicodedata.py``, checked against ``istitle``;
- Cased and Case_Ignorable are observed where CPython uses them: ``title`` lowers a
  letter after a cased code point, and ``lower`` picks the final sigma by skipping
  case-ignorable code points around it;
- the full case mappings are ``lower``, ``upper``, ``title`` (``title`` and
  ``capitalize`` title-case a first character with the same mapping) and ``casefold``.

Layout (what ``src/unicode.rs`` reads): each code point has a record (flags and four case
mapping deltas); code points are cut into blocks of ``1 << BLOCK_SHIFT``, equal blocks are
stored once, so a lookup is ``RECORDS[RECORD_INDEX[BLOCK_INDEX[c >> BLOCK_SHIFT] <<
BLOCK_SHIFT | c & mask]]``. A mapping to several code points is marked ``MULTI`` in the
record and found in a short sorted list. The block index is decoded again for every
code point and checked before it is written.

Properties are computed block by block, each by a C loop (``map`` over a ``str`` method,
or one method call on the block's code points joined with separators): a few seconds
and a few megabytes.
"""

import itertools
import operator
import sys
import unicodedata

BLOCK_SHIFT = 8
CODE_POINTS = 0x110000

# Flag names, as `src/unicode.rs` defines them, in bit order.
FLAGS = [
    "ALPHA",
    "DECIMAL",
    "DIGIT",
    "NUMERIC",
    "SPACE",
    "LOWER",
    "UPPER",
    "TITLE",
    "CASED",
    "CASE_IGNORABLE",
]
MAPPINGS = ["lower", "upper", "title", "fold"]
MULTI = "MULTI"


def chunk_starts(lengths):
    """Where each chunk starts in a text made of chunks of these lengths."""
    return list(itertools.accumulate(lengths, initial=0))[:-1]


def cased_flags(chars, titles):
    """Cased: `title` lowers a letter after a cased character and title-cases it after
    an uncased one. Samples c + "a", separated by (uncased) spaces."""
    text = ("a ".join(chars) + "a").title()
    starts = chunk_starts(n + 2 for n in map(len, titles))
    return [text[start + len(title)] == "a" for start, title in zip(starts, titles)]


def case_ignorable_flags(chars, lowers, cased):
    """Case_Ignorable, from the final sigma rule: a capital sigma lowers to final when a
    cased character precedes it and none follows, case-ignorable ones skipped both ways.
    Spaces are neither cased nor ignorable, so they separate the samples.

    In "AΣ" + c the sigma is final when c is ignorable or uncased, in "A" + c + "Σ" when
    c is ignorable or cased: the first answers for cased c, the second for the others."""
    lengths = [n + 3 for n in map(len, lowers)]
    text = ("AΣ" + " AΣ".join(chars)).lower()
    sigma_before = [text[start + 1] for start in chunk_starts(lengths)]
    text = ("A" + "Σ A".join(chars) + "Σ").lower()
    starts = chunk_starts(lengths)
    sigma_after = [text[start + 1 + len(lower)] for start, lower in zip(starts, lowers)]
    return [
        (before if is_cased else after) == "ς"
        for before, after, is_cased in zip(sigma_before, sigma_after, cased)
    ]


def flag_columns(chars, mappings):
    """One list of booleans per flag, in `FLAGS` order."""
    lowers, _, titles, _ = mappings
    lower = list(map(str.islower, chars))
    upper = list(map(str.isupper, chars))
    title = [category == "Lt" for category in map(unicodedata.category, chars)]
    assert list(map(str.istitle, chars)) == list(map(operator.or_, title, upper)), (
        "istitle of one character is not 'category Lt or uppercase'"
    )
    cased = cased_flags(chars, titles)
    # DerivedCoreProperties.txt: Cased = Lowercase + Uppercase + Lt.
    lower_upper = map(operator.or_, lower, upper)
    assert cased == list(map(operator.or_, lower_upper, title)), "Cased"
    return [
        list(map(str.isalpha, chars)),
        list(map(str.isdecimal, chars)),
        list(map(str.isdigit, chars)),
        list(map(str.isnumeric, chars)),
        list(map(str.isspace, chars)),
        lower,
        upper,
        title,
        cased,
        case_ignorable_flags(chars, lowers, cased),
    ]


def deltas(code_points, chars, mapped, multi):
    """Per code point, `ord(mapped) - c`, or MULTI for a mapping to several code points,
    which is appended to `multi`."""
    out = [0] * len(chars)
    for i in itertools.compress(range(len(chars)), map(operator.ne, chars, mapped)):
        m = mapped[i]
        if len(m) == 1:
            out[i] = ord(m) - code_points[i]
        else:
            assert len(m) <= 3, f"U+{code_points[i]:04X}: a mapping longer than three"
            out[i] = MULTI
            multi.append((code_points[i], m))
    return out


def block_records(start, multi):
    """The record of each code point of the block at `start`; multi-code-point mappings
    are appended to the lists of `multi`."""
    code_points = range(start, start + (1 << BLOCK_SHIFT))
    chars = list(map(chr, code_points))
    mappings = [list(map(m, chars)) for m in (str.lower, str.upper, str.title, str.casefold)]
    flags = [0] * len(chars)
    for bit, column in enumerate(flag_columns(chars, mappings)):
        flags = list(map(operator.or_, flags, map(operator.lshift, column, itertools.repeat(bit))))
    columns = [
        deltas(code_points, chars, mapped, multi[name]) for name, mapped in zip(MAPPINGS, mappings)
    ]
    return list(zip(flags, *columns))


def build():
    multi = {name: [] for name in MAPPINGS}
    records = {}
    blocks = {}
    slots = []
    block_index = []
    for start in range(0, CODE_POINTS, 1 << BLOCK_SHIFT):
        block = tuple(records.setdefault(r, len(records)) for r in block_records(start, multi))
        block_index.append(blocks.setdefault(block, len(blocks)))
        slots += block
    tables = {
        "records": list(records),
        "block_index": block_index,
        "record_index": [slot for block in blocks for slot in block],
        "multi": multi,
    }
    check_block_index(tables, slots)
    return tables


def check_block_index(tables, slots):
    """Decodes the record of every code point as the Rust lookup does."""
    mask = (1 << BLOCK_SHIFT) - 1
    block_index, record_index = tables["block_index"], tables["record_index"]
    decoded = [
        record_index[block_index[c >> BLOCK_SHIFT] << BLOCK_SHIFT | c & mask]
        for c in range(CODE_POINTS)
    ]
    assert decoded == slots, "the block tables do not give back every record"


def rust_array(name, values, doc):
    width = "u8" if max(values) <= 0xFF else "u16"
    lines = [f"/// {doc}", f"static {name}: [{width}; {len(values)}] = ["]
    for start in range(0, len(values), 24):
        lines.append("    " + " ".join(f"{v}," for v in values[start : start + 24]))
    lines.append("];")
    return lines


def rust_char(c):
    return f"'\\u{{{c:x}}}'"


def rust_source(tables):
    out = [
        f"// Generated by tools/unicode_tables.py with Python {sys.version.split()[0]}.",
        "",
        "/// The Unicode version of the tables (`unicodedata.unidata_version` of the Python",
        "/// that generated them).",
        f'pub const UNICODE_VERSION: &str = "{unicodedata.unidata_version}";',
        "",
        "/// A block holds `1 << BLOCK_SHIFT` code points.",
        f"const BLOCK_SHIFT: u32 = {BLOCK_SHIFT};",
        "",
        *rust_array("BLOCK_INDEX", tables["block_index"], "The block of each run of code points."),
        "",
        *rust_array(
            "RECORD_INDEX", tables["record_index"], "The record of each code point, by block."
        ),
        "",
        "/// The distinct records.",
        f"static RECORDS: [CharRecord; {len(tables['records'])}] = [",
    ]
    for flags, *record_deltas in tables["records"]:
        names = " | ".join(name for bit, name in enumerate(FLAGS) if flags >> bit & 1) or "0"
        fields = ", ".join(f"{n}: {d}" for n, d in zip(MAPPINGS, record_deltas))
        out.append(f"    CharRecord {{ flags: {names}, {fields} }},")
    out.append("];")
    for name, entries in tables["multi"].items():
        out += [
            "",
            f"/// The `{name}` mappings to more than one code point, sorted by code point.",
            f"static {name.upper()}_MULTI: [(char, &[char]); {len(entries)}] = [",
        ]
        for c, mapping in entries:
            chars = ", ".join(rust_char(ord(m)) for m in mapping)
            out.append(f"    ({rust_char(c)}, &[{chars}]),")
        out.append("];")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/unicode_tables.py OUT.rs")
    source = rust_source(build())
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(source)


if __name__ == "__main__":
    main()

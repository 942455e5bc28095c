#!/usr/bin/env bash
# Release wheels as they are published: stripped manylinux2014 (manylinux_2_17) x86-64
# wheels for each supported CPython, built with maturin and zig (no Docker), checked with
# auditwheel, then each installed into a fresh virtual environment that has no Rust
# toolchain on PATH and tested with the test suite run from a copy of tests/ (so the
# installed wheel is imported, never the source tree), after the README's demo. Then the
# sdist, built, installed (which compiles it) and tested the same way.
#
#   tools/build_wheels.sh              # every supported Python, 3.10 to 3.15
#   tools/build_wheels.sh 3.12 3.13    # only these
#
# CPython 3.14 and 3.15, where this machine lacks them, come from tools/newer_pythons.sh:
# this script runs itself there for those wheels, after the others. Run there
# (NEWER_PYTHONS=1), it builds and tests wheels only and adds them to dist/.
#
# Output: dist/ (wheels and sdist). Tools (maturin, ziglang, auditwheel) are installed
# into .nox/wheel-tools/, builds go to target/release-wheels/ (both with a -newer-pythons
# suffix inside tools/newer_pythons.sh, whose glibc is newer). Exits non-zero on the first
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=$ROOT/dist
TOOLS=$ROOT/.nox/wheel-tools
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

INSIDE=${NEWER_PYTHONS:+-newer-pythons}
TOOLS=$TOOLS$INSIDE

PYTHONS=("$@")
if [ ${#PYTHONS[@]} -eq 0 ]; then
    PYTHONS=(3.10 3.11 3.12 3.13 3.14 3.15)
fi

# The interpreter for version $1: python3.X on PATH if it runs, else pyenv's install.
find_python() {
    local name=python$1
    if "$name" -c "" >/dev/null 2>&1; then
        command -v "$name"
        return
    fi
    local found
    found=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/"$name" 2>/dev/null | sort -V | tail -1)
    if [ -z "$found" ]; then
        echo "no Python $1 found" >&2
        return 1
    fi
    echo "$found"
}

step() { printf '\n==> %s\n' "$*"; }

# Interpreters first, before the tools' environment comes first on PATH. The versions this
# machine lacks that tools/newer_pythons.sh has are built there (NEWER).
HERE=()
INTERPRETERS=()
NEWER=()
for version in "${PYTHONS[@]}"; do
    if [ -z "$INSIDE" ] && [[ $version == 3.1[45] ]] && ! find_python "$version" >/dev/null 2>&1; then
        NEWER+=("$version")
    else
        HERE+=("$version")
        INTERPRETERS+=("$(find_python "$version")")
    fi
done

step "tools in $TOOLS"
# Inside tools/newer_pythons.sh there is no python3, only python3.14 and python3.15.
"${INTERPRETERS[0]:-python3}" -m venv "$TOOLS"
"$TOOLS/bin/pip" install -q --upgrade "maturin>=1.5,<2" ziglang auditwheel
export PATH="$TOOLS/bin:$PATH"
# A target folder of its own: zig-linked artifacts would otherwise replace the ones that
# development builds and the test matrix keep in target/.
export CARGO_TARGET_DIR=$ROOT/target/release-wheels$INSIDE

if [ -z "$INSIDE" ]; then
    rm -rf "$DIST"
fi
mkdir -p "$DIST"

# Run the test suite with `python` from a fresh environment, from a folder holding a copy
# of tests/, with nothing but the environment and the system on PATH.
test_installed() {
    local venv=$1
    rm -rf "$WORK/run"
    mkdir -p "$WORK/run"
    cp -r "$ROOT/tests" "$WORK/run/tests"
    # pytest's configuration, and a root there, so test ids match the source tree's.
    cp "$ROOT/pyproject.toml" "$WORK/run/"
    (
        cd "$WORK/run"
        env PATH="$venv/bin:/usr/bin:/bin" bash -c '
            set -e
            if command -v cargo || command -v rustc; then
                echo "a Rust toolchain is on PATH" >&2; exit 1
            fi
            python -c "import numpy, stringdtype; print(\"NumPy\", numpy.__version__, \"| stringdtype from\", stringdtype.__file__)"
            python -m pytest -q -p no:cacheprovider tests
        '
    )
}

# The README's demo, as a new user runs it: the wheel alone installed (no test extras) into
# a fresh environment, with nothing but that environment and the system on PATH.
run_demo() {
    local python=$1 wheel=$2
    rm -rf "$WORK/demo"
    "$python" -m venv "$WORK/demo"
    (
        cd "$WORK"
        env PATH="$WORK/demo/bin:/usr/bin:/bin" bash -c '
            set -e
            pip install -q "$1"
            python -m stringdtype
        ' demo "$wheel"
    )
}

for i in "${!HERE[@]}"; do
    version=${HERE[$i]}
    python=${INTERPRETERS[$i]}
    tag=cp${version/./}
    step "wheel for CPython $version ($python)"
    maturin build --release --strip --zig --compatibility manylinux2014 -i "$python" -o "$DIST"
    wheel=$(ls "$DIST"/stringdtype-*-"$tag"-"$tag"-manylinux*_x86_64.whl)

    step "auditwheel show $(basename "$wheel")"
    auditwheel show "$wheel" | tee "$WORK/audit.txt"
    grep -q '"manylinux_2_17_x86_64"' "$WORK/audit.txt"

    # .cargo/config.toml builds for x86-64-v2; the zig build keeps its rustflags (same
    # target triple), which shows as POPCNT in the byte-parallel kernels.
    rm -rf "$WORK/unpacked"
    mkdir "$WORK/unpacked"
    (cd "$WORK/unpacked" && "$python" -m zipfile -e "$wheel" .)
    so=$(ls "$WORK/unpacked"/stringdtype/_core*.so)
    popcnt=$(objdump -d "$so" | grep -c popcnt || true)
    echo "$(basename "$so"): $(stat -c %s "$so") bytes, $popcnt POPCNT instructions, $(file -b "$so" | grep -o 'not stripped\|stripped')"
    [ "$popcnt" -gt 0 ]

    step "install $(basename "$wheel") alone with no Rust on PATH, run python -m stringdtype"
    run_demo "$python" "$wheel"

    step "install $(basename "$wheel") with no Rust on PATH, run the tests"
    rm -rf "$WORK/venv"
    "$python" -m venv "$WORK/venv"
    env PATH="$WORK/venv/bin:/usr/bin:/bin" pip install -q "$wheel[test]"
    test_installed "$WORK/venv"
done

if [ ${#NEWER[@]} -gt 0 ]; then
    step "the wheels for CPython ${NEWER[*]}, inside tools/newer_pythons.sh"
    "$ROOT/tools/newer_pythons.sh" "$ROOT/tools/build_wheels.sh" "${NEWER[@]}"
fi
if [ -n "$INSIDE" ]; then
    exit 0
fi

step "sdist"
maturin sdist -o "$DIST"
sdist=$(ls "$DIST"/stringdtype-*.tar.gz)
step "install $(basename "$sdist") (compiles it), run the tests"
rm -rf "$WORK/venv"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$sdist[test]"
test_installed "$WORK/venv"

step "built"
ls -l "$DIST"

//! Generates the extension's Unicode tables (see `src/unicode.rs`) with the Python it is
//! built for: `PYO3_PYTHON` (set by maturin), else `python3` on the `PATH`.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const GENERATOR: &str = "tools/unicode_tables.py";

fn main() {
    println!("cargo:rerun-if-changed={GENERATOR}");
    println!("cargo:rerun-if-env-changed=PYO3_PYTHON");
    let python = env::var_os("PYO3_PYTHON").unwrap_or_else(|| "python3".into());
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out =
        PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("unicode_tables.rs");
    let status = Command::new(&python)
        .arg(manifest_dir.join(GENERATOR))
        .arg(&out)
        .status()
        .unwrap_or_else(|err| panic!("cannot run {python:?} for {GENERATOR}: {err}"));
    assert!(status.success(), "{python:?} {GENERATOR} failed: {status}");
}

//! The catalog: one table of the ufuncs of the package's own on `stringdtype._core`, each
//! with its name, the NumPy release whose `numpy._core.umath` has a ufunc of that name
//! (if any), its number of inputs, its loops and its docstring. Registration reads it,
//! and `_core._catalog()` hands it to Python, where `stringdtype.strings`, `_backports`
//! and the stub test take their lists of names from it.

use std::ffi::{c_int, CStr};

use pyo3::prelude::*;

use super::basic::{isna_loop, str_len_nan_loop};
use super::case::{case_loop, encode_loop, nbytes_loop, translate_loop};
use super::case::{Capitalize, Casefold, Lower, Swapcase, Title, Upper};
use super::regex::{count_loop, count_nan_loop, extract_loop, sub_loop, test_loop};
use super::registry::{new_ufunc, register, register_on, Dt, LoopDef};
use super::search::{find_loop, isascii_loop, Count, Find, Index, RFind, RIndex};
use super::transform::{join_chars_loop, slice_loop, slice_replace_loop};
use crate::ffi::StridedLoop;
use crate::numpy_version::{rules, Release};

const T: Dt = Dt::Ours;
const I: Dt = Dt::Int64;
const F: Dt = Dt::Float64;

/// A ufunc of the package's own.
pub struct OwnUfunc {
    /// Its name. A public one is also the name of the function of `stringdtype.strings`
    /// that wraps it; a private one of a NumPy ufunc is the name of that function with a
    /// leading underscore.
    name: &'static CStr,
    /// The first NumPy release whose `numpy._core.umath` has a ufunc of this name (one
    /// that `np.strings` calls): from it on the loops go on NumPy's ufunc and
    /// `stringdtype._core` has none of that name.
    numpy_since: Option<Release>,
    nin: c_int,
    /// Its loops: the DTypes (inputs, then outputs) and the loop.
    loops: &'static [(&'static [Dt], StridedLoop)],
    /// Whether `out=` may be given (NumPy's StringDType refuses it for some ufuncs).
    out_allowed: bool,
    doc: &'static CStr,
}

impl OwnUfunc {
    const fn new(
        name: &'static CStr,
        nin: c_int,
        loops: &'static [(&'static [Dt], StridedLoop)],
        doc: &'static CStr,
    ) -> OwnUfunc {
        OwnUfunc {
            name,
            numpy_since: None,
            nin,
            loops,
            out_allowed: true,
            doc,
        }
    }

    /// The same ufunc, which NumPy has from `release` on.
    const fn numpy_since(self, release: Release) -> OwnUfunc {
        OwnUfunc {
            numpy_since: Some(release),
            ..self
        }
    }

    /// The same ufunc, refusing `out=` as NumPy's StringDType does for NumPy's.
    const fn without_out(self) -> OwnUfunc {
        OwnUfunc {
            out_allowed: false,
            ..self
        }
    }

    fn name(&self) -> &'static str {
        self.name.to_str().expect("ASCII")
    }

    fn nout(&self) -> usize {
        self.loops[0].0.len() - self.nin as usize
    }

    /// Whether the running NumPy has a ufunc of this name.
    fn numpy_has(&self) -> bool {
        self.numpy_since
            .is_some_and(|since| rules().at_least(since))
    }

    fn loop_defs(&self) -> impl Iterator<Item = LoopDef> + '_ {
        self.loops.iter().map(|&(dtypes, strided)| {
            let def = LoopDef::new(self.name(), dtypes, strided);
            if self.out_allowed {
                def
            } else {
                def.without_out()
            }
        })
    }
}

const PANDAS_NAN: &CStr =
    c"A search with float64 results, NaN for a missing value (pandas' policy).";

/// Every ufunc of the package's own.
const CATALOG: &[OwnUfunc] = &[
    // Case conversions, which NumPy runs per element in Python.
    OwnUfunc::new(
        c"upper",
        1,
        &[(&[T, T], case_loop::<Upper>)],
        c"Element-wise str.upper.",
    ),
    OwnUfunc::new(
        c"lower",
        1,
        &[(&[T, T], case_loop::<Lower>)],
        c"Element-wise str.lower.",
    ),
    OwnUfunc::new(
        c"swapcase",
        1,
        &[(&[T, T], case_loop::<Swapcase>)],
        c"Element-wise str.swapcase.",
    ),
    OwnUfunc::new(
        c"capitalize",
        1,
        &[(&[T, T], case_loop::<Capitalize>)],
        c"Element-wise str.capitalize.",
    ),
    OwnUfunc::new(
        c"title",
        1,
        &[(&[T, T], case_loop::<Title>)],
        c"Element-wise str.title.",
    ),
    OwnUfunc::new(
        c"casefold",
        1,
        &[(&[T, T], case_loop::<Casefold>)],
        c"Element-wise str.casefold.",
    ),
    // `str.isascii`, which NumPy's strings lack; bool, missing as the other predicates.
    OwnUfunc::new(
        c"isascii",
        1,
        &[(&[T, Dt::Bool], isascii_loop)],
        c"Element-wise str.isascii.",
    ),
    // `str.translate`: a string and the int64 id of a `translate::TranslateTable`.
    OwnUfunc::new(
        c"_translate",
        2,
        &[(&[T, I, T], translate_loop)],
        c"Each string translated by a translate table (str.translate).",
    ),
    // The two halves of UTF-8 `encode`: the `S` output's width, then its bytes.
    OwnUfunc::new(
        c"_utf8_nbytes",
        1,
        &[(&[T, I], nbytes_loop)],
        c"UTF-8 byte length of each string.",
    ),
    OwnUfunc::new(
        c"_encode_utf8",
        1,
        &[(&[T, Dt::Bytes], encode_loop)],
        c"UTF-8 bytes into a given S array.",
    ),
    // Regular expressions: a string and the int64 id of a `regex::RegexProgram`.
    OwnUfunc::new(
        c"_regex_test",
        2,
        &[(&[T, I, Dt::Bool], test_loop)],
        c"Whether each string matches a regex program (search, match or fullmatch).",
    ),
    OwnUfunc::new(
        c"_regex_count",
        2,
        &[(&[T, I, I], count_loop)],
        c"The number of matches of a regex program in each string.",
    ),
    OwnUfunc::new(
        c"_regex_count_nan",
        2,
        &[(&[T, I, F], count_nan_loop)],
        c"_regex_count with float64 results, NaN for a missing value (pandas' policy).",
    ),
    OwnUfunc::new(
        c"_regex_sub",
        2,
        &[(&[T, I, T], sub_loop)],
        c"Each string with the matches of a regex program replaced.",
    ),
    OwnUfunc::new(
        c"_regex_extract",
        2,
        &[(&[T, I, T], extract_loop)],
        c"A group of the first match of a regex program in each string.",
    ),
    // What pandas' policy (`missing::Policy`) needs: whether each element is missing,
    // and float64 twins of the count results, NaN for a missing value.
    OwnUfunc::new(
        c"_isna",
        1,
        &[(&[T, Dt::Bool], isna_loop)],
        c"Whether each element is a missing value.",
    ),
    OwnUfunc::new(
        c"_str_len_nan",
        1,
        &[(&[T, F], str_len_nan_loop)],
        c"str_len with float64 results, NaN for a missing value (pandas' policy).",
    ),
    OwnUfunc::new(
        c"_find_nan",
        4,
        &[(&[T, T, I, I, F], find_loop::<Find, f64>)],
        PANDAS_NAN,
    ),
    OwnUfunc::new(
        c"_rfind_nan",
        4,
        &[(&[T, T, I, I, F], find_loop::<RFind, f64>)],
        PANDAS_NAN,
    ),
    OwnUfunc::new(
        c"_index_nan",
        4,
        &[(&[T, T, I, I, F], find_loop::<Index, f64>)],
        PANDAS_NAN,
    ),
    OwnUfunc::new(
        c"_rindex_nan",
        4,
        &[(&[T, T, I, I, F], find_loop::<RIndex, f64>)],
        PANDAS_NAN,
    ),
    OwnUfunc::new(
        c"_count_nan",
        4,
        &[(&[T, T, I, I, F], find_loop::<Count, f64>)],
        PANDAS_NAN,
    ),
    // pandas' `str.slice_replace` in one pass (`stringdtype.strings.slice_replace`).
    OwnUfunc::new(
        c"_slice_replace",
        4,
        &[(&[T, I, I, T, T], slice_replace_loop)],
        c"Element-wise pandas' str.slice_replace: a[:start] + repl + a[max(start, stop):].",
    ),
    // pandas' `str.join` of strings: `sep.join(a)` (`stringdtype.strings.join_chars`).
    OwnUfunc::new(
        c"_join_chars",
        2,
        &[(&[T, T, T], join_chars_loop)],
        c"Element-wise sep.join(a): the characters of a with sep between each two.",
    ),
    // Private ufuncs of `np.strings` that NumPy added after its oldest supported release.
    OwnUfunc::new(
        c"_slice",
        4,
        &[(&[T, I, I, I, T], slice_loop)],
        c"Element-wise a[start:stop:step].",
    )
    .numpy_since((2, 3))
    .without_out(),
];

/// Registers the loops of every entry: on NumPy's ufunc of its name where the running
/// NumPy has one, else on a new ufunc of the package's own, added to `module`.
pub fn register_all(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    for entry in CATALOG {
        if entry.numpy_has() {
            for def in entry.loop_defs() {
                register(py, &def)?;
            }
            continue;
        }
        let nout = entry.nout() as c_int;
        let ufunc = new_ufunc(py, entry.name, entry.doc, entry.nin, nout)?;
        for def in entry.loop_defs() {
            register_on(py, &ufunc, &def)?;
        }
        module.add(entry.name(), ufunc)?;
    }
    Ok(())
}

/// `_catalog()`: the catalog as `(name, numpy_since, nin, nout, doc)` tuples, where
/// `numpy_since` is the first NumPy release (`(major, minor)`) whose `numpy._core.umath`
/// has the ufunc, or `None`; `stringdtype._core` has every ufunc that the running NumPy
/// lacks.
#[pyfunction]
pub fn _catalog() -> Vec<(&'static str, Option<Release>, c_int, usize, &'static str)> {
    CATALOG
        .iter()
        .map(|entry| {
            let doc = entry.doc.to_str().expect("UTF-8");
            (
                entry.name(),
                entry.numpy_since,
                entry.nin,
                entry.nout(),
                doc,
            )
        })
        .collect()
}

//! Functions whose result per element is a list of strings (`split`, `rsplit`, and the
//! regex `findall` and `split`): in Arrow's list layout, one 1-D StringDType array of
//! every element's items and int64 offsets (element `i`'s items are
//! `parts[offsets[i]:offsets[i + 1]]`), or an object array of Python lists; and `join`,
//! which puts lists of the first form back together; and pandas' `partition` as an object
//! array of tuples, made the same way as the lists. The element loops run with the
//! GIL released and put each element's list into a [`sink::ListSink`]: [`flat`] builds
//! the first form, [`objects`] the second (its `str` objects made afterwards, with no
//! lock held, as are the lists of the regex elements that only Python's `re` answers).

mod flat;
mod objects;
mod sink;

use std::ops::Range;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::kernels::{split, Parts, Separator, SplitAt};
use stringdtype_core::{Arena, View};

use flat::{merge_python_lists, FlatLists};
use objects::{RowObject, TextLists};
use sink::{out_of_memory, Answers, ListSink};

use crate::descr::{new_descr, DescrState, StringDescr};
use crate::error::CoreResultExt;

use crate::loops::reserve;
use crate::missing::{self, ops};
use crate::ndarray::{array_from_views, int64_vector, Elements};
use crate::regex::{Program, RegexProgram};
use crate::unicode::tables;

/// How a list function returns its lists.
enum Form<'py> {
    /// `(parts, offsets)`.
    Flat,
    /// An object array of lists (see `TextLists::into_objects`).
    Objects {
        shape: Bound<'py, PyAny>,
        na: Bound<'py, PyAny>,
        group: usize,
    },
}

impl<'py> Form<'py> {
    /// The form for `objects` (else flat) with `array`'s shape, `na` for missing elements
    /// and tuples of `group` items.
    fn new(
        array: &Bound<'py, PyAny>,
        objects: bool,
        na: Option<Bound<'py, PyAny>>,
        group: usize,
    ) -> PyResult<Form<'py>> {
        Ok(if objects {
            Form::Objects {
                shape: array.getattr("shape")?,
                na: na.unwrap_or_else(|| array.py().None().into_bound(array.py())),
                group,
            }
        } else {
            Form::Flat
        })
    }
}

/// A fresh descriptor as a Python object.
fn owned_descr(py: Python<'_>, descr: *mut crate::ffi::PyArray_Descr) -> Bound<'_, PyAny> {
    // SAFETY: `new_descr` and `clone_params` return a new reference.
    unsafe { Bound::from_owned_ptr(py, descr.cast()) }
}

/// _split(array, sep, maxsplit, right, objects=False, na=None)
/// --
///
/// ``str.split(sep, maxsplit)`` (``str.rsplit`` if ``right``) of every element of
/// ``array`` in C order: ``(parts, offsets)``, the pieces in one 1-D array of ``array``'s
/// dtype and int64 offsets (a missing value that is not a string is one missing piece);
/// or, if ``objects``, an object array of ``array``'s shape holding lists (``na`` for a
/// missing value that is not a string).
#[pyfunction]
#[pyo3(signature = (array, sep, maxsplit, right, objects=false, na=None))]
pub fn _split<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    sep: Option<&str>,
    maxsplit: i64,
    right: bool,
    objects: bool,
    na: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let form = Form::new(array, objects, na, 1)?;
    let descr = StringDescr::of_ndarray(array, "split")?;
    let at = match sep {
        None => SplitAt::Whitespace,
        Some(sep) => {
            let sep = Separator::new(sep.as_bytes())
                .ok_or_else(|| PyValueError::new_err("empty separator"))?;
            SplitAt::Separator(Box::new(sep))
        }
    };
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let rows = elements.len();
    match &form {
        Form::Objects { shape, na, group } => {
            let mut lists = TextLists::with_rows(rows)?;
            py.detach(|| split_all(&mut lists, state, &elements, &at, maxsplit, right))?;
            lists.into_objects(py, shape, na, RowObject::List(*group), Vec::new())
        }
        Form::Flat => {
            let mut flat = FlatLists::with_rows(rows)?;
            py.detach(|| split_all(&mut flat, state, &elements, &at, maxsplit, right))?;
            flat.into_flat(py, &owned_descr(py, descr.clone_params(py)?))
        }
    }
}

/// Puts the pieces of `str.split` (`str.rsplit` if `right`) of each of `elements` into
/// `lists`.
fn split_all<L: ListSink>(
    lists: &mut L,
    state: &DescrState,
    elements: &Elements,
    at: &SplitAt<'_>,
    maxsplit: i64,
    right: bool,
) -> PyResult<()> {
    cut_all(lists, state, elements, |s, pieces| {
        split(s, at, maxsplit, right, tables(), pieces)
    })
}

/// Puts the pieces that `cut(s, pieces)` appends (byte ranges of `s`) for each string `s`
/// of `elements` into `lists`, a missing value that is not a string as a missing list.
fn cut_all<L: ListSink>(
    lists: &mut L,
    state: &DescrState,
    elements: &Elements,
    mut cut: impl FnMut(&[u8], &mut Vec<Range<usize>>),
) -> PyResult<()> {
    let lists_rule = missing::rule(&state.na, ops::LISTS, "");
    let arena = state.arena.read();
    let mut pieces = Vec::new();
    for view in elements.views() {
        let Some(s) = lists_rule.operand(&view, &arena)? else {
            lists.push_missing()?;
            continue;
        };
        pieces.clear();
        cut(s, &mut pieces);
        lists.push_pieces(s, &pieces)?;
        lists.end_element()?;
    }
    Ok(())
}

/// _partition_objects(array, sep, right, na=None)
/// --
///
/// ``str.partition(sep)`` (``str.rpartition`` if ``right``) of every element of ``array``:
/// an object array of ``array``'s shape holding each element's three parts as a tuple of
/// ``str`` (``na`` for a missing value that is not a string), made from one copy of the
/// text with no Python object per part but the parts themselves.
#[pyfunction]
#[pyo3(signature = (array, sep, right, na=None))]
pub fn _partition_objects<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    sep: &str,
    right: bool,
    na: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let Form::Objects { shape, na, .. } = Form::new(array, true, na, 1)? else {
        unreachable!("asked for objects");
    };
    let descr = StringDescr::of_ndarray(array, "partition")?;
    let sep =
        Separator::new(sep.as_bytes()).ok_or_else(|| PyValueError::new_err("empty separator"))?;
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let mut lists = TextLists::with_rows(elements.len())?;
    py.detach(|| {
        cut_all(&mut lists, state, &elements, |s, pieces| {
            let parts = if right {
                sep.rpartition(s)
            } else {
                sep.partition(s)
            };
            pieces.extend(part_ranges(parts));
        })
    })?;
    lists.into_objects(py, &shape, &na, RowObject::Tuple, Vec::new())
}

/// The byte ranges of `parts` in the string they were cut from.
#[inline]
fn part_ranges(parts: Parts<'_>) -> [Range<usize>; 3] {
    let head = parts.head.len();
    let tail = head + parts.sep.len();
    [0..head, head..tail, tail..tail + parts.tail.len()]
}

/// The int64 offsets of a `join` call, checked against `parts` items: a 1-D,
/// C-contiguous int64 array, non-decreasing from 0 or more to at most `parts`.
fn read_offsets(offsets: &Bound<'_, PyAny>, parts: usize) -> PyResult<Vec<i64>> {
    let values = int64_vector(offsets, "offsets")?;
    let ordered = values.windows(2).all(|w| w[0] <= w[1]);
    let in_range = values.first().is_none_or(|&first| first >= 0)
        && values
            .last()
            .is_none_or(|&last| last as u64 <= parts as u64);
    if values.is_empty() || !ordered || !in_range {
        return Err(PyValueError::new_err(format!(
            "offsets must be non-decreasing, start at 0 or more and end at most at the \
             number of parts ({parts}), with at least one entry"
        )));
    }
    Ok(values)
}

/// _join_flat(sep, parts, offsets)
/// --
///
/// ``sep.join(parts[offsets[i]:offsets[i + 1]])`` for each ``i``, as a 1-D array of
/// ``parts``' dtype; a list with a missing item that is not a string is missing.
#[pyfunction]
pub fn _join_flat<'py>(
    py: Python<'py>,
    sep: &str,
    parts: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let descr = StringDescr::of_ndarray(parts, "join")?;
    if parts.getattr("ndim")?.extract::<usize>()? != 1 {
        return Err(PyValueError::new_err("parts must be a 1-D array"));
    }
    let elements = Elements::of(parts, descr);
    let offsets = read_offsets(offsets, elements.len())?;
    let state = descr.state();
    let sep = sep.as_bytes();
    let (views, arena) = py.detach(|| {
        let lists_rule = missing::rule(&state.na, ops::LISTS, "");
        let source = state.arena.read();
        let items: Vec<View> = elements.views().collect();
        let mut arena = Arena::new();
        let mut views = Vec::new();
        views
            .try_reserve(offsets.len() - 1)
            .map_err(|_| out_of_memory())?;
        let mut scratch = Vec::new();
        for w in offsets.windows(2) {
            scratch.clear();
            let mut missing = false;
            for (k, view) in items[w[0] as usize..w[1] as usize].iter().enumerate() {
                let Some(item) = lists_rule.operand(view, &source)? else {
                    missing = true;
                    break;
                };
                reserve(&mut scratch, sep.len() + item.len())?;
                if k > 0 {
                    scratch.extend_from_slice(sep);
                }
                scratch.extend_from_slice(item);
            }
            views.push(if missing {
                View::NA
            } else {
                arena.store(&scratch).py()?
            });
        }
        Ok::<_, PyErr>((views, arena))
    })?;
    array_from_views(py, &owned_descr(py, descr.clone_params(py)?), &views, arena)
}

/// _regex_lists(program, array, objects=False, na=None, group=1)
/// --
///
/// The items of a ``findall`` or ``split`` regex program for every element of ``array``
/// in C order, in the forms of ``_split``; flat ``parts`` have
/// ``StringDType(na_object=None)`` (``re.split`` gives ``None`` for a group that did not
/// take part), object lists hold tuples of ``group`` items when ``group > 1``. A NaN-like
/// missing value is one missing item (or ``na``); a missing value that is neither
/// NaN-like nor a string is an error.
#[pyfunction]
#[pyo3(signature = (program, array, objects=false, na=None, group=1))]
pub fn _regex_lists<'py>(
    py: Python<'py>,
    program: &Bound<'py, RegexProgram>,
    array: &Bound<'py, PyAny>,
    objects: bool,
    na: Option<Bound<'py, PyAny>>,
    group: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let form = Form::new(array, objects, na, group)?;
    let descr = StringDescr::of_ndarray(array, "findall")?;
    let program = program.get().program()?;
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let ask_python = |pending: Vec<(usize, Vec<u8>)>| {
        pending
            .into_iter()
            .map(|(i, s)| Ok((i, program.call_python(&s, |r| r.extract())?)))
            .collect::<PyResult<Answers>>()
    };
    let rows = elements.len();
    match &form {
        Form::Objects { shape, na, group } => {
            let mut lists = TextLists::with_rows(rows)?;
            let pending = py.detach(|| regex_items(&mut lists, state, &elements, &program))?;
            lists.into_objects(py, shape, na, RowObject::List(*group), ask_python(pending)?)
        }
        Form::Flat => {
            let mut flat = FlatLists::with_rows(rows)?;
            let pending = py.detach(|| regex_items(&mut flat, state, &elements, &program))?;
            let answers = ask_python(pending)?;
            let flat = if answers.is_empty() {
                flat
            } else {
                merge_python_lists(flat, answers)?
            };
            let descr = new_descr(py, Some(&py.None().into_bound(py)), true)?;
            flat.into_flat(py, &owned_descr(py, descr))
        }
    }
}

/// Puts the items of `program` for each of `elements` into `lists`, and returns the
/// elements (index and text) the engine does not answer, to ask Python's `re` with no
/// lock held; their lists are left empty.
fn regex_items<L: ListSink>(
    lists: &mut L,
    state: &DescrState,
    elements: &Elements,
    program: &Program,
) -> PyResult<Vec<(usize, Vec<u8>)>> {
    let regex_rule = missing::rule(&state.na, ops::REGEX, "");
    let arena = state.arena.read();
    let mut pending = Vec::new();
    for (i, view) in elements.views().enumerate() {
        let Some(s) = regex_rule.operand(&view, &arena)? else {
            lists.push_missing()?;
            continue;
        };
        if !program.items(s, |item| lists.push_item(item))? {
            pending.push((i, s.to_vec()));
        }
        lists.end_element()?;
    }
    Ok(pending)
}

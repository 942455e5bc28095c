//! Functions whose result per element is a list of strings (`split`, `rsplit`, and the
//! regex `findall` and `split`), in Arrow's list layout: one 1-D StringDType array of
//! every element's items and int64 offsets (element `i`'s items are
//! `parts[offsets[i]:offsets[i + 1]]`); and `join`, which puts such lists back together.
//! The work runs with the GIL released, except the regex elements that only Python's
//! `re` answers, which run afterwards with no lock held.

use std::ops::Range;

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stringdtype_core::kernels::{split, Separator, SplitAt};
use stringdtype_core::{Arena, View};

use crate::descr::{new_descr, DescrState, NaKind, StringDescr};
use crate::element::{decode, decode_ascii};
use crate::error::CoreResultExt;
use crate::ffi::PyArrayObject_fields;
use crate::loops::reserve;
use crate::ndarray::{array_from_views, numpy_array, Elements};
use crate::regex::{Program, RegexProgram};
use crate::unicode::tables;

fn out_of_memory() -> PyErr {
    PyMemoryError::new_err("cannot allocate the list items")
}

/// Lists of strings being built, in Arrow's list layout, with a flag per list for a
/// missing element (which has no items).
struct FlatLists {
    views: Vec<View>,
    arena: Arena,
    offsets: Vec<i64>,
    missing: Vec<bool>,
}

impl FlatLists {
    fn with_rows(rows: usize) -> PyResult<FlatLists> {
        let mut offsets = Vec::new();
        let mut missing = Vec::new();
        offsets.try_reserve(rows + 1).map_err(|_| out_of_memory())?;
        missing.try_reserve(rows).map_err(|_| out_of_memory())?;
        offsets.push(0);
        Ok(FlatLists {
            views: Vec::new(),
            arena: Arena::new(),
            offsets,
            missing,
        })
    }

    /// Adds an item (`None`: a missing one) to the current list.
    #[inline]
    fn push(&mut self, item: Option<&[u8]>) -> PyResult<()> {
        let view = match item {
            Some(bytes) => self.arena.store(bytes).py()?,
            None => View::NA,
        };
        self.views.try_reserve(1).map_err(|_| out_of_memory())?;
        self.views.push(view);
        Ok(())
    }

    /// Ends the current list.
    #[inline]
    fn end_list(&mut self, missing: bool) {
        self.offsets.push(self.views.len() as i64);
        self.missing.push(missing);
    }

    /// The items of list `i` so far.
    fn list(&self, i: usize) -> &[View] {
        &self.views[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// `(parts, offsets)` as NumPy arrays, `parts` with the fresh descriptor `descr`.
    fn into_flat<'py>(
        self,
        py: Python<'py>,
        descr: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let parts = array_from_views(py, descr, &self.views, self.arena)?;
        let offsets = numpy_array(py, "int64", &self.offsets)?;
        Ok(PyTuple::new(py, [parts, offsets])?.into_any())
    }
}

/// Lists of strings to be made Python lists, each item a byte range of one copy of the
/// elements' text: the copy is made under the arena's read lock with the GIL released,
/// the `str` objects afterwards with no lock held. Copying the text costs less than
/// storing each item as a view of a new arena (`FlatLists`), which only the flat form
/// needs.
struct TextLists {
    text: Vec<u8>,
    /// Byte ranges of `text`; [`NO_ITEM`] for a missing item.
    items: Vec<Range<usize>>,
    rows: Vec<TextRow>,
    /// Where the current list's text starts in `text`.
    row_start: usize,
}

/// A missing item of `TextLists` (`re.split`'s group that did not take part).
const NO_ITEM: Range<usize> = usize::MAX..usize::MAX;

/// One element of `TextLists`: where its items end in `items`, and whether its text is
/// ASCII (checked once for all of its items).
#[derive(Clone, Copy)]
enum TextRow {
    Missing,
    Ascii(usize),
    Utf8(usize),
}

impl TextLists {
    fn with_rows(rows: usize) -> PyResult<TextLists> {
        let mut row_ends = Vec::new();
        row_ends.try_reserve(rows).map_err(|_| out_of_memory())?;
        Ok(TextLists {
            text: Vec::new(),
            items: Vec::new(),
            rows: row_ends,
            row_start: 0,
        })
    }

    /// An object array of `shape` holding each list as a Python list of `str` (`None`
    /// for a missing item), of tuples of `group` items when `group > 1`; a missing
    /// element holds `na`. The lists of the elements in `answers` (in order) are the
    /// items given there.
    fn into_objects<'py>(
        self,
        py: Python<'py>,
        shape: &Bound<'py, PyAny>,
        na: &Bound<'py, PyAny>,
        group: usize,
        answers: Answers,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _paused = GcPause::new(py);
        let mut answers = answers.into_iter().peekable();
        let mut start = 0;
        object_array(py, self.rows.len(), shape, |i| {
            let (end, ascii) = match self.rows[i] {
                TextRow::Missing => return Ok(na.clone()),
                TextRow::Ascii(end) => (end, true),
                TextRow::Utf8(end) => (end, false),
            };
            let items = &self.items[start..end];
            start = end;
            if answers.peek().is_some_and(|(row, _)| *row == i) {
                let (_, answer) = answers.next().expect("peeked");
                return grouped_list(py, &answer, group, false, |item| {
                    item.as_deref().map(str::as_bytes)
                });
            }
            grouped_list(py, items, group, ascii, |item| {
                (*item != NO_ITEM).then(|| &self.text[item.clone()])
            })
        })
    }
}

/// The lists of the elements that Python's `re` answered, by element, in order.
type Answers = Vec<(usize, Vec<Option<String>>)>;

/// Where a list function puts each element's list.
trait ListSink {
    /// Adds an item (`None`: a missing one) to the current list.
    fn push_item(&mut self, item: Option<&[u8]>) -> PyResult<()>;
    /// Adds the `pieces` of `s` (byte ranges of it) to the current list.
    fn push_pieces(&mut self, s: &[u8], pieces: &[Range<usize>]) -> PyResult<()>;
    /// Ends the current list.
    fn end_element(&mut self) -> PyResult<()>;
    /// Adds a missing element (one missing item, in the flat form).
    fn push_missing(&mut self) -> PyResult<()>;
}

impl ListSink for FlatLists {
    #[inline]
    fn push_item(&mut self, item: Option<&[u8]>) -> PyResult<()> {
        self.push(item)
    }

    #[inline]
    fn push_pieces(&mut self, s: &[u8], pieces: &[Range<usize>]) -> PyResult<()> {
        for piece in pieces {
            self.push(Some(&s[piece.clone()]))?;
        }
        Ok(())
    }

    fn end_element(&mut self) -> PyResult<()> {
        self.end_list(false);
        Ok(())
    }

    fn push_missing(&mut self) -> PyResult<()> {
        self.push(None)?;
        self.end_list(true);
        Ok(())
    }
}

impl ListSink for TextLists {
    #[inline]
    fn push_item(&mut self, item: Option<&[u8]>) -> PyResult<()> {
        self.items.try_reserve(1).map_err(|_| out_of_memory())?;
        let Some(bytes) = item else {
            self.items.push(NO_ITEM);
            return Ok(());
        };
        let start = self.text.len();
        reserve(&mut self.text, bytes.len())?;
        self.text.extend_from_slice(bytes);
        self.items.push(start..self.text.len());
        Ok(())
    }

    /// One copy of `s` for all of its pieces.
    #[inline]
    fn push_pieces(&mut self, s: &[u8], pieces: &[Range<usize>]) -> PyResult<()> {
        let base = self.text.len();
        reserve(&mut self.text, s.len())?;
        self.text.extend_from_slice(s);
        self.items
            .try_reserve(pieces.len())
            .map_err(|_| out_of_memory())?;
        self.items
            .extend(pieces.iter().map(|p| base + p.start..base + p.end));
        Ok(())
    }

    fn end_element(&mut self) -> PyResult<()> {
        let end = self.items.len();
        self.rows.push(if self.text[self.row_start..].is_ascii() {
            TextRow::Ascii(end)
        } else {
            TextRow::Utf8(end)
        });
        self.row_start = self.text.len();
        Ok(())
    }

    fn push_missing(&mut self) -> PyResult<()> {
        self.rows.push(TextRow::Missing);
        Ok(())
    }
}

/// A new `str` of `bytes` (`ascii`: known to be ASCII), or `None`. Inlined: called per
/// item, its result would otherwise come back through memory.
#[inline(always)]
fn new_str<'py>(py: Python<'py>, bytes: Option<&[u8]>, ascii: bool) -> PyResult<Bound<'py, PyAny>> {
    Ok(match bytes {
        None => py.None().into_bound(py),
        // SAFETY: the caller checked the bytes (the whole element's text) are ASCII.
        Some(bytes) if ascii => unsafe { decode_ascii(py, bytes) }?.into_any(),
        // Through the one constructor of `str` from element bytes, which checks them.
        Some(bytes) => decode(py, bytes)?.into_any(),
    })
}

/// A Python list of a `str` (`ascii`: known to be ASCII) or `None` for the bytes
/// `bytes(x)` of each of `items`, or of tuples of `group` of them when `group > 1`.
/// `bytes` only points into the text: the `str` is made in the loop, whose result would
/// come back through memory from a call.
fn grouped_list<'py, 'a, T: 'a>(
    py: Python<'py>,
    items: &'a [T],
    group: usize,
    ascii: bool,
    bytes: impl Fn(&'a T) -> Option<&'a [u8]>,
) -> PyResult<Bound<'py, PyAny>> {
    if group > 1 {
        let tuples = items.chunks(group);
        let list = new_list(py, tuples.len())?;
        for (k, chunk) in tuples.enumerate() {
            let members = chunk
                .iter()
                .map(|item| new_str(py, bytes(item), ascii))
                .collect::<PyResult<Vec<_>>>()?;
            // SAFETY: slot `k` of the new list (one per chunk) is empty.
            unsafe { set_list_item(&list, k, PyTuple::new(py, members)?.into_any()) };
        }
        return Ok(list);
    }
    let list = new_list(py, items.len())?;
    for (k, item) in items.iter().enumerate() {
        let value = new_str(py, bytes(item), ascii)?;
        // SAFETY: slot `k` of the new list (one per item) is empty.
        unsafe { set_list_item(&list, k, value) };
    }
    Ok(list)
}

/// A new Python list of `len` empty slots, which the caller fills (with
/// [`set_list_item`]) before the list is used; dropped before that, it releases the
/// items set so far and skips the empty slots.
#[inline]
fn new_list(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: PyList_New returns a new list of `len` empty slots, or null.
    unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyList_New(len as isize)) }
}

/// Puts `value` into slot `k` of `list`.
///
/// # Safety
/// `list` comes from [`new_list`] with more than `k` slots, and slot `k` is empty.
#[inline(always)]
unsafe fn set_list_item(list: &Bound<'_, PyAny>, k: usize, value: Bound<'_, PyAny>) {
    // SAFETY: the caller's promise; the list takes the reference.
    unsafe { pyo3::ffi::PyList_SET_ITEM(list.as_ptr(), k as isize, value.into_ptr()) };
}

/// A new object array of `shape` (of `rows` elements) whose element `i`, in C order, is
/// `value(i)`.
fn object_array<'py>(
    py: Python<'py>,
    rows: usize,
    shape: &Bound<'py, PyAny>,
    mut value: impl FnMut(usize) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let out = py
        .import("numpy")?
        .call_method1("empty", (rows, "object"))?;
    // SAFETY: a new, C-contiguous object array of `rows` elements, each a reference.
    let data = unsafe { (*(out.as_ptr() as *const PyArrayObject_fields)).data }
        .cast::<*mut pyo3::ffi::PyObject>();
    for i in 0..rows {
        let value = value(i)?;
        // SAFETY: element i exists; the array owns one reference per element (None
        // until now), which is released for the new value's.
        unsafe {
            let slot = data.add(i);
            let old = std::mem::replace(&mut *slot, value.into_ptr());
            pyo3::ffi::Py_XDECREF(old);
        }
    }
    out.call_method1("reshape", (shape,))
}

/// Python's cyclic garbage collector, paused while lists are built: every new list is a
/// container the collector tracks, and building millions of them sets off collections of
/// the older generations that walk every list built so far (half of the time of `split`
/// of a million short strings, in `perf`). The lists hold only `str`, tuples of `str` and
/// `None`, so no cycle can form while they are built. The collector's previous state is
/// restored on drop, error or not.
struct GcPause<'py> {
    was_enabled: bool,
    _gil: Python<'py>,
}

impl<'py> GcPause<'py> {
    fn new(py: Python<'py>) -> GcPause<'py> {
        // SAFETY: the GIL is held (`py`).
        let was_enabled = unsafe { pyo3::ffi::PyGC_Disable() } != 0;
        GcPause {
            was_enabled,
            _gil: py,
        }
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: the GIL is held for the guard's lifetime (`_gil`).
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

/// How a list function returns its lists.
enum Form<'py> {
    /// `(parts, offsets)`.
    Flat,
    /// An object array of lists (see `FlatLists::into_objects`).
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
        Form::Objects { shape, na, .. } => {
            let mut lists = TextLists::with_rows(rows)?;
            py.detach(|| split_all(&mut lists, state, &elements, &at, maxsplit, right))?;
            lists.into_objects(py, shape, na, 1, Vec::new())
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
    let arena = state.arena.read();
    let mut pieces = Vec::new();
    for view in elements.views() {
        let s = match (&state.na, view.is_na()) {
            (_, false) => arena.get(&view).py()?,
            (NaKind::String(default), true) => default,
            (_, true) => {
                lists.push_missing()?;
                continue;
            }
        };
        pieces.clear();
        split(s, at, maxsplit, right, tables(), &mut pieces);
        lists.push_pieces(s, &pieces)?;
        lists.end_element()?;
    }
    Ok(())
}

/// The int64 offsets of a `join` call, checked against `parts` items: a 1-D,
/// C-contiguous int64 array, non-decreasing from 0 or more to at most `parts`.
fn read_offsets(offsets: &Bound<'_, PyAny>, parts: usize) -> PyResult<Vec<i64>> {
    let np = offsets.py().import("numpy")?;
    let is_int64 = np
        .getattr("ndarray")
        .and_then(|t| offsets.is_instance(&t))?
        && offsets.getattr("dtype")?.eq(np.getattr("int64")?)?
        && offsets.getattr("ndim")?.extract::<usize>()? == 1
        && offsets
            .getattr("flags")?
            .getattr("c_contiguous")?
            .is_truthy()?;
    if !is_int64 {
        return Err(PyValueError::new_err(
            "offsets must be a 1-D contiguous int64 array",
        ));
    }
    // SAFETY: a 1-D, C-contiguous int64 ndarray (checked above).
    let values = unsafe {
        let fields = &*(offsets.as_ptr() as *const PyArrayObject_fields);
        let n = *fields.dimensions as usize;
        std::slice::from_raw_parts(fields.data as *const i64, n).to_vec()
    };
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
                let item = match (&state.na, view.is_na()) {
                    (_, false) => source.get(view).py()?,
                    (NaKind::String(default), true) => default,
                    (_, true) => {
                        missing = true;
                        break;
                    }
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
            lists.into_objects(py, shape, na, *group, ask_python(pending)?)
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
    let arena = state.arena.read();
    let mut pending = Vec::new();
    for (i, view) in elements.views().enumerate() {
        let s = match (&state.na, view.is_na()) {
            (_, false) => arena.get(&view).py()?,
            (NaKind::String(default), true) => default,
            (NaKind::NanLike, true) => {
                lists.push_missing()?;
                continue;
            }
            (_, true) => {
                return Err(PyValueError::new_err(
                    "regular expressions cannot be used with a null that is not a string \
                     or NaN-like",
                ))
            }
        };
        if !program.items(s, |item| lists.push_item(item))? {
            pending.push((i, s.to_vec()));
        }
        lists.end_element()?;
    }
    Ok(pending)
}

/// `flat` with the lists of the elements in `answers` (left empty) made of the items
/// given there.
fn merge_python_lists(mut flat: FlatLists, answers: Answers) -> PyResult<FlatLists> {
    let rows = flat.missing.len();
    let mut merged = FlatLists::with_rows(rows)?;
    // The views copied below point into `flat`'s arena: it becomes the merged lists'
    // arena, and holds Python's items too.
    merged.arena = std::mem::replace(&mut flat.arena, Arena::new());
    let mut answers = answers.into_iter().peekable();
    for i in 0..rows {
        if answers.peek().is_some_and(|(row, _)| *row == i) {
            let (_, items) = answers.next().expect("peeked");
            for item in &items {
                merged.push(item.as_deref().map(str::as_bytes))?;
            }
        } else {
            merged
                .views
                .try_reserve(flat.list(i).len())
                .map_err(|_| out_of_memory())?;
            merged.views.extend_from_slice(flat.list(i));
        }
        merged.end_list(flat.missing[i]);
    }
    Ok(merged)
}

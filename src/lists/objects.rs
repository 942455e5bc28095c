//! Lists as an object array of Python lists of `str`, made from one copy of the
//! elements' text with no arena lock held.

use std::ops::Range;

use pyo3::prelude::*;

use super::sink::{out_of_memory, Answers, ListSink};
use crate::element::{decode, decode_ascii};
use crate::ffi::PyArrayObject_fields;
use crate::loops::reserve;

/// Lists of strings to be made Python lists, each item a byte range of one copy of the
/// elements' text: the copy is made under the arena's read lock with the GIL released,
/// the `str` objects afterwards with no lock held. Copying the text costs less than
/// storing each item as a view of a new arena (`FlatLists`), which only the flat form
/// needs.
pub(super) struct TextLists {
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
    pub(super) fn with_rows(rows: usize) -> PyResult<TextLists> {
        let mut row_ends = Vec::new();
        row_ends.try_reserve(rows).map_err(|_| out_of_memory())?;
        Ok(TextLists {
            text: Vec::new(),
            items: Vec::new(),
            rows: row_ends,
            row_start: 0,
        })
    }

    /// An object array of `shape` holding each element's items as one Python object of
    /// `str` (`None` for a missing item) made as `row` says; a missing element holds
    /// `na`. The items of the elements in `answers` (in order) are the items given there.
    pub(super) fn into_objects<'py>(
        self,
        py: Python<'py>,
        shape: &Bound<'py, PyAny>,
        na: &Bound<'py, PyAny>,
        row: RowObject,
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
                return row_object(py, &answer, row, false, |item| {
                    item.as_deref().map(str::as_bytes)
                });
            }
            row_object(py, items, row, ascii, |item| {
                (*item != NO_ITEM).then(|| &self.text[item.clone()])
            })
        })
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

/// How [`TextLists::into_objects`] makes one element's items one Python object.
#[derive(Clone, Copy, Debug)]
pub(super) enum RowObject {
    /// A list of the items, or of tuples of `n` of them when `n > 1` (`findall` with
    /// groups).
    List(usize),
    /// One tuple of the items (`partition`).
    Tuple,
}

/// One element's `items` as `row` says, each item a `str` (`ascii`: known to be ASCII)
/// or `None` for the bytes `bytes(x)`.
#[inline(always)]
fn row_object<'py, 'a, T: 'a>(
    py: Python<'py>,
    items: &'a [T],
    row: RowObject,
    ascii: bool,
    bytes: impl Fn(&'a T) -> Option<&'a [u8]>,
) -> PyResult<Bound<'py, PyAny>> {
    match row {
        RowObject::List(group) => grouped_list(py, items, group, ascii, bytes),
        RowObject::Tuple => str_tuple(py, items, ascii, &bytes),
    }
}

/// A Python tuple of a `str` (`ascii`: known to be ASCII) or `None` for the bytes
/// `bytes(x)` of each of `items`.
#[inline(always)]
fn str_tuple<'py, 'a, T: 'a>(
    py: Python<'py>,
    items: &'a [T],
    ascii: bool,
    bytes: &impl Fn(&'a T) -> Option<&'a [u8]>,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: PyTuple_New returns a new tuple of `len` empty slots, or null; dropped
    // before every slot is set, it skips the empty ones.
    let tuple =
        unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyTuple_New(items.len() as isize)) }?;
    for (k, item) in items.iter().enumerate() {
        let value = new_str(py, bytes(item), ascii)?;
        // SAFETY: slot `k` of the new tuple (one per item) is empty, and nothing else has
        // seen the tuple; it takes the reference.
        unsafe { pyo3::ffi::PyTuple_SET_ITEM(tuple.as_ptr(), k as isize, value.into_ptr()) };
    }
    Ok(tuple)
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
            let tuple = str_tuple(py, chunk, ascii, &bytes)?;
            // SAFETY: slot `k` of the new list (one per chunk) is empty.
            unsafe { set_list_item(&list, k, tuple) };
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

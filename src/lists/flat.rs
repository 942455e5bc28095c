//! Lists in Arrow's list layout: the items as views of one new arena, and int64 offsets.

use std::ops::Range;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stringdtype_core::{Arena, View};

use super::sink::{out_of_memory, Answers, ListSink};
use crate::error::CoreResultExt;
use crate::ndarray::{array_from_views, numpy_array};

/// Lists of strings being built, in Arrow's list layout, with a flag per list for a
/// missing element (which has no items).
pub(super) struct FlatLists {
    views: Vec<View>,
    arena: Arena,
    offsets: Vec<i64>,
    missing: Vec<bool>,
}

impl FlatLists {
    pub(super) fn with_rows(rows: usize) -> PyResult<FlatLists> {
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
    pub(super) fn into_flat<'py>(
        self,
        py: Python<'py>,
        descr: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let parts = array_from_views(py, descr, &self.views, self.arena)?;
        let offsets = numpy_array(py, "int64", &self.offsets)?;
        Ok(PyTuple::new(py, [parts, offsets])?.into_any())
    }
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

/// `flat` with the lists of the elements in `answers` (left empty) made of the items
/// given there.
pub(super) fn merge_python_lists(mut flat: FlatLists, answers: Answers) -> PyResult<FlatLists> {
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

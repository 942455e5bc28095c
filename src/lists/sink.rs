//! What the element loops of the list functions put their lists into.

use std::ops::Range;

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;

pub(super) fn out_of_memory() -> PyErr {
    PyMemoryError::new_err("cannot allocate the list items")
}

/// The lists of the elements that Python's `re` answered, by element, in order.
pub(super) type Answers = Vec<(usize, Vec<Option<String>>)>;

/// Where a list function puts each element's list.
pub(super) trait ListSink {
    /// Adds an item (`None`: a missing one) to the current list.
    fn push_item(&mut self, item: Option<&[u8]>) -> PyResult<()>;
    /// Adds the `pieces` of `s` (byte ranges of it) to the current list.
    fn push_pieces(&mut self, s: &[u8], pieces: &[Range<usize>]) -> PyResult<()>;
    /// Ends the current list.
    fn end_element(&mut self) -> PyResult<()>;
    /// Adds a missing element (one missing item, in the flat form).
    fn push_missing(&mut self) -> PyResult<()>;
}

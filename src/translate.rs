//! `translate` tables: a mapping of code points to values (what `str.maketrans`
//! returns), turned once into the core's [`kernels::TranslateTable`] and registered by id
//! (`by_id`) for the loop of the `_translate` ufunc, which takes the id as an operand.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use stringdtype_core::kernels::{self, ArgumentError, Replacement};

use crate::by_id::{Lookup, Registry};

/// The tables alive, by id.
static TABLES: Registry<kernels::TranslateTable> = Registry::new("translate table");

/// A new lookup of tables for one loop call.
pub fn tables() -> Lookup<kernels::TranslateTable> {
    Lookup::new(&TABLES)
}

/// TranslateTable(mapping)
/// --
///
/// A ``str.translate`` table for the ``_translate`` ufunc (``stringdtype.strings.translate``
/// makes one per call): ``mapping`` is a dict from int code points to what
/// ``str.translate`` accepts (a ``str``, an int code point, or ``None`` to delete).
/// Keys outside ``range(0x110000)`` and surrogates, which no string holds, are left out;
/// a value ``str.translate`` refuses raises its error only when a string holds the key.
#[pyclass(frozen, module = "stringdtype._core")]
pub struct TranslateTable {
    id: i64,
}

#[pymethods]
impl TranslateTable {
    #[new]
    fn new(mapping: &Bound<'_, PyDict>) -> PyResult<TranslateTable> {
        let mut table = kernels::TranslateTable::new();
        let mut text = String::new();
        for (key, value) in mapping.iter() {
            let Some(from) = key.extract::<u32>().ok().and_then(char::from_u32) else {
                continue;
            };
            table.insert(from, replacement(&value, &mut text));
        }
        Ok(TranslateTable {
            id: TABLES.insert(table),
        })
    }

    /// The id the ``_translate`` ufunc takes.
    #[getter]
    fn id(&self) -> i64 {
        self.id
    }
}

/// `value` as `str.translate` reads it (`text` holds a code point's UTF-8 form).
fn replacement<'t>(value: &'t Bound<'_, PyAny>, text: &'t mut String) -> Replacement<'t> {
    if value.is_none() {
        return Replacement::Delete;
    }
    if let Ok(string) = value.cast::<PyString>() {
        return match string.to_str() {
            Ok(s) => Replacement::Text(s),
            Err(_) => Replacement::Invalid(ArgumentError::MappingSurrogate),
        };
    }
    if value.is_instance_of::<PyInt>() {
        let code = value
            .extract::<i64>()
            .ok()
            .filter(|c| (0..0x110000).contains(c));
        let Some(code) = code else {
            return Replacement::Invalid(ArgumentError::MappingRange);
        };
        return match char::from_u32(code as u32) {
            Some(c) => {
                text.clear();
                text.push(c);
                Replacement::Text(text)
            }
            None => Replacement::Invalid(ArgumentError::MappingSurrogate),
        };
    }
    Replacement::Invalid(ArgumentError::MappingType)
}

impl Drop for TranslateTable {
    fn drop(&mut self) {
        TABLES.remove(self.id);
    }
}

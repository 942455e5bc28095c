//! Objects that loops find by an int64 id: regex programs (`regex`) and `translate`
//! tables (`translate`), each registered under an id for as long as its Python object
//! lives. A ufunc takes the id as an int64 operand (NumPy then does broadcasting, `out=`
//! and strides), and its loop looks the object up without the GIL. An id that names no
//! object of the kind is a `ValueError`, so the private ufuncs are safe to call with any
//! number; ids are unique across kinds.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stringdtype_core::fork::Session;

static NEXT_ID: AtomicI64 = AtomicI64::new(1);

/// The live objects of one kind, by id. Taken inside a fork session, never with the GIL
/// needed.
pub struct Registry<T> {
    /// The kind, as an error names it ("regular expression program").
    what: &'static str,
    entries: Mutex<Option<HashMap<i64, Arc<T>>>>,
}

impl<T> Registry<T> {
    pub const fn new(what: &'static str) -> Registry<T> {
        Registry {
            what,
            entries: Mutex::new(None),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut HashMap<i64, Arc<T>>) -> R) -> R {
        let _session = Session::enter();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        f(entries.get_or_insert_with(HashMap::new))
    }

    /// Registers `value` under a new id.
    pub fn insert(&self, value: T) -> i64 {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        self.with(|entries| entries.insert(id, Arc::new(value)));
        id
    }

    /// The object with id `id`.
    pub fn get(&self, id: i64) -> PyResult<Arc<T>> {
        self.with(|entries| entries.get(&id).cloned())
            .ok_or_else(|| PyValueError::new_err(format!("no {} has id {id}", self.what)))
    }

    /// Forgets `id` (its Python object is gone). The object itself lives on while a loop
    /// still holds it, and is dropped outside the registry's lock.
    pub fn remove(&self, id: i64) {
        let removed = self.with(|entries| entries.remove(&id));
        drop(removed);
    }
}

/// Looks objects up by id for a loop, once per id in a row.
pub struct Lookup<T: 'static> {
    registry: &'static Registry<T>,
    last: Option<(i64, Arc<T>)>,
}

impl<T> Lookup<T> {
    pub fn new(registry: &'static Registry<T>) -> Lookup<T> {
        Lookup {
            registry,
            last: None,
        }
    }

    /// The object with id `id`.
    #[inline]
    pub fn get(&mut self, id: i64) -> PyResult<&Arc<T>> {
        if self.last.as_ref().is_none_or(|(last, _)| *last != id) {
            self.last = Some((id, self.registry.get(id)?));
        }
        Ok(&self.last.as_ref().expect("set above").1)
    }
}

//! Arrow interop through the Arrow PyCapsule interface.
//!
//! `to_arrow(a)` exports an array as an Arrow `string_view` array: an
//! `ArrowStringViewArray` whose `__arrow_c_array__` hands out the export as capsules.
//! `from_arrow(obj)` imports any object with `__arrow_c_array__` or
//! `__arrow_c_stream__`. The C Data Interface work lives in `stringdtype_core::arrow`;
//! this file moves structs in and out of capsules, reads and fills NumPy arrays with the
//! GIL released; `ArrowError`s become Python exceptions through `crate::error`.

use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi as pyffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use stringdtype_core::arrow::{
    check_schema, export_schema, export_views, import_array_into, is_utf8, utf8_pieces, ArrowArray,
    ArrowArrayStream, ArrowError, ArrowSchema, ArrowStreamReader, SharedArray,
};
use stringdtype_core::{Arena, View};

use crate::descr::{self, StringDescr};
use crate::error::{CoreResultExt, ToPyErr};
use crate::loops::pool;
use crate::ndarray::{array_from_views, install, new_array, Elements, Views};

const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
const ARRAY_CAPSULE: &CStr = c"arrow_array";
const STREAM_CAPSULE: &CStr = c"arrow_array_stream";

// ---------------------------------------------------------------------------- capsules

/// Moves `value` into a new capsule named `name`, which frees it when it dies.
fn into_capsule<'py, T: CapsuleStruct>(
    py: Python<'py>,
    value: T,
    name: &'static CStr,
) -> PyResult<Bound<'py, PyCapsule>> {
    let raw = Box::into_raw(Box::new(value));
    // SAFETY: `raw` is a live heap allocation that the capsule owns from now on; its
    // destructor (`drop_capsule::<T>`) turns it back into the box exactly once.
    let capsule = unsafe {
        PyCapsule::new_with_pointer_and_destructor(
            py,
            NonNull::new_unchecked(raw.cast()),
            name,
            Some(drop_capsule::<T>),
        )
    };
    if capsule.is_err() {
        // SAFETY: the capsule was not made, so `raw` is still ours alone.
        drop(unsafe { Box::from_raw(raw) });
    }
    capsule
}

/// The C structs that travel in capsules; dropping one releases it unless a consumer
/// moved it out (which leaves its `release` null).
trait CapsuleStruct: Sized + 'static {}
impl CapsuleStruct for ArrowSchema {}
impl CapsuleStruct for ArrowArray {}

/// Capsule destructor: frees the struct, releasing it only if no consumer moved it out,
/// as the PyCapsule interface asks.
unsafe extern "C" fn drop_capsule<T: CapsuleStruct>(capsule: *mut pyffi::PyObject) {
    // The capsule's current name, so that a consumer that renamed it still frees it.
    // SAFETY: CPython passes the dying capsule, made by `into_capsule::<T>`.
    let pointer = unsafe {
        let name = pyffi::PyCapsule_GetName(capsule);
        pyffi::PyCapsule_GetPointer(capsule, name)
    };
    if pointer.is_null() {
        // SAFETY: called with the GIL held, and GetPointer set the exception.
        unsafe { pyffi::PyErr_WriteUnraisable(capsule) };
        return;
    }
    // SAFETY: the pointer came from `Box::into_raw` in `into_capsule::<T>`, and a capsule
    // is destroyed once.
    let value = unsafe { Box::from_raw(pointer.cast::<T>()) };
    // The release callback is the producer's code (ours); a panic must not reach C.
    if catch_unwind(AssertUnwindSafe(move || drop(value))).is_err() {
        // SAFETY: the GIL is held; the message is a NUL-terminated literal.
        unsafe {
            pyffi::PyErr_SetString(
                pyffi::PyExc_RuntimeError,
                c"internal error in stringdtype while releasing an Arrow struct".as_ptr(),
            );
            pyffi::PyErr_WriteUnraisable(capsule);
        }
    }
}

/// Moves the struct out of a capsule named `name`, marking the capsule's copy released.
///
/// # Safety
/// A capsule with this name must hold a `T` as the PyCapsule interface defines it.
unsafe fn take_from_capsule<T>(
    capsule: &Bound<'_, PyAny>,
    name: &CStr,
    take: unsafe fn(*mut T) -> T,
) -> PyResult<T> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a PyCapsule named {name:?}, got {}",
            capsule
                .get_type()
                .name()
                .map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let pointer = capsule.pointer_checked(Some(name))?;
    // SAFETY: by the caller's contract the capsule holds a `T`; `take` moves it out.
    Ok(unsafe { take(pointer.as_ptr().cast()) })
}

// ------------------------------------------------------------------------------ export

/// An Arrow `string_view` array exported from a StringDType array, for any consumer of
/// the Arrow PyCapsule interface (`pa.array(x)`, `pl.Series(x)`, ...).
#[pyclass(module = "stringdtype._core", name = "ArrowStringViewArray", frozen)]
pub struct ArrowStringViewArray {
    array: SharedArray,
}

#[pymethods]
impl ArrowStringViewArray {
    fn __len__(&self) -> usize {
        self.array.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowStringViewArray(length={}, null_count={}, type=string_view)",
            self.array.len(),
            self.null_count()
        )
    }

    /// Number of null (missing) elements.
    #[getter]
    fn null_count(&self) -> usize {
        self.array.null_count().unwrap_or(0)
    }

    /// The type, `string_view`, as an `arrow_schema` capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        into_capsule(py, export_schema(), SCHEMA_CAPSULE)
    }

    /// The data as `(arrow_schema, arrow_array)` capsules. Each call hands out a new
    /// array over the same buffers. The data is always `string_view`: a
    /// `requested_schema` is a best-effort hint in the interface and is not followed.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = into_capsule(py, export_schema(), SCHEMA_CAPSULE)?;
        let array = into_capsule(py, self.array.to_array(), ARRAY_CAPSULE)?;
        Ok((schema, array))
    }
}

/// to_arrow(array)
/// --
///
/// Exports ``array`` as an Arrow ``string_view`` array without copying string bytes:
/// an object that implements the Arrow PyCapsule interface (``__arrow_c_array__``), for
/// ``pyarrow.array(x)``, ``polars.Series(x)``, ``pandas.Series.from_arrow(x)`` and others.
/// Missing values become nulls. N-D arrays are raveled in C order. Later writes to
/// ``array`` do not change what was exported.
#[pyfunction]
pub fn to_arrow(py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<ArrowStringViewArray> {
    let descr = StringDescr::of_ndarray(array, "to_arrow")?;
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let exported = py.detach(move || {
        let arena = state.arena.read();
        // One copy of the export loop per kind of iterator: the one over a contiguous
        // array's slice has no per-element branch on the kind.
        match elements.views() {
            Views::Slice(views) => export_views(views, &arena),
            Views::Strided(views) => export_views(views, &arena),
        }
    });
    let exported = exported.py()?;
    let array = SharedArray::new(exported).py()?;
    Ok(ArrowStringViewArray { array })
}

// ------------------------------------------------------------------------------ import

/// Runs `work(k)` for every `k < parts` on the thread pool (the parts of a large
/// import's element loop); `false` when the workers cannot start.
pub(crate) fn run_on_pool(parts: usize, work: &(dyn Fn(usize) + Sync)) -> bool {
    let threads = pool::threads();
    if threads < 2 {
        return false;
    }
    let mut items = vec![(); parts];
    pool::on_pool(threads, &mut items, &|k, _| {
        work(k);
        Ok(())
    })
    .is_some()
}

/// A piece of an imported data buffer, with the buffer's index.
type Piece<'a> = (usize, &'a [u8]);

/// Whether each of `buffers` (imported data buffers of at least `SPLIT_FROM` bytes in
/// all) is UTF-8, validated on the thread pool: the one pass over every byte of an import
/// of long strings, which one thread reads at a fraction of the memory's bandwidth. The
/// buffers are cut into pieces of about an even share of the bytes (a large buffer into
/// several, cut where a character starts), and each worker takes a run of pieces.
pub(crate) fn validate_on_pool(buffers: &[&[u8]], valid: &mut [bool]) {
    let threads = pool::threads();
    let sequential = |valid: &mut [bool]| {
        for (data, valid) in buffers.iter().zip(valid.iter_mut()) {
            *valid = is_utf8(data);
        }
    };
    if threads < 2 {
        return sequential(valid);
    }
    let total: usize = buffers.iter().map(|data| data.len()).sum();
    let share = total.div_ceil(threads * 2).max(1);
    // (buffer, piece) in order, then runs of about `share` bytes each.
    let pieces: Vec<Piece<'_>> = (buffers.iter().enumerate())
        .flat_map(|(i, data)| {
            let parts = data.len().div_ceil(share).max(1);
            utf8_pieces(data, parts)
                .into_iter()
                .map(move |piece| (i, piece))
        })
        .collect();
    let mut runs: Vec<(&[Piece<'_>], Vec<bool>)> = Vec::new();
    let (mut from, mut bytes) = (0, 0);
    for (k, (_, piece)) in pieces.iter().enumerate() {
        bytes += piece.len();
        if bytes >= share || k + 1 == pieces.len() {
            runs.push((&pieces[from..=k], Vec::new()));
            (from, bytes) = (k + 1, 0);
        }
    }
    let results = pool::on_pool(threads, &mut runs, &|_, (run, answers)| {
        *answers = run.iter().map(|(_, piece)| is_utf8(piece)).collect();
        Ok(())
    });
    if !results.is_some_and(|results| results.iter().all(Result::is_ok)) {
        // The workers could not start (or one panicked): on this thread.
        return sequential(valid);
    }
    valid.fill(true);
    for (run, answers) in &runs {
        for (&(i, _), &answer) in run.iter().zip(answers) {
            valid[i] &= answer;
        }
    }
}

/// Where `from_arrow` reads from.
enum Source {
    Array(ArrowSchema, ArrowArray),
    Stream(ArrowArrayStream),
}

fn take_source(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if obj.hasattr("__arrow_c_array__")? {
        let pair = obj.call_method0("__arrow_c_array__")?;
        let (schema, array): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
        // SAFETY: capsules with these names hold an ArrowSchema and an ArrowArray.
        let schema = unsafe { take_from_capsule(&schema, SCHEMA_CAPSULE, ArrowSchema::from_raw)? };
        // SAFETY: as above.
        let array = unsafe { take_from_capsule(&array, ARRAY_CAPSULE, ArrowArray::from_raw)? };
        return Ok(Source::Array(schema, array));
    }
    if obj.hasattr("__arrow_c_stream__")? {
        let capsule = obj.call_method0("__arrow_c_stream__")?;
        // SAFETY: a capsule with this name holds an ArrowArrayStream.
        let stream =
            unsafe { take_from_capsule(&capsule, STREAM_CAPSULE, ArrowArrayStream::from_raw)? };
        return Ok(Source::Stream(stream));
    }
    Err(PyTypeError::new_err(format!(
        "from_arrow expects an object with __arrow_c_array__ or __arrow_c_stream__ \
         (a pyarrow Array or ChunkedArray, a polars Series, ...), got {}",
        obj.get_type().name()?
    )))
}

fn import_one<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyAny>,
    schema: ArrowSchema,
    array: ArrowArray,
    allow_na: bool,
) -> PyResult<Bound<'py, PyAny>> {
    check_schema(&schema).py()?;
    let length = usize::try_from(array.len())
        .ok()
        .filter(|&n| n <= isize::MAX as usize / 16);
    let Some(length) = length else {
        // The import names what is wrong with the length before allocating.
        let err = import_array_into(schema, array, &mut [], &mut Arena::new(), allow_na);
        return Err(err.expect_err("a bad length is an error").to_py());
    };
    let (out, data) = new_array(py, descr, length)?;
    let imported = py.detach(move || {
        let data = data;
        let views: &mut [View] = if length == 0 {
            &mut []
        } else {
            // SAFETY: the new array holds `length` aligned elements at `data`, kept alive
            // by `out`, and nothing else references them yet.
            unsafe { std::slice::from_raw_parts_mut(data.0, length) }
        };
        let mut arena = Arena::new();
        match import_array_into(schema, array, views, &mut arena, allow_na) {
            Ok(()) => Ok(arena),
            Err(err) => {
                // The views may point into `arena`, which is dropped: empty them so that
                // the array dies as an array of empty strings.
                views.fill(View::EMPTY);
                Err(err)
            }
        }
    });
    install(descr, imported.py()?);
    Ok(out)
}

fn import_stream<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyAny>,
    stream: ArrowArrayStream,
    allow_na: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // The stream's callbacks may run the producer's code: they take the GIL if they need
    // it, as the C Stream Interface lets them be called from any thread.
    let imported = py.detach(move || {
        let reader = ArrowStreamReader::new(stream)?;
        let mut arena = Arena::new();
        let views = reader.read_all(&mut arena, allow_na)?;
        Ok::<_, ArrowError>((views, arena))
    });
    let (views, arena) = imported.py()?;
    array_from_views(py, descr, &views, arena)
}

/// The `na_object` (if given) and `coerce` options of `from_arrow`.
fn parse_options<'py>(
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Option<Bound<'py, PyAny>>, bool)> {
    let mut na = None;
    let mut coerce = true;
    for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
        match key.extract::<&str>()? {
            "na_object" => na = descr::given_na_object(value)?,
            "coerce" => coerce = value.is_truthy()?,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "from_arrow() got an unexpected keyword argument '{other}'"
                )))
            }
        }
    }
    Ok((na, coerce))
}

/// from_arrow(obj, *, na_object=<unset>, coerce=True)
/// --
///
/// Imports an Arrow ``string``, ``large_string`` or ``string_view`` array, or a
/// dictionary of one of them, from any object with ``__arrow_c_array__`` or
/// ``__arrow_c_stream__`` (pyarrow Array and ChunkedArray, polars Series, pandas Series,
/// ``to_arrow``'s result) into a new 1-D array of ``StringDType(na_object=...,
/// coerce=...)``, without Python objects. Strings of up to 12 bytes are copied into the
/// elements; a data buffer that is mostly long strings is kept and read in place (the
/// Arrow array is released when the last array reading it goes), else its long strings
/// are copied once. Nulls become
/// ``na_object``; without one they are a ``ValueError``. Invalid UTF-8 raises
/// ``UnicodeDecodeError``, a type other than strings ``TypeError``.
#[pyfunction]
#[pyo3(
    signature = (obj, **options),
    text_signature = "(obj, *, na_object=..., coerce=True)"
)]
pub fn from_arrow<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    stringdtype_core::arrow::release_kept();
    let (na, coerce) = parse_options(options)?;
    let descr = descr::new_descr(py, na.as_ref(), coerce)?;
    // SAFETY: `new_descr` returns a new reference.
    let descr = unsafe { Bound::from_owned_ptr(py, descr.cast()) };
    let allow_na = na.is_some();
    match take_source(obj)? {
        Source::Array(schema, array) => import_one(py, &descr, schema, array, allow_na),
        Source::Stream(stream) => import_stream(py, &descr, stream, allow_na),
    }
}

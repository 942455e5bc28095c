//! `stringdtype._core`: registers the StringDType class with NumPy and exposes the
//! package's functions. The public API is re-exported by the Python package.

mod arenas;
mod arrow;
mod by_id;
mod casts;
mod column;
mod copyswap;
mod descr;
mod dtype;
mod element;
mod error;
mod ffi;
mod lists;
mod loops;
mod missing;
mod ndarray;
mod numpy_version;
mod regex;
mod sort;
mod translate;
mod ufuncs;
mod unicode;

use descr::StringDescr;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

/// memory_info(array)
/// --
///
/// The memory an array of StringDType holds, in bytes, as a dict:
/// ``views`` (16 bytes per element of ``array``), ``arena_capacity`` (bytes allocated
/// for long strings by the array's arena, shared with every view of the same base),
/// ``arena_used`` (bytes in blocks that hold live strings), ``string_bytes`` (bytes of
/// the live long strings themselves), ``chunks`` (number of arena chunks) and
/// ``arena_shared`` (bytes of ``arena_capacity`` in chunks that another array or an
/// Arrow export holds too, such as a copy's).
#[pyfunction]
fn memory_info<'py>(array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let descr = StringDescr::of_ndarray(array, "memory_info")?;
    // Locked for writing, which first applies releases that other arenas passed on
    // (see `Arena::collect_mail`), so that the figures are settled.
    let (usage, shared) = {
        let arena = descr.arena().write();
        (arena.memory_usage(), arena.shared_capacity())
    };
    let info = PyDict::new(array.py());
    info.set_item("views", array.getattr("nbytes")?)?;
    info.set_item("arena_capacity", usage.capacity)?;
    info.set_item("arena_used", usage.used)?;
    info.set_item("string_bytes", usage.string_bytes)?;
    info.set_item("chunks", usage.chunks)?;
    info.set_item("arena_shared", shared)?;
    Ok(info)
}

/// memory_usage(array)
/// --
///
/// Bytes an array of StringDType really holds: its views plus its arena's allocation
/// (live strings, holes and unused tails).
#[pyfunction]
fn memory_usage(array: &Bound<'_, PyAny>) -> PyResult<usize> {
    let info = memory_info(array)?;
    let views: usize = info.get_item("views")?.expect("set above").extract()?;
    let arena: usize = info
        .get_item("arena_capacity")?
        .expect("set above")
        .extract()?;
    Ok(views + arena)
}

/// Rebuilds a StringDType from its pickled parameters.
#[pyfunction]
#[pyo3(signature = (coerce, *na_object))]
fn _rebuild_dtype<'py>(
    py: Python<'py>,
    coerce: bool,
    na_object: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let na = na_object.iter().next();
    let descr = descr::new_descr(py, na.as_ref(), coerce)?;
    // An unpickled array takes this descriptor without `finalize_descr` (NumPy's
    // `__setstate__` sets it directly): mark it owned, so that every other array made
    // with it (`b.copy()`) gets its own descriptor and arena.
    // SAFETY: `new_descr` returns a live, built StringDType descriptor.
    unsafe { StringDescr::from_raw(descr) }.claim();
    // SAFETY: `new_descr` returns a new reference.
    Ok(unsafe { Bound::from_owned_ptr(py, descr.cast()) })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    unicode::check_version(py)?;
    ffi::load(py)?;
    stringdtype_core::fork::install_fork_handlers();
    stringdtype_core::lock::set_gil_wait(arenas::wait_for_gil);
    stringdtype_core::arrow::set_buffer_validator(arrow::validate_on_pool);
    stringdtype_core::arrow::set_part_runner(loops::pool::split_threads, arrow::run_on_pool);
    arenas::init_gil_check(py);
    numpy_version::init(py)?;
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "stringdtype")?;
    namespace.set_item(
        "__doc__",
        "The scalar type of StringDType: a str. Elements read back as plain str.",
    )?;
    let bases = PyTuple::new(py, [py.get_type::<PyString>()])?;
    let scalar =
        py.import("builtins")?
            .getattr("type")?
            .call1(("StringScalar", bases, namespace))?;
    let cls = dtype::create(py, &scalar)?;
    copyswap::install(py)?;
    ufuncs::register_all(py)?;
    ufuncs::add_ufuncs(m)?;
    // SAFETY: the class is immortal (leaked), so a borrowed reference is always valid.
    let cls = unsafe { Bound::from_borrowed_ptr(py, cls.cast()) };
    m.add("StringDType", cls)?;
    m.add("StringScalar", scalar)?;
    m.add_function(wrap_pyfunction!(memory_info, m)?)?;
    m.add_function(wrap_pyfunction!(memory_usage, m)?)?;
    m.add_function(wrap_pyfunction!(_rebuild_dtype, m)?)?;
    m.add_class::<arrow::ArrowStringViewArray>()?;
    m.add_class::<regex::RegexProgram>()?;
    m.add_class::<translate::TranslateTable>()?;
    m.add_function(wrap_pyfunction!(column::_factorize, m)?)?;
    m.add_function(wrap_pyfunction!(column::_take, m)?)?;
    m.add_function(wrap_pyfunction!(lists::_split, m)?)?;
    m.add_function(wrap_pyfunction!(lists::_join_flat, m)?)?;
    m.add_function(wrap_pyfunction!(lists::_regex_lists, m)?)?;
    m.add_function(wrap_pyfunction!(lists::_partition_objects, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::to_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(loops::pool::_pool_threads, m)?)?;
    m.add_function(wrap_pyfunction!(loops::pool::_set_pool_threads, m)?)?;
    m.add_function(wrap_pyfunction!(loops::pool::_pool_threshold, m)?)?;
    m.add_function(wrap_pyfunction!(loops::pool::_set_pool_threshold, m)?)?;
    m.add_function(wrap_pyfunction!(sort::_set_key_sort_limit, m)?)?;
    m.add_function(wrap_pyfunction!(loops::pool::_set_part_span, m)?)?;
    m.add("unicode_version", unicode::UNICODE_VERSION)?;
    Ok(())
}

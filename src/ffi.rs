//! The only place with raw NumPy C declarations: struct layouts, slot and flag ids, and
//! the API tables reached through NumPy's capsules (no compile-time NumPy dependency).
//!
//! Layouts and indices follow NumPy's headers (`numpy/dtype_api.h`, `ndarraytypes.h`,
//! `__multiarray_api.h`, `__ufunc_api.h`, `_public_dtype_api_table.h`); every table index used
//! here is the same from NumPy 2.0 to 2.5; the ArrFuncs slot ids are not (see
//! [`ArrFuncs::slot`]).
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code
)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use pyo3::exceptions::PyImportError;
use pyo3::ffi::{PyHeapTypeObject, PyObject, PyTypeObject, PyType_Slot, Py_hash_t};
use pyo3::prelude::*;

pub type npy_intp = isize;
pub type npy_bool = u8;

/// `PyArray_Descr` of NumPy 2.
#[repr(C)]
pub struct PyArray_Descr {
    pub ob_base: PyObject,
    pub typeobj: *mut PyTypeObject,
    pub kind: c_char,
    pub type_: c_char,
    pub byteorder: c_char,
    pub _former_flags: c_char,
    pub type_num: c_int,
    pub flags: u64,
    pub elsize: npy_intp,
    pub alignment: npy_intp,
    pub metadata: *mut PyObject,
    pub hash: Py_hash_t,
    pub reserved_null: [*mut c_void; 2],
}

/// `PyArray_DTypeMeta`: a heap type object followed by NumPy's fields.
#[repr(C)]
pub struct PyArray_DTypeMeta {
    pub super_: PyHeapTypeObject,
    pub singleton: *mut PyArray_Descr,
    pub type_num: c_int,
    pub scalar_type: *mut PyTypeObject,
    pub flags: u64,
    pub dt_slots: *mut c_void,
    pub reserved: [*mut c_void; 3],
}

/// The public head of `PyArrayObject_fields`.
#[repr(C)]
pub struct PyArrayObject_fields {
    pub ob_base: PyObject,
    pub data: *mut c_char,
    pub nd: c_int,
    pub dimensions: *mut npy_intp,
    pub strides: *mut npy_intp,
    pub base: *mut PyObject,
    pub descr: *mut PyArray_Descr,
    pub flags: c_int,
}

/// The first fields of `PyArrayMethod_Context` (identical in every NumPy 2.x).
#[repr(C)]
pub struct PyArrayMethod_Context {
    pub caller: *mut PyObject,
    pub method: *mut c_void,
    pub descriptors: *const *mut PyArray_Descr,
}

#[repr(C)]
pub struct PyArrayMethod_Spec {
    pub name: *const c_char,
    pub nin: c_int,
    pub nout: c_int,
    pub casting: c_int,
    pub flags: c_int,
    pub dtypes: *mut *mut PyArray_DTypeMeta,
    pub slots: *mut PyType_Slot,
}

/// The slots of an ArrayMethod, zero-terminated: `resolve_descriptors`, the strided loop
/// and, when `flags` has `NPY_METH_SUPPORTS_UNALIGNED`, the same loop for unaligned data.
pub fn method_slots(resolve: *mut c_void, strided: *mut c_void, flags: c_int) -> [PyType_Slot; 4] {
    let slot = |slot, pfunc| PyType_Slot { slot, pfunc };
    let end = slot(0, std::ptr::null_mut());
    [
        slot(NPY_METH_resolve_descriptors, resolve),
        slot(NPY_METH_strided_loop, strided),
        if flags & NPY_METH_SUPPORTS_UNALIGNED != 0 {
            slot(NPY_METH_unaligned_strided_loop, strided)
        } else {
            end
        },
        end,
    ]
}

#[repr(C)]
pub struct PyArrayDTypeMeta_Spec {
    pub typeobj: *mut PyTypeObject,
    pub flags: c_int,
    pub casts: *mut *mut PyArrayMethod_Spec,
    pub slots: *mut PyType_Slot,
    pub baseclass: *mut PyTypeObject,
}

pub type ResolveDescriptors = unsafe extern "C" fn(
    method: *mut c_void,
    dtypes: *const *mut PyArray_DTypeMeta,
    given_descrs: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    view_offset: *mut npy_intp,
) -> c_int;

pub type StridedLoop = unsafe extern "C" fn(
    context: *mut PyArrayMethod_Context,
    data: *const *mut c_char,
    dimensions: *const npy_intp,
    strides: *const npy_intp,
    auxdata: *mut c_void,
) -> c_int;

pub type TraverseLoop = unsafe extern "C" fn(
    traverse_context: *mut c_void,
    descr: *const PyArray_Descr,
    data: *mut c_char,
    size: npy_intp,
    stride: npy_intp,
    auxdata: *mut c_void,
) -> c_int;

// NPY_CASTING
pub const NPY_NO_CASTING: c_int = 0;
pub const NPY_EQUIV_CASTING: c_int = 1;
pub const NPY_SAFE_CASTING: c_int = 2;
pub const NPY_SAME_KIND_CASTING: c_int = 3;
pub const NPY_UNSAFE_CASTING: c_int = 4;

// NPY_ARRAYMETHOD_FLAGS
pub const NPY_METH_REQUIRES_PYAPI: c_int = 1 << 0;
pub const NPY_METH_NO_FLOATINGPOINT_ERRORS: c_int = 1 << 1;
pub const NPY_METH_SUPPORTS_UNALIGNED: c_int = 1 << 2;
pub const NPY_METH_IS_REORDERABLE: c_int = 1 << 3;

// ArrayMethod slots
pub const NPY_METH_resolve_descriptors: c_int = 2;
pub const NPY_METH_get_loop: c_int = 3;
pub const NPY_METH_get_reduction_initial: c_int = 4;
pub const NPY_METH_strided_loop: c_int = 5;
pub const NPY_METH_contiguous_loop: c_int = 6;
pub const NPY_METH_unaligned_strided_loop: c_int = 7;
pub const NPY_METH_unaligned_contiguous_loop: c_int = 8;

// DType flags and slots
pub const NPY_DT_PARAMETRIC: c_int = 1 << 2;
pub const NPY_DT_discover_descr_from_pyobject: c_int = 1;
pub const _NPY_DT_is_known_scalar_type: c_int = 2;
pub const NPY_DT_default_descr: c_int = 3;
pub const NPY_DT_common_dtype: c_int = 4;
pub const NPY_DT_common_instance: c_int = 5;
pub const NPY_DT_ensure_canonical: c_int = 6;
pub const NPY_DT_setitem: c_int = 7;
pub const NPY_DT_getitem: c_int = 8;
pub const NPY_DT_get_clear_loop: c_int = 9;
pub const NPY_DT_get_fill_zero_loop: c_int = 10;
pub const NPY_DT_finalize_descr: c_int = 11;

/// The legacy `PyArray_ArrFuncs` members that a DType may set as slots, by their index
/// in the struct. Their slot id is `_NPY_DT_ARRFUNCS_OFFSET + index`: see [`ArrFuncs::slot`].
#[derive(Clone, Copy, Debug)]
pub enum ArrFuncs {
    Compare = 5,
    Argmax = 6,
    Nonzero = 10,
    Sort = 13,
    Argsort = 14,
    Argmin = 22,
}

impl ArrFuncs {
    /// The DType slot id of this member when `_NPY_DT_ARRFUNCS_OFFSET` is `offset` (it
    /// moved in NumPy 2.4: `numpy_version::Rules::arrfuncs_offset`).
    pub fn slot(self, offset: c_int) -> c_int {
        offset + self as c_int
    }
}

// Descriptor flags (ndarraytypes.h)
pub const NPY_ITEM_REFCOUNT: u64 = 0x01;
pub const NPY_LIST_PICKLE: u64 = 0x02;
pub const NPY_NEEDS_INIT: u64 = 0x08;

// Type numbers (ndarraytypes.h)
pub const NPY_UNICODE: c_int = 19;

/// C API feature versions (`numpyconfig.h`); NumPy older than 2.0 is refused.
const NPY_2_0_API_VERSION: c_uint = 0x12;

/// The running NumPy's C API feature version (`PyArray_GetNDArrayCFeatureVersion`).
static FEATURE_VERSION: OnceLock<c_uint> = OnceLock::new();

/// The running NumPy's C API feature version, read at import.
pub fn feature_version() -> c_uint {
    *FEATURE_VERSION
        .get()
        .expect("NumPy API loaded at module import")
}

/// The NumPy built-in DTypes this package casts to and from, by their offset in the
/// public DType table (`PyArray_API[320 + k]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinDType {
    Bool = 1,
    Int8 = 12,
    UInt8 = 13,
    Int16 = 14,
    UInt16 = 15,
    Int32 = 16,
    UInt32 = 17,
    Int64 = 18,
    UInt64 = 19,
    Long = 8,
    ULong = 9,
    LongLong = 10,
    ULongLong = 11,
    Half = 22,
    Float = 23,
    Double = 24,
    LongDouble = 25,
    CFloat = 26,
    CDouble = 27,
    CLongDouble = 28,
    Bytes = 29,
    Unicode = 30,
    Datetime = 31,
    Timedelta = 32,
    Object = 33,
    Void = 34,
    /// NumPy's own `StringDType` (`PyArray_StringDType`).
    NumpyString = 39,
}

/// One of NumPy's two C API tables, each reached through a capsule.
#[derive(Clone, Copy)]
enum Table {
    /// `numpy._core._multiarray_umath._ARRAY_API` (`__multiarray_api.h`).
    Array,
    /// `numpy._core._multiarray_umath._UFUNC_API` (`__ufunc_api.h`).
    Ufunc,
}

/// A loaded table: NumPy's array of pointers, immutable for the process life.
struct Api(*const *mut c_void);

// SAFETY: the tables are immutable arrays of pointers owned by NumPy for the process life.
unsafe impl Send for Api {}
// SAFETY: as above.
unsafe impl Sync for Api {}

static ARRAY_API: OnceLock<Api> = OnceLock::new();
static UFUNC_API: OnceLock<Api> = OnceLock::new();

/// Entry `index` of `table`.
fn entry(table: Table, index: usize) -> *mut c_void {
    let api = match table {
        Table::Array => &ARRAY_API,
        Table::Ufunc => &UFUNC_API,
    };
    let api = api.get().expect("NumPy API loaded at module import");
    // SAFETY: every index used below exists in the table of every NumPy the package loads
    // (the `since` of each entry is checked against the running NumPy in `load`).
    unsafe { *api.0.add(index) }
}

/// Declares the API entries the package uses, once each: table, index (from NumPy's
/// generated `__multiarray_api.h` / `__ufunc_api.h` and `_public_dtype_api_table.h`), the
/// C API feature version that introduced it, and its C signature. Functions become
/// `unsafe fn`s with NumPy's contract; objects (type objects, DType classes) become
/// functions returning their address.
macro_rules! numpy_api {
    (
        functions { $(
            $(#[$fdoc:meta])*
            $ftable:ident $findex:literal since $fsince:ident:
            fn $fname:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
        )* }
        objects { $(
            $(#[$odoc:meta])*
            $otable:ident $oindex:literal since $osince:ident: $oname:ident -> $oty:ty;
        )* }
    ) => {
        $(
            $(#[$fdoc])*
            ///
            /// # Safety
            /// NumPy's contract for this function.
            #[allow(clippy::too_many_arguments)] // NumPy's signature
            pub unsafe fn $fname($($arg: $ty),*) -> $ret {
                // SAFETY: the table entry is this function, with this signature, in every
                // NumPy from its `since` on (checked at load).
                let f: unsafe extern "C" fn($($ty),*) -> $ret =
                    unsafe { std::mem::transmute(entry(Table::$ftable, $findex)) };
                // SAFETY: forwarded contract.
                unsafe { f($($arg),*) }
            }
        )*
        $(
            $(#[$odoc])*
            pub fn $oname() -> $oty {
                entry(Table::$otable, $oindex) as $oty
            }
        )*
        /// The feature version each declared entry needs, by name (checked at load).
        const ENTRIES_SINCE: &[(&str, c_uint)] = &[
            $((stringify!($fname), $fsince),)*
            $((stringify!($oname), $osince),)*
        ];
    };
}

numpy_api! {
    functions {
        /// `PyObject *PyArray_Scalar(void *data, PyArray_Descr *descr, PyObject *base)`.
        Array 60 since NPY_2_0_API_VERSION:
        fn PyArray_Scalar(data: *mut c_void, descr: *mut PyArray_Descr, base: *mut PyObject)
            -> *mut PyObject;
        /// `int PyArray_Pack(PyArray_Descr *descr, void *item, PyObject *value)`.
        Array 65 since NPY_2_0_API_VERSION:
        fn PyArray_Pack(descr: *mut PyArray_Descr, item: *mut c_void, value: *mut PyObject)
            -> c_int;
        /// `unsigned int PyArray_GetNDArrayCFeatureVersion(void)` (the same entry since 1.4).
        Array 211 since NPY_2_0_API_VERSION:
        fn PyArray_GetNDArrayCFeatureVersion() -> c_uint;
        /// `PyArray_Descr *PyArray_GetDefaultDescr(PyArray_DTypeMeta *)`.
        Array 361 since NPY_2_0_API_VERSION:
        fn PyArray_GetDefaultDescr(dtype: *mut PyArray_DTypeMeta) -> *mut PyArray_Descr;
        /// `int PyArrayInitDTypeMeta_FromSpec(PyArray_DTypeMeta *, PyArrayDTypeMeta_Spec *)`.
        Array 362 since NPY_2_0_API_VERSION:
        fn PyArrayInitDTypeMeta_FromSpec(
            dtype: *mut PyArray_DTypeMeta,
            spec: *mut PyArrayDTypeMeta_Spec,
        ) -> c_int;
        /// `PyObject *PyUFunc_FromFuncAndData(func, data, types, ntypes, nin, nout,
        /// identity, name, doc, unused)`.
        Ufunc 1 since NPY_2_0_API_VERSION:
        fn PyUFunc_FromFuncAndData(
            func: *const c_void,
            data: *const *mut c_void,
            types: *const c_char,
            ntypes: c_int,
            nin: c_int,
            nout: c_int,
            identity: c_int,
            name: *const c_char,
            doc: *const c_char,
            unused: c_int,
        ) -> *mut PyObject;
        /// `int NpyString_load(npy_string_allocator *, const npy_packed_static_string *,
        /// npy_static_string *)`: 0 for a string, 1 for a missing value, -1 on error.
        Array 313 since NPY_2_0_API_VERSION:
        fn NpyString_load(
            allocator: *mut NpyStringAllocator,
            packed: *const u8,
            unpacked: *mut NpyStaticString,
        ) -> c_int;
        /// `int NpyString_pack(npy_string_allocator *, npy_packed_static_string *,
        /// const char *, size_t)`: frees what the element held, then stores the bytes.
        Array 314 since NPY_2_0_API_VERSION:
        fn NpyString_pack(
            allocator: *mut NpyStringAllocator,
            packed: *mut u8,
            buf: *const c_char,
            size: usize,
        ) -> c_int;
        /// `int NpyString_pack_null(npy_string_allocator *, npy_packed_static_string *)`.
        Array 315 since NPY_2_0_API_VERSION:
        fn NpyString_pack_null(allocator: *mut NpyStringAllocator, packed: *mut u8) -> c_int;
        /// `npy_string_allocator *NpyString_acquire_allocator(const PyArray_StringDTypeObject *)`:
        /// locks the descriptor's allocator (no GIL needed).
        Array 316 since NPY_2_0_API_VERSION:
        fn NpyString_acquire_allocator(descr: *const NumpyStringDescr) -> *mut NpyStringAllocator;
        /// `void NpyString_release_allocator(npy_string_allocator *)`.
        Array 318 since NPY_2_0_API_VERSION:
        fn NpyString_release_allocator(allocator: *mut NpyStringAllocator) -> ();
        /// `PyArray_ArrFuncs *_PyDataType_GetArrFuncs(const PyArray_Descr *)`: the
        /// legacy functions of a descriptor's DType.
        Array 365 since NPY_2_0_API_VERSION:
        fn _PyDataType_GetArrFuncs(descr: *mut PyArray_Descr) -> *mut c_void;
        /// `int PyUFunc_AddLoopFromSpec(PyObject *ufunc, PyArrayMethod_Spec *spec)`.
        Ufunc 43 since NPY_2_0_API_VERSION:
        fn PyUFunc_AddLoopFromSpec(ufunc: *mut PyObject, spec: *mut PyArrayMethod_Spec) -> c_int;
        /// `int PyUFunc_AddPromoter(PyObject *ufunc, PyObject *DType_tuple, PyObject *promoter)`.
        Ufunc 44 since NPY_2_0_API_VERSION:
        fn PyUFunc_AddPromoter(
            ufunc: *mut PyObject,
            dtypes: *mut PyObject,
            promoter: *mut PyObject,
        ) -> c_int;
    }
    objects {
        /// `PyArray_Type`, the ndarray type.
        Array 2 since NPY_2_0_API_VERSION: array_type -> *mut PyTypeObject;
        /// `PyArrayDescr_Type`, the `np.dtype` type.
        Array 3 since NPY_2_0_API_VERSION: descr_type -> *mut PyTypeObject;
        /// `PyArrayDTypeMeta_Type`, the metatype of DType classes.
        Array 320 since NPY_2_0_API_VERSION: dtypemeta_type -> *mut PyTypeObject;
        /// `PyArray_IntAbstractDType`, the abstract DType of every integer.
        Array 366 since NPY_2_0_API_VERSION: int_abstract_dtype -> *mut PyArray_DTypeMeta;
    }
}

/// The start of `PyArray_ArrFuncs` (ndarraytypes.h), up to the two copy functions:
/// `cast[NPY_NTYPES_ABI_COMPATIBLE]` (21 entries in every NumPy from 2.0 on), `getitem`,
/// `setitem`, `copyswapn`, `copyswap`.
#[repr(C)]
pub struct PyArrayFuncsHead {
    pub cast: [*mut c_void; 21],
    pub getitem: *mut c_void,
    pub setitem: *mut c_void,
    pub copyswapn: *mut c_void,
    pub copyswap: *mut c_void,
}

/// NumPy's opaque `npy_string_allocator`.
#[repr(C)]
pub struct NpyStringAllocator {
    _opaque: [u8; 0],
}

/// `npy_static_string`: an unpacked, read-only view of a NumPy string.
#[repr(C)]
pub struct NpyStaticString {
    pub size: usize,
    pub buf: *const c_char,
}

/// `PyArray_StringDTypeObject` (ndarraytypes.h), the descriptor of NumPy's own
/// StringDType: the same layout in every NumPy from 2.0 on.
#[repr(C)]
pub struct NumpyStringDescr {
    pub base: PyArray_Descr,
    pub na_object: *mut PyObject,
    pub coerce: c_char,
    pub has_nan_na: c_char,
    pub has_string_na: c_char,
    pub array_owned: c_char,
    pub default_string: NpyStaticString,
    pub na_name: NpyStaticString,
    pub allocator: *mut NpyStringAllocator,
}

/// A built-in DType class: `_public_dtype_api_table.h` puts a pointer to each at array
/// table entry `320 + k` (since NumPy 2.0).
pub fn builtin_dtype(dtype: BuiltinDType) -> *mut PyArray_DTypeMeta {
    entry(Table::Array, 320 + dtype as usize) as *mut PyArray_DTypeMeta
}

fn capsule_table(py: Python<'_>, attr: &str) -> PyResult<Api> {
    let module = py.import("numpy._core._multiarray_umath")?;
    let capsule = module.getattr(attr)?;
    // SAFETY: `capsule` is a live object; PyCapsule_GetPointer checks its type and sets
    // an exception on failure.
    let ptr = unsafe { pyo3::ffi::PyCapsule_GetPointer(capsule.as_ptr(), std::ptr::null()) };
    if ptr.is_null() {
        return Err(PyErr::fetch(py));
    }
    Ok(Api(ptr as *const *mut c_void))
}

/// Loads NumPy's C API tables, refuses NumPy older than 2.0, and checks that every
/// declared entry exists in the running NumPy.
pub fn load(py: Python<'_>) -> PyResult<()> {
    let _ = ARRAY_API.set(capsule_table(py, "_ARRAY_API")?);
    // SAFETY: a plain function without arguments, at the same index since NumPy 1.4.
    let feature = unsafe { PyArray_GetNDArrayCFeatureVersion() };
    if feature < NPY_2_0_API_VERSION {
        return Err(PyImportError::new_err(format!(
            "stringdtype needs NumPy 2.0 or newer (C API feature version {NPY_2_0_API_VERSION:#x}); \
             the installed NumPy has version {feature:#x}"
        )));
    }
    if let Some((name, since)) = ENTRIES_SINCE.iter().find(|(_, since)| *since > feature) {
        return Err(PyImportError::new_err(format!(
            "stringdtype needs {name} (NumPy C API feature version {since:#x}); the installed \
             NumPy has version {feature:#x}"
        )));
    }
    let _ = FEATURE_VERSION.set(feature);
    let _ = UFUNC_API.set(capsule_table(py, "_UFUNC_API")?);
    Ok(())
}

/// The DType class of a descriptor (`NPY_DTYPE`).
///
/// # Safety
/// `descr` must be a live descriptor.
pub unsafe fn dtype_of(descr: *const PyArray_Descr) -> *mut PyArray_DTypeMeta {
    // SAFETY: a descriptor's type is its DType class.
    unsafe { (*descr).ob_base.ob_type as *mut PyArray_DTypeMeta }
}

/// The descriptor of an array (`PyArray_DESCR`).
///
/// # Safety
/// `array` must be a live ndarray.
pub unsafe fn array_descr(array: *mut c_void) -> *mut PyArray_Descr {
    // SAFETY: every ndarray starts with PyArrayObject_fields.
    unsafe { (*(array as *mut PyArrayObject_fields)).descr }
}

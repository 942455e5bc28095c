//! Casts between StringDType and NumPy's dtypes: the table registered with the DType
//! spec. The loops are in [`strings`] (StringDType, `U`, `S`, `V`, `bool`: Rust loops
//! without the GIL), [`numpy_string`] (NumPy's own StringDType, over its string C API)
//! and [`python`] (numbers, datetimes, timedeltas and `object`, through Python); their
//! descriptor resolution in [`resolve`]. Casts to `object` need no code:
//! NumPy uses `getitem`.

mod inline;
mod numpy_string;
mod pairs;
mod python;
mod resolve;
mod strings;

use std::ffi::{c_int, c_void, CString};
use std::ptr;

use crate::ffi::*;
use inline::string_to_string;
use numpy_string::{
    numpy_string_to_string, resolve_from_numpy_string, resolve_to_numpy_string,
    string_to_numpy_string,
};
use python::{object_to_string, scalar_to_string, string_to_object, string_to_scalar};
use resolve::{
    resolve_from_string, resolve_string_to_string, resolve_string_to_void, resolve_to_string,
};
use strings::{
    bool_to_string, bytes_to_string, string_to_bool, string_to_bytes, string_to_unicode,
    string_to_void, unicode_to_string, void_to_string,
};

/// One end of a cast: this package's DType or one of NumPy's.
#[derive(Clone, Copy)]
enum End {
    Ours,
    Builtin(BuiltinDType),
}

struct CastDef {
    from: End,
    to: End,
    casting: c_int,
    flags: c_int,
    resolve: ResolveDescriptors,
    strided: StridedLoop,
}

const FAST: c_int = NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_SUPPORTS_UNALIGNED;
const PYAPI: c_int = NPY_METH_REQUIRES_PYAPI | NPY_METH_NO_FLOATINGPOINT_ERRORS;

/// The numeric, datetime and timedelta DTypes, cast through Python scalars.
const SCALAR_DTYPES: [BuiltinDType; 21] = {
    use BuiltinDType::*;
    [
        Int8,
        UInt8,
        Int16,
        UInt16,
        Int32,
        UInt32,
        Int64,
        UInt64,
        Long,
        ULong,
        LongLong,
        ULongLong,
        Half,
        Float,
        Double,
        LongDouble,
        CFloat,
        CDouble,
        CLongDouble,
        Datetime,
        Timedelta,
    ]
};

fn cast_defs() -> Vec<CastDef> {
    use BuiltinDType::*;
    let mut defs = vec![
        CastDef {
            from: End::Ours,
            to: End::Ours,
            // The least safe level this cast can have: NumPy skips `resolve_descriptors`
            // when the spec's level already satisfies the requested one.
            casting: NPY_UNSAFE_CASTING,
            flags: FAST,
            resolve: resolve_string_to_string,
            strided: string_to_string,
        },
        CastDef {
            from: End::Builtin(Unicode),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: unicode_to_string,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(Unicode),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_unicode,
        },
        CastDef {
            from: End::Builtin(Bytes),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: bytes_to_string,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(Bytes),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_bytes,
        },
        CastDef {
            from: End::Builtin(Void),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: void_to_string,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(Void),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_string_to_void,
            strided: string_to_void,
        },
        CastDef {
            from: End::Builtin(Object),
            to: End::Ours,
            casting: NPY_UNSAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_to_string::<NPY_UNSAFE_CASTING>,
            strided: object_to_string,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(Object),
            casting: NPY_SAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_from_string::<NPY_SAFE_CASTING>,
            strided: string_to_object,
        },
        CastDef {
            from: End::Builtin(Bool),
            to: End::Ours,
            casting: NPY_SAFE_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAFE_CASTING>,
            strided: bool_to_string,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(Bool),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_bool,
        },
        CastDef {
            from: End::Ours,
            to: End::Builtin(NumpyString),
            casting: NPY_UNSAFE_CASTING,
            flags: FAST,
            resolve: resolve_to_numpy_string,
            strided: string_to_numpy_string,
        },
        CastDef {
            from: End::Builtin(NumpyString),
            to: End::Ours,
            casting: NPY_UNSAFE_CASTING,
            flags: FAST,
            resolve: resolve_from_numpy_string,
            strided: numpy_string_to_string,
        },
    ];
    for dtype in SCALAR_DTYPES {
        defs.push(CastDef {
            from: End::Builtin(dtype),
            to: End::Ours,
            casting: NPY_SAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_to_string::<NPY_SAFE_CASTING>,
            strided: scalar_to_string,
        });
        defs.push(CastDef {
            from: End::Ours,
            to: End::Builtin(dtype),
            casting: NPY_UNSAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_from_string::<NPY_UNSAFE_CASTING>,
            strided: string_to_scalar,
        });
    }
    defs
}

/// A cast's name in NumPy's words (`cast_double_to_StringDType`, as NumPy 2.5 names the
/// casts of its own StringDType), shown by the cast's `repr`.
fn cast_name(from: End, to: End) -> CString {
    let name = format!("cast_{}_to_{}", end_name(from), end_name(to));
    CString::new(name).expect("no NUL in a cast name")
}

/// How a cast's name calls one end: the C type of a builtin DType by its type number, as
/// NumPy's `typenum_to_cstr` does (so `int64` is `long` or `long long` as the platform
/// has it), except `bytes` for `S`, which NumPy 2.5 calls `byte` like `int8`.
fn end_name(end: End) -> &'static str {
    let dtype = match end {
        End::Ours => return "StringDType",
        End::Builtin(BuiltinDType::NumpyString) => return "numpy.dtypes.StringDType",
        End::Builtin(dtype) => dtype,
    };
    // SAFETY: a builtin DType is a live, immortal object of NumPy's C API table.
    let type_num = unsafe { (*builtin_dtype(dtype)).type_num };
    const NAMES: [&str; 24] = [
        "bool",
        "byte",
        "unsigned byte",
        "short",
        "unsigned short",
        "int",
        "unsigned int",
        "long",
        "unsigned long",
        "long long",
        "unsigned long long",
        "float",
        "double",
        "long double",
        "complex float",
        "complex double",
        "complex long double",
        "object",
        "bytes",
        "unicode",
        "void",
        "datetime",
        "timedelta",
        "half",
    ];
    usize::try_from(type_num)
        .ok()
        .and_then(|k| NAMES.get(k))
        .copied()
        .unwrap_or("unknown")
}

fn end_ptr(end: End) -> *mut PyArray_DTypeMeta {
    match end {
        End::Ours => ptr::null_mut(),
        End::Builtin(dtype) => builtin_dtype(dtype),
    }
}

/// The cast specs for the DType spec: a null-terminated, leaked array. DTypes that are
/// the same object under two names (`int64` and `long` on most platforms) appear once.
pub fn specs() -> *mut *mut PyArrayMethod_Spec {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    let mut specs: Vec<*mut PyArrayMethod_Spec> = Vec::new();
    for def in cast_defs() {
        let dtypes = [end_ptr(def.from), end_ptr(def.to)];
        let key = (dtypes[0] as usize, dtypes[1] as usize);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let slots = method_slots(
            def.resolve as *mut c_void,
            def.strided as *mut c_void,
            def.flags,
        );
        let name = Box::leak(cast_name(def.from, def.to).into_boxed_c_str());
        let spec = PyArrayMethod_Spec {
            name: name.as_ptr(),
            nin: 1,
            nout: 1,
            casting: def.casting,
            flags: def.flags,
            dtypes: Box::leak(Box::new(dtypes)).as_mut_ptr(),
            slots: Box::leak(Box::new(slots)).as_mut_ptr(),
        };
        specs.push(Box::into_raw(Box::new(spec)));
    }
    specs.push(ptr::null_mut());
    Box::leak(specs.into_boxed_slice()).as_mut_ptr()
}

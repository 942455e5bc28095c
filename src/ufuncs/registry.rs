//! Registering loops from their tables: a [`LoopDef`] names a ufunc, its DTypes and the
//! loop; [`register_on`] adds it (and its uint64 twin) to the ufunc with the promoters
//! that let `U`, Python `str` and any integer DType reach it.

use std::ffi::{c_int, c_void, CStr, CString};
use std::ptr;

use pyo3::ffi::{self as pyffi, PyObject, PyType_Slot};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::descr::dtype_class;
use crate::error::with_gil_guard;
use crate::ffi::*;
use crate::loops::resolver;

/// A DType in a loop or promoter signature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dt {
    /// This package's StringDType.
    Ours,
    Bool,
    Int64,
    Float64,
    /// A count that may come as uint64 (see [`LoopDef::unsigned_counts`]).
    UInt64,
    /// NumPy's `U`.
    Unicode,
    /// NumPy's own StringDType.
    NumpyString,
    /// NumPy's `S`.
    Bytes,
    /// NumPy's `object`.
    Object,
    /// Any integer DType, Python int included (for promoters).
    AnyInt,
}

impl Dt {
    fn class(self) -> *mut PyArray_DTypeMeta {
        match self {
            Dt::Ours => dtype_class(),
            Dt::Bool => builtin_dtype(BuiltinDType::Bool),
            Dt::Int64 => builtin_dtype(BuiltinDType::Int64),
            Dt::Float64 => builtin_dtype(BuiltinDType::Double),
            Dt::UInt64 => builtin_dtype(BuiltinDType::UInt64),
            Dt::Unicode => builtin_dtype(BuiltinDType::Unicode),
            Dt::NumpyString => builtin_dtype(BuiltinDType::NumpyString),
            Dt::Bytes => builtin_dtype(BuiltinDType::Bytes),
            Dt::Object => builtin_dtype(BuiltinDType::Object),
            Dt::AnyInt => int_abstract_dtype(),
        }
    }
}

/// One loop to register: a ufunc name in `numpy._core.umath`, its DTypes (inputs, then
/// outputs), and the loop.
pub struct LoopDef {
    pub ufunc: &'static str,
    pub dtypes: &'static [Dt],
    pub strided: StridedLoop,
    /// Whether `out=` may be given (NumPy's StringDType refuses it for some ufuncs).
    pub out_allowed: bool,
    /// Whether the loop is registered for uint64 counts too (see `read_count`).
    pub unsigned_counts: bool,
}

impl LoopDef {
    /// A loop that accepts `out=`.
    pub const fn new(ufunc: &'static str, dtypes: &'static [Dt], strided: StridedLoop) -> LoopDef {
        LoopDef {
            ufunc,
            dtypes,
            strided,
            out_allowed: true,
            unsigned_counts: false,
        }
    }

    /// The same loop, registered for uint64 counts as well: its int64 inputs are counts
    /// or widths, which it reads with [`read_count`], so that a count beyond int64 is an
    /// `OverflowError` rather than a negative number.
    pub const fn unsigned_counts(self) -> LoopDef {
        LoopDef {
            unsigned_counts: true,
            ..self
        }
    }

    /// The same loop, refusing `out=` as NumPy's StringDType does for this ufunc.
    pub const fn without_out(self) -> LoopDef {
        LoopDef {
            out_allowed: false,
            ..self
        }
    }
}

/// A new ufunc with no loops of its own, named `name` (NumPy keeps the pointers, so they
/// must be static).
pub fn new_ufunc<'py>(
    py: Python<'py>,
    name: &'static CStr,
    doc: &'static CStr,
    nin: c_int,
    nout: c_int,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: with no legacy loops the function, data and type arrays are never read;
    // identity -1 is `PyUFunc_None`; name and doc are static.
    unsafe {
        let ufunc = PyUFunc_FromFuncAndData(
            ptr::null(),
            ptr::null(),
            ptr::null(),
            0,
            nin,
            nout,
            -1,
            name.as_ptr(),
            doc.as_ptr(),
            0,
        );
        Bound::from_owned_ptr_or_err(py, ufunc)
    }
}

fn ufunc<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy._core.umath")?.getattr(name)
}

/// Registers `def` on its ufunc in `numpy._core.umath`.
pub fn register(py: Python<'_>, def: &LoopDef) -> PyResult<()> {
    register_on(py, &ufunc(py, def.ufunc)?, def)
}

/// Registers `def` on `ufunc`, with a promoter so that `U` inputs and any integer
/// inputs reach it (and its uint64 twin, for a loop with unsigned counts).
pub fn register_on(py: Python<'_>, ufunc: &Bound<'_, PyAny>, def: &LoopDef) -> PyResult<()> {
    let nin = ufunc.getattr("nin")?.extract::<usize>()?;
    add_loop(py, ufunc, def, def.dtypes)?;
    if def.unsigned_counts {
        let twin: Vec<Dt> = def
            .dtypes
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                if i < nin && d == Dt::Int64 {
                    Dt::UInt64
                } else {
                    d
                }
            })
            .collect();
        add_loop(py, ufunc, def, &twin)?;
    }
    add_promoters(py, ufunc, def.dtypes, nin, def.unsigned_counts)
}

/// Adds `def`'s loop to `ufunc` for the DTypes `dtypes`.
fn add_loop(
    py: Python<'_>,
    ufunc: &Bound<'_, PyAny>,
    def: &LoopDef,
    dtypes: &[Dt],
) -> PyResult<()> {
    let nin = ufunc.getattr("nin")?.extract::<usize>()?;
    let mut dtypes: Vec<*mut PyArray_DTypeMeta> = dtypes.iter().map(|d| d.class()).collect();
    let flags = NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_SUPPORTS_UNALIGNED;
    let outs_from = if def.out_allowed {
        def.dtypes.len()
    } else {
        nin
    };
    let resolve = resolver(def.dtypes.len(), outs_from);
    let slots = method_slots(resolve, def.strided as *mut c_void, flags);
    let ufunc_name: String = ufunc.getattr("__name__")?.extract()?;
    let name = CString::new(format!("stringdtype_{ufunc_name}")).expect("no NUL");
    let mut spec = PyArrayMethod_Spec {
        name: name.as_ptr(),
        nin: nin as c_int,
        nout: (def.dtypes.len() - nin) as c_int,
        casting: NPY_NO_CASTING,
        flags,
        dtypes: dtypes.as_mut_ptr(),
        slots: slots.as_ptr() as *mut PyType_Slot,
    };
    // SAFETY: NumPy copies what it needs from the spec before returning.
    let status = unsafe { PyUFunc_AddLoopFromSpec(ufunc.as_ptr(), &mut spec) };
    if status < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(())
}

/// Promoters for every mix of this loop's string inputs with `U` and NumPy's own
/// StringDType, and of its integer inputs with any integer DType.
fn add_promoters(
    py: Python<'_>,
    ufunc: &Bound<'_, PyAny>,
    dtypes: &[Dt],
    nin: usize,
    unsigned_counts: bool,
) -> PyResult<()> {
    const STRING_INPUTS: [Dt; 3] = [Dt::Ours, Dt::Unicode, Dt::NumpyString];
    let strings: Vec<usize> = (0..nin).filter(|&i| dtypes[i] == Dt::Ours).collect();
    let has_int = dtypes[..nin].contains(&Dt::Int64);
    // Every choice of DType for the string inputs (a number in base 3, a digit each)
    // that keeps at least one of this package's: inputs of NumPy's dtypes only stay
    // NumPy's.
    for choice in 0..3usize.pow(strings.len() as u32) {
        let mut pattern: Vec<Option<Dt>> = dtypes[..nin]
            .iter()
            .map(|&d| Some(if d == Dt::Int64 { Dt::AnyInt } else { d }))
            .collect();
        let mut digits = choice;
        for &i in &strings {
            pattern[i] = Some(STRING_INPUTS[digits % 3]);
            digits /= 3;
        }
        let ours = strings
            .iter()
            .filter(|&&i| pattern[i] == Some(Dt::Ours))
            .count();
        if ours == 0 || (ours == strings.len() && !has_int) {
            continue;
        }
        pattern.extend(std::iter::repeat_n(None, dtypes.len() - nin));
        add_promoter(py, ufunc, &pattern, unsigned_counts)?;
    }
    Ok(())
}

fn add_promoter(
    py: Python<'_>,
    ufunc: &Bound<'_, PyAny>,
    pattern: &[Option<Dt>],
    unsigned_counts: bool,
) -> PyResult<()> {
    let promoter = if unsigned_counts {
        promote::<true> as *mut c_void
    } else {
        promote::<false> as *mut c_void
    };
    add_promoter_fn(py, ufunc, pattern, promoter)
}

/// Registers `promoter` (a `PyArrayMethod_PromoterFunction`) for `pattern` on `ufunc`.
fn add_promoter_fn(
    py: Python<'_>,
    ufunc: &Bound<'_, PyAny>,
    pattern: &[Option<Dt>],
    promoter: *mut c_void,
) -> PyResult<()> {
    let items: Vec<Bound<'_, PyAny>> = pattern
        .iter()
        .map(|d| match d {
            // SAFETY: DType classes live for the process.
            Some(d) => unsafe { Bound::from_borrowed_ptr(py, d.class().cast()) },
            None => py.None().into_bound(py),
        })
        .collect();
    let tuple = PyTuple::new(py, items)?;
    // SAFETY: the capsule holds the promoter function itself, under the name NumPy
    // expects; the name is a static string and there is no destructor.
    let capsule = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            pyffi::PyCapsule_New(promoter, c"numpy._ufunc_promoter".as_ptr(), None),
        )?
    };
    // SAFETY: three live objects; NumPy keeps its own references.
    let status = unsafe { PyUFunc_AddPromoter(ufunc.as_ptr(), tuple.as_ptr(), capsule.as_ptr()) };
    if status < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(())
}

/// Runs a promoter: each operand's DType is its fixed signature entry if there is one,
/// else `choose(i, nin, given)` (an output's `given` may be null: left to the loop).
///
/// # Safety
/// The arguments must be NumPy's to a `PyArrayMethod_PromoterFunction`.
unsafe fn promote_with(
    ufunc: *mut PyObject,
    op_dtypes: *const *mut PyArray_DTypeMeta,
    signature: *const *mut PyArray_DTypeMeta,
    new_op_dtypes: *mut *mut PyArray_DTypeMeta,
    choose: impl Fn(usize, usize, *mut PyArray_DTypeMeta) -> *mut PyArray_DTypeMeta,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: NumPy passes the ufunc and arrays of `nargs` DTypes (entries may be null).
        let ufunc = unsafe { Bound::from_borrowed_ptr(py, ufunc) };
        let nin: usize = ufunc.getattr("nin")?.extract()?;
        let nargs: usize = ufunc.getattr("nargs")?.extract()?;
        for i in 0..nargs {
            // SAFETY: as above.
            let (given, fixed) = unsafe { (*op_dtypes.add(i), *signature.add(i)) };
            let chosen = if fixed.is_null() {
                choose(i, nin, given)
            } else {
                fixed
            };
            if !chosen.is_null() {
                // SAFETY: the array takes a new reference per entry.
                unsafe { pyffi::Py_INCREF(chosen.cast()) };
            }
            // SAFETY: as above.
            unsafe { *new_op_dtypes.add(i) = chosen };
        }
        Ok(0)
    })
}

/// The promoter: `U`, NumPy's StringDType (and this package's) inputs become this
/// package's StringDType, integers become int64 (uint64 stays uint64 for loops with
/// `UNSIGNED` counts); fixed signature entries are kept; outputs are left to the loop.
unsafe extern "C" fn promote<const UNSIGNED: bool>(
    ufunc: *mut PyObject,
    op_dtypes: *const *mut PyArray_DTypeMeta,
    signature: *const *mut PyArray_DTypeMeta,
    new_op_dtypes: *mut *mut PyArray_DTypeMeta,
) -> c_int {
    let unicode = builtin_dtype(BuiltinDType::Unicode);
    let numpy_string = builtin_dtype(BuiltinDType::NumpyString);
    let choose = |i, nin, given| {
        if i >= nin {
            given
        } else if given == unicode || given == numpy_string || given == dtype_class() {
            dtype_class()
        } else if UNSIGNED && given == builtin_dtype(BuiltinDType::UInt64) {
            given
        } else {
            builtin_dtype(BuiltinDType::Int64)
        }
    };
    // SAFETY: forwarded from NumPy.
    unsafe { promote_with(ufunc, op_dtypes, signature, new_op_dtypes, choose) }
}

/// The promoter of comparisons between this package's strings and `object` operands:
/// both become `object`, as NumPy's StringDType does (its strings compare as `str`, its
/// missing values as the `na_object`), the output stays bool; fixed signature entries
/// are kept.
unsafe extern "C" fn promote_to_object(
    ufunc: *mut PyObject,
    op_dtypes: *const *mut PyArray_DTypeMeta,
    signature: *const *mut PyArray_DTypeMeta,
    new_op_dtypes: *mut *mut PyArray_DTypeMeta,
) -> c_int {
    let choose = |i, nin, given: *mut PyArray_DTypeMeta| {
        if i < nin {
            builtin_dtype(BuiltinDType::Object)
        } else if !given.is_null() {
            given
        } else {
            builtin_dtype(BuiltinDType::Bool)
        }
    };
    // SAFETY: forwarded from NumPy.
    unsafe { promote_with(ufunc, op_dtypes, signature, new_op_dtypes, choose) }
}

/// The promoter of `add` for `(any, U)` inputs and this package's StringDType output:
/// a `U` first input makes both inputs StringDType; any other first input is left as it
/// is, so NumPy reports that no loop matches.
unsafe extern "C" fn promote_unicode_sum(
    ufunc: *mut PyObject,
    op_dtypes: *const *mut PyArray_DTypeMeta,
    signature: *const *mut PyArray_DTypeMeta,
    new_op_dtypes: *mut *mut PyArray_DTypeMeta,
) -> c_int {
    // SAFETY: NumPy passes `nargs` (here 3) entries; the first input is never null for
    // a binary ufunc call.
    let first = unsafe { *op_dtypes };
    let both_unicode = first == builtin_dtype(BuiltinDType::Unicode);
    let choose = |i, nin, given| {
        if both_unicode && i < nin {
            dtype_class()
        } else {
            given
        }
    };
    // SAFETY: forwarded from NumPy.
    unsafe { promote_with(ufunc, op_dtypes, signature, new_op_dtypes, choose) }
}

/// Promoters beyond the per-loop ones, as NumPy's StringDType registers them:
/// comparisons with `object` operands go to `object`'s loops, and `add` of `U`/`str`
/// inputs with a StringDType output (`dtype=StringDType`, `out=`) reaches the string
/// loop.
pub fn register_extra_promoters(py: Python<'_>) -> PyResult<()> {
    const OUT: Option<Dt> = Some(Dt::Ours);
    for name in [
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
    ] {
        let ufunc = ufunc(py, name)?;
        for pattern in [
            [Some(Dt::Ours), Some(Dt::Object), Some(Dt::Bool)],
            [Some(Dt::Object), Some(Dt::Ours), Some(Dt::Bool)],
        ] {
            add_promoter_fn(py, &ufunc, &pattern, promote_to_object as *mut c_void)?;
        }
    }
    // `U + U` with this package's StringDType as output. The first entry is `None`, not
    // `U`: with no output given, NumPy's own `(U, U, StringDType)` promoter then matches
    // more precisely and keeps plain `U + U` NumPy's; a `(U, U, ours)` pattern would tie
    // with it and make NumPy refuse the call as ambiguous.
    let add = ufunc(py, "add")?;
    add_promoter_fn(
        py,
        &add,
        &[None, Some(Dt::Unicode), OUT],
        promote_unicode_sum as *mut c_void,
    )?;
    Ok(())
}

//! Ufunc loops on NumPy's own ufunc objects: registration from tables, promoters that let
//! Python `str`, `U` arrays and Python or NumPy integers mix in, descriptor resolution,
//! and the strided-argument plumbing the loops share.

mod basic;
mod case;
mod own;
mod search;
mod transform;

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::ffi::{self as pyffi, PyObject, PyType_Slot};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use stringdtype_core::{Arena, View};

use crate::descr::{self, na_equal, DescrState, NaKind};
use crate::dtype::dtype_class;
use crate::dtype::{is_fresh_destination, write_element};
use crate::error::with_gil_guard;
use crate::error::CoreResultExt;
use crate::ffi::*;
use crate::numpy_version::{rules, NaRule};

/// A DType in a loop or promoter signature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dt {
    /// This package's StringDType.
    Ours,
    Bool,
    Int64,
    /// A count that may come as uint64 (see [`LoopDef::unsigned_counts`]).
    UInt64,
    /// NumPy's `U`.
    Unicode,
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
            Dt::UInt64 => builtin_dtype(BuiltinDType::UInt64),
            Dt::Unicode => builtin_dtype(BuiltinDType::Unicode),
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

/// Promoters for every mix of this loop's string inputs with `U`, and of its integer
/// inputs with any integer DType.
fn add_promoters(
    py: Python<'_>,
    ufunc: &Bound<'_, PyAny>,
    dtypes: &[Dt],
    nin: usize,
    unsigned_counts: bool,
) -> PyResult<()> {
    let strings: Vec<usize> = (0..nin).filter(|&i| dtypes[i] == Dt::Ours).collect();
    // Every choice of string inputs that come in as `U` (or Python str), short of all.
    for mask in 0..(1u32 << strings.len()) {
        let mut pattern: Vec<Option<Dt>> = dtypes[..nin]
            .iter()
            .map(|&d| Some(if d == Dt::Int64 { Dt::AnyInt } else { d }))
            .collect();
        for (bit, &i) in strings.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                pattern[i] = Some(Dt::Unicode);
            }
        }
        let has_int = dtypes[..nin].contains(&Dt::Int64);
        // All-`U` inputs stay NumPy's: at least one operand must be ours.
        let all_unicode = mask == (1u32 << strings.len()) - 1;
        if (mask == 0 && !has_int) || all_unicode {
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

/// The promoter: `U` (and this package's StringDType) inputs become StringDType,
/// integers become int64 (uint64 stays uint64 for loops with `UNSIGNED` counts); fixed
/// signature entries are kept; outputs are left to the loop.
unsafe extern "C" fn promote<const UNSIGNED: bool>(
    ufunc: *mut PyObject,
    op_dtypes: *const *mut PyArray_DTypeMeta,
    signature: *const *mut PyArray_DTypeMeta,
    new_op_dtypes: *mut *mut PyArray_DTypeMeta,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: NumPy passes the ufunc and arrays of `nargs` DTypes (entries may be null).
        let ufunc = unsafe { Bound::from_borrowed_ptr(py, ufunc) };
        let nin: usize = ufunc.getattr("nin")?.extract()?;
        let nargs: usize = ufunc.getattr("nargs")?.extract()?;
        let unicode = builtin_dtype(BuiltinDType::Unicode);
        for i in 0..nargs {
            // SAFETY: as above.
            let (given, fixed) = unsafe { (*op_dtypes.add(i), *signature.add(i)) };
            let chosen = if !fixed.is_null() {
                fixed
            } else if i >= nin {
                given
            } else if given == unicode || given == dtype_class() {
                dtype_class()
            } else if UNSIGNED && given == builtin_dtype(BuiltinDType::UInt64) {
                given
            } else {
                builtin_dtype(BuiltinDType::Int64)
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
    with_gil_guard(-1, |py| {
        // SAFETY: NumPy passes the ufunc and arrays of `nargs` DTypes (entries may be null).
        let ufunc = unsafe { Bound::from_borrowed_ptr(py, ufunc) };
        let nin: usize = ufunc.getattr("nin")?.extract()?;
        let nargs: usize = ufunc.getattr("nargs")?.extract()?;
        for i in 0..nargs {
            // SAFETY: as above.
            let (given, fixed) = unsafe { (*op_dtypes.add(i), *signature.add(i)) };
            let chosen = if !fixed.is_null() {
                fixed
            } else if i < nin {
                builtin_dtype(BuiltinDType::Object)
            } else if !given.is_null() {
                given
            } else {
                builtin_dtype(BuiltinDType::Bool)
            };
            // SAFETY: the array takes a new reference per entry.
            unsafe {
                pyffi::Py_INCREF(chosen.cast());
                *new_op_dtypes.add(i) = chosen;
            }
        }
        Ok(0)
    })
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
    // Mixed inputs are covered by the loop's own promoters (whose outputs match any).
    let add = ufunc(py, "add")?;
    add_promoter(
        py,
        &add,
        &[Some(Dt::Unicode), Some(Dt::Unicode), OUT],
        false,
    )?;
    Ok(())
}

/// `resolve_descriptors` for a loop with `nargs` operands.
/// Outputs from operand `outs_from` on are refused when given (`out=`); pass `nargs` to
/// accept them.
fn resolver(nargs: usize, outs_from: usize) -> *mut c_void {
    match (nargs, outs_from) {
        (2, 2) => resolve_descriptors::<2, 2> as *mut c_void,
        (3, 3) => resolve_descriptors::<3, 3> as *mut c_void,
        (4, 4) => resolve_descriptors::<4, 4> as *mut c_void,
        (5, 5) => resolve_descriptors::<5, 5> as *mut c_void,
        (5, 2) => resolve_descriptors::<5, 2> as *mut c_void,
        (5, 4) => resolve_descriptors::<5, 4> as *mut c_void,
        _ => unreachable!("no loop refuses out= from operand {outs_from} of {nargs}"),
    }
}

/// The loops' descriptor resolution: inputs as given; a missing string output gets a
/// brand-new descriptor (so the new array owns its strings) whose `na_object` and
/// `coerce` combine those of the string inputs; other outputs get their default.
unsafe extern "C" fn resolve_descriptors<const NARGS: usize, const OUTS_FROM: usize>(
    _method: *mut c_void,
    dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // Decide everything that can fail before any reference is taken: on error the
        // loop descriptors must hold none.
        if OUTS_FROM < NARGS {
            // SAFETY: NumPy passes NARGS given descriptors; a given output is `out=`.
            if (OUTS_FROM..NARGS).any(|i| unsafe { !(*given.add(i)).is_null() }) {
                return Err(PyTypeError::new_err(
                    "The StringDType ufunc does not currently support the 'out' keyword",
                ));
            }
        }
        let string_inputs: Vec<*mut PyArray_Descr> = (0..NARGS)
            // SAFETY: NumPy passes NARGS DTypes and given descriptors.
            .map(|i| unsafe { (*dtypes.add(i), *given.add(i)) })
            .filter(|&(dtype, descr)| !descr.is_null() && dtype == dtype_class())
            .map(|(_, descr)| descr)
            .collect();
        let (na, coerce) = common_params(py, &string_inputs)?;
        let mut fresh = [ptr::null_mut(); NARGS];
        for i in 0..NARGS {
            // SAFETY: as above.
            let (dtype, descr) = unsafe { (*dtypes.add(i), *given.add(i)) };
            if !descr.is_null() {
                continue;
            }
            let made = if dtype == dtype_class() {
                descr::new_descr(py, na.as_ref(), coerce)
            } else {
                // SAFETY: `dtype` is a live DType class; a new reference comes back.
                let d = unsafe { PyArray_GetDefaultDescr(dtype) };
                if d.is_null() {
                    Err(PyErr::fetch(py))
                } else {
                    Ok(d)
                }
            };
            match made {
                Ok(made) => fresh[i] = made,
                Err(err) => {
                    for made in fresh.iter().filter(|d| !d.is_null()) {
                        // SAFETY: drop the new references made so far.
                        unsafe { pyffi::Py_DECREF(made.cast()) };
                    }
                    return Err(err);
                }
            }
        }
        for (i, made) in fresh.into_iter().enumerate() {
            // SAFETY: as above; given descriptors get a new reference for the loop.
            unsafe {
                let descr = *given.add(i);
                *loop_descrs.add(i) = if descr.is_null() {
                    made
                } else {
                    pyffi::Py_INCREF(descr.cast());
                    descr
                };
            }
        }
        Ok(NPY_NO_CASTING)
    })
}

/// The `na_object` and `coerce` of an operation's string operands (NumPy's rules:
/// unset combines with anything, two different ones are an error).
fn common_params<'py>(
    py: Python<'py>,
    descrs: &[*mut PyArray_Descr],
) -> PyResult<(Option<Bound<'py, PyAny>>, bool)> {
    let mut na: Option<Bound<'py, PyAny>> = None;
    let mut coerce = true;
    for &d in descrs {
        // SAFETY: live StringDType descriptors.
        let (this, state) = unsafe { (descr::na_object(py, d), descr::state(d)) };
        coerce &= state.coerce;
        match (&na, this) {
            (Some(a), Some(b)) if !na_equal(Some(a), Some(&b)) => {
                return Err(PyTypeError::new_err(format!(
                    "Cannot find a compatible null string value for null strings '{}' and '{}'",
                    a.repr()?,
                    b.repr()?
                )))
            }
            (None, Some(b)) => na = Some(b),
            _ => {}
        }
    }
    Ok((na, coerce))
}

/// The strided arguments of a loop call: pointers, strides and descriptors per operand.
pub struct Args {
    pub data: [*mut u8; 5],
    pub strides: [isize; 5],
    pub descrs: [*mut PyArray_Descr; 5],
    pub n: isize,
}

impl Args {
    /// # Safety
    /// The arguments must be those NumPy passes to a strided loop with `nargs` operands.
    pub unsafe fn new(
        context: *mut PyArrayMethod_Context,
        data: *const *mut c_char,
        dimensions: *const npy_intp,
        strides: *const npy_intp,
        nargs: usize,
    ) -> Args {
        let mut args = Args {
            data: [ptr::null_mut(); 5],
            strides: [0; 5],
            descrs: [ptr::null_mut(); 5],
            n: 0,
        };
        // SAFETY: forwarded contract.
        unsafe {
            for i in 0..nargs {
                args.data[i] = (*data.add(i)).cast();
                args.strides[i] = *strides.add(i);
                args.descrs[i] = *(*context).descriptors.add(i);
            }
            args.n = *dimensions;
        }
        args
    }

    /// Address of element `i` of operand `k`.
    #[inline]
    pub fn at(&self, k: usize, i: isize) -> *mut u8 {
        self.data[k].wrapping_offset(i * self.strides[k])
    }

    /// The one element of string operand `k` when the operand has stride 0 (a Python
    /// `str`, or broadcasting) and the call has more than one element, so that work on it
    /// can be done once per call; else `None`.
    pub fn scalar_view(&self, k: usize) -> Option<View> {
        // SAFETY: element 0 of operand k exists when the call has elements.
        (self.n > 1 && self.strides[k] == 0).then(|| unsafe { descr::read_view(self.at(k, 0)) })
    }

    /// The state of operand `k`, a StringDType operand.
    ///
    /// # Safety
    /// Operand `k` must have a StringDType descriptor.
    pub unsafe fn state(&self, k: usize) -> &DescrState {
        // SAFETY: forwarded contract; descriptors outlive the loop call.
        unsafe { descr::state(self.descrs[k]) }
    }
}

/// The missing-value rule of an operation over several string operands: the first
/// operand's up to NumPy 2.4, the first one set from 2.5 on (`numpy_version::NaRule`).
/// A missing value of another operand follows it; under `NaKind::Unset` it acts as the
/// empty string.
pub fn effective_na<'a>(states: &[&'a DescrState]) -> &'a NaKind {
    let first = &states[0].na;
    match rules().na {
        NaRule::FirstOperand => first,
        NaRule::Common => states
            .iter()
            .map(|state| &state.na)
            .find(|na| **na != NaKind::Unset)
            .unwrap_or(first),
    }
}

/// An error for an operation on a missing value that is not NaN-like or a string.
pub fn na_error(message: &str) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// Every loop of the package on a ufunc that `np.strings` dispatches to.
fn numpy_loops() -> impl Iterator<Item = LoopDef> {
    basic::loops()
        .into_iter()
        .chain(search::loops())
        .chain(transform::loops())
}

/// Registers the package's loops on NumPy's ufuncs, those that the running NumPy has.
pub fn register_all(py: Python<'_>) -> PyResult<()> {
    for def in numpy_loops().filter(|def| rules().numpy_has_ufunc(def.ufunc)) {
        register(py, &def)?;
    }
    Ok(())
}

/// Element `i` of a count operand `k` (int64, or uint64 for a loop registered with
/// [`LoopDef::unsigned_counts`]); a uint64 beyond int64 is an `OverflowError` naming
/// `what`.
///
/// # Safety
/// Operand `k` must be an int64 or uint64 operand with at least `i + 1` elements.
#[inline]
pub unsafe fn read_count(args: &Args, k: usize, i: isize, what: &str) -> PyResult<i64> {
    // SAFETY: forwarded contract: the descriptor is live for the loop call.
    let unsigned = unsafe { (*args.descrs[k]).kind } as u8 == b'u';
    // SAFETY: forwarded contract; both types are 8 bytes.
    let raw = unsafe { read_i64(args, k, i) };
    if unsigned && raw < 0 {
        return Err(PyOverflowError::new_err(format!(
            "Overflow encountered in {what}"
        )));
    }
    Ok(raw)
}

/// Makes room for `bytes` more bytes in a result buffer, or fails with `MemoryError`:
/// result sizes come from users' counts and widths.
pub fn reserve(out: &mut Vec<u8>, bytes: usize) -> PyResult<()> {
    out.try_reserve(bytes)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {bytes} bytes for a string")))
}

/// Creates the package's own ufuncs (case conversions, UTF-8 encoding, and the string
/// ufuncs the running NumPy lacks), registers their loops and adds them to `module`.
pub fn add_ufuncs(module: &Bound<'_, PyModule>) -> PyResult<()> {
    case::add_ufuncs(module)?;
    let missing = numpy_loops().filter(|def| !rules().numpy_has_ufunc(def.ufunc));
    own::add_missing(module, missing)
}

/// Element `i` of an int64 operand `k`.
///
/// # Safety
/// Operand `k` must be an int64 operand with at least `i + 1` elements.
#[inline]
pub unsafe fn read_i64(args: &Args, k: usize, i: isize) -> i64 {
    // SAFETY: forwarded contract; NumPy's int64 operands need not be aligned here.
    unsafe { ptr::read_unaligned(args.at(k, i) as *const i64) }
}

/// The bytes an operation sees for a string operand: its own, or for a missing value the
/// `na_object` string; `None` for a NaN-like missing value when `nan_propagates` (the
/// result is then missing, or false); `error()` for a missing value the operation cannot
/// use.
#[inline(always)]
pub fn operand<'a>(
    view: &'a View,
    arena: &'a Arena,
    na: &'a NaKind,
    nan_propagates: bool,
    error: impl FnOnce() -> PyErr,
) -> PyResult<Option<&'a [u8]>> {
    if !view.is_na() {
        return arena.get(view).py().map(Some);
    }
    match na {
        NaKind::String(default) => Ok(Some(default)),
        // A missing value of another operand, under a first operand without one.
        NaKind::Unset => Ok(Some(b"")),
        NaKind::NanLike if nan_propagates => Ok(None),
        _ => Err(error()),
    }
}

/// How a loop writes the string results of its output operand `k`.
#[derive(Clone, Copy)]
pub struct Output {
    k: usize,
    /// See `dtype::is_fresh_destination`.
    fresh: bool,
}

impl Output {
    /// Output operand `k`, whose arena is `arena` (a reduction's output, with stride 0,
    /// is never fresh: it is written again and again).
    pub fn new(args: &Args, k: usize, arena: &Arena) -> Output {
        let fresh = is_fresh_destination(arena, args.strides[k]);
        Output { k, fresh }
    }

    /// Stores `bytes` (or a missing value, for `None`) as element `i`.
    ///
    /// # Safety
    /// `arena` must be the output operand's arena and `i` one of the loop's elements.
    #[inline]
    pub unsafe fn write(
        &self,
        args: &Args,
        arena: &mut Arena,
        i: isize,
        bytes: Option<&[u8]>,
    ) -> PyResult<()> {
        let view = match bytes {
            Some(bytes) => arena.store(bytes).py()?,
            None => View::NA,
        };
        // SAFETY: forwarded contract.
        unsafe { self.write_view(args, arena, i, view) };
        Ok(())
    }

    /// Stores `view`, whose long string (if any) lives in `arena`, as element `i`.
    ///
    /// # Safety
    /// As for [`Output::write`].
    #[inline]
    pub unsafe fn write_view(&self, args: &Args, arena: &mut Arena, i: isize, view: View) {
        // SAFETY: forwarded contract.
        unsafe { write_element(arena, args.at(self.k, i), view, self.fresh) };
    }
}

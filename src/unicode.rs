//! The Unicode character database of the running Python, for the kernels.
//!
//! `str.isalpha`, `str.upper` and friends answer from CPython's own tables
//! (`_PyUnicode_IsAlpha`, `_PyUnicode_ToUpperFull`, ...), whose Unicode version follows the
//! interpreter, not Rust's `char`. Those functions are plain table lookups, safe to call
//! without the GIL. They are looked up by name once, at import; where the platform or the
//! interpreter does not export one, the pure-Rust [`RustTables`] answers instead.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use stringdtype_core::kernels::{CaseMapping, RustTables, UnicodeTables};

type Predicate = unsafe extern "C" fn(u32) -> c_int;
type FullMapping = unsafe extern "C" fn(u32, *mut u32) -> c_int;

/// CPython's predicates and full case mappings, where the interpreter exports them.
pub struct PythonTables {
    is_alpha: Option<Predicate>,
    is_decimal: Option<Predicate>,
    is_digit: Option<Predicate>,
    is_numeric: Option<Predicate>,
    is_space: Option<Predicate>,
    is_lower: Option<Predicate>,
    is_upper: Option<Predicate>,
    is_title: Option<Predicate>,
    is_cased: Option<Predicate>,
    is_case_ignorable: Option<Predicate>,
    to_lower: Option<FullMapping>,
    to_upper: Option<FullMapping>,
    to_title: Option<FullMapping>,
    to_fold: Option<FullMapping>,
}

#[cfg(unix)]
fn lookup(name: &CStr) -> *mut c_void {
    extern "C" {
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    // RTLD_DEFAULT: every object loaded into the process, the interpreter included.
    #[cfg(target_os = "macos")]
    let default = -2isize as *mut c_void;
    #[cfg(not(target_os = "macos"))]
    let default = std::ptr::null_mut();
    // SAFETY: `name` is NUL-terminated; dlsym only reads it.
    unsafe { dlsym(default, name.as_ptr()) }
}

#[cfg(not(unix))]
fn lookup(_name: &CStr) -> *mut c_void {
    std::ptr::null_mut()
}

fn predicate(name: &CStr) -> Option<Predicate> {
    let f = lookup(name);
    // SAFETY: CPython declares these as `int f(Py_UCS4)`; Py_UCS4 is uint32_t.
    (!f.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, Predicate>(f) })
}

fn mapping(name: &CStr) -> Option<FullMapping> {
    let f = lookup(name);
    // SAFETY: CPython declares these as `int f(Py_UCS4 ch, Py_UCS4 *res)`, writing at most
    // three code points to `res` and returning their number.
    (!f.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, FullMapping>(f) })
}

/// The tables, looked up on first use.
pub fn tables() -> &'static PythonTables {
    static TABLES: OnceLock<PythonTables> = OnceLock::new();
    TABLES.get_or_init(|| PythonTables {
        is_alpha: predicate(c"_PyUnicode_IsAlpha"),
        is_decimal: predicate(c"_PyUnicode_IsDecimalDigit"),
        is_digit: predicate(c"_PyUnicode_IsDigit"),
        is_numeric: predicate(c"_PyUnicode_IsNumeric"),
        is_space: predicate(c"_PyUnicode_IsWhitespace"),
        is_lower: predicate(c"_PyUnicode_IsLowercase"),
        is_upper: predicate(c"_PyUnicode_IsUppercase"),
        is_title: predicate(c"_PyUnicode_IsTitlecase"),
        is_cased: predicate(c"_PyUnicode_IsCased"),
        is_case_ignorable: predicate(c"_PyUnicode_IsCaseIgnorable"),
        to_lower: mapping(c"_PyUnicode_ToLowerFull"),
        to_upper: mapping(c"_PyUnicode_ToUpperFull"),
        to_title: mapping(c"_PyUnicode_ToTitleFull"),
        to_fold: mapping(c"_PyUnicode_ToFoldedFull"),
    })
}

#[inline]
fn ask(f: Option<Predicate>, c: char, fallback: impl FnOnce(char) -> bool) -> bool {
    match f {
        // SAFETY: a table lookup on any code point; no Python state is touched.
        Some(f) => unsafe { f(c as u32) != 0 },
        None => fallback(c),
    }
}

#[inline]
fn map(f: Option<FullMapping>, c: char, fallback: impl FnOnce(char) -> CaseMapping) -> CaseMapping {
    let Some(f) = f else {
        return fallback(c);
    };
    let mut out = [0u32; 3];
    // SAFETY: `out` has room for the three code points CPython writes at most.
    let n = unsafe { f(c as u32, out.as_mut_ptr()) }.clamp(0, 3) as usize;
    let mut chars = ['\0'; 3];
    for (slot, &cp) in chars.iter_mut().zip(&out[..n]) {
        *slot = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
    }
    CaseMapping::from_chars(&chars[..n]).unwrap_or(CaseMapping::one(c))
}

impl UnicodeTables for PythonTables {
    fn is_alpha(&self, c: char) -> bool {
        ask(self.is_alpha, c, |c| RustTables.is_alpha(c))
    }
    fn is_decimal(&self, c: char) -> bool {
        ask(self.is_decimal, c, |c| RustTables.is_decimal(c))
    }
    fn is_digit(&self, c: char) -> bool {
        ask(self.is_digit, c, |c| RustTables.is_digit(c))
    }
    fn is_numeric(&self, c: char) -> bool {
        ask(self.is_numeric, c, |c| RustTables.is_numeric(c))
    }
    fn is_space(&self, c: char) -> bool {
        ask(self.is_space, c, |c| RustTables.is_space(c))
    }
    fn is_lower(&self, c: char) -> bool {
        ask(self.is_lower, c, |c| RustTables.is_lower(c))
    }
    fn is_upper(&self, c: char) -> bool {
        ask(self.is_upper, c, |c| RustTables.is_upper(c))
    }
    fn is_title(&self, c: char) -> bool {
        ask(self.is_title, c, |c| RustTables.is_title(c))
    }
    fn is_cased(&self, c: char) -> bool {
        ask(self.is_cased, c, |c| RustTables.is_cased(c))
    }
    fn is_case_ignorable(&self, c: char) -> bool {
        ask(self.is_case_ignorable, c, |c| {
            RustTables.is_case_ignorable(c)
        })
    }
    fn to_lower(&self, c: char) -> CaseMapping {
        map(self.to_lower, c, |c| RustTables.to_lower(c))
    }
    fn to_upper(&self, c: char) -> CaseMapping {
        map(self.to_upper, c, |c| RustTables.to_upper(c))
    }
    fn to_title(&self, c: char) -> CaseMapping {
        map(self.to_title, c, |c| RustTables.to_title(c))
    }
    fn to_fold(&self, c: char) -> CaseMapping {
        map(self.to_fold, c, |c| RustTables.to_fold(c))
    }
}

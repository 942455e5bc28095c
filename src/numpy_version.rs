//! What depends on the running NumPy release: [`Rules`], read once at import. Every
//! version-dependent choice of the package reads a field or method of [`rules()`]; no
//! other code compares versions.
//!
//! What changed, release by release, as measured against NumPy's own StringDType on each
//! release (2.0.2, 2.1.3, 2.2.6, 2.3.5, 2.4.6, 2.5.5):
//!
//! - **2.3** added the private ufunc `_slice` (and `np.strings.slice`); below it the
//!   package creates a ufunc of its own under that name (see `ufuncs::catalog`), which
//!   `stringdtype.strings` uses. It also made a float64 NaN cast to a StringDType whose
//!   `na_object` is NaN-like the missing value (before: the string `"nan"`;
//!   `np.full(n, np.nan, dtype=...)` goes through that cast).
//!   NumPy's own StringDType before 2.3 crashes on negative `center`/`ljust`/`rjust`/
//!   `zfill` widths and reports `dtype.str` as `"|T16"`; neither concerns the package's
//!   code (the widths work here, and `.str` is NumPy's).
//!   Also in 2.3, a `multiply` whose result would be too long raises `OverflowError`
//!   (2.2: `MemoryError`); the package raises `OverflowError` on every release.
//! - **2.4** moved the legacy ArrFuncs DType slots from `1 << 10` to `1 << 11` (C API
//!   feature version 0x15), to make room for `get_constant`.
//! - **2.5** changed two rules that the package follows:
//!   - `np.result_type` of two StringDTypes keeps `coerce=False` if either has it
//!     (before: the first operand's `coerce`, so `result_type(StringDType(),
//!     StringDType(coerce=False))` had `coerce=True`);
//!   - the missing values of a binary operation follow the operands' common `na_object`
//!     (before: the first operand's, so with a Python `str` or an array without
//!     `na_object` on the left a missing value on the right acted as the empty string;
//!     now `"a" < arr` raises for `na_object=None` like `arr < "a"`, and a NaN-like or
//!     string `na_object` acts as on the right).
//!   - bytes (`S`) and void (`V`) elements that are not UTF-8 cast to a StringDType
//!     raise a `TypeError` (before: `S` ones were copied unchecked, giving an array whose
//!     reading fails later, and `V` ones raised a `MemoryError`; the package raises a
//!     `UnicodeDecodeError` there, its own choice). See [`Rules::invalid_utf8`].
//!   - structured and subarray voids no longer cast to a StringDType: a `TypeError`
//!     (before: the bytes of each element were read as those of an unstructured void).
//!     See [`Rules::structured_void_to_string`].
//!   - the `TypeError` of a cast from StringDType to a structured or subarray dtype names
//!     the target ([`Rules::string_to_structured_message`]).
//!   - a NUL in a string cast to `longdouble` is a `ValueError` (before: the string was
//!     read up to it, so `'1\x00abc'` was 1.0). See [`Rules::longdouble_stops_at_nul`].
//! - **Comparisons with missing values** (no rule here: the package decides the same on
//!   every release, `missing::compare_missing`). NumPy 2.2-2.5's own StringDType says that
//!   a missing `None`-like value equals `""` (its loop falls through to comparing the
//!   missing value as an empty string) and that a NaN-like one is not `!=` anything, so
//!   `np.unique` (sort-based for a user dtype: `aux[1:] != aux[:-1]`) drops NaN-like
//!   missing values and counts them as the string before them. NumPy fixed both for the
//!   release after 2.5 (numpy#32564, not backported because `arr[arr != sentinel]`
//!   changes). The package follows the fixed rules, which are Python's, on every
//!   release: NaN-like compares as float NaN, `None`-like equals only a missing value,
//!   and the rule is the first `na_object` set among the operands (2.5's `NaRule::Common`)
//!   on every release, so `"" == arr` and `arr == ""` agree. Sorts and the `compare` slot
//!   (`searchsorted`) call two missing values equal, as float NaN sorts. The reference
//!   run of the tests (`STRINGDTYPE_TEST_REFERENCE=numpy`) skips these tests before 2.6.
//! - Also in **2.5**, NumPy fixed three bugs where the package already followed Python's
//!   `str` on every release (no rule here, listed so the tests know): a negative
//!   `multiply` count gives `''` (2.0-2.1 raised `MemoryError`, 2.2-2.4 `OverflowError`),
//!   `str_len` counts trailing NULs, and casts to complex parse `"1.5"` as `1.5+0j`.
//!   It also repeats an empty string by any count at once (2.2-2.4 loop once per count),
//!   a uint64 count beyond int64 included; the package does so on every release.
//!   And it names the casts of its StringDType `cast_<C type>_to_StringDType` (2.3-2.4:
//!   `cast_<C type>_to_S`, 2.2: `cast_StringDType_to_Bool`...): the package uses 2.5's
//!   names on every release (`casts::cast_name`).
//! - Not followed yet (the `multiply` promoters would read a rule here): a `ulonglong`
//!   count of 2**63 or more (`np.strings.multiply` makes one of a Python int) raises
//!   `OverflowError` on 2.3-2.4 and gives `''` on 2.5, and the package gives `''` on every
//!   release.

use std::ffi::{c_int, c_uint};
use std::sync::OnceLock;

use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;

use crate::ffi;

/// A NumPy release as `(major, minor)`.
pub type Release = (u32, u32);

/// How `common_instance` (`np.result_type`, `np.promote_types`) combines `coerce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoerceRule {
    /// The first descriptor's `coerce` (NumPy 2.0-2.4).
    First,
    /// `coerce=False` if either has it (NumPy 2.5 on).
    Both,
}

/// Which `na_object` decides the missing values of an operation over several strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NaRule {
    /// The first operand's (NumPy 2.0-2.4).
    FirstOperand,
    /// The first one set among the operands (they agree, or resolution already failed):
    /// NumPy 2.5 on.
    Common,
}

/// Which exception a cast of `S` or `V` elements that are not UTF-8 to StringDType raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidUtf8 {
    /// A `UnicodeDecodeError` like Python's codec (NumPy 2.0-2.4, which has no rule of
    /// its own: it copies `S` bytes unchecked and reports `V` ones as a `MemoryError`).
    UnicodeDecodeError,
    /// A `TypeError` with NumPy's message (NumPy 2.5 on).
    TypeError,
}

/// Everything the package does differently depending on the running NumPy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `numpy.__version__` as `(major, minor)`.
    pub release: Release,
    /// `_NPY_DT_ARRFUNCS_OFFSET`: the DType slot id of ArrFuncs member 0.
    pub arrfuncs_offset: c_int,
    pub coerce: CoerceRule,
    pub na: NaRule,
    /// Whether a float64 NaN cast to a StringDType with a NaN-like `na_object` becomes the
    /// missing value (NumPy 2.3 on) rather than the string `"nan"`.
    pub float_nan_is_missing: bool,
    pub invalid_utf8: InvalidUtf8,
    /// Whether a structured or subarray void casts to StringDType as the bytes of each
    /// element (NumPy 2.0-2.4) rather than raising a `TypeError` (2.5 on).
    pub structured_void_to_string: bool,
    /// Whether the `TypeError` of a cast from StringDType to a structured or subarray
    /// dtype names the target, in NumPy 2.5's words (before: "Casting from StringDType to
    /// a structured dtype is not supported.").
    pub names_structured_target: bool,
    /// Whether a cast to `longdouble` reads a string only up to its first NUL
    /// (NumPy 2.0-2.4: `'1\x00abc'` is 1.0) rather than raising a `ValueError` (2.5 on).
    pub longdouble_stops_at_nul: bool,
}

/// C API feature version of NumPy 2.4 (`NPY_2_4_API_VERSION` in `numpyconfig.h`).
const NPY_2_4_API_VERSION: c_uint = 0x15;

impl Rules {
    /// The DType slot id of an ArrFuncs member in the running NumPy.
    pub fn arrfuncs_slot(&self, member: ffi::ArrFuncs) -> c_int {
        member.slot(self.arrfuncs_offset)
    }

    /// The rules for NumPy `release`, whose C API feature version is `feature_version`.
    pub fn new(release: Release, feature_version: c_uint) -> Rules {
        let since_2_5 = release >= (2, 5);
        Rules {
            release,
            arrfuncs_offset: if feature_version >= NPY_2_4_API_VERSION {
                1 << 11
            } else {
                1 << 10
            },
            coerce: if since_2_5 {
                CoerceRule::Both
            } else {
                CoerceRule::First
            },
            na: if since_2_5 {
                NaRule::Common
            } else {
                NaRule::FirstOperand
            },
            float_nan_is_missing: release >= (2, 3),
            invalid_utf8: if since_2_5 {
                InvalidUtf8::TypeError
            } else {
                InvalidUtf8::UnicodeDecodeError
            },
            structured_void_to_string: !since_2_5,
            names_structured_target: since_2_5,
            longdouble_stops_at_nul: !since_2_5,
        }
    }

    /// Whether the running NumPy is `release` or newer (for what a release added, such as
    /// the private ufuncs of `ufuncs::catalog`).
    pub fn at_least(&self, release: Release) -> bool {
        self.release >= release
    }

    /// The `TypeError` message of a cast from StringDType to the structured or subarray
    /// dtype whose repr is `target`.
    pub fn string_to_structured_message(&self, target: &str) -> String {
        if self.names_structured_target {
            format!(
                "Only casts from StringDType to unstructured void dtypes are supported, but \
                 {target} is a structured or subarray dtype."
            )
        } else {
            "Casting from StringDType to a structured dtype is not supported.".to_owned()
        }
    }

    /// The `coerce` of the common instance of descriptors with `first` and `second`.
    pub fn common_coerce(&self, first: bool, second: bool) -> bool {
        match self.coerce {
            CoerceRule::First => first,
            CoerceRule::Both => first && second,
        }
    }
}

/// `"2.5.0rc1"` -> `(2, 5)`.
fn parse_release(version: &str) -> Option<Release> {
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

static RULES: OnceLock<Rules> = OnceLock::new();

/// The oldest supported release: 2.0 and 2.1 lack private ufuncs the package registers
/// loops on (`_center`, `_partition`, ...), and there `copy.deepcopy` of any StringDType
/// array crashes (docs/platforms.md).
const OLDEST: Release = (2, 2);

/// Reads the running NumPy's release and decides the rules; after `ffi::load`.
pub fn init(py: Python<'_>) -> PyResult<()> {
    let version: String = py.import("numpy")?.getattr("__version__")?.extract()?;
    let release = parse_release(&version).ok_or_else(|| {
        PyImportError::new_err(format!(
            "stringdtype cannot read the NumPy version {version:?}"
        ))
    })?;
    if release < OLDEST {
        return Err(PyImportError::new_err(format!(
            "stringdtype needs NumPy 2.2 or newer, not {version}"
        )));
    }
    let _ = RULES.set(Rules::new(release, ffi::feature_version()));
    Ok(())
}

/// The rules of the running NumPy.
pub fn rules() -> &'static Rules {
    RULES.get().expect("NumPy rules read at module import")
}

//! Regular-expression programs: one Python pattern, compiled for the engine of
//! `stringdtype_core::regex` where it runs with Python's meaning, with the operation to
//! run (search, count, sub, ...) and the Python callable that answers an element the
//! engine cannot (a pattern it does not support, or one string it would read differently).
//!
//! A program is registered under an id for as long as its Python object lives
//! (`by_id`): the regex ufuncs take the id as an int64 operand and look the program up
//! without the GIL.

use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use stringdtype_core::regex::{Flags, Pattern, PatternError, SubError, Template, UnicodeClasses};

use crate::by_id::{Lookup, Registry};
use crate::error::{attach, ToPyErr};
use crate::unicode::tables;

/// What a program computes for each string.
pub enum Op {
    /// `re.search(p, s) is not None`.
    Search,
    /// `re.match(p, s) is not None`.
    Match,
    /// `re.fullmatch(p, s) is not None`.
    Fullmatch,
    /// The number of matches, `len(re.findall(p, s))`.
    Count,
    /// `re.sub(p, repl, s, count)`.
    /// (`template` is `None` when Python substitutes every element.)
    Sub {
        template: Option<Template>,
        count: i64,
    },
    /// `re.search(p, s).group(group)`, missing where nothing matches.
    Extract { group: usize },
    /// `re.findall(p, s)`, each match's groups one after the other.
    Findall,
    /// `re.split(p, s, maxsplit)`.
    Split { maxsplit: i64 },
}

/// A compiled operation.
pub struct Program {
    /// `None` when the engine does not run this pattern (or replacement): every element
    /// goes to `fallback`.
    pub engine: Option<Pattern>,
    pub op: Op,
    /// `fallback(s)` answers for one string as Python's `re` does.
    fallback: Py<PyAny>,
}

impl Program {
    /// The answer of `fallback` for the string `s`, with the GIL (never with an arena
    /// lock held).
    pub fn call_python<R>(
        &self,
        s: &[u8],
        convert: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
    ) -> PyResult<R> {
        attach(|py| {
            let text = std::str::from_utf8(s)
                .map_err(|_| PyValueError::new_err("a StringDType element is not valid UTF-8"))?;
            let result = self.fallback.bind(py).call1((PyString::new(py, text),))?;
            convert(&result)
        })
    }

    // Each operation below returns `None` where the engine cannot answer for `s`: the
    // caller then asks `call_python` (without holding an arena lock).

    /// Whether `s` matches (`Search`, `Match` and `Fullmatch` programs).
    #[inline]
    pub fn test(&self, s: &[u8]) -> Option<bool> {
        let engine = self.engine.as_ref()?;
        match self.op {
            Op::Match => engine.is_match_at_start(s),
            Op::Fullmatch => engine.is_fullmatch(s),
            _ => engine.is_match(s),
        }
        .ok()
    }

    /// The number of matches in `s`.
    #[inline]
    pub fn count(&self, s: &[u8]) -> Option<i64> {
        let count = self.engine.as_ref()?.count(s).ok()?;
        Some(count as i64)
    }

    /// The substitution result for `s` (a `Sub` program): `s` itself where nothing is
    /// replaced, else what is appended to `out`; `Ok(None)`: ask Python.
    pub fn sub<'s>(&self, s: &'s [u8], out: &'s mut Vec<u8>) -> PyResult<Option<&'s [u8]>> {
        let (
            Some(engine),
            Op::Sub {
                template: Some(template),
                count,
            },
        ) = (&self.engine, &self.op)
        else {
            return Ok(None);
        };
        let start = out.len();
        match engine.sub_if_changed(s, template, *count, out) {
            Ok(0) => Ok(Some(s)),
            Ok(_) => Ok(Some(&out[start..])),
            Err(SubError::NeedsPython(_)) => Ok(None),
            Err(SubError::Failed(error)) => Err(error.in_element("regex.sub", s)),
        }
    }

    /// The group of the first match in `s` (an `Extract` program): `Some(None)` where
    /// nothing matches or the group did not take part.
    pub fn extract<'s>(&self, s: &'s [u8]) -> Option<Option<&'s [u8]>> {
        let (Some(engine), Op::Extract { group }) = (&self.engine, &self.op) else {
            return None;
        };
        engine.extract(s, *group).ok()
    }

    /// Passes the list items of `s` to `push` (`Findall`: each match's groups, or the
    /// match where there are none, `""` for a group that did not take part; `Split`: the
    /// pieces and groups, `None` for a group that did not take part); `Ok(false)`: ask
    /// Python (nothing was pushed).
    pub fn items(
        &self,
        s: &[u8],
        mut push: impl FnMut(Option<&[u8]>) -> PyResult<()>,
    ) -> PyResult<bool> {
        let Some(engine) = &self.engine else {
            return Ok(false);
        };
        match self.op {
            Op::Split { maxsplit } => {
                let Ok(pieces) = engine.split(s, maxsplit) else {
                    return Ok(false);
                };
                pieces.into_iter().try_for_each(push)?;
            }
            _ if engine.groups() == 0 => {
                let Ok(matches) = engine.find_iter(s) else {
                    return Ok(false);
                };
                for span in matches {
                    push(Some(&s[span]))?;
                }
            }
            _ => {
                let Ok(matches) = engine.captures_iter(s) else {
                    return Ok(false);
                };
                for caps in matches {
                    for group in 1..caps.len() {
                        push(Some(caps.get(group).unwrap_or(b"")))?;
                    }
                }
            }
        }
        Ok(true)
    }
}

/// The programs alive, by id.
static PROGRAMS: Registry<Program> = Registry::new("regular expression program");

/// The program with id `id`, for a loop.
pub fn program(id: i64) -> PyResult<Arc<Program>> {
    PROGRAMS.get(id)
}

/// Looks programs up by id for a loop, once per id in a row.
pub type Programs = Lookup<Program>;

/// A new lookup of programs for one loop call.
pub fn programs() -> Programs {
    Lookup::new(&PROGRAMS)
}

/// Python's character classes for the engine, from the running Python's tables.
fn classes() -> &'static UnicodeClasses<'static> {
    static CLASSES: OnceLock<UnicodeClasses<'static>> = OnceLock::new();
    CLASSES.get_or_init(|| UnicodeClasses::new(tables()))
}

/// RegexProgram(pattern, flags, op, fallback, repl=None, count=0, group=0)
/// --
///
/// A compiled regular-expression operation for the ``stringdtype.regex`` functions
/// (which make and cache them): ``pattern`` and ``flags`` as ``re.compile(p).pattern``
/// and ``.flags`` (already checked by Python's ``re``), ``op`` one of ``search``,
/// ``match``, ``fullmatch``, ``count``, ``sub``, ``extract``, ``findall``, ``split``,
/// and ``fallback(s)`` the same operation by Python's ``re`` for one string. ``repl``
/// is ``sub``'s replacement (``None`` for a callable one), ``count`` its count or
/// ``split``'s maxsplit, ``group`` ``extract``'s group number.
#[pyclass(frozen, module = "stringdtype._core")]
pub struct RegexProgram {
    id: i64,
    uses_engine: bool,
}

#[pymethods]
impl RegexProgram {
    #[new]
    #[pyo3(signature = (pattern, flags, op, fallback, repl=None, count=0, group=0))]
    fn new(
        pattern: &str,
        flags: u32,
        op: &str,
        fallback: Py<PyAny>,
        repl: Option<&str>,
        count: i64,
        group: usize,
    ) -> PyResult<RegexProgram> {
        let flags = Flags::from_bits(flags).ok_or_else(|| {
            PyValueError::new_err(format!("unknown regular expression flags {flags}"))
        })?;
        let mut engine = match Pattern::new(pattern, flags, classes()) {
            Ok(engine) => Some(engine),
            Err(PatternError::Unsupported { .. }) => None,
            Err(err @ PatternError::TooLarge { .. }) => return Err(err.to_py()),
        };
        let op = match op {
            "search" => Op::Search,
            "match" => Op::Match,
            "fullmatch" => Op::Fullmatch,
            "count" => Op::Count,
            "extract" => Op::Extract { group },
            "findall" => Op::Findall,
            "split" => Op::Split { maxsplit: count },
            "sub" => {
                // A replacement the engine's templates do not read as the running Python
                // does (or a callable one) leaves the whole operation to Python.
                let template = match (&engine, repl) {
                    (Some(engine), Some(repl)) => engine.template(repl).ok(),
                    _ => None,
                };
                if template.is_none() {
                    engine = None;
                }
                Op::Sub { template, count }
            }
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown regular expression operation {op:?}"
                )))
            }
        };
        let uses_engine = engine.is_some();
        let program = Program {
            engine,
            op,
            fallback,
        };
        let id = PROGRAMS.insert(program);
        Ok(RegexProgram { id, uses_engine })
    }

    /// The id the regex ufuncs take.
    #[getter]
    fn id(&self) -> i64 {
        self.id
    }

    /// Whether the engine runs this program (else Python's ``re`` answers every element).
    #[getter]
    fn uses_engine(&self) -> bool {
        self.uses_engine
    }
}

impl RegexProgram {
    /// The program.
    pub fn program(&self) -> PyResult<Arc<Program>> {
        program(self.id)
    }
}

impl Drop for RegexProgram {
    fn drop(&mut self) {
        PROGRAMS.remove(self.id);
    }
}

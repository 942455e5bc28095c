//! The regex ufuncs: `_regex_test` (bool), `_regex_count` (int64), `_regex_sub` and
//! `_regex_extract` (strings), each over a string operand and the int64 id of a
//! `regex::RegexProgram` (the `stringdtype.regex` functions pass both).
//!
//! A loop answers each element with the program's engine under the arena locks; the
//! elements the engine cannot answer are copied out and answered afterwards by the
//! program's Python callable, with the locks released (Python code may touch any array).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::registry::{add_own_ufunc, Dt, LoopDef};
use super::transform::for_each_output;
use crate::arenas::ArenaLocks;
use crate::element::read_view;
use crate::loops::{read_i64, ufunc_loop, Args, Output};
use crate::missing::operand;
use crate::regex::{Program, Programs};

const T: Dt = Dt::Ours;
const I: Dt = Dt::Int64;

/// Creates the regex ufuncs and adds them to `module`.
pub fn add_ufuncs(module: &Bound<'_, PyModule>) -> PyResult<()> {
    add_own_ufunc(
        module,
        c"_regex_test",
        c"Whether each string matches a regex program (search, match or fullmatch).",
        2,
        &LoopDef::new("", &[T, I, Dt::Bool], test_loop),
    )?;
    add_own_ufunc(
        module,
        c"_regex_count",
        c"The number of matches of a regex program in each string.",
        2,
        &LoopDef::new("", &[T, I, I], count_loop),
    )?;
    add_own_ufunc(
        module,
        c"_regex_sub",
        c"Each string with the matches of a regex program replaced.",
        2,
        &LoopDef::new("", &[T, I, T], sub_loop),
    )?;
    add_own_ufunc(
        module,
        c"_regex_extract",
        c"A group of the first match of a regex program in each string.",
        2,
        &LoopDef::new("", &[T, I, T], extract_loop),
    )
}

/// The error for a missing value a regex operation cannot use.
fn na_error(nan_like_too: bool) -> impl Fn() -> PyErr {
    move || {
        let allowed = if nan_like_too {
            "a string or NaN-like"
        } else {
            "a string"
        };
        PyValueError::new_err(format!(
            "regular expressions cannot be used with a null that is not {allowed}"
        ))
    }
}

/// An element left to Python: its index, program id and string.
type Pending = Vec<(isize, i64, Vec<u8>)>;

/// Answers each element of a loop with a scalar result: `engine(program, s)` (`None`:
/// ask Python, whose answer `python` converts); a NaN-like missing value gives
/// `nan_result` when there is one, else is an error.
fn for_each_answer<R: Copy>(
    args: &Args,
    nan_result: Option<R>,
    engine: impl Fn(&Program, &[u8]) -> Option<R>,
    python: impl Fn(&Bound<'_, PyAny>) -> PyResult<R>,
    mut write: impl FnMut(isize, R),
) -> PyResult<()> {
    let state = args.state(0);
    let error = na_error(nan_result.is_some());
    let mut programs = Programs::default();
    let mut pending = Pending::new();
    {
        let locks = ArenaLocks::reading(&[&state.arena]);
        for i in 0..args.n {
            // SAFETY: element i of the string and int64 inputs.
            let (view, id) = unsafe { (read_view(args.at(0, i)), read_i64(args, 1, i)) };
            let program = programs.get(id)?;
            let answer =
                match operand(&view, locks.get(0), &state.na, nan_result.is_some(), &error)? {
                    None => nan_result,
                    Some(s) => engine(program, s).or_else(|| {
                        pending.push((i, id, s.to_vec()));
                        None
                    }),
                };
            if let Some(answer) = answer {
                write(i, answer);
            }
        }
    }
    for (i, id, s) in pending {
        let answer = programs.get(id)?.call_python(&s, &python)?;
        write(i, answer);
    }
    Ok(())
}

ufunc_loop!(test_loop, 3, |args| {
    // SAFETY: element i of the bool output.
    let write = |i, value: bool| unsafe { *args.at(2, i) = value as u8 };
    for_each_answer(&args, Some(false), Program::test, |r| r.is_truthy(), write)
});

ufunc_loop!(count_loop, 3, |args| {
    // SAFETY: element i of the int64 output.
    let write =
        |i, value: i64| unsafe { std::ptr::write_unaligned(args.at(2, i) as *mut i64, value) };
    for_each_answer(&args, None, Program::count, |r| r.extract(), write)
});

/// Runs a loop with a string result: `engine(program, s, scratch)` gives the result
/// (`Ok(None)`: ask Python, whose answer is a `str`, or `None` for a missing value); a
/// NaN-like missing value gives a missing value.
fn for_each_string<E>(args: &Args, mut engine: E) -> PyResult<()>
where
    E: for<'r> FnMut(&Program, &'r [u8], &'r mut Vec<u8>) -> PyResult<Option<Option<&'r [u8]>>>,
{
    let (si, so) = (args.state(0), args.state(2));
    let error = na_error(true);
    let mut programs = Programs::default();
    let mut pending = Pending::new();
    {
        let mut locks = ArenaLocks::new(&[&si.arena, &so.arena], 1);
        for_each_output(
            args,
            &mut locks,
            [0],
            (2, 1),
            |_, _| None,
            |i, [view], readers, scratch| {
                // SAFETY: element i of the int64 input.
                let id = unsafe { read_i64(args, 1, i) };
                let program = programs.get(id)?;
                let Some(s) = operand(view, readers.get(0), &si.na, true, &error)? else {
                    return Ok(None);
                };
                Ok(match engine(program, s, scratch)? {
                    Some(result) => result,
                    None => {
                        pending.push((i, id, s.to_vec()));
                        // A placeholder until Python's answer is written below.
                        Some(b"")
                    }
                })
            },
        )?;
    }
    if pending.is_empty() {
        return Ok(());
    }
    let mut answers = Vec::with_capacity(pending.len());
    for (i, id, s) in pending {
        let answer: Option<String> = programs.get(id)?.call_python(&s, |r| r.extract())?;
        answers.push((i, answer));
    }
    let mut locks = ArenaLocks::new(&[&so.arena], 0);
    let output = Output::new(args, 2, locks.get(0));
    for (i, answer) in answers {
        // SAFETY: element i of the output, whose arena is locked for writing.
        unsafe {
            output.write(
                args,
                locks.get_mut(0),
                i,
                answer.as_deref().map(str::as_bytes),
            )
        }?;
    }
    Ok(())
}

ufunc_loop!(sub_loop, 3, |args| {
    for_each_string(&args, |program, s, scratch| {
        Ok(program.sub(s, scratch)?.map(|()| Some(&scratch[..])))
    })
});

ufunc_loop!(extract_loop, 3, |args| {
    for_each_string(&args, |program, s, _| Ok(program.extract(s)))
});

//! The loops of the regex ufuncs (see `catalog`): `_regex_test` (bool), `_regex_count`
//! (int64), `_regex_sub` and `_regex_extract` (strings), each over a string operand and
//! the int64 id of a `regex::RegexProgram` (the `stringdtype.regex` functions pass both).
//!
//! A loop answers each element with the program's engine under the arena locks; the
//! elements the engine cannot answer are copied out and answered afterwards by the
//! program's Python callable, with the locks released (Python code may touch any array).

use pyo3::prelude::*;

use stringdtype_core::View;

use crate::arenas::ArenaLocks;
use crate::loops::{self, strings_out_mut, ufunc_loop, Args, Elem, Piece};
use crate::missing::{self, ops, MissingResult, OnMissing};
use crate::regex::{programs, Program};

/// An element left to Python: the element, its program id and string.
type Pending = Vec<(Elem, i64, Vec<u8>)>;

/// Answers each element of a loop with a scalar result: `engine(program, s)` (`None`:
/// ask Python, whose answer `python` converts); a missing value follows the rule `on`.
fn for_each_answer<R: Copy + MissingResult>(
    args: &Args,
    on: OnMissing,
    engine: impl Fn(&Program, &[u8]) -> Option<R>,
    python: impl Fn(&Bound<'_, PyAny>) -> PyResult<R>,
    mut write: impl FnMut(Elem, R),
) -> PyResult<()> {
    let (strings, ids) = (args.strings(0), args.counts(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, on, "");
    let mut programs = programs();
    let mut pending = Pending::new();
    {
        let locks = ArenaLocks::reading(&[&state.arena]);
        for e in args.elements() {
            let (view, id) = (strings.view(e), ids.get(e));
            let program = programs.get(id)?;
            let answer = match missing.operand(&view, locks.get(0))? {
                None => Some(R::missing(&missing)?),
                Some(s) => engine(program, s).or_else(|| {
                    pending.push((e, id, s.to_vec()));
                    None
                }),
            };
            if let Some(answer) = answer {
                write(e, answer);
            }
        }
    }
    for (e, id, s) in pending {
        let answer = programs.get(id)?.call_python(&s, &python)?;
        write(e, answer);
    }
    Ok(())
}

ufunc_loop!(pub(super) test_loop, 3, |args| {
    let out = args.values::<bool>(2);
    let write = |e, value| out.set(e, value);
    for_each_answer(&args, ops::REGEX, Program::test, |r| r.is_truthy(), write)
});

ufunc_loop!(pub(super) count_loop, 3, |args| {
    let out = args.values::<i64>(2);
    let write = |e, value| out.set(e, value);
    for_each_answer(
        &args,
        ops::REGEX_COUNT,
        Program::count,
        |r| r.extract(),
        write,
    )
});

ufunc_loop!(pub(super) count_nan_loop, 3, |args| {
    let out = args.values::<f64>(2);
    let write = |e, value| out.set(e, value);
    let engine = |program: &Program, s: &[u8]| program.count(s).map(|n| n as f64);
    let python = |r: &Bound<'_, PyAny>| Ok(r.extract::<i64>()? as f64);
    for_each_answer(&args, ops::REGEX_COUNT, engine, python, write)
});

/// Runs a loop with a string result: `engine(program, s, scratch)` gives the result
/// (`Ok(None)`: ask Python, whose answer is a `str`, or `None` for a missing value); a
/// missing value follows the rule [`ops::REGEX`].
fn for_each_string<E>(args: &Args, mut engine: E) -> PyResult<()>
where
    E: for<'r> FnMut(&Program, &'r [u8], &'r mut Vec<u8>) -> PyResult<Option<Option<&'r [u8]>>>,
{
    let (strings, ids, out) = (args.strings(0), args.counts(1), args.strings_out(2));
    let missing = missing::rule(&strings.state().na, ops::REGEX, "");
    let mut programs = programs();
    let mut pending = Pending::new();
    {
        let mut locks = loops::lock(&[strings], &[out]);
        let no_shortcut = |_, _: &[View; 1]| None;
        strings_out_mut(
            args.elements(),
            &mut locks,
            [strings],
            out,
            no_shortcut,
            |e, [view], readers, scratch| {
                let id = ids.get(e);
                let program = programs.get(id)?;
                let Some(s) = missing.operand(view, readers.get(0))? else {
                    return Ok(Piece::Missing);
                };
                Ok(match engine(program, s, scratch)? {
                    Some(result) => result.into(),
                    None => {
                        pending.push((e, id, s.to_vec()));
                        // A placeholder until Python's answer is written below.
                        Piece::Bytes(b"")
                    }
                })
            },
        )?;
    }
    if pending.is_empty() {
        return Ok(());
    }
    let mut answers = Vec::with_capacity(pending.len());
    for (e, id, s) in pending {
        let answer: Option<String> = programs.get(id)?.call_python(&s, |r| r.extract())?;
        answers.push((e, answer));
    }
    let mut locks = loops::lock(&[], &[out]);
    let out = out.bind(locks.get(0));
    for (e, answer) in answers {
        out.write(locks.get_mut(0), e, answer.as_deref().map(str::as_bytes))?;
    }
    Ok(())
}

ufunc_loop!(pub(super) sub_loop, 3, |args| {
    for_each_string(&args, |program, s, scratch| {
        Ok(program.sub(s, scratch)?.map(|()| Some(&scratch[..])))
    })
});

ufunc_loop!(pub(super) extract_loop, 3, |args| {
    for_each_string(&args, |program, s, _| Ok(program.extract(s)))
});

//! The loops of the regex ufuncs (see `catalog`): `_regex_test` (bool), `_regex_count`
//! (int64), `_regex_sub` and `_regex_extract` (strings), each over a string operand and
//! the int64 id of a `regex::RegexProgram` (the `stringdtype.regex` functions pass both).
//!
//! A loop answers each element with the program's engine under the arena locks; the
//! elements the engine cannot answer are copied out and answered afterwards by the
//! program's Python callable, with the locks released (Python code may touch any array).
//! With one program for the call (a scalar id), a large call is split between the pool's
//! threads; Python still answers on the calling thread, in element order, afterwards.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;

use stringdtype_core::{Arena, View};

use crate::arenas::ArenaLocks;
use crate::loops::{self, in_parts, strings_out, strings_out_mut, ufunc_loop};
use crate::loops::{Args, Elem, Piece, Value, Values};
use crate::missing::{self, ops, Missing, MissingResult, OnMissing};
use crate::regex::{program, programs, Program};

/// An element left to Python: the element, its program id and string.
type Pending = Vec<(Elem, i64, Vec<u8>)>;

/// The elements left to Python by the parts of a call, each part adding its own.
type SharedPending = Mutex<Pending>;

/// Adds `more` to the elements left to Python.
fn add_pending(pending: &SharedPending, more: Pending) {
    if !more.is_empty() {
        let mut shared = pending.lock().unwrap_or_else(PoisonError::into_inner);
        shared.extend(more);
    }
}

/// The elements left to Python, in element order, each once: the parts of a split call
/// add theirs in the order they end, and a part of a string loop redone on the calling
/// thread (`loops::strings_out`) adds its elements again.
fn in_element_order(pending: SharedPending) -> Pending {
    let mut pending = pending.into_inner().unwrap_or_else(PoisonError::into_inner);
    pending.sort_unstable_by_key(|&(e, ..)| e);
    pending.dedup_by_key(|&mut (e, ..)| e);
    pending
}

/// Python's answers for the elements left to it (in element order, with no arena
/// locked), each converted by `convert` and passed to `answer`; the first error stops.
fn answer_pending<R>(
    pending: SharedPending,
    convert: impl Fn(&Bound<'_, PyAny>) -> PyResult<R>,
    mut answer: impl FnMut(Elem, R),
) -> PyResult<()> {
    let mut programs = programs();
    for (e, id, s) in in_element_order(pending) {
        answer(e, programs.get(id)?.call_python(&s, &convert)?);
    }
    Ok(())
}

/// One element of a loop with a scalar result: the engine's answer, the result for a
/// missing value, or `None` with the string left to Python in `pending`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn answer<R: MissingResult>(
    e: Elem,
    view: &View,
    arena: &Arena,
    id: i64,
    program: &Program,
    missing: &Missing,
    engine: impl Fn(&Program, &[u8]) -> Option<R>,
    pending: &mut Pending,
) -> PyResult<Option<R>> {
    Ok(match missing.operand(view, arena)? {
        None => Some(R::missing(missing)?),
        Some(s) => engine(program, s).or_else(|| {
            pending.push((e, id, s.to_vec()));
            None
        }),
    })
}

/// Answers each element of a loop with a scalar result, written to `out`:
/// `engine(program, s)` (`None`: ask Python, whose answer `python` converts); a missing
/// value follows the rule `on`.
///
/// With one program for the call (a scalar id, the usual call), the program is fetched
/// once and a large call is split between the pool's threads (`loops::in_parts`): the
/// engine's `Pattern` is `Sync`, and each thread keeps its own matching caches (the
/// core's `regex/cache.rs`, not `regex-automata`'s pool). Each part keeps the elements it
/// leaves to Python and adds them when it ends; Python answers them afterwards on the
/// calling thread, in element order, so results and the error raised are one thread's.
/// With an id per element, the programs are looked up as they come, on the calling
/// thread.
fn for_each_answer<R: Value + MissingResult>(
    args: &Args,
    out: Values<R>,
    on: OnMissing,
    engine: impl Fn(&Program, &[u8]) -> Option<R> + Sync + Copy,
    python: impl Fn(&Bound<'_, PyAny>) -> PyResult<R>,
) -> PyResult<()> {
    let (strings, ids) = (args.strings(0), args.counts(1));
    let state = strings.state();
    let missing = missing::rule(&state.na, on, "");
    let pending = SharedPending::default();
    {
        let locks = ArenaLocks::reading(&[&state.arena]);
        if let Some(id) = ids.scalar() {
            let program = program(id)?;
            let (program, locks, pending) = (&*program, &locks, &pending);
            in_parts(args.elements(), out, move |part| {
                let mut mine = Pending::new();
                let arena = locks.get(0);
                for e in part {
                    let view = strings.view(e);
                    let found = answer(e, &view, arena, id, program, &missing, engine, &mut mine)?;
                    if let Some(value) = found {
                        out.set(e, value);
                    }
                }
                add_pending(pending, mine);
                Ok(())
            })?;
        } else {
            let (mut programs, mut mine) = (programs(), Pending::new());
            for e in args.elements() {
                let (view, id) = (strings.view(e), ids.get(e));
                let program = programs.get(id)?;
                let found = answer(
                    e,
                    &view,
                    locks.get(0),
                    id,
                    program,
                    &missing,
                    engine,
                    &mut mine,
                )?;
                if let Some(value) = found {
                    out.set(e, value);
                }
            }
            add_pending(&pending, mine);
        }
    }
    answer_pending(pending, python, |e, value| out.set(e, value))
}

ufunc_loop!(pub(super) test_loop, 3, |args| {
    let out = args.values::<bool>(2);
    for_each_answer(&args, out, ops::REGEX, Program::test, |r| r.is_truthy())
});

ufunc_loop!(pub(super) count_loop, 3, |args| {
    let out = args.values::<i64>(2);
    for_each_answer(&args, out, ops::REGEX_COUNT, Program::count, |r| r.extract())
});

ufunc_loop!(pub(super) count_nan_loop, 3, |args| {
    let out = args.values::<f64>(2);
    let engine = |program: &Program, s: &[u8]| program.count(s).map(|n| n as f64);
    let python = |r: &Bound<'_, PyAny>| Ok(r.extract::<i64>()? as f64);
    for_each_answer(&args, out, ops::REGEX_COUNT, engine, python)
});

/// One element of a loop with a string result: the engine's result, a missing value,
/// or an empty placeholder with the string left to Python (`defer`).
#[inline(always)]
fn piece<'r, E>(
    view: &'r View,
    arena: &'r Arena,
    program: &Program,
    missing: &Missing<'r>,
    engine: &E,
    scratch: &'r mut Vec<u8>,
    defer: impl FnOnce(&[u8]),
) -> PyResult<Piece<'r>>
where
    E: for<'s> Fn(&Program, &'s [u8], &'s mut Vec<u8>) -> PyResult<Option<Option<&'s [u8]>>>,
{
    let Some(s) = missing.operand(view, arena)? else {
        return Ok(Piece::Missing);
    };
    Ok(match engine(program, s, scratch)? {
        Some(result) => result.into(),
        None => {
            defer(s);
            // A placeholder until Python's answer is written.
            Piece::Bytes(b"")
        }
    })
}

/// Runs a loop with a string result: `engine(program, s, scratch)` gives the result
/// (`Ok(None)`: ask Python, whose answer is a `str`, or `None` for a missing value); a
/// missing value follows the rule [`ops::REGEX`].
///
/// As [`for_each_answer`]: with a scalar id the program is fetched once and the loop is
/// `loops::strings_out`, which splits a large call with a fresh output between the
/// pool's threads; the elements left to Python are answered afterwards in element
/// order, and their results stored with the output's lock taken again.
fn for_each_string<E>(args: &Args, engine: E) -> PyResult<()>
where
    E: for<'r> Fn(&Program, &'r [u8], &'r mut Vec<u8>) -> PyResult<Option<Option<&'r [u8]>>>
        + Sync
        + Copy,
{
    let (strings, ids, out) = (args.strings(0), args.counts(1), args.strings_out(2));
    let missing = missing::rule(&strings.state().na, ops::REGEX, "");
    let pending = SharedPending::default();
    {
        let mut locks = loops::lock(&[strings], &[out]);
        let no_shortcut = |_, _: &[View; 1]| None;
        if let Some(id) = ids.scalar() {
            let program = program(id)?;
            let (program, pending) = (&*program, &pending);
            let defer = move |e, s: &[u8]| add_pending(pending, vec![(e, id, s.to_vec())]);
            strings_out(
                args.elements(),
                &mut locks,
                [strings],
                out,
                no_shortcut,
                move |e, [view], readers, scratch| {
                    let arena = readers.get(0);
                    piece(view, arena, program, &missing, &engine, scratch, |s| {
                        defer(e, s)
                    })
                },
            )?;
        } else {
            let (mut programs, mut mine) = (programs(), Pending::new());
            strings_out_mut(
                args.elements(),
                &mut locks,
                [strings],
                out,
                no_shortcut,
                |e, [view], readers, scratch| {
                    let id = ids.get(e);
                    let program = programs.get(id)?;
                    let defer = |s: &[u8]| mine.push((e, id, s.to_vec()));
                    piece(
                        view,
                        readers.get(0),
                        program,
                        &missing,
                        &engine,
                        scratch,
                        defer,
                    )
                },
            )?;
            add_pending(&pending, mine);
        }
    }
    let mut answers = Vec::new();
    answer_pending(
        pending,
        |r| r.extract(),
        |e, a: Option<String>| answers.push((e, a)),
    )?;
    if answers.is_empty() {
        return Ok(());
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
        Ok(program.sub(s, scratch)?.map(Some))
    })
});

ufunc_loop!(pub(super) extract_loop, 3, |args| {
    for_each_string(&args, |program, s, _| Ok(program.extract(s)))
});

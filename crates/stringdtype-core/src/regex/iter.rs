//! Python's iteration over the matches of a pattern: `findall`, `finditer`, `sub`,
//! `split`, and the count of matches.
//!
//! Python 3.7+ (sre's `must_advance`): matches never overlap; each search starts where
//! the last match ended, and an empty match is allowed there, also right after a
//! non-empty match; after an empty match at `p`, the next match may start at `p` only if
//! it is non-empty (the first non-empty match of the pattern there, [`super::nonempty`]),
//! otherwise it is searched from the next character. So `re.sub('x*', '-', 'abxd')` is
//! `'-a-b--d-'` and `re.split('x*', 'axb')` is `['', 'a', '', 'b', '']`. The engine's
//! own iterators skip an empty match right after a match instead, so they are not used.

use std::ops::Range;

use regex_automata::meta::Cache;
use regex_automata::util::captures::Captures as EngineCaptures;
use regex_automata::util::primitives::NonMaxUsize;
use regex_automata::{Anchored, Input, Span};

use super::cache::{Compiled, Taken};
use super::pattern::{Captures, Engines, Pattern};
use super::template::Template;
use super::NeedsPython;
use crate::kernels::unicode::decode_at;
use crate::view::MAX_STRING_LEN;

/// Where the next search of an iteration starts.
struct Cursor<'p, 'h> {
    engines: &'p Engines,
    haystack: &'h [u8],
    pos: usize,
    must_advance: bool,
    done: bool,
    /// Searches run so far, up to [`TAKE_AFTER`].
    searches: u8,
    /// The caches of the search and the retry, taken from the thread's list after
    /// [`TAKE_AFTER`] searches and held to the end of the iteration.
    taken: [Option<Taken>; 2],
}

/// Searches of an iteration that each find the thread's cache in its list, before the
/// iteration takes the caches out for its remaining searches: taking costs about two
/// searches' lookups, and most short strings need one or two searches (`findall` and
/// `sub` of the short set counted 1.04x-1.05x the instructions when every iteration took
/// them; of the long set, hundreds of searches a string, 0.93x-0.99x).
const TAKE_AFTER: u8 = 2;

/// Which regex a search of the iteration runs.
enum Engine<'p> {
    /// The pattern, unanchored.
    Search(&'p Compiled),
    /// The first non-empty match, anchored.
    Retry(&'p super::pattern::Retry),
}

impl<'p> Engine<'p> {
    /// The regex the search runs.
    fn compiled(&self) -> &'p Compiled {
        match self {
            Engine::Search(regex) => regex,
            Engine::Retry(retry) => &retry.regex,
        }
    }
}

impl<'p, 'h> Cursor<'p, 'h> {
    fn new(engines: &'p Engines, haystack: &'h [u8]) -> Cursor<'p, 'h> {
        Cursor {
            engines,
            haystack,
            pos: 0,
            must_advance: false,
            done: false,
            searches: 0,
            taken: [None, None],
        }
    }

    /// A cursor whose first search starts at `from`, where no match can start before
    /// it (the pattern has a first-byte set, so its first match is not empty).
    fn starting_at(engines: &'p Engines, haystack: &'h [u8], from: usize) -> Cursor<'p, 'h> {
        Cursor {
            pos: from,
            ..Cursor::new(engines, haystack)
        }
    }

    /// A cursor that finds nothing: `haystack` has no match.
    fn finished(engines: &'p Engines, haystack: &'h [u8]) -> Cursor<'p, 'h> {
        Cursor {
            done: true,
            ..Cursor::new(engines, haystack)
        }
    }

    /// Runs `find` with `engine`'s regex (slot `k`) and a cache of this thread's for it.
    fn search<R>(
        &mut self,
        k: usize,
        engine: Engine<'p>,
        find: &mut impl FnMut(Engine<'p>, &mut Cache) -> R,
    ) -> R {
        let regex = engine.compiled();
        if let Some(taken) = &mut self.taken[k] {
            return find(engine, taken.cache());
        }
        if self.searches < TAKE_AFTER {
            self.searches += 1;
            return regex.with_cache(|_, cache| find(engine, cache));
        }
        find(engine, self.taken[k].insert(regex.take()).cache())
    }

    /// The next match, found by `find` (which runs a search with the cache it is given
    /// and returns its span).
    fn step(
        &mut self,
        mut find: impl FnMut(Engine<'p>, &mut Cache, &Input<'h>) -> Option<Span>,
    ) -> Option<Span> {
        if self.done {
            return None;
        }
        let haystack = self.haystack;
        let mut from = self.pos;
        let mut found = None;
        if self.must_advance {
            if let Some(retry) = &self.engines.retry {
                let input = Input::new(haystack)
                    .range(self.pos..)
                    .anchored(Anchored::Yes);
                found = self.search(1, Engine::Retry(retry), &mut |engine, cache| {
                    find(engine, cache, &input)
                });
            }
            if found.is_none() {
                if self.pos >= haystack.len() {
                    self.done = true;
                    return None;
                }
                from = self.pos + decode_at(haystack, self.pos).1;
            }
        }
        if found.is_none() {
            // No match can start before a byte of the set (a pattern with a set never
            // matches empty, so this is never the search after an empty match).
            if let Some(first_bytes) = &self.engines.first_bytes {
                match first_bytes.find(&haystack[from..]) {
                    Some(skip) => from += skip,
                    None => {
                        self.done = true;
                        return None;
                    }
                }
            }
            let input = Input::new(haystack).range(from..);
            let search = Engine::Search(&self.engines.search);
            found = self.search(0, search, &mut |engine, cache| find(engine, cache, &input));
        }
        match found {
            None => self.done = true,
            Some(span) => {
                self.must_advance = span.is_empty();
                self.pos = span.end;
            }
        }
        found
    }

    fn next_span(&mut self) -> Option<Span> {
        self.step(|engine, cache, input| {
            let regex = engine.compiled().regex();
            regex.search_with(cache, input).map(|m| m.span())
        })
    }
}

/// The spans of the matches (`re.finditer(p, s)`), in bytes.
pub struct Matches<'p, 'h> {
    cursor: Cursor<'p, 'h>,
}

impl Iterator for Matches<'_, '_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        self.cursor.next_span().map(|span| span.range())
    }
}

/// The groups of the matches (`re.finditer(p, s)`).
pub struct CapturesIter<'p, 'h> {
    cursor: Cursor<'p, 'h>,
    groups: usize,
    search: EngineCaptures,
    retry: Option<EngineCaptures>,
}

impl<'h> Iterator for CapturesIter<'_, 'h> {
    type Item = Captures<'h>;

    fn next(&mut self) -> Option<Captures<'h>> {
        let (search, retry) = (&mut self.search, &mut self.retry);
        let mut map = None;
        self.cursor.step(|engine, cache, input| match engine {
            Engine::Search(regex) => {
                regex.regex().search_captures_with(cache, input, search);
                map = None;
                search.get_match().map(|m| m.span())
            }
            Engine::Retry(r) => {
                let caps = retry.get_or_insert_with(|| r.regex.regex().create_captures());
                r.regex.regex().search_captures_with(cache, input, caps);
                map = Some(r.groups.as_slice());
                caps.get_match().map(|m| m.span())
            }
        })?;
        let caps = match map {
            None => &self.search,
            Some(_) => self.retry.as_ref()?,
        };
        Some(Captures::from_engine(
            self.cursor.haystack,
            caps,
            self.groups,
            map,
        ))
    }
}

/// Why `sub` gave no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubError {
    /// Run Python's `re.sub` on this string.
    NeedsPython(NeedsPython),
    /// The result does not fit (memory or the string length limit).
    Failed(crate::Error),
}

impl From<NeedsPython> for SubError {
    fn from(reason: NeedsPython) -> SubError {
        SubError::NeedsPython(reason)
    }
}

impl std::fmt::Display for SubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SubError::NeedsPython(reason) => reason.fmt(f),
            SubError::Failed(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SubError {}

/// The most matches a count of Python's allows: 0 means all, a negative count none.
fn limit(count: i64) -> usize {
    match count {
        0 => usize::MAX,
        n => usize::try_from(n).unwrap_or(0),
    }
}

impl Pattern {
    /// The matches' spans, as `re.finditer` finds them.
    pub fn find_iter<'p, 'h>(&'p self, haystack: &'h [u8]) -> Result<Matches<'p, 'h>, NeedsPython> {
        Ok(Matches {
            cursor: self.cursor(haystack)?,
        })
    }

    /// The cursor of an iteration over `haystack`; one that finds nothing, without asking
    /// which regexes `haystack` needs, when it has no byte a match can start with (exact
    /// also for the strings the engine leaves to Python).
    /// The first search starts at the first candidate byte, so the set is scanned once.
    fn cursor<'p, 'h>(&'p self, haystack: &'h [u8]) -> Result<Cursor<'p, 'h>, NeedsPython> {
        match self.first_candidate(haystack) {
            // Any variant's regexes do: none is run.
            None => Ok(Cursor::finished(self.any_engines(), haystack)),
            Some(from) => Ok(Cursor::starting_at(self.engines(haystack)?, haystack, from)),
        }
    }

    /// The matches' groups, as `re.finditer` finds them.
    pub fn captures_iter<'p, 'h>(
        &'p self,
        haystack: &'h [u8],
    ) -> Result<CapturesIter<'p, 'h>, NeedsPython> {
        let cursor = self.cursor(haystack)?;
        let search = &cursor.engines.search;
        // A cursor that finds nothing never fills the buffer: do not allocate one.
        let search = if cursor.done {
            EngineCaptures::empty(search.regex().group_info().clone())
        } else {
            search.regex().create_captures()
        };
        Ok(CapturesIter {
            cursor,
            groups: self.groups(),
            search,
            retry: None,
        })
    }

    /// The number of matches: `len(re.findall(p, s))`.
    pub fn count(&self, haystack: &[u8]) -> Result<usize, NeedsPython> {
        if self.can_match_empty() {
            return Ok(self.find_iter(haystack)?.count());
        }
        // Every match is non-empty, so each search starts where the last one ended and
        // only the ends matter: the engine's forward scan finds them alone.
        if self.cannot_match_short(haystack) {
            return Ok(0);
        }
        let regex = &self.engines(haystack)?.search;
        let mut count = 0;
        let mut input = Input::new(haystack);
        regex.with_cache(|regex, cache| {
            while let Some(end) = regex.search_half_with(cache, &input) {
                count += 1;
                input.set_start(end.offset());
            }
        });
        Ok(count)
    }

    /// `re.split(p, s, maxsplit)`: the pieces between matches, each followed by the
    /// match's groups (`None` for a group that did not take part).
    pub fn split<'h>(
        &self,
        haystack: &'h [u8],
        maxsplit: i64,
    ) -> Result<Vec<Option<&'h [u8]>>, NeedsPython> {
        let mut pieces = Vec::new();
        let mut last = 0;
        let max = limit(maxsplit);
        if max > 0 {
            if self.groups() == 0 {
                for span in self.find_iter(haystack)?.take(max) {
                    pieces.push(Some(&haystack[last..span.start]));
                    last = span.end;
                }
            } else {
                for caps in self.captures_iter(haystack)?.take(max) {
                    let span = caps.span(0).unwrap_or(last..last);
                    pieces.push(Some(&haystack[last..span.start]));
                    pieces.extend((1..caps.len()).map(|g| caps.get(g)));
                    last = span.end;
                }
            }
        }
        pieces.push(Some(&haystack[last..]));
        Ok(pieces)
    }

    /// Appends `re.sub(p, template, s, count)` to `out` (0 replaces all matches, a
    /// negative count none) and returns the number of replacements. On an error `out` is
    /// left as it was.
    pub fn sub(
        &self,
        haystack: &[u8],
        template: &Template,
        count: i64,
        out: &mut Vec<u8>,
    ) -> Result<usize, SubError> {
        let start = out.len();
        let replaced = self.sub_if_changed(haystack, template, count, out)?;
        if replaced == 0 {
            // `haystack` is a string, so it fits in one.
            out.try_reserve(haystack.len())
                .map_err(|_| SubError::Failed(crate::Error::OutOfMemory(haystack.len())))?;
            out.extend_from_slice(haystack);
        }
        debug_assert!(replaced > 0 || out.len() - start == haystack.len());
        Ok(replaced)
    }

    /// [`Pattern::sub`] for a caller that can use `haystack` itself as the result: where
    /// nothing is replaced (0), nothing is appended to `out` (the result is `haystack`).
    pub fn sub_if_changed(
        &self,
        haystack: &[u8],
        template: &Template,
        count: i64,
        out: &mut Vec<u8>,
    ) -> Result<usize, SubError> {
        let Some(from) = self.first_candidate(haystack) else {
            return Ok(0);
        };
        let start = out.len();
        let result = self.sub_into(haystack, template, limit(count), out, start, from);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// Appends the result of replacing the first `max` matches, if there is any match;
    /// none starts before `from`.
    fn sub_into(
        &self,
        haystack: &[u8],
        template: &Template,
        max: usize,
        out: &mut Vec<u8>,
        start: usize,
        from: usize,
    ) -> Result<usize, SubError> {
        let mut push = |bytes: &[u8]| -> Result<(), crate::Error> {
            let len = out.len() - start + bytes.len();
            if len > MAX_STRING_LEN {
                return Err(crate::Error::StringTooLong(len));
            }
            out.try_reserve(bytes.len())
                .map_err(|_| crate::Error::OutOfMemory(bytes.len()))?;
            out.extend_from_slice(bytes);
            Ok(())
        };
        let mut last = 0;
        let mut replaced = 0;
        let engines = self.engines(haystack)?;
        let mut cursor = Cursor::starting_at(engines, haystack, from);
        if let Some(literal) = template.as_literal() {
            while replaced < max {
                let Some(span) = cursor.next_span() else {
                    break;
                };
                push(&haystack[last..span.start]).map_err(SubError::Failed)?;
                push(literal).map_err(SubError::Failed)?;
                last = span.end;
                replaced += 1;
            }
        } else {
            let mut slots = Slots::for_engines(engines);
            while replaced < max {
                let Some(span) = slots.next_match(&mut cursor) else {
                    break;
                };
                push(&haystack[last..span.start]).map_err(SubError::Failed)?;
                template
                    .expand(|g| slots.group(haystack, g), &mut push)
                    .map_err(SubError::Failed)?;
                last = span.end;
                replaced += 1;
            }
        }
        if replaced > 0 {
            push(&haystack[last..]).map_err(SubError::Failed)?;
        }
        Ok(replaced)
    }
}

/// How many capture slots (two per group) [`Slots`] keeps on the stack: a pattern with
/// up to seven groups substitutes without allocating.
const STACK_SLOTS: usize = 16;

/// The capture slots of the last match of an iteration, with the numbering of the
/// regex that found it: one buffer for every match of a string, on the stack when the
/// pattern has few groups ([`Captures`] allocates per match).
struct Slots<'p> {
    stack: [Option<NonMaxUsize>; STACK_SLOTS],
    heap: Vec<Option<NonMaxUsize>>,
    /// The slots the last search filled.
    len: usize,
    /// For each Python group, the engine's number, when the rewrite found the match.
    map: Option<&'p [Option<usize>]>,
}

impl<'p> Slots<'p> {
    fn for_engines(engines: &Engines) -> Slots<'p> {
        let retry_len = engines
            .retry
            .as_ref()
            .map(|r| r.regex.regex().group_info().slot_len());
        let len = retry_len
            .unwrap_or(0)
            .max(engines.search.regex().group_info().slot_len());
        Slots {
            stack: [None; STACK_SLOTS],
            heap: if len > STACK_SLOTS {
                vec![None; len]
            } else {
                Vec::new()
            },
            len: 0,
            map: None,
        }
    }

    fn all(&mut self) -> &mut [Option<NonMaxUsize>] {
        if self.heap.is_empty() {
            &mut self.stack
        } else {
            &mut self.heap
        }
    }

    /// The next match of `cursor`, its groups kept here.
    fn next_match<'h>(&mut self, cursor: &mut Cursor<'p, 'h>) -> Option<Range<usize>> {
        let mut found = None;
        let span = cursor.step(|engine, cache, input| {
            let (regex, map) = match engine {
                Engine::Search(regex) => (regex, None),
                Engine::Retry(retry) => (&retry.regex, Some(retry.groups.as_slice())),
            };
            let len = regex.regex().group_info().slot_len();
            let slots = &mut self.all()[..len];
            regex.regex().search_slots_with(cache, input, slots)?;
            found = Some((len, map));
            let slots = &self.all()[..2];
            Some(Span::from(slots[0]?.get()..slots[1]?.get()))
        })?;
        (self.len, self.map) = found?;
        Some(span.range())
    }

    /// The text of Python's group `group` in the last match, if it took part.
    fn group<'h>(&self, haystack: &'h [u8], group: usize) -> Option<&'h [u8]> {
        let engine_group = match self.map {
            None => group,
            Some(map) => map.get(group).copied().flatten()?,
        };
        let slots = if self.heap.is_empty() {
            &self.stack[..self.len]
        } else {
            &self.heap[..self.len]
        };
        let start = slots.get(2 * engine_group).copied().flatten()?.get();
        let end = slots.get(2 * engine_group + 1).copied().flatten()?.get();
        Some(&haystack[start..end])
    }
}

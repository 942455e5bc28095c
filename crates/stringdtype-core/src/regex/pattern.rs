//! [`Pattern`]: a Python pattern compiled for the engine, with the single-match
//! operations (`re.search`, `re.match`, `re.fullmatch`, extract).
//!
//! A pattern compiles into one engine regex with Python's `$` as the end of the string.
//! Variants are compiled on first use: `$` before a final newline (for strings whose only
//! newline is their last character), the pattern followed by the end of the string (for
//! `fullmatch`: `re.fullmatch('a|ab', 'ab')` matches, where an anchored search would stop
//! at 'a'), and the rewrite that finds the first non-empty match after an empty one
//! ([`super::nonempty`]).

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use regex_automata::meta;

use super::cache::Compiled;
use regex_automata::util::captures::Captures as EngineCaptures;
use regex_automata::{Anchored, Input, MatchKind, PatternID};
use regex_syntax::hir::{ClassUnicode, Hir, Look};

use super::classes::{contains_any, UnicodeClasses};
use super::expr::Expr;
use super::first_bytes::FirstBytes;
use super::nonempty::{self, NonEmpty};
use super::parse::parse;
use super::translate::{lower, translate, Needs, Numbering};
use super::{Flags, NeedsPython, PatternError};

/// The most memory one compiled regex (Thompson NFA) may take.
pub const SIZE_LIMIT: usize = 16 << 20;
/// The most memory the lazy DFA of one regex may take per thread.
pub const CACHE_CAPACITY: usize = 2 << 20;

/// The longest string that a single search scans for a byte of the first-byte set before
/// running the engine. On a short string the engine's fixed cost per search (its cache
/// pool, start state) is most of the work, and the scan (a few instructions a byte) is
/// cheap beside it; on a longer one the engine's own prefilter scans faster than the
/// table does, and a string holding a candidate would pay for both.
const SCAN_BEFORE_SEARCH: usize = 16;

/// A Python pattern compiled for the engine. Share it between threads: searches take the
/// engine's per-thread caches from a pool.
pub struct Pattern {
    pattern: String,
    flags: Flags,
    needs: Needs,
    disagreement: Option<Arc<ClassUnicode>>,
    /// Whether some match can be empty (else matches never need Python's empty-match
    /// rules).
    nullable: bool,
    source: Source,
    at_end: Engines,
    before_newline: OnceLock<Option<Engines>>,
    full: [OnceLock<Option<Compiled>>; 2],
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pattern")
            .field("pattern", &self.pattern)
            .field("flags", &self.flags)
            .finish_non_exhaustive()
    }
}

/// What Python's `$` (without MULTILINE) is for one string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dollar {
    /// The end of the string (the string does not end with '\n').
    AtEnd,
    /// Before a '\n' or at the end (the string's only '\n' is its last character).
    BeforeNewline,
}

impl Dollar {
    fn look(self) -> Look {
        match self {
            Dollar::AtEnd => Look::End,
            Dollar::BeforeNewline => Look::EndLF,
        }
    }
}

/// What the regexes are compiled from.
struct Source {
    expr: Expr,
    groups: usize,
    names: Vec<(String, u32)>,
    non_empty: NonEmpty,
}

/// The regexes an iteration uses, for one choice of `$`.
pub(crate) struct Engines {
    /// The pattern, with Python's group numbers.
    pub(crate) search: Compiled,
    /// The first non-empty match at a position, when the pattern needs it.
    pub(crate) retry: Option<Retry>,
    /// The bytes a match can start with, when that rules out some strings.
    pub(crate) first_bytes: Option<FirstBytes>,
}

/// The non-empty rewrite, whose groups are numbered in their order of appearance.
pub(crate) struct Retry {
    pub(crate) regex: Compiled,
    /// For each Python group number, the rewrite's number of it (if it appears).
    pub(crate) groups: Vec<Option<usize>>,
}

impl Engines {
    fn build(source: &Source, dollar: Dollar) -> Result<Engines, PatternError> {
        let mut numbering = Numbering::Python(&source.names);
        let hir = lower(&source.expr, dollar.look(), &mut numbering);
        let first_bytes = FirstBytes::of(&hir);
        let search = build(&hir, source.groups)?;
        let retry = match &source.non_empty {
            NonEmpty::Retry(expr) => {
                let mut numbering = Numbering::Renumbered { python: Vec::new() };
                let hir = lower(expr, dollar.look(), &mut numbering);
                let Numbering::Renumbered { python } = numbering else {
                    unreachable!("the numbering stays renumbered")
                };
                let regex = build(&hir, python.len())?;
                let mut groups = vec![None; source.groups + 1];
                groups[0] = Some(0);
                for (k, &g) in python.iter().enumerate() {
                    groups[g as usize] = Some(k + 1);
                }
                Some(Retry { regex, groups })
            }
            NonEmpty::Never | NonEmpty::NextCharacter => None,
        };
        Ok(Engines {
            search,
            retry,
            first_bytes,
        })
    }
}

/// Compiles `hir`, which must have `groups` capture groups.
fn build(hir: &Hir, groups: usize) -> Result<Compiled, PatternError> {
    let config = meta::Config::new()
        .match_kind(MatchKind::LeftmostFirst)
        .utf8_empty(true)
        .nfa_size_limit(Some(SIZE_LIMIT))
        .onepass_size_limit(Some(SIZE_LIMIT / 16))
        .hybrid_cache_capacity(CACHE_CAPACITY);
    let regex = meta::Builder::new()
        .configure(config)
        .build_from_hir(hir)
        .map_err(|error| match error.size_limit() {
            Some(limit) => PatternError::TooLarge { limit },
            None => PatternError::unsupported(format!("the engine refused it: {error}")),
        })?;
    if regex.group_info().group_len(PatternID::ZERO) != groups + 1 {
        return Err(PatternError::unsupported(
            "groups the engine numbers differently",
        ));
    }
    Ok(Compiled::new(regex))
}

impl Pattern {
    /// Compiles `pattern` with `flags` (Python's, such as `re.compile(p).flags`; inline
    /// flags in the pattern work too), with Python's classes from `classes`.
    pub fn new(
        pattern: &str,
        flags: Flags,
        classes: &UnicodeClasses<'_>,
    ) -> Result<Pattern, PatternError> {
        let parsed = parse(pattern, flags)?;
        let translation = translate(&parsed, classes)?;
        let non_empty = nonempty::plan(&translation.expr)?;
        let disagreement = translation
            .needs
            .unicode_boundary
            .then(|| Arc::clone(classes.word_disagreement()));
        let nullable = translation.expr.nullable();
        let source = Source {
            expr: translation.expr,
            groups: parsed.groups as usize,
            names: parsed.names,
            non_empty,
        };
        Ok(Pattern {
            pattern: pattern.to_owned(),
            flags: parsed.flags,
            needs: translation.needs,
            disagreement,
            nullable,
            at_end: Engines::build(&source, Dollar::AtEnd)?,
            source,
            before_newline: OnceLock::new(),
            full: [OnceLock::new(), OnceLock::new()],
        })
    }

    /// Whether some match can be empty.
    pub fn can_match_empty(&self) -> bool {
        self.nullable
    }

    /// Whether `haystack` holds no byte a match can start with, so that it has no match
    /// (for Python too: this is exact on every string, also those the engine leaves to
    /// Python). `false` says nothing.
    #[inline]
    pub fn cannot_match(&self, haystack: &[u8]) -> bool {
        self.first_candidate(haystack).is_none()
    }

    /// Whether no match can start at the beginning of `haystack`, so that `re.match` and
    /// `re.fullmatch` find nothing: it is empty or its first byte starts no match (exact
    /// as [`Pattern::cannot_match`]). `false` says nothing.
    #[inline]
    pub fn cannot_match_at_start(&self, haystack: &[u8]) -> bool {
        self.first_bytes()
            .is_some_and(|set| haystack.first().is_none_or(|&b| !set.contains(b)))
    }

    /// The set of bytes a match can start with, if the pattern has one (never when it can
    /// match the empty string). It does not depend on `$`, so the first variant's serves
    /// every string.
    #[inline]
    fn first_bytes(&self) -> Option<&FirstBytes> {
        self.at_end.first_bytes.as_ref()
    }

    /// The earliest offset a match of `haystack` can start at, `None` when it has no
    /// match: a search from there finds what a search from 0 would, as looks still see
    /// the bytes before it.
    #[inline]
    pub(crate) fn first_candidate(&self, haystack: &[u8]) -> Option<usize> {
        match self.first_bytes() {
            Some(set) => set.find(haystack),
            None => Some(0),
        }
    }

    /// The pattern text.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// The flags in effect: the caller's, inline global ones, and UNICODE unless ASCII.
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The number of capture groups (Python's `Pattern.groups`).
    pub fn groups(&self) -> usize {
        self.source.groups
    }

    /// The number of the group called `name` (Python's `Pattern.groupindex[name]`).
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.source
            .names
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, i)| i as usize)
    }

    /// The group names with their numbers, in pattern order.
    pub fn group_names(&self) -> impl Iterator<Item = (&str, usize)> {
        self.source
            .names
            .iter()
            .map(|(n, i)| (n.as_str(), *i as usize))
    }

    /// Whether the engine gives Python's answers for `haystack`; otherwise every
    /// operation on it returns [`NeedsPython`] (as it also does, rarely, when a variant
    /// of the pattern for this string exceeds the size limit). Strings of ASCII
    /// characters always get them, except with `$` and several newlines, or `\B` and an
    /// empty string.
    pub fn engine_is_exact_for(&self, haystack: &[u8]) -> bool {
        self.dollar_for(haystack).is_ok()
    }

    fn dollar_for(&self, haystack: &[u8]) -> Result<Dollar, NeedsPython> {
        if self.needs.non_boundary && haystack.is_empty() {
            return Err(NeedsPython::EmptyString);
        }
        if let Some(disagreement) = &self.disagreement {
            if !haystack.is_ascii() && contains_any(disagreement, haystack) {
                return Err(NeedsPython::WordBoundary);
            }
        }
        match haystack.split_last() {
            Some((b'\n', before)) if self.needs.dollar => match memchr::memchr(b'\n', before) {
                Some(_) => Err(NeedsPython::FinalNewline),
                None => Ok(Dollar::BeforeNewline),
            },
            _ => Ok(Dollar::AtEnd),
        }
    }

    /// [`Pattern::cannot_match`] for a single search: only a string of up to
    /// [`SCAN_BEFORE_SEARCH`] bytes is scanned (a longer one gives `false`). A search that
    /// runs still starts at 0 (starting it at the candidate measured dearer).
    #[inline]
    pub(crate) fn cannot_match_short(&self, haystack: &[u8]) -> bool {
        haystack.len() <= SCAN_BEFORE_SEARCH && self.cannot_match(haystack)
    }

    /// The regexes of the variant every pattern has, for an iteration that runs none.
    pub(crate) fn any_engines(&self) -> &Engines {
        &self.at_end
    }

    /// The regexes for `haystack`.
    pub(crate) fn engines(&self, haystack: &[u8]) -> Result<&Engines, NeedsPython> {
        match self.dollar_for(haystack)? {
            Dollar::AtEnd => Ok(&self.at_end),
            Dollar::BeforeNewline => self
                .before_newline
                .get_or_init(|| Engines::build(&self.source, Dollar::BeforeNewline).ok())
                .as_ref()
                .ok_or(NeedsPython::Compile),
        }
    }

    fn full(&self, haystack: &[u8]) -> Result<&Compiled, NeedsPython> {
        let dollar = self.dollar_for(haystack)?;
        self.full[dollar as usize]
            .get_or_init(|| {
                let mut numbering = Numbering::Python(&self.source.names);
                let hir = Hir::concat(vec![
                    lower(&self.source.expr, dollar.look(), &mut numbering),
                    Hir::look(Look::End),
                ]);
                build(&hir, self.source.groups).ok()
            })
            .as_ref()
            .ok_or(NeedsPython::Compile)
    }

    /// `re.search(p, s) is not None`.
    pub fn is_match(&self, haystack: &[u8]) -> Result<bool, NeedsPython> {
        if self.cannot_match_short(haystack) {
            return Ok(false);
        }
        let input = Input::new(haystack);
        let search = &self.engines(haystack)?.search;
        Ok(search.with_cache(|regex, cache| regex.is_match_with(cache, &input)))
    }

    /// `re.match(p, s) is not None`: a match starting at the beginning.
    pub fn is_match_at_start(&self, haystack: &[u8]) -> Result<bool, NeedsPython> {
        if self.cannot_match_at_start(haystack) {
            return Ok(false);
        }
        let input = Input::new(haystack).anchored(Anchored::Yes);
        let search = &self.engines(haystack)?.search;
        Ok(search.with_cache(|regex, cache| regex.is_match_with(cache, &input)))
    }

    /// `re.fullmatch(p, s) is not None`.
    pub fn is_fullmatch(&self, haystack: &[u8]) -> Result<bool, NeedsPython> {
        if self.cannot_match_at_start(haystack) {
            return Ok(false);
        }
        let input = Input::new(haystack).anchored(Anchored::Yes);
        let full = self.full(haystack)?;
        Ok(full.with_cache(|regex, cache| regex.is_match_with(cache, &input)))
    }

    /// `re.search(p, s).span()`, in bytes.
    pub fn search(&self, haystack: &[u8]) -> Result<Option<Range<usize>>, NeedsPython> {
        if self.cannot_match_short(haystack) {
            return Ok(None);
        }
        let input = Input::new(haystack);
        let search = &self.engines(haystack)?.search;
        let found = search.with_cache(|regex, cache| regex.search_with(cache, &input));
        Ok(found.map(|m| m.range()))
    }

    /// The groups of `re.search(p, s)`.
    pub fn search_captures<'h>(
        &self,
        haystack: &'h [u8],
    ) -> Result<Option<Captures<'h>>, NeedsPython> {
        if self.cannot_match_short(haystack) {
            return Ok(None);
        }
        let (regex, input) = (&self.engines(haystack)?.search, Input::new(haystack));
        Ok(captures(regex, &input, haystack, self.groups()))
    }

    /// The groups of `re.fullmatch(p, s)`.
    pub fn fullmatch_captures<'h>(
        &self,
        haystack: &'h [u8],
    ) -> Result<Option<Captures<'h>>, NeedsPython> {
        if self.cannot_match_at_start(haystack) {
            return Ok(None);
        }
        let input = Input::new(haystack).anchored(Anchored::Yes);
        Ok(captures(
            self.full(haystack)?,
            &input,
            haystack,
            self.groups(),
        ))
    }

    /// Group `group` of the first match (`re.search(p, s).group(group)`): `None` when
    /// nothing matches, the group did not take part, or the pattern has no such group.
    pub fn extract<'h>(
        &self,
        haystack: &'h [u8],
        group: usize,
    ) -> Result<Option<&'h [u8]>, NeedsPython> {
        if group > self.groups() || self.cannot_match_short(haystack) {
            return Ok(None);
        }
        // The one group read from the engine's buffer (the search regex numbers groups
        // as Python does), without the list of every group `search_captures` makes.
        let (regex, input) = (&self.engines(haystack)?.search, Input::new(haystack));
        Ok(regex.with_captures(|regex, cache, caps| {
            regex.search_captures_with(cache, &input, caps);
            caps.get_group(group).map(|span| &haystack[span.range()])
        }))
    }
}

/// The groups of the match of `regex` on `input`, if any.
fn captures<'h>(
    regex: &Compiled,
    input: &Input<'_>,
    haystack: &'h [u8],
    groups: usize,
) -> Option<Captures<'h>> {
    regex.with_captures(|regex, cache, caps| {
        regex.search_captures_with(cache, input, caps);
        caps.is_match()
            .then(|| Captures::from_engine(haystack, caps, groups, None))
    })
}

/// The groups of one match: group 0 is the whole match, groups that did not take part are
/// `None`. Positions are byte offsets into the haystack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captures<'h> {
    haystack: &'h [u8],
    spans: Vec<Option<(usize, usize)>>,
}

impl<'h> Captures<'h> {
    /// Python's groups of an engine match; `map` gives the engine's number of each Python
    /// group when they differ.
    pub(crate) fn from_engine(
        haystack: &'h [u8],
        caps: &EngineCaptures,
        groups: usize,
        map: Option<&[Option<usize>]>,
    ) -> Captures<'h> {
        let spans = (0..=groups)
            .map(|g| {
                let engine_group = match map {
                    None => Some(g),
                    Some(map) => map.get(g).copied().flatten(),
                };
                let span = engine_group.and_then(|k| caps.get_group(k))?;
                Some((span.start, span.end))
            })
            .collect();
        Captures { haystack, spans }
    }

    /// The number of groups, group 0 included (`Pattern::groups() + 1`).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Never true: group 0 always exists.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The byte range of group `group`, if it took part.
    pub fn span(&self, group: usize) -> Option<Range<usize>> {
        self.spans
            .get(group)
            .copied()
            .flatten()
            .map(|(start, end)| start..end)
    }

    /// The text of group `group`, if it took part.
    pub fn get(&self, group: usize) -> Option<&'h [u8]> {
        self.span(group).map(|range| &self.haystack[range])
    }
}

//! The matching caches of the regexes, kept per thread. The engine's own `is_match`,
//! `search` and friends take a cache from the regex's pool, whose fast path serves only
//! the one thread that first used it; every other thread locks a stack on each call,
//! and on the package's pool (two threads on one pattern) that made `fullmatch` and
//! `extract` slower on two threads than on one. Here each thread keeps the caches of the
//! last few regexes it ran, found by the regex's identity, and no call shares anything.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use regex_automata::meta::{Cache, Regex};
use regex_automata::util::captures::Captures;

/// How many regexes' caches each thread keeps (a pattern runs at most three: its search,
/// its non-empty rewrite and its full match); the oldest is dropped for a new one, and
/// made again when its regex runs again.
const KEPT: usize = 4;

/// Identities of compiled regexes, never reused (a cache made for one regex must never
/// serve another).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// What a thread keeps for one regex: its matching cache, and a buffer of its groups
/// (making one per search shares the regex's group names, an `Arc` whose count two
/// threads then wrote on every search: `extract` took twice as long on two threads).
struct Kept {
    cache: Cache,
    captures: Option<Captures>,
}

thread_local! {
    /// This thread's caches, oldest first.
    static CACHES: RefCell<Vec<(u64, Box<Kept>)>> = const { RefCell::new(Vec::new()) };
}

/// A compiled regex with an identity its caches are kept under.
pub(crate) struct Compiled {
    regex: Regex,
    id: u64,
}

impl Compiled {
    pub(crate) fn new(regex: Regex) -> Compiled {
        Compiled {
            regex,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The regex, for what needs no cache (its groups, a captures buffer).
    pub(crate) fn regex(&self) -> &Regex {
        &self.regex
    }

    /// Runs `search` with the regex and this thread's cache for it (made on first use).
    #[inline]
    pub(crate) fn with_cache<R>(&self, search: impl FnOnce(&Regex, &mut Cache) -> R) -> R {
        self.with_kept(|regex, kept| search(regex, &mut kept.cache))
    }

    /// Runs `search` with the regex, this thread's cache for it and a buffer of its
    /// groups (each made on first use; the buffer holds the last search's groups).
    #[inline]
    pub(crate) fn with_captures<R>(
        &self,
        search: impl FnOnce(&Regex, &mut Cache, &mut Captures) -> R,
    ) -> R {
        self.with_kept(|regex, kept| {
            let captures = kept.captures.get_or_insert_with(|| regex.create_captures());
            search(regex, &mut kept.cache, captures)
        })
    }

    /// Runs `search` with what this thread keeps for the regex. The thread's list is
    /// borrowed while `search` runs, which only runs the engine; a search inside it
    /// (none does) would get fresh ones, never shared ones.
    #[inline]
    fn with_kept<R>(&self, search: impl FnOnce(&Regex, &mut Kept) -> R) -> R {
        let mut search = Some(search);
        let done = CACHES.try_with(|caches| {
            let mut caches = caches.try_borrow_mut().ok()?;
            let kept = match caches.last_mut() {
                Some((id, kept)) if *id == self.id => kept,
                _ => self.find_or_make(&mut caches),
            };
            Some((search.take()?)(&self.regex, kept))
        });
        match (done, search) {
            (Ok(Some(result)), _) => result,
            // (Also while the thread's storage is being destroyed.)
            (_, Some(search)) => search(&self.regex, &mut self.fresh()),
            (_, None) => unreachable!("`search` ran and returned"),
        }
    }

    /// This regex's entry in `caches` (not the last one), made in place of the oldest
    /// when there is none.
    fn find_or_make<'c>(&self, caches: &'c mut Vec<(u64, Box<Kept>)>) -> &'c mut Kept {
        match caches.iter().position(|(id, _)| *id == self.id) {
            Some(at) => &mut caches[at].1,
            None => keep(caches, self.id, Box::new(self.fresh())),
        }
    }

    /// This thread's cache for the regex, out of the thread's list until the result is
    /// dropped: for an iteration with many searches, whose searches run between the
    /// caller's own steps.
    pub(crate) fn take(&self) -> Taken {
        let kept = CACHES
            .try_with(|caches| {
                let mut caches = caches.try_borrow_mut().ok()?;
                let at = caches.iter().rposition(|(id, _)| *id == self.id)?;
                Some(caches.remove(at).1)
            })
            .ok()
            .flatten()
            .unwrap_or_else(|| Box::new(self.fresh()));
        Taken {
            id: self.id,
            kept: Some(kept),
        }
    }

    fn fresh(&self) -> Kept {
        Kept {
            cache: self.regex.create_cache(),
            captures: None,
        }
    }
}

/// A regex's cache taken out of the thread's list ([`Compiled::take`]), put back when
/// dropped (unless the list has one for the regex again).
pub(crate) struct Taken {
    id: u64,
    kept: Option<Box<Kept>>,
}

impl Taken {
    /// The matching cache.
    #[inline]
    pub(crate) fn cache(&mut self) -> &mut Cache {
        &mut self.kept.as_mut().expect("kept until dropped").cache
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        let Some(kept) = self.kept.take() else {
            return;
        };
        let _ = CACHES.try_with(|caches| {
            let Ok(mut caches) = caches.try_borrow_mut() else {
                return;
            };
            if !caches.iter().any(|(id, _)| *id == self.id) {
                keep(&mut caches, self.id, kept);
            }
        });
    }
}

/// Adds `kept` for regex `id` (which has none in `caches`) as the newest, in place of the
/// oldest when the list is full.
fn keep(caches: &mut Vec<(u64, Box<Kept>)>, id: u64, kept: Box<Kept>) -> &mut Kept {
    if caches.len() >= KEPT {
        caches.remove(0);
    }
    caches.push((id, kept));
    &mut caches.last_mut().expect("just pushed").1
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::Input;

    fn kept() -> Vec<u64> {
        CACHES.with(|caches| caches.borrow().iter().map(|(id, _)| *id).collect())
    }

    #[test]
    fn each_thread_keeps_the_last_few_regexes_caches() {
        let regexes: Vec<Compiled> = (0..6)
            .map(|k| Compiled::new(Regex::new(&format!("a{{{k}}}b")).unwrap()))
            .collect();
        for (k, compiled) in regexes.iter().enumerate() {
            let haystack = format!("x{}b", "a".repeat(k));
            let found = compiled.with_cache(|regex, cache| {
                regex
                    .search_with(cache, &Input::new(&haystack))
                    .map(|m| m.range())
            });
            assert_eq!(found, Some(1..k + 2));
        }
        let ids: Vec<u64> = regexes.iter().map(|r| r.id).collect();
        assert_eq!(
            kept(),
            ids[ids.len() - KEPT..],
            "the last ones, oldest first"
        );
        // A regex used again finds its cache; the first one's is made again, in place
        // of the oldest.
        assert!(
            regexes[3].with_cache(|regex, cache| regex.is_match_with(cache, &Input::new("aaab")))
        );
        assert_eq!(kept(), ids[ids.len() - KEPT..]);
        regexes[0].with_cache(|regex, cache| regex.is_match_with(cache, &Input::new("b")));
        assert_eq!(kept(), [ids[3], ids[4], ids[5], ids[0]]);
    }

    #[test]
    fn a_search_inside_a_search_gets_a_fresh_cache() {
        let compiled = Compiled::new(Regex::new(r"\d+").unwrap());
        let (outer, inner) = compiled.with_cache(|regex, cache| {
            let inner = compiled.with_cache(|regex, cache| {
                regex
                    .search_with(cache, &Input::new("ab 12"))
                    .map(|m| m.range())
            });
            (
                regex
                    .search_with(cache, &Input::new("345"))
                    .map(|m| m.range()),
                inner,
            )
        });
        assert_eq!((outer, inner), (Some(0..3), Some(3..5)));
        assert_eq!(kept().iter().filter(|&&id| id == compiled.id).count(), 1);
    }

    #[test]
    fn threads_search_one_regex_at_once() {
        let compiled = Compiled::new(Regex::new(r"[a-z]+\d").unwrap());
        std::thread::scope(|scope| {
            for t in 0..4 {
                let compiled = &compiled;
                scope.spawn(move || {
                    for i in 0..2000 {
                        let haystack = format!("{} abc{}", i, (i + t) % 10);
                        let found = compiled.with_cache(|regex, cache| {
                            regex
                                .search_with(cache, &Input::new(&haystack))
                                .map(|m| m.len())
                        });
                        assert_eq!(found, Some(4));
                    }
                });
            }
        });
    }

    #[test]
    fn the_groups_buffer_holds_only_the_last_search() {
        let compiled = Compiled::new(Regex::new(r"(a)|(b)x?").unwrap());
        let groups = |haystack: &str| {
            compiled.with_captures(|regex, cache, caps| {
                regex.search_captures_with(cache, &Input::new(haystack), caps);
                (0..3)
                    .map(|g| caps.get_group(g).map(|span| span.range()))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(groups("_a"), [Some(1..2), Some(1..2), None]);
        assert_eq!(groups("bx"), [Some(0..2), None, Some(0..1)]);
        assert_eq!(groups("_"), [None, None, None]);
        assert_eq!(groups("a"), [Some(0..1), Some(0..1), None]);
    }

    #[test]
    fn a_taken_cache_goes_back_when_dropped() {
        let compiled = Compiled::new(Regex::new(r"\d").unwrap());
        compiled.with_cache(|regex, cache| regex.is_match_with(cache, &Input::new("1")));
        let mut taken = compiled.take();
        assert!(!kept().contains(&compiled.id), "out of the list");
        let input = Input::new("a1");
        let found = compiled.regex().search_with(taken.cache(), &input);
        assert_eq!(found.map(|m| m.start()), Some(1));
        // A search meanwhile makes one of its own; the taken one is then not kept twice.
        compiled.with_cache(|regex, cache| regex.is_match_with(cache, &input));
        drop(taken);
        assert_eq!(kept().iter().filter(|&&id| id == compiled.id).count(), 1);
        drop(compiled.take());
        assert_eq!(kept().last(), Some(&compiled.id));
    }
}

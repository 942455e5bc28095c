//! The Arrow C Data Interface: string-view arrays out of and into views and an arena.

//! Python's regular expression grammar: a port of `re._parser` (Python 3.11) that builds
//! the same tree, so that the translation sees what Python's compiler sees.
//!
//! The tree keeps Python's rewrites that change meaning under IGNORECASE: a one-item set
//! `[x]` is the literal `x`, an alternation of literals and sets (`a|b|[cd]`) is one set,
//! and common leading items of alternatives move in front (`ab|ac` is `a(?:b|c)`).
//! Constructs the engine cannot run (back-references, look-arounds, atomic groups,
//! possessive quantifiers, conditionals, `\N{...}`) stop the parse with
//! [`PatternError::Unsupported`]; so does anything that is not valid Python (the caller
//! has compiled the pattern with `re` first, which reports it with Python's message).

use super::lexer::{Escaped, Tok, Tokenizer};
use super::tree::{
    invalid, unsupported, At, Group, Node, Parsed, Repeat, Result, Seq, Set, SetItem,
};
use super::Flags;

/// Python's `_sre.MAXREPEAT`: a repeat bound of this or more is an error; as the maximum
/// of `*` and `+` it means "no maximum".
const MAX_REPEAT: u64 = u32::MAX as u64;

/// Group nesting beyond which the pattern is left to Python (recursion stays bounded).
const MAX_NESTING: usize = 100;

/// Parses `pattern` with `flags` as `re.compile(pattern, flags)` does.
pub fn parse(pattern: &str, flags: Flags) -> Result<Parsed> {
    let bad = Flags::TEMPLATE.bits() | Flags::LOCALE.bits();
    if flags.bits() & bad != 0 {
        return unsupported("the TEMPLATE and LOCALE flags");
    }
    let mut parser = Parser {
        source: Tokenizer::new(pattern)?,
        flags: flags.bits(),
        groups: 0,
        names: Vec::new(),
        depth: 0,
    };
    let verbose = parser.flags & Flags::VERBOSE.bits() != 0;
    let body = parser.parse_sub(verbose, 0)?;
    if parser.source.next.is_some() {
        return invalid("unbalanced parenthesis");
    }
    let mut bits = parser.flags;
    if bits & bad != 0 {
        return unsupported("the TEMPLATE and LOCALE flags");
    }
    if bits & Flags::ASCII.bits() == 0 {
        bits |= Flags::UNICODE.bits();
    } else if bits & Flags::UNICODE.bits() != 0 {
        return invalid("ASCII and UNICODE flags are incompatible");
    }
    Ok(Parsed {
        body,
        flags: Flags(bits),
        groups: parser.groups,
        names: parser.names,
    })
}

const WHITESPACE: &str = " \t\n\r\x0b\x0c";

struct Parser {
    source: Tokenizer,
    flags: u32,
    groups: u32,
    names: Vec<(String, u32)>,
    depth: usize,
}

impl Parser {
    /// Alternatives (`_parse_sub`), with Python's common-prefix and set rewrites.
    fn parse_sub(&mut self, verbose: bool, nested: usize) -> Result<Seq> {
        let mut verbose = verbose;
        let mut items = Vec::new();
        loop {
            let first = nested == 0 && items.is_empty();
            items.push(self.parse(verbose, nested + 1, first)?);
            if !self.source.matches('|')? {
                break;
            }
            if nested == 0 {
                verbose = self.flags & Flags::VERBOSE.bits() != 0;
            }
        }
        if items.len() == 1 {
            return Ok(items.pop().unwrap_or_default());
        }
        let mut result = Seq::new();
        // Move a common first item out of the alternatives.
        while let Some(prefix) = items[0].first().cloned() {
            if !items.iter().all(|item| item.first() == Some(&prefix)) {
                break;
            }
            for item in &mut items {
                item.remove(0);
            }
            result.push(prefix);
        }
        // Alternatives that are each one literal or non-negated set are one set.
        let mut members = Vec::new();
        let all_sets = items.iter().all(|item| match item.as_slice() {
            [Node::Literal(c)] => {
                members.push(SetItem::Literal(*c));
                true
            }
            [Node::Set(set)] if !set.negate => {
                members.extend_from_slice(&set.items);
                true
            }
            _ => false,
        });
        if all_sets {
            result.push(Node::Set(Set {
                negate: false,
                items: unique(members),
            }));
        } else {
            result.push(Node::Branch(items));
        }
        Ok(result)
    }

    /// One alternative (`_parse`).
    fn parse(&mut self, verbose: bool, nested: usize, first: bool) -> Result<Seq> {
        let mut verbose = verbose;
        let mut seq = Seq::new();
        while let Some(this) = self.source.next {
            if matches!(this, Tok::Char('|' | ')')) {
                break;
            }
            self.source.advance()?;
            if verbose {
                if let Tok::Char(c) = this {
                    if WHITESPACE.contains(c) {
                        continue;
                    }
                    if c == '#' {
                        while !matches!(self.source.get()?, None | Some(Tok::Char('\n'))) {}
                        continue;
                    }
                }
            }
            let c = match this {
                Tok::Escape(c) => {
                    seq.push(match self.source.escape(c)? {
                        Escaped::Literal(value) => Node::Literal(value),
                        Escaped::Category(category) => Node::Set(Set {
                            negate: false,
                            items: vec![SetItem::Category(category)],
                        }),
                        Escaped::At(at) => Node::At(at),
                    });
                    continue;
                }
                Tok::Char(c) => c,
            };
            match c {
                '[' => seq.push(self.parse_set()?),
                '*' | '+' | '?' | '{' => self.parse_repeat(c, &mut seq)?,
                '.' => seq.push(Node::Any),
                '(' => {
                    if let Some(node) =
                        self.parse_group(&mut verbose, nested, first && seq.is_empty())?
                    {
                        seq.push(node);
                    }
                }
                '^' => seq.push(Node::At(At::Beginning)),
                '$' => seq.push(Node::At(At::End)),
                _ => seq.push(Node::Literal(c as u32)),
            }
        }
        // Non-capturing groups without flags dissolve into the sequence.
        let mut flat = Seq::with_capacity(seq.len());
        for node in seq {
            match node {
                Node::Group(group) if group.index.is_none() && group.add == 0 && group.del == 0 => {
                    flat.extend(group.body);
                }
                node => flat.push(node),
            }
        }
        Ok(flat)
    }

    /// A set after its `[`.
    fn parse_set(&mut self) -> Result<Node> {
        let negate = self.source.matches('^')?;
        let mut items: Vec<SetItem> = Vec::new();
        loop {
            let this = match self.source.get()? {
                None => return invalid("unterminated character set"),
                Some(Tok::Char(']')) if !items.is_empty() => break,
                Some(this) => this,
            };
            let code1 = match this {
                Tok::Escape(c) => self.source.class_escape(c)?,
                Tok::Char(c) => SetItem::Literal(c as u32),
            };
            if !self.source.matches('-')? {
                items.push(code1);
                continue;
            }
            let code2 = match self.source.get()? {
                None => return invalid("unterminated character set"),
                Some(Tok::Char(']')) => {
                    items.push(code1);
                    items.push(SetItem::Literal('-' as u32));
                    break;
                }
                Some(Tok::Escape(c)) => self.source.class_escape(c)?,
                Some(Tok::Char(c)) => SetItem::Literal(c as u32),
            };
            match (code1, code2) {
                (SetItem::Literal(lo), SetItem::Literal(hi)) if lo <= hi => {
                    items.push(SetItem::Range(lo, hi));
                }
                _ => return invalid("bad character range"),
            }
        }
        let items = unique(items);
        Ok(match items.as_slice() {
            [SetItem::Literal(c)] if negate => Node::NotLiteral(*c),
            [SetItem::Literal(c)] => Node::Literal(*c),
            _ => Node::Set(Set { negate, items }),
        })
    }

    /// A repeat operator `c` applying to the last item of `seq`.
    fn parse_repeat(&mut self, c: char, seq: &mut Seq) -> Result<()> {
        let (min, max) = match c {
            '?' => (0, Some(1)),
            '*' => (0, None),
            '+' => (1, None),
            _ => match self.parse_braces()? {
                Some(bounds) => bounds,
                None => {
                    seq.push(Node::Literal('{' as u32));
                    return Ok(());
                }
            },
        };
        let body = match seq.pop() {
            None | Some(Node::At(_)) => return invalid("nothing to repeat"),
            Some(Node::Repeat(_)) => return invalid("multiple repeat"),
            Some(Node::Group(group))
                if group.index.is_none() && group.add == 0 && group.del == 0 =>
            {
                group.body
            }
            Some(node) => vec![node],
        };
        let greedy = if self.source.matches('?')? {
            false
        } else if self.source.matches('+')? {
            return unsupported("possessive quantifiers (*+, ++, ?+, {m,n}+)");
        } else {
            true
        };
        seq.push(Node::Repeat(Box::new(Repeat {
            min,
            max,
            greedy,
            body,
        })));
        Ok(())
    }

    /// The bounds of `{m,n}` after its `{`; `None` (nothing consumed) when the brace is a
    /// literal.
    fn parse_braces(&mut self) -> Result<Option<(u32, Option<u32>)>> {
        if self.source.next == Some(Tok::Char('}')) {
            return Ok(None);
        }
        let here = self.source.index;
        let here_next = self.source.next;
        let is_digit = |c: char| c.is_ascii_digit();
        let lo = self.source.get_while(usize::MAX, is_digit)?;
        let hi = if self.source.matches(',')? {
            Some(self.source.get_while(usize::MAX, is_digit)?)
        } else {
            None
        };
        if !self.source.matches('}')? {
            self.source.index = here;
            self.source.next = here_next;
            return Ok(None);
        }
        let bound = |digits: &str| -> Result<Option<u32>> {
            if digits.is_empty() {
                return Ok(None);
            }
            match digits.parse::<u64>() {
                Ok(n) if n < MAX_REPEAT => Ok(u32::try_from(n).ok()),
                _ => invalid("the repetition number is too large"),
            }
        };
        let min = bound(&lo)?.unwrap_or(0);
        let max = match hi {
            None => Some(min),
            Some(hi) => bound(&hi)?,
        };
        if max.is_some_and(|max| max < min) {
            return invalid("min repeat greater than max repeat");
        }
        Ok(Some((min, max)))
    }

    /// A group after its `(`; `None` for a comment or global flags.
    fn parse_group(
        &mut self,
        verbose: &mut bool,
        nested: usize,
        first: bool,
    ) -> Result<Option<Node>> {
        let mut capture = true;
        let mut name = None;
        let (mut add, mut del) = (0, 0);
        if self.source.matches('?')? {
            let Some(Tok::Char(c)) = self.source.get()? else {
                return invalid("unknown extension");
            };
            match c {
                'P' if self.source.matches('<')? => {
                    name = Some(self.source.get_until('>')?);
                }
                'P' if self.source.matches('=')? => {
                    return unsupported("back-references (\\1, (?P=name))");
                }
                ':' => capture = false,
                '#' => loop {
                    match self.source.get()? {
                        None => return invalid("unterminated comment"),
                        Some(Tok::Char(')')) => return Ok(None),
                        Some(_) => {}
                    }
                },
                '=' | '!' | '<' => return unsupported("look-ahead and look-behind assertions"),
                '(' => return unsupported("conditional groups (?(id)yes|no)"),
                '>' => return unsupported("atomic groups (?>...)"),
                c if flag_bit(c).is_some() || c == '-' => {
                    match self.parse_flags(c)? {
                        None => {
                            if !first {
                                return invalid("global flags not at the start of the expression");
                            }
                            *verbose = self.flags & Flags::VERBOSE.bits() != 0;
                            return Ok(None);
                        }
                        Some((a, d)) => (add, del) = (a, d),
                    }
                    capture = false;
                }
                _ => return invalid("unknown extension"),
            }
        }
        let index = if capture {
            self.groups += 1;
            if let Some(name) = name {
                if self.names.iter().any(|(n, _)| *n == name) {
                    return invalid("redefinition of group name");
                }
                self.names.push((name, self.groups));
            }
            Some(self.groups)
        } else {
            None
        };
        let verbose =
            (*verbose || add & Flags::VERBOSE.bits() != 0) && del & Flags::VERBOSE.bits() == 0;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return unsupported(format!("groups nested more than {MAX_NESTING} deep"));
        }
        let body = self.parse_sub(verbose, nested + 1)?;
        self.depth -= 1;
        if !self.source.matches(')')? {
            return invalid("missing ), unterminated subpattern");
        }
        Ok(Some(Node::Group(Box::new(Group {
            index,
            add,
            del,
            body,
        }))))
    }

    /// Inline flags after `(?` whose first character is `c` (`_parse_flags`): `None` for
    /// global flags `(?aiLmsux)`, which are added to the pattern's, else the bits turned on
    /// and off by `(?flags-flags:`.
    fn parse_flags(&mut self, mut c: char) -> Result<Option<(u32, u32)>> {
        let type_flags = Flags::ASCII.bits() | Flags::LOCALE.bits() | Flags::UNICODE.bits();
        let mut add = 0;
        let mut del = 0;
        if c != '-' {
            loop {
                let Some(flag) = flag_bit(c) else {
                    return invalid("unknown flag");
                };
                add |= flag;
                if flag & type_flags != 0 && add & type_flags != flag {
                    return invalid("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
                }
                match self.source.get()? {
                    Some(Tok::Char(next)) if ")-:".contains(next) => {
                        c = next;
                        break;
                    }
                    Some(Tok::Char(next)) => c = next,
                    _ => return invalid("missing -, : or )"),
                }
            }
        }
        if c == ')' {
            self.flags |= add;
            return Ok(None);
        }
        if c == '-' {
            loop {
                match self.source.get()? {
                    Some(Tok::Char(':')) if del != 0 => break,
                    Some(Tok::Char(next)) => match flag_bit(next) {
                        Some(flag) if flag & type_flags == 0 => del |= flag,
                        _ => return invalid("bad inline flags"),
                    },
                    _ => return invalid("missing :"),
                }
            }
        }
        let global = Flags::TEMPLATE.bits() | Flags::DEBUG.bits();
        if (add | del) & global != 0 || add & del != 0 {
            return invalid("bad inline flags");
        }
        Ok(Some((add, del)))
    }
}

/// The bit of an inline flag letter.
fn flag_bit(c: char) -> Option<u32> {
    Some(
        match c {
            'i' => Flags::IGNORECASE,
            'L' => Flags::LOCALE,
            'm' => Flags::MULTILINE,
            's' => Flags::DOTALL,
            'x' => Flags::VERBOSE,
            'a' => Flags::ASCII,
            't' => Flags::TEMPLATE,
            'u' => Flags::UNICODE,
            _ => return None,
        }
        .bits(),
    )
}

/// `items` without repeats, first occurrences kept in order (Python's `_uniq`).
fn unique(items: Vec<SetItem>) -> Vec<SetItem> {
    let mut kept: Vec<SetItem> = Vec::with_capacity(items.len());
    for item in items {
        if !kept.contains(&item) {
            kept.push(item);
        }
    }
    kept
}

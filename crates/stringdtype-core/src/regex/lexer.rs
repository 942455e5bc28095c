//! Python's pattern tokens (`re._parser.Tokenizer`) and escapes (`_escape` outside
//! brackets, `_class_escape` inside).

use super::tree::{invalid, unsupported, At, Category, Result, SetItem};

/// A token: one character, or a backslash with the character after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Char(char),
    Escape(char),
}

/// Python's `Tokenizer` over the code points of the pattern.
pub(crate) struct Tokenizer {
    chars: Vec<char>,
    pub(crate) index: usize,
    pub(crate) next: Option<Tok>,
}

impl Tokenizer {
    pub(crate) fn new(pattern: &str) -> Result<Tokenizer> {
        let mut source = Tokenizer {
            chars: pattern.chars().collect(),
            index: 0,
            next: None,
        };
        source.advance()?;
        Ok(source)
    }

    pub(crate) fn advance(&mut self) -> Result<()> {
        self.next = match self.chars.get(self.index) {
            None => None,
            Some('\\') => match self.chars.get(self.index + 1) {
                None => return invalid("bad escape (end of pattern)"),
                Some(&c) => {
                    self.index += 2;
                    Some(Tok::Escape(c))
                }
            },
            Some(&c) => {
                self.index += 1;
                Some(Tok::Char(c))
            }
        };
        Ok(())
    }

    pub(crate) fn get(&mut self) -> Result<Option<Tok>> {
        let this = self.next;
        self.advance()?;
        Ok(this)
    }

    /// Consumes the next token if it is the plain character `c`.
    pub(crate) fn matches(&mut self, c: char) -> Result<bool> {
        if self.next == Some(Tok::Char(c)) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub(crate) fn next_char(&self) -> Option<char> {
        match self.next {
            Some(Tok::Char(c)) => Some(c),
            _ => None,
        }
    }

    /// Up to `n` plain characters that satisfy `accept`.
    pub(crate) fn get_while(&mut self, n: usize, accept: impl Fn(char) -> bool) -> Result<String> {
        let mut taken = String::new();
        for _ in 0..n {
            match self.next_char() {
                Some(c) if accept(c) => {
                    taken.push(c);
                    self.advance()?;
                }
                _ => break,
            }
        }
        Ok(taken)
    }

    /// The text up to `terminator` (escapes kept as two characters), which is consumed.
    pub(crate) fn get_until(&mut self, terminator: char) -> Result<String> {
        let mut taken = String::new();
        loop {
            match self.get()? {
                None => return invalid("unterminated name"),
                Some(Tok::Char(c)) if c == terminator => break,
                Some(Tok::Char(c)) => taken.push(c),
                Some(Tok::Escape(c)) => {
                    taken.push('\\');
                    taken.push(c);
                }
            }
        }
        if taken.is_empty() {
            return invalid("missing group name");
        }
        Ok(taken)
    }
}

pub(crate) fn is_octal(c: char) -> bool {
    matches!(c, '0'..='7')
}

/// The literal of a one-character escape shared by both contexts (`ESCAPES`).
fn simple_escape(c: char) -> Option<u32> {
    Some(match c {
        'a' => 0x07,
        'f' => 0x0C,
        'n' => 0x0A,
        'r' => 0x0D,
        't' => 0x09,
        'v' => 0x0B,
        '\\' => 0x5C,
        _ => return None,
    })
}

fn category(c: char) -> Option<Category> {
    Some(match c {
        'd' => Category::Digit,
        'D' => Category::NotDigit,
        's' => Category::Space,
        'S' => Category::NotSpace,
        'w' => Category::Word,
        'W' => Category::NotWord,
        _ => return None,
    })
}

/// What an escape stands for.
pub(crate) enum Escaped {
    Literal(u32),
    Category(Category),
    At(At),
}

impl Tokenizer {
    /// `\x..`, `\u....`, `\U........` and `\N{...}`, common to both contexts.
    pub(crate) fn hex_escape(&mut self, c: char) -> Result<Option<u32>> {
        let digits = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            'N' => return unsupported("named characters (\\N{...})"),
            _ => return Ok(None),
        };
        let hex = self.get_while(digits, |c| c.is_ascii_hexdigit())?;
        if hex.len() != digits {
            return invalid("incomplete escape");
        }
        match u32::from_str_radix(&hex, 16) {
            Ok(value) if value <= 0x10FFFF => Ok(Some(value)),
            _ => invalid("bad escape"),
        }
    }

    /// An escape outside brackets (`_escape`).
    pub(crate) fn escape(&mut self, c: char) -> Result<Escaped> {
        let at = match c {
            'A' => Some(At::BeginningString),
            'Z' => Some(At::EndString),
            'b' => Some(At::Boundary),
            'B' => Some(At::NonBoundary),
            _ => None,
        };
        if let Some(at) = at {
            return Ok(Escaped::At(at));
        }
        if let Some(category) = category(c) {
            return Ok(Escaped::Category(category));
        }
        if let Some(value) = simple_escape(c) {
            return Ok(Escaped::Literal(value));
        }
        if let Some(value) = self.hex_escape(c)? {
            return Ok(Escaped::Literal(value));
        }
        if c == '0' {
            let octal = self.get_while(2, is_octal)?;
            return Ok(Escaped::Literal(
                u32::from_str_radix(&format!("0{octal}"), 8).unwrap_or(0),
            ));
        }
        if let Some(first) = c.to_digit(10) {
            // Three octal digits are a character; anything else is a back-reference.
            if let Some(second) = self.next_char().and_then(|d| d.to_digit(10)) {
                self.advance()?;
                let third = self.next_char().filter(|&d| is_octal(d));
                if let (true, true, Some(third)) = (first < 8, second < 8, third) {
                    self.advance()?;
                    let value = first * 64 + second * 8 + (third as u32 - '0' as u32);
                    if value > 0o377 {
                        return invalid("octal escape value outside of range 0-0o377");
                    }
                    return Ok(Escaped::Literal(value));
                }
            }
            return unsupported("back-references (\\1, (?P=name))");
        }
        if c.is_ascii_alphabetic() {
            return invalid("bad escape");
        }
        Ok(Escaped::Literal(c as u32))
    }

    /// An escape inside brackets (`_class_escape`): `\b` is a backspace there.
    pub(crate) fn class_escape(&mut self, c: char) -> Result<SetItem> {
        if c == 'b' {
            return Ok(SetItem::Literal(0x08));
        }
        if let Some(value) = simple_escape(c) {
            return Ok(SetItem::Literal(value));
        }
        if let Some(category) = category(c) {
            return Ok(SetItem::Category(category));
        }
        if let Some(value) = self.hex_escape(c)? {
            return Ok(SetItem::Literal(value));
        }
        if is_octal(c) {
            let octal = self.get_while(2, is_octal)?;
            let value = u32::from_str_radix(&format!("{c}{octal}"), 8).unwrap_or(u32::MAX);
            if value > 0o377 {
                return invalid("octal escape value outside of range 0-0o377");
            }
            return Ok(SetItem::Literal(value));
        }
        if c.is_ascii_alphanumeric() {
            return invalid("bad escape");
        }
        Ok(SetItem::Literal(c as u32))
    }
}

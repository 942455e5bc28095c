//! Replacement templates with `re.sub`'s rules (Python 3.11's `re._parser.parse_template`).
//!
//! A template is parsed once into literal bytes and group references: `\1` to `\99`,
//! `\g<number>`, `\g<name>`, `\g<0>`; the escapes `\a \b \f \n \r \t \v \\`, `\0` and
//! three-digit octal escapes are characters; a backslash before any other non-letter is
//! kept with it (`\.` stays `\.`). An unknown letter escape (`\q`, also `\x` and `\u`,
//! which templates do not have) or a reference to a group that does not exist is an error
//! with Python's message and position. A group that did not take part in the match
//! substitutes as empty.

use super::pattern::Pattern;
use crate::kernels::unicode::push_char;

/// A parsed replacement template for one [`Pattern`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(Vec<u8>),
    Group(usize),
}

/// Why a template was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// Python raises `re.error(message, repl, position)`; `position` counts code points.
    Invalid { message: String, position: usize },
    /// Python raises `IndexError(message)` (`\g<name>` with a name the pattern lacks).
    UnknownGroupName { message: String },
    /// A form whose meaning depends on the Python version (such as `\g< 1>`, accepted
    /// with a warning by 3.11): let Python's `re` parse the template.
    Unsupported { reason: String },
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Invalid { message, position } => {
                write!(f, "{message} at position {position}")
            }
            TemplateError::UnknownGroupName { message } => f.write_str(message),
            TemplateError::Unsupported { reason } => write!(f, "template not supported: {reason}"),
        }
    }
}

impl std::error::Error for TemplateError {}

impl Template {
    /// Parses `repl` for a pattern with `groups` groups, `group_index` giving the number
    /// of a group name.
    pub fn parse(
        repl: &str,
        groups: usize,
        group_index: impl Fn(&str) -> Option<usize>,
    ) -> Result<Template, TemplateError> {
        let mut parser = TemplateParser {
            chars: repl.chars().collect(),
            index: 0,
            parts: Vec::new(),
            literal: Vec::new(),
            groups,
        };
        parser.run(group_index)?;
        let TemplateParser {
            mut parts, literal, ..
        } = parser;
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template { parts })
    }

    /// The replacement when it refers to no group.
    pub fn as_literal(&self) -> Option<&[u8]> {
        match self.parts.as_slice() {
            [] => Some(&[]),
            [Part::Literal(bytes)] => Some(bytes),
            _ => None,
        }
    }

    /// Appends the replacement for one match to `out`, checking every size; `group(g)`
    /// is the text of group `g`, `None` where it did not take part (or does not exist).
    pub(crate) fn expand<'h>(
        &self,
        group: impl Fn(usize) -> Option<&'h [u8]>,
        mut push: impl FnMut(&[u8]) -> Result<(), crate::Error>,
    ) -> Result<(), crate::Error> {
        for part in &self.parts {
            match part {
                Part::Literal(bytes) => push(bytes)?,
                Part::Group(g) => push(group(*g).unwrap_or_default())?,
            }
        }
        Ok(())
    }
}

impl Pattern {
    /// Parses a replacement template for this pattern.
    pub fn template(&self, repl: &str) -> Result<Template, TemplateError> {
        Template::parse(repl, self.groups(), |name| self.group_index(name))
    }
}

struct TemplateParser {
    chars: Vec<char>,
    /// The index of the next code point to read.
    index: usize,
    parts: Vec<Part>,
    literal: Vec<u8>,
    groups: usize,
}

fn invalid<T>(message: String, position: usize) -> Result<T, TemplateError> {
    Err(TemplateError::Invalid { message, position })
}

impl TemplateParser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.index).copied()
    }

    fn peek_is(&self, accept: impl Fn(char) -> bool) -> bool {
        self.peek().is_some_and(|c| c != '\\' && accept(c))
    }

    fn add_group(&mut self, index: usize) {
        if !self.literal.is_empty() {
            self.parts
                .push(Part::Literal(std::mem::take(&mut self.literal)));
        }
        self.parts.push(Part::Group(index));
    }

    /// A reference to group `digits` (decimal, possibly huge); `start` is the position
    /// Python reports for an invalid one.
    fn reference(&mut self, digits: &str, start: usize) -> Result<(), TemplateError> {
        let trimmed = digits.trim_start_matches('0');
        let value = if trimmed.is_empty() { "0" } else { trimmed };
        match value.parse::<usize>() {
            Ok(index) if index <= self.groups => {
                self.add_group(index);
                Ok(())
            }
            _ => invalid(format!("invalid group reference {value}"), start),
        }
    }

    fn run(&mut self, group_index: impl Fn(&str) -> Option<usize>) -> Result<(), TemplateError> {
        // Python reads one token ahead, so a lone backslash at the end can be reported
        // before an error just before it: leave such templates to Python.
        let trailing = self.chars.iter().rev().take_while(|&&c| c == '\\').count();
        if trailing % 2 == 1 {
            return Err(TemplateError::Unsupported {
                reason: "a lone backslash at the end".into(),
            });
        }
        while let Some(this) = self.peek() {
            self.index += 1;
            if this != '\\' {
                push_char(&mut self.literal, this);
                continue;
            }
            let c = self.peek().unwrap_or('\\');
            self.index += 1;
            let escape_start = self.index - 2;
            match c {
                'g' => self.named(&group_index)?,
                '0' => {
                    let mut value = 0;
                    for _ in 0..2 {
                        if let Some(d) = self.peek().filter(|d| d.is_digit(8)) {
                            value = value * 8 + d.to_digit(8).unwrap_or(0);
                            self.index += 1;
                        }
                    }
                    push_char(&mut self.literal, char::from(value as u8));
                }
                '1'..='9' => self.numbered(c, escape_start)?,
                _ => match simple_escape(c) {
                    Some(value) => self.literal.push(value),
                    None if c.is_ascii_alphabetic() => {
                        return invalid(format!("bad escape \\{c}"), escape_start);
                    }
                    None => {
                        self.literal.push(b'\\');
                        push_char(&mut self.literal, c);
                    }
                },
            }
        }
        Ok(())
    }

    /// `\1` to `\99`, or a three-digit octal escape.
    fn numbered(&mut self, c: char, escape_start: usize) -> Result<(), TemplateError> {
        let mut digits = String::from(c);
        if self.peek_is(|d| d.is_ascii_digit()) {
            let second = self.chars[self.index];
            digits.push(second);
            self.index += 1;
            if c.is_digit(8) && second.is_digit(8) && self.peek_is(|d| d.is_digit(8)) {
                digits.push(self.chars[self.index]);
                self.index += 1;
                let value = u32::from_str_radix(&digits, 8).unwrap_or(u32::MAX);
                if value > 0o377 {
                    let message = format!("octal escape value \\{digits} outside of range 0-0o377");
                    return invalid(message, escape_start);
                }
                push_char(&mut self.literal, char::from(value as u8));
                return Ok(());
            }
        }
        self.reference(&digits, escape_start + 1)
    }

    /// `\g<...>` after its `\g`.
    fn named(&mut self, group_index: &impl Fn(&str) -> Option<usize>) -> Result<(), TemplateError> {
        if self.peek() != Some('<') {
            return invalid("missing <".into(), self.index);
        }
        self.index += 1;
        let name_start = self.index;
        let Some(length) = self.chars[name_start..].iter().position(|&c| c == '>') else {
            return match self.chars.len() - name_start {
                0 => invalid("missing group name".into(), self.chars.len()),
                n => invalid("missing >, unterminated name".into(), self.chars.len() - n),
            };
        };
        self.index = name_start + length + 1;
        if length == 0 {
            return invalid("missing group name".into(), name_start);
        }
        let name: String = self.chars[name_start..name_start + length].iter().collect();
        if let Some(index) = group_index(&name) {
            self.add_group(index);
            return Ok(());
        }
        if is_ascii_identifier(&name) {
            return Err(TemplateError::UnknownGroupName {
                message: format!("unknown group name '{name}'"),
            });
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            return self.reference(&name, name_start);
        }
        Err(TemplateError::Unsupported {
            reason: format!("group reference \\g<{name}>"),
        })
    }
}

/// The characters of `\a \b \f \n \r \t \v \\` in a template.
fn simple_escape(c: char) -> Option<u8> {
    Some(match c {
        'a' => 0x07,
        'b' => 0x08,
        'f' => 0x0C,
        'n' => b'\n',
        'r' => b'\r',
        't' => b'\t',
        'v' => 0x0B,
        '\\' => b'\\',
        _ => return None,
    })
}

fn is_ascii_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(repl: &str) -> Result<Template, TemplateError> {
        // A pattern with two groups, the first named 'first'.
        Template::parse(repl, 2, |name| (name == "first").then_some(1))
    }

    fn lit(s: &str) -> Part {
        Part::Literal(s.as_bytes().to_vec())
    }

    #[test]
    fn parts() {
        let t = parsed(r"<\1|\g<2>|\g<first>|\g<0>>").unwrap();
        assert_eq!(
            t.parts,
            [
                lit("<"),
                Part::Group(1),
                lit("|"),
                Part::Group(2),
                lit("|"),
                Part::Group(1),
                lit("|"),
                Part::Group(0),
                lit(">")
            ]
        );
        // re.sub('(a)(b)?', r'\08\101\n\.\é\\', 'ab') == '\x008A\n\\.\\é\\'
        assert_eq!(
            parsed(r"\08\101\n\.\é\\").unwrap().parts,
            [lit("\x008A\n\\.\\é\\")]
        );
        assert_eq!(parsed("").unwrap().as_literal(), Some(&b""[..]));
        assert_eq!(parsed("x").unwrap().as_literal(), Some(&b"x"[..]));
        assert_eq!(parsed(r"\1").unwrap().as_literal(), None);
        assert_eq!(parsed(r"\01").unwrap().parts, [lit("\x01")]);
    }

    #[test]
    fn pythons_errors() {
        // (repl, message, position) from re.sub('(a)(b)?', repl, 'ab') in Python 3.11.
        let cases = [
            (r"\g", "missing <", 2),
            (r"\g<", "missing group name", 3),
            (r"\g<>", "missing group name", 3),
            (r"\g<1", "missing >, unterminated name", 3),
            (r"\g<3>", "invalid group reference 3", 3),
            (r"\g<003>", "invalid group reference 3", 3),
            (r"\q", r"bad escape \q", 0),
            (r"\x41", r"bad escape \x", 0),
            (
                r"ab\400",
                r"octal escape value \400 outside of range 0-0o377",
                2,
            ),
            (r"\18", "invalid group reference 18", 1),
            (r"\3", "invalid group reference 3", 1),
        ];
        for (repl, message, position) in cases {
            let expected = TemplateError::Invalid {
                message: message.into(),
                position,
            };
            assert_eq!(parsed(repl), Err(expected), "{repl}");
        }
        let unknown = TemplateError::UnknownGroupName {
            message: "unknown group name 'zz'".into(),
        };
        assert_eq!(parsed(r"\g<zz>"), Err(unknown));
        assert!(matches!(
            parsed(r"\g< 1>"),
            Err(TemplateError::Unsupported { .. })
        ));
        assert!(matches!(
            parsed(r"\g<a b>"),
            Err(TemplateError::Unsupported { .. })
        ));
        // Python: 'bad escape (end of pattern) at position 1'.
        assert!(matches!(
            parsed("x\\"),
            Err(TemplateError::Unsupported { .. })
        ));
        assert_eq!(parsed("x\\\\").unwrap().parts, [lit("x\\")]);
    }
}

//! The parser against `re._parser`'s trees for the same patterns.

use super::classes::tests::shared;
use super::parse::parse;
use super::tree::{Category, Node, Seq, Set, SetItem};
use super::{Flags, Pattern, PatternError};

fn lit(c: char) -> Node {
    Node::Literal(c as u32)
}

fn parsed(pattern: &str) -> Seq {
    parse(pattern, Flags::empty()).unwrap().body
}

#[test]
fn pythons_rewrites() {
    // re._parser.parse('ab|ac') == [LITERAL a, IN [LITERAL b, LITERAL c]]
    let set = |items: Vec<SetItem>| {
        Node::Set(Set {
            negate: false,
            items,
        })
    };
    assert_eq!(
        parsed("ab|ac"),
        [
            lit('a'),
            set(vec![
                SetItem::Literal('b' as u32),
                SetItem::Literal('c' as u32)
            ])
        ]
    );
    assert_eq!(parsed("[x]"), [lit('x')]);
    assert_eq!(parsed("[^x]"), [Node::NotLiteral('x' as u32)]);
    assert_eq!(parsed("(?:a)(?:b)"), [lit('a'), lit('b')]);
    assert_eq!(
        parsed(r"\d|a"),
        [set(vec![
            SetItem::Category(Category::Digit),
            SetItem::Literal('a' as u32)
        ])]
    );
    assert!(matches!(parsed("ab|cd").as_slice(), [Node::Branch(items)] if items.len() == 2));
}

#[test]
fn braces_and_literal_braces() {
    // re._parser.parse('x{,}y{}z{1,a}'): x* y { } z { 1 , a }
    let body = parsed("x{,}y{}z{1,a}");
    assert!(matches!(&body[0], Node::Repeat(r) if r.min == 0 && r.max.is_none()));
    let rest: Vec<Node> = "y{}z{1,a}".chars().map(lit).collect();
    assert_eq!(body[1..], rest[..]);
    assert!(matches!(&parsed("a{3}")[0], Node::Repeat(r) if r.min == 3 && r.max == Some(3)));
    assert!(
        matches!(&parsed("a{2,}?")[0], Node::Repeat(r) if r.min == 2 && r.max.is_none() && !r.greedy)
    );
}

#[test]
fn escapes() {
    assert_eq!(
        parsed(r"\x41\u00e9\U0001F600\0\07\101\."),
        [
            lit('A'),
            lit('é'),
            lit('😀'),
            Node::Literal(0),
            Node::Literal(7),
            lit('A'),
            lit('.')
        ]
    );
    assert_eq!(parsed(r"[\b]"), [Node::Literal(8)]);
    assert_eq!(
        parsed(r"[]a]"),
        [Node::Set(Set {
            negate: false,
            items: vec![SetItem::Literal(']' as u32), SetItem::Literal('a' as u32)]
        })]
    );
    assert_eq!(
        parsed(r"[a-]"),
        [Node::Set(Set {
            negate: false,
            items: vec![SetItem::Literal('a' as u32), SetItem::Literal('-' as u32)]
        })]
    );
}

#[test]
fn flags_and_verbose() {
    let p = parse("(?x) a b # comment\n c", Flags::empty()).unwrap();
    assert_eq!(p.body, [lit('a'), lit('b'), lit('c')]);
    assert_eq!(p.flags, Flags::VERBOSE | Flags::UNICODE);
    let p = parse("(?a)x", Flags::empty()).unwrap();
    assert_eq!(p.flags, Flags::ASCII);
    // A space in braces ends them in verbose mode too: `{` and the rest are literals.
    assert_eq!(parse("a{1, 2}", Flags::VERBOSE).unwrap().body.len(), 6);
    // Scoped flags stay a group.
    assert!(matches!(&parsed("(?i:a)")[0], Node::Group(g) if g.index.is_none() && g.add == 2));
}

#[test]
fn groups_and_names() {
    let p = parse("(a)(?P<x>b)(?:c)(?P<y>d)", Flags::empty()).unwrap();
    assert_eq!(p.groups, 3);
    assert_eq!(p.names, [("x".to_string(), 2), ("y".to_string(), 3)]);
}

#[test]
fn unsupported_constructs() {
    let cases = [
        r"(a)\1",
        "(?P<n>a)(?P=n)",
        "a(?=b)",
        "a(?!b)",
        "(?<=a)b",
        "(?<!a)b",
        "(?>a)",
        "a*+",
        "a++",
        "a?+",
        "a{1,2}+",
        "(a)?(?(1)b|c)",
        r"\N{EM DASH}",
    ];
    for pattern in cases {
        assert!(
            matches!(
                parse(pattern, Flags::empty()),
                Err(PatternError::Unsupported { .. })
            ),
            "{pattern}"
        );
    }
    assert!(parse("a", Flags::LOCALE).is_err());
    let deep = format!("{}a{}", "(".repeat(150), ")".repeat(150));
    assert!(parse(&deep, Flags::empty()).is_err());
}

#[test]
fn unsupported_constructs_are_reported() {
    let cases = [
        (r"(a)\1", Flags::empty()),
        ("(?P<n>a)(?P=n)", Flags::empty()),
        ("a(?=b)", Flags::empty()),
        ("a(?!b)", Flags::empty()),
        ("(?<=a)b", Flags::empty()),
        ("(?<!a)b", Flags::empty()),
        ("(?>ab)", Flags::empty()),
        ("a*+", Flags::empty()),
        ("a++", Flags::empty()),
        ("a?+", Flags::empty()),
        ("a{1,2}+", Flags::empty()),
        ("(a)?(?(1)b|c)", Flags::empty()),
        (r"\N{EM DASH}", Flags::empty()),
        ("(a|)*", Flags::empty()),
        ("(x?)+", Flags::empty()),
        ("(?:x|y??)*", Flags::empty()),
        ("(?:|a){2,5}", Flags::empty()),
        ("a", Flags::LOCALE),
        ("a", Flags::TEMPLATE),
        ("(?t)a", Flags::empty()),
    ];
    for (pattern, flags) in cases {
        match Pattern::new(pattern, flags, shared()) {
            Err(PatternError::Unsupported { reason }) => assert!(!reason.is_empty()),
            other => panic!("{pattern:?}: {other:?}"),
        }
    }
    let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
    assert!(matches!(
        Pattern::new(&deep, Flags::empty(), shared()),
        Err(PatternError::Unsupported { .. })
    ));
}

//! The exact source range of every node of a parsed expression, for `explain`.
//!
//! The parser gives each node one anchor: the token that makes it (a literal or an
//! identifier, an operator, a selection's dot, the `(` of a call or macro, the `[` of an
//! index or list, the `{` of a map or message). A node's range is its anchor joined with its
//! children's ranges, completed by what CEL's grammar puts around them: a call's name and
//! closing `)`, an index's or list's `]`, a map's or message's `}` (and a message's type
//! name), a selection's field name after the dot (or `.?`). Parentheses written around a
//! node are not part of it, but belong to the node that contains them (`(a + b).size()`
//! starts at the `(`). The source is read as tokens (CEL's lexis: comments, strings with
//! their prefixes and triple quotes, numbers, identifiers, escaped field names), so a
//! bracket inside a string or a comment is never counted.

use std::collections::HashMap;

use kcel::library::syntax::{Expr, ExprId, ExprKind, Span};

/// The range of every node of `root` in `source` (byte offsets), keyed by node id. Nodes
/// a macro's expansion adds (its accumulator, condition, step, result) carry the macro
/// call's anchor and so get the call's range.
pub fn source_ranges(root: &Expr, source: &str) -> HashMap<ExprId, Span> {
    let tokens = Tokens::new(source);
    let mut ranges = HashMap::new();
    range_of(root, &tokens, &mut ranges);
    ranges
}

/// The direct children of a node.
pub fn children(expr: &Expr) -> Vec<&Expr> {
    match &expr.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => Vec::new(),
        ExprKind::Select { operand, .. } => vec![operand],
        ExprKind::Call { target, args, .. } => target.as_deref().into_iter().chain(args).collect(),
        ExprKind::List { elements, .. } => elements.iter().collect(),
        ExprKind::Map { entries } => entries.iter().flat_map(|e| [&e.key, &e.value]).collect(),
        ExprKind::Struct { fields, .. } => fields.iter().map(|f| &f.value).collect(),
        ExprKind::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_condition,
            &c.loop_step,
            &c.result,
        ],
    }
}

/// A node's own range (without parentheses around it), recorded with its descendants'.
fn range_of(expr: &Expr, tokens: &Tokens, ranges: &mut HashMap<ExprId, Span>) -> (usize, usize) {
    let (mut start, mut end) = (expr.span.start as usize, expr.span.end as usize);
    for child in children(expr) {
        let inner = range_of(child, tokens, ranges);
        let (from, to) = tokens.parenthesised(inner);
        if to > from {
            start = start.min(from);
            end = end.max(to);
        }
    }
    if let Some(anchor) = tokens.at(expr.span.start as usize) {
        let token = tokens.list[anchor];
        match token.kind {
            Kind::Open(b'(') if tokens.is_call_paren(anchor) => {
                end = end.max(tokens.closing_end(anchor));
                start = start.min(tokens.list[tokens.qualified_start(anchor - 1)].start);
            }
            Kind::Open(b'[') => end = end.max(tokens.closing_end(anchor)),
            Kind::Open(b'{') => {
                end = end.max(tokens.closing_end(anchor));
                if matches!(expr.kind, ExprKind::Struct { .. }) && anchor > 0 {
                    start = start.min(tokens.list[tokens.qualified_start(anchor - 1)].start);
                }
            }
            // A selection (`a.b`, `a.?b`) ends with its field name; an identifier the
            // checker may read as a qualified name starts at its first part.
            Kind::Dot => {
                let mut field = anchor + 1;
                if tokens
                    .list
                    .get(field)
                    .is_some_and(|t| t.kind == Kind::Question)
                {
                    field += 1;
                }
                if let Some(t) = tokens.list.get(field) {
                    end = end.max(t.end);
                }
            }
            _ => {}
        }
    }
    ranges.insert(expr.id, Span::new(start, end));
    (start, end)
}

/// What a token is, as far as ranges need.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// An identifier (keywords included) or an escaped field name.
    Ident,
    /// A string, bytes or number literal.
    Literal,
    Dot,
    Question,
    Open(u8),
    Close(u8),
    /// Operators and other punctuation.
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// The tokens of a source with each bracket's partner.
struct Tokens<'s> {
    source: &'s str,
    list: Vec<Token>,
    /// For each open or close bracket, the index of its partner.
    partner: HashMap<usize, usize>,
}

impl<'s> Tokens<'s> {
    fn new(source: &'s str) -> Tokens<'s> {
        let list = lex(source.as_bytes());
        let mut partner = HashMap::new();
        let mut open = Vec::new();
        for (i, t) in list.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => open.push(i),
                Kind::Close(_) => {
                    if let Some(o) = open.pop() {
                        partner.insert(o, i);
                        partner.insert(i, o);
                    }
                }
                _ => {}
            }
        }
        Tokens {
            source,
            list,
            partner,
        }
    }

    /// The token starting at byte `at`.
    fn at(&self, at: usize) -> Option<usize> {
        self.list.binary_search_by_key(&at, |t| t.start).ok()
    }

    /// The end of the bracket closing the one at token `open` (the source's end if none).
    fn closing_end(&self, open: usize) -> usize {
        self.partner
            .get(&open)
            .map_or(self.source.len(), |&c| self.list[c].end)
    }

    fn text(&self, i: usize) -> &str {
        let t = self.list[i];
        &self.source[t.start..t.end]
    }

    /// Whether the token is an identifier that may end an operand (`in` is an operator).
    fn is_name(&self, i: usize) -> bool {
        self.list[i].kind == Kind::Ident && self.text(i) != "in"
    }

    /// Whether the `(` at token `i` opens a call's arguments (it follows the function's
    /// name) rather than grouping.
    fn is_call_paren(&self, i: usize) -> bool {
        i > 0 && self.is_name(i - 1)
    }

    /// The first token of a dotted name ending with the identifier at token `last`
    /// (`a.b.f` of a namespaced call, `.pkg.Msg` of a message, with a leading dot).
    fn qualified_start(&self, last: usize) -> usize {
        let mut first = last;
        while first >= 2 && self.list[first - 1].kind == Kind::Dot && self.is_name(first - 2) {
            first -= 2;
        }
        let operand_before = |i: usize| {
            matches!(
                self.list[i].kind,
                Kind::Ident | Kind::Literal | Kind::Close(_)
            )
        };
        if first >= 1
            && self.list[first - 1].kind == Kind::Dot
            && (first == 1 || !operand_before(first - 2))
        {
            first -= 1;
        }
        first
    }

    /// `range` widened by the parentheses written around it (`((a))` for `a`).
    fn parenthesised(&self, (mut start, mut end): (usize, usize)) -> (usize, usize) {
        if end <= start {
            return (start, end);
        }
        let (Some(mut first), Some(mut last)) = (self.at(start), self.ending_at(end)) else {
            return (start, end);
        };
        while first > 0 && last + 1 < self.list.len() {
            let (open, close) = (first - 1, last + 1);
            let grouping = self.list[open].kind == Kind::Open(b'(') && !self.is_call_paren(open);
            if !grouping || self.partner.get(&open) != Some(&close) {
                break;
            }
            (first, last) = (open, close);
            (start, end) = (self.list[open].start, self.list[close].end);
        }
        (start, end)
    }

    /// The token ending at byte `at`.
    fn ending_at(&self, at: usize) -> Option<usize> {
        self.list.binary_search_by_key(&at, |t| t.end).ok()
    }
}

/// CEL's tokens (cel-spec's lexis, as the grammar reads them), whitespace and comments
/// left out. Lenient: the source has already parsed.
fn lex(s: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let start = i;
        let b = s[i];
        let kind = match b {
            b' ' | b'\t' | b'\n' | b'\x0C' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if s.get(i + 1) == Some(&b'/') => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = string_end(s, i, false);
                Kind::Literal
            }
            b'0'..=b'9' => {
                i = number_end(s, i);
                Kind::Literal
            }
            b'.' if s.get(i + 1).is_some_and(u8::is_ascii_digit) && !after_operand(&tokens) => {
                i = number_end(s, i);
                Kind::Literal
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let prefix = s[i..].iter().take_while(|c| b"rRbB".contains(c)).count();
                if (1..=2).contains(&prefix) && matches!(s.get(i + prefix), Some(b'\'' | b'"')) {
                    let raw = s[i..i + prefix].iter().any(|c| matches!(c, b'r' | b'R'));
                    i = string_end(s, i + prefix, raw);
                    Kind::Literal
                } else {
                    while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                        i += 1;
                    }
                    Kind::Ident
                }
            }
            b'`' => {
                i += 1;
                while i < s.len() && s[i] != b'`' {
                    i += 1;
                }
                i = (i + 1).min(s.len());
                Kind::Ident
            }
            b'(' | b'[' | b'{' => {
                i += 1;
                Kind::Open(b)
            }
            b')' | b']' | b'}' => {
                i += 1;
                Kind::Close(b)
            }
            b'.' => {
                i += 1;
                Kind::Dot
            }
            b'?' => {
                i += 1;
                Kind::Question
            }
            b'&' | b'|' | b'=' | b'!' | b'<' | b'>' => {
                let two = matches!(
                    &s[i..s.len().min(i + 2)],
                    b"&&" | b"||" | b"==" | b"!=" | b"<=" | b">="
                );
                i += if two { 2 } else { 1 };
                Kind::Other
            }
            _ => {
                // One character (a multi-byte one whole: the grammar allows none here).
                i += 1;
                while i < s.len() && (s[i] & 0xC0) == 0x80 {
                    i += 1;
                }
                Kind::Other
            }
        };
        tokens.push(Token {
            kind,
            start,
            end: i,
        });
    }
    tokens
}

/// Whether the last token ends an operand (then a `.` selects rather than starts `.5`).
fn after_operand(tokens: &[Token]) -> bool {
    tokens
        .last()
        .is_some_and(|t| matches!(t.kind, Kind::Ident | Kind::Literal | Kind::Close(_)))
}

/// The end of the string whose quote is at `i` (triple quotes, escapes unless raw).
fn string_end(s: &[u8], mut i: usize, raw: bool) -> usize {
    let q = s[i];
    let triple = s.get(i..i + 3) == Some(&[q, q, q][..]);
    i += if triple { 3 } else { 1 };
    while i < s.len() {
        if !raw && s[i] == b'\\' {
            i += 2;
        } else if triple && s.get(i..i + 3) == Some(&[q, q, q][..]) {
            return i + 3;
        } else if !triple && s[i] == q {
            return i + 1;
        } else {
            i += 1;
        }
    }
    s.len()
}

/// The end of the number at `i`: hex or decimal, fraction, exponent, `u` suffix.
fn number_end(s: &[u8], mut i: usize) -> usize {
    if s[i] == b'0' && matches!(s.get(i + 1), Some(b'x' | b'X')) {
        i += 2;
        while i < s.len() && s[i].is_ascii_hexdigit() {
            i += 1;
        }
    } else {
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if s.get(i) == Some(&b'.') && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if s.get(j).is_some_and(u8::is_ascii_digit) {
                i = j;
                while i < s.len() && s[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
    }
    if matches!(s.get(i), Some(b'u' | b'U')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use kcel::library::syntax::{
        BIND, Expr, ExprKind, Literal, OPTIONAL, ParseOptions, TWO_VARIABLE, parse,
    };

    use super::source_ranges;

    /// The source text of every node `pick` names (a short description of the node), in
    /// the tree's walk order.
    fn ranges(source: &str, pick: impl Fn(&Expr) -> Option<String>) -> Vec<(String, String)> {
        let options = ParseOptions {
            extra_macros: vec![BIND, TWO_VARIABLE, OPTIONAL],
            ..ParseOptions::default()
        };
        let root = parse(source, &options).expect("parses");
        let ranges = source_ranges(&root, source);
        let mut out = Vec::new();
        root.walk(|e| {
            if let Some(name) = pick(e) {
                let r = ranges[&e.id];
                out.push((name, source[r.start as usize..r.end as usize].to_string()));
            }
        });
        out.sort();
        out
    }

    /// Every node the user wrote, named by its kind (macro expansions named by the
    /// comprehension; their inner bookkeeping skipped).
    fn named(e: &Expr) -> Option<String> {
        Some(match &e.kind {
            ExprKind::Literal(Literal::String(s)) => format!("'{s}'"),
            ExprKind::Literal(l) => format!("{l:?}"),
            ExprKind::Ident(name) if name.starts_with('@') => return None,
            ExprKind::Ident(name) => name.to_string(),
            ExprKind::Select {
                field, test_only, ..
            } => format!("{}.{field}", if *test_only { "has " } else { "" }),
            ExprKind::Call { function, .. } => function.to_string(),
            ExprKind::List { .. } => "list".into(),
            ExprKind::Map { .. } => "map".into(),
            ExprKind::Struct { type_name, .. } => format!("struct {type_name}"),
            ExprKind::Comprehension(c) => format!("comprehension {}", c.iter_var),
        })
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<_> = expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn selections_and_calls() {
        let source = "a.b .c+size( x.y ) - x.f(1, 'a)(').g()";
        assert_eq!(
            ranges(source, named),
            pairs(&[
                ("_+_", "a.b .c+size( x.y )"),
                ("_-_", source),
                (".b", "a.b"),
                (".c", "a.b .c"),
                (".y", "x.y"),
                ("Int(1)", "1"),
                ("'a)('", "'a)('"),
                ("a", "a"),
                ("f", "x.f(1, 'a)(')"),
                ("g", "x.f(1, 'a)(').g()"),
                ("size", "size( x.y )"),
                ("x", "x"),
                ("x", "x"),
            ])
        );
    }

    #[test]
    fn parentheses_belong_to_the_enclosing_node() {
        assert_eq!(
            ranges("((a + b)).size() * -(1)", named),
            pairs(&[
                ("Int(1)", "1"),
                ("_*_", "((a + b)).size() * -(1)"),
                ("_+_", "a + b"),
                ("-_", "-(1)"),
                ("a", "a"),
                ("b", "b"),
                ("size", "((a + b)).size()"),
            ])
        );
    }

    #[test]
    fn index_lists_maps_and_messages() {
        let source = "[1, [2]][0] in {'k': {?'o': v}}.k && .pkg.Msg{f: 1}.f != x[?'i'] ";
        let got = ranges(source, named);
        for expected in [
            ("list", "[1, [2]]"),
            ("list", "[2]"),
            ("_[_]", "[1, [2]][0]"),
            ("map", "{'k': {?'o': v}}"),
            ("map", "{?'o': v}"),
            (".k", "{'k': {?'o': v}}.k"),
            ("@in", "[1, [2]][0] in {'k': {?'o': v}}.k"),
            ("struct .pkg.Msg", ".pkg.Msg{f: 1}"),
            (".f", ".pkg.Msg{f: 1}.f"),
            ("_[?_]", "x[?'i']"),
            ("_!=_", ".pkg.Msg{f: 1}.f != x[?'i']"),
            ("_&&_", source.trim_end()),
        ] {
            assert!(
                got.contains(&(expected.0.to_string(), expected.1.to_string())),
                "{expected:?} not in {got:#?}"
            );
        }
    }

    #[test]
    fn macros_and_comprehensions() {
        let source = "has(a.b) && l.all(x, x > 0) && l.exists_one(x, x == 1) \
                      && l.map(x, x < 3, x * 2) == l.filter(y, [y].exists(z, z > y))";
        let got = ranges(source, named);
        let comprehensions: Vec<_> = got
            .iter()
            .filter(|(n, _)| n.starts_with("comprehension") || n.starts_with("has"))
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            comprehensions,
            [
                ("comprehension x", "l.all(x, x > 0)"),
                ("comprehension x", "l.exists_one(x, x == 1)"),
                ("comprehension x", "l.map(x, x < 3, x * 2)"),
                ("comprehension y", "l.filter(y, [y].exists(z, z > y))"),
                ("comprehension z", "[y].exists(z, z > y)"),
                ("has .b", "has(a.b)"),
            ]
        );
        for expected in [
            ("_>_", "x > 0"),
            ("_*_", "x * 2"),
            ("_>_", "z > y"),
            ("list", "[y]"),
        ] {
            assert!(
                got.contains(&(expected.0.to_string(), expected.1.to_string())),
                "{expected:?} not in {got:#?}"
            );
        }
    }

    #[test]
    fn strings_comments_and_escaped_fields() {
        let source = "f(r'(', \"\"\")\"\"\", b'\\')') // ) ( ]\n  + a.`b-c`.size() + a.?d";
        let got = ranges(source, named);
        for expected in [
            ("f", "f(r'(', \"\"\")\"\"\", b'\\')')"),
            ("size", "a.`b-c`.size()"),
            ("_?._", "a.?d"),
            ("_+_", source),
        ] {
            assert!(
                got.contains(&(expected.0.to_string(), expected.1.to_string())),
                "{expected:?} not in {got:#?}"
            );
        }
    }

    #[test]
    fn conditionals_unary_and_numbers() {
        let source = "!!!t ? -1.5e3 : .5 + 0x1Fu";
        assert_eq!(
            ranges(source, named),
            pairs(&[
                ("!_", "!!!t"),
                ("Double(-1500.0)", "-1.5e3"),
                ("Double(0.5)", ".5"),
                ("Uint(31)", "0x1Fu"),
                ("_+_", ".5 + 0x1Fu"),
                ("_?_:_", source),
                ("t", "t"),
            ])
        );
    }

    #[test]
    fn namespaced_and_two_variable_macros() {
        let source = "cel.bind(n, m.size(), m.all(k, v, v > n)) && \
                      optional.of(1).optMap(x, x + 1).hasValue()";
        let got = ranges(source, named);
        for expected in [
            // cel.bind is a comprehension over nothing, its variable the accumulator.
            (
                "comprehension #unused",
                "cel.bind(n, m.size(), m.all(k, v, v > n))",
            ),
            ("_?_:_", "optional.of(1).optMap(x, x + 1)"),
            ("comprehension k", "m.all(k, v, v > n)"),
            ("_>_", "v > n"),
            ("size", "m.size()"),
            ("of", "optional.of(1)"),
            ("hasValue", "optional.of(1).optMap(x, x + 1).hasValue()"),
        ] {
            assert!(
                got.contains(&(expected.0.to_string(), expected.1.to_string())),
                "{expected:?} not in {got:#?}"
            );
        }
    }
}

//! Kubernetes' field and label selector parsers, as the authorization check of
//! `kubernetes.authzSelectors` runs them: apimachinery's `fields.ParseSelector` (then
//! `Requirements()`) and `labels.ParseToRequirements`, with their error texts. Kubernetes
//! does not raise these errors: it hands the authorizer either the requirements or the
//! parse error (`AttributesRecord.FieldSelectorParsingErr`, `LabelSelectorParsingErr`).

use super::go_quote;
use super::named_formats::{label_value, qualified_name};

/// One requirement of a field selector (apimachinery's `fields.Requirement`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRequirement {
    /// `=` (written `=` or `==`) or `!=`.
    pub operator: &'static str,
    /// The field (`metadata.name`).
    pub field: String,
    /// The value compared with.
    pub value: String,
}

/// One requirement of a label selector (apimachinery's `labels.Requirement`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelRequirement {
    /// The label's key.
    pub key: String,
    /// `=`, `==`, `!=`, `in`, `notin`, `exists`, `!` (does not exist), `gt` or `lt`.
    pub operator: &'static str,
    /// Sorted and without duplicates (apimachinery keeps them in a string set).
    pub values: Vec<String>,
}

/// Why a selector does not parse; `Display` is apimachinery's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A field-selector term without an operator.
    #[error("invalid selector: '{selector}'; can't understand '{term}'")]
    FieldTerm {
        /// The whole selector.
        selector: String,
        /// The term.
        term: String,
    },
    /// A backslash in a field selector's value before a character that needs no escape,
    /// or (`None`) at its end.
    #[error("invalid field selector: invalid escape sequence: \\{}", .0.map(String::from).unwrap_or_default())]
    FieldEscape(Option<char>),
    /// A `,` or `=` in a field selector's value that is not escaped (Go prints its number).
    #[error("invalid field selector: unescaped character in value: {}", u32::from(*.0))]
    FieldUnescaped(char),
    /// A label selector's token where another was expected.
    #[error("found '{found}'{expected}")]
    Unexpected {
        /// The token's text.
        found: String,
        /// What the parser expected.
        expected: Expected,
    },
    /// A label requirement that does not parse (wrapping why).
    #[error("unable to parse requirement: {0}")]
    Requirement(Box<SelectorError>),
    /// Invalid keys or values of a requirement (`field.Invalid` errors; several are shown as
    /// `[a, b]`).
    #[error("{}", render_invalid(.0))]
    Invalid(Vec<InvalidValue>),
}

/// What the label-selector parser expected ([`SelectorError::Unexpected`]), rendered with
/// its punctuation as apimachinery words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Expected {
    /// Another requirement after a comma.
    #[error(", expected: identifier after ','")]
    IdentifierAfterComma,
    /// The end of a requirement.
    #[error(", expected: ',' or 'end of string'")]
    CommaOrEnd,
    /// The start of a requirement.
    #[error(", expected: !, identifier, or 'end of string'")]
    RequirementStart,
    /// A key or value.
    #[error(", expected: identifier")]
    Identifier,
    /// An operator.
    #[error(", expected: in, notin, =, ==, !=, gt, lt")]
    Operator,
    /// The `(` of a value set (apimachinery writes no comma here).
    #[error(" expected: '('")]
    OpenParen,
    /// The `)` closing a value set.
    #[error(", expected: ')'")]
    CloseParen,
    /// The first item of a value set.
    #[error(", expected: ',', ')' or identifier")]
    SetStart,
    /// What follows a value in a set.
    #[error(", expected: ',' or ')'")]
    CommaOrCloseParen,
    /// A value or comma in a set.
    #[error(", expected: ',', or identifier")]
    CommaOrIdentifier,
}

/// A `field.Invalid` error: `<path>: Invalid value: "<value>": <details joined by "; ">`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: Invalid value: {}: {}", go_quote(.value), .details.join("; "))]
pub struct InvalidValue {
    /// The field path (`values[0]`, `<nil>` for a key).
    pub path: String,
    /// The value.
    pub value: String,
    /// apimachinery's validation messages.
    pub details: Vec<String>,
}

fn render_invalid(errors: &[InvalidValue]) -> String {
    match errors {
        [one] => one.to_string(),
        _ => {
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            format!("[{}]", all.join(", "))
        }
    }
}

fn unexpected<T>(found: impl Into<String>, expected: Expected) -> Result<T, SelectorError> {
    Err(SelectorError::Unexpected {
        found: found.into(),
        expected,
    })
}

// ----- field selectors (apimachinery pkg/fields/selector.go) -----

/// `fields.ParseSelector(s)` followed by `Requirements()`: terms sorted, `==` read as `=`,
/// terms with neither field nor value dropped.
pub fn parse_field_selector(selector: &str) -> Result<Vec<FieldRequirement>, SelectorError> {
    let mut parts = split_terms(selector);
    parts.sort_unstable();
    let mut out = Vec::new();
    for part in parts {
        if part.is_empty() {
            continue;
        }
        let Some((field, operator, rhs)) = split_term(part) else {
            return Err(SelectorError::FieldTerm {
                selector: selector.to_string(),
                term: part.to_string(),
            });
        };
        let value = unescape_value(rhs)?;
        if field.is_empty() && value.is_empty() {
            // Transform turns such a term into Everything(), which has no requirements.
            continue;
        }
        out.push(FieldRequirement {
            operator,
            field: field.to_string(),
            value,
        });
    }
    Ok(out)
}

/// The comma-separated terms; backslash-escaped commas stay inside a term.
fn split_terms(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let (mut start, mut in_slash) = (0, false);
    for (i, c) in s.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(&s[start..i]);
            start = i + 1;
        }
    }
    terms.push(&s[start..]);
    terms
}

/// Splits at the first operator (`!=`, then `==`, then `=` at each position).
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for (op, operator) in [("!=", "!="), ("==", "="), ("=", "=")] {
            if let Some(rhs) = rest.strip_prefix(op) {
                return Some((&term[..i], operator, rhs));
            }
        }
    }
    None
}

/// `fields.UnescapeValue`.
fn unescape_value(s: &str) -> Result<String, SelectorError> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                _ => {
                    return Err(SelectorError::FieldEscape(Some(c)));
                }
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            // Go prints the rune with %v: its number.
            ',' | '=' => {
                return Err(SelectorError::FieldUnescaped(c));
            }
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err(SelectorError::FieldEscape(None));
    }
    Ok(out)
}

// ----- label selectors (apimachinery pkg/labels/selector.go) -----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn keyword(s: &[u8]) -> Option<Token> {
    Some(match s {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::DoesNotExist,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(c: u8) -> bool {
    matches!(c, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The lexer, byte by byte as upstream's; a NUL byte reads as the end of the input.
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos -= 1;
    }

    fn lex(&mut self) -> (Token, String) {
        let mut c = self.read();
        while is_whitespace(c) {
            c = self.read();
        }
        if c == 0 {
            return (Token::EndOfString, String::new());
        }
        self.unread();
        if is_special(c) {
            self.special()
        } else {
            self.identifier()
        }
    }

    fn identifier(&mut self) -> (Token, String) {
        let mut buf = Vec::new();
        loop {
            let c = self.read();
            if c == 0 {
                break;
            }
            if is_special(c) || is_whitespace(c) {
                self.unread();
                break;
            }
            buf.push(c);
        }
        let lit = String::from_utf8_lossy(&buf).into_owned();
        (keyword(&buf).unwrap_or(Token::Identifier), lit)
    }

    fn special(&mut self) -> (Token, String) {
        let mut buf = Vec::new();
        let mut last: Option<(Token, usize)> = None;
        loop {
            let c = self.read();
            if c == 0 {
                break;
            }
            if !is_special(c) {
                self.unread();
                break;
            }
            buf.push(c);
            if let Some(t) = keyword(&buf) {
                last = Some((t, buf.len()));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        match last {
            Some((t, n)) => (t, String::from_utf8_lossy(&buf[..n]).into_owned()),
            None => (
                Token::Error,
                format!(
                    "error expected: keyword found '{}'",
                    String::from_utf8_lossy(&buf)
                ),
            ),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    fn token(&self, i: usize, context: Context) -> (Token, &str) {
        let (t, lit) = match self.items.get(i) {
            Some((t, lit)) => (*t, lit.as_str()),
            None => (Token::EndOfString, ""),
        };
        match (context, t) {
            (Context::Values, Token::In | Token::NotIn) => (Token::Identifier, lit),
            _ => (t, lit),
        }
    }

    fn lookahead(&self, context: Context) -> (Token, String) {
        let (t, lit) = self.token(self.position, context);
        (t, lit.to_string())
    }

    fn consume(&mut self, context: Context) -> (Token, String) {
        self.position += 1;
        let (t, lit) = self.token(self.position - 1, context);
        (t, lit.to_string())
    }

    fn parse(&mut self) -> Result<Vec<LabelRequirement>, SelectorError> {
        let mut out = Vec::new();
        loop {
            let (t, lit) = self.lookahead(Context::Values);
            match t {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .requirement()
                        .map_err(|e| SelectorError::Requirement(Box::new(e)))?;
                    out.push(r);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::EndOfString => return Ok(out),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return unexpected(l2, Expected::IdentifierAfterComma);
                            }
                        }
                        _ => {
                            return unexpected(l, Expected::CommaOrEnd);
                        }
                    }
                }
                Token::EndOfString => return Ok(out),
                _ => {
                    return unexpected(lit, Expected::RequirementStart);
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<LabelRequirement, SelectorError> {
        let (key, operator) = self.key_and_inferred_operator()?;
        if let Some(op) = operator {
            return new_requirement(key, op, Vec::new());
        }
        let op = self.operator()?;
        let values = match op {
            "in" | "notin" => self.values()?,
            _ => self.exact_value()?,
        };
        new_requirement(key, op, values)
    }

    fn key_and_inferred_operator(
        &mut self,
    ) -> Result<(String, Option<&'static str>), SelectorError> {
        let mut operator = None;
        let (mut t, mut lit) = self.consume(Context::Values);
        if t == Token::DoesNotExist {
            operator = Some("!");
            (t, lit) = self.consume(Context::Values);
        }
        if t != Token::Identifier {
            return unexpected(lit, Expected::Identifier);
        }
        let errs = qualified_name(&lit);
        if !errs.is_empty() {
            // validateLabelKey with the parser's (nil) path.
            return Err(SelectorError::Invalid(vec![InvalidValue {
                path: "<nil>".into(),
                value: lit,
                details: errs,
            }]));
        }
        let (next, _) = self.lookahead(Context::Values);
        if matches!(next, Token::EndOfString | Token::Comma) && operator.is_none() {
            operator = Some("exists");
        }
        Ok((lit, operator))
    }

    fn operator(&mut self) -> Result<&'static str, SelectorError> {
        let (t, lit) = self.consume(Context::KeyAndOperator);
        Ok(match t {
            Token::In => "in",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::GreaterThan => "gt",
            Token::LessThan => "lt",
            Token::NotIn => "notin",
            Token::NotEquals => "!=",
            _ => {
                return unexpected(lit, Expected::Operator);
            }
        })
    }

    fn values(&mut self) -> Result<Vec<String>, SelectorError> {
        let (t, lit) = self.consume(Context::Values);
        if t != Token::OpenPar {
            return unexpected(lit, Expected::OpenParen);
        }
        let (t, lit) = self.lookahead(Context::Values);
        match t {
            Token::Identifier | Token::Comma => {
                let s = self.identifiers()?;
                let (t, _) = self.consume(Context::Values);
                if t != Token::ClosedPar {
                    // Upstream reports the token before the list.
                    return unexpected(lit, Expected::CloseParen);
                }
                Ok(s)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(vec![String::new()])
            }
            _ => unexpected(lit, Expected::SetStart),
        }
    }

    fn identifiers(&mut self) -> Result<Vec<String>, SelectorError> {
        let mut s = std::collections::BTreeSet::new();
        loop {
            let (t, lit) = self.consume(Context::Values);
            match t {
                Token::Identifier => {
                    s.insert(lit);
                    let (t2, l2) = self.lookahead(Context::Values);
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(s.into_iter().collect()),
                        _ => return unexpected(l2, Expected::CommaOrCloseParen),
                    }
                }
                Token::Comma => {
                    if s.is_empty() {
                        s.insert(String::new());
                    }
                    let (t2, _) = self.lookahead(Context::Values);
                    if t2 == Token::ClosedPar {
                        s.insert(String::new());
                        return Ok(s.into_iter().collect());
                    }
                    if t2 == Token::Comma {
                        s.insert(String::new());
                    }
                }
                _ => return unexpected(lit, Expected::CommaOrIdentifier),
            }
        }
    }

    fn exact_value(&mut self) -> Result<Vec<String>, SelectorError> {
        let (t, _) = self.lookahead(Context::Values);
        if matches!(t, Token::EndOfString | Token::Comma) {
            return Ok(vec![String::new()]);
        }
        let (t, lit) = self.consume(Context::Values);
        if t == Token::Identifier {
            return Ok(vec![lit]);
        }
        unexpected(lit, Expected::Identifier)
    }
}

/// `labels.NewRequirement`: the value checks (the key was checked by the parser), errors
/// aggregated as apimachinery does (duplicates dropped; several as `[a, b]`).
fn new_requirement(
    key: String,
    operator: &'static str,
    values: Vec<String>,
) -> Result<LabelRequirement, SelectorError> {
    let mut errs: Vec<InvalidValue> = Vec::new();
    if matches!(operator, "gt" | "lt") {
        for (i, v) in values.iter().enumerate() {
            if !is_go_int64(v) {
                errs.push(InvalidValue {
                    path: format!("values[{i}]"),
                    value: v.clone(),
                    details: vec!["for 'Gt', 'Lt' operators, the value must be an integer".into()],
                });
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let e = label_value(v);
        if !e.is_empty() {
            errs.push(InvalidValue {
                path: format!("values[{i}][{key}]"),
                value: v.clone(),
                details: e,
            });
        }
    }
    let mut seen = Vec::new();
    for e in errs {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => Ok(LabelRequirement {
            key,
            operator,
            values,
        }),
        _ => Err(SelectorError::Invalid(seen)),
    }
}

/// `strconv.ParseInt(s, 10, 64)` succeeds.
fn is_go_int64(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && s.parse::<i64>().is_ok()
}

/// `labels.ParseToRequirements(s)`: requirements sorted by key.
pub fn parse_label_selector(selector: &str) -> Result<Vec<LabelRequirement>, SelectorError> {
    let mut lexer = Lexer {
        s: selector.as_bytes(),
        pos: 0,
    };
    let mut items = Vec::new();
    loop {
        let (t, lit) = lexer.lex();
        items.push((t, lit));
        if t == Token::EndOfString {
            break;
        }
    }
    let mut parser = Parser { items, position: 0 };
    let mut out = parser.parse()?;
    // sort.Sort(ByKey): an insertion sort (stable) for the short lists selectors have.
    out.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(s: &str) -> Result<Vec<(String, &'static str, String)>, String> {
        parse_field_selector(s)
            .map(|rs| {
                rs.into_iter()
                    .map(|r| (r.field, r.operator, r.value))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    type Req = (String, &'static str, Vec<String>);

    fn label(s: &str) -> Result<Vec<Req>, String> {
        parse_label_selector(s)
            .map(|rs| {
                rs.into_iter()
                    .map(|r| (r.key, r.operator, r.values))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    fn t(f: &str, op: &'static str, v: &str) -> (String, &'static str, String) {
        (f.into(), op, v.into())
    }

    fn l(k: &str, op: &'static str, vs: &[&str]) -> Req {
        (k.into(), op, vs.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn field_selectors() {
        assert_eq!(field("foo=bar"), Ok(vec![t("foo", "=", "bar")]));
        assert_eq!(
            field("spec.nodeName==n1,metadata.name!=x"),
            Ok(vec![
                t("metadata.name", "!=", "x"),
                t("spec.nodeName", "=", "n1")
            ])
        );
        assert_eq!(field(""), Ok(vec![]));
        assert_eq!(field(",,"), Ok(vec![]));
        assert_eq!(field("="), Ok(vec![]));
        assert_eq!(field("a="), Ok(vec![t("a", "=", "")]));
        assert_eq!(field("a=x\\,y\\=z\\\\"), Ok(vec![t("a", "=", "x,y=z\\")]));
        // apiserver's condition_test.go and authorization_test.go.
        assert_eq!(
            field("foo badoperator bar"),
            Err(
                "invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'"
                    .into()
            )
        );
        assert_eq!(
            field("*bar"),
            Err("invalid selector: '*bar'; can't understand '*bar'".into())
        );
        assert_eq!(
            field("a=b=c"),
            Err("invalid field selector: unescaped character in value: 61".into())
        );
        assert_eq!(
            field("a=b\\n"),
            Err("invalid field selector: invalid escape sequence: \\n".into())
        );
        assert_eq!(
            field("a=b\\"),
            Err("invalid field selector: invalid escape sequence: \\".into())
        );
    }

    #[test]
    fn label_selectors() {
        assert_eq!(
            label("apple=banana"),
            Ok(vec![l("apple", "=", &["banana"])])
        );
        assert_eq!(
            label("x in (foo,,baz),y,z notin ()"),
            Ok(vec![
                l("x", "in", &["", "baz", "foo"]),
                l("y", "exists", &[]),
                l("z", "notin", &[""]),
            ])
        );
        assert_eq!(
            label("!a,b==c,d!=e,f>1,g<2"),
            Ok(vec![
                l("a", "!", &[]),
                l("b", "==", &["c"]),
                l("d", "!=", &["e"]),
                l("f", "gt", &["1"]),
                l("g", "lt", &["2"]),
            ])
        );
        assert_eq!(label("  "), Ok(vec![]));
        // "-2" is an integer but not a label value.
        assert!(label("a<-2").unwrap_err().starts_with(
            "unable to parse requirement: values[0][a]: Invalid value: \"-2\": a valid label"
        ));
        assert_eq!(label("a="), Ok(vec![l("a", "=", &[""])]));
        assert_eq!(label("in in (in)"), Ok(vec![l("in", "in", &["in"])]));
        // apiserver's condition_test.go and authorization_test.go.
        assert_eq!(
            label("apple badoperator banana"),
            Err("unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt".into())
        );
        assert_eq!(
            label("*bar"),
            Err("unable to parse requirement: <nil>: Invalid value: \"*bar\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".into())
        );
        assert_eq!(
            label("a>b"),
            Err("unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer".into())
        );
        assert_eq!(
            label("a=b@"),
            Err("unable to parse requirement: values[0][a]: Invalid value: \"b@\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into())
        );
        assert_eq!(
            label("a>x@"),
            Err("unable to parse requirement: [values[0]: Invalid value: \"x@\": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: \"x@\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]".into())
        );
        assert_eq!(
            label("a,"),
            Err("found '', expected: identifier after ','".into())
        );
        assert_eq!(
            label("a b"),
            Err(
                "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"
                    .into()
            )
        );
        assert_eq!(
            label("a=b c"),
            Err("found 'c', expected: ',' or 'end of string'".into())
        );
        assert_eq!(
            label(",a"),
            Err("found ',', expected: !, identifier, or 'end of string'".into())
        );
        assert_eq!(
            label("a in b"),
            Err("unable to parse requirement: found 'b' expected: '('".into())
        );
        assert_eq!(
            label("a in (b c)"),
            Err("unable to parse requirement: found 'c', expected: ',' or ')'".into())
        );
        assert_eq!(
            label("a in (="),
            Err("unable to parse requirement: found '=', expected: ',', ')' or identifier".into())
        );
        assert_eq!(
            label("a in (b,="),
            Err("unable to parse requirement: found '=', expected: ',', or identifier".into())
        );
        assert_eq!(
            label("a=(b"),
            Err("unable to parse requirement: found '(', expected: identifier".into())
        );
        assert_eq!(
            label("!!a"),
            Err("unable to parse requirement: found '!', expected: identifier".into())
        );
        assert_eq!(
            label("a=é"),
            Err("unable to parse requirement: values[0][a]: Invalid value: \"é\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into())
        );
    }
}

//! RE2 (Go `regexp`) patterns on the `regex` crate.
//!
//! [`compile`] reads the pattern as Go's parser does (`regexp/syntax/parse.go`, Perl flags),
//! reporting Go's errors with Go's texts and fragments, and writes an equivalent pattern for
//! the crate, so that the crate never decides what is valid where the dialects differ.
//! Patterns the crate accepts but RE2 rejects (each tested below):
//!
//! * stacked repetition operators (`a**`, `x++`, `a*{2}`, `a{2}*`): "invalid nested
//!   repetition operator";
//! * repeat counts over 1000, alone or multiplied through nested repetitions (`a{1001}`,
//!   `(a{500}){3}`): "invalid repeat count";
//! * flags other than `i`, `m`, `s`, `U` (`(?x)`, `(?u)`, `(?R)`), and `(?'name'...)`:
//!   "invalid or unsupported Perl syntax";
//! * group names with characters other than ASCII letters, digits and `_` (`(?P<a.b>x)`,
//!   `(?<a[0]>x)`): "invalid named capture";
//! * the crate's escapes `\u0041`, `\u{41}`, `\U0001F600`, `\e`, `\b{start}`-style
//!   assertions' `\b` in a class, `\A`/`\z`/`\Q` in a class, `\C`: "invalid escape sequence";
//! * a range ending in a Perl class (`[a-\d]`): "invalid escape sequence".
//!
//! And the reverse — text Go reads as literal that the crate reads otherwise or rejects:
//! a `{` that does not start `{n}`, `{n,}` or `{n,m}` (`a{,3}`, `a{01}`, `a{x}`, `a{`), `[`,
//! `&&` and `~~` inside a class, `\<` and `\>`, `]` and `}` outside one; duplicate group
//! names (Go accepts them; groups are written unnamed since CEL reads groups by index);
//! `(?)`. The semantics differences are rewritten too: Go's `\d \w \s \b` (and negations)
//! are ASCII-only where the crate's are Unicode, and Go supports `\Q...\E` and octal
//! escapes. Unicode class names (`\p{Greek}`) are left to the crate (Go's accepted names
//! changed across Go versions).

use regex::{Regex, RegexBuilder};

use crate::error::EvalError;

/// What compiling a pattern is counted as against an evaluation's memory budget, per byte
/// of the pattern (the parser's syntax tree, the compiled program): a pattern built at run
/// time (`s.matches(p)`, `regex.replace`, `find`) of megabytes would take hundreds of
/// megabytes to compile.
const COMPILE_BYTES_PER_PATTERN_BYTE: u64 = 64;

/// Compiles a RE2 pattern with Go's syntax, semantics and error texts.
pub fn compile(pattern: &str) -> Result<Regex, EvalError> {
    crate::budget::reserve((pattern.len() as u64).saturating_mul(COMPILE_BYTES_PER_PATTERN_BYTE))?;
    let translated = translate(pattern).map_err(|(code, expr)| {
        EvalError::new(format!("error parsing regexp: {code}: `{expr}`"))
    })?;
    RegexBuilder::new(&translated)
        // Go allows a parse tree 1000 deep; the crate's default nesting limit is 250.
        .nest_limit(1000)
        .build()
        .map_err(|e| error(pattern, &translated, &e))
}

/// The ASCII class for a Perl escape letter, as a bracketed class.
fn perl_class(c: char) -> Option<&'static str> {
    Some(match c {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        'w' => "[0-9A-Za-z_]",
        'W' => "[^0-9A-Za-z_]",
        's' => "[\\t\\n\\x0C\\r ]",
        'S' => "[^\\t\\n\\x0C\\r ]",
        _ => return None,
    })
}

/// Go's POSIX class names (`posixGroup`), with and without `^`.
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// A Go parse error: its code (`ErrorCode`) and the fragment Go quotes.
type GoError = (&'static str, String);

const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";

/// Go's largest repeat count, alone or as the product of nested counts (`maxRepeat`).
const MAX_REPEAT: u64 = 1000;

/// What Go's parse stack needs to be known for errors: per open group, whether an operand
/// is on top (something a repetition may apply to) and the largest product of nested
/// repeat counts in it (`repeatIsValid`).
#[derive(Clone, Copy)]
struct Group {
    /// The repeat weight of the operand on top, if an operand is on top.
    top: Option<u64>,
    /// The largest repeat weight of any operand in the group so far.
    weight: u64,
}

impl Group {
    const EMPTY: Group = Group {
        top: None,
        weight: 1,
    };

    fn push(&mut self, weight: u64) {
        self.top = Some(weight);
        self.weight = self.weight.max(weight);
    }
}

/// Reads a Go pattern as `regexp/syntax.Parse(s, Perl)` does and writes the equivalent
/// pattern in the crate's syntax, or returns Go's first error.
fn translate(pattern: &str) -> Result<String, GoError> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut groups = vec![Group::EMPTY];
    // The text from the previous token, if that token was a repetition operator.
    let mut last_repeat: Option<&str> = None;
    let mut t = pattern;
    while let Some(c) = t.chars().next() {
        let mut repeat = None;
        let group = groups.last_mut().expect("the outermost group stays");
        match c {
            '(' if t.starts_with("(?") => {
                t = perl_flags(t, &mut out, &mut groups)?;
            }
            '(' => {
                out.push('(');
                groups.push(Group::EMPTY);
                t = &t[1..];
            }
            '|' => {
                out.push('|');
                group.top = None;
                t = &t[1..];
            }
            ')' => {
                if groups.len() < 2 {
                    return Err((UNEXPECTED_PAREN, pattern.into()));
                }
                let inner = groups.pop().expect("checked");
                out.push(')');
                groups
                    .last_mut()
                    .expect("the outermost group stays")
                    .push(inner.weight);
                t = &t[1..];
            }
            '^' | '$' | '.' => {
                out.push(c);
                group.push(1);
                t = &t[1..];
            }
            '[' => {
                t = class(t, &mut out)?;
                group.push(1);
            }
            '*' | '+' | '?' => {
                let before = t;
                let mut after = &t[1..];
                out.push(c);
                if let Some(rest) = after.strip_prefix('?') {
                    after = rest;
                    out.push('?');
                }
                apply_repeat(group, before, after, last_repeat, None)?;
                repeat = Some(before);
                t = after;
            }
            '{' => match parse_repeat(t) {
                None => {
                    // Not a repetition: a literal `{`.
                    out.push_str("\\{");
                    group.push(1);
                    t = &t[1..];
                }
                Some((min, max, after)) => {
                    let before = t;
                    let counted = &before[..before.len() - after.len()];
                    let too_big = |n: i64| n > MAX_REPEAT as i64;
                    if min < 0 || too_big(min) || too_big(max) || max >= 0 && min > max {
                        return Err((INVALID_REPEAT_SIZE, counted.into()));
                    }
                    let mut after = after;
                    match max {
                        -1 => out.push_str(&format!("{{{min},}}")),
                        _ if max == min => out.push_str(&format!("{{{min}}}")),
                        _ => out.push_str(&format!("{{{min},{max}}}")),
                    }
                    if let Some(rest) = after.strip_prefix('?') {
                        after = rest;
                        out.push('?');
                    }
                    apply_repeat(group, before, after, last_repeat, Some((min, max)))?;
                    repeat = Some(before);
                    t = after;
                }
            },
            '\\' => {
                t = escape_outside_class(t, &mut out, group)?;
            }
            c => {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                group.push(1);
                t = &t[c.len_utf8()..];
            }
        }
        last_repeat = repeat;
    }
    if groups.len() > 1 {
        return Err((MISSING_PAREN, pattern.into()));
    }
    Ok(out)
}

/// Go's `parser.repeat`: a repetition needs an operand and may not follow another one; a
/// counted one may not make the product of nested counts exceed 1000.
fn apply_repeat(
    group: &mut Group,
    before: &str,
    after: &str,
    last_repeat: Option<&str>,
    counts: Option<(i64, i64)>,
) -> Result<(), GoError> {
    if let Some(last) = last_repeat {
        return Err((INVALID_REPEAT_OP, last[..last.len() - after.len()].into()));
    }
    let Some(sub) = group.top else {
        return Err((
            MISSING_REPEAT_ARGUMENT,
            before[..before.len() - after.len()].into(),
        ));
    };
    let weight = match counts {
        None => sub,
        Some((min, max)) => {
            let m = if max < 0 { min } else { max } as u64;
            if m == 0 {
                1
            } else {
                let weight = m.saturating_mul(sub);
                if (min >= 2 || max >= 2) && weight > MAX_REPEAT {
                    return Err((
                        INVALID_REPEAT_SIZE,
                        before[..before.len() - after.len()].into(),
                    ));
                }
                weight
            }
        }
    };
    group.weight = group.weight.max(weight);
    group.top = Some(weight);
    Ok(())
}

/// Go's `parseRepeat`: `{n}`, `{n,}` (max -1) or `{n,m}` at the start of `s` (no leading
/// zeros), with the text after it; `None` where `{` is literal. A number of 10^8 or more
/// makes min -1 (an invalid count).
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (max, s) = match s.strip_prefix(',') {
        None => (min, s),
        Some(rest) if rest.starts_with('}') => (-1, rest),
        Some(rest) => parse_int(rest)?,
    };
    let rest = s.strip_prefix('}')?;
    let too_big = min == TOO_BIG || max == TOO_BIG;
    Some((if too_big { -1 } else { min }, max, rest))
}

/// What [`parse_int`] gives for a number of 10^8 or more.
const TOO_BIG: i64 = -2;

/// Go's `parseInt`: decimal digits without a leading zero (unless alone); [`TOO_BIG`] for
/// a number of 10^8 or more.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n >= 2 && s.starts_with('0') {
        return None;
    }
    let value = s[..n]
        .bytes()
        .try_fold(0i64, |acc, d| {
            (acc < 100_000_000).then(|| acc * 10 + i64::from(d - b'0'))
        })
        .unwrap_or(TOO_BIG);
    Some((value, &s[n..]))
}

/// Go's `parsePerlFlags` for `s` starting with `(?`: a named group (written unnamed), or
/// flags `i`, `m`, `s`, `U` with an optional `-` part, ending in `)` or `:`.
fn perl_flags<'a>(
    s: &'a str,
    out: &mut String,
    groups: &mut Vec<Group>,
) -> Result<&'a str, GoError> {
    let t = s;
    let named = if t.len() > 4 && t[2..].starts_with("P<") {
        Some(4)
    } else if t.len() > 3 && t[2..].starts_with('<') {
        Some(3)
    } else {
        None
    };
    if let Some(start) = named {
        let Some(end) = t.find('>') else {
            return Err((INVALID_NAMED_CAPTURE, s.into()));
        };
        let name = &t[start..end];
        if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
            return Err((INVALID_NAMED_CAPTURE, t[..=end].into()));
        }
        out.push('(');
        groups.push(Group::EMPTY);
        return Ok(&t[end + 1..]);
    }
    let mut rest = &t[2..];
    let mut negated = false;
    let mut saw_flag = false;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            'i' | 'm' | 's' | 'U' => saw_flag = true,
            '-' if !negated => {
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => {
                let flags = &t[2..t.len() - rest.len() - 1];
                if c == ':' {
                    out.push_str("(?");
                    out.push_str(flags);
                    out.push(':');
                    groups.push(Group::EMPTY);
                } else if !flags.is_empty() {
                    out.push_str("(?");
                    out.push_str(flags);
                    out.push(')');
                }
                return Ok(rest);
            }
            _ => break,
        }
    }
    Err((INVALID_PERL_OP, s[..s.len() - rest.len()].into()))
}

/// An escape outside a class: Go's `\A \b \B \z \Q...\E` (and `\C`, unsupported), a
/// Unicode class, a Perl class, or an escaped character.
fn escape_outside_class<'a>(
    t: &'a str,
    out: &mut String,
    group: &mut Group,
) -> Result<&'a str, GoError> {
    let mut chars = t[1..].chars();
    match chars.next() {
        Some('A') => out.push_str("\\A"),
        Some('z') => out.push_str("\\z"),
        Some('b') => out.push_str("(?-u:\\b)"),
        Some('B') => out.push_str("(?-u:\\B)"),
        Some('C') => return Err((INVALID_ESCAPE, t[..2].into())),
        Some('Q') => {
            let (literal, rest) = t[2..].split_once("\\E").unwrap_or((&t[2..], ""));
            for c in literal.chars() {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                group.push(1);
            }
            return Ok(rest);
        }
        _ => {
            let rest = class_escape(t, out)?;
            group.push(1);
            return Ok(rest);
        }
    }
    // Assertions are operands too (Go pushes an op).
    group.push(1);
    Ok(&t[2..])
}

/// A Unicode class (`\pL`, `\p{Greek}`, written as is), a Perl class (written as an ASCII
/// class) or an escaped character (Go's `parseEscape`), at the start of `t` (a backslash).
fn class_escape<'a>(t: &'a str, out: &mut String) -> Result<&'a str, GoError> {
    let mut chars = t[1..].chars();
    let Some(c) = chars.next() else {
        return Err((TRAILING_BACKSLASH, String::new()));
    };
    if c == 'p' || c == 'P' {
        let rest = &t[2..];
        let seq_len = match rest.chars().next() {
            // Go reads an empty name, which names no class.
            None => return Err((INVALID_CHAR_RANGE, t.into())),
            Some('{') => match t.find('}') {
                Some(end) => end + 1,
                None => return Err((INVALID_CHAR_RANGE, t.into())),
            },
            Some(n) => 2 + n.len_utf8(),
        };
        out.push_str(&t[..seq_len]);
        return Ok(&t[seq_len..]);
    }
    if let Some(class) = perl_class(c) {
        out.push_str(class);
        return Ok(&t[2..]);
    }
    let (r, rest) = go_escape(t)?;
    push_char(out, r);
    Ok(rest)
}

/// Go's `parseEscape` for the escape at the start of `s`: the character and the rest.
fn go_escape(s: &str) -> Result<(char, &str), GoError> {
    let invalid = |rest: &str| (INVALID_ESCAPE, s[..s.len() - rest.len()].to_string());
    let mut t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err((TRAILING_BACKSLASH, String::new()));
    };
    t = &t[c.len_utf8()..];
    let octal = |b: Option<&u8>| b.is_some_and(|d| (b'0'..=b'7').contains(d));
    match c {
        _ if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, t)),
        '1'..='7' if !octal(t.as_bytes().first()) => Err(invalid(t)),
        '0'..='7' => {
            let mut value = c as u32 - '0' as u32;
            for _ in 1..3 {
                if !octal(t.as_bytes().first()) {
                    break;
                }
                value = value * 8 + u32::from(t.as_bytes()[0] - b'0');
                t = &t[1..];
            }
            Ok((char::from_u32(value).unwrap_or('\0'), t))
        }
        'x' => {
            let Some(first) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[first.len_utf8()..];
            if first == '{' {
                let mut value = 0u32;
                let mut digits = 0;
                loop {
                    let Some(d) = t.chars().next() else {
                        return Err(invalid(t));
                    };
                    t = &t[d.len_utf8()..];
                    if d == '}' {
                        break;
                    }
                    let Some(v) = d.to_digit(16) else {
                        return Err(invalid(t));
                    };
                    value = value * 16 + v;
                    if value > 0x10FFFF {
                        return Err(invalid(t));
                    }
                    digits += 1;
                }
                if digits == 0 {
                    return Err(invalid(t));
                }
                // Surrogates are not chars; Go reads them as U+FFFD when matching.
                return Ok((char::from_u32(value).unwrap_or('\u{FFFD}'), t));
            }
            let Some(second) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[second.len_utf8()..];
            match (first.to_digit(16), second.to_digit(16)) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), t)),
                _ => Err(invalid(t)),
            }
        }
        'a' => Ok(('\x07', t)),
        'f' => Ok(('\x0C', t)),
        'n' => Ok(('\n', t)),
        'r' => Ok(('\r', t)),
        't' => Ok(('\t', t)),
        'v' => Ok(('\x0B', t)),
        _ => Err(invalid(t)),
    }
}

/// Writes a character as a literal in the crate's syntax (inside or outside a class).
fn push_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() && !c.is_whitespace() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:x}}}", c as u32));
    }
}

/// Go's `parseClass` for `s` starting with `[`: writes the class, returns the rest.
fn class<'a>(s: &'a str, out: &mut String) -> Result<&'a str, GoError> {
    let mut t = &s[1..];
    out.push('[');
    if let Some(rest) = t.strip_prefix('^') {
        out.push('^');
        t = rest;
    }
    let mut first = true;
    while !t.starts_with(']') || first {
        first = false;
        if t.len() > 2 && t.starts_with("[:") {
            if let Some(i) = t[2..].find(":]") {
                let name = &t[..i + 4];
                let bare = &name[2..name.len() - 2];
                if !POSIX_CLASSES.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
                    return Err((INVALID_CHAR_RANGE, name.into()));
                }
                out.push_str(name);
                t = &t[name.len()..];
                continue;
            }
        }
        if t.starts_with("\\p") || t.starts_with("\\P") {
            t = class_escape(t, out)?;
            continue;
        }
        if let Some(class) = t
            .strip_prefix('\\')
            .and_then(|r| r.chars().next())
            .and_then(perl_class)
        {
            out.push_str(class);
            t = &t[2..];
            continue;
        }
        let range = t;
        let (lo, rest) = class_char(t, s)?;
        t = rest;
        let mut hi = lo;
        if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
            let (h, rest) = class_char(&t[1..], s)?;
            t = rest;
            hi = h;
            if hi < lo {
                return Err((INVALID_CHAR_RANGE, range[..range.len() - t.len()].into()));
            }
        }
        push_char(out, lo);
        if hi != lo {
            out.push('-');
            push_char(out, hi);
        }
    }
    out.push(']');
    Ok(&t[1..])
}

/// Go's `parseClassChar`: an escaped or plain character at the start of `s`; `whole` is the
/// class from its `[`, quoted when the class does not end.
fn class_char<'a>(s: &'a str, whole: &str) -> Result<(char, &'a str), GoError> {
    let Some(c) = s.chars().next() else {
        return Err((MISSING_BRACKET, whole.into()));
    };
    if c == '\\' {
        return go_escape(s);
    }
    Ok((c, &s[c.len_utf8()..]))
}

/// Translates a `regex` crate error into Go's wording where the kinds correspond. The crate
/// reports syntax errors as text only, so the translated pattern is parsed again with
/// `regex-syntax` (the crate's own parser, same settings) to learn the error's kind.
fn error(pattern: &str, translated: &str, e: &regex::Error) -> EvalError {
    use regex_syntax::ast::ErrorKind as Ast;
    use regex_syntax::hir::ErrorKind as Hir;
    let kind = match e {
        regex::Error::CompiledTooBig(_) => None,
        _ => regex_syntax::ParserBuilder::new()
            .nest_limit(1000)
            .build()
            .parse(translated)
            .err(),
    };
    let code = match &kind {
        None => "expression too large".to_string(),
        Some(regex_syntax::Error::Parse(p)) => match p.kind() {
            Ast::GroupUnclosed => "missing closing )".into(),
            Ast::GroupUnopened => "unexpected )".into(),
            Ast::ClassUnclosed => "missing closing ]".into(),
            Ast::RepetitionMissing => "missing argument to repetition operator".into(),
            Ast::EscapeUnrecognized | Ast::UnsupportedBackreference => {
                "invalid escape sequence".into()
            }
            Ast::EscapeUnexpectedEof => "trailing backslash at end of expression".into(),
            Ast::ClassRangeInvalid => "invalid character class range".into(),
            Ast::RepetitionCountInvalid => "invalid repeat count".into(),
            Ast::NestLimitExceeded(_) => "expression nests too deeply".into(),
            other => other.to_string(),
        },
        Some(regex_syntax::Error::Translate(t)) => match t.kind() {
            Hir::UnicodePropertyNotFound | Hir::UnicodePropertyValueNotFound => {
                "invalid character class range".into()
            }
            other => other.to_string(),
        },
        Some(other) => other.to_string(),
    };
    EvalError::new(format!("error parsing regexp: {code}: `{pattern}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(pattern: &str, text: &str) -> bool {
        compile(pattern).unwrap().is_match(text)
    }

    #[test]
    fn perl_classes_are_ascii_like_go() {
        assert!(is_match(r"^\d+$", "123"));
        assert!(!is_match(r"^\d+$", "١٢٣"));
        assert!(!is_match(r"^\w$", "é"));
        assert!(is_match(r"^\W$", "é"));
        assert!(!is_match(r"\s", "\u{a0}"));
        assert!(is_match(r"^[\d.]+$", "1.5"));
        assert!(!is_match(r"^[\d]+$", "١"));
        assert!(is_match(r"^[^\d]+$", "abc"));
        assert!(is_match(r"\bfoo\b", "a foo b"));
        // Go's \b is an ASCII word boundary: é is not a word character.
        assert!(is_match(r"\bfoo\b", "éfooé"));
        assert!(!is_match(r"\bfoo\b", "xfoox"));
    }

    #[test]
    fn go_class_syntax() {
        assert!(is_match(r"^[[]$", "["));
        assert!(is_match(r"^[]a]+$", "]a"));
        assert!(is_match(r"^[^]a]$", "b"));
        assert!(is_match(r"^[a&&b]+$", "&"));
        assert!(is_match(r"^[~]$", "~"));
        assert!(is_match(r"^[[:alpha:]]+$", "abc"));
        assert!(!is_match(r"^[[:alpha:]]+$", "a1"));
    }

    #[test]
    fn go_escapes() {
        assert!(is_match(r"^\Qa.b\E$", "a.b"));
        assert!(!is_match(r"^\Qa.b\E$", "axb"));
        assert!(is_match(r"^\141$", "a"));
        assert!(is_match(r"^\0$", "\0"));
        assert!(compile(r"\1").is_err());
        assert!(is_match(r"^\<a\>$", "<a>"));
    }

    #[test]
    fn errors_use_go_wording() {
        let msg = |p: &str| compile(p).err().map(|e| e.into_message());
        assert_eq!(
            msg("("),
            Some("error parsing regexp: missing closing ): `(`".into())
        );
        assert_eq!(
            msg("[a"),
            Some("error parsing regexp: missing closing ]: `[a`".into())
        );
        assert_eq!(
            msg("a)"),
            Some("error parsing regexp: unexpected ): `a)`".into())
        );
        assert_eq!(
            msg("*"),
            Some("error parsing regexp: missing argument to repetition operator: `*`".into())
        );
        assert_eq!(
            msg(r"\8"),
            Some("error parsing regexp: invalid escape sequence: `\\8`".into())
        );
    }

    /// What the `regex` crate accepts and RE2 rejects, each with Go's error code and the
    /// fragment Go quotes (`regexp/syntax/parse.go`: `parser.repeat`, `repeatIsValid`,
    /// `parsePerlFlags`, `isValidCaptureName`, `parseEscape`, `parseUnicodeClass`; the
    /// texts as `regexp.Compile` reports them, cf. Go's `parse_test.go` `invalidRegexps`).
    #[test]
    fn rejects_what_re2_rejects_though_the_crate_accepts_it() {
        let cases: &[(&str, &str, &str)] = &[
            // Stacked repetition operators.
            ("x++", "invalid nested repetition operator", "++"),
            ("a**", "invalid nested repetition operator", "**"),
            ("a*+", "invalid nested repetition operator", "*+"),
            ("a??*", "invalid nested repetition operator", "??*"),
            ("a*?+", "invalid nested repetition operator", "*?+"),
            ("a{2}*", "invalid nested repetition operator", "{2}*"),
            ("a*{2}", "invalid nested repetition operator", "*{2}"),
            ("a{2}{3}", "invalid nested repetition operator", "{2}{3}"),
            // Counts over 1000, alone or through nesting.
            ("a{1001}", "invalid repeat count", "{1001}"),
            ("a{2,1001}", "invalid repeat count", "{2,1001}"),
            ("a{1001,}", "invalid repeat count", "{1001,}"),
            ("(a{500}){3}", "invalid repeat count", "{3}"),
            ("((a{10}){10}){11}", "invalid repeat count", "{11}"),
            ("(a{2}|b{600}){2}?", "invalid repeat count", "{2}?"),
            // Flags and group syntax.
            ("(?x)a", "invalid or unsupported Perl syntax", "(?x"),
            ("(?u:a)", "invalid or unsupported Perl syntax", "(?u"),
            ("(?R)a", "invalid or unsupported Perl syntax", "(?R"),
            ("(?P<a.b>x)", "invalid named capture", "(?P<a.b>"),
            ("(?<a[0]>x)", "invalid named capture", "(?<a[0]>"),
            // Escapes.
            (r"\u0041", "invalid escape sequence", r"\u"),
            (r"\u{41}", "invalid escape sequence", r"\u"),
            (r"\U0001F600", "invalid escape sequence", r"\U"),
        ];
        let crate_rejects: Vec<_> = cases
            .iter()
            .filter(|(p, _, _)| Regex::new(p).is_err())
            .map(|(p, _, _)| *p)
            .collect();
        assert!(
            crate_rejects.is_empty(),
            "the crate rejects {crate_rejects:?}"
        );
        assert_go_errors(cases);
    }

    /// Each pattern fails with Go's error code and the fragment Go quotes.
    #[track_caller]
    fn assert_go_errors(cases: &[(&str, &str, &str)]) {
        for (pattern, code, fragment) in cases {
            assert_eq!(
                compile(pattern).err().map(|e| e.into_message()),
                Some(format!("error parsing regexp: {code}: `{fragment}`")),
                "{pattern}"
            );
        }
    }

    /// Go's errors where both reject, with Go's fragments.
    #[test]
    fn errors_quote_what_go_quotes() {
        let cases: &[(&str, &str, &str)] = &[
            ("a{100000000}", "invalid repeat count", "{100000000}"),
            ("(?i-)a", "invalid or unsupported Perl syntax", "(?i-)"),
            ("(?--i)a", "invalid or unsupported Perl syntax", "(?--"),
            ("(?'n'a)", "invalid or unsupported Perl syntax", "(?'"),
            ("(?P=n)", "invalid or unsupported Perl syntax", "(?P"),
            ("(?<name%>el*)", "invalid named capture", "(?<name%>"),
            ("(?P<>x)", "invalid named capture", "(?P<>"),
            (r"\e", "invalid escape sequence", r"\e"),
            (r"\C", "invalid escape sequence", r"\C"),
            (r"\Z", "invalid escape sequence", r"\Z"),
            (r"[\b]", "invalid escape sequence", r"\b"),
            (r"[\A]", "invalid escape sequence", r"\A"),
            (r"[a-\d]", "invalid escape sequence", r"\d"),
            (r"\x{110000}", "invalid escape sequence", r"\x{110000"),
            (r"\xZ0", "invalid escape sequence", r"\xZ0"),
            ("??el*", "missing argument to repetition operator", "??"),
            ("{2}", "missing argument to repetition operator", "{2}"),
            ("a|*", "missing argument to repetition operator", "*"),
            ("(*)", "missing argument to repetition operator", "*"),
            ("a{3,2}", "invalid repeat count", "{3,2}"),
            ("a(b", "missing closing )", "a(b"),
            ("a)b", "unexpected )", "a)b"),
            ("[a-", "missing closing ]", "[a-"),
            ("x[z-a]", "invalid character class range", "z-a"),
            ("[[:foo:]]", "invalid character class range", "[:foo:]"),
            (r"\p", "invalid character class range", r"\p"),
            (r"\p{L", "invalid character class range", r"\p{L"),
            (r"a\", "trailing backslash at end of expression", ""),
            (r"\1", "invalid escape sequence", r"\1"),
            ("(?i", "invalid or unsupported Perl syntax", "(?i"),
            ("(?P<n", "invalid named capture", "(?P<n"),
        ];
        assert_go_errors(cases);
    }

    /// Text RE2 accepts (as a literal, or as Go reads it) that the crate rejects or reads
    /// otherwise.
    #[test]
    fn accepts_what_re2_accepts() {
        // A `{` that starts no repetition is literal (Go's `parseRepeat` fails).
        assert!(is_match("^a{,3}$", "a{,3}"));
        assert!(!is_match("^a{,3}$", "aa"));
        assert!(is_match("^a{01}$", "a{01}"));
        assert!(is_match("^a{x}$", "a{x}"));
        assert!(is_match("^a{$", "a{"));
        assert!(is_match("^{$", "{"));
        assert!(is_match("^a{1,2$", "a{1,2"));
        assert!(is_match("^a{ 2 }$", "a{ 2 }"));
        assert!(is_match("^x}]$", "x}]"));
        // Counts up to 1000, also through nesting.
        assert!(is_match("^a{1000}$", &"a".repeat(1000)));
        assert!(is_match("^(a{10}){100}$", &"a".repeat(1000)));
        assert!(is_match("^(a{0}){1000}(b{1000}){1}$", &"b".repeat(1000)));
        // Duplicate and any valid group names.
        assert!(is_match("^(?P<x>a)(?P<x>b)$", "ab"));
        assert!(is_match("^(?<x_1>a)$", "a"));
        // Flags Go has; an empty flag group.
        assert!(is_match("^(?i)ab$", "AB"));
        assert!(is_match("^(?i:a)(?-i)b$", "Ab"));
        assert!(!is_match("^(?i:a)(?-i)b$", "AB"));
        assert!(is_match("(?s)^a.b$", "a\nb"));
        assert!(is_match("^a(?)b$", "ab"));
        assert!(is_match("(?U)^(a+)", "aaa"));
        // Escapes of punctuation, `\_`, hex, and a repetition of an assertion.
        assert!(is_match(r"^\_\!\#\x41\x{1F600}$", "_!#A😀"));
        assert!(compile("^*").is_ok());
        assert!(compile(r"\b+").is_ok());
        // Deep nesting (Go allows a parse tree 1000 high).
        let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
        assert!(is_match(&deep, "a"));
    }
}

//! RE2 (Go `regexp`) patterns on the `regex` crate.
//!
//! The two dialects agree on almost everything; [`compile`] rewrites the differences that
//! change results: Go's `\d \w \s \b` (and negations) are ASCII-only where the crate's are
//! Unicode, a `[` inside a class is literal in Go but opens a nested class in the crate,
//! `&&`/`~~` are set operators only in the crate, `\<`/`\>` are literals only in Go, and Go
//! supports `\Q...\E` and octal escapes. Errors are worded like Go's (`error parsing regexp: missing closing ): ...`).

use regex::Regex;

use crate::error::EvalError;

/// Compiles a RE2 pattern with Go's semantics.
pub fn compile(pattern: &str) -> Result<Regex, EvalError> {
    Regex::new(&translate(pattern)).map_err(|e| error(pattern, &e))
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

/// Rewrites a Go pattern into an equivalent pattern for the `regex` crate. Invalid patterns
/// are passed through so that the crate reports the error.
fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    // Whether the next character is the first of a class (where `]` is literal).
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let first = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                if let Some(class) = perl_class(e) {
                    // Nested classes are fine inside a class in the crate's syntax.
                    out.push_str(class);
                } else if e == '<' || e == '>' {
                    // Literal in Go; word-boundary assertions in the crate.
                    out.push(e);
                } else if (e == 'b' || e == 'B') && !in_class {
                    out.push_str(if e == 'b' { "(?-u:\\b)" } else { "(?-u:\\B)" });
                } else if e == 'Q' && !in_class {
                    let mut literal = String::new();
                    while let Some(q) = chars.next() {
                        if q == '\\' && chars.peek() == Some(&'E') {
                            chars.next();
                            break;
                        }
                        literal.push(q);
                    }
                    out.push_str(&regex::escape(&literal));
                } else if e.is_digit(8) && (e == '0' || chars.peek().is_some_and(|d| d.is_digit(8)))
                {
                    // Go's octal escape: up to three octal digits (a lone \1-\7 stays an error).
                    let mut value = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match chars.peek().and_then(|d| d.to_digit(8)) {
                            Some(d) => {
                                value = value * 8 + d;
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    out.push_str(&format!("\\x{{{value:x}}}"));
                } else {
                    out.push('\\');
                    out.push(e);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                }
                class_start = true;
            }
            ']' if in_class && first => out.push_str("\\]"),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '[' if chars.peek() == Some(&':') => {
                // A POSIX class such as [:alpha:], copied through its closing `:]`.
                out.push('[');
                while let Some(p) = chars.next() {
                    out.push(p);
                    if p == ':' && chars.peek() == Some(&']') {
                        chars.next();
                        out.push(']');
                        break;
                    }
                }
            }
            '[' | '&' | '~' => {
                // Literal inside a Go class; special (nesting, set operators) in the crate.
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Translates a `regex` crate error into Go's wording where the kinds correspond.
fn error(pattern: &str, e: &regex::Error) -> EvalError {
    let text = e.to_string();
    // The crate's message ends with a line `error: <description>`.
    let detail = text
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or(text.as_str());
    const GO_CODES: &[(&str, &str)] = &[
        ("unclosed group", "missing closing )"),
        ("unopened group", "unexpected )"),
        ("unclosed character class", "missing closing ]"),
        (
            "repetition operator missing expression",
            "missing argument to repetition operator",
        ),
        ("unrecognized escape sequence", "invalid escape sequence"),
        (
            "backreferences are not supported",
            "invalid escape sequence",
        ),
        (
            "incomplete escape sequence",
            "trailing backslash at end of expression",
        ),
        (
            "invalid character class range",
            "invalid character class range",
        ),
        ("invalid repetition count range", "invalid repeat count"),
        (
            "exceed the maximum number of nested",
            "expression nests too deeply",
        ),
        ("exceeds size limit", "expression too large"),
    ];
    let code = GO_CODES
        .iter()
        .find(|(rust, _)| detail.starts_with(rust))
        .map_or(detail, |(_, go)| go);
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
}

//! Property-name escaping: how schema property names become CEL field names and back.
//!
//! Kubernetes exposes an object property under an escaped name: reserved words become
//! `__word__`, and `__`, `.`, `-`, `/` become `__underscores__`, `__dot__`, `__dash__`,
//! `__slash__`. Names that are empty, start with a digit, or contain any other character
//! are not accessible from CEL.

use kcel::library::syntax::RESERVED;

/// CEL's literal and operator keywords; with [`RESERVED`], the words a property named
/// exactly so is escaped for (`__word__`).
pub const KEYWORDS: [&str; 4] = ["true", "false", "null", "in"];

/// Whether `name` is one of CEL's reserved words.
pub fn is_reserved(name: &str) -> bool {
    KEYWORDS.contains(&name) || RESERVED.contains(&name)
}

/// The CEL field name of a property, or `None` when the property cannot be accessed.
pub fn escape(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if is_reserved(name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '_' if chars.peek() == Some(&'_') => {
                chars.next();
                out.push_str("__underscores__");
            }
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// The property name of an escaped CEL field name, or `None` when the escape sequences
/// are invalid (an unknown `__token__`, or a reserved word that is not the whole name).
pub fn unescape(escaped: &str) -> Option<String> {
    let bytes = escaped.as_bytes();
    let mut out = String::with_capacity(escaped.len());
    let mut i = 0;
    while i < escaped.len() {
        if let Some(len) = token_at(bytes, i) {
            let contents = &escaped[i + 2..i + len - 2];
            match contents {
                "underscores" => out.push_str("__"),
                "dot" => out.push('.'),
                "dash" => out.push('-'),
                "slash" => out.push('/'),
                word if is_reserved(word) && len == escaped.len() => out.push_str(word),
                _ => return None,
            }
            i += len;
        } else {
            let c = escaped[i..].chars().next()?;
            out.push(c);
            i += c.len_utf8();
        }
    }
    Some(out)
}

/// The length of an escape token `__[^_]+__` starting at `i`, if one does.
fn token_at(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i..i + 2) != Some(b"__") {
        return None;
    }
    let body = bytes[i + 2..].iter().take_while(|&&b| b != b'_').count();
    if body == 0 {
        return None;
    }
    let end = i + 2 + body;
    (bytes.get(end..end + 2) == Some(b"__")).then_some(body + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of kubernetes `staging/src/k8s.io/apiserver/pkg/cel/escaping_test.go`
    /// (`TestEscaping`).
    const CASES: &[(&str, Option<&str>)] = &[
        ("a.a", Some("a__dot__a")),
        ("a-a", Some("a__dash__a")),
        ("a__a", Some("a__underscores__a")),
        ("a.-/__a", Some("a__dot____dash____slash____underscores__a")),
        ("a._a", Some("a__dot___a")),
        ("a__.__a", Some("a__underscores____dot____underscores__a")),
        ("a___a", Some("a__underscores___a")),
        ("a____a", Some("a__underscores____underscores__a")),
        ("a__dot__a", Some("a__underscores__dot__underscores__a")),
        (
            "a__underscores__a",
            Some("a__underscores__underscores__underscores__a"),
        ),
        ("true", Some("__true__")),
        ("false", Some("__false__")),
        ("null", Some("__null__")),
        ("in", Some("__in__")),
        ("as", Some("__as__")),
        ("break", Some("__break__")),
        ("const", Some("__const__")),
        ("continue", Some("__continue__")),
        ("else", Some("__else__")),
        ("for", Some("__for__")),
        ("function", Some("__function__")),
        ("if", Some("__if__")),
        ("import", Some("__import__")),
        ("let", Some("__let__")),
        ("loop", Some("__loop__")),
        ("package", Some("__package__")),
        ("namespace", Some("__namespace__")),
        ("return", Some("__return__")),
        ("var", Some("__var__")),
        ("void", Some("__void__")),
        ("while", Some("__while__")),
        ("@", None),
        ("1up", None),
        ("👑", None),
        ("has", Some("has")),
        ("all", Some("all")),
        ("exists", Some("exists")),
        ("exists_one", Some("exists_one")),
        ("filter", Some("filter")),
        ("size", Some("size")),
        ("contains", Some("contains")),
        ("startsWith", Some("startsWith")),
        ("endsWith", Some("endsWith")),
        ("matches", Some("matches")),
        ("duration", Some("duration")),
        ("timestamp", Some("timestamp")),
        ("getDate", Some("getDate")),
        ("getDayOfMonth", Some("getDayOfMonth")),
        ("getDayOfWeek", Some("getDayOfWeek")),
        ("getFullYear", Some("getFullYear")),
        ("getHours", Some("getHours")),
        ("getMilliseconds", Some("getMilliseconds")),
        ("getMinutes", Some("getMinutes")),
        ("getMonth", Some("getMonth")),
        ("getSeconds", Some("getSeconds")),
        ("_if", Some("_if")),
        ("_has", Some("_has")),
        ("_int", Some("_int")),
        ("_anything", Some("_anything")),
    ];

    fn is_cel_ident(s: &str) -> bool {
        let mut cs = s.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    #[test]
    fn upstream_escaping_table() {
        for (name, expected) in CASES {
            let got = escape(name);
            assert_eq!(got.as_deref(), *expected, "escape({name})");
            if let Some(e) = expected {
                assert!(is_cel_ident(e), "{e}");
                assert_eq!(unescape(e).as_deref(), Some(*name), "unescape({e})");
            }
        }
    }

    #[test]
    fn malformed_escapes_do_not_unescape() {
        // TestUnescapeMalformed
        assert_eq!(unescape("__int__extra"), None);
        assert_eq!(unescape("__illegal__"), None);
    }

    #[test]
    fn empty_and_other_characters_are_inaccessible() {
        assert_eq!(escape(""), None);
        assert_eq!(escape("a b"), None);
        assert_eq!(escape("/👑"), None);
        assert_eq!(escape("é"), None);
    }

    #[test]
    fn round_trips_generated_names() {
        let alphabet = ['a', '_', '.', '-', '/', 'Z', '9'];
        // Every name of up to 4 characters from the alphabet.
        let mut names = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for n in &names {
                for c in alphabet {
                    next.push(format!("{n}{c}"));
                }
            }
            for n in &next {
                if let Some(e) = escape(n) {
                    assert!(is_cel_ident(&e), "{n} -> {e}");
                    assert_eq!(unescape(&e).as_deref(), Some(n.as_str()), "{n} -> {e}");
                }
            }
            names = next;
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for s in [
            "_", "__", "___", "____", "__é__", "é__x__", "a__", "__a", "__in__", "x__in__",
            "__dot", "dot__", "__👑__", "__ __", "_ _",
        ] {
            let _ = unescape(s);
            if let Some(e) = escape(s) {
                assert_eq!(unescape(&e).as_deref(), Some(s), "{s}");
            }
        }
        assert_eq!(unescape("__in__").as_deref(), Some("in"));
        assert_eq!(unescape("x__in__"), None);
    }
}

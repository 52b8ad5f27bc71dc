//! JSON texts taken apart one level without decoding them, as encoding/json hands a
//! `json.RawMessage` (or evanphx/json-patch's `lazyNode`) the bytes of each member or item:
//! exactly as written, whitespace inside included. The texts are valid JSON (a reader
//! accepted them, or an encoder wrote them); nothing here checks them again.

use crate::documents::read_body;

/// A JSON text taken apart one level.
#[derive(Debug, PartialEq)]
pub enum Split<'t> {
    /// `null`.
    Null,
    /// An object: its members in document order, keys decoded, values as written (a key
    /// given twice appears twice: the reader of the pairs decides which one counts).
    Object(Vec<(String, &'t [u8])>),
    /// An array: its items as written.
    Array(Vec<&'t [u8]>),
    /// A string, number or boolean.
    Scalar,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && is_space(text[at]) {
        at += 1;
    }
    at
}

/// The end of the string that starts (with its quote) at `at`.
fn string_end(text: &[u8], mut at: usize) -> usize {
    at += 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    at
}

/// The end of the value that starts at `at` (no recursion: any nesting is fine).
fn value_end(text: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while at < text.len() {
        let c = text[at];
        if depth == 0 && (is_space(c) || matches!(c, b',' | b'}' | b']')) {
            // The end of a number or literal.
            return at;
        }
        match c {
            b'"' => {
                at = string_end(text, at);
                if depth == 0 {
                    return at;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
        at += 1;
    }
    at
}

/// A key (a JSON string) decoded as encoding/json decodes it.
fn key(text: &[u8]) -> String {
    match read_body(text, false) {
        Ok((serde_json::Value::String(key), _)) => key,
        _ => String::new(),
    }
}

/// `text` taken apart one level.
pub fn split(text: &[u8]) -> Split<'_> {
    let start = skip_space(text, 0);
    let (open, close) = match text.get(start) {
        Some(b'{') => (b'{', b'}'),
        Some(b'[') => (b'[', b']'),
        Some(b'n') => return Split::Null,
        _ => return Split::Scalar,
    };
    let mut members = Vec::new();
    let mut items = Vec::new();
    let mut at = skip_space(text, start + 1);
    while at < text.len() && text[at] != close {
        if open == b'{' {
            let key_end = string_end(text, at);
            let name = key(&text[at..key_end]);
            at = skip_space(text, key_end);
            at = skip_space(text, at + 1); // the colon
            let end = value_end(text, at);
            members.push((name, &text[at..end]));
            at = end;
        } else {
            let end = value_end(text, at);
            items.push(&text[at..end]);
            at = end;
        }
        at = skip_space(text, at);
        if text.get(at) == Some(&b',') {
            at = skip_space(text, at + 1);
        }
    }
    if open == b'{' {
        Split::Object(members)
    } else {
        Split::Array(items)
    }
}

/// Whether `text` is `null` (which encoding/json decodes into a nil pointer).
pub fn is_null(text: &[u8]) -> bool {
    text.trim_ascii() == b"null"
}

/// `json.Compact`: `text` without the whitespace between tokens (nothing else changes).
pub fn compact(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => {
                let end = string_end(text, at);
                out.extend_from_slice(&text[at..end]);
                at = end;
            }
            c if is_space(c) => at += 1,
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

/// `json.Compact` as encoding/json's `Marshal` runs it on a `json.RawMessage`: `text`
/// compacted, with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes.
pub fn compact_escaped(text: &[u8]) -> Vec<u8> {
    let compacted = compact(text);
    let mut out = Vec::with_capacity(compacted.len());
    let mut at = 0;
    while at < compacted.len() {
        let escape = match compacted[at] {
            b'<' => Some("\\u003c"),
            b'>' => Some("\\u003e"),
            b'&' => Some("\\u0026"),
            0xE2 if compacted[at..].starts_with(&[0xE2, 0x80, 0xA8]) => Some("\\u2028"),
            0xE2 if compacted[at..].starts_with(&[0xE2, 0x80, 0xA9]) => Some("\\u2029"),
            _ => None,
        };
        match escape {
            Some(escape) => {
                out.extend_from_slice(escape.as_bytes());
                at += if compacted[at] == 0xE2 { 3 } else { 1 };
            }
            None => {
                out.push(compacted[at]);
                at += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_one_level_as_written() {
        let text = br#" { "a" : [1, {"b": "x,]}"}] , "c\u0064":1.0e0,"e":null } "#;
        assert_eq!(
            split(text),
            Split::Object(vec![
                ("a".into(), &br#"[1, {"b": "x,]}"}]"#[..]),
                ("cd".into(), &b"1.0e0"[..]),
                ("e".into(), &b"null"[..]),
            ])
        );
        assert_eq!(
            split(br#"[ "a\"", 2 ,[] ]"#),
            Split::Array(vec![&br#""a\"""#[..], &b"2"[..], &b"[]"[..]])
        );
        assert_eq!(split(b"[]"), Split::Array(vec![]));
        assert_eq!(split(b" null"), Split::Null);
        assert_eq!(split(b"\"{\""), Split::Scalar);
        assert!(is_null(b" null "));
        assert_eq!(compact(b"{ \"a b\" : [ 1 , 2 ] }"), b"{\"a b\":[1,2]}");
        assert_eq!(
            String::from_utf8(compact_escaped(
                "{ \"a\" : \"<&>\u{2028}\u{2029}é\" }".as_bytes()
            )),
            Ok(r#"{"a":"\u003c\u0026\u003e\u2028\u2029é"}"#.to_owned())
        );
    }
}

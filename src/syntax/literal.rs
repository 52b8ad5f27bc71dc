//! Decoding of literal tokens: ints, uints, doubles, strings and bytes (with every CEL
//! escape sequence).
//!
//! The grammar only checks the rough shape of a token; the exact rules (ranges, escape
//! validity, code point validity) live here so that each error can name the offending part.

use std::borrow::Cow;

use crate::error::TextProblem;

const UNESCAPE: TextProblem = TextProblem::Unescape;
const TRAILING: TextProblem = TextProblem::TrailingBackslash;
const CODE_POINT: TextProblem = TextProblem::CodePoint;
const OCTAL: TextProblem = TextProblem::Octal;

/// A literal decoding error: the problem and the byte offset inside the token where it
/// applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralError {
    /// Byte offset of the problem, relative to the start of the token.
    pub offset: usize,
    /// What is wrong (displayed as cel-go words it).
    pub problem: TextProblem,
}

impl LiteralError {
    fn new(offset: usize, problem: TextProblem) -> LiteralError {
        LiteralError { offset, problem }
    }
}

/// Splits an int token into its radix and digits.
fn radix_digits(text: &str) -> (u32, &str) {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, text),
    }
}

/// Decodes an int token (`123`, `0x1F`), negated when `negative` (a folded leading minus).
/// Returns `None` when the value does not fit an `i64`.
pub fn parse_int(text: &str, negative: bool) -> Option<i64> {
    let (radix, digits) = radix_digits(text);
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Decodes a uint token including its `u`/`U` suffix (`123u`, `0xFFu`).
pub fn parse_uint(text: &str) -> Option<u64> {
    let text = text.strip_suffix(['u', 'U'])?;
    let (radix, digits) = radix_digits(text);
    u64::from_str_radix(digits, radix).ok()
}

/// Decodes a double token (`1.5`, `.5`, `1e10`), negated when `negative`. Returns `None`
/// for values out of range (as cel-go does, infinity is not a literal).
pub fn parse_double(text: &str, negative: bool) -> Option<f64> {
    let value: f64 = text.parse().ok()?;
    if value.is_finite() {
        Some(if negative { -value } else { value })
    } else {
        None
    }
}

/// The parts of a quoted token: prefix flags and the text between the quotes.
struct Quoted<'a> {
    raw: bool,
    /// Byte offset of `body` inside the token.
    body_offset: usize,
    /// The text between the quotes, with CR LF and CR normalized to LF (as cel-go does).
    body: Cow<'a, str>,
}

fn split_quoted(token: &str) -> Result<Quoted<'_>, LiteralError> {
    let prefix_len = token
        .find(['"', '\''])
        .ok_or_else(|| LiteralError::new(0, UNESCAPE))?;
    let prefix = &token[..prefix_len];
    let raw = prefix.contains(['r', 'R']);
    let rest = &token[prefix_len..];
    let quote_len = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
        3
    } else {
        1
    };
    if rest.len() < 2 * quote_len {
        return Err(LiteralError::new(0, UNESCAPE));
    }
    Ok(Quoted {
        raw,
        body_offset: prefix_len + quote_len,
        body: normalize_newlines(&rest[quote_len..rest.len() - quote_len]),
    })
}

fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// What one escape sequence denotes.
enum Unit {
    /// A code point (`\u`, `\U`, simple escapes; `\x` and octal in strings).
    Char(char),
    /// A raw byte (`\x` and octal in bytes).
    Byte(u8),
}

/// Decodes the escape starting at `body[i]` (a backslash). Returns the unit and the number
/// of bytes consumed.
fn escape(body: &str, i: usize, bytes: bool) -> Result<(Unit, usize), LiteralError> {
    let b = body.as_bytes();
    let Some(&c) = b.get(i + 1) else {
        return Err(LiteralError::new(i, TRAILING));
    };
    let simple = match c {
        b'a' => Some('\u{7}'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'v' => Some('\u{b}'),
        b'\\' => Some('\\'),
        b'?' => Some('?'),
        b'"' => Some('"'),
        b'\'' => Some('\''),
        b'`' => Some('`'),
        _ => None,
    };
    if let Some(ch) = simple {
        return Ok((Unit::Char(ch), 2));
    }
    let hex = |len: usize| -> Result<u32, LiteralError> {
        let digits = body
            .get(i + 2..i + 2 + len)
            .filter(|d| d.bytes().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| LiteralError::new(i, UNESCAPE))?;
        // Cannot fail: at most 8 hex digits, all checked above.
        u32::from_str_radix(digits, 16).map_err(|_| LiteralError::new(i, UNESCAPE))
    };
    let code_point = |v: u32| char::from_u32(v).ok_or_else(|| LiteralError::new(i, CODE_POINT));
    match c {
        b'x' | b'X' => {
            let v = hex(2)?;
            if bytes {
                // Two hex digits always fit a byte.
                Ok((Unit::Byte(v as u8), 4))
            } else {
                Ok((Unit::Char(code_point(v)?), 4))
            }
        }
        b'u' | b'U' => {
            if bytes {
                return Err(LiteralError::new(i, UNESCAPE));
            }
            let len = if c == b'u' { 4 } else { 8 };
            Ok((Unit::Char(code_point(hex(len)?)?), 2 + len))
        }
        b'0'..=b'3' => {
            let d1 = b.get(i + 2).copied().filter(|d| (b'0'..=b'7').contains(d));
            let d2 = b.get(i + 3).copied().filter(|d| (b'0'..=b'7').contains(d));
            let (Some(d1), Some(d2)) = (d1, d2) else {
                return Err(LiteralError::new(i, OCTAL));
            };
            let v = u32::from(c - b'0') * 64 + u32::from(d1 - b'0') * 8 + u32::from(d2 - b'0');
            if bytes {
                // At most 0o377 = 255.
                Ok((Unit::Byte(v as u8), 4))
            } else {
                Ok((Unit::Char(code_point(v)?), 4))
            }
        }
        _ => Err(LiteralError::new(i, UNESCAPE)),
    }
}

/// Decodes a string token (with quotes and an optional `r`/`R` prefix).
pub fn decode_string(token: &str) -> Result<String, LiteralError> {
    let q = split_quoted(token)?;
    if q.raw {
        return Ok(q.body.into_owned());
    }
    let mut out = String::with_capacity(q.body.len());
    let mut rest = &*q.body;
    let mut pos = 0;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let (unit, len) = escape(&q.body, pos + i, false).map_err(|e| shift(e, q.body_offset))?;
        match unit {
            Unit::Char(c) => out.push(c),
            // Strings only produce code points.
            Unit::Byte(b) => out.push(char::from(b)),
        }
        pos += i + len;
        rest = &q.body[pos..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Decodes a bytes token (with quotes and a `b`/`B` prefix, optionally with `r`/`R`).
pub fn decode_bytes(token: &str) -> Result<Vec<u8>, LiteralError> {
    let q = split_quoted(token)?;
    if q.raw {
        return Ok(q.body.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(q.body.len());
    let mut rest = &*q.body;
    let mut pos = 0;
    while let Some(i) = rest.find('\\') {
        out.extend_from_slice(&rest.as_bytes()[..i]);
        let (unit, len) = escape(&q.body, pos + i, true).map_err(|e| shift(e, q.body_offset))?;
        match unit {
            Unit::Char(c) => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Unit::Byte(b) => out.push(b),
        }
        pos += i + len;
        rest = &q.body[pos..];
    }
    out.extend_from_slice(rest.as_bytes());
    Ok(out)
}

fn shift(mut e: LiteralError, by: usize) -> LiteralError {
    e.offset += by;
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        assert_eq!(parse_int("123", false), Some(123));
        assert_eq!(parse_int("0x1F", false), Some(31));
        assert_eq!(parse_int("0X1f", true), Some(-31));
        assert_eq!(parse_int("9223372036854775807", false), Some(i64::MAX));
        assert_eq!(parse_int("9223372036854775808", false), None);
        assert_eq!(parse_int("9223372036854775808", true), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775809", true), None);
        assert_eq!(parse_int("99999999999999999999999", false), None);
    }

    #[test]
    fn uints_and_doubles() {
        assert_eq!(parse_uint("18446744073709551615u"), Some(u64::MAX));
        assert_eq!(parse_uint("18446744073709551616u"), None);
        assert_eq!(parse_uint("0xFFU"), Some(255));
        assert_eq!(parse_double("1.5", false), Some(1.5));
        assert_eq!(parse_double(".5", false), Some(0.5));
        assert_eq!(parse_double("1e10", true), Some(-1e10));
        assert_eq!(parse_double("1.5e-3", false), Some(1.5e-3));
        assert_eq!(parse_double("1e400", false), None);
    }

    #[test]
    fn string_escapes() {
        let s = |t: &str| decode_string(t).unwrap();
        assert_eq!(s(r#"' \\ \? \" \' \` '"#), " \\ ? \" ' ` ");
        assert_eq!(
            s(r"' \a \b \f \n \r \t \v '"),
            " \u{7} \u{8} \u{c} \n \r \t \u{b} "
        );
        assert_eq!(s(r"' \000 \012 \177 \377 '"), " \0 \n \u{7f} \u{ff} ");
        assert_eq!(s(r"' \x4a \X4B \xFF '"), " J K \u{ff} ");
        assert_eq!(s(r"' \u01aB \U0001F62C '"), " \u{1ab} \u{1f62c} ");
        assert_eq!(s(r"r' \n \x00 '"), r" \n \x00 ");
        assert_eq!(s(r#"'''a\nb'c'''"#), "a\nb'c");
        assert_eq!(s("\"é\""), "é");
    }

    #[test]
    fn string_escape_errors() {
        for bad in [
            r"'\q'",
            r"'\u12'",
            r"'\uD800'",
            r"'\U00110000'",
            r"'\400'",
            r"'\08'",
            r"'\xZ1'",
        ] {
            assert!(decode_string(bad).is_err(), "{bad}");
        }
        let e = decode_string(r"'ab\q'").unwrap_err();
        assert_eq!(e.offset, 3);
    }

    #[test]
    fn bytes_escapes() {
        let b = |t: &str| decode_bytes(t).unwrap();
        assert_eq!(b(r"b' \000 \012 \177 \377 '"), b" \x00 \n \x7f \xff ");
        assert_eq!(b(r"b' \x00 \x0A \xFF '"), b" \x00 \n \xff ");
        assert_eq!(b("b'\u{ff}'"), vec![0xc3, 0xbf]);
        assert_eq!(b(r"br'\x00'"), b"\\x00");
        assert_eq!(b(r#"Rb"\n""#), b"\\n");
        assert!(decode_bytes(r"b'\u0041'").is_err());
        assert!(decode_bytes(r"b'\U00000041'").is_err());
    }
}

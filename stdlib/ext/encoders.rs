//! cel-go's `ext.Encoders`: `base64.encode` and `base64.decode`.
//!
//! Decoding follows Go's `base64.StdEncoding`, falling back to the unpadded alphabet when the
//! padded decode fails (as cel-go does); line breaks are ignored and non-zero trailing bits
//! accepted, and errors carry Go's `illegal base64 data at input byte N`.

use kcel::Value;
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("cel.lib.ext.encoders", 0);
    overloads!(lib.function(
        "base64.decode",
        "Decodes standard base64 text (padding optional) into bytes.",
    );
        global "base64_decode_string" ("string") -> "bytes" => Implementation::Unary(decode);
    )
    .examples(&[
        "base64.decode('aGVsbG8=') == b'hello'",
        "base64.decode('aGVsbG8') == b'hello'",
    ]);
    overloads!(lib.function("base64.encode", "Encodes bytes as standard, padded base64 text.");
        global "base64_encode_bytes" ("bytes") -> "string" => Implementation::Unary(encode);
    )
    .examples(&["base64.encode(b'hello') == 'aGVsbG8='"]);
    lib
}

/// `base64.encode(b)`.
pub fn encode(v: &Value) -> EvalResult {
    let Value::Bytes(b) = v else {
        return Err(EvalError::no_such_overload());
    };
    kcel::library::budget::reserve((b.len().div_ceil(3) * 4) as u64)?;
    Ok(Value::from(encode_std(b)))
}

/// Go's `base64.StdEncoding.EncodeToString`: the standard alphabet, padded.
pub(crate) fn encode_std(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | u32::from(x) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `base64.decode(s)`.
pub fn decode(v: &Value) -> EvalResult {
    let Value::String(s) = v else {
        return Err(EvalError::no_such_overload());
    };
    kcel::library::budget::reserve((s.len() / 4 * 3 + 3) as u64)?;
    let bytes = decode_std(s).or_else(|_| decode_go(s.as_bytes(), false));
    bytes
        .map(|b| Value::Bytes(b.into()))
        .map_err(|at| EvalError::new(format!("illegal base64 data at input byte {at}")))
}

/// Go's `base64.StdEncoding.DecodeString` (what encoding/json decodes a `[]byte` with):
/// padded, line breaks ignored, non-zero trailing bits accepted; the error is the offset of
/// Go's `CorruptInputError` (`illegal base64 data at input byte N`).
pub(crate) fn decode_std(text: &str) -> Result<Vec<u8>, usize> {
    decode_go(text.as_bytes(), true)
}

fn sextet(c: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == c).map(|p| p as u32)
}

/// Go's base64 decoding (non-strict): `padded` selects `StdEncoding` or `RawStdEncoding`.
/// The error is the offset Go reports.
fn decode_go(src: &[u8], padded: bool) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3 + 3);
    let mut si = 0;
    loop {
        // Decode one quantum of up to four symbols.
        let mut quantum = [0u32; 4];
        let mut len = 0;
        while len < 4 {
            if si == src.len() {
                if len == 0 {
                    return Ok(out);
                }
                if len == 1 || padded {
                    return Err(si - len);
                }
                break;
            }
            let c = src[si];
            let at = si;
            si += 1;
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if let Some(x) = sextet(c) {
                quantum[len] = x;
                len += 1;
                continue;
            }
            if c != b'=' || !padded {
                return Err(at);
            }
            // Padding: only after two or three symbols.
            if len < 2 {
                return Err(at);
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if len == 2 {
                if si == src.len() {
                    return Err(src.len());
                }
                if src[si] != b'=' {
                    return Err(si);
                }
                si += 1;
                while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                    si += 1;
                }
            }
            if si < src.len() {
                return Err(si);
            }
            break;
        }
        let n = quantum[0] << 18 | quantum[1] << 12 | quantum[2] << 6 | quantum[3];
        let produced = match len {
            4 => 3,
            3 => 2,
            _ => 1,
        };
        for i in 0..produced {
            out.push((n >> (16 - 8 * i)) as u8);
        }
        if len < 4 {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> EvalResult {
        decode(&Value::from(s))
    }

    fn b(x: &[u8]) -> Value {
        Value::Bytes(x.into())
    }

    #[test]
    fn round_trips() {
        for x in [&b""[..], b"h", b"he", b"hel", b"hello", b"\xff\x00\xfe"] {
            let Ok(Value::String(s)) = encode(&b(x)) else {
                panic!("encode failed")
            };
            assert_eq!(dec(&s), Ok(b(x)), "{s}");
        }
        assert_eq!(encode(&b(b"hello")), Ok(Value::from("aGVsbG8=")));
    }

    #[test]
    fn decodes_like_go() {
        assert_eq!(dec("aGVsbG8"), Ok(b(b"hello")));
        assert_eq!(dec("aGVs\nbG8="), Ok(b(b"hello")));
        assert_eq!(dec("aGVsbG9="), Ok(b(b"hello")));
        assert_eq!(
            dec("a"),
            Err(EvalError::new("illegal base64 data at input byte 0"))
        );
        assert_eq!(
            dec("aGV*"),
            Err(EvalError::new("illegal base64 data at input byte 3"))
        );
        assert_eq!(decode(&Value::Int(1)), Err(EvalError::no_such_overload()));
    }
}

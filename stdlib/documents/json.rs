//! JSON read as Kubernetes reads it: Go's encoding/json scanner (as forked in
//! sigs.k8s.io/json, which apimachinery decodes objects with) — its grammar, its error texts
//! (`invalid character 'x' looking for beginning of value`, ...), its nesting limit of
//! 10,000 — and its decoding into untyped values with `PreserveInts`: integers that fit
//! int64 stay integers, other numbers are float64 (`1e400` is an error), strings with lone
//! surrogate escapes or invalid UTF-8 get U+FFFD, and a duplicate key's last value wins
//! (strict decoding reports it, `duplicate field "spec.paused"`).
//!
//! The reader keeps its own stack (no recursion), so any nesting is read without risk to
//! the thread's stack.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::tree::{KUBERNETES_MAX_DEPTH, MAX_DEPTH, Node, go_quote};
use super::{Duplicate, DuplicateKey};

/// How many strict-decoding errors sigs.k8s.io/json keeps for one value
/// (`saveStrictError`: at most 100, each text once).
pub(super) const MAX_STRICT_ERRORS: usize = 100;

/// What reading JSON can end with: Go's error text, or a value nested deeper than this
/// library holds (one that Kubernetes would accept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum JsonError {
    Go(String),
    TooDeep,
}

/// How the text is read: one value (`json.Unmarshal`) or a stream of values
/// (`json.Decoder`, as kubectl reads a JSON file of several objects).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    One,
    Stream,
}

/// What the reader builds values as: the document tree, or JSON values directly (a
/// manifest of many megabytes is then held once, not twice).
pub(super) trait Build: Sized {
    fn null() -> Self;
    fn bool(b: bool) -> Self;
    fn int(i: i64) -> Self;
    fn float(f: f64) -> Self;
    fn string(s: String) -> Self;
    fn array(items: Vec<Self>) -> Self;
    /// An object from pairs with unique keys, in document order.
    fn object(pairs: Vec<(String, Self)>) -> Self;
}

impl Build for Node {
    fn null() -> Self {
        Node::Null
    }
    fn bool(b: bool) -> Self {
        Node::Bool(b)
    }
    fn int(i: i64) -> Self {
        Node::Int(i)
    }
    fn float(f: f64) -> Self {
        Node::Float(f)
    }
    fn string(s: String) -> Self {
        Node::Str(s)
    }
    fn array(items: Vec<Self>) -> Self {
        Node::Seq(items)
    }
    fn object(pairs: Vec<(String, Self)>) -> Self {
        Node::Map(pairs.into_iter().map(|(k, v)| (Node::Str(k), v)).collect())
    }
}

impl Build for serde_json::Value {
    fn null() -> Self {
        serde_json::Value::Null
    }
    fn bool(b: bool) -> Self {
        serde_json::Value::Bool(b)
    }
    fn int(i: i64) -> Self {
        serde_json::Value::from(i)
    }
    fn float(f: f64) -> Self {
        serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
    fn string(s: String) -> Self {
        serde_json::Value::String(s)
    }
    fn array(items: Vec<Self>) -> Self {
        serde_json::Value::Array(items)
    }
    fn object(pairs: Vec<(String, Self)>) -> Self {
        serde_json::Value::Object(pairs.into_iter().collect())
    }
}

/// What reading a JSON text found.
pub(super) struct JsonRead<V> {
    /// Its values (one, or each of a stream).
    pub values: Vec<V>,
    /// The keys given twice, as sigs.k8s.io/json's `UnmarshalStrict` into
    /// `map[string]interface{}` reports them (`duplicate field "spec.paused"`): each text
    /// once and at most [`MAX_STRICT_ERRORS`] per value.
    pub duplicates: Vec<Duplicate>,
    /// Where each value is in the text.
    pub spans: Vec<Range<usize>>,
}

/// The values of a JSON text, the duplicate keys met and where each value is.
pub(super) fn read<V: Build>(bytes: &[u8], mode: Mode) -> Result<JsonRead<V>, JsonError> {
    let mut reader = Reader {
        bytes,
        pos: 0,
        mode,
        duplicates: Vec::new(),
        seen: HashSet::new(),
        document: 0,
        number_error: None,
        too_deep: false,
    };
    let mut values = Vec::new();
    let mut spans = Vec::new();
    loop {
        reader.skip_space();
        if reader.pos == bytes.len() && (mode == Mode::Stream || !values.is_empty()) {
            break;
        }
        if mode == Mode::One && !values.is_empty() {
            return Err(reader.error_here("after top-level value"));
        }
        let start = reader.pos;
        reader.document = values.len();
        reader.seen.clear();
        values.push(reader.value()?);
        spans.push(start..reader.pos);
    }
    if let Some(e) = reader.number_error {
        return Err(JsonError::Go(e));
    }
    if reader.too_deep {
        return Err(JsonError::TooDeep);
    }
    Ok(JsonRead {
        values,
        duplicates: reader.duplicates,
        spans,
    })
}

/// The path strict decoding names a key of the innermost open object with: the keys and
/// indices of the open containers, `.`-joined keys and `[i]` indices (`spec.ports[0].name`).
fn strict_path<V>(stack: &[Frame<V>], key: &str) -> String {
    let mut path = String::new();
    for frame in &stack[..stack.len().saturating_sub(1)] {
        match frame {
            Frame::Array(items) => path.push_str(&format!("[{}]", items.len())),
            Frame::Object { key, .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::SkippedArray | Frame::SkippedObject => {}
        }
    }
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    path
}

/// How many keys an object has before its keys are indexed rather than searched.
const INDEXED_OBJECT: usize = 16;

/// Where `key` is among an object's pairs read so far.
fn position<V>(
    pairs: &[(String, V)],
    index: Option<&HashMap<String, usize>>,
    key: &str,
) -> Option<usize> {
    match index {
        Some(index) => index.get(key).copied(),
        None => pairs.iter().position(|(k, _)| k == key),
    }
}

/// A container being read.
enum Frame<V> {
    Array(Vec<V>),
    Object {
        pairs: Vec<(String, V)>,
        /// The position of each key in `pairs`, kept once an object has many keys (small
        /// objects, most of a manifest's, are searched instead: no second copy of their
        /// keys).
        index: Option<HashMap<String, usize>>,
        key: String,
    },
    /// A container deeper than [`MAX_DEPTH`]: read for its syntax, its content dropped.
    SkippedArray,
    SkippedObject,
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    mode: Mode,
    duplicates: Vec<Duplicate>,
    /// The duplicate texts of the current value (each is reported once).
    seen: HashSet<String>,
    /// Which value of the text is being read.
    document: usize,
    number_error: Option<String>,
    too_deep: bool,
}

/// Go's `quoteChar`: a byte as it appears in a syntax error.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".into(),
        b'"' => r#"'"'"#.into(),
        c => {
            let quoted = go_quote(&char::from(c).to_string());
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    fn eof(&self) -> JsonError {
        JsonError::Go(match self.mode {
            Mode::One => "unexpected end of JSON input".into(),
            Mode::Stream => "unexpected EOF".into(),
        })
    }

    /// A syntax error at the current byte (end of input: the end-of-input error).
    fn error_here(&self, context: &str) -> JsonError {
        match self.peek() {
            Some(c) => JsonError::Go(format!("invalid character {} {context}", quote_char(c))),
            None => self.eof(),
        }
    }

    /// Reads one whole value at the current position.
    fn value<V: Build>(&mut self) -> Result<V, JsonError> {
        let mut stack: Vec<Frame<V>> = Vec::new();
        loop {
            // A value starts here.
            self.skip_space();
            let Some(c) = self.peek() else {
                return Err(self.eof());
            };
            let mut done = match c {
                b'{' | b'[' => {
                    if stack.len() + 1 > KUBERNETES_MAX_DEPTH {
                        return Err(self.error_here("exceeded max depth"));
                    }
                    self.pos += 1;
                    let skipped = stack.len() + 1 > MAX_DEPTH;
                    if skipped {
                        self.too_deep = true;
                    }
                    let object = c == b'{';
                    stack.push(match (object, skipped) {
                        (false, false) => Frame::Array(Vec::new()),
                        (false, true) => Frame::SkippedArray,
                        (true, false) => Frame::Object {
                            pairs: Vec::new(),
                            index: None,
                            key: String::new(),
                        },
                        (true, true) => Frame::SkippedObject,
                    });
                    self.skip_space();
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        close_frame(stack.pop())
                    } else if object {
                        let key = self.key()?;
                        if let Some(Frame::Object { key: slot, .. }) = stack.last_mut() {
                            *slot = key;
                        }
                        continue;
                    } else {
                        continue;
                    }
                }
                b'"' => V::string(self.string()?),
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true", V::bool(true))?,
                b'f' => self.literal(b"false", V::bool(false))?,
                b'n' => self.literal(b"null", V::null())?,
                _ => return Err(self.error_here("looking for beginning of value")),
            };
            // A value is complete: put it in its container, closing containers that end.
            loop {
                if let Some(Frame::Object { pairs, index, key }) = stack.last()
                    && position(pairs, index.as_ref(), key).is_some()
                {
                    let path = strict_path(&stack, key);
                    self.note_duplicate(path);
                }
                let Some(frame) = stack.last_mut() else {
                    return Ok(done);
                };
                let array = matches!(frame, Frame::Array(_) | Frame::SkippedArray);
                match frame {
                    Frame::Array(items) => items.push(done),
                    Frame::Object { pairs, index, key } => {
                        let key = std::mem::take(key);
                        match position(pairs, index.as_ref(), &key) {
                            Some(at) => pairs[at].1 = done,
                            None => {
                                if let Some(index) = index {
                                    index.insert(key.clone(), pairs.len());
                                } else if pairs.len() >= INDEXED_OBJECT {
                                    let mut built: HashMap<String, usize> = pairs
                                        .iter()
                                        .enumerate()
                                        .map(|(i, (k, _))| (k.clone(), i))
                                        .collect();
                                    built.insert(key.clone(), pairs.len());
                                    *index = Some(built);
                                }
                                pairs.push((key, done));
                            }
                        }
                    }
                    Frame::SkippedArray | Frame::SkippedObject => {}
                }
                self.skip_space();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if !array {
                            let key = self.key()?;
                            if let Some(Frame::Object { key: slot, .. }) = stack.last_mut() {
                                *slot = key;
                            }
                        }
                        break;
                    }
                    Some(b']') if array => {
                        self.pos += 1;
                        done = close_frame(stack.pop());
                    }
                    Some(b'}') if !array => {
                        self.pos += 1;
                        done = close_frame(stack.pop());
                    }
                    _ if array => return Err(self.error_here("after array element")),
                    _ => return Err(self.error_here("after object key:value pair")),
                }
            }
        }
    }

    /// Notes a key given twice, as sigs.k8s.io/json's `saveStrictError` keeps strict errors.
    fn note_duplicate(&mut self, path: String) {
        if self.seen.len() >= MAX_STRICT_ERRORS || !self.seen.insert(path.clone()) {
            return;
        }
        self.duplicates.push(Duplicate {
            document: self.document,
            error: DuplicateKey::Json(path.clone()),
            path,
        });
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<String, JsonError> {
        self.skip_space();
        if self.peek() != Some(b'"') {
            return Err(self.error_here("looking for beginning of object key string"));
        }
        let key = self.string()?;
        self.skip_space();
        if self.peek() != Some(b':') {
            return Err(self.error_here("after object key"));
        }
        self.pos += 1;
        Ok(key)
    }

    fn literal<V>(&mut self, word: &[u8], value: V) -> Result<V, JsonError> {
        let name = std::str::from_utf8(word).unwrap_or_default();
        for (i, &expected) in word.iter().enumerate().skip(1) {
            match self.bytes.get(self.pos + i) {
                Some(&c) if c == expected => {}
                Some(_) => {
                    self.pos += i;
                    return Err(self.error_here(&format!(
                        "in literal {name} (expecting {})",
                        quote_char(expected)
                    )));
                }
                None => {
                    self.pos = self.bytes.len();
                    return Err(self.eof());
                }
            }
        }
        self.pos += word.len();
        Ok(value)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number<V: Build>(&mut self) -> Result<V, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error_here("in numeric literal")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error_here("after decimal point in numeric literal"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error_here("in exponent of numeric literal"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("0");
        if integer {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(V::int(i));
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(V::float(f)),
            _ => {
                self.number_error.get_or_insert_with(|| {
                    format!("json: cannot unmarshal number {text} into Go value of type float64")
                });
                Ok(V::null())
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut value = 0;
        for _ in 0..4 {
            let Some(c) = self.peek() else {
                return Err(self.eof());
            };
            let digit = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.error_here("in \\u hexadecimal character escape"))?;
            value = value * 16 + digit;
            self.pos += 1;
        }
        Ok(value)
    }

    /// A string literal (at its opening quote), decoded as encoding/json's `unquote` does.
    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1;
        // Most strings have no escapes: copied at once, in an allocation of their size.
        let rest = &self.bytes[self.pos..];
        if let Some(end) = rest
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            && rest[end] == b'"'
        {
            let raw = &rest[..end];
            self.pos += end + 1;
            return Ok(match std::str::from_utf8(raw) {
                Ok(text) => text.to_owned(),
                Err(_) => go_utf8(raw),
            });
        }
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.eof());
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(go_utf8(&out));
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.eof());
                    };
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => return Err(self.error_here("in string escape code")),
                    };
                    self.pos += 1;
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let unit = self.hex4()?;
                    let ch = if (0xD800..0xDC00).contains(&unit)
                        && self.bytes[self.pos..].starts_with(b"\\u")
                    {
                        // A high surrogate: paired with a following low one, or U+FFFD.
                        let save = self.pos;
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xDC00..0xE000).contains(&low) {
                            char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                                .unwrap_or('\u{FFFD}')
                        } else {
                            self.pos = save;
                            '\u{FFFD}'
                        }
                    } else {
                        char::from_u32(unit).unwrap_or('\u{FFFD}')
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(self.error_here("in string literal")),
                c => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }
}

/// The container a closed frame makes (a skipped one: nothing worth keeping).
fn close_frame<V: Build>(frame: Option<Frame<V>>) -> V {
    match frame {
        Some(Frame::Array(items)) => V::array(items),
        Some(Frame::Object { pairs, .. }) => V::object(pairs),
        _ => V::null(),
    }
}

/// Bytes as a string the way Go coerces them (`utf8.DecodeRune`): each byte of an invalid
/// sequence becomes U+FFFD.
fn go_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for _ in chunk.invalid() {
            out.push('\u{FFFD}');
        }
    }
    out
}

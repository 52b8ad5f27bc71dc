//! The strict decoding check of apply bodies (upstream's applyPatcher runs
//! `yaml.UnmarshalStrict` on the body under `fieldValidation=Strict|Warn`): keys repeated in
//! one map, reported as go-yaml reports them, `line <n>: key "<k>" already set in map`.
//!
//! Bodies in JSON (what kubectl and the client libraries send) are checked; YAML block
//! bodies are not (their repeated keys keep the last value, as under `Ignore`).

use std::collections::HashSet;

/// At most this deep.
const MAX_DEPTH: usize = 512;

struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    found: Vec<String>,
}

impl Scan<'_> {
    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.pos += 1;
        }
    }

    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return serde_json::from_slice(&self.bytes[start..self.pos]).ok();
                }
                b'\n' => return None,
                _ => self.pos += 1,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_space();
        match *self.bytes.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut keys = HashSet::new();
                self.skip_space();
                if self.bytes.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Some(());
                }
                loop {
                    self.skip_space();
                    if self.bytes.get(self.pos) != Some(&b'"') {
                        return None;
                    }
                    let line = self.line;
                    let key = self.string()?;
                    if !keys.insert(key.clone()) {
                        let quoted = serde_json::to_string(&key).unwrap_or_default();
                        self.found.push(format!(
                            "line {}: key {quoted} already set in map",
                            line + 1
                        ));
                    }
                    self.skip_space();
                    if self.bytes.get(self.pos) != Some(&b':') {
                        return None;
                    }
                    self.pos += 1;
                    self.value(depth + 1)?;
                    self.skip_space();
                    match *self.bytes.get(self.pos)? {
                        b',' => self.pos += 1,
                        b'}' => {
                            self.pos += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                self.skip_space();
                if self.bytes.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.skip_space();
                    match *self.bytes.get(self.pos)? {
                        b',' => self.pos += 1,
                        b']' => {
                            self.pos += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(|_| ()),
            _ => {
                while let Some(&b) = self.bytes.get(self.pos) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.pos += 1;
                }
                Some(())
            }
        }
    }
}

/// The repeated keys of a JSON apply body, in document order (empty for YAML bodies or
/// bodies that do not parse).
pub fn repeated_keys(body: &[u8]) -> Vec<String> {
    let mut scan = Scan {
        bytes: body,
        pos: 0,
        line: 0,
        found: Vec::new(),
    };
    scan.skip_space();
    if body.get(scan.pos) != Some(&b'{') {
        return Vec::new();
    }
    match scan.value(0) {
        Some(()) => scan.found,
        None => Vec::new(),
    }
}

/// Upstream's Strict error text for these repeated keys.
pub fn strict_error(found: &[String]) -> String {
    format!(
        "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
        found.join("\n  ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Upstream: test/integration/apiserver/fieldvalidation_test.go
    // testFieldValidationApplyCreate (the texts of Strict and Warn).
    #[test]
    fn repeated_keys_by_line() {
        let body = b"{\n  \"spec\": {\n    \"paused\": true,\n    \"paused\": false,\n    \"x\": [{\"a\": 1, \"a\": 2}]\n  },\n  \"s\": \"{\\\"q\\\": 1, \\\"q\\\": 2}\"\n}";
        let found = repeated_keys(body);
        assert_eq!(
            found,
            vec![
                "line 4: key \"paused\" already set in map",
                "line 5: key \"a\" already set in map"
            ]
        );
        assert_eq!(
            strict_error(&found),
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key \"paused\" already set in map\n  line 5: key \"a\" already set in map"
        );
        assert!(repeated_keys(b"a: 1\na: 2\n").is_empty());
        assert!(repeated_keys(b"{\"a\": ").is_empty());
        let deep = "[".repeat(10_000);
        assert!(repeated_keys(format!("{{\"a\": {deep}").as_bytes()).is_empty());
    }
}

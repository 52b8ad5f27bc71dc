//! The strict decoding check of apply bodies (upstream's applyPatcher runs
//! `yaml.UnmarshalStrict` on the body under `fieldValidation=Strict|Warn`): keys repeated in
//! one map, reported as go-yaml reports them, `line <n>: key "<k>" already set in map`.
//!
//! Bodies in JSON (what kubectl and the client libraries send) and in YAML are checked.

use kcel_stdlib::documents::{DuplicateKey, StrictError};

/// The repeated keys of an apply body, in document order, as go-yaml's strict decoding
/// reports them (the body read as YAML, which JSON is, by the library's reader); none for a
/// body that does not read (its error comes from decoding).
pub fn repeated_keys(body: &[u8]) -> Vec<DuplicateKey> {
    match kcel_stdlib::documents::read_body(body, true) {
        Ok((_, found)) => found.into_iter().map(|d| d.error).collect(),
        Err(_) => Vec::new(),
    }
}

/// Upstream's Strict error text for these repeated keys: go-yaml's one error for them all,
/// as sigs.k8s.io/yaml's conversion and the apply patcher wrap it.
pub fn strict_error(found: &[DuplicateKey]) -> String {
    format!(
        "error strict decoding YAML: error converting YAML to JSON: {}",
        StrictError::YamlKeys(found.to_vec())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(keys: &[DuplicateKey]) -> Vec<String> {
        keys.iter().map(ToString::to_string).collect()
    }

    // Upstream: test/integration/apiserver/fieldvalidation_test.go
    // testFieldValidationApplyCreate (the texts of Strict and Warn).
    #[test]
    fn repeated_keys_by_line() {
        let body = b"{\n  \"spec\": {\n    \"paused\": true,\n    \"paused\": false,\n    \"x\": [{\"a\": 1, \"a\": 2}]\n  },\n  \"s\": \"{\\\"q\\\": 1, \\\"q\\\": 2}\"\n}";
        let found = repeated_keys(body);
        assert_eq!(
            texts(&found),
            vec![
                "line 4: key \"paused\" already set in map",
                "line 5: key \"a\" already set in map"
            ]
        );
        assert_eq!(
            strict_error(&found),
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key \"paused\" already set in map\n  line 5: key \"a\" already set in map"
        );
        assert_eq!(
            texts(&repeated_keys(b"a: 1\na: 2\n")),
            ["line 2: key \"a\" already set in map"]
        );
        assert!(repeated_keys(b"{\"a\": ").is_empty());
        let deep = "[".repeat(10_000);
        assert!(repeated_keys(format!("{{\"a\": {deep}").as_bytes()).is_empty());
    }
}

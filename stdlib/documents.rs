//! Reading values and manifests from text as Kubernetes' tools read them: the CLI's
//! `--var`, the playground's variables and the CLI's manifest files go through here.

use serde::Deserialize as _;

use kcel::Value;

/// Text that is not a JSON or YAML document, with the parser's message.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// Text read as JSON (it starts like JSON) that is not.
    #[error("invalid JSON: {0}")]
    Json(serde_json::Error),
    /// Text read as YAML that is not.
    #[error("invalid YAML: {0}")]
    Yaml(serde_norway::Error),
}

/// One value from JSON, or else YAML (one document), as `kcel eval --var` reads it: map
/// keys keep their scalar kind (YAML's `1: one` is `{1: "one"}`). Text that looks like JSON
/// but is neither gets the JSON parser's message; JSON nested too deeply is not re-read as
/// YAML (whose parser would take minutes over it).
pub fn parse_value(text: &str) -> Result<Value, DocumentError> {
    let mut json = serde_json::Deserializer::from_str(text);
    let json_error =
        match kcel::value::from_document(&mut json).and_then(|v| json.end().map(|()| v)) {
            Ok(value) => return Ok(value),
            Err(e) => e,
        };
    let looks_like_json = text.trim_start().starts_with(['{', '[', '"']);
    if looks_like_json && nesting_reaches(text, JSON_NESTING_LIMIT) {
        return Err(DocumentError::Json(json_error));
    }
    match kcel::value::from_document(serde_norway::Deserializer::from_str(text)) {
        Ok(value) => Ok(value),
        Err(yaml_error) => {
            if looks_like_json {
                Err(DocumentError::Json(json_error))
            } else {
                Err(DocumentError::Yaml(yaml_error))
            }
        }
    }
}

/// serde_json's nesting limit: text nested this deep fails to parse as JSON.
const JSON_NESTING_LIMIT: usize = 128;

/// Whether brackets and braces outside strings nest `limit` deep somewhere in `text`.
fn nesting_reaches(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth >= limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Whether a file is JSON rather than YAML, as kubectl decides it
/// (`NewYAMLOrJSONDecoder`): it starts, after white space, with `{`. Such text is read as a
/// stream of JSON objects only (JSON's escapes, such as surrogate pairs, are not YAML's),
/// never re-read as YAML.
fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Every document of a text: a stream of JSON values, or YAML documents separated by `---`
/// (empty and comment-only ones skipped).
pub fn parse_manifests(text: &str) -> Result<Vec<serde_json::Value>, DocumentError> {
    if looks_like_json(text) {
        return serde_json::Deserializer::from_str(text)
            .into_iter::<serde_json::Value>()
            .collect::<Result<Vec<_>, _>>()
            .map_err(DocumentError::Json);
    }
    let mut documents = Vec::new();
    for document in serde_norway::Deserializer::from_str(text) {
        let value = serde_json::Value::deserialize(document).map_err(DocumentError::Yaml)?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// The objects of a text of manifests ([`parse_manifests`]): a `kind: List` (or a `*List`
/// with `items`) stands for its items, as kubectl reads it.
pub fn parse_objects(text: &str) -> Result<Vec<serde_json::Value>, DocumentError> {
    Ok(list_items(parse_manifests(text)?))
}

/// Documents with every `kind: List` (or `*List` with `items`) replaced by its items.
pub fn list_items(documents: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    use serde_json::Value as Json;
    let mut out = Vec::with_capacity(documents.len());
    for mut document in documents {
        let is_list = document
            .get("kind")
            .and_then(Json::as_str)
            .is_some_and(|k| k.ends_with("List"))
            && document.get("items").is_some_and(Json::is_array);
        match document.get_mut("items").map(Json::take) {
            Some(Json::Array(items)) if is_list => out.extend(items),
            _ => out.push(document),
        }
    }
    out
}

/// An object's `metadata.namespace` and `metadata.name` (empty when absent): how
/// manifests are paired (an update's old object) and named in messages.
pub fn namespace_and_name(object: &serde_json::Value) -> (&str, &str) {
    let field = |f: &str| {
        object
            .pointer(&format!("/metadata/{f}"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    };
    (field("namespace"), field("name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_documents() {
        assert_eq!(parse_value("[1, 2.5]").unwrap().to_string(), "[1, 2.5]");
        assert_eq!(
            parse_value("a: 1\nb: [x, true]\n").unwrap().to_string(),
            "{\"a\": 1, \"b\": [\"x\", true]}"
        );
        assert_eq!(parse_value("1: one").unwrap().to_string(), "{1: \"one\"}");
        assert!(
            parse_value("{\"a\": 1")
                .unwrap_err()
                .to_string()
                .starts_with("invalid JSON")
        );
        assert!(
            parse_value("a: [1")
                .unwrap_err()
                .to_string()
                .starts_with("invalid YAML")
        );
    }

    #[test]
    fn json_nested_past_the_limit_is_not_reread_as_yaml() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let error = parse_value(&deep).unwrap_err().to_string();
        assert!(
            error.starts_with("invalid JSON: recursion limit exceeded"),
            "{error}"
        );
        // Brackets inside strings do not count.
        assert!(!nesting_reaches(&format!("[\"{}\"]", "[".repeat(200)), 128));
        assert!(nesting_reaches(&"{\"a\":".repeat(128), 128));
    }

    #[test]
    fn manifests_as_kubectl_reads_them() {
        let docs = parse_manifests("a: 1\n---\n# only a comment\n---\nb: 2\n---\n").unwrap();
        assert_eq!(
            docs,
            [serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]
        );
        let json = parse_manifests("{\"s\": \"\\uD83D\\uDC51\"} {\"t\": 1}").unwrap();
        assert_eq!(json[0]["s"], "\u{1F451}");
        assert_eq!(json.len(), 2);
        assert!(
            parse_manifests("{a: 1}")
                .unwrap_err()
                .to_string()
                .starts_with("invalid JSON")
        );
    }
}

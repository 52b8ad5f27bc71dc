//! Reading values and manifests from text as Kubernetes reads them: the CLI's `--var` and
//! manifest files, the playground's variables and the server's request bodies go through
//! here.
//!
//! - JSON as encoding/json (sigs.k8s.io/json) reads it (`json.rs`): Go's grammar and error
//!   texts, integers that fit int64 as integers and other numbers as float64, lone
//!   surrogates as U+FFFD, the last of duplicate keys winning, 10,000 levels of nesting.
//! - YAML as sigs.k8s.io/yaml reads it (`yaml.rs`): go-yaml v2's YAML 1.1 scalars (`yes`,
//!   `on`, `017`, `1_000`, ...), tags, anchors, merge keys `<<`, error texts and limits,
//!   then the conversion to JSON (non-string keys become strings; `3.0` becomes `3`).
//! - A text starting with `{` is JSON, as kubectl decides (`NewYAMLOrJSONDecoder`).
//!
//! Readers keep their own stacks, so deep nesting is an error, never a stack overflow;
//! values nested deeper than [`MAX_DEPTH`] are refused with a clear error.

use kcel::Value;

mod json;
mod libyaml;
mod tree;
mod yaml;

pub use tree::{MAX_DEPTH, ReadError};

use json::{JsonError, Mode};
use yaml::YamlError;

/// Text that is not a JSON or YAML document as Kubernetes reads it; `Display` is the
/// reader's message (encoding/json's and go-yaml v2's texts, as kube-apiserver and kubectl
/// print them) with the prefix of the step that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// JSON that encoding/json refuses.
    #[error("invalid JSON: {0}")]
    Json(ReadError),
    /// YAML that go-yaml v2 refuses, or that sigs.k8s.io/yaml cannot convert to JSON.
    #[error("error converting YAML to JSON: {0}")]
    Yaml(ReadError),
    /// A value read as YAML from a text of several documents.
    #[error("invalid YAML: the text holds several documents, not one value")]
    SeveralValues,
    /// One document read from a text of several (their number).
    #[error("the text holds {0} documents, not one")]
    SeveralDocuments(usize),
    /// A request body the server's decoder refuses (upstream's text, without a prefix).
    #[error("{0}")]
    Body(ReadError),
    /// A YAML request body that is not UTF-8.
    #[error("yaml: invalid UTF-8: {0}")]
    Utf8(std::str::Utf8Error),
    /// A YAML value with a key CEL cannot hold.
    #[error("{0}")]
    Value(ReadError),
}

impl From<JsonError> for ReadError {
    fn from(e: JsonError) -> ReadError {
        match e {
            JsonError::Go(message) => ReadError::Go(message),
            JsonError::TooDeep => ReadError::TooDeep,
        }
    }
}

impl From<YamlError> for ReadError {
    fn from(e: YamlError) -> ReadError {
        match e {
            YamlError::Go(message) => ReadError::Go(message),
            YamlError::TooDeep => ReadError::TooDeep,
        }
    }
}

/// The message, for the tests that compare it with Go's texts.
#[cfg(test)]
#[allow(clippy::cmp_owned)]
impl PartialEq<&str> for DocumentError {
    fn eq(&self, other: &&str) -> bool {
        self.to_string() == *other
    }
}

#[cfg(test)]
#[allow(clippy::cmp_owned)]
impl PartialEq<String> for DocumentError {
    fn eq(&self, other: &String) -> bool {
        self.to_string() == *other
    }
}

impl From<DocumentError> for String {
    fn from(error: DocumentError) -> String {
        error.to_string()
    }
}

fn json_error(e: JsonError) -> DocumentError {
    DocumentError::Json(e.into())
}

fn yaml_error(e: YamlError) -> DocumentError {
    DocumentError::Yaml(e.into())
}

/// One value from JSON, or else YAML (one document), as `kcel eval --var` reads it: map
/// keys keep their scalar kind (YAML's `1: one` is `{1: "one"}`), scalars as go-yaml v2
/// resolves them (`yes` is `true`). Text that looks like JSON (starts with `{`, `[` or `"`)
/// but is neither gets the JSON reader's message.
pub fn parse_value(text: &str) -> Result<Value, DocumentError> {
    let json_error = match json::read::<tree::Node>(text.as_bytes(), Mode::One) {
        Ok((mut values, _)) => {
            return tree::to_value(&values.remove(0)).map_err(DocumentError::Value);
        }
        Err(e) => e,
    };
    let looks_like_json = text.trim_start().starts_with(['{', '[', '"']);
    if looks_like_json && json_error == JsonError::TooDeep {
        return Err(self::json_error(json_error));
    }
    match yaml::read_documents(text) {
        Ok((documents, _)) if documents.len() <= 1 => match documents.first() {
            Some(node) => tree::to_value(node).map_err(DocumentError::Value),
            None => Ok(Value::Null),
        },
        Ok(_) if !looks_like_json => Err(DocumentError::SeveralValues),
        Err(e) if !looks_like_json => Err(yaml_error(e)),
        _ => Err(self::json_error(json_error)),
    }
}

/// One document as the API server sees it (`kcel eval --schema`'s `self`, a CRD file): JSON
/// when the text is JSON (surrogate-pair escapes and all), else one YAML document through
/// sigs.k8s.io/yaml's conversion; an empty text is `null`.
pub fn parse_document(text: &str) -> Result<serde_json::Value, DocumentError> {
    let json_error = match json::read::<serde_json::Value>(text.as_bytes(), Mode::One) {
        Ok((mut values, _)) => return Ok(values.swap_remove(0)),
        Err(e) => e,
    };
    if text.trim_start().starts_with(['{', '[', '"']) {
        return Err(self::json_error(json_error));
    }
    let (mut nodes, _) = yaml::read_documents(text).map_err(yaml_error)?;
    match nodes.len() {
        0 => Ok(serde_json::Value::Null),
        1 => tree::to_object(nodes.swap_remove(0)).map_err(DocumentError::Yaml),
        n => Err(DocumentError::SeveralDocuments(n)),
    }
}

/// Whether a text is JSON rather than YAML, as kubectl decides it
/// (`NewYAMLOrJSONDecoder`): it starts, after white space, with `{`. Such text is read as a
/// stream of JSON objects only (JSON's escapes, such as surrogate pairs, are not YAML's),
/// never re-read as YAML.
fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// The documents of a text of manifests with what strict decoding would object to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Manifests {
    /// Each non-empty document, as the API server sees it.
    pub documents: Vec<serde_json::Value>,
    /// Duplicate keys, in the words of the strict decoders: `duplicate field "a"` (JSON),
    /// `line 3: key "a" already set in map` (YAML). The last value of a duplicate key is
    /// the one kept, as in non-strict decoding.
    pub duplicates: Vec<String>,
}

/// Every document of a text: a stream of JSON values, or YAML documents separated by `---`
/// (empty and comment-only ones skipped), with the duplicate keys met.
pub fn read_manifests(text: &str) -> Result<Manifests, DocumentError> {
    if looks_like_json(text) {
        let (documents, duplicates) =
            json::read::<serde_json::Value>(text.as_bytes(), Mode::Stream).map_err(json_error)?;
        return Ok(Manifests {
            documents,
            duplicates,
        });
    }
    let (nodes, duplicates) = yaml::read_documents(text).map_err(yaml_error)?;
    let mut documents = Vec::with_capacity(nodes.len());
    for node in nodes {
        let value = tree::to_object(node).map_err(DocumentError::Yaml)?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(Manifests {
        documents,
        duplicates,
    })
}

/// Every document of a text ([`read_manifests`] without the duplicate keys).
pub fn parse_manifests(text: &str) -> Result<Vec<serde_json::Value>, DocumentError> {
    read_manifests(text).map(|m| m.documents)
}

/// One request body as kube-apiserver decodes it: JSON (the whole body one value), or YAML
/// (its first document, as sigs.k8s.io/yaml's `YAMLToJSON` reads it), with the duplicate
/// keys met. Errors carry the upstream text without a prefix.
pub fn read_body(
    body: &[u8],
    yaml: bool,
) -> Result<(serde_json::Value, Vec<String>), DocumentError> {
    let body_error = |e: ReadError| DocumentError::Body(e);
    if !yaml {
        let (mut values, duplicates) =
            json::read::<serde_json::Value>(body, Mode::One).map_err(|e| body_error(e.into()))?;
        return Ok((values.swap_remove(0), duplicates));
    }
    let text = std::str::from_utf8(body).map_err(DocumentError::Utf8)?;
    let (nodes, duplicates) = yaml::read_documents(text).map_err(|e| body_error(e.into()))?;
    let value = match nodes.into_iter().next() {
        Some(node) => tree::to_object(node).map_err(body_error)?,
        None => serde_json::Value::Null,
    };
    Ok((value, duplicates))
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
mod tests;

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
//!   Objects are read in one pass straight from the parser's events when the text has no
//!   anchors, aliases, merge keys, complex or repeated keys (`yaml_objects.rs`; the full
//!   decoder's node trees are not built), else by the full decoder.
//! - A text starting with `{` is JSON, as kubectl decides (`NewYAMLOrJSONDecoder`).
//!
//! Readers keep their own stacks, so deep nesting is an error, never a stack overflow:
//! values nested up to [`MAX_DEPTH`] levels (Kubernetes' 10,000; 1,000 in the browser
//! module, which refuses deeper ones with its own error) are read, values nested past
//! 10,000 get Kubernetes' errors. Work on values that deep needs a
//! stack of [`DEEP_STACK`] bytes ([`with_deep_stack`]).

use kcel::Value;

mod json;
mod libyaml;
mod tree;
mod yaml;
mod yaml_objects;

pub use tree::{DEEP_STACK, KUBERNETES_MAX_DEPTH, MAX_DEPTH, ReadError, with_deep_stack};

use std::ops::Range;

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
        Ok(read) => {
            return tree::to_value(&read.values[0]).map_err(DocumentError::Value);
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
        Ok(mut read) => return Ok(read.values.swap_remove(0)),
        Err(e) => e,
    };
    if text.trim_start().starts_with(['{', '[', '"']) {
        return Err(self::json_error(json_error));
    }
    if let Some(mut values) = yaml_objects::read_plain(text) {
        return match values.len() {
            0 => Ok(serde_json::Value::Null),
            1 => Ok(values.swap_remove(0)),
            n => Err(DocumentError::SeveralDocuments(n)),
        };
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

/// A key given twice in one map of a document (the last value is the one kept, as
/// kube-apiserver's decoding keeps it), and what strict decoding says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The document of the text it is in (0 for the first non-empty one).
    pub document: usize,
    /// Where the key is, as sigs.k8s.io/json's strict decoding names paths: keys joined by
    /// `.`, list items as `[i]` (`spec.template.spec.containers[0].imagePullPolicy`).
    pub path: String,
    /// Strict decoding's error for it; `Display` is its text.
    pub error: DuplicateKey,
}

/// Strict decoding's error for a key given twice, by the syntax of the text it is in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DuplicateKey {
    /// In JSON text: sigs.k8s.io/json's `duplicate field "<path>"` (the key's path).
    #[error("duplicate field {}", tree::go_quote(.0))]
    Json(String),
    /// In YAML text: go-yaml v2's `line <n>: key "<key>" already set in map`, which
    /// sigs.k8s.io/yaml's `YAMLToJSONStrict` reports for a YAML body.
    #[error("line {line}: key {key} already set in map")]
    Yaml {
        /// The line of the second value (1-based).
        line: u64,
        /// The key as go-yaml prints it (`"name"`, `1`).
        key: String,
    },
}

impl Duplicate {
    /// Whether it was found in JSON text (its error names the path).
    pub fn is_json(&self) -> bool {
        matches!(self.error, DuplicateKey::Json(_))
    }

    /// The same duplicate seen from the value at `prefix` (`items[2]`): its path below it,
    /// and a JSON error naming that path. `None` when it is not below `prefix`.
    fn below(&self, prefix: &str) -> Option<Duplicate> {
        let path = self.path.strip_prefix(prefix)?;
        let path = path
            .strip_prefix('.')
            .or_else(|| path.starts_with('[').then_some(path))?;
        let error = match &self.error {
            DuplicateKey::Json(_) => DuplicateKey::Json(path.to_owned()),
            yaml => yaml.clone(),
        };
        Some(Duplicate {
            document: self.document,
            path: path.to_owned(),
            error,
        })
    }
}

/// The documents of a text of manifests with what strict decoding would object to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Manifests {
    /// Each non-empty document, as the API server sees it.
    pub documents: Vec<serde_json::Value>,
    /// Keys given twice, in the order met (see [`Duplicate`]).
    pub duplicates: Vec<Duplicate>,
    /// For a JSON text, where each document is in it (to walk a document's text again, as
    /// typed strict decoding does: [`crate::kubernetes::builtin::BuiltinKind::strict_errors`]);
    /// empty for YAML.
    pub spans: Vec<Range<usize>>,
}

/// One object of a text of manifests: a document, or an item of a `kind: List`.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestObject {
    /// The object, as the API server sees it.
    pub object: serde_json::Value,
    /// Its keys given twice, with paths from the object (an item's `items[i].` left out).
    /// A `List`'s own duplicates go with its first item.
    pub duplicates: Vec<Duplicate>,
    /// Where the object is in the JSON text it was read from, when it is a whole document.
    pub span: Option<Range<usize>>,
}

impl Manifests {
    /// The objects of the documents: a `kind: List` (or a `*List` with `items`) stands for
    /// its items, as kubectl reads it, each with its own duplicate keys.
    pub fn into_objects(self) -> Vec<ManifestObject> {
        let mut duplicates: Vec<Vec<Duplicate>> = vec![Vec::new(); self.documents.len()];
        for d in self.duplicates {
            if let Some(list) = duplicates.get_mut(d.document) {
                list.push(d);
            }
        }
        let mut out = Vec::with_capacity(self.documents.len());
        for (n, (document, found)) in self.documents.into_iter().zip(duplicates).enumerate() {
            let span = self.spans.get(n).cloned();
            match list_of(document) {
                Ok(items) => {
                    let first = out.len();
                    for (i, object) in items.into_iter().enumerate() {
                        let prefix = format!("items[{i}]");
                        let duplicates = found.iter().filter_map(|d| d.below(&prefix)).collect();
                        out.push(ManifestObject {
                            object,
                            duplicates,
                            span: None,
                        });
                    }
                    let own = found.iter().filter(|d| !d.path.starts_with("items["));
                    if let Some(item) = out.get_mut(first) {
                        item.duplicates.extend(own.cloned());
                    }
                }
                Err(object) => out.push(ManifestObject {
                    object,
                    duplicates: found,
                    span,
                }),
            }
        }
        out
    }
}

/// Every document of a text: a stream of JSON values, or YAML documents separated by `---`
/// (empty and comment-only ones skipped), with the duplicate keys met.
pub fn read_manifests(text: &str) -> Result<Manifests, DocumentError> {
    if looks_like_json(text) {
        let read =
            json::read::<serde_json::Value>(text.as_bytes(), Mode::Stream).map_err(json_error)?;
        return Ok(Manifests {
            documents: read.values,
            duplicates: read.duplicates,
            spans: read.spans,
        });
    }
    if let Some(values) = yaml_objects::read_plain(text) {
        return Ok(Manifests {
            documents: values.into_iter().filter(|v| !v.is_null()).collect(),
            duplicates: Vec::new(),
            spans: Vec::new(),
        });
    }
    let (nodes, duplicates) = yaml::read_documents(text).map_err(yaml_error)?;
    let mut documents = Vec::with_capacity(nodes.len());
    // The index of each YAML document among the non-empty ones.
    let mut kept = Vec::with_capacity(nodes.len());
    for node in nodes {
        let value = tree::to_object(node).map_err(DocumentError::Yaml)?;
        kept.push(documents.len());
        if !value.is_null() {
            documents.push(value);
        }
    }
    let duplicates = duplicates
        .into_iter()
        .map(|mut d| {
            d.document = kept.get(d.document).copied().unwrap_or(d.document);
            d
        })
        .collect();
    Ok(Manifests {
        documents,
        duplicates,
        spans: Vec::new(),
    })
}

/// Every document of a text ([`read_manifests`] without the duplicate keys).
pub fn parse_manifests(text: &str) -> Result<Vec<serde_json::Value>, DocumentError> {
    read_manifests(text).map(|m| m.documents)
}

/// One request body as kube-apiserver decodes it: JSON (the whole body one value), or YAML
/// (its first document, as sigs.k8s.io/yaml's `YAMLToJSON` reads it), with the duplicate
/// keys met (an untyped strict decoding's: every map's). Errors carry the upstream text
/// without a prefix.
pub fn read_body(
    body: &[u8],
    yaml: bool,
) -> Result<(serde_json::Value, Vec<Duplicate>), DocumentError> {
    let body_error = |e: ReadError| DocumentError::Body(e);
    if !yaml {
        let mut read =
            json::read::<serde_json::Value>(body, Mode::One).map_err(|e| body_error(e.into()))?;
        return Ok((read.values.swap_remove(0), read.duplicates));
    }
    let text = std::str::from_utf8(body).map_err(DocumentError::Utf8)?;
    if let Some(values) = yaml_objects::read_plain(text) {
        let value = values.into_iter().next().unwrap_or(serde_json::Value::Null);
        return Ok((value, Vec::new()));
    }
    let (nodes, duplicates) = yaml::read_documents(text).map_err(|e| body_error(e.into()))?;
    let value = match nodes.into_iter().next() {
        Some(node) => tree::to_object(node).map_err(body_error)?,
        None => serde_json::Value::Null,
    };
    let first = duplicates.into_iter().filter(|d| d.document == 0).collect();
    Ok((value, first))
}

/// The errors strict decoding reports for the keys a request body gives twice, as
/// kube-apiserver's decoders report them before any schema applies: for JSON (decoded
/// untyped by sigs.k8s.io/json's `UnmarshalStrict`: custom resources, merge patches) one
/// [`StrictError::Key`] each; for YAML (sigs.k8s.io/yaml's `YAMLToJSONStrict`) one
/// [`StrictError::YamlKeys`] of them all. Nothing for a body that does not read (its error
/// comes from decoding).
pub fn body_duplicate_errors(body: &[u8], yaml: bool) -> Vec<StrictError> {
    let Ok((_, duplicates)) = read_body(body, yaml) else {
        return Vec::new();
    };
    let keys = duplicates.into_iter().map(|d| d.error);
    if !yaml {
        return keys.map(StrictError::Key).collect();
    }
    let keys: Vec<DuplicateKey> = keys.collect();
    if keys.is_empty() {
        return Vec::new();
    }
    vec![StrictError::YamlKeys(keys)]
}

/// An error strict decoding reports of a request body's repeated keys.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictError {
    /// One key (JSON: sigs.k8s.io/json reports each as an error of its own).
    #[error("{0}")]
    Key(DuplicateKey),
    /// Every key of a YAML body, as go-yaml's one error of lines (`yaml: unmarshal
    /// errors:\n  line <n>: key "<k>" already set in map\n  ...`).
    #[error("yaml: unmarshal errors:\n  {}", lines(.0))]
    YamlKeys(Vec<DuplicateKey>),
}

impl StrictError {
    /// The warnings it gives under `fieldValidation=Warn`, as kube-apiserver's handlers
    /// split strict errors (`addStrictDecodingWarnings`, `parseYAMLWarnings`): go-yaml's
    /// error one warning per line, any other one warning.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            StrictError::Key(key) => vec![key.to_string()],
            StrictError::YamlKeys(keys) => keys.iter().map(ToString::to_string).collect(),
        }
    }
}

/// Errors' texts, one line each, indented as go-yaml indents them after the first.
fn lines(keys: &[DuplicateKey]) -> String {
    let texts: Vec<String> = keys.iter().map(ToString::to_string).collect();
    texts.join("\n  ")
}

/// The objects of a text of manifests ([`parse_manifests`]): a `kind: List` (or a `*List`
/// with `items`) stands for its items, as kubectl reads it.
pub fn parse_objects(text: &str) -> Result<Vec<serde_json::Value>, DocumentError> {
    Ok(list_items(parse_manifests(text)?))
}

/// Documents with every `kind: List` (or `*List` with `items`) replaced by its items.
pub fn list_items(documents: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    let mut out = Vec::with_capacity(documents.len());
    for document in documents {
        match list_of(document) {
            Ok(items) => out.extend(items),
            Err(document) => out.push(document),
        }
    }
    out
}

/// The items of a `kind: List` (or a `*List` with `items`); any other document back.
fn list_of(mut document: serde_json::Value) -> Result<Vec<serde_json::Value>, serde_json::Value> {
    use serde_json::Value as Json;
    let is_list = document
        .get("kind")
        .and_then(Json::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && document.get("items").is_some_and(Json::is_array);
    if !is_list {
        return Err(document);
    }
    match document.get_mut("items").map(Json::take) {
        Some(Json::Array(items)) => Ok(items),
        _ => Err(document),
    }
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

//! Content negotiation: which representation a request body is in (`Content-Type`) and which
//! one the client accepts (`Accept`), as kube-apiserver negotiates them.

use axum::http::HeaderMap;
use axum::http::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use crate::error::ApiError;

/// The media types this server decodes, as upstream lists them in a 415 answer.
const DECODABLE: &str = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/// The media types this server encodes, as upstream lists them in a 406 answer.
const ENCODABLE: &str = "application/json, application/yaml";

/// How a request body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyType {
    /// JSON (also when no Content-Type is given, as the Python client sends).
    Json,
    /// YAML.
    Yaml,
    /// `application/merge-patch+json` (RFC 7386).
    MergePatch,
    /// `application/json-patch+json` (RFC 6902).
    JsonPatch,
    /// `application/strategic-merge-patch+json`.
    StrategicMergePatch,
    /// `application/apply-patch+yaml` (server-side apply).
    ApplyPatch,
    /// Kubernetes protobuf (`application/vnd.kubernetes.protobuf`).
    Protobuf,
}

/// The media type of a header value without its parameters, lower-cased.
fn essence(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The body type named by the request's Content-Type.
pub fn body_type(headers: &HeaderMap) -> Result<BodyType, ApiError> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Ok(BodyType::Json);
    };
    let text = value.to_str().unwrap_or("");
    Ok(match essence(text).as_str() {
        "" | "application/json" => BodyType::Json,
        "application/yaml" | "application/x-yaml" | "text/yaml" => BodyType::Yaml,
        "application/merge-patch+json" => BodyType::MergePatch,
        "application/json-patch+json" => BodyType::JsonPatch,
        "application/strategic-merge-patch+json" => BodyType::StrategicMergePatch,
        "application/apply-patch+yaml" => BodyType::ApplyPatch,
        "application/vnd.kubernetes.protobuf" => BodyType::Protobuf,
        _ => return Err(unsupported_media_type(text)),
    })
}

/// 415 for a body in a media type the server does not decode.
pub fn unsupported_media_type(content_type: &str) -> ApiError {
    let _ = content_type;
    ApiError::unsupported_media_type(format!(
        "the body of the request was in an unknown format - accepted media types include: {DECODABLE}"
    ))
}

/// Parses a body in JSON or YAML into a JSON value, as kube-apiserver decodes it (the
/// library's `documents::read_body`: encoding/json's and go-yaml v2's rules, texts and
/// nesting limits — 10,000 levels, which the server's threads have the stack for:
/// `documents::DEEP_STACK`).
pub fn parse_value(body: &[u8], kind: BodyType) -> Result<Value, BodyError> {
    let yaml = matches!(kind, BodyType::Yaml | BodyType::ApplyPatch);
    let (value, _) = kcel_stdlib::documents::read_body(body, yaml)?;
    Ok(value)
}

/// Why a request body does not decode (the part of the 400's message after the route's
/// words).
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// Not JSON or YAML as kube-apiserver reads them (the reader's text).
    #[error(transparent)]
    Unreadable(#[from] kcel_stdlib::documents::DocumentError),
}

/// A representation the server answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The object or list as JSON.
    Json,
    /// The object or list as YAML.
    Yaml,
    /// A `meta.k8s.io` Table (the version named).
    Table(&'static str),
    /// `PartialObjectMetadata` / `PartialObjectMetadataList` (the version named).
    Metadata(&'static str),
}

/// One entry of an Accept header: the media type and its parameters.
struct MediaRange {
    essence: String,
    params: Vec<(String, String)>,
}

impl MediaRange {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn media_ranges(accept: &str) -> Vec<MediaRange> {
    accept
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|entry| {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let params = parts
                .filter_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    Some((k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                })
                .collect();
            MediaRange { essence, params }
        })
        .collect()
}

/// What the client accepts, in its order of preference: the first representation the server
/// can produce. `list` says whether the answer is a collection (for the metadata kinds).
pub fn output(headers: &HeaderMap, list: bool) -> Result<Output, ApiError> {
    let accept = headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.trim().is_empty() {
        return Ok(Output::Json);
    }
    for range in media_ranges(accept) {
        let json_like = matches!(
            range.essence.as_str(),
            "application/json" | "*/*" | "application/*"
        );
        let yaml = range.essence == "application/yaml";
        if !json_like && !yaml {
            continue;
        }
        match range.param("as") {
            None => return Ok(if yaml { Output::Yaml } else { Output::Json }),
            Some(r#as) => {
                if range.param("g") != Some("meta.k8s.io") || yaml {
                    continue;
                }
                let version = match range.param("v") {
                    Some("v1") => "v1",
                    Some("v1beta1") => "v1beta1",
                    _ => continue,
                };
                match r#as {
                    "Table" => return Ok(Output::Table(version)),
                    "PartialObjectMetadata" if !list => return Ok(Output::Metadata(version)),
                    "PartialObjectMetadataList" if list => return Ok(Output::Metadata(version)),
                    _ => continue,
                }
            }
        }
    }
    Err(ApiError::not_acceptable(format!(
        "only the following media types are accepted: {ENCODABLE}"
    )))
}

/// Whether the client asks for aggregated discovery (`apidiscovery.k8s.io/v2`) first.
pub fn wants_aggregated_discovery(headers: &HeaderMap) -> bool {
    let accept = headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    for range in media_ranges(accept) {
        if range.param("g") == Some("apidiscovery.k8s.io")
            && range.param("v") == Some("v2")
            && range.param("as") == Some("APIGroupDiscoveryList")
        {
            return true;
        }
        if matches!(range.essence.as_str(), "application/json" | "*/*") {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn kubectl_get_asks_for_a_table_first() {
        let h = accept(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
        );
        assert_eq!(output(&h, true).unwrap(), Output::Table("v1"));
        assert_eq!(output(&HeaderMap::new(), true).unwrap(), Output::Json);
        let h = accept("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
        assert_eq!(output(&h, true).unwrap(), Output::Metadata("v1"));
        assert_eq!(output(&h, false).unwrap_err().code, 406);
        let h = accept("application/vnd.kubernetes.protobuf,application/json");
        assert_eq!(output(&h, false).unwrap(), Output::Json);
        assert_eq!(output(&accept("text/html"), false).unwrap_err().code, 406);
        assert_eq!(
            output(&accept("application/yaml"), false).unwrap(),
            Output::Yaml
        );
    }

    #[test]
    fn discovery_v2_only_when_asked_first() {
        assert!(wants_aggregated_discovery(&accept(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        )));
        assert!(!wants_aggregated_discovery(&accept("application/json")));
        assert!(!wants_aggregated_discovery(&HeaderMap::new()));
    }

    #[test]
    fn body_types() {
        let mut h = HeaderMap::new();
        assert_eq!(body_type(&h).unwrap(), BodyType::Json);
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/yaml"));
        assert_eq!(body_type(&h).unwrap(), BodyType::Yaml);
        h.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert_eq!(body_type(&h).unwrap_err().code, 415);
        assert_eq!(
            parse_value(b"a: 1\nb: [x]\n", BodyType::Yaml).unwrap(),
            serde_json::json!({"a": 1, "b": ["x"]})
        );
        // go-yaml v2's YAML 1.1 scalars, as sigs.k8s.io/yaml reads a YAML body.
        assert_eq!(
            parse_value(b"a: yes\nb: 017\n", BodyType::Yaml).unwrap(),
            serde_json::json!({"a": true, "b": 15})
        );
        // encoding/json's nesting limit and text.
        let deep = "[".repeat(10_001);
        assert_eq!(
            parse_value(deep.as_bytes(), BodyType::Json)
                .unwrap_err()
                .to_string(),
            "invalid character '[' exceeded max depth"
        );
    }
}

//! OpenAPI v3 at `/openapi/v3`: the documents of the served group-versions, vendored from
//! Kubernetes 1.37 by `openapi/generate.py` (descriptions stripped), and the schema lookups
//! that strategic merge patch needs (`x-kubernetes-patch-strategy` / `-merge-key`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha512};

use crate::resource::Resource;

/// The vendored documents: the `/openapi/v3/<key>` key and the bytes served.
const SOURCES: &[(&str, &[u8])] = &[
    ("api/v1", include_bytes!("../openapi/api__v1_openapi.json")),
    (
        "apis/apps/v1",
        include_bytes!("../openapi/apis__apps__v1_openapi.json"),
    ),
    (
        "apis/events.k8s.io/v1",
        include_bytes!("../openapi/apis__events.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/autoscaling/v2",
        include_bytes!("../openapi/apis__autoscaling__v2_openapi.json"),
    ),
    (
        "apis/autoscaling/v1",
        include_bytes!("../openapi/apis__autoscaling__v1_openapi.json"),
    ),
    (
        "apis/batch/v1",
        include_bytes!("../openapi/apis__batch__v1_openapi.json"),
    ),
    (
        "apis/rbac.authorization.k8s.io/v1",
        include_bytes!("../openapi/apis__rbac.authorization.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/coordination.k8s.io/v1",
        include_bytes!("../openapi/apis__coordination.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/admissionregistration.k8s.io/v1",
        include_bytes!("../openapi/apis__admissionregistration.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/apiextensions.k8s.io/v1",
        include_bytes!("../openapi/apis__apiextensions.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/authorization.k8s.io/v1",
        include_bytes!("../openapi/apis__authorization.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/authentication.k8s.io/v1",
        include_bytes!("../openapi/apis__authentication.k8s.io__v1_openapi.json"),
    ),
];

/// One served document.
pub struct Document {
    /// The key, e.g. `api/v1`.
    pub key: &'static str,
    /// The exact bytes served.
    pub bytes: &'static [u8],
    /// Upper-case hex SHA-512 of the bytes: the ETag and the `hash` query parameter.
    pub hash: String,
    /// The parsed document.
    pub json: Value,
}

/// Upper-case hex SHA-512 of `bytes`: the ETag and the `hash` query parameter of the
/// OpenAPI documents (kube-openapi's).
pub fn hash(bytes: &[u8]) -> String {
    Sha512::digest(bytes)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect()
}

/// Every served document, parsed and hashed once.
pub fn documents() -> &'static [Document] {
    static DOCS: OnceLock<Vec<Document>> = OnceLock::new();
    DOCS.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(key, bytes)| Document {
                key,
                bytes,
                hash: hash(bytes),
                json: serde_json::from_slice(bytes).expect("vendored OpenAPI documents are JSON"),
            })
            .collect()
    })
}

/// The document served at `/openapi/v3/<key>`.
pub fn document(key: &str) -> Option<&'static Document> {
    documents().iter().find(|d| d.key == key)
}

/// The `/openapi/v3` index.
pub fn index() -> Value {
    let paths: serde_json::Map<String, Value> = documents()
        .iter()
        .map(|d| {
            (
                d.key.to_owned(),
                serde_json::json!({"serverRelativeURL": format!("/openapi/v3/{}?hash={}", d.key, d.hash)}),
            )
        })
        .collect();
    serde_json::json!({ "paths": paths })
}

/// The document key of a resource's group-version.
pub fn key_of(resource: &Resource) -> String {
    if resource.group.is_empty() {
        format!("api/{}", resource.version)
    } else {
        format!("apis/{}/{}", resource.group, resource.version)
    }
}

/// A schema within a served document, for walking (the library's walker, which also reads
/// the decoder's type errors and strict decoding's unknown and duplicate fields).
pub type Schema<'a> = kcel_stdlib::kubernetes::builtin::OpenApiSchema<'a>;

/// The root schema of a served kind, in its group-version's document. The served kinds'
/// are found once (a search of the document's schemas by group, version and kind) and kept:
/// a write asks for its kind's schema several times.
pub fn schema_of(resource: &Resource) -> Option<Schema<'static>> {
    type Kinds = HashMap<(&'static str, &'static str, &'static str), Schema<'static>>;
    static SERVED_KINDS: OnceLock<Kinds> = OnceLock::new();
    let served = SERVED_KINDS.get_or_init(|| {
        crate::resource::SERVED
            .iter()
            .filter_map(|r| Some(((r.group, r.version, r.kind), find_schema(r)?)))
            .collect()
    });
    match served.get(&(resource.group, resource.version, resource.kind)) {
        Some(schema) => Some(*schema),
        None => find_schema(resource),
    }
}

/// The schema of `resource`'s kind, searched for in its group-version's document.
fn find_schema(resource: &Resource) -> Option<Schema<'static>> {
    let doc = &document(&key_of(resource))?.json;
    let schemas = doc.get("components")?.get("schemas")?.as_object()?;
    Schema::of_kind(schemas, resource.group, resource.version, resource.kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::SERVED;

    #[test]
    fn every_served_kind_has_a_schema_and_a_patch_operation() {
        for r in SERVED {
            assert!(schema_of(r).is_some(), "{}", r.kind);
            let doc = &document(&key_of(r)).unwrap().json;
            let patches = doc["paths"]
                .as_object()
                .unwrap()
                .values()
                .filter_map(|p| p.get("patch"))
                .filter(|op| op["x-kubernetes-group-version-kind"]["kind"] == r.kind)
                .count();
            assert!(patches > 0, "{}", r.kind);
        }
        assert_eq!(index()["paths"].as_object().unwrap().len(), SOURCES.len());
        assert_eq!(documents()[0].hash.len(), 128);
    }

    // The walker's own tests (type errors, unknown and duplicate fields, merge keys) are
    // the library's: kcel_stdlib::kubernetes::builtin.
}

//! The vendored catalogue of built-in kinds and their schemas (written by `generate.py`
//! from Kubernetes' OpenAPI documents), read once.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use super::typed_decoding::OpenApiSchema;

/// The vendored catalogue (see `generate.py`).
const SCHEMAS: &str = include_str!("schemas.json");

/// The Kubernetes version whose schemas are vendored.
pub const KUBERNETES_VERSION: &str = "1.37";

#[derive(Deserialize)]
pub(super) struct Catalogue {
    pub(super) kinds: Vec<Entry>,
    schemas: Map<String, Json>,
}

/// One kind of the catalogue.
#[derive(Deserialize)]
pub(super) struct Entry {
    pub(super) group: String,
    pub(super) version: String,
    pub(super) kind: String,
    pub(super) schema: String,
    pub(super) namespaced: bool,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} {}", self.group, self.version, self.kind)
    }
}

pub(super) fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| serde_json::from_str(SCHEMAS).expect("the vendored schemas are JSON"))
}

/// Every vendored schema, by name (`io.k8s.api.apps.v1.Deployment`), in the OpenAPI v3
/// documents' form.
pub fn schemas() -> &'static Map<String, Json> {
    &catalogue().schemas
}

/// The schema of `metav1.ObjectMeta`, the Go type kube-apiserver decodes every `metadata`
/// into (strictly, for custom resources too).
pub(crate) fn object_meta() -> OpenApiSchema<'static> {
    OpenApiSchema::named(schemas(), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        .expect("generate.py vendors ObjectMeta")
}

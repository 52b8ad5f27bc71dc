//! Objects of Kubernetes' built-in kinds (Deployment, ConfigMap, Service, ...) checked as
//! kube-apiserver checks a write of them where its OpenAPI schema decides: the body decoded
//! into the kind's Go types (a value of the wrong JSON type is upstream's decoder error, a
//! 400 `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal
//! string into Go struct field DeploymentSpec.spec.replicas of type int32`), fields the types
//! do not have (`unknown field "spec.foo"`, a warning or, under strict field validation,
//! part of the 400), and `metadata` as the API server validates it for the kind's scope
//! (names by the kind's rule where it is not a DNS subdomain: Namespace, Service, RBAC).
//!
//! The schemas are Kubernetes 1.37's, vendored by `generate.py` (beside this file) from the
//! OpenAPI documents kube-apiserver serves, with upstream's descriptions stripped: every
//! kind that can be created (99 in 1.37). The validation kube-apiserver writes by hand for
//! the most used kinds (`ValidateDeployment`: a selector matching the template's labels,
//! container names, ports, ...; Pods, Services, ConfigMaps, Secrets, the apps and batch
//! workloads, CustomResourceDefinitions) follows the metadata's errors.
//!
//! ```
//! use kcel_stdlib::kubernetes::builtin;
//! use serde_json::json;
//!
//! let deployment = json!({
//!     "apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web"},
//!     "spec": {"replicas": "3", "paused": false}
//! });
//! let kind = builtin::kind_of(&deployment).unwrap();
//! assert_eq!(
//!     kind.validate(&deployment).decode_error.unwrap(),
//!     "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot \
//!      unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
//! );
//! let typo = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web"}, "spec": {"replica": 3,
//!         "selector": {"matchLabels": {"app": "web"}},
//!         "template": {"metadata": {"labels": {"app": "api"}},
//!             "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
//! let outcome = kind.validate(&typo);
//! assert_eq!(outcome.unknown_fields, ["unknown field \"spec.replica\""]);
//! assert_eq!(
//!     outcome.errors[0].to_string(),
//!     "spec.template.metadata.labels: Invalid value: {\"app\":\"api\"}: \
//!      `selector` does not match template `labels`"
//! );
//! ```

pub(crate) mod catalogue;
mod go_round_trip;
mod structural;
pub mod typed_decoding;

use serde_json::Value as Json;

use catalogue::{Entry, catalogue};
pub use catalogue::{KUBERNETES_VERSION, schemas};

pub use go_round_trip::go_round_trip;
pub use typed_decoding::OpenApiSchema;

use super::builtin_validation;
use super::crd::{self, FieldError, FieldPath};
use super::object_meta::{self, Scope, finalizers};
use super::object_meta_update;
use crate::documents::ManifestObject;

/// The groups whose kinds' validation calls apimachinery's `ValidateObjectMeta` rather than
/// core's (apiextensions `ValidateCustomResourceDefinition`, admissionregistration's and
/// kube-aggregator's `ValidateAPIService`): no standard-finalizer-name rule.
const GENERIC_OBJECT_META: &[&str] = &[
    "apiextensions.k8s.io",
    "admissionregistration.k8s.io",
    "apiregistration.k8s.io",
];

/// A built-in kind of one group-version.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinKind {
    entry: &'static Entry,
}

/// Every built-in kind that can be created, by group, version and kind.
pub fn kinds() -> impl Iterator<Item = BuiltinKind> {
    catalogue().kinds.iter().map(|entry| BuiltinKind { entry })
}

/// The built-in kind of `apiVersion` (`v1`, `apps/v1`) and `kind`.
pub fn kind(api_version: &str, kind: &str) -> Option<BuiltinKind> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    kinds().find(|k| k.group() == group && k.version() == version && k.kind() == kind)
}

/// The built-in kind of an object, by its `apiVersion` and `kind`.
pub fn kind_of(object: &Json) -> Option<BuiltinKind> {
    let field = |f: &str| object.get(f).and_then(Json::as_str).unwrap_or_default();
    kind(field("apiVersion"), field("kind"))
}

/// What checking one object found.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    /// The decoder's error, as kube-apiserver answers it (400 BadRequest): `<Kind> in
    /// version "<v>" cannot be handled as a <Kind>: json: cannot unmarshal ...`. Nothing
    /// else is checked after it.
    pub decode_error: Option<String>,
    /// The fields the kind does not have, as strict decoding names them (`unknown field
    /// "spec.foo"`): warnings under `fieldValidation=Warn`, the error `strict decoding error:
    /// <these, joined by ", ">` under `Strict`.
    pub unknown_fields: Vec<String>,
    /// Field errors (422 Invalid): the object's `metadata`, then the kind's own rules.
    pub errors: Vec<FieldError>,
}

impl BuiltinKind {
    /// The API group (empty for the core group).
    pub fn group(&self) -> &'static str {
        &self.entry.group
    }

    /// The version (`v1`).
    pub fn version(&self) -> &'static str {
        &self.entry.version
    }

    /// The kind (`Deployment`).
    pub fn kind(&self) -> &'static str {
        &self.entry.kind
    }

    /// Whether objects of the kind live in namespaces.
    pub fn namespaced(&self) -> bool {
        self.entry.namespaced
    }

    /// The kind's schema.
    pub fn schema(&self) -> OpenApiSchema<'static> {
        OpenApiSchema::named(schemas(), &self.entry.schema)
            .expect("generate.py vendors the schema of every kind")
    }

    /// `object` as kube-apiserver stores and answers it after decoding it into the kind's Go
    /// types: `omitempty` zero values left out, fields without it written with their zero
    /// value ([`go_round_trip()`]).
    pub fn go_round_trip(&self, object: &mut serde_json::Map<String, Json>) {
        go_round_trip::go_round_trip_fields(&self.entry.schema, object);
    }

    /// The text of a decoding error as kube-apiserver answers it: `Deployment in version
    /// "v1" cannot be handled as a Deployment: <detail>`.
    pub(crate) fn cannot_be_handled(&self, detail: &str) -> String {
        let kind = self.kind();
        format!(
            "{kind} in version \"{}\" cannot be handled as a {kind}: {detail}",
            self.version()
        )
    }

    /// Checks `object` as kube-apiserver checks a create of it: decoding (types, then the
    /// unknown fields), then `metadata`, then the kind's own rules.
    pub fn validate(&self, object: &Json) -> Outcome {
        self.validate_update(object, None)
    }

    /// [`BuiltinKind::validate`] for an update of `old` to `object` when `old` is given: the
    /// kind's update rules too (an immutable selector, an immutable ConfigMap or Secret).
    pub fn validate_update(&self, object: &Json, old: Option<&Json>) -> Outcome {
        let schema = self.schema();
        if let Some(e) = schema.type_error(object, self.kind()) {
            return Outcome {
                decode_error: Some(self.cannot_be_handled(&e)),
                ..Outcome::default()
            };
        }
        let unknown_fields = schema
            .unknown_fields(object)
            .into_iter()
            .map(|f| format!("unknown field \"{f}\""))
            .collect();
        let scope = if self.namespaced() {
            Scope::Namespaced
        } else {
            Scope::Cluster
        };
        let group = self.group();
        let metadata = match (group, self.kind()) {
            // apimachinery ValidateNamespaceName (NameIsDNSLabel).
            ("", "Namespace") => {
                object_meta::validate_named(object, scope, &object_meta::dns_label_name)
            }
            // apps ValidateStatefulSetName (NameIsDNSLabel).
            ("apps", "StatefulSet") => {
                object_meta::validate_named(object, scope, &object_meta::dns_label_name)
            }
            // core ValidateServiceName (NameIsDNS1035Label).
            ("", "Service") => {
                object_meta::validate_named(object, scope, &object_meta::dns1035_label_name)
            }
            // apiextensions ValidateCustomResourceDefinition: a DNS subdomain that is
            // <plural>.<group>.
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                object_meta::validate_named(object, scope, &|name, prefix| {
                    crd::definition_name_problems(object, name, prefix)
                })
            }
            // rbac ValidateRBACName (path.IsValidPathSegmentName).
            ("rbac.authorization.k8s.io", _) => {
                object_meta::validate_named(object, scope, &object_meta::rbac_name)
            }
            _ => object_meta::validate(object, scope),
        };
        let mut metadata = metadata;
        if let Some(old) = old {
            // rest.BeforeUpdate validates the metadata update before the kind's own rules.
            metadata.extend(object_meta_update::errors(object, old));
        }
        // Most kinds' validation goes through core's ValidateObjectMeta (on update
        // ValidateObjectMetaUpdate), which adds validateKubeFinalizerName of each finalizer.
        if !GENERIC_OBJECT_META.contains(&group) {
            metadata.extend(finalizers::kube_name_errors(
                &FieldPath::new("metadata").child("finalizers"),
                &object_meta::finalizer_names(object),
            ));
        }
        let errors = builtin_validation::validate(group, self.kind(), object, old, metadata);
        Outcome {
            decode_error: None,
            unknown_fields,
            errors,
        }
    }
}

/// What kube-apiserver's Service storage makes of a Service `object` before it validates
/// it and allocates its addresses, done to `object` (`old`: the stored Service, on update):
/// `clusterIPs` following `clusterIP`, the IP family policy defaulted, the cluster IPs, node
/// ports and health check node port an update leaves out kept, and what a type change
/// leaves behind unchanged dropped (cluster IPs, families and policy going to ExternalName;
/// node ports away from NodePort and LoadBalancer; `allocateLoadBalancerNodePorts`,
/// `loadBalancerClass` and `status.loadBalancer` away from LoadBalancer;
/// `externalTrafficPolicy` away from the externally accessible types). What depends on the
/// cluster (the families it serves, the ranges addresses come from) is the caller's. The
/// errors are those the storage refuses the write with, the same
/// [`BuiltinKind::validate_update`] reports alone.
///
/// ```
/// use kcel_stdlib::kubernetes::builtin::prepare_service;
/// use serde_json::json;
///
/// let old = json!({"spec": {"type": "NodePort", "clusterIP": "10.0.0.9",
///     "clusterIPs": ["10.0.0.9"], "ipFamilyPolicy": "SingleStack",
///     "ports": [{"name": "http", "port": 80, "nodePort": 30080}]}});
/// let mut new = json!({"spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}]}});
/// prepare_service(&mut new, Some(&old)).unwrap();
/// assert_eq!(new["spec"]["clusterIPs"], json!(["10.0.0.9"]));
/// assert_eq!(new["spec"]["ports"][0]["nodePort"], 30080);
/// ```
pub fn prepare_service(object: &mut Json, old: Option<&Json>) -> Result<(), Vec<FieldError>> {
    builtin_validation::prepare_service(object, old)
}

/// What kube-apiserver's PersistentVolumeClaim strategy (`PrepareForCreate`,
/// `PrepareForUpdate`; `old` is the stored claim on update) does to a claim's data sources
/// before it validates it: with no `dataSourceRef`, a `dataSource` other than a claim or a
/// `snapshot.storage.k8s.io` VolumeSnapshot is dropped (unless the stored claim had one);
/// then each of `dataSource` and `dataSourceRef` given alone is copied to the other (a
/// reference to another namespace is not).
///
/// ```
/// use kcel_stdlib::kubernetes::builtin::prepare_claim;
/// use serde_json::json;
///
/// let mut claim = json!({"spec": {"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"}}});
/// prepare_claim(&mut claim, None);
/// assert_eq!(claim["spec"]["dataSourceRef"], json!({"kind": "PersistentVolumeClaim", "name": "a"}));
/// let mut claim = json!({"spec": {"dataSource": {"kind": "Pod", "name": "p"}}});
/// prepare_claim(&mut claim, None);
/// assert_eq!(claim["spec"], json!({}));
/// ```
pub fn prepare_claim(object: &mut Json, old: Option<&Json>) {
    builtin_validation::prepare_claim(object, old)
}

impl BuiltinKind {
    /// What strict field validation reports for an object read from text
    /// ([`crate::documents::Manifests::into_objects`]; `text` is the text it was read
    /// from), as kube-apiserver reports it for a body of that text: the warnings of
    /// `fieldValidation=Warn` (one each), joined by `", "` after `strict decoding error: `
    /// under `Strict`.
    ///
    /// - A JSON document is walked as sent, typed (sigs.k8s.io/json `UnmarshalStrict` into
    ///   the kind's Go types): unknown and duplicate fields in document order, a field both
    ///   unknown and duplicate named as unknown only, nothing below a field that keeps
    ///   anything ([`OpenApiSchema::strict_errors`]).
    /// - YAML: go-yaml's `line <n>: key "<k>" already set in map` for every key given twice
    ///   (apimachinery's serializer runs `yaml.YAMLToJSONStrict` on the whole body first),
    ///   then the unknown fields of the converted JSON, whose keys are sorted.
    /// - An item of a JSON `List` (no text of its own): its duplicate fields the kind has,
    ///   then its unknown fields.
    pub fn strict_errors(&self, manifest: &ManifestObject, text: &str) -> Vec<String> {
        let schema = self.schema();
        if let Some(span) = &manifest.span
            && let Some(json) = text.as_bytes().get(span.clone())
            && let Ok(found) = schema.strict_errors(json)
        {
            return found;
        }
        let mut found: Vec<String> = manifest
            .duplicates
            .iter()
            .filter(|d| !d.is_json() || schema.has_path(&d.path))
            .map(|d| d.error.to_string())
            .collect();
        found.extend(
            schema
                .unknown_fields(&manifest.object)
                .into_iter()
                .map(|f| format!("unknown field \"{f}\"")),
        );
        found
    }
}

#[cfg(test)]
mod tests;

//! A CustomResourceDefinition ready to validate its custom resources, as kube-apiserver does
//! on every write: each object is checked against the CRD's group, kind and served
//! versions, its `metadata` validated as the API server does (by the CRD's scope), then the
//! object validated by its version's compiled schema ([`Validator`]: pruning, defaults,
//! OpenAPI values, list types, the CEL rules with old/new correlation and the per-object
//! budget). Each version's rules are compiled once, when first needed; one
//! `CrdValidator` validates any number of objects, from any number of threads.

use std::sync::OnceLock;

use serde_json::Value as Json;

use super::compile_rules::CompileOptions;
use super::definition_errors::{CrdError, DefinitionError, NotServed};
use super::field_error::{FieldError, FieldPath};
use super::schema::{Schema, crd_version_schemas};
use super::validation::{Outcome, PER_OBJECT_COST_BUDGET, Validator};
use super::versions::deprecation_warning;
use crate::kubernetes::object_meta::{self, Scope, finalizers};
use crate::kubernetes::object_meta_update;

/// One version of the CRD.
struct Version {
    name: String,
    served: bool,
    /// The `Warning:` text of a request to this version when it is deprecated.
    deprecation: Option<String>,
    schema: Schema,
    schema_path: FieldPath,
    validator: OnceLock<Validator>,
}

/// A CRD's versions, each validating the resources of that version.
pub struct CrdValidator {
    group: String,
    kind: String,
    scope: Scope,
    versions: Vec<Version>,
    /// The environment rules compile in; `None`: [`rule_env`](super::rule_env).
    rule_env: Option<kcel::Env>,
    /// The memory budget of each rule evaluation ([`CompileOptions::memory_limit`]).
    memory_limit: Option<u64>,
    /// Whether rules compile in reference mode ([`CompileOptions::reference`]).
    reference: bool,
    /// Whether objects are validated by a version whose schema has errors.
    despite_schema_errors: bool,
}

impl CrdValidator {
    /// Reads a CustomResourceDefinition (`apiextensions.k8s.io/v1`, as JSON); an error
    /// names what is missing or unreadable. Rules are compiled later, per version.
    pub fn new(crd: &Json) -> Result<CrdValidator, DefinitionError> {
        let text = |pointer: &str, field: &'static str| {
            crd.pointer(pointer)
                .and_then(Json::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .ok_or(DefinitionError::Missing(field))
        };
        let group = text("/spec/group", "spec.group")?;
        let kind = text("/spec/names/kind", "spec.names.kind")?;
        let version = |name: &str| {
            crd.pointer("/spec/versions")
                .and_then(Json::as_array)
                .and_then(|vs| {
                    vs.iter()
                        .find(|v| v.get("name").and_then(Json::as_str) == Some(name))
                })
        };
        let served = |name: &str| {
            version(name)
                .and_then(|v| v.get("served"))
                .and_then(Json::as_bool)
                .unwrap_or(true)
        };
        let deprecation =
            |name: &str| version(name).and_then(|v| deprecation_warning(&crd["spec"], v));
        let versions = crd_version_schemas(crd)?
            .into_iter()
            .map(|(name, schema, schema_path)| Version {
                served: served(&name),
                deprecation: deprecation(&name),
                name,
                schema,
                schema_path,
                validator: OnceLock::new(),
            })
            .collect();
        let scope = match crd.pointer("/spec/scope").and_then(Json::as_str) {
            Some("Cluster") => Scope::Cluster,
            _ => Scope::Namespaced,
        };
        Ok(CrdValidator {
            group,
            kind,
            scope,
            versions,
            rule_env: None,
            memory_limit: CompileOptions::default().memory_limit,
            reference: false,
            despite_schema_errors: false,
        })
    }

    /// Compiles the rules in `env` instead of [`rule_env`](super::rule_env) (the newest
    /// Kubernetes' environment for stored expressions): another version's, or the
    /// environment for new expressions in which an API server checks the rules of a CRD
    /// being written (`presets::kubernetes(version, Mode::NewExpressions)`).
    pub fn with_rule_env(mut self, env: kcel::Env) -> CrdValidator {
        self.rule_env = Some(env);
        self
    }

    /// Gives every rule evaluation the memory budget `limit` instead of
    /// [`kcel::DEFAULT_MEMORY_LIMIT`] (`None`: no budget): a rule that builds or walks more
    /// fails with [`kcel::library::budget::MEMORY_EXCEEDED`] (or the traversal error), as a
    /// rule over its cost limit does. Call before the first validation.
    pub fn with_memory_limit(mut self, limit: Option<u64>) -> CrdValidator {
        self.memory_limit = limit;
        self
    }

    /// Compiles the rules in reference mode ([`CompileOptions::reference`]: no evaluation
    /// shortcut), as test suites check that both modes agree. Call before the first
    /// validation.
    pub fn with_reference_mode(mut self, reference: bool) -> CrdValidator {
        self.reference = reference;
        self
    }

    /// Validates objects even by a version whose schema has errors, with the rules that
    /// compiled (test suites that expect those errors still run their cases); without it
    /// (as `kcel validate` and the API server, which refuses such a CRD) validating by that
    /// version is [`CrdError::Schema`].
    pub fn despite_schema_errors(mut self, despite: bool) -> CrdValidator {
        self.despite_schema_errors = despite;
        self
    }

    /// The CRD's `spec.names.kind`.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The CRD's `spec.group`.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The names of the versions that have a schema, in the CRD's order.
    pub fn versions(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(|v| v.name.as_str())
    }

    /// The compiled schema of a version (compiled on first use), or Kubernetes' errors for
    /// it. `None` for a version the CRD does not have.
    pub fn version(&self, name: &str) -> Option<Result<&Validator, CrdError>> {
        let v = self.versions.iter().find(|v| v.name == name)?;
        let validator = v.validator.get_or_init(|| {
            let options = CompileOptions {
                schema_path: v.schema_path.clone(),
                memory_limit: self.memory_limit,
                reference: self.reference,
                ..CompileOptions::default()
            };
            match &self.rule_env {
                Some(env) => Validator::with_env(&v.schema, env, options),
                None => Validator::new(&v.schema, options),
            }
        });
        Some(if validator.compiled.errors.is_empty() {
            Ok(validator)
        } else {
            Err(CrdError::Schema {
                version: v.name.clone(),
                errors: validator.compiled.errors.clone(),
            })
        })
    }

    /// The validator of `version` (a version [`CrdValidator::version_of`] answered), as
    /// [`CrdValidator::version`] answers it, its schema errors aside when
    /// [`CrdValidator::despite_schema_errors`] says so.
    fn validator_of(&self, version: &str) -> Result<&Validator, CrdError> {
        let found = self
            .version(version)
            .expect("version_of returns a version of the CRD");
        match found {
            Err(CrdError::Schema { .. }) if self.despite_schema_errors => {
                let v = self.versions.iter().find(|v| v.name == version);
                Ok(v.and_then(|v| v.validator.get())
                    .expect("version() compiled the version"))
            }
            other => other,
        }
    }

    /// The `Warning:` text kube-apiserver sends with a request for `object` when its
    /// version is served but deprecated (the version's `deprecationWarning`, else upstream's
    /// default naming the version to use; [`deprecation_warning`](super::deprecation_warning));
    /// `None` otherwise.
    pub fn deprecation_of(&self, object: &Json) -> Option<&str> {
        let name = self.version_of(object).ok()?;
        let version = self.versions.iter().find(|v| v.name == name)?;
        version.deprecation.as_deref()
    }

    /// The version an object is validated by: its `apiVersion` must be of the CRD's group
    /// and a served version with a schema, its `kind` the CRD's kind.
    pub fn version_of(&self, object: &Json) -> Result<&str, NotServed> {
        let field = |f: &str| object.get(f).and_then(Json::as_str).unwrap_or_default();
        let (api_version, kind) = (field("apiVersion"), field("kind"));
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if kind != self.kind {
            return Err(NotServed::Kind {
                kind: kind.to_string(),
                expected: self.kind.clone(),
            });
        }
        if group != self.group {
            return Err(NotServed::Group {
                api_version: api_version.to_string(),
                group: self.group.clone(),
            });
        }
        match self.versions.iter().find(|v| v.name == version) {
            Some(v) if v.served => Ok(&v.name),
            Some(_) => Err(NotServed::Version(version.to_string())),
            None => Err(NotServed::UnknownVersion(api_version.to_string())),
        }
    }

    /// Every version's schema errors, in the CRD's order: what kube-apiserver rejects a
    /// CRD write for in its schemas (not structural, invalid defaults, rules that do not
    /// compile or cost too much), with field paths into the CRD
    /// (`spec.versions[0].schema.openAPIV3Schema...`). Compiles each version once.
    pub fn schema_errors(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        for v in &self.versions {
            if let Some(Err(CrdError::Schema { errors: e, .. })) = self.version(&v.name) {
                errors.extend(e);
            }
        }
        errors
    }

    /// The object as kube-apiserver stores a write of it ([`Validator::decode`]: pruned,
    /// defaulted by its version's schema), with the paths of the pruned fields.
    pub fn decode(&self, object: &Json) -> Result<(Json, Vec<String>), CrdError> {
        let version = self.version_of(object)?;
        let validator = self.validator_of(version)?;
        Ok(validator.decode(object))
    }

    /// [`CrdValidator::decode`] of an object the caller gives up: pruned and defaulted in
    /// place ([`Validator::decode_owned`]), with no copy of the document.
    pub fn decode_owned(&self, object: Json) -> Result<(Json, Vec<String>), CrdError> {
        let version = self.version_of(&object)?;
        let validator = self.validator_of(version)?;
        Ok(validator.decode_owned(object))
    }

    /// Validates `object` (an update of `old`, if given) with Kubernetes' per-object budget.
    pub fn validate(&self, object: &Json, old: Option<&Json>) -> Result<Outcome, CrdError> {
        self.validate_with_budget(object, old, PER_OBJECT_COST_BUDGET)
    }

    /// Validates with a given per-object runtime cost budget (the per-request budget an
    /// API server shares between the objects of one request).
    pub fn validate_with_budget(
        &self,
        object: &Json,
        old: Option<&Json>,
        budget: i64,
    ) -> Result<Outcome, CrdError> {
        let version = self.version_of(object)?;
        let validator = self.validator_of(version)?;
        let metadata = metadata_errors(object, old, self.scope);
        let warnings = finalizer_warnings(object, old);
        Ok(warned(
            validator.validate_after(object, old, budget, metadata),
            warnings,
        ))
    }

    /// Validates as [`CrdValidator::validate`] does an object the caller shares: the rules
    /// read it in place, with no copy (the way to validate large objects).
    pub fn validate_shared(
        &self,
        object: &std::sync::Arc<Json>,
        old: Option<&Json>,
    ) -> Result<Outcome, CrdError> {
        let version = self.version_of(object)?;
        let validator = self.validator_of(version)?;
        let metadata = metadata_errors(object, old, self.scope);
        let warnings = finalizer_warnings(object, old);
        Ok(warned(
            validator.validate_shared(object, old, PER_OBJECT_COST_BUDGET, metadata),
            warnings,
        ))
    }

    /// Validates as [`CrdValidator::validate`] does an object the caller gives up: it is
    /// pruned and defaulted in place and the rules read it in place
    /// ([`Validator::validate_owned`]: no copy of the document, the way to validate large
    /// objects). Answers the object as kube-apiserver would store it (pruned and
    /// defaulted) with the outcome. The old object, shared, is read in place too.
    pub fn validate_owned(
        &self,
        object: Json,
        old: Option<&std::sync::Arc<Json>>,
    ) -> Result<(Json, Outcome), CrdError> {
        let version = self.version_of(&object)?;
        let validator = self.validator_of(version)?;
        let metadata = metadata_errors(&object, old.map(|o| &**o), self.scope);
        let warnings = finalizer_warnings(&object, old.map(|o| &**o));
        let (object, outcome) =
            validator.validate_owned(object, old, PER_OBJECT_COST_BUDGET, metadata);
        Ok((object, warned(outcome, warnings)))
    }
}

/// The warnings of a custom resource's write for the finalizers it adds
/// (apiextensions-apiserver customResourceStrategy `WarningsOnCreate`, `WarningsOnUpdate`).
fn finalizer_warnings(object: &Json, old: Option<&Json>) -> Vec<String> {
    let old = old.map(object_meta::finalizer_names);
    finalizers::custom_resource_warnings(
        &FieldPath::new("metadata").child("finalizers"),
        &object_meta::finalizer_names(object),
        old.as_deref(),
    )
}

/// `outcome` with the strategy's `warnings` after its own, which upstream adds only when
/// the write is valid (`rest.BeforeCreate` and `BeforeUpdate` return on errors first).
fn warned(mut outcome: Outcome, warnings: Vec<String>) -> Outcome {
    if outcome.errors.is_empty() {
        outcome.warnings.extend(warnings);
    }
    outcome
}

/// The errors of `metadata` on create, and on update (`old` given) the update's errors after
/// them (apiextensions-apiserver's customResourceValidator `ValidateUpdate` and
/// `rest.BeforeUpdate`'s common fields: `ValidateObjectMetaAccessorUpdate`).
fn metadata_errors(object: &Json, old: Option<&Json>, scope: Scope) -> Vec<FieldError> {
    let mut errors = object_meta::validate(object, scope);
    if let Some(old) = old {
        errors.extend(object_meta_update::errors(object, old));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd() -> Json {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [
                    {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {"spec": {"type": "object",
                            "x-kubernetes-validations": [{"rule": "self.a <= self.b", "message": "a must not exceed b"}],
                            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}
                    }}},
                    {"name": "v0", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-validations": [{"rule": "self.missing > 1"}]
                    }}}
                ]
            }
        })
    }

    #[test]
    fn objects_are_validated_by_their_version() {
        let v = CrdValidator::new(&crd()).unwrap();
        let object = |version: &str, a: i64| {
            json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget",
                   "metadata": {"name": "w"}, "spec": {"a": a, "b": 2}})
        };
        assert!(
            v.validate(&object("v1", 1), None)
                .unwrap()
                .errors
                .is_empty()
        );
        let outcome = v.validate(&object("v1", 3), None).unwrap();
        assert_eq!(
            outcome.errors[0].to_string(),
            "spec: Invalid value: a must not exceed b"
        );
        assert_eq!(
            v.validate(&object("v0", 1), None).unwrap_err().to_string(),
            "version \"v0\" of the CRD is not served"
        );
        assert_eq!(
            v.validate(&object("v3", 1), None).unwrap_err().to_string(),
            "apiVersion \"example.com/v3\" matches no version of the CRD"
        );
        assert!(matches!(
            v.validate(&object("v2", 1), None),
            Err(CrdError::Schema { version, .. }) if version == "v2"
        ));
        let mut unnamed = object("v1", 1);
        unnamed["metadata"] = json!({"name": "Bad_Name"});
        let outcome = v.validate(&unnamed, None).unwrap();
        assert!(
            outcome.errors[0].to_string().starts_with(
                "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
            ),
            "{:?}",
            outcome.errors
        );
        let mut gadget = object("v1", 1);
        gadget["kind"] = json!("Gadget");
        assert_eq!(
            v.validate(&gadget, None).unwrap_err().to_string(),
            "kind \"Gadget\" is not the CRD's kind \"Widget\""
        );
    }

    /// The owned path (pruning and defaulting in place, the object and the old one shared
    /// with the rules) answers what the borrowed one does, and the object as `decode`
    /// stores it.
    /// A custom resource's update is checked against the stored `metadata` as
    /// apiextensions-apiserver checks it (customResourceValidator.ValidateUpdate and
    /// rest.BeforeUpdate: `ValidateObjectMetaAccessorUpdate`), before the schema's errors,
    /// whichever entry point validates it.
    #[test]
    fn custom_resource_updates_keep_their_metadata() {
        let v = CrdValidator::new(&crd()).unwrap();
        let object = |meta: Json, a: i64| {
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta,
                   "spec": {"a": a, "b": 2}})
        };
        let old = object(
            json!({"name": "w", "uid": "u1", "resourceVersion": "3",
                   "creationTimestamp": "2020-01-01T00:00:00Z"}),
            1,
        );
        let changed = object(
            json!({"name": "w", "uid": "u2", "deletionGracePeriodSeconds": 5}),
            3,
        );
        let expected = [
            "metadata.uid: Invalid value: \"u2\": field is immutable",
            "metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable",
            "spec: Invalid value: a must not exceed b",
        ];
        let texts = |o: Outcome| o.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        assert_eq!(texts(v.validate(&changed, Some(&old)).unwrap()), expected);
        let shared = std::sync::Arc::new(changed.clone());
        assert_eq!(
            texts(v.validate_shared(&shared, Some(&old)).unwrap()),
            expected
        );
        let old = std::sync::Arc::new(old);
        let (_, owned) = v.validate_owned(changed, Some(&old)).unwrap();
        assert_eq!(texts(owned), expected);
        // What the request leaves out is the stored object's: no error.
        let kept = object(json!({"name": "w"}), 1);
        assert!(v.validate(&kept, Some(&old)).unwrap().errors.is_empty());
        // On create nothing is compared.
        assert!(
            v.validate(&object(json!({"name": "w", "uid": "x"}), 1), None)
                .unwrap()
                .errors
                .is_empty()
        );
    }

    #[test]
    fn validating_an_owned_object_is_validating_a_borrowed_one() {
        let v = CrdValidator::new(&json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": {"type": "object",
                        "x-kubernetes-validations": [
                            {"rule": "self.a <= self.b", "message": "a must not exceed b"},
                            {"rule": "self.b == oldSelf.b", "message": "b is immutable"}],
                        "properties": {"a": {"type": "integer", "maximum": 10},
                                       "b": {"type": "integer", "default": 5}}}}
                }}}]
            }
        }))
        .unwrap();
        let object = |spec: Json| {
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": "w", "namespace": "n"}, "spec": spec})
        };
        let cases = [
            (
                object(json!({"a": 6, "x": 1})),
                Some(object(json!({"a": 1, "b": 4}))),
            ),
            (object(json!({"a": 1, "x": 1})), None),
            (
                object(json!({"a": 11})),
                Some(object(json!({"a": 11, "b": 5, "y": 2}))),
            ),
        ];
        for (obj, old) in cases {
            let borrowed = v.validate(&obj, old.as_ref()).unwrap();
            let old = old.map(std::sync::Arc::new);
            let (stored, owned) = v.validate_owned(obj.clone(), old.as_ref()).unwrap();
            let texts = |o: &Outcome| o.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>();
            assert_eq!(texts(&owned), texts(&borrowed), "{obj}");
            if obj["spec"]["a"] == 6 {
                // (Something to compare: both rules fail on the first case.)
                assert_eq!(texts(&owned).len(), 2, "{obj}");
            }
            assert_eq!(owned.warnings, borrowed.warnings, "{obj}");
            assert_eq!(owned.remaining_budget, borrowed.remaining_budget, "{obj}");
            assert_eq!(stored, v.decode(&obj).unwrap().0, "{obj}");
            assert_eq!(
                v.decode_owned(obj.clone()).unwrap(),
                v.decode(&obj).unwrap()
            );
        }
    }

    #[test]
    fn decode_prunes_and_defaults_and_schema_errors_cover_every_version() {
        let mut c = crd();
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["b"]["default"] = json!(7);
        let v = CrdValidator::new(&c).unwrap();
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w"}, "spec": {"a": 1, "extra": true}});
        let (decoded, unknown) = v.decode(&object).unwrap();
        assert_eq!(unknown, ["spec.extra"]);
        assert_eq!(decoded["spec"], json!({"a": 1, "b": 7}));
        assert_eq!(decoded["metadata"], json!({"name": "w"}));
        let errors = v.schema_errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0]
                .to_string()
                .starts_with("spec.versions[2].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value:"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn a_crd_without_group_or_kind_is_an_error() {
        let mut c = crd();
        c["spec"]["group"] = json!("");
        assert_eq!(
            CrdValidator::new(&c).err().unwrap().to_string(),
            "a CustomResourceDefinition needs spec.group"
        );
    }
}

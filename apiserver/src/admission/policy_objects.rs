//! Writes of the policy objects themselves: defaulted, validated as kube-apiserver validates
//! them (a policy whose expressions do not compile is 422 Invalid with the compiler's text),
//! and a policy's `status` (`observedGeneration`, `typeChecking`) set for the generation
//! written (upstream's type-checking controller does this just after the write).

use kcel_stdlib::kubernetes::admission::api::{GroupVersionKind, GroupVersionResource};
use kcel_stdlib::kubernetes::admission::mutating;
use kcel_stdlib::kubernetes::admission::{
    CompiledPolicy, MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, SchemaResolver,
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, type_check, validate_binding,
};
use kcel_stdlib::kubernetes::crd::Schema;
use serde_json::{Map, Value, json};

use crate::crd::definition::invalid_error;
use crate::error::ApiError;
use crate::object::Object;
use crate::resource::{
    MUTATINGADMISSIONPOLICIES, MUTATINGADMISSIONPOLICYBINDINGS, Resource,
    VALIDATINGADMISSIONPOLICIES, VALIDATINGADMISSIONPOLICYBINDINGS,
};

/// Whether `resource` is a policy or binding (which policies never judge).
pub fn is_policy_resource(resource: &Resource) -> bool {
    [
        VALIDATINGADMISSIONPOLICIES,
        VALIDATINGADMISSIONPOLICYBINDINGS,
        MUTATINGADMISSIONPOLICIES,
        MUTATINGADMISSIONPOLICYBINDINGS,
    ]
    .contains(resource)
}

fn child<'a>(map: &'a mut Map<String, Value>, field: &str) -> Option<&'a mut Map<String, Value>> {
    map.get_mut(field).and_then(Value::as_object_mut)
}

/// `SetDefaults_MatchResources` and `SetDefaults_Rule` on a stored object's JSON.
fn default_match_resources(resources: &mut Map<String, Value>) {
    resources
        .entry("matchPolicy")
        .or_insert_with(|| json!("Equivalent"));
    for selector in ["namespaceSelector", "objectSelector"] {
        resources.entry(selector).or_insert_with(|| json!({}));
    }
    for rules in ["resourceRules", "excludeResourceRules"] {
        if let Some(list) = resources.get_mut(rules).and_then(Value::as_array_mut) {
            for rule in list.iter_mut().filter_map(Value::as_object_mut) {
                rule.entry("scope").or_insert_with(|| json!("*"));
            }
        }
    }
}

/// The defaults kube-apiserver stores with a policy or binding (`defaults.go`).
fn set_defaults(resource: &Resource, object: &mut Object) {
    let Some(spec) = child(object, "spec") else {
        return;
    };
    if *resource == VALIDATINGADMISSIONPOLICIES || *resource == MUTATINGADMISSIONPOLICIES {
        spec.entry("failurePolicy").or_insert_with(|| json!("Fail"));
        if let Some(constraints) = child(spec, "matchConstraints") {
            default_match_resources(constraints);
        }
    } else if let Some(resources) = child(spec, "matchResources") {
        default_match_resources(resources);
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    resource: &Resource,
    object: &Object,
) -> Result<T, ApiError> {
    serde_json::from_value(Value::Object(object.clone())).map_err(|e| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): {e}",
            resource.kind
        ))
    })
}

/// Validates a policy or binding being written (`old` on update) and sets a policy's
/// status; `Err` is the 422 with upstream's field errors.
pub fn validate(
    crds: &crate::crd::Crds,
    resource: &Resource,
    subresource: Option<&str>,
    object: &mut Object,
    old: Option<&Object>,
) -> Result<(), ApiError> {
    if subresource.is_some() {
        return Ok(());
    }
    set_defaults(resource, object);
    // Upstream defaults while decoding, before the update compares specs: a write that
    // changes the spec only by dropping defaults (an apply replacing a rule list) keeps
    // the generation.
    if let Some(old) = old
        && old.get("spec") == object.get("spec")
        && let Some(generation) = old.get("metadata").and_then(|m| m.get("generation"))
    {
        let generation = generation.clone();
        crate::object::metadata_mut(object).insert("generation".to_owned(), generation);
    }
    let name = crate::object::meta_str(object, "name").to_owned();
    let group_kind = resource.group_kind();
    let invalid = |errors: &[kcel_stdlib::kubernetes::admission::FieldError]| {
        invalid_error(&group_kind, resource.group, resource.kind, &name, errors)
    };
    if *resource == MUTATINGADMISSIONPOLICYBINDINGS {
        let binding: MutatingAdmissionPolicyBinding = decode(resource, object)?;
        let errors = mutating::validate_binding(&binding);
        return if errors.is_empty() {
            Ok(())
        } else {
            Err(invalid(&errors))
        };
    }
    if *resource == MUTATINGADMISSIONPOLICIES {
        let policy: MutatingAdmissionPolicy = decode(resource, object)?;
        let compiled = mutating::CompiledMutatingPolicy::new(policy);
        return if compiled.errors().is_empty() {
            Ok(())
        } else {
            Err(invalid(compiled.errors()))
        };
    }
    if *resource == VALIDATINGADMISSIONPOLICYBINDINGS {
        let binding: ValidatingAdmissionPolicyBinding = decode(resource, object)?;
        let errors = validate_binding(&binding);
        return if errors.is_empty() {
            Ok(())
        } else {
            Err(invalid(&errors))
        };
    }
    let policy: ValidatingAdmissionPolicy = decode(resource, object)?;
    let compiled = match old {
        Some(old) => {
            let old: ValidatingAdmissionPolicy = decode(resource, old)?;
            CompiledPolicy::updated(policy.clone(), &old)
        }
        None => CompiledPolicy::new(policy.clone()),
    };
    if !compiled.errors().is_empty() {
        return Err(invalid(compiled.errors()));
    }
    let generation = crate::object::metadata_mut(object)
        .get("generation")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let warnings: Vec<Value> = type_check(&policy, &ServedSchemas(crds))
        .into_iter()
        .map(|w| json!({"fieldRef": w.field_ref, "warning": w.warning}))
        .collect();
    let type_checking = if warnings.is_empty() {
        json!({})
    } else {
        json!({"expressionWarnings": warnings})
    };
    object.insert(
        "status".to_owned(),
        json!({"observedGeneration": generation, "typeChecking": type_checking}),
    );
    Ok(())
}

/// The schemas the server knows for type checking: the structural schemas of custom
/// resources, and the served OpenAPI schemas of built-in kinds with their references
/// inlined as kube-controller-manager's resolver inlines them
/// ([`kcel_stdlib::kubernetes::builtin::OpenApiSchema::structural`]).
struct ServedSchemas<'a>(&'a crate::crd::Crds);

impl SchemaResolver for ServedSchemas<'_> {
    fn kinds_for(&self, resource: &GroupVersionResource) -> Vec<GroupVersionKind> {
        crate::served::find(
            self.0,
            &resource.group,
            &resource.version,
            &resource.resource,
        )
        .map(|r| GroupVersionKind {
            group: r.group.into(),
            version: r.version.into(),
            kind: r.kind.into(),
        })
        .into_iter()
        .collect()
    }

    fn schema(&self, kind: &GroupVersionKind) -> Option<Schema> {
        for crd in self.0.all() {
            for version in &crd.versions {
                let r = version.resource;
                if r.group == kind.group && r.version == kind.version && r.kind == kind.kind {
                    return crate::crd::apply_schema(Some(&crd), r).cloned();
                }
            }
        }
        let served = crate::resource::SERVED
            .iter()
            .find(|r| r.group == kind.group && r.version == kind.version && r.kind == kind.kind)?;
        crate::openapi::schema_of(served)?.structural()
    }
}

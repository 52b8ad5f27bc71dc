//! CustomResourceDefinition writes: upstream's defaults, the library's validation of the CRD
//! (the parts of `kcel_stdlib::kubernetes::crd::definition_errors`: upstream's
//! `ValidateCustomResourceDefinition`, `...Spec`, `...Names`, the conversion settings,
//! `...SpecUpdate`, then the schemas' structural, default, rule compilation and cost checks,
//! with the validators this server builds cached), and the status the naming and
//! establishing controllers would write (`NamesAccepted`, `Established`, `acceptedNames`,
//! `storedVersions`), set at write time so that a CRD is served as soon as its write is
//! acknowledged.

use std::sync::Arc;

use serde_json::{Value, json};

use kcel_stdlib::kubernetes::crd::{
    CrdValidator, FieldError, condition_true, default_names, definition_errors_before_schemas,
    definition_schema_errors,
};

use super::conversion_spec::{Strategy, default_conversion};
use super::registry::{
    Crds, CustomResource, PrinterColumn, ScalePaths, ServedVersion, VERBS, intern_resource,
    intern_str, intern_strs,
};
use crate::error::ApiError;
use crate::object::{self, Object};
use crate::resource::Resource;

/// The finalizer that deletes a CRD's objects before the CRD goes.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// Upstream's defaults for a CRD spec (`SetDefaults_CustomResourceDefinitionSpec`): the
/// library's of the names ([`default_names`]: `names.singular`, `names.listKind`), and the
/// `None` conversion strategy.
pub fn default_spec(crd: &mut Object) {
    let mut value = Value::Object(std::mem::take(crd));
    default_names(&mut value);
    if let Value::Object(defaulted) = value {
        *crd = defaulted;
    }
    let Some(spec) = crd.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if !spec.get("conversion").is_some_and(Value::is_object) {
        spec.insert("conversion".into(), json!({"strategy": "None"}));
    }
    default_conversion(spec);
}

/// 422 Invalid naming `kind`.`group` `name`, with the library's field errors as causes.
pub fn invalid_error(
    group_kind: &str,
    group: &str,
    kind: &str,
    name: &str,
    errors: &[FieldError],
) -> ApiError {
    ApiError {
        code: 422,
        reason: "Invalid",
        message: kcel_stdlib::kubernetes::crd::invalid_message(group_kind, name, errors),
        details: Some(Box::new(crate::status::StatusDetails {
            name: name.to_owned(),
            group: group.to_owned(),
            kind: kind.to_owned(),
            causes: errors
                .iter()
                .map(|e| crate::status::StatusCause {
                    reason: e.error_type.reason(),
                    message: e.body(),
                    field: e.path.to_string(),
                })
                .collect(),
            ..Default::default()
        })),
    }
}

/// Checks and completes a CRD being written (created when `old` is `None`): defaults,
/// validation (422 with upstream's texts), the cleanup finalizer at create, and the status.
pub fn admit(
    crds: &Crds,
    resource: &Resource,
    crd: &mut Object,
    old: Option<&Object>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    default_spec(crd);
    let value = Value::Object(crd.clone());
    let name = object::meta_str(crd, "name").to_owned();
    let old_value = old.map(|o| Value::Object(o.clone()));
    let mut errors = definition_errors_before_schemas(&value, old_value.as_ref());
    if errors.is_empty() {
        VALIDATORS_BUILT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match super::registry::validator(&value) {
            Ok(v) => {
                errors.extend(definition_schema_errors(&v, &value, old_value.as_ref()));
                if errors.is_empty() {
                    remember(&value["spec"], Arc::new(v));
                }
            }
            Err(e) => errors.push(e.field_error()),
        }
    }
    if !errors.is_empty() {
        return Err(invalid_error(
            &resource.group_kind(),
            resource.group,
            resource.kind,
            &name,
            &errors,
        ));
    }
    if old.is_none() {
        let meta = object::metadata_mut(crd);
        let finalizers = meta.entry("finalizers").or_insert_with(|| json!([]));
        if let Some(list) = finalizers.as_array_mut()
            && !list.iter().any(|f| f == CLEANUP_FINALIZER)
        {
            list.push(Value::from(CLEANUP_FINALIZER));
        }
    }
    let known: Vec<String> = old
        .map(|o| unrecognized_formats(&Value::Object(o.clone())))
        .unwrap_or_default();
    for format in unrecognized_formats(&value) {
        let text = format!("unrecognized format {format:?}");
        if !known.contains(&format) && !warnings.contains(&text) {
            warnings.push(text);
        }
    }
    set_status(crds, crd, old);
    Ok(())
}

/// The `format`s of string schemas in the CRD's versions that Kubernetes does not validate,
/// which upstream warns about when a CRD is written (`WarningsOnCreate`: `unrecognized format
/// "<format>"`), in schema order.
fn unrecognized_formats(crd: &Value) -> Vec<String> {
    fn walk(s: &Value, depth: usize, out: &mut Vec<String>) {
        let Some(m) = s.as_object() else {
            return;
        };
        if depth > 1000 {
            return;
        }
        if let (Some("string"), Some(f)) = (
            m.get("type").and_then(Value::as_str),
            m.get("format").and_then(Value::as_str),
        ) && !f.is_empty()
            && kcel_stdlib::kubernetes::strfmt::supported(f).is_none()
            && !out.iter().any(|o| o == f)
        {
            out.push(f.to_owned());
        }
        for key in [
            "properties",
            "patternProperties",
            "definitions",
            "dependencies",
        ] {
            if let Some(children) = m.get(key).and_then(Value::as_object) {
                children.values().for_each(|c| walk(c, depth + 1, out));
            }
        }
        for key in ["items", "additionalProperties", "additionalItems", "not"] {
            match m.get(key) {
                Some(Value::Array(a)) => a.iter().for_each(|c| walk(c, depth + 1, out)),
                Some(c) => walk(c, depth + 1, out),
                None => {}
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for c in m.get(key).and_then(Value::as_array).into_iter().flatten() {
                walk(c, depth + 1, out);
            }
        }
    }
    let mut out = Vec::new();
    for v in crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(schema) = v.pointer("/schema/openAPIV3Schema") {
            walk(schema, 0, &mut out);
        }
    }
    out
}

/// A condition, keeping the old transition time when its status did not change.
fn condition(old: Option<&Value>, kind: &str, status: bool, reason: &str, message: &str) -> Value {
    let status = if status { "True" } else { "False" };
    let since = old
        .and_then(|o| o.pointer("/status/conditions"))
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c["type"] == kind && c["status"] == status)
        })
        .and_then(|c| c.get("lastTransitionTime").cloned())
        .unwrap_or_else(|| Value::from(object::now_timestamp()));
    json!({"type": kind, "status": status, "lastTransitionTime": since, "reason": reason, "message": message})
}

/// Why the CRD's names cannot be accepted: another CRD of the group already serves one.
fn name_conflict(crds: &Crds, crd: &Object) -> Option<(&'static str, String)> {
    let spec = crd.get("spec")?;
    let group = text(spec, "/group");
    let me = object::meta_str(crd, "name");
    let names = &spec["names"];
    for other in crds.all() {
        if other.name == me || other.group() != group {
            continue;
        }
        let theirs = &other.spec["names"];
        let taken = |v: &str| {
            !v.is_empty()
                && (["plural", "singular"].iter().any(|f| theirs[f] == v)
                    || theirs["shortNames"]
                        .as_array()
                        .is_some_and(|s| s.iter().any(|x| x == v)))
        };
        for field in ["plural", "singular"] {
            let v = text(names, &format!("/{field}"));
            if taken(v) {
                let reason = if field == "plural" {
                    "PluralConflict"
                } else {
                    "SingularConflict"
                };
                return Some((reason, format!("{v:?} is already in use")));
            }
        }
        for s in names["shortNames"].as_array().into_iter().flatten() {
            let s = s.as_str().unwrap_or("");
            if taken(s) {
                return Some(("ShortNamesConflict", format!("{s:?} is already in use")));
            }
        }
        for field in ["kind", "listKind"] {
            let v = text(names, &format!("/{field}"));
            if !v.is_empty() && (theirs["kind"] == v || theirs["listKind"] == v) {
                let reason = if field == "kind" {
                    "KindConflict"
                } else {
                    "ListKindConflict"
                };
                return Some((reason, format!("{v:?} is already in use")));
            }
        }
    }
    None
}

/// The status the naming and establishing controllers would write.
fn set_status(crds: &Crds, crd: &mut Object, old: Option<&Object>) {
    let old_value = old.map(|o| Value::Object(o.clone()));
    let conflict = name_conflict(crds, crd);
    let spec = crd.get("spec").cloned().unwrap_or(Value::Null);
    let mut stored: Vec<Value> = old_value
        .as_ref()
        .and_then(|o| o.pointer("/status/storedVersions"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for v in spec["versions"].as_array().into_iter().flatten() {
        if v["storage"] == true && !stored.contains(&v["name"]) {
            stored.push(v["name"].clone());
        }
    }
    let accepted = conflict.is_none();
    let (reason, message) = match &conflict {
        None => ("NoConflicts", "no conflicts found".to_owned()),
        Some((r, m)) => (*r, m.clone()),
    };
    let mut conditions = vec![condition(
        old_value.as_ref(),
        "NamesAccepted",
        accepted,
        reason,
        &message,
    )];
    if accepted {
        conditions.push(condition(
            old_value.as_ref(),
            "Established",
            true,
            "InitialNamesAccepted",
            "the initial names have been accepted",
        ));
    } else {
        conditions.push(condition(
            old_value.as_ref(),
            "Established",
            false,
            "NotAccepted",
            "not all names are accepted",
        ));
    }
    if !object::meta_str(crd, "deletionTimestamp").is_empty()
        || old.is_some_and(|o| !object::meta_str(o, "deletionTimestamp").is_empty())
    {
        conditions.push(condition(
            old_value.as_ref(),
            "Terminating",
            true,
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress",
        ));
    }
    let mut names = spec["names"].clone();
    if !accepted {
        names = old_value
            .as_ref()
            .and_then(|o| o.pointer("/status/acceptedNames"))
            .cloned()
            .unwrap_or_else(|| json!({"plural": "", "kind": ""}));
    }
    crd.insert(
        "status".into(),
        json!({"conditions": conditions, "acceptedNames": names, "storedVersions": stored}),
    );
}

/// The strings of the list `v` (anything else: none).
pub(super) fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// How many validators compiled at CRD writes are kept for the registry to take.
const RECENT: usize = 8;

/// Validators compiled when CRDs were written, by spec, so that the registry serves the
/// very validator the write checked instead of compiling the CRD's rules again.
type Recent = std::sync::Mutex<Vec<(Value, Arc<CrdValidator>)>>;

fn recent() -> &'static Recent {
    static RECENT_VALIDATORS: std::sync::OnceLock<Recent> = std::sync::OnceLock::new();
    RECENT_VALIDATORS.get_or_init(Default::default)
}

fn remember(spec: &Value, validator: Arc<CrdValidator>) {
    let mut recent = recent().lock().unwrap_or_else(|e| e.into_inner());
    recent.retain(|(s, _)| s != spec);
    if recent.len() == RECENT {
        recent.remove(0);
    }
    recent.push((spec.clone(), validator));
}

fn recalled(spec: &Value) -> Option<Arc<CrdValidator>> {
    let recent = recent().lock().unwrap_or_else(|e| e.into_inner());
    recent
        .iter()
        .find(|(s, _)| s == spec)
        .map(|(_, v)| v.clone())
}

/// How many CRD validators have been built (each compiles a version's rules once, on first
/// use): the compile-once cache's misses.
pub static VALIDATORS_BUILT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What a stored CRD serves: `None` unless it is established. `previous` (the entry served
/// before this write) lends its compiled validator when the spec did not change.
pub fn served(crd: &Value, previous: Option<&CustomResource>) -> Option<CustomResource> {
    if !condition_true(crd, "Established") {
        return None;
    }
    let spec = crd.get("spec")?.clone();
    let name = crd["metadata"]["name"].as_str()?.to_owned();
    let validator = match previous {
        Some(p) if p.spec == spec => p.validator.clone(),
        _ => match recalled(&spec) {
            Some(v) => v,
            None => {
                VALIDATORS_BUILT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Arc::new(super::registry::validator(crd).ok()?)
            }
        },
    };
    let names = &spec["names"];
    let group = intern_str(text(&spec, "/group"));
    let plural = intern_str(text(names, "/plural"));
    let singular = intern_str(text(names, "/singular"));
    let kind = intern_str(text(names, "/kind"));
    let list_kind = intern_str(text(names, "/listKind"));
    let short_names = intern_strs(&strings(&names["shortNames"]));
    let namespaced = text(&spec, "/scope") != "Cluster";
    let mut versions = Vec::new();
    for v in spec["versions"].as_array().into_iter().flatten() {
        if v["served"] != true {
            continue;
        }
        let scale = v.pointer("/subresources/scale").map(|s| ScalePaths {
            spec_replicas: text(s, "/specReplicasPath").to_owned(),
            status_replicas: text(s, "/statusReplicasPath").to_owned(),
            label_selector: s["labelSelectorPath"].as_str().map(str::to_owned),
        });
        let resource = intern_resource(Resource {
            group,
            version: intern_str(text(v, "/name")),
            plural,
            singular,
            kind,
            list_kind,
            namespaced,
            short_names,
            verbs: VERBS,
            status: v.pointer("/subresources/status").is_some(),
            scale: scale.is_some(),
        });
        let columns = v["additionalPrinterColumns"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| PrinterColumn {
                name: text(c, "/name").to_owned(),
                type_: text(c, "/type").to_owned(),
                format: text(c, "/format").to_owned(),
                description: text(c, "/description").to_owned(),
                priority: c["priority"].as_i64().unwrap_or(0),
                json_path: text(c, "/jsonPath").to_owned(),
            })
            .collect();
        versions.push(ServedVersion {
            resource,
            storage: v["storage"] == true,
            deprecation: kcel_stdlib::kubernetes::crd::deprecation_warning(&spec, v),
            columns,
            scale,
            schema: v.pointer("/schema/openAPIV3Schema").cloned(),
            selectable_fields: v["selectableFields"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| text(f, "/jsonPath").to_owned())
                .collect(),
        });
    }
    Some(CustomResource {
        name,
        categories: strings(&names["categories"]),
        terminating: crd
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null()),
        storage_version: spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["storage"] == true)
            .map(|v| text(v, "/name").to_owned())
            .unwrap_or_default(),
        conversion: Strategy::of(&spec),
        spec,
        validator,
        versions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Object {
        let v = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "crontabs.stable.example.com"},
            "spec": {
                "group": "stable.example.com",
                "scope": "Namespaced",
                "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"]},
                "versions": [
                    {"name": "v1beta1", "served": true, "storage": false, "deprecated": true,
                     "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object"}}}
                ]
            }
        });
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_valid_crd_is_defaulted_and_established() {
        let mut c = crd();
        let mut warnings = Vec::new();
        c["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"] = json!({"a": {"type": "string", "format": "date-time"},
                   "b": {"type": "string", "format": "colour"},
                   "c": {"type": "integer", "format": "int32"}});
        admit(
            &Crds::default(),
            &crate::resource::CUSTOMRESOURCEDEFINITIONS,
            &mut c,
            None,
            &mut warnings,
        )
        .unwrap();
        assert_eq!(warnings, ["unrecognized format \"colour\""]);
        let v = Value::Object(c);
        assert_eq!(v["spec"]["names"]["singular"], "crontab");
        assert_eq!(v["spec"]["names"]["listKind"], "CronTabList");
        assert_eq!(v["spec"]["conversion"]["strategy"], "None");
        assert_eq!(v["status"]["storedVersions"], json!(["v1"]));
        assert!(condition_true(&v, "Established"));
        assert!(condition_true(&v, "NamesAccepted"));
        assert_eq!(v["metadata"]["finalizers"], json!([CLEANUP_FINALIZER]));
        let served = served(&v, None).unwrap();
        assert_eq!(served.versions.len(), 2);
        assert_eq!(
            served.versions[0].deprecation.as_deref(),
            Some(
                "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab"
            )
        );
        assert_eq!(
            served.versions[1].resource.group_kind(),
            "CronTab.stable.example.com"
        );
    }

    #[test]
    fn spec_errors_are_upstreams() {
        let mut c = crd();
        c["metadata"]["name"] = json!("wrong.stable.example.com");
        c["spec"]["group"] = json!("nodot");
        c["spec"]["versions"][0]["storage"] = json!(true);
        let e = admit(
            &Crds::default(),
            &crate::resource::CUSTOMRESOURCEDEFINITIONS,
            &mut c,
            None,
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(e.code, 422);
        assert!(
            e.message.starts_with(
                "CustomResourceDefinition.apiextensions.k8s.io \"wrong.stable.example.com\" is invalid: [metadata.name: Invalid value: \"wrong.stable.example.com\": must be spec.names.plural+\".\"+spec.group, spec.group: Invalid value: \"nodot\": should be a domain with at least one dot"
            ),
            "{}",
            e.message
        );
        assert!(e.message.contains("spec.versions: Invalid value: \"\": must have exactly one version marked as storage version"), "{}", e.message);
    }

    #[test]
    fn an_update_leaving_a_schema_as_it_was_does_not_check_its_rules_again() {
        let mut stored = crd();
        stored["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = json!({"type": "object",
            "x-kubernetes-validations": [{"rule": "self.nope > 1"}]});
        let mut new = stored.clone();
        new["metadata"]["labels"] = json!({"a": "b"});
        let r = &crate::resource::CUSTOMRESOURCEDEFINITIONS;
        assert!(admit(&Crds::default(), r, &mut new.clone(), None, &mut Vec::new()).is_err());
        admit(
            &Crds::default(),
            r,
            &mut new,
            Some(&stored),
            &mut Vec::new(),
        )
        .unwrap();
        let mut changed = stored.clone();
        changed["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"]
            [0]["rule"] = json!("self.nope > 2");
        assert!(
            admit(
                &Crds::default(),
                r,
                &mut changed,
                Some(&stored),
                &mut Vec::new()
            )
            .is_err()
        );
    }
}

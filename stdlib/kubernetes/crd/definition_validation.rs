//! The validation of a CustomResourceDefinition itself, as kube-apiserver checks a write of
//! one (apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`:
//! `ValidateCustomResourceDefinition`, `...Spec`, `...Names`, `...SpecUpdate`), after the
//! defaults upstream gives a spec (`SetDefaults_CustomResourceDefinitionSpec`:
//! `names.singular`, `names.listKind`): the name (`<plural>.<group>`), group, scope,
//! versions (names, one storage version, schemas present, printer columns, selectable
//! fields, the scale subresource's paths), the names (`plural`, `singular`, `kind`,
//! `listKind`, short names, categories), on update the immutable fields, and — when all
//! that holds — the schemas' errors ([`CrdValidator::schema_errors`]: structural schemas,
//! defaults, rule compilation and cost), leaving out on update those of a schema the update
//! does not change.
//!
//! The conversion settings are checked by [`conversion_errors`] (after the spec's, before the
//! update's, as upstream orders them). Left out: the `status` (the controllers write it), and
//! the metadata rules other than the name's ([`crate::kubernetes::object_meta`]).
//!
//! ```
//! use kcel_stdlib::kubernetes::crd::definition_errors;
//! use serde_json::json;
//!
//! let crd = json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "crontabs.example.com"},
//!     "spec": {"group": "stable.example.com", "scope": "Namespaced",
//!         "names": {"plural": "crontabs", "kind": "CronTab"},
//!         "versions": [{"name": "v1", "served": true, "storage": true,
//!             "schema": {"openAPIV3Schema": {"type": "object"}}}]}
//! });
//! assert_eq!(
//!     definition_errors(&crd, None)[0].to_string(),
//!     "metadata.name: Invalid value: \"crontabs.example.com\": must be \
//!      spec.names.plural+\".\"+spec.group"
//! );
//! ```

use serde_json::Value as Json;

use super::conversion_validation::{allow_invalid_ca_bundle, conversion_errors};
use super::definition::CrdValidator;
use super::field_error::{ErrorType, FieldError, FieldPath};
use super::schema::Schema;
use super::selectable::selectable_field_errors;
use crate::kubernetes::named_formats::messages;
use crate::kubernetes::object_meta;

/// The string at `pointer` in `v` (empty when absent or not a string).
fn text<'a>(v: &'a Json, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Json::as_str).unwrap_or("")
}

/// The path of a dotted field name (`spec.names.kind`).
fn path(text: &str) -> FieldPath {
    let mut parts = text.split('.');
    let mut p = FieldPath::new(parts.next().unwrap_or(""));
    for part in parts {
        p = p.child(part);
    }
    p
}

fn invalid(at: FieldPath, value: &str, detail: &str) -> FieldError {
    FieldError::new(at, ErrorType::Invalid, value, detail)
}

fn required(at: FieldPath) -> FieldError {
    FieldError::new(at, ErrorType::Required, "", "")
}

fn dns1035(at: FieldPath, value: &str, prefix: &str) -> Option<FieldError> {
    let problems = messages("dns1035Label", value);
    (!problems.is_empty()).then(|| invalid(at, value, &format!("{prefix}{}", problems.join(","))))
}

/// Upstream's defaults of a CRD's names (`SetDefaults_CustomResourceDefinitionSpec`):
/// `names.singular` (the kind in lower case) and `names.listKind` (`<Kind>List`) when
/// empty. (The conversion strategy's default is the API server's.)
pub fn default_names(crd: &mut Json) {
    let Some(names) = crd.pointer_mut("/spec/names").and_then(Json::as_object_mut) else {
        return;
    };
    let kind = names
        .get("kind")
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned();
    let empty = |names: &serde_json::Map<String, Json>, field: &str| {
        names
            .get(field)
            .and_then(Json::as_str)
            .unwrap_or("")
            .is_empty()
    };
    if empty(names, "singular") {
        names.insert("singular".into(), Json::from(kind.to_lowercase()));
    }
    if empty(names, "listKind") && !kind.is_empty() {
        names.insert("listKind".into(), Json::from(format!("{kind}List")));
    }
}

/// What is wrong with `name` as the name (or, `prefix`, the generated-name prefix) of
/// `crd`: upstream's name rule of CRDs, a DNS subdomain that is `<plural>.<group>`.
pub fn definition_name_problems(crd: &Json, name: &str, prefix: bool) -> Vec<String> {
    let spec = &crd["spec"];
    let mut problems = object_meta::dns_subdomain_name(name, prefix);
    if name != format!("{}.{}", text(spec, "/names/plural"), text(spec, "/group")) {
        problems.push("must be spec.names.plural+\".\"+spec.group".to_owned());
    }
    problems
}

/// The errors of a CRD's name ([`definition_name_problems`]), spec and names, in
/// upstream's order, without its schemas' errors. `crd` is read as defaulted
/// ([`default_names`]).
pub fn definition_spec_errors(crd: &Json) -> Vec<FieldError> {
    let name = crd["metadata"]["name"].as_str().unwrap_or("");
    let mut errors: Vec<FieldError> = definition_name_problems(crd, name, false)
        .iter()
        .map(|p| invalid(path("metadata.name"), name, p))
        .collect();
    errors.extend(body_errors(crd));
    errors
}

/// The errors of a CRD's spec and names, its name left out.
fn body_errors(crd: &Json) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let spec = &crd["spec"];
    let group = text(spec, "/group");
    if group.is_empty() {
        errors.push(required(path("spec.group")));
    } else {
        let problems = messages("dns1123Subdomain", group);
        if !problems.is_empty() {
            errors.push(invalid(path("spec.group"), group, &problems.join(",")));
        } else if group.split('.').count() < 2 {
            errors.push(invalid(
                path("spec.group"),
                group,
                "should be a domain with at least one dot",
            ));
        }
    }
    match text(spec, "/scope") {
        "" => errors.push(required(path("spec.scope"))),
        "Cluster" | "Namespaced" => {}
        other => errors.push(FieldError::new(
            path("spec.scope"),
            ErrorType::NotSupported,
            other,
            "supported values: \"Cluster\", \"Namespaced\"",
        )),
    }
    let versions = spec["versions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    if versions.is_empty() {
        errors.push(invalid(
            path("spec.versions"),
            "",
            "must have exactly one version marked as storage version",
        ));
    }
    let mut seen = Vec::new();
    let mut storage = 0;
    for (i, v) in versions.iter().enumerate() {
        let at = path("spec.versions").index(i);
        let vname = v["name"].as_str().unwrap_or("");
        if let Some(e) = dns1035(at.child("name"), vname, "") {
            errors.push(e);
        }
        if seen.contains(&vname) {
            errors.push(invalid(
                path("spec.versions"),
                "",
                "must contain unique version names",
            ));
        }
        seen.push(vname);
        if v["storage"] == true {
            storage += 1;
        }
        if v.pointer("/schema/openAPIV3Schema").is_none() {
            errors.push(FieldError::new(
                at.child("schema").child("openAPIV3Schema"),
                ErrorType::Required,
                "",
                "schemas are required",
            ));
        }
        if let Some(columns) = v["additionalPrinterColumns"].as_array() {
            for (j, c) in columns.iter().enumerate() {
                let cat = at.child("additionalPrinterColumns").index(j);
                if text(c, "/name").is_empty() {
                    errors.push(required(cat.child("name")));
                }
                match text(c, "/type") {
                    "" => errors.push(required(cat.child("type"))),
                    "integer" | "number" | "string" | "boolean" | "date" => {}
                    other => errors.push(FieldError::new(
                        cat.child("type"),
                        ErrorType::NotSupported,
                        other,
                        "supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\"",
                    )),
                }
                if text(c, "/jsonPath").is_empty() {
                    errors.push(required(cat.child("jsonPath")));
                }
            }
        }
        errors.extend(selectable_errors(v, &at));
        if let Some(scale) = v.pointer("/subresources/scale") {
            let sat = at.child("subresources").child("scale");
            for field in ["specReplicasPath", "statusReplicasPath"] {
                let p = text(scale, &format!("/{field}"));
                if p.is_empty() {
                    errors.push(required(sat.child(field)));
                } else if !p.starts_with('.') {
                    errors.push(invalid(
                        sat.child(field),
                        p,
                        "should be a json path under .spec or .status",
                    ));
                }
            }
        }
    }
    if !versions.is_empty() && storage != 1 {
        errors.push(invalid(
            path("spec.versions"),
            "",
            "must have exactly one version marked as storage version",
        ));
    }
    for field in ["plural", "singular", "kind", "listKind"] {
        if text(spec, &format!("/names/{field}")).is_empty() {
            errors.push(required(path("spec.names").child(field)));
        }
    }
    let names = &spec["names"];
    for field in ["plural", "singular"] {
        let v = text(names, &format!("/{field}"));
        if !v.is_empty()
            && let Some(e) = dns1035(path("spec.names").child(field), v, "")
        {
            errors.push(e);
        }
    }
    for field in ["kind", "listKind"] {
        let v = text(names, &format!("/{field}"));
        if !v.is_empty()
            && let Some(e) = dns1035(
                path("spec.names").child(field),
                &v.to_lowercase(),
                "may have mixed case, but should otherwise match: ",
            )
        {
            errors.push(FieldError::new(e.path, e.error_type, v, e.detail));
        }
    }
    for list in ["shortNames", "categories"] {
        for (i, s) in names[list].as_array().into_iter().flatten().enumerate() {
            let s = s.as_str().unwrap_or("");
            if let Some(e) = dns1035(path("spec.names").child(list).index(i), s, "") {
                errors.push(e);
            }
        }
    }
    let kind = text(names, "/kind");
    if !kind.is_empty() && kind == text(names, "/listKind") {
        errors.push(invalid(
            path("spec.names.listKind"),
            kind,
            "kind and listKind may not be the same",
        ));
    }
    errors
}

/// The errors of a version's `selectableFields` (upstream's
/// `validateCustomResourceDefinitionVersion`); a schema the library cannot read is reported
/// by the schema checks instead.
fn selectable_errors(version: &Json, at: &FieldPath) -> Vec<FieldError> {
    let Some(fields) = version["selectableFields"]
        .as_array()
        .filter(|f| !f.is_empty())
    else {
        return Vec::new();
    };
    let at = at.child("selectableFields");
    let Some(schema) = version.pointer("/schema/openAPIV3Schema") else {
        return vec![invalid(
            at,
            "",
            "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
        )];
    };
    let Ok(schema) = Schema::from_json(schema) else {
        return Vec::new();
    };
    let paths: Vec<&str> = fields.iter().map(|f| text(f, "/jsonPath")).collect();
    selectable_field_errors(&paths, &schema, &at)
}

/// Whether the CRD's status condition `kind` (`Established`, `NamesAccepted`) is `True`.
pub fn condition_true(crd: &Json, kind: &str) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Json::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == kind && c["status"] == "True")
        })
}

/// The errors of an update of the CRD `old` to `new` changing immutable fields: the group
/// and plural always, the scope and kind once `old` is established.
pub fn definition_update_errors(new: &Json, old: &Json) -> Vec<FieldError> {
    let mut immutable = vec![
        ("spec.group", "/spec/group"),
        ("spec.names.plural", "/spec/names/plural"),
    ];
    if condition_true(old, "Established") {
        immutable.push(("spec.scope", "/spec/scope"));
        immutable.push(("spec.names.kind", "/spec/names/kind"));
    }
    immutable
        .into_iter()
        .filter(|(_, pointer)| text(new, pointer) != text(old, pointer))
        .map(|(field, pointer)| invalid(path(field), text(new, pointer), "field is immutable"))
        .collect()
}

/// The schema paths (`spec.versions[i].schema.openAPIV3Schema`) of the versions whose schema
/// an update leaves as the old CRD had it (same version name, same schema).
fn unchanged_schemas(new: &Json, old: &Json) -> Vec<String> {
    let old_versions = old.pointer("/spec/versions").and_then(Json::as_array);
    let mut out = Vec::new();
    for (i, v) in new["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let same = old_versions.into_iter().flatten().any(|o| {
            o["name"] == v["name"]
                && o.pointer("/schema/openAPIV3Schema") == v.pointer("/schema/openAPIV3Schema")
        });
        if same {
            out.push(format!("spec.versions[{i}].schema.openAPIV3Schema"));
        }
    }
    out
}

/// The schema errors of `validator` (read from `crd`) that a write of `crd` (an update of
/// `old`, if given) is refused for: as upstream, on update the rules of a schema the update
/// leaves as it was are not checked again (they may predate today's limits or environment).
pub fn definition_schema_errors(
    validator: &CrdValidator,
    crd: &Json,
    old: Option<&Json>,
) -> Vec<FieldError> {
    let unchanged = old.map(|o| unchanged_schemas(crd, o)).unwrap_or_default();
    validator
        .schema_errors()
        .into_iter()
        .filter(|e| {
            let at = e.path.to_string();
            !unchanged
                .iter()
                .any(|p| at == *p || at.starts_with(&format!("{p}.")))
        })
        .collect()
}

/// Every error kube-apiserver refuses a write of the CustomResourceDefinition `crd` (an
/// update of `old`, if given) for, its metadata other than the name left out, in the API
/// server's order: those of [`definition_errors_before_schemas`], then, only when there are
/// none of those, the schemas' ([`definition_schema_errors`]). `crd` is checked as defaulted
/// ([`default_names`]; the caller's value is left as it is).
pub fn definition_errors(crd: &Json, old: Option<&Json>) -> Vec<FieldError> {
    checked(crd, old, true)
}

/// The errors of a (defaulted) CustomResourceDefinition that come before its schemas' and,
/// when there are any, leave the schemas unchecked: the name, spec and names, the conversion
/// settings ([`conversion_errors`]), and on update of `old` the immutable fields'.
pub fn definition_errors_before_schemas(crd: &Json, old: Option<&Json>) -> Vec<FieldError> {
    before_schemas(crd, old, definition_spec_errors(crd))
}

/// `errors` (the spec's), then the conversion settings' and the update's.
fn before_schemas(crd: &Json, old: Option<&Json>, mut errors: Vec<FieldError>) -> Vec<FieldError> {
    let check_ca_bundle = match old {
        None => true,
        Some(old) => !allow_invalid_ca_bundle(old, condition_true(old, "Established")),
    };
    errors.extend(conversion_errors(&crd["spec"], check_ca_bundle));
    if let Some(old) = old {
        errors.extend(definition_update_errors(crd, old));
    }
    errors
}

/// [`definition_errors`], with the name's errors (which gate the schemas' errors all the
/// same) left out when `with_name` is false: the caller reports them with the metadata's.
pub(crate) fn checked(crd: &Json, old: Option<&Json>, with_name: bool) -> Vec<FieldError> {
    let mut crd = crd.clone();
    default_names(&mut crd);
    let name = crd["metadata"]["name"].as_str().unwrap_or("");
    let name_problems = definition_name_problems(&crd, name, false);
    let spec_errors = if with_name {
        definition_spec_errors(&crd)
    } else {
        body_errors(&crd)
    };
    let mut errors = before_schemas(&crd, old, spec_errors);
    if errors.is_empty() && name_problems.is_empty() {
        match CrdValidator::new(&crd) {
            Ok(v) => errors.extend(definition_schema_errors(&v, &crd, old)),
            Err(e) => errors.push(e.field_error()),
        }
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
            "metadata": {"name": "crontabs.stable.example.com"},
            "spec": {
                "group": "stable.example.com",
                "scope": "Namespaced",
                "names": {"plural": "crontabs", "kind": "CronTab"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "properties": {"replicas": {"type": "integer"}}}}}]
            }
        })
    }

    fn texts(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_valid_crd_has_no_errors_once_its_names_are_defaulted() {
        assert_eq!(
            texts(&definition_errors(&crd(), None)),
            Vec::<String>::new()
        );
        let mut c = crd();
        default_names(&mut c);
        assert_eq!(c["spec"]["names"]["singular"], "crontab");
        assert_eq!(c["spec"]["names"]["listKind"], "CronTabList");
    }

    #[test]
    fn spec_errors_come_first_and_hold_back_the_schemas() {
        let mut c = crd();
        c["metadata"]["name"] = json!("wrong.stable.example.com");
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["replicas"]["default"] =
            json!("x");
        assert_eq!(
            texts(&definition_errors(&c, None)),
            [
                "metadata.name: Invalid value: \"wrong.stable.example.com\": must be spec.names.plural+\".\"+spec.group"
            ]
        );
        assert!(texts(&checked(&c, None, false)).is_empty());
        c["metadata"]["name"] = json!("crontabs.stable.example.com");
        let errors = texts(&definition_errors(&c, None));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with(
                "spec.versions[0].schema.openAPIV3Schema.properties[replicas].default: Invalid value: \"string\""
            ),
            "{errors:?}"
        );
    }

    #[test]
    fn an_update_keeps_immutable_fields_and_old_schemas() {
        let mut old = crd();
        old["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"] =
            json!([{"rule": "self.nope > 1"}]);
        old["status"] = json!({"conditions": [{"type": "Established", "status": "True"}]});
        assert!(!definition_errors(&old, None).is_empty());
        assert!(definition_errors(&old, Some(&old)).is_empty());
        let mut new = old.clone();
        new["spec"]["scope"] = json!("Cluster");
        assert_eq!(
            texts(&definition_errors(&new, Some(&old))),
            ["spec.scope: Invalid value: \"Cluster\": field is immutable"]
        );
    }
}

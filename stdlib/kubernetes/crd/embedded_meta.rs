//! The TypeMeta and ObjectMeta of embedded resources (`x-kubernetes-embedded-resource`) as
//! apiextensions-apiserver checks them (`pkg/apiserver/schema/objectmeta/validation.go`,
//! `Validate`): `apiVersion` and `kind` present, strings, a group version and a kind name;
//! `metadata` as apimachinery's `ValidateObjectMeta` with path-segment names (an empty name
//! counts as valid, the namespace is checked when set). Kubernetes checks so the defaults of a
//! CRD ([`super::validation::Validator::default_errors`]).

use serde_json::Value as Json;

use super::field_error::{ErrorType, FieldError, FieldPath, go_json_value};
use super::schema::Schema;
use crate::kubernetes::named_formats::messages;
use crate::kubernetes::object_meta::owner_references::parse_group_version;
use crate::kubernetes::object_meta::{Scope, path_segment, validate_at};

/// The errors of the embedded resources in `value` (at `path`) under `schema`;
/// `is_resource_root`: `value` is itself a resource, whatever its schema says.
pub fn errors(
    path: &FieldPath,
    value: &Json,
    schema: &Schema,
    is_resource_root: bool,
) -> Vec<FieldError> {
    let mut out = Vec::new();
    walk(path, value, schema, is_resource_root, &mut out, 0);
    out
}

fn walk(
    path: &FieldPath,
    value: &Json,
    s: &Schema,
    resource: bool,
    out: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > crate::documents::MAX_DEPTH {
        return;
    }
    match value {
        Json::Object(fields) => {
            if resource || s.embedded_resource {
                resource_errors(path, fields, out);
            }
            for (k, v) in fields {
                if let Some(p) = s.properties.get(k) {
                    walk(&path.child(k), v, p, false, out, depth + 1);
                } else if let Some(values) = s.additional_schema() {
                    walk(&path.key(k), v, values, false, out, depth + 1);
                }
            }
        }
        Json::Array(items) => {
            if let Some(item) = s.items() {
                for (i, v) in items.iter().enumerate() {
                    walk(&path.index(i), v, item, false, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// `validateEmbeddedResource`: the type and object meta of one resource.
fn resource_errors(
    path: &FieldPath,
    fields: &serde_json::Map<String, Json>,
    out: &mut Vec<FieldError>,
) {
    for name in ["apiVersion", "kind"] {
        if !fields.contains_key(name) {
            out.push(FieldError::new(
                path.child(name),
                ErrorType::Required,
                "",
                "must not be empty",
            ));
        }
    }
    for (k, v) in fields {
        let at = path.child(k);
        match k.as_str() {
            "apiVersion" => match v.as_str() {
                None => out.push(not_a_string(at, v)),
                Some("") => out.push(invalid(at, "", "must not be empty".into())),
                Some(a) if parse_group_version(a).is_none() => {
                    out.push(invalid(
                        at,
                        a,
                        format!("unexpected GroupVersion string: {a}"),
                    ));
                }
                Some(_) => {}
            },
            "kind" => match v.as_str() {
                None => out.push(not_a_string(at, v)),
                Some("") => out.push(invalid(at, "", "must not be empty".into())),
                Some(kind) => {
                    let wrong = messages("dns1035Label", &kind.to_lowercase());
                    if !wrong.is_empty() {
                        let detail = format!(
                            "may have mixed case, but should otherwise match: {}",
                            wrong.join(",")
                        );
                        out.push(invalid(at, kind, detail));
                    }
                }
            },
            "metadata" if !(v.is_object() || v.is_null()) => {
                // encoding/json's error of decoding it into an ObjectMeta.
                let found = match v {
                    Json::Bool(_) => "bool",
                    Json::Number(_) => "number",
                    Json::String(_) => "string",
                    _ => "array",
                };
                let detail =
                    format!("json: cannot unmarshal {found} into Go value of type v1.ObjectMeta");
                out.push(FieldError::with_rendered_value(
                    at,
                    ErrorType::Invalid,
                    go_json_value(v),
                    detail,
                ));
            }
            "metadata" => {
                // An empty name is given one, so that only what is set is checked.
                let mut meta = v.clone();
                if let Some(m) = meta.as_object_mut()
                    && m.get("name")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .is_empty()
                {
                    m.insert("name".into(), Json::from("fakename"));
                }
                out.extend(validate_at(
                    Some(&meta),
                    &at,
                    Scope::Namespaced,
                    &path_segment,
                ));
            }
            _ => {}
        }
    }
}

fn invalid(path: FieldPath, value: &str, detail: String) -> FieldError {
    FieldError::new(path, ErrorType::Invalid, value, detail)
}

fn not_a_string(path: FieldPath, value: &Json) -> FieldError {
    FieldError::with_rendered_value(
        path,
        ErrorType::Invalid,
        go_json_value(value),
        "must be a string",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(value: Json, schema: Json, root: bool) -> Vec<String> {
        let s = Schema::from_json(&schema).unwrap();
        let mut got: Vec<String> = errors(&FieldPath::root(), &value, &s, root)
            .iter()
            .map(ToString::to_string)
            .collect();
        got.sort();
        got
    }

    #[test]
    fn type_and_object_meta_of_a_resource() {
        let got = texts(
            json!({"apiVersion": "a/b/c", "kind": "Bad_Kind", "metadata": {"name": "x/y", "namespace": "ns"}}),
            json!({"type": "object"}),
            true,
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            got[0],
            "apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c"
        );
        assert!(got[1].starts_with("kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label"), "{got:?}");
        assert_eq!(
            got[2],
            "metadata.name: Invalid value: \"x/y\": may not contain '/'"
        );
        assert_eq!(
            texts(
                json!({"metadata": {"generateName": "g-"}, "kind": 1}),
                json!({"type": "object"}),
                true
            ),
            [
                "apiVersion: Required value: must not be empty",
                "kind: Invalid value: 1: must be a string",
            ]
        );
    }

    // apiextensions-apiserver validates an embedded resource's metadata with
    // path.ValidatePathSegmentName, whose prefix mode (for generateName) checks only for '/'
    // and '%' (IsValidPathSegmentPrefix) and masks no trailing dash.
    #[test]
    fn generate_name_is_a_path_segment_prefix() {
        let embedded = |generate_name: &str| {
            texts(
                json!({"apiVersion": "v1", "kind": "A", "metadata": {"generateName": generate_name}}),
                json!({"type": "object"}),
                true,
            )
        };
        assert!(embedded(".").is_empty());
        assert!(embedded("..").is_empty());
        assert_eq!(
            embedded("x/-"),
            ["metadata.generateName: Invalid value: \"x/-\": may not contain '/'"]
        );
    }

    #[test]
    fn embedded_resources_are_found_through_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": true,
                                                 "x-kubernetes-preserve-unknown-fields": true}},
            "map": {"type": "object", "additionalProperties": {"type": "object",
                     "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}
        }});
        let value = json!({"list": [{"apiVersion": "v1", "kind": "A"}, {"apiVersion": "v1"}],
                           "map": {"k": {"kind": "B", "apiVersion": ""}}, "other": {}});
        assert_eq!(
            texts(value, schema, false),
            [
                "list[1].kind: Required value: must not be empty",
                "map[k].apiVersion: Invalid value: \"\": must not be empty",
            ]
        );
    }
}

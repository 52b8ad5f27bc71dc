//! The custom resources in `/openapi/v2`, as kube-apiserver publishes them there
//! (apiextensions-apiserver `pkg/controller/openapi/builder`, `BuildOpenAPIV2` with value
//! validations and `nullable` stripped, then `openapi/v2.ToStructuralOpenAPIV2`): each served
//! version's kind and list definitions and its paths in swagger-2.0 form.
//!
//! A kind's schema keeps its types, properties, items, additional properties, defaults,
//! descriptions and `x-kubernetes-*` extensions; value validations (`pattern`, `maximum`,
//! `enum`, `required`, `allOf`, ...) and `nullable` go. For kubectl, which reads the document
//! for client-side validation: a node that keeps unknown fields loses its properties and
//! items (and its `type` when it is an object), an array without items its `type`, and a kind
//! whose root keeps unknown fields is published as a bare object. The root gets `apiVersion`,
//! `kind` and `metadata` (ObjectMeta), and so does every embedded resource (with `apiVersion`
//! and `kind` required).

use serde_json::{Map, Value, json};

use super::crd_openapi;
use super::registry::Crds;
use crate::resource::Resource;

const META: &str = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.";

/// The value validations `StripValueValidations` removes.
const VALUE_VALIDATIONS: &[&str] = &[
    "format",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "nullable",
];

/// The swagger-2.0 definitions and paths of every served custom resource version.
pub fn parts(crds: &Crds) -> (Map<String, Value>, Map<String, Value>) {
    let mut definitions = Map::new();
    for crd in crds.all() {
        for version in &crd.versions {
            let r = version.resource;
            definitions.insert(
                crd_openapi::schema_name(r, r.kind),
                kind_schema(version.schema.as_ref(), r),
            );
            definitions.insert(
                crd_openapi::schema_name(r, r.list_kind),
                crate::swagger_form::v2_schema(&crd_openapi::list_schema(r)),
            );
        }
    }
    let mut paths = Map::new();
    for doc in crd_openapi::built(crds) {
        if let Some(v3) = doc["paths"].as_object() {
            paths.extend(crate::swagger_form::v2_paths(v3));
        }
    }
    (definitions, paths)
}

fn gvk(r: &Resource, kind: &str) -> Value {
    json!([{"group": r.group, "version": r.version, "kind": kind}])
}

fn preserves_unknown(node: &Map<String, Value>) -> bool {
    node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

/// The definition of a version's kind.
fn kind_schema(schema: Option<&Value>, r: &Resource) -> Value {
    let bare = json!({"type": "object", "x-kubernetes-group-version-kind": gvk(r, r.kind)});
    let Some(Value::Object(root)) = schema else {
        return bare;
    };
    if preserves_unknown(root) {
        return bare;
    }
    let mut root = Value::Object(root.clone());
    strip(&mut root);
    for_kubectl(&mut root);
    embed(&mut root, false);
    let Value::Object(mut root) = root else {
        return bare;
    };
    let properties = root
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(properties) = properties {
        properties.insert("apiVersion".to_owned(), json!({"type": "string"}));
        properties.insert("kind".to_owned(), json!({"type": "string"}));
        properties.insert(
            "metadata".to_owned(),
            json!({"$ref": format!("{META}ObjectMeta")}),
        );
    }
    root.insert("x-kubernetes-group-version-kind".to_owned(), gvk(r, r.kind));
    Value::Object(root)
}

/// The nested schemas of a node: its properties, items and additional properties.
fn children(node: &mut Map<String, Value>) -> Vec<&mut Value> {
    let mut out = Vec::new();
    for (key, value) in node.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => out.extend(properties.values_mut()),
            ("items" | "additionalProperties", nested @ Value::Object(_)) => out.push(nested),
            _ => {}
        }
    }
    out
}

/// `StripValueValidations` and `StripNullable`, everywhere.
fn strip(node: &mut Value) {
    let Value::Object(map) = node else { return };
    for key in VALUE_VALIDATIONS {
        map.remove(*key);
    }
    for child in children(map) {
        strip(child);
    }
}

/// `ToStructuralOpenAPIV2`'s rules for kubectl, everywhere.
fn for_kubectl(node: &mut Value) {
    let Value::Object(map) = node else { return };
    if preserves_unknown(map) {
        map.remove("items");
        map.remove("properties");
        if map.get("type").and_then(Value::as_str) == Some("object") {
            map.remove("type");
        }
    }
    if !map.contains_key("items") && map.get("type").and_then(Value::as_str) == Some("array") {
        map.remove("type");
    }
    for child in children(map) {
        for_kubectl(child);
    }
}

/// `addEmbeddedProperties`: every embedded resource (below the root) gets `apiVersion`,
/// `kind` and `metadata`, and requires the first two, unless it keeps unknown fields.
fn embed(node: &mut Value, below_root: bool) {
    let Value::Object(map) = node else { return };
    for child in children(map) {
        embed(child, true);
    }
    let embedded = map.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
    if !below_root || !embedded || preserves_unknown(map) {
        return;
    }
    if let Some(properties) = map
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        properties.insert("apiVersion".to_owned(), json!({"type": "string"}));
        properties.insert("kind".to_owned(), json!({"type": "string"}));
        properties.insert(
            "metadata".to_owned(),
            json!({"$ref": format!("{META}ObjectMeta")}),
        );
    }
    let required = map.entry("required").or_insert_with(|| json!([]));
    if let Some(list) = required.as_array_mut() {
        for field in ["kind", "apiVersion"] {
            if !list.iter().any(|v| v == field) {
                list.push(json!(field));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::kind_schema;
    use crate::resource::{CONFIGMAPS, Resource};

    const THING: Resource = Resource {
        group: "example.com",
        version: "v1",
        kind: "Thing",
        list_kind: "ThingList",
        ..CONFIGMAPS
    };

    #[test]
    fn kinds_lose_value_validations_and_what_kubectl_cannot_read() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object", "description": "the spec", "properties": {
                "size": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                "mode": {"type": "string", "enum": ["a", "b"], "nullable": true},
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"x": {"type": "string"}}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set",
                    "items": {"type": "string", "pattern": "^[a-z]+$"}},
                "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "properties": {"spec": {"type": "object"}}},
                "raw": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true}}}}});
        let v2 = kind_schema(Some(&schema), &THING);
        let spec = &v2["properties"]["spec"]["properties"];
        assert_eq!(spec["size"], json!({"type": "integer", "default": 3}));
        assert_eq!(spec["mode"], json!({"type": "string"}));
        assert_eq!(spec["port"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(
            spec["free"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            spec["tags"],
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}})
        );
        assert_eq!(
            spec["template"]["required"],
            json!(["kind", "apiVersion"]),
            "{v2}"
        );
        assert_eq!(
            spec["template"]["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        assert_eq!(
            spec["raw"],
            json!({"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert!(v2.get("required").is_none());
        assert_eq!(v2["properties"]["apiVersion"], json!({"type": "string"}));
        assert_eq!(
            v2["x-kubernetes-group-version-kind"],
            json!([{"group": "example.com", "version": "v1", "kind": "Thing"}])
        );
        // A root that keeps unknown fields, or no schema: a bare object.
        let open = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"spec": {"type": "object"}}});
        for schema in [Some(&open), None] {
            assert_eq!(
                kind_schema(schema, &THING),
                json!({"type": "object", "x-kubernetes-group-version-kind":
                    [{"group": "example.com", "version": "v1", "kind": "Thing"}]})
            );
        }
    }
}

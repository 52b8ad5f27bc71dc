//! A built-in kind's OpenAPI schema as the structural schema CEL types are built from, the
//! way Kubernetes' schema resolver hands built-in kinds to the admission policies' type
//! checker (k8s.io/apiserver `pkg/cel/openapi/resolver`, `PopulateRefs`): every reference
//! (direct or the single entry of an `allOf`) replaced by the schema it names, a reference
//! back to a schema being replaced (a recursive type such as `JSONSchemaProps`) by an object
//! without fields, and `format: int-or-string` read as the int-or-string extension
//! (`pkg/cel/openapi/extensions.go`). A schema without a type (`Quantity`, a `oneOf` of
//! string and number) keeps none, so the field has no CEL type there either, as upstream's
//! `SchemaDeclType` leaves it out. Only what the types and their size estimates depend on is
//! kept: no value validations, defaults or descriptions.

use serde_json::{Map, Value};

use super::OpenApiSchema;
use crate::kubernetes::crd::Schema;

/// The keys copied as written.
const KEPT: &[&str] = &[
    "type",
    "format",
    "required",
    "enum",
    "nullable",
    "maxLength",
    "maxItems",
    "maxProperties",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
];

impl<'a> OpenApiSchema<'a> {
    /// This schema with its references inlined, as a structural schema (see the module
    /// documentation); `None` if the result is no schema (a vendored document's error).
    pub fn structural(self) -> Option<Schema> {
        // The root is being inlined too: a reference back to it is a recursion.
        let mut inlining: Vec<&str> = self
            .schemas
            .iter()
            .filter(|(_, node)| std::ptr::eq(*node, self.node))
            .map(|(name, _)| name.as_str())
            .collect();
        Schema::from_json(&self.inlined(&mut inlining)).ok()
    }

    fn inlined(self, inlining: &mut Vec<&'a str>) -> Value {
        let reference = self.ref_name();
        if let Some(name) = reference {
            if inlining.contains(&name) {
                return serde_json::json!({"type": "object"});
            }
            inlining.push(name);
        }
        let mut out = Map::new();
        if let Some(node) = self.resolved_node().as_object() {
            for key in KEPT {
                if let Some(value) = node.get(*key) {
                    out.insert((*key).to_owned(), value.clone());
                }
            }
            if node.get("format").and_then(Value::as_str) == Some("int-or-string") {
                out.insert("x-kubernetes-int-or-string".to_owned(), Value::Bool(true));
            }
            if let Some(Value::Object(properties)) = node.get("properties") {
                let properties = properties
                    .iter()
                    .map(|(name, p)| (name.clone(), self.at(p).inlined(inlining)))
                    .collect();
                out.insert("properties".to_owned(), Value::Object(properties));
            }
            for key in ["additionalProperties", "items"] {
                match node.get(key) {
                    Some(nested @ Value::Object(_)) => {
                        out.insert(key.to_owned(), self.at(nested).inlined(inlining));
                    }
                    Some(allowed @ Value::Bool(_)) if key == "additionalProperties" => {
                        out.insert(key.to_owned(), allowed.clone());
                    }
                    _ => {}
                }
            }
        }
        if reference.is_some() {
            inlining.pop();
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::kubernetes::builtin::kinds;
    use crate::kubernetes::crd::Schema;

    fn kind(group: &str, kind: &str) -> Schema {
        kinds()
            .find(|k| k.group() == group && k.kind() == kind)
            .unwrap()
            .schema()
            .structural()
            .unwrap()
    }

    fn at<'s>(mut schema: &'s Schema, path: &[&str]) -> &'s Schema {
        for step in path {
            schema = match *step {
                "[]" => schema.items().unwrap(),
                "{}" => match schema.additional_properties.as_ref().unwrap() {
                    crate::kubernetes::crd::AdditionalProperties::Schema(s) => s,
                    other => panic!("{other:?}"),
                },
                field => &schema.properties[field],
            };
        }
        schema
    }

    #[test]
    fn references_are_inlined_with_the_types_a_policy_sees() {
        let deployment = kind("apps", "Deployment");
        assert_eq!(at(&deployment, &["spec", "replicas"]).type_, "integer");
        assert_eq!(at(&deployment, &["metadata", "name"]).type_, "string");
        assert_eq!(
            at(&deployment, &["metadata", "labels", "{}"]).type_,
            "string"
        );
        let container = at(
            &deployment,
            &["spec", "template", "spec", "containers", "[]"],
        );
        assert_eq!(
            at(container, &["ports", "[]", "containerPort"]).type_,
            "integer"
        );
        assert_eq!(at(container, &["ports"]).list_type.as_deref(), Some("map"));
        // IntOrString by its format; Quantity has no type.
        let surge = at(
            &deployment,
            &["spec", "strategy", "rollingUpdate", "maxSurge"],
        );
        assert!(surge.int_or_string);
        let limit = at(container, &["resources", "limits", "{}"]);
        assert_eq!((limit.type_.as_str(), limit.int_or_string), ("", false));
        // No description or value validation is carried over.
        assert!(deployment.description.is_empty());
        assert!(at(&deployment, &["spec"]).description.is_empty());
    }

    #[test]
    fn a_recursive_schema_ends_in_an_object_without_fields() {
        let crd = kind("apiextensions.k8s.io", "CustomResourceDefinition");
        let props = at(
            &crd,
            &["spec", "versions", "[]", "schema", "openAPIV3Schema"],
        );
        assert_eq!(props.type_, "object");
        assert!(props.properties.contains_key("properties"));
        // JSONSchemaProps inside JSONSchemaProps: an object with no fields.
        let nested = at(props, &["properties", "{}"]);
        assert_eq!(nested.type_, "object");
        assert!(nested.properties.is_empty());
    }
}

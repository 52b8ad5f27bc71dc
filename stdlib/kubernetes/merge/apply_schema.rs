//! What merging and field tracking need to know of a schema, as structured-merge-diff's
//! `schema` package models it: a node is a scalar, a map (a struct with declared fields
//! and/or a map with one element type; granular or atomic), a list (atomic, set, or map
//! keyed by fields), or untyped (shape deduced from the value: maps granular, lists atomic).
//!
//! [`ApplySchema`] is the abstraction; [`OpenApi`] implements it over the vendored OpenAPI
//! documents of the built-in kinds, reading `x-kubernetes-list-type`,
//! `x-kubernetes-list-map-keys`, `x-kubernetes-map-type` and, where no list type is given,
//! the patch strategy (`merge` with a merge key is a keyed list, `merge` without one a set),
//! as kube-openapi's schema conversion does. A CRD's structural schema can implement it too.

use serde_json::Value;

use crate::kubernetes::builtin::{self, OpenApiSchema};
use crate::kubernetes::crd::{AdditionalProperties, Schema as CrdSchema};

/// How the items of a list relate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    /// Replaced as a whole.
    Atomic,
    /// Scalars, each owned on its own.
    Set,
    /// Maps named by these key fields, each owned on its own.
    Map(Vec<String>),
}

/// The shape of a schema node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A string, number, boolean.
    Scalar,
    /// A struct or a map; `atomic` ones are replaced and owned as a whole.
    Map {
        /// `x-kubernetes-map-type: atomic`.
        atomic: bool,
    },
    /// A list.
    List(ListType),
    /// Any value: maps are granular with untyped values, lists atomic.
    Untyped,
}

/// A node of a schema.
pub trait ApplySchema: Clone {
    /// The node's shape.
    fn shape(&self) -> Shape;
    /// The schema of a declared field of a struct.
    fn field(&self, name: &str) -> Option<Self>;
    /// The schema of the values of a map (fields not declared) or of the items of a list.
    fn elements(&self) -> Option<Self>;
    /// The default of a declared field, if the schema gives one (used for the key fields of
    /// list items that omit them).
    fn default_of(&self, _field: &str) -> Option<Value> {
        None
    }
    /// Whether a map takes fields it does not declare as untyped values
    /// (`x-kubernetes-preserve-unknown-fields`, `additionalProperties: true`).
    fn open(&self) -> bool {
        false
    }
    /// The type of a scalar node (`None`: any scalar, or not a scalar).
    fn scalar(&self) -> Option<ScalarType> {
        None
    }
}

/// The type of a scalar, as structured-merge-diff's schema distinguishes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    /// `integer` or `number`.
    Numeric,
    /// `string`.
    String,
    /// `boolean`.
    Boolean,
}

impl ScalarType {
    /// The scalar type of an OpenAPI `type`.
    fn of(openapi_type: &str) -> Option<ScalarType> {
        match openapi_type {
            "integer" | "number" => Some(ScalarType::Numeric),
            "string" => Some(ScalarType::String),
            "boolean" => Some(ScalarType::Boolean),
            _ => None,
        }
    }
}

/// A schema node or none: `None` is untyped.
pub type Node<S> = Option<S>;

/// The shape of `node` for `value` (untyped nodes take the value's shape).
pub fn shape_of<S: ApplySchema>(node: &Node<S>, value: Option<&Value>) -> Shape {
    match node.as_ref().map(ApplySchema::shape) {
        Some(Shape::Untyped) | None => match value {
            Some(Value::Object(_)) => Shape::Map { atomic: false },
            Some(Value::Array(_)) => Shape::List(ListType::Atomic),
            _ => Shape::Scalar,
        },
        Some(shape) => shape,
    }
}

/// The schema of `key` in a map node and whether it is a declared field.
pub fn map_child<S: ApplySchema>(node: &Node<S>, key: &str) -> (Node<S>, bool) {
    match node {
        Some(s) if s.shape() != Shape::Untyped => match s.field(key) {
            Some(field) => (Some(field), true),
            None => (s.elements(), false),
        },
        _ => (None, false),
    }
}

/// The schema of a list's items.
pub fn list_items<S: ApplySchema>(node: &Node<S>) -> Node<S> {
    node.as_ref().and_then(ApplySchema::elements)
}

/// The vendored OpenAPI v3 schemas of the built-in kinds.
#[derive(Clone, Copy)]
pub struct OpenApi<'a>(pub OpenApiSchema<'a>);

impl OpenApi<'static> {
    /// The root schema of a built-in kind (`apiVersion` `v1`, `apps/v1`, ...), from the
    /// library's vendored schemas ([`crate::kubernetes::builtin`]).
    pub fn of_kind(api_version: &str, kind: &str) -> Option<OpenApi<'static>> {
        builtin::kind(api_version, kind).map(|k| OpenApi(k.schema()))
    }
}

impl OpenApi<'_> {
    fn extension(&self, name: &str) -> Option<&Value> {
        self.0
            .node_value()
            .get(name)
            .or_else(|| self.0.resolved_node().get(name))
    }
}

impl ApplySchema for OpenApi<'_> {
    fn shape(&self) -> Shape {
        let node = self.0.resolved_node();
        if self.extension("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
            || self.extension("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        {
            return Shape::Untyped;
        }
        let kind = node.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "array" || node.get("items").is_some() {
            let list_type = self
                .extension("x-kubernetes-list-type")
                .and_then(Value::as_str);
            let keys = || -> Vec<String> {
                self.extension("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .map(|keys| {
                        keys.iter()
                            .filter_map(|k| k.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            return Shape::List(match list_type {
                Some("set") => ListType::Set,
                Some("map") => ListType::Map(keys()),
                Some(_) => ListType::Atomic,
                None if self.0.patch_strategy_has("merge") => match self.0.merge_key() {
                    Some(key) => ListType::Map(vec![key.to_owned()]),
                    None => ListType::Set,
                },
                None => ListType::Atomic,
            });
        }
        let properties = node.get("properties").is_some();
        let additional = node
            .get("additionalProperties")
            .is_some_and(Value::is_object);
        if kind == "object" || properties || additional {
            if !properties && !additional {
                return Shape::Untyped;
            }
            let atomic = self
                .extension("x-kubernetes-map-type")
                .and_then(Value::as_str)
                == Some("atomic");
            return Shape::Map { atomic };
        }
        if kind.is_empty() {
            return Shape::Untyped;
        }
        Shape::Scalar
    }

    fn field(&self, name: &str) -> Option<Self> {
        self.0.property(name).map(OpenApi)
    }

    fn elements(&self) -> Option<Self> {
        self.0
            .items()
            .or_else(|| self.0.additional_properties())
            .map(OpenApi)
    }

    fn default_of(&self, field: &str) -> Option<Value> {
        let given = self
            .0
            .property(field)?
            .resolved_node()
            .get("default")
            .cloned();
        given.or_else(|| {
            // The `+default="TCP"` markers of k8s.io/api's ContainerPort and ServicePort are
            // in the schemas kube-apiserver's field manager uses, not in the published
            // OpenAPI documents: a port applied without a protocol is the TCP one.
            let name = self.0.ref_name()?;
            let ports =
                name.ends_with(".core.v1.ContainerPort") || name.ends_with(".core.v1.ServicePort");
            (ports && field == "protocol").then(|| Value::from("TCP"))
        })
    }

    fn open(&self) -> bool {
        self.0.resolved_node().get("additionalProperties") == Some(&Value::Bool(true))
            || self.extension("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
    }

    fn scalar(&self) -> Option<ScalarType> {
        if self.shape() != Shape::Scalar {
            return None;
        }
        let node = self.0.resolved_node();
        ScalarType::of(node.get("type").and_then(Value::as_str)?)
    }
}

/// A CRD's structural schema (`CrdSchema`), for custom
/// resources: the same list, map and preserve-unknown-fields semantics.
impl ApplySchema for &CrdSchema {
    fn shape(&self) -> Shape {
        if self.int_or_string {
            return Shape::Untyped;
        }
        match self.type_.as_str() {
            "array" => Shape::List(match self.list_type() {
                "set" => ListType::Set,
                "map" => ListType::Map(self.list_map_keys.clone()),
                _ => ListType::Atomic,
            }),
            "object" => {
                if self.preserves_unknown_fields()
                    && self.properties.is_empty()
                    && self.additional_schema().is_none()
                {
                    return Shape::Untyped;
                }
                Shape::Map {
                    atomic: self.map_type.as_deref() == Some("atomic"),
                }
            }
            "" if self.preserves_unknown_fields() => Shape::Untyped,
            "" => Shape::Untyped,
            _ => Shape::Scalar,
        }
    }

    fn field(&self, name: &str) -> Option<Self> {
        self.properties.get(name)
    }

    fn elements(&self) -> Option<Self> {
        self.items().or_else(|| self.additional_schema())
    }

    fn default_of(&self, field: &str) -> Option<Value> {
        self.properties.get(field)?.default.clone()
    }

    fn open(&self) -> bool {
        self.preserves_unknown_fields()
            || matches!(
                self.additional_properties,
                Some(AdditionalProperties::Bool(true))
            )
    }

    fn scalar(&self) -> Option<ScalarType> {
        match self.shape() {
            Shape::Scalar => ScalarType::of(&self.type_),
            _ => None,
        }
    }
}

/// The schema of a served kind: a built-in kind's vendored OpenAPI, or a custom resource's
/// structural schema (from its CRD version), so both merge by the same rules.
#[derive(Clone, Copy)]
pub enum KindSchema<'a> {
    /// A built-in kind's node.
    BuiltIn(OpenApi<'a>),
    /// The root of a custom resource: its schema's properties plus `apiVersion` and `kind`
    /// (strings) and `metadata` (ObjectMeta, as built-in kinds declare it), which
    /// kube-apiserver adds to a CRD's schema for field management.
    CustomRoot(&'a CrdSchema),
    /// A node below a custom resource's root.
    Custom(&'a CrdSchema),
    /// A string (a custom resource's `apiVersion` and `kind`).
    Scalar,
}

/// ObjectMeta's schema, as the built-in kinds declare `metadata`.
fn object_meta() -> Option<OpenApi<'static>> {
    OpenApi::of_kind("v1", "ConfigMap")?.field("metadata")
}

impl ApplySchema for KindSchema<'_> {
    fn shape(&self) -> Shape {
        match self {
            KindSchema::BuiltIn(s) => s.shape(),
            KindSchema::CustomRoot(_) => Shape::Map { atomic: false },
            KindSchema::Custom(s) => s.shape(),
            KindSchema::Scalar => Shape::Scalar,
        }
    }

    fn field(&self, name: &str) -> Option<Self> {
        match self {
            KindSchema::BuiltIn(s) => s.field(name).map(KindSchema::BuiltIn),
            KindSchema::CustomRoot(s) => match name {
                "apiVersion" | "kind" => Some(KindSchema::Scalar),
                "metadata" => object_meta().map(KindSchema::BuiltIn),
                _ => s.field(name).map(KindSchema::Custom),
            },
            KindSchema::Custom(s) => s.field(name).map(KindSchema::Custom),
            KindSchema::Scalar => None,
        }
    }

    fn elements(&self) -> Option<Self> {
        match self {
            KindSchema::BuiltIn(s) => s.elements().map(KindSchema::BuiltIn),
            KindSchema::CustomRoot(s) | KindSchema::Custom(s) => {
                s.elements().map(KindSchema::Custom)
            }
            KindSchema::Scalar => None,
        }
    }

    fn default_of(&self, field: &str) -> Option<Value> {
        match self {
            KindSchema::BuiltIn(s) => s.default_of(field),
            KindSchema::CustomRoot(s) | KindSchema::Custom(s) => s.default_of(field),
            KindSchema::Scalar => None,
        }
    }

    fn open(&self) -> bool {
        match self {
            KindSchema::BuiltIn(s) => s.open(),
            KindSchema::CustomRoot(s) | KindSchema::Custom(s) => s.open(),
            KindSchema::Scalar => false,
        }
    }

    fn scalar(&self) -> Option<ScalarType> {
        match self {
            KindSchema::BuiltIn(s) => s.scalar(),
            KindSchema::CustomRoot(_) => None,
            KindSchema::Custom(s) => s.scalar(),
            KindSchema::Scalar => Some(ScalarType::String),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk<'a>(mut s: OpenApi<'a>, steps: &[&str]) -> OpenApi<'a> {
        for step in steps {
            s = if *step == "[]" {
                s.elements().unwrap()
            } else {
                s.field(step).unwrap()
            };
        }
        s
    }

    // A custom resource's structural schema plugs into the same merge.
    #[test]
    fn crd_structural_schemas_merge_by_their_list_types() {
        use crate::kubernetes::merge::typed::{merge, to_field_set, undeclared};
        use CrdSchema as Crd;
        use serde_json::json;
        let crd = Crd::from_json(&json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port", "protocol"],
                    "items": {"type": "object", "properties": {
                        "port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"},
                        "name": {"type": "string"}}}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "sel": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}))
        .unwrap();
        let node = Some(&crd);
        let live = json!({"spec": {"ports": [{"port": 80, "name": "a"}], "tags": ["x"],
            "sel": {"a": "1", "b": "2"}}});
        let config = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "name": "b"},
            {"port": 81}], "tags": ["y"], "sel": {"c": "3"}, "free": {"any": {"thing": 1}}}});
        let merged = merge(&live, &config, &node);
        assert_eq!(
            merged["spec"],
            json!({"ports": [{"port": 80, "protocol": "TCP", "name": "b"}, {"port": 81}],
                "tags": ["x", "y"], "sel": {"c": "3"}, "free": {"any": {"thing": 1}}})
        );
        let set = to_field_set(&config, &node);
        assert_eq!(
            crate::kubernetes::merge::fieldpath::to_fields_v1(&set)["f:spec"]["f:ports"],
            json!({"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {},
                "f:protocol": {}}, "k:{\"port\":81,\"protocol\":\"TCP\"}": {".": {}, "f:port": {}}})
        );
        assert!(undeclared(&config, &node).is_empty());
        assert_eq!(
            undeclared(&json!({"spec": {"nope": 1}}), &node),
            vec![".spec.nope: field not declared in schema"]
        );
    }

    #[test]
    fn shapes_of_built_in_fields() {
        let d = OpenApi::of_kind("apps/v1", "Deployment").unwrap();
        assert_eq!(d.shape(), Shape::Map { atomic: false });
        let pod = walk(d, &["spec", "template", "spec"]);
        assert_eq!(
            walk(pod, &["containers"]).shape(),
            Shape::List(ListType::Map(vec!["name".into()]))
        );
        assert_eq!(
            walk(pod, &["containers", "[]", "args"]).shape(),
            Shape::List(ListType::Atomic)
        );
        assert_eq!(
            walk(pod, &["containers", "[]", "ports"]).shape(),
            Shape::List(ListType::Map(vec![
                "containerPort".into(),
                "protocol".into()
            ]))
        );
        assert_eq!(
            walk(d, &["spec", "selector"]).shape(),
            Shape::Map { atomic: true }
        );
        assert_eq!(
            walk(d, &["metadata", "finalizers"]).shape(),
            Shape::List(ListType::Set)
        );
        assert_eq!(
            walk(d, &["spec", "strategy", "rollingUpdate", "maxSurge"]).shape(),
            Shape::Untyped
        );
        let cm = OpenApi::of_kind("v1", "ConfigMap").unwrap();
        let data = walk(cm, &["data"]);
        assert_eq!(data.shape(), Shape::Map { atomic: false });
        assert!(data.field("x").is_none());
        assert_eq!(data.elements().unwrap().shape(), Shape::Scalar);
    }
}

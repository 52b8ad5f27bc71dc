//! The structural-schema subset of OpenAPI v3 that CRD validation rules see, as serde types.
//!
//! Fields use their OpenAPI spelling (`maxLength`, `x-kubernetes-list-type`, ...). The value
//! validations (`pattern`, `minimum`, ...) are read for [`super::openapi`]; `allOf`, `anyOf`,
//! `oneOf` and `not` hold value validations only, never types (see [`super::structural`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::definition_errors::DefinitionError;

/// A structural schema node.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Schema {
    /// `object`, `array`, `string`, `integer`, `number`, `boolean`, or empty.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `format`.
    #[serde(default)]
    pub format: String,
    /// `properties`.
    #[serde(default)]
    pub properties: BTreeMap<String, Schema>,
    /// `additionalProperties`.
    #[serde(default)]
    pub additional_properties: Option<AdditionalProperties>,
    /// `items`: one schema for every item, or (refused in a CRD) an array of schemas.
    #[serde(default)]
    pub items: Option<Items>,
    /// `required`.
    #[serde(default)]
    pub required: Vec<String>,
    /// `nullable`.
    #[serde(default)]
    pub nullable: bool,
    /// `enum`.
    #[serde(rename = "enum", default)]
    pub enum_: Vec<serde_json::Value>,
    /// `default`.
    #[serde(default)]
    pub default: Option<serde_json::Value>,
    /// `maxLength`.
    #[serde(default)]
    pub max_length: Option<i64>,
    /// `minLength`.
    #[serde(default)]
    pub min_length: Option<i64>,
    /// `maxItems`.
    #[serde(default)]
    pub max_items: Option<i64>,
    /// `minItems`.
    #[serde(default)]
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    #[serde(default)]
    pub unique_items: bool,
    /// `maxProperties`.
    #[serde(default)]
    pub max_properties: Option<i64>,
    /// `minProperties`.
    #[serde(default)]
    pub min_properties: Option<i64>,
    /// `pattern`.
    #[serde(default)]
    pub pattern: String,
    /// `minimum`.
    #[serde(default)]
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    #[serde(default)]
    pub exclusive_minimum: bool,
    /// `maximum`.
    #[serde(default)]
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    #[serde(default)]
    pub exclusive_maximum: bool,
    /// `multipleOf`.
    #[serde(default)]
    pub multiple_of: Option<f64>,
    /// `x-kubernetes-preserve-unknown-fields` as written (`false` is an error in a CRD:
    /// [`Schema::preserves_unknown_fields`] is the extension's meaning).
    #[serde(rename = "x-kubernetes-preserve-unknown-fields", default)]
    pub preserve_unknown_fields: Option<bool>,
    /// `x-kubernetes-embedded-resource`.
    #[serde(rename = "x-kubernetes-embedded-resource", default)]
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    #[serde(rename = "x-kubernetes-int-or-string", default)]
    pub int_or_string: bool,
    /// `atomic` (the default), `set` or `map`.
    #[serde(rename = "x-kubernetes-list-type", default)]
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    #[serde(rename = "x-kubernetes-list-map-keys", default)]
    pub list_map_keys: Vec<String>,
    /// `granular` (the default) or `atomic`.
    #[serde(rename = "x-kubernetes-map-type", default)]
    pub map_type: Option<String>,
    /// `x-kubernetes-validations`.
    #[serde(rename = "x-kubernetes-validations", default)]
    pub validations: Vec<ValidationRule>,
    /// `title`.
    #[serde(default)]
    pub title: String,
    /// `description`.
    #[serde(default)]
    pub description: String,
    /// Value validations under logical junctors: no types, defaults or rules allowed there.
    #[serde(default)]
    pub all_of: Vec<Schema>,
    /// `anyOf`.
    #[serde(default)]
    pub any_of: Vec<Schema>,
    /// `oneOf`.
    #[serde(default)]
    pub one_of: Vec<Schema>,
    /// `not`.
    #[serde(default)]
    pub not: Option<Box<Schema>>,
    /// The JSON-Schema keywords a CRD may not use (read only to be refused).
    #[serde(flatten)]
    pub unsupported: Unsupported,
}

/// The JSON-Schema keywords of `JSONSchemaProps` that a CRD schema may not use:
/// apiextensions-apiserver refuses each (`specStandardValidatorV3`), and a schema holding
/// one is not structural (`NewStructural`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Unsupported {
    /// `id`.
    #[serde(default)]
    pub id: String,
    /// `$schema`.
    #[serde(rename = "$schema", default)]
    pub schema: String,
    /// `$ref`.
    #[serde(rename = "$ref", default)]
    pub reference: Option<String>,
    /// `patternProperties`.
    #[serde(default)]
    pub pattern_properties: BTreeMap<String, Schema>,
    /// `definitions`.
    #[serde(default)]
    pub definitions: BTreeMap<String, Schema>,
    /// `dependencies`: for each property, a schema or the names of required properties.
    #[serde(default)]
    pub dependencies: Option<BTreeMap<String, Dependency>>,
    /// `additionalItems`.
    #[serde(default)]
    pub additional_items: Option<AdditionalProperties>,
}

/// A `dependencies` entry: a schema, or the properties a property requires.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Dependency {
    /// The schema the object must match when the property is present.
    Schema(Box<Schema>),
    /// The properties that must be present with it.
    Properties(Vec<String>),
}

/// `items`: a schema, or an array of schemas (JSON Schema's tuple form, which a CRD may not
/// use: apiextensions-apiserver reads it, `JSONSchemaPropsOrArray`, and refuses it).
#[derive(Clone, Debug, PartialEq)]
pub enum Items {
    /// The schema of every item.
    Schema(Box<Schema>),
    /// One schema per position.
    Array(Vec<Schema>),
}

impl<'de> Deserialize<'de> for Items {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};

        struct ItemsVisitor;
        impl<'de> serde::de::Visitor<'de> for ItemsVisitor {
            type Value = Items;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a schema or an array of schemas")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Items, A::Error> {
                Schema::deserialize(MapAccessDeserializer::new(map))
                    .map(|s| Items::Schema(Box::new(s)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Items, A::Error> {
                Vec::deserialize(SeqAccessDeserializer::new(seq)).map(Items::Array)
            }
        }
        deserializer.deserialize_any(ItemsVisitor)
    }
}

/// `additionalProperties`: a boolean or a schema.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum AdditionalProperties {
    /// `true` (any value) or `false` (none).
    Bool(bool),
    /// The schema of every value.
    Schema(Box<Schema>),
}

/// One `x-kubernetes-validations` entry.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ValidationRule {
    /// `rule`.
    pub rule: String,
    /// `message`.
    #[serde(default)]
    pub message: String,
    /// `messageExpression`.
    #[serde(default)]
    pub message_expression: String,
    /// `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`,
    /// `FieldValueDuplicate`.
    #[serde(default)]
    pub reason: Option<String>,
    /// `fieldPath`.
    #[serde(default)]
    pub field_path: String,
    /// `optionalOldSelf`.
    #[serde(default)]
    pub optional_old_self: Option<bool>,
}

impl Schema {
    /// Parses a schema from JSON.
    pub fn from_json(value: &serde_json::Value) -> Result<Schema, serde_json::Error> {
        Schema::deserialize(value)
    }

    /// Whether unknown fields are kept here (`x-kubernetes-preserve-unknown-fields: true`).
    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown_fields == Some(true)
    }

    /// The schema of every item (`items` given as one schema).
    pub fn items(&self) -> Option<&Schema> {
        match &self.items {
            Some(Items::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// The schemas of `items` given as an array (empty when it is not one).
    pub fn item_array(&self) -> &[Schema] {
        match &self.items {
            Some(Items::Array(list)) => list,
            _ => &[],
        }
    }

    /// The schema of map values (`additionalProperties` given as a schema).
    pub fn additional_schema(&self) -> Option<&Schema> {
        match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether this node or any node below it carries validation rules.
    pub fn has_validations(&self) -> bool {
        !self.validations.is_empty()
            || self.properties.values().any(Schema::has_validations)
            || self.items().is_some_and(Schema::has_validations)
            || self
                .additional_schema()
                .is_some_and(Schema::has_validations)
    }

    /// The map-list keys with their item-schema defaults (a missing key field counts as its
    /// default when items are matched).
    pub fn list_map_keys_with_defaults(&self) -> Vec<(String, Option<serde_json::Value>)> {
        self.list_map_keys
            .iter()
            .map(|k| {
                let default = self
                    .items()
                    .and_then(|i| i.properties.get(k))
                    .and_then(|p| p.default.clone());
                (k.clone(), default)
            })
            .collect()
    }

    /// The list type: `atomic`, `set` or `map`.
    pub fn list_type(&self) -> &str {
        self.list_type.as_deref().unwrap_or("atomic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_extensions_and_rules() {
        let s = Schema::from_json(&json!({
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.a > 0", "messageExpression": "'bad'", "reason": "FieldValueForbidden",
                 "fieldPath": ".a", "optionalOldSelf": true}
            ],
            "properties": {
                "a": {"type": "integer", "maxLength": 3},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "u": {"type": "object", "additionalProperties": true},
                "l": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object"}}
            }
        }))
        .unwrap();
        assert_eq!(s.validations[0].field_path, ".a");
        assert_eq!(s.validations[0].optional_old_self, Some(true));
        assert!(s.properties["m"].additional_schema().is_some());
        assert!(s.properties["u"].additional_schema().is_none());
        assert_eq!(s.properties["l"].list_type(), "map");
        assert!(s.has_validations());
    }

    #[test]
    fn wrong_shapes_are_errors() {
        assert!(Schema::from_json(&json!({"type": 3})).is_err());
        assert!(Schema::from_json(&json!({"properties": []})).is_err());
        assert!(Schema::from_json(&json!("x")).is_err());
    }
}

/// How many JSON levels of a version's schema are decoded: deeper than any schema the
/// 200-level limit of the CEL types accepts (`decl_types::MAX_SCHEMA_DEPTH`, two JSON levels
/// a schema level at most), shallow enough that the typed decoding's recursion fits the
/// deep stack in an unoptimised build too. Below it a schema is an object without fields,
/// so a deeper schema is still refused as too deep.
const SCHEMA_READ_DEPTH: usize = 1_000;

/// How deep `value` nests (a scalar is 0), counted without recursion.
fn json_depth(value: &serde_json::Value) -> usize {
    let mut deepest = 0;
    let mut todo = vec![(value, 0)];
    while let Some((node, depth)) = todo.pop() {
        deepest = deepest.max(depth);
        match node {
            serde_json::Value::Object(m) => todo.extend(m.values().map(|v| (v, depth + 1))),
            serde_json::Value::Array(a) => todo.extend(a.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// `value` down to `levels` levels, an empty object schema below.
fn cut(value: &serde_json::Value, levels: usize) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(_) | Value::Array(_) if levels == 0 => serde_json::json!({"type": "object"}),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), cut(v, levels - 1)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| cut(v, levels - 1)).collect()),
        other => other.clone(),
    }
}

/// The schemas of a CustomResourceDefinition (as JSON): for each version, its name, its
/// `openAPIV3Schema` and that schema's path in the CRD (`spec.versions[0].schema.openAPIV3Schema`).
pub fn crd_version_schemas(
    crd: &serde_json::Value,
) -> Result<Vec<(String, Schema, super::FieldPath)>, DefinitionError> {
    let versions = crd
        .pointer("/spec/versions")
        .and_then(|v| v.as_array())
        .ok_or(DefinitionError::Missing("spec.versions"))?;
    let mut out = Vec::with_capacity(versions.len());
    for (i, v) in versions.iter().enumerate() {
        let name = v.get("name").and_then(|n| n.as_str()).unwrap_or_default();
        let path = super::FieldPath::new("spec")
            .child("versions")
            .index(i)
            .child("schema")
            .child("openAPIV3Schema");
        let Some(schema) = v.pointer("/schema/openAPIV3Schema") else {
            continue;
        };
        let cut_schema;
        let schema = if json_depth(schema) > SCHEMA_READ_DEPTH {
            cut_schema = cut(schema, SCHEMA_READ_DEPTH);
            &cut_schema
        } else {
            schema
        };
        let schema = Schema::from_json(schema).map_err(|error| DefinitionError::Schema {
            path: path.clone(),
            error,
        })?;
        out.push((name.to_string(), schema, path));
    }
    Ok(out)
}

#[cfg(test)]
mod crd_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_deeper_than_read_are_cut_and_still_too_deep() {
        crate::documents::with_deep_stack(|| {
            // Built by hand: `json!` would serialize the inner value again at each level.
            let mut schema = json!({"type": "string"});
            for _ in 0..4_000 {
                let mut properties = serde_json::Map::new();
                properties.insert("a".into(), schema);
                let mut node = serde_json::Map::new();
                node.insert("type".into(), json!("object"));
                node.insert("properties".into(), serde_json::Value::Object(properties));
                schema = serde_json::Value::Object(node);
            }
            let crd = json!({"spec": {"versions": [
                {"name": "v1", "schema": {"openAPIV3Schema": schema}}]}});
            let versions = crd_version_schemas(&crd).unwrap();
            let (_, read, _) = &versions[0];
            assert!(super::super::SchemaTypes::build(read, "Thing", true).is_err());
            std::mem::forget(crd); // a 8,000-level value: its drop is not what this tests
        });
    }

    #[test]
    fn finds_each_version_schema() {
        let crd = json!({"spec": {"versions": [
            {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}},
            {"name": "v2"},
            {"name": "v3", "schema": {"openAPIV3Schema": {"type": "object"}}}
        ]}});
        let found = crd_version_schemas(&crd).unwrap();
        let names: Vec<_> = found.iter().map(|(n, _, p)| format!("{n} {p}")).collect();
        assert_eq!(
            names,
            [
                "v1 spec.versions[0].schema.openAPIV3Schema",
                "v3 spec.versions[2].schema.openAPIV3Schema"
            ]
        );
        assert!(crd_version_schemas(&json!({})).is_err());
        assert!(
            crd_version_schemas(
                &json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": 1}}]}})
            )
            .is_err()
        );
    }
}

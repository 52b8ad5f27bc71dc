//! Structural schemas as CEL types: a [`DeclType`] tree per schema (with the size facts the
//! cost estimator needs) and a [`TypeProvider`] for the object types in it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::escaping::{escape, is_reserved};
use super::schema::Schema;
use kcel::Type;
use kcel::TypeProvider;

/// The request size Kubernetes assumes when bounding sizes: 3 MiB.
pub const MAX_REQUEST_SIZE_BYTES: u64 = 3 * 1024 * 1024;
/// Minimum JSON sizes of values (`""`, `true`, `0`, ...).
pub const MIN_STRING_SIZE: u64 = 2;
pub const MIN_BOOL_SIZE: u64 = 4;
pub const MIN_NUMBER_SIZE: u64 = 1;
pub const JSON_DATE_SIZE: u64 = 12;
pub const MIN_DATETIME_SIZE: u64 = 21;
pub const MAX_DATETIME_SIZE: u64 = 32;
pub const MIN_DURATION_SIZE: u64 = 3;
pub const MAX_DURATION_SIZE: u64 = 32;

/// Schemas nested deeper than this are rejected.
pub const MAX_SCHEMA_DEPTH: usize = 200;

/// A schema nested deeper than 200 levels ([`SchemaTypes::build`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("schema nested deeper than {MAX_SCHEMA_DEPTH} levels")]
pub struct SchemaTooDeep;

/// What a list's `==` and `+` mean (`x-kubernetes-list-type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// `x-kubernetes-list-type: atomic` (or unset): compared and replaced as a whole.
    Atomic,
    /// `x-kubernetes-list-type: set`: unique scalar items, order ignored by `==`.
    Set,
    /// A map list, keyed by these (escaped) field names.
    Map(Vec<String>),
}

/// The CEL view of one schema node.
#[derive(Clone, Debug)]
pub struct DeclType {
    /// The CEL type of values at this node.
    pub cel: Type,
    /// What the node is: scalar, object, list or map.
    pub(crate) kind: DeclKind,
    /// The largest size (code points, bytes, elements or entries) a value may have here, for
    /// cost estimation; 0 for numbers and booleans.
    pub max_elements: u64,
    /// The smallest JSON serialization of a value here.
    pub min_serialized_size: u64,
    /// Whether `null` is a valid value here.
    pub nullable: bool,
}

/// The shape of a [`DeclType`].
#[derive(Clone, Debug)]
pub(crate) enum DeclKind {
    /// A scalar or `dyn` (int-or-string).
    Scalar,
    /// An object with declared properties, by escaped field name.
    Object {
        /// By escaped name; a property whose name cannot be escaped (`k!`) by its own name,
        /// which no field selection can reach but equality and map-list keys see.
        fields: BTreeMap<String, Field>,
        /// Declared properties without a CEL type (untyped, or lists and maps of untyped
        /// values, under `x-kubernetes-preserve-unknown-fields`): not selectable, but their
        /// data takes part in equality, as Kubernetes' unstructured values compare them.
        untyped: Vec<String>,
        /// Whether unknown fields are kept (`x-kubernetes-preserve-unknown-fields`).
        preserve_unknown: bool,
    },
    /// A list (`array`).
    List {
        /// The items' type.
        elem: Arc<DeclType>,
        /// How the list's items are identified.
        list: ListKind,
    },
    /// `additionalProperties`: string keys.
    Map {
        /// The values' type.
        value: Arc<DeclType>,
    },
}

/// A declared object property.
#[derive(Clone, Debug)]
pub struct Field {
    /// The property name as written in the schema.
    pub property: String,
    /// Its declared type.
    pub ty: Arc<DeclType>,
    /// Whether the schema lists it as required.
    pub required: bool,
}

impl DeclType {
    fn scalar(cel: Type, max_elements: u64, min_serialized_size: u64) -> DeclType {
        DeclType {
            cel,
            kind: DeclKind::Scalar,
            max_elements,
            min_serialized_size,
            nullable: false,
        }
    }

    /// The declared field by CEL name, also accepting a reserved word unescaped
    /// (`self.namespace` for `__namespace__`).
    pub fn field(&self, name: &str) -> Option<&Field> {
        let DeclKind::Object { fields, .. } = &self.kind else {
            return None;
        };
        fields.get(name).or_else(|| {
            if is_reserved(name) {
                fields.get(&format!("__{name}__"))
            } else {
                None
            }
        })
    }

    /// The element type of a list, or the value type of a map.
    pub fn elem(&self) -> Option<&Arc<DeclType>> {
        match &self.kind {
            DeclKind::List { elem, .. } => Some(elem),
            DeclKind::Map { value } => Some(value),
            _ => None,
        }
    }
}

/// The CEL types of a schema tree, named by path from `root_name` (`selfType.spec`,
/// `selfType.spec.items.@idx`, `selfType.labels.@elem`).
#[derive(Debug, Default)]
pub struct SchemaTypes {
    objects: HashMap<String, Arc<DeclType>>,
}

impl SchemaTypes {
    /// Builds the types of `schema`; `None` when the schema has no CEL type (e.g. a
    /// non-object `x-kubernetes-preserve-unknown-fields` node or an untyped node).
    pub fn build(
        schema: &Schema,
        root_name: &str,
        is_resource_root: bool,
    ) -> Result<(SchemaTypes, Option<Arc<DeclType>>), SchemaTooDeep> {
        let mut types = SchemaTypes::default();
        let root = types.decl_type(schema, root_name, is_resource_root, 0)?;
        Ok((types, root))
    }

    fn decl_type(
        &mut self,
        s: &Schema,
        name: &str,
        is_resource_root: bool,
        depth: usize,
    ) -> Result<Option<Arc<DeclType>>, SchemaTooDeep> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(SchemaTooDeep);
        }
        if s.int_or_string {
            let max = match s.max_length {
                Some(l) => zero_if_negative(l).saturating_mul(4),
                None => MAX_REQUEST_SIZE_BYTES - 2,
            };
            let mut t = DeclType::scalar(Type::Dyn, max, 1);
            t.nullable = s.nullable;
            return Ok(Some(Arc::new(t)));
        }
        let with_meta;
        let s = if is_resource_root {
            with_meta = with_type_and_object_meta(s);
            &with_meta
        } else {
            s
        };
        let mut t = match s.type_.as_str() {
            "array" => {
                let Some(items) = s.items() else {
                    return Ok(None);
                };
                let Some(elem) = self.decl_type(
                    items,
                    &format!("{name}.@idx"),
                    items.embedded_resource,
                    depth + 1,
                )?
                else {
                    return Ok(None);
                };
                let max = match s.max_items {
                    Some(n) => zero_if_negative(n),
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 1),
                };
                let list = match s.list_type() {
                    "set" => ListKind::Set,
                    "map" => ListKind::Map(
                        s.list_map_keys
                            .iter()
                            .map(|k| escape(k).unwrap_or_else(|| k.clone()))
                            .collect(),
                    ),
                    _ => ListKind::Atomic,
                };
                DeclType {
                    cel: Type::list(elem.cel.clone()),
                    kind: DeclKind::List { elem, list },
                    max_elements: max,
                    min_serialized_size: 2,
                    nullable: s.nullable,
                }
            }
            "object" => {
                if let Some(values) = s.additional_schema() {
                    let Some(value) = self.decl_type(
                        values,
                        &format!("{name}.@elem"),
                        values.embedded_resource,
                        depth + 1,
                    )?
                    else {
                        return Ok(None);
                    };
                    let max = match s.max_properties {
                        Some(n) => zero_if_negative(n),
                        None => (MAX_REQUEST_SIZE_BYTES - 2) / (value.min_serialized_size + 6),
                    };
                    DeclType {
                        cel: Type::map(Type::String, value.cel.clone()),
                        kind: DeclKind::Map { value },
                        max_elements: max,
                        min_serialized_size: 2,
                        nullable: s.nullable,
                    }
                } else {
                    let mut fields = BTreeMap::new();
                    let mut untyped = Vec::new();
                    let mut min_size: u64 = 2;
                    for (prop, ps) in &s.properties {
                        // Kubernetes names nested object types by escaped field name.
                        let field_name =
                            format!("{name}.{}", escape(prop).as_deref().unwrap_or(prop));
                        let Some(ty) =
                            self.decl_type(ps, &field_name, ps.embedded_resource, depth + 1)?
                        else {
                            untyped.push(prop.clone());
                            continue;
                        };
                        let required = s.required.contains(prop);
                        if required && ps.default.is_none() {
                            min_size = min_size
                                .saturating_add(prop.len() as u64)
                                .saturating_add(ty.min_serialized_size)
                                .saturating_add(4);
                        }
                        // Kubernetes' unstructured objects find a property whose name
                        // cannot be escaped by that name (`Unescape` leaves it as is).
                        let key = escape(prop).unwrap_or_else(|| prop.clone());
                        fields.insert(
                            key,
                            Field {
                                property: prop.clone(),
                                ty,
                                required,
                            },
                        );
                    }
                    let t = Arc::new(DeclType {
                        cel: Type::Object(name.into()),
                        kind: DeclKind::Object {
                            fields,
                            untyped,
                            preserve_unknown: s.preserves_unknown_fields(),
                        },
                        max_elements: 0,
                        min_serialized_size: min_size,
                        nullable: s.nullable,
                    });
                    self.objects.insert(name.to_string(), t.clone());
                    return Ok(Some(t));
                }
            }
            "string" => string_type(s),
            "boolean" => DeclType::scalar(Type::Bool, 0, MIN_BOOL_SIZE),
            "number" => DeclType::scalar(Type::Double, 0, MIN_NUMBER_SIZE),
            "integer" => DeclType::scalar(Type::Int, 0, MIN_NUMBER_SIZE),
            _ => return Ok(None),
        };
        t.nullable = s.nullable;
        Ok(Some(Arc::new(t)))
    }

    /// The object type with this name.
    pub fn object(&self, name: &str) -> Option<&Arc<DeclType>> {
        self.objects.get(name)
    }

    /// The types of the tree under `ty` named from `root`, as Kubernetes names them for the
    /// rules of one schema node: the node's object type is `root` (Kubernetes:
    /// `selfType<N>` with a number that changes with every compilation), a field's
    /// `root.<escaped field>`, list items `.@idx`, map values `.@elem`.
    pub fn rooted(ty: &Arc<DeclType>, root: &str) -> (SchemaTypes, Arc<DeclType>) {
        let mut types = SchemaTypes::default();
        let t = types.rename(ty, root, 0);
        (types, t)
    }

    fn rename(&mut self, t: &Arc<DeclType>, name: &str, depth: usize) -> Arc<DeclType> {
        if depth > MAX_SCHEMA_DEPTH {
            return t.clone();
        }
        let kind = match &t.kind {
            DeclKind::Scalar => return t.clone(),
            DeclKind::Object {
                fields,
                untyped,
                preserve_unknown,
                ..
            } => {
                let fields = fields
                    .iter()
                    .map(|(k, f)| {
                        let ty = self.rename(&f.ty, &format!("{name}.{k}"), depth + 1);
                        (k.clone(), Field { ty, ..f.clone() })
                    })
                    .collect();
                let name: Arc<str> = name.into();
                let renamed = Arc::new(DeclType {
                    cel: Type::Object(name.clone()),
                    kind: DeclKind::Object {
                        fields,
                        untyped: untyped.clone(),
                        preserve_unknown: *preserve_unknown,
                    },
                    ..(**t).clone()
                });
                self.objects.insert(name.to_string(), renamed.clone());
                return renamed;
            }
            DeclKind::List { elem, list } => DeclKind::List {
                elem: self.rename(elem, &format!("{name}.@idx"), depth + 1),
                list: list.clone(),
            },
            DeclKind::Map { value } => DeclKind::Map {
                value: self.rename(value, &format!("{name}.@elem"), depth + 1),
            },
        };
        let cel = match &kind {
            DeclKind::List { elem, .. } => Type::list(elem.cel.clone()),
            DeclKind::Map { value } => Type::map(Type::String, value.cel.clone()),
            _ => t.cel.clone(),
        };
        Arc::new(DeclType {
            cel,
            kind,
            ..(**t).clone()
        })
    }
}

impl TypeProvider for SchemaTypes {
    fn has_struct_type(&self, name: &str) -> bool {
        self.objects.contains_key(name)
    }

    fn field_type(&self, struct_name: &str, field: &str) -> Option<Type> {
        self.objects
            .get(struct_name)?
            .field(field)
            .map(|f| f.ty.cel.clone())
    }
}

fn string_type(s: &Schema) -> DeclType {
    let request_bound = |s: &Schema| match s.format.as_str() {
        "duration" => MAX_DURATION_SIZE,
        "date" => JSON_DATE_SIZE,
        "date-time" => MAX_DATETIME_SIZE,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    };
    match s.format.as_str() {
        "byte" => DeclType::scalar(
            Type::Bytes,
            s.max_length.map_or(request_bound(s), zero_if_negative),
            MIN_STRING_SIZE,
        ),
        "duration" => DeclType::scalar(Type::Duration, request_bound(s), MIN_DURATION_SIZE),
        "date" => DeclType::scalar(Type::Timestamp, request_bound(s), JSON_DATE_SIZE),
        "date-time" => DeclType::scalar(Type::Timestamp, request_bound(s), MIN_DATETIME_SIZE),
        _ => {
            let max = match s.max_length {
                Some(l) => zero_if_negative(l).saturating_mul(4),
                None if !s.enum_.is_empty() => s
                    .enum_
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(|v| v.len() as u64)
                    .max()
                    .unwrap_or(0),
                None => request_bound(s),
            };
            DeclType::scalar(Type::String, max, MIN_STRING_SIZE)
        }
    }
}

fn zero_if_negative(n: i64) -> u64 {
    n.max(0) as u64
}

/// The schema of a resource root (apiextensions' `WithTypeAndObjectMeta`): a schema that
/// declares `apiVersion` and `kind` strings and a `metadata` object with `name` and
/// `generateName` strings is kept as it is (every declared metadata property visible, as an
/// embedded resource may declare); otherwise `apiVersion` and `kind` strings and `metadata`
/// with only `name` and `generateName` (their maxLength 253 and 252, or the declared one if
/// shorter) replace what the schema declares.
pub fn with_type_and_object_meta(s: &Schema) -> Schema {
    let is_string = |p: Option<&Schema>| p.is_some_and(|p| p.type_ == "string");
    let declared_meta = s.properties.get("metadata");
    let complete = is_string(s.properties.get("kind"))
        && is_string(s.properties.get("apiVersion"))
        && declared_meta.is_some_and(|m| {
            m.type_ == "object"
                && is_string(m.properties.get("name"))
                && is_string(m.properties.get("generateName"))
        });
    if complete {
        return s.clone();
    }
    let string = |max: Option<i64>| Schema {
        type_: "string".into(),
        max_length: max,
        ..Schema::default()
    };
    // `cappedLengthStringType`: the cap, or the declared maxLength when it is shorter.
    let capped = |field: &str, cap: i64| {
        let declared = declared_meta
            .and_then(|m| m.properties.get(field))
            .and_then(|p| p.max_length);
        string(Some(declared.map_or(cap, |d| d.min(cap))))
    };
    let mut out = s.clone();
    out.properties.insert("apiVersion".into(), string(None));
    out.properties.insert("kind".into(), string(None));
    let mut meta = Schema {
        type_: "object".into(),
        ..Schema::default()
    };
    meta.properties.insert("name".into(), capped("name", 253));
    meta.properties
        .insert("generateName".into(), capped("generateName", 252));
    out.properties.insert("metadata".into(), meta);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(v: serde_json::Value) -> (SchemaTypes, Arc<DeclType>) {
        let s = Schema::from_json(&v).unwrap();
        let (types, root) = SchemaTypes::build(&s, "selfType", false).unwrap();
        (types, root.unwrap())
    }

    #[test]
    fn maps_schema_types_to_cel_types() {
        let (types, root) = build(json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "b": {"type": "string", "format": "byte"},
                "d": {"type": "string", "format": "duration"},
                "t": {"type": "string", "format": "date-time"},
                "day": {"type": "string", "format": "date"},
                "i": {"type": "integer", "format": "int32"},
                "n": {"type": "number"},
                "ok": {"type": "boolean"},
                "ios": {"x-kubernetes-int-or-string": true},
                "l": {"type": "array", "items": {"type": "string"}},
                "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}},
                "a-o": {"type": "object", "properties": {"x": {"type": "string"}}},
                "a-b": {"type": "string"},
                "namespace": {"type": "string"},
                "1x": {"type": "string"},
                "p": {"x-kubernetes-preserve-unknown-fields": true},
            }
        }));
        let f = |n: &str| types.field_type("selfType", n).map(|t| t.to_string());
        assert_eq!(f("s").as_deref(), Some("string"));
        assert_eq!(f("b").as_deref(), Some("bytes"));
        assert_eq!(f("d").as_deref(), Some("duration"));
        assert_eq!(f("t").as_deref(), Some("timestamp"));
        assert_eq!(f("day").as_deref(), Some("timestamp"));
        assert_eq!(f("i").as_deref(), Some("int"));
        assert_eq!(f("n").as_deref(), Some("double"));
        assert_eq!(f("ok").as_deref(), Some("bool"));
        assert_eq!(f("ios").as_deref(), Some("dyn"));
        assert_eq!(f("l").as_deref(), Some("list(string)"));
        assert_eq!(f("m").as_deref(), Some("map(string, int)"));
        assert_eq!(f("o").as_deref(), Some("selfType.o"));
        assert_eq!(f("a__dash__o").as_deref(), Some("selfType.a__dash__o"));
        assert_eq!(f("a__dash__b").as_deref(), Some("string"));
        assert_eq!(f("a-b"), None);
        assert_eq!(f("__namespace__").as_deref(), Some("string"));
        assert_eq!(f("namespace").as_deref(), Some("string"));
        assert_eq!(f("p"), None);
        assert!(types.has_struct_type("selfType.o"));
        assert!(matches!(root.kind, DeclKind::Object { .. }));
    }

    #[test]
    fn types_are_named_from_the_rule_node() {
        let (_, root) = build(json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "l": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
                "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"y": {"type": "integer"}}}}
            }}}
        }));
        let spec = root.field("spec").unwrap().ty.clone();
        assert_eq!(spec.cel.to_string(), "selfType.spec");
        let (types, renamed) = SchemaTypes::rooted(&spec, "selfType");
        assert_eq!(renamed.cel.to_string(), "selfType");
        assert_eq!(
            types
                .field_type("selfType", "l")
                .map(|t| t.to_string())
                .as_deref(),
            Some("list(selfType.l.@idx)")
        );
        assert_eq!(
            types
                .field_type("selfType", "m")
                .map(|t| t.to_string())
                .as_deref(),
            Some("map(string, selfType.m.@elem)")
        );
        assert_eq!(types.field_type("selfType.l.@idx", "x"), Some(Type::String));
        assert_eq!(types.field_type("selfType.m.@elem", "y"), Some(Type::Int));
        assert!(!types.has_struct_type("selfType.spec"));
    }

    #[test]
    fn size_bounds_follow_the_request_size() {
        let (_, root) = build(json!({
            "type": "object",
            "required": ["name", "count"],
            "properties": {
                "name": {"type": "string", "maxLength": 10},
                "count": {"type": "integer", "default": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "e": {"type": "string", "enum": ["a", "abc"]},
                "d": {"type": "string", "format": "duration", "maxLength": 5}
            }
        }));
        let f = |n: &str| root.field(n).unwrap().ty.clone();
        assert_eq!(f("name").max_elements, 40);
        assert_eq!(f("tags").max_elements, 3_145_726 / 3);
        assert_eq!(f("labels").max_elements, 3_145_726 / 8);
        assert_eq!(f("e").max_elements, 3);
        assert_eq!(f("d").max_elements, 32);
        assert_eq!(f("count").max_elements, 0);
        // {} + "name": "" (4 + 2 + 4); count has a default.
        assert_eq!(root.min_serialized_size, 2 + 4 + 2 + 4);
    }

    #[test]
    fn resource_roots_expose_type_and_object_meta() {
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {"namespace": {"type": "string"}}}
        }}))
        .unwrap();
        let (types, _) = SchemaTypes::build(&s, "selfType", true).unwrap();
        assert_eq!(types.field_type("selfType", "kind"), Some(Type::String));
        assert_eq!(
            types.field_type("selfType.metadata", "name"),
            Some(Type::String)
        );
        assert_eq!(types.field_type("selfType.metadata", "namespace"), None);
    }

    /// apiextensions-apiserver `pkg/apiserver/schema/cel/model` `WithTypeAndObjectMeta`: a
    /// resource schema declaring kind, apiVersion, metadata.name and metadata.generateName
    /// is kept, with every metadata property it declares; a declared shorter maxLength of
    /// name or generateName is kept when the schema is completed (`cappedLengthStringType`).
    #[test]
    fn complete_resource_schemas_keep_their_metadata() {
        let string = json!({"type": "string"});
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "apiVersion": string, "kind": string,
            "metadata": {"type": "object", "properties": {
                "name": string, "generateName": string, "namespace": string}}
        }}))
        .unwrap();
        let (types, _) = SchemaTypes::build(&s, "selfType", true).unwrap();
        assert_eq!(
            types.field_type("selfType.metadata", "namespace"),
            Some(Type::String)
        );
        let short = Schema::from_json(&json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {
                "name": {"type": "string", "maxLength": 10}}}
        }}))
        .unwrap();
        let meta = &with_type_and_object_meta(&short).properties["metadata"];
        assert_eq!(meta.properties["name"].max_length, Some(10));
        assert_eq!(meta.properties["generateName"].max_length, Some(252));
    }

    #[test]
    fn deep_schemas_are_errors() {
        let mut v = json!({"type": "string"});
        for _ in 0..300 {
            v = json!({"type": "array", "items": v});
        }
        // Built directly (serde_json's parser would stop at 128 levels).
        let mut s = Schema::from_json(&json!({"type": "string"})).unwrap();
        for _ in 0..300 {
            s = Schema {
                type_: "array".into(),
                items: Some(crate::kubernetes::crd::Items::Schema(Box::new(s))),
                ..Schema::default()
            };
        }
        assert!(SchemaTypes::build(&s, "selfType", false).is_err());
        drop(v);
    }
}

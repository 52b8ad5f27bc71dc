//! Walking an OpenAPI schema of a built-in kind as kube-apiserver's typed decoding reads an
//! object: the first value whose JSON type does not fit the Go field (upstream's
//! `json: cannot unmarshal ...` text), the fields the Go types do not have (dropped, and named
//! as strict decoding names them) and fields given twice in a JSON body.
//!
//! The schemas are OpenAPI v3 `components.schemas` maps (the vendored catalogue,
//! or a served document's); references are `#/components/schemas/<name>`, directly or as
//! the single entry of an `allOf`.

use std::cell::RefCell;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::kubernetes::crd::go_json_type;
use crate::kubernetes::go_time;

/// A schema node within a map of named schemas, for walking: follows `$ref` and
/// single-`allOf` wrappers.
#[derive(Clone, Copy, Debug)]
pub struct OpenApiSchema<'a> {
    pub(super) schemas: &'a Map<String, Value>,
    pub(super) node: &'a Value,
}

/// How many references are followed before a schema counts as unresolved.
const MAX_REFERENCES: usize = 16;

impl<'a> OpenApiSchema<'a> {
    /// The schema `node`, whose references name schemas of `schemas`.
    pub fn new(schemas: &'a Map<String, Value>, node: &'a Value) -> OpenApiSchema<'a> {
        OpenApiSchema { schemas, node }
    }

    /// The schema called `name` in `schemas`.
    pub fn named(schemas: &'a Map<String, Value>, name: &str) -> Option<OpenApiSchema<'a>> {
        Some(OpenApiSchema {
            schemas,
            node: schemas.get(name)?,
        })
    }

    /// The schema of the kind `group`/`version`/`kind` in `schemas`: the one whose
    /// `x-kubernetes-group-version-kind` names it.
    pub fn of_kind(
        schemas: &'a Map<String, Value>,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Option<OpenApiSchema<'a>> {
        let node = schemas.values().find(|s| {
            s.get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array)
                .is_some_and(|gvks| {
                    gvks.iter().any(|g| {
                        g["group"] == group && g["version"] == version && g["kind"] == kind
                    })
                })
        })?;
        Some(OpenApiSchema { schemas, node })
    }

    pub(super) fn at(self, node: &'a Value) -> OpenApiSchema<'a> {
        OpenApiSchema {
            schemas: self.schemas,
            node,
        }
    }

    /// The name a `$ref` points at (`#/components/schemas/<name>` or `#/definitions/<name>`).
    fn target(reference: &str) -> &str {
        reference.rsplit('/').next().unwrap_or(reference)
    }

    /// This schema with references followed.
    fn resolved(self) -> OpenApiSchema<'a> {
        let mut node = self.node;
        for _ in 0..MAX_REFERENCES {
            if let Some(r) = node.get("$ref").and_then(Value::as_str) {
                match self.schemas.get(Self::target(r)) {
                    Some(target) => node = target,
                    None => break,
                }
            } else if let Some([only]) = node
                .get("allOf")
                .and_then(Value::as_array)
                .map(|a| a.as_slice())
            {
                node = only;
            } else {
                break;
            }
        }
        self.at(node)
    }

    /// The name of the schema a reference (direct or through a single `allOf`) points at.
    pub(crate) fn ref_name(self) -> Option<&'a str> {
        let mut node = self.node;
        for _ in 0..MAX_REFERENCES {
            if let Some(r) = node.get("$ref").and_then(Value::as_str) {
                return Some(Self::target(r));
            }
            match node
                .get("allOf")
                .and_then(Value::as_array)
                .map(|a| a.as_slice())
            {
                Some([only]) => node = only,
                _ => return None,
            }
        }
        None
    }

    /// The schema node with references followed.
    pub(crate) fn resolved_node(self) -> &'a Value {
        self.resolved().node
    }

    /// The schema node as written (where upstream puts a field's extensions).
    pub(crate) fn node_value(self) -> &'a Value {
        self.node
    }

    /// The schema of a field of an object (a property, or the values of a map).
    pub fn field(self, name: &str) -> Option<OpenApiSchema<'a>> {
        let r = self.resolved();
        let node = r
            .node
            .get("properties")
            .and_then(|p| p.get(name))
            .or_else(|| r.node.get("additionalProperties").filter(|v| v.is_object()))?;
        Some(self.at(node))
    }

    /// The schema of a declared property only (not the values of a map).
    pub fn property(self, name: &str) -> Option<OpenApiSchema<'a>> {
        let node = self.resolved().node.get("properties")?.get(name)?;
        Some(self.at(node))
    }

    /// The schema of the values of a map (`additionalProperties`), if it gives one.
    pub(crate) fn additional_properties(self) -> Option<OpenApiSchema<'a>> {
        let node = self
            .resolved()
            .node
            .get("additionalProperties")
            .filter(|v| v.is_object())?;
        Some(self.at(node))
    }

    /// The schema of the items of a list.
    pub fn items(self) -> Option<OpenApiSchema<'a>> {
        let node = self.resolved().node.get("items")?;
        Some(self.at(node))
    }

    /// Whether the field (the unresolved property schema, where upstream puts the extensions)
    /// names a patch strategy containing `strategy`.
    pub fn patch_strategy_has(self, strategy: &str) -> bool {
        self.extension("x-kubernetes-patch-strategy")
            .is_some_and(|s| s.split(',').any(|p| p.trim() == strategy))
    }

    /// The patch merge key of a list field.
    pub fn merge_key(self) -> Option<&'a str> {
        self.extension("x-kubernetes-patch-merge-key")
    }

    fn extension(self, name: &str) -> Option<&'a str> {
        self.node
            .get(name)
            .or_else(|| self.resolved().node.get(name))
            .and_then(Value::as_str)
    }

    fn preserves_unknown_fields(self) -> bool {
        self.resolved()
            .node
            .get("x-kubernetes-preserve-unknown-fields")
            == Some(&Value::Bool(true))
    }

    /// How the Go type behind this schema decodes JSON.
    fn go_type(self) -> GoType {
        if let Some(name) = self.ref_name() {
            let r = self.resolved();
            if r.node.get("properties").is_some() {
                return GoType::Plain(go_struct(name));
            }
            return match name.rsplit('.').next() {
                Some("IntOrString") => GoType::IntOrString,
                // Time, Quantity, RawExtension, JSON, ...: their own decoders.
                _ => GoType::Own,
            };
        }
        let n = self.node;
        if n.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            return GoType::IntOrString;
        }
        if n.get("x-kubernetes-preserve-unknown-fields").is_some() {
            return GoType::Own;
        }
        let plain = match (
            n.get("type").and_then(Value::as_str),
            n.get("format").and_then(Value::as_str),
        ) {
            (Some("string"), Some("byte")) => "[]uint8".to_owned(),
            (Some("string"), Some("date-time")) => return GoType::Own,
            (Some("string"), _) => "string".to_owned(),
            (Some("integer"), Some("int32")) => "int32".to_owned(),
            (Some("integer"), _) => "int64".to_owned(),
            (Some("number"), _) => "float64".to_owned(),
            (Some("boolean"), _) => "bool".to_owned(),
            (Some("array"), _) => match self.items().map(OpenApiSchema::go_type) {
                Some(GoType::Plain(items)) => format!("[]{items}"),
                _ => return GoType::Own,
            },
            (Some("object"), _) => match self.additional_properties().map(OpenApiSchema::go_type) {
                Some(GoType::Plain(values)) => format!("map[string]{values}"),
                _ => return GoType::Own,
            },
            _ => return GoType::Own,
        };
        GoType::Plain(plain)
    }

    /// The first value of `value` whose JSON type does not fit this schema's Go type, as
    /// upstream's decoder reports it: `json: cannot unmarshal number into Go struct field
    /// ConfigMap.data of type string` (encoding/json's `UnmarshalTypeError`: the innermost
    /// struct and the path of JSON field names to the value). `kind` names the struct of
    /// the root.
    pub fn type_error(self, value: &Value, kind: &str) -> Option<String> {
        self.type_walk(value, kind, "", 0)
    }

    fn type_walk(self, value: &Value, owner: &str, path: &str, depth: usize) -> Option<String> {
        let r = self.resolved();
        let (Value::Object(map), Some(properties)) =
            (value, r.node.get("properties").and_then(Value::as_object))
        else {
            return None;
        };
        if depth > crate::documents::MAX_DEPTH {
            return None;
        }
        let owner = self
            .ref_name()
            .and_then(|n| n.rsplit('.').next())
            .unwrap_or(owner);
        map.iter().find_map(|(key, child)| {
            let field = self.at(properties.get(key)?);
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            field.mismatch(child, owner, &child_path, depth + 1)
        })
    }

    /// Checks a field's value against the field's Go type, then its contents.
    fn mismatch(self, value: &Value, owner: &str, path: &str, depth: usize) -> Option<String> {
        if value.is_null() {
            return None;
        }
        let json_type = go_json_type(value);
        let go = match self.go_type() {
            GoType::Own => return self.own_mismatch(value, owner, path, depth),
            // intstr.IntOrString's UnmarshalJSON: a string, or an int32 read by a fresh
            // json.Unmarshal (so its error names a Go value, not a struct field).
            GoType::IntOrString => {
                return match value {
                    Value::String(_) => None,
                    Value::Number(n) if n.as_i64().is_some_and(fits_int32) => None,
                    Value::Number(n) => Some(format!(
                        "json: cannot unmarshal number {n} into Go value of type int32"
                    )),
                    _ => Some(format!(
                        "json: cannot unmarshal {json_type} into Go value of type int32"
                    )),
                };
            }
            GoType::Plain(go) => go,
        };
        let fits = match go.as_str() {
            "string" | "[]uint8" => json_type == "string",
            "bool" => json_type == "bool",
            "float64" => json_type == "number",
            "int32" | "int64" => {
                if json_type != "number" {
                    false
                } else {
                    // A fraction, an exponent or an out-of-range integer: the number's text.
                    let fits = match value.as_i64() {
                        Some(i) => go == "int64" || fits_int32(i),
                        None => false,
                    };
                    if !fits {
                        return Some(format!(
                            "json: cannot unmarshal number {value} into Go struct field {owner}.{path} of type {go}"
                        ));
                    }
                    true
                }
            }
            t if t.starts_with("[]") => json_type == "array",
            _ => json_type == "object",
        };
        if !fits {
            return Some(format!(
                "json: cannot unmarshal {json_type} into Go struct field {owner}.{path} of type {go}"
            ));
        }
        // encoding/json decodes a string into a `[]byte` with `base64.StdEncoding`; its
        // `CorruptInputError` is the decoder's error as it is.
        if let (Value::String(text), "[]uint8") = (value, go.as_str())
            && let Err(at) = crate::ext::encoders::decode_std(text)
        {
            return Some(format!("illegal base64 data at input byte {at}"));
        }
        match value {
            Value::Array(items) => {
                let items_schema = self.items()?;
                items
                    .iter()
                    .find_map(|item| items_schema.mismatch(item, owner, path, depth + 1))
            }
            Value::Object(map) if go.starts_with("map[") => {
                let values = self.additional_properties()?;
                map.values()
                    .find_map(|v| values.mismatch(v, owner, path, depth + 1))
            }
            Value::Object(_) => self.type_walk(value, owner, path, depth),
            _ => None,
        }
    }

    /// A value of a type with its own decoder, or a map or list of such values. Checked:
    /// `resource.Quantity` (its `UnmarshalJSON`, apimachinery
    /// `pkg/api/resource/quantity.go`, as [`crate::kubernetes::quantity::from_go_json`]
    /// reads it: `ParseQuantity`'s error is the decoder's, unwrapped)
    /// and `metav1.Time`/`metav1.MicroTime` (`pkg/apis/meta/v1/time.go`, `micro_time.go`:
    /// `null` is the zero time, anything else is read as a JSON string by encoding/json,
    /// then by Go's `time.Parse` with `time.RFC3339`/`RFC3339Micro`, whose errors are the
    /// decoder's as they are).
    fn own_mismatch(self, value: &Value, owner: &str, path: &str, depth: usize) -> Option<String> {
        if depth > crate::documents::MAX_DEPTH {
            return None;
        }
        if let Some(name) = self.ref_name() {
            if value.is_null() {
                return None;
            }
            if name.ends_with(".api.resource.Quantity") {
                return crate::kubernetes::quantity::from_go_json(value)
                    .err()
                    .map(|e| e.to_string());
            }
            let parse = match name.rsplit_once(".apis.meta.v1.") {
                Some((_, "Time")) => go_time::parse_rfc3339,
                Some((_, "MicroTime")) => go_time::parse_rfc3339_micro,
                _ => return None,
            };
            return match value {
                Value::String(s) => parse(s).err().map(|e| e.to_string()),
                // json.Unmarshal into a string (a top-level value: no struct field named).
                other => Some(format!(
                    "json: cannot unmarshal {} into Go value of type string",
                    go_json_type(other)
                )),
            };
        }
        match value {
            Value::Object(map) => {
                let values = self.additional_properties()?;
                map.values()
                    .find_map(|v| values.mismatch(v, owner, path, depth + 1))
            }
            Value::Array(items) => {
                let items_schema = self.items()?;
                items
                    .iter()
                    .find_map(|item| items_schema.mismatch(item, owner, path, depth + 1))
            }
            _ => None,
        }
    }

    /// Removes the fields of `value` that this schema does not know, as upstream's typed
    /// decoding drops them, and answers their paths as its strict decoding names them
    /// (`spec.template.spec.containers[0].foo`).
    pub fn prune_unknown(self, value: &mut Value) -> Vec<String> {
        let mut found = Vec::new();
        self.prune(value, "", &mut found, 0);
        found
    }

    /// The paths [`OpenApiSchema::prune_unknown`] would remove, leaving `value` as it is.
    pub fn unknown_fields(self, value: &Value) -> Vec<String> {
        let mut found = Vec::new();
        self.unknown(value, "", &mut found, 0);
        found
    }

    fn prune(self, value: &mut Value, path: &str, found: &mut Vec<String>, depth: usize) {
        if self.preserves_unknown_fields() || depth > crate::documents::MAX_DEPTH {
            return;
        }
        let r = self.resolved();
        match value {
            Value::Object(map) => {
                if let Some(properties) = r.node.get("properties").and_then(Value::as_object) {
                    map.retain(|key, v| {
                        let child = join(path, key);
                        match properties.get(key) {
                            Some(node) => {
                                self.at(node).prune(v, &child, found, depth + 1);
                                true
                            }
                            None => {
                                found.push(child);
                                false
                            }
                        }
                    });
                } else if let Some(values) = self.additional_properties() {
                    for (key, v) in map.iter_mut() {
                        values.prune(v, &format!("{path}[{key}]"), found, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(schema) = self.items() {
                    for (i, v) in items.iter_mut().enumerate() {
                        schema.prune(v, &format!("{path}[{i}]"), found, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn unknown(self, value: &Value, path: &str, found: &mut Vec<String>, depth: usize) {
        if self.preserves_unknown_fields() || depth > crate::documents::MAX_DEPTH {
            return;
        }
        let r = self.resolved();
        match value {
            Value::Object(map) => {
                if let Some(properties) = r.node.get("properties").and_then(Value::as_object) {
                    for (key, v) in map {
                        let child = join(path, key);
                        match properties.get(key) {
                            Some(node) => self.at(node).unknown(v, &child, found, depth + 1),
                            None => found.push(child),
                        }
                    }
                } else if let Some(values) = self.additional_properties() {
                    for (key, v) in map {
                        values.unknown(v, &format!("{path}[{key}]"), found, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(schema) = self.items() {
                    for (i, v) in items.iter().enumerate() {
                        schema.unknown(v, &format!("{path}[{i}]"), found, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether a strict decoding path (`spec.template.spec.containers[0].image`, keys joined
    /// by `.`, items as `[i]`) names a field this schema has, under no field that keeps
    /// anything (where typed decoding reports fields given twice).
    pub(crate) fn has_path(self, path: &str) -> bool {
        let mut schema = self;
        for part in path.split('.') {
            let (key, indices) = part.split_once('[').unwrap_or((part, ""));
            if schema.preserves_unknown_fields() {
                return false;
            }
            if !key.is_empty() {
                match schema.field(key) {
                    Some(field) => schema = field,
                    None => return false,
                }
            }
            for _ in indices.split('[').filter(|i| !i.is_empty()) {
                match schema.items() {
                    Some(items) => schema = items,
                    None => return false,
                }
            }
        }
        true
    }

    /// What upstream's strict decoding reports for a JSON body, in document order:
    /// `unknown field "<path>"` for each field the schema does not know (once) and
    /// `duplicate field "<path>"` for each known field given twice. The error is the JSON
    /// reader's when the body is not JSON.
    pub fn strict_errors(self, body: &[u8]) -> Result<Vec<String>, serde_json::Error> {
        let found = RefCell::new(Vec::new());
        let mut de = serde_json::Deserializer::from_slice(body);
        serde::de::DeserializeSeed::deserialize(
            StrictWalk {
                schema: Some(self),
                path: String::new(),
                found: &found,
            },
            &mut de,
        )?;
        Ok(found.into_inner())
    }
}

/// How a Go type decodes JSON, for [`OpenApiSchema::type_error`].
enum GoType {
    /// A plain Go type (struct, string, int32, slice, map, ...) named as Go prints it.
    Plain(String),
    /// `intstr.IntOrString`.
    IntOrString,
    /// A type with its own decoder (times, quantities, raw JSON): not checked.
    Own,
}

/// `package.Kind` from a schema name such as `io.k8s.api.core.v1.ConfigMap` (`v1.ConfigMap`).
fn go_struct(name: &str) -> String {
    let mut parts = name.rsplit('.');
    let kind = parts.next().unwrap_or(name);
    let package = parts.next().unwrap_or("");
    format!("{package}.{kind}")
}

fn fits_int32(i: i64) -> bool {
    i32::try_from(i).is_ok()
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// One step of [`OpenApiSchema::strict_errors`]: a JSON value at `path` under `schema`.
struct StrictWalk<'s, 'a> {
    schema: Option<OpenApiSchema<'a>>,
    path: String,
    found: &'s RefCell<Vec<String>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for StrictWalk<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for StrictWalk<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let items = self.schema.and_then(OpenApiSchema::items);
        let mut i = 0;
        while seq
            .next_element_seed(StrictWalk {
                schema: items,
                path: format!("{}[{i}]", self.path),
                found: self.found,
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let preserve = self
            .schema
            .is_some_and(OpenApiSchema::preserves_unknown_fields);
        let resolved = self.schema.map(OpenApiSchema::resolved);
        let properties = resolved.and_then(|r| r.node.get("properties").and_then(Value::as_object));
        let values = self.schema.and_then(OpenApiSchema::additional_properties);
        let mut seen = HashSet::new();
        let mut unknown = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = join(&self.path, &key);
            let schema = match (preserve, properties, resolved) {
                (true, _, _) | (false, None, None) => None,
                (false, Some(properties), Some(r)) => match properties.get(&key) {
                    Some(node) => Some(r.at(node)),
                    None => {
                        if unknown.insert(key.clone()) {
                            self.found
                                .borrow_mut()
                                .push(format!("unknown field \"{path}\""));
                        }
                        None
                    }
                },
                (false, _, _) => values,
            };
            if schema.is_some() && !seen.insert(key) {
                self.found
                    .borrow_mut()
                    .push(format!("duplicate field \"{path}\""));
            }
            map.next_value_seed(StrictWalk {
                schema,
                path,
                found: self.found,
            })?;
        }
        Ok(())
    }
}

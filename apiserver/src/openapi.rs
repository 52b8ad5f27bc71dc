//! OpenAPI v3 at `/openapi/v3`: the documents of the served group-versions, vendored from
//! Kubernetes 1.37 by `openapi/generate.py` (descriptions stripped), and the schema lookups
//! that strategic merge patch needs (`x-kubernetes-patch-strategy` / `-merge-key`).

use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha512};

use crate::resource::Resource;

/// The vendored documents: the `/openapi/v3/<key>` key and the bytes served.
const SOURCES: &[(&str, &[u8])] = &[
    ("api/v1", include_bytes!("../openapi/api__v1_openapi.json")),
    (
        "apis/apps/v1",
        include_bytes!("../openapi/apis__apps__v1_openapi.json"),
    ),
    (
        "apis/coordination.k8s.io/v1",
        include_bytes!("../openapi/apis__coordination.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/admissionregistration.k8s.io/v1",
        include_bytes!("../openapi/apis__admissionregistration.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/apiextensions.k8s.io/v1",
        include_bytes!("../openapi/apis__apiextensions.k8s.io__v1_openapi.json"),
    ),
    (
        "apis/authorization.k8s.io/v1",
        include_bytes!("../openapi/apis__authorization.k8s.io__v1_openapi.json"),
    ),
];

/// One served document.
pub struct Document {
    /// The key, e.g. `api/v1`.
    pub key: &'static str,
    /// The exact bytes served.
    pub bytes: &'static [u8],
    /// Upper-case hex SHA-512 of the bytes: the ETag and the `hash` query parameter.
    pub hash: String,
    /// The parsed document.
    pub json: Value,
}

/// Every served document, parsed and hashed once.
pub fn documents() -> &'static [Document] {
    static DOCS: OnceLock<Vec<Document>> = OnceLock::new();
    DOCS.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(key, bytes)| Document {
                key,
                bytes,
                hash: Sha512::digest(bytes)
                    .iter()
                    .map(|b| format!("{b:02X}"))
                    .collect(),
                json: serde_json::from_slice(bytes).expect("vendored OpenAPI documents are JSON"),
            })
            .collect()
    })
}

/// The document served at `/openapi/v3/<key>`.
pub fn document(key: &str) -> Option<&'static Document> {
    documents().iter().find(|d| d.key == key)
}

/// The `/openapi/v3` index.
pub fn index() -> Value {
    let paths: serde_json::Map<String, Value> = documents()
        .iter()
        .map(|d| {
            (
                d.key.to_owned(),
                serde_json::json!({"serverRelativeURL": format!("/openapi/v3/{}?hash={}", d.key, d.hash)}),
            )
        })
        .collect();
    serde_json::json!({ "paths": paths })
}

/// The document key of a resource's group-version.
pub fn key_of(resource: &Resource) -> String {
    if resource.group.is_empty() {
        format!("api/{}", resource.version)
    } else {
        format!("apis/{}/{}", resource.group, resource.version)
    }
}

/// A schema within one document, for walking: follows `$ref` and single-`allOf` wrappers.
#[derive(Clone, Copy)]
pub struct Schema<'a> {
    doc: &'a Value,
    node: &'a Value,
}

impl<'a> Schema<'a> {
    /// The root schema of a served kind.
    pub fn of(resource: &Resource) -> Option<Schema<'static>> {
        let doc = &document(&key_of(resource))?.json;
        let schemas = doc.get("components")?.get("schemas")?.as_object()?;
        let node = schemas.values().find(|s| {
            s.get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array)
                .is_some_and(|gvks| {
                    gvks.iter().any(|g| {
                        g["group"] == resource.group
                            && g["version"] == resource.version
                            && g["kind"] == resource.kind
                    })
                })
        })?;
        Some(Schema { doc, node })
    }

    /// This schema with references followed.
    fn resolved(self) -> Schema<'a> {
        let mut node = self.node;
        for _ in 0..16 {
            if let Some(r) = node.get("$ref").and_then(Value::as_str) {
                let name = r.trim_start_matches("#/components/schemas/");
                match self.doc["components"]["schemas"].get(name) {
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
        Schema {
            doc: self.doc,
            node,
        }
    }

    /// The name of the schema a reference (direct or through a single `allOf`) points at.
    pub fn ref_name(self) -> Option<&'a str> {
        let mut node = self.node;
        for _ in 0..16 {
            if let Some(r) = node.get("$ref").and_then(Value::as_str) {
                return Some(r.trim_start_matches("#/components/schemas/"));
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

    /// The Go type upstream's decoder names for this schema, when it is one a JSON value can
    /// mismatch plainly (None for types with their own decoding: times, quantities,
    /// int-or-string, raw JSON).
    fn go_type(self) -> Option<String> {
        let go_struct = |name: &str| {
            let mut parts = name.rsplit('.');
            let kind = parts.next().unwrap_or(name);
            let package = parts.next().unwrap_or("");
            format!("{package}.{kind}")
        };
        if let Some(name) = self.ref_name() {
            let r = self.resolved();
            if r.node.get("properties").is_some() {
                return Some(go_struct(name));
            }
            return None; // Time, Quantity, IntOrString, RawExtension, ...
        }
        let n = self.node;
        if n.get("x-kubernetes-int-or-string").is_some()
            || n.get("x-kubernetes-preserve-unknown-fields").is_some()
        {
            return None;
        }
        Some(
            match (
                n.get("type").and_then(Value::as_str)?,
                n.get("format").and_then(Value::as_str),
            ) {
                ("string", Some("byte")) => "[]uint8".to_owned(),
                ("string", Some("date-time")) => return None,
                ("string", _) => "string".to_owned(),
                ("integer", Some("int32")) => "int32".to_owned(),
                ("integer", _) => "int64".to_owned(),
                ("number", _) => "float64".to_owned(),
                ("boolean", _) => "bool".to_owned(),
                ("array", _) => format!("[]{}", self.items()?.go_type()?),
                ("object", _) => {
                    let values = n.get("additionalProperties").filter(|v| v.is_object())?;
                    let values = Schema {
                        doc: self.doc,
                        node: values,
                    }
                    .go_type()?;
                    format!("map[string]{values}")
                }
                _ => return None,
            },
        )
    }

    /// The first value of `value` whose JSON type does not fit this schema, as upstream's
    /// decoder reports it: `json: cannot unmarshal number into Go struct field
    /// ConfigMap.data of type string`.
    pub fn type_error(self, value: &Value, kind: &str) -> Option<String> {
        self.type_walk(value, kind, "")
    }

    fn type_walk(self, value: &Value, owner: &str, path: &str) -> Option<String> {
        let r = self.resolved();
        if let (Value::Object(map), Some(properties)) =
            (value, r.node.get("properties").and_then(Value::as_object))
        {
            let owner = self
                .ref_name()
                .and_then(|n| n.rsplit('.').next())
                .unwrap_or(owner);
            for (key, child) in map {
                let Some(node) = properties.get(key) else {
                    continue;
                };
                let field = Schema {
                    doc: self.doc,
                    node,
                };
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if let Some(e) = field.mismatch(child, owner, &child_path) {
                    return Some(e);
                }
            }
        }
        None
    }

    /// Checks a field's value against the field's schema, then its contents.
    fn mismatch(self, value: &Value, owner: &str, path: &str) -> Option<String> {
        let go = self.go_type()?;
        let json_type = match value {
            Value::Null => return None,
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let fits = match go.as_str() {
            "string" | "[]uint8" => json_type == "string",
            "bool" => json_type == "bool",
            "float64" => json_type == "number",
            "int32" | "int64" => {
                if json_type != "number" {
                    false
                } else if value.as_i64().is_none() {
                    return Some(format!(
                        "json: cannot unmarshal number {value} into Go struct field {owner}.{path} of type {go}"
                    ));
                } else {
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
        match value {
            Value::Array(items) => {
                let items_schema = self.items()?;
                items
                    .iter()
                    .find_map(|item| items_schema.mismatch(item, owner, path))
            }
            Value::Object(map) if go.starts_with("map[") => {
                let node = self.resolved().node.get("additionalProperties")?;
                let values = Schema {
                    doc: self.doc,
                    node,
                };
                map.values().find_map(|v| values.mismatch(v, owner, path))
            }
            Value::Object(_) => self.type_walk(value, owner, path),
            _ => None,
        }
    }

    /// The schema node with references followed.
    pub fn resolved_node(self) -> &'a Value {
        self.resolved().node
    }

    /// The schema node as written (where upstream puts a field's extensions).
    pub fn node_value(self) -> &'a Value {
        self.node
    }

    /// The schema of a field of an object (a property, or the values of a map).
    pub fn field(self, name: &str) -> Option<Schema<'a>> {
        let r = self.resolved();
        let node = r
            .node
            .get("properties")
            .and_then(|p| p.get(name))
            .or_else(|| r.node.get("additionalProperties").filter(|v| v.is_object()))?;
        Some(Schema {
            doc: self.doc,
            node,
        })
    }

    /// The schema of a declared property only (not the values of a map).
    pub fn property(self, name: &str) -> Option<Schema<'a>> {
        let node = self.resolved().node.get("properties")?.get(name)?;
        Some(Schema {
            doc: self.doc,
            node,
        })
    }

    /// The schema of the values of a map (`additionalProperties`), if it gives one.
    pub fn additional_properties(self) -> Option<Schema<'a>> {
        let node = self
            .resolved()
            .node
            .get("additionalProperties")
            .filter(|v| v.is_object())?;
        Some(Schema {
            doc: self.doc,
            node,
        })
    }

    /// The schema of the items of a list.
    pub fn items(self) -> Option<Schema<'a>> {
        let node = self.resolved().node.get("items")?;
        Some(Schema {
            doc: self.doc,
            node,
        })
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

    /// Removes the fields of `value` that this schema does not know, as upstream's typed
    /// decoding drops them, and answers their paths as its strict decoding names them
    /// (`spec.template.spec.containers[0].foo`).
    pub fn prune_unknown(self, value: &mut Value) -> Vec<String> {
        let mut found = Vec::new();
        self.prune(value, "", &mut found);
        found
    }

    fn prune(self, value: &mut Value, path: &str, found: &mut Vec<String>) {
        let r = self.resolved();
        if r.node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            return;
        }
        match value {
            Value::Object(map) => {
                if let Some(properties) = r.node.get("properties").and_then(Value::as_object) {
                    map.retain(|key, v| {
                        let child = if path.is_empty() {
                            key.clone()
                        } else {
                            format!("{path}.{key}")
                        };
                        match properties.get(key) {
                            Some(node) => {
                                Schema {
                                    doc: self.doc,
                                    node,
                                }
                                .prune(v, &child, found);
                                true
                            }
                            None => {
                                found.push(child);
                                false
                            }
                        }
                    });
                } else if let Some(node) =
                    r.node.get("additionalProperties").filter(|n| n.is_object())
                {
                    for (key, v) in map.iter_mut() {
                        let child = format!("{path}[{key}]");
                        Schema {
                            doc: self.doc,
                            node,
                        }
                        .prune(v, &child, found);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(node) = r.node.get("items") {
                    for (i, v) in items.iter_mut().enumerate() {
                        Schema {
                            doc: self.doc,
                            node,
                        }
                        .prune(v, &format!("{path}[{i}]"), found);
                    }
                }
            }
            _ => {}
        }
    }

    /// What upstream's strict decoding reports for a JSON body, in document order:
    /// `unknown field "<path>"` for each field the schema does not know (once) and
    /// `duplicate field "<path>"` for each known field given twice.
    pub fn strict_errors(self, body: &[u8]) -> Result<Vec<String>, String> {
        let found = std::cell::RefCell::new(Vec::new());
        let mut de = serde_json::Deserializer::from_slice(body);
        serde::de::DeserializeSeed::deserialize(
            StrictWalk {
                schema: Some(self),
                path: String::new(),
                found: &found,
            },
            &mut de,
        )
        .map_err(|e| e.to_string())?;
        Ok(found.into_inner())
    }

    fn extension(self, name: &str) -> Option<&'a str> {
        self.node
            .get(name)
            .or_else(|| self.resolved().node.get(name))
            .and_then(Value::as_str)
    }
}

/// One step of [`Schema::strict_errors`]: a JSON value at `path` under `schema`.
struct StrictWalk<'s, 'a> {
    schema: Option<Schema<'a>>,
    path: String,
    found: &'s std::cell::RefCell<Vec<String>>,
}

impl StrictWalk<'_, '_> {
    fn child_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }
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
        let items = self.schema.and_then(Schema::items);
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
        let resolved = self.schema.map(Schema::resolved);
        let preserve = resolved.is_some_and(|r| {
            r.node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        });
        let properties = resolved.and_then(|r| r.node.get("properties").and_then(Value::as_object));
        let values = resolved.and_then(|r| {
            r.node
                .get("additionalProperties")
                .filter(|n| n.is_object())
                .map(|node| Schema { doc: r.doc, node })
        });
        let mut seen = std::collections::HashSet::new();
        let mut unknown = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = self.child_path(&key);
            let schema = match (preserve, properties, values) {
                (true, _, _) | (false, None, None) => None,
                (false, Some(properties), _) => match properties.get(&key) {
                    Some(node) => Some(Schema {
                        doc: resolved.expect("properties come from a schema").doc,
                        node,
                    }),
                    None => {
                        if unknown.insert(key.clone()) {
                            self.found
                                .borrow_mut()
                                .push(format!("unknown field \"{path}\""));
                        }
                        None
                    }
                },
                (false, None, Some(values)) => Some(values),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{DEPLOYMENTS, SERVED};

    #[test]
    fn every_served_kind_has_a_schema_and_a_patch_operation() {
        for r in SERVED {
            assert!(Schema::of(r).is_some(), "{}", r.kind);
            let doc = &document(&key_of(r)).unwrap().json;
            let patches = doc["paths"]
                .as_object()
                .unwrap()
                .values()
                .filter_map(|p| p.get("patch"))
                .filter(|op| op["x-kubernetes-group-version-kind"]["kind"] == r.kind)
                .count();
            assert!(patches > 0, "{}", r.kind);
        }
        assert_eq!(index()["paths"].as_object().unwrap().len(), SOURCES.len());
        assert_eq!(documents()[0].hash.len(), 128);
    }

    #[test]
    fn unknown_fields_are_named_by_path() {
        let mut value = serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "bogus": 1,
            "metadata": {"name": "x", "labels": {"a": "b"}, "nope": true},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "imag": "x"}]}}}
        });
        assert_eq!(
            Schema::of(&DEPLOYMENTS).unwrap().prune_unknown(&mut value),
            [
                "bogus",
                "metadata.nope",
                "spec.template.spec.containers[0].imag"
            ]
        );
        assert!(value.get("bogus").is_none());
        assert_eq!(
            value["metadata"],
            serde_json::json!({"name": "x", "labels": {"a": "b"}})
        );
    }

    #[test]
    fn strict_errors_in_document_order() {
        let body = br#"{"metadata": {"name": "a", "name": "b", "unknownMeta": 1},
            "spec": {"unknown1": 1, "unknownDupe": 1, "unknownDupe": 2, "paused": true,
                     "paused": false, "template": {"spec": {"containers": [
                        {"name": "c", "unknownNested": 1, "imagePullPolicy": "A",
                         "imagePullPolicy": "B"}]}}},
            "apiVersion": "apps/v1", "kind": "Deployment"}"#;
        assert_eq!(
            Schema::of(&DEPLOYMENTS)
                .unwrap()
                .strict_errors(body)
                .unwrap()
                .join(", "),
            "duplicate field \"metadata.name\", unknown field \"metadata.unknownMeta\", \
             unknown field \"spec.unknown1\", unknown field \"spec.unknownDupe\", \
             duplicate field \"spec.paused\", \
             unknown field \"spec.template.spec.containers[0].unknownNested\", \
             duplicate field \"spec.template.spec.containers[0].imagePullPolicy\""
        );
    }

    #[test]
    fn type_errors_read_like_upstreams_decoder() {
        use crate::resource::{CONFIGMAPS, SERVICES};
        let cm = Schema::of(&CONFIGMAPS).unwrap();
        let bad = serde_json::json!({"data": {"a": 1}});
        assert_eq!(
            cm.type_error(&bad, "ConfigMap").unwrap(),
            "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"
        );
        let bad = serde_json::json!({"data": "x"});
        assert_eq!(
            cm.type_error(&bad, "ConfigMap").unwrap(),
            "json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string"
        );
        let svc = Schema::of(&SERVICES).unwrap();
        let bad = serde_json::json!({"spec": {"ports": [{"port": "80"}]}});
        assert_eq!(
            svc.type_error(&bad, "Service").unwrap(),
            "json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32"
        );
        let bad = serde_json::json!({"metadata": {"labels": {"a": true}}});
        assert_eq!(
            svc.type_error(&bad, "Service").unwrap(),
            "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"
        );
        let fine = serde_json::json!({"metadata": {"name": "x", "creationTimestamp": null},
            "spec": {"ports": [{"port": 80, "targetPort": "http"}]}});
        assert_eq!(svc.type_error(&fine, "Service"), None);
    }

    #[test]
    fn containers_merge_by_name() {
        let containers = Schema::of(&DEPLOYMENTS)
            .unwrap()
            .field("spec")
            .and_then(|s| s.field("template"))
            .and_then(|s| s.field("spec"))
            .and_then(|s| s.field("containers"))
            .unwrap();
        assert!(containers.patch_strategy_has("merge"));
        assert_eq!(containers.merge_key(), Some("name"));
        let env = containers.items().unwrap().field("env").unwrap();
        assert_eq!(env.merge_key(), Some("name"));
    }
}

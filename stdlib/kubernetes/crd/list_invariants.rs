//! The uniqueness invariants of `x-kubernetes-list-type: set` and `map` lists, checked on
//! every custom resource after the OpenAPI value validation: a set holds no item twice, a
//! map list no two items with the same key values, and a map list's items are objects.
//!
//! Source: apiextensions-apiserver `pkg/apiserver/schema/listtype/validation.go`
//! (`ValidateListSetsAndMaps`, `validateListSet`, `validateListMap`). Each repeated value is
//! reported once, at its second appearance. Properties and map keys are visited in name
//! order (upstream walks Go maps in random order).

use serde_json::Value as J;

use super::field_error::{ErrorType, FieldError, FieldPath, go_json_value};
use super::key_index::repeated;
use super::schema::Schema;
use kcel::library::standard::format_double;
use kcel::library::standard::go_quote;

// Data nested deeper than the documents' limit (which readers never give: values built
// otherwise, such as by a patch) is not checked further.
use crate::documents::MAX_DEPTH;

/// The errors of the set and map lists in `value` under `schema`.
pub fn validate(value: &J, schema: &Schema) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let J::Object(map) = value {
        object(map, schema, &FieldPath::root(), 0, &mut errors);
    }
    errors
}

fn object(
    map: &serde_json::Map<String, J>,
    s: &Schema,
    path: &FieldPath,
    depth: usize,
    errors: &mut Vec<FieldError>,
) {
    if let Some(values) = s.additional_schema() {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for k in keys {
            any(&map[k], values, &path.key(k), depth + 1, errors);
        }
    }
    for (name, property) in &s.properties {
        if let Some(v) = map.get(name) {
            any(v, property, &path.child(name), depth + 1, errors);
        }
    }
}

fn any(v: &J, s: &Schema, path: &FieldPath, depth: usize, errors: &mut Vec<FieldError>) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        J::Array(items) => array(items, s, path, depth, errors),
        J::Object(map) => object(map, s, path, depth, errors),
        _ => {}
    }
}

fn array(items: &[J], s: &Schema, path: &FieldPath, depth: usize, errors: &mut Vec<FieldError>) {
    match s.list_type.as_deref() {
        Some("set") => {
            for i in repeated(items.len(), |i| identity(&items[i])) {
                errors.push(duplicate(path.index(i), &items[i]));
            }
        }
        Some("map") => map_list(items, s, path, errors),
        _ => {}
    }
    if let Some(item_schema) = s.items() {
        for (i, item) in items.iter().enumerate() {
            any(item, item_schema, &path.index(i), depth + 1, errors);
        }
    }
}

/// `validateListMap`: items must be objects (or null); their key values unique.
fn map_list(items: &[J], s: &Schema, path: &FieldPath, errors: &mut Vec<FieldError>) {
    if let Some((i, bad)) = items
        .iter()
        .enumerate()
        .find(|(_, x)| !matches!(x, J::Null | J::Object(_)))
    {
        errors.push(FieldError::with_rendered_value(
            path.index(i),
            ErrorType::Invalid,
            go_value(bad),
            "must be an object for an array of list-type map",
        ));
        return;
    }
    // Each item's key is made, hashed by its text and dropped: a list of many items holds
    // one hash and index per item (`key_index.rs`), the key made again for an error.
    for i in repeated(items.len(), |i| identity(&key_of(&items[i], s))) {
        errors.push(duplicate(path.index(i), &key_of(&items[i], s)));
    }
}

/// The key fields a map list's item has (a missing key and a null item have none).
fn key_of(x: &J, s: &Schema) -> J {
    let mut key = serde_json::Map::new();
    if let J::Object(o) = x {
        for k in &s.list_map_keys {
            if let Some(v) = o.get(k) {
                key.insert(k.clone(), v.clone());
            }
        }
    }
    J::Object(key)
}

/// What a value is compared by: Go compares scalars by type and value and compounds by
/// their JSON text; the JSON text with the kind of number tells both apart the same way.
fn identity(x: &J) -> String {
    match x {
        J::Number(n) if n.is_f64() => format!("f{}", go_json_value(x)),
        _ => go_json_value(x),
    }
}

fn duplicate(path: FieldPath, v: &J) -> FieldError {
    FieldError::with_rendered_value(path, ErrorType::Duplicate, go_value(v), "")
}

/// A bad value as `field.Error` prints it: strings quoted, numbers and booleans as Go's `%v`,
/// anything else as JSON.
fn go_value(v: &J) -> String {
    match v {
        J::String(s) => go_quote(s),
        J::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => format_double(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::Bool(b) => b.to_string(),
        other => go_json_value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: J, value: J) -> Vec<String> {
        let schema = Schema::from_json(&schema).unwrap();
        validate(&value, &schema)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    // Cases after listtype/validation_test.go (TestValidateListSetsAndMaps).
    #[test]
    fn sets_report_each_repeated_item_once() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "n": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "number"}}
        }});
        assert_eq!(
            errors(
                schema.clone(),
                json!({"s": ["a", "b", "a", "a", "b"], "n": [1, 1.0]})
            ),
            [
                "s[2]: Duplicate value: \"a\"",
                "s[4]: Duplicate value: \"b\"",
            ]
        );
        assert!(errors(schema, json!({"s": ["a", "b"]})).is_empty());
    }

    #[test]
    fn map_lists_compare_key_values() {
        let schema = json!({"type": "object", "properties": {
            "one": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "two": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port", "protocol"],
                    "items": {"type": "object"}}
        }});
        assert_eq!(
            errors(
                schema.clone(),
                json!({
                    "one": [{"name": "a", "v": 1}, {"name": "a", "v": 2}, {}, {}],
                    "two": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"},
                            {"protocol": "TCP", "port": 80}]
                })
            ),
            [
                "one[1]: Duplicate value: {\"name\":\"a\"}",
                "one[3]: Duplicate value: {}",
                "two[2]: Duplicate value: {\"port\":80,\"protocol\":\"TCP\"}",
            ]
        );
        assert_eq!(
            errors(schema, json!({"one": [{"name": "a"}, "x"]})),
            ["one[1]: Invalid value: \"x\": must be an object for an array of list-type map"]
        );
    }
}

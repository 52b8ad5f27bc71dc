//! PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386) and strategic merge patch,
//! the last driven by the OpenAPI `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`
//! extensions of the kind's schema (as kube-apiserver's `strategicpatch` package uses the
//! struct tags that the extensions are generated from).

use serde_json::{Map, Value};

use kcel_stdlib::kubernetes::admission::json_patch;

use crate::openapi::Schema;
use crate::patch_decode::{self, PatchDecodeError};

/// Why a JSON patch failed.
#[derive(Debug, thiserror::Error)]
pub enum JsonPatchError {
    /// The body is not a list of operations (the patch handler's texts).
    #[error(transparent)]
    Decode(#[from] PatchDecodeError),
    /// An operation did not apply (a failed `test`, a missing path), in evanphx/json-patch
    /// v4's words (which kube-apiserver does not pass on: its 422 has a generic text).
    #[error(transparent)]
    Apply(#[from] json_patch::PatchError),
}

/// Applies an RFC 6902 JSON patch, its body decoded as under `fieldValidation` Warn, its
/// operations applied as kube-apiserver's evanphx/json-patch v4 applies them.
pub fn json_patch(target: &mut Value, patch: &Value) -> Result<(), JsonPatchError> {
    let operations = patch_decode::json_patch_operations(Ok(patch), true)?;
    apply_json_patch(target, &operations)
}

/// Applies decoded JSON patch operations (all or none).
pub fn apply_json_patch(
    target: &mut Value,
    operations: &[json_patch::Operation],
) -> Result<(), JsonPatchError> {
    *target = json_patch::apply(target, operations)?;
    Ok(())
}

/// Why a strategic merge patch is refused (a 400 with these texts).
#[derive(Debug, thiserror::Error)]
pub enum StrategicMergeError {
    /// The patch is not an object.
    #[error("a strategic merge patch must be a JSON object")]
    NotAnObject,
    /// A `$patch` directive that is not `replace`, `delete` or `merge`.
    #[error("Unknown patch type: {0}")]
    UnknownDirective(String),
}

/// Applies an RFC 7386 JSON merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    ::json_patch::merge(target, patch);
}

/// Applies a strategic merge patch to an object, with the kind's schema if known (without
/// one, lists are replaced, as for a merge patch).
pub fn strategic_merge(
    target: &mut Value,
    patch: &Value,
    schema: Option<Schema>,
) -> Result<(), StrategicMergeError> {
    let Value::Object(patch) = patch else {
        return Err(StrategicMergeError::NotAnObject);
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(original) = target else {
        unreachable!("made an object above");
    };
    merge_map(original, patch, schema)
}

fn directive(map: &Map<String, Value>) -> Option<&str> {
    map.get("$patch").and_then(Value::as_str)
}

/// A patch value with its directives removed, for inserting where nothing is to merge with.
fn clean(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, v)| (k.clone(), clean(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|v| v.as_object().is_none_or(|m| directive(m).is_none()))
                .map(clean)
                .collect(),
        ),
        other => other.clone(),
    }
}

fn merge_map(
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    schema: Option<Schema>,
) -> Result<(), StrategicMergeError> {
    match directive(patch) {
        Some("replace") => {
            *original = clean(&Value::Object(patch.clone()))
                .as_object()
                .cloned()
                .unwrap_or_default();
            return Ok(());
        }
        Some("delete") => {
            original.clear();
            return Ok(());
        }
        Some("merge") | None => {}
        Some(other) => return Err(StrategicMergeError::UnknownDirective(other.to_owned())),
    }
    let mut orders = Vec::new();
    for (key, value) in patch {
        if let Some(field) = key.strip_prefix("$setElementOrder/") {
            orders.push((field.to_owned(), value));
            continue;
        }
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(list)), Some(remove)) =
                (original.get_mut(field), value.as_array())
            {
                list.retain(|v| !remove.contains(v));
            }
            continue;
        }
        if key.starts_with('$') {
            continue;
        }
        let field_schema = schema.and_then(|s| s.field(key));
        match (original.get_mut(key), value) {
            (_, Value::Null) => {
                original.remove(key);
            }
            (Some(Value::Object(o)), Value::Object(p)) => {
                if directive(p) == Some("delete") {
                    original.remove(key);
                } else {
                    merge_map(o, p, field_schema)?;
                }
            }
            (Some(Value::Array(o)), Value::Array(p)) => merge_list(o, p, field_schema)?,
            (_, v) => {
                original.insert(key.clone(), clean(v));
            }
        }
    }
    if let Some(Value::Array(retain)) = patch.get("$retainKeys") {
        original.retain(|k, _| retain.iter().any(|r| r.as_str() == Some(k)));
    }
    for (field, order) in orders {
        let merge_key = schema
            .and_then(|s| s.field(&field))
            .and_then(|s| s.merge_key());
        if let (Some(Value::Array(list)), Some(order)) =
            (original.get_mut(&field), order.as_array())
        {
            reorder(list, order, merge_key);
        }
    }
    Ok(())
}

/// Orders `list` as `order` names its items (by merge key, or by value for primitives); items
/// not named keep their relative order after the named ones.
fn reorder(list: &mut [Value], order: &[Value], merge_key: Option<&str>) {
    let position = |item: &Value| {
        order.iter().position(|o| match merge_key {
            Some(k) => o.get(k).is_some() && o.get(k) == item.get(k),
            None => o == item,
        })
    };
    list.sort_by_key(|item| position(item).unwrap_or(usize::MAX));
}

fn merge_list(
    original: &mut Vec<Value>,
    patch: &[Value],
    schema: Option<Schema>,
) -> Result<(), StrategicMergeError> {
    let merge = schema.is_some_and(|s| s.patch_strategy_has("merge"));
    if !merge {
        *original = patch.iter().map(clean).collect();
        return Ok(());
    }
    if patch
        .iter()
        .any(|p| p.as_object().and_then(directive) == Some("replace"))
    {
        *original = clean(&Value::Array(patch.to_vec()))
            .as_array()
            .cloned()
            .unwrap_or_default();
        return Ok(());
    }
    let merge_key = schema.and_then(|s| s.merge_key());
    let items = schema.and_then(|s| s.items());
    for item in patch {
        match (merge_key, item) {
            (Some(key), Value::Object(p)) => {
                let id = p.get(key);
                let found = original
                    .iter()
                    .position(|o| id.is_some() && o.get(key) == id);
                match (found, directive(p)) {
                    (Some(i), Some("delete")) => {
                        original.remove(i);
                    }
                    (None, Some("delete")) => {}
                    (Some(i), _) => {
                        if let Value::Object(o) = &mut original[i] {
                            merge_map(o, p, items)?;
                        }
                    }
                    (None, _) => original.push(clean(item)),
                }
            }
            _ => {
                if !original.contains(item) {
                    original.push(clean(item));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS};
    use serde_json::json;

    #[test]
    fn maps_merge_and_null_deletes() {
        let mut cm = json!({"data": {"a": "1", "b": "2"}, "metadata": {"name": "x"}});
        let schema = crate::openapi::schema_of(&CONFIGMAPS);
        strategic_merge(&mut cm, &json!({"data": {"a": null, "c": "3"}}), schema).unwrap();
        assert_eq!(cm["data"], json!({"b": "2", "c": "3"}));
    }

    #[test]
    fn containers_merge_by_name_with_directives() {
        let mut d = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}
        ]}}}});
        let patch = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "c"}, {"name": "a"}],
            "containers": [{"name": "a", "image": "a:2"}, {"name": "b", "$patch": "delete"},
                           {"name": "c", "image": "c:1"}]
        }}}});
        strategic_merge(&mut d, &patch, crate::openapi::schema_of(&DEPLOYMENTS)).unwrap();
        assert_eq!(
            d["spec"]["template"]["spec"]["containers"],
            json!([{"name": "c", "image": "c:1"}, {"name": "a", "image": "a:2"}])
        );
        // Without a merge strategy a list is replaced.
        let mut d2 = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "args": ["x", "y"]}]}}}});
        let patch =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "args": ["z"]}]}}}});
        strategic_merge(&mut d2, &patch, crate::openapi::schema_of(&DEPLOYMENTS)).unwrap();
        assert_eq!(
            d2["spec"]["template"]["spec"]["containers"][0]["args"],
            json!(["z"])
        );
    }

    #[test]
    fn finalizers_merge_as_a_set() {
        let mut cm = json!({"metadata": {"finalizers": ["a"]}});
        strategic_merge(
            &mut cm,
            &json!({"metadata": {"finalizers": ["b", "a"]}}),
            crate::openapi::schema_of(&CONFIGMAPS),
        )
        .unwrap();
        assert_eq!(cm["metadata"]["finalizers"], json!(["a", "b"]));
        strategic_merge(
            &mut cm,
            &json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
            crate::openapi::schema_of(&CONFIGMAPS),
        )
        .unwrap();
        assert_eq!(cm["metadata"]["finalizers"], json!(["b"]));
    }

    #[test]
    fn json_and_merge_patches() {
        let mut v = json!({"a": {"b": 1}});
        json_patch(&mut v, &json!([{"op": "add", "path": "/a/c", "value": 2}])).unwrap();
        assert_eq!(v, json!({"a": {"b": 1, "c": 2}}));
        assert!(json_patch(&mut v, &json!([{"op": "test", "path": "/a/b", "value": 9}])).is_err());
        merge_patch(&mut v, &json!({"a": {"b": null}}));
        assert_eq!(v, json!({"a": {"c": 2}}));
    }
}

//! Pruning: kube-apiserver drops the fields of a custom resource that its structural schema
//! does not specify, when it decodes a request, and reports them (as warnings, or as a
//! strict decoding error, by the request's `fieldValidation`).
//!
//! Source: apiextensions-apiserver `pkg/apiserver/schema/pruning/algorithm.go`
//! (`PruneWithOptions`, `prune`, `skipPrune`): at the resource root and in embedded
//! resources `apiVersion`, `kind` and `metadata` are kept as they are; under
//! `x-kubernetes-preserve-unknown-fields` unknown fields stay, while the specified ones
//! below are still pruned; the paths of the pruned fields come back sorted.
//!
//! `metadata` is decoded strictly into `metav1.ObjectMeta` (apiextensions-apiserver
//! `pkg/apiserver/schema/objectmeta`: `GetObjectMetaWithOptions` at the root,
//! `CoerceWithOptions` in embedded resources), which drops the fields ObjectMeta does not
//! have and names them: the root's first, in document order (`metadata.foo`), before the
//! pruned ones; the embedded resources' last, sorted (`spec.template.metadata.foo`), as
//! `unstructuredSchemaCoercer.apply` (`customresource_handler.go`) appends them.

use serde_json::Value as J;

use super::schema::{AdditionalProperties, Schema};
use crate::kubernetes::builtin::catalogue;

// Data nested deeper than the documents' limit (which readers never give: values built
// otherwise, such as by a patch) is left as it is.
use crate::documents::MAX_DEPTH;

const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Prunes `x` (a resource root) under `s`; returns the paths of the pruned fields, sorted
/// (`spec.foo`, `spec.items[0].bar`).
pub fn prune(x: &mut J, s: &Schema) -> Vec<String> {
    let mut out = root_metadata(x);
    if let Some(meta) = x.get_mut("metadata") {
        catalogue::object_meta().prune_unknown(meta);
    }
    let found = walk(x, s, true);
    for path in &found {
        remove(x, path);
    }
    out.extend(render_sorted(&found));
    let resources = embedded_resources(x, s);
    out.extend(embedded_metadata(x, &resources));
    for (steps, _) in &resources {
        if let Some(meta) = at_mut(x, steps).and_then(|r| r.get_mut("metadata")) {
            catalogue::object_meta().prune_unknown(meta);
        }
    }
    out
}

/// The paths pruning would drop from `x` (a resource root) under `s`, in the order
/// [`prune`] answers them; `x` is not changed.
pub fn unknown_fields(x: &J, s: &Schema) -> Vec<String> {
    let mut out = root_metadata(x);
    out.extend(render_sorted(&walk(x, s, true)));
    out.extend(embedded_metadata(x, &embedded_resources(x, s)));
    out
}

/// The fields of the root's `metadata` that ObjectMeta does not have, in document order.
fn root_metadata(x: &J) -> Vec<String> {
    x.get("metadata")
        .map(|meta| {
            catalogue::object_meta()
                .unknown_fields(meta)
                .into_iter()
                .map(|p| format!("metadata.{p}"))
                .collect()
        })
        .unwrap_or_default()
}

/// An embedded resource with `metadata`: the steps to it and its path as apimachinery's
/// `field.Path` writes it (map values as `[key]`).
type Resource = (Vec<Step>, String);

/// The embedded resources (`x-kubernetes-embedded-resource`) with `metadata` below the
/// root, found as `CoerceWithOptions` walks: through specified properties, schema'd
/// `additionalProperties` and items.
fn embedded_resources(x: &J, s: &Schema) -> Vec<Resource> {
    let mut found = Vec::new();
    resources_below(x, s, &mut Vec::new(), "", 0, &mut found);
    found
}

fn resources_below(
    x: &J,
    s: &Schema,
    steps: &mut Vec<Step>,
    path: &str,
    depth: usize,
    found: &mut Vec<Resource>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match x {
        J::Object(map) => {
            if s.embedded_resource && map.contains_key("metadata") {
                found.push((steps.clone(), path.to_owned()));
            }
            for (k, v) in map {
                let (schema, child) = match (s.properties.get(k), &s.additional_properties) {
                    (Some(p), _) if path.is_empty() => (p, k.clone()),
                    (Some(p), _) => (p, format!("{path}.{k}")),
                    (None, Some(AdditionalProperties::Schema(values))) => {
                        (values.as_ref(), format!("{path}[{k}]"))
                    }
                    _ => continue,
                };
                steps.push(Step::Key(k.clone()));
                resources_below(v, schema, steps, &child, depth + 1, found);
                steps.pop();
            }
        }
        J::Array(items) => {
            if let Some(item_schema) = s.items() {
                for (i, item) in items.iter().enumerate() {
                    steps.push(Step::Index(i));
                    let child = format!("{path}[{i}]");
                    resources_below(item, item_schema, steps, &child, depth + 1, found);
                    steps.pop();
                }
            }
        }
        _ => {}
    }
}

/// The fields of the embedded resources' `metadata` that ObjectMeta does not have, sorted.
fn embedded_metadata(x: &J, resources: &[Resource]) -> Vec<String> {
    let mut out = Vec::new();
    for (steps, path) in resources {
        let Some(meta) = at(x, steps).and_then(|r| r.get("metadata")) else {
            continue;
        };
        for p in catalogue::object_meta().unknown_fields(meta) {
            out.push(format!("{path}.metadata.{p}"));
        }
    }
    out.sort();
    out
}

/// The value at `steps` from `x`.
fn at<'a>(x: &'a J, steps: &[Step]) -> Option<&'a J> {
    steps.iter().try_fold(x, |at, step| match (step, at) {
        (Step::Key(k), J::Object(o)) => o.get(k),
        (Step::Index(i), J::Array(a)) => a.get(*i),
        _ => None,
    })
}

/// The value at `steps` from `x`, to change.
fn at_mut<'a>(x: &'a mut J, steps: &[Step]) -> Option<&'a mut J> {
    steps.iter().try_fold(x, |at, step| match (step, at) {
        (Step::Key(k), J::Object(o)) => o.get_mut(k),
        (Step::Index(i), J::Array(a)) => a.get_mut(*i),
        _ => None,
    })
}

/// Whether pruning would drop anything from `x`, a value below the resource root (such as a
/// `default`) under its schema `s`, as Kubernetes checks defaults when a CRD is written.
pub fn has_unknown_fields(x: &J, s: &Schema) -> bool {
    !walk(x, s, false).is_empty()
}

/// One step of a path: an object's field or a list's index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn walk(x: &J, s: &Schema, root: bool) -> Vec<Vec<Step>> {
    let mut found = Vec::new();
    node(x, Some(s), root, &mut Vec::new(), 0, &mut found);
    found
}

fn render_sorted(paths: &[Vec<Step>]) -> Vec<String> {
    let mut out: Vec<String> = paths
        .iter()
        .map(|path| {
            let mut s = String::new();
            for step in path {
                match step {
                    Step::Key(k) => {
                        if !s.is_empty() {
                            s.push('.');
                        }
                        s.push_str(k);
                    }
                    Step::Index(i) => s.push_str(&format!("[{i}]")),
                }
            }
            s
        })
        .collect();
    out.sort();
    out
}

/// Removes the field at `path` (which ends with a key).
fn remove(x: &mut J, path: &[Step]) {
    let Some((Step::Key(last), parents)) = path.split_last() else {
        return;
    };
    if let Some(J::Object(o)) = at_mut(x, parents) {
        o.remove(last);
    }
}

/// The schema of the values of a map under `s`, as pruning sees it: `additionalProperties`
/// given (a schema, or a boolean standing for an unspecified one) or not.
fn additional(s: &Schema) -> Option<Option<&Schema>> {
    match &s.additional_properties {
        Some(AdditionalProperties::Schema(v)) => Some(Some(v)),
        Some(AdditionalProperties::Bool(_)) => Some(None),
        None => None,
    }
}

fn node(
    x: &J,
    s: Option<&Schema>,
    embedded: bool,
    path: &mut Vec<Step>,
    depth: usize,
    found: &mut Vec<Vec<Step>>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(s) = s {
        if s.preserves_unknown_fields() {
            skip(x, s, embedded, path, depth, found);
            return;
        }
    }
    match x {
        J::Object(map) => {
            let embedded = embedded || s.is_some_and(|s| s.embedded_resource);
            for (k, v) in map {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                path.push(Step::Key(k.clone()));
                match s.map(|s| (s.properties.get(k), additional(s))) {
                    Some((Some(p), _)) => node(v, Some(p), false, path, depth + 1, found),
                    Some((None, Some(values))) => node(v, values, false, path, depth + 1, found),
                    _ => found.push(path.clone()),
                }
                path.pop();
            }
        }
        J::Array(items) => {
            let item_schema = s.and_then(|s| s.items());
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                node(item, item_schema, false, path, depth + 1, found);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Under `x-kubernetes-preserve-unknown-fields`: unknown fields stay, specified ones are
/// pruned below.
fn skip(
    x: &J,
    s: &Schema,
    embedded: bool,
    path: &mut Vec<Step>,
    depth: usize,
    found: &mut Vec<Vec<Step>>,
) {
    match x {
        J::Object(map) => {
            let embedded = embedded || s.embedded_resource;
            for (k, v) in map {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                let schema = match (s.properties.get(k), additional(s)) {
                    (Some(p), _) => Some(p),
                    (None, Some(values)) => values,
                    (None, None) => continue,
                };
                path.push(Step::Key(k.clone()));
                node(v, schema, false, path, depth + 1, found);
                path.pop();
            }
        }
        J::Array(items) => {
            if let Some(item_schema) = s.items() {
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    skip(item, item_schema, false, path, depth + 1, found);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pruned(schema: J, mut value: J) -> (Vec<String>, J) {
        let schema = Schema::from_json(&schema).unwrap();
        let paths = prune(&mut value, &schema);
        (paths, value)
    }

    // After pruning/algorithm_test.go (TestPrune, TestPruneWithOptions).
    #[test]
    fn unknown_fields_are_dropped_and_reported() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "string"},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"y": {"type": "string"}}}}
            }}
        }});
        let (paths, value) = pruned(
            schema,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n", "extra": 1},
                   "spec": {"a": "x", "b": 1, "list": [{"x": 1, "z": 2}],
                            "map": {"k": {"y": "v", "w": true}}},
                   "status": {}}),
        );
        assert_eq!(
            paths,
            [
                "metadata.extra",
                "spec.b",
                "spec.list[0].z",
                "spec.map.k.w",
                "status"
            ]
        );
        assert_eq!(
            value,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"},
                   "spec": {"a": "x", "list": [{"x": 1}], "map": {"k": {"y": "v"}}}})
        );
    }

    #[test]
    fn preserved_unknown_fields_stay_and_embedded_resources_keep_their_meta() {
        let schema = json!({"type": "object", "properties": {
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                     "properties": {"typed": {"type": "object", "properties": {"a": {"type": "string"}}}}},
            "inner": {"type": "object", "x-kubernetes-embedded-resource": true,
                      "properties": {"spec": {"type": "object"}}}
        }});
        let (paths, value) = pruned(
            schema,
            json!({"free": {"any": 1, "typed": {"a": "x", "b": 2}},
                   "inner": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"c": 1}, "other": 2}}),
        );
        assert_eq!(paths, ["free.typed.b", "inner.other", "inner.spec.c"]);
        assert_eq!(
            value,
            json!({"free": {"any": 1, "typed": {"a": "x"}},
                   "inner": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}})
        );
    }

    // objectmeta/coerce_test.go (TestGetObjectMetaWithOptions: `metadata.unknownField`),
    // customresource_handler.go (`unstructuredSchemaCoercer.apply`: the root's metadata
    // first, then pruning's paths, then the embedded resources' metadata, sorted), and
    // test/e2e/kubectl/kubectl.go ("should detect unknown metadata fields in both the root
    // and embedded object of a CR": `spec.template.metadata.unknownMetaEmbedded`).
    #[test]
    fn unknown_metadata_fields_are_dropped_and_reported() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "x-kubernetes-preserve-unknown-fields": true},
            "byName": {"type": "object", "additionalProperties": {
                "type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true}},
            "list": {"type": "array", "items": {
                "type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"spec": {"type": "object"}}}}
        }}}});
        let object = json!({
            "apiVersion": "g/v1", "kind": "K",
            "metadata": {"name": "n", "zeta": 1, "alpha": 2, "namespace": "ns",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                              "uid": "u", "extra": true}],
                         "managedFields": [{"manager": "m", "fieldsV1": {"f:a": {}}}]},
            "spec": {
                "unknown": 1,
                "template": {"apiVersion": "foo/v1", "kind": "Sub",
                             "metadata": {"name": "s", "namespace": "ns", "unknownSubMeta": "u"}},
                "byName": {"k": {"metadata": {"labels": {"a": "b"}, "x": 1}}},
                "list": [{"metadata": {"y": 1}, "spec": {}}]
            }
        });
        let s = Schema::from_json(&schema).unwrap();
        let expected = [
            "metadata.alpha",
            "metadata.ownerReferences[0].extra",
            "metadata.zeta",
            "spec.unknown",
            "spec.byName[k].metadata.x",
            "spec.list[0].metadata.y",
            "spec.template.metadata.unknownSubMeta",
        ];
        assert_eq!(unknown_fields(&object, &s), expected);
        let (paths, value) = pruned(schema, object);
        assert_eq!(paths, expected);
        assert_eq!(
            value,
            json!({
                "apiVersion": "g/v1", "kind": "K",
                "metadata": {"name": "n", "namespace": "ns",
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                                  "uid": "u"}],
                             "managedFields": [{"manager": "m", "fieldsV1": {"f:a": {}}}]},
                "spec": {
                    "template": {"apiVersion": "foo/v1", "kind": "Sub",
                                 "metadata": {"name": "s", "namespace": "ns"}},
                    "byName": {"k": {"metadata": {"labels": {"a": "b"}}}},
                    "list": [{"metadata": {}, "spec": {}}]
                }
            })
        );
    }

    #[test]
    fn defaults_with_unknown_fields_are_found() {
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "c": {"type": "integer"},
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "o": {"type": "object", "properties": {"p": {"type": "integer"}}}
        }}))
        .unwrap();
        let plain = Schema::from_json(&json!({"type": "object"})).unwrap();
        assert!(has_unknown_fields(&json!({"a": 1}), &plain));
        assert!(has_unknown_fields(&json!({"apiVersion": "v1"}), &plain));
        assert!(!has_unknown_fields(&json!({"c": 1, "o": {"p": 2}}), &s));
        assert!(has_unknown_fields(&json!({"o": {"q": 2}}), &s));
        assert!(has_unknown_fields(&json!({"m": {"k": {"x": 1}}}), &s));
    }
}

//! Pruning: kube-apiserver drops the fields of a custom resource that its structural schema
//! does not specify, when it decodes a request, and reports them (as warnings, or as a
//! strict decoding error, by the request's `fieldValidation`).
//!
//! Source: apiextensions-apiserver `pkg/apiserver/schema/pruning/algorithm.go`
//! (`PruneWithOptions`, `prune`, `skipPrune`): at the resource root and in embedded
//! resources `apiVersion`, `kind` and `metadata` are kept as they are; under
//! `x-kubernetes-preserve-unknown-fields` unknown fields stay, while the specified ones
//! below are still pruned; the paths of the pruned fields come back sorted.

use serde_json::Value as J;

use super::schema::{AdditionalProperties, Schema};

/// Data nested deeper than this is left as it is.
const MAX_DEPTH: usize = 1000;

const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Prunes `x` (a resource root) under `s`; returns the paths of the pruned fields, sorted
/// (`spec.foo`, `spec.items[0].bar`).
pub fn prune(x: &mut J, s: &Schema) -> Vec<String> {
    let found = walk(x, s, true);
    for path in &found {
        remove(x, path);
    }
    render_sorted(&found)
}

/// The paths pruning would drop from `x` (a resource root) under `s`, sorted; `x` is not
/// changed.
pub fn unknown_fields(x: &J, s: &Schema) -> Vec<String> {
    render_sorted(&walk(x, s, true))
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
    let mut at = x;
    for step in parents {
        let next = match (step, at) {
            (Step::Key(k), J::Object(o)) => o.get_mut(k),
            (Step::Index(i), J::Array(a)) => a.get_mut(*i),
            _ => None,
        };
        let Some(next) = next else {
            return;
        };
        at = next;
    }
    if let J::Object(o) = at {
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
        if s.preserve_unknown_fields {
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
            let item_schema = s.and_then(|s| s.items.as_deref());
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
            if let Some(item_schema) = s.items.as_deref() {
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
            ["spec.b", "spec.list[0].z", "spec.map.k.w", "status"]
        );
        assert_eq!(
            value,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n", "extra": 1},
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

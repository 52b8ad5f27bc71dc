//! `metadata.managedFields` for Update operations (creates, updates and patches), as
//! kube-apiserver's field manager keeps them: each manager owns the fields it set or changed,
//! a field changed by one manager leaves the others, a removed field leaves everyone.
//!
//! Field sets are kept as sets of paths and written in the `FieldsV1` format: `f:<field>` for
//! struct fields and map keys, `k:{"name":"x"}` for items of lists with
//! `x-kubernetes-list-type: map`, `v:<json>` for items of sets, and `.` for a path that is a
//! member itself and has members below it (maps and list items). Struct fields are members
//! only as leaves; atomic lists and scalars are leaves.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::object::Object;
use crate::openapi::Schema;
use crate::resource::Resource;

/// A path in an object, one `FieldsV1` key per step.
type Path = Vec<String>;

/// The members of a field set: each path with its value if it is a leaf.
type Members = BTreeMap<Path, Option<Value>>;

/// Metadata fields the server owns, never tracked.
const UNTRACKED_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// Whether the kind has a status subresource upstream, whose status main-resource writes do
/// not own.
fn status_is_separate(resource: &Resource) -> bool {
    matches!(resource.kind, "Deployment" | "Service" | "Namespace")
}

fn resolved_node(schema: Option<Schema<'_>>) -> Option<&Value> {
    schema.map(|s| s.resolved_node())
}

fn list_type(schema: Option<Schema>) -> (String, Vec<String>) {
    let node = resolved_node(schema);
    let raw = schema.map(|s| s.node_value());
    let get = |name: &str| {
        raw.and_then(|n| n.get(name))
            .or_else(|| node.and_then(|n| n.get(name)))
            .cloned()
    };
    let kind = get("x-kubernetes-list-type")
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "atomic".to_owned());
    let keys = get("x-kubernetes-list-map-keys")
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    (kind, keys)
}

fn collect(value: &Value, schema: Option<Schema>, path: &mut Path, out: &mut Members) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let node = resolved_node(schema);
            let is_map = node.is_some_and(|n| {
                n.get("properties").is_none() && n.get("additionalProperties").is_some()
            });
            let atomic =
                node.and_then(|n| n.get("x-kubernetes-map-type")) == Some(&json!("atomic"));
            if atomic
                || (schema.is_some()
                    && node.is_some_and(|n| n.get("properties").is_none() && !is_map))
            {
                out.insert(path.clone(), Some(value.clone()));
                return;
            }
            if is_map && !path.is_empty() {
                out.insert(path.clone(), None);
            }
            for (key, child) in map {
                path.push(format!("f:{key}"));
                collect(child, schema.and_then(|s| s.field(key)), path, out);
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let (kind, keys) = list_type(schema);
            let item_schema = schema.and_then(Schema::items);
            match kind.as_str() {
                "map" if !keys.is_empty() => {
                    for item in items {
                        let key: Map<String, Value> = keys
                            .iter()
                            .filter_map(|k| item.get(k).map(|v| (k.clone(), v.clone())))
                            .collect();
                        path.push(format!("k:{}", Value::Object(key)));
                        out.insert(path.clone(), None);
                        if let Value::Object(fields) = item {
                            for (name, child) in fields {
                                path.push(format!("f:{name}"));
                                collect(child, item_schema.and_then(|s| s.field(name)), path, out);
                                path.pop();
                            }
                        }
                        path.pop();
                    }
                }
                "set" => {
                    out.insert(path.clone(), None);
                    for item in items {
                        path.push(format!("v:{item}"));
                        out.insert(path.clone(), Some(item.clone()));
                        path.pop();
                    }
                }
                _ => {
                    out.insert(path.clone(), Some(value.clone()));
                }
            }
        }
        // A null is an absent field (an unset time, say), not a value anyone owns.
        Value::Null => {}
        leaf => {
            out.insert(path.clone(), Some(leaf.clone()));
        }
    }
}

/// The tracked members of an object.
fn members(resource: &Resource, object: &Object) -> Members {
    let mut value = Value::Object(object.clone());
    if let Some(map) = value.as_object_mut() {
        map.remove("apiVersion");
        map.remove("kind");
        if status_is_separate(resource) {
            map.remove("status");
        }
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            for field in UNTRACKED_METADATA {
                meta.remove(*field);
            }
            if meta.is_empty() {
                map.remove("metadata");
            }
        }
    }
    let mut out = Members::new();
    collect(&value, Schema::of(resource), &mut Vec::new(), &mut out);
    out.remove(&Vec::new());
    out
}

/// Reads a `FieldsV1` tree into paths.
fn parse_fields(tree: &Value, path: &mut Path, out: &mut BTreeSet<Path>) {
    let Some(map) = tree.as_object() else { return };
    for (key, child) in map {
        if key == "." {
            out.insert(path.clone());
            continue;
        }
        path.push(key.clone());
        if child.as_object().is_none_or(Map::is_empty) {
            out.insert(path.clone());
        } else {
            parse_fields(child, path, out);
        }
        path.pop();
    }
}

/// Writes paths as a `FieldsV1` tree.
fn write_fields(paths: &BTreeSet<Path>) -> Value {
    let mut root = Map::new();
    for path in paths {
        let mut node = &mut root;
        for step in path {
            node = node
                .entry(step.clone())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("field set nodes are objects");
        }
    }
    // A member with members below it gets ".".
    fn mark(node: &mut Map<String, Value>, path: &mut Path, paths: &BTreeSet<Path>) {
        for (key, child) in node.iter_mut() {
            path.push(key.clone());
            if let Some(child) = child.as_object_mut()
                && !child.is_empty()
            {
                mark(child, path, paths);
                if paths.contains(path) {
                    child.insert(".".to_owned(), json!({}));
                }
            }
            path.pop();
        }
    }
    mark(&mut root, &mut Vec::new(), paths);
    Value::Object(root)
}

/// One `managedFields` entry.
struct Entry {
    raw: Map<String, Value>,
    paths: BTreeSet<Path>,
}

fn entries(object: &Object) -> Vec<Entry> {
    object
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_object)
                .map(|raw| {
                    let mut paths = BTreeSet::new();
                    if let Some(tree) = raw.get("fieldsV1") {
                        parse_fields(tree, &mut Vec::new(), &mut paths);
                    }
                    Entry {
                        raw: raw.clone(),
                        paths,
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The manager of a request: `fieldManager`, else the User-Agent's first word, as upstream.
pub fn manager_name(field_manager: &str, user_agent: &str) -> String {
    if !field_manager.is_empty() {
        return field_manager.to_owned();
    }
    let agent = user_agent.split('/').next().unwrap_or("").trim();
    if agent.is_empty() {
        "unknown".to_owned()
    } else {
        agent.chars().take(128).collect()
    }
}

/// Sets `new`'s managedFields for an Update by `manager` that turned `old` (None for a
/// create) into `new`.
pub fn update(
    resource: &Resource,
    old: Option<&Object>,
    new: &mut Object,
    manager: &str,
    now: &str,
) {
    let before = old.map(|o| members(resource, o)).unwrap_or_default();
    let after = members(resource, new);
    let changed: BTreeSet<Path> = after
        .iter()
        .filter(|(path, value)| match before.get(*path) {
            None => true,
            Some(old) => old != *value,
        })
        .map(|(path, _)| path.clone())
        .collect();
    let mut list = old.map(entries).unwrap_or_default();
    let api_version = resource.api_version();
    let mine = list.iter().position(|e| {
        e.raw.get("manager").and_then(Value::as_str) == Some(manager)
            && e.raw.get("operation").and_then(Value::as_str) == Some("Update")
            && e.raw.get("apiVersion").and_then(Value::as_str) == Some(api_version.as_str())
            && e.raw.get("subresource").is_none()
    });
    if changed.is_empty() && old.is_some() {
        // A write that changes nothing leaves the entries (and their times) as they were.
        let kept: Vec<Value> = list.into_iter().map(|e| Value::Object(e.raw)).collect();
        set_entries(new, kept);
        return;
    }
    let mut own = match mine {
        Some(i) => list.remove(i).paths,
        None => BTreeSet::new(),
    };
    own.extend(changed.iter().cloned());
    let mut kept = Vec::new();
    for mut entry in list {
        entry
            .paths
            .retain(|p| !changed.contains(p) && after.contains_key(p));
        if entry.paths.is_empty() {
            continue;
        }
        entry
            .raw
            .insert("fieldsV1".to_owned(), write_fields(&entry.paths));
        kept.push(Value::Object(entry.raw));
    }
    own.retain(|p| after.contains_key(p));
    if !own.is_empty() || mine.is_some() {
        kept.push(json!({
            "manager": manager,
            "operation": "Update",
            "apiVersion": api_version,
            "time": now,
            "fieldsType": "FieldsV1",
            "fieldsV1": write_fields(&own),
        }));
    }
    set_entries(new, kept);
}

fn set_entries(object: &mut Object, entries: Vec<Value>) {
    let meta = crate::object::metadata_mut(object);
    if entries.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert("managedFields".to_owned(), Value::Array(entries));
    }
}

/// A conflict of a server-side apply: another manager owns a field the apply changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The other manager.
    pub manager: String,
    /// Its entry's apiVersion.
    pub api_version: String,
    /// Whether its entry is an Apply (upstream then names no apiVersion).
    pub apply: bool,
    /// The field, as upstream prints paths: `.data.a`, `.spec.containers[name="x"].image`.
    pub field: String,
}

/// A `FieldsV1` path as upstream prints it in conflicts.
fn path_text(path: &Path) -> String {
    let mut out = String::new();
    for step in path {
        if let Some(field) = step.strip_prefix("f:") {
            out.push('.');
            out.push_str(field);
        } else if let Some(key) = step.strip_prefix("k:") {
            let keys: Map<String, Value> = serde_json::from_str(key).unwrap_or_default();
            let inner: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("[{}]", inner.join(",")));
        } else if let Some(value) = step.strip_prefix("v:") {
            out.push_str(&format!("[{value}]"));
        } else {
            out.push_str(&format!("[{step}]"));
        }
    }
    out
}

/// Removes the value at `path` from `value` (a field, a keyed list item, a set item).
fn remove_path(value: &mut Value, path: &[String]) {
    let Some((step, rest)) = path.split_first() else {
        return;
    };
    if let Some(field) = step.strip_prefix("f:") {
        let Some(map) = value.as_object_mut() else {
            return;
        };
        if rest.is_empty() {
            map.remove(field);
        } else if let Some(child) = map.get_mut(field) {
            remove_path(child, rest);
        }
    } else if let Some(key) = step.strip_prefix("k:") {
        let keys: Map<String, Value> = serde_json::from_str(key).unwrap_or_default();
        let Some(items) = value.as_array_mut() else {
            return;
        };
        let matches = |item: &Value| keys.iter().all(|(k, v)| item.get(k) == Some(v));
        if rest.is_empty() {
            items.retain(|item| !matches(item));
        } else if let Some(item) = items.iter_mut().find(|item| matches(item)) {
            remove_path(item, rest);
        }
    } else if let Some(raw) = step.strip_prefix("v:") {
        let target: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
        if let Some(items) = value.as_array_mut() {
            items.retain(|item| *item != target);
        }
    }
}

/// The result of a server-side apply by `manager` of `applied` onto `live` (the merged
/// object with its managedFields), or the conflicts with other managers when not forced.
pub fn apply(
    resource: &Resource,
    live: Option<&Object>,
    applied: &Object,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Object, Vec<Conflict>> {
    let api_version = resource.api_version();
    let applied_members = members(resource, applied);
    let Some(live) = live else {
        let mut new = applied.clone();
        set_entries(
            &mut new,
            vec![apply_entry(manager, &api_version, now, &applied_members)],
        );
        return Ok(new);
    };
    let live_members = members(resource, live);
    let mut list = entries(live);
    let mine = list.iter().position(|e| {
        e.raw.get("manager").and_then(Value::as_str) == Some(manager)
            && e.raw.get("operation").and_then(Value::as_str) == Some("Apply")
    });
    let previous = match mine {
        Some(i) => list.remove(i).paths,
        None => BTreeSet::new(),
    };
    // Fields the apply changes that others own.
    let mut conflicts = Vec::new();
    let mut changed = BTreeSet::new();
    for (path, value) in &applied_members {
        let differs = match live_members.get(path) {
            Some(live_value) => live_value != value,
            None => false,
        };
        if !differs {
            continue;
        }
        changed.insert(path.clone());
        for entry in &list {
            if entry.paths.contains(path) {
                conflicts.push(Conflict {
                    manager: entry
                        .raw
                        .get("manager")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    api_version: entry
                        .raw
                        .get("apiVersion")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    field: path_text(path),
                    apply: entry.raw.get("operation").and_then(Value::as_str) == Some("Apply"),
                });
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflicts);
    }
    // Merge the applied configuration into the live object.
    let mut merged = Value::Object(live.clone());
    let patch = Value::Object(applied.clone());
    let _ = crate::patch::strategic_merge(&mut merged, &patch, Schema::of(resource));
    // Fields this manager applied before and no longer does, that nobody else owns, go.
    let owned_by_others: BTreeSet<&Path> = list.iter().flat_map(|e| e.paths.iter()).collect();
    let mut dropped: Vec<&Path> = previous
        .iter()
        .filter(|p| !applied_members.contains_key(*p) && !owned_by_others.contains(p))
        .collect();
    // Deepest first, so that a list item goes before its list.
    dropped.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for path in dropped {
        remove_path(&mut merged, path);
    }
    let Value::Object(mut merged) = merged else {
        unreachable!("merged into an object")
    };
    let after = members(resource, &merged);
    let mut kept = Vec::new();
    for mut entry in list {
        // Changed fields move to the applier (forced); fields gone leave everyone.
        entry
            .paths
            .retain(|p| !changed.contains(p) && after.contains_key(p));
        if entry.paths.is_empty() {
            continue;
        }
        entry
            .raw
            .insert("fieldsV1".to_owned(), write_fields(&entry.paths));
        kept.push(Value::Object(entry.raw));
    }
    kept.insert(0, apply_entry(manager, &api_version, now, &applied_members));
    set_entries(&mut merged, kept);
    Ok(merged)
}

impl Conflict {
    /// The manager as upstream prints it: `"m" using v1`, or `"m"` for an Apply entry.
    pub fn manager_text(&self) -> String {
        if self.apply {
            format!("{:?}", self.manager)
        } else {
            format!("{:?} using {}", self.manager, self.api_version)
        }
    }
}

/// Upstream's message for apply conflicts.
pub fn conflict_message(conflicts: &[Conflict]) -> String {
    if let [one] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            one.manager_text(),
            one.field
        );
    }
    let mut managers: Vec<String> = conflicts.iter().map(Conflict::manager_text).collect();
    managers.sort();
    managers.dedup();
    let mut lines = Vec::new();
    for manager in managers {
        lines.push(format!("conflicts with {manager}:"));
        for c in conflicts.iter().filter(|c| c.manager_text() == manager) {
            lines.push(format!("- {}", c.field));
        }
    }
    format!(
        "Apply failed with {} conflicts: {}",
        conflicts.len(),
        lines.join("\n")
    )
}

fn apply_entry(manager: &str, api_version: &str, now: &str, members: &Members) -> Value {
    let paths: BTreeSet<Path> = members.keys().cloned().collect();
    json!({
        "manager": manager,
        "operation": "Apply",
        "apiVersion": api_version,
        "time": now,
        "fieldsType": "FieldsV1",
        "fieldsV1": write_fields(&paths),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS};

    fn obj(v: Value) -> Object {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_create_owns_every_field_it_set() {
        let mut cm = obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "uid": "u", "labels": {"x": "y"}, "finalizers": ["f"]},
            "data": {"a": "1"}}));
        update(&CONFIGMAPS, None, &mut cm, "kubectl-create", "T");
        assert_eq!(
            cm["metadata"]["managedFields"],
            json!([{"manager": "kubectl-create", "operation": "Update", "apiVersion": "v1",
                "time": "T", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:data": {".": {}, "f:a": {}},
                    "f:metadata": {"f:finalizers": {".": {}, "v:\"f\"": {}},
                                   "f:labels": {".": {}, "f:x": {}}}}}])
        );
    }

    #[test]
    fn an_update_takes_changed_fields_from_other_managers() {
        let mut old = obj(json!({"metadata": {"name": "a"}, "data": {"a": "1", "b": "2"}}));
        update(&CONFIGMAPS, None, &mut old, "one", "T1");
        let mut new = old.clone();
        new["data"]["b"] = json!("3");
        new["data"].as_object_mut().unwrap().remove("a");
        update(&CONFIGMAPS, Some(&old), &mut new, "two", "T2");
        let entries = new["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0]["manager"], "one");
        assert_eq!(entries[0]["fieldsV1"], json!({"f:data": {}}));
        assert_eq!(entries[1]["manager"], "two");
        assert_eq!(entries[1]["fieldsV1"], json!({"f:data": {"f:b": {}}}));
    }

    #[test]
    fn apply_merges_removes_and_conflicts() {
        let first = obj(json!({"metadata": {"name": "a"}, "data": {"x": "1", "y": "2"}}));
        let live = apply(&CONFIGMAPS, None, &first, "one", false, "T").unwrap();
        let second = obj(json!({"metadata": {"name": "a"}, "data": {"x": "1"}}));
        let live = apply(&CONFIGMAPS, Some(&live), &second, "one", false, "T").unwrap();
        assert_eq!(live["data"], json!({"x": "1"}));
        let other = obj(json!({"metadata": {"name": "a"}, "data": {"x": "3"}}));
        let conflicts = apply(&CONFIGMAPS, Some(&live), &other, "two", false, "T").unwrap_err();
        assert_eq!(
            conflict_message(&conflicts),
            "Apply failed with 1 conflict: conflict with \"one\": .data.x"
        );
        let forced = apply(&CONFIGMAPS, Some(&live), &other, "two", true, "T").unwrap();
        assert_eq!(forced["data"]["x"], "3");
        let two = [
            Conflict {
                manager: "m".into(),
                api_version: "v1".into(),
                field: ".a".into(),
                apply: false,
            },
            Conflict {
                manager: "m".into(),
                api_version: "v1".into(),
                field: ".b".into(),
                apply: false,
            },
        ];
        assert_eq!(
            conflict_message(&two),
            "Apply failed with 2 conflicts: conflicts with \"m\" using v1:\n- .a\n- .b"
        );
        assert_eq!(
            path_text(&vec![
                "f:spec".into(),
                "f:containers".into(),
                "k:{\"name\":\"c\"}".into(),
                "f:image".into()
            ]),
            ".spec.containers[name=\"c\"].image"
        );
    }

    #[test]
    fn containers_are_keyed_by_name() {
        let mut d = obj(json!({"metadata": {"name": "d"}, "spec": {"replicas": 1,
            "template": {"spec": {"containers": [{"name": "main", "image": "x", "args": ["a"]}]}}},
            "status": {"replicas": 1}}));
        update(&DEPLOYMENTS, None, &mut d, "m", "T");
        assert_eq!(
            d["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"main\"}": {".": {}, "f:args": {}, "f:image": {}, "f:name": {}}}}}}})
        );
        assert_eq!(manager_name("", "kubectl/v1.37.1 (linux/amd64)"), "kubectl");
        assert_eq!(manager_name("x", "y"), "x");
    }
}

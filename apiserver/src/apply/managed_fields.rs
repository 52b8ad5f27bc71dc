//! `metadata.managedFields` as kube-apiserver's field manager keeps them
//! (k8s.io/apimachinery `pkg/util/managedfields/internal`): entries per manager identifier
//! (manager, operation, apiVersion for updates, subresource), the write's time on the entry
//! whose fields it changed, server-owned metadata never tracked, at most ten update entries
//! (older ones merged into `ancient-changes`), objects without entries adopted by
//! `before-first-apply` on their first apply, and kubectl's client-side-apply upgrade
//! (conflicts with what the `last-applied-configuration` annotation says are forgiven for the
//! `kubectl` manager, which keeps that annotation current).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::apply_schema::{KindSchema, Node, OpenApi};
use super::fieldpath::{PathText, Set, from_fields_v1, path, to_fields_v1};
use super::typed::{compare, to_field_set, validation_errors};
use super::updater::{Conflict, Managers, Updater, VersionedSet, sort_conflicts};
use crate::metadata::{Object, meta_str, metadata_mut};
use crate::openapi::schema_of;
use crate::resource::Resource;

/// kubectl's client-side apply annotation.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manager that adopts an object's fields on its first apply when it has no entries.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// At most this many update entries (upstream's `DefaultMaxUpdateManagers`).
const MAX_UPDATE_MANAGERS: usize = 10;

/// Paths the field manager never tracks (upstream's `stripMetaManager`).
fn stripped() -> Set {
    [
        &["f:apiVersion"][..],
        &["f:kind"],
        &["f:metadata"],
        &["f:metadata", "f:name"],
        &["f:metadata", "f:namespace"],
        &["f:metadata", "f:creationTimestamp"],
        &["f:metadata", "f:selfLink"],
        &["f:metadata", "f:uid"],
        &["f:metadata", "f:clusterName"],
        &["f:metadata", "f:generation"],
        &["f:metadata", "f:managedFields"],
        &["f:metadata", "f:resourceVersion"],
    ]
    .iter()
    .map(|p| path(p))
    .collect()
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

/// A manager identifier: the entry's JSON without fields and time, and without the
/// apiVersion for appliers (upstream's `BuildManagerIdentifier`).
fn identifier(manager: &str, operation: &str, api_version: &str, subresource: &str) -> String {
    let mut m = Map::new();
    if !manager.is_empty() {
        m.insert("manager".into(), json!(manager));
    }
    m.insert("operation".into(), json!(operation));
    if operation != "Apply" && !api_version.is_empty() {
        m.insert("apiVersion".into(), json!(api_version));
    }
    if !subresource.is_empty() {
        m.insert("subresource".into(), json!(subresource));
    }
    // Go marshals the struct's fields in declaration order.
    let order = ["manager", "operation", "apiVersion", "subresource"];
    let parts: Vec<String> = order
        .iter()
        .filter_map(|k| m.get(*k).map(|v| format!("{}:{}", json!(k), v)))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// Decoded entries: fields and times by identifier.
#[derive(Debug, Clone, Default)]
struct Managed {
    fields: Managers,
    times: BTreeMap<String, Option<String>>,
}

/// Why an object's managedFields do not decode (upstream's texts).
#[derive(Debug, thiserror::Error)]
enum ManagedFieldsError {
    /// Not a list.
    #[error("managedFields must be a list")]
    NotAList,
    /// An operation other than `Apply` or `Update`.
    #[error("operation must be `Apply` or `Update`")]
    Operation,
    /// No apiVersion.
    #[error("apiVersion must not be empty")]
    ApiVersion,
    /// No fieldsType.
    #[error("missing fieldsType in managed fields entry {0}")]
    MissingFieldsType(usize),
    /// A fieldsType other than `FieldsV1`.
    #[error("invalid fieldsType {0:?} in managed fields entry {1}")]
    FieldsType(String, usize),
    /// fieldsV1 that does not decode.
    #[error(transparent)]
    Fields(#[from] super::fieldpath::FieldsError),
}

fn decode(object: &Object) -> Result<Managed, ManagedFieldsError> {
    let mut managed = Managed::default();
    let Some(list) = object
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .filter(|v| !v.is_null())
    else {
        return Ok(managed);
    };
    let list = list.as_array().ok_or(ManagedFieldsError::NotAList)?;
    for (i, entry) in list.iter().enumerate() {
        let s = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or("");
        let operation = s("operation");
        if operation != "Apply" && operation != "Update" {
            return Err(ManagedFieldsError::Operation);
        }
        if s("apiVersion").is_empty() {
            return Err(ManagedFieldsError::ApiVersion);
        }
        match s("fieldsType") {
            "FieldsV1" => {}
            "" => return Err(ManagedFieldsError::MissingFieldsType(i)),
            other => return Err(ManagedFieldsError::FieldsType(other.to_owned(), i)),
        }
        let id = identifier(s("manager"), operation, s("apiVersion"), s("subresource"));
        let set = match entry.get("fieldsV1") {
            Some(f) if !f.is_null() => from_fields_v1(f)?,
            _ => Set::new(),
        };
        managed.fields.insert(
            id.clone(),
            VersionedSet {
                set,
                api_version: s("apiVersion").to_owned(),
                applied: operation == "Apply",
            },
        );
        managed.times.insert(
            id,
            entry.get("time").and_then(Value::as_str).map(str::to_owned),
        );
    }
    Ok(managed)
}

fn encode(managed: &Managed) -> Vec<Value> {
    let mut entries: Vec<(String, i64, Value)> = Vec::new();
    for (id, vs) in &managed.fields {
        let parsed: Map<String, Value> = serde_json::from_str(id).unwrap_or_default();
        let text = |k: &str| {
            parsed
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let operation = if vs.applied { "Apply" } else { "Update" };
        let time = managed.times.get(id).cloned().flatten();
        let mut entry = Map::new();
        entry.insert("manager".into(), json!(text("manager")));
        entry.insert("operation".into(), json!(operation));
        entry.insert("apiVersion".into(), json!(vs.api_version));
        if let Some(t) = &time {
            entry.insert("time".into(), json!(t));
        }
        entry.insert("fieldsType".into(), json!("FieldsV1"));
        entry.insert("fieldsV1".into(), to_fields_v1(&vs.set));
        if !text("subresource").is_empty() {
            entry.insert("subresource".into(), json!(text("subresource")));
        }
        let seconds = time
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map_or(0, |t| t.timestamp());
        entries.push((operation.to_owned(), seconds, Value::Object(entry)));
    }
    // Upstream's order: operation, time, manager, apiVersion, subresource.
    entries.sort_by(|a, b| {
        let key = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        a.0.cmp(&b.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| key(&a.2, "manager").cmp(&key(&b.2, "manager")))
            .then_with(|| key(&a.2, "apiVersion").cmp(&key(&b.2, "apiVersion")))
            .then_with(|| key(&a.2, "subresource").cmp(&key(&b.2, "subresource")))
    });
    entries.into_iter().map(|e| e.2).collect()
}

fn set_entries(object: &mut Object, managed: &Managed) {
    let entries = encode(managed);
    let meta = metadata_mut(object);
    if entries.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert("managedFields".to_owned(), Value::Array(entries));
    }
}

/// Removes the server-owned metadata paths from every manager (an entry left empty goes).
fn strip_meta(managed: &mut Managed) {
    let strip = stripped();
    for vs in managed.fields.values_mut() {
        vs.set = vs.set.difference(&strip);
    }
    let empty: Vec<String> = managed
        .fields
        .iter()
        .filter(|(_, vs)| vs.set.is_empty())
        .map(|(id, _)| id.clone())
        .collect();
    for id in empty {
        managed.fields.remove(&id);
        managed.times.remove(&id);
    }
}

/// Merges the oldest update entries into `ancient-changes` until at most ten are left.
fn cap_update_managers(managed: &mut Managed) {
    let mut updaters: Vec<String> = managed
        .fields
        .iter()
        .filter(|(_, vs)| !vs.applied)
        .map(|(id, _)| id.clone())
        .collect();
    if updaters.len() <= MAX_UPDATE_MANAGERS {
        return;
    }
    let seconds = |id: &String| {
        managed
            .times
            .get(id)
            .cloned()
            .flatten()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
            .map_or(0, |t| t.timestamp())
    };
    updaters.sort_by(|a, b| seconds(a).cmp(&seconds(b)).then_with(|| a.cmp(b)));
    let mut first_of_version: BTreeMap<String, String> = BTreeMap::new();
    let mut length = updaters.len();
    for id in updaters {
        if length <= MAX_UPDATE_MANAGERS {
            break;
        }
        let Some(vs) = managed.fields.get(&id).cloned() else {
            continue;
        };
        let time = managed.times.get(&id).cloned().flatten();
        let bucket = identifier("ancient-changes", "Update", &vs.api_version, "");
        match first_of_version.get(&vs.api_version) {
            Some(first) => {
                if !managed.fields.contains_key(&bucket) {
                    if let Some(s) = managed.fields.remove(first) {
                        managed.times.remove(first);
                        managed.fields.insert(bucket.clone(), s);
                    }
                }
                let mut merged = vs.clone();
                if let Some(b) = managed.fields.get(&bucket) {
                    merged.set.union_with(&b.set);
                }
                managed.fields.insert(bucket.clone(), merged);
                managed.fields.remove(&id);
                managed.times.remove(&id);
                managed.times.insert(bucket, time);
                length -= 1;
            }
            None => {
                first_of_version.insert(vs.api_version.clone(), id);
            }
        }
    }
}

/// What a kind's objects look like after Go decoding fills in struct fields that are not
/// pointers (upstream compares typed objects, so these are never "added" by a write).
fn zero_object(resource: &Resource) -> Value {
    let body = match resource.kind {
        "Deployment" => json!({"spec": {"selector": null, "template": {
            "metadata": {"creationTimestamp": null},
            "spec": {"containers": null}}, "strategy": {}}, "status": {}}),
        "ReplicaSet" => json!({"spec": {"selector": null, "template": {
            "metadata": {"creationTimestamp": null},
            "spec": {"containers": null}}}, "status": {"replicas": 0}}),
        "StatefulSet" => json!({"spec": {"selector": null, "serviceName": "", "template": {
            "metadata": {"creationTimestamp": null},
            "spec": {"containers": null}}, "updateStrategy": {}},
            "status": {"replicas": 0, "availableReplicas": 0}}),
        "DaemonSet" => json!({"spec": {"selector": null, "template": {
            "metadata": {"creationTimestamp": null},
            "spec": {"containers": null}}, "updateStrategy": {}},
            "status": {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                "desiredNumberScheduled": 0, "numberReady": 0}}),
        "Job" => json!({"spec": {"template": {
            "metadata": {"creationTimestamp": null},
            "spec": {"containers": null}}}, "status": {}}),
        "Pod" => json!({"spec": {"containers": null}, "status": {}}),
        "CronJob" => json!({"spec": {"schedule": "", "jobTemplate": {
            "metadata": {"creationTimestamp": null},
            "spec": {"template": {"metadata": {"creationTimestamp": null},
                "spec": {"containers": null}}}}}, "status": {}}),
        "HorizontalPodAutoscaler" => json!({"spec": {"scaleTargetRef": {"kind": "", "name": ""},
            "maxReplicas": 0}, "status": {"currentMetrics": null, "desiredReplicas": 0}}),
        "PersistentVolume" => json!({"spec": {}, "status": {}}),
        "PersistentVolumeClaim" => json!({"spec": {"resources": {}}, "status": {}}),
        "Role" | "ClusterRole" => json!({"rules": null}),
        "RoleBinding" | "ClusterRoleBinding" => {
            json!({"roleRef": {"apiGroup": "", "kind": "", "name": ""}})
        }
        "Service" => json!({"spec": {}, "status": {"loadBalancer": {}}}),
        "Namespace" => json!({"spec": {}, "status": {}}),
        "Lease" => json!({"spec": {}}),
        "Event" => json!({"involvedObject": {}, "source": {}}),
        _ => json!({}),
    };
    let mut body = body;
    body["metadata"] = json!({"creationTimestamp": null});
    body
}

/// `value` with the zero object's missing parts filled in.
fn with_zero(zero: &Value, value: &Value) -> Value {
    match (zero, value) {
        (Value::Object(z), Value::Object(v)) => {
            let mut out = v.clone();
            for (k, zv) in z {
                match out.get(k) {
                    Some(existing) => {
                        let filled = with_zero(zv, existing);
                        out.insert(k.clone(), filled);
                    }
                    None => {
                        out.insert(k.clone(), zv.clone());
                    }
                }
            }
            Value::Object(out)
        }
        _ => value.clone(),
    }
}

/// Whether the kind has a status subresource (its main resource's writes do not own the
/// status, and its status writes own only the status).
fn has_status(resource: &Resource) -> bool {
    resource.status
}

/// The fields a write to `subresource` does not track (upstream's reset fields).
fn ignored(resource: &Resource, subresource: &str) -> Set {
    match subresource {
        "status" => [path(&["f:spec"]), path(&["f:metadata"])]
            .into_iter()
            .collect(),
        "" if has_status(resource) => [path(&["f:status"])].into_iter().collect(),
        _ => Set::new(),
    }
}

/// The object as the merge sees it: without its managedFields.
fn typed(object: &Object) -> Value {
    let mut v = Value::Object(object.clone());
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    v
}

/// The schema the merge follows: the custom resource's structural schema when the writer
/// carries one, else the built-in kind's OpenAPI (none: untyped).
fn schema<'a>(resource: &Resource, writer: &Writer<'a>) -> Node<KindSchema<'a>> {
    match writer.schema {
        Some(custom) => Some(KindSchema::CustomRoot(custom)),
        None => schema_of(resource).map(|s| KindSchema::BuiltIn(OpenApi(s))),
    }
}

/// The identity of a write for managedFields.
#[derive(Debug, Clone, Copy)]
pub struct Writer<'a> {
    /// The field manager.
    pub manager: &'a str,
    /// The subresource written (`status`, `scale`), if any.
    pub subresource: Option<&'a str>,
    /// The write's time (RFC 3339, seconds).
    pub now: &'a str,
    /// A custom resource's structural schema (its CRD version's); `None` for built-in kinds.
    pub schema: Option<&'a kcel_stdlib::kubernetes::crd::Schema>,
}

/// The field manager of the server's own writes (the objects it creates and keeps: default
/// namespaces, RBAC defaults, the `kubernetes` Service), as kube-apiserver names itself.
pub const SERVER_MANAGER: &str = "kube-apiserver";

/// [`update`] by the server itself ([`SERVER_MANAGER`]) at `now`, of a built-in kind's
/// object, no subresource.
pub fn update_by_server(resource: &Resource, old: Option<&Object>, new: &mut Object, now: &str) {
    let writer = Writer {
        manager: SERVER_MANAGER,
        subresource: None,
        now,
        schema: None,
    };
    update(resource, old, new, writer);
}

/// Sets `new`'s managedFields for an Update (create, update, patch) by `writer` that turned
/// `old` (None for a create) into `new`. Entries sent in `new` are used when they decode and
/// are not empty (clients may edit them), else those of `old`, as upstream.
pub fn update(resource: &Resource, old: Option<&Object>, new: &mut Object, writer: Writer) {
    let subresource = writer.subresource.unwrap_or("");
    let live_managed = || old.and_then(|o| decode(o).ok()).unwrap_or_default();
    // Upstream's decodeLiveOrNew: a subresource write keeps the live entries; `[]` or `[{}]`
    // resets them; entries that do not decode, or none, mean the live ones.
    let mut managed = if !subresource.is_empty() {
        live_managed()
    } else if is_reset(new) {
        Managed::default()
    } else {
        decode(new)
            .ok()
            .filter(|m| !m.fields.is_empty())
            .unwrap_or_else(live_managed)
    };
    // Upstream's skipNonAppliedManager: an update of an object without entries is not
    // tracked (they come back with its next apply, by `before-first-apply`).
    if managed.fields.is_empty() && old.is_some() {
        metadata_mut(new).remove("managedFields");
        return;
    }
    let zero = zero_object(resource);
    let live = with_zero(&zero, &old.map(typed).unwrap_or_else(|| json!({})));
    let after = with_zero(&zero, &typed(new));
    update_managed(resource, &live, &after, &mut managed, writer, subresource);
    strip_meta(&mut managed);
    cap_update_managers(&mut managed);
    set_entries(new, &managed);
}

/// Whether the write asks to reset managedFields: an empty list, or one empty entry.
fn is_reset(object: &Object) -> bool {
    match object.get("metadata").and_then(|m| m.get("managedFields")) {
        Some(Value::Array(list)) => match list.as_slice() {
            [] => true,
            [only] => only.as_object().is_some_and(Map::is_empty),
            _ => false,
        },
        _ => false,
    }
}

/// The managedFields part of an Update: the current operation's changes go to the writer's
/// entry (with the time), taken from the others.
fn update_managed(
    resource: &Resource,
    live: &Value,
    new: &Value,
    managed: &mut Managed,
    writer: Writer,
    subresource: &str,
) {
    let version = resource.api_version();
    let ignored = ignored(resource, subresource);
    let updater = Updater {
        schema: schema(resource, &writer),
        ignored: &ignored,
    };
    let current = "current-operation";
    let mut fields = updater.update(live, new, &version, managed.fields.clone(), current);
    let id = identifier(writer.manager, "Update", &version, subresource);
    if let Some(mut vs) = fields.remove(current) {
        if let Some(previous) = fields.get(&id) {
            vs.set.union_with(&previous.set);
        }
        fields.insert(id.clone(), vs);
        managed.times.insert(id, Some(writer.now.to_owned()));
    }
    managed.times.retain(|k, _| fields.contains_key(k));
    managed.fields = fields;
}

/// Why an apply failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// Fields others own (409 with upstream's message and causes).
    Conflicts(Vec<ConflictText>),
    /// The configuration cannot be applied (400 with this message).
    BadRequest(String),
    /// Upstream answers these with a 500 whose Status has no reason.
    Unknown(String),
}

/// A conflict as upstream reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictText {
    /// `"m" using v1`, `"m"`, `"m" with subresource "status" using v1`.
    pub manager: String,
    /// `.data.a`.
    pub field: String,
}

/// How upstream prints a manager identifier in conflicts.
fn print_manager(id: &str) -> String {
    let Ok(parsed) = serde_json::from_str::<Map<String, Value>>(id) else {
        return format!("{id:?}");
    };
    let text = |k: &str| parsed.get(k).and_then(Value::as_str).unwrap_or("");
    let mut out = format!("{:?}", text("manager"));
    if !text("subresource").is_empty() {
        out.push_str(&format!(" with subresource {:?}", text("subresource")));
    }
    if text("operation") == "Update" {
        out.push_str(&format!(" using {}", text("apiVersion")));
    }
    out
}

fn conflict_texts(mut conflicts: Vec<Conflict>) -> ApplyError {
    sort_conflicts(&mut conflicts);
    ApplyError::Conflicts(
        conflicts
            .into_iter()
            .map(|c| ConflictText {
                manager: print_manager(&c.manager),
                field: PathText(&c.path).to_string(),
            })
            .collect(),
    )
}

/// Upstream's message for apply conflicts (`internal.NewConflictError`).
pub fn conflict_message(conflicts: &[ConflictText]) -> String {
    if let [one] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            one.manager, one.field
        );
    }
    let mut lines = Vec::new();
    let mut managers: Vec<&str> = Vec::new();
    for c in conflicts {
        if !managers.contains(&c.manager.as_str()) {
            managers.push(&c.manager);
        }
    }
    for manager in managers {
        lines.push(format!("conflicts with {manager}:"));
        for c in conflicts.iter().filter(|c| c.manager == manager) {
            lines.push(format!("- {}", c.field));
        }
    }
    format!(
        "Apply failed with {} conflicts: {}",
        conflicts.len(),
        lines.join("\n")
    )
}

fn gvk_text(object: &Object) -> String {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    format!("{group}/{version}, Kind={kind}")
}

/// The result of a server-side apply by `writer` of `applied` onto `live` (None: the apply
/// creates): the merged object with its managedFields.
pub fn apply(
    resource: &Resource,
    live: Option<&Object>,
    applied: &Object,
    writer: Writer,
    force: bool,
) -> Result<Object, ApplyError> {
    let subresource = writer.subresource.unwrap_or("");
    // Upstream's versionCheckManager.
    let expected = format!(
        "{}/{}, Kind={}",
        resource.group, resource.version, resource.kind
    );
    if gvk_text(applied) != expected {
        return Err(ApplyError::BadRequest(format!(
            "invalid object type: {}",
            gvk_text(applied)
        )));
    }
    if applied
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .is_some_and(|v| !v.is_null())
    {
        return Err(ApplyError::BadRequest(
            "metadata.managedFields must be nil".to_owned(),
        ));
    }
    let node = schema(resource, &writer);
    let config = Value::Object(applied.clone());
    // structured-merge-diff's validation of the applied object made typed: wrong scalar,
    // map and list types, undeclared fields, duplicate keys (the library's, as for
    // MutatingAdmissionPolicy apply configurations).
    let problems = validation_errors(&config, &node);
    if !problems.is_empty() {
        let meta = |k: &str| meta_str(applied, k).to_owned();
        return Err(ApplyError::Unknown(format!(
            "failed to create typed patch object ({}/{}; {expected}): {}",
            meta("namespace"),
            meta("name"),
            problems.join("\n")
        )));
    }
    let empty = Object::new();
    let live_object = live.unwrap_or(&empty);
    let mut managed = decode(live_object)
        .map_err(|e| ApplyError::Unknown(format!("failed to decode managed fields: {e}")))?;
    let zero = zero_object(resource);
    let mut live_value = with_zero(&zero, &typed(live_object));
    // Upstream's skipNonAppliedManager: an object without entries is first adopted by
    // `before-first-apply`.
    if live.is_some() && managed.fields.is_empty() {
        let before = Writer {
            manager: BEFORE_FIRST_APPLY,
            subresource: None,
            now: writer.now,
            schema: writer.schema,
        };
        update_managed(resource, &zero, &live_value, &mut managed, before, "");
        strip_meta(&mut managed);
    }
    let version = resource.api_version();
    let ignored = ignored(resource, subresource);
    let updater = Updater {
        schema: node,
        ignored: &ignored,
    };
    let id = identifier(writer.manager, "Apply", &version, subresource);
    let outcome = match updater.apply(
        &live_value,
        &config,
        &version,
        managed.fields.clone(),
        &id,
        force,
    ) {
        Err(conflicts) if writer.manager == "kubectl" => {
            // Upstream's lastAppliedManager: conflicts that the client-side apply
            // annotation accounts for are forgiven.
            let allowed = allowed_by_last_applied(resource, live_object, &live_value, &node);
            let remaining: Vec<Conflict> = conflicts
                .into_iter()
                .filter(|c| !allowed.as_ref().is_some_and(|a| a.contains(&c.path)))
                .collect();
            if remaining.is_empty() {
                updater.apply(
                    &live_value,
                    &config,
                    &version,
                    managed.fields.clone(),
                    &id,
                    true,
                )
            } else {
                Err(remaining)
            }
        }
        other => other,
    };
    let (merged, fields) = outcome.map_err(conflict_texts)?;
    let changed = merged != live_value;
    managed.fields = fields;
    managed.times.retain(|k, _| managed.fields.contains_key(k));
    if changed || live.is_none() {
        managed.times.insert(id, Some(writer.now.to_owned()));
    }
    strip_meta(&mut managed);
    // The merge ran on the zero-filled live object: without a change the live object stays
    // as it was, else the zero fill that neither side had goes again.
    live_value = if changed { merged } else { typed(live_object) };
    let Value::Object(mut object) = live_value else {
        return Err(ApplyError::Unknown(
            "applied object is not a map".to_owned(),
        ));
    };
    if changed {
        drop_zero_fill(&zero, &mut object, live_object);
    }
    // Upstream's lastAppliedUpdater: kubectl's apply keeps the annotation current.
    if writer.manager == "kubectl" && has_last_applied(&object) {
        let mut last = applied.clone();
        if let Some(meta) = last.get_mut("metadata").and_then(Value::as_object_mut) {
            if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
                annotations.remove(LAST_APPLIED);
                if annotations.is_empty() {
                    meta.remove("annotations");
                }
            }
        }
        let text = serde_json::to_string(&Value::Object(last)).unwrap_or_default();
        let meta = metadata_mut(&mut object);
        if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
            annotations.insert(LAST_APPLIED.to_owned(), Value::String(text));
        }
    }
    set_entries(&mut object, &managed);
    Ok(object)
}

fn has_last_applied(object: &Object) -> bool {
    object
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

/// Removes the parts of the zero fill (empty structs, nulls) that the live object did not
/// have and the merge left as they were.
fn drop_zero_fill(zero: &Value, object: &mut Object, live: &Object) {
    fn walk(
        zero: &Map<String, Value>,
        out: &mut Map<String, Value>,
        live: Option<&Map<String, Value>>,
    ) {
        for (k, zv) in zero {
            let in_live = live.and_then(|l| l.get(k));
            let Some(v) = out.get_mut(k) else { continue };
            if in_live.is_none() && (v == zv || v.is_null()) {
                out.remove(k);
                continue;
            }
            if let (Some(z), Some(child)) = (zv.as_object(), v.as_object_mut()) {
                walk(z, child, in_live.and_then(Value::as_object));
            }
        }
    }
    if let Some(z) = zero.as_object() {
        walk(z, object, Some(live));
    }
}

/// The fields of the `last-applied-configuration` annotation that still hold in the live
/// object (upstream's `allowedConflictsFromLastApplied`), or None without the annotation.
fn allowed_by_last_applied(
    resource: &Resource,
    live: &Object,
    live_value: &Value,
    node: &Node<KindSchema<'_>>,
) -> Option<Set> {
    let text = live
        .get("metadata")?
        .get("annotations")?
        .get(LAST_APPLIED)?
        .as_str()?;
    let last: Value = serde_json::from_str(text).ok()?;
    if last.get("apiVersion").and_then(Value::as_str) != Some(resource.api_version().as_str()) {
        return None;
    }
    let set = to_field_set(&last, node);
    let c = compare(&last, live_value, node);
    Some(
        set.difference(&c.modified)
            .difference(&c.added)
            .difference(&c.removed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS};

    fn obj(v: Value) -> Object {
        serde_json::from_value(v).unwrap()
    }

    fn w<'a>(manager: &'a str, now: &'a str) -> Writer<'a> {
        Writer {
            manager,
            subresource: None,
            now,
            schema: None,
        }
    }

    // Upstream: the Server-Side Apply documentation's ConfigMap example — an Apply entry
    // lists leaves and map keys without "." for declared fields.
    #[test]
    fn documented_apply_example() {
        let applied = obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "test-cm", "namespace": "default", "labels": {"test-label": "test"}},
            "data": {"key": "some value"}}));
        let out = apply(
            &CONFIGMAPS,
            None,
            &applied,
            w("kubectl", "2010-10-10T00:00:00Z"),
            false,
        )
        .unwrap();
        assert_eq!(
            out["metadata"]["managedFields"],
            json!([{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
                "time": "2010-10-10T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {"f:key": {}}, "f:metadata": {"f:labels": {"f:test-label": {}}}}}])
        );
    }

    // Upstream: managedfieldsupdater_test.go / the documented Update entries — a create's
    // entry marks maps it added with "."; struct fields Go always has (spec, template,
    // strategy) are not added, pointers (rollingUpdate) are.
    #[test]
    fn update_entries_for_creates() {
        let mut cm = obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "uid": "u", "labels": {"x": "y"}, "finalizers": ["f"]},
            "data": {"a": "1"}}));
        update(&CONFIGMAPS, None, &mut cm, w("kubectl-create", "T"));
        assert_eq!(
            cm["metadata"]["managedFields"],
            json!([{"manager": "kubectl-create", "operation": "Update", "apiVersion": "v1",
                "time": "T", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:data": {".": {}, "f:a": {}},
                    "f:metadata": {"f:finalizers": {".": {}, "v:\"f\"": {}},
                                   "f:labels": {".": {}, "f:x": {}}}}}])
        );
        let mut d = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"}, "spec": {"replicas": 1,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
            "template": {"metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "main", "image": "x"}]}}},
            "status": {"replicas": 1}}));
        update(&DEPLOYMENTS, None, &mut d, w("m", "T"));
        assert_eq!(
            d["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:spec": {"f:replicas": {}, "f:strategy": {"f:rollingUpdate": {".": {},
                "f:maxSurge": {}}, "f:type": {}},
                "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:image": {},
                "f:name": {}}}}}}})
        );
    }

    #[test]
    fn conflicts_and_force() {
        let a = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
            "data": {"x": "1", "y": "2"}}),
        );
        let live = apply(&CONFIGMAPS, None, &a, w("one", "T1"), false).unwrap();
        let b = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
            "data": {"x": "3", "y": "4"}}),
        );
        let ApplyError::Conflicts(c) =
            apply(&CONFIGMAPS, Some(&live), &b, w("two", "T2"), false).unwrap_err()
        else {
            panic!("expected conflicts")
        };
        assert_eq!(
            conflict_message(&c),
            "Apply failed with 2 conflicts: conflicts with \"one\":\n- .data.x\n- .data.y"
        );
        let mut updated = live.clone();
        updated["data"]["x"] = json!("5");
        update(
            &CONFIGMAPS,
            Some(&live),
            &mut updated,
            w("kubectl-edit", "T3"),
        );
        let one = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
            "data": {"x": "6", "y": "2"}}),
        );
        let ApplyError::Conflicts(c) =
            apply(&CONFIGMAPS, Some(&updated), &one, w("one", "T4"), false).unwrap_err()
        else {
            panic!("expected a conflict")
        };
        assert_eq!(
            conflict_message(&c),
            "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.x"
        );
        let forced = apply(&CONFIGMAPS, Some(&updated), &one, w("one", "T4"), true).unwrap();
        assert_eq!(forced["data"], json!({"x": "6", "y": "2"}));
        let entries = forced["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{entries:?}");
    }

    // Upstream: lastappliedmanager_test.go — kubectl's first server-side apply over a
    // client-side applied object takes over without conflicts, and the annotation follows.
    #[test]
    fn client_side_apply_upgrade() {
        let cfg = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1"}});
        let mut created = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a",
            "annotations": {LAST_APPLIED: cfg.to_string()}}, "data": {"x": "1"}}),
        );
        update(
            &CONFIGMAPS,
            None,
            &mut created,
            w("kubectl-client-side-apply", "T1"),
        );
        let applied = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "2"}}),
        );
        // Another manager conflicts...
        assert!(
            apply(
                &CONFIGMAPS,
                Some(&created),
                &applied,
                w("other", "T2"),
                false
            )
            .is_err()
        );
        // ...kubectl does not.
        let out = apply(
            &CONFIGMAPS,
            Some(&created),
            &applied,
            w("kubectl", "T2"),
            false,
        )
        .unwrap();
        assert_eq!(out["data"]["x"], "2");
        let last: Value = serde_json::from_str(
            out["metadata"]["annotations"][LAST_APPLIED]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(last["data"]["x"], "2");
    }

    // Upstream: skipnonapplied_test.go — an object without entries is adopted by
    // before-first-apply on its first apply.
    #[test]
    fn before_first_apply() {
        let live = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1", "y": "1"}}),
        );
        let applied = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "2"}}),
        );
        let ApplyError::Conflicts(c) =
            apply(&CONFIGMAPS, Some(&live), &applied, w("m", "T"), false).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(c[0].manager, "\"before-first-apply\" using v1");
        assert_eq!(
            identifier("m", "Apply", "v1", ""),
            "{\"manager\":\"m\",\"operation\":\"Apply\"}"
        );
        assert_eq!(manager_name("", "kubectl/v1.37.1 (linux/amd64)"), "kubectl");
    }

    // Upstream: fieldmanager.go isResetManagedFields and skipnonapplied.go — `[{}]` (or
    // `[]`) clears the entries, later updates are not tracked, the next apply adopts the
    // object for before-first-apply.
    #[test]
    fn resetting_managed_fields() {
        let mut live = obj(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1"}}),
        );
        update(&CONFIGMAPS, None, &mut live, w("creator", "T1"));
        assert!(live["metadata"]["managedFields"].is_array());
        for reset in [json!([{}]), json!([])] {
            let mut new = live.clone();
            new["metadata"]["managedFields"] = reset;
            update(&CONFIGMAPS, Some(&live), &mut new, w("resetter", "T2"));
            assert!(new["metadata"].get("managedFields").is_none(), "{new:?}");
            let mut later = new.clone();
            later["data"]["y"] = json!("2");
            update(&CONFIGMAPS, Some(&new), &mut later, w("later", "T3"));
            assert!(later["metadata"].get("managedFields").is_none());
        }
    }

    // Upstream: capmanagers_test.go — the oldest update entries merge into ancient-changes.
    #[test]
    fn at_most_ten_update_entries() {
        let mut live = obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a"}, "data": {"first": "v"}}));
        update(
            &CONFIGMAPS,
            None,
            &mut live,
            w("creator", "2020-01-01T00:00:00Z"),
        );
        for i in 0..12 {
            let mut new = live.clone();
            metadata_mut(&mut new);
            new.entry("data").or_insert(json!({}))[format!("k{i}")] = json!("v");
            let now = format!("2020-01-01T00:00:{:02}Z", i + 1);
            update(
                &CONFIGMAPS,
                Some(&live),
                &mut new,
                w(&format!("m{i}"), &now),
            );
            live = new;
        }
        let entries = live["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 10);
        // creator and m0..m2 (the four oldest) went into one bucket.
        let bucket: Vec<&Value> = entries
            .iter()
            .filter(|e| e["manager"] == "ancient-changes")
            .collect();
        assert_eq!(bucket.len(), 1);
        assert_eq!(
            bucket[0]["fieldsV1"],
            json!({"f:data": {".": {}, "f:first": {}, "f:k0": {}, "f:k1": {}, "f:k2": {}}})
        );
        assert_eq!(bucket[0]["time"], "2020-01-01T00:00:03Z");
    }
}

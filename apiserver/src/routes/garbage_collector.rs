//! The garbage collector, run in-process as kube-controller-manager runs it beside
//! kube-apiserver (kubernetes `pkg/controller/garbagecollector/garbagecollector.go`).
//!
//! It acts on `metadata.ownerReferences` and on the two finalizers a delete leaves
//! ([`crate::propagation`]):
//! - a dependent none of whose owners exists any more (absent, or a different uid) is deleted,
//!   with the policy its own finalizers ask for (Background otherwise): `attemptToDeleteItem`;
//! - a dependent that keeps one existing owner loses its references to the gone ones;
//! - an owner being deleted with `orphan` first has its references removed from every
//!   dependent, then loses the finalizer: `attemptToOrphan`;
//! - an owner being deleted with `foregroundDeletion` has its dependents deleted (those that
//!   have dependents of their own in the foreground too) and loses the finalizer once no
//!   dependent with `blockOwnerDeletion: true` is left: `processDeletingDependentsItem`.
//!
//! Instead of upstream's informer graph, each pass reads the objects that take part (those
//! with owner references or a collection finalizer) and looks owners up by key. A pass runs
//! at start, after any write that concerns it (a storage watch of every key), and again
//! while work is left. Its writes go through the same paths as API requests, as field manager
//! `kube-controller-manager`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::call::{Part, storage};
use super::controller::{self, Controller};
use super::write::{DeleteOptions, WriteOptions, delete_object, modify};
use crate::error::ApiError;
use crate::object::{self, Object};
use crate::propagation::{self, DeletePolicy, FOREGROUND, ORPHAN, Propagation};
use crate::resource::Resource;
use crate::state::AppState;
use crate::storage::{EventKind, RangeRequest, WatchEvent, keys};

/// The field manager of the collector's writes (upstream's user agent).
const MANAGER: &str = "kube-controller-manager";

/// Starts the garbage collector in the background.
pub fn start(state: AppState) {
    let collector = Collector {
        owners: HashSet::new(),
    };
    tokio::spawn(controller::run(state, keys::ROOT.to_owned(), collector));
}

/// The collector between passes.
struct Collector {
    /// The uids named as owners by some dependent at the last pass (a deletion of one of
    /// these concerns us).
    owners: HashSet<String>,
}

impl Controller for Collector {
    const NAME: &'static str = "garbage collector";

    async fn pass(&mut self, state: &AppState) -> Result<bool, ApiError> {
        let outcome = pass(state).await?;
        self.owners = outcome.owners;
        Ok(outcome.more)
    }

    fn concerns(&self, event: &WatchEvent) -> bool {
        concerns(event, &self.owners)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Whether a stored value takes part in collection: it names owners, or it is being deleted
/// with a collection finalizer.
fn takes_part(value: &[u8]) -> bool {
    contains(value, b"\"ownerReferences\"")
        || (contains(value, b"\"deletionTimestamp\"")
            && (contains(value, b"\"foregroundDeletion\"") || contains(value, b"\"orphan\"")))
}

/// Whether a change may give the collector work: a write of an object that takes part, or the
/// deletion of an object some dependent names as its owner.
fn concerns(event: &WatchEvent, owners: &HashSet<String>) -> bool {
    match event.kind {
        EventKind::Put => takes_part(&event.kv.value),
        EventKind::Delete => event.prev.as_ref().is_none_or(|prev| {
            serde_json::from_slice::<Value>(&prev.value)
                .ok()
                .and_then(|v| v["metadata"]["uid"].as_str().map(str::to_owned))
                .is_none_or(|uid| owners.contains(&uid))
        }),
        EventKind::Progress => false,
    }
}

/// One object that takes part in collection, as read by a pass.
struct Node {
    resource: &'static Resource,
    key: String,
    name: String,
    namespace: Option<String>,
    uid: String,
    object: Object,
}

impl Node {
    fn owner_references(&self) -> Vec<&serde_json::Map<String, Value>> {
        self.object
            .get("metadata")
            .and_then(|m| m.get("ownerReferences"))
            .and_then(Value::as_array)
            .map(|refs| refs.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default()
    }

    fn deleting(&self) -> bool {
        !object::meta_str(&self.object, "deletionTimestamp").is_empty()
    }

    fn has_finalizer(&self, finalizer: &str) -> bool {
        propagation::finalizers(&self.object)
            .iter()
            .any(|f| f == finalizer)
    }
}

/// What a pass found.
struct Outcome {
    /// Whether work is left (repeat the pass soon).
    more: bool,
    /// The uids named as owners by some dependent (a deletion of one of these concerns us).
    owners: HashSet<String>,
}

/// What an owner reference resolves to.
#[derive(Debug, PartialEq, Eq)]
enum OwnerState {
    /// The owner exists with the referenced uid and is not deleting its dependents.
    Solid,
    /// No object with that name and uid exists.
    Dangling,
    /// The owner is being deleted with the `foregroundDeletion` finalizer.
    Waiting,
    /// The reference names a kind this server does not serve, or a namespaced owner of a
    /// cluster-scoped dependent: upstream cannot resolve it and leaves the dependent alone.
    Unresolvable,
}

async fn read_nodes(state: &AppState) -> Result<Vec<Node>, ApiError> {
    let mut nodes = Vec::new();
    for resource in crate::served::all(&state.crds) {
        let prefix = keys::prefix(&crate::served::storage_resource(resource), None);
        let request = RangeRequest::prefix(prefix);
        let range = storage(state, move |s| s.range(&request))
            .await?
            .map_err(|e| ApiError::from_storage(e, resource, ""))?;
        for kv in range.kvs.iter().filter(|kv| takes_part(&kv.value)) {
            let Ok(object) = object::from_storage(kv, resource) else {
                continue;
            };
            let namespace = object::meta_str(&object, "namespace");
            nodes.push(Node {
                resource,
                key: kv.key.clone(),
                name: object::meta_str(&object, "name").to_owned(),
                namespace: (resource.namespaced && !namespace.is_empty())
                    .then(|| namespace.to_owned()),
                uid: object::meta_str(&object, "uid").to_owned(),
                object,
            });
        }
    }
    Ok(nodes)
}

/// Looks up the owner a reference of `dependent` names.
async fn resolve(
    state: &AppState,
    dependent: &Node,
    reference: &serde_json::Map<String, Value>,
) -> Result<OwnerState, ApiError> {
    let text = |field: &str| reference.get(field).and_then(Value::as_str).unwrap_or("");
    let group = text("apiVersion")
        .rsplit_once('/')
        .map_or("", |(group, _)| group);
    let Some(owner) = crate::served::by_kind(&state.crds, group, text("kind")) else {
        return Ok(OwnerState::Unresolvable);
    };
    let resource_key = crate::served::storage_resource(owner);
    let key = match (owner.namespaced, &dependent.namespace) {
        (true, Some(ns)) => keys::namespaced(&resource_key, ns, text("name")),
        (true, None) => return Ok(OwnerState::Unresolvable),
        (false, _) => keys::cluster(&resource_key, text("name")),
    };
    let got = storage(state, move |s| s.get(&key, None))
        .await?
        .map_err(|e| ApiError::from_storage(e, owner, text("name")))?;
    let Some(kv) = got.0 else {
        return Ok(OwnerState::Dangling);
    };
    let found = object::from_storage(&kv, owner)?;
    if object::meta_str(&found, "uid") != text("uid") {
        return Ok(OwnerState::Dangling);
    }
    let deleting = !object::meta_str(&found, "deletionTimestamp").is_empty();
    let foreground = propagation::finalizers(&found)
        .iter()
        .any(|f| f == FOREGROUND);
    Ok(match deleting && foreground {
        true => OwnerState::Waiting,
        false => OwnerState::Solid,
    })
}

fn write_options() -> WriteOptions<'static> {
    WriteOptions {
        dry_run: false,
        manager: MANAGER,
        part: Part::All,
        update_managed_fields: true,
        subresource: None,
        warnings: None,
    }
}

/// Rewrites the owner references of `node` (dropping the empty list), if it is still the
/// object read (same uid).
async fn set_owner_references(
    state: &AppState,
    node: &Node,
    change: impl Fn(&mut Vec<Value>),
) -> Result<(), ApiError> {
    let uid = node.uid.clone();
    let written = modify(
        state,
        node.resource,
        &node.key,
        &node.name,
        write_options(),
        |mut o| {
            if object::meta_str(&o, "uid") != uid {
                return Err(ApiError::conflict(node.resource, &node.name));
            }
            let meta = object::metadata_mut(&mut o);
            let mut refs = meta
                .get("ownerReferences")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            change(&mut refs);
            match refs.is_empty() {
                true => meta.remove("ownerReferences"),
                false => meta.insert("ownerReferences".to_owned(), Value::Array(refs)),
            };
            Ok(o)
        },
    )
    .await;
    tolerate_gone(written.map(drop))
}

/// Removes one finalizer from `node` (which deletes it once none is left).
async fn remove_finalizer(state: &AppState, node: &Node, finalizer: &str) -> Result<(), ApiError> {
    let uid = node.uid.clone();
    let written = modify(
        state,
        node.resource,
        &node.key,
        &node.name,
        write_options(),
        |mut o| {
            if object::meta_str(&o, "uid") != uid {
                return Err(ApiError::conflict(node.resource, &node.name));
            }
            let meta = object::metadata_mut(&mut o);
            if let Some(list) = meta.get_mut("finalizers").and_then(Value::as_array_mut) {
                list.retain(|f| f != finalizer);
                if list.is_empty() {
                    meta.remove("finalizers");
                }
            }
            Ok(o)
        },
    )
    .await;
    tolerate_gone(written.map(drop))
}

/// Deletes `node` with a uid precondition, as upstream's `deleteObject`.
async fn delete_with(
    state: &AppState,
    node: &Node,
    propagation: Propagation,
) -> Result<(), ApiError> {
    let options = DeleteOptions {
        uid: Some(node.uid.clone()),
        policy: DeletePolicy {
            orphan_dependents: None,
            propagation: Some(propagation),
        },
        ..DeleteOptions::default()
    };
    let deleted = delete_object(state, node.resource, &node.key, &node.name, &options, false).await;
    tolerate_gone(deleted.map(drop))
}

/// A write that found its object gone or changed under it is no failure: the next pass sees
/// the new state.
fn tolerate_gone(result: Result<(), ApiError>) -> Result<(), ApiError> {
    match result {
        Err(e) if e.code == 404 || e.code == 409 => Ok(()),
        other => other,
    }
}

fn reference_uid(reference: &Value) -> &str {
    reference["uid"].as_str().unwrap_or("")
}

/// One pass over every object that takes part in collection.
async fn pass(state: &AppState) -> Result<Outcome, ApiError> {
    let nodes = read_nodes(state).await?;
    // owner uid → the dependents naming it, with whether the reference blocks.
    let mut dependents: HashMap<&str, Vec<(usize, bool)>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        for reference in node.owner_references() {
            let uid = reference.get("uid").and_then(Value::as_str).unwrap_or("");
            let blocks = reference.get("blockOwnerDeletion") == Some(&Value::Bool(true));
            dependents.entry(uid).or_default().push((i, blocks));
        }
    }
    let owners: HashSet<String> = dependents.keys().map(|uid| (*uid).to_owned()).collect();
    let mut more = false;
    let mut failure = None;
    let mut note = |result: Result<(), ApiError>, more: &mut bool| {
        *more = true;
        if let Err(e) = result {
            failure = Some(e);
        }
    };
    for node in &nodes {
        let mine = dependents
            .get(node.uid.as_str())
            .map_or(&[][..], Vec::as_slice);
        if node.deleting() && node.has_finalizer(ORPHAN) {
            // attemptToOrphan: the dependents forget this owner, then the finalizer goes.
            for (i, _) in mine {
                let uid = node.uid.clone();
                let result = set_owner_references(state, &nodes[*i], |refs| {
                    refs.retain(|r| reference_uid(r) != uid);
                })
                .await;
                note(result, &mut more);
            }
            note(remove_finalizer(state, node, ORPHAN).await, &mut more);
            continue;
        }
        if node.deleting() && node.has_finalizer(FOREGROUND) {
            // processDeletingDependentsItem: done once no blocking dependent is left (the
            // dependents themselves are deleted below, as their owner is waiting).
            if mine.iter().any(|(_, blocks)| *blocks) {
                more = true;
            } else {
                note(remove_finalizer(state, node, FOREGROUND).await, &mut more);
                continue;
            }
        }
        if node.deleting() && !node.has_finalizer(FOREGROUND) {
            continue;
        }
        let references = node.owner_references();
        if references.is_empty() || node.deleting() {
            continue;
        }
        let mut solid = false;
        let mut unresolvable = false;
        let mut gone = Vec::new();
        let mut waiting = Vec::new();
        for reference in &references {
            let uid = reference.get("uid").and_then(Value::as_str).unwrap_or("");
            match resolve(state, node, reference).await? {
                OwnerState::Solid => solid = true,
                OwnerState::Unresolvable => unresolvable = true,
                OwnerState::Dangling => gone.push(uid.to_owned()),
                OwnerState::Waiting => waiting.push(uid.to_owned()),
            }
        }
        if solid {
            if !gone.is_empty() || !waiting.is_empty() {
                // The dependent stays with its existing owner; references to owners that are
                // gone or going are removed.
                let result = set_owner_references(state, node, |refs| {
                    refs.retain(|r| {
                        let uid = reference_uid(r);
                        !gone.iter().any(|g| g == uid) && !waiting.iter().any(|w| w == uid)
                    });
                })
                .await;
                note(result, &mut more);
            }
            continue;
        }
        if unresolvable {
            continue;
        }
        if !waiting.is_empty() && !mine.is_empty() {
            // An owner waits and this object has dependents of its own: it goes in the
            // foreground too. If one of its dependents also waits for its dependents, the
            // references to the waiting owners stop blocking first (upstream's cycle guard).
            let cycle = mine.iter().any(|(i, _)| {
                let d = &nodes[*i];
                d.deleting() && d.has_finalizer(FOREGROUND)
            });
            if cycle {
                let result = set_owner_references(state, node, |refs| {
                    for r in refs.iter_mut() {
                        if waiting.iter().any(|w| w == reference_uid(r))
                            && let Some(map) = r.as_object_mut()
                        {
                            map.insert("blockOwnerDeletion".to_owned(), Value::Bool(false));
                        }
                    }
                })
                .await;
                note(result, &mut more);
            }
            note(
                delete_with(state, node, Propagation::Foreground).await,
                &mut more,
            );
            continue;
        }
        // No owner is left: the dependent goes, honouring a collection finalizer it has.
        let policy = if node.has_finalizer(ORPHAN) {
            Propagation::Orphan
        } else if node.has_finalizer(FOREGROUND) {
            Propagation::Foreground
        } else {
            Propagation::Background
        };
        note(delete_with(state, node, policy).await, &mut more);
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(Outcome { more, owners })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::KeyValue;

    fn event(kind: EventKind, value: &str, prev: Option<&str>) -> WatchEvent {
        let kv = |v: &str| KeyValue {
            key: "/registry/configmaps/default/a".into(),
            value: v.as_bytes().to_vec(),
            create_revision: 1,
            mod_revision: 2,
        };
        WatchEvent {
            kind,
            kv: kv(value),
            prev: prev.map(kv),
        }
    }

    #[test]
    fn only_writes_that_concern_collection_trigger_a_pass() {
        let owners: HashSet<String> = ["u1".to_owned()].into();
        let plain = r#"{"metadata":{"name":"a","uid":"u9"}}"#;
        let owned = r#"{"metadata":{"name":"a","uid":"u9","ownerReferences":[]}}"#;
        let orphaning = r#"{"metadata":{"deletionTimestamp":"t","finalizers":["orphan"]}}"#;
        let held = r#"{"metadata":{"deletionTimestamp":"t","finalizers":["x"]}}"#;
        assert!(!concerns(&event(EventKind::Put, plain, None), &owners));
        assert!(concerns(&event(EventKind::Put, owned, None), &owners));
        assert!(concerns(&event(EventKind::Put, orphaning, None), &owners));
        assert!(!concerns(&event(EventKind::Put, held, None), &owners));
        let owner = r#"{"metadata":{"name":"a","uid":"u1"}}"#;
        assert!(concerns(
            &event(EventKind::Delete, "", Some(owner)),
            &owners
        ));
        assert!(!concerns(
            &event(EventKind::Delete, "", Some(plain)),
            &owners
        ));
        // Without the previous value nothing can be ruled out.
        assert!(concerns(&event(EventKind::Delete, "", None), &owners));
    }
}

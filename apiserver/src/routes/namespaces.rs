//! Namespace lifecycle: the namespaces that exist at start, and the finalizer that empties a
//! Terminating namespace and then removes it (kube-controller-manager's namespace controller,
//! run in-process).

use std::time::Duration;

use serde_json::{Value, json};

use super::call::{Part, current, storage};
use super::write::{DeleteOptions, WriteOptions, Written, delete_object, modify};
use crate::error::ApiError;
use crate::object;
use crate::resource::NAMESPACES;
use crate::state::AppState;
use crate::storage::{RangeRequest, Storage, StorageError, keys};

/// The namespaces kube-apiserver makes at start.
pub const SYSTEM_NAMESPACES: &[&str] =
    &["default", "kube-system", "kube-public", "kube-node-lease"];

/// How often a Terminating namespace is checked for remaining content.
const FINALIZE_INTERVAL: Duration = Duration::from_millis(200);

/// The `kubernetes` finalizer in a namespace's `spec.finalizers`.
const FINALIZER: &str = "kubernetes";

/// Creates the system namespaces that do not exist yet (synchronously, before serving).
pub fn ensure_system_namespaces(store: &dyn Storage) -> Result<(), StorageError> {
    for name in SYSTEM_NAMESPACES {
        let key = keys::cluster(NAMESPACES.plural, name);
        if store.get(&key, None)?.0.is_some() {
            continue;
        }
        let uid = crate::random::uuid_v4()?;
        let now = object::now_timestamp();
        let mut object = json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "uid": uid,
                "creationTimestamp": now,
                "labels": {"kubernetes.io/metadata.name": name},
            },
        });
        // kube-apiserver creates them: its entry owns the name label, as upstream's.
        if let Some(created) = object.as_object_mut() {
            crate::apply::update_by_server(&NAMESPACES, None, created, &now);
        }
        object["spec"] = json!({"finalizers": [FINALIZER]});
        object["status"] = json!({"phase": "Active"});
        match store.create(&key, &serde_json::to_vec(&object).expect("JSON")) {
            Ok(_) | Err(StorageError::AlreadyExists { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The finalizer names that need no domain prefix (`IsStandardFinalizerName`).
const STANDARD_FINALIZERS: &[&str] = &[FINALIZER, "orphan", "foregroundDeletion"];

/// Checks the `spec.finalizers` of a write to `finalize` as upstream's
/// `ValidateNamespaceFinalizeUpdate`: each a qualified name, and one without a `/` prefix
/// must be a standard finalizer.
pub(crate) fn check_finalize(namespace: &object::Object, name: &str) -> Result<(), ApiError> {
    let finalizers = namespace
        .get("spec")
        .and_then(|s| s.get("finalizers"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut causes = Vec::new();
    for (i, finalizer) in finalizers.iter().enumerate() {
        let text = finalizer.as_str().unwrap_or("");
        let field = format!("spec.finalizers[{i}]");
        for message in kcel_stdlib::kubernetes::named_formats::messages("qualifiedName", text) {
            causes.push(crate::error::FieldError::invalid_string(
                &field, text, &message,
            ));
        }
        if !text.contains('/') && !STANDARD_FINALIZERS.contains(&text) {
            causes.push(crate::error::FieldError::invalid_string(
                &field,
                text,
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
    match causes.is_empty() {
        true => Ok(()),
        false => Err(ApiError::invalid(&NAMESPACES, name, causes)),
    }
}

/// The names of the namespaces that are Terminating (to resume finalizing them at start).
pub fn terminating(store: &dyn Storage) -> Result<Vec<String>, StorageError> {
    let range = store.range(&RangeRequest::prefix(keys::prefix(NAMESPACES.plural, None)))?;
    Ok(range
        .kvs
        .iter()
        .filter_map(|kv| serde_json::from_slice::<Value>(&kv.value).ok())
        .filter(|ns| ns["metadata"]["deletionTimestamp"].is_string())
        .filter_map(|ns| ns["metadata"]["name"].as_str().map(str::to_owned))
        .collect())
}

/// Starts finalizing a Terminating namespace in the background.
pub fn start_finalizing(state: AppState, name: String) {
    tokio::spawn(async move {
        loop {
            match finalize_step(&state, &name).await {
                Ok(true) => tokio::time::sleep(FINALIZE_INTERVAL).await,
                Ok(false) => break,
                Err(e) => {
                    eprintln!("kcel-apiserver: finalizing namespace {name}: {}", e.message);
                    tokio::time::sleep(FINALIZE_INTERVAL * 5).await;
                }
            }
        }
    });
}

/// Deletes what is left in the namespace; once it is empty, removes the `kubernetes` finalizer
/// (and with it the namespace, when no other finalizer holds it). Answers whether to go on.
async fn finalize_step(state: &AppState, name: &str) -> Result<bool, ApiError> {
    let key = keys::cluster(NAMESPACES.plural, name);
    let ns = match current(state, &NAMESPACES, &key, name).await {
        Ok(kv) => object::from_storage(&kv, &NAMESPACES)?,
        Err(e) if e.code == 404 => return Ok(false),
        Err(e) => return Err(e),
    };
    if object::meta_str(&ns, "deletionTimestamp").is_empty() {
        return Ok(false);
    }
    let mut remaining = 0;
    let resources: Vec<&'static crate::resource::Resource> = crate::served::all(&state.crds)
        .into_iter()
        .filter(|r| r.namespaced)
        .collect();
    for resource in resources {
        let request = RangeRequest::prefix(keys::prefix(
            &crate::served::storage_resource(resource),
            Some(name),
        ));
        let range = storage(state, move |s| s.range(&request))
            .await?
            .map_err(|e| ApiError::from_storage(e, resource, ""))?;
        for kv in &range.kvs {
            remaining += 1;
            let item = object::from_storage(kv, resource)?;
            if !object::meta_str(&item, "deletionTimestamp").is_empty() {
                continue;
            }
            let item_name = object::meta_str(&item, "name").to_owned();
            match delete_object(
                state,
                resource,
                &kv.key,
                &item_name,
                &DeleteOptions::default(),
                false,
            )
            .await
            {
                Ok(_) => {}
                Err(e) if e.code == 404 || e.code == 409 => {}
                Err(e) => return Err(e),
            }
        }
    }
    if remaining > 0 {
        return Ok(true);
    }
    let manager = "kube-controller-manager";
    let written = modify(
        state,
        &NAMESPACES,
        &key,
        name,
        WriteOptions {
            dry_run: false,
            manager,
            part: Part::All,
            update_managed_fields: true,
            subresource: None,
            warnings: None,
        },
        |mut ns| {
            if let Some(finalizers) = ns
                .get_mut("spec")
                .and_then(|s| s.get_mut("finalizers"))
                .and_then(Value::as_array_mut)
            {
                finalizers.retain(|f| f != FINALIZER);
            }
            // `modify` deletes it once no finalizer of either kind is left.
            Ok(ns)
        },
    )
    .await;
    match written {
        Ok(Written::Deleted(_)) => Ok(false),
        Ok(Written::Stored(_)) => Ok(true),
        Err(e) if e.code == 404 => Ok(false),
        Err(e) => Err(e),
    }
}

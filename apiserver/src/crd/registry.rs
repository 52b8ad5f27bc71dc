//! The custom resources a server serves ([`Crds`]): one entry per established
//! CustomResourceDefinition, kept in step with the stored CRDs by [`super::tracking`], and
//! looked up by every request whose group, version and resource are not built in.
//!
//! Routes and handlers take `&'static Resource`; a served custom resource version gets one
//! too, interned: each distinct description (names, scope, subresources) is allocated once
//! and kept for the life of the process, so memory grows with the distinct CRD shapes ever
//! served, not with requests or with CRD updates that change nothing of it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde_json::Value;

use kcel_stdlib::kubernetes::crd::{CrdValidator, DefinitionError};

use super::webhook_client::{Clients, ServiceAddresses};
use crate::resource::Resource;
use crate::storage::Revision;

/// The memory budget of every CRD rule evaluation, in bytes (0: none): set by the server
/// at start (`--cel-memory-limit-bytes`), process-wide like the cache of compiled validators.
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(kcel::DEFAULT_MEMORY_LIMIT);

/// Sets the memory budget of the CRD rules evaluated from now on (`None`: no budget); the
/// validators built after this call use it.
pub fn set_memory_limit(limit: Option<u64>) {
    MEMORY_LIMIT.store(limit.unwrap_or(0), Ordering::Relaxed);
}

/// A validator of `crd` whose rules run with the server's memory budget.
pub fn validator(crd: &Value) -> Result<CrdValidator, DefinitionError> {
    let limit = match MEMORY_LIMIT.load(Ordering::Relaxed) {
        0 => None,
        bytes => Some(bytes),
    };
    Ok(CrdValidator::new(crd)?.with_memory_limit(limit))
}

/// The verbs of a custom resource, in the order kube-apiserver lists them in discovery.
pub const VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// One printer column of a version (`additionalPrinterColumns`).
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterColumn {
    /// The column's header.
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub type_: String,
    /// The OpenAPI format, if any.
    pub format: String,
    /// The column's description.
    pub description: String,
    /// 0: always shown; more: only with `-o wide`.
    pub priority: i64,
    /// The simple JSONPath of the value (`.spec.replicas`).
    pub json_path: String,
}

/// The paths of the `/scale` subresource of a version.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalePaths {
    /// `specReplicasPath`, e.g. `.spec.replicas`.
    pub spec_replicas: String,
    /// `statusReplicasPath`, e.g. `.status.replicas`.
    pub status_replicas: String,
    /// `labelSelectorPath`, if given.
    pub label_selector: Option<String>,
}

/// One served version of a custom resource.
#[derive(Debug)]
pub struct ServedVersion {
    /// The resource the routes see.
    pub resource: &'static Resource,
    /// Whether objects are stored in this version.
    pub storage: bool,
    /// The `Warning:` text for requests to this version, if it is deprecated.
    pub deprecation: Option<String>,
    /// The printer columns (after Name).
    pub columns: Vec<PrinterColumn>,
    /// The `/scale` subresource's paths, if enabled.
    pub scale: Option<ScalePaths>,
    /// The version's `openAPIV3Schema`, if given.
    pub schema: Option<Value>,
    /// The `jsonPath`s of the version's `selectableFields` (`.spec.color`).
    pub selectable_fields: Vec<String>,
}

/// An established CRD and what it serves.
pub struct CustomResource {
    /// The CRD's name (`<plural>.<group>`).
    pub name: String,
    /// The CRD's `spec`, as stored.
    pub spec: Value,
    /// The CRD's validator: each version's schema compiled once, on first use, for every
    /// object written while the spec stays the same.
    pub validator: Arc<CrdValidator>,
    /// The served versions, in the CRD's order.
    pub versions: Vec<ServedVersion>,
    /// The version objects are stored in (served or not).
    pub storage_version: String,
    /// How objects move between versions (`spec.conversion`).
    pub conversion: super::conversion_spec::Strategy,
    /// `spec.names.categories`.
    pub categories: Vec<String>,
    /// Whether the CRD is being deleted (new objects are refused).
    pub terminating: bool,
}

impl CustomResource {
    /// The served version behind `resource`.
    pub fn version_of(&self, resource: &Resource) -> Option<&ServedVersion> {
        self.versions
            .iter()
            .find(|v| std::ptr::eq(v.resource, resource) || *v.resource == *resource)
    }

    /// The storage prefix of the objects (every version shares it).
    pub fn group(&self) -> &str {
        self.spec["group"].as_str().unwrap_or("")
    }
}

/// The custom resources one server serves: its established CRDs by name, and an index by
/// group, version and plural. Each server owns one (two servers in one process serve their
/// own CRDs); the storage wrapper of [`super::tracking`] keeps it in step with the store.
#[derive(Default)]
pub struct Crds(RwLock<Registry>);

#[derive(Default)]
struct Registry {
    by_name: HashMap<String, Arc<CustomResource>>,
    /// (group, version, plural) → the CRD serving it.
    index: HashMap<(String, String, String), Arc<CustomResource>>,
    /// The clients of conversion webhooks, with where their `service` references go
    /// (`--webhook-service-address`).
    clients: Arc<Clients>,
    /// The storage revision of the state last served per CRD name (kept after a delete, so
    /// that an older state learnt late does not bring the CRD back).
    revisions: HashMap<String, Revision>,
}

impl Registry {
    fn reindex(&mut self) {
        self.index.clear();
        for crd in self.by_name.values() {
            for v in &crd.versions {
                let r = v.resource;
                self.index.insert(
                    (
                        r.group.to_owned(),
                        r.version.to_owned(),
                        r.plural.to_owned(),
                    ),
                    crd.clone(),
                );
            }
        }
    }
}

impl Crds {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Registry> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The custom resource served under this group, version and plural.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<&'static Resource> {
        let registry = self.read();
        let crd = registry
            .index
            .get(&(group.to_owned(), version.to_owned(), plural.to_owned()))?;
        crd.versions
            .iter()
            .find(|v| v.resource.version == version)
            .map(|v| v.resource)
    }

    /// The CRD serving `resource`, if it is a custom resource.
    pub fn custom(&self, resource: &Resource) -> Option<Arc<CustomResource>> {
        self.read()
            .index
            .get(&(
                resource.group.to_owned(),
                resource.version.to_owned(),
                resource.plural.to_owned(),
            ))
            .cloned()
    }

    /// Every served CRD, by name.
    pub fn all(&self) -> Vec<Arc<CustomResource>> {
        let mut all: Vec<_> = self.read().by_name.values().cloned().collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// The CRD of this name, if served.
    pub fn by_name(&self, name: &str) -> Option<Arc<CustomResource>> {
        self.read().by_name.get(name).cloned()
    }

    /// Sets where conversion webhooks named by `service` are reached.
    /// (The webhook clients made before are dropped: theirs were the old addresses.)
    pub fn set_services(&self, services: ServiceAddresses) {
        let mut registry = self.0.write().unwrap_or_else(|e| e.into_inner());
        registry.clients = Arc::new(Clients::new(services));
    }

    /// The clients of conversion webhooks, one per webhook configuration.
    pub fn webhook_clients(&self) -> Arc<Clients> {
        self.read().clients.clone()
    }

    /// Serves (or stops serving, with `None`) the CRD `name`.
    pub fn set(&self, name: &str, entry: Option<CustomResource>) {
        let mut registry = self.0.write().unwrap_or_else(|e| e.into_inner());
        match entry {
            Some(e) => registry.by_name.insert(name.to_owned(), Arc::new(e)),
            None => registry.by_name.remove(name),
        };
        registry.reindex();
    }

    /// Like [`Crds::set`] for the state the CRD `name` has at storage revision `revision`,
    /// unless a later state of it was set already (a change learnt late from a watch must not
    /// undo a newer one). Answers whether it was set.
    pub fn set_at(&self, name: &str, revision: Revision, entry: Option<CustomResource>) -> bool {
        let mut registry = self.0.write().unwrap_or_else(|e| e.into_inner());
        let last = registry.revisions.entry(name.to_owned()).or_insert(0);
        if *last > revision {
            return false;
        }
        *last = revision;
        match entry {
            Some(e) => registry.by_name.insert(name.to_owned(), Arc::new(e)),
            None => registry.by_name.remove(name),
        };
        registry.reindex();
        true
    }

    /// The storage revision of the CRD `name` last set with [`Crds::set_at`] (0: none).
    pub fn revision_of(&self, name: &str) -> Revision {
        self.read().revisions.get(name).copied().unwrap_or(0)
    }
}

/// A string kept for the life of the process, allocated once per distinct text.
pub fn intern_str(text: &str) -> &'static str {
    static STRINGS: OnceLock<Mutex<std::collections::HashSet<&'static str>>> = OnceLock::new();
    let mut strings = STRINGS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = strings.get(text) {
        return s;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    strings.insert(leaked);
    leaked
}

/// A list of strings kept for the life of the process, allocated once per distinct list.
pub fn intern_strs(texts: &[String]) -> &'static [&'static str] {
    static LISTS: OnceLock<Mutex<Vec<&'static [&'static str]>>> = OnceLock::new();
    let mut lists = LISTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(l) = lists
        .iter()
        .find(|l| l.len() == texts.len() && l.iter().zip(texts).all(|(a, b)| a == b))
    {
        return l;
    }
    let list: Vec<&'static str> = texts.iter().map(|t| intern_str(t)).collect();
    let leaked: &'static [&'static str] = Box::leak(list.into_boxed_slice());
    lists.push(leaked);
    leaked
}

/// A resource kept for the life of the process, allocated once per distinct description.
pub fn intern_resource(resource: Resource) -> &'static Resource {
    static RESOURCES: OnceLock<Mutex<Vec<&'static Resource>>> = OnceLock::new();
    let mut resources = RESOURCES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(r) = resources.iter().find(|r| ***r == resource) {
        return r;
    }
    let leaked: &'static Resource = Box::leak(Box::new(resource));
    resources.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_allocates_once_per_distinct_value() {
        let a = intern_str("crontabs-interned");
        let b = intern_str(&String::from("crontabs-interned"));
        assert!(std::ptr::eq(a, b));
        let l1 = intern_strs(&["ct".to_owned(), "cts".to_owned()]);
        let l2 = intern_strs(&["ct".to_owned(), "cts".to_owned()]);
        assert!(std::ptr::eq(l1, l2));
        let r = Resource {
            group: intern_str("interned.example.com"),
            ..crate::resource::CONFIGMAPS
        };
        assert!(std::ptr::eq(intern_resource(r), intern_resource(r)));
    }
}

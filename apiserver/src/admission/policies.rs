//! The policies in effect: every stored ValidatingAdmissionPolicy compiled once per
//! generation, with the stored bindings, as one [`PolicySet`] swapped whole (readers take an
//! `Arc` and never wait for a rebuild). The set is rebuilt after every write of a policy or
//! binding through this server, before the write is acknowledged
//! ([`reloading::track`](crate::storage::reloading::track)), and on every change another
//! server makes to the same store ([`reloading::watch`](crate::storage::reloading::watch)).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use kcel_stdlib::kubernetes::admission::mutating::{CompiledMutatingPolicy, MutatingPolicySet};
use kcel_stdlib::kubernetes::admission::{CompiledPolicy, PolicySet};

use crate::resource::{
    MUTATINGADMISSIONPOLICIES, MUTATINGADMISSIONPOLICYBINDINGS, VALIDATINGADMISSIONPOLICIES,
    VALIDATINGADMISSIONPOLICYBINDINGS,
};
use crate::storage::reloading::Reload;
use crate::storage::{RangeRequest, RangeResponse, Storage, StorageError, keys};

/// The storage prefix of policies.
pub fn policies_prefix() -> String {
    keys::prefix(VALIDATINGADMISSIONPOLICIES.plural, None)
}

/// The storage prefix of bindings.
pub fn bindings_prefix() -> String {
    keys::prefix(VALIDATINGADMISSIONPOLICYBINDINGS.plural, None)
}

/// The storage prefix of mutating policies.
pub fn mutating_policies_prefix() -> String {
    keys::prefix(MUTATINGADMISSIONPOLICIES.plural, None)
}

/// The storage prefix of mutating policy bindings.
pub fn mutating_bindings_prefix() -> String {
    keys::prefix(MUTATINGADMISSIONPOLICYBINDINGS.plural, None)
}

/// A compiled policy with the uid and generation it was compiled at.
type CompiledAt<P = CompiledPolicy> = (String, i64, Arc<P>);

/// The policy set in effect and the compiled policies it was built from.
#[derive(Default)]
pub struct Admission {
    set: RwLock<Arc<PolicySet>>,
    /// The mutating policies in effect.
    mutating: RwLock<Arc<MutatingPolicySet>>,
    /// Compiled policies by name, with the uid and generation they were compiled at.
    compiled: Mutex<HashMap<String, CompiledAt>>,
    /// Compiled mutating policies likewise.
    compiled_mutating: Mutex<HashMap<String, CompiledAt<CompiledMutatingPolicy>>>,
    /// Serializes rebuilds (a rebuild reads both prefixes, then swaps).
    rebuild: Mutex<()>,
    /// How many policies were compiled since start (for tests and metrics).
    compilations: std::sync::atomic::AtomicU64,
    /// The audit log, if `--audit-log-path` was given.
    pub audit: Option<super::audit::AuditLog>,
    /// The memory budget of each evaluation of a policy's expressions
    /// (`--cel-memory-limit-bytes`; `None`: no budget).
    memory_limit: Option<u64>,
}

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admission").finish_non_exhaustive()
    }
}

fn meta<'v>(object: &'v serde_json::Value, field: &str) -> Option<&'v serde_json::Value> {
    object.get("metadata").and_then(|m| m.get(field))
}

impl Admission {
    /// No policies; audit events to `audit`, if given; policies' expressions evaluated
    /// with the memory budget `memory_limit` (`None`: no budget).
    pub fn new(audit: Option<super::audit::AuditLog>, memory_limit: Option<u64>) -> Admission {
        Admission {
            audit,
            memory_limit,
            ..Admission::default()
        }
    }

    /// The set in effect.
    pub fn current(&self) -> Arc<PolicySet> {
        self.set.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The mutating policies in effect.
    pub fn mutating(&self) -> Arc<MutatingPolicySet> {
        self.mutating
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How many policies have been compiled since start.
    pub fn compilations(&self) -> u64 {
        self.compilations.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Rebuilds the set from the stored policies and bindings, compiling only the policies
    /// whose uid or generation changed.
    pub fn reload(&self, store: &dyn Storage) -> Result<(), StorageError> {
        let _one = self.rebuild.lock().unwrap_or_else(|e| e.into_inner());
        let policies = store.range(&RangeRequest::prefix(policies_prefix()))?;
        let bindings = store.range(&RangeRequest::prefix(bindings_prefix()))?;
        let limit = self.memory_limit;
        let set_policies = self.recompile(&policies, &self.compiled, |policy| {
            CompiledPolicy::with_memory_limit(policy, limit)
        });
        let set = Arc::new(PolicySet::with_resources(
            set_policies,
            decoded(&bindings),
            Arc::new(crate::conversion::Equivalents::builtin()),
        ));
        *self.set.write().unwrap_or_else(|e| e.into_inner()) = set;
        let policies = store.range(&RangeRequest::prefix(mutating_policies_prefix()))?;
        let bindings = store.range(&RangeRequest::prefix(mutating_bindings_prefix()))?;
        let set_policies = self.recompile(&policies, &self.compiled_mutating, |policy| {
            CompiledMutatingPolicy::with_memory_limit(policy, limit)
        });
        let set = Arc::new(MutatingPolicySet::with_resources(
            set_policies,
            decoded(&bindings),
            Arc::new(crate::conversion::Equivalents::builtin()),
        ));
        *self.mutating.write().unwrap_or_else(|e| e.into_inner()) = set;
        Ok(())
    }

    /// The compiled form of each stored policy of `stored`: the one in `compiled` when its
    /// uid and generation are unchanged, else `compile`'s (counted); `compiled` is left
    /// holding exactly these.
    fn recompile<P: serde::de::DeserializeOwned, C>(
        &self,
        stored: &RangeResponse,
        compiled: &Mutex<HashMap<String, CompiledAt<C>>>,
        compile: impl Fn(P) -> C,
    ) -> Vec<Arc<C>> {
        let mut compiled = compiled.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = HashMap::new();
        let mut programs = Vec::new();
        for kv in &stored.kvs {
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(&kv.value) else {
                continue;
            };
            let text = |field| meta(&value, field).and_then(|v| v.as_str()).unwrap_or("");
            let (name, uid) = (text("name").to_owned(), text("uid").to_owned());
            let generation = meta(&value, "generation")
                .and_then(|v| v.as_i64())
                .unwrap_or(0);
            let program = match compiled.get(&name) {
                Some((u, g, p)) if *u == uid && *g == generation => p.clone(),
                _ => {
                    let Ok(policy) = serde_json::from_value::<P>(value) else {
                        continue;
                    };
                    self.compilations
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Arc::new(compile(policy))
                }
            };
            programs.push(program.clone());
            next.insert(name, (uid, generation, program));
        }
        *compiled = next;
        programs
    }
}

/// The objects of `stored` that decode as `T` (bindings; others are skipped).
fn decoded<T: serde::de::DeserializeOwned>(stored: &RangeResponse) -> Vec<T> {
    stored
        .kvs
        .iter()
        .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
        .collect()
}

impl Reload for Admission {
    const WHAT: &'static str = "admission policies";

    fn prefixes(&self) -> Vec<String> {
        vec![
            policies_prefix(),
            bindings_prefix(),
            mutating_policies_prefix(),
            mutating_bindings_prefix(),
        ]
    }

    fn reload(&self, store: &dyn Storage) -> Result<(), StorageError> {
        Admission::reload(self, store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::memory::MemoryStorage;
    use serde_json::json;

    fn policy(generation: i64, expression: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "metadata": {"name": "p", "uid": "u1", "generation": generation},
            "spec": {
                "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["configmaps"]}]},
                "validations": [{"expression": expression}]
            }
        }))
        .unwrap()
    }

    #[test]
    fn policies_compile_once_per_generation_and_swap_on_write() {
        let admission = Arc::new(Admission::default());
        let store =
            crate::storage::reloading::track(Arc::new(MemoryStorage::new()), admission.clone())
                .unwrap();
        assert!(admission.current().is_empty());
        let key = keys::cluster(VALIDATINGADMISSIONPOLICIES.plural, "p");
        let kv = store.create(&key, &policy(1, "true")).unwrap();
        assert_eq!(admission.compilations(), 1);
        // Without a binding the policy does nothing.
        assert!(admission.current().is_empty());
        let binding = json!({"metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}});
        let bkey = keys::cluster(VALIDATINGADMISSIONPOLICYBINDINGS.plural, "b");
        store
            .create(&bkey, &serde_json::to_vec(&binding).unwrap())
            .unwrap();
        assert!(!admission.current().is_empty());
        // The binding's write rebuilt the set without compiling the policy again; a status
        // write (same generation) does not either; a new generation does.
        assert_eq!(admission.compilations(), 1);
        let kv = store
            .update(&key, &policy(1, "true"), kv.mod_revision)
            .unwrap();
        assert_eq!(admission.compilations(), 1);
        store
            .update(&key, &policy(2, "false"), kv.mod_revision)
            .unwrap();
        assert_eq!(admission.compilations(), 2);
        let deleted = store.get(&bkey, None).unwrap().0.unwrap();
        store.delete(&bkey, deleted.mod_revision).unwrap();
        assert!(admission.current().is_empty());
    }
}

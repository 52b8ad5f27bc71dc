//! Deletion propagation: which garbage-collection finalizers a delete leaves on an object, as
//! kube-apiserver's generic registry decides (k8s.io/apiserver
//! `pkg/registry/generic/registry/store.go`: `shouldOrphanDependents`,
//! `shouldDeleteDependents`, `deletionFinalizersForGarbageCollection`).
//!
//! The garbage collector ([`crate::routes`]' in-process collector) then acts on those
//! finalizers: `orphan` makes it remove the owner's references from the dependents,
//! `foregroundDeletion` makes it delete the dependents and wait for the blocking ones.

use serde_json::Value;

/// The finalizer that orphans an object's dependents (`metav1.FinalizerOrphanDependents`).
pub const ORPHAN: &str = "orphan";

/// The finalizer that deletes an object's dependents first (`metav1.FinalizerDeleteDependents`).
pub const FOREGROUND: &str = "foregroundDeletion";

/// `DeleteOptions.propagationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Dependents are orphaned: their references to the owner are removed.
    Orphan,
    /// The owner is deleted at once and its dependents afterwards.
    Background,
    /// The dependents are deleted first; the owner waits for the blocking ones.
    Foreground,
}

impl Propagation {
    /// The policy named by a `propagationPolicy` value.
    pub fn parse(text: &str) -> Option<Propagation> {
        match text {
            "Orphan" => Some(Propagation::Orphan),
            "Background" => Some(Propagation::Background),
            "Foreground" => Some(Propagation::Foreground),
            _ => None,
        }
    }

    /// The value of `propagationPolicy` for this policy.
    pub fn name(self) -> &'static str {
        match self {
            Propagation::Orphan => "Orphan",
            Propagation::Background => "Background",
            Propagation::Foreground => "Foreground",
        }
    }
}

/// What a delete request says about the dependents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeletePolicy {
    /// The deprecated `orphanDependents` (it wins over `propagationPolicy`).
    pub orphan_dependents: Option<bool>,
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
}

/// Whether the object should carry the `orphan` finalizer: the request first, then the
/// finalizers the object has; the default policy of every served kind deletes dependents.
fn should_orphan(finalizers: &[String], policy: DeletePolicy) -> bool {
    if let Some(orphan) = policy.orphan_dependents {
        return orphan;
    }
    if let Some(p) = policy.propagation {
        return p == Propagation::Orphan;
    }
    for f in finalizers {
        match f.as_str() {
            ORPHAN => return true,
            FOREGROUND => return false,
            _ => {}
        }
    }
    false
}

/// Whether the object should carry the `foregroundDeletion` finalizer.
fn should_delete_dependents(finalizers: &[String], policy: DeletePolicy) -> bool {
    if policy.orphan_dependents.is_some() {
        return false;
    }
    if let Some(p) = policy.propagation {
        return p == Propagation::Foreground;
    }
    for f in finalizers {
        match f.as_str() {
            FOREGROUND => return true,
            ORPHAN => return false,
            _ => {}
        }
    }
    false
}

/// The finalizers the object should have once deleted with `policy`, or `None` when they stay
/// as they are (compared as sets, as upstream): both garbage-collection finalizers are
/// dropped, then the one the policy asks for is appended.
pub fn deletion_finalizers(finalizers: &[String], policy: DeletePolicy) -> Option<Vec<String>> {
    let orphan = should_orphan(finalizers, policy);
    let foreground = should_delete_dependents(finalizers, policy);
    let mut new: Vec<String> = finalizers
        .iter()
        .filter(|f| f.as_str() != ORPHAN && f.as_str() != FOREGROUND)
        .cloned()
        .collect();
    if orphan {
        new.push(ORPHAN.to_owned());
    }
    if foreground {
        new.push(FOREGROUND.to_owned());
    }
    let as_set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    (as_set(&new) != as_set(finalizers)).then_some(new)
}

/// The `metadata.finalizers` of a stored object.
pub fn finalizers(object: &serde_json::Map<String, Value>) -> Vec<String> {
    crate::object::string_list(object.get("metadata").and_then(|m| m.get("finalizers")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn with(propagation: Propagation) -> DeletePolicy {
        DeletePolicy {
            propagation: Some(propagation),
            ..DeletePolicy::default()
        }
    }

    // Cases after upstream's TestDeleteWithOrphanDependents / TestDeletionFinalizersForGarbageCollection
    // (k8s.io/apiserver pkg/registry/generic/registry/store_test.go), for a strategy whose
    // default policy deletes dependents.
    #[test]
    fn the_request_decides_before_the_finalizers() {
        assert_eq!(
            deletion_finalizers(&[], with(Propagation::Orphan)),
            Some(strings(&[ORPHAN]))
        );
        assert_eq!(
            deletion_finalizers(&[], with(Propagation::Foreground)),
            Some(strings(&[FOREGROUND]))
        );
        assert_eq!(
            deletion_finalizers(&[], with(Propagation::Background)),
            None
        );
        assert_eq!(deletion_finalizers(&[], DeletePolicy::default()), None);
        // A policy replaces the other collection finalizer and keeps the rest in order.
        assert_eq!(
            deletion_finalizers(&strings(&["a", ORPHAN, "b"]), with(Propagation::Foreground)),
            Some(strings(&["a", "b", FOREGROUND]))
        );
        assert_eq!(
            deletion_finalizers(&strings(&[FOREGROUND, "a"]), with(Propagation::Background)),
            Some(strings(&["a"]))
        );
        // orphanDependents wins over everything.
        let orphan_false = DeletePolicy {
            orphan_dependents: Some(false),
            propagation: None,
        };
        assert_eq!(
            deletion_finalizers(&strings(&[ORPHAN]), orphan_false),
            Some(vec![])
        );
        let orphan_true = DeletePolicy {
            orphan_dependents: Some(true),
            propagation: None,
        };
        assert_eq!(
            deletion_finalizers(&strings(&[FOREGROUND]), orphan_true),
            Some(strings(&[ORPHAN]))
        );
    }

    #[test]
    fn without_a_policy_the_finalizers_stay() {
        for existing in [&[ORPHAN][..], &[FOREGROUND], &["x", ORPHAN], &["x"]] {
            assert_eq!(
                deletion_finalizers(&strings(existing), DeletePolicy::default()),
                None,
                "{existing:?}"
            );
        }
        // The same set in another order is no change.
        assert_eq!(
            deletion_finalizers(&strings(&[ORPHAN, "x"]), with(Propagation::Orphan)),
            None
        );
    }
}

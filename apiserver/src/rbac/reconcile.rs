//! Reconciliation of an existing default ClusterRole or ClusterRoleBinding with the one the
//! server would make (kubernetes `pkg/registry/rbac/reconciliation`: `computeReconciledRole`
//! and `computeReconciledRoleBinding`, as the `rbac/bootstrap-roles` post-start hook runs
//! them: union mode, extra permissions and subjects kept).
//!
//! An object annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is protected
//! and left alone. Otherwise the expected labels and annotations are added where the
//! object has none of that key (the object's own values win), the expected rules it does not
//! cover are appended (broken down to one verb, group and resource each, as upstream's
//! `Covers` reports them), missing aggregation selectors are appended (an aggregation rule
//! the default does not have is removed), and a binding gets its missing subjects appended
//! (one whose `roleRef` differs is recreated as the default).

use serde_json::{Map, Value};

use super::PolicyRule;
use super::escalation::uncovered;

/// The annotation that lets kube-apiserver reconcile a bootstrap object at start (`"false"`
/// leaves the object as it is).
pub const AUTOUPDATE_ANNOTATION: &str = "rbac.authorization.kubernetes.io/autoupdate";

/// What reconciling one object asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Reconciled {
    /// Nothing to change.
    Unchanged,
    /// The object is protected (`autoupdate: "false"`): left alone.
    Protected,
    /// Write this object over the existing one.
    Update(Value),
    /// Delete the existing object and create this one (a binding to another role).
    Recreate(Value),
}

/// Whether `object` is annotated `autoupdate: "false"`.
fn protected(object: &Value) -> bool {
    object["metadata"]["annotations"][AUTOUPDATE_ANNOTATION].as_str() == Some("false")
}

/// Adds `expected`'s entries of metadata map `key` (labels or annotations) that `object`
/// lacks; whether it added any.
fn merge_map(object: &mut Value, expected: &Value, key: &str) -> bool {
    let Some(wanted) = expected["metadata"][key].as_object() else {
        return false;
    };
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return false;
    };
    let entry = meta.entry(key).or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    let Some(have) = entry.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    for (k, v) in wanted {
        if !have.contains_key(k) {
            have.insert(k.clone(), v.clone());
            changed = true;
        }
    }
    changed
}

/// The rules of a role object (`null` or absent: none; a rule that does not decode: none of
/// its lists, so it covers nothing).
fn rules(object: &Value) -> Vec<PolicyRule> {
    object["rules"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|r| serde_json::from_value(r.clone()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// The aggregation rule's selectors of a role object, or `None` without an aggregation rule.
fn selectors(object: &Value) -> Option<Vec<Value>> {
    let rule = object.get("aggregationRule").filter(|r| !r.is_null())?;
    Some(
        rule["clusterRoleSelectors"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    )
}

/// Reconciles an existing ClusterRole with the expected default (`computeReconciledRole`
/// with `removeExtraPermissions` false).
pub fn role(existing: &Value, expected: &Value) -> Reconciled {
    if protected(existing) {
        return Reconciled::Protected;
    }
    let mut role = existing.clone();
    let mut changed = merge_map(&mut role, expected, "annotations");
    changed |= merge_map(&mut role, expected, "labels");
    let missing = uncovered(&rules(existing), &rules(expected));
    if !missing.is_empty() {
        let mut list = role["rules"].as_array().cloned().unwrap_or_default();
        list.extend(missing.iter().filter_map(|r| serde_json::to_value(r).ok()));
        role["rules"] = Value::Array(list);
        changed = true;
    }
    match (selectors(existing), selectors(expected)) {
        (Some(_), None) => {
            if let Some(object) = role.as_object_mut() {
                object.remove("aggregationRule");
            }
            changed = true;
        }
        (have, Some(wanted)) => {
            let mut list = have.unwrap_or_default();
            let before = list.len();
            for selector in wanted {
                if !list.contains(&selector) {
                    list.push(selector);
                }
            }
            if list.len() != before {
                role["aggregationRule"] = serde_json::json!({"clusterRoleSelectors": list});
                changed = true;
            }
        }
        (None, None) => {}
    }
    if changed {
        Reconciled::Update(role)
    } else {
        Reconciled::Unchanged
    }
}

/// One subject as upstream compares them: kind, API group, name and namespace.
fn subject_key(subject: &Value) -> [&str; 4] {
    ["kind", "apiGroup", "name", "namespace"].map(|k| subject[k].as_str().unwrap_or(""))
}

/// Reconciles an existing ClusterRoleBinding with the expected default
/// (`computeReconciledRoleBinding` with `removeExtraSubjects` false).
pub fn binding(existing: &Value, expected: &Value) -> Reconciled {
    if protected(existing) {
        return Reconciled::Protected;
    }
    let role_ref = |o: &Value| {
        ["apiGroup", "kind", "name"].map(|k| o["roleRef"][k].as_str().unwrap_or("").to_owned())
    };
    if role_ref(existing) != role_ref(expected) {
        return Reconciled::Recreate(expected.clone());
    }
    let mut binding = existing.clone();
    let mut changed = merge_map(&mut binding, expected, "annotations");
    changed |= merge_map(&mut binding, expected, "labels");
    let mut subjects = existing["subjects"].as_array().cloned().unwrap_or_default();
    let before = subjects.len();
    for wanted in expected["subjects"].as_array().into_iter().flatten() {
        if !subjects
            .iter()
            .any(|s| subject_key(s) == subject_key(wanted))
        {
            subjects.push(wanted.clone());
        }
    }
    if subjects.len() != before {
        binding["subjects"] = Value::Array(subjects);
        changed = true;
    }
    if changed {
        Reconciled::Update(binding)
    } else {
        Reconciled::Unchanged
    }
}

#[cfg(test)]
mod tests {
    //! After kubernetes `pkg/registry/rbac/reconciliation/reconcile_role_test.go` and
    //! `reconcile_rolebindings_test.go` (union mode).
    use serde_json::json;

    use super::*;

    fn role_of(annotations: Value, rules: Value) -> Value {
        json!({"metadata": {"name": "r", "annotations": annotations, "labels": {"a": "1"}},
               "rules": rules})
    }

    #[test]
    fn missing_rules_are_added_and_extra_ones_kept() {
        let expected = role_of(
            json!({AUTOUPDATE_ANNOTATION: "true"}),
            json!([{"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                    "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]}]),
        );
        let existing = role_of(
            json!({AUTOUPDATE_ANNOTATION: "true"}),
            json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]},
                   {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                    "resources": ["selfsubjectrulesreviews"]}]),
        );
        let Reconciled::Update(Value::Object(mut updated)) = role(&existing, &expected) else {
            panic!("expected an update");
        };
        // As stored: encoded as the Go types encode it (the added rule's empty lists left out).
        crate::defaults::go_round_trip(&crate::resource::CLUSTERROLES, &mut updated);
        assert_eq!(
            updated["rules"],
            json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]},
                   {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                    "resources": ["selfsubjectrulesreviews"]},
                   {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                    "resources": ["selfsubjectaccessreviews"]}])
        );
        // Covered (a wildcard covers the default's rules): nothing to do.
        let wide = role_of(
            json!({AUTOUPDATE_ANNOTATION: "true"}),
            json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]),
        );
        assert_eq!(role(&wide, &expected), Reconciled::Unchanged);
    }

    #[test]
    fn protected_objects_are_left_alone() {
        let expected = role_of(json!({AUTOUPDATE_ANNOTATION: "true"}), json!([]));
        let existing = role_of(json!({AUTOUPDATE_ANNOTATION: "false"}), json!(null));
        assert_eq!(role(&existing, &expected), Reconciled::Protected);
        let existing = json!({"metadata": {"annotations": {AUTOUPDATE_ANNOTATION: "false"}},
            "roleRef": {"name": "other"}});
        assert_eq!(binding(&existing, &expected), Reconciled::Protected);
    }

    #[test]
    fn labels_and_annotations_are_merged_the_objects_own_winning() {
        let expected = json!({"metadata": {"annotations": {AUTOUPDATE_ANNOTATION: "true"},
            "labels": {"a": "1", "b": "2"}}, "rules": []});
        // No annotation at all: reconciled, the annotation added.
        let existing = json!({"metadata": {"labels": {"a": "mine"}}, "rules": []});
        let Reconciled::Update(updated) = role(&existing, &expected) else {
            panic!("expected an update");
        };
        assert_eq!(
            updated["metadata"],
            json!({"annotations": {AUTOUPDATE_ANNOTATION: "true"},
                   "labels": {"a": "mine", "b": "2"}})
        );
    }

    #[test]
    fn aggregation_selectors_are_added_and_unexpected_rules_removed() {
        let selector = json!({"matchLabels": {"x": "true"}});
        let expected = json!({"metadata": {}, "rules": null,
            "aggregationRule": {"clusterRoleSelectors": [selector]}});
        let existing = json!({"metadata": {}, "rules": [{"verbs": ["get"]}],
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"y": "true"}}]}});
        let Reconciled::Update(updated) = role(&existing, &expected) else {
            panic!("expected an update");
        };
        assert_eq!(
            updated["aggregationRule"]["clusterRoleSelectors"],
            json!([{"matchLabels": {"y": "true"}}, selector])
        );
        // The aggregated rules are the controller's: not compared.
        assert_eq!(updated["rules"], json!([{"verbs": ["get"]}]));
        let plain = json!({"metadata": {}, "rules": []});
        let Reconciled::Update(updated) = role(&existing, &plain) else {
            panic!("expected an update");
        };
        assert!(updated.get("aggregationRule").is_none());
    }

    #[test]
    fn bindings_get_missing_subjects_or_are_recreated() {
        let group = |name: &str| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": name});
        let role_ref =
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"});
        let expected = json!({"metadata": {}, "roleRef": role_ref,
            "subjects": [group("system:authenticated"), group("system:unauthenticated")]});
        let existing = json!({"metadata": {}, "roleRef": role_ref,
            "subjects": [{"kind": "User", "name": "u"}, group("system:unauthenticated")]});
        let Reconciled::Update(updated) = binding(&existing, &expected) else {
            panic!("expected an update");
        };
        assert_eq!(
            updated["subjects"],
            json!([{"kind": "User", "name": "u"}, group("system:unauthenticated"),
                   group("system:authenticated")])
        );
        assert_eq!(binding(&expected, &expected), Reconciled::Unchanged);
        let other = json!({"metadata": {}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole", "name": "other"}, "subjects": []});
        assert_eq!(
            binding(&other, &expected),
            Reconciled::Recreate(expected.clone())
        );
    }
}

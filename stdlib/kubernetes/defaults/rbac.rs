//! rbac.authorization.k8s.io/v1 defaults: kubernetes `pkg/apis/rbac/v1/defaults.go`
//! (`SetDefaults_RoleBinding`, `SetDefaults_ClusterRoleBinding`, `SetDefaults_Subject`).

use serde_json::{Map, Value, json};

use super::default_field;

/// The RBAC API group, a binding's `roleRef.apiGroup` and a user's or group's subject's.
const GROUP: &str = "rbac.authorization.k8s.io";

/// The defaults of the RBAC kind `kind`: a binding's role reference in the RBAC group and
/// its subjects' groups (other kinds have none).
pub(super) fn apply(kind: &str, object: &mut Map<String, Value>) {
    if kind != "RoleBinding" && kind != "ClusterRoleBinding" {
        return;
    }
    if let Some(role_ref) = object.get_mut("roleRef").filter(|r| r.is_object()) {
        default_field(role_ref, "apiGroup", json!(GROUP));
    }
    let subjects = object.get_mut("subjects").and_then(Value::as_array_mut);
    for subject in subjects.into_iter().flatten() {
        // SetDefaults_Subject: a ServiceAccount is in the core group (""), a User or Group
        // in the RBAC group; other kinds are left for validation to refuse.
        let group = match subject.get("kind").and_then(Value::as_str) {
            Some("User" | "Group") => GROUP,
            _ => continue,
        };
        default_field(subject, "apiGroup", json!(group));
    }
}

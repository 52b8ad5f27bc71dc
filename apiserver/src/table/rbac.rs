//! RoleBinding and ClusterRoleBinding Table rows as kube-apiserver prints them (kubernetes
//! `pkg/printers/internalversion` `printRoleBinding`, `printClusterRoleBinding`): the role
//! as `<kind>/<name>`, and for `-o wide` the subjects by kind (`rbac.SubjectsStrings`:
//! service accounts as `<namespace>/<name>`), each list joined by `, `.

use serde_json::Value;

use super::{age, get, name, text};
use crate::object::Object;

/// The cells of a binding.
pub(super) fn binding(o: &Object) -> Vec<Value> {
    let mut users = Vec::new();
    let mut groups = Vec::new();
    let mut service_accounts = Vec::new();
    for subject in get(o, &["subjects"]).as_array().into_iter().flatten() {
        let name = subject["name"].as_str().unwrap_or_default().to_owned();
        match subject["kind"].as_str().unwrap_or_default() {
            "ServiceAccount" => {
                let namespace = subject["namespace"].as_str().unwrap_or_default();
                service_accounts.push(if namespace.is_empty() {
                    name
                } else {
                    format!("{namespace}/{name}")
                });
            }
            "User" => users.push(name),
            "Group" => groups.push(name),
            _ => {}
        }
    }
    vec![
        name(o),
        Value::from(format!(
            "{}/{}",
            text(o, &["roleRef", "kind"]),
            text(o, &["roleRef", "name"])
        )),
        age(o),
        Value::from(users.join(", ")),
        Value::from(groups.join(", ")),
        Value::from(service_accounts.join(", ")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subjects_by_kind() {
        let rb: Object = serde_json::from_value(json!({"metadata": {"name": "b"},
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "jane"}, {"kind": "User", "name": "joe"},
                {"kind": "Group", "name": "devs"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}]}))
        .unwrap();
        let cells = binding(&rb);
        assert_eq!(cells[1], "ClusterRole/view");
        assert_eq!(
            cells[3..],
            [json!("jane, joe"), json!("devs"), json!("ns/sa")]
        );
    }
}

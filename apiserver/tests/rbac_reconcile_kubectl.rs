//! The default ClusterRoles and ClusterRoleBindings are reconciled at every start (issue 21;
//! upstream's `rbac/bootstrap-roles` hook and `rbac.authorization.kubernetes.io/autoupdate`),
//! driven by real kubectl 1.37: a default role whose rules were edited away gets them back
//! after a restart on the same data directory (and a user may again do what it grants), while
//! a default binding annotated `autoupdate: "false"` is left as edited. Without kubectl the
//! test skips visibly (and fails under `CI=true`).

mod support;

use serde_json::{Value, json};
use support::{Kubectl, Server};

const TOKENS: &str = "bob-token,bob,1002,\"dev\"\n";

/// The create rule of `group`'s `resource`, as upstream's reconciler adds it back.
fn create_rule(group: &str, resource: &str) -> Value {
    json!({"verbs": ["create"], "apiGroups": [group], "resources": [resource]})
}

#[test]
fn defaults_edited_away_come_back_at_restart_unless_protected() {
    let Some(mut k) = Kubectl::start_with(
        "defaults_edited_away_come_back_at_restart_unless_protected",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    let tokens = format!("{}/tokens.csv", k.home.path().display());
    let flags = ["--token-auth-file", tokens.as_str()];
    let bob = k.kubeconfig_for("bob-token");

    // system:basic-user loses its access-review rule: bob's `auth can-i` is forbidden.
    let only_whoami = json!([{"op": "replace", "path": "/rules",
        "value": [create_rule("authentication.k8s.io", "selfsubjectreviews")]}]);
    k.ok(&[
        "patch",
        "clusterrole",
        "system:basic-user",
        "--type=json",
        "-p",
        &only_whoami.to_string(),
    ]);
    let can = k.run_as(Some(&bob), &["auth", "can-i", "list", "pods"], None);
    assert!(
        can.stderr.contains(
            "selfsubjectaccessreviews.authorization.k8s.io is forbidden: User \"bob\" cannot \
             create resource \"selfsubjectaccessreviews\""
        ),
        "{can:?}"
    );
    // system:public-info-viewer's binding, protected, loses its subjects.
    k.ok(&[
        "annotate",
        "clusterrolebinding",
        "system:public-info-viewer",
        "rbac.authorization.kubernetes.io/autoupdate=false",
        "--overwrite",
    ]);
    k.ok(&[
        "patch",
        "clusterrolebinding",
        "system:public-info-viewer",
        "--type=json",
        "-p",
        r#"[{"op": "remove", "path": "/subjects"}]"#,
    ]);

    let dir = std::mem::replace(&mut k.server, Server::start(&["--storage", "memory"])).stop();
    k.server = Server::start_in(dir, &flags);
    let bob = k.kubeconfig_for("bob-token");

    let role = k.json(&["get", "clusterrole", "system:basic-user", "-o", "json"]);
    assert_eq!(
        role["rules"],
        json!([
            create_rule("authentication.k8s.io", "selfsubjectreviews"),
            create_rule("authorization.k8s.io", "selfsubjectaccessreviews"),
            create_rule("authorization.k8s.io", "selfsubjectrulesreviews"),
        ]),
        "{role}"
    );
    let can = k.run_as(Some(&bob), &["auth", "can-i", "list", "pods"], None);
    assert_eq!((can.code, can.stdout.as_str()), (1, "no\n"), "{can:?}");

    let binding = k.json(&[
        "get",
        "clusterrolebinding",
        "system:public-info-viewer",
        "-o",
        "json",
    ]);
    assert_eq!(binding.get("subjects"), None, "{binding}");
    assert_eq!(
        binding["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"],
        "false"
    );
}

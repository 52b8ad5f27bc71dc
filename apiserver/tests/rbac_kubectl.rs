//! RBAC decides what users outside `system:masters` may do, driven by real kubectl 1.37
//! (issue 21): `kubectl create role / rolebinding / clusterrole / clusterrolebinding` opens
//! requests of a token-file user that were 403 with kube-apiserver's text; `kubectl auth
//! can-i` answers from the bindings (also for an impersonated service account); a
//! SelfSubjectAccessReview carries upstream's `RBAC: allowed by ...` reason; a binding to a
//! missing role adds upstream's reason to the 403; and a ValidatingAdmissionPolicy's
//! `authorizer` check is answered by RBAC. The default ClusterRoles and bindings exist at
//! start, `admin`, `edit` and `view` with their aggregated rules written back, and a user bound
//! to `view` reads Pods but may not delete them. A user may grant only what the user holds
//! (upstream's escalation check and 403 text) unless allowed to `escalate` or `bind`. Without kubectl the tests skip visibly (and
//! fail under `CI=true`).

mod support;

use serde_json::Value;
use support::Kubectl;

const TOKENS: &str = "bob-token,bob,1002,\"dev\"\nalice-token,alice,1001,\"dev\"\n";

fn forbidden(text: &str) -> String {
    format!("Error from server (Forbidden): {text}\n")
}

#[test]
fn role_bindings_open_what_rbac_allows() {
    let Some(k) = Kubectl::start_with(
        "role_bindings_open_what_rbac_allows",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    let bob = k.kubeconfig_for("bob-token");
    let as_bob = |args: &[&str]| k.run_as(Some(&bob), args, None);
    let list = as_bob(&["get", "configmaps", "-n", "default"]);
    assert_eq!(
        (list.code, list.stderr.as_str()),
        (
            1,
            forbidden(
                "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API \
                 group \"\" in the namespace \"default\""
            )
            .as_str()
        ),
        "{list:?}"
    );
    let can = as_bob(&["auth", "can-i", "list", "configmaps", "-n", "default"]);
    assert_eq!((can.code, can.stdout.as_str()), (1, "no\n"), "{can:?}");

    // A Role and a RoleBinding in default: bob may read ConfigMaps there, and only there.
    assert_eq!(
        k.ok(&[
            "create",
            "role",
            "cm-reader",
            "--verb=get",
            "--verb=list",
            "--resource=configmaps",
            "-n",
            "default",
        ]),
        "role.rbac.authorization.k8s.io/cm-reader created\n"
    );
    assert_eq!(
        k.ok(&[
            "create",
            "rolebinding",
            "bob-reads",
            "--role=cm-reader",
            "--user=bob",
            "-n",
            "default",
        ]),
        "rolebinding.rbac.authorization.k8s.io/bob-reads created\n"
    );
    k.ok(&[
        "create",
        "configmap",
        "x",
        "--from-literal=a=b",
        "-n",
        "default",
    ]);
    let get = as_bob(&["get", "configmap", "x", "-n", "default", "-o", "name"]);
    assert_eq!(
        (get.code, get.stdout.as_str()),
        (0, "configmap/x\n"),
        "{get:?}"
    );
    let can = as_bob(&["auth", "can-i", "list", "configmaps", "-n", "default"]);
    assert_eq!((can.code, can.stdout.as_str()), (0, "yes\n"), "{can:?}");
    let cannot = as_bob(&["auth", "can-i", "delete", "configmaps", "-n", "default"]);
    assert_eq!(
        (cannot.code, cannot.stdout.as_str()),
        (1, "no\n"),
        "{cannot:?}"
    );
    let elsewhere = as_bob(&["get", "configmaps", "-n", "kube-system"]);
    assert_eq!(
        elsewhere.stderr,
        forbidden(
            "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API \
             group \"\" in the namespace \"kube-system\""
        )
    );

    // `kubectl auth can-i --list` (a SelfSubjectRulesReview) shows the Role's rule.
    let listed = as_bob(&["auth", "can-i", "--list", "-n", "default"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let rule: Vec<&str> = listed
        .stdout
        .lines()
        .find(|l| l.starts_with("configmaps "))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    assert_eq!(
        rule,
        ["configmaps", "[]", "[]", "[get", "list]"],
        "{listed:?}"
    );

    // The review names the binding that allowed, as upstream's RBAC authorizer does.
    let review = r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "list", "resource": "configmaps", "namespace": "default"}}}"#;
    let ran = k.run_as(
        Some(&bob),
        &[
            "create",
            "--raw",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "-f",
            "-",
        ],
        Some(review),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let status = &serde_json::from_str::<Value>(&ran.stdout).unwrap()["status"];
    assert_eq!(
        (status["allowed"].as_bool(), status["reason"].as_str()),
        (
            Some(true),
            Some(
                "RBAC: allowed by RoleBinding \"bob-reads/default\" of Role \"cm-reader\" to User \"bob\""
            )
        )
    );

    // A binding to a role that does not exist: the 403 carries RBAC's reason.
    k.ok(&[
        "create",
        "rolebinding",
        "bob-edits",
        "--role=cm-editor",
        "--user=bob",
        "-n",
        "default",
    ]);
    let delete = as_bob(&["delete", "configmap", "x", "-n", "default"]);
    assert_eq!(
        (delete.code, delete.stderr.as_str()),
        (
            1,
            forbidden(
                "configmaps \"x\" is forbidden: User \"bob\" cannot delete resource \"configmaps\" \
                 in API group \"\" in the namespace \"default\": RBAC: \
                 role.rbac.authorization.k8s.io \"cm-editor\" not found"
            )
            .as_str()
        ),
        "{delete:?}"
    );

    // A ClusterRole bound to bob's group cluster-wide.
    let namespaces = as_bob(&["get", "namespaces", "-o", "name"]);
    assert_eq!(
        namespaces.stderr,
        forbidden(
            "namespaces is forbidden: User \"bob\" cannot list resource \"namespaces\" in API \
             group \"\" at the cluster scope"
        )
    );
    k.ok(&[
        "create",
        "clusterrole",
        "ns-viewer",
        "--verb=get,list",
        "--resource=namespaces",
    ]);
    assert_eq!(
        k.ok(&[
            "create",
            "clusterrolebinding",
            "dev-views-ns",
            "--clusterrole=ns-viewer",
            "--group=dev",
        ]),
        "clusterrolebinding.rbac.authorization.k8s.io/dev-views-ns created\n"
    );
    let namespaces = as_bob(&["get", "namespaces", "-o", "name"]);
    assert_eq!(namespaces.code, 0, "{namespaces:?}");
    assert!(namespaces.stdout.lines().any(|l| l == "namespace/default"));

    // A service account, asked by the admin through impersonation.
    k.ok(&[
        "create",
        "rolebinding",
        "robot-reads",
        "--role=cm-reader",
        "--serviceaccount=default:robot",
        "-n",
        "default",
    ]);
    let as_robot = |sa: &str| {
        k.run(&[
            "auth",
            "can-i",
            "get",
            "configmaps",
            "-n",
            "default",
            "--as",
            sa,
        ])
    };
    let robot = as_robot("system:serviceaccount:default:robot");
    assert_eq!(
        (robot.code, robot.stdout.as_str()),
        (0, "yes\n"),
        "{robot:?}"
    );
    let other = as_robot("system:serviceaccount:other:robot");
    assert_eq!(
        (other.code, other.stdout.as_str()),
        (1, "no\n"),
        "{other:?}"
    );

    // Deleting the binding closes the namespace again at once; kubectl prints the reason
    // the dangling binding gives.
    k.ok(&["delete", "rolebinding", "bob-reads", "-n", "default"]);
    let can = as_bob(&["auth", "can-i", "list", "configmaps", "-n", "default"]);
    assert_eq!(
        (can.code, can.stdout.as_str()),
        (
            1,
            "no - RBAC: role.rbac.authorization.k8s.io \"cm-editor\" not found\n"
        ),
        "{can:?}"
    );
}

/// The rules of a ClusterRole as `kubectl get -o json` shows them.
fn cluster_role_rules(k: &Kubectl, name: &str) -> Vec<Value> {
    k.json(&["get", "clusterrole", name, "-o", "json"])["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn grants(rules: &[Value], verb: &str, resource: &str) -> bool {
    rules.iter().any(|r| {
        let has = |field: &str, want: &str| {
            r[field]
                .as_array()
                .is_some_and(|l| l.iter().any(|v| v == want))
        };
        has("verbs", verb) && has("resources", resource)
    })
}

#[test]
fn the_default_roles_are_there_and_aggregated() {
    let Some(k) = Kubectl::start_with(
        "the_default_roles_are_there_and_aggregated",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    let names = k.ok(&["get", "clusterroles", "-o", "name"]);
    for name in [
        "admin",
        "cluster-admin",
        "edit",
        "view",
        "system:aggregate-to-view",
        "system:basic-user",
        "system:discovery",
        "system:public-info-viewer",
    ] {
        let line = format!("clusterrole.rbac.authorization.k8s.io/{name}");
        assert!(names.lines().any(|l| l == line), "{name}: {names}");
    }
    let bindings = k.ok(&["get", "clusterrolebindings", "-o", "wide"]);
    let row = |name: &str| -> Vec<String> {
        bindings
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        row("cluster-admin")[..2],
        ["cluster-admin", "ClusterRole/cluster-admin"],
        "{bindings}"
    );
    let public = bindings
        .lines()
        .find(|l| l.starts_with("system:public-info-viewer "))
        .unwrap_or_default();
    assert!(
        public
            .trim_end()
            .ends_with("system:authenticated, system:unauthenticated"),
        "{bindings}"
    );
    let admin = k.json(&["get", "clusterrole", "admin", "-o", "json"]);
    assert_eq!(
        admin["metadata"]["labels"]["kubernetes.io/bootstrapping"],
        "rbac-defaults"
    );
    assert_eq!(
        admin["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"],
        "true"
    );
    // The aggregation controller wrote the nested rules: view's into edit, edit's into admin.
    let admin_rules = cluster_role_rules(&k, "admin");
    assert!(grants(&admin_rules, "list", "pods"), "{admin_rules:?}");
    assert!(grants(&admin_rules, "delete", "pods"), "{admin_rules:?}");
    assert!(
        grants(&admin_rules, "create", "rolebindings"),
        "{admin_rules:?}"
    );
    assert!(grants(&cluster_role_rules(&k, "edit"), "watch", "pods"));
    assert!(!grants(&cluster_role_rules(&k, "view"), "delete", "pods"));

    // A user bound to view in default: reads Pods there, may not delete them.
    assert_eq!(
        k.ok(&[
            "create",
            "rolebinding",
            "bob-views",
            "--clusterrole=view",
            "--user=bob",
            "-n",
            "default",
        ]),
        "rolebinding.rbac.authorization.k8s.io/bob-views created\n"
    );
    let bob = k.kubeconfig_for("bob-token");
    let as_bob = |args: &[&str]| k.run_as(Some(&bob), args, None);
    let pods = as_bob(&["get", "pods", "-n", "default"]);
    assert_eq!(
        (pods.code, pods.stderr.as_str()),
        (0, "No resources found in default namespace.\n"),
        "{pods:?}"
    );
    let delete = as_bob(&["delete", "pod", "web", "-n", "default"]);
    assert_eq!(
        (delete.code, delete.stderr.as_str()),
        (
            1,
            forbidden(
                "pods \"web\" is forbidden: User \"bob\" cannot delete resource \"pods\" in API \
                 group \"\" in the namespace \"default\""
            )
            .as_str()
        ),
        "{delete:?}"
    );
    // The review of a discovery path names the default binding, as upstream's.
    let review = r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"nonResourceAttributes": {"verb": "get", "path": "/apis"}}}"#;
    let ran = k.run_as(
        Some(&bob),
        &[
            "create",
            "--raw",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "-f",
            "-",
        ],
        Some(review),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let status = &serde_json::from_str::<Value>(&ran.stdout).unwrap()["status"];
    assert_eq!(
        status["reason"],
        "RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \
         \"system:discovery\" to Group \"system:authenticated\""
    );

    // A ClusterRole labelled to aggregate into view: bob may list Secrets at once, and the
    // controller writes the rule into view, then edit, then admin.
    let secrets = as_bob(&["auth", "can-i", "list", "secrets", "-n", "default"]);
    assert_eq!((secrets.code, secrets.stdout.as_str()), (1, "no\n"));
    k.ok(&[
        "create",
        "clusterrole",
        "secret-lister",
        "--verb=list",
        "--resource=secrets",
    ]);
    k.ok(&[
        "label",
        "clusterrole",
        "secret-lister",
        "rbac.authorization.k8s.io/aggregate-to-view=true",
    ]);
    let secrets = as_bob(&["auth", "can-i", "list", "secrets", "-n", "default"]);
    assert_eq!(
        (secrets.code, secrets.stdout.as_str()),
        (0, "yes\n"),
        "{secrets:?}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let written = |name: &str| {
        cluster_role_rules(&k, name)
            .iter()
            .any(|r| r == &serde_json::json!({"verbs": ["list"], "apiGroups": [""], "resources": ["secrets"]}))
    };
    while !(written("view") && written("edit") && written("admin")) {
        assert!(
            std::time::Instant::now() < deadline,
            "not aggregated: {:?}",
            cluster_role_rules(&k, "admin")
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let view = k.json(&[
        "get",
        "clusterrole",
        "view",
        "-o",
        "json",
        "--show-managed-fields",
    ]);
    let managers: Vec<&str> = view["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["manager"].as_str())
        .collect();
    assert!(
        managers.contains(&"clusterrole-aggregation-controller"),
        "{managers:?}"
    );
}

#[test]
fn roles_and_bindings_grant_only_what_their_author_holds() {
    let Some(k) = Kubectl::start_with(
        "roles_and_bindings_grant_only_what_their_author_holds",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    // bob administers default (the default `admin` role).
    k.ok(&[
        "create",
        "rolebinding",
        "bob-admin",
        "--clusterrole=admin",
        "--user=bob",
        "-n",
        "default",
    ]);
    let bob = k.kubeconfig_for("bob-token");
    let as_bob = |args: &[&str]| k.run_as(Some(&bob), args, None);
    let held = as_bob(&[
        "create",
        "role",
        "pod-reader",
        "--verb=get,list",
        "--resource=pods",
        "-n",
        "default",
    ]);
    assert_eq!(
        (held.code, held.stdout.as_str()),
        (0, "role.rbac.authorization.k8s.io/pod-reader created\n"),
        "{held:?}"
    );
    let granted = as_bob(&[
        "create",
        "rolebinding",
        "alice-edits",
        "--clusterrole=edit",
        "--user=alice",
        "-n",
        "default",
    ]);
    assert_eq!(granted.code, 0, "{granted:?}");
    // admin reads Namespaces but does not write them.
    let quota = [
        "create",
        "role",
        "namespace-writer",
        "--verb=create,delete",
        "--resource=namespaces",
        "-n",
        "default",
    ];
    let escalating = as_bob(&quota);
    assert_eq!(
        (escalating.code, escalating.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): roles.rbac.authorization.k8s.io \"namespace-writer\" is \
             forbidden: user \"bob\" (groups=[\"dev\" \"system:authenticated\"]) is attempting \
             to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], \
             Resources:[\"namespaces\"], Verbs:[\"create\" \"delete\"]}\n"
        ),
        "{escalating:?}"
    );
    let root = [
        "create",
        "rolebinding",
        "alice-root",
        "--clusterrole=cluster-admin",
        "--user=alice",
        "-n",
        "default",
    ];
    let binding = as_bob(&root);
    assert_eq!(
        (binding.code, binding.stderr.as_str()),
        (
            1,
            "error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io \
             \"alice-root\" is forbidden: user \"bob\" (groups=[\"dev\" \
             \"system:authenticated\"]) is attempting to grant RBAC permissions not currently \
             held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n\
             {NonResourceURLs:[\"*\"], Verbs:[\"*\"]}\n"
        ),
        "{binding:?}"
    );
    // The admin lets bob `escalate` roles and `bind` cluster-admin in default.
    k.ok(&[
        "create",
        "role",
        "delegate",
        "--verb=escalate",
        "--resource=roles",
        "-n",
        "default",
    ]);
    k.ok(&[
        "create",
        "role",
        "root-binder",
        "--verb=bind",
        "--resource=clusterroles",
        "--resource-name=cluster-admin",
        "-n",
        "default",
    ]);
    for role in ["delegate", "root-binder"] {
        k.ok(&[
            "create",
            "rolebinding",
            &format!("bob-{role}"),
            &format!("--role={role}"),
            "--user=bob",
            "-n",
            "default",
        ]);
    }
    let escalated = as_bob(&quota);
    assert_eq!(escalated.code, 0, "{escalated:?}");
    let bound = as_bob(&root);
    assert_eq!(bound.code, 0, "{bound:?}");
    let alice = k.kubeconfig_for("alice-token");
    let can = k.run_as(
        Some(&alice),
        &["auth", "can-i", "escalate", "roles", "-n", "default"],
        None,
    );
    assert_eq!((can.code, can.stdout.as_str()), (0, "yes\n"), "{can:?}");
}

const NAMESPACE: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: test\n";

/// Writers of Deployments must be allowed to delete them; the admin is left out.
const AUTHORIZER_POLICY: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-delete-power
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  matchConditions:
  - name: not-admins
    expression: "!('system:masters' in request.userInfo.groups)"
  validations:
  - expression: "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete').allowed()"
    message: only users who may delete deployments may write them
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-delete-power-binding
spec:
  policyName: no-delete-power
  validationActions: [Deny]
"#;

fn deployment(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: test\n\
         spec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    \
         metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n      - name: web\n        \
         image: nginx:1.27\n"
    )
}

#[test]
fn a_policys_authorizer_check_is_answered_by_rbac() {
    let Some(k) = Kubectl::start_with(
        "a_policys_authorizer_check_is_answered_by_rbac",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    k.applied(NAMESPACE);
    k.applied(AUTHORIZER_POLICY);
    // alice may write Deployments in test (a Role), not delete them.
    k.ok(&[
        "create",
        "role",
        "deployer",
        "--verb=get,list,watch,create,update,patch",
        "--resource=deployments.apps",
        "-n",
        "test",
    ]);
    k.ok(&[
        "create",
        "rolebinding",
        "alice-deploys",
        "--role=deployer",
        "--user=alice",
        "-n",
        "test",
    ]);
    let alice = k.kubeconfig_for("alice-token");
    let apply = |name: &str| k.run_as(Some(&alice), &["apply", "-f", "-"], Some(&deployment(name)));
    let denied = apply("web");
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (
            1,
            "The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'no-delete-power' \
             with binding 'no-delete-power-binding' denied request: only users who may delete \
             deployments may write them\n"
        ),
        "{denied:?}"
    );
    // A ClusterRole granting delete, bound in test only: the check now passes there.
    k.ok(&[
        "create",
        "clusterrole",
        "deployment-deleter",
        "--verb=delete",
        "--resource=deployments.apps",
    ]);
    k.ok(&[
        "create",
        "rolebinding",
        "alice-deletes",
        "--clusterrole=deployment-deleter",
        "--user=alice",
        "-n",
        "test",
    ]);
    let created = apply("web");
    assert_eq!(
        (
            created.code,
            created.stdout.as_str(),
            created.stderr.as_str()
        ),
        (0, "deployment.apps/web created\n", ""),
        "{created:?}"
    );
}

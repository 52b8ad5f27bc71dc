//! User impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`; kubectl's
//! `--as`, `--as-group`, `--as-uid`) as kube-apiserver 1.36+ serves it (k8s.io/apiserver
//! `pkg/endpoints/filters/impersonation/`): over HTTP (the 400 and 403 texts, what
//! SelfSubjectReview, admission and the audit log see) and with real kubectl.

mod support;

use serde_json::{Value, json};
use support::{Auth, Kubectl, Server};

const TOKENS: &str = "bob-token,bob,1002,\"dev\"\ncarol-token,carol,1003\n";

/// ada may work with config maps in `default`; bob (group dev) may read them; carol may
/// impersonate ada and the group auditors the legacy way (`impersonate` on `users` and
/// `groups` in the core group, as upstream's RBAC examples grant it).
const RULES: &str = r#"rules:
- {users: [ada], verbs: [get, list, create], apiGroups: [""], resources: [configmaps], namespaces: [default]}
- {groups: [dev], verbs: [get, list], apiGroups: [""], resources: [configmaps], namespaces: [default]}
- {users: [carol], verbs: [impersonate], apiGroups: [""], resources: [users, groups], resourceNames: [ada, auditors]}
"#;

fn server_with(dir: &tempfile::TempDir, extra: &[&str]) -> Server {
    std::fs::write(dir.path().join("tokens.csv"), TOKENS).unwrap();
    std::fs::write(dir.path().join("rules.yaml"), RULES).unwrap();
    let tokens = dir.path().join("tokens.csv").display().to_string();
    let rules = dir.path().join("rules.yaml").display().to_string();
    let mut flags = vec![
        "--storage",
        "memory",
        "--token-auth-file",
        &tokens,
        "--authorization-rules",
        &rules,
    ];
    flags.extend(extra);
    Server::start(&flags)
}

async fn post_as(
    server: &Server,
    auth: Auth<'_>,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> support::Reply {
    let mut all = vec![("content-type", "application/json")];
    all.extend(headers);
    let body = Some(serde_json::to_vec(body).unwrap());
    server.request_with("POST", path, body, auth, &all).await
}

const REVIEWS: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

#[tokio::test]
async fn impersonation_headers_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_with(&dir, &[]);
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    // SelfSubjectReview answers the impersonated user, with upstream's system:authenticated.
    let reply = post_as(
        &server,
        Auth::Admin,
        REVIEWS,
        &review,
        &[
            ("Impersonate-User", "ada"),
            ("Impersonate-Uid", "7"),
            ("Impersonate-Group", "auditors"),
            ("Impersonate-Group", "dev"),
            ("Impersonate-Extra-Example.com%2fTeam", "blue"),
            ("Impersonate-Extra-Example.com%2fTeam", "green"),
        ],
    )
    .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        reply.json()["status"]["userInfo"],
        json!({"username": "ada", "uid": "7", "groups": ["auditors", "dev", "system:authenticated"],
               "extra": {"example.com/team": ["blue", "green"]}})
    );
    // Groups without a user: upstream's 400 (processImpersonationHeaders).
    let reply = post_as(
        &server,
        Auth::Admin,
        REVIEWS,
        &review,
        &[("Impersonate-Group", "dev")],
    )
    .await;
    assert_eq!(reply.code, 400, "{}", reply.text());
    assert_eq!(reply.json()["reason"], "BadRequest");
    assert_eq!(
        reply.json()["message"],
        "requested &user.DefaultInfo{Name:\"\", UID:\"\", Groups:[]string{\"dev\"}, \
         Extra:map[string][]string(nil)} without impersonating a user name"
    );
    // A user without the right: the user-info mode's check of the request itself is the
    // first refusal.
    let reply = post_as(
        &server,
        Auth::Token("bob-token"),
        REVIEWS,
        &review,
        &[("Impersonate-User", "ada")],
    )
    .await;
    assert_eq!(reply.code, 403, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "selfsubjectreviews.authentication.k8s.io is forbidden: User \"bob\" cannot \
         impersonate-on:user-info:create resource \"selfsubjectreviews\" in API group \
         \"authentication.k8s.io\" at the cluster scope"
    );
    assert_eq!(
        reply.json()["details"],
        json!({"group": "authentication.k8s.io", "kind": "selfsubjectreviews"})
    );
    // The anonymous user of a public path is checked too.
    let reply = server
        .request_with(
            "GET",
            "/healthz",
            None,
            Auth::None,
            &[("Impersonate-User", "ada")],
        )
        .await;
    assert_eq!(reply.code, 403, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "forbidden: User \"system:anonymous\" cannot impersonate-on:user-info:get path \
         \"/healthz\""
    );
    // The request itself is authorized for the impersonated user.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    let reply = post_as(
        &server,
        Auth::Admin,
        "/api/v1/namespaces/kube-system/configmaps",
        &cm,
        &[("Impersonate-User", "ada")],
    )
    .await;
    assert_eq!(reply.code, 403, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "configmaps is forbidden: User \"ada\" cannot create resource \"configmaps\" in API \
         group \"\" in the namespace \"kube-system\""
    );
    let reply = post_as(
        &server,
        Auth::Admin,
        "/api/v1/namespaces/default/configmaps",
        &cm,
        &[("Impersonate-User", "ada")],
    )
    .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}

/// A policy on config maps named `deny-*`: the `authorizer` (as the request's user) must
/// allow listing config maps in `default` and in `kube-system`; the message says who asked
/// as admission saw it (`request.userInfo`; messageExpressions have no `authorizer`).
const WHO_POLICY: &str = r#"{
  "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
  "metadata": {"name": "who"},
  "spec": {
    "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
      "operations": ["CREATE"], "resources": ["configmaps"]}]},
    "validations": [
      {"expression": "!object.metadata.name.startsWith('deny-') || authorizer.group('').resource('configmaps').namespace('default').check('list').allowed()",
       "reason": "Forbidden",
       "messageExpression": "'user ' + request.userInfo.username + ' may not list configmaps in default'"},
      {"expression": "!object.metadata.name.startsWith('deny-') || authorizer.group('').resource('configmaps').namespace('kube-system').check('list').allowed()",
       "reason": "Forbidden",
       "messageExpression": "'user ' + request.userInfo.username + ' uid ' + request.userInfo.uid + ' groups ' + request.userInfo.groups.join(' ') + ' team ' + request.userInfo.extra['example.com/team'][0] + ' may not list configmaps in kube-system'"}
    ]
  }
}"#;

const WHO_BINDING: &str = r#"{
  "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
  "metadata": {"name": "who"},
  "spec": {"policyName": "who", "validationActions": ["Deny"]}
}"#;

#[tokio::test]
async fn admission_and_the_audit_log_see_the_impersonated_user() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.log").display().to_string();
    let server = server_with(&dir, &["--audit-log-path", &log]);
    let admission = "/apis/admissionregistration.k8s.io/v1";
    for (path, object) in [
        ("validatingadmissionpolicies", WHO_POLICY),
        ("validatingadmissionpolicybindings", WHO_BINDING),
    ] {
        let object: Value = serde_json::from_str(object).unwrap();
        let reply = server
            .send("POST", &format!("{admission}/{path}"), Some(&object))
            .await;
        assert_eq!(reply.code, 201, "{}", reply.text());
    }
    let as_ada = [
        ("Impersonate-User", "ada"),
        ("Impersonate-Uid", "7"),
        ("Impersonate-Group", "auditors"),
        ("Impersonate-Extra-example.com%2Fteam", "blue"),
        ("User-Agent", "impersonation-test"),
    ];
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deny-me"}});
    let path = "/api/v1/namespaces/default/configmaps";
    // The policy (and its authorizer checks) see ada, not the admin (who may list anywhere).
    let mut reply = None;
    for _ in 0..100 {
        let r = post_as(&server, Auth::Admin, path, &cm, &as_ada).await;
        if r.code != 201 {
            reply = Some(r);
            break;
        }
        // The policy is not in effect yet: undo and retry.
        server
            .send("DELETE", &format!("{path}/deny-me"), None)
            .await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let reply = reply.expect("the policy never took effect");
    assert_eq!(reply.code, 403, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "configmaps \"deny-me\" is forbidden: ValidatingAdmissionPolicy 'who' with binding \
         'who' denied request: user ada uid 7 groups auditors system:authenticated team blue \
         may not list configmaps in kube-system"
    );
    // managedFields' manager comes from the request, not the user.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"},
                    "data": {"a": "b"}});
    let reply = post_as(&server, Auth::Admin, path, &cm, &as_ada).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        reply.json()["metadata"]["managedFields"][0]["manager"],
        "impersonation-test",
        "{}",
        reply.text()
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let create = events
        .iter()
        .find(|e| e["verb"] == "create" && e["objectRef"]["name"] == "kept")
        .unwrap_or_else(|| panic!("no create event in {text}"));
    // k8s.io/apiserver audit.LogImpersonatedUser: the event's user is who asked.
    assert_eq!(create["user"]["username"], "kcel-admin");
    assert_eq!(
        create["impersonatedUser"],
        json!({"username": "ada", "uid": "7", "groups": ["auditors", "system:authenticated"],
               "extra": {"example.com/team": ["blue"]}})
    );
    assert_eq!(
        create["authenticationMetadata"],
        json!({"impersonationConstraint": "impersonate:user-info"})
    );
    // Without impersonation, neither field.
    let plain = events
        .iter()
        .find(|e| e["objectRef"]["resource"] == "validatingadmissionpolicies")
        .unwrap();
    assert!(plain.get("impersonatedUser").is_none(), "{plain}");
    assert!(plain.get("authenticationMetadata").is_none(), "{plain}");
}

#[test]
fn kubectl_as_and_as_group() {
    let Some(k) = Kubectl::start_with(
        "kubectl_as_and_as_group",
        &[("tokens.csv", TOKENS), ("rules.yaml", RULES)],
        &[
            "--token-auth-file",
            "{home}/tokens.csv",
            "--authorization-rules",
            "{home}/rules.yaml",
        ],
    ) else {
        return;
    };
    // `kubectl auth whoami` (a SelfSubjectReview) as the impersonated user.
    let who = k.json(&[
        "auth",
        "whoami",
        "--as",
        "ada",
        "--as-group",
        "auditors",
        "--as-uid",
        "7",
    ]);
    assert_eq!(
        who["status"]["userInfo"],
        json!({"username": "ada", "uid": "7", "groups": ["auditors", "system:authenticated"]})
    );
    // The admin acting as ada may do what ada may, no more.
    assert_eq!(
        k.ok(&[
            "create",
            "configmap",
            "x",
            "--from-literal=a=b",
            "--as",
            "ada"
        ]),
        "configmap/x created\n"
    );
    let denied = k.run(&["get", "configmaps", "-n", "kube-system", "--as", "ada"]);
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): configmaps is forbidden: User \"ada\" cannot list \
             resource \"configmaps\" in API group \"\" in the namespace \"kube-system\"\n"
        )
    );
    // bob may not impersonate: the first mode's refusal (constrained impersonation).
    let bob = k.kubeconfig_for("bob-token");
    let ran = k.run_as(Some(&bob), &["get", "configmaps", "--as", "ada"], None);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): configmaps is forbidden: User \"bob\" cannot \
             impersonate-on:user-info:list resource \"configmaps\" in API group \"\" in the \
             namespace \"default\"\n"
        )
    );
    // carol may, the legacy way, as ada and in the group auditors.
    let carol = k.kubeconfig_for("carol-token");
    let ran = k.run_as(
        Some(&carol),
        &[
            "get",
            "configmaps",
            "--as",
            "ada",
            "--as-group",
            "auditors",
            "-o",
            "name",
        ],
        None,
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "configmap/x\n"),
        "{ran:?}"
    );
    // The legacy mode allowed carol last: its refusal is the answer for another user.
    let ran = k.run_as(Some(&carol), &["get", "configmaps", "--as", "eve"], None);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): users \"eve\" is forbidden: User \"carol\" cannot \
             impersonate resource \"users\" in API group \"\" at the cluster scope\n"
        )
    );
    let ran = k.run_as(
        Some(&carol),
        &["get", "configmaps", "--as", "ada", "--as-group", "dev"],
        None,
    );
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): groups \"dev\" is forbidden: User \"carol\" cannot \
             impersonate resource \"groups\" in API group \"\" at the cluster scope\n"
        )
    );
}

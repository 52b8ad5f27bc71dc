//! SubjectAccessReview and LocalSubjectAccessReview (authorization.k8s.io/v1) driven by real
//! kubectl 1.37 (issue 21): `kubectl create -f <review> -o yaml` prints the review answered
//! from the server's authorizer (RBAC's reason included), upstream's validation errors
//! (a LocalSubjectAccessReview about another namespace, a review without user or groups),
//! creating a review needs `create` on it, and `kubectl api-resources` lists the reviews of
//! `authorization.k8s.io` and `authentication.k8s.io`; a TokenReview (`create --raw`) says whom
//! a token names. Without kubectl the tests skip visibly
//! (and fail under `CI=true`).

mod support;

use serde_json::{Value, json};
use support::Kubectl;

const TOKENS: &str = "bob-token,bob,1002,\"dev\"\n";

/// The YAML kubectl printed, as JSON.
fn yaml(text: &str) -> Value {
    serde_norway::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A SubjectAccessReview of `user` doing `verb` on ConfigMaps in `namespace`.
fn review(kind: &str, user: &str, verb: &str, namespace: &str) -> String {
    json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": kind,
        "spec": {
            "user": user,
            "groups": ["dev"],
            "resourceAttributes": {"verb": verb, "resource": "configmaps", "namespace": namespace},
        },
    })
    .to_string()
}

#[test]
fn subject_access_reviews_answer_from_rbac() {
    let Some(k) = Kubectl::start_with(
        "subject_access_reviews_answer_from_rbac",
        &[("tokens.csv", TOKENS)],
        &["--token-auth-file", "{home}/tokens.csv"],
    ) else {
        return;
    };
    k.ok(&[
        "create",
        "role",
        "cm-reader",
        "--verb=list",
        "--resource=configmaps",
        "-n",
        "default",
    ]);
    k.ok(&[
        "create",
        "rolebinding",
        "bob-reads",
        "--role=cm-reader",
        "--user=bob",
        "-n",
        "default",
    ]);

    // The admin asks about bob: allowed, with the binding that allows.
    let printed = k.ok_stdin(
        &["create", "--validate=false", "-f", "-", "-o", "yaml"],
        &review("SubjectAccessReview", "bob", "list", "default"),
    );
    assert_eq!(
        yaml(&printed),
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "metadata": {"creationTimestamp": null},
            "spec": {
                "user": "bob",
                "groups": ["dev"],
                "resourceAttributes": {"verb": "list", "resource": "configmaps",
                    "namespace": "default"},
            },
            "status": {
                "allowed": true,
                "reason": "RBAC: allowed by RoleBinding \"bob-reads/default\" of Role \
                           \"cm-reader\" to User \"bob\"",
            },
        }),
        "{printed}"
    );
    // Not allowed: `allowed: false` and no reason (RBAC has no opinion).
    let printed = k.ok_stdin(
        &["create", "--validate=false", "-f", "-", "-o", "yaml"],
        &review("SubjectAccessReview", "bob", "delete", "default"),
    );
    assert_eq!(
        yaml(&printed)["status"],
        json!({"allowed": false}),
        "{printed}"
    );

    // The namespaced review, in its namespace.
    let printed = k.ok_stdin(
        &[
            "create",
            "--validate=false",
            "-n",
            "default",
            "-f",
            "-",
            "-o",
            "yaml",
        ],
        &review("LocalSubjectAccessReview", "bob", "list", "default"),
    );
    let answered = yaml(&printed);
    assert_eq!(
        (
            &answered["kind"],
            &answered["metadata"]["namespace"],
            &answered["status"]["allowed"]
        ),
        (
            &json!("LocalSubjectAccessReview"),
            &json!("default"),
            &json!(true)
        ),
        "{printed}"
    );
    // About another namespace: upstream's validation error.
    let ran = k.run_stdin(
        &[
            "create",
            "--validate=false",
            "-n",
            "default",
            "-f",
            "-",
            "-o",
            "yaml",
        ],
        &review("LocalSubjectAccessReview", "bob", "list", "kube-system"),
    );
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "The LocalSubjectAccessReview \"\" is invalid: spec.resourceAttributes.namespace: \
             Invalid value: \"kube-system\": must match metadata.namespace\n"
        ),
        "{ran:?}"
    );
    // Without user or groups.
    let ran = k.run_stdin(
        &["create", "--validate=false", "-f", "-"],
        r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}}"#,
    );
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "The SubjectAccessReview \"\" is invalid: spec.user: Invalid value: \"\": at least \
             one of user or group must be specified\n"
        ),
        "{ran:?}"
    );
    // A non-resource request of a group: the default system:public-info-viewer binding.
    let printed = k.ok_stdin(
        &["create", "--validate=false", "-f", "-", "-o", "yaml"],
        r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"groups": ["system:unauthenticated"],
                     "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}}"#,
    );
    assert_eq!(
        yaml(&printed)["status"]["allowed"],
        json!(true),
        "{printed}"
    );

    // bob may not ask about others: creating the review is authorized like any create.
    let bob = k.kubeconfig_for("bob-token");
    let ran = k.run_as(
        Some(&bob),
        &["create", "--validate=false", "-f", "-"],
        Some(&review("SubjectAccessReview", "bob", "list", "default")),
    );
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): error when creating \"STDIN\": \
             subjectaccessreviews.authorization.k8s.io is forbidden: User \"bob\" cannot \
             create resource \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at \
             the cluster scope\n"
        ),
        "{ran:?}"
    );
}

#[test]
fn api_resources_lists_the_reviews() {
    let Some(k) = Kubectl::start("api_resources_lists_the_reviews") else {
        return;
    };
    let rows = |group: &str| -> Vec<Vec<String>> {
        k.ok(&["api-resources", "--api-group", group])
            .lines()
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
            .collect()
    };
    let row = |name: &str, group: &str, namespaced: &str, kind: &str| -> Vec<String> {
        [name, &format!("{group}/v1"), namespaced, kind]
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    };
    let authz = "authorization.k8s.io";
    assert_eq!(
        rows(authz),
        [
            ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            row(
                "localsubjectaccessreviews",
                authz,
                "true",
                "LocalSubjectAccessReview"
            ),
            row(
                "selfsubjectaccessreviews",
                authz,
                "false",
                "SelfSubjectAccessReview"
            ),
            row(
                "selfsubjectrulesreviews",
                authz,
                "false",
                "SelfSubjectRulesReview"
            ),
            row(
                "subjectaccessreviews",
                authz,
                "false",
                "SubjectAccessReview"
            ),
        ]
    );
    let authn = "authentication.k8s.io";
    assert_eq!(
        rows(authn)[1..],
        [
            row("selfsubjectreviews", authn, "false", "SelfSubjectReview"),
            row("tokenreviews", authn, "false", "TokenReview"),
        ]
    );
    // The verbs, as `-o wide` lists them.
    let wide = k.ok(&["api-resources", "--api-group", authz, "-o", "wide"]);
    assert!(
        wide.lines()
            .skip(1)
            .all(|l| l.split_whitespace().nth(4) == Some("create")),
        "{wide}"
    );
}

/// A TokenReview (`kubectl create --raw`, as a webhook authenticator's caller posts it): the
/// server's own token authenticates as its user with the audiences asked for; an unknown
/// token is not authenticated; a review without a token is upstream's 400.
#[test]
fn token_reviews_say_whom_a_token_names() {
    let Some(k) = Kubectl::start("token_reviews_say_whom_a_token_names") else {
        return;
    };
    let token = std::fs::read_to_string(k.server.data_dir().join("admin-token")).unwrap();
    let review = |token: &str| {
        let body = serde_json::json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": token, "audiences": ["api"]},
        });
        k.run_stdin(
            &[
                "create",
                "--raw",
                "/apis/authentication.k8s.io/v1/tokenreviews",
                "-f",
                "-",
            ],
            &body.to_string(),
        )
    };
    let ran = review(token.trim());
    assert_eq!(ran.code, 0, "{ran:?}");
    let answer: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        answer["status"],
        serde_json::json!({
            "authenticated": true,
            "user": {"username": "kcel-admin", "groups": ["system:masters", "system:authenticated"]},
            "audiences": ["api"],
        }),
        "{answer}"
    );
    assert_eq!(
        answer["metadata"],
        serde_json::json!({"creationTimestamp": null})
    );
    let ran = review("no-such-token");
    assert_eq!(ran.code, 0, "{ran:?}");
    let answer: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        answer["status"],
        serde_json::json!({"user": {}}),
        "{answer}"
    );
    let ran = review("");
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr
            .contains("token is required for TokenReview in authentication"),
        "{ran:?}"
    );
}

/// kubectl validates a review on the client against `/openapi/v2` (its v3 document has no
/// PATCH operation to ask the server to validate): without `--validate=false` a review is
/// created, and a field the kind does not have is kubectl's own error.
#[test]
fn kubectl_validates_reviews_against_openapi_v2() {
    let Some(k) = Kubectl::start("kubectl_validates_reviews_against_openapi_v2") else {
        return;
    };
    let review = review("SubjectAccessReview", "bob", "list", "default");
    let created = yaml(&k.ok_stdin(&["create", "-f", "-", "-o", "yaml"], &review));
    assert_eq!(created["status"]["allowed"], false, "{created}");
    let mut typo: Value = serde_json::from_str(&review).unwrap();
    typo["spec"]["userx"] = json!("bob");
    let ran = k.run_stdin(&["create", "-f", "-"], &typo.to_string());
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "error: error validating \"STDIN\": error validating data: \
             ValidationError(SubjectAccessReview.spec): unknown field \"userx\" in \
             io.k8s.api.authorization.v1.SubjectAccessReviewSpec; if you choose to ignore these \
             errors, turn validation off with --validate=false\n"
        ),
        "{ran:?}"
    );
}

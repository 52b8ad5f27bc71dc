//! ValidatingAdmissionPolicy enforced by the server, driven by real kubectl 1.37 (issue 21's
//! acceptance): the upstream documentation example (`object.spec.replicas <= 5` on apps/v1
//! Deployments, kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/)
//! with Deny and Warn bindings, a ConfigMap param chosen by `paramRef.selector`, a missing
//! param with `parameterNotFoundAction: Deny`, namespaceSelector and objectSelector scoping,
//! a matchCondition excluding a group, an `authorizer` check answered by the server's rules,
//! a policy that does not compile (422), and the audit log. Without kubectl the tests skip
//! visibly (and fail under `CI=true`).

mod support;

use serde_json::Value;
use support::Kubectl;

/// The documentation's policy, and its binding with `actions`, for namespaces labelled
/// `environment: test`.
fn demo_policy(actions: &str) -> String {
    format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "demo-policy.example.com"
  validationActions: {actions}
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
"#
    )
}

fn deployment(name: &str, namespace: &str, replicas: u32, labels: &str) -> String {
    format!(
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {namespace}
  labels: {{{labels}}}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
"#
    )
}

const NAMESPACES: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: test\n  labels:\n    environment: test\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n";

const DENIED: &str = "The deployments \"nginx\" is invalid: : ValidatingAdmissionPolicy \
    'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: \
    failed expression: object.spec.replicas <= 5\n";

#[test]
fn the_documentation_example_denies_warns_and_scopes_by_namespace() {
    let Some(k) = Kubectl::start_with(
        "the_documentation_example_denies_warns_and_scopes_by_namespace",
        &[],
        &[],
    ) else {
        return;
    };
    k.applied(NAMESPACES);
    assert_eq!(
        k.applied(&demo_policy("[Deny]")),
        "validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com created\n\
         validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com created\n"
    );
    let denied = k.apply(&deployment("nginx", "test", 6, ""));
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (1, DENIED),
        "{denied:?}"
    );
    // Five is allowed; an update to six is denied the same way.
    k.applied(&deployment("nginx", "test", 5, ""));
    let update = k.apply(&deployment("nginx", "test", 6, ""));
    assert_eq!(
        (update.code, update.stderr.as_str()),
        (1, DENIED),
        "{update:?}"
    );
    // kubectl scale goes through the scale subresource, which the policy does not match.
    // The namespaceSelector: prod has no environment label.
    k.applied(&deployment("nginx", "prod", 6, ""));
    // Warn instead of Deny: the write passes with upstream's warning.
    k.applied(&demo_policy("[Warn]"));
    let warned = k.apply(&deployment("nginx", "test", 6, ""));
    assert_eq!(
        (warned.code, warned.stderr.as_str()),
        (
            0,
            "Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' \
             with binding 'demo-binding-test.example.com': failed expression: object.spec.replicas <= 5\n"
        ),
        "{warned:?}"
    );
    // The policies are served objects: get, status, delete.
    let got = k.run_as(
        None,
        &["get", "validatingadmissionpolicies", "-o", "json"],
        None,
    );
    let list: Value = serde_json::from_str(&got.stdout).unwrap();
    let policy = &list["items"][0];
    assert_eq!(policy["status"]["observedGeneration"], 1, "{policy}");
    // Type-checked against the served Deployment schema: nothing to report.
    assert_eq!(
        policy["status"]["typeChecking"],
        serde_json::json!({}),
        "{policy}"
    );
    assert_eq!(
        policy["spec"]["matchConstraints"]["matchPolicy"],
        "Equivalent"
    );
    // kubectl get prints upstream's columns (the server's Table).
    let rows = |resource: &str| -> Vec<Vec<String>> {
        k.ok(&["get", resource])
            .lines()
            .map(|line| line.split_whitespace().map(str::to_owned).collect())
            .collect()
    };
    let policies = rows("validatingadmissionpolicies");
    assert_eq!(policies[0], ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"]);
    assert_eq!(
        policies[1][..3],
        ["demo-policy.example.com", "1", "<unset>"]
    );
    let bindings = rows("validatingadmissionpolicybindings");
    assert_eq!(bindings[0], ["NAME", "POLICYNAME", "PARAMREF", "AGE"]);
    assert_eq!(
        bindings[1][..3],
        [
            "demo-binding-test.example.com",
            "demo-policy.example.com",
            "<unset>"
        ]
    );
    let deleted = k.run_as(
        None,
        &[
            "delete",
            "validatingadmissionpolicybinding",
            "demo-binding-test.example.com",
        ],
        None,
    );
    assert_eq!(deleted.code, 0, "{deleted:?}");
    // Without the binding, nothing is checked (no warning).
    let quiet = k.apply(&deployment("nginx", "test", 7, ""));
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""), "{quiet:?}");
}

/// The documentation's type-checking example ("Type checking": a policy matching Deployments
/// and ReplicaSets that reads `object.replicas`), a param typo against the ConfigMap schema,
/// expressions that fit the built-in schemas (none reported), and one reading a resource
/// limit: a `Quantity` schema has no type (a `oneOf`), so upstream's types leave the field
/// out and report it, in `status.typeChecking`.
#[test]
fn policies_are_type_checked_against_built_in_kinds() {
    let Some(k) = Kubectl::start_with("policies_are_type_checked_against_built_in_kinds", &[], &[])
    else {
        return;
    };
    k.applied(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "deploy-replica-policy.example.com"
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments","replicasets"]
  validations:
  - expression: "object.replicas > 1" # should be "object.spec.replicas > 1"
    message: "must be replicated"
    reason: Invalid
  - expression: "object.spec.replicas <= int(params.data.max) && object.metadata.labels['app'] != ''"
  - expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/') && c.ports.all(p, p.containerPort > 1024))"
  - expression: "params.datum.size() > 0"
  - expression: "object.spec.template.spec.containers.all(c, !has(c.resources.limits))"
"#,
    );
    let policy = k.json(&[
        "get",
        "validatingadmissionpolicy",
        "deploy-replica-policy.example.com",
    ]);
    let warnings = &policy["status"]["typeChecking"]["expressionWarnings"];
    let fields: Vec<&str> = warnings
        .as_array()
        .unwrap_or_else(|| panic!("{policy}"))
        .iter()
        .map(|w| w["fieldRef"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "spec.validations[0].expression",
            "spec.validations[3].expression",
            "spec.validations[4].expression"
        ]
    );
    // kube-controller-manager's TypeChecker: one paragraph per kind, each ending in a
    // newline, joined by a newline.
    assert_eq!(
        warnings[0]["warning"],
        concat!(
            "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n",
            " | object.replicas > 1\n | ......^\n\n",
            "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'replicas'\n",
            " | object.replicas > 1\n | ......^\n",
        )
    );
    assert!(
        warnings[1]["warning"]
            .as_str()
            .unwrap()
            .starts_with("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'datum'"),
        "{policy}"
    );
    assert!(
        warnings[2]["warning"]
            .as_str()
            .unwrap()
            .contains("undefined field 'limits'"),
        "{policy}"
    );
}

#[test]
fn a_policy_that_does_not_compile_is_invalid() {
    let Some(k) = Kubectl::start_with("a_policy_that_does_not_compile_is_invalid", &[], &[]) else {
        return;
    };
    let bad =
        demo_policy("[Deny]").replace("object.spec.replicas <= 5", "object.spec.replicas <= ");
    let ran = k.apply(&bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.starts_with(
            "The ValidatingAdmissionPolicy \"demo-policy.example.com\" is invalid: \
             spec.validations[0].expression: Invalid value: \"object.spec.replicas <= \": \
             compilation failed: ERROR: <input>:1:25: Syntax error: mismatched input '<EOF>' expecting {expression}"
        ),
        "{ran:?}"
    );
}

const TOKENS: &str = "alice-token,alice,1001,\"dev\"\nbob-token,bob,1002,\"ops\"\n";

/// dev may write deployments; ops may also delete them.
const RULES: &str = "rules:\n\
- groups: [dev, ops]\n  verbs: [get, list, watch, create, update, patch]\n  apiGroups: [apps]\n  resources: [deployments]\n\
- groups: [ops]\n  verbs: [delete]\n  apiGroups: [apps]\n  resources: [deployments]\n";

const PARAM_POLICY: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be no greater than ' + params.data.maxReplicas"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef:
    selector: {matchLabels: {limit: replicas}}
    parameterNotFoundAction: Deny
  matchResources:
    objectSelector: {matchLabels: {checked: "yes"}}
"#;

const LIMITS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: limits\n  namespace: test\n  labels: {limit: replicas}\ndata:\n  maxReplicas: \"10\"\n";

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

fn denied_by(name: &str, policy: &str, binding: &str, message: &str) -> String {
    format!(
        "The deployments \"{name}\" is invalid: : ValidatingAdmissionPolicy '{policy}' with \
         binding '{binding}' denied request: {message}\n"
    )
}

#[test]
fn params_by_selector_object_selector_match_conditions_and_the_authorizer() {
    let Some(k) = Kubectl::start_with(
        "params_by_selector_object_selector_match_conditions_and_the_authorizer",
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
    k.applied(NAMESPACES);
    k.applied(LIMITS);
    k.applied(PARAM_POLICY);
    // The ConfigMap chosen by the selector raises the limit to 10.
    k.applied(&deployment("big", "test", 8, "checked: \"yes\""));
    let over = k.apply(&deployment("big", "test", 11, "checked: \"yes\""));
    let expected = denied_by(
        "big",
        "replica-limit",
        "replica-limit-binding",
        "replicas must be no greater than 10",
    );
    assert_eq!(
        (over.code, over.stderr.as_str()),
        (1, expected.as_str()),
        "{over:?}"
    );
    // The objectSelector: an unlabelled Deployment is not checked.
    k.applied(&deployment("free", "test", 50, ""));
    // Without the param, parameterNotFoundAction Deny rejects.
    let ran = k.run_as(None, &["delete", "configmap", "limits", "-n", "test"], None);
    assert_eq!(ran.code, 0, "{ran:?}");
    let missing = k.apply(&deployment("big", "test", 9, "checked: \"yes\""));
    let expected = denied_by(
        "big",
        "replica-limit",
        "replica-limit-binding",
        "failed to configure binding: no params found for policy binding with `Deny` \
         parameterNotFoundAction",
    );
    assert_eq!(
        (missing.code, missing.stderr.as_str()),
        (1, expected.as_str()),
        "{missing:?}"
    );

    // The matchCondition leaves system:masters out; the authorizer answers from the rules.
    k.applied(AUTHORIZER_POLICY);
    k.applied(&deployment("admin-app", "test", 1, ""));
    let alice = k.kubeconfig_for("alice-token");
    let as_alice = k.run_as(
        Some(&alice),
        &["apply", "-f", "-"],
        Some(&deployment("alice-app", "test", 1, "")),
    );
    let expected = denied_by(
        "alice-app",
        "no-delete-power",
        "no-delete-power-binding",
        "only users who may delete deployments may write them",
    );
    assert_eq!(
        (as_alice.code, as_alice.stderr.as_str()),
        (1, expected.as_str()),
        "{as_alice:?}"
    );
    let bob = k.kubeconfig_for("bob-token");
    let as_bob = k.run_as(
        Some(&bob),
        &["apply", "-f", "-"],
        Some(&deployment("bob-app", "test", 1, "")),
    );
    assert_eq!(
        (as_bob.code, as_bob.stdout.as_str(), as_bob.stderr.as_str()),
        (0, "deployment.apps/bob-app created\n", ""),
        "{as_bob:?}"
    );
}

#[test]
fn audit_actions_and_annotations_reach_the_audit_log() {
    let Some(k) = Kubectl::start_with(
        "audit_actions_and_annotations_reach_the_audit_log",
        &[("tokens.csv", TOKENS)],
        &[
            "--audit-log-path",
            "{home}/audit.log",
            "--token-auth-file",
            "{home}/tokens.csv",
        ],
    ) else {
        return;
    };
    // Refused requests are audited too: a token nobody has (401), and bob, who may not
    // list ConfigMaps (403).
    let stranger = k.kubeconfig_for("no-such-token");
    let refused = k.run_as(Some(&stranger), &["get", "configmaps"], None);
    assert_eq!(refused.code, 1, "{refused:?}");
    let bob = k.kubeconfig_for("bob-token");
    let forbidden = k.run_as(Some(&bob), &["get", "configmaps"], None);
    assert_eq!(forbidden.code, 1, "{forbidden:?}");
    k.applied(NAMESPACES);
    let policy = demo_policy("[Audit]").replace(
        "  validations:\n",
        "  auditAnnotations:\n    - key: replicas\n      valueExpression: \"string(object.spec.replicas)\"\n  validations:\n",
    );
    k.applied(&policy);
    k.applied(&deployment("nginx", "test", 6, ""));
    let log = std::fs::read_to_string(k.home.path().join("audit.log")).unwrap();
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let create = events
        .iter()
        .find(|e| e["verb"] == "create" && e["objectRef"]["resource"] == "deployments")
        .unwrap_or_else(|| panic!("no create event in {log}"));
    assert_eq!(create["apiVersion"], "audit.k8s.io/v1");
    assert_eq!(create["kind"], "Event");
    assert_eq!(create["level"], "Metadata");
    assert_eq!(create["stage"], "ResponseComplete");
    assert_eq!(create["user"]["username"], "kcel-admin");
    // kubectl on loopback: the connection's address.
    assert_eq!(create["sourceIPs"], serde_json::json!(["127.0.0.1"]));
    assert_eq!(create["objectRef"]["namespace"], "test");
    assert_eq!(create["objectRef"]["name"], "nginx");
    assert_eq!(create["responseStatus"]["code"], 201);
    let annotations = &create["annotations"];
    assert_eq!(annotations["authorization.k8s.io/decision"], "allow");
    assert_eq!(annotations["demo-policy.example.com/replicas"], "6");
    // The failed authentication: logged as its answer starts, without a user, with the
    // Status answered (upstream's WithFailedAuthenticationAudit, then LogResponseObject).
    let unauthorized = events
        .iter()
        .find(|e| e["responseStatus"]["code"] == 401)
        .unwrap_or_else(|| panic!("no 401 event in {log}"));
    assert_eq!(unauthorized["stage"], "ResponseStarted");
    assert_eq!(unauthorized["user"], serde_json::json!({}));
    assert_eq!(
        unauthorized["responseStatus"],
        serde_json::json!({"metadata": {}, "status": "Failure", "message": "Unauthorized",
            "reason": "Unauthorized", "code": 401})
    );
    assert!(unauthorized.get("annotations").is_none(), "{unauthorized}");
    // The authorizer's refusal: its decision, and the Forbidden Status.
    let denied = events
        .iter()
        .find(|e| e["user"]["username"] == "bob" && e["verb"] == "list")
        .unwrap_or_else(|| panic!("no list event of bob in {log}"));
    assert_eq!(denied["stage"], "ResponseComplete");
    assert_eq!(
        denied["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
    assert_eq!(
        denied["responseStatus"],
        serde_json::json!({"metadata": {}, "status": "Failure",
            "message": "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"",
            "reason": "Forbidden", "details": {"kind": "configmaps"}, "code": 403})
    );
    assert_eq!(
        annotations["validation.policy.admission.k8s.io/validation_failure"],
        "[{\"message\":\"failed expression: object.spec.replicas \\u003c= 5\",\
         \"policy\":\"demo-policy.example.com\",\"binding\":\"demo-binding-test.example.com\",\
         \"expressionIndex\":0,\"validationActions\":[\"Audit\"]}]"
    );
}

const MUTATING_POLICIES: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: set-team-label
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  matchConditions:
  - name: not-excluded
    expression: "!object.metadata.name.startsWith('skip-')"
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'platform'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: set-team-label-binding
spec:
  policyName: set-team-label
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: copy-team
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: 'add', path: '/data/' + jsonpatch.escapeKey('seen.team'),
          value: has(object.metadata.labels) && 'team' in object.metadata.labels
            ? object.metadata.labels['team'] : 'none'}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: copy-team-binding
spec:
  policyName: copy-team
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: 'add', path: '/spec/template/spec/containers/-',
          value: Object.spec.template.spec.containers{name: 'sidecar', image: params.data.image,
            env: [Object.spec.template.spec.containers.env{name: 'MODE', value: 'sidecar'}]}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar-binding
spec:
  policyName: sidecar
  paramRef: {name: sidecar-image, namespace: default, parameterNotFoundAction: Deny}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: needs-sidecar-and-team
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.kind != 'Deployment' || object.spec.template.spec.containers.exists(c, c.name == 'sidecar')"
    message: no sidecar
  - expression: "object.kind != 'ConfigMap' || object.metadata.name.startsWith('skip-') || object.metadata.labels['team'] == 'platform'"
    message: no team
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: needs-sidecar-and-team-binding
spec:
  policyName: needs-sidecar-and-team
  validationActions: [Deny]
"#;

fn get_json(k: &Kubectl, args: &[&str]) -> Value {
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    let got = k.run_as(None, &all, None);
    assert_eq!(got.code, 0, "{got:?}");
    serde_json::from_str(&got.stdout).unwrap()
}

/// MutatingAdmissionPolicy (kubernetes `staging/src/k8s.io/apiserver/pkg/admission/plugin/
/// policy/mutating/`): an apply configuration adding a label to ConfigMaps (unless a
/// matchCondition excludes them), a JSON patch adding a sidecar container with env whose
/// image comes from a ConfigMap param, reinvocation of an `IfNeeded` policy that saw the
/// object before a later policy changed it, and a validating policy judging the mutated
/// object.
#[test]
fn mutating_policies_mutate_before_validating_policies_judge() {
    let Some(k) = Kubectl::start("mutating_policies_mutate_before_validating_policies_judge")
    else {
        return;
    };
    k.applied(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sidecar-image\n  namespace: default\ndata:\n  image: busybox:1.36\n",
    );
    // The copied key is a valid ConfigMap key: the server validates the mutated ConfigMap
    // before the validating policies, as kube-apiserver does (a `/` would be its 422).
    k.applied(MUTATING_POLICIES);
    let listed = get_json(&k, &["mutatingadmissionpolicies"]);
    let names: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["copy-team", "set-team-label", "sidecar"]);
    assert_eq!(listed["items"][0]["spec"]["failurePolicy"], "Fail");
    // The label is added, and the validating policy requiring it sees it; policies run by
    // name: copy-team first (seeing no label), then set-team-label, then copy-team again
    // (IfNeeded) since set-team-label changed the object.
    k.applied("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  a: b\n");
    let cm = get_json(&k, &["configmap", "settings", "-n", "default"]);
    assert_eq!(cm["metadata"]["labels"]["team"], "platform", "{cm}");
    assert_eq!(
        cm["data"],
        serde_json::json!({"a": "b", "seen.team": "platform"}),
        "{cm}"
    );
    // The match condition excludes skip-*: no label (copy-team still runs).
    k.applied("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skip-me\n  namespace: default\ndata:\n  z: zed\n");
    let cm = get_json(&k, &["configmap", "skip-me", "-n", "default"]);
    assert_eq!(cm["metadata"].get("labels"), None, "{cm}");
    assert_eq!(
        cm["data"],
        serde_json::json!({"z": "zed", "seen.team": "none"}),
        "{cm}"
    );
    // The sidecar is appended with its env and the param's image; the validating policy
    // requiring it admits the Deployment.
    k.applied(&deployment("web", "default", 1, ""));
    let d = get_json(&k, &["deployment", "web", "-n", "default"]);
    let containers = &d["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers[0]["name"], "nginx", "{d}");
    assert_eq!(containers[1]["name"], "sidecar", "{d}");
    assert_eq!(containers[1]["image"], "busybox:1.36", "{d}");
    assert_eq!(
        containers[1]["env"],
        serde_json::json!([{"name": "MODE", "value": "sidecar"}])
    );
    // Without the param, the binding's Deny fails the write.
    let deleted = k.run_as(
        None,
        &["delete", "configmap", "sidecar-image", "-n", "default"],
        None,
    );
    assert_eq!(deleted.code, 0, "{deleted:?}");
    let denied = k.apply(&deployment("web2", "default", 1, ""));
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): error when creating \"STDIN\": policy 'sidecar' with \
             binding 'sidecar-binding' denied request: failed to configure binding: no params \
             found for policy binding with `Deny` parameterNotFoundAction\n"
        ),
        "{denied:?}"
    );
}

/// A mutation whose expression fails: under failurePolicy Fail the write is refused with
/// upstream's message (403, reason Invalid); under Ignore it passes unchanged.
#[test]
fn a_failing_mutation_follows_the_failure_policy() {
    let Some(k) = Kubectl::start("a_failing_mutation_follows_the_failure_policy") else {
        return;
    };
    let policy = |failure: &str| {
        format!(
            r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: broken
spec:
  failurePolicy: {failure}
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{{data: {{'x': object.data.missing}}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: broken-binding
spec:
  policyName: broken
"#
        )
    };
    k.applied(&policy("Fail"));
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  a: b\n";
    let failed = k.apply(cm);
    assert_eq!(
        (failed.code, failed.stderr.as_str()),
        (
            1,
            "The configmaps \"c\" is invalid: : policy 'broken' with binding 'broken-binding' \
             denied request: expression 'Object{data: {'x': object.data.missing}}' resulted in \
             error: no such key: missing\n"
        ),
        "{failed:?}"
    );
    k.applied(&policy("Ignore"));
    k.applied(cm);
    let got = get_json(&k, &["configmap", "c", "-n", "default"]);
    assert_eq!(got["data"], serde_json::json!({"a": "b"}));
    // A mutation that does not compile is refused when the policy is written.
    let bad = policy("Fail").replace("object.data.missing", "object.data.missing +");
    let ran = k.apply(&bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.starts_with(
            "The MutatingAdmissionPolicy \"broken\" is invalid: \
             spec.mutations[0].applyConfiguration.expression: Invalid value: "
        ),
        "{ran:?}"
    );
}

/// A scale write is judged with the autoscaling/v1 `Scale` as `object` and `oldObject`, as
/// kube-apiserver does (kubernetes `pkg/registry/apps/deployment/storage/storage.go`:
/// `ScaleREST.Update` validates through `toScaleUpdateValidation`, which converts both
/// objects with `scaleFromDeployment`).
#[test]
fn scale_writes_are_judged_as_scale_objects() {
    let Some(k) = Kubectl::start("scale_writes_are_judged_as_scale_objects") else {
        return;
    };
    k.applied(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: scale-limit
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments/scale]}
  validations:
  - expression: "object.kind == 'Scale' && oldObject.kind == 'Scale' && object.spec.replicas <= 3"
    messageExpression: "'scale ' + object.kind + ' from ' + string(oldObject.spec.replicas) + ' to ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: scale-limit-binding
spec:
  policyName: scale-limit
  validationActions: [Deny]
"#,
    );
    k.applied(&deployment("web", "default", 1, ""));
    let ok = k.run_as(None, &["scale", "deployment", "web", "--replicas=3"], None);
    assert_eq!(ok.code, 0, "{ok:?}");
    let denied = k.run_as(None, &["scale", "deployment", "web", "--replicas=5"], None);
    assert_eq!(denied.code, 1, "{denied:?}");
    assert!(
        denied.stderr.contains(
            "ValidatingAdmissionPolicy 'scale-limit' with binding 'scale-limit-binding' denied \
             request: scale Scale from 3 to 5"
        ),
        "{denied:?}"
    );
}

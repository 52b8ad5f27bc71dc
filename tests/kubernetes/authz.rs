//! `kubernetes.authz` and `kubernetes.authzSelectors`.

use std::sync::Arc;

use kcel::{Env, Type, Value};
use kcel_stdlib::kubernetes::authz::{
    AUTHORIZER, AuthzRequest, Decision, DecisionKind, DenyAll, Rule, RuleAuthorizer, UserInfo,
};
use kcel_stdlib::kubernetes::selectors::{FieldRequirement, LabelRequirement};
use kcel_stdlib::kubernetes::{Authorizer, authorizer_value};

use super::support::*;

const RESOURCE: &str = "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')";

fn cases() -> Vec<Case> {
    vec![
        t(
            "authorizer.path('/healthz').check('get').allowed()",
            "spec (allow-all)",
        ),
        t(
            "authorizer.group('apps').resource('deployments').check('create').allowed()",
            "spec",
        ),
        v(
            "authorizer.path('/healthz').check('get').reason()",
            "''",
            "spec",
        ),
        t(
            "!authorizer.path('/healthz').check('get').errored()",
            "spec",
        ),
        v(
            "authorizer.path('/healthz').check('get').error()",
            "''",
            "spec",
        ),
        e("authorizer.path('  ')", "path must not be empty", "spec"),
        e(
            "authorizer.group('apps').resource('')",
            "resource must not be empty",
            "spec",
        ),
        e(
            "authorizer.serviceAccount('default', 'Bad_Name')",
            "Invalid service account name",
            "spec",
        ),
        e(
            "authorizer.serviceAccount('Bad.NS', 'sa')",
            "Invalid service account namespace",
            "spec",
        ),
        t(
            "authorizer.serviceAccount('default', 'sa').group('').resource('pods').check('list').allowed()",
            "spec",
        ),
        t(
            "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list').allowed()",
            "spec",
        ),
        t(
            "type(authorizer) == kubernetes.authorization.Authorizer",
            "spec",
        ),
        t(
            "type(authorizer.path('/x').check('get')) == kubernetes.authorization.Decision",
            "spec",
        ),
        // Costs (ct:TestAuthzLibrary): check 350000, builders 1, selectors 10 + ⌈L×0.1⌉ + ⌈⌈L×0.5⌉×50⌉.
        ct(
            "authorizer.path('/healthz')",
            (2, 2),
            2,
            "ct:TestAuthzLibrary/path",
        ),
        ct(RESOURCE, (6, 6), 6, "ct:TestAuthzLibrary/resource"),
        ct(
            "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
            (1821, 1821),
            1821,
            "ct:TestAuthzLibrary/fieldSelector",
        ),
        ct(
            "authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
            (1821, 1821),
            1821,
            "ct:TestAuthzLibrary/labelSelector",
        ),
        ct(
            "authorizer.path('/healthz').check('get').allowed()",
            (350003, 350003),
            350003,
            "ct:TestAuthzLibrary/path check allowed",
        ),
        ct(
            "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
            (350007, 350007),
            350007,
            "ct:TestAuthzLibrary/resource check allowed",
        ),
        ct(
            "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()",
            (350007, 350007),
            350007,
            "ct:TestAuthzLibrary/resource check errored",
        ),
        ct(
            "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()",
            (350007, 350007),
            350007,
            "ct:TestAuthzLibrary/resource check error",
        ),
        sc(
            "authorizer.serviceAccount('ns', 'sa').path('/x').check('get').reason()",
            (350004, 350004),
            350004,
        ),
        sc(
            "authorizer.group('').resource('pods').labelSelector('')",
            (13, 13),
            13,
        ),
        // `==` on authorization types: 1 (estimated through `CostEstimator`, and at run time),
        // and always `no such overload`: upstream's `receiverOnlyObjectVal.Equal` asserts the
        // other value is a bare `receiverOnlyObjectVal`, which no library value is.
        Case {
            expr: "authorizer == authorizer",
            want: Want::Error("no such overload"),
            est: Some((3, 3)),
            rt: Some(3),
            src: "authz.go receiverOnlyObjectVal.Equal",
            ..T
        },
        // Another type through `dyn` (SPEC §2.11), while `!=` is `Equal(a, b) != true`.
        e("authorizer == dyn('x')", "no such overload", "spec 2.11"),
        v("authorizer != dyn('x')", "true", "cel-go evalNe"),
    ]
}

#[test]
fn authz() {
    run("kubernetes.authz", &cases(), 20);
}

fn eval_with(authorizer: Arc<dyn Authorizer>, expr: &str) -> Value {
    let mut env: Env = env();
    env.declare("authorizer", Type::Named(AUTHORIZER.into(), vec![]));
    let program = env.program(&env.compile(expr).unwrap()).unwrap();
    let mut vars = std::collections::HashMap::new();
    let user = UserInfo {
        name: "alice".into(),
        groups: vec!["dev".into()],
    };
    vars.insert("authorizer".to_string(), authorizer_value(user, authorizer));
    program.eval(&vars).unwrap()
}

#[test]
fn deny_all_and_rule_authorizers() {
    let deny: Arc<dyn Authorizer> = Arc::new(DenyAll);
    assert_eq!(
        eval_with(deny, "authorizer.path('/x').check('get').allowed()"),
        Value::Bool(false)
    );
    let rules: Arc<dyn Authorizer> = Arc::new(RuleAuthorizer {
        rules: vec![
            Rule {
                groups: vec!["dev".into()],
                verbs: vec!["get".into(), "list".into()],
                api_groups: vec!["apps".into()],
                resources: vec!["deployments".into(), "deployments/status".into()],
                namespaces: vec!["test".into()],
                ..Rule::default()
            },
            Rule {
                users: vec!["alice".into()],
                verbs: vec!["get".into()],
                non_resource_urls: vec!["/healthz/*".into()],
                ..Rule::default()
            },
        ],
    });
    let cases = [
        (
            "authorizer.group('apps').resource('deployments').namespace('test').check('list').allowed()",
            true,
        ),
        (
            "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').check('get').allowed()",
            true,
        ),
        (
            "authorizer.group('apps').resource('deployments').namespace('prod').check('list').allowed()",
            false,
        ),
        (
            "authorizer.group('apps').resource('deployments').namespace('test').check('delete').allowed()",
            false,
        ),
        (
            "authorizer.group('').resource('pods').namespace('test').check('get').allowed()",
            false,
        ),
        (
            "authorizer.path('/healthz/ready').check('get').allowed()",
            true,
        ),
        ("authorizer.path('/metrics').check('get').allowed()", false),
        (
            "authorizer.serviceAccount('test', 'sa').group('apps').resource('deployments').namespace('test').check('get').allowed()",
            false,
        ),
        (
            "authorizer.group('apps').resource('deployments').namespace('test').check('list').reason() == 'allowed by rule 0'",
            true,
        ),
    ];
    for (expr, want) in cases {
        assert_eq!(eval_with(rules.clone(), expr), Value::Bool(want), "{expr}");
    }
}

#[derive(Debug)]
struct Recorder(std::sync::Mutex<Vec<AuthzRequest>>);

impl Authorizer for Recorder {
    fn authorize(&self, r: &AuthzRequest) -> Decision {
        self.0.lock().unwrap().push(r.clone());
        Decision {
            kind: DecisionKind::Deny,
            reason: "nope".into(),
            error: Some("backend down".into()),
        }
    }
}

#[test]
fn requests_carry_every_attribute() {
    let rec = Arc::new(Recorder(Default::default()));
    let v = eval_with(
        rec.clone(),
        "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web').fieldSelector('a=b').labelSelector('c in (d)').check('update').error()",
    );
    assert_eq!(v, Value::from("backend down"));
    let r = rec.0.lock().unwrap()[0].clone();
    assert_eq!(
        r,
        AuthzRequest {
            user: UserInfo {
                name: "alice".into(),
                groups: vec!["dev".into()]
            },
            verb: "update".into(),
            resource_request: true,
            path: String::new(),
            api_group: "apps".into(),
            api_version: "*".into(),
            resource: "deployments".into(),
            subresource: "scale".into(),
            namespace: "ns".into(),
            name: "web".into(),
            field_selector: Some("a=b".into()),
            label_selector: Some("c in (d)".into()),
            field_selector_requirements: vec![FieldRequirement {
                operator: "=",
                field: "a".into(),
                value: "b".into(),
            }],
            field_selector_error: None,
            label_selector_requirements: vec![LabelRequirement {
                key: "c".into(),
                operator: "in",
                values: vec!["d".into()],
            }],
            label_selector_error: None,
        }
    );
}

/// apiserver `pkg/admission/plugin/cel/condition_test.go`, "test authorizer allow resource
/// check with parse failures" and "... with all fields": selectors that do not parse reach
/// the authorizer as parse errors (with Kubernetes' texts), and the check still runs.
#[test]
fn selector_parse_errors_go_to_the_authorizer() {
    let rec = Arc::new(Recorder(Default::default()));
    let v = eval_with(
        rec.clone(),
        "authorizer.group('apps').resource('deployments').fieldSelector('foo badoperator bar').labelSelector('apple badoperator banana').subresource('status').namespace('test').name('backend').check('create').reason()",
    );
    assert_eq!(v, Value::from("nope"));
    let r = rec.0.lock().unwrap()[0].clone();
    assert_eq!(
        r.field_selector_error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'")
    );
    assert_eq!(
        r.label_selector_error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(
            "unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt"
        )
    );
    assert!(r.field_selector_requirements.is_empty());
    assert!(r.label_selector_requirements.is_empty());

    // apiserver `pkg/endpoints/filters/authorization_test.go`: an invalid label key.
    let rec = Arc::new(Recorder(Default::default()));
    eval_with(
        rec.clone(),
        "authorizer.group('').resource('pods').fieldSelector('*bar').labelSelector('*bar').check('list').allowed()",
    );
    let r = rec.0.lock().unwrap()[0].clone();
    assert_eq!(
        r.field_selector_error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("invalid selector: '*bar'; can't understand '*bar'")
    );
    assert_eq!(
        r.label_selector_error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(
            "unable to parse requirement: <nil>: Invalid value: \"*bar\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        )
    );

    // An empty selector is no selector; a later call replaces an earlier one.
    let rec = Arc::new(Recorder(Default::default()));
    eval_with(
        rec.clone(),
        "authorizer.group('').resource('pods').fieldSelector('x').fieldSelector('').labelSelector('!a').labelSelector('b notin (c, d),e').check('list').allowed()",
    );
    let r = rec.0.lock().unwrap()[0].clone();
    assert_eq!((r.field_selector, r.field_selector_error), (None, None));
    assert!(r.field_selector_requirements.is_empty());
    assert_eq!(r.label_selector_error, None);
    assert_eq!(
        r.label_selector_requirements,
        vec![
            LabelRequirement {
                key: "b".into(),
                operator: "notin",
                values: vec!["c".into(), "d".into()],
            },
            LabelRequirement {
                key: "e".into(),
                operator: "exists",
                values: vec![],
            },
        ]
    );
}

//! The admission fixtures of `tests/admission/*.yaml` (the suites `kcel test` and `cargo
//! test --test admission` run through the library) driven through the server: one fixture
//! set, two drivers. For each case, the suite's CRDs and CRDs for the requested resources
//! and params of kinds the server does not serve are created (schemaless,
//! `x-kubernetes-preserve-unknown-fields`, when the suite declares none),
//! the request's Namespace labelled as the fixture's, its params created, the old object of
//! an UPDATE or DELETE stored (before any policy exists), then the policies and bindings
//! in effect (the suite's or the case's own) created over HTTPS, and the request made with
//! `dryRun=All` (a POST, a PUT of the new object, a DELETE); the server's answer (its
//! status message and code, its `Warning` headers, the object it would store, after the
//! suite's mutating policies) is compared with the case's expectations.
//!
//! The request of a case with `userInfo` is sent as that user: the admin impersonates it
//! (`Impersonate-User`, `-Uid`, `-Group`, `-Extra-<key>`), so admission sees its name, uid,
//! groups (with `system:authenticated`, which kube-apiserver adds) and extra. A case that
//! names no user is sent by the admin (`kcel-admin`, in `system:masters`) where the library's
//! request has an empty user: a policy whose outcome turned on that difference would fail
//! here. The server's authorizer is the suite's: a suite without one, or with `allow`, runs
//! on a server whose rules allow everything (the library does not authorize the request
//! itself, so neither may the server refuse it); a suite with `{rules: [...]}` runs on a
//! server started with those rules (`--authorization-rules`), and a case whose user the rules
//! do not allow the request itself (asked of the server with a SelfSubjectAccessReview as
//! that user) is skipped, as kube-apiserver would refuse it before admission. Each case of
//! such a suite runs a second time on a server without rules whose RBAC objects say the
//! same (a ClusterRole per rule, bound cluster-wide to its users and groups): the same cases
//! must pass both ways.
//!
//! An UPDATE of a subresource the server serves (`status`) is a PUT to it; an UPDATE without
//! an `oldObject` stores the object itself as the old one (only when no policy reads
//! `oldObject`, which the library leaves null). HorizontalPodAutoscalers are sent in the
//! version asked (`autoscaling/v1` or `v2`), Events in the core group or `events.k8s.io`.
//!
//! Cases are skipped, with the reason printed, when the server cannot reproduce them through
//! its API: requests for resources it does not serve, CONNECT requests, creates of
//! subresources (no API call makes one), deletes of Namespaces (finalized asynchronously),
//! a `deny` authorizer (a server's authorizer that denies every check also forbids the
//! request itself), a rule authorizer
//! with a case that names no user (the admin passes every check), policies reading
//! `authorizer` where the suite leaves it unbound, a `userInfo` without a user name (nothing
//! to impersonate), requests in a missing namespace other than a create expecting
//! NamespaceLifecycle's 404 (the plugin refuses them before any policy), policies or
//! bindings the server refuses as kube-apiserver's validation does (Kubernetes stores no
//! such object; their field errors are compared instead), and writes of the
//! admission-policy objects themselves (checked by the server before admission).
//! Requests for custom resources of a suite without CRDs are served by a schemaless CRD
//! serving every version the suite's cases request.

mod support;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};
use support::{Auth, Server};

const SERVED: &[(&str, &str)] = &[
    ("", "configmaps"),
    ("", "secrets"),
    ("", "services"),
    ("", "serviceaccounts"),
    ("", "events"),
    ("events.k8s.io", "events"),
    ("", "namespaces"),
    ("", "pods"),
    ("", "persistentvolumes"),
    ("", "persistentvolumeclaims"),
    ("apps", "daemonsets"),
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("autoscaling", "horizontalpodautoscalers"),
    ("batch", "jobs"),
    ("batch", "cronjobs"),
    ("coordination.k8s.io", "leases"),
    ("rbac.authorization.k8s.io", "roles"),
    ("rbac.authorization.k8s.io", "rolebindings"),
    ("rbac.authorization.k8s.io", "clusterroles"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"),
];

/// The served built-in resources that are cluster-scoped.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "namespaces"),
    ("", "persistentvolumes"),
    ("rbac.authorization.k8s.io", "clusterroles"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"),
];

/// The versions the server serves a built-in resource in: `autoscaling/v2` and
/// `autoscaling/v1` (converted) for HorizontalPodAutoscalers, `v1` for every other.
fn served_versions(group: &str, resource: &str) -> &'static [&'static str] {
    match (group, resource) {
        ("autoscaling", "horizontalpodautoscalers") => &["v2", "v1"],
        _ => &["v1"],
    }
}

/// The subresources the server serves for a built-in resource, which a case may update.
fn served_subresource(group: &str, resource: &str, subresource: &str) -> bool {
    let status = [
        ("", "pods"),
        ("", "services"),
        ("", "namespaces"),
        ("", "persistentvolumes"),
        ("", "persistentvolumeclaims"),
        ("apps", "deployments"),
        ("apps", "daemonsets"),
        ("apps", "replicasets"),
        ("apps", "statefulsets"),
        ("autoscaling", "horizontalpodautoscalers"),
        ("batch", "jobs"),
        ("batch", "cronjobs"),
    ];
    subresource == "status" && status.contains(&(group, resource))
}

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_norway::from_str(&text).unwrap()
}

fn warnings_of(reply: &support::Reply) -> Vec<String> {
    reply
        .headers
        .get_all("warning")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("299 - \""))
        .map(|v| {
            v.strip_suffix('"')
                .unwrap_or(v)
                .replace("\\\"", "\"")
                .replace("\\\\", "\\")
        })
        .collect()
}

fn collection(group: &str, version: &str, resource: &str, namespace: &str) -> String {
    let root = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    if namespace.is_empty() || CLUSTER_SCOPED.contains(&(group, resource)) {
        format!("{root}/{resource}")
    } else {
        format!("{root}/namespaces/{namespace}/{resource}")
    }
}

const ADMISSION: &str = "/apis/admissionregistration.k8s.io/v1";

/// Cases whose request the server changes before admission, as kube-apiserver does, so the
/// library's answer for the request as written is not the server's (file, case, reason).
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "04-required-labels.yaml",
        "without a request name, the object's generateName is used",
        "the server generates the name after mutating admission and before validating \
         admission (kube-apiserver's registry, `store.go` `create`), so the denial names the \
         generated object",
    ),
    (
        "25-match-policy.yaml",
        "the rule's own version matches both policies",
        "two policies deny: the library reports the suite's first, the server the first by \
         name (its store's order); kube-apiserver's order is its policy map's \
         (policy/generic/policy_source.go calculatePolicyData ranges over a Go map), so \
         neither is upstream's to reproduce",
    ),
];

/// Why the server cannot reproduce a case, if it cannot.
/// The suites' request objects are partial, as upstream's admission tests write them; the
/// server validates a built-in object before its validating policies, as kube-apiserver
/// does (the strategy's validation, then admission), so a Deployment is given the selector,
/// template labels and container its validation requires, a Pod or Job a container (a Job
/// also the restart policy a Job's pods must have), a HorizontalPodAutoscaler a scale target
/// and a maximum of replicas, and a Service a port, where it has none
/// (fields the suites' policies do not read; a container without `example.com/` in its
/// image is one 10-variables.yaml's policy leaves out).
fn complete(object: &mut Value) {
    let kind = object["kind"].as_str().unwrap_or_default().to_owned();
    let completed = [
        "Deployment",
        "Service",
        "Pod",
        "Job",
        "HorizontalPodAutoscaler",
    ];
    if !completed.contains(&kind.as_str()) {
        return;
    }
    let spec = &mut object["spec"];
    match kind.as_str() {
        "HorizontalPodAutoscaler" => {
            if spec["scaleTargetRef"].is_null() {
                spec["scaleTargetRef"] =
                    json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "fixture"});
            }
            if spec["maxReplicas"].is_null() {
                spec["maxReplicas"] = json!(1);
            }
        }
        "Pod" => {
            let containers = &mut spec["containers"];
            if containers.as_array().is_none_or(Vec::is_empty) {
                *containers = json!([{"name": "fixture", "image": "fixture"}]);
            }
        }
        "Job" => {
            let pod = &mut spec["template"]["spec"];
            if pod["containers"].as_array().is_none_or(Vec::is_empty) {
                pod["containers"] = json!([{"name": "fixture", "image": "fixture"}]);
            }
            if pod["restartPolicy"].is_null() {
                pod["restartPolicy"] = json!("Never");
            }
        }
        "Deployment" => {
            if spec["selector"].is_null() {
                spec["selector"] = json!({"matchLabels": {"fixture": "deployment"}});
                spec["template"]["metadata"]["labels"]["fixture"] = json!("deployment");
            }
            let containers = &mut spec["template"]["spec"]["containers"];
            if containers.as_array().is_none_or(Vec::is_empty) {
                *containers = json!([{"name": "fixture", "image": "fixture"}]);
            }
        }
        "Service" if spec["ports"].is_null() => {
            spec["ports"] = json!([{"port": 80}]);
        }
        _ => {}
    }
}

/// Whether `group` is one a CRD may define (a domain of another owner than Kubernetes),
/// so a request for a resource of it is served through a schemaless CRD ([`request_crd`]).
fn custom_group(group: &str) -> bool {
    group.contains('.') && !group.ends_with(".k8s.io") && !group.ends_with(".kubernetes.io")
}

/// A schemaless CRD serving the request's resource, unless the suite declares one.
fn request_crd(suite: &Value, request: &Value) -> Option<Value> {
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let resource = request["resource"]["resource"].as_str().unwrap_or("");
    if SERVED.contains(&(group, resource)) || suite_serves(suite, group, resource) {
        return None;
    }
    let version = request["resource"]["version"].as_str().unwrap_or("v1");
    let kind = request["kind"]["kind"].as_str().unwrap_or("");
    let namespaced = request["namespace"].as_str().is_some_and(|n| !n.is_empty());
    let mut crd = params_crd(&format!("{group}/{version}"), kind, namespaced);
    crd["metadata"]["name"] = json!(format!("{resource}.{group}"));
    crd["spec"]["names"]["plural"] = json!(resource);
    // Every version the suite's cases request, as upstream's integration tests declare
    // them (conversion None); the first requested is the storage version.
    let mut versions: Vec<&str> = Vec::new();
    for case in suite["cases"].as_array().into_iter().flatten() {
        let r = &case["request"]["resource"];
        if r["group"] == group
            && r["resource"] == resource
            && let Some(v) = r["version"].as_str()
            && !versions.contains(&v)
        {
            versions.push(v);
        }
    }
    let schema = crd["spec"]["versions"][0]["schema"].clone();
    crd["spec"]["versions"] = (versions.iter().enumerate())
        .map(|(i, v)| json!({"name": v, "served": true, "storage": i == 0, "schema": schema}))
        .collect();
    Some(crd)
}

/// Whether one of the suite's CRDs serves `resource` of `group`.
fn suite_serves(suite: &Value, group: &str, resource: &str) -> bool {
    suite["crds"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|crd| crd["spec"]["group"] == group && crd["spec"]["names"]["plural"] == resource)
}

fn skip_reason(suite: &Value, case: &Value) -> Option<String> {
    let request = &case["request"];
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let resource = request["resource"]["resource"].as_str().unwrap_or("");
    let version = request["resource"]["version"].as_str().unwrap_or("");
    let policy_resources = [
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
        "mutatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
    ];
    if group == "admissionregistration.k8s.io"
        && version == "v1"
        && policy_resources.contains(&resource)
    {
        return Some(
            "a write of an admission-policy object itself (exempt from policies): the server \
             serves them, but checks the written object first as kube-apiserver does, and the \
             case's partial object is not a valid one, or is the suite's own policy or binding"
                .into(),
        );
    }
    if !SERVED.contains(&(group, resource))
        && !suite_serves(suite, group, resource)
        && !custom_group(group)
    {
        let beta_off = if group == "admissionregistration.k8s.io" && version.contains("beta") {
            "; nor does kube-apiserver by default: beta APIs are served only when enabled \
             with `--runtime-config`"
        } else {
            ""
        };
        return Some(format!(
            "the server does not serve {resource}.{group}/{version}{beta_off}"
        ));
    }
    let served = served_versions(group, resource);
    // The driver's own CRDs serve every version the suite requests ([`request_crd`]).
    let driver_crd = !SERVED.contains(&(group, resource)) && !suite_serves(suite, group, resource);
    if !served.contains(&version) && !driver_crd {
        return Some(if SERVED.contains(&(group, resource)) {
            format!("the server serves {resource}.{group} in {served:?} only")
        } else {
            "the driver serves the suite's custom resources in v1 only".into()
        });
    }
    match request["operation"].as_str() {
        Some("CREATE" | "UPDATE") => {}
        Some("DELETE") if resource == "namespaces" => {
            return Some(
                "a Namespace delete is finalized asynchronously (the namespace would not be \
                 free for the next case)"
                    .into(),
            );
        }
        Some("DELETE") => {}
        other => return Some(format!("a {other:?} request has no API call to make")),
    }
    let text = serde_json::to_string(&[
        &suite["policies"],
        &case["policies"],
        &suite["mutatingPolicies"],
    ])
    .unwrap();
    if request["operation"] == "UPDATE"
        && request["oldObject"].is_null()
        && text.contains("oldObject")
    {
        return Some(
            "an UPDATE without an oldObject, whose policies read oldObject (the server's \
             update has the stored object as its oldObject)"
                .into(),
        );
    }
    if let Some(sub) = request["subResource"].as_str() {
        if request["operation"] != "UPDATE" {
            return Some(format!(
                "a {} of the {sub} subresource (no API call makes one)",
                request["operation"].as_str().unwrap_or("")
            ));
        }
        if !served_subresource(group, resource, sub) {
            return Some(format!("the server does not serve {resource}/{sub}"));
        }
    }
    let user = &request["userInfo"];
    if !user.is_null() && user["username"].as_str().is_none_or(str::is_empty) {
        return Some(
            "a userInfo without a user name (kube-apiserver impersonates only a named user)".into(),
        );
    }
    match &suite["authorizer"] {
        Value::String(s) if s == "deny" => {
            return Some(
                "a `deny` authorizer: a server whose authorizer denies every check also \
                 forbids the request itself, and its admin (system:masters) passes every check"
                    .into(),
            );
        }
        Value::Object(_) if user.is_null() => {
            return Some(
                "a rule authorizer with a case that names no user: the server's admin (in \
                 system:masters) passes every check the rules may deny"
                    .into(),
            );
        }
        _ => {}
    }
    if text.contains("authorizer") && suite["authorizer"].is_null() {
        return Some(
            "the policies read `authorizer`, which the suite leaves unbound (the server always \
             binds it)"
                .into(),
        );
    }
    if text.contains("request.uid") || text.contains("dryRun") {
        return Some("the policies read the request's uid or dryRun".into());
    }
    let file_case = (
        suite["file"].as_str().unwrap_or(""),
        case["name"].as_str().unwrap_or(""),
    );
    for (file, prefix, reason) in KNOWN_DIFFERENCES {
        if file_case.0 == *file && file_case.1.starts_with(prefix) {
            return Some((*reason).to_owned());
        }
    }
    // A CRD made for the request is cluster-scoped when the request has no namespace.
    let namespaced_built_in =
        SERVED.contains(&(group, resource)) && !CLUSTER_SCOPED.contains(&(group, resource));
    if request["namespace"].as_str().is_none_or(str::is_empty) && namespaced_built_in {
        return Some(
            "a namespaced resource requested without a namespace (no API path makes one)".into(),
        );
    }
    let given = case.get("namespace").or_else(|| suite.get("namespace"));
    if given.is_some_and(Value::is_null) {
        let ns = request["namespace"].as_str().unwrap_or("");
        // kube-apiserver's first admission plugin, NamespaceLifecycle, refuses a create in
        // a missing namespace with 404 before any policy runs (the server as well); only a
        // case expecting that answer is upstream's to reproduce.
        let lifecycle = json!(format!("namespaces \"{ns}\" not found"));
        let refused_first =
            request["operation"] == "CREATE" && case["code"] == 404 && case["message"] == lifecycle;
        if !refused_first {
            return Some(format!(
                "a {} in a namespace that does not exist: kube-apiserver's NamespaceLifecycle \
                 admission plugin, which runs before the policy plugins, refuses a create with \
                 404 `namespaces \"{ns}\" not found`, and no object to update or delete can \
                 exist there, so the policies' view of the missing namespace is the library's \
                 only",
                request["operation"].as_str().unwrap_or("")
            ));
        }
    }
    let namespace = given.unwrap_or(&Value::Null);
    if request["namespace"].as_str().is_some_and(|n| !n.is_empty())
        && namespace["metadata"]["name"]
            .as_str()
            .is_some_and(|n| n != request["namespace"])
    {
        return Some("a namespace object named otherwise than the request's namespace".into());
    }
    None
}

/// Whether `actual` has what `expected` gives (maps by the keys given, recursively; lists
/// and scalars whole), as `kcel test` compares `mutated` (`kubernetes::suite::json_contains`).
fn contains(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|w| contains(v, w))),
        _ => expected == actual,
    }
}

/// Deletes every policy and binding.
async fn reset(server: &Server) {
    for plural in [
        "validatingadmissionpolicybindings",
        "validatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
        "mutatingadmissionpolicies",
    ] {
        let reply = server
            .send("DELETE", &format!("{ADMISSION}/{plural}"), None)
            .await;
        assert_eq!(reply.code, 200, "{}", reply.text());
    }
}

/// Creates the namespace if needed and gives it the fixture's labels.
async fn namespace(server: &Server, name: &str, labels: &Value) {
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    let reply = server.send("POST", "/api/v1/namespaces", Some(&ns)).await;
    assert!(matches!(reply.code, 201 | 409), "{}", reply.text());
    let reply = server
        .send("GET", &format!("/api/v1/namespaces/{name}"), None)
        .await;
    let mut ns = reply.json();
    let mut all = json!({"kubernetes.io/metadata.name": name});
    if let Some(labels) = labels.as_object() {
        for (k, v) in labels {
            all[k] = v.clone();
        }
    }
    ns["metadata"]["labels"] = all;
    let reply = server
        .send("PUT", &format!("/api/v1/namespaces/{name}"), Some(&ns))
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
}

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// Creates `crd` unless a CRD of its name exists (with the same scope: else an error, a
/// reason to skip), and waits until its resource is served.
async fn ensure_crd(server: &Server, crd: &Value) -> Result<(), String> {
    let name = crd["metadata"]["name"].as_str().unwrap_or("");
    let existing = server.send("GET", &format!("{CRDS}/{name}"), None).await;
    if existing.code == 200 {
        let scope = &existing.json()["spec"]["scope"];
        if *scope != crd["spec"]["scope"] {
            return Err(format!(
                "the CRD {name} exists with scope {scope} (another suite's)"
            ));
        }
        return Ok(());
    }
    let reply = server.send("POST", CRDS, Some(crd)).await;
    if reply.code != 201 {
        return Err(format!(
            "the server refuses the CRD {name}: {}",
            reply.text()
        ));
    }
    let spec = &crd["spec"];
    let version = spec["versions"][0]["name"].as_str().unwrap_or("v1");
    let list = format!(
        "/apis/{}/{version}/{}",
        spec["group"].as_str().unwrap_or(""),
        spec["names"]["plural"].as_str().unwrap_or("")
    );
    for _ in 0..200 {
        if server.send("GET", &list, None).await.code == 200 {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    Err(format!("the CRD {name} is not served after 5 s"))
}

/// The plural of a built-in params kind the server serves (namespaced, all of them).
fn builtin_plural(api_version: &str, kind: &str) -> Option<&'static str> {
    match (api_version, kind) {
        ("v1", "ConfigMap") => Some("configmaps"),
        ("v1", "Secret") => Some("secrets"),
        ("v1", "ServiceAccount") => Some("serviceaccounts"),
        ("autoscaling/v1" | "autoscaling/v2", "HorizontalPodAutoscaler") => {
            Some("horizontalpodautoscalers")
        }
        _ => None,
    }
}

/// A CRD serving params of `kind` of `api_version` that the server does not serve
/// otherwise: no schema (every field preserved), namespaced if the params are.
fn params_crd(api_version: &str, kind: &str, namespaced: bool) -> Value {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = format!("{}s", kind.to_lowercase());
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind,
                      "listKind": format!("{kind}List")},
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{"name": version, "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    })
}

/// Creates the case's params (their kind as given, else the policies' paramKind, else
/// ConfigMap); the paths of those created.
async fn create_params(
    server: &Server,
    suite: &Value,
    case: &Value,
) -> Result<Vec<String>, String> {
    let params: Vec<Value> = (case.get("params").unwrap_or(&suite["params"]).as_array())
        .cloned()
        .unwrap_or_default();
    let policies = [
        case.get("policies").unwrap_or(&suite["policies"]),
        &suite["mutatingPolicies"],
    ];
    let param_kind = policies
        .iter()
        .flat_map(|p| p.as_array().into_iter().flatten())
        .map(|p| &p["spec"]["paramKind"])
        .find(|k| k.is_object())
        .cloned()
        .unwrap_or(Value::Null);
    let kind_of = |p: &Value| {
        let field = |f: &str, default: &str| {
            (p[f].as_str().or(param_kind[f].as_str()))
                .unwrap_or(default)
                .to_owned()
        };
        (field("apiVersion", "v1"), field("kind", "ConfigMap"))
    };
    let mut created: Vec<String> = Vec::new();
    for p in &params {
        let mut p = p.clone();
        let (api_version, kind) = kind_of(&p);
        let (group, version) = api_version.split_once('/').unwrap_or(("", &api_version));
        let given_ns = p["metadata"]["namespace"].as_str().map(str::to_owned);
        let (plural, pns) = match builtin_plural(&api_version, &kind) {
            Some(plural) => (
                plural.to_owned(),
                given_ns.unwrap_or_else(|| "default".to_owned()),
            ),
            None => {
                let namespaced = given_ns.is_some();
                ensure_crd(server, &params_crd(&api_version, &kind, namespaced)).await?;
                (
                    format!("{}s", kind.to_lowercase()),
                    given_ns.unwrap_or_default(),
                )
            }
        };
        if !pns.is_empty() && pns != "default" {
            // Created if missing; the request's namespace keeps its labels.
            let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": pns}});
            let reply = server.send("POST", "/api/v1/namespaces", Some(&ns)).await;
            assert!(matches!(reply.code, 201 | 409), "{}", reply.text());
        }
        p["apiVersion"] = json!(api_version);
        p["kind"] = json!(kind);
        let path = collection(group, version, &plural, &pns);
        let reply = server.send("POST", &path, Some(&p)).await;
        if reply.code != 201 {
            for path in &created {
                server.send("DELETE", path, None).await;
            }
            return Err(format!("the params object is refused: {}", reply.text()));
        }
        created.push(format!(
            "{path}/{}",
            p["metadata"]["name"].as_str().unwrap_or("")
        ));
    }
    Ok(created)
}

/// The request's object (or old object) as the API call sends it: typed, named, completed.
fn sent_object(request: &Value, field: &str) -> Value {
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let version = request["kind"]["version"].as_str().unwrap_or("v1");
    let mut object = match &request[field] {
        Value::Null => json!({"metadata": {}}),
        object => object.clone(),
    };
    object["apiVersion"] = json!(if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    });
    object["kind"] = request["kind"]["kind"].clone();
    if object["metadata"]["name"].is_null() {
        object["metadata"]["name"] = request["name"].clone();
    }
    complete(&mut object);
    object
}

/// The rules of the server a suite runs on: its own `{rules: [...]}`, else rules that allow
/// every request and every check (`authorizer: allow`, or none: the library does not
/// authorize the request itself).
fn server_rules(suite: &Value) -> Value {
    match &suite["authorizer"] {
        rules @ Value::Object(_) => rules.clone(),
        _ => json!({"rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                               "nonResourceURLs": ["*"]}]}),
    }
}

/// A suite's rules as RBAC objects (kind, plural, object): one ClusterRole per rule, bound
/// cluster-wide to the rule's users and groups, or to every authenticated user when it
/// names none or `*` (every request here is authenticated). `None` when a rule is limited
/// to namespaces (its RoleBindings would need the cases' namespaces first).
fn rbac_objects(rules: &Value) -> Option<Vec<(&'static str, Value)>> {
    let mut objects = Vec::new();
    for (i, rule) in rules["rules"].as_array()?.iter().enumerate() {
        let list = |key: &str| rule[key].as_array().cloned().unwrap_or_default();
        if list("namespaces").iter().any(|n| n != "*") {
            return None;
        }
        let mut policy_rules = Vec::new();
        if !list("resources").is_empty() {
            let mut r = json!({"verbs": list("verbs"), "apiGroups": list("apiGroups"),
                               "resources": list("resources")});
            if !list("resourceNames").is_empty() {
                r["resourceNames"] = json!(list("resourceNames"));
            }
            policy_rules.push(r);
        }
        if !list("nonResourceURLs").is_empty() {
            policy_rules
                .push(json!({"verbs": list("verbs"), "nonResourceURLs": list("nonResourceURLs")}));
        }
        let subject = |kind: &str, name: &Value| json!({"kind": kind, "apiGroup": "rbac.authorization.k8s.io", "name": name});
        let (users, groups) = (list("users"), list("groups"));
        let mut subjects: Vec<Value> = users.iter().map(|u| subject("User", u)).collect();
        subjects.extend(groups.iter().map(|g| subject("Group", g)));
        if subjects.is_empty() || users.iter().chain(&groups).any(|n| n == "*") {
            subjects = vec![subject("Group", &json!("system:authenticated"))];
        }
        let name = format!("fixture-rule-{i}");
        objects.push((
            "clusterroles",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                   "metadata": {"name": name}, "rules": policy_rules}),
        ));
        objects.push((
            "clusterrolebindings",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": name}, "subjects": subjects,
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                               "name": name}}),
        ));
    }
    Some(objects)
}

/// The servers, one per set of rules (and one per set of RBAC objects), started when first
/// needed.
#[derive(Default)]
struct Servers {
    running: HashMap<String, Server>,
    rule_files: Vec<tempfile::TempDir>,
}

impl Servers {
    /// A server without rules whose RBAC objects are `objects` (created by the admin).
    async fn with_rbac(&mut self, objects: &[(&str, Value)]) -> &Server {
        let key = format!(
            "rbac:{}",
            json!(objects.iter().map(|o| &o.1).collect::<Vec<_>>())
        );
        if !self.running.contains_key(&key) {
            let server = Server::start(&["--storage", "memory"]);
            for (plural, object) in objects {
                let path = format!("/apis/rbac.authorization.k8s.io/v1/{plural}");
                let reply = server.send("POST", &path, Some(object)).await;
                assert_eq!(reply.code, 201, "{}", reply.text());
            }
            self.running.insert(key.clone(), server);
        }
        &self.running[&key]
    }

    fn for_suite(&mut self, suite: &Value) -> &Server {
        let rules = server_rules(suite);
        let key = rules.to_string();
        if !self.running.contains_key(&key) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("rules.json");
            std::fs::write(&path, &key).unwrap();
            let path = path.display().to_string();
            let server = Server::start(&["--storage", "memory", "--authorization-rules", &path]);
            self.rule_files.push(dir);
            self.running.insert(key.clone(), server);
        }
        &self.running[&key]
    }
}

/// client-go's escaping of an `Impersonate-Extra-` key (`headerKeyEscape`): bytes outside
/// the header token characters, and `%`, percent-encoded.
fn extra_header_key(key: &str) -> String {
    key.bytes()
        .map(|b| {
            let token = b.is_ascii_alphanumeric() || b"!#$&'*+-.^_`|~".contains(&b);
            if token {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The headers that make the admin's request the case user's (`kubectl --as`): none when
/// the case names no user.
fn impersonation_headers(user: &Value) -> Vec<(String, String)> {
    let Some(name) = user["username"].as_str() else {
        return Vec::new();
    };
    let mut headers = vec![("impersonate-user".to_owned(), name.to_owned())];
    if let Some(uid) = user["uid"].as_str().filter(|u| !u.is_empty()) {
        headers.push(("impersonate-uid".to_owned(), uid.to_owned()));
    }
    for group in user["groups"].as_array().into_iter().flatten() {
        headers.push((
            "impersonate-group".to_owned(),
            group.as_str().unwrap_or("").to_owned(),
        ));
    }
    for (key, values) in user["extra"].as_object().into_iter().flatten() {
        let header = format!("impersonate-extra-{}", extra_header_key(key));
        for value in values.as_array().into_iter().flatten() {
            headers.push((header.clone(), value.as_str().unwrap_or("").to_owned()));
        }
    }
    headers
}

/// Sends a request as the case's user: the admin's, impersonating it.
async fn send_as(
    server: &Server,
    user: &Value,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> support::Reply {
    let mut headers = impersonation_headers(user);
    let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
    if bytes.is_some() {
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
    }
    let headers: Vec<(&str, &str)> = (headers.iter())
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    (server.request_with(method, path, bytes, Auth::Admin, &headers)).await
}

/// Whether the server's rules let the case's user make the request itself (a
/// SelfSubjectAccessReview sent as that user); why not, if they do not.
async fn request_allowed(server: &Server, request: &Value) -> Result<(), String> {
    let verb = request["operation"].as_str().unwrap_or("").to_lowercase();
    let name = match verb.as_str() {
        "create" => "",
        _ => request["name"]
            .as_str()
            .or(request["oldObject"]["metadata"]["name"].as_str())
            .unwrap_or(""),
    };
    let review = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {
            "verb": verb,
            "group": request["resource"]["group"],
            "version": request["resource"]["version"],
            "resource": request["resource"]["resource"],
            "namespace": request["namespace"].as_str().unwrap_or(""),
            "name": name,
        }},
    });
    let reply = send_as(
        server,
        &request["userInfo"],
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        Some(&review),
    )
    .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    if reply.json()["status"]["allowed"] == true {
        return Ok(());
    }
    Err(format!(
        "the suite's rules do not allow {} to {verb} {} (kube-apiserver refuses the request \
         before admission)",
        request["userInfo"]["username"],
        request["resource"]["resource"].as_str().unwrap_or("")
    ))
}

/// The outcome of one case, or why it cannot run.
async fn run_case(server: &Server, suite: &Value, case: &Value) -> Result<Vec<String>, String> {
    if suite["authorizer"].is_object() {
        request_allowed(server, &case["request"]).await?;
    }
    reset(server).await;
    for crd in suite["crds"].as_array().into_iter().flatten() {
        ensure_crd(server, crd).await?;
    }
    let request = &case["request"];
    if let Some(crd) = request_crd(suite, request) {
        ensure_crd(server, &crd).await?;
    }
    let ns = request["namespace"].as_str().unwrap_or("");
    let given = case.get("namespace").or_else(|| suite.get("namespace"));
    if given.is_some_and(Value::is_null) {
        // A namespace that must not exist (`namespace: null`).
        let path = format!("/api/v1/namespaces/{ns}");
        if server.send("GET", &path, None).await.code != 404 {
            return Err(format!(
                "the namespace {ns} exists (an earlier case's; namespaces are deleted \
                 asynchronously)"
            ));
        }
    } else if !ns.is_empty() {
        namespace(
            server,
            ns,
            &given.unwrap_or(&Value::Null)["metadata"]["labels"],
        )
        .await;
    }
    let created = create_params(server, suite, case).await?;
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let resource = request["resource"]["resource"].as_str().unwrap_or("");
    let version = request["kind"]["version"].as_str().unwrap_or("v1");
    let collection_path = collection(group, version, resource, ns);
    let name = request["name"]
        .as_str()
        .or(request["oldObject"]["metadata"]["name"].as_str())
        .unwrap_or("")
        .to_owned();
    let target = format!("{collection_path}/{name}");
    let operation = request["operation"].as_str().unwrap_or("CREATE");
    // The old object of an UPDATE or DELETE, stored before any policy exists.
    let stored = if operation == "CREATE" {
        false
    } else {
        server.send("DELETE", &target, None).await;
        // An UPDATE without an oldObject (its policies do not read it): the object itself.
        let field = match request["oldObject"].is_null() {
            true => "object",
            false => "oldObject",
        };
        let old = sent_object(request, field);
        let reply = server.send("POST", &collection_path, Some(&old)).await;
        if reply.code != 201 {
            for param in &created {
                server.send("DELETE", param, None).await;
            }
            return Err(format!(
                "the old object is refused: {}",
                reply.json()["message"]
            ));
        }
        true
    };
    let outcome = judge(server, suite, case, &collection_path, &target).await;
    // The params and the old object are deleted once no policy judges their deletion.
    reset(server).await;
    for param in created {
        let deleted = server.send("DELETE", &param, None).await;
        assert_eq!(deleted.code, 200, "{}", deleted.text());
    }
    if stored {
        let deleted = server.send("DELETE", &target, None).await;
        assert!(matches!(deleted.code, 200 | 202), "{}", deleted.text());
    }
    outcome
}

/// Creates the policies in effect and makes the request (`dryRun=All`); the mismatches
/// with the case's expectations.
async fn judge(
    server: &Server,
    suite: &Value,
    case: &Value,
    collection_path: &str,
    target: &str,
) -> Result<Vec<String>, String> {
    let request = &case["request"];
    let policies = case.get("policies").unwrap_or(&suite["policies"]);
    for policy in policies.as_array().into_iter().flatten() {
        let mut policy = policy.clone();
        policy["apiVersion"] = json!("admissionregistration.k8s.io/v1");
        policy["kind"] = json!("ValidatingAdmissionPolicy");
        let reply = server
            .send(
                "POST",
                &format!("{ADMISSION}/validatingadmissionpolicies"),
                Some(&policy),
            )
            .await;
        if reply.code != 201 {
            return Err(format!(
                "the policy is refused as kube-apiserver refuses it (the policy's validation, \
                 `ValidateValidatingAdmissionPolicy`), so no cluster holds it: {}",
                reply.json()["message"]
            ));
        }
    }
    let bindings = case.get("bindings").unwrap_or(&suite["bindings"]);
    for binding in bindings.as_array().into_iter().flatten() {
        let mut binding = binding.clone();
        binding["apiVersion"] = json!("admissionregistration.k8s.io/v1");
        binding["kind"] = json!("ValidatingAdmissionPolicyBinding");
        let reply = server
            .send(
                "POST",
                &format!("{ADMISSION}/validatingadmissionpolicybindings"),
                Some(&binding),
            )
            .await;
        if reply.code != 201 {
            return Err(format!(
                "the binding is refused as kube-apiserver refuses it (the binding's \
                 validation, `ValidateValidatingAdmissionPolicyBinding`), so no cluster holds \
                 it: {}",
                reply.json()["message"]
            ));
        }
    }
    // The suite's mutating policies and bindings (each suite's own).
    for (field, plural, kind) in [
        (
            "mutatingPolicies",
            "mutatingadmissionpolicies",
            "MutatingAdmissionPolicy",
        ),
        (
            "mutatingBindings",
            "mutatingadmissionpolicybindings",
            "MutatingAdmissionPolicyBinding",
        ),
    ] {
        for object in suite[field].as_array().into_iter().flatten() {
            let mut object = object.clone();
            object["apiVersion"] = json!("admissionregistration.k8s.io/v1");
            object["kind"] = json!(kind);
            let reply = server
                .send("POST", &format!("{ADMISSION}/{plural}"), Some(&object))
                .await;
            if reply.code != 201 {
                return Err(format!(
                    "the {kind} is refused as kube-apiserver refuses it (its validation), so \
                     no cluster holds it: {}",
                    reply.json()["message"]
                ));
            }
        }
    }
    let user = &request["userInfo"];
    let reply = match request["operation"].as_str() {
        Some("UPDATE") => {
            let object = sent_object(request, "object");
            let path = match request["subResource"].as_str() {
                Some(sub) => format!("{target}/{sub}?dryRun=All"),
                None => format!("{target}?dryRun=All"),
            };
            send_as(server, user, "PUT", &path, Some(&object)).await
        }
        Some("DELETE") => {
            let path = format!("{target}?dryRun=All");
            send_as(server, user, "DELETE", &path, None).await
        }
        _ => {
            let object = sent_object(request, "object");
            let path = format!("{collection_path}?dryRun=All");
            send_as(server, user, "POST", &path, Some(&object)).await
        }
    };
    let mut mismatches = Vec::new();
    // A panic's answer is plain text (kube-apiserver's panic recovery), its text the message.
    let (message, code) = match reply.code {
        200..=202 => (Value::Null, Value::Null),
        code if reply.content_type.starts_with("text/plain") => {
            (json!(reply.text().trim_end()), json!(code))
        }
        code => (reply.json()["message"].clone(), json!(code)),
    };
    let expected_message = case.get("message").cloned().unwrap_or(Value::Null);
    if message != expected_message {
        mismatches.push(format!(
            "message: expected {expected_message}, got {message}"
        ));
    }
    if let Some(expected) = case.get("code")
        && *expected != code
    {
        mismatches.push(format!("code: expected {expected}, got {code}"));
    }
    if let Some(expected) = case.get("mutated") {
        let got = if matches!(reply.code, 200 | 201) {
            reply.json()
        } else {
            Value::Null
        };
        if !contains(expected, &got) {
            mismatches.push(format!("mutated: expected {expected}, got {got}"));
        }
    }
    if let Some(expected) = case.get("warnings") {
        let got = json!(warnings_of(&reply));
        if *expected != got {
            mismatches.push(format!("warnings: expected {expected}, got {got}"));
        }
    }
    Ok(mismatches)
}

#[tokio::test]
async fn admission_fixtures_through_the_server() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/admission");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let mut servers = Servers::default();
    let (mut passed, mut failed, mut skipped) = (0, Vec::new(), 0);
    // The cases of rule-authorizer suites, run again with the rules as RBAC objects: how
    // many pass each way.
    let (mut by_rules, mut by_rbac) = (0, 0);
    for path in &paths {
        let mut suite = load(path);
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        suite["file"] = json!(file);
        for case in suite["cases"].as_array().into_iter().flatten() {
            let name = format!("{file}: {}", case["name"].as_str().unwrap_or("?"));
            if let Some(reason) = case["skip"].as_str() {
                println!("skipped: {name} (skipped in the fixture: {reason})");
                skipped += 1;
                continue;
            }
            if let Some(reason) = skip_reason(&suite, case) {
                println!("skipped: {name} ({reason})");
                skipped += 1;
                continue;
            }
            match run_case(servers.for_suite(&suite), &suite, case).await {
                Err(reason) => {
                    println!("skipped: {name} ({reason})");
                    skipped += 1;
                }
                Ok(m) if m.is_empty() => {
                    passed += 1;
                    by_rules += usize::from(suite["authorizer"].is_object());
                }
                Ok(m) => {
                    println!("FAILED: {name}: {}", m.join("; "));
                    failed.push(name.clone());
                }
            }
            let Some(objects) = rbac_objects(&suite["authorizer"]) else {
                continue;
            };
            match run_case(servers.with_rbac(&objects).await, &suite, case).await {
                Err(reason) => println!("skipped with RBAC objects: {name} ({reason})"),
                Ok(m) if m.is_empty() => by_rbac += 1,
                Ok(m) => {
                    println!("FAILED with RBAC objects: {name}: {}", m.join("; "));
                    failed.push(format!("{name} (RBAC objects)"));
                }
            }
        }
    }
    println!(
        "admission fixtures through the server: {passed} passed, {} failed, {skipped} skipped",
        failed.len()
    );
    println!(
        "rule-authorizer cases: {by_rules} passed with --authorization-rules, {by_rbac} with \
         the rules as RBAC objects"
    );
    assert!(failed.is_empty(), "failed: {failed:#?}");
    assert!(passed > 0);
    assert!(
        by_rules > 0 && by_rbac == by_rules,
        "RBAC objects should pass the cases the rule file passes"
    );
}

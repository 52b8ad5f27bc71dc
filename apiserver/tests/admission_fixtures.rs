//! The admission fixtures of `tests/admission/*.yaml` (the suites `kcel test` and `cargo
//! test --test admission` run through the library) driven through the server: one fixture
//! set, two drivers. For each case, the policies and bindings in effect (the suite's or the
//! case's own) are created over HTTPS, the request's Namespace labelled as the fixture's,
//! its ConfigMap params created, and the request's object written with `dryRun=All`; the
//! server's answer (its status message and code, its `Warning` headers, the object it would
//! store, after the suite's mutating policies) is compared with the case's expectations.
//!
//! Cases are skipped, with the reason printed, when the server cannot reproduce them through
//! its API: requests for resources it does not serve, operations other than CREATE (the
//! old object would have to be stored first, through the same policies), requests naming a
//! user or suites with a fixed authorizer (the server's requests come from its
//! authenticated user), params of kinds other than ConfigMap, missing namespaces, policies
//! or bindings the server refuses (Kubernetes stores no such object; their field errors
//! are compared instead), and the admission-policy resources themselves.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::Server;

const SERVED: &[(&str, &str)] = &[
    ("", "configmaps"),
    ("", "secrets"),
    ("", "services"),
    ("", "serviceaccounts"),
    ("", "events"),
    ("", "namespaces"),
    ("apps", "deployments"),
    ("coordination.k8s.io", "leases"),
];

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
    if namespace.is_empty() || resource == "namespaces" {
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
        "the server generates the name before admission (kube-apiserver's BeforeCreate), so \
         the denial names the generated object",
    ),
    (
        "18-cost-budgets.yaml",
        "",
        "the objects carry `items`, which ConfigMaps and Secrets do not have: the server drops \
         unknown fields when decoding, as kube-apiserver",
    ),
];

/// Why the server cannot reproduce a case, if it cannot.
/// The suites' request objects are partial, as upstream's admission tests write them; the
/// server validates a built-in object before its validating policies, as kube-apiserver
/// does (the strategy's validation, then admission), so a Deployment is given the selector,
/// template labels and container its validation requires, and a Service a port, where it
/// has none (fields the suites' policies do not read; a container without `example.com/`
/// in its image is one 10-variables.yaml's policy leaves out).
fn complete(object: &mut Value) {
    let kind = object["kind"].as_str().unwrap_or_default().to_owned();
    if kind != "Deployment" && kind != "Service" {
        return;
    }
    let spec = &mut object["spec"];
    match kind.as_str() {
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

fn skip_reason(suite: &Value, case: &Value) -> Option<String> {
    let request = &case["request"];
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let resource = request["resource"]["resource"].as_str().unwrap_or("");
    if !SERVED.contains(&(group, resource)) {
        return Some(format!("the server does not serve {resource}.{group}"));
    }
    if request["resource"]["version"] != "v1" {
        return Some("the server serves one version of each resource".into());
    }
    if request["operation"] != "CREATE" {
        return Some(format!(
            "{} needs the old object stored first, through the same policies",
            request["operation"]
        ));
    }
    if !request["subResource"].is_null() {
        return Some("a subresource create".into());
    }
    if !request["userInfo"].is_null() || !suite["authorizer"].is_null() {
        return Some("the server's requests come from its authenticated user".into());
    }
    let text = serde_json::to_string(&[&suite["policies"], &case["policies"]]).unwrap();
    if text.contains("userInfo") || text.contains("authorizer") {
        return Some("the policies read the requesting user or the authorizer".into());
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
    if request["namespace"].as_str().is_none_or(str::is_empty) && resource != "namespaces" {
        return Some("a namespaced resource requested without a namespace".into());
    }
    let params = case.get("params").unwrap_or(&suite["params"]);
    let not_configmap = params.as_array().into_iter().flatten().any(|p| {
        p["kind"].as_str().is_some_and(|k| k != "ConfigMap")
            || p["apiVersion"].as_str().is_some_and(|v| v != "v1")
    });
    if not_configmap {
        return Some("params of a kind the server does not serve".into());
    }
    let given = case.get("namespace").or_else(|| suite.get("namespace"));
    if given.is_some_and(Value::is_null) {
        return Some("a namespace that does not exist (the server refuses the create)".into());
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

/// The outcome of one case, or why it cannot run.
async fn run_case(server: &Server, suite: &Value, case: &Value) -> Result<Vec<String>, String> {
    reset(server).await;
    let request = &case["request"];
    let ns = request["namespace"].as_str().unwrap_or("");
    if !ns.is_empty() {
        let given = case.get("namespace").unwrap_or(&suite["namespace"]);
        namespace(server, ns, &given["metadata"]["labels"]).await;
    }
    let params = case.get("params").unwrap_or(&suite["params"]);
    let mut created = Vec::new();
    for p in params.as_array().into_iter().flatten() {
        let mut p = p.clone();
        let pns = p["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_owned();
        if pns != "default" {
            // Created if missing; the request's namespace keeps its labels.
            let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": pns}});
            let reply = server.send("POST", "/api/v1/namespaces", Some(&ns)).await;
            assert!(matches!(reply.code, 201 | 409), "{}", reply.text());
        }
        p["apiVersion"] = json!("v1");
        p["kind"] = json!("ConfigMap");
        let reply = server
            .send(
                "POST",
                &format!("/api/v1/namespaces/{pns}/configmaps"),
                Some(&p),
            )
            .await;
        if reply.code != 201 {
            return Err(format!("the params object is refused: {}", reply.text()));
        }
        created.push(format!(
            "/api/v1/namespaces/{pns}/configmaps/{}",
            p["metadata"]["name"].as_str().unwrap_or("")
        ));
    }
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
                "the server refuses the policy: {}",
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
                "the server refuses the binding: {}",
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
                    "the server refuses the {kind}: {}",
                    reply.json()["message"]
                ));
            }
        }
    }
    let group = request["resource"]["group"].as_str().unwrap_or("");
    let resource = request["resource"]["resource"].as_str().unwrap_or("");
    let version = request["kind"]["version"].as_str().unwrap_or("v1");
    let mut object = request["object"].clone();
    let api_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    object["apiVersion"] = json!(api_version);
    object["kind"] = request["kind"]["kind"].clone();
    if object["metadata"]["name"].is_null() {
        object["metadata"]["name"] = request["name"].clone();
    }
    complete(&mut object);
    let path = format!("{}?dryRun=All", collection(group, version, resource, ns));
    let reply = server.send("POST", &path, Some(&object)).await;
    // The params are deleted once no policy judges their deletion.
    reset(server).await;
    for param in created {
        let deleted = server.send("DELETE", &param, None).await;
        assert_eq!(deleted.code, 200, "{}", deleted.text());
    }
    let mut mismatches = Vec::new();
    let (message, code) = match reply.code {
        200 | 201 => (Value::Null, Value::Null),
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
    let server = Server::start(&["--storage", "memory"]);
    let (mut passed, mut failed, mut skipped) = (0, Vec::new(), 0);
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
            match run_case(&server, &suite, case).await {
                Err(reason) => {
                    println!("skipped: {name} ({reason})");
                    skipped += 1;
                }
                Ok(m) if m.is_empty() => passed += 1,
                Ok(m) => {
                    println!("FAILED: {name}: {}", m.join("; "));
                    failed.push(name);
                }
            }
        }
    }
    println!(
        "admission fixtures through the server: {passed} passed, {} failed, {skipped} skipped",
        failed.len()
    );
    assert!(failed.is_empty(), "failed: {failed:#?}");
    assert!(passed > 0);
}

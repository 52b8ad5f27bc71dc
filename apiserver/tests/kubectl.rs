//! Real kubectl 1.37 against the server: each test starts `kcel-apiserver` on a free
//! 127.0.0.1 port with a fresh data directory and runs the kubectl binary of the venv that
//! `.ci/run` makes (or `KCEL_KUBECTL`) with `KUBECONFIG` set to the kubeconfig the server
//! wrote, asserting what kubectl prints. Without kubectl the tests skip visibly (and fail
//! under `CI=true`).

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{COMMAND_LIMIT, Kubectl, Server, run_bounded};

/// The rows of kubectl's table output, each split into its columns (ages dropped).
fn rows(output: &str) -> Vec<Vec<String>> {
    output
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

fn configmap(name: &str, namespace: &str, data: &[(&str, &str)]) -> String {
    let mut yaml = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\ndata:\n"
    );
    for (k, v) in data {
        yaml.push_str(&format!("  {k}: \"{v}\"\n"));
    }
    yaml
}

fn namespace(name: &str) -> String {
    format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n")
}

#[test]
fn version_and_the_system_namespaces() {
    let Some(k) = Kubectl::start("version_and_the_system_namespaces") else {
        return;
    };
    let version: Value = serde_json::from_str(&k.ok(&["version", "-o", "json"])).unwrap();
    assert_eq!(version["clientVersion"]["gitVersion"], "v1.37.1");
    assert!(
        version["serverVersion"]["gitVersion"]
            .as_str()
            .unwrap()
            .starts_with("v1.37.")
    );
    let table = rows(&k.ok(&["get", "namespaces"]));
    assert_eq!(table[0], ["NAME", "STATUS", "AGE"]);
    let names: Vec<(&str, &str)> = table[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("default", "Active"),
            ("kube-node-lease", "Active"),
            ("kube-public", "Active"),
            ("kube-system", "Active")
        ]
    );
    // Discovery: kubectl api-resources reads the aggregated documents.
    let resources = k.ok(&["api-resources", "--no-headers"]);
    let listed: Vec<String> = rows(&resources).iter().map(|r| r[0].clone()).collect();
    for name in [
        "configmaps",
        "events",
        "namespaces",
        "secrets",
        "serviceaccounts",
        "services",
        "deployments",
        "leases",
    ] {
        assert!(listed.iter().any(|l| l == name), "{name} in {resources}");
    }
    assert!(resources.contains("cm ") && resources.contains("apps/v1"));
}

#[test]
fn namespaces_are_created_finalized_and_required() {
    let Some(k) = Kubectl::start("namespaces_are_created_finalized_and_required") else {
        return;
    };
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &namespace("team")),
        "namespace/team created\n"
    );
    let ns = k.json(&["get", "namespace", "team"]);
    assert_eq!(ns["status"]["phase"], "Active");
    assert_eq!(ns["spec"]["finalizers"], serde_json::json!(["kubernetes"]));
    k.ok_stdin(
        &["apply", "-f", "-"],
        &configmap("inside", "team", &[("a", "1")]),
    );
    // A create in a namespace that does not exist is upstream's 404.
    let missing = k.run_stdin(
        &["create", "-f", "-"],
        &configmap("x", "nowhere", &[("a", "1")]),
    );
    assert_eq!(missing.code, 1);
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): error when creating \"STDIN\": namespaces \"nowhere\" not found\n"
    );
    // Deleting the namespace deletes its content, then the namespace (kubectl waits for it).
    assert_eq!(
        k.ok(&["delete", "namespace", "team"]),
        "namespace \"team\" deleted\n"
    );
    assert_eq!(
        k.fails(&["get", "namespace", "team"]),
        "Error from server (NotFound): namespaces \"team\" not found\n"
    );
    assert_eq!(
        k.run(&["get", "configmaps", "-A"]).stderr,
        "No resources found\n"
    );
    // Content held by a finalizer keeps its namespace Terminating, and nothing new gets in.
    k.ok_stdin(&["apply", "-f", "-"], &namespace("held"));
    k.ok_stdin(
        &["apply", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: held\n  \
         finalizers: [example.com/hold]\n",
    );
    assert_eq!(
        k.ok(&["delete", "namespace", "held", "--wait=false"]),
        "namespace \"held\" deleted\n"
    );
    let start = Instant::now();
    while k.json(&["get", "cm", "keep", "-n", "held"])["metadata"]["deletionTimestamp"].is_null() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the content was not deleted"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        k.json(&["get", "namespace", "held"])["status"]["phase"],
        "Terminating"
    );
    assert_eq!(
        k.fails(&["create", "configmap", "late", "-n", "held"]),
        "error: failed to create configmap: configmaps \"late\" is forbidden: unable to create \
         new content in namespace held because it is being terminated\n"
    );
    k.ok(&[
        "patch",
        "cm",
        "keep",
        "-n",
        "held",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    let waited = k.run(&["wait", "--for=delete", "namespace/held", "--timeout=30s"]);
    assert_eq!(waited.code, 0, "{waited:?}");
}

#[test]
fn apply_twice_sends_a_strategic_merge_patch_without_warnings() {
    let Some(k) = Kubectl::start("apply_twice_sends_a_strategic_merge_patch_without_warnings")
    else {
        return;
    };
    let v1 = configmap("demo", "default", &[("a", "1")]);
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &v1),
        "configmap/demo created\n"
    );
    let v2 = configmap("demo", "default", &[("a", "2"), ("b", "3")]);
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &v2),
        "configmap/demo configured\n"
    );
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &v2),
        "configmap/demo unchanged\n"
    );
    let cm = k.json(&["get", "configmap", "demo"]);
    assert_eq!(cm["data"], serde_json::json!({"a": "2", "b": "3"}));
    // A Deployment: containers merge by name, driven by the served OpenAPI's merge keys.
    let deployment = |image: &str, sidecar: bool| {
        let mut yaml = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {{app: web}}\n\
             spec:\n  replicas: 2\n  selector:\n    matchLabels: {{app: web}}\n  template:\n\
             \x20   metadata:\n      labels: {{app: web}}\n    spec:\n      containers:\n\
             \x20     - name: main\n        image: {image}\n        env:\n        - name: A\n          value: \"1\"\n"
        );
        if sidecar {
            yaml.push_str("      - name: side\n        image: busybox\n");
        }
        yaml
    };
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &deployment("nginx:1", true)),
        "deployment.apps/web created\n"
    );
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &deployment("nginx:2", false)),
        "deployment.apps/web configured\n"
    );
    let d = k.json(&["get", "deployment", "web"]);
    let containers = &d["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers.as_array().unwrap().len(), 1, "{containers}");
    assert_eq!(containers[0]["image"], "nginx:2");
    assert_eq!(containers[0]["env"][0]["value"], "1");
    assert_eq!(d["metadata"]["generation"], 2);
    let wide = rows(&k.ok(&["get", "deployments", "-o", "wide"]));
    assert_eq!(
        wide[0],
        [
            "NAME",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert_eq!(wide[1][0..4], ["web", "0/2", "0", "0"]);
    assert_eq!(wide[1][5..], ["main", "nginx:2", "app=web"]);
}

#[test]
fn get_prints_tables_yaml_json_and_names() {
    let Some(k) = Kubectl::start("get_prints_tables_yaml_json_and_names") else {
        return;
    };
    k.ok_stdin(&["apply", "-f", "-"], &namespace("other"));
    let mut all = String::new();
    for (name, ns) in [
        ("c1", "default"),
        ("c2", "default"),
        ("c3", "default"),
        ("c4", "other"),
        ("c5", "other"),
    ] {
        all.push_str("---\n");
        all.push_str(&configmap(name, ns, &[("k", "v")]));
    }
    k.ok_stdin(&["apply", "-f", "-"], &all);
    let table = rows(&k.ok(&["get", "configmaps"]));
    assert_eq!(table[0], ["NAME", "DATA", "AGE"]);
    assert_eq!(
        table[1..].iter().map(|r| &r[..2]).collect::<Vec<_>>(),
        [["c1", "1"], ["c2", "1"], ["c3", "1"]]
    );
    assert_eq!(
        rows(&k.ok(&["get", "cm", "-o", "wide"]))[0],
        ["NAME", "DATA", "AGE"]
    );
    assert_eq!(
        k.ok(&["get", "cm", "-o", "name"]),
        "configmap/c1\nconfigmap/c2\nconfigmap/c3\n"
    );
    let everywhere = rows(&k.ok(&["get", "cm", "-A", "--chunk-size=2"]));
    assert_eq!(everywhere[0], ["NAMESPACE", "NAME", "DATA", "AGE"]);
    assert_eq!(
        everywhere[1..].iter().map(|r| &r[..2]).collect::<Vec<_>>(),
        [
            ["default", "c1"],
            ["default", "c2"],
            ["default", "c3"],
            ["other", "c4"],
            ["other", "c5"]
        ]
    );
    let yaml = k.ok(&["get", "cm", "c1", "-o", "yaml"]);
    assert!(
        yaml.starts_with("apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\n"),
        "{yaml}"
    );
    let json = k.json(&["get", "cm", "c4", "-n", "other"]);
    assert_eq!(json["metadata"]["namespace"], "other");
    let list = k.json(&["get", "cm", "--chunk-size=1"]);
    assert_eq!(list["items"].as_array().unwrap().len(), 3);
    assert_eq!(
        k.fails(&["get", "cm", "nosuch"]),
        "Error from server (NotFound): configmaps \"nosuch\" not found\n"
    );
    assert_eq!(k.ok(&["get", "cm", "c1", "-o", "jsonpath={.data.k}"]), "v");
}

#[test]
fn patch_label_annotate_and_edit() {
    let Some(k) = Kubectl::start("patch_label_annotate_and_edit") else {
        return;
    };
    k.ok_stdin(
        &["apply", "-f", "-"],
        &configmap("demo", "default", &[("a", "1"), ("b", "2")]),
    );
    assert_eq!(
        k.ok(&[
            "patch",
            "cm",
            "demo",
            "--type=json",
            "-p",
            r#"[{"op":"add","path":"/data/c","value":"3"}]"#
        ]),
        "configmap/demo patched\n"
    );
    k.ok(&[
        "patch",
        "cm",
        "demo",
        "--type=merge",
        "-p",
        r#"{"data":{"a":null}}"#,
    ]);
    k.ok(&[
        "patch",
        "cm",
        "demo",
        "--type=strategic",
        "-p",
        r#"{"data":{"d":"4"}}"#,
    ]);
    k.ok(&[
        "patch",
        "cm",
        "demo",
        "-p",
        r#"{"metadata":{"finalizers":["x/y"]}}"#,
    ]);
    k.ok(&[
        "patch",
        "cm",
        "demo",
        "-p",
        r#"{"metadata":{"finalizers":["x/z"]}}"#,
    ]);
    let cm = k.json(&["get", "cm", "demo"]);
    assert_eq!(
        cm["data"],
        serde_json::json!({"b": "2", "c": "3", "d": "4"})
    );
    // Finalizers merge as a set under a strategic merge patch; a patch item the live list
    // does not have goes first (apimachinery's `mergeSortedSlice`: a live item goes first
    // only before a patch item found after it in the live list).
    assert_eq!(
        cm["metadata"]["finalizers"],
        serde_json::json!(["x/z", "x/y"])
    );
    k.ok(&[
        "patch",
        "cm",
        "demo",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    let failed = k.run(&[
        "patch",
        "cm",
        "demo",
        "--type=json",
        "-p",
        r#"[{"op":"test","path":"/data/b","value":"9"}]"#,
    ]);
    assert_eq!(
        (failed.code, failed.stderr.as_str()),
        (
            1,
            "The request is invalid: the server rejected our request due to an error in our request\n"
        ),
        "{failed:?}"
    );
    assert_eq!(
        k.ok(&["label", "cm", "demo", "tier=web"]),
        "configmap/demo labeled\n"
    );
    assert_eq!(
        k.ok(&["annotate", "cm", "demo", "note=hello"]),
        "configmap/demo annotated\n"
    );
    assert_eq!(
        k.ok(&["label", "cm", "demo", "tier-"]),
        "configmap/demo unlabeled\n"
    );
    // kubectl edit, with a script as the editor.
    let editor = k.home.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/^  b: \"2\"$/  b: edited/' \"$1\"\n",
    )
    .unwrap();
    let mut command = k.command(&["edit", "cm", "demo"]);
    command.env("KUBE_EDITOR", format!("sh {}", editor.display()));
    let ran = run_bounded(command, None, COMMAND_LIMIT);
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "configmap/demo edited\n"),
        "{ran:?}"
    );
    let cm = k.json(&["get", "cm", "demo"]);
    assert_eq!(cm["data"]["b"], "edited");
    assert_eq!(cm["metadata"]["annotations"]["note"], "hello");
    assert!(cm["metadata"]["labels"].get("tier").is_none());
}

#[test]
fn dry_run_on_the_server_persists_nothing() {
    let Some(k) = Kubectl::start("dry_run_on_the_server_persists_nothing") else {
        return;
    };
    let cm = configmap("dry", "default", &[("x", "y")]);
    assert_eq!(
        k.ok_stdin(&["create", "--dry-run=server", "-f", "-"], &cm),
        "configmap/dry created (server dry run)\n"
    );
    assert_eq!(
        k.fails(&["get", "cm", "dry"]),
        "Error from server (NotFound): configmaps \"dry\" not found\n"
    );
    k.ok_stdin(&["create", "-f", "-"], &cm);
    k.ok(&[
        "patch",
        "cm",
        "dry",
        "--dry-run=server",
        "-p",
        r#"{"data":{"x":"z"}}"#,
    ]);
    k.ok(&["delete", "cm", "dry", "--dry-run=server"]);
    assert_eq!(k.json(&["get", "cm", "dry"])["data"]["x"], "y");
}

#[test]
fn selectors_filter_lists() {
    let Some(k) = Kubectl::start("selectors_filter_lists") else {
        return;
    };
    for (name, tier) in [("a", "web"), ("b", "db"), ("c", "cache")] {
        let yaml = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels:\n    tier: {tier}\n"
        );
        k.ok_stdin(&["apply", "-f", "-"], &yaml);
    }
    let names = |args: &[&str]| {
        let mut all = vec!["get", "cm", "-o", "name"];
        all.extend(args);
        k.ok(&all)
    };
    assert_eq!(names(&["-l", "tier=web"]), "configmap/a\n");
    assert_eq!(
        names(&["-l", "tier in (db,cache)"]),
        "configmap/b\nconfigmap/c\n"
    );
    assert_eq!(
        names(&["-l", "tier notin (db),tier!=cache"]),
        "configmap/a\n"
    );
    assert_eq!(names(&["-l", "!tier"]), "");
    assert_eq!(
        names(&["--field-selector", "metadata.name=b"]),
        "configmap/b\n"
    );
    assert_eq!(
        names(&["--field-selector", "metadata.name!=b", "--chunk-size=1"]),
        "configmap/a\nconfigmap/c\n"
    );
    let bad = k.fails(&["get", "cm", "--field-selector", "data.x=1"]);
    assert_eq!(
        bad,
        "Error from server (BadRequest): Unable to find \"/v1, Resource=configmaps\" that match \
         label selector \"\", field selector \"data.x=1\": field label not supported: data.x\n"
    );
    assert_eq!(
        k.ok(&["delete", "cm", "-l", "tier in (db,cache)"]),
        "configmap \"b\" deleted from default namespace\nconfigmap \"c\" deleted from default namespace\n"
    );
    assert_eq!(names(&[]), "configmap/a\n");
}

/// Reads lines from a child's stdout until `done` says so, for at most `limit`.
fn read_until(
    child: &mut std::process::Child,
    limit: Duration,
    mut done: impl FnMut(&[String]) -> bool,
) -> Vec<String> {
    use std::io::BufRead;
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    let mut lines = Vec::new();
    while start.elapsed() < limit && !done(&lines) {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            lines.push(line);
        }
    }
    lines
}

#[test]
fn get_watch_sees_a_concurrent_patch() {
    let Some(k) = Kubectl::start("get_watch_sees_a_concurrent_patch") else {
        return;
    };
    k.ok_stdin(
        &["apply", "-f", "-"],
        &configmap("demo", "default", &[("a", "1")]),
    );
    let mut watch = k.command(&["get", "cm", "-w"]);
    watch.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = watch.spawn().unwrap();
    let mut patched = false;
    let lines = read_until(&mut child, Duration::from_secs(30), |lines| {
        if lines.len() >= 2 && !patched {
            patched = true;
            k.ok(&["patch", "cm", "demo", "-p", r#"{"data":{"b":"2"}}"#]);
        }
        lines.len() >= 3
    });
    let _ = child.kill();
    let _ = child.wait();
    let table = rows(&lines.join("\n"));
    assert_eq!(table.len(), 3, "{lines:?}");
    assert_eq!(table[0], ["NAME", "DATA", "AGE"]);
    assert_eq!(table[1][..2], ["demo", "1"]);
    assert_eq!(table[2][..2], ["demo", "2"]);
}

#[test]
fn delete_with_a_finalizer_then_wait_for_delete() {
    let Some(k) = Kubectl::start("delete_with_a_finalizer_then_wait_for_delete") else {
        return;
    };
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n";
    k.ok_stdin(&["apply", "-f", "-"], yaml);
    assert_eq!(
        k.ok(&["delete", "cm", "held", "--wait=false"]),
        "configmap \"held\" deleted from default namespace\n"
    );
    let cm = k.json(&["get", "cm", "held"]);
    assert!(cm["metadata"]["deletionTimestamp"].is_string(), "{cm}");
    let mut wait = k.command(&["wait", "--for=delete", "cm/held", "--timeout=30s"]);
    wait.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = wait.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // Removing the finalizer lets the deletion finish; kubectl wait sees it.
    k.ok(&[
        "patch",
        "cm",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    let lines = read_until(&mut child, Duration::from_secs(30), |lines| {
        !lines.is_empty()
    });
    let status = child.wait().unwrap();
    assert_eq!(lines, ["configmap/held condition met"]);
    assert!(status.success());
    assert_eq!(
        k.fails(&["get", "cm", "held"]),
        "Error from server (NotFound): configmaps \"held\" not found\n"
    );
}

#[test]
fn the_other_kinds_print_like_upstream() {
    let Some(k) = Kubectl::start("the_other_kinds_print_like_upstream") else {
        return;
    };
    let manifests = "\
apiVersion: v1
kind: Secret
metadata: {name: s1}
stringData: {password: x}
data: {user: YWRtaW4=}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80}, {name: https, port: 443, protocol: TCP}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader}
spec: {holderIdentity: node-1}
---
apiVersion: v1
kind: Event
metadata: {name: e1}
involvedObject: {kind: ConfigMap, name: demo, namespace: default}
reason: Tested
message: it works
type: Normal
";
    let created = k.ok_stdin(&["apply", "-f", "-"], manifests);
    assert_eq!(
        created,
        "secret/s1 created\nservice/web created\nserviceaccount/robot created\nlease.coordination.k8s.io/leader created\nevent/e1 created\n"
    );
    let secrets = rows(&k.ok(&["get", "secrets"]));
    assert_eq!(secrets[0], ["NAME", "TYPE", "DATA", "AGE"]);
    assert_eq!(secrets[1][..3], ["s1", "Opaque", "1"]);
    let services = rows(&k.ok(&["get", "svc", "-o", "wide"]));
    assert_eq!(
        services[0],
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE",
            "SELECTOR"
        ]
    );
    // The `kubernetes` Service the server made at start, at the range's first address.
    assert_eq!(
        services[1][..5],
        ["kubernetes", "ClusterIP", "10.0.0.1", "<none>", "443/TCP"]
    );
    assert_eq!(services[1][6], "<none>");
    assert_eq!(services[2][..2], ["web", "ClusterIP"]);
    assert!(services[2][2].starts_with("10.0.0."), "{:?}", services[2]);
    assert_eq!(services[2][3..5], ["<none>", "80/TCP,443/TCP"]);
    assert_eq!(services[2][6], "app=web");
    let accounts = rows(&k.ok(&["get", "sa"]));
    assert_eq!(accounts[0], ["NAME", "SECRETS", "AGE"]);
    assert_eq!(accounts[1][..2], ["robot", "0"]);
    let leases = rows(&k.ok(&["get", "leases"]));
    assert_eq!(leases[0], ["NAME", "HOLDER", "AGE"]);
    assert_eq!(leases[1][..2], ["leader", "node-1"]);
    let events = k.ok(&["get", "events"]);
    assert!(
        events.starts_with("LAST SEEN   TYPE     REASON   OBJECT           MESSAGE\n"),
        "{events}"
    );
    assert!(
        events.contains("Normal   Tested   configmap/demo   it works"),
        "{events}"
    );
}

/// A Deployment `name` selecting `selector`, with template labels `labels` and `containers`.
fn selecting_deployment(name: &str, selector: &str, labels: &str, containers: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  \
         selector: {{matchLabels: {selector}}}\n  template:\n    metadata: {{labels: {labels}}}\n    \
         spec: {{containers: {containers}}}\n"
    )
}

/// The validation kube-apiserver writes by hand per kind, on create and update, in kubectl's
/// words (after kubernetes/kubernetes pkg/apis/apps/validation TestValidateDeployment,
/// pkg/registry/apps/deployment strategy's immutable selector, pkg/apis/core/validation
/// TestValidateContainers and TestValidateConfigMap).
#[test]
fn built_in_kinds_are_validated_as_kube_apiserver_validates_them() {
    let Some(k) = Kubectl::start("built_in_kinds_are_validated") else {
        return;
    };
    let web = "[{name: web, image: nginx}]";
    let ran = k.apply(&selecting_deployment(
        "web",
        "{app: web}",
        "{app: other}",
        web,
    ));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"web\" is invalid: spec.template.metadata.labels: Invalid value: \
         {\"app\":\"other\"}: `selector` does not match template `labels`\n"
    );
    assert_eq!(
        k.applied(&selecting_deployment(
            "web",
            "{app: web}",
            "{app: web}",
            web
        )),
        "deployment.apps/web created\n"
    );
    // The selector of apps/v1 Deployments is immutable (an update: a strategic merge patch).
    let ran = k.apply(&selecting_deployment(
        "web",
        "{app: web, v: \"2\"}",
        "{app: web, v: \"2\"}",
        web,
    ));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"web\" is invalid: spec.selector: Invalid value: \
         {\"matchLabels\":{\"app\":\"web\",\"v\":\"2\"}}: field is immutable\n"
    );
    let ran = k.run(&[
        "patch",
        "deployment",
        "web",
        "--type=merge",
        "-p",
        r#"{"spec":{"template":{"spec":{"restartPolicy":"Never"}}}}"#,
    ]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"web\" is invalid: spec.template.spec.restartPolicy: Unsupported \
         value: \"Never\": supported values: \"Always\"\n"
    );
    // Several errors of one object, as kubectl lists them.
    let ran = k.apply(&selecting_deployment(
        "twins",
        "{app: twins}",
        "{app: twins}",
        "[{name: c, image: nginx, ports: [{containerPort: 70000}]}, {name: c}]",
    ));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"twins\" is invalid: \n\
         * spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n\
         * spec.template.spec.containers[1].image: Required value\n\
         * spec.template.spec.containers[1].name: Duplicate value: \"c\"\n"
    );
    let ran =
        k.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {\"a b\": x}\n");
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The ConfigMap \"cm\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key \
         must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or \
         'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')\n"
    );
    let ran = k.apply("apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec: {ports: [{port: 80}, {port: 443}]}\n");
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Service \"svc\" is invalid: \n\
         * spec.ports[0].name: Required value\n\
         * spec.ports[1].name: Required value\n"
    );
    // What kubectl's own generators send is valid.
    assert_eq!(
        k.ok(&["create", "deployment", "gen", "--image=nginx", "--port=80"]),
        "deployment.apps/gen created\n"
    );
    assert_eq!(
        k.ok(&["create", "service", "clusterip", "gen", "--tcp=80:8080"]),
        "service/gen created\n"
    );
}

/// More of kube-apiserver's hand-written rules, through real kubectl (the fixtures in
/// `tests/builtin/0[4-9]_*.yaml` cite the upstream functions; this server serves no Pods,
/// Jobs or CronJobs, so pod rules show through a Deployment's template): a volume without a
/// source, a container's user ID and a topology spread skew, the order of an immutable
/// ConfigMap's update errors (ValidateConfigMapUpdate: the immutability errors before the
/// metadata's), a node port on a ClusterIP Service, a Service's cluster and external IPs.
#[test]
fn more_built_in_rules_are_visible_through_kubectl() {
    let Some(k) = Kubectl::start("more_built_in_rules_are_visible_through_kubectl") else {
        return;
    };
    let deployment = |name: &str, spec: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  \
             selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: \
             {{labels: {{app: {name}}}}}\n    spec:\n{spec}"
        )
    };
    // A volume without a source is defaulted to an emptyDir (SetDefaults_Volume) before
    // it is validated, as upstream; two sources are refused.
    k.applied(&deployment(
        "vols",
        "      volumes: [{name: data}]\n      containers: [{name: c, image: nginx}]\n",
    ));
    let got = k.json(&["get", "deployment", "vols"]);
    assert_eq!(
        got["spec"]["template"]["spec"]["volumes"][0],
        serde_json::json!({"name": "data", "emptyDir": {}})
    );
    let ran = k.apply(&deployment(
        "two",
        "      volumes: [{name: data, emptyDir: {}, hostPath: {path: /x}}]\n      \
         containers: [{name: c, image: nginx}]\n",
    ));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"two\" is invalid: spec.template.spec.volumes[0].hostPath: \
         Forbidden: may not specify more than 1 volume type\n"
    );
    let ran = k.apply(&deployment(
        "sec",
        "      containers: [{name: c, image: nginx, securityContext: {runAsUser: -1}}]\n      \
         topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: \
         DoNotSchedule}]\n",
    ));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Deployment \"sec\" is invalid: \n\
         * spec.template.spec.containers[0].securityContext.runAsUser: Invalid value: -1: must \
         be between 0 and 2147483647, inclusive\n\
         * spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be \
         greater than zero\n"
    );
    assert_eq!(
        k.applied(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\nimmutable: true\n\
             data: {k: v}\n"
        ),
        "configmap/frozen created\n"
    );
    let ran = k.apply(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen, labels: {\"a b\": c}}\n\
         immutable: true\ndata: {k: changed}\n",
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The ConfigMap \"frozen\" is invalid: \n\
         * metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric \
         characters, '-', '_' or '.', and must start and end with an alphanumeric character \
         (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
         '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n\
         * data: Forbidden: field is immutable when `immutable` is set\n"
    );
    // The metadata rules of every update (rest.BeforeUpdate, ValidateObjectMetaAccessorUpdate):
    // a patch may not change the uid, nor set a deletionTimestamp or grace period.
    let ran = k.apply(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen, uid: \
         00000000-0000-4000-8000-000000000000, deletionGracePeriodSeconds: 30}\n\
         immutable: true\ndata: {k: v}\n",
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The ConfigMap \"frozen\" is invalid: \n\
         * metadata.uid: Invalid value: \"00000000-0000-4000-8000-000000000000\": field is \
         immutable\n\
         * metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable\n"
    );
    // ValidateConfigMap's total size: the whole object's error, at field.NewPath("") (`[]`).
    let big = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "big"}, "data": {"a": "x".repeat(1024 * 1024 + 1)}});
    let ran = k.run_stdin(&["create", "-f", "-"], &big.to_string());
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "The ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes\n"
    );
    let ran = k.apply(
        "apiVersion: v1\nkind: Service\nmetadata: {name: np}\nspec: {ports: [{port: 80, \
         nodePort: 30080}]}\n",
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Service \"np\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used \
         when `type` is 'ClusterIP'\n"
    );
    // A Service's storage checks its cluster IPs before anything is validated (beginCreate,
    // initIPFamilyFields): their errors alone, the bad label unseen (tests/builtin/15_*).
    let ran = k.apply(
        "apiVersion: v1\nkind: Service\nmetadata: {name: ips, labels: {\"a b\": c}}\nspec: \
         {clusterIP: 10.0.0.10, clusterIPs: [10.0.0.11], ports: [{port: 80}]}\n",
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Service \"ips\" is invalid: spec.clusterIPs: Invalid value: [\"10.0.0.11\"]: \
         first value must match `clusterIP`\n"
    );
    // External IPs with StrictIPCIDRValidation's texts (on by default in 1.37).
    let ran = k.apply(
        "apiVersion: v1\nkind: Service\nmetadata: {name: ext}\nspec: {ports: [{port: 80}], \
         externalIPs: [127.0.0.1, 01.2.3.4]}\n",
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The Service \"ext\" is invalid: \n\
         * spec.externalIPs[0]: Invalid value: \"127.0.0.1\": may not be in the loopback range \
         (127.0.0.0/8, ::1/128)\n\
         * spec.externalIPs[1]: Invalid value: \"01.2.3.4\": must not have leading 0s\n"
    );
}

#[test]
fn explain_reads_the_served_openapi() {
    let Some(k) = Kubectl::start("explain_reads_the_served_openapi") else {
        return;
    };
    let out = k.ok(&["explain", "deployment.spec.strategy"]);
    assert!(
        out.starts_with("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n"),
        "{out}"
    );
    assert!(
        out.contains("FIELD: strategy <DeploymentStrategy>"),
        "{out}"
    );
    assert!(
        out.contains("rollingUpdate\t<RollingUpdateDeployment>"),
        "{out}"
    );
    let out = k.ok(&["explain", "configmaps.data"]);
    assert!(out.contains("FIELD: data <map[string]string>"), "{out}");
}

#[test]
fn a_restart_keeps_every_object_and_resource_version() {
    let Some(mut k) = Kubectl::start("a_restart_keeps_every_object_and_resource_version") else {
        return;
    };
    k.ok_stdin(&["apply", "-f", "-"], &namespace("keep"));
    k.ok_stdin(
        &["apply", "-f", "-"],
        &configmap("demo", "keep", &[("a", "1")]),
    );
    let before = k.ok(&[
        "get",
        "cm",
        "demo",
        "-n",
        "keep",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ]);
    let dir = std::mem::replace(&mut k.server, Server::start(&["--storage", "memory"])).stop();
    k.server = Server::start_in(dir, &[]);
    let after = k.ok(&[
        "get",
        "cm",
        "demo",
        "-n",
        "keep",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ]);
    assert_eq!(before, after);
    assert_eq!(
        rows(&k.ok(&["get", "ns", "keep"]))[1][..2],
        ["keep", "Active"]
    );
}

#[test]
fn validate_strict_and_warn_on_an_unknown_field() {
    let Some(k) = Kubectl::start("validate_strict_and_warn_on_an_unknown_field") else {
        return;
    };
    let bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\nbogusField: 1\ndata:\n  x: \"y\"\n";
    let strict = k.run_stdin(&["create", "-f", "-", "--validate=strict"], bad);
    assert_eq!(strict.code, 1, "{strict:?}");
    assert_eq!(
        strict.stderr,
        "Error from server (BadRequest): error when creating \"STDIN\": ConfigMap in version \"v1\" \
         cannot be handled as a ConfigMap: strict decoding error: unknown field \"bogusField\"\n"
    );
    let warn = k.run_stdin(&["create", "-f", "-", "--validate=warn"], bad);
    assert_eq!(
        (warn.code, warn.stdout.as_str(), warn.stderr.as_str()),
        (
            0,
            "configmap/bad created\n",
            "Warning: unknown field \"bogusField\"\n"
        )
    );
    // The unknown field was dropped, as upstream's decoding drops it.
    let cm = k.json(&["get", "cm", "bad"]);
    assert!(cm.get("bogusField").is_none(), "{cm}");
    assert_eq!(cm["data"]["x"], "y");
    let ignored = k.run_stdin(&["replace", "-f", "-", "--validate=false"], bad);
    assert_eq!(
        (ignored.code, ignored.stderr.as_str()),
        (0, ""),
        "{ignored:?}"
    );
    let warned = k.run(&[
        "patch",
        "cm",
        "bad",
        "--type=merge",
        "-p",
        r#"{"spec":{"a":1}}"#,
    ]);
    assert_eq!(
        (warned.code, warned.stderr.as_str()),
        (0, "Warning: unknown field \"spec\"\n")
    );
    let failed = k.run(&[
        "patch",
        "cm",
        "bad",
        "-p",
        r#"{"spec":{"a":1}}"#,
        "--warnings-as-errors",
    ]);
    assert_eq!(failed.code, 1, "{failed:?}");
}

#[test]
fn generators_send_protobuf_bodies() {
    let Some(k) = Kubectl::start("generators_send_protobuf_bodies") else {
        return;
    };
    let created = [
        (
            vec![
                "create",
                "configmap",
                "c1",
                "--from-literal=a=b",
                "--from-literal=c=d",
            ],
            "configmap/c1 created\n",
        ),
        (vec!["create", "namespace", "n1"], "namespace/n1 created\n"),
        (
            vec![
                "create",
                "secret",
                "generic",
                "s1",
                "--from-literal=password=x",
            ],
            "secret/s1 created\n",
        ),
        (
            vec![
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=2",
                "--port=80",
            ],
            "deployment.apps/web created\n",
        ),
        (
            vec!["create", "serviceaccount", "robot"],
            "serviceaccount/robot created\n",
        ),
        (
            vec!["create", "service", "clusterip", "svc1", "--tcp=80:8080"],
            "service/svc1 created\n",
        ),
    ];
    for (args, out) in created {
        assert_eq!(k.ok(&args), out, "{args:?}");
    }
    let cm = k.json(&["get", "cm", "c1"]);
    assert_eq!(cm["data"], serde_json::json!({"a": "b", "c": "d"}));
    let ns = k.json(&["get", "ns", "n1"]);
    assert_eq!(
        ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
        "n1"
    );
    assert_eq!(ns["status"]["phase"], "Active");
    let secret = k.json(&["get", "secret", "s1"]);
    assert_eq!(
        (secret["type"].as_str(), secret["data"]["password"].as_str()),
        (Some("Opaque"), Some("eA=="))
    );
    let d = k.json(&["get", "deployment", "web"]);
    assert_eq!(d["spec"]["replicas"], 2);
    assert_eq!(d["spec"]["selector"]["matchLabels"]["app"], "web");
    let container = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], "nginx");
    assert_eq!(container["ports"][0]["containerPort"], 80);
    let svc = k.json(&["get", "svc", "svc1"]);
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(svc["spec"]["ports"][0]["name"], "80-8080");
    // Names are checked with upstream's rules and texts, per kind.
    assert_eq!(
        k.fails(&["create", "namespace", "Bad"]),
        "The Namespace \"Bad\" is invalid: metadata.name: Invalid value: \"Bad\": a lowercase \
         RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start \
         and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
         validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
    );
    assert_eq!(
        k.fails(&["create", "service", "clusterip", "1web", "--tcp=80"]),
        "error: failed to create ClusterIP service: Service \"1web\" is invalid: metadata.name: \
         Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric \
         characters or '-', start with an alphabetic character, and end with an alphanumeric \
         character (e.g. 'my-name',  or 'abc-123', regex used for validation is \
         '[a-z]([-a-z0-9]*[a-z0-9])?')\n"
    );
    // A generator's body for a namespace that does not exist: upstream's 404.
    assert_eq!(
        k.fails(&["create", "configmap", "x", "-n", "nowhere"]),
        "error: failed to create configmap: namespaces \"nowhere\" not found\n"
    );
}

#[test]
fn credentials_are_checked_and_the_admin_can_do_everything() {
    let Some(k) = Kubectl::start("credentials_are_checked_and_the_admin_can_do_everything") else {
        return;
    };
    assert_eq!(k.ok(&["auth", "can-i", "create", "configmaps"]), "yes\n");
    assert_eq!(
        k.ok(&["auth", "can-i", "delete", "namespaces", "--all-namespaces"]),
        "yes\n"
    );
    // A kubeconfig with a wrong token: 401, which kubectl reports as upstream's.
    let bad = k.kubeconfig_for("wrong");
    let ran = k.run_as(Some(&bad), &["get", "namespaces"], None);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr.lines().last(),
        Some("error: You must be logged in to the server (Unauthorized)"),
        "{ran:?}"
    );
}

#[test]
fn a_restricted_user_gets_upstreams_forbidden() {
    let rules = "rules:\n- groups: [dev]\n  verbs: [get, list, watch]\n  apiGroups: [\"\"]\n  \
                 resources: [configmaps]\n  namespaces: [default]\n";
    let Some(k) = Kubectl::start_with(
        "a_restricted_user_gets_upstreams_forbidden",
        &[
            ("tokens.csv", "bob-token,bob,1002,\"dev\"\n"),
            ("rules.yaml", rules),
        ],
        &[
            "--token-auth-file",
            "{home}/tokens.csv",
            "--authorization-rules",
            "{home}/rules.yaml",
        ],
    ) else {
        return;
    };
    let bob = k.kubeconfig_for("bob-token");
    let as_bob = |args: &[&str]| k.run_as(Some(&bob), args, None);
    let listed = as_bob(&["get", "configmaps"]);
    assert_eq!(
        (listed.code, listed.stderr.as_str()),
        (0, "No resources found in default namespace.\n")
    );
    let denied = as_bob(&["get", "configmaps", "-n", "kube-system"]);
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (
            1,
            "Error from server (Forbidden): configmaps is forbidden: User \"bob\" cannot list \
             resource \"configmaps\" in API group \"\" in the namespace \"kube-system\"\n"
        )
    );
    let can = as_bob(&["auth", "can-i", "list", "configmaps"]);
    assert_eq!((can.code, can.stdout.as_str()), (0, "yes\n"));
    let cannot = as_bob(&["auth", "can-i", "create", "configmaps"]);
    assert_eq!((cannot.code, cannot.stdout.as_str()), (1, "no\n"));
    let create = as_bob(&["create", "configmap", "x", "--from-literal=a=b"]);
    assert_eq!(
        create.stderr,
        "error: failed to create configmap: configmaps is forbidden: User \"bob\" cannot create \
         resource \"configmaps\" in API group \"\" in the namespace \"default\"\n"
    );
    let namespaces = as_bob(&["get", "namespaces"]);
    assert_eq!(
        namespaces.stderr,
        "Error from server (Forbidden): namespaces is forbidden: User \"bob\" cannot list \
         resource \"namespaces\" in API group \"\" at the cluster scope\n"
    );
    // The admin is in system:masters.
    assert_eq!(
        k.ok(&["auth", "can-i", "create", "configmaps", "-n", "kube-system"]),
        "yes\n"
    );
}

#[test]
fn diff_replace_describe_get_all_and_delete() {
    let Some(k) = Kubectl::start("diff_replace_describe_get_all_and_delete") else {
        return;
    };
    let v1 = configmap("demo", "default", &[("a", "1")]);
    let v2 = configmap("demo", "default", &[("a", "2")]);
    let dir = k.home.path();
    std::fs::write(dir.join("v1.yaml"), &v1).unwrap();
    std::fs::write(dir.join("v2.yaml"), &v2).unwrap();
    let v1_path = dir.join("v1.yaml").display().to_string();
    let v2_path = dir.join("v2.yaml").display().to_string();
    k.ok(&["apply", "-f", &v1_path]);
    // kubectl diff: a server dry-run patch, then diff of live and merged.
    let mut diff = k.command(&["diff", "-f", &v2_path]);
    diff.env("KUBECTL_EXTERNAL_DIFF", "diff -u");
    let ran = run_bounded(diff, None, COMMAND_LIMIT);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(ran.stdout.contains("-  a: \"1\"\n+  a: \"2\"\n"), "{ran:?}");
    assert_eq!(k.json(&["get", "cm", "demo"])["data"]["a"], "1");
    assert_eq!(
        k.ok(&["replace", "-f", &v2_path]),
        "configmap/demo replaced\n"
    );
    let described = k.ok(&["describe", "cm", "demo"]);
    assert!(
        described.starts_with("Name:         demo\nNamespace:    default\n"),
        "{described}"
    );
    assert!(
        described.contains("Data\n====\na:\n----\n2\n"),
        "{described}"
    );
    k.ok(&["create", "deployment", "web", "--image=nginx:1.27"]);
    k.ok(&["create", "service", "clusterip", "web", "--tcp=80"]);
    // Upstream's defaults, as describe shows them.
    let d = k.ok(&["describe", "deployment", "web"]);
    assert!(d.contains("StrategyType:           RollingUpdate\n"), "{d}");
    assert!(
        d.contains("RollingUpdateStrategy:  25% max unavailable, 25% max surge\n"),
        "{d}"
    );
    let d = k.json(&["get", "deployment", "web"]);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
        "IfNotPresent"
    );
    // `get all` is upstream's `all` category: services (the `kubernetes` one the server
    // made at start too) and deployments, not config maps.
    let all = k.ok(&["get", "all", "-o", "name"]);
    assert_eq!(
        all,
        "service/kubernetes\nservice/web\ndeployment.apps/web\n"
    );
    assert_eq!(
        k.ok(&["delete", "-f", &v2_path]),
        "configmap \"demo\" deleted from default namespace\n"
    );
    assert_eq!(
        k.ok(&["delete", "deployments,services", "--all"]),
        "deployment.apps \"web\" deleted from default namespace\nservice \"kubernetes\" deleted from default namespace\nservice \"web\" deleted from default namespace\n"
    );
    assert_eq!(
        k.run(&["get", "all"]).stderr,
        "No resources found in default namespace.\n"
    );
}

#[test]
fn scale_and_status_subresources() {
    let Some(k) = Kubectl::start("scale_and_status_subresources") else {
        return;
    };
    k.ok(&[
        "create",
        "deployment",
        "web",
        "--image=nginx",
        "--replicas=1",
    ]);
    assert_eq!(
        k.ok(&["scale", "deployment", "web", "--replicas=3"]),
        "deployment.apps/web scaled\n"
    );
    let scale = k.json(&["get", "deployment", "web", "--subresource=scale"]);
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 3);
    assert_eq!(scale["status"]["selector"], "app=web");
    // Status changes only through /status; main-resource writes keep it.
    let status =
        r#"{"status":{"replicas":3,"readyReplicas":2,"availableReplicas":2,"updatedReplicas":3}}"#;
    k.ok(&[
        "patch",
        "deployment",
        "web",
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    ]);
    assert_eq!(
        rows(&k.ok(&["get", "deployment", "web"]))[1][..4],
        ["web", "2/3", "3", "2"]
    );
    assert_eq!(
        k.ok(&[
            "patch",
            "deployment",
            "web",
            "--type=merge",
            "-p",
            r#"{"status":{"replicas":9}}"#
        ]),
        "deployment.apps/web patched (no change)\n"
    );
    assert_eq!(
        k.json(&["get", "deployment", "web"])["status"]["replicas"],
        3
    );
    let resources = k.ok(&["api-resources", "--api-group=apps", "--no-headers"]);
    let deployments = rows(&resources)
        .into_iter()
        .find(|r| r[0] == "deployments")
        .unwrap();
    assert_eq!(deployments[..2], ["deployments", "deploy"]);
}

#[test]
fn events_field_selectors_raw_paths_and_watch_events() {
    let Some(k) = Kubectl::start("events_field_selectors_raw_paths_and_watch_events") else {
        return;
    };
    assert_eq!(
        k.fails(&["get", "nodes"]),
        "error: the server doesn't have a resource type \"nodes\"\n"
    );
    let events = "\
apiVersion: v1
kind: Event
metadata: {name: e1}
involvedObject: {kind: ConfigMap, name: demo, namespace: default}
reason: Tested
message: hi
type: Warning
---
apiVersion: v1
kind: Event
metadata: {name: e2}
involvedObject: {kind: ConfigMap, name: other, namespace: default}
reason: Other
message: ho
type: Normal
";
    k.ok_stdin(&["apply", "-f", "-"], events);
    let named = |args: &[&str]| {
        let mut all = vec!["get", "events", "-o", "name"];
        all.extend(args);
        k.ok(&all)
    };
    assert_eq!(
        named(&["--field-selector", "involvedObject.name=demo"]),
        "event/e1\n"
    );
    assert_eq!(named(&["--field-selector", "type=Normal"]), "event/e2\n");
    assert_eq!(
        named(&[
            "--field-selector",
            "reason!=Tested,involvedObject.kind=ConfigMap"
        ]),
        "event/e2\n"
    );
    let metrics = k.ok(&["get", "--raw", "/metrics"]);
    assert!(
        metrics.contains("# TYPE apiserver_request_total counter"),
        "{metrics}"
    );
    let raw: Value =
        serde_json::from_str(&k.ok(&["get", "--raw", "/api/v1/namespaces/default/events/e1"]))
            .unwrap();
    assert_eq!(raw["reason"], "Tested");
    // `get -w -o json --output-watch-events`: events as JSON, one per object change.
    let mut watch = k.command(&["get", "cm", "-w", "-o", "json", "--output-watch-events"]);
    watch.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = watch.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    k.ok(&["create", "configmap", "w", "--from-literal=a=b"]);
    // One event, pretty-printed or on one line: done once the lines read parse.
    let lines = read_until(&mut child, Duration::from_secs(30), |lines| {
        serde_json::from_str::<Value>(&lines.join("\n")).is_ok()
    });
    let _ = child.kill();
    let _ = child.wait();
    let event: Value = serde_json::from_str(&lines.join("\n")).unwrap();
    assert_eq!(event["type"], "ADDED");
    assert_eq!(event["object"]["metadata"]["name"], "w");
}

#[test]
fn server_side_apply_owns_fields_and_reports_conflicts() {
    let Some(k) = Kubectl::start("server_side_apply_owns_fields_and_reports_conflicts") else {
        return;
    };
    let both = configmap("demo", "default", &[("a", "1"), ("b", "2")]);
    assert_eq!(
        k.ok_stdin(&["apply", "--server-side", "-f", "-"], &both),
        "configmap/demo serverside-applied\n"
    );
    // Applying without b removes it: the applier owned it alone.
    let only_a = configmap("demo", "default", &[("a", "1")]);
    k.ok_stdin(&["apply", "--server-side", "-f", "-"], &only_a);
    assert_eq!(
        k.json(&["get", "cm", "demo"])["data"],
        serde_json::json!({"a": "1"})
    );
    // Another manager changing a is a conflict, unless forced.
    let other = configmap("demo", "default", &[("a", "9")]);
    let refused = k.run_stdin(
        &["apply", "--server-side", "--field-manager=other", "-f", "-"],
        &other,
    );
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\": .data.a\n"
        ),
        "{refused:?}"
    );
    k.ok_stdin(
        &[
            "apply",
            "--server-side",
            "--field-manager=other",
            "--force-conflicts",
            "-f",
            "-",
        ],
        &other,
    );
    let cm = k.json(&["get", "cm", "demo", "--show-managed-fields"]);
    assert_eq!(cm["data"]["a"], "9");
    let entries = cm["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries[0]["manager"], "other");
    assert_eq!(entries[0]["operation"], "Apply");
    // A client-side apply's manager is an Update one: the conflict names its apiVersion.
    let client = configmap("client", "default", &[("x", "1")]);
    k.ok_stdin(&["apply", "-f", "-"], &client);
    let changed = configmap("client", "default", &[("x", "2")]);
    let refused = k.run_stdin(
        &["apply", "--server-side", "--field-manager=other", "-f", "-"],
        &changed,
    );
    assert!(
        refused.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.x\n"
        ),
        "{refused:?}"
    );
    // kubectl's own server-side apply takes over what the last-applied annotation says it
    // applied (upstream's lastAppliedManager) and keeps the annotation current
    // (lastAppliedUpdater).
    assert_eq!(
        k.ok_stdin(&["apply", "--server-side", "-f", "-"], &changed),
        "configmap/client serverside-applied\n"
    );
    let cm = k.json(&["get", "cm", "client", "--show-managed-fields"]);
    assert_eq!(cm["data"]["x"], "2");
    let last: Value = serde_json::from_str(
        cm["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["data"]["x"], "2");
    let kubectl_entry = cm["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "kubectl" && e["operation"] == "Apply")
        .cloned()
        .unwrap_or_else(|| panic!("no kubectl Apply entry: {cm}"));
    assert_eq!(
        kubectl_entry["fieldsV1"]["f:data"],
        serde_json::json!({"f:x": {}})
    );
    // Back to client-side apply, then a server-side one without changes: nothing to do.
    let rv = cm["metadata"]["resourceVersion"].clone();
    k.ok_stdin(&["apply", "--server-side", "-f", "-"], &changed);
    assert_eq!(
        k.json(&["get", "cm", "client"])["metadata"]["resourceVersion"],
        rv,
        "applying the same configuration twice writes nothing"
    );
    // A Service port applied without its protocol is the defaulted TCP one: applying twice
    // neither duplicates it nor writes.
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: default\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n    targetPort: 8080\n";
    k.ok_stdin(&["apply", "--server-side", "-f", "-"], service);
    let first = k.json(&["get", "svc", "web", "--show-managed-fields"]);
    k.ok_stdin(&["apply", "--server-side", "-f", "-"], service);
    let second = k.json(&["get", "svc", "web", "--show-managed-fields"]);
    assert_eq!(first, second);
    assert_eq!(
        second["spec"]["ports"],
        serde_json::json!([{"port": 80, "protocol": "TCP", "targetPort": 8080}])
    );
    assert_eq!(
        second["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:ports"],
        serde_json::json!({"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:port": {}, "f:targetPort": {}}})
    );
    // A value of the wrong type fails as structured-merge-diff's validation of the typed
    // configuration reports it (kubernetes/kubernetes#94275 shows the text; the server
    // answers 500 without a reason, which kubectl prints as is).
    let wrong = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n  namespace: default\nimmutable: \"yes\"\n";
    let ran = k.run_stdin(&["apply", "--server-side", "-f", "-"], wrong);
    assert_ne!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "Error from server: failed to create typed patch object (default/typed; /v1, \
         Kind=ConfigMap): .immutable: expected boolean, got &{yes}\n"
    );
}

/// The managedFields entry of `kubectl create deployment` (a protobuf create) is the one a
/// kube-apiserver writes (golden file: the entry as `kubectl get -o yaml
/// --show-managed-fields` prints it from a real cluster); an apply over it conflicts on the
/// fields the creator set.
#[test]
fn managed_fields_of_kubectl_generators() {
    let Some(k) = Kubectl::start("managed_fields_of_kubectl_generators") else {
        return;
    };
    k.ok(&[
        "create",
        "deployment",
        "dep",
        "--image=nginx",
        "--replicas=2",
    ]);
    let d = k.json(&["get", "deployment", "dep", "--show-managed-fields"]);
    let entries = d["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["manager"], "kubectl-create");
    assert_eq!(entries[0]["operation"], "Update");
    assert_eq!(entries[0]["apiVersion"], "apps/v1");
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/golden/kubectl_create_deployment.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(entries[0]["fieldsV1"], golden);
    // The other generators' entries, as a kube-apiserver writes them.
    k.ok(&["create", "namespace", "gen"]);
    k.ok(&["create", "configmap", "gen", "--from-literal=a=b"]);
    k.ok(&["create", "secret", "generic", "gen", "--from-literal=a=b"]);
    for (kind, fields) in [
        (
            "namespace",
            serde_json::json!({"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}}),
        ),
        (
            "configmap",
            serde_json::json!({"f:data": {".": {}, "f:a": {}}}),
        ),
        (
            "secret",
            serde_json::json!({"f:data": {".": {}, "f:a": {}}, "f:type": {}}),
        ),
    ] {
        let object = k.json(&["get", kind, "gen", "--show-managed-fields"]);
        let entries = object["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{kind}: {object}");
        assert_eq!(entries[0]["manager"], "kubectl-create");
        assert_eq!(entries[0]["fieldsV1"], fields, "{kind}");
    }
    // The system namespaces carry kube-apiserver's entry, so later writes are tracked.
    k.ok(&["label", "namespace", "default", "team=a"]);
    let default = k.json(&["get", "namespace", "default", "--show-managed-fields"]);
    let managers: Vec<&str> = default["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["kube-apiserver", "kubectl-label"]);
    let applied =
        deployment("dep", &[("nginx", "nginx:2", &[])], &[]).replace("app: d\n", "app: dep\n");
    let refused = k.run_stdin(&["apply", "--server-side", "-f", "-"], &applied);
    assert!(
        refused.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl-create\" using apps/v1: .spec.template.spec.containers[name=\"nginx\"].image\n"
        ),
        "{refused:?}"
    );
}

fn deployment(name: &str, containers: &[(&str, &str, &[&str])], finalizers: &[&str]) -> String {
    let mut yaml = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: default\n"
    );
    if !finalizers.is_empty() {
        yaml.push_str("  finalizers:\n");
        for f in finalizers {
            yaml.push_str(&format!("  - {f}\n"));
        }
    }
    yaml.push_str("spec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n");
    for (cname, image, args) in containers {
        yaml.push_str(&format!("      - name: {cname}\n        image: {image}\n"));
        if !args.is_empty() {
            yaml.push_str("        args:\n");
            for a in *args {
                yaml.push_str(&format!("        - \"{a}\"\n"));
            }
        }
    }
    yaml
}

#[test]
fn server_side_apply_merges_lists_by_their_schema_types() {
    let Some(k) = Kubectl::start("server_side_apply_merges_lists_by_their_schema_types") else {
        return;
    };
    let apply = |manager: &str, yaml: &str, force: bool| {
        let flag = format!("--field-manager={manager}");
        let mut args = vec!["apply", "--server-side", flag.as_str(), "-f", "-"];
        if force {
            args.push("--force-conflicts");
        }
        k.run_stdin(&args, yaml)
    };
    // A list-map (containers by name) and a set (finalizers) merged per item.
    let a = deployment("d", &[("a", "a:1", &["x", "y"])], &["example.com/a"]);
    assert_eq!(apply("one", &a, false).code, 0);
    let b = deployment("d", &[("b", "b:1", &[])], &["example.com/b"]);
    let ran = apply("two", &b, false);
    assert_eq!(ran.code, 0, "{ran:?}");
    let d = k.json(&["get", "deployment", "d", "--show-managed-fields"]);
    let names: Vec<&str> = d["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(
        d["metadata"]["finalizers"],
        serde_json::json!(["example.com/a", "example.com/b"])
    );
    let two = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "two")
        .unwrap()
        .clone();
    assert_eq!(
        two["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"],
        serde_json::json!({"k:{\"name\":\"b\"}": {".": {}, "f:image": {}, "f:name": {}}})
    );
    assert_eq!(
        two["fieldsV1"]["f:metadata"]["f:finalizers"],
        serde_json::json!({"v:\"example.com/b\"": {}})
    );
    // An atomic list (args) belongs to its applier whole: another's change is a conflict.
    let args = deployment("d", &[("a", "a:1", &["z"])], &[]);
    let refused = apply("two", &args, false);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"one\": .spec.template.spec.containers[name=\"a\"].args\n"
        ),
        "{refused:?}"
    );
    assert_eq!(apply("two", &args, true).code, 0);
    let d = k.json(&["get", "deployment", "d"]);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["args"],
        serde_json::json!(["z"])
    );
    // "two" no longer applies its finalizer: nobody else owns it, so it went.
    assert_eq!(
        d["metadata"]["finalizers"],
        serde_json::json!(["example.com/a"])
    );
    // "one" drops container a and its finalizer: gone, except what "two" owns now.
    let none = deployment("d", &[("b", "b:1", &[])], &[]);
    assert_eq!(apply("one", &none, true).code, 0);
    let d = k.json(&["get", "deployment", "d"]);
    let containers = d["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 2, "two still owns a's args and name: {d}");
    assert_eq!(d["metadata"]["finalizers"], Value::Null);
    // kubectl diff --server-side shows the change and persists nothing.
    let rv = d["metadata"]["resourceVersion"].clone();
    let changed = deployment("d", &[("b", "b:2", &[])], &[]);
    let diff = k.run_stdin(
        &[
            "diff",
            "--server-side",
            "--field-manager=one",
            "--force-conflicts",
            "-f",
            "-",
        ],
        &changed,
    );
    assert_eq!(diff.code, 1, "{diff:?}");
    assert!(
        diff.stdout
            .lines()
            .any(|l| l.starts_with('+') && l.trim_end().ends_with("image: b:2")),
        "{diff:?}"
    );
    let after = k.json(&["get", "deployment", "d"]);
    assert_eq!(after["metadata"]["resourceVersion"], rv);
    // Apply to the status subresource: only the status changes, the entry says so.
    let status = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\nstatus:\n  replicas: 7\n";
    k.ok_stdin(
        &[
            "apply",
            "--server-side",
            "--subresource=status",
            "--field-manager=st",
            "-f",
            "-",
        ],
        status,
    );
    let d = k.json(&["get", "deployment", "d", "--show-managed-fields"]);
    assert_eq!(d["status"]["replicas"], 7);
    let st = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "st")
        .cloned()
        .unwrap_or_else(|| panic!("no st entry: {d}"));
    assert_eq!(
        (st["operation"].as_str(), st["subresource"].as_str()),
        (Some("Apply"), Some("status"))
    );
    assert_eq!(
        st["fieldsV1"],
        serde_json::json!({"f:status": {"f:replicas": {}}})
    );
    let rv = d["metadata"]["resourceVersion"].clone();
    // --dry-run=server likewise.
    let ran = k.run_stdin(
        &[
            "apply",
            "--server-side",
            "--field-manager=one",
            "--force-conflicts",
            "--dry-run=server",
            "-f",
            "-",
        ],
        &changed,
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        k.json(&["get", "deployment", "d"])["metadata"]["resourceVersion"],
        rv
    );
}

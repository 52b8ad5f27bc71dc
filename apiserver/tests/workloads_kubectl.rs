//! Real kubectl 1.37 against the server's workload kinds: Pods (`kubectl run`, `apply`,
//! `get pods` with upstream's columns, the status subresource, validation), and the apps/v1
//! and batch/v1 kinds stored and validated without controllers (a Pod stays `Pending`, as on
//! a server without nodes). Without kubectl the tests skip visibly (and fail under
//! `CI=true`).

mod support;

use support::Kubectl;

/// The rows of kubectl's table output, each split into its columns.
fn rows(output: &str) -> Vec<Vec<String>> {
    output
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn kubectl_run_and_get_pods() {
    let Some(k) = Kubectl::start("kubectl_run_and_get_pods") else {
        return;
    };
    // kubectl run sends a protobuf Pod.
    assert_eq!(
        k.ok(&["run", "web", "--image=nginx:1.27", "--labels=app=web"]),
        "pod/web created\n"
    );
    // upstream's printPod columns; no scheduler or kubelet, so the pod stays Pending.
    let pods = k.ok(&["get", "pods"]);
    let table = rows(&pods);
    assert_eq!(
        table[0],
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        "{pods}"
    );
    assert_eq!(table[1][..4], ["web", "0/1", "Pending", "0"], "{pods}");
    let wide = rows(&k.ok(&["get", "pods", "-o", "wide"]));
    assert_eq!(
        wide[0],
        [
            "NAME",
            "READY",
            "STATUS",
            "RESTARTS",
            "AGE",
            "IP",
            "NODE",
            "NOMINATED",
            "NODE",
            "READINESS",
            "GATES"
        ]
    );
    assert_eq!(wide[1][5..], ["<none>", "<none>", "<none>", "<none>"]);
    // The create strategy's status and upstream's defaults.
    let pod = k.json(&["get", "pod", "web"]);
    assert_eq!(pod["status"]["phase"], "Pending");
    assert_eq!(pod["status"]["qosClass"], "BestEffort");
    assert_eq!(pod["metadata"]["generation"], 1);
    let spec = &pod["spec"];
    assert_eq!(spec["restartPolicy"], "Always");
    assert_eq!(spec["dnsPolicy"], "ClusterFirst");
    assert_eq!(spec["schedulerName"], "default-scheduler");
    assert_eq!(spec["terminationGracePeriodSeconds"], 30);
    assert_eq!(spec["enableServiceLinks"], true);
    assert_eq!(spec["securityContext"], serde_json::json!({}));
    let container = &spec["containers"][0];
    assert_eq!(container["imagePullPolicy"], "IfNotPresent");
    assert_eq!(container["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(container["terminationMessagePolicy"], "File");
    // `get all` includes pods (upstream's `all` category).
    // (With the `kubernetes` Service the server made at start.)
    assert_eq!(
        k.ok(&["get", "all", "-o", "name"]),
        "service/kubernetes\npod/web\n"
    );
    assert_eq!(
        k.ok(&["delete", "pod", "web"]),
        "pod \"web\" deleted from default namespace\n"
    );
}

#[test]
fn apply_a_pod_then_its_status() {
    let Some(k) = Kubectl::start("apply_a_pod_then_its_status") else {
        return;
    };
    let pod = "\
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers:
  - name: db
    image: postgres
    ports: [{containerPort: 5432}]
    readinessProbe: {tcpSocket: {port: 5432}}
    resources: {limits: {cpu: 500m, memory: 256Mi}}
";
    assert_eq!(k.applied(pod), "pod/db created\n");
    let got = k.json(&["get", "pod", "db"]);
    // SetDefaults_Pod: requests from limits, so the pod is Guaranteed.
    let container = &got["spec"]["containers"][0];
    assert_eq!(
        container["resources"]["requests"],
        serde_json::json!({"cpu": "500m", "memory": "256Mi"})
    );
    assert_eq!(got["status"]["qosClass"], "Guaranteed");
    assert_eq!(container["imagePullPolicy"], "Always"); // no tag: latest
    assert_eq!(container["ports"][0]["protocol"], "TCP");
    assert_eq!(container["readinessProbe"]["periodSeconds"], 10);
    // Applying the same manifest again changes nothing.
    assert_eq!(k.applied(pod), "pod/db unchanged\n");
    // A kubelet-like status write through /status; main-resource writes keep the status.
    let status = r#"{"status":{"phase":"Running","podIPs":[{"ip":"10.1.2.3"}],
        "conditions":[{"type":"Ready","status":"True"}],
        "containerStatuses":[{"name":"db","image":"postgres","imageID":"","ready":true,
            "restartCount":2,"started":true,"state":{"running":{}}}]}}"#;
    k.ok(&[
        "patch",
        "pod",
        "db",
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    ]);
    let table = rows(&k.ok(&["get", "pod", "db", "-o", "wide"]));
    assert_eq!(table[1][..4], ["db", "1/1", "Running", "2"]);
    assert_eq!(table[1][5], "10.1.2.3");
    assert_eq!(
        k.ok(&[
            "patch",
            "pod",
            "db",
            "--type=merge",
            "-p",
            r#"{"status":{"phase":"Failed"}}"#
        ]),
        "pod/db patched (no change)\n"
    );
    // A container without an image: upstream's 422, as kubectl prints it.
    let bad = "\
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec:
  containers: [{name: c}]
";
    let ran = k.apply(bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr
            .contains("The Pod \"bad\" is invalid: spec.containers[0].image: Required value"),
        "{ran:?}"
    );
}

#[test]
fn workloads_without_controllers_are_stored_and_printed() {
    let Some(k) = Kubectl::start("workloads_without_controllers_are_stored_and_printed") else {
        return;
    };
    let template = "
    metadata: {labels: {app: w}}
    spec: {containers: [{name: c, image: nginx:1.27}]}";
    let manifests = format!(
        "\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {{name: rs}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: w}}}}
  template:{template}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: sts}}
spec:
  serviceName: sts
  selector: {{matchLabels: {{app: w}}}}
  template:{template}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: ds}}
spec:
  selector: {{matchLabels: {{app: w}}}}
  template:{template}
"
    );
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], &manifests),
        "replicaset.apps/rs created\nstatefulset.apps/sts created\ndaemonset.apps/ds created\n"
    );
    let rs = rows(&k.ok(&["get", "rs"]));
    assert_eq!(rs[0], ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    assert_eq!(rs[1][..4], ["rs", "2", "0", "0"]);
    let sts = rows(&k.ok(&["get", "sts"]));
    assert_eq!(sts[0], ["NAME", "READY", "AGE"]);
    assert_eq!(sts[1][..2], ["sts", "0/1"]);
    let ds = rows(&k.ok(&["get", "ds"]));
    assert_eq!(
        ds[0],
        [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE",
            "SELECTOR",
            "AGE"
        ]
    );
    assert_eq!(ds[1][..7], ["ds", "0", "0", "0", "0", "0", "<none>"]);
    let got = k.json(&["get", "sts", "sts"]);
    assert_eq!(got["spec"]["podManagementPolicy"], "OrderedReady");
    assert_eq!(
        got["spec"]["updateStrategy"]["rollingUpdate"]["partition"],
        0
    );
    assert_eq!(got["status"]["replicas"], 0);
    assert_eq!(
        k.json(&["get", "ds", "ds"])["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
        1
    );
    // The scale subresource of ReplicaSets and StatefulSets.
    assert_eq!(
        k.ok(&["scale", "rs", "rs", "--replicas=3"]),
        "replicaset.apps/rs scaled\n"
    );
    assert_eq!(k.json(&["get", "rs", "rs"])["spec"]["replicas"], 3);
    // A Job: kubectl create job (protobuf); the server generates its selector.
    assert_eq!(
        k.ok(&["create", "job", "pi", "--image=perl:5.34"]),
        "job.batch/pi created\n"
    );
    let job = k.json(&["get", "job", "pi"]);
    let uid = job["metadata"]["uid"].as_str().unwrap().to_owned();
    assert_eq!(
        job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        uid.as_str()
    );
    assert_eq!(
        job["spec"]["template"]["metadata"]["labels"]["batch.kubernetes.io/job-name"],
        "pi"
    );
    assert_eq!(job["spec"]["backoffLimit"], 6);
    assert_eq!(job["spec"]["completions"], 1);
    assert_eq!(job["spec"]["podReplacementPolicy"], "TerminatingOrFailed");
    let jobs = rows(&k.ok(&["get", "jobs"]));
    assert_eq!(
        jobs[0],
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    );
    assert_eq!(jobs[1][..3], ["pi", "Running", "0/1"]);
    // A Job's pods may not restart Always: upstream's 422.
    let bad = "\
apiVersion: batch/v1
kind: Job
metadata: {name: bad}
spec:
  template:
    spec:
      restartPolicy: Always
      containers: [{name: c, image: perl}]
";
    let ran = k.apply(bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains("The Job \"bad\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""),
        "{ran:?}"
    );
}

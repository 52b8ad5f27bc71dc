//! Real kubectl 1.37 against the kinds served without a controller or an authorizer behind
//! them: the RBAC kinds (stored and validated; the server's authorizer keeps its own rules
//! and does not read them), PersistentVolumes and PersistentVolumeClaims (they stay
//! `Pending`, unbound), CronJobs (no job is started) and autoscaling/v2
//! HorizontalPodAutoscalers (nothing is scaled): `create`, `apply`, `get` with upstream's
//! columns, the defaults, the validation errors, `api-resources`; the second versions of
//! HorizontalPodAutoscalers (autoscaling/v1) and Events (events.k8s.io/v1), converted. Without kubectl the tests
//! skip visibly (and fail under `CI=true`).

mod support;

use support::Kubectl;

/// The rows of kubectl's table output, each split into its columns (empty cells vanish).
fn rows(output: &str) -> Vec<Vec<String>> {
    output
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// The `kubectl api-resources --no-headers` row of `name`.
fn api_resource(k: &Kubectl, name: &str) -> Vec<String> {
    let all = k.ok(&["api-resources", "--no-headers"]);
    rows(&all)
        .into_iter()
        .find(|r| r[0] == name)
        .unwrap_or_else(|| panic!("{name} in {all}"))
}

#[test]
fn rbac_kinds_through_kubectl() {
    let Some(k) = Kubectl::start("rbac_kinds_through_kubectl") else {
        return;
    };
    // kubectl's generators (protobuf bodies).
    assert_eq!(
        k.ok(&[
            "create",
            "role",
            "pod-reader",
            "--verb=get,list",
            "--resource=pods"
        ]),
        "role.rbac.authorization.k8s.io/pod-reader created\n"
    );
    assert_eq!(
        k.ok(&[
            "create",
            "clusterrole",
            "viewer",
            "--verb=get",
            "--resource=configmaps"
        ]),
        "clusterrole.rbac.authorization.k8s.io/viewer created\n"
    );
    assert_eq!(
        k.ok(&[
            "create",
            "rolebinding",
            "readers",
            "--role=pod-reader",
            "--user=jane",
            "--serviceaccount=default:robot",
        ]),
        "rolebinding.rbac.authorization.k8s.io/readers created\n"
    );
    assert_eq!(
        k.ok(&[
            "create",
            "clusterrolebinding",
            "viewers",
            "--clusterrole=viewer",
            "--group=devs"
        ]),
        "clusterrolebinding.rbac.authorization.k8s.io/viewers created\n"
    );
    // Roles have no printer: the default table (NAME, CREATED AT).
    let roles = rows(&k.ok(&["get", "roles"]));
    assert_eq!(roles[0], ["NAME", "CREATED", "AT"]);
    assert_eq!(roles[1][0], "pod-reader");
    assert!(roles[1][1].ends_with('Z'), "{roles:?}");
    // The created role, beside kube-apiserver's defaults (admin, cluster-admin, edit, ...).
    let cluster_roles = rows(&k.ok(&["get", "clusterroles"]));
    assert!(
        cluster_roles.iter().any(|r| r[0] == "viewer"),
        "{cluster_roles:?}"
    );
    assert!(cluster_roles.iter().any(|r| r[0] == "cluster-admin"));
    // printRoleBinding: ROLE as kind/name; -o wide adds the subjects by kind.
    let bindings = rows(&k.ok(&["get", "rolebindings", "-o", "wide"]));
    assert_eq!(
        bindings[0],
        ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    );
    assert_eq!(bindings[1][..2], ["readers", "Role/pod-reader"]);
    assert_eq!(bindings[1][3..], ["jane", "default/robot"]);
    let cluster = rows(&k.ok(&["get", "clusterrolebindings", "-o", "wide"]));
    let viewers = cluster.iter().find(|r| r[0] == "viewers").unwrap();
    assert_eq!(viewers[..2], ["viewers", "ClusterRole/viewer"]);
    assert_eq!(viewers[3..], ["devs"]);
    // SetDefaults_RoleBinding and SetDefaults_Subject, on a manifest that leaves them out.
    let binding = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: applied}
roleRef: {kind: ClusterRole, name: viewer}
subjects:
- {kind: User, name: joe}
- {kind: ServiceAccount, name: robot, namespace: default}
";
    assert_eq!(
        k.applied(binding),
        "rolebinding.rbac.authorization.k8s.io/applied created\n"
    );
    let got = k.json(&["get", "rolebinding", "applied"]);
    assert_eq!(got["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
    assert_eq!(got["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
    assert!(got["subjects"][1].get("apiGroup").is_none(), "{got}");
    // ValidateRoleBindingUpdate: the role reference cannot change.
    let changed = binding.replace("name: viewer", "name: other");
    let ran = k.apply(&changed);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains(
            "The RoleBinding \"applied\" is invalid: roleRef: Invalid value: \
             {\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"other\"}: \
             cannot change roleRef"
        ),
        "{ran:?}"
    );
    // ValidatePolicyRule.
    let bad = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: bad}
rules:
- apiGroups: ['']
  resources: [pods]
- verbs: [get]
  nonResourceURLs: [/healthz]
";
    let ran = k.apply(bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains(
            "The Role \"bad\" is invalid: \n* rules[0].verbs: Required value: verbs must contain \
             at least one value\n* rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: \
             namespaced rules cannot apply to non-resource URLs"
        ),
        "{ran:?}"
    );
    // Discovery: no short names, cluster-scoped ClusterRoles and ClusterRoleBindings.
    assert_eq!(
        api_resource(&k, "clusterroles"),
        [
            "clusterroles",
            "rbac.authorization.k8s.io/v1",
            "false",
            "ClusterRole"
        ]
    );
    assert_eq!(
        api_resource(&k, "rolebindings"),
        [
            "rolebindings",
            "rbac.authorization.k8s.io/v1",
            "true",
            "RoleBinding"
        ]
    );
    assert_eq!(
        k.ok(&["delete", "clusterrole", "viewer"]),
        "clusterrole.rbac.authorization.k8s.io \"viewer\" deleted\n"
    );
}

#[test]
fn persistent_volumes_and_claims_through_kubectl() {
    let Some(k) = Kubectl::start("persistent_volumes_and_claims_through_kubectl") else {
        return;
    };
    let manifests = "\
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: slow
  hostPath: {path: /data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
";
    assert_eq!(
        k.ok_stdin(&["apply", "-f", "-"], manifests),
        "persistentvolume/pv1 created\npersistentvolumeclaim/claim created\n"
    );
    // printPersistentVolume; no controller binds the volume.
    let pv = rows(&k.ok(&["get", "pv", "-o", "wide"]));
    assert_eq!(
        pv[0],
        [
            "NAME",
            "CAPACITY",
            "ACCESS",
            "MODES",
            "RECLAIM",
            "POLICY",
            "STATUS",
            "CLAIM",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "REASON",
            "AGE",
            "VOLUMEMODE"
        ]
    );
    assert_eq!(
        pv[1][..7],
        [
            "pv1", "1Gi", "RWO,ROX", "Retain", "Pending", "slow", "<unset>"
        ]
    );
    assert_eq!(pv[1][8], "Filesystem");
    let got = k.json(&["get", "pv", "pv1"]);
    assert_eq!(got["status"]["phase"], "Pending");
    assert!(
        got["status"]["lastPhaseTransitionTime"].is_string(),
        "{got}"
    );
    assert_eq!(got["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    assert_eq!(got["spec"]["volumeMode"], "Filesystem");
    assert_eq!(got["spec"]["hostPath"]["type"], "");
    assert!(got["metadata"].get("namespace").is_none(), "{got}");
    // printPersistentVolumeClaim: capacity and access modes only once bound.
    let pvc = rows(&k.ok(&["get", "pvc"]));
    assert_eq!(
        pvc[0],
        [
            "NAME",
            "STATUS",
            "VOLUME",
            "CAPACITY",
            "ACCESS",
            "MODES",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "AGE"
        ]
    );
    assert_eq!(pvc[1][..3], ["claim", "Pending", "<unset>"]);
    let claim = k.json(&["get", "pvc", "claim"]);
    assert_eq!(claim["status"], serde_json::json!({"phase": "Pending"}));
    assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
    assert_eq!(
        api_resource(&k, "persistentvolumes"),
        ["persistentvolumes", "pv", "v1", "false", "PersistentVolume"]
    );
    assert_eq!(
        api_resource(&k, "persistentvolumeclaims"),
        [
            "persistentvolumeclaims",
            "pvc",
            "v1",
            "true",
            "PersistentVolumeClaim"
        ]
    );
}

#[test]
fn cronjobs_and_autoscalers_through_kubectl() {
    let Some(k) = Kubectl::start("cronjobs_and_autoscalers_through_kubectl") else {
        return;
    };
    // kubectl create cronjob (protobuf); SetDefaults_CronJob.
    assert_eq!(
        k.ok(&[
            "create",
            "cronjob",
            "hello",
            "--image=busybox",
            "--schedule=*/5 * * * *"
        ]),
        "cronjob.batch/hello created\n"
    );
    let cron = k.json(&["get", "cronjob", "hello"]);
    assert_eq!(cron["spec"]["concurrencyPolicy"], "Allow");
    assert_eq!(cron["spec"]["successfulJobsHistoryLimit"], 3);
    assert_eq!(cron["spec"]["failedJobsHistoryLimit"], 1);
    assert_eq!(cron["metadata"]["generation"], 1);
    assert_eq!(cron["status"], serde_json::json!({}));
    // printCronJob (the schedule's spaces split it here).
    let table = rows(&k.ok(&["get", "cj"]));
    assert_eq!(
        table[0],
        [
            "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"
        ]
    );
    assert_eq!(
        table[1][..10],
        [
            "hello", "*/5", "*", "*", "*", "*", "<none>", "False", "0", "<none>"
        ]
    );
    // The schedule is validated (robfig/cron's parser).
    let ran = k.run(&[
        "create",
        "cronjob",
        "bad",
        "--image=busybox",
        "--schedule=* * *",
    ]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "error: failed to create cronjob: CronJob.batch \"bad\" is invalid: spec.schedule: \
         Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]\n"
    );
    // An autoscaling/v2 HorizontalPodAutoscaler; SetDefaults_HorizontalPodAutoscaler.
    let hpa = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
";
    assert_eq!(
        k.applied(hpa),
        "horizontalpodautoscaler.autoscaling/web created\n"
    );
    let got = k.json(&["get", "hpa", "web"]);
    assert_eq!(got["apiVersion"], "autoscaling/v2");
    assert_eq!(got["spec"]["minReplicas"], 1);
    assert_eq!(
        got["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        80
    );
    assert_eq!(got["status"]["desiredReplicas"], 0);
    // printHorizontalPodAutoscaler: no metrics server, so the current value is unknown.
    let table = rows(&k.ok(&["get", "hpa"]));
    assert_eq!(
        table[0],
        [
            "NAME",
            "REFERENCE",
            "TARGETS",
            "MINPODS",
            "MAXPODS",
            "REPLICAS",
            "AGE"
        ]
    );
    assert_eq!(
        table[1][..7],
        [
            "web",
            "Deployment/web",
            "cpu:",
            "<unknown>/80%",
            "1",
            "5",
            "0"
        ]
    );
    let ran = k.apply(&hpa.replace("maxReplicas: 5", "maxReplicas: 0"));
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains(
            "The HorizontalPodAutoscaler \"web\" is invalid: \n* spec.maxReplicas: Invalid value: \
             0: must be greater than 0\n* spec.maxReplicas: Invalid value: 0: must be greater than \
             or equal to `minReplicas`"
        ),
        "{ran:?}"
    );
    // Both are in upstream's `all` category (with the `kubernetes` Service made at start).
    assert_eq!(
        k.ok(&["get", "all", "-o", "name"]),
        "service/kubernetes\nhorizontalpodautoscaler.autoscaling/web\ncronjob.batch/hello\n"
    );
    // autoscaling/v2, the preferred version, although autoscaling/v1 is served too.
    assert_eq!(
        api_resource(&k, "horizontalpodautoscalers"),
        [
            "horizontalpodautoscalers",
            "hpa",
            "autoscaling/v2",
            "true",
            "HorizontalPodAutoscaler"
        ]
    );
    assert_eq!(
        api_resource(&k, "cronjobs"),
        ["cronjobs", "cj", "batch/v1", "true", "CronJob"]
    );
}

/// The second versions of stored kinds: autoscaling/v1 HorizontalPodAutoscalers (stored as
/// autoscaling/v2) and events.k8s.io/v1 Events (stored as core v1 Events), each written and
/// read in either version (kubernetes `pkg/apis/autoscaling/v1` and `pkg/apis/events/v1`
/// conversions).
/// autoscaling/v1 HorizontalPodAutoscalers as kubectl names them (`hpa.v1.autoscaling`
/// expands the short name to the preferred version, v2).
const V1_HPA: &str = "horizontalpodautoscalers.v1.autoscaling";

#[test]
fn autoscalers_and_events_in_their_second_versions() {
    let Some(k) = Kubectl::start("autoscalers_and_events_in_their_second_versions") else {
        return;
    };
    let v1 = "\
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web1}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  targetCPUUtilizationPercentage: 60
";
    assert_eq!(
        k.applied(v1),
        "horizontalpodautoscaler.autoscaling/web1 created\n"
    );
    let got = k.json(&["get", V1_HPA, "web1"]);
    assert_eq!(got["apiVersion"], "autoscaling/v1");
    assert_eq!(got["spec"]["targetCPUUtilizationPercentage"], 60);
    assert_eq!(got["spec"]["minReplicas"], 1);
    assert_eq!(
        got["status"],
        serde_json::json!({"currentReplicas": 0, "desiredReplicas": 0})
    );
    let annotations = got["metadata"]["annotations"].as_object().unwrap();
    assert_eq!(
        annotations.keys().collect::<Vec<_>>(),
        ["kubectl.kubernetes.io/last-applied-configuration"]
    );
    // The same object in the preferred version: the CPU target is a Resource metric.
    let got = k.json(&["get", "hpa", "web1"]);
    assert_eq!(got["apiVersion"], "autoscaling/v2");
    assert_eq!(
        got["spec"]["metrics"],
        serde_json::json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 60}}}])
    );
    // A v2 metric v1 cannot hold travels in an annotation, and survives a v1 replace.
    let v2 = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web2}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}
";
    assert_eq!(
        k.applied(v2),
        "horizontalpodautoscaler.autoscaling/web2 created\n"
    );
    let mut old = k.json(&["get", V1_HPA, "web2"]);
    assert_eq!(
        old["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"],
        r#"[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}}]"#
    );
    assert!(old["spec"].get("targetCPUUtilizationPercentage").is_none());
    old["spec"]["maxReplicas"] = serde_json::json!(6);
    assert_eq!(
        k.ok_stdin(&["replace", "-f", "-"], &old.to_string()),
        "horizontalpodautoscaler.autoscaling/web2 replaced\n"
    );
    let got = k.json(&["get", "hpa", "web2"]);
    assert_eq!(got["spec"]["maxReplicas"], 6);
    assert_eq!(got["spec"]["metrics"][0]["resource"]["name"], "memory");
    assert!(
        got["metadata"]["annotations"]
            .get("autoscaling.alpha.kubernetes.io/metrics")
            .is_none()
    );
    // printHorizontalPodAutoscaler prints the same rows in either version.
    let table = rows(&k.ok(&["get", V1_HPA, "web1"]));
    assert_eq!(
        table[1][..7],
        [
            "web1",
            "Deployment/web",
            "cpu:",
            "<unknown>/60%",
            "1",
            "4",
            "0"
        ]
    );
    // A core Event read as events.k8s.io/v1, and an events.k8s.io/v1 Event read as core.
    let core = "\
apiVersion: v1
kind: Event
metadata: {name: e1}
involvedObject: {kind: Pod, name: web, namespace: default}
reason: Started
message: started web
type: Normal
source: {component: kubelet}
count: 2
";
    assert_eq!(k.applied(core), "event/e1 created\n");
    let got = k.json(&["get", "events.v1.events.k8s.io", "e1"]);
    assert_eq!(got["apiVersion"], "events.k8s.io/v1");
    assert_eq!(got["note"], "started web");
    assert_eq!(got["regarding"]["name"], "web");
    assert_eq!(got["deprecatedSource"]["component"], "kubelet");
    assert_eq!(got["deprecatedCount"], 2);
    assert!(got.get("message").is_none() && got.get("involvedObject").is_none());
    let events = "\
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e2}
eventTime: \"2026-12-02T10:00:00.000000Z\"
reportingController: example.com/scaler
reportingInstance: scaler-1
action: Scaling
reason: Scaled
regarding: {kind: Deployment, name: web, namespace: default}
note: scaled web
type: Normal
";
    assert_eq!(k.applied(events), "event.events.k8s.io/e2 created\n");
    let got = k.json(&["get", "events", "e2"]);
    assert_eq!(got["apiVersion"], "v1");
    assert_eq!(got["message"], "scaled web");
    assert_eq!(got["involvedObject"]["kind"], "Deployment");
    assert_eq!(got["reportingComponent"], "example.com/scaler");
    assert_eq!(
        k.ok(&["get", "events.v1.events.k8s.io", "-o", "name"]),
        "event.events.k8s.io/e1\nevent.events.k8s.io/e2\n"
    );
    // Field selectors in each version's own spellings (upstream's field label conversion
    // for events.k8s.io/v1); `source` is the source's component, else the reporting
    // controller.
    let selected = |resource: &str, selector: &str| {
        k.ok(&["get", resource, "--field-selector", selector, "-o", "name"])
    };
    let v1_events = "events.v1.events.k8s.io";
    assert_eq!(
        selected(v1_events, "regarding.kind=Deployment"),
        "event.events.k8s.io/e2\n"
    );
    assert_eq!(
        selected(
            v1_events,
            "reportingController!=example.com/scaler,reason=Started"
        ),
        "event.events.k8s.io/e1\n"
    );
    assert_eq!(
        selected(v1_events, "source=example.com/scaler"),
        "event.events.k8s.io/e2\n"
    );
    assert_eq!(selected("events", "source=kubelet"), "event/e1\n");
    assert_eq!(
        selected(
            "events",
            "involvedObject.name=web,reportingComponent=example.com/scaler"
        ),
        "event/e2\n"
    );
    assert_eq!(
        k.fails(&[
            "get",
            v1_events,
            "--field-selector",
            "involvedObject.kind=Pod"
        ]),
        "Error from server (BadRequest): Unable to find \"events.k8s.io/v1, Resource=events\" \
         that match label selector \"\", field selector \"involvedObject.kind=Pod\": field \
         label not supported: involvedObject.kind\n"
    );
}

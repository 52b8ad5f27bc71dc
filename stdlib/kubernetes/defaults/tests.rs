use super::*;

fn defaulted(api_version: &str, kind: &str, mut object: Value) -> Value {
    apply(api_version, kind, object.as_object_mut().unwrap());
    object
}

// kubernetes pkg/apis/apps/v1/defaults.go, SetDefaults_Deployment; pkg/apis/core/v1/
// defaults.go, SetDefaults_Container / SetDefaults_PodSpec.
#[test]
fn a_deployment_and_its_pod_template() {
    let d = defaulted(
        "apps/v1",
        "Deployment",
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "nginx"}, {"name": "b", "image": "nginx:1.27"},
            {"name": "c", "image": "r.io/x@sha256:00", "ports": [{"containerPort": 80}]}]}}}}),
    );
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
    assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
    assert_eq!(
        d["spec"]["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    let pod = &d["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Always");
    assert_eq!(pod["dnsPolicy"], "ClusterFirst");
    let policies: Vec<_> = (0..3)
        .map(|i| pod["containers"][i]["imagePullPolicy"].clone())
        .collect();
    assert_eq!(
        policies,
        [
            json!("Always"),
            json!("IfNotPresent"),
            json!("IfNotPresent")
        ]
    );
    assert_eq!(pod["containers"][2]["ports"][0]["protocol"], "TCP");
}

#[test]
fn a_recreate_strategy_gets_no_rolling_update() {
    let d = defaulted(
        "apps/v1",
        "Deployment",
        json!({"spec": {"replicas": 3, "strategy": {"type": "Recreate"}}}),
    );
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
}

#[test]
fn idempotent_and_only_known_kinds() {
    let once = defaulted(
        "v1",
        "Service",
        json!({"spec": {"ports": [{"port": 8080}]}}),
    );
    assert_eq!(defaulted("v1", "Service", once.clone()), once);
    let cm = json!({"data": {"a": "b"}});
    assert_eq!(defaulted("v1", "ConfigMap", cm.clone()), cm);
    // Another version of the group is another kind.
    assert_eq!(
        defaulted("apps/v1beta2", "Deployment", json!({})),
        json!({})
    );
}

#[test]
fn a_namespace_label_and_a_secret_type() {
    let ns = defaulted("v1", "Namespace", json!({"metadata": {"name": "team"}}));
    assert_eq!(
        ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
        "team"
    );
    let secret = defaulted("v1", "Secret", json!({}));
    assert_eq!(secret["type"], "Opaque");
}

// kubernetes pkg/apis/core/v1/defaults_test.go TestPodDefaults: every default below a Pod's
// spec (containers, init and ephemeral containers, probes, lifecycle handlers, env field
// references, ports), plus the Pod-only ones (enableServiceLinks; requests from limits).
#[test]
fn a_pods_spec_and_containers() {
    let probe = json!({"httpGet": {"port": 80}});
    let container = json!({
        "name": "c", "image": "",
        "ports": [{"containerPort": 80}],
        "env": [{"name": "n", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "livenessProbe": probe, "readinessProbe": probe, "startupProbe": {"grpc": {"port": 9}},
        "lifecycle": {"postStart": {"httpGet": {"port": 1}}, "preStop": {"httpGet": {"port": 1}}},
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
    });
    let pod = defaulted(
        "v1",
        "Pod",
        json!({"spec": {"containers": [container], "initContainers": [container],
            "ephemeralContainers": [{"name": "e", "image": "busybox"}]}}),
    );
    let spec = &pod["spec"];
    assert_eq!(spec["dnsPolicy"], "ClusterFirst");
    assert_eq!(spec["restartPolicy"], "Always");
    assert_eq!(spec["schedulerName"], "default-scheduler");
    assert_eq!(spec["securityContext"], json!({}));
    assert_eq!(spec["terminationGracePeriodSeconds"], 30);
    assert_eq!(spec["enableServiceLinks"], true);
    for c in [&spec["containers"][0], &spec["initContainers"][0]] {
        assert_eq!(c["imagePullPolicy"], "IfNotPresent"); // "" does not parse
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["terminationMessagePolicy"], "File");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
        assert_eq!(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        for p in ["livenessProbe", "readinessProbe"] {
            assert_eq!(
                c[p],
                json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                    "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
                    "failureThreshold": 3})
            );
        }
        assert_eq!(c["startupProbe"]["grpc"], json!({"port": 9, "service": ""}));
        assert_eq!(
            c["lifecycle"]["preStop"]["httpGet"],
            json!({"port": 1, "path": "/", "scheme": "HTTP"})
        );
        // TestSetDefaultRequestsPod: a limit without a request is its request.
        assert_eq!(
            c["resources"]["requests"],
            json!({"cpu": "500m", "memory": "1Gi"})
        );
    }
    assert_eq!(spec["ephemeralContainers"][0]["imagePullPolicy"], "Always");
    assert_eq!(defaulted("v1", "Pod", pod.clone()), pod, "idempotent");
}

// TestWorkloadDefaults: a pod template gets the pod spec's defaults but not SetDefaults_Pod's.
#[test]
fn a_template_has_no_pod_only_defaults() {
    let rs = defaulted(
        "apps/v1",
        "ReplicaSet",
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}]}}}}),
    );
    let spec = &rs["spec"]["template"]["spec"];
    assert_eq!(spec["restartPolicy"], "Always");
    assert!(spec.get("enableServiceLinks").is_none());
    assert!(spec["containers"][0]["resources"].get("requests").is_none());
    assert_eq!(rs["spec"]["replicas"], 1);
}

// TestSetDefaultPodSpecHostNetwork: under host networking a port's hostPort is its
// containerPort; TestSetDefaultProbe: zero probe fields are unset.
#[test]
fn host_network_ports_and_zero_probe_fields() {
    let pod = defaulted(
        "v1",
        "Pod",
        json!({"spec": {"hostNetwork": true, "containers": [{"name": "c", "image": "x:1",
            "ports": [{"containerPort": 8080}, {"containerPort": 9, "hostPort": 9}],
            "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 0,
                "failureThreshold": 5}}]}}),
    );
    let c = &pod["spec"]["containers"][0];
    assert_eq!(c["ports"][0]["hostPort"], 8080);
    assert_eq!(c["ports"][1]["hostPort"], 9);
    assert_eq!(c["readinessProbe"]["periodSeconds"], 10);
    assert_eq!(c["readinessProbe"]["failureThreshold"], 5);
}

// TestWorkloadDefaults's volume sources: an empty source is an emptyDir; file modes 0644
// (420), hostPath type "", token expiry 3600, field references v1, the declarative
// defaults of iscsi, rbd, azureDisk and scaleIO; an ephemeral claim's volume mode.
#[test]
fn volume_sources() {
    let pod = defaulted(
        "v1",
        "Pod",
        json!({"spec": {"containers": [], "volumes": [
            {"name": "empty"},
            {"name": "s", "secret": {"secretName": "s"}},
            {"name": "cm", "configMap": {"name": "c", "defaultMode": 256}},
            {"name": "h", "hostPath": {"path": "/x"}},
            {"name": "d", "downwardAPI": {"items": [{"path": "p", "fieldRef": {"fieldPath": "metadata.name"}}]}},
            {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}},
                {"downwardAPI": {"items": [{"path": "p", "fieldRef": {"fieldPath": "metadata.uid"}}]}}]}},
            {"name": "i", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}},
            {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}},
            {"name": "a", "azureDisk": {"diskName": "d", "diskURI": "u"}},
            {"name": "sc", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {}}},
            {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
            {"name": "img", "image": {"reference": "registry.io/data:latest"}},
        ]}}),
    );
    let v = &pod["spec"]["volumes"];
    assert_eq!(v[0]["emptyDir"], json!({}));
    assert_eq!(v[1]["secret"]["defaultMode"], 420);
    assert_eq!(v[2]["configMap"]["defaultMode"], 256);
    assert_eq!(v[3]["hostPath"]["type"], "");
    assert_eq!(v[4]["downwardAPI"]["defaultMode"], 420);
    assert_eq!(
        v[4]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"],
        "v1"
    );
    let projected = &v[5]["projected"];
    assert_eq!(projected["defaultMode"], 420);
    assert_eq!(
        projected["sources"][0]["serviceAccountToken"]["expirationSeconds"],
        3600
    );
    assert_eq!(
        projected["sources"][1]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"],
        "v1"
    );
    assert_eq!(v[6]["iscsi"]["iscsiInterface"], "default");
    assert_eq!(v[7]["rbd"]["pool"], "rbd");
    assert_eq!(v[7]["rbd"]["user"], "admin");
    assert_eq!(v[7]["rbd"]["keyring"], "/etc/ceph/keyring");
    assert_eq!(
        v[8]["azureDisk"],
        json!({"diskName": "d", "diskURI": "u", "cachingMode": "ReadWrite",
            "fsType": "ext4", "readOnly": false, "kind": "Shared"})
    );
    assert_eq!(v[9]["scaleIO"]["storageMode"], "ThinProvisioned");
    assert_eq!(v[9]["scaleIO"]["fsType"], "xfs");
    assert_eq!(
        v[10]["ephemeral"]["volumeClaimTemplate"]["spec"]["volumeMode"],
        "Filesystem"
    );
    assert_eq!(v[11]["image"]["pullPolicy"], "Always");
    for (i, volume) in v.as_array().unwrap().iter().enumerate().skip(1) {
        assert!(volume.get("emptyDir").is_none(), "volume {i}");
    }
}

// kubernetes pkg/apis/apps/v1/defaults_test.go TestSetDefaultStatefulSet and
// TestSetDefaultDaemonSetSpec.
#[test]
fn stateful_and_daemon_sets() {
    let sts = defaulted(
        "apps/v1",
        "StatefulSet",
        json!({"spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]}}),
    );
    let spec = &sts["spec"];
    assert_eq!(spec["podManagementPolicy"], "OrderedReady");
    assert_eq!(
        spec["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    );
    assert_eq!(
        spec["persistentVolumeClaimRetentionPolicy"],
        json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
    );
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["revisionHistoryLimit"], 10);
    let claim = &spec["volumeClaimTemplates"][0];
    assert_eq!(claim["status"]["phase"], "Pending");
    assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
    // An explicit RollingUpdate without rollingUpdate gets no partition.
    let sts = defaulted(
        "apps/v1",
        "StatefulSet",
        json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}}}),
    );
    assert_eq!(
        sts["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate"})
    );
    let ds = defaulted("apps/v1", "DaemonSet", json!({"spec": {}}));
    assert_eq!(
        ds["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
    );
    assert_eq!(ds["spec"]["revisionHistoryLimit"], 10);
    let ds = defaulted(
        "apps/v1",
        "DaemonSet",
        json!({"spec": {"updateStrategy": {"type": "OnDelete"}}}),
    );
    assert_eq!(ds["spec"]["updateStrategy"], json!({"type": "OnDelete"}));
}

// kubernetes pkg/apis/batch/v1/defaults_test.go TestSetDefaultJob and TestSetDefaultCronJob.
#[test]
fn jobs_and_cron_jobs() {
    let job = defaulted(
        "batch/v1",
        "Job",
        json!({"spec": {"template": {"metadata": {"labels": {"app": "x"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}),
    );
    let spec = &job["spec"];
    assert_eq!(job["metadata"]["labels"], json!({"app": "x"}));
    assert_eq!(spec["completions"], 1);
    assert_eq!(spec["parallelism"], 1);
    assert_eq!(spec["backoffLimit"], 6);
    assert_eq!(spec["completionMode"], "NonIndexed");
    assert_eq!(spec["suspend"], false);
    assert_eq!(spec["podReplacementPolicy"], "TerminatingOrFailed");
    assert_eq!(spec["manualSelector"], false);
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");
    assert_eq!(spec["template"]["spec"]["dnsPolicy"], "ClusterFirst");
    // Parallelism alone leaves completions unset; a per-index limit makes the backoff limit
    // the largest int32; a failure policy replaces pods once Failed, its patterns True.
    let job = defaulted(
        "batch/v1",
        "Job",
        json!({"metadata": {"labels": {"own": "y"}}, "spec": {"parallelism": 3,
            "backoffLimitPerIndex": 1, "podFailurePolicy": {"rules": [
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
            "template": {"metadata": {"labels": {"app": "x"}}}}}),
    );
    let spec = &job["spec"];
    assert_eq!(job["metadata"]["labels"], json!({"own": "y"}));
    assert!(spec.get("completions").is_none());
    assert_eq!(spec["parallelism"], 3);
    assert_eq!(spec["backoffLimit"], 2147483647);
    assert_eq!(spec["podReplacementPolicy"], "Failed");
    assert_eq!(
        spec["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"],
        "True"
    );
    let cron = defaulted(
        "batch/v1",
        "CronJob",
        json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
            "spec": {"containers": [{"name": "c", "image": "x"}]}}}}}}),
    );
    let spec = &cron["spec"];
    assert_eq!(spec["concurrencyPolicy"], "Allow");
    assert_eq!(spec["suspend"], false);
    assert_eq!(spec["successfulJobsHistoryLimit"], 3);
    assert_eq!(spec["failedJobsHistoryLimit"], 1);
    let job_spec = &spec["jobTemplate"]["spec"];
    assert!(
        job_spec.get("backoffLimit").is_none(),
        "not SetDefaults_Job"
    );
    assert_eq!(
        job_spec["template"]["spec"]["schedulerName"],
        "default-scheduler"
    );
}

// Go's zero string is unset: `""` takes the default, as `if obj.X == ""` does upstream.
#[test]
fn empty_strings_are_unset() {
    let pod = defaulted(
        "v1",
        "Pod",
        json!({"spec": {"restartPolicy": "", "containers": [{"name": "c", "image": "nginx:1",
            "imagePullPolicy": ""}]}}),
    );
    assert_eq!(pod["spec"]["restartPolicy"], "Always");
    assert_eq!(
        pod["spec"]["containers"][0]["imagePullPolicy"],
        "IfNotPresent"
    );
}

// kubernetes pkg/apis/core/v1/defaults.go: SetDefaults_PersistentVolume,
// SetDefaults_PersistentVolumeClaim(Spec), SetDefaults_HostPathVolumeSource.
#[test]
fn persistent_volumes_and_claims() {
    let pv = defaulted(
        "v1",
        "PersistentVolume",
        json!({"spec": {"capacity": {"storage": "1Gi"}, "hostPath": {"path": "/data"}}}),
    );
    assert_eq!(pv["status"], json!({"phase": "Pending"}));
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    assert_eq!(pv["spec"]["volumeMode"], "Filesystem");
    assert_eq!(pv["spec"]["hostPath"], json!({"path": "/data", "type": ""}));
    assert!(pv["spec"].get("emptyDir").is_none());
    let kept = defaulted(
        "v1",
        "PersistentVolume",
        json!({"spec": {"persistentVolumeReclaimPolicy": "Delete", "volumeMode": "Block"}}),
    );
    assert_eq!(kept["spec"]["persistentVolumeReclaimPolicy"], "Delete");
    assert_eq!(kept["spec"]["volumeMode"], "Block");
    let pvc = defaulted(
        "v1",
        "PersistentVolumeClaim",
        json!({"spec": {"accessModes": ["ReadWriteOnce"]}}),
    );
    assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
    assert_eq!(pvc["status"], json!({"phase": "Pending"}));
}

// kubernetes pkg/apis/autoscaling/v2/defaults.go: SetDefaults_HorizontalPodAutoscaler and
// the behavior's generated rules (copyHPAScalingRules keeps what is given).
#[test]
fn horizontal_pod_autoscalers() {
    let hpa = defaulted(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        json!({"spec": {"maxReplicas": 3}}),
    );
    assert_eq!(hpa["spec"]["minReplicas"], 1);
    assert_eq!(
        hpa["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}])
    );
    assert!(hpa["spec"].get("behavior").is_none());
    let hpa = defaulted(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        json!({"spec": {"minReplicas": 2, "metrics": [{"type": "Pods"}],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60, "policies": []}}}}),
    );
    assert_eq!(hpa["spec"]["minReplicas"], 2);
    assert_eq!(hpa["spec"]["metrics"], json!([{"type": "Pods"}]));
    assert_eq!(
        hpa["spec"]["behavior"],
        json!({
            "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15}]},
            "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max", "policies": []},
        })
    );
}

// kubernetes pkg/apis/rbac/v1/defaults.go: SetDefaults_RoleBinding, SetDefaults_Subject.
#[test]
fn rbac_bindings() {
    let rb = defaulted(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        json!({"roleRef": {"kind": "Role", "name": "r"}, "subjects": [
            {"kind": "User", "name": "u"}, {"kind": "Group", "name": "g"},
            {"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "v", "apiGroup": "x"}]}),
    );
    assert_eq!(rb["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
    let groups: Vec<_> = (0..4)
        .map(|i| rb["subjects"][i].get("apiGroup").cloned())
        .collect();
    assert_eq!(
        groups,
        [
            Some(json!("rbac.authorization.k8s.io")),
            Some(json!("rbac.authorization.k8s.io")),
            None,
            Some(json!("x")),
        ]
    );
    let role = defaulted("rbac.authorization.k8s.io/v1", "Role", json!({"rules": []}));
    assert_eq!(role, json!({"rules": []}));
}

#[test]
fn services_get_upstreams_traffic_policies_and_affinity_timeout() {
    let spec = |s: Value| defaulted("v1", "Service", json!({"spec": s}))["spec"].clone();
    let cluster_ip = spec(json!({"type": "", "sessionAffinity": ""}));
    assert_eq!(cluster_ip["type"], "ClusterIP");
    assert_eq!(cluster_ip["sessionAffinity"], "None");
    assert_eq!(cluster_ip["internalTrafficPolicy"], "Cluster");
    assert!(cluster_ip.get("externalTrafficPolicy").is_none());
    let node_port = spec(json!({"type": "NodePort", "sessionAffinity": "ClientIP"}));
    assert_eq!(node_port["externalTrafficPolicy"], "Cluster");
    assert_eq!(
        node_port["sessionAffinityConfig"],
        json!({"clientIP": {"timeoutSeconds": 10800}})
    );
    let lb = spec(
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
        "sessionAffinityConfig": {"clientIP": {}}}),
    );
    assert_eq!(lb["externalTrafficPolicy"], "Local");
    assert_eq!(lb["allocateLoadBalancerNodePorts"], true);
    assert!(lb.get("sessionAffinityConfig").is_none());
    let external = spec(json!({"type": "ExternalName"}));
    assert!(external.get("internalTrafficPolicy").is_none());
    let exposed = spec(json!({"externalIPs": ["1.2.3.4"]}));
    assert_eq!(exposed["externalTrafficPolicy"], "Cluster");
}

//! CustomResourceDefinitions driven by real kubectl 1.37 (issue 20's acceptance): the CronTab
//! CRD of `tests/crd/crontab-crd.yaml` applied and established, custom resources applied
//! valid and invalid with kube-apiserver's texts on stderr, transition rules, printer
//! columns, short names and categories, the status and scale subresources, deprecation
//! warnings, `kubectl explain`, ratcheting, cost limits at CRD write time, and deletion of the
//! CRD deleting its objects. Each test starts its own server; without kubectl they skip
//! visibly (and fail under `CI=true`).

mod support;

use std::time::Duration;

use serde_json::Value;
use support::Kubectl;

const CRD: &str = include_str!("crd/crontab-crd.yaml");

impl Kubectl {
    /// Applies the CronTab CRD and waits for it to be established.
    fn crontab_crd(&self) {
        let ran = self.apply(CRD);
        assert_eq!(
            (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
            (
                0,
                "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n",
                ""
            ),
        );
        assert_eq!(
            self.ok(&[
                "wait",
                "--for",
                "condition=established",
                "--timeout=30s",
                "crd/crontabs.stable.example.com"
            ]),
            "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met\n"
        );
    }
}

/// A CronTab manifest: `name`, and lines replacing the valid spec's ones by key.
fn crontab(name: &str, changes: &[(&str, &str)]) -> String {
    let mut spec: Vec<(String, String)> = [
        ("cronSpec", "'* * * * */5'"),
        ("image", "my-awesome-cron-image"),
        ("replicas", "2"),
        ("team", "blue"),
        ("mode", "Active"),
        (
            "ports",
            "[{name: http, port: 80}, {name: metrics, port: 9090}]",
        ),
        ("maxSurge", "25%"),
        ("memory", "512Mi"),
        ("homepage", "https://example.com"),
        ("address", "10.0.0.1"),
        (
            "template",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: t}}",
        ),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for (k, v) in changes {
        match spec.iter_mut().find(|(key, _)| key == k) {
            Some(entry) if v.is_empty() => entry.1.clear(),
            Some(entry) => entry.1 = (*v).to_owned(),
            None => spec.push(((*k).to_owned(), (*v).to_owned())),
        }
    }
    let mut yaml = format!(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\nspec:\n"
    );
    for (k, v) in spec.iter().filter(|(_, v)| !v.is_empty()) {
        yaml.push_str(&format!("  {k}: {v}\n"));
    }
    yaml
}

fn rows(output: &str) -> Vec<Vec<String>> {
    output
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn crontabs_are_served_validated_and_printed() {
    let Some(k) = Kubectl::start("crontabs_are_served_validated_and_printed") else {
        return;
    };
    k.crontab_crd();
    let crd = k.json(&["get", "crd", "crontabs.stable.example.com"]);
    assert_eq!(crd["status"]["acceptedNames"]["kind"], "CronTab");
    assert_eq!(crd["status"]["storedVersions"], serde_json::json!(["v1"]));
    assert_eq!(rows(&k.ok(&["get", "crds"]))[0], ["NAME", "CREATED", "AT"]);
    // Discovery: short name, categories, subresources.
    let resources = k.ok(&[
        "api-resources",
        "--api-group=stable.example.com",
        "--no-headers",
    ]);
    assert_eq!(
        rows(&resources),
        [["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"]]
    );
    // A valid object is created, with the schema's defaults.
    let ran = k.apply(&crontab("c1", &[]));
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "crontab.stable.example.com/c1 created\n"),
        "{ran:?}"
    );
    let c1 = k.json(&["get", "ct", "c1"]);
    assert_eq!(c1["spec"]["maxReplicas"], 5);
    // With a status subresource, a create cannot set the status.
    let with_status = crontab("s1", &[]) + "status:\n  replicas: 7\n";
    assert_eq!(k.apply(&with_status).code, 0);
    assert!(k.json(&["get", "ct", "s1"]).get("status").is_none());
    assert_eq!(c1["metadata"]["generation"], 1);
    // Printer columns; -o wide adds the priority-1 column; categories reach `get all`.
    let table = rows(&k.ok(&["get", "crontabs"]));
    assert_eq!(table[0], ["NAME", "SCHEDULE", "REPLICAS", "AGE"]);
    assert_eq!(&table[1][..7], ["c1", "*", "*", "*", "*", "*/5", "2"]);
    let wide = rows(&k.ok(&["get", "ct", "-o", "wide"]));
    assert_eq!(wide[0], ["NAME", "SCHEDULE", "REPLICAS", "IMAGE", "AGE"]);
    assert!(k.ok(&["get", "cron"]).contains("c1"));
    assert!(
        k.ok(&["get", "all"])
            .contains("crontab.stable.example.com/c1")
    );
    // A cross-field rule with a fieldPath: kube-apiserver's exact text.
    let ran = k.apply(&crontab("c1", &[("replicas", "10")]));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CronTab \"c1\" is invalid: spec.replicas: Invalid value: replicas must be <= maxReplicas\n"
    );
    // Several errors: a reason, a messageExpression, a transition rule (immutable team).
    let ran = k.apply(&crontab(
        "c1",
        &[
            ("image", "forbidden/x"),
            ("team", "red"),
            ("cronSpec", "'@hourly'"),
        ],
    ));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CronTab \"c1\" is invalid: \n\
         * spec: Invalid value: cronSpec @hourly uses a macro, which is not supported\n\
         * spec.image: Forbidden: images from forbidden/ may not be used\n\
         * spec.team: Invalid value: \"red\": team is immutable\n"
    );
    // The same image on create passes the transition rule (no oldSelf: not run).
    let ran = k.apply(&crontab("c2", &[("image", "forbidden/x")]));
    assert_eq!(ran.code, 0, "{ran:?}");
    // OpenAPI values, list map rules, int-or-string, embedded resource, libraries.
    let ran = k.apply(&crontab(
        "c3",
        &[
            ("replicas", "-1"),
            ("mode", "Sleeping"),
            ("ports", "[{name: a, port: 80}, {name: a, port: 8080}]"),
        ],
    ));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CronTab \"c3\" is invalid: \n\
         * spec.mode: Unsupported value: \"Sleeping\": supported values: \"Active\", \"Paused\"\n\
         * spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0\n\
         * spec.ports[1]: Duplicate value: {\"name\":\"a\"}\n\
         * <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n"
    );
    let ran = k.apply(&crontab(
        "c3",
        &[
            ("ports", "[{name: admin, port: 80}]"),
            ("maxSurge", "'25'"),
            (
                "template",
                "{apiVersion: v1, kind: Secret, metadata: {name: t}}",
            ),
            ("memory", "2Gi"),
            ("homepage", "http://example.com"),
            ("address", "'::1'"),
        ],
    ));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CronTab \"c3\" is invalid: \n\
         * spec.address: Invalid value: \"::1\": address must be an IPv4 address\n\
         * spec.homepage: Invalid value: \"http://example.com\": homepage must be an https URL\n\
         * spec.maxSurge: Invalid value: \"25\": maxSurge must be a non-negative number or a percentage\n\
         * spec.memory: Invalid value: \"2Gi\": memory must be a quantity of at most 1Gi\n\
         * spec.ports: Invalid value: only the http port may be below 1024\n\
         * spec.template: Invalid value: the template must be a ConfigMap\n"
    );
    // optionalOldSelf: runs on create too, and on update compares with the old value.
    k.apply(&crontab("c4", &[("mode", "Paused")]));
    let ran = k.apply(&crontab("c4", &[("mode", "Active")]));
    assert_eq!(ran.code, 0, "{ran:?}");
    // Unknown fields are pruned with a warning (fieldValidation=Strict from kubectl fails).
    let ran = k.run_stdin(
        &["create", "--validate=warn", "-f", "-"],
        &crontab("c5", &[("bogus", "1")]),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(ran.stderr, "Warning: unknown field \"spec.bogus\"\n");
    assert!(k.json(&["get", "ct", "c5"])["spec"].get("bogus").is_none());
    let ran = k.run_stdin(
        &["create", "--validate=strict", "-f", "-"],
        &crontab("c6", &[("bogus", "1")]),
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr
            .contains("strict decoding error: unknown field \"spec.bogus\""),
        "{ran:?}"
    );
    // Unknown fields of `metadata`, at the root and in an embedded resource (upstream's
    // test/e2e/kubectl/kubectl.go, "should detect unknown metadata fields in both the root
    // and embedded object of a CR": `kubectl create --validate=true`).
    let with_meta = |name: &str, root: &str, embedded: &str| {
        crontab(name, &[("template", &format!(
            "{{apiVersion: v1, kind: ConfigMap, metadata: {{name: t, namespace: default{embedded}}}}}"
        ))])
        .replace(&format!("  name: {name}\n"), &format!("  name: {name}\n{root}"))
    };
    let ran = k.run_stdin(
        &["create", "--validate=true", "-f", "-"],
        &with_meta("c7", "  unknownMeta: foo\n", ""),
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.ends_with(
            "CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: \
             unknown field \"metadata.unknownMeta\"\n"
        ),
        "{ran:?}"
    );
    let ran = k.run_stdin(
        &["create", "--validate=true", "-f", "-"],
        &with_meta("c8", "", ", unknownMetaEmbedded: bar"),
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.ends_with(
            "strict decoding error: unknown field \"spec.template.metadata.unknownMetaEmbedded\"\n"
        ),
        "{ran:?}"
    );
    // Under Warn both are dropped from what is stored.
    let ran = k.run_stdin(
        &["create", "--validate=warn", "-f", "-"],
        &with_meta("c9", "  unknownMeta: foo\n", ", unknownMetaEmbedded: bar"),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "Warning: unknown field \"metadata.unknownMeta\"\n\
         Warning: unknown field \"spec.template.metadata.unknownMetaEmbedded\"\n"
    );
    let stored = k.json(&["get", "ct", "c9"]);
    assert!(stored["metadata"].get("unknownMeta").is_none(), "{stored}");
    assert_eq!(
        stored["spec"]["template"]["metadata"],
        serde_json::json!({"name": "t", "namespace": "default"})
    );
}

#[test]
fn status_scale_deprecation_explain_and_deletion() {
    let Some(k) = Kubectl::start("status_scale_deprecation_explain_and_deletion") else {
        return;
    };
    k.crontab_crd();
    k.apply(&crontab("c1", &[]));
    // scale: the spec's replicas through specReplicasPath.
    assert_eq!(
        k.ok(&["scale", "--replicas=3", "crontab/c1"]),
        "crontab.stable.example.com/c1 scaled\n"
    );
    let c1 = k.json(&["get", "ct", "c1"]);
    assert_eq!(c1["spec"]["replicas"], 3);
    assert_eq!(c1["metadata"]["generation"], 2);
    // The status subresource: main writes keep the status, /status writes only the status.
    k.ok(&[
        "patch",
        "ct",
        "c1",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"replicas":3,"selector":"app=cron"},"spec":{"replicas":1}}"#,
    ]);
    let c1 = k.json(&["get", "ct", "c1"]);
    assert_eq!(c1["status"]["replicas"], 3);
    assert_eq!(c1["spec"]["replicas"], 3);
    assert_eq!(c1["metadata"]["generation"], 2);
    k.ok(&[
        "patch",
        "ct",
        "c1",
        "--type=merge",
        "-p",
        r#"{"status":{"replicas":9}}"#,
    ]);
    assert_eq!(k.json(&["get", "ct", "c1"])["status"]["replicas"], 3);
    // No strategic merge patch for custom resources: upstream's 415.
    let ran = k.run(&["patch", "ct", "c1", "-p", r#"{"spec":{"replicas":2}}"#]);
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, \
         Kind=CronTab: the body of the request was in an unknown format - \
         accepted media types include: application/json-patch+json, application/merge-patch+json, \
         application/apply-patch+yaml\n"
    );
    // Server-side apply of a custom resource.
    let ran = k.run_stdin(
        &["apply", "--server-side", "-f", "-"],
        &crontab("ssa", &[("replicas", "4")]),
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "crontab.stable.example.com/ssa serverside-applied\n"),
        "{ran:?}"
    );
    assert_eq!(k.json(&["get", "ct", "ssa"])["spec"]["maxReplicas"], 5);
    let ran = k.run_stdin(
        &["apply", "--server-side", "-f", "-"],
        &crontab("ssa", &[("replicas", "40")]),
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr
            .contains("spec.replicas: Invalid value: replicas must be <= maxReplicas"),
        "{ran:?}"
    );
    // Two managers on a list-map (`x-kubernetes-list-map-keys: [name]`): merged per key
    // over the CRD's structural schema, each manager owning its own item (as upstream's
    // structured-merge-diff; a plain JSON list would be atomic and conflict).
    let ops = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ssa\n\
               spec:\n  ports:\n  - name: admin\n    port: 8443\n";
    let ran = k.run_stdin(
        &["apply", "--server-side", "--field-manager=ops", "-f", "-"],
        ops,
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let got = k.json(&["get", "ct", "ssa", "--show-managed-fields"]);
    let names: Vec<&str> = got["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["http", "metrics", "admin"]);
    let entry = got["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "ops")
        .expect("an entry for ops")
        .clone();
    assert_eq!(
        entry["fieldsV1"],
        serde_json::json!({"f:spec": {"f:ports": {"k:{\"name\":\"admin\"}": {
            ".": {}, "f:name": {}, "f:port": {}}}}})
    );
    // The other manager's item is not ops' to change: a conflict naming the keyed field.
    let clash = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ssa\n\
                 spec:\n  ports:\n  - name: admin\n    port: 8443\n  - name: http\n    port: 81\n";
    let ran = k.run_stdin(
        &["apply", "--server-side", "--field-manager=ops", "-f", "-"],
        clash,
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains(
            "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.ports[name=\"http\"].port"
        ),
        "{ran:?}"
    );
    // Dropping its item from ops' configuration removes it (nobody else owns it).
    let drop =
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ssa\nspec: {}\n";
    let ran = k.run_stdin(
        &["apply", "--server-side", "--field-manager=ops", "-f", "-"],
        drop,
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let ports = k.json(&["get", "ct", "ssa"])["spec"]["ports"].clone();
    assert_eq!(ports.as_array().map(Vec::len), Some(2), "{ports}");
    let scale = k.ok(&[
        "get",
        "--raw",
        "/apis/stable.example.com/v1/namespaces/default/crontabs/c1/scale",
    ]);
    let scale: Value = serde_json::from_str(&scale).unwrap();
    assert_eq!(
        scale["status"],
        serde_json::json!({"replicas": 3, "selector": "app=cron"})
    );
    // A deprecated version: upstream's default warning text.
    let beta = "apiVersion: stable.example.com/v1beta1\nkind: CronTab\nmetadata:\n  name: b1\nspec:\n  anything: goes\n";
    let ran = k.apply(beta);
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "Warning: stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab\n"
    );
    let metrics = k.ok(&["get", "--raw", "/metrics"]);
    assert!(
        metrics.contains(
            "apiserver_requested_deprecated_apis{group=\"stable.example.com\",removed_release=\"\",resource=\"crontabs\",subresource=\"\",version=\"v1beta1\"} 1"
        ),
        "{metrics}"
    );
    assert!(
        metrics.contains("apiserver_storage_objects{resource=\"crontabs.stable.example.com\"} 3")
    );
    // kubectl explain reads the CRD's OpenAPI v3 document.
    let explain = k.ok(&["explain", "crontabs.spec.ports"]);
    assert!(explain.contains("KIND:       CronTab"), "{explain}");
    assert!(explain.contains("FIELD: ports <[]Object>"), "{explain}");
    assert!(explain.contains("port\t<integer> -required-"), "{explain}");
    // And the swagger-2.0 form of /openapi/v2, which kubectl also reads to validate the
    // items of a `kind: List` on the client (value validations are not published there).
    let explain = k.ok(&[
        "explain",
        "crontabs.spec",
        "--api-version=stable.example.com/v1",
        "--output=plaintext-openapiv2",
    ]);
    assert!(explain.contains("RESOURCE: spec <Object>"), "{explain}");
    assert!(explain.contains("cronSpec\t<string>"), "{explain}");
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n- {}",
        crontab("listed", &[("replicaz", "3")]).replace('\n', "\n  ")
    );
    let refused = k.run_stdin(&["create", "-f", "-"], &list);
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(
        refused.stderr.contains(
            "error validating data: ValidationError(CronTab.spec): unknown field \"replicaz\" \
             in com.example.stable.v1.CronTab.spec"
        ),
        "{refused:?}"
    );
    // Deleting the CRD deletes its objects, then the CRD.
    assert_eq!(
        k.ok(&[
            "delete",
            "crd",
            "crontabs.stable.example.com",
            "--timeout=30s"
        ]),
        "customresourcedefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" deleted\n"
    );
    let gone = k.run(&["get", "crd", "crontabs.stable.example.com"]);
    assert_eq!(gone.code, 1);
    let ran = k.run(&["get", "crontabs"]);
    assert_eq!(ran.code, 1, "{ran:?}");
    // Created again, it starts empty.
    k.crontab_crd();
    assert_eq!(k.ok(&["get", "ct", "-A", "-o", "name"]), "");
}

#[test]
fn crd_write_checks_and_ratcheting() {
    let Some(k) = Kubectl::start("crd_write_checks_and_ratcheting") else {
        return;
    };
    // An unbounded nested loop is too expensive: upstream's factor message.
    let expensive = |bounded: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
             metadata: {{name: widgets.example.com}}\n\
             spec:\n  group: example.com\n  scope: Namespaced\n\
             \x20 names: {{plural: widgets, kind: Widget}}\n\
             \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n\
             \x20   schema:\n      openAPIV3Schema:\n        type: object\n\
             \x20       properties:\n          spec:\n            type: object\n\
             \x20           properties:\n              list:\n                type: array\n{bounded}\
             \x20               items: {{type: string, maxLength: 10}}\n\
             \x20               x-kubernetes-validations:\n\
             \x20               - rule: self.all(x, self.all(y, x == y || x != y))\n\
             \x20             name:\n                type: string\n                maxLength: 20\n\
             \x20               x-kubernetes-validations:\n\
             \x20               - rule: self.size() <= 10\n                  message: name too long\n"
        )
    };
    let ran = k.apply(&expensive(""));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CustomResourceDefinition \"widgets.example.com\" is invalid: \n\
         * spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n\
         * spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n\
         * spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n"
    );
    // maxItems bounds it.
    let ran = k.apply(&expensive("                maxItems: 10\n"));
    assert_eq!(ran.code, 0, "{ran:?}");
    k.ok(&[
        "wait",
        "--for",
        "condition=established",
        "crd/widgets.example.com",
    ]);
    let widget = |name: &str, list: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w}}\nspec:\n  name: {name}\n  list: {list}\n"
        )
    };
    assert_eq!(k.apply(&widget("abcdefghijkl", "[a]")).code, 1);
    k.apply(&widget("short", "[a]"));
    // Ratcheting: tighten the rule, then an update leaving the now-invalid field as it is
    // passes with a warning; changing that field to another invalid value fails.
    let tighter = expensive("                maxItems: 10\n")
        .replace("self.size() <= 10", "self.size() <= 3");
    assert_eq!(k.apply(&tighter).code, 0);
    let ran = k.apply(&widget("short", "[a, b]"));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "Warning: spec.name: Invalid value: \"short\": name too long\n"
    );
    let ran = k.apply(&widget("longer", "[a, b]"));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The Widget \"w\" is invalid: spec.name: Invalid value: \"longer\": name too long\n"
    );
    // OpenAPI errors ratchet too (apiextensions-apiserver ratcheting.go): under maxLength 4
    // the stored name "short" is too long, yet an update leaving it unchanged passes (its
    // rule still warns); a changed name fails with the schema's error, which blocks the rules.
    let tightest = tighter.replace("maxLength: 20", "maxLength: 4");
    assert_eq!(k.apply(&tightest).code, 0);
    let ran = k.apply(&widget("short", "[a, b, c]"));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "Warning: spec.name: Invalid value: \"short\": name too long\n"
    );
    let ran = k.apply(&widget("shorts", "[a, b, c]"));
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The Widget \"w\" is invalid: \n\
         * spec.name: Too long: may not be more than 4 bytes\n\
         * <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n"
    );
    // A CRD that breaks upstream's spec rules.
    let bad = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
               metadata: {name: gadgets.example.com}\n\
               spec:\n  group: nodot\n  scope: Everywhere\n  names: {plural: gadgets, kind: Gadget}\n\
               \x20 versions:\n  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}\n";
    let ran = k.apply(bad);
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "The CustomResourceDefinition \"gadgets.example.com\" is invalid: \n\
         * metadata.name: Invalid value: \"gadgets.example.com\": must be spec.names.plural+\".\"+spec.group\n\
         * spec.group: Invalid value: \"nodot\": should be a domain with at least one dot\n\
         * spec.scope: Unsupported value: \"Everywhere\": supported values: \"Cluster\", \"Namespaced\"\n\
         * spec.versions: Invalid value: \"\": must have exactly one version marked as storage version\n"
    );
}

const SHIRTS: &str = include_str!("crd/shirt-crd.yaml");

// Upstream: the documentation's selectable fields task (kubectl get shirts
// --field-selector spec.color=blue), apiextensions-apiserver's
// ValidateCustomResourceSelectableFields texts and the custom resource strategy's values
// (registry/customresource/strategy.go selectableFields: fmt.Sprint of the value).
#[test]
fn selectable_fields_filter_lists_and_watches() {
    let Some(k) = Kubectl::start("selectable_fields_filter_lists_and_watches") else {
        return;
    };
    k.applied(SHIRTS);
    k.ok(&[
        "wait",
        "--for",
        "condition=established",
        "crd/shirts.stable.example.com",
    ]);
    let shirt = |name: &str, color: &str, size: &str, sleeves: i64, ironed: bool| {
        format!(
            "apiVersion: stable.example.com/v1\nkind: Shirt\nmetadata: {{name: {name}}}\n\
             spec: {{color: {color}, size: {size}, sleeves: {sleeves}, ironed: {ironed}}}\n"
        )
    };
    k.applied(&shirt("example1", "blue", "S", 2, true));
    k.applied(&shirt("example2", "blue", "M", 0, false));
    k.applied(&shirt("example3", "green", "M", 2, false));
    let names =
        |selector: &str| k.ok(&["get", "shirts", "--field-selector", selector, "-o", "name"]);
    assert_eq!(
        names("spec.color=blue"),
        "shirt.stable.example.com/example1\nshirt.stable.example.com/example2\n"
    );
    assert_eq!(
        names("spec.color=blue,spec.size=M"),
        "shirt.stable.example.com/example2\n"
    );
    assert_eq!(
        names("spec.sleeves=2,spec.ironed=false"),
        "shirt.stable.example.com/example3\n"
    );
    assert_eq!(names("spec.size!=M"), "shirt.stable.example.com/example1\n");
    assert_eq!(
        names("metadata.name=example3,spec.color==green"),
        "shirt.stable.example.com/example3\n"
    );
    // The table (printer columns) of a filtered list.
    let table = rows(&k.ok(&["get", "shirts", "--field-selector", "spec.color=green"]));
    assert_eq!(table.len(), 2, "{table:?}");
    assert_eq!(table[0], ["NAME", "COLOR", "SIZE"]);
    assert_eq!(table[1][..3], ["example3", "green", "M"]);
    // A field that is not selectable: upstream's field label conversion error.
    let ran = k.run(&["get", "shirts", "--field-selector", "spec.fabric=silk"]);
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "Error from server (BadRequest): Unable to find \"stable.example.com/v1, \
         Resource=shirts\" that match label selector \"\", field selector \
         \"spec.fabric=silk\": field label not supported: spec.fabric\n"
    );
    // A watch with a selectable field sees only the matching objects: none is red at first,
    // so its first line is the shirt patched to red (in the initial list or as an event,
    // whichever comes first), never the blue one patched meanwhile.
    let mut watch = k.command(&[
        "get",
        "shirts",
        "--watch",
        "--field-selector",
        "spec.color=red",
        "-o",
        "name",
        "--request-timeout=20s",
    ]);
    watch
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut watch = watch.spawn().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    k.ok(&[
        "patch",
        "shirt",
        "example3",
        "--type=merge",
        "-p",
        "{\"spec\":{\"color\":\"red\"}}",
    ]);
    k.ok(&[
        "patch",
        "shirt",
        "example1",
        "--type=merge",
        "-p",
        "{\"spec\":{\"size\":\"L\"}}",
    ]);
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(watch.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = watch.kill();
    let _ = watch.wait();
    assert_eq!(line, "shirt.stable.example.com/example3\n");

    // CRD write checks with upstream's texts.
    let bad = SHIRTS
        .replace("name: shirts.stable.example.com", "name: coats.stable.example.com")
        .replace("plural: shirts", "plural: coats")
        .replace("singular: shirt", "singular: coat")
        .replace("kind: Shirt", "kind: Coat")
        .replace(
            "    - jsonPath: .spec.ironed\n",
            "    - jsonPath: .spec.ironed\n    - jsonPath: .spec.color\n    - jsonPath: spec.size\n    \
             - jsonPath: .metadata.name\n    - jsonPath: .spec\n    - jsonPath: .spec.color[0]\n",
        );
    let ran = k.apply(&bad);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(
        ran.stderr,
        "The CustomResourceDefinition \"coats.stable.example.com\" is invalid: \n\
         * spec.versions[0].selectableFields[4].jsonPath: Duplicate value: \".spec.color\"\n\
         * spec.versions[0].selectableFields[5].jsonPath: Invalid value: \"spec.size\": is an invalid path: expected [ or . but got: spec\n\
         * spec.versions[0].selectableFields[6].jsonPath: Invalid value: \".metadata.name\": is an invalid path: does not refer to a valid field\n\
         * spec.versions[0].selectableFields[7].jsonPath: Invalid value: \".spec\": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.\n\
         * spec.versions[0].selectableFields[8].jsonPath: Invalid value: \".spec.color[0]\": is an invalid path: array notation is not allowed\n"
    );
    let nine: String = (0..9)
        .map(|i| format!("    - jsonPath: .spec.labels.k{i}\n"))
        .collect();
    let many = SHIRTS
        .replace("name: shirts.stable.example.com", "name: coats.stable.example.com")
        .replace("plural: shirts", "plural: coats")
        .replace("singular: shirt", "singular: coat")
        .replace("kind: Shirt", "kind: Coat")
        .replace(
            "              ironed:\n",
            "              labels:\n                type: object\n                \
             additionalProperties: {type: string}\n              ironed:\n",
        )
        .replace(
            "    - jsonPath: .spec.color\n    - jsonPath: .spec.size\n    - jsonPath: .spec.sleeves\n    - jsonPath: .spec.ironed\n",
            &nine,
        );
    let ran = k.apply(&many);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            "The CustomResourceDefinition \"coats.stable.example.com\" is invalid: \
             spec.versions[0].selectableFields: Too many: 9: must have at most 8 items\n"
        ),
        "{ran:?}"
    );
}

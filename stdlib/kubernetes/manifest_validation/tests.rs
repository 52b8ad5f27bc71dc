use serde_json::json;

use super::*;

const CRD: &str = include_str!("../../../examples/tour/widgets-crd.yaml");

fn crd() -> CrdValidator {
    let document = crate::documents::parse_manifests(CRD).unwrap().remove(0);
    CrdValidator::new(&document).unwrap()
}

fn reports(set: ManifestSet<'_>) -> Vec<ObjectReport> {
    set.validate().map(Result::unwrap).collect()
}

#[test]
fn custom_and_builtin_objects_are_validated_in_input_order() {
    let crd = crd();
    let mut set = ManifestSet::new(std::slice::from_ref(&crd), Vec::new());
    let widgets = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: a}\n\
                   spec: {replicas: 11}\n---\nkind: List\napiVersion: v1\nitems:\n\
                   - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, bogus: 1}\n";
    set.add("one.yaml", widgets).unwrap();
    set.add(
        "-",
        "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"x.y\"}}",
    )
    .unwrap();
    let found = reports(set);
    let summary: Vec<_> = (found.iter())
        .map(|r| (r.file.as_str(), r.kind.as_str(), r.name.as_str(), r.valid))
        .collect();
    assert_eq!(
        summary,
        [
            ("one.yaml", "Widget", "w", false),
            ("one.yaml", "ConfigMap", "c", true),
            ("-", "Namespace", "x.y", false),
        ]
    );
    assert_eq!(found[0].namespace, "a");
    assert_eq!(
        found[0].errors[0].to_string(),
        "spec: Invalid value: at most 10 replicas"
    );
    assert_eq!(found[1].warnings, ["unknown field \"bogus\""]);
    assert_eq!(
        found[2].errors[0].to_string(),
        "metadata.name: Invalid value: \"x.y\": must not contain dots"
    );
    // A custom resource's report holds its version and rule costs, a built-in kind's none.
    let costs = found[0]
        .rule_costs
        .as_ref()
        .expect("the Widget's rule costs");
    assert_eq!(costs.version, "v1");
    let ran: Vec<_> = (costs.costs.iter()).map(|c| (c.path(), c.rule())).collect();
    assert_eq!(ran, [("spec", "self.replicas <= 10")]);
    assert!(costs.costs[0].cost() > 0);
    let spent: u64 = costs.costs.iter().map(RuleCost::cost).sum();
    assert_eq!(
        costs.remaining_budget,
        crate::kubernetes::crd::PER_OBJECT_COST_BUDGET - spent as i64
    );
    assert_eq!(found[1].rule_costs, None);
}

#[test]
fn duplicate_keys_of_a_custom_resource_come_before_pruned_fields() {
    let crd = crd();
    let mut set = ManifestSet::new(std::slice::from_ref(&crd), Vec::new());
    let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n\
                spec: {replicas: 1, replicas: 2, extra: 3}\n";
    set.add("w.yaml", text).unwrap();
    let found = reports(set);
    assert_eq!(
        found[0].warnings,
        [
            "line 4: key \"replicas\" already set in map",
            "unknown field \"spec.extra\""
        ]
    );
}

#[test]
fn an_old_object_pairs_by_namespace_and_name() {
    let crd = crd();
    let old = vec![json!({"kind": "List", "items": [
        {"apiVersion": "example.com/v1", "kind": "Widget",
         "metadata": {"name": "w", "namespace": "a"}, "spec": {"owner": "ada"}},
        {"apiVersion": "example.com/v1", "kind": "Widget",
         "metadata": {"name": "w", "namespace": "b"}, "spec": {"owner": "bob"}},
        {"apiVersion": "example.com/v1", "kind": "Widget",
         "metadata": {"name": "gone", "namespace": "a"}},
    ]})];
    let mut set = ManifestSet::new(std::slice::from_ref(&crd), old);
    let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: b}\n\
                spec: {owner: ada, replicas: 1}\n";
    set.add("w.yaml", text).unwrap();
    assert_eq!(
        set.unmatched_old().collect::<Vec<_>>(),
        [("Widget", "a", "w"), ("Widget", "a", "gone")]
    );
    let found = reports(set);
    assert_eq!(
        found[0].errors[0].to_string(),
        "spec.owner: Invalid value: \"ada\": owner is immutable"
    );
}

#[test]
fn objects_neither_built_in_nor_served_are_reported_and_the_others_validated() {
    let gizmo = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n";
    let crd = crd();
    let mut set = ManifestSet::new(std::slice::from_ref(&crd), Vec::new());
    let ok = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
    let text = format!(
        "{gizmo}---\n{ok}---\napiVersion: example.com/v2\nkind: Widget\nmetadata: {{name: w2}}\n"
    );
    set.add("w.yaml", &text).unwrap();
    let found = reports(set);
    let summary: Vec<_> = (found.iter())
        .map(|r| {
            let error = r.mapping_error.as_ref().map(ToString::to_string);
            (r.kind.as_str(), r.name.as_str(), r.valid, error)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "Gizmo",
                "g",
                false,
                Some("no matches for kind \"Gizmo\" in version \"example.com/v1\"".into())
            ),
            ("Widget", "w", true, None),
            (
                "Widget",
                "w2",
                false,
                Some("apiVersion \"example.com/v2\" matches no version of the CRD".into())
            ),
        ]
    );
    let mut report = ManifestReport::default();
    report.push(found[0].clone());
    assert_eq!(
        serde_json::to_value(&report).unwrap()["objects"][0]["mapping_error"],
        json!("no matches for kind \"Gizmo\" in version \"example.com/v1\"")
    );
}

#[test]
fn each_custom_resource_is_validated_by_the_crd_of_its_kind_and_group() {
    let widgets = crd();
    let gizmo_crd = CRD
        .replace("widgets", "gizmos")
        .replace("Widget", "Gizmo")
        .replace("widget", "gizmo");
    let gizmo_crd = crate::documents::parse_manifests(&gizmo_crd)
        .unwrap()
        .remove(0);
    let crds = [widgets, CrdValidator::new(&gizmo_crd).unwrap()];
    let mut set = ManifestSet::new(&crds, Vec::new());
    set.add(
        "both.yaml",
        "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {replicas: 11}\n\
         ---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
    )
    .unwrap();
    let found = reports(set);
    assert_eq!((found[0].kind.as_str(), found[0].valid), ("Gizmo", false));
    assert_eq!(
        found[0].errors[0].to_string(),
        "spec: Invalid value: at most 10 replicas"
    );
    assert_eq!((found[1].kind.as_str(), found[1].valid), ("Widget", true));
}

#[test]
fn an_old_object_pairs_only_with_an_object_of_its_kind() {
    // A Deployment and a Service of one name: each is the update of its own old object.
    let old = vec![json!({"kind": "List", "items": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"clusterIP": "10.0.0.1", "ports": [{"port": 80}]}},
    ]})];
    let mut set = ManifestSet::new(&[], old);
    set.add(
        "svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n\
         spec: {clusterIP: 10.0.0.2, ports: [{port: 80}]}\n",
    )
    .unwrap();
    assert_eq!(
        set.unmatched_old().collect::<Vec<_>>(),
        [("Deployment", "", "web")]
    );
    let found = reports(set);
    assert_eq!(
        found[0].errors[0].to_string(),
        "spec.clusterIPs[0]: Invalid value: [\"10.0.0.2\"]: may not change once set"
    );
}

#[test]
fn unreadable_and_empty_texts_are_errors() {
    let mut set = ManifestSet::new(&[], Vec::new());
    assert_eq!(
        set.add("-", "# nothing\n").unwrap_err().to_string(),
        "stdin holds no objects"
    );
    assert_eq!(
        set.add("e.yaml", "").unwrap_err().to_string(),
        "'e.yaml' holds no objects"
    );
    let error = set.add("bad.yaml", "a: [").unwrap_err();
    assert!(matches!(error, ManifestError::Unreadable { .. }), "{error}");
    assert!(error.to_string().starts_with("'bad.yaml': "), "{error}");
    // An empty List holds no objects but is no error.
    set.add("l.yaml", "kind: List\napiVersion: v1\nitems: []\n")
        .unwrap();
    assert_eq!(reports(set).len(), 0);
}

#[test]
fn the_report_serialises_as_the_cli_prints_it() {
    let mut set = ManifestSet::new(&[], Vec::new());
    set.add(
        "c.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n",
    )
    .unwrap();
    let mut report = ManifestReport::default();
    for object in set.validate() {
        report.push(object.unwrap());
    }
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        json!({"valid": true, "objects": [{"file": "c.yaml", "kind": "ConfigMap",
            "namespace": "ns", "name": "c", "valid": true, "errors": [], "warnings": []}]})
    );
}

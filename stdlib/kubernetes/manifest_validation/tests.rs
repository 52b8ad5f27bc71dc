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
    let mut set = ManifestSet::new(Some(&crd), Vec::new());
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
    let mut set = ManifestSet::new(Some(&crd), Vec::new());
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
    let mut set = ManifestSet::new(Some(&crd), old);
    let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: b}\n\
                spec: {owner: ada, replicas: 1}\n";
    set.add("w.yaml", text).unwrap();
    assert_eq!(
        set.unmatched_old().collect::<Vec<_>>(),
        [("a", "w"), ("a", "gone")]
    );
    let found = reports(set);
    assert_eq!(
        found[0].errors[0].to_string(),
        "spec.owner: Invalid value: \"ada\": owner is immutable"
    );
}

#[test]
fn objects_neither_built_in_nor_served_are_errors() {
    let gizmo = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n";
    let mut set = ManifestSet::new(None, Vec::new());
    assert_eq!(
        set.add("g.yaml", gizmo).unwrap_err().to_string(),
        "'g.yaml': object \"g\": no matches for kind \"Gizmo\" in version \"example.com/v1\""
    );
    let crd = crd();
    let mut set = ManifestSet::new(Some(&crd), Vec::new());
    let ok = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
    assert_eq!(
        set.add(
            "w.yaml",
            &format!("{ok}---\napiVersion: example.com/v2\nkind: Widget\nmetadata: {{name: w2}}\n")
        )
        .unwrap_err()
        .to_string(),
        "'w.yaml': object \"w2\": apiVersion \"example.com/v2\" matches no version of the CRD"
    );
    // Nothing of a text with an error is added.
    assert_eq!(reports(set).len(), 0);
}

#[test]
fn unreadable_and_empty_texts_are_errors() {
    let mut set = ManifestSet::new(None, Vec::new());
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
    let mut set = ManifestSet::new(None, Vec::new());
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

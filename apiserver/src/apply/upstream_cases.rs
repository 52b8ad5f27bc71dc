//! Ports of structured-merge-diff's merge fixtures (single-version cases), run through
//! [`super::updater::Updater`] with schemas written as CRD structural schemas:
//! `merge/set_test.go` (TestUpdateSet), `merge/multiple_appliers_test.go`
//! (TestMultipleAppliersSet, TestMultipleAppliersFieldUnsetting).

use serde_json::{Value, json};

use super::fieldpath::{Path, PathElement, Set};
use super::updater::{Conflict, Managers, Updater};
use kcel_stdlib::kubernetes::crd::Schema as Crd;

enum Op {
    Apply(&'static str, Value),
    Update(&'static str, Value),
    /// An apply expected to fail with these conflicts (manager, path).
    Conflicts(&'static str, Value, Vec<(&'static str, Path)>),
}

fn f(name: &str) -> PathElement {
    PathElement::Field(name.to_owned())
}

fn k(name: &str) -> PathElement {
    PathElement::Key(vec![("name".to_owned(), json!(name))])
}

fn v(value: &str) -> PathElement {
    PathElement::Value(json!(value))
}

/// Runs the operations from an empty object and checks the object and every manager's set.
fn run(schema: &Crd, ops: Vec<Op>, object: Value, managed: Vec<(&str, Vec<Path>)>) {
    static NONE: Set = Set::new();
    let updater = Updater {
        schema: Some(schema),
        ignored: &NONE,
    };
    let mut live = json!({});
    let mut managers = Managers::new();
    for op in ops {
        match op {
            Op::Apply(manager, config) => {
                let (new, m) = updater
                    .apply(&live, &config, "v1", managers, manager, false)
                    .unwrap_or_else(|c| panic!("{manager}: unexpected conflicts {c:?}"));
                live = new;
                managers = m;
            }
            Op::Update(manager, new) => {
                managers = updater.update(&live, &new, "v1", managers, manager);
                live = new;
            }
            Op::Conflicts(manager, config, expected) => {
                let got = updater
                    .apply(&live, &config, "v1", managers.clone(), manager, false)
                    .expect_err("conflicts");
                let expected: Vec<Conflict> = expected
                    .into_iter()
                    .map(|(m, p)| Conflict {
                        manager: m.to_owned(),
                        path: p,
                    })
                    .collect();
                assert_eq!(got, expected);
            }
        }
    }
    assert_eq!(live, object);
    let got: Vec<(String, Set)> = managers.into_iter().map(|(m, vs)| (m, vs.set)).collect();
    let mut expected: Vec<(String, Set)> = managed
        .into_iter()
        .map(|(m, paths)| (m.to_owned(), paths.into_iter().collect()))
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, expected);
}

fn set_schema() -> Crd {
    Crd::from_json(
        &json!({"type": "object", "properties": {"list": {"type": "array",
        "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}),
    )
    .unwrap()
}

fn list(items: &[&str]) -> Value {
    json!({ "list": items })
}

fn set_paths(items: &[&str]) -> Vec<Path> {
    items.iter().map(|i| vec![f("list"), v(i)]).collect()
}

#[test]
fn update_set() {
    let s = set_schema();
    // apply_twice
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "c"])),
            Op::Apply("default", list(&["a", "b", "c", "d"])),
        ],
        list(&["a", "b", "c", "d"]),
        vec![("default", set_paths(&["a", "b", "c", "d"]))],
    );
    // apply_update_apply_no_overlap
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "c"])),
            Op::Update("controller", list(&["a", "b", "c", "d"])),
            Op::Apply("default", list(&["a", "aprime", "c", "cprime"])),
        ],
        list(&["a", "b", "aprime", "c", "d", "cprime"]),
        vec![
            ("default", set_paths(&["a", "aprime", "c", "cprime"])),
            ("controller", set_paths(&["b", "d"])),
        ],
    );
    // apply_update_apply_with_overlap
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "c"])),
            Op::Update("controller", list(&["a", "b", "c", "d"])),
            Op::Apply("default", list(&["a", "b", "c"])),
        ],
        list(&["a", "b", "c", "d"]),
        vec![
            ("default", set_paths(&["a", "b", "c"])),
            ("controller", set_paths(&["b", "d"])),
        ],
    );
    // apply_twice_reorder
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "b", "c", "d"])),
            Op::Apply("default", list(&["a", "d", "c", "b"])),
        ],
        list(&["a", "d", "c", "b"]),
        vec![("default", set_paths(&["a", "b", "c", "d"]))],
    );
    // apply_update_apply_reorder
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "b", "c", "d"])),
            Op::Update("controller", list(&["a", "d", "c", "b"])),
            Op::Apply("default", list(&["a", "b", "c", "d"])),
        ],
        list(&["a", "b", "c", "d"]),
        vec![("default", set_paths(&["a", "b", "c", "d"]))],
    );
    // apply_twice_remove
    run(
        &s,
        vec![
            Op::Apply("default", list(&["a", "b", "c", "d"])),
            Op::Apply("default", list(&["a", "c"])),
        ],
        list(&["a", "c"]),
        vec![("default", set_paths(&["a", "c"]))],
    );
}

fn associative_schema() -> Crd {
    Crd::from_json(
        &json!({"type": "object", "properties": {"list": {"type": "array",
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"},
            "value": {"type": "integer"}}}}}}),
    )
    .unwrap()
}

fn named(items: &[&str]) -> Value {
    json!({"list": items.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()})
}

fn named_paths(items: &[&str]) -> Vec<Path> {
    items
        .iter()
        .flat_map(|n| [vec![f("list"), k(n)], vec![f("list"), k(n), f("name")]])
        .collect()
}

#[test]
fn multiple_appliers_set() {
    let s = associative_schema();
    // remove_one
    run(
        &s,
        vec![
            Op::Apply("apply-one", named(&["a", "b"])),
            Op::Apply("apply-two", named(&["c"])),
            Op::Apply("apply-one", named(&["a"])),
        ],
        named(&["a", "c"]),
        vec![
            ("apply-one", named_paths(&["a"])),
            ("apply-two", named_paths(&["c"])),
        ],
    );
    // same_value_no_conflict
    let a0 = json!({"list": [{"name": "a", "value": 0}]});
    let mut a0_paths = named_paths(&["a"]);
    a0_paths.push(vec![f("list"), k("a"), f("value")]);
    run(
        &s,
        vec![
            Op::Apply("apply-one", a0.clone()),
            Op::Apply("apply-two", a0.clone()),
        ],
        a0.clone(),
        vec![
            ("apply-one", a0_paths.clone()),
            ("apply-two", a0_paths.clone()),
        ],
    );
    // change_value_yes_conflict
    run(
        &s,
        vec![
            Op::Apply("apply-one", a0.clone()),
            Op::Conflicts(
                "apply-two",
                json!({"list": [{"name": "a", "value": 1}]}),
                vec![("apply-one", vec![f("list"), k("a"), f("value")])],
            ),
        ],
        a0,
        vec![("apply-one", a0_paths)],
    );
    // remove_one_keep_one
    run(
        &s,
        vec![
            Op::Apply("apply-one", named(&["a", "b", "c"])),
            Op::Apply("apply-two", named(&["c", "d"])),
            Op::Apply("apply-one", named(&["a"])),
        ],
        named(&["a", "c", "d"]),
        vec![
            ("apply-one", named_paths(&["a"])),
            ("apply-two", named_paths(&["c", "d"])),
        ],
    );
}

fn struct_schema() -> Crd {
    Crd::from_json(
        &json!({"type": "object", "properties": {"struct": {"type": "object",
        "properties": {"name": {"type": "string"}, "scalarField_v1": {"type": "string"},
            "complexField_v1": {"type": "object",
                "properties": {"name": {"type": "string"}}}}}}}),
    )
    .unwrap()
}

#[test]
fn multiple_appliers_field_unsetting() {
    let s = struct_schema();
    let name = || vec![f("struct"), f("name")];
    let scalar = || vec![f("struct"), f("scalarField_v1")];
    let with_scalar = |value: &str| json!({"struct": {"name": "a", "scalarField_v1": value}});
    let only_name = json!({"struct": {"name": "a"}});
    // unset_scalar_sole_owner
    run(
        &s,
        vec![
            Op::Apply("apply-one", with_scalar("a")),
            Op::Apply("apply-one", only_name.clone()),
        ],
        only_name.clone(),
        vec![("apply-one", vec![name()])],
    );
    // unset_scalar_shared_with_applier
    run(
        &s,
        vec![
            Op::Apply("apply-one", with_scalar("a")),
            Op::Apply("apply-two", json!({"struct": {"scalarField_v1": "a"}})),
            Op::Apply("apply-one", only_name.clone()),
        ],
        with_scalar("a"),
        vec![("apply-one", vec![name()]), ("apply-two", vec![scalar()])],
    );
    // unset_scalar_shared_with_updater
    run(
        &s,
        vec![
            Op::Update("updater", with_scalar("a")),
            Op::Apply("applier", with_scalar("a")),
            Op::Apply("applier", only_name.clone()),
        ],
        with_scalar("a"),
        vec![
            ("updater", vec![vec![f("struct")], name(), scalar()]),
            ("applier", vec![name()]),
        ],
    );
    // updater_claims_field
    run(
        &s,
        vec![
            Op::Apply("applier", with_scalar("a")),
            Op::Update("updater", with_scalar("b")),
        ],
        with_scalar("b"),
        vec![("updater", vec![scalar()]), ("applier", vec![name()])],
    );
    // unset_complex_sole_owner
    let complex = json!({"struct": {"name": "a", "complexField_v1": {"name": "b"}}});
    run(
        &s,
        vec![
            Op::Apply("apply-one", complex.clone()),
            Op::Apply("apply-one", only_name.clone()),
        ],
        only_name.clone(),
        vec![("apply-one", vec![name()])],
    );
    // unset_complex_shared_with_applier
    run(
        &s,
        vec![
            Op::Apply("apply-one", complex.clone()),
            Op::Apply(
                "apply-two",
                json!({"struct": {"complexField_v1": {"name": "b"}}}),
            ),
            Op::Apply("apply-one", only_name),
        ],
        complex,
        vec![
            ("apply-one", vec![name()]),
            (
                "apply-two",
                vec![vec![f("struct"), f("complexField_v1"), f("name")]],
            ),
        ],
    );
}

fn nested_schema() -> Crd {
    Crd::from_json(
        &json!({"type": "object", "properties": {"listOfLists": {"type": "array",
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"},
            "value": {"type": "array", "x-kubernetes-list-type": "set",
                "items": {"type": "string"}}}}}}}),
    )
    .unwrap()
}

/// `listOfLists` items: a name with an optional list of values.
fn lol(items: &[(&str, &[&str])]) -> Value {
    json!({"listOfLists": items.iter().map(|(n, values)| {
        if values.is_empty() {
            json!({"name": n})
        } else {
            json!({"name": n, "value": values})
        }
    }).collect::<Vec<_>>()})
}

fn lol_item(name: &str) -> Vec<Path> {
    vec![
        vec![f("listOfLists"), k(name)],
        vec![f("listOfLists"), k(name), f("name")],
    ]
}

fn lol_value(name: &str, value: &str) -> Path {
    vec![f("listOfLists"), k(name), f("value"), v(value)]
}

#[test]
fn multiple_appliers_nested_type() {
    let s = nested_schema();
    // remove_one_keep_one_with_two_sub_items
    run(
        &s,
        vec![
            Op::Apply("apply-one", lol(&[("a", &[]), ("b", &["c"])])),
            Op::Apply("apply-two", lol(&[("b", &["d"])])),
            Op::Apply("apply-one", lol(&[("a", &[])])),
        ],
        lol(&[("a", &[]), ("b", &["d"])]),
        vec![
            ("apply-one", lol_item("a")),
            (
                "apply-two",
                [lol_item("b"), vec![lol_value("b", "d")]].concat(),
            ),
        ],
    );
    // remove_one_keep_one_with_dangling_subitem
    run(
        &s,
        vec![
            Op::Apply("apply-one", lol(&[("a", &[]), ("b", &["c"])])),
            Op::Apply("apply-two", lol(&[("b", &["d"])])),
            Op::Update("controller", lol(&[("a", &[]), ("b", &["c", "d", "e"])])),
            Op::Apply("apply-one", lol(&[("a", &[])])),
        ],
        lol(&[("a", &[]), ("b", &["d", "e"])]),
        vec![
            ("apply-one", lol_item("a")),
            (
                "apply-two",
                [lol_item("b"), vec![lol_value("b", "d")]].concat(),
            ),
            ("controller", vec![lol_value("b", "e")]),
        ],
    );
    // remove_one_with_dangling_subitem_keep_one
    run(
        &s,
        vec![
            Op::Apply("apply-one", lol(&[("a", &[]), ("b", &["c"])])),
            Op::Apply("apply-two", lol(&[("a", &["b"])])),
            Op::Update("controller", lol(&[("a", &["b"]), ("b", &["c", "d"])])),
            Op::Apply("apply-one", lol(&[("a", &[])])),
        ],
        lol(&[("a", &["b"])]),
        vec![
            ("apply-one", lol_item("a")),
            (
                "apply-two",
                [lol_item("a"), vec![lol_value("a", "b")]].concat(),
            ),
        ],
    );
}

/// Force-applies and checks the object and managers (for the ForceApply operation).
fn force_apply(
    schema: &Crd,
    live: &Value,
    managers: Managers,
    manager: &str,
    config: &Value,
) -> (Value, Managers) {
    static NONE: Set = Set::new();
    let updater = Updater {
        schema: Some(schema),
        ignored: &NONE,
    };
    updater
        .apply(live, config, "v1", managers, manager, true)
        .unwrap()
}

// TestMultipleApplierAtomicMaps "force": an atomic map is one field, conflicting whole,
// replaced whole when forced.
#[test]
fn multiple_applier_atomic_maps() {
    let s = Crd::from_json(&json!({"type": "object", "properties": {"atomicMap": {
        "type": "object", "x-kubernetes-map-type": "atomic",
        "additionalProperties": {"type": "string"}}}}))
    .unwrap();
    let one = json!({"atomicMap": {"field1": "a"}});
    let two = json!({"atomicMap": {"field2": "b"}});
    run(
        &s,
        vec![
            Op::Apply("apply-one", one.clone()),
            Op::Conflicts(
                "apply-two",
                two.clone(),
                vec![("apply-one", vec![f("atomicMap")])],
            ),
        ],
        one.clone(),
        vec![("apply-one", vec![vec![f("atomicMap")]])],
    );
    let (live, m) = force_apply(&s, &json!({}), Managers::new(), "apply-one", &one);
    let (live, m) = force_apply(&s, &live, m, "apply-two", &two);
    assert_eq!(live, two);
    assert_eq!(m.keys().collect::<Vec<_>>(), ["apply-two"]);
    assert_eq!(
        m["apply-two"].set,
        [vec![f("atomicMap")]].into_iter().collect()
    );
}

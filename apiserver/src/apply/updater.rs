//! The three-way field-set computation of server-side apply, as structured-merge-diff's
//! `merge.Updater` does it, for objects of one version: which manager owns which fields
//! after an update or an apply, what an apply merges and prunes, and its conflicts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::apply_schema::{ApplySchema, Node};
use super::fieldpath::{Path, Set, recursive_difference};
use super::typed::{Comparison, compare, ensure_named_fields, merge, remove_items, to_field_set};

/// The fields one manager owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionedSet {
    /// The owned fields.
    pub set: Set,
    /// The apiVersion the fields are named in.
    pub api_version: String,
    /// Whether the manager applied them (else it updated them).
    pub applied: bool,
}

/// Every manager's fields, by manager identifier.
pub type Managers = BTreeMap<String, VersionedSet>;

/// A field that an apply changes and another manager owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The other manager's identifier.
    pub manager: String,
    /// The field.
    pub path: Path,
}

/// Computes ownership for writes to objects of one schema.
pub struct Updater<'a, S> {
    /// The objects' schema.
    pub schema: Node<S>,
    /// Fields that are not tracked for this kind of write (a status subresource's object
    /// part, or the status for writes to the main resource).
    pub ignored: &'a Set,
}

impl<S: ApplySchema> Updater<'_, S> {
    fn compare(&self, old: &Value, new: &Value) -> Comparison {
        compare(old, new, &self.schema).exclude(self.ignored)
    }

    /// Takes the fields that `old` → `new` changed from every manager but `workflow`
    /// (conflicts unless forced) and the removed fields from all. Objects have one version
    /// here, so no manager's fields need converting first.
    fn update_others(
        &self,
        old: &Value,
        new: &Value,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, Vec<Conflict>> {
        let compare = self.compare(old, new);
        let changed = compare.modified.union(&compare.added);
        let mut conflicts = Vec::new();
        for (manager, owned) in managers.iter() {
            if manager == workflow {
                continue;
            }
            for path in owned.set.intersection(&changed).paths() {
                conflicts.push(Conflict {
                    manager: manager.clone(),
                    path,
                });
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(conflicts);
        }
        for (manager, owned) in managers.iter_mut() {
            if manager == workflow {
                continue;
            }
            owned.set = owned.set.difference(&changed).difference(&compare.removed);
        }
        managers.retain(|_, owned| !owned.set.is_empty());
        Ok(compare)
    }

    /// The managers after `manager` turned `live` into `new` by an update (create, update,
    /// patch): it owns what it added or changed, others lose those, removed fields leave
    /// everyone.
    pub fn update(
        &self,
        live: &Value,
        new: &Value,
        version: &str,
        mut managers: Managers,
        manager: &str,
    ) -> Managers {
        let compare = self
            .update_others(live, new, &mut managers, manager, true)
            .unwrap_or_default();
        let mut set = managers
            .remove(manager)
            .map(|v| v.set)
            .unwrap_or_default()
            .difference(&compare.removed);
        set.union_with(&compare.modified);
        set.union_with(&compare.added);
        let set = recursive_difference(&set, self.ignored);
        if !set.is_empty() {
            managers.insert(
                manager.to_owned(),
                VersionedSet {
                    set,
                    api_version: version.to_owned(),
                    applied: false,
                },
            );
        }
        managers
    }

    /// Applies `config` to `live` for `manager`: the merged object (pruned of the fields the
    /// manager applied before and no longer does, unless others own them) and the managers;
    /// the conflicts with other managers unless forced.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        version: &str,
        mut managers: Managers,
        manager: &str,
        force: bool,
    ) -> Result<(Value, Managers), Vec<Conflict>> {
        let merged = merge(live, config, &self.schema);
        let last = managers.get(manager).cloned();
        let set = recursive_difference(&to_field_set(config, &self.schema), self.ignored);
        managers.insert(
            manager.to_owned(),
            VersionedSet {
                set,
                api_version: version.to_owned(),
                applied: true,
            },
        );
        let new = match last {
            Some(last) if !last.set.is_empty() => self.prune(&merged, &managers, &last.set),
            _ => merged,
        };
        self.update_others(live, &new, &mut managers, manager, force)?;
        Ok((new, managers))
    }

    /// Removes from `merged` what the manager applied last time (`last`) and no longer
    /// applies, unless someone (the manager's new configuration included) owns it.
    fn prune(&self, merged: &Value, managers: &Managers, last: &Set) -> Value {
        let s = &self.schema;
        let empty = Value::Object(Default::default());
        let pruned =
            remove_items(merged, &ensure_named_fields(last, s), s).unwrap_or(empty.clone());
        // Add back what anyone owns.
        let mut managed = Set::new();
        for owned in managers.values() {
            managed.union_with(&owned.set);
        }
        let merged_set = ensure_named_fields(&to_field_set(merged, s), s);
        let pruned_set = ensure_named_fields(&to_field_set(&pruned, s), s);
        let keep = pruned_set.union(&ensure_named_fields(&managed, s));
        let remove = merged_set.difference(&keep);
        let pruned = remove_items(merged, &remove, s).unwrap_or(empty.clone());
        // Add back what the manager did not own last time (dangling items).
        let pruned_set = ensure_named_fields(&to_field_set(&pruned, s), s);
        let last = ensure_named_fields(last, s);
        let remove = merged_set.difference(&pruned_set).intersection(&last);
        remove_items(merged, &remove, s).unwrap_or(empty)
    }
}

/// Upstream's conflict order: by manager identifier, then path.
pub fn sort_conflicts(conflicts: &mut [Conflict]) {
    conflicts.sort_by(|a, b| a.manager.cmp(&b.manager).then_with(|| a.path.cmp(&b.path)));
}

#[cfg(test)]
mod tests {
    use super::super::apply_schema::OpenApi;
    use super::super::fieldpath::{path, to_fields_v1};
    use super::*;
    use crate::openapi::schema_of;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS};
    use serde_json::json;

    fn updater(kind: &crate::resource::Resource) -> Updater<'static, OpenApi<'static>> {
        static NONE: Set = Set::new();
        Updater {
            schema: schema_of(kind).map(OpenApi),
            ignored: &NONE,
        }
    }

    fn apply(
        u: &Updater<OpenApi>,
        live: &Value,
        config: Value,
        managers: Managers,
        manager: &str,
    ) -> Result<(Value, Managers), Vec<Conflict>> {
        u.apply(live, &config, "v1", managers, manager, false)
    }

    // Upstream: merge/multiple_appliers_test.go TestMultipleAppliersSet and
    // merge/leaf_test.go TestUpdateLeaf — two appliers share a map, a conflict names the
    // field, force moves it, and a field one applier drops stays while the other owns it.
    #[test]
    fn two_appliers_share_and_conflict() {
        let u = updater(&CONFIGMAPS);
        let (live, m) = apply(
            &u,
            &json!({}),
            json!({"data": {"a": "1", "b": "2"}}),
            Managers::new(),
            "one",
        )
        .unwrap();
        let (live, m) = apply(&u, &live, json!({"data": {"b": "2", "c": "3"}}), m, "two").unwrap();
        assert_eq!(live["data"], json!({"a": "1", "b": "2", "c": "3"}));
        // "one" stops applying b: "two" still owns it, so it stays.
        let (live, m) = apply(&u, &live, json!({"data": {"a": "1"}}), m, "one").unwrap();
        assert_eq!(live["data"], json!({"a": "1", "b": "2", "c": "3"}));
        // "two" stops applying b too: nobody owns it, it goes.
        let (live, m) = apply(&u, &live, json!({"data": {"c": "3"}}), m, "two").unwrap();
        assert_eq!(live["data"], json!({"a": "1", "c": "3"}));
        let err = apply(&u, &live, json!({"data": {"a": "9"}}), m.clone(), "two").unwrap_err();
        assert_eq!(
            err,
            vec![Conflict {
                manager: "one".into(),
                path: path(&["f:data", "f:a"])
            }]
        );
        let (live, m) = u
            .apply(
                &live,
                &json!({"data": {"a": "9", "c": "3"}}),
                "v1",
                m,
                "two",
                true,
            )
            .unwrap();
        assert_eq!(live["data"], json!({"a": "9", "c": "3"}));
        assert!(!m.contains_key("one"));
        assert_eq!(
            to_fields_v1(&m["two"].set),
            json!({"f:data": {"f:a": {}, "f:c": {}}})
        );
    }

    // Upstream: merge/update_test.go — an update owns added and changed fields and takes
    // them from the other managers; applying the same value again is not a conflict.
    #[test]
    fn updates_take_changed_fields() {
        let u = updater(&CONFIGMAPS);
        let (live, m) = apply(
            &u,
            &json!({}),
            json!({"data": {"a": "1"}}),
            Managers::new(),
            "ap",
        )
        .unwrap();
        let new = json!({"data": {"a": "2", "b": "3"}});
        let m = u.update(&live, &new, "v1", m, "up");
        assert!(!m.contains_key("ap"));
        assert_eq!(
            to_fields_v1(&m["up"].set),
            json!({"f:data": {"f:a": {}, "f:b": {}}})
        );
        // Same value: no conflict, shared ownership.
        let (_, m) = apply(&u, &new, json!({"data": {"a": "2"}}), m, "ap").unwrap();
        assert!(m["ap"].set.contains(&path(&["f:data", "f:a"])));
        assert!(m["up"].set.contains(&path(&["f:data", "f:a"])));
    }

    // Upstream: merge/multiple_appliers_test.go (associative lists) — containers merged per
    // name by two appliers; removing one's container leaves the other's.
    #[test]
    fn keyed_list_items_per_applier() {
        let u = updater(&DEPLOYMENTS);
        let c = |names: &[&str]| {
            json!({"spec": {"template": {"spec": {"containers":
                names.iter().map(|n| json!({"name": n, "image": n})).collect::<Vec<_>>()}}}})
        };
        let (live, m) = apply(&u, &json!({}), c(&["a"]), Managers::new(), "one").unwrap();
        let (live, m) = apply(&u, &live, c(&["b"]), m, "two").unwrap();
        let names = |v: &Value| -> Vec<String> {
            v["spec"]["template"]["spec"]["containers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names(&live), ["a", "b"]);
        let (live, _) = apply(&u, &live, c(&[]), m, "one").unwrap();
        assert_eq!(names(&live), ["b"]);
    }

    /// The value with every list sorted (for comparisons that ignore order).
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Array(items) => {
                let mut items: Vec<Value> = items.iter().map(sorted).collect();
                items.sort_by_key(|i| i.to_string());
                Value::Array(items)
            }
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            other => other.clone(),
        }
    }

    /// A small deterministic generator for the property tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        /// A Deployment configuration: some containers (by name, with images and maybe
        /// atomic args), some finalizers (a set), some labels (a map).
        fn config(&mut self) -> Value {
            let mut containers = Vec::new();
            for name in ["a", "b", "c", "d"] {
                if self.next(2) == 0 {
                    let mut c = json!({"name": name, "image": format!("{name}:{}", self.next(3))});
                    if self.next(3) == 0 {
                        c["args"] = json!([format!("{}", self.next(3))]);
                    }
                    containers.push(c);
                }
            }
            let finalizers: Vec<Value> = ["x", "y", "z"]
                .iter()
                .filter(|_| self.next(2) == 0)
                .map(|f| json!(format!("example.com/{f}")))
                .collect();
            let mut labels = serde_json::Map::new();
            for k in ["p", "q", "r"] {
                if self.next(2) == 0 {
                    labels.insert(k.to_owned(), json!(format!("{}", self.next(2))));
                }
            }
            let mut config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d"}});
            if !labels.is_empty() {
                config["metadata"]["labels"] = Value::Object(labels);
            }
            if !finalizers.is_empty() {
                config["metadata"]["finalizers"] = Value::Array(finalizers);
            }
            if !containers.is_empty() {
                config["spec"] = json!({"template": {"spec": {"containers": containers}}});
            }
            config
        }
    }

    // Property (issue 22): applying the same configuration twice changes nothing, whatever
    // other appliers did before.
    #[test]
    fn applying_twice_is_a_no_op() {
        let u = updater(&DEPLOYMENTS);
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for case in 0..300 {
            let (first, second) = (rng.config(), rng.config());
            let (live, m) = u
                .apply(&json!({}), &first, "apps/v1", Managers::new(), "one", true)
                .unwrap();
            let (live, m) = u.apply(&live, &second, "apps/v1", m, "two", true).unwrap();
            let (again, m2) = u
                .apply(&live, &second, "apps/v1", m.clone(), "two", false)
                .unwrap_or_else(|c| panic!("case {case}: conflicts {c:?}"));
            assert_eq!(again, live, "case {case}");
            assert_eq!(m2, m, "case {case}");
        }
    }

    // Property (issue 22): after an apply, applying nothing removes everything the applier
    // alone owned and leaves exactly what the other manager owns (upstream's
    // merge/multiple_appliers_test.go and update_test.go cases, generalised).
    #[test]
    fn removing_every_field_restores_what_others_own() {
        let u = updater(&DEPLOYMENTS);
        let mut rng = Rng(0x2545f4914f6cdd1d);
        let mut checked = 0;
        let empty =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}});
        for case in 0..300 {
            let (theirs, mine) = (rng.config(), rng.config());
            let (base, m) = u
                .apply(
                    &json!({}),
                    &theirs,
                    "apps/v1",
                    Managers::new(),
                    "other",
                    true,
                )
                .unwrap();
            let (live, m) = match u.apply(&base, &mine, "apps/v1", m.clone(), "me", false) {
                Ok(done) => done,
                // Conflicts: the property is about a non-forced apply.
                Err(_) => continue,
            };
            let (after, m) = u.apply(&live, &empty, "apps/v1", m, "me", false).unwrap();
            // Without conflicts, shared fields had equal values: what "other" owns is
            // exactly its configuration, and nothing else is left (list order aside: the
            // second applier's order holds for the items both applied).
            assert_eq!(sorted(&after), sorted(&base), "case {case}");
            let identity: Set = [
                path(&["f:apiVersion"]),
                path(&["f:kind"]),
                path(&["f:metadata", "f:name"]),
            ]
            .into_iter()
            .collect();
            assert_eq!(m["me"].set, identity, "case {case}");
            checked += 1;
        }
        assert!(checked > 100, "only {checked} cases without conflicts");
    }
}

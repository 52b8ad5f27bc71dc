//! What kube-apiserver does to a custom resource before validating it: null values that the
//! schema does not allow and that have no default are dropped from objects and maps, then
//! `default`s fill in missing (or disallowed null) values.
//!
//! Sources: apiextensions-apiserver `pkg/apiserver/schema/defaulting/prunenulls.go`
//! (`PruneNonNullableNullsWithoutDefaults`) and `algorithm.go` (`Default`), applied in that
//! order when a request or a stored object is decoded.

use std::borrow::Cow;

use serde_json::Value as J;

use super::schema::Schema;

// Data nested deeper than the documents' limit (which readers never give: values built
// otherwise, such as by a patch) is left as it is.
use crate::documents::MAX_DEPTH;

/// `x` as Kubernetes validates it: non-nullable nulls without defaults pruned, defaults
/// applied. Borrowed when that changes nothing (no nulls, and every defaulted field already
/// set), so an object as stored (already defaulted) is not copied.
pub fn prepare<'a>(x: &'a J, s: &Schema) -> Cow<'a, J> {
    let changes = has_null(x, 0) || (has_defaults(s, 0) && defaults_apply(x, s, 0));
    if !changes {
        return Cow::Borrowed(x);
    }
    let mut x = x.clone();
    prepare_in_place(&mut x, s);
    Cow::Owned(x)
}

/// `x` made what [`prepare`] answers, in place: an object the caller owns is pruned of its
/// non-nullable nulls and defaulted without a copy of the document.
pub fn prepare_in_place(x: &mut J, s: &Schema) {
    prune_non_nullable_nulls(x, Some(s), 0);
    apply_defaults(x, s, 0);
}

fn has_defaults(s: &Schema, depth: usize) -> bool {
    depth <= MAX_DEPTH
        && (s.default.is_some()
            || s.properties.values().any(|p| has_defaults(p, depth + 1))
            || s.items().is_some_and(|i| has_defaults(i, depth + 1))
            || s.additional_schema()
                .is_some_and(|v| has_defaults(v, depth + 1)))
}

/// Whether [`apply_defaults`] would fill in a missing field of `x` (nulls aside, which
/// [`has_null`] finds).
fn defaults_apply(x: &J, s: &Schema, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match x {
        J::Object(o) => {
            s.properties
                .iter()
                .any(|(k, p)| p.default.is_some() && !o.contains_key(k))
                || o.iter().any(|(k, v)| match s.properties.get(k) {
                    Some(p) => defaults_apply(v, p, depth + 1),
                    None => s
                        .additional_schema()
                        .is_some_and(|values| defaults_apply(v, values, depth + 1)),
                })
        }
        J::Array(items) => s
            .items()
            .is_some_and(|i| items.iter().any(|v| defaults_apply(v, i, depth + 1))),
        _ => false,
    }
}

fn has_null(x: &J, depth: usize) -> bool {
    depth <= MAX_DEPTH
        && match x {
            J::Null => true,
            J::Array(items) => items.iter().any(|i| has_null(i, depth + 1)),
            J::Object(o) => o.values().any(|v| has_null(v, depth + 1)),
            _ => false,
        }
}

/// Whether `x` is a null the schema `s` neither allows nor defaults.
fn is_non_nullable_non_defaultable_null(x: &J, s: Option<&Schema>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.nullable && s.default.is_none())
}

/// The schema of an object's field: a declared property, else `additionalProperties`.
fn field_schema<'s>(s: Option<&'s Schema>, k: &str) -> Option<&'s Schema> {
    let s = s?;
    s.properties.get(k).or_else(|| s.additional_schema())
}

/// Drops non-nullable nulls without defaults from objects and maps (list items stay).
pub fn prune_non_nullable_nulls(x: &mut J, s: Option<&Schema>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match x {
        J::Object(o) => {
            o.retain(|k, v| !is_non_nullable_non_defaultable_null(v, field_schema(s, k)));
            for (k, v) in o.iter_mut() {
                prune_non_nullable_nulls(v, field_schema(s, k), depth + 1);
            }
        }
        J::Array(items) => {
            let items_schema = s.and_then(|s| s.items());
            for v in items {
                prune_non_nullable_nulls(v, items_schema, depth + 1);
            }
        }
        _ => {}
    }
}

fn is_non_nullable_null(x: &J, s: &Schema) -> bool {
    x.is_null() && !s.nullable
}

/// Fills in defaults: a property with a default that is missing or a disallowed null gets
/// it; map values and list items that are disallowed nulls get their schema's default.
pub fn apply_defaults(x: &mut J, s: &Schema, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match x {
        J::Object(o) => {
            for (k, p) in &s.properties {
                let Some(default) = &p.default else {
                    continue;
                };
                if o.get(k).is_none_or(|v| is_non_nullable_null(v, p)) {
                    o.insert(k.clone(), default.clone());
                }
            }
            for (k, v) in o.iter_mut() {
                if let Some(p) = s.properties.get(k) {
                    apply_defaults(v, p, depth + 1);
                } else if let Some(values) = s.additional_schema() {
                    if is_non_nullable_null(v, values) {
                        *v = values.default.clone().unwrap_or(J::Null);
                    }
                    apply_defaults(v, values, depth + 1);
                }
            }
        }
        J::Array(items) => {
            let Some(item_schema) = s.items() else {
                return;
            };
            for v in items {
                if is_non_nullable_null(v, item_schema) {
                    *v = item_schema.default.clone().unwrap_or(J::Null);
                }
                apply_defaults(v, item_schema, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_then_defaults() {
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "nullable": true},
            "c": {"type": "integer", "default": 3},
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "l": {"type": "array", "items": {"type": "string"}},
            "d": {"type": "array", "items": {"type": "string", "default": "x"}},
            "o": {"type": "object", "default": {}, "properties": {"p": {"type": "integer", "default": 1}}}
        }}))
        .unwrap();
        let x =
            json!({"a": null, "b": null, "m": {"k": null, "j": 1}, "l": ["s", null], "d": [null]});
        assert_eq!(
            prepare(&x, &s).into_owned(),
            json!({"b": null, "c": 3, "m": {"j": 1}, "l": ["s", null], "d": ["x"], "o": {"p": 1}})
        );
        // Already defaulted: nothing to copy.
        let defaulted = json!({"b": "x", "c": 1, "m": {"j": 1}, "d": ["y"], "o": {"p": 2}});
        assert!(matches!(prepare(&defaulted, &s), Cow::Borrowed(_)));
        // In place, the same.
        let mut in_place = x.clone();
        prepare_in_place(&mut in_place, &s);
        assert_eq!(in_place, prepare(&x, &s).into_owned());
        let nested = json!({"c": 1, "o": {}});
        assert_eq!(
            prepare(&nested, &s).into_owned(),
            json!({"c": 1, "o": {"p": 1}})
        );
        let plain = Schema::from_json(&json!({"type": "object"})).unwrap();
        assert!(matches!(
            prepare(&json!({"a": 1}), &plain),
            Cow::Borrowed(_)
        ));
    }
}

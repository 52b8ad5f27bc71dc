//! `metadata` on update, as the API server treats it for every kind, built-in or custom:
//! first the server-owned fields are carried over from the stored object (k8s.io/apiserver
//! `rest.BeforeUpdate`: [`prepare_update`]), then the update is validated (apimachinery
//! `pkg/api/validation/objectmeta.go`, `ValidateObjectMetaAccessorUpdate`: [`update_errors`]).
//!
//! The bad values are shown as upstream's `field.Error` shows them: strings quoted, integers
//! bare, timestamps as Go's `time.Time.String()` in UTC (`2020-01-01 00:00:00 +0000 UTC`;
//! `metav1.Time` is a `fmt.Stringer`), an unset pointer as `null`.
//!
//! Not repeated here: labels, annotations, owner references and managed fields, which
//! upstream's `ValidateObjectMetaAccessorUpdate` checks again on update (as it checks them on
//! create), are checked by the create rules (`object_meta`) that run on every write, update
//! included (as upstream's `rest.BeforeUpdate` runs `ValidateObjectMetaAccessor` before the
//! update rules).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value as Json};

use super::crd::field_error::{ErrorType, FieldError, FieldPath};

/// apimachinery `FieldImmutableErrorMsg`.
pub const FIELD_IS_IMMUTABLE: &str = "field is immutable";

/// The carry-over of `rest.BeforeUpdate` on `meta`, the new object's `metadata`, from
/// `old_meta`, the stored object's: requests cannot change `generation`; a missing `uid`
/// takes the stored one; `creationTimestamp` and `deletionTimestamp` are the stored ones when
/// the stored object has them; a missing `deletionGracePeriodSeconds` takes the stored one.
pub fn prepare_update(meta: &mut Map<String, Json>, old_meta: Option<&Map<String, Json>>) {
    let old = |f: &str| old_meta.and_then(|m| m.get(f)).filter(|v| !v.is_null());
    let set = |meta: &mut Map<String, Json>, f: &str| match old(f) {
        Some(v) => meta.insert(f.to_owned(), v.clone()),
        None => meta.remove(f),
    };
    let unset = |meta: &Map<String, Json>, f: &str| {
        meta.get(f)
            .is_none_or(|v| v.is_null() || v.as_str() == Some(""))
    };
    set(meta, "generation");
    if unset(meta, "uid") {
        set(meta, "uid");
    }
    if old("creationTimestamp").is_some() {
        set(meta, "creationTimestamp");
    }
    if old("deletionTimestamp").is_some() {
        set(meta, "deletionTimestamp");
    }
    if old("deletionGracePeriodSeconds").is_some() && unset(meta, "deletionGracePeriodSeconds") {
        set(meta, "deletionGracePeriodSeconds");
    }
}

/// The errors of an update of `old` to `object` in `metadata` as the API server finds them:
/// [`prepare_update`] on a copy of the new `metadata`, then [`update_errors`]. An empty
/// `resourceVersion` is no error: the generic registry makes it the stored one before it
/// validates, for the kinds that allow unconditional updates (every kind this library knows).
pub fn errors(object: &Json, old: &Json) -> Vec<FieldError> {
    let mut meta = object
        .get("metadata")
        .and_then(Json::as_object)
        .cloned()
        .unwrap_or_default();
    let old_meta = old.get("metadata").and_then(Json::as_object);
    prepare_update(&mut meta, old_meta);
    let unconditional = meta
        .get("resourceVersion")
        .and_then(Json::as_str)
        .unwrap_or_default()
        .is_empty();
    let mut errors = update_errors(&meta, old_meta.unwrap_or(&Map::new()));
    if unconditional {
        // The registry writes the stored resourceVersion into the object first (an old object
        // read from a file may have none; the stored one always has).
        let at = FieldPath::new("metadata").child("resourceVersion");
        errors.retain(|e| e.path != at);
    }
    errors
}

/// apimachinery `ValidateObjectMetaAccessorUpdate` of `meta` (the new `metadata`) against
/// `old_meta`, in upstream's order: no new finalizers while the object is being deleted, a
/// `resourceVersion` given, `generation` not decremented, then `name`, `namespace`, `uid`,
/// `creationTimestamp`, `deletionTimestamp` and `deletionGracePeriodSeconds` unchanged.
pub fn update_errors(meta: &Map<String, Json>, old_meta: &Map<String, Json>) -> Vec<FieldError> {
    let path = FieldPath::new("metadata");
    let mut errors = Vec::new();
    let text = |m: &Map<String, Json>, f: &str| -> String {
        m.get(f)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let int = |m: &Map<String, Json>, f: &str| m.get(f).and_then(Json::as_i64);
    let time = |m: &Map<String, Json>, f: &str| m.get(f).and_then(Json::as_str).and_then(instant);

    if time(old_meta, "deletionTimestamp").is_some() {
        let strings = |m: &Map<String, Json>| -> std::collections::BTreeSet<String> {
            m.get("finalizers")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        };
        let old = strings(old_meta);
        let extra: Vec<String> = strings(meta)
            .into_iter()
            .filter(|f| !old.contains(f))
            .collect();
        if !extra.is_empty() {
            errors.push(FieldError::new(
                path.child("finalizers"),
                ErrorType::Forbidden,
                "",
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers {}",
                    go_string_slice(&extra)
                ),
            ));
        }
    }
    let version = text(meta, "resourceVersion");
    if version.is_empty() {
        errors.push(FieldError::new(
            path.child("resourceVersion"),
            ErrorType::Invalid,
            "",
            "must be specified for an update",
        ));
    }
    let generation = int(meta, "generation").unwrap_or(0);
    if generation < int(old_meta, "generation").unwrap_or(0) {
        errors.push(FieldError::with_rendered_value(
            path.child("generation"),
            ErrorType::Invalid,
            generation.to_string(),
            "must not be decremented",
        ));
    }
    for field in ["name", "namespace", "uid"] {
        let new = text(meta, field);
        if new != text(old_meta, field) {
            errors.push(FieldError::new(
                path.child(field),
                ErrorType::Invalid,
                &new,
                FIELD_IS_IMMUTABLE,
            ));
        }
    }
    for field in ["creationTimestamp", "deletionTimestamp"] {
        let new = time(meta, field);
        if new != time(old_meta, field) {
            // creationTimestamp is a metav1.Time (zero when unset), deletionTimestamp a
            // *metav1.Time (nil when unset).
            let shown = match (new, field) {
                (Some(t), _) => go_time_string(t),
                (None, "creationTimestamp") => "0001-01-01 00:00:00 +0000 UTC".to_owned(),
                (None, _) => "null".to_owned(),
            };
            errors.push(FieldError::with_rendered_value(
                path.child(field),
                ErrorType::Invalid,
                shown,
                FIELD_IS_IMMUTABLE,
            ));
        }
    }
    let grace = int(meta, "deletionGracePeriodSeconds");
    if grace != int(old_meta, "deletionGracePeriodSeconds") {
        errors.push(FieldError::with_rendered_value(
            path.child("deletionGracePeriodSeconds"),
            ErrorType::Invalid,
            grace.map_or_else(|| "null".to_owned(), |g| g.to_string()),
            FIELD_IS_IMMUTABLE,
        ));
    }
    errors
}

/// The instant of an RFC 3339 timestamp (`metav1.Time`, compared as upstream's semantic
/// equality compares it: the same instant, whatever the offset written).
fn instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Go's `time.Time.String()` of a time in UTC: `2006-01-02 15:04:05.999999999 -0700 MST`
/// (fractional seconds without trailing zeros, none when whole).
fn go_time_string(t: DateTime<Utc>) -> String {
    let nanos = t.timestamp_subsec_nanos();
    let fraction = if nanos == 0 {
        String::new()
    } else {
        format!(".{nanos:09}").trim_end_matches('0').to_owned()
    };
    format!("{}{fraction} +0000 UTC", t.format("%Y-%m-%d %H:%M:%S"))
}

/// Go's `%#v` of a `[]string`: `[]string{"a", "b"}`.
pub(crate) fn go_string_slice(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| super::go_quote(s)).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors_of(new: Json, old: Json) -> Vec<String> {
        errors(&json!({ "metadata": new }), &json!({ "metadata": old }))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn raw(new: Json, old: Json) -> Vec<String> {
        update_errors(new.as_object().unwrap(), old.as_object().unwrap())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    // apimachinery objectmeta_test.go TestValidateObjectMetaUpdateIgnoresCreationTimestamp,
    // TestValidateObjectMetaUpdatePreventsDeletionFieldMutation,
    // TestObjectMetaGenerationUpdate, TestValidateObjectMetaUpdateIgnoresUID-style cases.
    #[test]
    fn validate_object_meta_accessor_update() {
        let base = json!({"name": "a", "namespace": "n", "resourceVersion": "1", "uid": "u1",
                          "generation": 2});
        assert!(raw(base.clone(), base.clone()).is_empty());
        let mut lower = base.clone();
        lower["generation"] = json!(1);
        assert_eq!(
            raw(lower, base.clone()),
            ["metadata.generation: Invalid value: 1: must not be decremented"]
        );
        let mut changed = base.clone();
        changed["name"] = json!("b");
        changed["namespace"] = json!("m");
        changed["uid"] = json!("u2");
        changed["resourceVersion"] = json!("");
        assert_eq!(
            raw(changed, base.clone()),
            [
                "metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
                "metadata.name: Invalid value: \"b\": field is immutable",
                "metadata.namespace: Invalid value: \"m\": field is immutable",
                "metadata.uid: Invalid value: \"u2\": field is immutable",
            ]
        );
        let mut stamped = base.clone();
        stamped["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
        stamped["deletionTimestamp"] = json!("2021-02-03T04:05:06.5+01:00");
        stamped["deletionGracePeriodSeconds"] = json!(30);
        assert_eq!(
            raw(stamped.clone(), base.clone()),
            [
                "metadata.creationTimestamp: Invalid value: 2020-01-01 00:00:00 +0000 UTC: field is immutable",
                "metadata.deletionTimestamp: Invalid value: 2021-02-03 03:05:06.5 +0000 UTC: field is immutable",
                "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable",
            ]
        );
        assert_eq!(
            raw(base.clone(), stamped.clone()),
            [
                "metadata.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable",
                "metadata.deletionTimestamp: Invalid value: null: field is immutable",
                "metadata.deletionGracePeriodSeconds: Invalid value: null: field is immutable",
            ]
        );
        // The same instant written with another offset is no change (metav1.Time equality).
        let mut same = stamped.clone();
        same["deletionTimestamp"] = json!("2021-02-03T03:05:06.5Z");
        assert!(raw(same, stamped).is_empty());
    }

    // ValidateNoNewFinalizers: only while the old object is being deleted; the new ones
    // sorted, as Go's %#v of a []string.
    #[test]
    fn no_new_finalizers_while_deleting() {
        let old = json!({"name": "a", "resourceVersion": "1", "finalizers": ["x"],
                         "deletionTimestamp": "2020-01-01T00:00:00Z"});
        let mut new = old.clone();
        new["finalizers"] = json!(["z", "x", "b"]);
        assert_eq!(
            raw(new.clone(), old.clone()),
            [
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"b\", \"z\"}"
            ]
        );
        let mut alive = old.clone();
        alive.as_object_mut().unwrap().remove("deletionTimestamp");
        new.as_object_mut().unwrap().remove("deletionTimestamp");
        assert!(raw(new, alive).is_empty());
    }

    // rest.BeforeUpdate: what a request leaves out is carried over, what it changes is not.
    #[test]
    fn before_update_carries_server_fields() {
        let old = json!({"name": "a", "resourceVersion": "7", "uid": "u1", "generation": 3,
                         "creationTimestamp": "2020-01-01T00:00:00Z",
                         "deletionTimestamp": "2020-01-02T00:00:00Z",
                         "deletionGracePeriodSeconds": 30});
        assert!(errors_of(json!({"name": "a", "generation": 1}), old.clone()).is_empty());
        assert!(
            errors_of(
                json!({"name": "a", "creationTimestamp": "2000-01-01T00:00:00Z",
                       "deletionTimestamp": null}),
                old.clone()
            )
            .is_empty()
        );
        assert_eq!(
            errors_of(
                json!({"name": "a", "uid": "u2", "deletionGracePeriodSeconds": 10}),
                old
            ),
            [
                "metadata.uid: Invalid value: \"u2\": field is immutable",
                "metadata.deletionGracePeriodSeconds: Invalid value: 10: field is immutable",
            ]
        );
        let alive = json!({"name": "a", "resourceVersion": "7", "uid": "u1"});
        assert_eq!(
            errors_of(
                json!({"name": "a", "deletionTimestamp": "2020-01-02T00:00:00Z"}),
                alive
            ),
            [
                "metadata.deletionTimestamp: Invalid value: 2020-01-02 00:00:00 +0000 UTC: field is immutable"
            ]
        );
        let mut meta = Map::new();
        prepare_update(
            &mut meta,
            json!({"uid": "u", "generation": 2, "resourceVersion": "5"}).as_object(),
        );
        // resourceVersion is the registry's, not BeforeUpdate's.
        assert_eq!(Json::Object(meta), json!({"uid": "u", "generation": 2}));
    }
}

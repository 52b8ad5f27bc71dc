//! The apps group (kubernetes/kubernetes `pkg/apis/apps/validation`): `ValidateDeploymentSpec`
//! with `ValidateDeploymentStrategy`, `ValidateReplicaSetSpec`,
//! `ValidatePodTemplateSpecForReplicaSet`, `ValidateDaemonSetSpec`, `ValidateStatefulSetSpec`,
//! and on update the immutable selector (the strategies' `ValidateUpdate` for apps/v1).

use serde_json::Value as Json;

use super::errors::{Errors, NEGATIVE, go_struct};
use super::label_selector::{self, LabelSelector};
use super::pod_spec_validation;
use super::read;
use crate::kubernetes::crd::field_error::{FieldPath, go_json_value};
use crate::kubernetes::named_formats::regex_error;

/// The object's `spec` (null when unset).
fn spec_of(object: &Json) -> &Json {
    read::field(object, "spec").unwrap_or(&Json::Null)
}

/// The pod template's labels as the bad value of a mismatch (`null` when unset).
fn template_labels(spec: &Json) -> Json {
    read::field(spec, "template")
        .and_then(|t| read::field(t, "metadata"))
        .and_then(|m| read::field(m, "labels"))
        .cloned()
        .unwrap_or(Json::Null)
}

/// Whether the pod template's labels satisfy `selector`; an unset selector
/// (`labels.Nothing()`) matches nothing.
fn selects_template(selector: Option<&LabelSelector>, spec: &Json) -> bool {
    let labels = template_labels(spec);
    let empty = serde_json::Map::new();
    let labels = labels.as_object().unwrap_or(&empty);
    selector.is_some_and(|s| s.matches(labels))
}

/// The `selector does not match template labels` error.
fn mismatch(e: &mut Errors, spec: &Json, template: &FieldPath) {
    e.invalid_json(
        &template.child("metadata").child("labels"),
        &template_labels(spec),
        "`selector` does not match template `labels`",
    );
}

/// The selector error of a strictly required selector (Deployment, ReplicaSet,
/// StatefulSet): `Required`, its own errors, `empty selector is invalid for <kind>`; then
/// whether it converts to a selector (`None` when it does not: the caller reports that).
fn required_selector<'a>(
    e: &mut Errors,
    spec: &'a Json,
    path: &FieldPath,
    kind: &str,
) -> Result<Option<LabelSelector<'a>>, ()> {
    let at = path.child("selector");
    let Some(raw) = read::field(spec, "selector") else {
        e.required(&at, "");
        return Ok(None);
    };
    let selector = LabelSelector::read(raw);
    selector.validate(e, &at);
    if selector.is_empty() {
        e.invalid_rendered(
            &at,
            label_selector::to_json_text(raw),
            &format!("empty selector is invalid for {kind}"),
        );
    }
    if selector.converts() {
        Ok(Some(selector))
    } else {
        Err(())
    }
}

/// `ValidatePodTemplateSpecForReplicaSet`: the template selected by the selector (unless
/// the selector is empty), a valid pod template, restart policy `Always`, no
/// `activeDeadlineSeconds`.
fn template_for_replica_set(
    e: &mut Errors,
    spec: &Json,
    selector: Option<&LabelSelector>,
    path: &FieldPath,
) {
    let at = path.child("template");
    if !selector.is_some_and(LabelSelector::is_empty) && !selects_template(selector, spec) {
        mismatch(e, spec, &at);
    }
    let template = read::field(spec, "template").unwrap_or(&Json::Null);
    pod_spec_validation::template(e, template, &at);
    always_restarts(e, template, &at);
    no_active_deadline(e, template, &at, "ReplicaSet");
}

/// A controller's pods have no `activeDeadlineSeconds` (`activeDeadlineSeconds in <kind> is
/// not Supported`).
fn no_active_deadline(e: &mut Errors, template: &Json, at: &FieldPath, kind: &str) {
    let pod_spec = read::field(template, "spec").unwrap_or(&Json::Null);
    if read::field(pod_spec, "activeDeadlineSeconds").is_some() {
        e.forbidden(
            &at.child("spec").child("activeDeadlineSeconds"),
            &format!("activeDeadlineSeconds in {kind} is not Supported"),
        );
    }
}

/// `ValidateDaemonSetUpdateStrategy`: `OnDelete`, or `RollingUpdate` (the default, with
/// `maxUnavailable: 1` and `maxSurge: 0` when unset: `ValidateRollingUpdateDaemonSet`, each
/// an integer or percent, not above 100%, exactly one of the two non-zero); another type is
/// `NotSupported` with the whole strategy (apps' internal struct) as its value.
fn daemon_set_strategy(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let strategy = read::field(spec, "updateStrategy").unwrap_or(&Json::Null);
    match read::text(strategy, "type") {
        "" | "RollingUpdate" => {}
        "OnDelete" => return,
        other => {
            let rendered = strategy_struct(other, strategy, &["MaxUnavailable", "MaxSurge"]);
            e.not_supported_rendered(path, rendered, &["RollingUpdate", "OnDelete"]);
            return;
        }
    }
    let rolling = read::field(strategy, "rollingUpdate").unwrap_or(&Json::Null);
    let at = path.child("rollingUpdate");
    let (one, zero) = (Json::from(1), Json::from(0));
    let unavailable = read::field(rolling, "maxUnavailable").unwrap_or(&one);
    let surge = read::field(rolling, "maxSurge").unwrap_or(&zero);
    let both = [("maxUnavailable", unavailable), ("maxSurge", surge)];
    for (field, value) in both {
        positive_int_or_percent(e, value, &at.child(field));
    }
    for (field, value) in both {
        if percent(value).is_some_and(|n| n > 100) {
            e.invalid_rendered(
                &at.child(field),
                go_json_value(value),
                "must not be greater than 100%",
            );
        }
    }
    let has = |v: &Json| int_or_percent(v) != 0;
    match (has(unavailable), has(surge)) {
        (true, true) => e.invalid_rendered(
            &at.child("maxSurge"),
            go_json_value(surge),
            "may not be set when maxUnavailable is non-zero",
        ),
        (false, false) => e.required(
            &at.child("maxUnavailable"),
            "cannot be 0 when maxSurge is 0",
        ),
        _ => {}
    }
}

/// A controller's pods restart `Always`.
fn always_restarts(e: &mut Errors, template: &Json, at: &FieldPath) {
    let pod_spec = read::field(template, "spec").unwrap_or(&Json::Null);
    let policy = pod_spec_validation::restart_policy(pod_spec);
    if policy != "Always" {
        e.not_supported(
            &at.child("spec").child("restartPolicy"),
            policy,
            &["Always"],
        );
    }
}

/// The selector once stored cannot change (`ValidateImmutableField`, semantic equality:
/// unset and empty alike).
fn immutable_selector(e: &mut Errors, spec: &Json, old: Option<&Json>) {
    let Some(old) = old else { return };
    let normal = |s: &Json| read::field(s, "selector").map(label_selector::to_json_text);
    let new = normal(spec);
    if new != normal(spec_of(old)) {
        e.invalid_rendered(
            &FieldPath::new("spec").child("selector"),
            new.unwrap_or_else(|| "null".to_string()),
            "field is immutable",
        );
    }
}

/// `ValidateDeploymentSpec` (then, on update, the immutable selector).
pub(super) fn deployment(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let spec = spec_of(object);
    let path = FieldPath::new("spec");
    e.nonnegative(&path.child("replicas"), read::int(spec, "replicas"));
    match required_selector(e, spec, &path, "deployment") {
        Ok(selector) => template_for_replica_set(e, spec, selector.as_ref(), &path),
        Err(()) => invalid_selector(e, spec, &path, "invalid label selector"),
    }
    strategy(e, spec, &path.child("strategy"));
    let min_ready = read::int(spec, "minReadySeconds").unwrap_or(0);
    e.nonnegative(&path.child("minReadySeconds"), Some(min_ready));
    e.nonnegative(
        &path.child("revisionHistoryLimit"),
        read::int(spec, "revisionHistoryLimit"),
    );
    // (progressDeadlineSeconds defaults to 600.)
    let deadline = read::int(spec, "progressDeadlineSeconds").unwrap_or(600);
    e.nonnegative(&path.child("progressDeadlineSeconds"), Some(deadline));
    if deadline <= min_ready {
        e.invalid_int(
            &path.child("progressDeadlineSeconds"),
            deadline,
            "must be greater than minReadySeconds",
        );
    }
    immutable_selector(e, spec, old);
}

/// A selector `LabelSelectorAsSelector` refuses: `Invalid` with the selector as its value.
fn invalid_selector(e: &mut Errors, spec: &Json, path: &FieldPath, detail: &str) {
    let raw = read::field(spec, "selector").unwrap_or(&Json::Null);
    e.invalid_rendered(
        &path.child("selector"),
        label_selector::to_json_text(raw),
        detail,
    );
}

/// apimachinery's `IsValidPercent` message (`percentErrMsg`, `percentFmt`, with
/// `RegexError`'s examples).
fn percent_message() -> String {
    regex_error(
        "a valid percent string must be a numeric string followed by an ending '%'",
        "[0-9]+%",
        &["1%", "93%"],
    )
}

/// `ValidatePositiveIntOrPercent` (apps validation): a string must be a percent
/// (`IsValidPercent`), an integer not negative (`ValidateNonnegativeField`); the bad value is
/// the `IntOrString`, shown as its JSON.
fn positive_int_or_percent(e: &mut Errors, value: &Json, at: &FieldPath) {
    match value {
        Json::String(_) if percent(value).is_none() => {
            e.invalid_rendered(at, go_json_value(value), &percent_message());
        }
        other => {
            if let Some(n) = other.as_i64().filter(|n| *n < 0) {
                e.invalid_int(at, n, NEGATIVE);
            }
        }
    }
}

/// An `IntOrString` of apps' internal structs as `json.Marshal` writes it: a field left out
/// (a nil `*IntOrString` converted to the internal value) is the zero value, `0`.
fn int_or_string_field(v: &Json, key: &str) -> String {
    read::field(v, key).map_or_else(|| "0".to_string(), go_json_value)
}

/// A Deployment's or DaemonSet's update strategy as apps' internal struct renders in a
/// field error (`{"Type":"X","RollingUpdate":null}`; the rolling update's `IntOrString`
/// fields named by `fields`, in the struct's order).
fn strategy_struct(kind: &str, strategy: &Json, fields: &[&str]) -> String {
    let rolling = match read::field(strategy, "rollingUpdate") {
        Some(r) => go_struct(
            &fields
                .iter()
                .map(|f| (*f, int_or_string_field(r, &lower_first(f))))
                .collect::<Vec<_>>(),
        ),
        None => "null".to_string(),
    };
    go_struct(&[
        ("Type", go_json_value(&Json::from(kind))),
        ("RollingUpdate", rolling),
    ])
}

/// A Go field name's JSON name (`MaxSurge` → `maxSurge`).
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// `getPercentValue`: the percentage of a valid percent string (`25%` → 25).
fn percent(v: &Json) -> Option<i64> {
    let digits = v.as_str()?.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse().unwrap_or(i64::MAX))
}

/// `getIntOrPercentValue`: the percentage, else the integer (`IntValue`: a string that is no
/// number is 0).
fn int_or_percent(v: &Json) -> i64 {
    match v {
        Json::String(s) => percent(v).unwrap_or_else(|| s.parse().unwrap_or(0)),
        other => other.as_i64().unwrap_or(0),
    }
}

/// `ValidateDeploymentStrategy` (`RollingUpdate` when unset, its parameters 25% when
/// unset): `ValidateRollingUpdateDeployment` (each an integer or percent, not both 0,
/// `maxUnavailable` not above 100%); another type is `NotSupported` with the whole strategy
/// (apps' internal struct) as its value.
fn strategy(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let strategy = read::field(spec, "strategy").unwrap_or(&Json::Null);
    match read::text(strategy, "type") {
        "Recreate" if read::field(strategy, "rollingUpdate").is_some() => {
            e.forbidden(
                &path.child("rollingUpdate"),
                "may not be specified when strategy `type` is 'Recreate'",
            );
        }
        "" | "RollingUpdate" => {
            let rolling = read::field(strategy, "rollingUpdate").unwrap_or(&Json::Null);
            let at = path.child("rollingUpdate");
            let default = Json::from("25%");
            let unavailable = read::field(rolling, "maxUnavailable").unwrap_or(&default);
            let surge = read::field(rolling, "maxSurge").unwrap_or(&default);
            for (field, value) in [("maxUnavailable", unavailable), ("maxSurge", surge)] {
                positive_int_or_percent(e, value, &at.child(field));
            }
            if int_or_percent(unavailable) == 0 && int_or_percent(surge) == 0 {
                e.invalid_rendered(
                    &at.child("maxUnavailable"),
                    go_json_value(unavailable),
                    "may not be 0 when `maxSurge` is 0",
                );
            }
            if percent(unavailable).is_some_and(|n| n > 100) {
                e.invalid_rendered(
                    &at.child("maxUnavailable"),
                    go_json_value(unavailable),
                    "must not be greater than 100%",
                );
            }
        }
        "Recreate" => {}
        other => {
            let rendered = strategy_struct(other, strategy, &["MaxUnavailable", "MaxSurge"]);
            e.not_supported_rendered(path, rendered, &["Recreate", "RollingUpdate"]);
        }
    }
}

/// `ValidateReplicaSetSpec` (then, on update, the immutable selector).
pub(super) fn replica_set(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let spec = spec_of(object);
    let path = FieldPath::new("spec");
    e.nonnegative(&path.child("replicas"), read::int(spec, "replicas"));
    e.nonnegative(
        &path.child("minReadySeconds"),
        read::int(spec, "minReadySeconds"),
    );
    // ReplicaSets share the Deployment's text.
    match required_selector(e, spec, &path, "deployment") {
        Ok(selector) => template_for_replica_set(e, spec, selector.as_ref(), &path),
        Err(()) => invalid_selector(e, spec, &path, "invalid label selector"),
    }
    immutable_selector(e, spec, old);
}

/// `ValidateDaemonSetSpec` (then, on update, the immutable selector): the selector is not
/// required, but nothing matches an unset one.
pub(super) fn daemon_set(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let spec = spec_of(object);
    let path = FieldPath::new("spec");
    let raw = read::field(spec, "selector");
    let selector = raw.map(LabelSelector::read);
    if let Some(s) = &selector {
        s.validate(e, &path.child("selector"));
    }
    let template_path = path.child("template");
    if selector.as_ref().is_none_or(LabelSelector::converts)
        && !selects_template(selector.as_ref(), spec)
    {
        mismatch(e, spec, &template_path);
    }
    if let (Some(raw), Some(s)) = (raw, &selector)
        && s.is_empty()
    {
        e.invalid_rendered(
            &path.child("selector"),
            label_selector::to_json_text(raw),
            "empty selector is invalid for daemonset",
        );
    }
    let template = read::field(spec, "template").unwrap_or(&Json::Null);
    pod_spec_validation::template(e, template, &template_path);
    always_restarts(e, template, &template_path);
    no_active_deadline(e, template, &template_path, "DaemonSet");
    e.nonnegative(
        &path.child("minReadySeconds"),
        read::int(spec, "minReadySeconds"),
    );
    e.nonnegative(
        &path.child("templateGeneration"),
        read::int(spec, "templateGeneration"),
    );
    daemon_set_strategy(e, spec, &path.child("updateStrategy"));
    e.nonnegative(
        &path.child("revisionHistoryLimit"),
        read::int(spec, "revisionHistoryLimit"),
    );
    immutable_selector(e, spec, old);
}

/// `ValidateStatefulSetSpec`: the pod management policy (`OrderedReady` when unset), the
/// update strategy, the claim retention policy (`Retain` when unset), replicas, ordinals,
/// the selector and the template's labels and annotations, restart policy `Always`.
/// (Upstream leaves the pod spec of a StatefulSet's template to the pods.)
pub(super) fn stateful_set(e: &mut Errors, object: &Json, _old: Option<&Json>) {
    let spec = spec_of(object);
    let path = FieldPath::new("spec");
    match read::text(spec, "podManagementPolicy") {
        "" | "OrderedReady" | "Parallel" => {}
        other => e.invalid(
            &path.child("podManagementPolicy"),
            other,
            "must be 'OrderedReady' or 'Parallel'",
        ),
    }
    stateful_set_strategy(e, spec, &path.child("updateStrategy"));
    let retention = read::field(spec, "persistentVolumeClaimRetentionPolicy");
    let retention_path = path.child("persistentVolumeClaimRetentionPolicy");
    for field in ["whenDeleted", "whenScaled"] {
        // (Defaulting fills an unset policy with Retain.)
        match retention.map_or("", |r| read::text(r, field)) {
            "" | "Retain" | "Delete" => {}
            other => e.not_supported(&retention_path.child(field), other, &["Retain", "Delete"]),
        }
    }
    e.nonnegative(&path.child("replicas"), read::int(spec, "replicas"));
    e.nonnegative(
        &path.child("minReadySeconds"),
        read::int(spec, "minReadySeconds"),
    );
    if let Some(ordinals) = read::field(spec, "ordinals") {
        // (Upstream names the path with one element, `ordinals.start`.)
        e.nonnegative(&path.child("ordinals.start"), read::int(ordinals, "start"));
    }
    let template_path = path.child("template");
    let template = read::field(spec, "template").unwrap_or(&Json::Null);
    match required_selector(e, spec, &path, "statefulset") {
        Ok(selector) => {
            if !selector.as_ref().is_some_and(LabelSelector::is_empty)
                && !selects_template(selector.as_ref(), spec)
            {
                mismatch(e, spec, &template_path);
            }
            let meta = read::field(template, "metadata").unwrap_or(&Json::Null);
            e.labels(
                &template_path.child("labels"),
                &read::strings(meta, "labels"),
            );
            e.annotations(
                &template_path.child("annotations"),
                &read::strings(meta, "annotations"),
            );
        }
        Err(()) => invalid_selector(e, spec, &path, ""),
    }
    always_restarts(e, template, &template_path);
    no_active_deadline(e, template, &template_path, "StatefulSet");
}

/// `ValidateStatefulSetSpec`'s update strategy (`RollingUpdate` when unset, with a rolling
/// update whose partition defaults to 0): `OnDelete` takes no rolling update;
/// `validateRollingUpdateStatefulSet` checks the partition and a `maxUnavailable` given (an
/// integer or percent, not 0, not above 100%); another type is `Invalid` with the whole
/// strategy (apps' internal struct) as its value.
fn stateful_set_strategy(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let strategy = read::field(spec, "updateStrategy").unwrap_or(&Json::Null);
    let rolling = read::field(strategy, "rollingUpdate");
    // apps.RollingUpdateStatefulSetStrategy: Partition int32, MaxUnavailable *IntOrString.
    let rolling_struct = |r: &Json| {
        go_struct(&[
            (
                "Partition",
                read::int(r, "partition").unwrap_or(0).to_string(),
            ),
            (
                "MaxUnavailable",
                read::field(r, "maxUnavailable").map_or_else(|| "null".into(), go_json_value),
            ),
        ])
    };
    match read::text(strategy, "type") {
        "" | "RollingUpdate" => {
            let Some(rolling) = rolling else { return };
            let at = path.child("rollingUpdate");
            e.nonnegative(&at.child("partition"), read::int(rolling, "partition"));
            if let Some(max) = read::field(rolling, "maxUnavailable") {
                let max_path = at.child("maxUnavailable");
                positive_int_or_percent(e, max, &max_path);
                if int_or_percent(max) == 0 {
                    e.invalid_rendered(&max_path, go_json_value(max), "cannot be 0");
                }
                if percent(max).is_some_and(|n| n > 100) {
                    e.invalid_rendered(
                        &max_path,
                        go_json_value(max),
                        "must not be greater than 100%",
                    );
                }
            }
        }
        "OnDelete" => {
            if let Some(rolling) = rolling {
                e.invalid_rendered(
                    &path.child("rollingUpdate"),
                    rolling_struct(rolling),
                    "only allowed for updateStrategy 'RollingUpdate'",
                );
            }
        }
        other => {
            let rolling = rolling.map_or_else(|| "null".into(), rolling_struct);
            let rendered = go_struct(&[
                ("Type", go_json_value(&Json::from(other))),
                ("RollingUpdate", rolling),
            ]);
            e.invalid_rendered(path, rendered, "must be 'RollingUpdate' or 'OnDelete'");
        }
    }
}

//! batch/v1 defaults: kubernetes `pkg/apis/batch/v1/defaults.go` (`SetDefaults_Job`,
//! `SetDefaults_CronJob`, `SetDefaults_PodFailurePolicyOnPodConditionsPattern`), each
//! followed by its pod template's ([`super::pod::template`]). A CronJob's job template gets
//! what `SetObjectDefaults_CronJob` walks into: its failure rules' pod conditions and its pod
//! template's defaults, not `SetDefaults_Job`'s (which takes a Job).

use serde_json::{Map, Value, json};

use super::{child_object, default_field, pod};

/// The defaults of the batch/v1 kind `kind` (other kinds are left as they are).
pub(super) fn apply(kind: &str, object: &mut Map<String, Value>) {
    match kind {
        "Job" => job(object),
        "CronJob" => cron_job(object),
        _ => {}
    }
}

/// `SetDefaults_Job`: the spec's defaults ([`job_spec`]); a Job without labels takes its
/// pod template's.
fn job(object: &mut Map<String, Value>) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return;
    }
    job_spec(spec);
    let template_labels = spec["template"]["metadata"]["labels"].clone();
    if template_labels.is_object() {
        let metadata = object
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        let empty = metadata
            .get("labels")
            .is_none_or(|l| l.as_object().is_none_or(Map::is_empty));
        if empty && let Some(m) = metadata.as_object_mut() {
            m.insert("labels".to_owned(), template_labels);
        }
    }
}

/// A Job spec's defaults (`SetDefaults_Job` but the labels): completions and parallelism 1
/// when neither is set, else parallelism 1; a backoff limit of 6 (the largest int32 with a
/// per-index limit); `NonIndexed` completion; not suspended;
/// pods replaced when `Failed` under a failure policy, else when `TerminatingOrFailed`
/// (`JobPodReplacementPolicy`, GA); no manual selector; then [`typed_defaults`].
fn job_spec(spec: &mut Value) {
    let unset = |spec: &Value, field: &str| spec.get(field).is_none_or(Value::is_null);
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec["completions"] = json!(1);
        spec["parallelism"] = json!(1);
    }
    default_field(spec, "parallelism", json!(1));
    let backoff = if unset(spec, "backoffLimitPerIndex") {
        6
    } else {
        i64::from(i32::MAX)
    };
    default_field(spec, "backoffLimit", json!(backoff));
    default_field(spec, "completionMode", json!("NonIndexed"));
    default_field(spec, "suspend", json!(false));
    let failure_policy = !unset(spec, "podFailurePolicy");
    let replacement = if failure_policy {
        "Failed"
    } else {
        "TerminatingOrFailed"
    };
    default_field(spec, "podReplacementPolicy", json!(replacement));
    default_field(spec, "manualSelector", json!(false));
    typed_defaults(spec);
}

/// What the generated defaulters give any Job spec (a Job's, a CronJob's job template's):
/// `SetDefaults_PodFailurePolicyOnPodConditionsPattern` (`status: True`) and the pod
/// template's defaults.
fn typed_defaults(spec: &mut Value) {
    if let Some(rules) = spec
        .get_mut("podFailurePolicy")
        .and_then(|p| p.get_mut("rules"))
        .and_then(Value::as_array_mut)
    {
        for rule in rules.iter_mut() {
            let patterns = rule
                .get_mut("onPodConditions")
                .and_then(Value::as_array_mut);
            for pattern in patterns.into_iter().flatten() {
                default_field(pattern, "status", json!("True"));
            }
        }
    }
    if let Some(template) = spec.get_mut("template").filter(|t| t.is_object()) {
        pod::template(template);
    }
}

/// `SetDefaults_CronJob`: concurrent runs allowed, not suspended, three successful and one
/// failed job kept; then its job template's spec's [`typed_defaults`].
fn cron_job(object: &mut Map<String, Value>) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return;
    }
    default_field(spec, "concurrencyPolicy", json!("Allow"));
    default_field(spec, "suspend", json!(false));
    default_field(spec, "successfulJobsHistoryLimit", json!(3));
    default_field(spec, "failedJobsHistoryLimit", json!(1));
    if let Some(job_spec_value) = child_object(spec, "jobTemplate")
        .and_then(|t| t.get_mut("spec"))
        .filter(|s| s.is_object())
    {
        typed_defaults(job_spec_value);
    }
}

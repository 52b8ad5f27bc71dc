//! The batch group (kubernetes/kubernetes `pkg/apis/batch/validation`): a Job's counts,
//! its pod template and restart policy (`OnFailure` or `Never`), and a CronJob's schedule,
//! concurrency policy, history limits and job template.

use serde_json::Value as Json;

use super::errors::Errors;
use super::pod;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;

/// `ValidateJob` after the metadata (the selector the API server generates is not checked).
pub(super) fn job(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    job_spec(e, spec, &FieldPath::new("spec"));
}

/// A Job's spec at `path`: non-negative counts, the pod template, its restart policy.
fn job_spec(e: &mut Errors, spec: &Json, path: &FieldPath) {
    for field in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
    ] {
        e.nonnegative(&path.child(field), read::int(spec, field));
    }
    let template = read::field(spec, "template").unwrap_or(&Json::Null);
    let at = path.child("template");
    pod::template(e, template, &at);
    let pod_spec = read::field(template, "spec").unwrap_or(&Json::Null);
    let policy = pod::restart_policy(pod_spec);
    if policy != "OnFailure" && policy != "Never" {
        e.not_supported(
            &at.child("spec").child("restartPolicy"),
            policy,
            &["OnFailure", "Never"],
        );
    }
}

/// `ValidateCronJobCreate` after the metadata: a schedule, the concurrency policy (`Allow`
/// when unset), non-negative limits, the job template. (The schedule's syntax and time
/// zone are not checked here.)
pub(super) fn cron_job(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    if read::text(spec, "schedule").is_empty() {
        e.required(&path.child("schedule"), "");
    }
    match read::text(spec, "concurrencyPolicy") {
        "" | "Allow" | "Forbid" | "Replace" => {}
        other => e.not_supported(
            &path.child("concurrencyPolicy"),
            other,
            &["Allow", "Forbid", "Replace"],
        ),
    }
    for field in [
        "startingDeadlineSeconds",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    ] {
        e.nonnegative(&path.child(field), read::int(spec, field));
    }
    let job_template = read::field(spec, "jobTemplate").unwrap_or(&Json::Null);
    let job_spec_value = read::field(job_template, "spec").unwrap_or(&Json::Null);
    job_spec(e, job_spec_value, &path.child("jobTemplate").child("spec"));
}

//! The batch group (kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`):
//! `ValidateJob` (`validateJobSpec`: counts, completion modes, the pod template and its
//! restart policy; the pod names an Indexed Job makes) and `ValidateCronJobCreate` /
//! `ValidateCronJobUpdate` (`validateCronJobSpec`: the schedule, the time zone, the
//! concurrency policy, the job template, history limits; the name's length).
//!
//! Read after defaulting: `completionMode: NonIndexed`, `concurrencyPolicy: Allow` when
//! unset. Not checked here: the selector the API server generates for a Job, `managedBy`,
//! pod failure and success policies' contents, and whether a time zone exists in the time
//! zone database.

use serde_json::Value as Json;

use super::cron_schedule;
use super::errors::Errors;
use super::pod_spec_validation;
use super::read;
use crate::kubernetes::crd::FieldError;
use crate::kubernetes::crd::field_error::{ErrorType, FieldPath};
use crate::kubernetes::named_formats::messages;

/// `maxParallelismForIndexedJob`, `maxFailedIndexesForIndexedJob` and
/// `completionsSoftLimit`.
const INDEXED_LIMIT: i64 = 100_000;

/// `parallelismLimitForHighCompletions` and `maxFailedIndexesLimitForHighCompletions`.
const HIGH_COMPLETIONS_LIMIT: i64 = 10_000;

/// The longest name a CronJob may have (`DNS1035LabelMaxLength - 11`).
const MAX_CRON_JOB_NAME: usize = 52;

/// `ValidateJob` after the metadata (the selector the API server generates is not checked).
pub(super) fn job(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    job_spec(e, spec, &FieldPath::new("spec"));
    // The pods of an Indexed Job are named `<job>-<index>`.
    if read::text(spec, "completionMode") == "Indexed"
        && let Some(completions) = read::int(spec, "completions").filter(|c| *c > 0)
    {
        let meta = read::field(object, "metadata").unwrap_or(&Json::Null);
        let name = read::text(meta, "name");
        let hostname = format!("{name}-{}", completions - 1);
        if !messages("dns1123Label", &hostname).is_empty() {
            e.invalid(
                &FieldPath::new("metadata").child("name"),
                name,
                &format!("will not able to create pod with invalid DNS label: {hostname}"),
            );
        }
    }
}

/// `validateJobSpec` at `path`.
fn job_spec(e: &mut Errors, spec: &Json, path: &FieldPath) {
    for field in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
    ] {
        e.nonnegative(&path.child(field), read::int(spec, field));
    }
    let per_index = read::int(spec, "backoffLimitPerIndex");
    let max_failed = read::int(spec, "maxFailedIndexes");
    if max_failed.is_some() {
        e.nonnegative(&path.child("maxFailedIndexes"), max_failed);
        if per_index.is_none() {
            e.required(
                &path.child("backoffLimitPerIndex"),
                "when maxFailedIndexes is specified",
            );
        }
    }
    completion_mode(e, spec, path);
    if read::field(spec, "podFailurePolicy").is_some() {
        // (Only `Failed` replaces pods under a pod failure policy.)
        match read::text(spec, "podReplacementPolicy") {
            "" | "Failed" => {}
            other => e.not_supported(&path.child("podReplacementPolicy"), other, &["Failed"]),
        }
    } else {
        match read::text(spec, "podReplacementPolicy") {
            "" | "Failed" | "TerminatingOrFailed" => {}
            other => e.not_supported(
                &path.child("podReplacementPolicy"),
                other,
                &["Failed", "TerminatingOrFailed"],
            ),
        }
    }
    let template = read::field(spec, "template").unwrap_or(&Json::Null);
    let at = path.child("template");
    pod_spec_validation::template(e, template, &at);
    let pod_spec = read::field(template, "spec").unwrap_or(&Json::Null);
    let restart_at = at.child("spec").child("restartPolicy");
    match read::text(pod_spec, "restartPolicy") {
        "" | "Always" => e.required(&restart_at, "valid values: \"OnFailure\", \"Never\""),
        "OnFailure" | "Never" => {
            let policy = read::text(pod_spec, "restartPolicy");
            if read::field(spec, "podFailurePolicy").is_some() && policy != "Never" {
                e.invalid(
                    &restart_at,
                    policy,
                    "only \"Never\" is supported when podFailurePolicy is specified",
                );
            }
        }
        other => e.not_supported(&restart_at, other, &["OnFailure", "Never"]),
    }
}

/// The completion mode (`NonIndexed` when unset) and the limits of Indexed Jobs.
fn completion_mode(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let completions = read::int(spec, "completions");
    let parallelism = read::int(spec, "parallelism");
    let per_index = read::int(spec, "backoffLimitPerIndex");
    let max_failed = read::int(spec, "maxFailedIndexes");
    let mode = match read::text(spec, "completionMode") {
        "" => "NonIndexed",
        m => m,
    };
    if mode != "NonIndexed" && mode != "Indexed" {
        e.not_supported(
            &path.child("completionMode"),
            mode,
            &["NonIndexed", "Indexed"],
        );
    }
    if mode == "Indexed" {
        if completions.is_none() {
            e.required(
                &path.child("completions"),
                "when completion mode is Indexed",
            );
        }
        if let Some(p) = parallelism.filter(|p| *p > INDEXED_LIMIT) {
            e.invalid_int(
                &path.child("parallelism"),
                p,
                &format!(
                    "must be less than or equal to {INDEXED_LIMIT} when completion mode is Indexed"
                ),
            );
        }
        if let (Some(c), Some(m)) = (completions, max_failed)
            && m > c
        {
            e.invalid_int(
                &path.child("maxFailedIndexes"),
                m,
                "must be less than or equal to completions",
            );
        }
        if let Some(m) = max_failed.filter(|m| *m > INDEXED_LIMIT) {
            e.invalid_int(
                &path.child("maxFailedIndexes"),
                m,
                &format!("must be less than or equal to {INDEXED_LIMIT}"),
            );
        }
        if completions.is_some_and(|c| c > INDEXED_LIMIT) && per_index.is_some() {
            let high = format!(
                "must be less than or equal to {HIGH_COMPLETIONS_LIMIT} when completions are \
                 above {INDEXED_LIMIT} and used with backoff limit per index"
            );
            if max_failed.is_none() {
                e.required(
                    &path.child("maxFailedIndexes"),
                    &format!("must be specified when completions is above {INDEXED_LIMIT}"),
                );
            }
            if let Some(p) = parallelism.filter(|p| *p > HIGH_COMPLETIONS_LIMIT) {
                e.invalid_int(&path.child("parallelism"), p, &high);
            }
            if let Some(m) = max_failed.filter(|m| *m > HIGH_COMPLETIONS_LIMIT) {
                e.invalid_int(&path.child("maxFailedIndexes"), m, &high);
            }
        }
    }
    if mode == "NonIndexed" {
        for (field, value) in [
            ("backoffLimitPerIndex", per_index),
            ("maxFailedIndexes", max_failed),
        ] {
            if let Some(v) = value {
                e.invalid_int(&path.child(field), v, "requires indexed completion mode");
            }
        }
    }
}

/// `ValidateCronJobCreate` (no `old`) or `ValidateCronJobUpdate` after the metadata.
pub(super) fn cron_job(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let old_spec = old.map(|o| read::field(o, "spec").unwrap_or(&Json::Null));
    let path = FieldPath::new("spec");
    let schedule = read::text(spec, "schedule");
    let time_zone = read::field(spec, "timeZone");
    if schedule.is_empty() {
        e.required(&path.child("schedule"), "");
    } else {
        let at = path.child("schedule");
        if let Err(error) = cron_schedule::parse(schedule) {
            e.invalid(&at, schedule, &error.to_string());
        }
        // An update may keep a TZ its old schedule had.
        let allow_tz = old_spec.is_some_and(|o| read::text(o, "schedule").contains("TZ"));
        if allow_tz && schedule.contains("TZ") && time_zone.is_some() {
            e.invalid(
                &at,
                schedule,
                "cannot use both timeZone field and TZ or CRON_TZ in schedule",
            );
        } else if !allow_tz && schedule.contains("TZ") {
            e.invalid(
                &at,
                schedule,
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            );
        }
    }
    e.nonnegative(
        &path.child("startingDeadlineSeconds"),
        read::int(spec, "startingDeadlineSeconds"),
    );
    if old_spec.is_none_or(|o| read::field(o, "timeZone") != time_zone) {
        if let Some(Json::String(tz)) = time_zone {
            self::time_zone(e, tz, &path.child("timeZone"));
        }
    }
    match read::text(spec, "concurrencyPolicy") {
        "" | "Allow" | "Forbid" | "Replace" => {}
        other => e.not_supported(
            &path.child("concurrencyPolicy"),
            other,
            &["Allow", "Forbid", "Replace"],
        ),
    }
    let job_template = read::field(spec, "jobTemplate").unwrap_or(&Json::Null);
    let template_spec = read::field(job_template, "spec").unwrap_or(&Json::Null);
    let at = path.child("jobTemplate").child("spec");
    job_spec(e, template_spec, &at);
    if let Some(selector) = read::field(template_spec, "selector") {
        e.invalid_json(
            &at.child("selector"),
            selector,
            "`selector` will be auto-generated",
        );
    }
    if template_spec.get("manualSelector").and_then(Json::as_bool) == Some(true) {
        e.push(FieldError::with_rendered_value(
            at.child("manualSelector"),
            ErrorType::NotSupported,
            "true".into(),
            "supported values: \"nil\", \"false\"",
        ));
    }
    for field in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        e.nonnegative(&path.child(field), read::int(spec, field));
    }
    if old.is_none() {
        let meta = read::field(object, "metadata").unwrap_or(&Json::Null);
        let name = read::text(meta, "name");
        if name.len() > MAX_CRON_JOB_NAME {
            e.invalid(
                &FieldPath::new("metadata").child("name"),
                name,
                &format!("must be no more than {MAX_CRON_JOB_NAME} characters"),
            );
        }
    }
}

/// `validateTimeZone` as far as the name's form goes (IANA's naming rules; not `Local`).
fn time_zone(e: &mut Errors, tz: &str, path: &FieldPath) {
    if tz.is_empty() {
        e.invalid(path, tz, "timeZone must be nil or non-empty string");
        return;
    }
    let part_ok = |part: &str| {
        part != "."
            && part != ".."
            && !part.starts_with('-')
            && (1..=14).contains(&part.len())
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'))
    };
    if !tz.split('/').all(part_ok) {
        e.invalid(path, tz, &format!("unknown time zone {tz}"));
        return;
    }
    if tz.eq_ignore_ascii_case("local") {
        e.invalid(
            path,
            tz,
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        );
    }
}

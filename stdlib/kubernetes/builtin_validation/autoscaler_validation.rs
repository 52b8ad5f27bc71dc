//! The autoscaling group (kubernetes/kubernetes `pkg/apis/autoscaling/validation/validation.go`):
//! of `ValidateHorizontalPodAutoscaler`'s `validateHorizontalPodAutoscalerSpec`, the replica
//! bounds and the scale target's kind and name (`ValidateCrossVersionObjectReference`, path
//! segment names).
//!
//! Left out, for now: the lower bound of `minReplicas` (its text depends on the
//! `HPAScaleToZero` gate), the scale target's `apiVersion`, the metrics and the behavior.

use serde_json::Value as Json;

use super::errors::Errors;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;

/// `validateHorizontalPodAutoscalerSpec` (the parts above) after the metadata.
pub(super) fn horizontal_pod_autoscaler(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let max = read::int(spec, "maxReplicas").unwrap_or_default();
    if max < 1 {
        e.invalid_int(&path.child("maxReplicas"), max, "must be greater than 0");
    }
    if read::int(spec, "minReplicas").is_some_and(|min| max < min) {
        e.invalid_int(
            &path.child("maxReplicas"),
            max,
            "must be greater than or equal to `minReplicas`",
        );
    }
    let target = read::field(spec, "scaleTargetRef").unwrap_or(&Json::Null);
    let at = path.child("scaleTargetRef");
    for field in ["kind", "name"] {
        let value = read::text(target, field);
        if value.is_empty() {
            e.required(&at.child(field), "");
        } else {
            e.each(
                &at.child(field),
                value,
                crate::kubernetes::object_meta::path_segment_name(value),
            );
        }
    }
}

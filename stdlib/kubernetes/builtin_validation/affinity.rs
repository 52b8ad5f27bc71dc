//! A pod's affinity (kubernetes/kubernetes `pkg/apis/core/validation`: `validateAffinity`,
//! `validateNodeAffinity`, `ValidateNodeSelector`, `ValidateNodeSelectorTerm`,
//! `ValidateNodeSelectorRequirement`, `ValidateNodeFieldSelectorRequirement`,
//! `ValidatePreferredSchedulingTerms`, `validatePodAffinityTerm`,
//! `validateWeightedPodAffinityTerms`). Not checked here: pod affinity terms'
//! `matchLabelKeys` and `mismatchLabelKeys`.

use serde_json::Value as Json;

use super::errors::Errors;
use super::label_selector::LabelSelector;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::named_formats::messages;

/// The text of a weight out of range.
const WEIGHT: &str = "must be in the range 1-100";

/// `validateAffinity` of the affinity at `path`.
pub(super) fn affinity(e: &mut Errors, affinity: &Json, path: &FieldPath) {
    if let Some(node) = read::field(affinity, "nodeAffinity") {
        let at = path.child("nodeAffinity");
        if let Some(required) = read::field(node, "requiredDuringSchedulingIgnoredDuringExecution")
        {
            node_selector(
                e,
                required,
                &at.child("requiredDuringSchedulingIgnoredDuringExecution"),
            );
        }
        let preferred_at = at.child("preferredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in read::list(node, "preferredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            weight(e, term, &preferred_at.index(i));
            let preference = read::field(term, "preference").unwrap_or(&Json::Null);
            node_selector_term(e, preference, &preferred_at.index(i).child("preference"));
        }
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let Some(pod) = read::field(affinity, kind) else {
            continue;
        };
        let at = path.child(kind);
        let required_at = at.child("requiredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in read::list(pod, "requiredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            pod_affinity_term(e, term, &required_at.index(i));
        }
        let preferred_at = at.child("preferredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in read::list(pod, "preferredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            weight(e, term, &preferred_at.index(i));
            let inner = read::field(term, "podAffinityTerm").unwrap_or(&Json::Null);
            pod_affinity_term(e, inner, &preferred_at.index(i).child("podAffinityTerm"));
        }
    }
}

/// A preferred term's weight in 1–100.
fn weight(e: &mut Errors, term: &Json, path: &FieldPath) {
    let w = read::int(term, "weight").unwrap_or(0);
    if !(1..=100).contains(&w) {
        e.invalid_int(&path.child("weight"), w, WEIGHT);
    }
}

/// `ValidateNodeSelector`: at least one term, each valid.
fn node_selector(e: &mut Errors, selector: &Json, path: &FieldPath) {
    let terms_at = path.child("nodeSelectorTerms");
    let terms = read::list(selector, "nodeSelectorTerms");
    if terms.is_empty() {
        e.required(&terms_at, "must have at least one node selector term");
        return;
    }
    for (i, term) in terms.iter().enumerate() {
        node_selector_term(e, term, &terms_at.index(i));
    }
}

/// `ValidateNodeSelectorTerm`: its label requirements, then its field requirements.
fn node_selector_term(e: &mut Errors, term: &Json, path: &FieldPath) {
    for (j, r) in read::list(term, "matchExpressions").iter().enumerate() {
        node_selector_requirement(e, r, &path.child("matchExpressions").index(j));
    }
    for (j, r) in read::list(term, "matchFields").iter().enumerate() {
        node_field_requirement(e, r, &path.child("matchFields").index(j));
    }
}

/// `ValidateNodeSelectorRequirement`: values as the operator needs them, a label key, label
/// values.
fn node_selector_requirement(e: &mut Errors, r: &Json, path: &FieldPath) {
    let operator = read::text(r, "operator");
    let values = read::list(r, "values");
    match operator {
        "In" | "NotIn" if values.is_empty() => e.required(
            &path.child("values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        ),
        "Exists" | "DoesNotExist" if !values.is_empty() => e.forbidden(
            &path.child("values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        ),
        "Gt" | "Lt" if values.len() != 1 => e.required(
            &path.child("values"),
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        ),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => e.invalid(
            &path.child("operator"),
            other,
            "not a valid selector operator",
        ),
    }
    let key = read::text(r, "key");
    e.each(&path.child("key"), key, messages("qualifiedName", key));
    for (i, v) in values.iter().enumerate() {
        let value = v.as_str().unwrap_or_default();
        e.each(
            &path.child("values").index(i),
            value,
            messages("labelValue", value),
        );
    }
}

/// `ValidateNodeFieldSelectorRequirement`: one value for `In`/`NotIn`, the key
/// `metadata.name`, node names as values.
fn node_field_requirement(e: &mut Errors, r: &Json, path: &FieldPath) {
    let operator = read::text(r, "operator");
    let values = read::list(r, "values");
    match operator {
        "In" | "NotIn" => {
            if values.len() != 1 {
                e.required(
                    &path.child("values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                );
            }
        }
        other => e.invalid(
            &path.child("operator"),
            other,
            "not a valid selector operator",
        ),
    }
    let key = read::text(r, "key");
    if key != "metadata.name" {
        e.invalid(&path.child("key"), key, "not a valid field selector key");
    } else {
        for (i, v) in values.iter().enumerate() {
            let value = v.as_str().unwrap_or_default();
            e.dns1123_subdomain(&path.child("values").index(i), value);
        }
    }
}

/// `validatePodAffinityTerm`: the selectors, the namespaces' names (reported at
/// `namespace`, as upstream names it), a topology key that is a label name.
fn pod_affinity_term(e: &mut Errors, term: &Json, path: &FieldPath) {
    for field in ["labelSelector", "namespaceSelector"] {
        if let Some(selector) = read::field(term, field) {
            LabelSelector::read(selector).validate(e, &path.child(field));
        }
    }
    for ns in read::list(term, "namespaces") {
        let name = ns.as_str().unwrap_or_default();
        e.each(
            &path.child("namespace"),
            name,
            messages("dns1123Label", name),
        );
    }
    let key = read::text(term, "topologyKey");
    if key.is_empty() {
        e.required(&path.child("topologyKey"), "can not be empty");
    }
    e.each(
        &path.child("topologyKey"),
        key,
        messages("qualifiedName", key),
    );
}

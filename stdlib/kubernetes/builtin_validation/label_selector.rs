//! `metav1.LabelSelector` (`matchLabels`, `matchExpressions`): apimachinery's
//! `ValidateLabelSelector`, whether `LabelSelectorAsSelector` accepts it, matching a label
//! set, and its JSON as the API server shows it in errors.

use serde_json::{Map, Value as Json};

use super::errors::Errors;
use super::read;
use crate::kubernetes::crd::field_error::{FieldPath, go_json_quote, go_json_value};
use crate::kubernetes::named_formats::messages;

/// One `matchExpressions` entry.
struct Requirement<'a> {
    key: &'a str,
    operator: &'a str,
    values: Vec<&'a str>,
}

/// A label selector read from its JSON.
pub(super) struct LabelSelector<'a> {
    match_labels: Vec<(String, String)>,
    expressions: Vec<Requirement<'a>>,
}

impl<'a> LabelSelector<'a> {
    /// The selector at `v` (unset fields empty).
    pub(super) fn read(v: &'a Json) -> LabelSelector<'a> {
        LabelSelector {
            match_labels: read::strings(v, "matchLabels"),
            expressions: read::list(v, "matchExpressions")
                .iter()
                .map(|r| Requirement {
                    key: read::text(r, "key"),
                    operator: read::text(r, "operator"),
                    values: read::list(r, "values")
                        .iter()
                        .map(|x| x.as_str().unwrap_or_default())
                        .collect(),
                })
                .collect(),
        }
    }

    /// Neither `matchLabels` nor `matchExpressions` (`len(MatchLabels)+len(MatchExpressions)
    /// == 0`).
    pub(super) fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.expressions.is_empty()
    }

    /// metav1 `ValidateLabelSelector` (label values checked strictly).
    pub(super) fn validate(&self, e: &mut Errors, path: &FieldPath) {
        self.validate_with(e, path, false);
    }

    /// Whether [`LabelSelector::validate`] finds errors: what makes an update allow invalid
    /// label values in the selectors (`AllowInvalidLabelValueInSelector`) of kinds whose old
    /// selector was invalid.
    pub(super) fn is_invalid(&self) -> bool {
        let mut check = Errors::default();
        self.validate(&mut check, &FieldPath::new(""));
        !check.into_vec().is_empty()
    }

    /// metav1 `ValidateLabelSelector` with `AllowInvalidLabelValueInSelector`: when
    /// `allow_invalid_values`, the values of `matchExpressions` are not checked.
    pub(super) fn validate_with(
        &self,
        e: &mut Errors,
        path: &FieldPath,
        allow_invalid_values: bool,
    ) {
        e.labels(&path.child("matchLabels"), &self.match_labels);
        let exprs = path.child("matchExpressions");
        for (i, r) in self.expressions.iter().enumerate() {
            let at = exprs.index(i);
            match r.operator {
                "In" | "NotIn" => {
                    if r.values.is_empty() {
                        e.required(
                            &at.child("values"),
                            "must be specified when `operator` is 'In' or 'NotIn'",
                        );
                    }
                }
                "Exists" | "DoesNotExist" => {
                    if !r.values.is_empty() {
                        e.forbidden(
                            &at.child("values"),
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                        );
                    }
                }
                other => e.invalid(
                    &at.child("operator"),
                    other,
                    "not a valid selector operator",
                ),
            }
            e.each(&at.child("key"), r.key, messages("qualifiedName", r.key));
            for (j, value) in r
                .values
                .iter()
                .enumerate()
                .filter(|_| !allow_invalid_values)
            {
                e.each(
                    &at.child("values").index(j),
                    value,
                    messages("labelValue", value),
                );
            }
        }
    }

    /// Whether `LabelSelectorAsSelector` turns it into a selector (it refuses what
    /// `labels.NewRequirement` refuses).
    pub(super) fn converts(&self) -> bool {
        let key_ok = |k: &str| messages("qualifiedName", k).is_empty();
        let value_ok = |v: &str| messages("labelValue", v).is_empty();
        self.match_labels
            .iter()
            .all(|(k, v)| key_ok(k) && value_ok(v))
            && self.expressions.iter().all(|r| {
                key_ok(r.key)
                    && r.values.iter().all(|v| value_ok(v))
                    && match r.operator {
                        "In" | "NotIn" => !r.values.is_empty(),
                        "Exists" | "DoesNotExist" => r.values.is_empty(),
                        _ => false,
                    }
            })
    }

    /// Whether the (converted) selector selects `labels`; an empty selector selects
    /// everything.
    pub(super) fn matches(&self, labels: &Map<String, Json>) -> bool {
        let label = |k: &str| labels.get(k).and_then(Json::as_str);
        self.match_labels
            .iter()
            .all(|(k, v)| label(k) == Some(v.as_str()))
            && self.expressions.iter().all(|r| match r.operator {
                "In" => label(r.key).is_some_and(|v| r.values.contains(&v)),
                "NotIn" => label(r.key).is_none_or(|v| !r.values.contains(&v)),
                "Exists" => label(r.key).is_some(),
                "DoesNotExist" => label(r.key).is_none(),
                _ => false,
            })
    }
}

/// The selector at `v` as Go's `json.Marshal` writes a `metav1.LabelSelector` (fields in
/// declaration order, empty ones left out): the bad value of selector errors.
pub(super) fn to_json_text(v: &Json) -> String {
    let mut fields = Vec::new();
    if let Some(labels) = read::object(v, "matchLabels").filter(|m| !m.is_empty()) {
        fields.push(format!(
            "\"matchLabels\":{}",
            go_json_value(&Json::Object(labels.clone()))
        ));
    }
    let exprs = read::list(v, "matchExpressions");
    if !exprs.is_empty() {
        let items: Vec<String> = exprs
            .iter()
            .map(|r| {
                let mut f = vec![
                    format!("\"key\":{}", go_json_quote(read::text(r, "key"))),
                    format!("\"operator\":{}", go_json_quote(read::text(r, "operator"))),
                ];
                let values = read::list(r, "values");
                if !values.is_empty() {
                    f.push(format!(
                        "\"values\":{}",
                        go_json_value(&Json::Array(values.to_vec()))
                    ));
                }
                format!("{{{}}}", f.join(","))
            })
            .collect();
        fields.push(format!("\"matchExpressions\":[{}]", items.join(",")));
    }
    format!("{{{}}}", fields.join(","))
}

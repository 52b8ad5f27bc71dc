//! The access reviews of `authorization.k8s.io/v1`: SelfSubjectAccessReview (may the
//! requester ...?), SubjectAccessReview (may this user ...?, cluster-scoped) and
//! LocalSubjectAccessReview (the same in one namespace). Upstream's validation
//! (`pkg/apis/authorization/validation`, field and label selector attributes included), the request a review's spec asks about
//! (`pkg/registry/authorization/util` `AuthorizationAttributesFrom`) and its status (the
//! registries' `Create`: `allowed`, `denied`, `reason`).

use std::collections::BTreeMap;

use kcel_stdlib::kubernetes::authz::{Decision, DecisionKind};
use serde_json::{Map, Value, json};

use crate::access_request::{Attributes, User};
use crate::error::{ApiError, FieldError, FieldErrorKind};

/// The group of the reviews.
pub const GROUP: &str = "authorization.k8s.io";

/// Which access review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewKind {
    /// `SelfSubjectAccessReview`: about the requester.
    SelfSubject,
    /// `SubjectAccessReview`: about the user its spec names.
    Subject,
    /// `LocalSubjectAccessReview`: about the user its spec names, in its namespace.
    LocalSubject,
}

impl ReviewKind {
    /// The kind's name.
    pub fn kind(self) -> &'static str {
        match self {
            ReviewKind::SelfSubject => "SelfSubjectAccessReview",
            ReviewKind::Subject => "SubjectAccessReview",
            ReviewKind::LocalSubject => "LocalSubjectAccessReview",
        }
    }
}

/// An `Invalid value` error whose value is already rendered as upstream prints it.
fn invalid(field: &str, value: String, detail: &str) -> FieldError {
    FieldError {
        kind: FieldErrorKind::Invalid,
        field: field.to_owned(),
        value: Some(value),
        detail: detail.to_owned(),
    }
}

/// A Go string as `%q` prints it (Rust's debug quoting agrees for printable text).
fn go_quote(text: &str) -> String {
    format!("{text:?}")
}

/// The text of `object[key]`, or empty.
fn text<'a>(object: Option<&'a Value>, key: &str) -> &'a str {
    object
        .and_then(|o| o.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A present, non-null field.
fn present<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// `NonResourceAttributes` as upstream's field errors print the (internal) struct: `%#v`.
fn non_resource_value(attrs: &Value) -> String {
    format!(
        "authorization.NonResourceAttributes{{Path:{}, Verb:{}}}",
        go_quote(text(Some(attrs), "path")),
        go_quote(text(Some(attrs), "verb"))
    )
}

/// A string map as the generated `String()` of a Kubernetes type prints it (keys sorted):
/// `map[string]string{k: v,}`.
fn generated_string_map(value: Option<&Value>) -> String {
    let mut entries: Vec<(&String, &str)> = value
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let body: String = entries.iter().map(|(k, v)| format!("{k}: {v},")).collect();
    format!("map[string]string{{{body}}}")
}

/// `ObjectMeta` as upstream's "must be empty" error prints it: field errors print a value
/// whose pointer has `String()` with it, here the generated `(*ObjectMeta).String()`. For
/// the fields a review's metadata carries in practice: names, uid, resource version,
/// generation, creation time (UTC), labels, annotations and finalizers (owner references,
/// deletion and managed fields as if unset).
fn object_meta_value(meta: &Map<String, Value>) -> String {
    let s = |key: &str| {
        meta.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let created = meta
        .get("creationTimestamp")
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M:%S +0000 UTC")
                .to_string()
        })
        .unwrap_or_else(|| "0001-01-01 00:00:00 +0000 UTC".to_owned());
    let finalizers: Vec<&str> = meta
        .get("finalizers")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    format!(
        "&ObjectMeta{{Name:{},GenerateName:{},Namespace:{},SelfLink:{},UID:{},\
         ResourceVersion:{},Generation:{},CreationTimestamp:{created},\
         DeletionTimestamp:<nil>,DeletionGracePeriodSeconds:nil,Labels:{},Annotations:{},\
         OwnerReferences:[]OwnerReference{{}},Finalizers:[{}],\
         ManagedFields:[]ManagedFieldsEntry{{}},}}",
        s("name"),
        s("generateName"),
        s("namespace"),
        s("selfLink"),
        s("uid"),
        s("resourceVersion"),
        meta.get("generation").and_then(Value::as_i64).unwrap_or(0),
        generated_string_map(meta.get("labels")),
        generated_string_map(meta.get("annotations")),
        finalizers.join(" "),
    )
}

/// Whether metadata is empty as upstream compares it (`creationTimestamp: null` and
/// `managedFields` do not count; `namespace` does not for a LocalSubjectAccessReview).
fn meta_is_empty(meta: &Map<String, Value>, ignore_namespace: bool) -> bool {
    meta.iter().all(|(key, value)| {
        key == "managedFields"
            || (ignore_namespace && key == "namespace")
            || match value {
                Value::Null => true,
                Value::String(s) => s.is_empty(),
                Value::Number(n) => n.as_i64() == Some(0),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
                Value::Bool(b) => !b,
            }
    })
}

/// Upstream's `validateFieldSelectorAttributes` / `validateLabelSelectorAttributes`: a raw
/// selector or requirements (not both), each requirement with a key (for labels, a qualified
/// name) and values exactly when its operator needs them (unknown operators are allowed, for
/// newer clients).
fn selector_errors(selector: &Value, path: &str, label: bool, errors: &mut Vec<FieldError>) {
    let raw = text(Some(selector), "rawSelector");
    let requirements = selector["requirements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if !raw.is_empty() && !requirements.is_empty() {
        errors.push(invalid(
            &format!("{path}.rawSelector"),
            go_quote(raw),
            "may not specified at the same time as requirements",
        ));
    }
    if raw.is_empty() && requirements.is_empty() {
        errors.push(FieldError::required(
            &format!("{path}.requirements"),
            &format!("when {path} is specified, requirements or rawSelector is required"),
        ));
    }
    for (i, requirement) in requirements.iter().enumerate() {
        let at = format!("{path}.requirements[{i}]");
        let key = text(Some(requirement), "key");
        if !label && key.is_empty() {
            errors.push(FieldError::required(
                &format!("{at}.key"),
                "must be specified",
            ));
        }
        let has_values = requirement["values"]
            .as_array()
            .is_some_and(|v| !v.is_empty());
        match text(Some(requirement), "operator") {
            "In" | "NotIn" if !has_values => errors.push(FieldError::required(
                &format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if has_values => errors.push(FieldError::forbidden(
                &format!("{at}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            _ => {}
        }
        if label {
            for message in kcel_stdlib::kubernetes::named_formats::messages("qualifiedName", key) {
                errors.push(invalid(&format!("{at}.key"), go_quote(key), &message));
            }
        }
    }
}

/// Upstream's validation of a review (`ValidateSelfSubjectAccessReview`,
/// `ValidateSubjectAccessReview`, `ValidateLocalSubjectAccessReview`), in its order.
pub fn validate(kind: ReviewKind, review: &Map<String, Value>) -> Vec<FieldError> {
    let null = Value::Null;
    let spec = review.get("spec").unwrap_or(&null);
    let resource = present(spec, "resourceAttributes");
    let non_resource = present(spec, "nonResourceAttributes");
    let mut errors = Vec::new();
    if let (Some(_), Some(n)) = (resource, non_resource) {
        errors.push(invalid(
            "spec.nonResourceAttributes",
            non_resource_value(n),
            "cannot be specified in combination with resourceAttributes",
        ));
    }
    if resource.is_none() && non_resource.is_none() {
        errors.push(invalid(
            "spec.resourceAttributes",
            go_quote("null"),
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ));
    }
    let groups_empty = spec
        .get("groups")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    let user = text(Some(spec), "user");
    if kind != ReviewKind::SelfSubject && user.is_empty() && groups_empty {
        errors.push(invalid(
            "spec.user",
            go_quote(user),
            "at least one of user or group must be specified",
        ));
    }
    if let Some(r) = resource {
        for (name, label) in [("fieldSelector", false), ("labelSelector", true)] {
            if let Some(selector) = present(r, name) {
                let path = format!("spec.resourceAttributes.{name}");
                selector_errors(selector, &path, label, &mut errors);
            }
        }
    }
    let empty = Map::new();
    let meta = review
        .get("metadata")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let local = kind == ReviewKind::LocalSubject;
    if !meta_is_empty(meta, local) {
        let detail = if local {
            "must be empty except for namespace"
        } else {
            "must be empty"
        };
        errors.push(invalid("metadata", object_meta_value(meta), detail));
    }
    if local {
        let namespace = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
        if let Some(r) = resource {
            let asked = text(Some(r), "namespace");
            if asked != namespace {
                errors.push(invalid(
                    "spec.resourceAttributes.namespace",
                    go_quote(asked),
                    "must match metadata.namespace",
                ));
            }
        }
        if let Some(n) = non_resource {
            errors.push(invalid(
                "spec.nonResourceAttributes",
                non_resource_value(n),
                "disallowed on this kind of request",
            ));
        }
    }
    errors
}

/// The 422 of a review that does not validate: `<Kind>.authorization.k8s.io "" is invalid:
/// ...`.
pub fn invalid_review(kind: ReviewKind, errors: Vec<FieldError>) -> ApiError {
    let group_kind = format!("{}.{GROUP}", kind.kind());
    ApiError::invalid_of(&group_kind, GROUP, kind.kind(), "", errors)
}

/// The request a valid review's spec asks about (upstream's `ResourceAttributesFrom` and
/// `NonResourceAttributesFrom`).
pub fn attributes(spec: &Value) -> Attributes {
    if let Some(r) = present(spec, "resourceAttributes") {
        let t = |k: &str| text(Some(r), k).to_owned();
        return Attributes {
            verb: t("verb"),
            resource_request: true,
            group: t("group"),
            version: t("version"),
            resource: t("resource"),
            subresource: t("subresource"),
            namespace: t("namespace"),
            name: t("name"),
            ..Attributes::default()
        };
    }
    let n = present(spec, "nonResourceAttributes");
    Attributes {
        verb: text(n, "verb").to_owned(),
        path: text(n, "path").to_owned(),
        ..Attributes::default()
    }
}

/// The user a SubjectAccessReview's spec names: user, uid, groups and extra exactly as given
/// (upstream adds no `system:authenticated`).
pub fn subject(spec: &Value) -> User {
    let strings = crate::object::string_list;
    let extra: BTreeMap<String, Vec<String>> = spec
        .get("extra")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), strings(Some(v))))
                .collect()
        })
        .unwrap_or_default();
    User {
        name: text(Some(spec), "user").to_owned(),
        uid: text(Some(spec), "uid").to_owned(),
        groups: strings(spec.get("groups")),
        extra,
    }
}

/// How much of one selector attribute the authorizer can use (upstream's
/// `ResourceAttributesFrom` parses them; a requirement that does not parse is dropped, which
/// only widens the check).
fn selector_parse_error(selector: &Value, label: bool) -> Option<&'static str> {
    use kcel_stdlib::kubernetes::named_formats::messages;
    use kcel_stdlib::kubernetes::selectors::{parse_field_selector, parse_label_selector};
    let raw = text(Some(selector), "rawSelector");
    let requirements = selector["requirements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    // Requirements, when given, decide (upstream parses them after the raw selector).
    if requirements.is_empty() {
        let failed = !raw.is_empty()
            && if label {
                parse_label_selector(raw).is_err()
            } else {
                parse_field_selector(raw).is_err()
            };
        return failed.then_some("ignored");
    }
    let mut parsed = 0;
    for requirement in requirements {
        let values: Vec<&str> = requirement["values"]
            .as_array()
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let operator = text(Some(requirement), "operator");
        let ok = if label {
            // labels.NewRequirement: a qualified-name key, values as the operator needs,
            // each a valid label value.
            let values_fit = match operator {
                "In" | "NotIn" => !values.is_empty(),
                "Exists" | "DoesNotExist" => values.is_empty(),
                _ => false,
            };
            values_fit
                && messages("qualifiedName", text(Some(requirement), "key")).is_empty()
                && values.iter().all(|v| messages("labelValue", v).is_empty())
        } else {
            // Field selectors: `In`/`NotIn` with exactly one value.
            matches!(operator, "In" | "NotIn") && values.len() == 1
        };
        parsed += usize::from(ok);
    }
    match parsed {
        n if n == requirements.len() => None,
        0 => Some("ignored"),
        _ => Some("partially ignored"),
    }
}

/// `status.evaluationError` of a review whose selector attributes do not all parse
/// (upstream's `BuildEvaluationError`): `spec.resourceAttributes.fieldSelector ignored due
/// to parse error` (or `partially ignored`), the label selector's likewise, `; `-joined.
pub fn evaluation_error(spec: &Value) -> String {
    let Some(r) = present(spec, "resourceAttributes") else {
        return String::new();
    };
    let mut errors = Vec::new();
    for (name, label) in [("fieldSelector", false), ("labelSelector", true)] {
        if let Some(how) = present(r, name).and_then(|s| selector_parse_error(s, label)) {
            errors.push(format!(
                "spec.resourceAttributes.{name} {how} due to parse error"
            ));
        }
    }
    errors.join("; ")
}

/// A review's `SubjectAccessReviewStatus` for `decision`: `allowed` always, `denied`,
/// `reason` and `evaluationError` when set.
pub fn status(decision: &Decision, evaluation_error: &str) -> Value {
    let mut status = json!({"allowed": decision.kind == DecisionKind::Allow});
    if decision.kind == DecisionKind::Deny {
        status["denied"] = json!(true);
    }
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    if !evaluation_error.is_empty() {
        status["evaluationError"] = json!(evaluation_error);
    }
    status
}

/// The answered review: `apiVersion` and `kind` set, `metadata.creationTimestamp: null` (as
/// upstream serializes the unstored object), and `status` (with the selectors'
/// [`evaluation_error`]).
pub fn answer(kind: ReviewKind, review: &mut Map<String, Value>, decision: &Decision) {
    review.insert("apiVersion".to_owned(), json!(format!("{GROUP}/v1")));
    review.insert("kind".to_owned(), json!(kind.kind()));
    if let Some(meta) = review
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        meta.insert("creationTimestamp".to_owned(), Value::Null);
    }
    let evaluation_error = evaluation_error(review.get("spec").unwrap_or(&Value::Null));
    review.insert("status".to_owned(), status(decision, &evaluation_error));
}

#[cfg(test)]
mod tests {
    //! After kubernetes `pkg/apis/authorization/validation/validation_test.go` and
    //! `pkg/registry/authorization/subjectaccessreview/rest_test.go`.
    use super::*;

    fn review(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn texts(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn spec_needs_one_kind_of_attributes_and_a_subject() {
        let none = review(json!({"spec": {}}));
        assert_eq!(
            texts(&validate(ReviewKind::Subject, &none)),
            [
                "spec.resourceAttributes: Invalid value: \"null\": exactly one of \
                 nonResourceAttributes or resourceAttributes must be specified",
                "spec.user: Invalid value: \"\": at least one of user or group must be specified",
            ]
        );
        // A self review needs no user.
        assert_eq!(validate(ReviewKind::SelfSubject, &none).len(), 1);
        let both = review(json!({"spec": {"user": "me",
            "resourceAttributes": {"verb": "get"},
            "nonResourceAttributes": {"path": "/api", "verb": "get"}}}));
        assert_eq!(
            texts(&validate(ReviewKind::Subject, &both)),
            ["spec.nonResourceAttributes: Invalid value: \
              authorization.NonResourceAttributes{Path:\"/api\", Verb:\"get\"}: cannot be \
              specified in combination with resourceAttributes"]
        );
        let groups_only = review(json!({"spec": {"groups": ["g"],
            "nonResourceAttributes": {"path": "/api", "verb": "get"}}}));
        assert!(validate(ReviewKind::Subject, &groups_only).is_empty());
    }

    #[test]
    fn selector_attributes_are_validated() {
        let with = |name: &str, selector: Value| {
            let r = review(json!({"spec": {"user": "me",
                "resourceAttributes": {"verb": "list", name: selector}}}));
            texts(&validate(ReviewKind::Subject, &r))
        };
        assert_eq!(
            with(
                "fieldSelector",
                json!({"rawSelector": "foo", "requirements": [{}]})
            )[0],
            "spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: \"foo\": may not \
             specified at the same time as requirements"
        );
        assert_eq!(
            with("labelSelector", json!({})),
            [
                "spec.resourceAttributes.labelSelector.requirements: Required value: when \
              spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is \
              required"
            ]
        );
        assert_eq!(
            with("fieldSelector", json!({"requirements": [{"key": ""}]})),
            [
                "spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be \
              specified"
            ]
        );
        assert_eq!(
            with(
                "labelSelector",
                json!({"requirements": [{"key": "k", "operator": "NotIn", "values": []}]})
            ),
            [
                "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must \
              be specified when `operator` is 'In' or 'NotIn'"
            ]
        );
        assert_eq!(
            with(
                "fieldSelector",
                json!({"requirements": [{"key": "k", "operator": "Exists", "values": ["v"]}]})
            ),
            [
                "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be \
              specified when `operator` is 'Exists' or 'DoesNotExist'"
            ]
        );
        assert_eq!(
            with("labelSelector", json!({"requirements": [{"key": "()foo"}]})),
            [
                "spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: \
              \"()foo\": name part must consist of alphanumeric characters, '-', '_' or '.', and \
              must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  \
              or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        // An empty key: both of IsQualifiedName's messages, as upstream (whose test reads the
        // first).
        let empty = with("labelSelector", json!({"requirements": [{"key": ""}]}));
        assert_eq!(
            empty[0],
            "spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: \"\": \
             name part must be non-empty"
        );
        assert_eq!(empty.len(), 2);
        // Unknown operators pass (newer clients).
        assert!(
            with(
                "labelSelector",
                json!({"requirements": [{"key": "k", "operator": "Later"}]})
            )
            .is_empty()
        );
    }

    #[test]
    fn metadata_must_be_empty() {
        let named = review(json!({"metadata": {"name": "x", "creationTimestamp": null},
            "spec": {"user": "me", "resourceAttributes": {"verb": "get"}}}));
        let errors = texts(&validate(ReviewKind::Subject, &named));
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0],
            "metadata: Invalid value: &ObjectMeta{Name:x,GenerateName:,Namespace:,SelfLink:,\
             UID:,ResourceVersion:,Generation:0,CreationTimestamp:0001-01-01 00:00:00 +0000 \
             UTC,DeletionTimestamp:<nil>,DeletionGracePeriodSeconds:nil,\
             Labels:map[string]string{},Annotations:map[string]string{},\
             OwnerReferences:[]OwnerReference{},Finalizers:[],\
             ManagedFields:[]ManagedFieldsEntry{},}: must be empty"
        );
        let labelled = review(json!({"metadata": {"labels": {"b": "2", "a": "1"}},
            "spec": {"user": "me", "resourceAttributes": {"verb": "get"}}}));
        let errors = texts(&validate(ReviewKind::Subject, &labelled));
        assert!(
            errors[0].contains(",Labels:map[string]string{a: 1,b: 2,},"),
            "{errors:?}"
        );
        let empty = review(json!({"metadata": {"creationTimestamp": null},
            "spec": {"user": "me", "resourceAttributes": {"verb": "get"}}}));
        assert!(validate(ReviewKind::Subject, &empty).is_empty());
    }

    #[test]
    fn local_review_stays_in_its_namespace() {
        let other = review(json!({"metadata": {"namespace": "ns"},
            "spec": {"user": "me", "resourceAttributes": {"verb": "get", "namespace": "other"}}}));
        assert_eq!(
            texts(&validate(ReviewKind::LocalSubject, &other)),
            [
                "spec.resourceAttributes.namespace: Invalid value: \"other\": must match \
              metadata.namespace"
            ]
        );
        let same = review(json!({"metadata": {"namespace": "ns"},
            "spec": {"user": "me", "resourceAttributes": {"verb": "get", "namespace": "ns"}}}));
        assert!(validate(ReviewKind::LocalSubject, &same).is_empty());
        let non_resource = review(json!({"metadata": {"namespace": "ns"},
            "spec": {"user": "me", "nonResourceAttributes": {"path": "/x", "verb": "get"}}}));
        assert_eq!(
            texts(&validate(ReviewKind::LocalSubject, &non_resource)),
            ["spec.nonResourceAttributes: Invalid value: \
              authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: disallowed on \
              this kind of request"]
        );
        let error = invalid_review(
            ReviewKind::LocalSubject,
            validate(ReviewKind::LocalSubject, &other),
        );
        assert_eq!(
            error.message,
            "LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: \
             spec.resourceAttributes.namespace: Invalid value: \"other\": must match \
             metadata.namespace"
        );
    }

    #[test]
    fn spec_names_the_subject_and_the_request() {
        let spec = json!({"user": "bob", "uid": "7", "groups": ["dev"],
            "extra": {"scopes": ["a", "b"]},
            "resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "ns",
                "group": "", "subresource": "log", "name": "p"}});
        let user = subject(&spec);
        assert_eq!(
            (
                user.name.as_str(),
                user.uid.as_str(),
                user.groups.as_slice()
            ),
            ("bob", "7", ["dev".to_owned()].as_slice())
        );
        assert_eq!(user.extra["scopes"], ["a", "b"]);
        let attrs = attributes(&spec);
        assert!(attrs.resource_request);
        assert_eq!(
            (
                attrs.verb.as_str(),
                attrs.resource.as_str(),
                attrs.subresource.as_str(),
                attrs.namespace.as_str(),
                attrs.name.as_str()
            ),
            ("list", "pods", "log", "ns", "p")
        );
        let attrs = attributes(&json!({"nonResourceAttributes": {"path": "/api", "verb": "get"}}));
        assert!(!attrs.resource_request);
        assert_eq!((attrs.path.as_str(), attrs.verb.as_str()), ("/api", "get"));
    }

    #[test]
    fn status_follows_the_decision() {
        assert_eq!(
            status(&Decision::new(DecisionKind::Allow, ""), ""),
            json!({"allowed": true})
        );
        assert_eq!(
            status(&Decision::new(DecisionKind::Deny, "no"), ""),
            json!({"allowed": false, "denied": true, "reason": "no"})
        );
        assert_eq!(
            status(&Decision::new(DecisionKind::NoOpinion, ""), "e"),
            json!({"allowed": false, "evaluationError": "e"})
        );
    }

    #[test]
    fn selectors_that_do_not_parse_are_reported_in_the_status() {
        // After kubernetes pkg/registry/authorization/util/helpers_test.go.
        let spec = |field: Value, label: Value| {
            json!({"resourceAttributes": {"verb": "list", "fieldSelector": field,
                "labelSelector": label}})
        };
        let fine = spec(
            json!({"rawSelector": "spec.nodeName=n"}),
            json!({"requirements": [{"key": "app", "operator": "In", "values": ["web"]}]}),
        );
        assert_eq!(evaluation_error(&fine), "");
        let broken = spec(
            json!({"requirements": [
                {"key": "spec.nodeName", "operator": "In", "values": ["a"]},
                {"key": "x", "operator": "Exists"}]}),
            json!({"rawSelector": "!!"}),
        );
        assert_eq!(
            evaluation_error(&broken),
            "spec.resourceAttributes.fieldSelector partially ignored due to parse error; \
             spec.resourceAttributes.labelSelector ignored due to parse error"
        );
        let unknown = json!({"resourceAttributes": {"labelSelector": {"requirements": [
            {"key": "app", "operator": "Later", "values": ["x"]}]}}});
        assert_eq!(
            evaluation_error(&unknown),
            "spec.resourceAttributes.labelSelector ignored due to parse error"
        );
    }
}

//! `metadata.finalizers` as the API server validates them: every kind by apimachinery's
//! `ValidateFinalizers` (`pkg/api/validation/objectmeta.go`: qualified names, not both
//! `orphan` and `foregroundDeletion`); the built-in kinds, whose validation goes through
//! `k8s.io/kubernetes/pkg/apis/core/validation` `ValidateObjectMeta` and
//! `ValidateObjectMetaUpdate`, also by its `validateKubeFinalizerName` (a name without a `/`
//! must be a standard finalizer); custom resources get warnings instead
//! (apiextensions-apiserver `pkg/registry/customresource`, `generateWarningsFromObj` and its
//! `validateKubeFinalizerName`).

use std::collections::BTreeSet;

use crate::kubernetes::crd::field_error::{ErrorType, FieldError, FieldPath, go_json_value};
use crate::kubernetes::go_quote;
use crate::kubernetes::named_formats::messages;

/// metav1 `FinalizerOrphanDependents`.
pub const ORPHAN: &str = "orphan";
/// metav1 `FinalizerDeleteDependents`.
pub const FOREGROUND: &str = "foregroundDeletion";
/// core `FinalizerKubernetes`.
pub const KUBERNETES: &str = "kubernetes";

/// The finalizers a name without a `/` may be (core helper `IsStandardFinalizerName`).
const STANDARD: &[&str] = &[KUBERNETES, ORPHAN, FOREGROUND];

/// apimachinery `ValidateFinalizers` of the list at `path`: each name a qualified name (the
/// errors at the list itself, not at the index), then `orphan` with `foregroundDeletion`.
pub fn errors(path: &FieldPath, finalizers: &[&str]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for finalizer in finalizers {
        for m in messages("qualifiedName", finalizer) {
            errors.push(FieldError::new(
                path.clone(),
                ErrorType::Invalid,
                finalizer,
                m,
            ));
        }
    }
    if finalizers.contains(&ORPHAN) && finalizers.contains(&FOREGROUND) {
        let all = serde_json::Value::from(finalizers.to_vec());
        errors.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Invalid,
            go_json_value(&all),
            format!("finalizer {ORPHAN} and {FOREGROUND} cannot be both set"),
        ));
    }
    errors
}

/// core `validateKubeFinalizerName` of each name, at its index under `path`: a name without
/// a `/` must be a standard finalizer.
pub fn kube_name_errors(path: &FieldPath, finalizers: &[&str]) -> Vec<FieldError> {
    finalizers
        .iter()
        .enumerate()
        .filter(|&(_, f)| !f.contains('/') && !STANDARD.contains(f))
        .map(|(i, f)| {
            FieldError::new(
                path.index(i),
                ErrorType::Invalid,
                f,
                "name is neither a standard finalizer name nor is it fully qualified",
            )
        })
        .collect()
}

/// The warnings of a write of a custom resource for its finalizers (`path` is
/// `metadata.finalizers`): each finalizer `new` adds to `old` (all of them on create), in
/// sorted order and once each, that is not a qualified name or, without a `/`, not a
/// standard finalizer.
pub fn custom_resource_warnings(
    path: &FieldPath,
    new: &[&str],
    old: Option<&[&str]>,
) -> Vec<String> {
    let old: BTreeSet<&str> = old.unwrap_or_default().iter().copied().collect();
    let added: BTreeSet<&str> = new.iter().copied().filter(|f| !old.contains(f)).collect();
    let mut warnings = Vec::new();
    for finalizer in added {
        let quoted = go_quote(finalizer);
        for m in messages("qualifiedName", finalizer) {
            warnings.push(format!("{path}: {quoted}: {m}"));
        }
        if !finalizer.contains('/') && !STANDARD.contains(&finalizer) {
            let including = if finalizer.contains('.') {
                " including a path (/)"
            } else {
                ""
            };
            warnings.push(format!(
                "{path}: {quoted}: prefer a domain-qualified finalizer name{including} to \
                 avoid accidental conflicts with other finalizer writers"
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> FieldPath {
        FieldPath::new("metadata").child("finalizers")
    }

    fn texts(errors: Vec<FieldError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    // apimachinery objectmeta_test.go TestValidateFinalizersPreventConflictingFinalizers.
    #[test]
    fn conflicting_finalizers() {
        assert_eq!(
            texts(errors(&path(), &[ORPHAN, FOREGROUND])),
            [
                "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set"
            ]
        );
        assert!(errors(&path(), &[ORPHAN, "x/y", KUBERNETES]).is_empty());
    }

    // ValidateFinalizerName: validation.IsQualifiedName, the error at the list.
    #[test]
    fn names_are_qualified_names() {
        let found = texts(errors(&path(), &["ok/x", "a/b/c"]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "metadata.finalizers: Invalid value: \"a/b/c\": a valid label key must consist of"
            ),
            "{found:?}"
        );
    }

    // core validation_test.go TestValidateFinalizersUpdate-style names: `kubernetes`,
    // `orphan`, `foregroundDeletion` and prefixed names pass, others fail at their index.
    #[test]
    fn kube_finalizer_names() {
        assert!(kube_name_errors(&path(), &[KUBERNETES, ORPHAN, FOREGROUND, "a.io/x"]).is_empty());
        assert_eq!(
            texts(kube_name_errors(
                &path(),
                &["a.io/x", "mine", "example.com"]
            )),
            [
                "metadata.finalizers[1]: Invalid value: \"mine\": name is neither a standard finalizer name nor is it fully qualified",
                "metadata.finalizers[2]: Invalid value: \"example.com\": name is neither a standard finalizer name nor is it fully qualified",
            ]
        );
    }

    // apiextensions-apiserver customresource validateKubeFinalizerName and
    // generateWarningsFromObj (strategy_test.go TestStrategy_WarningsOnCreate/Update-style).
    #[test]
    fn custom_resource_warnings_for_added_names() {
        assert_eq!(
            custom_resource_warnings(&path(), &["mine", "a.io/x", "example.com", "mine"], None),
            [
                "metadata.finalizers: \"example.com\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers",
                "metadata.finalizers: \"mine\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers",
            ]
        );
        // Only what the update adds.
        assert!(
            custom_resource_warnings(&path(), &["mine", KUBERNETES], Some(&["mine"][..]))
                .is_empty()
        );
        let bad = custom_resource_warnings(&path(), &["-bad"], None);
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].starts_with("metadata.finalizers: \"-bad\": name part must consist of"));
        assert!(bad[1].ends_with("\"-bad\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"));
    }
}

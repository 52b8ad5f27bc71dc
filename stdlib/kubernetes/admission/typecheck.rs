//! Type checking a policy against the schemas of the resources it matches (Kubernetes'
//! `TypeChecker`, whose findings become `status.typeChecking.expressionWarnings`): each
//! validation expression and messageExpression is compiled once per matched kind, with
//! `object` and `oldObject` typed by that kind's schema and `params` by the paramKind's.

use std::sync::Arc;

use crate::kubernetes::authz::AUTHORIZER;
use crate::kubernetes::crd::{Schema, SchemaTypes};
use crate::kubernetes::presets::{KUBERNETES_LATEST, Mode};
use kcel::TypeProvider;
use kcel::{Env, Type};

use super::api::{GroupVersionKind, GroupVersionResource, ValidatingAdmissionPolicy};
use super::compile::VARIABLES_TYPE;
use super::compile::{AdmissionTypes, NAMESPACE_TYPE, REQUEST_TYPE, composition_type};

/// At most this many kinds are checked per policy.
const MAX_TYPES_TO_CHECK: usize = 10;

/// What the API server's REST mapper and schema resolver know.
pub trait SchemaResolver {
    /// The kinds served at a resource (none when unknown).
    fn kinds_for(&self, resource: &GroupVersionResource) -> Vec<GroupVersionKind>;
    /// The OpenAPI schema of a kind, if known.
    fn schema(&self, kind: &GroupVersionKind) -> Option<Schema>;
}

/// A type-checking finding on one expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpressionWarning {
    /// The expression's field, like `spec.validations[0].expression`.
    pub field_ref: String,
    /// One paragraph per kind whose schema the expression does not fit.
    pub warning: String,
}

/// Go's `GroupVersionKind.String()`.
fn gvk_string(kind: &GroupVersionKind) -> String {
    format!("{}/{}, Kind={}", kind.group, kind.version, kind.kind)
}

/// The kinds the policy's rules name without wildcards or subresources, sorted, at most
/// [`MAX_TYPES_TO_CHECK`] (`typesToCheck`).
fn types_to_check(
    policy: &ValidatingAdmissionPolicy,
    resolver: &dyn SchemaResolver,
) -> Vec<GroupVersionKind> {
    let Some(constraints) = &policy.spec.match_constraints else {
        return Vec::new();
    };
    let mut kinds: Vec<GroupVersionKind> = Vec::new();
    let mut count = 0;
    let sorted = |list: &[String], skip: &[char]| -> Option<Vec<String>> {
        let mut out = Vec::new();
        for item in list {
            if item.contains(skip) {
                if skip.contains(&'/') {
                    continue;
                }
                return None;
            }
            out.push(item.clone());
        }
        out.sort();
        Some(out)
    };
    for rule in &constraints.resource_rules {
        let (Some(groups), Some(versions), Some(resources)) = (
            sorted(&rule.api_groups, &['*']),
            sorted(&rule.api_versions, &['*']),
            sorted(&rule.resources, &['*', '/']),
        ) else {
            continue;
        };
        for group in &groups {
            for version in &versions {
                for resource in &resources {
                    let gvr = GroupVersionResource {
                        group: group.clone(),
                        version: version.clone(),
                        resource: resource.clone(),
                    };
                    for kind in resolver.kinds_for(&gvr) {
                        if kind.kind.is_empty() && kind.version.is_empty() {
                            continue;
                        }
                        if !kinds.contains(&kind) {
                            kinds.push(kind);
                        }
                        count += 1;
                        if count == MAX_TYPES_TO_CHECK {
                            return sort_kinds(kinds);
                        }
                    }
                }
            }
        }
    }
    sort_kinds(kinds)
}

fn sort_kinds(mut kinds: Vec<GroupVersionKind>) -> Vec<GroupVersionKind> {
    kinds.sort_by(|a, b| (&a.group, &a.version, &a.kind).cmp(&(&b.group, &b.version, &b.kind)));
    kinds
}

/// The object types of one check: the admission types, the matched kind's and the
/// params'.
#[derive(Debug)]
struct CheckTypes {
    admission: AdmissionTypes,
    schemas: Vec<Arc<SchemaTypes>>,
}

impl TypeProvider for CheckTypes {
    fn has_struct_type(&self, name: &str) -> bool {
        self.admission.has_struct_type(name) || self.schemas.iter().any(|s| s.has_struct_type(name))
    }

    fn field_type(&self, struct_name: &str, field: &str) -> Option<Type> {
        if self.admission.has_struct_type(struct_name) {
            return self.admission.field_type(struct_name, field);
        }
        self.schemas
            .iter()
            .find(|s| s.has_struct_type(struct_name))?
            .field_type(struct_name, field)
    }
}

/// A schema's root type, named after the kind (`None`: the schema gives no type).
fn schema_type(
    kind: &GroupVersionKind,
    resolver: &dyn SchemaResolver,
    name: &str,
) -> Option<(Arc<SchemaTypes>, Type)> {
    let schema = resolver.schema(kind)?;
    let (types, root) = SchemaTypes::build(&schema, name, true).ok()?;
    Some((Arc::new(types), root?.cel.clone()))
}

/// The type-checking environment for one matched kind.
struct Checker {
    object: Option<(Arc<SchemaTypes>, Type)>,
    params: Option<Option<(Arc<SchemaTypes>, Type)>>,
}

impl Checker {
    fn env(&self, variables: &[(String, Type)]) -> Env {
        let mut env =
            crate::kubernetes::presets::kubernetes(KUBERNETES_LATEST, Mode::StoredExpressions);
        env.declare("namespaceObject", Type::Object(NAMESPACE_TYPE.into()));
        env.declare("request", Type::Object(REQUEST_TYPE.into()));
        let object = self.object.as_ref().map_or(Type::Dyn, |(_, t)| t.clone());
        env.declare("object", object.clone());
        env.declare("oldObject", object);
        if let Some(params) = &self.params {
            env.declare(
                "params",
                params.as_ref().map_or(Type::Dyn, |(_, t)| t.clone()),
            );
        }
        env.declare("authorizer", Type::Named(AUTHORIZER.into(), vec![]));
        env.declare("variables", Type::Object(VARIABLES_TYPE.into()));
        let params = self.params.as_ref().and_then(Option::as_ref);
        let schemas = [self.object.as_ref(), params]
            .into_iter()
            .flatten()
            .map(|(types, _)| types.clone())
            .collect();
        env.set_type_provider(Arc::new(CheckTypes {
            admission: AdmissionTypes {
                variables: variables.to_vec(),
                patch_types: false,
            },
            schemas,
        }));
        env
    }
}

/// The warnings Kubernetes records for a policy: validations' expressions and
/// messageExpressions that do not type-check against the schemas of the kinds the policy
/// matches.
pub fn type_check(
    policy: &ValidatingAdmissionPolicy,
    resolver: &dyn SchemaResolver,
) -> Vec<ExpressionWarning> {
    let spec = &policy.spec;
    let params = spec.param_kind.as_ref().and_then(|p| {
        let (group, version) = match p.api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", p.api_version.as_str()),
        };
        (!p.api_version.contains("//") && p.api_version.matches('/').count() <= 1).then(|| {
            GroupVersionKind {
                group: group.into(),
                version: version.into(),
                kind: p.kind.clone(),
            }
        })
    });
    let checkers: Vec<(GroupVersionKind, Checker)> = types_to_check(policy, resolver)
        .into_iter()
        .filter_map(|kind| {
            let object = schema_type(&kind, resolver, &kind.kind)?;
            let params = params
                .as_ref()
                .map(|p| schema_type(p, resolver, &format!("{}Params", p.kind)));
            Some((
                kind,
                Checker {
                    object: Some(object),
                    params,
                },
            ))
        })
        .collect();
    if checkers.is_empty() {
        return Vec::new();
    }
    // Per kind: the variables typed against that kind.
    let variable_types: Vec<Vec<(String, Type)>> = checkers
        .iter()
        .map(|(_, checker)| {
            let mut names = Vec::new();
            for v in &spec.variables {
                let ty = checker.env(&names).compile(&v.expression).ok();
                let ty = composition_type(ty.as_ref().and_then(|a| a.output_type()));
                names.push((v.name.clone(), ty));
            }
            names
        })
        .collect();
    let check = |expression: &str| -> String {
        let mut paragraphs = Vec::new();
        for ((kind, checker), variables) in checkers.iter().zip(&variable_types) {
            if let Err(issues) = checker.env(variables).compile(expression) {
                paragraphs.push(format!("{}: {issues}\n", gvk_string(kind)));
            }
        }
        paragraphs.join("\n")
    };
    let mut warnings = Vec::new();
    for (i, validation) in spec.validations.iter().enumerate() {
        let warning = check(&validation.expression);
        if !warning.is_empty() {
            warnings.push(ExpressionWarning {
                field_ref: format!("spec.validations[{i}].expression"),
                warning,
            });
        }
        if validation.message_expression.is_empty() {
            continue;
        }
        let warning = check(&validation.message_expression);
        if !warning.is_empty() {
            warnings.push(ExpressionWarning {
                field_ref: format!("spec.validations[{i}].messageExpression"),
                warning,
            });
        }
    }
    warnings
}

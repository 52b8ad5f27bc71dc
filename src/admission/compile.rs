//! Compiling a policy once: every expression against Kubernetes' environment with the
//! admission variables, and the field errors the API server would report for it.

use std::sync::Arc;

use crate::check::TypeProvider;
use crate::kubernetes::{ErrorType, FieldError, FieldPath};
use crate::presets::{KUBERNETES_LATEST, Mode};
use crate::stdlib::kubernetes::authz::{AUTHORIZER, RESOURCE_CHECK};
use crate::{Env, Program, Type};

use super::activation::VARIABLES_TYPE;
use super::types::ValidatingAdmissionPolicy;

/// One compiled expression: its field path, source and program (or the compile error).
#[derive(Debug)]
pub struct Compiled {
    pub field: String,
    pub source: String,
    pub program: Result<Program, String>,
    /// The checked output type, when it compiled.
    pub output: Option<Type>,
}

/// A policy with every expression compiled.
#[derive(Debug)]
pub struct CompiledPolicy {
    pub policy: ValidatingAdmissionPolicy,
    /// `(name, expression)` in declaration order.
    pub variables: Arc<[(String, Compiled)]>,
    pub validations: Vec<Compiled>,
    /// The `messageExpression` of each validation, if set.
    pub messages: Vec<Option<Compiled>>,
    pub audit_annotations: Vec<Compiled>,
    pub match_conditions: Vec<Compiled>,
    /// The field errors (the API server would reject the policy).
    pub errors: Vec<FieldError>,
}

/// The type of `variables` (Kubernetes' object type `kubernetes.variables`): one field per
/// variable compiled so far, typed as its expression.
#[derive(Debug)]
struct VariablesType {
    fields: Vec<(String, Type)>,
}

impl TypeProvider for VariablesType {
    fn has_struct_type(&self, name: &str) -> bool {
        name == VARIABLES_TYPE
    }

    fn field_type(&self, struct_name: &str, field: &str) -> Option<Type> {
        if struct_name != VARIABLES_TYPE {
            return None;
        }
        let (_, ty) = self.fields.iter().rev().find(|(n, _)| n == field)?;
        Some(ty.clone())
    }
}

/// The environment with the admission variables and `variables` (with a field per entry of
/// `vars`); `params` is declared only when the policy has a `paramKind`.
fn admission_env(vars: &[(String, Type)], params: bool, authorizer: bool) -> Env {
    let mut env = Env::kubernetes(KUBERNETES_LATEST, Mode::NewExpressions);
    for name in ["object", "oldObject", "request", "namespaceObject"] {
        env.declare(name, Type::Dyn);
    }
    if params {
        env.declare("params", Type::Dyn);
    }
    if authorizer {
        env.declare("authorizer", Type::Named(AUTHORIZER.into(), vec![]));
        env.declare(
            "authorizer.requestResource",
            Type::Named(RESOURCE_CHECK.into(), vec![]),
        );
    }
    env.declare("variables", Type::Object(VARIABLES_TYPE.into()));
    env.set_type_provider(Arc::new(VariablesType {
        fields: vars.to_vec(),
    }));
    env
}

/// The output type an expression must have.
#[derive(Clone, Copy)]
enum Output {
    Bool,
    String,
    /// `string` or `null` (audit annotation values): anything but those is rejected.
    StringOrNull,
    Any,
}

fn compile_one(
    env: &Env,
    field: String,
    source: &str,
    output: Output,
    errors: &mut Vec<FieldError>,
) -> Compiled {
    let compiled = compile_source(env, source, output);
    let output = compiled.as_ref().ok().map(|(_, t)| t.clone());
    let program = compiled.map(|(p, _)| p);
    if let Err(detail) = &program {
        let path = FieldPath::new(&field);
        errors.push(FieldError::new(
            path,
            ErrorType::Invalid,
            source,
            detail.clone(),
        ));
    }
    Compiled {
        field,
        source: source.to_string(),
        program,
        output,
    }
}

/// The program and its output type (`dyn` when unknown).
fn compile_source(env: &Env, source: &str, output: Output) -> Result<(Program, Type), String> {
    let ast = env
        .compile(source)
        .map_err(|issues| format!("compilation failed: {issues}"))?;
    if let Some(t) = ast.output_type() {
        // Kubernetes wants the exact type (`dyn` is not `bool`), as cel-go's IsExactType.
        let ok = match output {
            Output::Bool => *t == Type::Bool,
            Output::String => *t == Type::String,
            Output::StringOrNull => matches!(t, Type::String | Type::Null),
            Output::Any => true,
        };
        if !ok {
            let got = cel_go_name(t);
            return Err(match output {
                Output::Bool => format!("must evaluate to bool but got {got}"),
                Output::StringOrNull => {
                    format!("must evaluate to one of [string null_type] but got {got}")
                }
                _ => format!("must evaluate to string but got {got}"),
            });
        }
    }
    let ty = ast.output_type().cloned().unwrap_or(Type::Dyn);
    env.program(&ast)
        .map(|p| (p, ty))
        .map_err(|issues| format!("compilation failed: {issues}"))
}

/// A type as cel-go prints it (`null_type` for null).
fn cel_go_name(t: &Type) -> String {
    match t {
        Type::Null => "null_type".into(),
        t => t.to_string(),
    }
}

impl CompiledPolicy {
    /// Compiles every expression of `policy` once.
    pub fn new(policy: ValidatingAdmissionPolicy) -> CompiledPolicy {
        // Errors per section, reported in the order the API server validates them.
        let (mut constraint_errors, mut condition_errors) = (Vec::new(), Vec::new());
        let (mut variable_errors, mut errors) = (Vec::new(), Vec::new());
        let spec = &policy.spec;
        let required = |path: &str, detail: &str| {
            FieldError::new(FieldPath::new(path), ErrorType::Required, "", detail)
        };
        match &spec.match_constraints {
            None => constraint_errors.push(required("spec.matchConstraints", "")),
            Some(m) if m.resource_rules.is_empty() => {
                constraint_errors.push(required("spec.matchConstraints.resourceRules", ""));
            }
            Some(_) => {}
        }
        let params = spec.param_kind.is_some();
        let mut names = Vec::new();
        let mut variables = Vec::new();
        for (i, v) in spec.variables.iter().enumerate() {
            let env = admission_env(&names, params, true);
            let field = format!("spec.variables[{i}].expression");
            let source = &v.expression;
            let compiled = compile_one(&env, field, source, Output::Any, &mut variable_errors);
            let ty = compiled.output.clone().unwrap_or(Type::Dyn);
            names.push((v.name.clone(), ty));
            variables.push((v.name.clone(), compiled));
        }
        let with_authz = admission_env(&names, params, true);
        let without_authz = admission_env(&names, params, false);
        let match_conditions = spec
            .match_conditions
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let field = format!("spec.matchConditions[{i}].expression");
                let source = &c.expression;
                compile_one(
                    &with_authz,
                    field,
                    source,
                    Output::Bool,
                    &mut condition_errors,
                )
            })
            .collect();
        if spec.validations.is_empty() && spec.audit_annotations.is_empty() {
            let detail = "validations or auditAnnotations must contain at least one item";
            errors.push(required("spec.validations", detail));
            errors.push(required("spec.auditAnnotations", detail));
        }
        let mut validations = Vec::new();
        let mut messages = Vec::new();
        for (i, v) in spec.validations.iter().enumerate() {
            let field = format!("spec.validations[{i}].expression");
            let (env, source) = (&with_authz, &v.expression);
            if source.trim().is_empty() {
                errors.push(required(&field, "expression is not specified"));
                validations.push(compile_one(
                    env,
                    field,
                    source,
                    Output::Bool,
                    &mut Vec::new(),
                ));
            } else {
                validations.push(compile_one(env, field, source, Output::Bool, &mut errors));
            }
            messages.push((!v.message_expression.is_empty()).then(|| {
                let field = format!("spec.validations[{i}].messageExpression");
                let source = &v.message_expression;
                compile_one(&without_authz, field, source, Output::String, &mut errors)
            }));
        }
        let audit_annotations = spec
            .audit_annotations
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let field = format!("spec.auditAnnotations[{i}].valueExpression");
                let (env, source) = (&without_authz, &a.value_expression);
                compile_one(env, field, source, Output::StringOrNull, &mut errors)
            })
            .collect();
        let mut all = constraint_errors;
        all.append(&mut condition_errors);
        all.append(&mut variable_errors);
        all.append(&mut errors);
        CompiledPolicy {
            policy,
            variables: variables.into(),
            validations,
            messages,
            audit_annotations,
            match_conditions,
            errors: all,
        }
    }

    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.policy.metadata.name
    }
}

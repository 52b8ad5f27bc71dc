//! Compiling a policy once: every expression against Kubernetes' environment with the
//! admission variables, and the field errors the API server would report for it.

use std::sync::{Arc, Mutex, OnceLock};

use crate::kubernetes::authz::{AUTHORIZER, RESOURCE_CHECK};
use crate::kubernetes::crd::FieldError;
use crate::kubernetes::presets::{KUBERNETES_LATEST, Mode};
use kcel::TypeProvider;
use kcel::{Env, Program, Type};

use super::api::{PolicySpec, ValidatingAdmissionPolicy};
use super::expression_errors::ExpressionError;
use super::patch_types;
use super::write_validation;

/// The CEL type name of `variables` (Kubernetes' `kubernetes.variables`).
pub const VARIABLES_TYPE: &str = "kubernetes.variables";

/// One compiled expression: its field path, source and program (or the compile error).
#[derive(Debug)]
pub struct Compiled {
    /// The expression's field path in the policy (`spec.validations[0].expression`).
    pub(crate) field: String,
    /// The expression's text.
    pub(crate) source: String,
    /// The program, or why the expression does not compile.
    pub(crate) program: Result<Program, ExpressionError>,
    /// The checked output type, when it compiled.
    pub(crate) output: Option<Type>,
}

/// A policy with every expression compiled.
#[derive(Debug)]
pub struct CompiledPolicy {
    /// The policy as given.
    pub(crate) policy: ValidatingAdmissionPolicy,
    /// `(name, expression)` in declaration order.
    pub(crate) variables: Arc<[(String, Compiled)]>,
    /// `spec.validations[].expression`, in order.
    pub(crate) validations: Vec<Compiled>,
    /// The `messageExpression` of each validation, if set.
    pub(crate) messages: Vec<Option<Compiled>>,
    /// `spec.auditAnnotations[].valueExpression`, in order.
    pub(crate) audit_annotations: Vec<Compiled>,
    /// `spec.matchConditions[].expression`, in order.
    pub(crate) match_conditions: Vec<Compiled>,
    /// The field errors (the API server would reject the policy).
    pub(crate) errors: Vec<FieldError>,
}

/// The object types of the admission environment (Kubernetes' `BuildRequestType` and
/// `BuildNamespaceType`) and of `variables` (`kubernetes.variables`: one field per variable
/// compiled so far, typed as its expression).
#[derive(Debug)]
pub(crate) struct AdmissionTypes {
    pub(crate) variables: Vec<(String, Type)>,
    /// The mutation types (`Object...`, `JSONPatch`) are declared.
    pub(crate) patch_types: bool,
}

pub(crate) const REQUEST_TYPE: &str = "kubernetes.AdmissionRequest";
pub(crate) const NAMESPACE_TYPE: &str = "kubernetes.Namespace";

/// The fields of the request and namespace types.
fn builtin_field(struct_name: &str, field: &str) -> Option<Type> {
    let object = |name: &str| Type::Object(name.into());
    let strings = || Type::list(Type::String);
    Some(match (struct_name, field) {
        ("kubernetes.GroupVersionKind", "group" | "version" | "kind")
        | ("kubernetes.GroupVersionResource", "group" | "version" | "resource")
        | ("kubernetes.UserInfo", "username" | "uid") => Type::String,
        ("kubernetes.UserInfo", "groups") => strings(),
        ("kubernetes.UserInfo", "extra") => Type::map(Type::String, strings()),
        (REQUEST_TYPE, "kind" | "requestKind") => object("kubernetes.GroupVersionKind"),
        (REQUEST_TYPE, "resource" | "requestResource") => object("kubernetes.GroupVersionResource"),
        (
            REQUEST_TYPE,
            "subResource" | "requestSubResource" | "name" | "namespace" | "operation",
        ) => Type::String,
        (REQUEST_TYPE, "userInfo") => object("kubernetes.UserInfo"),
        (REQUEST_TYPE, "dryRun") => Type::Bool,
        (REQUEST_TYPE, "options") => Type::Dyn,
        (NAMESPACE_TYPE, "metadata") => object("kubernetes.NamespaceMetadata"),
        (NAMESPACE_TYPE, "spec") => object("kubernetes.NamespaceSpec"),
        (NAMESPACE_TYPE, "status") => object("kubernetes.NamespaceStatus"),
        ("kubernetes.NamespaceSpec", "finalizers") => strings(),
        ("kubernetes.NamespaceStatus", "conditions") => {
            Type::list(object("kubernetes.NamespaceCondition"))
        }
        ("kubernetes.NamespaceStatus", "phase") => Type::String,
        ("kubernetes.NamespaceCondition", "status" | "type" | "message" | "reason") => Type::String,
        ("kubernetes.NamespaceCondition", "lastTransitionTime") => Type::Timestamp,
        (
            "kubernetes.NamespaceMetadata",
            "name" | "generateName" | "namespace" | "UID" | "resourceVersion",
        ) => Type::String,
        ("kubernetes.NamespaceMetadata", "labels" | "annotations") => {
            Type::map(Type::String, Type::String)
        }
        ("kubernetes.NamespaceMetadata", "creationTimestamp" | "deletionTimestamp") => {
            Type::Timestamp
        }
        ("kubernetes.NamespaceMetadata", "deletionGracePeriodSeconds" | "generation") => Type::Int,
        ("kubernetes.NamespaceMetadata", "finalizers") => strings(),
        _ => return None,
    })
}

impl TypeProvider for AdmissionTypes {
    fn has_struct_type(&self, name: &str) -> bool {
        (self.patch_types && patch_types::is_patch_type(name))
            || name == VARIABLES_TYPE
            || name == REQUEST_TYPE
            || name == NAMESPACE_TYPE
            || matches!(
                name,
                "kubernetes.GroupVersionKind"
                    | "kubernetes.GroupVersionResource"
                    | "kubernetes.UserInfo"
                    | "kubernetes.NamespaceMetadata"
                    | "kubernetes.NamespaceSpec"
                    | "kubernetes.NamespaceStatus"
                    | "kubernetes.NamespaceCondition"
            )
    }

    fn field_type(&self, struct_name: &str, field: &str) -> Option<Type> {
        if self.patch_types && patch_types::is_patch_type(struct_name) {
            return patch_types::field_type(struct_name, field);
        }
        if struct_name != VARIABLES_TYPE {
            return builtin_field(struct_name, field);
        }
        let (_, ty) = self.variables.iter().rev().find(|(n, _)| n == field)?;
        Some(ty.clone())
    }

    fn constructor(&self, name: &str) -> Option<kcel::StructConstructor> {
        if self.patch_types {
            patch_types::constructor(name)
        } else {
            None
        }
    }
}

/// Which of the optional admission variables an environment declares.
#[derive(Clone, Copy)]
struct Declares {
    /// Plan in reference mode (see [`CompiledPolicy::reference`]).
    reference: bool,
    params: bool,
    authorizer: bool,
    /// `variables` (composition); the API server validates match conditions without it.
    variables: bool,
    /// The environment for expressions being written (new expressions at the API server's
    /// compatibility version) rather than for running stored ones.
    write: bool,
    /// The compatibility version (see [`CompiledPolicy::for_version`]); `None`: a 1.37 API
    /// server's ([`WRITE_VERSION`] for new expressions, the newest for stored ones).
    version: Option<(u32, u32)>,
    /// The memory budget of one evaluation (see [`CompiledPolicy::with_memory_limit`]).
    memory_limit: Option<u64>,
    /// The mutation types and `jsonpatch` library (mutations' expressions).
    patch_types: bool,
}

/// The compatibility version of a 1.37 API server (binary minor - 1): new expressions may
/// use what it introduced (SPEC §1.1).
pub const WRITE_VERSION: (u32, u32) = (1, 36);

/// The memory budget policies are compiled with unless told otherwise.
const DEFAULT_MEMORY_LIMIT: Option<u64> = Some(kcel::DEFAULT_MEMORY_LIMIT);

/// A compatibility version with its environments for new and for stored expressions.
type VersionedBases = ((u32, u32), Env, Env);

/// The environment with the admission variables and, if declared, `variables` (with a
/// field per entry of `vars`).
fn admission_env(vars: &[(String, Type)], declares: Declares) -> Env {
    // The two base environments, built once (per compatibility version asked for).
    static BASES: OnceLock<(Env, Env)> = OnceLock::new();
    static VERSIONED: Mutex<Vec<VersionedBases>> = Mutex::new(Vec::new());
    let bases = |write_version, stored_version| {
        (
            crate::kubernetes::presets::kubernetes(write_version, Mode::NewExpressions),
            crate::kubernetes::presets::kubernetes(stored_version, Mode::StoredExpressions),
        )
    };
    let pick = |write: &Env, stored: &Env| {
        if declares.write {
            write.clone()
        } else {
            stored.clone()
        }
    };
    let mut env = match declares.version {
        None => {
            let (write, stored) = BASES.get_or_init(|| bases(WRITE_VERSION, KUBERNETES_LATEST));
            pick(write, stored)
        }
        Some(version) => {
            let mut built = VERSIONED.lock().unwrap_or_else(|e| e.into_inner());
            let at = match built.iter().position(|(v, ..)| *v == version) {
                Some(at) => at,
                None => {
                    let (write, stored) = bases(version, version);
                    built.push((version, write, stored));
                    built.len() - 1
                }
            };
            let (_, write, stored) = &built[at];
            pick(write, stored)
        }
    };
    for name in ["object", "oldObject"] {
        env.declare(name, Type::Dyn);
    }
    env.declare("namespaceObject", Type::Object(NAMESPACE_TYPE.into()));
    env.declare("request", Type::Object(REQUEST_TYPE.into()));
    if declares.params {
        env.declare("params", Type::Dyn);
    }
    if declares.authorizer {
        env.declare("authorizer", Type::Named(AUTHORIZER.into(), vec![]));
        env.declare(
            "authorizer.requestResource",
            Type::Named(RESOURCE_CHECK.into(), vec![]),
        );
    }
    if declares.variables {
        env.declare("variables", Type::Object(VARIABLES_TYPE.into()));
    }
    if declares.patch_types {
        env.add_library(&patch_types::library());
    }
    env.set_type_provider(Arc::new(AdmissionTypes {
        variables: vars.to_vec(),
        patch_types: declares.patch_types,
    }));
    let options = env
        .program_options()
        .with_reference(declares.reference)
        .with_memory_limit(declares.memory_limit);
    env.set_program_options(options);
    env
}

/// The output type an expression must have.
#[derive(Clone, Copy)]
enum Output {
    Bool,
    String,
    /// `string` or `null` (audit annotation values): anything but those is rejected.
    StringOrNull,
    /// An apply configuration: exactly `Object`.
    Object,
    /// A JSON patch: exactly `list(JSONPatch)`.
    JsonPatches,
    Any,
}

fn compile_one(env: &Env, field: String, source: &str, output: Output) -> Compiled {
    let compiled = compile_source(env, source, output);
    let output = compiled.as_ref().ok().map(|(_, t)| t.clone());
    Compiled {
        field,
        source: source.to_string(),
        program: compiled.map(|(p, _)| p),
        output,
    }
}

/// The expressions of an old policy (`findValidatingPolicyPreexistingExpressions`).
fn old_validations(o: &PolicySpec) -> Vec<&str> {
    o.validations
        .iter()
        .map(|v| v.expression.as_str())
        .collect()
}

fn old_messages(o: &PolicySpec) -> Vec<&str> {
    let messages = o.validations.iter().map(|v| v.message_expression.as_str());
    messages.filter(|m| !m.is_empty()).collect()
}

fn old_conditions(o: &PolicySpec) -> Vec<&str> {
    o.match_conditions
        .iter()
        .map(|c| c.expression.as_str())
        .collect()
}

fn old_audit(o: &PolicySpec) -> Vec<&str> {
    let values = o.audit_annotations.iter();
    values.map(|a| a.value_expression.as_str()).collect()
}

/// The environments a written expression is checked in: for new expressions, and (on
/// updates) for stored ones.
struct WriteEnvs {
    new: Env,
    stored: Option<Env>,
}

impl WriteEnvs {
    /// Compiles an expression as written; `stored` when the old policy had it.
    fn compile(
        &self,
        source: &str,
        output: Output,
        stored: bool,
    ) -> Result<(Program, Type), ExpressionError> {
        let env = match &self.stored {
            Some(env) if stored => env,
            _ => &self.new,
        };
        compile_source(env, source, output)
    }
}

/// The program and its output type (`dyn` when unknown).
fn compile_source(
    env: &Env,
    source: &str,
    output: Output,
) -> Result<(Program, Type), ExpressionError> {
    let ast = env.compile(source).map_err(ExpressionError::Compile)?;
    if let Some(t) = ast.output_type() {
        // Kubernetes wants the exact type (`dyn` is not `bool`), as cel-go's IsExactType.
        let ok = match output {
            Output::Bool => *t == Type::Bool,
            Output::String => *t == Type::String,
            Output::StringOrNull => matches!(t, Type::String | Type::Null),
            Output::Object => matches!(t, Type::Object(n) if &**n == patch_types::OBJECT_TYPE),
            Output::JsonPatches => matches!(t, Type::List(e)
                if matches!(&**e, Type::Object(n) if &**n == patch_types::JSON_PATCH_TYPE)),
            Output::Any => true,
        };
        if !ok {
            return Err(ExpressionError::OutputType {
                expected: match output {
                    Output::Bool => "bool",
                    Output::StringOrNull => "one of [string null_type]",
                    Output::Object => "Object",
                    Output::JsonPatches => "list(JSONPatch)",
                    _ => "string",
                },
                found: cel_go_name(t),
            });
        }
    }
    let ty = ast.output_type().cloned().unwrap_or(Type::Dyn);
    env.program(&ast)
        .map(|p| (p, ty))
        .map_err(ExpressionError::Compile)
}

/// The type a variable has in `variables` (Kubernetes' `convertCelTypeToDeclType`): the
/// expression's type, except that object and opaque types (and unknown types) become `dyn`,
/// also inside lists and maps.
pub(crate) fn composition_type(t: Option<&Type>) -> Type {
    match t {
        Some(
            t @ (Type::Bool
            | Type::Bytes
            | Type::Double
            | Type::Duration
            | Type::Int
            | Type::Null
            | Type::String
            | Type::Timestamp
            | Type::Uint),
        ) => t.clone(),
        Some(Type::List(elem)) => Type::list(composition_type(Some(elem))),
        Some(Type::Map(k, v)) => Type::map(composition_type(Some(k)), composition_type(Some(v))),
        _ => Type::Dyn,
    }
}

/// A type as cel-go prints it (`null_type` for null).
fn cel_go_name(t: &Type) -> String {
    match t {
        Type::Null => "null_type".into(),
        t => t.to_string(),
    }
}

impl CompiledPolicy {
    /// The policy as given.
    pub fn policy(&self) -> &ValidatingAdmissionPolicy {
        &self.policy
    }

    /// The field errors for which the API server would reject the policy (none: it may
    /// be written).
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// Compiles every expression of `policy` once, and validates the policy as the API
    /// server would ([`CompiledPolicy::errors`]).
    pub fn new(policy: ValidatingAdmissionPolicy) -> CompiledPolicy {
        CompiledPolicy::compile(policy, None, false, None, DEFAULT_MEMORY_LIMIT)
    }

    /// [`CompiledPolicy::new`] with the memory budget `limit` for every evaluation of the
    /// policy's expressions instead of [`kcel::DEFAULT_MEMORY_LIMIT`] (`None`: no budget):
    /// an expression that builds or walks more fails with
    /// [`kcel::library::budget::MEMORY_EXCEEDED`] (or the traversal error), as one over
    /// its cost limit does.
    pub fn with_memory_limit(
        policy: ValidatingAdmissionPolicy,
        limit: Option<u64>,
    ) -> CompiledPolicy {
        CompiledPolicy::compile(policy, None, false, None, limit)
    }

    /// [`CompiledPolicy::new`] as an API server whose CEL compatibility version is
    /// `version` (1.27 to 1.37) compiles it: written expressions are checked in that
    /// version's environment for new expressions, programs run in its environment for
    /// stored expressions.
    pub fn for_version(policy: ValidatingAdmissionPolicy, version: (u32, u32)) -> CompiledPolicy {
        CompiledPolicy::compile(policy, None, false, Some(version), DEFAULT_MEMORY_LIMIT)
    }

    /// [`CompiledPolicy::new`] with every program in reference mode
    /// ([`kcel::ProgramOptions::reference`]: no evaluation shortcut), to test that
    /// decisions, messages and costs are the same as with the shortcuts.
    pub fn reference(policy: ValidatingAdmissionPolicy) -> CompiledPolicy {
        CompiledPolicy::compile(policy, None, true, None, DEFAULT_MEMORY_LIMIT)
    }

    /// Compiles `policy` written as an update of `old`: as the API server validates
    /// updates, expressions `old` already has are checked in the environment for stored
    /// expressions, and unchanged match conditions (with an unchanged paramKind) are not
    /// validated again.
    pub fn updated(
        policy: ValidatingAdmissionPolicy,
        old: &ValidatingAdmissionPolicy,
    ) -> CompiledPolicy {
        CompiledPolicy::compile(policy, Some(old), false, None, DEFAULT_MEMORY_LIMIT)
    }

    fn compile(
        policy: ValidatingAdmissionPolicy,
        old: Option<&ValidatingAdmissionPolicy>,
        reference: bool,
        version: Option<(u32, u32)>,
        memory_limit: Option<u64>,
    ) -> CompiledPolicy {
        let (mut compiled, errors) =
            CompiledPolicy::compile_parts(policy, old, reference, version, memory_limit);
        compiled.errors = write_validation::policy_errors(&compiled.policy, &errors);
        compiled
    }

    /// Compiles every expression of `policy`: the compiled policy (without field errors)
    /// and the compile errors of its expressions as written.
    pub(crate) fn compile_parts(
        policy: ValidatingAdmissionPolicy,
        old: Option<&ValidatingAdmissionPolicy>,
        reference: bool,
        version: Option<(u32, u32)>,
        memory_limit: Option<u64>,
    ) -> (CompiledPolicy, write_validation::CompileErrors) {
        let spec = &policy.spec;
        let params = spec.param_kind.is_some();
        let env = |vars: &[(String, Type)], authorizer, variables, write| {
            let declares = Declares {
                reference,
                params,
                authorizer,
                variables,
                write,
                version,
                memory_limit,
                patch_types: false,
            };
            admission_env(vars, declares)
        };
        // Programs run in the environment for stored expressions, with `variables`.
        let run = |vars: &[(String, Type)], authorizer| env(vars, authorizer, true, false);
        // Written expressions are checked in the environment for new expressions (stored
        // ones when the old policy has them: `preexistingExpressions`), with `variables`
        // only for policies that have some.
        let composition = !spec.variables.is_empty();
        let write = |vars: &[(String, Type)], authorizer, variables| WriteEnvs {
            new: env(vars, authorizer, variables, true),
            stored: old.map(|_| env(vars, authorizer, variables, false)),
        };
        let old_spec = old.map(|o| &o.spec);
        let had = |list: fn(&PolicySpec) -> Vec<&str>, expression: &str| {
            old_spec.is_some_and(|o| list(o).contains(&expression))
        };
        let (mut run_names, mut write_names) = (Vec::new(), Vec::new());
        let mut variables = Vec::new();
        let mut variable_errors = Vec::new();
        for (i, v) in spec.variables.iter().enumerate() {
            let field = format!("spec.variables[{i}].expression");
            let compiled = compile_one(&run(&run_names, true), field, &v.expression, Output::Any);
            // Kubernetes looks variables up among the old validation expressions.
            let stored = had(old_validations, &v.expression);
            let envs = write(&write_names, true, true);
            let checked = envs.compile(&v.expression, Output::Any, stored);
            let ty = composition_type(checked.as_ref().ok().map(|(_, t)| t));
            write_names.push((v.name.clone(), ty));
            variable_errors.push(checked.err());
            run_names.push((v.name.clone(), composition_type(compiled.output.as_ref())));
            variables.push((v.name.clone(), compiled));
        }
        let (with_authz, without_authz) = (run(&run_names, true), run(&run_names, false));
        let write_authz = write(&write_names, true, composition);
        let write_no_authz = write(&write_names, false, composition);
        let match_conditions: Vec<_> = spec
            .match_conditions
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let field = format!("spec.matchConditions[{i}].expression");
                compile_one(&with_authz, field, &c.expression, Output::Bool)
            })
            .collect();
        // Written match conditions are checked trimmed, without `variables`; an update
        // that changes neither them nor paramKind does not check them.
        let ignore_match_conditions = old_spec.is_some_and(|o| {
            o.param_kind == spec.param_kind && o.match_conditions == spec.match_conditions
        });
        let stateless = write(&[], true, false);
        let condition_errors = spec
            .match_conditions
            .iter()
            .map(|c| {
                let source = c.expression.trim();
                let stored = had(old_conditions, source);
                stateless.compile(source, Output::Bool, stored).err()
            })
            .collect();
        let mut validations = Vec::new();
        let mut messages = Vec::new();
        let (mut validation_errors, mut message_errors) = (Vec::new(), Vec::new());
        for (i, v) in spec.validations.iter().enumerate() {
            let field = format!("spec.validations[{i}].expression");
            validations.push(compile_one(&with_authz, field, &v.expression, Output::Bool));
            let stored = had(old_validations, &v.expression);
            let checked = write_authz.compile(&v.expression, Output::Bool, stored);
            validation_errors.push(checked.err());
            let source = &v.message_expression;
            messages.push((!source.is_empty()).then(|| {
                let field = format!("spec.validations[{i}].messageExpression");
                compile_one(&without_authz, field, source, Output::String)
            }));
            message_errors.push(if source.is_empty() {
                None
            } else {
                let stored = had(old_messages, source);
                write_no_authz.compile(source, Output::String, stored).err()
            });
        }
        // Audit annotations are compiled with `authorizer`, evaluated without it; written
        // ones are checked trimmed.
        let audit_annotations: Vec<_> = spec
            .audit_annotations
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let field = format!("spec.auditAnnotations[{i}].valueExpression");
                let source = &a.value_expression;
                compile_one(&with_authz, field, source, Output::StringOrNull)
            })
            .collect();
        let audit_errors = spec
            .audit_annotations
            .iter()
            .map(|a| {
                let stored = had(old_audit, &a.value_expression);
                let source = a.value_expression.trim();
                write_authz
                    .compile(source, Output::StringOrNull, stored)
                    .err()
            })
            .collect();
        let errors = write_validation::CompileErrors {
            ignore_match_conditions,
            conditions: condition_errors,
            variables: variable_errors,
            validations: validation_errors,
            messages: message_errors,
            audit_annotations: audit_errors,
        };
        let compiled = CompiledPolicy {
            policy,
            variables: variables.into(),
            validations,
            messages,
            audit_annotations,
            match_conditions,
            errors: Vec::new(),
        };
        (compiled, errors)
    }

    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.policy.metadata.name
    }
}

/// The kind of patch a mutation's expression builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchKind {
    /// An `Object{...}` apply configuration, merged into the object.
    ApplyConfiguration,
    /// A `list(JSONPatch)`, applied to the object as RFC 6902 operations.
    JsonPatch,
}

/// Compiles a mutation's expression as the API server runs it (stored expressions, with
/// `authorizer`, the mutation types and `variables` of `policy`), and checks it as written
/// (trimmed, in the environment for new expressions): the compiled expression and the
/// written expression's error. Evaluations of the expression have the memory budget
/// `memory_limit` (`None`: none).
pub(crate) fn compile_mutation(
    policy: &CompiledPolicy,
    field: String,
    source: &str,
    kind: PatchKind,
    memory_limit: Option<u64>,
) -> (Compiled, Option<ExpressionError>) {
    let vars: Vec<(String, Type)> = policy
        .variables
        .iter()
        .map(|(name, c)| (name.clone(), composition_type(c.output.as_ref())))
        .collect();
    let declares = |write| Declares {
        reference: false,
        params: policy.policy.spec.param_kind.is_some(),
        authorizer: true,
        variables: true,
        write,
        version: None,
        memory_limit,
        patch_types: true,
    };
    let output = match kind {
        PatchKind::ApplyConfiguration => Output::Object,
        PatchKind::JsonPatch => Output::JsonPatches,
    };
    let compiled = compile_one(
        &admission_env(&vars, declares(false)),
        field,
        source,
        output,
    );
    let written = compile_source(&admission_env(&vars, declares(true)), source.trim(), output);
    (compiled, written.err())
}

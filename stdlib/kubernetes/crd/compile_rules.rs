//! Compiling every `x-kubernetes-validations` rule of a structural schema: type-checking
//! against `self`/`oldSelf`, planning with the per-call cost limit, and checking estimated
//! costs (× cardinality) against Kubernetes' limits.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::decl_types::{DeclType, SchemaTypes};
use super::field_error::{ErrorType, FieldError, FieldPath};
use super::rule_fields::{normalize_field_path, rule_field_errors, rule_json};
use super::schema::{Schema, ValidationRule};
use super::sizes::{
    PER_CRD_ESTIMATED_COST_LIMIT, PER_RULE_ESTIMATED_COST_LIMIT, SchemaSizes, child_cardinality,
    cost_error_message, unbounded_cardinality,
};
use super::structural::{
    NodeContext, conversion_error, junctor_schemas, node_errors, structural_errors,
};
use kcel::Type;
use kcel::library::CostEstimate;
use kcel::library::Reference;
use kcel::{Env, Program, ProgramOptions};

/// The per-call runtime cost limit of one rule evaluation.
pub const PER_CALL_COST_LIMIT: u64 = 1_000_000;

/// The variable holding the value at the rule's node.
pub const SELF: &str = "self";
/// The variable holding the old value at the rule's node (transition rules).
pub const OLD_SELF: &str = "oldSelf";
/// The name of the object type of `self` (Kubernetes appends a number that changes with
/// every compilation: `selfType123456789`).
pub const SELF_TYPE: &str = "selfType";

/// The environment rules compile in, before `self` and `oldSelf` are declared: Kubernetes'
/// environment for stored expressions ([`crate::kubernetes::presets::kubernetes`]), as kube-apiserver uses to run
/// CRD rules. (Kubernetes checks new or changed rules against the environment of its
/// compatibility version; use [`crate::kubernetes::crd::Validator::with_env`] with
/// `crate::kubernetes::presets::kubernetes(version, Mode::NewExpressions)` for that.)
///
/// Built once per process; each call returns a copy (the function registry is shared).
pub fn rule_env() -> Env {
    static ENV: std::sync::OnceLock<Env> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        crate::kubernetes::presets::kubernetes(
            crate::kubernetes::presets::KUBERNETES_LATEST,
            crate::kubernetes::presets::Mode::StoredExpressions,
        )
    })
    .clone()
}

/// Options for [`compile_schema`].
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Where the schema sits in the CRD, for schema errors
    /// (`spec.versions[0].schema.openAPIV3Schema`).
    pub schema_path: FieldPath,
    /// The runtime cost limit of one rule evaluation.
    pub per_call_limit: u64,
    /// Whether the schema is a resource root (a custom resource's top-level schema).
    pub is_resource_root: bool,
    /// Plan the rules in reference mode ([`kcel::ProgramOptions::reference`]: no
    /// evaluation shortcut), to test that results and costs are the same as with the
    /// shortcuts. Default: off.
    pub reference: bool,
    /// The memory budget of one rule evaluation ([`kcel::ProgramOptions::memory_limit`]);
    /// default [`kcel::DEFAULT_MEMORY_LIMIT`] (64 MiB), `None`: no budget.
    pub memory_limit: Option<u64>,
    /// Check that the schema is structural and its keywords combine as a CRD's must (list
    /// types, nullable items of sets and maps, ...; default), and compile no rule where it
    /// is not. Off: the schema is taken as it is and its rules compiled as given, as upstream's `cel.NewValidator` takes a structural schema built by its
    /// caller (apiextensions-apiserver's tests build schemas that a CRD would reject).
    pub structural_check: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            schema_path: FieldPath::new("openAPIV3Schema"),
            per_call_limit: PER_CALL_COST_LIMIT,
            is_resource_root: true,
            reference: false,
            memory_limit: Some(kcel::DEFAULT_MEMORY_LIMIT),
            structural_check: true,
        }
    }
}

/// A compiled rule.
#[derive(Debug)]
pub(crate) struct CompiledRule {
    /// The rule as written.
    pub rule: ValidationRule,
    /// The rule's program.
    pub program: Program,
    /// The program of its `messageExpression`, if any.
    pub message_program: Option<Program>,
    /// Whether the rule reads `oldSelf` (a transition rule).
    pub uses_old_self: bool,
    /// `fieldPath`, normalized (`spec.x`), if given.
    pub field_path: Option<String>,
}

/// Facts about one rule from compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleReport {
    /// The rule's position in the schema (`...properties[spec].x-kubernetes-validations[0].rule`).
    pub path: String,
    /// The rule's text.
    pub rule: String,
    /// The static cost estimate of one evaluation.
    pub estimated: CostEstimate,
    /// How many times the rule may run per object.
    pub cardinality: u64,
    /// `estimated.max × cardinality`, compared with the per-rule limit.
    pub charged: u64,
}

/// A schema node with its compiled rules and the nodes below it that have rules.
#[derive(Debug, Default)]
pub(crate) struct RuleNode {
    /// The schema `type` (`object`, `string`, ...), shown as the bad value of errors.
    pub schema_type: String,
    /// The node's declared type (`None` where it has none, e.g. preserved unknown fields).
    pub ty: Option<Arc<DeclType>>,
    /// The rules on this node.
    pub rules: Vec<CompiledRule>,
    /// The nodes of its properties that hold rules below them.
    pub properties: BTreeMap<String, RuleNode>,
    /// The node of a list's items, if it holds rules below it.
    pub items: Option<Box<RuleNode>>,
    /// The node of a map's values (`additionalProperties`), if it holds rules below it.
    pub additional: Option<Box<RuleNode>>,
    /// Map-list keys (`x-kubernetes-list-map-keys`) with their defaults, for a map list.
    pub list_map_keys: Vec<(String, Option<serde_json::Value>)>,
    /// `x-kubernetes-list-type` as written (unset lists correlate by index for ratcheting).
    pub list_type: Option<String>,
    /// Whether old values of object properties correlate (`x-kubernetes-map-type` not atomic).
    pub map_correlatable: bool,
    /// The details of this node's rules that did not compile (`compilation failed: ...`);
    /// validating a value here reports each as `rule compile error: ...`, as Kubernetes'
    /// validator does (seen when defaults are validated).
    pub compile_errors: Vec<String>,
}

/// The result of compiling a schema's rules.
#[derive(Debug)]
pub struct CompiledSchema {
    /// The root's node.
    pub(crate) root: RuleNode,
    /// Schema errors with Kubernetes' texts: first the structural and rule-field errors
    /// (`schema_errors` of them), then the errors of compiling the rules (compilation
    /// failures, over-budget rules), which Kubernetes only reports for a schema that is
    /// structural and whose defaults are valid.
    pub(crate) errors: Vec<FieldError>,
    /// How many of `errors` are schema errors, not rule-compilation errors.
    pub(crate) schema_errors: usize,
    /// Whether the rules were compiled (the schema is structural).
    pub(crate) structural: bool,
    /// Cost facts for every rule, in schema order.
    pub(crate) reports: Vec<RuleReport>,
    /// The options it was compiled with.
    pub(crate) options: CompileOptions,
}

impl CompiledSchema {
    /// The schema's errors with Kubernetes' texts: first the structural and rule-field
    /// errors, then the errors of compiling the rules (compilation failures, over-budget
    /// rules), which Kubernetes only reports for a schema that is structural and whose
    /// defaults are valid. Empty when every rule compiled.
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// Cost facts for every rule, in schema order.
    pub fn reports(&self) -> &[RuleReport] {
        &self.reports
    }
}

/// Compiles all rules of `schema` with the environment `env` (see [`rule_env`]).
pub fn compile_schema(schema: &Schema, env: &Env, options: CompileOptions) -> CompiledSchema {
    // A schema that cannot be made structural gets no structural check (nor defaults nor
    // rules); the reason is an error only when nothing else is (validation.go).
    let unconvertible = options
        .structural_check
        .then(|| conversion_error(schema))
        .flatten();
    let structural_errors = if options.structural_check && unconvertible.is_none() {
        structural_errors(schema, &options.schema_path, options.is_resource_root)
    } else {
        Vec::new()
    };
    let structural = unconvertible.is_none() && structural_errors.is_empty();
    let mut structural_errors = structural_errors;
    if options.is_resource_root && schema.nullable {
        structural_errors.push(FieldError::new(
            options.schema_path.child("nullable"),
            ErrorType::Forbidden,
            "",
            "nullable cannot be true at the root",
        ));
    }
    let mut errors = Vec::new();
    let root_type = match SchemaTypes::build(schema, SELF_TYPE, options.is_resource_root) {
        Ok((_, root)) => root,
        Err(e) => {
            errors.push(FieldError::new(
                options.schema_path.clone(),
                ErrorType::Invalid,
                &schema.type_,
                e.to_string(),
            ));
            None
        }
    };
    let mut c = Compiler {
        env,
        per_call_limit: options.per_call_limit,
        reference: options.reference,
        memory_limit: options.memory_limit,
        structural_check: options.structural_check,
        is_resource_root: options.is_resource_root,
        cel: structural,
        errors: structural_errors,
        cel_errors: errors,
        reports: Vec::new(),
        total: 0,
        most_expensive: Vec::new(),
        schema_errors: 0,
    };
    let at = Position {
        path: options.schema_path.clone(),
        cardinality: Some(1),
        uncorrelatable: None,
        depth: 0,
        context: NodeContext::default(),
    };
    let root = c.node(schema, root_type, &at);
    if c.total > PER_CRD_ESTIMATED_COST_LIMIT {
        for (path, _) in std::mem::take(&mut c.most_expensive) {
            c.cel_errors.push(FieldError::new(
                path,
                ErrorType::Forbidden,
                "",
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        c.cel_errors.push(FieldError::new(
            options.schema_path.clone(),
            ErrorType::Forbidden,
            "",
            cost_error_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                c.total,
                PER_CRD_ESTIMATED_COST_LIMIT,
            ),
        ));
    }
    if let Some(reason) = unconvertible
        && c.errors.is_empty()
        && c.cel_errors.is_empty()
    {
        c.errors.push(FieldError::new(
            options.schema_path.clone(),
            ErrorType::Invalid,
            "",
            reason,
        ));
    }
    let schema_errors = c.errors.len();
    let mut errors = c.errors;
    errors.append(&mut c.cel_errors);
    CompiledSchema {
        root,
        errors,
        schema_errors,
        structural,
        reports: c.reports,
        options,
    }
}

/// Where a schema node sits: its path, how often its rules may run, the first ancestor
/// whose old values cannot be correlated (transition rules are forbidden below it), depth,
/// and what its keyword checks depend on above it.
#[derive(Clone)]
struct Position {
    path: FieldPath,
    cardinality: Option<u64>,
    uncorrelatable: Option<FieldPath>,
    depth: usize,
    context: NodeContext,
}

impl Position {
    /// The position of a child of the node `s` at `self`.
    fn child(
        &self,
        s: &Schema,
        step: FieldPath,
        correlatable: bool,
        context: NodeContext,
    ) -> Position {
        Position {
            path: step,
            cardinality: child_cardinality(self.cardinality, s),
            uncorrelatable: self
                .uncorrelatable
                .clone()
                .or_else(|| (!correlatable).then(|| self.path.clone())),
            depth: self.depth + 1,
            context,
        }
    }
}

struct Compiler<'a> {
    env: &'a Env,
    per_call_limit: u64,
    /// Plan in reference mode (see [`CompileOptions::reference`]).
    reference: bool,
    /// The memory budget of one evaluation (see [`CompileOptions::memory_limit`]).
    memory_limit: Option<u64>,
    /// Check each node's keywords as a CRD's (see [`CompileOptions::structural_check`]).
    structural_check: bool,
    /// Whether the schema's root is a resource's (see [`CompileOptions::is_resource_root`]).
    is_resource_root: bool,
    /// Whether rules are compiled (the schema is structural).
    cel: bool,
    /// Schema errors (structural, list types, rule fields).
    errors: Vec<FieldError>,
    /// Errors of compiling the rules.
    cel_errors: Vec<FieldError>,
    reports: Vec<RuleReport>,
    total: u64,
    /// How many schema errors (not compilation errors) were found so far.
    schema_errors: usize,
    /// The (at most 4) costliest expressions of at least 1% of the CRD limit, costliest
    /// first, named in the errors when the total is over the limit.
    most_expensive: Vec<(FieldPath, u64)>,
}

impl Compiler<'_> {
    /// Adds an expression's estimated cost to the CRD total.
    fn observe(&mut self, path: FieldPath, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < PER_CRD_ESTIMATED_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }

    fn node(&mut self, s: &Schema, ty: Option<Arc<DeclType>>, at: &Position) -> RuleNode {
        let path = &at.path;
        let mut node = RuleNode {
            schema_type: s.type_.clone(),
            ty: ty.clone(),
            list_map_keys: s.list_map_keys_with_defaults(),
            list_type: s.list_type.clone(),
            map_correlatable: s.map_type.as_deref() != Some("atomic"),
            ..RuleNode::default()
        };
        if at.depth > super::decl_types::MAX_SCHEMA_DEPTH {
            return node;
        }
        let errors_before = self.schema_errors;
        let is_root = at.depth == 0 && self.is_resource_root;
        for (name, ps) in &s.properties {
            let context = at.context.property(s, is_root, name);
            if !ps.has_validations() {
                let step = path.child("properties").key(name);
                self.subtree_node_errors(ps, &step, context, at.depth + 1);
                continue;
            }
            let field_ty = ty
                .as_ref()
                .and_then(|t| t.field(&escaped(name)?).map(|f| f.ty.clone()));
            // Unescapable properties are typed on their own.
            let field_ty = match field_ty {
                Some(t) => Some(t),
                None if super::escaping::escape(name).is_none() => {
                    SchemaTypes::build(ps, SELF_TYPE, ps.embedded_resource)
                        .ok()
                        .and_then(|(_, root)| root)
                }
                None => None,
            };
            let step = path.child("properties").key(name);
            let child_at = at.child(s, step, node.map_correlatable, context);
            let child = self.node(ps, field_ty, &child_at);
            node.properties.insert(name.clone(), child);
        }
        let values_context = at.context.additional_properties();
        if let Some(items) = s.items().filter(|i| !i.has_validations()) {
            self.subtree_node_errors(items, &path.child("items"), at.context, at.depth + 1);
        }
        self.item_array_errors(s, path, at.context, at.depth);
        if let Some(values) = s.additional_schema().filter(|v| !v.has_validations()) {
            let step = path.child("additionalProperties");
            self.subtree_node_errors(values, &step, values_context, at.depth + 1);
        }
        self.junctor_errors(s, path, at.context, at.depth);
        if let Some(items) = s.items().filter(|i| i.has_validations()) {
            let elem = ty.as_ref().and_then(|t| t.elem().cloned());
            // Only map lists correlate items with their old versions.
            let correlatable = s.list_type() == "map";
            let child_at = at.child(s, path.child("items"), correlatable, at.context);
            let child = self.node(items, elem, &child_at);
            node.items = Some(Box::new(child));
        }
        if let Some(values) = s.additional_schema().filter(|v| v.has_validations()) {
            let elem = ty.as_ref().and_then(|t| t.elem().cloned());
            let step = path.child("additionalProperties");
            let child_at = at.child(s, step, true, values_context);
            let child = self.node(values, elem, &child_at);
            node.additional = Some(Box::new(child));
        }
        let mut errors = if self.structural_check {
            node_errors(s, path, at.context)
        } else {
            Vec::new()
        };
        errors.extend(rule_field_errors(s, path));
        self.schema_errors += errors.len();
        self.errors.extend(errors);
        // As Kubernetes, rules are only compiled where the schema at this level and below
        // has no schema errors.
        if self.cel && !s.validations.is_empty() && self.schema_errors == errors_before {
            match &ty {
                Some(t) => self.rules(s, t, at, &mut node),
                None => self.cel_errors.push(FieldError::new(
                    path.child("x-kubernetes-validations"),
                    ErrorType::Internal,
                    "",
                    "internal error: failed to construct type information for \
                     x-kubernetes-validations rules: unable to convert structural schema to CEL \
                     declarations",
                )),
            }
        }
        node
    }

    /// The node errors of a subtree whose rules are not compiled (no rules, or rules under
    /// a junctor, which are never compiled): keywords and rule fields, counted as schema
    /// errors of the nodes above. `context` is the subtree root's (see [`NodeContext`]).
    fn subtree_node_errors(
        &mut self,
        s: &Schema,
        path: &FieldPath,
        context: NodeContext,
        depth: usize,
    ) {
        if depth > super::decl_types::MAX_SCHEMA_DEPTH {
            return;
        }
        let mut errors = if self.structural_check {
            node_errors(s, path, context)
        } else {
            Vec::new()
        };
        errors.extend(rule_field_errors(s, path));
        self.schema_errors += errors.len();
        self.errors.extend(errors);
        for (name, ps) in &s.properties {
            // Only the root's properties are a resource root's (and this is never the root).
            let child_context = context.property(s, false, name);
            let step = path.child("properties").key(name);
            self.subtree_node_errors(ps, &step, child_context, depth + 1);
        }
        if let Some(items) = s.items() {
            self.subtree_node_errors(items, &path.child("items"), context, depth + 1);
        }
        self.item_array_errors(s, path, context, depth);
        if let Some(values) = s.additional_schema() {
            let step = path.child("additionalProperties");
            self.subtree_node_errors(values, &step, context.additional_properties(), depth + 1);
        }
        self.junctor_errors(s, path, context, depth);
    }

    /// The node errors of the schemas of `items` given as an array (`items[0]`, ...), which
    /// Kubernetes checks as it checks the spine before refusing the array itself.
    fn item_array_errors(
        &mut self,
        s: &Schema,
        path: &FieldPath,
        context: NodeContext,
        depth: usize,
    ) {
        for (i, item) in s.item_array().iter().enumerate() {
            let step = path.child("items").index(i);
            self.subtree_node_errors(item, &step, context, depth + 1);
        }
    }

    /// The node errors of the schemas under `s`'s junctors, `definitions` and
    /// `dependencies` (Kubernetes checks them as it checks the spine, in the same context).
    fn junctor_errors(&mut self, s: &Schema, path: &FieldPath, context: NodeContext, depth: usize) {
        if !self.structural_check {
            return;
        }
        for (n, at) in junctor_schemas(s, path) {
            self.subtree_node_errors(n, &at, context, depth + 1);
        }
    }

    fn rules(&mut self, s: &Schema, ty: &Arc<DeclType>, at: &Position, node: &mut RuleNode) {
        let path = &at.path;
        let cardinality = at.cardinality.unwrap_or_else(|| unbounded_cardinality(ty));
        // Kubernetes names the types of each rule node's compilation from that node.
        let (types, ty) = SchemaTypes::rooted(ty, SELF_TYPE);
        let (types, ty) = (&Arc::new(types), &ty);
        let sizes = SchemaSizes { root: ty.clone() };
        for (i, rule) in s.validations.iter().enumerate() {
            let rule_path = path.child("x-kubernetes-validations").index(i);
            let mut env = self.env.clone();
            env.set_type_provider(types.clone());
            env.declare(SELF, ty.cel.clone());
            let optional_old_self = rule.optional_old_self == Some(true);
            env.declare(
                OLD_SELF,
                if optional_old_self {
                    Type::Optional(Arc::new(ty.cel.clone()))
                } else {
                    ty.cel.clone()
                },
            );
            if rule.rule.trim().is_empty() {
                continue;
            }
            let invalid_rule = |detail: String| {
                FieldError::with_rendered_value(
                    rule_path.child("rule"),
                    ErrorType::Invalid,
                    rule_json(rule),
                    detail,
                )
            };
            let ast = match env.compile(&rule.rule) {
                Ok(ast) => ast,
                Err(issues) => {
                    let detail = format!("compilation failed: {issues}");
                    self.cel_errors.push(invalid_rule(detail.clone()));
                    node.compile_errors.push(detail);
                    continue;
                }
            };
            if ast.output_type() != Some(&Type::Bool) {
                let detail = "cel expression must evaluate to a bool".to_string();
                self.cel_errors.push(invalid_rule(detail.clone()));
                node.compile_errors.push(detail);
                continue;
            }
            let uses_old_self = ast.checked().is_some_and(|c| {
                c.references
                    .values()
                    .any(|r| matches!(r, Reference::Variable(n) if &**n == OLD_SELF))
            });
            let program = match env.program_with(&ast, self.program_options()) {
                Ok(p) => p,
                Err(issues) => {
                    let detail =
                        format!("program instantiation failed: {}", program_error(&issues));
                    self.cel_errors.push(invalid_rule(detail.clone()));
                    node.compile_errors.push(detail);
                    continue;
                }
            };
            let estimated = env.estimate_cost(&ast, &sizes).unwrap_or_default();
            let charged = estimated.max.saturating_mul(cardinality);
            let rule_field = rule_path.child("rule");
            self.reports.push(RuleReport {
                path: rule_field.to_string(),
                rule: rule.rule.clone(),
                estimated,
                cardinality,
                charged,
            });
            self.observe(rule_field.clone(), charged);
            if charged > PER_RULE_ESTIMATED_COST_LIMIT {
                self.cel_errors.push(FieldError::new(
                    rule_field,
                    ErrorType::Forbidden,
                    "",
                    cost_error_message(
                        "estimated rule cost",
                        charged,
                        PER_RULE_ESTIMATED_COST_LIMIT,
                    ),
                ));
            }
            if !uses_old_self {
                if let Some(set) = rule.optional_old_self {
                    self.cel_errors.push(FieldError::with_rendered_value(
                        rule_path.child("optionalOldSelf"),
                        ErrorType::Invalid,
                        set.to_string(),
                        "may not be set if oldSelf is not used in rule",
                    ));
                }
            }
            if uses_old_self {
                if let Some(within) = &at.uncorrelatable {
                    self.cel_errors.push(FieldError::new(
                        rule_path.child("rule"),
                        ErrorType::Invalid,
                        &rule.rule,
                        format!(
                            "oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"
                        ),
                    ));
                }
            }
            // A messageExpression that does not compile leaves the rule with its static
            // message (Kubernetes keeps the rule's program).
            let message_program = match self.message_program(&env, &sizes, rule, &rule_path) {
                Ok(p) => p,
                Err(e) => {
                    self.cel_errors.push(e);
                    None
                }
            };
            let field_path = normalize_field_path(&rule.field_path, s)
                .ok()
                .filter(|p| !p.is_empty() && p != "<nil>");
            node.rules.push(CompiledRule {
                rule: rule.clone(),
                program,
                message_program,
                uses_old_self,
                field_path,
            });
        }
    }

    fn message_program(
        &mut self,
        env: &Env,
        sizes: &SchemaSizes,
        rule: &ValidationRule,
        rule_path: &FieldPath,
    ) -> Result<Option<Program>, FieldError> {
        if rule.message_expression.trim().is_empty() {
            return Ok(None);
        }
        let invalid = |detail: String| {
            FieldError::with_rendered_value(
                rule_path.child("messageExpression"),
                ErrorType::Invalid,
                rule_json(rule),
                detail,
            )
        };
        let ast = env
            .compile(&rule.message_expression)
            .map_err(|issues| invalid(format!("messageExpression compilation failed: {issues}")))?;
        if ast.output_type() != Some(&Type::String) {
            return Err(invalid(
                "messageExpression must evaluate to a string".into(),
            ));
        }
        let max = env.estimate_cost(&ast, sizes).unwrap_or_default().max;
        self.observe(rule_path.child("messageExpression"), max);
        if max > PER_RULE_ESTIMATED_COST_LIMIT {
            self.cel_errors.push(FieldError::new(
                rule_path.child("messageExpression"),
                ErrorType::Forbidden,
                "",
                cost_error_message(
                    "estimated messageExpression cost",
                    max,
                    PER_RULE_ESTIMATED_COST_LIMIT,
                ),
            ));
        }
        env.program_with(&ast, self.program_options())
            .map(Some)
            .map_err(|issues| {
                invalid(format!(
                    "messageExpression instantiation failed: {}",
                    program_error(&issues)
                ))
            })
    }

    fn program_options(&self) -> ProgramOptions {
        ProgramOptions::default()
            .with_cost_limit(Some(self.per_call_limit))
            .with_presence_test_cost(false)
            .with_reference(self.reference)
            .with_memory_limit(self.memory_limit)
    }
}

/// A program-creation error as cel-go returns it: a plain Go error (the first problem, no
/// source position).
fn program_error(issues: &kcel::Issues) -> String {
    issues
        .diagnostics
        .first()
        .map_or_else(|| issues.to_string(), kcel::Diagnostic::message)
}

fn escaped(name: &str) -> Option<String> {
    super::escaping::escape(name)
}

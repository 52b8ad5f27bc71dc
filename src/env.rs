//! The public API: an [`Env`] declares variables and functions, parses source text into an
//! [`Ast`], and plans it into a [`Program`] that evaluates against an [`Activation`].
//!
//! A `Program` is immutable, `Send + Sync`, and cheap to evaluate many times, also
//! concurrently.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::check::{CheckEnv, Checked, TypeProvider, check};
use crate::cost::{CallEstimateFn, CostEstimate, SizeEstimator, WithCallEstimates, estimate};
use crate::error::{DeclaredTypeError, EvalError, Issues, render};
use crate::eval::interp::{Interrupt, SlotStorage, eval, store_shared_prefixes};
use crate::eval::plan::{Input, Plan, PlanEnv, plan};
use crate::eval::slot::SlotContent;
use crate::registry::{Function, Library, Registry};
use crate::syntax::ast::{Expr, ExprId, Span};
use crate::syntax::{ParseOptions, parse};
use crate::types::Type;
use crate::value::{InDocument, JsonNode, Value};

use crate::activation::Activation;

/// Whether `ty` mentions the named type `name` anywhere.
fn names_type(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Named(n, params) => &**n == name || params.iter().any(|p| names_type(p, name)),
        Type::List(t) | Type::TypeOf(t) | Type::Optional(t) => names_type(t, name),
        Type::Map(k, v) => names_type(k, name) || names_type(v, name),
        _ => false,
    }
}

/// An environment: libraries, declared variables, container and parser options.
#[derive(Clone, Debug)]
pub struct Env {
    registry: Arc<Registry>,
    variables: BTreeMap<String, Type>,
    container: String,
    parse_options: ParseOptions,
    provider: Option<Arc<dyn TypeProvider>>,
    homogeneous_literals: bool,
    literal_validators: bool,
    presence_test_cost: bool,
    call_estimates: Option<CallEstimateFn>,
    program_options: ProgramOptions,
}

impl Default for Env {
    fn default() -> Env {
        Env::new()
    }
}

impl Env {
    /// An environment with the CEL standard library.
    pub fn new() -> Env {
        let mut env = Env::empty();
        env.add_library(&crate::standard::library());
        env
    }

    /// An environment without any functions.
    pub fn empty() -> Env {
        Env {
            registry: Arc::new(Registry::new()),
            variables: BTreeMap::new(),
            container: String::new(),
            // cel-go's parser rejects the optional syntax unless a library enables it.
            parse_options: ParseOptions {
                optional_syntax: false,
                ..ParseOptions::default()
            },
            provider: None,
            homogeneous_literals: false,
            literal_validators: false,
            presence_test_cost: true,
            call_estimates: None,
            program_options: ProgramOptions::default(),
        }
    }

    /// Adds a library's functions.
    pub fn add_library(&mut self, library: &Library) -> &mut Env {
        Arc::make_mut(&mut self.registry).add_library(library);
        if library.optional_syntax {
            self.parse_options.optional_syntax = true;
        }
        for table in &library.macros {
            let known = &mut self.parse_options.extra_macros;
            if !known.iter().any(|t| std::ptr::eq(*t, *table)) {
                known.push(table);
            }
        }
        self
    }

    /// Declares a function (or more overloads of an existing one).
    pub fn declare_function(&mut self, function: Function) -> &mut Env {
        Arc::make_mut(&mut self.registry).add_function(function);
        self
    }

    /// Declares a variable (names may be qualified, like `a.b.c`).
    pub fn declare(&mut self, name: impl Into<String>, ty: Type) -> &mut Env {
        self.variables.insert(name.into(), ty);
        self
    }

    /// Checks a type before it is declared for a variable: a named type must be one this
    /// environment knows (a library type such as `net.IP`, or an object type of the type
    /// provider), and type parameters (`A`) are for function signatures only.
    ///
    /// ```
    /// use kcel::{Env, Type};
    ///
    /// let env = Env::new();
    /// assert!(env.check_declared_type(&Type::parse("map(string, list(int))").unwrap()).is_ok());
    /// assert!(env.check_declared_type(&Type::parse("Int").unwrap()).is_err());
    /// ```
    pub fn check_declared_type(&self, ty: &Type) -> Result<(), DeclaredTypeError> {
        match ty {
            Type::Param(name) => Err(DeclaredTypeError::TypeParameter(name.to_string())),
            Type::List(elem) | Type::TypeOf(elem) | Type::Optional(elem) => {
                self.check_declared_type(elem)
            }
            Type::Map(key, value) => {
                self.check_declared_type(key)?;
                self.check_declared_type(value)
            }
            Type::Named(name, params) => {
                let known = self
                    .provider
                    .as_ref()
                    .is_some_and(|p| p.has_struct_type(name))
                    || self.registry.functions().iter().any(|f| {
                        f.overloads.iter().any(|o| {
                            o.params
                                .iter()
                                .chain([&o.result])
                                .any(|t| names_type(t, name))
                        })
                    });
                if !known {
                    return Err(DeclaredTypeError::UnknownType(name.to_string()));
                }
                params.iter().try_for_each(|p| self.check_declared_type(p))
            }
            Type::Object(name)
                if !self
                    .provider
                    .as_ref()
                    .is_some_and(|p| p.has_struct_type(name)) =>
            {
                Err(DeclaredTypeError::UnknownObject(name.to_string()))
            }
            _ => Ok(()),
        }
    }

    /// Sets the container (namespace) used to resolve names.
    pub fn set_container(&mut self, container: impl Into<String>) -> &mut Env {
        self.container = container.into();
        self
    }

    /// Sets the provider of object types (e.g. from Kubernetes schemas).
    pub fn set_type_provider(&mut self, provider: Arc<dyn TypeProvider>) -> &mut Env {
        self.provider = Some(provider);
        self
    }

    /// Rejects list and map literals with mixed element types (cel-go's
    /// `HomogeneousAggregateLiterals`, on in Kubernetes).
    pub fn set_homogeneous_literals(&mut self, on: bool) -> &mut Env {
        self.homogeneous_literals = on;
        self
    }

    /// Checks constant arguments of `duration`, `timestamp` and `matches` at compile time
    /// (cel-go's extended validations; on in Kubernetes since 1.29).
    pub fn set_literal_validators(&mut self, on: bool) -> &mut Env {
        self.literal_validators = on;
        self
    }

    /// The parser options (limits, the macros this environment expands).
    pub fn parse_options(&self) -> &ParseOptions {
        &self.parse_options
    }

    /// The parser options (limits, macros).
    pub fn parse_options_mut(&mut self) -> &mut ParseOptions {
        &mut self.parse_options
    }

    /// The functions of this environment.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The declared variables.
    pub fn variables(&self) -> &BTreeMap<String, Type> {
        &self.variables
    }

    /// Parses source text (with macro expansion) into an unchecked [`Ast`].
    pub fn parse(&self, source: &str) -> Result<Ast, Issues> {
        let expr = parse(source, &self.parse_options)?;
        Ok(Ast {
            source: source.into(),
            expr,
            checked: None,
        })
    }

    /// Type-checks a parsed [`Ast`], reporting every problem found.
    pub fn check(&self, ast: &Ast) -> Result<Ast, Issues> {
        let checked = self.check_expr(&ast.expr, &ast.source)?;
        Ok(Ast {
            source: ast.source.clone(),
            expr: ast.expr.clone(),
            checked: Some(checked),
        })
    }

    /// The checker's results for `expr`, or its diagnostics.
    fn check_expr(&self, expr: &Expr, source: &Arc<str>) -> Result<Arc<(Checked, Type)>, Issues> {
        let env = CheckEnv {
            registry: &self.registry,
            variables: &self.variables,
            container: &self.container,
            provider: self.provider.as_deref(),
            homogeneous_literals: self.homogeneous_literals,
            literal_validators: self.literal_validators,
        };
        match check(expr, &env) {
            Ok((checked, output)) => {
                let diagnostics: Vec<_> = self
                    .registry
                    .validators()
                    .flat_map(|v| v(expr, &checked.types))
                    .collect();
                if !diagnostics.is_empty() {
                    return Err(Issues {
                        source: source.clone(),
                        diagnostics,
                    });
                }
                Ok(Arc::new((checked, output)))
            }
            Err(diagnostics) => Err(Issues {
                source: source.clone(),
                diagnostics,
            }),
        }
    }

    /// Parses and type-checks source text (the parsed tree is checked in place, not copied).
    pub fn compile(&self, source: &str) -> Result<Ast, Issues> {
        let mut ast = self.parse(source)?;
        ast.checked = Some(self.check_expr(&ast.expr, &ast.source)?);
        Ok(ast)
    }

    /// Plans an [`Ast`] into an executable [`Program`] with this environment's program
    /// options (see [`Env::set_program_options`]; by default: optimizer on, no cost limit,
    /// and the environment's presence-test cost).
    pub fn program(&self, ast: &Ast) -> Result<Program, Issues> {
        self.program_with(ast, self.program_options())
    }

    /// The options [`Env::program`] plans with: those of [`Env::set_program_options`],
    /// with this environment's presence-test cost. To plan with one option changed (a cost
    /// limit, [reference mode](ProgramOptions::reference)):
    /// `env.program_with(&ast, env.program_options().with_reference(true))`.
    pub fn program_options(&self) -> ProgramOptions {
        self.program_options
            .clone()
            .with_presence_test_cost(self.presence_test_cost)
    }

    /// The options [`Env::program`] plans with (the presence-test cost always follows
    /// [`Env::set_presence_test_cost`]).
    pub fn set_program_options(&mut self, options: ProgramOptions) -> &mut Env {
        self.program_options = options;
        self
    }

    /// Call estimates that every cost estimate of this environment consults before the
    /// size estimator's own, such as Kubernetes' (`==` on its library types, the
    /// `ext.Strings` functions priced by name); `None` for none.
    pub fn set_call_estimates(&mut self, estimates: Option<CallEstimateFn>) -> &mut Env {
        self.call_estimates = estimates;
        self
    }

    /// The estimated (min, max) cost of evaluating a checked expression, as cel-go's checker
    /// estimates it, with variable sizes from `sizes`; `None` if `ast` was not checked.
    pub fn estimate_cost(&self, ast: &Ast, sizes: &dyn SizeEstimator) -> Option<CostEstimate> {
        let (checked, _) = ast.checked.as_deref()?;
        let layered;
        let sizes: &dyn SizeEstimator = match self.call_estimates {
            Some(calls) => {
                layered = WithCallEstimates { calls, sizes };
                &layered
            }
            None => sizes,
        };
        Some(estimate(
            &ast.expr,
            checked,
            &self.registry,
            sizes,
            self.presence_test_cost,
        ))
    }

    /// Whether `has()` costs 1 (cel-go's default) or 0 (Kubernetes), in estimates and in
    /// programs planned with [`Env::program`].
    pub fn set_presence_test_cost(&mut self, costs: bool) -> &mut Env {
        self.presence_test_cost = costs;
        self
    }

    /// Plans an [`Ast`] into an executable [`Program`].
    pub fn program_with(&self, ast: &Ast, options: ProgramOptions) -> Result<Program, Issues> {
        self.plan_program(ast, options, true)
    }

    /// [`Env::program_with`], with the memoized conversions of optimized programs
    /// (`Node::Memo`) left out when `memoize` is false (to test them against).
    pub(crate) fn plan_program(
        &self,
        ast: &Ast,
        options: ProgramOptions,
        memoize: bool,
    ) -> Result<Program, Issues> {
        self.plan_traced(ast, options, memoize, false)
    }

    /// [`Env::plan_program`], with every node wrapped for tracing when `trace` is set
    /// ([`crate::trace`]).
    pub(crate) fn plan_traced(
        &self,
        ast: &Ast,
        options: ProgramOptions,
        memoize: bool,
        trace: bool,
    ) -> Result<Program, Issues> {
        let is_declared = |name: &str| self.variables.contains_key(name);
        let env = PlanEnv {
            optimize: options.optimize,
            memoize: options.optimize && memoize && !options.reference,
            reference: options.reference,
            trace,
            registry: &self.registry,
            checked: ast.checked.as_deref().map(|(c, _)| c),
            is_declared: &is_declared,
            container: &self.container,
            provider: self.provider.as_deref(),
        };
        let plan = plan(&ast.expr, &env).map_err(|diagnostics| Issues {
            source: ast.source.clone(),
            diagnostics,
        })?;
        // Each node's span by id, in one walk (the root is usually the largest id).
        let mut spans = Vec::new();
        ast.expr.walk(|e| {
            let id = e.id as usize;
            if id >= spans.len() {
                spans.resize(id + 1, Span::default());
            }
            spans[id] = e.span;
        });
        Ok(Program {
            plan,
            source: ast.source.clone(),
            spans,
            container: self.container.clone(),
            options,
        })
    }
}

/// The result of an evaluation that passed its memory budget: the budget's error, not
/// absorbable, like the cost limit's (whatever the expression made of the failing
/// operation's result), keeping its position when the error itself reached the top.
#[cold]
#[inline(never)]
fn over_budget(result: Result<Value, EvalError>, exceeded: EvalError) -> Result<Value, EvalError> {
    match result {
        Err(e) if e.kind() == exceeded.kind() => Err(e),
        _ => Err(exceeded),
    }
}

/// A parsed (and possibly type-checked) expression with its source text.
#[derive(Clone, Debug)]
pub struct Ast {
    source: Arc<str>,
    expr: Expr,
    checked: Option<Arc<(Checked, Type)>>,
}

impl Ast {
    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The syntax tree, macros expanded.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// The output type, if the expression was type-checked.
    pub fn output_type(&self) -> Option<&Type> {
        self.checked.as_deref().map(|(_, t)| t)
    }

    /// The checker's annotations (a type per node, resolved references), if checked.
    pub fn checked(&self) -> Option<&Checked> {
        self.checked.as_deref().map(|(c, _)| c)
    }
}

/// Options for planning and running a program.
#[derive(Clone)]
pub struct ProgramOptions {
    /// Fold constant literals and constant conversions, turn `in` over constant lists into
    /// set lookups (cel-go's `OptOptimize`, on in Kubernetes), and convert a variable's
    /// path once per evaluation where the same conversion repeats or sits in a
    /// comprehension (each use still charged as cel-go charges it). Default: on.
    pub(crate) optimize: bool,
    /// Stop evaluation with "operation cancelled: actual cost limit exceeded" once the
    /// actual cost passes this. Default: none.
    pub(crate) cost_limit: Option<u64>,
    /// Whether `has()` costs 1 (cel-go's default) or 0 (Kubernetes). Default: 1.
    pub(crate) presence_test_cost: bool,
    /// Polled every 100 comprehension iterations; returning true stops evaluation with
    /// "operation interrupted".
    pub(crate) interrupt: Option<Arc<Interrupt>>,
    /// The memory budget of one evaluation, in bytes (see [`crate::library::budget`]): operations
    /// that produce large values (string and list building, `replace`, `join`, `format`,
    /// `lists.range`, `flatten`, ...) count what they are about to produce against it, and
    /// walks over values (equality, `format`'s `%s`) may visit one element per 8 bytes of
    /// it; passing either stops evaluation with "operation cancelled: memory limit
    /// exceeded" or "operation cancelled: value traversal limit exceeded". Costs are not
    /// affected. Default: 64 MiB ([`crate::budget::DEFAULT_MEMORY_LIMIT`]); `None`: no
    /// limit.
    pub(crate) memory_limit: Option<u64>,
    /// Reference mode: plan and evaluate every node through the one generic path — each
    /// call's arguments evaluated node by node into values and passed to its overload,
    /// which is charged its declared cost — with every evaluation shortcut off (inline
    /// operator kernels, int and time trees, in-place operand reads, string tests and
    /// precompiled constant regexes, paths and shared path prefixes, memoized
    /// conversions, `+` chains, in-place accumulators, specialised `!` and quantifier
    /// loops, JSON read in place). What changes results or costs as cel-go does (the
    /// optimizer's folding and set membership under `optimize`, lazy optional `or`,
    /// `cel.@block`'s hidden cost) is kept. Results, errors and costs must be the same in
    /// both modes; the test suites run in both to check that. Slow; for testing.
    /// Default: off.
    pub(crate) reference: bool,
}

impl Default for ProgramOptions {
    fn default() -> ProgramOptions {
        ProgramOptions {
            optimize: true,
            cost_limit: None,
            presence_test_cost: true,
            interrupt: None,
            memory_limit: Some(crate::budget::DEFAULT_MEMORY_LIMIT),
            reference: false,
        }
    }
}

impl ProgramOptions {
    /// With constant folding, set lookups for `in` over constant lists and per-evaluation
    /// conversion of repeated paths on or off ([`ProgramOptions::optimize`]).
    pub fn with_optimize(mut self, on: bool) -> ProgramOptions {
        self.optimize = on;
        self
    }

    /// With an actual-cost limit ([`ProgramOptions::cost_limit`]).
    pub fn with_cost_limit(mut self, limit: Option<u64>) -> ProgramOptions {
        self.cost_limit = limit;
        self
    }

    /// With `has()` costing 1 (`true`, cel-go) or 0 (`false`, Kubernetes).
    pub fn with_presence_test_cost(mut self, charged: bool) -> ProgramOptions {
        self.presence_test_cost = charged;
        self
    }

    /// With an interrupt flag polled during evaluation ([`ProgramOptions::interrupt`]).
    pub fn with_interrupt(mut self, interrupt: Option<Arc<Interrupt>>) -> ProgramOptions {
        self.interrupt = interrupt;
        self
    }

    /// With a memory budget per evaluation, in bytes ([`ProgramOptions::memory_limit`]).
    pub fn with_memory_limit(mut self, limit: Option<u64>) -> ProgramOptions {
        self.memory_limit = limit;
        self
    }

    /// In reference mode or not ([`ProgramOptions::reference`]).
    pub fn with_reference(mut self, on: bool) -> ProgramOptions {
        self.reference = on;
        self
    }

    /// Whether constants are folded, `in` over constant lists becomes a set lookup and a
    /// variable's repeated path is converted once per evaluation (cel-go's `OptOptimize`,
    /// on in Kubernetes). Default: on.
    pub fn optimize(&self) -> bool {
        self.optimize
    }

    /// The actual-cost limit: evaluation stops with "operation cancelled: actual cost limit
    /// exceeded" once the cost passes it. Default: none.
    pub fn cost_limit(&self) -> Option<u64> {
        self.cost_limit
    }

    /// Whether `has()` costs 1 (cel-go's default) or 0 (Kubernetes). Default: 1.
    pub fn presence_test_cost(&self) -> bool {
        self.presence_test_cost
    }

    /// The interrupt flag, polled every 100 comprehension iterations; when it is raised
    /// evaluation stops with "operation interrupted".
    pub fn interrupt(&self) -> Option<&Arc<Interrupt>> {
        self.interrupt.as_ref()
    }

    /// The memory budget of one evaluation, in bytes (see [`crate::library::budget`]):
    /// operations that produce large values count what they are about to produce against
    /// it, and walks over values may visit one element per 8 bytes of it; passing either
    /// stops evaluation with "operation cancelled: memory limit exceeded" or "operation
    /// cancelled: value traversal limit exceeded". Costs are not affected. Default: 64 MiB
    /// ([`crate::DEFAULT_MEMORY_LIMIT`]); `None`: no limit.
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }

    /// Whether the program is planned in reference mode: every node through the one
    /// generic path, every evaluation shortcut off (results, errors and costs are the same
    /// as in the fast mode; slow, for testing). Default: off.
    pub fn reference(&self) -> bool {
        self.reference
    }
}

impl std::fmt::Debug for ProgramOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgramOptions")
            .field("optimize", &self.optimize)
            .field("cost_limit", &self.cost_limit)
            .field("presence_test_cost", &self.presence_test_cost)
            .field("interrupt", &self.interrupt.is_some())
            .field("memory_limit", &self.memory_limit)
            .field("reference", &self.reference)
            .finish()
    }
}

/// Facts about one evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalDetails {
    /// The actual cost, as cel-go's cost tracker counts it.
    pub actual_cost: u64,
}

/// A planned, immutable expression ready to evaluate.
#[derive(Debug)]
pub struct Program {
    plan: Plan,
    source: Arc<str>,
    /// Node id → anchor span, for error positions.
    spans: Vec<Span>,
    container: String,
    options: ProgramOptions,
}

impl Program {
    /// Evaluates the program against an activation.
    pub fn eval(&self, activation: &dyn Activation) -> Result<Value, EvalError> {
        self.eval_with_details(activation).0
    }

    /// Evaluates the program and reports the actual cost (also when evaluation fails).
    pub fn eval_with_details(
        &self,
        activation: &dyn Activation,
    ) -> (Result<Value, EvalError>, EvalDetails) {
        let (result, details, _) = self.run(activation, None);
        (result, details)
    }

    /// Evaluates the program, recording the steps of a traced program in `trace`.
    pub(crate) fn run(
        &self,
        activation: &dyn Activation,
        trace: Option<Box<crate::eval::trace_log::TraceLog>>,
    ) -> (
        Result<Value, EvalError>,
        EvalDetails,
        Option<Box<crate::eval::trace_log::TraceLog>>,
    ) {
        let budget = crate::budget::Scope::enter(self.options.memory_limit);
        // A JSON activation's document, whose fields are read in place (not in reference
        // mode, which evaluates values; not asked for a program without variables).
        let document = match self.options.reference || self.plan.inputs.is_empty() {
            false => activation.json_variables(),
            true => None,
        };
        let mut storage = SlotStorage::new();
        let mut frame = storage.frame(match document {
            Some(_) => self.plan.json_slot_count,
            None => self.plan.slot_count,
        });
        frame.limit = self.options.cost_limit.unwrap_or(u64::MAX);
        frame.presence_cost = u64::from(self.options.presence_test_cost);
        frame.interrupt = self.options.interrupt.as_deref();
        frame.trace = trace;
        for input in &self.plan.inputs {
            let content = self.bind(input, activation, document);
            // JSON read in place: the in-place evaluations then read JSON nodes as well.
            frame.json |= matches!(content.get(), Ok(Value::Json(_)));
            frame.slots[input.slot as usize] = content;
        }
        let prefixes = match document {
            Some(_) => &self.plan.json_prefixes,
            None => &self.plan.shared_prefixes,
        };
        if !prefixes.is_empty() {
            store_shared_prefixes(prefixes, frame.slots);
        }
        let mut result = eval(&self.plan.root, &mut frame);
        // JSON read in place becomes a value of its own; other values stay where they are
        // (moving every result through `materialize` cost a small evaluation a fifth of
        // its time: the move copied the value from an offset its store did not start at).
        if let Ok(value) = &mut result
            && matches!(value, Value::Json(_))
        {
            *value = std::mem::replace(value, Value::Null).materialize();
        }
        let exceeded = budget.finish();
        if let Err(limit) = frame.check_limit() {
            result = Err(limit);
        } else if let Some(exceeded) = exceeded {
            result = over_budget(result, exceeded);
        }
        let details = EvalDetails {
            actual_cost: frame.cost,
        };
        (result, details, frame.trace.take())
    }

    /// An input's slot content: its value read in place from `document` (the activation's
    /// JSON variables) when that has it, else by reference when the activation holds it,
    /// else the value or error the activation gives, else the error of a missing variable.
    fn bind<'a>(
        &self,
        input: &Input,
        activation: &'a dyn Activation,
        document: Option<&'a JsonNode>,
    ) -> SlotContent<'a> {
        if let Some(document) = document {
            for name in &input.names {
                if let Some(v) = InDocument::field(document, name) {
                    return SlotContent::InDocument(v);
                }
            }
        }
        for name in &input.names {
            if let Some(v) = activation.resolve_ref(name) {
                if self.options.reference {
                    // Values, not JSON read in place.
                    return SlotContent::Result(Ok(v.clone().materialize()));
                }
                return SlotContent::Borrowed(v);
            }
            if let Some(r) = activation.try_resolve(name) {
                if self.options.reference {
                    return SlotContent::Result(r.map(Value::materialize));
                }
                return SlotContent::Result(r);
            }
        }
        let short = input.names.last().map_or("", |n| n);
        SlotContent::Result(Err(if input.declared {
            EvalError::no_such_attribute(short)
        } else {
            EvalError::undeclared_reference(short, &self.container)
        }))
    }

    /// The source text this program was compiled from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The anchor span of a node, if the id belongs to this program.
    pub fn span(&self, id: ExprId) -> Option<Span> {
        self.spans.get(id as usize).copied()
    }

    /// Renders a runtime error in cel-go's format, with the failing node's position when
    /// known.
    pub fn render_error(&self, error: &EvalError) -> String {
        match error.node().and_then(|id| self.span(id)) {
            Some(span) => render(&self.source, span.start as usize, &error.message()),
            None => format!("ERROR: <input>: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    fn eval_with_memory(expr: &str, memory_limit: Option<u64>) -> Result<Value, EvalError> {
        let env = Env::new();
        let ast = env.compile(expr).unwrap();
        // Unoptimized: constant literals are built at each evaluation, not when planning.
        let options = ProgramOptions::default()
            .with_memory_limit(memory_limit)
            .with_optimize(false);
        env.program_with(&ast, options).unwrap().eval(&())
    }

    #[test]
    fn the_memory_budget_stops_before_allocating_and_cannot_be_absorbed() {
        use crate::budget::MEMORY_EXCEEDED;
        // Two list literals of three elements: 72 bytes each.
        assert_eq!(
            eval_with_memory("[1, 2, 3] + [4, 5, 6] == [1, 2, 3, 4, 5, 6]", None),
            Ok(Value::Bool(true))
        );
        let over = eval_with_memory("[1, 2, 3] + [4, 5, 6] == [1, 2, 3, 4, 5, 6]", Some(100));
        assert_eq!(over.unwrap_err().to_string(), MEMORY_EXCEEDED);
        // `||` absorbs errors, but not this one.
        let absorbed = eval_with_memory("[1, 2, 3] == [4, 5, 6] || true", Some(100));
        assert_eq!(absorbed.unwrap_err().to_string(), MEMORY_EXCEEDED);
        assert_eq!(
            eval_with_memory("[1, 2, 3] == [4, 5, 6] || true", Some(1000)),
            Ok(Value::Bool(true))
        );
        // String concatenation counts the bytes of its result.
        let text = "'abcdefghij' + 'abcdefghij' + 'abcdefghij'";
        assert!(eval_with_memory(text, Some(30)).is_ok());
        assert_eq!(
            eval_with_memory(text, Some(29)).unwrap_err().to_string(),
            MEMORY_EXCEEDED
        );
    }

    /// A program planned in reference mode holds only the generic node kinds, and every
    /// constant, variable and selection below its root is wrapped so that nothing reads
    /// it in place: each call goes through its overloads with evaluated arguments.
    #[test]
    fn reference_plans_hold_only_generic_nodes() {
        use crate::eval::node::Node;
        fn generic(node: &mut Node, root: bool, expr: &str) {
            match node {
                Node::Const(_) | Node::Load(_) | Node::LoadUncharged(_) | Node::Select { .. } => {
                    assert!(root, "{expr}: a leaf not wrapped: {node:?}")
                }
                Node::Evaluated(_)
                | Node::Relative(_)
                | Node::Fail(_)
                | Node::Has { .. }
                | Node::And(..)
                | Node::Or(..)
                | Node::Conditional(_)
                | Node::NotStrictlyFalse(_)
                | Node::Call { .. }
                | Node::Dispatch { .. }
                | Node::OptionalOr { .. }
                | Node::InConstantList { .. }
                | Node::List { .. }
                | Node::Map { .. }
                | Node::Fold(_)
                | Node::Block(_)
                | Node::BlockIndex { .. } => {}
                other => panic!("{expr}: a shortcut node in reference mode: {other:?}"),
            }
            if let Node::Evaluated(inner) = node {
                // What it wraps is evaluated node by node; its own leaves are wrapped too.
                inner.for_each_child_mut(&mut |child| generic(child, false, expr));
                return;
            }
            node.for_each_child_mut(&mut |child| generic(child, false, expr));
        }
        let mut env = Env::new();
        env.declare("x", Type::Dyn);
        let exprs = [
            "x.a * 2 + x.b / 4 - x.c % 7 < 10",
            "x.s.startsWith('ab') && x.s.contains('b') && x.s.matches('^a') && !x.f",
            "size(x.s) + size(x.l) == 3 && has(x.m.k) && x.m['k'] == 1 && 'k' in x.m",
            "timestamp(x.ts) - timestamp(x.ts2) < duration('24h')",
            "x.l.exists(e, e == 2) && x.l.all(e, e > 0) && x.l.map(e, e * 2) == x.l.filter(e, e > 1)",
            "x.s + '/' + x.t + x.u == '' || x.s in ['a', 'b']",
            "timestamp(x.ts) == timestamp(x.ts) ? x.l[0] : x.l[1]",
        ];
        for expr in exprs {
            let ast = env.compile(expr).unwrap();
            let options = ProgramOptions::default().with_reference(true);
            let mut program = env.program_with(&ast, options).unwrap();
            assert!(program.plan.shared_prefixes.is_empty(), "{expr}");
            assert!(program.plan.json_prefixes.is_empty(), "{expr}");
            generic(&mut program.plan.root, true, expr);
        }
    }

    /// The prefixes shared by paths (`eval/shared_paths.rs`): over values a prefix must
    /// save four selections per evaluation; over a JSON document two, or four when it is a
    /// whole path; JSON prefixes are listed shortest first.
    #[test]
    fn shared_prefixes_are_chosen_per_set() {
        fn names(prefixes: &[crate::eval::node::PathNode]) -> Vec<String> {
            prefixes
                .iter()
                .map(|p| {
                    let fields: Vec<&str> = p.fields.iter().map(|(_, f)| &*f.name).collect();
                    fields.join(".")
                })
                .collect()
        }
        let mut env = Env::new();
        env.declare("x", Type::Dyn);
        env.declare("y", Type::Dyn);
        let cases: [(&str, &[&str], &[&str]); 7] = [
            (
                "x.s.t.a <= x.s.t.b && x.s.t.a >= x.s.t.c",
                &["s.t"],
                &["s.t"],
            ),
            (
                "x.a.b.c == 1 && x.a.b.d == 2 && x.a.e == 3",
                &[],
                &["a", "a.b"],
            ),
            ("x.a.b == y.a.b && x.a.c == y.a.c", &[], &[]),
            (
                "x.a.b == y.a.b && x.a.c == y.a.c && x.a.d == y.a.d",
                &[],
                &["a", "a"],
            ),
            ("x.a + x.a + x.a + x.a + x.a", &["a"], &["a"]),
            ("x.a.b + x.a.b", &[], &[]),
            ("x.a.b.c + x.a.b.d", &[], &["a.b"]),
        ];
        for (expr, values, json) in cases {
            let program = env.program(&env.compile(expr).unwrap()).unwrap();
            assert_eq!(names(&program.plan.shared_prefixes), values, "{expr}");
            assert_eq!(names(&program.plan.json_prefixes), json, "{expr}");
        }
    }

    /// Access chains are planned once (`eval/operand.rs`, `plan_operands`): each chain over
    /// a constant, a variable or a path becomes one access node with its steps and its
    /// reading cost (the base's, and 1 per step, as the node-by-node evaluation charges it
    /// when every step finds its entry), inner chains too; none in reference mode.
    #[test]
    fn access_chains_are_planned_once() {
        use crate::eval::node::{Node, Step};
        fn accesses(node: &mut Node, out: &mut Vec<(Vec<String>, u64)>) {
            if let Node::Access(a) = node {
                let steps = a
                    .operand
                    .steps
                    .iter()
                    .map(|s| match s {
                        Step::Field(f) => f.name.to_string(),
                        Step::Index(i) => i.to_string(),
                    })
                    .collect();
                out.push((steps, a.operand.static_cost));
            }
            node.for_each_child_mut(&mut |child| accesses(child, out));
        }
        let mut env = Env::new();
        env.declare("x", Type::Dyn);
        /// Per access node, in visiting order: its steps and its reading cost.
        type Accesses<'a> = &'a [(&'a [&'a str], u64)];
        let cases: [(&str, Accesses); 6] = [
            // x.a (2), then [0] and .b.
            ("x.a[0].b == 1", &[(&["0", "b"], 4), (&["0"], 3)]),
            ("x.labels['app'] == 'web'", &[(&["app"], 3)]),
            ("x.l[1][2] > 0", &[(&["1", "2"], 4), (&["1"], 3)]),
            // A constant under the relative attribute's 1.
            ("{'a': {'b': 1}}.a.b == 1", &[(&["a", "b"], 3), (&["a"], 2)]),
            // The presence test's operand: its root is not charged.
            ("has(x.m['k'].f)", &[(&["k"], 2)]),
            // Paths alone and indexes by computed keys are no access chains.
            ("x.a.b == x.l[x.i]", &[]),
        ];
        for (expr, expected) in cases {
            let ast = env.compile(expr).unwrap();
            let mut program = env.program_with(&ast, ProgramOptions::default()).unwrap();
            let mut found = Vec::new();
            accesses(&mut program.plan.root, &mut found);
            let expected: Vec<(Vec<String>, u64)> = expected
                .iter()
                .map(|(s, c)| (s.iter().map(|s| s.to_string()).collect(), *c))
                .collect();
            assert_eq!(found, expected, "{expr}");
            let reference = ProgramOptions::default().with_reference(true);
            let mut program = env.program_with(&ast, reference).unwrap();
            let mut found = Vec::new();
            accesses(&mut program.plan.root, &mut found);
            assert!(found.is_empty(), "{expr}: {found:?}");
        }
    }

    /// With the literal validators on (Kubernetes), a constant `matches` pattern is compiled
    /// once per program: the validators keep it (once per distinct pattern) for the planner.
    #[test]
    fn validated_patterns_are_kept_for_the_planner() {
        let mut env = Env::new();
        env.declare("s", Type::String);
        env.set_literal_validators(true);
        let expr = "s.matches('^a+$') && s.matches('^a+$') || s.matches('b')";
        let compiled = || crate::standard::strings::COMPILED_REGEXES.with(|n| n.get());
        let before = compiled();
        let ast = env.compile(expr).unwrap();
        let kept = ast.checked().unwrap().regexes.iter();
        let kept: Vec<&str> = kept.map(|(p, _)| &**p).collect();
        assert_eq!(kept, ["^a+$", "b"]);
        let program = env.program(&ast).unwrap();
        // Each distinct pattern compiled once, by the validators; the planner compiles none.
        assert_eq!(compiled() - before, 2);
        let bindings = crate::Bindings::new().with("s", Value::from("aaa"));
        assert_eq!(program.eval(&bindings), Ok(Value::Bool(true)));
        env.set_literal_validators(false);
        assert!(
            env.compile(expr)
                .unwrap()
                .checked()
                .unwrap()
                .regexes
                .is_empty()
        );
    }

    #[test]
    fn programs_are_send_and_sync() {
        assert_send_sync::<Program>();
        assert_send_sync::<Env>();
    }

    /// cel-go's parser rejects `.?`, `[?`, `[?x]`, `{?k: v}` unless a library enables the
    /// optional syntax (`parser/parser.go`, the `enableOptionalSyntax` checks in
    /// `VisitSelect`, `VisitIndex`, `visitEntries`, `visitListInit`; only
    /// `cel.OptionalTypes()` turns it on, `cel/library.go` `enableOptionalSyntax`).
    #[test]
    fn optional_syntax_needs_a_library() {
        let mut env = Env::new();
        env.declare("a", Type::Dyn);
        for (src, text) in [
            ("a.?b", "ERROR: <input>:1:2: unsupported syntax '.?'"),
            ("a[?0]", "ERROR: <input>:1:2: unsupported syntax '[?'"),
            ("[?a]", "ERROR: <input>:1:2: unsupported syntax '?'"),
            ("{?1: a}", "ERROR: <input>:1:2: unsupported syntax '?'"),
        ] {
            let e = env.compile(src).unwrap_err().to_string();
            assert!(e.starts_with(text), "{src}: {e}");
        }
        let mut lib = crate::registry::Library::new("optional-syntax", 0);
        lib.optional_syntax = true;
        env.add_library(&lib);
        assert!(env.parse("a.?b").is_ok());
    }
}

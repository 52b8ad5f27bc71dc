//! The one registry of functions: every function is declared once, with its overloads
//! (cel-go's overload ids), parameter and result types, documentation, examples and
//! implementation. The checker, the planner, the CLI's help and the playground all read
//! these declarations.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use foldhash::fast::RandomState;

use crate::cost::{CallCost, EstimateFn};
use crate::error::Diagnostic;
use crate::syntax::ast::Expr;
use crate::syntax::ast::NodeMap;
use crate::syntax::macros::Macro;
use crate::types::Type;
use crate::value::EvalResult;
use crate::value::Value;

/// A function implementation supplied as a closure.
pub type SharedFn = Arc<dyn Fn(&[Value]) -> EvalResult + Send + Sync>;

/// How an overload is evaluated.
#[derive(Clone)]
pub enum Implementation {
    /// One argument (for member overloads: the receiver).
    Unary(fn(&Value) -> EvalResult),
    /// Two arguments.
    Binary(fn(&Value, &Value) -> EvalResult),
    /// Any number of arguments.
    Nary(fn(&[Value]) -> EvalResult),
    /// A closure supplied by an embedder (may capture state).
    Closure(SharedFn),
    /// Declared for type-checking only (e.g. by an embedder); calling it is an error.
    Declared,
    /// Evaluated by the interpreter itself, because it is not strict in its arguments
    /// (`&&`, `||`, `?:`, `@not_strictly_false`) or is part of the language (`_[_]`).
    Builtin,
}

impl Implementation {
    /// Calls the implementation with already evaluated arguments.
    pub fn call(&self, args: &[Value]) -> Option<EvalResult> {
        Some(match (self, args) {
            (Implementation::Unary(f), [a]) => f(a),
            (Implementation::Binary(f), [a, b]) => f(a, b),
            (Implementation::Nary(f), _) => f(args),
            (Implementation::Closure(f), _) => f(args),
            _ => return None,
        })
    }
}

impl fmt::Debug for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Implementation::Unary(_) => "Unary",
            Implementation::Binary(_) => "Binary",
            Implementation::Nary(_) => "Nary",
            Implementation::Closure(_) => "Closure",
            Implementation::Declared => "Declared",
            Implementation::Builtin => "Builtin",
        })
    }
}

/// One overload of a function.
#[derive(Clone, Debug)]
pub struct Overload {
    /// cel-go's overload id, e.g. `add_int64`.
    pub(crate) id: Arc<str>,
    /// Called as `receiver.f(args)` rather than `f(args)`.
    pub(crate) member: bool,
    /// Parameter types; for member overloads the receiver comes first.
    pub(crate) params: Arc<[Type]>,
    /// The result type.
    pub(crate) result: Type,
    /// What a call runs.
    pub(crate) implementation: Implementation,
    /// The runtime cost ([`CallCost::Fixed`]`(1)` unless declared). Where no `estimate` is
    /// declared, the static estimate is derived from it (see [`crate::cost::estimate`]).
    pub(crate) runtime_cost: CallCost,
    /// The static cost estimate; `None` derives it from `runtime_cost`.
    pub(crate) estimate: Option<EstimateFn>,
    /// What the engine knows of the call's structure (see [`CallShape`]).
    pub(crate) shape: CallShape,
    /// A plan-time specialisation: given the call's constant arguments (`None` where an
    /// argument is not a constant), an implementation to call instead, such as one with a
    /// constant pattern compiled once, or a constant argument rejected (a program-creation
    /// error, as cel-go's regex optimization reports a bad constant pattern); `None` from
    /// it keeps the general implementation.
    pub(crate) specialize: Option<SpecializeFn>,
    /// A form the engine's planner has for calls of this overload (see
    /// [`Specialization`]); `None` for none.
    pub(crate) specialization: Option<Specialization>,
}

/// A plan-time form the engine has for calls of an overload, declared with the overload
/// ([`FunctionBuilder::specialization`]) rather than recognised by its id. The planner uses
/// it only where the call resolves to overloads that declare it, at the cost the form
/// charges (the standard one); otherwise the call is evaluated as any other, so a changed
/// cost or implementation is never bypassed. Reference mode
/// ([`crate::ProgramOptions::reference`]) uses none but those marked as cel-go's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Specialization {
    /// A standard overload of an operator (`==`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`,
    /// `/`, `%`, `in`, `[]`): where a call reaches it for operand kinds the engine has an
    /// inline kernel for (two ints; two strings; two bools, for equality; a string key and a
    /// map; a list and an int; two timestamps or two durations compared) at the standard
    /// cost, the operator is evaluated by that kernel, with operands read in place.
    Operator,
    /// A standard timestamp or duration conversion or arithmetic (one fixed cost): under a
    /// comparison of timestamps or durations, worked out in place on plain time values (a
    /// "time tree").
    Time(TimeKernel),
    /// `!b` (fixed cost): a node of its own, evaluated as a condition.
    LogicalNot,
    /// `size(x)` of a string, bytes, list or map (cost 1): read in place by int operator
    /// trees.
    Size,
    /// String `+` (cost `TraverseSum`): a chain of three or more appended to one buffer.
    AppendStrings,
    /// `s.startsWith(c)`, `s.endsWith(c)`, `s.contains(c)` with a constant `c`: the test
    /// prepared once, run on a string read in place.
    StringTest(StringTest),
    /// `matches` with a constant pattern: compiled once per program.
    ConstantPattern,
    /// `x in [constants]` under the optimizer: a set lookup that costs nothing (cel-go's
    /// set membership; kept in reference mode).
    ConstantListMembership,
    /// `a.or(b)` (`or_value: false`) and `a.orValue(b)` on optionals: `b` evaluated only
    /// when `a` is none (cel-go's lazy evaluation; kept in reference mode).
    OptionalOr {
        /// `orValue` rather than `or`.
        or_value: bool,
    },
}

/// What the engine knows of the structure of a call of an overload, declared with the
/// overload ([`FunctionBuilder::shape`]) rather than recognised by its id: how the evaluator
/// orders its operands' errors and how the static estimator follows argument costs and sizes
/// through it. Unlike a [`Specialization`] it is part of the meaning (reference mode keeps
/// it), and it never changes the call's own cost, which is the overload's declared one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallShape {
    /// An ordinary call: each argument's cost, plus the overload's own.
    #[default]
    Plain,
    /// `_&&_`, `_||_`: the second operand may go unevaluated, so the estimate is the first
    /// operand's least cost up to both operands' greatest, with no cost of its own.
    ShortCircuit,
    /// `_?_:_`: the condition's cost plus either branch's; the result is sized as either
    /// branch.
    Conditional,
    /// `+` on strings, bytes or lists: the result's size is the sum of the operands', and a
    /// list's elements are sized as either operand's.
    Concatenation,
    /// A conversion between `string` and `bytes`: the result's size is the argument's
    /// measured in the other unit (one to four UTF-8 bytes a code point); `to_bytes` for
    /// `string` to `bytes`.
    Utf8 {
        /// From `string` to `bytes` (rather than back).
        to_bytes: bool,
    },
    /// `_[_]` on a list or a map: the key qualifies the operand (an operand's error is
    /// reported before the key is evaluated), and the result is one of the operand's
    /// elements (sized and reached by path as the list's items or the map's values).
    Index,
    /// An optional index (`_[?_]`, `_[_]` through an optional): the key qualifies the
    /// operand, as for [`CallShape::Index`].
    OptionalIndex,
}

impl CallShape {
    /// Whether the second operand is a key that qualifies the first (an index).
    pub fn is_index(self) -> bool {
        matches!(self, CallShape::Index | CallShape::OptionalIndex)
    }
}

/// The conversions and arithmetic of [`Specialization::Time`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum TimeKernel {
    TimestampToTimestamp,
    IntToTimestamp,
    StringToTimestamp,
    DurationToDuration,
    StringToDuration,
    AddTimestampDuration,
    AddDurationTimestamp,
    AddDurationDuration,
    SubtractTimestampDuration,
    SubtractTimestampTimestamp,
    SubtractDurationDuration,
}

/// The string tests of [`Specialization::StringTest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringTest {
    /// `startsWith` (cost `TraverseFirst`).
    StartsWith,
    /// `endsWith` (cost `TraverseFirst`).
    EndsWith,
    /// `contains` (cost `Contains`).
    Contains,
}

impl Overload {
    /// The overload as the CLI and the playground show it: `name(int, int) -> int`, or
    /// `string.name(string) -> bool` for a member overload (the receiver first).
    pub fn signature(&self, name: &str) -> String {
        let types: Vec<String> = self.params.iter().map(ToString::to_string).collect();
        match (self.member, types.split_first()) {
            (true, Some((receiver, rest))) => {
                format!("{receiver}.{name}({}) -> {}", rest.join(", "), self.result)
            }
            _ => format!("{name}({}) -> {}", types.join(", "), self.result),
        }
    }
}

/// A plan-time specialisation (see [`FunctionBuilder::specialize`]).
pub type SpecializeFn =
    fn(constants: &[Option<&Value>]) -> Option<Result<Implementation, ConstantRejected>>;

/// A constant argument an overload's [`SpecializeFn`] rejects: planning the program fails
/// with `message`, at the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantRejected {
    /// The argument's index among the call's arguments (a receiver first).
    pub argument: usize,
    /// The program-creation error's text.
    pub message: String,
}

impl Overload {
    /// A declaration-only overload (for type-checking), with the default cost (1).
    pub fn declared(id: &str, member: bool, params: Vec<Type>, result: Type) -> Overload {
        Overload {
            id: id.into(),
            member,
            params: params.into(),
            result,
            implementation: Implementation::Declared,
            runtime_cost: CallCost::Fixed(1),
            estimate: None,
            shape: CallShape::Plain,
            specialize: None,
            specialization: None,
        }
    }

    /// cel-go's overload id, e.g. `add_int64`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether it is called as `receiver.f(args)` rather than `f(args)`.
    pub fn is_member(&self) -> bool {
        self.member
    }

    /// The parameter types; for a member overload the receiver comes first.
    pub fn params(&self) -> &[Type] {
        &self.params
    }

    /// The result type.
    pub fn result(&self) -> &Type {
        &self.result
    }

    /// What a call runs.
    pub fn implementation(&self) -> &Implementation {
        &self.implementation
    }

    /// The runtime cost model of this overload, as declared ([`CallCost::Fixed`]`(1)` when
    /// not).
    pub fn call_cost(&self) -> CallCost {
        self.runtime_cost
    }

    /// The declared static estimate, if any (else the estimate derives from
    /// [`Overload::call_cost`]).
    pub fn estimate(&self) -> Option<EstimateFn> {
        self.estimate
    }

    /// What the engine knows of a call's structure.
    pub fn shape(&self) -> CallShape {
        self.shape
    }
}

impl Overload {
    /// Whether runtime arguments fit this overload's parameter types.
    pub fn accepts(&self, args: &[Value]) -> bool {
        args.len() == self.params.len() && self.params.iter().zip(args).all(|(t, v)| t.accepts(v))
    }
}

/// A function: a name with its overloads and documentation.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name calls use (`size`, `math.greatest`, `_+_`).
    pub(crate) name: Arc<str>,
    /// One paragraph for people (`kcel functions`, completions).
    pub(crate) doc: String,
    /// CEL expressions that must evaluate to `true`; they run as tests.
    pub(crate) examples: Vec<String>,
    /// The overloads, in declaration order.
    pub(crate) overloads: Vec<Overload>,
}

impl Function {
    /// A function declared for type-checking only (e.g. by an embedder, or a conformance
    /// test's declarations): `name` with `overloads` (see [`Overload::declared`]) and no
    /// documentation. Libraries declare theirs with [`Library::function`].
    pub fn declared(name: &str, overloads: Vec<Overload>) -> Function {
        Function {
            name: name.into(),
            doc: String::new(),
            examples: Vec::new(),
            overloads,
        }
    }

    /// The name calls use (`size`, `math.greatest`, `_+_`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One paragraph for people (`kcel functions`, completions).
    pub fn doc(&self) -> &str {
        &self.doc
    }

    /// CEL expressions that evaluate to `true` (they run as tests).
    pub fn examples(&self) -> &[String] {
        &self.examples
    }

    /// The overloads, in declaration order.
    pub fn overloads(&self) -> &[Overload] {
        &self.overloads
    }

    /// Gives every overload the runtime cost `cost` (e.g. Kubernetes' prices for cel-go's
    /// `ext.Strings`) in place of the declared one; an overload without a declared estimate
    /// is estimated from it too.
    pub fn set_runtime_cost(&mut self, cost: CallCost) -> &mut Function {
        for o in &mut self.overloads {
            o.runtime_cost = cost;
        }
        self
    }

    /// Overloads callable in the given style with `arity` arguments (counting the receiver).
    pub fn candidates(&self, member: bool, arity: usize) -> impl Iterator<Item = &Overload> {
        self.overloads
            .iter()
            .filter(move |o| o.member == member && o.params.len() == arity)
    }
}

/// A check run on every type-checked expression of an environment with the library (cel-go's
/// AST validators): gets the expression and the checker's type of every node.
pub type Validator = fn(&Expr, &NodeMap<Type>) -> Vec<Diagnostic>;

/// A named, versioned set of functions.
#[derive(Clone, Debug)]
pub struct Library {
    /// The library's name (`strings`, `kubernetes.lists`), as catalogs list it.
    pub(crate) name: &'static str,
    /// Its version: which functions a given version of cel-go or Kubernetes has.
    pub(crate) version: u32,
    /// The functions it declares.
    pub(crate) functions: Vec<Function>,
    /// Opaque types the library introduces (e.g. `net.IP`), usable as type identifiers.
    pub(crate) types: Vec<Type>,
    /// Macro tables the library brings (expanded by the parser of an environment that
    /// has the library).
    pub(crate) macros: Vec<&'static [Macro]>,
    /// Functions whose arguments may hold mixed-type list and map literals even when
    /// homogeneous literals are required (cel-go's `HomogeneousAggregateLiteralExemptFunctions`,
    /// e.g. `format` from the strings extension).
    pub(crate) homogeneous_exempt: Vec<&'static str>,
    /// Validators by name (cel-go's names, e.g. `cel.validator.string_format`); a later
    /// library's validator replaces an earlier one of the same name.
    pub(crate) validators: Vec<(&'static str, Validator)>,
    /// Whether the library enables the optional syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`,
    /// `M{?f: v}`) in the parser of an environment that has it, as cel-go's `OptionalTypes`
    /// does (`cel/library.go`, `enableOptionalSyntax`); without it each use is a parse error.
    pub(crate) optional_syntax: bool,
}

impl Library {
    /// Starts an empty library.
    pub fn new(name: &'static str, version: u32) -> Library {
        Library {
            name,
            version,
            functions: Vec::new(),
            types: Vec::new(),
            macros: Vec::new(),
            homogeneous_exempt: Vec::new(),
            validators: Vec::new(),
            optional_syntax: false,
        }
    }

    /// The library's name (`strings`, `kubernetes.lists`), as catalogs list it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its version: which functions a given version of cel-go or Kubernetes has.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The functions it declares.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The functions it declares, to adjust (e.g. a preset's costs).
    pub fn functions_mut(&mut self) -> &mut [Function] {
        &mut self.functions
    }

    /// The opaque types the library introduces (e.g. `net.IP`).
    pub fn types(&self) -> &[Type] {
        &self.types
    }

    /// The macro tables the library brings.
    pub fn macros(&self) -> &[&'static [Macro]] {
        &self.macros
    }

    /// Adds a macro table, expanded by the parser of an environment that has the library.
    pub fn add_macros(&mut self, table: &'static [Macro]) -> &mut Library {
        self.macros.push(table);
        self
    }

    /// The functions whose arguments may hold mixed-type list and map literals even when
    /// homogeneous literals are required.
    pub fn homogeneous_exempt(&self) -> &[&'static str] {
        &self.homogeneous_exempt
    }

    /// Lets `function`'s arguments hold mixed-type list and map literals even when
    /// homogeneous literals are required (cel-go's
    /// `HomogeneousAggregateLiteralExemptFunctions`, e.g. `format` from the strings
    /// extension).
    pub fn exempt_from_homogeneous(&mut self, function: &'static str) -> &mut Library {
        self.homogeneous_exempt.push(function);
        self
    }

    /// The validators by name.
    pub fn validators(&self) -> &[(&'static str, Validator)] {
        &self.validators
    }

    /// Adds a validator under cel-go's name (e.g. `cel.validator.string_format`); a later
    /// library's validator replaces an earlier one of the same name.
    pub fn add_validator(&mut self, name: &'static str, validator: Validator) -> &mut Library {
        self.validators.push((name, validator));
        self
    }

    /// Whether the library enables the optional syntax in the parser.
    pub fn optional_syntax(&self) -> bool {
        self.optional_syntax
    }

    /// Enables the optional syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`, `M{?f: v}`) in the
    /// parser of an environment that has the library, as cel-go's `OptionalTypes` does
    /// (`cel/library.go`, `enableOptionalSyntax`); without it each use is a parse error.
    pub fn enable_optional_syntax(&mut self) -> &mut Library {
        self.optional_syntax = true;
        self
    }

    /// Declares an opaque type by name (e.g. `net.IP`, `kubernetes.Quantity`).
    pub fn opaque_type(&mut self, name: &str) -> &mut Library {
        self.types.push(Type::Named(name.into(), Vec::new()));
        self
    }

    /// Declares a function (or continues declaring an existing one) and returns a builder for
    /// its overloads.
    pub fn function(&mut self, name: &str, doc: &str) -> FunctionBuilder<'_> {
        let index = match self.functions.iter().position(|f| &*f.name == name) {
            Some(i) => i,
            None => {
                self.functions.push(Function {
                    name: name.into(),
                    doc: doc.into(),
                    examples: Vec::new(),
                    overloads: Vec::new(),
                });
                self.functions.len() - 1
            }
        };
        FunctionBuilder {
            function: &mut self.functions[index],
        }
    }
}

/// The table form of a [`FunctionBuilder`]'s overloads (`kcel::library::overloads!`).
#[doc(hidden)]
#[macro_export]
macro_rules! __overloads {
    ($builder:expr;
     $($kind:ident $id:literal ($($param:expr),* $(,)?) -> $result:expr => $imp:expr
       $(, $setting:ident: $value:expr)* ;)*) => {{
        let builder = $builder;
        $(let builder = builder.$kind($id, &[$($param),*], $result, $imp)$(.$setting($value))*;)*
        builder
    }};
}

/// Adds overloads and examples to a [`Function`].
pub struct FunctionBuilder<'a> {
    function: &'a mut Function,
}

/// Parses a type written in a static declaration.
fn decl_type(text: &str) -> Type {
    // Declarations are static strings in this crate, all built by the registry tests.
    Type::parse(text).unwrap_or_else(|e| panic!("bad type in function declaration: {e}"))
}

impl FunctionBuilder<'_> {
    fn add(
        self,
        id: &str,
        member: bool,
        params: &[&str],
        result: &str,
        imp: Implementation,
    ) -> Self {
        self.function.overloads.push(Overload {
            id: id.into(),
            member,
            params: params
                .iter()
                .map(|p| decl_type(p))
                .collect::<Vec<_>>()
                .into(),
            result: decl_type(result),
            implementation: imp,
            runtime_cost: CallCost::Fixed(1),
            estimate: None,
            shape: CallShape::Plain,
            specialize: None,
            specialization: None,
        });
        self
    }

    /// Sets the runtime cost of the overload declared last (by default
    /// [`CallCost::Fixed`]`(1)`); unless [`FunctionBuilder::estimate`] declares its own, the
    /// static estimate derives from it.
    pub fn cost(self, cost: CallCost) -> Self {
        if let Some(o) = self.function.overloads.last_mut() {
            o.runtime_cost = cost;
        }
        self
    }

    /// Declares the [`CallShape`] of the overload declared last.
    pub fn shape(self, shape: CallShape) -> Self {
        if let Some(o) = self.function.overloads.last_mut() {
            o.shape = shape;
        }
        self
    }

    /// Sets the static cost estimate of the overload declared last (in place of the one
    /// derived from its runtime cost).
    pub fn estimate(self, estimate: EstimateFn) -> Self {
        if let Some(o) = self.function.overloads.last_mut() {
            o.estimate = Some(estimate);
        }
        self
    }

    /// Sets the plan-time specialisation of the overload declared last.
    pub fn specialize(self, specialize: SpecializeFn) -> Self {
        if let Some(o) = self.function.overloads.last_mut() {
            o.specialize = Some(specialize);
        }
        self
    }

    /// Declares the planner's [`Specialization`] of the overload declared last.
    pub fn specialization(self, specialization: Specialization) -> Self {
        if let Some(o) = self.function.overloads.last_mut() {
            o.specialization = Some(specialization);
        }
        self
    }

    /// A global overload `f(params...) -> result`.
    pub fn global(self, id: &str, params: &[&str], result: &str, imp: Implementation) -> Self {
        self.add(id, false, params, result, imp)
    }

    /// A member overload `params[0].f(params[1..]...) -> result`.
    pub fn member(self, id: &str, params: &[&str], result: &str, imp: Implementation) -> Self {
        self.add(id, true, params, result, imp)
    }

    /// Adds examples: CEL expressions that evaluate to `true`.
    pub fn examples(self, examples: &[&str]) -> Self {
        self.function
            .examples
            .extend(examples.iter().map(|e| e.to_string()));
        self
    }
}

/// All functions of an environment, by name.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    functions: HashMap<Arc<str>, Function, RandomState>,
    types: HashMap<Arc<str>, Type, RandomState>,
    homogeneous_exempt: Vec<&'static str>,
    validators: Vec<(&'static str, Validator)>,
}

/// Whether a function is internal: one that macros expand to (`@not_strictly_false`,
/// `cel.@mapInsert`, `@sortByAssociatedKeys`), which users cannot call by name; front ends
/// leave such functions out of their lists.
pub fn is_internal_name(name: &str) -> bool {
    name.contains('@')
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a library's functions; overloads of a function already present are merged
    /// (a later overload with the same id replaces the earlier one).
    pub fn add_library(&mut self, library: &Library) {
        for f in &library.functions {
            self.add_function(f.clone());
        }
        for t in &library.types {
            if let Type::Named(name, _) = t {
                self.types.insert(name.clone(), t.clone());
            }
        }
        for f in &library.homogeneous_exempt {
            if !self.homogeneous_exempt.contains(f) {
                self.homogeneous_exempt.push(f);
            }
        }
        for (name, v) in &library.validators {
            self.validators.retain(|(n, _)| n != name);
            self.validators.push((name, *v));
        }
    }

    /// The validators to run on checked expressions.
    pub fn validators(&self) -> impl Iterator<Item = &Validator> {
        self.validators.iter().map(|(_, v)| v)
    }

    /// Whether literals inside calls of `function` are exempt from the homogeneous-literal
    /// rule.
    pub fn is_homogeneous_exempt(&self, function: &str) -> bool {
        self.homogeneous_exempt.contains(&function)
    }

    /// A library type by name.
    pub fn get_type(&self, name: &str) -> Option<&Type> {
        self.types.get(name)
    }

    /// Adds one function, merging overloads by id.
    pub fn add_function(&mut self, f: Function) {
        match self.functions.get_mut(&f.name) {
            None => {
                self.functions.insert(f.name.clone(), f);
            }
            Some(existing) => {
                for o in f.overloads {
                    existing.overloads.retain(|e| e.id != o.id);
                    existing.overloads.push(o);
                }
                for e in f.examples {
                    if !existing.examples.contains(&e) {
                        existing.examples.push(e);
                    }
                }
                if existing.doc.is_empty() {
                    existing.doc = f.doc;
                }
            }
        }
    }

    /// Looks a function up by name.
    pub fn get(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }

    /// All functions, sorted by name.
    pub fn functions(&self) -> Vec<&Function> {
        let mut v: Vec<_> = self.functions.values().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

//! The type checker: gives every node a type and resolves every call to its overload ids,
//! reporting problems with cel-go's wording.
//!
//! CEL is gradually typed: `dyn` flows through unchecked, and overloads that cannot be told
//! apart statically are all kept for the interpreter to choose among at run time.

mod unify;
mod validators;

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::fast::RandomState;
use smallvec::SmallVec;

use crate::error::{CheckError, Diagnostic};
use crate::names::{candidate_names, find_candidate};
use crate::registry::{Function, Registry};
use crate::syntax::ast::{Comprehension, Expr, ExprKind, Literal, NodeMap, Span, op};
use crate::types::Type;
use crate::value::TypeValue;
use unify::{Mapping, instantiate, most_general};

/// Supplies object (message) types, e.g. from Kubernetes schemas.
pub trait TypeProvider: Send + Sync + std::fmt::Debug {
    /// Whether `name` is an object type.
    fn has_struct_type(&self, name: &str) -> bool;
    /// The type of `field` of object type `struct_name`, if declared.
    fn field_type(&self, struct_name: &str, field: &str) -> Option<Type>;
    /// How values of object type `name` (a name [`TypeProvider::has_struct_type`]
    /// accepts) are built from struct literals `name{field: value, ...}` at evaluation, if
    /// they can be. `None` (the default): a program with such a literal fails to plan
    /// (`unsupported type`), as in cel-go without a type adapter for the name.
    fn constructor(&self, _name: &str) -> Option<StructConstructor> {
        None
    }
}

/// Builds the value of a struct literal from its fields in written order (an optional field
/// `?f: v` whose value is `optional.none()` left out, one with a value unwrapped). Its
/// error is the literal's evaluation error. The literal costs what cel-go charges for
/// creating a struct (40), whatever the constructor does.
pub type StructConstructor = Arc<
    dyn Fn(&[(Arc<str>, crate::Value)]) -> Result<crate::Value, crate::EvalError> + Send + Sync,
>;

/// What an identifier, select or call was resolved to.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// A declared variable, by its fully qualified name.
    Variable(Arc<str>),
    /// A function with the overloads that may apply (more than one when the argument types
    /// are not known precisely).
    Function {
        /// The function's name (qualified, as resolved against the container).
        name: Arc<str>,
        /// The ids of the overloads that may apply.
        overloads: Vec<Arc<str>>,
    },
}

/// The checker's results: a type for every node and the references of resolved names.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The type of every node, by id.
    pub types: NodeMap<Type>,
    /// What each resolved identifier, selection or call refers to, by id.
    pub references: NodeMap<Reference>,
    /// The constant `matches` patterns the literal validators compiled, by pattern: the
    /// planner uses them rather than compiling each pattern again.
    pub(crate) regexes: Vec<(Arc<str>, regex::Regex)>,
}

/// The declarations the checker needs.
pub(crate) struct CheckEnv<'a> {
    pub registry: &'a Registry,
    pub variables: &'a BTreeMap<String, Type>,
    pub container: &'a str,
    pub provider: Option<&'a dyn TypeProvider>,
    /// Reject list and map literals whose elements have different types.
    pub homogeneous_literals: bool,
    /// Check constant arguments of `duration`, `timestamp` and `matches`.
    pub literal_validators: bool,
}

/// Type-checks an expression; on success returns the annotations and the output type.
pub(crate) fn check(expr: &Expr, env: &CheckEnv<'_>) -> Result<(Checked, Type), Vec<Diagnostic>> {
    // Every node gets a type; sizing the maps up front saves their rehashing as they grow.
    // The parser numbers the root last, so its id counts the nodes (a hint: no walk needed).
    let nodes = expr.id as usize + 1;
    let mut c = Checker {
        env,
        checked: Checked {
            types: NodeMap::with_capacity_and_hasher(nodes, RandomState::default()),
            references: NodeMap::with_capacity_and_hasher(nodes / 2, RandomState::default()),
            regexes: Vec::new(),
        },
        mapping: Mapping::default(),
        scopes: Vec::new(),
        fresh: 0,
        errors: Vec::new(),
        exempt_depth: 0,
        name_buffer: String::new(),
    };
    c.check(expr);
    if env.literal_validators && c.errors.is_empty() {
        c.errors = validators::validate_literals(expr, &mut c.checked.regexes);
    }
    if !c.errors.is_empty() {
        c.errors.sort_by_key(|d| d.span.start);
        return Err(c.errors);
    }
    let mapping = c.mapping;
    for t in c.checked.types.values_mut() {
        if unify::substitutable(t, 0) {
            *t = mapping.substitute(t, true);
        }
    }
    let out = c.checked.types.get(&expr.id).cloned().unwrap_or(Type::Dyn);
    Ok((c.checked, out))
}

struct Checker<'a> {
    env: &'a CheckEnv<'a>,
    checked: Checked,
    mapping: Mapping,
    /// Comprehension variables in scope, innermost last.
    scopes: Vec<(Arc<str>, Type)>,
    fresh: usize,
    errors: Vec<Diagnostic>,
    /// Inside this many calls of homogeneous-literal exempt functions.
    exempt_depth: usize,
    /// Reused to spell qualified names (`a.b.c`) that are looked up but mostly not found.
    name_buffer: String,
}

/// A resolved identifier.
struct Resolved {
    name: String,
    ty: Type,
}

impl<'a> Checker<'a> {
    fn error(&mut self, span: Span, error: CheckError) {
        self.errors.push(Diagnostic::new(span, error));
    }

    fn set_type(&mut self, e: &Expr, t: Type) {
        self.checked.types.insert(e.id, t);
    }

    fn type_of(&self, e: &Expr) -> Type {
        self.checked
            .types
            .get(&e.id)
            .cloned()
            .unwrap_or(Type::Error)
    }

    fn new_var(&mut self) -> Type {
        let t = unify::fresh_var(self.fresh);
        self.fresh += 1;
        t
    }

    fn local(&self, name: &str) -> Option<&Type> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, t)| t)
    }

    /// A global identifier: a declared variable or a type name.
    fn global(&self, name: &str) -> Option<Type> {
        if let Some(t) = self.env.variables.get(name) {
            return Some(t.clone());
        }
        if let Some(t) = builtin_type(name).or_else(|| self.env.registry.get_type(name).cloned()) {
            return Some(Type::TypeOf(Arc::new(t)));
        }
        if let Some(p) = self.env.provider {
            if p.has_struct_type(name) {
                return Some(Type::TypeOf(Arc::new(Type::Object(name.into()))));
            }
        }
        None
    }

    fn resolve_simple(&self, name: &str) -> Option<Resolved> {
        if !name.starts_with('.') {
            if let Some(t) = self.local(name) {
                return Some(Resolved {
                    name: name.to_string(),
                    ty: t.clone(),
                });
            }
        }
        find_candidate(name, self.env.container, |cand| {
            self.global(cand).map(|ty| Resolved {
                name: cand.to_string(),
                ty,
            })
        })
    }

    fn resolve_qualified(&mut self, qualifiers: &[&str]) -> Option<Resolved> {
        if qualifiers.len() == 1 {
            return self.resolve_simple(qualifiers[0]);
        }
        if !qualifiers[0].starts_with('.') && self.local(qualifiers[0]).is_some() {
            return None;
        }
        let name = self.spell(qualifiers, None);
        let found = find_candidate(&name, self.env.container, |cand| {
            self.global(cand).map(|ty| Resolved {
                name: cand.to_string(),
                ty,
            })
        });
        self.name_buffer = name;
        found
    }

    /// `qualifiers` (and `last`) joined by dots, in the name buffer, which the caller puts
    /// back.
    fn spell(&mut self, qualifiers: &[&str], last: Option<&str>) -> String {
        let mut name = std::mem::take(&mut self.name_buffer);
        name.clear();
        let parts = qualifiers.iter().chain(&last);
        name.reserve(parts.map(|p| p.len() + 1).sum());
        for (i, part) in qualifiers.iter().copied().chain(last).enumerate() {
            if i > 0 {
                name.push('.');
            }
            name.push_str(part);
        }
        name
    }

    fn lookup_function(&self, name: &str) -> Option<&'a Function> {
        let registry = self.env.registry;
        find_candidate(name, self.env.container, |cand| registry.get(cand))
    }

    fn check(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(l) => {
                let t = match l {
                    Literal::Null => Type::Null,
                    Literal::Bool(_) => Type::Bool,
                    Literal::Int(_) => Type::Int,
                    Literal::Uint(_) => Type::Uint,
                    Literal::Double(_) => Type::Double,
                    Literal::String(_) => Type::String,
                    Literal::Bytes(_) => Type::Bytes,
                };
                self.set_type(e, t);
            }
            ExprKind::Ident(name) => self.check_ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => self.check_select(e, operand, field, *test_only),
            ExprKind::Call {
                target,
                function,
                args,
            } => self.check_call(e, target.as_deref(), function, args),
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let mut elem: Option<Type> = None;
                for (i, el) in elements.iter().enumerate() {
                    self.check(el);
                    let mut t = self.type_of(el);
                    if optional_indices.contains(&i) {
                        t = self.unwrap_optional_element(el, t);
                    }
                    elem = Some(self.join(el, elem, t));
                }
                let elem = elem.unwrap_or_else(|| self.new_var());
                self.set_type(e, Type::list(elem));
            }
            ExprKind::Map { entries } => {
                let (mut kt, mut vt): (Option<Type>, Option<Type>) = (None, None);
                for entry in entries {
                    self.check(&entry.key);
                    let k = self.type_of(&entry.key);
                    kt = Some(self.join(&entry.key, kt, k));
                    self.check(&entry.value);
                    let mut v = self.type_of(&entry.value);
                    if entry.optional {
                        v = self.unwrap_optional_element(&entry.value, v);
                    }
                    vt = Some(self.join(&entry.value, vt, v));
                }
                let kt = kt.unwrap_or_else(|| self.new_var());
                let vt = vt.unwrap_or_else(|| self.new_var());
                self.set_type(e, Type::map(kt, vt));
            }
            ExprKind::Struct { type_name, fields } => {
                for f in fields {
                    self.check(&f.value);
                }
                let found = candidate_names(type_name, self.env.container)
                    .into_iter()
                    .find(|c| self.env.provider.is_some_and(|p| p.has_struct_type(c)));
                match found {
                    Some(name) => {
                        for f in fields {
                            let ft = self
                                .env
                                .provider
                                .and_then(|p| p.field_type(&name, &f.field));
                            match ft {
                                None => self
                                    .error(e.span, CheckError::UndefinedField(f.field.to_string())),
                                Some(ft) => {
                                    let mut vt = self.type_of(&f.value);
                                    if f.optional {
                                        vt = self.unwrap_optional_element(&f.value, vt);
                                    }
                                    if !self.mapping.is_assignable(&ft, &vt) {
                                        self.error(
                                            f.value.span,
                                            CheckError::FieldType {
                                                field: f.field.to_string(),
                                                expected: ft,
                                                provided: vt,
                                            },
                                        );
                                    }
                                }
                            }
                        }
                        self.set_type(e, Type::Object(name.into()));
                    }
                    None => {
                        let error = self.undeclared(type_name);
                        self.error(e.span, error);
                        self.set_type(e, Type::Error);
                    }
                }
            }
            ExprKind::Comprehension(c) => self.check_comprehension(e, c),
        }
    }

    fn undeclared(&self, name: &str) -> CheckError {
        CheckError::UndeclaredReference {
            name: name.to_string(),
            container: self.env.container.to_string(),
        }
    }

    fn unwrap_optional_element(&mut self, e: &Expr, t: Type) -> Type {
        match t {
            Type::Optional(inner) => (*inner).clone(),
            Type::Dyn => Type::Dyn,
            other => {
                self.error(
                    e.span,
                    CheckError::TypeMismatch {
                        expected: Type::Optional(Arc::new(other.clone())),
                        found: other.clone(),
                    },
                );
                other
            }
        }
    }

    /// Joins the element types of an aggregate literal.
    fn join(&mut self, e: &Expr, previous: Option<Type>, current: Type) -> Type {
        let Some(prev) = previous else {
            return current;
        };
        if self.mapping.is_assignable(&prev, &current) {
            return most_general(&prev, &current);
        }
        if !self.env.homogeneous_literals || self.exempt_depth > 0 {
            return Type::Dyn;
        }
        self.error(
            e.span,
            CheckError::TypeMismatch {
                expected: prev,
                found: current,
            },
        );
        Type::Error
    }

    fn check_ident(&mut self, e: &Expr, name: &str) {
        match self.resolve_simple(name) {
            Some(r) => {
                if self.local(&r.name).is_none() || name.starts_with('.') {
                    self.checked
                        .references
                        .insert(e.id, Reference::Variable(r.name.into()));
                }
                self.set_type(e, r.ty);
            }
            None => {
                let error = self.undeclared(name);
                self.error(e.span, error);
                self.set_type(e, Type::Error);
            }
        }
    }

    fn qualifiers(e: &Expr) -> Option<SmallVec<[&str; 8]>> {
        let mut out = SmallVec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Select {
                    operand,
                    field,
                    test_only: false,
                } => {
                    out.push(&**field);
                    cur = operand;
                }
                ExprKind::Ident(n) => {
                    out.push(&**n);
                    out.reverse();
                    return Some(out);
                }
                _ => return None,
            }
        }
    }

    fn check_select(&mut self, e: &Expr, operand: &Expr, field: &str, test_only: bool) {
        if !test_only {
            if let Some(qs) = Self::qualifiers(e) {
                if let Some(r) = self.resolve_qualified(&qs) {
                    self.checked
                        .references
                        .insert(e.id, Reference::Variable(r.name.into()));
                    self.set_type(e, r.ty);
                    return;
                }
            }
        }
        let mut t = self.check_select_field(e, operand, field, false);
        if test_only {
            t = Type::Bool;
        }
        let t = self.mapping.resolve(t, false);
        self.set_type(e, t);
    }

    fn check_select_field(
        &mut self,
        e: &Expr,
        operand: &Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let operand_type = self.mapping.resolve(self.type_of(operand), false);
        let (target, was_optional) = match operand_type {
            Type::Optional(inner) => ((*inner).clone(), true),
            other => (other, false),
        };
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Object(name) => match self.env.provider.and_then(|p| p.field_type(name, field)) {
                Some(t) => t,
                None => {
                    self.error(e.span, CheckError::UndefinedField(field.to_string()));
                    Type::Error
                }
            },
            Type::Param(_) => {
                self.mapping.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            Type::Dyn | Type::Error => Type::Dyn,
            other => {
                self.error(e.span, CheckError::NoFieldSelection(other.clone()));
                Type::Dyn
            }
        };
        if was_optional || optional {
            Type::Optional(Arc::new(result))
        } else {
            result
        }
    }

    fn check_call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) {
        let exempt =
            self.env.homogeneous_literals && self.env.registry.is_homogeneous_exempt(function);
        self.exempt_depth += usize::from(exempt);
        self.check_call_inner(e, target, function, args);
        self.exempt_depth -= usize::from(exempt);
    }

    fn check_call_inner(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) {
        if function == op::OPT_SELECT && target.is_none() {
            if let [operand, field] = args {
                if let ExprKind::Literal(Literal::String(name)) = &field.kind {
                    let t = self.check_select_field(e, operand, name, true);
                    let t = self.mapping.resolve(t, false);
                    self.set_type(e, t);
                    self.checked.references.insert(
                        e.id,
                        Reference::Function {
                            name: op::OPT_SELECT.into(),
                            overloads: vec!["select_optional_field".into()],
                        },
                    );
                    return;
                }
            }
            self.error(e.span, CheckError::UnsupportedOptionalSelection);
            self.set_type(e, Type::Error);
            return;
        }
        for a in args {
            self.check(a);
        }
        match target {
            None => match self.lookup_function(function) {
                Some(f) => self.resolve_overload(e, f, None, args),
                None => {
                    let error = self.undeclared(function);
                    self.error(e.span, error);
                    self.set_type(e, Type::Error);
                }
            },
            Some(t) => {
                if let Some(qs) = Self::qualifiers(t) {
                    let qualified = self.spell(&qs, Some(function));
                    let found = self.lookup_function(&qualified);
                    self.name_buffer = qualified;
                    if let Some(f) = found {
                        self.resolve_overload(e, f, None, args);
                        return;
                    }
                }
                self.check(t);
                match self.lookup_function(function) {
                    Some(f) => self.resolve_overload(e, f, Some(t), args),
                    None => {
                        let error = self.undeclared(function);
                        self.error(e.span, error);
                        self.set_type(e, Type::Error);
                    }
                }
            }
        }
    }

    fn resolve_overload(&mut self, e: &Expr, f: &Function, target: Option<&Expr>, args: &[Expr]) {
        let name = &*f.name;
        let mut arg_types: SmallVec<[Type; 4]> = SmallVec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            arg_types.push(self.type_of(t));
        }
        arg_types.extend(args.iter().map(|a| self.type_of(a)));
        let member = target.is_some();

        if (name == op::LOGICAL_AND || name == op::LOGICAL_OR) && !member {
            let mut ok = true;
            for (a, t) in args.iter().zip(&arg_types) {
                if !self.mapping.is_assignable(t, &Type::Bool) {
                    self.error(
                        a.span,
                        CheckError::TypeMismatch {
                            expected: Type::Bool,
                            found: t.clone(),
                        },
                    );
                    ok = false;
                }
            }
            let ids = f
                .overloads
                .iter()
                .filter(|o| !o.member)
                .map(|o| o.id.clone())
                .collect();
            self.set_type(e, if ok { Type::Bool } else { Type::Error });
            self.checked.references.insert(
                e.id,
                Reference::Function {
                    name: f.name.clone(),
                    overloads: ids,
                },
            );
            return;
        }

        let mut result: Option<Type> = None;
        let mut ids = Vec::with_capacity(f.overloads.len());
        for o in &f.overloads {
            if o.member != member || o.params.len() != arg_types.len() {
                continue;
            }
            let generic = o.params.iter().any(unify::has_params) || unify::has_params(&o.result);
            let instantiated;
            let (params, res): (&[Type], &Type) = if generic {
                // Type parameters renamed apart, by their (borrowed) declared names.
                let mut renamed: SmallVec<[(&str, Type); 2]> = SmallVec::new();
                let mut fresh = unify::renamer(|p| {
                    if let Some((_, t)) = renamed.iter().find(|(n, _)| *n == p) {
                        return t.clone();
                    }
                    let t = unify::fresh_var(self.fresh);
                    self.fresh += 1;
                    renamed.push((p, t.clone()));
                    t
                });
                let params: SmallVec<[Type; 4]> = o
                    .params
                    .iter()
                    .map(|p| instantiate(p, &mut fresh))
                    .collect();
                let res = instantiate(&o.result, &mut fresh);
                instantiated = (params, res);
                (&instantiated.0, &instantiated.1)
            } else {
                (&o.params, &o.result)
            };
            if self.mapping.is_assignable_list(&arg_types, params) {
                ids.push(o.id.clone());
                let r = if generic {
                    self.mapping.substitute(res, false)
                } else {
                    res.clone()
                };
                result = Some(match result {
                    None => r,
                    Some(prev) if matches!(prev, Type::Dyn) || prev == r => prev,
                    Some(_) => Type::Dyn,
                });
            }
        }
        match result {
            Some(t) => {
                self.set_type(e, t);
                self.checked.references.insert(
                    e.id,
                    Reference::Function {
                        name: f.name.clone(),
                        overloads: ids,
                    },
                );
            }
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| self.mapping.substitute(t, true).to_string())
                    .collect();
                let signature = if member {
                    format!("{}.({})", shown[0], shown[1..].join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.error(
                    e.span,
                    CheckError::NoMatchingOverload {
                        function: name.to_string(),
                        signature,
                    },
                );
                self.set_type(e, Type::Error);
            }
        }
    }

    fn check_comprehension(&mut self, e: &Expr, c: &Comprehension) {
        self.check(&c.iter_range);
        self.check(&c.accu_init);
        let range = self.mapping.resolve(self.type_of(&c.iter_range), false);
        let accu = self.type_of(&c.accu_init);
        let depth = self.scopes.len();
        self.scopes.push((c.accu_var.clone(), accu.clone()));
        let (var, var2) = match &range {
            Type::List(elem) => match c.iter_var2 {
                Some(_) => (Type::Int, Some((**elem).clone())),
                None => ((**elem).clone(), None),
            },
            Type::Map(k, v) => ((**k).clone(), Some((**v).clone())),
            Type::Dyn | Type::Error | Type::Param(_) => {
                self.mapping.is_assignable(&Type::Dyn, &range);
                (Type::Dyn, Some(Type::Dyn))
            }
            other => {
                self.error(c.iter_range.span, CheckError::NotARange(other.clone()));
                (Type::Error, Some(Type::Error))
            }
        };
        self.scopes.push((c.iter_var.clone(), var));
        if let (Some(v2), Some(t2)) = (&c.iter_var2, var2) {
            self.scopes.push((v2.clone(), t2));
        }
        self.check(&c.loop_condition);
        self.assert_type(&c.loop_condition, &Type::Bool);
        self.check(&c.loop_step);
        self.assert_type(&c.loop_step, &accu);
        self.scopes.truncate(depth + 1);
        self.check(&c.result);
        self.scopes.truncate(depth);
        let t = self.mapping.resolve(self.type_of(&c.result), false);
        self.set_type(e, t);
    }

    fn assert_type(&mut self, e: &Expr, expected: &Type) {
        let actual = self.type_of(e);
        if !self.mapping.is_assignable(expected, &actual) {
            self.error(
                e.span,
                CheckError::TypeMismatch {
                    expected: expected.clone(),
                    found: actual,
                },
            );
        }
    }
}

/// The type denoted by a built-in type name used as an identifier (`int`, `list`, ...):
/// the names of [`TypeValue::builtin`], so the checker and the runtime agree on them.
fn builtin_type(name: &str) -> Option<Type> {
    Some(match TypeValue::builtin(name)? {
        TypeValue::Null => Type::Null,
        TypeValue::Bool => Type::Bool,
        TypeValue::Int => Type::Int,
        TypeValue::Uint => Type::Uint,
        TypeValue::Double => Type::Double,
        TypeValue::String => Type::String,
        TypeValue::Bytes => Type::Bytes,
        TypeValue::List => Type::list(Type::Dyn),
        TypeValue::Map => Type::map(Type::Dyn, Type::Dyn),
        TypeValue::Type => Type::TypeOf(Arc::new(Type::Dyn)),
        TypeValue::Timestamp => Type::Timestamp,
        TypeValue::Duration => Type::Duration,
        TypeValue::Optional => Type::Optional(Arc::new(Type::Dyn)),
        TypeValue::Named(_) => return None,
    })
}

//! The planner: turns an AST into an evaluation tree ([`Node`]) with variables resolved to
//! frame slots, names resolved against the container, and every call bound to its
//! overloads, so that evaluation never looks anything up by name.

use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;

use crate::check::{Checked, Reference};
use crate::cost::CallCost;
use crate::error::{Diagnostic, EvalError};
use crate::eval::interp::{Frame, eval};
use crate::registry::{Implementation, Overload, Registry};
use crate::syntax::ast::{Comprehension, Expr, ExprId, ExprKind, Literal, op};
use crate::value::{TypeValue, Value};

/// A frame slot index.
pub(crate) type Slot = u32;

/// One node of the evaluation tree.
#[derive(Debug)]
pub(crate) enum Node {
    Const(Value),
    /// Reads a frame slot (a variable or a comprehension variable).
    Load(Slot),
    /// Reads a frame slot without charging for it: cel-go resolves a variable used as a
    /// conditional branch or as an index key as an attribute, which it does not meter.
    LoadUncharged(Slot),
    /// Fails with an error when evaluated (unbound function, unsupported construct).
    Fail(EvalError),
    Select {
        id: ExprId,
        operand: Box<Node>,
        field: Arc<str>,
        /// The operand is a variable followed only by field selections, so the chain can be
        /// walked by reference.
        path: bool,
    },
    /// `has(operand.field)`.
    Has {
        id: ExprId,
        operand: Box<Node>,
        field: Arc<str>,
    },
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Conditional(Box<[Node; 3]>),
    NotStrictlyFalse(Box<Node>),
    /// A call with its overload decided at plan time.
    Call {
        id: ExprId,
        implementation: Implementation,
        cost: CallCost,
        args: Box<[Node]>,
    },
    /// A call whose overload is chosen at run time from the argument types.
    Dispatch {
        id: ExprId,
        overloads: Box<[(Overload, CallCost)]>,
        args: Box<[Node]>,
    },
    /// `a.or(b)` / `a.orValue(b)` on optionals: `b` is evaluated only when `a` is none
    /// (cel-go's lazy evaluation; no cost of its own).
    OptionalOr {
        lhs: Box<Node>,
        rhs: Box<Node>,
        or_value: bool,
    },
    /// `x in [constant list]`: a set lookup for strings, a scan otherwise (cost 0 itself,
    /// as cel-go's optimized set membership).
    InConstantList {
        element: Box<Node>,
        strings: std::collections::HashSet<Arc<str>>,
        values: Arc<Vec<Value>>,
    },
    /// `s.matches('constant pattern')` with the pattern compiled once.
    MatchesConstant {
        id: ExprId,
        subject: Box<Node>,
        regex: Box<Regex>,
        pattern: Value,
        /// The overload's cost: size-priced for `matches_string`, 1 for the global
        /// `matches` (as cel-go prices them).
        cost: CallCost,
    },
    /// `cel.@mapInsert(accu, key, value)` on a comprehension accumulator: inserts in place.
    InsertIntoAccumulator {
        id: ExprId,
        slot: Slot,
        key: Box<Node>,
        value: Box<Node>,
    },
    /// `accu + [elements]` where `accu` is a comprehension accumulator: appends in place.
    AppendToAccumulator {
        slot: Slot,
        elements: Box<[Node]>,
    },
    List {
        elements: Box<[Node]>,
        /// Per element: written `?e` (include only when the optional has a value).
        optional: Box<[bool]>,
    },
    Map {
        id: ExprId,
        entries: Box<[MapEntryNode]>,
    },
    Fold(Box<FoldNode>),
    /// The `all`/`exists` macros as a dedicated loop, with cel-go's cost and error
    /// absorption but without evaluating the accumulator bookkeeping.
    Quantifier(Box<QuantifierNode>),
}

/// Which quantifier macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quantifier {
    All,
    Exists,
}

#[derive(Debug)]
pub(crate) struct QuantifierNode {
    pub id: ExprId,
    pub kind: Quantifier,
    pub iter_slot: Slot,
    pub range: Node,
    pub predicate: Node,
}

#[derive(Debug)]
pub(crate) struct MapEntryNode {
    pub key: Node,
    pub value: Node,
    pub optional: bool,
}

#[derive(Debug)]
pub(crate) struct FoldNode {
    pub id: ExprId,
    pub iter_slot: Slot,
    pub iter_slot2: Option<Slot>,
    pub accu_slot: Slot,
    pub range: Node,
    pub init: Node,
    pub condition: Node,
    pub step: Node,
    pub result: Node,
}

/// The result of planning: the tree, the number of frame slots, and which slots must be
/// filled from the activation (by name, once per evaluation).
#[derive(Debug)]
pub(crate) struct Plan {
    pub root: Node,
    pub slot_count: usize,
    /// Variables read from the activation, once per evaluation.
    pub inputs: Vec<Input>,
}

/// A variable the program reads from the activation.
#[derive(Debug)]
pub(crate) struct Input {
    pub slot: Slot,
    /// Candidate names, in resolution order (one for a declared variable).
    pub names: Vec<Arc<str>>,
    /// Declared in the environment (rather than an unchecked, undeclared reference).
    pub declared: bool,
}

/// What the planner needs to know about the environment.
pub(crate) struct PlanEnv<'a> {
    /// Fold constant literals and conversions, and turn `in` over constant lists into set
    /// lookups (cel-go's `OptOptimize`).
    pub optimize: bool,
    pub registry: &'a Registry,
    /// The checker's results, when the expression was type-checked.
    pub checked: Option<&'a Checked>,
    pub is_declared: &'a dyn Fn(&str) -> bool,
    pub container: &'a str,
}

/// Plans an expression.
pub(crate) fn plan(expr: &Expr, env: &PlanEnv<'_>) -> Result<Plan, Vec<Diagnostic>> {
    let mut p = Planner {
        env,
        scopes: Vec::new(),
        slot_count: 0,
        inputs: Vec::new(),
        input_slots: HashMap::new(),
        errors: Vec::new(),
    };
    let root = p.node(expr);
    if !p.errors.is_empty() {
        return Err(p.errors);
    }
    Ok(Plan {
        root,
        slot_count: p.slot_count as usize,
        inputs: p.inputs,
    })
}

struct Planner<'a> {
    env: &'a PlanEnv<'a>,
    /// Comprehension variables in scope, innermost last.
    scopes: Vec<(Arc<str>, Slot)>,
    slot_count: Slot,
    inputs: Vec<Input>,
    input_slots: HashMap<Vec<Arc<str>>, Slot>,
    errors: Vec<Diagnostic>,
}

/// Candidate fully qualified names for `name` in `container`, most qualified first
/// (cel-spec's name resolution). A leading dot means the name is already absolute.
pub(crate) fn candidate_names(name: &str, container: &str) -> Vec<String> {
    if let Some(abs) = name.strip_prefix('.') {
        return vec![abs.to_string()];
    }
    let mut out = Vec::new();
    let mut prefix = container;
    while !prefix.is_empty() {
        out.push(format!("{prefix}.{name}"));
        prefix = prefix.rfind('.').map_or("", |i| &prefix[..i]);
    }
    out.push(name.to_string());
    out
}

/// Calls `f` with the candidate names of [`candidate_names`], in its order, until `f` returns
/// `Some`; allocates nothing when the container is empty (the usual case).
pub(crate) fn find_candidate<R>(
    name: &str,
    container: &str,
    mut f: impl FnMut(&str) -> Option<R>,
) -> Option<R> {
    if let Some(abs) = name.strip_prefix('.') {
        return f(abs);
    }
    let mut prefix = container;
    let mut buf = String::new();
    while !prefix.is_empty() {
        buf.clear();
        buf.push_str(prefix);
        buf.push('.');
        buf.push_str(name);
        if let Some(r) = f(&buf) {
            return Some(r);
        }
        prefix = prefix.rfind('.').map_or("", |i| &prefix[..i]);
    }
    f(name)
}

impl Planner<'_> {
    fn new_slot(&mut self) -> Slot {
        let s = self.slot_count;
        self.slot_count += 1;
        s
    }

    fn local(&self, name: &str) -> Option<Slot> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, s)| *s)
    }

    fn input(&mut self, names: Vec<Arc<str>>, declared: bool) -> Slot {
        if let Some(s) = self.input_slots.get(&names) {
            return *s;
        }
        let slot = self.new_slot();
        self.input_slots.insert(names.clone(), slot);
        self.inputs.push(Input {
            slot,
            names,
            declared,
        });
        slot
    }

    /// Resolves a (possibly qualified) name to a declared variable or a type, if any.
    fn resolve_declared(&mut self, name: &str) -> Option<Node> {
        enum Found {
            Variable(Arc<str>),
            Const(Value),
        }
        let env = self.env;
        let found = find_candidate(name, env.container, |cand| {
            if (env.is_declared)(cand) {
                return Some(Found::Variable(cand.into()));
            }
            if let Some(t) = TypeValue::builtin(cand) {
                return Some(Found::Const(Value::Type(t)));
            }
            if env.registry.get_type(cand).is_some() {
                let named = TypeValue::Named(Arc::new(cand.to_string()));
                return Some(Found::Const(Value::Type(named)));
            }
            None
        })?;
        Some(match found {
            Found::Variable(name) => Node::Load(self.input(vec![name], true)),
            Found::Const(v) => Node::Const(v),
        })
    }

    /// The dotted name spelled by an identifier/select chain, if it is one.
    fn qualified_name(expr: &Expr) -> Option<String> {
        let mut fields = Vec::new();
        let mut cur = expr;
        loop {
            match &cur.kind {
                ExprKind::Ident(n) => {
                    let len = fields.iter().map(|f: &&str| f.len() + 1).sum::<usize>();
                    let mut out = String::with_capacity(n.len() + len);
                    out.push_str(n);
                    for f in fields.iter().rev() {
                        out.push('.');
                        out.push_str(f);
                    }
                    return Some(out);
                }
                ExprKind::Select {
                    operand,
                    field,
                    test_only: false,
                } => {
                    fields.push(&**field);
                    cur = operand;
                }
                _ => return None,
            }
        }
    }

    /// The root identifier of an identifier/select chain.
    fn root_ident(expr: &Expr) -> Option<&str> {
        match &expr.kind {
            ExprKind::Ident(n) => Some(n),
            ExprKind::Select { operand, .. } => Self::root_ident(operand),
            _ => None,
        }
    }

    fn node(&mut self, expr: &Expr) -> Node {
        match &expr.kind {
            ExprKind::Literal(l) => Node::Const(literal(l)),
            ExprKind::Ident(name) => self.ident(name),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                if !test_only {
                    if let Some(n) = self.qualified_select(expr) {
                        return n;
                    }
                }
                let operand = Box::new(self.node(operand));
                if *test_only {
                    Node::Has {
                        id: expr.id,
                        operand,
                        field: field.clone(),
                    }
                } else {
                    Node::Select {
                        id: expr.id,
                        path: is_path(&operand),
                        operand,
                        field: field.clone(),
                    }
                }
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                self.check_constant_find_pattern(target.as_deref(), function, args);
                self.call(expr.id, target.as_deref(), function, args)
            }
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let elements: Box<[Node]> = elements.iter().map(|e| self.node(e)).collect();
                let optional = (0..elements.len())
                    .map(|i| optional_indices.contains(&i))
                    .collect();
                let node = Node::List { elements, optional };
                if self.env.optimize {
                    fold_constant(node)
                } else {
                    node
                }
            }
            ExprKind::Map { entries } => {
                let node = Node::Map {
                    id: expr.id,
                    entries: entries
                        .iter()
                        .map(|e| MapEntryNode {
                            key: self.node(&e.key),
                            value: self.node(&e.value),
                            optional: e.optional,
                        })
                        .collect(),
                };
                if self.env.optimize {
                    fold_constant(node)
                } else {
                    node
                }
            }
            ExprKind::Struct { type_name, .. } => {
                self.errors.push(Diagnostic {
                    message: format!("unknown type '{type_name}': message types are not supported"),
                    span: expr.span,
                });
                Node::Fail(EvalError::new("unsupported message type"))
            }
            ExprKind::Comprehension(c) => self.fold(expr.id, c),
        }
    }

    /// Kubernetes' regex library compiles constant `find`/`findAll` patterns when the
    /// program is built, so a bad constant pattern is a program-creation error.
    fn check_constant_find_pattern(
        &mut self,
        target: Option<&Expr>,
        function: &str,
        args: &[Expr],
    ) {
        if target.is_none() || !matches!(function, "find" | "findAll") {
            return;
        }
        let Some(Expr {
            kind: ExprKind::Literal(Literal::String(p)),
            span,
            ..
        }) = args.first()
        else {
            return;
        };
        if let Err(e) = crate::stdlib::standard::strings::compile_regex(p) {
            self.errors.push(Diagnostic {
                message: e.message,
                span: *span,
            });
        }
    }

    fn ident(&mut self, name: &str) -> Node {
        if !name.starts_with('.') {
            if let Some(slot) = self.local(name) {
                return Node::Load(slot);
            }
        }
        if let Some(n) = self.resolve_declared(name) {
            return n;
        }
        // Not declared: read it from the activation by its candidate names; evaluation
        // fails with "undeclared reference" if none is bound.
        let names = candidate_names(name, self.env.container)
            .into_iter()
            .map(Arc::from)
            .collect();
        Node::Load(self.input(names, false))
    }

    /// Resolves `a.b.c` as a qualified variable name (longest declared prefix wins), unless
    /// its root is a comprehension variable.
    fn qualified_select(&mut self, expr: &Expr) -> Option<Node> {
        if let Some(checked) = self.env.checked {
            // The checker resolved qualified names already, with the same rules: unless it
            // resolved a select of this chain to a variable or type, none is one.
            let mut cur = expr;
            let mut resolved = false;
            while let ExprKind::Select { operand, .. } = &cur.kind {
                if matches!(
                    checked.references.get(&cur.id),
                    Some(Reference::Variable(_))
                ) {
                    resolved = true;
                    break;
                }
                cur = operand;
            }
            if !resolved {
                return None;
            }
        }
        let root = Self::root_ident(expr)?;
        if !root.starts_with('.') && self.local(root).is_some() {
            return None;
        }
        let full = Self::qualified_name(expr)?;
        let mut name = full.as_str();
        let mut rest: Vec<(&str, ExprId)> = Vec::new();
        let mut cur = expr;
        loop {
            if name.contains('.') && name.len() > 1 {
                if let Some(node) = self.resolve_declared(name) {
                    let mut node = node;
                    for (field, id) in rest.into_iter().rev() {
                        node = Node::Select {
                            id,
                            path: is_path(&node),
                            operand: Box::new(node),
                            field: field.into(),
                        };
                    }
                    return Some(node);
                }
            }
            match &cur.kind {
                ExprKind::Select { operand, field, .. } => {
                    rest.push((field, cur.id));
                    name = &name[..name.len() - field.len() - 1];
                    cur = operand;
                }
                _ => return None,
            }
        }
    }

    fn call(&mut self, id: ExprId, target: Option<&Expr>, function: &str, args: &[Expr]) -> Node {
        match (function, target, args) {
            (op::LOGICAL_AND, None, [a, b]) => {
                return Node::And(Box::new(self.node(a)), Box::new(self.node(b)));
            }
            (op::LOGICAL_OR, None, [a, b]) => {
                return Node::Or(Box::new(self.node(a)), Box::new(self.node(b)));
            }
            (op::CONDITIONAL, None, [c, t, f]) => {
                let (mut t, mut f) = (self.node(t), self.node(f));
                uncharge_attribute_root(&mut t);
                uncharge_attribute_root(&mut f);
                return Node::Conditional(Box::new([self.node(c), t, f]));
            }
            (op::NOT_STRICTLY_FALSE, None, [a]) => {
                return Node::NotStrictlyFalse(Box::new(self.node(a)));
            }
            (op::ADD, None, [a, b]) => {
                if let (
                    ExprKind::Ident(name),
                    ExprKind::List {
                        elements,
                        optional_indices,
                    },
                ) = (&a.kind, &b.kind)
                {
                    if optional_indices.is_empty() {
                        if let Some(slot) = self.accumulator_slot(name) {
                            let elements = elements.iter().map(|e| self.node(e)).collect();
                            return Node::AppendToAccumulator { slot, elements };
                        }
                    }
                }
            }
            _ => {}
        }

        if let (crate::syntax::macros::MAP_INSERT, None, [accu, k, v]) = (function, target, args) {
            if let ExprKind::Ident(name) = &accu.kind {
                if let Some(slot) = self.accumulator_slot(name) {
                    let key = Box::new(self.node(k));
                    let value = Box::new(self.node(v));
                    return Node::InsertIntoAccumulator {
                        id,
                        slot,
                        key,
                        value,
                    };
                }
            }
        }

        // `a.b.f(x)` may name the global function `a.b.f`.
        if let Some(t) = target {
            if let Some(q) = Self::qualified_name(t) {
                let root = Self::root_ident(t).unwrap_or("");
                if self.local(root).is_none() {
                    let registry = self.env.registry;
                    let qualified = format!("{q}.{function}");
                    let found = find_candidate(&qualified, self.env.container, |cand| {
                        registry.get(cand).map(|f| f.name.clone())
                    });
                    if let Some(name) = found {
                        return self.bind_call(id, &name, false, None, args);
                    }
                }
            }
        }
        if target.is_none() {
            let registry = self.env.registry;
            let found = find_candidate(function, self.env.container, |cand| {
                registry.get(cand).map(|f| f.name.clone())
            });
            if let Some(name) = found {
                return self.bind_call(id, &name, false, None, args);
            }
        }
        self.bind_call(id, function, target.is_some(), target, args)
    }

    /// The slot of `name` if it is the accumulator of an enclosing comprehension.
    fn accumulator_slot(&self, name: &str) -> Option<Slot> {
        if name != crate::syntax::ast::ACCUMULATOR {
            return None;
        }
        self.local(name)
    }

    fn bind_call(
        &mut self,
        id: ExprId,
        function: &str,
        member: bool,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Node {
        let mut nodes: Vec<Node> = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            nodes.push(self.node(t));
        }
        nodes.extend(args.iter().map(|a| self.node(a)));
        if function == op::INDEX || function == op::OPT_INDEX {
            if let Some(key) = nodes.get_mut(1) {
                uncharge_attribute_root(key);
            }
        }
        let Some(f) = self.env.registry.get(function) else {
            return Node::Fail(EvalError::new(format!("unbound function: {function}")).at(id));
        };
        let resolved = match self.env.checked.and_then(|c| c.references.get(&id)) {
            Some(Reference::Function { overloads, .. }) => Some(overloads),
            _ => None,
        };
        let candidates: Vec<(Overload, CallCost)> = f
            .candidates(member, nodes.len())
            .filter(|o| resolved.is_none_or(|ids| ids.contains(&o.id)))
            .map(|o| (o.clone(), o.call_cost()))
            .collect();
        let node = match candidates.as_slice() {
            [] => return Node::Fail(EvalError::no_matching_overload(function).at(id)),
            [(only, cost)] if !matches!(only.implementation, Implementation::Builtin) => {
                if let Some(n) = self.specialize(id, only, &mut nodes) {
                    return n;
                }
                Node::Call {
                    id,
                    implementation: only.implementation.clone(),
                    cost: *cost,
                    args: nodes.into(),
                }
            }
            _ => Node::Dispatch {
                id,
                overloads: candidates.into(),
                args: nodes.into(),
            },
        };
        if self.env.optimize && TYPE_CONVERSIONS.contains(&function) {
            return fold_constant(node);
        }
        node
    }

    /// Plan-time specializations of single-overload calls with constant arguments.
    fn specialize(
        &mut self,
        id: ExprId,
        overload: &Overload,
        args: &mut Vec<Node>,
    ) -> Option<Node> {
        match (&*overload.id, args.as_slice()) {
            (
                "string_find_string" | "string_find_all_string" | "string_find_all_string_int",
                [_, Node::Const(Value::String(p)), ..],
            ) => {
                let implementation =
                    crate::stdlib::kubernetes::regex::precompiled(&overload.id, p)?;
                Some(Node::Call {
                    id,
                    implementation,
                    cost: overload.call_cost(),
                    args: std::mem::take(args).into(),
                })
            }
            ("optional_or_optional" | "optional_orValue_value", [_, _]) => {
                let rhs = Box::new(args.pop()?);
                let lhs = Box::new(args.pop()?);
                Some(Node::OptionalOr {
                    lhs,
                    rhs,
                    or_value: &*overload.id == "optional_orValue_value",
                })
            }
            ("matches" | "matches_string", [_, Node::Const(Value::String(p))]) => {
                let regex = crate::stdlib::standard::strings::compile_regex(p).ok()?;
                let pattern = Value::String(p.clone());
                let subject = Box::new(args.swap_remove(0));
                Some(Node::MatchesConstant {
                    id,
                    subject,
                    regex: Box::new(regex),
                    pattern,
                    cost: overload.call_cost(),
                })
            }
            // cel-go's optimizer: `in` an empty constant list is the constant false (the
            // element is not evaluated).
            ("in_list", [_, Node::Const(Value::List(items))])
                if self.env.optimize && items.is_empty() =>
            {
                Some(Node::Const(Value::Bool(false)))
            }
            // cel-go turns `in` a constant list into a set lookup (which costs nothing) only
            // when every element is a bool, int, uint, double or string.
            ("in_list", [_, Node::Const(Value::List(items))])
                if self.env.optimize
                    && items.iter().all(|v| {
                        matches!(
                            v,
                            Value::Bool(_)
                                | Value::Int(_)
                                | Value::Uint(_)
                                | Value::Double(_)
                                | Value::String(_)
                        )
                    }) =>
            {
                let values = items.clone();
                let strings = values
                    .iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect();
                let element = Box::new(args.swap_remove(0));
                Some(Node::InConstantList {
                    element,
                    strings,
                    values,
                })
            }
            _ => None,
        }
    }

    fn fold(&mut self, id: ExprId, c: &Comprehension) -> Node {
        if let Some((kind, predicate)) = quantifier_shape(c) {
            let range = self.node(&c.iter_range);
            let iter_slot = self.new_slot();
            self.scopes.push((c.iter_var.clone(), iter_slot));
            let predicate = self.node(predicate);
            self.scopes.pop();
            return Node::Quantifier(Box::new(QuantifierNode {
                id,
                kind,
                iter_slot,
                range,
                predicate,
            }));
        }
        let range = self.node(&c.iter_range);
        let init = self.node(&c.accu_init);
        let accu_slot = self.new_slot();
        let iter_slot = self.new_slot();
        let iter_slot2 = c.iter_var2.as_ref().map(|_| self.new_slot());
        let depth = self.scopes.len();
        self.scopes.push((c.accu_var.clone(), accu_slot));
        self.scopes.push((c.iter_var.clone(), iter_slot));
        if let (Some(v2), Some(s2)) = (&c.iter_var2, iter_slot2) {
            self.scopes.push((v2.clone(), s2));
        }
        let condition = self.node(&c.loop_condition);
        let step = self.node(&c.loop_step);
        self.scopes.truncate(depth + 1); // the result sees the accumulator only
        let result = self.node(&c.result);
        self.scopes.truncate(depth);
        Node::Fold(Box::new(FoldNode {
            id,
            iter_slot,
            iter_slot2,
            accu_slot,
            range,
            init,
            condition,
            step,
            result,
        }))
    }
}

/// Recognizes the comprehensions that the `all` and `exists` macros produce, returning the
/// quantifier and its predicate.
fn quantifier_shape(c: &Comprehension) -> Option<(Quantifier, &Expr)> {
    use crate::syntax::ast::ACCUMULATOR;
    let is_accu = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if &**n == ACCUMULATOR);
    let call = |e: &'_ Expr, name: &str| -> Option<Vec<Expr>> {
        match &e.kind {
            ExprKind::Call {
                target: None,
                function,
                args,
            } if &**function == name => Some(args.clone()),
            _ => None,
        }
    };
    if &*c.accu_var != ACCUMULATOR || c.iter_var2.is_some() || !is_accu(&c.result) {
        return None;
    }
    let kind = match &c.accu_init.kind {
        ExprKind::Literal(Literal::Bool(true)) => Quantifier::All,
        ExprKind::Literal(Literal::Bool(false)) => Quantifier::Exists,
        _ => return None,
    };
    let [cond_arg] =
        <[Expr; 1]>::try_from(call(&c.loop_condition, op::NOT_STRICTLY_FALSE)?).ok()?;
    let condition_ok = match kind {
        Quantifier::All => is_accu(&cond_arg),
        Quantifier::Exists => {
            call(&cond_arg, op::LOGICAL_NOT).is_some_and(|a| a.len() == 1 && is_accu(&a[0]))
        }
    };
    let step_op = match kind {
        Quantifier::All => op::LOGICAL_AND,
        Quantifier::Exists => op::LOGICAL_OR,
    };
    let ExprKind::Call {
        target: None,
        function,
        args,
    } = &c.loop_step.kind
    else {
        return None;
    };
    match args.as_slice() {
        [accu, predicate] if condition_ok && &**function == step_op && is_accu(accu) => {
            Some((kind, predicate))
        }
        _ => None,
    }
}

/// Whether a node is a variable followed only by field selections.
fn is_path(node: &Node) -> bool {
    match node {
        Node::Load(_) | Node::LoadUncharged(_) => true,
        Node::Select { path, .. } => *path,
        _ => false,
    }
}

/// Makes the root variable of an attribute (a variable, possibly followed by field
/// selections) free, as cel-go's attribute resolution does where it does not evaluate the
/// attribute as an expression of its own.
fn uncharge_attribute_root(node: &mut Node) {
    match node {
        Node::Load(slot) => *node = Node::LoadUncharged(*slot),
        Node::Select { operand, .. } => uncharge_attribute_root(operand),
        _ => {}
    }
}

/// The type conversion functions whose constant calls the optimizer folds (as cel-go).
const TYPE_CONVERSIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// Replaces a node whose inputs are all constants by its value, when it evaluates without
/// error; otherwise returns it unchanged.
fn fold_constant(node: Node) -> Node {
    let constant_inputs = match &node {
        Node::List { elements, optional } => {
            !optional.iter().any(|o| *o) && elements.iter().all(|e| matches!(e, Node::Const(_)))
        }
        Node::Map { entries, .. } => entries.iter().all(|e| {
            !e.optional && matches!(e.key, Node::Const(_)) && matches!(e.value, Node::Const(_))
        }),
        Node::Call { args, .. } | Node::Dispatch { args, .. } => {
            args.iter().all(|a| matches!(a, Node::Const(_)))
        }
        _ => false,
    };
    if !constant_inputs {
        return node;
    }
    match eval(&node, &mut Frame::new(0)) {
        Ok(v) => Node::Const(v),
        Err(_) => node,
    }
}

fn literal(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::String(s.clone()),
        Literal::Bytes(b) => Value::Bytes(b.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_container() {
        assert_eq!(
            candidate_names("y", "com.example"),
            ["com.example.y", "com.y", "y"]
        );
        assert_eq!(candidate_names(".y", "com.example"), ["y"]);
        assert_eq!(candidate_names("y", ""), ["y"]);
    }
}

//! The planner: turns an AST into an evaluation tree ([`Node`]) with variables resolved to
//! frame slots, names resolved against the container, and every call bound to its
//! overloads, so that evaluation never looks anything up by name.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use crate::check::{Checked, Reference};
use crate::cost::{self, CallCost};
use crate::error::{Diagnostic, EvalError, PlanError};
use crate::eval::interp::{SlotStorage, eval, int_tree_cost, is_index};
use crate::eval::node::{
    BLOCK, BinaryNode, BlockNode, BlockSlots, ConcatNode, DispatchTable, Field, FoldNode, Inline,
    MapEntryNode, Node, Operator, PathNode, Quantifier, QuantifierNode, Slot, StringTestNode,
    TimeNode, TimeOverloads,
};
use crate::eval::operand::{plan_operands, read_cost};
use crate::eval::time_tree::operand_cost;
use crate::names::{candidate_names, find_candidate};
use crate::registry::{Function, Implementation, Overload, Registry, Specialization, StringTest};
use crate::standard::strings::ConstantTest;
use crate::syntax::ast::{Comprehension, Expr, ExprId, ExprKind, Literal, op};
use crate::value::{TypeValue, Value};

/// The result of planning: the tree, the number of frame slots, and which slots must be
/// filled from the activation (by name, once per evaluation).
#[derive(Debug)]
pub(crate) struct Plan {
    pub root: Node,
    pub slot_count: usize,
    /// Variables read from the activation, once per evaluation.
    pub inputs: Vec<Input>,
    /// Path prefixes walked once per evaluation, after the inputs are bound.
    pub shared_prefixes: Box<[PathNode]>,
    /// The slots of a frame whose variables are a JSON activation's document: `slot_count`
    /// and the slots of `json_prefixes`.
    pub json_slot_count: usize,
    /// The path prefixes walked instead of `shared_prefixes` in such a frame (see
    /// [`crate::eval::shared_paths`]).
    pub json_prefixes: Box<[PathNode]>,
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
    /// Keep type conversions of variables' paths that repeat or sit in comprehensions
    /// (see [`Node::Memo`]).
    pub memoize: bool,
    /// Reference mode ([`crate::ProgramOptions::reference`]): only the generic node kinds,
    /// every call through its overloads.
    pub reference: bool,
    /// Wrap every node planned from an expression node for tracing ([`crate::trace`];
    /// with `reference`).
    pub trace: bool,
    pub registry: &'a Registry,
    /// The checker's results, when the expression was type-checked.
    pub checked: Option<&'a Checked>,
    pub is_declared: &'a dyn Fn(&str) -> bool,
    pub container: &'a str,
    /// The environment's object types: builds struct literals
    /// ([`crate::TypeProvider::constructor`]).
    pub provider: Option<&'a dyn crate::TypeProvider>,
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
        blocks: Vec::new(),
        layer: Layer::Root,
        conversions: HashMap::new(),
        memos: HashMap::new(),
    };
    if env.memoize {
        count_conversions(expr, &mut p.conversions);
    }
    let mut root = p.node(expr);
    if !p.errors.is_empty() {
        return Err(p.errors);
    }
    if env.reference {
        root.for_each_child_mut(&mut evaluated_leaves);
    }
    let inputs: Vec<Slot> = p.inputs.iter().map(|i| i.slot).collect();
    let (shared_prefixes, json_prefixes, json_slot_count) = if env.reference {
        (Box::default(), Box::default(), p.slot_count)
    } else {
        let shared =
            crate::eval::shared_paths::share_prefixes(&mut root, &inputs, &mut p.slot_count);
        plan_operands(&mut root);
        (shared.values, shared.json, shared.json_slot_count)
    };
    Ok(Plan {
        root,
        slot_count: p.slot_count as usize,
        json_slot_count: json_slot_count as usize,
        inputs: p.inputs,
        shared_prefixes,
        json_prefixes,
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
    /// `cel.@block`s in scope, innermost last.
    blocks: Vec<BlockScope>,
    /// The outermost construct with an activation of its own around the node being planned.
    layer: Layer,
    /// How often each type conversion of a variable's path occurs (see [`Node::Memo`]), by
    /// [`conversion_key`].
    conversions: HashMap<String, u32>,
    /// The slots of the memoized conversions, by key, variable slot and whether reading
    /// the variable is charged.
    memos: HashMap<(String, Slot, bool), Slot>,
}

/// A `cel.@block` being planned.
struct BlockScope {
    block: Weak<BlockSlots>,
    count: usize,
    /// `scopes.len()` when the block was entered: comprehension variables declared after
    /// it are nested in the block and shadow its slots.
    depth: usize,
}

/// What cel-go evaluates a node under: the program's activation, or (outermost) a
/// comprehension's or a block's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Root,
    Comprehension,
    Block,
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
        let node = self.untraced_node(expr);
        if self.env.trace {
            Node::traced(expr.id, node)
        } else {
            node
        }
    }

    fn untraced_node(&mut self, expr: &Expr) -> Node {
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
                if *test_only {
                    // cel-go resolves the operand's attribute without charging it (see
                    // `interp::has_evaluated`).
                    let mut operand = self.node(operand);
                    uncharge_attribute_root(&mut operand);
                    Node::Has {
                        id: expr.id,
                        operand: Box::new(operand),
                        field: Field::new(field.clone()),
                    }
                } else {
                    let operand = Box::new(relative_operand(operand, self.node(operand)));
                    select(
                        expr.id,
                        *operand,
                        Field::new(field.clone()),
                        self.env.reference,
                    )
                }
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                if target.is_none()
                    && &**function == BLOCK
                    && self.env.registry.get(BLOCK).is_some()
                {
                    return self.block(expr, args);
                }
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
            ExprKind::Struct { type_name, fields } => {
                if let Some(node) = self.struct_literal(expr.id, fields) {
                    return node;
                }
                self.errors.push(Diagnostic::new(
                    expr.span,
                    PlanError::MessageType(type_name.to_string()),
                ));
                Node::Fail(EvalError::new("unsupported message type"))
            }
            ExprKind::Comprehension(c) => self.fold(expr.id, c),
        }
    }

    /// A struct literal of a checked object type whose provider builds values
    /// ([`crate::TypeProvider::constructor`]): a call of the constructor with the fields'
    /// values, at cel-go's cost of creating a struct.
    fn struct_literal(
        &mut self,
        id: ExprId,
        fields: &[crate::syntax::ast::FieldInit],
    ) -> Option<Node> {
        let name = match self.env.checked?.types.get(&id)? {
            crate::types::Type::Object(name) => name.clone(),
            _ => return None,
        };
        let constructor = self.env.provider?.constructor(&name)?;
        let names: Arc<[(Arc<str>, bool)]> = fields
            .iter()
            .map(|f| (f.field.clone(), f.optional))
            .collect();
        let args: Vec<Node> = fields.iter().map(|f| self.node(&f.value)).collect();
        let build = move |values: &[Value]| {
            let mut set = Vec::with_capacity(values.len());
            for ((name, optional), value) in names.iter().zip(values) {
                match (optional, value) {
                    (false, v) => set.push((name.clone(), v.clone())),
                    (true, Value::Optional(Some(v))) => set.push((name.clone(), (**v).clone())),
                    (true, Value::Optional(None)) => {}
                    (true, _) => {
                        return Err(EvalError::no_matching_overload("optional struct field"));
                    }
                }
            }
            constructor(&set)
        };
        Some(Node::Call {
            id,
            implementation: Implementation::Closure(Arc::new(build)),
            cost: CallCost::Fixed(cost::STRUCT_CREATE),
            args: args.into(),
        })
    }

    fn ident(&mut self, name: &str) -> Node {
        if let Some(n) = self.block_index(name) {
            return n;
        }
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

    /// `@indexN` naming an expression of an enclosing `cel.@block` (as cel-go's slot
    /// activation: the innermost block with an expression N, unless a comprehension
    /// variable of that name is nested in it). Any other `@index...` resolves as a
    /// variable (undeclared, or bound by the activation).
    fn block_index(&self, name: &str) -> Option<Node> {
        let digits = name.strip_prefix("@index")?;
        // Go's strconv.Atoi: an optional sign and decimal digits.
        let index = usize::try_from(digits.parse::<i64>().ok()?).ok()?;
        let local = self.scopes.iter().rposition(|(n, _)| &**n == name);
        let scope = self.blocks.iter().rev().find(|b| index < b.count)?;
        if local.is_some_and(|p| p >= scope.depth) {
            return None;
        }
        Some(Node::BlockIndex {
            block: scope.block.clone(),
            index: u32::try_from(index).ok()?,
            charged: true,
        })
    }

    /// `cel.@block([e0, e1, ...], body)`.
    fn block(&mut self, expr: &Expr, args: &[Expr]) -> Node {
        let [list, body] = args else {
            return self.plan_error(expr, PlanError::BlockArity(args.len()));
        };
        let ExprKind::List { elements, .. } = &list.kind else {
            return self.plan_error(expr, PlanError::BlockNotAList);
        };
        // cel-go's optimizer turns an empty constant list into the body alone.
        if elements.is_empty() && self.env.optimize {
            return self.node(body);
        }
        let hidden = self.layer == Layer::Root;
        let outer = self.layer;
        if hidden {
            self.layer = Layer::Block;
        }
        let count = elements.len();
        let base = self.slot_count;
        let Some(end) = Slot::try_from(2 * count)
            .ok()
            .and_then(|n| base.checked_add(n))
        else {
            return self.plan_error(expr, PlanError::BlockTooLarge);
        };
        self.slot_count = end;
        let slots = Arc::new_cyclic(|weak| {
            self.blocks.push(BlockScope {
                block: weak.clone(),
                count,
                depth: self.scopes.len(),
            });
            let exprs = elements
                .iter()
                .map(|e| {
                    let mut node = self.node(e);
                    if self.env.reference {
                        evaluated_leaves(&mut node);
                    } else {
                        plan_operands(&mut node);
                    }
                    node
                })
                .collect();
            let depths = elements.iter().map(depth).collect();
            BlockSlots {
                exprs,
                depths,
                base,
            }
        });
        let body = self.node(body);
        self.blocks.pop();
        self.layer = outer;
        Node::Block(Box::new(BlockNode {
            slots,
            body,
            hidden,
        }))
    }

    /// A program-creation error at `expr`.
    fn plan_error(&mut self, expr: &Expr, error: PlanError) -> Node {
        let failure = EvalError::new(error.to_string()).at(expr.id);
        self.errors.push(Diagnostic::new(expr.span, error));
        Node::Fail(failure)
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
        if self.block_index(root).is_some() {
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
                        node = select(id, node, Field::new(field.into()), self.env.reference);
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
                            let elements: Box<[Node]> =
                                elements.iter().map(|e| self.node(e)).collect();
                            // cel-go's optimizer makes a list of constants a constant.
                            let folded = self.env.optimize
                                && elements.iter().all(|e| matches!(e, Node::Const(_)));
                            let list_cost = if folded { 0 } else { cost::LIST_CREATE };
                            return Node::AppendToAccumulator {
                                id,
                                slot,
                                elements,
                                list_cost,
                            };
                        }
                    }
                }
                if let Some(chain) = self.concat_chain(id, a, b) {
                    return chain;
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
        if self.env.reference || name != crate::syntax::ast::ACCUMULATOR {
            return None;
        }
        self.local(name)
    }

    /// The overloads of `f` callable at call `id` in this style and arity, narrowed to those
    /// the checker left, each with its runtime cost.
    fn candidates(
        &self,
        id: ExprId,
        f: &Function,
        member: bool,
        arity: usize,
    ) -> Vec<(Overload, CallCost)> {
        let resolved = match self.env.checked.and_then(|c| c.references.get(&id)) {
            Some(Reference::Function { overloads, .. }) => Some(overloads),
            _ => None,
        };
        let mut out = Vec::with_capacity(resolved.map_or(f.overloads.len(), |ids| ids.len()));
        out.extend(
            f.candidates(member, arity)
                .filter(|o| resolved.is_none_or(|ids| ids.contains(&o.id)))
                .map(|o| (o.clone(), o.call_cost())),
        );
        out
    }

    /// Plans `... + a + b` with three or more operands as one [`ConcatNode`], when every
    /// `+` of the chain was resolved alike and may add strings.
    fn concat_chain(&mut self, id: ExprId, a: &Expr, b: &Expr) -> Option<Node> {
        if self.env.reference {
            return None;
        }
        let mut steps = vec![(id, b)];
        let mut first = a;
        while let ExprKind::Call {
            target: None,
            function,
            args,
        } = &first.kind
        {
            match args.as_slice() {
                [x, y] if &**function == op::ADD => {
                    steps.push((first.id, y));
                    first = x;
                }
                _ => break,
            }
        }
        if steps.len() < 2 {
            return None;
        }
        let reference = |id: ExprId| self.env.checked.and_then(|c| c.references.get(&id));
        if steps.iter().any(|(i, _)| reference(*i) != reference(id)) {
            return None;
        }
        let candidates = self.candidates(id, self.env.registry.get(op::ADD)?, false, 2);
        let adds_strings = candidates.iter().any(|(o, c)| {
            o.specialization == Some(Specialization::AppendStrings)
                && matches!(c, CallCost::TraverseSum)
        });
        if !adds_strings {
            return None;
        }
        let first = self.node(first);
        let rest = steps
            .iter()
            .rev()
            .map(|(i, e)| (*i, self.node(e)))
            .collect();
        Some(Node::Concat(Box::new(ConcatNode {
            first,
            rest,
            table: DispatchTable::new(&candidates, 2),
            overloads: candidates.into(),
        })))
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
        if target.is_none() && [op::INDEX, op::OPT_INDEX, op::OPT_SELECT].contains(&function) {
            if let (Some(operand), Some(e)) = (nodes.first_mut(), args.first()) {
                let node = std::mem::replace(operand, Node::Const(Value::Null));
                *operand = relative_operand(e, node);
            }
        }
        if function == op::INDEX || function == op::OPT_INDEX {
            if let Some(key) = nodes.get_mut(1) {
                uncharge_attribute_root(key);
            }
        }
        let Some(f) = self.env.registry.get(function) else {
            return Node::Fail(EvalError::new(format!("unbound function: {function}")).at(id));
        };
        let candidates = self.candidates(id, f, member, nodes.len());
        let shortcuts = !self.env.reference;
        if shortcuts {
            if let Some(n) = binary_operator(id, function, &candidates, &mut nodes) {
                return n;
            }
        }
        let standard_size = shortcuts && is_standard_size(&candidates);
        let standard_time = TimeOverloads::of(&candidates).filter(|_| shortcuts);
        let node = match candidates.as_slice() {
            [] => return Node::Fail(EvalError::no_matching_overload(function).at(id)),
            [(only, cost)] if !matches!(only.implementation, Implementation::Builtin) => {
                let spans = || target.into_iter().chain(args).map(|e| e.span).collect();
                if let Some(n) = self.specialize(id, only, &mut nodes, spans) {
                    return n;
                }
                if function == op::INDEX || function == op::OPT_INDEX {
                    // Dispatched, so that evaluation knows an index from its overload (its
                    // key is not evaluated when the operand failed, as in cel-go).
                    return Node::Dispatch {
                        id,
                        table: DispatchTable::new(&candidates, nodes.len()),
                        overloads: candidates.into(),
                        args: nodes.into(),
                    };
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
                table: DispatchTable::new(&candidates, nodes.len()),
                overloads: candidates.into(),
                args: nodes.into(),
            },
        };
        if standard_size {
            return Node::Size(Box::new(node));
        }
        let node = if self.env.optimize && TYPE_CONVERSIONS.contains(&function) {
            let node = fold_constant(node);
            if self.env.memoize {
                self.memoize(function, args, node)
            } else {
                node
            }
        } else {
            node
        };
        if let Some((overloads, cost)) = standard_time {
            if !matches!(node, Node::Const(_)) {
                return Node::Time(Box::new(TimeNode::new(node, overloads, cost)));
            }
        }
        node
    }

    /// `node`, a call of the type conversion `function` on `args`, as a [`Node::Memo`] where
    /// its argument is an input variable's path and the conversion occurs more than once or
    /// inside a comprehension (not in a `cel.@block`, where metering differs).
    fn memoize(&mut self, function: &str, args: &[Expr], node: Node) -> Node {
        let (Node::Call { args: planned, .. } | Node::Dispatch { args: planned, .. }) = &node
        else {
            return node;
        };
        let (variable, charged) = match &**planned {
            [Node::Path(p)] => (p.slot, p.charged),
            [Node::Load(slot)] => (*slot, true),
            _ => return node,
        };
        let Some(key) = conversion_key(function, args) else {
            return node;
        };
        let uses = self.conversions.get(&key).copied().unwrap_or(0);
        if self.layer == Layer::Block
            || !self.inputs.iter().any(|i| i.slot == variable)
            || (uses < 2 && self.layer == Layer::Root)
        {
            return node;
        }
        let slot = match self.memos.get(&(key.clone(), variable, charged)) {
            Some(slot) => *slot,
            None => {
                let slot = self.new_slot();
                self.new_slot();
                self.memos.insert((key, variable, charged), slot);
                slot
            }
        };
        Node::Memo {
            slot,
            node: Box::new(node),
        }
    }

    /// Plan-time specializations of single-overload calls with constant arguments, as the
    /// overload declares them; `spans` gives the arguments' spans (for an argument its
    /// hook rejects).
    fn specialize(
        &mut self,
        id: ExprId,
        overload: &Overload,
        args: &mut Vec<Node>,
        spans: impl FnOnce() -> Vec<crate::syntax::ast::Span>,
    ) -> Option<Node> {
        let shortcuts = !self.env.reference;
        if let Some(specialize) = overload.specialize {
            let specialized = {
                let constants: smallvec::SmallVec<[Option<&Value>; 4]> = args
                    .iter()
                    .map(|a| match a {
                        Node::Const(v) => Some(v),
                        _ => None,
                    })
                    .collect();
                specialize(&constants)
            };
            match specialized {
                Some(Err(rejected)) => {
                    let span = spans().get(rejected.argument).copied().unwrap_or_default();
                    let error = EvalError::new(rejected.message);
                    self.errors
                        .push(Diagnostic::new(span, PlanError::Constant(error.clone())));
                    return Some(Node::Fail(error.at(id)));
                }
                // Reference mode keeps the general implementation (a rejection aside).
                Some(Ok(implementation)) if shortcuts => {
                    return Some(Node::Call {
                        id,
                        implementation,
                        cost: overload.call_cost(),
                        args: std::mem::take(args).into(),
                    });
                }
                _ => {}
            }
        }
        let specialization = overload.specialization?;
        match (specialization, args.as_slice()) {
            (Specialization::LogicalNot, [_]) if shortcuts => {
                let CallCost::Fixed(cost) = overload.call_cost() else {
                    return None;
                };
                Some(Node::Not {
                    id,
                    operand: Box::new(args.pop()?),
                    cost,
                })
            }
            (Specialization::OptionalOr { or_value }, [_, _]) => {
                let rhs = Box::new(args.pop()?);
                let lhs = Box::new(args.pop()?);
                Some(Node::OptionalOr { lhs, rhs, or_value })
            }
            (Specialization::StringTest(test), [_, Node::Const(Value::String(x))]) if shortcuts => {
                let contains = test == StringTest::Contains;
                let factor = match overload.call_cost() {
                    CallCost::TraverseFirst if !contains => 1,
                    CallCost::Contains if contains => cost::traverse(cost::code_points(x)),
                    _ => return None,
                };
                Some(Node::StringTest(Box::new(StringTestNode {
                    test: ConstantTest::new(test, x),
                    factor,
                    call: Node::Call {
                        id,
                        implementation: overload.implementation.clone(),
                        cost: overload.call_cost(),
                        args: std::mem::take(args).into(),
                    },
                })))
            }
            (Specialization::ConstantPattern, [_, Node::Const(Value::String(p))]) if shortcuts => {
                // Compiled once per program: by the literal validators, if they ran.
                let validated = self.env.checked.and_then(|c| {
                    let found = c.regexes.iter().find(|(known, _)| known == p);
                    found.map(|(_, r)| r.clone())
                });
                let regex = match validated {
                    Some(r) => r,
                    None => crate::standard::strings::compile_regex(p).ok()?,
                };
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
            (Specialization::ConstantListMembership, [_, Node::Const(Value::List(items))])
                if self.env.optimize && items.is_empty() =>
            {
                Some(Node::Const(Value::Bool(false)))
            }
            // cel-go turns `in` a constant list into a set lookup (which costs nothing) only
            // when every element is a bool, int, uint, double or string.
            (Specialization::ConstantListMembership, [_, Node::Const(Value::List(items))])
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
                let mut strings: Vec<Arc<str>> = values
                    .iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect();
                strings.sort_unstable();
                strings.dedup();
                let strings = strings.into();
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

    /// Enters a comprehension's loop (condition, step, result: cel-go evaluates them
    /// under the comprehension's activation; the range and the accumulator's initial value
    /// under the enclosing one). Returns the layer to restore.
    fn enter_comprehension(&mut self) -> Layer {
        let outer = self.layer;
        if outer == Layer::Root {
            self.layer = Layer::Comprehension;
        }
        outer
    }

    fn fold(&mut self, id: ExprId, c: &Comprehension) -> Node {
        if let Some((kind, predicate)) = quantifier_shape(c).filter(|_| !self.env.reference) {
            let range = self.node(&c.iter_range);
            let iter_slot = self.new_slot();
            self.scopes.push((c.iter_var.clone(), iter_slot));
            let outer = self.enter_comprehension();
            let predicate = self.node(predicate);
            self.layer = outer;
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
        let outer = self.enter_comprehension();
        let condition = self.node(&c.loop_condition);
        let step = self.node(&c.loop_step);
        self.scopes.truncate(depth + 1); // the result sees the accumulator only
        let result = self.node(&c.result);
        self.layer = outer;
        self.scopes.truncate(depth);
        let mut step = step;
        let appends = matches!(condition, Node::Const(Value::Bool(true)))
            && match &mut step {
                Node::AppendToAccumulator { slot, elements, .. } if *slot == accu_slot => {
                    match &mut **elements {
                        [e] => !may_read(e, accu_slot),
                        _ => false,
                    }
                }
                _ => false,
            };
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
            appends,
        }))
    }
}

/// Reference mode: wraps `node`, if it is a constant, a variable or a selection, and every
/// such node below it in [`Node::Evaluated`], so that nothing reads them in place.
fn evaluated_leaves(node: &mut Node) {
    node.for_each_child_mut(&mut evaluated_leaves);
    if matches!(
        node,
        Node::Const(_) | Node::Load(_) | Node::LoadUncharged(_) | Node::Select { .. }
    ) {
        let leaf = std::mem::replace(node, Node::Const(Value::Null));
        *node = Node::Evaluated(Box::new(leaf));
    }
}

/// Whether evaluating `node` may read frame slot `slot` (block reads are assumed to).
fn may_read(node: &mut Node, slot: Slot) -> bool {
    let reads = match node {
        Node::Load(s) | Node::LoadUncharged(s) => *s == slot,
        Node::Path(p) => p.slot == slot,
        Node::AppendToAccumulator { slot: s, .. } | Node::InsertIntoAccumulator { slot: s, .. } => {
            *s == slot
        }
        Node::BlockIndex { .. } | Node::Block(_) => true,
        _ => false,
    };
    let mut children = false;
    node.for_each_child_mut(&mut |child| children = children || may_read(child, slot));
    reads || children
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

/// `operand.field`: extends a variable or a path into a path, or selects from any other
/// operand.
/// In reference mode, always a selection from the operand.
fn select(id: ExprId, operand: Node, field: Field, reference: bool) -> Node {
    let (slot, charged, mut fields) = match operand {
        operand if reference => {
            return Node::Select {
                id,
                operand: Box::new(operand),
                field,
            };
        }
        Node::Load(slot) => (slot, true, Vec::new()),
        Node::LoadUncharged(slot) => (slot, false, Vec::new()),
        Node::Path(p) => (p.slot, p.charged, p.fields.into_vec()),
        operand => {
            return Node::Select {
                id,
                operand: Box::new(operand),
                field,
            };
        }
    };
    fields.push((id, field));
    Node::Path(Box::new(PathNode {
        slot,
        charged,
        fields: fields.into(),
        cache: None,
        json_cache: None,
    }))
}

/// `node`, planned from `operand`, the operand of a selection, an index or their optional
/// forms: wrapped in [`Node::Relative`] where cel-go does not plan `operand` as an
/// attribute (`interpreter/planner.go`, `planSelect`/`planCallIndex`: an operand that is
/// not an `InterpretableAttribute` goes through `relativeAttr`). Attributes are variables,
/// selections, indexes and conditionals (`planCallConditional`); the optimizer's constant
/// lists and maps are constants there too (`decOptimize`), so relative.
fn relative_operand(operand: &Expr, node: Node) -> Node {
    let attribute = match &operand.kind {
        ExprKind::Ident(_) => true,
        ExprKind::Select { test_only, .. } => !test_only,
        ExprKind::Call {
            target: None,
            function,
            ..
        } => [op::INDEX, op::OPT_INDEX, op::OPT_SELECT, op::CONDITIONAL].contains(&&**function),
        _ => false,
    };
    if attribute {
        node
    } else {
        Node::Relative(Box::new(node))
    }
}

/// Makes the root variable of an attribute (a variable, possibly followed by field
/// selections) free, as cel-go's attribute resolution does where it does not evaluate the
/// attribute as an expression of its own; likewise the 1 of a relative attribute at the
/// root (cel-go's conditional takes the branch's attribute without its watch,
/// `planCallConditional`; an index key's attribute is resolved as a qualifier,
/// `attrQualify`; a presence test resolves its operand's attribute, `evalTestOnly`).
fn uncharge_attribute_root(node: &mut Node) {
    match node {
        Node::Relative(inner) => *node = std::mem::replace(&mut **inner, Node::Const(Value::Null)),
        Node::Load(slot) => *node = Node::LoadUncharged(*slot),
        Node::BlockIndex { charged, .. } => *charged = false,
        Node::Path(p) => p.charged = false,
        Node::Select { operand, .. } => uncharge_attribute_root(operand),
        Node::Binary(b) if b.inline.operator() == Operator::Index => {
            uncharge_attribute_root(&mut b.lhs);
            b.read_cost = read_cost(&b.lhs).zip(read_cost(&b.rhs)).map(|(x, y)| x + y);
        }
        Node::Dispatch {
            overloads, args, ..
        } if is_index(overloads) => {
            if let Some(operand) = args.first_mut() {
                uncharge_attribute_root(operand);
            }
        }
        Node::Traced(t) => uncharge_attribute_root(&mut t.node),
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
    match eval(&node, &mut SlotStorage::new().frame(0)) {
        Ok(v) => Node::Const(v),
        Err(_) => node,
    }
}

/// A [`BinaryNode`] for a call of an operator with an inline form over these overloads.
fn binary_operator(
    id: ExprId,
    function: &str,
    candidates: &[(Overload, CallCost)],
    args: &mut Vec<Node>,
) -> Option<Node> {
    if args.len() != 2
        || Operator::of(function).is_none()
        || candidates
            .iter()
            .any(|(o, _)| matches!(o.implementation, Implementation::Builtin))
    {
        return None;
    }
    let table = DispatchTable::new(candidates, 2)?;
    let inline = Inline::for_call(function, |a, b| {
        candidates.get(usize::from(table.get_kinds(candidates, a, b)))
    })?;
    let rhs = args.pop()?;
    let lhs = args.pop()?;
    let key = match (inline.operator(), &lhs, &rhs) {
        (Operator::In, Node::Const(Value::String(k)), _)
        | (Operator::Index, _, Node::Const(Value::String(k))) => Some(Field::new(k.clone())),
        _ => None,
    };
    let reads = [read_cost(&lhs), read_cost(&rhs)];
    // Operands worked out within the tree: int operators, and sizes of operands read in
    // place.
    let nested = |n: &Node| match n {
        Node::Binary(b) => b.int_tree && b.inline.operator().is_arithmetic(),
        Node::Size(_) => int_tree_cost(n).is_some(),
        _ => false,
    };
    let int_tree = inline.on_ints()
        && [&lhs, &rhs]
            .into_iter()
            .zip(reads)
            .all(|(n, read)| nested(n) || read.is_some());
    let fused_cost = if int_tree && (nested(&lhs) || nested(&rhs)) {
        int_tree_cost(&lhs)
            .zip(int_tree_cost(&rhs))
            .map(|(a, b)| a + b + 1)
    } else {
        None
    };
    let time_tree = if inline.compares_times()
        && (matches!(lhs, Node::Time(_)) || matches!(rhs, Node::Time(_)))
    {
        operand_cost(&lhs)
            .zip(operand_cost(&rhs))
            .map(|(a, b)| a + b)
    } else {
        None
    };
    Some(Node::Binary(Box::new(BinaryNode {
        id,
        inline,
        lhs,
        rhs,
        key,
        read_cost: reads[0].zip(reads[1]).map(|(a, b)| a + b),
        int_tree,
        fused_cost,
        time_tree,
        overloads: candidates.into(),
        table,
    })))
}

/// Whether a call's candidate overloads all declare [`Specialization::Size`] at its cost.
fn is_standard_size(candidates: &[(Overload, CallCost)]) -> bool {
    !candidates.is_empty()
        && candidates.iter().all(|(o, c)| {
            o.specialization == Some(Specialization::Size) && matches!(c, CallCost::Fixed(1))
        })
}

/// A type conversion's name with its argument when that is a variable or a chain of
/// selections from one (`timestamp(self.metadata.creationTimestamp)`).
fn conversion_key(function: &str, args: &[Expr]) -> Option<String> {
    fn chain(e: &Expr, out: &mut String) -> Option<()> {
        match &e.kind {
            ExprKind::Ident(name) => out.push_str(name),
            ExprKind::Select {
                operand,
                field,
                test_only: false,
            } => {
                chain(operand, out)?;
                out.push('.');
                out.push_str(field);
            }
            _ => return None,
        }
        Some(())
    }
    let [arg] = args else { return None };
    let mut key = format!("{function}(");
    chain(arg, &mut key)?;
    key.push(')');
    Some(key)
}

/// Counts the type conversions of variables' paths in `e` by [`conversion_key`].
fn count_conversions(e: &Expr, counts: &mut HashMap<String, u32>) {
    e.walk(|e| {
        if let ExprKind::Call {
            target: None,
            function,
            args,
        } = &e.kind
        {
            if TYPE_CONVERSIONS.contains(&&**function) {
                if let Some(key) = conversion_key(function, args) {
                    *counts.entry(key).or_default() += 1;
                }
            }
        }
    });
}

/// The nesting depth of an expression (1 for a leaf; bounded by the parser's limit).
fn depth(e: &Expr) -> u32 {
    let children = match &e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => 0,
        ExprKind::Select { operand, .. } => depth(operand),
        ExprKind::Call { target, args, .. } => target
            .iter()
            .map(|t| depth(t))
            .chain(args.iter().map(depth))
            .max()
            .unwrap_or(0),
        ExprKind::List { elements, .. } => elements.iter().map(depth).max().unwrap_or(0),
        ExprKind::Map { entries } => entries
            .iter()
            .map(|e| depth(&e.key).max(depth(&e.value)))
            .max()
            .unwrap_or(0),
        ExprKind::Struct { fields, .. } => {
            fields.iter().map(|f| depth(&f.value)).max().unwrap_or(0)
        }
        ExprKind::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_condition,
            &c.loop_step,
            &c.result,
        ]
        .into_iter()
        .map(depth)
        .max()
        .unwrap_or(0),
    };
    children.saturating_add(1)
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

    /// A type conversion of a variable's path that repeats, or sits in a comprehension, is
    /// evaluated once per evaluation and its value reused (`Node::Memo`). Each use must
    /// still give the same value, the same error at the same node and the same actual cost
    /// as converting again, also when the cost limit stops evaluation part-way, over kcel
    /// values and over JSON.
    #[test]
    fn memoized_conversions_evaluate_as_converting_again() {
        const MEMOIZED: &[&str] = &[
            "timestamp(x.ts) - timestamp(x.ts2) < duration(x.day) && timestamp(x.ts2) > timestamp(x.ts)",
            "timestamp(x.ts) == timestamp(x.ts) && timestamp(x.ts) != timestamp(x.ts2)",
            // The first conversion fails: the error is not kept, each use reports its own node.
            "timestamp(x.bad) == timestamp(x.ts) || timestamp(x.bad) == timestamp(x.ts2)",
            "timestamp(x.missing) == timestamp(x.ts) || timestamp(x.missing) != timestamp(x.ts)",
            // In comprehensions, also with a single use.
            "x.l.all(e, timestamp(x.ts) > timestamp(x.ts2) && e > 0)",
            "x.l.map(e, int(x.n) + e)",
            "x.l.exists(e, string(x.n) == string(e))",
            "x.l.filter(e, duration(x.day) > duration(x.hour) && double(x.n) > double(e))",
            "x.l.all(e, timestamp(x.bad) == timestamp(x.ts))",
            "x.l.exists(e, e == 3 || timestamp(x.bad) == timestamp(x.ts))",
            // A comprehension variable with a variable's name is not the variable.
            "[{'ts': x.ts2}].all(x, timestamp(x.ts) > timestamp(x.ts) || true) && timestamp(x.ts) == timestamp(x.ts)",
            "x.l.map(l, x.l.map(m, int(x.n) + l + m))",
        ];

        let mut env = crate::Env::new();
        env.declare("x", crate::Type::Dyn);
        let doc = Arc::new(serde_json::json!({"x": {
            "ts": "2024-05-01T10:00:00Z", "ts2": "2024-04-30T11:30:00.5+01:00",
            "bad": "May 1st", "day": "24h", "hour": "1h", "n": 2, "l": [1, 2, 3],
        }}));
        let values = crate::Bindings::new().with("x", Value::from(&doc["x"]));
        let json = crate::JsonActivation::new(doc.clone());
        let outcome = |program: &crate::Program, activation: &dyn crate::Activation| {
            let (result, details) = program.eval_with_details(activation);
            let shown = result.map_err(|e| (e.message(), e.node().and_then(|n| program.span(n))));
            (format!("{shown:?}"), details.actual_cost)
        };
        let mut compared = 0;
        for expr in MEMOIZED {
            let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
            let program = |limit: Option<u64>, memoize: bool| {
                let options = crate::ProgramOptions {
                    cost_limit: limit,
                    ..Default::default()
                };
                env.plan_program(&ast, options, memoize).unwrap()
            };
            let (_, cost) = outcome(&program(None, false), &values);
            // Limits that stop evaluation at every point it charges, and none.
            for limit in (0..=cost).map(Some).chain([None]) {
                let expected = outcome(&program(limit, false), &values);
                let memoized = program(limit, true);
                assert_eq!(
                    outcome(&memoized, &values),
                    expected,
                    "{expr}, limit {limit:?}"
                );
                assert_eq!(
                    outcome(&memoized, &json),
                    expected,
                    "{expr}, limit {limit:?}"
                );
                compared += 1;
            }
        }
        assert!(compared > 10 * MEMOIZED.len());
    }

    /// Membership in constant lists of strings, short (compared in turn) and long (searched),
    /// with duplicates and other kinds of elements, agrees with the list scanned in full.
    #[test]
    fn constant_list_membership_finds_every_element() {
        let mut env = crate::Env::new();
        env.declare("x", crate::Type::Dyn);
        let short = "['b', 'a', 'b']";
        let long = "['k','j','i','h','g','f','e','d','c','b','a','a', 1, 2.5]";
        let probes = [
            "'a'", "'b'", "'e'", "'k'", "'z'", "''", "1", "1u", "2.5", "3",
        ];
        for list in [short, long] {
            let program = env.program(&env.compile(&format!("x in {list}")).unwrap());
            let program = program.unwrap();
            for probe in probes {
                let x = env.program(&env.compile(probe).unwrap()).unwrap();
                let x = x.eval(&()).unwrap();
                let scan = format!("{list}.exists(e, dyn(e) == dyn({probe}))");
                let scanned = env.program(&env.compile(&scan).unwrap());
                let expected = scanned.unwrap().eval(&()).unwrap();
                let got = program.eval(&crate::Bindings::new().with("x", x)).unwrap();
                assert_eq!(got, expected, "{probe} in {list}");
            }
        }
    }
}

//! Parses CEL source text into an [`Expr`].
//!
//! The pest grammar (`grammar/cel.pest`) is flat: an expression is a sequence of operands,
//! infix operators and conditional `?`/`:`, and only brackets make pest recurse (through
//! few rules per level). This module folds each sequence into a tree by precedence
//! climbing, decodes literals, checks reserved words, expands macros and enforces the
//! limits:
//!
//! - input size in code points, checked first;
//! - bracket nesting, checked by a pre-scan before pest runs, so pest's recursion is bounded;
//! - AST depth, tracked per node while building (long member chains, operator chains).
//!
//! The AST is built bottom-up (innermost expression first) with explicit stacks, so the
//! builder never recurses through nested expressions either. Deep input yields
//! "max recursion depth exceeded", never a stack overflow.

use std::iter::Peekable;
use std::sync::Arc;

use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pairs;
use pest::{Parser as _, Token};
use smallvec::SmallVec;

use crate::error::{Diagnostic, Issues, NumberKind, ParseError};
use crate::syntax::ast::{Expr, ExprId, ExprKind, FieldInit, Literal, MapEntry, Span, op};
use crate::syntax::literal::{self, LiteralError};
use crate::syntax::macros::{self, Expander, Style};

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/cel.pest"]
    pub struct CelGrammar;
}

use grammar::{CelGrammar, Rule};

/// Parser limits and switches.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// Maximum nesting depth of the expression (cel-go's default is 250).
    pub max_recursion_depth: usize,
    /// Maximum source length in code points (cel-go's default is 100,000).
    pub max_code_points: usize,
    /// Expand macros: the standard ones (`has`, `all`, `exists`, ...) and those of
    /// `extra_macros`.
    pub macros: bool,
    /// Macro tables of libraries, e.g. [`macros::TWO_VARIABLE`] (cel-go's
    /// `ext.TwoVarComprehensions()`), [`macros::OPTIONAL`], [`macros::BIND`].
    pub extra_macros: Vec<&'static [macros::Macro]>,
    /// Accept the optional syntax `a.?b`, `a[?i]`, `[?x]`, `{?k: v}`, `M{?f: v}` (cel-go's
    /// `EnableOptionalSyntax`; Kubernetes enables it with optional types). When off, each
    /// use is an error ("unsupported syntax '?'", as cel-go reports it). On by default for
    /// the parser alone; an [`Env`](crate::Env) turns it off unless a library with
    /// `optional_syntax` (the optional types) is added.
    pub optional_syntax: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_recursion_depth: 250,
            max_code_points: 100_000,
            macros: true,
            extra_macros: Vec::new(),
            optional_syntax: true,
        }
    }
}

/// Identifiers that CEL reserves: rejected as plain identifiers and global function names,
/// allowed as field names, selectors and receiver function names.
pub const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Parses `source` into an expression tree with node ids and spans, macros expanded.
pub fn parse(source: &str, options: &ParseOptions) -> Result<Expr, Issues> {
    let size = source.chars().count();
    if size > options.max_code_points {
        return Err(Issues::single(
            source,
            Span::new(0, 0),
            ParseError::SourceTooLong {
                size,
                limit: options.max_code_points,
            },
        ));
    }
    if let Some(pos) = bracket_depth_exceeded(source, options.max_recursion_depth) {
        return Err(Issues::single(
            source,
            Span::new(pos, pos + 1),
            ParseError::TooDeep,
        ));
    }
    let pairs = match CelGrammar::parse(Rule::start, source) {
        Ok(pairs) => pairs,
        Err(err) => return Err(syntax_error(source, &err)),
    };
    let (nodes, exprs) = flatten(pairs);
    let tree = Tree {
        nodes: &nodes,
        source,
    };
    let mut builder = Builder {
        tree,
        options,
        macros: if options.macros {
            std::iter::once(macros::STANDARD)
                .chain(options.extra_macros.iter().copied())
                .collect()
        } else {
            SmallVec::new()
        },
        depths: unused_id_zero(nodes.len()),
        diagnostics: Vec::new(),
        built: Vec::new(),
    };
    // The `start` node comes first; its first child is the root `expr`.
    let expr = tree
        .children(0)
        .next()
        .ok_or(Abort)
        .and_then(|root| builder.build(root, &exprs));
    match expr {
        Ok(expr) if builder.diagnostics.is_empty() => Ok(expr),
        _ => {
            if builder.diagnostics.is_empty() {
                builder.error(
                    Span::new(0, 0),
                    ParseError::Syntax("malformed expression".into()),
                );
            }
            Err(Issues {
                source: source.into(),
                diagnostics: builder.diagnostics,
            })
        }
    }
}

/// Scans the bracket nesting (skipping strings, comments and quoted identifiers) and
/// returns the offset of the first bracket nested deeper than `max`. This bounds pest's
/// recursion before it starts.
fn bracket_depth_exceeded(source: &str, max: usize) -> Option<usize> {
    let b = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'`' => {
                i += 1;
                while i < b.len() && b[i] != b'`' && b[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let raw = i > 0 && matches!(b[i - 1], b'r' | b'R' | b'b' | b'B') && {
                    // A prefix is raw when an r/R is among the (at most two) prefix letters.
                    let start = i.saturating_sub(2);
                    b[start..i].iter().any(|c| matches!(c, b'r' | b'R'))
                };
                let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                i += if triple { 3 } else { 1 };
                while i < b.len() {
                    if b[i] == b'\\' && !raw {
                        i += 2;
                        continue;
                    }
                    if b[i] == q
                        && (!triple || (b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q)))
                    {
                        i += if triple { 2 } else { 0 };
                        break;
                    }
                    if !triple && (b[i] == b'\n' || b[i] == b'\r') {
                        break;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Terms of a run of one logical operator, and the spans of the operators between them.
/// (The folding state is kept inline: most expressions have a few operators.)
#[derive(Default)]
struct Chain {
    terms: SmallVec<[Option<Expr>; 4]>,
    ops: SmallVec<[Span; 4]>,
}

/// Pending operands of binary operators.
type Operands = SmallVec<[Expr; 4]>;

/// Pending binary operators: precedence, function name and span.
type Operators = SmallVec<[(u8, &'static str, Span); 4]>;

/// The state of folding one `||`-level expression: pending operands and operators of
/// precedence above `&&`, and the `&&` and `||` chains around them.
#[derive(Default)]
struct Fold {
    operands: Operands,
    ops: Operators,
    conjunction: Chain,
    disjunction: Chain,
}

/// Whether a rule is a member access following a primary.
fn is_postfix(rule: Rule) -> bool {
    matches!(rule, Rule::member | Rule::index | Rule::opt_index)
}

/// Marks that building stopped after a fatal error (already recorded as a diagnostic).
#[derive(Debug)]
struct Abort;

type Built = Result<Expr, Abort>;

/// Punctuation rules exist only to name them in syntax errors; the builder skips them.
fn is_punctuation(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::rparen | Rule::rbracket | Rule::rbrace | Rule::comma | Rule::colon
    )
}

/// One matched rule of pest's output.
struct Node {
    rule: Rule,
    start: u32,
    end: u32,
    /// The index of the node after this one's last descendant (its next sibling, if any).
    next: u32,
}

/// Flattens pest's output in one walk of its token queue (no `Pair`s are built): the
/// nodes in pre-order without punctuation, and the indices of the `expr` nodes in
/// post-order (innermost first).
fn flatten(pairs: Pairs<'_, Rule>) -> (Vec<Node>, Vec<usize>) {
    let tokens = pairs.tokens();
    let mut nodes = Vec::with_capacity(tokens.len() / 2);
    let mut open: SmallVec<[usize; 32]> = SmallVec::new();
    let mut exprs = Vec::with_capacity(8);
    for token in tokens {
        match token {
            Token::Start { rule, pos } if !is_punctuation(rule) => {
                open.push(nodes.len());
                nodes.push(Node {
                    rule,
                    start: pos.pos() as u32,
                    end: 0,
                    next: 0,
                });
            }
            Token::End { rule, pos } if !is_punctuation(rule) => {
                if let Some(i) = open.pop() {
                    let next = nodes.len() as u32;
                    let node: &mut Node = &mut nodes[i];
                    node.end = pos.pos() as u32;
                    node.next = next;
                    if rule == Rule::expr {
                        exprs.push(i);
                    }
                }
            }
            _ => {}
        }
    }
    (nodes, exprs)
}

/// The flattened parse tree; a node is named by its index.
#[derive(Clone, Copy)]
struct Tree<'a> {
    nodes: &'a [Node],
    source: &'a str,
}

impl<'a> Tree<'a> {
    fn rule(&self, n: usize) -> Rule {
        self.nodes.get(n).map_or(Rule::EOI, |node| node.rule)
    }

    fn span(&self, n: usize) -> Span {
        self.nodes.get(n).map_or(Span::default(), |node| Span {
            start: node.start,
            end: node.end,
        })
    }

    fn text(&self, n: usize) -> &'a str {
        let span = self.span(n);
        self.source
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The children of node `n`, in order.
    fn children(&self, n: usize) -> Children<'a> {
        Children {
            nodes: self.nodes,
            at: n + 1,
            end: self.nodes.get(n).map_or(0, |node| node.next as usize),
        }
    }

    /// Whether `n` is a `number` that is an int or double (a literal a leading minus folds
    /// into).
    fn is_signed_number(&self, n: usize) -> bool {
        self.rule(n) == Rule::number
            && self
                .children(n)
                .next()
                .is_some_and(|c| matches!(self.rule(c), Rule::num_int | Rule::num_double))
    }

    /// The name of a field: an identifier, or a backtick-quoted name without its backticks.
    fn field_name(&self, n: usize) -> Arc<str> {
        let text = self.text(n);
        match self.rule(n) {
            Rule::escaped_ident => text
                .strip_prefix('`')
                .and_then(|t| t.strip_suffix('`'))
                .unwrap_or(text)
                .into(),
            _ => text.into(),
        }
    }
}

/// Iterates over the children of a node.
struct Children<'a> {
    nodes: &'a [Node],
    at: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.at >= self.end {
            return None;
        }
        let n = self.at;
        // `max` keeps the walk moving forward whatever the nodes say.
        self.at = self
            .nodes
            .get(n)
            .map_or(self.end, |node| node.next as usize)
            .max(n + 1);
        Some(n)
    }
}

/// The depths of no nodes yet: index 0 (no node has id 0) and room for about one AST node
/// per parse-tree node.
fn unused_id_zero(nodes: usize) -> Vec<u32> {
    let mut depths = Vec::with_capacity(nodes + 1);
    depths.push(0);
    depths
}

/// Builds the AST from the parse tree: ids, spans, depth accounting, macros.
struct Builder<'a> {
    tree: Tree<'a>,
    /// Every `expr` node (ascending) and, once built, its tree, waiting for its parent.
    built: Vec<(usize, Option<Expr>)>,
    options: &'a ParseOptions,
    /// The macro tables in effect, searched in order.
    macros: SmallVec<[&'static [macros::Macro]; 4]>,
    /// Nesting depth of every node so far, indexed by id (index 0 is unused).
    depths: Vec<u32>,
    diagnostics: Vec<Diagnostic>,
}

impl Builder<'_> {
    fn error(&mut self, span: Span, error: ParseError) {
        self.diagnostics.push(Diagnostic::new(span, error));
    }

    /// Takes the next node, or records an internal error (the grammar guarantees it exists).
    fn take(&mut self, it: &mut impl Iterator<Item = usize>, at: Span) -> Result<usize, Abort> {
        match it.next() {
            Some(p) => Ok(p),
            None => {
                self.error(at, ParseError::Syntax("incomplete expression".into()));
                Err(Abort)
            }
        }
    }

    fn depth(&self, e: &Expr) -> u32 {
        self.depths.get(e.id as usize).copied().unwrap_or(0)
    }

    /// The depth a node of `kind` would have: 0 for leaves, else one more than its deepest
    /// child.
    fn kind_depth(&self, kind: &ExprKind) -> u32 {
        let d = |e: &Expr| self.depth(e);
        let max = match kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => None,
            ExprKind::Select { operand, .. } => Some(d(operand)),
            ExprKind::Call { target, args, .. } => {
                target.iter().map(|t| d(t)).chain(args.iter().map(d)).max()
            }
            ExprKind::List { elements, .. } => elements.iter().map(d).max(),
            ExprKind::Map { entries } => entries.iter().map(|e| d(&e.key).max(d(&e.value))).max(),
            ExprKind::Struct { fields, .. } => fields.iter().map(|f| d(&f.value)).max(),
            ExprKind::Comprehension(c) => [
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ]
            .into_iter()
            .map(d)
            .max(),
        };
        max.map_or(0, |m| m + 1)
    }

    /// Checks a depth against the limit.
    fn check_depth(&mut self, depth: u32, span: Span) -> Result<(), Abort> {
        if depth as usize > self.options.max_recursion_depth {
            self.error(span, ParseError::TooDeep);
            return Err(Abort);
        }
        Ok(())
    }

    fn alloc(&mut self, depth: u32) -> ExprId {
        let id = self.depths.len() as ExprId;
        self.depths.push(depth);
        id
    }

    /// Creates a node with a fresh id, enforcing the depth limit.
    fn node(&mut self, span: Span, kind: ExprKind) -> Built {
        let depth = self.kind_depth(&kind);
        self.check_depth(depth, span)?;
        let id = self.alloc(depth);
        Ok(Expr { id, span, kind })
    }

    /// A placeholder for a node whose construction reported a (non-fatal) error.
    fn placeholder(&mut self, span: Span) -> Built {
        self.node(span, ExprKind::Literal(Literal::Null))
    }

    fn call_node(&mut self, span: Span, function: &str, args: Vec<Expr>) -> Built {
        self.node(
            span,
            ExprKind::Call {
                target: None,
                function: function.into(),
                args,
            },
        )
    }

    /// Builds the tree for the root `expr` node without recursing through nested
    /// expressions: all `expr` nodes are built innermost first (`post_order`, see
    /// [`flatten`]); a nested expression is then looked up by [`Builder::expr`] instead of
    /// being built recursively. Recursion is thus bounded by the structure within one
    /// expression, whatever the nesting depth, even in debug builds.
    fn build(&mut self, root: usize, post_order: &[usize]) -> Built {
        self.built = post_order.iter().map(|&n| (n, None)).collect();
        self.built.sort_unstable_by_key(|(n, _)| *n);
        for &n in post_order {
            let e = self.build_expr(n)?;
            if let Ok(i) = self.built.binary_search_by_key(&n, |(m, _)| *m) {
                self.built[i].1 = Some(e);
            }
        }
        self.expr(root)
    }

    /// The already built tree of a nested `expr` node (see [`Builder::build`]).
    fn expr(&mut self, n: usize) -> Built {
        let built = match self.built.binary_search_by_key(&n, |(m, _)| *m) {
            Ok(i) => self.built[i].1.take(),
            Err(_) => None,
        };
        match built {
            Some(e) => Ok(e),
            None => {
                self.error(
                    self.tree.span(n),
                    ParseError::Syntax("malformed expression".into()),
                );
                Err(Abort)
            }
        }
    }

    /// Builds one `expr` node whose nested expressions are already built.
    fn build_expr(&mut self, node: usize) -> Built {
        let mut it = self.tree.children(node);
        match (it.next(), it.next()) {
            (Some(first), None) => self.primary(first),
            _ => self.sequence(node),
        }
    }

    /// `operand (infix operand)* (? ... : ...)*`: binary operators are folded by precedence
    /// (all left-associative), runs of `&&` and `||` are balanced into trees as cel-go does
    /// (which also keeps long logical chains shallow), and conditionals fold to the right.
    fn sequence(&mut self, node: usize) -> Built {
        let at = self.tree.span(node);
        let mut it = self.tree.children(node).peekable();
        let mut fold = Fold::default();
        // Completed operands of conditionals: cond, then, cond, then, ..., else.
        let mut parts: Vec<Expr> = Vec::new();
        let mut questions: Vec<Span> = Vec::new();
        loop {
            let operand = self.operand(&mut it, at)?;
            fold.operands.push(operand);
            let Some(next) = it.next() else {
                break;
            };
            match self.tree.rule(next) {
                Rule::question | Rule::else_colon => {
                    parts.push(self.finish(&mut fold, at)?);
                    if self.tree.rule(next) == Rule::question {
                        questions.push(self.tree.span(next));
                    }
                }
                _ => {
                    let operator = binary_operator(self.tree.text(next));
                    self.push_operator(&mut fold, operator, self.tree.span(next), at)?;
                }
            }
        }
        let mut result = self.finish(&mut fold, at)?;
        while let Some(span) = questions.pop() {
            let (Some(then), Some(cond)) = (parts.pop(), parts.pop()) else {
                self.error(span, ParseError::Syntax("malformed conditional".into()));
                return Err(Abort);
            };
            result = self.call_node(span, op::CONDITIONAL, vec![cond, then, result])?;
        }
        Ok(result)
    }

    /// Adds a binary operator to the fold, reducing what binds at least as tightly.
    fn push_operator(
        &mut self,
        fold: &mut Fold,
        (prec, name): (u8, &'static str),
        span: Span,
        at: Span,
    ) -> Result<(), Abort> {
        if prec <= 2 {
            let term = self.reduce_all(&mut fold.operands, &mut fold.ops, at)?;
            fold.conjunction.terms.push(Some(term));
            if name == op::LOGICAL_OR {
                let term = self.balance(op::LOGICAL_AND, &mut fold.conjunction)?;
                fold.disjunction.terms.push(Some(term));
                fold.disjunction.ops.push(span);
            } else {
                fold.conjunction.ops.push(span);
            }
            return Ok(());
        }
        while fold.ops.last().is_some_and(|&(p, _, _)| p >= prec) {
            self.reduce(&mut fold.operands, &mut fold.ops)?;
        }
        fold.ops.push((prec, name, span));
        Ok(())
    }

    /// Completes the pending `||`/`&&`/binary expression and resets the fold.
    fn finish(&mut self, fold: &mut Fold, at: Span) -> Built {
        let term = self.reduce_all(&mut fold.operands, &mut fold.ops, at)?;
        fold.conjunction.terms.push(Some(term));
        let term = self.balance(op::LOGICAL_AND, &mut fold.conjunction)?;
        fold.disjunction.terms.push(Some(term));
        self.balance(op::LOGICAL_OR, &mut fold.disjunction)
    }

    /// Reduces all pending operators and returns the single remaining operand.
    fn reduce_all(&mut self, operands: &mut Operands, ops: &mut Operators, at: Span) -> Built {
        while !ops.is_empty() {
            self.reduce(operands, ops)?;
        }
        match operands.pop() {
            Some(e) if operands.is_empty() => Ok(e),
            _ => {
                self.error(at, ParseError::Syntax("malformed operator sequence".into()));
                Err(Abort)
            }
        }
    }

    /// Builds a balanced tree of `function` over the chain's terms (cel-go's shape: the
    /// operator in the middle is the root), and empties the chain.
    fn balance(&mut self, function: &'static str, chain: &mut Chain) -> Built {
        let mut terms = std::mem::take(&mut chain.terms);
        let ops = std::mem::take(&mut chain.ops);
        if ops.is_empty() || terms.len() != ops.len() + 1 {
            return match terms.pop().flatten() {
                Some(e) if terms.is_empty() => Ok(e),
                _ => {
                    self.error(
                        Span::new(0, 0),
                        ParseError::Syntax("malformed operator sequence".into()),
                    );
                    Err(Abort)
                }
            };
        }
        self.balanced_tree(function, &mut terms, &ops, 0, ops.len() - 1)
    }

    /// Recursion depth is logarithmic in the chain length.
    fn balanced_tree(
        &mut self,
        function: &'static str,
        terms: &mut [Option<Expr>],
        ops: &[Span],
        lo: usize,
        hi: usize,
    ) -> Built {
        let mid = (lo + hi).div_ceil(2);
        let left = if mid == lo {
            self.term(terms, mid)?
        } else {
            self.balanced_tree(function, terms, ops, lo, mid - 1)?
        };
        let right = if mid == hi {
            self.term(terms, mid + 1)?
        } else {
            self.balanced_tree(function, terms, ops, mid + 1, hi)?
        };
        self.call_node(ops[mid], function, vec![left, right])
    }

    fn term(&mut self, terms: &mut [Option<Expr>], i: usize) -> Built {
        match terms.get_mut(i).and_then(Option::take) {
            Some(e) => Ok(e),
            None => {
                self.error(
                    Span::new(0, 0),
                    ParseError::Syntax("malformed operator sequence".into()),
                );
                Err(Abort)
            }
        }
    }

    fn reduce(&mut self, operands: &mut Operands, ops: &mut Operators) -> Result<(), Abort> {
        let (Some((_, name, span)), Some(rhs), Some(lhs)) =
            (ops.pop(), operands.pop(), operands.pop())
        else {
            self.error(
                Span::new(0, 0),
                ParseError::Syntax("malformed operator sequence".into()),
            );
            return Err(Abort);
        };
        let e = self.call_node(span, name, vec![lhs, rhs])?;
        operands.push(e);
        Ok(())
    }

    /// One operand: `[!+ | -+] primary postfix*`. An even run of `!` or `-` cancels out, an
    /// odd one becomes a single `!_`/`-_` call; a single `-` directly before an int or double
    /// literal is folded into the literal (as cel-go does).
    fn operand<I: Iterator<Item = usize>>(&mut self, it: &mut Peekable<I>, at: Span) -> Built {
        let first = self.take(it, at)?;
        let (prefix, primary) = match self.tree.rule(first) {
            Rule::not_ops | Rule::neg_ops => {
                let primary = self.take(it, at)?;
                (Some(first), primary)
            }
            _ => (None, first),
        };
        let mut unary = None;
        let mut e = match prefix {
            Some(prefix) => {
                let (function, symbol) = if self.tree.rule(prefix) == Rule::not_ops {
                    (op::LOGICAL_NOT, '!')
                } else {
                    (op::NEGATE, '-')
                };
                let count = count_operators(self.tree.text(prefix), symbol);
                let start = self.tree.span(prefix).start as usize;
                if symbol == '-' && count == 1 && self.tree.is_signed_number(primary) {
                    self.number(primary, Some(start))?
                } else {
                    if count % 2 == 1 {
                        unary = Some((function, Span::new(start, start + 1)));
                    }
                    self.primary(primary)?
                }
            }
            None => self.primary(primary)?,
        };
        while it.peek().is_some_and(|p| is_postfix(self.tree.rule(*p))) {
            let postfix = self.take(it, at)?;
            e = self.postfix(e, postfix)?;
        }
        match unary {
            Some((function, span)) => self.call_node(span, function, vec![e]),
            None => Ok(e),
        }
    }

    /// Applies one member access (`.f`, `.?f`, `.f(..)`, `[i]`, `[?i]`) to `e`.
    fn postfix(&mut self, e: Expr, postfix: usize) -> Built {
        let rule = self.tree.rule(postfix);
        let pspan = self.tree.span(postfix);
        let mut parts = self.tree.children(postfix);
        let anchor = self.take(&mut parts, pspan)?;
        let anchor_span = self.tree.span(anchor);
        match rule {
            Rule::member => {
                let name = self.take(&mut parts, pspan)?;
                if self.tree.rule(name) == Rule::optional {
                    self.optional_allowed(anchor_span, ".?");
                    let field = self.take(&mut parts, pspan)?;
                    let name = self.node(
                        self.tree.span(field),
                        ExprKind::Literal(Literal::String(self.tree.field_name(field))),
                    )?;
                    return self.call_node(anchor_span, op::OPT_SELECT, vec![e, name]);
                }
                match parts.next() {
                    Some(lparen) => {
                        let args = self.args(parts)?;
                        self.call(self.tree.span(lparen), Some(e), self.tree.text(name), args)
                    }
                    None => self.select(e, anchor_span, name),
                }
            }
            Rule::index | Rule::opt_index => {
                if rule == Rule::opt_index {
                    self.optional_allowed(anchor_span, "[?");
                }
                let index = self.take(&mut parts, pspan)?;
                self.index(e, anchor_span, rule == Rule::index, index)
            }
            _ => {
                self.error(pspan, ParseError::Syntax("unexpected member access".into()));
                Err(Abort)
            }
        }
    }

    /// `e.field`, anchored at the dot.
    fn select(&mut self, e: Expr, dot: Span, field: usize) -> Built {
        self.node(
            dot,
            ExprKind::Select {
                operand: Box::new(e),
                field: self.tree.field_name(field),
                test_only: false,
            },
        )
    }

    fn index(&mut self, e: Expr, span: Span, plain: bool, index: usize) -> Built {
        let index = self.expr(index)?;
        let function = if plain { op::INDEX } else { op::OPT_INDEX };
        self.call_node(span, function, vec![e, index])
    }

    /// Builds the argument expressions of a call.
    fn args(&mut self, nodes: impl Iterator<Item = usize>) -> Result<Vec<Expr>, Abort> {
        let mut args = Vec::new();
        for arg in nodes {
            args.push(self.expr(arg)?);
        }
        Ok(args)
    }

    /// A global or receiver call, expanded when it names a macro.
    fn call(&mut self, span: Span, target: Option<Expr>, function: &str, args: Vec<Expr>) -> Built {
        let style = if target.is_some() {
            Style::Receiver
        } else {
            Style::Global
        };
        let found = self
            .macros
            .iter()
            .find_map(|table| macros::find(table, function, style, args.len()))
            .filter(|m| match (m.receiver, &target) {
                (None, _) => true,
                (Some(want), Some(t)) => matches!(&t.kind, ExprKind::Ident(n) if &**n == want),
                (Some(_), None) => false,
            });
        if let Some(m) = found {
            let depth = target
                .iter()
                .chain(args.iter())
                .map(|e| self.depth(e))
                .max()
                .map_or(0, |d| d + 1);
            self.check_depth(depth, span)?;
            let mut expander = Expander::new(self.depths.len() as ExprId, span);
            let expanded = (m.expand)(&mut expander, target, args);
            self.depths.resize(expander.next_id() as usize, 0);
            return match expanded {
                Ok(e) => {
                    if let Some(d) = self.depths.get_mut(e.id as usize) {
                        *d = depth;
                    }
                    Ok(e)
                }
                Err(err) => {
                    self.error(err.span, ParseError::Macro(err.kind));
                    self.placeholder(span)
                }
            };
        }
        self.node(
            span,
            ExprKind::Call {
                target: target.map(Box::new),
                function: function.into(),
                args,
            },
        )
    }

    /// Dispatches on the primary's kind. Each case is its own function so that the frames
    /// on the recursive path (expr → ... → primary → expr) stay small in debug builds.
    fn primary(&mut self, node: usize) -> Built {
        match self.tree.rule(node) {
            Rule::number => self.number(node, None),
            Rule::string_lit | Rule::bytes_lit => self.quoted_literal(node),
            Rule::bool_true | Rule::bool_false | Rule::null => self.keyword_literal(node),
            Rule::ident_term => {
                let shape = self
                    .tree
                    .children(node)
                    .map(|p| self.tree.rule(p))
                    .find(|r| matches!(r, Rule::lparen | Rule::lbrace));
                match shape {
                    Some(Rule::lparen) => self.global_call(node),
                    Some(_) => self.message(node),
                    None => self.ident_expr(node),
                }
            }
            Rule::paren => self.paren(node),
            Rule::list => self.list(node),
            Rule::map => self.map(node),
            _ => {
                self.error(
                    self.tree.span(node),
                    ParseError::Syntax("unexpected token".into()),
                );
                Err(Abort)
            }
        }
    }

    fn quoted_literal(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let decoded = if self.tree.rule(node) == Rule::string_lit {
            literal::decode_string(self.tree.text(node)).map(|s| Literal::String(s.into()))
        } else {
            literal::decode_bytes(self.tree.text(node)).map(|b| Literal::Bytes(b.into()))
        };
        match decoded {
            Ok(lit) => self.node(span, ExprKind::Literal(lit)),
            Err(e) => self.literal_error(span, e),
        }
    }

    fn keyword_literal(&mut self, node: usize) -> Built {
        let lit = match self.tree.rule(node) {
            Rule::bool_true => Literal::Bool(true),
            Rule::bool_false => Literal::Bool(false),
            _ => Literal::Null,
        };
        self.node(self.tree.span(node), ExprKind::Literal(lit))
    }

    /// `[.]ident(.ident)*`: an identifier and the selections that follow it.
    fn ident_expr(&mut self, node: usize) -> Built {
        let term = self.tree.span(node);
        let mut it = self.tree.children(node);
        let mut ident = self.take(&mut it, term)?;
        let dot = if self.tree.rule(ident) == Rule::leading_dot {
            ident = self.take(&mut it, term)?;
            "."
        } else {
            ""
        };
        let span = self.tree.span(ident);
        // cel-go reports a reserved word at the start of the term (leading dot included).
        let mut e = if self.reserved(
            self.tree.text(ident),
            Span::new(term.start as usize, span.end as usize),
        ) {
            self.placeholder(span)?
        } else if dot.is_empty() {
            self.node(span, ExprKind::Ident(self.tree.text(ident).into()))?
        } else {
            let name = format!("{dot}{}", self.tree.text(ident));
            self.node(span, ExprKind::Ident(name.into()))?
        };
        while let Some(dot) = it.next() {
            let field = self.take(&mut it, term)?;
            e = self.select(e, self.tree.span(dot), field)?;
        }
        Ok(e)
    }

    fn global_call(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let mut it = self.tree.children(node);
        let mut first = self.take(&mut it, span)?;
        let dot = if self.tree.rule(first) == Rule::leading_dot {
            first = self.take(&mut it, span)?;
            "."
        } else {
            ""
        };
        let lparen = self.take(&mut it, span)?;
        let lparen = self.tree.span(lparen);
        let args = self.args(it)?;
        if self.reserved(self.tree.text(first), span) {
            return self.placeholder(lparen);
        }
        let name = format!("{dot}{}", self.tree.text(first));
        self.call(lparen, None, &name, args)
    }

    fn paren(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let mut it = self.tree.children(node);
        let _lparen = self.take(&mut it, span)?;
        let inner = self.take(&mut it, span)?;
        self.expr(inner)
    }

    fn list(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let mut it = self.tree.children(node);
        let lbracket = self.take(&mut it, span)?;
        let mut elements = Vec::new();
        let mut optional_indices = Vec::new();
        for elem in it {
            if self.tree.rule(elem) == Rule::optional {
                self.optional_allowed(self.tree.span(elem), "?");
                optional_indices.push(elements.len());
            } else {
                elements.push(self.expr(elem)?);
            }
        }
        self.node(
            self.tree.span(lbracket),
            ExprKind::List {
                elements,
                optional_indices,
            },
        )
    }

    fn map(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let mut it = self.tree.children(node);
        let lbrace = self.take(&mut it, span)?;
        let mut entries = Vec::new();
        for entry in it {
            entries.push(self.map_entry(entry)?);
        }
        self.node(self.tree.span(lbrace), ExprKind::Map { entries })
    }

    fn map_entry(&mut self, node: usize) -> Result<MapEntry, Abort> {
        let span = self.tree.span(node);
        let mut parts = self.tree.children(node);
        let mut first = self.take(&mut parts, span)?;
        let optional = self.tree.rule(first) == Rule::optional;
        if optional {
            self.optional_allowed(self.tree.span(first), "?");
            first = self.take(&mut parts, span)?;
        }
        let key = self.expr(first)?;
        let value = self.take(&mut parts, span)?;
        let value = self.expr(value)?;
        let id = self.alloc(0);
        Ok(MapEntry {
            id,
            key,
            value,
            optional,
        })
    }

    /// Reports a use of optional syntax when it is disabled.
    fn optional_allowed(&mut self, span: Span, syntax: &'static str) {
        if !self.options.optional_syntax {
            self.error(span, ParseError::UnsupportedSyntax(syntax));
        }
    }

    /// Reports a reserved identifier; returns whether it was one.
    fn reserved(&mut self, name: &str, span: Span) -> bool {
        if RESERVED.contains(&name) {
            self.error(span, ParseError::ReservedIdentifier(name.to_string()));
            true
        } else {
            false
        }
    }

    /// `[.] a.b.C{field: value, ...}`.
    fn message(&mut self, node: usize) -> Built {
        let span = self.tree.span(node);
        let mut name = String::new();
        let mut brace = span;
        let mut fields = Vec::new();
        for part in self.tree.children(node) {
            match self.tree.rule(part) {
                Rule::leading_dot | Rule::dot | Rule::ident => name.push_str(self.tree.text(part)),
                Rule::lbrace => brace = self.tree.span(part),
                Rule::field_init => {
                    let fspan = self.tree.span(part);
                    let mut it = self.tree.children(part);
                    let mut first = self.take(&mut it, fspan)?;
                    let optional = self.tree.rule(first) == Rule::optional;
                    if optional {
                        self.optional_allowed(self.tree.span(first), "?");
                        first = self.take(&mut it, fspan)?;
                    }
                    let field = self.tree.field_name(first);
                    let value = self.take(&mut it, fspan)?;
                    let value = self.expr(value)?;
                    let id = self.alloc(0);
                    fields.push(FieldInit {
                        id,
                        field,
                        value,
                        optional,
                    });
                }
                _ => {}
            }
        }
        self.node(
            brace,
            ExprKind::Struct {
                type_name: name.into(),
                fields,
            },
        )
    }

    /// `number: num_uint | [-] (num_double | num_int)`.
    /// `number: num_uint | num_double | num_int`; `minus` is the offset of a folded `-`.
    fn number(&mut self, node: usize, minus: Option<usize>) -> Built {
        let mut span = self.tree.span(node);
        let mut negative = minus.is_some();
        if let Some(start) = minus {
            span.start = start as u32;
        }
        for part in self.tree.children(node) {
            let lit = match self.tree.rule(part) {
                Rule::minus => {
                    negative = true;
                    continue;
                }
                Rule::num_int => literal::parse_int(self.tree.text(part), negative)
                    .map(Literal::Int)
                    .ok_or(NumberKind::Int),
                Rule::num_uint => literal::parse_uint(self.tree.text(part))
                    .map(Literal::Uint)
                    .ok_or(NumberKind::Uint),
                Rule::num_double => literal::parse_double(self.tree.text(part), negative)
                    .map(Literal::Double)
                    .ok_or(NumberKind::Double),
                _ => Err(NumberKind::Unknown),
            };
            return match lit {
                Ok(lit) => self.node(span, ExprKind::Literal(lit)),
                Err(kind) => {
                    self.error(span, ParseError::InvalidNumber(kind));
                    self.placeholder(span)
                }
            };
        }
        self.error(span, ParseError::InvalidNumber(NumberKind::Unknown));
        self.placeholder(span)
    }

    fn literal_error(&mut self, span: Span, e: LiteralError) -> Built {
        // cel-go reports malformed literals at their start.
        self.error(span, ParseError::InvalidText(e.problem));
        self.placeholder(span)
    }
}

/// Precedence and function name of a binary operator, from its text (an `infix` token).
fn binary_operator(text: &str) -> (u8, &'static str) {
    match text {
        "||" => (1, op::LOGICAL_OR),
        "&&" => (2, op::LOGICAL_AND),
        "==" => (3, op::EQUALS),
        "!=" => (3, op::NOT_EQUALS),
        "<" => (3, op::LESS),
        "<=" => (3, op::LESS_EQUALS),
        ">" => (3, op::GREATER),
        ">=" => (3, op::GREATER_EQUALS),
        "in" => (3, op::IN),
        "+" => (4, op::ADD),
        "-" => (4, op::SUBTRACT),
        "*" => (5, op::MULTIPLY),
        "/" => (5, op::DIVIDE),
        // The grammar's `infix` matches nothing else.
        _ => (5, op::MODULO),
    }
}

/// The binary operators, as "expecting {...}" lists name them.
const OPERATOR_TEXTS: [&str; 14] = [
    "'!='", "'%'", "'&&'", "'*'", "'+'", "'-'", "'/'", "'<'", "'<='", "'=='", "'>'", "'>='",
    "'in'", "'||'",
];

/// Counts `symbol` in an operator run, ignoring comments between the operators.
fn count_operators(run: &str, symbol: char) -> usize {
    run.split('\n')
        .map(|line| {
            let code = line.find("//").map_or(line, |i| &line[..i]);
            code.chars().filter(|&c| c == symbol).count()
        })
        .sum()
}

/// Converts a pest error into a cel-go style "Syntax error: ..." diagnostic.
fn syntax_error(source: &str, err: &pest::error::Error<Rule>) -> Issues {
    let pos = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let found = found_token(source, pos);
    let rest = source.get(pos..).unwrap_or("");
    let unlexable = rest.chars().next().is_some_and(|c| {
        !(c.is_ascii_alphanumeric() || c == '_' || "()[]{}.,:?!-+*/%<>=&|'\"`".contains(c))
    });
    let unterminated = rest.starts_with(['\'', '"']);
    let message = match &err.variant {
        _ if unlexable || unterminated => {
            // The lexer, not the grammar, is the problem: no token starts here.
            let shown: String = rest.lines().next().unwrap_or("").chars().take(40).collect();
            let shown = if unterminated {
                shown
            } else {
                rest.chars().take(1).collect()
            };
            format!("token recognition error at: '{shown}'")
        }
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected = expected_tokens(positives);
            expected.sort_unstable();
            expected.dedup();
            if expected.is_empty() {
                format!("unexpected input {found}")
            } else if let [one] = expected[..]
                && one != "expression"
            {
                // ANTLR braces a set of several tokens only (cel-go: `self.true` gives
                // "mismatched input 'true' expecting IDENTIFIER").
                format!("mismatched input {found} expecting {one}")
            } else {
                format!(
                    "mismatched input {found} expecting {{{}}}",
                    expected.join(", ")
                )
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let end = pos + rest.chars().next().map_or(0, char::len_utf8);
    Issues::single(source, Span::new(pos, end), ParseError::Syntax(message))
}

/// What pest expected, in cel-go's terms. The grammar's first-character lookaheads keep
/// pest from attempting (and so from reporting) operators, member accesses and operand
/// kinds, so they are restored here from the rules that were attempted.
fn expected_tokens(positives: &[Rule]) -> Vec<&'static str> {
    let mut expected: Vec<&str> = positives
        .iter()
        .filter(|r| **r != Rule::infix)
        .map(|r| rule_text(*r))
        .collect();
    // `?` (or the `:` of a conditional) is attempted right after a complete operand sequence:
    // an infix operator or a member access would have been valid there too.
    if positives.contains(&Rule::question) || positives.contains(&Rule::else_colon) {
        expected.extend(OPERATOR_TEXTS);
        expected.extend(["'.'", "'['"]);
    } else if positives.contains(&Rule::infix) {
        expected.extend(OPERATOR_TEXTS);
    }
    // An operand was expected: name it once instead of listing its bracket forms.
    let operand_starts = [Rule::lparen, Rule::lbracket, Rule::lbrace];
    if operand_starts.iter().all(|r| positives.contains(r)) {
        expected.retain(|e| !matches!(*e, "'('" | "'['" | "'{'"));
        expected.push("expression");
    }
    expected
}

/// The token at `pos`, quoted as ANTLR shows it (`'<EOF>'` at the end).
fn found_token(source: &str, pos: usize) -> String {
    let rest = source.get(pos..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return "'<EOF>'".into();
    };
    let token: &str = if c.is_ascii_alphanumeric() || c == '_' {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        &rest[..end]
    } else {
        const TWO: [&str; 6] = ["==", "!=", "<=", ">=", "&&", "||"];
        match TWO.iter().find(|t| rest.starts_with(**t)) {
            Some(t) => t,
            None => &rest[..c.len_utf8()],
        }
    };
    format!("'{token}'")
}

/// How a rule is named in "expecting {...}" lists.
fn rule_text(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "<EOF>",
        Rule::neg_ops | Rule::minus => "'-'",
        Rule::not_ops => "'!'",
        Rule::question | Rule::optional => "'?'",
        Rule::dot | Rule::leading_dot => "'.'",
        Rule::lbracket => "'['",
        Rule::rbracket => "']'",
        Rule::lparen => "'('",
        Rule::rparen => "')'",
        Rule::lbrace => "'{'",
        Rule::rbrace => "'}'",
        Rule::comma => "','",
        Rule::colon | Rule::else_colon => "':'",
        Rule::ident | Rule::escaped_ident => "IDENTIFIER",
        Rule::num_int => "NUM_INT",
        Rule::num_uint => "NUM_UINT",
        Rule::num_double => "NUM_FLOAT",
        Rule::number => "number",
        Rule::string_lit => "STRING",
        Rule::bytes_lit => "BYTES",
        Rule::bool_true => "'true'",
        Rule::bool_false => "'false'",
        Rule::null => "'null'",
        _ => "expression",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{ACCUMULATOR, Expr, ExprKind, Literal};
    use std::collections::HashSet;

    /// Renders a tree as an S-expression, to assert shapes compactly.
    fn sexpr(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Literal(l) => match l {
                Literal::Null => "null".into(),
                Literal::Bool(b) => b.to_string(),
                Literal::Int(i) => i.to_string(),
                Literal::Uint(u) => format!("{u}u"),
                Literal::Double(d) => format!("{d:?}"),
                Literal::String(s) => format!("{s:?}"),
                Literal::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(b)),
            },
            ExprKind::Ident(n) => n.to_string(),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                let head = if *test_only { "has" } else { "." };
                format!("({head} {} {field})", sexpr(operand))
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                let mut out = match target {
                    Some(t) => format!("(.{function} {}", sexpr(t)),
                    None => format!("({function}"),
                };
                for a in args {
                    out.push(' ');
                    out.push_str(&sexpr(a));
                }
                out.push(')');
                out
            }
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let parts: Vec<String> = elements
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let q = if optional_indices.contains(&i) {
                            "?"
                        } else {
                            ""
                        };
                        format!("{q}{}", sexpr(e))
                    })
                    .collect();
                format!("[{}]", parts.join(" "))
            }
            ExprKind::Map { entries } => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|e| {
                        let q = if e.optional { "?" } else { "" };
                        format!("{q}{}: {}", sexpr(&e.key), sexpr(&e.value))
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            ExprKind::Struct { type_name, fields } => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        let q = if f.optional { "?" } else { "" };
                        format!("{q}{}: {}", f.field, sexpr(&f.value))
                    })
                    .collect();
                format!("{type_name}{{{}}}", parts.join(", "))
            }
            ExprKind::Comprehension(c) => format!(
                "(fold {} {} {} {} {} {} {})",
                c.iter_var,
                sexpr(&c.iter_range),
                c.accu_var,
                sexpr(&c.accu_init),
                sexpr(&c.loop_condition),
                sexpr(&c.loop_step),
                sexpr(&c.result)
            ),
        }
    }

    fn p(src: &str) -> Expr {
        match parse(src, &ParseOptions::default()) {
            Ok(e) => e,
            Err(issues) => panic!("{src}: {issues}"),
        }
    }

    fn s(src: &str) -> String {
        sexpr(&p(src))
    }

    fn err(src: &str) -> String {
        match parse(src, &ParseOptions::default()) {
            Ok(e) => panic!("{src}: expected an error, got {}", sexpr(&e)),
            Err(issues) => issues.to_string(),
        }
    }

    fn lit(src: &str) -> Literal {
        match p(src).kind {
            ExprKind::Literal(l) => l,
            other => panic!("{src}: not a literal: {other:?}"),
        }
    }

    #[test]
    fn number_literals() {
        assert_eq!(lit("0"), Literal::Int(0));
        assert_eq!(lit("123"), Literal::Int(123));
        assert_eq!(lit("0x1F"), Literal::Int(31));
        assert_eq!(lit("-1"), Literal::Int(-1));
        assert_eq!(lit("-9223372036854775808"), Literal::Int(i64::MIN));
        assert_eq!(lit("9223372036854775807"), Literal::Int(i64::MAX));
        assert_eq!(lit("-0x10"), Literal::Int(-16));
        assert_eq!(lit("1u"), Literal::Uint(1));
        assert_eq!(lit("0xFFU"), Literal::Uint(255));
        assert_eq!(lit("18446744073709551615u"), Literal::Uint(u64::MAX));
        assert_eq!(lit("1.5"), Literal::Double(1.5));
        assert_eq!(lit(".5"), Literal::Double(0.5));
        assert_eq!(lit("1e10"), Literal::Double(1e10));
        assert_eq!(lit("1.5e-3"), Literal::Double(1.5e-3));
        assert_eq!(lit("2E+2"), Literal::Double(200.0));
        assert_eq!(lit("-2.5"), Literal::Double(-2.5));
        assert_eq!(lit("- 3"), Literal::Int(-3));
        assert_eq!(s("-1u"), "(-_ 1u)");
        assert_eq!(s("---1"), "(-_ 1)");
        assert_eq!(s("-1.5.foo()"), "(.foo -1.5)");
    }

    #[test]
    fn number_literal_errors() {
        assert!(err("9223372036854775808").contains("invalid int literal"));
        assert!(err("--9223372036854775808").contains("invalid int literal"));
        assert!(err("18446744073709551616u").contains("invalid uint literal"));
        assert!(err("1e999").contains("invalid double literal"));
        assert!(err("1.").contains("Syntax error"));
        // As in cel-go, `1.e5` is the int 1 with a field `e5` selected.
        assert_eq!(s("1.e5"), "(. 1 e5)");
        assert!(err("0x").contains("Syntax error"));
        // As in cel-go, only a lowercase `0x` starts a hex literal.
        assert!(err("0X1F").contains("Syntax error"));
    }

    #[test]
    fn keyword_literals() {
        assert_eq!(lit("true"), Literal::Bool(true));
        assert_eq!(lit("false"), Literal::Bool(false));
        assert_eq!(lit("null"), Literal::Null);
        assert_eq!(s("trueish"), "trueish");
        assert_eq!(s("nullable || inner"), "(_||_ nullable inner)");
    }

    #[test]
    fn string_and_bytes_literals() {
        let cases: &[(&str, &str)] = &[
            ("'hello'", "hello"),
            ("\"hello\"", "hello"),
            ("'''hello'''", "hello"),
            ("\"\"\"hello\"\"\"", "hello"),
            (r#"' \\ \? \" \' \` '"#, " \\ ? \" ' ` "),
            ("''' ? \" ' ` '''", " ? \" ' ` "),
            (r"' \a \b \f \t \v '", " \u{7} \u{8} \u{c} \t \u{b} "),
            (r"' \r\n '", " \r\n "),
            ("''' \n '''", " \n "),
            (r"' \000 \012 \177 '", " \0 \n \u{7f} "),
            (r"' \x00 \x0A \X7F '", " \0 \n \u{7f} "),
            (
                r"' \u0000 \u000A \u007F \u0100 \uFFFB '",
                " \0 \n \u{7f} \u{100} \u{fffb} ",
            ),
            (r"' \U0001F62C \U00088888 '", " \u{1f62c} \u{88888} "),
            (
                r"' \x4a \x4B \X4c \X4D \u01aB \U000001aB '",
                " J K L M \u{1ab} \u{1ab} ",
            ),
            (
                r#"r' \\ \? \" \` \a \n \000 \x00 \u0000 '"#,
                r#" \\ \? \" \` \a \n \000 \x00 \u0000 "#,
            ),
            (r#"R""" \" \' """"#, r#" \" \' "#),
            ("'// not a comment'", "// not a comment"),
        ];
        for (src, want) in cases {
            assert_eq!(lit(src), Literal::String((*want).into()), "{src}");
        }
        let bytes: &[(&str, &[u8])] = &[
            ("b'hello'", b"hello"),
            ("B\"hello\"", b"hello"),
            ("b'''hi'''", b"hi"),
            (r"b' \000 \012 \177 \377 '", b" \x00 \n \x7f \xff "),
            (r"b' \x00 \x0A \x7F \xFF '", b" \x00 \n \x7f \xff "),
            ("b'\u{ff}'", &[0xc3, 0xbf]),
            (r"br'\x00'", b"\\x00"),
            (r#"Rb"\n""#, b"\\n"),
            (r"bR'''\a'''", b"\\a"),
        ];
        for (src, want) in bytes {
            assert_eq!(lit(src), Literal::Bytes((*want).into()), "{src}");
        }
    }

    #[test]
    fn string_literal_errors() {
        let e = err(r"'abc\q'");
        assert!(
            e.contains("ERROR: <input>:1:1: unable to unescape string"),
            "{e}"
        );
        assert!(err(r"b'\u0041'").contains("unable to unescape string"));
        assert!(err(r"'\uD800'").contains("invalid unicode code point"));
        assert!(err(r"'\U00110000'").contains("invalid unicode code point"));
        assert!(err("'unterminated").contains("Syntax error"));
        assert!(err("'line\nbreak'").contains("Syntax error"));
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(s("1 + 2 * 3"), "(_+_ 1 (_*_ 2 3))");
        assert_eq!(s("(1 + 2) * 3"), "(_*_ (_+_ 1 2) 3)");
        assert_eq!(s("1 - 2 - 3"), "(_-_ (_-_ 1 2) 3)");
        assert_eq!(s("8 / 4 % 3 * 2"), "(_*_ (_%_ (_/_ 8 4) 3) 2)");
        assert_eq!(s("a < b == c"), "(_==_ (_<_ a b) c)");
        assert_eq!(s("a in b in c"), "(@in (@in a b) c)");
        assert_eq!(s("a + b < c * d"), "(_<_ (_+_ a b) (_*_ c d))");
        assert_eq!(s("a || b && c || d"), "(_||_ (_||_ a (_&&_ b c)) d)");
        assert_eq!(s("a || b"), "(_||_ a b)");
        assert_eq!(s("a || b || c"), "(_||_ (_||_ a b) c)");
        assert_eq!(
            s("a && b && c && d && e"),
            "(_&&_ (_&&_ (_&&_ a b) c) (_&&_ d e))"
        );
        assert_eq!(
            s("a == 1 || b < 2 && c"),
            "(_||_ (_==_ a 1) (_&&_ (_<_ b 2) c))"
        );
        assert_eq!(s("a && b == c"), "(_&&_ a (_==_ b c))");
        assert_eq!(
            s("a <= b >= c > d != e"),
            "(_!=_ (_>_ (_>=_ (_<=_ a b) c) d) e)"
        );
        assert_eq!(s("a ? b : c"), "(_?_:_ a b c)");
        assert_eq!(s("a ? b : c ? d : e"), "(_?_:_ a b (_?_:_ c d e))");
        assert_eq!(s("a || b ? c || d : e"), "(_?_:_ (_||_ a b) (_||_ c d) e)");
        assert_eq!(s("a ? (b ? c : d) : e"), "(_?_:_ a (_?_:_ b c d) e)");
        assert_eq!(s("-a + b"), "(_+_ (-_ a) b)");
        assert_eq!(s("!a && b"), "(_&&_ (!_ a) b)");
        assert_eq!(s("a - -1"), "(_-_ a -1)");
        assert_eq!(s("a-1"), "(_-_ a 1)");
        assert_eq!(s("-a.b"), "(-_ (. a b))");
    }

    #[test]
    fn unary_runs_cancel() {
        assert_eq!(s("!!true"), "true");
        assert_eq!(s("!!!true"), "(!_ true)");
        assert_eq!(s("--19"), "19");
        assert_eq!(s("--x"), "x");
        assert_eq!(s("---x"), "(-_ x)");
        assert_eq!(s("! ! !x"), "(!_ x)");
        assert_eq!(s("!-1"), "(!_ -1)");
        assert_eq!(s("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!true"), "true");
        assert_eq!(s("--------------------------------19"), "19");
    }

    #[test]
    fn members_and_calls() {
        assert_eq!(s("a.b.c"), "(. (. a b) c)");
        assert_eq!(s("a.?b"), "(_?._ a \"b\")");
        assert_eq!(s("a[0][?1]"), "(_[?_] (_[_] a 0) 1)");
        assert_eq!(s("a.f(1, 2)"), "(.f a 1 2)");
        assert_eq!(s("f()"), "(f)");
        assert_eq!(s(".f(x)"), "(.f x)");
        assert_eq!(s(".x.y"), "(. .x y)");
        assert_eq!(s("a.`b-c`"), "(. a b-c)");
        assert_eq!(s("a.`b.c/d e`"), "(. a b.c/d e)");
        assert_eq!(s("a.?`b-c`"), "(_?._ a \"b-c\")");
        assert!(err("`b-c`").contains("Syntax error"));
        assert!(err("f(1,)").contains("Syntax error"));
    }

    #[test]
    fn aggregate_literals() {
        assert_eq!(s("[]"), "[]");
        assert_eq!(s("[1, 2,]"), "[1 2]");
        assert_eq!(s("[1, ?a]"), "[1 ?a]");
        assert_eq!(s("{}"), "{}");
        assert_eq!(s("{1: 2, ?'a': b,}"), "{1: 2, ?\"a\": b}");
        assert_eq!(s("Msg{}"), "Msg{}");
        // cel-go's grammar (parser/gen/CEL.g4, `CreateList`, `CreateStruct`, `CreateMessage`):
        // the trailing `','?` stands outside the optional initializer list, so a lone comma
        // is an empty literal.
        assert_eq!(s("[,]"), "[]");
        assert_eq!(s("{,}"), "{}");
        assert_eq!(s("Msg{,}"), "Msg{}");
        assert!(err("{,,}").contains("Syntax error"));
        assert!(err("[1,,]").contains("Syntax error"));
        assert_eq!(s("a.b.Msg{f: 1, ?g: 2,}"), "a.b.Msg{f: 1, ?g: 2}");
        assert_eq!(s(".a.Msg{`f-g`: 1}"), ".a.Msg{f-g: 1}");
        assert_eq!(s("Msg{f: 1}.f"), "(. Msg{f: 1} f)");
    }

    #[test]
    fn whitespace_and_comments() {
        assert_eq!(s(" a\t+\n\r\x0Cb // comment\n"), "(_+_ a b)");
        assert_eq!(s("a // c1\n + // c2\n b"), "(_+_ a b)");
        assert_eq!(s("!// c\n!x"), "x");
    }

    #[test]
    fn reserved_identifiers() {
        for word in RESERVED {
            let e = err(word);
            assert!(e.contains(&format!("reserved identifier: {word}")), "{e}");
            let e = err(&format!("{word}(1)"));
            assert!(e.contains(&format!("reserved identifier: {word}")), "{e}");
            assert_eq!(s(&format!("a.{word}")), format!("(. a {word})"));
            assert_eq!(s(&format!("a.{word}()")), format!("(.{word} a)"));
            assert_eq!(s(&format!("M{{{word}: 1}}")), format!("M{{{word}: 1}}"));
        }
        assert!(err("in").contains("Syntax error"));
        assert!(err("1 + .if").starts_with("ERROR: <input>:1:5: reserved identifier: if"));
        assert!(err("1 + .if(2)").starts_with("ERROR: <input>:1:5: reserved identifier: if"));
        assert_eq!(s("a.if"), "(. a if)");
        assert_eq!(s(".a.while"), "(. .a while)");
    }

    #[test]
    fn macros_expand_like_cel_go() {
        let a = ACCUMULATOR;
        assert_eq!(s("has(a.b)"), "(has a b)");
        assert_eq!(
            s("r.all(x, p)"),
            format!("(fold x r {a} true (@not_strictly_false {a}) (_&&_ {a} p) {a})")
        );
        assert_eq!(
            s("r.exists(x, p)"),
            format!("(fold x r {a} false (@not_strictly_false (!_ {a})) (_||_ {a} p) {a})")
        );
        assert_eq!(s("r.existsOne(x, p)"), s("r.exists_one(x, p)"));
        assert_eq!(
            s("r.exists_one(x, p)"),
            format!("(fold x r {a} 0 true (_?_:_ p (_+_ {a} 1) {a}) (_==_ {a} 1))")
        );
        assert_eq!(
            s("r.map(x, t)"),
            format!("(fold x r {a} [] true (_+_ {a} [t]) {a})")
        );
        assert_eq!(
            s("r.map(x, p, t)"),
            format!("(fold x r {a} [] true (_?_:_ p (_+_ {a} [t]) {a}) {a})")
        );
        assert_eq!(
            s("r.filter(x, p)"),
            format!("(fold x r {a} [] true (_?_:_ p (_+_ {a} [x]) {a}) {a})")
        );
        // Not macros: wrong arity or style.
        assert_eq!(s("has(a.b, c)"), "(has (. a b) c)");
        assert_eq!(s("r.has(a.b)"), "(.has r (. a b))");
        assert_eq!(s("all(x, p)"), "(all x p)");
        assert_eq!(s("r.all(x)"), "(.all r x)");
    }

    #[test]
    fn macro_errors() {
        let e = err("has(a)");
        assert!(
            e.contains("ERROR: <input>:1:5: invalid argument to has() macro"),
            "{e}"
        );
        let e = err("r.all(x.y, p)");
        assert!(
            e.contains("ERROR: <input>:1:8: argument must be a simple name"),
            "{e}"
        );
        assert!(err("r.exists(@result, p)").starts_with("ERROR"));
        // cel-go's `parser/parser_test.go` (`testCases`): `map` and `filter` word a
        // non-identifier variable differently from the quantifiers (`MakeMap`, `MakeFilter`
        // vs `makeQuantifier`), and every macro rejects both accumulator names, `@result`
        // and `__result__` (`parser.AccumulatorName`).
        for (src, want) in [
            (
                "1.all(2, 3)",
                "ERROR: <input>:1:7: argument must be a simple name",
            ),
            (
                "r.map(1, p)",
                "ERROR: <input>:1:7: argument is not an identifier",
            ),
            (
                "r.map(1, q, p)",
                "ERROR: <input>:1:7: argument is not an identifier",
            ),
            (
                "m.filter(a.b, false)",
                "ERROR: <input>:1:11: argument is not an identifier",
            ),
            (
                "[].existsOne(__result__, __result__)",
                "ERROR: <input>:1:14: iteration variable overwrites accumulator variable",
            ),
            (
                "m.map(__result__, __result__)",
                "ERROR: <input>:1:7: iteration variable overwrites accumulator variable",
            ),
            (
                "m.filter(__result__, false)",
                "ERROR: <input>:1:10: iteration variable overwrites accumulator variable",
            ),
            (
                "m.all(__result__, true)",
                "ERROR: <input>:1:7: iteration variable overwrites accumulator variable",
            ),
        ] {
            let e = err(src);
            assert!(e.starts_with(want), "{src}: {e}");
        }
    }

    #[test]
    fn two_variable_macros() {
        let a = ACCUMULATOR;
        let options = ParseOptions {
            extra_macros: vec![macros::TWO_VARIABLE],
            ..ParseOptions::default()
        };
        let s2 = |src: &str| match parse(src, &options) {
            Ok(e) => sexpr(&e),
            Err(e) => panic!("{src}: {e}"),
        };
        // sexpr prints only the first variable; check the second separately.
        let e = parse("m.all(k, v, p)", &options).unwrap();
        let ExprKind::Comprehension(c) = &e.kind else {
            panic!("not a comprehension");
        };
        assert_eq!((&*c.iter_var, c.iter_var2.as_deref()), ("k", Some("v")));
        assert_eq!(
            s2("m.all(k, v, p)"),
            format!("(fold k m {a} true (@not_strictly_false {a}) (_&&_ {a} p) {a})")
        );
        assert_eq!(
            s2("m.exists(k, v, p)"),
            format!("(fold k m {a} false (@not_strictly_false (!_ {a})) (_||_ {a} p) {a})")
        );
        let one = format!("(fold k m {a} 0 true (_?_:_ p (_+_ {a} 1) {a}) (_==_ {a} 1))");
        assert_eq!(s2("m.existsOne(k, v, p)"), one);
        assert_eq!(s2("m.exists_one(k, v, p)"), one);
        assert_eq!(
            s2("l.transformList(i, v, t)"),
            format!("(fold i l {a} [] true (_+_ {a} [t]) {a})")
        );
        assert_eq!(
            s2("l.transformList(i, v, f, t)"),
            format!("(fold i l {a} [] true (_?_:_ f (_+_ {a} [t]) {a}) {a})")
        );
        assert_eq!(
            s2("m.transformMap(k, v, t)"),
            format!("(fold k m {a} {{}} true (cel.@mapInsert {a} k t) {a})")
        );
        assert_eq!(
            s2("m.transformMapEntry(k, v, f, t)"),
            format!("(fold k m {a} {{}} true (_?_:_ f (cel.@mapInsert {a} t) {a}) {a})")
        );
        // One-variable macros still work; off by default.
        assert!(s2("l.all(x, p)").starts_with("(fold x l"));
        assert_eq!(s("m.all(k, v, p)"), "(.all m k v p)");
        let e = parse("m.all(k, k, p)", &options).unwrap_err().to_string();
        assert!(e.contains("duplicate variable name: k"), "{e}");
        let e = parse("m.all(k, v.w, p)", &options).unwrap_err().to_string();
        assert!(e.contains("argument must be a simple name"), "{e}");
        let e = parse("m.all(k, @result, p)", &options)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ERROR"), "{e}");
        // cel-go's `ext/comprehensions_test.go`, `TestTwoVarComprehensionsStaticErrors`
        // (`extractIterVars` rejects `__result__` in either position).
        for (src, col) in [
            ("[].all(__result__, i, __result__ < i)", 8),
            ("[].all(j, __result__, __result__ < j)", 11),
            ("{}.transformMapEntry(__result__, v, {v: 1})", 22),
        ] {
            let e = parse(src, &options).unwrap_err().to_string();
            let want = format!(
                "ERROR: <input>:1:{col}: iteration variable overwrites accumulator variable"
            );
            assert!(e.starts_with(&want), "{src}: {e}");
        }
    }

    #[test]
    fn optional_syntax_can_be_disabled() {
        let options = ParseOptions {
            optional_syntax: false,
            ..ParseOptions::default()
        };
        let e = |src: &str| parse(src, &options).unwrap_err().to_string();
        assert!(e("a.?b").starts_with("ERROR: <input>:1:2: unsupported syntax '.?'"));
        assert!(e("a[?b]").starts_with("ERROR: <input>:1:2: unsupported syntax '[?'"));
        assert!(e("[?a]").starts_with("ERROR: <input>:1:2: unsupported syntax '?'"));
        assert!(e("{?a: b}").starts_with("ERROR: <input>:1:2: unsupported syntax '?'"));
        assert!(e("M{?a: b}").starts_with("ERROR: <input>:1:3: unsupported syntax '?'"));
        assert!(parse("a.b[c] ? [d] : {e: f}", &options).is_ok());
    }

    #[test]
    fn macros_can_be_disabled() {
        let options = ParseOptions {
            macros: false,
            ..ParseOptions::default()
        };
        let e = parse("r.all(x, p) && has(a.b)", &options).unwrap();
        assert_eq!(sexpr(&e), "(_&&_ (.all r x p) (has (. a b)))");
    }

    #[test]
    fn ids_are_unique_and_positive() {
        for src in [
            "a.b.c + f(1, 2)[0] ? [1, ?x] : {1: 2}.size()",
            "r.map(x, x * 2).filter(y, y > 1).exists_one(z, has(z.w))",
            "M{a: 1, b: [2]}",
        ] {
            let e = p(src);
            let mut seen = HashSet::new();
            e.walk(|n| {
                assert!(n.id > 0);
                assert!(seen.insert(n.id), "{src}: duplicate id {}", n.id);
            });
            if let ExprKind::Struct { fields, .. } = &e.kind {
                for f in fields {
                    assert!(seen.insert(f.id));
                }
            }
        }
    }

    /// The span start of the root node.
    fn anchor(src: &str) -> usize {
        p(src).span.start as usize
    }

    #[test]
    fn anchor_spans() {
        assert_eq!(anchor("a + b"), 2);
        assert_eq!(anchor("a ? b : c"), 2);
        assert_eq!(anchor("a.b"), 1);
        assert_eq!(anchor("a.f(x)"), 3);
        assert_eq!(anchor("f (x)"), 2);
        assert_eq!(anchor("a[0]"), 1);
        assert_eq!(anchor("  [1]"), 2);
        assert_eq!(anchor(" {1: 2}"), 1);
        assert_eq!(anchor("M {a: 1}"), 2);
        assert_eq!(anchor("  !x"), 2);
        assert_eq!(anchor(" -x"), 1);
        assert_eq!(anchor(" abc"), 1);
        assert_eq!(anchor("  'abc'"), 2);
        assert_eq!(anchor("x.all(y, y)"), 5);
        let e = p("ab");
        assert_eq!(e.span, Span::new(0, 2));
    }

    #[test]
    fn syntax_error_messages() {
        let e = err("a + ");
        assert!(
            e.starts_with("ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting"),
            "{e}"
        );
        let e = err("f(1))");
        assert!(
            e.starts_with("ERROR: <input>:1:5: Syntax error: mismatched input ')'"),
            "{e}"
        );
        assert!(e.contains("<EOF>"), "{e}");
        assert!(
            e.contains("'+'") && e.contains("'?'") && e.contains("'.'"),
            "{e}"
        );
        let e = err("a ? b");
        assert!(e.contains("':'") && e.contains("'||'"), "{e}");
        let e = err("a + ");
        assert!(
            e.ends_with("expecting {expression}\n | a + \n | ....^"),
            "{e}"
        );
        let e = err("a\n  + * b");
        assert!(e.starts_with("ERROR: <input>:2:5: Syntax error"), "{e}");
        assert!(err("").contains("Syntax error"));
        let e = err("a # b");
        assert!(
            e.starts_with("ERROR: <input>:1:3: Syntax error: token recognition error at: '#'"),
            "{e}"
        );
        let e = err("x + 'abc");
        assert!(
            e.starts_with("ERROR: <input>:1:5: Syntax error: token recognition error at: ''abc'"),
            "{e}"
        );
        let e = err("é");
        assert!(e.contains("token recognition error at: 'é'"), "{e}");
    }

    #[test]
    fn code_point_limit() {
        let options = ParseOptions {
            max_code_points: 5,
            ..ParseOptions::default()
        };
        let e = parse("'ééééé'", &options).unwrap_err().to_string();
        assert!(
            e.contains("expression code point size exceeds limit: size: 7, limit 5"),
            "{e}"
        );
        assert!(parse("'éé'", &options).is_ok());
    }

    fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn nesting_at_the_limit_parses() {
        // Runs on the default test thread stack, in debug builds too.
        for (open, close) in [
            ("(", ")"),
            ("[", "]"),
            ("[?", "]"),
            ("f(", ")"),
            (".f(", ")"),
            ("a.f(", ")"),
            ("{1: ", "}"),
            ("{?1: ", "}"),
            ("M{f: ", "}"),
            ("a[", "]"),
            ("a[?", "]"),
            ("-(", ")"),
            ("!(", ")"),
            ("1 + (", ")"),
            ("a && (", ")"),
            ("a ? (", ") : b"),
            ("a ? b : (", ")"),
            ("x.all(y, ", ")"),
            ("x.map(y, y, ", ")"),
        ] {
            let src = nested(open, "1", close, 250);
            let result = parse(&src, &ParseOptions::default());
            assert!(
                result.is_ok(),
                "{open}: {}",
                result.unwrap_err().diagnostics[0].message()
            );
        }
        let chain = format!("a{}", ".b".repeat(250));
        assert!(parse(&chain, &ParseOptions::default()).is_ok());
        let sum = vec!["1"; 251].join(" + ");
        assert!(parse(&sum, &ParseOptions::default()).is_ok());
    }

    #[test]
    fn deep_inputs_fail_cleanly() {
        for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("f(", ")")] {
            assert_depth_error(&nested(open, "1", close, 251));
            assert_depth_error(&nested(open, "1", close, 99_000 / (open.len() + 1)));
        }
        // Unbalanced and string-hidden brackets.
        assert_depth_error(&"(".repeat(100_000));
        assert!(parse(&format!("'{}'", "(".repeat(1000)), &ParseOptions::default()).is_ok());
    }

    fn assert_depth_error(src: &str) {
        let e = err(src);
        assert!(
            e.contains("max recursion depth exceeded"),
            "{}",
            &e[..e.len().min(200)]
        );
    }

    #[test]
    fn long_member_chains_fail_cleanly() {
        assert_depth_error(&format!("a{}", ".b".repeat(251)));
        // Close to the code point limit: pest iterates, the builder stops at depth 251.
        assert_depth_error(&format!("a{}", ".b".repeat(49_999)));
        assert_depth_error(&format!("a{}", ".f()".repeat(5_000)));
        assert_depth_error(&format!("a{}", "[0]".repeat(5_000)));
    }

    #[test]
    fn long_operator_chains_fail_cleanly() {
        assert_depth_error(&vec!["1"; 252].join("+"));
        assert_depth_error(&vec!["1"; 20_000].join("+"));
        assert_depth_error(&(vec!["a ? b"; 3_000].join(" : ") + " : c"));
        // Logical chains are balanced, as in cel-go, so long ones stay shallow.
        assert!(parse(&vec!["a"; 10_000].join("||"), &ParseOptions::default()).is_ok());
        assert!(parse(&vec!["a"; 10_000].join("&&"), &ParseOptions::default()).is_ok());
    }

    #[test]
    fn long_unary_runs_do_not_recurse() {
        assert_eq!(s(&format!("{}x", "-".repeat(99_998))), "x");
        assert_eq!(s(&format!("{}x", "!".repeat(99_999))), "(!_ x)");
    }

    #[test]
    fn custom_depth_limit() {
        let options = ParseOptions {
            max_recursion_depth: 3,
            ..ParseOptions::default()
        };
        assert!(parse("[[[1]]]", &options).is_ok());
        assert!(parse("[[[[1]]]]", &options).is_err());
        assert!(parse("a.b.c.d", &options).is_ok());
        assert!(parse("a.b.c.d.e", &options).is_err());
    }
}

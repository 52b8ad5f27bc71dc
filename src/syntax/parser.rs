//! Parses CEL source text into an [`Expr`].
//!
//! The pest grammar (`grammar/cel.pest`) is flat: an expression is a sequence of operands
//! and infix operators, and only brackets make pest recurse. This module folds the sequence
//! into a tree by precedence climbing, decodes literals, checks reserved words, expands
//! macros and enforces the limits (input size, nesting depth) without ever recursing more
//! than the bracket nesting depth, which is checked before pest runs.

use std::sync::Arc;

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use crate::error::{Diagnostic, Issues};
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
    /// Expand macros (`has`, `all`, `exists`, ...).
    pub macros: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_recursion_depth: 250,
            max_code_points: 100_000,
            macros: true,
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

const DEPTH_MESSAGE: &str = "max recursion depth exceeded";

/// Parses `source` into an expression tree with node ids and spans, macros expanded.
pub fn parse(source: &str, options: &ParseOptions) -> Result<Expr, Issues> {
    let size = source.chars().count();
    if size > options.max_code_points {
        return Err(Issues::single(
            source,
            Span::new(0, 0),
            format!(
                "expression code point size exceeds limit: size: {size}, limit {}",
                options.max_code_points
            ),
        ));
    }
    if let Some(pos) = bracket_depth_exceeded(source, options.max_recursion_depth) {
        return Err(Issues::single(
            source,
            Span::new(pos, pos + 1),
            DEPTH_MESSAGE,
        ));
    }
    let mut pairs = match CelGrammar::parse(Rule::start, source) {
        Ok(pairs) => pairs,
        Err(err) => return Err(syntax_error(source, &err)),
    };
    let mut builder = Builder {
        options,
        macros: if options.macros {
            macros::STANDARD
        } else {
            &[]
        },
        depths: vec![0],
        diagnostics: Vec::new(),
    };
    let expr = pairs
        .next()
        .and_then(|start| start.into_inner().next())
        .ok_or(Abort)
        .and_then(|expr| builder.expr(expr));
    match expr {
        Ok(expr) if builder.diagnostics.is_empty() => Ok(expr),
        _ => {
            if builder.diagnostics.is_empty() {
                builder.error(Span::new(0, 0), "Syntax error: malformed expression");
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

/// Marks that building stopped after a fatal error (already recorded as a diagnostic).
#[derive(Debug)]
struct Abort;

type Built = Result<Expr, Abort>;

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

/// Punctuation rules exist only to name them in syntax errors; the builder skips them.
fn is_punctuation(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::rparen | Rule::rbracket | Rule::rbrace | Rule::comma | Rule::colon
    )
}

/// Inner pairs of `pair`, without punctuation.
fn children<'i>(pair: Pair<'i, Rule>) -> impl Iterator<Item = Pair<'i, Rule>> {
    pair.into_inner().filter(|p| !is_punctuation(p.as_rule()))
}

/// Builds the AST from pest's pairs: ids, spans, depth accounting, macros.
struct Builder<'a> {
    options: &'a ParseOptions,
    macros: &'static [macros::Macro],
    /// Nesting depth of every node so far, indexed by id (index 0 is unused).
    depths: Vec<u32>,
    diagnostics: Vec<Diagnostic>,
}

impl Builder<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            message: message.into(),
            span,
        });
    }

    /// Takes the next pair, or records an internal error (the grammar guarantees it exists).
    fn take<'i>(
        &mut self,
        it: &mut impl Iterator<Item = Pair<'i, Rule>>,
        at: Span,
    ) -> Result<Pair<'i, Rule>, Abort> {
        match it.next() {
            Some(p) => Ok(p),
            None => {
                self.error(at, "Syntax error: incomplete expression");
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
            self.error(span, DEPTH_MESSAGE);
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

    /// `expr: cond_or (? cond_or : cond_or)*`, folded to the right.
    fn expr(&mut self, pair: Pair<'_, Rule>) -> Built {
        let at = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, at)?;
        let mut current = self.cond_or(first)?;
        let mut pending = Vec::new();
        while let Some(question) = it.next() {
            let then = self.take(&mut it, at)?;
            let then = self.cond_or(then)?;
            let otherwise = self.take(&mut it, at)?;
            let otherwise = self.cond_or(otherwise)?;
            pending.push((current, span_of(&question), then));
            current = otherwise;
        }
        while let Some((cond, span, then)) = pending.pop() {
            current = self.call_node(span, op::CONDITIONAL, vec![cond, then, current])?;
        }
        Ok(current)
    }

    /// `cond_or: unary (infix unary)*`, folded by precedence (all binary operators are
    /// left-associative).
    fn cond_or(&mut self, pair: Pair<'_, Rule>) -> Built {
        let at = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, at)?;
        let mut operands = vec![self.unary(first)?];
        let mut ops: Vec<(u8, &'static str, Span)> = Vec::new();
        while let Some(op_pair) = it.next() {
            let (prec, name) = binary_operator(op_pair.as_rule());
            let span = span_of(&op_pair);
            while ops.last().is_some_and(|&(p, _, _)| p >= prec) {
                self.reduce(&mut operands, &mut ops)?;
            }
            ops.push((prec, name, span));
            let rhs = self.take(&mut it, at)?;
            operands.push(self.unary(rhs)?);
        }
        while !ops.is_empty() {
            self.reduce(&mut operands, &mut ops)?;
        }
        match operands.pop() {
            Some(e) if operands.is_empty() => Ok(e),
            _ => {
                self.error(at, "Syntax error: malformed operator sequence");
                Err(Abort)
            }
        }
    }

    fn reduce(
        &mut self,
        operands: &mut Vec<Expr>,
        ops: &mut Vec<(u8, &'static str, Span)>,
    ) -> Result<(), Abort> {
        let (Some((_, name, span)), Some(rhs), Some(lhs)) =
            (ops.pop(), operands.pop(), operands.pop())
        else {
            self.error(Span::new(0, 0), "Syntax error: malformed operator sequence");
            return Err(Abort);
        };
        let e = self.call_node(span, name, vec![lhs, rhs])?;
        operands.push(e);
        Ok(())
    }

    /// `unary: member | !+ member | -+ member`; an even run of operators cancels out.
    fn unary(&mut self, pair: Pair<'_, Rule>) -> Built {
        let at = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, at)?;
        let (function, symbol) = match first.as_rule() {
            Rule::not_ops => (op::LOGICAL_NOT, '!'),
            Rule::neg_ops => (op::NEGATE, '-'),
            _ => return self.member(first),
        };
        let count = count_operators(first.as_str(), symbol);
        let op_span = Span::new(at.start as usize, at.start as usize + 1);
        let operand = self.take(&mut it, at)?;
        let operand = self.member(operand)?;
        if count % 2 == 0 {
            Ok(operand)
        } else {
            self.call_node(op_span, function, vec![operand])
        }
    }

    /// `member: primary postfix*`, built iteratively.
    fn member(&mut self, pair: Pair<'_, Rule>) -> Built {
        let at = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, at)?;
        let mut e = self.primary(first)?;
        for postfix in it {
            let rule = postfix.as_rule();
            let pspan = span_of(&postfix);
            let mut parts = children(postfix);
            let anchor = self.take(&mut parts, pspan)?;
            let anchor_span = span_of(&anchor);
            e = match rule {
                Rule::select => {
                    let field = self.take(&mut parts, pspan)?;
                    self.node(
                        anchor_span,
                        ExprKind::Select {
                            operand: Box::new(e),
                            field: field_name(&field),
                            test_only: false,
                        },
                    )?
                }
                Rule::opt_select => {
                    let field = self.take(&mut parts, pspan)?;
                    let name = self.node(
                        span_of(&field),
                        ExprKind::Literal(Literal::String(field_name(&field))),
                    )?;
                    self.call_node(anchor_span, op::OPT_SELECT, vec![e, name])?
                }
                Rule::member_call => {
                    let name = self.take(&mut parts, pspan)?;
                    let args = self.take(&mut parts, pspan)?;
                    let (lparen, args) = self.call_args(args)?;
                    self.call(lparen, Some(e), name.as_str(), args)?
                }
                Rule::index | Rule::opt_index => {
                    let index = self.take(&mut parts, pspan)?;
                    let index = self.expr(index)?;
                    let function = if rule == Rule::index {
                        op::INDEX
                    } else {
                        op::OPT_INDEX
                    };
                    self.call_node(anchor_span, function, vec![e, index])?
                }
                _ => {
                    self.error(pspan, "Syntax error: unexpected member access");
                    return Err(Abort);
                }
            };
        }
        Ok(e)
    }

    /// `( args )`: returns the span of `(` and the argument expressions.
    fn call_args(&mut self, pair: Pair<'_, Rule>) -> Result<(Span, Vec<Expr>), Abort> {
        let at = span_of(&pair);
        let mut it = children(pair);
        let lparen = self.take(&mut it, at)?;
        let mut args = Vec::new();
        for arg in it {
            args.push(self.expr(arg)?);
        }
        Ok((span_of(&lparen), args))
    }

    /// A global or receiver call, expanded when it names a macro.
    fn call(&mut self, span: Span, target: Option<Expr>, function: &str, args: Vec<Expr>) -> Built {
        let style = if target.is_some() {
            Style::Receiver
        } else {
            Style::Global
        };
        if let Some(m) = macros::find(self.macros, function, style, args.len()) {
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
                    self.error(err.span, err.message);
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

    fn primary(&mut self, pair: Pair<'_, Rule>) -> Built {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::number => self.number(pair),
            Rule::string_lit => match literal::decode_string(pair.as_str()) {
                Ok(s) => self.node(span, ExprKind::Literal(Literal::String(s.into()))),
                Err(e) => self.literal_error(span, e),
            },
            Rule::bytes_lit => match literal::decode_bytes(pair.as_str()) {
                Ok(b) => self.node(span, ExprKind::Literal(Literal::Bytes(b.into()))),
                Err(e) => self.literal_error(span, e),
            },
            Rule::bool_true => self.node(span, ExprKind::Literal(Literal::Bool(true))),
            Rule::bool_false => self.node(span, ExprKind::Literal(Literal::Bool(false))),
            Rule::null => self.node(span, ExprKind::Literal(Literal::Null)),
            Rule::ident_expr => {
                let (dot, ident) = self.dotted_ident(pair)?;
                let ispan = span_of(&ident);
                if self.reserved(ident.as_str(), ispan) {
                    return self.placeholder(ispan);
                }
                let name = format!("{dot}{}", ident.as_str());
                self.node(ispan, ExprKind::Ident(name.into()))
            }
            Rule::global_call => {
                let mut it = children(pair);
                let mut first = self.take(&mut it, span)?;
                let dot = if first.as_rule() == Rule::leading_dot {
                    first = self.take(&mut it, span)?;
                    "."
                } else {
                    ""
                };
                let args = self.take(&mut it, span)?;
                let (lparen, args) = self.call_args(args)?;
                if self.reserved(first.as_str(), span_of(&first)) {
                    return self.placeholder(lparen);
                }
                let name = format!("{dot}{}", first.as_str());
                self.call(lparen, None, &name, args)
            }
            Rule::message => self.message(pair),
            Rule::paren => {
                let mut it = children(pair);
                let _lparen = self.take(&mut it, span)?;
                let inner = self.take(&mut it, span)?;
                self.expr(inner)
            }
            Rule::list => {
                let mut it = children(pair);
                let lbracket = self.take(&mut it, span)?;
                let mut elements = Vec::new();
                let mut optional_indices = Vec::new();
                for elem in it {
                    let (optional, value) = self.optional_then(elem)?;
                    if optional {
                        optional_indices.push(elements.len());
                    }
                    elements.push(self.expr(value)?);
                }
                self.node(
                    span_of(&lbracket),
                    ExprKind::List {
                        elements,
                        optional_indices,
                    },
                )
            }
            Rule::map => {
                let mut it = children(pair);
                let lbrace = self.take(&mut it, span)?;
                let mut entries = Vec::new();
                for entry in it {
                    let espan = span_of(&entry);
                    let mut parts = children(entry);
                    let mut first = self.take(&mut parts, espan)?;
                    let optional = first.as_rule() == Rule::optional;
                    if optional {
                        first = self.take(&mut parts, espan)?;
                    }
                    let key = self.expr(first)?;
                    let value = self.take(&mut parts, espan)?;
                    let value = self.expr(value)?;
                    let id = self.alloc(0);
                    entries.push(MapEntry {
                        id,
                        key,
                        value,
                        optional,
                    });
                }
                self.node(span_of(&lbrace), ExprKind::Map { entries })
            }
            _ => {
                self.error(span, "Syntax error: unexpected token");
                Err(Abort)
            }
        }
    }

    /// Splits `[leading_dot] ident` pairs.
    fn dotted_ident<'i>(
        &mut self,
        pair: Pair<'i, Rule>,
    ) -> Result<(&'static str, Pair<'i, Rule>), Abort> {
        let span = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, span)?;
        if first.as_rule() == Rule::leading_dot {
            Ok((".", self.take(&mut it, span)?))
        } else {
            Ok(("", first))
        }
    }

    /// `[?] expr`: whether the element was marked optional, and the expression pair.
    fn optional_then<'i>(&mut self, pair: Pair<'i, Rule>) -> Result<(bool, Pair<'i, Rule>), Abort> {
        let span = span_of(&pair);
        let mut it = children(pair);
        let first = self.take(&mut it, span)?;
        if first.as_rule() == Rule::optional {
            Ok((true, self.take(&mut it, span)?))
        } else {
            Ok((false, first))
        }
    }

    /// Reports a reserved identifier; returns whether it was one.
    fn reserved(&mut self, name: &str, span: Span) -> bool {
        if RESERVED.contains(&name) {
            self.error(span, format!("reserved identifier: {name}"));
            true
        } else {
            false
        }
    }

    /// `[.] a.b.C{field: value, ...}`.
    fn message(&mut self, pair: Pair<'_, Rule>) -> Built {
        let span = span_of(&pair);
        let mut name = String::new();
        let mut brace = span;
        let mut fields = Vec::new();
        for part in children(pair) {
            match part.as_rule() {
                Rule::leading_dot | Rule::dot | Rule::ident => name.push_str(part.as_str()),
                Rule::lbrace => brace = span_of(&part),
                Rule::field_init => {
                    let fspan = span_of(&part);
                    let mut it = children(part);
                    let mut first = self.take(&mut it, fspan)?;
                    let optional = first.as_rule() == Rule::optional;
                    if optional {
                        first = self.take(&mut it, fspan)?;
                    }
                    let field = field_name(&first);
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
    fn number(&mut self, pair: Pair<'_, Rule>) -> Built {
        let span = span_of(&pair);
        let mut negative = false;
        for part in children(pair) {
            let lit = match part.as_rule() {
                Rule::minus => {
                    negative = true;
                    continue;
                }
                Rule::num_int => literal::parse_int(part.as_str(), negative)
                    .map(Literal::Int)
                    .ok_or("invalid int literal"),
                Rule::num_uint => literal::parse_uint(part.as_str())
                    .map(Literal::Uint)
                    .ok_or("invalid uint literal"),
                Rule::num_double => literal::parse_double(part.as_str(), negative)
                    .map(Literal::Double)
                    .ok_or("invalid double literal"),
                _ => Err("invalid number literal"),
            };
            return match lit {
                Ok(lit) => self.node(span, ExprKind::Literal(lit)),
                Err(message) => {
                    self.error(span, message);
                    self.placeholder(span)
                }
            };
        }
        self.error(span, "invalid number literal");
        self.placeholder(span)
    }

    fn literal_error(&mut self, span: Span, e: LiteralError) -> Built {
        let at = span.start as usize + e.offset;
        self.error(Span::new(at, span.end as usize), e.message);
        self.placeholder(span)
    }
}

/// Precedence and function name of a binary operator rule.
fn binary_operator(rule: Rule) -> (u8, &'static str) {
    match rule {
        Rule::op_or => (1, op::LOGICAL_OR),
        Rule::op_and => (2, op::LOGICAL_AND),
        Rule::op_eq => (3, op::EQUALS),
        Rule::op_ne => (3, op::NOT_EQUALS),
        Rule::op_lt => (3, op::LESS),
        Rule::op_le => (3, op::LESS_EQUALS),
        Rule::op_gt => (3, op::GREATER),
        Rule::op_ge => (3, op::GREATER_EQUALS),
        Rule::op_in => (3, op::IN),
        Rule::op_add => (4, op::ADD),
        Rule::op_sub => (4, op::SUBTRACT),
        Rule::op_mul => (5, op::MULTIPLY),
        Rule::op_div => (5, op::DIVIDE),
        // The grammar only produces operator rules here.
        _ => (5, op::MODULO),
    }
}

/// Counts `symbol` in an operator run, ignoring comments between the operators.
fn count_operators(run: &str, symbol: char) -> usize {
    run.split('\n')
        .map(|line| {
            let code = line.find("//").map_or(line, |i| &line[..i]);
            code.chars().filter(|&c| c == symbol).count()
        })
        .sum()
}

/// The name of a field: an identifier, or a backtick-quoted name without its backticks.
fn field_name(pair: &Pair<'_, Rule>) -> Arc<str> {
    let text = pair.as_str();
    match pair.as_rule() {
        Rule::escaped_ident => text
            .strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .unwrap_or(text)
            .into(),
        _ => text.into(),
    }
}

/// Converts a pest error into a cel-go style "Syntax error: ..." diagnostic.
fn syntax_error(source: &str, err: &pest::error::Error<Rule>) -> Issues {
    let pos = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let found = found_token(source, pos);
    let message = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected: Vec<&str> = positives.iter().map(|r| rule_text(*r)).collect();
            expected.sort_unstable();
            expected.dedup();
            if expected.is_empty() {
                format!("Syntax error: unexpected input {found}")
            } else {
                format!(
                    "Syntax error: mismatched input {found} expecting {{{}}}",
                    expected.join(", ")
                )
            }
        }
        ErrorVariant::CustomError { message } => format!("Syntax error: {message}"),
    };
    let end = (pos + 1).min(source.len()).max(pos);
    Issues::single(source, Span::new(pos, end), message)
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
        Rule::op_or => "'||'",
        Rule::op_and => "'&&'",
        Rule::op_eq => "'=='",
        Rule::op_ne => "'!='",
        Rule::op_le => "'<='",
        Rule::op_ge => "'>='",
        Rule::op_lt => "'<'",
        Rule::op_gt => "'>'",
        Rule::op_in => "'in'",
        Rule::op_add => "'+'",
        Rule::op_sub | Rule::neg_ops | Rule::minus => "'-'",
        Rule::op_mul => "'*'",
        Rule::op_div => "'/'",
        Rule::op_mod => "'%'",
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
        Rule::colon => "':'",
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

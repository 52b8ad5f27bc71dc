//! `explain`: why an expression gave its value — the engine's evaluation trace
//! ([`kcel::trace`], reference mode) as a tree of the sub-expressions the user wrote, each
//! with its source range, value (or error) and cost, once per evaluation (a macro's body
//! once per element).

use std::collections::HashSet;

use kcel::Natural;
use kcel::library::syntax::{Expr, ExprId, ExprKind, Span, is_accumulator_name};
use kcel::report::Failure;
use kcel::trace::TraceStep;
use serde_json::{Value as Json, json};
use wasm_bindgen::prelude::*;

use crate::request::{ExpressionRequest, parse_request};
use crate::source_ranges::{children, source_ranges};
use crate::{Rejection, estimate, prepare, respond, type_name};

/// At most this many steps are recorded (a long loop's later iterations are counted in
/// `dropped`).
pub const MAX_STEPS: usize = 5_000;

/// A step's value is shown in CEL syntax, cut at this many characters.
const MAX_VALUE_TEXT: usize = 240;

/// Evaluates an expression as [`crate::evaluate`] does and explains it: `{"value", "type",
/// "cost", "steps": [{"depth", "from", "to", "text", "value" | "error", "type", "cost"}],
/// "dropped": N}` — the steps in evaluation order, each sub-step following its step with a
/// greater depth; `from`/`to` are UTF-16 offsets into the expression (as an editor counts),
/// `text` the source of the sub-expression, `value` in CEL syntax, `cost` what evaluating
/// it charged. The loop bookkeeping of macros (`all`, `exists`, `map`, ...) is left out:
/// under a macro call come its range and, per element, its body. A failed evaluation
/// answers the error (`{"error": {...}}`) with its `steps`.
///
/// Request: as [`crate::evaluate`]'s.
#[wasm_bindgen]
pub fn explain(request: &str) -> String {
    respond(|| {
        let req: ExpressionRequest = parse_request(request)?;
        let (env, values) = prepare(&req)?;
        let (ast, _) =
            kcel::report::compile(&env, &req.expression, &req.env.options(req.cost_limit))?;
        let program = env
            .traced_program(&ast, req.env.options(req.cost_limit))
            .map_err(|e| Failure::from_issues(kcel::report::Phase::Program, &e))?;
        let (min, max) = estimate(&env, &ast);
        let (result, details, trace) = program.eval_traced(&values, MAX_STEPS);
        let source = &req.expression;
        let ranges = source_ranges(ast.expr(), source);
        let hidden = macro_bookkeeping(ast.expr());
        let steps = shown_steps(&trace.steps, &hidden)
            .map(|(depth, step)| {
                let span = ranges.get(&step.id).copied().unwrap_or_default();
                let mut shown = json!({
                    "depth": depth,
                    "from": utf16_offset(source, span.start),
                    "to": utf16_offset(source, span.end),
                    "text": source.get(span.start as usize..span.end as usize).unwrap_or(""),
                    "cost": step.cost,
                });
                match &step.result {
                    Ok(value) => {
                        shown["value"] = json!(cut(value.to_string()));
                        shown["type"] = json!(value.type_name().to_string());
                    }
                    Err(e) => shown["error"] = json!(e.message()),
                }
                shown
            })
            .collect::<Vec<_>>();
        let mut answer = match result {
            Ok(value) => json!({
                "value": Natural(&value),
                "type": type_name(ast.output_type(), &value),
                "cost": {"actual": details.actual_cost, "min": min, "max": max},
            }),
            Err(e) => {
                let Rejection(error) = Rejection::from(Failure::from_eval(&program, &e));
                error
            }
        };
        answer["steps"] = Json::Array(steps);
        answer["dropped"] = json!(trace.dropped);
        Ok(answer)
    })
}

/// The steps to show with their depth among shown steps: those of the macros' bookkeeping
/// are left out, their sub-steps moving up to the nearest shown step.
fn shown_steps<'t>(
    steps: &'t [TraceStep],
    hidden: &'t HashSet<ExprId>,
) -> impl Iterator<Item = (u32, &'t TraceStep)> + 't {
    // (the step's depth in the trace, the depth its shown sub-steps get)
    let mut open: Vec<(u32, u32)> = Vec::new();
    steps.iter().filter_map(move |step| {
        while open.last().is_some_and(|(d, _)| *d >= step.depth) {
            open.pop();
        }
        let depth = open.last().map_or(0, |(_, below)| *below);
        if hidden.contains(&step.id) {
            open.push((step.depth, depth));
            None
        } else {
            open.push((step.depth, depth + 1));
            Some((depth, step))
        }
    })
}

/// The nodes a macro's expansion adds (the accumulator, its initial value, the loop
/// condition, the step around the user's body, the result): nodes under a comprehension,
/// other than its range, that read the accumulator or carry the macro call's own position.
fn macro_bookkeeping(root: &Expr) -> HashSet<ExprId> {
    let mut hidden = HashSet::new();
    root.walk(|e| {
        if let ExprKind::Comprehension(c) = &e.kind {
            for part in [&c.accu_init, &c.loop_condition, &c.loop_step, &c.result] {
                mark(part, &c.accu_var, e.span, &mut hidden);
            }
        }
    });
    hidden
}

/// Marks the nodes of `expr` that read the accumulator `accu` or sit at the macro call's
/// position `anchor`; returns whether `expr` reads `accu`. A comprehension nested in the
/// body has an accumulator of its own: it is marked by its own visit, not here.
fn mark(expr: &Expr, accu: &str, anchor: Span, hidden: &mut HashSet<ExprId>) -> bool {
    let mut reads =
        matches!(&expr.kind, ExprKind::Ident(name) if &**name == accu || is_accumulator_name(name));
    if !matches!(expr.kind, ExprKind::Comprehension(_)) {
        for child in children(expr) {
            reads |= mark(child, accu, anchor, hidden);
        }
    }
    if reads || expr.span == anchor {
        hidden.insert(expr.id);
    }
    reads
}

/// A byte offset into `source` as UTF-16 code units (what a browser editor counts).
fn utf16_offset(source: &str, byte: u32) -> usize {
    let byte = (byte as usize).min(source.len());
    source
        .get(..byte)
        .map_or(byte, |s| s.chars().map(char::len_utf16).sum())
}

fn cut(text: String) -> String {
    match text.char_indices().nth(MAX_VALUE_TEXT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    fn explain(request: serde_json::Value) -> serde_json::Value {
        serde_json::from_str(&super::explain(&request.to_string())).unwrap()
    }

    /// (depth, text, value or error) of each shown step.
    fn outline(answer: &serde_json::Value) -> Vec<(u64, String, String)> {
        answer["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let shown = s.get("value").or(s.get("error")).unwrap();
                (
                    s["depth"].as_u64().unwrap(),
                    s["text"].as_str().unwrap().to_string(),
                    shown.as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn shows_the_element_an_all_failed_on() {
        let answer = explain(json!({
            "expression": "self.spec.ports.all(p, p.port > 1024)",
            "variables": "self: {spec: {ports: [{port: 8080}, {port: 80}, {port: 9090}]}}",
        }));
        assert_eq!(answer["value"], false);
        let o = |d: u64, t: &str, v: &str| (d, t.to_string(), v.to_string());
        assert_eq!(
            outline(&answer),
            [
                o(0, "self.spec.ports.all(p, p.port > 1024)", "false"),
                o(
                    1,
                    "self.spec.ports",
                    "[{\"port\": 8080}, {\"port\": 80}, {\"port\": 9090}]"
                ),
                o(
                    2,
                    "self.spec",
                    "{\"ports\": [{\"port\": 8080}, {\"port\": 80}, {\"port\": 9090}]}"
                ),
                o(
                    3,
                    "self",
                    "{\"spec\": {\"ports\": [{\"port\": 8080}, {\"port\": 80}, {\"port\": 9090}]}}"
                ),
                o(1, "p.port > 1024", "true"),
                o(2, "p.port", "8080"),
                o(3, "p", "{\"port\": 8080}"),
                o(1, "p.port > 1024", "false"),
                o(2, "p.port", "80"),
                o(3, "p", "{\"port\": 80}"),
            ]
        );
        // The same cost as `evaluate`'s, the root step's cost being all of it.
        let evaluated: serde_json::Value = serde_json::from_str(&crate::evaluate(
            &json!({"expression": "self.spec.ports.all(p, p.port > 1024)",
                    "variables": "self: {spec: {ports: [{port: 8080}, {port: 80}, {port: 9090}]}}"})
            .to_string(),
        ))
        .unwrap();
        assert_eq!(answer["cost"], evaluated["cost"]);
        assert_eq!(answer["steps"][0]["cost"], evaluated["cost"]["actual"]);
        assert_eq!(answer["steps"][4]["from"], 23);
        assert_eq!(answer["steps"][4]["to"], 36);
    }

    #[test]
    fn ranges_cover_calls_selections_and_wide_characters() {
        let answer = explain(json!({"expression": "('é' + 'x').size() * (1 + size([1, 2]))"}));
        assert_eq!(answer["value"], 6);
        let texts: Vec<String> = outline(&answer).into_iter().map(|(_, t, _)| t).collect();
        assert_eq!(
            texts,
            [
                "('é' + 'x').size() * (1 + size([1, 2]))",
                "('é' + 'x').size()",
                "'é' + 'x'",
                "1 + size([1, 2])",
                "size([1, 2])",
            ]
        );
        // UTF-16 offsets: `é` is one code unit (two bytes): 39 characters, 40 bytes.
        assert_eq!(answer["steps"][0]["to"], 39);
    }

    #[test]
    fn nested_macros_keep_their_own_steps() {
        let answer = explain(json!({"expression": "[[1], [3, -4]].all(l, l.all(x, x > 0))"}));
        assert_eq!(answer["value"], false);
        let o = |d: u64, t: &str, v: &str| (d, t.to_string(), v.to_string());
        assert_eq!(
            outline(&answer),
            [
                o(0, "[[1], [3, -4]].all(l, l.all(x, x > 0))", "false"),
                o(1, "l.all(x, x > 0)", "true"),
                o(2, "l", "[1]"),
                o(2, "x > 0", "true"),
                o(3, "x", "1"),
                o(1, "l.all(x, x > 0)", "false"),
                o(2, "l", "[3, -4]"),
                o(2, "x > 0", "true"),
                o(3, "x", "3"),
                o(2, "x > 0", "false"),
                o(3, "x", "-4"),
            ]
        );
    }

    #[test]
    fn a_failed_evaluation_keeps_its_steps() {
        let answer = explain(json!({"expression": "[1, 0].all(x, 10 / x > 1)"}));
        assert_eq!(answer["error"]["phase"], "eval");
        assert_eq!(answer["error"]["message"], "division by zero");
        let outline = outline(&answer);
        assert!(
            outline.contains(&(2, "10 / x".into(), "division by zero".into())),
            "{outline:?}"
        );
    }
}

//! The case runner shared by the Kubernetes suites.

use std::collections::HashMap;
use std::sync::Arc;

use kcel::library::{AstNode, NoSizes, SizeEstimate, SizeEstimator};
use kcel::{Env, ProgramOptions, Type, Value};
use kcel_stdlib::kubernetes::{self, AllowAll, authz};

/// What a case expects.
#[derive(Clone, Copy, Debug)]
pub enum Want {
    /// The value of this CEL expression (compared with CEL equality).
    Value(&'static str),
    /// A runtime error with exactly this message.
    Error(&'static str),
    /// A compile (check) error containing this text.
    Compile(&'static str),
    /// A program-creation error containing this text.
    Program(&'static str),
}

/// One case of a suite.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub expr: &'static str,
    pub want: Want,
    /// Runtime cost, when the case checks it.
    pub rt: Option<u64>,
    /// Estimated cost range, when the case checks it.
    pub est: Option<(u64, u64)>,
    /// Run with cel-go's optimizer (Kubernetes does; upstream cost tests do not).
    pub optimize: bool,
    /// Estimate with upstream's test size estimator (strings and bytes `[0, 12]`).
    pub upstream_sizes: bool,
    /// Where the expected figures come from.
    pub src: &'static str,
}

/// A case expecting `true`, with no cost checks, for `spec` semantics.
pub const T: Case = Case {
    expr: "",
    want: Want::Value("true"),
    rt: None,
    est: None,
    optimize: true,
    upstream_sizes: false,
    src: "spec",
};

/// A case in upstream's cost-test setting (no optimizer, string sizes `[0, 12]`).
pub const CT: Case = Case {
    optimize: false,
    upstream_sizes: true,
    ..T
};

/// Shorthand: `expr` evaluates to true.
pub fn t(expr: &'static str, src: &'static str) -> Case {
    Case { expr, src, ..T }
}

/// Shorthand: `expr` evaluates to the value of `want`.
pub fn v(expr: &'static str, want: &'static str, src: &'static str) -> Case {
    Case {
        expr,
        want: Want::Value(want),
        src,
        ..T
    }
}

/// Shorthand: `expr` fails at run time with exactly `msg`.
pub fn e(expr: &'static str, msg: &'static str, src: &'static str) -> Case {
    Case {
        expr,
        want: Want::Error(msg),
        src,
        ..T
    }
}

/// Shorthand: upstream cost-test case (value not checked beyond succeeding).
pub fn ct(expr: &'static str, est: (u64, u64), rt: u64, src: &'static str) -> Case {
    Case {
        expr,
        want: Want::Value("_"),
        est: Some(est),
        rt: Some(rt),
        src,
        ..CT
    }
}

/// Shorthand: costs worked from SPEC with the optimizer on and literal sizes only.
pub fn sc(expr: &'static str, est: (u64, u64), rt: u64) -> Case {
    Case {
        expr,
        want: Want::Value("_"),
        est: Some(est),
        rt: Some(rt),
        src: "spec",
        ..T
    }
}

/// Upstream's `testCostEstimator`: strings and bytes are `[0, 12]`, nothing else is known.
pub struct UpstreamSizes;

impl SizeEstimator for UpstreamSizes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        matches!(node.ty, Type::String | Type::Bytes).then_some(SizeEstimate { min: 0, max: 12 })
    }
}

/// Every Kubernetes library at its newest version, with an `authorizer` variable.
pub fn env() -> Env {
    let mut env = Env::new();
    for lib in kubernetes::libraries_for((1, 37)) {
        env.add_library(&lib);
    }
    env.add_library(&kcel_stdlib::optional::optional(2));
    env.declare("authorizer", Type::Named(authz::AUTHORIZER.into(), vec![]));
    env.set_presence_test_cost(false);
    env
}

/// The variables: `authorizer` allows everything, as upstream's cost tests.
pub fn activation() -> HashMap<String, Value> {
    let mut vars = HashMap::new();
    vars.insert(
        "authorizer".to_string(),
        kubernetes::authorizer_value(Default::default(), Arc::new(AllowAll)),
    );
    vars
}

/// Runs a case, and runs it again in reference mode (`ProgramOptions::reference`: no
/// evaluation shortcut), which must give the same outcome and cost.
pub fn run_one(env: &Env, c: &Case) -> Result<(), String> {
    run_mode(env, c, false)?;
    run_mode(env, c, true).map_err(|e| format!("in reference mode: {e}"))
}

fn run_mode(env: &Env, c: &Case, reference: bool) -> Result<(), String> {
    let ast = match env.compile(c.expr) {
        Ok(a) => a,
        Err(issues) => {
            let text = issues.to_string();
            return match c.want {
                Want::Compile(m) if text.contains(m) => Ok(()),
                _ => Err(format!("compile error: {text}")),
            };
        }
    };
    if let Want::Compile(m) = c.want {
        return Err(format!("compiled, expected compile error {m:?}"));
    }
    if let Some((min, max)) = c.est {
        let est = if c.upstream_sizes {
            env.estimate_cost(&ast, &kubernetes::cost_estimator(&UpstreamSizes))
        } else {
            env.estimate_cost(&ast, &kubernetes::cost_estimator(&NoSizes))
        }
        .ok_or("no estimate")?;
        if (est.min, est.max) != (min, max) {
            return Err(format!(
                "estimate {}..{}, want {min}..{max}",
                est.min, est.max
            ));
        }
    }
    let options = ProgramOptions::default()
        .with_optimize(c.optimize)
        .with_presence_test_cost(false)
        .with_reference(reference);
    let program = match env.program_with(&ast, options) {
        Ok(p) => p,
        Err(issues) => {
            let text = issues.to_string();
            return match c.want {
                Want::Program(m) if text.contains(m) => Ok(()),
                _ => Err(format!("program error: {text}")),
            };
        }
    };
    if let Want::Program(m) = c.want {
        return Err(format!("program built, expected error {m:?}"));
    }
    let (result, details) = program.eval_with_details(&activation());
    match (c.want, result) {
        (Want::Value(w), Ok(got)) => {
            if w != "_" {
                let want = env
                    .compile(w)
                    .and_then(|a| env.program(&a))
                    .map_err(|e| format!("bad expectation {w}: {e}"))?
                    .eval(&activation())
                    .map_err(|e| format!("bad expectation {w}: {e}"))?;
                if !got.cel_eq(&want) {
                    return Err(format!("got {got}, want {want}"));
                }
            }
        }
        (Want::Error(m), Err(err)) => {
            if err.message() != m {
                return Err(format!("error {:?}, want {m:?}", err.message()));
            }
        }
        (_, Ok(got)) => return Err(format!("got {got}, want {:?}", c.want)),
        (_, Err(err)) => return Err(format!("error {:?}, want {:?}", err.message(), c.want)),
    }
    if let Some(rt) = c.rt {
        if details.actual_cost != rt {
            return Err(format!("runtime cost {}, want {rt}", details.actual_cost));
        }
    }
    Ok(())
}

/// Runs a suite, reporting every failing case, and checks it has enough cases.
pub fn run(name: &str, cases: &[Case], min_cases: usize) {
    run_in(&env(), name, cases, min_cases);
}

/// Runs a suite in a given environment.
pub fn run_in(env: &Env, name: &str, cases: &[Case], min_cases: usize) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            run_one(env, c)
                .err()
                .map(|e| format!("  {} [{}]: {e}", c.expr, c.src))
        })
        .collect();
    println!(
        "{name}: {} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{name} failures:\n{}",
        failures.join("\n")
    );
    assert!(
        cases.len() >= min_cases,
        "{name}: only {} cases",
        cases.len()
    );
}

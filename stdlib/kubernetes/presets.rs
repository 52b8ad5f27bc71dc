//! Ready-made environments: Kubernetes' CEL environment by Kubernetes version, as
//! kube-apiserver assembles it (SPEC §1).

use crate::kubernetes::{self, costs};
use crate::{comprehensions, ext, optional};
use kcel::{Env, ProgramOptions};

/// Kubernetes' per-expression runtime cost limit.
pub const KUBERNETES_COST_LIMIT: u64 = 1_000_000;

/// The newest Kubernetes version modelled.
pub const KUBERNETES_LATEST: (u32, u32) = (1, 37);

/// Which of Kubernetes' two environments (SPEC §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// For expressions being created or changed: what was introduced by the version.
    #[default]
    NewExpressions,
    /// For expressions already stored: everything not removed (the newest configuration).
    StoredExpressions,
}

/// Kubernetes' CEL environment at `version` (`(1, 27)` to `(1, 37)`): the standard library,
/// the Kubernetes libraries and the cel-go extensions the version enables, homogeneous
/// literals, literal validators (1.29+), `has()` at cost 0, Kubernetes' cost estimates, and
/// programs planned with the optimizer and the 1,000,000 per-call cost limit.
pub fn kubernetes(version: (u32, u32), mode: Mode) -> Env {
    let version = match mode {
        Mode::NewExpressions => version,
        Mode::StoredExpressions => KUBERNETES_LATEST,
    };
    let at_least = |minor: u32| version.0 > 1 || (version.0 == 1 && version.1 >= minor);
    let mut env = Env::new();
    env.set_homogeneous_literals(true)
        .set_presence_test_cost(false)
        .set_call_estimates(Some(kubernetes::estimate_call))
        .set_literal_validators(at_least(29))
        .set_program_options(
            ProgramOptions::default()
                .with_optimize(true)
                .with_cost_limit(Some(KUBERNETES_COST_LIMIT))
                .with_presence_test_cost(false)
                .with_interrupt(None)
                .with_memory_limit(Some(kcel::DEFAULT_MEMORY_LIMIT))
                .with_reference(false),
        );
    for lib in kubernetes::libraries_for(version) {
        env.add_library(&lib);
    }
    let mut strings = ext::strings(if at_least(29) { 2 } else { 0 });
    costs::apply_runtime_costs(&mut strings);
    env.add_library(&strings);
    if at_least(28) {
        env.add_library(&optional::optional(optional::LATEST));
    }
    if at_least(29) {
        env.add_library(&ext::sets());
    }
    if at_least(32) {
        env.add_library(&comprehensions::two_var_comprehensions());
    }
    if at_least(34) {
        env.add_library(&ext::lists(3));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiles(env: &Env, expr: &str) -> bool {
        env.compile(expr).is_ok()
    }

    #[test]
    fn functions_follow_the_version() {
        let old = kubernetes((1, 27), Mode::NewExpressions);
        let new = kubernetes((1, 37), Mode::NewExpressions);
        assert!(!compiles(&old, "ip('10.0.0.1').family() == 4"));
        assert!(compiles(&new, "ip('10.0.0.1').family() == 4"));
        assert!(!compiles(&old, "[1].all(i, v, v > 0)"));
        assert!(compiles(&new, "[1].all(i, v, v > 0)"));
        assert!(compiles(&new, "[1, 2].includes(2)"));
        let v136 = kubernetes((1, 36), Mode::NewExpressions);
        assert!(!compiles(&v136, "[1, 2].includes(2)"));
        let stored = kubernetes((1, 27), Mode::StoredExpressions);
        assert!(compiles(&stored, "[1, 2].includes(2)"));
    }

    #[test]
    fn kubernetes_does_not_enable_bind_base64_math() {
        // SPEC §9.1.
        let env = kubernetes(KUBERNETES_LATEST, Mode::NewExpressions);
        for expr in [
            "cel.bind(x, 1, x)",
            "base64.encode(b'a')",
            "math.greatest(1, 2)",
            "'abc'.reverse()",
        ] {
            assert!(!compiles(&env, expr), "{expr} should not compile");
        }
    }

    #[test]
    fn literals_are_validated_from_1_29() {
        let expr = "duration('1d') > duration('1h')";
        assert!(compiles(&kubernetes((1, 28), Mode::NewExpressions), expr));
        assert!(!compiles(&kubernetes((1, 29), Mode::NewExpressions), expr));
        assert!(!compiles(
            &kubernetes(KUBERNETES_LATEST, Mode::NewExpressions),
            "[1, 'a']"
        ));
    }

    #[test]
    fn programs_have_the_kubernetes_cost_limit() {
        let mut env = kubernetes(KUBERNETES_LATEST, Mode::NewExpressions);
        env.declare("l", kcel::Type::list(kcel::Type::Int));
        let ast = env
            .compile("l.all(a, l.all(b, l.all(c, a + b + c >= 0)))")
            .unwrap();
        let program = env.program(&ast).unwrap();
        let l = kcel::Value::list((0..200).map(kcel::Value::Int).collect::<Vec<_>>());
        let vars = std::collections::HashMap::from([("l".to_string(), l)]);
        let err = program.eval(&vars).unwrap_err();
        assert_eq!(*err.kind(), kcel::EvalErrorKind::CostLimitExceeded);
    }
}

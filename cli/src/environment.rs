//! Builds the compilation environment from the options and compiles expressions phase by
//! phase, so that each failure knows whether it came from parsing, checking or planning.

use kcel::{Ast, Env, Program, ProgramOptions};

use crate::args::{EnvKind, ProgramArgs};
use crate::diagnostic::{Failure, Phase};
use crate::libraries::LibrarySpec;

/// The base environment for `--env`, `--lib` and `--container`, without variables.
pub fn base(kind: EnvKind, libraries: &[LibrarySpec], container: Option<&str>) -> Env {
    let mut env = Env::new();
    if kind == EnvKind::Kubernetes {
        // Kubernetes' CEL environments reject mixed-type list and map literals and charge
        // nothing for `has()`.
        env.set_homogeneous_literals(true);
        env.set_presence_test_cost(false);
    }
    for library in libraries.iter().filter_map(LibrarySpec::build) {
        env.add_library(&library);
    }
    if let Some(container) = container {
        env.set_container(container);
    }
    env
}

/// The program options for `--env`, `--cost-limit` and `--no-optimize`.
pub fn program_options(kind: EnvKind, args: &ProgramArgs) -> ProgramOptions {
    ProgramOptions {
        optimize: !args.no_optimize,
        cost_limit: args.cost_limit,
        // Kubernetes charges nothing for `has()`; cel-go charges 1.
        presence_test_cost: kind == EnvKind::Cel,
        ..ProgramOptions::default()
    }
}

/// Parses, type-checks and plans an expression.
pub fn compile(
    env: &Env,
    source: &str,
    options: &ProgramOptions,
) -> Result<(Ast, Program), Failure> {
    let parsed = env
        .parse(source)
        .map_err(|i| Failure::from_issues(Phase::Parse, &i))?;
    let checked = env
        .check(&parsed)
        .map_err(|i| Failure::from_issues(Phase::Check, &i))?;
    let program = env
        .program_with(&checked, options.clone())
        .map_err(|i| Failure::from_issues(Phase::Program, &i))?;
    Ok((checked, program))
}

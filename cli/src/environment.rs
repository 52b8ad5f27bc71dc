//! Builds the compilation environment from the options and compiles expressions phase by
//! phase, so that each failure knows whether it came from parsing, checking or planning.

use kcel::{DEFAULT_CEL_COST_LIMIT, Env, ProgramOptions};

use kcel_stdlib::kubernetes::presets::{KUBERNETES_COST_LIMIT, Mode};

use crate::args::{EnvChoice, EnvKind, ModeArg, ProgramArgs};
use crate::libraries::LibrarySpec;

/// The base environment for `--env`, `--k8s-version`, `--mode`, `--lib` and
/// `--container`, without variables.
pub fn base(choice: EnvChoice, libraries: &[LibrarySpec], container: Option<&str>) -> Env {
    let mut env = match choice.env {
        EnvKind::Kubernetes => {
            let mode = match choice.mode {
                ModeArg::New => Mode::NewExpressions,
                ModeArg::Stored => Mode::StoredExpressions,
            };
            kcel_stdlib::kubernetes::presets::kubernetes(choice.k8s_version, mode)
        }
        EnvKind::Cel => Env::new(),
    };
    for library in libraries.iter().filter_map(LibrarySpec::build) {
        env.add_library(&library);
    }
    if let Some(container) = container {
        env.set_container(container);
    }
    env
}

/// The program options for `--env`, `--cost-limit` and `--no-optimize`: Kubernetes'
/// environment has its 1,000,000 per-call limit and the plain one
/// [`DEFAULT_CEL_COST_LIMIT`] (about a third of a second of evaluation) unless `--cost-limit` says otherwise (0: none).
pub fn program_options(choice: EnvChoice, args: &ProgramArgs) -> ProgramOptions {
    let kind = choice.env;
    let default_limit = match kind {
        EnvKind::Kubernetes => KUBERNETES_COST_LIMIT,
        EnvKind::Cel => DEFAULT_CEL_COST_LIMIT,
    };
    ProgramOptions::default()
        .with_optimize(!args.no_optimize)
        .with_cost_limit(match args.cost_limit {
            Some(0) => None,
            Some(limit) => Some(limit),
            None => Some(default_limit),
        })
        .with_presence_test_cost(kind == EnvKind::Cel)
        .with_memory_limit(match args.memory_limit {
            Some(0) => None,
            Some(bytes) => Some(bytes),
            None => Some(kcel::DEFAULT_MEMORY_LIMIT),
        })
}

/// Fails when the text of a result would be longer than the memory limit (a value made of
/// shared parts can be far larger printed than in memory).
pub fn printable(value: &kcel::Value, options: &ProgramOptions) -> Result<(), kcel::EvalError> {
    match options.memory_limit() {
        Some(limit) if kcel::library::budget::text_exceeds(value, limit) => {
            Err(kcel::EvalError::new(format!(
                "the result is too large to print (over {limit} bytes; see --memory-limit)"
            )))
        }
        _ => Ok(()),
    }
}

//! `kcel`: evaluate, type-check and explore CEL expressions for Kubernetes.

/// The allocator of the `kcel` process: mimalloc's small size classes are 8 bytes apart
/// (glibc's smallest chunk is 32 bytes), and a document is mostly small strings and map
/// nodes, so a large object's tree takes 15% less memory and reading and validating it
/// about 20% less CPU than with the system allocator (BENCHMARKS.md "Reading documents
/// and validating a large object", session 24). The library crates leave the choice to
/// the program, as libraries should.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[macro_use]
mod stdout;
mod args;
mod authorizer;
mod colour;
mod completion;
mod environment;
mod expression;
mod functions;
mod input;
mod libraries;
mod multiline;
mod output;
mod repl;
mod schema_variables;
mod suites;
mod usage_error;
mod validate;
mod variables;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    // clap prints usage errors and exits with status 2, help and version with 0.
    let cli = Cli::parse();
    // Documents nest up to 10,000 levels, as Kubernetes reads them; walking them recurses
    // (the library's walks, the CEL engine's conversions, serde_json's drop), so commands
    // run on a stack that holds that depth (only the pages used are mapped).
    let status = kcel_stdlib::documents::with_deep_stack(|| run(&cli));
    status.into()
}

/// Runs the command `cli` names.
fn run(cli: &Cli) -> output::Status {
    match &cli.command {
        Command::Eval { expression } => expression::eval(expression),
        Command::Check { expression } => expression::check(expression),
        Command::Repl { env, program } => repl::run(env, program),
        Command::Validate {
            crd,
            old,
            objects,
            memory_limit,
            output,
        } => validate::run(crd, old.as_deref(), objects, *memory_limit, output.format),
        Command::Test {
            suites,
            junit,
            output,
        } => suites::run(suites, junit.as_deref(), output.format),
        Command::Functions {
            name,
            libraries,
            all,
            env,
            lib,
            output,
        } => functions::run(name.as_deref(), *libraries, *all, *env, lib, output.format),
        Command::Completion { shell } => completion::print(*shell),
    }
}

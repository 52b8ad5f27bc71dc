//! `kcel`: evaluate, type-check and explore CEL expressions for Kubernetes.

#[macro_use]
mod stdout;
mod args;
mod authorizer;
mod colour;
mod environment;
mod expression;
mod functions;
mod input;
mod libraries;
mod multiline;
mod output;
mod repl;
mod schema;
mod suites;
mod validate;
mod variables;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    // clap prints usage errors and exits with status 2, help and version with 0.
    let cli = Cli::parse();
    let status = match &cli.command {
        Command::Eval {
            expr,
            env,
            schema,
            authorizer,
            program,
            output,
            exit_status,
        } => expression::eval(
            expr,
            env,
            schema,
            authorizer.as_deref(),
            program,
            output.format,
            *exit_status,
        ),
        Command::Check {
            expr,
            env,
            schema,
            output,
        } => expression::check(expr, env, schema, output.format),
        Command::Repl { env, program } => repl::run(env, program),
        Command::Validate {
            crd,
            old,
            objects,
            output,
        } => validate::run(crd, old.as_deref(), objects, output.format),
        Command::Test { suites, junit } => suites::run(suites, junit.as_deref()),
        Command::Functions {
            name,
            libraries,
            env,
            lib,
            output,
        } => functions::run(name.as_deref(), *libraries, *env, lib, output.format),
    };
    status.into()
}

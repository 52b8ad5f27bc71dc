//! `kcel completion SHELL`: a completion script generated from the argument definitions.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::output::Status;

/// Prints the completion script for `shell`.
pub fn print(shell: Shell) -> Status {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kcel", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Status::Ok
}

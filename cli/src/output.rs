//! Printing results in the chosen format, and the exit statuses.

use std::process::ExitCode;

use serde::Serialize;

use crate::args::Format;
use crate::colour::stderr_colour;
use kcel::report::{Failure, FailureReport, Phase};

/// The exit statuses of the machine interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// `-e` and the result was false or null.
    False = 1,
    /// Usage error or unreadable input.
    Usage = 2,
    /// Parse, check or program error.
    Compile = 3,
    /// Evaluation error.
    Eval = 4,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(status as u8)
    }
}

/// Serialises a report as one JSON object (one line) or a YAML document.
pub fn machine<T: Serialize>(format: Format, report: &T) -> String {
    let text = match format {
        Format::Yaml => serde_norway::to_string(report).map_err(|e| e.to_string()),
        _ => serde_json::to_string(report)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
    };
    text.unwrap_or_else(|e| format!("cannot serialise the result: {e}\n"))
}

/// Prints a failure (text on stderr, JSON or YAML on stdout) and returns its exit status.
pub fn fail(format: Format, failure: &Failure) -> Status {
    match format {
        _ if format.is_text() => eprintln!("{}", failure.to_text(stderr_colour())),
        _ => out!("{}", machine(format, &FailureReport { error: failure })),
    }
    match failure.phase {
        Phase::Eval => Status::Eval,
        _ => Status::Compile,
    }
}

/// Reports a usage error (always text on stderr) and returns status 2.
pub fn usage(message: impl std::fmt::Display) -> Status {
    eprintln!("error: {message}");
    Status::Usage
}

//! The failure of an expression as a report for people and programs: its phase (parse,
//! check, program, eval), message and position, rendered as cel-go renders it (source line
//! and caret) or serialised (the `{"error": ...}` object of the CLI's `-o json`, the
//! playground's and the server's error records).

use serde::Serialize;

use crate::error::{Diagnostic, location};
use crate::{Ast, Env, EvalError, Issues, Program, ProgramOptions};

/// Where in the pipeline an expression failed.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Parsing (syntax errors, limits on size and depth).
    Parse,
    /// Type checking.
    Check,
    /// Planning the program (errors found in constant arguments).
    Program,
    /// Evaluation.
    Eval,
}

/// A failure of one expression.
#[derive(Serialize, Debug)]
pub struct Failure {
    /// Where it failed.
    pub phase: Phase,
    /// The message(s), one per line, without position.
    pub message: String,
    /// The line of the (first) failure, from 1, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The column of the (first) failure, from 1 (in characters), where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The cel-go rendering: `ERROR: <input>:L:C: message`, source line, caret.
    #[serde(skip)]
    pub rendered: String,
}

/// The `-o json` / `-o yaml` shape of a failure.
#[derive(Serialize)]
pub struct FailureReport<'a> {
    /// The failure, serialised under `error`.
    pub error: &'a Failure,
}

impl Failure {
    /// A failure from compile-time issues; the position is the first issue's.
    pub fn from_issues(phase: Phase, issues: &Issues) -> Failure {
        let first = issues
            .diagnostics
            .first()
            .map(|d| location(&issues.source, d.span.start as usize));
        let messages: Vec<String> = issues.diagnostics.iter().map(Diagnostic::message).collect();
        Failure {
            phase,
            message: messages.join("\n"),
            line: first.map(|l| l.line),
            column: first.map(|l| l.column),
            rendered: issues.to_string(),
        }
    }

    /// A failure from evaluation, positioned at the failing node when known.
    pub fn from_eval(program: &Program, error: &EvalError) -> Failure {
        let loc = error
            .node()
            .and_then(|id| program.span(id))
            .map(|span| location(program.source(), span.start as usize));
        Failure {
            phase: Phase::Eval,
            message: error.message(),
            line: loc.map(|l| l.line),
            column: loc.map(|l| l.column),
            rendered: program.render_error(error),
        }
    }

    /// The cel-go rendering, with `ERROR` highlighted when `colour` is on.
    pub fn to_text(&self, colour: bool) -> String {
        if !colour {
            return self.rendered.clone();
        }
        self.rendered
            .split('\n')
            .map(|line| match line.strip_prefix("ERROR:") {
                Some(rest) => format!("\x1b[1;31mERROR\x1b[0m:{rest}"),
                None => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Parses, type-checks and plans `source` in `env`, a failure reported with the phase it
/// happened in (what the CLI, the playground and the server all do with an expression).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_failures_carry_phase_and_position() {
        let issues = crate::Env::new().parse("1 +\n  )").unwrap_err();
        let failure = Failure::from_issues(Phase::Parse, &issues);
        assert_eq!(failure.line, Some(2));
        assert_eq!(failure.column, Some(3));
        assert!(failure.to_text(true).starts_with("\x1b[1;31mERROR\x1b[0m:"));
        assert!(failure.to_text(false).starts_with("ERROR: <input>:2:3:"));
    }
}

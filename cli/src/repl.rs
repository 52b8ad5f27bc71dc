//! `kcel repl`: line editing and history on a terminal; plain line reading otherwise (no
//! prompts), so sessions can be scripted and tested.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

use kcel::{Env, ProgramOptions, Type, Value};

use crate::args::{EnvArgs, ProgramArgs};
use crate::colour::stderr_colour;
use crate::environment;
use crate::expression::type_name;
use crate::multiline::Accumulator;
use crate::output::{Status, usage};
use crate::variables;
use kcel::report::Failure;

const HELP: &str = "\
Enter a CEL expression to evaluate it (shown as `value : type`). Input continues on the
next line while brackets are open or when a line ends with `\\`. Tab completes variables,
functions, macros and commands.

Commands:
  %let NAME = EXPR     evaluate EXPR and bind the result to NAME
  %declare NAME : TYPE declare NAME with a CEL type, e.g. list(int) (unbinds its value);
                       also %declare NAME TYPE and %declare NAME=TYPE
  %delete NAME         remove NAME's declaration and value
  %env                 show the declared variables and their values
  %cost                show (or stop showing) the actual cost of each evaluation
  %help                show this help
  %quit                leave (also %exit, or end of input)";

/// Declared variables and bound values, on top of a base environment.
struct Session {
    base: Env,
    options: ProgramOptions,
    show_cost: bool,
    declarations: BTreeMap<String, Type>,
    values: HashMap<String, Value>,
}

/// What to do after an input.
enum Next {
    Continue,
    Quit,
}

/// Runs the REPL until `%quit` or end of input.
pub fn run(args: &EnvArgs, program_args: &ProgramArgs) -> Status {
    let base = environment::base(args.env, &args.libraries, args.container.as_deref());
    let mut env = base.clone();
    // Stdin holds the session's input: `--var NAME=@-` cannot read it too.
    if let Some((name, _)) = args.vars.iter().find(|(_, spec)| spec == "@-") {
        return usage(format!(
            "variable '{name}': stdin holds the REPL's input; give the value inline or as @FILE"
        ));
    }
    let mut stdin_used = true;
    let values = match variables::bind(
        &mut env,
        &args.vars,
        &args.declarations,
        None,
        &mut stdin_used,
    ) {
        Ok(values) => values,
        Err(e) => return usage(&e),
    };
    let mut session = Session {
        base,
        options: environment::program_options(args.env, program_args),
        show_cost: false,
        declarations: env.variables().clone(),
        values,
    };
    if std::io::stdin().is_terminal() {
        interactive(&mut session)
    } else {
        scripted(&mut session)
    }
}

/// Reads lines from a non-terminal stdin. A line that is not UTF-8 is reported and skipped;
/// the session goes on.
fn scripted(session: &mut Session) -> Status {
    let mut acc = Accumulator::default();
    let mut stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    let mut number = 0usize;
    loop {
        bytes.clear();
        match stdin.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return usage(format!("cannot read stdin: {e}")),
        }
        number += 1;
        if bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            complain(&format!("line {number} is not valid UTF-8; skipped"));
            continue;
        };
        if let Some(input) = acc.feed(line) {
            if let Next::Quit = session.handle(&input) {
                return Status::Ok;
            }
        }
    }
    if acc.is_pending() {
        session.handle(&acc.take());
    }
    Status::Ok
}

/// The line-editing loop with history in `~/.kcel_history`.
fn interactive(session: &mut Session) -> Status {
    use rustyline::error::ReadlineError;
    let mut editor =
        match rustyline::Editor::<Completions, rustyline::history::DefaultHistory>::new() {
            Ok(editor) => editor,
            Err(e) => return usage(format!("cannot start the line editor: {e}")),
        };
    editor.set_helper(Some(Completions::of(session)));
    let history = history_path();
    if let Some(path) = &history {
        // A missing or unreadable history file just means an empty history.
        let _ = editor.load_history(path);
    }
    outln!("kcel REPL: %help for commands, %quit or Ctrl-D to leave");
    let mut acc = Accumulator::default();
    loop {
        let prompt = if acc.is_pending() { "....> " } else { "kcel> " };
        match editor.readline(prompt) {
            Ok(line) => {
                if let Some(input) = acc.feed(&line) {
                    if !input.trim().is_empty() {
                        let _ = editor.add_history_entry(input.as_str());
                    }
                    if let Next::Quit = session.handle(&input) {
                        break;
                    }
                    editor.set_helper(Some(Completions::of(session)));
                }
            }
            Err(ReadlineError::Interrupted) => {
                acc.take();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: {e}");
                break;
            }
        }
    }
    if let Some(path) = &history {
        // Failing to save history must not fail the session.
        let _ = editor.save_history(path);
    }
    Status::Ok
}

fn history_path() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".kcel_history"))
}

impl Session {
    /// The environment with the session's declarations.
    fn env(&self) -> Env {
        let mut env = self.base.clone();
        for (name, ty) in &self.declarations {
            env.declare(name.clone(), ty.clone());
        }
        env
    }

    /// Handles one complete input: a `%` command or an expression.
    fn handle(&mut self, input: &str) -> Next {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Next::Continue;
        }
        let Some(command) = trimmed.strip_prefix('%') else {
            if let Ok((value, ty, cost)) = self.evaluate(trimmed) {
                let shown = type_name(Some(&ty), &value);
                outln!("{value} : {shown}{}", self.cost_note(cost));
            }
            return Next::Continue;
        };
        let (word, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(w, r)| (w, r.trim()));
        match word {
            "let" => self.let_binding(rest),
            "declare" => self.declare(rest),
            "delete" => self.delete(rest),
            "env" => self.show_env(),
            "cost" => {
                self.show_cost = !self.show_cost;
                outln!("cost display {}", if self.show_cost { "on" } else { "off" });
            }
            "help" => outln!("{HELP}"),
            "quit" | "exit" => return Next::Quit,
            _ => complain(&format!("unknown command '%{word}' (try %help)")),
        }
        Next::Continue
    }

    /// Compiles and evaluates an expression, printing any failure. Returns the value, its
    /// checked type and the actual cost.
    fn evaluate(&self, source: &str) -> Result<(Value, Type, u64), ()> {
        let colour = stderr_colour();
        let (ast, program) = kcel::report::compile(&self.env(), source, &self.options)
            .map_err(|f| eprintln!("{}", f.to_text(colour)))?;
        let (result, details) = program.eval_with_details(&self.values);
        let value = result
            .and_then(|v| environment::printable(&v, &self.options).map(|()| v))
            .map_err(|e| eprintln!("{}", Failure::from_eval(&program, &e).to_text(colour)))?;
        let ty = ast.output_type().cloned().unwrap_or(Type::Dyn);
        Ok((value, ty, details.actual_cost))
    }

    /// ` (cost N)` when cost display is on.
    fn cost_note(&self, cost: u64) -> String {
        if self.show_cost {
            format!(" (cost {cost})")
        } else {
            String::new()
        }
    }

    fn let_binding(&mut self, rest: &str) {
        let Some((name, expr)) = rest.split_once('=') else {
            return complain("usage: %let NAME = EXPR");
        };
        let name = match crate::args::checked_name(name) {
            Ok(name) => name,
            Err(e) => return complain(&e.to_string()),
        };
        let Ok((value, ty, cost)) = self.evaluate(expr.trim()) else {
            return;
        };
        outln!("{name} = {value} : {ty}{}", self.cost_note(cost));
        self.declarations.insert(name.clone(), ty);
        self.values.insert(name, value);
    }

    /// `%declare NAME : TYPE` (cel-go's REPL syntax), `NAME TYPE` or `NAME=TYPE`.
    fn declare(&mut self, rest: &str) {
        let Some((name, ty)) = rest
            .split_once([':', '='])
            .or_else(|| rest.split_once(char::is_whitespace))
        else {
            return complain("usage: %declare NAME : TYPE");
        };
        let name = match crate::args::checked_name(name) {
            Ok(name) => name,
            Err(e) => return complain(&e.to_string()),
        };
        let ty = match Type::parse(ty.trim()) {
            Ok(ty) => ty,
            Err(e) => return complain(&e.to_string()),
        };
        if let Err(e) = self.base.check_declared_type(&ty) {
            return complain(&e.to_string());
        }
        self.values.remove(&name);
        self.declarations.insert(name, ty);
    }

    fn delete(&mut self, name: &str) {
        if self.declarations.remove(name).is_none() {
            return complain(&format!("no variable named '{name}'"));
        }
        self.values.remove(name);
    }

    fn show_env(&self) {
        if self.declarations.is_empty() {
            outln!("(no variables)");
        }
        for (name, ty) in &self.declarations {
            match self.values.get(name) {
                Some(value) => outln!("{name} : {ty} = {value}"),
                None => outln!("{name} : {ty}"),
            }
        }
    }
}

/// Prints a REPL usage problem on stderr.
fn complain(message: &str) {
    eprintln!("error: {message}");
}

/// The REPL's commands, as Tab completes them.
const COMMANDS: [&str; 8] = [
    "%let", "%declare", "%delete", "%env", "%cost", "%help", "%quit", "%exit",
];

/// Tab completion of the session's variables, the environment's functions and macros
/// (internal ones left out) and the `%` commands.
struct Completions {
    names: Vec<String>,
}

impl Completions {
    fn of(session: &Session) -> Completions {
        let env = session.env();
        let mut names: Vec<String> = session.declarations.keys().cloned().collect();
        names.extend(
            env.registry()
                .functions()
                .into_iter()
                .map(|f| f.name().to_string())
                .filter(|name| !kcel::library::is_internal_name(name)),
        );
        names.extend(
            kcel::library::syntax::macro_docs::enabled(env.parse_options())
                .iter()
                .map(|m| m.name.to_string()),
        );
        names.sort();
        names.dedup();
        Completions { names }
    }

    /// Where the word before `pos` starts and the names it may complete to.
    fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '%'))
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        let word = &before[start..];
        if word.starts_with('%') {
            let matches = if before[..start].trim().is_empty() {
                COMMANDS
                    .iter()
                    .filter(|c| c.starts_with(word))
                    .map(|c| c.to_string())
                    .collect()
            } else {
                vec![]
            };
            return (start, matches);
        }
        // After a `.`, complete the member name only (`self.spec.`, `"a".startsW`).
        let (start, word) = match word.rfind('.') {
            Some(dot) if !self.names.iter().any(|n| n.starts_with(word)) => {
                (start + dot + 1, &word[dot + 1..])
            }
            _ => (start, word),
        };
        let matches = self
            .names
            .iter()
            .filter(|n| n.starts_with(word))
            .cloned()
            .collect();
        (start, matches)
    }
}

impl rustyline::completion::Completer for Completions {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(self.candidates(line, pos))
    }
}

impl rustyline::hint::Hinter for Completions {
    type Hint = String;
}

impl rustyline::highlight::Highlighter for Completions {}

impl rustyline::validate::Validator for Completions {}

impl rustyline::Helper for Completions {}

#[cfg(test)]
mod tests {
    use super::*;

    fn completions(names: &[&str], line: &str) -> (usize, Vec<String>) {
        let c = Completions {
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        c.candidates(line, line.len())
    }

    #[test]
    fn words_complete_to_names_and_commands() {
        let names = ["startsWith", "size", "self", "exists", "exists_one"];
        assert_eq!(
            completions(&names, "%de"),
            (0, vec!["%declare".into(), "%delete".into()])
        );
        assert_eq!(completions(&names, "1 + %de").1, Vec::<String>::new());
        assert_eq!(completions(&names, "si"), (0, vec!["size".into()]));
        assert_eq!(
            completions(&names, "self.spec.x.exi"),
            (12, vec!["exists".into(), "exists_one".into()])
        );
        assert_eq!(
            completions(&names, "\"é\".startsW"),
            (5, vec!["startsWith".into()])
        );
    }
}

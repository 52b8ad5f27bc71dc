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
next line while brackets are open or when a line ends with `\\`.

Commands:
  %let NAME = EXPR     evaluate EXPR and bind the result to NAME
  %declare NAME TYPE   declare NAME with a CEL type, e.g. list(int) (unbinds its value)
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
    let values = match variables::bind(&mut env, &args.vars, &args.declarations, None) {
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

/// Reads lines from a non-terminal stdin.
fn scripted(session: &mut Session) -> Status {
    let mut acc = Accumulator::default();
    for line in std::io::stdin().lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(e) => return usage(format!("cannot read stdin: {e}")),
        };
        if let Some(input) = acc.feed(&line) {
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
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(e) => return usage(format!("cannot start the line editor: {e}")),
    };
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
            Err(e) => return complain(&e),
        };
        let Ok((value, ty, cost)) = self.evaluate(expr.trim()) else {
            return;
        };
        outln!("{name} = {value} : {ty}{}", self.cost_note(cost));
        self.declarations.insert(name.clone(), ty);
        self.values.insert(name, value);
    }

    fn declare(&mut self, rest: &str) {
        let Some((name, ty)) = rest.split_once(char::is_whitespace) else {
            return complain("usage: %declare NAME TYPE");
        };
        let name = match crate::args::checked_name(name) {
            Ok(name) => name,
            Err(e) => return complain(&e),
        };
        match Type::parse(ty.trim()) {
            Ok(ty) => {
                self.values.remove(&name);
                self.declarations.insert(name, ty);
            }
            Err(e) => complain(&e.to_string()),
        }
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

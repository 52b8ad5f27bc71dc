//! Evaluates one CEL expression given on the command line.
//!
//! ```text
//! cargo run --example eval -- "size('hello') + 1"
//! cargo run --example eval -- "self.spec.replicas < 5" 'self={"spec": {"replicas": 3}}'
//! ```
//!
//! Each argument after the expression binds a variable as `NAME=JSON`.

use std::collections::HashMap;
use std::process::ExitCode;

use kcel::{Env, Type, Value};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(expr) = args.next() else {
        eprintln!("usage: eval EXPR [NAME=JSON]...");
        return ExitCode::from(2);
    };
    let mut env = Env::new();
    let mut vars: HashMap<String, Value> = HashMap::new();
    for binding in args {
        let Some((name, json)) = binding.split_once('=') else {
            eprintln!("expected NAME=JSON, got '{binding}'");
            return ExitCode::from(2);
        };
        match serde_json::from_str::<serde_json::Value>(json) {
            Ok(j) => {
                env.declare(name, Type::Dyn);
                vars.insert(name.to_string(), Value::from(&j));
            }
            Err(e) => {
                eprintln!("variable '{name}': invalid JSON: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let program = match env.compile(&expr).and_then(|ast| env.program(&ast)) {
        Ok(p) => p,
        Err(issues) => {
            eprintln!("{issues}");
            return ExitCode::from(3);
        }
    };
    match program.eval(&vars) {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", program.render_error(&e));
            ExitCode::from(4)
        }
    }
}

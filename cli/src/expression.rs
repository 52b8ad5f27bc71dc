//! `kcel eval` and `kcel check`.

use kcel::cost::NoSizes;
use kcel::{Type, Value};
use serde::Serialize;

use crate::args::{EnvArgs, Format, ProgramArgs, SchemaArgs};
use crate::authorizer;
use crate::environment;
use crate::output::{Status, fail, machine, usage};
use crate::schema::{RootSchema, is_schema_variable};
use crate::variables;
use kcel::report::Failure;
use kcel::value::Natural;

/// The `-o json` shape of `eval`.
#[derive(Serialize)]
struct EvalReport<'a> {
    value: Natural<'a>,
    #[serde(rename = "type")]
    ty: String,
    cost: ActualCost,
}

/// The actual cost of one evaluation, as cel-go's cost tracker counts it.
#[derive(Serialize)]
struct ActualCost {
    actual: u64,
}

/// The `-o json` shape of `check`.
#[derive(Serialize)]
struct CheckReport {
    #[serde(rename = "type")]
    ty: String,
    cost: EstimatedCost,
}

/// The estimated cost range, as cel-go's checker estimates it (variable sizes unknown).
#[derive(Serialize)]
struct EstimatedCost {
    min: u64,
    max: u64,
}

/// Compiles and evaluates `expr`, printing the value.
pub fn eval(
    expr: &str,
    args: &EnvArgs,
    schema_args: &SchemaArgs,
    authorizer_spec: Option<&str>,
    program_args: &ProgramArgs,
    format: Format,
    exit_status: bool,
) -> Status {
    let mut env = environment::base(args.env, &args.libraries, args.container.as_deref());
    let schema = match RootSchema::load(schema_args, &mut env) {
        Ok(schema) => schema,
        Err(e) => return usage(&e),
    };
    let mut values =
        match variables::bind(&mut env, &args.vars, &args.declarations, schema.as_ref()) {
            Ok(values) => values,
            Err(e) => return usage(&e),
        };
    if let Some(spec) = authorizer_spec {
        if values.contains_key(authorizer::NAME)
            || args.declarations.iter().any(|(n, _)| n == authorizer::NAME)
        {
            return usage(
                "--authorizer binds 'authorizer'; do not give it with --var or --declare",
            );
        }
        match authorizer::value(spec) {
            Ok(value) => {
                env.declare(authorizer::NAME, authorizer::declared_type());
                values.insert(authorizer::NAME.to_string(), value);
            }
            Err(e) => return usage(&e),
        }
    }
    let options = environment::program_options(args.env, program_args);
    let (ast, program) = match kcel::report::compile(&env, expr, &options) {
        Ok(compiled) => compiled,
        Err(failure) => return fail(format, &failure),
    };
    let (result, details) = program.eval_with_details(&values);
    let value = match result.and_then(|v| environment::printable(&v, &options).map(|()| v)) {
        Ok(value) => value,
        Err(e) => return fail(format, &Failure::from_eval(&program, &e)),
    };
    match format {
        Format::Text => outln!("{value}"),
        _ => out!(
            "{}",
            machine(
                format,
                &EvalReport {
                    value: Natural(&value),
                    ty: type_name(ast.output_type(), &value),
                    cost: ActualCost {
                        actual: details.actual_cost,
                    },
                }
            )
        ),
    }
    if exit_status && matches!(value, Value::Bool(false) | Value::Null) {
        Status::False
    } else {
        Status::Ok
    }
}

/// Parses, type-checks and plans `expr`, printing its type.
pub fn check(expr: &str, args: &EnvArgs, schema_args: &SchemaArgs, format: Format) -> Status {
    let mut env = environment::base(args.env, &args.libraries, args.container.as_deref());
    let schema = match RootSchema::load(schema_args, &mut env) {
        Ok(schema) => schema,
        Err(e) => return usage(&e),
    };
    let schema_typed = |name: &str| schema.is_some() && is_schema_variable(name);
    for (name, ty) in &args.declarations {
        if schema_typed(name) {
            return usage(format!(
                "variable '{name}' is typed by --schema; do not --declare it"
            ));
        }
        env.declare(name.clone(), ty.clone());
    }
    // Values are not needed to check, only types: given-but-undeclared variables are `dyn`.
    for (name, _) in &args.vars {
        if !schema_typed(name) && !args.declarations.iter().any(|(n, _)| n == name) {
            env.declare(name.clone(), Type::Dyn);
        }
    }
    let options = environment::program_options(args.env, &ProgramArgs::default());
    let (ast, _) = match kcel::report::compile(&env, expr, &options) {
        Ok(compiled) => compiled,
        Err(failure) => return fail(format, &failure),
    };
    let ty = ast.output_type().unwrap_or(&Type::Dyn).to_string();
    // Sizes come from the schema when there is one (as Kubernetes estimates CRD rules).
    let estimate = match &schema {
        Some(schema) => env.estimate_cost(&ast, &schema.sizes()),
        None => env.estimate_cost(&ast, &NoSizes),
    };
    // A checked AST always has an estimate; fall back to the widest range rather than panic.
    let cost = estimate.map_or(
        EstimatedCost {
            min: 0,
            max: u64::MAX,
        },
        |c| EstimatedCost {
            min: c.min,
            max: c.max,
        },
    );
    match format {
        Format::Text => outln!("{ty}\nestimated cost: min {}, max {}", cost.min, cost.max),
        _ => out!("{}", machine(format, &CheckReport { ty, cost })),
    }
    Status::Ok
}

/// The type to show for a result: the checked type, or the value's runtime type when the
/// checker could only say `dyn`.
pub fn type_name(checked: Option<&Type>, value: &Value) -> String {
    match checked {
        Some(Type::Dyn) | None => value.type_name().to_string(),
        Some(ty) => ty.to_string(),
    }
}

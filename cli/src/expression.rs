//! `kcel eval` and `kcel check`.

use kcel::library::NoSizes;
use kcel::{Type, Value};
use serde::Serialize;

use crate::args::{EnvArgs, ExpressionArgs, Format};
use crate::authorizer;
use crate::environment;
use crate::input::read_spec;
use crate::output::{Status, fail, machine, usage};
use crate::schema_variables::RootSchema;
use crate::usage_error::UsageError;
use crate::variables;
use kcel::Natural;
use kcel::report::Failure;

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

/// Reads the expression: the argument, or the file of `-f` (`-`: stdin, once).
fn source(args: &ExpressionArgs, stdin_used: &mut bool) -> Result<String, UsageError> {
    match (&args.expr, &args.file) {
        (Some(expr), _) => Ok(expr.clone()),
        (None, Some(path)) => {
            let spec = format!("@{}", path.display());
            let text = read_spec(&spec, stdin_used).map_err(UsageError::ExpressionFile)?;
            if text.trim().is_empty() {
                return Err(UsageError::EmptyExpressionFile(path.display().to_string()));
            }
            // The file's final line break is not part of the expression (positions in
            // errors stay on its last line).
            Ok(text.trim_end_matches(['\n', '\r']).to_string())
        }
        (None, None) => Err(UsageError::NoExpression),
    }
}

/// What `eval` and `check` start with: the expression's text, the environment the flags
/// build, and the `--schema` that types `self`/`oldSelf` (declared in the environment).
fn start(
    args: &ExpressionArgs,
    stdin_used: &mut bool,
) -> Result<(String, kcel::Env, Option<RootSchema>), UsageError> {
    let expr = source(args, stdin_used)?;
    let mut env = environment::base(
        args.env.env,
        &args.env.libraries,
        args.env.container.as_deref(),
    );
    let schema = RootSchema::load(&args.schema, &mut env)?;
    Ok((expr, env, schema))
}

/// Compiles and evaluates the expression, printing the value.
pub fn eval(args: &ExpressionArgs) -> Status {
    let env_args = &args.env;
    let format = args.output.format;
    let mut stdin_used = false;
    let (expr, mut env, schema) = match start(args, &mut stdin_used) {
        Ok(started) => started,
        Err(e) => return usage(&e),
    };
    let mut values = match variables::bind(
        &mut env,
        &env_args.vars,
        &env_args.declarations,
        schema.as_ref(),
        &mut stdin_used,
    ) {
        Ok(values) => values,
        Err(e) => return usage(&e),
    };
    if let Some(spec) = &args.authorizer {
        if let Err(e) = authorizer_not_given(env_args) {
            return usage(&e);
        }
        match authorizer::value(spec) {
            Ok(value) => {
                env.declare(authorizer::NAME, authorizer::declared_type());
                values.insert(authorizer::NAME.to_string(), value);
            }
            Err(e) => return usage(&e),
        }
    }
    let options = environment::program_options(env_args.env, &args.program);
    let (ast, program) = match kcel::report::compile(&env, &expr, &options) {
        Ok(compiled) => compiled,
        Err(failure) => return fail(format, &failure),
    };
    let (result, details) = program.eval_with_details(&values);
    let value = match result.and_then(|v| environment::printable(&v, &options).map(|()| v)) {
        Ok(value) => value,
        Err(e) => {
            let status = fail(format, &Failure::from_eval(&program, &e));
            if let Some(hint) = variables::unbound_hint(&e, &env, &values) {
                if format.is_text() {
                    eprintln!("{hint}");
                }
            }
            return status;
        }
    };
    match (format, &value) {
        (Format::Text | Format::Cel, Value::String(text)) if args.raw => outln!("{text}"),
        // Values display as CEL literals (kcel::Value's Display).
        (Format::Text | Format::Cel, _) => outln!("{value}"),
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
    if args.exit_status && matches!(value, Value::Bool(false) | Value::Null) {
        Status::False
    } else {
        Status::Ok
    }
}

/// `--authorizer` binds `authorizer`: it may not also be given with `--var` or `--declare`.
fn authorizer_not_given(args: &EnvArgs) -> Result<(), UsageError> {
    if args.vars.iter().any(|(n, _)| n == authorizer::NAME)
        || args.declarations.iter().any(|(n, _)| n == authorizer::NAME)
    {
        return Err(UsageError::AuthorizerBoundTwice);
    }
    Ok(())
}

/// Parses, type-checks and plans the expression, printing its type and estimated cost.
/// Variables' values are not read: `--var` names are declared `dyn` unless declared.
pub fn check(args: &ExpressionArgs) -> Status {
    let env_args = &args.env;
    let format = args.output.format;
    let mut stdin_used = false;
    let (expr, mut env, schema) = match start(args, &mut stdin_used) {
        Ok(started) => started,
        Err(e) => return usage(&e),
    };
    if let Err(e) = variables::declare(
        &mut env,
        &env_args.vars,
        &env_args.declarations,
        schema.as_ref(),
    ) {
        return usage(&e);
    }
    if args.authorizer.is_some() {
        if let Err(e) = authorizer_not_given(env_args) {
            return usage(&e);
        }
        env.declare(authorizer::NAME, authorizer::declared_type());
    }
    let options = environment::program_options(env_args.env, &args.program);
    let (ast, _) = match kcel::report::compile(&env, &expr, &options) {
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
        Format::Text | Format::Cel => {
            outln!("{ty}\nestimated cost: min {}, max {}", cost.min, cost.max)
        }
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

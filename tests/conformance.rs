//! The cel-spec conformance suite, read from `../shared/cel-spec/tests/*.json`.
//!
//! Without that directory (a fresh clone) the whole suite is skipped, said on a line and
//! counted as one skip; under CI (`CI=true`) that is a failure instead (see
//! `support/shared_data.rs`).
//!
//! Every test runs, listed skips included: a skip that fails is counted as skipped, a skip
//! that passes is a failure (the list may only shrink). Skips live in
//! `tests/conformance/skips.txt`, one `file/section/test[#n]: reason` per line, and each
//! reason must start with one of [`REASONS`]. `KCEL_BLESS=1` rewrites that file: passing
//! entries are dropped, new failures are added with a reason derived from the test's
//! content (or "not yet implemented").
//!
//! Every test that evaluates is also evaluated in reference mode
//! (`ProgramOptions::reference`, every evaluation shortcut off) and by a traced program
//! (`kcel::trace`, reference mode recording every step), which must agree with the
//! program under test value for value, error for error (with its position) and cost for
//! cost; a disagreement fails the run whether or not the test is a listed skip.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use kcel::library::{Function, Overload};
use kcel::{Env, Key, Map, Type, Value};
use serde_json::Value as Json;

#[path = "support/block_macros.rs"]
mod block_macros;
use block_macros::{BLOCK_TEST_INDICES, block_test_library};
#[path = "support/outcome.rs"]
mod outcome;
use outcome::outcome;
#[path = "support/shared_data.rs"]
mod shared_data;

/// The reasons a skip may give.
const REASONS: &[&str] = &[
    "needs protobuf message types",
    "needs the type checker",
    "needs an extension library not built yet",
    "not yet implemented",
    "cel-go behaves differently",
];

const SKIPS: &str = "tests/conformance/skips.txt";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(suite) = shared_data::shared_data("cel-spec/tests", "the cel-spec conformance suite")
    else {
        println!("conformance: 0 passed, 0 failed, 1 skipped (the whole suite)");
        return;
    };
    let skips_path = root.join(SKIPS);
    let skips = read_skips(&skips_path);
    let bless = std::env::var_os("KCEL_BLESS").is_some();

    let mut files: Vec<PathBuf> = match std::fs::read_dir(&suite) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            eprintln!("cannot read {}: {e}", suite.display());
            std::process::exit(1);
        }
    };
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();

    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let (mut reference_compared, mut reference_failed) = (0, 0);
    let mut new_skips: BTreeMap<String, String> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for path in &files {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let doc: Json = match serde_json::from_str(&text) {
            Ok(d) => d,
            Err(e) => {
                println!("{stem}: unreadable JSON: {e}");
                failed += 1;
                continue;
            }
        };
        let (mut p, mut f, mut s) = (0, 0, 0);
        for section in arr(&doc, "section") {
            let sname = str_of(section, "name");
            let mut counts: HashMap<String, usize> = HashMap::new();
            for test in arr(section, "test") {
                let tname = str_of(test, "name");
                let n = counts.entry(tname.to_string()).or_default();
                let id = if *n == 0 {
                    format!("{stem}/{sname}/{tname}")
                } else {
                    format!("{stem}/{sname}/{tname}#{n}")
                };
                *n += 1;
                seen.insert(id.clone());
                let mut reference = ReferenceRuns::default();
                let outcome = run_test(test, &mut reference);
                reference_compared += reference.compared;
                for d in reference.disagreements {
                    reference_failed += 1;
                    println!(
                        "REFERENCE MODE {id}\n    expr: {}\n    {d}",
                        str_of(test, "expr")
                    );
                }
                match (outcome, skips.get(&id)) {
                    (Ok(()), None) => p += 1,
                    (Ok(()), Some(reason)) => {
                        f += 1;
                        println!("UNEXPECTED PASS {id} (listed as skip: {reason})");
                    }
                    (Err(_), Some(reason)) => {
                        s += 1;
                        new_skips.insert(id, reason.clone());
                    }
                    (Err(msg), None) => {
                        f += 1;
                        println!("FAIL {id}\n    expr: {}\n    {msg}", str_of(test, "expr"));
                        new_skips.insert(id, classify(&stem, test));
                    }
                }
            }
        }
        println!("{stem}: {p} passed, {f} failed, {s} skipped");
        passed += p;
        failed += f;
        skipped += s;
    }

    let stale: Vec<_> = skips.keys().filter(|k| !seen.contains(*k)).collect();
    for k in &stale {
        println!("STALE SKIP {k}: no such test");
    }
    let bad_reasons: Vec<_> = skips
        .iter()
        .filter(|(_, r)| !REASONS.iter().any(|ok| r.starts_with(ok)))
        .collect();
    for (k, r) in &bad_reasons {
        println!("BAD SKIP REASON {k}: {r}");
    }

    if bless {
        let mut out = String::from(
            "# Conformance tests that are expected to fail, with the reason.\n\
             # Format: file/section/test[#n]: reason. Regenerate with KCEL_BLESS=1.\n",
        );
        for (k, r) in &new_skips {
            let _ = writeln!(out, "{k}: {r}");
        }
        if let Err(e) = std::fs::write(&skips_path, out) {
            eprintln!("cannot write {}: {e}", skips_path.display());
        }
        println!("blessed: {} skips written to {SKIPS}", new_skips.len());
    }

    println!(
        "reference mode: {} agreed, {reference_failed} disagreed",
        reference_compared - reference_failed
    );
    println!("conformance: {passed} passed, {failed} failed, {skipped} skipped");
    if !bless
        && (failed > 0 || reference_failed > 0 || !stale.is_empty() || !bad_reasons.is_empty())
    {
        std::process::exit(1);
    }
}

fn read_skips(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (k, r) = l.split_once(": ")?;
            Some((k.trim().to_string(), r.trim().to_string()))
        })
        .collect()
}

/// Derives a skip reason from what a test needs.
fn classify(file: &str, test: &Json) -> String {
    let text = test.to_string();
    let proto_markers = [
        "TestAllTypes",
        "NestedTestAllTypes",
        "google.protobuf.Any",
        "google.protobuf.Struct",
        "google.protobuf.Value",
        "google.protobuf.ListValue",
        "google.protobuf.Int32Value",
        "google.protobuf.Int64Value",
        "google.protobuf.UInt32Value",
        "google.protobuf.UInt64Value",
        "google.protobuf.FloatValue",
        "google.protobuf.DoubleValue",
        "google.protobuf.BoolValue",
        "google.protobuf.StringValue",
        "google.protobuf.BytesValue",
        "google.protobuf.Empty",
        "google.protobuf.FieldMask",
        "GlobalEnum",
        "\"wrapper\"",
        "\"message_type\"",
        "object_value",
        "enum_value",
    ];
    let container = str_of(test, "container");
    let proto_container =
        container.starts_with("google.protobuf") || container.starts_with("cel.expr.conformance");
    if proto_container || proto_markers.iter().any(|m| text.contains(m)) {
        return "needs protobuf message types".into();
    }
    let ext = match file {
        "string_ext" => Some("strings"),
        "math_ext" => Some("math"),
        "encoders_ext" => Some("encoders"),
        "bindings_ext" => Some("bindings"),
        "block_ext" => Some("block"),
        "network_ext" => Some("network"),
        "optionals" => Some("optionals"),
        "macros2" => Some("two-variable comprehensions"),
        "proto2_ext" => Some("proto extensions"),
        _ if text.contains("optional.") || text.contains(".?") || text.contains("[?") => {
            Some("optionals")
        }
        _ => None,
    };
    if let Some(e) = ext {
        return format!("needs an extension library not built yet ({e})");
    }
    if test.get("check_only").is_some()
        || test
            .get("typed_result")
            .and_then(|t| t.get("deduced_type"))
            .is_some()
    {
        return "needs the type checker".into();
    }
    "not yet implemented".into()
}

fn arr<'a>(v: &'a Json, key: &str) -> &'a [Json] {
    v.get(key)
        .and_then(Json::as_array)
        .map_or(&[], |a| a.as_slice())
}

fn str_of<'a>(v: &'a Json, key: &str) -> &'a str {
    v.get(key).and_then(Json::as_str).unwrap_or("")
}

/// Runs one test; `Err` describes the mismatch.
/// How the reference-mode runs compared (see [`agrees_in_reference_mode`]).
#[derive(Default)]
struct ReferenceRuns {
    compared: usize,
    disagreements: Vec<String>,
}

fn run_test(test: &Json, reference: &mut ReferenceRuns) -> Result<(), String> {
    let mut env = Env::new();
    env.add_library(&kcel_stdlib::optional::optional(
        kcel_stdlib::optional::LATEST,
    ));
    env.add_library(&kcel_stdlib::comprehensions::bindings(
        kcel_stdlib::comprehensions::BINDINGS_VERSION,
    ));
    // cel-go's runner adds its test-only block library to every test.
    env.add_library(&block_test_library());
    for i in 0..BLOCK_TEST_INDICES {
        env.declare(format!("@index{i}"), Type::Dyn);
    }
    env.add_library(&kcel_stdlib::comprehensions::two_var_comprehensions());
    // cel-go's runner enables its extension libraries for every file; the network library
    // is enabled too, for network_ext (a file cel-go's runner does not run).
    for lib in kcel_stdlib::ext::all() {
        env.add_library(&lib);
    }
    env.set_container(str_of(test, "container"));
    for decl in arr(test, "type_env") {
        if let Some(ident) = decl.get("ident") {
            let ty = decode_type(ident.get("type").unwrap_or(&Json::Null))?;
            env.declare(str_of(decl, "name"), ty);
        }
        if let Some(function) = decl.get("function") {
            let mut overloads = Vec::new();
            for o in arr(function, "overloads") {
                overloads.push(Overload::declared(
                    str_of(o, "overload_id"),
                    o.get("is_instance_function").and_then(Json::as_bool) == Some(true),
                    arr(o, "params")
                        .iter()
                        .map(decode_type)
                        .collect::<Result<_, _>>()?,
                    decode_type(o.get("result_type").unwrap_or(&Json::Null))?,
                ));
            }
            env.declare_function(Function::declared(str_of(decl, "name"), overloads));
        }
    }
    let mut bindings: HashMap<String, Value> = HashMap::new();
    if let Some(Json::Object(b)) = test.get("bindings") {
        for (name, ev) in b {
            let v = ev
                .get("value")
                .ok_or_else(|| format!("binding {name} is not a value"))?;
            bindings.insert(name.clone(), decode_value(v)?);
        }
    }
    let expr = str_of(test, "expr");
    let checked = test.get("disable_check").is_none();
    let ast = if checked {
        env.compile(expr)
    } else {
        env.parse(expr)
    }
    .map_err(|e| format!("compile error: {e}"))?;
    if let Some(want) = test.get("typed_result").and_then(|t| t.get("deduced_type")) {
        let want = decode_type(want)?;
        match ast.output_type() {
            Some(got) if *got == want => {}
            got => return Err(format!("want type {want}, got {got:?}")),
        }
    }
    if test.get("check_only").is_some() {
        return Ok(());
    }
    let program = env
        .program(&ast)
        .map_err(|e| format!("program error: {e}"))?;
    let result = program.eval(&bindings);
    reference.compared += 1;
    if let Err(e) = agrees_in_reference_mode(&env, &ast, &program, &bindings) {
        reference.disagreements.push(e);
    }

    let expected = if let Some(v) = test.get("value") {
        Some(decode_value(v)?)
    } else if let Some(tr) = test.get("typed_result") {
        Some(decode_value(tr.get("result").unwrap_or(&Json::Null))?)
    } else if test.get("eval_error").is_some() || test.get("any_eval_errors").is_some() {
        None
    } else if test.get("unknown").is_some() || test.get("any_unknowns").is_some() {
        return Err("unknown results are not supported".into());
    } else {
        Some(Value::Bool(true))
    };
    match (expected, result) {
        (Some(want), Ok(got)) if same(&want, &got) => Ok(()),
        (Some(want), Ok(got)) => Err(format!("want {want}, got {got}")),
        (Some(want), Err(e)) => Err(format!(
            "want {want}, got error: {}",
            program.render_error(&e)
        )),
        (None, Err(_)) => Ok(()),
        (None, Ok(got)) => Err(format!("want an error, got {got}")),
    }
}

/// Every test runs a second time in reference mode (`ProgramOptions::reference`: no
/// evaluation shortcut), which must give the same value or error (at the same position) and
/// the same actual cost as the program under test.
fn agrees_in_reference_mode(
    env: &Env,
    ast: &kcel::Ast,
    program: &kcel::Program,
    bindings: &HashMap<String, Value>,
) -> Result<(), String> {
    let options = env.program_options().with_reference(true);
    let reference = env
        .program_with(ast, options)
        .map_err(|e| format!("reference mode: program error: {e}"))?;
    let fast = outcome(program, bindings);
    let slow = outcome(&reference, bindings);
    if fast != slow {
        return Err(format!(
            "reference mode disagrees: {slow:?}, the program under test: {fast:?}"
        ));
    }
    // A traced program (kcel::trace, reference mode recording every step) too.
    let traced = env
        .traced_program(ast, env.program_options())
        .map_err(|e| format!("traced: program error: {e}"))?;
    let (result, details, trace) = traced.eval_traced(bindings, 100_000);
    let shown = match result {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("{} at {:?}", e, e.node().and_then(|n| traced.span(n))),
    };
    if (shown.clone(), details.actual_cost) != fast {
        return Err(format!(
            "the traced program disagrees: {:?}, the program under test: {fast:?}",
            (shown, details.actual_cost)
        ));
    }
    if trace
        .steps
        .first()
        .is_some_and(|s| s.cost != details.actual_cost)
    {
        return Err(format!(
            "the traced root step costs {}, the evaluation {}",
            trace.steps[0].cost, details.actual_cost
        ));
    }
    Ok(())
}

/// Strict structural equality for results: types must match exactly (1 is not 1u), maps
/// ignore order, and NaN matches NaN.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        (Value::Type(x), Value::Type(y)) => x.name() == y.name(),
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a == b,
    }
}

fn decode_value(v: &Json) -> Result<Value, String> {
    let Json::Object(o) = v else {
        return Err(format!("bad value: {v}"));
    };
    let Some((kind, x)) = o.iter().next() else {
        return Err("empty value".into());
    };
    let int = |x: &Json| -> Result<String, String> {
        match x {
            Json::String(s) => Ok(s.clone()),
            Json::Number(n) => Ok(n.to_string()),
            _ => Err(format!("bad integer {x}")),
        }
    };
    Ok(match kind.as_str() {
        "null_value" => Value::Null,
        "bool_value" => Value::Bool(x.as_bool().unwrap_or(false)),
        "int64_value" => Value::Int(int(x)?.parse().map_err(|e| format!("{e}"))?),
        "uint64_value" => Value::Uint(int(x)?.parse().map_err(|e| format!("{e}"))?),
        "double_value" => Value::Double(match x {
            Json::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            Json::String(s) if s == "NaN" => f64::NAN,
            Json::String(s) if s == "Infinity" => f64::INFINITY,
            Json::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            _ => return Err(format!("bad double {x}")),
        }),
        "string_value" => Value::String(x.as_str().unwrap_or("").into()),
        "bytes_value" => Value::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(x.as_str().unwrap_or(""))
                .map_err(|e| format!("bad base64: {e}"))?
                .into(),
        ),
        "list_value" => Value::List(Arc::new(
            arr(x, "values")
                .iter()
                .map(decode_value)
                .collect::<Result<_, _>>()?,
        )),
        "map_value" => {
            let mut m = Map::new();
            for e in arr(x, "entries") {
                let k = decode_value(e.get("key").unwrap_or(&Json::Null))?;
                let v = decode_value(e.get("value").unwrap_or(&Json::Null))?;
                let k = Key::from_value(&k).ok_or_else(|| format!("bad map key {k}"))?;
                m.insert(k, v);
            }
            Value::Map(Arc::new(m))
        }
        "type_value" => {
            let name = x.as_str().unwrap_or("");
            Value::Type(
                kcel::TypeValue::builtin(name)
                    .unwrap_or_else(|| kcel::TypeValue::Named(Arc::new(name.to_string()))),
            )
        }
        other => return Err(format!("unsupported value kind {other}")),
    })
}

fn decode_type(t: &Json) -> Result<Type, String> {
    let Json::Object(o) = t else {
        return Err(format!("bad type {t}"));
    };
    let Some((kind, x)) = o.iter().next() else {
        return Err("empty type".into());
    };
    Ok(match kind.as_str() {
        "dyn" => Type::Dyn,
        "null" => Type::Null,
        "primitive" => match x.as_str().unwrap_or("") {
            "BOOL" => Type::Bool,
            "INT64" => Type::Int,
            "UINT64" => Type::Uint,
            "DOUBLE" => Type::Double,
            "STRING" => Type::String,
            "BYTES" => Type::Bytes,
            p => return Err(format!("unknown primitive {p}")),
        },
        "well_known" => match x.as_str().unwrap_or("") {
            "TIMESTAMP" => Type::Timestamp,
            "DURATION" => Type::Duration,
            "ANY" => Type::Dyn,
            w => return Err(format!("unknown well-known type {w}")),
        },
        "list_type" => Type::list(decode_type(x.get("elem_type").unwrap_or(&Json::Null))?),
        "map_type" => Type::map(
            decode_type(x.get("key_type").unwrap_or(&Json::Null))?,
            decode_type(x.get("value_type").unwrap_or(&Json::Null))?,
        ),
        "type" => Type::TypeOf(Arc::new(decode_type(x)?)),
        "type_param" => Type::Param(x.as_str().unwrap_or("T").into()),
        "error" => Type::Error,
        "abstract_type" => {
            let params = arr(x, "parameter_types")
                .iter()
                .map(decode_type)
                .collect::<Result<Vec<_>, _>>()?;
            match (str_of(x, "name"), params.as_slice()) {
                ("optional_type", [p]) => Type::Optional(Arc::new(p.clone())),
                (name, _) => Type::Named(name.into(), params),
            }
        }
        "message_type" => Type::Object(x.as_str().unwrap_or("").into()),
        "wrapper" => return Err("wrapper types need protobuf".into()),
        other => return Err(format!("unsupported type kind {other}")),
    })
}

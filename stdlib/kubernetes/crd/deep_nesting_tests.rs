//! Issue 28: documents nested as deep as Kubernetes reads them (10,000 levels) are read,
//! pruned, defaulted, validated and their rules evaluated; and the stack each recursive walk
//! takes per level, measured, fits [`DEEP_STACK`].

use serde_json::{Value as J, json};

use super::{CompileOptions, Schema, Validator, defaulting, list_invariants, openapi, pruning};
use crate::documents::{DEEP_STACK, MAX_DEPTH, read_body, read_manifests, with_deep_stack};
use crate::kubernetes::merge::{apply_schema::OpenApi, fieldpath, typed};

/// No schema for the structured merge: every map key is a member of a field set, the
/// largest set a chain makes.
const UNTYPED: Option<OpenApi<'static>> = None;

/// A custom resource's schema whose `spec.a` keeps any value (so the schema is shallow and
/// the data deep), with a default and two rules: one that compares the deep field whole
/// with its old value, one on a shallow field.
fn schema() -> Schema {
    Schema::from_json(&json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"mode": {"type": "string", "default": "deep"},
                       "limit": {"type": "integer", "maximum": 5},
                       "a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                             "x-kubernetes-validations": [
                                 {"rule": "self == oldSelf", "message": "a is immutable"}]}},
        "x-kubernetes-validations": [{"rule": "self.limit < 3"}]}}}))
    .expect("a schema")
}

/// The JSON text of an object nested `levels` levels deep (the root and `spec` are two):
/// `spec.a` is a chain of objects, the innermost `{"leaf": leaf}`; `extra` is pruned.
fn deep_text(levels: usize, limit: i64, leaf: i64) -> String {
    let chain = levels - 3;
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Deep","metadata":{{"name":"d"}},"extra":1,"spec":{{"limit":{limit},"a":{}{{"leaf":{leaf}}}{}}}}}"#,
        "{\"a\":".repeat(chain),
        "}".repeat(chain)
    )
}

fn deep_object(levels: usize, limit: i64, leaf: i64) -> J {
    read_body(deep_text(levels, limit, leaf).as_bytes(), false)
        .expect("read")
        .0
}

/// The deepest object Kubernetes reads is validated end to end on this (test) thread's
/// 2 MiB stack through [`with_deep_stack`]: the unknown field pruned, the default applied,
/// the rules run — on update the one that compares the deep field with its old value finds
/// the innermost change.
#[test]
fn objects_nested_10000_levels_validate() {
    with_deep_stack(|| {
        let validator = Validator::new(&schema(), CompileOptions::default());
        let errors = validator.compiled().errors();
        assert!(errors.is_empty(), "{errors:?}");
        let old = std::sync::Arc::new(deep_object(MAX_DEPTH, 1, 1));
        let limit = "spec: Invalid value: failed rule: self.limit < 3";
        let immutable = "spec.a: Invalid value: a is immutable";
        for (limit_value, leaf, update, errors) in [
            (1, 1, false, vec![]),
            (4, 1, false, vec![limit]),
            (1, 1, true, vec![]),
            (1, 2, true, vec![immutable]),
        ] {
            let object = deep_object(MAX_DEPTH, limit_value, leaf);
            let old = update.then_some(&old);
            let (stored, outcome) =
                validator.validate_owned(object, old, super::PER_OBJECT_COST_BUDGET, Vec::new());
            let found: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
            assert_eq!(
                found, errors,
                "limit {limit_value}, leaf {leaf}, update {update}"
            );
            assert_eq!(stored["spec"]["mode"], "deep");
            assert!(stored.get("extra").is_none(), "pruned");
        }
    });
}

/// The text of one more level gets encoding/json's error.
#[test]
fn one_level_more_is_kubernetes_error() {
    let text = deep_text(MAX_DEPTH + 1, 1, 1);
    assert_eq!(
        read_manifests(&text).unwrap_err().to_string(),
        "invalid JSON: invalid character '{' exceeded max depth"
    );
}

/// Bytes of stack a fresh thread (given a stack far larger than [`DEEP_STACK`]) has touched
/// once `step` ran on it: the resident size of the stack's mapping (`/proc/self/smaps`).
#[cfg(target_os = "linux")]
fn stack_touched<T: Send + 'static>(input: T, step: fn(T)) -> usize {
    std::thread::Builder::new()
        .stack_size(8 * DEEP_STACK)
        .spawn(move || {
            step(input);
            let here = 0u8;
            resident_bytes_of(std::hint::black_box(&here) as *const u8 as usize)
        })
        .expect("a thread")
        .join()
        .expect("the step ran")
}

/// The resident bytes (`Rss`) of the mapping holding `address`.
#[cfg(target_os = "linux")]
fn resident_bytes_of(address: usize) -> usize {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
        if let Some((from, to)) = range
            && let (Ok(from), Ok(to)) = (
                usize::from_str_radix(from, 16),
                usize::from_str_radix(to, 16),
            )
        {
            inside = from <= address && address < to;
            continue;
        }
        if inside && let Some(rss) = line.strip_prefix("Rss:") {
            let kib = rss.trim().trim_end_matches("kB").trim();
            return kib.parse::<usize>().expect("a size in kB") * 1024;
        }
    }
    panic!("no mapping holds the stack address {address:#x}")
}

/// The stack each recursive walk over a document [`MAX_DEPTH`] levels deep takes, measured
/// on threads of their own: every one fits in half of [`DEEP_STACK`] (room for the frames
/// of whatever calls it). `cargo test -p kcel-stdlib --lib walkers_fit -- --nocapture`
/// prints the table (bytes per level; unoptimised frames are the largest).
#[cfg(target_os = "linux")]
#[test]
fn walkers_fit_the_deep_stack() {
    type Step = (&'static str, fn(J));
    let steps: [Step; 16] = [
        ("nothing (the thread's own use)", std::mem::forget),
        ("read (JSON)", |v| {
            std::mem::forget(read_body(deep_text(MAX_DEPTH, 1, 1).as_bytes(), false));
            std::mem::forget(v);
        }),
        ("read (YAML)", |v| {
            let yaml = format!("a:\n  {}leaf\n", "- ".repeat(MAX_DEPTH - 1));
            std::mem::forget(read_manifests(&yaml).expect("read"));
            std::mem::forget(v);
        }),
        ("drop", drop),
        ("clone", |v| std::mem::forget((v.clone(), v))),
        ("equality", |v| {
            let copy = v.clone();
            assert!(copy == v);
            std::mem::forget((copy, v));
        }),
        ("serialization", |v| {
            std::mem::forget((serde_json::to_vec(&v), v));
        }),
        ("pruning", |mut v| {
            pruning::prune(&mut v, &schema());
            std::mem::forget(v);
        }),
        ("nulls and defaults", |mut v| {
            defaulting::prepare_in_place(&mut v, &schema());
            std::mem::forget(v);
        }),
        ("OpenAPI validation", |v| {
            std::mem::forget((openapi::validate_update(&v, Some(&v), &schema()), v));
        }),
        ("list invariants", |v| {
            std::mem::forget((list_invariants::validate(&v, &schema()), v));
        }),
        ("CEL value (conversion and drop)", |v| {
            drop(kcel::Value::from(&v));
            std::mem::forget(v);
        }),
        ("field set and fieldsV1 (both ways)", |v| {
            let set = typed::to_field_set(&v, &UNTYPED);
            let fields = fieldpath::to_fields_v1(&set);
            let read = fieldpath::from_fields_v1(&fields).expect("fieldsV1");
            assert!(read == set);
            std::mem::forget((set, fields, read, v));
        }),
        ("comparison (of a changed leaf)", |v| {
            let mut other = v.clone();
            other["spec"]["limit"] = json!(2);
            let c = typed::compare(&v, &other, &UNTYPED);
            assert!(!c.modified.is_empty());
            std::mem::forget((c, other, v));
        }),
        ("merge (an apply)", |v| {
            std::mem::forget((typed::merge(&v, &v, &UNTYPED), v));
        }),
        ("validation with rules (an update)", |v| {
            let validator = Validator::new(&schema(), CompileOptions::default());
            let old = v.clone();
            std::mem::forget((validator.validate(&v, Some(&old)), v, old));
        }),
    ];
    let baseline = stack_touched(J::Null, |_| {});
    println!(
        "stack per level at {MAX_DEPTH} levels (unoptimised: {})",
        cfg!(debug_assertions)
    );
    let mut worst = 0;
    for (name, step) in steps {
        // Each input is built (by the iterative reader) before the step's thread starts.
        let used = stack_touched(deep_object(MAX_DEPTH, 1, 1), step).saturating_sub(baseline);
        println!(
            "{name:>34}: {:>9} bytes, {:>5} per level",
            used,
            used / MAX_DEPTH
        );
        worst = worst.max(used);
    }
    assert!(
        worst <= DEEP_STACK / 2,
        "a walk took {worst} bytes of stack; DEEP_STACK is {DEEP_STACK}"
    );
}

//! Property test (issue #28): validation of arbitrary JSON against arbitrary generated
//! structural schemas — every keyword kcel validates (types, formats, enum, pattern, bounds,
//! lengths, required, list types set/map, int-or-string, preserve-unknown-fields, nullable,
//! additionalProperties, CEL rules) — never panics, and every error it reports names a field
//! and renders. Cases: `PROPTEST_CASES` (default below) for longer runs by hand.

use kcel_stdlib::kubernetes::crd::{CompileOptions, Schema, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};

const FORMATS: &[&str] = &[
    "int32",
    "int64",
    "date",
    "date-time",
    "duration",
    "uuid",
    "ipv4",
    "ipv6",
    "cidr",
    "email",
    "hostname",
    "uri",
    "mac",
    "byte",
    "isbn",
    "creditcard",
    "hexcolor",
    "k8s-short-name",
    "unknown-format",
];

const KEYS: &[&str] = &["a", "b", "c", "k", "name"];

fn with_common(mut schema: Value, nullable: bool, rule: bool) -> Value {
    if nullable {
        schema["nullable"] = json!(true);
    }
    if rule {
        schema["x-kubernetes-validations"] = json!([{"rule": "self == self"}]);
    }
    schema
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    let string = (
        proptest::option::of(0u64..8),
        proptest::option::of(0u64..4),
        proptest::option::of(prop::sample::select(vec!["^[a-z]+$", "a|b", ".*", "^x"])),
        proptest::option::of(prop::sample::select(FORMATS)),
        any::<bool>(),
    )
        .prop_map(|(max, min, pattern, format, enumerated)| {
            let mut s = json!({"type": "string"});
            if let Some(m) = max {
                s["maxLength"] = json!(m);
            }
            if let Some(m) = min {
                s["minLength"] = json!(m);
            }
            if let Some(p) = pattern {
                s["pattern"] = json!(p);
            }
            if let Some(f) = format {
                s["format"] = json!(f);
            }
            if enumerated {
                s["enum"] = json!(["a", "b", "2024-01-01"]);
            }
            s
        });
    let number = (
        prop::sample::select(vec!["integer", "number"]),
        proptest::option::of(-5i64..5),
        proptest::option::of(-5i64..50),
        proptest::option::of(1i64..4),
        any::<bool>(),
    )
        .prop_map(|(ty, min, max, multiple, exclusive)| {
            let mut s = json!({"type": ty});
            if let Some(m) = min {
                s["minimum"] = json!(m);
                s["exclusiveMinimum"] = json!(exclusive);
            }
            if let Some(m) = max {
                s["maximum"] = json!(m);
            }
            if let Some(m) = multiple {
                s["multipleOf"] = json!(m);
            }
            s
        });
    let base = prop_oneof![
        string,
        number,
        Just(json!({"type": "boolean"})),
        Just(json!({"x-kubernetes-int-or-string": true})),
        Just(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})),
    ];
    (base, any::<bool>(), prop::bool::weighted(0.2))
        .prop_map(|(s, nullable, rule)| with_common(s, nullable, rule))
}

fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(4, 24, 4, |inner| {
        let object = (
            prop::collection::btree_map(prop::sample::select(KEYS), inner.clone(), 0..4),
            prop::collection::vec(prop::sample::select(KEYS), 0..2),
            proptest::option::of(0u64..3),
            any::<bool>(),
        )
            .prop_map(|(props, required, max_props, rule)| {
                let required: Vec<&str> = required
                    .into_iter()
                    .filter(|k| props.contains_key(k))
                    .collect();
                let mut s = json!({"type": "object", "properties": props});
                if !required.is_empty() {
                    s["required"] = json!(required);
                }
                if let Some(m) = max_props {
                    s["maxProperties"] = json!(m);
                }
                with_common(s, false, rule)
            });
        let map = inner
            .clone()
            .prop_map(|v| json!({"type": "object", "additionalProperties": v}));
        let array = (
            inner.clone(),
            proptest::option::of(0u64..4),
            proptest::option::of(0u64..2),
            any::<bool>(),
        )
            .prop_map(|(items, max, min, unique_set)| {
                let scalar = items
                    .get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| matches!(t, "string" | "integer" | "number" | "boolean"));
                let mut s = json!({"type": "array", "items": items});
                if let Some(m) = max {
                    s["maxItems"] = json!(m);
                }
                if let Some(m) = min {
                    s["minItems"] = json!(m);
                }
                if unique_set && scalar {
                    s["x-kubernetes-list-type"] = json!("set");
                }
                s
            });
        let list_map = prop::collection::btree_map(prop::sample::select(KEYS), inner, 0..3)
            .prop_map(|mut props| {
                props.insert("k", json!({"type": "string"}));
                json!({
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["k"],
                    "items": {"type": "object", "required": ["k"], "properties": props},
                })
            });
        prop_oneof![object, map, array, list_map]
    })
}

fn root() -> impl Strategy<Value = Value> {
    (schema(), schema()).prop_map(|(spec, status)| {
        json!({
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": spec,
                "status": status,
            },
        })
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-10i64..60).prop_map(|i| json!(i)),
        any::<i64>().prop_map(|i| json!(i)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z0-9@.:/-]{0,10}".prop_map(Value::String),
        Just(json!("2024-01-01")),
        Just(json!("192.168.0.1")),
        Just(json!("01:02:03:04:05:06")),
        Just(json!("1h")),
        Just(json!("a")),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    prop::sample::select(KEYS).prop_map(String::from),
                    "[a-z]{1,2}"
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(96)
    ))]

    /// Arbitrary objects against arbitrary schemas: no panic; errors name their field.
    #[test]
    fn generated_schemas_validate_without_panic(
        schema in root(),
        spec in json_value(),
        status in json_value(),
        old in json_value(),
    ) {
        let Ok(schema) = Schema::from_json(&schema) else {
            return Ok(());
        };
        let validator = Validator::new(&schema, CompileOptions::default());
        let object = json!({
            "apiVersion": "x.example.com/v1",
            "kind": "X",
            "metadata": {"name": "n"},
            "spec": spec,
            "status": status,
        });
        let old_object = json!({
            "apiVersion": "x.example.com/v1",
            "kind": "X",
            "metadata": {"name": "n"},
            "spec": old,
        });
        for old in [None, Some(&old_object)] {
            let outcome = validator.validate(&object, old);
            for error in &outcome.errors {
                let text = error.to_string();
                prop_assert!(!text.is_empty());
            }
        }
    }
}

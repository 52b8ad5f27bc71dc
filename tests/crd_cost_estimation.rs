//! Static cost estimates of single rules, from kubernetes
//! `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation_test.go`
//! (`TestCostEstimation`): each case is checked with the generated schema unbounded
//! (`expectedCalcCost`) and with every max limit set to `setMaxElements`
//! (`expectedSetCost`), in the rule environment with the Kubernetes libraries.

use kcel_stdlib::kubernetes::crd::{CompileOptions, compile_schema, rule_env};
use kcel_stdlib::kubernetes::crd::{FieldPath, Schema};
use serde_json::{Value, json};

/// The item schema for a rule type name (`parseRuleType` upstream).
fn scalar(ty: &str) -> Value {
    match ty {
        "duration" | "date" | "date-time" => json!({"type": "string", "format": ty}),
        "int-or-string" => json!({"x-kubernetes-int-or-string": true}),
        other => json!({"type": other}),
    }
}

fn with_rule(mut schema: Value, rule: &str) -> Value {
    schema["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    schema
}

fn set(schema: &mut Value, key: &str, max: Option<i64>) {
    if let Some(m) = max {
        schema[key] = json!(m);
    }
}

type Generator = Box<dyn Fn(Option<i64>) -> Value>;

fn array(item: &str, rule: &'static str) -> Generator {
    let item = scalar(item);
    Box::new(move |max| {
        let mut s = json!({"type": "array", "items": item});
        set(&mut s, "maxItems", max);
        with_rule(s, rule)
    })
}

fn array_of_arrays(item: &str, rule: &'static str) -> Generator {
    let item = scalar(item);
    Box::new(move |max| {
        let mut s = json!({"type": "array", "items": {"type": "array", "items": item}});
        set(&mut s, "maxItems", max);
        with_rule(s, rule)
    })
}

fn required_object() -> Value {
    json!({"type": "object", "required": ["required"], "properties": {
        "required": {"type": "string"}, "optional": {"type": "string"}}})
}

fn object_array(rule: &'static str) -> Generator {
    Box::new(move |max| {
        let mut s = json!({"type": "array", "items": required_object()});
        set(&mut s, "maxItems", max);
        with_rule(s, rule)
    })
}

fn map_array(value: &str, rule: &'static str) -> Generator {
    let value = scalar(value);
    Box::new(move |max| {
        let mut s =
            json!({"type": "array", "items": {"type": "object", "additionalProperties": value}});
        set(&mut s, "maxItems", max);
        with_rule(s, rule)
    })
}

fn map_of(value: Value, rule: &'static str) -> Generator {
    Box::new(move |max| {
        let mut s = json!({"type": "object", "additionalProperties": value});
        set(&mut s, "maxProperties", max);
        with_rule(s, rule)
    })
}

fn map(value: &str, rule: &'static str) -> Generator {
    map_of(scalar(value), rule)
}

fn string(rule: &'static str) -> Generator {
    Box::new(move |max| {
        let mut s = json!({"type": "string"});
        set(&mut s, "maxLength", max);
        with_rule(s, rule)
    })
}

fn bytes(rule: &'static str) -> Generator {
    Box::new(move |max| {
        let mut s = json!({"type": "string", "format": "byte"});
        set(&mut s, "maxLength", max);
        with_rule(s, rule)
    })
}

fn nested_spec(rule: &'static str) -> Generator {
    Box::new(move |max| {
        let mut value = json!({"type": "string"});
        set(&mut value, "maxLength", max);
        let mut s = json!({"type": "object", "additionalProperties": value});
        set(&mut s, "maxProperties", max);
        with_rule(s, rule)
    })
}

fn nested_root(rule: &'static str, all_bounded: bool) -> Generator {
    Box::new(move |max| {
        let mut inner = required_object();
        if all_bounded {
            set(&mut inner, "maxProperties", max);
        }
        let mut item = json!({"type": "object", "additionalProperties": inner});
        set(&mut item, "maxProperties", max);
        let mut s = json!({"type": "array", "items": item});
        if all_bounded {
            set(&mut s, "maxItems", max);
        }
        with_rule(s, rule)
    })
}

fn enum_string(rule: &'static str, values: &'static [&'static str]) -> Generator {
    Box::new(move |max| {
        let mut s = json!({"type": "string", "enum": values});
        set(&mut s, "maxLength", max);
        with_rule(s, rule)
    })
}

fn max_cost(schema: Value) -> u64 {
    let schema = Schema::from_json(&schema).expect("schema");
    let compiled = compile_schema(
        &schema,
        &rule_env(),
        CompileOptions {
            schema_path: FieldPath::root(),
            is_resource_root: false,
            ..CompileOptions::default()
        },
    );
    // Over-budget errors are expected for some unbounded cases; nothing else may fail.
    let failures: Vec<_> = compiled
        .errors()
        .iter()
        .filter(|e| !e.detail.contains("exceeds budget") && !e.detail.contains("cost total"))
        .collect();
    assert!(failures.is_empty(), "{failures:?}");
    compiled.reports()[0].estimated.max
}

#[test]
fn upstream_cost_estimation_table() {
    // (name, generator, expectedCalcCost (0: exceeds the limit), setMaxElements, expectedSetCost)
    let cases: Vec<(&str, Generator, u64, i64, u64)> = vec![
        (
            "number array with all",
            array("number", "self.all(x, true)"),
            4718591,
            10,
            32,
        ),
        (
            "string array with all",
            array("string", "self.all(x, true)"),
            3145727,
            20,
            62,
        ),
        (
            "boolean array with all",
            array("boolean", "self.all(x, true)"),
            1887437,
            5,
            17,
        ),
        (
            "array of number arrays with all",
            array_of_arrays("number", "self.all(x, true)"),
            3145727,
            100,
            302,
        ),
        (
            "array of objects with all",
            object_array("self.all(x, true)"),
            555128,
            50,
            152,
        ),
        (
            "map of numbers with all",
            map("number", "self.all(x, true)"),
            1348169,
            10,
            32,
        ),
        (
            "map of numbers with has",
            map("number", "has(self.x)"),
            0,
            100,
            0,
        ),
        (
            "map of strings with all",
            map("string", "self.all(x, true)"),
            1179647,
            3,
            11,
        ),
        (
            "map of strings with has",
            map("string", "has(self.x)"),
            0,
            550,
            0,
        ),
        (
            "map of booleans with all",
            map("boolean", "self.all(x, true)"),
            943718,
            100,
            302,
        ),
        (
            "map of booleans with has",
            map("boolean", "has(self.x)"),
            0,
            1024,
            0,
        ),
        (
            "string with contains",
            string("self.contains('test')"),
            314574,
            10,
            5,
        ),
        (
            "string with startsWith",
            string("self.startsWith('test')"),
            2,
            15,
            2,
        ),
        (
            "string with endsWith",
            string("self.endsWith('test')"),
            2,
            30,
            2,
        ),
        (
            "concat string",
            string(r#"size(self + "hello") > size("hello")"#),
            314578,
            4,
            7,
        ),
        (
            "index of array with numbers",
            array("number", "self[1] == 0.0"),
            2,
            5000,
            2,
        ),
        (
            "index of array with strings",
            array("string", "self[1] == self[1]"),
            314577,
            8,
            314577,
        ),
        (
            "O(n^2) loop with numbers",
            array("number", "self.all(x, self.all(y, true))"),
            u64::MAX,
            10,
            352,
        ),
        (
            "O(n^3) loop with numbers",
            array("number", "self.all(x, self.all(y, self.all(z, true)))"),
            u64::MAX,
            10,
            3552,
        ),
        (
            "regex matches simple",
            string(r#"self.matches("x")"#),
            314574,
            50,
            22,
        ),
        (
            "regex matches empty string",
            string(r#""".matches("(((((((((())))))))))[0-9]")"#),
            7,
            10,
            7,
        ),
        (
            "regex matches empty regex",
            string(r#"self.matches("")"#),
            1,
            100,
            1,
        ),
        (
            "map of strings with value length",
            nested_spec("self.all(x, x.contains(self[x]))"),
            2752507,
            10,
            72,
        ),
        (
            "set array maxLength to zero",
            array("number", "self[3] == 0.0"),
            2,
            0,
            2,
        ),
        (
            "set map maxLength to zero",
            map("number", r#"self["x"] == 0.0"#),
            2,
            0,
            2,
        ),
        (
            "set string maxLength to zero",
            string(r#"self == "x""#),
            2,
            0,
            1,
        ),
        (
            "set bytes maxLength to zero",
            bytes(r#"self == b"x""#),
            2,
            0,
            1,
        ),
        (
            "set maxLength greater than estimated maxLength",
            array("number", "self.all(x, x == 0.0)"),
            6291454,
            3 * 1024 * 2048,
            25165826,
        ),
        (
            "nested types with root rule with all supporting maxLength",
            nested_root(r#"self.all(x, x["y"].required == "z")"#, true),
            7340027,
            10,
            72,
        ),
        (
            "nested types with root rule with one supporting maxLength",
            nested_root(r#"self.all(x, x["y"].required == "z")"#, false),
            7340027,
            10,
            7340027,
        ),
        (
            "int-or-string array with all",
            array("int-or-string", "self.all(x, true)"),
            4718591,
            10,
            32,
        ),
        (
            "index of array with int-or-strings",
            array("int-or-string", "self[0] == 5"),
            3,
            10,
            3,
        ),
        (
            "index of array with booleans",
            array("boolean", "self[0] == false"),
            2,
            25,
            2,
        ),
        (
            "index of array of objects",
            object_array("self[0] == null"),
            2,
            422,
            2,
        ),
        (
            "index of array of array of numnbers",
            array_of_arrays("number", "self[0][0] == -1.0"),
            3,
            51,
            3,
        ),
        (
            "array of number maps with all",
            map_array("number", "self.all(x, x.y == 25.2)"),
            6291452,
            12,
            74,
        ),
        (
            "index of array of number maps",
            map_array("number", "self[0].x > 2.0"),
            4,
            3000,
            4,
        ),
        (
            "duration array with all",
            array("duration", "self.all(x, true)"),
            2359295,
            5,
            17,
        ),
        (
            "index of duration array",
            array("duration", "self[0].getHours() == 2"),
            4,
            525,
            4,
        ),
        (
            "date array with all",
            array("date", "self.all(x, true)"),
            725936,
            15,
            47,
        ),
        (
            "index of date array",
            array("date", "self[2].getDayOfMonth() == 13"),
            4,
            42,
            4,
        ),
        (
            "date-time array with all",
            array("date-time", "self.all(x, true)"),
            428963,
            25,
            77,
        ),
        (
            "index of date-time array",
            array("date-time", "self[2].getMinutes() == 45"),
            4,
            99,
            4,
        ),
        (
            "map of int-or-strings with all",
            map("int-or-string", "self.all(x, true)"),
            1348169,
            15,
            47,
        ),
        (
            "map of int-or-strings with has",
            map("int-or-string", "has(self.x)"),
            0,
            5000,
            0,
        ),
        (
            "map of objects with all",
            map_of(required_object(), "self.all(x, true)"),
            428963,
            20,
            62,
        ),
        (
            "map of objects with has",
            map_of(required_object(), "has(self.x)"),
            0,
            9001,
            0,
        ),
        (
            "map of number maps with all",
            map_of(
                json!({"type": "object", "additionalProperties": {"type": "number"}}),
                "self.all(x, true)",
            ),
            1179647,
            10,
            32,
        ),
        (
            "map of number maps with has",
            map_of(
                json!({"type": "object", "additionalProperties": {"type": "number"}}),
                "has(self.x)",
            ),
            0,
            101,
            0,
        ),
        (
            "map of number arrays with all",
            map_of(
                json!({"type": "array", "items": {"type": "number"}}),
                "self.all(x, true)",
            ),
            1179647,
            25,
            77,
        ),
        (
            "map of number arrays with has",
            map_of(
                json!({"type": "array", "items": {"type": "number"}}),
                "has(self.x)",
            ),
            0,
            40000,
            0,
        ),
        (
            "map of durations with all",
            map("duration", "self.all(x, true)"),
            1048577,
            5,
            17,
        ),
        (
            "map of durations with has",
            map("duration", "has(self.x)"),
            0,
            256,
            0,
        ),
        (
            "map of dates with all",
            map("date", "self.all(x, true)"),
            524288,
            10,
            32,
        ),
        (
            "map of dates with has",
            map("date", "has(self.x)"),
            0,
            65536,
            0,
        ),
        (
            "map of date-times with all",
            map("date-time", "self.all(x, true)"),
            349526,
            25,
            77,
        ),
        (
            "map of date-times with has",
            map("date-time", "has(self.x)"),
            0,
            490,
            0,
        ),
        (
            "check cost of size call",
            map("integer", "oldSelf.size() == self.size()"),
            5,
            10,
            5,
        ),
        (
            "check cost of timestamp comparison",
            map("date-time", r#"self["a"] == self["b"]"#),
            8,
            7,
            8,
        ),
        (
            "check cost of duration comparison",
            map("duration", r#"self["c"] == self["d"]"#),
            8,
            42,
            8,
        ),
    ];
    // The extended-library cases: Kubernetes' regex and lists libraries, and ext.Strings
    // priced by Kubernetes' EstimateCallCost (apiserver library/cost.go).
    let string_with = |max: Option<i64>| {
        let mut s = json!({"type": "string"});
        set(&mut s, "maxLength", max);
        s
    };
    let ext_cases: Vec<(&str, Generator, u64, i64, u64)> = vec![
        (
            "extended library regex find",
            string("self.find('[0-9]+') == ''"),
            629147,
            10,
            11,
        ),
        (
            "extended library isSorted",
            Box::new(move |max| {
                let mut s = json!({"type": "array", "items": string_with(max)});
                set(&mut s, "maxItems", max);
                with_rule(s, "self.isSorted() == true")
            }),
            329854432052,
            10,
            52,
        ),
        (
            "extended library join",
            Box::new(move |max| {
                let mut s = json!({"type": "array", "items": string_with(max)});
                set(&mut s, "maxItems", max);
                with_rule(s, "self.join(' ') == 'aa bb'")
            }),
            329853068905,
            10,
            43,
        ),
        (
            "extended library replace",
            Box::new(move |max| {
                let s = json!({"type": "object", "properties": {
                    "str": string_with(max),
                    "before": {"type": "string", "maxLength": 2},
                    "after": {"type": "string", "maxLength": 4}}});
                with_rule(
                    s,
                    "self.str.replace(self.before, self.after) == 'does not matter'",
                )
            }),
            629154,
            4,
            12,
        ),
        (
            "extended library split",
            Box::new(move |max| {
                let s = json!({"type": "object", "properties": {
                    "str": string_with(max), "separator": string_with(max)}});
                with_rule(s, "self.str.split(self.separator) == []")
            }),
            629160,
            10,
            22,
        ),
        (
            "extended library lowerAscii",
            Box::new(move |max| with_rule(string_with(max), "self.lowerAscii() == 'lower!'")),
            314575,
            10,
            6,
        ),
    ];
    // The enum case (genEnumWithRuleAndValues): the longest enum value bounds the string
    // unless maxLength is set.
    let enum_cases: Vec<(&str, Generator, u64, i64, u64)> = vec![(
        "enums with maxLength equals to the longest possible value",
        enum_string("self.contains('A')", &["A", "B", "C", "LongValue"]),
        2,
        1000,
        401,
    )];
    let mut failures = Vec::new();
    let total = cases.len() + ext_cases.len() + enum_cases.len();
    for (name, generator, calc, set_max, set_cost) in cases
        .iter()
        .chain(ext_cases.iter())
        .chain(enum_cases.iter())
    {
        let unbounded = max_cost(generator(None));
        // As upstream's schemaChecker, an expected cost of 0 is not checked.
        let ok = if *calc == 0 {
            true
        } else if *calc == u64::MAX {
            unbounded > 10_000_000
        } else {
            unbounded == *calc
        };
        if !ok {
            failures.push(format!("{name}: unbounded: want {calc}, got {unbounded}"));
        }
        let bounded = max_cost(generator(Some(*set_max)));
        if *set_cost != 0 && bounded != *set_cost {
            failures.push(format!(
                "{name}: max {set_max}: want {set_cost}, got {bounded}"
            ));
        }
    }
    println!(
        "{} passed, {} failed",
        2 * total - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! Reading documents as Kubernetes reads them. Expectations follow the upstream tests and
//! code cited per test: go-yaml v2 (`decode_test.go`, `resolve.go`, `decode.go`, `yaml.go`,
//! `scannerc.go`; the YAML library of sigs.k8s.io/yaml), sigs.k8s.io/yaml (`yaml.go`
//! `convertToJSONableObject`), Go's encoding/json (`scanner.go`, `decode.go`) as forked in
//! sigs.k8s.io/json (`kubernetes_patch.go`: PreserveInts, DisallowDuplicateFields).

use super::*;
use serde_json::json;

fn object(text: &str) -> serde_json::Value {
    let mut docs = parse_manifests(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(docs.len(), 1, "{text:?}");
    docs.remove(0)
}

fn yaml_err(text: &str) -> String {
    parse_manifests(text).unwrap_err().to_string()
}

/// go-yaml's error for a text read as YAML whatever its first character.
fn go_yaml_err(text: &str) -> String {
    match yaml::read_documents(text) {
        Ok((docs, _)) => match docs.into_iter().map(tree::to_object).find_map(Result::err) {
            Some(e) => e.to_string(),
            None => panic!("{text:?} was read"),
        },
        Err(e) => yaml_error(e).to_string(),
    }
}

#[test]
fn json_and_yaml_values() {
    assert_eq!(parse_value("[1, 2.5]").unwrap().to_string(), "[1, 2.5]");
    assert_eq!(
        parse_value("a: 1\nb: [x, true]\n").unwrap().to_string(),
        "{\"a\": 1, \"b\": [\"x\", true]}"
    );
    assert_eq!(parse_value("1: one").unwrap().to_string(), "{1: \"one\"}");
    assert_eq!(
        parse_value("{\"a\": 1").unwrap_err(),
        "invalid JSON: unexpected end of JSON input"
    );
    assert_eq!(
        parse_value("a: [1").unwrap_err(),
        "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"
    );
    // YAML 1.1 scalars in values too; a YAML float key is no CEL map key.
    assert_eq!(
        parse_value("a: yes\nb: 017").unwrap().to_string(),
        "{\"a\": true, \"b\": 15}"
    );
    assert!(
        parse_value("1.5: x")
            .unwrap_err()
            .to_string()
            .contains("unsupported map key 1.5")
    );
}

#[test]
fn manifests_as_kubectl_reads_them() {
    let docs = parse_manifests("a: 1\n---\n# only a comment\n---\nb: 2\n---\n").unwrap();
    assert_eq!(docs, [json!({"a": 1}), json!({"b": 2})]);
    let docs = parse_manifests("{\"s\": \"\\uD83D\\uDC51\"} {\"t\": 1}").unwrap();
    assert_eq!(docs[0]["s"], "\u{1F451}");
    assert_eq!(docs.len(), 2);
    // JSON text is never re-read as YAML.
    assert_eq!(
        parse_manifests("{a: 1}").unwrap_err(),
        "invalid JSON: invalid character 'a' looking for beginning of object key string"
    );
}

/// go-yaml v2 `resolve.go` (`resolveMapList`): YAML 1.1's booleans and nulls, decoded into
/// `interface{}` and converted to JSON by sigs.k8s.io/yaml.
#[test]
fn yaml_1_1_booleans_and_nulls() {
    for t in [
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
    ] {
        assert_eq!(object(&format!("v: {t}")), json!({"v": true}), "{t}");
    }
    for f in [
        "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
    ] {
        assert_eq!(object(&format!("v: {f}")), json!({"v": false}), "{f}");
    }
    for n in ["", "~", "null", "Null", "NULL"] {
        assert_eq!(object(&format!("v: {n}")), json!({"v": null}), "{n:?}");
    }
    // Not in the table: strings. Quoted: strings.
    for s in ["yES", "nO", "Yes!", "ture", "'yes'", "\"on\""] {
        let want = s.trim_matches(['\'', '"']);
        assert_eq!(object(&format!("v: {s}")), json!({"v": want}), "{s}");
    }
    // A boolean key becomes the JSON key "true" (convertToJSONableObject).
    assert_eq!(object("on: 1\nno: 2"), json!({"true": 1, "false": 2}));
}

/// go-yaml v2 `resolve.go`: integers through `strconv.ParseInt(plain, 0, 64)` after removing
/// `_` (decode_test.go: `octal: 02472256`, `hexa: 0x_0A_74_AE`, `bin: -0b101010`,
/// `decimal: +685_230` all 685230 / -42), then ParseUint, then `yamlStyleFloat`.
#[test]
fn yaml_numbers() {
    let cases = [
        ("685230", json!(685230)),
        ("+685_230", json!(685230)),
        ("02472256", json!(685230)),
        ("0x_0A_74_AE", json!(685230)),
        ("0o17", json!(15)),
        ("017", json!(15)),
        ("1_000", json!(1000)),
        ("-0b101010", json!(-42)),
        ("0b1010_1010", json!(170)),
        ("-9223372036854775808", json!(i64::MIN)),
        // Not octal: the float pattern reads it.
        ("08", json!(8)),
        ("6.8523015e+5", json!(685230.15)),
        ("685_230.15", json!(685230.15)),
        (".5", json!(0.5)),
        ("+.5e1", json!(5)),
        // json.Marshal writes integral floats without a point; apimachinery reads ints.
        ("3.0", json!(3)),
        ("1e3", json!(1000)),
        ("-0.0", json!(0)),
        ("1e21", json!(1e21)),
        // Above int64: go-yaml's uint64, read back by apimachinery as float64.
        ("18446744073709551615", json!(18446744073709551615.0f64)),
        // ParseFloat out of range: not a float, so a string.
        ("1e400", json!("1e400")),
        ("0x", json!("0x")),
        ("1_000.5_0", json!(1000.5)),
        ("12:30", json!("12:30")),
        // Timestamps decoded into interface{} keep their text (decode.go).
        (
            "2001-12-14t21:59:43.10-05:00",
            json!("2001-12-14t21:59:43.10-05:00"),
        ),
        ("2002-12-14", json!("2002-12-14")),
    ];
    for (text, want) in cases {
        assert_eq!(object(&format!("v: {text}")), json!({"v": want}), "{text}");
    }
    // NaN and infinities resolve, but json.Marshal refuses them.
    assert_eq!(
        yaml_err("v: .nan"),
        "error converting YAML to JSON: json: unsupported value: NaN"
    );
    assert_eq!(
        yaml_err("v: -.Inf"),
        "error converting YAML to JSON: json: unsupported value: -Inf"
    );
    assert_eq!(
        parse_value("v: .inf").unwrap(),
        parse_value("v: +.INF").unwrap()
    );
}

/// go-yaml v2 `resolve.go` (the deferred tag check) and `decode.go` (`!!binary`),
/// `decode_test.go` unmarshalTests and unmarshalErrorTests.
#[test]
fn yaml_tags() {
    assert_eq!(object("v: !!str 123"), json!({"v": "123"}));
    assert_eq!(object("v: !!float 1"), json!({"v": 1}));
    assert_eq!(object("v: !!int '12'"), json!({"v": 12}));
    assert_eq!(
        object("v: !!binary gIGC"),
        json!({"v": "\u{FFFD}\u{FFFD}\u{FFFD}"})
    );
    assert_eq!(object("v: !!binary aGVsbG8="), json!({"v": "hello"}));
    assert_eq!(object("v: !foo 1"), json!({"v": "1"}));
    assert_eq!(
        yaml_err("v: !!float 'error'"),
        "error converting YAML to JSON: yaml: cannot decode !!str `error` as a !!float"
    );
    assert_eq!(
        yaml_err("v: !!int 1.5"),
        "error converting YAML to JSON: yaml: cannot decode !!float `1.5` as a !!int"
    );
    assert_eq!(
        yaml_err("a: !!binary =="),
        "error converting YAML to JSON: yaml: !!binary value contains invalid base64 data"
    );
}

/// go-yaml v2 `decode_test.go` unmarshalErrorTests (texts and line numbers as go-yaml's
/// `parser.fail` reports libyaml's errors).
#[test]
fn yaml_errors_as_go_yaml_reports_them() {
    let cases = [
        ("v: [A,", "yaml: line 1: did not find expected node content"),
        (
            "v:\n- [A,",
            "yaml: line 2: did not find expected node content",
        ),
        (
            "a:\n- b: *,",
            "yaml: line 2: did not find expected alphabetic or numeric character",
        ),
        ("a: *b\n", "yaml: unknown anchor 'b' referenced"),
        ("a: &a\n  b: *a\n", "yaml: anchor 'a' value contains itself"),
        (
            "a: &x null\n<<:\n- *x\nb: &x {}\n",
            "yaml: map merge requires map or sequence of maps as the value",
        ),
        (
            "value: -",
            "yaml: block sequence entries are not allowed in this context",
        ),
        ("{[.]}", "yaml: invalid map key: []interface {}{\".\"}"),
        (
            "{{.}}",
            "yaml: invalid map key: map[interface {}]interface {}{\".\":interface {}(nil)}",
        ),
        ("b: *a\na: &a {c: 1}", "yaml: unknown anchor 'a' referenced"),
        (
            "%TAG !%79! tag:yaml.org,2002:\n---\nv: !%79!int '1'",
            "yaml: did not find expected whitespace",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(
            go_yaml_err(text),
            format!("error converting YAML to JSON: {want}"),
            "{text:?}"
        );
    }
}

/// Merge keys: go-yaml v2 `decode.go` (`merge`, `isMerge`) and decode_test.go mergeTests
/// (the YAML 1.1 merge example).
#[test]
fn yaml_merge_keys() {
    // The example's keys are x, y and r; go-yaml v2 reads a plain `y` key as the boolean
    // true (which sigs.k8s.io/yaml turns into the JSON key "true"), so `z` stands for `y`.
    assert_eq!(object("y: 1\nn: 2"), json!({"true": 1, "false": 2}));
    let text = "
anchors:
  list:
    - &CENTER { x: 1, z: 2 }
    - &LEFT { x: 0, z: 2 }
    - &BIG { r: 10 }
    - &SMALL { r: 1 }
plain:
  x: 1
  z: 2
  r: 10
mergeOne:
  << : *CENTER
  r: 10
mergeMultiple:
  << : [ *CENTER, *BIG ]
  r: 10
override:
  << : [ *BIG, *LEFT, *SMALL ]
  x: 1
shortTag:
  !!merge << : *CENTER
  r: 10
inlineMap:
  << : {x: 1, z: 2, r: 10}
inlineSequenceMap:
  << : [ *CENTER, {r: 10} ]
";
    let o = object(text);
    let want = json!({"x": 1, "z": 2, "r": 10});
    for k in [
        "plain",
        "mergeOne",
        "mergeMultiple",
        "override",
        "shortTag",
        "inlineMap",
        "inlineSequenceMap",
    ] {
        assert_eq!(o[k], want, "{k}");
    }
    // A quoted "<<" is an ordinary key.
    assert_eq!(object("'<<': {a: 1}"), json!({"<<": {"a": 1}}));
}

/// sigs.k8s.io/yaml `convertToJSONableObject`: keys become strings — integers in decimal,
/// floats as `FormatFloat(k, 'g', -1, 32)`; a null key is refused.
#[test]
fn yaml_keys_become_json_strings() {
    assert_eq!(
        object("1: a\n0x10: b\n1.5: c\n1e6: d\n0.1: e\n.inf: f"),
        json!({"1": "a", "16": "b", "1.5": "c", "1e+06": "d", "0.1": "e", ".inf": "f"})
    );
    assert_eq!(
        yaml_err("~: 1"),
        "error converting YAML to JSON: Unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"
    );
}

fn messages(duplicates: &[Duplicate]) -> Vec<String> {
    duplicates.iter().map(|d| d.error.to_string()).collect()
}

/// Duplicate keys: the last wins (go-yaml v2 non-strict, Go maps); strict decoding's texts
/// (go-yaml v2 `setMapIndex`, sigs.k8s.io/json `DisallowDuplicateFields`) are kept.
#[test]
fn duplicate_keys() {
    let m = read_manifests("a: 1\nb: 2\na: 3\n").unwrap();
    assert_eq!(m.documents, [json!({"a": 3, "b": 2})]);
    assert_eq!(
        messages(&m.duplicates),
        ["line 3: key \"a\" already set in map"]
    );
    let m = read_manifests("{\"a\": 1, \"a\": {\"b\": 2}}").unwrap();
    assert_eq!(m.documents, [json!({"a": {"b": 2}})]);
    assert_eq!(messages(&m.duplicates), ["duplicate field \"a\""]);
}

/// A request body's repeated keys as its decoder reports them (sigs.k8s.io/json: one error
/// each; sigs.k8s.io/yaml's `YAMLToJSONStrict`: go-yaml's one `yaml: unmarshal errors:`
/// error), and as warnings (apiserver `handlers/rest.go` `parseYAMLWarnings`: a line each).
#[test]
fn body_duplicates_as_errors_and_warnings() {
    let errors = body_duplicate_errors(b"{\"a\": 1, \"a\": 2, \"b\": {\"c\": 1, \"c\": 2}}", false);
    assert_eq!(
        errors,
        [
            StrictError::Key(DuplicateKey::Json("a".into())),
            StrictError::Key(DuplicateKey::Json("b.c".into())),
        ]
    );
    assert_eq!(errors[1].to_string(), "duplicate field \"b.c\"");
    assert_eq!(errors[1].warnings(), ["duplicate field \"b.c\""]);
    let errors = body_duplicate_errors(b"a: 1\na: 2\nb: 1\nb: 2\n", true);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].to_string(),
        "yaml: unmarshal errors:\n  line 2: key \"a\" already set in map\n  \
         line 4: key \"b\" already set in map"
    );
    assert_eq!(
        errors[0].warnings(),
        [
            "line 2: key \"a\" already set in map",
            "line 4: key \"b\" already set in map"
        ]
    );
    assert!(body_duplicate_errors(b"a: 1\n", true).is_empty());
}

/// sigs.k8s.io/json's strict errors name the whole path (kubernetes/kubernetes
/// test/integration/apiserver/field_validation_test.go: `duplicate field "metadata.name"`,
/// `duplicate field "spec.ports[0].hostPort"` for custom resources, decoded untyped), keep
/// each text once and at most 100 per value (kubernetes_patch.go `saveStrictError`); YAML
/// keeps go-yaml's line texts (the same test's `-yaml` cases), in document order.
#[test]
fn duplicate_keys_with_paths() {
    let body = br#"{"metadata": {"name": "a", "name": "b"},
        "spec": {"unknownDupe": 1, "unknownDupe": 2, "knownField1": "x", "knownField1": "y",
          "ports": [{"hostPort": 1, "hostPort": 2}, {"x": [{"q": 1, "q": 1, "q": 3}]}]}}"#;
    let (_, found) = read_body(body, false).unwrap();
    assert_eq!(
        messages(&found),
        [
            "duplicate field \"metadata.name\"",
            "duplicate field \"spec.unknownDupe\"",
            "duplicate field \"spec.knownField1\"",
            "duplicate field \"spec.ports[0].hostPort\"",
            "duplicate field \"spec.ports[1].x[0].q\"",
        ]
    );
    assert_eq!(found[3].path, "spec.ports[0].hostPort");
    // A top-level list: paths start with the index (json patch's `[1].path`).
    let (_, found) = read_body(br#"[{"op": "add"}, {"path": "/a", "path": "/b"}]"#, false).unwrap();
    assert_eq!(messages(&found), ["duplicate field \"[1].path\""]);
    // At most 100 per value.
    let many: String = (0..150)
        .map(|i| format!("\"k{i}\": 1, \"k{i}\": 2, "))
        .collect();
    let (_, found) = read_body(format!("{{{many}\"z\": 0}}").as_bytes(), false).unwrap();
    assert_eq!(found.len(), 100);
    // YAML: go-yaml's texts, with the paths kept for attribution.
    let yaml =
        "metadata:\n  name: a\n  name: b\nspec:\n  ports:\n  - hostPort: 1\n    hostPort: 2\n";
    let (_, found) = read_body(yaml.as_bytes(), true).unwrap();
    assert_eq!(
        messages(&found),
        [
            "line 3: key \"name\" already set in map",
            "line 7: key \"hostPort\" already set in map"
        ]
    );
    assert_eq!(found[1].path, "spec.ports[0].hostPort");
}

/// Each object of a text of manifests with its own duplicates: a stream's documents, a
/// List's items (paths from the item), YAML documents counted without the empty ones.
#[test]
fn duplicate_keys_by_object() {
    let text = r#"{"kind": "ConfigMap", "data": {"a": "1", "a": "2"}}
        {"kind": "List", "kind": "List", "items": [{"kind": "A"}, {"kind": "B", "spec": {"p": 1, "p": 2}}]}"#;
    let objects = read_manifests(text).unwrap().into_objects();
    assert_eq!(objects.len(), 3);
    assert_eq!(
        messages(&objects[0].duplicates),
        ["duplicate field \"data.a\""]
    );
    assert_eq!(
        &text[objects[0].span.clone().unwrap()],
        r#"{"kind": "ConfigMap", "data": {"a": "1", "a": "2"}}"#
    );
    assert_eq!(
        messages(&objects[1].duplicates),
        ["duplicate field \"kind\""]
    );
    assert_eq!(objects[1].span, None);
    assert_eq!(
        messages(&objects[2].duplicates),
        ["duplicate field \"spec.p\""]
    );
    assert_eq!(objects[2].duplicates[0].path, "spec.p");
    let yaml = "---\n# nothing\n---\nkind: A\nkind: A\n---\nkind: List\nitems:\n- kind: B\n  x: 1\n  x: 2\n";
    let objects = read_manifests(yaml).unwrap().into_objects();
    assert_eq!(objects.len(), 2);
    assert_eq!(
        messages(&objects[0].duplicates),
        ["line 5: key \"kind\" already set in map"]
    );
    assert_eq!(
        messages(&objects[1].duplicates),
        ["line 11: key \"x\" already set in map"]
    );
    assert_eq!(objects[1].duplicates[0].path, "x");
}

/// encoding/json's scanner errors (scanner.go) and decoding into interface{} with
/// sigs.k8s.io/json's PreserveInts.
#[test]
fn json_as_encoding_json_reads_it() {
    let one = |text: &str| read_body(text.as_bytes(), false).map(|(v, _)| v);
    assert_eq!(one("9223372036854775807").unwrap(), json!(i64::MAX));
    assert_eq!(
        one("9223372036854775808").unwrap(),
        json!(9223372036854775808.0f64)
    );
    assert_eq!(one("1.0").unwrap(), json!(1.0));
    assert!(one("1.0").unwrap().is_f64());
    assert_eq!(one("1e2").unwrap(), json!(100.0));
    assert_eq!(one("-0").unwrap(), json!(0));
    // Lone surrogates become U+FFFD; a valid pair is one character.
    assert_eq!(one(r#""\ud800""#).unwrap(), json!("\u{FFFD}"));
    assert_eq!(one(r#""\udc00x""#).unwrap(), json!("\u{FFFD}x"));
    assert_eq!(one(r#""\ud800\u0041""#).unwrap(), json!("\u{FFFD}A"));
    assert_eq!(one(r#""\uD83D\uDC51""#).unwrap(), json!("\u{1F451}"));
    // Invalid UTF-8: each byte U+FFFD (unquoteBytes).
    assert_eq!(
        read_body(b"\"a\xe2\x82b\"", false).unwrap().0,
        json!("a\u{FFFD}\u{FFFD}b")
    );
    let errors = [
        ("", "unexpected end of JSON input"),
        ("{\"a\": 1", "unexpected end of JSON input"),
        (
            "1e400",
            "json: cannot unmarshal number 1e400 into Go value of type float64",
        ),
        (
            "{a}",
            "invalid character 'a' looking for beginning of object key string",
        ),
        ("{\"a\" 1}", "invalid character '1' after object key"),
        (
            "{\"a\": 1 \"b\"}",
            "invalid character '\"' after object key:value pair",
        ),
        ("[1 2]", "invalid character '2' after array element"),
        (
            "[1,]",
            "invalid character ']' looking for beginning of value",
        ),
        (
            "{\"a\":1,}",
            "invalid character '}' looking for beginning of object key string",
        ),
        ("01", "invalid character '1' after top-level value"),
        ("1.", "unexpected end of JSON input"),
        (
            "1.x",
            "invalid character 'x' after decimal point in numeric literal",
        ),
        (
            "1ex",
            "invalid character 'x' in exponent of numeric literal",
        ),
        ("-x", "invalid character 'x' in numeric literal"),
        ("tru", "unexpected end of JSON input"),
        (
            "trUe",
            "invalid character 'U' in literal true (expecting 'u')",
        ),
        (
            "nul!",
            "invalid character '!' in literal null (expecting 'l')",
        ),
        ("\"a\nb\"", "invalid character '\\n' in string literal"),
        ("\"\\x\"", "invalid character 'x' in string escape code"),
        (
            "\"\\u12g4\"",
            "invalid character 'g' in \\u hexadecimal character escape",
        ),
        (
            "'a'",
            "invalid character '\\'' looking for beginning of value",
        ),
        (
            "\u{1}",
            "invalid character '\\x01' looking for beginning of value",
        ),
    ];
    for (text, want) in errors {
        assert_eq!(one(text).unwrap_err(), want, "{text:?}");
    }
    // A stream ends mid-value with io.ErrUnexpectedEOF's text.
    assert_eq!(
        parse_manifests("{\"a\": 1} {").unwrap_err(),
        "invalid JSON: unexpected EOF"
    );
}

/// Nesting: encoding/json's `maxNestingDepth` and go-yaml v2's `max_flow_level` /
/// `max_indents` (10,000) with their texts, up to which values are read ([`MAX_DEPTH`]);
/// never a stack overflow, and fast (issue #27 item 4: 100,000 levels took seconds).
#[test]
fn deep_nesting_is_a_clear_error() {
    let started = std::time::Instant::now();
    let deep_json = "{\"a\":".repeat(100_000) + "1" + &"}".repeat(100_000);
    assert_eq!(
        parse_manifests(&deep_json).unwrap_err(),
        "invalid JSON: invalid character '{' exceeded max depth"
    );
    assert_eq!(
        parse_value(&deep_json).unwrap_err(),
        "invalid JSON: invalid character '{' exceeded max depth"
    );
    let deep_array = "[".repeat(100_000);
    assert_eq!(
        read_body(deep_array.as_bytes(), false).unwrap_err(),
        "invalid character '[' exceeded max depth"
    );
    let deep_flow = "a: ".to_string() + &"[".repeat(20_000);
    assert_eq!(
        parse_manifests(&deep_flow).unwrap_err(),
        "error converting YAML to JSON: yaml: exceeded max depth of 10000"
    );
    // Compact block sequences: each `- ` opens one more level.
    let deep_block = "- ".repeat(10_050) + "x";
    assert!(
        parse_manifests(&deep_block)
            .unwrap_err()
            .to_string()
            .ends_with("exceeded max depth of 10000"),
    );
    // Up to Kubernetes' limit: read, converted and dropped (on a stack that holds them).
    with_deep_stack(|| {
        for levels in [MAX_DEPTH - 1, MAX_DEPTH] {
            let json = "[".repeat(levels) + &"]".repeat(levels);
            assert!(parse_value(&json).is_ok(), "{levels}");
            assert!(read_body(json.as_bytes(), false).is_ok(), "{levels}");
            let objects = "{\"a\":".repeat(levels) + "1" + &"}".repeat(levels);
            assert_eq!(
                parse_manifests(&objects).unwrap()[0].pointer(&"/a".repeat(levels)),
                Some(&json!(1))
            );
            // Compact block sequences: each `- ` opens one more level.
            let yaml = "- ".repeat(levels) + "x";
            assert!(parse_manifests(&yaml).is_ok(), "{levels}");
            assert!(read_body(yaml.as_bytes(), true).is_ok(), "{levels}");
        }
    });
    let json = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert_eq!(
        parse_value(&json).unwrap_err(),
        "invalid JSON: invalid character '[' exceeded max depth"
    );
    let objects = "{\"a\":".repeat(MAX_DEPTH + 1) + "1" + &"}".repeat(MAX_DEPTH + 1);
    assert_eq!(
        parse_manifests(&objects).unwrap_err(),
        "invalid JSON: invalid character '{' exceeded max depth"
    );
    assert!(
        parse_manifests(&("- ".repeat(MAX_DEPTH + 1) + "x"))
            .unwrap_err()
            .to_string()
            .ends_with("exceeded max depth of 10000"),
    );
    // A hang guard only (the time is checked, load-independently, by
    // `flow_nesting_takes_linear_time`).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
}

/// Past 1,000 flow levels the rest of the flow text is counted before it is parsed
/// (libyaml's scanner is quadratic in the flow depth): go-yaml's depth error where the
/// nesting goes past 10,000 — on the line go-yaml's scanner names (`scannerc.go`: the
/// problem mark's line, 1-based) — without parsing; quoted brackets and comments are not
/// counted; nesting within the limit is parsed and read.
#[test]
fn deep_flow_past_the_supported_depth() {
    for open in ["[", "{a: ", "[\"]\", ", "['[[', "] {
        let text = "a: ".to_string() + &open.repeat(20_000);
        assert_eq!(
            yaml_err(&text),
            "error converting YAML to JSON: yaml: exceeded max depth of 10000",
            "{open}"
        );
    }
    // Counted past 1,000 levels, then parsed and read: the root, `a` and 1,499 more.
    for (open, close) in [("[", "]"), ("{a: ", "}")] {
        let text = "a: ".to_string() + &open.repeat(1_500) + &close.repeat(1_500);
        let value = object(&text);
        let mut levels = 0;
        let mut at = Some(&value);
        while let Some(v) = at {
            levels += 1;
            at = match v {
                serde_json::Value::Array(items) => items.first(),
                serde_json::Value::Object(map) => map.get("a").filter(|a| !a.is_null()),
                _ => None,
            };
        }
        assert_eq!(levels, 1_501, "{open}");
    }
    // Brackets in quoted scalars and comments do not nest: parsed (to libyaml's error at
    // the unclosed end), not refused for depth.
    let quoted = "a: ".to_string() + &"[".repeat(1_200) + &"'[[[[[[', \"{{{{\", ".repeat(3_000);
    assert!(
        !yaml_err(&quoted).contains("max depth"),
        "{}",
        yaml_err(&quoted)
    );
    let commented = "a: ".to_string() + &"[ # [[[[[[[[\n".repeat(1_200);
    assert!(
        !yaml_err(&commented).contains("max depth"),
        "{}",
        yaml_err(&commented)
    );
    // One bracket per line: the 10,001st is on line 10,000 (0-based), reported 1-based.
    let lines = "a: [\n".to_string() + &" [\n".repeat(10_000);
    assert_eq!(
        yaml_err(&lines),
        "error converting YAML to JSON: yaml: line 10001: exceeded max depth of 10000"
    );
    let anchored = "a: ".to_string() + &"&x [".repeat(20_000);
    assert!(yaml_err(&anchored).ends_with("exceeded max depth of 10000"));
}

/// Issue 27: refusing deep flow nesting takes time proportional to the text (libyaml's
/// scanner alone took 3 s for 8,000 levels, 4x for twice the depth). The fastest of five
/// runs of each size, so that the machine's load does not decide: 32,000 levels may take
/// at most three times as long as 16,000 (quadratic time would be four times).
#[test]
fn flow_nesting_takes_linear_time() {
    let fastest = |levels: usize| {
        let text = "a: ".to_string() + &"{a: ".repeat(levels) + "1" + &"}".repeat(levels);
        (0..5)
            .map(|_| {
                let started = std::time::Instant::now();
                assert!(parse_manifests(&text).is_err());
                started.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let (small, large) = (fastest(16_000), fastest(32_000));
    assert!(
        large < small * 3 + std::time::Duration::from_millis(20),
        "16,000 levels {small:?}, 32,000 levels {large:?}"
    );
}

/// go-yaml v2 `decode.go` (`allowedAliasRatio`): a billion-laughs document is refused.
#[test]
fn alias_expansion_is_bounded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    assert_eq!(
        yaml_err(&text),
        "error converting YAML to JSON: yaml: document contains excessive aliasing"
    );
    // Ordinary use of aliases is fine.
    assert_eq!(
        object("a: &x {k: v}\nb: *x\nc: [*x, *x]"),
        json!({"a": {"k": "v"}, "b": {"k": "v"}, "c": [{"k": "v"}, {"k": "v"}]})
    );
}

/// `go_format_g` is `strconv.FormatFloat(f, 'g', -1, 64/32)`.
#[test]
fn go_float_formatting() {
    use super::tree::go_format_g;
    let cases = [
        (1.0, "1"),
        (0.5, "0.5"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5e-10, "-2.5e-10"),
        (1e21, "1e+21"),
        (0.0, "0"),
    ];
    for (f, want) in cases {
        assert_eq!(go_format_g(f, false), want, "{f}");
    }
    assert_eq!(go_format_g(0.1, true), "0.1");
    assert_eq!(go_format_g(std::f64::consts::PI, true), "3.1415927");
}

/// The full decoder's objects for a YAML text (go-yaml v2's decoding, then
/// sigs.k8s.io/yaml's conversion of each document), and the keys given twice.
fn full_yaml_objects(text: &str) -> (Vec<serde_json::Value>, Vec<Duplicate>) {
    let (nodes, duplicates) = yaml::read_documents(text).expect("YAML");
    let objects = nodes
        .into_iter()
        .map(|n| tree::to_object(n).expect("converts"))
        .collect();
    (objects, duplicates)
}

/// Issue 28 (memory): plain manifests are read in one pass (`yaml_objects.rs`), to the
/// objects go-yaml v2 and sigs.k8s.io/yaml make of them; texts with anchors, aliases, merge
/// keys, complex keys, repeated keys (of one JSON text too) or values JSON cannot hold are
/// left to the full decoder, whose answer (and error text) stands.
#[test]
fn plain_yaml_in_one_pass() {
    let plain = [
        "",
        "---\n",
        "a: 1\n---\n# only a comment\n---\nb: [x, {c: yes}]\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: |\n    line\n",
        "- 017\n- 1_000\n- 0x1F\n- 3.0\n- 1e400\n- .5\n- 18446744073709551615\n- ~\n",
        "!!binary aGk=\n",
        "1: one\ntrue: t\n1.5: f\n'q': !!str 12\n",
        "t: 2001-12-14t21:59:43.10-05:00\nk: {a: [1, [2, {b: null}]]}\n",
    ];
    for text in plain {
        let read = yaml_objects::read_plain(text).unwrap_or_else(|| panic!("one pass: {text:?}"));
        let (objects, duplicates) = full_yaml_objects(text);
        assert!(duplicates.is_empty());
        assert_eq!(read, objects, "{text:?}");
    }
    let full = [
        // Anchors and aliases, merge keys (go-yaml v2 decode_test.go mergeTests' shapes).
        "a: &x 1\nb: *x\n",
        "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",
        "m:\n  <<: {x: 1}\n  x: 2\n",
        // A complex key, a key given twice, two keys of one JSON text.
        "? [a]\n: b\n",
        "a: 1\na: 2\n",
        "1: a\n'1': b\n",
        // Values and keys sigs.k8s.io/yaml cannot convert; syntax errors.
        "v: .nan\n",
        "18446744073709551615: x\n",
        "a: [1\n",
    ];
    for text in full {
        assert_eq!(yaml_objects::read_plain(text), None, "{text:?}");
    }
    // What the full decoder makes of the repeated keys stands.
    let manifests = read_manifests("a: 1\na: 2\n").unwrap();
    assert_eq!(manifests.documents, vec![json!({"a": 2})]);
    assert_eq!(manifests.duplicates.len(), 1);
    assert_eq!(
        read_manifests("1: a\n'1': b\n").unwrap().documents,
        vec![json!({"1": "b"})]
    );
}

/// Fuzz-style (issues #27, #28): arbitrary text, and texts cut and spliced from YAML and
/// JSON seeds, through every reader: a value or an error, never a panic or a hang. Cases:
/// `PROPTEST_CASES` (default below); longer runs by hand (see BENCHMARKS.md).
mod fuzz {
    use super::super::*;
    use proptest::prelude::*;

    const SEEDS: &[&str] = &[
        "a: 1\nb: [x, {c: yes}]\n---\nd: &x {e: 017}\nf: *x\n<<: *x\n",
        "{\"a\": [1, 2.5e3, \"\\ud83d\\udc51\", null, true], \"b\": {\"c\": -0}}",
        "- !!binary aGk=\n- !!float 1\n- ? [a]\n  : b\n- |\n  text\n- 'q''s'\n",
        "%YAML 1.1\n---\nk: !!str 12\n...\n---\n[1, 2, &a [3], *a]\n",
        "apiVersion: v1\nkind: List\nitems:\n- kind: X\n  metadata: {name: n}\n",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[-:\\[\\]{}&*!|>'\"#%@`,?<= \\n\\ta-z0-9.]{0,64}",
            (
                prop::sample::select(SEEDS),
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                prop::sample::select(SEEDS),
                any::<prop::sample::Index>(),
            )
                .prop_map(|(a, cut, len, b, at)| {
                    let a: Vec<char> = a.chars().collect();
                    let b: Vec<char> = b.chars().collect();
                    let start = cut.index(a.len());
                    let end = (start + len.index(a.len() - start + 1)).min(a.len());
                    let at = at.index(b.len());
                    b[..at]
                        .iter()
                        .chain(&a[start..end])
                        .chain(&b[at..])
                        .collect()
                }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512)
        ))]

        #[test]
        fn readers_never_panic(text in text()) {
            let _ = parse_value(&text);
            let _ = read_manifests(&text);
            let _ = parse_document(&text);
            let _ = read_body(text.as_bytes(), false);
            let _ = read_body(text.as_bytes(), true);
        }

        /// The one-pass reader of plain YAML (`yaml_objects.rs`) gives the full decoder's
        /// objects whenever it answers.
        #[test]
        fn plain_yaml_reads_as_the_full_decoder(text in text()) {
            let full = yaml::read_documents(&text).ok().and_then(|(nodes, duplicates)| {
                let objects: Option<Vec<serde_json::Value>> =
                    nodes.into_iter().map(|n| tree::to_object(n).ok()).collect();
                Some((objects?, duplicates))
            });
            // When it answers `None` the full decoder's answer stands
            // (`plain_yaml_in_one_pass` checks which texts go there).
            if let Some(plain) = yaml_objects::read_plain(&text) {
                let (objects, duplicates) = full.expect("the full decoder reads it");
                prop_assert_eq!(plain, objects);
                prop_assert!(duplicates.is_empty());
            }
        }

        #[test]
        fn bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_body(&bytes, false);
            let _ = read_body(&bytes, true);
        }
    }
}

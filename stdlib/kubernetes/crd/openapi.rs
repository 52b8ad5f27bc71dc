//! OpenAPI v3 value validation of a custom resource against its structural schema, as
//! kube-apiserver does it before the CEL rules: `type` (with `nullable` and
//! `x-kubernetes-int-or-string`), `format`, `enum`, `pattern`, `minLength`/`maxLength`
//! (in runes), `minimum`/`maximum` (exclusive or not), `multipleOf`, `minItems`/`maxItems`,
//! `uniqueItems`, `minProperties`/`maxProperties`, `required`, `items`,
//! `additionalProperties` and `allOf`/`anyOf`/`oneOf`/`not`.
//!
//! Sources: kube-openapi `pkg/validation/validate` (`SchemaValidator.Validate` and its value
//! validators, in their order: type, junctors, string, format, number, slice, enum, object),
//! `pkg/validation/errors/schema.go` (the messages), and apiextensions-apiserver
//! `pkg/apiserver/validation/validation.go` (`kubeOpenAPIResultToFieldErrors`, which turns
//! them into field errors, and `StripUnsupportedFormatsPostProcess`, which drops the formats
//! Kubernetes does not validate). Properties are visited in name order, where upstream
//! visits Go maps in random order.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use serde_json::Value as J;

use super::field_error::{ErrorType, FieldError, FieldPath, go_json_value};
use super::schema::Schema;
use crate::kubernetes::strfmt;
use kcel::library::standard::format_double;
use kcel::library::standard::go_quote;

// Data nested deeper than the documents' limit (which readers never give: values built
// otherwise, such as by a patch) is not validated further.
use crate::documents::MAX_DEPTH;

/// The field errors of `value` under `schema`, in upstream's order.
#[cfg(test)]
pub fn validate(value: &J, schema: &Schema) -> Vec<FieldError> {
    validate_update(value, None, schema)
}

/// The field errors of an update of `old` to `value`, ratcheted as apiextensions-apiserver
/// does since `CRDValidationRatcheting` (GA in 1.33; `pkg/apiserver/validation/ratcheting.go`):
/// each value is correlated with its old value (object properties and map values by key;
/// items of `x-kubernetes-list-type: map` lists by their keys, of lists without a list type
/// by index, of `set` and `atomic` lists not at all), and the errors found at and below a
/// correlated value equal to its old value are dropped (upstream keeps them as warnings of
/// the schema validator, which the API server does not report). `None`: a create.
pub fn validate_update(value: &J, old: Option<&J>, schema: &Schema) -> Vec<FieldError> {
    validate_under(value, old, schema, &FieldPath::root())
}

/// The field errors of `value` under `schema` as apiextensions-apiserver reports a value
/// validated on its own at `base` (a `default` at CRD load: `ValidateCustomResource` with
/// the default's path): the messages name the path from the value (the root's is empty, as
/// kube-openapi's validator is rooted at `""`), the field paths start at `base`.
pub fn validate_at(value: &J, schema: &Schema, base: &FieldPath) -> Vec<FieldError> {
    validate_under(value, None, schema, base)
}

fn validate_under(
    value: &J,
    old: Option<&J>,
    schema: &Schema,
    base: &FieldPath,
) -> Vec<FieldError> {
    let mut result = Outcome::default();
    node(value, old, schema, "", 0, &mut result);
    result
        .issues
        .into_iter()
        .map(|issue| issue.into_field_error(base))
        .collect()
}

/// The errors one validation found, and kube-openapi's `MatchCount` (how much of the
/// schema applied), by which `anyOf`/`oneOf` choose the alternative whose errors to report.
#[derive(Default)]
struct Outcome {
    issues: Vec<Issue>,
    matches: u64,
    /// On update, the children of the value validated with a correlated old value, and
    /// whether each was equal to it (upstream's ratcheting tree, for `CachedDeepEqual`).
    visited: Vec<(Child, bool)>,
}

/// A child of an object or list value.
#[derive(PartialEq, Eq, Hash)]
enum Child {
    Field(String),
    Index(usize),
}

impl Outcome {
    fn merge(&mut self, other: Outcome) {
        self.issues.extend(other.issues);
        self.matches += other.matches;
        self.visited.extend(other.visited);
    }

    fn push(&mut self, issue: Issue) {
        self.issues.push(issue);
    }

    fn is_valid(&self) -> bool {
        self.issues.is_empty()
    }
}

/// One kube-openapi error, with what `kubeOpenAPIResultToFieldErrors` reads of it.
struct Issue {
    /// The field path in kube-openapi's spelling (`spec.items[0]`, `.x` at the root).
    name: String,
    kind: IssueKind,
    /// The bad value as Go prints it, where the error shows one.
    value: Option<String>,
    message: String,
}

enum IssueKind {
    /// A plain Go `error` rather than a validation error: reported at the nil path.
    Plain,
    Required,
    /// The allowed values, as upstream lists them.
    Enum(Vec<String>),
    TooLong(i64),
    TooMany {
        actual: i64,
        max: i64,
    },
    InvalidType,
    Other,
}

impl Issue {
    /// The field error at `base` joined with the issue's name (`kubeOpenAPIResultToFieldErrors`:
    /// a plain error, or one at the validator's root, at `base` itself).
    fn into_field_error(self, base: &FieldPath) -> FieldError {
        let path = match self.name.trim_start_matches('.') {
            _ if matches!(self.kind, IssueKind::Plain) => base.clone(),
            "" => base.clone(),
            name => base.child(name),
        };
        let value = self.value.unwrap_or_else(|| go_quote(""));
        match self.kind {
            IssueKind::Required => {
                FieldError::with_rendered_value(path, ErrorType::Required, String::new(), "")
            }
            IssueKind::Enum(values) => {
                let quoted: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
                let detail = if quoted.is_empty() {
                    String::new()
                } else {
                    format!("supported values: {}", quoted.join(", "))
                };
                FieldError::with_rendered_value(path, ErrorType::NotSupported, value, detail)
            }
            IssueKind::TooLong(max) => FieldError::too_long(path, max.max(0) as usize),
            IssueKind::TooMany { actual, max } => FieldError::with_rendered_value(
                path,
                ErrorType::TooMany,
                actual.to_string(),
                format!(
                    "must have at most {max} {}",
                    if max == 1 { "item" } else { "items" }
                ),
            ),
            IssueKind::InvalidType => {
                FieldError::with_rendered_value(path, ErrorType::TypeInvalid, value, self.message)
            }
            IssueKind::Plain => FieldError::with_rendered_value(
                path,
                ErrorType::Invalid,
                go_quote(""),
                self.message,
            ),
            IssueKind::Other => {
                FieldError::with_rendered_value(path, ErrorType::Invalid, value, self.message)
            }
        }
    }
}

/// What kube-openapi sees of a JSON value (Kubernetes decodes integers as `int64`, other
/// numbers as `float64`).
#[derive(Clone, Copy)]
enum Kind {
    Null,
    Bool,
    Int(i64),
    Float(f64),
    String,
    Array,
    Object,
}

fn kind(v: &J) -> Kind {
    match v {
        J::Null => Kind::Null,
        J::Bool(_) => Kind::Bool,
        J::Number(n) => match n.as_i64() {
            Some(i) => Kind::Int(i),
            None => Kind::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(_) => Kind::String,
        J::Array(_) => Kind::Array,
        J::Object(_) => Kind::Object,
    }
}

/// The OpenAPI type (and Go format) kube-openapi infers for a value.
fn schema_type(k: Kind) -> (&'static str, &'static str) {
    match k {
        Kind::Null => ("null", ""),
        Kind::Bool => ("boolean", ""),
        Kind::Int(_) => ("integer", "int64"),
        Kind::Float(_) => ("number", "float64"),
        Kind::String => ("string", ""),
        Kind::Array => ("array", ""),
        Kind::Object => ("object", ""),
    }
}

/// A value as Go's `%v` (or `%q` for strings) prints it in a field error.
fn go_value(v: &J) -> String {
    match v {
        J::String(s) => go_quote(s),
        J::Bool(b) => b.to_string(),
        J::Number(_) => match kind(v) {
            Kind::Int(i) => i.to_string(),
            Kind::Float(f) => format_double(f),
            _ => unreachable!("a number is an int or a float"),
        },
        other => go_json_value(other),
    }
}

/// `swag.IsFloat64AJSONInteger`: a finite float within ±(2⁵³−1) with no fractional part
/// (within a relative 1e-9, as upstream allows for rounding).
fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let t = f.trunc();
    f == t || (f.abs() <= 1.0 && (t - f).abs() < 1e-9) || ((t - f) / f).abs() < 1e-9
}

/// The types a schema node allows (`x-kubernetes-int-or-string`: integer and string).
fn types(s: &Schema) -> Vec<&str> {
    if s.int_or_string {
        vec!["integer", "string"]
    } else if s.type_.is_empty() {
        vec![]
    } else {
        vec![s.type_.as_str()]
    }
}

/// Validates `v` (whose correlated old value is `old`) under `s`; errors of a value equal
/// to its old value are dropped (ratcheting), its match count kept. Answers whether the
/// value counts as equal to its old value.
fn node(v: &J, old: Option<&J>, s: &Schema, path: &str, depth: usize, out: &mut Outcome) -> bool {
    if depth > MAX_DEPTH {
        return old.is_some_and(|o| o == v);
    }
    let mut result = Outcome::default();
    checked_node(v, old, s, path, depth, &mut result);
    let visited = std::mem::take(&mut result.visited);
    let equal = old.is_some_and(|o| cached_deep_equal(o, v, visited));
    if !result.is_valid() && equal {
        result.issues.clear();
    }
    out.merge(result);
    equal
}

/// Upstream's `CachedDeepEqual` over the children validation visited: a list or object
/// equals its old value only if every child was correlated and equal (so a non-empty `set`
/// or `atomic` list, whose items are not correlated, never does, nor an object with fields
/// no schema visits); other values by `reflect.DeepEqual` (integers and floats differ).
fn cached_deep_equal(old: &J, v: &J, visited: Vec<(Child, bool)>) -> bool {
    match (old, v) {
        (J::Null, J::Null) => true,
        (J::Null, _) | (_, J::Null) => false,
        (J::Array(a), J::Array(b)) => {
            if a.len() != b.len() {
                return false;
            }
            let children: HashMap<Child, bool> = visited.into_iter().collect();
            children.len() == a.len()
                && (0..b.len()).all(|i| children.get(&Child::Index(i)) == Some(&true))
        }
        (J::Object(a), J::Object(b)) => {
            if a.len() != b.len() {
                return false;
            }
            if a.is_empty() {
                return true;
            }
            let children: HashMap<Child, bool> = visited.into_iter().collect();
            children.len() == a.len()
                && a.keys()
                    .all(|k| children.get(&Child::Field(k.clone())) == Some(&true))
        }
        (J::Array(_) | J::Object(_), _) | (_, J::Array(_) | J::Object(_)) => false,
        _ => old == v,
    }
}

fn checked_node(v: &J, old: Option<&J>, s: &Schema, path: &str, depth: usize, out: &mut Outcome) {
    let types = types(s);
    let format = strfmt::supported(&s.format);
    let k = kind(v);
    if let Kind::Null = k {
        // Only the type and enum validators look at null.
        if !types.is_empty() && !types.contains(&"null") && !s.nullable {
            out.push(invalid_type(path, &types.join(","), "null"));
        }
        out.merge(enumeration(v, s, path));
        return;
    }
    let mut result = Outcome::default();
    let apply = |result: &mut Outcome, r: Outcome| {
        result.merge(r);
        result.matches += 1;
    };
    if !types.is_empty() || format.is_some() {
        apply(&mut result, type_check(k, &types, format, path));
    }
    apply(&mut result, junctors(v, old, s, path, depth));
    if let J::String(text) = v {
        apply(&mut result, string(text, s, path));
        if let Some(format) = format {
            let mut r = Outcome::default();
            if !strfmt::validates(format, text) {
                r.push(invalid_type(path, &s.format, text));
            }
            apply(&mut result, r);
        }
    }
    if let Kind::Int(_) | Kind::Float(_) = k {
        apply(&mut result, number(v, k, s, &types, path));
    }
    if let J::Array(items) = v {
        apply(&mut result, slice(items, old, s, path, depth));
    }
    apply(&mut result, enumeration(v, s, path));
    if let J::Object(map) = v {
        apply(&mut result, object(map, old, s, path, depth));
    }
    result.matches += 1;
    out.merge(result);
}

/// `errors.InvalidType`: `<path> in body must be of type <type>: "<what>"`.
fn invalid_type(path: &str, type_name: &str, what: &str) -> Issue {
    Issue {
        name: path.to_string(),
        kind: IssueKind::InvalidType,
        value: Some(go_quote(what)),
        message: format!(
            "{path} in body must be of type {type_name}: {}",
            go_quote(what)
        ),
    }
}

/// The type validator (kube-openapi `typeValidator.Validate`).
fn type_check(k: Kind, types: &[&str], format: Option<&str>, path: &str) -> Outcome {
    let mut r = Outcome {
        matches: 1,
        ..Outcome::default()
    };
    let (data_type, data_format) = schema_type(k);
    let contains = |t: &str| types.contains(&t);
    let float_int = matches!(k, Kind::Float(f) if is_json_integer(f)) && contains("integer");
    let int_float = matches!(k, Kind::Int(_)) && contains("number");
    let textual = matches!(k, Kind::String | Kind::Array);
    if let Some(format) = format {
        if !(textual || contains(data_type) || data_format == format || float_int || int_float) {
            return only(invalid_type(path, format, data_format));
        }
        if !(contains("number") || contains("integer")) && textual {
            return r;
        }
    }
    if !(contains(data_type) || float_int || int_float) {
        r = only(invalid_type(path, &types.join(","), data_type));
    }
    r
}

/// A result of one error that counts no match (kube-openapi's `sErr`).
fn only(issue: Issue) -> Outcome {
    Outcome {
        issues: vec![issue],
        ..Outcome::default()
    }
}

fn other(path: &str, value: String, message: String) -> Issue {
    Issue {
        name: path.to_string(),
        kind: IssueKind::Other,
        value: Some(value),
        message,
    }
}

fn plain(message: String) -> Issue {
    Issue {
        name: String::new(),
        kind: IssueKind::Plain,
        value: None,
        message,
    }
}

/// `allOf`, `anyOf`, `oneOf` and `not` (kube-openapi `schemaPropsValidator.Validate`).
fn junctors(v: &J, old: Option<&J>, s: &Schema, path: &str, depth: usize) -> Outcome {
    let mut main = Outcome::default();
    // The alternatives see the value's children correlated as the value's own (upstream
    // passes the ratcheting options to their validators).
    let run = |alt: &Schema| {
        let mut r = Outcome::default();
        let _ = node(v, old, alt, path, depth + 1, &mut r);
        r
    };
    if !s.any_of.is_empty() {
        let mut best: Option<Outcome> = None;
        let mut first_success: Option<Outcome> = None;
        for alt in &s.any_of {
            let r = run(alt);
            if r.is_valid() {
                best = None;
                first_success = Some(r);
                break;
            }
            if best.as_ref().is_none_or(|b| r.matches > b.matches) {
                best = Some(r);
            }
        }
        if first_success.is_none() {
            main.push(plain(format!(
                "{} must validate at least one schema (anyOf)",
                go_quote(path)
            )));
        }
        if let Some(best) = best.or(first_success) {
            main.merge(best);
        }
    }
    if !s.one_of.is_empty() {
        let mut best: Option<Outcome> = None;
        let mut first_success: Option<Outcome> = None;
        let mut validated = 0;
        for alt in &s.one_of {
            let r = run(alt);
            if r.is_valid() {
                validated += 1;
                best = None;
                if first_success.is_none() {
                    first_success = Some(r);
                }
                continue;
            }
            if validated == 0 && best.as_ref().is_none_or(|b| r.matches > b.matches) {
                best = Some(r);
            }
        }
        if validated != 1 {
            let more = if validated == 0 {
                "Found none valid".to_string()
            } else {
                format!("Found {validated} valid alternatives")
            };
            main.push(plain(format!(
                "{} must validate one and only one schema (oneOf). {more}",
                go_quote(path)
            )));
            if let Some(best) = best {
                main.merge(best);
            }
        } else if let Some(first) = first_success {
            main.merge(first);
        }
    }
    if !s.all_of.is_empty() {
        let mut validated = 0;
        for alt in &s.all_of {
            let r = run(alt);
            if r.is_valid() {
                validated += 1;
            }
            main.merge(r);
        }
        if validated != s.all_of.len() {
            let more = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            main.push(plain(format!(
                "{} must validate all the schemas (allOf){more}",
                go_quote(path)
            )));
        }
    }
    if let Some(not) = &s.not {
        if run(not).is_valid() {
            main.push(plain(format!(
                "{} must not validate the schema (not)",
                go_quote(path)
            )));
        }
    }
    main
}

/// `maxLength`, `minLength` and `pattern`: the first that fails (kube-openapi
/// `stringValidator.Validate`).
fn string(text: &str, s: &Schema, path: &str) -> Outcome {
    let runes = text.chars().count() as i64;
    if let Some(max) = s.max_length {
        if runes > max {
            return only(Issue {
                name: path.to_string(),
                kind: IssueKind::TooLong(max),
                value: Some(go_quote(text)),
                message: format!("{path} in body should be at most {max} chars long"),
            });
        }
    }
    if let Some(min) = s.min_length {
        if runes < min {
            return only(other(
                path,
                go_quote(text),
                format!("{path} in body should be at least {min} chars long"),
            ));
        }
    }
    if !s.pattern.is_empty() {
        match pattern(&s.pattern) {
            Err(message) => {
                return only(other(
                    path,
                    go_quote(text),
                    format!(
                        "{path} in body should match '{}, but pattern is invalid: {message}'",
                        s.pattern
                    ),
                ));
            }
            Ok(re) if !re.is_match(text) => {
                return only(other(
                    path,
                    go_quote(text),
                    format!("{path} in body should match '{}'", s.pattern),
                ));
            }
            Ok(_) => {}
        }
    }
    Outcome::default()
}

/// A schema's `pattern` compiled with Go's RE2 syntax, once per process (schemas are
/// validated against on every write): kube-openapi compiles each pattern once too (its
/// `compileRegexp` cache). At most [`MAX_PATTERNS`] are kept.
fn pattern(source: &str) -> Result<regex::Regex, kcel::EvalError> {
    static CACHE: LazyLock<Mutex<HashMap<String, Result<regex::Regex, kcel::EvalError>>>> =
        LazyLock::new(Mutex::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(compiled) = cache.get(source) {
        return compiled.clone();
    }
    let compiled = kcel::library::standard::compile_regex(source);
    if cache.len() >= MAX_PATTERNS {
        cache.clear();
    }
    cache.insert(source.to_string(), compiled.clone());
    compiled
}

/// How many compiled patterns [`pattern`] keeps.
const MAX_PATTERNS: usize = 1024;

/// Go's `%v` of a float64 bound.
fn bound(f: f64) -> String {
    format_double(f)
}

/// `swag.FormatFloat64` then `ConvertInt64`: whether a number is an int64 as upstream checks
/// integer values and bounds.
fn fits_int64(f: f64) -> bool {
    f.is_finite()
        && f.fract() == 0.0
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
}

/// `multipleOf`, `minimum` and `maximum` (kube-openapi `numberValidator.Validate`; formats
/// of numbers are not validated by Kubernetes, so only the integer type's range check
/// applies).
fn number(v: &J, k: Kind, s: &Schema, types: &[&str], path: &str) -> Outcome {
    let integer = types.len() == 1 && types[0] == "integer";
    let data = match k {
        Kind::Int(i) => i as f64,
        Kind::Float(f) => f,
        _ => return Outcome::default(),
    };
    let value = go_value(v);
    let mut r = Outcome::default();
    let range_error = |what: &str, f: f64| -> Option<Issue> {
        (integer && !fits_int64(f)).then(|| {
            plain(format!(
                "{what} value must be of type integer (default format) in {path}"
            ))
        })
    };
    if let Kind::Float(f) = k {
        if let Some(e) = range_error("Checked", f) {
            r.push(e);
        }
    }
    let mut multiple = Outcome::default();
    if let Some(factor) = s.multiple_of {
        let range = range_error("MultipleOf", factor);
        let native = range.is_none();
        if let Some(e) = range {
            multiple.push(e);
        }
        let failed = match (native, k) {
            (true, Kind::Int(i)) => {
                let factor = factor as i64;
                if factor <= 0 {
                    Some(plain_positive(path, &factor.to_string()))
                } else if (i / factor) * factor != i {
                    Some(other(
                        path,
                        value.clone(),
                        format!("{path} in body should be a multiple of {factor}"),
                    ))
                } else {
                    None
                }
            }
            _ => {
                if factor <= 0.0 {
                    Some(plain_positive(path, &bound(factor)))
                } else {
                    let mult = if factor < 1.0 {
                        1.0 / factor * data
                    } else {
                        data / factor
                    };
                    (!is_json_integer(mult)).then(|| {
                        other(
                            path,
                            value.clone(),
                            format!("{path} in body should be a multiple of {}", bound(factor)),
                        )
                    })
                }
            }
        };
        if let Some(e) = failed {
            multiple.push(e);
        }
    }
    let mut minimum = Outcome::default();
    if let Some(min) = s.minimum {
        let exclusive = s.exclusive_minimum;
        if let Some(e) = range_error("Minimum boundary", min) {
            minimum.push(e);
        }
        let (below, shown) = match k {
            Kind::Int(i) => {
                let m = min as i64;
                (if exclusive { i <= m } else { i < m }, m.to_string())
            }
            _ => (if exclusive { data <= min } else { data < min }, bound(min)),
        };
        if below {
            let relation = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            minimum.push(other(
                path,
                value.clone(),
                format!("{path} in body should be {relation} {shown}"),
            ));
        }
    }
    let mut maximum = Outcome::default();
    if let Some(max) = s.maximum {
        let exclusive = s.exclusive_maximum;
        if let Some(e) = range_error("Maximum boundary", max) {
            maximum.push(e);
        }
        let (above, shown) = match k {
            Kind::Int(i) => {
                let m = max as i64;
                (if exclusive { i >= m } else { i > m }, m.to_string())
            }
            _ => (if exclusive { data >= max } else { data > max }, bound(max)),
        };
        if above {
            let relation = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            maximum.push(other(
                path,
                value.clone(),
                format!("{path} in body should be {relation} {shown}"),
            ));
        }
    }
    r.merge(multiple);
    r.merge(minimum);
    r.merge(maximum);
    r.matches += 1;
    r
}

/// `errors.MultipleOfMustBePositive`.
fn plain_positive(path: &str, factor: &str) -> Issue {
    Issue {
        name: path.to_string(),
        kind: IssueKind::Other,
        value: Some(factor.to_string()),
        message: format!("factor MultipleOf declared for {path} must be positive: {factor}"),
    }
}

/// `items`, `minItems`, `maxItems` and `uniqueItems` (kube-openapi
/// `schemaSliceValidator.Validate`).
fn slice(items: &[J], old: Option<&J>, s: &Schema, path: &str, depth: usize) -> Outcome {
    let mut r = Outcome::default();
    if let Some(item_schema) = s.items() {
        let correlate = old_item(old, s);
        for (i, item) in items.iter().enumerate() {
            let old_item = correlate(i, item);
            let equal = node(
                item,
                old_item,
                item_schema,
                &format!("{path}[{i}]"),
                depth + 1,
                &mut r,
            );
            if old_item.is_some() {
                r.visited.push((Child::Index(i), equal));
            }
        }
    }
    let size = items.len() as i64;
    if let Some(min) = s.min_items {
        if size < min {
            r.push(other(
                path,
                size.to_string(),
                format!("{path} in body should have at least {min} items"),
            ));
        }
    }
    if let Some(max) = s.max_items {
        if size > max {
            r.push(Issue {
                name: path.to_string(),
                kind: IssueKind::TooMany { actual: size, max },
                value: None,
                message: format!("{path} in body should have at most {max} items"),
            });
        }
    }
    if s.unique_items
        && items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].contains(a))
    {
        r.push(other(
            path,
            go_quote(""),
            format!("{path} in body shouldn't contain duplicates"),
        ));
    }
    r.matches += 1;
    r
}

/// How the items of a list correlate with the old list's (upstream's
/// `correlateOldValueForChildAtNewIndex`): by the map keys for `x-kubernetes-list-type: map`
/// (missing keys taking their defaults), not at all for `set` and `atomic`, by index
/// otherwise.
fn old_item<'o>(old: Option<&'o J>, s: &Schema) -> impl Fn(usize, &J) -> Option<&'o J> {
    let old = old.and_then(J::as_array);
    let list_type = s.list_type.clone().unwrap_or_default();
    let keys = if list_type == "map" {
        s.list_map_keys_with_defaults()
    } else {
        Vec::new()
    };
    let key_of = move |item: &J| -> String {
        let key: Vec<Option<&J>> = keys
            .iter()
            .map(|(k, default)| item.get(k).or(default.as_ref()))
            .collect();
        serde_json::to_string(&key).unwrap_or_default()
    };
    // The old items of a map list by key (the first of duplicates), built once.
    let by_key: HashMap<String, &'o J> = match (list_type.as_str(), old) {
        ("map", Some(items)) => {
            let mut by_key = HashMap::with_capacity(items.len());
            for item in items {
                by_key.entry(key_of(item)).or_insert(item);
            }
            by_key
        }
        _ => HashMap::new(),
    };
    move |i, item| {
        let old = old?;
        match list_type.as_str() {
            "map" => by_key.get(&key_of(item)).copied(),
            "set" | "atomic" => None,
            _ => old.get(i),
        }
    }
}

/// `enum` (kube-openapi `basicCommonValidator.Validate`): the value must equal one of the
/// allowed values after Go's conversion to that value's type.
fn enumeration(v: &J, s: &Schema, path: &str) -> Outcome {
    if s.enum_.is_empty() || s.enum_.iter().any(|e| enum_matches(v, e)) {
        return Outcome::default();
    }
    let values = s
        .enum_
        .iter()
        .map(|e| match e {
            J::String(s) => s.clone(),
            other => go_json_value(other),
        })
        .collect();
    only(Issue {
        name: path.to_string(),
        kind: IssueKind::Enum(values),
        value: Some(go_value(v)),
        message: String::new(),
    })
}

/// `reflect.Value.Convert` to the allowed value's type, then `reflect.DeepEqual`.
fn enum_matches(v: &J, allowed: &J) -> bool {
    match (kind(allowed), kind(v)) {
        (Kind::Null, _) | (_, Kind::Null) => false,
        (Kind::Int(a), Kind::Int(b)) => a == b,
        (Kind::Int(a), Kind::Float(f)) => a == f as i64,
        (Kind::Float(a), Kind::Int(i)) => a == i as f64,
        (Kind::Float(a), Kind::Float(f)) => a == f,
        // Go converts an integer to the string of that code point.
        (Kind::String, Kind::Int(i)) => {
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            allowed.as_str() == Some(c.encode_utf8(&mut [0; 4]))
        }
        (Kind::String, Kind::String) | (Kind::Bool, Kind::Bool) => v == allowed,
        (Kind::Array, Kind::Array) | (Kind::Object, Kind::Object) => v == allowed,
        _ => false,
    }
}

/// `minProperties`, `maxProperties`, `additionalProperties`, `properties` and `required`
/// (kube-openapi `objectValidator.Validate`).
fn object(
    map: &serde_json::Map<String, J>,
    old: Option<&J>,
    s: &Schema,
    path: &str,
    depth: usize,
) -> Outcome {
    let old_field = |key: &str| old.and_then(|o| o.get(key));
    let mut r = Outcome::default();
    let count = map.len() as i64;
    if let Some(min) = s.min_properties {
        if count < min {
            r.push(other(
                path,
                count.to_string(),
                format!("{path} in body should have at least {min} properties"),
            ));
        }
    }
    if let Some(max) = s.max_properties {
        if count > max {
            r.push(Issue {
                name: path.to_string(),
                kind: IssueKind::TooMany { actual: count, max },
                value: None,
                message: format!("{path} in body should have at most {max} properties"),
            });
        }
    }
    if let Some(additional) = s.additional_schema() {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for key in keys {
            if !s.properties.contains_key(key) {
                let equal = node(
                    &map[key],
                    old_field(key),
                    additional,
                    &format!("{path}.{key}"),
                    depth + 1,
                    &mut r,
                );
                if old_field(key).is_some() {
                    r.visited.push((Child::Field(key.clone()), equal));
                }
            }
        }
    }
    for (name, property) in &s.properties {
        if let Some(value) = map.get(name) {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            let equal = node(value, old_field(name), property, &child, depth + 1, &mut r);
            if old_field(name).is_some() {
                r.visited.push((Child::Field(name.clone()), equal));
            }
        }
    }
    for name in &s.required {
        if !map.contains_key(name) {
            let name = format!("{path}.{name}");
            r.push(Issue {
                message: format!("{name} in body is required"),
                name,
                kind: IssueKind::Required,
                value: None,
            });
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: J, value: J) -> Vec<String> {
        let schema = Schema::from_json(&schema).unwrap();
        validate(&value, &schema)
            .into_iter()
            .map(|e| e.to_string())
            .collect()
    }

    fn update_valid(schema: &J, new: J, old: J) -> bool {
        let schema = Schema::from_json(schema).unwrap();
        validate_update(&new, Some(&old), &schema).is_empty()
    }

    // apiextensions-apiserver pkg/apiserver/validation/ratcheting_test.go: TestScalarRatcheting,
    // TestObjectScalarFieldsRatcheting, TestObjectObjectFieldsRatcheting.
    #[test]
    fn unchanged_values_ratchet() {
        let medium = json!({"type": "number", "minimum": 50, "maximum": 10000});
        assert!(update_valid(&medium, json!(1), json!(1)));
        assert!(!update_valid(&medium, json!(1), json!(2)));
        let object = json!({"type": "object", "properties": {
            "zero": {"type": "number", "minimum": 0, "maximum": 0},
            "small": {"type": "number", "maximum": 50},
            "medium": medium,
            "large": {"type": "number", "minimum": 10000}}});
        assert!(update_valid(
            &object,
            json!({"small": 500}),
            json!({"small": 500})
        ));
        assert!(update_valid(
            &object,
            json!({"small": 501, "medium": 500}),
            json!({"small": 501})
        ));
        assert!(!update_valid(
            &object,
            json!({"small": 501}),
            json!({"small": 500})
        ));
        let nested = json!({"type": "object", "properties": {"nested": object}});
        assert!(update_valid(
            &nested,
            json!({"nested": {"small": 501, "medium": 500}}),
            json!({"nested": {"small": 501}})
        ));
        assert!(!update_valid(
            &nested,
            json!({"nested": {"small": 501}}),
            json!({"nested": {"small": 500}})
        ));
        // An integer and a float of the same value differ (reflect.DeepEqual on int64 and
        // float64).
        assert!(!update_valid(&medium, json!(1.0), json!(1)));
    }

    // ratcheting.go correlateOldValueForChildAtNewIndex and CachedDeepEqual: map lists by
    // key, plain lists by index, sets and atomic lists not at all (and a non-empty one never
    // counts as unchanged, so neither does its parent).
    #[test]
    fn list_items_correlate_by_list_type() {
        let list = |list_type: Option<&str>| {
            let mut l = json!({"type": "array", "maxItems": 1,
                "items": {"type": "object", "required": ["k"], "properties": {
                    "k": {"type": "string"}, "v": {"type": "string", "maxLength": 1}}}});
            if let Some(t) = list_type {
                l["x-kubernetes-list-type"] = json!(t);
                if t == "map" {
                    l["x-kubernetes-list-map-keys"] = json!(["k"]);
                }
            }
            json!({"type": "object", "properties": {"l": l, "n": {"type": "integer"}}})
        };
        let old = json!({"l": [{"k": "a", "v": "long"}, {"k": "b"}], "n": 1});
        let reordered = json!({"l": [{"k": "b"}, {"k": "a", "v": "long"}], "n": 2});
        assert!(update_valid(
            &list(Some("map")),
            reordered.clone(),
            old.clone()
        ));
        let schema = Schema::from_json(&list(None)).unwrap();
        let texts = |new: &J| -> Vec<String> {
            validate_update(new, Some(&old), &schema)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        // By index: the reordered items changed.
        assert_eq!(
            texts(&reordered),
            [
                "l[1].v: Too long: may not be more than 1 byte",
                "l: Too many: 2: must have at most 1 item"
            ]
        );
        assert!(texts(&json!({"l": [{"k": "a", "v": "long"}, {"k": "b"}], "n": 2})).is_empty());
        for t in ["set", "atomic"] {
            let unchanged_list = json!({"l": [{"k": "a", "v": "long"}, {"k": "b"}], "n": 2});
            assert!(
                !update_valid(&list(Some(t)), unchanged_list, old.clone()),
                "{t}"
            );
        }
        // A whole object unchanged, set list included: the root is compared with its
        // children, and the set never counts as unchanged.
        assert!(!update_valid(&list(Some("set")), old.clone(), old.clone()));
        assert!(update_valid(&list(None), old.clone(), old.clone()));
    }

    // Texts as kube-apiserver prints them for custom resources: kube-openapi's messages
    // (errors/schema.go) through kubeOpenAPIResultToFieldErrors.
    #[test]
    fn type_errors_name_the_type_found() {
        let schema = json!({"type": "object", "properties": {
            "replicas": {"type": "integer"}, "name": {"type": "string"}, "on": {"type": "boolean"}
        }});
        assert_eq!(
            errors(schema, json!({"replicas": "3", "name": 7, "on": 1.5})),
            [
                "name: Invalid value: \"integer\": name in body must be of type string: \"integer\"",
                "on: Invalid value: \"number\": on in body must be of type boolean: \"number\"",
                "replicas: Invalid value: \"string\": replicas in body must be of type integer: \"string\"",
            ]
        );
    }

    #[test]
    fn integral_floats_are_integers_and_integers_numbers() {
        let schema = json!({"type": "object", "properties": {
            "i": {"type": "integer"}, "n": {"type": "number"}, "x": {"x-kubernetes-int-or-string": true}
        }});
        assert!(errors(schema.clone(), json!({"i": 3.0, "n": 3, "x": "a"})).is_empty());
        assert!(errors(schema.clone(), json!({"x": 4})).is_empty());
        assert_eq!(
            errors(schema, json!({"i": 3.5, "x": true})),
            [
                "i: Invalid value: \"number\": i in body must be of type integer: \"number\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in i",
                "x: Invalid value: \"boolean\": x in body must be of type integer,string: \"boolean\"",
            ]
        );
    }

    #[test]
    fn strings_by_length_in_runes_and_pattern() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string", "maxLength": 3},
            "b": {"type": "string", "minLength": 2},
            "c": {"type": "string", "pattern": "^[a-z]+$"}
        }});
        assert!(errors(schema.clone(), json!({"a": "äöü", "b": "ab", "c": "abc"})).is_empty());
        assert_eq!(
            errors(schema, json!({"a": "abcd", "b": "x", "c": "A1"})),
            [
                "a: Too long: may not be more than 3 bytes",
                "b: Invalid value: \"x\": b in body should be at least 2 chars long",
                "c: Invalid value: \"A1\": c in body should match '^[a-z]+$'",
            ]
        );
    }

    #[test]
    fn numbers_by_bounds_and_multiples() {
        let schema = json!({"type": "object", "properties": {
            "i": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 2},
            "x": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
            "n": {"type": "number", "maximum": 1.5, "exclusiveMaximum": true}
        }});
        assert!(errors(schema.clone(), json!({"i": 4, "x": 1, "n": 1.25})).is_empty());
        assert_eq!(
            errors(schema, json!({"i": 11, "x": 0, "n": 1.5})),
            [
                "i: Invalid value: 11: i in body should be a multiple of 2",
                "i: Invalid value: 11: i in body should be less than or equal to 10",
                "n: Invalid value: 1.5: n in body should be less than 1.5",
                "x: Invalid value: 0: x in body should be greater than 0",
            ]
        );
    }

    #[test]
    fn enums_list_the_supported_values() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string", "enum": ["a", "b"]},
            "i": {"type": "integer", "enum": [1, 2]}
        }});
        assert!(errors(schema.clone(), json!({"s": "a", "i": 2.0})).is_empty());
        assert_eq!(
            errors(schema, json!({"s": "c", "i": 3})),
            [
                "i: Unsupported value: 3: supported values: \"1\", \"2\"",
                "s: Unsupported value: \"c\": supported values: \"a\", \"b\"",
            ]
        );
    }

    #[test]
    fn lists_and_objects_by_size_required_and_items() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {
            "l": {"type": "array", "minItems": 2, "maxItems": 3, "uniqueItems": true,
                  "items": {"type": "integer"}},
            "m": {"type": "object", "maxProperties": 1, "minProperties": 1,
                  "additionalProperties": {"type": "string"}},
            "o": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
        }});
        assert_eq!(
            errors(
                schema,
                json!({"l": [1, "x", 1, 4], "m": {"k": 1, "j": "v"}, "o": {}})
            ),
            [
                "l[1]: Invalid value: \"string\": l[1] in body must be of type integer: \"string\"",
                "l: Too many: 4: must have at most 3 items",
                "l: Invalid value: \"\": l in body shouldn't contain duplicates",
                "m: Too many: 2: must have at most 1 item",
                "m.k: Invalid value: \"integer\": m.k in body must be of type string: \"integer\"",
                "o.a: Required value",
                "spec: Required value",
            ]
        );
    }

    #[test]
    fn null_only_where_nullable() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string", "nullable": true}
        }});
        assert_eq!(
            errors(schema, json!({"a": null, "b": null})),
            ["a: Invalid value: \"null\": a in body must be of type string: \"null\""]
        );
    }

    #[test]
    fn formats_kubernetes_validates() {
        let schema = json!({"type": "object", "properties": {
            "t": {"type": "string", "format": "date-time"},
            "d": {"type": "string", "format": "date"},
            "u": {"type": "string", "format": "uuid"},
            "other": {"type": "string", "format": "no-such-format"}
        }});
        assert!(
            errors(
                schema.clone(),
                json!({"t": "2024-02-29T10:00:00Z", "d": "2024-02-29",
                   "u": "123e4567-e89b-12d3-a456-426614174000", "other": "anything"})
            )
            .is_empty()
        );
        assert_eq!(
            errors(
                schema,
                json!({"t": "yesterday", "d": "2023-02-29", "u": "x"})
            ),
            [
                "d: Invalid value: \"2023-02-29\": d in body must be of type date: \"2023-02-29\"",
                "t: Invalid value: \"yesterday\": t in body must be of type date-time: \"yesterday\"",
                "u: Invalid value: \"x\": u in body must be of type uuid: \"x\"",
            ]
        );
    }

    #[test]
    fn junctors_report_at_the_nil_path() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string", "anyOf": [{"maxLength": 1}, {"pattern": "^x"}]},
            "n": {"type": "string", "not": {"pattern": "^bad"}}
        }});
        assert!(errors(schema.clone(), json!({"a": "xyz", "n": "good"})).is_empty());
        assert_eq!(
            errors(schema, json!({"a": "abc", "n": "bad"})),
            [
                "<nil>: Invalid value: \"\": \"a\" must validate at least one schema (anyOf)",
                "a: Too long: may not be more than 1 byte",
                "<nil>: Invalid value: \"\": \"n\" must not validate the schema (not)",
            ]
        );
    }
}

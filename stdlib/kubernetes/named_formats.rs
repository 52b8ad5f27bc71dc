//! `kubernetes.format`: named string formats (`format.dns1123Label()`, `format.named('uuid')`)
//! validated with apimachinery's and kube-openapi's rules and messages.

use std::any::Any;
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::strfmt::{
    DNS1123_LABEL_FMT, DNS1123_SUBDOMAIN_FMT, is_base64, is_date, is_date_time, is_uuid,
};
use super::{opaque, opaque_arg, string_arg};
use kcel::EvalResult;
use kcel::library::{
    CallCost, CallEstimate, EstimateArgs, REGEX_STRING_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR,
};
use kcel::library::{Implementation, Library, overloads};
use kcel::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "kubernetes.NamedFormat";

/// The largest regex size assumed by the static estimate.
pub const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;

/// A named format: its library name, validator and the regex size its runtime cost assumes.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    /// The name `format.named` takes (`dns1123Label`).
    pub name: &'static str,
    /// The validator: the error messages for a value, none when it is valid.
    pub validate: fn(&str) -> Vec<String>,
    /// The size of the regex Kubernetes' runtime cost assumes for it.
    pub max_regex_size: u64,
}

impl Opaque for Format {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Format>()
            .is_some_and(|o| o.name == self.name)
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        format!("format.{}()", self.name)
    }
}

/// kube-openapi's UUID pattern length (the regex size the `uuid` cost assumes).
const UUID_PATTERN_LEN: u64 = 70;
/// kube-openapi's date-time pattern length (used for `date` and `datetime`).
const DATE_TIME_PATTERN_LEN: u64 = 71;

/// Every named format.
pub const FORMATS: &[Format] = &[
    Format {
        name: "dns1123Label",
        validate: |s| dns1123_label(s),
        max_regex_size: 30,
    },
    Format {
        name: "dns1123Subdomain",
        validate: |s| dns1123_subdomain(s),
        max_regex_size: 60,
    },
    Format {
        name: "dns1035Label",
        validate: |s| dns1035_label(s),
        max_regex_size: 30,
    },
    Format {
        name: "qualifiedName",
        validate: qualified_name,
        max_regex_size: 60,
    },
    Format {
        name: "dns1123LabelPrefix",
        validate: |s| dns1123_label(&mask_trailing_dash(s)),
        max_regex_size: 30,
    },
    Format {
        name: "dns1123SubdomainPrefix",
        validate: |s| dns1123_subdomain(&mask_trailing_dash(s)),
        max_regex_size: 60,
    },
    Format {
        name: "dns1035LabelPrefix",
        validate: |s| dns1035_label(&mask_trailing_dash(s)),
        max_regex_size: 30,
    },
    Format {
        name: "labelValue",
        validate: label_value,
        max_regex_size: 40,
    },
    Format {
        name: "uri",
        validate: uri,
        max_regex_size: 1103,
    },
    Format {
        name: "uuid",
        validate: uuid,
        max_regex_size: UUID_PATTERN_LEN,
    },
    Format {
        name: "byte",
        validate: base64,
        max_regex_size: 84,
    },
    Format {
        name: "date",
        validate: |s| check(is_date(s), "invalid date"),
        max_regex_size: DATE_TIME_PATTERN_LEN,
    },
    Format {
        name: "datetime",
        validate: |s| check(is_date_time(s), "invalid datetime"),
        max_regex_size: DATE_TIME_PATTERN_LEN,
    },
];

/// The messages of the named format's validator for `s`, apimachinery's texts (none when
/// valid or when no format has that name): `dns1123Label`, `dns1123Subdomain`,
/// `dns1035Label`, `qualifiedName`, `labelValue`, ... — what the API server says of names.
pub fn messages(format: &str, s: &str) -> Vec<String> {
    FORMATS
        .iter()
        .find(|f| f.name == format)
        .map(|f| (f.validate)(s))
        .unwrap_or_default()
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.format", 0);
    lib.opaque_type(TYPE);
    overloads!(lib.function(
        "format.named",
        "The named format, or optional.none() for an unknown name.",
    );
        global "format-named" ("string") -> "optional_type(kubernetes.NamedFormat)"
            => Implementation::Unary(named), cost: CallCost::Fixed(1), estimate: super::est_one;
    )
    .examples(&[
        "format.named('dns1123Label') == optional.of(format.dns1123Label())",
        "format.named('unknown') == optional.none()",
    ]);
    for f in FORMATS {
        let name = format!("format.{}", f.name);
        lib.function(&name, "A named format.").global(
            &name,
            &[],
            TYPE,
            Implementation::Closure(Arc::new(move |_: &[Value]| Ok(opaque(*f)))),
        );
    }
    overloads!(lib.function(
        "validate",
        "optional.none() if the string is valid for the format, else optional.of(the error messages).",
    );
        member "format-validate" (TYPE, "string") -> "optional_type(list(string))"
            => Implementation::Binary(validate),
            cost: CallCost::Custom(validate_cost),
            estimate: validate_estimate;
    )
    .examples(&[
            "format.dns1123Label().validate('my-name') == optional.none()",
            "format.uuid().validate('x') == optional.of(['does not match the UUID format'])",
        ]);
    lib
}

/// `format.named(name)`.
pub fn named(name: &Value) -> EvalResult {
    let name = string_arg(name)?;
    Ok(Value::Optional(
        FORMATS
            .iter()
            .find(|f| f.name == name)
            .map(|f| Arc::new(opaque(*f))),
    ))
}

/// `f.validate(s)`.
pub fn validate(f: &Value, s: &Value) -> EvalResult {
    let f = opaque_arg::<Format>(f)?;
    let errors = (f.validate)(string_arg(s)?);
    Ok(Value::Optional(if errors.is_empty() {
        None
    } else {
        Some(Arc::new(Value::list(
            errors.into_iter().map(Value::from).collect::<Vec<_>>(),
        )))
    }))
}

/// `⌈(1 + S) × 0.1⌉ × ⌈maxRegexSize × 0.25⌉`.
fn validate_cost(args: &[Value], _: Option<&Value>) -> u64 {
    let (Some(f), Some(s)) = (args.first(), args.get(1)) else {
        return 1;
    };
    let Ok(f) = opaque_arg::<Format>(f) else {
        return 1;
    };
    let s = super::ceil_cost(1 + kcel::library::actual_size(s), STRING_TRAVERSAL_FACTOR);
    s.saturating_mul(super::ceil_cost(
        f.max_regex_size,
        REGEX_STRING_LENGTH_FACTOR,
    ))
}

/// `⌈E × 0.1⌉ × 32` (a 128-character regex is assumed).
fn validate_estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let mut e = super::est_traverse_first(a);
    let f = MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_FACTOR;
    e.cost = kcel::library::CostEstimate {
        min: super::ceil_cost(e.cost.min, f),
        max: (e.cost.max as f64 * f).ceil().min(u64::MAX as f64) as u64,
    };
    e
}

fn check(ok: bool, msg: &str) -> Vec<String> {
    if ok {
        Vec::new()
    } else {
        vec![msg.to_string()]
    }
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in pattern: {e}"))
}

const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

static DNS1123_LABEL: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1123_LABEL_FMT}$")));
static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| re(&format!("^{DNS1123_SUBDOMAIN_FMT}$")));
static DNS1035_LABEL: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1035_LABEL_FMT}$")));
static LABEL_KEY: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{LABEL_KEY_FMT}$")));
static LABEL_VALUE: LazyLock<Regex> = LazyLock::new(|| re(&format!("^({LABEL_KEY_FMT})?$")));

/// apimachinery's `RegexError`.
pub(crate) fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

/// apimachinery's `maskTrailingDash`: a trailing dash (in names of two or more characters)
/// replaces the last two characters by `a`.
/// apimachinery's `maskTrailingDash`: a name prefix ending in `-` is validated with its last
/// two bytes replaced by `a`.
pub(crate) fn mask_trailing_dash(s: &str) -> String {
    if s.len() > 1 && s.ends_with('-') {
        // Go slices bytes; a cut through a multi-byte character is invalid either way.
        let mut cut = s.len() - 2;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        return format!("{}a", &s[..cut]);
    }
    s.to_string()
}

fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !DNS1123_LABEL.is_match(s) {
        if DNS1123_SUBDOMAIN.is_match(s) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `max_len_unit` is "characters" (util/validation) or "bytes" (validate/content).
fn subdomain(s: &str, max_len_unit: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(format!("must be no more than 253 {max_len_unit}"));
    }
    if !DNS1123_SUBDOMAIN.is_match(s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

fn dns1123_subdomain(s: &str) -> Vec<String> {
    subdomain(s, "characters")
}

/// apimachinery's `IsWildcardDNS1123Subdomain`: `*.` then a DNS-1123 subdomain (an
/// Ingress's wildcard hosts).
pub(crate) fn wildcard_dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if !s
        .strip_prefix("*.")
        .is_some_and(|rest| DNS1123_SUBDOMAIN.is_match(rest))
    {
        errs.push(regex_error(
            "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
            &format!(r"\*\.{DNS1123_SUBDOMAIN_FMT}"),
            &["*.example.com"],
        ));
    }
    errs
}

fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !DNS1035_LABEL.is_match(s) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// apimachinery's `IsQualifiedName` (label keys): its error messages.
pub(crate) fn qualified_name(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts[..] {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    subdomain(prefix, "bytes")
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_string());
    }
    if !LABEL_KEY.is_match(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// apimachinery's `IsValidLabelValue`: its error messages.
pub(crate) fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 bytes".to_string());
    }
    if !LABEL_VALUE.is_match(s) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            &format!("({LABEL_KEY_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn uri(s: &str) -> Vec<String> {
    match super::go_url::parse_request_uri(s) {
        Ok(_) => Vec::new(),
        Err(e) => vec![e.to_string()],
    }
}

fn uuid(s: &str) -> Vec<String> {
    check(is_uuid(s), "does not match the UUID format")
}

fn base64(s: &str) -> Vec<String> {
    check(is_base64(s), "invalid base64")
}

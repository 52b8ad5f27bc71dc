//! `kubernetes.urls`: the `kubernetes.URL` type with Go `net/url` semantics.

use std::any::Any;

use super::go_url::{Url, parse_request_uri, parse_url};
use super::{est_one, opaque, opaque_arg, rt_traverse_first, string_arg};
use kcel::library::{CallCost, CallEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};
use kcel::{Key, Map, Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "kubernetes.URL";

/// A URL value.
#[derive(Clone, Debug)]
pub struct UrlValue(pub Url);

impl Opaque for UrlValue {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<UrlValue>()
            .is_some_and(|o| o.0.to_go_string() == self.0.to_go_string())
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        self.0.to_go_string()
    }
}

/// Parses as Kubernetes' `url()`: must pass `ParseRequestURI`, the value is `Parse`'s.
pub fn parse(s: &str) -> Result<Url, EvalError> {
    let wrap = |e: super::go_url::UrlError| {
        EvalError::new(format!(
            "URL parse error during conversion from string: {e}"
        ))
    };
    parse_request_uri(s).map_err(wrap)?;
    parse_url(s).map_err(wrap)
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.urls", 0);
    lib.opaque_type(TYPE);
    overloads!(lib.function(
        "url",
        "Parses an absolute URI or absolute path as Go's url.ParseRequestURI accepts it.",
    );
        global "string_to_url" ("string") -> TYPE
            => Implementation::Unary(to_url),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: url_estimate;
    )
    .examples(&[
        "url('https://example.com/path').getHost() == 'example.com'",
        "url('/absolute-path').getScheme() == ''",
    ]);
    overloads!(lib.function("isURL", "Whether a string is a URL `url()` accepts.");
        global "is_url_string" ("string") -> "bool" => Implementation::Unary(is_url);
    )
    .examples(&["isURL('https://example.com')", "!isURL('example.com')"]);
    type Accessor = fn(&Url) -> Value;
    let accessors: [super::Row<Accessor>; 6] = [
        (
            "getScheme",
            "url_get_scheme",
            "string",
            "The scheme, or ''.",
            |u| Value::from(u.scheme.as_str()),
            &["url('https://example.com').getScheme() == 'https'"],
        ),
        (
            "getHost",
            "url_get_host",
            "string",
            "The host with port; IPv6 addresses in brackets.",
            |u| Value::from(u.host.as_str()),
            &["url('https://[::1]:80/').getHost() == '[::1]:80'"],
        ),
        (
            "getHostname",
            "url_get_hostname",
            "string",
            "The host without port; IPv6 addresses without brackets.",
            |u| Value::from(u.hostname()),
            &["url('https://[::1]:80/').getHostname() == '::1'"],
        ),
        (
            "getPort",
            "url_get_port",
            "string",
            "The port, or ''.",
            |u| Value::from(u.port()),
            &[
                "url('https://example.com:8080/').getPort() == '8080'",
                "url('https://example.com/').getPort() == ''",
            ],
        ),
        (
            "getEscapedPath",
            "url_get_escaped_path",
            "string",
            "The path, escaped as Go's EscapedPath does.",
            |u| Value::from(u.escaped_path()),
            &[
                "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
            ],
        ),
        (
            "getQuery",
            "url_get_query",
            "map(string, list(string))",
            "The query parameters: each key with its values in order.",
            query,
            &[
                "url('https://example.com/?k=a&k=b').getQuery() == {'k': ['a', 'b']}",
                "url('https://example.com/').getQuery() == {}",
            ],
        ),
    ];
    for (name, id, result, doc, f, examples) in accessors {
        lib.function(name, doc)
            .member(id, &[TYPE], result, Implementation::Closure(accessor(f)))
            .cost(CallCost::Fixed(1))
            .estimate(est_one)
            .examples(examples);
    }
    lib
}

fn accessor(f: fn(&Url) -> Value) -> kcel::library::SharedFn {
    std::sync::Arc::new(move |args: &[Value]| match args {
        [v] => Ok(f(&opaque_arg::<UrlValue>(v)?.0)),
        _ => Err(EvalError::no_such_overload()),
    })
}

fn query(u: &Url) -> Value {
    let map: Map = u
        .query()
        .into_iter()
        .map(|(k, vs)| {
            let list: Vec<Value> = vs.into_iter().map(Value::from).collect();
            (Key::String(k.into()), Value::list(list))
        })
        .collect();
    Value::from(map)
}

/// `url(s)`.
pub fn to_url(s: &Value) -> EvalResult {
    Ok(opaque(UrlValue(parse(string_arg(s)?)?)))
}

/// `isURL(s)`.
pub fn is_url(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse_request_uri(string_arg(s)?).is_ok()))
}

/// `⌈E × 0.1⌉`; the result's size is the input's (used by `==` on URLs).
fn url_estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let size = a.args.first().map(|n| a.size(n));
    CallEstimate {
        cost: size.map_or(kcel::library::CostEstimate::fixed(1), |s| {
            s.times_factor(STRING_TRAVERSAL_FACTOR)
        }),
        result_size: size,
    }
}

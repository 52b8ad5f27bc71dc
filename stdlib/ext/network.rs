//! cel-go's `ext.Network` (`cel.lib.ext.network`, version 1): the `net.IP` and `net.CIDR`
//! opaque types, upstreamed from Kubernetes' IP and CIDR libraries.
//!
//! Parsing, accessors and containment are Kubernetes' (shared with
//! [`kubernetes::ip`](fn@crate::kubernetes::ip) and
//! [`kubernetes::cidr`](fn@crate::kubernetes::cidr)). cel-go's library differs in:
//!
//! - CIDR parse errors read `CIDR "<s>" parse error during conversion from string: ...`;
//! - `c.isMask()` (`cidr_is_mask`): whether the prefix has no host bits set;
//! - `==` with a value of another type is `false` (Kubernetes' types give `no such
//!   overload`);
//! - constant arguments of `ip('...')` and `cidr('...')` are checked at compile time
//!   (`invalid ip argument: ...`, `invalid cidr argument: ...`);
//! - no cost functions: every call costs 1, as cel-go's default.

use std::any::Any;
use std::net::IpAddr;
use std::sync::Arc;

use crate::kubernetes::cidr::Cidr;
use crate::kubernetes::ip::{accessors, parse_ip};
use crate::kubernetes::netip::{is_4in6, parse_prefix};
use crate::kubernetes::{go_quote, opaque, opaque_arg, string_arg};
use kcel::Type;
use kcel::library::syntax::NodeMap;
use kcel::library::syntax::{Expr, ExprKind, Literal};
use kcel::library::{Implementation, Library, overloads};
use kcel::{CheckError, Diagnostic, EvalError, EvalResult};
use kcel::{Opaque, Value};

/// The library's version (cel-go's `ext.NetworkVersion`); cel-go has only version 1.
pub const VERSION: u32 = 1;

/// The CEL type of addresses (the name Kubernetes' library uses too).
pub const IP_TYPE: &str = "net.IP";
/// The CEL type of prefixes.
pub const CIDR_TYPE: &str = "net.CIDR";

/// An address of cel-go's network library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetIp(pub IpAddr);

impl Opaque for NetIp {
    fn type_name(&self) -> &str {
        IP_TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<NetIp>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        self.0.to_string()
    }
}

/// A prefix of cel-go's network library: address (host bits kept) and length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetCidr(pub Cidr);

impl Opaque for NetCidr {
    fn type_name(&self) -> &str {
        CIDR_TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<NetCidr>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        self.0.to_display_string()
    }
}

/// cel-go's `parseCIDR`: `netip.ParsePrefix`, then no zone and no IPv4-mapped address.
pub fn parse_cidr(s: &str) -> Result<Cidr, EvalError> {
    let (addr, bits) = parse_prefix(s).map_err(|e| {
        EvalError::new(format!(
            "CIDR {} parse error during conversion from string: {e}",
            go_quote(s)
        ))
    })?;
    // netip.ParsePrefix already rejects zones; cel-go checks again.
    if addr.zone.is_some() {
        return Err(EvalError::new(format!(
            "CIDR {} with zone value is not allowed",
            go_quote(s)
        )));
    }
    if is_4in6(&addr.ip) {
        return Err(EvalError::new(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            go_quote(s)
        )));
    }
    Ok(Cidr {
        addr: addr.ip,
        bits,
    })
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("cel.lib.ext.network", VERSION);
    lib.opaque_type(IP_TYPE);
    lib.opaque_type(CIDR_TYPE);
    overloads!(lib.function("cidr", "Parses a network prefix such as 192.168.0.0/16.");
        global "string_to_cidr" ("string") -> CIDR_TYPE => Implementation::Unary(to_cidr);
    )
    .examples(&["cidr('192.168.0.0/16').prefixLength() == 16"]);
    overloads!(lib.function("string", "Converts a value to a string.");
        global "cidr_to_string" (CIDR_TYPE) -> "string" => Implementation::Unary(cidr_to_string);
        global "ip_to_string" (IP_TYPE) -> "string" => Implementation::Unary(ip_to_string);
    )
    .examples(&[
        "string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
        "string(ip('2001:DB8::1')) == '2001:db8::1'",
    ]);
    overloads!(lib.function(
        "containsCIDR",
        "Whether the prefix contains another prefix (given as net.CIDR or as a string).",
    );
        member "cidr_contains_cidr" (CIDR_TYPE, CIDR_TYPE) -> "bool"
            => Implementation::Binary(contains_cidr);
        member "cidr_contains_cidr_string" (CIDR_TYPE, "string") -> "bool"
            => Implementation::Binary(contains_cidr_string);
    )
    .examples(&["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"]);
    overloads!(lib.function(
        "containsIP",
        "Whether the prefix contains an address (given as net.IP or as a string).",
    );
        member "cidr_contains_ip_ip" (CIDR_TYPE, IP_TYPE) -> "bool"
            => Implementation::Binary(contains_ip);
        member "cidr_contains_ip_string" (CIDR_TYPE, "string") -> "bool"
            => Implementation::Binary(contains_ip_string);
    )
    .examples(&["cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))"]);
    overloads!(lib.function(
        "ip",
        "Parses an IPv4 or IPv6 address (no zones, no IPv4-mapped IPv6); the address part of a prefix.",
    );
        global "string_to_ip" ("string") -> IP_TYPE => Implementation::Unary(to_ip);
        member "cidr_ip" (CIDR_TYPE) -> IP_TYPE => Implementation::Unary(cidr_ip);
    )
    .examples(&[
        "ip('127.0.0.1').family() == 4",
        "cidr('192.168.1.5/24').ip() == ip('192.168.1.5')",
    ]);
    overloads!(lib.function(
        "ip.isCanonical",
        "Whether an IP address string is in canonical form; an error if it is not an address.",
    );
        global "ip_is_canonical" ("string") -> "bool" => Implementation::Unary(is_canonical);
    )
    .examples(&["!ip.isCanonical('2001:DB8::1')"]);
    overloads!(lib.function("isCIDR", "Whether a string is a prefix `cidr()` accepts.");
        global "is_cidr" ("string") -> "bool" => Implementation::Unary(is_cidr);
    )
    .examples(&["isCIDR('10.0.0.1/8')"]);
    overloads!(lib.function("isIP", "Whether a string is an address `ip()` accepts.");
        global "is_ip" ("string") -> "bool" => Implementation::Unary(is_ip);
    )
    .examples(&["isIP('1.2.3.4')", "!isIP('::ffff:1.2.3.4')"]);
    overloads!(lib.function("isMask", "Whether the prefix has no host bits set.");
        member "cidr_is_mask" (CIDR_TYPE) -> "bool" => Implementation::Unary(is_mask);
    )
    .examples(&[
        "cidr('192.168.1.0/24').isMask()",
        "!cidr('192.168.1.5/24').isMask()",
    ]);
    overloads!(lib.function("masked", "The prefix with its host bits cleared.");
        member "cidr_masked" (CIDR_TYPE) -> CIDR_TYPE => Implementation::Unary(masked);
    )
    .examples(&["cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24')"]);
    overloads!(lib.function("prefixLength", "The prefix length in bits.");
        member "cidr_prefix_length" (CIDR_TYPE) -> "int" => Implementation::Unary(prefix_length);
    )
    .examples(&["cidr('192.168.1.0/24').prefixLength() == 24"]);
    for (name, id, result, doc, f, examples) in accessors() {
        lib.function(name, doc)
            .member(id, &[IP_TYPE], result, Implementation::Closure(accessor(f)))
            .examples(examples);
    }
    lib.add_validator("cel.validator.network.ip", validate_ip_literals);
    lib.add_validator("cel.validator.network.cidr", validate_cidr_literals);
    lib
}

fn accessor(f: fn(&IpAddr) -> Value) -> kcel::library::SharedFn {
    Arc::new(move |args: &[Value]| match args {
        [v] => Ok(f(&opaque_arg::<NetIp>(v)?.0)),
        _ => Err(EvalError::no_such_overload()),
    })
}

fn cidr_arg(v: &Value) -> Result<&Cidr, EvalError> {
    Ok(&opaque_arg::<NetCidr>(v)?.0)
}

/// `ip(s)`.
pub fn to_ip(s: &Value) -> EvalResult {
    Ok(opaque(NetIp(parse_ip(string_arg(s)?)?)))
}

/// `isIP(s)`.
pub fn is_ip(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse_ip(string_arg(s)?).is_ok()))
}

/// `ip.isCanonical(s)`.
pub fn is_canonical(s: &Value) -> EvalResult {
    let s = string_arg(s)?;
    Ok(Value::Bool(parse_ip(s)?.to_string() == s))
}

/// `string(ip)`.
pub fn ip_to_string(ip: &Value) -> EvalResult {
    Ok(Value::from(opaque_arg::<NetIp>(ip)?.0.to_string()))
}

/// `cidr(s)`.
pub fn to_cidr(s: &Value) -> EvalResult {
    Ok(opaque(NetCidr(parse_cidr(string_arg(s)?)?)))
}

/// `isCIDR(s)`.
pub fn is_cidr(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse_cidr(string_arg(s)?).is_ok()))
}

/// `string(c)`.
pub fn cidr_to_string(c: &Value) -> EvalResult {
    Ok(Value::from(cidr_arg(c)?.to_display_string()))
}

fn contains(c: &Cidr, o: &Cidr) -> bool {
    c.overlaps(o) && c.bits <= o.bits
}

/// `c.containsCIDR(other)`.
pub fn contains_cidr(c: &Value, o: &Value) -> EvalResult {
    Ok(Value::Bool(contains(cidr_arg(c)?, cidr_arg(o)?)))
}

/// `c.containsCIDR('prefix')`.
pub fn contains_cidr_string(c: &Value, o: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    Ok(Value::Bool(contains(c, &parse_cidr(string_arg(o)?)?)))
}

/// `c.containsIP(ip)`.
pub fn contains_ip(c: &Value, ip: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    Ok(Value::Bool(c.contains(&opaque_arg::<NetIp>(ip)?.0)))
}

/// `c.containsIP('address')`.
pub fn contains_ip_string(c: &Value, ip: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    Ok(Value::Bool(c.contains(&parse_ip(string_arg(ip)?)?)))
}

/// `c.ip()`.
pub fn cidr_ip(c: &Value) -> EvalResult {
    Ok(opaque(NetIp(cidr_arg(c)?.addr)))
}

/// `c.isMask()`.
pub fn is_mask(c: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    Ok(Value::Bool(c.addr == c.masked().addr))
}

/// `c.masked()`.
pub fn masked(c: &Value) -> EvalResult {
    Ok(opaque(NetCidr(cidr_arg(c)?.masked())))
}

/// `c.prefixLength()`.
pub fn prefix_length(c: &Value) -> EvalResult {
    Ok(Value::Int(i64::from(cidr_arg(c)?.bits)))
}

/// cel-go's `networkFormatValidator`: every call of `function` whose first argument is a
/// string literal must parse, else `invalid <function> argument: <error>` at the literal.
fn validate_literals(
    expr: &Expr,
    function: &str,
    check: fn(&str) -> Result<(), EvalError>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    expr.walk(|e| {
        let ExprKind::Call {
            function: f, args, ..
        } = &e.kind
        else {
            return;
        };
        if &**f != function {
            return;
        }
        if let Some(
            arg @ Expr {
                kind: ExprKind::Literal(Literal::String(s)),
                ..
            },
        ) = args.first()
        {
            if let Err(err) = check(s) {
                out.push(Diagnostic::new(
                    arg.span,
                    CheckError::Library(format!("invalid {function} argument: {err}")),
                ));
            }
        }
    });
    out
}

fn validate_ip_literals(expr: &Expr, _: &NodeMap<Type>) -> Vec<Diagnostic> {
    validate_literals(expr, "ip", |s| parse_ip(s).map(|_| ()))
}

fn validate_cidr_literals(expr: &Expr, _: &NodeMap<Type>) -> Vec<Diagnostic> {
    validate_literals(expr, "cidr", |s| parse_cidr(s).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use kcel::Env;
    use kcel::Value;

    fn env() -> Env {
        let mut env = Env::new();
        env.add_library(&super::library());
        env
    }

    fn eval(expr: &str) -> Result<Value, String> {
        let env = env();
        let ast = env.compile(expr).map_err(|e| e.to_string())?;
        let program = env.program(&ast).map_err(|e| e.to_string())?;
        program.eval(&()).map_err(|e| e.into_message())
    }

    #[test]
    fn cidr_errors_are_cel_gos() {
        // ext/network.go parseCIDR; the string argument is not a literal, so the error
        // comes at evaluation.
        assert_eq!(
            eval("cidr('192.168.0.0/' + '')"),
            Err(
                "CIDR \"192.168.0.0/\" parse error during conversion from string: \
                 netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\""
                    .into()
            )
        );
        assert_eq!(
            eval("cidr('::ffff:1.2.3.4/120' + '')"),
            Err("IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed".into())
        );
        assert_eq!(
            eval("cidr('fe80::1%en0/24' + '')"),
            Err(
                "CIDR \"fe80::1%en0/24\" parse error during conversion from string: \
                 netip.ParsePrefix(\"fe80::1%en0/24\"): IPv6 zones cannot be present in a prefix"
                    .into()
            )
        );
        // Addresses fail as Kubernetes' do (the same text in both libraries).
        assert_eq!(
            eval("ip('::ffff:1.2.3.4' + '')"),
            Err("IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed".into())
        );
        assert_eq!(
            eval("cidr('10.0.0.0/8').containsIP('1.2.3' + '')"),
            Err(
                "IP Address \"1.2.3\" parse error during conversion from string: \
                 ParseAddr(\"1.2.3\"): IPv4 address too short"
                    .into()
            )
        );
    }

    #[test]
    fn constant_arguments_are_checked_at_compile_time() {
        // networkFormatValidator: "invalid %s argument: %v" at the literal.
        let err = eval("ip('::ffff:c0a8:1') == ip('192.168.0.1')").unwrap_err();
        assert!(
            err.contains(
                "ERROR: <input>:1:4: invalid ip argument: IPv4-mapped IPv6 address \
                 \"::ffff:c0a8:1\" is not allowed"
            ),
            "{err}"
        );
        let err = eval("cidr('10.0.0.0/33')").unwrap_err();
        assert!(
            err.contains(
                "invalid cidr argument: CIDR \"10.0.0.0/33\" parse error during conversion \
                 from string: netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range"
            ),
            "{err}"
        );
        // Only ip() and cidr(): the string overloads of other functions fail at run time.
        assert_eq!(eval("isIP('1.2.3')"), Ok(Value::Bool(false)));
        assert!(eval("ip.isCanonical('1.2.3')").is_err());
    }

    #[test]
    fn is_mask_and_equality() {
        assert_eq!(eval("cidr('10.0.0.0/8').isMask()"), Ok(Value::Bool(true)));
        assert_eq!(eval("cidr('10.0.0.1/8').isMask()"), Ok(Value::Bool(false)));
        assert_eq!(eval("cidr('::/0').isMask()"), Ok(Value::Bool(true)));
        // Equal() with another type is false in cel-go's library (not an error).
        assert_eq!(
            eval("dyn(ip('1.2.3.4')) == '1.2.3.4'"),
            Ok(Value::Bool(false))
        );
        assert_eq!(eval("dyn(cidr('::/0')) == 1"), Ok(Value::Bool(false)));
        assert_eq!(
            eval("cidr('10.0.0.1/8') == cidr('10.0.0.0/8')"),
            Ok(Value::Bool(false))
        );
        assert_eq!(eval("string(ip('::FFFF'))"), Ok(Value::from("::ffff")));
        assert_eq!(
            eval("type(cidr('::/0')) == net.CIDR && type(ip('::')) == net.IP"),
            Ok(Value::Bool(true))
        );
    }

    #[test]
    fn every_call_costs_one() {
        // cel-go's library declares no cost functions.
        let env = env();
        let ast = env
            .compile("cidr('10.0.0.0/8').containsIP('10.1.2.3')")
            .unwrap();
        let (value, details) = env.program(&ast).unwrap().eval_with_details(&());
        assert_eq!(value, Ok(Value::Bool(true)));
        assert_eq!(details.actual_cost, 2);
    }
}

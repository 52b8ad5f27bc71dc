//! `kubernetes.net.ip`: the `net.IP` type, parsed like Go's `netip.ParseAddr` with zones and
//! IPv4-mapped IPv6 addresses rejected.

use std::any::Any;
use std::net::IpAddr;

use super::netip::{is_4in6, parse_addr};
use super::{est_one, est_traverse_first, opaque, opaque_arg, rt_traverse_first, string_arg};
use kcel::library::{CallCost, CallEstimate, EstimateArgs};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};
use kcel::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "net.IP";

/// An IP address (`net.IP`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ip(pub IpAddr);

impl Ip {
    /// The size Kubernetes charges for: `⌈bits / 8⌉`, 4 or 16.
    pub fn size(&self) -> u64 {
        if self.0.is_ipv4() { 4 } else { 16 }
    }
}

impl Opaque for Ip {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Ip>() == Some(self)
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        self.0.to_string()
    }
}

/// Parses an address as Kubernetes' `ip()` does, with its error messages.
pub fn parse_ip(s: &str) -> Result<IpAddr, EvalError> {
    let addr = parse_addr(s).map_err(|e| {
        EvalError::new(format!(
            "IP Address {} parse error during conversion from string: {e}",
            super::go_quote(s)
        ))
    })?;
    if addr.zone.is_some() {
        return Err(EvalError::new(format!(
            "IP address {} with zone value is not allowed",
            super::go_quote(s)
        )));
    }
    if is_4in6(&addr.ip) {
        return Err(EvalError::new(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            super::go_quote(s)
        )));
    }
    Ok(addr.ip)
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.net.ip", 0);
    lib.opaque_type(TYPE);
    overloads!(lib.function(
        "ip",
        "Parses an IPv4 or IPv6 address (no zones, no IPv4-mapped IPv6).",
    );
        global "string_to_ip" ("string") -> TYPE
            => Implementation::Unary(to_ip),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&["ip('127.0.0.1').family() == 4", "type(ip('::1')) == net.IP"]);
    overloads!(lib.function("isIP", "Whether a string is an IP address `ip()` accepts.");
        global "is_ip" ("string") -> "bool"
            => Implementation::Unary(is_ip),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&[
        "isIP('fe80::1')",
        "!isIP('1.2.3')",
        "!isIP('::ffff:1.2.3.4')",
    ]);
    overloads!(lib.function(
        "ip.isCanonical",
        "Whether an IP address string is in canonical form; an error if it is not an address.",
    );
        global "ip_is_canonical" ("string") -> "bool"
            => Implementation::Unary(is_canonical),
            cost: CallCost::Custom(canonical_cost),
            estimate: canonical_estimate;
    )
    .examples(&[
        "ip.isCanonical('2001:db8::abcd')",
        "!ip.isCanonical('2001:DB8::ABCD')",
    ]);
    for (name, id, result, doc, f, examples) in accessors() {
        lib.function(name, doc)
            .member(id, &[TYPE], result, Implementation::Closure(accessor(f)))
            .cost(CallCost::Fixed(1))
            .estimate(est_one)
            .examples(examples);
    }
    overloads!(lib.function("string", "Converts a value to a string.");
        global "ip_to_string" (TYPE) -> "string" => Implementation::Unary(ip_to_string);
    )
    .examples(&["string(ip('2001:DB8::1')) == '2001:db8::1'"]);
    lib
}

/// An accessor's implementation.
pub(crate) type Accessor = fn(&IpAddr) -> Value;

/// The address accessors (`family()`, `isLoopback()`, ...) with Go's `netip` semantics:
/// name, overload id, result type, doc, implementation, examples. Shared with cel-go's
/// network library, whose accessors are the same.
pub(crate) fn accessors() -> [super::Row<Accessor>; 6] {
    [
        (
            "family",
            "ip_family",
            "int",
            "The address family: 4 or 6.",
            |ip| Value::Int(if ip.is_ipv4() { 4 } else { 6 }),
            &["ip('::1').family() == 6"],
        ),
        (
            "isUnspecified",
            "ip_is_unspecified",
            "bool",
            "Whether the address is 0.0.0.0 or ::.",
            |ip| Value::Bool(ip.is_unspecified()),
            &["ip('0.0.0.0').isUnspecified()"],
        ),
        (
            "isLoopback",
            "ip_is_loopback",
            "bool",
            "Whether the address is a loopback address (127.0.0.0/8, ::1).",
            |ip| Value::Bool(ip.is_loopback()),
            &["ip('127.0.0.2').isLoopback()", "!ip('::2').isLoopback()"],
        ),
        (
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            "bool",
            "Whether the address is a link-local multicast address (224.0.0.0/24, ff02::/16).",
            |ip| Value::Bool(link_local_multicast(ip)),
            &[
                "ip('224.0.0.1').isLinkLocalMulticast()",
                "!ip('ff00::1').isLinkLocalMulticast()",
            ],
        ),
        (
            "isLinkLocalUnicast",
            "ip_is_link_local_unicast",
            "bool",
            "Whether the address is a link-local unicast address (169.254.0.0/16, fe80::/10).",
            |ip| Value::Bool(link_local_unicast(ip)),
            &["ip('fe80::1').isLinkLocalUnicast()"],
        ),
        (
            "isGlobalUnicast",
            "ip_is_global_unicast",
            "bool",
            "Whether the address is a global unicast address (Go's definition: private \
             ranges count).",
            |ip| Value::Bool(global_unicast(ip)),
            &[
                "ip('192.168.0.1').isGlobalUnicast()",
                "!ip('255.255.255.255').isGlobalUnicast()",
            ],
        ),
    ]
}

fn accessor(f: fn(&IpAddr) -> Value) -> kcel::library::SharedFn {
    std::sync::Arc::new(move |args: &[Value]| match args {
        [v] => Ok(f(&opaque_arg::<Ip>(v)?.0)),
        _ => Err(EvalError::no_such_overload()),
    })
}

/// `ip(s)`.
pub fn to_ip(s: &Value) -> EvalResult {
    Ok(opaque(Ip(parse_ip(string_arg(s)?)?)))
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
    Ok(Value::from(opaque_arg::<Ip>(ip)?.0.to_string()))
}

/// Go's `net.IP.IsLinkLocalMulticast` (224.0.0.0/24; IPv6 multicast of link-local scope,
/// `ffX2::/16`).
pub(crate) fn link_local_multicast(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            o[0] == 224 && o[1] == 0 && o[2] == 0
        }
        IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
    }
}

/// Go's `net.IP.IsLinkLocalUnicast` (169.254.0.0/16, fe80::/10).
pub(crate) fn link_local_unicast(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            o[0] == 169 && o[1] == 254
        }
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn global_unicast(ip: &IpAddr) -> bool {
    if let IpAddr::V4(v4) = ip {
        if v4.is_unspecified() || v4.is_broadcast() {
            return false;
        }
    }
    let multicast = match ip {
        IpAddr::V4(v4) => v4.octets()[0] & 0xf0 == 0xe0,
        IpAddr::V6(v6) => v6.segments()[0] >> 8 == 0xff,
    };
    !ip.is_unspecified() && !ip.is_loopback() && !multicast && !link_local_unicast(ip)
}

fn canonical_cost(args: &[Value], _: Option<&Value>) -> u64 {
    // Upstream's order of operations: × 2, then × 0.1.
    args.first().map_or(0, |a| {
        (kcel::library::actual_size(a) as f64 * 2.0 * 0.1).ceil() as u64
    })
}

fn canonical_estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let mut e = est_traverse_first(a);
    if let Some(n) = a.args.first() {
        e.cost = a.size(n).times_factor(0.2);
    }
    e
}

//! `kubernetes.net.cidr`: the `net.CIDR` type, parsed like Go's `netip.ParsePrefix` (host
//! bits after the prefix are kept) with IPv4-mapped IPv6 addresses rejected.

use std::any::Any;
use std::net::IpAddr;

use super::ip::{Ip, parse_ip};
use super::netip::{is_4in6, parse_prefix};
use super::{
    ceil_cost, est_one, est_traverse_first, opaque, opaque_arg, rt_traverse_first, string_arg,
    value_size,
};
use kcel::library::{
    CallCost, CallEstimate, CostEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate,
};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};
use kcel::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "net.CIDR";

/// A network prefix (`net.CIDR`): an address, host bits included, and a prefix length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cidr {
    pub addr: IpAddr,
    pub bits: u8,
}

impl Cidr {
    /// The size Kubernetes charges for: `⌈prefix bits / 8⌉` (not the address length).
    pub fn size(&self) -> u64 {
        u64::from(self.bits).div_ceil(8)
    }

    /// The prefix with host bits cleared.
    pub fn masked(&self) -> Cidr {
        Cidr {
            addr: mask(self.addr, self.bits),
            bits: self.bits,
        }
    }

    /// Whether the prefix contains an address of the same family.
    pub fn contains(&self, ip: &IpAddr) -> bool {
        ip.is_ipv4() == self.addr.is_ipv4() && mask(*ip, self.bits) == self.masked().addr
    }

    /// Go's `Prefix.Overlaps`.
    pub fn overlaps(&self, o: &Cidr) -> bool {
        if self.addr.is_ipv4() != o.addr.is_ipv4() {
            return false;
        }
        let bits = self.bits.min(o.bits);
        mask(self.addr, bits) == mask(o.addr, bits)
    }
}

fn mask(ip: IpAddr, bits: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            IpAddr::V4((u32::from(v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & m).into())
        }
    }
}

impl Opaque for Cidr {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Cidr>() == Some(self)
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        format!("{}/{}", self.addr, self.bits)
    }
}

const PARSE_ERROR: &str = "network address parse error during conversion from string";

/// Parses a prefix as Kubernetes' `cidr()` does, with its error messages (the parse
/// error prefix appears twice, as upstream).
pub fn parse_cidr(s: &str) -> Result<Cidr, EvalError> {
    let (addr, bits) = parse_prefix(s)
        .map_err(|e| EvalError::new(format!("{PARSE_ERROR}: {PARSE_ERROR}: {e}")))?;
    if is_4in6(&addr.ip) {
        return Err(EvalError::new(format!(
            "{PARSE_ERROR}: IPv4-mapped IPv6 address {} is not allowed",
            super::go_quote(s)
        )));
    }
    Ok(Cidr {
        addr: addr.ip,
        bits,
    })
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.net.cidr", 0);
    lib.opaque_type(TYPE);
    overloads!(lib.function("cidr", "Parses a network prefix such as 192.168.0.0/16.");
        global "string_to_cidr" ("string") -> TYPE
            => Implementation::Unary(to_cidr),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&[
        "cidr('192.168.0.0/16').prefixLength() == 16",
        "type(cidr('::1/128')) == net.CIDR",
    ]);
    overloads!(lib.function("isCIDR", "Whether a string is a prefix `cidr()` accepts.");
        global "is_cidr" ("string") -> "bool"
            => Implementation::Unary(is_cidr),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&["isCIDR('10.0.0.0/8')", "!isCIDR('10.0.0.0/33')"]);
    lib.function(
        "containsIP",
        "Whether the prefix contains an address (given as net.IP or as a string).",
    )
    .member(
        "cidr_contains_ip_string",
        &[TYPE, "string"],
        "bool",
        Implementation::Binary(contains_ip_string),
    )
    .cost(CallCost::Custom(contains_ip_cost_string))
    .estimate(contains_ip_estimate_string)
    .member(
        "cidr_contains_ip_ip",
        &[TYPE, super::ip::TYPE],
        "bool",
        Implementation::Binary(contains_ip),
    )
    .cost(CallCost::Custom(contains_ip_cost))
    .estimate(contains_ip_estimate)
    .examples(&[
        "cidr('192.168.0.0/16').containsIP('192.168.1.1')",
        "!cidr('192.168.0.0/16').containsIP(ip('10.0.0.1'))",
    ]);
    overloads!(lib.function(
        "containsCIDR",
        "Whether the prefix contains another prefix (given as net.CIDR or as a string).",
    );
        member "cidr_contains_cidr_string" (TYPE, "string") -> "bool"
            => Implementation::Binary(contains_cidr_string),
            cost: CallCost::Custom(contains_cidr_cost_string),
            estimate: contains_cidr_estimate_string;
        member "cidr_contains_cidr" (TYPE, TYPE) -> "bool"
            => Implementation::Binary(contains_cidr),
            cost: CallCost::Custom(contains_cidr_cost),
            estimate: contains_cidr_estimate;
    )
    .examples(&[
        "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')",
        "!cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))",
    ]);
    lib.function("ip", "The address part of a prefix, host bits included.")
        .member(
            "cidr_ip",
            &[TYPE],
            super::ip::TYPE,
            Implementation::Unary(cidr_ip),
        )
        .cost(CallCost::Fixed(1))
        .estimate(est_one)
        .examples(&["cidr('192.168.0.1/24').ip() == ip('192.168.0.1')"]);
    overloads!(lib.function("masked", "The prefix with its host bits cleared.");
        member "cidr_masked" (TYPE) -> TYPE
            => Implementation::Unary(masked), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')"]);
    overloads!(lib.function("prefixLength", "The prefix length in bits.");
        member "cidr_prefix_length" (TYPE) -> "int"
            => Implementation::Unary(prefix_length), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["cidr('::/0').prefixLength() == 0"]);
    overloads!(lib.function("string", "Converts a value to a string.");
        global "cidr_to_string" (TYPE) -> "string" => Implementation::Unary(cidr_to_string);
    )
    .examples(&["string(cidr('2001:DB8::/32')) == '2001:db8::/32'"]);
    lib
}

/// `cidr(s)`.
pub fn to_cidr(s: &Value) -> EvalResult {
    Ok(opaque(parse_cidr(string_arg(s)?)?))
}

/// `isCIDR(s)`.
pub fn is_cidr(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse_cidr(string_arg(s)?).is_ok()))
}

/// `c.containsIP(ip)`.
pub fn contains_ip(c: &Value, ip: &Value) -> EvalResult {
    let c = opaque_arg::<Cidr>(c)?;
    Ok(Value::Bool(c.contains(&opaque_arg::<Ip>(ip)?.0)))
}

/// `c.containsIP('address')`.
pub fn contains_ip_string(c: &Value, ip: &Value) -> EvalResult {
    let c = opaque_arg::<Cidr>(c)?;
    Ok(Value::Bool(c.contains(&parse_ip(string_arg(ip)?)?)))
}

fn contains(c: &Cidr, o: &Cidr) -> bool {
    c.overlaps(o) && c.bits <= o.bits
}

/// `c.containsCIDR(other)`.
pub fn contains_cidr(c: &Value, o: &Value) -> EvalResult {
    let c = opaque_arg::<Cidr>(c)?;
    Ok(Value::Bool(contains(c, opaque_arg::<Cidr>(o)?)))
}

/// `c.containsCIDR('prefix')`.
pub fn contains_cidr_string(c: &Value, o: &Value) -> EvalResult {
    let c = opaque_arg::<Cidr>(c)?;
    Ok(Value::Bool(contains(c, &parse_cidr(string_arg(o)?)?)))
}

/// `c.ip()`.
pub fn cidr_ip(c: &Value) -> EvalResult {
    Ok(opaque(Ip(opaque_arg::<Cidr>(c)?.addr)))
}

/// `c.masked()`.
pub fn masked(c: &Value) -> EvalResult {
    Ok(opaque(opaque_arg::<Cidr>(c)?.masked()))
}

/// `c.prefixLength()`.
pub fn prefix_length(c: &Value) -> EvalResult {
    Ok(Value::Int(i64::from(opaque_arg::<Cidr>(c)?.bits)))
}

/// `string(c)`.
pub fn cidr_to_string(c: &Value) -> EvalResult {
    Ok(Value::from(opaque_arg::<Cidr>(c)?.to_display_string()))
}

fn size(args: &[Value], i: usize) -> u64 {
    args.get(i).map_or(0, value_size)
}

/// `⌈2 × size(cidr) × 0.1⌉`.
fn contains_ip_cost(args: &[Value], _: Option<&Value>) -> u64 {
    let c = size(args, 0);
    ceil_cost(c + c, STRING_TRAVERSAL_FACTOR)
}

fn contains_ip_cost_string(args: &[Value], r: Option<&Value>) -> u64 {
    contains_ip_cost(args, r) + ceil_cost(size(args, 1), STRING_TRAVERSAL_FACTOR)
}

/// `⌈2 × size × 0.1⌉ + ⌈size × 0.1⌉ + 1`.
fn contains_cidr_cost(args: &[Value], _: Option<&Value>) -> u64 {
    let c = size(args, 0);
    ceil_cost(c + c, STRING_TRAVERSAL_FACTOR) + ceil_cost(c, STRING_TRAVERSAL_FACTOR) + 1
}

fn contains_cidr_cost_string(args: &[Value], r: Option<&Value>) -> u64 {
    contains_cidr_cost(args, r) + ceil_cost(size(args, 1), STRING_TRAVERSAL_FACTOR)
}

/// Address sizes are 4 or 16 bytes: comparing two costs `[⌈8 × 0.1⌉, ⌈32 × 0.1⌉]`.
const ADDR: SizeEstimate = SizeEstimate { min: 4, max: 16 };

fn with_string_arg(a: &EstimateArgs<'_>, cost: CostEstimate) -> CallEstimate {
    let parse = a.args.first().map_or(CostEstimate::default(), |n| {
        a.size(n).times_factor(STRING_TRAVERSAL_FACTOR)
    });
    CallEstimate {
        cost: cost + parse,
        result_size: None,
    }
}

fn contains_ip_estimate(_: &EstimateArgs<'_>) -> CallEstimate {
    CallEstimate {
        cost: (ADDR + ADDR).times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: None,
    }
}

fn contains_ip_estimate_string(a: &EstimateArgs<'_>) -> CallEstimate {
    with_string_arg(a, contains_ip_estimate(a).cost)
}

fn contains_cidr_estimate(_: &EstimateArgs<'_>) -> CallEstimate {
    CallEstimate {
        cost: (ADDR + ADDR).times_factor(STRING_TRAVERSAL_FACTOR)
            + ADDR.times_factor(STRING_TRAVERSAL_FACTOR)
            + CostEstimate::fixed(1),
        result_size: None,
    }
}

fn contains_cidr_estimate_string(a: &EstimateArgs<'_>) -> CallEstimate {
    with_string_arg(a, contains_cidr_estimate(a).cost)
}

//! Go's `net/netip` address and prefix parsing, with its error messages
//! (`ParseAddr("1.2.3"): IPv4 address too short`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::go_quote;

/// A parsed address: the address and its IPv6 zone (`fe80::1%eth0`), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    pub ip: IpAddr,
    pub zone: Option<String>,
}

/// Why a text is not an address (`netip.ParseAddr`); `Display` is Go's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ParseAddr({}): {problem}{}", go_quote(.input), .at.as_deref().map(|at| format!(" (at {})", go_quote(at))).unwrap_or_default())]
pub struct AddrError {
    /// The text.
    pub input: String,
    /// What is wrong.
    pub problem: AddrProblem,
    /// The rest of the text from where it went wrong, when Go shows it.
    pub at: Option<String>,
}

/// What is wrong with an address ([`AddrError`]), in Go's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddrProblem {
    /// An address of only a zone.
    #[error("missing IPv6 address")]
    MissingIpv6,
    /// Neither `.` nor `:` in the text.
    #[error("unable to parse IP")]
    Unparsable,
    /// An IPv4 field with a leading zero.
    #[error("IPv4 field has octet with leading zero")]
    LeadingZero,
    /// An IPv4 field above 255.
    #[error("IPv4 field has value >255")]
    Ipv4FieldTooLarge,
    /// An empty IPv4 field.
    #[error("IPv4 field must have at least one digit")]
    Ipv4EmptyField,
    /// More than four IPv4 fields.
    #[error("IPv4 address too long")]
    Ipv4TooLong,
    /// A character that belongs to no IPv4 address.
    #[error("unexpected character")]
    UnexpectedCharacter,
    /// Fewer than four IPv4 fields.
    #[error("IPv4 address too short")]
    Ipv4TooShort,
    /// A `%` without a zone.
    #[error("zone must be a non-empty string")]
    EmptyZone,
    /// An IPv6 group of more than four digits.
    #[error("each group must have 4 or less digits")]
    GroupTooLong,
    /// An IPv6 group above 0xffff.
    #[error("IPv6 field has value >=2^16")]
    Ipv6FieldTooLarge,
    /// An empty IPv6 group.
    #[error("each colon-separated field must have at least one digit")]
    Ipv6EmptyField,
    /// An embedded IPv4 address elsewhere than at the end.
    #[error("embedded IPv4 address must replace the final 2 fields of the address")]
    EmbeddedIpv4Position,
    /// No room left for an embedded IPv4 address.
    #[error("too many hex fields to fit an embedded IPv4 at the end of the address")]
    EmbeddedIpv4NoRoom,
    /// Something other than a colon after a group.
    #[error("unexpected character, want colon")]
    WantColon,
    /// A colon at the end.
    #[error("colon must be followed by more characters")]
    TrailingColon,
    /// Two `::`.
    #[error("multiple :: in address")]
    MultipleEllipsis,
    /// Text after a complete address.
    #[error("trailing garbage after address")]
    TrailingGarbage,
    /// Fewer than eight groups without `::`.
    #[error("address string too short")]
    TooShort,
    /// A `::` standing for no group.
    #[error("the :: must expand to at least one field of zeros")]
    EmptyEllipsis,
}

fn addr_error(input: &str, problem: AddrProblem, at: Option<&str>) -> AddrError {
    AddrError {
        input: input.to_string(),
        problem,
        at: at.filter(|at| !at.is_empty()).map(str::to_string),
    }
}

/// Why a text is not a prefix (`netip.ParsePrefix`); `Display` is Go's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("netip.ParsePrefix({}): {problem}", go_quote(.input))]
pub struct PrefixError {
    /// The text.
    pub input: String,
    /// What is wrong.
    pub problem: PrefixProblem,
}

/// What is wrong with a prefix ([`PrefixError`]), in Go's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrefixProblem {
    /// No `/`.
    #[error("no '/'")]
    NoSlash,
    /// The address before the `/` does not parse.
    #[error(transparent)]
    Addr(AddrError),
    /// An IPv6 zone before the `/`.
    #[error("IPv6 zones cannot be present in a prefix")]
    Zone,
    /// The length after the `/` is not a decimal number (the text).
    #[error("bad bits after slash: {}", go_quote(.0))]
    BadBits(String),
    /// A length above the address's bits.
    #[error("prefix length out of range")]
    OutOfRange,
}

/// `netip.ParseAddr`.
pub fn parse_addr(s: &str) -> Result<Addr, AddrError> {
    for b in s.bytes() {
        match b {
            b'.' => {
                let mut f = [0u8; 4];
                parse_ipv4_fields(s, s, &mut f)?;
                return Ok(Addr {
                    ip: IpAddr::V4(Ipv4Addr::from(f)),
                    zone: None,
                });
            }
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, AddrProblem::MissingIpv6, None)),
            _ => {}
        }
    }
    Err(addr_error(s, AddrProblem::Unparsable, None))
}

fn parse_ipv4_fields(input: &str, s: &str, fields: &mut [u8]) -> Result<(), AddrError> {
    let b = s.as_bytes();
    let (mut val, mut pos, mut digits) = (0u32, 0usize, 0);
    for i in 0..b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(addr_error(input, AddrProblem::LeadingZero, None));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(addr_error(input, AddrProblem::Ipv4FieldTooLarge, None));
            }
        } else if c == b'.' {
            if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    AddrProblem::Ipv4EmptyField,
                    Some(&s[i..]),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, AddrProblem::Ipv4TooLong, None));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(addr_error(
                input,
                AddrProblem::UnexpectedCharacter,
                Some(&s[i..]),
            ));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, AddrProblem::Ipv4TooShort, None));
    }
    fields[3] = val as u8;
    Ok(())
}

fn parse_ipv6(input: &str) -> Result<Addr, AddrError> {
    let (mut s, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return Err(addr_error(input, AddrProblem::EmptyZone, None));
            }
            (&input[..i], Some(zone.to_string()))
        }
        None => (input, None),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(Addr {
                ip: IpAddr::V6(Ipv6Addr::UNSPECIFIED),
                zone,
            });
        }
    }
    let mut i = 0;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let Some(d) = (b[off] as char).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            if off > 3 {
                return Err(addr_error(input, AddrProblem::GroupTooLong, Some(s)));
            }
            if acc > 0xffff {
                return Err(addr_error(input, AddrProblem::Ipv6FieldTooLarge, Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(input, AddrProblem::Ipv6EmptyField, Some(s)));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_error(
                    input,
                    AddrProblem::EmbeddedIpv4Position,
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(input, AddrProblem::EmbeddedIpv4NoRoom, Some(s)));
            }
            parse_ipv4_fields(input, s, &mut ip[i..i + 4])?;
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(input, AddrProblem::WantColon, Some(s)));
        } else if s.len() == 1 {
            return Err(addr_error(input, AddrProblem::TrailingColon, Some(s)));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, AddrProblem::MultipleEllipsis, Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, AddrProblem::TrailingGarbage, Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, AddrProblem::TooShort, None));
        };
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        return Err(addr_error(input, AddrProblem::EmptyEllipsis, None));
    }
    Ok(Addr {
        ip: IpAddr::V6(Ipv6Addr::from(ip)),
        zone,
    })
}

/// Whether an address is an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`).
pub fn is_4in6(ip: &IpAddr) -> bool {
    matches!(ip, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some())
}

/// `netip.ParsePrefix`: the address (host bits kept) and the prefix length.
pub fn parse_prefix(s: &str) -> Result<(Addr, u8), PrefixError> {
    let err = |problem| PrefixError {
        input: s.to_string(),
        problem,
    };
    let Some(i) = s.rfind('/') else {
        return Err(err(PrefixProblem::NoSlash));
    };
    let addr = parse_addr(&s[..i]).map_err(|e| err(PrefixProblem::Addr(e)))?;
    if addr.zone.is_some() {
        return Err(err(PrefixProblem::Zone));
    }
    let bits = &s[i + 1..];
    let bad = || err(PrefixProblem::BadBits(bits.to_string()));
    let b = bits.as_bytes();
    if b.len() > 1 && !(b'1'..=b'9').contains(&b[0]) {
        return Err(bad());
    }
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let n: i64 = bits.parse().map_err(|_| bad())?;
    let max = if addr.ip.is_ipv4() { 32 } else { 128 };
    if n > max {
        return Err(err(PrefixProblem::OutOfRange));
    }
    Ok((addr, n as u8))
}

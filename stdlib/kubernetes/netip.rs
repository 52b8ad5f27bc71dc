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

fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => format!(
            "ParseAddr({}): {msg} (at {})",
            go_quote(input),
            go_quote(at)
        ),
        _ => format!("ParseAddr({}): {msg}", go_quote(input)),
    }
}

/// `netip.ParseAddr`.
pub fn parse_addr(s: &str) -> Result<Addr, String> {
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
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

fn parse_ipv4_fields(input: &str, s: &str, fields: &mut [u8]) -> Result<(), String> {
    let b = s.as_bytes();
    let (mut val, mut pos, mut digits) = (0u32, 0usize, 0);
    for i in 0..b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    Some(&s[i..]),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", None));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(addr_error(input, "unexpected character", Some(&s[i..])));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(())
}

fn parse_ipv6(input: &str) -> Result<Addr, String> {
    let (mut s, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return Err(addr_error(input, "zone must be a non-empty string", None));
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
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            if acc > 0xffff {
                return Err(addr_error(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_error(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
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
            return Err(addr_error(
                input,
                "unexpected character, want colon",
                Some(s),
            ));
        } else if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, "address string too short", None));
        };
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
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
pub fn parse_prefix(s: &str) -> Result<(Addr, u8), String> {
    let err = |msg: &str| format!("netip.ParsePrefix({}): {msg}", go_quote(s));
    let Some(i) = s.rfind('/') else {
        return Err(err("no '/'"));
    };
    let addr = parse_addr(&s[..i]).map_err(|e| err(&e))?;
    if addr.zone.is_some() {
        return Err(err("IPv6 zones cannot be present in a prefix"));
    }
    let bits = &s[i + 1..];
    let bad = || err(&format!("bad bits after slash: {}", go_quote(bits)));
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
        return Err(err("prefix length out of range"));
    }
    Ok((addr, n as u8))
}

//! k8s.io/utils/net's `ParseIPSloppy` and `ParseCIDRSloppy`: Go's `net.ParseIP` and
//! `net.ParseCIDR` that also read IPv4 fields with leading zeros (as decimal, as Go did
//! before 1.17), the parsers of the API fields Kubernetes has always read so (a Service's
//! cluster and external IPs, CIDR values) and of the OpenAPI formats `ipv4` and `cidr`.
//!
//! Upstream tries Go's parser first, then once more after dropping the leading zeros of the
//! text's last dotted-quad and of its prefix length (the pattern
//! `(^|:)0*(0|[1-9][0-9]*)\.` ×4 `((/)0*(0|[1-9][0-9]*))?$`). Go's `net.ParseIP` is
//! `netip.ParseAddr` without a zone since Go 1.22; an IPv4-mapped IPv6 address stays IPv6
//! here (`net.IP` treats it as IPv4: see [`as_net_ip`]).

use std::net::IpAddr;

use super::netip::parse_addr;

/// `netutils.ParseIPSloppy`: the address, or `None`.
pub(crate) fn parse_ip(text: &str) -> Option<IpAddr> {
    go_parse_ip(text).or_else(|| go_parse_ip(&strip_zeros(text)?))
}

/// `netutils.ParseCIDRSloppy`: the address as written (host bits kept) and the prefix
/// length, or `None`.
pub(crate) fn parse_cidr(text: &str) -> Option<(IpAddr, u8)> {
    go_parse_cidr(text).or_else(|| go_parse_cidr(&strip_zeros(text)?))
}

/// The address as Go's `net.IP` methods see it: an IPv4-mapped IPv6 address is IPv4
/// (`To4` is not nil), so `IsLoopback` of `::ffff:127.0.0.1` holds and
/// `netutils.IsIPv6String` of it does not.
pub(crate) fn as_net_ip(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

/// Go's `net.ParseIP`.
fn go_parse_ip(text: &str) -> Option<IpAddr> {
    parse_addr(text)
        .ok()
        .filter(|a| a.zone.is_none())
        .map(|a| a.ip)
}

/// Go's `net.ParseCIDR`: an address (no zone), `/` (the first one), and a decimal length
/// (leading zeros allowed, as `dtoi` reads it) of at most the address's bits — 128 for an
/// IPv4-mapped address.
fn go_parse_cidr(text: &str) -> Option<(IpAddr, u8)> {
    let (addr, bits) = text.split_once('/')?;
    let ip = go_parse_ip(addr)?;
    if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // dtoi gives up at 0xFFFFFF.
    let n = bits.bytes().try_fold(0u32, |n, b| {
        let n = n * 10 + u32::from(b - b'0');
        (n < 0xFF_FFFF).then_some(n)
    })?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    (n <= max).then_some((ip, n as u8))
}

/// The text with the leading zeros of its final dotted-quad (after the last `:`, or the
/// whole text) and of a `/` length after it dropped, if it has that shape.
fn strip_zeros(text: &str) -> Option<String> {
    let (head, bits) = match text.split_once('/') {
        Some((head, bits)) => (head, Some(bits)),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let unpadded = |s: &str| match s.trim_start_matches('0') {
        "" => "0".to_string(),
        rest => rest.to_string(),
    };
    let start = head.rfind(':').map_or(0, |i| i + 1);
    let fields: Vec<&str> = head[start..].split('.').collect();
    if fields.len() != 4 || !fields.iter().all(|f| digits(f)) || !bits.is_none_or(digits) {
        return None;
    }
    let quad: Vec<String> = fields.iter().map(|f| unpadded(f)).collect();
    let mut out = format!("{}{}", &head[..start], quad.join("."));
    if let Some(bits) = bits {
        out.push('/');
        out.push_str(&unpadded(bits));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<String> {
        parse_ip(s).map(|ip| ip.to_string())
    }

    // k8s.io/utils net/parse_test.go: the sloppy parsers accept what Go's do, plus IPv4
    // fields with leading zeros.
    #[test]
    fn addresses_with_leading_zeros() {
        assert_eq!(ip("1.2.3.4").as_deref(), Some("1.2.3.4"));
        assert_eq!(ip("001.002.003.004").as_deref(), Some("1.2.3.4"));
        assert_eq!(ip("0000010.0.0.1").as_deref(), Some("10.0.0.1"));
        assert_eq!(
            ip("::ffff:010.001.002.003").as_deref(),
            Some("::ffff:10.1.2.3")
        );
        assert_eq!(ip("2001:DB8::0001").as_deref(), Some("2001:db8::1"));
        for bad in [
            "",
            "1.2.3",
            "1.2.3.256",
            "0256.1.1.1",
            "fe80::1%eth0",
            "1.2.3.4 ",
            "abc",
        ] {
            assert_eq!(ip(bad), None, "{bad:?}");
        }
        assert!(as_net_ip(parse_ip("::ffff:127.0.0.1").unwrap()).is_loopback());
    }

    #[test]
    fn prefixes_with_leading_zeros() {
        let cidr = |s: &str| parse_cidr(s).map(|(ip, n)| format!("{ip}/{n}"));
        assert_eq!(cidr("10.0.0.0/8").as_deref(), Some("10.0.0.0/8"));
        assert_eq!(cidr("010.000.000.005/024").as_deref(), Some("10.0.0.5/24"));
        assert_eq!(cidr("10.0.0.0/008").as_deref(), Some("10.0.0.0/8"));
        assert_eq!(
            cidr("::ffff:1.2.3.4/120").as_deref(),
            Some("::ffff:1.2.3.4/120")
        );
        for bad in [
            "10.0.0.0",
            "10.0.0.0/33",
            "10.0.0.0/",
            "10.0.0.0/-1",
            "fe80::/129",
        ] {
            assert_eq!(cidr(bad), None, "{bad:?}");
        }
    }
}

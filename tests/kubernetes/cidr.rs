//! `kubernetes.net.cidr`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        t(
            "cidr('192.168.0.0/24') == cidr('192.168.0.0/24')",
            "cidr_test:parse ipv4",
        ),
        e(
            "cidr('192.168.0.0/')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
            "cidr_test:parse invalid ipv4",
        ),
        t(
            "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
            "cidr_test:contains ipv4",
        ),
        t(
            "!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
            "cidr_test:does not contain ipv4",
        ),
        t(
            "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
            "cidr_test:containsIP string",
        ),
        t(
            "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))",
            "cidr_test:contains cidr ipv4",
        ),
        t(
            "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.1/32'))",
            "cidr_test:contains exact host",
        ),
        t(
            "!cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/23'))",
            "cidr_test:does not contain larger",
        ),
        t(
            "!cidr('192.168.0.0/24').containsCIDR(cidr('192.169.0.1/32'))",
            "cidr_test:does not contain other",
        ),
        t(
            "cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25') && !cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')",
            "cidr_test:containsCIDR string",
        ),
        t(
            "cidr('192.168.0.0/24').ip() == ip('192.168.0.0')",
            "cidr_test:ip",
        ),
        t(
            "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
            "cidr_test:masked",
        ),
        v(
            "cidr('192.168.0.0/24').prefixLength()",
            "24",
            "cidr_test:prefixLength",
        ),
        e(
            "cidr('2001:db8::/')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"",
            "cidr_test:parse invalid ipv6",
        ),
        t(
            "cidr('2001:db8::/32').containsIP(ip('2001:db8::1')) && !cidr('2001:db8::/32').containsIP(ip('2001:dc8::1'))",
            "cidr_test:containsIP ipv6",
        ),
        t(
            "cidr('2001:db8::/32').containsIP('2001:db8::1') && !cidr('2001:db8::/32').containsIP('2001:dc8::1')",
            "cidr_test:containsIP ipv6 string",
        ),
        t(
            "cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/33')) && !cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/31'))",
            "cidr_test:containsCIDR ipv6",
        ),
        t(
            "cidr('2001:db8::/32').containsCIDR('2001:db8::/33') && !cidr('2001:db8::/32').containsCIDR('2001:db8::/31')",
            "cidr_test:containsCIDR ipv6 string",
        ),
        t(
            "cidr('2001:db8::/32').ip() == ip('2001:db8::')",
            "cidr_test:ip ipv6",
        ),
        t(
            "cidr('2001:db8:1::/32').masked() == cidr('2001:db8::/32')",
            "cidr_test:masked ipv6",
        ),
        v(
            "cidr('2001:db8::/32').prefixLength()",
            "32",
            "cidr_test:prefixLength ipv6",
        ),
        v(
            "string(cidr('192.168.0.0/24'))",
            "'192.168.0.0/24'",
            "cidr_test:string",
        ),
        t("type(cidr('192.168.0.0/24')) == net.CIDR", "cidr_test:type"),
        // SPEC §9.3 and §9.4.
        t(
            "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
            "spec §9.3: host bits kept",
        ),
        t(
            "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
            "spec §9.3",
        ),
        v(
            "string(cidr('192.168.0.1/24'))",
            "'192.168.0.1/24'",
            "spec §9.3",
        ),
        e(
            "cidr('::ffff:1.2.3.4/120')",
            "network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed",
            "spec §9.4",
        ),
        t(
            "!isCIDR('::ffff:1.2.3.4/120') && !isCIDR('fe80::1%eth0/64')",
            "spec §9.4",
        ),
        e(
            "cidr('10.0.0.0/33')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range",
            "go",
        ),
        e(
            "cidr('10.0.0.0/08')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/08\"): bad bits after slash: \"08\"",
            "go",
        ),
        e(
            "cidr('10.0.0.0')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0\"): no '/'",
            "go",
        ),
        e(
            "cidr('1.2.3/8')",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"1.2.3/8\"): ParseAddr(\"1.2.3\"): IPv4 address too short",
            "go",
        ),
        e(
            "cidr('10.0.0.0/8').containsIP('10.0.0')",
            "IP Address \"10.0.0\" parse error during conversion from string: ParseAddr(\"10.0.0\"): IPv4 address too short",
            "spec: string argument errors propagate",
        ),
        t(
            "!cidr('10.0.0.0/8').containsIP(ip('::1'))",
            "spec: family mismatch",
        ),
        t(
            "cidr('0.0.0.0/0').containsCIDR('10.0.0.0/8') && !cidr('0.0.0.0/0').containsCIDR('::/0')",
            "go: Overlaps",
        ),
        t("isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/8/8')", "spec"),
        // Costs: size = ⌈prefix bits / 8⌉ (§9.3). containsIP ⌈2 × size × 0.1⌉ (+ string parse);
        // containsCIDR adds ⌈size × 0.1⌉ + 1; estimates [1,4] and [1,2] + 1.
        ct("cidr('192.168.0.0/16')", (2, 2), 2, "ct:TestCIDRCost/ipv4"),
        ct(
            "cidr('192.168.0.0/16').prefixLength()",
            (3, 3),
            3,
            "ct:TestCIDRCost/ipv4.prefixLength",
        ),
        ct(
            "cidr('192.168.0.0/16') == cidr('2001:db8::/32')",
            (5, 5),
            5,
            "ct:TestCIDRCost/ipv4 ==",
        ),
        ct(
            "cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))",
            (7, 11),
            7,
            "ct:TestCIDRCost/ipv4.containsCIDR(cidr)",
        ),
        ct(
            "cidr('192.168.0.0/16').containsCIDR('192.168.0.0/16')",
            (7, 11),
            7,
            "ct:TestCIDRCost/ipv4.containsCIDR(string)",
        ),
        ct(
            "cidr('192.168.0.0/16').containsIP(ip('192.0.0.1'))",
            (4, 7),
            4,
            "ct:TestCIDRCost/ipv4.containsIP(ip)",
        ),
        ct(
            "cidr('192.168.0.0/16').containsIP(ip('192.169.169.250'))",
            (5, 8),
            5,
            "ct:TestCIDRCost/ipv4.containsIP(long ip)",
        ),
        ct(
            "cidr('192.168.0.0/16').containsIP('192.169.0.1')",
            (5, 8),
            5,
            "ct:TestCIDRCost/ipv4.containsIP(string)",
        ),
        ct(
            "cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/126'))",
            (7, 11),
            7,
            "ct:TestCIDRCost/ipv6.containsCIDR",
        ),
        ct(
            "cidr('2001:db8::/32').containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))",
            (7, 10),
            7,
            "ct:TestCIDRCost/ipv6.containsIP(long ip)",
        ),
        ct(
            "cidr('2001:db8::/32').containsIP('2001:db8::1')",
            (5, 8),
            5,
            "ct:TestCIDRCost/ipv6.containsIP(string)",
        ),
        sc("cidr('192.168.0.0/16').containsIP('192.0.0.1')", (4, 7), 4),
    ]
}

#[test]
fn cidr() {
    run("kubernetes.net.cidr", &cases(), 40);
}

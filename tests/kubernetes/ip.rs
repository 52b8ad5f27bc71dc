//! `kubernetes.net.ip`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        t(
            "ip('192.168.0.1') == ip('192.168.0.1')",
            "ip_test:parse ipv4",
        ),
        e(
            "ip('192.168.0.1.0')",
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
            "ip_test:parse invalid ipv4",
        ),
        t(
            "isIP('192.168.0.1') && !isIP('192.168.0.1.0')",
            "ip_test:isIP",
        ),
        t("ip.isCanonical('127.0.0.1')", "ip_test:ip.isCanonical ipv4"),
        e(
            "ip.isCanonical('127.0.0.1.0')",
            "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
            "ip_test:ip.isCanonical invalid §9.4",
        ),
        v("ip('192.168.0.1').family()", "4", "ip_test:family ipv4"),
        t(
            "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified()",
            "ip_test:isUnspecified",
        ),
        t(
            "ip('127.0.0.1').isLoopback() && !ip('1.2.3.4').isLoopback()",
            "ip_test:isLoopback",
        ),
        t(
            "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()",
            "ip_test:isLinkLocalMulticast",
        ),
        t(
            "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()",
            "ip_test:isLinkLocalUnicast",
        ),
        t(
            "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()",
            "ip_test:isGlobalUnicast",
        ),
        t(
            "ip('2001:db8::68') == ip('2001:DB8:0:0::68')",
            "ip_test:parse ipv6",
        ),
        e(
            "ip('2001:db8:::68')",
            "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")",
            "ip_test:parse invalid ipv6",
        ),
        t(
            "isIP('2001:db8::68') && !isIP('2001:db8:::68')",
            "ip_test:isIP ipv6",
        ),
        t(
            "ip.isCanonical('2001:db8::68') && !ip.isCanonical('2001:DB8::68')",
            "ip_test:isCanonical ipv6",
        ),
        v("ip('2001:db8::68').family()", "6", "ip_test:family ipv6"),
        t(
            "ip('::').isUnspecified() && !ip('::1').isUnspecified()",
            "ip_test:isUnspecified ipv6",
        ),
        t(
            "ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
            "ip_test:isLoopback ipv6",
        ),
        t(
            "ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
            "ip_test:isLinkLocalMulticast ipv6",
        ),
        t(
            "ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
            "ip_test:isLinkLocalUnicast ipv6",
        ),
        t(
            "ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
            "ip_test:isGlobalUnicast ipv6",
        ),
        Case {
            expr: "isIP(cidr('192.168.0.0/24'))",
            want: Want::Compile("found no matching overload for 'isIP'"),
            ..T
        },
        v(
            "string(ip('192.168.0.1'))",
            "'192.168.0.1'",
            "ip_test:string",
        ),
        t("type(ip('192.168.0.1')) == net.IP", "ip_test:type"),
        // Go netip details (§9.4).
        e(
            "ip('::ffff:1.2.3.4')",
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed",
            "spec §9.4",
        ),
        e(
            "ip('fe80::1%eth0')",
            "IP address \"fe80::1%eth0\" with zone value is not allowed",
            "spec §9.4",
        ),
        t(
            "!isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0')",
            "spec §9.4",
        ),
        e(
            "ip('1.2.3')",
            "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 address too short",
            "go",
        ),
        e(
            "ip('01.2.3.4')",
            "IP Address \"01.2.3.4\" parse error during conversion from string: ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero",
            "go",
        ),
        e(
            "ip('256.1.1.1')",
            "IP Address \"256.1.1.1\" parse error during conversion from string: ParseAddr(\"256.1.1.1\"): IPv4 field has value >255",
            "go",
        ),
        e(
            "ip('abc')",
            "IP Address \"abc\" parse error during conversion from string: ParseAddr(\"abc\"): unable to parse IP",
            "go",
        ),
        e(
            "ip('1::2::3')",
            "IP Address \"1::2::3\" parse error during conversion from string: ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
            "go",
        ),
        e(
            "ip('12345::')",
            "IP Address \"12345::\" parse error during conversion from string: ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")",
            "go",
        ),
        v(
            "string(ip('::ffff:0:1.2.3.4'))",
            "'::ffff:0:102:304'",
            "go: embedded IPv4 tail, not mapped",
        ),
        v(
            "string(ip('2001:0db8:0000:0000:0000:0000:0000:0001'))",
            "'2001:db8::1'",
            "go: RFC 5952",
        ),
        t("!ip.isCanonical('2001:db8:0:0:0:0:0:1')", "go"),
        t(
            "ip('ff12::1').isLinkLocalMulticast()",
            "go: flag nibble ignored",
        ),
        t(
            "ip('10.0.0.1').isGlobalUnicast() && ip('fd00::1').isGlobalUnicast()",
            "go: private ranges are global",
        ),
        // Costs: parse ⌈S × 0.1⌉, isCanonical ⌈S × 0.2⌉, accessors and == 1.
        ct("ip('192.168.0.1')", (2, 2), 2, "ct:TestIPCost/ipv4"),
        ct(
            "ip('2001:db8:3333:4444:5555:6666:7777:8888')",
            (4, 4),
            4,
            "ct:TestIPCost/ipv6",
        ),
        ct(
            "ip('192.168.0.1').family()",
            (3, 3),
            3,
            "ct:TestIPCost/ipv4.family",
        ),
        ct(
            "ip('2001:db8:3333:4444:5555:6666:7777:8888').isGlobalUnicast()",
            (5, 5),
            5,
            "ct:TestIPCost/ipv6.isGlobalUnicast",
        ),
        ct(
            "ip('192.168.0.1') == ip('192.168.0.1')",
            (5, 5),
            5,
            "ct:TestIPCost/ipv4 ==",
        ),
        ct(
            "ip('2001:db8:3333:4444:5555:6666:7777:8888') == ip('192.168.0.1')",
            (7, 7),
            7,
            "ct:TestIPCost/ipv6 ==",
        ),
        ct(
            "ip.isCanonical('192.168.0.1')",
            (3, 3),
            3,
            "ct:TestIPIsCanonicalCost/ipv4",
        ),
        ct(
            "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')",
            (8, 8),
            8,
            "ct:TestIPIsCanonicalCost/ipv6",
        ),
        ct(
            "ip.isCanonical('2001:db8::abcd')",
            (3, 3),
            3,
            "ct:TestIPIsCanonicalCost/ipv6 short",
        ),
        sc("isIP('2001:db8::abcd')", (2, 2), 2),
    ]
}

#[test]
fn ip() {
    run("kubernetes.net.ip", &cases(), 40);
}

//! `kubernetes.urls`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        v(
            "url('https://kubernetes.io:80/docs').getScheme()",
            "'https'",
            "spec",
        ),
        v(
            "url('HTTPS://kubernetes.io').getScheme()",
            "'https'",
            "go: scheme lower-cased",
        ),
        v(
            "url('https://kubernetes.io:80/docs').getHost()",
            "'kubernetes.io:80'",
            "spec",
        ),
        v(
            "url('https://kubernetes.io:80/docs').getHostname()",
            "'kubernetes.io'",
            "spec",
        ),
        v(
            "url('https://kubernetes.io:80/docs').getPort()",
            "'80'",
            "spec",
        ),
        v("url('https://kubernetes.io/docs').getPort()", "''", "spec"),
        v("url('https://[::1]:80/').getHost()", "'[::1]:80'", "spec"),
        v("url('https://[::1]:80/').getHostname()", "'::1'", "spec"),
        v("url('https://[::1]/').getHostname()", "'::1'", "spec"),
        v(
            "url('https://user:pass@example.com/').getHost()",
            "'example.com'",
            "go: userinfo",
        ),
        v(
            "url('https://example.com/path with spaces/').getEscapedPath()",
            "'/path%20with%20spaces/'",
            "spec",
        ),
        v(
            "url('https://example.com/a%2Fb').getEscapedPath()",
            "'/a%2Fb'",
            "go: RawPath kept",
        ),
        v("url('https://example.com').getEscapedPath()", "''", "spec"),
        v(
            "url('/absolute/path').getEscapedPath()",
            "'/absolute/path'",
            "spec",
        ),
        v("url('/absolute/path').getHost()", "''", "spec"),
        v(
            "url('https://example.com/a#frag').getEscapedPath()",
            "'/a'",
            "spec: fragment split off",
        ),
        v(
            "url('https://example.com/?k=a&k=b&x=1').getQuery()",
            "{'k': ['a', 'b'], 'x': ['1']}",
            "spec",
        ),
        v(
            "url('https://example.com/?q=a+b&e=%21').getQuery()",
            "{'q': ['a b'], 'e': ['!']}",
            "go: query unescaping",
        ),
        v(
            "url('https://example.com/?a=%zz&b=1').getQuery()",
            "{'b': ['1']}",
            "go: bad pairs skipped",
        ),
        v("url('https://example.com/').getQuery()", "{}", "spec"),
        v(
            "url('https:://kubernetes.io/').getHostname()",
            "''",
            "go: opaque URL",
        ),
        t("isURL('https://example.com')", "spec"),
        t("isURL('/path')", "spec"),
        t("isURL('mailto:someone@example.com')", "go: opaque"),
        t("!isURL('../relative')", "spec"),
        t("!isURL('example.com')", "spec"),
        t("!isURL('')", "go"),
        t("url('http://x.b') == url('http://x.b')", "spec"),
        t("url('http://x.b/a') != url('http://x.b/b')", "spec"),
        e(
            "url('../relative')",
            "URL parse error during conversion from string: parse \"../relative\": invalid URI for request",
            "spec",
        ),
        e(
            "url('')",
            "URL parse error during conversion from string: parse \"\": empty url",
            "go",
        ),
        e(
            "url(':foo')",
            "URL parse error during conversion from string: parse \":foo\": missing protocol scheme",
            "go",
        ),
        e(
            "url('https://example.com#frag')",
            "URL parse error during conversion from string: parse \"https://example.com#frag\": invalid character \"#\" in host name",
            "go: ParseRequestURI keeps '#'",
        ),
        e(
            "url('http://host:8x/')",
            "URL parse error during conversion from string: parse \"http://host:8x/\": invalid port \":8x\" after host",
            "go",
        ),
        e(
            "url('http://[::1/')",
            "URL parse error during conversion from string: parse \"http://[::1/\": missing ']' in host",
            "go",
        ),
        e(
            "url('/a%zz')",
            "URL parse error during conversion from string: parse \"/a%zz\": invalid URL escape \"%zz\"",
            "go",
        ),
        // Costs: accessors 1; url() ⌈S × 0.1⌉; == [1, ⌈size(rhs) × 0.1⌉] estimated, 1 at run time.
        ct(
            "url('https:://kubernetes.io/').getScheme()",
            (4, 4),
            4,
            "ct:TestURLsCost/getScheme",
        ),
        ct(
            "url('https:://kubernetes.io/').getQuery()",
            (4, 4),
            4,
            "ct:TestURLsCost/getQuery",
        ),
        ct(
            "url('https:://kubernetes.io/').getEscapedPath()",
            (4, 4),
            4,
            "ct:TestURLsCost/getEscapedPath",
        ),
        ct(
            "url('https:://kubernetes.io/') == url('https:://kubernetes.io/')",
            (7, 9),
            7,
            "ct:TestURLsCost/eq",
        ),
        ct(
            "url('https:://kubernetes.io/') == url('http://x.b')",
            (5, 5),
            5,
            "ct:TestURLsCost/eq short",
        ),
        sc("isURL('https://example.com/0123456789')", (1, 1), 1),
    ]
}

#[test]
fn urls() {
    run("kubernetes.urls", &cases(), 40);
}

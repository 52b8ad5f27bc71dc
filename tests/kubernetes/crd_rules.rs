//! Literal library expressions from apiextensions-apiserver's CRD validation tests
//! (`pkg/apiserver/schema/cel/validation_test.go`, cited as `vt:<line>`): each must be true.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        t(r#"[[1], [2]].indexOf([1]) == 0"#, "vt:1858"),
        t(r#"dyn([]).sum() == 0"#, "vt:1867"),
        t(r#"dyn([1, 2]).sum() == 3"#, "vt:1868"),
        t(r#"dyn([1.0, 2.0]).sum() == 3.0"#, "vt:1869"),
        t(r#"[].sum() == 0"#, "vt:1871"),
        t(r#"url('/path').getScheme() == ''"#, "vt:1927"),
        t(
            r#"url('https://example.com/').getScheme() == 'https'"#,
            "vt:1928",
        ),
        t(
            r#"url('https://example.com:80/').getHost() == 'example.com:80'"#,
            "vt:1929",
        ),
        t(
            r#"url('https://example.com/').getHost() == 'example.com'"#,
            "vt:1930",
        ),
        t(
            r#"url('https://[::1]:80/').getHost() == '[::1]:80'"#,
            "vt:1931",
        ),
        t(r#"url('https://[::1]/').getHost() == '[::1]'"#, "vt:1932"),
        t(r#"url('/path').getHost() == ''"#, "vt:1933"),
        t(
            r#"url('https://example.com:80/').getHostname() == 'example.com'"#,
            "vt:1934",
        ),
        t(
            r#"url('https://127.0.0.1/').getHostname() == '127.0.0.1'"#,
            "vt:1935",
        ),
        t(r#"url('https://[::1]/').getHostname() == '::1'"#, "vt:1936"),
        t(r#"url('/path').getHostname() == ''"#, "vt:1937"),
        t(
            r#"url('https://example.com:80/').getPort() == '80'"#,
            "vt:1938",
        ),
        t(r#"url('https://example.com/').getPort() == ''"#, "vt:1939"),
        t(r#"url('/path').getPort() == ''"#, "vt:1940"),
        t(
            r#"url('https://example.com/path').getEscapedPath() == '/path'"#,
            "vt:1941",
        ),
        t(
            r#"url('https://example.com/with space/').getEscapedPath() == '/with%20space/'"#,
            "vt:1942",
        ),
        t(
            r#"url('https://example.com').getEscapedPath() == ''"#,
            "vt:1943",
        ),
        t(
            r#"url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}"#,
            "vt:1944",
        ),
        t(
            r#"url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}"#,
            "vt:1945",
        ),
        t(
            r#"url('https://example.com/path?').getQuery() == {}"#,
            "vt:1946",
        ),
        t(
            r#"url('https://example.com/path').getQuery() == {}"#,
            "vt:1947",
        ),
        t(
            r#"isURL('https://user:pass@example.com:80/path?query=val#fragment')"#,
            "vt:1957",
        ),
        t(r#"isURL('/path') == true"#, "vt:1958"),
        t(r#"isURL('https://a:b:c/') == false"#, "vt:1959"),
        t(r#"isURL('../relative-path') == false"#, "vt:1960"),
        t(r#"[1,2,3,4].isSorted()"#, "vt:2127"),
        t(
            r#"url('https:://kubernetes.io/').getHostname() != 'test'"#,
            "vt:2135",
        ),
    ]
}

#[test]
fn crd_validation_literals() {
    run("validation_test literals", &cases(), 30);
}

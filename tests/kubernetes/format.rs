//! `kubernetes.format`.

use super::support::*;

const NONE: &str = "optional.none()";

fn cases() -> Vec<Case> {
    vec![
        v(
            "format.dns1123Label().validate('my-label-name')",
            NONE,
            "format_test:dns1123Label",
        ),
        v(
            "format.dns1123Subdomain().validate('apiextensions.k8s.io')",
            NONE,
            "format_test:dns1123Subdomain",
        ),
        v(
            "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')",
            NONE,
            "format_test:qualifiedName",
        ),
        v(
            "format.dns1123LabelPrefix().validate('my-label-prefix-')",
            NONE,
            "format_test:dns1123LabelPrefix",
        ),
        v(
            "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')",
            NONE,
            "format_test:dns1123SubdomainPrefix",
        ),
        v(
            "format.dns1035LabelPrefix().validate('my-label-prefix-')",
            NONE,
            "format_test:dns1035LabelPrefix",
        ),
        v(
            "format.uri().validate('http://example.com')",
            NONE,
            "format_test:uri",
        ),
        v(
            "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')",
            NONE,
            "format_test:uuid",
        ),
        v(
            "format.byte().validate('aGVsbG8=')",
            NONE,
            "format_test:byte",
        ),
        v(
            "format.date().validate('2021-01-01')",
            NONE,
            "format_test:date",
        ),
        v(
            "format.datetime().validate('2021-01-01T00:00:00Z')",
            NONE,
            "format_test:datetime",
        ),
        v(
            "format.dns1123Label().validate('contains a space')",
            r#"optional.of(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])"#,
            "format_test:dns1123Label invalid",
        ),
        v(
            "format.dns1123Subdomain().validate('contains a space')",
            r#"optional.of(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])"#,
            "format_test:dns1123Subdomain invalid",
        ),
        v(
            "format.dns1035Label().validate('contains a space')",
            r#"optional.of(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])"#,
            "format_test:dns1035Label invalid",
        ),
        v(
            "format.qualifiedName().validate('contains a space')",
            r#"optional.of(["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])"#,
            "format_test:qualifiedName invalid",
        ),
        v(
            "format.dns1123LabelPrefix().validate('contains a space-')",
            r#"optional.of(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])"#,
            "format_test:dns1123LabelPrefix invalid",
        ),
        v(
            "format.dns1123Label().validate('my-label-name')",
            NONE,
            "format_test:dns1123Label valid",
        ),
        v(
            "format.dns1123Subdomain().validate('example.com')",
            NONE,
            "format_test:dns1123Subdomain valid",
        ),
        v(
            "format.qualifiedName().validate('my.name')",
            NONE,
            "format_test:qualifiedName valid",
        ),
        v(
            "format.byte().validate('aGVsbG8')",
            "optional.of(['invalid base64'])",
            "format_test:byte invalid",
        ),
        v(
            "format.date().validate('2020-01-32')",
            "optional.of(['invalid date'])",
            "format_test:date invalid",
        ),
        v(
            "format.datetime().validate('2020-01-32T00:00:00Z')",
            "optional.of(['invalid datetime'])",
            "format_test:datetime invalid",
        ),
        t(
            "!format.named('unknown').hasValue()",
            "format_test:named unknown",
        ),
        v(
            "format.labelValue().validate('my-cool-label-Value')",
            NONE,
            "format_test:labelValue",
        ),
        v(
            "format.labelValue().validate('my-cool-label-Value!!\\n\\n!!!')",
            r#"optional.of(["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])"#,
            "format_test:labelValue invalid",
        ),
        t(
            "format.named('dns1123Label').hasValue() && format.named('datetime').value() == format.datetime()",
            "format_test:named",
        ),
        t("format.uuid() != format.byte()", "format_test:inequality"),
        // Further apimachinery / kube-openapi rules.
        v(
            "format.dns1123Label().validate('a.b')",
            "optional.of(['must not contain dots'])",
            "apimachinery IsDNS1123Label",
        ),
        v(
            "format.labelValue().validate('')",
            NONE,
            "apimachinery: empty label value",
        ),
        v(
            "format.uri().validate('foo')",
            "optional.of(['parse \"foo\": invalid URI for request'])",
            "go: ParseRequestURI",
        ),
        v(
            "format.uuid().validate('123E4567E89B12D3A456426614174000')",
            NONE,
            "kube-openapi: dashes optional, any case",
        ),
        v(
            "format.uuid().validate('x')",
            "optional.of(['does not match the UUID format'])",
            "kube-openapi",
        ),
        v(
            "format.byte().validate('')",
            "optional.of(['invalid base64'])",
            "govalidator: at least one quantum",
        ),
        v(
            "format.date().validate('2024-02-29')",
            NONE,
            "go time.Parse: leap day",
        ),
        v(
            "format.date().validate('2023-02-29')",
            "optional.of(['invalid date'])",
            "go time.Parse",
        ),
        v(
            "format.datetime().validate('2021-01-01T23:59:59.123+05:30')",
            NONE,
            "kube-openapi",
        ),
        v(
            "format.datetime().validate('2021-01-01T24:00:00Z')",
            "optional.of(['invalid datetime'])",
            "kube-openapi: hour ≤ 23",
        ),
        v(
            "format.qualifiedName().validate('/name')",
            "optional.of(['prefix part must be non-empty'])",
            "apimachinery IsQualifiedName",
        ),
        v(
            "format.qualifiedName().validate('a/b/c')",
            r#"optional.of(["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"])"#,
            "apimachinery IsQualifiedName",
        ),
        // Costs: validate ⌈(1 + S) × 0.1⌉ × ⌈maxRegexSize × 0.25⌉ (est ⌈E × 0.1⌉ × 32).
        ct(
            "format.named('dns1123subdomain')",
            (1, 1),
            1,
            "ct:TestNameFormatCost/format.named",
        ),
        ct(
            "format.named('dns1123Subdomain').value().validate('my-name')",
            (34, 34),
            17,
            "ct:TestNameFormatCost/dns1123Subdomain.validate",
        ),
        ct(
            "format.named('dns1123Label').value().validate('my-name')",
            (34, 34),
            10,
            "ct:TestNameFormatCost/dns1123label.validate",
        ),
        ct(
            "format.named('dns1123Label').value() == format.named('dns1123Label').value()",
            (5, 11),
            5,
            "ct:TestNameFormatCost/equality",
        ),
        sc("format.uri().validate('http://example.com')", (65, 65), 553),
    ]
}

#[test]
fn format() {
    run("kubernetes.format", &cases(), 40);
}

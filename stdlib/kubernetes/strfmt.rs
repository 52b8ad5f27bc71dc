//! kube-openapi's string formats (`strfmt`): the `format`s Kubernetes validates in custom
//! resources (used by [`super::crd::openapi`]), and the date, time, UUID and base64 checks
//! the `kubernetes.format` CEL library shares with them.
//!
//! Sources: apiextensions-apiserver `pkg/apiserver/validation/formats.go`
//! (`supportedVersionedFormats`: formats outside it are dropped from the schema before
//! validation, so any value passes) and kube-openapi `pkg/validation/strfmt` (`default.go`,
//! `date.go`, `time.go`, `bson.go`, `kubernetes-extensions.go`: what each format accepts).
//! Format names are compared without their dashes (`date-time` is `datetime`), as strfmt's
//! registry compares them.
//!
//! Formats Kubernetes supports whose checks kcel does not reproduce yet accept every value:
//! `email`, `mac`, `isbn`, `isbn10`, `isbn13`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`,
//! `duration` (they rest on Go's `net/mail`, `net.ParseMAC`, strfmt's duration grammar and
//! govalidator's patterns).

use std::net::Ipv6Addr;
use std::sync::LazyLock;

use regex::Regex;

/// apimachinery's DNS-1123 label (`k8s-short-name` too).
pub(crate) const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
/// apimachinery's DNS-1123 subdomain (`k8s-long-name` too).
pub(crate) const DNS1123_SUBDOMAIN_FMT: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// Every format Kubernetes 1.37 validates, normalised (dashes removed).
const SUPPORTED: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// The normalised name of `format` if Kubernetes validates it, else `None` (the format is
/// ignored).
pub fn supported(format: &str) -> Option<&'static str> {
    if format.is_empty() {
        return None;
    }
    let normalised = format.replace('-', "");
    SUPPORTED.iter().copied().find(|f| *f == normalised)
}

/// Whether `text` is valid in the (normalised, supported) `format`.
pub fn validates(format: &str, text: &str) -> bool {
    match format {
        "hostname" => is_hostname(text),
        "uuid" => is_uuid(text),
        "uuid3" => UUID3.is_match(text),
        "uuid4" => UUID4.is_match(text),
        "uuid5" => UUID5.is_match(text),
        "ipv4" => parse_ip_sloppy(text) && text.contains('.'),
        "ipv6" => text.parse::<Ipv6Addr>().is_ok() && text.contains(':'),
        "cidr" => is_cidr_sloppy(text),
        "uri" => super::go_url::parse_request_uri(text).is_ok(),
        "byte" => is_base64(text),
        "date" => is_date(text),
        "datetime" => is_date_time(text),
        "bsonobjectid" => text.len() == 24 && text.bytes().all(|b| b.is_ascii_hexdigit()),
        "k8sshortname" => text.len() <= 63 && SHORT_NAME.is_match(text),
        "k8slongname" => text.len() <= 253 && LONG_NAME.is_match(text),
        _ => true,
    }
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in pattern: {e}"))
}

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
});
static UUID4: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static UUID5: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static BASE64: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
});
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
});
static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1123_LABEL_FMT}$")));
static LONG_NAME: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1123_SUBDOMAIN_FMT}$")));

/// strfmt's `IsUUID`: 32 hex digits, dashes optional in their four places.
pub fn is_uuid(text: &str) -> bool {
    UUID.is_match(text)
}

/// govalidator's `IsBase64` (strfmt's `byte`): standard base64 with padding, not empty.
pub fn is_base64(text: &str) -> bool {
    BASE64.is_match(text)
}

/// strfmt's `IsHostname`: the pattern, at most 255 bytes, labels of at most 63 bytes.
fn is_hostname(text: &str) -> bool {
    HOSTNAME.is_match(text) && text.len() <= 255 && text.split('.').all(|label| label.len() <= 63)
}

/// `netutils.ParseIPSloppy`: Go's IP parsing before 1.17, whose IPv4 parts may have leading
/// zeros (read as decimal).
fn parse_ip_sloppy(text: &str) -> bool {
    is_ipv4_sloppy(text) || text.parse::<Ipv6Addr>().is_ok()
}

fn is_ipv4_sloppy(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// `netutils.ParseCIDRSloppy`: an address as [`parse_ip_sloppy`] reads it, `/` and a decimal
/// prefix length within the address's bits.
fn is_cidr_sloppy(text: &str) -> bool {
    let Some((addr, bits)) = text.split_once('/') else {
        return false;
    };
    let max = if is_ipv4_sloppy(addr) {
        32
    } else if addr.parse::<Ipv6Addr>().is_ok() {
        128
    } else {
        return false;
    };
    !bits.is_empty()
        && bits.len() <= 10
        && bits.bytes().all(|b| b.is_ascii_digit())
        && bits.parse::<u32>().is_ok_and(|n| n <= max)
}

/// strfmt's `IsDate`, `time.Parse("2006-01-02", text)`: four-digit year, two-digit month and
/// day, the day within its month.
pub fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = &text[r];
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// strfmt's `IsDateTime`: at least 4 bytes; lower-cased and split at every `t`, a date
/// before the first and a time (hours ≤ 23, minutes and seconds ≤ 59, fraction, `z` or an
/// offset) after it.
pub fn is_date_time(text: &str) -> bool {
    if text.len() < 4 {
        return false;
    }
    let lower = text.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(c) = TIME.captures(time) else {
        return false;
    };
    &c[1] <= "23" && &c[2] <= "59" && &c[3] <= "59"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_supported_formats_are_checked() {
        assert_eq!(supported("date-time"), Some("datetime"));
        assert_eq!(supported("int32"), None);
        assert_eq!(supported(""), None);
        assert_eq!(supported("k8s-short-name"), Some("k8sshortname"));
    }

    // Cases from kube-openapi strfmt's tests (time_test.go, date_test.go,
    // default_test.go, kubernetes-extensions_test.go).
    #[test]
    fn formats_accept_and_reject_as_strfmt() {
        let cases: &[(&str, &str, bool)] = &[
            ("datetime", "2014-12-15T08:00:00Z", true),
            ("datetime", "2014-12-15T08:00:00.123+01:00", true),
            ("datetime", "2014-12-15t08:00:00z", true),
            ("datetime", "2014-12-15T24:00:00Z", false),
            ("datetime", "2014-12-15 08:00:00Z", false),
            ("datetime", "2014-12-15T08:00:00", false),
            ("date", "2012-01-01", true),
            ("date", "2012-1-01", false),
            ("date", "2012-02-30", false),
            ("date", "2000-02-29", true),
            ("date", "1900-02-29", false),
            ("uuid", "a8098c1a-f86e-11da-bd1a-00112444be1e", true),
            ("uuid", "a8098c1af86e11dabd1a00112444be1e", true),
            ("uuid", "a8098c1a-f86e-11da-bd1a-00112444be1", false),
            ("uuid4", "6e6ac7c2-ac4b-4c2c-9b3d-6b6a4c3d2e1f", true),
            ("uuid4", "6e6ac7c2-ac4b-5c2c-9b3d-6b6a4c3d2e1f", false),
            ("ipv4", "192.168.254.1", true),
            ("ipv4", "192.168.254.01", true),
            ("ipv4", "192.168.254", false),
            ("ipv4", "::ffff:192.168.254.1", true),
            ("ipv6", "::1", true),
            ("ipv6", "192.168.254.1", false),
            ("cidr", "192.168.254.1/24", true),
            ("cidr", "2001:db8::/32", true),
            ("cidr", "192.168.254.1/33", false),
            ("cidr", "192.168.254.1", false),
            ("hostname", "somewhere.com", true),
            ("hostname", "a.b", false),
            ("hostname", "xn--bcher-kva.example", true),
            ("hostname", "-leading.example.com", false),
            ("byte", "ZWxpemFiZXRocG9zZXk=", true),
            ("byte", "not base64!", false),
            ("byte", "", false),
            ("bsonobjectid", "507f1f77bcf86cd799439011", true),
            ("bsonobjectid", "507f1f77bcf86cd79943901", false),
            ("k8sshortname", "my-name", true),
            ("k8sshortname", "My-name", false),
            ("k8slongname", "my.name", true),
            ("k8slongname", "-my.name", false),
            ("password", "anything at all", true),
            ("uri", "https://example.com/a?b=c", true),
            ("uri", "not a uri", false),
        ];
        for (format, text, valid) in cases {
            assert_eq!(validates(format, text), *valid, "{format} {text:?}");
        }
    }
}

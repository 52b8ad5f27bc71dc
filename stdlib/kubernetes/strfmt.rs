//! kube-openapi's string formats (`strfmt`): the `format`s Kubernetes validates in custom
//! resources (used by the OpenAPI value validation of `crd`), and the date, time, UUID and base64 checks
//! the `kubernetes.format` CEL library shares with them.
//!
//! Sources: apiextensions-apiserver `pkg/apiserver/validation/formats.go`
//! (`supportedVersionedFormats`: formats outside it are dropped from the schema before
//! validation, so any value passes) and kube-openapi `pkg/validation/strfmt` (`default.go`,
//! `date.go`, `time.go`, `bson.go`, `kubernetes-extensions.go`: what each format accepts).
//! Format names are compared without their dashes (`date-time` is `datetime`), as strfmt's
//! registry compares them.
//!
//! The govalidator checks (`mac`, `isbn*`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`)
//! follow kube-openapi's copy of them (`pkg/internal/third_party/govalidator`:
//! `patterns.go`, `validator.go`; `IsMAC` is Go's `net.ParseMAC`), `duration` strfmt's
//! `ParseDuration` (`duration.go`), `email` Go's `net/mail.ParseAddress` (`default.go`
//! `IsEmail`; RFC 5322 comments in addresses are not read, so an address with a comment is
//! rejected).

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
        "ipv4" => super::sloppy_ip::parse_ip(text).is_some() && text.contains('.'),
        "ipv6" => super::sloppy_ip::parse_ip(text).is_some() && text.contains(':'),
        "cidr" => super::sloppy_ip::parse_cidr(text).is_some(),
        "uri" => super::go_url::parse_request_uri(text).is_ok(),
        "byte" => is_base64(text),
        "date" => is_date(text),
        "datetime" => is_date_time(text),
        "bsonobjectid" => text.len() == 24 && text.bytes().all(|b| b.is_ascii_hexdigit()),
        "k8sshortname" => text.len() <= 63 && SHORT_NAME.is_match(text),
        "k8slongname" => text.len() <= 253 && LONG_NAME.is_match(text),
        "mac" => is_mac(text),
        "isbn" => is_isbn10(text) || is_isbn13(text),
        "isbn10" => is_isbn10(text),
        "isbn13" => is_isbn13(text),
        "creditcard" => is_credit_card(text),
        "ssn" => text.len() == 11 && SSN.is_match(text),
        "hexcolor" => HEX_COLOR.is_match(text),
        "rgbcolor" => RGB_COLOR.is_match(text),
        "duration" => is_duration(text),
        "email" => is_email(text),
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
// govalidator's patterns, with Go's ASCII `\d` and `\s` spelled out (Rust's are Unicode).
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
    )
});
static ISBN10: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[0-9]{9}X|[0-9]{10})$"));
static ISBN13: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[0-9]{13})$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let byte = r"(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    let sp = r"[\t\n\f\r ]*";
    re(&format!(
        r"^rgb\({sp}{byte}{sp},{sp}{byte}{sp},{sp}{byte}{sp}\)$"
    ))
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$"));
static DURATION_PART: LazyLock<Regex> = LazyLock::new(|| re(r"(([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))"));

/// Go's `net.ParseMAC`: 6, 8 or 20 octets as pairs of hex digits separated by `:` or `-`,
/// or as groups of four separated by `.`.
fn is_mac(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex = |s: &[u8]| s.iter().all(u8::is_ascii_hexdigit);
    let octets_ok = |n: usize| n == 6 || n == 8 || n == 20;
    if b[2] == b':' || b[2] == b'-' {
        if (b.len() + 1) % 3 != 0 || !octets_ok((b.len() + 1) / 3) {
            return false;
        }
        b.chunks(3)
            .all(|group| hex(&group[..2]) && (group.len() == 2 || group[2] == b[2]))
    } else if b[4] == b'.' {
        if (b.len() + 1) % 5 != 0 || !octets_ok(2 * (b.len() + 1) / 5) {
            return false;
        }
        b.chunks(5)
            .all(|group| hex(&group[..4]) && (group.len() == 4 || group[4] == b'.'))
    } else {
        false
    }
}

/// govalidator's ISBN sanitising: white space and dashes removed.
fn isbn_digits(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '-' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' '))
        .collect()
}

/// govalidator's `IsISBN10`: nine digits and a digit or `X`, weighted sum divisible by 11.
fn is_isbn10(text: &str) -> bool {
    let s = isbn_digits(text);
    if !ISBN10.is_match(&s) {
        return false;
    }
    let b = s.as_bytes();
    let mut sum: u32 = (0..9)
        .map(|i| (i as u32 + 1) * u32::from(b[i] - b'0'))
        .sum();
    sum += 10
        * if b[9] == b'X' {
            10
        } else {
            u32::from(b[9] - b'0')
        };
    sum % 11 == 0
}

/// govalidator's `IsISBN13`: thirteen digits with the EAN check digit.
fn is_isbn13(text: &str) -> bool {
    let s = isbn_digits(text);
    if !ISBN13.is_match(&s) {
        return false;
    }
    let b = s.as_bytes();
    let sum: u32 = (0..12)
        .map(|i| [1, 3][i % 2] * u32::from(b[i] - b'0'))
        .sum();
    u32::from(b[12] - b'0') == (10 - sum % 10) % 10
}

/// govalidator's `IsCreditCard`: the digits (everything else dropped) match a card
/// pattern and pass the Luhn check.
fn is_credit_card(text: &str) -> bool {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled >= 10 {
                    doubled % 10 + 1
                } else {
                    doubled
                }
            } else {
                d
            }
        })
        .sum();
    sum % 10 == 0
}

/// strfmt's `ParseDuration`: Go's `time.ParseDuration`, or else any `<digits> <unit>`
/// found in the text with a unit strfmt knows (`ns`/`nano…`, `us`/`µs`/`micro…`,
/// `ms`/`milli…`, `s`/`sec…`, `m`/`min…`, `h`/`hr`/`hour…`, `d`/`day…`, `w`/`wk`/`week…`).
fn is_duration(text: &str) -> bool {
    if kcel::library::standard::duration_text::parse(text).is_ok() {
        return true;
    }
    const UNITS: [&[&str]; 8] = [
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    for m in DURATION_PART.captures_iter(text) {
        // strconv.Atoi fails on a factor beyond int64: the whole text is then invalid.
        if m[2].parse::<i64>().is_err() {
            return false;
        }
        let unit = m[3].to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (i, variant) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(variant)) || variant.eq_ignore_ascii_case(&unit) {
                    ok = true;
                }
            }
        }
    }
    ok
}

/// Go's `net/mail.ParseAddress` (strfmt's `IsEmail`): an `addr-spec` (`local@domain`), or
/// a display name (words or a quoted string) and `<addr-spec>`; the local part a dot-atom
/// or a quoted string, the domain a dot-atom or a `[...]` literal.
fn is_email(text: &str) -> bool {
    let s = text.trim_matches([' ', '\t', '\r', '\n']);
    if let Some(rest) = s.strip_suffix('>') {
        let Some(open) = rest.rfind('<') else {
            return false;
        };
        let name = rest[..open].trim_matches([' ', '\t']);
        return display_name_ok(name) && addr_spec_ok(rest[open + 1..].trim());
    }
    addr_spec_ok(s)
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

fn dot_atom_ok(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|atom| !atom.is_empty() && atom.chars().all(is_atext))
}

fn quoted_ok(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return false;
    };
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '"' => return false,
            c if (c as u32) < 0x20 && c != '\t' => return false,
            '\u{7f}' => return false,
            _ => {}
        }
    }
    true
}

fn display_name_ok(name: &str) -> bool {
    name.is_empty()
        || quoted_ok(name)
        || name
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .all(|w| w.chars().all(|c| is_atext(c) || c == '.'))
}

fn addr_spec_ok(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = if local.starts_with('"') {
        quoted_ok(local)
    } else {
        dot_atom_ok(local)
    };
    let domain_ok = if let Some(lit) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        lit.chars()
            .all(|c| (c as u32) > 0x20 && c != '[' && c != ']' && c != '\\' && c != '\u{7f}')
    } else {
        dot_atom_ok(domain)
    };
    local_ok && domain_ok
}

static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1123_LABEL_FMT}$")));
static LONG_NAME: LazyLock<Regex> = LazyLock::new(|| re(&format!("^{DNS1123_SUBDOMAIN_FMT}$")));

/// strfmt's `IsUUID`: 32 hex digits, dashes optional in their four places.
pub(crate) fn is_uuid(text: &str) -> bool {
    UUID.is_match(text)
}

/// govalidator's `IsBase64` (strfmt's `byte`): standard base64 with padding, not empty.
pub(crate) fn is_base64(text: &str) -> bool {
    BASE64.is_match(text)
}

/// strfmt's `IsHostname`: the pattern, at most 255 bytes, labels of at most 63 bytes.
fn is_hostname(text: &str) -> bool {
    HOSTNAME.is_match(text) && text.len() <= 255 && text.split('.').all(|label| label.len() <= 63)
}

/// strfmt's `IsDate`, `time.Parse("2006-01-02", text)`: four-digit year, two-digit month and
/// day, the day within its month.
pub(crate) fn is_date(text: &str) -> bool {
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
pub(crate) fn is_date_time(text: &str) -> bool {
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
            // kube-openapi default_test.go TestFormatMAC, TestFormatISBN*, TestFormatHexColor,
            // TestFormatRGBColor, TestFormatSSN, TestFormatCreditCard, TestFormatEmail, and
            // duration_test.go; the other MAC forms from net.ParseMAC's documentation.
            ("mac", "01:02:03:04:05:06", true),
            ("mac", "01-02-03-04-05-06", true),
            ("mac", "0102.0304.0506", true),
            ("mac", "01:02:03:04:05:06:07:08", true),
            ("mac", "01:02:03:04:05", false),
            ("mac", "01:02:03-04:05:06", false),
            ("mac", "01:02:03:04:05:0g", false),
            ("isbn", "0321751043", true),
            ("isbn", "836217463", false),
            ("isbn10", "0321751043", true),
            ("isbn10", "0-321-75104-3", true),
            ("isbn10", "836217463", false),
            ("isbn10", "080442957X", true),
            ("isbn13", "978-0321751041", true),
            ("isbn13", "978-0321751042", false),
            ("isbn", "978-0321751041", true),
            ("hexcolor", "#FFFFFF", true),
            ("hexcolor", "#000000", true),
            ("hexcolor", "fff", true),
            ("hexcolor", "#fffffffz", false),
            ("rgbcolor", "rgb(255,255,255)", true),
            ("rgbcolor", "rgb( 0 , 0 , 0 )", true),
            ("rgbcolor", "rgb(300,0,0)", false),
            ("ssn", "111-11-1111", true),
            ("ssn", "999 99 9999", true),
            ("ssn", "999 99 999", false),
            ("ssn", "111111111", false),
            ("creditcard", "4111-1111-1111-1111", true),
            ("creditcard", "4012-8888-8888-1881", true),
            ("creditcard", "9999-9999-9999-999", false),
            ("creditcard", "4111-1111-1111-1112", false),
            ("email", "blah@gmail.com", true),
            ("email", "test@d.verylongtoplevel", true),
            ("email", "email+tag@gmail.com", true),
            ("email", r#"" "@example.com"#, true),
            ("email", r#""Abc\@def"@example.com"#, true),
            ("email", r#""Fred Bloggs"@example.com"#, true),
            ("email", r#""Joe\\Blow"@example.com"#, true),
            ("email", r#""Abc@def"@example.com"#, true),
            ("email", "customer/department=shipping@example.com", true),
            ("email", "$A12345@example.com", true),
            ("email", "!def!xyz%abc@example.com", true),
            ("email", "_somename@example.com", true),
            ("email", "!#$%&'*+-/=?^_`{}|~@example.com", true),
            ("email", "Miles.O'Brian@example.com", true),
            ("email", "postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws", true),
            ("email", "root@localhost", true),
            ("email", "john@com", true),
            ("email", "api@piston.ninja", true),
            ("email", "Barry Gibbs <bg@example.com>", true),
            ("email", "somebody@somewhere@com", false),
            ("email", "no-at-sign", false),
            ("email", "a..b@example.com", false),
            ("duration", "0ms", true),
            ("duration", "2ms", true),
            ("duration", "1h2m3.5s", true),
            ("duration", "1  hr", true),
            ("duration", "1nanoseconds", true),
            ("duration", "1µs", true),
            ("duration", "3 weeks", true),
            ("duration", "yada", false),
            ("duration", "three week", false),
            (
                "duration",
                "9999999999999999999999999999999999999999999999999999999 weeks",
                false,
            ),
            ("duration", "12 parsecs", false),
            ("duration", "12 y", false),
            ("duration", "45 wekk", false),
            ("duration", "45 weeekks", false),
        ];
        for (format, text, valid) in cases {
            assert_eq!(validates(format, text), *valid, "{format} {text:?}");
        }
    }
}

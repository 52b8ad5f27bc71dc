//! Name validation with upstream's messages (kubernetes/apimachinery `util/validation`).

/// Upstream's maximum length of a DNS-1123 subdomain.
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;

/// Upstream's explanation of the DNS-1123 subdomain format.
pub const DNS1123_SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn is_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// One DNS-1123 label of a subdomain: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_label(label: &[u8]) -> bool {
    match (label.first(), label.last()) {
        (Some(&first), Some(&last)) => {
            is_alnum(first) && is_alnum(last) && label.iter().all(|&c| is_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// The problems with `name` as a DNS-1123 subdomain (the rule for ConfigMap names), each one
/// of upstream's messages; empty when the name is valid.
pub fn dns1123_subdomain(name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if name.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errors.push(format!(
            "must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} characters"
        ));
    }
    if !name.as_bytes().split(|&c| c == b'.').all(is_label) {
        errors.push(DNS1123_SUBDOMAIN_MESSAGE.to_owned());
    }
    errors
}

/// Upstream's maximum length of a DNS-1123 label.
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;

/// Upstream's explanation of the DNS-1123 label format.
pub const DNS1123_LABEL_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// The problems with `name` as a DNS-1123 label (the rule for Namespace and Service names),
/// each one of upstream's messages; empty when the name is valid.
pub fn dns1123_label(name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if name.len() > DNS1123_LABEL_MAX_LENGTH {
        errors.push(format!(
            "must be no more than {DNS1123_LABEL_MAX_LENGTH} characters"
        ));
    }
    if !is_label(name.as_bytes()) {
        errors.push(DNS1123_LABEL_MESSAGE.to_owned());
    }
    errors
}

/// Upstream's explanation of the DNS-1035 label format.
pub const DNS1035_LABEL_MESSAGE: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// The problems with `name` as a DNS-1035 label (the rule for Service names), each one of
/// upstream's messages; empty when the name is valid.
pub fn dns1035_label(name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if name.len() > DNS1123_LABEL_MAX_LENGTH {
        errors.push(format!(
            "must be no more than {DNS1123_LABEL_MAX_LENGTH} characters"
        ));
    }
    let starts_alpha = name.as_bytes().first().is_some_and(u8::is_ascii_lowercase);
    if !starts_alpha || !is_label(name.as_bytes()) {
        errors.push(DNS1035_LABEL_MESSAGE.to_owned());
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert!(dns1123_label("a-1").is_empty());
        assert_eq!(dns1123_label("a.b"), [DNS1123_LABEL_MESSAGE]);
        assert!(dns1035_label("web-1").is_empty());
        assert_eq!(dns1035_label("1web"), [DNS1035_LABEL_MESSAGE]);
        assert_eq!(dns1035_label(&"a".repeat(64)).len(), 1);
    }

    #[test]
    fn subdomains() {
        for ok in ["a", "demo", "a-b.c", "0", "x.y.z", "a1-2b"] {
            assert!(dns1123_subdomain(ok).is_empty(), "{ok}");
        }
        for bad in ["", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "a b", "é"] {
            assert_eq!(dns1123_subdomain(bad), [DNS1123_SUBDOMAIN_MESSAGE], "{bad}");
        }
        let long = "a".repeat(254);
        assert_eq!(dns1123_subdomain(&long).len(), 1);
        assert!(dns1123_subdomain(&long)[0].starts_with("must be no more than 253"));
    }
}

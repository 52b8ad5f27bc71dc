//! The image pull policy a container (or an image volume) is given when it sets none:
//! kubernetes `pkg/apis/core/v1/defaults.go` `SetDefaults_Container` reads the image's tag
//! with `pkg/util/parsers.ParseImageName`, which parses the reference as
//! `github.com/distribution/reference.ParseNormalizedNamed` does: `Always` for the tag
//! `latest` (also the tag of a reference with neither tag nor digest), `IfNotPresent` for any
//! other tag, for a digest alone, and for a reference that does not parse.

/// `Always` or `IfNotPresent` for `image`, as upstream defaults `imagePullPolicy`.
pub(super) fn pull_policy(image: &str) -> &'static str {
    match tag(image) {
        Some("latest") => "Always",
        _ => "IfNotPresent",
    }
}

/// The tag `ParseImageName` reads: the reference's own, `latest` when it has neither tag
/// nor digest, none when it has only a digest or does not parse.
fn tag(image: &str) -> Option<&str> {
    let (tag, digest) = parse_normalized(image)?;
    match (tag, digest) {
        (None, false) => Some("latest"),
        (tag, _) => tag,
    }
}

/// The tag and whether there is a digest, for a reference `ParseNormalizedNamed` accepts.
fn parse_normalized(image: &str) -> Option<(Option<&str>, bool)> {
    // A bare 64-hex identifier is refused ("cannot specify 64-byte hexadecimal strings").
    if image.len() == 64
        && image
            .bytes()
            .all(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
    {
        return None;
    }
    // splitDockerDomain: the first component is a domain if it has `.` or `:`, is
    // `localhost`, or has an upper-case letter; else the domain is docker.io.
    let (domain, remainder) = match image.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.to_lowercase() != first =>
        {
            (Some(first), rest)
        }
        _ => (None, image),
    };
    let remote_name = remainder.split(':').next().unwrap_or_default();
    if remote_name.to_lowercase() != remote_name {
        return None; // "repository name (...) must be lowercase"
    }
    let (named, digest) = match remainder.split_once('@') {
        Some((named, digest)) => (named, Some(digest)),
        None => (remainder, None),
    };
    let (path, tag) = match named.rsplit_once(':') {
        Some((path, tag)) => (path, Some(tag)),
        None => (named, None),
    };
    if let Some(domain) = domain
        && !domain_and_port(domain)
    {
        return None;
    }
    if path.is_empty() || !path.split('/').all(path_component) {
        return None;
    }
    // docker.io references get `library/` when they have one component; the name is at
    // most 255 characters, domain included.
    let full = domain.unwrap_or("docker.io").len()
        + 1
        + path.len()
        + if domain.is_none() && !path.contains('/') {
            "library/".len()
        } else {
            0
        };
    if full > 255 {
        return None;
    }
    if tag.is_some_and(|t| !valid_tag(t)) || digest.is_some_and(|d| !valid_digest(d)) {
        return None;
    }
    Some((tag, digest.is_some()))
}

/// `[a-z0-9]+` components joined by `.`, `_`, `__` or runs of `-`.
fn path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// A host (domain name components, or a bracketed IPv6 address) and an optional port.
fn domain_and_port(domain: &str) -> bool {
    let (host, port) = if let Some(rest) = domain.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return false;
        };
        if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
            return false;
        }
        match after.strip_prefix(':') {
            Some(port) => ("", Some(port)),
            None if after.is_empty() => ("", None),
            None => return false,
        }
    } else {
        match domain.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (domain, None),
        }
    };
    let component = |c: &str| {
        let b = c.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
    };
    let host_ok = (host.is_empty() && domain.starts_with('[')) || host.split('.').all(component);
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// `[\w][\w.-]{0,127}`.
fn valid_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && word(bytes[0])
        && bytes.iter().all(|b| word(*b) || *b == b'.' || *b == b'-')
}

/// A digest of an algorithm opencontainers/go-digest knows, with its length of lower-case
/// hex (`digest.Parse` then `Validate`).
fn valid_digest(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let length = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    hex.len() == length && hex.bytes().all(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
}

#[cfg(test)]
mod tests {
    use super::*;

    // kubernetes pkg/util/parsers/parsers_test.go TestParseImageName, read through
    // SetDefaults_Container's tag check.
    #[test]
    fn pull_policies_by_tag() {
        let digest = "sha256:".to_owned() + &"e".repeat(64);
        let cases = [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            ("docker.io/library/busybox", "Always"),
            ("localhost:5000/app:v1", "IfNotPresent"),
            ("localhost:5000/app", "Always"),
            ("[::1]:5000/app:dev", "IfNotPresent"),
            ("registry.example.com/team/app:latest", "Always"),
            (&format!("app@{digest}"), "IfNotPresent"),
            (&format!("app:latest@{digest}"), "Always"),
            // Not parsed: the tag is empty, so IfNotPresent (TestWorkloadDefaults's "").
            ("", "IfNotPresent"),
            ("Nginx", "IfNotPresent"),
            ("app@sha256:abc", "IfNotPresent"),
            (&"a".repeat(64), "IfNotPresent"),
            ("app:", "IfNotPresent"),
            ("app:-x", "IfNotPresent"),
            ("a//b", "IfNotPresent"),
        ];
        for (image, want) in cases {
            assert_eq!(pull_policy(image), want, "{image:?}");
        }
    }
}

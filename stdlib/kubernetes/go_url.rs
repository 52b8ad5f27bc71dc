//! Go's `net/url` parsing (`Parse`, `ParseRequestURI`) and accessors, with its error
//! messages (`parse "foo": invalid URI for request`). Kubernetes' URL library follows Go,
//! which differs from the WHATWG URL standard (no normalization, host kept as written).

use super::go_quote;

/// A parsed URL (the fields of Go's `url.URL` that the CEL library reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub opaque: String,
    /// The raw userinfo (before `@`), if any.
    pub user: Option<String>,
    pub host: String,
    pub path: String,
    pub raw_path: String,
    pub omit_host: bool,
    pub force_query: bool,
    pub raw_query: String,
    pub fragment: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    QueryComponent,
    Fragment,
}

/// Why a text is not a URL (Go's `*url.Error` of the `parse` operation); `Display` is Go's
/// message (`parse "foo": invalid URI for request`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parse {}: {problem}", go_quote(.url))]
pub struct UrlError {
    /// The text parsed (without a fragment when the rest failed).
    pub url: String,
    /// What is wrong.
    pub problem: UrlProblem,
}

/// What is wrong with a URL ([`UrlError`]), in Go's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    /// A byte below 0x20 or 0x7f.
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    /// An empty request URI.
    #[error("empty url")]
    Empty,
    /// A request URI that is neither absolute nor an absolute path.
    #[error("invalid URI for request")]
    NotForRequest,
    /// A relative path whose first segment has a colon.
    #[error("first path segment in URL cannot contain colon")]
    ColonInFirstSegment,
    /// A userinfo with characters Go refuses.
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    /// A `:` first.
    #[error("missing protocol scheme")]
    MissingScheme,
    /// An IPv6 host without its `]`.
    #[error("missing ']' in host")]
    MissingBracket,
    /// A port that is not digits (the port with its colon).
    #[error("invalid port {} after host", go_quote(.0))]
    InvalidPort(String),
    /// A `%` not followed by two hex digits, or a host escape Go refuses (the escape).
    #[error("invalid URL escape {}", go_quote(.0))]
    InvalidEscape(String),
    /// A host character that must be escaped.
    #[error("invalid character {} in host name", go_quote(&.0.to_string()))]
    InvalidHostCharacter(char),
}

fn error(raw: &str, problem: UrlProblem) -> UrlError {
    UrlError {
        url: raw.to_string(),
        problem,
    }
}

/// `url.ParseRequestURI`: absolute URIs and absolute paths only; `#` is not special.
pub fn parse_request_uri(raw: &str) -> Result<Url, UrlError> {
    parse(raw, true).map_err(|e| error(raw, e))
}

/// `url.Parse`: splits off the `#fragment` first.
pub fn parse_url(raw: &str) -> Result<Url, UrlError> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse(u, false).map_err(|e| error(u, e))?;
    if !frag.is_empty() {
        url.fragment = unescape(frag, Mode::Fragment).map_err(|e| error(raw, e))?;
    }
    Ok(url)
}

fn parse(raw: &str, via_request: bool) -> Result<Url, UrlProblem> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(UrlProblem::ControlCharacter);
    }
    if raw.is_empty() && via_request {
        return Err(UrlProblem::Empty);
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, mut rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if via_request {
            return Err(UrlProblem::NotForRequest);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err(UrlProblem::ColonInFirstSegment);
        }
    }
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
        && rest.starts_with("//")
    {
        let authority = &rest[2..];
        let (authority, path) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        rest = path;
        let (user, host) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        url.host = parse_host(host)?;
        if let Some(u) = user {
            if !valid_userinfo(u) {
                return Err(UrlProblem::InvalidUserinfo);
            }
            url.user = Some(u.to_string());
        }
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.path = unescape(rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_string();
    }
    Ok(url)
}

fn get_scheme(raw: &str) -> Result<(&str, &str), UrlProblem> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err(UrlProblem::MissingScheme);
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit())
}

fn parse_host(host: &str) -> Result<String, UrlProblem> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err(UrlProblem::MissingBracket);
        };
        let port = &host[i + 1..];
        if !valid_optional_port(port) {
            return Err(UrlProblem::InvalidPort(port.to_string()));
        }
    } else if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_optional_port(port) {
            return Err(UrlProblem::InvalidPort(port.to_string()));
        }
    }
    unescape(host, Mode::Host)
}

fn valid_userinfo(s: &str) -> bool {
    s.bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c) || c >= 0x80)
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::QueryComponent => true,
                Mode::Fragment => false,
                Mode::Host => true,
            };
        }
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

fn unescape(s: &str, mode: Mode) -> Result<String, UrlProblem> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = (
                    b.get(i + 1).and_then(|c| unhex(*c)),
                    b.get(i + 2).and_then(|c| unhex(*c)),
                );
                let (Some(h), Some(l)) = hex else {
                    let end = (i + 3).min(b.len());
                    return Err(UrlProblem::InvalidEscape(
                        String::from_utf8_lossy(&b[i..end]).into_owned(),
                    ));
                };
                if mode == Mode::Host && h < 8 && &s[i..i + 3] != "%25" {
                    return Err(UrlProblem::InvalidEscape(s[i..i + 3].to_string()));
                }
                out.push(h << 4 | l);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && should_escape(c, mode) {
                    return Err(UrlProblem::InvalidHostCharacter(c as char));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

fn valid_encoded(s: &str) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, Mode::Path))
}

impl Url {
    /// Go's `EscapedPath`.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path)
            && unescape(&self.raw_path, Mode::Path).ok().as_ref() == Some(&self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    fn split_host_port(&self) -> (&str, &str) {
        let mut host = self.host.as_str();
        let mut port = "";
        if let Some(i) = host.rfind(':') {
            if valid_optional_port(&host[i..]) {
                port = &host[i + 1..];
                host = &host[..i];
            }
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = &host[1..host.len() - 1];
        }
        (host, port)
    }

    /// Go's `Hostname`: the host without port or IPv6 brackets.
    pub fn hostname(&self) -> &str {
        self.split_host_port().0
    }

    /// Go's `Port`.
    pub fn port(&self) -> &str {
        self.split_host_port().1
    }

    /// Go's `Query`: keys with their values in order; malformed pairs are skipped.
    pub fn query(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k, Mode::QueryComponent),
                unescape(v, Mode::QueryComponent),
            ) else {
                continue;
            };
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, vals)) => vals.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }

    /// Go's `String` (used for equality).
    pub fn to_go_string(&self) -> String {
        let mut s = String::new();
        if !self.scheme.is_empty() {
            s.push_str(&self.scheme);
            s.push(':');
        }
        if !self.opaque.is_empty() {
            s.push_str(&self.opaque);
        } else {
            let authority = !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omit = self.omit_host && self.host.is_empty() && self.user.is_none();
            if authority && !omit {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    s.push_str("//");
                }
                if let Some(u) = &self.user {
                    s.push_str(u);
                    s.push('@');
                }
                s.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                s.push('/');
            }
            if s.is_empty() && path.split('/').next().unwrap_or("").contains(':') {
                s.push_str("./");
            }
            s.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            s.push('?');
            s.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            s.push('#');
            s.push_str(&escape(&self.fragment, Mode::Fragment));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parse_edge_cases() {
        assert_eq!(
            parse_request_uri("foo").unwrap_err().to_string(),
            r#"parse "foo": invalid URI for request"#
        );
        assert_eq!(
            parse_request_uri(":foo").unwrap_err().to_string(),
            r#"parse ":foo": missing protocol scheme"#
        );
        let u = parse_url("https://[::1]:80/a b?x=1&x=2#f").unwrap();
        assert_eq!((u.hostname(), u.port()), ("::1", "80"));
        assert_eq!(u.escaped_path(), "/a%20b");
        assert_eq!(u.query(), vec![("x".into(), vec!["1".into(), "2".into()])]);
        assert_eq!(u.fragment, "f");
        assert_eq!(
            parse_request_uri("http://a b.com/")
                .unwrap_err()
                .to_string(),
            r#"parse "http://a b.com/": invalid character " " in host name"#
        );
        assert_eq!(
            parse_request_uri("http://host:8x/")
                .unwrap_err()
                .to_string(),
            r#"parse "http://host:8x/": invalid port ":8x" after host"#
        );
    }
}

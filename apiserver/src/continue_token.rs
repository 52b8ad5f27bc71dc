//! Continue tokens for paged lists, in kube-apiserver's format (k8s.io/apiserver
//! `pkg/storage/continue.go`): base64url without padding of
//! `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.
//!
//! A token pins the snapshot of the list's first page: every later page is read at `rv`. A
//! negative `rv` (what upstream hands out with a 410 once that snapshot is compacted) means
//! "continue at the latest revision".

use base64::Engine;
use base64::alphabet::URL_SAFE;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::{Deserialize, Serialize};

use crate::storage::Revision;

const VERSION: &str = "meta.k8s.io/v1";

/// Go's `base64.RawURLEncoding`: no padding, and (not being `Strict`) trailing bits ignored.
const RAW_URL: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

const INVALID: &str = "continue key is not valid";

#[derive(Serialize, Deserialize)]
struct Token {
    #[serde(default)]
    v: String,
    #[serde(default)]
    rv: Revision,
    #[serde(default)]
    start: String,
}

/// The token for continuing at `start` (a key suffix after the list prefix) on the snapshot
/// at `revision`.
pub fn encode(revision: Revision, start: &str) -> String {
    let token = Token {
        v: VERSION.to_owned(),
        rv: revision,
        start: start.to_owned(),
    };
    RAW_URL.encode(serde_json::to_vec(&token).expect("a token always serializes"))
}

/// Go's `base64.CorruptInputError` text for a decoding failure.
fn base64_error(e: base64::DecodeError) -> String {
    let at = match e {
        base64::DecodeError::InvalidByte(offset, _)
        | base64::DecodeError::InvalidLastSymbol(offset, _) => offset,
        base64::DecodeError::InvalidLength(len) => len.saturating_sub(1),
        base64::DecodeError::InvalidPadding => 0,
    };
    format!("illegal base64 data at input byte {at}")
}

/// Whether `path` (starting with `/`) is what Go's `path.Clean` makes of it.
fn is_clean(path: &str) -> bool {
    path == "/"
        || path[1..]
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// The snapshot revision and the start key suffix (relative to the list prefix) in `token`,
/// or upstream's `DecodeContinue` error text (the API server answers it as `invalid continue
/// token: <text>`).
pub fn decode(token: &str) -> Result<(Revision, String), String> {
    let bytes = RAW_URL
        .decode(token)
        .map_err(|e| format!("{INVALID}: {}", base64_error(e)))?;
    let token: Token = serde_json::from_slice(&bytes).map_err(|e| format!("{INVALID}: {e}"))?;
    if token.v != VERSION {
        return Err(format!(
            "{INVALID}: server does not recognize this encoded version {}",
            token.v
        ));
    }
    if token.rv == 0 {
        return Err(format!(
            "{INVALID}: incorrect encoded start resourceVersion (version {VERSION})"
        ));
    }
    if token.start.is_empty() {
        return Err(format!(
            "{INVALID}: encoded start key empty (version {VERSION})"
        ));
    }
    // Upstream's defence against path traversal: the key, made absolute, must be clean.
    let key = if token.start.starts_with('/') {
        token.start.clone()
    } else {
        format!("/{}", token.start)
    };
    if !is_clean(&key) {
        return Err(format!("{INVALID}: {}", token.start));
    }
    Ok((token.rv, key[1..].to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> String {
        RAW_URL.encode(json)
    }

    /// Upstream's `DecodeContinue` cases (k8s.io/apiserver `pkg/storage/continue_test.go`).
    #[test]
    fn decodes_as_upstream() {
        let t = encode(12, "b\u{0}");
        assert!(!t.contains('='));
        assert_eq!(decode(&t).unwrap(), (12, "b\u{0}".to_owned()));
        assert_eq!(
            decode(&raw(r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"/a"}"#)).unwrap(),
            (-1, "a".to_owned())
        );
        assert_eq!(
            decode("not base64!").unwrap_err(),
            "continue key is not valid: illegal base64 data at input byte 3"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"x","rv":1,"start":"a"}"#)).unwrap_err(),
            "continue key is not valid: server does not recognize this encoded version x"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#)).unwrap_err(),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"meta.k8s.io/v1","rv":1}"#)).unwrap_err(),
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"
        );
        for bad in ["../a", "a/../b", "a//b", "a/", "/."] {
            let json = format!(r#"{{"v":"meta.k8s.io/v1","rv":1,"start":"{bad}"}}"#);
            assert_eq!(
                decode(&raw(&json)).unwrap_err(),
                format!("continue key is not valid: {bad}")
            );
        }
        assert!(
            decode(&raw("{"))
                .unwrap_err()
                .starts_with("continue key is not valid: ")
        );
    }
}

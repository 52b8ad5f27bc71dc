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

/// Why a continue token is refused: upstream's `DecodeContinue` texts (the API server
/// answers them as `invalid continue token: <text>`).
#[derive(Debug, thiserror::Error)]
pub enum ContinueError {
    /// Not base64url (Go's `CorruptInputError`: the offset of the bad input byte).
    #[error("continue key is not valid: illegal base64 data at input byte {0}")]
    Base64(usize),
    /// Not the token's JSON.
    #[error("continue key is not valid: {0}")]
    Json(serde_json::Error),
    /// Another token version.
    #[error("continue key is not valid: server does not recognize this encoded version {0}")]
    Version(String),
    /// A zero revision.
    #[error(
        "continue key is not valid: incorrect encoded start resourceVersion (version {VERSION})"
    )]
    ZeroRevision,
    /// No start key.
    #[error("continue key is not valid: encoded start key empty (version {VERSION})")]
    EmptyStart,
    /// A start key that is not a clean path (upstream's defence against path traversal).
    #[error("continue key is not valid: {0}")]
    UncleanStart(String),
}

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

/// Go's `base64.CorruptInputError` for a decoding failure.
fn base64_error(e: base64::DecodeError) -> ContinueError {
    ContinueError::Base64(match e {
        base64::DecodeError::InvalidByte(offset, _)
        | base64::DecodeError::InvalidLastSymbol(offset, _) => offset,
        base64::DecodeError::InvalidLength(len) => len.saturating_sub(1),
        base64::DecodeError::InvalidPadding => 0,
    })
}

/// Whether `path` (starting with `/`) is what Go's `path.Clean` makes of it.
fn is_clean(path: &str) -> bool {
    path == "/"
        || path[1..]
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// The snapshot revision and the start key suffix (relative to the list prefix) in `token`,
/// or why the token is refused.
pub fn decode(token: &str) -> Result<(Revision, String), ContinueError> {
    let bytes = RAW_URL.decode(token).map_err(base64_error)?;
    let token: Token = serde_json::from_slice(&bytes).map_err(ContinueError::Json)?;
    if token.v != VERSION {
        return Err(ContinueError::Version(token.v));
    }
    if token.rv == 0 {
        return Err(ContinueError::ZeroRevision);
    }
    if token.start.is_empty() {
        return Err(ContinueError::EmptyStart);
    }
    // Upstream's defence against path traversal: the key, made absolute, must be clean.
    let key = if token.start.starts_with('/') {
        token.start.clone()
    } else {
        format!("/{}", token.start)
    };
    if !is_clean(&key) {
        return Err(ContinueError::UncleanStart(token.start));
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
            decode("not base64!").unwrap_err().to_string(),
            "continue key is not valid: illegal base64 data at input byte 3"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"x","rv":1,"start":"a"}"#))
                .unwrap_err()
                .to_string(),
            "continue key is not valid: server does not recognize this encoded version x"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#))
                .unwrap_err()
                .to_string(),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        );
        assert_eq!(
            decode(&raw(r#"{"v":"meta.k8s.io/v1","rv":1}"#))
                .unwrap_err()
                .to_string(),
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"
        );
        for bad in ["../a", "a/../b", "a//b", "a/", "/."] {
            let json = format!(r#"{{"v":"meta.k8s.io/v1","rv":1,"start":"{bad}"}}"#);
            assert_eq!(
                decode(&raw(&json)).unwrap_err().to_string(),
                format!("continue key is not valid: {bad}")
            );
        }
        assert!(matches!(decode(&raw("{")), Err(ContinueError::Json(_))));
    }
}

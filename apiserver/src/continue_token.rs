//! Continue tokens for paged lists, in kube-apiserver's format: base64url (no padding) of
//! `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::storage::Revision;

const VERSION: &str = "meta.k8s.io/v1";

#[derive(Serialize, Deserialize)]
struct Token {
    v: String,
    rv: Revision,
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
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("a token always serializes"))
}

/// The snapshot revision and start key suffix in `token`, or why it is not valid.
pub fn decode(token: &str) -> Result<(Revision, String), String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|e| format!("continue key is not valid: {e}"))?;
    let token: Token =
        serde_json::from_slice(&bytes).map_err(|e| format!("continue key is not valid: {e}"))?;
    if token.v != VERSION {
        return Err(format!(
            "continue key is not valid: incorrect encoded start resourceVersion (version {})",
            token.v
        ));
    }
    if token.rv <= 0 {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".to_owned());
    }
    if token.start.contains("..") || token.start.starts_with('/') {
        return Err(
            "continue key is not valid: the start key may not be a relative path".to_owned(),
        );
    }
    Ok((token.rv, token.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let t = encode(12, "b\u{0}");
        assert!(!t.contains('='));
        assert_eq!(decode(&t).unwrap(), (12, "b\u{0}".to_owned()));
        assert!(decode("not base64!").is_err());
        assert!(decode(&URL_SAFE_NO_PAD.encode(br#"{"v":"x","rv":1,"start":"a"}"#)).is_err());
        assert!(decode(&encode(0, "a")).is_err());
        assert!(decode(&encode(1, "../a")).is_err());
    }
}

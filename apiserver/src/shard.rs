//! Sharded list and watch (KEP-5866, behind `--feature-gates=ShardedListAndWatch=true`): the
//! `shardSelector` parameter of lists and watches, parsed and matched by the library
//! ([`kcel_stdlib::kubernetes::sharding`](mod@kcel_stdlib::kubernetes::sharding)), as
//! kube-apiserver's generic registry reads it.
//!
//! With the gate off the parameter is ignored (no filtering, no `shardInfo`), as upstream.
//! A selector that does not parse is a **400 BadRequest** with upstream's message
//! (`invalid shard selector: <parser message>`). This is a deliberate difference: upstream's
//! registry returns a plain error there, which its handlers answer with a 500 of unknown
//! reason, although the fault is the client's.

use std::collections::HashMap;

use kcel_stdlib::kubernetes::sharding::ShardSelector;

use crate::error::ApiError;
use crate::features::FeatureGates;

/// The query parameter.
pub const PARAM: &str = "shardSelector";

/// The shard selector of a list or watch request: `None` when the gate is off or the
/// parameter is absent or empty.
pub fn selector(
    params: &HashMap<String, String>,
    gates: FeatureGates,
) -> Result<Option<ShardSelector>, ApiError> {
    if !gates.sharded_list_and_watch {
        return Ok(None);
    }
    match params.get(PARAM).map(String::as_str) {
        None | Some("") => Ok(None),
        Some(text) => ShardSelector::parse(text)
            .map(Some)
            .map_err(|e| ApiError::bad_request(format!("invalid shard selector: {e}"))),
    }
}

pub use crate::storage::shard_fields::{ShardKeys, matches_stored};

/// `ListMeta.shardInfo` for a list served with `selector`.
pub fn shard_info(selector: &ShardSelector) -> serde_json::Value {
    serde_json::json!({ "selector": selector.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(selector: &str) -> HashMap<String, String> {
        HashMap::from([(PARAM.to_owned(), selector.to_owned())])
    }

    #[test]
    fn the_gate_decides_whether_the_parameter_counts() {
        let on = FeatureGates {
            sharded_list_and_watch: true,
        };
        let bad = params("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')");
        assert!(selector(&bad, FeatureGates::default()).unwrap().is_none());
        let e = selector(&bad, on).unwrap_err();
        assert_eq!((e.code, e.reason), (400, "BadRequest"));
        assert_eq!(
            e.message,
            "invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)"
        );
        assert!(selector(&params(""), on).unwrap().is_none());
        assert_eq!(
            selector(&params("  "), on).unwrap_err().message,
            "invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists"
        );
        let good =
            params("shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')");
        let s = selector(&good, on).unwrap().unwrap();
        // Stored bytes agree with the decoded object.
        for uid in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            let object = serde_json::json!({"kind": "ConfigMap", "metadata": {"name": "n", "uid": uid}, "data": {"k": "v"}});
            let bytes = serde_json::to_vec(&object).unwrap();
            assert_eq!(
                matches_stored(&s, &bytes),
                s.matches(object.as_object().unwrap()),
                "{uid}"
            );
        }
        assert!(matches_stored(&s, b"not json"));
        assert!(ShardKeys::of_stored(b"not json").matches(&s));
        // The kept hashes agree with the stored bytes and the decoded object, for both fields
        // and for objects without them.
        let by_ns = selector(
            &params(
                "shardRange(object.metadata.namespace,'0x8000000000000000','0x10000000000000000')",
            ),
            on,
        )
        .unwrap()
        .unwrap();
        for (i, meta) in [
            serde_json::json!({"name": "n", "uid": "u-1", "namespace": "default"}),
            serde_json::json!({"name": "n", "uid": "u-2", "namespace": "kube-system"}),
            serde_json::json!({"name": "n"}),
        ]
        .into_iter()
        .chain(
            (0..32)
                .map(|i| serde_json::json!({"uid": format!("u{i}"), "namespace": format!("n{i}")})),
        )
        .enumerate()
        {
            let object = serde_json::json!({"kind": "ConfigMap", "metadata": meta});
            let bytes = serde_json::to_vec(&object).unwrap();
            for sel in [&s, &by_ns] {
                let decoded = sel.matches(object.as_object().unwrap());
                assert_eq!(ShardKeys::of_stored(&bytes).matches(sel), decoded, "{i}");
                assert_eq!(matches_stored(sel, &bytes), decoded, "{i}");
            }
        }
        assert_eq!(
            shard_info(&s),
            serde_json::json!({"selector": "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"})
        );
    }
}

//! `--feature-gates`: kube-apiserver's `Key=bool,Key=bool` flag, for the gates this server
//! knows. Only `ShardedListAndWatch` (KEP-5866; alpha, off by default as upstream) exists.

/// The feature gates in effect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// `ShardedListAndWatch`: lists and watches honour `shardSelector`. Off: the parameter
    /// is ignored and no `shardInfo` is returned, as upstream.
    pub sharded_list_and_watch: bool,
}

/// Why `--feature-gates` is refused, with component-base's texts.
#[derive(Debug, thiserror::Error)]
pub enum FeatureGateError {
    /// A gate without `=value`.
    #[error("missing bool value for {0}")]
    MissingValue(String),
    /// A value that is not a Go boolean.
    #[error(
        "invalid value of {key}={value}, err: strconv.ParseBool: parsing {}: invalid syntax",
        kcel::library::standard::go_quote(.value)
    )]
    NotABool {
        /// The gate.
        key: String,
        /// The value given.
        value: String,
    },
    /// A gate this server does not know.
    #[error("unrecognized feature gate: {0}")]
    Unknown(String),
}

impl FeatureGates {
    /// Parses the flag's value, e.g. `ShardedListAndWatch=true`, with component-base's texts
    /// for an unknown gate or a value that is not a Go boolean.
    pub fn parse(text: &str) -> Result<FeatureGates, FeatureGateError> {
        let mut gates = FeatureGates::default();
        for pair in text.split(',') {
            let pair = pair.trim();
            if pair.is_empty() {
                continue;
            }
            let (key, value) = match pair.split_once('=') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => return Err(FeatureGateError::MissingValue(pair.to_string())),
            };
            let enabled = parse_go_bool(value).ok_or_else(|| FeatureGateError::NotABool {
                key: key.to_string(),
                value: value.to_string(),
            })?;
            match key {
                "ShardedListAndWatch" => gates.sharded_list_and_watch = enabled,
                other => return Err(FeatureGateError::Unknown(other.to_string())),
            }
        }
        Ok(gates)
    }
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kube_style_gates() {
        assert!(!FeatureGates::parse("").unwrap().sharded_list_and_watch);
        assert!(
            FeatureGates::parse("ShardedListAndWatch=true")
                .unwrap()
                .sharded_list_and_watch
        );
        assert!(
            !FeatureGates::parse("ShardedListAndWatch=true,ShardedListAndWatch=0")
                .unwrap()
                .sharded_list_and_watch
        );
        assert_eq!(
            FeatureGates::parse("Nope=true").unwrap_err().to_string(),
            "unrecognized feature gate: Nope"
        );
        assert_eq!(
            FeatureGates::parse("ShardedListAndWatch=yes")
                .unwrap_err()
                .to_string(),
            "invalid value of ShardedListAndWatch=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax"
        );
        assert_eq!(
            FeatureGates::parse("ShardedListAndWatch")
                .unwrap_err()
                .to_string(),
            "missing bool value for ShardedListAndWatch"
        );
    }
}

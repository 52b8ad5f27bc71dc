//! `--feature-gates`: kube-apiserver's `Key=bool,Key=bool` flag, for the gates this server
//! knows. Only `ShardedListAndWatch` (KEP-5866; alpha, off by default as upstream) exists.

/// The feature gates in effect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// `ShardedListAndWatch`: lists and watches honour `shardSelector`. Off: the parameter
    /// is ignored and no `shardInfo` is returned, as upstream.
    pub sharded_list_and_watch: bool,
}

impl FeatureGates {
    /// Parses the flag's value, e.g. `ShardedListAndWatch=true`, with component-base's texts
    /// for an unknown gate or a value that is not a Go boolean.
    pub fn parse(text: &str) -> Result<FeatureGates, String> {
        let mut gates = FeatureGates::default();
        for pair in text.split(',') {
            let pair = pair.trim();
            if pair.is_empty() {
                continue;
            }
            let (key, value) = match pair.split_once('=') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => return Err(format!("missing bool value for {pair}")),
            };
            let enabled = parse_go_bool(value).ok_or_else(|| {
                format!(
                    "invalid value of {key}={value}, err: strconv.ParseBool: parsing {}: invalid syntax",
                    kcel::library::standard::go_quote(value)
                )
            })?;
            match key {
                "ShardedListAndWatch" => gates.sharded_list_and_watch = enabled,
                other => return Err(format!("unrecognized feature gate: {other}")),
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
            FeatureGates::parse("Nope=true").unwrap_err(),
            "unrecognized feature gate: Nope"
        );
        assert_eq!(
            FeatureGates::parse("ShardedListAndWatch=yes").unwrap_err(),
            "invalid value of ShardedListAndWatch=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax"
        );
        assert_eq!(
            FeatureGates::parse("ShardedListAndWatch").unwrap_err(),
            "missing bool value for ShardedListAndWatch"
        );
    }
}

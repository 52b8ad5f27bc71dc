//! Size estimates from a schema for static cost estimation, rule cardinality, and the
//! estimated-cost limits with Kubernetes' messages.

use std::sync::Arc;

use super::decl_types::{DeclType, MAX_REQUEST_SIZE_BYTES};
use super::schema::Schema;
use kcel::library::{AstNode, SizeEstimate, SizeEstimator};

/// The estimated cost limit of one rule (after multiplying by its cardinality).
pub const PER_RULE_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// The estimated cost limit of all rules of a CRD together.
pub const PER_CRD_ESTIMATED_COST_LIMIT: u64 = 100_000_000;

/// Sizes of `self` paths (`["self", "spec", "items", "@items"]`) from the schema: every
/// node estimates to `[0, max_elements]`, scalars included (where that is `[0, 0]`).
#[derive(Clone, Debug)]
pub struct SchemaSizes {
    /// The declared type of the schema's root (`self`).
    pub root: Arc<DeclType>,
}

impl SizeEstimator for SchemaSizes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let (_, rest) = node.path.split_first()?;
        let mut t = &self.root;
        for step in rest {
            t = match step.as_str() {
                "@items" | "@values" => t.elem()?,
                "@keys" => {
                    return Some(SizeEstimate { min: 0, max: 0 });
                }
                name => &t.field(name)?.ty,
            };
        }
        Some(SizeEstimate {
            min: 0,
            max: t.max_elements,
        })
    }
}

/// How many times a rule at a node may run, given the `maxItems`/`maxProperties` factors of
/// its ancestors; `None` when an ancestor is unbounded.
pub fn child_cardinality(parent: Option<u64>, parent_schema: &Schema) -> Option<u64> {
    let parent = parent?;
    let factor = match parent_schema.type_.as_str() {
        "object" if parent_schema.additional_properties.is_some() => {
            parent_schema.max_properties?.max(0) as u64
        }
        "array" => parent_schema.max_items?.max(0) as u64,
        _ => 1,
    };
    Some(parent.saturating_mul(factor))
}

/// The cardinality assumed under an unbounded ancestor: as many values of this node as fit
/// in a request.
pub fn unbounded_cardinality(self_type: &DeclType) -> u64 {
    MAX_REQUEST_SIZE_BYTES / (self_type.min_serialized_size.saturating_add(1))
}

/// Kubernetes' message for an estimated cost over its limit.
pub fn cost_error_message(cost_name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{cost_name} exceeds budget by factor of {factor} (try simplifying the rule, or adding \
         maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_messages_format_the_factor_as_go_does() {
        assert!(
            cost_error_message("estimated rule cost", 1_000_000_000_000, 10_000_000)
                .starts_with("estimated rule cost exceeds budget by factor of more than 100x (")
        );
        assert!(
            cost_error_message("estimated rule cost", 25_000_000, 10_000_000)
                .contains("factor of 2.5x (")
        );
        assert!(
            cost_error_message("estimated rule cost", 12_000_000, 10_000_000)
                .contains("factor of 1.200000x (")
        );
    }

    #[test]
    fn cardinality_multiplies_bounded_ancestors() {
        let arr = Schema {
            type_: "array".into(),
            max_items: Some(10),
            ..Schema::default()
        };
        let obj = Schema {
            type_: "object".into(),
            ..Schema::default()
        };
        assert_eq!(child_cardinality(Some(3), &arr), Some(30));
        assert_eq!(child_cardinality(Some(3), &obj), Some(3));
        let unbounded = Schema {
            type_: "array".into(),
            ..Schema::default()
        };
        assert_eq!(child_cardinality(Some(3), &unbounded), None);
        assert_eq!(child_cardinality(None, &obj), None);
    }
}

//! Shared path prefixes: when several paths of a program start with the same selections
//! from the same input variable (`self.metadata.name` in `self.metadata.name.startsWith(x)
//! && self.metadata.name.endsWith(y)`), the value at the longest such prefix is looked up
//! once per evaluation, right after the inputs are
//! bound, and each path walks only its own tail from it. Input variables do not change
//! during an evaluation, so neither does the value at a prefix. Nothing else changes: a
//! path is charged as if walked from its variable, and a prefix that fails (or is `null`)
//! is not stored, so its paths are walked from the variable and fail where they would.

use std::collections::HashMap;
use std::sync::Arc;

use crate::eval::plan::{Field, Node, PathCache, PathNode, Slot};

/// How many selections sharing a prefix must save per evaluation to pay for walking it
/// up front and storing its value (measured on the benchmark workload: storing the value
/// at `self.spec` for four paths below it costs more than the three lookups it saves).
const MIN_SAVED_SELECTIONS: usize = 4;

/// Gives the paths of `root` that share a prefix with another path a [`PathCache`],
/// allocating one slot per shared prefix from `next_slot`; returns the prefixes to walk
/// (each as a path whose cache slot is where its value goes).
pub(crate) fn share_prefixes(
    root: &mut Node,
    inputs: &[Slot],
    next_slot: &mut Slot,
) -> Box<[PathNode]> {
    let mut uses: HashMap<(Slot, Vec<Arc<str>>), usize> = HashMap::new();
    visit_paths(root, &mut |p| {
        if inputs.contains(&p.slot) {
            for len in 1..=p.fields.len() {
                *uses.entry((p.slot, prefix(p, len))).or_default() += 1;
            }
        }
    });
    let mut slots: HashMap<(Slot, Vec<Arc<str>>), Slot> = HashMap::new();
    let mut prefixes = Vec::new();
    visit_paths(root, &mut |p| {
        if !inputs.contains(&p.slot) {
            return;
        }
        let shared = (1..=p.fields.len()).rev().find(|&len| {
            uses.get(&(p.slot, prefix(p, len)))
                .is_some_and(|&n| (n - 1) * len >= MIN_SAVED_SELECTIONS)
        });
        if let Some(len) = shared {
            let slot = *slots.entry((p.slot, prefix(p, len))).or_insert_with(|| {
                let s = *next_slot;
                *next_slot += 1;
                prefixes.push(PathNode {
                    slot: p.slot,
                    charged: false,
                    fields: p.fields[..len]
                        .iter()
                        .map(|(id, f)| (*id, Field::new(f.name.clone())))
                        .collect(),
                    cache: Some(PathCache {
                        slot: s,
                        len: len as u32,
                    }),
                });
                s
            });
            p.cache = Some(PathCache {
                slot,
                len: len as u32,
            });
        }
    });
    prefixes.into()
}

/// The names of the first `len` selections of a path.
fn prefix(p: &PathNode, len: usize) -> Vec<Arc<str>> {
    p.fields[..len]
        .iter()
        .map(|(_, f)| f.name.clone())
        .collect()
}

/// Calls `f` on every path node of the tree (block expressions, shared with their reads,
/// are left out).
fn visit_paths(node: &mut Node, f: &mut impl FnMut(&mut PathNode)) {
    if let Node::Path(p) = node {
        f(p);
    }
    node.for_each_child_mut(&mut |child| visit_paths(child, f));
}

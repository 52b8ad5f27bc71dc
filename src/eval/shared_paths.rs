//! Shared path prefixes: when several paths of a program start with the same selections
//! from the same input variable (`self.metadata.name` in `self.metadata.name.startsWith(x)
//! && self.metadata.name.endsWith(y)`), the value at the longest such prefix is looked up
//! once per evaluation, right after the inputs are bound, and each path walks only its own
//! tail from it. Input variables do not change during an evaluation, so neither does the
//! value at a prefix. Nothing else changes: a path is charged as if walked from its
//! variable, and a prefix that fails (or is `null`) is not stored, so its paths are walked
//! from the variable and fail where they would.

use std::sync::Arc;

use crate::eval::node::{Field, Node, PathCache, PathNode, Slot};

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
    // The paths from inputs, in visiting order: their variable and field names.
    let mut paths: Vec<(Slot, Vec<Arc<str>>)> = Vec::new();
    visit_paths(root, &mut |p| {
        if inputs.contains(&p.slot) {
            let names = p.fields.iter().map(|(_, f)| f.name.clone()).collect();
            paths.push((p.slot, names));
        }
    });
    // Per path: the length of its longest prefix worth sharing, if any.
    let shared: Vec<Option<usize>> = paths
        .iter()
        .map(|(slot, names)| {
            (1..=names.len()).rev().find(|&len| {
                let prefix = &names[..len];
                let uses = paths
                    .iter()
                    .filter(|(s, n)| s == slot && n.starts_with(prefix))
                    .count();
                (uses - 1) * len >= MIN_SAVED_SELECTIONS
            })
        })
        .collect();
    // One slot per distinct shared prefix, with the path that fills it.
    let mut prefixes: Vec<PathNode> = Vec::new();
    let mut next = 0;
    visit_paths(root, &mut |p| {
        if !inputs.contains(&p.slot) {
            return;
        }
        let index = next;
        next += 1;
        let Some(len) = shared[index] else { return };
        let names = &paths[index].1[..len];
        let known = prefixes.iter().find(|q| {
            q.slot == p.slot
                && q.fields.len() == len
                && q.fields.iter().zip(names).all(|((_, f), n)| f.name == *n)
        });
        let slot = match known.and_then(|q| q.cache) {
            Some(cache) => cache.slot,
            None => {
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
            }
        };
        p.cache = Some(PathCache {
            slot,
            len: len as u32,
        });
    });
    prefixes.into()
}

/// Calls `f` on every path node of the tree (block expressions, shared with their reads,
/// are left out).
fn visit_paths(node: &mut Node, f: &mut impl FnMut(&mut PathNode)) {
    if let Node::Path(p) = node {
        f(p);
    }
    node.for_each_child_mut(&mut |child| visit_paths(child, f));
}

//! Shared path prefixes: when several paths of a program start with the same selections
//! from the same input variable (`self.metadata.name` in `self.metadata.name.startsWith(x)
//! && self.metadata.name.endsWith(y)`), the value at the longest such prefix is looked up
//! once per evaluation, right after the inputs are bound, and each path walks only its own
//! tail from it. Input variables do not change during an evaluation, so neither does the
//! value at a prefix. Nothing else changes: a path is charged as if walked from its
//! variable, and a prefix that fails (or is `null`) is not stored, so its paths are walked
//! from the variable and fail where they would. There are two sets of prefixes, each
//! path with a cache in each ([`Sharing`]): one for frames of values and one, sharing
//! shorter prefixes too, for frames whose variables are a JSON activation's document.

use std::sync::Arc;

use crate::eval::node::{Field, Node, PathCache, PathNode, Slot};

/// Which frames a set of shared prefixes is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// Frames of values ([`PathNode::cache`]).
    Values,
    /// Frames whose variables are a JSON activation's document ([`PathNode::json_cache`]).
    Json,
}

impl Sharing {
    /// How many selections sharing a prefix must save per evaluation to pay for walking it
    /// up front and storing its value; `whole` when the prefix is a whole path. Over values
    /// (measured on the benchmark workload), storing the value at `self.spec` for four
    /// paths below it costs more than the three map lookups it saves. A selection in a JSON
    /// object costs several times a map lookup (a scan of the object's B-tree, where a map
    /// keeps a position hint), and an object of the document is stored without a reference
    /// count: two saved selections pay. A whole path usually ends on a scalar, which is
    /// converted to be stored (a string copied): as over values.
    fn min_saved_selections(self, whole: bool) -> usize {
        match self {
            Sharing::Json if !whole => 2,
            _ => 4,
        }
    }

    /// The cache of `path` this set fills.
    fn cache(self, path: &mut PathNode) -> &mut Option<PathCache> {
        match self {
            Sharing::Values => &mut path.cache,
            Sharing::Json => &mut path.json_cache,
        }
    }
}

/// The paths of `root` that start at one of `inputs`, in visiting order: their variable's
/// slot and their field names (the input to [`share_prefixes`], collected once for both
/// sets).
pub(crate) fn input_paths(root: &mut Node, inputs: &[Slot]) -> Vec<(Slot, Vec<Arc<str>>)> {
    let mut paths = Vec::new();
    visit_paths(root, &mut |p| {
        if inputs.contains(&p.slot) {
            let names = p.fields.iter().map(|(_, f)| f.name.clone()).collect();
            paths.push((p.slot, names));
        }
    });
    paths
}

/// Gives the paths of `root` that share a prefix with another path a [`PathCache`] (the
/// one `sharing` names), allocating one slot per shared prefix from `next_slot`; returns
/// the prefixes to walk (each as a path whose `cache` slot is where its value goes).
/// `paths` are the tree's [`input_paths`] from `inputs`.
pub(crate) fn share_prefixes(
    root: &mut Node,
    inputs: &[Slot],
    paths: &[(Slot, Vec<Arc<str>>)],
    next_slot: &mut Slot,
    sharing: Sharing,
) -> Box<[PathNode]> {
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
                (uses - 1) * len >= sharing.min_saved_selections(len == names.len())
            })
        })
        .collect();
    if shared.iter().all(Option::is_none) {
        return Box::default();
    }
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
                    json_cache: None,
                });
                s
            }
        };
        *sharing.cache(p) = Some(PathCache {
            slot,
            len: len as u32,
        });
    });
    if sharing == Sharing::Json {
        chain_prefixes(&mut prefixes);
    }
    prefixes.into()
}

/// Orders JSON prefixes shortest first and gives each whose start is another prefix that
/// one as its `json_cache`, so that it is walked on from that prefix's stored value rather
/// than from the variable again (`self.spec.template` then `.spec` from it).
fn chain_prefixes(prefixes: &mut [PathNode]) {
    prefixes.sort_by_key(|p| p.fields.len());
    for i in 0..prefixes.len() {
        let (shorter, rest) = prefixes.split_at_mut(i);
        let p = &mut rest[0];
        let base = shorter.iter().rev().find(|q| {
            q.slot == p.slot
                && q.fields.len() < p.fields.len()
                && q.fields
                    .iter()
                    .zip(&p.fields)
                    .all(|((_, a), (_, b))| a.name == b.name)
        });
        p.json_cache = base.and_then(|q| q.cache);
    }
}

/// Calls `f` on every path node of the tree (block expressions, shared with their reads,
/// are left out).
fn visit_paths(node: &mut Node, f: &mut impl FnMut(&mut PathNode)) {
    if let Node::Path(p) = node {
        f(p);
    }
    node.for_each_child_mut(&mut |child| visit_paths(child, f));
}

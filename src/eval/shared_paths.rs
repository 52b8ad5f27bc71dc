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

use crate::eval::node::{Field, Node, PathCache, PathNode, Slot};
use crate::syntax::ast::ExprId;

/// Which frames a set of shared prefixes is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sharing {
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
}

/// The prefixes shared by a tree's paths, found by [`share_prefixes`]: each set of
/// [`Sharing`] as the paths to walk (each as a path whose `cache` slot is where its value
/// goes), and the frame size of a JSON activation, whose prefixes' slots follow the others.
pub(crate) struct SharedPrefixes {
    /// For frames of values.
    pub values: Box<[PathNode]>,
    /// For frames whose variables are a JSON activation's document.
    pub json: Box<[PathNode]>,
    /// The slot count of a JSON activation's frame.
    pub json_slot_count: Slot,
}

/// A path of the tree from an input variable: its variable's slot and its selections.
type InputPath = (Slot, Vec<(ExprId, Field)>);

/// Gives the paths of `root` that start at one of `inputs` and share a prefix with another
/// such path a [`PathCache`] in each set where sharing it pays, allocating one slot per
/// shared prefix after `slot_count` (the JSON set's after the values' set's). The tree is
/// walked once to collect the paths and, only where something is shared, once to assign
/// their caches.
pub(crate) fn share_prefixes(
    root: &mut Node,
    inputs: &[Slot],
    slot_count: &mut Slot,
) -> SharedPrefixes {
    let mut paths: Vec<InputPath> = Vec::new();
    visit_paths(root, &mut |p| {
        if inputs.contains(&p.slot) {
            let fields = p.fields.iter().map(|(id, f)| (*id, f.copy())).collect();
            paths.push((p.slot, fields));
        }
    });
    let shares = Shares::count(&paths);
    let values_len = shares.prefix_lens(&paths, Sharing::Values);
    let json_len = shares.prefix_lens(&paths, Sharing::Json);
    if values_len.iter().chain(&json_len).all(Option::is_none) {
        return SharedPrefixes {
            values: Box::default(),
            json: Box::default(),
            json_slot_count: *slot_count,
        };
    }
    let (values, values_caches) = allocate(&paths, &values_len, slot_count);
    let mut json_slot_count = *slot_count;
    let (mut json, json_caches) = allocate(&paths, &json_len, &mut json_slot_count);
    chain_prefixes(&mut json);
    let mut next = 0;
    visit_paths(root, &mut |p| {
        if inputs.contains(&p.slot) {
            p.cache = values_caches[next];
            p.json_cache = json_caches[next];
            next += 1;
        }
    });
    SharedPrefixes {
        values: values.into(),
        json: json.into(),
        json_slot_count,
    }
}

/// For each path and each of its prefixes, how many other paths start with that prefix.
struct Shares {
    /// Where each path's counts start in `counts` (one per prefix length, shortest first).
    starts: Vec<usize>,
    counts: Vec<u32>,
}

impl Shares {
    fn count(paths: &[InputPath]) -> Shares {
        let mut starts = Vec::with_capacity(paths.len());
        let mut total = 0;
        for (_, fields) in paths {
            starts.push(total);
            total += fields.len();
        }
        let mut counts = vec![0u32; total];
        for (i, (slot, fields)) in paths.iter().enumerate() {
            for (j, (other_slot, other)) in paths.iter().enumerate().skip(i + 1) {
                if slot != other_slot {
                    continue;
                }
                let common = fields
                    .iter()
                    .zip(other)
                    .take_while(|((_, a), (_, b))| a.same_name(b))
                    .count();
                for k in 0..common {
                    counts[starts[i] + k] += 1;
                    counts[starts[j] + k] += 1;
                }
            }
        }
        Shares { starts, counts }
    }

    /// Per path: the length of its longest prefix worth sharing in `sharing`'s set, if any.
    fn prefix_lens(&self, paths: &[InputPath], sharing: Sharing) -> Vec<Option<usize>> {
        paths
            .iter()
            .zip(&self.starts)
            .map(|((_, fields), &start)| {
                (1..=fields.len()).rev().find(|&len| {
                    let others = self.counts[start + len - 1] as usize;
                    others * len >= sharing.min_saved_selections(len == fields.len())
                })
            })
            .collect()
    }
}

/// One prefix path per distinct shared prefix of `lens` (a slot for each from
/// `next_slot`), and each path's cache (in the order of `paths`).
fn allocate(
    paths: &[InputPath],
    lens: &[Option<usize>],
    next_slot: &mut Slot,
) -> (Vec<PathNode>, Vec<Option<PathCache>>) {
    let mut prefixes: Vec<PathNode> = Vec::new();
    let caches = paths
        .iter()
        .zip(lens)
        .map(|((slot, fields), len)| {
            let len = (*len)?;
            let prefix = &fields[..len];
            let known = prefixes.iter().find(|q| {
                q.slot == *slot
                    && q.fields.len() == len
                    && q.fields
                        .iter()
                        .zip(prefix)
                        .all(|((_, a), (_, b))| a.same_name(b))
            });
            let cache_slot = match known.and_then(|q| q.cache) {
                Some(cache) => cache.slot,
                None => {
                    let s = *next_slot;
                    *next_slot += 1;
                    prefixes.push(PathNode {
                        slot: *slot,
                        charged: false,
                        fields: prefix.iter().map(|(id, f)| (*id, f.copy())).collect(),
                        cache: Some(PathCache {
                            slot: s,
                            len: len as u32,
                        }),
                        json_cache: None,
                    });
                    s
                }
            };
            Some(PathCache {
                slot: cache_slot,
                len: len as u32,
            })
        })
        .collect();
    (prefixes, caches)
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

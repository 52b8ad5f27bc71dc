//! YAML documents read straight into objects, in one pass over libyaml's events, for the
//! texts manifests almost always are: no anchors, aliases, merge keys, complex keys, keys
//! given twice or values sigs.k8s.io/yaml cannot convert. For those texts go-yaml v2's
//! decoding (`yaml.rs`: a node tree of the whole document, then `interface{}` values, then
//! sigs.k8s.io/yaml's conversion to JSON, `tree::to_object`) comes to the same objects, but
//! holds the document two or three times over (issue 28: a 57 MB object); here only the
//! objects being built are held, as the JSON reader holds them.
//!
//! Anything else — and every error, syntax errors included — answers `None`, and the caller
//! reads the text again with the full decoder, which gives go-yaml's results and texts
//! (errors in their order: the whole document parsed before any is decoded).

use serde_json::Value as Json;

use super::libyaml::{Event, Parser};
use super::tree::{MAX_DEPTH, Node, plain_key, to_object};
use super::yaml::FLOW_SCAN_DEPTH;
use super::yaml::decode_scalar;

/// A collection being read.
enum Open {
    Seq(Vec<Json>),
    Map {
        map: serde_json::Map<String, Json>,
        /// The key whose value comes next (`None`: a key comes next).
        key: Option<String>,
    },
}

impl Open {
    /// Whether the next node is a map key.
    fn wants_key(&self) -> bool {
        matches!(self, Open::Map { key: None, .. })
    }
}

/// Whether a collection opened inside `open` is read here: within [`MAX_DEPTH`], and, for a
/// flow collection, within the depth past which the full decoder counts the rest of the
/// flow text before parsing it (libyaml's scanner is quadratic in the flow depth).
fn holds(open: &[Open], flow: bool) -> bool {
    open.len() < MAX_DEPTH && !(flow && open.len() >= FLOW_SCAN_DEPTH)
}

/// Every document of `text` as sigs.k8s.io/yaml converts it (an empty document is `null`),
/// or `None` when the text is not plain (see the module's doc) and needs the full decoder.
pub(super) fn read_plain(text: &str) -> Option<Vec<Json>> {
    let mut parser = Parser::new(text.as_bytes());
    let mut documents = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut root: Option<Json> = None;
    loop {
        let (event, _) = parser.next_event().ok()?;
        let wants_key = open.last().is_some_and(Open::wants_key);
        let value = match event {
            Event::StreamStart => continue,
            Event::StreamEnd => break,
            Event::DocumentStart if open.is_empty() && root.is_none() => continue,
            Event::DocumentEnd if open.is_empty() => {
                documents.push(root.take().unwrap_or(Json::Null));
                continue;
            }
            Event::Scalar {
                anchor: None,
                tag,
                value,
                plain_implicit,
            } => {
                // go-yaml's merge key is a plain `<<` or one tagged `!!merge`; any `<<` key
                // goes to the full decoder.
                if wants_key && value == "<<" {
                    return None;
                }
                let node = decode_scalar(tag.as_deref(), &value, plain_implicit).ok()?;
                if wants_key {
                    let key = match node {
                        Node::Str(s) => s,
                        other => plain_key(&other)?,
                    };
                    let Some(Open::Map { map, key: next }) = open.last_mut() else {
                        return None;
                    };
                    // Keys given twice (or two keys of one JSON text, such as `1` and
                    // `"1"`) go to the full decoder, which reports or resolves them.
                    if map.contains_key(&key) {
                        return None;
                    }
                    *next = Some(key);
                    continue;
                }
                to_object(node).ok()?
            }
            Event::SequenceStart { anchor: None, flow } if !wants_key && holds(&open, flow) => {
                open.push(Open::Seq(Vec::new()));
                continue;
            }
            Event::MappingStart { anchor: None, flow } if !wants_key && holds(&open, flow) => {
                open.push(Open::Map {
                    map: serde_json::Map::new(),
                    key: None,
                });
                continue;
            }
            Event::SequenceEnd => match open.pop() {
                Some(Open::Seq(items)) => Json::Array(items),
                _ => return None,
            },
            Event::MappingEnd => match open.pop() {
                Some(Open::Map { map, key: None }) => Json::Object(map),
                _ => return None,
            },
            // Anchors, aliases, complex keys, deep nesting, events out of place.
            _ => return None,
        };
        match open.last_mut() {
            None if root.is_none() => root = Some(value),
            None => return None,
            Some(Open::Seq(items)) => items.push(value),
            Some(Open::Map { map, key }) => {
                map.insert(key.take()?, value);
            }
        }
    }
    Some(documents)
}

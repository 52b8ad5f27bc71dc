//! The document as evanphx/json-patch v4 holds it while a patch applies (`lazyNode`,
//! `partialDoc`, `partialArray`): what the patched object held is decoded (its scalars'
//! texts are those apimachinery's serializer wrote, [`scalar_text`]); what an operation put
//! keeps the bytes it came with (a `lazyNode`'s `raw`) until a later operation steps into
//! it, so a `test` compares them as written and a `copy` re-encodes them as
//! encoding/json's `Marshal` does (compacted, HTML characters escaped).

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::raw::{self, Split};
use super::value::{PatchValue, scalar_text};
use crate::kubernetes::crd::go_json_quote;

/// One value of the document.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Node {
    /// A nil `*lazyNode`: a `null` of a decoded object or list, or what an operation
    /// without `value` puts.
    Nil,
    /// A decoded object (`partialDoc`); `None`: the nil map that the text `null` decodes
    /// into, which reads as empty and panics when written to.
    Object(Option<BTreeMap<String, Node>>),
    /// A decoded list (`partialArray`).
    Array(Vec<Node>),
    /// A scalar of the patched object (its text: [`scalar_text`]).
    Scalar(Json),
    /// An operation's value, not decoded: its JSON text as the library got it.
    Raw(Vec<u8>),
    /// An operation's nil value (a patch body's `"value": null`): a `lazyNode` whose `raw`
    /// is a nil pointer.
    NilRaw,
}

impl Node {
    /// The patched object's `value` (`json.Unmarshal` into a `partialDoc`).
    pub(super) fn stored(value: &Json) -> Node {
        match value {
            Json::Null => Node::Nil,
            Json::Object(members) => Node::Object(Some(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), Node::stored(v)))
                    .collect(),
            )),
            Json::Array(items) => Node::Array(items.iter().map(Node::stored).collect()),
            scalar => Node::Scalar(scalar.clone()),
        }
    }

    /// What an operation puts (`Operation.value`): no `value` is a nil node.
    pub(super) fn put(value: Option<&PatchValue>) -> Node {
        match value {
            None => Node::Nil,
            Some(PatchValue::Nil) => Node::NilRaw,
            Some(PatchValue::Text(text)) => Node::Raw(text.clone()),
        }
    }

    /// A member or item of a text being decoded: `null` decodes into a nil pointer.
    fn member(text: &[u8]) -> Node {
        if raw::is_null(text) {
            Node::Nil
        } else {
            Node::Raw(text.to_vec())
        }
    }

    /// `text` decoded one level (`tryDoc`, then `tryAry`): an object (`null` is a nil
    /// map), a list, or `None` for a scalar.
    pub(super) fn decode_text(text: &[u8]) -> Option<Node> {
        match raw::split(text) {
            // A key given twice: the last one counts, as in a Go map.
            Split::Object(pairs) => Some(Node::Object(Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k, Node::member(v)))
                    .collect(),
            ))),
            Split::Null => Some(Node::Object(None)),
            Split::Array(items) => Some(Node::Array(items.into_iter().map(Node::member).collect())),
            Split::Scalar => None,
        }
    }

    /// `findObject` stepping into this node (`intoAry` when its text starts with `[`, else
    /// `intoDoc`): whether it is now a decoded object or list.
    pub(super) fn open(&mut self) -> bool {
        if let Node::Raw(text) = self
            && let Some(decoded) = Node::decode_text(text)
        {
            *self = decoded;
        }
        matches!(self, Node::Object(_) | Node::Array(_))
    }

    /// The document as the library marshals it and the caller decodes it again.
    pub(super) fn into_json(self) -> Json {
        match self {
            Node::Nil | Node::NilRaw | Node::Object(None) => Json::Null,
            Node::Object(Some(members)) => Json::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k, v.into_json()))
                    .collect(),
            ),
            Node::Array(items) => Json::Array(items.into_iter().map(Node::into_json).collect()),
            Node::Scalar(value) => value,
            Node::Raw(text) => crate::documents::read_body(&text, false)
                .map(|(v, _)| v)
                .unwrap_or(Json::Null),
        }
    }

    /// `deepCopy`: the node marshalled (`lazyNode.MarshalJSON` through `json.Marshal`) and
    /// kept as that text; a nil node stays nil.
    pub(super) fn deep_copy(&self) -> Node {
        if *self == Node::Nil {
            return Node::Nil;
        }
        let mut text = Vec::new();
        self.marshal(&mut text);
        Node::Raw(text)
    }

    /// The node's text as encoding/json's `Marshal` writes it: map keys sorted, a raw text
    /// compacted with HTML characters escaped, nil as `null`.
    fn marshal(&self, out: &mut Vec<u8>) {
        match self {
            Node::Nil | Node::NilRaw | Node::Object(None) => out.extend_from_slice(b"null"),
            Node::Object(Some(members)) => {
                out.push(b'{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(go_json_quote(key).as_bytes());
                    out.push(b':');
                    value.marshal(out);
                }
                out.push(b'}');
            }
            Node::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.marshal(out);
                }
                out.push(b']');
            }
            Node::Scalar(value) => out.extend_from_slice(scalar_text(value).as_bytes()),
            Node::Raw(text) => out.extend_from_slice(&raw::compact_escaped(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // encoding/json's `Marshal` of a `json.RawMessage` compacts it and escapes `<`, `>`,
    // `&`, U+2028 and U+2029 in its strings (`compact` with `escape` true); maps sort keys.
    #[test]
    fn copies_marshal_as_encoding_json() {
        let text = |node: &Node| match node.deep_copy() {
            Node::Raw(t) => String::from_utf8(t).unwrap(),
            other => format!("{other:?}"),
        };
        let raw = Node::Raw(br#"{ "b" : "a<b" , "a": [1.0, null] }"#.to_vec());
        assert_eq!(text(&raw), r#"{"b":"a\u003cb","a":[1.0,null]}"#);
        let stored = Node::stored(&serde_json::json!({"z": 1.0, "a": null, "m": "&"}));
        assert_eq!(text(&stored), r#"{"a":null,"m":"\u0026","z":1}"#);
        assert_eq!(Node::Nil.deep_copy(), Node::Nil);
        assert_eq!(text(&Node::NilRaw), "null");
    }

    #[test]
    fn opening_decodes_one_level() {
        let mut node = Node::Raw(br#"{"a": null, "b": {"c": 1}, "a": 2}"#.to_vec());
        assert!(node.open());
        let expected: BTreeMap<String, Node> = [
            ("a".to_owned(), Node::Raw(b"2".to_vec())),
            ("b".to_owned(), Node::Raw(br#"{"c": 1}"#.to_vec())),
        ]
        .into();
        assert_eq!(node, Node::Object(Some(expected)));
        let mut null = Node::Raw(b"null".to_vec());
        assert!(null.open());
        assert_eq!(null, Node::Object(None));
        assert!(!Node::Raw(b"\"x\"".to_vec()).open());
        assert!(!Node::NilRaw.open());
    }
}

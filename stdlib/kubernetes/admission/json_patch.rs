//! Applying a JSON patch (RFC 6902) to an object as the API server's mutating admission
//! policies do (evanphx/json-patch v4.13.0, `gopkg.in/evanphx/json-patch.v4`, which
//! kubernetes 1.37's `staging/src/k8s.io/apiserver/go.mod` requires): its error texts, a missing
//! map key readable as absent (so `replace` of an unset field sets it), negative list
//! indices counted from the end, and a failed `test` leaving the object unchanged. The API
//! server's patch handler applies JSON patches with the same library, so `kcel-apiserver`
//! applies them here too (where a failed `test` fails the request).
//!
//! While a patch applies, the document is held as the library holds it
//! (`json_patch/node.rs`): what the object held decoded, what an operation put as the bytes
//! it came with, until a later operation steps into it. The result is the document as the
//! library marshals it and the caller decodes it again: a value put as `1.0` reads back as
//! the number `1.0` decodes to.
//!
//! `test` judges as the library's `lazyNode.equal` does: objects member by member, arrays
//! item by item, and everything else by its compacted JSON text. Both callers give the
//! library the object as apimachinery's JSON serializer encodes it (encoding/json's
//! `Encoder`: `<`, `>`, `&`, U+2028 and U+2029 escaped, numbers as Go writes an int64 or
//! float64), which is the stored side's text here ([`scalar_text`]); a value an earlier
//! operation of the patch put is compared as it was written; the operation's side is its
//! value's text as the library got it ([`PatchValue`]): the request body's bytes for the
//! patch handler, the policy value's marshalled bytes for a mutating policy. So `1.0` is
//! not a stored `1`, `"a<b"` is not the stored `"a\u003cb"`, and a `null` member of a patch
//! body (which encoding/json decodes into a nil pointer) differs from a policy's `null`
//! (the text `null`, which the library reads as an empty object or array).
//!
//! Where the library panics (a nil pointer dereferenced, a nil map written to), the
//! application ends with [`PatchError::Panic`]. Where v4.13.0 differs from v4.12.0 (which
//! Kubernetes used before 1.35), this follows v4.13.0: stepping through a value put as a
//! body's `null` finds no path (v4.12.0 panicked), a `test` without `value` of an absent
//! path passes (v4.12.0 panicked), and a `replace` of the whole document with a value that
//! is no object or list fails (v4.12.0 wrapped a nil error into success).

use serde_json::Value as Json;

pub use super::mutation_errors::{ContainerError, OperationError, PatchError};
mod node;
pub mod raw;
pub mod value;

pub use value::{PatchValue, scalar_text};

use node::Node;
use raw::Split;

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// `add`, `remove`, `replace`, `move`, `copy` or `test`.
    pub op: String,
    /// A JSON pointer.
    pub path: String,
    /// The source pointer of `move` and `copy` (empty when not given).
    pub from: String,
    /// The value (`None`: not given).
    pub value: Option<PatchValue>,
}

/// `decodePatchKey`: `~1` is `/`, `~0` is `~`.
fn decode_key(part: &str) -> String {
    part.replace("~1", "/").replace("~0", "~")
}

/// The container of the pointer's last segment and that segment (`findObject`), or
/// `Ok(None)` when the path is not a pointer into the document or its parent does not
/// exist, as when it steps into a value put as a body's `null` (a nil `raw`, which v4.13.0
/// checks for).
fn find<'d>(doc: &'d mut Node, path: &str) -> Result<Option<(&'d mut Node, String)>, PatchError> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return Ok(None);
    }
    let mut at = doc;
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        let next = match at {
            Node::Object(Some(m)) => m.get_mut(&key),
            Node::Array(items) => match list_index(&key, items.len()) {
                Ok(Some(i)) => items.get_mut(i),
                _ => None,
            },
            _ => None,
        };
        let Some(next) = next.filter(|n| **n != Node::NilRaw) else {
            return Ok(None);
        };
        if !next.open() {
            return Ok(None);
        }
        at = next;
    }
    Ok(Some((at, decode_key(split[split.len() - 1]))))
}

/// A list index (negative counts from the end): `Err` with the parse error's text when
/// the key is not an integer, `Ok(None)` when out of range for `len` items.
fn list_index(key: &str, len: usize) -> Result<Option<usize>, ContainerError> {
    let i: i64 = key
        .parse()
        .map_err(|_| ContainerError::NotAnInteger(key.to_owned()))?;
    let i = if i < 0 { i + len as i64 } else { i };
    Ok((i >= 0 && (i as usize) < len).then_some(i as usize))
}

fn invalid_index(key: &str) -> ContainerError {
    ContainerError::InvalidIndex(key.to_owned())
}

/// `container.get`: a map's missing key is absent (no error); a list's index must exist.
fn get<'c>(container: &'c Node, key: &str) -> Result<Option<&'c Node>, ContainerError> {
    match container {
        Node::Object(m) => Ok(m.as_ref().and_then(|m| m.get(key))),
        Node::Array(items) => match list_index(key, items.len())? {
            Some(i) => Ok(Some(&items[i])),
            None => Err(invalid_index(key)),
        },
        _ => Err(ContainerError::Missing),
    }
}

/// Writing a key of a nil map (the text `null` read as an object) is Go's runtime panic.
fn writable(container: &Node) -> Result<(), PatchError> {
    match container {
        Node::Object(None) => Err(PatchError::Panic),
        _ => Ok(()),
    }
}

/// `container.add`: a map's key set; in a list, inserted before the index (`-`: appended).
fn add(container: &mut Node, key: &str, value: Node) -> Result<(), ContainerError> {
    match container {
        Node::Object(Some(m)) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Node::Array(items) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            let i: i64 = key
                .parse()
                .map_err(|_| ContainerError::NotAnArrayIndex(key.to_owned()))?;
            let len = items.len() as i64 + 1;
            let i = if i < 0 { i + len } else { i };
            if i < 0 || i >= len {
                return Err(invalid_index(key));
            }
            items.insert(i as usize, value);
            Ok(())
        }
        _ => Err(ContainerError::Missing),
    }
}

/// `container.set`: a map's key set; a list's existing item replaced.
fn set(container: &mut Node, key: &str, value: Node) -> Result<(), ContainerError> {
    match container {
        Node::Object(Some(m)) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Node::Array(items) => match list_index(key, items.len())? {
            Some(i) => {
                items[i] = value;
                Ok(())
            }
            None => Err(invalid_index(key)),
        },
        _ => Err(ContainerError::Missing),
    }
}

/// `container.remove`.
fn remove(container: &mut Node, key: &str) -> Result<Node, ContainerError> {
    let nonexistent = || ContainerError::NonexistentKey(key.to_owned());
    match container {
        Node::Object(m) => m
            .as_mut()
            .and_then(|m| m.remove(key))
            .ok_or_else(nonexistent),
        Node::Array(items) => match list_index(key, items.len())? {
            Some(i) => Ok(items.remove(i)),
            None => Err(invalid_index(key)),
        },
        _ => Err(ContainerError::Missing),
    }
}

/// `lazyNode.equal`: the document's node `ours` against an operation's node of text
/// `theirs` (`None`: a nil `RawMessage`). Objects match member by member, a null member
/// only a null member; arrays item by item; anything else by its compacted text. A text
/// put by an earlier operation is read as written (the text `null` as an empty object, as
/// `json.Unmarshal` of `null` into a map succeeds); so is `theirs` (where `null` reads as
/// an empty object or array). A null item in either of two compared arrays, or a nil node
/// compared, is a nil `*lazyNode` the library calls a method of: `Err(Panic)`. Go visits
/// an object's members in random order, so where one member differs and another would
/// panic, upstream's answer varies; here the members are visited in key order.
fn equal(ours: &Node, theirs: Option<&[u8]>) -> Result<bool, PatchError> {
    match ours {
        Node::Object(members) => {
            let theirs: std::collections::HashMap<String, &[u8]> = match theirs.map(raw::split) {
                Some(Split::Null) => Default::default(),
                // A key given twice: the last one counts, as in a Go map.
                Some(Split::Object(pairs)) => pairs.into_iter().collect(),
                _ => return Ok(false),
            };
            let members = members.iter().flatten();
            if members.clone().count() != theirs.len() {
                return Ok(false);
            }
            for (key, value) in members {
                let Some(other) = theirs.get(key) else {
                    return Ok(false);
                };
                let same = match (value == &Node::Nil, raw::is_null(other)) {
                    (true, true) => true,
                    (true, false) | (false, true) => false,
                    (false, false) => equal(value, Some(other))?,
                };
                if !same {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Node::Array(items) => {
            let theirs = match theirs.map(raw::split) {
                Some(Split::Null) => Vec::new(),
                Some(Split::Array(items)) => items,
                _ => return Ok(false),
            };
            if items.len() != theirs.len() {
                return Ok(false);
            }
            for (item, other) in items.iter().zip(theirs) {
                if *item == Node::Nil || raw::is_null(other) {
                    return Err(PatchError::Panic);
                }
                if !equal(item, Some(other))? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Node::Raw(text) => match Node::decode_text(text) {
            Some(decoded) => equal(&decoded, theirs),
            None => Ok(theirs.is_some_and(|t| raw::compact(t) == raw::compact(text))),
        },
        Node::Scalar(scalar) => {
            Ok(theirs.is_some_and(|t| raw::compact(t) == scalar_text(scalar).as_bytes()))
        }
        Node::NilRaw => Ok(theirs.is_none()),
        Node::Nil => Err(PatchError::Panic),
    }
}

/// `Patch.test`: whether the value at `path` (the whole document for the empty path) is
/// the operation's `value`. A missing or null value is a [`PatchValue::Nil`]'s, or no
/// `value` at all; a present value never matches no `value`. The whole document against no
/// `value` reads a nil pointer (`Err(Panic)`).
fn test(doc: &mut Node, path: &str, value: Option<&PatchValue>) -> Result<(), PatchError> {
    let holds = if path.is_empty() {
        match value {
            None => return Err(PatchError::Panic),
            Some(value) => equal(doc, value.text())?,
        }
    } else {
        let Some((con, key)) = find(doc, path)? else {
            return Err(failed(OperationError::TestMissingPath(path.to_owned())));
        };
        let found = get(con, &key).map_err(at("test", "path", path))?;
        match (found.filter(|n| **n != Node::Nil), value) {
            (None, None) => true,
            (None, Some(value)) => *value == PatchValue::Nil,
            (Some(_), None) => false,
            (Some(found), Some(value)) => equal(found, value.text())?,
        }
    };
    if holds {
        Ok(())
    } else {
        Err(PatchError::TestFailed(path.to_owned()))
    }
}

/// `Patch.replace` of the whole document (the empty path): an object or list value
/// becomes the document (the text `null`: an empty object that panics when written to);
/// with no `value` the library reads a nil pointer (`Err(Panic)`); any other value (a
/// body's `null`, a scalar) fails.
fn replace_document(doc: &mut Node, value: Option<&PatchValue>) -> Result<(), PatchError> {
    let decoded = match value {
        None => return Err(PatchError::Panic),
        Some(PatchValue::Nil) => None,
        Some(PatchValue::Text(text)) => Node::decode_text(text),
    };
    *doc = decoded.ok_or(failed(OperationError::ReplaceDocument))?;
    Ok(())
}

/// Applies `operations` to `doc` in order.
pub fn apply(doc: &Json, operations: &[Operation]) -> Result<Json, PatchError> {
    let mut doc = Node::stored(doc);
    for op in operations {
        apply_one(&mut doc, op)?;
    }
    Ok(doc.into_json())
}

fn failed(error: OperationError) -> PatchError {
    PatchError::Failed(error)
}

/// The error of `op` at `at` (its path or from) from its container.
fn at(op: &'static str, what: &'static str, at: &str) -> impl FnOnce(ContainerError) -> PatchError {
    move |error| {
        failed(OperationError::At {
            op,
            what,
            at: at.to_owned(),
            error,
        })
    }
}

fn apply_one(doc: &mut Node, op: &Operation) -> Result<(), PatchError> {
    let path = op.path.as_str();
    let value = || Node::put(op.value.as_ref());
    let missing_path = |op: &'static str| {
        failed(OperationError::MissingPathQuoted {
            op,
            path: path.to_owned(),
        })
    };
    match op.op.as_str() {
        "add" => {
            let Some((con, key)) = find(doc, path)? else {
                return Err(missing_path("add"));
            };
            writable(con)?;
            add(con, &key, value()).map_err(at("add", "path", path))
        }
        "remove" => {
            let Some((con, key)) = find(doc, path)? else {
                return Err(missing_path("remove"));
            };
            remove(con, &key)
                .map(drop)
                .map_err(at("remove", "path", path))
        }
        "replace" if path.is_empty() => replace_document(doc, op.value.as_ref()),
        "replace" => {
            let Some((con, key)) = find(doc, path)? else {
                return Err(failed(OperationError::ReplaceMissingPath(path.to_owned())));
            };
            if get(con, &key).is_err() {
                return Err(failed(OperationError::ReplaceMissingKey(path.to_owned())));
            }
            writable(con)?;
            // The library names its `set` failure as a remove's.
            set(con, &key, value()).map_err(at("remove", "path", path))
        }
        "move" | "copy" => {
            let verb: &'static str = if op.op == "move" { "move" } else { "copy" };
            let from = op.from.as_str();
            let Some((con, key)) = find(doc, from)? else {
                return Err(failed(OperationError::MissingFrom {
                    op: verb,
                    from: from.to_owned(),
                }));
            };
            let moved = if verb == "move" {
                let found = get(con, &key).map_err(at("move", "path", &key))?;
                if found.is_none() {
                    return Err(at("move", "path", &key)(ContainerError::NonexistentKey(
                        key.clone(),
                    )));
                }
                remove(con, &key).map_err(at("move", "path", &key))?
            } else {
                get(con, &key)
                    .map_err(at("copy", "from", from))?
                    .map_or(Node::Nil, Node::deep_copy)
            };
            let Some((con, key)) = find(doc, path)? else {
                return Err(failed(OperationError::MissingDestination {
                    op: verb,
                    path: path.to_owned(),
                }));
            };
            writable(con)?;
            add(con, &key, moved).map_err(|e| {
                if verb == "move" {
                    at("move", "path", &key)(e)
                } else {
                    failed(OperationError::CopyAdd(e))
                }
            })
        }
        "test" => test(doc, path, op.value.as_ref()),
        other => Err(failed(OperationError::UnexpectedKind(other.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An operation whose value's text is the value as encoding/json writes it.
    fn op(op: &str, path: &str, value: Option<Json>) -> Operation {
        let value = value.map(|v| PatchValue::from_text(&v.to_string()));
        Operation {
            op: op.into(),
            path: path.into(),
            from: String::new(),
            value,
        }
    }

    // Cases of kubernetes `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
    // mutating/patch/json_patch_test.go` (`TestJSONPatch`), on JSON documents.
    #[test]
    fn upstream_json_patch_cases() {
        let deployment = json!({"metadata": {"labels": {"y": "1"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a"}]}}}});
        // replace of an unset map key sets it
        let out = apply(
            &deployment,
            &[op("replace", "/metadata/labels/x", Some(json!("2")))],
        );
        assert_eq!(
            out.unwrap()["metadata"]["labels"],
            json!({"x": "2", "y": "1"})
        );
        // add to the end and to the start of a list
        let out = apply(
            &deployment,
            &[
                op(
                    "add",
                    "/spec/template/spec/containers/-",
                    Some(json!({"name": "x"})),
                ),
                op(
                    "add",
                    "/spec/template/spec/containers/0",
                    Some(json!({"name": "w"})),
                ),
            ],
        )
        .unwrap();
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "w"}, {"name": "a"}, {"name": "x"}])
        );
        // `-` names no item to replace
        let out = apply(
            &deployment,
            &[op(
                "replace",
                "/spec/template/spec/containers/-",
                Some(json!({"name": "x"})),
            )],
        );
        assert_eq!(
            out.unwrap_err().to_string(),
            "replace operation does not apply: doc is missing key: \
             /spec/template/spec/containers/-: missing value"
        );
        // a failed test
        let out = apply(
            &deployment,
            &[op("test", "/spec/replicas", Some(json!(100)))],
        );
        assert!(matches!(out, Err(PatchError::TestFailed(_))));
        // A policy's double 1.0 marshals as `1` (see `patch_types::patch_value`).
        let one = Operation {
            value: Some(PatchValue::from_text("1")),
            ..op("test", "/spec/replicas", None)
        };
        assert!(apply(&deployment, &[one]).is_ok());
        // move and copy
        let mut moved = op("move", "/metadata/labels/z", None);
        moved.from = "/metadata/labels/y".into();
        let out = apply(&deployment, &[moved]).unwrap();
        assert_eq!(out["metadata"]["labels"], json!({"z": "1"}));
        let mut copied = op("copy", "/spec/template/spec/containers/-", None);
        copied.from = "/spec/template/spec/containers/0".into();
        let out = apply(&deployment, &[copied]).unwrap();
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a"}, {"name": "a"}])
        );
        // a missing parent
        let out = apply(&deployment, &[op("add", "/status/x", Some(json!(1)))]);
        assert_eq!(
            out.unwrap_err().to_string(),
            "add operation does not apply: doc is missing path: \"/status/x\": missing value"
        );
        // escaped keys
        let out = apply(
            &deployment,
            &[op("add", "/metadata/labels/k8s.io~1x~0y", Some(json!("t")))],
        );
        assert_eq!(out.unwrap()["metadata"]["labels"]["k8s.io/x~y"], json!("t"));
        let out = apply(&deployment, &[op("remove", "/metadata/labels/nope", None)]);
        assert_eq!(
            out.unwrap_err().to_string(),
            "error in remove for path: '/metadata/labels/nope': Unable to remove \
             nonexistent key: nope: missing value"
        );
    }

    // The texts of the other failures (the typed errors of `mutation_errors.rs` render
    // evanphx/json-patch v4's `errors.Wrapf` chains: operation, path, container error).
    #[test]
    fn failure_texts() {
        let doc = json!({"metadata": {"labels": {"y": "1"}},
            "spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}});
        let text = |o: Operation| apply(&doc, &[o]).unwrap_err().to_string();
        let with_from = |verb: &str, path: &str, from: &str| {
            let mut o = op(verb, path, None);
            o.from = from.into();
            o
        };
        let containers = "/spec/template/spec/containers";
        let cases = [
            (
                with_from("move", "/metadata/labels/z", "/metadata/labels/nope"),
                "error in move for path: 'nope': Unable to remove nonexistent key: nope: \
                 missing value"
                    .to_owned(),
            ),
            (
                with_from("copy", "/metadata/labels/z", &format!("{containers}/5")),
                format!(
                    "error in copy for from: '{containers}/5': Unable to access invalid \
                     index: 5: invalid index referenced"
                ),
            ),
            (
                with_from("move", "/status/x", "/metadata/labels/y"),
                "move operation does not apply: doc is missing destination path: /status/x: \
                 missing value"
                    .to_owned(),
            ),
            (
                op("add", &format!("{containers}/x"), Some(json!({}))),
                format!(
                    "error in add for path: '{containers}/x': value was not a proper array \
                     index: 'x': strconv.Atoi: parsing \"x\": invalid syntax"
                ),
            ),
            (
                op("replace", &format!("{containers}/9"), Some(json!({}))),
                format!(
                    "replace operation does not apply: doc is missing key: {containers}/9: \
                     missing value"
                ),
            ),
            (
                op("test", &format!("{containers}/y"), None),
                format!(
                    "error in test for path: '{containers}/y': strconv.Atoi: parsing \"y\": \
                     invalid syntax"
                ),
            ),
            (
                op("test", "/status/a", None),
                "test operation does not apply: is missing path: /status/a: missing value"
                    .to_owned(),
            ),
            (op("frob", "/a", None), "Unexpected kind: frob".to_owned()),
        ];
        for (operation, expected) in cases {
            assert_eq!(text(operation), expected);
        }
    }

    /// A `test` whose value is written as `text` (a patch body's bytes), on `doc`: passed,
    /// failed, or the library's panic.
    fn test_text(doc: &Json, path: &str, text: Option<&str>) -> Result<(), PatchError> {
        let test = Operation {
            value: text.map(|t| match t {
                "<nil>" => PatchValue::Nil,
                t => PatchValue::from_text(t),
            }),
            ..op("test", path, None)
        };
        apply(doc, &[test]).map(drop)
    }

    // evanphx/json-patch v4.13.0 `patch_test.go` `TestAllTest` (`TestCases`): a body's
    // `"value": null` is Go's nil (`<nil>` here); no `value` (`None`) of an absent path
    // passes, as v4.13.0's added case `{ "baz": [] }` / `test /foo` has it.
    #[test]
    fn upstream_test_cases() {
        let passes = [
            (
                json!({"baz": "qux", "foo": ["a", 2, "c"]}),
                "/baz",
                Some(r#""qux""#),
            ),
            (
                json!({"baz": "qux", "foo": ["a", 2, "c"]}),
                "/foo/1",
                Some("2"),
            ),
            (json!({"baz": "qux"}), "/foo", Some("<nil>")),
            (json!({"foo": null}), "/foo", Some("<nil>")),
            (json!({"baz/foo": "qux"}), "/baz~1foo", Some(r#""qux""#)),
            (json!({"baz": []}), "/foo", None),
        ];
        for (doc, path, text) in passes {
            assert_eq!(test_text(&doc, path, text), Ok(()), "{doc} {path}");
        }
        let fails = [
            (json!({"baz": "qux"}), "/baz", Some(r#""bar""#)),
            (
                json!({"baz": "qux", "foo": ["a", 2, "c"]}),
                "/foo/1",
                Some(r#""c""#),
            ),
            (json!({"baz": "qux"}), "/foo", Some("42")),
            (json!({"foo": {}}), "/foo", Some("<nil>")),
            (json!({"foo": []}), "/foo", Some("<nil>")),
            (json!({"foo": []}), "/foo", None),
        ];
        for (doc, path, text) in fails {
            assert_eq!(
                test_text(&doc, path, text).unwrap_err().to_string(),
                format!("testing value {path} failed: test failed"),
                "{doc}"
            );
        }
        // `TestAllCases`: the empty path tests the whole document.
        let doc = json!({"id": "0", "parentID": "0"});
        let whole = r#"{ "parentID" : "0", "id": "0" }"#;
        assert_eq!(test_text(&doc, "", Some(whole)), Ok(()));
        assert!(test_text(&doc, "", Some(r#"{"id": "0"}"#)).is_err());
    }

    // `TestEquality` (`EqualityCases`), the first text stored (as kube-apiserver encodes
    // it), the second the operation's.
    #[test]
    fn upstream_equality_cases() {
        let cases = [
            (
                json!({"foo": "bar"}),
                r#"{"foo": "bar", "baz": "qux"}"#,
                false,
            ),
            (
                json!({"foo": "bar", "baz": "qux"}),
                "{\n \"baz\": \"qux\",\t\"foo\": \"bar\"}",
                true,
            ),
            (json!({"foo": null}), r#"{"foo": "bar"}"#, false),
            (json!({"foo": "bar"}), r#"{"foo": null}"#, false),
            (json!({"foo": null}), r#"{"foo": null}"#, true),
            (
                json!(["foo", "bar", "baz"]),
                r#"["bar", "baz", "foo"]"#,
                false,
            ),
            (
                json!(["foo", "bar", "baz"]),
                r#"["foo", "bar", "baz"]"#,
                true,
            ),
            // `NonStringTypesTrue` compares two texts of `7.0`; a stored 7.0 is encoded `7`.
            (
                json!({"int": 6, "bool": true, "float": 7.5, "string": "s", "null": null}),
                r#"{"int": 6, "bool": true, "float": 7.5, "string": "s", "null": null}"#,
                true,
            ),
            (json!({"foo": ["an", "array"]}), r#"{"foo": null}"#, false),
            (json!({"foo": "x"}), r#"{"foo": 6}"#, false),
        ];
        for (stored, text, expected) in cases {
            let doc = json!({"at": stored});
            assert_eq!(
                test_text(&doc, "/at", Some(text)).is_ok(),
                expected,
                "{stored} {text}"
            );
        }
    }

    // Scalars compare as texts: the stored side as apimachinery's JSON serializer writes it
    // (encoding/json: HTML characters escaped, numbers as Go's int64 or float64), the
    // operation's as written.
    #[test]
    fn scalars_compare_by_text() {
        let doc = json!({"n": 1, "f": 1.0, "big": 1e21, "tiny": 1e-7, "s": "a<b&c>",
            "e": "é", "slash": "a/b", "nested": {"k": [1, "x"], "m": {"v": 2.5}}});
        let passes = [
            ("/n", "1"),
            ("/f", "1"),
            ("/big", "1e+21"),
            ("/tiny", "1e-7"),
            ("/s", r#""a\u003cb\u0026c\u003e""#),
            ("/e", r#""é""#),
            ("/slash", r#""a/b""#),
            ("/nested", r#"{"m": {"v": 2.5}, "k": [ 1, "x" ]}"#),
        ];
        for (path, text) in passes {
            assert_eq!(test_text(&doc, path, Some(text)), Ok(()), "{path} {text}");
        }
        let fails = [
            ("/n", "1.0"),
            ("/n", "1e0"),
            ("/f", "1.0"),
            ("/big", "1e21"),
            ("/tiny", "1e-07"),
            ("/s", r#""a<b&c>""#),
            ("/e", r#""\u00e9""#),
            ("/slash", r#""a\/b""#),
            ("/nested", r#"{"m": {"v": 2.50}, "k": [1, "x"]}"#),
            ("/nested", r#"{"m": {"v": 2.5}, "k": [1.0, "x"]}"#),
            ("/n", r#""1""#),
        ];
        for (path, text) in fails {
            assert_eq!(
                test_text(&doc, path, Some(text)),
                Err(PatchError::TestFailed(path.to_owned())),
                "{path} {text}"
            );
        }
    }

    // `null` and missing values: a body's `null` (Go's nil) matches only a missing or null
    // value, and so does no `value` (v4.13.0's `op.value() == nil` check); a policy's `null`
    // (the text `null`) reads as an empty object or array; no `value` against the whole
    // document, or a null item in compared arrays, panics.
    #[test]
    fn null_and_missing_values() {
        let doc = json!({"o": {}, "a": [], "z": null, "s": "x", "l": [1, null], "m": {"k": null}});
        let cases = [
            ("/missing", Some("<nil>"), Ok(())),
            ("/z", Some("<nil>"), Ok(())),
            (
                "/missing",
                Some("null"),
                Err(PatchError::TestFailed("/missing".into())),
            ),
            ("/z", Some("null"), Err(PatchError::TestFailed("/z".into()))),
            ("/o", Some("null"), Ok(())),
            ("/a", Some("null"), Ok(())),
            ("/s", Some("null"), Err(PatchError::TestFailed("/s".into()))),
            (
                "/s",
                Some("<nil>"),
                Err(PatchError::TestFailed("/s".into())),
            ),
            ("/o", Some("[]"), Err(PatchError::TestFailed("/o".into()))),
            ("/a", Some("{}"), Err(PatchError::TestFailed("/a".into()))),
            ("/m", Some(r#"{"k": null}"#), Ok(())),
            (
                "/m",
                Some(r#"{"k": {}}"#),
                Err(PatchError::TestFailed("/m".into())),
            ),
            ("/missing", None, Ok(())),
            ("/z", None, Ok(())),
            ("/s", None, Err(PatchError::TestFailed("/s".into()))),
            ("", None, Err(PatchError::Panic)),
            ("/l", Some("[1, null]"), Err(PatchError::Panic)),
            ("/l", Some("[1, 2]"), Err(PatchError::Panic)),
            (
                "/l",
                Some("[2, null]"),
                Err(PatchError::TestFailed("/l".into())),
            ),
            ("/l", Some("[1]"), Err(PatchError::TestFailed("/l".into()))),
            ("/l/1", Some("<nil>"), Ok(())),
        ];
        for (path, text, expected) in cases {
            assert_eq!(test_text(&doc, path, text), expected, "{path} {text:?}");
        }
    }

    /// The operations of a patch body, each `(op, path, value text)` (`None`: no value;
    /// `<nil>`: a body's `null`).
    fn ops(list: &[(&str, &str, Option<&str>)]) -> Vec<Operation> {
        list.iter()
            .map(|(o, path, text)| Operation {
                value: text.map(|t| match t {
                    "<nil>" => PatchValue::Nil,
                    t => PatchValue::from_text(t),
                }),
                ..op(o, path, None)
            })
            .collect()
    }

    // evanphx/json-patch v4.13.0 `Patch.replace`: the empty path replaces the whole
    // document with an object or list value (`tryDoc`, `tryAry`; `patch_test.go`
    // `TestAllCases` replaces one object by another after a `test` of the whole document);
    // any other value fails, wrapping a nil error (`fmt.Errorf` writes `%!w(<nil>)`); no
    // value is a nil node whose `which` is read (a panic).
    #[test]
    fn replace_of_the_whole_document() {
        let doc = json!({"id": "0", "parentID": "0"});
        let whole = r#"{"id": "7", "originalID": "bar", "parentID": "0"}"#;
        let out = apply(
            &doc,
            &ops(&[
                ("test", "", Some(r#"{"parentID": "0", "id": "0"}"#)),
                ("replace", "", Some(whole)),
            ]),
        );
        assert_eq!(
            out,
            Ok(json!({"id": "7", "originalID": "bar", "parentID": "0"}))
        );
        // A list becomes the document; later operations work on it.
        let out = apply(
            &doc,
            &ops(&[
                ("replace", "", Some("[1, \"a\"]")),
                ("add", "/-", Some("true")),
                ("test", "", Some("[1, \"a\", true]")),
            ]),
        );
        assert_eq!(out, Ok(json!([1, "a", true])));
        for scalar in ["\"qux\"", "7", "<nil>"] {
            let out = apply(&doc, &ops(&[("replace", "", Some(scalar))]));
            assert_eq!(
                out.unwrap_err().to_string(),
                "replace operation value must be object or array: %!w(<nil>)",
                "{scalar}"
            );
        }
        let out = apply(&doc, &ops(&[("replace", "", None)]));
        assert_eq!(out, Err(PatchError::Panic));
        // A policy's `null` (the text): a nil map, which reads as empty and panics when
        // written to; it marshals as `null`.
        assert_eq!(
            apply(&doc, &ops(&[("replace", "", Some("null"))])),
            Ok(Json::Null)
        );
        let out = apply(
            &doc,
            &ops(&[("replace", "", Some("null")), ("test", "", Some("{}"))]),
        );
        assert_eq!(out, Ok(Json::Null));
        let out = apply(
            &doc,
            &ops(&[("replace", "", Some("null")), ("add", "/a", Some("1"))]),
        );
        assert_eq!(out, Err(PatchError::Panic));
    }

    // evanphx/json-patch v4.13.0: `add` and `replace` put `Operation.value()`, a `lazyNode`
    // of the operation's raw bytes, which `lazyNode.equal` compares as written (compacted)
    // and `findObject` decodes one level when a later path steps into it; `copy` puts
    // `deepCopy`, the node marshalled by encoding/json (compacted, HTML characters
    // escaped, map keys sorted); a body's `null` (a nil `RawMessage`) is a node whose raw
    // text is a nil pointer, where `findObject` finds no path.
    #[test]
    fn values_put_by_the_patch_compare_as_written() {
        let doc = json!({"a": {}});
        let failed = |path: &str| Err(PatchError::TestFailed(path.to_owned()));
        let failed_op = PatchError::Failed;
        let cases = [
            (
                vec![("add", "/a/x", Some("1.0")), ("test", "/a/x", Some("1.0"))],
                Ok(()),
            ),
            (
                vec![("add", "/a/x", Some("1.0")), ("test", "/a/x", Some("1"))],
                failed("/a/x"),
            ),
            (
                vec![
                    ("add", "/a/s", Some("\"a<b\"")),
                    ("test", "/a/s", Some("\"a<b\"")),
                ],
                Ok(()),
            ),
            (
                vec![
                    ("add", "/a/s", Some("\"a<b\"")),
                    ("test", "/a/s", Some("\"a\\u003cb\"")),
                ],
                failed("/a/s"),
            ),
            (
                vec![
                    ("replace", "/a", Some(r#"{"k": [1.0, "x"], "n": null}"#)),
                    ("test", "/a", Some(r#"{"n": null, "k": [1.0, "x"]}"#)),
                    ("test", "/a/k/0", Some("1.0")),
                    ("test", "/a/n", Some("<nil>")),
                ],
                Ok(()),
            ),
            // A copy is re-encoded: HTML characters escaped, numbers as written.
            (
                vec![
                    ("add", "/a/s", Some(r#"{"v": "a<b", "n": 1.0}"#)),
                    ("copy", "/a/c", None),
                    ("test", "/a/c", Some(r#"{"v": "a\u003cb", "n": 1.0}"#)),
                ],
                Ok(()),
            ),
            (
                vec![
                    ("add", "/a/s", Some(r#""a<b""#)),
                    ("copy", "/a/c", None),
                    ("test", "/a/c", Some(r#""a<b""#)),
                ],
                failed("/a/c"),
            ),
            // The text `null` put is an empty object to `test`, and a nil map to write to.
            (
                vec![("add", "/a/z", Some("null")), ("test", "/a/z", Some("{}"))],
                Ok(()),
            ),
            (
                vec![("add", "/a/z", Some("null")), ("add", "/a/z/k", Some("1"))],
                Err(PatchError::Panic),
            ),
            // A body's `null`: tests equal to `null` only; stepping into it finds no path
            // (`findObject` checks for a nil `raw`).
            (
                vec![
                    ("add", "/a/z", Some("<nil>")),
                    ("test", "/a/z", Some("<nil>")),
                ],
                Ok(()),
            ),
            (
                vec![
                    ("add", "/a/z", Some("<nil>")),
                    ("test", "/a/z", Some("null")),
                ],
                failed("/a/z"),
            ),
            (
                vec![("add", "/a/z", Some("<nil>")), ("add", "/a/z/k", Some("1"))],
                Err(failed_op(OperationError::MissingPathQuoted {
                    op: "add",
                    path: "/a/z/k".into(),
                })),
            ),
        ];
        for (list, expected) in cases {
            let mut operations = ops(&list);
            for o in operations.iter_mut().filter(|o| o.op == "copy") {
                o.from = "/a/s".into();
            }
            assert_eq!(apply(&doc, &operations).map(drop), expected, "{list:?}");
        }
        // What was put reads back as its text decodes.
        let out = apply(
            &doc,
            &ops(&[
                ("add", "/a/x", Some(" 1.0 ")),
                ("add", "/a/y", Some("[1, {\"b\": null}]")),
            ]),
        );
        assert_eq!(out, Ok(json!({"a": {"x": 1.0, "y": [1, {"b": null}]}})));
    }
}

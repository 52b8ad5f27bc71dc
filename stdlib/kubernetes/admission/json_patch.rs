//! Applying a JSON patch (RFC 6902) to an object as the API server's mutating admission
//! policies do (evanphx/json-patch v4, `gopkg.in/evanphx/json-patch.v4`): its error texts,
//! a missing map key readable as absent (so `replace` of an unset field sets it), negative
//! list indices counted from the end, and a failed `test` leaving the object unchanged.
//! The API server's patch handler applies JSON patches with the same library, so
//! `kcel-apiserver` applies them here too (where a failed `test` fails the request).

use serde_json::Value as Json;

pub use super::mutation_errors::{ContainerError, OperationError, PatchError};

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// `add`, `remove`, `replace`, `move`, `copy` or `test`.
    pub op: String,
    /// A JSON pointer.
    pub path: String,
    /// The source pointer of `move` and `copy` (empty when not given).
    pub from: String,
    /// The value (`None`: not given, taken as `null`).
    pub value: Option<Json>,
}

/// `decodePatchKey`: `~1` is `/`, `~0` is `~`.
fn decode_key(part: &str) -> String {
    part.replace("~1", "/").replace("~0", "~")
}

/// The container of the pointer's last segment and that segment (`findObject`), or `None`
/// when the path is not a pointer into the document or its parent does not exist.
fn find<'d>(doc: &'d mut Json, path: &str) -> Option<(&'d mut Json, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let mut at = doc;
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        let next = match at {
            Json::Object(m) => m.get_mut(&key)?,
            Json::Array(items) => {
                let i = list_index(&key, items.len()).ok()??;
                items.get_mut(i)?
            }
            _ => return None,
        };
        if !matches!(next, Json::Object(_) | Json::Array(_)) {
            return None;
        }
        at = next;
    }
    Some((at, decode_key(split[split.len() - 1])))
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
fn get(container: &Json, key: &str) -> Result<Option<Json>, ContainerError> {
    match container {
        Json::Object(m) => Ok(m.get(key).cloned()),
        Json::Array(items) => match list_index(key, items.len())? {
            Some(i) => Ok(Some(items[i].clone())),
            None => Err(invalid_index(key)),
        },
        _ => Err(ContainerError::Missing),
    }
}

/// `container.add`: a map's key set; in a list, inserted before the index (`-`: appended).
fn add(container: &mut Json, key: &str, value: Json) -> Result<(), ContainerError> {
    match container {
        Json::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Json::Array(items) => {
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
fn set(container: &mut Json, key: &str, value: Json) -> Result<(), ContainerError> {
    match container {
        Json::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Json::Array(items) => match list_index(key, items.len())? {
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
fn remove(container: &mut Json, key: &str) -> Result<Json, ContainerError> {
    match container {
        Json::Object(m) => m
            .remove(key)
            .ok_or_else(|| ContainerError::NonexistentKey(key.to_owned())),
        Json::Array(items) => match list_index(key, items.len())? {
            Some(i) => Ok(items.remove(i)),
            None => Err(invalid_index(key)),
        },
        _ => Err(ContainerError::Missing),
    }
}

/// JSON equality as the library compares decoded values (numbers as float64).
fn equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Applies `operations` to `doc` in order.
pub fn apply(doc: &Json, operations: &[Operation]) -> Result<Json, PatchError> {
    let mut doc = doc.clone();
    for op in operations {
        apply_one(&mut doc, op)?;
    }
    Ok(doc)
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

fn apply_one(doc: &mut Json, op: &Operation) -> Result<(), PatchError> {
    let path = op.path.as_str();
    let value = || op.value.clone().unwrap_or(Json::Null);
    let missing_path = |op: &'static str| {
        failed(OperationError::MissingPathQuoted {
            op,
            path: path.to_owned(),
        })
    };
    match op.op.as_str() {
        "add" => {
            let Some((con, key)) = find(doc, path) else {
                return Err(missing_path("add"));
            };
            add(con, &key, value()).map_err(at("add", "path", path))
        }
        "remove" => {
            let Some((con, key)) = find(doc, path) else {
                return Err(missing_path("remove"));
            };
            remove(con, &key)
                .map(drop)
                .map_err(at("remove", "path", path))
        }
        "replace" => {
            let Some((con, key)) = find(doc, path) else {
                return Err(failed(OperationError::ReplaceMissingPath(path.to_owned())));
            };
            if get(con, &key).is_err() {
                return Err(failed(OperationError::ReplaceMissingKey(path.to_owned())));
            }
            // The library names its `set` failure as a remove's.
            set(con, &key, value()).map_err(at("remove", "path", path))
        }
        "move" | "copy" => {
            let verb: &'static str = if op.op == "move" { "move" } else { "copy" };
            let from = op.from.as_str();
            let Some((con, key)) = find(doc, from) else {
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
                    .unwrap_or(Json::Null)
            };
            let Some((con, key)) = find(doc, path) else {
                return Err(failed(OperationError::MissingDestination {
                    op: verb,
                    path: path.to_owned(),
                }));
            };
            add(con, &key, moved).map_err(|e| {
                if verb == "move" {
                    at("move", "path", &key)(e)
                } else {
                    failed(OperationError::CopyAdd(e))
                }
            })
        }
        "test" => {
            let Some((con, key)) = find(doc, path) else {
                return Err(failed(OperationError::TestMissingPath(path.to_owned())));
            };
            let found = get(con, &key).map_err(at("test", "path", path))?;
            let holds = match (&found, &op.value) {
                (None | Some(Json::Null), None | Some(Json::Null)) => true,
                (Some(v), Some(w)) => equal(v, w),
                _ => false,
            };
            if holds {
                Ok(())
            } else {
                Err(PatchError::TestFailed(path.to_owned()))
            }
        }
        other => Err(failed(OperationError::UnexpectedKind(other.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(op: &str, path: &str, value: Option<Json>) -> Operation {
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
        let out = apply(
            &deployment,
            &[op("test", "/spec/replicas", Some(json!(1.0)))],
        );
        assert!(out.is_ok());
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
}

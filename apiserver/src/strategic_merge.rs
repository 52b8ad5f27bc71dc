//! Strategic merge patch as kube-apiserver applies it: apimachinery's `strategicpatch`
//! (`StrategicMergeMapPatch`, merging parallel lists and dropping unmatched nulls) over the
//! live object, the fields' patch strategies and merge keys read from the kind's OpenAPI
//! schema (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`: the extensions
//! generated from the Go struct tags upstream reads).
//!
//! The directives: `$patch` (`replace` or `delete` on a map; `delete` or `replace` in a list
//! of maps), `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>`.
//! The order of merged lists follows upstream's normalisation: the patch's items in the
//! patch's (or `$setElementOrder`'s) order, interleaved with the live object's other items in
//! their live order. A map or list the object does not have yet is taken from the patch with
//! its `$patch` items removed and nulls dropped; other keys starting with `$` are kept, as
//! upstream keeps them (the typed decoding then drops them as unknown fields).
//!
//! Errors carry upstream's texts, values rendered as Go's `%v` renders a decoded
//! `interface{}` (`map[$patch:merge name:a]`); [`StrategicMergeError::status`] gives the
//! answer kube-apiserver's patch handler gives for each (`interpretStrategicMergePatchError`).

use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::openapi::Schema;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Why a strategic merge patch did not apply, in apimachinery's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategicMergeError {
    /// A `$deleteFromPrimitiveList` key without `/<list>`.
    #[error("invalid patch format of primitive list")]
    BadPrimitiveList,
    /// `$retainKeys` that is not a list, or a patched key it does not name.
    #[error("invalid patch format of retainKeys")]
    BadRetainKeys,
    /// A `$setElementOrder` key without `/<list>`, or its value not a list.
    #[error("invalid patch format of setElementOrder list")]
    BadSetElementOrder,
    /// A list of lists under a merge strategy.
    #[error("lists of lists are not supported")]
    ListOfLists,
    /// A `$patch` value this place does not take (Go's `%s` of it, the map's `%v`).
    #[error("unknown patch type: {directive} in map: {map}")]
    BadPatchType {
        /// The directive's value.
        directive: String,
        /// The map holding it.
        map: String,
    },
    /// An item of a merged list without the list's merge key.
    #[error("map: {map} does not contain declared merge key: {key}")]
    NoMergeKey {
        /// The item.
        map: String,
        /// The merge key.
        key: String,
    },
    /// A value of another Go type than the merge needs.
    #[error("expected a {expected}, but received a {actual}")]
    BadArgType {
        /// The Go type needed.
        expected: &'static str,
        /// The Go type found (`%!s(<nil>)` for null).
        actual: &'static str,
    },
    /// `$patch: merge` in a list.
    #[error("merging lists cannot yet be specified in the patch")]
    MergeDirectiveInList,
    /// A list's items of different Go types (Go's `%v` of the lists).
    #[error("list element types are not identical: {0}")]
    MixedElements(String),
    /// A `$setElementOrder` list over empty lists.
    #[error("no elements in any of the given slices")]
    NoElements,
    /// An item of a list of maps that is not a map (its index).
    #[error("value for key {0} is not a map")]
    NotAMap(usize),
    /// Patch items in another order than `$setElementOrder` gives.
    #[error("The order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}\n")]
    OrderMismatch {
        /// The patch's list (`%v`).
        patch: String,
        /// The `$setElementOrder` list (`%v`).
        order: String,
    },
    /// A list of maps under a merge strategy without a merge key.
    #[error("cannot merge lists without merge key for struct")]
    NoMergeKeyDeclared,
}

impl StrategicMergeError {
    /// The answer kube-apiserver gives: 400 for the malformed directives, 422 with the
    /// generic text for lists of lists, and for everything else the error as it is — not a
    /// Status, so a 500 without reason carrying the text.
    pub fn status(&self) -> ApiError {
        use StrategicMergeError::*;
        match self {
            BadPrimitiveList | BadRetainKeys | BadSetElementOrder => ApiError::bad_request(self),
            ListOfLists => ApiError::patch_not_applied(),
            _ => ApiError::unknown(self.to_string()),
        }
    }
}

type Result<T> = std::result::Result<T, StrategicMergeError>;

/// Applies a strategic merge patch to an object, with the kind's schema if known (without
/// one every list is replaced, as for a field without a merge strategy).
pub fn apply(
    original: Map<String, Value>,
    patch: Map<String, Value>,
    schema: Option<Schema>,
) -> Result<Map<String, Value>> {
    merge_map(original, patch, schema)
}

/// The Go type of a decoded JSON value (`reflect.TypeOf`), as kube-apiserver decodes
/// patches and converts objects: integers as `int64`, other numbers as `float64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoType {
    Nil,
    Bool,
    Int,
    Float,
    String,
    Map,
    Slice,
}

impl GoType {
    fn of(value: &Value) -> GoType {
        match value {
            Value::Null => GoType::Nil,
            Value::Bool(_) => GoType::Bool,
            Value::Number(n) if n.is_i64() => GoType::Int,
            Value::Number(_) => GoType::Float,
            Value::String(_) => GoType::String,
            Value::Object(_) => GoType::Map,
            Value::Array(_) => GoType::Slice,
        }
    }

    /// `%s` of the `reflect.Type`.
    fn name(self) -> &'static str {
        match self {
            GoType::Nil => "%!s(<nil>)",
            GoType::Bool => "bool",
            GoType::Int => "int64",
            GoType::Float => "float64",
            GoType::String => "string",
            GoType::Map => MAP_TYPE,
            GoType::Slice => SLICE_TYPE,
        }
    }
}

const MAP_TYPE: &str = "map[string]interface {}";
const SLICE_TYPE: &str = "[]interface {}";

fn bad_arg(expected: &'static str, actual: &Value) -> StrategicMergeError {
    StrategicMergeError::BadArgType {
        expected,
        actual: GoType::of(actual).name(),
    }
}

/// Go's `%v` of a decoded JSON value: maps as `map[k:v ...]` with sorted keys, slices as
/// `[a b]`, floats as `%g`, null as `<nil>`.
fn go_v(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => kcel::library::standard::format_double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_v).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(map) => go_v_map(map),
    }
}

fn go_v_map(map: &Map<String, Value>) -> String {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    let entries: Vec<String> = keys
        .into_iter()
        .map(|k| format!("{k}:{}", go_v(&map[k])))
        .collect();
    format!("map[{}]", entries.join(" "))
}

/// Go's `%s` of a decoded JSON value (`%!s(int64=1)` for what is not a string).
fn go_s(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "%!s(<nil>)".to_owned(),
        other => format!("%!s({}={})", GoType::of(other).name(), go_v(other)),
    }
}

fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> StrategicMergeError {
    StrategicMergeError::BadPatchType {
        directive: go_s(directive),
        map: go_v_map(map),
    }
}

fn no_merge_key(map: &Map<String, Value>, key: &str) -> StrategicMergeError {
    StrategicMergeError::NoMergeKey {
        map: go_v_map(map),
        key: key.to_owned(),
    }
}

/// A field's patch strategy other than `retainKeys` (`merge`, `replace` or none).
fn strategy(field: Option<Schema>) -> &'static str {
    match field {
        Some(f) if f.patch_strategy_has("merge") => "merge",
        Some(f) if f.patch_strategy_has("replace") => "replace",
        _ => "",
    }
}

fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    schema: Option<Schema>,
) -> Result<Map<String, Value>> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        return match directive.as_str() {
            Some("replace") => {
                patch.remove(DIRECTIVE);
                Ok(patch)
            }
            Some("delete") => Ok(Map::new()),
            _ => Err(bad_patch_type(directive, &patch)),
        };
    }
    apply_retain_keys(&mut original, &mut patch)?;
    merge_ordered_lists(&mut original, &mut patch, schema)?;
    for (key, patch_value) in patch {
        let (key, delete_list) = match key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            Some(rest) => match rest.strip_prefix('/') {
                Some(list) => (list.to_owned(), true),
                None => return Err(StrategicMergeError::BadPrimitiveList),
            },
            None => (key, false),
        };
        if patch_value.is_null() {
            original.remove(&key);
            continue;
        }
        let Some(current) = original.remove(&key) else {
            if !delete_list {
                insert_from_patch(&mut original, key, patch_value);
            }
            continue;
        };
        if GoType::of(&current) != GoType::of(&patch_value) {
            if delete_list {
                original.insert(key, current);
            } else {
                insert_from_patch(&mut original, key, patch_value);
            }
            continue;
        }
        let field = schema.and_then(|s| s.field(&key));
        let merged = match (current, patch_value) {
            (Value::Object(current), Value::Object(p)) => {
                if strategy(field) == "replace" {
                    Value::Object(p)
                } else {
                    Value::Object(merge_map(current, p, field)?)
                }
            }
            (Value::Array(current), Value::Array(p)) => {
                if strategy(field) == "merge" || delete_list {
                    let merge_key = field.and_then(|f| f.merge_key()).unwrap_or("");
                    let items = field.and_then(|f| f.items());
                    Value::Array(merge_list(current, p, items, merge_key, delete_list)?)
                } else {
                    Value::Array(p)
                }
            }
            (_, p) => match remove_directives(p) {
                Some(v) => v,
                None => continue,
            },
        };
        original.insert(key, merged);
    }
    Ok(original)
}

/// A patch value for a key the object does not have (or has with another type): nulls
/// dropped, maps holding `$patch` removed.
fn insert_from_patch(original: &mut Map<String, Value>, key: String, mut value: Value) {
    discard_nulls(&mut value);
    if let Some(v) = remove_directives(value) {
        original.insert(key, v);
    }
}

fn discard_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(discard_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// A value without the maps that hold `$patch` (`None` when the value is one).
fn remove_directives(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) => {
            if map.contains_key(DIRECTIVE) {
                return None;
            }
            Some(Value::Object(
                map.into_iter()
                    .filter_map(|(k, v)| Some((k, remove_directives(v)?)))
                    .collect(),
            ))
        }
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// `$retainKeys`: the object keeps only the keys listed, and the patch may set no other.
fn apply_retain_keys(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
) -> Result<()> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(retain) = retain else {
        return Err(StrategicMergeError::BadRetainKeys);
    };
    let listed = |k: &str| retain.iter().any(|r| r.as_str() == Some(k));
    let unlisted = patch.iter().any(|(k, v)| {
        !v.is_null()
            && !k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            && !k.starts_with(SET_ELEMENT_ORDER)
            && !listed(k)
    });
    if unlisted {
        return Err(StrategicMergeError::BadRetainKeys);
    }
    original.retain(|k, _| listed(k));
    Ok(())
}

/// `$setElementOrder/<list>`: merges the list it names and orders it as the directive says.
fn merge_ordered_lists(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: Option<Schema>,
) -> Result<()> {
    let directives: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for directive in directives {
        let Some(order) = patch.remove(&directive) else {
            continue;
        };
        let Value::Array(order) = order else {
            return Err(bad_arg(SLICE_TYPE, &order));
        };
        let key = match directive[SET_ELEMENT_ORDER.len()..].strip_prefix('/') {
            Some(key) => key.to_owned(),
            None => return Err(StrategicMergeError::BadSetElementOrder),
        };
        let live = match original.get(&key) {
            Some(Value::Array(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg(SLICE_TYPE, other)),
            None => None,
        };
        let patched = match patch.get(&key) {
            Some(Value::Array(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg(SLICE_TYPE, other)),
            None => None,
        };
        let field = schema.and_then(|s| s.field(&key));
        let merge_key = field.and_then(|f| f.merge_key()).unwrap_or("");
        check_order(patched.as_deref().unwrap_or(&[]), &order, merge_key)?;
        let merged = match (&live, patched.clone()) {
            (Some(live), None) => live.clone(),
            (None, Some(p)) => match remove_directives(Value::Array(p)) {
                Some(Value::Array(items)) => items,
                _ => continue,
            },
            (Some(live), Some(p)) => {
                if strategy(field) == "merge" {
                    merge_list(
                        live.clone(),
                        p,
                        field.and_then(|f| f.items()),
                        merge_key,
                        false,
                    )?
                } else {
                    p
                }
            }
            (None, None) => continue,
        };
        let live = live.unwrap_or_default();
        let (in_order, server_only) = partition(merged, &order, merge_key)?;
        let kind = element_type(&[&live, patched.as_deref().unwrap_or(&[])])?;
        let ordered = normalize_order(in_order, server_only, &order, &live, merge_key, kind)?;
        original.insert(key.clone(), Value::Array(ordered));
        patch.remove(&key);
    }
    Ok(())
}

/// upstream's `validatePatchWithSetOrderList`: the patch's items (deletions aside) appear in
/// the `$setElementOrder` list, in its order.
fn check_order(patch: &[Value], order: &[Value], merge_key: &str) -> Result<()> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let kept: Vec<&Value> = if merge_key.is_empty() {
        patch.iter().collect()
    } else {
        let mut kept = Vec::new();
        for item in patch {
            let Value::Object(map) = item else {
                return Err(bad_arg(MAP_TYPE, item));
            };
            if map.get(DIRECTIVE).and_then(Value::as_str) != Some("delete") {
                kept.push(item);
            }
        }
        kept
    };
    let (mut p, mut o) = (0, 0);
    while p < kept.len() && o < order.len() {
        if kept[p]
            .as_object()
            .is_some_and(|m| m.contains_key(DIRECTIVE))
        {
            p += 1;
            continue;
        }
        if merge_key_equal(kept[p], &order[o], merge_key)? {
            p += 1;
        }
        o += 1;
    }
    if p < kept.len() && o >= order.len() {
        return Err(StrategicMergeError::OrderMismatch {
            patch: go_v(&Value::Array(patch.to_vec())),
            order: go_v(&Value::Array(order.to_vec())),
        });
    }
    Ok(())
}

fn merge_key_equal(left: &Value, right: &Value, merge_key: &str) -> Result<bool> {
    if merge_key.is_empty() {
        return Ok(left == right);
    }
    let Value::Object(l) = left else {
        return Err(bad_arg(MAP_TYPE, left));
    };
    let Value::Object(r) = right else {
        return Err(bad_arg(MAP_TYPE, right));
    };
    let lk = l.get(merge_key).ok_or_else(|| no_merge_key(l, merge_key))?;
    let rk = r.get(merge_key).ok_or_else(|| no_merge_key(r, merge_key))?;
    Ok(lk == rk)
}

/// Whether a list's items are maps (merged by key) or scalars, from the items of the lists
/// given (upstream's `sliceElementType`).
fn element_type(lists: &[&[Value]]) -> Result<GoType> {
    let mut found: Option<GoType> = None;
    for item in lists.iter().flat_map(|l| l.iter()) {
        let t = GoType::of(item);
        match found {
            None if t == GoType::Slice => return Err(StrategicMergeError::ListOfLists),
            None => found = Some(t),
            Some(prev) if prev != t => {
                let lists: Vec<Value> = lists.iter().map(|l| Value::Array(l.to_vec())).collect();
                return Err(StrategicMergeError::MixedElements(go_v(&Value::Array(
                    lists,
                ))));
            }
            Some(_) => {}
        }
    }
    found.ok_or(StrategicMergeError::NoElements)
}

fn merge_list(
    original: Vec<Value>,
    patch: Vec<Value>,
    items: Option<Schema>,
    merge_key: &str,
    delete_list: bool,
) -> Result<Vec<Value>> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = element_type(&[&original, &patch])?;
    let (original, patch, merged) = if kind != GoType::Map {
        if delete_list {
            return Ok(original
                .into_iter()
                .filter(|v| !patch.contains(v))
                .collect());
        }
        let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
        for v in original.iter().chain(patch.iter()) {
            if !merged.contains(v) {
                merged.push(v.clone());
            }
        }
        (original, patch, merged)
    } else {
        if merge_key.is_empty() {
            return Err(StrategicMergeError::NoMergeKeyDeclared);
        }
        let (original, patch) = apply_list_directives(original, patch, merge_key)?;
        let merged = merge_by_key(original.clone(), &patch, merge_key, items)?;
        (original, patch, merged)
    };
    let (in_patch, server_only) = partition(merged, &patch, merge_key)?;
    normalize_order(in_patch, server_only, &patch, &original, merge_key, kind)
}

/// The `$patch` items of a list of maps: `delete` removes the items with that key, `replace`
/// makes the patch's other items the list.
fn apply_list_directives(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>)> {
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Value::Object(map) = &item else {
            return Err(bad_arg(MAP_TYPE, &item));
        };
        let Some(directive) = map.get(DIRECTIVE) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let id = map
                    .get(merge_key)
                    .ok_or_else(|| no_merge_key(map, merge_key))?;
                for (i, v) in original.iter().enumerate() {
                    if !v.is_object() {
                        return Err(StrategicMergeError::NotAMap(i));
                    }
                }
                original.retain(|v| v.get(merge_key) != Some(id));
            }
            Some("replace") => replace = true,
            Some("merge") => return Err(StrategicMergeError::MergeDirectiveInList),
            _ => return Err(bad_patch_type(directive, map)),
        }
    }
    if replace {
        Ok((plain, Vec::new()))
    } else {
        Ok((original, plain))
    }
}

/// Merges each patch item into the live item with its key, or appends it.
fn merge_by_key(
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
    items: Option<Schema>,
) -> Result<Vec<Value>> {
    for item in patch {
        let Value::Object(map) = item else {
            return Err(bad_arg(MAP_TYPE, item));
        };
        let id = map
            .get(merge_key)
            .ok_or_else(|| no_merge_key(map, merge_key))?;
        match position_by_key(&original, merge_key, id)? {
            Some(i) => {
                let Value::Object(live) = std::mem::take(&mut original[i]) else {
                    unreachable!("position_by_key finds maps only");
                };
                original[i] = Value::Object(merge_map(live, map.clone(), items)?);
            }
            None => original.push(item.clone()),
        }
    }
    Ok(original)
}

/// The index of the first map in `list` whose `key` is `id` (an item that is not a map is an
/// error, as upstream's `findMapInSliceBasedOnKeyValue`).
fn position_by_key(list: &[Value], key: &str, id: &Value) -> Result<Option<usize>> {
    for (i, v) in list.iter().enumerate() {
        let Value::Object(map) = v else {
            return Err(StrategicMergeError::NotAMap(i));
        };
        if map.get(key) == Some(id) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Splits `merged` into the items `by` names (by merge key, or by value for scalars) and
/// the others.
fn partition(
    merged: Vec<Value>,
    by: &[Value],
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>)> {
    let mut named = Vec::with_capacity(merged.len());
    let mut others = Vec::new();
    for item in merged {
        let found = if merge_key.is_empty() {
            by.contains(&item)
        } else {
            let Value::Object(map) = &item else {
                return Err(bad_arg(MAP_TYPE, &item));
            };
            let id = map
                .get(merge_key)
                .ok_or_else(|| no_merge_key(map, merge_key))?;
            position_by_key(by, merge_key, id)?.is_some()
        };
        if found {
            named.push(item);
        } else {
            others.push(item);
        }
    }
    Ok((named, others))
}

/// What an item is compared by when ordering: its merge key's value in a list of maps,
/// itself otherwise.
fn order_key<'v>(item: &'v Value, merge_key: &str, kind: GoType) -> Option<&'v Value> {
    if kind == GoType::Map {
        item.as_object().and_then(|m| m.get(merge_key))
    } else {
        Some(item)
    }
}

fn index_in(list: &[Value], item: &Value, merge_key: &str, kind: GoType) -> Option<usize> {
    let wanted = order_key(item, merge_key, kind);
    list.iter()
        .position(|v| order_key(v, merge_key, kind) == wanted)
}

/// upstream's `normalizeElementOrder`: the patch's items in `patch_order`, the others in
/// `server_order`, merged keeping both orders.
fn normalize_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>> {
    let patch = sort_by_order(patch, patch_order, merge_key, kind)?;
    let server_only = sort_by_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted(
        server_only,
        patch,
        server_order,
        merge_key,
        kind,
    ))
}

/// Orders `items` by where `order` has them (stable; deletion items last).
fn sort_by_order(
    items: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>> {
    let (mut items, deletions) = if kind == GoType::Map {
        for item in items.iter().chain(order.iter()) {
            let Value::Object(map) = item else {
                return Err(bad_arg(MAP_TYPE, item));
            };
            if !map.contains_key(merge_key) {
                return Err(no_merge_key(map, merge_key));
            }
        }
        items
            .into_iter()
            .partition(|item| item.get(DIRECTIVE).and_then(Value::as_str) != Some("delete"))
    } else {
        (items, Vec::new())
    };
    items.sort_by_key(|item| index_in(order, item, merge_key, kind).unwrap_or(usize::MAX));
    items.extend(deletions);
    Ok(items)
}

/// upstream's `mergeSortedSlice`: each server-only item goes before the first patch item
/// that comes after it in the live order; both lists keep their own order.
fn merge_sorted(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => {
                match (
                    index_in(server_order, l, merge_key, kind),
                    index_in(server_order, r, merge_key, kind),
                ) {
                    (Some(li), Some(ri)) => li < ri,
                    _ => false,
                }
            }
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out
}

#[cfg(test)]
mod tests {
    //! Cases after apimachinery's `strategicpatch/patch_test.go` (the raw cases' errors, the
    //! directive and ordering cases), on Deployments and ConfigMaps.
    use super::*;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS};
    use serde_json::json;

    fn merge(resource: &crate::resource::Resource, original: Value, patch: Value) -> Result<Value> {
        let (Value::Object(original), Value::Object(patch)) = (original, patch) else {
            panic!("objects expected");
        };
        apply(original, patch, crate::openapi::schema_of(resource)).map(Value::Object)
    }

    fn containers(list: Value) -> Value {
        json!({"spec": {"template": {"spec": {"containers": list}}}})
    }

    fn pod_spec(patch: Value) -> Value {
        json!({"spec": {"template": {"spec": patch}}})
    }

    #[test]
    fn maps_merge_nulls_delete_and_directives_replace_or_empty() {
        let cm =
            json!({"data": {"a": "1", "b": "2"}, "metadata": {"name": "x", "labels": {"k": "v"}}});
        let out = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"data": {"a": null, "c": "3"}}),
        )
        .unwrap();
        assert_eq!(out["data"], json!({"b": "2", "c": "3"}));
        // `$patch: replace` takes the patch's map; `$patch: delete` leaves an empty map.
        let out = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"data": {"$patch": "replace", "z": "9"}}),
        );
        assert_eq!(out.unwrap()["data"], json!({"z": "9"}));
        let out = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"data": {"$patch": "delete"}}),
        );
        assert_eq!(out.unwrap()["data"], json!({}));
        // A new map holding `$patch` is not added; other `$` keys stay for the decoder.
        let out = merge(
            &CONFIGMAPS,
            json!({}),
            json!({"data": {"$patch": "delete"}, "$x": 1}),
        );
        assert_eq!(out.unwrap(), json!({"$x": 1}));
        // Nulls inside a new value are dropped.
        let out = merge(
            &CONFIGMAPS,
            json!({}),
            json!({"data": {"a": null, "b": "1"}}),
        );
        assert_eq!(out.unwrap(), json!({"data": {"b": "1"}}));
    }

    #[test]
    fn unknown_directives_name_the_map_as_go_prints_it() {
        let cm = json!({"metadata": {"name": "x"}});
        let err = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"metadata": {"$patch": "merge", "n": 1.5}}),
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "unknown patch type: merge in map: map[$patch:merge n:1.5]"
        );
        let err = merge(
            &CONFIGMAPS,
            cm,
            json!({"metadata": {"$patch": 7, "a": {"b": [1, "c"]}}}),
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "unknown patch type: %!s(int64=7) in map: map[$patch:7 a:map[b:[1 c]]]"
        );
        let d = containers(json!([{"name": "a"}]));
        let err = merge(
            &DEPLOYMENTS,
            d.clone(),
            containers(json!([{"$patch": "merge"}])),
        );
        assert_eq!(err.unwrap_err(), StrategicMergeError::MergeDirectiveInList);
        let err = merge(
            &DEPLOYMENTS,
            d,
            containers(json!([{"name": "a", "$patch": "x"}])),
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "unknown patch type: x in map: map[$patch:x name:a]"
        );
    }

    #[test]
    fn lists_of_maps_merge_by_key_with_delete_and_replace() {
        let d = containers(json!([{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]));
        let out = merge(
            &DEPLOYMENTS,
            d.clone(),
            containers(json!([{"name": "b", "image": "b:2"}, {"name": "c", "image": "c:1"}])),
        )
        .unwrap();
        // The live item not in the patch keeps its place before the patch's items.
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:2"},
                   {"name": "c", "image": "c:1"}])
        );
        let out = merge(
            &DEPLOYMENTS,
            d.clone(),
            containers(json!([{"name": "a", "$patch": "delete"}])),
        );
        assert_eq!(
            out.unwrap()["spec"]["template"]["spec"]["containers"],
            json!([{"name": "b", "image": "b:1"}])
        );
        let out = merge(
            &DEPLOYMENTS,
            d.clone(),
            containers(json!([{"name": "z"}, {"$patch": "replace"}])),
        );
        assert_eq!(
            out.unwrap()["spec"]["template"]["spec"]["containers"],
            json!([{"name": "z"}])
        );
        // upstream: "missing merge key should error out".
        let err = merge(&DEPLOYMENTS, d.clone(), containers(json!([{"image": "x"}])));
        assert_eq!(
            err.unwrap_err().to_string(),
            "map: map[image:x] does not contain declared merge key: name"
        );
        // A list without a merge strategy is replaced, `$` items and all.
        let args = containers(json!([{"name": "a", "args": ["x", "y"]}]));
        let out = merge(
            &DEPLOYMENTS,
            args,
            containers(json!([{"name": "a", "args": ["z"]}])),
        );
        assert_eq!(
            out.unwrap()["spec"]["template"]["spec"]["containers"][0]["args"],
            json!(["z"])
        );
        let err = merge(&DEPLOYMENTS, d, containers(json!([{"name": "a"}, "b"])));
        assert_eq!(
            err.unwrap_err().to_string(),
            "list element types are not identical: [[map[image:a:1 name:a] map[image:b:1 name:b]] [map[name:a] b]]"
        );
    }

    #[test]
    fn set_element_order_orders_and_must_agree_with_the_patch() {
        let d = containers(json!([{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]));
        let patch = pod_spec(json!({
            "$setElementOrder/containers": [{"name": "c"}, {"name": "a"}],
            "containers": [{"name": "c", "image": "c:1"}, {"name": "a", "image": "a:2"},
                           {"name": "b", "$patch": "delete"}]
        }));
        let out = merge(&DEPLOYMENTS, d.clone(), patch).unwrap();
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "c", "image": "c:1"}, {"name": "a", "image": "a:2"}])
        );
        // upstream: "$setElementOrder contains item that is not present in the list to be
        // merged" — the patch's items out of the directive's order.
        let patch = pod_spec(json!({
            "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
            "containers": [{"name": "b", "image": "b:2"}, {"name": "a", "image": "a:2"}]
        }));
        assert_eq!(
            merge(&DEPLOYMENTS, d.clone(), patch)
                .unwrap_err()
                .to_string(),
            "The order in patch list:\n[map[image:b:2 name:b] map[image:a:2 name:a]]\n doesn't match \
             $setElementOrder list:\n[map[name:a] map[name:b]]\n"
        );
        let bad = pod_spec(json!({"$setElementOrderX/containers": []}));
        assert_eq!(
            merge(&DEPLOYMENTS, d.clone(), bad).unwrap_err(),
            StrategicMergeError::BadSetElementOrder
        );
        let bad = pod_spec(json!({"$setElementOrder/containers": "a"}));
        assert_eq!(
            merge(&DEPLOYMENTS, d, bad).unwrap_err().to_string(),
            "expected a []interface {}, but received a string"
        );
    }

    #[test]
    fn primitive_lists_merge_in_the_patch_order_and_delete_by_parallel_list() {
        let cm = json!({"metadata": {"finalizers": ["a", "x"]}});
        let out = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"metadata": {"finalizers": ["b", "a"]}}),
        );
        // The patch's items in its order; a live item goes before the first patch item that
        // follows it in the live order (none here: "b" is not live, "a" precedes "x").
        assert_eq!(
            out.unwrap()["metadata"]["finalizers"],
            json!(["b", "a", "x"])
        );
        let out = merge(
            &CONFIGMAPS,
            cm.clone(),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a", "q"]}}),
        );
        assert_eq!(out.unwrap()["metadata"]["finalizers"], json!(["x"]));
        let err = merge(
            &CONFIGMAPS,
            cm,
            json!({"metadata": {"$deleteFromPrimitiveListfinalizers": ["a"]}}),
        );
        assert_eq!(err.unwrap_err(), StrategicMergeError::BadPrimitiveList);
    }

    #[test]
    fn retain_keys_clears_unlisted_fields_and_checks_the_patch() {
        let d = json!({"spec": {"strategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": 1}}}});
        let patch = json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate",
            "rollingUpdate": null}}});
        let out = merge(&DEPLOYMENTS, d.clone(), patch).unwrap();
        assert_eq!(out["spec"]["strategy"], json!({"type": "Recreate"}));
        let patch = json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}});
        let err = merge(&DEPLOYMENTS, d.clone(), patch).unwrap_err();
        assert_eq!(err, StrategicMergeError::BadRetainKeys);
        assert_eq!(err.status().code, 400);
        let patch = json!({"spec": {"strategy": {"$retainKeys": "type"}}});
        assert_eq!(
            merge(&DEPLOYMENTS, d, patch).unwrap_err(),
            StrategicMergeError::BadRetainKeys
        );
    }

    #[test]
    fn answers_as_the_patch_handler() {
        let d = json!({"metadata": {"finalizers": []}});
        let err = merge(&CONFIGMAPS, d, json!({"metadata": {"finalizers": [["a"]]}})).unwrap_err();
        assert_eq!(err, StrategicMergeError::ListOfLists);
        let status = err.status();
        assert_eq!((status.code, status.reason), (422, "Invalid"));
        let status = StrategicMergeError::MergeDirectiveInList.status();
        assert_eq!((status.code, status.reason), (500, ""));
        assert_eq!(
            status.message,
            "merging lists cannot yet be specified in the patch"
        );
    }
}

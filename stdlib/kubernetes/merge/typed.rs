//! Operations on values with a schema, as structured-merge-diff's `typed` package defines
//! them: the field set of a value, the comparison of two values (added, modified, removed
//! paths), the merge of an applied configuration into a live object, and the removal of
//! paths from a value.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::apply_schema::{
    ApplySchema, ListType, Node, ScalarType, Shape, list_items, map_child, shape_of,
};
use super::fieldpath::{Path, PathElement, PathText, Set};

/// The paths added, modified and removed between two values.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Paths present only in the new value.
    pub added: Set,
    /// Leaves whose value changed.
    pub modified: Set,
    /// Paths present only in the old value.
    pub removed: Set,
}

impl Comparison {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// The comparison without the paths in or below `ignored` (upstream's `ExcludeFields`).
    pub fn exclude(self, ignored: &Set) -> Comparison {
        use super::fieldpath::recursive_difference;
        Comparison {
            added: recursive_difference(&self.added, ignored),
            modified: recursive_difference(&self.modified, ignored),
            removed: recursive_difference(&self.removed, ignored),
        }
    }
}

/// The path element naming a list item, or `None` where the item cannot be named (an item
/// of a keyed list that is no map, or that lacks every key field).
fn item_element<S: ApplySchema>(
    list: &ListType,
    items: &Node<S>,
    item: &Value,
) -> Option<PathElement> {
    match list {
        ListType::Map(keys) => {
            let map = item.as_object()?;
            let mut fields: Vec<(String, Value)> = keys
                .iter()
                .filter_map(|k| {
                    map.get(k)
                        .cloned()
                        .or_else(|| items.as_ref().and_then(|s| s.default_of(k)))
                        .map(|v| (k.clone(), v))
                })
                .collect();
            if fields.is_empty() {
                return None;
            }
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Some(PathElement::Key(fields))
        }
        ListType::Set => Some(PathElement::Value(item.clone())),
        ListType::Atomic => None,
    }
}

/// The items of a list with their path elements (by position where they cannot be named).
fn elements<'v, S: ApplySchema>(
    list: &ListType,
    items: &Node<S>,
    values: &'v [Value],
) -> Vec<(PathElement, &'v Value)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (
                item_element(list, items, v).unwrap_or(PathElement::Index(i)),
                v,
            )
        })
        .collect()
}

/// The first item of each path element, in order.
fn first_occurrences(
    all: Vec<(PathElement, &Value)>,
) -> (Vec<PathElement>, BTreeMap<PathElement, &Value>) {
    let mut order = Vec::new();
    let mut seen = BTreeMap::new();
    for (pe, v) in all {
        if !seen.contains_key(&pe) {
            seen.insert(pe.clone(), v);
            order.push(pe);
        }
    }
    (order, seen)
}

fn is_empty_map(v: &Value) -> bool {
    v.as_object().is_some_and(Map::is_empty)
}

/// The field set of a value (upstream's `ToFieldSet`): leaves, atomic lists and maps, items
/// of granular lists, map keys that are not declared fields, and fields that are null or
/// empty maps.
pub fn to_field_set<S: ApplySchema>(value: &Value, node: &Node<S>) -> Set {
    let mut out = field_set(value, node, 0);
    out.set_root(false);
    out
}

/// The field set of `value`, with its paths relative to it; the value itself is a member
/// when it is a leaf.
fn field_set<S: ApplySchema>(value: &Value, node: &Node<S>, depth: usize) -> Set {
    let mut out = Set::new();
    if depth >= MAX_DEPTH {
        out.set_root(true);
        return out;
    }
    match shape_of(node, Some(value)) {
        Shape::Map { atomic: false } => {
            let Some(map) = value.as_object() else {
                out.set_root(!value.is_null());
                return out;
            };
            for (key, child) in map {
                let (child_node, declared) = map_child(node, key);
                let mut below = field_set(child, &child_node, depth + 1);
                if child.is_null() || is_empty_map(child) || !declared {
                    below.set_root(true);
                }
                out.add_child(PathElement::Field(key.clone()), below);
            }
        }
        Shape::List(list) if list != ListType::Atomic => {
            let Some(values) = value.as_array() else {
                out.set_root(!value.is_null());
                return out;
            };
            let items = list_items(node);
            let all = elements(&list, &items, values);
            let mut seen = BTreeSet::new();
            let mut duplicates = BTreeSet::new();
            for (pe, _) in &all {
                if !seen.insert(pe.clone()) && duplicates.insert(pe.clone()) {
                    out.insert(std::slice::from_ref(pe));
                }
            }
            for (pe, child) in all {
                if duplicates.contains(&pe) {
                    continue;
                }
                let mut below = field_set(child, &items, depth + 1);
                below.set_root(true);
                out.add_child(pe, below);
            }
        }
        _ => out.set_root(true),
    }
    out
}

/// Values nest at most this deep in field sets, comparisons, merges and the checks of
/// [`validation_errors`] and [`atomics`]; a value this deep is taken whole, as a leaf. It
/// is the documents' limit ([`crate::documents::MAX_DEPTH`], Kubernetes' 10,000) less
/// [`FIELDS_V1_DEPTH`]: a field set is stored as `metadata.managedFields[i].fieldsV1`, one
/// map per path element inside five levels of the object (the object, `metadata`,
/// `managedFields`, the entry, `fieldsV1`), so a path one element longer would make an
/// object that no reader accepts back. structured-merge-diff (`tofieldset.go`) has no
/// limit, so kube-apiserver's stored form of such an object would pass encoding/json's
/// 10,000 levels over the whole document (not checked against a running kube-apiserver).
/// Here every answered write reads back: a known difference for the innermost five levels
/// of a 10,000-level object, which are owned whole with the value five levels up.
pub const MAX_DEPTH: usize = crate::documents::MAX_DEPTH - FIELDS_V1_DEPTH;

/// The levels of an object around a field set stored in it: the object, `metadata`,
/// `managedFields`, the entry and `fieldsV1`.
pub const FIELDS_V1_DEPTH: usize = 5;

/// Why an item cannot be named in its list, in structured-merge-diff's words.
fn item_problem<S: ApplySchema>(list: &ListType, items: &Node<S>, item: &Value) -> Option<String> {
    match list {
        ListType::Map(keys) => {
            let map = match item {
                Value::Null => {
                    return Some("associative list with keys may not have a null element".into());
                }
                Value::Object(map) => map,
                _ => {
                    return Some("associative list with keys may not have non-map elements".into());
                }
            };
            keys.iter()
                .find(|k| {
                    !map.contains_key(*k) && items.as_ref().and_then(|s| s.default_of(k)).is_none()
                })
                .map(|k| {
                    format!(
                        "associative list with keys has an element that omits key field {k:?} \
                         (and doesn't have default value)"
                    )
                })
        }
        ListType::Set => match item {
            Value::Null => {
                Some("associative list without keys has an element that's an explicit null".into())
            }
            Value::Object(_) => {
                Some("associative list without keys has an element that's a map type".into())
            }
            _ => None,
        },
        ListType::Atomic => None,
    }
}

/// A member of a map or list met by [`problems`], with what the check needs to judge it.
enum Member<'a, S: ApplySchema> {
    /// A map's field.
    Field {
        /// The map's schema.
        parent: &'a Node<S>,
        /// The field's schema.
        node: &'a Node<S>,
        /// Whether the map's schema declares the field.
        declared: bool,
    },
    /// A list's item.
    Item {
        /// The list's type.
        list: &'a ListType,
        /// The items' schema.
        items: &'a Node<S>,
        /// The item's position.
        index: usize,
        /// The item's value.
        value: &'a Value,
        /// Whether an earlier item of the list has the same path element.
        repeated: bool,
    },
}

/// Walks a value with its schema and reports what `check` finds at each member of a map or
/// list; the walk does not go below a member with a problem. `check` gets the member's path
/// (its own element last). Atomic maps and lists are walked into only with `into_atomic`
/// (their items by position).
fn problems<S: ApplySchema>(
    value: &Value,
    node: &Node<S>,
    into_atomic: bool,
    check: &dyn Fn(&Path, Member<'_, S>) -> Option<String>,
) -> Vec<String> {
    struct Walk<'c, S: ApplySchema> {
        into_atomic: bool,
        check: &'c dyn Fn(&Path, Member<'_, S>) -> Option<String>,
        path: Path,
        out: Vec<String>,
    }
    impl<S: ApplySchema> Walk<'_, S> {
        /// Checks the member whose path is `self.path`, then walks below it.
        fn member(&mut self, member: Member<'_, S>, value: &Value, node: &Node<S>, depth: usize) {
            match (self.check)(&self.path, member) {
                Some(problem) => self.out.push(problem),
                None => self.value(value, node, depth + 1),
            }
            self.path.pop();
        }

        fn value(&mut self, value: &Value, node: &Node<S>, depth: usize) {
            if depth >= MAX_DEPTH {
                return;
            }
            match shape_of(node, Some(value)) {
                Shape::Map { atomic } if self.into_atomic || !atomic => {
                    for (key, child) in value.as_object().into_iter().flatten() {
                        let (child_node, declared) = map_child(node, key);
                        self.path.push(PathElement::Field(key.clone()));
                        let field = Member::Field {
                            parent: node,
                            node: &child_node,
                            declared,
                        };
                        self.member(field, child, &child_node, depth);
                    }
                }
                Shape::List(list) if self.into_atomic || list != ListType::Atomic => {
                    let items = list_items(node);
                    let values = value.as_array().map_or(&[][..], |v| v);
                    let mut seen = BTreeSet::new();
                    for (index, (pe, child)) in
                        elements(&list, &items, values).into_iter().enumerate()
                    {
                        let repeated = !seen.insert(pe.clone());
                        self.path.push(pe);
                        let item = Member::Item {
                            list: &list,
                            items: &items,
                            index,
                            value: child,
                            repeated,
                        };
                        self.member(item, child, &items, depth);
                    }
                }
                _ => {}
            }
        }
    }
    let mut walk = Walk {
        into_atomic,
        check,
        path: Vec::new(),
        out: Vec::new(),
    };
    walk.value(value, node, 0);
    walk.out
}

/// Finds what upstream refuses in an applied configuration's granular lists: items that
/// occur twice (`.spec.containers: duplicate entries for key [name="a"]`) and items that
/// cannot be named (`.spec.containers: element 0: associative list with keys has an element
/// that omits key field "name" (and doesn't have default value)`).
pub fn duplicates<S: ApplySchema>(value: &Value, node: &Node<S>) -> Vec<String> {
    problems(value, node, false, &|path, member| {
        let Member::Item {
            list,
            items,
            index,
            value,
            repeated,
        } = member
        else {
            return None;
        };
        let (list_path, element) = path.split_at(path.len() - 1);
        if let Some(problem) = item_problem(list, items, value) {
            return Some(format!(
                "{}: element {index}: {problem}",
                PathText(list_path)
            ));
        }
        repeated.then(|| {
            format!(
                "{}: duplicate entries for key {}",
                PathText(list_path),
                PathText(element)
            )
        })
    })
}

/// Fields of a value that its schema does not declare, as upstream's typed conversion
/// reports them (`.spec.foo: field not declared in schema`).
pub fn undeclared<S: ApplySchema>(value: &Value, node: &Node<S>) -> Vec<String> {
    problems(value, node, true, &|path, member| {
        let Member::Field {
            parent,
            node,
            declared,
        } = member
        else {
            return None;
        };
        let typed = parent
            .as_ref()
            .is_some_and(|s| s.shape() != Shape::Untyped && !s.open());
        (typed && !declared && node.is_none())
            .then(|| format!("{}: field not declared in schema", PathText(path)))
    })
}

/// What structured-merge-diff's validation finds when a value is made typed with the schema
/// `node` (`AsTyped`): values of the wrong type ([`type_mismatches`]), fields the schema
/// does not declare ([`undeclared`]), repeated or unnamed items of keyed lists
/// ([`duplicates`]), each as `<path>: <problem>`. A MutatingAdmissionPolicy's apply
/// configuration and a server-side apply's body are checked alike (`failed to convert
/// patch object to typed object: ...`, `failed to create typed patch object (...): ...`).
pub fn validation_errors<S: ApplySchema>(value: &Value, node: &Node<S>) -> Vec<String> {
    let mut problems = type_mismatches(value, node);
    problems.extend(undeclared(value, node));
    problems.extend(duplicates(value, node));
    problems
}

/// Values whose JSON type does not fit their schema, as structured-merge-diff's validation
/// reports them when a value is made typed (`.spec.replicas: expected numeric (int or
/// float), got string`; `typed/validate.go`, `validateScalar`, and `typed/helpers.go`,
/// `listValue`/`mapValue`), with Go's formatting of the value as the walk holds it (a
/// `*valueUnstructured`: `&{1}`, `&value.valueUnstructured{Value:1}`). Nulls fit any type;
/// below a mismatch nothing more is checked.
pub fn type_mismatches<S: ApplySchema>(value: &Value, node: &Node<S>) -> Vec<String> {
    let mut out = Vec::new();
    mismatches_at(value, node, &mut Vec::new(), &mut out, 0);
    out
}

fn mismatches_at<S: ApplySchema>(
    value: &Value,
    node: &Node<S>,
    path: &mut Path,
    out: &mut Vec<String>,
    depth: usize,
) {
    let Some(schema) = node.as_ref() else {
        return;
    };
    if value.is_null() || depth >= MAX_DEPTH {
        return;
    }
    let problem = match schema.shape() {
        Shape::Untyped => return,
        Shape::Scalar => match (schema.scalar(), value) {
            (Some(ScalarType::Numeric), Value::Number(_)) => None,
            (Some(ScalarType::Numeric), v) => Some(format!(
                "expected numeric (int or float), got {}",
                go_type(v)
            )),
            (Some(ScalarType::String), Value::String(_)) => None,
            (Some(ScalarType::String), v) => Some(format!(
                "expected string, got &value.valueUnstructured{{Value:{}}}",
                go_syntax(v)
            )),
            (Some(ScalarType::Boolean), Value::Bool(_)) => None,
            (Some(ScalarType::Boolean), v) => {
                Some(format!("expected boolean, got &{{{}}}", go_value(v)))
            }
            _ => None,
        },
        Shape::Map { .. } => match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let (child_node, _) = map_child(node, key);
                    path.push(PathElement::Field(key.clone()));
                    mismatches_at(child, &child_node, path, out, depth + 1);
                    path.pop();
                }
                None
            }
            v => Some(format!("expected map, got &{{{}}}", go_value(v))),
        },
        Shape::List(list) => match value {
            Value::Array(items) => {
                let child = list_items(node);
                for (pe, item) in elements(&list, &child, items) {
                    path.push(pe);
                    mismatches_at(item, &child, path, out, depth + 1);
                    path.pop();
                }
                None
            }
            v => Some(format!("expected list, got &{{{}}}", go_value(v))),
        },
    };
    if let Some(problem) = problem {
        out.push(if path.is_empty() {
            problem
        } else {
            format!("{}: {problem}", PathText(path))
        });
    }
}

/// Go's `%T` of an unstructured JSON value.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%#v` of an unstructured JSON value held in an `interface{}`.
fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => format!(
            "[]interface {{}}{{{}}}",
            items.iter().map(go_syntax).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k:?}:{}", go_syntax(&map[k])))
                .collect();
            format!("map[string]interface {{}}{{{}}}", fields.join(", "))
        }
    }
}

/// Go's `%v` of an unstructured JSON value.
fn go_value(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(go_value).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_value(&map[k])))
                .collect();
            format!("map[{}]", fields.join(" "))
        }
    }
}

/// A JSON number as Go prints an int64 or a float64 (`%v`: shortest form, `1e+21` for
/// large floats).
fn go_number(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => i.to_string(),
        (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        (None, Some(f)) if f.abs() >= 1e21 => {
            let text = format!("{f:e}");
            match text.split_once('e') {
                Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e:0>2}"),
                _ => text,
            }
        }
        _ => n.to_string(),
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_))
    ) || !(a.is_object() || a.is_array() || b.is_object() || b.is_array())
}

/// Compares two values (upstream's `Compare`).
pub fn compare<S: ApplySchema>(old: &Value, new: &Value, node: &Node<S>) -> Comparison {
    let mut c = compare_at(Some(old), Some(new), node, 0);
    c.added.set_root(false);
    c.modified.set_root(false);
    c.removed.set_root(false);
    c
}

fn leaf(l: Option<&Value>, r: Option<&Value>, c: &mut Comparison) {
    match (l, r) {
        (None, _) => c.added.set_root(true),
        (_, None) => c.removed.set_root(true),
        (Some(l), Some(r)) if l != r => c.modified.set_root(true),
        _ => {}
    }
}

impl Comparison {
    /// Adds the comparison of a member below `element`.
    fn add_child(&mut self, element: &PathElement, below: Comparison) {
        self.added.add_child(element.clone(), below.added);
        self.modified.add_child(element.clone(), below.modified);
        self.removed.add_child(element.clone(), below.removed);
    }
}

/// The comparison of `l` and `r`, with paths relative to them.
fn compare_at<S: ApplySchema>(
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Comparison {
    let mut c = Comparison::default();
    let mixed =
        matches!((l, r), (Some(a), Some(b)) if !a.is_null() && !b.is_null() && !same_kind(a, b));
    let shape = shape_of(node, r.filter(|v| !v.is_null()).or(l));
    if mixed || depth >= MAX_DEPTH {
        leaf(l, r, &mut c);
        return c;
    }
    match shape {
        Shape::Map { atomic: false } => c = compare_map(l, r, node, depth),
        Shape::List(list) if list != ListType::Atomic => c = compare_list(list, l, r, node, depth),
        _ => leaf(l, r, &mut c),
    }
    match (l, r) {
        (None, Some(_)) => c.added.set_root(true),
        (Some(_), None) => c.removed.set_root(true),
        _ => {}
    }
    c
}

/// [`compare_at`] of two maps (a function of its own: its locals stay off the frames of the
/// other shapes, so deep values take less stack).
fn compare_map<S: ApplySchema>(
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Comparison {
    let mut c = Comparison::default();
    let lm = l.and_then(Value::as_object);
    let rm = r.and_then(Value::as_object);
    if lm.is_none_or(Map::is_empty) && rm.is_none_or(Map::is_empty) {
        leaf(l, r, &mut c);
    } else {
        let mut keys: Vec<&String> = lm.into_iter().flat_map(Map::keys).collect();
        keys.extend(rm.into_iter().flat_map(Map::keys));
        let keys: BTreeSet<&String> = keys.into_iter().collect();
        for key in keys {
            let (child, _) = map_child(node, key);
            let below = compare_at(
                lm.and_then(|m| m.get(key)),
                rm.and_then(|m| m.get(key)),
                &child,
                depth + 1,
            );
            c.add_child(&PathElement::Field(key.clone()), below);
        }
    }
    c
}

/// [`compare_at`] of two granular lists.
fn compare_list<S: ApplySchema>(
    list: ListType,
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Comparison {
    let mut c = Comparison::default();
    let la = l.and_then(Value::as_array).map_or(&[][..], |v| v);
    let ra = r.and_then(Value::as_array).map_or(&[][..], |v| v);
    if la.is_empty() && ra.is_empty() {
        leaf(l, r, &mut c);
    } else {
        let items = list_items(node);
        let group = |values| {
            let mut map: BTreeMap<PathElement, Vec<&Value>> = BTreeMap::new();
            for (pe, v) in elements(&list, &items, values) {
                map.entry(pe).or_default().push(v);
            }
            map
        };
        let (lg, rg) = (group(la), group(ra));
        let pes: BTreeSet<&PathElement> = lg.keys().chain(rg.keys()).collect();
        for pe in pes {
            let ls = lg.get(pe).map_or(&[][..], |v| v);
            let rs = rg.get(pe).map_or(&[][..], |v| v);
            let below = match (ls.len(), rs.len()) {
                (0..=1, 0..=1) => {
                    compare_at(ls.first().copied(), rs.first().copied(), &items, depth + 1)
                }
                (2.., 2..) => {
                    let mut below = Comparison::default();
                    below.modified.set_root(ls != rs);
                    below
                }
                (2.., _) => {
                    let mut below = match rs.first() {
                        Some(r) => compare_at(None, Some(r), &items, depth + 1),
                        None => Comparison::default(),
                    };
                    below.removed.set_root(true);
                    below
                }
                (_, _) => {
                    let mut below = match ls.first() {
                        Some(l) => compare_at(Some(l), None, &items, depth + 1),
                        None => Comparison::default(),
                    };
                    below.added.set_root(true);
                    below
                }
            };
            c.add_child(pe, below);
        }
    }
    c
}

/// The paths of the atomic lists, maps and structs in an apply configuration (upstream's
/// `findAtomics` in `policy/mutating/patch/smd.go`, which mutating admission policies
/// refuse to set since applying one replaces it whole): `.spec.x`, `[0]` for list items;
/// only declared fields of structs are walked.
pub fn atomics<S: ApplySchema>(value: &Value, node: &Node<S>) -> Vec<String> {
    let mut out = Vec::new();
    atomics_at(value, node, &mut String::new(), &mut out, 0);
    out
}

fn atomics_at<S: ApplySchema>(
    value: &Value,
    node: &Node<S>,
    path: &mut String,
    out: &mut Vec<String>,
    depth: usize,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    match (value, shape_of(node, Some(value))) {
        (Value::Object(map), Shape::Map { atomic }) => {
            if atomic {
                out.push(path.clone());
            }
            for (key, v) in map {
                let (child, declared) = map_child(node, key);
                if !declared && node.as_ref().is_some_and(|s| s.shape() != Shape::Untyped) {
                    continue;
                }
                let len = path.len();
                path.push('.');
                path.push_str(key);
                atomics_at(v, &child, path, out, depth + 1);
                path.truncate(len);
            }
        }
        (Value::Array(items), Shape::List(list)) => {
            if list == ListType::Atomic {
                out.push(path.clone());
            }
            let child = list_items(node);
            for (i, v) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                atomics_at(v, &child, path, out, depth + 1);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// Merges an applied configuration into a live value (upstream's `Merge` with the rule that
/// the configuration's leaves win): maps merge by key, granular lists by item (keeping the
/// configuration's order for the items both have, the live order otherwise), atomic lists,
/// atomic maps and scalars are replaced.
pub fn merge<S: ApplySchema>(live: &Value, config: &Value, node: &Node<S>) -> Value {
    merge_at(Some(live), Some(config), node, 0).unwrap_or(Value::Null)
}

fn merge_at<S: ApplySchema>(
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Option<Value> {
    let mixed =
        matches!((l, r), (Some(a), Some(b)) if !a.is_null() && !b.is_null() && !same_kind(a, b));
    if mixed || depth >= MAX_DEPTH {
        return r.or(l).cloned();
    }
    match shape_of(node, r.filter(|v| !v.is_null()).or(l)) {
        Shape::Map { atomic: false } => merge_map(l, r, node, depth),
        Shape::List(list) if list != ListType::Atomic => merge_list(list, l, r, node, depth),
        _ => r.or(l).cloned(),
    }
}

/// [`merge_at`] of two maps (a function of its own: its locals stay off the frames of the
/// other shapes, so deep values take less stack).
fn merge_map<S: ApplySchema>(
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Option<Value> {
    let lm = l.and_then(Value::as_object);
    let rm = r.and_then(Value::as_object);
    if lm.is_none_or(Map::is_empty) && rm.is_none_or(Map::is_empty) {
        return r.or(l).cloned();
    }
    let mut out = Map::new();
    for (key, lv) in lm.into_iter().flatten() {
        let (child, _) = map_child(node, key);
        if let Some(v) = merge_at(Some(lv), rm.and_then(|m| m.get(key)), &child, depth + 1) {
            out.insert(key.clone(), v);
        }
    }
    for (key, rv) in rm.into_iter().flatten() {
        if lm.is_some_and(|m| m.contains_key(key)) {
            continue;
        }
        let (child, _) = map_child(node, key);
        if let Some(v) = merge_at(None, Some(rv), &child, depth + 1) {
            out.insert(key.clone(), v);
        }
    }
    Some(Value::Object(out))
}

/// [`merge_at`] of two granular lists.
fn merge_list<S: ApplySchema>(
    list: ListType,
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<S>,
    depth: usize,
) -> Option<Value> {
    let la = l.and_then(Value::as_array).map_or(&[][..], |v| v);
    let ra = r.and_then(Value::as_array).map_or(&[][..], |v| v);
    if la.is_empty() && ra.is_empty() {
        return r.or(l).cloned();
    }
    let items = list_items(node);
    let (lhs, observed_l) = first_occurrences(elements(&list, &items, la));
    let (rhs, observed_r) = first_occurrences(elements(&list, &items, ra));
    let shared: Vec<&PathElement> = rhs
        .iter()
        .filter(|pe| observed_l.contains_key(pe))
        .collect();
    let mut next_shared = 0;
    let mut merged = BTreeSet::new();
    let mut out = Vec::new();
    let (mut li, mut ri) = (0, 0);
    let mut push = |v: Option<Value>| {
        if let Some(v) = v {
            out.push(v);
        }
    };
    while li < lhs.len() || ri < rhs.len() {
        if li < lhs.len() && ri < rhs.len() {
            let pe = &lhs[li];
            if *pe == rhs[ri] {
                merged.insert(pe.clone());
                push(merge_at(
                    observed_l.get(pe).copied(),
                    observed_r.get(pe).copied(),
                    &items,
                    depth + 1,
                ));
                li += 1;
                ri += 1;
                next_shared += 1;
                continue;
            }
            if observed_r.contains_key(pe) && shared.get(next_shared).is_some_and(|s| *s != pe) {
                li += 1;
                continue;
            }
        }
        if li < lhs.len() {
            let pe = &lhs[li];
            if !observed_r.contains_key(pe) {
                push(merge_at(
                    observed_l.get(pe).copied(),
                    None,
                    &items,
                    depth + 1,
                ));
                li += 1;
                continue;
            }
            if merged.contains(pe) {
                li += 1;
                continue;
            }
        }
        if ri < rhs.len() {
            let pe = &rhs[ri];
            merged.insert(pe.clone());
            push(merge_at(
                observed_l.get(pe).copied(),
                observed_r.get(pe).copied(),
                &items,
                depth + 1,
            ));
            ri += 1;
            if shared.get(next_shared) == Some(&pe) {
                next_shared += 1;
            }
        }
    }
    Some(Value::Array(out))
}

/// Removes the members of `set` from a value (upstream's `RemoveItems`): fields, list
/// items; a map or list left empty goes too. `None` when nothing is left.
pub fn remove_items<S: ApplySchema>(value: &Value, set: &Set, node: &Node<S>) -> Option<Value> {
    remove_at(value, set, node, 0)
}

fn remove_at<S: ApplySchema>(
    value: &Value,
    set: &Set,
    node: &Node<S>,
    depth: usize,
) -> Option<Value> {
    if set.is_empty() || depth >= MAX_DEPTH {
        return Some(value.clone());
    }
    // What becomes of a member named `pe`: gone, walked into, or kept as it is.
    let below = |pe: &PathElement| match set.child(pe) {
        Some(child) if child.has_root() => Err(()),
        Some(child) => Ok(Some(child)),
        None => Ok(None),
    };
    match shape_of(node, Some(value)) {
        Shape::Map { atomic: false } => {
            let map = value.as_object()?;
            if map.is_empty() {
                return Some(value.clone());
            }
            let mut out = Map::new();
            for (key, child) in map {
                let kept = match below(&PathElement::Field(key.clone())) {
                    Err(()) => continue,
                    Ok(Some(inner)) => {
                        let (child_node, _) = map_child(node, key);
                        remove_at(child, inner, &child_node, depth + 1)
                    }
                    Ok(None) => Some(child.clone()),
                };
                if let Some(kept) = kept {
                    out.insert(key.clone(), kept);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Shape::List(list) if list != ListType::Atomic => {
            let values = value.as_array()?;
            if values.is_empty() {
                return Some(value.clone());
            }
            let items = list_items(node);
            let mut out = Vec::new();
            for (pe, child) in elements(&list, &items, values) {
                let kept = match below(&pe) {
                    Err(()) => continue,
                    Ok(Some(inner)) => remove_at(child, inner, &items, depth + 1),
                    Ok(None) => Some(child.clone()),
                };
                out.extend(kept);
            }
            (!out.is_empty()).then_some(Value::Array(out))
        }
        _ => Some(value.clone()),
    }
}

/// `set` with every declared struct field that has members below it made a member itself
/// (upstream's `EnsureNamedFieldsAreMembers`; map keys stay as they are).
pub fn ensure_named_fields<S: ApplySchema>(set: &Set, node: &Node<S>) -> Set {
    let mut out = Set::new();
    out.set_root(set.has_root());
    let typed_map = matches!(
        node.as_ref().map(ApplySchema::shape),
        Some(Shape::Map { .. })
    );
    for (element, below) in set.children() {
        let (child, declared) = match element {
            PathElement::Field(name) => map_child(node, name),
            _ => (list_items(node), false),
        };
        let mut ensured = ensure_named_fields(below, &child);
        if declared && typed_map && below.children().next().is_some() {
            ensured.set_root(true);
        }
        out.add_child(element.clone(), ensured);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::apply_schema::OpenApi;
    use super::super::fieldpath::{path, to_fields_v1};
    use super::*;
    use serde_json::json;

    fn deployment() -> Node<OpenApi<'static>> {
        OpenApi::of_kind("apps/v1", "Deployment")
    }

    fn configmap() -> Node<OpenApi<'static>> {
        OpenApi::of_kind("v1", "ConfigMap")
    }

    // Upstream: typed/validate.go `validateScalar` and typed/helpers.go `mapValue`: the
    // texts of values of the wrong type, with Go's formatting of a `*valueUnstructured`.
    #[test]
    fn type_mismatches_in_upstream_words() {
        let d = json!({"spec": {"paused": 1, "replicas": "3", "selector": 3,
            "template": {"metadata": {"name": 5}}, "minReadySeconds": null}});
        assert_eq!(
            type_mismatches(&d, &deployment()),
            [
                ".spec.paused: expected boolean, got &{1}",
                ".spec.replicas: expected numeric (int or float), got string",
                ".spec.selector: expected map, got &{3}",
                ".spec.template.metadata.name: expected string, got \
                 &value.valueUnstructured{Value:5}",
            ]
        );
        assert!(type_mismatches(&json!({"data": {"a": "b"}}), &configmap()).is_empty());
        assert_eq!(
            type_mismatches(&json!({"data": {"a": ["x", 1.5]}}), &configmap()),
            [
                ".data.a: expected string, got &value.valueUnstructured{Value:[]interface {}{\"x\", 1.5}}"
            ]
        );
    }

    // Upstream: typed/toset_test.go — leaves, keyed items, set items and undeclared map
    // keys are members; declared struct fields with children are not.
    #[test]
    fn field_set_of_a_deployment() {
        let d = json!({"spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i", "args": ["x"]}]}}},
            "metadata": {"finalizers": ["f"], "annotations": {}}});
        let set = to_field_set(&d, &deployment());
        assert_eq!(
            to_fields_v1(&set),
            json!({"f:metadata": {"f:annotations": {}, "f:finalizers": {"v:\"f\"": {}}},
                "f:spec": {"f:replicas": {}, "f:selector": {},
                "f:template": {"f:metadata": {"f:labels": {"f:a": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:args": {},
                    "f:image": {}, "f:name": {}}}}}}})
        );
    }

    // Upstream: typed/compare_test.go / merge/update_test.go — every added node is in
    // Added, including maps, and changed leaves are in Modified.
    #[test]
    fn compare_added_modified_removed() {
        let old = json!({"data": {"a": "1", "b": "2"}});
        let new = json!({"data": {"a": "3", "c": "4"}, "metadata": {"labels": {"x": "y"}}});
        let c = compare(&old, &new, &configmap());
        assert_eq!(c.modified, [path(&["f:data", "f:a"])].into_iter().collect());
        assert_eq!(c.removed, [path(&["f:data", "f:b"])].into_iter().collect());
        assert_eq!(
            c.added,
            [
                path(&["f:data", "f:c"]),
                path(&["f:metadata"]),
                path(&["f:metadata", "f:labels"]),
                path(&["f:metadata", "f:labels", "f:x"]),
            ]
            .into_iter()
            .collect()
        );
    }

    // Upstream: typed/merge_test.go "associative list" and "set" cases and
    // merge/multiple_appliers_test.go ordering — shared items follow the configuration's
    // order, live-only items keep their place.
    #[test]
    fn merge_lists_by_type() {
        let live = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "a1", "args": ["1", "2"]}, {"name": "b", "image": "b1"}]}}},
            "metadata": {"finalizers": ["x", "y"]}});
        let config = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "c", "image": "c1"}, {"name": "a", "image": "a2", "args": ["3"]}]}}},
            "metadata": {"finalizers": ["z", "x"]}});
        let merged = merge(&live, &config, &deployment());
        assert_eq!(
            merged["spec"]["template"]["spec"]["containers"],
            json!([{"name": "c", "image": "c1"}, {"name": "a", "image": "a2", "args": ["3"]},
                   {"name": "b", "image": "b1"}])
        );
        assert_eq!(merged["metadata"]["finalizers"], json!(["z", "x", "y"]));
        // A port applied without its protocol is the defaulted TCP one (a list-map key
        // with a default), not a second port.
        let live = json!({"spec": {"template": {"spec": {"containers": [{"name": "a",
            "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}]}}}});
        let config = json!({"spec": {"template": {"spec": {"containers": [{"name": "a",
            "ports": [{"containerPort": 80, "name": "web"}]}]}}}});
        assert_eq!(
            merge(&live, &config, &deployment())["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([{"containerPort": 80, "protocol": "TCP", "name": "web"}])
        );
        // An atomic map (the selector) is replaced whole.
        let live = json!({"spec": {"selector": {"matchLabels": {"a": "1", "b": "2"}}}});
        let config = json!({"spec": {"selector": {"matchLabels": {"a": "1"}}}});
        assert_eq!(
            merge(&live, &config, &deployment())["spec"]["selector"],
            json!({"matchLabels": {"a": "1"}})
        );
    }

    // Upstream: typed/remove_test.go — removing items and fields; emptied containers go.
    #[test]
    fn remove_items_and_ensure_named_fields() {
        let d = json!({"spec": {"replicas": 1, "template": {"spec": {"containers": [
            {"name": "a", "image": "a"}, {"name": "b", "image": "b"}]}}}});
        let set: Set = [
            path(&[
                "f:spec",
                "f:template",
                "f:spec",
                "f:containers",
                "k:{\"name\":\"a\"}",
            ]),
            path(&["f:spec", "f:replicas"]),
        ]
        .into_iter()
        .collect();
        let out = remove_items(&d, &set, &deployment()).unwrap();
        assert_eq!(
            out,
            json!({"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "b"}]}}}})
        );
        let cm = json!({"data": {"a": "1"}});
        let set: Set = [path(&["f:data", "f:a"])].into_iter().collect();
        assert_eq!(remove_items(&cm, &set, &configmap()), None);
        let ensured = ensure_named_fields(&set, &configmap());
        assert!(ensured.contains(&path(&["f:data"])));
        let labels: Set = [path(&["f:metadata", "f:labels", "f:x"])]
            .into_iter()
            .collect();
        let ensured = ensure_named_fields(&labels, &configmap());
        assert!(ensured.contains(&path(&["f:metadata", "f:labels"])));
        assert!(ensured.contains(&path(&["f:metadata"])));
    }

    // Upstream: typed/helpers.go keyedAssociativeListItemToPathElement's errors.
    #[test]
    fn unnamed_items_are_reported() {
        let d = json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}, 3]}}},
            "metadata": {"finalizers": [{"a": 1}]}});
        assert_eq!(
            duplicates(&d, &deployment()),
            vec![
                ".metadata.finalizers: element 0: associative list without keys has an element that's a map type",
                ".spec.template.spec.containers: element 0: associative list with keys has an element that omits key field \"name\" (and doesn't have default value)",
                ".spec.template.spec.containers: element 1: associative list with keys may not have non-map elements",
            ]
        );
    }

    #[test]
    fn duplicate_keys_are_reported() {
        let d = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a"}, {"name": "a"}]}}}});
        assert_eq!(
            duplicates(&d, &deployment()),
            vec![".spec.template.spec.containers: duplicate entries for key [name=\"a\"]"]
        );
    }

    /// A chain of `depth` maps `{"a": {"a": ... {leaf: value}}}` (`depth` path elements
    /// to the leaf), built without recursion.
    fn chain(depth: usize, leaf: &str, value: Value) -> Value {
        let mut v = json!({leaf: value});
        for _ in 1..depth {
            // Moved in (`json!` would copy `v` whole at every level).
            v = Value::Object(Map::from_iter([("a".to_owned(), v)]));
        }
        v
    }

    /// The path of `chain(depth, leaf, _)`'s leaf.
    fn chain_leaf(depth: usize, leaf: &str) -> Path {
        let mut p = vec![PathElement::Field("a".into()); depth - 1];
        p.push(PathElement::Field(leaf.into()));
        p
    }

    // Issue 28: upstream's ToFieldSet has no depth limit (typed/tofieldset.go); a value
    // 1,000 levels deep has every level in its field set (keys of an untyped map are
    // members), the leaf 1,000 elements down, and it round-trips through fieldsV1.
    #[test]
    fn field_sets_of_values_1000_levels_deep() {
        crate::documents::with_deep_stack(|| {
            let untyped: Node<OpenApi<'static>> = None;
            let v = chain(1_000, "x", json!(1));
            let set = to_field_set(&v, &untyped);
            assert_eq!(set.len(), 1_000);
            assert!(set.contains(&chain_leaf(1_000, "x")));
            let fields = to_fields_v1(&set);
            assert_eq!(
                super::super::fieldpath::from_fields_v1(&fields).unwrap(),
                set
            );
        });
    }

    // Issue 28: two managers' fields 1,000 levels deep, different leaves under one chain:
    // no conflict between them (upstream's Intersection of the two sets is the shared
    // chain's levels, which neither changes); changing one manager's leaf is a conflict
    // on that leaf's full path (merge/conflict_test.go's paths, at depth).
    #[test]
    fn deep_sets_conflict_only_on_the_changed_leaf() {
        crate::documents::with_deep_stack(|| {
            let untyped: Node<OpenApi<'static>> = None;
            let a = chain(1_000, "x", json!(1));
            let b = chain(1_000, "y", json!(2));
            let (set_a, set_b) = (to_field_set(&a, &untyped), to_field_set(&b, &untyped));
            let merged = merge(&a, &b, &untyped);
            let both = compare(&a, &merged, &untyped);
            assert!(both.modified.is_empty());
            assert_eq!(both.added.paths(), [chain_leaf(1_000, "y")]);
            assert!(set_a.intersection(&both.added).is_empty(), "no conflict");
            let changed = chain(1_000, "y", json!(3));
            let c = compare(&merged, &merge(&merged, &changed, &untyped), &untyped);
            assert_eq!(
                set_b.intersection(&c.modified.union(&c.added)).paths(),
                [chain_leaf(1_000, "y")]
            );
            // The removal of one deep leaf keeps the other.
            let removed = remove_items(
                &merged,
                &[chain_leaf(1_000, "y")].into_iter().collect(),
                &untyped,
            );
            assert_eq!(removed, Some(a.clone()));
        });
    }

    // Issue 28: past MAX_DEPTH a value is one member (its field set stops where the stored
    // fieldsV1 would leave what the documents reader reads back).
    #[test]
    fn field_sets_stop_where_fields_v1_would_not_read_back() {
        crate::documents::with_deep_stack(|| {
            let untyped: Node<OpenApi<'static>> = None;
            let v = chain(MAX_DEPTH + 3, "x", json!(1));
            let set = to_field_set(&v, &untyped);
            assert_eq!(set.len(), MAX_DEPTH);
            // The chain of members ends MAX_DEPTH elements down.
            let mut node = &set;
            let mut depth = 0;
            while let Some((_, below)) = node.children().next() {
                assert!(below.has_root());
                node = below;
                depth += 1;
            }
            assert_eq!(depth, MAX_DEPTH);
            assert_eq!(MAX_DEPTH + FIELDS_V1_DEPTH, crate::documents::MAX_DEPTH);
        });
    }
}

//! Field paths and field sets, as structured-merge-diff's `fieldpath` package models them,
//! and their wire form `FieldsV1` (`metadata.managedFields[*].fieldsV1`).
//!
//! A path is a list of elements: a field of a map (`f:<name>`), an item of a list of type
//! map named by its key fields (`k:{"name":"x"}`), an item of a set named by its value
//! (`v:"a"`), or an item named by its position (`i:0`). A set is the set of paths that are
//! its members, kept as a tree of elements; in `FieldsV1` a member that also has members
//! below it carries `".": {}`.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathElement {
    /// A field of a map or struct.
    Field(String),
    /// An item of an associative list, named by its key fields (sorted by name).
    Key(Vec<(String, Value)>),
    /// An item of a set, named by its value.
    Value(Value),
    /// An item named by its position.
    Index(usize),
}

/// A path from the root of an object.
pub type Path = Vec<PathElement>;

/// A set of paths, kept as structured-merge-diff keeps it: a tree of path elements, each
/// node saying whether the path that leads to it is a member. A path's prefix is stored
/// once whatever the number of members below it, so the set of an object `N` levels deep
/// holds `N` nodes, not `N` paths of up to `N` elements. Every child holds a member (no
/// empty branches), so equal sets are equal trees.
///
/// The operations walk the tree recursively, one small frame per level; like serde_json's
/// `Drop` and `Clone` of a deep value (and the derived ones here), they run on the server's
/// deep stack ([`crate::documents::DEEP_STACK`]) for sets as deep as a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Set {
    member: bool,
    children: BTreeMap<PathElement, Set>,
}

impl Set {
    /// The empty set.
    pub const fn new() -> Set {
        Set {
            member: false,
            children: BTreeMap::new(),
        }
    }

    /// Whether the set has no members.
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.is_empty()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        usize::from(self.member) + self.children.values().map(Set::len).sum::<usize>()
    }

    /// Adds a path.
    pub fn insert(&mut self, path: &[PathElement]) {
        let mut node = self;
        for element in path {
            node = node.children.entry(element.clone()).or_default();
        }
        node.member = true;
    }

    /// Whether a path is a member.
    pub fn contains(&self, path: &[PathElement]) -> bool {
        let mut node = self;
        for element in path {
            match node.children.get(element) {
                Some(child) => node = child,
                None => return false,
            }
        }
        node.member
    }

    /// Whether the empty path (the root) is a member.
    pub fn has_root(&self) -> bool {
        self.member
    }

    /// Makes the empty path (the root) a member or not.
    pub fn set_root(&mut self, member: bool) {
        self.member = member;
    }

    /// The members that start with `element`, without it (upstream's `WithPrefix`), if any.
    pub fn child(&self, element: &PathElement) -> Option<&Set> {
        self.children.get(element)
    }

    /// The first elements of the members, with the members below each (without it).
    pub fn children(&self) -> impl Iterator<Item = (&PathElement, &Set)> {
        self.children.iter()
    }

    /// Adds `set` below `element` (each member `p` of `set` as `element` + `p`).
    pub fn add_child(&mut self, element: PathElement, set: Set) {
        if set.is_empty() {
            return;
        }
        match self.children.entry(element) {
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert(set);
            }
            std::collections::btree_map::Entry::Occupied(mut entry) => {
                entry.get_mut().union_with(&set);
            }
        }
    }

    /// Adds the members of `other`.
    pub fn union_with(&mut self, other: &Set) {
        self.member |= other.member;
        for (element, child) in &other.children {
            match self.children.get_mut(element) {
                Some(mine) => mine.union_with(child),
                None => {
                    self.children.insert(element.clone(), child.clone());
                }
            }
        }
    }

    /// The members of either set.
    pub fn union(&self, other: &Set) -> Set {
        let mut out = self.clone();
        out.union_with(other);
        out
    }

    /// The members of this set that are not members of `other`.
    pub fn difference(&self, other: &Set) -> Set {
        let mut out = Set {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            match other.children.get(element) {
                Some(theirs) => out.add_child(element.clone(), child.difference(theirs)),
                None => {
                    out.children.insert(element.clone(), child.clone());
                }
            }
        }
        out
    }

    /// The members of both sets.
    pub fn intersection(&self, other: &Set) -> Set {
        let mut out = Set {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            if let Some(theirs) = other.children.get(element) {
                out.add_child(element.clone(), child.intersection(theirs));
            }
        }
        out
    }

    /// The members, in order (each path written out: for tests and reports).
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        // Each frame: a node's children still to visit.
        let mut stack = vec![self.children.iter()];
        if self.member {
            out.push(Vec::new());
        }
        while let Some(next) = stack.last_mut().map(Iterator::next) {
            match next {
                Some((element, child)) => {
                    path.push(element.clone());
                    if child.member {
                        out.push(path.clone());
                    }
                    stack.push(child.children.iter());
                }
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
        out
    }
}

impl FromIterator<Path> for Set {
    fn from_iter<I: IntoIterator<Item = Path>>(paths: I) -> Set {
        let mut set = Set::new();
        for path in paths {
            set.insert(&path);
        }
        set
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    }
}

/// A total order of values, as structured-merge-diff's `value.Compare` (numbers, strings,
/// booleans, lists, maps, null).
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => {
                let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (l, r) in x.iter().zip(y) {
                let c = compare_values(l, r);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut xs: Vec<_> = x.iter().collect();
            let mut ys: Vec<_> = y.iter().collect();
            xs.sort_by(|l, r| l.0.cmp(r.0));
            ys.sort_by(|l, r| l.0.cmp(r.0));
            for ((lk, lv), (rk, rv)) in xs.iter().zip(&ys) {
                let c = lk.cmp(rk).then_with(|| compare_values(lv, rv));
                if c != Ordering::Equal {
                    return c;
                }
            }
            xs.len().cmp(&ys.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        use PathElement::*;
        let kind = |e: &PathElement| match e {
            Field(_) => 0,
            Key(_) => 1,
            Value(_) => 2,
            Index(_) => 3,
        };
        match (self, other) {
            (Field(a), Field(b)) => a.cmp(b),
            (Key(a), Key(b)) => {
                let c = a.len().cmp(&b.len());
                if c != Ordering::Equal {
                    return c;
                }
                for ((an, av), (bn, bv)) in a.iter().zip(b) {
                    let c = an.cmp(bn).then_with(|| compare_values(av, bv));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                Ordering::Equal
            }
            (Value(a), Value(b)) => compare_values(a, b),
            (Index(a), Index(b)) => a.cmp(b),
            _ => kind(self).cmp(&kind(other)),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Writes a path as upstream prints it in conflicts: `.spec.containers[name="c"].image`,
/// `.metadata.finalizers[="f"]`, `.items[0]`.
pub struct PathText<'a>(pub &'a [PathElement]);

impl fmt::Display for PathText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for element in self.0 {
            match element {
                PathElement::Field(name) => write!(f, ".{name}")?,
                PathElement::Key(fields) => {
                    let inner: Vec<String> =
                        fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "[{}]", inner.join(","))?
                }
                PathElement::Value(v) => write!(f, "[={v}]")?,
                PathElement::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Why `FieldsV1` does not decode (structured-merge-diff's texts).
#[derive(Debug, thiserror::Error)]
pub enum FieldsError {
    /// A key without `kind:`.
    #[error("unexpected path element {0:?}")]
    Element(String),
    /// A `k:` or `v:` key whose JSON does not parse.
    #[error("parsing JSON {text:?}: {error}")]
    Json {
        /// The JSON text.
        text: String,
        /// The parser's error.
        error: serde_json::Error,
    },
    /// An `i:` key that is not an index.
    #[error("parsing index {text:?}: {error}")]
    Index {
        /// The index text.
        text: String,
        /// The parser's error.
        error: std::num::ParseIntError,
    },
    /// A key of another kind than `f`, `k`, `v`, `i`.
    #[error("unknown path element type {0:?}")]
    ElementType(String),
    /// Deeper than the documents reader reads ([`crate::documents::MAX_DEPTH`]).
    #[error("fieldsV1 nested too deeply")]
    TooDeep,
    /// A member that is not an object.
    #[error("expected an object in fieldsV1")]
    NotAnObject,
}

impl PathElement {
    /// The element's `FieldsV1` key.
    pub fn to_key(&self) -> String {
        match self {
            PathElement::Field(name) => format!("f:{name}"),
            PathElement::Key(fields) => {
                let map: Map<String, Value> = fields.iter().cloned().collect();
                format!("k:{}", Value::Object(map))
            }
            PathElement::Value(v) => format!("v:{v}"),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// Reads a `FieldsV1` key.
    pub fn from_key(key: &str) -> Result<PathElement, FieldsError> {
        let (kind, rest) = key
            .split_once(':')
            .ok_or_else(|| FieldsError::Element(key.to_owned()))?;
        let json_error = |error| FieldsError::Json {
            text: rest.to_owned(),
            error,
        };
        match kind {
            "f" => Ok(PathElement::Field(rest.to_owned())),
            "k" => {
                let map: Map<String, Value> = serde_json::from_str(rest).map_err(json_error)?;
                let mut fields: Vec<(String, Value)> = map.into_iter().collect();
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(PathElement::Key(fields))
            }
            "v" => Ok(PathElement::Value(
                serde_json::from_str(rest).map_err(json_error)?,
            )),
            "i" => rest
                .parse()
                .map(PathElement::Index)
                .map_err(|error| FieldsError::Index {
                    text: rest.to_owned(),
                    error,
                }),
            _ => Err(FieldsError::ElementType(kind.to_owned())),
        }
    }
}

/// `set` without the members that are in `remove` or below one of its members (upstream's
/// `RecursiveDifference`; the root of `remove` removes nothing).
pub fn recursive_difference(set: &Set, remove: &Set) -> Set {
    let mut out = Set {
        member: set.member,
        children: BTreeMap::new(),
    };
    for (element, child) in &set.children {
        match remove.children.get(element) {
            Some(gone) if gone.member => {}
            Some(gone) => out.add_child(element.clone(), recursive_difference(child, gone)),
            None => {
                out.children.insert(element.clone(), child.clone());
            }
        }
    }
    out
}

/// Writes a set as `FieldsV1`.
pub fn to_fields_v1(set: &Set) -> Value {
    fn write(node: &Set, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self && node.member && !node.children.is_empty() {
            out.insert(".".to_owned(), Value::Object(Map::new()));
        }
        for (element, child) in &node.children {
            out.insert(element.to_key(), Value::Object(write(child, true)));
        }
        out
    }
    Value::Object(write(set, false))
}

/// Reads `FieldsV1` into a set, as deep as the documents reader reads
/// ([`crate::documents::MAX_DEPTH`]).
pub fn from_fields_v1(fields: &Value) -> Result<Set, FieldsError> {
    fn read(node: &Value, out: &mut Set, depth: usize) -> Result<(), FieldsError> {
        if depth > crate::documents::MAX_DEPTH {
            return Err(FieldsError::TooDeep);
        }
        let map = node.as_object().ok_or(FieldsError::NotAnObject)?;
        for (key, child) in map {
            if key == "." {
                if depth > 0 {
                    out.member = true;
                }
                continue;
            }
            let element = PathElement::from_key(key)?;
            let mut below = Set::new();
            if child.as_object().is_some_and(Map::is_empty) {
                below.member = true;
            } else {
                read(child, &mut below, depth + 1)?;
            }
            out.add_child(element, below);
        }
        Ok(())
    }
    let mut out = Set::new();
    read(fields, &mut out, 0)?;
    Ok(out)
}

/// Makes a path from `FieldsV1` keys (for tests and fixed paths).
pub fn path(keys: &[&str]) -> Path {
    keys.iter()
        .map(|k| PathElement::from_key(k).expect("valid path element"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Upstream: fieldpath/serialize_test.go (round trips of FieldsV1) and
    // fieldpath/path_test.go (String of paths).
    #[test]
    fn fields_v1_round_trip_with_dot_for_members_that_have_children() {
        let fields = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}, "f:name": {}}},
                       "f:finalizers": {"v:\"a\"": {}}, "f:items": {"i:0": {}}}
        });
        let set = from_fields_v1(&fields).unwrap();
        assert!(set.contains(&path(&["f:metadata", "f:labels"])));
        assert!(!set.contains(&path(&["f:metadata"])));
        assert!(set.contains(&path(&["f:spec", "f:containers", "k:{\"name\":\"c\"}"])));
        assert_eq!(set.len(), 7);
        assert_eq!(to_fields_v1(&set), fields);
    }

    #[test]
    fn paths_print_as_upstream() {
        let p = path(&[
            "f:spec",
            "f:ports",
            "k:{\"protocol\":\"TCP\",\"port\":80}",
            "f:name",
        ]);
        assert_eq!(
            PathText(&p).to_string(),
            ".spec.ports[port=80,protocol=\"TCP\"].name"
        );
        let p = path(&["f:metadata", "f:finalizers", "v:\"x\"", "i:3"]);
        assert_eq!(PathText(&p).to_string(), ".metadata.finalizers[=\"x\"][3]");
    }

    #[test]
    fn set_algebra() {
        let set: Set = [path(&["f:a", "f:b"]), path(&["f:a", "f:c"]), path(&["f:d"])]
            .into_iter()
            .collect();
        let a = PathElement::Field("a".into());
        assert_eq!(set.child(&a).map(Set::len), Some(2));
        assert_eq!(set.len(), 3);
        assert_eq!(
            set.paths(),
            [path(&["f:a", "f:b"]), path(&["f:a", "f:c"]), path(&["f:d"])]
        );
        let remove: Set = [path(&["f:a"])].into_iter().collect();
        assert_eq!(
            recursive_difference(&set, &remove),
            [path(&["f:d"])].into_iter().collect()
        );
        assert!(PathElement::from_key("x:1").is_err());
        assert!(from_fields_v1(&json!({"f:a": 1})).is_err());
    }

    // Upstream: fieldpath/set_test.go (TestSetUnion, TestSetDifference,
    // TestSetIntersection, TestEnsureNamedFieldsAreMembers' tree form): members only,
    // a prefix of a member is not one.
    #[test]
    fn set_operations_are_member_wise() {
        let a: Set = [path(&["f:a", "f:b"]), path(&["f:a"]), path(&["f:c"])]
            .into_iter()
            .collect();
        let b: Set = [path(&["f:a", "f:b"]), path(&["f:d", "f:e"])]
            .into_iter()
            .collect();
        assert_eq!(
            a.union(&b).paths(),
            [
                path(&["f:a"]),
                path(&["f:a", "f:b"]),
                path(&["f:c"]),
                path(&["f:d", "f:e"])
            ]
        );
        assert_eq!(a.difference(&b).paths(), [path(&["f:a"]), path(&["f:c"])]);
        assert_eq!(a.intersection(&b).paths(), [path(&["f:a", "f:b"])]);
        assert!(!b.contains(&path(&["f:d"])));
        assert!(b.difference(&b).is_empty());
        assert_eq!(b.difference(&b), Set::new());
    }

    // Issue 28: fieldsV1 is read as deep as the documents reader reads, no deeper.
    #[test]
    fn fields_v1_as_deep_as_documents() {
        crate::documents::with_deep_stack(|| {
            let deep = |levels: usize| {
                let mut v = json!({});
                for _ in 0..levels {
                    // Moved in (`json!` would copy `v` whole at every level).
                    v = Value::Object(Map::from_iter([("f:a".to_owned(), v)]));
                }
                v
            };
            let set = from_fields_v1(&deep(crate::documents::MAX_DEPTH)).unwrap();
            assert_eq!(set.len(), 1);
            assert_eq!(to_fields_v1(&set), deep(crate::documents::MAX_DEPTH));
            assert!(matches!(
                from_fields_v1(&deep(crate::documents::MAX_DEPTH + 2)),
                Err(FieldsError::TooDeep)
            ));
        });
    }
}

//! Label selectors (the full set-based syntax) and field selectors (`metadata.name`,
//! `metadata.namespace` and the per-kind fields upstream supports for the served kinds).

use serde_json::Value;

use crate::object::Object;

#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<Requirement>);

/// Splits on commas outside parentheses.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn values_in_parens(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .collect(),
    )
}

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (f,g),!h,i`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        if text.trim().is_empty() {
            return Ok(LabelSelector(requirements));
        }
        for part in split_top(text) {
            let part = part.trim();
            let bad =
                || format!("unable to parse requirement: found '{part}', expected: identifier");
            let requirement = if let Some(key) = part.strip_prefix('!') {
                Requirement::NotExists(key.trim().to_owned())
            } else if let Some((key, value)) = part.split_once("!=") {
                Requirement::NotIn(key.trim().to_owned(), vec![value.trim().to_owned()])
            } else if let Some((key, value)) =
                part.split_once("==").or_else(|| part.split_once('='))
            {
                Requirement::In(key.trim().to_owned(), vec![value.trim().to_owned()])
            } else if let Some((key, rest)) = part.split_once(" notin ") {
                Requirement::NotIn(
                    key.trim().to_owned(),
                    values_in_parens(rest).ok_or_else(bad)?,
                )
            } else if let Some((key, rest)) = part.split_once(" in ") {
                Requirement::In(
                    key.trim().to_owned(),
                    values_in_parens(rest).ok_or_else(bad)?,
                )
            } else {
                Requirement::Exists(part.to_owned())
            };
            let key = match &requirement {
                Requirement::Exists(k)
                | Requirement::NotExists(k)
                | Requirement::In(k, _)
                | Requirement::NotIn(k, _) => k,
            };
            if !valid_key(key) {
                return Err(bad());
            }
            requirements.push(requirement);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether the object's labels satisfy every requirement.
    pub fn matches(&self, object: &Object) -> bool {
        let labels = object.get("metadata").and_then(|m| m.get("labels"));
        let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::NotExists(k) => label(k).is_none(),
            Requirement::In(k, vs) => label(k).is_some_and(|v| vs.iter().any(|x| x == v)),
            Requirement::NotIn(k, vs) => label(k).is_none_or(|v| !vs.iter().any(|x| x == v)),
        })
    }
}

/// A parsed field selector: `field=value` / `field==value` / `field!=value` terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

/// The fields a kind can be selected by, beyond `metadata.name` and `metadata.namespace`.
fn kind_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Namespace" => &["status.phase"],
        "Secret" => &["type"],
        "Event" => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        _ => &[],
    }
}

impl FieldSelector {
    /// Parses a field selector for objects of `kind`.
    pub fn parse(text: &str, kind: &str) -> Result<Self, String> {
        let mut terms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, equal, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{text}'; can't understand '{part}'"
                ));
            };
            let field = field.trim();
            if !matches!(field, "metadata.name" | "metadata.namespace")
                && !kind_fields(kind).contains(&field)
            {
                return Err(format!("field label not supported: {field}"));
            }
            terms.push((field.to_owned(), equal, value.trim().to_owned()));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether the object's fields satisfy every term.
    pub fn matches(&self, object: &Object) -> bool {
        self.0.iter().all(|(field, equal, value)| {
            let actual = if field == "source" {
                object
                    .get("source")
                    .and_then(|s| s.get("component"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            } else {
                let mut node = object.get(field.split('.').next().unwrap_or(""));
                for part in field.split('.').skip(1) {
                    node = node.and_then(|n| n.get(part));
                }
                node.and_then(Value::as_str).unwrap_or("")
            };
            (actual == value) == *equal
        })
    }

    /// The name the selector pins, if it has a `metadata.name=` term.
    pub fn name(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, eq, _)| f == "metadata.name" && *eq)
            .map(|(_, _, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn set_based_label_selectors() {
        let o = obj(json!({"metadata": {"labels": {"app": "web", "tier": "front"}}}));
        for (sel, want) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (db, web)", true),
            ("app notin (web)", false),
            ("tier,!missing", true),
            ("missing", false),
            ("app=web,tier in (back)", false),
            ("", true),
            ("missing!=x", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&o),
                want,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("a in b").is_err());
        assert!(LabelSelector::parse("a b=c").is_err());
    }

    #[test]
    fn field_selectors() {
        let o = obj(json!({"metadata": {"name": "a", "namespace": "ns"}, "type": "Opaque"}));
        let s = FieldSelector::parse("metadata.name=a,metadata.namespace!=x", "ConfigMap").unwrap();
        assert!(s.matches(&o));
        assert_eq!(s.name(), Some("a"));
        assert!(
            FieldSelector::parse("type=Opaque", "Secret")
                .unwrap()
                .matches(&o)
        );
        assert_eq!(
            FieldSelector::parse("spec.x=1", "ConfigMap").unwrap_err(),
            "field label not supported: spec.x"
        );
    }
}

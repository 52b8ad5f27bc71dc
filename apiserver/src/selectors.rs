//! Label selectors (the full set-based syntax, parsed by the library's apimachinery parser)
//! and field selectors (`metadata.name`, `metadata.namespace` and the per-kind fields
//! upstream supports for the served kinds).

use serde_json::Value;

use kcel_stdlib::kubernetes::selectors::{
    FieldRequirement, LabelRequirement, SelectorError, parse_field_selector, parse_label_selector,
};

use crate::object::Object;

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<LabelRequirement>);

impl LabelSelector {
    /// Parses a label selector with apimachinery's parser and error texts
    /// (`labels.Parse`: `a=b,c!=d,e in (f,g),!h,i,j>1`).
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        parse_label_selector(text).map(LabelSelector)
    }

    /// Whether the object's labels satisfy every requirement.
    pub fn matches(&self, object: &Object) -> bool {
        let labels = object.get("metadata").and_then(|m| m.get("labels"));
        let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        let number = |v: &str| v.parse::<i64>().ok();
        self.0.iter().all(|r| {
            let value = label(&r.key);
            let one_of = |v: &str| r.values.iter().any(|x| x == v);
            match r.operator {
                "exists" => value.is_some(),
                "!" => value.is_none(),
                "=" | "==" | "in" => value.is_some_and(one_of),
                "!=" | "notin" => value.is_none_or(|v| !one_of(v)),
                "gt" | "lt" => {
                    let (Some(v), Some(bound)) = (value.and_then(number), r.values.first()) else {
                        return false;
                    };
                    let Some(bound) = number(bound) else {
                        return false;
                    };
                    if r.operator == "gt" {
                        v > bound
                    } else {
                        v < bound
                    }
                }
                _ => false,
            }
        })
    }
}

/// A parsed field selector: `field=value` / `field==value` / `field!=value` terms, parsed
/// by the library's apimachinery parser (`fields.ParseSelector`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<FieldRequirement>);

/// Why a field selector is refused (a 400 with these texts).
#[derive(Debug, thiserror::Error)]
pub enum FieldSelectorError {
    /// The selector does not parse (apimachinery's text).
    #[error(transparent)]
    Syntax(#[from] SelectorError),
    /// A field the kind cannot be selected by (upstream's field label conversion).
    #[error("field label not supported: {0}")]
    Unsupported(String),
}

/// The fields a kind of an API group can be selected by, beyond `metadata.name` and
/// `metadata.namespace`.
fn kind_fields(group: &str, kind: &str) -> &'static [&'static str] {
    match (group, kind) {
        ("", "Namespace") => &["status.phase"],
        ("", "Secret") => &["type"],
        // pkg/apis/core/v1 conversion.go, the Pod's field label conversion.
        ("", "Pod") => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        // pkg/registry/core/event's selectable fields.
        ("", "Event") => &[
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
        // pkg/apis/events/v1's field label conversion: the core Event's fields under their
        // events.k8s.io/v1 names (the core spellings are not accepted here).
        ("events.k8s.io", "Event") => &[
            "regarding.kind",
            "regarding.namespace",
            "regarding.name",
            "regarding.uid",
            "regarding.apiVersion",
            "regarding.resourceVersion",
            "regarding.fieldPath",
            "reason",
            "reportingController",
            "source",
            "type",
        ],
        _ => &[],
    }
}

/// Where an Event's `source` field is read, in order: the first non-empty one (upstream:
/// the source's component, else the reporting controller). The first two are the core
/// v1 names, the last two events.k8s.io/v1's; an object has the fields of one of them.
const EVENT_SOURCE: [&[&str]; 4] = [
    &["source", "component"],
    &["deprecatedSource", "component"],
    &["reportingComponent"],
    &["reportingController"],
];

impl FieldSelector {
    /// Parses a field selector for objects of the built-in `kind` of API `group` (`""` for
    /// the core group).
    pub fn parse(text: &str, group: &str, kind: &str) -> Result<Self, FieldSelectorError> {
        Self::parse_with(text, &|field| {
            matches!(field, "metadata.name" | "metadata.namespace")
                || kind_fields(group, kind).contains(&field)
        })
    }

    /// Parses a field selector whose fields `supported` accepts (upstream's field label
    /// conversion: any other is `field label not supported: <field>`).
    pub fn parse_with(
        text: &str,
        supported: &dyn Fn(&str) -> bool,
    ) -> Result<Self, FieldSelectorError> {
        let terms = parse_field_selector(text)?;
        if let Some(term) = terms.iter().find(|t| !supported(&t.field)) {
            return Err(FieldSelectorError::Unsupported(term.field.clone()));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether the object's fields satisfy every term.
    pub fn matches(&self, object: &Object) -> bool {
        self.0.iter().all(|term| {
            let (field, value) = (&term.field, &term.value);
            let equal = term.operator == "=";
            if field == "spec.hostNetwork" {
                // A Pod's `ToSelectableFields`: unset reads as `false`.
                let on = object
                    .get("spec")
                    .and_then(|s| s.get("hostNetwork"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                return (value == if on { "true" } else { "false" }) == equal;
            }
            let actual = if field == "source" {
                EVENT_SOURCE
                    .iter()
                    .filter_map(|path| {
                        let mut node = object.get(path[0]);
                        for part in &path[1..] {
                            node = node.and_then(|n| n.get(part));
                        }
                        node.and_then(Value::as_str)
                    })
                    .find(|s| !s.is_empty())
                    .unwrap_or("")
            } else {
                let mut node = object.get(field.split('.').next().unwrap_or(""));
                for part in field.split('.').skip(1) {
                    node = node.and_then(|n| n.get(part));
                }
                // Integers and booleans (selectable fields of custom resources) as Go's
                // fmt.Sprint prints them.
                return match node {
                    Some(Value::String(s)) => s == value,
                    Some(Value::Bool(b)) => value == if *b { "true" } else { "false" },
                    Some(Value::Number(n)) => value
                        .parse::<serde_json::Number>()
                        .is_ok_and(|v| v == *n && v.to_string() == *value),
                    _ => value.is_empty(),
                } == equal;
            };
            (actual == value) == equal
        })
    }

    /// The name the selector pins, if it has a `metadata.name=` term.
    pub fn name(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|t| t.field == "metadata.name" && t.operator == "=")
            .map(|t| t.value.as_str())
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
        let numbers = obj(json!({"metadata": {"labels": {"n": "5"}}}));
        assert!(LabelSelector::parse("n>4").unwrap().matches(&numbers));
        assert!(!LabelSelector::parse("n<5").unwrap().matches(&numbers));
    }

    #[test]
    fn field_selectors() {
        let o = obj(json!({"metadata": {"name": "a", "namespace": "ns"}, "type": "Opaque"}));
        let s =
            FieldSelector::parse("metadata.name=a,metadata.namespace!=x", "", "ConfigMap").unwrap();
        assert!(s.matches(&o));
        assert_eq!(s.name(), Some("a"));
        assert!(
            FieldSelector::parse("type=Opaque", "", "Secret")
                .unwrap()
                .matches(&o)
        );
        assert_eq!(
            FieldSelector::parse("spec.x=1", "", "ConfigMap")
                .unwrap_err()
                .to_string(),
            "field label not supported: spec.x"
        );
        // A Pod's selectable fields; an unset hostNetwork is "false".
        let pod = obj(json!({"spec": {"nodeName": ""}, "status": {"phase": "Pending"}}));
        let pending =
            FieldSelector::parse("status.phase=Pending,spec.hostNetwork=false", "", "Pod");
        assert!(pending.unwrap().matches(&pod));
        let on_host = FieldSelector::parse("spec.hostNetwork=true", "", "Pod").unwrap();
        assert!(!on_host.matches(&pod));
        assert!(FieldSelector::parse("spec.containers=x", "", "Pod").is_err());
        // apimachinery's parser: escaped values, its syntax errors.
        let escaped = FieldSelector::parse("metadata.name=a\\,b", "", "ConfigMap").unwrap();
        assert_eq!(escaped.name(), Some("a,b"));
        assert_eq!(
            FieldSelector::parse("metadata.name", "", "ConfigMap")
                .unwrap_err()
                .to_string(),
            "invalid selector: 'metadata.name'; can't understand 'metadata.name'"
        );
        assert_eq!(
            FieldSelector::parse("metadata.name=a=b", "", "ConfigMap")
                .unwrap_err()
                .to_string(),
            "invalid field selector: unescaped character in value: 61"
        );
    }

    #[test]
    fn event_field_selectors_in_either_group() {
        let core = obj(json!({
            "involvedObject": {"kind": "Pod", "name": "web"},
            "reason": "Pulled",
            "reportingComponent": "kubelet",
            "source": {"host": "node-1"},
        }));
        let events = obj(json!({
            "regarding": {"kind": "Pod", "name": "web"},
            "reason": "Pulled",
            "reportingController": "kubelet",
            "deprecatedSource": {"component": "scheduler"},
        }));
        let core_selector =
            |text: &str| FieldSelector::parse(text, "", "Event").map(|s| s.matches(&core));
        let events_selector = |text: &str| {
            FieldSelector::parse(text, "events.k8s.io", "Event").map(|s| s.matches(&events))
        };
        assert!(core_selector("involvedObject.name=web,reason=Pulled").unwrap());
        // No source component: the reporting controller stands in.
        assert!(core_selector("source=kubelet").unwrap());
        assert!(core_selector("reportingComponent=kubelet").unwrap());
        assert!(events_selector("regarding.kind=Pod,regarding.name=web").unwrap());
        assert!(events_selector("reportingController=kubelet").unwrap());
        assert!(events_selector("source=scheduler").unwrap());
        assert!(!events_selector("regarding.name!=web").unwrap());
        // Each group's spellings only, as upstream's field label conversions.
        for (text, parse) in [
            (
                "involvedObject.name=web",
                &events_selector as &dyn Fn(&str) -> _,
            ),
            ("reportingComponent=kubelet", &events_selector),
            ("regarding.name=web", &core_selector),
        ] {
            let field = text.split('=').next().unwrap();
            assert_eq!(
                parse(text).unwrap_err().to_string(),
                format!("field label not supported: {field}")
            );
        }
    }
}

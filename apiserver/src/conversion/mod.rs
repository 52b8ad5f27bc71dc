//! The built-in resources kube-apiserver serves in a second version of the same objects:
//! `autoscaling/v1` HorizontalPodAutoscalers (stored as `autoscaling/v2`) and
//! `events.k8s.io/v1` Events (stored as core `v1` Events, under the same keys). An object
//! is stored in its storage version and converted on every read and write in the other
//! ([`crate::crd::Versions`] calls [`convert`]), with upstream's field mapping
//! ([`hpa_versions`]: kubernetes `pkg/apis/autoscaling/v1/conversion.go`; [`events`]:
//! `pkg/apis/events/v1/conversion.go`); admission's `matchPolicy: Equivalent` converts
//! with the same functions ([`Equivalents`]).

pub mod events;
pub mod hpa_versions;

use serde_json::Value;

use kcel_stdlib::kubernetes::admission::{
    EquivalentResources, GroupVersionKind, GroupVersionResource, ResourceTable,
};

use crate::error::ApiError;
use crate::object::Object;

/// Why an object does not convert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversionError {
    /// A round-trip annotation of an `autoscaling/v1` HorizontalPodAutoscaler whose value is
    /// not the JSON it carries (upstream fails the conversion with the decoder's error).
    #[error("annotation {key}: {cause}")]
    Annotation {
        /// The annotation, e.g. `autoscaling.alpha.kubernetes.io/metrics`.
        key: &'static str,
        /// The JSON decoder's error.
        cause: String,
    },
    /// No conversion between these versions of the kind.
    #[error("converting {kind} from {from} to {to} is not supported")]
    Unsupported {
        /// The object's kind.
        kind: String,
        /// The object's `apiVersion`.
        from: String,
        /// The `apiVersion` asked for.
        to: String,
    },
}

impl From<ConversionError> for ApiError {
    fn from(e: ConversionError) -> ApiError {
        ApiError::internal(e.to_string())
    }
}

/// Converts `object`, an object of the API version `from` (`autoscaling/v2`, `v1`, ...),
/// to `to`: the same object, its `apiVersion` and fields those of `to`. An object already
/// in `to` comes back as it is.
pub fn convert(object: Object, from: &str, to: &str) -> Result<Object, ConversionError> {
    if from == to {
        return Ok(object);
    }
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut converted = match (kind.as_str(), from, to) {
        ("HorizontalPodAutoscaler", "autoscaling/v1", "autoscaling/v2") => {
            hpa_versions::v1_to_v2(object)?
        }
        ("HorizontalPodAutoscaler", "autoscaling/v2", "autoscaling/v1") => {
            hpa_versions::v2_to_v1(object)
        }
        ("Event", "events.k8s.io/v1", "v1") => events::to_core(object),
        ("Event", "v1", "events.k8s.io/v1") => events::from_core(object),
        _ => {
            return Err(ConversionError::Unsupported {
                kind,
                from: from.to_owned(),
                to: to.to_owned(),
            });
        }
    };
    converted.insert("apiVersion".to_owned(), Value::from(to));
    converted.insert("kind".to_owned(), Value::from(kind));
    Ok(converted)
}

/// Moves the entries of `from` to a new map in the order of `fields`, renaming each
/// `(old, new)`; entries not named are dropped.
pub(crate) fn mapped(from: &mut Object, fields: &[(&str, &str)]) -> Object {
    let mut out = Object::new();
    for (old, new) in fields {
        if let Some(v) = from.remove(*old) {
            out.insert((*new).to_owned(), v);
        }
    }
    out
}

/// kube-apiserver's equivalent-resource registry for admission (`matchPolicy:
/// Equivalent`): the library's table of the built-in equivalents, converting objects with
/// [`convert`] rather than by their `apiVersion` alone.
#[derive(Debug, Default)]
pub struct Equivalents {
    table: ResourceTable,
}

impl Equivalents {
    /// The built-in equivalents (HorizontalPodAutoscalers in `autoscaling/v1` and `v2`,
    /// Events in `v1` and `events.k8s.io/v1`).
    pub fn builtin() -> Equivalents {
        Equivalents {
            table: ResourceTable::builtin(),
        }
    }
}

impl EquivalentResources for Equivalents {
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Vec<GroupVersionResource> {
        self.table.equivalents(resource, subresource)
    }

    fn kind_for(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Option<GroupVersionKind> {
        self.table.kind_for(resource, subresource)
    }

    fn convert(
        &self,
        object: &Value,
        kind: &GroupVersionKind,
    ) -> Result<Value, kcel_stdlib::kubernetes::admission::ConversionError> {
        let to = if kind.group.is_empty() {
            kind.version.clone()
        } else {
            format!("{}/{}", kind.group, kind.version)
        };
        let from = object.get("apiVersion").and_then(Value::as_str);
        match (object, from) {
            (Value::Object(map), Some(from)) => match convert(map.clone(), from, &to) {
                Ok(converted) => Ok(Value::Object(converted)),
                // Versions with no conversion here share their schema: the library's.
                Err(ConversionError::Unsupported { .. }) => self.table.convert(object, kind),
                Err(e) => Err(kcel_stdlib::kubernetes::admission::ConversionError {
                    message: e.to_string(),
                }),
            },
            _ => self.table.convert(object, kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resource::{
        EVENTS_K8S_IO_EVENTS, HORIZONTALPODAUTOSCALERS_V1, Resource, SERVED, storage_of,
    };

    #[test]
    fn second_versions_convert_to_their_storage_and_back() {
        let seconds: Vec<&Resource> = SERVED.iter().filter(|r| storage_of(r).is_some()).collect();
        assert_eq!(
            seconds,
            [&EVENTS_K8S_IO_EVENTS, &HORIZONTALPODAUTOSCALERS_V1]
        );
        let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e1"}, "note": "hello", "regarding": {"kind": "Pod"}});
        let core = convert(event.as_object().unwrap().clone(), "events.k8s.io/v1", "v1").unwrap();
        assert_eq!(
            Value::Object(core.clone()),
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
                "message": "hello", "involvedObject": {"kind": "Pod"}})
        );
        let back = convert(core, "v1", "events.k8s.io/v1").unwrap();
        assert_eq!(Value::Object(back), event);
        let hpa = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"}, "spec": {"maxReplicas": 2}});
        let v2 = convert(
            hpa.as_object().unwrap().clone(),
            "autoscaling/v1",
            "autoscaling/v2",
        )
        .unwrap();
        assert_eq!(v2["apiVersion"], "autoscaling/v2");
        let e = convert(v2, "autoscaling/v2", "autoscaling/v2beta2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "converting HorizontalPodAutoscaler from autoscaling/v2 to autoscaling/v2beta2 is not supported"
        );
    }

    #[test]
    fn admission_equivalents_convert_fields() {
        let equivalents = Equivalents::builtin();
        let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"}, "spec": {"maxReplicas": 2,
            "targetCPUUtilizationPercentage": 70}});
        let kind = GroupVersionKind {
            group: "autoscaling".into(),
            version: "v2".into(),
            kind: "HorizontalPodAutoscaler".into(),
        };
        let v2 = equivalents.convert(&v1, &kind).unwrap();
        assert_eq!(v2["apiVersion"], "autoscaling/v2");
        assert_eq!(
            v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            70
        );
    }
}

//! Converting custom resources between the versions of their CRD, as apiextensions-apiserver's
//! converters do (`pkg/apiserver/conversion`): with the `None` strategy only `apiVersion`
//! changes; with `Webhook` the server posts an `apiextensions.k8s.io` `ConversionReview`
//! (`request.uid`, `desiredAPIVersion`, `objects`) to the CRD's webhook and checks its answer
//! as `webhook_converter.go` does (the response's kind and uid, `result.status`, the count,
//! each converted object's version, kind, name, namespace and uid; only labels and
//! annotations may change in its metadata, the rest is restored from the original, and
//! changed ones are validated as `restoreObjectMeta` does).
//!
//! Objects are stored in the CRD's storage version: a write in another version is converted
//! before it is stored, and a read converts the stored object into the version asked for —
//! one object per review, lists included: upstream's storage decodes each listed object into
//! the list's version on its own (k8s.io/apiserver `pkg/storage/etcd3/store.go`
//! `getNewItemFunc`, then the versioning codec's conversion), so the list conversion of
//! `webhook_converter.go`, which would batch, finds nothing left to send.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use kcel::library::standard::go_quote;
use kcel_stdlib::kubernetes::crd::{FieldPath, aggregate};
use kcel_stdlib::kubernetes::{annotation_errors, label_errors};

use super::conversion_spec::{Strategy, Webhook};
use super::registry::{Crds, CustomResource};
use super::webhook_client::{Answer, Clients};
use crate::error::ApiError;
use crate::object::{self, Object};
use crate::resource::Resource;
use crate::storage::KeyValue;
use kcel_stdlib::kubernetes::crd::ACCEPTED_REVIEW_VERSIONS;

/// A failed conversion, with upstream's texts; answered as a 500 whose `Status` has no
/// reason, as kube-apiserver answers an error that is not an API status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversionError {
    /// The call failed or its review says so (`... failed: <cause>`).
    #[error("conversion webhook for {gvk} failed: {cause}")]
    Failed {
        /// `<group>/<version>, Kind=<Kind>` of the object converted.
        gvk: String,
        /// What went wrong.
        cause: String,
    },
    /// The review answered another number of objects than it was sent.
    #[error("conversion webhook for {gvk} returned {got} objects, expected {expected}")]
    Count {
        /// `<group>/<version>, Kind=<Kind>` of the object converted.
        gvk: String,
        /// How many came back.
        got: usize,
        /// How many were sent.
        expected: usize,
    },
    /// The converted object has the wrong version or kind.
    #[error("conversion webhook for {gvk} returned invalid object at index 0: {cause}")]
    WrongType {
        /// `<group>/<version>, Kind=<Kind>` of the object converted.
        gvk: String,
        /// `invalid groupVersion (expected ..., received ...)` or `invalid kind (...)`.
        cause: String,
    },
    /// The converted object is another object (name, namespace or uid changed).
    #[error("conversion webhook for {gvk} returned invalid object: {cause}")]
    Invalid {
        /// `<group>/<version>, Kind=<Kind>` of the object converted.
        gvk: String,
        /// `must have the same name: a != b`, ...
        cause: String,
    },
    /// The converted object's metadata cannot be restored.
    #[error("conversion webhook for {gvk} returned invalid metadata: {cause}")]
    Metadata {
        /// `<group>/<version>, Kind=<Kind>` of the object converted.
        gvk: String,
        /// `missing metadata in converted object`, ...
        cause: String,
    },
    /// A converted object that does not decode (upstream returns the decoder's error bare).
    #[error("{0}")]
    Undecodable(String),
    /// None of the CRD's `conversionReviewVersions` is one this server speaks.
    #[error("no supported conversion review versions")]
    NoReviewVersion,
}

impl From<ConversionError> for ApiError {
    fn from(e: ConversionError) -> ApiError {
        ApiError {
            code: 500,
            reason: "",
            message: e.to_string(),
            details: None,
        }
    }
}

/// Go's `%T` of a decoded JSON value.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn text<'a>(o: &'a Object, field: &str) -> &'a str {
    o.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The review version to speak: the first of the CRD's that this server knows.
fn review_version(webhook: &Webhook) -> Result<&'static str, ConversionError> {
    webhook
        .review_versions
        .iter()
        .find_map(|v| {
            ACCEPTED_REVIEW_VERSIONS
                .into_iter()
                .find(|a| *a == v.as_str())
        })
        .ok_or(ConversionError::NoReviewVersion)
}

/// The `ConversionReview` sent for `objects`, as upstream's client serializes it.
pub fn review_request(version: &str, uid: &str, desired: &str, objects: &[&Object]) -> Value {
    json!({
        "kind": "ConversionReview",
        "apiVersion": format!("apiextensions.k8s.io/{version}"),
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
        "response": {"uid": "", "convertedObjects": null, "result": {"metadata": {}}},
    })
}

/// client-go's error for a response outside 2xx (`NewGenericServerResponse`): the message of
/// a `Status` body, else the generic text of the code.
fn status_cause(answer: &Answer) -> String {
    if let Ok(Value::Object(status)) = serde_json::from_slice::<Value>(&answer.body)
        && status.get("kind").and_then(Value::as_str) == Some("Status")
        && let Some(message) = status.get("message").and_then(Value::as_str)
    {
        return message.to_owned();
    }
    let server_message = if answer.content_type.starts_with("text/") {
        let end = answer.body.len().min(1024);
        String::from_utf8_lossy(&answer.body[..end])
            .trim()
            .to_owned()
    } else {
        "unknown".to_owned()
    };
    let code = answer.status;
    match code {
        400 => "the server rejected our request for an unknown reason".to_owned(),
        401 => "the server has asked for the client to provide credentials".to_owned(),
        403 => server_message,
        404 => "the server could not find the requested resource".to_owned(),
        405 => "the server does not allow this method on the requested resource".to_owned(),
        409 => "the server reported a conflict".to_owned(),
        422 => "the server rejected our request due to an error in our request".to_owned(),
        429 => "the server has received too many requests and has asked us to try again later"
            .to_owned(),
        503 => "the server is currently unable to handle the request".to_owned(),
        504 => "the server was unable to return a response in the time allotted, but may still be processing the request".to_owned(),
        c if c >= 500 => format!(
            "an error on the server ({}) has prevented the request from succeeding",
            go_quote(&server_message)
        ),
        c => format!("the server responded with the status code {c} but did not return more information"),
    }
}

/// Why a webhook's answer gives no converted objects: the cause after
/// `conversion webhook for ... failed: `, in upstream's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// An HTTP status outside 2xx (client-go's text for it, or the `Status` body's message).
    #[error("{0}")]
    HttpStatus(String),
    /// A body that is not a JSON object.
    #[error("couldn't get version/kind; json parse error: {0}")]
    NotJson(String),
    /// A body without `kind`.
    #[error("Object 'Kind' is missing in '{0}'")]
    MissingKind(String),
    /// Another kind than the v1 `ConversionReview` asked for (its group/version and kind).
    #[error("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got {0}")]
    WrongKind(String),
    /// No `response`.
    #[error("no response provided")]
    NoResponse,
    /// A v1 response for another request.
    #[error("expected response.uid={}, got {}", go_quote(.expected), go_quote(.got))]
    Uid {
        /// The request's uid.
        expected: String,
        /// The response's.
        got: String,
    },
    /// `result.status` not `Success`, with the webhook's `result.message`.
    #[error("{0}")]
    Refused(String),
    /// `result.status` not `Success`, without a message.
    #[error("response.result.status was '{0}', not 'Success'")]
    NotSuccess(String),
}

/// The converted objects of a webhook's answer, checked as `getConvertedObjectsFromResponse`.
pub fn converted_objects(
    version: &str,
    uid: &str,
    answer: &Answer,
) -> Result<Vec<Value>, ReviewError> {
    if !(200..=206).contains(&answer.status) {
        return Err(ReviewError::HttpStatus(status_cause(answer)));
    }
    let review: Value =
        serde_json::from_slice(&answer.body).map_err(|e| ReviewError::NotJson(e.to_string()))?;
    let Value::Object(review) = review else {
        return Err(ReviewError::NotJson(format!(
            "json: cannot unmarshal {} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}",
            match review {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "bool",
                _ => "null",
            }
        )));
    };
    let kind = text(&review, "kind");
    let api_version = text(&review, "apiVersion");
    if kind.is_empty() {
        return Err(ReviewError::MissingKind(
            String::from_utf8_lossy(&answer.body).into_owned(),
        ));
    }
    if version == "v1" && (api_version != "apiextensions.k8s.io/v1" || kind != "ConversionReview") {
        let (group, v) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        return Err(ReviewError::WrongKind(format!("{group}/{v}, Kind={kind}")));
    }
    let Some(Value::Object(response)) = review.get("response") else {
        return Err(ReviewError::NoResponse);
    };
    if version == "v1" {
        let got = text(response, "uid");
        if got != uid {
            return Err(ReviewError::Uid {
                expected: uid.to_owned(),
                got: got.to_owned(),
            });
        }
    }
    let result = response.get("result").unwrap_or(&Value::Null);
    let status = result.get("status").and_then(Value::as_str).unwrap_or("");
    if status != "Success" {
        let message = result.get("message").and_then(Value::as_str).unwrap_or("");
        if !message.is_empty() {
            return Err(ReviewError::Refused(message.to_owned()));
        }
        return Err(ReviewError::NotSuccess(status.to_owned()));
    }
    Ok(response
        .get("convertedObjects")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

/// Checks one converted object against the original (`validateConvertedObject`) and puts the
/// original's metadata back, keeping the converted labels and annotations
/// (`restoreObjectMeta`).
pub fn accept_converted(
    gvk: &str,
    desired: &str,
    original: &Object,
    converted: Value,
) -> Result<Object, ConversionError> {
    let Value::Object(mut converted) = converted else {
        return Err(ConversionError::Undecodable(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            match converted {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "bool",
                _ => "null",
            }
        )));
    };
    if text(&converted, "kind").is_empty() {
        return Err(ConversionError::Undecodable(format!(
            "Object 'Kind' is missing in '{}'",
            Value::Object(converted.clone())
        )));
    }
    let wrong = |cause: String| ConversionError::WrongType {
        gvk: gvk.to_owned(),
        cause,
    };
    let received = text(&converted, "apiVersion");
    if received != desired {
        return Err(wrong(format!(
            "invalid groupVersion (expected {desired}, received {received})"
        )));
    }
    let (want, got) = (text(original, "kind"), text(&converted, "kind"));
    if want != got {
        return Err(wrong(format!(
            "invalid kind (expected {want}, received {got})"
        )));
    }
    let meta = |o: &Object, f: &str| {
        o.get("metadata")
            .and_then(|m| m.get(f))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    for (field, name) in [("name", "name"), ("namespace", "namespace"), ("uid", "UID")] {
        let (a, b) = (meta(original, field), meta(&converted, field));
        if a != b {
            return Err(ConversionError::Invalid {
                gvk: gvk.to_owned(),
                cause: format!("must have the same {name}: {a} != {b}"),
            });
        }
    }
    let bad_meta = |cause: String| ConversionError::Metadata {
        gvk: gvk.to_owned(),
        cause,
    };
    let response_meta = match converted.get("metadata") {
        None => return Err(bad_meta("missing metadata in converted object".to_owned())),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(bad_meta(format!(
                "invalid metadata of type {} in converted object",
                go_type(other)
            )));
        }
    };
    let mut restored: Map<String, Value> = original
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for field in ["labels", "annotations"] {
        let map = match response_meta.get(field) {
            None | Some(Value::Null) => {
                restored.remove(field);
                continue;
            }
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(bad_meta(format!(
                    "invalid metadata.{field} of type {} in converted object",
                    go_type(other)
                )));
            }
        };
        let before = match restored.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(bad_meta(format!(
                    "invalid metadata.{field} of type {} in original object",
                    go_type(other)
                )));
            }
        };
        let mut changed = before.map_or(0, Map::len) != map.len();
        let mut pairs = Vec::with_capacity(map.len());
        for (k, v) in map {
            let Value::String(text) = v else {
                return Err(bad_meta(format!(
                    "metadata.{field}[{k}] must be a string, but is {} in converted object",
                    go_type(v)
                )));
            };
            changed |= before.and_then(|b| b.get(k)) != Some(v);
            pairs.push((k.clone(), text.clone()));
        }
        if changed {
            let errors = if field == "labels" {
                label_errors(&FieldPath::new("metadata").child("labels"), &pairs)
            } else {
                // Upstream validates them at `metadata.annotation`.
                annotation_errors(&FieldPath::new("metadata").child("annotation"), &pairs)
            };
            if !errors.is_empty() {
                return Err(bad_meta(aggregate(&errors)));
            }
        }
        restored.insert(field.to_owned(), Value::Object(map.clone()));
    }
    converted.insert("metadata".to_owned(), Value::Object(restored));
    Ok(converted)
}

/// Converts `object` (in the version its `apiVersion` names) to `desired` (an apiVersion of
/// the CRD): by setting `apiVersion` under the `None` strategy, through the webhook (with its
/// client from `clients`) under `Webhook`. An object already in `desired` comes back as it
/// is.
pub async fn convert(
    crd: &CustomResource,
    clients: &Clients,
    mut object: Object,
    desired: &str,
) -> Result<Object, ConversionError> {
    let from = text(&object, "apiVersion").to_owned();
    if from == desired {
        return Ok(object);
    }
    let webhook = match &crd.conversion {
        Strategy::None => {
            object.insert("apiVersion".to_owned(), Value::from(desired));
            return Ok(object);
        }
        Strategy::Webhook(w) => w,
    };
    let gvk = format!("{from}, Kind={}", text(&object, "kind"));
    let version = review_version(webhook)?;
    let uid = crate::random::uuid_v4().map_err(|e| ConversionError::Failed {
        gvk: gvk.clone(),
        cause: e.to_string(),
    })?;
    let body = serde_json::to_vec(&review_request(version, &uid, desired, &[&object]))
        .expect("a review always serializes");
    let failed = |cause: String| ConversionError::Failed {
        gvk: gvk.clone(),
        cause,
    };
    let answer = clients
        .client(webhook)
        .post(body)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let mut converted =
        converted_objects(version, &uid, &answer).map_err(|e| failed(e.to_string()))?;
    if converted.len() != 1 {
        return Err(ConversionError::Count {
            gvk,
            got: converted.len(),
            expected: 1,
        });
    }
    accept_converted(&gvk, desired, &object, converted.remove(0))
}

/// How one request reads and writes the objects of its resource: built-in kinds as stored
/// (a built-in second version converted from and to its storage's,
/// [`crate::conversion`]); custom resources converted between the storage version and the
/// version asked for.
pub struct Versions {
    resource: &'static Resource,
    crd: Option<Arc<CustomResource>>,
    clients: Arc<Clients>,
}

impl Versions {
    /// The conversions of `resource` as its CRD (if any) has them now.
    pub fn of(crds: &Crds, resource: &'static Resource) -> Versions {
        Versions {
            resource,
            crd: crds.custom(resource),
            clients: crds.webhook_clients(),
        }
    }

    /// The object stored in `kv`, in the resource's version, with its resourceVersion.
    pub async fn read(&self, kv: &KeyValue) -> Result<Object, ApiError> {
        if let Some(storage) = crate::resource::storage_of(self.resource) {
            let mut stored = object::from_storage(kv, storage)?;
            let (from, to) = (storage.api_version(), self.resource.api_version());
            stored = crate::conversion::convert(stored, &from, &to)?;
            return Ok(stored);
        }
        let Some(crd) = &self.crd else {
            return object::from_storage(kv, self.resource);
        };
        let stored = object::stored(kv)?;
        let desired = self.resource.api_version();
        if text(&stored, "apiVersion") == desired || crd.conversion == Strategy::None {
            return object::from_storage(kv, self.resource);
        }
        let mut converted = convert(crd, &self.clients, stored, &desired).await?;
        object::metadata_mut(&mut converted).insert(
            "resourceVersion".to_owned(),
            Value::from(kv.mod_revision.to_string()),
        );
        Ok(converted)
    }

    /// `object` (in the resource's version) as it is to be stored: in the CRD's storage
    /// version.
    pub async fn for_storage(&self, object: Object) -> Result<Object, ApiError> {
        if let Some(storage) = crate::resource::storage_of(self.resource) {
            let (from, to) = (self.resource.api_version(), storage.api_version());
            return Ok(crate::conversion::convert(object, &from, &to)?);
        }
        let Some(crd) = &self.crd else {
            return Ok(object);
        };
        let desired = format!("{}/{}", crd.group(), crd.storage_version);
        let mut object = object;
        object::metadata_mut(&mut object).remove("resourceVersion");
        Ok(convert(crd, &self.clients, object, &desired).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: Value) -> Answer {
        Answer {
            status,
            content_type: "application/json".to_owned(),
            body: serde_json::to_vec(&body).unwrap(),
        }
    }

    fn review(response: Value) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response})
    }

    // Texts of webhook_converter.go getConvertedObjectsFromResponse.
    #[test]
    fn review_answers_are_checked_as_upstream() {
        let ok = review(json!({"uid": "u1", "result": {"status": "Success"},
            "convertedObjects": [{"kind": "K"}]}));
        assert_eq!(
            converted_objects("v1", "u1", &answer(200, ok))
                .unwrap()
                .len(),
            1
        );
        let cases = [
            (
                review(json!({"uid": "u2", "result": {"status": "Success"}})),
                "expected response.uid=\"u1\", got \"u2\"",
            ),
            (
                review(json!({"uid": "u1", "result": {"status": "Failure", "message": "nope"}})),
                "nope",
            ),
            (
                review(json!({"uid": "u1", "result": {"status": "Failed"}})),
                "response.result.status was 'Failed', not 'Success'",
            ),
            (review(json!(null)), "no response provided"),
            (
                json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview"}),
                "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(
                converted_objects("v1", "u1", &answer(200, body))
                    .unwrap_err()
                    .to_string(),
                want
            );
        }
        // v1beta1 reviews check neither the kind nor the uid.
        let old = json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview",
            "response": {"uid": "other", "result": {"status": "Success"}, "convertedObjects": []}});
        assert!(converted_objects("v1beta1", "u1", &answer(200, old)).is_ok());
        assert_eq!(
            converted_objects("v1", "u1", &answer(404, json!({})))
                .unwrap_err()
                .to_string(),
            "the server could not find the requested resource"
        );
        let text = Answer {
            status: 500,
            content_type: "text/plain".to_owned(),
            body: b"boom\n".to_vec(),
        };
        assert_eq!(
            converted_objects("v1", "u1", &text)
                .unwrap_err()
                .to_string(),
            "an error on the server (\"boom\") has prevented the request from succeeding"
        );
    }

    // Texts of webhook_converter.go Convert, validateConvertedObject and restoreObjectMeta.
    #[test]
    fn converted_objects_keep_their_identity_and_metadata() {
        let original: Object = serde_json::from_value(json!({
            "apiVersion": "g.example.com/v1", "kind": "K",
            "metadata": {"name": "a", "namespace": "n", "uid": "1", "generation": 2,
                         "labels": {"x": "1"}}
        }))
        .unwrap();
        let gvk = "g.example.com/v1, Kind=K";
        let converted = |c: Value| {
            accept_converted(gvk, "g.example.com/v2", &original, c).map_err(|e| e.to_string())
        };
        let good = converted(json!({"apiVersion": "g.example.com/v2", "kind": "K",
            "metadata": {"name": "a", "namespace": "n", "uid": "1", "generation": 9,
                         "labels": {"y": "2"}}, "spec": {"v": 2}}))
        .unwrap();
        assert_eq!(
            Value::Object(good),
            json!({"apiVersion": "g.example.com/v2", "kind": "K",
                "metadata": {"name": "a", "namespace": "n", "uid": "1", "generation": 2,
                             "labels": {"y": "2"}}, "spec": {"v": 2}})
        );
        let cases = [
            (
                json!({"apiVersion": "g.example.com/v1", "kind": "K", "metadata": {}}),
                "conversion webhook for g.example.com/v1, Kind=K returned invalid object at index 0: invalid groupVersion (expected g.example.com/v2, received g.example.com/v1)",
            ),
            (
                json!({"apiVersion": "g.example.com/v2", "kind": "L", "metadata": {}}),
                "conversion webhook for g.example.com/v1, Kind=K returned invalid object at index 0: invalid kind (expected K, received L)",
            ),
            (
                json!({"apiVersion": "g.example.com/v2", "kind": "K",
                       "metadata": {"name": "b", "namespace": "n", "uid": "1"}}),
                "conversion webhook for g.example.com/v1, Kind=K returned invalid object: must have the same name: a != b",
            ),
            (
                json!({"apiVersion": "g.example.com/v2", "kind": "K",
                       "metadata": {"name": "a", "namespace": "n", "uid": "2"}}),
                "conversion webhook for g.example.com/v1, Kind=K returned invalid object: must have the same UID: 1 != 2",
            ),
            (
                json!({"apiVersion": "g.example.com/v2", "kind": "K",
                       "metadata": {"name": "a", "namespace": "n", "uid": "1", "labels": {"x": 1}}}),
                "conversion webhook for g.example.com/v1, Kind=K returned invalid metadata: metadata.labels[x] must be a string, but is float64 in converted object",
            ),
            (
                json!([1]),
                "json: cannot unmarshal array into Go value of type map[string]interface {}",
            ),
        ];
        for (c, want) in cases {
            assert_eq!(converted(c).unwrap_err(), want);
        }
    }

    // restoreObjectMeta: changed labels and annotations are validated (labels at
    // metadata.labels, annotations at metadata.annotation), unchanged ones are not.
    #[test]
    fn changed_labels_and_annotations_are_validated() {
        let original: Object = serde_json::from_value(json!({
            "apiVersion": "g.example.com/v1", "kind": "K",
            "metadata": {"name": "a", "labels": {"bad key": "1"}, "annotations": {"n": "v"}}
        }))
        .unwrap();
        let gvk = "g.example.com/v1, Kind=K";
        let converted = |meta: Value| {
            let c = json!({"apiVersion": "g.example.com/v2", "kind": "K", "metadata": meta});
            accept_converted(gvk, "g.example.com/v2", &original, c).map_err(|e| e.to_string())
        };
        // Unchanged (even if invalid): kept without a check.
        let kept = converted(json!({"name": "a", "labels": {"bad key": "1"},
                                    "annotations": {"n": "v"}}))
        .unwrap();
        assert_eq!(kept["metadata"]["labels"], json!({"bad key": "1"}));
        // Dropped: removed.
        let dropped = converted(json!({"name": "a"})).unwrap();
        assert_eq!(dropped["metadata"], json!({"name": "a"}));
        let qualified = |key: &str| {
            kcel_stdlib::kubernetes::named_formats::messages("qualifiedName", key).join("")
        };
        let prefix = "conversion webhook for g.example.com/v1, Kind=K returned invalid metadata";
        assert_eq!(
            converted(json!({"name": "a", "labels": {"bad key": "2"}})).unwrap_err(),
            format!(
                "{prefix}: metadata.labels: Invalid value: \"bad key\": {}",
                qualified("bad key")
            )
        );
        assert_eq!(
            converted(json!({"name": "a", "labels": {"bad key": "1", "b c": "1"}})).unwrap_err(),
            format!(
                "{prefix}: [metadata.labels: Invalid value: \"b c\": {}, metadata.labels: Invalid value: \"bad key\": {}]",
                qualified("b c"),
                qualified("bad key")
            )
        );
        assert_eq!(
            converted(json!({"name": "a", "annotations": {"a/b/c": "v"}})).unwrap_err(),
            format!(
                "{prefix}: metadata.annotation: Invalid value: \"a/b/c\": {}",
                qualified("a/b/c")
            )
        );
        let big = "x".repeat(256 * 1024);
        assert_eq!(
            converted(json!({"name": "a", "annotations": {"n": big}})).unwrap_err(),
            format!("{prefix}: metadata.annotation: Too long: may not be more than 262144 bytes")
        );
        assert_eq!(
            converted(json!({"name": "a", "annotations": ["n"]})).unwrap_err(),
            format!(
                "{prefix}: invalid metadata.annotations of type []interface {{}} in converted object"
            )
        );
    }

    #[test]
    fn a_review_names_its_uid_version_and_objects() {
        let o: Object = serde_json::from_value(json!({"kind": "K"})).unwrap();
        let r = review_request("v1", "u", "g/v2", &[&o]);
        assert_eq!(r["apiVersion"], "apiextensions.k8s.io/v1");
        assert_eq!(
            r["request"],
            json!({"uid": "u", "desiredAPIVersion": "g/v2", "objects": [{"kind": "K"}]})
        );
        let e: ApiError = ConversionError::NoReviewVersion.into();
        assert_eq!((e.code, e.reason), (500, ""));
    }
}

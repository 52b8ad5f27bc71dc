//! The swagger-2.0 document of `/openapi/v2`, as JSON and as the protobuf kubectl asks for
//! ([`PROTOBUF`]: gnostic's `openapi.v2.Document` message).
//!
//! kubectl reads it for client-side validation: a kind whose OpenAPI v3 document has no
//! PATCH operation (the reviews) or a `kind: List` is validated against these definitions
//! before it is sent (`kubectl create -f sar.yaml`), and without the document kubectl stops at
//! `failed to download openapi`. What it holds is the swagger-2.0 form of the v3 documents:
//! upstream's v2 definitions of the same schemas (`openapi/swagger_v2.json`, vendored by
//! `openapi/generate.py`, descriptions stripped) and the served v3 paths converted here (the
//! request body a `body` parameter, media types as `consumes`/`produces`), the custom
//! resources' definitions and paths as kube-apiserver publishes them there
//! ([`crate::crd::crd_swagger`]), with kube-apiserver's `info` and bearer token security.

use std::sync::{Arc, Mutex, OnceLock};

use crate::openapi::hash;
use serde_json::{Map, Value, json};

/// The media type the protobuf form is answered with (kube-openapi's; clients ask for it by
/// this name or by the older `...spec.v2@v1.0+protobuf`, which is no valid media type).
pub const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// The document in both forms.
pub struct Served {
    /// The JSON text.
    pub json: axum::body::Bytes,
    /// The protobuf encoding.
    pub protobuf: axum::body::Bytes,
    /// Upper-case hex SHA-512 of the JSON text (its ETag).
    pub json_hash: String,
    /// The same of the protobuf encoding.
    pub protobuf_hash: String,
}

/// The document served at `/openapi/v2` while `crds` are the custom resources served: made
/// again only when their part of it changed.
pub fn served(crds: &crate::crd::Crds) -> Arc<Served> {
    static LAST: Mutex<Option<(String, Arc<Served>)>> = Mutex::new(None);
    let custom = crate::crd::crd_swagger::parts(crds);
    let key = hash(&serde_json::to_vec(&custom).unwrap_or_default());
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, served)) = last.as_ref()
        && *k == key
    {
        return served.clone();
    }
    let doc = document(custom);
    let json = serde_json::to_vec(&doc).expect("a JSON value");
    let protobuf = encode_document(&doc);
    let served = Arc::new(Served {
        json_hash: hash(&json),
        protobuf_hash: hash(&protobuf),
        json: json.into(),
        protobuf: protobuf.into(),
    });
    *last = Some((key, served.clone()));
    served
}

/// The built-in kinds' part: upstream's v2 definitions of the served schemas (vendored) and
/// the served v3 documents' paths converted.
fn built_in() -> &'static (Map<String, Value>, Map<String, Value>) {
    static BUILT_IN: OnceLock<(Map<String, Value>, Map<String, Value>)> = OnceLock::new();
    BUILT_IN.get_or_init(|| {
        let vendored: Value = serde_json::from_str(include_str!("../openapi/swagger_v2.json"))
            .expect("the vendored definitions are JSON");
        let definitions = vendored["definitions"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut paths = Map::new();
        for doc in crate::openapi::documents() {
            if let Some(v3) = doc.json["paths"].as_object() {
                paths.extend(crate::swagger_form::v2_paths(v3));
            }
        }
        (definitions, paths)
    })
}

fn document((custom_definitions, custom_paths): (Map<String, Value>, Map<String, Value>)) -> Value {
    let (definitions, paths) = built_in();
    let mut definitions = definitions.clone();
    definitions.extend(custom_definitions);
    let mut paths = paths.clone();
    paths.extend(custom_paths);
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "unversioned"},
        "paths": paths,
        "definitions": definitions,
        "securityDefinitions": {
            "BearerToken": {"type": "apiKey", "name": "authorization", "in": "header"},
        },
        "security": [{"BearerToken": []}],
    })
}

/// Protobuf wire writing (proto3: fields at their zero value are left out).
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    fn key(&mut self, field: u32, wire_type: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire_type));
    }

    fn bytes(&mut self, field: u32, bytes: &[u8]) {
        self.key(field, 2);
        self.varint(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }

    fn string(&mut self, field: u32, text: &str) {
        if !text.is_empty() {
            self.bytes(field, text.as_bytes());
        }
    }

    fn message(&mut self, field: u32, message: Message) {
        self.bytes(field, &message.0);
    }

    fn boolean(&mut self, field: u32, value: bool) {
        if value {
            self.key(field, 0);
            self.varint(1);
        }
    }

    fn int(&mut self, field: u32, value: i64) {
        if value != 0 {
            self.key(field, 0);
            self.varint(value as u64);
        }
    }

    fn double(&mut self, field: u32, value: f64) {
        if value != 0.0 {
            self.key(field, 1);
            self.0.extend_from_slice(&value.to_le_bytes());
        }
    }
}

/// `openapi.v2.Any`: a value as YAML text (JSON is YAML; kubectl reads it with a YAML parser).
fn any(value: &Value) -> Message {
    let mut m = Message::default();
    m.string(2, &value.to_string());
    m
}

/// `openapi.v2.NamedAny` entries for the `x-` keys of `object`.
fn vendor_extensions(m: &mut Message, field: u32, object: &Map<String, Value>) {
    for (name, value) in object.iter().filter(|(k, _)| k.starts_with("x-")) {
        let mut named = Message::default();
        named.string(1, name);
        named.message(2, any(value));
        m.message(field, named);
    }
}

fn encode_document(doc: &Value) -> Vec<u8> {
    let mut m = Message::default();
    m.string(1, doc["swagger"].as_str().unwrap_or_default());
    let mut info = Message::default();
    info.string(1, doc["info"]["title"].as_str().unwrap_or_default());
    info.string(2, doc["info"]["version"].as_str().unwrap_or_default());
    m.message(2, info);
    let mut paths = Message::default();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        let mut named = Message::default();
        named.string(1, path);
        named.message(2, encode_path_item(item));
        paths.message(2, named);
    }
    m.message(8, paths);
    let mut definitions = Message::default();
    for (name, schema) in doc["definitions"].as_object().into_iter().flatten() {
        definitions.message(1, named_schema(name, schema));
    }
    m.message(9, definitions);
    for requirement in doc["security"].as_array().into_iter().flatten() {
        let mut security = Message::default();
        for (name, scopes) in requirement.as_object().into_iter().flatten() {
            let mut strings = Message::default();
            for scope in scopes.as_array().into_iter().flatten() {
                strings.string(1, scope.as_str().unwrap_or_default());
            }
            let mut named = Message::default();
            named.string(1, name);
            named.message(2, strings);
            security.message(1, named);
        }
        m.message(12, security);
    }
    let mut schemes = Message::default();
    for (name, scheme) in doc["securityDefinitions"].as_object().into_iter().flatten() {
        let mut key = Message::default();
        key.string(1, scheme["type"].as_str().unwrap_or_default());
        key.string(2, scheme["name"].as_str().unwrap_or_default());
        key.string(3, scheme["in"].as_str().unwrap_or_default());
        let mut item = Message::default();
        item.message(2, key);
        let mut named = Message::default();
        named.string(1, name);
        named.message(2, item);
        schemes.message(1, named);
    }
    m.message(13, schemes);
    m.0
}

/// The fields of `openapi.v2.PathItem` that hold operations, by method.
const METHODS: [(&str, u32); 7] = [
    ("get", 2),
    ("put", 3),
    ("post", 4),
    ("delete", 5),
    ("options", 6),
    ("head", 7),
    ("patch", 8),
];

fn encode_path_item(item: &Value) -> Message {
    let mut m = Message::default();
    for (method, field) in METHODS {
        if let Some(op) = item.get(method) {
            m.message(field, encode_operation(op));
        }
    }
    for parameter in item["parameters"].as_array().into_iter().flatten() {
        m.message(9, encode_parameter(parameter));
    }
    if let Some(fields) = item.as_object() {
        vendor_extensions(&mut m, 10, fields);
    }
    m
}

fn strings(m: &mut Message, field: u32, list: &Value) {
    for text in list.as_array().into_iter().flatten() {
        m.string(field, text.as_str().unwrap_or_default());
    }
}

fn encode_operation(op: &Value) -> Message {
    let mut m = Message::default();
    strings(&mut m, 1, &op["tags"]);
    m.string(3, op["description"].as_str().unwrap_or_default());
    m.string(5, op["operationId"].as_str().unwrap_or_default());
    strings(&mut m, 6, &op["produces"]);
    strings(&mut m, 7, &op["consumes"]);
    for parameter in op["parameters"].as_array().into_iter().flatten() {
        m.message(8, encode_parameter(parameter));
    }
    let mut responses = Message::default();
    for (code, response) in op["responses"].as_object().into_iter().flatten() {
        let mut answer = Message::default();
        answer.string(1, response["description"].as_str().unwrap_or_default());
        if let Some(schema) = response.get("schema") {
            let mut item = Message::default();
            item.message(1, encode_schema(schema));
            answer.message(2, item);
        }
        let mut value = Message::default();
        value.message(1, answer);
        let mut named = Message::default();
        named.string(1, code);
        named.message(2, value);
        responses.message(1, named);
    }
    m.message(9, responses);
    strings(&mut m, 10, &op["schemes"]);
    m.boolean(11, op["deprecated"].as_bool().unwrap_or(false));
    if let Some(fields) = op.as_object() {
        vendor_extensions(&mut m, 13, fields);
    }
    m
}

/// `openapi.v2.ParametersItem` of a parameter: a body parameter with its schema, or a query
/// or path parameter with its type (the only kinds the served paths have).
fn encode_parameter(parameter: &Value) -> Message {
    let text = |key: &str| parameter[key].as_str().unwrap_or_default();
    let required = parameter["required"].as_bool().unwrap_or(false);
    let unique = parameter["uniqueItems"].as_bool().unwrap_or(false);
    let mut inner = Message::default();
    let kind = match text("in") {
        "body" => {
            inner.string(1, text("description"));
            inner.string(2, text("name"));
            inner.string(3, "body");
            inner.boolean(4, required);
            inner.message(5, encode_schema(&parameter["schema"]));
            1
        }
        place => {
            // QueryParameterSubSchema (3) and PathParameterSubSchema (4) number their fields
            // alike up to `name`; from `type` on, the query's are one higher
            // (`allow_empty_value` comes first).
            let (sub, shift) = if place == "path" { (4, 0) } else { (3, 1) };
            inner.boolean(1, required);
            inner.string(2, place);
            inner.string(3, text("description"));
            inner.string(4, text("name"));
            inner.string(5 + shift, text("type"));
            inner.string(6 + shift, text("format"));
            inner.boolean(19 + shift, unique);
            let mut non_body = Message::default();
            non_body.message(sub, inner);
            inner = non_body;
            2
        }
    };
    let mut parameter = Message::default();
    parameter.message(kind, inner);
    let mut item = Message::default();
    item.message(1, parameter);
    item
}

fn named_schema(name: &str, schema: &Value) -> Message {
    let mut named = Message::default();
    named.string(1, name);
    named.message(2, encode_schema(schema));
    named
}

/// `openapi.v2.Schema` of a swagger-2.0 schema object.
fn encode_schema(schema: &Value) -> Message {
    let mut m = Message::default();
    let Some(s) = schema.as_object() else {
        return m;
    };
    let text = |key: &str| s.get(key).and_then(Value::as_str).unwrap_or_default();
    let number = |key: &str| s.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    let int = |key: &str| s.get(key).and_then(Value::as_i64).unwrap_or(0);
    let flag = |key: &str| s.get(key).and_then(Value::as_bool).unwrap_or(false);
    m.string(1, text("$ref"));
    m.string(2, text("format"));
    m.string(3, text("title"));
    m.string(4, text("description"));
    if let Some(default) = s.get("default") {
        m.message(5, any(default));
    }
    m.double(6, number("multipleOf"));
    m.double(7, number("maximum"));
    m.boolean(8, flag("exclusiveMaximum"));
    m.double(9, number("minimum"));
    m.boolean(10, flag("exclusiveMinimum"));
    m.int(11, int("maxLength"));
    m.int(12, int("minLength"));
    m.string(13, text("pattern"));
    m.int(14, int("maxItems"));
    m.int(15, int("minItems"));
    m.boolean(16, flag("uniqueItems"));
    m.int(17, int("maxProperties"));
    m.int(18, int("minProperties"));
    for required in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        m.string(19, required.as_str().unwrap_or_default());
    }
    for value in s
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        m.message(20, any(value));
    }
    match s.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            let mut item = Message::default();
            item.key(2, 0);
            item.varint(u64::from(*b));
            m.message(21, item);
        }
        Some(schema @ Value::Object(_)) => {
            let mut item = Message::default();
            item.message(1, encode_schema(schema));
            m.message(21, item);
        }
        _ => {}
    }
    let types = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() {
        let mut item = Message::default();
        for t in types {
            item.string(1, t);
        }
        m.message(22, item);
    }
    match s.get("items") {
        Some(items @ Value::Object(_)) => {
            let mut item = Message::default();
            item.message(1, encode_schema(items));
            m.message(23, item);
        }
        Some(Value::Array(list)) => {
            let mut item = Message::default();
            for items in list {
                item.message(1, encode_schema(items));
            }
            m.message(23, item);
        }
        _ => {}
    }
    for part in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        m.message(24, encode_schema(part));
    }
    if let Some(properties) = s.get("properties").and_then(Value::as_object) {
        let mut item = Message::default();
        for (name, property) in properties {
            item.message(1, named_schema(name, property));
        }
        m.message(25, item);
    }
    m.string(26, text("discriminator"));
    m.boolean(27, flag("readOnly"));
    if let Some(example) = s.get("example") {
        m.message(30, any(example));
    }
    vendor_extensions(&mut m, 31, s);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads one protobuf message into (field, wire type, payload) triples.
    fn fields(mut bytes: &[u8]) -> Vec<(u64, u64, Vec<u8>)> {
        let varint = |bytes: &mut &[u8]| {
            let (mut n, mut shift) = (0u64, 0);
            loop {
                let b = bytes[0];
                *bytes = &bytes[1..];
                n |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return n;
                }
            }
        };
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let key = varint(&mut bytes);
            let payload = match key & 7 {
                0 => varint(&mut bytes).to_le_bytes().to_vec(),
                1 => {
                    let (head, rest) = bytes.split_at(8);
                    bytes = rest;
                    head.to_vec()
                }
                2 => {
                    let len = varint(&mut bytes) as usize;
                    let (head, rest) = bytes.split_at(len);
                    bytes = rest;
                    head.to_vec()
                }
                other => panic!("wire type {other}"),
            };
            out.push((key >> 3, key & 7, payload));
        }
        out
    }

    fn field(message: &[u8], number: u64) -> Vec<Vec<u8>> {
        fields(message)
            .into_iter()
            .filter(|(n, _, _)| *n == number)
            .map(|(_, _, p)| p)
            .collect()
    }

    #[test]
    fn the_protobuf_holds_every_definition_with_its_types_refs_and_extensions() {
        let served = served(&crate::crd::Crds::default());
        let doc: Value = serde_json::from_slice(&served.json).unwrap();
        let count = doc["definitions"].as_object().unwrap().len();
        assert!(count > 300, "{count}");
        let pb = &served.protobuf;
        assert_eq!(field(pb, 1), [b"2.0".to_vec()]);
        let definitions = &field(pb, 9)[0];
        let named = field(definitions, 1);
        assert_eq!(named.len(), count);
        let review = named
            .iter()
            .find(|n| field(n, 1)[0] == b"io.k8s.api.authorization.v1.SubjectAccessReview")
            .expect("the SubjectAccessReview definition");
        let schema = &field(review, 2)[0];
        // type: [object]
        assert_eq!(field(&field(schema, 22)[0], 1), [b"object".to_vec()]);
        // required: [spec]
        assert_eq!(field(schema, 19), [b"spec".to_vec()]);
        // properties.spec.$ref
        let properties = field(&field(schema, 25)[0], 1);
        let spec = properties
            .iter()
            .find(|p| field(p, 1)[0] == b"spec")
            .unwrap();
        assert_eq!(
            field(&field(spec, 2)[0], 1),
            [b"#/definitions/io.k8s.api.authorization.v1.SubjectAccessReviewSpec".to_vec()]
        );
        // x-kubernetes-group-version-kind as YAML (JSON) text in Any.yaml.
        let extension = &field(schema, 31)[0];
        assert_eq!(
            field(extension, 1),
            [b"x-kubernetes-group-version-kind".to_vec()]
        );
        let yaml = String::from_utf8(field(&field(extension, 2)[0], 2)[0].clone()).unwrap();
        let gvk: Value = serde_json::from_str(&yaml).unwrap();
        assert_eq!(
            gvk,
            json!([{"group": "authorization.k8s.io", "kind": "SubjectAccessReview", "version": "v1"}])
        );
    }

    #[test]
    fn the_paths_hold_each_operation_with_its_parameters() {
        let pb = &served(&crate::crd::Crds::default()).protobuf;
        let paths = field(&field(pb, 8)[0], 2);
        let item = paths
            .iter()
            .find(|p| field(p, 1)[0] == b"/apis/authorization.k8s.io/v1/subjectaccessreviews")
            .expect("the subjectaccessreviews path");
        let item = &field(item, 2)[0];
        // Path-level query parameters: ParametersItem.parameter.non_body.query.name.
        let names: Vec<Vec<u8>> = field(item, 9)
            .iter()
            .map(|p| {
                let query = &field(&field(&field(p, 1)[0], 2)[0], 3)[0];
                field(query, 4)[0].clone()
            })
            .collect();
        assert!(names.contains(&b"fieldValidation".to_vec()), "{names:?}");
        // post: operationId, and the body parameter's schema.
        let post = &field(item, 4)[0];
        assert_eq!(
            field(post, 5),
            [b"createAuthorizationV1SubjectAccessReview".to_vec()]
        );
        let body = &field(&field(&field(post, 8)[0], 1)[0], 1)[0];
        assert_eq!(field(body, 3), [b"body".to_vec()]);
        assert_eq!(
            field(&field(body, 5)[0], 1),
            [b"#/definitions/io.k8s.api.authorization.v1.SubjectAccessReview".to_vec()]
        );
    }

    #[test]
    fn every_reference_names_a_definition_and_every_served_path_is_there() {
        let doc: Value =
            serde_json::from_slice(&served(&crate::crd::Crds::default()).json).unwrap();
        let definitions = doc["definitions"].as_object().unwrap();
        fn refs<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r);
                    }
                    m.values().for_each(|x| refs(x, out));
                }
                Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(found.len() > 1000, "{}", found.len());
        for r in found {
            let name = r
                .strip_prefix("#/definitions/")
                .unwrap_or_else(|| panic!("{r}"));
            assert!(definitions.contains_key(name), "{r}");
        }
        let v3_paths: usize = crate::openapi::documents()
            .iter()
            .map(|d| d.json["paths"].as_object().unwrap().len())
            .sum();
        assert_eq!(doc["paths"].as_object().unwrap().len(), v3_paths);
    }

    #[test]
    fn varints_and_doubles_are_written_as_the_wire_format_says() {
        let mut m = Message::default();
        m.int(11, 300);
        m.double(7, 1.5);
        m.boolean(8, true);
        assert_eq!(
            m.0,
            [
                0x58, 0xac, 0x02, 0x39, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x40, 0x01
            ]
        );
    }
}

//! OpenAPI v3 paths and schemas in swagger-2.0 form, for `/openapi/v2` (the served kinds'
//! paths and the custom resources'): references renamed, a request body as a `body`
//! parameter, parameter schemas inlined, media types as `consumes`/`produces` (what
//! kube-openapi's v2 builder writes for the same routes).

use serde_json::{Map, Value, json};

/// A v3 schema (as paths and documents use them) with its references renamed for
/// swagger 2.0 (`#/components/schemas/` → `#/definitions/`).
pub fn v2_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => Value::String(
                            r.strip_prefix("#/components/schemas/")
                                .map_or_else(|| r.clone(), |name| format!("#/definitions/{name}")),
                        ),
                        _ => v2_schema(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(v2_schema).collect()),
        other => other.clone(),
    }
}

/// A v3 parameter in swagger-2.0 form: its schema's keys inlined.
fn v2_parameter(parameter: &Value) -> Value {
    let mut out = Map::new();
    for key in ["in", "name", "required"] {
        if let Some(v) = parameter.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    if let Some(Value::Object(schema)) = parameter.get("schema") {
        out.extend(schema.clone());
    }
    Value::Object(out)
}

/// A v3 operation in swagger-2.0 form: the request body a `body` parameter first, the
/// parameters' schemas inlined, the media types as `consumes`/`produces`.
fn v2_operation(op: &Map<String, Value>) -> Value {
    let mut out: Map<String, Value> = op
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "parameters" | "requestBody" | "responses"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut parameters: Vec<Value> = op
        .get("parameters")
        .and_then(Value::as_array)
        .map(|ps| ps.iter().map(v2_parameter).collect())
        .unwrap_or_default();
    if let Some(body) = op.get("requestBody")
        && let Some(content) = body.get("content").and_then(Value::as_object)
    {
        out.insert(
            "consumes".to_owned(),
            json!(content.keys().collect::<Vec<_>>()),
        );
        let schema = content
            .values()
            .next()
            .map_or(Value::Null, |c| v2_schema(&c["schema"]));
        let mut parameter = json!({"in": "body", "name": "body", "schema": schema});
        if body.get("required") == Some(&Value::Bool(true)) {
            parameter["required"] = Value::Bool(true);
        }
        parameters.insert(0, parameter);
    }
    if !parameters.is_empty() {
        out.insert("parameters".to_owned(), Value::Array(parameters));
    }
    let mut produces: Vec<&str> = Vec::new();
    let mut responses = Map::new();
    for (code, response) in op
        .get("responses")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let mut answer = Map::new();
        for (media_type, content) in response
            .get("content")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if !produces.contains(&media_type.as_str()) {
                produces.push(media_type);
            }
            if let Some(schema) = content.get("schema") {
                answer.insert("schema".to_owned(), v2_schema(schema));
            }
        }
        responses.insert(code.clone(), Value::Object(answer));
    }
    if !produces.is_empty() {
        out.insert("produces".to_owned(), json!(produces));
    }
    out.insert("responses".to_owned(), Value::Object(responses));
    out.insert("schemes".to_owned(), json!(["https"]));
    Value::Object(out)
}

/// The paths of a v3 document in swagger-2.0 form.
pub fn v2_paths(v3_paths: &Map<String, Value>) -> Map<String, Value> {
    v3_paths
        .iter()
        .map(|(path, item)| {
            let converted: Map<String, Value> = item
                .as_object()
                .into_iter()
                .flatten()
                .map(|(method, op)| {
                    let v = match (method.as_str(), op) {
                        ("parameters", Value::Array(ps)) => {
                            Value::Array(ps.iter().map(v2_parameter).collect())
                        }
                        (_, Value::Object(op)) => v2_operation(op),
                        (_, other) => other.clone(),
                    };
                    (method.clone(), v)
                })
                .collect();
            (path.clone(), Value::Object(converted))
        })
        .collect()
}

//! Tables of custom resources: Name, then the version's `additionalPrinterColumns` (Age
//! when it has none), as apiextensions-apiserver's table convertor prints them; `date`
//! columns as ages, priority above 0 only with `-o wide`.

use serde_json::{Value, json};

use super::json_path;
use super::registry::{PrinterColumn, ServedVersion};
use crate::object::Object;

fn default_columns() -> Vec<PrinterColumn> {
    vec![PrinterColumn {
        name: "Age".into(),
        type_: "date".into(),
        format: String::new(),
        description: String::new(),
        priority: 0,
        json_path: ".metadata.creationTimestamp".into(),
    }]
}

fn columns(version: &ServedVersion) -> Vec<PrinterColumn> {
    if version.columns.is_empty() {
        default_columns()
    } else {
        version.columns.clone()
    }
}

fn cell(object: &Object, column: &PrinterColumn) -> Value {
    let root = Value::Object(object.clone());
    let Some(value) =
        json_path::parse(&column.json_path).and_then(|p| json_path::get(&root, &p).cloned())
    else {
        return Value::Null;
    };
    match (&*column.type_, &value) {
        ("date", Value::String(t)) => match chrono::DateTime::parse_from_rfc3339(t) {
            Ok(t) => Value::from(crate::table::human_duration(
                (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds(),
            )),
            Err(_) => value,
        },
        (_, Value::Object(_) | Value::Array(_)) => Value::from(value.to_string()),
        _ => value,
    }
}

/// The Table of `objects` of a custom resource version.
pub fn table(
    version: &ServedVersion,
    objects: &[&Object],
    list_metadata: Value,
    table_version: &str,
    headers: bool,
) -> Value {
    let columns = columns(version);
    let mut definitions = Vec::new();
    if headers {
        definitions.push(json!({"name": "Name", "type": "string", "format": "name",
            "description": "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
            "priority": 0}));
        for c in &columns {
            definitions.push(json!({"name": c.name, "type": c.type_, "format": c.format,
                "description": c.description, "priority": c.priority}));
        }
    }
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut cells = vec![Value::from(crate::object::meta_str(o, "name"))];
            cells.extend(columns.iter().map(|c| cell(o, c)));
            json!({"cells": cells, "object": crate::table::partial_metadata(o, table_version)})
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{table_version}"),
        "metadata": list_metadata,
        "columnDefinitions": definitions,
        "rows": rows,
    })
}

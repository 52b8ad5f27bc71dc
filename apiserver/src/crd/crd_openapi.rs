//! OpenAPI v3 documents of the custom resources, one per group-version, as kube-apiserver
//! builds them from the CRDs (`apiextensions-apiserver` `pkg/controller/openapi/builder`):
//! each kind's schema from its version's `openAPIV3Schema` with `apiVersion`, `kind` and
//! `metadata` (ObjectMeta) added and its `x-kubernetes-group-version-kind`, its list kind, and
//! the operations of its paths, whose PATCH offers no strategic merge patch (so kubectl
//! applies custom resources with merge patches). `kubectl explain` reads them.

use serde_json::{Map, Value, json};

use super::crd_discovery;
use super::registry::Crds;
use crate::resource::Resource;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// `com.example.stable.v1.CronTab` for `CronTab` of `stable.example.com/v1`.
pub(crate) fn schema_name(r: &Resource, kind: &str) -> String {
    let mut parts: Vec<&str> = r.group.split('.').collect();
    parts.reverse();
    format!("{}.{}.{kind}", parts.join("."), r.version)
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn gvk(r: &Resource, kind: &str) -> Value {
    json!({"group": r.group, "version": r.version, "kind": kind})
}

fn operation(r: &Resource, action: &str, kind: &str, response: &str, params: &[&str]) -> Value {
    let id = format!(
        "{action}{}{}",
        r.kind,
        if kind == r.list_kind { "List" } else { "" }
    );
    let mut op = json!({
        "operationId": id,
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk(r, r.kind),
        "responses": {"200": {"content": {"application/json": {"schema": reference(response)}}}},
    });
    let params: Vec<Value> = params
        .iter()
        .map(|p| {
            let ty = if *p == "force" { "boolean" } else { "string" };
            json!({"in": "query", "name": p, "schema": {"type": ty, "uniqueItems": true}})
        })
        .collect();
    if !params.is_empty() {
        op["parameters"] = Value::Array(params);
    }
    op
}

fn body(types: &[&str], schema: &str) -> Value {
    let content: Map<String, Value> = types
        .iter()
        .map(|t| ((*t).to_owned(), json!({"schema": reference(schema)})))
        .collect();
    json!({"content": content, "required": true})
}

/// The schemas of `api/v1` that `names` reach, copied into `out`.
fn copy_closure(names: &[&str], out: &mut Map<String, Value>) {
    let Some(doc) = crate::openapi::document("api/v1") else {
        return;
    };
    let schemas = &doc.json["components"]["schemas"];
    let mut todo: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    while let Some(name) = todo.pop() {
        if out.contains_key(&name) {
            continue;
        }
        let Some(schema) = schemas.get(&name) else {
            continue;
        };
        collect_refs(schema, &mut todo);
        out.insert(name, schema.clone());
    }
}

fn collect_refs(v: &Value, found: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str)
                && let Some(n) = r.strip_prefix("#/components/schemas/")
            {
                found.push(n.to_owned());
            }
            m.values().for_each(|x| collect_refs(x, found));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, found)),
        _ => {}
    }
}

/// The schema of a version's list kind.
pub(crate) fn list_schema(r: &Resource) -> Value {
    json!({
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "items": {"type": "array", "items": reference(&schema_name(r, r.kind))},
            "metadata": reference(&format!("{META}ListMeta")),
        },
        "x-kubernetes-group-version-kind": [gvk(r, r.list_kind)],
    })
}

/// The document of one custom resource group-version, or `None` when nothing is served there.
fn build(crds: &Crds, group: &str, version: &str) -> Option<Value> {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for crd in crds.all() {
        if crd.group() != group {
            continue;
        }
        for v in crd
            .versions
            .iter()
            .filter(|v| v.resource.version == version)
        {
            let r = v.resource;
            let kind_name = schema_name(r, r.kind);
            let list_name = schema_name(r, r.list_kind);
            let mut schema = v
                .schema
                .clone()
                .unwrap_or_else(|| json!({"type": "object"}));
            if let Some(m) = schema.as_object_mut() {
                let props = m
                    .entry("properties")
                    .or_insert_with(|| json!({}))
                    .as_object_mut()
                    .map(std::mem::take)
                    .unwrap_or_default();
                let mut all = Map::new();
                all.insert("apiVersion".into(), json!({"type": "string"}));
                all.insert("kind".into(), json!({"type": "string"}));
                all.insert("metadata".into(), reference(&format!("{META}ObjectMeta")));
                for (k, p) in props {
                    if k != "apiVersion" && k != "kind" && k != "metadata" {
                        all.insert(k, p);
                    }
                }
                m.insert("properties".into(), Value::Object(all));
                m.insert(
                    "x-kubernetes-group-version-kind".into(),
                    json!([gvk(r, r.kind)]),
                );
            }
            schemas.insert(kind_name.clone(), schema);
            schemas.insert(list_name.clone(), list_schema(r));
            let base = if r.namespaced {
                format!(
                    "/apis/{group}/{version}/namespaces/{{namespace}}/{}",
                    r.plural
                )
            } else {
                format!("/apis/{group}/{version}/{}", r.plural)
            };
            let mut path_params = Vec::new();
            if r.namespaced {
                path_params.push(json!({"in": "path", "name": "namespace", "required": true,
                    "schema": {"type": "string", "uniqueItems": true}}));
            }
            let mut collection = json!({
                "get": operation(r, "list", r.list_kind, &list_name, &["labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "watch"]),
                "post": operation(r, "post", r.kind, &kind_name, &["dryRun", "fieldManager", "fieldValidation"]),
                "delete": operation(r, "deletecollection", r.kind, &format!("{META}Status"), &["dryRun"]),
                "parameters": path_params.clone(),
            });
            collection["post"]["requestBody"] =
                body(&["application/json", "application/yaml"], &kind_name);
            let mut item_params = path_params.clone();
            item_params.push(json!({"in": "path", "name": "name", "required": true,
                "schema": {"type": "string", "uniqueItems": true}}));
            let mut item = json!({
                "get": operation(r, "get", r.kind, &kind_name, &["resourceVersion"]),
                "put": operation(r, "put", r.kind, &kind_name, &["dryRun", "fieldManager", "fieldValidation"]),
                "patch": operation(r, "patch", r.kind, &kind_name, &["dryRun", "fieldManager", "fieldValidation", "force"]),
                "delete": operation(r, "delete", r.kind, &format!("{META}Status"), &["dryRun"]),
                "parameters": item_params,
            });
            item["put"]["requestBody"] =
                body(&["application/json", "application/yaml"], &kind_name);
            item["patch"]["requestBody"] = body(
                &[
                    "application/apply-patch+yaml",
                    "application/json-patch+json",
                    "application/merge-patch+json",
                ],
                &format!("{META}Patch"),
            );
            paths.insert(format!("{base}/{{name}}"), item);
            paths.insert(base, collection);
        }
    }
    if paths.is_empty() {
        return None;
    }
    copy_closure(
        &[
            &format!("{META}ObjectMeta"),
            &format!("{META}ListMeta"),
            &format!("{META}Status"),
            &format!("{META}Patch"),
        ],
        &mut schemas,
    );
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }))
}

/// A served document: its key, bytes and hash (upper-case hex SHA-512).
pub struct Document {
    /// `apis/<group>/<version>`.
    pub key: String,
    /// The JSON served.
    pub bytes: Vec<u8>,
    /// The `hash` parameter and ETag.
    pub hash: String,
}

/// The document at `/openapi/v3/<key>` of a custom resource group-version.
pub fn document(crds: &Crds, key: &str) -> Option<Document> {
    let rest = key.strip_prefix("apis/")?;
    let (group, version) = rest.split_once('/')?;
    let doc = build(crds, group, version)?;
    let bytes = serde_json::to_vec(&doc).ok()?;
    let hash = crate::openapi::hash(&bytes);
    Some(Document {
        key: key.to_owned(),
        bytes,
        hash,
    })
}

/// The document of every custom resource group-version, built.
pub fn built(crds: &Crds) -> Vec<Value> {
    crd_discovery::groups(crds)
        .into_iter()
        .flat_map(|(g, vs)| {
            vs.into_iter()
                .filter_map(|v| build(crds, &g, &v))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The documents of every custom resource group-version (for the `/openapi/v3` index).
pub fn documents(crds: &Crds) -> Vec<Document> {
    crd_discovery::groups(crds)
        .into_iter()
        .flat_map(|(g, vs)| {
            vs.into_iter()
                .filter_map(move |v| document(crds, &format!("apis/{g}/{v}")))
                .collect::<Vec<_>>()
        })
        .collect()
}

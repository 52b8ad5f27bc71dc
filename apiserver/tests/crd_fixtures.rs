//! The CRD fixtures of `tests/crd/*.yaml` (the suite `kcel test` and `cargo test --test
//! crd_suite` run through the library) driven through the server: one fixture set, two
//! drivers. Each fixture's CRD is created over HTTPS (a 422 whose causes are the fixture's
//! `schema_errors`, or established), then each case's object is created (or, for an update,
//! its old object created first and the object written over it) and the server's 422 causes
//! and `Warning:` headers compared with the case's errors and warnings.
//!
//! Cases are skipped, with the reason printed, when the server cannot reproduce them through
//! its API: the cases of CRDs the server refuses (with the expected schema errors: Kubernetes
//! serves no such CRD), `rulesOnly` cases (the CEL validator alone, not a request), and updates whose old
//! object the API refuses (it is invalid under the schema, as ratcheting fixtures need).

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::Server;

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_norway::from_str(&text).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The 422's causes as `field: message`, or the answer itself for other codes.
fn errors_of(reply: &support::Reply) -> Result<Vec<String>, String> {
    match reply.code {
        200 | 201 => Ok(Vec::new()),
        422 => {
            let status = reply.json();
            Ok(status["details"]["causes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{}: {}",
                        c["field"].as_str().unwrap_or(""),
                        c["message"].as_str().unwrap_or("")
                    )
                })
                .collect())
        }
        code => Err(format!("{code}: {}", reply.text())),
    }
}

fn warnings_of(reply: &support::Reply) -> Vec<String> {
    reply
        .headers
        .get_all("warning")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("299 - \""))
        .map(|v| {
            v.strip_suffix('"')
                .unwrap_or(v)
                .replace("\\\"", "\"")
                .replace("\\\\", "\\")
        })
        .collect()
}

/// The object of a case as a request body: type and name filled in when absent.
fn object(case: &Value, field: &str, api_version: &str, kind: &str, name: &str) -> Value {
    let mut o = case[field].clone();
    if let Some(m) = o.as_object_mut() {
        m.entry("apiVersion").or_insert_with(|| json!(api_version));
        m.entry("kind").or_insert_with(|| json!(kind));
        let meta = m.entry("metadata").or_insert_with(|| json!({}));
        if meta.get("name").is_none() {
            meta["name"] = json!(name);
        }
    }
    o
}

#[tokio::test]
async fn every_fixture_gives_the_same_outcome_through_the_server() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/crd");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/crd")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let server = Server::start(&[]);
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let fixture = load(path);
        let crd = &fixture["crd"];
        let crd_name = crd["metadata"]["name"].as_str().unwrap().to_owned();
        let reply = server
            .send(
                "POST",
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                Some(crd),
            )
            .await;
        let expected_schema: Vec<String> = fixture["schemaErrors"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e.as_str().unwrap().to_owned())
            .collect();
        match errors_of(&reply) {
            Ok(got) if sorted(got.clone()) == sorted(expected_schema.clone()) => passed += 1,
            Ok(got) => failures.push(format!(
                "{file}: CRD errors {got:?}, expected {expected_schema:?}"
            )),
            Err(e) => failures.push(format!("{file}: CRD create: {e}")),
        }
        if reply.code != 201 {
            let cases = fixture["cases"].as_array().map_or(0, Vec::len);
            if cases > 0 {
                println!(
                    "skipped {file}: {cases} cases, the server refuses the CRD (with the fixture's schema errors)"
                );
                skipped += cases;
            }
            continue;
        }
        let group = crd["spec"]["group"].as_str().unwrap();
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
        let version = crd["spec"]["versions"][0]["name"].as_str().unwrap();
        let namespaced = crd["spec"]["scope"] != "Cluster";
        let api_version = format!("{group}/{version}");
        let collection = if namespaced {
            format!("/apis/{api_version}/namespaces/default/{plural}")
        } else {
            format!("/apis/{api_version}/{plural}")
        };
        for (i, case) in fixture["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let case_name = case["name"].as_str().unwrap_or("");
            if let Some(why) = case["skip"].as_str() {
                println!("skipped {file} / {case_name}: {why}");
                skipped += 1;
                continue;
            }
            if case["rulesOnly"] == true {
                println!(
                    "skipped {file} / {case_name}: rulesOnly (the CEL validator alone, not a request)"
                );
                skipped += 1;
                continue;
            }
            let name = format!("case-{i}");
            let new = object(case, "object", &api_version, kind, &name);
            let name = new["metadata"]["name"].as_str().unwrap().to_owned();
            let reply = if case["old"].is_object() {
                let old = object(case, "old", &api_version, kind, &name);
                let created = server.send("POST", &collection, Some(&old)).await;
                if created.code != 201 {
                    println!(
                        "skipped {file} / {case_name}: the API refuses the old object ({})",
                        created.json()["message"].as_str().unwrap_or("")
                    );
                    skipped += 1;
                    continue;
                }
                let mut new = new.clone();
                new["metadata"]["resourceVersion"] =
                    created.json()["metadata"]["resourceVersion"].clone();
                server
                    .send("PUT", &format!("{collection}/{name}"), Some(&new))
                    .await
            } else {
                server.send("POST", &collection, Some(&new)).await
            };
            let expected: Vec<String> = case["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| e.as_str().unwrap().to_owned())
                .collect();
            let expected_warnings: Vec<String> = case["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| e.as_str().unwrap().to_owned())
                .collect();
            let warnings = warnings_of(&reply);
            match errors_of(&reply) {
                Ok(got) if sorted(got.clone()) == sorted(expected.clone())
                    && sorted(warnings.clone()) == sorted(expected_warnings.clone()) =>
                {
                    passed += 1
                }
                Ok(got) => failures.push(format!(
                    "{file} / {case_name}: errors {got:?} warnings {warnings:?}, expected {expected:?} {expected_warnings:?}"
                )),
                Err(e) => failures.push(format!("{file} / {case_name}: {e}")),
            }
            server
                .send("DELETE", &format!("{collection}/{name}"), None)
                .await;
        }
        let delete = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd_name}");
        server.send("DELETE", &delete, None).await;
        for _ in 0..100 {
            if server.send("GET", &delete, None).await.code == 404 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    println!(
        "{} fixtures: {passed} passed, {skipped} skipped, {} failed",
        paths.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(passed >= 50, "only {passed} passed");
}

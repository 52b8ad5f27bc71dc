//! ValidatingAdmissionPolicy suites: each `tests/admission/*.yaml` holds a policy, its
//! bindings, params and namespace, and requests with the exact expected decision. The
//! suites run through `kcel_stdlib::kubernetes::suite`, the runner of `kcel test` (the format is documented
//! there and in README).

use kcel_stdlib::kubernetes::suite::{Outcome, Suite};

fn run_suite(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let suite = serde_norway::from_str::<serde_json::Value>(&text)
        .map_err(|e| e.to_string())
        .and_then(|json| Suite::from_json(&json).map_err(|e| e.to_string()));
    let suite = match suite {
        Ok(Suite::Admission(s)) => Suite::Admission(s),
        Ok(Suite::Crd(_)) => return vec![format!("{}: not an admission suite", path.display())],
        Err(e) => return vec![format!("{}: bad suite: {e}", path.display())],
    };
    suite
        .run()
        .into_iter()
        .filter_map(|r| match r.outcome {
            Outcome::Failed(m) => Some(format!(
                "{} / {}:\n  {}",
                path.display(),
                r.name,
                m.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn suites() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/admission");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/admission exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let failures: Vec<String> = paths.iter().flat_map(|p| run_suite(p)).collect();
    println!("{} suites, {} failures", paths.len(), failures.len());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(paths.len() >= 15, "expected at least 15 suites");
}

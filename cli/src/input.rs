//! Reading input text: YAML or JSON documents from files (one, or a stream of them), and the
//! text of a value given inline, as `@PATH` or as `@-` (stdin, once).

use std::io::Read;

use kcel_stdlib::documents::parse_manifests;

/// Reads the one YAML or JSON document of a file.
pub fn read_document(path: &std::path::Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    match parse_manifests(&text) {
        Ok(mut documents) if documents.len() == 1 => Ok(documents.remove(0)),
        Ok(documents) => Err(format!(
            "'{}' holds {} documents, not one",
            path.display(),
            documents.len()
        )),
        Err(e) => Err(format!("'{}': {e}", path.display())),
    }
}

/// Reads every YAML document of a file (`-`: stdin), or the one JSON document: documents
/// separated by `---`, empty and comment-only documents skipped, as `kubectl` reads
/// manifests.
pub fn read_documents(path: &std::path::Path) -> Result<Vec<serde_json::Value>, String> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        text
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?
    };
    parse_manifests(&text).map_err(|e| format!("'{}': {e}", path.display()))
}

/// The text of a value: inline, `@PATH` or `@-` (stdin, once).
pub fn read_spec(spec: &str, stdin_used: &mut bool) -> Result<String, String> {
    match spec.strip_prefix('@') {
        Some("-") => {
            if std::mem::replace(stdin_used, true) {
                return Err("stdin (@-) can be read only once".into());
            }
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            Ok(text)
        }
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))
        }
        None => Ok(spec.to_string()),
    }
}

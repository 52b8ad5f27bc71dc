//! Reading input text: YAML or JSON documents from files, and the text of a value given
//! inline, as `@PATH` or as `@-` (stdin, once).

use std::io::Read;

/// Reads a YAML or JSON document from a file.
pub fn read_document(path: &std::path::Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    serde_norway::from_str::<serde_json::Value>(&text)
        .map_err(|e| format!("'{}' is not valid YAML or JSON: {e}", path.display()))
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

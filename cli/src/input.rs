//! Reading input text: YAML or JSON documents from files (one, or a stream of them), and the
//! text of a value given inline, as `@PATH` or as `@-` (stdin, once).

use std::io::Read;

use std::path::{Path, PathBuf};

use kcel_stdlib::documents::parse_manifests;

/// Input that could not be read: the CLI's words for it, written here once.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A file that cannot be read.
    #[error("cannot read '{path}': {error}")]
    Read { path: String, error: std::io::Error },
    /// Standard input that cannot be read.
    #[error("cannot read stdin: {0}")]
    Stdin(std::io::Error),
    /// `@-` given twice.
    #[error("stdin (@-) can be read only once")]
    StdinTwice,
    /// A file that should hold one document holds another number.
    #[error("'{path}' holds {count} documents, not one")]
    NotOneDocument { path: String, count: usize },
    /// A file that is not YAML or JSON (the reader's message).
    #[error("'{path}': {error}")]
    Unreadable {
        path: String,
        error: kcel_stdlib::documents::DocumentError,
    },
}

fn read_file(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|error| InputError::Read {
        path: path.display().to_string(),
        error,
    })
}

fn read_stdin() -> Result<String, InputError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(InputError::Stdin)?;
    Ok(text)
}

fn manifests(path: &Path, text: &str) -> Result<Vec<serde_json::Value>, InputError> {
    parse_manifests(text).map_err(|error| InputError::Unreadable {
        path: path.display().to_string(),
        error,
    })
}

/// Reads the one YAML or JSON document of a file.
pub fn read_document(path: &Path) -> Result<serde_json::Value, InputError> {
    let mut documents = manifests(path, &read_file(path)?)?;
    if documents.len() == 1 {
        Ok(documents.remove(0))
    } else {
        Err(InputError::NotOneDocument {
            path: path.display().to_string(),
            count: documents.len(),
        })
    }
}

/// The text of a file (`-`: stdin).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    if path.as_os_str() == "-" {
        read_stdin()
    } else {
        read_file(path)
    }
}

/// Reads every YAML document of a file (`-`: stdin), or the one JSON document: documents
/// separated by `---`, empty and comment-only documents skipped, as `kubectl` reads
/// manifests.
pub fn read_documents(path: &Path) -> Result<Vec<serde_json::Value>, InputError> {
    manifests(path, &read_text(path)?)
}

/// The files that paths stand for, as `kubectl -f` expands them (cli-runtime's
/// `ExpandPathsToFileVisitors` without `--recursive`): a directory stands for its `.json`,
/// `.yaml` and `.yml` files in name order, not its subdirectories; any other path (`-`
/// too) for itself.
pub fn expand_directories(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let unreadable = |error| InputError::Read {
            path: path.display().to_string(),
            error,
        };
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(unreadable)? {
            let file = entry.map_err(unreadable)?.path();
            let manifest = file
                .extension()
                .is_some_and(|e| e == "json" || e == "yaml" || e == "yml");
            if manifest && !file.is_dir() {
                found.push(file);
            }
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// The text of a value: inline, `@PATH` or `@-` (stdin, once).
pub fn read_spec(spec: &str, stdin_used: &mut bool) -> Result<String, InputError> {
    match spec.strip_prefix('@') {
        Some("-") => {
            if std::mem::replace(stdin_used, true) {
                return Err(InputError::StdinTwice);
            }
            read_stdin()
        }
        Some(path) => read_file(Path::new(path)),
        None => Ok(spec.to_string()),
    }
}

//! Writing the server's files in the data directory.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes `contents` to `path` readable by the owner only (keys, tokens, kubeconfig), replacing
/// the file atomically (write to a temporary name, sync, rename).
pub fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    write_with_mode(path, contents, 0o600)
}

/// Writes `contents` to `path` readable by everyone (certificates), atomically.
pub fn write_public(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    write_with_mode(path, contents, 0o644)
}

fn write_with_mode(path: &Path, contents: &[u8], mode: u32) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

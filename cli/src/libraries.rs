//! `--lib NAME[@VERSION]`: a library from the engine's catalog (also listed by
//! `kcel functions --libraries`).

use kcel::library::Library;
use kcel_stdlib::catalog::LibraryError;

use crate::usage_error::UsageError;
pub use kcel_stdlib::catalog::available;

/// A validated `--lib` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibrarySpec {
    pub name: &'static str,
    pub version: u32,
}

impl LibrarySpec {
    /// Builds the library.
    pub fn build(&self) -> Option<Library> {
        kcel_stdlib::catalog::find(self.name).map(|a| a.build(self.version))
    }
}

/// Parses `NAME` (newest version) or `NAME@VERSION`; NAME is the library's name or its
/// short alias (`strings`, `ip`, ...).
pub fn parse_spec(text: &str) -> Result<LibrarySpec, UsageError> {
    let (library, version) = kcel_stdlib::catalog::resolve(text).map_err(|e| match e {
        LibraryError::Unknown(_) => UsageError::UnknownLibrary(e),
        _ => UsageError::Library(e),
    })?;
    Ok(LibrarySpec {
        name: library.name,
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_resolve_to_versions() {
        let newest = *available()[1].versions.end();
        assert_eq!(parse_spec("optional").unwrap().version, newest);
        assert_eq!(parse_spec("optional@0").unwrap().version, 0);
        assert!(parse_spec("optional@99").is_err());
        assert!(parse_spec("nope").is_err());
        assert!(parse_spec("optional").unwrap().build().is_some());
        assert_eq!(parse_spec("strings@2").unwrap().name, "cel.lib.ext.strings");
        assert_eq!(parse_spec("strings@2").unwrap().version, 2);
    }
}

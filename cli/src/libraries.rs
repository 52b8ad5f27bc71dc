//! `--lib NAME[@VERSION]`: a library from the engine's catalog (also listed by
//! `kcel functions --libraries`).

use kcel::registry::Library;
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

/// Parses `NAME` (newest version) or `NAME@VERSION`.
pub fn parse_spec(text: &str) -> Result<LibrarySpec, String> {
    let (name, version) = match text.split_once('@') {
        Some((name, version)) => (name, Some(version)),
        None => (text, None),
    };
    let library = available()
        .into_iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("unknown library '{name}' (see `kcel functions --libraries`)"))?;
    let version = match version {
        None => *library.versions.end(),
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|v| library.versions.contains(v))
            .ok_or_else(|| {
                format!(
                    "library '{name}' has versions {} to {}, not '{v}'",
                    library.versions.start(),
                    library.versions.end()
                )
            })?,
    };
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
    }
}

//! The libraries that `--lib NAME[@VERSION]` can add, with their versions (also listed by
//! `kcel functions --libraries`).

use kcel::registry::Library;

/// A library the CLI can load: its name, versions, and a constructor for a given version.
pub struct Available {
    pub name: &'static str,
    pub versions: std::ops::RangeInclusive<u32>,
    build: fn(u32) -> Library,
}

/// Every library, in the order `functions --libraries` lists them.
pub fn available() -> [Available; 4] {
    [
        Available {
            name: "cel.stdlib",
            versions: 0..=0,
            build: |_| kcel::stdlib::standard(),
        },
        Available {
            name: "optional",
            versions: 0..=kcel::stdlib::optional::LATEST,
            build: kcel::stdlib::optional::optional,
        },
        Available {
            name: "cel.lib.ext.cel.bindings",
            versions: 0..=0,
            build: |_| kcel::stdlib::comprehensions::bindings(),
        },
        Available {
            name: "cel.lib.ext.comprev2",
            versions: 0..=0,
            build: |_| kcel::stdlib::comprehensions::two_var_comprehensions(),
        },
    ]
}

/// A validated `--lib` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibrarySpec {
    pub name: &'static str,
    pub version: u32,
}

impl LibrarySpec {
    /// Builds the library.
    pub fn build(&self) -> Option<Library> {
        available()
            .into_iter()
            .find(|a| a.name == self.name)
            .map(|a| (a.build)(self.version))
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
    fn names_and_versions_match_the_libraries() {
        for a in available() {
            for version in a.versions.clone() {
                let lib = (a.build)(version);
                assert_eq!(lib.name, a.name);
                assert_eq!(lib.version, version);
            }
        }
    }

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

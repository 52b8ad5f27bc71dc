//! Every library kcel offers, by name and version: the one list that the CLI's `--lib`,
//! `kcel functions --libraries` and embedders choose from.

use std::ops::RangeInclusive;

use crate::{comprehensions, ext, kubernetes, optional};
use kcel::library::Library;

/// A library that can be added to an environment.
pub struct Available {
    /// The name cel-go and Kubernetes give the library (`cel.lib.ext.strings`).
    pub name: &'static str,
    /// A short name (`strings`, `ip`, `semver`; `regex` is Kubernetes' `find`/`findAll`,
    /// `ext-regex` cel-go's `regex` extension, `lists` cel-go's, `k8s-lists` Kubernetes').
    pub alias: &'static str,
    /// The versions there are.
    pub versions: RangeInclusive<u32>,
    build: fn(u32) -> Library,
}

impl Available {
    /// Builds the library at `version` (which must be in `versions`).
    pub fn build(&self, version: u32) -> Library {
        (self.build)(version)
    }
}

/// Every library, in a stable order.
pub fn available() -> Vec<Available> {
    vec![
        Available {
            name: "cel.stdlib",
            alias: "stdlib",
            versions: 0..=0,
            build: |_| kcel::library::standard::library(),
        },
        Available {
            name: "optional",
            alias: "optional",
            versions: 0..=optional::LATEST,
            build: optional::optional,
        },
        Available {
            name: "cel.lib.ext.cel.bindings",
            alias: "bindings",
            versions: 0..=comprehensions::BINDINGS_VERSION,
            build: comprehensions::bindings,
        },
        Available {
            name: "cel.lib.ext.comprev2",
            alias: "comprehensions",
            versions: 0..=0,
            build: |_| comprehensions::two_var_comprehensions(),
        },
        Available {
            name: "cel.lib.ext.strings",
            alias: "strings",
            versions: 0..=ext::STRINGS_VERSION,
            build: ext::strings,
        },
        Available {
            name: "cel.lib.ext.math",
            alias: "math",
            versions: 0..=ext::MATH_VERSION,
            build: ext::math,
        },
        Available {
            name: "cel.lib.ext.encoders",
            alias: "encoders",
            versions: 0..=0,
            build: |_| ext::encoders(),
        },
        Available {
            name: "cel.lib.ext.sets",
            alias: "sets",
            versions: 0..=0,
            build: |_| ext::sets(),
        },
        Available {
            name: "cel.lib.ext.lists",
            alias: "lists",
            versions: 0..=ext::LISTS_VERSION,
            build: ext::lists,
        },
        Available {
            name: "cel.lib.ext.regex",
            alias: "ext-regex",
            versions: 0..=0,
            build: |_| ext::regex(),
        },
        Available {
            name: "cel.lib.ext.network",
            alias: "network",
            versions: ext::network::VERSION..=ext::network::VERSION,
            build: |_| ext::network(),
        },
        Available {
            name: "kubernetes.lists",
            alias: "k8s-lists",
            versions: 0..=1,
            build: kubernetes::lists,
        },
        Available {
            name: "kubernetes.regex",
            alias: "regex",
            versions: 0..=0,
            build: |_| kubernetes::regex(),
        },
        Available {
            name: "kubernetes.urls",
            alias: "urls",
            versions: 0..=0,
            build: |_| kubernetes::urls(),
        },
        Available {
            name: "kubernetes.quantity",
            alias: "quantity",
            versions: 0..=0,
            build: |_| kubernetes::quantity(),
        },
        Available {
            name: "kubernetes.net.ip",
            alias: "ip",
            versions: 0..=0,
            build: |_| kubernetes::ip(),
        },
        Available {
            name: "kubernetes.net.cidr",
            alias: "cidr",
            versions: 0..=0,
            build: |_| kubernetes::cidr(),
        },
        Available {
            name: "kubernetes.format",
            alias: "format",
            versions: 0..=0,
            build: |_| kubernetes::format(),
        },
        Available {
            name: "kubernetes.Semver",
            alias: "semver",
            versions: 0..=1,
            build: kubernetes::semver,
        },
        Available {
            name: "kubernetes.authz",
            alias: "authz",
            versions: 0..=0,
            build: |_| kubernetes::authz(),
        },
        Available {
            name: "kubernetes.authzSelectors",
            alias: "authz-selectors",
            versions: 0..=0,
            build: |_| kubernetes::authz_selectors(),
        },
        Available {
            name: "kubernetes.jsonpatch",
            alias: "jsonpatch",
            versions: 0..=0,
            build: |_| kubernetes::jsonpatch(),
        },
        Available {
            name: "kubernetes.sharding",
            alias: "sharding",
            versions: 0..=0,
            build: |_| kubernetes::sharding(),
        },
    ]
}

/// Looks a library up by name or alias.
pub fn find(name: &str) -> Option<Available> {
    available()
        .into_iter()
        .find(|a| a.name == name || a.alias == name)
}

/// Resolves `NAME` (the newest version) or `NAME@VERSION`, NAME a library's name or alias:
/// the one reading of `--lib` for the CLI, the browser module and embedders.
///
/// ```
/// let (library, version) = kcel_stdlib::catalog::resolve("strings@2").unwrap();
/// assert_eq!((library.name, version), ("cel.lib.ext.strings", 2));
/// ```
pub fn resolve(spec: &str) -> Result<(Available, u32), LibraryError> {
    let (name, version) = match spec.split_once('@') {
        Some((name, version)) => (name, Some(version)),
        None => (spec, None),
    };
    let library = find(name).ok_or_else(|| LibraryError::Unknown(name.to_string()))?;
    let version = match version {
        None => *library.versions.end(),
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|v| library.versions.contains(v))
            .ok_or_else(|| LibraryError::Version {
                name: name.to_string(),
                versions: library.versions.clone(),
                asked: v.to_string(),
            })?,
    };
    Ok((library, version))
}

/// Why a `--lib` text names no library ([`resolve`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    /// No library has the name or alias.
    #[error("unknown library '{0}'")]
    Unknown(String),
    /// The library has no such version.
    #[error("library '{name}' has versions {} to {}, not '{asked}'", .versions.start(), .versions.end())]
    Version {
        /// The name as written.
        name: String,
        /// The versions it has.
        versions: std::ops::RangeInclusive<u32>,
        /// The version as written.
        asked: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let all = available();
        let mut names: Vec<&str> = all.iter().flat_map(|a| [a.name, a.alias]).collect();
        names.sort();
        names.dedup();
        // `optional` is its own alias.
        assert_eq!(names.len(), 2 * all.len() - 1);
        assert_eq!(find("semver").map(|a| a.name), Some("kubernetes.Semver"));
        assert_eq!(
            find("cel.lib.ext.strings").map(|a| a.alias),
            Some("strings")
        );
    }

    #[test]
    fn names_and_versions_match_the_libraries() {
        for a in available() {
            for version in a.versions.clone() {
                let lib = a.build(version);
                assert_eq!(lib.name(), a.name);
                assert_eq!(lib.version(), version);
            }
        }
    }
}

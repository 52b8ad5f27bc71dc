//! Every library kcel offers, by name and version: the one list that the CLI's `--lib`,
//! `kcel functions --libraries` and embedders choose from.

use std::ops::RangeInclusive;

use crate::{comprehensions, ext, kubernetes, optional};
use kcel::registry::Library;

/// A library that can be added to an environment.
pub struct Available {
    pub name: &'static str,
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
            versions: 0..=0,
            build: |_| kcel::standard::library(),
        },
        Available {
            name: "optional",
            versions: 0..=optional::LATEST,
            build: optional::optional,
        },
        Available {
            name: "cel.lib.ext.cel.bindings",
            versions: 0..=comprehensions::BINDINGS_VERSION,
            build: comprehensions::bindings,
        },
        Available {
            name: "cel.lib.ext.comprev2",
            versions: 0..=0,
            build: |_| comprehensions::two_var_comprehensions(),
        },
        Available {
            name: "cel.lib.ext.strings",
            versions: 0..=ext::STRINGS_VERSION,
            build: ext::strings,
        },
        Available {
            name: "cel.lib.ext.math",
            versions: 0..=ext::MATH_VERSION,
            build: ext::math,
        },
        Available {
            name: "cel.lib.ext.encoders",
            versions: 0..=0,
            build: |_| ext::encoders(),
        },
        Available {
            name: "cel.lib.ext.sets",
            versions: 0..=0,
            build: |_| ext::sets(),
        },
        Available {
            name: "cel.lib.ext.lists",
            versions: 0..=ext::LISTS_VERSION,
            build: ext::lists,
        },
        Available {
            name: "cel.lib.ext.regex",
            versions: 0..=0,
            build: |_| ext::regex(),
        },
        Available {
            name: "cel.lib.ext.network",
            versions: ext::network::VERSION..=ext::network::VERSION,
            build: |_| ext::network(),
        },
        Available {
            name: "kubernetes.lists",
            versions: 0..=1,
            build: kubernetes::lists,
        },
        Available {
            name: "kubernetes.regex",
            versions: 0..=0,
            build: |_| kubernetes::regex(),
        },
        Available {
            name: "kubernetes.urls",
            versions: 0..=0,
            build: |_| kubernetes::urls(),
        },
        Available {
            name: "kubernetes.quantity",
            versions: 0..=0,
            build: |_| kubernetes::quantity(),
        },
        Available {
            name: "kubernetes.net.ip",
            versions: 0..=0,
            build: |_| kubernetes::ip(),
        },
        Available {
            name: "kubernetes.net.cidr",
            versions: 0..=0,
            build: |_| kubernetes::cidr(),
        },
        Available {
            name: "kubernetes.format",
            versions: 0..=0,
            build: |_| kubernetes::format(),
        },
        Available {
            name: "kubernetes.Semver",
            versions: 0..=1,
            build: kubernetes::semver,
        },
        Available {
            name: "kubernetes.authz",
            versions: 0..=0,
            build: |_| kubernetes::authz(),
        },
        Available {
            name: "kubernetes.authzSelectors",
            versions: 0..=0,
            build: |_| kubernetes::authz_selectors(),
        },
        Available {
            name: "kubernetes.jsonpatch",
            versions: 0..=0,
            build: |_| kubernetes::jsonpatch(),
        },
        Available {
            name: "kubernetes.sharding",
            versions: 0..=0,
            build: |_| kubernetes::sharding(),
        },
    ]
}

/// Looks a library up by name.
pub fn find(name: &str) -> Option<Available> {
    available().into_iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions_match_the_libraries() {
        for a in available() {
            for version in a.versions.clone() {
                let lib = a.build(version);
                assert_eq!(lib.name, a.name);
                assert_eq!(lib.version, version);
            }
        }
    }
}

//! The libraries of kcel beyond the CEL standard library (which is in the engine,
//! `kcel::standard`), and all of kcel's Kubernetes code:
//!
//! - [`ext`]: cel-go's extension libraries (strings, math, encoders, sets, lists, regex,
//!   network), versioned as cel-go versions them; [`optional`] the optional types;
//!   [`comprehensions`] the bindings and two-variable comprehension libraries;
//! - [`kubernetes`]: the Kubernetes CEL libraries, Kubernetes' environments by version
//!   ([`kubernetes::presets`]), structural schemas and CRD rule validation
//!   ([`kubernetes::crd`]), ValidatingAdmissionPolicy evaluation ([`kubernetes::admission`])
//!   and the test suites of both ([`kubernetes::suite`]);
//! - [`catalog`]: every library by name and version; [`documents`]: values and manifests
//!   read from JSON or YAML text as Kubernetes' tools read them.
//!
//! This crate builds on the engine's library-authoring API (`kcel::library`,
//! `kcel::library`, `kcel`) and its embedding API; the engine knows nothing of it.

#![deny(missing_docs)]

pub mod catalog;
pub mod comprehensions;
pub mod documents;
pub mod ext;
pub mod kubernetes;
pub mod optional;

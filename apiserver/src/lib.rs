//! kcel-apiserver: a small Kubernetes API server on embedded storage, built beside kcel.
//!
//! The parts, in request order: [`server`] accepts TLS connections and holds the shared
//! state; [`auth`] checks the bearer token, [`impersonation`] the user it may act as, and
//! [`authz`] what that user may do (with [`rbac`]'s stored roles); [`routes`] maps
//! paths to handlers; [`negotiate`] picks the body's decoder ([`protobuf`] for Kubernetes
//! protobuf) and the answer's representation ([`table`] for Tables); handlers decode
//! [`object`]s, check them against the vendored [`openapi`] schemas and the library's name rules, apply
//! [`patch`]es, server-side [`apply`] and keep managed fields, and write through the [`storage`] trait, whose
//! revision is the `resourceVersion`; failures are [`error::ApiError`]s, rendered as
//! [`status::Status`] objects in one place; [`metrics`] count every request.

#![warn(missing_docs)]

pub mod access_request;
pub mod access_review;
pub mod admission;
pub mod apply;
pub mod auth;
pub mod authz;
pub mod continue_token;
pub mod conversion;
pub mod crd;
pub mod defaults;
pub mod discovery_entries;
pub mod duplicate_owners;
pub mod error;
pub mod features;
mod files;
pub mod impersonation;
pub mod kind_rules;
pub mod kubeconfig;
pub mod list_options;
pub mod metadata;
pub mod metrics;
pub mod negotiate;
pub mod object;
pub mod openapi;
pub mod openapi_v2;
pub mod patch;
pub mod patch_decode;
pub mod persistent_volumes;
pub mod pki;
pub mod propagation;
pub mod protobuf;
pub mod random;
pub mod rbac;
pub mod resource;
pub mod respond;
pub mod routes;
pub mod scale;
pub mod selectors;
pub mod served;
pub mod server;
pub mod service_network;
pub mod shard;
pub mod state;
pub mod status;
pub mod storage;
pub mod strategic_merge;
pub mod swagger_form;
pub mod table;
pub mod workloads;

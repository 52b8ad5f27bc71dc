//! The Kubernetes library suites: one table per library (`tests/kubernetes/*.rs`), each case
//! an expression with its expected value or exact error, its runtime cost and its estimated
//! cost, with the source of every figure beside it:
//!
//! * `ct:<Test>/<case>` — k8s.io/apiserver `pkg/cel/library/cost_test.go`. Upstream runs
//!   these without `OptOptimize` and with a size estimator that gives every string or bytes
//!   node `[0, 12]`; the cases marked `ct` do the same ([`UpstreamSizes`], `optimize: false`).
//! * `<lib>_test:<case>` — the library's own upstream test table (`quantity_test.go`, ...).
//! * `spec` — worked by hand from `../shared/k8s-cel/SPEC.md` §2 (runtime with the optimizer
//!   on, as Kubernetes runs; estimates with no size information beyond literals).
//! * `go` — Go standard library behaviour (net/netip, net/url, regexp), worked by hand.

#[path = "kubernetes/authz.rs"]
mod authz;
#[path = "kubernetes/cidr.rs"]
mod cidr;
#[path = "kubernetes/cost_test.rs"]
mod cost_test;
#[path = "kubernetes/crd_rules.rs"]
mod crd_rules;
#[path = "kubernetes/equality.rs"]
mod equality;
#[path = "kubernetes/examples.rs"]
mod examples;
#[path = "kubernetes/format.rs"]
mod format;
#[path = "kubernetes/ip.rs"]
mod ip;
#[path = "kubernetes/lists.rs"]
mod lists;
#[path = "kubernetes/quantity.rs"]
mod quantity;
#[path = "kubernetes/regex.rs"]
mod regex;
#[path = "kubernetes/robustness.rs"]
mod robustness;
#[path = "kubernetes/semver.rs"]
mod semver;
#[path = "kubernetes/strings_costs.rs"]
mod strings_costs;
#[path = "kubernetes/support.rs"]
mod support;
#[path = "kubernetes/urls.rs"]
mod urls;

//! Metrics at `/metrics` in the Prometheus text format, with kube-apiserver's names and labels
//! for the ones served: `apiserver_request_total`, `apiserver_request_duration_seconds`,
//! `apiserver_requested_deprecated_apis`, `apiserver_storage_objects`, and for sharded watches
//! (KEP-5866) `apiserver_watch_shards_total` and `apiserver_watch_filtered_events_total`,
//! and for MutatingAdmissionPolicy `apiserver_mutating_admission_policy_check_total` and
//! `apiserver_mutating_admission_policy_check_duration_seconds`.

use prometheus::{
    Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

use crate::crd::Crds;
use crate::resource::{self, Resource};
use crate::storage::{RangeRequest, Storage, keys};

/// The request buckets of kube-apiserver's `apiserver_request_duration_seconds`.
const DURATION_BUCKETS: &[f64] = &[
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
    10.0, 15.0, 20.0, 30.0, 45.0, 60.0,
];

const REQUEST_LABELS: &[&str] = &[
    "verb",
    "dry_run",
    "group",
    "version",
    "resource",
    "subresource",
    "scope",
    "component",
];

/// The metrics of one server.
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    durations: HistogramVec,
    objects: IntGaugeVec,
    watch_shards: IntGaugeVec,
    watch_filtered: IntCounterVec,
    deprecated: GaugeVec,
    mutation_checks: IntCounterVec,
    mutation_durations: HistogramVec,
}

/// The buckets of `apiserver_mutating_admission_policy_check_duration_seconds`
/// (k8s.io/apiserver `policy/mutating/metrics/metrics.go`).
const MUTATION_BUCKETS: &[f64] = &[0.0000005, 0.001, 0.01, 0.1, 1.0];

/// The labels of the mutating admission policy metrics.
const MUTATION_LABELS: &[&str] = &["policy", "policy_binding", "error_type"];

/// What a request was, as kube-apiserver's RequestInfo labels it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RequestInfo {
    /// `GET`, `LIST`, `WATCH`, `POST`, `PUT`, `PATCH`, `DELETE`, `DELETECOLLECTION` for
    /// resources; the HTTP method otherwise.
    pub verb: String,
    /// The API group.
    pub group: String,
    /// The API version.
    pub version: String,
    /// The resource (plural).
    pub resource: String,
    /// `resource` (one object), `namespace` (a namespace's collection), `cluster`.
    pub scope: String,
    /// `All` under dry run.
    pub dry_run: String,
}

/// Labels a request from its method, path and query.
pub fn request_info(crds: &Crds, method: &str, path: &str, query: &str) -> RequestInfo {
    let has = |name: &str, value: &str| {
        query
            .split('&')
            .any(|p| p == format!("{name}={value}") || (value.is_empty() && p == name))
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => ("", "", &[] as &[&str]),
    };
    let (plural, namespaced, name) = match rest {
        [plural] => (*plural, false, false),
        ["namespaces", _, plural] => (*plural, true, false),
        ["namespaces", _, plural, _] => (*plural, true, true),
        [plural, _] => (*plural, false, true),
        _ => ("", false, false),
    };
    let known: Option<&Resource> = crate::served::find(crds, group, version, plural);
    let Some(r) = known else {
        return RequestInfo {
            verb: method.to_owned(),
            ..RequestInfo::default()
        };
    };
    // The route verbs kube-apiserver's metrics report (POST for create, PUT for update).
    let verb = match (method, name) {
        ("GET", true) => "GET",
        ("GET", false) if has("watch", "true") || has("watch", "1") => "WATCH",
        ("GET", false) => "LIST",
        ("DELETE", false) => "DELETECOLLECTION",
        (other, _) => other,
    };
    let scope = if name {
        "resource"
    } else if namespaced {
        "namespace"
    } else {
        "cluster"
    };
    RequestInfo {
        verb: verb.to_owned(),
        group: r.group.to_owned(),
        version: r.version.to_owned(),
        resource: r.plural.to_owned(),
        scope: scope.to_owned(),
        dry_run: if has("dryRun", "All") {
            "All".to_owned()
        } else {
            String::new()
        },
    }
}

impl Metrics {
    /// The metrics, registered.
    pub fn new() -> Self {
        let registry = Registry::new();
        let mut with_code = REQUEST_LABELS.to_vec();
        with_code.push("code");
        let requests = IntCounterVec::new(
            Opts::new(
                "apiserver_request_total",
                "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
            ),
            &with_code,
        )
        .expect("valid metric");
        let durations = HistogramVec::new(
            HistogramOpts::new(
                "apiserver_request_duration_seconds",
                "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
            )
            .buckets(DURATION_BUCKETS.to_vec()),
            REQUEST_LABELS,
        )
        .expect("valid metric");
        let deprecated = GaugeVec::new(
            Opts::new(
                "apiserver_requested_deprecated_apis",
                "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
            ),
            &["group", "version", "resource", "subresource", "removed_release"],
        )
        .expect("valid metric");
        let objects = IntGaugeVec::new(
            Opts::new(
                "apiserver_storage_objects",
                "Number of stored objects at the time of last check split by kind.",
            ),
            &["resource"],
        )
        .expect("valid metric");
        // k8s.io/apiserver pkg/storage/cacher/metrics: WatchShardsTotal, WatchFilteredEventsTotal.
        let watch_shards = IntGaugeVec::new(
            Opts::new(
                "apiserver_watch_shards_total",
                "Number of active sharded watch connections broken by resource type.",
            ),
            &["group", "resource"],
        )
        .expect("valid metric");
        let watch_filtered = IntCounterVec::new(
            Opts::new(
                "apiserver_watch_filtered_events_total",
                "Counter of events filtered out by shard selector during watch dispatch, broken by resource type.",
            ),
            &["group", "resource"],
        )
        .expect("valid metric");
        // k8s.io/apiserver policy/mutating/metrics: one observation per mutation evaluated.
        let mutation_checks = IntCounterVec::new(
            Opts::new(
                "apiserver_mutating_admission_policy_check_total",
                "[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.",
            ),
            MUTATION_LABELS,
        )
        .expect("valid metric");
        let mutation_durations = HistogramVec::new(
            HistogramOpts::new(
                "apiserver_mutating_admission_policy_check_duration_seconds",
                "[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
            )
            .buckets(MUTATION_BUCKETS.to_vec()),
            MUTATION_LABELS,
        )
        .expect("valid metric");
        for metric in [
            Box::new(mutation_checks.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(mutation_durations.clone()),
            Box::new(requests.clone()),
            Box::new(durations.clone()),
            Box::new(deprecated.clone()),
            Box::new(objects.clone()),
            Box::new(watch_shards.clone()),
            Box::new(watch_filtered.clone()),
        ] {
            registry.register(metric).expect("metric names are unique");
        }
        Metrics {
            deprecated,
            registry,
            requests,
            durations,
            objects,
            watch_shards,
            watch_filtered,
            mutation_checks,
            mutation_durations,
        }
    }

    /// One mutation of a MutatingAdmissionPolicy evaluated: `error_type` is `no_error`,
    /// `compile_error`, `invalid_error` or `out_of_budget`, `seconds` the time its
    /// evaluation and patch took.
    pub fn observe_mutation(&self, policy: &str, binding: &str, error_type: &str, seconds: f64) {
        let labels = [policy, binding, error_type];
        self.mutation_checks.with_label_values(&labels).inc();
        self.mutation_durations
            .with_label_values(&labels)
            .observe(seconds);
    }

    /// A sharded watch of `resource` started (`delta` 1) or ended (`delta` -1).
    pub fn sharded_watch(&self, resource: &Resource, delta: i64) {
        self.watch_shards
            .with_label_values(&[resource.group, resource.plural])
            .add(delta);
    }

    /// An object of `resource` left out of a sharded watch by its shard selector.
    pub fn shard_filtered_event(&self, resource: &Resource) {
        self.watch_filtered
            .with_label_values(&[resource.group, resource.plural])
            .inc();
    }

    /// Records one finished request (watches count, but their duration is not a latency).
    pub fn observe(&self, crds: &Crds, info: &RequestInfo, code: u16, seconds: f64) {
        let labels = [
            info.verb.as_str(),
            info.dry_run.as_str(),
            info.group.as_str(),
            info.version.as_str(),
            info.resource.as_str(),
            "",
            info.scope.as_str(),
            "apiserver",
        ];
        let code = code.to_string();
        let mut with_code = labels.to_vec();
        with_code.push(&code);
        self.requests.with_label_values(&with_code).inc();
        if info.verb != "WATCH" {
            self.durations.with_label_values(&labels).observe(seconds);
        }
        // A request to a deprecated (custom resource) version sets its gauge, as upstream.
        if let Some(r) = crate::served::find(crds, &info.group, &info.version, &info.resource)
            && crate::crd::deprecation(crds, r).is_some()
        {
            self.deprecated
                .with_label_values(&[r.group, r.version, r.plural, "", ""])
                .set(1.0);
        }
    }

    /// The text exposition, with the object counts read from `store` now.
    pub fn render(&self, crds: &Crds, store: &dyn Storage) -> String {
        let custom = crds.all().into_iter().filter_map(|c| {
            let v = c
                .versions
                .iter()
                .find(|v| v.storage)
                .or(c.versions.first())?;
            Some(v.resource)
        });
        for r in resource::stored().chain(custom) {
            let prefix = keys::prefix(&crate::served::storage_resource(r), None);
            let request = RangeRequest::prefix(prefix).limit(1);
            if let Ok(range) = store.range(&request) {
                let name = if r.group.is_empty() {
                    r.plural.to_owned()
                } else {
                    format!("{}.{}", r.plural, r.group)
                };
                self.objects
                    .with_label_values(&[name.as_str()])
                    .set(range.count as i64);
            }
        }
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .expect("text encoding never fails");
        String::from_utf8(out).expect("the text format is UTF-8")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::memory::MemoryStorage;

    #[test]
    fn requests_are_labelled_like_kube_apiserver() {
        let info = request_info(
            &Crds::default(),
            "GET",
            "/api/v1/namespaces/default/configmaps",
            "watch=true",
        );
        assert_eq!(
            (info.verb.as_str(), info.scope.as_str()),
            ("WATCH", "namespace")
        );
        let info = request_info(
            &Crds::default(),
            "PATCH",
            "/apis/apps/v1/namespaces/a/deployments/x",
            "dryRun=All",
        );
        assert_eq!(
            (
                info.verb.as_str(),
                info.group.as_str(),
                info.resource.as_str(),
                info.dry_run.as_str()
            ),
            ("PATCH", "apps", "deployments", "All")
        );
        assert_eq!(
            request_info(&Crds::default(), "GET", "/api/v1/namespaces", "").verb,
            "LIST"
        );
        assert_eq!(
            request_info(&Crds::default(), "GET", "/version", "").verb,
            "GET"
        );
        let metrics = Metrics::new();
        metrics.observe(
            &Crds::default(),
            &request_info(&Crds::default(), "GET", "/api/v1/namespaces/x", ""),
            200,
            0.01,
        );
        let text = metrics.render(&Crds::default(), &MemoryStorage::new());
        assert!(text.contains(r#"apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 1"#), "{text}");
        assert!(text.contains(r#"apiserver_storage_objects{resource="deployments.apps"} 0"#));
    }
}

//! The registry of served resources: what discovery lists and what the routes accept.

/// One served resource (e.g. `configmaps` in the core group, version v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// The API group; empty for the core (legacy) group.
    pub group: &'static str,
    /// The version, e.g. `v1`.
    pub version: &'static str,
    /// The plural resource name used in URLs and storage keys, e.g. `configmaps`.
    pub plural: &'static str,
    /// The singular name, e.g. `configmap`.
    pub singular: &'static str,
    /// The kind of one object, e.g. `ConfigMap`.
    pub kind: &'static str,
    /// The kind of a list, e.g. `ConfigMapList`.
    pub list_kind: &'static str,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Short names for kubectl, e.g. `cm`.
    pub short_names: &'static [&'static str],
    /// The verbs served, as discovery lists them.
    pub verbs: &'static [&'static str],
    /// Whether the kind has a `/status` subresource (main-resource writes keep the status).
    pub status: bool,
    /// Whether the kind has a `/scale` subresource (autoscaling/v1 Scale).
    pub scale: bool,
}

impl Resource {
    /// `apiVersion` of objects: `v1` for the core group, else `group/version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The group-qualified resource as upstream prints it in messages: `configmaps`, or
    /// `deployments.apps`.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_owned()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The group-qualified kind as upstream prints it in `Invalid` messages: `ConfigMap`, or
    /// `Deployment.apps`.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.to_owned()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }
}

/// The verbs served for every resource.
const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// v1 Namespace (cluster-scoped).
pub const NAMESPACES: Resource = Resource {
    group: "",
    version: "v1",
    plural: "namespaces",
    singular: "namespace",
    kind: "Namespace",
    list_kind: "NamespaceList",
    namespaced: false,
    short_names: &["ns"],
    verbs: &[
        "create", "delete", "get", "list", "patch", "update", "watch",
    ],
    status: true,
    scale: false,
};

/// v1 ConfigMap.
pub const CONFIGMAPS: Resource = Resource {
    group: "",
    version: "v1",
    plural: "configmaps",
    singular: "configmap",
    kind: "ConfigMap",
    list_kind: "ConfigMapList",
    namespaced: true,
    short_names: &["cm"],
    verbs: VERBS,
    status: false,
    scale: false,
};

/// v1 Secret.
pub const SECRETS: Resource = Resource {
    plural: "secrets",
    singular: "secret",
    kind: "Secret",
    list_kind: "SecretList",
    short_names: &[],
    ..CONFIGMAPS
};

/// v1 Service (no cluster IP allocation).
pub const SERVICES: Resource = Resource {
    plural: "services",
    singular: "service",
    kind: "Service",
    list_kind: "ServiceList",
    short_names: &["svc"],
    status: true,
    ..CONFIGMAPS
};

/// v1 ServiceAccount.
pub const SERVICEACCOUNTS: Resource = Resource {
    plural: "serviceaccounts",
    singular: "serviceaccount",
    kind: "ServiceAccount",
    list_kind: "ServiceAccountList",
    short_names: &["sa"],
    ..CONFIGMAPS
};

/// v1 Event.
pub const EVENTS: Resource = Resource {
    plural: "events",
    singular: "event",
    kind: "Event",
    list_kind: "EventList",
    short_names: &["ev"],
    ..CONFIGMAPS
};

/// v1 Pod (no scheduler and no kubelet: a pod stays `Pending`, as on a server without
/// nodes).
pub const PODS: Resource = Resource {
    plural: "pods",
    singular: "pod",
    kind: "Pod",
    list_kind: "PodList",
    short_names: &["po"],
    status: true,
    ..CONFIGMAPS
};

/// v1 PersistentVolume (cluster-scoped; no volume controller binds it: it stays
/// `Pending`).
pub const PERSISTENTVOLUMES: Resource = Resource {
    plural: "persistentvolumes",
    singular: "persistentvolume",
    kind: "PersistentVolume",
    list_kind: "PersistentVolumeList",
    namespaced: false,
    short_names: &["pv"],
    status: true,
    ..CONFIGMAPS
};

/// v1 PersistentVolumeClaim (no volume controller binds it: it stays `Pending`).
pub const PERSISTENTVOLUMECLAIMS: Resource = Resource {
    plural: "persistentvolumeclaims",
    singular: "persistentvolumeclaim",
    kind: "PersistentVolumeClaim",
    list_kind: "PersistentVolumeClaimList",
    short_names: &["pvc"],
    status: true,
    ..CONFIGMAPS
};

/// apps/v1 Deployment.
pub const DEPLOYMENTS: Resource = Resource {
    group: "apps",
    plural: "deployments",
    singular: "deployment",
    kind: "Deployment",
    list_kind: "DeploymentList",
    short_names: &["deploy"],
    status: true,
    scale: true,
    ..CONFIGMAPS
};

/// apps/v1 DaemonSet (stored and validated; no controller runs it).
pub const DAEMONSETS: Resource = Resource {
    plural: "daemonsets",
    singular: "daemonset",
    kind: "DaemonSet",
    list_kind: "DaemonSetList",
    short_names: &["ds"],
    scale: false,
    ..DEPLOYMENTS
};

/// apps/v1 ReplicaSet (stored and validated; no controller runs it).
pub const REPLICASETS: Resource = Resource {
    plural: "replicasets",
    singular: "replicaset",
    kind: "ReplicaSet",
    list_kind: "ReplicaSetList",
    short_names: &["rs"],
    ..DEPLOYMENTS
};

/// apps/v1 StatefulSet (stored and validated; no controller runs it).
pub const STATEFULSETS: Resource = Resource {
    plural: "statefulsets",
    singular: "statefulset",
    kind: "StatefulSet",
    list_kind: "StatefulSetList",
    short_names: &["sts"],
    ..DEPLOYMENTS
};

/// batch/v1 Job (stored and validated; no controller runs it).
pub const JOBS: Resource = Resource {
    group: "batch",
    plural: "jobs",
    singular: "job",
    kind: "Job",
    list_kind: "JobList",
    short_names: &[],
    status: true,
    ..CONFIGMAPS
};

/// batch/v1 CronJob (stored and validated; no controller starts its jobs).
pub const CRONJOBS: Resource = Resource {
    plural: "cronjobs",
    singular: "cronjob",
    kind: "CronJob",
    list_kind: "CronJobList",
    short_names: &["cj"],
    ..JOBS
};

/// autoscaling/v2 HorizontalPodAutoscaler (the preferred and storage version; autoscaling/v1
/// serves the same objects converted, [`HORIZONTALPODAUTOSCALERS_V1`]). No controller scales
/// anything.
pub const HORIZONTALPODAUTOSCALERS: Resource = Resource {
    group: "autoscaling",
    version: "v2",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    kind: "HorizontalPodAutoscaler",
    list_kind: "HorizontalPodAutoscalerList",
    short_names: &["hpa"],
    status: true,
    ..CONFIGMAPS
};

/// autoscaling/v1 HorizontalPodAutoscaler: the objects of [`HORIZONTALPODAUTOSCALERS`],
/// converted on every read and write ([`crate::conversion`]).
pub const HORIZONTALPODAUTOSCALERS_V1: Resource = Resource {
    version: "v1",
    ..HORIZONTALPODAUTOSCALERS
};

/// events.k8s.io/v1 Event: the objects of the core group's [`EVENTS`] (their storage),
/// converted on every read and write ([`crate::conversion`]).
pub const EVENTS_K8S_IO_EVENTS: Resource = Resource {
    group: "events.k8s.io",
    short_names: &["ev"],
    ..EVENTS
};

/// rbac.authorization.k8s.io/v1 Role (stored and validated; read by the RBAC authorizer,
/// [`crate::rbac`]).
pub const ROLES: Resource = Resource {
    group: "rbac.authorization.k8s.io",
    plural: "roles",
    singular: "role",
    kind: "Role",
    list_kind: "RoleList",
    short_names: &[],
    ..CONFIGMAPS
};

/// rbac.authorization.k8s.io/v1 RoleBinding.
pub const ROLEBINDINGS: Resource = Resource {
    plural: "rolebindings",
    singular: "rolebinding",
    kind: "RoleBinding",
    list_kind: "RoleBindingList",
    ..ROLES
};

/// rbac.authorization.k8s.io/v1 ClusterRole (cluster-scoped).
pub const CLUSTERROLES: Resource = Resource {
    plural: "clusterroles",
    singular: "clusterrole",
    kind: "ClusterRole",
    list_kind: "ClusterRoleList",
    namespaced: false,
    ..ROLES
};

/// rbac.authorization.k8s.io/v1 ClusterRoleBinding (cluster-scoped).
pub const CLUSTERROLEBINDINGS: Resource = Resource {
    plural: "clusterrolebindings",
    singular: "clusterrolebinding",
    kind: "ClusterRoleBinding",
    list_kind: "ClusterRoleBindingList",
    namespaced: false,
    ..ROLES
};

/// coordination.k8s.io/v1 Lease.
pub const LEASES: Resource = Resource {
    group: "coordination.k8s.io",
    plural: "leases",
    singular: "lease",
    kind: "Lease",
    list_kind: "LeaseList",
    short_names: &[],
    ..CONFIGMAPS
};

/// apiextensions.k8s.io/v1 CustomResourceDefinition (cluster-scoped; see the crd module).
pub const CUSTOMRESOURCEDEFINITIONS: Resource = Resource {
    group: "apiextensions.k8s.io",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    kind: "CustomResourceDefinition",
    list_kind: "CustomResourceDefinitionList",
    namespaced: false,
    short_names: &["crd", "crds"],
    status: true,
    ..CONFIGMAPS
};

/// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (cluster-scoped; see the
/// admission module).
pub const VALIDATINGADMISSIONPOLICIES: Resource = Resource {
    group: "admissionregistration.k8s.io",
    plural: "validatingadmissionpolicies",
    singular: "validatingadmissionpolicy",
    kind: "ValidatingAdmissionPolicy",
    list_kind: "ValidatingAdmissionPolicyList",
    namespaced: false,
    short_names: &[],
    status: true,
    ..CONFIGMAPS
};

/// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding (cluster-scoped).
pub const VALIDATINGADMISSIONPOLICYBINDINGS: Resource = Resource {
    plural: "validatingadmissionpolicybindings",
    singular: "validatingadmissionpolicybinding",
    kind: "ValidatingAdmissionPolicyBinding",
    list_kind: "ValidatingAdmissionPolicyBindingList",
    status: false,
    ..VALIDATINGADMISSIONPOLICIES
};

/// admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (cluster-scoped, no status).
pub const MUTATINGADMISSIONPOLICIES: Resource = Resource {
    plural: "mutatingadmissionpolicies",
    singular: "mutatingadmissionpolicy",
    kind: "MutatingAdmissionPolicy",
    list_kind: "MutatingAdmissionPolicyList",
    status: false,
    ..VALIDATINGADMISSIONPOLICIES
};

/// admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding (cluster-scoped).
pub const MUTATINGADMISSIONPOLICYBINDINGS: Resource = Resource {
    plural: "mutatingadmissionpolicybindings",
    singular: "mutatingadmissionpolicybinding",
    kind: "MutatingAdmissionPolicyBinding",
    list_kind: "MutatingAdmissionPolicyBindingList",
    status: false,
    ..VALIDATINGADMISSIONPOLICIES
};

/// Every built-in resource, core group first, then the named groups in discovery order
/// (a group's versions in preference order). A resource served in a second version is
/// listed once per version; [`stored`] lists each storage once.
pub const SERVED: &[Resource] = &[
    NAMESPACES,
    CONFIGMAPS,
    SECRETS,
    SERVICES,
    SERVICEACCOUNTS,
    EVENTS,
    PODS,
    PERSISTENTVOLUMES,
    PERSISTENTVOLUMECLAIMS,
    DAEMONSETS,
    DEPLOYMENTS,
    REPLICASETS,
    STATEFULSETS,
    EVENTS_K8S_IO_EVENTS,
    HORIZONTALPODAUTOSCALERS,
    HORIZONTALPODAUTOSCALERS_V1,
    CRONJOBS,
    JOBS,
    CLUSTERROLEBINDINGS,
    CLUSTERROLES,
    ROLEBINDINGS,
    ROLES,
    VALIDATINGADMISSIONPOLICIES,
    VALIDATINGADMISSIONPOLICYBINDINGS,
    MUTATINGADMISSIONPOLICIES,
    MUTATINGADMISSIONPOLICYBINDINGS,
    CUSTOMRESOURCEDEFINITIONS,
    LEASES,
];

/// A review: created and answered at once, never stored (verbs `create` only).
const REVIEW: Resource = Resource {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "",
    singular: "",
    kind: "",
    list_kind: "",
    namespaced: false,
    short_names: &[],
    verbs: &["create"],
    status: false,
    scale: false,
};

/// The reviews served ([`crate::routes`]' access handlers), in discovery order: listed by
/// discovery with the stored resources, never stored themselves.
pub const REVIEWS: &[Resource] = &[
    Resource {
        group: "authentication.k8s.io",
        plural: "selfsubjectreviews",
        singular: "selfsubjectreview",
        kind: "SelfSubjectReview",
        ..REVIEW
    },
    Resource {
        group: "authentication.k8s.io",
        plural: "tokenreviews",
        singular: "tokenreview",
        kind: "TokenReview",
        ..REVIEW
    },
    Resource {
        plural: "localsubjectaccessreviews",
        singular: "localsubjectaccessreview",
        kind: "LocalSubjectAccessReview",
        namespaced: true,
        ..REVIEW
    },
    Resource {
        plural: "selfsubjectaccessreviews",
        singular: "selfsubjectaccessreview",
        kind: "SelfSubjectAccessReview",
        ..REVIEW
    },
    Resource {
        plural: "selfsubjectrulesreviews",
        singular: "selfsubjectrulesreview",
        kind: "SelfSubjectRulesReview",
        ..REVIEW
    },
    Resource {
        plural: "subjectaccessreviews",
        singular: "subjectaccessreview",
        kind: "SubjectAccessReview",
        ..REVIEW
    },
];

/// Every resource discovery lists, in upstream's group order: [`SERVED`] with the
/// [`REVIEWS`] after `events.k8s.io` (kube-apiserver lists `authentication.k8s.io` and
/// `authorization.k8s.io` between it and `autoscaling`).
pub fn discovered() -> impl Iterator<Item = &'static Resource> {
    let split = SERVED
        .iter()
        .rposition(|r| r.group == "events.k8s.io")
        .map_or(SERVED.len(), |i| i + 1);
    SERVED[..split]
        .iter()
        .chain(REVIEWS)
        .chain(&SERVED[split..])
}

/// The resource whose storage holds `resource`'s objects, when `resource` is a second
/// version of it (served converted); `None` for every resource stored as it is served.
pub fn storage_of(resource: &Resource) -> Option<&'static Resource> {
    match (resource.group, resource.version, resource.plural) {
        ("autoscaling", "v1", "horizontalpodautoscalers") => Some(&HORIZONTALPODAUTOSCALERS),
        ("events.k8s.io", "v1", "events") => Some(&EVENTS),
        _ => None,
    }
}

/// Every built-in resource whose objects are stored as they are served: [`SERVED`] without
/// the second versions of a stored resource ([`storage_of`]).
pub fn stored() -> impl Iterator<Item = &'static Resource> {
    SERVED.iter().filter(|r| storage_of(r).is_none())
}

/// The built-in resource with this group, version and plural name (the served module
/// finds custom resources too).
pub fn built_in(group: &str, version: &str, plural: &str) -> Option<&'static Resource> {
    SERVED
        .iter()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
}

/// The named groups served (reviews included), each with its versions (the preferred
/// first), in discovery order.
pub fn groups() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in discovered().filter(|r| !r.group.is_empty()) {
        match groups.iter_mut().find(|(g, _)| *g == r.group) {
            Some((_, versions)) if !versions.contains(&r.version) => versions.push(r.version),
            Some(_) => {}
            None => groups.push((r.group, vec![r.version])),
        }
    }
    groups
}

/// Whether the built-in `group` serves `version`.
pub fn serves_group_version(group: &str, version: &str) -> bool {
    groups()
        .iter()
        .any(|(g, vs)| *g == group && vs.contains(&version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_for_messages() {
        assert_eq!(CONFIGMAPS.api_version(), "v1");
        assert_eq!(CONFIGMAPS.group_resource(), "configmaps");
        assert_eq!(CONFIGMAPS.group_kind(), "ConfigMap");
        let apps = Resource {
            group: "apps",
            plural: "deployments",
            kind: "Deployment",
            ..CONFIGMAPS
        };
        assert_eq!(apps.api_version(), "apps/v1");
        assert_eq!(apps.group_resource(), "deployments.apps");
        assert_eq!(apps.group_kind(), "Deployment.apps");
        assert_eq!(built_in("", "v1", "configmaps"), Some(&CONFIGMAPS));
        assert_eq!(built_in("", "v1", "pods"), Some(&PODS));
        assert_eq!(built_in("", "v1", "nodes"), None);
        assert_eq!(
            built_in("autoscaling", "v2", "horizontalpodautoscalers"),
            Some(&HORIZONTALPODAUTOSCALERS)
        );
        assert_eq!(
            built_in("autoscaling", "v1", "horizontalpodautoscalers"),
            Some(&HORIZONTALPODAUTOSCALERS_V1)
        );
        assert_eq!(
            built_in("events.k8s.io", "v1", "events"),
            Some(&EVENTS_K8S_IO_EVENTS)
        );
        let autoscaling = groups().into_iter().find(|(g, _)| *g == "autoscaling");
        assert_eq!(autoscaling, Some(("autoscaling", vec!["v2", "v1"])));
        assert!(serves_group_version("events.k8s.io", "v1"));
        assert!(!serves_group_version("events.k8s.io", "v1beta1"));
        // The reviews' groups follow events.k8s.io, as kube-apiserver lists them.
        let names: Vec<&str> = groups().into_iter().map(|(g, _)| g).collect();
        let at = |g: &str| names.iter().position(|n| *n == g).unwrap();
        assert_eq!(at("authentication.k8s.io"), at("events.k8s.io") + 1);
        assert_eq!(at("authorization.k8s.io"), at("authentication.k8s.io") + 1);
        assert_eq!(at("autoscaling"), at("authorization.k8s.io") + 1);
        assert!(serves_group_version("authorization.k8s.io", "v1"));
        assert!(built_in("authorization.k8s.io", "v1", "subjectaccessreviews").is_none());
        let stored: Vec<_> = stored().filter(|r| r.kind == "Event").collect();
        assert_eq!(stored, [&EVENTS]);
        let scope = |group, plural| built_in(group, "v1", plural).map(|r| r.namespaced);
        assert_eq!(
            scope("rbac.authorization.k8s.io", "clusterroles"),
            Some(false)
        );
        assert_eq!(scope("rbac.authorization.k8s.io", "roles"), Some(true));
        assert_eq!(scope("", "persistentvolumes"), Some(false));
    }
}

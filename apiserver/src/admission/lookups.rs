//! What a decision looks up in the server: the request's Namespace and params objects from
//! storage, and authorization checks (`authorizer` in expressions) answered by the server's
//! own authorizer ([`crate::authz::Authz`]).

use std::sync::Arc;

use kcel_stdlib::kubernetes::admission::api::ParamKind;
use kcel_stdlib::kubernetes::admission::{NamespaceLookup, ParamLookup};
use kcel_stdlib::kubernetes::authz::{Authorizer, AuthzRequest, Decision};
use serde_json::Value;

use crate::access_request::{Attributes, User};
use crate::authz::Authz;
use crate::resource::{NAMESPACES, Resource, SERVED};
use crate::storage::{RangeRequest, Storage, keys};

/// Reads namespaces and params from the store (on a blocking thread).
pub struct ServerLookups {
    /// The store read.
    pub store: Arc<dyn Storage>,
    /// The server's custom resources (params may be custom objects).
    pub crds: Arc<crate::crd::Crds>,
}

impl NamespaceLookup for ServerLookups {
    fn namespace(&self, name: &str) -> Option<Value> {
        let key = keys::cluster(NAMESPACES.plural, name);
        let (kv, _) = self.store.get(&key, None).ok()?;
        serde_json::from_slice(&kv?.value).ok()
    }
}

/// The served resource of a params kind (`apiVersion` and `kind`): a built-in one or a
/// custom resource.
fn param_resource(crds: &crate::crd::Crds, kind: &ParamKind) -> Option<&'static Resource> {
    let (group, version) = match kind.api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", kind.api_version.as_str()),
    };
    let matches = |r: &Resource| r.group == group && r.version == version && r.kind == kind.kind;
    if let Some(r) = SERVED.iter().find(|r| matches(r)) {
        return Some(r);
    }
    crds.all()
        .iter()
        .flat_map(|crd| crd.versions.iter().map(|v| v.resource))
        .find(|r| matches(r))
}

impl ParamLookup for ServerLookups {
    fn params(&self, kind: &ParamKind, namespace: Option<&str>) -> Vec<Value> {
        let Some(resource) = param_resource(&self.crds, kind) else {
            return Vec::new();
        };
        let storage = crate::served::storage_resource(resource);
        let namespace = namespace.filter(|_| resource.namespaced);
        let prefix = keys::prefix(&storage, namespace);
        let Ok(range) = self.store.range(&RangeRequest::prefix(prefix)) else {
            return Vec::new();
        };
        // A second version of a stored kind (`autoscaling/v1` HorizontalPodAutoscalers) is
        // stored in its storage version: params are read in the paramKind's version, as
        // upstream's informer lists them, so each object is converted.
        let stored_as = crate::resource::storage_of(resource).map(Resource::api_version);
        range
            .kvs
            .iter()
            .filter_map(|kv| serde_json::from_slice::<crate::object::Object>(&kv.value).ok())
            .filter_map(|mut o| {
                // Stored objects may omit their type; params are matched by it.
                o.insert("kind".into(), kind.kind.clone().into());
                let o = match &stored_as {
                    Some(from) => {
                        o.insert("apiVersion".into(), from.clone().into());
                        // Every stored object of these kinds converts to the served
                        // version (the conversions from storage cannot fail).
                        crate::conversion::convert(o, from, &kind.api_version).ok()?
                    }
                    None => {
                        o.insert("apiVersion".into(), kind.api_version.clone().into());
                        o
                    }
                };
                Some(Value::Object(o))
            })
            .collect()
    }
}

/// The server's authorizer as expressions' `authorizer` sees it.
#[derive(Debug)]
pub struct ServerAuthorizer {
    authz: Arc<Authz>,
}

impl ServerAuthorizer {
    /// Answers checks with `authz`.
    pub fn new(authz: Arc<Authz>) -> ServerAuthorizer {
        ServerAuthorizer { authz }
    }
}

impl Authorizer for ServerAuthorizer {
    fn authorize(&self, request: &AuthzRequest) -> Decision {
        let user = User {
            name: request.user.name.clone(),
            uid: String::new(),
            groups: request.user.groups.clone(),
            extra: Default::default(),
        };
        let attrs = Attributes {
            verb: request.verb.clone(),
            resource_request: request.resource_request,
            path: request.path.clone(),
            group: request.api_group.clone(),
            version: request.api_version.clone(),
            resource: request.resource.clone(),
            subresource: request.subresource.clone(),
            namespace: request.namespace.clone(),
            name: request.name.clone(),
        };
        // The rule file may deny; RBAC allows or has no opinion.
        self.authz.decision(&user, &attrs)
    }
}

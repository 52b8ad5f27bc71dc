//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy enforced by the server: the
//! policies and bindings stored as `admissionregistration.k8s.io/v1` objects are validated
//! when written ([`policy_objects`]), compiled once per generation into a [`PolicySet`](kcel_stdlib::kubernetes::admission::PolicySet) (and a
//! mutating set) swapped whole when they change ([`policies`]). A write passes admission in
//! kube-apiserver's two steps, around the kind's own validation which the routes make
//! between them: every create and update is first mutated by the mutating policies
//! ([`mutate`], [`mutation`]), and every write (create, update, patch, apply, delete,
//! subresources) that the kind's validation let through is then decided by the validating
//! ones ([`validate`]) with the authenticated user, the server's namespaces and params
//! ([`lookups`]) and its authorizer. The audit log ([`audit`]) records each request with the
//! admission's audit annotations.
//!
//! The request's user and its audit annotations travel in a task-local [`context`] set by
//! the authentication middleware, so the write path needs two calls per write and no new
//! parameters; writes made by the server itself (namespace finalization, CRD cleanup) run
//! outside any request and are not judged, as upstream's loopback writes of controllers
//! are not judged by policies bound to users.

pub mod audit;
pub mod context;
pub mod lookups;
pub mod mutation;
pub mod policies;
pub mod policy_objects;

use std::sync::Arc;

use kcel_stdlib::kubernetes::admission::Decision;
use kcel_stdlib::kubernetes::admission::api::{
    AdmissionRequest, GroupVersionKind, GroupVersionResource, UserInfo,
};
use kcel_stdlib::kubernetes::authz::Authorizer;

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::Resource;
use crate::state::AppState;
use crate::status::{StatusCause, StatusDetails};

pub use policies::Admission;

/// Serves an authenticated and authorized request (`next`) with its [`context`]: adds
/// admission's warnings to the response and writes the audit event, if there is an audit
/// log. `user` is the user the request acts as (the impersonated one, when `impersonator`
/// asked); `allowed_by` the authorizer's reason.
pub async fn serve(
    state: &AppState,
    user: crate::access_request::User,
    impersonator: Option<crate::impersonation::Impersonator>,
    attrs: crate::access_request::Attributes,
    allowed_by: String,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let record = state
        .admission
        .audit
        .as_ref()
        .map(|_| audit::RequestRecord::of(&request));
    let context = Arc::new(context::RequestContext::new(user, impersonator));
    let mut response = context::scope(context.clone(), next.run(request)).await;
    crate::respond::add_warnings(&mut response, &context.warnings());
    if let (Some(log), Some(record)) = (&state.admission.audit, record) {
        let mut annotations = context.annotations();
        let deprecated = attrs.resource_request
            && crate::served::find(&state.crds, &attrs.group, &attrs.version, &attrs.resource)
                .and_then(|r| crate::crd::deprecation(&state.crds, r))
                .is_some();
        if deprecated {
            annotations.insert("k8s.io/deprecated".to_owned(), "true".to_owned());
        }
        let mut attrs = attrs;
        if attrs.name.is_empty() {
            attrs.name = context.object_name();
        }
        let outcome = audit::Outcome {
            code: response.status().as_u16(),
            status: response.extensions().get::<crate::status::Status>(),
            authorization: Some(("allow", &allowed_by)),
        };
        log.write(&audit::event(
            &record,
            &context.user,
            context.impersonator.as_ref(),
            &attrs,
            &outcome,
            &annotations,
        ));
    }
    response
}

/// A request refused before it is served — its credentials (401, `user` none), its
/// impersonation or its authorization (403, with the authorizer's `forbid` and reason) —
/// answered with `error`, and audited as upstream audits it.
pub fn refuse(
    state: &AppState,
    request: &axum::extract::Request,
    user: Option<&crate::access_request::User>,
    attrs: &crate::access_request::Attributes,
    error: crate::error::ApiError,
    forbidden_by: Option<&str>,
) -> axum::response::Response {
    if let Some(log) = &state.admission.audit {
        let record = audit::RequestRecord::of(request);
        let status = error.to_status();
        log.write(&match user {
            None => audit::failed_authentication(&record, attrs, &status),
            Some(user) => audit::event(
                &record,
                user,
                None,
                attrs,
                &audit::Outcome {
                    code: error.code,
                    status: Some(&status),
                    authorization: forbidden_by.map(|reason| ("forbid", reason)),
                },
                &std::collections::BTreeMap::new(),
            ),
        });
    }
    axum::response::IntoResponse::into_response(error)
}

/// The admission operation of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// A create (apply creating included).
    Create,
    /// An update, patch or apply, of the object or a subresource.
    Update,
    /// A delete (also when finalizers only mark the object).
    Delete,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// One write to decide.
pub struct Write<'a> {
    /// The resource written.
    pub resource: &'static Resource,
    /// `status`, `scale`, or none.
    pub subresource: Option<&'a str>,
    /// What the write does.
    pub operation: Operation,
    /// The object name.
    pub name: &'a str,
    /// The new object (none for a delete).
    pub object: Option<&'a mut Object>,
    /// The stored object (none for a create).
    pub old: Option<&'a Object>,
    /// Whether nothing is stored (`dryRun=All`).
    pub dry_run: bool,
}

/// The mutating admission of a create or update (upstream's MutatingAdmissionPolicy plugin,
/// which runs before the kind's validation and the validating plugins): the write's object
/// becomes the mutated one (each mutation's result defaulted, [`mutation::ServerSchemas`]).
/// True when a policy changed the object. The policy objects themselves, deletes and the
/// server's own writes (outside any request) are not mutated.
pub async fn mutate(state: &AppState, write: &mut Write<'_>) -> Result<bool, ApiError> {
    let context = context::current();
    if let Some(context) = &context {
        context.set_object_name(write.name);
    }
    if policy_objects::is_policy_resource(write.resource) {
        return Ok(false);
    }
    let Some(context) = context else {
        return Ok(false); // the server's own writes
    };
    let set = state.admission.mutating();
    if set.is_empty() || write.object.is_none() || write.operation == Operation::Delete {
        return Ok(false);
    }
    let request = admission_request(&state.crds, write, &context.user);
    if !set.may_match(&request) {
        return Ok(false);
    }
    let namespace = request.namespace.clone();
    let store = state.store.clone();
    let crds = state.crds.clone();
    let resource = write.resource;
    let custom = state.crds.custom(resource);
    let authorizer: Arc<dyn Authorizer> =
        Arc::new(lookups::ServerAuthorizer::new(state.authz.clone()));
    let mutated = tokio::task::spawn_blocking(move || {
        let lookups = lookups::ServerLookups { store, crds };
        set.mutate(
            &request,
            &kcel_stdlib::kubernetes::admission::Lookups {
                namespaces: &lookups,
                params: &lookups,
                authorizer: Some(&authorizer),
            },
            &mutation::ServerSchemas { resource, custom },
        )
    })
    .await
    .map_err(ApiError::internal)?;
    for check in &mutated.checks {
        state.metrics.observe_mutation(
            &check.policy,
            &check.binding,
            check.error_type.as_str(),
            check.elapsed.as_secs_f64(),
        );
    }
    if mutated.panicked {
        return Err(ApiError::panicked());
    }
    if let Some(status) = mutated.status {
        return Err(mutation::denied(
            write.resource,
            write.name,
            &namespace,
            status,
        ));
    }
    Ok(match (mutated.object, write.object.as_deref_mut()) {
        // The Scale was mutated: its replicas are what the write changes.
        (Some(scale), Some(object)) if write.subresource == Some("scale") => {
            crate::scale::set_replicas(&state.crds, write.resource, object, &scale);
            true
        }
        (Some(serde_json::Value::Object(mutated)), Some(object)) if mutated != *object => {
            *object = mutated;
            true
        }
        _ => false,
    })
}

/// The validating admission of a write, after the kind's validation (kube-apiserver's
/// registry calls the `createValidation`/`updateValidation` admission callbacks once
/// `rest.BeforeCreate`/`BeforeUpdate` validated the object: k8s.io/apiserver
/// `pkg/registry/generic/registry/store.go`, `create` and `Update`; deletes go through
/// `deleteValidation`): for the policy objects themselves, their validation (422) and
/// status; for everything else, the bound validating policies. Denials are errors with
/// upstream's status; warnings and audit annotations go to the request's [`context`].
pub async fn validate(state: &AppState, write: Write<'_>) -> Result<(), ApiError> {
    let context = context::current();
    if let Some(context) = &context {
        context.set_object_name(write.name);
    }
    if policy_objects::is_policy_resource(write.resource) {
        if let Some(object) = write.object {
            policy_objects::validate(
                &state.crds,
                write.resource,
                write.subresource,
                object,
                write.old,
            )?;
        }
        return Ok(());
    }
    let Some(context) = context else {
        return Ok(()); // the server's own writes
    };
    let set = state.admission.current();
    if set.is_empty() {
        return Ok(());
    }
    let request = admission_request(&state.crds, &write, &context.user);
    let namespace = request.namespace.clone();
    if !set.may_match(&request) {
        return Ok(());
    }
    let store = state.store.clone();
    let crds = state.crds.clone();
    let authorizer: Arc<dyn Authorizer> =
        Arc::new(lookups::ServerAuthorizer::new(state.authz.clone()));
    let decision = tokio::task::spawn_blocking(move || {
        let lookups = lookups::ServerLookups { store, crds };
        set.admit(
            &request,
            &kcel_stdlib::kubernetes::admission::Lookups {
                namespaces: &lookups,
                params: &lookups,
                authorizer: Some(&authorizer),
            },
        )
    })
    .await
    .map_err(ApiError::internal)?;
    apply(&context, &write, &namespace, decision)
}

/// Records warnings and annotations; turns a denial into the API error.
fn apply(
    context: &context::RequestContext,
    write: &Write<'_>,
    namespace: &str,
    decision: Decision,
) -> Result<(), ApiError> {
    context.add_warnings(decision.warnings);
    context.add_annotations(decision.audit_annotations);
    let Some(status) = decision.status else {
        return Ok(());
    };
    let reason = match status.reason.as_str() {
        "Forbidden" => "Forbidden",
        "Unauthorized" => "Unauthorized",
        "RequestEntityTooLarge" => "RequestEntityTooLarge",
        "NotFound" => "NotFound",
        _ => "Invalid",
    };
    // admission.NewForbidden's details: the resource as kind, and (policy denials) the
    // denial without its prefix as the one cause, so kubectl prints `The deployments "x" is
    // invalid: : ValidatingAdmissionPolicy ...`.
    let causes = match status.cause {
        Some(cause) if status.code != 404 => vec![StatusCause {
            reason: "",
            message: cause,
            field: String::new(),
        }],
        _ => Vec::new(),
    };
    let details = if status.code == 404 {
        StatusDetails {
            name: namespace.to_owned(),
            kind: "namespaces".to_owned(),
            ..StatusDetails::default()
        }
    } else {
        StatusDetails {
            name: write.name.to_owned(),
            group: write.resource.group.to_owned(),
            kind: write.resource.plural.to_owned(),
            causes,
            ..StatusDetails::default()
        }
    };
    Err(ApiError {
        code: status.code,
        reason,
        message: status.message,
        details: Some(Box::new(details)),
    })
}

fn gvr(resource: &Resource) -> GroupVersionResource {
    GroupVersionResource {
        group: resource.group.to_owned(),
        version: resource.version.to_owned(),
        resource: resource.plural.to_owned(),
    }
}

/// An object of a write as admission sees it: for the scale subresource the
/// autoscaling/v1 `Scale` (kube-apiserver admits scale writes with the `Scale` as `object`
/// and `oldObject`: kubernetes `pkg/registry/apps/deployment/storage/storage.go`,
/// `ScaleREST.Update` wraps the validation in `toScaleUpdateValidation`, which converts
/// both objects with `scaleFromDeployment`), else the object itself.
fn judged(crds: &crate::crd::Crds, write: &Write<'_>, object: &Object) -> serde_json::Value {
    match write.subresource {
        Some("scale") => crate::scale::scale_of(crds, write.resource, object),
        _ => serde_json::Value::Object(object.clone()),
    }
}

/// The admission request of a write (kind and resource as served; the scale subresource's
/// kind is autoscaling/v1 Scale).
fn admission_request(
    crds: &crate::crd::Crds,
    write: &Write<'_>,
    user: &crate::access_request::User,
) -> AdmissionRequest {
    let resource = write.resource;
    let kind = match write.subresource {
        Some("scale") => GroupVersionKind {
            group: "autoscaling".into(),
            version: "v1".into(),
            kind: "Scale".into(),
        },
        _ => GroupVersionKind {
            group: resource.group.into(),
            version: resource.version.into(),
            kind: resource.kind.into(),
        },
    };
    let namespace = write
        .object
        .as_deref()
        .or(write.old)
        .map(|o| crate::object::meta_str(o, "namespace").to_owned())
        .unwrap_or_default();
    AdmissionRequest {
        uid: crate::random::uuid_v4().unwrap_or_default(),
        kind,
        resource: gvr(resource),
        sub_resource: write.subresource.unwrap_or("").to_owned(),
        name: write.name.to_owned(),
        namespace,
        operation: write.operation.as_str().to_owned(),
        user_info: UserInfo {
            username: user.name.clone(),
            uid: user.uid.clone(),
            groups: user.groups.clone(),
            extra: user.extra.clone(),
        },
        dry_run: Some(write.dry_run),
        object: write.object.as_deref().map(|o| judged(crds, write, o)),
        old_object: write.old.map(|o| judged(crds, write, o)),
        ..AdmissionRequest::default()
    }
}

//! A create's or an update's object through admission and validation in kube-apiserver's
//! order, one place for every write route (create, update, patch, apply, subresources).
//!
//! Upstream's handlers decode the body (defaulting it), run the field manager, then
//! mutating admission (k8s.io/apiserver `pkg/endpoints/handlers/create.go`,
//! `createHandler`: `mutatingAdmission.Admit` before `r.Create`; `update.go`,
//! `UpdateResource`, and `patch.go`, `patchResource`: the admission transformer of
//! `rest.DefaultUpdatedObjectInfo`, applied inside the registry's `GuaranteedUpdate`); the
//! registry then prepares and validates the object and only then calls validating admission
//! (`pkg/registry/generic/registry/store.go`: `create` fills the system metadata and
//! generates the name, calls `rest.BeforeCreate` — the strategy's `PrepareForCreate`, then
//! `Validate` and `ValidateObjectMetaAccessor` — then `createValidation`; `Update` calls
//! `rest.BeforeUpdate` — the stored generation, `PrepareForUpdate`, the carried-over
//! metadata, `ValidateUpdate` — then `updateValidation`).
//!
//! So here: [`crate::admission::mutate`], then the route's preparation (its
//! `PrepareForCreate`/`PrepareForUpdate` and metadata), then the kind's validation
//! ([`validate`]: a custom resource's CRD, a CRD's own rules, the library's hand-written
//! validation of the built-in kinds and the metadata rules of the others), then
//! [`crate::admission::validate`]; a write of an RBAC role or binding is checked for
//! privilege escalation ([`crate::rbac::policy_writes`]) before the kind's validation. A
//! mutation that makes an object invalid is refused with the kind's 422, and an invalid
//! object a mutation mends is admitted, as upstream.

use crate::admission::{self, Operation};
use crate::duplicate_owners::{self, Stage};
use crate::error::{ApiError, FieldError};
use crate::object::Object;
use crate::resource::Resource;
use crate::state::AppState;
use kcel_stdlib::kubernetes::named_formats::messages;

/// The write an object is admitted for.
pub(crate) struct Admitted<'a> {
    /// The server.
    pub state: &'a AppState,
    /// The resource written.
    pub resource: &'static Resource,
    /// `status`, `scale`, `finalize`, or none.
    pub subresource: Option<&'a str>,
    /// Create or update.
    pub operation: Operation,
    /// The stored object (none for a create).
    pub old: Option<&'a Object>,
    /// Whether nothing is stored (`dryRun=All`).
    pub dry_run: bool,
}

/// Mutates `object` (named `name` as the request names it: empty for a create by
/// `generateName`), prepares it with `prepare` (given whether a mutation changed it; it
/// answers the object's name), validates it as its kind and decides it by the validating
/// policies. The kind's warnings (and a merge of owner references a mutation made
/// duplicate) are added to `warnings`.
pub(crate) async fn admit(
    write: Admitted<'_>,
    name: &str,
    object: &mut Object,
    prepare: impl FnOnce(&mut Object, bool) -> Result<String, ApiError>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    let Admitted {
        state,
        resource,
        subresource,
        operation,
        old,
        dry_run,
    } = write;
    let mutated = admission::mutate(
        state,
        &mut admission::Write {
            resource,
            subresource,
            operation,
            name,
            object: Some(&mut *object),
            old,
            dry_run,
        },
    )
    .await?;
    // Owner references a mutation made duplicate are merged, with the warning of that
    // stage (`dedupOwnerReferencesAndAddWarning(obj, ctx, true)` after `Admit`).
    if mutated && let Some(w) = duplicate_owners::dedup(object, Stage::AfterMutatingAdmission) {
        warnings.push(w);
    }
    let requested = name;
    let name = prepare(object, mutated)?;
    // The strategy works on the Go object, which is what is validated, stored and answered:
    // what it set (a reset status, ...) is encoded as its Go types encode it.
    crate::defaults::go_round_trip(resource, object);
    // The RBAC registry's escalation checks (`pkg/registry/rbac/*/policybased`), before the
    // kind's validation as upstream's storage makes them before its `BeforeCreate`. Writes
    // outside a request (the server's own controllers) are not checked.
    if subresource.is_none()
        && let Some(request) = admission::context::current()
    {
        crate::rbac::policy_writes::check(
            &state.authz,
            &request.user,
            resource,
            crate::object::meta_str(object, "namespace"),
            requested,
            object,
            old,
        )?;
    }
    validate(state, resource, subresource, object, old, warnings)?;
    admission::validate(
        state,
        admission::Write {
            resource,
            subresource,
            operation,
            name: &name,
            object: Some(object),
            old,
            dry_run,
        },
    )
    .await
}

/// The kind's validation of a create (`old` is `None`) or an update of `object` (its
/// strategy's `Validate`/`ValidateUpdate` with the metadata's): a custom resource by its
/// CRD (pruned and defaulted again), a CRD by its own rules (with its status), a built-in
/// object by the library ([`crate::kind_rules::check`]; the name rule of the kinds it does
/// not know on create, as the metadata's validation checks it). Subresource writes are
/// validated by their CRD only (a status write's own rules are not the main resource's).
pub(crate) fn validate(
    state: &AppState,
    resource: &Resource,
    subresource: Option<&str>,
    object: &mut Object,
    old: Option<&Object>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    if subresource.is_none()
        && old.is_none()
        && state.crds.custom(resource).is_none()
        && !crate::kind_rules::validates_metadata(resource)
    {
        validate_name(resource, crate::object::meta_str(object, "name"))?;
    }
    crate::crd::validate(&state.crds, resource, object, old, warnings)?;
    if subresource.is_none() {
        crate::kind_rules::check(resource, object, old)?;
    }
    Ok(())
}

/// Validates an object's name as upstream does: a DNS-1123 label for namespaces, a DNS-1035
/// label for services, a DNS-1123 subdomain for the other served kinds.
fn validate_name(resource: &Resource, name: &str) -> Result<(), ApiError> {
    if name.is_empty() {
        return Err(ApiError::invalid(
            resource,
            name,
            vec![FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )],
        ));
    }
    let problems = match resource.kind {
        "Namespace" => messages("dns1123Label", name),
        "Service" => messages("dns1035Label", name),
        _ => messages("dns1123Subdomain", name),
    };
    if problems.is_empty() {
        return Ok(());
    }
    let causes = problems
        .iter()
        .map(|p| FieldError::invalid_string("metadata.name", name, p))
        .collect();
    Err(ApiError::invalid(resource, name, causes))
}

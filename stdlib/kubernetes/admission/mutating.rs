//! MutatingAdmissionPolicy: policies whose expressions build patches (apply configurations
//! or JSON patches) that change the object being written, applied in order before the
//! validating policies judge it (kube-apiserver's `policy/mutating` plugin: its dispatcher,
//! patchers, error texts and reinvocation).
//!
//! A mutating policy shares paramKind, matchConstraints, matchConditions, variables and
//! failurePolicy with validating policies: those parts are compiled, matched and evaluated
//! by the same code ([`CompiledPolicy`], [`PolicySet`]); only the mutations are its own.
//!
//! ```
//! use std::sync::Arc;
//! use kcel_stdlib::kubernetes::admission::{AdmissionRequest, Lookups};
//! use kcel_stdlib::kubernetes::admission::mutating::{
//!     CompiledMutatingPolicy, LibrarySchemas, MutatingPolicySet,
//! };
//!
//! let policy = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "add-team"},
//!     "spec": {
//!         "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
//!             "operations": ["CREATE"], "resources": ["configmaps"]}]},
//!         "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
//!             "expression": "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"}}],
//!         "reinvocationPolicy": "Never"
//!     }
//! })).unwrap();
//! let binding = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "add-team-binding"}, "spec": {"policyName": "add-team"}
//! })).unwrap();
//! let set = MutatingPolicySet::new([Arc::new(CompiledMutatingPolicy::new(policy))], [binding]);
//! let request: AdmissionRequest = serde_json::from_value(serde_json::json!({
//!     "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
//!     "resource": {"group": "", "version": "v1", "resource": "configmaps"},
//!     "name": "c", "operation": "CREATE",
//!     "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
//! })).unwrap();
//! let mutated = set.mutate(&request, &Lookups::none(), &LibrarySchemas::builtin());
//! assert_eq!(mutated.object.unwrap()["metadata"]["labels"]["team"], "a");
//! ```

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value as Json;

use super::activation::{Converted, PolicyActivation, Subject};
use super::api::{
    AdmissionRequest, FailurePolicy, GroupVersionKind, MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBinding,
};
use super::compile::{Compiled, CompiledPolicy, PatchKind, compile_mutation};
use super::evaluate::{BINDING_COST_BUDGET, ExpressionCost, evaluate_one, match_conditions_only};
use super::json_patch::{self, PatchError};
use super::matching::{self, EquivalentResources, ResourceTable};
use super::mutation_errors::{DecodeError, MutationError};
use super::patch_types::{JsonPatchValue, check_type_names, patch_value, to_json};
use super::policy_set::{Lookups, PolicySet};
use super::{Input, Status, params, write_validation};
use crate::kubernetes::crd::{CrdValidator, FieldError};
use crate::kubernetes::merge;

/// A mutating policy with every expression compiled once.
#[derive(Debug)]
pub struct CompiledMutatingPolicy {
    /// The policy as given.
    pub(crate) policy: MutatingAdmissionPolicy,
    /// The parts shared with validating policies, compiled as theirs (no validations).
    pub(crate) shared: Arc<CompiledPolicy>,
    /// Each mutation's kind and expression, in order (`None`: no expression of a known
    /// patch type, which the API server rejects when the policy is written).
    pub(crate) mutations: Vec<Option<(PatchKind, Compiled)>>,
    /// The field errors (the API server would reject the policy).
    pub(crate) errors: Vec<FieldError>,
}

impl CompiledMutatingPolicy {
    /// The policy as given.
    pub fn policy(&self) -> &MutatingAdmissionPolicy {
        &self.policy
    }

    /// The field errors for which the API server would reject the policy (none: it may
    /// be written).
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// Compiles every expression of `policy` once, and validates the policy as the API
    /// server does when it is written (`ValidateMutatingAdmissionPolicy`).
    pub fn new(policy: MutatingAdmissionPolicy) -> CompiledMutatingPolicy {
        CompiledMutatingPolicy::with_memory_limit(policy, Some(kcel::DEFAULT_MEMORY_LIMIT))
    }

    /// [`CompiledMutatingPolicy::new`] with the memory budget `limit` for every evaluation
    /// of the policy's expressions (variables, match conditions, mutations) instead of
    /// [`kcel::DEFAULT_MEMORY_LIMIT`] (`None`: no budget), as
    /// [`CompiledPolicy::with_memory_limit`] for validating policies.
    pub fn with_memory_limit(
        policy: MutatingAdmissionPolicy,
        limit: Option<u64>,
    ) -> CompiledMutatingPolicy {
        let shared_policy = policy.as_validating();
        let (shared, compile_errors) =
            CompiledPolicy::compile_parts(shared_policy.clone(), None, false, None, limit);
        let mut mutations = Vec::new();
        let mut mutation_errors = Vec::new();
        for (i, m) in policy.spec.mutations.iter().enumerate() {
            let (kind, patch, name) = match m.patch_type.as_str() {
                "ApplyConfiguration" => (
                    PatchKind::ApplyConfiguration,
                    &m.apply_configuration,
                    "applyConfiguration",
                ),
                "JSONPatch" => (PatchKind::JsonPatch, &m.json_patch, "jsonPatch"),
                _ => {
                    mutations.push(None);
                    mutation_errors.push(None);
                    continue;
                }
            };
            let Some(patch) = patch else {
                mutations.push(None);
                mutation_errors.push(None);
                continue;
            };
            let field = format!("spec.mutations[{i}].{name}.expression");
            let (compiled, error) =
                compile_mutation(&shared, field, &patch.expression, kind, limit);
            mutations.push(Some((kind, compiled)));
            mutation_errors.push(error);
        }
        let errors = write_validation::mutating_policy_errors(
            &policy,
            &shared_policy,
            &compile_errors,
            &mutation_errors,
        );
        CompiledMutatingPolicy {
            policy,
            shared: Arc::new(shared),
            mutations,
            errors,
        }
    }

    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.policy.metadata.name
    }

    /// Whether the policy is invoked again after later mutations changed the object.
    fn if_needed(&self) -> bool {
        self.policy.spec.reinvocation_policy == "IfNeeded"
    }
}

/// The field errors of a binding, as the API server validates it when written.
pub fn validate_binding(binding: &MutatingAdmissionPolicyBinding) -> Vec<FieldError> {
    write_validation::mutating_binding_errors(binding)
}

/// What mutating policies need of the schemas of the kinds they mutate (kube-apiserver's
/// type converter and `ObjectInterfaces`): merging an apply configuration into an object as
/// structured-merge-diff's apply does with the object's schema (`ApplyStructuredMergeDiff`:
/// list types and keys, atomic maps), and defaulting an object after each mutation (the
/// dispatcher's `o.GetObjectDefaulter().Default`). [`LibrarySchemas`] implements both with
/// the library's vendored schemas and given CRDs; an API server implements them with the
/// kinds and CRDs it serves.
pub trait ObjectSchemas: Send + Sync {
    /// `patch` (an apply configuration of `kind`, with its `apiVersion` and `kind`) merged
    /// into `object`; the error's text is upstream's (`invalid ApplyConfiguration: may not
    /// mutate atomic arrays, maps or structs: .spec.x`, ...), which the caller prefixes
    /// with `error applying patch: `. Implementations call [`merge::apply_configuration`]
    /// with the kind's schema node.
    fn merge(
        &self,
        kind: &GroupVersionKind,
        object: &Json,
        patch: &Json,
    ) -> Result<Json, merge::ApplyError>;

    /// Applies the defaults of `kind` to `object` (a mutation's result): a built-in kind's
    /// field defaults ([`crate::kubernetes::defaults::apply`]) and its Go types' encoding
    /// ([`crate::kubernetes::builtin::go_round_trip`]: upstream converts the result to its
    /// typed form), a custom resource's schema `default`s (without pruning).
    fn apply_defaults(&self, kind: &GroupVersionKind, object: &mut Json);
}

/// The schemas the library knows: a built-in kind's vendored OpenAPI schema
/// ([`merge::apply_schema::OpenApi::of_kind`]: keyed lists merge by key, sets by value, atomic
/// lists and maps may not be set) and its field defaults
/// ([`crate::kubernetes::defaults::apply`], then the Go types' encoding); a custom resource of one of the given CRDs
/// its version's structural schema (list types, map keys, `default`s); other kinds
/// (custom resources of CRDs not given) untyped: maps merge by key, lists are atomic, no
/// defaults.
#[derive(Clone, Default)]
pub struct LibrarySchemas {
    crds: Vec<Arc<CrdValidator>>,
}

impl std::fmt::Debug for LibrarySchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<String> = (self.crds.iter())
            .map(|c| format!("{}.{}", c.kind(), c.group()))
            .collect();
        f.debug_struct("LibrarySchemas")
            .field("crds", &kinds)
            .finish()
    }
}

impl LibrarySchemas {
    /// The built-in kinds' schemas only.
    pub fn builtin() -> LibrarySchemas {
        LibrarySchemas::default()
    }

    /// The built-in kinds' schemas and those of the custom resources of `crds`.
    pub fn with_crds(crds: impl IntoIterator<Item = Arc<CrdValidator>>) -> LibrarySchemas {
        LibrarySchemas {
            crds: crds.into_iter().collect(),
        }
    }

    /// The CRD of custom resources of `kind` (its group and kind), if one was given.
    pub fn crd(&self, kind: &GroupVersionKind) -> Option<&CrdValidator> {
        (self.crds.iter())
            .find(|c| c.group() == kind.group && c.kind() == kind.kind)
            .map(|c| &**c)
    }

    /// The schema of a custom resource of `kind`, if one of the CRDs serves it.
    fn custom(&self, kind: &GroupVersionKind) -> Option<&crate::kubernetes::crd::Validator> {
        self.crd(kind)?.version(&kind.version)?.ok()
    }
}

impl ObjectSchemas for LibrarySchemas {
    fn merge(
        &self,
        kind: &GroupVersionKind,
        object: &Json,
        patch: &Json,
    ) -> Result<Json, merge::ApplyError> {
        if let Some(custom) = self.custom(kind) {
            let node = Some(merge::apply_schema::KindSchema::CustomRoot(custom.schema()));
            return merge::apply_configuration(object, patch, &node);
        }
        let node = merge::apply_schema::OpenApi::of_kind(&api_version(kind), &kind.kind);
        merge::apply_configuration(object, patch, &node)
    }

    fn apply_defaults(&self, kind: &GroupVersionKind, object: &mut Json) {
        if let Some(custom) = self.custom(kind) {
            custom.apply_defaults(object);
        } else if let Json::Object(map) = object {
            let api_version = api_version(kind);
            crate::kubernetes::defaults::apply(&api_version, &kind.kind, map);
            // The typed object encoded again, as the next policy reads it.
            if let Some(builtin) = crate::kubernetes::builtin::kind(&api_version, &kind.kind) {
                builtin.go_round_trip(map);
            }
        }
    }
}

/// The `apiVersion` of a kind: `v1`, `apps/v1`.
fn api_version(kind: &GroupVersionKind) -> String {
    if kind.group.is_empty() {
        kind.version.clone()
    } else {
        format!("{}/{}", kind.group, kind.version)
    }
}

/// The outcome of the mutating policies on a request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mutated {
    /// The object after the mutations, if a mutation was applied (it may equal the
    /// request's object).
    pub object: Option<Json>,
    /// The request's failure, if a mutation failed under failurePolicy Fail (or the
    /// request's namespace was not found).
    pub status: Option<Status>,
    /// Whether a JSON patch made the patch library panic: upstream nothing in the
    /// admission chain recovers it (`policy/mutating/dispatcher.go`, `dispatchOne`), so
    /// the request fails as a panicking request does, whatever the failure policy; no
    /// status, no object, and the mutation is not counted in the metrics.
    pub panicked: bool,
    /// The cost of each evaluated expression, as `(policy, binding, cost)`.
    pub costs: Vec<(String, String, ExpressionCost)>,
    /// Which policy invocations ran, in order, as `policy/binding` (the second pass's after
    /// the first's).
    pub invocations: Vec<String>,
    /// Each mutation evaluated, in order, as kube-apiserver's metrics count them.
    pub checks: Vec<MutationCheck>,
}

/// One mutation evaluated (its expression and patch), as kube-apiserver observes it in
/// `apiserver_mutating_admission_policy_check_total` and
/// `apiserver_mutating_admission_policy_check_duration_seconds`
/// (`policy/mutating/dispatcher.go`, `dispatchInvocations`).
#[derive(Clone, Debug, PartialEq)]
pub struct MutationCheck {
    /// The policy's name.
    pub policy: String,
    /// The binding's name.
    pub binding: String,
    /// How the mutation ended.
    pub error_type: MutationErrorType,
    /// How long the evaluation and the patch took.
    pub elapsed: std::time::Duration,
}

/// How a mutation ended, as the metrics label it (`error_type`); upstream's `ErrorType`
/// classifies the error by its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MutationErrorType {
    /// The patch applied (`no_error`).
    NoError,
    /// The expression did not compile (`compile_error`).
    CompileError,
    /// The evaluation or the patch failed (`invalid_error`).
    InvalidError,
    /// The cost budget ran out (`out_of_budget`).
    OutOfBudget,
}

impl MutationErrorType {
    /// The type of a mutation's error (`policy/mutating/errors.go`, `ErrorType`, which
    /// classifies the error by its text: `compilation...`, `...running out of cost
    /// budget...`, anything else).
    fn of(error: &MutationError) -> MutationErrorType {
        if error.is_compile_error() {
            MutationErrorType::CompileError
        } else if error.is_out_of_budget() {
            MutationErrorType::OutOfBudget
        } else {
            MutationErrorType::InvalidError
        }
    }

    /// The metrics label: `no_error`, `compile_error`, `invalid_error`, `out_of_budget`.
    pub fn as_str(self) -> &'static str {
        match self {
            MutationErrorType::NoError => "no_error",
            MutationErrorType::CompileError => "compile_error",
            MutationErrorType::InvalidError => "invalid_error",
            MutationErrorType::OutOfBudget => "out_of_budget",
        }
    }
}

/// Mutating policies compiled once with their bindings, indexed by resource as a
/// [`PolicySet`] is (that index is built over the policies' shared parts). Build a new set
/// when policies or bindings change; a set is immutable and can be shared between threads.
pub struct MutatingPolicySet {
    shared: PolicySet,
    policies: Vec<Arc<CompiledMutatingPolicy>>,
}

impl std::fmt::Debug for MutatingPolicySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutatingPolicySet")
            .field("policies", &self.policies.len())
            .finish()
    }
}

impl Default for MutatingPolicySet {
    fn default() -> MutatingPolicySet {
        MutatingPolicySet::new(Vec::new(), Vec::new())
    }
}

/// One invocation: a policy, a binding and a params object.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    policy: String,
    binding: String,
    param: Option<(String, String)>,
}

/// A failed invocation (upstream's `PolicyError`).
struct PolicyError {
    policy: String,
    binding: Option<String>,
    message: String,
    /// The Status reason: `Invalid` for mutation errors, empty (Forbidden) for matching
    /// and params errors.
    reason: &'static str,
    ignored: bool,
}

fn meta_str<'v>(object: &'v Json, field: &str) -> &'v str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Json::as_str)
        .unwrap_or("")
}

impl MutatingPolicySet {
    /// A set of `policies` and `bindings` (each applies to the policy it names), with the
    /// built-in table of equivalent resources. Invocations are made in order of policy
    /// name, then binding name, whatever the order given (see
    /// [`MutatingPolicySet::with_resources`]).
    pub fn new(
        policies: impl IntoIterator<Item = Arc<CompiledMutatingPolicy>>,
        bindings: impl IntoIterator<Item = MutatingAdmissionPolicyBinding>,
    ) -> MutatingPolicySet {
        MutatingPolicySet::with_resources(policies, bindings, Arc::new(ResourceTable::builtin()))
    }

    /// [`MutatingPolicySet::new`] with the embedder's table of equivalent resources.
    ///
    /// The order of invocation: kube-apiserver builds its policy hooks by ranging over a
    /// Go map from policy name to bindings (`policy/generic/policy_source.go`,
    /// `calculatePolicyData`), so its order is unspecified and changes between rebuilds.
    /// Here it is fixed: policies by name, each policy's bindings by name (then params in
    /// the order the lookups give them), so that a suite run by `kcel test` and the same
    /// policies stored in the server mutate alike, reinvocations included.
    pub fn with_resources(
        policies: impl IntoIterator<Item = Arc<CompiledMutatingPolicy>>,
        bindings: impl IntoIterator<Item = MutatingAdmissionPolicyBinding>,
        resources: Arc<dyn EquivalentResources>,
    ) -> MutatingPolicySet {
        let mut policies: Vec<Arc<CompiledMutatingPolicy>> = policies.into_iter().collect();
        policies.sort_by(|a, b| a.name().cmp(b.name()));
        let mut bindings: Vec<ValidatingAdmissionPolicyBinding> =
            bindings.into_iter().map(|b| b.as_validating()).collect();
        bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let shared = PolicySet::with_resources(
            policies.iter().map(|p| p.shared.clone()),
            bindings,
            resources,
        );
        MutatingPolicySet { shared, policies }
    }

    /// The policies of the set, in invocation order (by name).
    pub fn policies(&self) -> impl Iterator<Item = &Arc<CompiledMutatingPolicy>> {
        self.policies.iter()
    }

    /// Whether no policy has a binding.
    pub fn is_empty(&self) -> bool {
        self.shared.is_empty()
    }

    /// Whether some policy of the set may match `request`.
    pub fn may_match(&self, request: &AdmissionRequest) -> bool {
        self.shared.may_match(request)
    }

    /// Mutates the request's object as kube-apiserver's MutatingAdmissionPolicy plugin:
    /// each matching policy, binding and params object in order, each mutation applied to
    /// the object the previous left and the result defaulted by `schemas`
    /// ([`ObjectSchemas::apply_defaults`]), then (when a mutation applied) the invocations of
    /// policies with `reinvocationPolicy: IfNeeded` once more. Errors follow each policy's
    /// failurePolicy; the first that counts fails the request (403, `policy '<p>' with
    /// binding '<b>' denied request: <error>`).
    pub fn mutate(
        &self,
        request: &AdmissionRequest,
        lookups: &Lookups<'_>,
        schemas: &dyn ObjectSchemas,
    ) -> Mutated {
        // The plugin handles creates, updates and connects only: a delete has no object
        // to mutate (`policy/mutating/plugin.go`, `NewPlugin`).
        let Some(object) = request
            .object
            .as_ref()
            .filter(|_| request.operation != "DELETE")
        else {
            return Mutated::default();
        };
        let Some(prepared) = self.shared.prepare(request, lookups) else {
            return Mutated::default();
        };
        let input = Input {
            request,
            namespace: prepared.namespace.as_ref(),
            params: &prepared.params,
            authorizer: lookups.authorizer.cloned(),
        };
        let mut run = Pass {
            set: self,
            input: &input,
            schemas,
            object: object.clone(),
            applied: false,
            previously_invoked: BTreeSet::new(),
            reinvoke: BTreeSet::new(),
            errors: Vec::new(),
            aborted: None,
            panicked: false,
            costs: Vec::new(),
            invocations: Vec::new(),
            checks: Vec::new(),
        };
        run.pass(&prepared.candidates, false);
        let settled = run.stopped() || run.failure().is_some();
        if !settled && run.applied && run.finish_pass() {
            run.applied = false;
            run.pass(&prepared.candidates, true);
        }
        let status = match run.panicked {
            true => None,
            false => run.aborted.take().or_else(|| run.failure()),
        };
        let applied = status.is_none() && !run.panicked && !run.invocations.is_empty();
        Mutated {
            object: applied.then_some(run.object),
            status,
            panicked: run.panicked,
            costs: run.costs,
            invocations: run.invocations,
            checks: run.checks,
        }
    }
}

/// The state of one request's mutation.
struct Pass<'a, 'i> {
    set: &'a MutatingPolicySet,
    input: &'a Input<'i>,
    schemas: &'a dyn ObjectSchemas,
    /// The object as mutated so far.
    object: Json,
    /// Whether a patch was applied in this pass (upstream's `Dirty`).
    applied: bool,
    /// `IfNeeded` invocations made since the last change.
    previously_invoked: BTreeSet<Key>,
    /// The invocations to make in the second pass.
    reinvoke: BTreeSet<Key>,
    errors: Vec<PolicyError>,
    /// An error that fails the request as is (the request's namespace was not found).
    aborted: Option<Status>,
    /// A JSON patch panicked ([`Mutated::panicked`]).
    panicked: bool,
    costs: Vec<(String, String, ExpressionCost)>,
    invocations: Vec<String>,
    checks: Vec<MutationCheck>,
}

impl Pass<'_, '_> {
    /// Whether the request ends here (an error that fails it as is, or a panic).
    fn stopped(&self) -> bool {
        self.aborted.is_some() || self.panicked
    }

    /// `RequireReinvokingPreviouslyInvokedPlugins`.
    fn require_reinvoking(&mut self) {
        if !self.previously_invoked.is_empty() {
            self.reinvoke.append(&mut self.previously_invoked);
        }
    }

    /// The end of a pass in which a patch applied: every `IfNeeded` invocation made is to
    /// be made again; whether there is one.
    fn finish_pass(&mut self) -> bool {
        self.require_reinvoking();
        !self.reinvoke.is_empty()
    }

    /// The first error that counts under its policy's failurePolicy, as the request's
    /// status (`admission.NewForbidden` with the error's message and reason).
    fn failure(&self) -> Option<Status> {
        let e = self.errors.iter().find(|e| !e.ignored)?;
        let message = match &e.binding {
            Some(b) => format!(
                "policy '{}' with binding '{b}' denied request: {}",
                e.policy, e.message
            ),
            None => format!(
                "policy {} denied request: {}",
                crate::kubernetes::crd::field_error::go_quote(&e.policy),
                e.message
            ),
        };
        Some(Status {
            code: 403,
            reason: if e.reason.is_empty() {
                "Forbidden".into()
            } else {
                e.reason.into()
            },
            message,
            cause: None,
        })
    }

    fn error(
        &mut self,
        policy: &CompiledMutatingPolicy,
        binding: Option<&str>,
        message: String,
        reason: &'static str,
    ) {
        let ignored = policy.policy.spec.failure_policy == Some(FailurePolicy::Ignore);
        let message = match (binding, reason) {
            (Some(_), "") => format!("failed to configure binding: {message}"),
            (None, "") => format!("failed to configure policy: {message}"),
            _ => message,
        };
        self.errors.push(PolicyError {
            policy: policy.name().to_string(),
            binding: binding.map(str::to_string),
            message,
            reason,
            ignored,
        });
    }

    /// One pass over the candidate policies; `second`: only the invocations to reinvoke.
    fn pass(&mut self, candidates: &[usize], second: bool) {
        let request = self.input.request;
        let resources = self.set.shared.resources();
        let converted = Converted::default();
        for &i in candidates {
            let (shared, bindings) = self.set.shared.at(i);
            let policy = self.set.policies[i].clone();
            let Some(constraints) = &shared.policy.spec.match_constraints else {
                continue;
            };
            let matched =
                match matching::matches(constraints, request, self.input.namespace, resources) {
                    Ok(Some(m)) => m,
                    Ok(None) => continue,
                    Err(e) => {
                        if !second {
                            self.error(&policy, None, e.to_string(), "");
                        }
                        continue;
                    }
                };
            for binding in bindings {
                let binding_name = binding.metadata.name.as_str();
                if let Some(resources_rule) = &binding.spec.match_resources {
                    match matching::matches(
                        resources_rule,
                        request,
                        self.input.namespace,
                        resources,
                    ) {
                        Ok(Some(_)) => {}
                        Ok(None) => continue,
                        Err(e) => {
                            if !second {
                                self.error(&policy, Some(binding_name), e.to_string(), "");
                            }
                            continue;
                        }
                    }
                }
                let params = match params::collect(&shared.policy.spec, binding, self.input) {
                    Ok(p) => p,
                    Err(e) => {
                        if !second {
                            self.error(&policy, Some(binding_name), e.to_string(), "");
                        }
                        continue;
                    }
                };
                let namespace = match self.input.namespace_object() {
                    Ok(namespace) => namespace,
                    Err(status) => {
                        self.aborted = Some(status);
                        return;
                    }
                };
                for param in params {
                    let key = Key {
                        policy: policy.name().to_string(),
                        binding: binding_name.to_string(),
                        param: param.map(|p| {
                            (
                                meta_str(p, "namespace").to_string(),
                                meta_str(p, "name").to_string(),
                            )
                        }),
                    };
                    if second && !self.reinvoke.contains(&key) {
                        continue;
                    }
                    self.invoke(
                        &policy, binding, &matched, namespace, param, &converted, key,
                    );
                    if self.stopped() {
                        return;
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn invoke(
        &mut self,
        policy: &CompiledMutatingPolicy,
        binding: &ValidatingAdmissionPolicyBinding,
        matched: &matching::Matched,
        namespace: Option<&Json>,
        param: Option<&Json>,
        converted: &Converted,
        key: Key,
    ) {
        let request = self.input.request;
        let binding_name = binding.metadata.name.as_str();
        let names = || (policy.name().to_string(), binding_name.to_string());
        // The objects as the kind the policy matched (upstream's `VersionedAttributes`): a
        // request matched through an equivalent resource is mutated in that kind and its
        // result converted back.
        // The request's own old object is borrowed, so that its CEL value converted once
        // for the request (`converted`) serves this evaluation too.
        let matched_kind = &matched.kind;
        let resources = self.set.shared.resources();
        let as_matched = matched_kind != &request.kind;
        let objects = if as_matched {
            let convert = |o: &Json| resources.convert(o, matched_kind);
            convert(&self.object).and_then(|object| {
                let old = request.old_object.as_ref().map(convert).transpose()?;
                Ok((object, old.map(Cow::Owned)))
            })
        } else {
            Ok((
                self.object.clone(),
                request.old_object.as_ref().map(Cow::Borrowed),
            ))
        };
        let (mut object, old_object) = match objects {
            Ok(objects) => objects,
            Err(e) => {
                let error = super::ConfigurationError::Conversion(e);
                self.error(policy, Some(binding_name), error.to_string(), "");
                return;
            }
        };
        let activation = |object: &Json| {
            let subject = Subject {
                request,
                matched,
                object: Some(object),
                old_object: old_object.as_deref(),
                namespace,
                params: param,
                authorizer: self.input.authorizer.as_ref(),
                converted,
            };
            Arc::new(PolicyActivation::new(&subject))
        };
        if !policy.shared.match_conditions.is_empty() {
            let (result, costs) = match_conditions_only(&policy.shared, activation(&object));
            for cost in costs {
                let (p, b) = names();
                self.costs.push((p, b, cost));
            }
            match result {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    let error = MutationError::Evaluation(e);
                    self.error(policy, Some(binding_name), error.to_string(), "Invalid");
                    return;
                }
            }
        }
        self.invocations
            .push(format!("{}/{binding_name}", policy.name()));
        // What the mutations start from, to tell whether they changed it: the request's
        // object itself unless it was converted.
        let converted_before = as_matched.then(|| object.clone());
        for mutation in &policy.mutations {
            let Some((kind, compiled)) = mutation else {
                let error = MutationError::MissingEvaluator {
                    expected: policy.mutations.len(),
                    policy: policy.name().to_owned(),
                };
                self.error(policy, Some(binding_name), error.to_string(), "Invalid");
                continue;
            };
            // No clock in the browser (wasm32 has no `Instant`): durations are zero there.
            let started = (!cfg!(target_arch = "wasm32")).then(std::time::Instant::now);
            let result = match &compiled.program {
                Err(e) => Err(MutationError::Compile(e.clone())),
                Ok(_) => {
                    let (result, costs) = evaluate_one(
                        &policy.shared,
                        activation(&object),
                        compiled,
                        BINDING_COST_BUDGET,
                    );
                    for cost in costs {
                        let (p, b) = names();
                        self.costs.push((p, b, cost));
                    }
                    result.map_err(MutationError::Evaluation)
                }
            };
            let patched = result.and_then(|value| match kind {
                PatchKind::ApplyConfiguration => {
                    self.apply_configuration(&value, &object, matched_kind)
                }
                PatchKind::JsonPatch => json_patch_of(&value, &object),
            });
            if matches!(patched, Err(MutationError::JsonPatchPanic)) {
                self.panicked = true;
                return;
            }
            // The JSON patcher decodes its result strictly; a failure is an internal error,
            // which the dispatcher returns as is, whatever the failure policy.
            let internal = match (kind, &patched) {
                (PatchKind::JsonPatch, Ok(patched)) => {
                    strict_decode(matched_kind, &object, patched)
                        .err()
                        .map(MutationError::Decode)
                }
                _ => None,
            };
            let error_type = match (&patched, &internal) {
                (Ok(_), None) => MutationErrorType::NoError,
                (Err(e), _) => MutationErrorType::of(e),
                (_, Some(e)) => MutationErrorType::of(e),
            };
            let (p, b) = names();
            self.checks.push(MutationCheck {
                policy: p,
                binding: b,
                error_type,
                elapsed: started.map(|s| s.elapsed()).unwrap_or_default(),
            });
            if let Some(detail) = internal {
                self.aborted = Some(Status::internal_error(detail.to_string()));
                return;
            }
            match patched {
                Ok(mut patched) => {
                    // The dispatcher defaults the object after each mutation
                    // (`dispatchOne`), so later mutations and policies see the defaults.
                    self.schemas.apply_defaults(matched_kind, &mut patched);
                    object = patched;
                    self.applied = true;
                }
                Err(e) => self.error(policy, Some(binding_name), e.to_string(), "Invalid"),
            }
        }
        let changed = match &converted_before {
            Some(before) => object != *before,
            None => object != self.object,
        };
        if changed {
            // Back to the request's kind (upstream converts the versioned object back into
            // the request's once it is dirty).
            if as_matched {
                match resources.convert(&object, &request.kind) {
                    Ok(back) => object = back,
                    Err(e) => {
                        self.aborted = Some(Status::internal_error(e.to_string()));
                        return;
                    }
                }
            }
            self.object = object;
            self.require_reinvoking();
        }
        if policy.if_needed() {
            self.previously_invoked.insert(key);
        }
    }

    /// An apply configuration's value merged into `object`, of `kind`.
    fn apply_configuration(
        &self,
        value: &kcel::Value,
        object: &Json,
        kind: &GroupVersionKind,
    ) -> Result<Json, MutationError> {
        check_type_names(value).map_err(MutationError::TypeNames)?;
        let mut patch = to_json(value).map_err(MutationError::ApplyConfigurationValue)?;
        if let Some(map) = patch.as_object_mut() {
            for field in ["apiVersion", "kind"] {
                if let Some(v) = object.get(field) {
                    map.insert(field.into(), v.clone());
                }
            }
        }
        self.schemas
            .merge(kind, object, &patch)
            .map_err(MutationError::Apply)
    }
}

/// The JSON patcher's decoding of the patched object (kube-apiserver's
/// `policy/mutating/patch/json_patch.go`: the typed object encoded, patched, and decoded
/// strictly into the kind's Go type): a list is no object of any kind; for a built-in
/// kind, the decoder's type error (`json: cannot unmarshal string into Go struct field
/// DeploymentSpec.spec.replicas of type int32`) or the fields the kind does not have
/// (`strict decoding error: unknown field "spec.foo"`). Only what the patch brought
/// counts: upstream patches the typed object, which has neither. Custom resources decode
/// as unstructured objects: nothing else to refuse.
fn strict_decode(kind: &GroupVersionKind, before: &Json, after: &Json) -> Result<(), DecodeError> {
    if after.is_array() {
        return Err(DecodeError::List);
    }
    let Some(kind) = crate::kubernetes::builtin::kind(&api_version(kind), &kind.kind) else {
        return Ok(());
    };
    let schema = kind.schema();
    if let Some(error) = schema.type_error(after, kind.kind())
        && schema.type_error(before, kind.kind()).is_none()
    {
        return Err(DecodeError::Type(error));
    }
    let known: BTreeSet<String> = schema.unknown_fields(before).into_iter().collect();
    let unknown: Vec<String> = (schema.unknown_fields(after).into_iter())
        .filter(|f| !known.contains(f))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(DecodeError::UnknownFields(unknown))
    }
}

/// A JSON patch expression's value applied to `object` (a failed `test` leaves it as is).
fn json_patch_of(value: &kcel::Value, object: &Json) -> Result<Json, MutationError> {
    let kcel::Value::List(items) = value else {
        return Err(MutationError::NotAList);
    };
    let mut operations = Vec::new();
    for item in items.iter() {
        let patch = match item {
            kcel::Value::Opaque(o) => o.as_any().downcast_ref::<JsonPatchValue>(),
            _ => None,
        };
        let Some(patch) = patch else {
            return Err(MutationError::NotJsonPatches);
        };
        let value = match &patch.value {
            None => None,
            Some(v) => {
                check_type_names(v).map_err(MutationError::TypeNames)?;
                Some(patch_value(v).map_err(MutationError::PatchValue)?)
            }
        };
        operations.push(json_patch::Operation {
            op: patch.op.clone(),
            path: patch.path.clone(),
            from: patch.from.clone(),
            value,
        });
    }
    match json_patch::apply(object, &operations) {
        Ok(patched) => Ok(patched),
        Err(PatchError::TestFailed(_)) => Ok(object.clone()),
        Err(PatchError::Failed(e)) => Err(MutationError::JsonPatch(e)),
        Err(PatchError::Panic) => Err(MutationError::JsonPatchPanic),
    }
}

#[cfg(test)]
mod tests;

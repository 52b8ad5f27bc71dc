//! The variables of one evaluation: `object`, `oldObject`, `request`, `params`,
//! `namespaceObject`, `authorizer`, and `variables`, whose fields are computed lazily.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::kubernetes::authz::{self, Authorizer, AuthzRequest};
use kcel::Opaque;
use kcel::{Activation, EvalError, Value};

use super::api::AdmissionRequest;
use super::compile::{Compiled, VARIABLES_TYPE};
use super::matching::Matched;

/// The `request` variable: the AdmissionRequest without the objects, with
/// `requestKind`/`requestResource`/`requestSubResource` and `dryRun` defaulted.
pub fn request_value(request: &AdmissionRequest) -> Value {
    let mut r = without_objects(request);
    r.request_kind.get_or_insert_with(|| request.kind.clone());
    r.request_resource
        .get_or_insert_with(|| request.resource.clone());
    if r.request_sub_resource.is_none() && !request.sub_resource.is_empty() {
        r.request_sub_resource = Some(request.sub_resource.clone());
    }
    r.dry_run.get_or_insert(false);
    serde_json::to_value(&r).map_or(Value::Null, Value::from)
}

/// A copy of the request without its objects (which `request` does not show), so that
/// building `request` for each policy does not copy the objects.
fn without_objects(request: &AdmissionRequest) -> AdmissionRequest {
    AdmissionRequest {
        uid: request.uid.clone(),
        kind: request.kind.clone(),
        resource: request.resource.clone(),
        sub_resource: request.sub_resource.clone(),
        request_kind: request.request_kind.clone(),
        request_resource: request.request_resource.clone(),
        request_sub_resource: request.request_sub_resource.clone(),
        name: request.name.clone(),
        namespace: request.namespace.clone(),
        operation: request.operation.clone(),
        user_info: request.user_info.clone(),
        dry_run: request.dry_run,
        options: request.options.clone(),
        object: None,
        old_object: None,
    }
}

/// The phases of one evaluation (Kubernetes evaluates each as a separate filter, with its
/// own activation): they see different variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `namespaceObject` is null; `request.resource` is the request's own resource.
    MatchConditions,
    Validations,
    /// No `authorizer`.
    Messages,
    /// No `authorizer`; `namespaceObject` is the namespace as stored, not trimmed.
    AuditAnnotations,
}

/// The namespace as `namespaceObject` shows it to validations and messages (Kubernetes'
/// `CreateNamespaceObject`): spec, status and only these metadata fields.
fn trimmed_namespace(namespace: &serde_json::Value) -> serde_json::Value {
    const KEPT: [&str; 12] = [
        "name",
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "finalizers",
    ];
    let mut out = serde_json::Map::new();
    for field in ["spec", "status"] {
        if let Some(v) = namespace.get(field) {
            out.insert(field.into(), v.clone());
        }
    }
    if let Some(meta) = namespace.get("metadata").and_then(|m| m.as_object()) {
        let kept = meta
            .iter()
            .filter(|(k, _)| KEPT.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.insert("metadata".into(), serde_json::Value::Object(kept));
    }
    serde_json::Value::Object(out)
}

/// What one evaluation is about.
pub struct Subject<'a> {
    /// The request as made (its resource is the one authorizer checks name).
    pub request: &'a AdmissionRequest,
    /// The resource and kind the policy matched the request as.
    pub matched: &'a Matched,
    /// The object and old object, converted to the matched kind.
    pub object: Option<&'a serde_json::Value>,
    pub old_object: Option<&'a serde_json::Value>,
    pub namespace: Option<&'a serde_json::Value>,
    pub params: Option<&'a serde_json::Value>,
    pub authorizer: Option<&'a Arc<dyn Authorizer>>,
    /// The request's objects and namespace converted once for every evaluation of the
    /// request.
    pub converted: &'a Converted,
}

/// The CEL values of a request's objects and namespace, converted on first use and shared
/// by every policy, binding and params object the request is evaluated with (an object
/// converted to another kind for one policy is converted for that evaluation only).
#[derive(Default)]
pub struct Converted {
    object: OnceLock<Value>,
    old_object: OnceLock<Value>,
    namespace: OnceLock<Value>,
    trimmed_namespace: OnceLock<Value>,
}

/// `value` as CEL, from `cell` when it is the request's own `original`.
fn converted(
    cell: &OnceLock<Value>,
    value: Option<&serde_json::Value>,
    original: Option<&serde_json::Value>,
) -> Value {
    match (value, original) {
        (Some(v), Some(o)) if std::ptr::eq(v, o) => cell.get_or_init(|| Value::from(v)).clone(),
        (v, _) => v.map_or(Value::Null, Value::from),
    }
}

/// The base variables, shared by all expressions of one evaluation.
pub struct PolicyActivation {
    values: HashMap<&'static str, Value>,
    /// `request` for match conditions.
    match_request: Value,
    /// `namespaceObject` for audit annotations.
    namespace: Value,
}

impl PolicyActivation {
    /// Builds the variables of one evaluation.
    pub fn new(subject: &Subject<'_>) -> PolicyActivation {
        let request = subject.request;
        let json = |v: Option<&serde_json::Value>| v.map_or(Value::Null, Value::from);
        let cache = subject.converted;
        let mut values = HashMap::new();
        let object = converted(&cache.object, subject.object, request.object.as_ref());
        values.insert("object", object);
        let old = request.old_object.as_ref();
        let old_object = converted(&cache.old_object, subject.old_object, old);
        values.insert("oldObject", old_object);
        values.insert("params", json(subject.params));
        let trimmed = match subject.namespace {
            Some(namespace) => cache
                .trimmed_namespace
                .get_or_init(|| Value::from(&trimmed_namespace(namespace)))
                .clone(),
            None => Value::Null,
        };
        values.insert("namespaceObject", trimmed);
        // `request`: kind as matched; resource as matched, except for match conditions.
        let mut as_matched = without_objects(request);
        as_matched
            .request_kind
            .get_or_insert_with(|| request.kind.clone());
        as_matched
            .request_resource
            .get_or_insert_with(|| request.resource.clone());
        as_matched.kind = subject.matched.kind.clone();
        let match_request = request_value(&as_matched);
        as_matched.resource = subject.matched.resource.clone();
        values.insert("request", request_value(&as_matched));
        if let Some(a) = subject.authorizer {
            let user = authz::UserInfo {
                name: request.user_info.username.clone(),
                groups: request.user_info.groups.clone(),
            };
            values.insert(
                "authorizer",
                authz::authorizer_value(user.clone(), a.clone()),
            );
            let check = AuthzRequest {
                api_group: request.resource.group.clone(),
                resource: request.resource.resource.clone(),
                subresource: request.sub_resource.clone(),
                namespace: request.namespace.clone(),
                name: request.name.clone(),
                ..AuthzRequest::default()
            };
            let value = authz::request_resource_value(user, a.clone(), check);
            values.insert("authorizer.requestResource", value);
        }
        PolicyActivation {
            values,
            match_request,
            namespace: converted(&cache.namespace, subject.namespace, subject.namespace),
        }
    }
}

/// The value of `variables` for one phase (Kubernetes' `lazy.MapValue` built by the
/// composition context): each field is its variable's expression, evaluated when the field
/// is first read and remembered, error included, for the rest of the phase. The cost of
/// every variable evaluated is accumulated for the expression that caused it.
pub struct LazyVariables {
    me: Weak<LazyVariables>,
    bindings: Arc<PolicyActivation>,
    variables: Arc<[(String, Compiled)]>,
    cache: Mutex<Vec<Option<Result<Value, EvalError>>>>,
    cost: AtomicU64,
    phase: Phase,
}

impl std::fmt::Debug for LazyVariables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(VARIABLES_TYPE)
    }
}

impl LazyVariables {
    /// The variables of a new phase: nothing computed yet.
    pub fn new(
        bindings: Arc<PolicyActivation>,
        variables: Arc<[(String, Compiled)]>,
        phase: Phase,
    ) -> Arc<LazyVariables> {
        Arc::new_cyclic(|me| LazyVariables {
            me: me.clone(),
            bindings,
            cache: Mutex::new(vec![None; variables.len()]),
            variables,
            cost: AtomicU64::new(0),
            phase,
        })
    }

    /// The cost of the variables evaluated since the last call.
    pub fn take_cost(&self) -> u64 {
        self.cost.swap(0, Ordering::Relaxed)
    }

    /// An activation with every admission variable, `variables` being this value.
    pub fn activation(&self) -> PhaseActivation<'_> {
        PhaseActivation { vars: self }
    }

    fn evaluate(&self, index: usize) -> Result<Value, EvalError> {
        let (name, compiled) = &self.variables[index];
        let program = compiled.program.as_ref().map_err(|e| {
            EvalError::new(format!(
                "composited variable \"{name}\" fails to compile: {e}"
            ))
        })?;
        let (result, details) = program.eval_with_details(&self.activation());
        self.cost.fetch_add(details.actual_cost, Ordering::Relaxed);
        result.map_err(|e| {
            EvalError::new(format!(
                "composited variable \"{name}\" fails to evaluate: {e}"
            ))
        })
    }
}

/// The value of `variables`: a weak reference to the phase's [`LazyVariables`], so that a
/// variable whose value holds `variables` does not keep its phase alive.
#[derive(Debug)]
struct VariablesValue(Weak<LazyVariables>);

impl Opaque for VariablesValue {
    fn type_name(&self) -> &str {
        VARIABLES_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<VariablesValue>()
            .is_some_and(|o| Weak::ptr_eq(&self.0, &o.0))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn to_display_string(&self) -> String {
        VARIABLES_TYPE.to_string()
    }

    fn field(&self, name: &str) -> Option<Result<Value, EvalError>> {
        self.0.upgrade()?.field(name)
    }
}

impl LazyVariables {
    /// The value of a variable: computed on first read, then remembered; `None` when there
    /// is no such variable.
    fn field(&self, name: &str) -> Option<Result<Value, EvalError>> {
        let index = self.variables.iter().position(|(n, _)| n == name)?;
        let cached = |cache: &Mutex<Vec<Option<Result<Value, EvalError>>>>| {
            cache
                .lock()
                .ok()
                .and_then(|c| c.get(index).cloned().flatten())
        };
        if let Some(result) = cached(&self.cache) {
            return Some(result);
        }
        // Not locked while evaluating: the expression may read earlier variables.
        let result = self.evaluate(index);
        if let Ok(mut cache) = self.cache.lock()
            && let Some(slot) = cache.get_mut(index)
        {
            *slot = Some(result.clone());
        }
        Some(result)
    }
}

/// The activation of one phase: the base variables and the phase's `variables`.
pub struct PhaseActivation<'a> {
    vars: &'a LazyVariables,
}

impl Activation for PhaseActivation<'_> {
    fn resolve(&self, name: &str) -> Option<Value> {
        if name == "variables" {
            let me = VariablesValue(self.vars.me.clone());
            return Some(Value::Opaque(Arc::new(me)));
        }
        let bindings = &self.vars.bindings;
        match (self.vars.phase, name) {
            (Phase::Messages | Phase::AuditAnnotations, "authorizer")
            | (Phase::Messages | Phase::AuditAnnotations, "authorizer.requestResource") => None,
            (Phase::MatchConditions, "namespaceObject") => Some(Value::Null),
            (Phase::MatchConditions, "request") => Some(bindings.match_request.clone()),
            (Phase::AuditAnnotations, "namespaceObject") => Some(bindings.namespace.clone()),
            _ => bindings.values.get(name).cloned(),
        }
    }
}

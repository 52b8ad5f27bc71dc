//! The variables of one evaluation: `object`, `oldObject`, `request`, `params`,
//! `namespaceObject`, `authorizer`, and `variables`, whose fields are computed lazily.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::stdlib::kubernetes::authz::{self, Authorizer, AuthzRequest};
use crate::value::Opaque;
use crate::{Activation, Value};

use super::compile::Compiled;
use super::types::AdmissionRequest;

/// The CEL type name of `variables` (Kubernetes' `kubernetes.variables`).
pub const VARIABLES_TYPE: &str = "kubernetes.variables";

/// The `request` variable: the AdmissionRequest without the objects, with
/// `requestKind`/`requestResource`/`requestSubResource` and `dryRun` defaulted.
pub fn request_value(request: &AdmissionRequest) -> Value {
    let mut r = request.clone();
    r.request_kind.get_or_insert_with(|| request.kind.clone());
    r.request_resource
        .get_or_insert_with(|| request.resource.clone());
    if r.request_sub_resource.is_none() && !request.sub_resource.is_empty() {
        r.request_sub_resource = Some(request.sub_resource.clone());
    }
    r.dry_run.get_or_insert(false);
    serde_json::to_value(&r).map_or(Value::Null, Value::from)
}

/// The base variables, shared by all expressions of one evaluation.
pub struct Bindings {
    values: HashMap<&'static str, Value>,
}

impl Bindings {
    /// Builds the variables for a request, its namespace, one params object and an
    /// optional authorizer.
    pub fn new(
        request: &AdmissionRequest,
        namespace: Option<&serde_json::Value>,
        params: Option<&serde_json::Value>,
        authorizer: Option<&Arc<dyn Authorizer>>,
    ) -> Bindings {
        let json = |v: Option<&serde_json::Value>| v.map_or(Value::Null, Value::from);
        let mut values = HashMap::new();
        values.insert("object", json(request.object.as_ref()));
        values.insert("oldObject", json(request.old_object.as_ref()));
        values.insert("params", json(params));
        values.insert("namespaceObject", json(namespace));
        values.insert("request", request_value(request));
        if let Some(a) = authorizer {
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
        Bindings { values }
    }
}

/// The value of `variables` for one phase (Kubernetes' `lazy.MapValue` built by the
/// composition context): each field is its variable's expression, evaluated when the field
/// is first read and remembered, error included, for the rest of the phase. The cost of
/// every variable evaluated is accumulated for the expression that caused it.
pub struct LazyVariables {
    me: Weak<LazyVariables>,
    bindings: Arc<Bindings>,
    variables: Arc<[(String, Compiled)]>,
    cache: Mutex<Vec<Option<Result<Value, String>>>>,
    cost: AtomicU64,
    /// Whether `authorizer` is visible (not to message and audit expressions).
    authorizer: bool,
}

impl std::fmt::Debug for LazyVariables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(VARIABLES_TYPE)
    }
}

impl LazyVariables {
    /// The variables of a new phase: nothing computed yet.
    pub fn new(
        bindings: Arc<Bindings>,
        variables: Arc<[(String, Compiled)]>,
        authorizer: bool,
    ) -> Arc<LazyVariables> {
        Arc::new_cyclic(|me| LazyVariables {
            me: me.clone(),
            bindings,
            cache: Mutex::new(vec![None; variables.len()]),
            variables,
            cost: AtomicU64::new(0),
            authorizer,
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

    fn evaluate(&self, index: usize) -> Result<Value, String> {
        let (name, compiled) = &self.variables[index];
        let program = compiled.program.as_ref().map_err(|e| {
            format!("composited variable \"{name}\" fails to compile: {e}")
        })?;
        let (result, details) = program.eval_with_details(&self.activation());
        self.cost.fetch_add(details.actual_cost, Ordering::Relaxed);
        result.map_err(|e| {
            format!(
                "composited variable \"{name}\" fails to evaluate: {}",
                e.message
            )
        })
    }
}

impl Opaque for LazyVariables {
    fn type_name(&self) -> &str {
        VARIABLES_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<LazyVariables>()
            .is_some_and(|o| std::ptr::eq(self, o))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn to_display_string(&self) -> String {
        VARIABLES_TYPE.to_string()
    }

    fn field(&self, name: &str) -> Option<Result<Value, String>> {
        let index = self.variables.iter().position(|(n, _)| n == name)?;
        let cached = |cache: &Mutex<Vec<Option<Result<Value, String>>>>| {
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
            let me = self.vars.me.upgrade()?;
            return Some(Value::Opaque(me));
        }
        if !self.vars.authorizer && name.starts_with("authorizer") {
            return None;
        }
        self.vars.bindings.values.get(name).cloned()
    }
}

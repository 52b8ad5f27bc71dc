//! The variables of one evaluation: `object`, `oldObject`, `request`, `params`,
//! `namespaceObject`, `authorizer`, and the lazily computed `variables.<name>`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use crate::stdlib::kubernetes::authz::{self, Authorizer, AuthzRequest};
use crate::{Activation, EvalError, Value};

use super::compile::Compiled;
use super::types::AdmissionRequest;

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

/// An activation over [`Bindings`] that evaluates each composited variable at most once
/// per phase, when first read, and accumulates the variables' cost.
pub struct Composition<'a> {
    bindings: &'a Bindings,
    variables: &'a [(String, Compiled)],
    cache: RefCell<Vec<Option<Result<Value, EvalError>>>>,
    cost: Cell<u64>,
    /// Whether `authorizer` is visible (not to message and audit expressions).
    authorizer: bool,
}

impl<'a> Composition<'a> {
    pub fn new(bindings: &'a Bindings, variables: &'a [(String, Compiled)]) -> Composition<'a> {
        Composition {
            bindings,
            variables,
            cache: RefCell::new(vec![None; variables.len()]),
            cost: Cell::new(0),
            authorizer: true,
        }
    }

    /// Starts a new phase (Kubernetes evaluates validations, messageExpressions and audit
    /// annotations as separate filters): forgets computed variables, and hides or shows
    /// `authorizer`.
    pub fn new_phase(&mut self, authorizer: bool) {
        self.authorizer = authorizer;
        self.cache.borrow_mut().iter_mut().for_each(|v| *v = None);
    }

    /// The cost of the variables evaluated since the last call.
    pub fn take_cost(&self) -> u64 {
        self.cost.replace(0)
    }

    fn variable(&self, index: usize) -> Result<Value, EvalError> {
        if let Some(Some(cached)) = self.cache.borrow().get(index) {
            return cached.clone();
        }
        let Some((name, compiled)) = self.variables.get(index) else {
            return Err(EvalError::new("no such variable"));
        };
        let result = match &compiled.program {
            Err(e) => Err(EvalError::new(format!(
                "composited variable \"{name}\" fails to compile: {e}"
            ))),
            Ok(program) => {
                let (result, details) = program.eval_with_details(self);
                self.cost
                    .set(self.cost.get().saturating_add(details.actual_cost));
                result.map_err(|e| {
                    EvalError::new(format!(
                        "composited variable \"{name}\" fails to evaluate: {}",
                        e.message
                    ))
                })
            }
        };
        if let Some(slot) = self.cache.borrow_mut().get_mut(index) {
            *slot = Some(result.clone());
        }
        result
    }
}

impl Activation for Composition<'_> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.try_resolve(name).and_then(Result::ok)
    }

    fn try_resolve(&self, name: &str) -> Option<Result<Value, EvalError>> {
        if let Some(var) = name.strip_prefix("variables.") {
            let index = self.variables.iter().position(|(n, _)| n == var)?;
            return Some(self.variable(index));
        }
        if !self.authorizer && name.starts_with("authorizer") {
            return None;
        }
        self.bindings.values.get(name).cloned().map(Ok)
    }
}

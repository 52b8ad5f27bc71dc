//! kcel in the browser: a small JSON-in, JSON-out API over the engine and its Kubernetes
//! library, exported to JavaScript with wasm-bindgen.
//!
//! Every export takes one request as JSON text and returns one JSON text: on success the
//! shapes of the CLI's `-o json` (see the README's "Machine interface"), on failure
//! `{"error": {"phase": ..., "message": ..., "line": L, "column": C}}` — the CLI's shape,
//! with the phase `input` for a request that cannot be read (bad JSON, unknown environment,
//! unreadable variables), which the CLI reports as a usage error.
//!
//! The functions are plain Rust functions too (wasm-bindgen leaves them callable on the
//! host), so the API is unit-tested natively as well as in a wasm engine.

// Without `full` (the playground's first module) the CRD and admission requests and their
// readers are unused.
#![cfg_attr(not(feature = "full"), allow(dead_code, unused_imports))]

#[cfg(feature = "full")]
mod explain;
mod request;
#[cfg(feature = "full")]
mod source_ranges;

#[cfg(feature = "full")]
pub use explain::explain;

use std::collections::HashMap;

use kcel::Natural;
use kcel::report::{Failure, FailureReport};
use kcel::time_zones::{self, ZoneTable};
use kcel::{Ast, Env, ProgramOptions, Type, Value};
use kcel::{DEFAULT_CEL_COST_LIMIT, NoSizes};
#[cfg(feature = "full")]
use kcel_stdlib::kubernetes::admission::{
    AdmissionRequest, CompiledPolicy, Input, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, validate_binding,
};
#[cfg(feature = "full")]
use kcel_stdlib::kubernetes::crd::PER_CALL_COST_LIMIT;
#[cfg(feature = "full")]
use kcel_stdlib::kubernetes::crd::PER_OBJECT_COST_BUDGET;
#[cfg(feature = "full")]
use kcel_stdlib::kubernetes::crd::{CrdError, CrdValidator, FieldError, SchemaFailure};
#[cfg(feature = "full")]
use kcel_stdlib::kubernetes::manifest_validation::{ManifestReport, ManifestSet, ObjectReport};
use kcel_stdlib::kubernetes::presets::{self, KUBERNETES_COST_LIMIT};
use serde_json::{Value as Json, json};
use wasm_bindgen::prelude::*;

use request::{AdmitRequest, CrdRequest, EnvKind, EnvRequest, ExpressionRequest, parse_request};

/// The longest result [`evaluate`] renders, in bytes of text (about: each string's length,
/// at least one byte per other scalar and per element): 1 MiB, more than an editor pane
/// shows usefully. A longer result is an evaluation error.
pub const MAX_RESULT_TEXT: u64 = 1 << 20;

/// The engine's version (the crate version of `kcel-wasm`, which moves with the engine).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Installs the IANA time-zone table (`tzdata.bin`, written by `tzdata.py` from the data
/// the native engine compiles in), which the module does not carry: until it is loaded a
/// zone argument (`t.getHours('Europe/Paris')`) fails with "time zone data not loaded".
/// Answers `{"version": IANA release, "zones": N}`; a second table is ignored (the first
/// stays).
#[wasm_bindgen(js_name = loadTimeZones)]
pub fn load_time_zones(table: &[u8]) -> String {
    respond(|| {
        let table = ZoneTable::decode(table).map_err(|e| input(e.to_string()))?;
        let answer = json!({"version": table.version(), "zones": table.names().count()});
        time_zones::install(table);
        Ok(answer)
    })
}

/// Whether an evaluation has needed the time-zone table since the module started and it
/// was not loaded (also when the expression absorbed the error): load it with
/// [`load_time_zones`] and evaluate again.
#[wasm_bindgen(js_name = timeZonesWanted)]
pub fn time_zones_wanted() -> bool {
    time_zones::wanted() && !time_zones::available()
}

/// Parses and type-checks an expression: `{"type": T, "cost": {"min": A, "max": B}}`.
///
/// Request: `{"expression", "env", "version", "mode", "libraries", "container",
/// "declarations", "variables"}` (see `ExpressionRequest`); variables are only declared
/// (`dyn` unless in `declarations`), their values are not read.
#[wasm_bindgen]
pub fn check(request: &str) -> String {
    respond(|| {
        let req: ExpressionRequest = parse_request(request)?;
        let mut env = req.env.build()?;
        let declared = declare(&mut env, &req.declarations)?;
        for name in req.variable_names()? {
            if !declared.contains_key(&name) {
                env.declare(name, Type::Dyn);
            }
        }
        let (ast, _) = kcel::report::compile(&env, &req.expression, &req.env.options(None))?;
        let (min, max) = estimate(&env, &ast);
        Ok(json!({
            "type": ast.output_type().unwrap_or(&Type::Dyn).to_string(),
            "cost": {"min": min, "max": max},
        }))
    })
}

/// Compiles and evaluates an expression: `{"value": V, "type": T, "cost": {"actual": N,
/// "min": A, "max": B}}` — the CLI's `eval` shape, its cost joined by `check`'s estimate.
/// V is natural JSON; T the checked type, or the value's runtime type when the checker
/// could only say `dyn`.
///
/// Request: as [`check`], plus `"variables"` (a JSON or YAML document mapping names to
/// values, fitted to their declarations as `kcel eval --var` fits them) and `"costLimit"`
/// (Kubernetes' environment defaults to its 1,000,000 per-call limit).
///
/// Named `evaluate`: wasm-bindgen renames an export called `eval`.
#[wasm_bindgen]
pub fn evaluate(request: &str) -> String {
    respond(|| {
        let req: ExpressionRequest = parse_request(request)?;
        let (env, values) = prepare(&req)?;
        let (ast, program) =
            kcel::report::compile(&env, &req.expression, &req.env.options(req.cost_limit))?;
        let (min, max) = estimate(&env, &ast);
        let (result, details) = program.eval_with_details(&values);
        let value = result.map_err(|e| Failure::from_eval(&program, &e))?;
        if kcel::library::budget::text_exceeds(&value, MAX_RESULT_TEXT) {
            // A value built within the memory budget can still be far larger as text (a
            // list holding one list twice, doubled 30 times): refused before rendering.
            let too_large = kcel::EvalError::new(format!(
                "the result is too large to show (over {MAX_RESULT_TEXT} bytes as text)"
            ));
            return Err(Failure::from_eval(&program, &too_large).into());
        }
        Ok(json!({
            "value": Natural(&value),
            "type": type_name(ast.output_type(), &value),
            "cost": {"actual": details.actual_cost, "min": min, "max": max},
        }))
    })
}

/// The functions of an environment, for completion and documentation: the CLI's
/// `kcel functions -o json` array, `[{"name", "doc", "overloads": [{"id", "signature"}],
/// "examples"}]`, in name order. Request: the environment fields of [`check`].
#[wasm_bindgen]
pub fn functions(request: &str) -> String {
    respond(|| {
        let req: EnvRequest = parse_request(request)?;
        let env = req.build()?;
        let docs: Vec<Json> = env
            .registry()
            .functions()
            .into_iter()
            .map(|f| {
                json!({
                    "name": f.name(),
                    "doc": f.doc(),
                    "overloads": f.overloads().iter().map(|o| json!({
                        "id": o.id(),
                        "signature": o.signature(f.name()),
                    })).collect::<Vec<_>>(),
                    "examples": f.examples(),
                })
            })
            .collect();
        Ok(Json::Array(docs))
    })
}

#[cfg(feature = "full")]
/// Validates manifests as `kcel validate --crd CRD --old OLD OBJECT -o json` does, through
/// the same library ([`ManifestSet`]): `{"valid": B, "objects": [{"kind", "namespace",
/// "name", "valid", "decode_error"?, "errors": [{"field", "reason", "message"}], "warnings":
/// [...]}], "unmatchedOld": [{"kind", "namespace", "name"}]}` (the CLI's shape without `file`, and
/// the old objects no object pairs with, which the CLI warns of), with the costs the CLI
/// does not print: per custom resource its `version`, the actual cost of each rule
/// evaluation `costs: [{"path", "rule", "cost"}]` and the per-object `budget: {"limit",
/// "remaining"}`; and `rules: [{"version", "path", "rule", "estimate": {"min", "max"},
/// "cardinality", "charged", "limit"}]`, each compiled rule's static estimate of the versions
/// validated (`charged` = max × cardinality, compared with the per-rule `limit`).
///
/// Request: `{"crd": TEXT, "object": TEXT, "old": TEXT}` — YAML or JSON text; `object` and
/// `old` may hold several documents or `kind: List`s, of the CRD's kind or of built-in kinds
/// (an object of neither is an input error); an old object pairs with the object of the
/// same group, kind, namespace and name. A CRD whose rules do not compile gives `{"error":
/// {"phase": "schema", "message", "errors": [...]}}`.
#[wasm_bindgen(js_name = validateCrd)]
pub fn validate_crd(request: &str) -> String {
    respond(|| {
        let req: CrdRequest = parse_request(request)?;
        let crd = request::one_document("crd", &req.crd)?;
        let mut crd = CrdValidator::new(&crd).map_err(|e| input(format!("invalid CRD: {e}")))?;
        let version = request::kubernetes_version(req.version.as_deref())?;
        let mode = request::mode(req.mode.as_deref())?;
        if version.is_some() || mode.is_some() {
            let version = version.unwrap_or(presets::KUBERNETES_LATEST);
            let mode = mode.unwrap_or(presets::Mode::StoredExpressions);
            crd = crd.with_rule_env(presets::kubernetes(version, mode));
        }
        let old = match &req.old {
            Some(text) => request::objects("old", text)?,
            None => Vec::new(),
        };
        let mut set = ManifestSet::new(std::slice::from_ref(&crd), old);
        set.add("object", &req.object)
            .map_err(|e| input(e.to_string()))?;
        let unmatched_old: Vec<Json> = (set.unmatched_old())
            .map(|(kind, namespace, name)| json!({"kind": kind, "namespace": namespace, "name": name}))
            .collect();
        let mut report = ManifestReport::default();
        for object in set.validate() {
            match object {
                // The page shows the CRD's objects: one it does not serve is bad input.
                Ok(ObjectReport {
                    name,
                    mapping_error: Some(error),
                    ..
                }) => return Err(input(format!("object {name:?}: {error}"))),
                Ok(object) => report.push(object),
                Err(CrdError::Schema { version, errors }) => {
                    return Err(schema_failure(&version, &errors));
                }
                Err(e @ CrdError::NotServed(_)) => return Err(input(e.to_string())),
            }
        }
        // The versions validated, in the order first met, with their compiled rules.
        let mut versions: Vec<&str> = Vec::new();
        for costs in report.objects.iter().filter_map(|o| o.rule_costs.as_ref()) {
            if !versions.contains(&costs.version.as_str()) {
                versions.push(&costs.version);
            }
        }
        let rules: Vec<Json> = (versions.iter())
            .filter_map(|&version| Some((version, crd.version(version)?.ok()?)))
            .flat_map(|(version, validator)| {
                validator.compiled().reports().iter().map(move |r| {
                    json!({
                        "version": version, "path": r.path, "rule": r.rule,
                        "estimate": {"min": r.estimated.min, "max": r.estimated.max},
                        "cardinality": r.cardinality, "charged": r.charged,
                        "limit": PER_CALL_COST_LIMIT,
                    })
                })
            })
            .collect();
        let objects = (report.objects.iter())
            .map(object_report)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({
            "valid": report.valid, "objects": objects, "unmatchedOld": unmatched_old, "rules": rules,
        }))
    })
}

#[cfg(feature = "full")]
/// One object's outcome as `validateCrd` answers it: the CLI's report without `file`, and a
/// custom resource's version, rule costs and per-object budget.
fn object_report(object: &ObjectReport) -> Result<Json, Rejection> {
    let mut answer = serde_json::to_value(object)
        .map_err(|e| input(format!("cannot serialise the answer: {e}")))?;
    if let Some(fields) = answer.as_object_mut() {
        fields.remove("file");
        if let Some(costs) = &object.rule_costs {
            fields.insert("version".into(), json!(costs.version));
            let each = (costs.costs.iter())
                .map(|c| json!({"path": c.path(), "rule": c.rule(), "cost": c.cost()}));
            fields.insert("costs".into(), Json::Array(each.collect()));
            fields.insert(
                "budget".into(),
                json!({"limit": PER_OBJECT_COST_BUDGET, "remaining": costs.remaining_budget}),
            );
        }
    }
    Ok(answer)
}

#[cfg(feature = "full")]
/// Decides an admission request against ValidatingAdmissionPolicies and their bindings, as
/// kube-apiserver would and as `kcel test` computes it: `{"allowed": B, "status": {"code",
/// "reason", "message"} | null, "warnings": [...], "annotations": {...}, "costs":
/// [{"policy", "binding", "field", "cost"}], "policyErrors": [...], "bindingErrors":
/// [...]}` — the errors are the field errors the API server would reject the policies and
/// bindings with (evaluation goes ahead, as in a suite). Request: see `AdmitRequest`.
#[wasm_bindgen]
pub fn admit(request: &str) -> String {
    respond(|| {
        let req: AdmitRequest = parse_request(request)?;
        let version = request::kubernetes_version(req.version.as_deref())?;
        let policies = request::objects("policies", &req.policies)?
            .into_iter()
            .map(|p| {
                serde_json::from_value::<ValidatingAdmissionPolicy>(p)
                    .map(|p| match version {
                        Some(version) => CompiledPolicy::for_version(p, version),
                        None => CompiledPolicy::new(p),
                    })
                    .map_err(|e| input(format!("policies: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let bindings = request::objects("bindings", &req.bindings)?
            .into_iter()
            .map(|b| {
                serde_json::from_value::<ValidatingAdmissionPolicyBinding>(b)
                    .map_err(|e| input(format!("bindings: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut admission = request::one_document("request", &req.request)?;
        for (field, text) in [("object", &req.object), ("oldObject", &req.old_object)] {
            if let (Some(text), Some(fields)) = (text, admission.as_object_mut()) {
                fields.insert(field.into(), request::one_document(field, text)?);
            }
        }
        let admission: AdmissionRequest =
            serde_json::from_value(admission).map_err(|e| input(format!("request: {e}")))?;
        let params = match &req.params {
            Some(text) => request::objects("params", text)?,
            None => Vec::new(),
        };
        let namespace = match &req.namespace {
            None => Some(json!({"apiVersion": "v1", "kind": "Namespace",
                                "metadata": {"name": admission.namespace}})),
            Some(None) => None,
            Some(Some(text)) => Some(request::one_document("namespace", text)?),
        };
        let authorizer = request::authorizer(req.authorizer.as_ref())?;
        let input = Input {
            request: &admission,
            namespace: namespace.as_ref(),
            params: &params,
            authorizer,
        };
        let decision = kcel_stdlib::kubernetes::admission::admit(
            &policies.iter().collect::<Vec<_>>(),
            &bindings,
            &input,
        );
        let texts =
            |errors: &[FieldError]| errors.iter().map(ToString::to_string).collect::<Vec<_>>();
        Ok(json!({
            "allowed": decision.allowed(),
            "status": decision.status.as_ref().map(|s| json!({
                "code": s.code, "reason": s.reason, "message": s.message,
            })),
            "warnings": decision.warnings,
            "annotations": decision.audit_annotations,
            "costs": decision.costs.iter().map(|(policy, binding, c)| json!({
                "policy": policy, "binding": binding, "field": c.field, "cost": c.cost,
            })).collect::<Vec<_>>(),
            "policyErrors": policies.iter().flat_map(|p| texts(p.errors())).collect::<Vec<_>>(),
            "bindingErrors": bindings.iter().flat_map(|b| texts(&validate_binding(b))).collect::<Vec<_>>(),
        }))
    })
}

/// The environment of an expression request with its variables declared, and their
/// values (fitted to their declarations as `kcel eval --var` fits them).
fn prepare(req: &ExpressionRequest) -> Result<(Env, HashMap<String, Value>), Rejection> {
    let mut env = req.env.build()?;
    let declared = declare(&mut env, &req.declarations)?;
    let mut values: HashMap<String, Value> = HashMap::new();
    for (name, value) in req.variable_values()? {
        let value = match declared.get(&name) {
            Some(ty) => env
                .fit(value, ty)
                .map_err(|e| input(format!("variable '{name}': {e}")))?,
            None => {
                env.declare(name.clone(), Type::Dyn);
                value
            }
        };
        values.insert(name, value);
    }
    Ok((env, values))
}

/// A failed request, already in its `{"error": ...}` shape.
struct Rejection(Json);

impl From<Failure> for Rejection {
    fn from(failure: Failure) -> Rejection {
        Rejection(serde_json::to_value(FailureReport { error: &failure }).unwrap_or(Json::Null))
    }
}

/// A request that cannot be read: `{"error": {"phase": "input", "message": ...}}`.
fn input(message: impl Into<String>) -> Rejection {
    Rejection(json!({"error": {"phase": "input", "message": message.into()}}))
}

/// Runs a request and renders its answer or failure as JSON text.
fn respond(run: impl FnOnce() -> Result<Json, Rejection>) -> String {
    let answer = match run() {
        Ok(answer) => answer,
        Err(Rejection(error)) => error,
    };
    serde_json::to_string(&answer).unwrap_or_else(|e| {
        json!({"error": {"phase": "input", "message": format!("cannot serialise the answer: {e}")}})
            .to_string()
    })
}

/// Declares the `declarations` (name → CEL type text) and returns them parsed.
fn declare(
    env: &mut Env,
    declarations: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<String, Type>, Rejection> {
    let mut types = HashMap::new();
    for (name, text) in declarations {
        let ty = Type::parse(text).map_err(|e| input(format!("declaration '{name}': {e}")))?;
        env.declare(name.clone(), ty.clone());
        types.insert(name.clone(), ty);
    }
    Ok(types)
}

/// cel-go's estimated cost range with variable sizes unknown.
fn estimate(env: &Env, ast: &Ast) -> (u64, u64) {
    env.estimate_cost(ast, &NoSizes)
        .map_or((0, u64::MAX), |c| (c.min, c.max))
}

/// The checked type, or the value's runtime type when the checker could only say `dyn`.
fn type_name(checked: Option<&Type>, value: &Value) -> String {
    match checked {
        Some(Type::Dyn) | None => value.type_name().to_string(),
        Some(ty) => ty.to_string(),
    }
}

impl EnvRequest {
    /// The environment: Kubernetes' at a version and mode, or plain CEL; then the extra
    /// libraries and the container. Built once per distinct request and cloned after (a
    /// playground asks for the same environment on every keystroke; building Kubernetes'
    /// takes milliseconds).
    fn build(&self) -> Result<Env, Rejection> {
        thread_local! {
            static BUILT: std::cell::RefCell<Vec<(String, Env)>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let key = format!(
            "{:?} {:?} {:?} {:?} {:?}",
            self.env, self.version, self.mode, self.libraries, self.container
        );
        if let Some(env) = BUILT.with_borrow(|built| {
            built
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, env)| env.clone())
        }) {
            return Ok(env);
        }
        let env = self.build_new()?;
        BUILT.with_borrow_mut(|built| {
            // A few environments are kept: the versions and modes a user flips between.
            if built.len() >= 8 {
                built.remove(0);
            }
            built.push((key, env.clone()));
        });
        Ok(env)
    }

    /// Builds the environment [`EnvRequest::build`] describes.
    fn build_new(&self) -> Result<Env, Rejection> {
        let mut env = match self.env {
            EnvKind::Kubernetes => presets::kubernetes(self.k8s_version()?, self.mode()?),
            EnvKind::Cel => Env::new(),
        };
        for library in self.libraries()? {
            env.add_library(&library);
        }
        if let Some(container) = &self.container {
            env.set_container(container.clone());
        }
        Ok(env)
    }

    /// Program options as the CLI's: Kubernetes' 1,000,000 limit or plain CEL's
    /// [`DEFAULT_CEL_COST_LIMIT`] unless one is given (0: none); `has()` costs 0 in
    /// Kubernetes' environment and 1 in cel-go's.
    fn options(&self, cost_limit: Option<u64>) -> ProgramOptions {
        let kubernetes = self.env == EnvKind::Kubernetes;
        let default = if kubernetes {
            KUBERNETES_COST_LIMIT
        } else {
            DEFAULT_CEL_COST_LIMIT
        };
        ProgramOptions::default()
            .with_optimize(true)
            .with_cost_limit(match cost_limit {
                Some(0) => None,
                Some(limit) => Some(limit),
                None => Some(default),
            })
            .with_presence_test_cost(!kubernetes)
    }
}

#[cfg(feature = "full")]
/// The CRD's schema errors, as `kcel validate -o json` reports them.
fn schema_failure(version: &str, errors: &[FieldError]) -> Rejection {
    Rejection(json!({ "error": SchemaFailure::new(version, errors) }))
}

#[cfg(test)]
mod tests;

//! The requests of the API (JSON, camelCase) and reading the YAML or JSON text they carry.

use std::collections::BTreeMap;
use std::sync::Arc;

use kcel::library::Library;
use kcel::{Key, Value};
use kcel_stdlib::documents::{parse_objects, parse_value};
use kcel_stdlib::kubernetes::authz::{AllowAll, Authorizer, DenyAll, RuleAuthorizer};
use kcel_stdlib::kubernetes::presets::{KUBERNETES_LATEST, Mode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use crate::{Rejection, input};

/// Which environment: Kubernetes' (the default, as the CLI's) or plain CEL.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EnvKind {
    #[default]
    Kubernetes,
    Cel,
}

/// The environment fields of every expression request.
#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct EnvRequest {
    /// `"kubernetes"` (default) or `"cel"`.
    #[serde(default)]
    pub env: EnvKind,
    /// The Kubernetes version, `"1.27"` to `"1.37"` (default: the newest).
    pub version: Option<String>,
    /// `"new"` (default) or `"stored"`.
    pub mode: Option<String>,
    /// Extra libraries, `NAME` (newest version) or `NAME@VERSION`, as the CLI's `--lib`.
    #[serde(default)]
    pub libraries: Vec<String>,
    /// The container (namespace) for name resolution.
    pub container: Option<String>,
}

/// `check` and `evaluate`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ExpressionRequest {
    pub expression: String,
    #[serde(flatten)]
    pub env: EnvRequest,
    /// Variable name → CEL type (`int`, `list(string)`, `map(string, dyn)`).
    #[serde(default)]
    pub declarations: BTreeMap<String, String>,
    /// The variables: a JSON or YAML text whose document maps names to values, or a JSON
    /// object doing the same.
    pub variables: Option<Json>,
    /// Variables one by one: name → the JSON or YAML text of its value, read as the CLI
    /// reads `--var NAME=TEXT` (after `variables`; a name may not be in both).
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    /// Stop evaluating once the actual cost passes this.
    pub cost_limit: Option<u64>,
}

/// `validateCrd`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct CrdRequest {
    pub crd: String,
    pub object: String,
    pub old: Option<String>,
    /// The Kubernetes version whose environment the rules compile in, `"1.27"` to
    /// `"1.37"` (default: the newest)...
    pub version: Option<String>,
    /// ... for `"stored"` expressions (default: rules already stored, as the API server
    /// runs them) or `"new"` ones (a CRD being written: a function newer than the version
    /// does not compile).
    pub mode: Option<String>,
}

/// `admit`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct AdmitRequest {
    /// ValidatingAdmissionPolicies: YAML or JSON text, several documents or a `kind: List`.
    pub policies: String,
    /// Their bindings, likewise.
    pub bindings: String,
    /// The `admission.k8s.io/v1` AdmissionRequest (YAML or JSON text).
    pub request: String,
    /// The request's `object` and `oldObject`, when not in `request`.
    pub object: Option<String>,
    pub old_object: Option<String>,
    /// Candidate params objects (YAML or JSON text, several documents allowed).
    pub params: Option<String>,
    /// The request's Namespace object as text; absent: it exists, unlabelled; JSON `null`:
    /// it does not exist (as a test suite's `namespace`).
    #[serde(default, deserialize_with = "present")]
    pub namespace: Option<Option<String>>,
    /// `"allow"`, `"deny"` or a rule list `{"rules": [...]}` (text or JSON), as a suite's.
    pub authorizer: Option<Json>,
    /// The API server's CEL compatibility version, `"1.27"` to `"1.37"`: the policies'
    /// expressions are checked in its environment for new expressions and run in its
    /// environment for stored ones. Default: a 1.37 API server's (1.36 for new ones).
    pub version: Option<String>,
}

/// Tells a field given as `null` (`Some(None)`) from an absent one (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Reads a request; an unreadable one is an `input` failure.
pub fn parse_request<T: DeserializeOwned>(text: &str) -> Result<T, Rejection> {
    serde_json::from_str(text).map_err(|e| input(format!("invalid request: {e}")))
}

impl EnvRequest {
    pub fn k8s_version(&self) -> Result<(u32, u32), Rejection> {
        Ok(kubernetes_version(self.version.as_deref())?.unwrap_or(KUBERNETES_LATEST))
    }

    pub fn mode(&self) -> Result<Mode, Rejection> {
        Ok(mode(self.mode.as_deref())?.unwrap_or(Mode::NewExpressions))
    }

    /// The extra libraries from the catalog, as the CLI's `--lib` resolves them. Only the
    /// module built with `full` has the catalog (the libraries outside Kubernetes' and CEL's
    /// environments are code the playground's first module leaves out): without it a request
    /// naming libraries is refused, and the playground's worker sends such requests to
    /// `kcel_full`.
    pub fn libraries(&self) -> Result<Vec<Library>, Rejection> {
        if !cfg!(feature = "full") {
            // A constant branch: the catalog below is not linked into this module.
            return match self.libraries.is_empty() {
                true => Ok(Vec::new()),
                false => Err(input(
                    "extra libraries are in the full module (kcel_full), not in this one",
                )),
            };
        }
        self.libraries
            .iter()
            .map(|spec| {
                let (library, version) =
                    kcel_stdlib::catalog::resolve(spec).map_err(|e| input(e.to_string()))?;
                Ok(library.build(version))
            })
            .collect()
    }
}

impl ExpressionRequest {
    /// The variables' values, by name: `variables` in the document's order, then `values`.
    pub fn variable_values(&self) -> Result<Vec<(String, Value)>, Rejection> {
        let mut out = self.variables_document()?;
        for (name, text) in &self.values {
            if out.iter().any(|(n, _)| n == name) {
                return Err(input(format!("variable '{name}' is given twice")));
            }
            let value = parse_value(text).map_err(|e| input(format!("variable '{name}': {e}")))?;
            out.push((name.clone(), value));
        }
        Ok(out)
    }

    fn variables_document(&self) -> Result<Vec<(String, Value)>, Rejection> {
        let document = match &self.variables {
            None => return Ok(Vec::new()),
            Some(Json::String(text)) => {
                parse_value(text).map_err(|e| input(format!("variables: {e}")))?
            }
            Some(json) => Value::from(json),
        };
        let map = match document {
            Value::Null => return Ok(Vec::new()),
            Value::Map(map) => map,
            other => {
                return Err(input(format!(
                    "variables: expected a map of names to values, not a {}",
                    other.type_name()
                )));
            }
        };
        map.iter()
            .map(|(key, value)| match key {
                Key::String(name) => Ok((name.to_string(), value.clone())),
                other => Err(input(format!(
                    "variables: a variable name must be a string, not {}",
                    other.to_value()
                ))),
            })
            .collect()
    }

    /// The variables' names (for `check`, which reads no values of `values`).
    pub fn variable_names(&self) -> Result<Vec<String>, Rejection> {
        let mut names: Vec<String> = self
            .variables_document()?
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        names.extend(self.values.keys().cloned());
        Ok(names)
    }
}

/// A Kubernetes version, `"1.27"` to the newest; `None` when none is given.
pub fn kubernetes_version(text: Option<&str>) -> Result<Option<(u32, u32)>, Rejection> {
    let Some(text) = text else {
        return Ok(None);
    };
    text.split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)))
        .filter(|&v| v >= (1, 27) && v <= KUBERNETES_LATEST)
        .map(Some)
        .ok_or_else(|| {
            input(format!(
                "Kubernetes version '{text}': expected 1.27 to {}.{}",
                KUBERNETES_LATEST.0, KUBERNETES_LATEST.1
            ))
        })
}

/// `"new"` or `"stored"` expressions; `None` when none is given.
pub fn mode(text: Option<&str>) -> Result<Option<Mode>, Rejection> {
    match text {
        None => Ok(None),
        Some("new") => Ok(Some(Mode::NewExpressions)),
        Some("stored") => Ok(Some(Mode::StoredExpressions)),
        Some(other) => Err(input(format!("mode '{other}': expected new or stored"))),
    }
}

/// One YAML or JSON document (a CRD).
pub fn one_document(what: &str, text: &str) -> Result<Json, Rejection> {
    kcel_stdlib::documents::parse_document(text).map_err(|e| input(format!("{what}: {e}")))
}

/// The objects of a text of manifests, as kubectl reads them (documents, Lists).
pub fn objects(what: &str, text: &str) -> Result<Vec<Json>, Rejection> {
    parse_objects(text).map_err(|e| input(format!("{what}: {e}")))
}

/// A suite's authorizer: `"allow"`, `"deny"`, or a rule list `{"rules": [...]}` given as
/// JSON or as YAML/JSON text; none leaves `authorizer` unbound.
pub fn authorizer(spec: Option<&Json>) -> Result<Option<Arc<dyn Authorizer>>, Rejection> {
    let rules = match spec {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::String(s)) if s == "allow" => return Ok(Some(Arc::new(AllowAll))),
        Some(Json::String(s)) if s == "deny" => return Ok(Some(Arc::new(DenyAll))),
        Some(Json::String(text)) => one_document("authorizer", text)?,
        Some(json) => json.clone(),
    };
    RuleAuthorizer::from_json(&rules)
        .map(|a| Some(Arc::new(a) as Arc<dyn Authorizer>))
        .map_err(|e| input(format!("authorizer: {e}")))
}

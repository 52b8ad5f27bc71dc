//! Test suites: cases with their expected outcomes, for ValidatingAdmissionPolicies
//! ([`AdmissionSuite`]) and for CRD `x-kubernetes-validations` rules ([`CrdSuite`]). The
//! `kcel test` command and the crate's own integration tests run the same suites through
//! [`Suite::run`]; reading the files (YAML or JSON) is the caller's business: a suite is
//! built from a `serde_json::Value` ([`Suite::from_json`]).
//!
//! An admission suite has `policies` (and `bindings`, `params`, `namespace`, `authorizer`,
//! the expected `fieldErrors` and `bindingErrors`); each case sends a `request` and expects a
//! denial `message` (absent: allowed), an HTTP `code`, `warnings` and audit `annotations`
//! (each of these three checked only when given: `warnings: []` requires none):
//!
//! ```yaml
//! policies: [ ...ValidatingAdmissionPolicy... ]
//! bindings: [ ...ValidatingAdmissionPolicyBinding... ]
//! params: [ ...params objects... ]           # optional
//! namespace: { metadata: {name: default, labels: {env: test}} }   # optional (below)
//! authorizer: allow                           # or deny, or {rules: [...]} (optional)
//! fieldErrors: []                             # expected policy errors, in order
//! bindingErrors: []                           # expected binding errors, in order
//! mutatingPolicies: [ ...MutatingAdmissionPolicy... ]   # optional: run first, as the API
//! mutatingBindings: [ ...MutatingAdmissionPolicyBinding... ]  # server runs them
//! crds: [ ...CustomResourceDefinition... ]    # optional: the schemas mutations of custom
//!                                             # resources merge with and default by
//! cases:
//! - name: four replicas denied
//!   request: { ...AdmissionRequest: kind, resource, operation, object, oldObject, userInfo... }
//!   namespace: {...}                          # optional: overrides the suite's
//!   policies: [...]                           # optional: replace the suite's for this case
//!   bindings: [...]                           # (each optional; as upstream tables that
//!   params: [...]                             #  give every case its own objects), with
//!   fieldErrors: []                           # the errors expected of the case's own
//!   bindingErrors: []                         # policies and bindings
//!   message: "deployments.apps \"web\" is forbidden: ..."   # absent: allowed
//!   code: 422                                 # optional (a policy's JSON patch on which
//!                                             # the patch library panics: 500, and the
//!                                             # message is the panic recovery's text)
//!   warnings: []
//!   annotations: {}
//!   mutated: {metadata: {labels: {team: a}}}  # optional: the object after the mutating
//!                                             # policies, compared on the fields given
//!   skip: "reason"                            # optional
//! ```
//!
//! A CRD suite has a `crd` (its first version's schema is used), the expected
//! `schemaErrors` (any order) and estimated `costs`; each case validates an `object` (an
//! update with `old`) as `kcel validate` and the API server do ([`CrdValidator`]: its
//! `metadata` too, then its version's schema; an object without `apiVersion` and `kind` is
//! one of the first version, one without `metadata` is named `object`) and expects field
//! `errors` and `warnings` (any order) and, optionally, the actual cost of rules:
//!
//! ```yaml
//! crd: { ...CustomResourceDefinition... }
//! schemaErrors: []
//! costs:
//! - rule: "self.a <= self.b"
//!   estimated: [5, 5]        # [min, max] of one evaluation
//!   cardinality: 1
//!   source: "how the figure was obtained"   # optional
//! cases:
//! - name: a above b
//!   object: {spec: {a: 2, b: 1}}
//!   old: {...}               # optional: an update
//!   errors: ['spec: Invalid value: ...']
//!   warnings: []
//!   costs: {"self.a <= self.b": 5}
//!   skip: "reason"           # optional
//!   rulesOnly: true          # optional: the CEL rules alone, no OpenAPI validation first
//! ```
//!
//! Without a `namespace`, the namespace of a namespaced request exists, unlabelled (an
//! `apiVersion: v1, kind: Namespace` object with just its name); `namespace: null` (suite or
//! case) means it does not exist (the API server then fails the request, or the policy when
//! a `namespaceSelector` needs its labels).
//!
//! Suite-level expectations (field, binding and schema errors, estimated costs) are reported
//! as cases too: errors when any are expected or found, each estimated cost always.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value as Json;

use crate::kubernetes::admission::api::{
    MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
};
use crate::kubernetes::admission::mutating::{
    self, CompiledMutatingPolicy, LibrarySchemas, MutatingPolicySet,
};
use crate::kubernetes::admission::{
    AdmissionRequest, CompiledPolicy, Decision, Lookups, NamespaceLookup, PolicySet, StaticObjects,
    Status, custom_resources, validate_binding,
};
use crate::kubernetes::authz::{AllowAll, Authorizer, DenyAll, RuleAuthorizer};
use crate::kubernetes::crd::validation::PER_OBJECT_COST_BUDGET;
use crate::kubernetes::crd::{
    CompileOptions, CrdValidator, DefinitionError, FieldPath, Schema, Validator,
    crd_version_schemas,
};

/// A field that may be absent (`None`), `null` (`Some(None)`) or a value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Json>>, D::Error> {
    Option::<Json>::deserialize(d).map(Some)
}

/// The operations of an admission request (`admission.Operation`).
const OPERATIONS: [&str; 4] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/// Deserializes `text` as `T`, failing on any field that `T` and its parts ignore; errors
/// carry the path of the offending value and, when known, its line.
fn strictly<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, SuiteError> {
    let mut unknown: Vec<String> = Vec::new();
    let yaml = serde_norway::Deserializer::from_str(text);
    let mut record = |path: serde_ignored::Path<'_>| unknown.push(path.to_string());
    let ignoring = serde_ignored::Deserializer::new(yaml, &mut record);
    let value: T = serde_path_to_error::deserialize(ignoring).map_err(|e| {
        // serde_norway's messages that show a line (a location past the text's start,
        // rendered ` at line L column C`) name the path already.
        let located = (e.inner().location()).is_some_and(|l| (l.line(), l.column()) != (1, 1));
        let inner = e.inner().to_string();
        let path = e.path().to_string();
        SuiteError::Invalid(if path == "." || located {
            inner
        } else {
            format!("{path}: {inner}")
        })
    })?;
    // Fields of objects copied from a cluster that the suite's types leave out.
    let from_cluster = |path: &String| {
        path.ends_with(".kind") || path.ends_with(".status") || path.contains(".metadata.")
    };
    let unknown: Vec<String> = unknown
        .iter()
        .filter(|path| !from_cluster(path))
        .map(|path| readable_path(path))
        .collect();
    if let Some(path) = unknown.first() {
        let (parent, field) = path.rsplit_once('.').unwrap_or(("", path));
        return Err(SuiteError::UnknownField {
            line: line_of(text, field, ""),
            field: field.to_string(),
            parent: parent.to_string(),
            others: unknown[1..].to_vec(),
        });
    }
    Ok(value)
}

/// serde_ignored's path (`cases.2.policies.?.0.spec.validationz`) as the other errors
/// write paths (`cases[2].policies[0].spec.validationz`).
fn readable_path(path: &str) -> String {
    let mut out = String::new();
    for segment in path.split('.').filter(|s| *s != "?") {
        if segment.parse::<usize>().is_ok() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

/// `line N: ` when the key `key` (with `value`, when not empty) appears on exactly one line
/// of the text, as a block or flow mapping key or a JSON member; empty otherwise.
fn line_of(text: &str, key: &str, value: &str) -> String {
    let keys = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            let mut rest = line.trim_start();
            while let Some(r) = rest.strip_prefix("- ") {
                rest = r.trim_start();
            }
            let at_key = keys.iter().any(|k| rest.starts_with(k.as_str()))
                || keys
                    .iter()
                    .any(|k| line.contains(&format!("{{{k}")) || line.contains(&format!(", {k}")));
            at_key && line.contains(value)
        })
        .map(|(i, _)| i + 1)
        .collect();
    match lines.as_slice() {
        [line] => format!("line {line}: "),
        _ => String::new(),
    }
}

/// A suite of either kind.
#[derive(Debug)]
pub enum Suite {
    /// Admission policies and requests.
    Admission(AdmissionSuite),
    /// A CRD's rules and objects.
    Crd(CrdSuite),
}

/// A ValidatingAdmissionPolicy suite (see the module docs).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdmissionSuite {
    /// The policies.
    pub policies: Vec<ValidatingAdmissionPolicy>,
    /// Their bindings.
    #[serde(default)]
    pub bindings: Vec<ValidatingAdmissionPolicyBinding>,
    /// The parameter objects bindings may refer to.
    #[serde(default)]
    pub params: Vec<Json>,
    /// The Namespace object of namespaced requests: absent, an unlabelled Namespace named as
    /// the request's namespace exists; `null`, the namespace does not exist.
    #[serde(default, deserialize_with = "present")]
    pub namespace: Option<Option<Json>>,
    /// `allow`, `deny` or a rule list `{rules: [...]}` ([`RuleAuthorizer`]); without one,
    /// `authorizer` is unbound.
    #[serde(default)]
    pub authorizer: Option<Json>,
    /// MutatingAdmissionPolicies, run before the validating policies (their field errors
    /// follow the validating policies' in `fieldErrors`).
    #[serde(default)]
    pub mutating_policies: Vec<MutatingAdmissionPolicy>,
    /// Their bindings (their field errors follow the others' in `bindingErrors`).
    #[serde(default)]
    pub mutating_bindings: Vec<MutatingAdmissionPolicyBinding>,
    /// CustomResourceDefinitions (`apiextensions.k8s.io/v1`) of the custom resources the
    /// requests write: mutating policies merge apply configurations into such a resource
    /// with its version's structural schema (list types and map keys) and apply the
    /// schema's defaults after each mutation, as the API server does
    /// ([`LibrarySchemas::with_crds`]); without its CRD a custom resource merges untyped.
    #[serde(default)]
    pub crds: Vec<Json>,
    /// Expected policy field errors, in order.
    #[serde(default)]
    pub field_errors: Vec<String>,
    /// Expected binding field errors, in order.
    #[serde(default)]
    pub binding_errors: Vec<String>,
    /// The requests.
    #[serde(default)]
    pub cases: Vec<AdmissionCase>,
}

/// One admission request and the decision expected.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdmissionCase {
    /// The case's name, as results report it.
    pub name: String,
    /// The request.
    pub request: AdmissionRequest,
    /// Overrides the suite's namespace object (`null`: the namespace does not exist).
    #[serde(default, deserialize_with = "present")]
    pub namespace: Option<Option<Json>>,
    /// Replaces the suite's policies for this case.
    #[serde(default)]
    pub policies: Option<Vec<ValidatingAdmissionPolicy>>,
    /// The field errors expected of the case's own policies, in order.
    #[serde(default)]
    pub field_errors: Vec<String>,
    /// Replaces the suite's bindings for this case.
    #[serde(default)]
    pub bindings: Option<Vec<ValidatingAdmissionPolicyBinding>>,
    /// The field errors expected of the case's own bindings, in order.
    #[serde(default)]
    pub binding_errors: Vec<String>,
    /// Replaces the suite's params objects for this case.
    #[serde(default)]
    pub params: Option<Vec<Json>>,
    /// The expected denial message; absent means allowed.
    #[serde(default)]
    pub message: Option<String>,
    /// The expected HTTP code of the denial (not checked when absent).
    #[serde(default)]
    pub code: Option<u16>,
    /// The expected warnings, in order; not checked when absent (`[]` requires none).
    #[serde(default)]
    pub warnings: Option<Vec<String>>,
    /// The expected audit annotations; not checked when absent (`{}` requires none).
    #[serde(default)]
    pub annotations: Option<BTreeMap<String, String>>,
    /// The object after the mutating policies, compared on what it gives (maps by the keys
    /// given, recursively; lists and scalars whole); not checked when absent.
    #[serde(default)]
    pub mutated: Option<Json>,
    /// Why the case is skipped, if it is.
    #[serde(default)]
    pub skip: Option<String>,
}

/// A CRD rules suite (see the module docs).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrdSuite {
    /// The CustomResourceDefinition.
    pub crd: Json,
    /// Expected schema errors, any order.
    #[serde(default)]
    pub schema_errors: Vec<String>,
    /// Expected estimated costs of rules.
    #[serde(default)]
    pub costs: Vec<CostExpectation>,
    /// The objects.
    #[serde(default)]
    pub cases: Vec<CrdCase>,
}

/// The expected estimated cost of one rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostExpectation {
    /// The rule, by its text.
    pub rule: String,
    /// `[min, max]` of one evaluation.
    pub estimated: [u64; 2],
    /// How many times the rule may run per object.
    pub cardinality: u64,
    /// How the figures were obtained.
    #[serde(default)]
    pub source: String,
}

/// One object (or update) and the validation outcome expected.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrdCase {
    /// The case's name, as results report it.
    pub name: String,
    /// The object (the new object of an update).
    pub object: Json,
    /// The old object: the case is an update.
    #[serde(default)]
    pub old: Option<Json>,
    /// Expected field errors, any order.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Expected warnings, any order.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Expected actual cost per rule (summed over the rule's evaluations).
    #[serde(default)]
    pub costs: BTreeMap<String, u64>,
    /// Why the case is skipped, if it is.
    #[serde(default)]
    pub skip: Option<String>,
    /// Validate with the CEL rules alone (apiextensions-apiserver's CEL validator, as its
    /// unit tests do) rather than as kube-apiserver validates a request (the OpenAPI value
    /// validation first).
    #[serde(default, rename = "rulesOnly")]
    pub rules_only: bool,
}

/// The result of one case (or suite-level expectation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// How it went.
    pub outcome: Outcome,
}

/// Whether a case passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every expectation held.
    Passed,
    /// What differed (never empty).
    Failed(Vec<Mismatch>),
    /// Not run, for this reason.
    Skipped(String),
}

/// One expectation that was not met; `expected` and `actual` are JSON texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// What was compared (`message`, `errors`, `actual cost of "rule"`, ...).
    pub what: String,
    /// The expected value.
    pub expected: String,
    /// The actual value.
    pub actual: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.what, self.expected, self.actual
        )
    }
}

fn json_text<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"))
}

/// Compares two values and records a mismatch (rendered as JSON) when they differ.
fn compare<T: PartialEq + serde::Serialize>(
    what: &str,
    expected: &T,
    actual: &T,
    out: &mut Vec<Mismatch>,
) {
    if expected != actual {
        out.push(Mismatch {
            what: what.to_string(),
            expected: json_text(expected),
            actual: json_text(actual),
        });
    }
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v
}

fn result(name: impl Into<String>, mismatches: Vec<Mismatch>) -> CaseResult {
    CaseResult {
        name: name.into(),
        outcome: if mismatches.is_empty() {
            Outcome::Passed
        } else {
            Outcome::Failed(mismatches)
        },
    }
}

/// A suite that cannot be read, with the offending part named.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// Not a mapping.
    #[error("a suite is a mapping with `policies` (admission) or `crd` (CRD rules)")]
    NotAMapping,
    /// A mapping with neither `policies` nor `crd`.
    #[error("a suite needs `policies` (admission) or `crd` (CRD rules)")]
    UnknownKind,
    /// A field of the wrong shape (serde's message names it).
    #[error("{0}")]
    Decode(serde_json::Error),
    /// An `authorizer` string other than `allow` or `deny`.
    #[error("authorizer: expected allow, deny or {{rules: [...]}}, got '{0}'")]
    AuthorizerName(String),
    /// An `authorizer` rule list that does not decode.
    #[error("authorizer: {0}")]
    AuthorizerRules(serde_json::Error),
    /// A `crd` that cannot be read.
    #[error("crd: {0}")]
    Crd(DefinitionError),
    /// A CRD of an admission suite's `crds` that cannot be read.
    #[error("crds[{index}]: {error}")]
    AdmissionCrd {
        /// Its index in `crds`.
        index: usize,
        /// Why it cannot be read.
        error: DefinitionError,
    },
    /// A `crd` with no schema.
    #[error("crd: no spec.versions[].schema.openAPIV3Schema")]
    NoSchema,
    /// Text that is not YAML (or JSON).
    #[error("{0}")]
    Syntax(serde_norway::Error),
    /// A value of the wrong shape, read strictly: its path and, where the text shows it,
    /// its line, with the decoder's message.
    #[error("{0}")]
    Invalid(String),
    /// A field that no part of the suite knows (read strictly).
    #[error(
        "{line}unknown field `{field}`{}{}",
        in_parent(parent),
        more_fields(others)
    )]
    UnknownField {
        /// `line N: ` where the text shows it, else empty.
        line: String,
        /// The field's name.
        field: String,
        /// The path of the object it is in (empty at the top).
        parent: String,
        /// The paths of the other unknown fields.
        others: Vec<String>,
    },
    /// An admission request's operation other than CREATE, UPDATE, DELETE or CONNECT.
    #[error(
        "{line}cases[{case}].request.operation: Unsupported value: \"{operation}\": supported values: \"CREATE\", \"UPDATE\", \"DELETE\", \"CONNECT\""
    )]
    Operation {
        /// `line N: ` where the text shows it, else empty.
        line: String,
        /// The case's index.
        case: usize,
        /// The operation as written.
        operation: String,
    },
}

fn in_parent(parent: &str) -> String {
    if parent.is_empty() {
        String::new()
    } else {
        format!(" in {parent}")
    }
}

fn more_fields(others: &[String]) -> String {
    if others.is_empty() {
        String::new()
    } else {
        format!(" (and {} more: {})", others.len(), others.join(", "))
    }
}

impl Suite {
    /// Reads a suite: an object with `policies` is an admission suite, one with `crd` a CRD
    /// suite. Errors name the offending field.
    pub fn from_json(json: &Json) -> Result<Suite, SuiteError> {
        let Some(object) = json.as_object() else {
            return Err(SuiteError::NotAMapping);
        };
        if object.contains_key("policies") {
            let suite = AdmissionSuite::deserialize(json).map_err(SuiteError::Decode)?;
            suite.authorizer()?;
            suite.schemas()?;
            Ok(Suite::Admission(suite))
        } else if object.contains_key("crd") {
            let suite = CrdSuite::deserialize(json).map_err(SuiteError::Decode)?;
            suite.schema()?;
            Ok(Suite::Crd(suite))
        } else {
            Err(SuiteError::UnknownKind)
        }
    }

    /// Reads a suite from its YAML (or JSON) text strictly: besides what
    /// [`Suite::from_json`] checks, a field that no part of the suite knows (`validationz:`
    /// in a policy, `messageExpresion:` in a validation) and an admission request's
    /// `operation` other than CREATE, UPDATE, DELETE or CONNECT are errors. Errors name the
    /// path (`cases[2].request.operation`) and, where the text shows it, the line.
    pub fn from_yaml(text: &str) -> Result<Suite, SuiteError> {
        let json: Json = serde_norway::from_str(text).map_err(SuiteError::Syntax)?;
        let Some(object) = json.as_object() else {
            return Err(SuiteError::NotAMapping);
        };
        let suite = if object.contains_key("policies") {
            Suite::Admission(strictly(text)?)
        } else if object.contains_key("crd") {
            Suite::Crd(strictly(text)?)
        } else {
            return Err(SuiteError::UnknownKind);
        };
        match &suite {
            Suite::Admission(admission) => {
                admission.authorizer()?;
                admission.schemas()?;
                for (i, case) in admission.cases.iter().enumerate() {
                    let operation = case.request.operation.as_str();
                    if !OPERATIONS.contains(&operation) {
                        return Err(SuiteError::Operation {
                            line: line_of(text, "operation", operation),
                            case: i,
                            operation: operation.to_string(),
                        });
                    }
                }
            }
            Suite::Crd(crd) => {
                crd.schema()?;
            }
        }
        Ok(suite)
    }

    /// Runs every case; suite-level expectations come first.
    pub fn run(&self) -> Vec<CaseResult> {
        self.run_with(false)
    }

    /// [`Suite::run`], with every program planned in reference mode when `reference` is
    /// set ([`kcel::ProgramOptions::reference`]: no evaluation shortcut), so that a suite
    /// can check the shortcuts give the same decisions, messages and costs.
    pub fn run_with(&self, reference: bool) -> Vec<CaseResult> {
        match self {
            Suite::Admission(s) => s.run_with(reference),
            Suite::Crd(s) => s.run_with(reference),
        }
    }

    /// How many cases the suite declares (suite-level expectations aside).
    pub fn case_count(&self) -> usize {
        match self {
            Suite::Admission(s) => s.cases.len(),
            Suite::Crd(s) => s.cases.len(),
        }
    }
}

impl AdmissionSuite {
    /// The suite's authorizer, if any.
    pub fn authorizer(&self) -> Result<Option<Arc<dyn Authorizer>>, SuiteError> {
        Ok(match &self.authorizer {
            None => None,
            Some(Json::String(s)) if s == "allow" => Some(Arc::new(AllowAll)),
            Some(Json::String(s)) if s == "deny" => Some(Arc::new(DenyAll)),
            Some(Json::String(s)) => return Err(SuiteError::AuthorizerName(s.clone())),
            Some(rules) => Some(Arc::new(
                RuleAuthorizer::from_json(rules).map_err(SuiteError::AuthorizerRules)?,
            )),
        })
    }

    /// The schemas mutations merge with and default by: the built-in kinds' and those of
    /// the suite's `crds`.
    pub fn schemas(&self) -> Result<LibrarySchemas, SuiteError> {
        let crds = (self.crds.iter().enumerate())
            .map(|(index, crd)| {
                CrdValidator::new(crd)
                    .map(Arc::new)
                    .map_err(|error| SuiteError::AdmissionCrd { index, error })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LibrarySchemas::with_crds(crds))
    }

    /// Runs the suite (see [`Suite::run`]).
    pub fn run(&self) -> Vec<CaseResult> {
        self.run_with(false)
    }

    /// Runs the suite, in reference mode if asked (see [`Suite::run_with`]).
    pub fn run_with(&self, reference: bool) -> Vec<CaseResult> {
        let compile = if reference {
            CompiledPolicy::reference
        } else {
            CompiledPolicy::new
        };
        let mut results = Vec::new();
        let compiled: Vec<Arc<CompiledPolicy>> = (self.policies.iter().cloned())
            .map(|p| Arc::new(compile(p)))
            .collect();
        let mutating: Vec<Arc<CompiledMutatingPolicy>> = (self.mutating_policies.iter().cloned())
            .map(|p| Arc::new(CompiledMutatingPolicy::new(p)))
            .collect();
        let errors: Vec<String> = compiled
            .iter()
            .flat_map(|p| p.errors.iter().map(|e| e.to_string()))
            .chain(
                mutating
                    .iter()
                    .flat_map(|p| p.errors.iter().map(|e| e.to_string())),
            )
            .collect();
        if !errors.is_empty() || !self.field_errors.is_empty() {
            let mut m = Vec::new();
            compare("fieldErrors", &self.field_errors, &errors, &mut m);
            results.push(result("policy field errors", m));
        }
        let binding_errors: Vec<String> = self
            .bindings
            .iter()
            .flat_map(validate_binding)
            .chain(
                self.mutating_bindings
                    .iter()
                    .flat_map(mutating::validate_binding),
            )
            .map(|e| e.to_string())
            .collect();
        if !binding_errors.is_empty() || !self.binding_errors.is_empty() {
            let mut m = Vec::new();
            compare(
                "bindingErrors",
                &self.binding_errors,
                &binding_errors,
                &mut m,
            );
            results.push(result("binding field errors", m));
        }
        // `Suite::from_json` checks the CRDs and the authorizer; a suite built otherwise
        // may not have.
        let schemas = match self.schemas() {
            Ok(s) => s,
            Err(e) => {
                results.push(result(
                    "crds",
                    vec![Mismatch {
                        what: "crds".into(),
                        expected: "CustomResourceDefinitions".into(),
                        actual: json_text(&e.to_string()),
                    }],
                ));
                return results;
            }
        };
        let authorizer = match self.authorizer() {
            Ok(a) => a,
            Err(e) => {
                results.push(result(
                    "authorizer",
                    vec![Mismatch {
                        what: "authorizer".into(),
                        expected: "allow, deny or {\"rules\": [...]}".into(),
                        actual: json_text(&e.to_string()),
                    }],
                ));
                return results;
            }
        };
        for case in &self.cases {
            if let Some(reason) = &case.skip {
                results.push(CaseResult {
                    name: case.name.clone(),
                    outcome: Outcome::Skipped(reason.clone()),
                });
                continue;
            }
            let default_namespace;
            let namespace = match case.namespace.as_ref().or(self.namespace.as_ref()) {
                Some(given) => given.as_ref(),
                None => {
                    default_namespace = serde_json::json!({
                        "apiVersion": "v1",
                        "kind": "Namespace",
                        "metadata": {"name": case.request.namespace},
                    });
                    Some(&default_namespace)
                }
            };
            let mut m = Vec::new();
            let policies = match &case.policies {
                None => compiled.clone(),
                Some(own) => {
                    let case_compiled: Vec<Arc<CompiledPolicy>> =
                        own.iter().cloned().map(|p| Arc::new(compile(p))).collect();
                    let errors: Vec<String> = case_compiled
                        .iter()
                        .flat_map(|p| p.errors.iter().map(|e| e.to_string()))
                        .collect();
                    compare("fieldErrors", &case.field_errors, &errors, &mut m);
                    case_compiled
                }
            };
            let objects = StaticObjects {
                namespaces: Vec::new(),
                params: case.params.as_deref().unwrap_or(&self.params).to_vec(),
            };
            let given_namespace = SuiteNamespace(namespace.cloned());
            let lookups = Lookups {
                namespaces: &given_namespace,
                params: &objects,
                authorizer: authorizer.as_ref(),
            };
            let bindings = match &case.bindings {
                None => &self.bindings,
                Some(own) => {
                    let errors: Vec<String> = own
                        .iter()
                        .flat_map(validate_binding)
                        .map(|e| e.to_string())
                        .collect();
                    compare("bindingErrors", &case.binding_errors, &errors, &mut m);
                    own
                }
            };
            let mutating_set =
                MutatingPolicySet::new(mutating.clone(), self.mutating_bindings.iter().cloned());
            let set = PolicySet::new(policies, bindings.iter().cloned());
            let mut request = case.request.clone();
            let decision = write(&mut request, &mutating_set, &set, &lookups, &schemas);
            if let Some(expected) = &case.mutated {
                let actual = request.object.clone().unwrap_or(Json::Null);
                if !json_contains(expected, &actual) {
                    m.push(Mismatch {
                        what: "mutated".into(),
                        expected: json_text(expected),
                        actual: json_text(&actual),
                    });
                }
            }
            let message = decision.status.as_ref().map(|s| s.message.clone());
            compare("message", &case.message, &message, &mut m);
            if case.code.is_some() {
                let code = decision.status.as_ref().map(|s| s.code);
                compare("code", &case.code, &code, &mut m);
            }
            if let Some(warnings) = &case.warnings {
                compare("warnings", warnings, &decision.warnings, &mut m);
            }
            if let Some(annotations) = &case.annotations {
                compare(
                    "annotations",
                    annotations,
                    &decision.audit_annotations,
                    &mut m,
                );
            }
            results.push(result(case.name.clone(), m));
        }
        results
    }
}

/// The decision on `request` as the API server makes it: a custom resource of one of the
/// suite's CRDs decoded by it first; the mutating policies (`request.object` becomes the
/// mutated object); the custom resource validated by its CRD (pruned, defaulted; a 422 when
/// the mutations made it invalid: `custom_resources`); then the validating policies, after
/// the CRD's warnings.
fn write(
    request: &mut AdmissionRequest,
    mutating: &MutatingPolicySet,
    validating: &PolicySet,
    lookups: &Lookups<'_>,
    schemas: &LibrarySchemas,
) -> Decision {
    let refused = |status| Decision {
        status: Some(status),
        ..Decision::default()
    };
    let crd = schemas
        .crd(&request.kind)
        .filter(|crd| custom_resources::writes(crd, request));
    if let Some(crd) = crd
        && let Err(status) = custom_resources::decode(crd, request)
    {
        return refused(status);
    }
    let mutated = mutating.mutate(request, lookups, schemas);
    if mutated.panicked {
        return refused(Status::panicked());
    }
    if let Some(object) = mutated.object {
        request.object = Some(object);
    }
    if let Some(status) = mutated.status {
        return refused(status);
    }
    let mut warnings = Vec::new();
    if let Some(crd) = crd {
        match custom_resources::validate(crd, request) {
            Ok(written) => {
                request.object = Some(written.object);
                warnings = written.warnings;
            }
            Err(status) => return refused(status),
        }
    }
    let mut decision = validating.admit(request, lookups);
    decision.warnings.splice(0..0, warnings);
    decision
}

/// Whether `actual` has what `expected` gives: maps by the keys given (recursively), lists
/// and scalars whole.
pub fn json_contains(expected: &Json, actual: &Json) -> bool {
    match (expected, actual) {
        (Json::Object(e), Json::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|w| json_contains(v, w))),
        _ => expected == actual,
    }
}

/// A suite's namespace: the request's Namespace object, whatever its name (`None`: the
/// namespace does not exist).
struct SuiteNamespace(Option<Json>);

impl NamespaceLookup for SuiteNamespace {
    fn namespace(&self, _: &str) -> Option<Json> {
        self.0.clone()
    }
}

impl CrdSuite {
    /// The first version's schema, with its path in the CRD.
    pub fn schema(&self) -> Result<(Schema, FieldPath), SuiteError> {
        crd_version_schemas(&self.crd)
            .map_err(SuiteError::Crd)?
            .into_iter()
            .next()
            .map(|(_, schema, path)| (schema, path))
            .ok_or(SuiteError::NoSchema)
    }

    /// Runs the suite (see [`Suite::run`]).
    pub fn run(&self) -> Vec<CaseResult> {
        self.run_with(false)
    }

    /// Runs the suite, in reference mode if asked (see [`Suite::run_with`]).
    pub fn run_with(&self, reference: bool) -> Vec<CaseResult> {
        let (schema, schema_path) = match self.schema() {
            Ok(s) => s,
            Err(e) => {
                return vec![result(
                    "CRD schema",
                    vec![Mismatch {
                        what: "schema".into(),
                        expected: "a structural schema".into(),
                        actual: json_text(&e.to_string()),
                    }],
                )];
            }
        };
        let validator = Validator::new(
            &schema,
            CompileOptions {
                schema_path,
                reference,
                ..CompileOptions::default()
            },
        );
        // The cases go the way `kcel validate` and the API server validate an object: the
        // CRD's validator (version by apiVersion, metadata, then the version's schema).
        // A suite expecting schema errors (reported above) still runs its cases with the
        // rules that compile.
        let crd = CrdValidator::new(&self.crd)
            .map(|c| c.with_reference_mode(reference).despite_schema_errors(true));
        let mut results = Vec::new();
        let errors: Vec<String> = validator
            .compiled
            .errors
            .iter()
            .map(|e| e.to_string())
            .collect();
        if !errors.is_empty() || !self.schema_errors.is_empty() {
            let mut m = Vec::new();
            compare(
                "schemaErrors",
                &sorted(&self.schema_errors),
                &sorted(&errors),
                &mut m,
            );
            results.push(result("schema errors", m));
        }
        for c in &self.costs {
            let name = format!("estimated cost of {}", json_text(&c.rule));
            let expected = format!("{:?} × {}", c.estimated, c.cardinality);
            let actual = match validator.compiled.reports.iter().find(|r| r.rule == c.rule) {
                Some(r) => format!(
                    "{:?} × {}",
                    [r.estimated.min, r.estimated.max],
                    r.cardinality
                ),
                None => "no such rule".to_string(),
            };
            let mut m = Vec::new();
            if expected != actual {
                m.push(Mismatch {
                    what: "estimated × cardinality".into(),
                    expected,
                    actual,
                });
            }
            results.push(result(name, m));
        }
        for case in &self.cases {
            if let Some(reason) = &case.skip {
                results.push(CaseResult {
                    name: case.name.clone(),
                    outcome: Outcome::Skipped(reason.clone()),
                });
                continue;
            }
            let outcome = if case.rules_only {
                validator.validate_rules(&case.object, case.old.as_ref(), PER_OBJECT_COST_BUDGET)
            } else {
                let validated = crd.as_ref().map_err(ToString::to_string).and_then(|crd| {
                    let object = as_request(crd, &case.object);
                    let old = case.old.as_ref().map(|o| Arc::new(as_request(crd, o)));
                    crd.validate_owned(object, old.as_ref())
                        .map(|(_, outcome)| outcome)
                        .map_err(|e| e.to_string())
                });
                match validated {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        let expected = json_text(&sorted(&case.errors));
                        let failed = Mismatch {
                            what: "errors".into(),
                            expected,
                            actual: json_text(&e),
                        };
                        results.push(result(case.name.clone(), vec![failed]));
                        continue;
                    }
                }
            };
            let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
            let mut m = Vec::new();
            compare("errors", &sorted(&case.errors), &sorted(&errors), &mut m);
            compare(
                "warnings",
                &sorted(&case.warnings),
                &sorted(&outcome.warnings),
                &mut m,
            );
            for (rule, want) in &case.costs {
                let got: Vec<u64> = outcome
                    .costs
                    .iter()
                    .filter(|c| &c.rule == rule)
                    .map(|c| c.cost)
                    .collect();
                let actual = if got.is_empty() {
                    "not run".to_string()
                } else {
                    got.iter().sum::<u64>().to_string()
                };
                if actual != want.to_string() {
                    m.push(Mismatch {
                        what: format!("actual cost of {}", json_text(rule)),
                        expected: want.to_string(),
                        actual,
                    });
                }
            }
            results.push(result(case.name.clone(), m));
        }
        results
    }
}

/// A case's object as a request to the CRD's resource sends it: without `apiVersion` and
/// `kind`, those of the CRD's first version (the one the suite's schema is); without
/// `metadata`, named [`CASE_OBJECT_NAME`]. Anything else (not a JSON object) as given.
fn as_request(crd: &CrdValidator, object: &Json) -> Json {
    let mut object = object.clone();
    if let Some(fields) = object.as_object_mut() {
        let version = crd.versions().next().unwrap_or_default();
        fields
            .entry("apiVersion")
            .or_insert_with(|| Json::from(format!("{}/{version}", crd.group())));
        fields
            .entry("kind")
            .or_insert_with(|| Json::from(crd.kind()));
        fields
            .entry("metadata")
            .or_insert_with(|| serde_json::json!({ "name": CASE_OBJECT_NAME }));
    }
    object
}

/// The name of a case's object that gives no `metadata`.
pub const CASE_OBJECT_NAME: &str = "object";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(rule: &str) -> Json {
        json!({
            "spec": {"group": "example.com", "names": {"kind": "Pair", "plural": "pairs"},
                     "versions": [{"name": "v1", "served": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {
                    "type": "object",
                    "x-kubernetes-validations": [{"rule": rule}],
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}
                }}
            }}}]}
        })
    }

    #[test]
    fn an_admission_suites_crds_must_be_readable() {
        let bad = json!({"policies": [], "crds": [{"spec": {}}]});
        let error = Suite::from_json(&bad).unwrap_err().to_string();
        assert!(error.starts_with("crds[0]: "), "{error}");
        let yaml = "policies: []\ncrds:\n- {spec: {}}\n";
        let error = Suite::from_yaml(yaml).unwrap_err().to_string();
        assert!(error.starts_with("crds[0]: "), "{error}");
    }

    #[test]
    fn crd_suites_pass_fail_and_skip() {
        let suite = Suite::from_json(&json!({
            "crd": crd("self.a <= self.b"),
            "costs": [{"rule": "self.a <= self.b", "estimated": [5, 5], "cardinality": 1}],
            "cases": [
                {"name": "ok", "object": {"spec": {"a": 1, "b": 2}}, "costs": {"self.a <= self.b": 5}},
                {"name": "wrong", "object": {"spec": {"a": 3, "b": 2}}},
                {"name": "later", "object": {}, "skip": "not yet"}
            ]
        }))
        .unwrap();
        assert_eq!(suite.case_count(), 3);
        let results = suite.run();
        let outcomes: Vec<_> = results.iter().map(|r| (&*r.name, &r.outcome)).collect();
        assert_eq!(
            outcomes[0],
            ("estimated cost of \"self.a <= self.b\"", &Outcome::Passed)
        );
        assert_eq!(outcomes[1], ("ok", &Outcome::Passed));
        assert_eq!(
            outcomes[2].1,
            &Outcome::Failed(vec![Mismatch {
                what: "errors".into(),
                expected: "[]".into(),
                actual: "[\"spec: Invalid value: failed rule: self.a <= self.b\"]".into(),
            }])
        );
        assert_eq!(outcomes[3].1, &Outcome::Skipped("not yet".into()));
    }

    #[test]
    fn schema_errors_are_a_case() {
        let suite = Suite::from_json(&json!({"crd": crd("self.c > 1")})).unwrap();
        let results = suite.run();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].name, "schema errors");
        assert!(matches!(&results[0].outcome, Outcome::Failed(m) if m[0].what == "schemaErrors"));
    }

    #[test]
    fn bad_suites_are_errors() {
        for (json, error) in [
            (json!([1]), "a suite is a mapping"),
            (json!({"cases": []}), "a suite needs"),
            (
                json!({"crd": {}}),
                "crd: a CustomResourceDefinition needs spec.versions",
            ),
            (
                json!({"crd": crd("true"), "extra": 1}),
                "unknown field `extra`",
            ),
            (
                json!({"policies": [], "authorizer": "maybe"}),
                "authorizer: expected allow",
            ),
            (
                json!({"policies": [], "authorizer": {"rules": [{"verb": []}]}}),
                "unknown field `verb`",
            ),
            (
                json!({"policies": [], "cases": [{"name": "x"}]}),
                "missing field `request`",
            ),
        ] {
            let got = Suite::from_json(&json).unwrap_err().to_string();
            assert!(got.contains(error), "{got}");
        }
    }

    #[test]
    fn admission_suites_with_a_rule_list_authorizer() {
        let suite = Suite::from_json(&json!({
            "authorizer": {"rules": [{"users": ["ada"], "verbs": ["use"], "apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"]}]},
            "policies": [{"metadata": {"name": "p"}, "spec": {
                "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]},
                "validations": [{"expression": "authorizer.group('scheduling.k8s.io').resource('priorityclasses').name('x').check('use').allowed()", "message": "no"}]
            }}],
            "bindings": [{"metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}}],
            "cases": [
                {"name": "ada may", "request": {"kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"}, "name": "w", "operation": "CREATE", "userInfo": {"username": "ada"}, "object": {}}},
                {"name": "bob may not", "request": {"kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"}, "name": "w", "operation": "CREATE", "userInfo": {"username": "bob"}, "object": {}},
                 "message": "pods \"w\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no"}
            ]
        }))
        .unwrap();
        let results = suite.run();
        assert_eq!(results.len(), 2);
        assert!(
            results.iter().all(|r| r.outcome == Outcome::Passed),
            "{results:?}"
        );
    }
}

#[cfg(test)]
mod strict_tests {
    use super::*;

    #[test]
    fn ignored_paths_read_like_the_other_errors() {
        assert_eq!(
            readable_path("cases.2.policies.?.0.spec.validationz"),
            "cases[2].policies[0].spec.validationz"
        );
        assert_eq!(readable_path("crdz"), "crdz");
    }

    #[test]
    fn lines_are_given_only_when_unambiguous() {
        let text = "a:\n  b: 1\n  - c: 2\nd: {b: 3}\n";
        assert_eq!(line_of(text, "c", ""), "line 3: ");
        assert_eq!(line_of(text, "b", ""), "");
        assert_eq!(line_of(text, "b", "3"), "line 4: ");
        assert_eq!(line_of(text, "zz", ""), "");
    }

    #[test]
    fn unknown_fields_anywhere_are_errors() {
        let suite = "crd: {spec: {versions: []}}\ncasez: []\n";
        let error = Suite::from_yaml(suite).unwrap_err().to_string();
        assert!(error.contains("unknown field `casez`"), "{error}");
    }
}

//! Serde models of `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy,
//! MutatingAdmissionPolicy and their bindings (one [`PolicyObject`] shape with each kind's
//! spec), and of the admission request they judge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Object metadata: only what admission needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    /// `name`.
    pub name: String,
    /// The prefix of a name the API server generates (validated, not used here).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    /// `namespace`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `labels`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Validated as the API server does (keys, total size); not used here.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// The API group of the policy resources.
pub const GROUP: &str = "admissionregistration.k8s.io";

/// A policy or binding of `admissionregistration.k8s.io`: `apiVersion`, `metadata` and a
/// `spec` of type `S`, defaulted as it is read ([`PolicyObject::set_defaults`]). The four
/// kinds are [`ValidatingAdmissionPolicy`], [`ValidatingAdmissionPolicyBinding`],
/// [`MutatingAdmissionPolicy`] and [`MutatingAdmissionPolicyBinding`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyObject<S> {
    /// `admissionregistration.k8s.io/v1` (or `v1beta1`, `v1alpha1`); empty means v1.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec`.
    pub spec: S,
}

/// The defaults the API server applies to a spec when it decodes its object (kubernetes
/// `pkg/apis/admissionregistration/v1` (and v1beta1, v1alpha1) `defaults.go`).
pub trait SpecDefaults {
    /// Sets the defaults of a spec read in `api_version`.
    fn set_defaults(&mut self, api_version: &str);
}

impl<S: SpecDefaults> PolicyObject<S> {
    /// The defaults the API server applies when it decodes the object (see each spec's
    /// [`SpecDefaults`]).
    pub fn set_defaults(&mut self) {
        self.spec.set_defaults(&self.api_version);
    }
}

impl<'de, S: Deserialize<'de> + Default + SpecDefaults> Deserialize<'de> for PolicyObject<S> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Default, Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        struct Read<S> {
            api_version: String,
            metadata: ObjectMeta,
            spec: S,
        }
        let read = Read::<S>::deserialize(d)?;
        let mut object = PolicyObject {
            api_version: read.api_version,
            metadata: read.metadata,
            spec: read.spec,
        };
        object.set_defaults();
        Ok(object)
    }
}

/// A ValidatingAdmissionPolicy, defaulted as it is read.
pub type ValidatingAdmissionPolicy = PolicyObject<PolicySpec>;

/// `SetDefaults_ValidatingAdmissionPolicySpec` (failurePolicy Fail) and the match
/// constraints' defaults ([`MatchResources::set_defaults`]).
impl SpecDefaults for PolicySpec {
    fn set_defaults(&mut self, _: &str) {
        self.failure_policy.get_or_insert(FailurePolicy::Fail);
        if let Some(constraints) = &mut self.match_constraints {
            constraints.set_defaults();
        }
    }
}

impl MatchResources {
    /// `SetDefaults_MatchResources` (matchPolicy Equivalent, empty namespace and object
    /// selectors) and `SetDefaults_Rule` (scope `*`) for every rule.
    pub fn set_defaults(&mut self) {
        self.match_policy.get_or_insert(MatchPolicy::Equivalent);
        self.namespace_selector
            .get_or_insert_with(LabelSelector::default);
        self.object_selector
            .get_or_insert_with(LabelSelector::default);
        let rules = self.resource_rules.iter_mut();
        for rule in rules.chain(self.exclude_resource_rules.iter_mut()) {
            rule.scope.get_or_insert_with(|| "*".to_string());
        }
    }
}

/// `spec` of a ValidatingAdmissionPolicy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PolicySpec {
    /// `paramKind`.
    pub param_kind: Option<ParamKind>,
    /// `matchConstraints`.
    pub match_constraints: Option<MatchResources>,
    /// `validations`.
    pub validations: Vec<Validation>,
    /// `failurePolicy`.
    pub failure_policy: Option<FailurePolicy>,
    /// `auditAnnotations`.
    pub audit_annotations: Vec<AuditAnnotation>,
    /// `matchConditions`.
    pub match_conditions: Vec<MatchCondition>,
    /// `variables`.
    pub variables: Vec<Variable>,
}

/// The kind of the params resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParamKind {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
}

/// Which requests a policy or binding applies to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchResources {
    /// `namespaceSelector`.
    pub namespace_selector: Option<LabelSelector>,
    /// `objectSelector`.
    pub object_selector: Option<LabelSelector>,
    /// `resourceRules`.
    pub resource_rules: Vec<NamedRuleWithOperations>,
    /// `excludeResourceRules`.
    pub exclude_resource_rules: Vec<NamedRuleWithOperations>,
    /// `matchPolicy`.
    pub match_policy: Option<MatchPolicy>,
}

/// A rule with operations and optional resource names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NamedRuleWithOperations {
    /// `resourceNames`.
    pub resource_names: Vec<String>,
    /// `operations`.
    pub operations: Vec<String>,
    /// `apiGroups`.
    pub api_groups: Vec<String>,
    /// `apiVersions`.
    pub api_versions: Vec<String>,
    /// `resources`.
    pub resources: Vec<String>,
    /// `Cluster`, `Namespaced` or `*` (the default).
    pub scope: Option<String>,
}

/// `Exact` or `Equivalent` (the default). Any other text is kept (`Other`) so that
/// validation can report it as the API server does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchPolicy {
    /// Match the rules' resources only.
    Exact,
    /// Also match equivalent resources (the same kind in another group or version).
    Equivalent,
    /// Anything else, as written.
    #[serde(untagged)]
    Other(String),
}

/// A label selector (`matchLabels` and `matchExpressions`, all must hold).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    /// `matchLabels`.
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions`.
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelectorRequirement {
    /// `key`.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// `values`.
    pub values: Vec<String>,
}

/// `Fail` (the default) or `Ignore`; any other text is kept (`Other`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailurePolicy {
    /// An error denies the request.
    #[default]
    Fail,
    /// An error is ignored.
    Ignore,
    /// Anything else, as written.
    #[serde(untagged)]
    Other(String),
}

/// One validation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Validation {
    /// `expression`.
    pub expression: String,
    /// `message`.
    pub message: String,
    /// `messageExpression`.
    pub message_expression: String,
    /// `Unauthorized`, `Forbidden`, `Invalid` or `RequestEntityTooLarge`.
    pub reason: Option<String>,
}

/// An audit annotation: `key` and a CEL `valueExpression` (string or null).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuditAnnotation {
    /// `key`.
    pub key: String,
    /// `valueExpression`.
    pub value_expression: String,
}

/// A named CEL condition that must be true for the policy to apply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchCondition {
    /// `name`.
    pub name: String,
    /// `expression`.
    pub expression: String,
}

/// A named CEL expression available as `variables.<name>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Variable {
    /// `name`.
    pub name: String,
    /// `expression`.
    pub expression: String,
}

/// A ValidatingAdmissionPolicyBinding, defaulted as it is read.
pub type ValidatingAdmissionPolicyBinding = PolicyObject<BindingSpec>;

/// The binding's matchResources defaulted as a policy's ([`MatchResources::set_defaults`]),
/// and, in `v1alpha1` only, `SetDefaults_ParamRef` (parameterNotFoundAction Deny). In v1
/// and v1beta1 the action has no default: a paramRef without one is a `Required value`
/// error when written.
impl SpecDefaults for BindingSpec {
    fn set_defaults(&mut self, api_version: &str) {
        if let Some(resources) = &mut self.match_resources {
            resources.set_defaults();
        }
        if api_version == format!("{GROUP}/v1alpha1")
            && let Some(param_ref) = &mut self.param_ref
        {
            param_ref
                .parameter_not_found_action
                .get_or_insert(ParameterNotFoundAction::Deny);
        }
    }
}

/// `spec` of a binding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BindingSpec {
    /// `policyName`.
    pub policy_name: String,
    /// `paramRef`.
    pub param_ref: Option<ParamRef>,
    /// `matchResources`.
    pub match_resources: Option<MatchResources>,
    /// `validationActions`.
    pub validation_actions: Vec<ValidationAction>,
}

/// Which params object(s) a binding uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParamRef {
    /// `name`.
    pub name: String,
    /// `namespace`.
    pub namespace: String,
    /// `selector`.
    pub selector: Option<LabelSelector>,
    /// `parameterNotFoundAction`.
    pub parameter_not_found_action: Option<ParameterNotFoundAction>,
}

/// What to do when no params object is found; any other text is kept (`Other`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParameterNotFoundAction {
    /// The binding is skipped.
    Allow,
    /// The request is denied.
    Deny,
    /// Anything else, as written.
    #[serde(untagged)]
    Other(String),
}

/// What a failed validation does; any other text is kept (`Other`) and does nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValidationAction {
    /// Deny the request.
    Deny,
    /// Send a warning to the client.
    Warn,
    /// Record an audit annotation.
    Audit,
    /// Anything else, as written.
    #[serde(untagged)]
    Other(String),
}

/// The text of an enumerated field's value, as written.
macro_rules! enum_text {
    ($($ty:ident { $($variant:ident),* })*) => {$(
        impl $ty {
            /// The value as written in the object.
            pub fn as_str(&self) -> &str {
                match self {
                    $($ty::$variant => stringify!($variant),)*
                    $ty::Other(s) => s,
                }
            }
        }
    )*};
}

enum_text! {
    MatchPolicy { Exact, Equivalent }
    FailurePolicy { Fail, Ignore }
    ParameterNotFoundAction { Allow, Deny }
    ValidationAction { Deny, Warn, Audit }
}

/// Group, version and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVersionKind {
    /// `group`.
    pub group: String,
    /// `version`.
    pub version: String,
    /// `kind`.
    pub kind: String,
}

/// Group, version and resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVersionResource {
    /// `group`.
    pub group: String,
    /// `version`.
    pub version: String,
    /// `resource`.
    pub resource: String,
}

/// The requesting user (`authentication.k8s.io/v1` UserInfo).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserInfo {
    /// `username`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// `uid`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// `groups`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// `extra`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

/// An admission request (`admission.k8s.io/v1` AdmissionRequest), with the objects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdmissionRequest {
    /// `uid`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// `kind`.
    pub kind: GroupVersionKind,
    /// `resource`.
    pub resource: GroupVersionResource,
    /// `subResource`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sub_resource: String,
    /// Defaults to `kind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_kind: Option<GroupVersionKind>,
    /// Defaults to `resource`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_resource: Option<GroupVersionResource>,
    /// `requestSubResource`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_sub_resource: Option<String>,
    /// `name`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `namespace`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// `userInfo`.
    pub user_info: UserInfo,
    /// `dryRun`.
    pub dry_run: Option<bool>,
    /// `options`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<serde_json::Value>,
    /// `object`.
    #[serde(skip_serializing)]
    pub object: Option<serde_json::Value>,
    /// `oldObject`.
    #[serde(skip_serializing)]
    pub old_object: Option<serde_json::Value>,
}

/// A MutatingAdmissionPolicy (`admissionregistration.k8s.io/v1`), defaulted as it is read.
pub type MutatingAdmissionPolicy = PolicyObject<MutatingPolicySpec>;

/// `SetDefaults_MutatingAdmissionPolicySpec` (failurePolicy Fail) and the match
/// constraints' defaults. `reinvocationPolicy` has none: it is required.
impl SpecDefaults for MutatingPolicySpec {
    fn set_defaults(&mut self, _: &str) {
        self.failure_policy.get_or_insert(FailurePolicy::Fail);
        if let Some(constraints) = &mut self.match_constraints {
            constraints.set_defaults();
        }
    }
}

/// `spec` of a MutatingAdmissionPolicy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MutatingPolicySpec {
    /// `paramKind`.
    pub param_kind: Option<ParamKind>,
    /// `matchConstraints`.
    pub match_constraints: Option<MatchResources>,
    /// `variables`.
    pub variables: Vec<Variable>,
    /// `mutations`, applied in order.
    pub mutations: Vec<Mutation>,
    /// `failurePolicy`.
    pub failure_policy: Option<FailurePolicy>,
    /// `matchConditions`.
    pub match_conditions: Vec<MatchCondition>,
    /// `reinvocationPolicy`: `Never` or `IfNeeded` (required; kept as written).
    pub reinvocation_policy: String,
}

/// One mutation: a patch type and the expression of that type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Mutation {
    /// `ApplyConfiguration` or `JSONPatch` (kept as written).
    pub patch_type: String,
    /// `applyConfiguration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply_configuration: Option<PatchExpression>,
    /// `jsonPatch`.
    #[serde(rename = "jsonPatch", skip_serializing_if = "Option::is_none")]
    pub json_patch: Option<PatchExpression>,
}

/// `applyConfiguration` or `jsonPatch`: the CEL expression building the patch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PatchExpression {
    /// `expression`.
    pub expression: String,
}

/// A MutatingAdmissionPolicyBinding, defaulted as it is read.
pub type MutatingAdmissionPolicyBinding = PolicyObject<MutatingBindingSpec>;

/// The binding's matchResources defaulted as a policy's ([`MatchResources::set_defaults`]).
impl SpecDefaults for MutatingBindingSpec {
    fn set_defaults(&mut self, _: &str) {
        if let Some(resources) = &mut self.match_resources {
            resources.set_defaults();
        }
    }
}

/// `spec` of a MutatingAdmissionPolicyBinding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MutatingBindingSpec {
    /// `policyName`.
    pub policy_name: String,
    /// `paramRef`.
    pub param_ref: Option<ParamRef>,
    /// `matchResources`.
    pub match_resources: Option<MatchResources>,
}

impl MutatingAdmissionPolicyBinding {
    /// The binding as a ValidatingAdmissionPolicyBinding without validation actions: the
    /// shape the matching and params code shared with validating policies reads.
    pub fn as_validating(&self) -> ValidatingAdmissionPolicyBinding {
        ValidatingAdmissionPolicyBinding {
            api_version: self.api_version.clone(),
            metadata: self.metadata.clone(),
            spec: BindingSpec {
                policy_name: self.spec.policy_name.clone(),
                param_ref: self.spec.param_ref.clone(),
                match_resources: self.spec.match_resources.clone(),
                validation_actions: Vec::new(),
            },
        }
    }
}

impl MutatingAdmissionPolicy {
    /// The parts a MutatingAdmissionPolicy shares with a ValidatingAdmissionPolicy
    /// (paramKind, matchConstraints, matchConditions, variables, failurePolicy) as one
    /// without validations: what the matching, params and variables code reads.
    pub fn as_validating(&self) -> ValidatingAdmissionPolicy {
        let spec = &self.spec;
        ValidatingAdmissionPolicy {
            api_version: self.api_version.clone(),
            metadata: self.metadata.clone(),
            spec: PolicySpec {
                param_kind: spec.param_kind.clone(),
                match_constraints: spec.match_constraints.clone(),
                validations: Vec::new(),
                failure_policy: spec.failure_policy.clone(),
                audit_annotations: Vec::new(),
                match_conditions: spec.match_conditions.clone(),
                variables: spec.variables.clone(),
            },
        }
    }
}

//! Serde models of `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy and
//! ValidatingAdmissionPolicyBinding, and of the admission request they judge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Object metadata: only what admission needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    pub name: String,
    /// The prefix of a name the API server generates (validated, not used here).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Validated as the API server does (keys, total size); not used here.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// The API group of the policy resources.
pub const GROUP: &str = "admissionregistration.k8s.io";

/// A ValidatingAdmissionPolicy, defaulted as it is read ([`ValidatingAdmissionPolicy::set_defaults`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatingAdmissionPolicy {
    /// `admissionregistration.k8s.io/v1` (or `v1beta1`, `v1alpha1`); empty means v1.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: PolicySpec,
}

impl<'de> Deserialize<'de> for ValidatingAdmissionPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Default, Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        struct Read {
            api_version: String,
            metadata: ObjectMeta,
            spec: PolicySpec,
        }
        let read = Read::deserialize(d)?;
        let mut policy = ValidatingAdmissionPolicy {
            api_version: read.api_version,
            metadata: read.metadata,
            spec: read.spec,
        };
        policy.set_defaults();
        Ok(policy)
    }
}

impl ValidatingAdmissionPolicy {
    /// The defaults the API server applies when it decodes a policy (kubernetes
    /// `pkg/apis/admissionregistration/v1` (and v1beta1, v1alpha1) `defaults.go`:
    /// `SetDefaults_ValidatingAdmissionPolicySpec` failurePolicy Fail,
    /// `SetDefaults_MatchResources`, `SetDefaults_Rule`).
    pub fn set_defaults(&mut self) {
        let spec = &mut self.spec;
        spec.failure_policy.get_or_insert(FailurePolicy::Fail);
        if let Some(constraints) = &mut spec.match_constraints {
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
    pub param_kind: Option<ParamKind>,
    pub match_constraints: Option<MatchResources>,
    pub validations: Vec<Validation>,
    pub failure_policy: Option<FailurePolicy>,
    pub audit_annotations: Vec<AuditAnnotation>,
    pub match_conditions: Vec<MatchCondition>,
    pub variables: Vec<Variable>,
}

/// The kind of the params resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParamKind {
    pub api_version: String,
    pub kind: String,
}

/// Which requests a policy or binding applies to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchResources {
    pub namespace_selector: Option<LabelSelector>,
    pub object_selector: Option<LabelSelector>,
    pub resource_rules: Vec<NamedRuleWithOperations>,
    pub exclude_resource_rules: Vec<NamedRuleWithOperations>,
    pub match_policy: Option<MatchPolicy>,
}

/// A rule with operations and optional resource names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NamedRuleWithOperations {
    pub resource_names: Vec<String>,
    pub operations: Vec<String>,
    pub api_groups: Vec<String>,
    pub api_versions: Vec<String>,
    pub resources: Vec<String>,
    /// `Cluster`, `Namespaced` or `*` (the default).
    pub scope: Option<String>,
}

/// `Exact` or `Equivalent` (the default). Any other text is kept (`Other`) so that
/// validation can report it as the API server does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchPolicy {
    Exact,
    Equivalent,
    #[serde(untagged)]
    Other(String),
}

/// A label selector (`matchLabels` and `matchExpressions`, all must hold).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    pub values: Vec<String>,
}

/// `Fail` (the default) or `Ignore`; any other text is kept (`Other`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailurePolicy {
    #[default]
    Fail,
    Ignore,
    #[serde(untagged)]
    Other(String),
}

/// One validation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Validation {
    pub expression: String,
    pub message: String,
    pub message_expression: String,
    /// `Unauthorized`, `Forbidden`, `Invalid` or `RequestEntityTooLarge`.
    pub reason: Option<String>,
}

/// An audit annotation: `key` and a CEL `valueExpression` (string or null).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuditAnnotation {
    pub key: String,
    pub value_expression: String,
}

/// A named CEL condition that must be true for the policy to apply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchCondition {
    pub name: String,
    pub expression: String,
}

/// A named CEL expression available as `variables.<name>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Variable {
    pub name: String,
    pub expression: String,
}

/// A ValidatingAdmissionPolicyBinding, defaulted as it is read
/// ([`ValidatingAdmissionPolicyBinding::set_defaults`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatingAdmissionPolicyBinding {
    /// `admissionregistration.k8s.io/v1` (or `v1beta1`, `v1alpha1`); empty means v1.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: BindingSpec,
}

impl<'de> Deserialize<'de> for ValidatingAdmissionPolicyBinding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Default, Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        struct Read {
            api_version: String,
            metadata: ObjectMeta,
            spec: BindingSpec,
        }
        let read = Read::deserialize(d)?;
        let mut binding = ValidatingAdmissionPolicyBinding {
            api_version: read.api_version,
            metadata: read.metadata,
            spec: read.spec,
        };
        binding.set_defaults();
        Ok(binding)
    }
}

impl ValidatingAdmissionPolicyBinding {
    /// The defaults the API server applies when it decodes a binding: its matchResources
    /// as a policy's ([`MatchResources::set_defaults`]), and, in `v1alpha1` only,
    /// `SetDefaults_ParamRef` (parameterNotFoundAction Deny). In v1 and v1beta1 the action
    /// has no default: a paramRef without one is a `Required value` error when written.
    pub fn set_defaults(&mut self) {
        if let Some(resources) = &mut self.spec.match_resources {
            resources.set_defaults();
        }
        if self.api_version == format!("{GROUP}/v1alpha1")
            && let Some(param_ref) = &mut self.spec.param_ref
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
    pub policy_name: String,
    pub param_ref: Option<ParamRef>,
    pub match_resources: Option<MatchResources>,
    pub validation_actions: Vec<ValidationAction>,
}

/// Which params object(s) a binding uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParamRef {
    pub name: String,
    pub namespace: String,
    pub selector: Option<LabelSelector>,
    pub parameter_not_found_action: Option<ParameterNotFoundAction>,
}

/// What to do when no params object is found; any other text is kept (`Other`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParameterNotFoundAction {
    Allow,
    Deny,
    #[serde(untagged)]
    Other(String),
}

/// What a failed validation does; any other text is kept (`Other`) and does nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValidationAction {
    Deny,
    Warn,
    Audit,
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
    pub group: String,
    pub version: String,
    pub kind: String,
}

/// Group, version and resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVersionResource {
    pub group: String,
    pub version: String,
    pub resource: String,
}

/// The requesting user (`authentication.k8s.io/v1` UserInfo).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserInfo {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub username: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

/// An admission request (`admission.k8s.io/v1` AdmissionRequest), with the objects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdmissionRequest {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    pub kind: GroupVersionKind,
    pub resource: GroupVersionResource,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sub_resource: String,
    /// Defaults to `kind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_kind: Option<GroupVersionKind>,
    /// Defaults to `resource`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_resource: Option<GroupVersionResource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_sub_resource: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    pub user_info: UserInfo,
    pub dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<serde_json::Value>,
    #[serde(skip_serializing)]
    pub object: Option<serde_json::Value>,
    #[serde(skip_serializing)]
    pub old_object: Option<serde_json::Value>,
}

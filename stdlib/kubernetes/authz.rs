//! `kubernetes.authz` and `kubernetes.authzSelectors`: authorization checks from CEL
//! (`authorizer.group('apps').resource('deployments').check('create').allowed()`), through
//! an [`Authorizer`] the embedder supplies (allow-all, deny-all and a rule list ship here).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Deserialize;

use super::selectors::{
    FieldRequirement, LabelRequirement, SelectorError, parse_field_selector, parse_label_selector,
};

use super::{est_one, opaque, opaque_arg, string_arg};
use kcel::library::{CallCost, CallEstimate, CostEstimate, EstimateArgs, SizeEstimate};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};
use kcel::{Opaque, Value};

/// `kubernetes.authorization.Authorizer`.
pub const AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
/// `kubernetes.authorization.PathCheck`.
pub(crate) const PATH_CHECK: &str = "kubernetes.authorization.PathCheck";
/// `kubernetes.authorization.GroupCheck`.
pub(crate) const GROUP_CHECK: &str = "kubernetes.authorization.GroupCheck";
/// `kubernetes.authorization.ResourceCheck`.
pub(crate) const RESOURCE_CHECK: &str = "kubernetes.authorization.ResourceCheck";
/// `kubernetes.authorization.Decision`.
pub(crate) const DECISION: &str = "kubernetes.authorization.Decision";

/// The cost of one authorization check: only two fit in the per-call limit.
pub(crate) const CHECK_COST: u64 = 350_000;

/// Who is asking. Deserialises from `{"name": ..., "groups": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UserInfo {
    /// The user's name.
    pub name: String,
    /// The groups the user is in.
    pub groups: Vec<String>,
}

/// The attributes of one authorization check (Kubernetes' `AttributesRecord`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzRequest {
    /// Who asks.
    pub user: UserInfo,
    /// The verb (`get`, `list`, `create`, ...).
    pub verb: String,
    /// True for resource checks, false for path (non-resource) checks.
    pub resource_request: bool,
    /// The path of a non-resource check (`/healthz`).
    pub path: String,
    /// The resource's API group (empty for the core group).
    pub api_group: String,
    /// Always `*` for checks made from CEL.
    pub api_version: String,
    /// The resource (`deployments`).
    pub resource: String,
    /// The subresource (`status`, `scale`), or empty.
    pub subresource: String,
    /// The namespace, or empty for cluster-wide checks.
    pub namespace: String,
    /// The object's name, or empty for checks of the whole collection.
    pub name: String,
    /// The field selector as written, if a non-empty one was given.
    pub field_selector: Option<String>,
    /// The label selector as written, if a non-empty one was given.
    pub label_selector: Option<String>,
    /// The field selector parsed as Kubernetes does when the check runs
    /// (`fields.ParseSelector(...).Requirements()`); empty without a selector or when it
    /// does not parse.
    pub field_selector_requirements: Vec<FieldRequirement>,
    /// Why the field selector does not parse (`FieldSelectorParsingErr`): the check still
    /// runs, without field requirements.
    pub field_selector_error: Option<SelectorError>,
    /// The label selector parsed as Kubernetes does (`labels.ParseToRequirements`).
    pub label_selector_requirements: Vec<LabelRequirement>,
    /// Why the label selector does not parse (`LabelSelectorParsingErr`).
    pub label_selector_error: Option<SelectorError>,
}

/// An authorizer's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    /// The request is allowed.
    Allow,
    /// The request is denied.
    Deny,
    /// The authorizer neither allows nor denies.
    NoOpinion,
}

/// A decision with its reason and error, as `check()` returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Allowed, denied, or no opinion.
    pub kind: DecisionKind,
    /// Why, as the authorizer words it.
    pub reason: String,
    /// The authorizer's error, if it failed.
    pub error: Option<String>,
}

impl Decision {
    /// A decision without error.
    pub fn new(kind: DecisionKind, reason: impl Into<String>) -> Decision {
        Decision {
            kind,
            reason: reason.into(),
            error: None,
        }
    }
}

/// The authorization backend that `check()` calls.
pub trait Authorizer: Send + Sync + fmt::Debug {
    /// The decision on one request.
    fn authorize(&self, request: &AuthzRequest) -> Decision;
}

/// Allows everything.
#[derive(Debug, Default)]
pub struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize(&self, _: &AuthzRequest) -> Decision {
        Decision::new(DecisionKind::Allow, "")
    }
}

/// Denies everything.
#[derive(Debug, Default)]
pub struct DenyAll;

impl Authorizer for DenyAll {
    fn authorize(&self, _: &AuthzRequest) -> Decision {
        Decision::new(DecisionKind::Deny, "")
    }
}

/// An RBAC-like rule: empty subject lists match everyone, `*` matches anything, and
/// resources may name a subresource as `resource/subresource`. Deserialises from RBAC's
/// spelling: `users`, `groups`, `verbs`, `apiGroups`, `resources`, `resourceNames`,
/// `namespaces`, `nonResourceURLs` (all lists of strings, all optional).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Rule {
    /// The users it applies to (empty: any).
    pub users: Vec<String>,
    /// The groups it applies to (empty: any).
    pub groups: Vec<String>,
    /// The verbs it allows.
    pub verbs: Vec<String>,
    /// The API groups of the resources it allows.
    pub api_groups: Vec<String>,
    /// The resources it allows (`pods`, `deployments/scale`).
    pub resources: Vec<String>,
    /// Empty: any name.
    pub resource_names: Vec<String>,
    /// Empty: any namespace (and cluster scope).
    pub namespaces: Vec<String>,
    /// Paths for non-resource checks; a trailing `*` matches a prefix.
    #[serde(rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
}

fn any(list: &[String], v: &str) -> bool {
    list.iter().any(|x| x == "*" || x == v)
}

impl Rule {
    /// Whether the rule allows the request.
    pub fn matches(&self, r: &AuthzRequest) -> bool {
        let subject = (self.users.is_empty() && self.groups.is_empty())
            || any(&self.users, &r.user.name)
            || r.user.groups.iter().any(|g| any(&self.groups, g));
        if !subject || !any(&self.verbs, &r.verb) {
            return false;
        }
        if !r.resource_request {
            return self
                .non_resource_urls
                .iter()
                .any(|u| match u.strip_suffix('*') {
                    Some(prefix) => r.path.starts_with(prefix),
                    None => *u == r.path,
                });
        }
        let resource = if r.subresource.is_empty() {
            r.resource.clone()
        } else {
            format!("{}/{}", r.resource, r.subresource)
        };
        any(&self.api_groups, &r.api_group)
            && any(&self.resources, &resource)
            && (self.resource_names.is_empty() || any(&self.resource_names, &r.name))
            && (self.namespaces.is_empty() || any(&self.namespaces, &r.namespace))
    }
}

/// Allows what one of its rules allows; otherwise has no opinion (which is not allowed).
/// Deserialises from `{"rules": [Rule...]}`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleAuthorizer {
    /// The rules, tried in order: the first that matches allows.
    pub rules: Vec<Rule>,
}

impl RuleAuthorizer {
    /// Reads a rule list from JSON (`{"rules": [{"verbs": ["get"], "resources": ["pods"]}]}`,
    /// fields as [`Rule`] spells them); errors name the offending field.
    pub fn from_json(json: &serde_json::Value) -> Result<RuleAuthorizer, serde_json::Error> {
        RuleAuthorizer::deserialize(json)
    }
}

impl UserInfo {
    /// Reads `{"name": "ada", "groups": ["dev"]}` (both optional).
    pub fn from_json(json: &serde_json::Value) -> Result<UserInfo, serde_json::Error> {
        UserInfo::deserialize(json)
    }
}

impl Authorizer for RuleAuthorizer {
    fn authorize(&self, request: &AuthzRequest) -> Decision {
        match self.rules.iter().position(|r| r.matches(request)) {
            Some(i) => Decision::new(DecisionKind::Allow, format!("allowed by rule {i}")),
            None => Decision::new(DecisionKind::NoOpinion, ""),
        }
    }
}

/// The library values, one variant per CEL type.
#[derive(Clone, Debug)]
enum AuthzValue {
    Authorizer {
        user: UserInfo,
        authorizer: Arc<dyn Authorizer>,
    },
    Path {
        user: UserInfo,
        authorizer: Arc<dyn Authorizer>,
        path: String,
    },
    Group {
        user: UserInfo,
        authorizer: Arc<dyn Authorizer>,
        group: String,
    },
    Resource {
        authorizer: Arc<dyn Authorizer>,
        request: Box<AuthzRequest>,
    },
    Decision(Decision),
}

impl Opaque for AuthzValue {
    fn type_name(&self) -> &str {
        match self {
            AuthzValue::Authorizer { .. } => AUTHORIZER,
            AuthzValue::Path { .. } => PATH_CHECK,
            AuthzValue::Group { .. } => GROUP_CHECK,
            AuthzValue::Resource { .. } => RESOURCE_CHECK,
            AuthzValue::Decision(_) => DECISION,
        }
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        // Upstream values are receiver-only objects: they equal nothing but themselves.
        std::ptr::addr_eq(self.as_any(), other.as_any())
    }
    fn equal_to(&self, _: &Value) -> Option<bool> {
        // Upstream's `receiverOnlyObjectVal.Equal` asserts the other value is a bare
        // `receiverOnlyObjectVal`, which no library value is (each embeds one): `==` on these
        // types is always `no such overload`.
        None
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        self.type_name().to_string()
    }
}

/// The value of the `authorizer` variable: checks run as `user` through `authorizer`.
pub fn authorizer_value(user: UserInfo, authorizer: Arc<dyn Authorizer>) -> Value {
    opaque(AuthzValue::Authorizer { user, authorizer })
}

/// The value of `authorizer.requestResource`: a resource check for the request's resource.
pub(crate) fn request_resource_value(
    user: UserInfo,
    authorizer: Arc<dyn Authorizer>,
    request: AuthzRequest,
) -> Value {
    opaque(AuthzValue::Resource {
        authorizer,
        request: Box::new(AuthzRequest {
            user,
            resource_request: true,
            api_version: "*".into(),
            ..request
        }),
    })
}

/// Builds `kubernetes.authz`.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.authz", 0);
    for t in [
        AUTHORIZER,
        PATH_CHECK,
        GROUP_CHECK,
        RESOURCE_CHECK,
        DECISION,
    ] {
        lib.opaque_type(t);
    }
    let one = CallCost::Fixed(1);
    overloads!(lib.function("path", "A check of a non-resource path (e.g. '/healthz').");
        member "authorizer_path" (AUTHORIZER, "string") -> PATH_CHECK
            => Implementation::Binary(path), cost: one, estimate: est_one;
    );
    overloads!(lib.function("group", "A check in an API group ('' is the core group).");
        member "authorizer_group" (AUTHORIZER, "string") -> GROUP_CHECK
            => Implementation::Binary(group), cost: one, estimate: est_one;
    );
    overloads!(lib.function(
        "serviceAccount",
        "An authorizer that checks as the service account (namespace, name).",
    );
        member "authorizer_serviceaccount" (AUTHORIZER, "string", "string") -> AUTHORIZER
            => Implementation::Nary(service_account), cost: one, estimate: est_one;
    );
    overloads!(lib.function("resource", "A check of a resource in the group.");
        member "groupcheck_resource" (GROUP_CHECK, "string") -> RESOURCE_CHECK
            => Implementation::Binary(resource), cost: one, estimate: est_one;
    );
    for (name, id, doc) in [
        (
            "subresource",
            "resourcecheck_subresource",
            "Sets the subresource ('' for none).",
        ),
        (
            "namespace",
            "resourcecheck_namespace",
            "Sets the namespace ('' for cluster scope).",
        ),
        (
            "name",
            "resourcecheck_name",
            "Sets the resource name ('' for all).",
        ),
    ] {
        lib.function(name, doc)
            .member(
                id,
                &[RESOURCE_CHECK, "string"],
                RESOURCE_CHECK,
                Implementation::Closure(setter(name)),
            )
            .cost(one)
            .estimate(est_one);
    }
    overloads!(lib.function(
        "check",
        "Asks the authorizer whether the verb is allowed: a Decision.",
    );
        member "pathcheck_check" (PATH_CHECK, "string") -> DECISION
            => Implementation::Binary(check),
            cost: CallCost::Fixed(CHECK_COST),
            estimate: est_check;
        member "resourcecheck_check" (RESOURCE_CHECK, "string") -> DECISION
            => Implementation::Binary(check),
            cost: CallCost::Fixed(CHECK_COST),
            estimate: est_check;
    );
    type Accessor = fn(&Decision) -> Value;
    let accessors: [(&str, &str, &str, &str, Accessor); 4] = [
        (
            "allowed",
            "decision_allowed",
            "bool",
            "Whether the check was allowed.",
            |d| Value::Bool(d.kind == DecisionKind::Allow),
        ),
        (
            "errored",
            "decision_errored",
            "bool",
            "Whether the check failed with an error.",
            |d| Value::Bool(d.error.is_some()),
        ),
        (
            "error",
            "decision_error",
            "string",
            "The check's error, or ''.",
            |d| Value::from(d.error.clone().unwrap_or_default()),
        ),
        (
            "reason",
            "decision_reason",
            "string",
            "The authorizer's reason.",
            |d| Value::from(d.reason.as_str()),
        ),
    ];
    for (name, id, result, doc, f) in accessors {
        lib.function(name, doc)
            .member(
                id,
                &[DECISION],
                result,
                Implementation::Closure(Arc::new(move |args: &[Value]| decision_of(args).map(f))),
            )
            .cost(one)
            .estimate(est_one);
    }
    lib
}

/// Builds `kubernetes.authzSelectors`.
pub(crate) fn selectors_library() -> Library {
    let mut lib = Library::new("kubernetes.authzSelectors", 0);
    for (name, id, doc) in [
        (
            "fieldSelector",
            "authorizer_fieldselector",
            "Attaches a field selector to the check; it is parsed when the check runs, and a parse error goes to the authorizer (the check still runs).",
        ),
        (
            "labelSelector",
            "authorizer_labelselector",
            "Attaches a label selector to the check; it is parsed when the check runs, and a parse error goes to the authorizer (the check still runs).",
        ),
    ] {
        lib.function(name, doc)
            .member(
                id,
                &[RESOURCE_CHECK, "string"],
                RESOURCE_CHECK,
                Implementation::Closure(setter(name)),
            )
            .cost(CallCost::Custom(selector_cost))
            .estimate(selector_estimate);
    }
    lib
}

fn authz(v: &Value) -> Result<&AuthzValue, EvalError> {
    opaque_arg::<AuthzValue>(v)
}

fn decision_of(args: &[Value]) -> Result<&Decision, EvalError> {
    match args {
        [v] => match authz(v)? {
            AuthzValue::Decision(d) => Ok(d),
            _ => Err(EvalError::no_such_overload()),
        },
        _ => Err(EvalError::no_such_overload()),
    }
}

fn principal(v: &Value) -> Result<(&UserInfo, &Arc<dyn Authorizer>), EvalError> {
    match authz(v)? {
        AuthzValue::Authorizer { user, authorizer } => Ok((user, authorizer)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `authorizer.path(p)`.
fn path(a: &Value, p: &Value) -> EvalResult {
    let (user, authorizer) = principal(a)?;
    let p = string_arg(p)?;
    if p.trim().is_empty() {
        return Err(EvalError::new("path must not be empty"));
    }
    Ok(opaque(AuthzValue::Path {
        user: user.clone(),
        authorizer: authorizer.clone(),
        path: p.to_string(),
    }))
}

/// `authorizer.group(g)`.
fn group(a: &Value, g: &Value) -> EvalResult {
    let (user, authorizer) = principal(a)?;
    Ok(opaque(AuthzValue::Group {
        user: user.clone(),
        authorizer: authorizer.clone(),
        group: string_arg(g)?.to_string(),
    }))
}

/// `authorizer.serviceAccount(namespace, name)`.
fn service_account(args: &[Value]) -> EvalResult {
    let [a, ns, name] = args else {
        return Err(EvalError::no_such_overload());
    };
    let (_, authorizer) = principal(a)?;
    let (ns, name) = (string_arg(ns)?, string_arg(name)?);
    if !(super::named_formats::FORMATS[1].validate)(name).is_empty() {
        return Err(EvalError::new("Invalid service account name"));
    }
    if !(super::named_formats::FORMATS[0].validate)(ns).is_empty() {
        return Err(EvalError::new("Invalid service account namespace"));
    }
    Ok(opaque(AuthzValue::Authorizer {
        user: UserInfo {
            name: format!("system:serviceaccount:{ns}:{name}"),
            groups: vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{ns}"),
            ],
        },
        authorizer: authorizer.clone(),
    }))
}

/// `groupCheck.resource(r)`.
fn resource(g: &Value, r: &Value) -> EvalResult {
    let AuthzValue::Group {
        user,
        authorizer,
        group,
    } = authz(g)?
    else {
        return Err(EvalError::no_such_overload());
    };
    let r = string_arg(r)?;
    if r.trim().is_empty() {
        return Err(EvalError::new("resource must not be empty"));
    }
    Ok(opaque(AuthzValue::Resource {
        authorizer: authorizer.clone(),
        request: Box::new(AuthzRequest {
            user: user.clone(),
            resource_request: true,
            api_group: group.clone(),
            api_version: "*".into(),
            resource: r.to_string(),
            ..AuthzRequest::default()
        }),
    }))
}

/// A resource-check builder setting one field.
fn setter(field: &'static str) -> kcel::library::SharedFn {
    Arc::new(move |args: &[Value]| {
        let [c, v] = args else {
            return Err(EvalError::no_such_overload());
        };
        let AuthzValue::Resource {
            authorizer,
            request,
        } = authz(c)?
        else {
            return Err(EvalError::no_such_overload());
        };
        let v = string_arg(v)?.to_string();
        let mut request = request.clone();
        match field {
            "subresource" => request.subresource = v,
            "namespace" => request.namespace = v,
            "name" => request.name = v,
            "fieldSelector" => request.field_selector = Some(v).filter(|s| !s.is_empty()),
            _ => request.label_selector = Some(v).filter(|s| !s.is_empty()),
        }
        Ok(opaque(AuthzValue::Resource {
            authorizer: authorizer.clone(),
            request,
        }))
    })
}

/// `pathCheck.check(verb)` / `resourceCheck.check(verb)`.
fn check(c: &Value, verb: &Value) -> EvalResult {
    let verb = string_arg(verb)?.to_string();
    let (authorizer, request) = match authz(c)? {
        AuthzValue::Path {
            user,
            authorizer,
            path,
        } => (
            authorizer,
            AuthzRequest {
                user: user.clone(),
                path: path.clone(),
                verb,
                ..AuthzRequest::default()
            },
        ),
        AuthzValue::Resource {
            authorizer,
            request,
        } => {
            let mut request = AuthzRequest {
                verb,
                ..(**request).clone()
            };
            // As `resourceCheckVal.Authorize`: selectors are parsed here and a parse error
            // is handed to the authorizer, never raised.
            if let Some(s) = &request.field_selector {
                match parse_field_selector(s) {
                    Ok(r) => request.field_selector_requirements = r,
                    Err(e) => request.field_selector_error = Some(e),
                }
            }
            if let Some(s) = &request.label_selector {
                match parse_label_selector(s) {
                    Ok(r) => request.label_selector_requirements = r,
                    Err(e) => request.label_selector_error = Some(e),
                }
            }
            (authorizer, request)
        }
        _ => return Err(EvalError::no_such_overload()),
    };
    Ok(opaque(AuthzValue::Decision(authorizer.authorize(&request))))
}

fn est_check(_: &EstimateArgs<'_>) -> CallEstimate {
    CallEstimate {
        cost: CostEstimate::fixed(CHECK_COST),
        result_size: None,
    }
}

/// `10 + ⌈L × 0.1⌉ + ⌈⌈L × 0.5⌉ × 50⌉` for a selector of length L.
fn selector_cost_estimate(len: SizeEstimate) -> CostEstimate {
    let parse = len.times_factor(kcel::library::STRING_TRAVERSAL_FACTOR);
    let requirements = len.times_factor(0.5);
    let per_requirement = (kcel::library::LIST_CREATE + kcel::library::STRUCT_CREATE) as f64;
    let requirement_cost = CostEstimate {
        min: super::ceil_cost(requirements.min, per_requirement),
        max: (requirements.max as f64 * per_requirement)
            .ceil()
            .min(u64::MAX as f64) as u64,
    };
    CostEstimate::fixed(kcel::library::LIST_CREATE) + parse + requirement_cost
}

fn selector_cost(args: &[Value], _: Option<&Value>) -> u64 {
    let len = args.get(1).map_or(0, kcel::library::actual_size);
    selector_cost_estimate(SizeEstimate::fixed(len)).max
}

fn selector_estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let len = a.args.first().map_or(SizeEstimate::UNKNOWN, |n| a.size(n));
    CallEstimate {
        cost: selector_cost_estimate(len),
        result_size: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_lists_deserialise_with_rbac_spelling() {
        let json = serde_json::json!({"rules": [
            {"groups": ["dev"], "verbs": ["get", "list"], "apiGroups": ["apps"],
             "resources": ["deployments", "deployments/scale"], "resourceNames": ["web"],
             "namespaces": ["default"]},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz*"]}
        ]});
        let authorizer = RuleAuthorizer::from_json(&json).unwrap();
        assert_eq!(authorizer.rules.len(), 2);
        assert_eq!(authorizer.rules[0].api_groups, ["apps"]);
        assert_eq!(authorizer.rules[1].non_resource_urls, ["/healthz*"]);
        let request = AuthzRequest {
            user: UserInfo::from_json(&serde_json::json!({"name": "ada", "groups": ["dev"]}))
                .unwrap(),
            verb: "list".into(),
            resource_request: true,
            api_group: "apps".into(),
            resource: "deployments".into(),
            namespace: "default".into(),
            name: "web".into(),
            ..AuthzRequest::default()
        };
        assert_eq!(authorizer.authorize(&request).kind, DecisionKind::Allow);
        let err = RuleAuthorizer::from_json(&serde_json::json!({"rules": [{"verb": ["get"]}]}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `verb`"), "{err}");
        assert!(RuleAuthorizer::from_json(&serde_json::json!({"rules": 3})).is_err());
        assert!(UserInfo::from_json(&serde_json::json!({"name": 1})).is_err());
    }
}

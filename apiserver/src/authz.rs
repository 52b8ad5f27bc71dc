//! Users and authorization: `--token-auth-file` (kube-apiserver's CSV:
//! `token,user,uid,"group1,group2"`), `--authorization-rules` (the YAML or JSON rule file of
//! `kcel --authorizer @PATH`, read by the same `kcel_stdlib::kubernetes::authz::RuleAuthorizer`)
//! and RBAC ([`crate::rbac`]: the stored Roles, ClusterRoles and their bindings).
//!
//! `system:masters` may do everything (the admin token's user is in it; kube-apiserver's
//! privileged-group authorizer). Anything else is asked of the authorizers in order, as
//! kube-apiserver's union of `--authorization-mode`s: the rule file, then RBAC; the first that
//! allows or denies decides (RBAC never denies). What every user may do (read discovery,
//! OpenAPI, version and health; create SelfSubjectAccessReviews) comes from the default
//! ClusterRoles and bindings the server makes at start ([`crate::rbac::bootstrap`]), as
//! upstream's. Without an allow the request is 403 Forbidden with kube-apiserver's text, the
//! authorizers' reasons (one a line) appended.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use kcel_stdlib::kubernetes::authz::{
    Authorizer as _, AuthzRequest, Decision, DecisionKind, RuleAuthorizer, UserInfo,
};

use serde_json::{Value, json};

use crate::access_request::{Attributes, MASTERS, User};
use crate::error::ApiError;
use crate::rbac::Rbac;
use crate::status::StatusDetails;

/// A token or rule file the server cannot use: `<path>: <problem>`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct AuthFileError {
    /// The file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub problem: AuthFileProblem,
}

/// What is wrong with a token or rule file.
#[derive(Debug, thiserror::Error)]
pub enum AuthFileProblem {
    /// It cannot be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A token line with fewer than three columns.
    #[error("line {0}: expected at least 3 columns (token,user,uid)")]
    Columns(usize),
    /// A token line without a token or user.
    #[error("line {0}: empty token or user")]
    EmptyTokenOrUser(usize),
    /// A rule file that is not YAML.
    #[error(transparent)]
    Yaml(#[from] serde_norway::Error),
    /// Rules that do not decode.
    #[error(transparent)]
    Rules(#[from] serde_json::Error),
}

impl AuthFileProblem {
    fn at(self, path: &Path) -> AuthFileError {
        AuthFileError {
            path: path.to_path_buf(),
            problem: self,
        }
    }
}

/// Reads a token file: one `token,user,uid[,"group1,group2"]` line per user.
pub fn read_token_file(path: &Path) -> Result<HashMap<String, User>, AuthFileError> {
    let text = std::fs::read_to_string(path).map_err(|e| AuthFileProblem::from(e).at(path))?;
    parse_tokens(&text).map_err(|e| e.at(path))
}

/// Parses the token file's CSV.
pub fn parse_tokens(text: &str) -> Result<HashMap<String, User>, AuthFileProblem> {
    let mut users = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.splitn(4, ',');
        let mut next = || fields.next().map(|f| f.trim().trim_matches('"').to_owned());
        let (Some(token), Some(name), Some(uid)) = (next(), next(), next()) else {
            return Err(AuthFileProblem::Columns(i + 1));
        };
        if token.is_empty() || name.is_empty() {
            return Err(AuthFileProblem::EmptyTokenOrUser(i + 1));
        }
        let mut groups: Vec<String> = next()
            .map(|g| {
                g.split(',')
                    .map(|g| g.trim().to_owned())
                    .filter(|g| !g.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        groups.push("system:authenticated".to_owned());
        users.insert(
            token,
            User {
                name,
                uid,
                groups,
                extra: BTreeMap::new(),
            },
        );
    }
    Ok(users)
}

/// Reads a rule file in `kcel --authorizer @PATH`'s format (a `user` key, if any, is ignored:
/// the server knows who asks).
pub fn read_rules(path: &Path) -> Result<RuleAuthorizer, AuthFileError> {
    let text = std::fs::read_to_string(path).map_err(|e| AuthFileProblem::from(e).at(path))?;
    let mut json: serde_json::Value =
        serde_norway::from_str(&text).map_err(|e| AuthFileProblem::from(e).at(path))?;
    if let Some(object) = json.as_object_mut() {
        object.remove("user");
    }
    RuleAuthorizer::from_json(&json).map_err(|e| AuthFileProblem::from(e).at(path))
}

/// What a SelfSubjectRulesReview lists (upstream's `RulesFor` of the authorizers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RulesFor {
    /// The `ResourceRule`s.
    pub resource_rules: Vec<Value>,
    /// The `NonResourceRule`s.
    pub non_resource_rules: Vec<Value>,
    /// Why the list may be short (RBAC's role references that did not resolve), or empty.
    pub evaluation_error: String,
}

/// Decides requests: masters, then the rules, then RBAC.
#[derive(Debug, Default)]
pub struct Authz {
    rules: Option<RuleAuthorizer>,
    rbac: Arc<Rbac>,
}

impl Authz {
    /// An authorizer with these rules (none: only masters and RBAC) and no RBAC objects.
    pub fn new(rules: Option<RuleAuthorizer>) -> Self {
        Authz::with_rbac(rules, Arc::default())
    }

    /// An authorizer with these rules and the RBAC objects `rbac` holds.
    pub fn with_rbac(rules: Option<RuleAuthorizer>, rbac: Arc<Rbac>) -> Self {
        Authz { rules, rbac }
    }

    /// The RBAC objects it reads.
    pub fn rbac(&self) -> &Arc<Rbac> {
        &self.rbac
    }

    /// The rules that apply to `user` in `namespace`, as a SelfSubjectRulesReview lists them:
    /// the rule file's, then RBAC's (upstream's union of the authorizers' rule resolvers; a
    /// member of `system:masters` has `cluster-admin`'s through its default binding).
    pub fn rules_for(&self, user: &User, namespace: &str) -> RulesFor {
        let mut resource_rules = Vec::new();
        let mut non_resource_rules = Vec::new();
        let file_rules = self.rules.iter().flat_map(|r| &r.rules);
        for rule in file_rules {
            let subject = (rule.users.is_empty() && rule.groups.is_empty())
                || rule.users.iter().any(|u| u == "*" || *u == user.name)
                || user
                    .groups
                    .iter()
                    .any(|g| rule.groups.iter().any(|r| r == "*" || r == g));
            if !subject {
                continue;
            }
            if !rule.non_resource_urls.is_empty() {
                non_resource_rules.push(non_resource_rule(&rule.verbs, &rule.non_resource_urls));
            }
            let in_namespace = rule.namespaces.is_empty()
                || rule.namespaces.iter().any(|n| n == "*" || n == namespace);
            if !rule.resources.is_empty() && in_namespace {
                resource_rules.push(resource_rule(
                    &rule.verbs,
                    &rule.api_groups,
                    &rule.resources,
                    &rule.resource_names,
                ));
            }
        }
        // RBAC's `RulesFor`: a rule with resources is a resource rule, one with URLs a
        // non-resource rule (a rule may be both).
        let (rbac_rules, unresolved) = self.rbac.current().rules_for(user, namespace);
        for rule in rbac_rules {
            if !rule.resources.is_empty() {
                resource_rules.push(resource_rule(
                    &rule.verbs,
                    &rule.api_groups,
                    &rule.resources,
                    &rule.resource_names,
                ));
            }
            if !rule.non_resource_urls.is_empty() {
                non_resource_rules.push(non_resource_rule(&rule.verbs, &rule.non_resource_urls));
            }
        }
        let unresolved: Vec<String> = unresolved.iter().map(ToString::to_string).collect();
        RulesFor {
            resource_rules,
            non_resource_rules,
            evaluation_error: if unresolved.is_empty() {
                String::new()
            } else {
                crate::rbac::resolver::aggregate(&unresolved)
            },
        }
    }

    /// Whether `user` may do what `attrs` say, and why.
    pub fn decide(&self, user: &User, attrs: &Attributes) -> (bool, String) {
        let decision = self.decision(user, attrs);
        (decision.kind == DecisionKind::Allow, decision.reason)
    }

    /// The decision on what `attrs` say `user` does: the first authorizer that allows or
    /// denies, else no opinion with every authorizer's reason, one a line (the union
    /// authorizer of kube-apiserver's `--authorization-mode` list).
    pub fn decision(&self, user: &User, attrs: &Attributes) -> Decision {
        if user.groups.iter().any(|g| g == MASTERS) {
            return Decision::new(DecisionKind::Allow, "");
        }
        let mut reasons = Vec::new();
        if let Some(rules) = &self.rules {
            let decision = rules.authorize(&rule_request(user, attrs));
            if decision.kind != DecisionKind::NoOpinion {
                return decision;
            }
            reasons.push(decision.reason);
        }
        let decision = self.rbac.current().authorize(user, attrs);
        if decision.kind != DecisionKind::NoOpinion {
            return decision;
        }
        reasons.push(decision.reason);
        reasons.retain(|r| !r.is_empty());
        Decision::new(DecisionKind::NoOpinion, reasons.join("\n"))
    }
}

/// A SelfSubjectRulesReview's `ResourceRule` (`resourceNames` only when it has some).
fn resource_rule(
    verbs: &[String],
    api_groups: &[String],
    resources: &[String],
    resource_names: &[String],
) -> Value {
    let mut entry = json!({"verbs": verbs, "apiGroups": api_groups, "resources": resources});
    if !resource_names.is_empty() {
        entry["resourceNames"] = json!(resource_names);
    }
    entry
}

/// A SelfSubjectRulesReview's `NonResourceRule`.
fn non_resource_rule(verbs: &[String], urls: &[String]) -> Value {
    json!({"verbs": verbs, "nonResourceURLs": urls})
}

/// The request as the rule file's authorizer reads it.
fn rule_request(user: &User, attrs: &Attributes) -> AuthzRequest {
    AuthzRequest {
        user: UserInfo {
            name: user.name.clone(),
            groups: user.groups.clone(),
        },
        verb: attrs.verb.clone(),
        resource_request: attrs.resource_request,
        path: attrs.path.clone(),
        api_group: attrs.group.clone(),
        api_version: attrs.version.clone(),
        resource: attrs.resource.clone(),
        subresource: attrs.subresource.clone(),
        namespace: attrs.namespace.clone(),
        name: attrs.name.clone(),
        ..AuthzRequest::default()
    }
}

/// kube-apiserver's 403 for a denied request (responsewriters `ForbiddenStatusError`).
pub fn forbidden(user: &User, attrs: &Attributes, reason: &str) -> ApiError {
    let mut text = if !attrs.resource_request {
        format!(
            "User {:?} cannot {} path {:?}",
            user.name, attrs.verb, attrs.path
        )
    } else {
        let resource = if attrs.subresource.is_empty() {
            attrs.resource.clone()
        } else {
            format!("{}/{}", attrs.resource, attrs.subresource)
        };
        if attrs.namespace.is_empty() {
            format!(
                "User {:?} cannot {} resource {resource:?} in API group {:?} at the cluster scope",
                user.name, attrs.verb, attrs.group
            )
        } else {
            format!(
                "User {:?} cannot {} resource {resource:?} in API group {:?} in the namespace {:?}",
                user.name, attrs.verb, attrs.group, attrs.namespace
            )
        }
    };
    // responsewriters' sanitizer: nothing in the text may look like HTML.
    text = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    if !reason.is_empty() {
        text = format!("{text}: {reason}");
    }
    let qualified = match (attrs.resource.as_str(), attrs.group.as_str()) {
        ("", _) => String::new(),
        (r, "") => r.to_owned(),
        (r, g) => format!("{r}.{g}"),
    };
    let message = match (qualified.is_empty(), attrs.name.is_empty()) {
        (true, _) => format!("forbidden: {text}"),
        (false, true) => format!("{qualified} is forbidden: {text}"),
        (false, false) => format!("{qualified} {:?} is forbidden: {text}", attrs.name),
    };
    ApiError {
        code: 403,
        reason: "Forbidden",
        message,
        details: Some(Box::new(StatusDetails {
            name: attrs.name.clone(),
            group: attrs.group.clone(),
            kind: attrs.resource.clone(),
            ..StatusDetails::default()
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access_request::attributes;

    fn bob() -> User {
        User {
            name: "bob".to_owned(),
            uid: "2".to_owned(),
            groups: vec!["dev".to_owned(), "system:authenticated".to_owned()],
            extra: BTreeMap::new(),
        }
    }

    #[test]
    fn token_files_are_kube_apiservers_csv() {
        let users =
            parse_tokens("t1,alice,1\nt2,bob,2,\"dev\"\n\n# c\nt3,carol,3,\"a,b\"\n").unwrap();
        assert_eq!(users["t2"], bob());
        assert_eq!(users["t3"].groups, ["a", "b", "system:authenticated"]);
        assert_eq!(users["t1"].groups, ["system:authenticated"]);
        assert!(parse_tokens("onlytoken\n").is_err());
    }

    /// An authorizer with `rules` over a store with the default RBAC objects, and the store.
    fn bootstrapped(rules: Option<RuleAuthorizer>) -> (Authz, Arc<dyn crate::storage::Storage>) {
        let rbac = Arc::new(Rbac::default());
        let store = crate::storage::reloading::track(
            Arc::new(crate::storage::memory::MemoryStorage::new()),
            rbac.clone(),
        )
        .unwrap();
        crate::rbac::bootstrap::ensure_bootstrap_policy(&*store).unwrap();
        (Authz::with_rbac(rules, rbac), store)
    }

    #[test]
    fn denials_use_upstreams_text() {
        let (authz, _store) = bootstrapped(Some(
            RuleAuthorizer::from_json(&serde_json::json!({"rules": [
                {"users": ["bob"], "verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"],
                 "namespaces": ["default"]}
            ]}))
            .unwrap(),
        ));
        let get = attributes("GET", "/api/v1/namespaces/default/configmaps/x", "");
        assert!(authz.decide(&bob(), &get).0);
        let list = attributes("GET", "/api/v1/namespaces/default/configmaps", "");
        assert!(!authz.decide(&bob(), &list).0);
        assert_eq!(
            forbidden(&bob(), &list, "").message,
            "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\""
        );
        let ns = attributes("DELETE", "/api/v1/namespaces/x", "");
        assert_eq!(
            forbidden(&bob(), &ns, "").message,
            "namespaces \"x\" is forbidden: User \"bob\" cannot delete resource \"namespaces\" in API group \"\" in the namespace \"x\""
        );
        let metrics = attributes("GET", "/metrics", "");
        assert!(!authz.decide(&bob(), &metrics).0);
        assert_eq!(
            forbidden(&bob(), &metrics, "").message,
            "forbidden: User \"bob\" cannot get path \"/metrics\""
        );
        // Discovery and self reviews: the default roles, with RBAC's reason as upstream's.
        assert_eq!(
            authz.decide(&bob(), &attributes("GET", "/apis", "")),
            (
                true,
                "RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \
                 \"system:discovery\" to Group \"system:authenticated\""
                    .to_owned()
            )
        );
        let review = attributes(
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "",
        );
        assert_eq!(
            authz.decide(&bob(), &review),
            (
                true,
                "RBAC: allowed by ClusterRoleBinding \"system:basic-user\" of ClusterRole \
                 \"system:basic-user\" to Group \"system:authenticated\""
                    .to_owned()
            )
        );
        assert!(authz.decide(&User::admin(), &metrics).0);
        // Without the default roles nothing is open but to masters.
        let bare = Authz::new(None);
        assert!(!bare.decide(&bob(), &attributes("GET", "/apis", "")).0);
    }

    #[test]
    fn rbac_answers_after_the_rule_file() {
        let rules = RuleAuthorizer::from_json(&json!({"rules": [
            {"users": ["bob"], "verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}
        ]}))
        .unwrap();
        let (authz, store) = bootstrapped(Some(rules));
        let get = attributes("GET", "/api/v1/namespaces/default/configmaps/x", "");
        let list = attributes("GET", "/api/v1/namespaces/default/configmaps", "");
        assert_eq!(
            authz.decide(&bob(), &get),
            (true, "allowed by rule 0".to_owned())
        );
        assert_eq!(authz.decide(&bob(), &list), (false, String::new()));
        let binding = json!({"metadata": {"name": "dev-list", "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "lister"},
            "subjects": [{"kind": "Group", "name": "dev"}]});
        let key = crate::storage::keys::namespaced("rolebindings", "default", "dev-list");
        store
            .create(&key, &serde_json::to_vec(&binding).unwrap())
            .unwrap();
        // The binding's ClusterRole is missing: no opinion, RBAC's reason in the 403 and
        // the rules review's evaluationError.
        assert_eq!(
            authz.rules_for(&bob(), "default").evaluation_error,
            "clusterrole.rbac.authorization.k8s.io \"lister\" not found"
        );
        let (allowed, reason) = authz.decide(&bob(), &list);
        assert!(!allowed);
        assert_eq!(
            forbidden(&bob(), &list, &reason).message,
            "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\": RBAC: clusterrole.rbac.authorization.k8s.io \"lister\" not found"
        );
        let role = json!({"metadata": {"name": "lister"},
            "rules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"]}]});
        store
            .create(
                &crate::storage::keys::cluster("clusterroles", "lister"),
                &serde_json::to_vec(&role).unwrap(),
            )
            .unwrap();
        assert_eq!(
            authz.decide(&bob(), &list),
            (
                true,
                "RBAC: allowed by RoleBinding \"dev-list/default\" of ClusterRole \"lister\" to Group \"dev\"".to_owned()
            )
        );
        // The binding is namespaced: other namespaces stay closed.
        let elsewhere = attributes("GET", "/api/v1/namespaces/other/configmaps", "");
        assert!(!authz.decide(&bob(), &elsewhere).0);
        let rules = authz.rules_for(&bob(), "default");
        assert_eq!(rules.evaluation_error, "");
        assert!(
            rules.resource_rules.contains(
                &json!({"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"]})
            )
        );
    }
}

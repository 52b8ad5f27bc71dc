//! User impersonation: the `Impersonate-User`, `Impersonate-Uid`, `Impersonate-Group`
//! (repeatable) and `Impersonate-Extra-<key>` headers (kubectl's `--as`, `--as-uid`,
//! `--as-group`), as kube-apiserver 1.36+ serves them with its `ConstrainedImpersonation`
//! gate on by default (k8s.io/apiserver `pkg/endpoints/filters/impersonation/`:
//! `constrained_impersonation.go` `processImpersonationHeaders` and `getImpersonatedUser`,
//! `mode.go` for the modes and their checks).
//!
//! The requesting user must be authorized for each impersonated attribute. The modes are
//! tried in upstream's order, the first that allows the impersonation wins, and when none
//! does the request gets the first mode's 403:
//!
//! - `arbitrary-node` (only a user name `system:node:<node>`): `impersonate-on:arbitrary-node:<verb>`
//!   on the request itself, then `impersonate:arbitrary-node` on `nodes` `<node>` in
//!   `authentication.k8s.io`; the user's groups are `system:nodes`;
//! - `serviceaccount` (only a user name `system:serviceaccount:<ns>:<name>`): likewise with
//!   `serviceaccounts` `<name>` in `<ns>`; the groups are the service account's;
//! - `user-info` (any other user name): `impersonate-on:user-info:<verb>`, then
//!   `impersonate:user-info` on `users`, `uids`, `groups` and `userextras/<key>` in
//!   `authentication.k8s.io` (never the group `system:masters` nor an empty group; extra keys
//!   domain-prefixed paths; four or more groups or extra values first try the name `*`);
//! - legacy: `impersonate` on `users`, `groups` and `serviceaccounts` in the core group and
//!   `uids`, `userextras/<key>` in `authentication.k8s.io`, as before 1.35.
//!
//! Upstream's first mode, `associated-node` (a service account impersonating the node its
//! token is bound to), never applies here: it needs the requester's
//! `authentication.kubernetes.io/node-name` extra, which no bearer token of this server
//! carries. Upstream's short-lived caches of successful checks are not kept (the rules do
//! not change while the server runs, so they would not change an answer); the mode that last
//! succeeded for a requester is remembered and tried first, as upstream does, since which
//! mode fails first decides the 403's text.
//!
//! The impersonated user is `system:authenticated` unless `system:unauthenticated` is asked
//! for (`system:anonymous` gets `system:unauthenticated`). What follows (authorization of
//! the request, admission's `request.userInfo` and `authorizer`, SelfSubjectReview) sees the
//! impersonated user; the audit event names both ([`Impersonator`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use axum::http::HeaderMap;
use kcel_stdlib::kubernetes::crd::{ErrorType, FieldError, FieldPath, aggregate};

use crate::access_request::{Attributes, User};
use crate::authz::Authz;
use crate::error::ApiError;

/// `Impersonate-User`.
pub const USER_HEADER: &str = "impersonate-user";
/// `Impersonate-Uid`.
pub const UID_HEADER: &str = "impersonate-uid";
/// `Impersonate-Group`, once per group.
pub const GROUP_HEADER: &str = "impersonate-group";
/// `Impersonate-Extra-<key>`, once per value.
pub const EXTRA_HEADER_PREFIX: &str = "impersonate-extra-";

const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";
const ALL_AUTHENTICATED: &str = "system:authenticated";
const ALL_UNAUTHENTICATED: &str = "system:unauthenticated";
const ANONYMOUS: &str = "system:anonymous";
const MASTERS: &str = crate::access_request::MASTERS;
/// Upstream's `manyAuthorizationChecksInLoop`: from this many groups or extra values on, the
/// constrained modes first ask for all of them at once (the name `*`).
const MANY_CHECKS: usize = 4;
/// How many requesters' last successful modes are remembered (upstream's LRU holds 10,000).
const REMEMBERED: usize = 10_000;

/// The user a request asks to act as, as its headers give it: nothing defaulted yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WantedUser {
    /// `Impersonate-User`.
    pub name: String,
    /// `Impersonate-Uid`.
    pub uid: String,
    /// The `Impersonate-Group` values.
    pub groups: Vec<String>,
    /// The `Impersonate-Extra-<key>` values by key (lower-cased, percent-decoded).
    pub extra: BTreeMap<String, Vec<String>>,
}

/// Who really asked, when a request impersonates another user (the audit event's `user`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impersonator {
    /// The authenticated user.
    pub user: User,
    /// The verb of the constrained mode that allowed the impersonation (the audit event's
    /// `authenticationMetadata.impersonationConstraint`); empty for legacy impersonation.
    pub constraint: String,
}

/// The user a request asks to act as, if it asks (`Impersonate-User` present and not
/// empty). Groups, a uid or extras without a user name are upstream's 400.
pub fn wanted_user(headers: &HeaderMap) -> Result<Option<WantedUser>, ApiError> {
    let text = |v: &axum::http::HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
    let first = |name: &str| headers.get(name).map(text).unwrap_or_default();
    let mut wanted = WantedUser {
        name: first(USER_HEADER),
        uid: first(UID_HEADER),
        groups: headers.get_all(GROUP_HEADER).iter().map(text).collect(),
        extra: BTreeMap::new(),
    };
    let mut has_extra = false;
    for name in headers.keys() {
        let Some(key) = name.as_str().strip_prefix(EXTRA_HEADER_PREFIX) else {
            continue;
        };
        has_extra = true;
        let key = percent_decoded(&key.to_lowercase());
        (wanted.extra.entry(key).or_default()).extend(headers.get_all(name).iter().map(text));
    }
    if wanted.name.is_empty() {
        if !wanted.uid.is_empty() || !wanted.groups.is_empty() || has_extra {
            return Err(ApiError::bad_request(format!(
                "requested {} without impersonating a user name",
                go_syntax(&wanted)
            )));
        }
        return Ok(None);
    }
    Ok(Some(wanted))
}

/// Removes the impersonation headers (upstream clears them so that nothing downstream
/// knows impersonation was used).
pub fn remove_headers(headers: &mut HeaderMap) {
    let names: Vec<_> = (headers.keys())
        .filter(|n| {
            let n = n.as_str();
            n == USER_HEADER
                || n == UID_HEADER
                || n == GROUP_HEADER
                || n.starts_with(EXTRA_HEADER_PREFIX)
        })
        .cloned()
        .collect();
    for name in names {
        headers.remove(name);
    }
}

/// Go's `url.PathUnescape`, keeping the text as given when it does not decode (upstream's
/// `unescapeExtraKey`).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(b) => out.push(b),
                None => return text.to_owned(),
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Go's `%#v` of the wanted `*user.DefaultInfo` (upstream's 400 text).
fn go_syntax(wanted: &WantedUser) -> String {
    let quote = kcel::library::standard::go_quote;
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
        format!("[]string{{{}}}", quoted.join(", "))
    };
    let groups = if wanted.groups.is_empty() {
        "[]string(nil)".to_owned()
    } else {
        list(&wanted.groups)
    };
    let extra = if wanted.extra.is_empty() {
        "map[string][]string(nil)".to_owned()
    } else {
        let entries: Vec<String> = (wanted.extra.iter())
            .map(|(k, v)| format!("{}:{}", quote(k), list(v)))
            .collect();
        format!("map[string][]string{{{}}}", entries.join(", "))
    };
    format!(
        "&user.DefaultInfo{{Name:{}, UID:{}, Groups:{groups}, Extra:{extra}}}",
        quote(&wanted.name),
        quote(&wanted.uid)
    )
}

/// Go's `%q` of a string slice: `["a" "b"]`.
fn go_quoted_list(items: &[String]) -> String {
    let quoted: Vec<String> = (items.iter())
        .map(|s| kcel::library::standard::go_quote(s))
        .collect();
    format!("[{}]", quoted.join(" "))
}

/// The impersonation modes, in upstream's order (`allImpersonationModes`, without
/// `associated-node`: see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    ArbitraryNode,
    ServiceAccount,
    UserInfo,
    Legacy,
}

const MODES: [Mode; 4] = [
    Mode::ArbitraryNode,
    Mode::ServiceAccount,
    Mode::UserInfo,
    Mode::Legacy,
];

impl Mode {
    /// The constrained mode's name, none for legacy impersonation.
    fn name(self) -> Option<&'static str> {
        match self {
            Mode::ArbitraryNode => Some("arbitrary-node"),
            Mode::ServiceAccount => Some("serviceaccount"),
            Mode::UserInfo => Some("user-info"),
            Mode::Legacy => None,
        }
    }

    /// The verb of the checks on the impersonated attributes.
    fn verb(self) -> String {
        match self.name() {
            Some(name) => format!("impersonate:{name}"),
            None => "impersonate".to_owned(),
        }
    }

    /// Whether the mode can impersonate `wanted` (upstream's mode filters).
    fn applies(self, wanted: &WantedUser) -> bool {
        let only_name =
            wanted.uid.is_empty() && wanted.groups.is_empty() && wanted.extra.is_empty();
        let node = node_name(&wanted.name).is_some();
        let service_account = service_account(&wanted.name).is_some();
        match self {
            Mode::ArbitraryNode => only_name && node,
            Mode::ServiceAccount => only_name && service_account,
            Mode::UserInfo => !node && !service_account,
            Mode::Legacy => true,
        }
    }
}

/// The node of a `system:node:<name>` user name with a valid node name.
fn node_name(user: &str) -> Option<&str> {
    let name = user.strip_prefix("system:node:")?;
    let messages = kcel_stdlib::kubernetes::named_formats::messages("dns1123Subdomain", name);
    messages.is_empty().then_some(name)
}

/// The namespace and name of a `system:serviceaccount:<namespace>:<name>` user name
/// (apiserver's `serviceaccount.SplitUsername`).
fn service_account(user: &str) -> Option<(&str, &str)> {
    let rest = user.strip_prefix("system:serviceaccount:")?;
    let (namespace, name) = rest.split_once(':')?;
    let valid = |format: &str, text: &str| {
        kcel_stdlib::kubernetes::named_formats::messages(format, text).is_empty()
    };
    (!name.contains(':') && valid("dns1123Label", namespace) && valid("dns1123Subdomain", name))
        .then_some((namespace, name))
}

/// The attributes of one impersonation check.
fn check_attributes(verb: &str, group: &str, resource: &str, name: &str) -> Attributes {
    Attributes {
        verb: verb.to_owned(),
        resource_request: true,
        group: group.to_owned(),
        version: "v1".to_owned(),
        resource: resource.to_owned(),
        name: name.to_owned(),
        ..Attributes::default()
    }
}

/// One mode's checks for one request.
struct Check<'a> {
    authz: &'a Authz,
    requestor: &'a User,
    mode: Mode,
    verb: String,
    /// The group of `users`, `groups` (and legacy `serviceaccounts`).
    identity_group: &'static str,
}

impl Check<'_> {
    /// Upstream's `checkAuthorization`: allowed, or the 403 for these attributes.
    fn authorize(&self, attrs: &Attributes) -> Result<(), ApiError> {
        let (allowed, reason) = self.authz.decide(self.requestor, attrs);
        if allowed {
            return Ok(());
        }
        Err(self.forbidden(attrs, &reason))
    }

    fn forbidden(&self, attrs: &Attributes, reason: &str) -> ApiError {
        crate::authz::forbidden(self.requestor, attrs, reason)
    }

    fn allowed(&self, attrs: &Attributes) -> bool {
        self.authz.decide(self.requestor, attrs).0
    }

    fn constrained(&self) -> bool {
        self.mode != Mode::Legacy
    }

    /// The impersonated user, if this mode allows it (`None`: the mode does not apply).
    fn run(
        &self,
        wanted: &WantedUser,
        request: &Attributes,
    ) -> Result<Option<(User, String)>, ApiError> {
        if !self.mode.applies(wanted) {
            return Ok(None);
        }
        if let Some(name) = self.mode.name() {
            // `impersonateOnAttributes`: the request's own attributes, verb
            // `impersonate-on:<mode>:<verb>`.
            let on = Attributes {
                verb: format!("impersonate-on:{name}:{}", request.verb),
                ..request.clone()
            };
            self.authorize(&on)?;
        }
        let mut groups = wanted.groups.clone();
        self.user_name(wanted, &mut groups)?;
        if !wanted.uid.is_empty() {
            let attrs = check_attributes(&self.verb, AUTHENTICATION_GROUP, "uids", &wanted.uid);
            self.authorize(&attrs)?;
        }
        self.groups(&wanted.groups)?;
        self.extra(&wanted.extra)?;
        if wanted.name == ANONYMOUS {
            ensure(&mut groups, ALL_UNAUTHENTICATED);
        } else if !groups.iter().any(|g| g == ALL_UNAUTHENTICATED) {
            ensure(&mut groups, ALL_AUTHENTICATED);
        }
        let user = User {
            name: wanted.name.clone(),
            uid: wanted.uid.clone(),
            groups,
            extra: wanted.extra.clone(),
        };
        let constraint = if self.constrained() {
            self.verb.clone()
        } else {
            String::new()
        };
        Ok(Some((user, constraint)))
    }

    /// Upstream's `authorizeUsername`: nodes and service accounts by their own resources,
    /// with their fixed groups.
    fn user_name(&self, wanted: &WantedUser, groups: &mut Vec<String>) -> Result<(), ApiError> {
        let mut attrs = check_attributes(&self.verb, self.identity_group, "users", &wanted.name);
        if self.constrained()
            && let Some(node) = node_name(&wanted.name)
        {
            attrs.resource = "nodes".to_owned();
            attrs.name = node.to_owned();
            if !wanted.groups.is_empty() {
                let why = format!(
                    "when impersonating a node, cannot impersonate groups {}",
                    go_quoted_list(&wanted.groups)
                );
                return Err(self.forbidden(&attrs, &why));
            }
            *groups = vec!["system:nodes".to_owned()];
        }
        if let Some((namespace, name)) = service_account(&wanted.name) {
            attrs.resource = "serviceaccounts".to_owned();
            attrs.namespace = namespace.to_owned();
            attrs.name = name.to_owned();
            if self.constrained() && !wanted.groups.is_empty() {
                let why = format!(
                    "when impersonating a service account, cannot impersonate groups {}",
                    go_quoted_list(&wanted.groups)
                );
                return Err(self.forbidden(&attrs, &why));
            }
            if wanted.groups.is_empty() {
                *groups = vec![
                    "system:serviceaccounts".to_owned(),
                    format!("system:serviceaccounts:{namespace}"),
                ];
            }
        }
        self.authorize(&attrs)
    }

    /// Upstream's `authorizeGroups`.
    fn groups(&self, groups: &[String]) -> Result<(), ApiError> {
        if groups.is_empty() {
            return Ok(());
        }
        let mut attrs = check_attributes(&self.verb, self.identity_group, "groups", "");
        if self.constrained() {
            if groups.iter().any(String::is_empty) {
                let why = "impersonating the empty string group is not allowed";
                return Err(self.forbidden(&attrs, why));
            }
            if groups.iter().any(|g| g == MASTERS) {
                attrs.name = MASTERS.to_owned();
                let why = "impersonating the system:masters group is not allowed";
                return Err(self.forbidden(&attrs, why));
            }
            if groups.len() >= MANY_CHECKS {
                attrs.name = "*".to_owned();
                if self.allowed(&attrs) {
                    return Ok(());
                }
            }
        }
        for group in groups {
            attrs.name = group.clone();
            self.authorize(&attrs)?;
        }
        Ok(())
    }

    /// Upstream's `authorizeExtra` (keys in sorted order: upstream walks a Go map).
    fn extra(&self, extra: &BTreeMap<String, Vec<String>>) -> Result<(), ApiError> {
        if extra.is_empty() {
            return Ok(());
        }
        let mut attrs = check_attributes(&self.verb, AUTHENTICATION_GROUP, "userextras", "");
        if self.constrained() {
            if let Err(why) = valid_extra(extra) {
                return Err(self.forbidden(&attrs, &why.to_string()));
            }
            let values: usize = extra.values().map(Vec::len).sum();
            if extra.len() >= MANY_CHECKS || values >= MANY_CHECKS {
                attrs.subresource = "*".to_owned();
                attrs.name = "*".to_owned();
                if self.allowed(&attrs) {
                    return Ok(());
                }
            }
        }
        for (key, values) in extra {
            attrs.subresource = key.clone();
            for value in values {
                attrs.name = value.clone();
                self.authorize(&attrs)?;
            }
        }
        Ok(())
    }
}

/// Why upstream's `validateExtra` refuses an impersonated user's extra (constrained modes
/// only); `Display` is upstream's text, the reason of the 403.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ExtraError {
    /// A key that is the empty string.
    #[error("impersonating the empty string key in extra is not allowed")]
    EmptyKey,
    /// A key that is not a domain-prefixed path (apimachinery's `IsDomainPrefixedPath`
    /// field errors at `extra.key`, as `ToAggregate` prints them).
    #[error("impersonating an invalid key in extra is not allowed: {}", aggregate(.0))]
    InvalidKey(Vec<FieldError>),
    /// A key with upper-case letters.
    #[error(
        "impersonating a non-lowercase key in extra is not allowed: {}",
        kcel::library::standard::go_quote(.0)
    )]
    UppercaseKey(String),
    /// A key without values.
    #[error("impersonating empty values in extra is not allowed")]
    NoValues,
    /// A value that is the empty string.
    #[error("impersonating the empty string value in extra is not allowed")]
    EmptyValue,
}

/// Upstream's `validateExtra` (constrained modes only): non-empty, domain-prefixed,
/// lower-case keys with non-empty values.
fn valid_extra(extra: &BTreeMap<String, Vec<String>>) -> Result<(), ExtraError> {
    for (key, values) in extra {
        if key.is_empty() {
            return Err(ExtraError::EmptyKey);
        }
        let errors = domain_prefixed_path(key);
        if !errors.is_empty() {
            return Err(ExtraError::InvalidKey(errors));
        }
        if *key != key.to_lowercase() {
            return Err(ExtraError::UppercaseKey(key.clone()));
        }
        if values.is_empty() {
            return Err(ExtraError::NoValues);
        }
        if values.iter().any(String::is_empty) {
            return Err(ExtraError::EmptyValue);
        }
    }
    Ok(())
}

/// apimachinery's `IsDomainPrefixedPath` for the field `extra.key`: its field errors.
fn domain_prefixed_path(key: &str) -> Vec<FieldError> {
    let at = FieldPath::new("extra").child("key");
    let invalid =
        |value: &str, detail: &str| FieldError::new(at.clone(), ErrorType::Invalid, value, detail);
    let Some((host, path)) = key
        .split_once('/')
        .filter(|(h, p)| !h.is_empty() && !p.is_empty())
    else {
        return vec![invalid(
            key,
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    };
    let mut errors: Vec<FieldError> =
        (kcel_stdlib::kubernetes::named_formats::messages("dns1123Subdomain", host).iter())
            .map(|m| invalid(host, m))
            .collect();
    let path_char = |c: char| c.is_ascii_alphanumeric() || "/-._~%!$&'()*+,;=:".contains(c);
    if !path.chars().all(path_char) {
        errors.push(invalid(
            path,
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
        ));
    }
    errors
}

fn ensure(groups: &mut Vec<String>, group: &str) {
    if !groups.iter().any(|g| g == group) {
        groups.push(group.to_owned());
    }
}

/// Impersonation for the server: remembers, per requester, the mode that last allowed an
/// impersonation (upstream's `modeIndexCache`), so that it is tried first.
#[derive(Debug, Default)]
pub struct Impersonation {
    last_mode: Mutex<HashMap<String, usize>>,
}

impl Impersonation {
    /// The user `requestor` acts as for the request `request`, and who really asked; the 403
    /// of the first mode that refused when none allows it.
    pub fn impersonate(
        &self,
        authz: &Authz,
        requestor: &User,
        wanted: &WantedUser,
        request: &Attributes,
    ) -> Result<(User, Impersonator), ApiError> {
        let remembered = self.remembered(&requestor.name);
        let order = remembered
            .into_iter()
            .chain((0..MODES.len()).filter(|i| Some(*i) != remembered));
        let mut first_error = None;
        for index in order {
            let mode = MODES[index];
            let check = Check {
                authz,
                requestor,
                mode,
                verb: mode.verb(),
                identity_group: if mode == Mode::Legacy {
                    ""
                } else {
                    AUTHENTICATION_GROUP
                },
            };
            match check.run(wanted, request) {
                Ok(Some((user, constraint))) => {
                    self.remember(&requestor.name, index);
                    let impersonator = Impersonator {
                        user: requestor.clone(),
                        constraint,
                    };
                    return Ok((user, impersonator));
                }
                Ok(None) => {}
                Err(e) if first_error.is_none() => first_error = Some(e),
                Err(_) => {}
            }
        }
        // The legacy mode always applies, so some mode refused.
        Err(first_error.unwrap_or_else(|| ApiError::internal("all impersonation modes failed")))
    }

    fn remembered(&self, requestor: &str) -> Option<usize> {
        let memory = self.last_mode.lock().unwrap_or_else(|e| e.into_inner());
        memory.get(requestor).copied()
    }

    fn remember(&self, requestor: &str, index: usize) {
        let mut memory = self.last_mode.lock().unwrap_or_else(|e| e.into_inner());
        if memory.len() >= REMEMBERED && !memory.contains_key(requestor) {
            // Upstream evicts the least recently used entry; forgetting only costs the order.
            memory.clear();
        }
        memory.insert(requestor.to_owned(), index);
    }
}

#[cfg(test)]
mod tests {
    //! Expectations from k8s.io/apiserver `pkg/endpoints/filters/impersonation/`
    //! (`constrained_impersonation_test.go`, `impersonation_test.go`); the rule authorizer
    //! gives no reason for a denial, where upstream's test authorizer says `deny by default`.

    use super::*;
    use kcel_stdlib::kubernetes::authz::RuleAuthorizer;
    use serde_json::json;

    fn authz(rules: serde_json::Value) -> Authz {
        Authz::new(Some(
            RuleAuthorizer::from_json(&json!({ "rules": rules })).unwrap(),
        ))
    }

    fn user(name: &str) -> User {
        User {
            name: name.to_owned(),
            uid: String::new(),
            groups: vec![ALL_AUTHENTICATED.to_owned()],
            extra: BTreeMap::new(),
        }
    }

    fn wanted(pairs: &[(&str, &str)]) -> Result<Option<WantedUser>, ApiError> {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        wanted_user(&headers)
    }

    fn get_pod() -> Attributes {
        crate::access_request::attributes("GET", "/api/v1/namespaces/bar/pods/foo", "")
    }

    fn act(
        impersonation: &Impersonation,
        authz: &Authz,
        requestor: &User,
        headers: &[(&str, &str)],
    ) -> Result<(User, Impersonator), String> {
        let wanted = wanted(headers).unwrap().unwrap();
        (impersonation.impersonate(authz, requestor, &wanted, &get_pod())).map_err(|e| e.message)
    }

    #[test]
    fn headers_give_the_wanted_user() {
        assert_eq!(wanted(&[]).unwrap(), None);
        assert_eq!(wanted(&[("impersonate-user", "")]).unwrap(), None);
        let w = wanted(&[
            ("impersonate-user", "ada"),
            ("impersonate-uid", "1234"),
            ("impersonate-group", "dev"),
            ("impersonate-group", "ops"),
            ("impersonate-extra-example.com%2fteam", "a"),
            ("impersonate-extra-example.com%2fteam", "b"),
            ("impersonate-extra-bad%zz", "c"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((w.name.as_str(), w.uid.as_str()), ("ada", "1234"));
        assert_eq!(w.groups, ["dev", "ops"]);
        assert_eq!(w.extra["example.com/team"], ["a", "b"]);
        // Not percent-encoded: kept as given (upstream's unescapeExtraKey).
        assert_eq!(w.extra["bad%zz"], ["c"]);
    }

    #[test]
    fn attributes_without_a_user_name_are_upstreams_400() {
        let e = wanted(&[("impersonate-group", "dev")]).unwrap_err();
        assert_eq!((e.code, e.reason), (400, "BadRequest"));
        assert_eq!(
            e.message,
            "requested &user.DefaultInfo{Name:\"\", UID:\"\", Groups:[]string{\"dev\"}, \
             Extra:map[string][]string(nil)} without impersonating a user name"
        );
        let e = wanted(&[
            ("impersonate-uid", "u\"1"),
            ("impersonate-extra-scopes", "a"),
        ])
        .unwrap_err();
        assert_eq!(
            e.message,
            "requested &user.DefaultInfo{Name:\"\", UID:\"u\\\"1\", Groups:[]string(nil), \
             Extra:map[string][]string{\"scopes\":[]string{\"a\"}}} without impersonating a \
             user name"
        );
    }

    #[test]
    fn the_first_refusing_mode_gives_the_403() {
        let none = Impersonation::default();
        // No right at all: the user-info mode's check of the request itself fails first.
        let e = act(
            &none,
            &authz(json!([])),
            &user("tester"),
            &[("impersonate-user", "anyone")],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "pods \"foo\" is forbidden: User \"tester\" cannot impersonate-on:user-info:get \
             resource \"pods\" in API group \"\" in the namespace \"bar\""
        );
        // constrained_impersonation_test.go "impersonating-error".
        let on = authz(
            json!([{"verbs": ["impersonate-on:user-info:get"], "apiGroups": [""],
                               "resources": ["pods"]}]),
        );
        let e = act(
            &none,
            &on,
            &user("tester"),
            &[("impersonate-user", "anyone")],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "users.authentication.k8s.io \"anyone\" is forbidden: User \"tester\" cannot \
             impersonate:user-info resource \"users\" in API group \"authentication.k8s.io\" \
             at the cluster scope"
        );
    }

    #[test]
    fn legacy_impersonation_and_the_remembered_mode() {
        let rules = authz(
            json!([{"users": ["tester"], "verbs": ["impersonate"], "apiGroups": [""],
                                  "resources": ["users", "groups"], "resourceNames": ["ada", "dev"]}]),
        );
        let memory = Impersonation::default();
        let (ada, by) = act(
            &memory,
            &rules,
            &user("tester"),
            &[("impersonate-user", "ada"), ("impersonate-group", "dev")],
        )
        .unwrap();
        assert_eq!(ada.name, "ada");
        assert_eq!(ada.groups, ["dev", ALL_AUTHENTICATED]);
        assert_eq!(
            (by.user.name.as_str(), by.constraint.as_str()),
            ("tester", "")
        );
        // The legacy mode succeeded last for tester: it is tried first, so its refusal is
        // the answer.
        let e = act(
            &memory,
            &rules,
            &user("tester"),
            &[("impersonate-user", "bob")],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "users \"bob\" is forbidden: User \"tester\" cannot impersonate resource \"users\" \
             in API group \"\" at the cluster scope"
        );
        let fresh = Impersonation::default();
        let e = act(
            &fresh,
            &rules,
            &user("tester"),
            &[("impersonate-user", "bob")],
        )
        .unwrap_err();
        assert!(e.contains("cannot impersonate-on:user-info:get"), "{e}");
    }

    #[test]
    fn user_info_mode_checks_every_attribute() {
        let rules = authz(json!([
            {"verbs": ["impersonate-on:user-info:get"], "apiGroups": [""], "resources": ["pods"]},
            {"verbs": ["impersonate:user-info"], "apiGroups": ["authentication.k8s.io"],
             "resources": ["*"]}
        ]));
        let memory = Impersonation::default();
        let (ada, by) = act(
            &memory,
            &rules,
            &user("tester"),
            &[
                ("impersonate-user", "ada"),
                ("impersonate-uid", "42"),
                ("impersonate-group", "dev"),
                ("impersonate-extra-example.com%2fteam", "a"),
            ],
        )
        .unwrap();
        assert_eq!(by.constraint, "impersonate:user-info");
        assert_eq!((ada.uid.as_str(), ada.groups.len()), ("42", 2));
        assert_eq!(ada.extra["example.com/team"], ["a"]);
        // constrained_impersonation_test.go's system:masters case.
        let e = act(
            &memory,
            &rules,
            &user("tester"),
            &[("impersonate-user", "ada"), ("impersonate-group", MASTERS)],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "groups.authentication.k8s.io \"system:masters\" is forbidden: User \"tester\" \
             cannot impersonate:user-info resource \"groups\" in API group \
             \"authentication.k8s.io\" at the cluster scope: impersonating the system:masters \
             group is not allowed"
        );
        let e = act(
            &memory,
            &rules,
            &user("tester"),
            &[
                ("impersonate-user", "ada"),
                ("impersonate-extra-scopes", "a"),
            ],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "userextras.authentication.k8s.io is forbidden: User \"tester\" cannot \
             impersonate:user-info resource \"userextras\" in API group \
             \"authentication.k8s.io\" at the cluster scope: impersonating an invalid key in \
             extra is not allowed: extra.key: Invalid value: \"scopes\": must be a \
             domain-prefixed path (such as \"acme.io/foo\")"
        );
    }

    /// `validateExtra`'s refusals are told apart by kind; an invalid key's field errors are
    /// printed as apimachinery's `ToAggregate` prints several (in brackets).
    #[test]
    fn extra_refusals_are_typed() {
        let extra = |key: &str, values: &[&str]| {
            BTreeMap::from([(
                key.to_owned(),
                values.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>(),
            )])
        };
        assert_eq!(valid_extra(&extra("", &["a"])), Err(ExtraError::EmptyKey));
        assert_eq!(
            valid_extra(&extra("acme.io/Team", &["a"])),
            Err(ExtraError::UppercaseKey("acme.io/Team".into()))
        );
        assert_eq!(
            valid_extra(&extra("acme.io/team", &[])),
            Err(ExtraError::NoValues)
        );
        assert_eq!(
            valid_extra(&extra("acme.io/team", &["a", ""])),
            Err(ExtraError::EmptyValue)
        );
        assert_eq!(valid_extra(&extra("acme.io/team", &["a"])), Ok(()));
        let Err(ExtraError::InvalidKey(errors)) = valid_extra(&extra("Acme_io/t^", &["a"])) else {
            panic!("an invalid key");
        };
        assert_eq!(errors.len(), 2, "{errors:?}");
        let text = ExtraError::InvalidKey(errors).to_string();
        assert!(
            text.starts_with(
                "impersonating an invalid key in extra is not allowed: [extra.key: Invalid \
                 value: \"Acme_io\": "
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                ", extra.key: Invalid value: \"t^\": Invalid path (regex used for validation \
                 is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')]"
            ),
            "{text}"
        );
    }

    #[test]
    fn nodes_service_accounts_and_anonymous_get_their_groups() {
        let admin = User::admin();
        let rules = authz(json!([]));
        let memory = Impersonation::default();
        let act = |headers: &[(&str, &str)]| act(&memory, &rules, &admin, headers).unwrap();
        let (sa, by) = act(&[("impersonate-user", "system:serviceaccount:ns1:builder")]);
        assert_eq!(
            sa.groups,
            [
                "system:serviceaccounts",
                "system:serviceaccounts:ns1",
                ALL_AUTHENTICATED
            ]
        );
        assert_eq!(by.constraint, "impersonate:serviceaccount");
        let (node, by) = act(&[("impersonate-user", "system:node:n1")]);
        assert_eq!(node.groups, ["system:nodes", ALL_AUTHENTICATED]);
        assert_eq!(by.constraint, "impersonate:arbitrary-node");
        // A node with groups is not the node mode's: legacy impersonation (the admin may).
        let (node, by) = act(&[
            ("impersonate-user", "system:node:n1"),
            ("impersonate-group", "system:nodes"),
        ]);
        assert_eq!(node.groups, ["system:nodes", ALL_AUTHENTICATED]);
        assert_eq!(by.constraint, "");
        let (anonymous, _) = act(&[("impersonate-user", ANONYMOUS)]);
        assert_eq!(anonymous.groups, [ALL_UNAUTHENTICATED]);
        let (unauthenticated, _) = act(&[
            ("impersonate-user", "ada"),
            ("impersonate-group", ALL_UNAUTHENTICATED),
        ]);
        assert_eq!(unauthenticated.groups, [ALL_UNAUTHENTICATED]);
        // A service account with groups keeps the groups asked for.
        let (sa, _) = act(&[
            ("impersonate-user", "system:serviceaccount:ns1:builder"),
            ("impersonate-group", "g"),
        ]);
        assert_eq!(sa.groups, ["g", ALL_AUTHENTICATED]);
        assert_eq!(service_account("system:serviceaccount:a:b:c"), None);
        assert_eq!(service_account("system:serviceaccount:A:b"), None);
        assert_eq!(node_name("system:node:Bad_Name"), None);
    }
}

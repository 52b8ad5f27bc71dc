//! Who asks and what: the authenticated [`User`] of a request and its [`Attributes`] (verb,
//! resource, namespace, name, as kube-apiserver's RequestInfo), which every authorizer
//! ([`crate::authz`], [`crate::rbac`]) and admission read.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The group whose members may do everything.
pub const MASTERS: &str = "system:masters";

/// An authenticated user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The user name.
    pub name: String,
    /// The user's uid (from the token file).
    pub uid: String,
    /// The groups, `system:authenticated` included.
    pub groups: Vec<String>,
    /// The extra attributes (an impersonated user's `Impersonate-Extra-<key>` values).
    pub extra: BTreeMap<String, Vec<String>>,
}

impl User {
    /// The admin: the user of the generated token.
    pub fn admin() -> User {
        User {
            name: "kcel-admin".to_owned(),
            uid: String::new(),
            groups: vec![MASTERS.to_owned(), "system:authenticated".to_owned()],
            extra: BTreeMap::new(),
        }
    }

    /// The user as `authentication.k8s.io/v1` `UserInfo` (SelfSubjectReview's
    /// `status.userInfo`, the audit event's `user` and `impersonatedUser`): empty fields left
    /// out.
    pub fn user_info(&self) -> Value {
        let mut info = json!({"username": self.name});
        if !self.uid.is_empty() {
            info["uid"] = json!(self.uid);
        }
        if !self.groups.is_empty() {
            info["groups"] = json!(self.groups);
        }
        if !self.extra.is_empty() {
            info["extra"] = json!(self.extra);
        }
        info
    }
}

/// What a request asks to do, as kube-apiserver's RequestInfo names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`; the
    /// lower-cased HTTP method for non-resource requests.
    pub verb: String,
    /// Whether the path names a resource.
    pub resource_request: bool,
    /// The URL path.
    pub path: String,
    /// The API group.
    pub group: String,
    /// The API version.
    pub version: String,
    /// The resource (plural).
    pub resource: String,
    /// The subresource, if any.
    pub subresource: String,
    /// The namespace, if any.
    pub namespace: String,
    /// The object's name, if any.
    pub name: String,
}

/// The attributes of a request.
pub fn attributes(method: &str, path: &str, query: &str) -> Attributes {
    let watch = query
        .split('&')
        .any(|p| p == "watch=true" || p == "watch=1");
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] if !rest.is_empty() => ("", *version, rest),
        ["apis", group, version, rest @ ..] if !rest.is_empty() => (*group, *version, rest),
        _ => {
            return Attributes {
                verb: method.to_lowercase(),
                path: path.to_owned(),
                ..Attributes::default()
            };
        }
    };
    let (namespace, resource, name, subresource) = match rest {
        ["namespaces", ns, resource, name, sub, ..] => (*ns, *resource, *name, *sub),
        ["namespaces", ns, resource, name] => (*ns, *resource, *name, ""),
        ["namespaces", ns, resource] => (*ns, *resource, "", ""),
        // `/namespaces/<name>` names a namespace, not a namespace's content.
        ["namespaces", name] => ("", "namespaces", *name, ""),
        [resource, name, sub, ..] => ("", *resource, *name, *sub),
        [resource, name] => ("", *resource, *name, ""),
        [resource] => ("", *resource, "", ""),
        _ => ("", "", "", ""),
    };
    let namespace = if resource == "namespaces" && rest.first() == Some(&"namespaces") {
        name
    } else {
        namespace
    };
    let collection = name.is_empty();
    let verb = match method {
        "GET" | "HEAD" if collection && watch => "watch",
        "GET" | "HEAD" if collection => "list",
        "GET" | "HEAD" => "get",
        "POST" => "create",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" if collection => "deletecollection",
        "DELETE" => "delete",
        other => {
            return Attributes {
                verb: other.to_lowercase(),
                path: path.to_owned(),
                ..Attributes::default()
            };
        }
    };
    Attributes {
        verb: verb.to_owned(),
        resource_request: true,
        path: path.to_owned(),
        group: group.to_owned(),
        version: version.to_owned(),
        resource: resource.to_owned(),
        subresource: subresource.to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_follow_request_info() {
        let a = attributes("GET", "/api/v1/namespaces/default/configmaps", "");
        assert_eq!(
            (a.verb.as_str(), a.namespace.as_str(), a.resource.as_str()),
            ("list", "default", "configmaps")
        );
        let a = attributes("GET", "/api/v1/namespaces/default", "");
        assert_eq!(
            (
                a.verb.as_str(),
                a.namespace.as_str(),
                a.name.as_str(),
                a.resource.as_str()
            ),
            ("get", "default", "default", "namespaces")
        );
        let a = attributes("GET", "/apis/apps/v1/deployments", "watch=true");
        assert_eq!((a.verb.as_str(), a.group.as_str()), ("watch", "apps"));
        let a = attributes("GET", "/api", "");
        assert!(!a.resource_request);
        assert_eq!(a.verb, "get");
    }
}

//! `--authorizer allow-all|deny-all|@PATH`: binds `authorizer` (Kubernetes' authz library)
//! for `eval`. `@PATH` is a YAML or JSON file: who is asking (`user`) and the RBAC-like rules
//! of `kcel_stdlib::kubernetes::authz::RuleAuthorizer`.

use std::sync::Arc;

use kcel::{Type, Value};
use kcel_stdlib::kubernetes::authz::{
    AUTHORIZER, AllowAll, Authorizer, DenyAll, RuleAuthorizer, UserInfo, authorizer_value,
};

use crate::input::read_document;
use crate::usage_error::UsageError;

/// The variable's name.
pub const NAME: &str = "authorizer";

/// The type to declare `authorizer` with.
pub fn declared_type() -> Type {
    Type::Named(AUTHORIZER.into(), vec![])
}

/// The value of `authorizer` for `--authorizer SPEC`.
pub fn value(spec: &str) -> Result<Value, UsageError> {
    let (user, authorizer): (UserInfo, Arc<dyn Authorizer>) = match spec {
        "allow-all" => (UserInfo::default(), Arc::new(AllowAll)),
        "deny-all" => (UserInfo::default(), Arc::new(DenyAll)),
        _ => {
            let Some(path) = spec.strip_prefix('@') else {
                return Err(UsageError::AuthorizerSpec(spec.to_string()));
            };
            let mut json = read_document(std::path::Path::new(path))?;
            let Some(object) = json.as_object_mut() else {
                return Err(UsageError::AuthorizerNotMapping(path.to_string()));
            };
            let user = match object.remove("user") {
                Some(user) => {
                    UserInfo::from_json(&user).map_err(|error| UsageError::AuthorizerUser {
                        path: path.to_string(),
                        error,
                    })?
                }
                None => UserInfo::default(),
            };
            let rules =
                RuleAuthorizer::from_json(&json).map_err(|error| UsageError::AuthorizerRules {
                    path: path.to_string(),
                    error,
                })?;
            (user, Arc::new(rules))
        }
    };
    Ok(authorizer_value(user, authorizer))
}

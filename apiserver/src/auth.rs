//! Authentication: the admin bearer token made on first start, and the users of
//! `--token-auth-file`.
//!
//! `DATA_DIR/admin-token` holds the token (owner-readable only). A request with a valid
//! `Authorization: Bearer <token>` is the admin (or the token file's user); a request with any
//! other credentials, or a request without credentials outside the public paths, gets 401
//! Unauthorized. The public paths are those kube-apiserver lets anonymous users read by
//! default: health and version (authorized as `system:anonymous`, whom the default
//! `system:public-info-viewer` binding lets read them). Impersonation ([`crate::impersonation`]) and authorization
//! ([`crate::authz`]) follow.

use std::path::Path;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::Response;

use crate::access_request::User;
use crate::error::ApiError;
use crate::state::AppState;

/// Paths served without credentials.
const PUBLIC_PATHS: &[&str] = &["/livez", "/readyz", "/healthz", "/version"];

/// Loads the admin token from `DATA_DIR/admin-token`, making it first if needed.
pub fn load_or_create_token(data_dir: &Path) -> std::io::Result<String> {
    let path = data_dir.join("admin-token");
    match std::fs::read_to_string(&path) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        Ok(_) => create_token(&path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_token(&path),
        Err(e) => Err(e),
    }
}

fn create_token(path: &Path) -> std::io::Result<String> {
    let token = crate::random::token()?;
    crate::files::write_private(path, format!("{token}\n").as_bytes())?;
    Ok(token)
}

/// Compares two byte strings in time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The user a bearer token names: the admin, or a user of the token file.
pub(crate) fn user_of(state: &AppState, token: &str) -> Option<User> {
    if same(token.as_bytes(), state.token.as_bytes()) {
        return Some(User::admin());
    }
    state
        .users
        .iter()
        .find(|(t, _)| same(token.as_bytes(), t.as_bytes()))
        .map(|(_, user)| user.clone())
}

/// The anonymous user of a request without credentials (to the public paths only).
fn anonymous() -> User {
    User {
        name: "system:anonymous".to_owned(),
        uid: String::new(),
        groups: vec!["system:unauthenticated".to_owned()],
        extra: Default::default(),
    }
}

/// Middleware: authenticates the bearer token (anonymous requests only to the public paths),
/// applies the impersonation headers ([`crate::impersonation`]; the user becomes the
/// impersonated one), then authorizes the request for that user (403 with kube-apiserver's
/// text when denied). Handlers find the [`User`] in the request's extensions.
pub async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request.headers().get(AUTHORIZATION);
    let anonymous_request = presented.is_none();
    let public = PUBLIC_PATHS.contains(&request.uri().path());
    let user = match presented {
        None if public => Some(anonymous()),
        None => None,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .and_then(|token| user_of(&state, token.trim())),
    };
    let attrs = crate::access_request::attributes(
        request.method().as_str(),
        request.uri().path(),
        request.uri().query().unwrap_or(""),
    );
    let Some(user) = user else {
        let error = ApiError::unauthorized();
        return crate::admission::refuse(&state, &request, None, &attrs, error, None);
    };
    let (user, impersonator) = match crate::impersonation::wanted_user(request.headers()) {
        Err(e) => return crate::admission::refuse(&state, &request, Some(&user), &attrs, e, None),
        Ok(None) => (user, None),
        Ok(Some(wanted)) => {
            match (state.impersonation).impersonate(&state.authz, &user, &wanted, &attrs) {
                Ok((impersonated, impersonator)) => (impersonated, Some(impersonator)),
                Err(e) => {
                    return crate::admission::refuse(
                        &state,
                        &request,
                        Some(&user),
                        &attrs,
                        e,
                        None,
                    );
                }
            }
        }
    };
    crate::impersonation::remove_headers(request.headers_mut());
    let (allowed, reason) = state.authz.decide(&user, &attrs);
    if !allowed {
        let error = crate::authz::forbidden(&user, &attrs, &reason);
        return crate::admission::refuse(
            &state,
            &request,
            Some(&user),
            &attrs,
            error,
            Some(&reason),
        );
    }
    if anonymous_request && impersonator.is_none() {
        // A public path, open to `system:unauthenticated` by the default
        // `system:public-info-viewer` binding: served without admission's request context.
        return next.run(request).await;
    }
    request.extensions_mut().insert(user.clone());
    crate::admission::serve(&state, user, impersonator, attrs, reason, request, next).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_is_made_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_or_create_token(dir.path()).unwrap();
        let b = load_or_create_token(dir.path()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}

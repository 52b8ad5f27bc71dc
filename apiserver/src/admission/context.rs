//! The request being served, as admission and the audit log see it: the user it acts as
//! (and who really asked, when it impersonates), the warnings and audit annotations
//! admission adds. Set by the authentication middleware for the request's task
//! ([`scope`]); read by [`super::mutate`] and [`super::validate`] ([`current`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use crate::access_request::User;
use crate::impersonation::Impersonator;

tokio::task_local! {
    static REQUEST: Arc<RequestContext>;
}

/// One request's user and what admission recorded for it.
#[derive(Debug)]
pub struct RequestContext {
    /// The user the request acts as: the authenticated one, or the one it impersonates.
    pub user: User,
    /// Who really asked, when the request impersonates [`RequestContext::user`].
    pub impersonator: Option<Impersonator>,
    warnings: Mutex<Vec<String>>,
    annotations: Mutex<BTreeMap<String, String>>,
    /// The name of the object written (a create names it in the body, not the URL).
    object_name: Mutex<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl RequestContext {
    /// A context for a request acting as `user` (impersonated by `impersonator`, if given).
    pub fn new(user: User, impersonator: Option<Impersonator>) -> RequestContext {
        RequestContext {
            user,
            impersonator,
            warnings: Mutex::default(),
            annotations: Mutex::default(),
            object_name: Mutex::default(),
        }
    }

    /// Adds `Warning` texts for the response (once each).
    pub fn add_warnings(&self, warnings: Vec<String>) {
        let mut all = lock(&self.warnings);
        for w in warnings {
            if !all.contains(&w) {
                all.push(w);
            }
        }
    }

    /// Adds audit annotations (a key already set keeps its first value, as upstream's
    /// `AddAuditAnnotation`).
    pub fn add_annotations(&self, annotations: BTreeMap<String, String>) {
        let mut all = lock(&self.annotations);
        for (k, v) in annotations {
            all.entry(k).or_insert(v);
        }
    }

    /// Records the name of the object written (for the audit event's `objectRef`).
    pub fn set_object_name(&self, name: &str) {
        *lock(&self.object_name) = name.to_owned();
    }

    /// The name of the object written, if recorded.
    pub fn object_name(&self) -> String {
        lock(&self.object_name).clone()
    }

    /// The warnings recorded.
    pub fn warnings(&self) -> Vec<String> {
        lock(&self.warnings).clone()
    }

    /// The audit annotations recorded.
    pub fn annotations(&self) -> BTreeMap<String, String> {
        lock(&self.annotations).clone()
    }
}

/// Runs `f` (the rest of the request's handling) with `context` as the current request.
pub async fn scope<F: Future>(context: Arc<RequestContext>, f: F) -> F::Output {
    REQUEST.scope(context, f).await
}

/// The request being served by this task, if any.
pub fn current() -> Option<Arc<RequestContext>> {
    REQUEST.try_with(Arc::clone).ok()
}

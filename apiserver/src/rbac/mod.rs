//! The server's RBAC authorizer, as kube-apiserver's `--authorization-mode=RBAC`
//! (kubernetes `plugin/pkg/auth/authorizer/rbac`): the stored Roles, ClusterRoles,
//! RoleBindings and ClusterRoleBindings decide what a user may do. [`objects`] are the stored
//! objects as read, [`rules`] matches one rule against a request, [`resolver`] finds the
//! rules bound to a user and words the decision, [`index`] keeps the objects of the server's storage current, [`aggregation`]
//! gives aggregated ClusterRoles their rules, [`bootstrap`] makes the default roles and
//! bindings at start and [`reconcile`] restores what was edited away from them, [`escalation`] and [`policy_writes`] keep a user from granting what
//! the user does not hold.

pub mod aggregation;
pub mod bootstrap;
pub mod escalation;
pub mod index;
pub mod objects;
pub mod policy_writes;
pub mod reconcile;
pub mod resolver;
pub mod rules;

pub use index::Rbac;
pub use resolver::RbacObjects;
pub use rules::PolicyRule;

#[cfg(test)]
mod tests;

//! The defaults the API server gives objects of the built-in kinds it serves (the fields
//! clients read), on every write (create, update, patch, apply) and after mutating
//! admission policies changed an object, and the Go types' encoding of those objects.

use serde_json::{Map, Value};

use crate::object::Object;
use crate::resource::Resource;

/// The defaults of an object created: the empty status upstream's create strategies give a
/// Deployment and a Service (`PrepareForCreate`: the status reset to Go's zero value, which
/// encodes as `{}` and `{"loadBalancer": {}}`), then its fields' ([`fields`]).
pub fn on_create(resource: &Resource, object: &mut Object) {
    if matches!(resource.kind, "Deployment" | "Service") {
        object.insert("status".to_owned(), Value::Object(Map::new()));
    }
    fields(resource, object);
}

/// The field defaults of the built-in kinds the server serves, as upstream's
/// `SetDefaults_*` give them when an object is decoded (the library's
/// [`kcel_stdlib::kubernetes::defaults::apply`]), then the object as the Go types encode
/// it again ([`go_round_trip`]). Idempotent: applied on create; mutating
/// admission policies default an object they changed after each mutation through the same
/// function (`admission::mutation::ServerSchemas`).
pub fn fields(resource: &Resource, object: &mut Object) {
    kcel_stdlib::kubernetes::defaults::apply(&resource.api_version(), resource.kind, object);
    go_round_trip(resource, object);
}

/// A built-in object as kube-apiserver stores and answers it: decoded into its kind's Go
/// types and encoded again, so `omitempty` fields holding Go's zero value are left out and
/// fields without `omitempty` written with theirs (`"rules": null`, a Service's `status`
/// `{"loadBalancer": {}}`; the library's
/// [`kcel_stdlib::kubernetes::builtin::go_round_trip`]). Idempotent; kinds the library does
/// not know (custom resources) are left as they are.
pub fn go_round_trip(resource: &Resource, object: &mut Object) {
    if let Some(kind) =
        kcel_stdlib::kubernetes::builtin::kind(&resource.api_version(), resource.kind)
    {
        kind.go_round_trip(object);
    }
}

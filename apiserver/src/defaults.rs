//! The defaults the API server gives objects of the built-in kinds it serves (the fields
//! clients read), on every write (create, update, patch, apply) and after mutating
//! admission policies changed an object.

use serde_json::json;

use crate::object::Object;
use crate::resource::Resource;

/// The defaults of an object created: its fields' ([`fields`]) and the empty status
/// upstream's create strategies give a Deployment and a Service.
pub fn on_create(resource: &Resource, object: &mut Object) {
    fields(resource, object);
    match resource.kind {
        "Deployment" => {
            object.insert("status".to_owned(), json!({}));
        }
        "Service" => {
            object.insert("status".to_owned(), json!({"loadBalancer": {}}));
        }
        _ => {}
    }
}

/// The field defaults of the built-in kinds the server serves, as upstream's
/// `SetDefaults_*` give them when an object is decoded (the library's
/// [`kcel_stdlib::kubernetes::defaults::apply`]). Idempotent: applied on create; mutating
/// admission policies default an object they changed after each mutation through the same
/// function (`admission::mutation::ServerSchemas`).
pub fn fields(resource: &Resource, object: &mut Object) {
    kcel_stdlib::kubernetes::defaults::apply(&resource.api_version(), resource.kind, object);
}

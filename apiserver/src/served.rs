//! What this server serves: the built-in kinds ([`crate::resource`]) and the custom
//! resources of established CRDs ([`crate::crd`]), looked up as one.

use std::borrow::Cow;

use crate::crd::Crds;
use crate::resource::{self, Resource};

/// The served resource with this group, version and plural name: a built-in one, else a
/// custom resource of an established CRD.
pub fn find(crds: &Crds, group: &str, version: &str, plural: &str) -> Option<&'static Resource> {
    resource::built_in(group, version, plural).or_else(|| crds.find(group, version, plural))
}

/// Every served resource once: the built-in ones (each storage once: not the second
/// versions of [`crate::conversion`]), then the storage version of each custom
/// resource (every version of a custom resource shares its storage keys).
pub fn all(crds: &Crds) -> Vec<&'static Resource> {
    let custom = crds.all().into_iter().filter_map(|c| {
        c.versions
            .iter()
            .find(|v| v.storage)
            .or(c.versions.first())
            .map(|v| v.resource)
    });
    resource::stored().chain(custom).collect()
}

/// The served resource of this group and kind (any version: they share storage), as an
/// owner reference names it.
pub fn by_kind(crds: &Crds, group: &str, kind: &str) -> Option<&'static Resource> {
    all(crds)
        .into_iter()
        .find(|r| r.group == group && r.kind == kind)
}

/// The resource part of the storage keys of `resource`'s objects: the plural for the
/// built-in kinds, `<group>/<plural>` for CRDs and custom resources (as kube-apiserver).
pub fn storage_resource(resource: &Resource) -> Cow<'static, str> {
    match crate::crd::storage_resource(resource) {
        Some(s) => Cow::Owned(s),
        None => Cow::Borrowed(resource.plural),
    }
}

/// A Table of `objects` of `resource`: the CRD's printer columns for a custom resource, the
/// built-in columns otherwise; `headers` false leaves the column definitions out.
pub fn table(
    crds: &Crds,
    resource: &Resource,
    objects: &[&crate::object::Object],
    list_metadata: serde_json::Value,
    version: &str,
    headers: bool,
) -> serde_json::Value {
    if let Some(storage) = crate::resource::storage_of(resource) {
        // Upstream prints the internal object: the storage version's fields here, each
        // row's metadata the object's as served.
        let (from, to) = (resource.api_version(), storage.api_version());
        let converted: Vec<crate::object::Object> = objects
            .iter()
            .map(|o| {
                let mut c = crate::conversion::convert((*o).clone(), &from, &to)
                    .unwrap_or_else(|_| (*o).clone());
                if let Some(meta) = o.get("metadata") {
                    c.insert("metadata".to_owned(), meta.clone());
                }
                c
            })
            .collect();
        let refs: Vec<&crate::object::Object> = converted.iter().collect();
        return crate::table::table(storage, &refs, list_metadata, version, headers);
    }
    crate::crd::table(crds, resource, objects, &list_metadata, version, headers)
        .unwrap_or_else(|| crate::table::table(resource, objects, list_metadata, version, headers))
}

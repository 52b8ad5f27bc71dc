//! A Service write's addresses ([`crate::service_network`]): the lock taken, the cluster IPs
//! and node ports of the stored Services read, the object's allocated.

use tokio::sync::MutexGuard;

use super::call::storage;
use crate::error::ApiError;
use crate::object::Object;
use crate::resource::{Resource, SERVICES};
use crate::service_network::{self, InUse};
use crate::state::AppState;
use crate::storage::{RangeRequest, keys};

/// The allocation of a write of `resource` (nothing for other kinds and for subresources):
/// on update (`old` given) the Service at `key` itself is not counted as holding its
/// addresses. The guard returned is to be held until the object is stored.
pub(crate) async fn before_write<'s>(
    state: &'s AppState,
    resource: &Resource,
    subresource: Option<&str>,
    key: &str,
    object: &mut Object,
    old: Option<&Object>,
    dry_run: bool,
) -> Result<Option<MutexGuard<'s, ()>>, ApiError> {
    if !service_network::allocates(resource, subresource) {
        return Ok(None);
    }
    let guard = state.services.lock().await;
    let used = in_use(state, old.map(|_| key)).await?;
    service_network::allocate(&state.services, object, old, used, dry_run)?;
    Ok(Some(guard))
}

/// What the stored Services hold, but the one at `except`.
async fn in_use(state: &AppState, except: Option<&str>) -> Result<InUse, ApiError> {
    let request = RangeRequest::prefix(keys::prefix(SERVICES.plural, None));
    let range = storage(state, move |s| s.range(&request))
        .await?
        .map_err(|e| ApiError::from_storage(e, &SERVICES, ""))?;
    Ok(InUse::of_stored(&range.kvs, except))
}

//! The official Python client (`kubernetes` 37.x) with CustomResourceDefinitions: runs
//! `tests/crd_python_client.py` (the CronTab CRD created and established, custom objects
//! created with defaults, 422 Invalid with upstream's `causes`, the dynamic client's
//! discovery, the CRD deleted; a CRD with `selectableFields` and lists filtered by them). Without that Python the test skips visibly (and fails under
//! `CI=true`).

mod support;

use support::Server;

#[test]
fn the_python_client_sees_custom_resources_and_their_422s() {
    let Some(python) =
        support::Python::find("the_python_client_sees_custom_resources_and_their_422s")
    else {
        return;
    };
    let server = Server::start(&[]);
    let ran = python.run(
        &server,
        "crd_python_client.py",
        &[
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/crd/crontab-crd.yaml"),
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/crd/shirt-crd.yaml"),
        ],
        std::time::Duration::from_secs(120),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout,
        "ok established\nok create\nok invalid\nok forbidden\nok dynamic\nok deleted\n\
         ok selectable\n",
        "{ran:?}"
    );
}

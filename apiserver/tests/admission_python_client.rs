//! The official Python client (`kubernetes` 37.x) with ValidatingAdmissionPolicy: runs
//! `tests/admission_python_client.py` (typed policy and binding models created, a 422 Invalid
//! with upstream's message, a `Warning` header with a Warn binding, a ConfigMap param chosen
//! by selector, a missing param denied). Without that Python the test skips visibly (and
//! fails under `CI=true`).

mod support;

use support::Server;

#[test]
fn the_python_client_sees_policy_denials_and_warnings() {
    let Some(python) = support::Python::find("the_python_client_sees_policy_denials_and_warnings")
    else {
        return;
    };
    let server = Server::start(&[]);
    let ran = python.run(
        &server,
        "admission_python_client.py",
        &[],
        std::time::Duration::from_secs(120),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout,
        "ok created\nok denied\nok warned\nok param\nok missing param\nok mutated\nok mutation failed\n",
        "{ran:?}"
    );
}

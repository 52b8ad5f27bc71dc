//! The official Python client (`kubernetes` 37.x, from the venv `.ci/run` makes, or
//! `KCEL_PYTHON`) against the server: runs `tests/python_client.py`, which prints one
//! `ok <step>` line per step. Without that Python the test skips visibly (and fails under
//! `CI=true`).

mod support;

use support::Server;

#[test]
fn the_python_client_creates_patches_lists_and_watches() {
    let Some(python) = support::Python::find("the_python_client_creates_patches_lists_and_watches")
    else {
        return;
    };
    let server = Server::start(&[]);
    let ran = python.run(
        &server,
        "python_client.py",
        &[],
        std::time::Duration::from_secs(120),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout,
        "ok namespaces\nok create\nok dry run\nok patch\nok list with limit\nok watch\n\
         ok deployment\nok server-side apply\nok access reviews\nok token reviews\nok delete namespace\n",
        "{ran:?}"
    );
}

//! The official Python client (`kubernetes` 37.x) with ValidatingAdmissionPolicy: runs
//! `tests/admission_python_client.py` (typed policy and binding models created, a 422 Invalid
//! with upstream's message, a `Warning` header with a Warn binding, a ConfigMap param chosen
//! by selector, a missing param denied). Without that Python the test skips visibly (and
//! fails under `CI=true`).

mod support;

use std::process::Command;
use std::time::Duration;

use support::{Server, real_client, run_bounded};

#[test]
fn the_python_client_sees_policy_denials_and_warnings() {
    let Some(python) = real_client(
        "KCEL_PYTHON",
        "python",
        "the_python_client_sees_policy_denials_and_warnings",
    ) else {
        return;
    };
    let server = Server::start(&[]);
    let mut command = Command::new(python);
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/admission_python_client.py"
        ))
        .arg(server.data_dir().join("kubeconfig"));
    let ran = run_bounded(command, None, Duration::from_secs(120));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout, "ok created\nok denied\nok warned\nok param\nok missing param\n",
        "{ran:?}"
    );
}

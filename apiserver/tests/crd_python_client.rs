//! The official Python client (`kubernetes` 37.x) with CustomResourceDefinitions: runs
//! `tests/crd_python_client.py` (the CronTab CRD created and established, custom objects
//! created with defaults, 422 Invalid with upstream's `causes`, the dynamic client's
//! discovery, the CRD deleted). Without that Python the test skips visibly (and fails under
//! `CI=true`).

mod support;

use std::process::Command;
use std::time::Duration;

use support::{Server, real_client, run_bounded};

#[test]
fn the_python_client_sees_custom_resources_and_their_422s() {
    let Some(python) = real_client(
        "KCEL_PYTHON",
        "python",
        "the_python_client_sees_custom_resources_and_their_422s",
    ) else {
        return;
    };
    let server = Server::start(&[]);
    let mut command = Command::new(python);
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/crd_python_client.py"
        ))
        .arg(server.data_dir().join("kubeconfig"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/crd/crontab-crd.yaml"
        ));
    let ran = run_bounded(command, None, Duration::from_secs(120));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout, "ok established\nok create\nok invalid\nok forbidden\nok dynamic\nok deleted\n",
        "{ran:?}"
    );
}

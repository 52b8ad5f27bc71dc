"""The official Python client (kubernetes 37.x) deleting owners with each propagation policy.

Run by tests/garbage_collection.rs with the kubeconfig the server wrote. Prints one `ok <step>`
line per step that passed; any failure raises (exit status 1). Each wait is bounded.
"""

import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException


def gone(read, *args, limit=20.0):
    """Polls until `read` answers 404 (bounded)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        try:
            read(*args)
        except ApiException as e:
            if e.status == 404:
                return True
            raise
        time.sleep(0.1)
    return False


def owner_and_dependent(core, apps, name):
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": name}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": name}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]),
            ),
        ),
    )
    owner = apps.create_namespaced_deployment("default", deployment)
    reference = client.V1OwnerReference(
        api_version="apps/v1", kind="Deployment", name=name, uid=owner.metadata.uid,
        block_owner_deletion=True, controller=True,
    )
    cm = client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=f"{name}-dep", owner_references=[reference])
    )
    core.create_namespaced_config_map("default", cm)


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    owner_and_dependent(core, apps, "fg")
    answered = apps.delete_namespaced_deployment(
        "fg", "default", body=client.V1DeleteOptions(propagation_policy="Foreground")
    )
    # The answer is the Deployment, not a Status (the client hands delete answers over as
    # dicts).
    assert answered["metadata"]["finalizers"] == ["foregroundDeletion"], answered
    assert gone(apps.read_namespaced_deployment, "fg", "default")
    assert gone(core.read_namespaced_config_map, "fg-dep", "default")
    print("ok foreground")

    owner_and_dependent(core, apps, "bg")
    status = apps.delete_namespaced_deployment(
        "bg", "default", body=client.V1DeleteOptions(propagation_policy="Background")
    )
    assert status["kind"] == "Status" and status["status"] == "Success", status
    assert gone(core.read_namespaced_config_map, "bg-dep", "default")
    print("ok background")

    owner_and_dependent(core, apps, "or")
    apps.delete_namespaced_deployment(
        "or", "default", body=client.V1DeleteOptions(propagation_policy="Orphan")
    )
    assert gone(apps.read_namespaced_deployment, "or", "default")
    kept = core.read_namespaced_config_map("or-dep", "default")
    assert kept.metadata.owner_references is None, kept.metadata
    print("ok orphan")


if __name__ == "__main__":
    main(sys.argv[1])

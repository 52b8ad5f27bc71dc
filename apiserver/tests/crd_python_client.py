"""The official Python client (kubernetes 37.x) with CustomResourceDefinitions.

Run by tests/crd_python_client.rs with the kubeconfig the server wrote and the CRD manifest.
Prints one `ok <step>` line per step that passed; any failure raises (exit status 1).
"""

import json
import sys
import time

import yaml
from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "stable.example.com", "v1", "crontabs"


def crontab(name, **changes):
    spec = {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": 2}
    spec.update(changes)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "CronTab",
            "metadata": {"name": name}, "spec": spec}


def invalid(call, *args):
    try:
        call(*args)
    except ApiException as e:
        assert e.status == 422, (e.status, e.body)
        return json.loads(e.body)
    raise AssertionError("expected 422")


def main(kubeconfig, crd_path):
    config.load_kube_config(config_file=kubeconfig)
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()
    with open(crd_path) as f:
        ext.create_custom_resource_definition(yaml.safe_load(f))
    for _ in range(100):
        crd = ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        if any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or []):
            break
        time.sleep(0.1)
    else:
        raise AssertionError("not established")
    assert crd.status.accepted_names.short_names == ["ct"], crd.status.accepted_names
    print("ok established")

    created = custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, crontab("c1"))
    assert created["spec"]["maxReplicas"] == 5, created
    print("ok create")

    status = invalid(custom.create_namespaced_custom_object, GROUP, VERSION, "default", PLURAL,
                     crontab("c2", replicas=10))
    assert status["reason"] == "Invalid", status
    assert status["message"] == ('CronTab.stable.example.com "c2" is invalid: spec.replicas: '
                                 'Invalid value: replicas must be <= maxReplicas'), status
    assert status["details"] == {
        "name": "c2", "group": GROUP, "kind": "CronTab",
        "causes": [{"reason": "FieldValueInvalid",
                    "message": 'Invalid value: replicas must be <= maxReplicas',
                    "field": "spec.replicas"}],
    }, status
    print("ok invalid")

    status = invalid(custom.patch_namespaced_custom_object, GROUP, VERSION, "default", PLURAL,
                     "c1", {"spec": {"image": "forbidden/x"}})
    cause = status["details"]["causes"][0]
    assert cause == {"reason": "FieldValueForbidden",
                     "message": "Forbidden: images from forbidden/ may not be used",
                     "field": "spec.image"}, status
    print("ok forbidden")

    # The dynamic client reads discovery for the new resource.
    dyn = dynamic.DynamicClient(client.ApiClient())
    crontabs = dyn.resources.get(api_version=f"{GROUP}/{VERSION}", kind="CronTab")
    names = [item.metadata.name for item in crontabs.get(namespace="default").items]
    assert names == ["c1"], names
    print("ok dynamic")

    ext.delete_custom_resource_definition(f"{PLURAL}.{GROUP}")
    for _ in range(100):
        try:
            ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        except ApiException as e:
            assert e.status == 404
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the CRD was not deleted")
    print("ok deleted")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

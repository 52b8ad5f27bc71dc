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


def selectable(shirts_path):
    """The documentation's Shirt CRD with selectableFields: lists filtered by them."""
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()
    with open(shirts_path) as f:
        crd = ext.create_custom_resource_definition(yaml.safe_load(f))
    paths = [f.json_path for f in crd.spec.versions[0].selectable_fields]
    assert paths == [".spec.color", ".spec.size", ".spec.sleeves", ".spec.ironed"], paths
    for _ in range(100):
        crd = ext.read_custom_resource_definition("shirts.stable.example.com")
        if any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or []):
            break
        time.sleep(0.1)
    else:
        raise AssertionError("not established")
    for name, color, sleeves in [("s1", "blue", 2), ("s2", "red", 0), ("s3", "blue", 0)]:
        custom.create_namespaced_custom_object(
            "stable.example.com", "v1", "default", "shirts",
            {"apiVersion": "stable.example.com/v1", "kind": "Shirt", "metadata": {"name": name},
             "spec": {"color": color, "size": "M", "sleeves": sleeves}})

    def names(selector):
        listed = custom.list_namespaced_custom_object(
            "stable.example.com", "v1", "default", "shirts", field_selector=selector)
        return [item["metadata"]["name"] for item in listed["items"]]

    assert names("spec.color=blue") == ["s1", "s3"], names("spec.color=blue")
    assert names("spec.color=blue,spec.sleeves=0") == ["s3"]
    # An absent field selects as the empty string (upstream's strategy).
    assert names("spec.ironed=") == ["s1", "s2", "s3"]
    try:
        names("spec.fabric=silk")
    except ApiException as e:
        assert e.status == 400, (e.status, e.body)
        body = json.loads(e.body)
        assert (body["reason"], body["message"]) == (
            "BadRequest", "field label not supported: spec.fabric"), body
    else:
        raise AssertionError("expected 400")
    print("ok selectable")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    selectable(sys.argv[3])

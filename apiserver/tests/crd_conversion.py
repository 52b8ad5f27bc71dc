"""The official Python client (kubernetes 37.x) reading a custom resource's non-storage version.

Run by tests/crd_conversion.rs with the kubeconfig the server wrote; the Widget CRD converts
v1 (storage) <-> v2 through the test's webhook. Without arguments it reads w1 and the list
through v2 (`ok get`, `ok list`); with `fail` it expects the webhook's failure as a 500 with
upstream's message (`ok failed`). Any failure raises (exit status 1).
"""

import json
import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

GROUP, PLURAL, NS = "conv.example.com", "widgets", "default"


def main(kubeconfig, mode=""):
    config.load_kube_config(config_file=kubeconfig)
    custom = client.CustomObjectsApi()
    if mode == "fail":
        try:
            custom.get_namespaced_custom_object(GROUP, "v2", NS, PLURAL, "w1")
        except ApiException as e:
            body = json.loads(e.body)
            assert e.status == 500, (e.status, e.body)
            assert body["message"] == (
                "conversion webhook for conv.example.com/v1, Kind=Widget failed: "
                "refusing to convert"), body
            print("ok failed")
            return
        raise AssertionError("expected a 500")
    w1 = custom.get_namespaced_custom_object(GROUP, "v2", NS, PLURAL, "w1")
    assert w1["apiVersion"] == "conv.example.com/v2", w1
    assert w1["spec"] == {"schedule": "*/5", "replicas": 2}, w1
    print("ok get")
    items = custom.list_namespaced_custom_object(GROUP, "v2", NS, PLURAL)["items"]
    assert [i["spec"]["schedule"] for i in items] == ["*/5"], items
    print("ok list")


if __name__ == "__main__":
    main(*sys.argv[1:])

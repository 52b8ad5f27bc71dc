#!/usr/bin/env python3
"""Vendors the OpenAPI v3 documents kcel-apiserver serves at /openapi/v3, and upstream's
swagger-2.0 definitions of the same schemas, which it serves with the v3 paths converted at
/openapi/v2.

Reads the Kubernetes 1.37 documents in ../shared/k8s-openapi/v1.37/openapi-v3/ (see that
folder's README for their provenance) and writes, for each group-version served, one document
with only the paths of the served resources and the schemas they reach. Every `description`
text is stripped (schemas, extensions and operations are kept), so `kubectl explain` shows
fields and types without upstream's prose.

Usage: python3 apiserver/openapi/generate.py [SHARED_DIR]   (run from the repository root;
SHARED_DIR defaults to ../shared). The output is committed; tests and the server never read
../shared.
"""

import gzip
import json
import os
import re
import sys

# Group-version key -> served plural resources. Keep in step with src/resource.rs (SERVED);
# a unit test there checks that every served resource has its paths here.
SERVED = {
    "api/v1": [
        "namespaces", "configmaps", "secrets", "services", "serviceaccounts", "events", "pods",
        "persistentvolumes", "persistentvolumeclaims",
    ],
    "apis/apps/v1": ["daemonsets", "deployments", "replicasets", "statefulsets"],
    "apis/events.k8s.io/v1": ["events"],
    "apis/autoscaling/v2": ["horizontalpodautoscalers"],
    "apis/autoscaling/v1": ["horizontalpodautoscalers"],
    "apis/batch/v1": ["jobs", "cronjobs"],
    "apis/rbac.authorization.k8s.io/v1": [
        "clusterrolebindings", "clusterroles", "rolebindings", "roles",
    ],
    "apis/coordination.k8s.io/v1": ["leases"],
    "apis/apiextensions.k8s.io/v1": ["customresourcedefinitions"],
    "apis/admissionregistration.k8s.io/v1": [
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
        "mutatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
    ],
    # Not stored: created and answered (kubectl auth can-i posts the self reviews as protobuf).
    "apis/authorization.k8s.io/v1": [
        "localsubjectaccessreviews",
        "selfsubjectaccessreviews",
        "selfsubjectrulesreviews",
        "subjectaccessreviews",
    ],
    "apis/authentication.k8s.io/v1": ["selfsubjectreviews", "tokenreviews"],
}


def strip_descriptions(node):
    """Removes every `description` whose value is text (a property named "description" stays)."""
    if isinstance(node, dict):
        return {
            k: strip_descriptions(v)
            for k, v in node.items()
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [strip_descriptions(v) for v in node]
    return node


def served_path(path, prefix, plurals):
    """Whether `path` is a collection, item or watch path of a served resource (no subresources)."""
    rest = path[len(prefix):]
    if not path.startswith(prefix):
        return False
    rest = rest.removeprefix("/watch")
    for plural in plurals:
        patterns = [
            rf"/{plural}",
            rf"/{plural}/\{{name\}}",
            rf"/namespaces/\{{namespace\}}/{plural}",
            rf"/namespaces/\{{namespace\}}/{plural}/\{{name\}}",
        ]
        if any(re.fullmatch(p, rest) for p in patterns):
            return True
    return False


def refs(node, found, prefix="#/components/schemas/"):
    """Adds to `found` the names of the schemas `node` refers to with `prefix`."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            found.add(ref[len(prefix):])
        for v in node.values():
            refs(v, found, prefix)
    elif isinstance(node, list):
        for v in node:
            refs(v, found, prefix)


def vendor(doc, key, plurals):
    prefix = "/" + key
    paths = {p: v for p, v in doc["paths"].items() if served_path(p, prefix, plurals)}
    schemas = doc["components"]["schemas"]
    keep, todo = set(), set()
    refs(paths, todo)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        found = set()
        refs(schemas[name], found)
        todo |= found - keep
    out = dict(doc)
    out["paths"] = paths
    out["components"] = dict(doc["components"])
    out["components"]["schemas"] = {n: schemas[n] for n in sorted(keep)}
    return strip_descriptions(out)


V2_REF = "#/definitions/"


def vendor_v2(shared, names, here):
    """The swagger-2.0 definitions of the schemas the v3 documents hold, for /openapi/v2:
    upstream's v2 definitions of the same schemas (the server converts the v3 paths itself,
    src/openapi_v2.rs). kubectl validates a kind without a PATCH operation (the reviews)
    against these definitions."""
    with gzip.open(os.path.join(shared, "k8s-openapi", "v1.37", "definitions-v2.json.gz")) as f:
        definitions = json.load(f)["definitions"]
    keep = {n: strip_descriptions(definitions[n]) for n in sorted(names)}
    found = set()
    refs(keep, found, V2_REF)
    missing = sorted(found - set(keep))
    if missing:
        sys.exit(f"v2 definitions refer to schemas not kept: {missing}")
    with open(os.path.join(here, "swagger_v2.json"), "w") as f:
        json.dump({"definitions": keep}, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"swagger_v2.json: {len(keep)} definitions")


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    source = os.path.join(shared, "k8s-openapi", "v1.37", "openapi-v3")
    here = os.path.dirname(os.path.abspath(__file__))
    names = set()
    for key, plurals in SERVED.items():
        name = key.replace("/", "__") + "_openapi.json"
        with gzip.open(os.path.join(source, name + ".gz")) as f:
            doc = json.load(f)
        vendored = vendor(doc, key, plurals)
        missing = [p for p in plurals if not any(f"/{p}" in q for q in vendored["paths"])]
        if missing:
            sys.exit(f"{key}: no paths for {missing}")
        with open(os.path.join(here, name), "w") as f:
            json.dump(vendored, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"{name}: {len(vendored['paths'])} paths, "
              f"{len(vendored['components']['schemas'])} schemas")
        names |= set(vendored["components"]["schemas"])
    vendor_v2(shared, names, here)


if __name__ == "__main__":
    main()

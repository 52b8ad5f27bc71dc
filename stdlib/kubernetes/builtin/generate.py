#!/usr/bin/env python3
"""Vendors the schemas of Kubernetes' built-in kinds for `kcel_stdlib::kubernetes::builtin`.

Reads the Kubernetes 1.37 OpenAPI documents in ../shared/k8s-openapi/v1.37/ (see that folder's
README for their provenance) and writes `schemas.json` beside this script:

    {"version": "1.37",
     "kinds": [{"group": G, "version": V, "kind": K, "schema": NAME, "namespaced": B}, ...],
     "schemas": {NAME: SCHEMA, ...}}

`kinds` lists every kind with a create (POST) operation, its scope taken from the operation's
path; `schemas` holds every schema those kinds reach, in the OpenAPI v3 documents' form
(`#/components/schemas/` references, `allOf` around references with siblings). Every
`description` text is stripped: types, formats, required fields and the x-kubernetes
extensions are kept (facts), upstream's prose is not.

Usage: python3 stdlib/kubernetes/builtin/generate.py [SHARED_DIR [OUTPUT]]   (from the
repository root; SHARED_DIR defaults to ../shared, OUTPUT to schemas.json beside this script).
The output is committed; the library never reads ../shared (a test checks, when ../shared is
there, that the committed file is what this script writes).
"""

import gzip
import json
import os
import sys

PREFIX = "#/components/schemas/"


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


def refs(node, out):
    """Collects the schema names `node` refers to."""
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith(PREFIX):
            out.add(r[len(PREFIX):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    folder = os.path.join(shared, "k8s-openapi", "v1.37", "openapi-v3")
    kinds = {}
    schemas = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith("_openapi.json.gz"):
            continue
        with gzip.open(os.path.join(folder, name)) as f:
            doc = json.load(f)
        for path, item in doc.get("paths", {}).items():
            post = item.get("post")
            if not post or "/{name}/" in path or path.endswith("}"):
                continue
            gvk = post.get("x-kubernetes-group-version-kind")
            if not gvk or post.get("x-kubernetes-action") != "post":
                continue
            body = post.get("requestBody", {}).get("content", {})
            media = body.get("application/json") or body.get("*/*")
            ref = (media or {}).get("schema", {}).get("$ref", "")
            if not ref.startswith(PREFIX):
                continue
            key = (gvk["group"], gvk["version"], gvk["kind"])
            namespaced = "/namespaces/{namespace}/" in path
            entry = kinds.setdefault(
                key, {"group": key[0], "version": key[1], "kind": key[2],
                      "schema": ref[len(PREFIX):], "namespaced": namespaced})
            entry["namespaced"] = entry["namespaced"] or namespaced
        for sname, schema in doc.get("components", {}).get("schemas", {}).items():
            schemas.setdefault(sname, schema)
    # Only the schemas the kinds reach.
    reached, todo = set(), [k["schema"] for k in kinds.values()]
    while todo:
        name = todo.pop()
        if name in reached or name not in schemas:
            continue
        reached.add(name)
        found = set()
        refs(schemas[name], found)
        todo.extend(found - reached)
    # Review objects (SubjectAccessReview, TokenReview, ...) are created but never stored:
    # kept, `kcel validate` checks them like any other kind.
    out = {
        "version": "1.37",
        "kinds": [kinds[k] for k in sorted(kinds)],
        "schemas": {n: strip_descriptions(schemas[n]) for n in sorted(reached)},
    }
    target = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "schemas.json")
    with open(target, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=False)
        f.write("\n")
    print(f"{target}: {len(out['kinds'])} kinds, {len(out['schemas'])} schemas")


if __name__ == "__main__":
    main()

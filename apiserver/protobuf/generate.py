#!/usr/bin/env python3
"""Builds the protobuf field table kcel-apiserver decodes Kubernetes protobuf bodies with.

kubectl's generators (`kubectl create configmap|secret|namespace|deployment|...`) send their
objects as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`). The field numbers and
wire types come from the `k8s-pb` crate (kube-rs; Rust bindings generated from Kubernetes'
own generated.proto files): its `#[prost(...)]` attributes are read from the crate's source.
The JSON names come from the vendored OpenAPI schemas (`../openapi/*.json`), matched to the
crate's snake_case field names. Only the messages reachable from the served kinds are kept.

Usage: python3 apiserver/protobuf/generate.py [K8S_PB_SRC]
  K8S_PB_SRC defaults to the k8s-pb 0.9.0 sources in the cargo registry
  (`cargo fetch` after adding `k8s-pb = "=0.9.0"` anywhere brings them, or `cargo info k8s-pb`).
Writes apiserver/protobuf/messages.json (committed; the server embeds it).
"""

import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# kind -> (OpenAPI schema name); the k8s-pb module path is derived from the schema name.
SERVED = [
    "io.k8s.api.core.v1.Namespace",
    "io.k8s.api.core.v1.ConfigMap",
    "io.k8s.api.core.v1.Secret",
    "io.k8s.api.core.v1.Service",
    "io.k8s.api.core.v1.ServiceAccount",
    "io.k8s.api.core.v1.Event",
    "io.k8s.api.core.v1.Pod",
    "io.k8s.api.core.v1.PersistentVolume",
    "io.k8s.api.core.v1.PersistentVolumeClaim",
    "io.k8s.api.apps.v1.DaemonSet",
    "io.k8s.api.apps.v1.Deployment",
    "io.k8s.api.apps.v1.ReplicaSet",
    "io.k8s.api.apps.v1.StatefulSet",
    "io.k8s.api.batch.v1.Job",
    "io.k8s.api.batch.v1.CronJob",
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    "io.k8s.api.rbac.v1.Role",
    "io.k8s.api.rbac.v1.ClusterRole",
    "io.k8s.api.rbac.v1.RoleBinding",
    "io.k8s.api.rbac.v1.ClusterRoleBinding",
    "io.k8s.api.coordination.v1.Lease",
    "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
    "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
    "io.k8s.api.authentication.v1.TokenReview",
]

# Messages with a JSON form of their own (not an object of their fields).
SPECIAL = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "microtime",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "intorstring",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "rawjson",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "rawjson",
}

ATTR = re.compile(r'#\[prost\((?P<body>.*)\)\]\s*$')
FIELD = re.compile(r'^\s*pub (?P<name>(r#)?[a-z0-9_]+):\s*(?P<type>.*)$')


def default_src():
    found = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/k8s-pb-0.9.0/src")))
    if not found:
        sys.exit("k8s-pb 0.9.0 sources not found; pass their src/ directory")
    return found[0]


def parse_crate(src):
    """{module.path.Struct: [(tag, kind, rust_name, type_text)]} for every prost message."""
    messages = {}
    for path in glob.glob(os.path.join(src, "**", "mod.rs"), recursive=True):
        module = os.path.relpath(os.path.dirname(path), src).replace(os.sep, ".")
        lines = open(path).read().split("\n")
        i = 0
        current = None
        while i < len(lines):
            line = lines[i]
            m = re.match(r'^pub struct (\w+) \{', line)
            if m:
                current = f"{module}.{m.group(1)}"
                messages[current] = []
            elif line.startswith("}"):
                current = None
            elif current:
                a = ATTR.search(line.strip())
                if a:
                    # The field declaration follows, possibly over several lines.
                    j = i + 1
                    decl = lines[j]
                    while not (decl.rstrip().endswith(",") and decl.count("<") == decl.count(">")):
                        j += 1
                        decl += " " + lines[j].strip()
                    f = FIELD.match(decl)
                    messages[current].append((a.group("body"), f.group("name"), f.group("type"), module))
                    i = j
            i += 1
    return messages


def resolve(type_text, module):
    """The absolute `module.Struct` a field's Rust type names (None for scalars)."""
    inner = re.sub(r'::core::option::Option<|::prost::alloc::vec::Vec<|>|,', ' ', type_text).split()
    for token in reversed(inner):
        if token.startswith("::prost") or token.startswith("::core"):
            continue
        parts = token.split("::")
        base = module.split(".")
        while parts and parts[0] == "super":
            base = base[:-1]
            parts = parts[1:]
        if parts and parts[-1][:1].isupper():
            return ".".join(base + parts)
    return None


def norm(name):
    return name.replace("r#", "").replace("_", "").lower()


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else default_src()
    crate = parse_crate(src)
    schemas = {}
    for doc in glob.glob(os.path.join(HERE, "..", "openapi", "*.json")):
        schemas.update(json.load(open(doc))["components"]["schemas"])
    table = {}
    todo = list(SERVED)
    # Embedded structs without a schema of their own take their fields' names from the
    # schema of the struct that embeds them.
    borrowed = {}
    while todo:
        schema_name = todo.pop()
        if schema_name in table or schema_name in SPECIAL:
            continue
        rust = schema_name.removeprefix("io.k8s.")
        fields = crate.get(rust)
        if fields is None:
            sys.exit(f"no k8s-pb message for {schema_name} ({rust})")
        # Go initialisms differ between the two (HTTPGetAction / HttpGetAction).
        schema = schemas.get(schema_name) or next(
            (v for k, v in schemas.items() if k.lower() == schema_name.lower()), {}
        )
        properties = schema.get("properties") or borrowed.get(schema_name, {})
        by_norm = {norm(p): p for p in properties}
        entry = {}
        for body, rust_name, type_text, module in fields:
            tag = re.search(r'tag = "(\d+)"', body).group(1)
            json_name = by_norm.get(norm(rust_name))
            repeated = "repeated" in body
            kind = body.split(",")[0].split("=")[0].strip()
            if json_name is None and kind == "message" and not repeated:
                # An embedded Go struct (`json:",inline"`): its fields go into this object.
                # Recognised by all of its fields being properties of this object.
                target = "io.k8s." + resolve(type_text, module)
                inner = crate.get(target.removeprefix("io.k8s."), [])
                if inner and all(norm(f[1]) in by_norm for f in inner):
                    entry[tag] = {"inline": True, "message": target}
                    borrowed[target] = properties
                    todo.append(target)
                continue
            if json_name is None:
                # Fields newer than the served schema are not taken.
                continue
            if kind == "btree_map":
                key, value = re.search(r'btree_map = "(\w+), (\w+)"', body).groups()
                field = {"name": json_name, "map": value}
                if value == "message":
                    target = "io.k8s." + resolve(type_text.split(",", 1)[1], module)
                    field["message"] = target
                    todo.append(target)
            elif kind == "message":
                target = "io.k8s." + resolve(type_text, module)
                field = {"name": json_name, "message": target}
                todo.append(target)
            else:
                field = {"name": json_name, "scalar": kind}
            if repeated:
                field["repeated"] = True
            entry[tag] = field
        table[schema_name] = entry
    out = {
        "source": "k8s-pb 0.9.0 (field numbers and types) + vendored OpenAPI (JSON names)",
        "special": SPECIAL,
        "messages": {k: table[k] for k in sorted(table)},
    }
    with open(os.path.join(HERE, "messages.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"messages.json: {len(table)} messages")


if __name__ == "__main__":
    main()

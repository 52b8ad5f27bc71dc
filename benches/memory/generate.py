#!/usr/bin/env python3
"""Writes a CRD and one large custom resource for measuring `kcel validate`'s memory.

    python3 benches/memory/generate.py DIR [ITEMS] [--defaults] [--unknown] [--yaml]

DIR/crd.yaml: a namespaced `Widget` (example.com/v1) whose `spec.items` is a list-type map
keyed by `name` of items (name, port, protocol, weight, enabled with `default: true`, a
labels map), and one rule over the list (`self.items.all(i, i.port > 0)`), which the
per-call cost limit stops on a large list. DIR/object.json: a Widget of ITEMS items
(470,000 by default: about 57 MB). `--defaults` leaves `enabled` out of every item (so
defaulting fills it in everywhere); `--unknown` adds one field the schema does not know
(so pruning removes it); `--yaml` writes the same object as block YAML to DIR/object.yaml
instead. cli/tests/memory.rs generates the same shape.
"""
import json
import pathlib
import sys

CRD = (pathlib.Path(__file__).parent / "widgets-crd.yaml").read_text()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    out = args[0]
    count = int(args[1]) if len(args) > 1 else 470_000
    with open(f"{out}/crd.yaml", "w") as f:
        f.write(CRD)
    if "--yaml" in flags:
        write_yaml(f"{out}/object.yaml", count, flags)
        return
    with open(f"{out}/object.json", "w") as f:
        f.write('{"apiVersion":"example.com/v1","kind":"Widget",')
        f.write('"metadata":{"name":"big","namespace":"default"},"spec":{')
        if "--unknown" in flags:
            f.write('"extra":"pruned",')
        f.write('"items":[')
        for i in range(count):
            item = {"name": f"item-{i}", "port": 1 + i % 65535,
                    "protocol": "TCP" if i % 2 else "UDP", "weight": (i % 1000) / 8 + 0.5}
            if "--defaults" not in flags:
                item["enabled"] = i % 3 != 0
            item["labels"] = {"app": f"a{i % 100}", "tier": "backend"}
            if i:
                f.write(",")
            f.write(json.dumps(item, separators=(",", ":")))
        f.write("]}}\n")


def write_yaml(path, count, flags):
    """The object of `main` as block YAML (one line per field, as kubectl writes it)."""
    with open(path, "w") as f:
        f.write("apiVersion: example.com/v1\nkind: Widget\n")
        f.write("metadata:\n  name: big\n  namespace: default\nspec:\n")
        if "--unknown" in flags:
            f.write("  extra: pruned\n")
        f.write("  items:\n")
        for i in range(count):
            f.write(f"  - name: item-{i}\n    port: {1 + i % 65535}\n")
            f.write(f"    protocol: {'TCP' if i % 2 else 'UDP'}\n")
            f.write(f"    weight: {(i % 1000) / 8 + 0.5}\n")
            if "--defaults" not in flags:
                f.write(f"    enabled: {'true' if i % 3 != 0 else 'false'}\n")
            f.write(f"    labels:\n      app: a{i % 100}\n      tier: backend\n")


if __name__ == "__main__":
    main()

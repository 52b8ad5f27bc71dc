#!/usr/bin/env python3
"""Vendors the Go JSON facts of Kubernetes' built-in types for `builtin::go_round_trip`.

kube-apiserver decodes a built-in object into Go structs and encodes it again with
encoding/json; what survives depends on each field's JSON tag (`omitempty`, `omitzero`) and
Go type (a pointer, slice or map is nil when unset, a struct never is, a type with its own
`MarshalJSON` decides its own encoding). The OpenAPI documents behind `schemas.json` do not
carry those facts, so this script reads them from the Go sources of the Kubernetes 1.37
development line of k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver (the
commits in MODULES below) and writes `go_fields.json` beside itself:

    {"source": {"k8s.io/api": COMMIT, ...},
     "types": {SCHEMA_NAME: "FIELD=KIND,FIELD?KIND,...", ...}}

one entry per struct schema of `schemas.json` whose Go package is read (keyed by the OpenAPI
name, `io.k8s.api.core.v1.ConfigMap`), fields by JSON name (embedded structs' fields
promoted, as encoding/json promotes them), `?` after the name for `omitempty`, `~` for
`omitzero` (`?~` both), `=` for neither. KIND is

    s string   i integer   f float   b bool   y []byte   a interface
    *K pointer to K   [K slice of K   mK map with K values
    {  a struct without its own marshaller (its fields are the referenced schema's entry)
    !Name  a type with its own MarshalJSON (Time, Quantity, IntOrString, ...)

Only names, tags and kinds are recorded; no Go code or comments.

Usage (from the repository root):
    python3 stdlib/kubernetes/builtin/go_fields.py [SOURCES [OUTPUT]]
SOURCES (default: $KCEL_K8S_GO_SOURCES) is a folder holding git repositories (bare or
checked out) named `api`, `apimachinery` and `apiextensions-apiserver` (clones of
github.com/kubernetes/<name>) with the commits below. Without them the script prints a
`skipped:` line and writes nothing: the output is committed, and a test checks it against
this script's output when $KCEL_K8S_GO_SOURCES is set (it skips visibly otherwise).
"""

import json
import os
import re
import subprocess
import sys

# Module -> (folder under SOURCES, commit). The master commits of 22-24 July 2026, after the
# v0.37.0-beta.0 tags: the vendored 1.37.0 OpenAPI has fields the beta tags do not (batch/v1
# JobSchedulingConfiguration, scheduling.k8s.io/v1beta1, ...). The few it has that these
# commits still lack are printed as notes; the library leaves such fields as given.
MODULES = {
    "k8s.io/api": ("api", "10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2"),
    "k8s.io/apimachinery": ("apimachinery", "eed236ceee2c19c2753a3d93ac0631dc20750454"),
    "k8s.io/apiextensions-apiserver": (
        "apiextensions-apiserver", "1aa2717a552ee6ca1e2a18f1f8ffccde981db923"),
}
# The types with their own MarshalJSON that a served field can have; the library knows what
# each encodes its zero value as. Any other one found stops the script.
KNOWN_MARSHALLERS = {
    "Time", "MicroTime", "Duration", "FieldsV1", "Quantity", "IntOrString", "RawExtension",
    "JSON", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrStringArray",
}
INTEGERS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
            "uint64", "uintptr", "byte", "rune"}


class GoSources:
    def __init__(self, folder):
        self.folder = folder
        self.packages = {}

    def git(self, module, *args):
        repo = os.path.join(self.folder, MODULES[module][0])
        return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                              text=True).stdout

    def available(self):
        for name, rev in MODULES.values():
            repo = os.path.join(self.folder, name)
            ok = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet",
                                 rev + "^{commit}"], capture_output=True)
            if ok.returncode != 0:
                return f"{repo}: no git repository with commit {rev}"
        return None

    def package(self, path):
        """The type declarations and marshallers of one Go import path."""
        if path in self.packages:
            return self.packages[path]
        module = next((m for m in MODULES if path == m or path.startswith(m + "/")), None)
        if module is None:
            raise SystemExit(f"import path {path} is outside the modules read")
        folder = path[len(module) + 1:]
        rev = MODULES[module][1]
        names = self.git(module, "ls-tree", "--name-only", rev, folder + "/").split()
        package = Package(path)
        for name in sorted(names):
            if name.endswith(".go") and not name.endswith("_test.go"):
                package.read(self.git(module, "show", f"{rev}:{name}"))
        self.packages[path] = package
        return package


def strip_comments(text):
    """Go source without comments; string and raw-string literals (tags) are kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c in "`\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if c != "`" and text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(text, start, open_char, close_char):
    """The index just past the bracket closing the one at `start`."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "`":
            i = text.index("`", i + 1)
        elif c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == open_char:
            depth += 1
        elif c == close_char:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced brackets")


class Package:
    def __init__(self, path):
        self.path = path
        self.types = {}  # name -> ("struct", [(name, type, tag)], imports) | ("alias", type, imports)
        self.marshallers = set()

    def read(self, source):
        text = strip_comments(source)
        imports = {}
        for block in re.findall(r"^import\s*\((.*?)\)", text, re.S | re.M):
            for line in block.splitlines():
                self.add_import(imports, line)
        for line in re.findall(r"^import\s+([^(\n].*)$", text, re.M):
            self.add_import(imports, line)
        for m in re.finditer(r"^func\s*\(\s*\w*\s*\*?\s*(\w+)\s*\)\s*MarshalJSON\s*\(", text,
                             re.M):
            self.marshallers.add(m.group(1))
        pos = 0
        while True:
            m = re.compile(r"^type\s+", re.M).search(text, pos)
            if not m:
                break
            pos = m.end()
            if text[pos] == "(":
                end = matching(text, pos, "(", ")")
                body = text[pos + 1:end - 1]
                self.declarations(body, imports)
                pos = end
            else:
                pos = self.declaration(text, pos, imports)

    @staticmethod
    def add_import(imports, line):
        m = re.match(r'\s*(\w+|\.|_)?\s*"([^"]+)"', line)
        if m:
            path = m.group(2)
            imports[m.group(1) or path.rsplit("/", 1)[-1]] = path

    def declarations(self, body, imports):
        pos = 0
        while True:
            m = re.compile(r"\S").search(body, pos)
            if not m:
                return
            pos = self.declaration(body, m.start(), imports)

    def declaration(self, text, pos, imports):
        """Reads `Name Type` at `pos`; returns the index after it."""
        m = re.compile(r"(\w+)(\[\w+ [^\]]+\])?\s*(=\s*)?").match(text, pos)
        name, after = m.group(1), m.end()
        if text.startswith("struct", after) and re.match(r"struct\s*\{", text[after:]):
            brace = text.index("{", after)
            end = matching(text, brace, "{", "}")
            self.types[name] = ("struct", self.fields(text[brace + 1:end - 1]), imports)
            return end
        if text.startswith("interface", after):
            brace = text.index("{", after)
            end = matching(text, brace, "{", "}")
            self.types[name] = ("alias", "interface{}", imports)
            return end
        line_end = text.find("\n", after)
        line_end = len(text) if line_end < 0 else line_end
        self.types[name] = ("alias", text[after:line_end].strip(), imports, bool(m.group(3)))
        return line_end

    @staticmethod
    def fields(body):
        out = []
        for line in body.split("\n"):
            line = line.strip()
            if not line:
                continue
            tag = ""
            m = re.search(r"`([^`]*)`\s*$", line)
            if m:
                tag, line = m.group(1), line[:m.start()].strip()
            parts = line.split(None, 1)
            if len(parts) == 1:  # embedded
                out.append((None, parts[0], tag))
            else:
                if "," in parts[0] or "{" in parts[1].replace("interface{}", ""):
                    # Not a form the API types use; an error if a served type has it.
                    out.append(("!unhandled", line, tag))
                    continue
                out.append((parts[0], parts[1], tag))
        return out


class Facts:
    def __init__(self, sources):
        self.sources = sources

    def resolve(self, package, expr, imports):
        """The (package, name) an identifier refers to, or None for a predeclared type."""
        if "." in expr:
            alias, name = expr.split(".", 1)
            return self.sources.package(imports[alias]), name
        if expr in package.types:
            return package, expr
        return None

    def kind(self, package, expr, imports, seen=()):
        expr = expr.strip()
        if expr.startswith("*"):
            return "*" + self.kind(package, expr[1:], imports, seen)
        if expr == "[]byte":
            return "y"
        if expr.startswith("[]"):
            return "[" + self.kind(package, expr[2:], imports, seen)
        if expr.startswith("map["):
            end = matching(expr, 3, "[", "]")
            return "m" + self.kind(package, expr[end:], imports, seen)
        if expr in ("interface{}", "any"):
            return "a"
        if expr == "string":
            return "s"
        if expr == "bool":
            return "b"
        if expr in ("float32", "float64"):
            return "f"
        if expr in INTEGERS:
            return "i"
        target = self.resolve(package, expr, imports)
        if target is None:
            raise SystemExit(f"{package.path}: unknown type {expr}")
        pkg, name = target
        if name in pkg.marshallers:
            if name not in KNOWN_MARSHALLERS:
                raise SystemExit(f"{pkg.path}.{name} has its own MarshalJSON: not known")
            return "!" + name
        if name not in pkg.types:
            raise SystemExit(f"{pkg.path}: no type {name}")
        if (pkg.path, name) in seen:
            raise SystemExit(f"{pkg.path}.{name}: recursive alias")
        decl = pkg.types[name]
        if decl[0] == "struct":
            return "{"
        kind = self.kind(pkg, decl[1], decl[2], seen + ((pkg.path, name),))
        if kind.startswith("!") and not decl[3]:
            raise SystemExit(f"{pkg.path}.{name}: a defined type over {kind[1:]} (no methods)")
        return kind

    def struct_decl(self, package, expr, imports):
        """The (package, name) of the struct type `expr` names, through `type X = Y`."""
        target = self.resolve(package, expr, imports)
        if target is None:
            return None
        pkg, name = target
        decl = pkg.types.get(name)
        if decl is None or name in pkg.marshallers:
            return None
        if decl[0] == "struct":
            return pkg, name
        return self.struct_decl(pkg, decl[1], decl[2]) if decl[3] else None

    def struct_fields(self, package, name):
        """[(json name, flags, kind)] of a struct type, embedded fields promoted."""
        decl = package.types[name]
        out = []
        for field, typ, tag in decl[1]:
            if field == "!unhandled":
                raise SystemExit(f"{package.path}.{name}: field form not handled: {typ}")
            tags = dict(re.findall(r'(\w+):"([^"]*)"', tag))
            parts = tags.get("json", "").split(",") if "json" in tags else None
            json_name = parts[0] if parts else ""
            if json_name == "-" and parts and len(parts) == 1:
                continue
            options = set(parts[1:]) if parts else set()
            if field is None and not json_name:
                if typ.startswith("*"):
                    raise SystemExit(f"{package.path}.{name}: embedded pointer {typ}")
                target = self.struct_decl(package, typ, decl[2])
                if target is None:
                    raise SystemExit(f"{package.path}.{name}: embedded {typ} not a struct")
                out.extend(self.struct_fields(*target))
                continue
            go_name = field if field is not None else typ.lstrip("*").split(".")[-1]
            if not go_name[0].isupper():
                continue
            flags = ("?" if "omitempty" in options else "") + (
                "~" if "omitzero" in options else "")
            out.append((json_name or go_name, flags or "=",
                        self.kind(package, typ, decl[2])))
        return out


def go_location(schema_name):
    """`io.k8s.api.core.v1.ConfigMap` -> ("k8s.io/api/core/v1", "ConfigMap")."""
    parts = schema_name.split(".")
    if parts[:2] != ["io", "k8s"]:
        return None
    return "k8s.io/" + "/".join(parts[2:-1]), parts[-1]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KCEL_K8S_GO_SOURCES", "")
    target = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "go_fields.json")
    sources = GoSources(folder)
    missing = "no folder given (KCEL_K8S_GO_SOURCES)" if not folder else sources.available()
    if missing:
        print(f"skipped: go_fields.py: Go sources not found: {missing}; {target} left as is",
              file=sys.stderr)
        return
    with open(os.path.join(here, "schemas.json")) as f:
        schemas = json.load(f)["schemas"]
    facts = Facts(sources)
    types, unread, mismatches = {}, [], []
    for schema_name in sorted(schemas):
        location = go_location(schema_name)
        module = location and next(
            (m for m in MODULES if location[0].startswith(m + "/")), None)
        if not module:
            unread.append(schema_name)
            continue
        package = sources.package(location[0])
        name = location[1]
        if name not in package.types:
            mismatches.append(f"{schema_name}: no Go type"); continue
        if name in package.marshallers:
            continue
        struct = facts.struct_decl(package, name, {})
        if struct is None:
            continue
        fields = facts.struct_fields(*struct)
        names = [f[0] for f in fields]
        if len(set(names)) != len(names):
            raise SystemExit(f"{schema_name}: a JSON name twice: {names}")
        properties = set(schemas[schema_name].get("properties", {}))
        if properties != set(names):
            mismatches.append(f"{schema_name}: OpenAPI only {sorted(properties - set(names))}"
                              f", Go only {sorted(set(names) - properties)}")
        types[schema_name] = ",".join(f"{n}{flags}{kind}" for n, flags, kind in fields)
    out = {"source": {m: rev for m, (_, rev) in MODULES.items()}, "types": types}
    with open(target, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    for line in mismatches:
        print(f"note: {line}", file=sys.stderr)
    print(f"{target}: {len(types)} struct types; without Go sources read: {len(unread)} "
          f"({', '.join(sorted({n.rsplit('.', 1)[0] for n in unread}))})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where the bytes of a wasm module go: per section, and the code per Rust crate (from the
name section, so run it on a module that still has one, i.e. before wasm-opt), each raw and
gzip -9. Usage: sizes.py MODULE.wasm"""
import gzip
import re
import sys
from collections import defaultdict


def leb(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, pos


def gz(b):
    return len(gzip.compress(bytes(b), 9))


def sections(data):
    pos = 8
    while pos < len(data):
        sid = data[pos]
        size, body = leb(data, pos + 1)
        yield sid, data[body:body + size]
        pos = body + size


def custom_name(body):
    n, p = leb(body, 0)
    return body[p:p + n].decode(), body[p + n:]


NAMES = {0: 'custom', 1: 'type', 2: 'import', 3: 'function', 4: 'table', 5: 'memory', 6: 'global',
         7: 'export', 8: 'start', 9: 'element', 10: 'code', 11: 'data', 12: 'datacount'}


def function_names(body):
    names = {}
    pos = 0
    while pos < len(body):
        sub = body[pos]
        size, p = leb(body, pos + 1)
        if sub == 1:
            count, q = leb(body, p)
            for _ in range(count):
                idx, q = leb(body, q)
                n, q = leb(body, q)
                names[idx] = body[q:q + n].decode('utf-8', 'replace')
                q += n
        pos = p + size
    return names


def crate_of(name):
    # legacy mangling (_ZN4kcel4eval...) or a demangled path (kcel::eval::...)
    m = re.match(r'_ZN(\d+)', name)
    if m:
        n = int(m.group(1))
        start = m.end()
        first = name[start:start + n]
        if first.startswith('_$LT$'):
            inner = re.match(r'_\$LT\$([A-Za-z0-9_]+)', first)
            return inner.group(1) if inner else '<impl>'
        return first
    m = re.match(r'<?([A-Za-z0-9_]+)::', name)
    return m.group(1) if m else '<other>'


def main():
    data = open(sys.argv[1], 'rb').read()
    imports = 0
    bodies = []
    names = {}
    rows = []
    for sid, body in sections(data):
        label = NAMES.get(sid, str(sid))
        if sid == 0:
            cname, rest = custom_name(body)
            label = f'custom "{cname}"'
            if cname == 'name':
                names = function_names(rest)
        rows.append((label, len(body), gz(body)))
        if sid == 2:
            count, p = leb(body, 0)
            for _ in range(count):
                for _ in range(2):
                    n, p = leb(body, p)
                    p += n
                kind = body[p]
                p += 1
                if kind == 0:
                    _, p = leb(body, p)
                    imports += 1
                elif kind == 1:
                    p += 1
                    flags, p = leb(body, p)
                    _, p = leb(body, p)
                    if flags & 1:
                        _, p = leb(body, p)
                elif kind == 2:
                    flags, p = leb(body, p)
                    _, p = leb(body, p)
                    if flags & 1:
                        _, p = leb(body, p)
                elif kind == 3:
                    p += 2
        if sid == 10:
            count, p = leb(body, 0)
            for _ in range(count):
                size, q = leb(body, p)
                bodies.append(body[q:q + size])
                p = q + size
    print(f'{sys.argv[1]}: {len(data):,} bytes raw, {gz(data):,} gzip -9')
    print(f'{"section":28} {"raw":>10} {"gzip":>9}')
    for label, raw, z in rows:
        print(f'{label:28} {raw:>10,} {z:>9,}')
    if names and bodies:
        by_crate = defaultdict(list)
        for i, b in enumerate(bodies):
            by_crate[crate_of(names.get(imports + i, ''))].append(b)
        print(f'\ncode by crate (gzip of the crate\'s function bodies alone)')
        total = sum(len(b) for b in bodies)
        for crate, bs in sorted(by_crate.items(), key=lambda kv: -sum(len(b) for b in kv[1]))[:25]:
            raw = sum(len(b) for b in bs)
            print(f'{crate:28} {raw:>10,} {gz(b"".join(bs)):>9,}  {100 * raw / total:4.1f}%')


if __name__ == '__main__':
    main()

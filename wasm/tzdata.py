#!/usr/bin/env python3
"""Writes the time-zone table the browser module loads on first use (kcel's binary form,
see src/standard/time_zones.rs) from the data of the chrono-tz crate the native engine
compiles in, so both answer alike (tests/time_zones.rs compares them at every transition).

Usage: tzdata.py OUT   (run from anywhere; finds chrono-tz's sources through `cargo metadata`)

chrono-tz ships its IANA data as generated Rust tables (src/prebuilt/timezones.rs): per zone
a first span and the transitions `(UTC seconds, FixedTimespan { utc_offset, dst_offset, .. })`.
Only the total offset matters to CEL (the wall clock in the zone), so a timeline is the first
offset and (instant, offset) pairs; zones with equal timelines (links) share one.
"""
import json
import os
import re
import subprocess
import sys


def chrono_tz_dir():
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1"],
        cwd=os.path.dirname(os.path.abspath(__file__)), check=True, capture_output=True,
        text=True).stdout)
    dirs = [os.path.dirname(p["manifest_path"]) for p in meta["packages"] if p["name"] == "chrono-tz"]
    if len(dirs) != 1:
        sys.exit(f"tzdata.py: expected one chrono-tz package in the workspace, found {len(dirs)}")
    return dirs[0]


SPAN = re.compile(r"\((-?\d+), FixedTimespan \{ utc_offset: (-?\d+), dst_offset: (-?\d+), ")
FIRST = re.compile(r"first: FixedTimespan \{\s*utc_offset: (-?\d+),\s*dst_offset: (-?\d+),")
NAME = re.compile(r'^\s*Tz::(\w+) => "([^"]+)",\s*$')
VERSION = re.compile(r'IANA_TZDB_VERSION: &str = "([^"]+)"')


def read(src):
    text = open(os.path.join(src, "src", "prebuilt", "timezones.rs"), encoding="utf-8").read()
    names = {}
    timelines = {}
    for line in text.splitlines():
        m = NAME.match(line)
        if m:
            names[m.group(1)] = m.group(2)
    # Each zone's arm of `fn timespans`: its transitions, then its first span.
    for m in re.finditer(r"Tz::(\w+) => \{\s*const REST: [^\n]*\n(.*?)rest: REST", text, re.S):
        variant, body = m.group(1), m.group(2)
        spans = [(int(a), int(u) + int(d)) for a, u, d in SPAN.findall(body)]
        first = FIRST.search(body)
        if not first:
            sys.exit(f"tzdata.py: no first span for {variant}")
        timelines[variant] = (int(first.group(1)) + int(first.group(2)), spans)
    version = None
    for path in ("src/lib.rs", "src/prebuilt/timezones.rs", "src/prebuilt/directory.rs"):
        found = VERSION.search(open(os.path.join(src, path), encoding="utf-8").read())
        if found:
            version = found.group(1)
            break
    return version or "unknown", names, timelines


def varint(out, v):
    assert v >= 0
    while True:
        byte = v & 0x7F
        v >>= 7
        if v == 0:
            out.append(byte)
            return
        out.append(byte | 0x80)


def zigzag(out, v):
    varint(out, (v << 1) if v >= 0 else ((-v) << 1) - 1)


def encode(version, names, timelines):
    if set(names) != set(timelines) or not names:
        sys.exit(f"tzdata.py: {len(names)} names but {len(timelines)} timelines in chrono-tz's data")
    index = {}
    order = []
    zone_index = {}
    for variant in sorted(names, key=names.get):
        first, spans = timelines[variant]
        key = (first, tuple(spans))
        if key not in index:
            index[key] = len(order)
            order.append(key)
        zone_index[names[variant]] = index[key]
    out = bytearray(b"KCELTZ1\n")
    varint(out, len(version.encode()))
    out += version.encode()
    varint(out, len(order))
    for first, spans in order:
        zigzag(out, first)
        varint(out, len(spans))
        prev = None
        for at, offset in spans:
            if prev is None:
                zigzag(out, at)
            else:
                assert at > prev, "transitions ascend"
                varint(out, at - prev)
            zigzag(out, offset)
            prev = at
    varint(out, len(zone_index))
    for name, i in sorted(zone_index.items()):
        varint(out, len(name.encode()))
        out += name.encode()
        varint(out, i)
    return bytes(out), len(order)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tzdata.py OUT")
    version, names, timelines = read(chrono_tz_dir())
    data, distinct = encode(version, names, timelines)
    with open(sys.argv[1], "wb") as f:
        f.write(data)
    print(f"tzdata.py: {len(names)} zones, {distinct} distinct timelines, IANA {version}, "
          f"{len(data)} bytes -> {sys.argv[1]}")


if __name__ == "__main__":
    main()

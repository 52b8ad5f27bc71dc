#!/usr/bin/env python3
"""Turns criterion's results of `cargo bench -p kcel-benches --bench workload` into the BENCHMARKS.md table.

Usage: python3 benches/report.py [CRITERION_DIR...]   (default: target/criterion)
       python3 benches/report.py --interleaved RUN.json...

Reads every */new/benchmark.json (group and function names) with the estimates.json next
to it, and prints Markdown: per case the median of kcel, kcel_from_json and the cel crate
and the ratio cel/kcel; the geometric mean of the ratios (without trivial_true); the
compile medians and their medians over all cases. Case order follows the workload file.
Given several directories (copies of target/criterion from separate runs), each figure is
the median over the runs of criterion's median, and each run's geometric mean is listed.

With --interleaved, reads the JSON files of `cargo bench -p kcel-benches --bench interleaved -- --json
FILE` runs instead: per case the medians over the runs of the per-call times and of the
median per-round ratio, each run's ratio, and the lowest round's ratio of all runs.
"""

import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOAD = ROOT / ".." / "shared" / "bench" / "workload.json"
EXCLUDED_FROM_MEAN = {"trivial_true"}


def fmt(ns):
    if ns is None:
        return "n/a"
    for unit, scale in (("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def median(values):
    values = sorted(values)
    n = len(values)
    return None if n == 0 else (values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)


def load(criterion_dir):
    """{(group, function): median ns} from criterion's output directory."""
    results = {}
    for bench in criterion_dir.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        function = meta["function_id"]
        if meta.get("value_str"):
            function = f"{function}/{meta['value_str']}"
        results[(meta["group_id"], function)] = estimates["median"]["point_estimate"]
    return results


def geometric_mean(results, cases):
    """The geometric mean of cel / kcel over the cases (without the excluded ones)."""
    ratios = [results[(c, "cel")] / results[(c, "kcel")] for c in cases
              if c not in EXCLUDED_FROM_MEAN and (c, "cel") in results and (c, "kcel") in results]
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None


def interleaved(paths):
    runs = [json.loads(Path(p).read_text()) for p in paths]
    cases = [c["name"] for c in json.loads(WORKLOAD.read_text())]
    by_case = [{c["case"]: c for c in run["cases"]} for run in runs]
    print("| case | kcel | cel 0.15 | cel / kcel | per run | lowest round |")
    print("|---|---:|---:|---:|---|---:|")
    ratios = []
    for case in cases:
        rows = [r[case] for r in by_case if case in r]
        if not rows:
            print(f"| {case} | n/a | n/a | n/a | | |")
            continue
        ratio = median([r["ratio"] for r in rows])
        if case not in EXCLUDED_FROM_MEAN:
            ratios.append(ratio)
        each = ", ".join(f"{r['ratio']:.1f}×" for r in rows)
        print(f"| {case} | {fmt(median([r['kcel_seconds'] * 1e9 for r in rows]))} "
              f"| {fmt(median([r['cel_seconds'] * 1e9 for r in rows]))} | {ratio:.1f}× "
              f"| {each} | {min(r['lowest'] for r in rows):.1f}× |")
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    each = ", ".join(f"{run['geomean']:.1f}×" for run in runs)
    print(f"\nGeometric mean of the median ratios over {len(ratios)} cases "
          f"(without {', '.join(sorted(EXCLUDED_FROM_MEAN))}): **{geomean:.1f}×**; "
          f"lowest {min(ratios):.1f}×. Per run ({len(runs)} runs of "
          f"{runs[0]['rounds']} rounds): {each}.")


def main():
    if sys.argv[1:2] == ["--interleaved"]:
        interleaved(sys.argv[2:])
        return
    dirs = [Path(d) for d in sys.argv[1:]] or [Path(
        os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "criterion"]
    runs = [load(d) for d in dirs]
    cases = [c["name"] for c in json.loads(WORKLOAD.read_text())]
    results = {key: median([r[key] for r in runs if key in r])
               for key in set().union(*runs)}

    print("| case | kcel | kcel_from_json | cel 0.15 | cel / kcel |")
    print("|---|---:|---:|---:|---:|")
    ratios = []
    for case in cases:
        kcel = results.get((case, "kcel"))
        from_json = results.get((case, "kcel_from_json"))
        cel = results.get((case, "cel"))
        ratio = cel / kcel if cel and kcel else None
        if ratio and case not in EXCLUDED_FROM_MEAN:
            ratios.append(ratio)
        shown = "n/a" if ratio is None else f"{ratio:.1f}×"
        print(f"| {case} | {fmt(kcel)} | {fmt(from_json)} | {fmt(cel)} | {shown} |")
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\nGeometric mean of cel / kcel over {len(ratios)} cases "
              f"(without {', '.join(sorted(EXCLUDED_FROM_MEAN))}): **{geomean:.1f}×**; "
              f"lowest {min(ratios):.1f}×, highest {max(ratios):.1f}×.")
    if len(runs) > 1:
        each = ", ".join(f"{geometric_mean(r, cases):.1f}×" for r in runs)
        print(f"Per run ({len(runs)} runs, figures above are medians over the runs): {each}.")

    print("\n| compile | kcel (parse + check + plan) | cel 0.15 (parse) |")
    print("|---|---:|---:|")
    kcel_all, cel_all = [], []
    for case in cases:
        kcel = results.get(("compile", f"kcel/{case}"))
        cel = results.get(("compile", f"cel/{case}"))
        kcel_all += [kcel] if kcel else []
        cel_all += [cel] if cel else []
        print(f"| {case} | {fmt(kcel)} | {fmt(cel)} |")
    print(f"| **median over cases** | **{fmt(median(kcel_all))}** | **{fmt(median(cel_all))}** |")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Issue 19's write target, two builds side by side (run by hand, not in CI): the server's
# ConfigMap creates on etcd against raw etcd puts, per create the server's and etcd's CPU time
# (utime + stime of /proc/PID/stat), for build A and build B interleaved in the same minutes
# (A then B in odd rounds, B then A in even ones), so that a shared machine's load moves both
# alike. Each run starts a fresh etcd: raw puts first (examples/etcd_put.rs), then one server
# and its creates (examples/loadgen.rs, create phase only). Loopback only; every step has a
# time limit and every process this starts is stopped at the end, also on failure.
#
#   cargo build --release -p kcel-apiserver --features etcd --bin kcel-apiserver \
#       --example loadgen --example etcd_put        # in each checkout; copy target/release away
#   apiserver/bench/etcd_creates_ab.sh DIR_A DIR_B [ROUNDS] [CLIENTS] [COUNT]
#
# DIR_A and DIR_B each hold kcel-apiserver and examples/{loadgen,etcd_put} (a release
# directory); the clients (loadgen, etcd_put) are always A's, so only the server differs.
# Defaults: 4 rounds, 8 clients × 500. etcd: Debian's `etcd` (or KCEL_ETCD), and
# KCEL_ETCD_PROGRESS too when set. One line per run (`ab ...`), then per build and etcd the
# medians.
set -euo pipefail

[[ $# -ge 2 ]] || { sed -n 2,19p "$0" >&2; exit 2; }
dir_a=$(cd "$1" && pwd)
dir_b=$(cd "$2" && pwd)
rounds=${3:-4}
clients=${4:-8}
count=${5:-500}
limit=${KCEL_BENCH_LIMIT:-300} # seconds per step
for binary in "$dir_a/kcel-apiserver" "$dir_b/kcel-apiserver" "$dir_a/examples/loadgen" \
    "$dir_a/examples/etcd_put"; do
    [[ -x $binary ]] || { echo "missing $binary: build it first (see the header)" >&2; exit 2; }
done

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"



start_server() { # binary, dir, then server flags; sets server_pid
    local binary=$1 dir=$2; shift 2
    mkdir -p "$dir"
    "$binary" --data-dir "$dir" --listen 127.0.0.1:0 "$@" >"$dir/out" 2>"$dir/err" &
    server_pid=$!
    pids+=("$server_pid")
    local waited=0
    until grep -q "serving on" "$dir/out" 2>/dev/null; do
        sleep 0.1
        waited=$((waited + 1))
        if ((waited > 300)) || ! kill -0 "$server_pid" 2>/dev/null; then
            echo "the server did not start:" >&2; cat "$dir/err" >&2; return 1
        fi
    done
}

field() { # pattern, text: the first number after the pattern
    grep -o "$1 *[0-9.]*" <<<"$2" | head -1 | grep -o '[0-9.]*$' || echo "?"
}

run() { # round, etcd name, etcd binary, build name, build dir
    local round=$1 name=$2 etcd=$3 build=$4 dir=$5 d=$work/$1-$2-$4
    mkdir -p "$d"
    start_etcd "$etcd" "$d/etcd"
    local load put create
    load=$(cut -d' ' -f1 /proc/loadavg)
    put=$(timeout "$limit" "$dir_a/examples/etcd_put" "$etcd_url" "$clients" "$count" "$etcd_pid")
    start_server "$dir/kcel-apiserver" "$d/server" --storage etcd --etcd-servers "$etcd_url"
    create=$(KCEL_LOADGEN_PHASES=create KCEL_LOADGEN_STORE_PID=$etcd_pid \
        timeout "$limit" "$dir_a/examples/loadgen" "$d/server/kubeconfig" "$clients" "$count" "$server_pid")
    kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
    kill -TERM "$etcd_pid"; wait "$etcd_pid" 2>/dev/null || true
    local raw rate
    raw=$(awk '{print $4}' <<<"$(grep '^put' <<<"$put")")
    rate=$(awk '{print $4}' <<<"$(grep '^create' <<<"$create")")
    echo "ab round=$round etcd=$name build=$build load=$load raw_put_per_s=$raw" \
        "create_per_s=$rate ratio=$(awk -v a="$rate" -v b="$raw" 'BEGIN{printf "%.3f", a/b}')" \
        "etcd_us_per_put=$(field "etcd CPU per put:" "$put")" \
        "server_us_per_create=$(field "server CPU per create:" "$create")" \
        "etcd_us_per_create=$(field "store CPU per create:" "$create")"
    rm -rf "$d"
}

etcds=()
etcd_bin=${KCEL_ETCD:-$(command -v etcd || true)}
[[ -n $etcd_bin ]] && etcds+=("etcd=$etcd_bin")
[[ -n ${KCEL_ETCD_PROGRESS:-} ]] && etcds+=("etcd-progress=$KCEL_ETCD_PROGRESS")
((${#etcds[@]})) || { echo "no etcd binary (Debian etcd-server, KCEL_ETCD or KCEL_ETCD_PROGRESS)" >&2; exit 2; }
echo "# A=$dir_a B=$dir_b rounds=$rounds clients=$clients count=$count $(date -u +%FT%TZ)"
results=$work/results
for round in $(seq "$rounds"); do
    for e in "${etcds[@]}"; do
        name=${e%%=*}; binary=${e#*=}
        if ((round % 2)); then order=("A=$dir_a" "B=$dir_b"); else order=("B=$dir_b" "A=$dir_a"); fi
        for o in "${order[@]}"; do
            # Not in a pipeline: a pipeline's subshell would keep the pids it starts from
            # the exit trap, and a failed run would leave its server and etcd running.
            run "$round" "$name" "$binary" "${o%%=*}" "${o#*=}" >"$work/line"
            tee -a "$results" <"$work/line"
        done
    done
done
echo "# medians per build and etcd (ratio = create rate ÷ raw put rate of the same etcd run)"
for e in "${etcds[@]}"; do
    for build in A B; do
        grep "etcd=${e%%=*} build=$build " "$results" | python3 -c '
import sys, statistics
rows = [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in sys.stdin]
def med(key):
    vals = [float(r[key]) for r in rows if r.get(key, "?") not in ("?", "")]
    return statistics.median(vals) if vals else float("nan")
keys = ["ratio", "server_us_per_create", "etcd_us_per_create", "etcd_us_per_put"]
medians = " ".join("%s=%.3f" % (k, med(k)) for k in keys)
print("median etcd=%s build=%s runs=%d %s" % (sys.argv[1], sys.argv[2], len(rows), medians))
' "${e%%=*}" "$build"
    done
done

#!/usr/bin/env bash
# The apiserver's release benchmark, run by hand (not in CI): the same load (examples/loadgen.rs:
# CLIENTS concurrent clients × COUNT ConfigMaps each, create/get/list/update with p50/p99, then
# lists of everything) against kcel-apiserver on each storage backend in turn — SQLite, memory,
# and etcd when an `etcd` binary is found — on 127.0.0.1 only. Every step has a time limit and
# every process it starts is stopped at the end, also on failure. Prints the machine's load
# average before and after each run (other jobs may share the machine: note it with the figures).
#
#   cargo build --release -p kcel-apiserver --features etcd --bin kcel-apiserver --example loadgen
#   apiserver/bench/backends.sh [CLIENTS] [COUNT]        # default 8 × 1250 = 10,000 objects
#
set -euo pipefail

clients=${1:-8}
count=${2:-1250}
root=$(cd "$(dirname "$0")/../.." && pwd)
server=${KCEL_APISERVER:-$root/target/release/kcel-apiserver}
loadgen=${KCEL_LOADGEN:-$root/target/release/examples/loadgen}
limit=${KCEL_BENCH_LIMIT:-900} # seconds per backend run
for binary in "$server" "$loadgen"; do
    [[ -x $binary ]] || { echo "missing $binary: build it first (see the header)" >&2; exit 2; }
done

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

rss() { awk '/^VmRSS/ {print $2 " KiB"}' "/proc/$1/status" 2>/dev/null || echo "?"; }

run() { # backend-name, then server flags
    local name=$1; shift
    local dir=$work/$name
    mkdir -p "$dir"
    echo "== $name ($clients clients × $count ConfigMaps), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$server" --data-dir "$dir" --listen 127.0.0.1:0 "$@" >"$dir/out" 2>"$dir/err" &
    local pid=$!
    pids+=("$pid")
    local waited=0
    until grep -q "serving on" "$dir/out" 2>/dev/null; do
        sleep 0.1
        waited=$((waited + 1))
        if ((waited > 300)) || ! kill -0 "$pid" 2>/dev/null; then
            echo "the server did not start:" >&2; cat "$dir/err" >&2; return 1
        fi
    done
    timeout "$limit" "$loadgen" "$dir/kubeconfig" "$clients" "$count" "$pid"
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
}

run sqlite --storage sqlite
run memory --storage memory

etcd_bin=${KCEL_ETCD:-$(command -v etcd || true)}
if [[ -z $etcd_bin ]]; then
    echo "== etcd skipped: no etcd binary (Debian etcd-server, or KCEL_ETCD)"
else
    start_etcd "$etcd_bin" "$work/etcd"
    echo "etcd RSS before: $(rss "$etcd_pid")"
    # A server built without the cargo feature `etcd` refuses to start: said, not fatal.
    run etcd --storage etcd --etcd-servers "$etcd_url" ||
        echo "== etcd run failed (a build without the etcd feature says so above)"
    echo "etcd RSS after: $(rss "$etcd_pid")"
fi

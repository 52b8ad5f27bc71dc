#!/usr/bin/env bash
# Issue 19's release measurements, run by hand (not in CI): lists of 10,000 objects (full,
# paged by 500, a 1-of-4 uid shard against an unfiltered list of the same output size, by
# wall time and by the server's CPU time), watch fan-out to many watchers, and the create rate
# of the server on SQLite and on etcd against raw etcd puts (same client crate, same
# concurrency, same etcd process). ROUNDS rounds one after another; each round starts every
# server and etcd afresh. Loopback only; every step has a time limit and every process this
# starts is stopped at the end, also on failure. The load average is printed before each step:
# other jobs may share the machine, so compare figures within a round.
#
#   cargo build --release -p kcel-apiserver --features etcd --bin kcel-apiserver \
#       --example loadgen --example watch_fanout --example etcd_put
#   apiserver/bench/lists_watch_writes.sh [ROUNDS] [CLIENTS] [COUNT] [WATCHERS] [WRITES]
#
# Defaults: 3 rounds, 8 clients × 1250 ConfigMaps (10,000), 1,000 watchers × 20 writes paced
# 200 ms apart. etcd: Debian's `etcd` (or KCEL_ETCD), and KCEL_ETCD_PROGRESS when set (an etcd
# that answers progress requests, 3.5.13+: consistent lists come from the watch cache there).
# The load runs creates and updates, then the timed lists (KCEL_LOADGEN_PHASES=create,get,list,
# update,lists for all); on etcd, etcd's CPU time per put and per server request is printed too.
set -euo pipefail

rounds=${1:-3}
clients=${2:-8}
count=${3:-1250}
watchers=${4:-1000}
writes=${5:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${KCEL_BENCH_BIN:-$root/target/release}
server=$bin/kcel-apiserver
limit=${KCEL_BENCH_LIMIT:-600} # seconds per step
for binary in "$server" "$bin/examples/loadgen" "$bin/examples/watch_fanout" "$bin/examples/etcd_put"; do
    [[ -x $binary ]] || { echo "missing $binary: build it first (see the header)" >&2; exit 2; }
done
# The fan-out opens one connection per watcher, plus the server's side of each.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

load() { echo "  [load average $(cut -d' ' -f1-3 /proc/loadavg)]"; }

start_server() { # dir, then server flags; sets server_pid
    local dir=$1; shift
    mkdir -p "$dir"
    "$server" --data-dir "$dir" --listen 127.0.0.1:0 \
        --feature-gates=ShardedListAndWatch=true "$@" >"$dir/out" 2>"$dir/err" &
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


measure() { # name, dir, then server flags
    local name=$1 dir=$2; shift 2
    start_server "$dir" "$@"
    echo "-- $name: $clients clients × $count ConfigMaps"; load
    KCEL_LOADGEN_PHASES=${KCEL_LOADGEN_PHASES:-create,update,lists} KCEL_LOADGEN_STORE_PID=${store_pid:-} \
        timeout "$limit" "$bin/examples/loadgen" "$dir/kubeconfig" "$clients" "$count" "$server_pid"
    echo "-- $name: watch fan-out, $watchers watchers × $writes writes 200 ms apart"; load
    timeout "$limit" "$bin/examples/watch_fanout" "$dir/kubeconfig" "$watchers" "$writes" 200
    kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
}

on_etcd() { # name, etcd binary
    local name=$1 binary=$2 dir=$work/$round/$1
    mkdir -p "$dir"
    start_etcd "$binary" "$dir/etcd"
    echo "-- $name: $("$binary" --version | sed -n 1p)"
    echo "-- $name: raw etcd puts, $clients clients × $count"; load
    timeout "$limit" "$bin/examples/etcd_put" "$etcd_url" "$clients" "$count" "$etcd_pid"
    store_pid=$etcd_pid measure "server on $name" "$dir/server" --storage etcd --etcd-servers "$etcd_url"
    kill -TERM "$etcd_pid"; wait "$etcd_pid" 2>/dev/null || true
}

etcd_bin=${KCEL_ETCD:-$(command -v etcd || true)}
for round in $(seq "$rounds"); do
    echo "== round $round of $rounds ($(date -u +%H:%M:%S) UTC)"
    measure sqlite "$work/$round/sqlite" --storage sqlite
    if [[ -n $etcd_bin ]]; then
        on_etcd etcd "$etcd_bin"
    else
        echo "-- etcd skipped: no etcd binary (Debian etcd-server, or KCEL_ETCD)"
    fi
    if [[ -n ${KCEL_ETCD_PROGRESS:-} ]]; then
        on_etcd etcd-progress "$KCEL_ETCD_PROGRESS"
    else
        echo "-- etcd with progress requests skipped: KCEL_ETCD_PROGRESS is not set"
    fi
    rm -rf "${work:?}/$round"
done

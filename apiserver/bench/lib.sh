# Shared by the benchmark drivers in this directory (sourced, not run): a scratch directory
# `$work` removed at exit, `pids` killed at exit, `port` (a free loopback port) and
# `start_etcd` (one etcd member on loopback, waited for).

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_etcd() { # binary, dir; sets etcd_pid and etcd_url
    local client peer
    client=$(port); peer=$(port)
    "$1" --name bench --data-dir "$2" \
        --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "bench=http://127.0.0.1:$peer" >"$2.log" 2>&1 &
    etcd_pid=$!
    pids+=("$etcd_pid")
    etcd_url=http://127.0.0.1:$client
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$client") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "etcd did not start" >&2; return 1
}

#!/usr/bin/env bash
# Peak memory of `kcel validate --crd` on benches/memory/generate.py's object (470,000
# items, 57.9 MB of JSON) side by side with a peer: Go's encoding/json decoding the same
# text into map[string]interface{} (go_decode/), the tree kube-apiserver holds for a custom
# resource before it validates anything. Run by hand (not in CI):
#
#     benches/memory/peer.sh [ROUNDS]     (default 3; needs python3 and /usr/bin/time)
#
# Builds kcel in release, fetches Debian's Go 1.19 with `apt-get download` into
# target/go-peer (no root needed; nothing installed system-wide), runs the two programs
# ROUNDS times interleaved and prints each run's peak RSS (`/usr/bin/time -v`) and wall
# time, then the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
root=$PWD
work="$root/target/go-peer"
mkdir -p "$work/object"
cargo build --release -p kcel-cli --quiet
if [ ! -x "$work/go/usr/lib/go-1.19/bin/go" ]; then
  (cd "$work" && apt-get download golang-1.19-go golang-1.19-src >/dev/null 2>&1 \
    && for deb in golang-1.19-*.deb; do dpkg -x "$deb" go; done)
fi
export GOROOT="$work/go/usr/lib/go-1.19" GOCACHE="$work/cache" GOPATH="$work/gopath"
(cd benches/memory/go_decode && "$GOROOT/bin/go" build -o "$work/go_decode" .)
[ -f "$work/object/object.json" ] || python3 benches/memory/generate.py "$work/object"
cd "$work/object"
printf 'input: %d bytes of JSON\n' "$(wc -c < object.json)"
measure() { # LABEL COMMAND...
  local label=$1 log
  shift
  log=$(mktemp)
  /usr/bin/time -v "$@" > /dev/null 2> "$log" || true
  printf '%-8s %8d kB peak RSS %10s wall (exit %s)\n' "$label" \
    "$(awk '/Maximum resident/ {print $NF}' "$log")" "$(awk '/Elapsed/ {print $NF}' "$log")" \
    "$(awk '/Exit status/ {print $NF}' "$log")" | tee -a "$work/runs.txt"
  rm -f "$log"
}
: > "$work/runs.txt"
for round in $(seq "$rounds"); do
  echo "round $round"
  measure kcel "$root/target/release/kcel" validate --crd crd.yaml object.json
  measure go "$work/go_decode" object.json
done
for label in kcel go; do
  awk -v l="$label" '$1 == l {print $2}' "$work/runs.txt" | sort -n \
    | awk -v l="$label" '{v[NR] = $1} END {printf "%s median peak RSS: %.1f MB\n", l, v[int((NR + 1) / 2)] * 1024 / 1e6}'
done

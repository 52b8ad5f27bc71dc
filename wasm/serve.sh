#!/usr/bin/env bash
# Serves the playground (after build.sh) on http://127.0.0.1:${PORT:-8000}/ — static files
# only, loopback only. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")"
[ -f www/pkg/kcel_wasm_bg.wasm ] || { echo "serve.sh: run ./build.sh first" >&2; exit 2; }
port="${PORT:-8000}"
echo "kcel playground: http://127.0.0.1:$port/"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory www

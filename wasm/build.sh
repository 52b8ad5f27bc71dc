#!/usr/bin/env bash
# Builds the browser module into www/pkg/: cargo (profile wasm-release, from .cargo/config.toml)
# -> wasm-bindgen --target web (wasm-bindgen-cli at the wasm-bindgen crate's exact version)
# -> wasm-opt -Oz from npm `binaryen` when `npm ci` has installed it (never Debian's binaryen
# 108, whose output fails to instantiate). NO_WASM_OPT=1 skips wasm-opt. Prints the sizes.
set -euo pipefail
cd "$(dirname "$0")"
target_dir="${CARGO_TARGET_DIR:-../target}"
cargo build -p kcel-wasm --target wasm32-unknown-unknown --profile wasm-release
wasm-bindgen --target web --no-typescript --out-dir www/pkg \
  "$target_dir/wasm32-unknown-unknown/wasm-release/kcel_wasm.wasm"
wasm_opt="${WASM_OPT:-node_modules/.bin/wasm-opt}"
if [ "${NO_WASM_OPT:-}" != 1 ] && [ -x "$wasm_opt" ]; then
  "$wasm_opt" -Oz www/pkg/kcel_wasm_bg.wasm -o www/pkg/kcel_wasm_bg.wasm
else
  echo "build.sh: wasm-opt skipped (run npm ci in wasm/ for npm binaryen's)"
fi
# raw and gzip -9 bytes of what the page loads
for f in www/pkg/kcel_wasm_bg.wasm www/pkg/kcel_wasm.js www/index.html www/main.js www/worker.js; do
  printf '%-28s %9d raw %9d gzip\n' "$f" "$(wc -c < "$f")" "$(gzip -9c "$f" | wc -c)"
done

#!/usr/bin/env bash
# Builds the browser module into www/pkg/: cargo (profile wasm-release, from .cargo/config.toml)
# -> wasm-bindgen --target web (wasm-bindgen-cli at the wasm-bindgen crate's exact version)
# -> wasm-opt -Oz from npm `binaryen` when `npm ci` has installed it (never Debian's binaryen
# 108, whose output fails to instantiate). NO_WASM_OPT=1 skips wasm-opt. Prints the sizes.
set -euo pipefail
cd "$(dirname "$0")"
target_dir="${CARGO_TARGET_DIR:-../target}"
wasm_opt="${WASM_OPT:-node_modules/.bin/wasm-opt}"
optimise=no
if [ "${NO_WASM_OPT:-}" != 1 ] && [ -x "$wasm_opt" ]; then optimise=yes; fi
module="$target_dir/wasm32-unknown-unknown/wasm-release/kcel_wasm.wasm"
# Two modules: `kcel_wasm` without CRD validation, admission and explain (feature `full`
# off), which the page loads first, and `kcel_full`, everything, which the worker loads when
# the CRD or admission mode or the trace view is first used. Each lands in www/pkg only when cargo's module or
# the wasm-opt choice changed (wasm-opt takes ~35 s here).
bind() { # NAME CARGO-ARGS...
  local name=$1
  shift
  cargo build -p kcel-wasm --target wasm32-unknown-unknown --profile wasm-release "$@"
  local stamp
  stamp="$(sha256sum "$module" | cut -d' ' -f1) wasm-opt=$optimise"
  if [ -f "www/pkg/${name}_bg.wasm" ] && [ "$(cat "www/pkg/.stamp-$name" 2>/dev/null)" = "$stamp" ]; then
    echo "build.sh: www/pkg/$name is up to date"
    return
  fi
  rm -f "www/pkg/.stamp-$name"
  wasm-bindgen --target web --no-typescript --out-dir www/pkg --out-name "$name" "$module"
  if [ "$optimise" = yes ]; then
    "$wasm_opt" -Oz "www/pkg/${name}_bg.wasm" -o "www/pkg/${name}_bg.wasm"
  else
    echo "build.sh: wasm-opt skipped (run npm ci in wasm/ for npm binaryen's)"
  fi
  echo "$stamp" > "www/pkg/.stamp-$name"
}
bind kcel_wasm --no-default-features
bind kcel_full
# The page's script: www/src/ with CodeMirror bundled and minified by esbuild (npm ci).
esbuild=node_modules/.bin/esbuild
if [ ! -x "$esbuild" ]; then
  echo "build.sh: missing $esbuild: run npm ci in wasm/" >&2
  exit 1
fi
# What the first paint does not need is split into chunks loaded later (editing.js: completion
# and error underlining, on the first focus on an editor).
rm -f www/pkg/app.js www/pkg/chunk-*.js www/pkg/kcel_policies*
"$esbuild" www/src/main.js --bundle --minify --format=esm --target=es2022 --splitting \
  --legal-comments=none --log-level=warning \
  --outdir=www/pkg --entry-names=app --chunk-names='chunk-[hash]'
# The time-zone table the worker loads on first use (from chrono-tz's data, as the native
# engine has it compiled in).
python3 tzdata.py www/pkg/tzdata.bin
# raw and gzip -9 bytes of what the page loads
for f in www/pkg/kcel_wasm_bg.wasm www/pkg/kcel_wasm.js www/index.html www/pkg/app.js www/worker.js \
    www/pkg/kcel_full_bg.wasm www/pkg/kcel_full.js www/pkg/tzdata.bin; do
  printf '%-28s %9d raw %9d gzip\n' "$f" "$(wc -c < "$f")" "$(gzip -9c "$f" | wc -c)"
done

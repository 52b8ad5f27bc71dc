#!/usr/bin/env bash
# Installs what building the browser module needs, each step skipped when the right version
# is already there: the wasm32 target, wasm-bindgen-cli at exactly the wasm-bindgen crate's
# version (from Cargo.lock), and `npm ci` in wasm/ (CodeMirror, esbuild, wasm-opt,
# playwright-core). With --browser also Debian's chromium and chromium-driver (for the
# tests; needs root). Everything comes from registries: crates.io, npm, Debian.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --browser ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium chromium-driver
fi
rustup target add wasm32-unknown-unknown
# --debug builds in ~2 min instead of 7-14 and produces the same output. --locked fails while
# the registry lacks a crate its published lock pins; then it resolves afresh.
wbv=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3}' ../Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wbv" ] \
    || [ "$(wasm-bindgen-test-runner --version 2>/dev/null)" != "wasm-bindgen-test-runner $wbv" ]; then
  cargo install wasm-bindgen-cli --version "$wbv" --debug --locked \
    || cargo install wasm-bindgen-cli --version "$wbv" --debug
fi
npm ci --no-audit --no-fund

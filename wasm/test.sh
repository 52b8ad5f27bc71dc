#!/usr/bin/env bash
# The browser module's tests beyond `cargo test`: the API in Node and in headless Chromium
# (wasm-bindgen-test), then the playground end to end in headless Chromium (build.sh, then
# node --test). A missing
# tool skips its layer with a line saying so; under CI=true it fails instead.
set -euo pipefail
cd "$(dirname "$0")"
missing() {
  if [ "${CI:-}" = true ]; then echo "test.sh: missing $1" >&2; exit 1; fi
  echo "test.sh: SKIPPED $2: missing $1"
}
wbv=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3}' ../Cargo.lock)
if [ "$(wasm-bindgen-test-runner --version 2>/dev/null)" != "wasm-bindgen-test-runner $wbv" ] \
    || [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wbv" ]; then
  missing "wasm-bindgen-cli $wbv (cargo install wasm-bindgen-cli --version $wbv --debug)" \
    "wasm tests and e2e"
  exit 0
fi
echo "== the first module's API (without feature full), natively"
cargo test -p kcel-wasm --no-default-features --lib
echo "== wasm-bindgen-test in Node"
cargo test -p kcel-wasm --target wasm32-unknown-unknown
echo "== wasm-bindgen-test in headless Chromium, inside a Web Worker"
if [ -x /usr/bin/chromedriver ]; then
  WASM_BINDGEN_USE_DEDICATED_WORKER=1 CHROMEDRIVER=/usr/bin/chromedriver \
    cargo test -p kcel-wasm --target wasm32-unknown-unknown --test wasm
  # Documents at the browser module's nesting limit fit the engine's stack only in an
  # optimised build: both modules as the playground builds them (tests/deep_nesting.rs).
  for features in --no-default-features ""; do
    echo "== nesting limit in the wasm-release build ${features:-(full)}, in Chromium's Web Worker"
    WASM_BINDGEN_USE_DEDICATED_WORKER=1 CHROMEDRIVER=/usr/bin/chromedriver \
      cargo test -p kcel-wasm --target wasm32-unknown-unknown --profile wasm-release \
      $features --test deep_nesting
  done
else
  missing "/usr/bin/chromedriver (apt-get install chromium-driver)" "wasm tests in Chromium"
fi
echo "== release module (build.sh)"
./build.sh
echo "== end to end in headless Chromium"
# The timeout bounds the whole file (node runs it as one test); each test has its own 90 s.
node --test --test-timeout=600000 e2e/

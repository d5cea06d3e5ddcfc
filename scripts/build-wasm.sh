#!/usr/bin/env bash
# Builds the WebAssembly package into www/pkg (used by the page and by the
# Node test), installing the wasm target, a matching wasm-bindgen-cli and
# the npm binaryen package (wasm-opt) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
WB_VERSION=$(grep -A2 'name = "wasm-bindgen"' Cargo.lock | grep version | head -1 | cut -d'"' -f2)
if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  echo "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)" >&2
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi
# A lower inlining threshold than opt-level "s"'s keeps the package under the page's
# 600 KB gzipped budget (issue 4; the prose also stays out, src/prose.rs): measured
# 2026-11-25 against the default, threshold 15 saved 10 KB with the bench cases' wasm
# times unchanged (scripts/bench-wasm.mjs: Sia 1.72 s against 1.78 s), 5 saved 12.6 KB
# but made Sia 15% slower. Inlining never changes a result (native == wasm holds).
# Panic locations name their source files; the registry's long absolute paths are cut to
# "crate-version/src/..." (about 1 KB gzipped, and the package no longer depends on where
# the registry lives).
REMAP=""
for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  REMAP="$REMAP --remap-path-prefix=$dir="
done
RUSTFLAGS="${RUSTFLAGS:-} -C llvm-args=-inline-threshold=15$REMAP" \
  cargo build --lib --target wasm32-unknown-unknown --profile wasm
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg target/wasm32-unknown-unknown/wasm/schedlab.wasm
if [ "${SKIP_WASM_OPT:-0}" != 1 ]; then
  if [ ! -x tools/node_modules/.bin/wasm-opt ]; then
    (cd tools && npm ci --no-audit --no-fund --silent)
  fi
  tools/node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types www/pkg/schedlab_bg.wasm -o www/pkg/schedlab_bg.wasm
fi
# Lets Node import the ES module glue directly.
echo '{"type":"module"}' > www/pkg/package.json
ls -l www/pkg/schedlab_bg.wasm | awk '{printf "wasm package: %d bytes", $5}' >&2
gzip -9 -c www/pkg/schedlab_bg.wasm | wc -c | awk '{printf " (%d gzipped)\n", $1}' >&2

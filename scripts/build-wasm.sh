#!/usr/bin/env bash
# Builds the WebAssembly packages into www/pkg, www/pkg-full and www/pkg-full-plain (used by
# the page and by the Node test), installing the wasm target, a matching wasm-bindgen-cli and
# the npm binaryen package (wasm-opt) when they are missing.
#   bash scripts/build-wasm.sh                 tools, then core, full and full-plain
#   bash scripts/build-wasm.sh tools core ...  only the steps named, in that order
# Whatever the steps, it then bundles the paper results (see summary below).
# (scripts/serve.sh runs the steps one by one: the core package first, so the page opens
# while the full ones build.)
set -euo pipefail
cd "$(dirname "$0")/.."
WB_VERSION=$(grep -A2 'name = "wasm-bindgen"' Cargo.lock | grep version | head -1 | cut -d'"' -f2)
tools() {
  if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
    echo "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)" >&2
    cargo install wasm-bindgen-cli --version "$WB_VERSION"
  fi
  if [ ! -x tools/node_modules/.bin/wasm-opt ]; then
    (cd tools && npm ci --no-audit --no-fund --silent)
  fi
}
# The packages are optimised for speed (cargo opt-level 3; wasm-opt -O3 for the core one, see
# build_package for the full ones): measured
# 2026-11-26 in one sitting against opt-level "s" with inline threshold 15 and -Oz (the
# settings that kept the single package under 600 KB before the split), the AFS runs
# take half the time and Pollux 77 s instead of 130 s in wasm (scripts/bench-wasm.mjs);
# the core package is 481 KB gzipped instead of 419 KB. Optimisation never changes a
# result (native == wasm holds).
# Panic locations name their source files; the registry's long absolute paths are cut to
# "crate-version/src/..." (about 1 KB gzipped, and the package no longer depends on where
# the registry lives).
REMAP=""
for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  REMAP="$REMAP --remap-path-prefix=$dir="
done
# Packages from the same code: the core one (`--features page-core`, www/pkg) that
# the page loads at start, holding every policy but the LP-based and large ones
# (crates/policies/src/lib.rs, `full_package`), and the full one that the page fetches the first
# time one of those runs, in two builds: www/pkg-full with SIMD128 (its own ChaCha8,
# crates/core/src/rng/chacha_wide.rs, and the compiler's vectorised loops: Pollux 26 -> 16 s in
# Node, docs/PERFORMANCE.md) and www/pkg-full-plain for browsers without WebAssembly SIMD
# (www/js/pool.js picks one). Only the core one counts against the 600 KB
# (tests/browser/page.test.mjs; the full ones have a bound of 1 MB).
# The full builds skip wasm-opt: measured 2026-11-28 (docs/PERFORMANCE.md, wasm section), its
# -O2 / -O3 / -Os made microlp's simplex slower in V8 (sia-2048: 24.6 s without, 30.3 s with
# -O3, 33.6 s with -O2) while sts-100 and copter-10k gained 10-15%; without it every bench
# case is within 1.44x of native. The core package keeps -O3 for its size budget.
build_package() { # OUT_DIR simd|plain O3|none CARGO_FEATURE_ARGS...
  local out=$1 simd=$2 opt=$3; shift 3
  local flags="" opt_simd=""
  if [ "$simd" = simd ]; then
    flags="-C target-feature=+simd128 "
    opt_simd="--enable-simd"
  fi
  RUSTFLAGS="$flags${RUSTFLAGS:-}$REMAP" CARGO_TARGET_DIR="target/wasm-$simd" \
    cargo build --lib --target wasm32-unknown-unknown --profile wasm "$@"
  rm -rf "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" "target/wasm-$simd/wasm32-unknown-unknown/wasm/schedlab.wasm"
  if [ "$opt" != none ] && [ "${SKIP_WASM_OPT:-0}" != 1 ]; then
    if [ ! -x tools/node_modules/.bin/wasm-opt ]; then
      (cd tools && npm ci --no-audit --no-fund --silent)
    fi
    tools/node_modules/.bin/wasm-opt "-$opt" $opt_simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types "$out/schedlab_bg.wasm" -o "$out/schedlab_bg.wasm"
  fi
  # Lets Node import the ES module glue directly.
  echo '{"type":"module"}' > "$out/package.json"
  ls -l "$out/schedlab_bg.wasm" | awk -v out="$out" '{printf "%s: %d bytes", out, $5}' >&2
  # Gzipped as the budget test measures it (tests/browser/page.test.mjs: Node's zlib at level 9,
  # which comes out about 1% larger than `gzip -9` on these files).
  node -e "process.stderr.write(' (' + require('zlib').gzipSync(require('fs').readFileSync(process.argv[1]), { level: 9 }).length + ' gzipped)\n')" "$out/schedlab_bg.wasm"
}
# The paper results the page's "Paper results" view shows (?view=papers, www/js/papers.js):
# docs/paper-results/summary.json, written by `schedlab reproduce all --out DIR`, copied into
# the served folder (www/paper-results/ is git-ignored: never commit a copy there). Without it
# a copy left from before is removed, so the page never shows results the repository dropped.
summary() {
  if [ -f docs/paper-results/summary.json ]; then
    mkdir -p www/paper-results
    cp docs/paper-results/summary.json www/paper-results/summary.json
  else
    rm -f www/paper-results/summary.json
  fi
}
[ $# -gt 0 ] || set -- tools core full full-plain
for step in "$@"; do
  case $step in
    tools) tools ;;
    core) build_package www/pkg plain O3 --features page-core ;;
    full) build_package www/pkg-full simd none ;;
    full-plain) build_package www/pkg-full-plain plain none ;;
    summary) ;;
    *) echo "build-wasm.sh: unknown step '$step' (tools, core, full, full-plain, summary)" >&2; exit 2 ;;
  esac
done
summary

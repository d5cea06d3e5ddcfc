#!/usr/bin/env bash
# Browser tests of the page: builds what is missing (release CLI, wasm
# package, npm tools), serves the repository on 127.0.0.1 on a free port
# (the page at /www/, so a test can load a same-origin trace from /traces/),
# and runs tests/browser/*.test.mjs with Node's test runner, Playwright
# (playwright-core) and Debian's Chromium, headless: page.test.mjs and sia.test.mjs (the page,
# Sia's views), truth.test.mjs (issue 48, one test per item, with axe-core), defects.test.mjs
# (issue 48's defect links as a person sees them), serve.test.mjs (scripts/serve.sh) and
# papers.test.mjs (the "Paper results" view, issue 50).
# SCHEDLAB_BROWSER_TESTS=FILE... runs only those. Screenshots and the
# measured numbers go to tests/browser/artifacts/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  (apt-get install -y chromium || (apt-get update && apt-get install -y chromium)) >/dev/null
fi
if [ ! -d tools/node_modules/playwright-core ] || [ ! -d tools/node_modules/binaryen ] || [ ! -d tools/node_modules/axe-core ]; then
  (cd tools && npm ci --no-audit --no-fund --silent)
fi
stale() { [ ! -f "$1" ] || [ -n "$(find src crates Cargo.toml Cargo.lock traces -newer "$1" -print -quit)" ]; }
if stale target/release/schedlab; then cargo build --release; fi
if stale www/pkg/schedlab_bg.wasm || stale www/pkg-full/schedlab_bg.wasm || stale www/pkg-full-plain/schedlab_bg.wasm; then bash scripts/build-wasm.sh; fi
rm -rf tests/browser/artifacts
mkdir -p tests/browser/artifacts
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory . >tests/browser/artifacts/server.log 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
python3 - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/www/index.html", timeout=1)
        break
    except OSError:
        time.sleep(0.1)
PY
export SCHEDLAB_URL="http://127.0.0.1:$PORT/www/" SCHEDLAB_BIN="$PWD/target/release/schedlab" CHROMIUM
node --test --test-concurrency=1 ${SCHEDLAB_BROWSER_TESTS:-tests/browser/}

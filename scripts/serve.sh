#!/usr/bin/env bash
# The README's first command: serves the page on 127.0.0.1 and prints its URL as soon as the
# page can open. Steps, one line each with the elapsed time:
#   1. tools: the wasm target, wasm-bindgen-cli and wasm-opt when missing (build-wasm.sh tools)
#   2. the core package (www/pkg), when missing or older than the sources: all the page needs
#      to open and run every policy but the LP-based and large ones
#   3. bundle the paper results (docs/paper-results/summary.json into www/paper-results/, for
#      the page's ?view=papers), serve www/ and print the URL
#   4. the full packages (www/pkg-full with SIMD, www/pkg-full-plain without), behind the
#      server; www/build-status.json tells the page while they build, so it says when the
#      LP-based policies (sia, pollux, gavel, ...) become available and runs them then.
# cargo's own output goes to target/serve-build.log (SCHEDLAB_BUILD_LOG=FILE to move it).
# PORT=N picks the port (default 8000, or a free one if 8000 is taken). Works offline once built.
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${SCHEDLAB_BUILD_LOG:-target/serve-build.log}
STATUS=www/build-status.json
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
START=$(date +%s)
step() { printf '[%3d s] %s\n' "$(($(date +%s) - START))" "$*"; }
stale() { [ ! -f "$1" ] || [ -n "$(find src crates Cargo.toml Cargo.lock traces -newer "$1" -print -quit)" ]; }
# The size line build-wasm.sh writes last for a package ("www/pkg: N bytes (M gzipped)").
built() { grep -F "$1:" "$LOG" | tail -1 | sed 's/^[^:]*: //'; }
# Runs one build-wasm.sh step with its output in the log; on failure points at the log.
build() {
  if ! bash scripts/build-wasm.sh "$1" >>"$LOG" 2>&1; then
    step "FAILED: build-wasm.sh $1; the last lines of $LOG:"
    tail -15 "$LOG" | sed 's/^/    /'
    return 1
  fi
}
status() { printf '{"full": "%s", "since": %s, "step": "%s", "log": "%s"}\n' "$1" "$(($(date +%s) * 1000))" "$2" "$LOG" >"$STATUS.tmp" && mv "$STATUS.tmp" "$STATUS"; }

step "cargo and tool output goes to $LOG"
rm -f "$STATUS"
step "tools (wasm target, wasm-bindgen-cli, wasm-opt; the first install takes several minutes)..."
build tools
if stale www/pkg/schedlab_bg.wasm; then
  step "core package (www/pkg): building..."
  build core
  step "core package: $(built www/pkg)"
else
  step "core package (www/pkg): up to date"
fi

build summary
if [ -f www/paper-results/summary.json ]; then
  step "paper results: docs/paper-results/summary.json bundled (the page's ?view=papers)"
else
  step "paper results: none to bundle (no docs/paper-results/summary.json; the page's view says how to make one)"
fi

full_stale=()
stale www/pkg-full/schedlab_bg.wasm && full_stale+=(full)
stale www/pkg-full-plain/schedlab_bg.wasm && full_stale+=(full-plain)
if [ ${#full_stale[@]} -gt 0 ]; then
  # An outdated full package must not answer for the new sources: the page waits for the build.
  for p in "${full_stale[@]}"; do rm -rf "www/pkg-$p"; done
  status building "${full_stale[0]}"
fi

PORT=$(python3 - "${PORT:-8000}" <<'PY'
import socket, sys
want = int(sys.argv[1])
s = socket.socket()
try:
    s.bind(("127.0.0.1", want))
except OSError:
    s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
)
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory www >>"$LOG.server" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -f "$STATUS"' EXIT
trap 'exit 130' INT TERM
# The URL once the server answers (a browser opened at once must not find it closed).
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
step "schedlab page: http://127.0.0.1:${PORT}/  (Ctrl+C to stop)"

for p in "${full_stale[@]}"; do
  status building "$p"
  step "full package (www/pkg-$p): building behind the server; LP-based policies wait for it..."
  if ! build "$p"; then
    status failed "$p"
    break
  fi
  step "full package: $(built "www/pkg-$p")"
  [ "$p" = full ] && step "LP-based policies available (browsers with WebAssembly SIMD)"
done
[ ${#full_stale[@]} -gt 0 ] && [ "$(grep -o '"full": "[a-z]*"' "$STATUS" 2>/dev/null)" != '"full": "failed"' ] && status ready ""
step "serving; Ctrl+C to stop"
wait "$SERVER"

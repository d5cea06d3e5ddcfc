#!/usr/bin/env bash
# The README's first command: builds the WebAssembly packages (core and full, with and without SIMD)
# when they are missing or older than the sources (installing the wasm target,
# wasm-bindgen-cli and wasm-opt if needed, via build-wasm.sh) and serves
# www/ on 127.0.0.1, printing the URL. PORT=N picks the port (default 8000,
# or a free one if 8000 is taken). Works offline once built.
set -euo pipefail
cd "$(dirname "$0")/.."
stale() { [ ! -f "$1" ] || [ -n "$(find src crates Cargo.toml Cargo.lock traces -newer "$1" -print -quit)" ]; }
if stale www/pkg/schedlab_bg.wasm || stale www/pkg-full/schedlab_bg.wasm || stale www/pkg-full-plain/schedlab_bg.wasm; then
  bash scripts/build-wasm.sh
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
echo "schedlab page: http://127.0.0.1:${PORT}/  (Ctrl+C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory www

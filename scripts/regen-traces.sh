#!/bin/sh
# Rewrites every bundled trace in traces/ from its generator, as recorded in
# traces/manifest.json (generator, jobs, seed, set). Run after changing a
# generator on purpose; the test `bundled_traces_are_regenerable` fails until then.
set -e
cd "$(dirname "$0")/.."
SCHEDLAB_REGEN=1 cargo test --lib bundled_traces_are_regenerable -- --quiet
cargo test --lib bundled -- --quiet
git status --short traces/

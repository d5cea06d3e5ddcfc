#!/usr/bin/env bash
# The whole test suite: formatting, native unit/integration/property tests,
# the wasm build and its native-vs-wasm comparison, and (once present) the
# browser tests. This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo test (native)"
# The quick profile (opt-level 3 without LTO; same results): one fat-LTO link per test
# binary of each of the workspace's crates cost CI minutes. The CLI and wasm below use release.
cargo test --workspace --profile quick --all-targets

step "build the CLI and the wasm packages (core, and full with and without SIMD)"
cargo build --release
bash scripts/build-wasm.sh

step "wasm (Node) gives the same results as native, to the bit"
node tests/wasm-node/compare.mjs target/release/schedlab afs-mini afs-64 fifo,srtf,srsf,tiresias,maxmin
# The page's core package (the default comparison runs there) gives the same bits.
SCHEDLAB_WASM_PKG=pkg node tests/wasm-node/compare.mjs target/release/schedlab afs-mini afs-64 fifo,srtf,srsf,tiresias,maxmin
# Reasons (issue 49): explain_json == `schedlab explain --format json`, one policy per family.
node tests/wasm-node/explain.mjs target/release/schedlab
SCHEDLAB_WASM_PKG=pkg-full node tests/wasm-node/explain.mjs target/release/schedlab sia-philly:sia-hetero-64:gavel:20:4500 sia-philly:sia-hetero-64:sia:20:4500 sia-philly:sia-hetero-64:pollux:20:4500:pollux.generations=10 sia-philly-homog:homog-64:shockwave:20:4500 sia-philly-homog:homog-64:gavel-ftf:20:4700 afs-mini:afs-64:themis:40:4500 afs-mini:afs-64:optimus:40:4500 sts-mixed-10:sts-10:sts:20:2000 anticipatory-fig1:pools-8:anticipatory:5:1200:anticipatory.windows_min=20,40
# Pollux goodput models (epoch-dependent efficiency, batch optimisation) too.
node tests/wasm-node/compare.mjs target/release/schedlab ../shared/data/pollux/workloads/workload-3.csv homog-64 tiresias,maxmin
# Every paper's policies: AFS and its elastic baselines; Sia's ILP (LP solver) and Gavel's LP on the
# heterogeneous cluster; Pollux's genetic search (seeded RNG); Shockwave and Themis+TJ.
node tests/wasm-node/compare.mjs target/release/schedlab afs-mini afs-64 afs-l,afs-p,afs-s,optimus,themis,srtf-e,srsf-e
node tests/wasm-node/compare.mjs target/release/schedlab sia-philly sia-hetero-64 sia,gavel,pollux
# The full package is built with SIMD128 (its own ChaCha8 among other things) and without it
# (browsers without WebAssembly SIMD); the second gives the same bits too.
SCHEDLAB_WASM_PKG=pkg-full-plain node tests/wasm-node/compare.mjs target/release/schedlab sia-philly sia-hetero-64 sia,gavel,pollux 1 pollux.generations=10
node tests/wasm-node/compare.mjs target/release/schedlab sia-philly-homog homog-64 shockwave,gavel-ftf
# Engine variants: the Sia simulator's calibration, CoDDL's reconfiguration model.
node tests/wasm-node/compare.mjs target/release/schedlab sia-helios sia-hetero-64 sia 7 engine.calibration=sia sia.profiling=artifact
# Sia's other solver methods: the thesis's LP* and POP (each job's part drawn from the seed).
node tests/wasm-node/compare.mjs target/release/schedlab sia-philly sia-hetero-64 sia 3 sia.solver=lp-star
node tests/wasm-node/compare.mjs target/release/schedlab sia-philly sia-hetero-64 sia 3 sia.solver=pop sia.pop_k=4
# COpter's continual solver (proximal point + dual coordinate ascent, warm-started).
node tests/wasm-node/compare.mjs target/release/schedlab sia-philly sia-hetero-64 sia 3 sia.solver=copter
node tests/wasm-node/compare.mjs target/release/schedlab afs-mini afs-64 afs-l,maxmin 3 engine.reconfig=coddl
# Predictions at arrival (forks under a copy of each policy, sampled arrivals) and per-pool FCFS.
node tests/wasm-node/compare.mjs target/release/schedlab afs-mini afs-64 fifo,tiresias,afs-l,pool-fcfs,pcs,themis-pcs 3 engine.predict=true engine.predict_max=120
# Fractional shares: PCS's testbed rotation, and max-min as the PCS artifact's fluid fair share
# (time-shared parts of GPUs; `pcs` itself is fluid by default, checked above and below).
node tests/wasm-node/compare.mjs target/release/schedlab pcs-themis1 pcs-64 pcs,maxmin 3 pcs.realise=rotate maxmin.fluid=true engine.predict=true
# The PCS per-VC family's bundled trace (bursty gaps, mixed widths) on the core package.
SCHEDLAB_WASM_PKG=pkg node tests/wasm-node/compare.mjs target/release/schedlab pcs-vc-ee9e8c pcs-64 fifo,afs-l,srsf,pcs
node tests/wasm-node/compare.mjs target/release/schedlab pcs-vc-ee9e8c pcs-64 themis-pcs
# STS and its baselines (early stops drawn from the seed, GPU cost, due dates), and with sharing.
node tests/wasm-node/compare.mjs target/release/schedlab sts-mixed-10 sts-10 sts,edf,avg-edf,rg,avg-rg,dp,avg-dp 5
node tests/wasm-node/compare.mjs target/release/schedlab sts-mixed-10 sts-10 sts 5 sts.sharing=true engine.idle_price=0.3
# Anticipatory pool sharing and its baselines (pools carried by the trace, speedups
# against the per-pool FCFS reference run), and A-SIA with noisy / learned predictors.
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-synthetic pools-32 pool-fcfs,pool-maxmin,pool-ssf,gssf,anticipatory,anticipatory-vc
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-synthetic pools-32 hived-rtc,themis-rtc
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-synthetic v100:4x8 pool-fcfs,pool-maxmin,hived-rtc,anticipatory 1 engine.placement=cells
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-synthetic pools-32 anticipatory 7 anticipatory.predict=noisy
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-synthetic pools-32 anticipatory 7 anticipatory.predict=learned
node tests/wasm-node/compare.mjs target/release/schedlab anticipatory-fig1 pools-8 anticipatory-oracle 1 anticipatory-oracle.slot_s=600
# A-SIA's partial pre-emption, on a generated trace with preemptible jobs.
PREEMPT_TRACE=$(mktemp --suffix=.csv)
target/release/schedlab gen anticipatory-synthetic --seed 3 --set preemptible_frac=0.5 --set days=2 > "$PREEMPT_TRACE"
node tests/wasm-node/compare.mjs target/release/schedlab "$PREEMPT_TRACE" v100:1x32 anticipatory 1 anticipatory.preempt=true engine.placement=any
rm -f "$PREEMPT_TRACE"
# COpter's job categories (Sia goodput models beside batch-inference and synthetic tables) on its 7-type cluster.
COPTER_TRACE=$(mktemp --suffix=.csv)
target/release/schedlab gen copter-pai --jobs 150 --seed 2 > "$COPTER_TRACE"
node tests/wasm-node/compare.mjs target/release/schedlab "$COPTER_TRACE" copter-256 fifo,tiresias,sia,gavel
# The page's generator (its solver-size sweep) writes what `schedlab gen` writes.
node -e "
const fs = require('fs');
import('./www/pkg/schedlab.js').then((w) => {
  w.initSync({ module: fs.readFileSync('www/pkg/schedlab_bg.wasm') });
  if (w.generated_trace_text('copter-pai', 150, 2n) !== fs.readFileSync(process.argv[1], 'utf8')) { console.error('generated_trace_text differs from schedlab gen'); process.exit(1); }
  console.log('wasm generator == schedlab gen (copter-pai, 150 jobs)');
});" "$COPTER_TRACE"
rm -f "$COPTER_TRACE"
# PCS's preference search as the page runs it (core package, batches asked and told) == schedlab pcs search.
node tests/wasm-node/search.mjs target/release/schedlab pcs-themis1 pcs-64 avg_jct,avg_pred_error 175

step "sweeps as a Slurm job array (single-node Slurm started here; skips if it cannot start)"
bash scripts/test-slurm.sh target/release/schedlab

step "the page's wasm API in Node"
node --test tests/wasm-node/

if [ -f scripts/test-browser.sh ]; then
  step "browser tests (Playwright + Chromium)"
  bash scripts/test-browser.sh
fi
printf '\nall tests passed\n'

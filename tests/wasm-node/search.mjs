// PCS's preference search through the page's core wasm package in Node, as
// the page drives it (www/js/search.js: `PcsSearch` asks for batches, a
// `PcsProblem` evaluates them, here in this thread), compared with
// `schedlab pcs search` on the same inputs: the same front, every decision
// variable and objective to the bit (both sides print f64 in serde_json's
// shortest round-trip form).
//
// usage: node tests/wasm-node/search.mjs <schedlab-binary> <bundled trace> <cluster> <objectives> <evaluations> [seed]
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'www', 'pkg');
const [bin, trace, cluster, objectives, evaluations, seed = '1'] = process.argv.slice(2);
const { initSync, PcsSearch, PcsProblem } = await import(path.join(pkg, 'schedlab.js'));
initSync({ module: readFileSync(path.join(pkg, 'schedlab_bg.wasm')) });

const t0 = performance.now();
const search = new PcsSearch(new PcsProblem(trace, '', cluster, objectives, [], 0), 70, 105, Number(evaluations), BigInt(seed));
const worker = new PcsProblem(trace, '', cluster, objectives, [], 0);
for (let xs = search.ask(); xs.length; xs = search.ask()) search.tell(worker.evaluate(xs));
const state = search.state();
const wasmS = (performance.now() - t0) / 1000;

const native = JSON.parse(execFileSync(bin, ['pcs', 'search', '--trace', trace, '--cluster', cluster, '--apps', '0',
  '--objectives', objectives, '--evaluations', evaluations, '--seed', seed, '--threads', '1'], { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] }));
const names = objectives.split(',');
const ours = state.front.map((p) => JSON.stringify([p.x, p.f])).sort();
const theirs = native.front.map((p) => JSON.stringify([[p.T, p.W, p.clip, p.delta], names.map((n) => p.objectives[n])])).sort();
if (state.evaluations !== native.evaluations || JSON.stringify(ours) !== JSON.stringify(theirs)) {
  console.error(`the page's search and schedlab pcs search differ (${state.evaluations} / ${native.evaluations} evaluations):\n  wasm:   ${ours.join(' ')}\n  native: ${theirs.join(' ')}`);
  process.exit(1);
}
console.log(`page search == schedlab pcs search (${trace}, ${evaluations} evaluations, front of ${ours.length}; wasm ${wasmS.toFixed(1)} s on one thread, native ${native.seconds.toFixed(1)} s)`);

// COpter's solver in wasm against native on the same rounds (issue 16's target:
// wasm <= 2x native). Sia with `sia.solver=copter` runs on a generated
// `copter-pai` workload (4 jobs per GPU per day) for the first simulated hours,
// once through the full wasm package in Node (www/pkg-full, built by
// scripts/build-wasm.sh) and once through the native CLI with its timeline;
// both record each round's solver seconds. The runs are the same to the bit
// (each round's LP is the same problem), so the per-round ratio compares one
// solver on one problem. Prints the rounds' total, median and p99 on each side
// and their ratios.
//
// usage: node scripts/bench-wasm-copter.mjs [schedlab-binary] [--scale N] [--hours H]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const scale = Number(option('--scale', '10'));
const hours = Number(option('--hours', '2'));
const bin = args[0] ?? path.join(root, 'target', 'release', 'schedlab');
const pkg = path.join(root, 'www', 'pkg-full');
const { initSync, run_policy } = await import(path.join(pkg, 'schedlab.js'));
initSync({ module: readFileSync(path.join(pkg, 'schedlab_bg.wasm')) });

const dir = mkdtempSync(path.join(tmpdir(), 'schedlab-copter-'));
const tracePath = path.join(dir, 'copter-pai.csv');
const cluster = `copter-256x${scale}`;
const text = execFileSync(bin, ['gen', 'copter-pai', '--jobs', String(4 * 256 * scale), '--seed', '1'], { encoding: 'utf8', maxBuffer: 1 << 28 });
writeFileSync(tracePath, text);
const sets = ['sia.solver=copter', `engine.max_days=${hours / 24}`];

const wasm = run_policy(tracePath, text, cluster, 'sia', sets, 1n, 1 << 30, () => true);
const wasmSolver = Array.from(wasm.rounds.solver_s);

const timeline = path.join(dir, 'timeline.json');
execFileSync(bin, ['run', '--trace', tracePath, '--cluster', cluster, '--policy', 'sia', '--seed', '1',
  '--timeline', timeline, ...sets.flatMap((s) => ['--set', s])], { encoding: 'utf8', maxBuffer: 1 << 28 });
const nativeRun = JSON.parse(readFileSync(timeline, 'utf8'));
const nativeRounds = (Array.isArray(nativeRun) ? nativeRun[0] : nativeRun).rounds;
const nativeSolver = nativeRounds.map((r) => r.solver_s);

// The same run on both sides: every round's allocation changes and LP size.
const sameRounds = wasmSolver.length === nativeSolver.length
  && nativeRounds.every((r, i) => r.changes === wasm.rounds.changes[i] && (r.solver_vars ?? 0) === wasm.rounds.vars[i]);
if (!sameRounds) {
  console.error(`the wasm and native runs differ (rounds: wasm ${wasmSolver.length}, native ${nativeSolver.length})`);
  process.exit(1);
}
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const at = (xs, q) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const ratios = wasmSolver.map((w, i) => w / nativeSolver[i]);
const row = (name, n, w) => console.log(`${name.padEnd(14)}${n.toFixed(4).padEnd(12)}${w.toFixed(4).padEnd(12)}${(w / n).toFixed(2)}`);
console.log(`COpter on ${cluster} (${256 * scale} GPUs), ${hours} h of copter-pai, ${nativeSolver.length} rounds`);
console.log(`${'solver s'.padEnd(14)}${'native'.padEnd(12)}${'wasm'.padEnd(12)}wasm/native`);
row('total', sum(nativeSolver), sum(wasmSolver));
row('median round', at(nativeSolver, 0.5), at(wasmSolver, 0.5));
row('p99 round', at(nativeSolver, 0.99), at(wasmSolver, 0.99));
console.log(`per-round ratio: median ${at(ratios, 0.5).toFixed(2)}, p90 ${at(ratios, 0.9).toFixed(2)}`);

// wasm against native on the same runs (issue 20, item 4): each case runs
// once through the wasm package in Node (www/pkg-full, built by
// scripts/build-wasm.sh) and once through the native CLI, and prints each
// policy's simulation time (the report's `wall_s`: simulation, metrics and
// report, measured by the same code on both sides) and the ratio. The
// reports themselves must be equal (minus timings), as in compare.mjs.
//
// usage: node scripts/bench-wasm.mjs [schedlab-binary] [--json OUT]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const bin = args[0] ?? path.join(root, 'target', 'release', 'schedlab');
// SCHEDLAB_WASM_PKG=DIR measures another package directory (e.g. www/pkg, the core one).
const pkg = path.resolve(root, process.env.SCHEDLAB_WASM_PKG || path.join('www', 'pkg-full'));
const { initSync, run_report_json } = await import(path.join(pkg, 'schedlab.js'));
initSync({ module: readFileSync(path.join(pkg, 'schedlab_bg.wasm')) });

const pollux3 = path.join(root, '..', 'shared', 'data', 'pollux', 'workloads', 'workload-3.csv');
const cases = [
  { name: 'sia-160', trace: 'sia-philly', cluster: 'sia-hetero-64', policies: 'sia,gavel,pollux', sets: ['engine.calibration=sia'] },
  { name: 'afs-mini', trace: 'afs-mini', cluster: 'afs-64', policies: 'afs-l,tiresias,fifo', sets: [] },
  { name: 'afs-mini-predict', trace: 'afs-mini', cluster: 'afs-64', policies: 'tiresias', sets: ['engine.predict=true'] },
  { name: 'tiresias-pollux', trace: pollux3, cluster: 'homog-64', policies: 'tiresias', sets: [], needs: pollux3 },
];

const stripWall = (text) => text.replace(/"wall_s": [0-9.e+-]+/g, '"wall_s": 0');
const walls = (text) => Object.fromEntries(JSON.parse(text).results.map((r) => [r.policy, r.wall_s]));
const rows = [];
for (const c of cases) {
  if (c.needs && !existsSync(c.needs)) {
    console.log(`${c.name}: SKIPPED (${c.needs} is absent)`);
    continue;
  }
  const text = existsSync(c.trace) ? readFileSync(c.trace, 'utf8') : '';
  const wasm = run_report_json(c.trace, text, c.cluster, c.policies, c.sets, 1n);
  const native = execFileSync(bin, ['run', '--trace', c.trace, '--cluster', c.cluster, '--policy', c.policies,
    '--seed', '1', '--format', 'json', ...c.sets.flatMap((s) => ['--set', s])], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const same = stripWall(wasm) === stripWall(native);
  const w = walls(wasm), n = walls(native);
  for (const policy of Object.keys(n)) {
    rows.push({ case: c.name, policy, native_s: n[policy], wasm_s: w[policy], ratio: w[policy] / n[policy], same });
  }
}
const pad = (s, k) => String(s).padEnd(k);
console.log(`${pad('case', 18)}${pad('policy', 10)}${pad('native s', 10)}${pad('wasm s', 10)}${pad('wasm/native', 13)}same results`);
for (const r of rows) {
  console.log(`${pad(r.case, 18)}${pad(r.policy, 10)}${pad(r.native_s.toFixed(3), 10)}${pad(r.wasm_s.toFixed(3), 10)}${pad(r.ratio.toFixed(2), 13)}${r.same ? 'yes' : 'NO'}`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 2));
if (rows.some((r) => !r.same)) process.exit(1);

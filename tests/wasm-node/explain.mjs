// Checks that the wasm build gives the same reasons as the native CLI:
// `explain_json` against `schedlab explain --format json` for one job per
// case (its reasons over its life and the call at --at, with the jobs
// ranked ahead), text equal to the byte; the page's `Explainer` (the run
// kept with every reason) gives the same text, and its `call_at` lists the
// call's ranked jobs in the order the CLI ranks them (the job's `ahead`
// list, then the job).
//
// usage: node tests/wasm-node/explain.mjs <schedlab-binary> [CASE ...]
// CASE is trace:cluster:policy:job:at[:OWNER.KEY=VALUE...]; without cases,
// one policy of each family the core package holds.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, '..', '..', 'www', process.env.SCHEDLAB_WASM_PKG || 'pkg');
const [bin, ...given] = process.argv.slice(2);
const { initSync, explain_json, Explainer } = await import(path.join(pkg, 'schedlab.js'));
initSync({ module: readFileSync(path.join(pkg, 'schedlab_bg.wasm')) });

const cases = given.length ? given : [
  // Times within each job's life, so the jobs ranked ahead are compared too.
  'afs-mini:afs-64:fifo:40:4500',
  'afs-mini:afs-64:srsf:40:4500',
  'afs-mini:afs-64:tiresias:40:4500',
  'afs-mini:afs-64:afs-l:40:4500',
  'afs-mini:afs-64:maxmin:40:4500',
  'pcs-gavel:pcs-64:pcs:40:1000:engine.predict=true',
  'anticipatory-fig1:pools-8:pool-fcfs:5:1200',
];
let failed = 0;
for (const c of cases) {
  const [trace, cluster, policy, job, at, ...sets] = c.split(':');
  const wasm = explain_json(trace, '', cluster, policy, sets, 1n, job, Number(at));
  const native = execFileSync(bin, ['explain', '--trace', trace, '--cluster', cluster, '--policy', policy,
    '--job', job, '--at', at, '--format', 'json', ...sets.flatMap((s) => ['--set', s])],
  { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (wasm !== native) {
    const a = wasm.split('\n'), b = native.split('\n');
    const i = a.findIndex((line, k) => line !== b[k]);
    console.error(`${c}: wasm and native reasons differ at line ${i + 1}:\n  wasm:   ${a[i]}\n  native: ${b[i]}`);
    failed++;
    continue;
  }
  const ex = new Explainer(trace, '', cluster, policy, sets, 1n);
  const kept = ex.explain(job, Number(at));
  const call = JSON.parse(ex.call_at(Number(at)));
  ex.free();
  if (kept !== native) {
    console.error(`${c}: Explainer.explain differs from the CLI`);
    failed++;
    continue;
  }
  const e = JSON.parse(wasm);
  const own = e.at && e.at.reason;
  if (own && own.rank !== null) {
    const ranked = call.reasons.filter((r) => r.rank !== null).map((r) => r.job);
    const want = [...e.at.ahead.map((r) => r.job), own.job];
    if (call.call_t !== e.at.call_t || JSON.stringify(ranked.slice(0, want.length)) !== JSON.stringify(want)) {
      console.error(`${c}: call_at's order ${ranked.slice(0, want.length)} is not the CLI's ${want}`);
      failed++;
      continue;
    }
  }
  console.log(`${c}: wasm == native (${e.reasons.length} reasons, ${e.at ? e.at.ahead.length : 0} ahead at ${at} s)`);
}
process.exit(failed ? 1 : 0);

// Runs a trace through the wasm build (www/pkg-full) in Node and compares the
// report with the native CLI's JSON for the same inputs. Every field but the
// wall-clock time must match to the bit (serde_json prints the shortest
// round-trip form of each f64, so equal text means equal bits).
//
// usage: node tests/wasm-node/compare.mjs <schedlab-binary> <trace> <cluster> <policies> [seed] [OWNER.KEY=VALUE ...]
// <trace> is a bundled trace name or a trace file (passed to the wasm side as text).
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
// The full package by default (it runs every policy); SCHEDLAB_WASM_PKG=pkg checks the core one.
const pkg = path.join(here, '..', '..', 'www', process.env.SCHEDLAB_WASM_PKG || 'pkg-full');
const [bin, trace, cluster, policies, seed = '1', ...sets] = process.argv.slice(2);
const { initSync, run_report_json } = await import(path.join(pkg, 'schedlab.js'));
initSync({ module: readFileSync(path.join(pkg, 'schedlab_bg.wasm')) });

const stripWall = (text) => text.replace(/"wall_s": [0-9.e+-]+/g, '"wall_s": 0');
const text = existsSync(trace) ? readFileSync(trace, 'utf8') : '';
const wasm = stripWall(run_report_json(trace, text, cluster, policies, sets, BigInt(seed)));
const native = stripWall(execFileSync(bin, ['run', '--trace', trace, '--cluster', cluster, '--policy', policies, '--seed', seed, '--format', 'json', ...sets.flatMap((s) => ['--set', s])], { encoding: 'utf8', maxBuffer: 256 << 20 }));

if (wasm !== native) {
  const a = wasm.split('\n'), b = native.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  console.error(`wasm and native reports differ at line ${i + 1}:\n  wasm:   ${a[i]}\n  native: ${b[i]}`);
  process.exit(1);
}
const report = JSON.parse(wasm);
const summary = report.results.map((r) => `${r.policy} avg_jct_s=${r.metrics.avg_jct_s}`).join(', ');
console.log(`wasm == native (${wasm.length} bytes of JSON, ${report.results.length} policies): ${summary}`);

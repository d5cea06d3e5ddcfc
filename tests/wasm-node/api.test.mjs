// The page's wasm API (src/wasm.rs) in Node: catalog, layouts, trace
// parsing errors, runs with progress callbacks, cancellation, typed-array
// results, and Sia's per-round insight (`Run.insight_at` against the page's
// lookup in www/js/insight.js), and the page's core package against the full
// one. Needs www/pkg and www/pkg-full (scripts/build-wasm.sh).
// Charts need a browser and are covered by tests/browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const www = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'www');
async function load(dir) {
  const api = await import(path.join(www, dir, 'schedlab.js'));
  api.initSync({ module: readFileSync(path.join(www, dir, 'schedlab_bg.wasm')) });
  return api;
}
const wasm = await load('pkg-full');
const core = await load('pkg');

test('the core package lists every policy, runs its own as the full one does, and names the package for the rest', () => {
  const full = wasm.catalog();
  const c = core.catalog();
  assert.deepEqual(full.full_package, []);
  assert.deepEqual(c.policies.map((p) => p.name), full.policies.map((p) => p.name));
  assert.deepEqual(c.policies.map((p) => p.params), full.policies.map((p) => p.params));
  // The LP-based and large policies; the default comparison's are all in the core.
  assert.deepEqual([...c.full_package].sort(), ['anticipatory', 'anticipatory-oracle', 'anticipatory-vc', 'avg-dp', 'avg-edf', 'avg-rg', 'dp', 'edf', 'gavel', 'gavel-ftf', 'gssf', 'hived-rtc', 'optimus', 'pollux', 'pool-maxmin', 'pool-ssf', 'rg', 'shockwave', 'sia', 'srsf-e', 'srtf-e', 'sts', 'themis', 'themis-pcs', 'themis-rtc']);
  for (const p of c.traces.find((t) => t.name === 'afs-mini').policies) assert.ok(!c.full_package.includes(p), p);
  assert.throws(() => new core.Run('afs-mini', '', 'afs-64', 'sia', [], 1n), (e) => e.kind === 'config' && /full wasm package/.test(e.text));
  const strip = (t) => t.replace(/"wall_s": [0-9.e+-]+/g, '');
  assert.equal(strip(core.run_report_json('afs-mini', '', 'afs-64', 'afs-l,tiresias', [], 4n)),
    strip(wasm.run_report_json('afs-mini', '', 'afs-64', 'afs-l,tiresias', [], 4n)));
});

test('catalog lists the registries with parameter declarations', () => {
  const c = wasm.catalog();
  assert.ok(c.traces.length >= 1 && c.policies.length >= 1 && c.clusters.length >= 1 && c.formats.length >= 1);
  const withParams = c.policies.find((p) => p.params.length > 0);
  const spec = withParams.params[0];
  for (const k of ['name', 'kind', 'default', 'help']) assert.ok(k in spec, `ParamSpec lacks ${k}`);
  assert.ok(['float', 'int', 'bool', 'choice'].includes(spec.kind.type));
  assert.equal(c.traces[0].text, undefined, 'trace text is not in the catalog');
  assert.ok(c.metrics.some((m) => m.key === 'avg_jct_s'));
  assert.ok(wasm.bundled_trace_text(c.traces[0].name).length > 100);
});

test('generated traces (the solver-size sweep\'s workloads) parse, repeat by seed and name a bad generator', () => {
  const text = core.generated_trace_text('copter-pai', 120, 3n);
  assert.equal(text, wasm.generated_trace_text('copter-pai', 120, 3n));
  assert.equal(text, core.generated_trace_text('copter-pai', 120, 3n));
  assert.notEqual(text, core.generated_trace_text('copter-pai', 120, 4n));
  const info = core.parse_trace('copter-pai', text);
  assert.equal(info.jobs, 120);
  assert.throws(() => core.generated_trace_text('no-such-generator', 10, 1n), (e) => e.kind === 'config' && /no-such-generator/.test(e.text));
});

test('cluster layouts group nodes by GPU type; bad specs are config errors', () => {
  const l = wasm.cluster_layout('sia-hetero-64');
  assert.equal(l.total_gpus, 64);
  assert.deepEqual(l.groups.map((g) => g.kind), ['t4', 'rtx', 'a100']);
  assert.throws(() => wasm.cluster_layout('zz:1x4'), (e) => e.kind === 'config' && /unknown GPU type/.test(e.text));
});

test('a link\'s policies and settings are checked before anything runs, with one readable line', () => {
  for (const api of [wasm, core]) {
    assert.equal(api.check_settings('fifo,tiresias', ['tiresias.t1=60', 'engine.placement=any']), undefined);
    const refused = (policies, sets, want) => assert.throws(() => api.check_settings(policies, sets),
      (e) => e.kind === 'config' && e.text.includes(want) && !e.text.includes('\n'), `${policies} ${sets}`);
    refused('fifo', ['fifo.nosuch=3'], "unknown parameter 'fifo.nosuch'; fifo has: backfill, share_gpus, round_s");
    refused('fifo', ['engine.placement=foo'], 'engine.placement=foo: must be one of packed, any, netpack, cells');
    refused('fifo', ['nosuch.k=1'], "unknown owner 'nosuch'");
    refused('fifo', ['fifo.round_s=60', 'fifo.round_s=30'], 'fifo.round_s is given twice');
    refused('fifo,fifo', [], "'fifo' is named twice");
    refused('fifo,,tiresias', [], 'entry 2 is empty');
    // The full package's policies are checked in the core package too.
    refused('sia', ['sia.solver=simplex'], 'sia.solver=simplex: must be one of');
    assert.throws(() => new api.Run('afs-mini', '', 'afs-64', 'fifo', ['fifo.nosuch=3'], 1n),
      (e) => e.kind === 'config' && /fifo\.nosuch/.test(e.text));
  }
});

test('trace errors are objects with file, line and field', () => {
  const info = wasm.parse_trace('ok.csv', 'name,arrival,model,gpus,duration\na,0,linear,1,10\n');
  assert.equal(info.jobs, 1);
  assert.equal(info.format, 'native');
  assert.throws(() => wasm.parse_trace('bad.csv', 'name,arrival,model,gpus,duration\na,0,linear,1,10\nb,zz,linear,1,10\n'), (e) => {
    assert.deepEqual([e.kind, e.file, e.line, e.field], ['input', 'bad.csv', 3, 'arrival']);
    assert.match(e.text, /bad\.csv: line 3, field 'arrival'/);
    return true;
  });
});

test('a run reports progress every N events, returns typed arrays, and equals run_report_json', () => {
  const seen = [];
  const res = wasm.run_policy('afs-mini', '', 'afs-64', 'tiresias', [], 1n, 100, (p) => { seen.push(p.events); return true; });
  assert.ok(seen.length > 3);
  for (let i = 1; i < seen.length - 1; i++) assert.equal(seen[i] - seen[i - 1], 100);
  assert.equal(res.policy, 'tiresias');
  const tl = res.timeline;
  assert.ok(tl.seg_start instanceof Float64Array && tl.gpus instanceof Uint32Array && tl.seg_kind instanceof Uint8Array);
  assert.equal(tl.gpu_offsets.length, 65);
  assert.equal(tl.gpu_offsets[64], tl.gpus.length);
  assert.equal(res.jobs.names.length, 200);
  assert.ok(res.rounds.t.length > 0 && res.series.util.length > 0 && res.cdf.x.length > 0);
  const report = JSON.parse(wasm.run_report_json('afs-mini', '', 'afs-64', 'tiresias', [], 1n));
  assert.deepEqual(res.metrics, report.results[0].metrics);
  assert.deepEqual(res.params, report.results[0].params);
});

test('a callback returning false cancels; one that throws stops the run with its error', () => {
  assert.throws(() => wasm.run_policy('afs-mini', '', 'afs-64', 'fifo', [], 1n, 10, (p) => p.events < 30), (e) => e.kind === 'cancelled');
  assert.throws(() => wasm.run_policy('afs-mini', '', 'afs-64', 'fifo', [], 1n, 10, () => { throw new Error('stop here'); }), /stop here/);
  // Stepping by hand, as the page's worker does.
  const r = new wasm.Run('afs-mini', '', 'afs-64', 'srtf', ['engine.restart_scale=0'], 2n);
  assert.equal(r.trace_info().jobs, 200);
  let done = false, steps = 0;
  while (!done) { done = r.advance(500); steps++; }
  assert.ok(steps > 1);
  const res = r.result();
  assert.equal(res.engine.restart_scale, 0);
  const json = JSON.parse(r.result_json());
  assert.deepEqual(json.metrics, res.metrics);
  r.free();
  assert.throws(() => new wasm.Run('afs-mini', '', 'afs-64', 'fifo', ['srtf.round_s=1'], 1n), (e) => e.kind === 'config' && /not among/.test(e.text));
  assert.throws(() => new wasm.Run('afs-mini', '', 'afs-64', 'fifo', ['engine.restart_scale=-1'], 1n), (e) => /engine\.restart_scale=-1/.test(e.text));
});

test('sia records its goodput matrix per round; the page lookup equals Run.insight_at', async () => {
  const { insightAt, hasInsight } = await import('../../www/js/insight.js');
  // The first 40 jobs of the bundled Sia/Philly trace (comment + header + rows).
  const text = `${wasm.bundled_trace_text('sia-philly').split('\n').slice(0, 42).join('\n')}\n`;
  const r = new wasm.Run('sia-40.csv', text, 'sia-hetero-64', 'sia', [], 1n);
  assert.throws(() => r.insight_at(0), (e) => e.kind === 'config');
  while (!r.advance(5000));
  const res = r.result();
  const ins = res.insight;
  assert.ok(hasInsight(res));
  assert.ok(ins.norm instanceof Float32Array && ins.raw instanceof Float32Array);
  assert.ok(ins.chosen instanceof Int32Array && ins.jobs instanceof Uint32Array && ins.t instanceof Float64Array);
  assert.equal(ins.t.length, res.rounds.t.length, 'sia records every round');
  assert.ok(ins.labels.includes('8×a100') && ins.labels.includes('16×a100 (2n)'), ins.labels.join(' '));
  assert.equal(ins.cell_offsets[ins.t.length], ins.norm.length);
  const last = ins.t[ins.t.length - 1];
  const bits = (a) => Array.from(a, (x) => (Number.isNaN(x) ? 'NaN' : x));
  let held = 0;
  for (const f of [0.05, 0.37, 0.8]) {
    const t = ins.t[0] + f * (last - ins.t[0]) + 1;
    const a = insightAt(ins, t);
    const b = r.insight_at(t);
    assert.ok(a.t <= t && b.t === a.t);
    assert.deepEqual(a.labels, b.labels);
    assert.deepEqual([...a.jobs], [...b.jobs]);
    assert.equal(a.rowsTotal, b.rows_total);
    assert.deepEqual(bits(a.norm), bits(b.norm));
    assert.deepEqual(bits(a.raw), bits(b.raw));
    assert.deepEqual([...a.chosen], [...b.chosen]);
    assert.deepEqual(bits(a.restart), bits(b.restart));
    assert.equal(a.norm.length, a.jobs.length * a.labels.length);
    held += a.chosen.filter((c) => c >= 0).length;
  }
  assert.ok(held > 0, 'some job holds a configuration');
  assert.equal(r.insight_at(ins.t[0] - 1), undefined);
  assert.equal(insightAt(ins, ins.t[0] - 1), null);
  r.free();
  // Other policies record none.
  const fifo = wasm.run_policy('sia-40.csv', text, 'sia-hetero-64', 'fifo', [], 1n, 1000, () => true);
  assert.equal(fifo.insight.t.length, 0);
  assert.ok(!hasInsight(fifo));
});

test('PCS reports its size classes; the page\'s per-class GPU usage keeps every GPU-second', async () => {
  const { groupUsage, hasGroups } = await import('../../www/js/groups.js');
  const r = new core.Run('pcs-themis1', '', 'pcs-64', 'pcs', ['pcs.thresholds=20000,200000'], 1n);
  while (!r.advance(20000));
  const res = r.result();
  r.free();
  const tl = res.timeline;
  assert.ok(hasGroups(res));
  // One record per job (a class never changes), each of the three classes used.
  assert.equal(new Set(tl.group_job).size, tl.group_job.length);
  assert.deepEqual([...new Set(tl.group)].sort(), [0, 1, 2]);
  const u = groupUsage(tl, 200);
  assert.deepEqual(u.groups.map((g) => g.group), [0, 1, 2]);
  const width = u.t[1] - u.t[0];
  const drawn = u.groups.reduce((s, g) => s + g.gpus.reduce((a, b) => a + b, 0) * width, 0);
  let held = 0;
  for (let s = 0; s < tl.seg_job.length; s++) held += tl.seg_gpu_count[s] * Math.min(1, tl.seg_share[s]) * (tl.seg_end[s] - tl.seg_start[s]);
  assert.ok(Math.abs(drawn - held) <= 1e-9 * held, `${drawn} GPU-s drawn, ${held} held`);
  // Never more GPUs than the cluster has.
  for (let b = 0; b < 200; b++) assert.ok(u.groups.reduce((s, g) => s + g.gpus[b], 0) <= 64 + 1e-9);
  // A job that changes group in mid-segment is split at the change.
  const toy = {
    seg_job: [0], seg_start: [0], seg_end: [10], seg_gpu_count: [2], seg_share: [1],
    group_job: [0, 0], group_t: [0, 4], group: [1, 0],
  };
  const v = groupUsage(toy, 10);
  assert.deepEqual(v.groups.map((g) => [g.group, Array.from(g.gpus)]), [
    [0, [0, 0, 0, 0, 2, 2, 2, 2, 2, 2]], [1, [2, 2, 2, 2, 0, 0, 0, 0, 0, 0]]]);
  // Other policies group nothing.
  const f = new core.Run('afs-mini', '', 'afs-64', 'fifo', [], 1n);
  while (!f.advance(20000));
  assert.ok(!hasGroups(f.result()));
  f.free();
});

// The page's issue-49 views, their pure parts, in Node: the what-if edits
// (parse, apply to CSV, diff), the queue in the policy's order and the
// inspector's blocking causes (www/js/whatif.js, policyqueue.js, inspector.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEdits, applyJobEdits, diffRuns } from '../../www/js/whatif.js';
import { policyOrder } from '../../www/js/policyqueue.js';
import { blockers } from '../../www/js/inspector.js';

const isOwner = (n) => n === 'engine' || n === 'fifo';
const CSV = '# a comment\nname,arrival,tenant,model,gpus,duration,work\nj0,0,,m,1,100,\nj1,5,,m,2,,40\nj.2,9,,m,4,30,\n';

test('edits: job fields, settings and named errors', () => {
  const e = parseEdits('j0.arrival=50; fifo.backfill=true ;j.2.gpus=8;j1.gpus=1.5;j1.size=3;oops', isOwner);
  assert.deepEqual(e.jobs.map((x) => [x.job, x.field, x.value]), [['j0', 'arrival', 50], ['j.2', 'gpus', 8]]);
  assert.deepEqual(e.sets.map((x) => [x.key, x.value]), [['fifo.backfill', 'true']]);
  assert.deepEqual(e.errors.map((x) => x.entry), ['j1.gpus=1.5', 'j1.size=3', 'oops']);
  assert.match(e.errors[0].why, /whole number/);
  assert.match(e.errors[1].why, /no field 'size'/);
});

test('edits rewrite the CSV rows by name or id, and refuse what they cannot do', () => {
  const names = ['j0', 'j1', 'j.2'];
  const nameOf = (j) => (names.includes(j) ? j : /^\d+$/.test(j) && Number(j) < names.length ? names[Number(j)] : null);
  const ok = applyJobEdits(CSV, parseEdits('j0.arrival=50;2.gpus=8', isOwner).jobs, nameOf);
  assert.deepEqual(ok.errors, []);
  assert.equal(ok.text, '# a comment\nname,arrival,tenant,model,gpus,duration,work\nj0,50,,m,1,100,\nj1,5,,m,2,,40\nj.2,9,,m,8,30,\n');
  const bad = applyJobEdits(CSV, parseEdits('j9.arrival=1;j1.duration=10', isOwner).jobs, nameOf);
  assert.deepEqual(bad.errors.map((x) => x.entry), ['j9.arrival=1', 'j1.duration=10']);
  assert.match(bad.errors[1].why, /edit j1\.work/);
  const other = applyJobEdits('{"jobs": []}', parseEdits('j0.arrival=1', isOwner).jobs, nameOf);
  assert.match(other.errors[0].why, /schedlab's CSV format/);
});

test('the diff matches jobs by name and sorts the largest change first', () => {
  const run = (names, finish, jct) => ({ jobs: { names, finish: Float64Array.from(finish) }, metrics: { avg_jct_s: jct } });
  const d = diffRuns(run(['a', 'b', 'c'], [10, 20, 30], 20), run(['b', 'a', 'c'], [15, 40, 30], 28.3));
  assert.deepEqual(d.jobs.map((j) => [j.name, j.delta]), [['a', 30], ['b', -5]]);
  assert.deepEqual([d.earlier, d.later, d.same], [1, 1, 1]);
  assert.ok(Math.abs(d.metrics[0].delta - 8.3) < 1e-9);
});

test('the policy order puts ranked reasons by rank, then the others', () => {
  const r = (job, rank) => ({ job, rank, rule: 'x', values: {}, gpus: 0 });
  const o = policyOrder({ call_t: 0, reasons: [r(3, 0), r(1, 1), r(2, null)] });
  assert.deepEqual(o.ranked.map((x) => x.job), [3, 1]);
  assert.deepEqual(o.unranked.map((x) => x.job), [2]);
});

test('the inspector names capacity, the jobs ahead and a pool over its quota', () => {
  const run = { jobs: { names: ['a', 'b', 'c'] } };
  const e = {
    at: {
      reason: { rule: 'pool.waits', words: 'waits', values: { pool: 'green', quota: 8, used: 6, need: 4, reserved: 2, usable: 1 } },
      ahead: [{ job: 0, key: 'place', values: { place: 1 } }],
    },
  };
  const causes = blockers(e, run, 3, 4).map((b) => b.cause);
  assert.deepEqual(causes, ['capacity', 'ahead', 'quota', 'reservation', 'policy']);
  assert.deepEqual(blockers(e, run, 4, 4).map((b) => b.cause).includes('capacity'), false);
});

// Browser tests of the page (issue 4): run by scripts/test-browser.sh,
// which serves the repository on 127.0.0.1 and sets SCHEDLAB_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { launch, openPage, stats, waitDone, cli, record, artifact, BASE, root, clippedParamControls } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Sets the clock through the scrubber, as a user dragging it would. */
async function scrubTo(page, fraction) {
  await page.evaluate((f) => {
    const s = document.querySelector('#scrub');
    s.value = String(Number(s.min) + f * (Number(s.max) - Number(s.min)));
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, fraction);
  await nextFrame(page);
}

/** Pixels of the first GPU map: a digest and how many are job-coloured (saturated). */
async function mapPixels(page, index = 0) {
  return page.evaluate((i) => {
    const c = document.querySelectorAll('canvas.gpumap')[i];
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let coloured = 0, h = 0;
    for (let k = 0; k < d.length; k += 4) {
      const r = d[k], g = d[k + 1], b = d[k + 2];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
      h = (h * 31 + r * 7 + g * 3 + b) >>> 0;
    }
    return { coloured, hash: h, total: d.length / 4 };
  }, index);
}

function cliReport(trace, cluster, policies, seed, sets) {
  const args = ['run', '--trace', trace, '--cluster', cluster, '--policy', policies.join(','), '--seed', String(seed), '--format', 'json'];
  for (const [k, v] of Object.entries(sets)) args.push('--set', `${k}=${v}`);
  return JSON.parse(cli(args));
}

/** Every metric cell shown equals the CLI's value at the printed precision; a cell shown
 * as "–" (with every metric shown) is one the page's rule says does not apply, where the CLI
 * reports 0 or null. */
async function assertTableMatchesCli(page, report) {
  const rules = await page.evaluate(() => window.schedlab.catalog.metrics);
  if (!(await page.isChecked('#show-all'))) await page.check('#show-all');
  const cells = await page.$$eval('#results td[data-policy]', (tds) => tds.map((td) => ({
    policy: td.dataset.policy, metric: td.dataset.metric, text: td.querySelector('.v').textContent,
    applies: window.schedlab.metricApplies(td.dataset.metric, window.schedlab.view.runs.get(td.dataset.policy).result),
  })));
  let compared = 0;
  for (const r of report.results) {
    for (const m of rules) {
      const cell = cells.find((c) => c.policy === r.policy && c.metric === m.key);
      assert.ok(cell, `no cell for ${r.policy} ${m.key}`);
      if (cell.text === '–') {
        assert.ok(!cell.applies && (r.metrics[m.key] === 0 || r.metrics[m.key] === null), `${r.policy} ${m.key} shown as – but the CLI says ${r.metrics[m.key]}`);
        continue;
      }
      assert.equal(cell.text, (r.metrics[m.key] * m.scale).toFixed(m.digits), `${r.policy} ${m.key}`);
      compared++;
    }
  }
  return compared;
}

test('the default comparison runs, animates within 2 s and shows the CLI metrics', { timeout: 120_000 }, async () => {
  const page = await openPage(browser);
  await waitDone(page);
  await page.waitForFunction(() => window.schedlab.stats.firstFrameMs !== null);
  const s = await stats(page);
  assert.equal(s.phase, 'done');
  record('first_animated_frame_ms', s.firstFrameMs);
  assert.ok(s.firstFrameMs <= 2000, `first animated frame after ${s.firstFrameMs} ms`);
  const st = await page.evaluate(() => ({
    trace: window.schedlab.view.inputs.trace.name, cluster: window.schedlab.view.layout.name,
    policies: window.schedlab.view.policies, seed: window.schedlab.view.inputs.seed,
    sets: window.schedlab.view.inputs.sets, playing: window.schedlab.anim.playing,
    expected: window.schedlab.catalog.traces[0],
  }));
  // The default is the first bundled trace with its recommended cluster and policies.
  assert.equal(st.trace, st.expected.name);
  assert.equal(st.cluster, st.expected.cluster);
  assert.deepEqual(st.policies, st.expected.policies);
  assert.ok(st.playing, 'the default comparison animates on first open');
  // Its policies are all in the core package: the full one is never fetched.
  assert.deepEqual(page.requested.filter((u) => u.includes('pkg-full')), []);
  assert.deepEqual(await clippedParamControls(page), [], 'parameter controls clipped by the inputs panel');
  const report = cliReport(st.trace, st.cluster, st.policies, st.seed, st.sets);
  const n = await assertTableMatchesCli(page, report);
  assert.ok(n >= st.policies.length * 10, `compared ${n} cells`);
  // The JSON export carries the CLI's numbers, bit for bit.
  await page.click('#export summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="json"]')]);
  const exported = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  assert.equal(exported.results.length, report.results.length);
  for (let i = 0; i < report.results.length; i++) {
    assert.deepEqual(exported.results[i].metrics, report.results[i].metrics);
    assert.deepEqual(exported.results[i].jobs, report.results[i].jobs);
    assert.deepEqual(exported.results[i].params, report.results[i].params);
  }
  assert.deepEqual(exported.engine, report.engine);
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export summary').then(() => page.click('button[data-export="png"]'))]);
  assert.deepEqual([...readFileSync(await png.path()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export summary').then(() => page.click('button[data-export="csv"]'))]);
  const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.equal(lines.length, report.results.length + 1);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('laptop-default.png'), fullPage: true });
  await page.close();
});

test('the GPU map is drawn and scrubbing changes it; keyboard steps through events', { timeout: 60_000 }, async () => {
  const page = await openPage(browser);
  await waitDone(page);
  await page.click('#play'); // pause
  await page.waitForFunction(() => !window.schedlab.anim.playing);
  await scrubTo(page, 0.05);
  const a = await mapPixels(page);
  assert.ok(a.coloured > 100, `GPU map looks blank (${a.coloured} coloured pixels of ${a.total})`);
  await scrubTo(page, 0.3);
  const b = await mapPixels(page);
  assert.notEqual(a.hash, b.hash, 'scrubbing did not change the GPU map');
  // Keyboard: → jumps to the next event, ← back, Space plays.
  const t0 = await page.evaluate(() => window.schedlab.anim.t);
  await page.keyboard.press('ArrowRight');
  const t1 = await page.evaluate(() => window.schedlab.anim.t);
  assert.ok(t1 > t0, `next event ${t1} after ${t0}`);
  await page.keyboard.press('ArrowLeft');
  const t2 = await page.evaluate(() => window.schedlab.anim.t);
  assert.ok(t2 < t1);
  await page.keyboard.press(' ');
  assert.ok(await page.evaluate(() => window.schedlab.anim.playing));
  // Hovering a busy GPU names its job.
  await page.keyboard.press(' ');
  await scrubTo(page, 0.05);
  const box = await page.locator('canvas.gpumap').first().boundingBox();
  const spot = await page.evaluate(() => {
    const v = window.schedlab.view;
    const p = v.policies[0];
    const rec = v.panels.get(p);
    const tl = v.runs.get(p).result.timeline;
    const t = window.schedlab.anim.t;
    for (let g = 0; g < v.layout.total_gpus; g++) {
      const lo = tl.gpu_offsets[g], hi = tl.gpu_offsets[g + 1];
      for (let k = lo; k < hi; k++) {
        const s = tl.gpu_segs[k];
        if (tl.seg_start[s] <= t && t < tl.seg_end[s]) return { x: rec.map.cellX[g] + 2, y: rec.map.cellY[g] + 2 };
      }
    }
    return null;
  });
  assert.ok(spot, 'no busy GPU at 5% of the run');
  await page.mouse.move(box.x + spot.x, box.y + spot.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  for (const word of ['model', 'GPUs', 'batch size', 'progress', 'restarts']) assert.ok(tip.includes(word), `tooltip lacks ${word}: ${tip}`);
  await page.close();
});

test('policies that use oracle job lengths are marked in the picker', { timeout: 60_000 }, async () => {
  const page = await openPage(browser);
  await waitDone(page);
  const tagged = await page.$$eval('#policies .policy', (items) => items
    .filter((i) => i.querySelector('.oracle'))
    .map((i) => i.querySelector('input').value));
  const fromCli = JSON.parse(cli(['list', 'policies', '--json'])).filter((p) => p.knowledge === 'oracle').map((p) => p.name);
  assert.deepEqual(tagged, fromCli);
  assert.ok(tagged.includes('srtf') && !tagged.includes('fifo'), tagged.join(','));
  const tip = await page.$eval('label[for="pol-srtf"] .oracle', (e) => e.title);
  assert.match(tip, /uses oracle job lengths/);
  await page.screenshot({ path: artifact('oracle-tags.png') });
  await page.context().close();
});

test('a malformed upload shows the line and field, and keeps the inputs and results', { timeout: 60_000 }, async () => {
  const page = await openPage(browser);
  await waitDone(page);
  const before = await page.evaluate(() => ({ trace: document.querySelector('#trace').value, rows: document.querySelectorAll('#results tbody tr').length }));
  const cases = [
    ['bad.csv', 'name,arrival,model,gpus,duration\na,0,linear,1,10\nb,zz,linear,1,10\n', "bad.csv: line 3, field 'arrival'"],
    ['bad-pollux.csv', 'name,time,application,num_replicas,batch_size\na,0,cifar10,x,128\n', "bad-pollux.csv: line 2, field 'num_replicas'"],
    ['bad-duration.csv', 'job_id,num_gpus,submit_time,duration\n1,2,5,100\n2,1,abc,4\n', "bad-duration.csv: line 3, field 'submit_time'"],
  ];
  for (const [name, text, want] of cases) {
    await page.setInputFiles('#file', { name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await page.waitForFunction((w) => !document.querySelector('#error').hidden && document.querySelector('#error-text').textContent.includes(w), want, { timeout: 10_000 });
    const after = await page.evaluate(() => ({ trace: document.querySelector('#trace').value, rows: document.querySelectorAll('#results tbody tr').length }));
    assert.deepEqual(after, before, 'inputs or results were lost');
  }
  // Drag and drop takes the same path: a bad file is reported, a good one runs.
  const drop = (name, text) => page.evaluate(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: 'text/csv' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
  await drop('dropped.csv', 'name,arrival,model,gpus\nx,0,afs/vgg16,two\n');
  await page.waitForFunction(() => document.querySelector('#error-text').textContent.includes("dropped.csv: line 2, field 'gpus'"), null, { timeout: 10_000 });
  await page.screenshot({ path: artifact('laptop-upload-error.png') });
  await drop('good.csv', 'name,arrival,model,gpus,duration\na,0,afs/vgg16,4,600\nb,60,afs/resnet50,8,900\nc,120,afs/chatbot,2,300\n');
  await page.waitForFunction(() => window.schedlab.view && window.schedlab.view.inputs.trace.name === 'good.csv' && window.schedlab.batch.done, null, { timeout: 20_000 });
  assert.equal(await page.evaluate(() => [...window.schedlab.view.runs.values()][0].result.metrics.completed), 3);
  assert.equal(await page.evaluate(() => document.querySelector('#error').hidden), true);
  // A bad parameter is reported and its control marked.
  await page.evaluate(() => {
    const i = document.querySelector('[data-key="engine.restart_scale"]');
    i.value = '1e9';
    i.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.click('#run');
  await page.waitForFunction(() => !document.querySelector('#error').hidden);
  assert.match(await page.textContent('#error-text'), /engine\.restart_scale=1e9/);
  assert.ok(await page.evaluate(() => document.querySelector('[data-key="engine.restart_scale"]').classList.contains('invalid')));
  assert.equal(await page.evaluate(() => document.querySelectorAll('#results tbody tr').length), before.rows);
  await page.close();
});

test('the state is in the URL: params, seed, policies, time', { timeout: 60_000 }, async () => {
  const sets = { 'tiresias.t1': '5000', 'engine.restart_scale': '0.5' };
  const q = `?trace=afs-mini&cluster=homog-64&policies=srtf,tiresias&set=tiresias.t1=5000&set=engine.restart_scale=0.5&seed=3&t=7200&speed=100`;
  const page = await openPage(browser, BASE + q);
  await waitDone(page);
  const st = await page.evaluate(() => ({
    policies: window.schedlab.view.policies, seed: document.querySelector('#seed').value,
    t1: document.querySelector('[data-key="tiresias.t1"]').value, t: window.schedlab.anim.t,
    playing: window.schedlab.anim.playing, speed: window.schedlab.anim.speed,
  }));
  assert.deepEqual(st.policies, ['srtf', 'tiresias']);
  assert.equal(st.seed, '3');
  assert.equal(st.t1, '5000');
  assert.equal(st.t, 7200);
  assert.equal(st.playing, false, 'a shared time opens paused there');
  assert.equal(await page.evaluate(() => document.querySelector('#error').hidden), true);
  assert.equal(st.speed, 100);
  await assertTableMatchesCli(page, cliReport('afs-mini', 'homog-64', ['srtf', 'tiresias'], 3, sets));
  const url = new URL(page.url());
  assert.deepEqual(url.searchParams.getAll('set').sort(), ['engine.restart_scale=0.5', 'tiresias.t1=5000']);
  // Embedded view.
  const embed = await openPage(browser, `${BASE}${q}&embed=1`, { width: 800, height: 560 });
  await waitDone(embed);
  assert.ok(await embed.evaluate(() => document.body.classList.contains('embed') && getComputedStyle(document.querySelector('#controls')).display === 'none'));
  await embed.screenshot({ path: artifact('embed.png') });
  await embed.close();
  // A trace from the same origin loads without asking; another origin asks first.
  const same = await openPage(browser, `${BASE}?trace=../traces/afs-mini.csv&cluster=afs-64&policies=fifo`);
  await waitDone(same);
  assert.equal(await same.evaluate(() => window.schedlab.view.inputs.trace.kind), 'url');
  await same.close();
  const other = BASE.replace('127.0.0.1', 'localhost');
  const cross = await openPage(browser, `${BASE}?trace=${encodeURIComponent(`${other}../traces/afs-mini.csv`)}&policies=fifo`);
  await cross.waitForSelector('#confirm:not([hidden])');
  await cross.click('#confirm-no');
  await waitDone(cross);
  assert.equal(await cross.evaluate(() => window.schedlab.view.inputs.trace.kind), 'bundled');
  await cross.close();
  await page.close();
});

test('with predictions, PCS gets its charts and a list parameter round-trips through the URL', { timeout: 90_000 }, async () => {
  // Without predictions the two prediction charts stay hidden.
  let page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo`);
  await waitDone(page);
  assert.equal(await page.evaluate(() => document.querySelectorAll('figure[data-needs="predictions"]:not([hidden])').length), 0);
  await page.close();
  const q = '?trace=afs-mini&policies=fifo,pcs&set=engine.predict=true&set=pcs.thresholds=1800,36000';
  page = await openPage(browser, BASE + q);
  await waitDone(page);
  await page.waitForFunction(() => !document.querySelector('figure[data-needs="predictions"]').hidden, null, { timeout: 10_000 });
  const st = await page.evaluate(() => {
    const ink = (kind) => {
      const c = document.querySelector(`canvas[data-chart="${kind}"]`);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let coloured = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 40) coloured++;
      return coloured;
    };
    return {
      shown: document.querySelectorAll('figure[data-needs="predictions"]:not([hidden])').length,
      pred: ink('pred'), prederr: ink('prederr'),
      classesShown: !document.querySelector('figure[data-needs="groups"]').hidden, classes: ink('classes'),
      thresholds: document.querySelector('[data-key="pcs.thresholds"]').value,
      cells: window.schedlab.view.runs.get('pcs').result.jobs.pred_jct.length,
    };
  });
  assert.equal(st.shown, 2);
  assert.ok(st.pred > 200 && st.prederr > 200, `prediction charts look blank: ${JSON.stringify(st)}`);
  // PCS's three size classes: the GPUs each holds over time.
  assert.ok(st.classesShown && st.classes > 200, `class chart: ${JSON.stringify(st)}`);
  await page.locator('canvas[data-chart="classes"]').screenshot({ path: artifact('pcs-classes.png') });
  assert.equal(st.thresholds, '1800,36000');
  assert.equal(st.cells, 200);
  // The Gantt view of the PCS run marks each job's promised date in blue.
  await page.selectOption('#gantt-policy', 'pcs');
  await nextFrame(page);
  const blue = await page.evaluate(() => {
    const c = document.querySelector('#gantt');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) if (d[k] === 0x15 && d[k + 1] === 0x65 && d[k + 2] === 0xc0) n++;
    return n;
  });
  assert.ok(blue > 50, `${blue} promised-date pixels`);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('pcs-predictions.png'), fullPage: true });
  await page.close();
});

test('PCS preference search: the front grows live in workers, equals the CLI\'s, stops, and a click runs the point', { timeout: 240_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=pcs-themis1&policies=fifo,pcs`);
  await waitDone(page);
  assert.equal(await page.evaluate(() => document.querySelector('#search-section').hidden), false);
  // Stop: a search with the paper's budget, stopped after its first generation.
  await page.click('#search-run');
  await page.waitForFunction(() => /^70 \//.test(document.querySelector('#search-status').textContent), null, { timeout: 120_000 });
  await page.click('#search-run');
  const stopped = await page.evaluate(() => ({
    status: document.querySelector('#search-status').textContent,
    button: document.querySelector('#search-run').textContent,
    workers: window.schedlab.search.workers.length,
  }));
  assert.deepEqual(stopped, { status: 'stopped', button: 'Search', workers: 0 });
  // A whole small search: 70 + 105 evaluations, drawn after each generation.
  const t0 = Date.now();
  await page.evaluate(() => window.schedlab.search.run(175));
  const searchS = (Date.now() - t0) / 1000;
  const st = await page.evaluate(() => window.schedlab.search.state);
  assert.equal(st.evaluations, 175);
  assert.ok(st.done);
  // The same search natively: the same front, objective for objective.
  const native = JSON.parse(cli(['pcs', 'search', '--trace', 'pcs-themis1', '--apps', '0', '--evaluations', '175', '--seed', '1', '--threads', '1']));
  const key = (f) => f.map(String).join(',');
  const want = native.front.map((p) => key([p.objectives.avg_jct, p.objectives.avg_pred_error])).sort();
  const got = st.front.map((p) => key(p.f)).sort();
  assert.deepEqual(got, want);
  assert.ok(st.front.length >= 2, `front of ${st.front.length}`);
  // Click the front's first point as a user would: PCS runs with its settings.
  await page.locator('#search-chart').scrollIntoViewIfNeeded();
  const target = await page.evaluate(() => {
    const s = window.schedlab.search;
    const [, , px, py] = s.located[0];
    const r = s.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    return { x: r.left + px / dpr, y: r.top + py / dpr, sets: s.front[0].sets };
  });
  await page.mouse.click(target.x, target.y);
  await waitDone(page);
  const after = await page.evaluate(() => ({
    weights: document.querySelector('[data-key="pcs.weights"]').value,
    thresholds: document.querySelector('[data-key="pcs.thresholds"]').value,
    predict: window.schedlab.state.sets['engine.predict'],
    pcsDone: window.schedlab.view.runs.has('pcs'),
    picked: document.querySelector('#search-pick').textContent,
    url: location.search,
  }));
  const want2 = Object.fromEntries(target.sets.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  assert.equal(after.weights, want2['pcs.weights']);
  assert.equal(after.thresholds, want2['pcs.thresholds'] || '');
  assert.equal(after.predict, 'true');
  assert.ok(after.pcsDone && after.picked.startsWith('Running PCS with'), JSON.stringify(after));
  assert.ok(after.url.includes('pcs.weights='), after.url);
  assert.deepEqual(page.errors, []);
  record('pcs_search_175_s', searchS);
  await page.locator('#search-section').screenshot({ path: artifact('pcs-search.png') });
  await page.close();
});

test('STS trace: the cost charts stack GPU and tardiness cost (per policy and over time), the Gantt marks due dates', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=sts-mixed-10&policies=sts,edf,avg-edf`);
  await waitDone(page);
  // Charts are drawn shortly after the results arrive.
  await page.waitForFunction(() => !document.querySelector('figure[data-needs="costs"]').hidden, null, { timeout: 10_000 });
  const st = await page.evaluate(() => {
    const colouredIn = (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 40) n++;
      return n;
    };
    const c = document.querySelector('canvas[data-chart="cost"]');
    const over = document.querySelector('canvas[data-chart="costtime"]');
    const runs = window.schedlab.view.runs;
    const m = (p) => runs.get(p).result.metrics;
    const s = runs.get('avg-edf').result.series;
    const end = s.cost_t.length - 1;
    return {
      shown: !c.closest('figure').hidden, coloured: colouredIn(c),
      overShown: !over.closest('figure').hidden, overColoured: colouredIn(over),
      overEnd: s.gpu_cost[end] + s.tardiness_cost[end], overTotal: m('avg-edf').total_cost_usd,
      due: Array.from(runs.get('sts').result.jobs.due).filter((v) => Number.isFinite(v)).length,
      sts: m('sts').total_cost_usd, edf: m('edf').total_cost_usd, late: m('avg-edf').tardiness_cost_usd,
      plans: runs.get('sts').result.timeline.plan_job.length,
    };
  });
  assert.ok(st.shown && st.coloured > 500, `cost chart blank: ${JSON.stringify(st)}`);
  // Cost over time: drawn, and the cumulative cost ends at the run's total.
  assert.ok(st.overShown && st.overColoured > 300, `cost-over-time chart blank: ${JSON.stringify(st)}`);
  assert.ok(Math.abs(st.overEnd - st.overTotal) <= 1e-9 * st.overTotal, JSON.stringify(st));
  assert.equal(st.due, 100);
  // The CLI's numbers, bit for bit (wasm == native).
  const cliRun = (p) => JSON.parse(cli(['run', '--trace', path.join(root, 'traces', 'sts-mixed-10.csv'), '--cluster', 'sts-10', '--policy', p, '--format', 'json'])).results[0].metrics.total_cost_usd;
  assert.equal(st.sts, cliRun('sts'));
  assert.equal(st.edf, cliRun('edf'));
  assert.ok(st.sts < st.edf && st.late > 0, JSON.stringify(st));
  // STS announces its staircases: the plan view shows one job's plan against what it held.
  assert.ok(st.plans >= 100, `${st.plans} plans`);
  await page.selectOption('#gantt-policy', 'sts');
  await scrubTo(page, 0.6);
  await nextFrame(page);
  const plan = await page.evaluate(() => {
    const c = document.querySelector('#plan');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let dark = 0;
    for (let k = 0; k < d.length; k += 4) if (d[k] < 60 && d[k + 1] < 60 && d[k + 2] < 60) dark++;
    return { shown: !document.querySelector('#plan-section').hidden, dark, caption: document.querySelector('#plan-caption').textContent };
  });
  assert.ok(plan.shown && plan.dark > 100 && /plan made at/.test(plan.caption), JSON.stringify(plan));
  // The single-job sandbox: a tighter deadline costs more and steps up sooner.
  const sandbox = await page.evaluate(() => {
    const d = document.querySelector('#sandbox');
    d.open = true;
    const slider = document.querySelector('#sb-deadline');
    const cost = (v) => {
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      const m = /Expected cost \$([0-9]+\.[0-9]+)/.exec(document.querySelector('#sb-text').textContent);
      return m ? Number(m[1]) : NaN;
    };
    return { loose: cost(0.95), tight: cost(0.3), text: document.querySelector('#sb-text').textContent };
  });
  assert.ok(sandbox.tight > sandbox.loose && sandbox.loose > 0, JSON.stringify(sandbox));
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('sts-costs.png'), fullPage: true });
  await page.close();
});

test('pooled trace: speedup against per-pool FCFS and lent GPUs are drawn, numbers equal the CLI\'s', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=anticipatory-synthetic&policies=pool-fcfs,pool-maxmin,anticipatory`);
  await waitDone(page);
  await page.waitForFunction(() => !document.querySelector('figure[data-needs="pools"]').hidden, null, { timeout: 10_000 });
  const st = await page.evaluate(() => {
    const coloured = (name) => {
      const c = document.querySelector(`canvas[data-chart="${name}"]`);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 40) n++;
      return n;
    };
    const runs = window.schedlab.view.runs;
    const m = (p) => runs.get(p).result.metrics;
    const lent = (p) => Math.max(...runs.get(p).result.series.borrowed);
    return {
      speedup: coloured('speedup'), lent: coloured('lent'),
      asia: m('anticipatory'), maxmin: m('pool-maxmin'), fcfs: m('pool-fcfs'),
      lentFcfs: lent('pool-fcfs'), lentAsia: lent('anticipatory'),
      jobSpeedups: Array.from(runs.get('anticipatory').result.jobs.speedup).filter((v) => Number.isFinite(v)).length,
    };
  });
  assert.ok(st.speedup > 300 && st.lent > 300, `pool charts blank: ${JSON.stringify({ s: st.speedup, l: st.lent })}`);
  // Per-pool FCFS never lends; A-SIA does, without slowing a job; MaxMin slows some.
  assert.equal(st.lentFcfs, 0);
  assert.ok(st.lentAsia > 0);
  assert.equal(st.asia.slowed_frac, 0);
  assert.ok(st.maxmin.slowed_frac > 0 && st.asia.speedup_geo > 1, JSON.stringify(st.asia));
  assert.equal(st.fcfs.speedup_geo, 1);
  assert.equal(st.jobSpeedups, 537);
  // The per-pool table (JS) agrees with the run's metric (Rust): pooling its geometric means
  // by job counts gives speedup_geo, and A-SIA slows no pool's job.
  const pt = await page.evaluate(() => [...document.querySelectorAll('#pool-table tr')].slice(1).map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(pt.length, 4);
  const head = await page.evaluate(() => [...document.querySelectorAll('#pool-table th')].map((c) => c.textContent));
  const ai = head.indexOf('anticipatory');
  let logs = 0, n = 0;
  for (const row of pt) {
    const jobs = Number(row[0].match(/\((\d+) jobs\)/)[1]);
    const [geo, slowed] = row[ai].split(' / ');
    assert.equal(slowed, '0.0%', JSON.stringify(row));
    logs += jobs * Math.log(Number(geo));
    n += jobs;
  }
  assert.equal(n, 537);
  assert.ok(Math.abs(Math.exp(logs / n) - st.asia.speedup_geo) < 0.01, `${Math.exp(logs / n)} vs ${st.asia.speedup_geo}`);
  // The prose the wasm package leaves out (crates/core/src/prose.rs) reaches the tooltips.
  const tips = await page.evaluate(() => ({
    policy: document.querySelector('label.pol[for="pol-anticipatory"]').title,
    param: [...document.querySelectorAll('label.param')].map((l) => l.title).filter((t) => t.length > 20).length,
    metric: document.querySelector('#results th[title]:not([title=""])') !== null,
  }));
  assert.ok(/lent/.test(tips.policy) && tips.param > 0 && tips.metric, JSON.stringify(tips));
  // The CLI's numbers, bit for bit (the trace carries its pools).
  const cliRun = (p) => JSON.parse(cli(['run', '--trace', path.join(root, 'traces', 'anticipatory-synthetic.csv'), '--cluster', 'pools-32', '--policy', p, '--format', 'json'])).results[0].metrics;
  assert.equal(st.asia.speedup_geo, cliRun('anticipatory').speedup_geo);
  assert.equal(st.maxmin.slowdown_total_s, cliRun('pool-maxmin').slowdown_total_s);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('pools-speedup.png'), fullPage: true });
  await page.close();
});

test('locality cells: pool regions are the pools\' home servers, lent GPUs read off the GPUs', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=anticipatory-synthetic&cluster=pools-4x8&policies=pool-fcfs,hived-rtc,anticipatory&set=engine.placement=cells`);
  await waitDone(page);
  await page.waitForFunction(() => !document.querySelector('figure[data-needs="pools"]').hidden, null, { timeout: 10_000 });
  // The busiest instant of lending under HiveD*: scrub there.
  const t = await page.evaluate(() => {
    const r = window.schedlab.view.runs.get('hived-rtc').result;
    const b = r.series.borrowed;
    const k = b.indexOf(Math.max(...b));
    return r.series.t[k];
  });
  await page.evaluate((at) => { const s = document.querySelector('#scrub'); s.value = at; s.dispatchEvent(new Event('input')); }, t);
  await nextFrame(page);
  const st = await page.evaluate(() => {
    const v = window.schedlab.view;
    const one = (p) => {
      const run = v.runs.get(p).result;
      const a = v.panels.get(p).map.at;
      const regions = v.panels.get(p).map.regions;
      // Every drawn lent cell is a GPU of its region's home running another pool's job.
      let wrong = 0;
      for (let c = 0; c < a.cells.length; c++) {
        if (a.lentTo[c] < 0) continue;
        const g = regions.gpuOf[c];
        const owner = run.pools.findIndex((q) => q.home_gpus.includes(g));
        if (owner < 0 || owner === a.lentTo[c]) wrong++;
      }
      return {
        homes: run.pools.map((q) => q.home_gpus),
        own: [...a.own], lent: [...a.lent], borrowed: [...a.borrowed], wrong,
        metrics: run.metrics,
      };
    };
    return { fcfs: one('pool-fcfs'), hived: one('hived-rtc'), asia: one('anticipatory') };
  });
  // 4 pools of 8 on 4 servers of 8: each pool owns one whole server.
  assert.deepEqual(st.fcfs.homes, [0, 1, 2, 3].map((n) => [0, 1, 2, 3, 4, 5, 6, 7].map((g) => 8 * n + g)));
  assert.deepEqual(st.fcfs.lent, [0, 0, 0, 0]);
  const sum = (v) => v.reduce((a, b) => a + b, 0);
  assert.ok(sum(st.hived.lent) > 0, JSON.stringify(st.hived));
  assert.equal(sum(st.hived.lent), sum(st.hived.borrowed));
  assert.equal(st.hived.wrong + st.asia.wrong, 0);
  // Fig 16's claim on this trace: A-SIA slows fewer jobs than HiveD*.
  assert.ok(st.asia.metrics.slowed_frac < st.hived.metrics.slowed_frac, JSON.stringify([st.asia.metrics.slowed_frac, st.hived.metrics.slowed_frac]));
  // The CLI's numbers, bit for bit.
  const cliRun = (p) => JSON.parse(cli(['run', '--trace', path.join(root, 'traces', 'anticipatory-synthetic.csv'), '--cluster', 'pools-4x8', '--policy', p, '--set', 'engine.placement=cells', '--format', 'json'])).results[0].metrics;
  assert.equal(st.asia.metrics.speedup_geo, cliRun('anticipatory').speedup_geo);
  assert.equal(st.hived.metrics.slowdown_total_s, cliRun('hived-rtc').slowdown_total_s);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('pools-cells.png'), fullPage: true });
  await page.close();
});

test('Fig 1 walk-through: pool regions mark lent GPUs and the captions carry the runs\' numbers', { timeout: 90_000 }, async () => {
  // The bundled example applies its own settings (A-SIA's windows of 2 and 4 units).
  const page = await openPage(browser, `${BASE}?trace=anticipatory-fig1`);
  await waitDone(page);
  assert.equal(await page.evaluate(() => document.querySelector('#guide').hidden), false);
  await page.click('#guide .g-next');
  await page.click('#guide .g-next');
  await nextFrame(page);
  const st = await page.evaluate(() => {
    const v = window.schedlab.view;
    const at = (p) => { const a = v.panels.get(p).map.at; return { own: [...a.own], lent: [...a.lent], borrowed: [...a.borrowed] }; };
    // Pixels of the borrower's (green) mark colour in each map.
    const green = (p) => {
      const c = v.panels.get(p).canvas;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] === 0x22 && d[k + 1] === 0x88 && d[k + 2] === 0x33) n++;
      return n;
    };
    const fin = (p, name) => { const r = v.runs.get(p).result; return r.jobs.finish[r.jobs.names.indexOf(name)] / 600; };
    return {
      t: window.schedlab.anim.t, text: document.querySelector('#guide .g-text').textContent,
      fcfs: at('pool-fcfs'), maxmin: at('pool-maxmin'), asia: at('anticipatory'),
      greenFcfs: green('pool-fcfs'), greenMaxmin: green('pool-maxmin'), asiaJ3: fin('anticipatory', 'J3'),
      poolsShown: !document.querySelector('#pools-section').hidden,
    };
  });
  // Step 2 stops the clock at t = 1.5 units: orange (pool 1) lends its 2 idle GPUs to green's
  // long J2 under MaxMin and to the short J3 and J4 under A-SIA; per-pool FCFS lends none.
  assert.equal(st.t, 900);
  assert.deepEqual(st.maxmin, { own: [4, 2], lent: [0, 2], borrowed: [2, 0] });
  assert.deepEqual(st.asia.lent, [0, 2]);
  assert.deepEqual(st.fcfs.lent, [0, 0]);
  assert.ok(st.greenMaxmin > st.greenFcfs, `lent marks not drawn: ${st.greenMaxmin} vs ${st.greenFcfs}`);
  assert.equal(st.asiaJ3, 3);
  assert.ok(st.text.includes(`done at t = ${st.asiaJ3}`), st.text);
  assert.ok(st.poolsShown);
  // Hovering a lent GPU says whose quota it is and who borrows it.
  const tip = await page.evaluate(() => {
    const rec = window.schedlab.view.panels.get('pool-maxmin');
    const g = rec.map.at.lentTo.findIndex((x) => x >= 0);
    const r = rec.canvas.getBoundingClientRect();
    return { x: r.left + rec.map.cellX[g] + 2, y: r.top + rec.map.cellY[g] + 2 };
  });
  await page.mouse.move(tip.x, tip.y);
  const tipText = await page.evaluate(() => document.querySelector('#tooltip').textContent);
  assert.match(tipText, /pool orange's quota, lent to pool green/);
  await page.screenshot({ path: artifact('fig1-walkthrough.png') });
  // The last step's table: A-SIA speeds up J3 and slows nothing; MaxMin slows J6 and J7.
  for (let k = 0; k < 4; k++) await page.click('#guide .g-next');
  const rows = await page.evaluate(() => [...document.querySelectorAll('.guide-table tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
  const col = (p) => rows[0].indexOf(p);
  const row = (j) => rows.find((r) => r[0] === j);
  assert.match(row('J6')[col('pool-maxmin')], /✗/);
  assert.match(row('J7')[col('pool-maxmin')], /✗/);
  assert.match(row('J3')[col('anticipatory')], /✓/);
  assert.ok(rows.every((r) => !/✗/.test(r[col('anticipatory')])), JSON.stringify(rows));
  // The Gantt view's per-pool-FCFS finishes: red (finished later) under MaxMin, none under A-SIA.
  const red = async (policy) => {
    await page.selectOption('#gantt-policy', policy);
    await nextFrame(page);
    return page.evaluate(() => {
      const c = document.querySelector('#gantt');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] === 0xc6 && d[k + 1] === 0x28 && d[k + 2] === 0x28) n++;
      return n;
    });
  };
  assert.ok(await red('pool-maxmin') > 0, 'no later-than-FCFS mark under MaxMin');
  assert.equal(await red('anticipatory'), 0);
  // The example's settings came with its trace and go with it.
  const windows = () => page.evaluate(() => document.querySelector('[data-key="anticipatory.windows_min"]').value);
  assert.equal(await windows(), '20,40');
  await page.selectOption('#trace', 'b:anticipatory-synthetic');
  assert.equal(await windows(), '5,60,720');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('phone layout', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, BASE, { width: 390, height: 844 }, { dpr: 2 });
  await waitDone(page);
  await nextFrame(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow} px wider than the phone`);
  // Opened, the inputs panel shows every selected policy's parameter controls whole.
  await page.evaluate(() => { document.querySelector('#form').closest('details').open = true; });
  assert.deepEqual(await clippedParamControls(page), [], 'parameter controls clipped on a phone');
  await page.screenshot({ path: artifact('phone-inputs.png') });
  await page.evaluate(() => { document.querySelector('#form').closest('details').open = false; });
  await page.screenshot({ path: artifact('phone-top.png') });
  await page.screenshot({ path: artifact('phone-full.png'), fullPage: true });
  await page.close();
});

test('a 50,000-job trace keeps the page responsive, shows progress, and can be cancelled', { timeout: 600_000 }, async () => {
  const big = artifact('trace-50k.csv');
  cli(['gen', 'afs-synthetic', '--jobs', '50000', '--seed', '7', '--out', big]);
  const page = await openPage(browser, `${BASE}?policies=fifo,srtf`);
  await waitDone(page);
  // The long-task observer works here: a deliberate 150 ms block is seen.
  await page.evaluate(() => setTimeout(() => { const t = performance.now(); while (performance.now() - t < 150); }, 0));
  await page.waitForFunction(() => window.__longtasks.some((x) => x.duration >= 140), null, { timeout: 5000 });
  await page.evaluate(() => { window.__longtasks = []; });
  const started = Date.now();
  await page.setInputFiles('#file', big);
  await page.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.trace && window.schedlab.batch.trace.jobs === 50000, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.schedlab.stats.partialProgressSeen, null, { timeout: 120_000 });
  await page.screenshot({ path: artifact('laptop-50k-running.png') });
  await page.waitForFunction(() => window.schedlab.batch.done && window.schedlab.batch.trace.jobs === 50000, null, { timeout: 540_000, polling: 200 });
  const runMs = Date.now() - started;
  await page.waitForTimeout(2000); // animate the result a little
  const s = await stats(page);
  assert.equal(s.phase, 'done');
  const tasks = await page.evaluate(() => window.__longtasks);
  const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  record('run_50k_two_policies_ms', runMs);
  record('longest_main_thread_task_50k_ms', longest);
  record('progress_updates_50k', s.progressUpdates);
  assert.ok(tasks.length === 0 || longest <= 200, `a main-thread task took ${longest} ms`);
  const jobs = await page.evaluate(() => window.schedlab.view.runs.get('fifo').result.metrics.jobs);
  assert.equal(jobs, 50000);
  await page.screenshot({ path: artifact('laptop-50k-done.png'), fullPage: true });
  // Cancel: start again with a third policy and stop it midway.
  await page.evaluate(() => { window.schedlab.stats.partialProgressSeen = false; document.querySelector('#pol-maxmin').click(); });
  await page.click('#run');
  await page.waitForFunction(() => window.schedlab.stats.partialProgressSeen, null, { timeout: 120_000 });
  await page.click('#cancel');
  await page.waitForFunction(() => window.schedlab.stats.phase === 'cancelled', null, { timeout: 10_000 });
  const statuses = await page.$$eval('#progress .pstatus', (xs) => xs.map((x) => x.textContent));
  assert.ok(statuses.some((x) => x === 'cancelled'), statuses.join(' | '));
  assert.ok(await page.evaluate(() => document.querySelectorAll('#results tbody tr').length >= 1), 'results vanished on cancel');
  // The workers recover: a new run right after a cancel completes.
  await page.evaluate(() => { document.querySelector('#pol-maxmin').click(); document.querySelector('#pol-srtf').click(); });
  await page.click('#run');
  await page.waitForFunction(() => window.schedlab.stats.phase === 'done' && window.schedlab.batch.done
    && window.schedlab.view.batch === window.schedlab.batch, null, { timeout: 120_000 });
  assert.deepEqual(await page.evaluate(() => window.schedlab.view.policies), ['fifo']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/**
 * Opens the page on `cluster` with `policies`, uploads a generated
 * afs-synthetic trace of `jobs` jobs sized for `gpus`, waits for every run,
 * then plays at 1000x from `at` (a fraction of the run) and lets it animate
 * for 3.5 s. Returns the page.
 */
async function animateGenerated({ gpus, jobs, seed, cluster, policies, at, timeout }) {
  const tr = artifact(`trace-${gpus}.csv`);
  cli(['gen', 'afs-synthetic', '--jobs', String(jobs), '--seed', String(seed), '--set', `gpus=${gpus}`, '--set', 'load=1.2', '--out', tr]);
  const page = await openPage(browser, `${BASE}?cluster=${cluster}&policies=${policies.join(',')}`);
  await waitDone(page, timeout);
  await page.setInputFiles('#file', tr);
  await page.waitForFunction(([g, n, p]) => window.schedlab.view && window.schedlab.view.layout.total_gpus === g && window.schedlab.batch.done
    && window.schedlab.view.runs.size === p && window.schedlab.batch.trace && window.schedlab.batch.trace.jobs === n, [gpus, jobs, policies.length], { timeout });
  await page.evaluate((f) => {
    const a = window.schedlab.anim;
    const s = document.querySelector('#scrub');
    s.value = String(a.t0 + f * (a.t1 - a.t0));
    s.dispatchEvent(new Event('input', { bubbles: true }));
    const sp = document.querySelector('#speed'); // stay in the busy part of the run
    sp.value = '1000';
    sp.dispatchEvent(new Event('change', { bubbles: true }));
    if (!a.playing) document.querySelector('#play').click();
  }, at);
  await page.waitForTimeout(3500);
  return page;
}

test('1,024 GPUs animate at 30 frames/s or more', { timeout: 180_000 }, async () => {
  const page = await animateGenerated({ gpus: 1024, jobs: 3000, seed: 3, cluster: 'bench-1024', policies: ['fifo', 'maxmin'], at: 0.04, timeout: 120_000 });
  const s = await stats(page);
  const cells = await page.evaluate(() => window.schedlab.view.layout.total_gpus * window.schedlab.view.panels.size);
  const px = await mapPixels(page, 0);
  assert.equal(cells, 2048);
  assert.ok(px.coloured > 1000, 'the 1,024-GPU map is mostly idle');
  record('fps_2x1024_gpus', s.fps);
  record('render_ms_per_frame_2x1024_gpus', s.renderMs);
  assert.ok(s.fps >= 30, `${s.fps} frames/s`);
  await page.screenshot({ path: artifact('laptop-1024-gpus.png'), fullPage: true });
  await page.close();
});

test('10,240 GPUs are summarised one cell per node and animate at 30 frames/s or more', { timeout: 240_000 }, async () => {
  // From 1% of the run, while jobs still arrive: a busy cluster.
  const page = await animateGenerated({ gpus: 10240, jobs: 4000, seed: 5, cluster: 't4:1280x8', policies: ['fifo'], at: 0.01, timeout: 180_000 });
  const s = await stats(page);
  const map = await page.evaluate(() => {
    const m = [...window.schedlab.view.panels.values()][0].map;
    return { nodeView: m.nodeView, nodes: m.nodes.length, size: m.size, height: m.cssH };
  });
  assert.deepEqual([map.nodeView, map.nodes], [true, 1280]);
  assert.ok(map.size >= 4, `node cells of ${map.size} px`);
  const px = await mapPixels(page, 0);
  assert.ok(px.coloured > 2000, `the 10,240-GPU map is mostly idle: ${JSON.stringify(px)}`);
  assert.match(await page.textContent('#map-legend'), /each cell is a node/);
  record('fps_10240_gpus_node_view', s.fps);
  record('render_ms_per_frame_10240_gpus_node_view', s.renderMs);
  assert.ok(s.fps >= 30, `${s.fps} frames/s`);
  // Hovering a busy node's strip names the job on it.
  await page.click('#play');
  const spot = await page.evaluate(() => {
    const v = window.schedlab.view;
    const rec = [...v.panels.values()][0];
    const tl = [...v.runs.values()][0].result.timeline;
    const t = window.schedlab.anim.t;
    for (const nd of rec.map.nodes) {
      const g = nd.first;
      for (let k = tl.gpu_offsets[g]; k < tl.gpu_offsets[g + 1]; k++) {
        const seg = tl.gpu_segs[k];
        if (tl.seg_start[seg] <= t && t < tl.seg_end[seg]) return { x: nd.x + 0.5, y: nd.y + nd.h / 2, job: tl.seg_job[seg] };
      }
    }
    return null;
  });
  assert.ok(spot, 'no busy node');
  const box = await page.locator('canvas.gpumap').first().boundingBox();
  await page.mouse.move(box.x + spot.x, box.y + spot.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  assert.match(await page.textContent('#tooltip'), /GPUs/);
  await page.screenshot({ path: artifact('laptop-10240-gpus.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a GPU that jobs share is drawn as split cells, one strip per job', { timeout: 90_000 }, async () => {
  // Single-GPU jobs of 1-3 GB on 4 GPUs: FIFO with share_gpus packs them in slices.
  const rows = ['name,arrival,model,gpus,duration,mem_gb'];
  for (let i = 0; i < 24; i++) rows.push(`j${i},${i * 15},linear,1,${3000 + 97 * (i % 5)},${1 + (i % 3)}`);
  const page = await openPage(browser, `${BASE}?cluster=gtx1080:1x4&policies=fifo&set=fifo.share_gpus=true`);
  await waitDone(page);
  await page.setInputFiles('#file', { name: 'shared.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
  await page.waitForFunction(() => window.schedlab.batch.done && window.schedlab.batch.trace
    && window.schedlab.batch.trace.jobs === 24 && window.schedlab.view.runs.size === 1, null, { timeout: 60_000 });
  const shares = await page.evaluate(() => [...window.schedlab.view.runs.values()][0].result.timeline.seg_share.filter((x) => x < 1).length);
  assert.ok(shares >= 12, `${shares} slices in the timeline`);
  await page.evaluate(() => {
    const a = window.schedlab.anim;
    if (a.playing) document.querySelector('#play').click();
    const s = document.querySelector('#scrub');
    s.value = String(a.t0 + 0.05 * (a.t1 - a.t0));
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await nextFrame(page);
  // Distinct job colours inside each GPU cell: a shared GPU shows several.
  const colours = await page.evaluate(() => {
    const rec = [...window.schedlab.view.panels.values()][0];
    const m = rec.map, d = m.dpr, ctx = rec.canvas.getContext('2d');
    const out = [];
    for (let g = 0; g < m.n; g++) {
      const y = Math.floor((m.cellY[g] + m.size / 2) * d);
      const row = ctx.getImageData(Math.floor(m.cellX[g] * d), y, Math.floor(m.size * d), 1).data;
      const seen = new Set();
      for (let k = 0; k < row.length; k += 4) {
        const [r, gg, b] = [row[k], row[k + 1], row[k + 2]];
        if (Math.max(r, gg, b) - Math.min(r, gg, b) > 40) seen.add(`${r >> 4},${gg >> 4},${b >> 4}`);
      }
      out.push(seen.size);
    }
    return out;
  });
  assert.ok(Math.max(...colours) >= 2, `job colours per GPU cell: ${colours}`);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: artifact('laptop-shared-gpus.png') });
  await page.close();
});

// The package the page loads at start is the core one (issue 4's 600 KB); the full
// package (both builds), fetched the first time an LP-based policy runs, has our own
// bound of 1 MB.
test('the wasm package the page loads is at most 600 KB gzipped, the full one at most 1 MB', () => {
  const size = (dir) => {
    const wasm = readFileSync(path.join(root, 'www', dir, 'schedlab_bg.wasm'));
    return [wasm.length, gzipSync(wasm, { level: 9 }).length];
  };
  const [bytes, gz] = size('pkg');
  const [fullBytes, fullGz] = size('pkg-full');
  const [plainBytes, plainGz] = size('pkg-full-plain');
  record('wasm_bytes', bytes);
  record('wasm_gzip_bytes', gz);
  record('wasm_full_bytes', fullBytes);
  record('wasm_full_gzip_bytes', fullGz);
  record('wasm_full_plain_gzip_bytes', plainGz);
  assert.ok(gz <= 600 * 1024, `core: ${gz} bytes gzipped`);
  assert.ok(fullGz <= 1024 * 1024, `full: ${fullGz} bytes gzipped`);
  assert.ok(plainGz <= 1024 * 1024, `full without SIMD: ${plainGz} bytes gzipped`);
  writeFileSync(artifact('wasm-size.txt'), `core ${bytes} bytes, ${gz} gzipped; full ${fullBytes} bytes, ${fullGz} gzipped; full without SIMD ${plainBytes} bytes, ${plainGz} gzipped\n`);
});

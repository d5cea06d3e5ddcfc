// Browser tests of Sia's views (issue 5, "Page"): the goodput matrix of
// the round at the clock, and jobs moving between GPU types on the map.
// Run by scripts/test-browser.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitDone, artifact, cli, BASE, clippedParamControls } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function seekTo(page, t) {
  await page.evaluate((x) => {
    const s = document.querySelector('#scrub');
    s.value = String(x);
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, t);
  await nextFrame(page);
}

/** Distinct colours and a digest of the heatmap's pixels. */
async function heatPixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector('#heatmap');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let saturated = 0, h = 0;
    for (let k = 0; k < d.length; k += 4) {
      const r = d[k], g = d[k + 1], b = d[k + 2];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 40) saturated++;
      colours.add((r << 16) | (g << 8) | b);
      h = (h * 31 + r * 7 + g * 3 + b) >>> 0;
    }
    return { saturated, colours: colours.size, hash: h, total: d.length / 4 };
  });
}

test('sia shows its goodput matrix for the round at the clock, and moves between GPU types', { timeout: 120_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=sia-philly&cluster=sia-hetero-64&policies=fifo,sia&t=3600`);
  await waitDone(page, 90_000);
  await nextFrame(page);
  // Sia is in the full wasm package, fetched once for this run (fifo ran in the core one).
  assert.equal(page.requested.filter((u) => u.endsWith('pkg-full/schedlab_bg.wasm')).length, 1, page.requested.join('\n'));
  assert.equal(await page.evaluate(() => window.schedlab.anim.playing), false);
  assert.deepEqual(await clippedParamControls(page), [], "Sia's parameter controls clipped by the inputs panel");
  assert.equal(await page.evaluate(() => document.querySelector('#insight-section').hidden), false, 'the matrix panel is shown');
  assert.equal(await page.textContent('#insight-policy'), 'sia');
  // The round shown is the last one at or before the clock.
  const pick = (t) => page.evaluate((x) => {
    const ins = window.schedlab.view.runs.get('sia').result.insight;
    let i = -1;
    for (let k = 0; k < ins.t.length; k++) if (ins.t[k] <= x) i = k;
    return { t: ins.t[i], rows: ins.row_offsets[i + 1] - ins.row_offsets[i] };
  }, t);
  const want = await pick(3600);
  assert.ok(want.rows > 0, 'jobs are active at 1 h');
  assert.equal(await page.textContent('#insight-round'), `t = ${(want.t / 3600).toFixed(2)} h`);
  assert.match(await page.textContent('#insight-meta'), new RegExp(`^${want.rows} jobs? · \\d+ configurations · \\d+ hold one`));
  const a = await heatPixels(page);
  assert.ok(a.saturated > 2000 && a.colours > 20, `heatmap looks blank: ${JSON.stringify(a)}`);
  // Hover: the first row's chosen cell (else its first cell) names job, configuration and both goodputs.
  const spot = await page.evaluate(() => {
    const h = window.schedlab.heat;
    const r = h.cur;
    let row = 0, col = -1;
    for (let i = 0; i < r.jobs.length && col < 0; i++) if (r.chosen[i] >= 0) { row = i; col = r.chosen[i]; }
    if (col < 0) col = r.norm.findIndex((v) => v === v);
    return { x: h.gutter + col * h.cw + h.cw / 2, y: 34 + row * h.ch + h.ch / 2, label: r.labels[col], job: r.jobs[row] };
  });
  // The why card's section sits above the matrix, so it may start below the fold: a person scrolls to it.
  await page.locator('#heatmap').scrollIntoViewIfNeeded();
  const box = await page.locator('#heatmap').boundingBox();
  await page.mouse.move(box.x + spot.x, box.y + spot.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  for (const word of [`job ${spot.job}`, `configuration ${spot.label}`, 'normalised goodput', 'raw goodput', 'holds after the round']) {
    assert.ok(tip.includes(word), `tooltip lacks "${word}": ${tip}`);
  }
  // Hovering a row outlines that job's GPUs in the maps as well.
  assert.equal(await page.evaluate(() => window.schedlab.heat.key.split('|')[1]), String(spot.job));
  await page.screenshot({ path: artifact('sia-goodput-matrix.png'), fullPage: true });
  await page.mouse.move(1, 1);
  // The busiest round, close up.
  const busiest = await page.evaluate(() => {
    const ins = window.schedlab.view.runs.get('sia').result.insight;
    let best = 0;
    for (let i = 1; i < ins.t.length; i++) {
      if (ins.row_offsets[i + 1] - ins.row_offsets[i] > ins.row_offsets[best + 1] - ins.row_offsets[best]) best = i;
    }
    return ins.t[best];
  });
  await seekTo(page, busiest + 1);
  await page.locator('#insight-section').screenshot({ path: artifact('sia-goodput-matrix-busiest.png') });
  // Scrubbing moves the matrix to another round.
  const t1 = await page.evaluate(() => { const a = window.schedlab.anim; return a.t0 + 0.45 * (a.t1 - a.t0); });
  await seekTo(page, t1);
  const want1 = await pick(t1);
  assert.equal(await page.textContent('#insight-round'), `t = ${(want1.t / 3600).toFixed(2)} h`);
  const b = await heatPixels(page);
  assert.notEqual(a.hash, b.hash, 'scrubbing did not change the heatmap');
  // Moves between GPU types: right after one, the sia panel lists it and outlines the job.
  const move = await page.evaluate(() => {
    const run = window.schedlab.view.runs.get('sia').result;
    const tl = run.timeline;
    const kinds = window.schedlab.catalog.gpu_types;
    for (let j = 0; j < tl.job_offsets.length - 1; j++) {
      for (let k = tl.job_offsets[j] + 1; k < tl.job_offsets[j + 1]; k++) {
        const s = tl.job_segs[k], p = tl.job_segs[k - 1];
        if (tl.seg_kind[s] !== tl.seg_kind[p] && tl.seg_end[s] - tl.seg_start[s] > 60) {
          return { t: tl.seg_start[s], name: run.jobs.names[j], text: `${kinds[tl.seg_kind[p]].name}→${kinds[tl.seg_kind[s]].name}` };
        }
      }
    }
    return null;
  });
  assert.ok(move, 'sia moved no job between GPU types on sia-philly');
  await seekTo(page, move.t + 1);
  await page.waitForFunction(() => document.querySelector('.panel[data-policy="sia"] .moves').textContent.includes('→'));
  const moves = await page.textContent('.panel[data-policy="sia"] .moves');
  assert.ok(moves.includes(move.name) && moves.includes(move.text), `moves line: ${moves}; expected ${move.name} ${move.text}`);
  assert.ok(await page.evaluate(() => window.schedlab.view.panels.get('sia').map.moved.length > 0));
  assert.equal(await page.textContent('.panel[data-policy="fifo"] .moves'), 'no recent moves between GPU types');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: artifact('sia-moves.png'), fullPage: true, clip: await page.locator('#maps').boundingBox() });
  // Without Sia there is no matrix.
  await page.evaluate(() => { document.querySelector('#pol-sia').click(); });
  await page.click('#run');
  await page.waitForFunction(() => window.schedlab.batch.done && window.schedlab.view.batch === window.schedlab.batch
    && window.schedlab.view.policies.join() === 'fifo', null, { timeout: 60_000 });
  await nextFrame(page);
  assert.equal(await page.evaluate(() => document.querySelector('#insight-section').hidden), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the goodput matrix fits a phone', { timeout: 120_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=sia-philly&cluster=sia-hetero-64&policies=sia&t=8000`, { width: 390, height: 844 }, { dpr: 2 });
  await waitDone(page, 90_000);
  await nextFrame(page);
  assert.equal(await page.evaluate(() => document.querySelector('#insight-section').hidden), false);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow} px wider than the phone`);
  const px = await heatPixels(page);
  assert.ok(px.saturated > 2000, `heatmap looks blank on a phone: ${JSON.stringify(px)}`);
  await page.locator('#insight-section').screenshot({ path: artifact('phone-sia-goodput-matrix.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('variants compare Sia solver methods side by side, with the solver view', { timeout: 180_000 }, async () => {
  const a = 'sia@solver=lp-star', b = 'sia@solver=copter';
  const page = await openPage(browser, `${BASE}?trace=sia-philly&cluster=sia-hetero-64&policies=fifo,${a},${b}`);
  await waitDone(page, 150_000);
  await nextFrame(page);
  // Both variants ran, in the full package fetched once, under their own labels.
  assert.equal(page.requested.filter((u) => u.endsWith('pkg-full/schedlab_bg.wasm')).length, 1);
  const runs = await page.evaluate(([x, y]) => {
    const r = window.schedlab.view.runs;
    const fin = (arr) => Array.from(arr).filter((v) => Number.isFinite(v)).length;
    const one = (k) => ({ n: r.get(k).result.rounds.t.length, vars: fin(r.get(k).result.rounds.vars), moved: fin(r.get(k).result.rounds.changed_vars), solver: Array.from(r.get(k).result.rounds.solver_s).filter((v) => v > 0).length, jobs: r.get(k).result.metrics.completed });
    return { keys: [...r.keys()], a: one(x), b: one(y), fifoVars: fin(r.get('fifo').result.rounds.vars) };
  }, [a, b]);
  assert.deepEqual(runs.keys.sort(), ['fifo', a, b].sort());
  assert.ok(runs.a.n > 10 && runs.a.vars === runs.a.n && runs.a.solver > 0, JSON.stringify(runs.a));
  assert.equal(runs.a.moved, 0, 'LP* is cold: no warm-start count');
  assert.ok(runs.b.moved > 0 && runs.b.vars === runs.b.n, JSON.stringify(runs.b));
  assert.equal(runs.fifoVars, 0);
  // The results table has a row per variant; the solver charts show and are drawn.
  const rows = await page.$$eval('#results tbody th', (ths) => ths.map((t) => t.textContent.trim()));
  assert.ok(rows.some((r) => r.startsWith(a)) && rows.some((r) => r.startsWith(b)), rows.join(' | '));
  const ink = await page.evaluate(() => {
    const count = (kind) => {
      const c = document.querySelector(`canvas[data-chart="${kind}"]`);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let coloured = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 40) coloured++;
      return coloured;
    };
    return { shown: document.querySelectorAll('figure[data-needs="solver"]:not([hidden])').length, solver: count('solver'), vars: count('vars') };
  });
  assert.equal(ink.shown, 3, 'solver time, variables and the size sweep');
  assert.ok(ink.solver > 300 && ink.vars > 300, `solver charts blank: ${JSON.stringify(ink)}`);
  await page.locator('figure[data-needs="solver"]').first().screenshot({ path: artifact('sia-solver-time.png') });
  await page.locator('figure[data-needs="solver"]').nth(1).screenshot({ path: artifact('sia-solver-vars.png') });
  // Solver time against cluster size: the button runs the sweep in a worker of
  // its own (the default sweep takes about 30 s; the test runs two sizes
  // and a short window through the same code and then stops one sweep midway).
  await page.evaluate(() => window.schedlab.scaling.run([1, 2], 0.1));
  const sweep = await page.evaluate(() => ({ points: window.schedlab.scaling.points, status: document.querySelector('#scaling-status').textContent }));
  assert.match(sweep.status, /^done: 2 sizes x 2 methods/, sweep.status);
  assert.deepEqual(sweep.points.map((p) => `${p.method}@${p.gpus}`), ['lp-star@256', 'copter@256', 'lp-star@512', 'copter@512']);
  for (const p of sweep.points) {
    // 60-s rounds over 1.1 h (the window's median is of the last 0.1 h).
    assert.ok(p.rounds >= 60 && p.rounds <= 70 && p.p50 > 0 && p.p50 < 10, JSON.stringify(p));
  }
  const sweepInk = await page.evaluate(() => {
    const c = document.querySelector('#scaling-chart');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let coloured = 0;
    for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 40) coloured++;
    return coloured;
  });
  assert.ok(sweepInk > 200, `size sweep chart blank: ${sweepInk}`);
  await page.locator('#scaling-fig').screenshot({ path: artifact('sia-solver-scaling.png') });
  await page.click('#scaling-run');
  await page.waitForFunction(() => /GPUs: /.test(document.querySelector('#scaling-status').textContent));
  assert.equal(await page.textContent('#scaling-run'), 'Stop');
  await page.click('#scaling-run');
  assert.equal(await page.textContent('#scaling-status'), 'stopped');
  assert.match(await page.textContent('#scaling-run'), /^Measure/);
  // The variants are listed in the inputs; a bad entry is refused with a reason, a good one joins.
  assert.deepEqual(await page.$$eval('#variant-list code', (c) => c.map((x) => x.textContent)), [a, b]);
  await page.fill('#variant-entry', 'sia@solverr=pop');
  await page.click('#variant-add button');
  assert.match(await page.evaluate(() => document.querySelector('#variant-entry').validationMessage), /no parameter 'solverr'.*solver/);
  await page.fill('#variant-entry', 'sia@solver=pop');
  await page.click('#variant-add button');
  assert.deepEqual(await page.$$eval('#variant-list code', (c) => c.map((x) => x.textContent)), [a, b, 'sia@solver=pop']);
  assert.match(await page.textContent('#run'), /inputs changed/);
  await page.locator('#variants').screenshot({ path: artifact('variants.png') });
  // Running again writes the variants into the link, readable as typed.
  await page.click('#run');
  await page.waitForFunction(() => window.schedlab.view && window.schedlab.view.runs.has('sia@solver=pop'), null, { timeout: 150_000 });
  assert.match(await page.evaluate(() => location.search), /policies=fifo,sia@solver=lp-star,sia@solver=copter,sia@solver=pop(&|$)/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('without WebAssembly SIMD the page runs the full package built without it, to the CLI results', { timeout: 120_000 }, async () => {
  // `simd=0` makes the page take the path of a browser without SIMD (Safari before 16.4).
  const pollux = 'pollux@generations=5';
  const page = await openPage(browser, `${BASE}?trace=sia-philly&cluster=sia-hetero-64&policies=sia,${pollux}&simd=0`);
  await waitDone(page, 90_000);
  const fetched = (dir) => page.requested.filter((u) => u.endsWith(`${dir}/schedlab_bg.wasm`)).length;
  assert.equal(fetched('pkg-full-plain'), 1, page.requested.join('\n'));
  assert.equal(fetched('pkg-full'), 0, page.requested.join('\n'));
  const metrics = await page.evaluate((p) => {
    const r = window.schedlab.view.runs;
    // The worker turns JSON null (a metric that does not apply) into NaN; back to null.
    const plain = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Number.isNaN(v) ? null : v]));
    return { sia: plain(r.get('sia').result.metrics), pollux: plain(r.get(p).result.metrics) };
  }, pollux);
  const native = (policy, sets) => JSON.parse(cli(['run', '--trace', 'sia-philly', '--cluster', 'sia-hetero-64',
    '--policy', policy, ...sets.flatMap((s) => ['--set', s]), '--format', 'json'])).results[0].metrics;
  assert.deepEqual(metrics.sia, native('sia', []));
  assert.deepEqual(metrics.pollux, native('pollux', ['pollux.generations=5']));
  assert.deepEqual(page.errors, []);
  await page.close();
});

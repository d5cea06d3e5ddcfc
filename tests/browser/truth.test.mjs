// Issue 48, one test per item: the page tells the truth (user's order and
// baseline, metrics that apply), answers fast (cheapest first, ETA), fails
// loudly, links its views, works by touch, says things in plain words, fits
// the embed and passes axe-core. Run by scripts/test-browser.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { launch, openPage, waitDone, BASE, root, artifact, record } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const pause = (page) => page.evaluate(() => { if (window.schedlab.anim.playing) document.querySelector('#play').click(); });
async function scrubTo(page, fraction) {
  await page.evaluate((f) => {
    const s = document.querySelector('#scrub');
    s.value = String(Number(s.min) + f * (Number(s.max) - Number(s.min)));
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, fraction);
  await nextFrame(page);
}

test('1. the user\'s policy order is kept and a chosen baseline drives every difference', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=srtf,fifo,maxmin`);
  await waitDone(page);
  // The inputs keep the order too: the chips number the chosen policies 1, 2, 3.
  const chips = await page.evaluate(() => ['srtf', 'fifo', 'maxmin'].map((p) => document.querySelector(`label[for="pol-${p}"] .chip`).textContent));
  assert.deepEqual(chips, ['1', '2', '3']);
  const deltaRows = () => page.$$eval('#results tbody tr', (trs) => trs.filter((tr) => tr.querySelector('.d')).map((tr) => tr.querySelector('th').textContent.replace(/baseline/, '').trim()));
  assert.deepEqual(await deltaRows(), ['fifo', 'maxmin']);
  await page.selectOption('#baseline', 'maxmin');
  assert.deepEqual(await deltaRows(), ['srtf', 'fifo']);
  assert.match(await page.textContent('#results tbody tr:nth-child(3) th'), /maxmin baseline/);
  // The delta is (v - base) / |base| of the shown values.
  const check = await page.evaluate(() => {
    const runs = window.schedlab.view.runs;
    const v = runs.get('fifo').result.metrics.avg_jct_s, b = runs.get('maxmin').result.metrics.avg_jct_s;
    const rel = (v - b) / Math.abs(b);
    return { want: `${rel > 0 ? '▲' : '▼'}${Math.abs(rel * 100).toFixed(Math.abs(rel) < 0.1 ? 1 : 0)}%`, big: Math.abs(rel) >= 0.005, text: document.querySelector('#results td[data-policy="fifo"][data-metric="avg_jct_s"] .d')?.textContent || '' };
  });
  if (check.big) assert.ok(check.text.startsWith(check.want), JSON.stringify(check));
  // The choice is in the link, and a link with it opens with it.
  await page.waitForFunction(() => /base=maxmin/.test(location.search));
  const again = await openPage(browser, page.url());
  await waitDone(again);
  assert.equal(await again.$eval('#baseline', (s) => s.value), 'maxmin');
  await again.close();
  await page.close();
});

test('2. the table shows metrics that apply, "–" where one does not, a sticky policy column and units', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,pcs&set=engine.predict=false`, { width: 390, height: 844 });
  await waitDone(page);
  const heads = () => page.$$eval('#results thead th[data-metric]', (ths) => ths.map((th) => th.dataset.metric));
  const before = await heads();
  assert.ok(!before.includes('avg_pred_error_pct') && !before.includes('gpu_cost_usd') && !before.includes('speedup_geo'), before.join(','));
  // Show every metric: the hidden ones come back as "–", with the reason on the cell.
  await page.check('#show-all');
  const after = await heads();
  assert.ok(after.length > before.length + 10, `${before.length} -> ${after.length}`);
  const na = await page.$eval('#results td[data-policy="fifo"][data-metric="avg_pred_error_pct"]', (td) => ({ text: td.textContent, title: td.title }));
  assert.deepEqual(na, { text: '–', title: 'does not apply: no predictions in this run (engine.predict is off)' });
  // One convention: fractions are percentages, the unit in the header.
  const units = await page.$$eval('#results thead th[data-metric]', (ths) => Object.fromEntries(ths.map((th) => [th.dataset.metric, th.textContent])));
  for (const k of ['utilization', 'ftf_unfair_frac', 'due_missed_frac', 'predicted_frac', 'slowed_frac']) assert.match(units[k], /\(%\)$/, `${k}: ${units[k]}`);
  assert.match(units.avg_jct_s, /\(h\)$/);
  // The policy column stays put while the table scrolls sideways (a phone).
  const x0 = await page.$eval('#results tbody th', (th) => th.getBoundingClientRect().left);
  await page.$eval('#results-section .table-wrap', (w) => { w.scrollLeft = 400; });
  const x1 = await page.$eval('#results tbody th', (th) => th.getBoundingClientRect().left);
  assert.ok(await page.$eval('#results-section .table-wrap', (w) => w.scrollLeft) > 100, 'the table does not scroll');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page is wider than the phone');
  assert.ok(Math.abs(x1 - x0) < 1, `policy column moved ${x0} -> ${x1}`);
  await page.screenshot({ path: artifact('phone-table.png') });
  await page.close();
});

test('3. cheap policies run first, core ones while the full package loads; queued and running labelled, ETA shown', { timeout: 300_000 }, async () => {
  // The case: gavel (under a second) waited 34 s behind pollux with one worker.
  const page = await openPage(browser, `${BASE}?trace=sia-philly&policies=pollux,gavel`);
  const t0 = Date.now();
  await page.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.results.has('gavel'), null, { timeout: 120_000, polling: 50 });
  const gavelWaitS = await page.evaluate(() => {
    const b = window.schedlab.batch;
    return (b.startedAt.get('gavel') - b.started) / 1000;
  });
  const gavelDoneS = (Date.now() - t0) / 1000;
  const order = await page.evaluate(() => [...window.schedlab.batch.startedAt.keys()]);
  assert.equal(order[0], 'gavel', `started first: ${order.join(',')}`);
  record('gavel_waited_behind_pollux_s', gavelWaitS);
  record('gavel_result_after_open_s', gavelDoneS);
  // Pollux is running: labelled so, with an ETA once it has run a little.
  await page.waitForFunction(() => /about .* left/.test(document.querySelector('#progress .prow[data-policy="pollux"] .pstatus')?.textContent || ''), null, { timeout: 60_000, polling: 100 });
  const status = await page.textContent('#progress .prow[data-policy="pollux"] .pstatus');
  assert.match(status, /^running · t = [\d.]+ h · \d+\/160 jobs · about .+ left$/);
  assert.equal(await page.textContent('.panel[data-policy="pollux"] .pstats'), 'running…');
  await page.screenshot({ path: artifact('eta-running.png') });
  await page.close();

  // With several queued: they say "queued" (not running), with their estimate.
  const p2 = await openPage(browser, `${BASE}?trace=sia-philly&policies=pollux,shockwave,fifo`);
  await p2.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.startedAt.has('shockwave') && !window.schedlab.batch.results.has('shockwave'), null, { timeout: 120_000, polling: 50 });
  const rows = await p2.$$eval('#progress .prow', (rs) => Object.fromEntries(rs.map((r) => [r.dataset.policy, [r.dataset.phase, r.querySelector('.pstatus').textContent]])));
  // One worker on 2 cores: shockwave (cheaper) runs, pollux waits and says so.
  const workers = await p2.evaluate(() => window.schedlab.pool.workers.length);
  if (workers === 1) {
    assert.equal(rows.pollux[0], 'queued', JSON.stringify(rows));
    assert.match(rows.pollux[1], /^queued · estimated/);
    assert.equal(await p2.textContent('.panel[data-policy="pollux"] .pstats'), 'queued');
  }
  assert.equal(rows.shockwave[0], 'running', JSON.stringify(rows));
  assert.equal(rows.fifo[0], 'done', JSON.stringify(rows));
  await p2.close();

  // Core policies run while the full package loads (its fetch held back here for 4 s).
  const context = await browser.newContext();
  const p3 = await context.newPage();
  let fullAt = 0;
  await context.route(/pkg-full(-plain)?\/schedlab_bg\.wasm$/, async (route) => {
    await new Promise((r) => { setTimeout(r, 4000); });
    fullAt = Date.now();
    await route.continue();
  });
  await p3.goto(`${BASE}?trace=sia-philly&policies=gavel,fifo`);
  await p3.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.results.has('fifo'), null, { timeout: 60_000, polling: 50 });
  const fifoAt = Date.now();
  assert.ok(fullAt === 0 || fifoAt < fullAt, 'fifo waited for the full package');
  await p3.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.done, null, { timeout: 120_000 });
  assert.ok(await p3.evaluate(() => window.schedlab.view.runs.has('gavel')));
  await context.close();
});

test('4. a worker error reads as a sentence, never as "unreachable"; a failed full package is named', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo`);
  await waitDone(page);
  const text = await page.evaluate(async () => {
    const { readableError } = await import('./js/notices.js');
    return readableError({ kind: 'internal', text: 'RuntimeError: unreachable' }, window.schedlab.catalog).text;
  });
  assert.match(text, /^internal error: the simulation stopped on a bug in schedlab/);
  await page.close();
  // The full package cannot be fetched: the LP-based policy fails with a sentence, the other runs.
  const context = await browser.newContext();
  await context.route(/pkg-full(-plain)?\/schedlab_bg\.wasm$/, (route) => route.fulfill({ status: 404, body: 'missing' }));
  const p2 = await context.newPage();
  await p2.goto(`${BASE}?trace=sia-philly&policies=fifo,gavel`);
  await p2.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.done, null, { timeout: 60_000 });
  const err = await p2.textContent('#error-text');
  assert.match(err, /gavel: could not load the full wasm package .*is not there/);
  assert.ok(!/unreachable/.test(err));
  assert.ok(await p2.evaluate(() => window.schedlab.view.runs.has('fifo')));
  await context.close();
});

test('5. every chart over time has a cursor at the clock, and clicking a chart moves the clock', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,srtf`);
  await waitDone(page);
  await page.waitForFunction(() => document.querySelector('canvas[data-chart="util"]').plot);
  await pause(page);
  await scrubTo(page, 0.4);
  const cursors = await page.evaluate(() => {
    const t = window.schedlab.anim.t;
    return [...document.querySelectorAll('#charts figure:not([hidden]) canvas[data-chart]')].filter((c) => c.plot).map((c) => {
      const p = c.plot, cur = c.closest('figure').querySelector('.cursor');
      const want = c.offsetLeft + p.left + (t - p.t0) / (p.t1 - p.t0) * (p.right - p.left);
      return { chart: c.dataset.chart, shown: !!cur && !cur.hidden, off: cur ? Math.abs(parseFloat(cur.style.left) - want) : 99 };
    });
  });
  assert.deepEqual(cursors.map((c) => c.chart).sort(), ['bi', 'ce', 'queue', 'util']);
  for (const c of cursors) assert.ok(c.shown && c.off < 1, JSON.stringify(c));
  // Click at 3/4 of the utilisation chart's plot: the clock goes there.
  const target = await page.evaluate(() => {
    const c = document.querySelector('canvas[data-chart="util"]');
    c.scrollIntoView({ block: 'center' });
    const r = c.getBoundingClientRect(), p = c.plot;
    const x = p.left + 0.75 * (p.right - p.left);
    return { x: r.left + x, y: r.top + (p.top + p.bottom) / 2, t: p.t0 + 0.75 * (p.t1 - p.t0) };
  });
  await page.mouse.click(target.x, target.y);
  const t = await page.evaluate(() => window.schedlab.anim.t);
  assert.ok(Math.abs(t - target.t) / target.t < 0.01, `clock ${t} after a click at ${target.t}`);
  // The Gantt view seeks too.
  const g = await page.evaluate(() => {
    const c = document.querySelector('#gantt');
    c.scrollIntoView({ block: 'center' });
    const r = c.getBoundingClientRect();
    return { x: r.left + r.width * 0.5, y: r.top + r.height / 2 };
  });
  await page.mouse.click(g.x, g.y);
  const t2 = await page.evaluate(() => window.schedlab.anim.t);
  assert.notEqual(Math.round(t2), Math.round(t));
  await page.close();
});

test('6. touch: a tap pins the job card, a tap elsewhere unpins; pool headers fit a phone; moves outlined briefly', { timeout: 90_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(`${BASE}?trace=anticipatory-fig1`);
  await page.waitForFunction(() => window.schedlab && window.schedlab.batch && window.schedlab.batch.done, null, { timeout: 60_000 });
  await pause(page);
  await scrubTo(page, 0.2);
  const spot = await page.evaluate(() => {
    const v = window.schedlab.view, p = v.policies[0], rec = v.panels.get(p);
    rec.canvas.scrollIntoView({ block: 'center' });
    const cells = rec.map.at.cells;
    const g = cells.findIndex((s) => s >= 0);
    const r = rec.canvas.getBoundingClientRect();
    return { x: r.left + rec.map.cellX[g] + 2, y: r.top + rec.map.cellY[g] + 2 };
  });
  await page.touchscreen.tap(spot.x, spot.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  await page.waitForTimeout(600);
  assert.ok(await page.isVisible('#tooltip'), 'the card went away after a tap');
  await page.touchscreen.tap(5, 5);
  await page.waitForTimeout(100);
  assert.ok(!(await page.isVisible('#tooltip')), 'a tap elsewhere did not unpin the card');
  // Pool headers: every line fits the map's width.
  const fit = await page.evaluate(() => {
    const rec = [...window.schedlab.view.panels.values()][0];
    const ctx = rec.canvas.getContext('2d');
    ctx.font = '11px system-ui, sans-serif';
    const at = rec.map.at;
    return rec.map.headers.filter((h) => h.pool >= 0).map((h) => {
      const counts = `${at.own[h.pool]} own · ${at.lent[h.pool]} lent · ${at.borrowed[h.pool]} borrowed`;
      const lines = h.two ? [h.text, counts] : [`${h.text} · ${counts}`];
      return { two: h.two, widest: Math.max(...lines.map((l) => ctx.measureText(l).width)) + 13, width: rec.map.cssW };
    });
  });
  assert.ok(fit.length === 2 && fit.every((f) => f.widest <= f.width), JSON.stringify(fit));
  await page.screenshot({ path: artifact('phone-fig1.png') });
  await context.close();
  // Moves between GPU types stay outlined for 2 s of playback, but never over 1% of the run.
  const p2 = await openPage(browser, `${BASE}?trace=sia-philly&policies=sia&speed=10000`);
  await waitDone(p2, 120_000);
  const w = await p2.evaluate(() => ({ span: window.schedlab.anim.t1 - window.schedlab.anim.t0, speed: window.schedlab.anim.speed, w: window.schedlab.movedWindow() }));
  assert.equal(w.speed, 10000);
  assert.equal(w.w, Math.min(2 * w.speed, w.span / 100));
  assert.ok(w.w < 2 * w.speed, JSON.stringify(w));
  await p2.close();
});

test('7. charts and words: Fig 1\'s pools in their colours, legends of what the run has, plain words, grouped policies, an exact search', { timeout: 180_000 }, async () => {
  let page = await openPage(browser, `${BASE}?trace=anticipatory-fig1`);
  await waitDone(page);
  // Jobs of pool green are drawn green, orange's orange.
  const hues = await page.evaluate(() => {
    const r = [...window.schedlab.view.runs.values()][0].result;
    const { jobColors } = window.schedlab.colors;
    const col = jobColors(r);
    const out = {};
    r.jobs.names.forEach((n, j) => {
      const c = parseInt(col(j).slice(1), 16);
      const [R, G, B] = [(c >> 16) & 255, (c >> 8) & 255, c & 255];
      const pool = r.pools[r.jobs.pool[j]].name;
      (out[pool] = out[pool] || []).push(G > R && G > B ? 'green' : R > B && R >= G ? 'orange' : 'other');
    });
    return out;
  });
  assert.ok(hues.green.every((h) => h === 'green') && hues.orange.every((h) => h === 'orange'), JSON.stringify(hues));
  await page.close();
  // Legends show only what the run has.
  page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo`);
  await waitDone(page);
  const plain = await page.textContent('#gantt-legend');
  assert.ok(!/due date|per-pool|promised/.test(plain), plain);
  // No internal references anywhere on the page (text or hover titles).
  const refs = await page.evaluate(() => {
    const text = `${document.body.innerText} ${[...document.querySelectorAll('[title]')].map((e) => e.title).join(' ')} ${[...document.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label')).join(' ')}`;
    return text.match(/spec seed\d+|\(E\d+\)|docs\/\w+\.md/g) || [];
  });
  assert.deepEqual(refs, []);
  // Abbreviations in words, visible (phones have no hover).
  const gl = await page.textContent('#glossary');
  for (const w of ['JCT = job completion time', 'FTF = finish-time fairness', 'CE = cluster efficiency', 'BI = blocking index']) assert.ok(gl.includes(w), `${w} missing from: ${gl}`);
  // Policies grouped by paper, with a filter.
  const groups = await page.$$eval('#policies .paper', (gs) => gs.map((g) => [g.dataset.paper, g.querySelectorAll('.policy').length]));
  assert.ok(groups.length >= 5, JSON.stringify(groups));
  assert.equal(groups.reduce((n, [, k]) => n + k, 0), await page.evaluate(() => window.schedlab.catalog.policies.length));
  await page.fill('#policy-filter', 'shockwave');
  const visible = await page.$$eval('#policies .policy:not([hidden]) > .pol input', (xs) => xs.map((x) => x.value));
  assert.ok(visible.includes('shockwave') && visible.includes('fifo') && !visible.includes('afs-l') && visible.length < 6, visible.join(','));
  await page.close();
  page = await openPage(browser, `${BASE}?trace=sts-mixed-10&policies=sts,edf`);
  await waitDone(page, 90_000);
  assert.match(await page.textContent('#gantt-legend'), /due date/);
  await page.close();
  // The search runs exactly the evaluations asked, explains its fields and shows a point's settings on hover.
  page = await openPage(browser, `${BASE}?trace=pcs-themis1&policies=fifo,pcs`);
  await waitDone(page, 90_000);
  await page.fill('#search-evals', '1280');
  await page.dispatchEvent('#search-evals', 'change');
  assert.equal(await page.inputValue('#search-evals'), '1330');
  assert.match(await page.textContent('#search-apps-help'), /first 2,001/);
  await page.evaluate(() => window.schedlab.search.run(100));
  const st = await page.evaluate(() => ({ n: window.schedlab.search.state.evaluations, field: document.querySelector('#search-evals').value }));
  assert.deepEqual(st, { n: 175, field: '175' });
  const pt = await page.evaluate(() => {
    const s = window.schedlab.search;
    s.canvas.scrollIntoView();
    const [, , px, py] = s.located[0];
    const r = s.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    return { x: r.left + px / dpr, y: r.top + py / dpr };
  });
  await page.mouse.move(pt.x, pt.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  assert.match(await page.textContent('#tooltip'), /WFQ classes.*pcs\./s);
  await page.close();
});

const require = createRequire(path.join(root, 'tools', 'package.json'));
const AXE = require.resolve('axe-core/axe.min.js');

async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

test('8. embed fits 900x560 with a caption; axe-core finds nothing serious; skip link, keyboard table, canvas text', { timeout: 180_000 }, async () => {
  const embed = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,srtf&embed=1`, { width: 900, height: 560 });
  await waitDone(embed);
  await embed.waitForTimeout(1800); // the progress line fades
  const fit = await embed.evaluate(() => ({ h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth }));
  assert.ok(fit.h <= 560 && fit.w <= 900, `embed is ${fit.w} x ${fit.h}`);
  const cap = await embed.evaluate(() => ({ text: document.querySelector('#embed-caption').innerText, href: document.querySelector('#embed-caption a').getAttribute('href') }));
  assert.match(cap.text, /afs-mini.*fifo.*srtf.*open the full page/s);
  assert.ok(cap.href.includes('policies=fifo,srtf') && !cap.href.includes('embed=1'), cap.href);
  await embed.screenshot({ path: artifact('embed-900x560.png') });
  assert.deepEqual(await axeViolations(embed), [], 'embed');
  await embed.close();

  const views = [
    ['desktop', `${BASE}?trace=afs-mini&policies=fifo,srtf,maxmin`, { width: 1366, height: 900 }],
    ['phone', `${BASE}?trace=afs-mini&policies=fifo,srtf`, { width: 390, height: 844 }],
    ['sts', `${BASE}?trace=sts-mixed-10&policies=sts,edf`, { width: 1366, height: 900 }],
    ['pools', `${BASE}?trace=anticipatory-fig1`, { width: 1366, height: 900 }],
  ];
  for (const [name, url, vp] of views) {
    const page = await openPage(browser, url, vp);
    await waitDone(page, 90_000);
    await page.waitForTimeout(300);
    if (name === 'desktop') await page.screenshot({ path: artifact('desktop.png'), fullPage: true });
    if (name === 'phone') await page.screenshot({ path: artifact('phone.png'), fullPage: true });
    assert.deepEqual(await axeViolations(page), [], name);
    // Every visible canvas says what it shows.
    const unlabelled = await page.$$eval('canvas', (cs) => cs.filter((c) => c.offsetParent && !(c.getAttribute('aria-label') || '').trim()).map((c) => c.id || c.className || c.dataset.chart));
    assert.deepEqual(unlabelled, [], name);
    if (name === 'desktop') {
      const util = await page.$eval('canvas[data-chart="util"]', (c) => c.getAttribute('aria-label'));
      assert.match(util, /GPU utilisation over time.*fifo: mean [\d.]+, peak [\d.]+/);
      // The skip link is the first Tab stop and leads to the playback controls in a few more.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the simulation');
      await page.keyboard.press('Enter');
      let n = 0;
      while (n < 10 && await page.evaluate(() => document.activeElement.id) !== 'play') { await page.keyboard.press('Tab'); n++; }
      assert.equal(await page.evaluate(() => document.activeElement.id), 'play', 'play button not reached within 10 Tabs after the skip link');
      record('tab_stops_to_play_after_skip', n + 2);
      // The results table scrolls with the keyboard.
      await page.setViewportSize({ width: 700, height: 900 });
      await page.check('#show-all');
      await page.focus('#results-section .table-wrap');
      const s0 = await page.$eval('#results-section .table-wrap', (w) => w.scrollLeft);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      // Chromium scrolls smoothly: the first frames of the scroll may come after the key press returns.
      await page.waitForFunction((x) => document.querySelector('#results-section .table-wrap').scrollLeft > x, s0, { timeout: 5_000 }).catch(() => {});
      const s1 = await page.$eval('#results-section .table-wrap', (w) => w.scrollLeft);
      assert.ok(s1 > s0, `table did not scroll: ${s0} -> ${s1}`);
    }
    await page.close();
  }
});

test('9. while scripts/serve.sh builds the full package, the page says when LP-based policies become available', { timeout: 120_000 }, async () => {
  const status = path.join(root, 'www', 'build-status.json');
  writeFileSync(status, JSON.stringify({ full: 'building', since: Date.now(), step: 'full', log: 'target/serve-build.log' }));
  // As serve.sh serves it: no full package until its build is done.
  let built = false;
  const context = await browser.newContext();
  await context.route(/pkg-full(-plain)?\/schedlab_bg\.wasm$/, (route) => (built ? route.continue() : route.fulfill({ status: 404, body: 'not built yet' })));
  try {
    const page = await context.newPage();
    page.requested = [];
    page.on('request', (r) => page.requested.push(r.url()));
    await page.goto(`${BASE}?trace=sia-philly&policies=fifo,gavel`);
    await page.waitForSelector('[data-notice="full-build"]');
    assert.match(await page.textContent('[data-notice="full-build"]'), /sia, pollux, gavel.*become available when the full package is built/s);
    await page.waitForFunction(() => window.schedlab.view && window.schedlab.view.runs.has('fifo'), null, { timeout: 60_000 });
    await page.waitForFunction(() => /waits for the full package/.test(document.querySelector('#progress .prow[data-policy="gavel"] .pstatus')?.textContent || ''), null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => window.schedlab.batch.startedAt.has('gavel')), false);
    await page.screenshot({ path: artifact('full-package-building.png') });
    built = true;
    writeFileSync(status, JSON.stringify({ full: 'ready', since: Date.now(), step: '', log: '' }));
    await waitDone(page, 60_000);
    assert.ok(await page.evaluate(() => window.schedlab.view.runs.has('gavel')), 'gavel did not run once the package was built');
    await page.waitForFunction(() => /available now/.test(document.querySelector('[data-notice="full-build"]')?.textContent || ''), null, { timeout: 10_000 });
  } finally {
    rmSync(status, { force: true });
    await context.close();
  }
});

// Issue 48's defect links, opened as the issue's new user opened them: what a
// person now sees on each (run by scripts/test-browser.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitDone, BASE, artifact } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

const rowsOf = (page) => page.$$eval('#results tbody th', (ths) => ths.map((th) => th.textContent.replace(/baseline|stopped early/g, '').trim()));

test('each defect link of issue 48 now shows what a person expects', { timeout: 300_000 }, async () => {
  // The user's policy order is kept: URL, maps, table, Gantt picker.
  let page = await openPage(browser, `${BASE}?trace=afs-mini&policies=srtf,fifo`);
  await waitDone(page);
  assert.deepEqual(await rowsOf(page), ['srtf', 'fifo']);
  assert.match(new URL(page.url()).search, /policies=srtf,fifo(&|$)/);
  assert.deepEqual(await page.$$eval('#maps .panel h3', (hs) => hs.map((h) => h.textContent)), ['srtf', 'fifo']);
  assert.deepEqual(await page.$$eval('#gantt-policy option', (os) => os.map((o) => o.value)), ['srtf', 'fifo']);
  // The baseline is the first, and the user can choose another.
  assert.equal(await page.$eval('#baseline', (s) => s.value), 'srtf');
  await page.close();

  page = await openPage(browser, `${BASE}?trace=afs-mini&policies=afs-l,srtf,maxmin`);
  await waitDone(page);
  assert.deepEqual(await rowsOf(page), ['afs-l', 'srtf', 'maxmin']);
  await page.close();

  // sts-mixed-10: sts's average queue is about 1e-16 s; no delta against it is a percentage.
  page = await openPage(browser, `${BASE}?trace=sts-mixed-10&policies=sts,dp,rg`);
  await waitDone(page, 90_000);
  const deltas = await page.$$eval('#results td .d', (ds) => ds.map((d) => d.textContent));
  const huge = deltas.filter((d) => /%/.test(d) && Number(d.replace(/[^\d.]/g, '')) >= 10_000);
  assert.deepEqual(huge, [], `absurd deltas: ${huge.join(' ')}`);
  const q = await page.$eval('#results td[data-policy="dp"][data-metric="avg_queue_s"]', (td) => ({ v: td.querySelector('.v').textContent, d: td.querySelector('.d')?.textContent ?? '' }));
  assert.equal(q.d, '–', `dp avg queue delta against a zero baseline: ${JSON.stringify(q)}`);
  await page.close();

  // afs-mini: only metrics that apply (no prediction, price or pool columns), units in headers.
  page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,srtf`);
  await waitDone(page);
  const heads = await page.$$eval('#results thead th', (ths) => ths.map((th) => th.textContent));
  assert.ok(heads.length <= 20, `${heads.length} columns: ${heads.join(' | ')}`);
  for (const gone of ['pred err', 'GPU cost', 'speedup']) assert.ok(!heads.some((h) => h.startsWith(gone)), `${gone} shown without predictions, prices or pools`);
  assert.ok(heads.some((h) => h === 'avg JCT (h)') && heads.some((h) => h === 'utilisation (%)'), heads.join(' | '));
  assert.match(await page.textContent('#hidden-cols'), /hidden.*pred err/);
  await page.close();

  // While pollux runs, choosing it in "Jobs over time" shows no other policy's lanes under its name.
  page = await openPage(browser, `${BASE}?trace=sia-philly&policies=pollux,fifo`);
  await page.waitForFunction(() => window.schedlab.view && window.schedlab.view.runs.has('fifo'), null, { timeout: 60_000 });
  const running = await page.evaluate(() => !window.schedlab.view.runs.has('pollux'));
  if (running) {
    await page.selectOption('#gantt-policy', 'pollux');
    const g = await page.evaluate(() => ({ legend: document.querySelector('#gantt-legend').textContent, run: window.schedlab.view && document.querySelector('#gantt-policy').value }));
    assert.match(g.legend, /pollux is still running/);
    const status = await page.textContent('#progress .prow[data-policy="pollux"] .pstatus');
    assert.match(status, /^(running|queued)/);
  }
  await page.close();

  // A shared link to an uploaded trace: the banner stays (with an upload button) after the default runs.
  page = await openPage(browser, `${BASE}?trace=upload:x.csv&policies=fifo`);
  await waitDone(page);
  await page.waitForTimeout(3500);
  const banner = page.locator('[data-notice="upload-missing"]');
  assert.ok(await banner.isVisible(), 'the missing-upload banner went away');
  assert.match(await banner.textContent(), /x\.csv/);
  assert.equal(await banner.locator('button', { hasText: 'Upload x.csv' }).count(), 1);
  assert.match(new URL(page.url()).search, /trace=upload:x\.csv/, 'the link no longer names the uploaded trace');
  await page.screenshot({ path: artifact('defect-upload-link.png') });
  await page.close();

  // Dropped URL entries are named.
  page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,foo&set=fifo.nosuch=3`);
  await waitDone(page);
  const dropped = await page.textContent('[data-notice="dropped"]');
  assert.match(dropped, /policies=foo.*no policy named 'foo'/s);
  assert.match(dropped, /set=fifo\.nosuch=3.*fifo has no parameter 'nosuch'/s);
  assert.deepEqual(await rowsOf(page), ['fifo']);
  await page.close();

  // Empty and header-only files say so and list the accepted headers.
  page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo`);
  await waitDone(page);
  await page.setInputFiles('#file', { name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.from('') });
  await page.waitForFunction(() => !document.querySelector('#error').hidden);
  let err = await page.textContent('#error-text');
  assert.match(err, /empty\.csv is empty/);
  assert.match(err, /pollux: Pollux\/Sia workload CSV: name,time,application/);
  assert.ok(!/upload the file instead/.test(err), err);
  await page.setInputFiles('#file', { name: 'header.csv', mimeType: 'text/csv', buffer: Buffer.from('name,arrival,model,gpus\n') });
  await page.waitForFunction(() => /header\.csv/.test(document.querySelector('#error-text').textContent));
  err = await page.textContent('#error-text');
  assert.match(err, /header\.csv: line 1 is a header/);
  assert.match(err, /native: schedlab CSV: name,arrival,model,gpus/);
  assert.ok(!/\| \|/.test(err), err);
  await page.setInputFiles('#file', { name: 'odd.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b,c\n1,2,3\n') });
  await page.waitForFunction(() => /odd\.csv/.test(document.querySelector('#error-text').textContent));
  err = await page.textContent('#error-text');
  assert.match(err, /unrecognised trace header 'a,b,c'/);
  assert.match(err, /blox: Blox/);
  await page.close();
});

test('a link with a tiny round length stops at once with a named error (issue 47)', { timeout: 120_000 }, async () => {
  // Before: the page sat at "t = 0.0 h", then showed "fifo: unreachable" (the worker ran out of memory).
  const started = Date.now();
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo&set=fifo.round_s=1e-300`);
  await page.waitForFunction(() => window.schedlab.batch && window.schedlab.batch.done, null, { timeout: 60_000 });
  assert.equal(await page.$eval('#error', (e) => e.hidden), false, 'no error shown');
  const err = await page.textContent('#error-text');
  assert.match(err, /fifo\.round_s=1e-300/);
  assert.match(err, /must be 0 or in \[1, 86400\]/);
  assert.match(err, /simulated time stall/);
  assert.ok(!/unreachable|RuntimeError|memory/i.test(err), err);
  assert.ok(err.length < 300, `${err.length} characters: ${err}`);
  assert.ok(Date.now() - started < 60_000);
  await page.screenshot({ path: artifact('defect-tiny-round.png') });
  await page.close();
});

test('opened from disk (file://) the page explains how to serve it', { timeout: 30_000 }, async () => {
  const { root } = await import('./helpers.mjs');
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const page = await context.newPage();
  await page.goto(`file://${root}/www/index.html`);
  await page.waitForTimeout(500);
  const note = page.locator('#static-note');
  assert.ok(await note.isVisible(), 'no explanation over file://');
  assert.match(await note.textContent(), /must be served over http, not opened as a file.*bash scripts\/serve\.sh/s);
  await page.screenshot({ path: artifact('file-protocol.png') });
  await context.close();
});

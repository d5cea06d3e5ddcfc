// Issue 49's page views: the "why this, now" card, the queue in the
// policy's own order, the "why not started?" inspector, the what-if editor
// and the anticipatory predictor panel. The card and the order are checked
// against `schedlab explain` (SCHEDLAB_BIN) for the same job and time.
// Screenshots (desktop and phone) go to tests/browser/artifacts/why-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { launch, openPage, waitDone, BASE, cli, artifact, root } from './helpers.mjs';

const AXE = createRequire(path.join(root, 'tools', 'package.json')).resolve('axe-core/axe.min.js');

/** axe-core's serious and critical findings inside `selector`. */
async function axeViolations(page, selector) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate((sel) => window.axe.run(document.querySelector(sel), { resultTypes: ['violations'] }), selector);
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

const PHONE = { width: 390, height: 844 };
const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const pause = (page) => page.evaluate(() => { if (window.schedlab.anim.playing) document.querySelector('#play').click(); });

/** Stops the clock at `fraction` of the run and returns the clock (s). */
async function scrubTo(page, fraction) {
  await pause(page);
  await page.evaluate((f) => {
    const s = document.querySelector('#scrub');
    s.value = String(Number(s.min) + f * (Number(s.max) - Number(s.min)));
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, fraction);
  await nextFrame(page);
  return page.evaluate(() => window.schedlab.anim.t);
}

/** The page's settings as the CLI's --set arguments (the bundled trace's own included). */
const cliSets = (page) => page.evaluate(() => Object.entries(window.schedlab.state.sets).map(([k, v]) => `${k}=${v}`))
  .then((sets) => sets.flatMap((s) => ['--set', s]));

/** A FIFO run of afs-mini paused where its queue is longest, with that queue's first job's card shown. */
async function fifoWithQueue(viewport) {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo,tiresias`, viewport);
  await waitDone(page);
  // The time where FIFO's queue is longest (from the run's own columns).
  const frac = await page.evaluate(() => {
    const r = window.schedlab.view.runs.get('fifo').result;
    const [t0, t1] = [Number(document.querySelector('#scrub').min), Number(document.querySelector('#scrub').max)];
    let best = 0.5, most = -1;
    for (let k = 1; k < 100; k++) {
      const t = t0 + (k / 100) * (t1 - t0);
      let w = 0;
      for (let j = 0; j < r.jobs.arrival.length; j++) {
        const f = r.jobs.finish[j];
        if (r.jobs.arrival[j] <= t && !(f <= t) && !(r.jobs.start && r.jobs.start[j] <= t)) w++;
      }
      if (w > most) { most = w; best = k / 100; }
    }
    return best;
  });
  const t = await scrubTo(page, frac);
  const first = page.locator('.panel[data-policy="fifo"] .queue li button').first();
  await first.waitFor();
  const job = Number(await first.evaluate((b) => b.closest('li').dataset.job));
  await first.click();
  await page.waitForFunction((j) => {
    const c = document.querySelector('#why-card');
    return c.dataset.job === String(j) && c.querySelector('.why-call');
  }, job, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#why-queue').dataset.callT !== undefined, null, { timeout: 60_000 });
  return { page, t, job };
}

test('the why card says what `schedlab explain --at` says for the same job and time', { timeout: 180_000 }, async () => {
  const { page, t, job } = await fifoWithQueue();
  const name = await page.evaluate((j) => window.schedlab.view.runs.get('fifo').result.jobs.names[j], job);
  const cluster = await page.evaluate(() => window.schedlab.state.cluster);
  const args = ['explain', '--trace', 'afs-mini', '--cluster', cluster, '--policy', 'fifo', '--job', name, '--at', String(t), ...(await cliSets(page))];
  const want = JSON.parse(cli([...args, '--format', 'json']));
  const text = cli(args);
  assert.ok(want.at && want.at.reason, `the CLI has a reason for ${name} at ${t}: ${JSON.stringify(want.at)}`);
  const card = await page.evaluate(() => ({
    words: document.querySelector('#why-card .why-words').textContent,
    rule: document.querySelector('#why-card .why-rule').textContent,
    values: [...document.querySelectorAll('#why-card .why-values tr')].map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]),
  }));
  assert.equal(card.words, want.at.reason.words);
  assert.equal(card.rule, want.at.reason.rule);
  assert.ok(text.includes(`this job: ${card.words}`), `the CLI's text prints the card's words:\n${text}`);
  // Every number the rule compared is on the card, the order key marked.
  for (const [k, v] of Object.entries(want.at.reason.values)) {
    const row = card.values.find(([h]) => h.startsWith(k));
    assert.ok(row, `field ${k} on the card`);
    if (typeof v === 'number') assert.ok(Math.abs(Number(row[1].replace(/,/g, '')) - v) <= Math.abs(v) * 1e-3 + 1e-9, `${k}: ${row[1]} against ${v}`);
  }
  await page.screenshot({ path: artifact('why-card-desktop.png'), fullPage: false, clip: await page.$eval('#why-section', (e) => { e.scrollIntoView(); const r = e.getBoundingClientRect(); return { x: 0, y: Math.max(0, r.top), width: window.innerWidth, height: Math.min(900, r.height) }; }) });
  // A tap on a busy GPU of tiresias' map pins its card and shows that job's "why" under tiresias.
  const map = page.locator('.panel[data-policy="tiresias"] canvas.gpumap');
  await map.scrollIntoViewIfNeeded();
  const box = await map.boundingBox();
  let tapped = null;
  for (let k = 0; k < 40 && !tapped; k++) {
    await page.mouse.click(box.x + ((k % 8) + 0.5) * box.width / 8, box.y + (Math.floor(k / 8) + 0.5) * box.height / 5);
    tapped = await page.evaluate(() => {
      const tip = document.querySelector('#tooltip');
      const m = !tip.hidden && tip.querySelector('small') && tip.querySelector('small').textContent.match(/^job (\d+)/);
      return m ? Number(m[1]) : null;
    });
  }
  assert.ok(tapped !== null, 'a busy GPU was tapped');
  await page.waitForFunction((j) => document.querySelector('#why-card').dataset.job === String(j) && /under tiresias/.test(document.querySelector('#why-card h3').textContent), tapped, { timeout: 60_000 });
  assert.equal(await page.$eval('#why-policy', (s) => s.value), 'tiresias');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the queue in the policy\'s order is the reasons\' rank order (as `schedlab explain` ranks them)', { timeout: 180_000 }, async () => {
  const { page, t } = await fifoWithQueue();
  // Tiresias ranks every job it looks at (FIFO stops at the first that does not fit).
  await page.selectOption('#why-policy', 'tiresias');
  await page.waitForFunction(() => /^tiresias's call/.test(document.querySelector('#why-queue').textContent.trim()), null, { timeout: 60_000 });
  const order = await page.$$eval('#why-queue ol.why-order button', (bs) => bs.map((b) => Number(b.dataset.job)));
  assert.ok(order.length >= 2, `at least two jobs ranked: ${order}`);
  const cluster = await page.evaluate(() => window.schedlab.state.cluster);
  const base = ['explain', '--trace', 'afs-mini', '--cluster', cluster, '--policy', 'tiresias', '--at', String(t), '--format', 'json', ...(await cliSets(page))];
  // The whole call as the CLI lists it (--queue), ranked jobs by rank.
  const call = JSON.parse(cli([...base, '--queue']));
  const ranked = call.reasons.filter((r) => r.rank !== null);
  assert.deepEqual(order, ranked.slice(0, order.length).map((r) => r.job));
  assert.deepEqual(ranked.map((r) => r.rank), ranked.map((_, i) => i), 'ranks 0, 1, 2, ...');
  // And the last ranked job's "ahead" list is everybody before it, in rank order.
  const last = order[order.length - 1];
  const e = JSON.parse(cli([...base, '--job', String(last)]));
  assert.deepEqual([...e.at.ahead.map((r) => r.job), last], order);
  // The key shown is the rule's key with its value.
  const keyText = await page.$eval('#why-queue ol.why-order button', (b) => b.textContent);
  if (ranked[0].key) assert.ok(keyText.includes(`${ranked[0].key} =`), keyText);
  // Buttons: a keyboard user reaches them, Enter shows that job's card.
  const second = page.locator('#why-queue ol.why-order button').nth(1);
  await second.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((j) => document.querySelector('#why-card').dataset.job === String(j), order[1], { timeout: 30_000 });
  await page.$eval('#why-section', (el) => el.scrollIntoView());
  await page.screenshot({ path: artifact('why-queue-desktop.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the "why not started?" inspector names what blocks a waiting job', { timeout: 180_000 }, async () => {
  for (const [vp, shot] of [[undefined, 'why-inspector-desktop.png'], [PHONE, 'why-inspector-phone.png']]) {
    const { page, job } = await fifoWithQueue(vp);
    await page.waitForSelector('#why-inspector li[data-cause]');
    const causes = await page.$$eval('#why-inspector li[data-cause]', (lis) => lis.map((l) => [l.dataset.cause, l.textContent]));
    // Independent of the inspector: idle GPUs from the panel's own count ("busy/total GPUs").
    const stat = await page.$eval('.panel[data-policy="fifo"] .pstats', (s) => s.textContent);
    const [, busy, total] = stat.match(/(\d+)\/(\d+) GPUs/).map(Number);
    const asked = await page.evaluate((j) => window.schedlab.view.runs.get('fifo').result.jobs.gpus_requested[j], job);
    const idle = total - busy;
    const cap = causes.find(([c]) => c === 'capacity');
    if (idle < asked) assert.ok(cap && cap[1].includes(`${idle} GPU`) && cap[1].includes(`asks for ${asked}`), JSON.stringify(causes));
    else assert.ok(!cap, `capacity is not named when ${idle} GPUs are idle for ${asked}: ${JSON.stringify(causes)}`);
    assert.ok(causes.some(([c]) => ['capacity', 'ahead', 'placement'].includes(c)), `a blocking cause is named: ${JSON.stringify(causes)}`);
    // Placement is named exactly when the card's numbers say enough GPUs were free at the call and none were given.
    const vals = Object.fromEntries(await page.$$eval('#why-card .why-values tr', (trs) => trs.map((tr) => [tr.querySelector('th').textContent.split(' (')[0], Number(tr.querySelector('td').textContent.replace(/,/g, ''))])));
    const placed = 'free' in vals && 'need' in vals && vals.free >= vals.need && vals['GPUs given'] === 0;
    assert.equal(causes.some(([c]) => c === 'placement'), placed, JSON.stringify({ vals, causes }));
    assert.match(await page.textContent('#why-inspector'), /the next finish: .* at t = /);
    await page.$eval('#why-section', (e) => e.scrollIntoView());
    await nextFrame(page);
    await page.screenshot({ path: artifact(shot) });
    assert.deepEqual(await axeViolations(page, '#why-section'), [], 'axe on the why section');
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('a what-if edit re-runs the policy and shows which jobs finished later, with a link that reproduces it', { timeout: 240_000 }, async () => {
  const page = await openPage(browser, `${BASE}?trace=afs-mini&policies=fifo`);
  await waitDone(page);
  const info = await page.evaluate(() => {
    const r = window.schedlab.view.runs.get('fifo').result;
    const a = r.jobs.arrival;
    return { name: r.jobs.names[0], finish: r.jobs.finish[0], last: a[a.length - 1] };
  });
  // A bad edit is refused, named, and nothing runs.
  await page.fill('#whatif-edits', `${info.name}.gpus=abc`);
  await page.click('#whatif-run');
  await page.waitForSelector('#whatif-error:not([hidden])');
  assert.match(await page.textContent('#whatif-error'), new RegExp(`${info.name}\\.gpus=abc.*gpus takes a whole number`));
  await page.fill('#whatif-edits', 'nosuchjob.arrival=5');
  await page.click('#whatif-run');
  await page.waitForFunction(() => /no job named or numbered 'nosuchjob'/.test(document.querySelector('#whatif-error').textContent));
  await page.fill('#whatif-edits', 'fifo.nosuch=1;tiresias.t1=5');
  await page.click('#whatif-run');
  await page.waitForFunction(() => /fifo\.nosuch=1.*has no parameter 'nosuch'.*tiresias\.t1=5.*re-runs fifo/.test(document.querySelector('#whatif-error').textContent));
  // A setting edit: FIFO with backfilling lets some jobs start earlier.
  await page.fill('#whatif-edits', 'fifo.backfill=true');
  await page.click('#whatif-run');
  await page.waitForFunction(() => document.querySelector('#whatif-section').dataset.state === 'done', null, { timeout: 120_000 });
  assert.match(await page.textContent('#whatif-out .whatif-summary'), /fifo with fifo\.backfill=true: \d+ jobs? finished earlier/);
  assert.ok(await page.$('#whatif-out tr[data-dir="earlier"]'), 'backfilling makes some job finish earlier');
  // The first job arriving after every other one must finish later under FIFO.
  const arrival = Math.ceil(info.last + 1);
  await page.fill('#whatif-job', info.name);
  await page.selectOption('#whatif-field', 'arrival');
  await page.fill('#whatif-value', String(arrival));
  await page.fill('#whatif-edits', '');
  await page.click('#whatif-add');
  assert.equal(await page.inputValue('#whatif-edits'), `${info.name}.arrival=${arrival}`);
  await page.click('#whatif-run');
  await page.waitForFunction(() => document.querySelector('#whatif-section').dataset.state === 'done', null, { timeout: 120_000 });
  const row = await page.$eval(`#whatif-out tr[data-job="${info.name}"]`, (tr) => ({ dir: tr.dataset.dir, text: tr.textContent }));
  assert.equal(row.dir, 'later', row.text);
  assert.ok(await page.$('#whatif-out tr[data-metric="avg_jct_s"]'), 'the metrics table has avg JCT');
  assert.match(page.url(), new RegExp(`edit=${info.name}\\.arrival=${arrival}`));
  assert.match(page.url(), /whatif=fifo/);
  await page.$eval('#whatif-section', (e) => e.scrollIntoView());
  await page.screenshot({ path: artifact('why-whatif-desktop.png') });
  assert.deepEqual(await axeViolations(page, '#whatif-section'), [], 'axe on the what-if section');
  // The link re-runs the edit by itself.
  const again = await openPage(browser, page.url(), PHONE);
  await waitDone(again);
  await again.waitForFunction(() => document.querySelector('#whatif-section').dataset.state === 'done', null, { timeout: 120_000 });
  assert.equal(await again.$eval(`#whatif-out tr[data-job="${info.name}"]`, (tr) => tr.dataset.dir), 'later');
  await again.$eval('#whatif-section', (e) => e.scrollIntoView());
  await again.screenshot({ path: artifact('why-whatif-phone.png') });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(again.errors, []);
  await again.close();
  await page.close();
});

test('the anticipatory predictor panel charts predicted against arrived load with a cursor at the clock', { timeout: 300_000 }, async () => {
  for (const [vp, shot] of [[undefined, 'why-predictor-desktop.png'], [PHONE, 'why-predictor-phone.png']]) {
    const page = await openPage(browser, `${BASE}?trace=anticipatory-synthetic&policies=anticipatory,pool-fcfs&set=anticipatory.predict=noisy&simd=0`, vp);
    await waitDone(page, 240_000);
    await page.waitForFunction(() => /predicted \d+ GPUs|no prediction yet/.test(document.querySelector('#pred-text').textContent), null, { timeout: 120_000 });
    assert.equal(await page.$eval('#predictor-section', (s) => s.hidden), false);
    await scrubTo(page, 0.5);
    await page.waitForFunction(() => /predicted \d+ GPUs, arrived \d+/.test(document.querySelector('#pred-text').textContent));
    const cursor = await page.$eval('#predictor-section .cursor', (c) => !c.hidden);
    assert.ok(cursor, 'a cursor at the clock');
    const windows = await page.$$eval('#pred-window option', (os) => os.map((o) => o.textContent));
    assert.ok(windows.length >= 1 && windows.every((w) => /min|window/.test(w)), windows.join(','));
    await page.$eval('#predictor-section', (e) => e.scrollIntoView());
    await page.screenshot({ path: artifact(shot) });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

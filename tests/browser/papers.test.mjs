// The "Paper results" view (issue 50 item 4, the page's part): `schedlab
// reproduce all`'s summary per paper with its badges and counts, the live link
// of each paper, a summary the user opens or drops, the empty state, phones,
// the keyboard and axe-core. The bundled summary is replaced by a fixture (or
// by nothing) through Playwright's routing, so the test does not depend on
// what docs/paper-results/ holds. Run by scripts/test-browser.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { launch, waitDone, BASE, root, artifact } from './helpers.mjs';
import { parseSummary, countClaims, plainSummaryText, fmtRatio, splitTitle, liveWords } from '../../www/js/papers.js';

const FIXTURES = path.join(root, 'tests', 'browser', 'fixtures');
// Made by hand in the shape of reproduce all's summary, with every case the view handles
// (a failed run, information claims, no ratio, markup in a claim, a local path).
const FIXTURE = path.join(FIXTURES, 'paper-results-summary.json');
// Real summaries: `schedlab reproduce all --quick --only TARGET --out DIR`, DIR/summary.json,
// and the committed one the page bundles (docs/paper-results/summary.json) when it exists.
const COMMITTED = path.join(root, 'docs', 'paper-results', 'summary.json');
const REAL = readdirSync(FIXTURES).filter((f) => /^paper-results-real-.*\.json$/.test(f)).map((f) => path.join(FIXTURES, f))
  .concat(existsSync(COMMITTED) ? [COMMITTED] : []);
const fixtureText = readFileSync(FIXTURE, 'utf8');
const fixture = JSON.parse(fixtureText);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

/** A page at `url` whose bundled summary is `body` (a string), or absent (null: HTTP 404). */
async function openWith(url, body, viewport = { width: 1366, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await context.route('**/paper-results/summary.json', (r) => (body == null
    ? r.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' })
    : r.fulfill({ status: 200, contentType: 'application/json', body })));
  await page.goto(url);
  return page;
}

const require = createRequire(path.join(root, 'tools', 'package.json'));
const AXE = require.resolve('axe-core/axe.min.js');
async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/** What the page shows of each paper: heading, badge texts, and each claim's badge. */
const shownPapers = (page) => page.$$eval('#papers-body .paper-result', (secs) => secs.map((s) => ({
  target: s.dataset.target,
  head: s.querySelector('h3').textContent,
  badges: [...s.querySelectorAll('.paper-head .badge')].map((b) => b.textContent),
  rows: [...s.querySelectorAll('tbody tr')].map((tr) => ({ claim: tr.querySelector('th').textContent, holds: tr.querySelector('.holds').textContent, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })),
  error: (s.querySelector('.paper-error') || {}).textContent || '',
  live: (s.querySelector('a.live') || { getAttribute: () => null }).getAttribute('href'),
})));

const BADGE = { true: '✓ holds', false: '✗ does not hold', null: 'ℹ information' };
const expectedBadges = (t) => [`✓ ${t.hold} ${t.hold === 1 ? 'holds' : 'hold'}`, `✗ ${t.fail} ${t.fail === 1 ? 'does' : 'do'} not hold`, `ℹ ${t.info} for information`];

test('reading a summary: counts, words, numbers, and errors that name the file, line and field', () => {
  const s = parseSummary('summary.json', fixtureText);
  assert.equal(s.sections.length, 4);
  assert.deepEqual(countClaims(s.sections.flatMap((x) => x.claims)), { hold: 5, fail: 3, info: 2 });
  assert.deepEqual(countClaims(s.sections[0].claims), { hold: 2, fail: 1, info: 1 });
  // No internal references: the specification's sections and local paths go, paper sections stay.
  assert.equal(splitTitle(s.sections[0].title, 'afs')[0], "AFS (NSDI'21) §5.2");
  assert.match(splitTitle(s.sections[0].title, 'afs')[1], /qualitative orderings$/);
  assert.equal(plainSummaryText(s.sections[0].inputs), "the 11 Philly VCs cut from philly.csv with the AFS authors' measured tables");
  assert.equal(plainSummaryText('finish times equal to the spec\'s table (of 24)'), 'finish times equal to the reference table (of 24)');
  assert.equal(plainSummaryText('jobs / GPU and avg/p99 (§2.2)'), 'jobs / GPU and avg/p99 (§2.2)');
  assert.equal(fmtRatio(3.9047619047619044e15), '3.90e15');
  assert.equal(fmtRatio(1.0705), '1.07');
  assert.equal(fmtRatio(null), '–');
  assert.equal(liveWords('trace=pcs-themis1&cluster=pcs-64&policies=pcs,themis-pcs,fifo&set=engine.predict=true'),
    'the bundled trace pcs-themis1 on the cluster pcs-64 with pcs, themis-pcs and fifo (engine.predict=true)');
  // Bad input: a clear error naming the file and the line (not JSON) or the field (wrong shape).
  assert.throws(() => parseSummary('mine.json', '{\n  "sections": [\n    {"target": "afs",, }\n  ]\n}'), /^Error: mine\.json line 3, column \d+: not JSON/);
  assert.throws(() => parseSummary('mine.json', ''), /mine\.json is empty/);
  const bad = JSON.parse(fixtureText);
  bad.sections[1].claims[2].holds = 'yes';
  assert.throws(() => parseSummary('mine.json', JSON.stringify(bad)), /mine\.json: field sections\[1\]\.claims\[2\]\.holds: expected true, false or null, found "yes"/);
  assert.throws(() => parseSummary('mine.json', '{"machine": "x"}'), /mine\.json: field sections: expected a list of papers, found nothing/);
  assert.throws(() => parseSummary('mine.json', '[1, 2]'), /field \(top level\): expected an object/);
});

test('the view shows each paper with its badges, counts, inputs, run time and claims; the comparison waits', { timeout: 90_000 }, async () => {
  const page = await openWith(`${BASE}?view=papers`, fixtureText);
  await page.waitForSelector('#papers-body .paper-result');
  const papers = await shownPapers(page);
  assert.deepEqual(papers.map((p) => p.target), fixture.sections.map((s) => s.target));
  fixture.sections.forEach((sec, i) => {
    const p = papers[i];
    if (sec.error) {
      assert.deepEqual(p.badges, ['✗ the run failed'], sec.target);
      assert.match(p.error, /stopped with an error.*0e4a51\.csv line 17, field 'num_gpus'/, sec.target);
      assert.equal(p.rows.length, 0);
    } else {
      assert.deepEqual(p.badges, expectedBadges(countClaims(sec.claims)), sec.target);
      assert.deepEqual(p.rows.map((r) => r.holds), sec.claims.map((c) => BADGE[c.holds]), sec.target);
      assert.deepEqual(p.rows.map((r) => r.cells.slice(0, 3)), sec.claims.map((c) => [c.theirs, c.ours, c.ratio == null ? '–' : fmtRatio(c.ratio)]), sec.target);
    }
    assert.equal(p.live, `?${sec.live}`, sec.target);
  });
  // The whole run: date, machine, total badges.
  const overview = await page.textContent('.papers-overview');
  assert.match(overview, /Measured on 2026-11-28 on Fixture CPU @ 2\.20GHz, 2 cores, 8 GB/);
  assert.match(overview, /quick preset.*seed 1 · 30\.8 min in all/);
  assert.deepEqual(await page.$$eval('.papers-overview .total .badge', (bs) => bs.map((b) => b.textContent)), expectedBadges({ hold: 5, fail: 3, info: 2 }));
  // Inputs and run time in plain words; a claim's markup is text, not HTML.
  const afs = await page.textContent('#paper-0 .paper-meta');
  assert.match(afs, /Inputs\s*the 11 Philly VCs cut from philly\.csv with the AFS authors' measured tables\s*Run time\s*6\.9 min/);
  assert.equal(papers[3].rows[1].claim, 'R4: <b>DP</b> is within 5% of the optimum');
  // The abbreviations in plain words, on screen (phones show no hover titles).
  assert.match(await page.textContent('.papers-words'), /JCT = job completion time.*VC = virtual cluster.*FCFS = first-come first-served/s);
  const text = await page.textContent('#papers');
  for (const internal of ['spec seed', '../shared', "spec's", '§6.8']) assert.ok(!text.includes(internal), `"${internal}" on screen`);
  // Only the claims that do not hold, on request.
  await page.check('#papers-only-fail');
  const visible = await page.$$eval('#papers-body tbody tr', (trs) => trs.filter((tr) => tr.offsetParent).map((tr) => tr.dataset.holds));
  assert.deepEqual(visible, ['false', 'false', 'false']);
  await page.uncheck('#papers-only-fail');
  // Opened on the paper results, the page runs no comparison until the simulation is shown.
  await page.waitForFunction(() => window.schedlab && window.schedlab.stats.phase === 'ready');
  assert.equal(await page.evaluate(() => window.schedlab.batch), null);
  assert.equal(await page.isVisible('#stage'), false);
  await page.screenshot({ path: artifact('papers-desktop.png'), fullPage: true });
  assert.deepEqual(await axeViolations(page), [], 'paper results, desktop');
  // The tabs: the simulation (the link without view=papers), then back.
  await page.click('.views a[data-view="simulation"]');
  assert.equal(new URL(page.url()).searchParams.get('view'), null);
  assert.equal(await page.isVisible('#papers'), false);
  await waitDone(page);
  assert.ok(await page.isVisible('#results tbody th'));
  await page.goBack();
  await page.waitForFunction(() => document.documentElement.dataset.view === 'papers');
  assert.ok(await page.isVisible('#paper-0'));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('each paper\'s live link opens its small case in the simulation', { timeout: 120_000 }, async () => {
  const page = await openWith(`${BASE}?view=papers`, fixtureText);
  await page.waitForSelector('#papers-body .paper-result');
  const sec = fixture.sections.find((s) => s.target === 'anticipatory');
  const live = new URLSearchParams(sec.live);
  await Promise.all([page.waitForURL((u) => u.search === `?${sec.live}`), page.click('#paper-1 a.live')]);
  await page.waitForFunction(() => window.schedlab && window.schedlab.state);
  await waitDone(page, 90_000);
  const state = await page.evaluate(() => ({ view: document.documentElement.dataset.view, trace: window.schedlab.state.trace.name, cluster: window.schedlab.state.cluster, policies: window.schedlab.state.policies }));
  assert.deepEqual(state, { view: 'simulation', trace: live.get('trace'), cluster: live.get('cluster'), policies: live.get('policies').split(',') });
  const rows = await page.$$eval('#results tbody th', (ths) => ths.map((th) => th.textContent.replace(/baseline|stopped early/g, '').trim()));
  assert.deepEqual(rows, live.get('policies').split(','));
  await page.context().close();
});

test('a summary of the user\'s own: opened, dropped, and a bad one refused with the file, line and field', { timeout: 90_000 }, async () => {
  const page = await openWith(`${BASE}?view=papers`, null);
  await page.waitForSelector('.papers-empty');
  // Open a file with the file input (one paper, all claims holding).
  const mine = { ...fixture, machine: 'My laptop, 8 cores', sections: [{ ...fixture.sections[0], claims: fixture.sections[0].claims.filter((c) => c.holds) }] };
  mine.tally = countClaims(mine.sections[0].claims);
  await page.setInputFiles('#papers-file', { name: 'my-summary.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(mine)) });
  await page.waitForSelector('#paper-0');
  assert.match(await page.textContent('.papers-overview h3'), /Your file my-summary\.json/);
  assert.match(await page.textContent('.papers-overview'), /My laptop, 8 cores/);
  assert.deepEqual((await shownPapers(page))[0].badges, expectedBadges({ hold: 2, fail: 0, info: 0 }));
  assert.match(await page.textContent('#papers-status'), /Showing my-summary\.json/);
  // A bad file: the message names it and the line; what was shown stays.
  await page.setInputFiles('#papers-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{\n "sections": [\n  {"target": "afs" "claims": []}\n ]\n}') });
  await page.waitForFunction(() => /broken\.json/.test(document.querySelector('#papers-status').textContent));
  assert.match(await page.textContent('#papers-status'), /^broken\.json line 3, column \d+: not JSON/);
  assert.match(await page.textContent('.papers-overview h3'), /my-summary\.json/);
  // A wrong field: named with its path.
  const wrong = JSON.parse(fixtureText);
  wrong.sections[2].claims = 'none';
  await page.setInputFiles('#papers-file', { name: 'wrong.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(wrong)) });
  await page.waitForFunction(() => /wrong\.json/.test(document.querySelector('#papers-status').textContent));
  assert.match(await page.textContent('#papers-status'), /wrong\.json: field sections\[2\]\.claims: expected a list of claims, found "none"/);
  // Dropped on the page: in this view a file is a summary, not a trace (no trace drop zone).
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, fixtureText);
  await page.waitForFunction(() => /dropped\.json/.test(document.querySelector('.papers-overview h3')?.textContent || ''));
  assert.equal(await page.isVisible('#dropzone'), false);
  assert.equal((await shownPapers(page)).length, fixture.sections.length);
  assert.equal(await page.evaluate(() => window.schedlab.state.trace.kind), 'bundled');
  // A file whose own tally disagrees with its claims: the badges count the claims and say so.
  const off = JSON.parse(fixtureText);
  off.tally.hold = 9;
  await page.setInputFiles('#papers-file', { name: 'off.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(off)) });
  await page.waitForFunction(() => /off\.json/.test(document.querySelector('.papers-overview h3')?.textContent || ''));
  assert.match(await page.textContent('.papers-overview'), /file's own count \(9 hold, 3 do not, 2 for information\) differs from its claims/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('without a summary the view says how to make one; keyboard and axe-core', { timeout: 90_000 }, async () => {
  const page = await openWith(`${BASE}?view=papers`, null);
  await page.waitForSelector('.papers-empty');
  const empty = await page.textContent('.papers-empty');
  assert.match(empty, /No paper results to show yet/);
  assert.match(empty, /schedlab reproduce all --quick --out DIR/);
  assert.match(empty, /docs\/paper-results\/summary\.json/);
  assert.equal(await page.$$eval('#papers table', (t) => t.length), 0);
  assert.deepEqual(await axeViolations(page), [], 'empty state');
  // Keyboard: the first Tab stop skips to the paper results; the tabs and the file input are reachable.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the paper results');
  const stops = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    stops.push(await page.evaluate(() => document.activeElement.id || document.activeElement.textContent.trim()));
  }
  assert.ok(stops.includes('Simulation') && stops.includes('papers-file'), stops.join(' | '));
  // Space and the arrows do not drive the hidden playback here.
  await page.focus('body');
  const before = await page.evaluate(() => window.schedlab.anim.playing);
  await page.keyboard.press(' ');
  assert.equal(await page.evaluate(() => window.schedlab.anim.playing), before);
  // From the simulation, the tab opens the view with Enter.
  await page.goto(`${BASE}?trace=afs-mini&policies=fifo`);
  await page.focus('.views a[data-view="papers"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.dataset.view === 'papers');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'papers');
  // The comparison that was running finishes behind the view; the link keeps naming both.
  await waitDone(page);
  await page.waitForTimeout(500);
  assert.equal(new URL(page.url()).searchParams.get('view'), 'papers');
  assert.equal(new URL(page.url()).searchParams.get('trace'), 'afs-mini');
  await page.context().close();
});

test('on a phone (390 px) every claim is readable without sideways scrolling; axe-core', { timeout: 90_000 }, async () => {
  const page = await openWith(`${BASE}?view=papers`, fixtureText, { width: 390, height: 844 });
  await page.waitForSelector('#papers-body .paper-result');
  const fit = await page.evaluate(() => ({
    w: document.documentElement.scrollWidth,
    wide: [...document.querySelectorAll('#papers-body tbody tr')].filter((tr) => tr.getBoundingClientRect().right > window.innerWidth + 1).length,
    narrowest: Math.min(...[...document.querySelectorAll('#papers-body tbody th')].map((th) => th.getBoundingClientRect().width)),
  }));
  assert.ok(fit.w <= 390, `page is ${fit.w} px wide`);
  assert.equal(fit.wide, 0, 'claims wider than the screen');
  assert.ok(fit.narrowest >= 300, `a claim's text is ${fit.narrowest} px wide`);
  // Each number carries its label, as the table's header is not shown.
  assert.match(await page.textContent('#paper-0 tbody tr:nth-child(2)'), /2\.41.*2\.58.*1\.07.*ratio within 25%.*holds/s);
  const labels = await page.$eval('#paper-0 tbody tr:nth-child(2) td', (td) => getComputedStyle(td, '::before').content);
  assert.equal(labels, '"paper "');
  await page.screenshot({ path: artifact('papers-phone.png'), fullPage: true });
  assert.deepEqual(await axeViolations(page), [], 'paper results, phone');
  await page.context().close();
});

test('real summaries (reproduce all --quick --only ...) render with their counts and plain words', { timeout: 60_000 }, async () => {
  assert.ok(REAL.length > 0, 'no tests/browser/fixtures/paper-results-real-*.json');
  for (const file of REAL) {
    const text = readFileSync(file, 'utf8');
    const real = parseSummary(path.basename(file), text);
    const page = await openWith(`${BASE}?view=papers`, text);
    await page.waitForSelector('#papers-body .paper-result');
    const papers = await shownPapers(page);
    assert.equal(papers.length, real.sections.length);
    real.sections.forEach((sec, i) => {
      assert.deepEqual(papers[i].badges, expectedBadges(countClaims(sec.claims)), `${file} ${sec.target}`);
      assert.deepEqual(papers[i].rows.map((r) => r.holds), sec.claims.map((c) => BADGE[c.holds]), `${file} ${sec.target}`);
      assert.equal(papers[i].live, `?${sec.live}`);
    });
    assert.match(await page.textContent('.papers-overview'), new RegExp(`Measured on ${real.date} on ${real.machine.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const shown = await page.textContent('#papers');
    for (const internal of ['spec seed', '../shared', "spec's"]) assert.ok(!shown.includes(internal), `"${internal}" on screen`);
    await page.screenshot({ path: artifact(file === COMMITTED ? 'papers-committed.png' : `papers-${path.basename(file, '.json')}.png`), fullPage: true });
    await page.context().close();
  }
});

// Shared setup for the browser tests: Playwright (playwright-core from
// tools/node_modules) driving Debian's Chromium, headless, against the page
// that scripts/test-browser.sh serves at $SCHEDLAB_URL.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
const require = createRequire(path.join(root, 'tools', 'package.json'));
const { chromium } = require('playwright-core');

export const BASE = process.env.SCHEDLAB_URL || 'http://127.0.0.1:8000/';
export const BIN = process.env.SCHEDLAB_BIN || path.join(root, 'target', 'release', 'schedlab');
export const ARTIFACTS = path.join(here, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export async function launch() {
  // Playwright gives every launch a fresh temporary profile (--user-data-dir).
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page that records main-thread long tasks and page errors from the start. */
export async function openPage(browser, url = BASE, viewport = { width: 1366, height: 900 }, opts = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: opts.dpr || 1, acceptDownloads: true });
  const page = await context.newPage();
  page.errors = [];
  page.requested = []; // every URL the page and its workers fetched
  context.on('request', (r) => page.requested.push(r.url()));
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.addInitScript(() => {
    window.__longtasks = [];
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch (_) { /* no longtask support */ }
  });
  await page.goto(url);
  return page;
}

export const stats = (page) => page.evaluate(() => window.schedlab && { ...window.schedlab.stats });

/** Waits until the page's current batch has finished (phase done/cancelled). */
export async function waitDone(page, timeout = 60_000) {
  await page.waitForFunction(() => window.schedlab && ['done', 'cancelled'].includes(window.schedlab.stats.phase)
    && window.schedlab.batch && window.schedlab.batch.done, null, { timeout, polling: 50 });
}

export function cli(args) {
  return execFileSync(BIN, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

const measured = path.join(ARTIFACTS, 'measurements.json');
export function record(key, value) {
  const all = existsSync(measured) ? JSON.parse(readFileSync(measured, 'utf8')) : {};
  all[key] = value;
  writeFileSync(measured, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`measured ${key} = ${typeof value === 'number' ? +value.toFixed(3) : JSON.stringify(value)}`);
}

export function artifact(name) {
  return path.join(ARTIFACTS, name);
}

/// Ids of the selected policies' parameter controls that are not wholly inside the inputs
/// panel (clipped by it), so a user could not see or edit them. Empty when all fit.
export const clippedParamControls = (page) => page.evaluate(() => {
  const form = document.querySelector('#form').getBoundingClientRect();
  return [...document.querySelectorAll('#form .policy.on .param input, #form .policy.on .param select')]
    .filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width < 10 || r.left < form.left - 1 || r.right > form.right + 1;
    })
    .map((e) => e.id);
});

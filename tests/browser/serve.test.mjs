// scripts/serve.sh, the README's one command: one line per step with the
// elapsed time, cargo's output in a log file, the URL as soon as the core
// package is there (run by scripts/test-browser.sh after the packages are
// built, so nothing is rebuilt here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { root, record } from './helpers.mjs';

const freePort = () => new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

test('serve.sh prints one timed line per step and serves the page', { timeout: 120_000 }, async () => {
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'serve-')), 'build.log');
  const port = await freePort();
  const started = Date.now();
  const child = spawn('bash', ['scripts/serve.sh'], { cwd: root, env: { ...process.env, PORT: String(port), SCHEDLAB_BUILD_LOG: log }, detached: true });
  const lines = [];
  let url = null;
  try {
    url = await new Promise((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          lines.push(line);
          const m = /schedlab page: (http:\/\/\S+)/.exec(line);
          if (m) resolve(m[1]);
        }
      });
      child.on('exit', (code) => reject(new Error(`serve.sh exited (${code}): ${lines.join('\n')}`)));
      setTimeout(() => reject(new Error(`no URL after 100 s: ${lines.join('\n')}`)), 100_000);
    });
    record('serve_first_url_s_when_built', (Date.now() - started) / 1000);
    for (const l of lines) assert.match(l, /^\[\s*\d+ s\] \S/, `a line without its elapsed time: ${l}`);
    assert.ok(lines.some((l) => l.includes(`output goes to ${log}`)), lines.join('\n'));
    assert.ok(lines.some((l) => /core package \(www\/pkg\): up to date/.test(l)), lines.join('\n'));
    assert.equal(url, `http://127.0.0.1:${port}/`);
    const page = await (await fetch(url)).text();
    assert.match(page, /<title>schedlab/);
    // The paper results: docs/paper-results/summary.json is served to the page's view when the
    // repository has it, and no stale copy is served when it has none.
    assert.ok(lines.some((l) => /paper results: /.test(l)), lines.join('\n'));
    const committed = path.join(root, 'docs', 'paper-results', 'summary.json');
    const served = await fetch(`${url}paper-results/summary.json`);
    assert.equal(served.ok, existsSync(committed), `served ${served.status}, committed ${existsSync(committed)}`);
    if (served.ok) assert.equal(await served.text(), readFileSync(committed, 'utf8'));
    assert.ok(existsSync(log), 'no build log');
    assert.ok(!/Compiling/.test(lines.join('\n')), 'cargo output on the terminal');
    assert.ok(readFileSync(log, 'utf8').length >= 0);
  } finally {
    try { process.kill(-child.pid, 'SIGTERM'); } catch (_) { /* gone */ }
  }
});

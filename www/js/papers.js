// The "Paper results" view (?view=papers): the summary `schedlab reproduce all`
// writes (each paper's published claims beside ours, with the tolerance and
// whether ours holds), per paper with hold / fail / information badges, its
// inputs and run time, and a link that runs a small case of the same experiment
// live. The summary comes from the build (paper-results/summary.json, copied
// from docs/paper-results/ by scripts/serve.sh and scripts/build-wasm.sh) or
// from a file the user opens or drops; without either the view says how to
// make one. The page loads this module on its own (index.html), so the view
// works even where the simulator's WebAssembly package could not load.

import { plainWords, glossaryFor } from './words.js';

/** Where the build puts the summary, relative to the page. */
export const BUNDLED_SUMMARY = 'paper-results/summary.json';

const MAKE_ONE = 'schedlab reproduce all --quick --out DIR';

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// ---------- reading a summary ----------

/** Line and column of character `pos` in `text` (1-based). */
function lineCol(text, pos) {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  return { line, col: pos - before.lastIndexOf('\n') };
}

/** " line L, column C" of a JSON.parse error, from its message's position ('' if it has none). */
function jsonErrorPlace(text, err) {
  const m = /line (\d+) column (\d+)/.exec(err.message);
  if (m) return ` line ${m[1]}, column ${m[2]}`;
  const p = /position (\d+)/.exec(err.message);
  if (!p) return '';
  const { line, col } = lineCol(text, Number(p[1]));
  return ` line ${line}, column ${col}`;
}

/** A field of the summary with the wrong type: the error names the file and the field's path. */
class FieldError extends Error {}

function need(ok, file, path, what, value) {
  if (!ok) {
    const found = value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 60);
    throw new FieldError(`${file}: field ${path}: expected ${what}, found ${found}`);
  }
}

const isText = (v) => typeof v === 'string';
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const optional = (test) => (v) => v === undefined || v === null || test(v);

/**
 * The summary in `text` (the JSON of `schedlab reproduce all --out DIR`,
 * DIR/summary.json), checked field by field. Throws an Error whose message
 * names the file and the line (not JSON) or the field (a wrong shape).
 */
export function parseSummary(file, text) {
  if (!text.trim()) throw new Error(`${file} is empty: a summary is the summary.json that \`${MAKE_ONE}\` writes`);
  let s;
  try {
    s = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}${jsonErrorPlace(text, e)}: not JSON (${e.message}); a summary is the summary.json that \`${MAKE_ONE}\` writes`);
  }
  need(s && typeof s === 'object' && !Array.isArray(s), file, '(top level)', 'an object', s);
  need(Array.isArray(s.sections), file, 'sections', 'a list of papers', s.sections);
  for (const f of ['date', 'machine', 'preset']) need(optional(isText)(s[f]), file, f, 'text', s[f]);
  for (const f of ['seed', 'wall_s']) need(optional(isNum)(s[f]), file, f, 'a number', s[f]);
  s.sections.forEach((sec, i) => {
    const at = `sections[${i}]`;
    need(sec && typeof sec === 'object', file, at, 'an object', sec);
    need(isText(sec.target) && sec.target, file, `${at}.target`, 'a name', sec.target);
    for (const f of ['title', 'inputs', 'live', 'error']) need(optional(isText)(sec[f]), file, `${at}.${f}`, 'text', sec[f]);
    need(optional(isNum)(sec.wall_s), file, `${at}.wall_s`, 'a number', sec.wall_s);
    need(Array.isArray(sec.claims), file, `${at}.claims`, 'a list of claims', sec.claims);
    sec.claims.forEach((c, j) => {
      const cat = `${at}.claims[${j}]`;
      need(c && typeof c === 'object', file, cat, 'an object', c);
      for (const f of ['what', 'theirs', 'ours', 'tolerance']) need(isText(c[f]), file, `${cat}.${f}`, 'text', c[f]);
      need(optional(isNum)(c.ratio), file, `${cat}.ratio`, 'a number or null', c.ratio);
      need(c.holds === true || c.holds === false || c.holds === null || c.holds === undefined, file, `${cat}.holds`, 'true, false or null', c.holds);
    });
  });
  return s;
}

/** How many claims hold, do not hold, and are information only (no target). */
export function countClaims(claims) {
  const t = { hold: 0, fail: 0, info: 0 };
  for (const c of claims) {
    if (c.holds === true) t.hold++;
    else if (c.holds === false) t.fail++;
    else t.info++;
  }
  return t;
}

// ---------- words ----------

/**
 * Text from a summary without internal references: the specification's
 * section labels (plainWords), local file paths (a path in parentheses goes,
 * a bare one keeps its file name: a reader's machine has other folders), and
 * "the spec's" table (the reference the reproduction checks against).
 */
export function plainSummaryText(text) {
  return plainWords(String(text || '').replace(/\s+(?:of|in|from|see)\s+spec seed\d+ §?[\d.]+(?:-[\d.]+)?(?:,\s*§?[\d.]+)*/g, ''))
    .replace(/\s*\((?:\.\.?\/|~\/|\/)[^()\s]*\)/g, '')
    .replace(/(^|[\s(])(?:\.\.?\/|~\/|\/)(?:[\w.-]+\/)*([\w.-]+)/g, '$1$2')
    .replace(/\bthe spec's\b/g, 'the reference')
    .replace(/\s+([,;:)])/g, '$1')
    .trim();
}

/** "AFS (NSDI'21) §5.2" and the rest of a section title ("...: what it reproduces"). */
export function splitTitle(title, target) {
  const t = plainSummaryText(title);
  const i = t.indexOf(': ');
  if (i > 0 && i <= 80) return [t.slice(0, i), t.slice(i + 2)];
  return [target, t];
}

/** A duration in seconds as a person reads it. */
export function fmtDuration(s) {
  if (!isNum(s)) return '–';
  if (s < 90) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  if (s < 90 * 60) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** Ours / theirs with three significant digits ("–" when the claim has no single ratio). */
export function fmtRatio(r) {
  if (!isNum(r)) return '–';
  const a = Math.abs(r);
  if (a !== 0 && (a >= 1000 || a < 0.01)) return r.toExponential(2).replace('e+', 'e');
  return r.toFixed(2);
}

/** Words of the reproductions' claims beyond the page's glossary (words.js). */
const CLAIM_WORDS = [
  ['PCR', 'percentage cost reduction: 100 × (the other method\'s cost − STS\'s) / the other method\'s cost'],
  ['VC', 'virtual cluster, one tenant\'s part of the Philly cluster'],
  ['FCFS', 'first-come first-served'],
];

/** Plain words for the abbreviations in `text` (the page's glossary and the claims' own). */
export function wordsFor(text) {
  const has = (term) => new RegExp(`(^|[^\\w])${term}s?([^\\w]|$)`).test(text);
  return glossaryFor([text]).concat(CLAIM_WORDS.filter(([term]) => has(term)));
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** The badges of a tally: holds, does not hold, information. */
function tallyBadges(t) {
  return `<span class="badge hold">✓ ${plural(t.hold, 'holds', 'hold')}</span>`
    + `<span class="badge fail">✗ ${t.fail} ${t.fail === 1 ? 'does' : 'do'} not hold</span>`
    + `<span class="badge info">ℹ ${t.info} for information</span>`;
}

/** A claim's holds badge. */
function holdsBadge(holds) {
  if (holds === true) return '<span class="badge hold">✓ holds</span>';
  if (holds === false) return '<span class="badge fail">✗ does not hold</span>';
  return '<span class="badge info">ℹ information</span>';
}

/** What a live case runs, in words, from its query string. */
export function liveWords(live) {
  const q = new URLSearchParams(live);
  const parts = [];
  if (q.get('trace')) parts.push(`the bundled trace ${q.get('trace')}`);
  if (q.get('cluster')) parts.push(`on the cluster ${q.get('cluster')}`);
  const pol = (q.get('policies') || '').split(',').filter(Boolean);
  if (pol.length) parts.push(`with ${pol.length > 1 ? `${pol.slice(0, -1).join(', ')} and ${pol[pol.length - 1]}` : pol[0]}`);
  const sets = q.getAll('set');
  if (sets.length) parts.push(`(${sets.join(', ')})`);
  return parts.join(' ');
}

const PRESETS = {
  quick: 'the quick preset: each paper\'s headline experiments at a size that fits in about 30 minutes on two cores',
  full: 'the full preset: each reproduction at its own sizes (hours)',
};

/** The summary as HTML: when and where it was measured, an index of the papers, then each paper's claims. */
export function summaryHtml(s, source) {
  const all = countClaims(s.sections.flatMap((sec) => sec.claims));
  const when = [
    s.date ? `Measured on ${esc(s.date)}` : 'Measured',
    s.machine ? `on ${esc(s.machine)}` : '',
  ].filter(Boolean).join(' ');
  const how = [
    s.preset ? esc(PRESETS[s.preset] || `the ${s.preset} preset`) : '',
    isNum(s.seed) ? `seed ${s.seed}` : '',
    isNum(s.wall_s) ? `${fmtDuration(s.wall_s)} in all` : '',
  ].filter(Boolean).join(' · ');
  let tallyNote = '';
  if (s.tally && ['hold', 'fail', 'info'].some((k) => s.tally[k] !== all[k])) {
    tallyNote = `<p class="warn">The file's own count (${s.tally.hold} hold, ${s.tally.fail} do not, ${s.tally.info} for information) differs from its claims; the badges count the claims.</p>`;
  }
  const index = s.sections.map((sec, i) => {
    const [head] = splitTitle(sec.title || sec.target, sec.target);
    const t = countClaims(sec.claims);
    const state = sec.error ? '<span class="badge fail">✗ the run failed</span>' : tallyBadges(t);
    return `<li><a href="#paper-${i}">${esc(head)}</a> <span class="badges">${state}</span></li>`;
  }).join('');
  const head = `<section class="card papers-overview" aria-labelledby="papers-overview-h">
    <h3 id="papers-overview-h">${esc(source)}</h3>
    <p class="run-meta">${when}${how ? `<br>${how}` : ''}</p>
    <p class="badges total">${tallyBadges(all)}</p>${tallyNote}
    <ul class="paper-index">${index}</ul>
    <label class="only-fail"><input type="checkbox" id="papers-only-fail"> show only the claims that do not hold</label>
  </section>`;
  const shown = s.sections.flatMap((sec) => [sec.title, sec.inputs, ...sec.claims.map((c) => c.what)]).map(plainSummaryText).join(' ');
  const words = wordsFor(shown);
  const glossary = words.length
    ? `<section class="card papers-words" aria-labelledby="papers-words-h"><h3 id="papers-words-h">Words</h3><p class="hint glossary">${words.map(([k, v]) => `<b>${esc(k)}</b> = ${esc(v)}`).join(' · ')}</p></section>`
    : '';
  return head + glossary + s.sections.map((sec, i) => sectionHtml(sec, i)).join('');
}

/** One paper: heading with badges, what it reproduces, inputs, run time, the live link, the claims. */
function sectionHtml(sec, i) {
  const [head, what] = splitTitle(sec.title || sec.target, sec.target);
  const t = countClaims(sec.claims);
  const id = `paper-${i}`;
  const live = sec.live
    ? `<p class="paper-live"><a class="live" href="?${esc(sec.live)}">▶ Run a small case live<span class="sr"> (${esc(head)})</span></a> <span class="hint">in this browser: ${esc(liveWords(sec.live))}</span></p>`
    : '';
  const meta = `<dl class="paper-meta">
      ${sec.inputs ? `<dt>Inputs</dt><dd>${esc(plainSummaryText(sec.inputs))}</dd>` : ''}
      <dt>Run time</dt><dd>${fmtDuration(sec.wall_s)}</dd></dl>`;
  let body;
  if (sec.error) {
    body = `<p class="paper-error">This reproduction stopped with an error, so it has no claims to show: ${esc(plainSummaryText(sec.error))}</p>`;
  } else if (!sec.claims.length) {
    body = '<p class="hint">This reproduction reported no claims.</p>';
  } else {
    const rows = sec.claims.map((c) => `<tr data-holds="${c.holds === true ? 'true' : c.holds === false ? 'false' : 'info'}">
        <th scope="row">${esc(plainSummaryText(c.what))}</th>
        <td data-label="paper">${esc(c.theirs)}</td>
        <td data-label="ours">${esc(c.ours)}</td>
        <td data-label="ours / paper">${fmtRatio(c.ratio)}</td>
        <td data-label="judged by" class="tol">${esc(plainSummaryText(c.tolerance))}</td>
        <td class="holds">${holdsBadge(c.holds)}</td></tr>`).join('');
    body = `<div class="table-wrap" tabindex="0" role="region" aria-label="Claims of ${esc(head)} (scrolls sideways with the arrow keys)">
      <table class="claims"><caption class="sr">Claims of ${esc(head)}: the paper's number, ours, their ratio, how it is judged and whether ours holds</caption>
      <thead><tr><th scope="col">Claim</th><th scope="col">Paper</th><th scope="col">Ours</th><th scope="col">Ours / paper</th><th scope="col">Judged by</th><th scope="col">Holds?</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`;
  }
  return `<section class="card paper-result" id="${id}" data-target="${esc(sec.target)}" aria-labelledby="${id}-h">
    <div class="paper-head"><h3 id="${id}-h">${esc(head)}</h3>
      <span class="badges">${sec.error ? '<span class="badge fail">✗ the run failed</span>' : tallyBadges(t)}</span></div>
    ${what ? `<p class="paper-what">${esc(what)}</p>` : ''}
    ${meta}${live}${body}</section>`;
}

/** What the view says when there is no summary: how to make one, and how to show it. */
function emptyHtml() {
  return `<section class="card papers-empty" aria-labelledby="papers-empty-h">
    <h3 id="papers-empty-h">No paper results to show yet</h3>
    <p>This page came without a summary of paper results, and you have not opened one. To make one, run every paper's headline experiments with the command-line tool (about 30 minutes on two cores):</p>
    <pre><code>${MAKE_ONE}</code></pre>
    <p>It writes <code>DIR/summary.json</code>: open it here with the button above (or drop it on the page). To bundle it with the page, put it at <code>docs/paper-results/summary.json</code> and start the page with <code>bash scripts/serve.sh</code>. <code>--full</code> instead of <code>--quick</code> runs each reproduction at its own sizes (hours).</p>
  </section>`;
}

// ---------- the view ----------

/** Which view the URL asks for. */
export function viewOf(search) {
  return new URLSearchParams(search).get('view') === 'papers' ? 'papers' : 'simulation';
}

/** The current URL's query with `view` set to `view` (none for the simulation). */
function urlFor(view) {
  const q = new URLSearchParams(location.search);
  if (view === 'papers') q.set('view', 'papers');
  else q.delete('view');
  const s = q.toString().replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%40/g, '@').replace(/%3D/g, '=');
  return `${location.pathname}${s ? `?${s}` : ''}`;
}

export class PaperResults {
  constructor(doc = document) {
    this.doc = doc;
    this.root = doc.querySelector('#papers');
    this.simulationWaiters = [];
    this.bundled = undefined; // the bundled summary once fetched (null: none)
    this.shown = null; // {summary, source}
    this.root.innerHTML = `<section class="card papers-intro" aria-labelledby="papers-title">
        <h2 id="papers-title">Paper results</h2>
        <p>Each paper's published numbers (or its authors' artifact's) beside what schedlab measures when it runs the same experiment: the ratio ours / paper, how the claim is judged, and whether ours holds. A claim for information has no target. Each paper's differences are explained in its notes in the repository.</p>
        <div class="papers-open">
          <label class="drop"><input type="file" id="papers-file" accept=".json,application/json">
            <span>Open a summary.json of your own: drop it here or <u>choose it</u></span></label>
          <button type="button" id="papers-bundled" hidden>Show the bundled summary again</button>
        </div>
        <p id="papers-status" class="papers-status" role="status" aria-live="polite"></p>
      </section>
      <div id="papers-body"></div>`;
    this.body = this.root.querySelector('#papers-body');
    this.status = this.root.querySelector('#papers-status');
    this.root.querySelector('#papers-file').addEventListener('change', (e) => {
      const f = e.target.files[0];
      e.target.value = '';
      if (f) this.openFile(f);
    });
    this.root.querySelector('#papers-bundled').addEventListener('click', () => this.showBundled());
    this.body.addEventListener('change', (e) => {
      if (e.target.id === 'papers-only-fail') this.root.classList.toggle('only-fail', e.target.checked);
    });
    for (const a of doc.querySelectorAll('.views a[data-view]')) {
      a.addEventListener('click', (e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        this.show(a.dataset.view, true);
      });
    }
    window.addEventListener('popstate', () => this.show(viewOf(location.search), false));
    // In this view a dropped file is a summary (the simulation's handler leaves it alone).
    window.addEventListener('dragover', (e) => { if (this.active) { e.preventDefault(); this.root.classList.add('dragging'); } });
    window.addEventListener('dragleave', (e) => { if (this.active && !e.relatedTarget) this.root.classList.remove('dragging'); });
    window.addEventListener('drop', (e) => {
      if (!this.active) return;
      e.preventDefault();
      this.root.classList.remove('dragging');
      if (e.dataTransfer && e.dataTransfer.files.length) this.openFile(e.dataTransfer.files[0]);
    });
    this.show(viewOf(location.search), false);
  }

  get active() {
    return this.doc.documentElement.dataset.view === 'papers';
  }

  /** A page link (`?...`) that keeps the view shown: the simulation's links name no view. */
  withView(link) {
    if (!this.active) return link;
    return `${link}${link.includes('?') ? '&' : '?'}view=papers`;
  }

  /** Runs `f` now if the simulation is shown, else when it first is (the page's first run waits for it). */
  whenSimulation(f) {
    if (!this.active) f();
    else this.simulationWaiters.push(f);
  }

  /** Shows `view` ('papers' or 'simulation'); `push` adds a history entry. */
  show(view, push) {
    const papers = view === 'papers';
    if (push && papers === this.active) return; // the tab of the view shown
    this.doc.documentElement.dataset.view = papers ? 'papers' : 'simulation';
    if (push) history.pushState(null, '', urlFor(view));
    for (const a of this.doc.querySelectorAll('.views a[data-view]')) {
      const on = a.dataset.view === (papers ? 'papers' : 'simulation');
      if (on) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
      a.href = urlFor(a.dataset.view);
    }
    if (papers) {
      if (this.bundled === undefined) this.loadBundled();
      if (push) this.root.focus();
    } else {
      const waiting = this.simulationWaiters.splice(0);
      for (const f of waiting) f();
    }
  }

  /** Fetches the bundled summary (once) and shows it unless the user opened a file meanwhile. */
  async loadBundled() {
    this.bundled = null;
    this.setStatus('Looking for the summary bundled with this page…');
    let text = null;
    try {
      const r = await fetch(new URL(BUNDLED_SUMMARY, location.href), { cache: 'no-cache' });
      if (r.ok) text = await r.text();
    } catch (_) { /* no server file: the empty state says how to make one */ }
    if (text != null) {
      try {
        this.bundled = parseSummary('the bundled summary.json', text);
      } catch (e) {
        this.bundledError = e.message;
      }
    }
    if (!this.shown) this.showBundled();
  }

  showBundled() {
    this.shown = null;
    this.root.querySelector('#papers-bundled').hidden = true;
    if (this.bundled) {
      this.render(this.bundled, 'The results that came with this page');
      this.setStatus('');
    } else {
      this.body.innerHTML = emptyHtml();
      this.setStatus(this.bundledError ? `The bundled summary could not be read: ${this.bundledError}` : '', !!this.bundledError);
    }
  }

  /** Reads a summary the user opened or dropped; a bad file leaves what is shown as it was and says why. */
  async openFile(file) {
    let s;
    try {
      s = parseSummary(file.name, await file.text());
    } catch (e) {
      this.setStatus(e.message, true);
      return;
    }
    this.shown = { summary: s, source: file.name };
    this.render(s, `Your file ${file.name}`);
    this.setStatus(`Showing ${file.name} (read in this browser, not sent anywhere).`);
    this.root.querySelector('#papers-bundled').hidden = !this.bundled;
  }

  render(s, source) {
    this.root.classList.remove('only-fail');
    this.body.innerHTML = s.sections.length ? summaryHtml(s, source)
      : `<section class="card"><h3>${esc(source)}</h3><p>This summary has no papers in it (was it made with <code>--only</code>?). ${esc(MAKE_ONE)} runs them all.</p></section>`;
  }

  setStatus(text, error = false) {
    this.status.textContent = text;
    this.status.classList.toggle('error-text', error);
  }
}

/** The page's view (one per page; app.js asks it which view is shown). */
export const papers = typeof document !== 'undefined' && document.querySelector('#papers') ? new PaperResults(document) : null;

// PCS's preference search in the browser (issue 17, item 5): SPEA2 over
// WFQ(thresholds, weights, clip, delta) on the page's trace and cluster, as
// `schedlab pcs search` runs it. The SPEA2 state lives on the main thread
// (wasm `PcsSearch`: ask for a batch, tell its objectives); each batch is cut
// into small chunks that a pool of Web Workers evaluates (wasm `PcsProblem`,
// one simulation with predictions per point), so the front grows live.
// Clicking a point of the front runs PCS with that configuration in the
// comparison. Stop terminates the workers.
import { PcsProblem, PcsSearch, draw_chart } from '../pkg/schedlab.js';

/** Points per message to a worker: small enough to keep every worker busy
 * to the end of a generation, large enough that messages cost nothing. */
const CHUNK = 3;
/** Search-space variables per point (T, W, clip, delta). */
const VARS = 4;
/** The first objective is always the mean JCT; the second is chosen. */
export const SECOND_OBJECTIVES = ['avg_pred_error', 'p99_pred_error', 'avg_unfairness'];

/** SPEA2's sizes on the page (the artifact's): random points first, then children per generation. */
export const POPULATION = 70;
export const OFFSPRING = 105;

/**
 * The evaluations a search of budget `asked` runs: SPEA2 evaluates whole
 * generations and stops at the first that reaches the budget, so the page
 * asks for exactly that many (70 + 105 k, at least 70).
 */
export function wholeGenerations(asked) {
  const n = Math.max(POPULATION, Math.floor(Number(asked) || 0));
  return POPULATION + Math.ceil((n - POPULATION) / OFFSPRING) * OFFSPRING;
}

/** An objective's value in display units (JCT in hours) and its axis label. */
export function display(name) {
  if (name.endsWith('_jct')) return { scale: 1 / 3600, label: `${name.split('_')[0]} JCT (h)` };
  if (name.endsWith('_pred_error')) return { scale: 1, label: `${name.split('_')[0]} prediction error (%)` };
  return { scale: 1, label: `${name.split('_')[0]} unfairness` };
}

export class PreferenceSearch {
  /** `root`: the #search-section card; `pool`: the page's Pool (its module);
   * `inputs()`: the page's current {trace, cluster, sets}; `onPick(sets)`: run
   * PCS with the chosen point's `pcs.*=VALUE` settings. */
  constructor(root, pool, inputs, onPick) {
    this.root = root;
    this.pool = pool;
    this.inputs = inputs;
    this.onPick = onPick;
    this.canvas = root.querySelector('#search-chart');
    this.button = root.querySelector('#search-run');
    this.status = root.querySelector('#search-status');
    this.picked = root.querySelector('#search-pick');
    this.second = root.querySelector('#search-objective');
    this.budget = root.querySelector('#search-evals');
    this.apps = root.querySelector('#search-apps');
    this.active = null; // the running search's token
    this.workers = [];
    this.state = null; // the last SearchState
    this.located = []; // the front's points on the canvas
    this.selected = null; // index into state.front
    this.cancelEvaluation = null; // rejects the batch being evaluated
    this.canvas.style.display = 'none'; // until the first generation
    this.button.addEventListener('click', () => (this.active ? this.stop('stopped') : this.run()));
    this.canvas.addEventListener('click', (ev) => this.click(ev));
    this.canvas.addEventListener('pointermove', (ev) => this.hover(ev));
    this.canvas.addEventListener('pointerleave', () => { this.tip.hidden = true; });
    this.tip = document.querySelector('#tooltip');
    this.budget.addEventListener('change', () => { this.budget.value = String(wholeGenerations(this.budget.value)); });
  }

  /** Runs a search with `evaluations` in total (default: the input's value). */
  async run(asked = Number(this.budget.value) || 1330, seed = 1) {
    // Exactly the evaluations the search will run (whole generations), shown in the field.
    const evaluations = wholeGenerations(asked);
    this.budget.value = String(evaluations);
    const token = {};
    this.active = token;
    this.selected = null;
    this.picked.textContent = '';
    this.button.textContent = 'Stop';
    const inp = this.inputs();
    const problem = {
      trace: inp.trace.name,
      text: inp.trace.kind === 'bundled' ? '' : (inp.trace.text || ''),
      cluster: inp.cluster,
      objectives: `avg_jct,${this.second.value}`,
      sets: Object.entries(inp.sets).filter(([k]) => k.startsWith('engine.')).map(([k, v]) => `${k}=${v}`),
      apps: Math.max(0, Math.floor(Number(this.apps.value) || 0)), // 0: all
    };
    let search;
    try {
      const p = new PcsProblem(problem.trace, problem.text, problem.cluster, problem.objectives, problem.sets, problem.apps);
      search = new PcsSearch(p, POPULATION, OFFSPRING, evaluations, BigInt(seed));
    } catch (e) {
      this.stop(`cannot search: ${e && (e.text || e.message) || e}`);
      return;
    }
    const started = performance.now();
    try {
      await this.spawn(token);
      const key = `${Math.random()}`;
      for (;;) {
        const xs = search.ask();
        if (!xs.length || this.active !== token) break;
        const f = await this.evaluate(token, key, problem, xs);
        if (this.active !== token) break;
        search.tell(f);
        this.state = search.state();
        this.draw();
        const s = this.state;
        this.status.textContent = `${s.evaluations} / ${s.budget} evaluations on ${this.workers.length} workers, ${((performance.now() - started) / 1000).toFixed(1)} s: front of ${s.front.length}${s.done ? ' · click a point to run PCS with it' : ''}`;
      }
      if (this.active === token) this.stop(this.status.textContent);
    } catch (e) {
      if (this.active === token) this.stop(`search failed: ${e && (e.text || e.message) || e}`);
    } finally {
      search.free();
    }
  }

  /** Starts the evaluation workers: one per core, as the main thread only
   * hands out batches while they run. */
  async spawn(token) {
    this.terminate();
    const n = Math.max(1, Math.min(8, navigator.hardwareConcurrency || 2));
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
      w.ready = new Promise((resolve, reject) => {
        w.onmessage = (ev) => (ev.data.type === 'ready' ? resolve() : ev.data.type === 'fatal' ? reject(ev.data.error) : null);
      });
      w.postMessage({ type: 'init', module: this.pool.module });
      this.workers.push(w);
    }
    await Promise.all(this.workers.map((w) => w.ready));
    if (this.active !== token) throw new Error('stopped');
  }

  /** Objectives of the flat points `xs`, chunks spread over the workers. */
  evaluate(token, key, problem, xs) {
    const n = xs.length / VARS;
    const k = 2;
    const out = new Float64Array(n * k);
    let next = 0;
    let left = Math.ceil(n / CHUNK);
    return new Promise((resolve, reject) => {
      this.cancelEvaluation = () => reject(new Error('stopped'));
      const feed = (w) => {
        if (next >= n) return;
        const from = next;
        next = Math.min(n, next + CHUNK);
        w.onmessage = (ev) => {
          const m = ev.data;
          if (m.type !== 'pcs-evaluated') return;
          if (this.active !== token) { reject(new Error('stopped')); return; }
          if (m.error) { reject(m.error); return; }
          out.set(m.f, from * k);
          left -= 1;
          if (left === 0) resolve(out);
          else feed(w);
        };
        w.postMessage({ type: 'pcs-eval', id: from, key, problem, points: xs.slice(from * VARS, next * VARS) });
      };
      for (const w of this.workers) feed(w);
    });
  }

  terminate() {
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }

  stop(text) {
    this.terminate();
    if (this.cancelEvaluation) this.cancelEvaluation();
    this.cancelEvaluation = null;
    this.active = null;
    this.button.textContent = 'Search';
    this.status.textContent = text;
  }

  /** Draws the evaluated cloud and the front (the page calls it again on resize). */
  draw() {
    const s = this.state;
    if (!s || this.root.hidden) return;
    this.canvas.style.display = '';
    const dpr = window.devicePixelRatio || 1;
    const rect = this.canvas.getBoundingClientRect();
    this.canvas.width = Math.max(1, Math.round(rect.width * dpr));
    this.canvas.height = Math.max(1, Math.round(rect.height * dpr));
    const [dx, dy] = s.objectives.map(display);
    const finite = (p) => p.f.every((v) => v !== null && Number.isFinite(v));
    const cloud = s.evaluated.filter(finite);
    const front = s.front.filter(finite);
    this.front = front;
    this.canvas.setAttribute('aria-label', `Pareto front after ${s.evaluations} evaluations: ${front.length} configurations on the front, ${cloud.length} evaluated; ${dx.label} from ${Math.min(...front.map((p) => p.f[0] * dx.scale)).toFixed(3)} to ${Math.max(...front.map((p) => p.f[0] * dx.scale)).toFixed(3)}`);
    const located = draw_chart(this.canvas, {
      kind: 'front',
      title: `Pareto front after ${s.evaluations} evaluations (this browser)`,
      x_label: dx.label,
      y_label: dy.label,
      scale: dpr,
      selected: this.selected,
      series: [
        { name: 'evaluated', color: '#9aa0a6', x: cloud.map((p) => p.f[0] * dx.scale), y: cloud.map((p) => p.f[1] * dy.scale) },
        { name: 'front (click to run)', color: '#e15759', x: front.map((p) => p.f[0] * dx.scale), y: front.map((p) => p.f[1] * dy.scale) },
      ],
    });
    this.located = located.length ? located[located.length - 1] : [];
  }

  /** The index of the front point within 12 CSS px of a pointer event, or -1. */
  nearest(ev) {
    if (!this.located.length) return -1;
    const dpr = window.devicePixelRatio || 1;
    const rect = this.canvas.getBoundingClientRect();
    const cx = (ev.clientX - rect.left) * dpr;
    const cy = (ev.clientY - rect.top) * dpr;
    let best = -1;
    let bestD = (12 * dpr) ** 2;
    this.located.forEach(([, , px, py], i) => {
      const d = (px - cx) ** 2 + (py - cy) ** 2;
      if (d <= bestD) { bestD = d; best = i; }
    });
    return best;
  }

  /** The front point nearest a click (within 12 CSS px) runs in the comparison. */
  click(ev) {
    const best = this.nearest(ev);
    if (best >= 0) this.pick(best);
  }

  /** Hovering a front point shows its objectives and the WFQ settings it stands for. */
  hover(ev) {
    const i = this.nearest(ev);
    const p = i >= 0 && this.front ? this.front[i] : null;
    if (!p) { this.tip.hidden = true; return; }
    const [dx, dy] = this.state.objectives.map(display);
    const named = p.pick.length ? ` · the ${p.pick.join(' / ')} pick` : '';
    this.tip.innerHTML = `<b>${p.classes} WFQ classes</b>${named}<br>${dx.label} <b>${(p.f[0] * dx.scale).toFixed(3)}</b><br>${dy.label} <b>${(p.f[1] * dy.scale).toFixed(3)}</b><br><small>${p.sets.map((x) => x.replace(/&/g, '&amp;').replace(/</g, '&lt;')).join('<br>')}</small><br><small>click to run PCS with it</small>`;
    this.tip.hidden = false;
    this.tip.style.left = `${Math.min(ev.clientX + 14, window.innerWidth - this.tip.offsetWidth - 8)}px`;
    this.tip.style.top = `${Math.max(4, ev.clientY - this.tip.offsetHeight - 10)}px`;
  }

  /** Runs the `i`-th point of the front (in drawing order). */
  pick(i) {
    const p = this.front && this.front[i];
    if (!p || !p.sets.length) return;
    this.selected = i;
    this.draw();
    const [dx, dy] = this.state.objectives.map(display);
    const named = p.pick.length ? ` (the ${p.pick.join(' / ')} pick)` : '';
    this.picked.textContent = `Running PCS with ${p.classes} classes${named}: ${p.sets.join(' · ')} · searched ${dx.label} ${(p.f[0] * dx.scale).toFixed(3)}, ${dy.label} ${(p.f[1] * dy.scale).toFixed(3)}`;
    this.onPick(p.sets);
  }
}

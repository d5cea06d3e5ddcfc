// Solver time against cluster size (the COpter thesis's Fig. 4.5 question),
// measured in this browser: Sia with each solver method on copter-256xN for
// a few N, on a generated copter-pai workload (4 jobs per GPU per day, as
// `schedlab reproduce copter --scaling` does), the median solver time of the
// rounds after a warm-up hour. It runs in a worker of its own, so the page's
// comparison keeps its workers; Stop terminates that worker.
import { draw_chart } from '../pkg/schedlab.js';

/** Cluster scale factors N of copter-256xN (256 GPUs each). */
export const SCALES = [1, 2, 5, 10];
export const METHODS = [
  { name: 'lp-star', sets: ['sia.solver=lp-star'], color: '#4e79a7' },
  { name: 'copter', sets: ['sia.solver=copter'], color: '#e15759' },
];
const WARMUP_H = 1;

/** The median of the rounds' solver seconds at or after `from` (s). */
export function medianAfter(rounds, from) {
  const v = [];
  for (let i = 0; i < rounds.t.length; i++) {
    if (rounds.t[i] >= from && Number.isFinite(rounds.solver_s[i])) v.push(rounds.solver_s[i]);
  }
  v.sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : NaN;
}

export class Scaling {
  /** `fig`: the figure holding #scaling-chart, #scaling-run and #scaling-status;
   * `pool`: the page's Pool (its modules). */
  constructor(fig, pool) {
    this.fig = fig;
    this.pool = pool;
    this.canvas = fig.querySelector('#scaling-chart');
    this.button = fig.querySelector('#scaling-run');
    this.status = fig.querySelector('#scaling-status');
    this.active = null; // the running sweep's token
    this.worker = null;
    this.points = []; // {method, gpus, p50, rounds}
    this.canvas.style.display = 'none'; // until a sweep has a point
    this.button.addEventListener('click', () => (this.active ? this.stop('stopped') : this.run()));
  }

  /** Runs the sweep (`scales`, window `hours` after the warm-up). */
  async run(scales = SCALES, hours = 0.25, seed = 1) {
    const token = {};
    this.active = token;
    this.points = [];
    this.button.textContent = 'Stop';
    const say = (text) => { this.status.textContent = text; };
    let fullModule;
    try {
      fullModule = await this.pool.loadFull();
    } catch (e) {
      if (this.active === token) this.stop(`could not load the full wasm package: ${e && e.message || e}`);
      return;
    }
    if (this.active !== token) return;
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker = w;
    const replies = new Map();
    let next = 1;
    const ask = (msg) => new Promise((resolve) => { replies.set(msg.id, resolve); w.postMessage(msg); });
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === 'ready') replies.get('ready')?.(m);
      else if (m.type === 'fatal') replies.get('ready')?.({ error: m.error });
      else if ((m.type === 'result' || m.type === 'error' || m.type === 'generated') && replies.has(m.id)) {
        replies.get(m.id)(m);
        replies.delete(m.id);
      }
    };
    const ready = new Promise((resolve) => replies.set('ready', resolve));
    w.postMessage({ type: 'init', module: this.pool.module });
    const r0 = await ready;
    if (this.active !== token) return;
    if (r0.error) { this.stop(`worker failed: ${r0.error.text}`); return; }
    const maxDays = (WARMUP_H + hours) / 24;
    for (const n of scales) {
      const gpus = 256 * n;
      say(`${gpus} GPUs: generating ${4 * gpus} jobs…`);
      const g = await ask({ type: 'generate', id: next++, generator: 'copter-pai', jobs: 4 * gpus, seed });
      if (this.active !== token) return;
      if (g.error) { this.stop(`generator failed: ${g.error.text}`); return; }
      for (const m of METHODS) {
        say(`${gpus} GPUs: Sia with ${m.name}…`);
        const res = await ask({
          type: 'run', id: next++, trace: { name: 'copter-pai', text: g.text }, cluster: `copter-256x${n}`,
          policy: 'sia', label: `sia@solver=${m.name}`, sets: [...m.sets, `engine.max_days=${maxDays}`], seed, fullModule,
        });
        if (this.active !== token) return;
        if (res.type === 'error') { this.stop(`${m.name} at ${gpus} GPUs: ${res.error.text}`); return; }
        const rounds = res.result.rounds;
        this.points.push({ method: m.name, gpus, p50: medianAfter(rounds, WARMUP_H * 3600), rounds: rounds.t.length });
        this.draw();
      }
    }
    this.stop(`done: ${scales.length} sizes x ${METHODS.length} methods, rounds of ${hours} h after ${WARMUP_H} h`);
  }

  stop(text) {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.active = null;
    this.button.textContent = 'Measure solver time against cluster size';
    this.status.textContent = text;
  }

  /** Draws the points so far (none: the canvas stays hidden); the page calls
   * it again when it redraws its charts (a resize). */
  draw() {
    if (!this.points.length || this.fig.hidden) return;
    this.canvas.style.display = '';
    const dpr = window.devicePixelRatio || 1;
    const rect = this.canvas.getBoundingClientRect();
    this.canvas.width = Math.max(1, Math.round(rect.width * dpr));
    this.canvas.height = Math.max(1, Math.round(rect.height * dpr));
    const series = METHODS.map((m) => {
      const pts = this.points.filter((p) => p.method === m.name && p.p50 > 0);
      return { name: m.name, color: m.color, x: pts.map((p) => p.gpus), y: pts.map((p) => p.p50) };
    }).filter((s) => s.x.length);
    draw_chart(this.canvas, {
      kind: 'lines', title: 'Median solver time per round against cluster size (this browser)', x_label: 'GPUs (copter-256xN)',
      y_label: 'seconds (log)', scale: dpr, y_log: true, series,
    });
  }
}

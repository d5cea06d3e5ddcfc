// STS's single-job sandbox (spec seed002 §8.9): pick a job type and a GPU
// type, drag the deadline, and watch the optimal staircase (GPUs over
// epochs) and its expected cost change; the grey curve is the job's
// early-stopping law, P(still running after epoch e). The model is solved
// in wasm (`sts_sandbox`, microseconds), on the main thread.
import { sts_sandbox } from '../pkg/schedlab.js';

const TYPES = ['k80-board', 'm60-board', 'a100-80'];
const PAD = { l: 40, r: 40, t: 10, b: 26 };

export class Sandbox {
  constructor(root, catalog) {
    this.root = root;
    this.model = root.querySelector('#sb-model');
    this.kind = root.querySelector('#sb-kind');
    this.slider = root.querySelector('#sb-deadline');
    this.text = root.querySelector('#sb-text');
    this.canvas = root.querySelector('#sb-canvas');
    for (const m of catalog.models.filter((x) => x.family === 'sts')) this.model.append(new Option(m.name.replace('sts/', ''), m.name));
    for (const t of TYPES) this.kind.append(new Option(t, t));
    this.kind.value = 'a100-80';
    const redraw = () => this.update();
    this.model.addEventListener('change', () => { this.slider.value = '0.5'; redraw(); });
    this.kind.addEventListener('change', () => { this.slider.value = '0.5'; redraw(); });
    this.slider.addEventListener('input', redraw);
    root.addEventListener('toggle', redraw);
  }

  update() {
    if (!this.root.open || !this.model.value) return;
    // The slider runs from the fastest full run to the slowest (one GPU), on a log scale.
    const probe = sts_sandbox(this.model.value, this.kind.value, 1e12);
    const lo = probe.fastest_s, hi = probe.slowest_s * 1.1;
    const f = Number(this.slider.value);
    const deadline = lo * (hi / lo) ** f;
    const p = sts_sandbox(this.model.value, this.kind.value, deadline);
    this.draw(p);
    const saving = p.single_level_cost_usd > 0 ? 100 * (1 - p.expected_cost_usd / p.single_level_cost_usd) : 0;
    const versus = p.feasible ? ` The staircase saves ${saving.toFixed(1)}% against the cheapest single GPU count that meets the deadline ($${p.single_level_cost_usd.toFixed(2)}).` : '';
    const steps = p.steps.map(([g, until]) => `${g} GPU${g > 1 ? 's' : ''} to epoch ${until.toFixed(1)}`).join(', then ');
    this.text.textContent = `Deadline ${(deadline / 3600).toFixed(2)} h: ${p.feasible ? '' : 'cannot be met, so all at the top; '}${steps}. `
      + `Expected cost $${p.expected_cost_usd.toFixed(2)}.${versus}`;
  }

  draw(p) {
    const c = this.canvas, ctx = c.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    const top = Math.max(1, ...p.steps.map((s) => s[0]));
    const X = (e) => PAD.l + e / p.max_epochs * (w - PAD.l - PAD.r);
    const Y = (g) => h - PAD.b - g / top * (h - PAD.t - PAD.b);
    const YS = (q) => h - PAD.b - q * (h - PAD.t - PAD.b);
    ctx.strokeStyle = '#888';
    ctx.beginPath();
    ctx.moveTo(PAD.l, PAD.t); ctx.lineTo(PAD.l, h - PAD.b); ctx.lineTo(w - PAD.r, h - PAD.b); ctx.lineTo(w - PAD.r, PAD.t);
    ctx.stroke();
    ctx.fillStyle = '#444';
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let g = 0; g <= top; g += Math.max(1, Math.ceil(top / 4))) ctx.fillText(String(g), 8, Y(g));
    for (const q of [0, 0.5, 1]) ctx.fillText(q.toFixed(1), w - PAD.r + 4, YS(q));
    ctx.textBaseline = 'top';
    ctx.fillText('epochs →   (left axis: GPUs; right, grey: P(still running))', PAD.l + 4, h - PAD.b + 8);
    // The law.
    ctx.strokeStyle = '#aaa';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    p.survival.forEach((q, e) => (e ? ctx.lineTo(X(e), YS(q)) : ctx.moveTo(X(e), YS(q))));
    ctx.stroke();
    // The staircase.
    ctx.strokeStyle = p.feasible ? '#0072b2' : '#d55e00';
    ctx.lineWidth = 3;
    ctx.beginPath();
    let from = 0;
    p.steps.forEach(([g, until], i) => {
      if (i === 0) ctx.moveTo(X(from), Y(g)); else ctx.lineTo(X(from), Y(g));
      ctx.lineTo(X(until), Y(g));
      from = until;
    });
    ctx.stroke();
    ctx.lineWidth = 1;
  }
}

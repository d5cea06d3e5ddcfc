// The anticipatory predictor panel (issue 49): per pool, the load the
// scheduler's predictor announced at each call (GPUs expected to arrive in
// the chosen window) against the load that truly arrived in that window,
// over time, with a cursor at the animation clock. The numbers are the
// engine's gauges (`Decision::gauge`, key = pool << 8 | window), read from
// the "why" worker's explainer of the run.
import { esc, fmtT } from './whycard.js';

const PRED = 'anticipatory.predicted';
const ACT = 'anticipatory.arrived';

/** The gauges as per-pool, per-window step series {t, predicted, arrived}. */
export function predictorSeries(g) {
  const ip = g.names.indexOf(PRED), ia = g.names.indexOf(ACT);
  const by = new Map(); // key -> {t:[], predicted:[], arrived:[]}
  if (ip < 0 || ia < 0) return by;
  for (let i = 0; i < g.t.length; i++) {
    const n = g.name[i];
    if (n !== ip && n !== ia) continue;
    const k = g.key[i];
    let s = by.get(k);
    if (!s) { s = { t: [], predicted: [], arrived: [] }; by.set(k, s); }
    if (n === ip) { s.t.push(g.t[i]); s.predicted.push(g.value[i]); } else s.arrived.push(g.value[i]);
  }
  return by;
}

/** The last index of sorted `t` with t[i] <= x, or -1. */
function at(t, x) {
  let lo = 0, hi = t.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (t[m] <= x) lo = m + 1; else hi = m; }
  return lo - 1;
}

export class Predictor {
  constructor(canvas, text) {
    this.canvas = canvas;
    this.text = text;
    this.series = null;
    this.pools = [];
    this.window = 0;
    this.windows = 0;
  }

  /** `g`: the run's gauges; `pools`: the run's pool names; `span`: [t0, t1]. */
  set(g, pools, span) {
    this.series = predictorSeries(g);
    this.pools = pools;
    this.span = span;
    let w = 0;
    for (const k of this.series.keys()) w = Math.max(w, (k & 255) + 1);
    this.windows = w;
    this.exact = true;
    for (const [, s] of this.series) for (let i = 0; i < s.t.length && this.exact; i++) this.exact = s.predicted[i] === s.arrived[i];
    // The longest window first: its curves are the smoothest to compare.
    this.window = Math.max(0, w - 1);
  }

  has() { return this.series && this.series.size > 0; }

  draw(t) {
    const c = this.canvas;
    if (!this.has()) return;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth || 600;
    const rowH = 70;
    const h = 24 + this.pools.length * rowH + 14;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); c.style.height = `${h}px`;
    }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const left = 70, right = w - 10, [t0, t1] = this.span;
    const x = (v) => left + (v - t0) / Math.max(1e-9, t1 - t0) * (right - left);
    ctx.font = '12px system-ui, sans-serif';
    this.pools.forEach((name, q) => {
      const s = this.series.get((q << 8) | this.window);
      const top = 8 + q * rowH, bottom = top + rowH - 18;
      ctx.fillStyle = '#333';
      ctx.fillText(name, 4, top + 14);
      ctx.strokeStyle = '#ccc';
      ctx.beginPath(); ctx.moveTo(left, bottom + 0.5); ctx.lineTo(right, bottom + 0.5); ctx.stroke();
      if (!s || !s.t.length) return;
      let max = 1;
      for (let i = 0; i < s.t.length; i++) max = Math.max(max, s.predicted[i], s.arrived[i]);
      const y = (v) => bottom - v / max * (bottom - top - 4);
      ctx.fillStyle = '#666';
      ctx.fillText(`${max} GPUs`, 4, top + 28);
      const line = (vals, color, dash) => {
        ctx.strokeStyle = color; ctx.setLineDash(dash); ctx.lineWidth = 1.5;
        ctx.beginPath();
        for (let i = 0; i < s.t.length; i++) {
          const xi = x(s.t[i]), xn = i + 1 < s.t.length ? x(s.t[i + 1]) : x(t1);
          if (i === 0) ctx.moveTo(xi, y(vals[i])); else ctx.lineTo(xi, y(vals[i]));
          ctx.lineTo(xn, y(vals[i]));
        }
        ctx.stroke(); ctx.setLineDash([]);
      };
      line(s.arrived, '#000000', []);
      line(s.predicted, '#E69F00', [5, 3]);
    });
    // Time axis (hours) under the rows.
    const span = (t1 - t0) / 3600;
    const step = [0.25, 0.5, 1, 2, 4, 6, 12, 24, 48, 96].find((v) => span / v <= Math.max(2, (right - left) / 90)) || 192;
    ctx.fillStyle = '#555';
    ctx.textAlign = 'center';
    for (let v = Math.ceil(t0 / 3600 / step) * step; v <= t1 / 3600; v += step) ctx.fillText(`${v} h`, x(v * 3600), h - 4);
    ctx.textAlign = 'start';
    this.canvas.plot = { left, right, top: 8, bottom: h - 24, t0, t1 };
    this.describe(t);
  }

  /** The text alternative: per pool, predicted against arrived at the clock. */
  describe(t) {
    const parts = this.pools.map((name, q) => {
      const s = this.series.get((q << 8) | this.window);
      const i = s ? at(s.t, t) : -1;
      return i < 0 ? `${esc(name)}: no prediction yet` : `${esc(name)}: predicted <b>${s.predicted[i]}</b> GPUs, arrived <b>${s.arrived[i]}</b> (call at t = ${fmtT(s.t[i])})`;
    });
    const note = this.exact ? ' Every prediction of this run equals the load that arrived: the predictor is perfect (the policy\'s <code>predict</code> setting; noisy or learned make errors).' : '';
    const html = `At t = ${fmtT(t)}: ${parts.join('; ')}.${note}`;
    if (this.text.innerHTML !== html) this.text.innerHTML = html;
  }
}

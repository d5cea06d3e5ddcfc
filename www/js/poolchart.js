// Pools over time (runs with pools, the anticipatory paper's "donor vs
// recipient" view): one row per pool, time across. Solid: GPUs of the
// pool's own jobs within its quota; grey: its idle quota lent to other
// pools' jobs; light: GPUs it borrowed beyond its quota; dashed: the quota.
// Each row has its own GPU scale (quota or peak, whichever is larger), so
// small pools stay readable beside large ones. The static rows are drawn
// once per run into an offscreen canvas; a frame adds the clock line.
import { poolPalette } from './colors.js';
import { poolSeries } from './quota.js';

const LEFT = 150; // CSS px for the pool labels
const RIGHT = 10;
const AXIS = 20;
const LENT = '#8d939b';

export class PoolChart {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.run = null;
    this.sheet = null;
  }

  /** Lays the chart out for `run` over [t0, t1] in `width` CSS px. */
  setRun(run, t0, t1, width) {
    this.run = run;
    this.t0 = t0;
    this.t1 = Math.max(t1, t0 + 1);
    const P = run.pools.length;
    this.rowH = Math.max(24, Math.min(64, Math.floor(420 / P)));
    this.w = Math.max(300, width);
    this.h = P * this.rowH + AXIS + 4;
    const dpr = window.devicePixelRatio || 1;
    this.dpr = dpr;
    const c = this.canvas;
    c.style.height = `${this.h}px`;
    c.width = Math.round(this.w * dpr);
    c.height = Math.round(this.h * dpr);
    const plotW = this.w - LEFT - RIGHT;
    // The series depends on the run, span and bin count only: a resize or
    // another policy's result arriving does not recompute it.
    const bins = Math.max(10, Math.min(800, Math.floor(plotW)));
    const key = `${this.t0}|${this.t1}|${bins}`;
    if (this.seriesRun !== run || this.seriesKey !== key) {
      this.series = poolSeries(run, this.t0, this.t1, bins);
      this.seriesRun = run;
      this.seriesKey = key;
    }
    this.sheet = this.paint(plotW);
  }

  x(t) {
    return LEFT + (t - this.t0) / (this.t1 - this.t0) * (this.w - LEFT - RIGHT);
  }

  /** The rows, the quota lines and the time axis, into an offscreen canvas. */
  paint(plotW) {
    const s = this.series, run = this.run, dpr = this.dpr;
    const sheet = document.createElement('canvas');
    sheet.width = this.canvas.width;
    sheet.height = this.canvas.height;
    const g = sheet.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, this.w, this.h);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const bw = plotW / s.bins;
    const palette = poolPalette(run.pools);
    run.pools.forEach((pool, p) => {
      const top = p * this.rowH, base = top + this.rowH - 3;
      const ymax = Math.max(pool.quota, s.peak[p], 1) * 1.08;
      const k = (this.rowH - 6) / ymax;
      g.fillStyle = '#f6f7f9';
      g.fillRect(LEFT, top + 3, plotW, this.rowH - 6);
      const layers = [[s.own[p], palette[p].strong], [s.lent[p], LENT], [s.borrowed[p], palette[p].tint]];
      const height = new Float64Array(s.bins);
      for (const [v, colour] of layers) {
        g.fillStyle = colour;
        for (let b = 0; b < s.bins; b++) {
          if (v[b] <= 0) continue;
          const y0 = base - height[b] * k;
          // Whole-pixel columns, so that neighbouring bins leave no seams.
          const x0 = Math.floor(LEFT + b * bw), x1 = Math.floor(LEFT + (b + 1) * bw);
          g.fillRect(x0, y0 - v[b] * k, Math.max(1, x1 - x0), v[b] * k);
          height[b] += v[b];
        }
      }
      g.strokeStyle = '#333';
      g.setLineDash([4, 3]);
      g.lineWidth = 1;
      g.beginPath();
      const yq = Math.round(base - pool.quota * k) + 0.5;
      g.moveTo(LEFT, yq); g.lineTo(LEFT + plotW, yq);
      g.stroke();
      g.setLineDash([]);
      g.fillStyle = palette[p].strong;
      g.fillRect(0, top + this.rowH / 2 - 5, 10, 10);
      g.fillStyle = '#222';
      const name = pool.name.length > 14 ? `${pool.name.slice(0, 13)}…` : pool.name;
      g.fillText(`${name} · quota ${pool.quota}`, 14, top + this.rowH / 2);
    });
    // Time axis in hours.
    const y = run.pools.length * this.rowH + 4;
    g.fillStyle = '#444';
    g.textBaseline = 'top';
    const span = (this.t1 - this.t0) / 3600;
    const step = [0.25, 0.5, 1, 2, 6, 12, 24, 48, 168, 336, 720].find((v) => span / v <= 10) || 1440;
    for (let hr = Math.ceil(this.t0 / 3600 / step) * step; hr * 3600 <= this.t1; hr += step) {
      const x = this.x(hr * 3600);
      g.fillRect(x, y, 1, 4);
      g.fillText(`${Number(hr.toFixed(2))} h`, x + 2, y + 4);
    }
    return sheet;
  }

  /** The chart with the clock at t. */
  draw(t) {
    if (!this.sheet) return;
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.sheet, 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const x = Math.round(this.x(Math.min(Math.max(t, this.t0), this.t1))) + 0.5;
    ctx.strokeStyle = '#d00';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, 0); ctx.lineTo(x, this.run.pools.length * this.rowH + 3);
    ctx.stroke();
  }

  /** Pool p's GPUs in the bin under CSS x (or null): {p, t, own, lent, borrowed}. */
  hit(x, y) {
    if (!this.sheet || x < LEFT || x > this.w - RIGHT) return null;
    const p = Math.floor(y / this.rowH);
    if (p < 0 || p >= this.run.pools.length) return null;
    const s = this.series;
    const b = Math.min(s.bins - 1, Math.floor((x - LEFT) / (this.w - LEFT - RIGHT) * s.bins));
    const t = this.t0 + (b + 0.5) / s.bins * (this.t1 - this.t0);
    return { p, t, own: s.own[p][b], lent: s.lent[p][b], borrowed: s.borrowed[p][b] };
  }
}

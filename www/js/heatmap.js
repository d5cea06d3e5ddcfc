// The goodput heatmap: one round of a policy's insight (Sia's goodput
// matrix) as jobs (rows) x configurations (columns, grouped by GPU type),
// coloured by the row-normalised goodput on a log viridis scale shared by
// the whole run; the configuration each job holds after the round is
// outlined, and cells a job could not choose are pale grey. It redraws only
// when the round, the hovered job or the size changes.
import { roundAt, roundInsight, normMax } from './insight.js';
import { viridis } from './colors.js';

const HEAD = 34; // CSS px: type names, then GPU counts
const NONE = '#eceef1';

export class Heatmap {
  constructor(canvas, gpuTypes) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.gpuTypes = gpuTypes;
    this.run = null;
    this.cur = null;
    this.key = '';
  }

  /** Shows `run` (a result with insight) at `width` CSS px. */
  setRun(run, width) {
    if (run !== this.run) {
      this.run = run;
      this.ins = run.insight;
      this.vmax = normMax(this.ins);
    }
    this.cssW = Math.max(200, Math.floor(width));
    this.key = '';
  }

  /** Draws the round at or before t; returns the round shown (or null). */
  update(t, hoverJob = -1) {
    if (!this.run) return null;
    const i = roundAt(this.ins, t);
    const key = `${i}|${hoverJob}|${this.cssW}`;
    if (key === this.key) return this.cur;
    this.key = key;
    this.cur = i < 0 ? null : roundInsight(this.ins, i);
    this.layout();
    this.draw(hoverJob);
    return this.cur;
  }

  layout() {
    const r = this.cur;
    const rows = r ? r.jobs.length : 0;
    const cols = r ? r.cols.length : 1;
    this.gutter = Math.min(150, Math.round(this.cssW * 0.24));
    this.cw = Math.max(4, Math.min(48, Math.floor((this.cssW - this.gutter - 2) / Math.max(1, cols))));
    this.ch = rows <= 24 ? 16 : Math.max(3, Math.min(16, Math.floor(420 / rows)));
    const h = HEAD + Math.max(1, rows) * this.ch + 2;
    const dpr = window.devicePixelRatio || 1;
    if (h !== this.cssH || dpr !== this.dpr || this.canvas.width !== Math.round(this.cssW * dpr)) {
      this.cssH = h;
      this.dpr = dpr;
      this.canvas.style.width = `${this.cssW}px`;
      this.canvas.style.height = `${h}px`;
      this.canvas.width = Math.round(this.cssW * dpr);
      this.canvas.height = Math.round(h * dpr);
    }
  }

  draw(hoverJob) {
    const ctx = this.ctx, d = this.dpr, r = this.cur, ins = this.ins;
    ctx.setTransform(d, 0, 0, d, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.cssW, this.cssH);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#5b6474';
    if (!r) { ctx.fillText('no round yet at this time', 4, HEAD / 2); return; }
    const { cw, ch, gutter: gx } = this;
    const nc = r.cols.length, nr = r.jobs.length;
    // Header: GPU type over its columns, then each column's GPU count.
    let start = 0;
    for (let c = 1; c <= nc; c++) {
      const k = ins.label_kind[r.cols[start]];
      if (c < nc && ins.label_kind[r.cols[c]] === k) continue;
      const x0 = gx + start * cw, x1 = gx + c * cw;
      ctx.fillStyle = '#1d2330';
      ctx.textAlign = 'center';
      const type = this.gpuTypes[k];
      ctx.fillText(type ? type.name : '?', (x0 + x1) / 2, 8, x1 - x0);
      ctx.fillStyle = '#c3c7cf';
      ctx.fillRect(x0 + 1, 15, x1 - x0 - 2, 1);
      start = c;
    }
    // GPU counts (with the node count when it fits), smaller or left out when narrow.
    ctx.fillStyle = '#5b6474';
    for (let c = 0; c < nc; c++) {
      const l = r.cols[c];
      const n = ins.label_nodes[l];
      const full = `${ins.label_gpus[l]}${n > 1 ? `/${n}n` : ''}`;
      let text = null;
      for (const [font, txt, pad] of [['11px', full, 3], ['11px', `${ins.label_gpus[l]}`, 3], ['9px', `${ins.label_gpus[l]}`, 0]]) {
        ctx.font = `${font} system-ui, sans-serif`;
        if (ctx.measureText(txt).width <= cw - pad) { text = txt; break; }
      }
      if (text) ctx.fillText(text, gx + c * cw + cw / 2, 25);
    }
    ctx.font = '11px system-ui, sans-serif';
    // Rows.
    const names = this.run.jobs.names;
    const lnMax = Math.log(this.vmax);
    ctx.textAlign = 'left';
    for (let i = 0; i < nr; i++) {
      const y = HEAD + i * ch;
      const j = r.jobs[i];
      if (ch >= 9) {
        ctx.fillStyle = j === hoverJob ? '#000' : '#1d2330';
        ctx.fillText(`${j} ${names[j]}`, 2, y + ch / 2, gx - 6);
      }
      for (let c = 0; c < nc; c++) {
        const v = r.norm[i * nc + c];
        ctx.fillStyle = v === v ? viridis(lnMax > 0 ? Math.log(Math.max(1, v)) / lnMax : 0) : NONE;
        ctx.fillRect(gx + c * cw, y, cw - (cw > 6 ? 1 : 0), ch - (ch > 5 ? 1 : 0));
      }
    }
    // The configuration each job holds after the round: black and white outline.
    for (let i = 0; i < nr; i++) {
      const c = r.chosen[i];
      if (c < 0) continue;
      const x = gx + c * cw, y = HEAD + i * ch;
      const w = cw - (cw > 6 ? 1 : 0), h = ch - (ch > 5 ? 1 : 0);
      if (h >= 6) {
        ctx.lineWidth = 2;
        ctx.strokeStyle = '#000';
        ctx.strokeRect(x + 1, y + 1, w - 2, h - 2);
        ctx.lineWidth = 1;
        ctx.strokeStyle = '#fff';
        ctx.strokeRect(x + 2.5, y + 2.5, w - 5, h - 5);
      } else {
        ctx.fillStyle = '#000';
        ctx.fillRect(x + w / 2 - 1.5, y, 3, h);
      }
    }
    // The hovered job (here or in a GPU map): a marker and an outlined row.
    const hi = hoverJob >= 0 ? r.jobs.indexOf(hoverJob) : -1;
    if (hi >= 0) {
      const y = HEAD + hi * ch;
      ctx.strokeStyle = '#D55E00';
      ctx.lineWidth = 2;
      ctx.strokeRect(gx - 1, y - 1, nc * cw + 1, ch + 1);
      ctx.fillStyle = '#D55E00';
      ctx.beginPath();
      ctx.moveTo(gx - 2, y + ch / 2);
      ctx.lineTo(gx - 8, y + ch / 2 - 4);
      ctx.lineTo(gx - 8, y + ch / 2 + 4);
      ctx.fill();
    }
  }

  /** The cell under CSS point (x, y): {row, col} (col -1 in the gutter), or null. */
  hit(x, y) {
    const r = this.cur;
    if (!r || y < HEAD) return null;
    const row = Math.floor((y - HEAD) / this.ch);
    if (row >= r.jobs.length) return null;
    const col = x < this.gutter ? -1 : Math.floor((x - this.gutter) / this.cw);
    return col >= r.cols.length ? null : { row, col };
  }
}

// The GPU map: one cell per GPU, nodes drawn as blocks and grouped by GPU
// type, each cell coloured by the job holding it at time t. A cell whose
// job is restoring a checkpoint (no progress yet) is hatched. A job that
// has just moved to another GPU type gets a black-and-white outline that
// fades over `moveWindow` simulated seconds; `moved` lists those segments.
// A GPU that several jobs share (slices) is drawn as side-by-side strips,
// each as wide as the job's fraction, the unused rest in the idle colour.
//
// Runs with pools switch the map to its pool view (`setPools`): one region
// per pool, as many cells as its quota, tinted in the pool's colour; a
// pool's jobs fill its own region, and GPUs it lends show the borrowing
// job with a corner mark in the borrower's pool colour (quota.js says how
// borrowed GPUs are attributed to lenders).
//
// Clusters of more than NODE_VIEW_GPUS GPUs (COpter's 10k-GPU runs) are
// summarised per node: one square cell per node, its GPUs' jobs drawn as
// vertical strips in GPU order (a job on the whole node fills the cell, the
// idle rest in the idle colour), restoring strips hatched, the hovered
// job's nodes outlined. Moves are listed under the map but not outlined,
// and a shared GPU shows its first slice.
import { segmentsOnGpu, moveSources } from './timeline.js';
import { jobColor, jobColors, poolPalette, NO_POOL_TINT, IDLE } from './colors.js';
import { poolRegions, quotaAt } from './quota.js';

const HEADER = 16; // CSS px per group header

/** Above this many GPUs the map draws one cell per node (outside the pool view). */
export const NODE_VIEW_GPUS = 4096;

export class GpuMap {
  constructor(canvas, layout) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.layout = layout;
    this.n = layout.total_gpus;
    this.cellX = new Float32Array(this.n);
    this.cellY = new Float32Array(this.n);
    this.size = 8;
    this.hatch = null;
    this.moved = [];
    this.regions = null; // pool view: poolRegions(...)
    this.at = null; // pool view: the last quotaAt(...) drawn
    this.nodeView = this.n > NODE_VIEW_GPUS;
  }

  /** Switches to the pool view: one region per pool (call resize after). */
  setPools(pools) {
    const n = this.layout.total_gpus;
    const r = poolRegions(pools, n);
    const groups = [];
    for (let p = 0; p <= r.P; p++) {
      if (!r.cap[p]) continue;
      const nodes = [];
      for (let k = 0; k < r.cap[p]; k += 8) nodes.push({ first_gpu: r.first[p] + k, gpus: Math.min(8, r.cap[p] - k) });
      const name = p < r.P ? `pool ${pools[p].name}` : 'outside every pool';
      groups.push({ kind: name, label: `quota ${r.cap[p]}`, gpus: r.cap[p], nodes, pool: p < r.P ? p : -1 });
    }
    this.physical = this.physical || this.layout;
    this.layout = { ...this.physical, groups };
    this.regions = r;
    this.nodeView = false;
    this.pools = pools;
    this.palette = poolPalette(pools);
  }

  /** Lays the cells out in `width` CSS px, as large as fits in `maxHeight`. */
  resize(width, maxHeight) {
    const dpr = window.devicePixelRatio || 1;
    let placed = null;
    for (let c = 26; c >= 2; c--) {
      placed = this.place(width, c);
      if (placed.height <= maxHeight) break;
    }
    this.size = placed.c;
    this.gap = placed.gap;
    this.headers = placed.headers;
    this.nodes = placed.nodes;
    this.cssW = width;
    this.cssH = placed.height;
    this.dpr = dpr;
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${placed.height}px`;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(placed.height * dpr);
    this.hatch = null;
  }

  place(width, c) {
    if (this.nodeView) return this.placeNodes(width, c);
    const gap = c >= 8 ? 2 : 1;
    const nodeGap = Math.max(3, Math.round(c / 2));
    const headers = [];
    const nodes = [];
    let y = 0;
    for (const g of this.layout.groups) {
      const pool = g.pool ?? -1;
      const text = pool >= 0 ? `${g.kind} · quota ${g.gpus}` : width < 300 ? `${g.kind} · ${g.gpus} GPUs` : `${g.kind} · ${g.label} · ${g.gpus} GPUs`;
      // Narrow maps (phones) give a pool's header two lines: name and quota,
      // then its own / lent / borrowed counts, so none is cut off.
      const two = pool >= 0 && width < 380;
      headers.push({ y, pool, text, two });
      y += HEADER * (two ? 2 : 1);
      let x = 0;
      let rowH = 0;
      for (const node of g.nodes) {
        const cols = Math.min(node.gpus, 8);
        const rows = Math.ceil(node.gpus / 8);
        const w = cols * (c + gap) - gap + 2;
        const h = rows * (c + gap) - gap + 2;
        if (x > 0 && x + w > width) { x = 0; y += rowH + nodeGap; rowH = 0; }
        nodes.push({ x, y, w, h, pool });
        for (let k = 0; k < node.gpus; k++) {
          const g2 = node.first_gpu + k;
          this.cellX[g2] = x + 1 + (k % 8) * (c + gap);
          this.cellY[g2] = y + 1 + Math.floor(k / 8) * (c + gap);
        }
        x += w + nodeGap;
        rowH = Math.max(rowH, h);
      }
      y += rowH + nodeGap + 2;
    }
    return { c, gap, headers, nodes, height: Math.ceil(y) };
  }

  /** Node view: one c-px cell per node, rows of nodes under each type's header. */
  placeNodes(width, c) {
    const gap = c >= 8 ? 2 : 1;
    const headers = [];
    const nodes = [];
    let y = 0;
    for (const g of this.layout.groups) {
      headers.push({ y, pool: -1, text: `${g.kind} · ${g.label} · ${g.gpus} GPUs in ${g.nodes.length} nodes (one cell per node)` });
      y += HEADER;
      const perRow = Math.max(1, Math.floor((width + gap) / (c + gap)));
      g.nodes.forEach((node, i) => {
        const x = (i % perRow) * (c + gap);
        const ny = y + Math.floor(i / perRow) * (c + gap);
        nodes.push({ x, y: ny, w: c, h: c, pool: -1, first: node.first_gpu, gpus: node.gpus });
        for (let k = 0; k < node.gpus; k++) {
          this.cellX[node.first_gpu + k] = x + (k * c) / node.gpus;
          this.cellY[node.first_gpu + k] = ny;
        }
      });
      y += Math.ceil(g.nodes.length / perRow) * (c + gap) + 6;
    }
    return { c, gap, headers, nodes, height: Math.ceil(y) };
  }

  pattern() {
    if (this.hatch) return this.hatch;
    const p = document.createElement('canvas');
    const k = Math.max(4, Math.round(6 * this.dpr));
    p.width = p.height = k;
    const g = p.getContext('2d');
    g.strokeStyle = 'rgba(255,255,255,0.75)';
    g.lineWidth = Math.max(1, this.dpr * 1.4);
    g.beginPath();
    g.moveTo(0, k); g.lineTo(k, 0);
    g.moveTo(-k / 2, k / 2); g.lineTo(k / 2, -k / 2);
    g.moveTo(k / 2, k * 1.5); g.lineTo(k * 1.5, k / 2);
    g.stroke();
    this.hatch = this.ctx.createPattern(p, 'repeat');
    return this.hatch;
  }

  /** Draws the cluster at time t for `run` (null: all idle). */
  draw(run, t, hoverJob = -1, moveWindow = 0) {
    const ctx = this.ctx;
    const d = this.dpr;
    ctx.setTransform(d, 0, 0, d, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.cssW, this.cssH);
    ctx.fillStyle = '#444';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    const tl = run && run.timeline;
    if (this.colorRun !== run) { this.colorRun = run; this.colorOf = jobColors(run); }
    const colorOf = this.colorOf || jobColor;
    if (this.nodeView) {
      this.drawNodes(tl, t, hoverJob);
      return;
    }
    const at = this.regions && tl && run.jobs.pool ? quotaAt(run, this.regions, t) : null;
    this.at = at;
    for (const h of this.headers) this.drawHeader(h, at);
    for (const nd of this.nodes) {
      ctx.fillStyle = nd.pool >= 0 ? this.palette[nd.pool].tint : NO_POOL_TINT;
      ctx.fillRect(nd.x, nd.y, nd.w, nd.h);
    }
    const c = this.size;
    const restoring = [];
    const hovered = [];
    const moving = [];
    const from = tl && moveWindow > 0 ? moveSources(run) : null;
    const moved = new Set();
    const lentCells = [];
    for (let g = 0; g < this.n; g++) {
      const segs = at ? (at.cells[g] >= 0 ? [at.cells[g]] : []) : tl ? segmentsOnGpu(tl, g, t) : [];
      if (at && at.lentTo[g] >= 0) lentCells.push(g);
      const s = segs.length ? segs[0] : -1;
      if (s >= 0 && tl.seg_share && tl.seg_share[s] < 1) {
        this.drawShared(tl, segs, g, c, hoverJob, hovered);
        continue;
      }
      if (s < 0) {
        ctx.fillStyle = IDLE;
      } else {
        const job = tl.seg_job[s];
        ctx.fillStyle = colorOf(job);
        if (t < tl.seg_busy_until[s]) restoring.push(g);
        if (job === hoverJob) hovered.push(g);
        if (from && from[s] >= 0 && t - tl.seg_start[s] < moveWindow) {
          moving.push(g, s);
          moved.add(s);
        }
      }
      ctx.fillRect(this.cellX[g], this.cellY[g], c, c);
    }
    if (restoring.length) {
      ctx.fillStyle = this.pattern();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      for (const g of restoring) ctx.fillRect(this.cellX[g] * d, this.cellY[g] * d, c * d, c * d);
      ctx.setTransform(d, 0, 0, d, 0, 0);
    }
    this.moved = [...moved];
    if (lentCells.length) this.markLent(lentCells, at);
    if (moving.length) {
      // Fades from full to faint over the window; white inside black reads on any job colour.
      for (let k = 0; k < moving.length; k += 2) {
        const g = moving[k], s = moving[k + 1];
        ctx.globalAlpha = 1 - 0.7 * Math.min(1, (t - tl.seg_start[s]) / moveWindow);
        ctx.lineWidth = Math.max(1.5, c / 5);
        ctx.strokeStyle = '#000';
        ctx.strokeRect(this.cellX[g] - 1, this.cellY[g] - 1, c + 2, c + 2);
        ctx.lineWidth = 1;
        ctx.strokeStyle = '#fff';
        if (c >= 6) ctx.strokeRect(this.cellX[g] + 1.5, this.cellY[g] + 1.5, c - 3, c - 3);
      }
      ctx.globalAlpha = 1;
    }
    if (hovered.length) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = Math.max(1.5, c / 6);
      for (const g of hovered) ctx.strokeRect(this.cellX[g] + 0.5, this.cellY[g] + 0.5, c - 1, c - 1);
    }
  }

  /** Node view: each node's GPUs as strips, a run of GPUs held by one job in one rectangle. */
  drawNodes(tl, t, hoverJob) {
    const ctx = this.ctx;
    const d = this.dpr;
    for (const h of this.headers) this.drawHeader(h, null);
    const restoring = [];
    const hovered = [];
    for (const nd of this.nodes) {
      ctx.fillStyle = IDLE;
      ctx.fillRect(nd.x, nd.y, nd.w, nd.h);
      if (!tl) continue;
      const strip = nd.w / nd.gpus;
      let k0 = 0, s0 = -1;
      const flush = (k) => {
        if (s0 >= 0) {
          ctx.fillStyle = jobColor(tl.seg_job[s0]);
          ctx.fillRect(nd.x + k0 * strip, nd.y, (k - k0) * strip, nd.h);
          if (t < tl.seg_busy_until[s0]) restoring.push(nd.x + k0 * strip, nd.y, (k - k0) * strip, nd.h);
          if (tl.seg_job[s0] === hoverJob) hovered.push(nd);
        }
      };
      for (let k = 0; k < nd.gpus; k++) {
        const segs = segmentsOnGpu(tl, nd.first + k, t);
        const s = segs.length ? segs[0] : -1;
        if (s !== s0) { flush(k); k0 = k; s0 = s; }
      }
      flush(nd.gpus);
    }
    this.moved = [];
    if (restoring.length) {
      ctx.fillStyle = this.pattern();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      for (let i = 0; i < restoring.length; i += 4) ctx.fillRect(restoring[i] * d, restoring[i + 1] * d, restoring[i + 2] * d, restoring[i + 3] * d);
      ctx.setTransform(d, 0, 0, d, 0, 0);
    }
    if (hovered.length) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      for (const nd of hovered) ctx.strokeRect(nd.x + 0.5, nd.y + 0.5, nd.w - 1, nd.h - 1);
    }
  }

  /** A region's header; in the pool view with its own / lent / borrowed counts. */
  drawHeader(h, at) {
    const ctx = this.ctx;
    let x = 0;
    if (h.pool >= 0) {
      ctx.fillStyle = this.palette[h.pool].strong;
      ctx.fillRect(0, h.y + 3, 9, 9);
      x = 13;
    }
    ctx.fillStyle = '#444';
    let counts = '';
    if (at && h.pool >= 0) {
      const p = h.pool;
      counts = `${at.own[p]} own`;
      if (at.lent[p]) counts += ` · ${at.lent[p]} lent`;
      if (at.borrowed[p]) counts += ` · ${at.borrowed[p]} borrowed`;
    }
    if (h.two) {
      ctx.fillText(h.text, x, h.y + 2);
      if (counts) ctx.fillText(counts, x, h.y + 2 + HEADER);
    } else {
      ctx.fillText(counts ? `${h.text} · ${counts}` : h.text, x, h.y + 2);
    }
  }

  /** Lent cells: a corner triangle in the borrowing pool's colour, edged in white. */
  markLent(cells, at) {
    const ctx = this.ctx;
    const k = Math.max(4, Math.round(this.size * 0.55));
    for (const g of cells) {
      const x = this.cellX[g], y = this.cellY[g];
      ctx.beginPath();
      ctx.moveTo(x, y); ctx.lineTo(x + k, y); ctx.lineTo(x, y + k); ctx.closePath();
      ctx.fillStyle = this.palette[at.lentTo[g]].strong;
      ctx.fill();
      ctx.strokeStyle = '#fff';
      ctx.lineWidth = 1;
      ctx.stroke();
    }
  }

  /** The segment drawn in cell g at the last draw (pool view), or undefined (physical view). */
  segmentInCell(g) {
    return this.at ? this.at.cells[g] : undefined;
  }

  /** A shared GPU's cell: one strip per slice, in start order, as wide as its fraction. */
  drawShared(tl, segs, g, c, hoverJob, hovered) {
    const ctx = this.ctx;
    const x0 = this.cellX[g], y = this.cellY[g];
    ctx.fillStyle = IDLE;
    ctx.fillRect(x0, y, c, c);
    let x = x0;
    for (const s of [...segs].sort((a, b) => a - b)) {
      const w = Math.max(1, c * Math.min(1, tl.seg_share[s]));
      ctx.fillStyle = (this.colorOf || jobColor)(tl.seg_job[s]);
      ctx.fillRect(x, y, Math.min(w, x0 + c - x), c);
      x += w;
      if (tl.seg_job[s] === hoverJob) hovered.push(g);
      if (x < x0 + c - 1) {
        ctx.fillStyle = '#fff';
        ctx.fillRect(x - 0.5, y, 1, c);
      }
    }
  }

  /** The GPU under CSS point (x, y), or -1. */
  hit(x, y) {
    if (this.nodeView) {
      for (const nd of this.nodes) {
        const dx = x - nd.x, dy = y - nd.y;
        if (dx >= 0 && dy >= 0 && dx < nd.w && dy < nd.h) return nd.first + Math.min(nd.gpus - 1, Math.floor((dx / nd.w) * nd.gpus));
      }
      return -1;
    }
    const c = this.size + this.gap / 2;
    for (let g = 0; g < this.n; g++) {
      const dx = x - this.cellX[g], dy = y - this.cellY[g];
      if (dx >= 0 && dy >= 0 && dx < c && dy < c) return g;
    }
    return -1;
  }
}

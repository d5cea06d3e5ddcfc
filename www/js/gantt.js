// Per-job Gantt view: one swim lane per job (arrival order). A thin grey
// line spans the job's life (waiting), bars show it holding GPUs, the
// restore part of a bar is pale, and a dark triangle marks each restart, so
// preemptions (gaps in the bars) and restarts are visible at a glance. A
// job with a due date has a tick there: green if it finished by then, red if not;
// a job whose completion was predicted at arrival has a blue tick at that promise;
// in runs with pools a hollow diamond marks where the job finished under
// per-pool FCFS (green line to it: earlier here, red: later).
// Only the lanes in view are drawn; the canvas sticks inside a scroller.
// With many jobs the view zooms to a time window around the clock (about
// 400 jobs' worth of the run) and follows it: when the clock moves, the
// lanes scroll to the jobs that arrived at the window's start.
import { jobColors } from './colors.js';

const AXIS = 22;

export class Gantt {
  constructor(scroller, canvas, spacer) {
    this.scroller = scroller;
    this.canvas = canvas;
    this.spacer = spacer;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.run = null;
    // Cached so that drawing a frame never forces a synchronous layout.
    this.scrollTop = 0;
    scroller.addEventListener('scroll', () => {
      this.scrollTop = scroller.scrollTop;
      if (this.onScroll) this.onScroll();
    }, { passive: true });
  }

  setRun(run, t0, t1, width) {
    this.run = run;
    this.colorOf = jobColors(run);
    this.t0 = t0;
    this.t1 = t1 > t0 ? t1 : t0 + 1;
    const n = run ? run.jobs.arrival.length : 0;
    this.n = n;
    this.lane = n <= 40 ? 14 : n <= 150 ? 7 : n <= 1000 ? 3 : 2;
    this.gutter = this.lane >= 14 ? 64 : 0;
    const dpr = window.devicePixelRatio || 1;
    this.dpr = dpr;
    this.cssW = width;
    this.cssH = Math.min(340, n * this.lane + AXIS + 4);
    this.spacer.style.height = `${Math.max(0, n * this.lane + AXIS + 4 - this.cssH)}px`;
    this.scroller.style.height = `${this.cssH}px`;
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${this.cssH}px`;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(this.cssH * dpr);
    this.scrollTop = this.scroller.scrollTop;
    this.window = n > 400 ? (this.t1 - this.t0) * 400 / n : 0;
    this.v0 = this.t0;
    this.v1 = this.t1;
    this.lastT = NaN;
  }

  /** The visible time range at clock t (the whole run unless zoomed). */
  view(t) {
    if (!this.window) { this.v0 = this.t0; this.v1 = this.t1; return; }
    const w = this.window;
    this.v0 = Math.max(this.t0, Math.min(t - w * 0.25, this.t1 - w));
    this.v1 = this.v0 + w;
  }

  /** Zoomed: scroll to the first job arriving in the window (binary search). */
  follow() {
    const a = this.run.jobs.arrival;
    let lo = 0, hi = a.length;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < this.v0) lo = m + 1; else hi = m; }
    const top = Math.max(0, lo - 2) * this.lane;
    if (Math.abs(top - this.scrollTop) >= this.lane) {
      this.scroller.scrollTop = top;
      this.scrollTop = this.scroller.scrollTop;
    }
  }

  x(t) {
    return this.gutter + (t - this.v0) / (this.v1 - this.v0) * (this.cssW - this.gutter - 8);
  }

  timeAt(px) {
    return this.v0 + (px - this.gutter) / (this.cssW - this.gutter - 8) * (this.v1 - this.v0);
  }

  draw(t, hoverJob = -1) {
    const ctx = this.ctx, d = this.dpr;
    ctx.setTransform(d, 0, 0, d, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.cssW, this.cssH);
    const run = this.run;
    if (!run) return;
    const tl = run.timeline, jobs = run.jobs, L = this.lane;
    this.view(t);
    if (this.window && t !== this.lastT) this.follow();
    this.lastT = t;
    const first = Math.floor(this.scrollTop / L);
    const rows = Math.ceil((this.cssH - AXIS) / L) + 1;
    const last = Math.min(this.n, first + rows);
    const off = -(this.scrollTop - first * L);
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let j = first; j < last; j++) {
      const y = off + (j - first) * L;
      if (j === hoverJob) { ctx.fillStyle = '#fff3c4'; ctx.fillRect(0, y, this.cssW, L); }
      const a = this.x(jobs.arrival[j]);
      const f = jobs.finish[j];
      const e = this.x(f === f ? f : run.end_time);
      ctx.fillStyle = '#9aa0a8';
      ctx.fillRect(a, y + L / 2 - 0.5, Math.max(1, e - a), 1);
      const col = this.colorOf(j);
      let prevRestarts = 0;
      // Bar height follows the job's GPU share (its largest share = full
      // lane), so elastic policies show shares growing and shrinking.
      let most = 1;
      for (let k = tl.job_offsets[j]; k < tl.job_offsets[j + 1]; k++) most = Math.max(most, tl.seg_gpu_count[tl.job_segs[k]]);
      const full = Math.max(1, L - (L > 4 ? 2 : 0));
      for (let k = tl.job_offsets[j]; k < tl.job_offsets[j + 1]; k++) {
        const s = tl.job_segs[k];
        const x0 = this.x(tl.seg_start[s]);
        const xb = this.x(tl.seg_busy_until[s]);
        const x1 = this.x(tl.seg_end[s]);
        const h = Math.max(1, full * tl.seg_gpu_count[s] / most);
        const yy = y + (L - full) / 2 + (full - h);
        ctx.globalAlpha = 0.4;
        ctx.fillStyle = col;
        ctx.fillRect(x0, yy, Math.max(0.5, xb - x0), h);
        ctx.globalAlpha = 1;
        ctx.fillRect(xb, yy, Math.max(0.5, x1 - xb), h);
        const r = tl.seg_restarts[s];
        if (r > prevRestarts && L >= 3) {
          ctx.fillStyle = '#111';
          ctx.beginPath();
          ctx.moveTo(x0 - 3, y);
          ctx.lineTo(x0 + 3, y);
          ctx.lineTo(x0, y + Math.min(6, L));
          ctx.fill();
          ctx.fillStyle = col;
        }
        prevRestarts = r;
      }
      // Promised date (a completion predicted at arrival, `engine.predict`):
      // a blue tick, as PCS tells each user when the job will finish.
      const promised = jobs.pred_jct ? jobs.arrival[j] + jobs.pred_jct[j] : NaN;
      if (promised === promised) {
        ctx.fillStyle = '#1565c0';
        ctx.fillRect(this.x(promised) - 1, y, 2, L);
      }
      // Runs with pools: where the job finished under per-pool FCFS (the
      // reference run; its JCT = speedup x JCT here), a hollow diamond, joined
      // to the finish here by a line green when this run is earlier, red later.
      const sp = jobs.speedup ? jobs.speedup[j] : NaN;
      if (sp > 0 && f === f && L >= 3) {
        const ref = jobs.arrival[j] + sp * jobs.jct[j];
        const xr = this.x(ref), xf = this.x(f), ym = y + L / 2;
        if (Math.abs(ref - f) > 1) {
          ctx.fillStyle = ref > f ? '#2e7d32' : '#c62828';
          ctx.fillRect(Math.min(xr, xf), ym - 0.75, Math.abs(xr - xf), 1.5);
        }
        const r = Math.min(4, L / 2);
        ctx.strokeStyle = Math.abs(ref - f) > 1 ? (ref > f ? '#2e7d32' : '#c62828') : '#555';
        ctx.lineWidth = 1.2;
        ctx.beginPath();
        ctx.moveTo(xr, ym - r); ctx.lineTo(xr + r, ym); ctx.lineTo(xr, ym + r); ctx.lineTo(xr - r, ym); ctx.closePath();
        ctx.stroke();
      }
      const due = jobs.due ? jobs.due[j] : NaN;
      if (due === due) {
        // Due date: a tick, red when the job finished (or is still running) after it.
        const late = !(f <= due);
        const x = this.x(due);
        ctx.fillStyle = late ? '#c62828' : '#2e7d32';
        ctx.fillRect(x - 1, y, 2, L);
        if (L >= 7) {
          ctx.beginPath();
          ctx.moveTo(x - 3, y);
          ctx.lineTo(x + 3, y);
          ctx.lineTo(x, y + 3);
          ctx.fill();
        }
      }
      if (this.gutter) {
        ctx.fillStyle = '#333';
        ctx.fillText(jobs.names[j].slice(0, 10), 2, y + L / 2);
      }
    }
    // Time axis and cursor.
    const ay = this.cssH - AXIS;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, ay, this.cssW, AXIS);
    ctx.fillStyle = '#555';
    ctx.fillRect(this.gutter, ay, this.cssW - this.gutter, 1);
    ctx.textBaseline = 'top';
    const span = (this.v1 - this.v0) / 3600;
    const step = niceStep(span / 6);
    for (let hh = Math.ceil(this.v0 / 3600 / step) * step; hh <= this.v1 / 3600; hh += step) {
      const x = this.x(hh * 3600);
      ctx.fillRect(x, ay, 1, 4);
      ctx.fillText(`${+hh.toFixed(2)} h`, x + 2, ay + 6);
    }
    const cx = this.x(t);
    ctx.fillStyle = '#d00';
    ctx.fillRect(cx - 0.5, 0, 1.5, ay);
  }

  /** {job, t} under CSS point (x, y). */
  hit(x, y) {
    const L = this.lane;
    const ay = this.cssH - AXIS;
    const time = this.timeAt(x);
    if (y >= ay) return { job: -1, t: time };
    const j = Math.floor((y + this.scrollTop) / L);
    return { job: j >= 0 && j < this.n ? j : -1, t: time };
  }
}

export function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

// One job's plan against what happened (STS's staircase, issue 18): GPUs
// held over the job's work (epochs for STS's jobs). Dashed: the plan the
// policy last announced before the clock (from the work done then to the
// job's declared maximum); solid: the GPUs the job actually held, up to the
// clock; grey lines: the declared maximum and, once the job is done, where
// it really stopped (early stopping). Shown when the run has plans.
import { jobColor } from './colors.js';

const PAD = { l: 40, r: 12, t: 10, b: 28 };

export class Staircase {
  constructor(canvas, caption) {
    this.canvas = canvas;
    this.caption = caption;
    this.ctx = canvas.getContext('2d');
    this.run = null;
    this.job = -1;
  }

  /** True when the run announced plans. */
  setRun(run) {
    this.run = run;
    const tl = run && run.timeline;
    this.has = !!(tl && tl.plan_job && tl.plan_job.length);
    this.job = this.has ? tl.plan_job[0] : -1;
    return this.has;
  }

  /** Shows `job` from now on if it has a plan. */
  select(job) {
    if (!this.has || job < 0 || job === this.job) return false;
    if (!Array.prototype.includes.call(this.run.timeline.plan_job, job)) return false;
    this.job = job;
    return true;
  }

  /** Index of the job's last plan made at or before t (-1 if none yet). */
  planAt(t) {
    const tl = this.run.timeline;
    let best = -1;
    for (let p = 0; p < tl.plan_job.length; p++) {
      if (tl.plan_job[p] === this.job && tl.plan_t[p] <= t) best = p;
    }
    return best;
  }

  draw(t) {
    const c = this.canvas, ctx = this.ctx;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    if (!this.has || this.job < 0) return;
    const run = this.run, tl = run.timeline, jobs = run.jobs, j = this.job;
    const max = jobs.declared_work[j], truth = jobs.work[j];
    // Actual steps: (from work, to work, GPUs) per segment begun by t.
    const actual = [];
    let top = 1;
    for (let k = tl.job_offsets[j]; k < tl.job_offsets[j + 1]; k++) {
      const s = tl.job_segs[k];
      if (tl.seg_start[s] > t) break;
      const a = tl.seg_progress_start[s] * truth;
      const end = tl.seg_end[s];
      let b = tl.seg_progress_end[s] * truth;
      if (!(end <= t)) {
        // Open at the clock: interpolate the progress made by t.
        const span = end - tl.seg_start[s];
        const f = span > 0 ? Math.min(1, (t - tl.seg_start[s]) / span) : 1;
        b = a + (b - a) * f;
      }
      const g = tl.seg_gpu_count[s] * tl.seg_share[s];
      actual.push([a, b, g]);
      top = Math.max(top, g);
    }
    const p = this.planAt(t);
    const plan = [];
    if (p >= 0) {
      let from = tl.plan_from[p];
      for (let k = tl.plan_offsets[p]; k < tl.plan_offsets[p + 1]; k++) {
        plan.push([from, tl.plan_until[k], tl.plan_gpus[k]]);
        from = tl.plan_until[k];
        top = Math.max(top, tl.plan_gpus[k]);
      }
    }
    const X = (v) => PAD.l + v / max * (w - PAD.l - PAD.r);
    const Y = (g) => h - PAD.b - g / top * (h - PAD.t - PAD.b);
    // Axes.
    ctx.strokeStyle = '#888';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(PAD.l, PAD.t); ctx.lineTo(PAD.l, h - PAD.b); ctx.lineTo(w - PAD.r, h - PAD.b);
    ctx.stroke();
    ctx.fillStyle = '#444';
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let g = 0; g <= top; g += Math.max(1, Math.ceil(top / 4))) ctx.fillText(String(g), 6, Y(g));
    ctx.textBaseline = 'top';
    for (const v of [0, max / 2, max]) ctx.fillText(String(+v.toFixed(1)), X(v) - 6, h - PAD.b + 5);
    ctx.fillText('work done (epochs for STS jobs) →  · GPUs ↑', PAD.l + 60, h - PAD.b + 15);
    // Where the job really stopped, once it has.
    const f = jobs.finish[j];
    if (f <= t && truth < max) {
      ctx.strokeStyle = '#999';
      ctx.setLineDash([2, 3]);
      ctx.beginPath(); ctx.moveTo(X(truth), PAD.t); ctx.lineTo(X(truth), h - PAD.b); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#666';
      ctx.fillText('stopped early', X(truth) + 3, PAD.t);
    }
    const steps = (list) => {
      ctx.beginPath();
      let started = false;
      for (const [a, b, g] of list) {
        if (!started) { ctx.moveTo(X(a), Y(g)); started = true; } else ctx.lineTo(X(a), Y(g));
        ctx.lineTo(X(b), Y(g));
      }
      ctx.stroke();
    };
    ctx.lineWidth = 3;
    ctx.strokeStyle = jobColor(j);
    steps(actual);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = '#111';
    ctx.setLineDash([6, 4]);
    steps(plan);
    ctx.setLineDash([]);
    const planned = p >= 0 ? ` · plan made at ${(tl.plan_t[p] / 3600).toFixed(2)} h` : ' · no plan yet';
    this.caption.textContent = `${jobs.names[j]}: ${jobs.models[jobs.model[j]]}${planned}`;
  }
}

// The "Why this, now?" section (issue 49): the card of the job the user
// pinned (js/whycard.js), the "why not started?" inspector when it waits
// (js/inspector.js) and the queue in the policy's own order at the clock
// (js/policyqueue.js), all from the "why" worker (js/explainer.js). It
// follows the animation clock: a new question goes out when the policy call
// in force may have changed, at most one per view at a time. It asks nothing
// until the user picks a job or a policy: a question runs the policy again
// in the why worker, which should not compete with the comparison unasked.
import { whyCardHtml, jobState, esc } from './whycard.js';
import { inspectorHtml } from './inspector.js';
import { policyQueueHtml } from './policyqueue.js';
import { segmentOfJob, segmentOnGpu, queueAt } from './timeline.js';

export class WhyView {
  /**
   * `ctx`: {client: WhyClient, runs(): Map(label -> run), key(label),
   * spec(label), totalGpus(), onSelect(label, job)}.
   */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.policy = null;
    this.job = -1;
    this.t = NaN;
    this.card = root.querySelector('#why-card');
    this.inspector = root.querySelector('#why-inspector');
    this.queue = root.querySelector('#why-queue');
    this.sel = root.querySelector('#why-policy');
    this.input = root.querySelector('#why-job');
    this.sel.addEventListener('change', () => this.select(this.sel.value, this.job));
    const show = () => {
      const run = this.run();
      if (!run) return;
      const v = this.input.value.trim();
      if (!v) { this.select(this.sel.value, -1); return; } // the policy's queue alone
      const names = run.result.jobs.names;
      let j = names.indexOf(v);
      if (j < 0 && /^\d+$/.test(v) && Number(v) < names.length) j = Number(v);
      if (j < 0) { this.card.innerHTML = `<p class="why-error" role="alert">No job named or numbered '${esc(v)}' in this run.</p>`; return; }
      this.select(this.sel.value, j);
    };
    root.querySelector('#why-show').addEventListener('click', show);
    this.input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); show(); } });
    this.queue.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-job]');
      if (b) this.select(this.policy, Number(b.dataset.job));
    });
  }

  run() { return this.policy ? this.ctx.runs().get(this.policy) : null; }

  /** A new comparison: the policies to choose from, nothing selected. */
  reset(labels) {
    this.sel.innerHTML = labels.map((p) => `<option value="${esc(p)}">${esc(p)}</option>`).join('');
    this.policy = labels[0] || null;
    this.job = -1;
    this.t = NaN;
    this.active = false;
    this.card.innerHTML = '<p class="hint">No job picked yet. Show with an empty job field lists the policy\'s queue alone.</p>';
    this.inspector.innerHTML = '';
    this.inspector.hidden = true;
    this.queue.innerHTML = '';
    this.root.hidden = false;
  }

  /** Shows job `job` of run `label` (job -1: only the policy's queue). */
  select(label, job) {
    if (!this.ctx.runs().has(label)) return;
    this.active = true;
    this.policy = label;
    this.job = job;
    this.sel.value = label;
    const run = this.run();
    if (job >= 0 && run) this.input.value = run.result.jobs.names[job];
    this.t = NaN;
    this.update(this.lastT ?? 0);
    if (this.ctx.onSelect) this.ctx.onSelect(label, job);
  }

  /** Follows the clock (called with every queue refresh of the page). */
  update(t) {
    this.lastT = t;
    const run = this.run();
    if (!this.active || !run || t === this.t) return;
    this.t = t;
    const key = this.ctx.key(this.policy), spec = this.ctx.spec(this.policy);
    const label = this.policy, job = this.job;
    const client = this.ctx.client;
    const stale = () => label !== this.policy || job !== this.job;
    if (!this.queue.innerHTML) this.queue.innerHTML = '<p class="hint">asking the policy…</p>';
    client.latest('queue', key, spec, 'call', { at: t }).then((call) => {
      if (call === undefined) return; // replaced by a newer question
      if (stale()) return;
      this.queue.innerHTML = policyQueueHtml(call, run.result.jobs.names, label, job, queueAt(run.result, t, 200).list);
      this.queue.dataset.t = String(t);
      this.queue.dataset.callT = call ? String(call.call_t) : '';
    }, (err) => { this.queue.innerHTML = `<p class="why-error" role="alert">${esc(err.text || err)}</p>`; });
    if (job < 0) return;
    if (!this.card.dataset.job || Number(this.card.dataset.job) !== job) this.card.innerHTML = '<p class="hint">asking the policy…</p>';
    client.latest('card', key, spec, 'explain', { job, at: t }).then((e) => {
      if (e === undefined || stale()) return;
      const state = jobState(run.result, job, t, segmentOfJob);
      this.card.innerHTML = whyCardHtml(e, state, label, t);
      this.card.dataset.job = String(job);
      this.card.dataset.t = String(t);
      this.inspector.innerHTML = inspectorHtml(e, run.result, state, t, this.ctx.totalGpus(), segmentOnGpu);
      this.inspector.hidden = !this.inspector.innerHTML;
    }, (err) => { this.card.innerHTML = `<p class="why-error" role="alert">${esc(err.text || err)}</p>`; });
  }
}

// The page's side of the "why" worker (js/whyworker.js): one worker of its
// own, so questions about decisions never wait behind the comparison's runs
// and never freeze the page. A question names a run by `key` (the batch and
// the policies entry) and carries its `spec` ({trace, cluster, policy, sets,
// seed, fullModule}) so the worker can build the explainer on first use.
// Answers are cached per (key, question), and while a question of one kind
// is out only the latest next one waits (a playing clock asks often).

export class WhyClient {
  /** `module`: the core package's compiled module; `loadFull()`: the full package ({module, dir}). */
  constructor(module, loadFull) {
    this.module = module;
    this.loadFull = loadFull;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.cache = new Map(); // `${key}|${what}|${arg}` -> value
    this.lanes = new Map(); // kind -> {busy, next}
  }

  spawn() {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./whyworker.js', import.meta.url), { type: 'module' });
    w.onmessage = (ev) => {
      const { id, value, error } = ev.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (error) p.reject(error); else p.resolve(value);
    };
    w.postMessage({ type: 'init', module: this.module });
    this.worker = w;
    return w;
  }

  /** Drops every explainer and answer (a new comparison): the worker ends, its memory with it. */
  reset() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    for (const [, p] of this.pending) p.reject({ kind: 'cancelled', text: 'cancelled' });
    this.pending.clear();
    this.cache.clear();
    this.lanes.clear();
  }

  async post(msg) {
    const w = this.spawn();
    if (msg.spec && msg.spec.full) msg.spec = { ...msg.spec, fullModule: await this.loadFull() };
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ ...msg, id });
    });
  }

  /** A cached question: `what` = explain (arg {job, at}), call (arg {at}) or gauges. */
  ask(key, spec, what, arg = {}) {
    const ck = `${key}|${what}|${JSON.stringify(arg)}`;
    if (this.cache.has(ck)) return this.cache.get(ck);
    const p = this.post({ type: what, key, spec, ...arg });
    this.cache.set(ck, p);
    p.catch(() => this.cache.delete(ck));
    return p;
  }

  /**
   * Asks in a lane: while one question of the lane is out, a newer one
   * replaces any waiting one (the older waiting one resolves to undefined).
   */
  latest(lane, key, spec, what, arg) {
    let l = this.lanes.get(lane);
    if (!l) { l = { busy: false, next: null }; this.lanes.set(lane, l); }
    return new Promise((resolve, reject) => {
      if (l.next) l.next.resolve(undefined);
      l.next = { key, spec, what, arg, resolve, reject };
      this.pump(l);
    });
  }

  pump(l) {
    if (l.busy || !l.next) return;
    const q = l.next;
    l.next = null;
    l.busy = true;
    this.ask(q.key, q.spec, q.what, q.arg).then(q.resolve, q.reject).finally(() => { l.busy = false; this.pump(l); });
  }

  /** Runs a policy to the end (the what-if editor's edited run); not cached. */
  run(spec) {
    return this.post({ type: 'run', spec });
  }
}

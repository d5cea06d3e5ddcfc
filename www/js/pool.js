// Runs policies in Web Workers: one worker per policy when the machine has
// the cores (hardwareConcurrency - 1 workers, at least one, so the main
// thread keeps a core for the page), each initialised once with the
// compiled WebAssembly.Module the page already fetched. Policies that only
// the full package has (the catalog's `full_package`) run in it: the pool
// fetches and compiles it once, the first time one of them is asked for.
import { baseOf } from './state.js';

let nextId = 1;

export function workerCount(nPolicies) {
  const cores = navigator.hardwareConcurrency || 2;
  return Math.max(1, Math.min(nPolicies, cores - 1, 8));
}

/** Fetches and compiles a wasm file, streaming when the server allows it. */
export async function compileWasm(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch (_) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url.pathname || url}: HTTP ${res.status}`);
    return WebAssembly.compile(await res.arrayBuffer());
  }
}

/** A module using one SIMD128 instruction (i8x16.popcnt): valid only where WebAssembly SIMD is. */
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** `?simd=0`, read when the page loads (the page rewrites its URL to its own state later). */
const SIMD_OFF = new URLSearchParams(globalThis.location?.search || '').get('simd') === '0';

/** Which build of the full package this browser runs (see Pool.loadFull). */
export function fullPackageDir() {
  return !SIMD_OFF && WebAssembly.validate(SIMD_PROBE) ? 'pkg-full' : 'pkg-full-plain';
}

/** How often the page asks whether the full package's build is done. */
const FULL_POLL_MS = 2000;

/**
 * www/build-status.json as scripts/serve.sh writes it while it builds the full
 * packages behind the server ({full: building|ready|failed, since, step, log}),
 * or null when there is none (a static server, or nothing left to build).
 */
export async function buildStatus() {
  try {
    const r = await fetch(new URL('../build-status.json', import.meta.url), { cache: 'no-store' });
    return r.ok ? await r.json() : null;
  } catch (_) {
    return null;
  }
}

export class Pool {
  /** `fullOnly`: names of the policies that need the full package. */
  constructor(module, fullOnly = []) {
    this.module = module;
    this.fullOnly = new Set(fullOnly);
    this.fullModule = null; // promise, once asked for
    this.workers = [];
    this.owner = new Map(); // run id -> worker
    this.pending = new Map(); // request id -> resolve
    this.runs = new Map(); // run id -> batch, while the run is active
    this.batch = null;
  }

  spawn() {
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    w.busy = false;
    w.runId = null;
    w.ready = new Promise((resolve, reject) => {
      w.onmessage = (ev) => {
        if (ev.data.type === 'ready') { w.onmessage = (e) => this.onMessage(w, e.data); resolve(); }
        else if (ev.data.type === 'fatal') reject(ev.data.error);
      };
      w.onerror = (e) => reject({ kind: 'internal', text: `worker failed to start: ${e.message || e}` });
    });
    w.postMessage({ type: 'init', module: this.module });
    this.workers.push(w);
    return w;
  }

  /**
   * The full package ({module, dir}: compiled module and its directory),
   * fetched on the first call: the SIMD128 build (pkg-full) where the
   * browser has WebAssembly SIMD, else the same code without it
   * (pkg-full-plain; also with `?simd=0`, which the browser tests use).
   */
  loadFull() {
    if (!this.fullModule) {
      const dir = fullPackageDir();
      this.fullModule = this.fetchFull(dir).then((module) => {
        if (this.onFullLoaded) this.onFullLoaded();
        return { module, dir };
      });
      this.fullModule.catch(() => { this.fullModule = null; }); // retry on the next run
    }
    return this.fullModule;
  }

  /**
   * The full package's module. When it is not there while scripts/serve.sh is
   * still building it (www/build-status.json says so; the status is read only
   * then, so a static server without it logs no 404), waits for the build,
   * telling `onFullStatus(status)` what it waits for, and loads it when done.
   */
  async fetchFull(dir) {
    const url = new URL(`../${dir}/schedlab_bg.wasm`, import.meta.url);
    for (;;) {
      try {
        return await compileWasm(url);
      } catch (e) {
        const st = await buildStatus();
        if (st && st.full === 'building') {
          if (this.onFullStatus) this.onFullStatus(st);
          await new Promise((resolve) => { setTimeout(resolve, FULL_POLL_MS); });
          continue;
        }
        throw new Error(st && st.full === 'failed'
          ? `the build of the full package failed (see ${st.log || 'the build log'})`
          : `${dir}/schedlab_bg.wasm is not there (${e && e.message || e}); build it with bash scripts/build-wasm.sh full, or start the page with bash scripts/serve.sh, which builds it`);
      }
    }
  }

  ensure(n) {
    while (this.workers.length < n) this.spawn();
  }

  /** Parses trace text in a worker: resolves to {info} or {error}. */
  parse(name, text) {
    this.ensure(1);
    const w = this.workers.find((x) => !x.busy) || this.workers[0];
    const id = nextId++;
    return w.ready.then(() => new Promise((resolve) => {
      this.pending.set(id, resolve);
      w.postMessage({ type: 'parse', id, name, text });
    }));
  }

  /** The CLI's JSON for a finished run (a `results[i]` entry). */
  resultJson(runId) {
    const w = this.owner.get(runId);
    if (!w) return Promise.resolve(null);
    const id = nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      w.postMessage({ type: 'json', id, runId });
    });
  }

  /**
   * Runs each policy of `job` ({trace, cluster, policies, setsFor, seed}).
   * `h` gets onTrace(info), onProgress(policy, p), onResult(policy, res,
   * runId), onError(policy, err) and onDone(cancelled).
   */
  start(job, h) {
    if (this.batch) this.cancel();
    // Free the previous batch's finished runs.
    for (const w of this.workers) {
      const ids = [...this.owner.entries()].filter(([, o]) => o === w).map(([id]) => id);
      if (ids.length) w.postMessage({ type: 'forget', ids });
    }
    this.owner.clear();
    // Cheapest first (job.cost: a policy's rank by estimated cost), so a short run
    // never waits behind a long one; equal ranks keep the user's order.
    const cost = job.cost || (() => 0);
    const queue = job.policies.map((p, i) => [p, cost(p), i]).sort((a, b) => a[1] - b[1] || a[2] - b[2]).map(([p]) => p);
    const batch = {
      job, h, queue, active: new Map(), left: job.policies.length,
      cancelled: false, sawTrace: false,
    };
    this.batch = batch;
    this.ensure(workerCount(job.policies.length));
    const full = job.policies.some((p) => this.fullOnly.has(baseOf(p)))
      ? this.loadFull().then((m) => { batch.fullModule = m; })
      : Promise.resolve();
    const failFull = (e) => {
      const why = `could not load the full wasm package (${fullPackageDir()}/schedlab_bg.wasm): ${e && e.message || e}`;
      this.failQueued(batch, (p) => this.fullOnly.has(baseOf(p)), {
        kind: 'internal', file: '', line: 0, field: '', message: why, text: why,
      });
    };
    // Policies of the core package start at once; the others wait for the full package.
    for (const w of this.workers) w.ready.then(() => this.dispatch(w), (e) => this.failAll(e));
    full.then(() => { for (const w of this.workers) w.ready.then(() => this.dispatch(w)); }, failFull);
    return batch;
  }

  failAll(error) {
    if (this.batch) this.failQueued(this.batch, () => true, error);
  }

  /** Reports the queued policies of batch `b` that `which` picks as failed. */
  failQueued(b, which, error) {
    if (b !== this.batch) return;
    const failed = b.queue.filter(which);
    b.queue = b.queue.filter((p) => !which(p));
    for (const p of failed) b.h.onError(p, error);
    b.left -= failed.length;
    if (b.left === 0) this.finish(b);
  }

  dispatch(w) {
    const b = this.batch;
    if (!b || b.cancelled || w.busy || b.queue.length === 0) return;
    // The next policy this worker can take now: a full-package one once the module is in.
    const at = b.queue.findIndex((p) => !this.fullOnly.has(baseOf(p)) || b.fullModule);
    if (at < 0) return;
    const [policy] = b.queue.splice(at, 1);
    const id = nextId++;
    w.busy = true;
    w.runId = id;
    b.active.set(id, { policy, worker: w });
    this.runs.set(id, b);
    this.owner.set(id, w);
    if (b.h.onStart) b.h.onStart(policy);
    const j = b.job;
    const fullModule = this.fullOnly.has(baseOf(policy)) ? b.fullModule : undefined;
    w.postMessage({ type: 'run', id, trace: j.trace, cluster: j.cluster, policy: baseOf(policy), label: policy, sets: j.setsFor(policy), seed: j.seed, fullModule });
  }

  onMessage(w, m) {
    if (m.type === 'parsed' || m.type === 'json') {
      const resolve = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (resolve) resolve(m);
      return;
    }
    if (m.type === 'idle') {
      w.busy = false;
      w.runId = null;
      this.dispatch(w);
      return;
    }
    const b = this.runs.get(m.id);
    if (!b) return;
    const ended = m.type === 'result' || m.type === 'error';
    if (ended) { b.active.delete(m.id); this.runs.delete(m.id); }
    if (b !== this.batch) return; // a batch that was replaced: nothing to report
    switch (m.type) {
      case 'trace':
        if (!b.sawTrace) { b.sawTrace = true; b.h.onTrace(m.info); }
        break;
      case 'progress':
        b.h.onProgress(m.policy, m.progress);
        break;
      case 'result':
        b.h.onResult(m.policy, m.result, m.id);
        if (--b.left === 0) this.finish(b);
        break;
      case 'error':
        b.h.onError(m.policy, m.error);
        if (--b.left === 0) this.finish(b);
        break;
      default:
        break;
    }
  }

  finish(b) {
    if (this.batch === b) this.batch = null;
    b.h.onDone(b.cancelled);
  }

  /** Cancels the running batch: queued policies are dropped, running ones
   * stop at their next slice; a worker that does not answer within 1.5 s is
   * terminated and replaced. */
  cancel() {
    const b = this.batch;
    if (!b) return;
    b.cancelled = true;
    const cancelledErr = { kind: 'cancelled', text: 'cancelled', message: 'cancelled', file: '', line: 0, field: '' };
    for (const p of b.queue) b.h.onError(p, cancelledErr);
    b.left -= b.queue.length;
    b.queue = [];
    const active = [...b.active.entries()];
    for (const [id, { worker }] of active) worker.postMessage({ type: 'cancel', ids: [id] });
    setTimeout(() => {
      for (const [id, { policy, worker }] of active) {
        if (!b.active.has(id)) continue;
        b.active.delete(id);
        this.runs.delete(id);
        worker.terminate();
        this.workers = this.workers.filter((x) => x !== worker);
        if (this.batch === b) {
          b.h.onError(policy, cancelledErr);
          if (--b.left === 0) this.finish(b);
        } else if (this.batch && this.batch.queue.length) {
          const fresh = this.spawn();
          fresh.ready.then(() => this.dispatch(fresh), (e) => this.failAll(e));
        }
      }
    }, 1500);
    if (b.left === 0) this.finish(b);
  }
}

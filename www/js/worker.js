// A simulation worker: runs policies off the main thread.
//
// The page posts the compiled WebAssembly.Module once ('init'), then
// 'run' requests. A run is stepped in slices of about SLICE_MS; between
// slices the worker yields to its event loop, so a 'cancel' message is seen
// within one slice, and it posts progress at most every PROGRESS_MS.
// Results cross back as typed arrays in the transfer list (no copy).
// The page's core package runs most policies; a run of a policy that only the
// full package has carries that package's compiled module, instantiated here
// once, on first use.
import { initSync, Run, parse_trace, generated_trace_text, PcsProblem } from '../pkg/schedlab.js';

const SLICE_MS = 30;
const PROGRESS_MS = 100;

let ready = false;
let cancelled = new Set();
const finished = new Map(); // run id -> Run (kept for result_json)

// Yields to the event loop without the 4 ms clamp of nested setTimeout.
const yieldNow = () => new Promise((resolve) => {
  const ch = new MessageChannel();
  ch.port1.onmessage = () => resolve();
  ch.port2.postMessage(0);
});

function transferables(obj, out = []) {
  for (const v of Object.values(obj)) {
    if (ArrayBuffer.isView(v)) out.push(v.buffer);
    else if (v && typeof v === 'object' && !Array.isArray(v)) transferables(v, out);
  }
  return out;
}

// The panic hook writes a panic's message with console.error just before the
// trap; it is kept so that the error the page shows says what went wrong
// rather than the trap's name ("unreachable").
let lastPanic = '';
const consoleError = console.error.bind(console);
console.error = (...args) => {
  lastPanic = args.map(String).join(' ').split('\n').find((l) => l.trim()) || '';
  consoleError(...args);
};

function asError(e) {
  if (e && typeof e === 'object' && 'kind' in e) return e;
  const text = e instanceof WebAssembly.RuntimeError
    ? `internal error: the simulation stopped on a bug in schedlab${lastPanic ? ` (${lastPanic.slice(0, 300)})` : ` (WebAssembly trap: ${e.message})`}; the other policies' results stand, please report this link`
    : String(e && e.message || e);
  return { kind: 'internal', file: '', line: 0, field: '', message: text, text };
}

// PCS search problems this worker evaluates points of, by the search's key
// (one at a time: a new search replaces the old one's problem).
let pcsProblem = { key: null, problem: null };

function evaluatePcs(msg) {
  if (pcsProblem.key !== msg.key) {
    if (pcsProblem.problem) pcsProblem.problem.free();
    pcsProblem = { key: null, problem: null };
    const p = msg.problem;
    pcsProblem = { key: msg.key, problem: new PcsProblem(p.trace, p.text, p.cluster, p.objectives, p.sets, p.apps) };
  }
  return pcsProblem.problem.evaluate(msg.points);
}

let fullApi = null; // promise of the full package's glue, once instantiated

/** `full`: {module, dir} from Pool.loadFull (the glue of the build that was compiled). */
function fullPackage(full) {
  if (!fullApi) {
    fullApi = import(`../${full.dir}/schedlab.js`).then((api) => { api.initSync({ module: full.module }); return api; });
    fullApi.catch(() => { fullApi = null; }); // a later run may try again
  }
  return fullApi;
}

async function run(msg) {
  const { id, trace, cluster, sets, seed } = msg;
  // Messages name the run by its policies entry (a variant's label), the
  // simulation gets the policy itself.
  const policy = msg.label || msg.policy;
  let r;
  try {
    const RunIn = msg.fullModule ? (await fullPackage(msg.fullModule)).Run : Run;
    r = new RunIn(trace.name, trace.text || '', cluster, msg.policy, sets, BigInt(seed));
  } catch (e) {
    postMessage({ type: 'error', id, policy, error: asError(e) });
    return;
  }
  postMessage({ type: 'trace', id, policy, info: r.trace_info() });
  let budget = 2000;
  let lastPost = 0;
  try {
    for (;;) {
      const t0 = performance.now();
      const done = r.advance(budget);
      const dt = performance.now() - t0;
      // Aim each slice at SLICE_MS of work.
      if (dt > 0) budget = Math.max(200, Math.min(1e6, Math.round(budget * SLICE_MS / dt)));
      const now = performance.now();
      if (done || now - lastPost > PROGRESS_MS) {
        postMessage({ type: 'progress', id, policy, progress: r.progress() });
        lastPost = now;
      }
      if (done) break;
      await yieldNow();
      if (cancelled.has(id)) {
        cancelled.delete(id);
        r.free();
        postMessage({ type: 'error', id, policy, error: { kind: 'cancelled', file: '', line: 0, field: '', message: 'cancelled', text: 'cancelled' } });
        return;
      }
    }
    const res = r.result();
    // Plain data crosses the wasm boundary as JSON, where NaN and infinities are null;
    // metrics are numbers to the page (NaN shows as '–' and is never drawn).
    for (const [k, v] of Object.entries(res.metrics)) if (v === null) res.metrics[k] = NaN;
    finished.set(id, r);
    postMessage({ type: 'result', id, policy, result: res }, transferables(res));
  } catch (e) {
    try { r.free(); } catch (_) { /* already freed */ }
    postMessage({ type: 'error', id, policy, error: asError(e) });
  }
}

onmessage = async (ev) => {
  const msg = ev.data;
  switch (msg.type) {
    case 'init':
      try {
        initSync({ module: msg.module });
        ready = true;
        postMessage({ type: 'ready' });
      } catch (e) {
        postMessage({ type: 'fatal', error: asError(e) });
      }
      break;
    case 'run':
      if (!ready) { postMessage({ type: 'error', id: msg.id, policy: msg.label || msg.policy, error: asError('worker not initialised') }); break; }
      await run(msg);
      postMessage({ type: 'idle' });
      break;
    case 'cancel':
      for (const id of msg.ids) cancelled.add(id);
      break;
    case 'parse':
      try {
        postMessage({ type: 'parsed', id: msg.id, info: parse_trace(msg.name, msg.text) });
      } catch (e) {
        postMessage({ type: 'parsed', id: msg.id, error: asError(e) });
      }
      postMessage({ type: 'idle' });
      break;
    case 'generate':
      try {
        postMessage({ type: 'generated', id: msg.id, text: generated_trace_text(msg.generator, msg.jobs, BigInt(msg.seed)) });
      } catch (e) {
        postMessage({ type: 'generated', id: msg.id, error: asError(e) });
      }
      break;
    case 'pcs-eval':
      try {
        const f = evaluatePcs(msg);
        postMessage({ type: 'pcs-evaluated', id: msg.id, f }, [f.buffer]);
      } catch (e) {
        postMessage({ type: 'pcs-evaluated', id: msg.id, error: asError(e) });
      }
      break;
    case 'json': {
      const r = finished.get(msg.runId);
      try {
        postMessage({ type: 'json', id: msg.id, text: r ? r.result_json() : null });
      } catch (e) {
        postMessage({ type: 'json', id: msg.id, error: asError(e) });
      }
      break;
    }
    case 'forget':
      for (const id of msg.ids) {
        const r = finished.get(id);
        if (r) { r.free(); finished.delete(id); }
      }
      break;
    default:
      break;
  }
};

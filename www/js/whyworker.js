// The "why" worker: answers the page's questions about one policy's
// decisions (issue 49) off the main thread, so the page never freezes.
//
// For each run asked about it builds one wasm `Explainer` (the run again with
// every reason recorded; a few at most are kept) and then answers from it at
// once: one job's reasons at a time ('explain', the same JSON as
// `schedlab explain --format json`), every reason of the call at a time in
// the policy's own order ('call'), the gauges ('gauges'). It also runs the
// what-if editor's edited runs to the end ('run'). A policy only the full
// package has uses that package, instantiated here on first use.
import { initSync, Explainer, Run } from '../pkg/schedlab.js';

const KEEP = 4; // explainers kept (most recently used)
const explainers = new Map(); // key -> Explainer
let fullApi = null;

function fullPackage(full) {
  if (!fullApi) {
    fullApi = import(`../${full.dir}/schedlab.js`).then((api) => { api.initSync({ module: full.module }); return api; });
    fullApi.catch(() => { fullApi = null; });
  }
  return fullApi;
}

async function api(spec) {
  return spec.fullModule ? fullPackage(spec.fullModule) : { Explainer, Run };
}

function asError(e) {
  if (e && typeof e === 'object' && 'text' in e) return e;
  const text = String(e && e.message || e);
  return { kind: 'internal', file: '', line: 0, field: '', message: text, text };
}

async function explainer(key, spec) {
  let ex = explainers.get(key);
  if (ex) { explainers.delete(key); explainers.set(key, ex); return ex; }
  const { Explainer: E } = await api(spec);
  ex = new E(spec.trace.name, spec.trace.text || '', spec.cluster, spec.policy, spec.sets, BigInt(spec.seed));
  explainers.set(key, ex);
  while (explainers.size > KEEP) {
    const [old, e] = explainers.entries().next().value;
    explainers.delete(old);
    e.free();
  }
  return ex;
}

async function runToEnd(spec) {
  const { Run: R } = await api(spec);
  const r = new R(spec.trace.name, spec.trace.text || '', spec.cluster, spec.policy, spec.sets, BigInt(spec.seed));
  try {
    while (!r.advance(100000)) { /* to the end */ }
    const res = r.result();
    for (const [k, v] of Object.entries(res.metrics)) if (v === null) res.metrics[k] = NaN;
    return res;
  } finally {
    r.free();
  }
}

let ready = false;
let chain = Promise.resolve();
// One question at a time, in order (an explainer is built once per key).
onmessage = (ev) => { chain = chain.then(() => handle(ev.data)); };

async function handle(m) {
  if (m.type === 'init') {
    try { initSync({ module: m.module }); ready = true; } catch (e) { postMessage({ id: 0, error: asError(e) }); }
    return;
  }
  if (!ready) { postMessage({ id: m.id, error: asError('the why worker is not initialised') }); return; }
  try {
    let value;
    if (m.type === 'run') value = await runToEnd(m.spec);
    else {
      const ex = await explainer(m.key, m.spec);
      if (m.type === 'explain') value = JSON.parse(ex.explain(String(m.job), m.at));
      else if (m.type === 'call') value = JSON.parse(ex.call_at(m.at));
      else if (m.type === 'gauges') value = ex.gauges();
      else throw new Error(`unknown question '${m.type}'`);
    }
    postMessage({ id: m.id, value });
  } catch (e) {
    postMessage({ id: m.id, error: asError(e) });
  }
}

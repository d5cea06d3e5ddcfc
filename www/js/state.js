// The page state in the URL (see docs/PAGE.md, "URL state"):
//   ?trace=NAME|URL|upload:FILE &cluster=NAME|SPEC &policies=P1,P2
//   (an entry may be a variant, POLICY@KEY=VALUE[@KEY=VALUE...]: the policy
//   again with some of its parameters set, e.g. sia@solver=copter)
//   &set=OWNER.KEY=VALUE (repeated; only values that differ from defaults)
//   &seed=N &t=SECONDS &speed=X &gantt=POLICY &embed=1
// Every field is optional; missing ones take the defaults of the first
// bundled trace (its recommended cluster, policies and settings).

export const SPEEDS = [1, 10, 100, 1000, 10000, 100000];

export function defaults(catalog) {
  const t = catalog.traces[0];
  return {
    trace: t ? { kind: 'bundled', name: t.name } : { kind: 'none', name: '' },
    cluster: t ? t.cluster : (catalog.clusters[0] || {}).name,
    policies: t ? [...t.policies] : [catalog.policies[0].name],
    sets: t && t.params ? { ...t.params } : {},
    seed: 1,
    t: null,
    speed: null,
    gantt: null,
    embed: false,
  };
}

export function fromUrl(search, catalog) {
  const q = new URLSearchParams(search);
  const s = defaults(catalog);
  const tr = q.get('trace');
  if (tr) {
    if (catalog.traces.some((x) => x.name === tr)) s.trace = { kind: 'bundled', name: tr };
    else if (tr.startsWith('upload:')) s.trace = { kind: 'upload', name: tr.slice(7), text: null };
    else s.trace = { kind: 'url', url: tr, name: tr.split('/').pop() || tr, text: null };
    const b = catalog.traces.find((x) => x.name === tr);
    if (b && !q.get('cluster')) s.cluster = b.cluster;
    if (b && !q.get('policies')) s.policies = [...b.policies];
    if (b && b.params) s.sets = { ...b.params };
  }
  if (q.get('cluster')) s.cluster = q.get('cluster');
  if (q.get('policies')) s.policies = q.get('policies').split(',').map((p) => p.trim()).filter(Boolean);
  for (const e of q.getAll('set')) {
    const i = e.indexOf('=');
    if (i > 0) s.sets[e.slice(0, i)] = e.slice(i + 1);
  }
  const seed = Number(q.get('seed'));
  if (q.get('seed') && Number.isInteger(seed) && seed >= 0) s.seed = seed;
  const t = Number(q.get('t'));
  if (q.get('t') && Number.isFinite(t)) s.t = t;
  const sp = Number(q.get('speed'));
  if (q.get('speed') && sp > 0) s.speed = sp;
  s.gantt = q.get('gantt');
  s.embed = q.get('embed') === '1';
  return s;
}

export function toUrl(s) {
  const q = new URLSearchParams();
  if (s.trace.kind === 'bundled') q.set('trace', s.trace.name);
  else if (s.trace.kind === 'url') q.set('trace', s.trace.url);
  else if (s.trace.kind === 'upload') q.set('trace', `upload:${s.trace.name}`);
  q.set('cluster', s.cluster);
  q.set('policies', s.policies.join(','));
  for (const [k, v] of Object.entries(s.sets).sort()) q.append('set', `${k}=${v}`);
  if (s.seed !== 1) q.set('seed', String(s.seed));
  if (s.t != null) q.set('t', String(Math.round(s.t)));
  if (s.speed != null) q.set('speed', String(s.speed));
  if (s.gantt) q.set('gantt', s.gantt);
  if (s.embed) q.set('embed', '1');
  return `?${q.toString().replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%40/g, '@').replace(/%3D/g, '=')}`;
}

/** The policy of a policies entry: `sia` for both `sia` and the variant `sia@solver=copter`. */
export const baseOf = (entry) => entry.split('@')[0];

/** A variant's own settings as `POLICY.KEY=VALUE` (none for a plain policy). */
export function variantSets(entry) {
  const [base, ...own] = entry.split('@');
  return own.filter((e) => e.indexOf('=') > 0).map((e) => `${base}.${e}`);
}

/** `OWNER.KEY=VALUE` entries that apply to a policies entry: the page's for its
 * policy and the engine, then a variant's own, which replace the page's. */
export function setsFor(sets, entry) {
  const base = baseOf(entry);
  const own = variantSets(entry);
  const mine = new Set(own.map((e) => e.slice(0, e.indexOf('='))));
  return Object.entries(sets)
    .filter(([k]) => (k.startsWith(`${base}.`) || k.startsWith('engine.')) && !mine.has(k))
    .map(([k, v]) => `${k}=${v}`)
    .concat(own);
}

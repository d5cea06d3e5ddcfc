// The page state in the URL (see docs/PAGE.md, "URL state"):
//   ?trace=NAME|URL|upload:FILE &cluster=NAME|SPEC &policies=P1,P2
//   (an entry may be a variant, POLICY@KEY=VALUE[@KEY=VALUE...]: the policy
//   again with some of its parameters set, e.g. sia@solver=copter)
//   &set=OWNER.KEY=VALUE (repeated; only values that differ from defaults)
//   &seed=N &t=SECONDS &speed=X &gantt=POLICY &base=POLICY &embed=1
//   &whatif=POLICY &edit=JOB.FIELD=VALUE;OWNER.KEY=VALUE (the what-if
//   editor's edits, js/whatif.js; checked there, where a bad one is named)
// Every field is optional; missing ones take the defaults of the first
// bundled trace (its recommended cluster, policies and settings). The policy
// order is the user's (the first is the default baseline). Entries the page
// cannot use are not dropped silently: fromUrl lists them in `dropped`
// ({field, entry, why}) and the page names each in a banner.

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
    base: null,
    embed: false,
    whatif: null,
    edit: '',
    dropped: [],
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
  if (q.get('policies')) {
    const asked = q.get('policies').split(',').map((p) => p.trim()).filter(Boolean);
    const kept = [];
    for (const p of asked) {
      const why = policyProblem(catalog, p);
      if (why) s.dropped.push({ field: 'policies', entry: p, why });
      else if (!kept.includes(p)) kept.push(p);
    }
    if (kept.length) s.policies = kept;
  }
  for (const e of q.getAll('set')) {
    const why = setProblem(catalog, e);
    if (why) { s.dropped.push({ field: 'set', entry: e, why }); continue; }
    const i = e.indexOf('=');
    s.sets[e.slice(0, i)] = e.slice(i + 1);
  }
  const seed = Number(q.get('seed'));
  if (q.get('seed') && Number.isInteger(seed) && seed >= 0) s.seed = seed;
  const t = Number(q.get('t'));
  if (q.get('t') && Number.isFinite(t)) s.t = t;
  const sp = Number(q.get('speed'));
  if (q.get('speed') && sp > 0) s.speed = sp;
  s.gantt = q.get('gantt');
  s.base = q.get('base');
  if (s.base && !s.policies.includes(s.base)) {
    s.dropped.push({ field: 'base', entry: s.base, why: 'not one of the policies compared' });
    s.base = null;
  }
  s.embed = q.get('embed') === '1';
  s.edit = q.get('edit') || '';
  s.whatif = q.get('whatif');
  if (s.whatif && !s.policies.includes(s.whatif)) {
    s.dropped.push({ field: 'whatif', entry: s.whatif, why: 'not one of the policies compared' });
    s.whatif = null;
  }
  return s;
}

/** Why a policies entry (`POLICY` or `POLICY@KEY=VALUE...`) cannot run ('' if it can). */
export function policyProblem(catalog, entry) {
  const [base, ...own] = entry.split('@');
  const p = catalog.policies.find((x) => x.name === base);
  if (!p) return `no policy named '${base}'`;
  for (const e of own) {
    const why = valueProblem(p.params, base, e);
    if (why) return why;
  }
  return '';
}

/** Why a `set` entry (`OWNER.KEY=VALUE`, OWNER = engine or a policy) cannot apply ('' if it can). */
export function setProblem(catalog, entry) {
  const i = entry.indexOf('=');
  const dot = entry.indexOf('.');
  if (i < 0 || dot < 0 || dot > i) return 'expected OWNER.KEY=VALUE (OWNER = engine or a policy)';
  const owner = entry.slice(0, dot);
  const params = owner === 'engine' ? catalog.engine : (catalog.policies.find((x) => x.name === owner) || {}).params;
  if (!params) return `no policy named '${owner}'`;
  return valueProblem(params, owner, entry.slice(dot + 1));
}

/** Why `KEY=VALUE` is not a valid setting of `owner`'s `params` ('' if it is). */
function valueProblem(params, owner, kv) {
  const i = kv.indexOf('=');
  const key = i > 0 ? kv.slice(0, i) : kv;
  const spec = params.find((s) => s.name === key);
  if (!spec) return `${owner} has no parameter '${key}'${params.length ? ` (it has ${params.map((s) => s.name).join(', ')})` : ''}`;
  if (i < 0) return `no value for ${owner}.${key}`;
  const v = kv.slice(i + 1);
  const k = spec.kind;
  if (k.type === 'choice' && !k.options.includes(v)) return `${owner}.${key} is one of ${k.options.join(', ')}`;
  if ((k.type === 'int' || k.type === 'float') && !(v.trim() !== '' && Number.isFinite(Number(v)))) return `${owner}.${key} takes a number`;
  if (k.type === 'bool' && !['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(v)) return `${owner}.${key} is true or false`;
  return '';
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
  if (s.base && s.base !== s.policies[0]) q.set('base', s.base);
  if (s.embed) q.set('embed', '1');
  if (s.edit) {
    if (s.whatif) q.set('whatif', s.whatif);
    q.set('edit', s.edit);
  }
  return `?${q.toString().replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%40/g, '@').replace(/%3D/g, '=').replace(/%3B/g, ';')}`;
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

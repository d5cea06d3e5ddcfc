// The input form, generated from the catalog (the registries): bundled
// traces, built-in clusters, policies and the parameter controls declared
// by each policy's ParamSpecs and the engine's. Nothing here lists a
// policy, trace or parameter by name.
import { policyColor, inkOn } from './colors.js';
import { baseOf } from './state.js';
import { PAPERS, paperOf } from './words.js';

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids) if (kid) e.append(kid);
  return e;
};

/** One control for a ParamSpec; `key` is `OWNER.NAME`. */
function paramControl(spec, key, onChange) {
  const id = `p-${key.replace(/[^a-z0-9_-]/gi, '_')}`;
  const k = spec.kind;
  let input;
  if (k.type === 'bool') {
    input = el('input', { type: 'checkbox', id });
    input.checked = spec.default === 'true';
  } else if (k.type === 'choice') {
    input = el('select', { id });
    for (const o of k.options) input.append(el('option', { value: o, text: o }));
    input.value = spec.default;
  } else if (k.type === 'list') {
    input = el('input', { type: 'text', id, inputmode: 'decimal', placeholder: 'comma-separated numbers' });
    input.value = spec.default;
  } else {
    input = el('input', {
      type: 'number', id, min: k.min, max: k.max,
      step: k.type === 'int' ? '1' : 'any', inputmode: k.type === 'int' ? 'numeric' : 'decimal',
    });
    input.value = spec.default;
  }
  input.dataset.key = key;
  input.dataset.default = spec.default;
  input.addEventListener('change', onChange);
  const range = k.type === 'float' || k.type === 'int' || k.type === 'list' ? ` [${k.min} … ${k.max}]` : '';
  const row = el('label', { class: 'param', for: id, title: `${spec.help}${range}` },
    el('span', { class: 'pname', text: spec.name }), input);
  return row;
}

function controlValue(input) {
  return input.type === 'checkbox' ? String(input.checked) : input.value.trim();
}

function setControl(input, v) {
  if (input.type === 'checkbox') input.checked = v === 'true' || v === '1' || v === 'yes' || v === 'on';
  else input.value = v;
}

function isDefault(input) {
  const v = controlValue(input), d = input.dataset.default;
  if (input.type === 'number') return Number(v) === Number(d);
  return v === d;
}

export class Controls {
  constructor(root, catalog, onChange) {
    this.root = root;
    this.catalog = catalog;
    this.onChange = onChange;
    this.uploaded = null; // {name, text, info}
    this.build();
  }

  build() {
    const c = this.catalog;
    const change = () => this.onChange();
    // Trace.
    this.traceSel = this.root.querySelector('#trace');
    const g = el('optgroup', { label: 'Bundled traces' });
    for (const t of c.traces) g.append(el('option', { value: `b:${t.name}`, text: `${t.name} (${t.jobs} jobs)`, title: t.description }));
    this.traceSel.append(g);
    this.traceSel.addEventListener('change', () => {
      const v = this.traceSel.value;
      if (v.startsWith('b:')) {
        const t = c.traces.find((x) => x.name === v.slice(2));
        if (t) {
          this.setCluster(t.cluster);
          this.setPolicies(t.policies);
          // The trace's recommended settings; those the previous trace set go back to
          // their defaults, the user's other settings stay.
          const prev = this.traceParams || {};
          const next = t.params || {};
          for (const input of this.root.querySelectorAll('[data-key]')) {
            const k = input.dataset.key;
            if (k in next) setControl(input, next[k]);
            else if (k in prev) setControl(input, input.dataset.default);
          }
          this.traceParams = next;
        }
      }
      this.showTraceInfo();
      change();
    });
    this.root.querySelector('#formats').textContent =
      `Formats (detected from the header): ${c.formats.map((f) => f.name).join(', ')}.`;
    this.root.querySelector('#formats').title = c.formats.map((f) => `${f.name}: ${f.description}`).join('\n');
    // Cluster.
    this.clusterSel = this.root.querySelector('#cluster');
    for (const cl of c.clusters) this.clusterSel.append(el('option', { value: cl.name, text: `${cl.name} (${cl.gpus} GPUs)`, title: cl.description }));
    this.clusterSel.append(el('option', { value: '', text: 'custom spec…' }));
    this.specInput = this.root.querySelector('#cluster-spec');
    this.clusterSel.addEventListener('change', () => {
      const cl = c.clusters.find((x) => x.name === this.clusterSel.value);
      if (cl) this.specInput.value = cl.spec;
      this.specInput.dataset.name = cl ? cl.name : '';
      change();
    });
    this.specInput.addEventListener('input', () => {
      const cl = c.clusters.find((x) => x.spec === this.specInput.value.trim() || x.name === this.specInput.value.trim());
      this.clusterSel.value = cl ? cl.name : '';
      this.specInput.dataset.name = cl ? cl.name : '';
    });
    this.specInput.addEventListener('change', change);
    // Policies with their parameters, grouped by the paper they come from, in
    // the order the user picks them (the first is the default baseline).
    const list = this.root.querySelector('#policies');
    this.policyBoxes = new Map();
    this.order = [];
    const groups = new Map(PAPERS.map((pp) => {
      const g = el('div', { class: 'paper', 'data-paper': pp.key, role: 'group', 'aria-label': pp.title }, el('h4', { class: 'paper-title', text: pp.title }));
      return [pp.key, g];
    }));
    c.policies.forEach((p, i) => {
      const box = el('input', { type: 'checkbox', id: `pol-${p.name}`, value: p.name });
      box.addEventListener('change', () => {
        this.order = this.order.filter((x) => x !== p.name);
        if (box.checked) this.order.push(p.name);
        this.syncPolicyColours();
        change();
      });
      const params = el('div', { class: 'params' });
      for (const s of p.params) params.append(paramControl(s, `${p.name}.${s.name}`, change));
      const item = el('div', { class: 'policy' },
        el('label', { class: 'pol', for: `pol-${p.name}`, title: `${p.description}\n${p.source}` },
          box, el('span', { class: 'chip' }), el('b', { text: p.name }), el('span', { class: 'ptitle', text: ` ${p.title}` }),
          p.knowledge === 'oracle'
            ? el('span', { class: 'oracle', text: 'oracle', title: 'uses oracle job lengths: the policy is told each job\'s true length' })
            : null),
        p.params.length ? params : null);
      item.dataset.index = i;
      item.dataset.words = `${p.name} ${p.title} ${p.description} ${p.source}`.toLowerCase();
      groups.get(paperOf(p)).append(item);
      this.policyBoxes.set(p.name, { box, item });
    });
    for (const g of groups.values()) if (g.children.length > 1) list.append(g);
    const filter = this.root.querySelector('#policy-filter');
    if (filter) filter.addEventListener('input', () => this.filterPolicies(filter.value));
    this.setupVariants(c, change);
    const eng = this.root.querySelector('#engine-params');
    for (const s of c.engine) eng.append(paramControl(s, `engine.${s.name}`, change));
    this.seed = this.root.querySelector('#seed');
    this.seed.addEventListener('change', change);
  }

  /** Shows the policies whose name, title, description, source or paper
   * contains every word of `text` (chosen ones always stay in view). */
  filterPolicies(text) {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    for (const g of this.root.querySelectorAll('#policies .paper')) {
      const paper = g.getAttribute('aria-label').toLowerCase();
      let shown = 0;
      for (const item of g.querySelectorAll('.policy')) {
        const hay = `${item.dataset.words} ${paper}`;
        const on = item.classList.contains('on') || words.every((w) => hay.includes(w));
        item.hidden = !on;
        if (on) shown++;
      }
      g.hidden = shown === 0;
    }
  }

  /** The chosen variants (entries with `@`), in the user's order. */
  get variants() {
    return this.order.filter((n) => n.includes('@'));
  }

  /** Variants (`POLICY@KEY=VALUE...`): a list with remove buttons and a field
   * that checks a new entry against the catalog; suggestions give every
   * value of every choice parameter. */
  setupVariants(c, change) {
    this.variantList = this.root.querySelector('#variant-list');
    this.variantChange = change;
    const suggest = this.root.querySelector('#variant-suggestions');
    for (const p of c.policies) {
      for (const s of p.params.filter((x) => x.kind.type === 'choice')) {
        for (const v of s.kind.options) suggest.append(el('option', { value: `${p.name}@${s.name}=${v}` }));
      }
    }
    const input = this.root.querySelector('#variant-entry');
    const add = () => {
      const entry = input.value.trim();
      const why = variantProblem(c, entry);
      input.setCustomValidity(why);
      input.title = why;
      if (why) { input.reportValidity(); return; }
      if (!this.order.includes(entry)) this.order.push(entry);
      input.value = '';
      this.renderVariants();
      change();
    };
    this.root.querySelector('#variant-add button').addEventListener('click', add);
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); add(); } });
    input.addEventListener('input', () => input.setCustomValidity(''));
  }

  renderVariants() {
    this.variantList.replaceChildren(...this.variants.map((v) => {
      const remove = el('button', { type: 'button', class: 'remove', text: '✕', title: `remove ${v}`, 'aria-label': `remove ${v}` });
      remove.addEventListener('click', () => {
        this.order = this.order.filter((x) => x !== v);
        this.renderVariants();
        this.variantChange();
      });
      const chip = el('span', { class: 'chip' });
      chip.style.background = policyColor(this.order.indexOf(v));
      return el('div', { class: 'variant' }, chip, el('code', { text: v }), remove);
    }));
  }

  /** Chips in each chosen policy's colour and its place in the order (1 = baseline by default). */
  syncPolicyColours() {
    for (const [name, { box, item }] of this.policyBoxes) {
      item.classList.toggle('on', box.checked);
      const k = this.order.indexOf(name);
      const chip = item.querySelector('.chip');
      chip.style.background = box.checked && k >= 0 ? policyColor(k) : 'transparent';
      chip.style.color = box.checked && k >= 0 ? inkOn(policyColor(k)) : '';
      chip.textContent = box.checked && k >= 0 ? String(k + 1) : '';
      chip.title = box.checked && k >= 0 ? `#${k + 1} in the comparison` : '';
    }
    if (this.variantList) this.renderVariants();
  }

  setCluster(name) {
    const cl = this.catalog.clusters.find((x) => x.name === name || x.spec === name);
    this.clusterSel.value = cl ? cl.name : '';
    this.specInput.value = cl ? cl.spec : name;
    this.specInput.dataset.name = cl ? cl.name : '';
  }

  setPolicies(names) {
    for (const [n, { box }] of this.policyBoxes) box.checked = names.includes(n);
    this.order = names.filter((n, i) => names.indexOf(n) === i && (n.includes('@') || this.policyBoxes.has(n)));
    this.syncPolicyColours();
  }

  /** Adds (or replaces) the uploaded trace and selects it. */
  setUploaded(up) {
    this.uploaded = up;
    let o = this.traceSel.querySelector('option[value="u:"]');
    if (!o) {
      o = el('option', { value: 'u:' });
      this.traceSel.prepend(o);
    }
    o.textContent = `${up.kind === 'url' ? '🔗' : '⬆'} ${up.name}${up.info ? ` (${up.info.jobs} jobs)` : ''}`;
    this.traceSel.value = 'u:';
    this.showTraceInfo();
  }

  showTraceInfo() {
    const box = this.root.querySelector('#trace-info');
    const v = this.traceSel.value;
    if (v === 'u:' && this.uploaded) {
      const i = this.uploaded.info;
      box.textContent = i ? `${i.format} format, ${i.jobs} jobs${i.skipped ? `, ${i.skipped} rows skipped` : ''}${i.notes.length ? ` · ${i.notes.join(' · ')}` : ''}` : '';
    } else {
      const t = this.catalog.traces.find((x) => `b:${x.name}` === v);
      box.textContent = t ? t.description : '';
      box.title = t ? t.source : '';
    }
  }

  /** Applies a page state to the form. */
  apply(s) {
    if (s.trace.kind === 'bundled') {
      this.traceSel.value = `b:${s.trace.name}`;
      this.traceParams = (this.catalog.traces.find((x) => x.name === s.trace.name) || {}).params || {};
    }
    else if (this.uploaded) this.traceSel.value = 'u:';
    this.setCluster(s.cluster);
    this.setPolicies(s.policies);
    for (const input of this.root.querySelectorAll('[data-key]')) {
      setControl(input, s.sets[input.dataset.key] ?? input.dataset.default);
    }
    this.seed.value = s.seed;
    this.showTraceInfo();
  }

  /** Reads the form: {trace, cluster, policies, sets, seed}. */
  read() {
    const v = this.traceSel.value;
    const trace = v === 'u:' && this.uploaded
      ? { kind: this.uploaded.kind, name: this.uploaded.name, url: this.uploaded.url, text: this.uploaded.text }
      : { kind: 'bundled', name: v.slice(2) };
    const policies = this.order.filter((n) => n.includes('@') || (this.policyBoxes.get(n) || {}).box?.checked);
    const sets = {};
    for (const input of this.root.querySelectorAll('[data-key]')) {
      const key = input.dataset.key;
      const owner = key.split('.')[0];
      if (owner !== 'engine' && !policies.some((p) => baseOf(p) === owner)) continue;
      if (!isDefault(input)) sets[key] = controlValue(input);
    }
    const seed = Math.max(0, Math.floor(Number(this.seed.value) || 0));
    return { trace, cluster: this.specInput.dataset.name || this.specInput.value.trim(), policies, sets, seed };
  }

  /** Marks the control of `OWNER.KEY` (or the cluster field) invalid. */
  markInvalid(key) {
    for (const x of this.root.querySelectorAll('.invalid')) x.classList.remove('invalid');
    if (!key) return;
    const t = key === 'cluster' ? this.specInput : this.root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (t) { t.classList.add('invalid'); t.focus(); }
  }
}

/** Why `entry` is not a valid variant of a catalog policy ('' if it is). */
export function variantProblem(catalog, entry) {
  const [base, ...own] = entry.split('@');
  const p = catalog.policies.find((x) => x.name === base);
  if (!p) return `unknown policy '${base}'`;
  if (!own.length) return `a variant sets parameters: ${base}@KEY=VALUE`;
  for (const e of own) {
    const i = e.indexOf('=');
    const spec = i > 0 ? p.params.find((s) => s.name === e.slice(0, i)) : null;
    if (!spec) return `'${e}': ${base} has no parameter ${i > 0 ? `'${e.slice(0, i)}'` : 'named here (use KEY=VALUE)'}; it has ${p.params.map((s) => s.name).join(', ') || 'none'}`;
    if (spec.kind.type === 'choice' && !spec.kind.options.includes(e.slice(i + 1))) return `'${e}': ${spec.name} is one of ${spec.kind.options.join(', ')}`;
  }
  return '';
}

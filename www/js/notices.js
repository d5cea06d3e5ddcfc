// Loud failures: banners that stay until the user acts or dismisses them
// (a link's uploaded trace that is not here, URL entries the page could not
// use, the full package still building), and error texts a person can act on
// (empty and header-only files, unrecognised headers, a worker that crashed).

import { esc } from './html.js';

/** Persistent banners by id in `root` (#notices). */
export class Notices {
  constructor(root) {
    this.root = root;
  }

  /**
   * Shows (or replaces) banner `id`: `html` text, `kind` warn|info, and
   * `actions` [{label, run}] as buttons; every banner can be dismissed.
   */
  show(id, html, { kind = 'warn', actions = [] } = {}) {
    let box = this.root.querySelector(`[data-notice="${id}"]`);
    if (!box) {
      box = document.createElement('div');
      box.dataset.notice = id;
      this.root.append(box);
    }
    box.className = `notice ${kind}`;
    box.setAttribute('role', kind === 'warn' ? 'alert' : 'status');
    box.innerHTML = `<div class="n-text">${html}</div><div class="n-actions"></div><button type="button" class="n-close" aria-label="Dismiss this message">×</button>`;
    const bar = box.querySelector('.n-actions');
    for (const a of actions) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = a.label;
      b.addEventListener('click', a.run);
      bar.append(b);
    }
    box.querySelector('.n-close').addEventListener('click', () => this.hide(id));
    return box;
  }

  hide(id) {
    const box = this.root.querySelector(`[data-notice="${id}"]`);
    if (box) box.remove();
  }

  has(id) {
    return !!this.root.querySelector(`[data-notice="${id}"]`);
  }
}

/** The accepted trace headers, one line per format (from the catalog's format descriptions). */
export function acceptedHeaders(catalog) {
  return catalog.formats.map((f) => `  • ${f.name}: ${f.description || '(see the formats list under the trace picker)'}`).join('\n');
}

/** Lines that hold something (not blank, not a # comment). */
function contentLines(text) {
  return text.split(/\r?\n/).map((l) => l.replace(/^\uFEFF/, '').trim()).filter((l) => l && !l.startsWith('#'));
}

/**
 * What is wrong with an uploaded file before it is parsed ('' if nothing):
 * empty, or a header with no job under it. Either way the text lists the
 * headers the page accepts.
 */
export function traceFileProblem(name, text, catalog) {
  const lines = contentLines(text);
  if (!lines.length) {
    return `${name} is empty: a trace is a header line and one line per job. Accepted headers:\n${acceptedHeaders(catalog)}`;
  }
  const json = lines[0].startsWith('[') || lines[0].startsWith('{');
  if (lines.length === 1 && !json) {
    return `${name}: line 1 is a header ('${lines[0].slice(0, 120)}') but no job follows it. Accepted headers:\n${acceptedHeaders(catalog)}`;
  }
  return '';
}

/**
 * An error ({kind, file, line, field, message, text}) in words a person can
 * act on: an unrecognised header lists the accepted ones (the wasm catalog
 * has no prose, so its own list is blank), and a WebAssembly trap
 * ("unreachable", a bug) says what happened instead of the trap's name.
 */
export function readableError(e, catalog) {
  if (!e || typeof e !== 'object') return { kind: 'internal', text: String(e) };
  const text = e.text || e.message || '';
  if (catalog && /unrecognised trace header/.test(text)) {
    const head = text.replace(/; expected one of:.*$/s, '');
    return { ...e, text: `${head}. Accepted headers:\n${acceptedHeaders(catalog)}` };
  }
  if (/\bunreachable\b|RuntimeError/.test(text) && !/^internal error/.test(text)) {
    return { ...e, kind: 'internal', text: `internal error: the simulation stopped on a bug in schedlab (WebAssembly trap: ${text}). The other policies' results stand; please report this link.` };
  }
  return e;
}

/** A banner's list of URL entries the page could not use, each named with the reason. */
export function droppedHtml(dropped) {
  return `This link has ${dropped.length === 1 ? 'an entry' : 'entries'} the page could not use, so ${dropped.length === 1 ? 'it was' : 'they were'} left out:<ul>${dropped.map((d) => `<li><code>${esc(d.field)}=${esc(d.entry)}</code>: ${esc(d.why)}</li>`).join('')}</ul>`;
}

// The queue in the policy's own order (issue 49): every job the policy
// looked at in its call at or before the clock, in the order it served them
// (the reasons' rank), with the key it ordered by, then the jobs it did not
// rank. A job's entry is a button that shows its "why" card.
import { esc, fmtT, fmtValue } from './whycard.js';

/** The ranked and unranked reasons of a call (`call`: the explainer's call JSON). */
export function policyOrder(call) {
  if (!call) return { ranked: [], unranked: [] };
  const ranked = call.reasons.filter((r) => r.rank !== null && r.rank !== undefined);
  const unranked = call.reasons.filter((r) => r.rank === null || r.rank === undefined);
  return { ranked, unranked };
}

const LIMIT = 40;

function item(r, names, selected) {
  const key = r.key ? ` · ${esc(r.key)} = <b>${esc(fmtValue(r.values[r.key]))}</b>` : '';
  const place = r.rank !== null && r.rank !== undefined ? `${r.rank + 1}. ` : '';
  return `<li><button type="button" class="why-pick${r.job === selected ? ' on' : ''}" data-job="${r.job}" aria-pressed="${r.job === selected}">${place}<b>${esc(names[r.job])}</b> <small>${esc(r.rule)}${key} · ${esc(fmtValue(r.gpus))} ${r.gpus === 1 ? 'GPU' : 'GPUs'}</small></button></li>`;
}

/**
 * The view's HTML for a call of a run whose job names are `names`;
 * `waiting`: the jobs waiting at the clock (arrival order), of which those
 * the call did not look at are listed last.
 */
export function policyQueueHtml(call, names, policy, selected, waiting = []) {
  if (!call) return `<p class="hint">${esc(policy)} has not made a call yet at this time.</p>`;
  const { ranked, unranked } = policyOrder(call);
  const keys = [...new Set(ranked.map((r) => r.key).filter(Boolean))];
  const head = `<p class="hint">${esc(policy)}'s call at t = ${fmtT(call.call_t)}: ${ranked.length} job${ranked.length === 1 ? '' : 's'} in the order it served them${keys.length ? `, by ${keys.map(esc).join(' / ')}` : ''}${unranked.length ? `; ${unranked.length} more it did not rank` : ''}.</p>`;
  const more = (n) => (n > LIMIT ? `<p class="hint">… and ${n - LIMIT} more</p>` : '');
  const seen = new Set(call.reasons.map((r) => r.job));
  const unseen = waiting.filter((j) => !seen.has(j));
  const skipped = unseen.length
    ? `<h4>Waiting, not looked at in this call (arrival order)</h4><ul class="why-order">${unseen.slice(0, LIMIT).map((j) => `<li><button type="button" class="why-pick${j === selected ? ' on' : ''}" data-job="${j}" aria-pressed="${j === selected}"><b>${esc(names[j])}</b> <small>no reason recorded for it in this call</small></button></li>`).join('')}</ul>${more(unseen.length)}`
    : '';
  return `${head}<ol class="why-order" aria-label="${esc(policy)}'s order">${ranked.slice(0, LIMIT).map((r) => item(r, names, selected)).join('')}</ol>${more(ranked.length)}
    ${unranked.length ? `<h4>Not ranked</h4><ul class="why-order">${unranked.slice(0, LIMIT).map((r) => item(r, names, selected)).join('')}</ul>${more(unranked.length)}` : ''}${skipped}`;
}

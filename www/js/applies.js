// Which summary metrics mean something for a run. The simulator decides:
// a metric that does not apply to a run is null in its summary (NaN here
// after the worker's conversion; crates/metrics, "None, never 0"). The page
// shows "–" for it (and hides a column that applies to no policy of the run),
// never a 0 that reads as a measurement. This module only finds the words
// that say why, from what the run has.

const missing = (v) => v === null || v === undefined || Number.isNaN(v);

/** Whether run `result` has jobs with due dates. */
function hasDueDates(result) {
  const due = result.jobs && result.jobs.due;
  if (!due) return false;
  for (let i = 0; i < due.length; i++) if (Number.isFinite(due[i])) return true;
  return false;
}

/** Why metric `key` does not apply to `result` ('' when it applies: the simulator reported a value). */
export function notApplicable(key, result) {
  if (!missing(result.metrics[key])) return '';
  return knownReason(key, result) || 'not reported for this run';
}

/** The words for why metric `key` is null in `result` ('' when no specific reason is known). */
function knownReason(key, result) {
  const m = result.metrics;
  if (/pred/.test(key)) return m.predicted_frac > 0 ? '' : 'no predictions in this run (engine.predict is off)';
  if (/^speedup|^slow/.test(key)) return result.pools && result.pools.length ? '' : 'no pools in this run';
  if (/tardiness|^due_/.test(key) && key !== 'tardiness_cost_usd') return hasDueDates(result) ? '' : 'no job has a due date';
  if (key === 'tardiness_cost_usd') return hasDueDates(result) ? '' : 'no job has a due date';
  if (key === 'gpu_cost_usd') return m.gpu_cost_usd > 0 ? '' : 'no GPU type of this cluster has a price';
  if (key === 'total_cost_usd') return m.gpu_cost_usd > 0 || hasDueDates(result) ? '' : 'no prices and no due dates';
  return '';
}

/** Whether metric `key` applies to run `result`. */
export function metricApplies(key, result) {
  return notApplicable(key, result) === '';
}

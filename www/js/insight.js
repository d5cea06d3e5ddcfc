// A policy's per-round insight (Sia's goodput matrix; docs/PAGE.md): the
// round at or just before time t, read from the columns the worker sends
// (`result.insight`). Pure functions on typed arrays, so Node can check
// them against the wasm `Run.insight_at` (tests/wasm-node/api.test.mjs).

/** True when the run recorded at least one round's insight. */
export function hasInsight(result) {
  return !!(result && result.insight && result.insight.t.length);
}

/** Index of the last recorded round at or before t, or -1. */
export function roundAt(ins, t) {
  let lo = 0, hi = ins.t.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (ins.t[m] <= t) lo = m + 1; else hi = m;
  }
  return lo - 1;
}

/**
 * Round `i` as `{index, t, rowsTotal, labels, cols, jobs, norm, raw,
 * restart, chosen}`: `cols` are indexes into `ins.labels` (and
 * `ins.label_kind/gpus/nodes`), the arrays are views (no copy), `norm` and
 * `raw` are rows x cols, row-major, NaN where the job had no such choice.
 */
export function roundInsight(ins, i) {
  const c0 = ins.col_offsets[i], c1 = ins.col_offsets[i + 1];
  const r0 = ins.row_offsets[i], r1 = ins.row_offsets[i + 1];
  const k0 = ins.cell_offsets[i], k1 = ins.cell_offsets[i + 1];
  const cols = ins.cols.subarray(c0, c1);
  return {
    index: i,
    t: ins.t[i],
    rowsTotal: ins.rows_total[i],
    cols,
    labels: Array.from(cols, (l) => ins.labels[l]),
    jobs: ins.jobs.subarray(r0, r1),
    restart: ins.restart.subarray(r0, r1),
    chosen: ins.chosen.subarray(r0, r1),
    norm: ins.norm.subarray(k0, k1),
    raw: ins.raw.subarray(k0, k1),
  };
}

/** The round at or just before t (see roundInsight), or null. */
export function insightAt(ins, t) {
  const i = roundAt(ins, t);
  return i < 0 ? null : roundInsight(ins, i);
}

/** Largest normalised value of the run (the colour scale's top), at least 1. */
export function normMax(ins) {
  let m = 1;
  for (const v of ins.norm) if (v > m) m = v;
  return m;
}

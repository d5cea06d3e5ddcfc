// GPUs held by each of a policy's job groups over time (PCS's size classes:
// `Decision::set_group`, the timeline's group_job / group_t / group
// columns). Pure functions over a run's typed arrays, checked in Node
// (tests/wasm-node/api.test.mjs).

/** Whether a run's policy reported groups. */
export const hasGroups = (result) => result.timeline.group_job.length > 0;

/**
 * Average GPUs each group holds in each of `bins` equal slices of [0, end]
 * (`end`: the last segment's end): `{ t, groups: [{ group, gpus }] }`, `t` the
 * slices' midpoints in seconds, groups in increasing order. A segment counts
 * for the group its job was in at each instant (a job that changes group in
 * mid-segment is split); slices of shared GPUs count their fraction.
 */
export function groupUsage(timeline, bins = 240) {
  const tl = timeline;
  let end = 0;
  for (let s = 0; s < tl.seg_end.length; s++) if (Number.isFinite(tl.seg_end[s])) end = Math.max(end, tl.seg_end[s]);
  const width = end > 0 ? end / bins : 1;
  // Each job's group changes, in time order (records are in time order).
  const changes = new Map();
  for (let k = 0; k < tl.group_job.length; k++) {
    const j = tl.group_job[k];
    if (!changes.has(j)) changes.set(j, []);
    changes.get(j).push([tl.group_t[k], tl.group[k]]);
  }
  const usage = new Map(); // group -> Float64Array of GPU-seconds per slice
  const add = (group, from, to, gpus) => {
    if (!(to > from)) return;
    if (!usage.has(group)) usage.set(group, new Float64Array(bins));
    const u = usage.get(group);
    for (let b = Math.max(0, Math.floor(from / width)); b < bins && b * width < to; b++) {
      const overlap = Math.min(to, (b + 1) * width) - Math.max(from, b * width);
      if (overlap > 0) u[b] += gpus * overlap;
    }
  };
  for (let s = 0; s < tl.seg_job.length; s++) {
    const list = changes.get(tl.seg_job[s]);
    if (!list) continue;
    const start = tl.seg_start[s];
    const stop = Number.isFinite(tl.seg_end[s]) ? tl.seg_end[s] : end;
    const gpus = tl.seg_gpu_count[s] * Math.min(1, tl.seg_share[s]);
    // The job's group at `start`, then each change inside the segment.
    let i = 0;
    while (i + 1 < list.length && list[i + 1][0] <= start) i++;
    if (list[i][0] > start) continue; // no group yet (ungrouped time is not drawn)
    let from = start;
    for (; i < list.length; i++) {
      const to = i + 1 < list.length ? Math.min(stop, list[i + 1][0]) : stop;
      add(list[i][1], from, to, gpus);
      from = to;
      if (from >= stop) break;
    }
  }
  const t = Float64Array.from({ length: bins }, (_, b) => (b + 0.5) * width);
  const groups = [...usage.keys()].sort((a, b) => a - b)
    .map((group) => ({ group, gpus: usage.get(group).map((v) => v / width) }));
  return { t, groups };
}

// Colours chosen for colour-blind readers.
//
// Values (the goodput heatmap): viridis, below.
//
// Policies: the Okabe-Ito palette (distinguishable under the common colour
// vision deficiencies). Jobs: Paul Tol's "muted" and "light" qualitative
// schemes; a job's colour depends only on its id, so the same job has the
// same colour in every policy's map, the Gantt view and the queue. Colour
// is never the only cue: hover outlines every GPU of a job and names it.

export const POLICY_COLORS = ['#E69F00', '#56B4E9', '#009E73', '#0072B2', '#D55E00', '#CC79A7', '#000000', '#F0E442'];

const JOB_COLORS = [
  '#CC6677', '#332288', '#DDCC77', '#117733', '#88CCEE', '#882255', '#44AA99', '#999933', '#AA4499',
  '#77AADD', '#EE8866', '#EEDD88', '#FFAABB', '#99DDFF', '#44BB99', '#BBCC33',
];

export const IDLE = '#e4e6eb';

export function policyColor(i) {
  return POLICY_COLORS[i % POLICY_COLORS.length];
}

/** Stable colour of job `id` (consecutive ids land far apart in the palette). */
export function jobColor(id) {
  return JOB_COLORS[(id * 7 + (id >>> 4)) % JOB_COLORS.length];
}

// Pools (regions of the GPU map, rows of the per-pool chart): Paul Tol's
// "bright" scheme for marks and chips, light tints of it for the regions, so
// that job colours stay readable on top. A pool named after one of these
// colours (the Fig 1 example's green and orange) gets that colour.
const POOL_NAMES = ['blue', 'red', 'green', 'yellow', 'cyan', 'purple', 'grey', 'orange'];
const POOL_STRONG = ['#4477AA', '#EE6677', '#228833', '#CCBB44', '#66CCEE', '#AA3377', '#777777', '#E08A1E'];
const POOL_TINT = ['#b4c9de', '#f7c2c9', '#a7d3ae', '#e6dfa8', '#c1e9f5', '#dcb0ca', '#c9c9c9', '#f2cf9f'];
export const NO_POOL_TINT = '#c3c7cf';

/** Each pool's {strong, tint} colours, in pool order. */
export function poolPalette(pools) {
  return pools.map((pool, p) => {
    const named = POOL_NAMES.indexOf(pool.name.toLowerCase());
    const k = named >= 0 ? named : p % POOL_STRONG.length;
    return { strong: POOL_STRONG[k], tint: POOL_TINT[k] };
  });
}

/** Black or white, whichever reads better on `hex`. */
export function inkOn(hex) {
  const n = parseInt(hex.slice(1), 16);
  const r = (n >> 16) & 255, g = (n >> 8) & 255, b = n & 255;
  return (0.299 * r + 0.587 * g + 0.114 * b) > 150 ? '#000' : '#fff';
}

// Viridis (sequential, colour-blind safe, readable in greyscale) at nine
// stops; `viridis(x)` interpolates for x in [0, 1].
const VIRIDIS = [
  [0x44, 0x01, 0x54], [0x48, 0x28, 0x78], [0x3e, 0x49, 0x89], [0x31, 0x68, 0x8e], [0x26, 0x82, 0x8e],
  [0x1f, 0x9e, 0x89], [0x35, 0xb7, 0x79], [0x6e, 0xce, 0x58], [0xfd, 0xe7, 0x25],
];

export function viridis(x) {
  const f = Math.min(1, Math.max(0, x)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(f));
  const u = f - i, a = VIRIDIS[i], b = VIRIDIS[i + 1];
  return `rgb(${Math.round(a[0] + (b[0] - a[0]) * u)},${Math.round(a[1] + (b[1] - a[1]) * u)},${Math.round(a[2] + (b[2] - a[2]) * u)})`;
}

/** Ordered groups (PCS's size classes, smallest first): group `g` of `n` on
 * viridis short of its pale yellow end, as `#rrggbb` for the charts. */
export function groupColor(g, n) {
  const f = n > 1 ? (g / (n - 1)) * 0.85 : 0;
  return `#${viridis(f).match(/\d+/g).map((v) => Number(v).toString(16).padStart(2, '0')).join('')}`;
}

/** The same scale as a CSS gradient (legends). */
export const VIRIDIS_CSS = `linear-gradient(90deg, ${VIRIDIS.map((c) => `rgb(${c.join(',')})`).join(', ')})`;

/** `hex` mixed with white (f > 0) or black (f < 0) by |f|, as `#rrggbb`. */
export function shade(hex, f) {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c) => Math.round(f >= 0 ? c + (255 - c) * f : c * (1 + f));
  return `#${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => mix(c).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Job colours for a run: by job id (the same in every policy), except in runs
 * with pools, where a job is drawn in a shade of its pool's colour (so the
 * anticipatory paper's Fig 1 shows green's jobs green and orange's orange), the
 * shade still chosen by the job id. Returns j -> '#rrggbb'.
 */
export function jobColors(run) {
  const pool = run && run.jobs && run.jobs.pool;
  if (!run || !run.pools || !run.pools.length || !pool) return jobColor;
  const palette = poolPalette(run.pools);
  const SHADES = [0, -0.3, 0.3, -0.15, 0.15];
  const cache = new Map();
  return (j) => {
    const p = pool[j];
    if (!(p >= 0) || p >= palette.length) return jobColor(j);
    const k = `${p}:${j % SHADES.length}`;
    if (!cache.has(k)) cache.set(k, shade(palette[p].strong, SHADES[j % SHADES.length]));
    return cache.get(k);
  };
}

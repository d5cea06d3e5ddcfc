// Words on screen: prose from the catalog without the project's internal
// references, the paper each policy belongs to (for the grouped picker), and
// plain words for the abbreviations the page shows (visible text, since phones
// cannot show hover titles).

/**
 * `text` without internal references: the specification's section numbers
 * ("; spec seed003 §2.3", "spec seed004 4.1-4.2:"), the estimator's equation
 * labels ("(E13)") and repository paths ("docs/METRICS.md"). Paper sections
 * ("AFS (NSDI'21) §3.3") stay: a reader can look them up.
 */
export function plainWords(text) {
  if (!text) return text || '';
  return String(text)
    .replace(/spec §[\d.]+'s /g, 'the ')
    .replace(/\s*[;,]\s*spec (?:seed\d+ )?§?\d+(?:\.\d+)*(?:-\d+(?:\.\d+)*)?(?!['\w])/g, '')
    .replace(/\s*\/?\s*(?:as reconstructed in |synthesized per |per )?spec seed\d+ §?\d+(?:\.\d+)*(?:-\d+(?:\.\d+)*)?/g, '')
    .replace(/\s*\(E\d+\)/g, '')
    .replace(/\s*\(docs\/[\w.-]+\.md\)/g, '')
    .replace(/docs\/[\w.-]+\.md:?\s*/g, '')
    .replace(/\(\s*\)/g, '')
    .replace(/\(\s+/g, '(')
    .replace(/[;,]\s*\)/g, ')')
    .replace(/;\s*:/g, ':')
    .replace(/\s+([;:,)])/g, '$1')
    .replace(/^[;:,]\s*/, '')
    .trim();
}

/**
 * The papers the policies come from, in the picker's order. A policy belongs to
 * the paper whose comparison it is part of (a baseline with the paper that
 * compares against it: Themis under AFS, Gavel under Sia). The catalog's source
 * notes name the comparison by the specification section they follow
 * (`spec seedNNN`), which is read here and never shown.
 */
export const PAPERS = [
  { key: 'afs', title: "AFS (NSDI'21) and its baselines", spec: 'seed003' },
  { key: 'sia', title: "Sia (SOSP'23), COpter and their baselines", spec: 'seed004' },
  { key: 'pcs', title: "PCS (OSDI'24) and its baseline", spec: 'seed001' },
  { key: 'sts', title: 'STS (IEEE TCC 2024) and its baselines', spec: 'seed002' },
  { key: 'anticipatory', title: 'Anticipatory resource allocation and its baselines', spec: 'seed000', match: /anticipatory/i },
  { key: 'classic', title: 'Classic baselines' },
];

/** The PAPERS key of a catalog policy (its raw `source`, before plainWords). */
export function paperOf(policy) {
  const src = policy.rawSource || policy.source || '';
  for (const p of PAPERS) {
    if (p.spec && src.includes(`spec ${p.spec}`)) return p.key;
  }
  for (const p of PAPERS) {
    if (p.match && p.match.test(src)) return p.key;
  }
  return 'classic';
}

/** Plain words for the abbreviations in the results table and charts. */
export const GLOSSARY = [
  ['JCT', 'job completion time, finish − arrival'],
  ['p50 / p90 / p99', 'median / 90th / 99th percentile over jobs'],
  ['makespan', 'last finish − first arrival'],
  ['queue', 'time a job spent without GPUs'],
  ['GPU-hours', 'GPU time held by jobs, in hours'],
  ['FTF', 'finish-time fairness ρ = JCT / time alone on a 1/N share of the cluster; above 1 = treated unfairly'],
  ['due missed, tardiness', 'jobs that finished after their due date, and by how much'],
  ['pred err', 'prediction error, 100 × |predicted JCT − JCT| / predicted JCT'],
  ['speedup', 'JCT under per-pool first-come first-served without sharing / JCT here (runs with pools)'],
  ['CE', 'cluster efficiency: the running jobs’ speedups summed, per GPU'],
  ['BI', 'blocking index: how long waiting jobs are blocked, relative to their length (AFS §5)'],
  ['QL', 'queue length: jobs waiting'],
];

/** The glossary entries whose term appears in one of `labels` (e.g. the visible column labels). */
export function glossaryFor(labels) {
  const text = labels.join(' ');
  return GLOSSARY.filter(([term]) => term.split(/[ ,/]+/).some((w) => w && new RegExp(`(^|[^\\w])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`, 'i').test(text)));
}

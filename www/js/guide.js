// Guided walk-throughs of bundled examples: a few steps, each setting the
// clock, pointing at a job and saying what each policy did there. Every
// number in a caption is read from the finished runs (finish times, the
// GPUs a job held), never written in, so a caption cannot drift from what
// the simulator did; a step whose policies did not run says so.

const UNIT = 600; // the Fig 1 trace's time unit (anticipatory-fig1: unit_s = 600)

/** Job index by name, or -1. */
function jobIndex(run, name) {
  return run ? run.jobs.names.indexOf(name) : -1;
}

/** A job's finish time in Fig 1 units under `policy` ('?' when not run). */
function finish(runs, policy, name) {
  const r = runs.get(policy);
  const j = jobIndex(r && r.result, name);
  if (j < 0) return '?';
  const f = r.result.jobs.finish[j];
  return f === f ? String(Number((f / UNIT).toFixed(2))) : 'not finished';
}

function startAt(runs, policy, name) {
  const r = runs.get(policy);
  const j = jobIndex(r && r.result, name);
  if (j < 0) return '?';
  return String(Number((r.result.jobs.start[j] / UNIT).toFixed(2)));
}

/** Each job's finish time per policy, ✓ earlier / ✗ later than pool-fcfs. */
function table(runs) {
  const policies = ['pool-fcfs', 'pool-maxmin', 'anticipatory', 'anticipatory-vc'].filter((p) => runs.has(p));
  const base = runs.get('pool-fcfs');
  const names = ['J2', 'J3', 'J4', 'J5', 'J6', 'J7'];
  const head = `<tr><th>job</th>${policies.map((p) => `<th>${p}</th>`).join('')}</tr>`;
  const rows = names.map((n) => {
    const cells = policies.map((p) => {
      const f = finish(runs, p, n);
      const b = base ? finish(runs, 'pool-fcfs', n) : f;
      const mark = p === 'pool-fcfs' || !base ? '' : Number(f) < Number(b) ? ' ✓' : Number(f) > Number(b) ? ' ✗' : ' −';
      return `<td>${f}${mark}</td>`;
    });
    return `<tr><td>${n}</td>${cells.join('')}</tr>`;
  });
  return `<table class="guide-table">${head}${rows.join('')}</table>`;
}

/** The anticipatory paper's Fig 1 (spec seed000 §4.5; 1 unit = 10 minutes). */
const FIG1 = [
  {
    t: 0.5, job: 'J0',
    text: () => `Two pools own 4 GPUs each (time in units of 10 minutes). <b>Green</b>'s J0 holds all four green GPUs until t = 10;
      <b>orange</b>'s J1 holds two of orange's four until t = 5. The maps show one region per pool.`,
  },
  {
    t: 1.5, job: 'J2',
    text: (runs) => `At t = 1 green submits J2 (2 GPUs, 10 units), J3 and J4 (1 GPU, 2 units each) and J5 (2 GPUs, 2 units), but its quota is full.
      Orange has 2 idle GPUs. <b>pool-fcfs</b> leaves them idle; <b>pool-maxmin</b> lends them to the first job in line, the long J2
      (starts at t = ${startAt(runs, 'pool-maxmin', 'J2')}); <b>anticipatory</b> expects orange's own jobs within its 4- and 2-unit windows
      and lends only to jobs that end before they come: J3 and J4 (done at t = ${finish(runs, 'anticipatory', 'J3')}).
      Lent GPUs carry a corner mark in the borrower's colour.`,
  },
  {
    t: 4.5, job: 'J6',
    text: (runs) => `At t = 4 orange submits J6 (2 GPUs, 3 units). Under anticipatory orange's GPUs are back, so J6 starts at
      t = ${startAt(runs, 'anticipatory', 'J6')} as it would without sharing (pool-fcfs: ${startAt(runs, 'pool-fcfs', 'J6')}).
      Under pool-maxmin the long J2 still holds two of them and jobs run to completion: J6 starts at t = ${startAt(runs, 'pool-maxmin', 'J6')}.`,
  },
  {
    t: 5.5, job: 'J7',
    text: (runs) => `At t = 5 J7 arrives (2 GPUs, 3 units) as J1 ends. It finishes at t = ${finish(runs, 'pool-fcfs', 'J7')} without sharing,
      ${finish(runs, 'anticipatory', 'J7')} under anticipatory and ${finish(runs, 'pool-maxmin', 'J7')} under pool-maxmin: lending
      a donor's GPUs to a long job slowed the donor, which the anticipatory scheduler is built to avoid.`,
  },
  {
    t: 7.5, job: 'J5',
    text: (runs) => `Orange's jobs are covered again, so anticipatory lends its spare GPUs to green's J5 (starts t = ${startAt(runs, 'anticipatory', 'J5')},
      done at ${finish(runs, 'anticipatory', 'J5')}), before J0 frees green's own GPUs at t = 10.`,
  },
  {
    t: 12.5, job: '',
    text: (runs) => `Finish times (✓ earlier, ✗ later than pool-fcfs). The anticipatory scheduler speeds up J3, J4 and J5 and slows no job;
      pool-maxmin speeds up J2 and J5 but slows orange's J6 and J7. The speedup CDF below and the "Pools over time" view show the same over whole traces.
      ${table(runs)}`,
  },
];

export const GUIDES = { 'anticipatory-fig1': { title: "Walk-through: the anticipatory paper's Fig 1", unit: UNIT, steps: FIG1 } };

/** The walk-through card: shows `guide`'s step k and moves the clock there. */
export class Guide {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks; // {seek(t, jobName): move the clock and outline the job, runs(): policy -> run}
    this.guide = null;
    this.k = -1; // -1: not started
    root.querySelector('.g-prev').addEventListener('click', () => this.go(this.k - 1));
    root.querySelector('.g-next').addEventListener('click', () => this.go(this.k + 1));
  }

  /** Shows the walk-through of trace `name` (hides the card when there is none). */
  setTrace(name) {
    const g = GUIDES[name] || null;
    if (g !== this.guide) this.k = -1;
    this.guide = g;
    this.root.hidden = !g;
    if (g) this.root.querySelector('.g-title').textContent = g.title;
    this.render();
  }

  go(k) {
    if (!this.guide) return;
    this.k = Math.max(0, Math.min(this.guide.steps.length - 1, k));
    const step = this.guide.steps[this.k];
    this.hooks.seek(step.t * this.guide.unit, step.job);
    this.render();
  }

  render() {
    if (!this.guide) return;
    const n = this.guide.steps.length;
    if (this.k < 0) {
      this.root.querySelector('.g-count').textContent = `${n} steps`;
      this.root.querySelector('.g-text').textContent = 'Each step stops the clock at a moment of the example and says what each policy did there, with the numbers of these runs.';
      this.root.querySelector('.g-prev').disabled = true;
      this.root.querySelector('.g-next').disabled = false;
      return;
    }
    const step = this.guide.steps[this.k];
    this.root.querySelector('.g-count').textContent = `step ${this.k + 1} of ${n} · t = ${step.t}`;
    this.root.querySelector('.g-text').innerHTML = step.text(this.hooks.runs());
    this.root.querySelector('.g-prev').disabled = this.k === 0;
    this.root.querySelector('.g-next').disabled = this.k === n - 1;
  }
}

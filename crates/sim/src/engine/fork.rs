//! Forks: copies of a running simulation that see no further arrivals, to
//! forecast when the jobs present now would finish (PCS promises each job
//! a completion time this way at its arrival).
//!
//! A fork shares the job specs, the cluster, the zoo and every unchanged
//! chunk of job states with its parent (`JobStore`) and records nothing
//! (`Recorder`), so its cost follows the live jobs, not the run's length.

use super::Simulation;
use crate::events::EventKind;
use crate::state::Phase;
use crate::{Knowledge, Policy};
use schedlab_core::error::Result;
use std::collections::BTreeMap;

/// When each job active at the fork would finish.
#[derive(Debug, Clone, PartialEq)]
pub struct Forecast {
    /// Simulated time of the fork.
    pub at: f64,
    /// Completion time per job active at the fork; None if the forecast run
    /// stopped first (the policy starved it or `max_days` was reached).
    pub finish: BTreeMap<u32, Option<f64>>,
}

impl Simulation {
    /// A copy of this simulation that will see no further arrivals and
    /// records no timeline. It runs until the jobs present now are done.
    pub fn fork_without_arrivals(&self) -> Simulation {
        let mut f = self.clone();
        f.next_arrival = f.specs.len();
        f.cfg.record_timeline = false;
        f.cfg.record_insight = false;
        f.cfg.predict = false;
        f.is_fork = true;
        f.queue = self.queue.retained(|ev| self.is_live(ev));
        f
    }

    /// Whether an event still does something when it falls due: a job's
    /// completion or rate change of its current version, the current
    /// timer, reconfiguration or measurement (a pending decision is always
    /// kept). Stale events only mark instants at which nothing happens.
    fn is_live(&self, ev: &EventKind) -> bool {
        match *ev {
            EventKind::Complete { job, version } | EventKind::RateChange { job, version } => {
                self.jobs[job as usize].version == version
            }
            EventKind::Timer { token } => token == self.timer_token,
            EventKind::Reconfig { job, token } => {
                let st = &self.jobs[job as usize];
                st.reconfig_token == token && st.phase == Phase::Running
            }
            EventKind::Measured { job, token, .. } => {
                let st = &self.jobs[job as usize];
                st.measure_token == token && st.phase == Phase::Running
            }
            EventKind::Decision { .. } => true,
        }
    }

    /// A fork's stale events ahead of its next live one. In the run itself
    /// an instant with only stale events still ends a time step (the
    /// contention integral is summed per step, to the bit); a fork's
    /// integral is never read.
    pub(super) fn drop_stale_events(&mut self) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.drop_stale_front(|ev| !self.is_live(ev));
        self.queue = queue;
    }

    /// Runs a fork of the current state under `policy` with no further
    /// arrivals and returns each active job's completion. Job lengths are
    /// the true ones (this is the engine's view; policies forecast through
    /// [`crate::View::forecast`], which uses what they may know).
    pub fn forecast(&self, policy: Box<dyn Policy>) -> Result<Forecast> {
        self.forecast_with(policy, None, Knowledge::Oracle, None)
    }

    /// The fork behind [`Simulation::forecast`] and `View::forecast`:
    /// `pending_tick` repeats the policy call in progress (with its round
    /// flag) before time moves; with `Knowledge::Declared` each active job's
    /// work is what the caller may know (declared work, or the progress so
    /// far once a job has run past it), so a forecast cannot leak the truth.
    /// With `until_done`, the fork stops as soon as those jobs have finished
    /// (the others' completions are then None unless they came first): a
    /// prediction needs no more.
    pub(crate) fn forecast_with(
        &self,
        policy: Box<dyn Policy>,
        pending_tick: Option<bool>,
        knows: Knowledge,
        until_done: Option<Vec<u32>>,
    ) -> Result<Forecast> {
        let mut f = self.fork_without_arrivals();
        f.install_policy(policy);
        f.pending_call = pending_tick;
        if knows == Knowledge::Declared {
            // A fork never knows more than the policy that asked for it: a
            // policy without the oracle door cannot open it by forecasting
            // under a policy that claims it.
            f.oracle &= self.oracle;
            let now = f.now;
            for &id in &self.active {
                let st = &mut f.jobs[id as usize];
                if st.size_factor != 1.0 {
                    // A misestimated job (`engine.size_error`): the fork
                    // counts its progress in estimated units, so its truth
                    // and what its policy sees both run from the estimate.
                    let done = st.progress_at(now);
                    st.progress += (st.size_factor - 1.0) * done;
                    st.size_factor = 1.0;
                }
                let known = st.declared_work.max(st.progress_at(now));
                if known != st.work {
                    st.work = known;
                    if st.placement.is_some() {
                        f.refresh_rate(id, false);
                    }
                }
            }
        }
        match until_done {
            None => while f.step()? {},
            Some(mut wanted) => {
                wanted.retain(|&id| f.jobs[id as usize].finish.is_none());
                while !wanted.is_empty() && f.step()? {
                    wanted.retain(|&id| f.jobs[id as usize].finish.is_none());
                }
            }
        }
        let finish = self
            .active
            .iter()
            .map(|&id| (id, f.jobs[id as usize].finish))
            .collect();
        Ok(Forecast {
            at: self.now,
            finish,
        })
    }

    /// PCS's prediction at an arrival (spec 2.3), for any policy: with
    /// probability min(1, predict_max / jobs) (drawn from the run's seed and
    /// the arrival), forecast under a copy of the policy, with its state and
    /// declared job lengths, and give every job without a prediction yet the
    /// forecast's completion. The first estimate is the one kept.
    ///
    /// Jobs that arrive at the same instant are predicted one at a time, as
    /// PCS handles each submission as its own event: the prediction at the
    /// k-th of them forks a state without the later ones (the policy is
    /// called again in the fork before time moves).
    pub(super) fn predict_at_arrival(&mut self, first_arrived: u32) -> Result<()> {
        let last = self.next_arrival as u32;
        for k in first_arrived..last {
            self.predict_one_arrival(k, k + 1..last)?;
        }
        Ok(())
    }

    /// The prediction at arrival `k`, without the jobs `later` (which
    /// arrived at the same instant after it).
    fn predict_one_arrival(&mut self, k: u32, later: std::ops::Range<u32>) -> Result<()> {
        let p = (self.cfg.predict_max as f64 / self.specs.len().max(1) as f64).min(1.0);
        if p < 1.0 {
            let mut rng =
                schedlab_core::rng::Sampler::derive(self.cfg.seed, &format!("predict-{k}"));
            if rng.uniform() >= p {
                return Ok(());
            }
        }
        let Some(policy) = self.policy.clone() else {
            return Ok(());
        };
        // Only jobs without a prediction yet take one from this forecast, so
        // the fork runs until they are done, not until every job is: the
        // same predictions to the bit, and forks of long queues stop sooner.
        let unpredicted: Vec<u32> = self
            .active
            .iter()
            .copied()
            .filter(|&id| self.jobs[id as usize].predicted_finish.is_none() && !later.contains(&id))
            .collect();
        let forecast = if later.is_empty() {
            self.forecast_with(policy, None, Knowledge::Declared, Some(unpredicted))?
        } else {
            let mut before = self.clone();
            before.cfg.record_timeline = false;
            before.cfg.record_insight = false;
            for id in later {
                before.unarrive(id);
            }
            before.forecast_with(policy, Some(false), Knowledge::Declared, Some(unpredicted))?
        };
        for (job, finish) in forecast.finish {
            let st = &mut self.jobs[job as usize];
            if st.predicted_finish.is_none() {
                st.predicted_finish = finish;
            }
        }
        Ok(())
    }

    /// Takes back an arrival that happened at the current instant (no time
    /// has passed since): the job returns its GPUs and is not active.
    fn unarrive(&mut self, id: u32) {
        self.release(id);
        let st = &mut self.jobs[id as usize];
        st.open_segment = None;
        st.version += 1;
        st.phase = crate::state::Phase::Future;
        if st.set_placement(None).is_some() {
            self.running.remove(&id);
        }
        self.active.remove(&id);
        self.waiting.remove(&id);
    }

    /// Hands the run to another policy (a fork's forecast policy): its
    /// trigger and knowledge take effect from now.
    fn install_policy(&mut self, policy: Box<dyn Policy>) {
        self.trigger = policy.trigger();
        self.oracle = policy.knowledge() == Knowledge::Oracle;
        self.next_tick = match (self.trigger.round_s, self.next_tick) {
            (None, _) => None,
            (Some(_), Some(t)) => Some(t),
            (Some(r), None) => Some((self.now / r).ceil() * r),
        };
        self.policy = Some(policy);
    }
}

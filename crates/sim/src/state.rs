//! Per-job simulation state. Progress and service accrue lazily: each job
//! keeps its values as of `t_mark` plus its current rate, so an event only
//! touches the jobs it concerns.

use schedlab_model::cluster::Placement;
use schedlab_model::perf::ModelId;
use serde::Serialize;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Not arrived yet.
    Future,
    /// Arrived, holds no GPUs.
    Waiting,
    /// Holds GPUs (possibly still in its restart delay).
    Running,
    /// Finished.
    Done,
}

/// Everything the engine tracks about one job.
#[derive(Debug, Clone)]
pub struct JobState {
    pub model: ModelId,
    /// The job's pool (its tenant's quota), `NO_POOL` when the run has none.
    pub pool: schedlab_model::cluster::PoolId,
    /// Total work (model units): the truth, which only the engine and
    /// declared oracles (`View::oracle`) see.
    pub(crate) work: f64,
    /// The work the job was submitted with (what a real scheduler is told:
    /// epochs x iterations, or the trace's run time at its request). Equal
    /// to `work` unless the engine hides lengths (`engine.length_noise`).
    pub declared_work: f64,
    /// The job's size-estimation factor (`engine.size_error`; 1 = sizes
    /// known): the estimated remaining work is the declared work minus this
    /// times the progress, so a misestimated job's estimate stays this
    /// factor times its true remaining work, as in the PCS artifact.
    pub(crate) size_factor: f64,
    pub phase: Phase,
    /// Set only through [`JobState::set_placement`], which keeps `held`.
    pub placement: Option<Placement>,
    /// The placement's GPUs, a slice as its fraction (`gpu_equiv`), kept
    /// with it: the reason log reads it for every record (one load instead
    /// of a walk over the placement's nodes and parts).
    held: f64,
    /// Global batch the job currently runs at.
    pub batch: u32,
    /// The batch choice of the current allocation (re-applied at epoch
    /// boundaries: a rigid batch stays fixed, adaptive jobs re-optimise).
    pub choice: Option<schedlab_model::perf::BatchChoice>,
    /// Work per second once the restart delay is over.
    pub rate: f64,
    /// Work done as of `t_mark`.
    pub progress: f64,
    /// GPU-seconds held as of `t_mark` (attained service, restarts included).
    pub gpu_s: f64,
    /// Seconds spent holding GPUs as of `t_mark`.
    pub run_s: f64,
    /// Joules drawn by the GPUs the job held, at busy power, as of `t_mark`.
    pub energy_j: f64,
    /// Joules the same GPUs would have drawn idle, as of `t_mark` (the
    /// cluster's idle energy is its idle draw minus this, see `metrics`).
    pub held_idle_j: f64,
    /// Busy and idle watts of the GPUs held now (set with the placement).
    busy_w: f64,
    idle_w: f64,
    pub t_mark: f64,
    /// No progress before this time (checkpoint-restore after a change).
    pub busy_until: f64,
    /// Progress at which the rate must be recomputed (epoch boundary).
    pub rate_until: f64,
    pub first_start: Option<f64>,
    pub finish: Option<f64>,
    /// The first completion time a fork predicted for the job
    /// (`engine.predict`; PCS's JCTpred is this minus the arrival).
    pub predicted_finish: Option<f64>,
    /// Allocation changes after the first start (the Pollux/Sia definition).
    pub restarts: u32,
    /// The same restarts by what changed.
    pub restart_kinds: RestartKinds,
    /// Times the job lost all its GPUs before finishing.
    pub preemptions: u32,
    /// Seconds of restart delay paid so far.
    pub restart_s: f64,
    /// Bumped on every rate change; stale heap events carry an old value.
    pub version: u32,
    /// Cluster contention integral at arrival (for the job's mean contention).
    pub contention_mark: f64,
    /// Mean number of active jobs while this job was active (set at finish).
    pub n_avg: f64,
    /// Open timeline segment, if recording.
    pub open_segment: Option<usize>,
    /// CoDDL mode: the GPUs the job trains on now (a subset of `placement`
    /// while new GPUs are still loading); None in restart mode.
    pub eff: Option<Placement>,
    /// CoDDL mode: when the last reconfiguration order completes (the job
    /// trains on its whole placement from then on).
    pub reconfig_until: f64,
    /// CoDDL mode: bumped with every order; stale `Reconfig` events carry an old value.
    pub reconfig_token: u32,
    /// In-flight reconfigurations cancelled by a newer order.
    pub cancelled: u32,
    /// Share changes that kept none of the job's GPUs.
    pub migrations: u32,
    /// Largest GPU count the job's throughput has been measured on
    /// (`engine.measure=overestimate`).
    pub measured_gpus: u32,
    /// Bumped with every measurement started; stale events carry an old value.
    pub measure_token: u32,
}

impl JobState {
    /// Counts one restart (from the current placement to `new`) in the
    /// total and in its kind, so the two cannot drift apart.
    pub fn count_restart(&mut self, new: &Placement) {
        self.restarts += 1;
        self.restart_kinds.record(self.placement.as_ref(), new);
    }

    pub fn new(model: ModelId, work: f64) -> JobState {
        JobState {
            model,
            pool: schedlab_model::cluster::NO_POOL,
            work,
            declared_work: work,
            size_factor: 1.0,
            phase: Phase::Future,
            placement: None,
            held: 0.0,
            batch: 0,
            choice: None,
            rate: 0.0,
            progress: 0.0,
            gpu_s: 0.0,
            run_s: 0.0,
            energy_j: 0.0,
            held_idle_j: 0.0,
            busy_w: 0.0,
            idle_w: 0.0,
            t_mark: 0.0,
            busy_until: 0.0,
            rate_until: f64::INFINITY,
            first_start: None,
            finish: None,
            predicted_finish: None,
            restarts: 0,
            restart_kinds: RestartKinds::default(),
            preemptions: 0,
            restart_s: 0.0,
            version: 0,
            contention_mark: 0.0,
            n_avg: 0.0,
            open_segment: None,
            eff: None,
            reconfig_until: f64::NEG_INFINITY,
            reconfig_token: 0,
            cancelled: 0,
            migrations: 0,
            measured_gpus: 0,
            measure_token: 0,
        }
    }

    /// Sets (or clears) the job's GPUs and the power they draw. Call
    /// `advance` first, so that the time before is charged at the old power.
    pub fn set_placement(&mut self, placement: Option<Placement>) -> Option<Placement> {
        let held = placement.as_ref().map_or(0.0, |p| p.gpu_equiv());
        let (busy, idle) = placement.as_ref().map_or((0.0, 0.0), |p| {
            let w = schedlab_model::perf::power::gpu_power(p.kind);
            // A slice draws its fraction of the GPU's power.
            (w.busy_w * held, w.idle_w * held)
        });
        self.busy_w = busy;
        self.idle_w = idle;
        self.held = held;
        std::mem::replace(&mut self.placement, placement)
    }

    /// Busy-power energy (J) of the job's GPUs by time `now`.
    pub fn energy_at(&self, now: f64) -> f64 {
        self.energy_j + self.busy_w * self.held_for(now)
    }

    /// Idle-power energy (J) of the job's GPUs by time `now`.
    pub fn held_idle_at(&self, now: f64) -> f64 {
        self.held_idle_j + self.idle_w * self.held_for(now)
    }

    /// Seconds since `t_mark` during which the job held its GPUs.
    fn held_for(&self, now: f64) -> f64 {
        if self.phase == Phase::Running {
            (now - self.t_mark).max(0.0)
        } else {
            0.0
        }
    }

    /// GPUs held, a slice counting as its fraction.
    pub fn gpu_equiv(&self) -> f64 {
        self.held
    }

    pub fn gpus(&self) -> u32 {
        self.placement.as_ref().map_or(0, |p| p.gpus())
    }

    /// Fraction of the work done as of `t_mark` (0 for a job without work).
    pub fn done_fraction(&self) -> f64 {
        if self.work > 0.0 {
            (self.progress / self.work).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Work done by time `now` (not stored).
    pub fn progress_at(&self, now: f64) -> f64 {
        if self.phase != Phase::Running {
            return self.progress;
        }
        let from = self.t_mark.max(self.busy_until);
        if now > from {
            (self.progress + self.rate * (now - from)).min(self.work)
        } else {
            self.progress
        }
    }

    /// GPU-seconds held by time `now`.
    pub fn gpu_s_at(&self, now: f64) -> f64 {
        if self.phase == Phase::Running {
            self.gpu_s + self.gpu_equiv() * (now - self.t_mark).max(0.0)
        } else {
            self.gpu_s
        }
    }

    /// Seconds spent holding GPUs by time `now`.
    pub fn run_s_at(&self, now: f64) -> f64 {
        if self.phase == Phase::Running {
            self.run_s + (now - self.t_mark).max(0.0)
        } else {
            self.run_s
        }
    }

    /// Brings the stored values up to `now`.
    pub fn advance(&mut self, now: f64) {
        if now <= self.t_mark {
            return;
        }
        self.progress = self.progress_at(now);
        self.gpu_s = self.gpu_s_at(now);
        self.run_s = self.run_s_at(now);
        self.energy_j = self.energy_at(now);
        self.held_idle_j = self.held_idle_at(now);
        self.t_mark = now;
    }

    /// When the job will complete, or reach its next rate change, at the
    /// current rate (None if it makes no progress).
    pub fn next_change(&self, now: f64) -> Option<(f64, bool)> {
        if self.phase != Phase::Running || self.rate <= 0.0 {
            return None;
        }
        let from = now.max(self.busy_until);
        let p = self.progress_at(now);
        if self.rate_until < self.work {
            Some((from + (self.rate_until - p).max(0.0) / self.rate, false))
        } else {
            Some((from + (self.work - p).max(0.0) / self.rate, true))
        }
    }
}

/// A job's restarts by what changed: more GPUs, fewer GPUs, as many GPUs
/// elsewhere (another type or other nodes), or back on GPUs after holding
/// none. Always sums to the job's restart count; the restart analyses of
/// docs/SIA.md read these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RestartKinds {
    pub grow: u32,
    pub shrink: u32,
    pub moved: u32,
    pub resumed: u32,
}

impl RestartKinds {
    /// Counts one restart from `old` (None: the job held no GPUs) to `new`.
    pub fn record(&mut self, old: Option<&Placement>, new: &Placement) {
        match old {
            None => self.resumed += 1,
            Some(o) if new.gpus() > o.gpus() => self.grow += 1,
            Some(o) if new.gpus() < o.gpus() => self.shrink += 1,
            Some(_) => self.moved += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.grow + self.shrink + self.moved + self.resumed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::cluster::{GpuKind, NodeShare, Part, Placement, Slice};

    /// `gpu_equiv` is kept with the placement (the reason log reads it for
    /// every record): it must be the placement's own count whatever it
    /// holds (whole GPUs on two nodes, a slice, whole GPUs plus parts).
    #[test]
    fn held_gpus_follow_the_placement() {
        let mut st = JobState::new(ModelId(0), 1.0);
        assert_eq!(st.gpu_equiv(), 0.0);
        let two_nodes = Placement::whole(
            GpuKind(0),
            vec![
                NodeShare {
                    node: 0,
                    mask: 0b1011,
                },
                NodeShare { node: 3, mask: 0b1 },
            ],
        );
        let mut slice = Placement::whole(GpuKind(1), vec![NodeShare { node: 1, mask: 0b1 }]);
        slice.slice = Some(Slice {
            share: 375,
            mem_mb: 1000,
        });
        let mut parts = Placement::whole(
            GpuKind(0),
            vec![NodeShare {
                node: 2,
                mask: 0b11,
            }],
        );
        parts.parts = vec![
            Part {
                node: 2,
                gpu: 5,
                share: 250,
            },
            Part {
                node: 4,
                gpu: 0,
                share: 333,
            },
        ];
        for p in [two_nodes, slice, parts] {
            let want = p.gpu_equiv();
            st.set_placement(Some(p));
            assert_eq!(st.gpu_equiv().to_bits(), want.to_bits());
        }
        st.set_placement(None);
        assert_eq!(st.gpu_equiv(), 0.0);
    }
}

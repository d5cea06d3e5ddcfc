//! SRTF and SRSF (AFS spec seed003 §3.1, §3.2): preemptive, non-elastic,
//! length-aware. Each event, jobs are ranked by remaining time at their
//! requested GPU count (SRTF) or by remaining time x requested GPUs (SRSF,
//! "remaining service"); walking the ranking, each job gets its request if
//! it can be placed and is skipped otherwise; running jobs left out are
//! preempted. Ties go to the earlier arrival. With `request=peak` each job
//! asks for its peak-throughput GPU count instead (the max-GPU variants of
//! AFS §5.2 / Fig 6, spec §3.8).

use super::{
    gang_plan, gang_request, Policy, PolicyInfo, Request, Trigger, REQUEST_PARAM,
    ROUND_PARAM_EVENTS,
};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// SRTF's and SRSF's settings (`--set srtf.KEY=VALUE`, `--set srsf.KEY=VALUE`).
    pub struct SrtfSettings {
        request: Request = shared(REQUEST_PARAM),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <SrtfSettings as Settings>::SPECS;

pub const SRTF_INFO: PolicyInfo = PolicyInfo {
    name: "srtf",
    title: "SRTF",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.1 baseline; spec seed003 §3.1"),
    description: schedlab_core::prose::doc("Shortest remaining time first at the requested GPU count; preemptive, gang-scheduled, skips jobs that do not fit."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srtf,
};

pub const SRSF_INFO: PolicyInfo = PolicyInfo {
    name: "srsf",
    title: "SRSF",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.1 baseline; Tiresias' length-aware SRSF; spec seed003 §3.2"),
    description: schedlab_core::prose::doc("Shortest remaining service (remaining time x requested GPUs) first; preemptive, gang-scheduled."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srsf,
};

fn build_srtf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(Srtf::new(&SrtfSettings::from_params(p), false)))
}

fn build_srsf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(Srtf::new(&SrtfSettings::from_params(p), true)))
}

impl Srtf {
    fn new(s: &SrtfSettings, by_service: bool) -> Srtf {
        Srtf {
            by_service,
            peak: s.request.peak(),
            round_s: s.round_s,
        }
    }
}

#[derive(Clone)]
struct Srtf {
    by_service: bool,
    /// Max-GPU variant: jobs get their peak-throughput GPU count.
    peak: bool,
    round_s: f64,
}

impl Policy for Srtf {
    fn name(&self) -> &str {
        if self.by_service {
            "srsf"
        } else {
            "srtf"
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ranked: Vec<(f64, u32)> = view
            .active()
            .iter()
            .map(|&j| {
                let req = gang_request(view, j, self.peak);
                let t = view.known_remaining_time(j, req);
                (if self.by_service { t * req as f64 } else { t }, j)
            })
            .collect();
        schedlab_core::sorting::sort_by(&mut ranked, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        let order: Vec<u32> = ranked.into_iter().map(|(_, j)| j).collect();
        let peak = self.peak;
        let (plan, _) = gang_plan(view, &order, true, &|j| gang_request(view, j, peak));
        out.apply_plan(view, plan);
    }
}

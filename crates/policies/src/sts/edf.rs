//! EDF, the STS paper's benchmark (spec seed002 §3.1): waiting jobs by
//! earliest due date; each takes, among the configurations free now, the
//! cheapest (price x remaining time) that meets its due date, else the
//! fastest; a job that fits nowhere is skipped. Configurations are never
//! re-evaluated: a running job keeps its GPUs until it completes. `avg-edf`
//! plans on the mean epoch count (the worst case once a job has run that
//! long; as EDF never re-plans, this only affects jobs not yet started).

use super::{configs, greedy_order, Laws, Times};
use crate::{Policy, PolicyInfo, Trigger};
use schedlab_sim::{Decision, View};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "edf",
    title: "EDF",
    source: schedlab_core::prose::doc("STS paper (Filippini et al., TCC 2024) §VII baseline, from its ref. [11]; spec seed002 §3"),
    description: schedlab_core::prose::doc("Earliest due date first, non-preemptive: each waiting job takes the cheapest free configuration that meets its due date (worst-case time), else the fastest free one"),
    params: &[],
    knowledge: crate::Knowledge::Declared,
    build: |_, _| Ok(edf(Times::Worst)),
};

pub const AVG_INFO: PolicyInfo = PolicyInfo {
    name: "avg-edf",
    title: "avgEDF",
    source: schedlab_core::prose::doc("STS paper §VII (avg* baselines); spec seed002 §3.4"),
    description: schedlab_core::prose::doc("EDF planning on the mean epoch count instead of the maximum (the maximum once a job has run past the mean)"),
    params: &[],
    knowledge: crate::Knowledge::Declared,
    build: |_, _| Ok(edf(Times::Mean)),
};

fn edf(times: Times) -> Box<dyn Policy> {
    Box::new(Edf {
        times,
        laws: Laws::default(),
    })
}

#[derive(Clone)]
struct Edf {
    times: Times,
    laws: Laws,
}

impl Policy for Edf {
    fn name(&self) -> &str {
        match self.times {
            Times::Worst => "edf",
            Times::Mean => "avg-edf",
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut waiting: Vec<(f64, u32)> = view
            .waiting()
            .iter()
            .map(|&j| (view.spec(j).due.unwrap_or(f64::INFINITY), j))
            .collect();
        schedlab_core::sorting::sort_by(&mut waiting, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        let mut packer = view.packer_idle();
        for (_, j) in waiting {
            if packer.free_total() == 0 {
                break;
            }
            let f = self.laws.facts(view, j);
            let all = configs(view, &f);
            for c in greedy_order(view.now(), &f, &all, self.times) {
                if let Some(p) = packer.claim(j, c.kind, c.gpus) {
                    out.assign(j, p, None);
                    break;
                }
            }
        }
    }
}

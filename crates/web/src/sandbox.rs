//! The single-job sandbox (STS spec §8.9): one job type on one GPU type
//! with a deadline the visitor drags, solved by STS's single-job model
//! (`policy::sts::staircase`), so the page can show the optimal staircase,
//! its expected cost and the early-stopping law that shapes it: cheap first,
//! faster later, only as much as the deadline needs.

use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::GpuKind;
use schedlab_model::perf::{Behaviour, ModelZoo};
use schedlab_policies::sts::planning_price;
use schedlab_policies::sts::staircase::{self, Level};
use serde::Serialize;

/// The optimal plan for one deadline, with what the page draws around it.
#[derive(Debug, Clone, Serialize)]
pub struct SandboxPlan {
    /// Maximum epochs.
    pub max_epochs: f64,
    /// Seconds of the full run at the top level and on one GPU (the
    /// slider's range).
    pub fastest_s: f64,
    pub slowest_s: f64,
    /// (GPUs, epoch at which the step ends), in order.
    pub steps: Vec<(u32, f64)>,
    pub expected_cost_usd: f64,
    pub feasible: bool,
    /// P(the job runs past epoch e), e = 0..=max.
    pub survival: Vec<f64>,
    /// What always running the cheapest level that meets the deadline
    /// alone would cost (EDF's choice), for comparison.
    pub single_level_cost_usd: f64,
}

/// Solves the single-job model for `model` on `kind` with `deadline_s`.
pub fn plan(zoo: &ModelZoo, model: &str, kind: &str, deadline_s: f64) -> Result<SandboxPlan> {
    let id = zoo
        .lookup(model)
        .ok_or_else(|| Error::config(format!("unknown model '{model}'")))?;
    let info = zoo.get(id);
    let kind = GpuKind::by_name(kind)
        .ok_or_else(|| Error::config(format!("unknown GPU type '{kind}'")))?;
    let (Behaviour::Table(table), Some(law)) = (&info.behaviour, &info.epochs) else {
        return Err(Error::config(format!(
            "'{model}' has no per-GPU table and epoch law (the STS job types do)"
        )));
    };
    let max = law.max_epochs as f64;
    let per_work = max / info.default_work.unwrap_or(max);
    let levels: Vec<Level> = table
        .counts(kind)
        .into_iter()
        .map(|g| Level {
            gpus: g,
            speed: table.rate(kind, g) * per_work,
            cost: planning_price(zoo.prices(), kind, g) / 3600.0,
        })
        .filter(|l| l.speed > 0.0)
        .collect();
    let (Some(first), Some(top)) = (
        levels.first(),
        levels.iter().max_by(|a, b| a.speed.total_cmp(&b.speed)),
    ) else {
        return Err(Error::config(format!(
            "'{model}' does not run on {}",
            kind.name()
        )));
    };
    let survival = law.survival();
    let job = staircase::Job {
        survival: &survival,
        done: 0.0,
        max,
        deadline: deadline_s,
    };
    let p = staircase::solve(&job, &levels).expect("levels have positive speeds");
    // The cheapest single level that meets the deadline (else the fastest).
    let expected = |l: &Level| l.cost / l.speed * survival.mean();
    let single = levels
        .iter()
        .filter(|l| max / l.speed <= deadline_s)
        .map(expected)
        .fold(f64::INFINITY, f64::min);
    Ok(SandboxPlan {
        max_epochs: max,
        fastest_s: max / top.speed,
        slowest_s: max / first.speed,
        steps: p.steps.iter().map(|(l, until)| (l.gpus, *until)).collect(),
        expected_cost_usd: p.expected_cost,
        feasible: p.feasible,
        survival: (0..=law.max_epochs)
            .map(|e| survival.at(e as f64))
            .collect(),
        single_level_cost_usd: if single.is_finite() {
            single
        } else {
            expected(top)
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tighter_deadline_steps_up_sooner_and_costs_more() {
        let zoo = ModelZoo::builtin();
        let m = "sts/pytorch-resnet-bs32-sgd";
        let loose = plan(&zoo, m, "a100-80", 1e9).unwrap();
        assert_eq!(loose.steps.len(), 1);
        assert_eq!(loose.steps[0].0, 1);
        let mid = 0.5 * (loose.fastest_s + loose.slowest_s);
        let tight = plan(&zoo, m, "a100-80", 0.7 * mid).unwrap();
        let tighter = plan(&zoo, m, "a100-80", 0.5 * mid).unwrap();
        assert!(tight.feasible && tighter.feasible);
        assert!(tighter.expected_cost_usd > tight.expected_cost_usd);
        assert!(tight.expected_cost_usd > loose.expected_cost_usd);
        // Never worse than the best single level meeting the deadline.
        assert!(tight.expected_cost_usd <= tight.single_level_cost_usd * (1.0 + 1e-9));
        assert_eq!(tight.survival.len(), 101);
        assert!(plan(&zoo, "linear", "a100-80", 10.0).is_err());
        assert!(!plan(&zoo, m, "a100-80", 1.0).unwrap().feasible);
    }
}

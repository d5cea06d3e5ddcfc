//! Fluid GPU shares on real GPUs: a policy that decides fractional shares
//! (PCS's fluid WFQ, spec seed001 §7.7) places each job's whole GPUs as
//! usual, then lays the fractions out as time-shared parts
//! ([`Part`]) on the GPUs nobody holds whole, by McNaughton's wrap-around
//! rule: fractions fill the free GPUs one after another in job order, and
//! a fraction that does not fit in what is left of a GPU continues on the
//! next. A job's two pieces then never need to run at the same instant
//! (the piece on the next GPU starts its turn where the first one's ends),
//! so it uses at most one GPU beyond its whole ones at a time, and the
//! engine runs it at its throughput interpolated between the two whole
//! counts (`ModelZoo::rate_fluid`). Fractions are whole thousandths of a
//! GPU (the engine's unit for shared GPUs).

use schedlab_model::cluster::{GpuKind, Packer, Part, Placement, Slice};
use schedlab_sim::View;

use crate::helpers::alloc::{Plan, Share};

/// Fractions of a GPU below this are rounding noise, not a share.
pub const FRAC_EPS: f64 = 1e-6;

/// An elastic job's fluid share `a` (GPUs, at most `cap` useful) as whole
/// GPUs to place (`Share`) and the fraction left for time-shared parts
/// (None when there is none worth a part).
pub fn split(job: u32, a: f64, cap: u32) -> (Share, Option<(u32, f64)>) {
    let count = ((a + FRAC_EPS).floor() as u32).min(cap);
    let share = Share {
        job,
        count,
        min: count.min(1),
        cap,
    };
    let fraction = (a - count as f64).clamp(0.0, 1.0);
    (
        share,
        (count < cap && fraction > FRAC_EPS).then_some((job, fraction)),
    )
}

/// The free GPUs of one type in layout order and how much of the current
/// one the parts laid so far take.
struct Wrap {
    kind: GpuKind,
    gpus: Vec<(u32, u8)>,
    next: usize,
    used: u16,
}

impl Wrap {
    /// Thousandths still free on this type's GPUs.
    fn room(&self) -> u32 {
        let whole = (self.gpus.len() - self.next.min(self.gpus.len())) as u32;
        (whole * Slice::WHOLE as u32).saturating_sub(self.used as u32)
    }

    /// Lays `want` thousandths out from the current GPU on (as much as fits).
    fn take(&mut self, mut want: u16) -> Vec<Part> {
        let mut parts = Vec::with_capacity(2);
        while want > 0 && self.next < self.gpus.len() {
            let give = want.min(Slice::WHOLE - self.used);
            let (node, gpu) = self.gpus[self.next];
            parts.push(Part {
                node,
                gpu,
                share: give,
            });
            want -= give;
            self.used += give;
            if self.used == Slice::WHOLE {
                self.next += 1;
                self.used = 0;
            }
        }
        parts
    }
}

/// Adds each job's fractional share (`fractions`: job, fraction in [0, 1),
/// in the order to lay them out) to `plan` as time-shared parts on the GPUs
/// the plan leaves free. A job that holds whole GPUs gets its parts on its
/// own type; a job without any joins the plan on the type with the most
/// room left. A fraction that finds no room is dropped (the job keeps its
/// whole GPUs).
pub fn add_parts(view: &View, plan: &mut Plan, fractions: &[(u32, f64)]) {
    if fractions.iter().all(|&(_, f)| f <= 0.0) {
        return;
    }
    let packer = Packer::idle_only(
        view.cluster(),
        view.placement_rule(),
        plan.iter().map(|(_, p, _)| p),
    );
    let mut wraps: Vec<Wrap> = view
        .cluster()
        .kinds
        .iter()
        .map(|&kind| Wrap {
            kind,
            gpus: free_gpus(&packer, view, kind),
            next: 0,
            used: 0,
        })
        .collect();
    // Each job's index in the plan (the plan grows below, by jobs not in it).
    let index: std::collections::BTreeMap<u32, usize> = plan
        .iter()
        .enumerate()
        .map(|(i, (j, _, _))| (*j, i))
        .collect();
    for &(job, fraction) in fractions {
        let want = (fraction * Slice::WHOLE as f64).floor();
        if want.is_nan() || want < 1.0 {
            continue;
        }
        let want = (want as u16).min(Slice::WHOLE - 1);
        let held = index.get(&job).copied();
        let wrap = match held {
            Some(i) => wraps.iter_mut().find(|w| w.kind == plan[i].1.kind),
            None => wraps
                .iter_mut()
                .max_by_key(|w| (w.room(), std::cmp::Reverse(w.kind.0))),
        };
        let Some(wrap) = wrap else { continue };
        let parts = wrap.take(want);
        if parts.is_empty() {
            continue;
        }
        match held {
            Some(i) => plan[i].1.parts = parts,
            None => plan.push((job, Placement::fluid(wrap.kind, Vec::new(), parts), None)),
        }
    }
}

/// Free GPUs of one type, by node then local index.
fn free_gpus(packer: &Packer, view: &View, kind: GpuKind) -> Vec<(u32, u8)> {
    let mut out = Vec::new();
    for (n, node) in view.cluster().nodes.iter().enumerate() {
        if node.kind != kind {
            continue;
        }
        let mut m = packer.free_mask(n as u32);
        while m != 0 {
            out.push((n as u32, m.trailing_zeros() as u8));
            m &= m - 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(gpus: usize) -> Wrap {
        Wrap {
            kind: GpuKind(0),
            gpus: (0..gpus).map(|g| (0, g as u8)).collect(),
            next: 0,
            used: 0,
        }
    }

    #[test]
    fn fractions_wrap_onto_the_next_gpu_and_never_overlap_in_time() {
        // 0.6 + 0.6 + 0.8 = 2.0 GPUs: no packing without splitting fits
        // them on two GPUs; the wrap-around rule does.
        let mut w = wrap(2);
        let a = w.take(600);
        let b = w.take(600);
        let c = w.take(800);
        assert_eq!(
            a,
            vec![Part {
                node: 0,
                gpu: 0,
                share: 600
            }]
        );
        assert_eq!(
            b,
            vec![
                Part {
                    node: 0,
                    gpu: 0,
                    share: 400
                },
                Part {
                    node: 0,
                    gpu: 1,
                    share: 200
                }
            ]
        );
        assert_eq!(
            c,
            vec![Part {
                node: 0,
                gpu: 1,
                share: 800
            }]
        );
        // b runs on GPU 0 in [0.6, 1.0) of each turn and on GPU 1 in
        // [0, 0.2): the two pieces do not overlap.
        assert!(b[1].share <= Slice::WHOLE - b[0].share);
        assert_eq!(w.room(), 0);
        assert!(w.take(5).is_empty(), "no room left");
    }
}

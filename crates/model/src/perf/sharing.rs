//! Interference when jobs share a GPU (a placement's `Slice`), and the
//! GPU fractions a scheduler may offer.
//!
//! STS (spec 2.7) lets a single-GPU job take a fraction f of one GPU whose
//! memory it fits; it then runs at its 1-GPU speed divided by a slowdown
//! b_f, drawn per job from U(1.01, b_f,max) in the paper's Table IV (and
//! the authors' `fractions.csv`). The engine uses one slowdown per slot,
//! known to every policy, rather than a hidden per-job draw:
//! - a [`SharingTable`] lists the slots per GPU type (fraction, the memory
//!   it holds, its slowdown). The built-in table has Table IV's fractions
//!   with the slowdown line below; the authors' data (`perf::sts_data`)
//!   replaces a type's slots with the mean of its draw, (1.01 + b_f,max) / 2;
//! - any other slice (other types, other fractions) runs at the line
//!   b(f) = 1 + 0.1 (1 - f): 1.05 at f = 1/2, 1.075 at 1/4 and 1.09 at 0.1
//!   (Table IV's means are 1.03, 1.06 and 1.09).

use super::ModelInfo;
use crate::cluster::GpuKind;
use serde::Serialize;

/// Extra slowdown per unit of GPU fraction given up (see the module doc).
pub const SHARE_SLOWDOWN_SLOPE: f64 = 0.1;

/// The slowdown line for a slice of `fraction` of a GPU (1 for a whole GPU).
pub fn line_slowdown(fraction: f64) -> f64 {
    if fraction >= 1.0 {
        1.0
    } else {
        1.0 + SHARE_SLOWDOWN_SLOPE * (1.0 - fraction.max(0.0))
    }
}

impl ModelInfo {
    /// How much slower the model runs on `fraction` of one GPU than on the
    /// whole GPU (1 for a whole GPU), where no slot says otherwise.
    pub fn share_slowdown(&self, fraction: f64) -> f64 {
        line_slowdown(fraction)
    }
}

/// One GPU fraction a job may take.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Slot {
    pub kind: GpuKind,
    /// Share of one GPU, in (0, 1).
    pub fraction: f64,
    /// Largest memory need (GB) the slot holds: fraction x the GPU's memory.
    pub mem_gb: f64,
    /// Time on the slot / time on the whole GPU.
    pub slowdown: f64,
}

/// Table IV's slots: (type, fraction).
const TABLE_IV: &[(&str, f64)] = &[
    ("k80-board", 0.25),
    ("k80-board", 0.5),
    ("m60-board", 0.25),
    ("m60-board", 0.5),
    ("a100-80", 0.1),
    ("a100-80", 0.15),
];

/// The GPU fractions offered per type, with their slowdowns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharingTable {
    slots: Vec<Slot>,
}

impl Default for SharingTable {
    fn default() -> Self {
        SharingTable::table_iv()
    }
}

impl SharingTable {
    /// The paper's Table IV fractions with the slowdown line.
    pub fn table_iv() -> SharingTable {
        let slots = TABLE_IV
            .iter()
            .map(|(name, f)| {
                let kind = GpuKind::by_name(name).expect("catalog type");
                Slot {
                    kind,
                    fraction: *f,
                    mem_gb: f * kind.info().memory_gb,
                    slowdown: line_slowdown(*f),
                }
            })
            .collect();
        SharingTable { slots }
    }

    /// Replaces every slot of `kind` with `slots` (all of that kind).
    pub fn set(&mut self, kind: GpuKind, mut slots: Vec<Slot>) {
        self.slots.retain(|s| s.kind != kind);
        schedlab_core::sorting::sort_by(&mut slots, |a, b| a.fraction.total_cmp(&b.fraction));
        self.slots.extend(slots);
    }

    /// The slots of `kind`, smallest fraction first.
    pub fn slots(&self, kind: GpuKind) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(move |s| s.kind == kind)
    }

    /// The slowdown of a slice of `fraction` of a `kind` GPU: its slot's,
    /// else the line's.
    pub fn slowdown(&self, kind: GpuKind, fraction: f64) -> f64 {
        self.slots(kind)
            .find(|s| (s.fraction - fraction).abs() < 1e-3)
            .map_or_else(|| line_slowdown(fraction), |s| s.slowdown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_iv_slots_and_their_slowdowns() {
        let t = SharingTable::table_iv();
        let k80 = GpuKind::by_name("k80-board").unwrap();
        let f: Vec<f64> = t.slots(k80).map(|s| s.fraction).collect();
        assert_eq!(f, vec![0.25, 0.5]);
        assert_eq!(t.slots(k80).next().unwrap().mem_gb, 6.0);
        assert!((t.slowdown(k80, 0.25) - 1.075).abs() < 1e-12);
        // A fraction with no slot follows the line.
        assert!((t.slowdown(k80, 0.75) - 1.025).abs() < 1e-12);
        let mut t = t;
        t.set(
            k80,
            vec![Slot {
                kind: k80,
                fraction: 0.25,
                mem_gb: 6.0,
                slowdown: 1.06,
            }],
        );
        assert_eq!(t.slowdown(k80, 0.25), 1.06);
        assert_eq!(t.slots(k80).count(), 1);
    }
}

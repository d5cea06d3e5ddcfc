//! Power draw per GPU type, for energy metrics.
//!
//! Busy power is the vendor's maximum board power (TDP) from the GPU
//! catalog (`cluster::CATALOG`, NVIDIA datasheets): an upper bound on what
//! a training job draws. Idle power is the typical draw of an idle board
//! in its lowest performance state (P8) as reported by `nvidia-smi`; none
//! of the five papers publishes it, so these are approximate figures
//! (about ±50%) from public measurements and are labelled as such. Energy
//! results that depend on them should say so.

use crate::cluster::GpuKind;
use serde::Serialize;

/// Idle and busy watts of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GpuPower {
    pub idle_w: f64,
    pub busy_w: f64,
    /// Where the idle figure comes from.
    pub idle_source: &'static str,
    pub busy_source: &'static str,
}

const BUSY_SOURCE: &str = "vendor maximum board power (NVIDIA datasheet), per GPU";
const IDLE_SOURCE: &str =
    "approximate idle (P8) draw reported by nvidia-smi in public measurements; not from the papers";

/// Idle watts by catalog name.
const IDLE_W: &[(&str, f64)] = &[
    ("t4", 10.0),
    ("rtx", 20.0),
    ("a100", 50.0),
    ("v100", 40.0),
    ("p100", 30.0),
    ("k80", 25.0),
    ("quad", 20.0),
    ("gtx1080", 10.0),
    ("m60", 15.0),
    ("a100-80", 60.0),
    ("k80-board", 50.0),
    ("m60-board", 30.0),
    ("a10", 15.0),
    ("a100-pcie", 35.0),
];

/// The power figures of one GPU type.
pub fn gpu_power(kind: GpuKind) -> GpuPower {
    let info = kind.info();
    let idle = IDLE_W
        .iter()
        .find(|(n, _)| *n == info.name)
        .map_or(0.15 * info.tdp_w, |(_, w)| *w);
    GpuPower {
        idle_w: idle,
        busy_w: info.tdp_w,
        idle_source: IDLE_SOURCE,
        busy_source: BUSY_SOURCE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::CATALOG;

    #[test]
    fn every_type_has_idle_below_busy() {
        for (i, t) in CATALOG.iter().enumerate() {
            let p = gpu_power(GpuKind(i as u8));
            assert!(p.idle_w > 0.0 && p.idle_w < p.busy_w, "{}", t.name);
            assert!(
                IDLE_W.iter().any(|(n, _)| *n == t.name),
                "{} lacks an idle figure",
                t.name
            );
        }
        assert_eq!(gpu_power(GpuKind::by_name("t4").unwrap()).busy_w, 70.0);
    }
}

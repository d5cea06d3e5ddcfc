//! Price per GPU-hour, for cost metrics.
//!
//! STS (spec seed002 §2.2, Table III) charges "energy" as the cloud price
//! of the GPUs a node uses, linear in their number: K80 $0.90, M60 $1.14 and
//! A100 $3.673 per GPU-hour (Azure's per-GPU prices, as the paper cites
//! them). Other types have no price in any of the five papers; a run on
//! them reports GPU-hours but no cost.

use crate::cluster::GpuKind;

/// Dollars per GPU-hour by catalog name (Table III of the STS paper).
const PRICE_USD_H: &[(&str, f64)] = &[("k80-board", 0.90), ("m60-board", 1.14), ("a100-80", 3.673)];

/// The price of one GPU of `kind` for an hour, if a paper gives one.
pub fn gpu_price_usd_h(kind: GpuKind) -> Option<f64> {
    let name = kind.name();
    PRICE_USD_H
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_three_prices() {
        let k = |n| GpuKind::by_name(n).unwrap();
        assert_eq!(gpu_price_usd_h(k("k80-board")), Some(0.90));
        assert_eq!(gpu_price_usd_h(k("a100-80")), Some(3.673));
        assert_eq!(gpu_price_usd_h(k("t4")), None);
    }
}

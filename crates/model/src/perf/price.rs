//! What GPUs cost per hour, for cost metrics and cost-aware policies.
//!
//! STS (spec seed002 §2.2, Table III) charges "energy" as the cloud price
//! of the GPUs a node uses: c(type, k) dollars per hour for a node with k
//! busy GPUs. The paper's Table III is linear in k: K80 $0.90, M60 $1.14
//! and A100 $3.673 per GPU-hour (Azure's per-GPU prices, as the paper cites
//! them); the authors' data (`GPU-cost_server.csv`, read by
//! `perf::sts_data`) gives a node cost per count that is not quite linear
//! (K80: 0.56, 1.13, 1.69, 2.25, ...). A [`PriceTable`] holds either; the
//! zoo carries one (`ModelZoo::prices`), the engine meters with it and
//! policies plan with it. Types without a price report GPU-hours but no
//! cost.

use crate::cluster::GpuKind;
use serde::Serialize;

/// Dollars per GPU-hour by catalog name (Table III of the STS paper).
const TABLE_III_USD_H: &[(&str, f64)] =
    &[("k80-board", 0.90), ("m60-board", 1.14), ("a100-80", 3.673)];

/// GPUs per node Table III lists (its node size).
const TABLE_III_COUNTS: u32 = 8;

/// One GPU type's node cost by busy GPU count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindPrices {
    pub kind: GpuKind,
    /// Dollars per hour for a node with k busy GPUs, k = 1..=len.
    pub per_count: Vec<f64>,
    /// Where the numbers come from.
    pub source: String,
}

/// Node cost per hour by GPU type and busy count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceTable {
    kinds: Vec<KindPrices>,
}

impl Default for PriceTable {
    /// The paper's Table III.
    fn default() -> Self {
        PriceTable::table_iii()
    }
}

impl PriceTable {
    /// The STS paper's Table III: linear in the GPU count.
    pub fn table_iii() -> PriceTable {
        let kinds = TABLE_III_USD_H
            .iter()
            .map(|(name, p)| KindPrices {
                kind: GpuKind::by_name(name).expect("catalog type"),
                per_count: (1..=TABLE_III_COUNTS).map(|k| p * k as f64).collect(),
                source: "STS paper Table III (linear per GPU)".into(),
            })
            .collect();
        PriceTable { kinds }
    }

    /// Sets (or replaces) one type's node costs; `per_count[k - 1]` is the
    /// cost of k busy GPUs.
    pub fn set(&mut self, kind: GpuKind, per_count: Vec<f64>, source: &str) {
        let entry = KindPrices {
            kind,
            per_count,
            source: source.to_string(),
        };
        match self.kinds.iter_mut().find(|k| k.kind == kind) {
            Some(k) => *k = entry,
            None => self.kinds.push(entry),
        }
    }

    pub fn kinds(&self) -> &[KindPrices] {
        &self.kinds
    }

    fn of(&self, kind: GpuKind) -> Option<&KindPrices> {
        self.kinds
            .iter()
            .find(|k| k.kind == kind && !k.per_count.is_empty())
    }

    /// True when `kind` has a price.
    pub fn has(&self, kind: GpuKind) -> bool {
        self.of(kind).is_some()
    }

    /// Dollars per hour for a node of `kind` with `gpus` busy GPUs (0 for
    /// none: an idle node is off). Beyond the table's largest count the
    /// cost grows linearly at its per-GPU average there.
    pub fn usd_h(&self, kind: GpuKind, gpus: u32) -> Option<f64> {
        let p = self.of(kind)?;
        let n = p.per_count.len() as u32;
        Some(match gpus {
            0 => 0.0,
            g if g <= n => p.per_count[g as usize - 1],
            g => p.per_count[n as usize - 1] * g as f64 / n as f64,
        })
    }

    /// The price of one GPU-hour of `kind`: the table's per-GPU average at
    /// its largest count (what an idle GPU on a powered node is charged at
    /// `engine.idle_price` = 1, and what reports show per type).
    pub fn per_gpu_usd_h(&self, kind: GpuKind) -> Option<f64> {
        let p = self.of(kind)?;
        p.per_count.last().map(|c| c / p.per_count.len() as f64)
    }
}

/// The price of one GPU of `kind` for an hour in Table III, if the paper
/// gives one.
pub fn gpu_price_usd_h(kind: GpuKind) -> Option<f64> {
    let name = kind.name();
    TABLE_III_USD_H
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
        let t = PriceTable::table_iii();
        assert!((t.usd_h(k("m60-board"), 3).unwrap() - 3.42).abs() < 1e-9);
        assert_eq!(t.usd_h(k("m60-board"), 0), Some(0.0));
        assert!((t.usd_h(k("k80-board"), 16).unwrap() - 14.4).abs() < 1e-9);
    }

    #[test]
    fn a_node_cost_table_replaces_a_type() {
        let k80 = GpuKind::by_name("k80-board").unwrap();
        let mut t = PriceTable::table_iii();
        t.set(k80, vec![0.56, 1.13, 1.69, 2.25], "test");
        assert_eq!(t.usd_h(k80, 2), Some(1.13));
        assert!((t.per_gpu_usd_h(k80).unwrap() - 0.5625).abs() < 1e-12);
        // Beyond the table: linear at the last per-GPU average.
        assert!((t.usd_h(k80, 8).unwrap() - 4.5).abs() < 1e-12);
    }
}

//! Policies' per-round insight (`sim::insight`, Sia's goodput matrix) as
//! flat columns for the page, and the lookup "the round at or just before
//! time t". The page receives the columns once with the result (typed
//! arrays) and repeats [`InsightColumns::round_at`] in `www/js/insight.js`;
//! `wasm::Run::insight_at` answers the same question from the run itself.

use schedlab_sim::{Outcome, RoundInsight};
use std::collections::BTreeMap;

/// Every recorded round of a run, concatenated. Round `i`'s columns are
/// `cols[col_offsets[i] .. col_offsets[i+1]]` (indexes into `labels`), its
/// rows `row_offsets[i] .. row_offsets[i+1]` of `jobs` / `restart` /
/// `chosen`, and its cells `cell_offsets[i] ..` (rows x columns, row-major)
/// of `norm` and `raw`.
#[derive(Debug, Clone, Default)]
pub struct InsightColumns {
    /// Distinct column labels of the run (`4×rtx`, `16×a100 (2n)`), and
    /// what each stands for: GPU type (index into the catalog's
    /// `gpu_types`), GPUs and nodes.
    pub labels: Vec<String>,
    pub label_kind: Vec<u8>,
    pub label_gpus: Vec<u32>,
    pub label_nodes: Vec<u32>,
    /// Times of the rounds that recorded a matrix, ascending.
    pub t: Vec<f64>,
    pub rows_total: Vec<u32>,
    pub col_offsets: Vec<u32>,
    pub cols: Vec<u32>,
    pub row_offsets: Vec<u32>,
    pub jobs: Vec<u32>,
    pub restart: Vec<f32>,
    /// Column within the round (not a label index), -1 = none.
    pub chosen: Vec<i32>,
    pub cell_offsets: Vec<u32>,
    pub norm: Vec<f32>,
    pub raw: Vec<f32>,
}

/// One round, as `wasm::Run::insight_at` returns it.
#[derive(Debug, Clone)]
pub struct InsightAt<'a> {
    pub t: f64,
    pub labels: Vec<String>,
    pub insight: &'a RoundInsight,
}

/// The last round at or before `t` that recorded an insight.
pub fn insight_at(o: &Outcome, t: f64) -> Option<InsightAt<'_>> {
    let upto = o.rounds.partition_point(|r| r.t <= t);
    o.rounds[..upto].iter().rev().find_map(|r| {
        r.insight.as_deref().map(|ins| InsightAt {
            t: r.t,
            labels: ins.configs.iter().map(|c| c.label()).collect(),
            insight: ins,
        })
    })
}

impl InsightColumns {
    pub fn from_outcome(o: &Outcome) -> InsightColumns {
        let mut c = InsightColumns {
            col_offsets: vec![0],
            row_offsets: vec![0],
            cell_offsets: vec![0],
            ..Default::default()
        };
        let mut label_ix: BTreeMap<String, u32> = BTreeMap::new();
        for r in &o.rounds {
            let Some(ins) = r.insight.as_deref() else {
                continue;
            };
            c.t.push(r.t);
            c.rows_total.push(ins.rows_total);
            for col in &ins.configs {
                let label = col.label();
                let next = label_ix.len() as u32;
                let ix = *label_ix.entry(label.clone()).or_insert_with(|| {
                    c.labels.push(label);
                    c.label_kind.push(col.kind.0);
                    c.label_gpus.push(col.gpus);
                    c.label_nodes.push(col.nodes);
                    next
                });
                c.cols.push(ix);
            }
            c.jobs.extend_from_slice(&ins.jobs);
            c.restart.extend_from_slice(&ins.restart);
            c.chosen.extend_from_slice(&ins.chosen);
            c.norm.extend_from_slice(&ins.norm);
            c.raw.extend_from_slice(&ins.raw);
            c.col_offsets.push(c.cols.len() as u32);
            c.row_offsets.push(c.jobs.len() as u32);
            c.cell_offsets.push(c.norm.len() as u32);
        }
        c
    }

    /// Index of the last recorded round at or before `t`.
    pub fn round_at(&self, t: f64) -> Option<usize> {
        self.t.partition_point(|x| *x <= t).checked_sub(1)
    }

    /// Cells stored (both matrices have this many).
    pub fn cells(&self) -> usize {
        self.norm.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{load_trace, Runner};

    #[test]
    fn columns_hold_every_round_and_the_lookup_takes_the_round_at_or_before() {
        let trace = load_trace("sia-philly", "").unwrap();
        let jobs: Vec<_> = trace.jobs.into_iter().take(30).collect();
        let trace = schedlab_model::workload::Trace::from_jobs("sia-30", jobs).unwrap();
        let mut r = Runner::new(trace, "sia-hetero-64", "sia", &[], 1).unwrap();
        r.run(1000, &mut |_| true).unwrap();
        let f = r.finish().unwrap();
        let o = &f.run.outcome;
        let c = &f.insight;
        assert_eq!(c.t.len(), o.rounds.len());
        assert!(c.t.len() > 10);
        assert_eq!(*c.cell_offsets.last().unwrap() as usize, c.norm.len());
        assert_eq!(c.row_offsets.len(), c.t.len() + 1);
        // Columns are the same table every round on this trace (no rigid jobs).
        assert_eq!(c.labels.len(), 19);
        assert_eq!(c.label_gpus.len(), 19);
        let big = c.labels.iter().position(|l| l == "16×a100 (2n)").unwrap();
        assert_eq!((c.label_gpus[big], c.label_nodes[big]), (16, 2));
        assert_eq!(
            schedlab_model::cluster::GpuKind(c.label_kind[big]).name(),
            "a100"
        );
        let i = c.t.len() / 2;
        let t = c.t[i] + 1.0;
        assert_eq!(c.round_at(t), Some(i));
        assert_eq!(c.round_at(c.t[i]), Some(i));
        assert_eq!(c.round_at(c.t[0] - 1.0), None);
        let at = insight_at(o, t).unwrap();
        assert_eq!(at.t, c.t[i]);
        let (r0, r1) = (c.row_offsets[i] as usize, c.row_offsets[i + 1] as usize);
        assert_eq!(at.insight.jobs, c.jobs[r0..r1]);
        let (k0, k1) = (c.cell_offsets[i] as usize, c.cell_offsets[i + 1] as usize);
        assert_eq!(
            at.insight
                .norm
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            c.norm[k0..k1]
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        );
        let labels: Vec<&str> = c.cols[c.col_offsets[i] as usize..c.col_offsets[i + 1] as usize]
            .iter()
            .map(|l| c.labels[*l as usize].as_str())
            .collect();
        assert_eq!(at.labels, labels);
        assert!(insight_at(o, c.t[0] - 1.0).is_none());
        // Policies that record nothing give empty columns.
        let trace = load_trace("afs-mini", "").unwrap();
        let mut r = Runner::new(trace, "afs-64", "fifo", &[], 1).unwrap();
        r.run(1000, &mut |_| true).unwrap();
        let f = r.finish().unwrap();
        assert!(f.insight.t.is_empty() && f.insight.cells() == 0);
    }
}

crate::columns::columnar!(InsightColumns {
    labels: Str,
    label_kind: U8,
    label_gpus: U32,
    label_nodes: U32,
    t: F64,
    rows_total: U32,
    col_offsets: U32,
    cols: U32,
    row_offsets: U32,
    jobs: U32,
    restart: F32,
    chosen: I32,
    cell_offsets: U32,
    norm: F32,
    raw: F32,
});

//! The reasons a run kept (`sim::reason`), flat and bounded: per policy
//! call, one record per job the policy explained, so a call's records are
//! the whole of what it said (the queue in its order, the jobs it walked).
//! Values live in one array and a record whose values equal its job's
//! previous ones (same rule) points at them instead of copying; texts are
//! interned. The page receives the log as columns; `schedlab explain`
//! reads one job's records.
//!
//! Bounds: at most [`MAX_REASON_RECORDS`] records and [`MAX_REASON_VALUES`]
//! values per run; later calls record none and `capped_at` says from when.

use crate::reason::{Reasons, Rule, Unit, Val};
use std::collections::BTreeMap;

/// Records a run keeps at most (20 bytes each: 40 MB).
pub const MAX_REASON_RECORDS: usize = 2_000_000;
/// Values a run keeps at most (8 bytes each: 16 MB).
pub const MAX_REASON_VALUES: usize = 2_000_000;

/// One policy call that gave reasons.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReasonCall {
    pub t: f64,
    /// Its records are `records[first .. next call's first]`.
    pub first: u32,
}

/// One job's reason in one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReasonRecord {
    pub job: u32,
    /// Index into [`ReasonLog::rules`].
    pub rule: u32,
    /// The job's place in the policy's order (0 = first), if the rule ranks.
    pub rank: Option<u32>,
    /// GPUs the decision gives the job (what it holds once in effect).
    pub gpus: f32,
    /// The values are `values[offset .. offset + the rule's field count]`.
    pub offset: u32,
}

/// Every reason a run kept, in call order.
#[derive(Debug, Clone, Default)]
pub struct ReasonLog {
    pub rules: Vec<&'static Rule>,
    pub calls: Vec<ReasonCall>,
    pub records: Vec<ReasonRecord>,
    /// Numbers; a text field holds the index of its text in `texts`.
    pub values: Vec<f64>,
    pub texts: Vec<String>,
    /// The first call whose reasons were not kept (a bound was reached).
    pub capped_at: Option<f64>,
    /// Keep only this job's reasons (`schedlab explain`); None = all.
    pub only_job: Option<u32>,
    rule_ix: BTreeMap<&'static str, u32>,
    text_ix: BTreeMap<String, u32>,
    /// Per job id: its last record's (rule, offset), to share equal values.
    last: Vec<Option<(u32, u32)>>,
    /// One record's numbers while they are compared and stored (reused).
    scratch: Vec<f64>,
}

impl ReasonLog {
    /// True while more reasons fit.
    pub fn has_room(&self) -> bool {
        self.capped_at.is_none()
    }

    /// Keeps the reasons of one call at `t`; `gpus(job)` is what the
    /// decision gives the job.
    pub fn keep(&mut self, t: f64, reasons: &Reasons, gpus: impl Fn(u32) -> f64) {
        if !self.has_room() {
            return;
        }
        if self.records.len() + reasons.len() > MAX_REASON_RECORDS
            || self.values.len() + reasons.values.len() > MAX_REASON_VALUES
        {
            self.capped_at = Some(t);
            return;
        }
        let first = self.records.len() as u32;
        // One growth check per call, not one per record.
        self.records.reserve(reasons.len());
        // The call's texts are in value order: a cursor walks them.
        let mut texts = reasons.texts.iter().peekable();
        // A call gives runs of one rule: look each run's rule up once.
        let mut known: Option<(&'static Rule, u32)> = None;
        // A reason with text fields has its numbers assembled here, the
        // texts as their indexes in the log (taken for the call).
        let mut scratch = std::mem::take(&mut self.scratch);
        for r in &reasons.heads {
            let from = r.start as usize;
            let to = from + r.rule.fields.len();
            if self.only_job.is_some_and(|j| j != r.job) {
                while texts.next_if(|(i, _)| (*i as usize) < to).is_some() {}
                continue;
            }
            let rule = match known {
                Some((k, i)) if std::ptr::eq(k, r.rule) => i,
                _ => {
                    let i = self.rule_index(r.rule);
                    known = Some((r.rule, i));
                    i
                }
            };
            let mut nums = &reasons.values[from..to];
            if texts.peek().is_some_and(|(i, _)| (*i as usize) < to) {
                scratch.clear();
                scratch.extend_from_slice(nums);
                while let Some((i, text)) = texts.next_if(|(i, _)| (*i as usize) < to) {
                    scratch[*i as usize - from] = self.text_index(text) as f64;
                }
                nums = &scratch;
            }
            let offset = self.store_values(r.job, rule, nums);
            self.records.push(ReasonRecord {
                job: r.job,
                rule,
                rank: r.rank,
                gpus: gpus(r.job) as f32,
                offset,
            });
        }
        self.scratch = scratch;
        if self.records.len() as u32 > first {
            self.calls.push(ReasonCall { t, first });
        }
    }

    /// Stores a record's values, or points at the job's previous ones
    /// when they are equal under the same rule (inlined: once per record).
    #[inline(always)]
    fn store_values(&mut self, job: u32, rule: u32, nums: &[f64]) -> u32 {
        let j = job as usize;
        if j >= self.last.len() {
            self.last.resize(j + 1, None);
        }
        let slot = &mut self.last[j];
        if let Some((prev_rule, prev)) = *slot {
            let at = prev as usize;
            if prev_rule == rule
                && self
                    .values
                    .get(at..at + nums.len())
                    .is_some_and(|old| same_values(old, nums))
            {
                return prev;
            }
        }
        let offset = self.values.len() as u32;
        self.values.extend_from_slice(nums);
        *slot = Some((rule, offset));
        offset
    }

    /// The records of call `c`.
    pub fn records_of_call(&self, c: usize) -> &[ReasonRecord] {
        let from = self.calls[c].first as usize;
        let to = self
            .calls
            .get(c + 1)
            .map_or(self.records.len(), |n| n.first as usize);
        &self.records[from..to]
    }

    /// The last call at or before `t`, if any.
    pub fn call_at(&self, t: f64) -> Option<usize> {
        self.calls.partition_point(|c| c.t <= t).checked_sub(1)
    }

    /// Every (call time, record) of one job, in time order.
    pub fn of_job(&self, job: u32) -> Vec<(f64, &ReasonRecord)> {
        (0..self.calls.len())
            .flat_map(|c| {
                let t = self.calls[c].t;
                self.records_of_call(c)
                    .iter()
                    .filter(move |r| r.job == job)
                    .map(move |r| (t, r))
            })
            .collect()
    }

    /// A record's values (text fields as indexes into `texts`).
    pub fn values_of(&self, r: &ReasonRecord) -> &[f64] {
        let n = self.rules[r.rule as usize].fields.len();
        let at = r.offset as usize;
        &self.values[at..at + n]
    }

    /// A record's values as the rule's typed values.
    pub fn vals(&self, r: &ReasonRecord) -> Vec<Val> {
        let rule = self.rules[r.rule as usize];
        self.values_of(r)
            .iter()
            .zip(rule.fields)
            .map(|(x, f)| match f.unit {
                Unit::Text => Val::Text(self.texts.get(*x as usize).cloned().unwrap_or_default()),
                _ => Val::Num(*x),
            })
            .collect()
    }

    /// A record in plain words.
    pub fn words(&self, r: &ReasonRecord) -> String {
        self.rules[r.rule as usize].render(&self.vals(r))
    }

    /// The rule of a record.
    pub fn rule_of(&self, r: &ReasonRecord) -> &'static Rule {
        self.rules[r.rule as usize]
    }

    fn rule_index(&mut self, rule: &'static Rule) -> u32 {
        // A run uses a handful of rules: the same static is found by its
        // address without comparing ids (the map stays the authority).
        if let Some(i) = self.rules.iter().position(|r| std::ptr::eq(*r, rule)) {
            return i as u32;
        }
        if let Some(&i) = self.rule_ix.get(rule.id) {
            return i;
        }
        let i = self.rules.len() as u32;
        self.rules.push(rule);
        self.rule_ix.insert(rule.id, i);
        i
    }

    fn text_index(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.text_ix.get(s) {
            return i;
        }
        let i = self.texts.len() as u32;
        self.texts.push(s.to_string());
        self.text_ix.insert(s.to_string(), i);
        i
    }
}

/// Equal values, NaN equal to NaN (an unknown stays unknown).
fn same_values(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::field;

    static R: Rule = Rule {
        id: "t.r",
        words: "rank {pos} on {kind}",
        fields: &[field("pos", Unit::Count), field("kind", Unit::Text)],
        key: Some("pos"),
    };

    /// One call's reasons: (job, rule, position, text) each.
    fn call(reasons: &[(u32, &'static Rule, f64, &str)]) -> Reasons {
        let mut out = Reasons::default();
        for &(job, rule, pos, kind) in reasons {
            out.push(
                job,
                rule,
                Some(pos as u32),
                [Val::Num(pos), Val::Text(kind.into())],
            );
        }
        out
    }

    fn reason(job: u32, pos: f64, kind: &str) -> (u32, &'static Rule, f64, &str) {
        (job, &R, pos, kind)
    }

    #[test]
    fn calls_are_whole_and_equal_values_shared() {
        let mut log = ReasonLog::default();
        log.keep(
            0.0,
            &call(&[reason(1, 0.0, "a100"), reason(2, 1.0, "a100")]),
            |_| 1.0,
        );
        log.keep(
            5.0,
            &call(&[reason(1, 0.0, "a100"), reason(2, 0.0, "rtx")]),
            |_| 1.0,
        );
        log.keep(7.0, &call(&[]), |_| 1.0);
        assert_eq!(log.calls.len(), 2, "a call without reasons is not kept");
        assert_eq!(log.records.len(), 4);
        assert_eq!(
            log.records[2].offset, log.records[0].offset,
            "job 1 repeats"
        );
        assert_eq!(log.values.len(), 6);
        assert_eq!(log.texts, vec!["a100".to_string(), "rtx".to_string()]);
        let two = log.of_job(2);
        assert_eq!(two.len(), 2);
        assert_eq!(log.words(two[1].1), "rank 0 on rtx");
        assert_eq!(log.call_at(6.0), Some(1));
        assert_eq!(log.call_at(-1.0), None);
        assert_eq!(log.records_of_call(1).len(), 2);
    }

    /// A second static with the same id is the same rule (ids name rules).
    static R_TWIN: Rule = Rule {
        id: "t.r",
        words: "rank {pos} on {kind}",
        fields: &[field("pos", Unit::Count), field("kind", Unit::Text)],
        key: Some("pos"),
    };

    #[test]
    fn rules_by_id_and_buffers_reused() {
        let mut log = ReasonLog::default();
        let mut twin = reason(1, 0.0, "a");
        twin.1 = &R_TWIN;
        log.keep(0.0, &call(&[reason(1, 0.0, "a"), twin]), |_| 1.0);
        log.keep(
            1.0,
            &call(&[reason(2, 4.0, "b"), reason(2, 5.0, "b")]),
            |_| 2.0,
        );
        assert_eq!(log.rules.len(), 1, "one id, one rule");
        assert_eq!(log.records[1].rule, 0);
        assert_eq!(
            log.records[1].offset, log.records[0].offset,
            "equal values shared"
        );
        assert_eq!(log.values_of(&log.records[2]), &[4.0, 1.0]);
        assert_eq!(log.values_of(&log.records[3]), &[5.0, 1.0]);
        assert_eq!(log.words(&log.records[3]), "rank 5 on b");
    }

    #[test]
    fn one_job_only() {
        let mut log = ReasonLog {
            only_job: Some(2),
            ..Default::default()
        };
        log.keep(
            0.0,
            &call(&[reason(1, 0.0, "a"), reason(2, 1.0, "b")]),
            |_| 0.0,
        );
        assert_eq!(log.records.len(), 1);
        assert_eq!(log.records[0].job, 2);
    }
}

//! One job's reasons over its life (`schedlab explain`, the page's "why"
//! card and its wasm call `Run::explain_json`): what the policy said about
//! the job at each call, and, at a chosen time, the jobs it ranked ahead.
//! Both the CLI and the page build it here, so they say the same.

use schedlab_core::error::{Error, Result};
use schedlab_sim::{Outcome, ReasonLog, ReasonRecord, Unit};
use serde::Serialize;
use serde_json::Value;

/// The job a reason is about, as the run ended.
#[derive(Debug, Clone, Serialize)]
pub struct JobLine {
    pub id: u32,
    pub name: String,
    pub model: String,
    pub gpus_requested: u32,
    pub arrival: f64,
    pub start: Option<f64>,
    pub finish: Option<f64>,
}

/// One reason, with its values by field name.
#[derive(Debug, Clone, Serialize)]
pub struct ReasonOut {
    pub t: f64,
    pub job: u32,
    pub rule: &'static str,
    pub rank: Option<u32>,
    /// GPUs the decision gave the job.
    pub gpus: f64,
    pub words: String,
    pub values: serde_json::Map<String, Value>,
    /// The field the rule orders its queue by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'static str>,
}

/// The policy call at or before a chosen time.
#[derive(Debug, Clone, Serialize)]
pub struct AtCall {
    /// The time asked about.
    pub at: f64,
    /// The call whose reasons hold then.
    pub call_t: f64,
    /// The job's reason in that call (None: the policy did not look at it
    /// there, e.g. FIFO stops at the first job that does not fit).
    pub reason: Option<ReasonOut>,
    /// The jobs the policy ranked ahead of this one in that call, in order.
    pub ahead: Vec<ReasonOut>,
}

/// Everything `schedlab explain` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub policy: String,
    pub job: JobLine,
    /// The job's reasons, one per call that mentioned it.
    pub reasons: Vec<ReasonOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<AtCall>,
    /// Reasons stop here: the run reached the log's bound.
    pub capped_at: Option<f64>,
}

/// A record as its output form.
pub fn reason_out(log: &ReasonLog, t: f64, r: &ReasonRecord) -> ReasonOut {
    let rule = log.rule_of(r);
    let mut values = serde_json::Map::new();
    for (f, v) in rule.fields.iter().zip(log.values_of(r)) {
        let value = match f.unit {
            Unit::Text => Value::String(log.texts.get(*v as usize).cloned().unwrap_or_default()),
            _ => serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
        };
        values.insert(f.name.to_string(), value);
    }
    ReasonOut {
        t,
        job: r.job,
        rule: rule.id,
        rank: r.rank,
        gpus: r.gpus as f64,
        words: log.words(r),
        values,
        key: rule.key,
    }
}

/// Finds a job by id or name.
pub fn find_job(o: &Outcome, job: &str) -> Result<u32> {
    if let Ok(id) = job.parse::<u32>() {
        if (id as usize) < o.jobs.len() {
            return Ok(id);
        }
    }
    o.jobs
        .iter()
        .find(|j| j.name == job)
        .map(|j| j.id)
        .ok_or_else(|| {
            Error::config(format!(
                "job {job}: no job with that id (0..{}) or name",
                o.jobs.len()
            ))
        })
}

/// The job's reasons over its life and, with `at`, the call then.
pub fn explain(o: &Outcome, policy: &str, job: u32, at: Option<f64>) -> Result<Explanation> {
    let j = o
        .jobs
        .get(job as usize)
        .ok_or_else(|| Error::config(format!("job {job}: the run has {} jobs", o.jobs.len())))?;
    let log = &o.reasons;
    let reasons = log
        .of_job(job)
        .into_iter()
        .map(|(t, r)| reason_out(log, t, r))
        .collect();
    Ok(Explanation {
        policy: policy.to_string(),
        job: JobLine {
            id: j.id,
            name: j.name.clone(),
            model: j.model.clone(),
            gpus_requested: j.gpus_requested,
            arrival: j.arrival,
            start: j.start,
            finish: j.finish,
        },
        reasons,
        // Before its arrival or after its end no job is ahead of it.
        at: at.and_then(|t| at_call(log, job, t)).map(|mut a| {
            if a.call_t < j.arrival || j.finish.is_some_and(|f| a.call_t >= f) {
                a.ahead.clear();
            }
            a
        }),
        capped_at: log.capped_at,
    })
}

/// The call at or before `t` and the jobs ranked ahead of `job` there.
pub fn at_call(log: &ReasonLog, job: u32, t: f64) -> Option<AtCall> {
    let c = log.call_at(t)?;
    let call_t = log.calls[c].t;
    let records = log.records_of_call(c);
    let own = records.iter().find(|r| r.job == job);
    let mut ahead: Vec<&ReasonRecord> = match own.and_then(|r| r.rank) {
        Some(rank) => records
            .iter()
            .filter(|r| r.job != job && r.rank.is_some_and(|k| k < rank))
            .collect(),
        // Not looked at: every ranked job the policy did look at is ahead.
        None if own.is_none() => records.iter().filter(|r| r.rank.is_some()).collect(),
        None => Vec::new(),
    };
    // The shared sort: a std sort here is its own 4 KB copy in wasm.
    schedlab_core::sorting::sort_by_key(&mut ahead, |r| r.rank);
    Some(AtCall {
        at: t,
        call_t,
        reason: own.map(|r| reason_out(log, call_t, r)),
        ahead: ahead
            .into_iter()
            .map(|r| reason_out(log, call_t, r))
            .collect(),
    })
}

/// Every reason of the policy call at or before a time: the page's queue in
/// the policy's own order (issue 49, page item 2).
#[derive(Debug, Clone, Serialize)]
pub struct CallReasons {
    /// The time asked about.
    pub at: f64,
    /// The call whose reasons hold then.
    pub call_t: f64,
    /// Ranked reasons by rank (the order the policy served its queue), then
    /// the unranked ones in job order.
    pub reasons: Vec<ReasonOut>,
}

/// The call at or before `t` with all its reasons in the policy's order
/// (None before the first call).
pub fn call_reasons(log: &ReasonLog, t: f64) -> Option<CallReasons> {
    let c = log.call_at(t)?;
    let call_t = log.calls[c].t;
    let mut records: Vec<&ReasonRecord> = log.records_of_call(c).iter().collect();
    schedlab_core::sorting::sort_by_key(&mut records, |r| (r.rank.is_none(), r.rank, r.job));
    Some(CallReasons {
        at: t,
        call_t,
        reasons: records
            .into_iter()
            .map(|r| reason_out(log, call_t, r))
            .collect(),
    })
}

/// A duration or time of day in the run as the reasons write it.
fn when(t: f64) -> String {
    schedlab_sim::reason::write_value(Unit::Seconds, &schedlab_sim::Val::Num(t))
}

impl Explanation {
    /// The text `schedlab explain` prints: the job, then one line per
    /// reason (a reason repeated in later calls is shown once, with the
    /// span it held for), then the call at `--at`.
    pub fn to_text(&self) -> String {
        let j = &self.job;
        let mut s = format!(
            "job {} '{}' ({}, {} requested) under {}\narrived {}, {}, {}\n",
            j.id,
            j.name,
            j.model,
            holds(j.gpus_requested as f64).trim_start_matches("holds "),
            self.policy,
            when(j.arrival),
            j.start.map_or("never started".to_string(), |t| format!(
                "started {}",
                when(t)
            )),
            j.finish.map_or("did not finish".to_string(), |t| format!(
                "finished {}",
                when(t)
            )),
        );
        if self.reasons.is_empty() {
            s.push_str(
                "\nthe policy recorded no reason for this job (it explains only the jobs it looks at)\n",
            );
        } else {
            s.push('\n');
            // Calls in a row with the same rule and GPUs are one step:
            // its span and the last call's words (the JSON has every call).
            let mut k = 0;
            while k < self.reasons.len() {
                let r = &self.reasons[k];
                let mut end = k;
                while end + 1 < self.reasons.len() && same_step(&self.reasons[end + 1], r) {
                    end += 1;
                }
                let last = &self.reasons[end];
                let span = if end > k {
                    format!("{} to {} ({} calls)", when(r.t), when(last.t), end - k + 1)
                } else {
                    when(r.t)
                };
                s.push_str(&format!(
                    "{span}: {} [{}]\n    {}\n",
                    holds(last.gpus),
                    r.rule,
                    last.words
                ));
                k = end + 1;
            }
        }
        if let Some(a) = &self.at {
            s.push_str(&format!(
                "\nat {}: the policy's call at {}\n",
                when(a.at),
                when(a.call_t)
            ));
            match &a.reason {
                Some(r) => s.push_str(&format!("  this job: {}\n", r.words)),
                None if a.call_t < j.arrival => s.push_str(&format!(
                    "  this job: not arrived yet (it arrives at {})\n",
                    when(j.arrival)
                )),
                None if j.finish.is_some_and(|f| a.call_t >= f) => {
                    s.push_str("  this job: already finished\n")
                }
                None => s.push_str("  this job: not looked at in that call\n"),
            }
            if a.ahead.is_empty() {
                s.push_str("  nobody ranked ahead of it\n");
            } else {
                s.push_str(&format!("  ranked ahead of it ({}):\n", a.ahead.len()));
                for r in &a.ahead {
                    s.push_str(&format!(
                        "    job {} ({}): {}\n",
                        r.job,
                        holds(r.gpus),
                        r.words
                    ));
                }
            }
        }
        if let Some(t) = self.capped_at {
            s.push_str(&format!(
                "\nreasons were recorded until {} (the run reached the bound of the reason log)\n",
                when(t)
            ));
        }
        s
    }
}

/// Same rule and GPUs: one step of the job's life in the text.
fn same_step(a: &ReasonOut, b: &ReasonOut) -> bool {
    a.rule == b.rule && a.gpus == b.gpus
}

/// "holds 4 GPUs", "holds 1 GPU", "holds no GPU".
fn holds(gpus: f64) -> String {
    match gpus {
        0.0 => "holds no GPU".to_string(),
        1.0 => "holds 1 GPU".to_string(),
        g => format!("holds {} GPUs", schedlab_sim::reason::sig(g, 3)),
    }
}

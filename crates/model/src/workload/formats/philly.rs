//! Microsoft Philly `cluster_job_log` (msr-fiddle/philly-traces; Jeon et al.,
//! ATC'19), as the AFS paper uses it (spec seed003 §4.1 and §4.3): a JSON
//! array of jobs `{status, vc, jobid, submitted_time, user, attempts: [
//! {start_time, end_time, detail: [{ip, gpus: [...]}]}]}`.
//!
//! - Requested GPUs = the GPUs of an attempt (sum of `gpus` over `detail`);
//!   attempts normally agree, the largest is used and disagreements reported.
//! - Run time T_exec = sum over attempts of (end - start) (AFS §7.12 default).
//! - Kept: status Pass, Killed or Failed with every attempt complete; jobs
//!   with no submission time, no attempts, an attempt without start or end
//!   time, no GPUs or T_exec <= 0 are skipped and counted ("jobs with
//!   incomplete information are excluded").
//! - Arrival = submission time, shifted so the first job arrives at 0.
//!
//! Each job is parsed on its own so that errors name the line it starts on.

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use crate::workload::timestamp::parse_time;
use schedlab_core::error::{Error, Result};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

/// A time as Philly writes it: a date string, `"None"`, null or a number.
#[derive(Deserialize)]
#[serde(untagged)]
enum When {
    Text(String),
    Number(f64),
}

#[derive(Deserialize)]
struct Job {
    status: Option<String>,
    vc: Option<String>,
    jobid: Option<serde_json::Value>,
    submitted_time: Option<When>,
    user: Option<String>,
    #[serde(default)]
    attempts: Vec<Attempt>,
}

#[derive(Deserialize)]
struct Attempt {
    start_time: Option<When>,
    end_time: Option<When>,
    #[serde(default)]
    detail: Vec<Detail>,
}

#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    gpus: Vec<IgnoredAny>,
}

/// Statuses of jobs that ran to an end (AFS keeps all three).
const KEPT: &[&str] = &["Pass", "Killed", "Failed"];

/// Seconds of a time field: Ok(None) for Philly's missing-value markers,
/// an error naming the field for anything else that is not a time.
fn seconds(file: &str, line: usize, field: &str, w: &Option<When>) -> Result<Option<f64>> {
    match w {
        None => Ok(None),
        Some(When::Number(v)) => Ok(v.is_finite().then_some(*v)),
        Some(When::Text(t)) => {
            let s = t.trim();
            if s.is_empty() || s.eq_ignore_ascii_case("none") || s.eq_ignore_ascii_case("null") {
                return Ok(None);
            }
            parse_time(s).map(Some).ok_or_else(|| {
                Error::input(
                    file,
                    line,
                    field,
                    format!("'{s}' is not a date-time (YYYY-MM-DD HH:MM:SS)"),
                )
            })
        }
    }
}

pub(super) fn read(file: &str, text: &str, out: &mut Out) -> Result<()> {
    out.shift_to_zero = true;
    let body = text.trim_start_matches('\u{feff}');
    let list: Vec<&RawValue> = serde_json::from_str(body).map_err(|e| {
        Error::input(
            file,
            e.line(),
            "",
            format!("not a Philly cluster_job_log JSON array of jobs: {e}"),
        )
    })?;
    let base = body.as_ptr() as usize;
    let (mut pos, mut line) = (0usize, 1usize);
    let mut disagree = 0usize;
    for (i, raw) in list.iter().enumerate() {
        // The line this job starts on (jobs are in text order).
        let off = (raw.get().as_ptr() as usize)
            .saturating_sub(base)
            .min(body.len());
        if off >= pos {
            line += body.as_bytes()[pos..off]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            pos = off;
        }
        let job: Job = serde_json::from_str(raw.get()).map_err(|e| {
            Error::input(
                file,
                line + e.line().saturating_sub(1),
                "",
                format!("job {i}: {e}"),
            )
        })?;
        let id = match &job.jobid {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) if !v.is_null() => v.to_string(),
            _ => format!("job{i}"),
        };
        let status = job.status.as_deref().unwrap_or("");
        if !KEPT.contains(&status) {
            out.skip("status not Pass, Killed or Failed");
            continue;
        }
        let Some(submit) = seconds(file, line, "submitted_time", &job.submitted_time)? else {
            out.skip("no submission time");
            continue;
        };
        if job.attempts.is_empty() {
            out.skip("no attempts (never ran)");
            continue;
        }
        let mut t_exec = 0.0;
        let mut gpus = 0u32;
        let mut first_gpus = None;
        let mut complete = true;
        let mut backwards = false;
        for a in &job.attempts {
            let s = seconds(file, line, "attempts.start_time", &a.start_time)?;
            let e = seconds(file, line, "attempts.end_time", &a.end_time)?;
            match (s, e) {
                (Some(s), Some(e)) if e >= s => t_exec += e - s,
                (Some(_), Some(_)) => backwards = true,
                _ => complete = false,
            }
            let g: usize = a.detail.iter().map(|d| d.gpus.len()).sum();
            let g = u32::try_from(g).unwrap_or(u32::MAX);
            if *first_gpus.get_or_insert(g) != g {
                disagree += 1;
            }
            gpus = gpus.max(g);
        }
        if !complete {
            out.skip("an attempt without start or end time");
            continue;
        }
        if backwards {
            out.skip("an attempt ends before it starts");
            continue;
        }
        if gpus == 0 {
            out.skip("no GPUs in any attempt");
            continue;
        }
        if t_exec <= 0.0 {
            out.skip("executed time <= 0");
            continue;
        }
        let mut spec = JobSpec::new(id.clone(), submit, "", gpus).with_duration(t_exec);
        spec.tenant = job.vc.or(job.user).unwrap_or_default();
        spec.source_line = u32::try_from(line).unwrap_or(u32::MAX);
        out.raw.push(Raw {
            job: spec,
            model: String::new(),
            key: id,
        });
    }
    if disagree > 0 {
        out.notes.push(format!(
            "{disagree} attempts had a different GPU count from their job's first attempt; the largest count is used"
        ));
    }
    Ok(())
}

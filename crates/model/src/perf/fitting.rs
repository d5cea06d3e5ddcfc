//! From profile data to zoo models: fit θ per (application, GPU type) and
//! the compact efficiency curve per application, report their accuracy,
//! and emit the built-in tables (`schedlab models fit ... --emit-rust`).
//!
//! Rows used for θ are every usable row of `placements*.csv` and
//! `scalability*.csv` of the type (duplicated (n, K, m) keys from
//! different placements are all kept). m_min and m_max are the smallest and
//! largest local batch of the placements (as in the Pollux simulator),
//! then the per-application memory overrides of [`super::apps`].

use super::apps::{app_constants, AppConstants};
use super::goodput::efficiency::{gain_from_stats, EfficiencyCurve, ValidationRow};
use super::goodput::{
    fit_perf_params, quality, Fit, FitQuality, GoodputModel, Observation, TypeProfile,
};
use super::profiles::{AppProfile, ProfileSet, TypeRows};
use crate::cluster::GpuKind;
use schedlab_core::error::{Error, Result};
use serde::Serialize;

/// A type is not fitted when more than this share of its rows is unusable.
const MAX_UNUSABLE_SHARE: f64 = 0.5;

/// The fit of one application on one GPU type label.
#[derive(Debug, Clone, Serialize)]
pub struct TypeFit {
    pub label: String,
    pub kind: Option<GpuKind>,
    /// Rows read and rows skipped as unusable (sync ≥ step).
    pub rows: usize,
    pub skipped: usize,
    pub fit: Option<Fit>,
    /// Step-time accuracy on the rows used.
    pub quality: Option<FitQuality>,
    /// Accuracy on the `seed/` 1-GPU rows of this type, if any.
    pub seed_quality: Option<FitQuality>,
    pub min_local: u32,
    pub max_local: u32,
    pub max_local_steps: Vec<(u32, u32)>,
    pub notes: Vec<String>,
}

/// The fits of one application.
#[derive(Debug, Clone, Serialize)]
pub struct AppFit {
    pub name: String,
    pub types: Vec<TypeFit>,
    pub efficiency: Option<EfficiencyCurve>,
    /// Largest relative error, over the validated batch sizes, of the time
    /// a complete run takes at a fixed batch (Σ epochs progress/gain) when
    /// the compact curve replaces the per-epoch statistics.
    pub efficiency_time_error: Option<f64>,
    pub notes: Vec<String>,
}

/// Largest profiled local batch per replica count, as steps `(K, m)`:
/// from K replicas on the largest profiled local batch is m.
fn max_local_steps(rows: &[Observation], overall: u32) -> Vec<(u32, u32)> {
    let mut by_k: std::collections::BTreeMap<u32, f64> = std::collections::BTreeMap::new();
    for o in rows {
        let e = by_k.entry(o.replicas).or_insert(0.0);
        *e = e.max(o.local_bsz);
    }
    let mut cap = overall as f64;
    let mut out = Vec::new();
    for (k, m) in by_k {
        if m < cap {
            cap = m;
            out.push((k, m.round() as u32));
        }
    }
    out
}

fn fit_type(t: &TypeRows, consts: &AppConstants, seed: &[(String, Observation)]) -> TypeFit {
    let all = t.all();
    let usable: Vec<Observation> = all.iter().copied().filter(|o| o.usable()).collect();
    let skipped = all.len() - usable.len();
    let mut notes = Vec::new();
    let local_rows = if t.placements.is_empty() {
        &all
    } else {
        &t.placements
    };
    let min_local = local_rows
        .iter()
        .map(|o| o.local_bsz)
        .fold(f64::INFINITY, f64::min);
    let max_local = local_rows.iter().map(|o| o.local_bsz).fold(0.0, f64::max);
    let (min_local, mut max_local) = if max_local > 0.0 {
        (min_local.round().max(1.0) as u32, max_local.round() as u32)
    } else {
        (1, 1)
    };
    let steps = max_local_steps(&all, max_local);
    if let Some((_, m)) = consts.max_local.iter().find(|(l, _)| *l == t.label) {
        notes.push(format!(
            "m_max {max_local} overridden to {m} (simulator setting)"
        ));
        max_local = *m;
    }
    let mut out = TypeFit {
        label: t.label.clone(),
        kind: t.kind(),
        rows: all.len(),
        skipped,
        fit: None,
        quality: None,
        seed_quality: None,
        min_local,
        max_local,
        max_local_steps: steps,
        notes,
    };
    if all.is_empty() {
        out.notes.push("no rows".into());
        return out;
    }
    if skipped as f64 > MAX_UNUSABLE_SHARE * all.len() as f64 {
        out.notes.push(format!(
            "not fitted: {skipped} of {} rows have sync_time >= step_time (not a data-parallel profile)",
            all.len()
        ));
        return out;
    }
    if skipped > 0 {
        out.notes.push(format!(
            "{skipped} rows with sync_time >= step_time skipped"
        ));
    }
    match fit_perf_params(&usable) {
        Ok(f) => {
            out.quality = Some(quality(&f.params, &usable));
            let seed_rows: Vec<Observation> = seed
                .iter()
                .filter(|(l, _)| GpuKind::by_name(l).is_some() && GpuKind::by_name(l) == t.kind())
                .map(|(_, o)| *o)
                .collect();
            if !seed_rows.is_empty() {
                out.seed_quality = Some(quality(&f.params, &seed_rows));
            }
            if !f.converged {
                out.notes.push(format!(
                    "optimiser reached its iteration limit ({}) before converging",
                    f.iterations
                ));
            }
            out.fit = Some(f);
        }
        Err(e) => out.notes.push(format!("not fitted: {e}")),
    }
    out
}

/// Relative error of a complete run's time at each validated batch when
/// the compact curve replaces the measured statistics (largest over batches).
pub fn efficiency_time_error(curve: &EfficiencyCurve, runs: &[(u32, Vec<ValidationRow>)]) -> f64 {
    let m0 = curve.init_batch as f64;
    let mut worst: f64 = 0.0;
    for (b, rows) in runs {
        let (mut exact, mut compact) = (0.0, 0.0);
        for e in 0..curve.epochs {
            let dp = curve.threshold(e + 1) - curve.threshold(e);
            let r = &rows[e as usize];
            exact += dp / gain_from_stats(r.grad_sqr, r.grad_var, *b as f64 / m0);
            compact += dp / curve.gain(*b as f64, e);
        }
        worst = worst.max((compact / exact - 1.0).abs());
    }
    worst
}

/// Fits one application (every type label it has).
pub fn fit_app(app: &AppProfile) -> AppFit {
    let consts = app_constants(&app.name);
    let mut notes = Vec::new();
    let (efficiency, err) = if app.validation.is_empty() {
        notes.push("no validation-<bsz>.csv files: no efficiency curve".to_string());
        (None, None)
    } else {
        let epochs = (consts.max_epochs > 0).then_some(consts.max_epochs);
        match EfficiencyCurve::fit(&app.validation, epochs, None) {
            Ok(c) => {
                let e = efficiency_time_error(&c, &app.validation);
                (Some(c), Some(e))
            }
            Err(e) => {
                notes.push(format!("efficiency not fitted: {e}"));
                (None, None)
            }
        }
    };
    for (label, m) in &app.max_local {
        let placed = app
            .types
            .iter()
            .find(|t| {
                GpuKind::by_name(&t.label).is_some()
                    && GpuKind::by_name(&t.label) == GpuKind::by_name(label)
            })
            .map(|t| t.placements.iter().map(|o| o.local_bsz).fold(0.0, f64::max));
        if let Some(p) = placed {
            if (p - *m as f64).abs() > 0.5 && p > 0.0 {
                notes.push(format!(
                    "profiles/: {label} max local batch {m} differs from the placements' {p}"
                ));
            }
        }
    }
    AppFit {
        name: app.name.clone(),
        types: app
            .types
            .iter()
            .map(|t| fit_type(t, consts, &app.seed))
            .collect(),
        efficiency,
        efficiency_time_error: err,
        notes,
    }
}

/// Fits every application of a profile set.
pub fn fit_set(set: &ProfileSet) -> Vec<AppFit> {
    set.apps.iter().map(fit_app).collect()
}

/// The fitted table: per application and type the seven parameters,
/// RMSLE, median and 90th-percentile relative step-time error, rows used.
pub fn to_table(fits: &[AppFit]) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<12} {:<8} {:<5} {:>5} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}\n",
        "app", "type", "kind", "rows", "skip", "alpha_c", "beta_c", "alpha_n", "beta_n", "alpha_r", "beta_r",
        "gamma", "RMSLE", "med%", "p90%", "m_min", "m_max"
    ));
    for a in fits {
        for t in &a.types {
            let kind = t.kind.map_or("?", |k| k.name());
            match (&t.fit, &t.quality) {
                (Some(f), Some(q)) => {
                    let p = f.params;
                    out.push_str(&format!(
                        "{:<12} {:<8} {:<5} {:>5} {:>4} {:>10.4e} {:>10.4e} {:>10.4e} {:>10.4e} {:>10.4e} {:>10.4e} {:>6.3} {:>6.3} {:>6.1} {:>6.1} {:>6} {:>6}\n",
                        a.name, t.label, kind, f.rows, t.skipped, p.alpha_c, p.beta_c, p.alpha_n, p.beta_n,
                        p.alpha_r, p.beta_r, p.gamma, q.rmsle, 100.0 * q.median_rel, 100.0 * q.p90_rel,
                        t.min_local, t.max_local
                    ));
                }
                _ => out.push_str(&format!(
                    "{:<12} {:<8} {:<5} {:>5} {:>4}   (not fitted)\n",
                    a.name, t.label, kind, t.rows, t.skipped
                )),
            }
            if let Some(s) = &t.seed_quality {
                out.push_str(&format!(
                    "{:<12} {:<8} seed/ 1-GPU rows: {} rows, median {:.1}%, p90 {:.1}%\n",
                    "",
                    "",
                    s.rows,
                    100.0 * s.median_rel,
                    100.0 * s.p90_rel
                ));
            }
            for n in &t.notes {
                out.push_str(&format!("{:<12} {:<8} note: {n}\n", "", ""));
            }
        }
        if let Some(c) = &a.efficiency {
            out.push_str(&format!(
                "{:<12} efficiency: M0 {}, M_max {}, {} epochs, total progress {:.0}, {} knots x {} batches; run-time error of the compact curve {:.2}%\n",
                a.name,
                c.init_batch,
                c.batches.last().copied().unwrap_or(0),
                c.epochs,
                c.total_progress,
                c.knots.len(),
                c.batches.len(),
                100.0 * a.efficiency_time_error.unwrap_or(0.0)
            ));
        }
        for n in &a.notes {
            out.push_str(&format!("{:<12} note: {n}\n", a.name));
        }
    }
    out
}

/// Chooses, per simulator GPU type, the profile label to use: the
/// extended-batch `dgx-ext` over `dgx` for a100, else the first label.
fn label_rank(label: &str) -> u8 {
    match label {
        "dgx-ext" => 0,
        "dgx" => 1,
        _ => 0,
    }
}

/// The fitted type labels the zoo uses, one per simulator GPU type, in
/// catalog order.
pub fn chosen_types(fit: &AppFit) -> Vec<(&TypeFit, GpuKind)> {
    let mut chosen: Vec<(&TypeFit, GpuKind)> = Vec::new();
    for t in &fit.types {
        let (Some(kind), Some(_)) = (t.kind, &t.fit) else {
            continue;
        };
        match chosen.iter().position(|(_, k)| *k == kind) {
            Some(i) if label_rank(&t.label) < label_rank(&chosen[i].0.label) => {
                chosen[i] = (t, kind)
            }
            Some(_) => {}
            None => chosen.push((t, kind)),
        }
    }
    schedlab_core::sorting::sort_by_key(&mut chosen, |(_, k)| *k);
    chosen
}

/// Builds the zoo's goodput model of a fitted application. `fallback`
/// supplies the efficiency curve when the profiles have none (a user's
/// throughput-only profiles of a built-in application).
pub fn goodput_model(
    fit: &AppFit,
    fallback: Option<&GoodputModel>,
    pollux_osdi21: bool,
) -> Result<GoodputModel> {
    let consts = app_constants(&fit.name);
    let efficiency = match (&fit.efficiency, fallback) {
        (Some(c), _) => c.clone(),
        (None, Some(f)) => f.efficiency.clone(),
        (None, None) => {
            return Err(Error::config(format!(
                "profiles of '{}' have no validation-<bsz>.csv files (needed for the statistical efficiency)",
                fit.name
            )))
        }
    };
    let chosen = chosen_types(fit);
    if chosen.is_empty() {
        return Err(Error::config(format!(
            "profiles of '{}' have no fitted GPU type",
            fit.name
        )));
    }
    let types = chosen
        .into_iter()
        .map(|(t, kind)| {
            let mut max_local = t.max_local;
            if pollux_osdi21 {
                if let Some((_, m)) = consts.pollux_max_local.iter().find(|(l, _)| *l == t.label) {
                    max_local = *m;
                }
            }
            TypeProfile {
                kind,
                label: t.label.clone(),
                params: t
                    .fit
                    .map(|f| f.params)
                    .unwrap_or(crate::perf::goodput::PerfParams::from_array([1e-8; 7])),
                min_local: t.min_local,
                max_local,
                max_local_steps: t.max_local_steps.clone(),
                quality: t.quality,
            }
        })
        .collect();
    Ok(GoodputModel {
        max_batch: efficiency
            .batches
            .last()
            .copied()
            .unwrap_or(efficiency.init_batch),
        efficiency,
        types,
        slowdown: consts.slowdown,
        policy_restart_s: consts.policy_restart_s,
    })
}

fn fmt_f(v: f64) -> String {
    // Seven significant digits: far below the fit's own error, stable text.
    let s = format!("{v:.6e}");
    // Make sure Rust reads it as a float literal.
    if s.contains('e') || s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Emits the built-in tables as Rust source (`crates/model/src/perf/builtin_fits.rs`).
pub fn emit_rust(fits: &[AppFit], command: &str) -> String {
    let mut s = String::new();
    s.push_str("//! GENERATED: the built-in Pollux/Sia model tables (fitted parameters and\n");
    s.push_str("//! compact efficiency curves). Do not edit by hand; regenerate with\n");
    s.push_str(&format!("//! `{command}`\n"));
    s.push_str("//! (see docs/MODELS.md). Fitted from the Pollux OSDI'21 artifact profiles\n");
    s.push_str("//! (petuum/adaptdl osdi21-artifact, Apache-2.0; T4 and all validation runs)\n");
    s.push_str("//! and the Sia SOSP'23 artifact profiles (siasosp23/artifacts; rtx, a100 =\n");
    s.push_str("//! dgx-ext, quad, v100 = azure). Only derived figures are stored here.\n\n");
    s.push_str("use super::apps::{BuiltinApp, BuiltinType};\n\n");
    s.push_str(&format!(
        "pub(crate) const COMMAND: &str = {command:?};\n\n"
    ));
    s.push_str("pub(crate) const FITTED: &[BuiltinApp] = &[\n");
    for a in fits {
        let Some(c) = &a.efficiency else { continue };
        let types: Vec<&TypeFit> = chosen_types(a).into_iter().map(|(t, _)| t).collect();
        if types.is_empty() {
            continue;
        }
        s.push_str("    BuiltinApp {\n");
        s.push_str(&format!("        name: {:?},\n", a.name));
        s.push_str(&format!("        init_batch: {},\n", c.init_batch));
        s.push_str(&format!("        epochs: {},\n", c.epochs));
        s.push_str(&format!(
            "        total_progress: {},\n",
            fmt_f(c.total_progress)
        ));
        s.push_str(&format!(
            "        efficiency_time_error: {},\n",
            fmt_f(a.efficiency_time_error.unwrap_or(0.0))
        ));
        s.push_str(&format!("        knots: &{:?},\n", c.knots));
        s.push_str(&format!("        batches: &{:?},\n", c.batches));
        s.push_str("        log_phi: &[\n");
        for row in &c.log_phi {
            let v: Vec<String> = row.iter().map(|x| fmt_f(*x)).collect();
            s.push_str(&format!("            &[{}],\n", v.join(", ")));
        }
        s.push_str("        ],\n");
        s.push_str("        types: &[\n");
        for t in types {
            let (Some(f), Some(q)) = (&t.fit, &t.quality) else {
                continue;
            };
            let p: Vec<String> = f.params.to_array().iter().map(|x| fmt_f(*x)).collect();
            s.push_str("            BuiltinType {\n");
            s.push_str(&format!("                label: {:?},\n", t.label));
            s.push_str(&format!("                params: [{}],\n", p.join(", ")));
            s.push_str(&format!("                min_local: {},\n", t.min_local));
            s.push_str(&format!("                max_local: {},\n", t.max_local));
            s.push_str(&format!(
                "                max_local_steps: &{:?},\n",
                t.max_local_steps
            ));
            s.push_str(&format!("                rows: {},\n", f.rows));
            s.push_str(&format!("                rmsle: {},\n", fmt_f(q.rmsle)));
            s.push_str(&format!(
                "                median_rel: {},\n",
                fmt_f(q.median_rel)
            ));
            s.push_str(&format!("                p90_rel: {},\n", fmt_f(q.p90_rel)));
            s.push_str(&format!("                max_rel: {},\n", fmt_f(q.max_rel)));
            s.push_str("            },\n");
        }
        s.push_str("        ],\n");
        s.push_str("    },\n");
    }
    s.push_str("];\n");
    s
}

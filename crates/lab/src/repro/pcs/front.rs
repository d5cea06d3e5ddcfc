//! Our SPEA2 front against the PCS artifact's stored search populations
//! (`fronts/WFQ_trace_<vc>.json`, issue 50): on the same first apps of a
//! Philly VC trace, how much of our front the stored one dominates and the
//! reverse (Zitzler's coverage), and the hypervolume of each, both
//! objectives scaled to [0, 1] over the two fronts together. The stored
//! objectives come from the artifact's simulator, so the section also
//! re-evaluates the stored points in ours: that comparison is of the
//! searches alone.

use super::{predicting, Options};
use schedlab_core::error::{Error, Result};
use schedlab_core::pareto::dominates;
use schedlab_model::cluster::parse_cluster;
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::Trace;
use schedlab_run::search::front::{non_dominated, Point};
use schedlab_run::search::pcs::{Objective, WfqProblem};
use schedlab_run::search::{recording_evaluator, spea2};
use serde::Serialize;
use serde_json::Value;

/// One stored search: its trace, the apps it trained on, its budget, and
/// each solution's variables (T, W, clip, delta) and objectives (avg JCT in
/// seconds, avg prediction error in percent).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFront {
    pub trace: String,
    pub apps_used: usize,
    pub evaluations: usize,
    pub points: Vec<Point>,
}

/// The variables of a stored solution, in our search's order.
const VARIABLES: [&str; 4] = [
    "cov_threshold",
    "weight_exponent",
    "clip_demand_factor",
    "delta",
];
/// Its objectives, in our order (`avg_jct`, `avg_pred_error`).
const OBJECTIVES: [&str; 2] = ["avg_jct_s", "avg_pred_error_pct"];

/// Reads a stored search (`WFQ_trace_<vc>.json`); a missing or mistyped
/// field is an error naming the file and the field (with the solution's
/// index), malformed JSON one naming the line.
pub fn parse_stored(file: &str, text: &str) -> Result<StoredFront> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| Error::input(file, e.line(), "", format!("not valid JSON: {e}")))?;
    let field = |name: &str| {
        v.get(name)
            .ok_or_else(|| Error::input(file, 0, name, "missing"))
    };
    let count = |name: &str| -> Result<usize> {
        field(name)?
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| Error::input(file, 0, name, "expected a whole number"))
    };
    let trace = field("trace")?
        .as_str()
        .ok_or_else(|| Error::input(file, 0, "trace", "expected a string"))?
        .to_string();
    let apps_used = count("apps_used")?;
    let evaluations = count("evaluations")?;
    let solutions = field("solutions")?
        .as_array()
        .ok_or_else(|| Error::input(file, 0, "solutions", "expected a list"))?;
    if solutions.is_empty() {
        return Err(Error::input(file, 0, "solutions", "the list is empty"));
    }
    let mut points = Vec::with_capacity(solutions.len());
    for (i, s) in solutions.iter().enumerate() {
        let num = |name: &str| -> Result<f64> {
            let at = format!("solutions[{i}].{name}");
            let x = s
                .get(name)
                .ok_or_else(|| Error::input(file, 0, &at, "missing"))?
                .as_f64()
                .ok_or_else(|| Error::input(file, 0, &at, "expected a number"))?;
            if x.is_finite() {
                Ok(x)
            } else {
                Err(Error::input(file, 0, &at, "not a finite number"))
            }
        };
        points.push(Point {
            x: VARIABLES.iter().map(|n| num(n)).collect::<Result<_>>()?,
            f: OBJECTIVES.iter().map(|n| num(n)).collect::<Result<_>>()?,
        });
    }
    Ok(StoredFront {
        trace,
        apps_used,
        evaluations,
        points,
    })
}

/// Zitzler's coverage C(a, b): the share of `b`'s points that some point
/// of `a` dominates (objectives minimised); 0 when `b` is empty.
pub fn coverage(a: &[Point], b: &[Point]) -> f64 {
    if b.is_empty() {
        return 0.0;
    }
    let hit = b
        .iter()
        .filter(|q| a.iter().any(|p| dominates(&p.f, &q.f)))
        .count();
    hit as f64 / b.len() as f64
}

/// Hypervolume of a two-objective front (minimised) up to `reference`: the
/// area of the points it dominates. Points not below the reference in both
/// objectives add nothing.
pub fn hypervolume_2d(points: &[Point], reference: [f64; 2]) -> f64 {
    let mut pts: Vec<[f64; 2]> = points
        .iter()
        .map(|p| [p.f[0], p.f[1]])
        .filter(|f| f[0] < reference[0] && f[1] < reference[1])
        .collect();
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    let mut area = 0.0;
    let mut ceiling = reference[1];
    for p in pts {
        if p[1] < ceiling {
            area += (reference[0] - p[0]) * (ceiling - p[1]);
            ceiling = p[1];
        }
    }
    area
}

/// The points scaled to [0, 1] per objective over `span` (min, max each).
fn scaled(points: &[Point], span: &[(f64, f64); 2]) -> Vec<Point> {
    points
        .iter()
        .map(|p| Point {
            x: p.x.clone(),
            f: (0..2)
                .map(|k| {
                    let (lo, hi) = span[k];
                    if hi > lo {
                        (p.f[k] - lo) / (hi - lo)
                    } else {
                        0.0
                    }
                })
                .collect(),
        })
        .collect()
}

/// How two fronts compare: sizes, coverage each way, and the hypervolume of
/// each with both objectives scaled to [0, 1] over the two together and the
/// reference point (1.1, 1.1).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Comparison {
    pub ours: usize,
    pub theirs: usize,
    /// Share of our front that theirs dominates, C(theirs, ours).
    pub theirs_dominate_ours: f64,
    /// Share of theirs that ours dominates, C(ours, theirs).
    pub ours_dominate_theirs: f64,
    pub hv_ours: f64,
    pub hv_theirs: f64,
}

/// Compares two fronts (each reduced to its non-dominated points first).
pub fn compare(ours: &[Point], theirs: &[Point]) -> Comparison {
    let (ours, theirs) = (non_dominated(ours), non_dominated(theirs));
    let finite: Vec<&Point> = ours
        .iter()
        .chain(&theirs)
        .filter(|p| p.f.iter().all(|v| v.is_finite()))
        .collect();
    let span = [0, 1].map(|k| {
        finite
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.f[k]), hi.max(p.f[k]))
            })
    });
    let hv = |f: &[Point]| hypervolume_2d(&scaled(f, &span), [1.1, 1.1]);
    Comparison {
        ours: ours.len(),
        theirs: theirs.len(),
        theirs_dominate_ours: coverage(&theirs, &ours),
        ours_dominate_theirs: coverage(&ours, &theirs),
        hv_ours: hv(&ours),
        hv_theirs: hv(&theirs),
    }
}

/// One VC's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub trace: String,
    pub apps: usize,
    pub evaluations: usize,
    /// Our front against the stored objectives (two simulators).
    pub as_stored: Comparison,
    /// Our front against the stored points re-evaluated in our simulator.
    pub re_evaluated: Comparison,
    /// The ends of each front: (min avg JCT s, min avg error %).
    pub ours_best: [f64; 2],
    pub stored_best: [f64; 2],
    pub re_evaluated_best: [f64; 2],
    pub wall_s: f64,
}

fn best(points: &[Point]) -> [f64; 2] {
    [0, 1].map(|k| points.iter().map(|p| p.f[k]).fold(f64::INFINITY, f64::min))
}

/// Runs our search on each VC of `opts.front_traces` (the stored search's
/// apps, objectives and budget unless `opts.front_evaluations` is set) and
/// compares it with the stored population.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let dir = opts.pcs_dir.as_ref().ok_or_else(|| {
        Error::config("--sections front needs the artifact's data (--pcs-dir, ../shared/data/pcs)")
    })?;
    let threads = opts.threads();
    let mut rows = Vec::new();
    for vc in &opts.front_traces {
        let started = std::time::Instant::now();
        let path = dir.join("fronts").join(format!("WFQ_trace_{vc}.json"));
        let file = path.display().to_string();
        let stored = parse_stored(&file, &schedlab_core::textio::read_text(&file)?)?;
        let trace_path = dir.join("traces").join(format!("trace_{vc}.csv"));
        let trace_file = trace_path.display().to_string();
        let full = Trace::parse(
            &trace_file,
            &schedlab_core::textio::read_text(&trace_file)?,
            None,
        )?;
        let trace = full.subset(&full.name, None, stored.apps_used)?;
        let objectives = vec![
            Objective::parse("avg_jct")?,
            Objective::parse("avg_pred_error")?,
        ];
        let engine = predicting(&opts.settings)?.engine_only();
        let problem = WfqProblem::new(
            trace,
            parse_cluster("pcs-64")?,
            ModelZoo::builtin(),
            engine,
            objectives,
        )?;
        let evaluations = if opts.front_evaluations > 0 {
            opts.front_evaluations
        } else {
            stored.evaluations
        };
        let settings = spea2::Settings {
            evaluations,
            ..spea2::Settings::default()
        };
        let mut seen = Vec::new();
        let objective = |x: &Vec<f64>| problem.evaluate(x);
        let mut evaluate = recording_evaluator(threads, &objective, &mut seen);
        let finals = spea2::run(
            &problem.bounds(),
            &settings,
            opts.seed,
            &mut evaluate,
            &mut |p| {
                progress(&format!(
                    "pcs front {vc}: {} evaluations, {:.0} s",
                    p.evaluations,
                    started.elapsed().as_secs_f64()
                ));
                true
            },
        );
        drop(evaluate);
        let ours = non_dominated(&finals);
        // The stored points in our simulator (T, W, clip, delta are the
        // artifact's variables with the same meaning, docs/PCS.md).
        let xs: Vec<Vec<f64>> = stored.points.iter().map(|p| p.x.clone()).collect();
        let fs =
            schedlab_run::search::parallel_map(&xs, threads, &|x: &Vec<f64>| problem.evaluate(x));
        let again: Vec<Point> = xs
            .into_iter()
            .zip(fs)
            .map(|(x, f)| Point { x, f })
            .collect();
        let row = Row {
            trace: vc.clone(),
            apps: problem.trace.jobs.len(),
            evaluations: seen.len(),
            as_stored: compare(&ours, &stored.points),
            re_evaluated: compare(&ours, &again),
            ours_best: best(&ours),
            stored_best: best(&stored.points),
            re_evaluated_best: best(&non_dominated(&again)),
            wall_s: started.elapsed().as_secs_f64(),
        };
        progress(&format!(
            "pcs front {vc}: ours {} points, stored {}; stored dominates {:.0}% of ours, ours {:.0}% of stored; {:.0} s",
            row.as_stored.ours,
            row.as_stored.theirs,
            100.0 * row.as_stored.theirs_dominate_ours,
            100.0 * row.as_stored.ours_dominate_theirs,
            row.wall_s
        ));
        rows.push(row);
    }
    Ok(rows)
}

/// The section's table.
pub fn to_table(rows: &[Row]) -> String {
    let mut out = String::from(
        "\nSPEA2 fronts against the artifact's stored populations (fronts/WFQ_trace_<vc>.json): the stored search's first apps, 64 GPUs, objectives avg JCT and avg prediction error, the stored budget; 'stored' = the artifact's objectives (its simulator), 're-evaluated' = the stored points run in ours; C(a, b) = share of b's front a dominates; HV = hypervolume, objectives scaled to [0, 1] over both fronts, reference (1.1, 1.1)\n\n",
    );
    let mut table = vec![vec![
        "VC".to_string(),
        "apps".into(),
        "evals".into(),
        "against".into(),
        "front ours / theirs".into(),
        "C(theirs, ours)".into(),
        "C(ours, theirs)".into(),
        "HV ours".into(),
        "HV theirs".into(),
        "best JCT h ours / theirs".into(),
        "best err % ours / theirs".into(),
        "wall s".into(),
    ]];
    for r in rows {
        for (label, c, theirs) in [
            ("stored", &r.as_stored, r.stored_best),
            ("re-evaluated", &r.re_evaluated, r.re_evaluated_best),
        ] {
            table.push(vec![
                r.trace.clone(),
                r.apps.to_string(),
                r.evaluations.to_string(),
                label.to_string(),
                format!("{} / {}", c.ours, c.theirs),
                format!("{:.0}%", 100.0 * c.theirs_dominate_ours),
                format!("{:.0}%", 100.0 * c.ours_dominate_theirs),
                format!("{:.3}", c.hv_ours),
                format!("{:.3}", c.hv_theirs),
                format!("{:.1} / {:.1}", r.ours_best[0] / 3600.0, theirs[0] / 3600.0),
                format!("{:.3} / {:.3}", r.ours_best[1], theirs[1]),
                format!("{:.0}", r.wall_s),
            ]);
        }
    }
    out += &super::super::table(&table);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[[f64; 2]]) -> Vec<Point> {
        v.iter()
            .map(|f| Point {
                x: vec![],
                f: f.to_vec(),
            })
            .collect()
    }

    #[test]
    fn coverage_counts_dominated_points_each_way() {
        // a: (1, 4), (2, 2), (4, 1); b: (2, 5) dominated by (1, 4), (3, 3) by
        // (2, 2), (0, 6) by none; equal points do not dominate each other.
        let a = pts(&[[1.0, 4.0], [2.0, 2.0], [4.0, 1.0]]);
        let b = pts(&[[2.0, 5.0], [3.0, 3.0], [0.0, 6.0], [4.0, 1.0]]);
        assert_eq!(coverage(&a, &b), 0.5);
        assert_eq!(coverage(&b, &a), 0.0);
        assert_eq!(coverage(&a, &[]), 0.0);
    }

    #[test]
    fn hypervolume_of_a_staircase() {
        // (1, 3), (2, 2), (3, 1) up to (4, 4): 3x1 + 2x1 + 1x1 = 6; a
        // dominated point and one beyond the reference add nothing.
        let f = pts(&[[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [3.0, 3.0], [5.0, 0.5]]);
        assert!((hypervolume_2d(&f, [4.0, 4.0]) - 6.0).abs() < 1e-12);
        assert_eq!(hypervolume_2d(&[], [4.0, 4.0]), 0.0);
    }

    #[test]
    fn compare_scales_over_both_fronts() {
        let ours = pts(&[[0.0, 10.0], [10.0, 0.0]]);
        let theirs = pts(&[[5.0, 5.0], [6.0, 6.0]]);
        let c = compare(&ours, &theirs);
        // Their front is one point (6, 6 is dominated); neither dominates.
        assert_eq!((c.ours, c.theirs), (2, 1));
        assert_eq!((c.theirs_dominate_ours, c.ours_dominate_theirs), (0.0, 0.0));
        // Scaled: ours (0, 1), (1, 0) -> 1.1 x 0.1 + 0.1 x 1.1 - 0.01 = 0.21;
        // theirs (0.5, 0.5) -> 0.36.
        assert!((c.hv_ours - 0.21).abs() < 1e-12, "{}", c.hv_ours);
        assert!((c.hv_theirs - 0.36).abs() < 1e-12, "{}", c.hv_theirs);
    }

    const STORED: &str = r#"{"trace": "trace_x", "apps_used": 3, "evaluations": 370,
      "solutions": [
        {"cov_threshold": 0.5, "weight_exponent": 1.0, "clip_demand_factor": 0.3,
         "delta": 0.1, "avg_jct_s": 100.0, "avg_pred_error_pct": 2.0},
        {"cov_threshold": 0.6, "weight_exponent": -1.0, "clip_demand_factor": 0.2,
         "delta": 0.2, "avg_jct_s": 90.0, "avg_pred_error_pct": 3.0}]}"#;

    #[test]
    fn parses_a_stored_search() {
        let s = parse_stored("f.json", STORED).unwrap();
        assert_eq!(s.trace, "trace_x");
        assert_eq!((s.apps_used, s.evaluations), (3, 370));
        assert_eq!(s.points[1].x, vec![0.6, -1.0, 0.2, 0.2]);
        assert_eq!(s.points[1].f, vec![90.0, 3.0]);
    }

    #[test]
    fn a_bad_stored_search_names_the_file_and_field() {
        let missing = STORED.replace("\"delta\": 0.2, ", "");
        let e = parse_stored("f.json", &missing).unwrap_err().to_string();
        assert!(
            e.contains("f.json") && e.contains("solutions[1].delta"),
            "{e}"
        );
        let typed = STORED.replace("\"avg_jct_s\": 90.0", "\"avg_jct_s\": \"x\"");
        let e = parse_stored("f.json", &typed).unwrap_err().to_string();
        assert!(
            e.contains("solutions[1].avg_jct_s") && e.contains("number"),
            "{e}"
        );
        let e = parse_stored("f.json", "{\"trace\": 1}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("trace"), "{e}");
        let e = parse_stored("f.json", "{\n\"trace\": ")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.json") && e.contains("JSON"), "{e}");
        let e = parse_stored(
            "f.json",
            &STORED.replace("\"apps_used\": 3", "\"apps_used\": -3"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("apps_used"), "{e}");
    }
}

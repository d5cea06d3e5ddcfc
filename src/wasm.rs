//! The wasm-bindgen boundary: the only place JavaScript talks to Rust
//! (issue 4, "wasm boundary"). Everything here converts; the logic lives in
//! `crate::web` (tested natively) and the rest of the crate.
//!
//! - Plain data (catalog, layouts, metrics, params, progress) crosses as
//!   JSON text parsed by the browser (`JSON.parse`), and chart specs come back
//!   the same way: serde_json is in the package anyway (reports), and a second
//!   serializer (serde-wasm-bindgen) compiled every type twice, 6.5 KB gzipped.
//!   As in the CLI's JSON, NaN and the infinities arrive as `null`.
//! - A run's timeline, rounds, per-job results and chart series cross as
//!   typed arrays (copies, safe to transfer between threads).
//! - Every function returns `Result`; an error is a plain object
//!   `{kind, file, line, field, message, text}` (`web::ErrorInfo`). A panic
//!   hook logs anything that slips through instead of failing silently.
//!
//! See `docs/PAGE.md` for the JavaScript side.

use crate::error::Error;
use crate::report::PolicyRun;
use crate::sim::Progress;
use crate::web::charts::{self, ChartSpec};
use crate::web::columns::Column;
use crate::web::insight::insight_at;
use crate::web::runner::{
    check_settings as check_page_settings, load_trace, page_setup, Finished, Runner, TraceInfo,
};
use crate::web::{catalog as cat, ErrorInfo};
use crate::workload::bundled_trace;
use js_sys::{
    Array, Float32Array, Float64Array, Int32Array, Object, Reflect, Uint32Array, Uint8Array,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn js_err(e: Error) -> JsValue {
    let info = ErrorInfo::from(&e);
    to_js(&info).unwrap_or_else(|_| JsValue::from_str(&info.text))
}

/// Plain data as a JS object (through JSON text; see the module doc).
fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v).map_err(|e| js_err(Error::Internal(e.to_string())))?;
    js_sys::JSON::parse(&text)
}

fn set(obj: &Object, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

fn f64s(v: &[f64]) -> JsValue {
    Float64Array::from(v).into()
}

fn u32s(v: &[u32]) -> JsValue {
    Uint32Array::from(v).into()
}

fn f32s(v: &[f32]) -> JsValue {
    Float32Array::from(v).into()
}

fn i32s(v: &[i32]) -> JsValue {
    Int32Array::from(v).into()
}

/// A result column as a typed array (strings: a plain array).
fn column_js(c: Column<'_>) -> JsValue {
    match c {
        Column::F64(v) => f64s(v),
        Column::F32(v) => f32s(v),
        Column::U32(v) => u32s(v),
        Column::I32(v) => i32s(v),
        Column::U8(v) => Uint8Array::from(v).into(),
        Column::Str(v) => strings(v),
    }
}

fn strings(v: &[String]) -> JsValue {
    v.iter()
        .map(|s| JsValue::from_str(s))
        .collect::<Array>()
        .into()
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Everything the page lists: bundled traces, clusters, GPU types, policies
/// with parameter declarations, engine parameters, formats, generators,
/// models and metric display rules (`web::catalog::Catalog`).
#[wasm_bindgen]
pub fn catalog() -> Result<JsValue, JsValue> {
    to_js(&cat::catalog())
}

/// A cluster (built-in name or spec string) grouped by GPU type for drawing.
#[wasm_bindgen]
pub fn cluster_layout(spec: &str) -> Result<JsValue, JsValue> {
    to_js(&cat::layout(spec).map_err(js_err)?)
}

/// Parses trace text (format detected from the header) and describes it;
/// errors name the file, line and field.
#[wasm_bindgen]
pub fn parse_trace(name: &str, text: &str) -> Result<JsValue, JsValue> {
    to_js(&TraceInfo::of(&load_trace(name, text).map_err(js_err)?))
}

/// STS's single-job model for one job type on one GPU type and a deadline
/// in seconds (the page's sandbox; `web::sandbox`).
#[wasm_bindgen]
pub fn sts_sandbox(model: &str, gpu_type: &str, deadline_s: f64) -> Result<JsValue, JsValue> {
    static ZOO: std::sync::OnceLock<crate::perf::ModelZoo> = std::sync::OnceLock::new();
    let zoo = ZOO.get_or_init(crate::perf::ModelZoo::builtin);
    to_js(&crate::web::sandbox::plan(zoo, model, gpu_type, deadline_s).map_err(js_err)?)
}

/// A generated trace's text (native format), as `schedlab gen GENERATOR
/// --jobs N --seed S` writes it: the page's solver-scaling sweep makes its
/// workload per cluster size this way.
#[wasm_bindgen]
pub fn generated_trace_text(generator: &str, jobs: u32, seed: u64) -> Result<String, JsValue> {
    crate::workload::gen::generate_native_text(generator, Some(jobs as usize), seed, &[])
        .map(|(text, _)| text)
        .map_err(js_err)
}

/// The text of a bundled trace (for download).
#[wasm_bindgen]
pub fn bundled_trace_text(name: &str) -> Option<String> {
    bundled_trace(name).and_then(|b| b.text().ok().map(|t| t.into_owned()))
}

/// One policy's simulation, stepped by the caller.
#[wasm_bindgen]
pub struct Run {
    runner: Option<Runner>,
    done: Option<PolicyRun>,
    info: TraceInfo,
}

fn progress_js(p: &Progress) -> JsValue {
    to_js(p).unwrap_or(JsValue::NULL)
}

#[wasm_bindgen]
impl Run {
    /// Sets up `policy` on a trace (a bundled name when `trace_text` is
    /// empty, else the text, named `trace_name` in errors) and a cluster.
    /// `sets` holds `OWNER.KEY=VALUE` entries for `engine` and this policy.
    #[wasm_bindgen(constructor)]
    pub fn new(
        trace_name: &str,
        trace_text: &str,
        cluster: &str,
        policy: &str,
        sets: Vec<String>,
        seed: u64,
    ) -> Result<Run, JsValue> {
        let trace = load_trace(trace_name, trace_text).map_err(js_err)?;
        let runner = Runner::new(trace, cluster, policy, &sets, seed).map_err(js_err)?;
        Ok(Run {
            info: runner.trace_info(),
            runner: Some(runner),
            done: None,
        })
    }

    /// `{name, format, jobs, skipped, notes, first_arrival, last_arrival}`.
    pub fn trace_info(&self) -> Result<JsValue, JsValue> {
        to_js(&self.info)
    }

    /// Processes up to `max_events` events; true once the run is over.
    pub fn advance(&mut self, max_events: u32) -> Result<bool, JsValue> {
        match &mut self.runner {
            Some(r) => r.advance(max_events as u64).map_err(js_err),
            None => Ok(true),
        }
    }

    /// `{now, completed, total, events}`.
    pub fn progress(&self) -> JsValue {
        match &self.runner {
            Some(r) => progress_js(&r.progress()),
            None => JsValue::NULL,
        }
    }

    /// Runs to the end, calling `callback(progress)` every `every` events
    /// and once at the end. A callback that returns `false` cancels the run
    /// (error of kind `cancelled`); one that throws stops it with that error.
    pub fn run(&mut self, every: u32, callback: &js_sys::Function) -> Result<(), JsValue> {
        let Some(r) = &mut self.runner else {
            return Ok(());
        };
        let mut thrown = None;
        let res = r.run(
            every as u64,
            &mut |p| match callback.call1(&JsValue::NULL, &progress_js(p)) {
                Ok(v) => v.as_bool() != Some(false),
                Err(e) => {
                    thrown = Some(e);
                    false
                }
            },
        );
        if let Some(e) = thrown {
            return Err(e);
        }
        res.map_err(js_err)
    }

    /// The results of a finished run (see `docs/PAGE.md`): metrics and
    /// params as objects; timeline, rounds, insight, jobs, series and CDF as
    /// typed arrays.
    pub fn result(&mut self) -> Result<JsValue, JsValue> {
        let runner = self
            .runner
            .take()
            .ok_or_else(|| js_err(Error::config("the result was already taken")))?;
        let engine = runner.engine_params();
        let f = match runner.finish() {
            Ok(f) => f,
            Err(e) => return Err(js_err(e)),
        };
        let obj = result_object(&f, &self.info, &engine)?;
        self.done = Some(f.run);
        Ok(obj)
    }

    /// This policy's entry of the CLI's `--format json` report (`results[i]`).
    pub fn result_json(&self) -> Result<String, JsValue> {
        let run = self
            .done
            .as_ref()
            .ok_or_else(|| js_err(Error::config("the run has not finished")))?;
        serde_json::to_string(run).map_err(|e| js_err(Error::Internal(e.to_string())))
    }

    /// The policy's insight for the round at or just before simulated time
    /// `t` (after `result()`): `{t, rows_total, labels: [string], jobs:
    /// Uint32Array, norm, raw: Float32Array (rows x labels, row-major, NaN =
    /// not a candidate), restart: Float32Array, chosen: Int32Array (-1 =
    /// none)}`, or `undefined` when no round at or before `t` recorded one.
    pub fn insight_at(&self, t: f64) -> Result<JsValue, JsValue> {
        let run = self
            .done
            .as_ref()
            .ok_or_else(|| js_err(Error::config("the run has not finished")))?;
        let Some(at) = insight_at(&run.outcome, t) else {
            return Ok(JsValue::UNDEFINED);
        };
        let ins = at.insight;
        let o = Object::new();
        set(&o, "t", &JsValue::from_f64(at.t));
        set(&o, "rows_total", &JsValue::from_f64(ins.rows_total as f64));
        set(&o, "labels", &strings(&at.labels));
        set(&o, "jobs", &u32s(&ins.jobs));
        set(&o, "norm", &f32s(&ins.norm));
        set(&o, "raw", &f32s(&ins.raw));
        set(&o, "restart", &f32s(&ins.restart));
        set(&o, "chosen", &i32s(&ins.chosen));
        Ok(o.into())
    }
}

#[derive(Serialize)]
struct Head<'a> {
    policy: &'a str,
    params: &'a crate::params::Params,
    engine: &'a crate::params::Params,
    metrics: &'a crate::metrics::Summary,
    wall_s: f64,
    stop_reason: &'a str,
    events: u64,
    end_time: f64,
    incomplete: usize,
    trace: &'a TraceInfo,
    /// The run's pools (name, quota, ...); jobs point into it (`jobs.pool`).
    pools: &'a [crate::sim::PoolResult],
}

fn result_object(
    f: &Finished,
    info: &TraceInfo,
    engine: &crate::params::Params,
) -> Result<JsValue, JsValue> {
    let run = &f.run;
    let head = Head {
        policy: &run.policy,
        params: &run.params,
        engine,
        metrics: &run.metrics,
        wall_s: run.wall_s,
        stop_reason: &run.stop_reason,
        events: run.outcome.events,
        end_time: run.outcome.end_time,
        incomplete: run.outcome.incomplete,
        trace: info,
        pools: &run.outcome.pools,
    };
    let obj: Object = to_js(&head)?.into();
    for (group, columns) in f.column_groups() {
        let g = Object::new();
        for (name, column) in columns.columns() {
            set(&g, name, &column_js(column));
        }
        set(&obj, group, &g);
    }
    Ok(obj.into())
}

/// Convenience: `new Run(...)`, `run(every, callback)` and `result()` in one call.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn run_policy(
    trace_name: &str,
    trace_text: &str,
    cluster: &str,
    policy: &str,
    sets: Vec<String>,
    seed: u64,
    every: u32,
    callback: &js_sys::Function,
) -> Result<JsValue, JsValue> {
    let mut r = Run::new(trace_name, trace_text, cluster, policy, sets, seed)?;
    r.run(every, callback)?;
    r.result()
}

/// Draws a comparison chart (`web::charts::ChartSpec`) on a canvas, at the
/// canvas's pixel size. Returns where the points of a `front` chart landed
/// (per series, `[x, y, pixel x, pixel y]` each; empty for other kinds).
#[wasm_bindgen]
pub fn draw_chart(canvas: web_sys::HtmlCanvasElement, spec: JsValue) -> Result<JsValue, JsValue> {
    use plotters::prelude::*;
    let text: String = js_sys::JSON::stringify(&spec)
        .map(String::from)
        .unwrap_or_default();
    let spec: ChartSpec = serde_json::from_str(&text)
        .map_err(|e| js_err(Error::config(format!("chart spec: {e}"))))?;
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| js_err(Error::Internal("canvas has no 2d context".into())))?;
    let root = backend.into_drawing_area();
    let located = charts::draw_located(&root, &spec).map_err(|e| js_err(Error::Internal(e)))?;
    root.present()
        .map_err(|e| js_err(Error::Internal(e.to_string())))?;
    to_js(&located)
}

/// PCS's preference search, the main thread's side (`web::search`): SPEA2
/// hands out batches of points (`ask`), a pool of workers evaluates them with
/// [`PcsProblem`], `tell` takes their objectives, `state` reports the front.
#[wasm_bindgen]
pub struct PcsSearch {
    inner: crate::web::search::PageSearch,
}

#[wasm_bindgen]
impl PcsSearch {
    /// The search of `problem` (consumed) with SPEA2's sizes and a seed.
    #[wasm_bindgen(constructor)]
    pub fn new(
        problem: PcsProblem,
        population: u32,
        offspring: u32,
        evaluations: u32,
        seed: u64,
    ) -> Result<PcsSearch, JsValue> {
        let settings = crate::search::spea2::Settings {
            population: population as usize,
            offspring: offspring as usize,
            evaluations: evaluations as usize,
            ..Default::default()
        };
        let problem = problem.inner.into_problem();
        Ok(PcsSearch {
            inner: crate::web::search::PageSearch::new(problem, settings, seed).map_err(js_err)?,
        })
    }

    /// The next batch of points, flat (four values each: T, W, clip, delta;
    /// empty once the budget is spent).
    pub fn ask(&mut self) -> Float64Array {
        Float64Array::from(&self.inner.ask()[..])
    }

    /// The objectives of the batch last asked, flat in its order.
    pub fn tell(&mut self, objectives: Vec<f64>) -> Result<(), JsValue> {
        self.inner.tell(&objectives).map_err(js_err)
    }

    /// `{objectives, evaluations, budget, done, evaluated: [{x, f}], front:
    /// [{x, f, sets, classes, pick}]}` (an invalid point's objectives are null).
    pub fn state(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.state())
    }
}

/// PCS's preference search, a worker's side: evaluates points.
#[wasm_bindgen]
pub struct PcsProblem {
    inner: crate::web::search::PageProblem,
}

#[wasm_bindgen]
impl PcsProblem {
    /// The search problem on a trace (a bundled name when `trace_text` is
    /// empty), a cluster, objectives (comma-separated names), the page's
    /// `engine.*` settings and the first `apps` apps (0: all).
    #[wasm_bindgen(constructor)]
    pub fn new(
        trace_name: &str,
        trace_text: &str,
        cluster: &str,
        objectives: &str,
        sets: Vec<String>,
        apps: u32,
    ) -> Result<PcsProblem, JsValue> {
        let p = crate::web::search::problem(
            trace_name,
            trace_text,
            cluster,
            objectives,
            &sets,
            apps as usize,
        )
        .map_err(js_err)?;
        Ok(PcsProblem {
            inner: crate::web::search::PageProblem::new(p),
        })
    }

    /// Objectives of flat points (four values each), flat.
    pub fn evaluate(&self, points: Vec<f64>) -> Result<Float64Array, JsValue> {
        let f = self.inner.evaluate(&points).map_err(js_err)?;
        Ok(Float64Array::from(&f[..]))
    }
}

/// Checks a page link's policies (comma-separated) and `set=` entries
/// (`OWNER.KEY=VALUE`) before anything runs, as `schedlab run` checks
/// `--policy` and `--set`: an unknown owner, key or choice, a value out of
/// range, a key given twice with different values, a policy named twice or
/// an empty name is an error (`{kind, file, line, field, message, text}`)
/// whose `text` names the setting in one line.
#[wasm_bindgen]
pub fn check_settings(policies: &str, sets: Vec<String>) -> Result<(), JsValue> {
    check_page_settings(policies, &sets).map_err(js_err)
}

/// Runs policies on a trace and returns the report as JSON text, exactly as
/// `schedlab run --format json` prints it. `trace` is a bundled trace name
/// or, when `trace_text` is non-empty, the name shown for that text.
/// `sets` holds `OWNER.KEY=VALUE` entries.
#[wasm_bindgen]
pub fn run_report_json(
    trace: &str,
    trace_text: &str,
    cluster: &str,
    policies: &str,
    sets: Vec<String>,
    seed: u64,
) -> Result<String, JsValue> {
    let policies = crate::report::parse_policies("policies", policies).map_err(js_err)?;
    let trace = load_trace(trace, trace_text).map_err(js_err)?;
    let setup = page_setup(trace, cluster, policies, &sets, seed).map_err(js_err)?;
    let mut results = Vec::new();
    for p in &setup.policies {
        results.push(setup.run(p, &mut |_| true).map_err(js_err)?);
    }
    let report = setup.report(results);
    serde_json::to_string_pretty(&report)
        .map(|s| s + "\n")
        .map_err(|e| js_err(Error::Internal(e.to_string())))
}

/// One job's reasons over its life under one policy, as JSON text, exactly
/// as `schedlab explain --format json` prints it (the wasm == native check).
/// `job` is an id or a name; `at` < 0 means none. The run records every
/// job's reasons (the CLI only this job's without `--at`: the same output
/// unless the log reaches its bound).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn explain_json(
    trace: &str,
    trace_text: &str,
    cluster: &str,
    policy: &str,
    sets: Vec<String>,
    seed: u64,
    job: &str,
    at: f64,
) -> Result<String, JsValue> {
    Explainer::new(trace, trace_text, cluster, policy, sets, seed)?.explain(job, at)
}

/// A run with every reason recorded, kept for the page's "why" views (one
/// worker of its own holds it): the card of any job at any time, the queue
/// in the policy's order and the gauges, without running again. The JSON is
/// `crate::explain`'s, the same as `schedlab explain --format json`.
#[wasm_bindgen]
pub struct Explainer {
    outcome: crate::sim::Outcome,
    policy: String,
}

#[wasm_bindgen]
impl Explainer {
    #[wasm_bindgen(constructor)]
    pub fn new(
        trace: &str,
        trace_text: &str,
        cluster: &str,
        policy: &str,
        sets: Vec<String>,
        seed: u64,
    ) -> Result<Explainer, JsValue> {
        let trace = load_trace(trace, trace_text).map_err(js_err)?;
        let setup =
            page_setup(trace, cluster, vec![policy.to_string()], &sets, seed).map_err(js_err)?;
        let (mut sim, _) = setup.prepare(policy).map_err(js_err)?;
        sim.set_record_reasons(true, None);
        let outcome = sim.run(&mut |_| true).map_err(js_err)?;
        Ok(Explainer {
            outcome,
            policy: policy.to_string(),
        })
    }

    /// One job's reasons and, with `at` >= 0, the call then (explain_json's text).
    pub fn explain(&self, job: &str, at: f64) -> Result<String, JsValue> {
        let id = crate::explain::find_job(&self.outcome, job).map_err(js_err)?;
        let at = (at >= 0.0).then_some(at);
        let e = crate::explain::explain(&self.outcome, &self.policy, id, at).map_err(js_err)?;
        json_text(&e)
    }

    /// Every reason of the call at or before `at`, in the policy's order ("null" before the first call).
    pub fn call_at(&self, at: f64) -> Result<String, JsValue> {
        json_text(&crate::explain::call_reasons(&self.outcome.reasons, at))
    }

    /// The gauges the policy kept (the anticipatory predictor panel):
    /// `{names, t, name, key, value}`, reading i is `names[name[i]]` for
    /// `key[i]` at `t[i]` (typed arrays).
    pub fn gauges(&self) -> JsValue {
        let g = &self.outcome.gauges;
        let o = Object::new();
        let names: Vec<String> = g.names.iter().map(|n| n.to_string()).collect();
        set(&o, "names", &strings(&names));
        set(&o, "t", &f64s(&g.t));
        let name: Vec<u32> = g.name.iter().map(|&n| n as u32).collect();
        set(&o, "name", &u32s(&name));
        set(&o, "key", &u32s(&g.key));
        set(&o, "value", &f64s(&g.value));
        o.into()
    }
}

fn json_text<T: Serialize>(v: &T) -> Result<String, JsValue> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| js_err(Error::Internal(e.to_string())))
}

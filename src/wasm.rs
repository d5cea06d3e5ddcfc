//! The wasm-bindgen boundary: the only place JavaScript talks to Rust.
//! Every function returns `Result<_, JsValue>` with a readable message; no
//! panic crosses the boundary (a panic hook logs anything that slips).

use crate::cluster::parse_cluster;
use crate::error::Error;
use crate::params::split_overrides;
use crate::perf::ModelZoo;
use crate::report::{check_owners, run_policy, RunReport};
use crate::sim::ENGINE_PARAMS;
use crate::workload::{load_named, Trace};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

fn js_err(e: Error) -> JsValue {
    JsValue::from_str(&e.to_string())
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
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
    let trace = if trace_text.is_empty() {
        load_named(trace)
            .ok_or_else(|| JsValue::from_str(&format!("no bundled trace named '{trace}'")))?
            .map_err(js_err)?
    } else {
        Trace::parse(trace, trace_text, None).map_err(js_err)?
    };
    let cluster = Arc::new(parse_cluster(cluster).map_err(js_err)?);
    let zoo = Arc::new(ModelZoo::builtin());
    let policies: Vec<String> = policies
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let overrides = split_overrides(&sets).map_err(js_err)?;
    check_owners(&overrides, &policies).map_err(js_err)?;
    let mut results = Vec::new();
    for p in &policies {
        results.push(
            run_policy(&trace, &cluster, &zoo, p, &overrides, seed, &mut |_| true)
                .map_err(js_err)?,
        );
    }
    let engine = crate::params::Params::resolve(
        "engine",
        ENGINE_PARAMS,
        overrides.get("engine").map_or(&[][..], |v| v),
    )
    .map_err(js_err)?;
    let report = RunReport {
        trace: trace.name.clone(),
        cluster: cluster.name.clone(),
        seed,
        engine,
        results,
    };
    serde_json::to_string_pretty(&report)
        .map(|s| s + "\n")
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

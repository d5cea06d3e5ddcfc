//! Checks a trace against the cluster and the model zoo before a run.

use crate::state::JobState;
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::{Cluster, GpuKind};
use schedlab_model::perf::{BatchChoice, ModelZoo, RateQuery};
use schedlab_model::workload::{Adaptivity, JobSpec, Trace};

/// Resolves each job's model and declared work (`rules::declared_work`),
/// refusing jobs the cluster can never run.
///
/// An elastic job whose request exceeds every GPU type (possible on a
/// heterogeneous cluster) has its request clamped to the largest type, with
/// a note; a rigid or type-pinned one is refused, as is any request larger
/// than the whole cluster.
pub(crate) fn resolve_jobs(
    trace: &Trace,
    specs: &mut [JobSpec],
    cluster: &Cluster,
    zoo: &ModelZoo,
    homes: Option<&schedlab_model::cluster::cells::Homes>,
    notes: &mut Vec<String>,
) -> Result<Vec<JobState>> {
    let file = trace.name.as_str();
    cluster.pools.check(&cluster.name, cluster.total_gpus)?;
    let mut out = Vec::with_capacity(specs.len());
    let mut placeholders = 0usize;
    for spec in specs.iter_mut() {
        let line = spec.source_line as usize;
        let who = if line == 0 {
            format!("job '{}': ", spec.name)
        } else {
            String::new()
        };
        let err = |field: &str, msg: String| Error::input(file, line, field, format!("{who}{msg}"));
        let model = zoo.lookup(&spec.model).ok_or_else(|| {
            let hint = if spec
                .model
                .starts_with(schedlab_model::perf::sts_data::MODEL_PREFIX)
            {
                "; the STS authors' job types come with --sts-data DIR"
            } else {
                ""
            };
            err(
                "model",
                format!(
                    "unknown model '{}'{hint} (known: {})",
                    spec.model,
                    zoo.names().join(", ")
                ),
            )
        })?;
        let kind = match &spec.gpu_type {
            Some(t) => {
                let k = GpuKind::by_name(t)
                    .ok_or_else(|| err("gpu_type", format!("unknown GPU type '{t}'")))?;
                if !cluster.kinds.contains(&k) {
                    return Err(err(
                        "gpu_type",
                        format!("cluster '{}' has no {t} GPUs", cluster.name),
                    ));
                }
                k
            }
            None => cluster.kinds[0],
        };
        if let Some(mem) = spec.mem_gb {
            let largest = cluster
                .kinds
                .iter()
                .filter(|k| spec.gpu_type.is_none() || **k == kind)
                .map(|k| k.info().memory_gb)
                .fold(0.0, f64::max);
            if mem > largest {
                return Err(err(
                    "mem_gb",
                    format!(
                        "the job needs {mem} GB per GPU but the largest GPU it may use in cluster '{}' has {largest} GB",
                        cluster.name
                    ),
                ));
            }
        }
        let limit = if spec.gpu_type.is_some() {
            cluster.gpus_of(kind)
        } else {
            cluster.max_gpus_one_type()
        };
        let elastic = spec.adaptivity != Adaptivity::Rigid && spec.gpu_type.is_none();
        if spec.gpus > limit && elastic && spec.gpus <= cluster.total_gpus {
            notes.push(format!(
                "job '{}' requests {} GPUs but no GPU type of '{}' has that many: its request is clamped to {limit}",
                spec.name, spec.gpus, cluster.name
            ));
            spec.gpus = limit;
        }
        if spec.gpus > limit {
            return Err(err(
                "gpus",
                format!(
                    "job '{}' requests {} GPUs but cluster '{}' has at most {limit} of one type",
                    spec.name, spec.gpus, cluster.name
                ),
            ));
        }
        let info = zoo.get(model);
        placeholders += info.is_placeholder() as usize;
        let work = crate::rules::declared_work(spec, model, kind, cluster, zoo)
            .map_err(|(field, msg)| err(field, msg))?;
        // A job that no GPU type it may use can advance would wait forever.
        let kinds: Vec<GpuKind> = if spec.gpu_type.is_some() {
            vec![kind]
        } else {
            cluster.kinds.clone()
        };
        let progresses = kinds.iter().any(|&k| {
            let per_node = cluster.max_node_gpus(k).max(1);
            let gpus = spec.gpus.min(cluster.gpus_of(k)).max(1);
            let q = RateQuery {
                kind: k,
                gpus,
                nodes: gpus.div_ceil(per_node),
                batch: BatchChoice::Fixed(crate::rules::rigid_batch(spec, info)),
                progress: 0.0,
            };
            zoo.rate(model, &q).per_s > 0.0
        });
        if !progresses {
            return Err(err(
                "model",
                format!(
                    "model '{}' makes no progress on {} GPUs of any type it may use on cluster '{}'",
                    info.name, spec.gpus, cluster.name
                ),
            ));
        }
        let mut st = JobState::new(model, work);
        if !cluster.pools.is_empty() {
            st.pool = cluster.pools.id_of(&spec.tenant).ok_or_else(|| {
                err(
                    "tenant",
                    format!(
                        "tenant '{}' is not among the declared pools ({})",
                        spec.tenant,
                        cluster
                            .pools
                            .pools
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
            let quota = cluster.pools.get(st.pool).map_or(0, |p| p.quota);
            if spec.gpus > quota {
                return Err(err(
                    "gpus",
                    format!(
                        "the job asks for {} GPUs but its pool '{}' has a quota of {quota}: it could never start within its quota",
                        spec.gpus, spec.tenant
                    ),
                ));
            }
            // Under locality cells the job must fit its pool's home cells.
            if let Some(home) = homes.and_then(|h| h.of(st.pool as usize)) {
                let fits = kinds.iter().any(|&k| {
                    schedlab_model::cluster::cells::find(cluster, k, spec.gpus, home).is_some()
                });
                if !fits {
                    return Err(err(
                        "gpus",
                        format!(
                            "engine.placement=cells: the job's {} GPUs do not fit as one cell in pool '{}''s home cells ({quota} GPUs laid out as power-of-two cells on the servers): it could never start within its quota",
                            spec.gpus, spec.tenant
                        ),
                    ));
                }
            }
        }
        out.push(st);
    }
    if placeholders > 0 {
        notes.push(format!(
            "placeholder results: {placeholders} of {} jobs use models whose profiles are placeholders, not measurements (e.g. the STS job types sts/*, spec seed002 §4.1; the authors' measured ones come with --sts-data DIR)",
            specs.len()
        ));
    }
    Ok(out)
}

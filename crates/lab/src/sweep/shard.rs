//! Which runs of the manifest a worker does: all, a shard I/N (runs i with
//! i mod N = I, so heavy neighbours spread over the shards), or one index;
//! given none, the environment of a Slurm array task or a Kubernetes
//! Indexed Job pod decides.

use schedlab_core::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    All,
    /// Shard `index` of `count` (0-based).
    Shard {
        index: usize,
        count: usize,
    },
    /// The run at this position of the manifest.
    Index(usize),
}

/// Environment variable a Kubernetes Indexed Job sets on each pod.
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// Set by our Kubernetes manifest: the Job's number of completions.
pub const K8S_COUNT: &str = "SCHEDLAB_SHARD_COUNT";

impl Share {
    /// Parses `I/N` (0 <= I < N).
    pub fn parse_shard(text: &str) -> Result<Share> {
        let bad = || {
            Error::config(format!(
                "--shard {text}: expected I/N with 0 <= I < N (e.g. 0/3)"
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Share::Shard { index, count })
    }

    /// The share a cluster engine gives this process, if any: a Slurm array
    /// task (`SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN` of
    /// `SLURM_ARRAY_TASK_COUNT`) or an Indexed Job pod
    /// (`JOB_COMPLETION_INDEX` of `SCHEDLAB_SHARD_COUNT`).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Share>> {
        let num = |name: &str| -> Result<Option<usize>> {
            match get(name) {
                None => Ok(None),
                Some(v) => v.trim().parse().map(Some).map_err(|_| {
                    Error::config(format!(
                        "environment variable {name}='{v}' is not a whole number"
                    ))
                }),
            }
        };
        if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = num("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                Error::config("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
            })?;
            let index = id.checked_sub(min).filter(|i| *i < count).ok_or_else(|| {
                Error::config(format!(
                    "Slurm array task {id} is outside {min}..{min}+{count}: submit the script `schedlab sweep slurm` wrote"
                ))
            })?;
            return Ok(Some(Share::Shard { index, count }));
        }
        if let Some(index) = num(K8S_INDEX)? {
            let count = num(K8S_COUNT)?.ok_or_else(|| {
                Error::config(format!("{K8S_INDEX} is set but {K8S_COUNT} is not (use the manifest `schedlab sweep k8s` writes)"))
            })?;
            if index >= count {
                return Err(Error::config(format!(
                    "{K8S_INDEX}={index} is not below {K8S_COUNT}={count}"
                )));
            }
            return Ok(Some(Share::Shard { index, count }));
        }
        Ok(None)
    }

    /// Positions of the manifest's `n` runs in this share.
    pub fn select(self, n: usize) -> Result<Vec<usize>> {
        match self {
            Share::All => Ok((0..n).collect()),
            Share::Shard { index, count } => Ok((index..n).step_by(count).collect()),
            Share::Index(k) if k < n => Ok(vec![k]),
            Share::Index(k) => Err(Error::config(format!(
                "--index {k}: the manifest has {n} runs (0..{})",
                n.saturating_sub(1)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs() {
        let mut all: Vec<usize> = (0..3)
            .flat_map(|i| Share::Shard { index: i, count: 3 }.select(10).unwrap())
            .collect();
        all.sort();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(
            Share::parse_shard("1/3").unwrap(),
            Share::Shard { index: 1, count: 3 }
        );
        assert!(Share::parse_shard("3/3").is_err());
        assert!(Share::Index(10).select(10).is_err());
    }

    #[test]
    fn environment_of_slurm_and_kubernetes() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        let s = Share::from_env(env(&[
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]));
        assert_eq!(s.unwrap(), Some(Share::Shard { index: 1, count: 3 }));
        let s = Share::from_env(env(&[
            ("JOB_COMPLETION_INDEX", "2"),
            ("SCHEDLAB_SHARD_COUNT", "4"),
        ]));
        assert_eq!(s.unwrap(), Some(Share::Shard { index: 2, count: 4 }));
        assert!(Share::from_env(env(&[("JOB_COMPLETION_INDEX", "2")])).is_err());
        assert_eq!(Share::from_env(env(&[])).unwrap(), None);
    }
}

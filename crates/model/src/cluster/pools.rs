//! Pools: tenants with GPU quotas, declared beside the cluster.
//!
//! A pool is a tenant (a trace's `tenant` column: a team, a virtual
//! cluster) that owns a quota of the cluster's GPUs. Quotas are not walls:
//! the engine tracks each pool's usage (`View::pool_used`, the outcome's
//! per-pool results) and policies decide whether to lend idle quota. The
//! shared admission stage (`policy::admission`) keeps every pool within
//! its quota. Pools are declared as `NAME=GPUS,...` (`--pools`) or as a CSV
//! file with columns `pool,quota`.

use schedlab_core::error::{Error, Result};
use schedlab_core::textio::CsvTable;
use serde::Serialize;

/// A pool's index in [`Pools`] (and in `JobState::pool`).
pub type PoolId = u16;

/// Jobs of a run without declared pools belong to no pool.
pub const NO_POOL: PoolId = PoolId::MAX;

/// Most pools accepted (ids are 16-bit, one value is `NO_POOL`).
pub const MAX_POOLS: usize = 4096;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pool {
    pub name: String,
    /// GPUs the pool owns.
    pub quota: u32,
}

/// The declared pools; empty when the run has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pools {
    pub pools: Vec<Pool>,
}

impl Pools {
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pools.len()
    }

    pub fn get(&self, id: PoolId) -> Option<&Pool> {
        self.pools.get(id as usize)
    }

    /// The pool a tenant names.
    pub fn id_of(&self, tenant: &str) -> Option<PoolId> {
        self.pools
            .iter()
            .position(|p| p.name == tenant)
            .map(|i| i as PoolId)
    }

    /// Parses `NAME=GPUS,NAME=GPUS` (the `--pools` flag).
    pub fn parse_list(text: &str) -> Result<Pools> {
        let mut pools = Pools::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, quota) = item
                .split_once('=')
                .ok_or_else(|| Error::config(format!("pools: '{item}' is not NAME=GPUS")))?;
            let quota = quota.trim().parse::<u32>().map_err(|_| {
                Error::config(format!(
                    "pools: quota of '{}' is not a GPU count: '{quota}'",
                    name.trim()
                ))
            })?;
            pools
                .add(name.trim(), quota)
                .map_err(|m| Error::config(format!("pools: {m}")))?;
        }
        if pools.is_empty() {
            return Err(Error::config(
                "pools: no pool declared (expected NAME=GPUS,...)",
            ));
        }
        Ok(pools)
    }

    /// Parses a pools file: CSV with columns `pool` and `quota`.
    pub fn parse_csv(file: &str, text: &str) -> Result<Pools> {
        let mut table = CsvTable::open(file, text)?;
        table.require(&["pool", "quota"], "a pools file")?;
        let mut pools = Pools::default();
        table.rows(|row| {
            let name = row.required_text("pool")?;
            let quota = row.u32("quota")?;
            pools.add(name, quota).map_err(|m| row.error("pool", m))
        })?;
        if pools.is_empty() {
            return Err(Error::input(file, 1, "", "no pools in the file"));
        }
        Ok(pools)
    }

    /// A pool list from `--pools`: a file if the text names one, else a list.
    pub fn from_arg(arg: &str) -> Result<Pools> {
        if arg.ends_with(".csv") || std::path::Path::new(arg).is_file() {
            let text = schedlab_core::textio::read_text(arg)?;
            Pools::parse_csv(arg, &text)
        } else {
            Pools::parse_list(arg)
        }
    }

    fn add(&mut self, name: &str, quota: u32) -> std::result::Result<(), String> {
        if name.is_empty() {
            return Err("empty pool name".into());
        }
        if quota == 0 {
            return Err(format!("pool '{name}' has no GPUs (quota 0)"));
        }
        if self.id_of(name).is_some() {
            return Err(format!("pool '{name}' declared twice"));
        }
        if self.pools.len() >= MAX_POOLS {
            return Err(format!("more than {MAX_POOLS} pools"));
        }
        self.pools.push(Pool {
            name: name.to_string(),
            quota,
        });
        Ok(())
    }

    /// `NAME=GPUS,...`, the form `--pools` and the trace directive take.
    pub fn to_list(&self) -> String {
        self.pools
            .iter()
            .map(|p| format!("{}={}", p.name, p.quota))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Checks the quotas against the cluster: together they may not exceed
    /// its GPUs (an over-committed quota could never be honoured).
    pub fn check(&self, cluster_name: &str, total_gpus: u32) -> Result<()> {
        let sum: u64 = self.pools.iter().map(|p| p.quota as u64).sum();
        if sum > total_gpus as u64 {
            return Err(Error::config(format!(
                "pools: quotas add up to {sum} GPUs but cluster '{cluster_name}' has {total_gpus}"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_files_parse_and_bad_input_is_named() {
        let p = Pools::parse_list("a=16, b=32").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p.id_of("b"), Some(1));
        assert_eq!(p.get(1).unwrap().quota, 32);
        let e = Pools::parse_list("a=16,a=2").unwrap_err();
        assert!(e.to_string().contains("declared twice"), "{e}");
        let e = Pools::parse_list("a=x").unwrap_err();
        assert!(e.to_string().contains("quota of 'a'"), "{e}");
        let f = Pools::parse_csv("p.csv", "pool,quota\nvc1,8\nvc2,24\n").unwrap();
        assert_eq!(
            f.pools[1],
            Pool {
                name: "vc2".into(),
                quota: 24
            }
        );
        let e = Pools::parse_csv("p.csv", "pool,quota\nvc1,8\nvc2,-1\n").unwrap_err();
        assert!(
            e.to_string().contains("p.csv") && e.to_string().contains("line 3"),
            "{e}"
        );
        assert!(f.check("c", 32).is_ok());
        let e = f.check("c", 31).unwrap_err();
        assert!(e.to_string().contains("32 GPUs"), "{e}");
    }
}

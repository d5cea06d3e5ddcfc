//! One run set-up. Settings enter as text at the edge (`--set`, the page's
//! `set=`, sweep specs and manifests, reproduction options) and are parsed
//! there, once, into [`RunSettings`]: the engine's and the zoo's typed
//! settings and each policy's resolved parameters, every one checked against
//! its declaration. An unknown owner, key or choice, a value out of range,
//! the same key given twice with different values, or a policy's own
//! cross-checks (Tiresias' increasing thresholds, ...) are errors naming the
//! setting before anything runs. [`RunSetup`] bundles a run's trace,
//! cluster, zoo, policies, settings and seed; the CLI, the page, sweeps,
//! reproductions, the PCS search and `validate` all simulate through
//! [`RunSettings::simulation`].

use schedlab_core::error::{Error, Result};
use schedlab_core::params::{name_list, split_overrides, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::Cluster;
use schedlab_model::perf::profiles::ProfileSet;
use schedlab_model::perf::sts_data::StsData;
use schedlab_model::perf::{ModelInfo, ModelZoo, ZooSettings};
use schedlab_model::workload::Trace;
use schedlab_sim::{EngineConfig, EngineSettings, Progress, Simulation};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Settings as text, keyed by owner (`engine`, `zoo` or a policy name):
/// `(key, value)` pairs in the order given. The form settings have before
/// they are parsed, and the form sweep manifests store.
pub type Overrides = BTreeMap<String, Vec<(String, String)>>;

/// The owners that are not policies.
const ENGINE: &str = "engine";
const ZOO: &str = "zoo";

/// A run's settings, parsed and checked: the engine's and the zoo's typed,
/// each policy's resolved against its declaration.
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    engine: EngineSettings,
    zoo: ZooSettings,
    /// Policies with settings given; the others run with their defaults.
    policies: BTreeMap<String, Params>,
    /// Every entry given, by owner in order (for "unless given" defaults
    /// and for writing the settings back as text).
    given: Overrides,
}

impl RunSettings {
    /// Parses `OWNER.KEY=VALUE` entries for a run of `policies` (the CLI's
    /// `--set`, the page's `set=`). `pcs.config=FILE` stands for the
    /// settings in that PCS configuration file, read with `read` (later
    /// `pcs.*` entries win over the file's).
    pub fn parse(
        entries: &[String],
        policies: &[String],
        read: &dyn Fn(&str) -> Result<String>,
    ) -> Result<RunSettings> {
        let mut overrides = split_overrides(entries)?;
        for owner in overrides.keys() {
            check_owner(owner, policies)?;
        }
        schedlab_policies::pcs::config::expand_config_files(&mut overrides, read)?;
        RunSettings::from_overrides(&overrides, policies)
    }

    /// Checks settings given by owner for a run of `policies`: the owner
    /// must be `engine`, `zoo` or one of `policies`, every key declared by
    /// it and every value valid (a policy's settings together, as its
    /// constructor checks them).
    pub fn from_overrides(overrides: &Overrides, policies: &[String]) -> Result<RunSettings> {
        let mut s = RunSettings::default();
        for (owner, pairs) in overrides {
            check_owner(owner, policies)?;
            for (key, value) in pairs {
                s.set(owner, key, value)?;
            }
            if owner != ENGINE && owner != ZOO {
                s.check_policy(owner)?;
            }
        }
        Ok(s)
    }

    /// Sets one setting, replacing an earlier value: refused (naming
    /// `owner.key`) when the owner, key or value is not declared.
    pub fn set(&mut self, owner: &str, key: &str, value: &str) -> Result<()> {
        let pair = [(key.to_string(), value.to_string())];
        match owner {
            ENGINE => self.engine = reparse(ENGINE, &self.engine, &pair)?,
            ZOO => self.zoo = reparse(ZOO, &self.zoo, &pair)?,
            policy => {
                let info = schedlab_policies::info(policy).map_err(|_| unknown_owner(owner))?;
                let mut pairs = self.given.get(policy).cloned().unwrap_or_default();
                pairs.extend(pair.iter().cloned());
                let params = Params::resolve(policy, info.params, &pairs)?;
                self.policies.insert(policy.to_string(), params);
            }
        }
        let list = self.given.entry(owner.to_string()).or_default();
        list.retain(|(k, _)| k != key);
        list.push((key.to_string(), value.to_string()));
        Ok(())
    }

    /// Sets a setting unless it was given (a reproduction's own default
    /// that the user's `--set` overrides).
    pub fn set_unless_given(&mut self, owner: &str, key: &str, value: &str) -> Result<()> {
        if self.is_given(owner, key) {
            return Ok(());
        }
        self.set(owner, key, value)
    }

    /// These settings with `owner.key = value` (see [`RunSettings::set`]).
    pub fn with(&self, owner: &str, key: &str, value: &str) -> Result<RunSettings> {
        let mut s = self.clone();
        s.set(owner, key, value)?;
        Ok(s)
    }

    /// These settings with `owner`'s `pairs` set in order.
    pub fn with_pairs<K: AsRef<str>, V: AsRef<str>>(
        &self,
        owner: &str,
        pairs: &[(K, V)],
    ) -> Result<RunSettings> {
        let mut s = self.clone();
        for (k, v) in pairs {
            s.set(owner, k.as_ref(), v.as_ref())?;
        }
        Ok(s)
    }

    /// The engine's and the zoo's settings alone (no policy's).
    pub fn engine_only(&self) -> RunSettings {
        RunSettings {
            policies: BTreeMap::new(),
            given: self
                .given
                .iter()
                .filter(|(owner, _)| *owner == ENGINE || *owner == ZOO)
                .map(|(o, l)| (o.clone(), l.clone()))
                .collect(),
            ..self.clone()
        }
    }

    /// Whether `owner.key` was given.
    pub fn is_given(&self, owner: &str, key: &str) -> bool {
        self.given
            .get(owner)
            .is_some_and(|l| l.iter().any(|(k, _)| k == key))
    }

    /// The entries given, by owner (in order; a later value of a key replaced the earlier).
    pub fn given(&self) -> &Overrides {
        &self.given
    }

    /// The engine's settings.
    pub fn engine(&self) -> &EngineSettings {
        &self.engine
    }

    /// The zoo's settings.
    pub fn zoo(&self) -> &ZooSettings {
        &self.zoo
    }

    /// `policy`'s resolved parameters (its defaults when none were given).
    pub fn policy(&self, policy: &str) -> Result<Params> {
        match self.policies.get(policy) {
            Some(p) => Ok(p.clone()),
            None => Params::resolve(policy, schedlab_policies::info(policy)?.params, &[]),
        }
    }

    /// The names of the policies with settings given.
    pub fn configured_policies(&self) -> impl Iterator<Item = &str> {
        self.policies.keys().map(String::as_str)
    }

    /// Builds the policy once, so that its own checks of its settings
    /// together (increasing thresholds, a non-zero power, ...) fail now.
    fn check_policy(&self, policy: &str) -> Result<()> {
        let info = schedlab_policies::info(policy)?;
        if info.in_this_package() {
            schedlab_policies::build_resolved(policy, &self.policy(policy)?, 0)?;
        }
        Ok(())
    }

    /// The engine's configuration for a run with `seed`.
    pub fn engine_config(&self, seed: u64) -> EngineConfig {
        let mut cfg = EngineConfig::from_settings(&self.engine);
        cfg.seed = seed;
        cfg
    }

    /// `policy` with `params` on `trace`, ready to run: the one place a run's
    /// simulation is built from its settings.
    pub fn simulation_with(
        &self,
        trace: &Trace,
        cluster: &Arc<Cluster>,
        zoo: &Arc<ModelZoo>,
        policy: &str,
        params: &Params,
        seed: u64,
    ) -> Result<Simulation> {
        let pol = schedlab_policies::build_resolved(policy, params, seed)?;
        Simulation::with_shared(
            trace,
            cluster.clone(),
            zoo.clone(),
            pol,
            self.engine_config(seed),
        )
    }

    /// `policy` with its settings on `trace`, ready to run, and its parameters.
    pub fn simulation(
        &self,
        trace: &Trace,
        cluster: &Arc<Cluster>,
        zoo: &Arc<ModelZoo>,
        policy: &str,
        seed: u64,
    ) -> Result<(Simulation, Params)> {
        let params = self.policy(policy)?;
        let sim = self.simulation_with(trace, cluster, zoo, policy, &params, seed)?;
        Ok((sim, params))
    }
}

/// `current` with `pairs` on top, checked against the declarations.
fn reparse<S: Settings>(owner: &str, current: &S, pairs: &[(String, String)]) -> Result<S> {
    let mut all: Vec<(String, String)> = current
        .to_params()
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    all.extend(pairs.iter().cloned());
    S::resolve(owner, &all)
}

fn unknown_owner(owner: &str) -> Error {
    Error::config(format!(
        "--set {owner}.*: unknown owner '{owner}'; expected engine, zoo or a policy (`schedlab list policies`)"
    ))
}

/// An owner of settings must be the engine, the zoo or a policy of the run.
fn check_owner(owner: &str, policies: &[String]) -> Result<()> {
    if owner == ENGINE || owner == ZOO || policies.iter().any(|p| p == owner) {
        return Ok(());
    }
    if schedlab_policies::info(owner).is_err() {
        return Err(unknown_owner(owner));
    }
    if policies.is_empty() {
        return Err(Error::config(format!(
            "--set {owner}.*: only engine.* and zoo.* settings apply here"
        )));
    }
    Err(Error::config(format!(
        "--set {owner}.*: policy '{owner}' is not among the run's policies ({})",
        policies.join(",")
    )))
}

/// A comma-separated list of policy names (`--policy`, the page's
/// `policies=`): every name known, none empty, none twice.
pub fn parse_policies(flag: &str, text: &str) -> Result<Vec<String>> {
    let names = name_list(flag, text)?;
    for name in &names {
        schedlab_policies::info(name)?;
    }
    Ok(names)
}

/// Where a run's models come from: a named zoo (`builtin`, `pollux-osdi21`)
/// with the zoo's settings applied, then models added from files the edge
/// has read, in this order.
#[derive(Debug, Clone, Default)]
pub struct ZooSource {
    /// `builtin` (also "") or `pollux-osdi21`.
    pub name: String,
    /// The AFS authors' measured speedup tables: (file, text).
    pub afs_tables: Option<(String, String)>,
    /// Profile directories to fit, with the label their provenance shows.
    pub profiles: Option<(ProfileSet, String)>,
    /// Table models (`--table-models`).
    pub table_models: Vec<ModelInfo>,
    /// Gavel's measured job types (`--gavel-throughputs`).
    pub gavel_models: Vec<ModelInfo>,
    /// The STS authors' data (`--sts-data`): profiles, node costs, slots.
    pub sts_data: Option<Arc<StsData>>,
}

impl ZooSource {
    /// The named zoo alone.
    pub fn named(name: &str) -> ZooSource {
        ZooSource {
            name: name.to_string(),
            ..ZooSource::default()
        }
    }

    /// The zoo these sources and `settings` give.
    pub fn build(&self, settings: &ZooSettings) -> Result<ModelZoo> {
        let mut zoo = ModelZoo::named(&self.name).ok_or_else(|| {
            Error::config(format!(
                "zoo '{}': expected builtin or pollux-osdi21",
                self.name
            ))
        })?;
        zoo.apply_settings(settings);
        if let Some((file, text)) = &self.afs_tables {
            zoo.add_afs_tables(file, text)?;
        }
        if let Some((set, label)) = &self.profiles {
            zoo.add_profiles(set, label)?;
        }
        if let Some(data) = &self.sts_data {
            data.apply(&mut zoo)?;
        }
        for m in self.table_models.iter().chain(&self.gavel_models) {
            zoo.insert(m.clone());
        }
        Ok(zoo)
    }
}

/// Everything a run needs: trace, cluster, zoo, policies with their
/// settings, engine settings and seed.
pub struct RunSetup {
    pub trace: Trace,
    pub cluster: Arc<Cluster>,
    pub zoo: Arc<ModelZoo>,
    pub policies: Vec<String>,
    pub settings: RunSettings,
    pub seed: u64,
}

impl RunSetup {
    /// A set-up of `policies` on `trace` and `cluster` (a built-in name or a
    /// spec; pools from the trace) with `settings` and the zoo of `zoo`.
    pub fn new(
        trace: Trace,
        cluster: Cluster,
        zoo: &ZooSource,
        policies: Vec<String>,
        settings: RunSettings,
        seed: u64,
    ) -> Result<RunSetup> {
        let zoo = Arc::new(zoo.build(settings.zoo())?);
        Ok(RunSetup {
            trace,
            cluster: Arc::new(cluster),
            zoo,
            policies,
            settings,
            seed,
        })
    }

    /// `policy`'s simulation, ready to run, and its parameters.
    pub fn prepare(&self, policy: &str) -> Result<(Simulation, Params)> {
        self.settings
            .simulation(&self.trace, &self.cluster, &self.zoo, policy, self.seed)
    }

    /// Runs `policy` to the end (`progress` returning false cancels).
    pub fn run(
        &self,
        policy: &str,
        progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<crate::report::PolicyRun> {
        crate::report::run_policy(
            &self.trace,
            &self.cluster,
            &self.zoo,
            policy,
            &self.settings,
            self.seed,
            progress,
        )
    }

    /// The report of `results` (the CLI's `run` output).
    pub fn report(&self, results: Vec<crate::report::PolicyRun>) -> crate::report::RunReport {
        crate::report::RunReport {
            trace: self.trace.name.clone(),
            cluster: self.cluster.name.clone(),
            seed: self.seed,
            engine: self.settings.engine().to_params(),
            results,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn no_files(path: &str) -> Result<String> {
        Err(Error::config(format!("no file {path}")))
    }

    fn parse(entries: &[&str], policies: &[&str]) -> Result<RunSettings> {
        RunSettings::parse(&names(entries), &names(policies), &no_files)
    }

    fn refused(entries: &[&str], policies: &[&str]) -> String {
        parse(entries, policies).unwrap_err().to_string()
    }

    #[test]
    fn settings_are_typed_and_checked_before_anything_runs() {
        let s = parse(
            &[
                "engine.placement=any",
                "tiresias.t1=60",
                "zoo.sts_a100_speed=3",
            ],
            &["fifo", "tiresias"],
        )
        .unwrap();
        assert_eq!(
            s.engine().placement,
            schedlab_model::cluster::PlacementRule::Any
        );
        assert_eq!(s.zoo().sts_a100_speed, 3.0);
        assert_eq!(s.policy("tiresias").unwrap().f64("t1"), 60.0);
        assert_eq!(s.policy("fifo").unwrap().f64("round_s"), 0.0);
        for (entries, want) in [
            (
                &["engine.nosuch=1"][..],
                "unknown parameter 'engine.nosuch'",
            ),
            (
                &["engine.placement=foo"],
                "engine.placement=foo: must be one of packed, any, netpack, cells",
            ),
            (&["engine.max_days=-1"], "engine.max_days=-1: must be in"),
            (&["nosuch.k=1"], "unknown owner 'nosuch'"),
            (&["tiresias.t1=-5"], "tiresias.t1=-5: must be in"),
            (&["fifo.nosuch=3"], "unknown parameter 'fifo.nosuch'"),
            (
                &["sia.p=0.5"],
                "policy 'sia' is not among the run's policies (fifo,tiresias)",
            ),
            (
                &["fifo.round_s=60", "fifo.round_s=30"],
                "fifo.round_s is given twice",
            ),
            // The policy's own check of its settings together.
            (
                &["tiresias.t2=100"],
                "thresholds t1 < t2 < t3 must increase",
            ),
            (&["pcs.config=x.json"], "no file x.json"),
        ] {
            let policies = if entries[0].starts_with("pcs") {
                &["pcs"][..]
            } else {
                &["fifo", "tiresias"][..]
            };
            let e = refused(entries, policies);
            assert!(e.contains(want), "{entries:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn a_set_replaces_and_unless_given_keeps_the_users_choice() {
        let mut s = parse(&["engine.placement=packed"], &["srtf"]).unwrap();
        s.set_unless_given("engine", "placement", "any").unwrap();
        s.set_unless_given("engine", "calibration", "sia").unwrap();
        s.set("srtf", "request", "peak").unwrap();
        s.set("srtf", "request", "trace").unwrap();
        assert_eq!(
            s.engine().placement,
            schedlab_model::cluster::PlacementRule::Packed
        );
        assert_eq!(s.engine().calibration, schedlab_sim::Calibration::Sia);
        assert_eq!(s.policy("srtf").unwrap().text("request"), "trace");
        assert_eq!(s.given()["srtf"], vec![("request".into(), "trace".into())]);
        assert!(s.set("srtf", "request", "most").is_err());
        assert!(s.set("engine", "placement", "nowhere").is_err());
        assert_eq!(
            s.engine().placement,
            schedlab_model::cluster::PlacementRule::Packed,
            "a refused value changes nothing"
        );
    }

    #[test]
    fn policy_lists_refuse_empty_and_repeated_names() {
        assert_eq!(
            parse_policies("--policy", "fifo, tiresias").unwrap(),
            names(&["fifo", "tiresias"])
        );
        for (text, want) in [
            ("fifo,fifo", "'fifo' is named twice"),
            ("fifo,,tiresias", "entry 2 is empty"),
            ("", "entry 1 is empty"),
            ("fifo,nope", "unknown policy 'nope'"),
        ] {
            let e = parse_policies("--policy", text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn the_zoo_follows_its_settings() {
        let s = parse(&["zoo.sts_a100_speed=3"], &[]).unwrap();
        let fast = ZooSource::named("builtin").build(s.zoo()).unwrap();
        let plain = ZooSource::named("builtin")
            .build(&ZooSettings::default())
            .unwrap();
        let speed = |z: &ModelZoo| serde_json::to_string(z).unwrap();
        assert_ne!(speed(&fast), speed(&plain));
        assert!(ZooSource::named("nosuch")
            .build(&ZooSettings::default())
            .is_err());
    }
}

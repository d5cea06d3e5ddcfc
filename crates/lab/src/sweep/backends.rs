//! Submitting a sweep to the cluster engine users already have: a Slurm job
//! array script and a Kubernetes Indexed Job manifest. Each array task or
//! pod runs `schedlab sweep run DIR`, which finds its shard in the
//! environment (`shard::Share::from_env`); the sweep directory must be on a
//! filesystem every worker sees.

use super::shard::{K8S_COUNT, K8S_INDEX};

/// Options of the Slurm script.
pub struct SlurmOptions<'a> {
    /// The schedlab binary the tasks run (absolute path).
    pub binary: &'a str,
    /// The sweep directory (absolute path).
    pub dir: &'a str,
    /// Array tasks (shards).
    pub array_size: usize,
    /// Threads per task (`--jobs`, and `--cpus-per-task`).
    pub threads: usize,
    /// Extra `#SBATCH` options, e.g. `--partition=cpu` or `--time=02:00:00`.
    pub sbatch: &'a [String],
}

/// The sbatch script of a job array over the manifest.
pub fn slurm_script(o: &SlurmOptions) -> String {
    let mut s = String::from("#!/bin/bash\n");
    s.push_str("# schedlab sweep: one array task per shard of the manifest.\n");
    s.push_str(&format!("# Submit with: sbatch {}/sweep.sbatch\n", o.dir));
    s.push_str("#SBATCH --job-name=schedlab-sweep\n");
    s.push_str(&format!(
        "#SBATCH --array=0-{}\n",
        o.array_size.saturating_sub(1)
    ));
    s.push_str(&format!("#SBATCH --cpus-per-task={}\n", o.threads));
    s.push_str(&format!("#SBATCH --output={}/logs/task-%a.out\n", o.dir));
    for opt in o.sbatch {
        s.push_str(&format!("#SBATCH {}\n", opt.trim()));
    }
    s.push_str("set -euo pipefail\n");
    s.push_str("# The task's shard comes from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT;\n");
    s.push_str("# finished runs are skipped, so a requeued or resubmitted task resumes.\n");
    s.push_str(&format!(
        "exec {} sweep run {} --jobs {}\n",
        shell_quote(o.binary),
        shell_quote(o.dir),
        o.threads
    ));
    s
}

/// Options of the Kubernetes manifest.
pub struct K8sOptions<'a> {
    pub name: &'a str,
    pub image: &'a str,
    /// PersistentVolumeClaim holding the sweep directory (mounted at /sweep).
    pub pvc: &'a str,
    /// Completions (shards) and how many pods run at once.
    pub completions: usize,
    pub parallelism: usize,
    pub threads: usize,
}

/// The Indexed Job template; `{…}` fields are filled by [`k8s_manifest`].
const K8S_TEMPLATE: &str = r#"# schedlab sweep as a Kubernetes Indexed Job: pod k runs shard k of {n}.
# The sweep directory (manifest.json, results/) lives on the volume claim '{pvc}',
# mounted at /sweep; the manifest's trace paths must be valid inside the pod.
# Apply with: kubectl apply -f sweep-k8s.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  completionMode: Indexed
  completions: {n}
  parallelism: {par}
  backoffLimitPerIndex: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: schedlab
        image: {image}
        command: ["schedlab", "sweep", "run", "/sweep", "--jobs", "{threads}"]
        env:
        - name: {count_var}
          value: "{n}"
        # {index_var} is set by Kubernetes on each pod of an Indexed Job.
        resources:
          requests:
            cpu: "{threads}"
        volumeMounts:
        - name: sweep
          mountPath: /sweep
      volumes:
      - name: sweep
        persistentVolumeClaim:
          claimName: {pvc}
"#;

/// An Indexed Job: pod k runs shard k of `completions`.
pub fn k8s_manifest(o: &K8sOptions) -> String {
    K8S_TEMPLATE
        .replace("{n}", &o.completions.to_string())
        .replace("{par}", &o.parallelism.to_string())
        .replace("{name}", o.name)
        .replace("{image}", o.image)
        .replace("{pvc}", o.pvc)
        .replace("{threads}", &o.threads.to_string())
        .replace("{count_var}", K8S_COUNT)
        .replace("{index_var}", K8S_INDEX)
}

/// Single-quotes a word for the shell.
fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_script_has_the_array_and_the_command() {
        let s = slurm_script(&SlurmOptions {
            binary: "/opt/schedlab",
            dir: "/data/my sweep",
            array_size: 4,
            threads: 2,
            sbatch: &["--time=01:00:00".into()],
        });
        assert!(s.contains("#SBATCH --array=0-3\n"));
        assert!(s.contains("#SBATCH --time=01:00:00\n"));
        assert!(s.contains("exec /opt/schedlab sweep run '/data/my sweep' --jobs 2\n"));
    }

    #[test]
    fn k8s_manifest_is_an_indexed_job() {
        let m = k8s_manifest(&K8sOptions {
            name: "s",
            image: "schedlab:1",
            pvc: "pvc",
            completions: 5,
            parallelism: 2,
            threads: 1,
        });
        assert!(m.contains("completionMode: Indexed") && m.contains("completions: 5"));
        assert!(m.contains("name: SCHEDLAB_SHARD_COUNT\n          value: \"5\""));
    }
}

//! Result files: one per run, `DIR/results/<id>.json`, written atomically
//! (temporary file + rename) and carrying the SHA-256 of their content, so a
//! truncated, corrupt or foreign file is detected and the run done again.

use super::manifest::sha256_hex;
use schedlab_core::error::{Error, Result};
use schedlab_metrics::Summary;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Sub-directory of the sweep directory holding the result files.
pub const RESULTS_DIR: &str = "results";

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Failed,
}

/// One run's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub id: String,
    pub status: Status,
    /// Why it failed (error message, timeout, panic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wall-clock seconds of the simulation (not part of merged tables
    /// unless asked for: it differs from run to run).
    pub wall_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Summary>,
    /// Time-averaged queue length and cluster efficiency (GPU share in use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_queue: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ce: Option<f64>,
}

/// The file's content: the result and the SHA-256 of its JSON text exactly
/// as written (hashing the text, not a re-serialisation, so a float that
/// parses back one ulp off cannot fail the check).
#[derive(Serialize)]
struct Envelope<'a> {
    result: &'a serde_json::value::RawValue,
    sha256: String,
}

#[derive(Deserialize)]
struct StoredEnvelope<'a> {
    #[serde(borrow)]
    result: &'a serde_json::value::RawValue,
    sha256: String,
}

/// What is on disk for a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    Missing,
    /// Unreadable, truncated, wrong id or checksum: to be run again.
    Corrupt(String),
    Done(Box<RunResult>),
}

pub fn result_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(RESULTS_DIR).join(format!("{id}.json"))
}

/// Reads and verifies the result of run `id`.
pub fn read_result(dir: &Path, id: &str) -> Stored {
    let path = result_path(dir, id);
    if !path.exists() {
        return Stored::Missing;
    }
    let bytes = match schedlab_core::textio::read_bytes(&path.to_string_lossy()) {
        Ok(b) => b,
        Err(e) => return Stored::Corrupt(format!("unreadable: {e}")),
    };
    let env: StoredEnvelope = match serde_json::from_slice(&bytes) {
        Ok(e) => e,
        Err(e) => return Stored::Corrupt(format!("not a complete result file: {e}")),
    };
    if sha256_hex(env.result.get().as_bytes()) != env.sha256 {
        return Stored::Corrupt("checksum mismatch".into());
    }
    let result: RunResult = match serde_json::from_str(env.result.get()) {
        Ok(r) => r,
        Err(e) => return Stored::Corrupt(format!("not a result: {e}")),
    };
    if result.id != id {
        return Stored::Corrupt(format!("holds run {} instead", result.id));
    }
    Stored::Done(Box::new(result))
}

/// Writes the result of a run atomically.
pub fn write_result(dir: &Path, r: &RunResult) -> Result<()> {
    let err = |e: serde_json::Error| Error::Internal(format!("result {}: {e}", r.id));
    let raw = serde_json::value::to_raw_value(r).map_err(err)?;
    let env = Envelope {
        sha256: sha256_hex(raw.get().as_bytes()),
        result: &raw,
    };
    let text = serde_json::to_string(&env).map_err(err)?;
    write_atomic(&result_path(dir, &r.id), text.as_bytes())
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so readers see the old file or the whole new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |e: std::io::Error| {
        Error::input(
            path.display().to_string(),
            0,
            "",
            format!("cannot write: {e}"),
        )
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    let tmp = path.with_extension(format!(
        "tmp.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut f = std::fs::File::create(&tmp).map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: &str) -> RunResult {
        RunResult {
            id: id.into(),
            status: Status::Failed,
            error: Some("timeout after 1 s".into()),
            wall_s: 1.25,
            metrics: None,
            mean_queue: None,
            mean_ce: Some(0.5),
        }
    }

    #[test]
    fn round_trip_and_damage_is_detected() {
        let dir = std::env::temp_dir().join(format!("schedlab-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(read_result(&dir, "a"), Stored::Missing);
        write_result(&dir, &sample("a")).unwrap();
        assert_eq!(read_result(&dir, "a"), Stored::Done(Box::new(sample("a"))));
        // Truncated (a crash in the middle of a non-atomic copy).
        let p = result_path(&dir, "a");
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, &text[..text.len() / 2]).unwrap();
        assert!(matches!(read_result(&dir, "a"), Stored::Corrupt(_)));
        // Edited value: parses, but the checksum no longer matches.
        std::fs::write(&p, text.replace("1.25", "9.25")).unwrap();
        assert!(matches!(read_result(&dir, "a"), Stored::Corrupt(m) if m.contains("checksum")));
        // Another run's file under this name.
        write_result(&dir, &sample("b")).unwrap();
        std::fs::copy(result_path(&dir, "b"), &p).unwrap();
        assert!(matches!(read_result(&dir, "a"), Stored::Corrupt(m) if m.contains("holds run b")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

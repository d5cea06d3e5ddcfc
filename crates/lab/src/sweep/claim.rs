//! Claims: how workers that share a sweep directory without `--shard`
//! split the runs instead of each doing all of them.
//!
//! Before a run, a worker creates `DIR/claims/<id>.claim` with `create_new`
//! (O_EXCL: of two workers, exactly one succeeds, on a local disk and on
//! NFSv3+). The file says who holds it: `host pid unix-seconds`. Another
//! worker leaves a claimed run alone unless the claim is stale:
//! - its holder is on this host and its process is gone (`/proc/<pid>`
//!   missing: a worker killed by SIGKILL, an OOM kill, a reboot), or
//! - it is older than the run's timeout plus [`GRACE_S`] (a worker on
//!   another host that died: a live worker gives up on a run at its
//!   timeout, so its claim is never that old).
//!
//! A stale claim is taken over by renaming it to a name private to the
//! taker (only one rename of a file succeeds), checking that the renamed
//! file is still the stale claim it judged (if a fresh claim was created in
//! between, it is put back and the run left to its holder), and then
//! claiming anew. The holder removes its claim once the result is written.
//! A claim that is never released (a worker killed after writing its
//! result) is harmless: the result is there, so nobody runs it again.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Sub-directory of the sweep directory holding the claim files.
pub const CLAIMS_DIR: &str = "claims";

/// Seconds past the run's timeout after which a claim from another host is
/// stale (time to write the result, and clock differences between hosts).
pub const GRACE_S: f64 = 600.0;

/// Who holds a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub host: String,
    pub pid: u32,
    /// Unix seconds when the claim was made.
    pub since: f64,
}

impl Holder {
    /// This process.
    pub fn me() -> Holder {
        Holder {
            host: host_name(),
            pid: std::process::id(),
            since: unix_now(),
        }
    }

    fn line(&self) -> String {
        format!("{} {} {}\n", self.host, self.pid, self.since)
    }

    fn parse(text: &str) -> Option<Holder> {
        let mut it = text.split_whitespace();
        let host = it.next()?.to_string();
        let pid = it.next()?.parse().ok()?;
        let since = it.next()?.parse().ok()?;
        Some(Holder { host, pid, since })
    }

    /// Whether the holder can no longer be working on the run.
    fn is_stale(&self, timeout_s: f64) -> bool {
        let gone = self.host == host_name() && !process_alive(self.pid);
        gone || unix_now() - self.since > timeout_s + GRACE_S
    }
}

/// The outcome of trying to claim a run.
#[derive(Debug, PartialEq)]
pub enum Claim {
    /// This worker holds the run; release it with [`release`].
    Mine,
    /// Another live worker holds it.
    Taken(Holder),
}

fn claim_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(CLAIMS_DIR).join(format!("{id}.claim"))
}

/// Claims run `id` for this process, taking over a stale claim. An I/O
/// error other than "already claimed" is returned (a directory nobody can
/// write to should stop the worker, not make it skip every run).
pub fn claim(dir: &Path, id: &str, timeout_s: f64) -> std::io::Result<Claim> {
    let path = claim_path(dir, id);
    fs::create_dir_all(path.parent().expect("claims dir"))?;
    // Two rounds: a stale claim taken over leaves the path free for one more try.
    for _ in 0..2 {
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(Holder::me().line().as_bytes())?;
                f.sync_all()?;
                return Ok(Claim::Mine);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            // Released between our create and our read: try again.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let holder = match Holder::parse(&text) {
            Some(h) => h,
            // Being written this instant (or damaged): judge it by its age.
            None => {
                let age = fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .map_or(0.0, |d| d.as_secs_f64());
                let h = Holder {
                    host: String::new(),
                    pid: 0,
                    since: unix_now() - age,
                };
                if age <= timeout_s + GRACE_S {
                    return Ok(Claim::Taken(h));
                }
                h
            }
        };
        if !holder.is_stale(timeout_s) {
            return Ok(Claim::Taken(holder));
        }
        if !take_over(&path, &text)? {
            return Ok(Claim::Taken(holder));
        }
    }
    // Someone else took it over in the meantime.
    let text = fs::read_to_string(&path).unwrap_or_default();
    Ok(Claim::Taken(Holder::parse(&text).unwrap_or(Holder {
        host: String::new(),
        pid: 0,
        since: unix_now(),
    })))
}

/// Moves the stale claim whose content is `stale` out of the way. False if
/// another worker got there first or the claim changed (it is put back).
fn take_over(path: &Path, stale: &str) -> std::io::Result<bool> {
    let private = path.with_extension(format!(
        "stale.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    match fs::rename(path, &private) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    }
    let moved = fs::read_to_string(&private).unwrap_or_default();
    if moved == stale {
        let _ = fs::remove_file(&private);
        return Ok(true);
    }
    // A fresh claim: give it back (hard_link fails if yet another claim exists).
    let _ = fs::hard_link(&private, path);
    let _ = fs::remove_file(&private);
    Ok(false)
}

/// Releases this process's claim on run `id` (after its result is written).
pub fn release(dir: &Path, id: &str) {
    let path = claim_path(dir, id);
    if let Ok(text) = fs::read_to_string(&path) {
        let me = Holder::me();
        if Holder::parse(&text).is_some_and(|h| h.host == me.host && h.pid == me.pid) {
            let _ = fs::remove_file(&path);
        }
    }
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// This machine's name (Linux), else the `HOSTNAME` variable, else "localhost".
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .filter(|s| !s.is_empty() && !s.contains(char::is_whitespace))
        .unwrap_or_else(|| "localhost".into())
}

/// Whether process `pid` exists on this machine. Without `/proc` (not
/// Linux) every process counts as alive, so only a claim's age makes it
/// stale.
fn process_alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("schedlab-claim-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn one_claim_per_run_until_released() {
        let d = tmp("once");
        assert_eq!(claim(&d, "r1", 60.0).unwrap(), Claim::Mine);
        // Our own live process holds it: a second claim is refused.
        assert!(matches!(claim(&d, "r1", 60.0).unwrap(), Claim::Taken(_)));
        release(&d, "r1");
        assert_eq!(claim(&d, "r1", 60.0).unwrap(), Claim::Mine);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn claims_of_dead_workers_and_old_claims_are_taken_over() {
        let d = tmp("stale");
        fs::create_dir_all(d.join(CLAIMS_DIR)).unwrap();
        // A pid beyond Linux's maximum (4,194,304) never exists.
        let dead = Holder {
            host: host_name(),
            pid: 4_194_305,
            since: unix_now(),
        };
        fs::write(claim_path(&d, "dead"), dead.line()).unwrap();
        assert_eq!(claim(&d, "dead", 60.0).unwrap(), Claim::Mine);
        // Another host's claim: alive until older than timeout + grace.
        let far = Holder {
            host: "elsewhere".into(),
            pid: 1,
            since: unix_now() - 100.0,
        };
        fs::write(claim_path(&d, "far"), far.line()).unwrap();
        assert!(matches!(claim(&d, "far", 60.0).unwrap(), Claim::Taken(_)));
        let old = Holder {
            since: unix_now() - 60.0 - GRACE_S - 1.0,
            ..far
        };
        fs::write(claim_path(&d, "far"), old.line()).unwrap();
        assert_eq!(claim(&d, "far", 60.0).unwrap(), Claim::Mine);
        let _ = fs::remove_dir_all(&d);
    }
}

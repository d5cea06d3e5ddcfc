//! What a timed section reports besides its wall time, so a measurement on a
//! shared machine says what it competed with: the process's CPU time and
//! the 1-minute load average (Linux's /proc; None elsewhere).

/// CPU seconds (user + system, every thread) this process has used so far.
pub fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses;
    // utime and stime are the 14th and 15th fields, in clock ticks (USER_HZ,
    // 100 on every Linux architecture schedlab builds for).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// The 1-minute load average.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A section's cost: wall seconds, CPU seconds, and the load average at its end.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Cost {
    pub wall_s: f64,
    pub cpu_s: Option<f64>,
    pub load: Option<f64>,
}

/// Times `f`, with the CPU time it used and the load at its end.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let (started, cpu0) = (std::time::Instant::now(), process_cpu_s());
    let out = f();
    let cost = Cost {
        wall_s: started.elapsed().as_secs_f64(),
        cpu_s: process_cpu_s().zip(cpu0).map(|(b, a)| b - a),
        load: load_average(),
    };
    (out, cost)
}

impl Cost {
    /// "W s wall, C CPU-s on N threads, load average L".
    pub fn describe(&self, threads: usize) -> String {
        let mut s = format!("{:.0} s wall", self.wall_s);
        if let Some(c) = self.cpu_s {
            s += &format!(", {c:.0} CPU-s");
        }
        s += &format!(" on {threads} threads");
        if let Some(l) = self.load {
            s += &format!(", load average {l:.1} at the end");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_loop_costs_cpu_time() {
        let (sum, cost) = timed(|| (0..30_000_000u64).fold(0u64, |a, x| a ^ x.wrapping_mul(31)));
        assert!(sum > 0 && cost.wall_s > 0.0);
        if let Some(c) = cost.cpu_s {
            assert!(
                (0.0..cost.wall_s + 1.0).contains(&c),
                "{c} CPU-s in {} s",
                cost.wall_s
            );
        }
        assert!(cost.describe(2).contains("s wall"));
    }
}

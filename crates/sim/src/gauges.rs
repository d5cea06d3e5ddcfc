//! Numbers a policy computed at a call that the page plots over time, next
//! to what happened (the anticipatory scheduler's predicted pool load
//! against the load that arrived): `Decision::gauge(name, key, value)`,
//! kept with the reasons (`Simulation::set_record_reasons`) and bounded.

/// Gauge readings a run keeps at most.
pub const MAX_GAUGE_READINGS: usize = 1_000_000;

/// Every reading of a run, flat: reading i is `names[name[i]]` for `key[i]`
/// (a pool, a window) at time `t[i]`.
#[derive(Debug, Clone, Default)]
pub struct GaugeLog {
    pub names: Vec<&'static str>,
    pub t: Vec<f64>,
    pub name: Vec<u16>,
    pub key: Vec<u32>,
    pub value: Vec<f64>,
}

impl GaugeLog {
    /// Keeps one call's readings (none once the bound is reached).
    pub fn keep(&mut self, t: f64, readings: Vec<(&'static str, u32, f64)>) {
        if self.t.len() + readings.len() > MAX_GAUGE_READINGS {
            return;
        }
        for (name, key, value) in readings {
            let n = match self.names.iter().position(|x| *x == name) {
                Some(i) => i,
                None => {
                    self.names.push(name);
                    self.names.len() - 1
                }
            };
            self.t.push(t);
            self.name.push(n as u16);
            self.key.push(key);
            self.value.push(value);
        }
    }

    /// The readings of one gauge and key, as (t, value), in time order.
    pub fn series(&self, name: &str, key: u32) -> Vec<(f64, f64)> {
        let Some(n) = self.names.iter().position(|x| *x == name) else {
            return Vec::new();
        };
        (0..self.t.len())
            .filter(|&i| self.name[i] as usize == n && self.key[i] == key)
            .map(|i| (self.t[i], self.value[i]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_by_name_and_key() {
        let mut g = GaugeLog::default();
        g.keep(
            0.0,
            vec![
                ("predicted", 0, 4.0),
                ("actual", 0, 2.0),
                ("predicted", 1, 8.0),
            ],
        );
        g.keep(5.0, vec![("predicted", 0, 6.0)]);
        assert_eq!(g.series("predicted", 0), vec![(0.0, 4.0), (5.0, 6.0)]);
        assert_eq!(g.series("actual", 0), vec![(0.0, 2.0)]);
        assert!(g.series("nope", 0).is_empty());
    }
}

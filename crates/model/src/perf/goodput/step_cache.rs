//! Memo of the batch optimiser's candidate plans and their step times.
//!
//! A scheduler asks a job's estimator for the goodput of every
//! configuration every round. Only the statistical gain of a candidate
//! moves from round to round (with the gradient noise); its plan and its
//! step time under θ stay until θ is refitted. Keeping them turns an
//! estimate's step time per candidate (exp, log and pow) into one lookup,
//! with the same bits as computing it afresh.

use super::batch::BatchPlan;
use std::cell::RefCell;
use std::collections::HashMap;

/// What an entry depends on: the type whose limits apply, θ's bits, nodes,
/// replicas and the batch ceiling.
pub type StepKey = (usize, [u64; 7], u32, u32, u32);

/// The batch optimiser's candidates (plan, valid) and, index for index,
/// their step times (NaN when not valid).
pub struct Steps {
    pub cands: Vec<(BatchPlan, bool)>,
    pub t_step: Vec<f64>,
}

/// Entries kept before the memo starts over (bounds memory for long jobs
/// whose θ changes often).
const MAX_ENTRIES: usize = 4096;

/// Interior-mutable memo: estimates are computed through `&self`. A clone
/// starts empty (forks recompute what they need; the results are the
/// same), and two memos always compare equal (it is not knowledge).
#[derive(Default)]
pub struct StepCache(RefCell<HashMap<StepKey, Steps>>);

impl StepCache {
    /// Applies `f` to the steps for `key`, computed by `make` on a miss.
    pub fn with<R>(
        &self,
        key: StepKey,
        make: impl FnOnce() -> Steps,
        f: impl FnOnce(&Steps) -> R,
    ) -> R {
        if let Some(hit) = self.0.borrow().get(&key) {
            return f(hit);
        }
        let steps = make();
        let out = f(&steps);
        let mut map = self.0.borrow_mut();
        if map.len() >= MAX_ENTRIES {
            map.clear();
        }
        map.insert(key, steps);
        out
    }

    /// Forgets every entry (θ changed; old keys would only hold memory).
    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

impl Clone for StepCache {
    fn clone(&self) -> Self {
        StepCache::default()
    }
}

impl PartialEq for StepCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for StepCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StepCache({} entries)", self.0.borrow().len())
    }
}

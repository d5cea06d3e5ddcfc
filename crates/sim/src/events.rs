//! The engine's event queue: a min-heap on (time, sequence) with lazy
//! deletion through per-job version stamps. The heap is shared by copies
//! (a prediction's fork) until one of them changes it: forks take only the
//! live events ([`EventQueue::retained`]), so copying the whole heap,
//! stale events included, for each of them would be wasted.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventKind {
    /// Job reaches its total work (if `version` is still current).
    Complete { job: u32, version: u32 },
    /// Job crosses a rate boundary such as an epoch end.
    RateChange { job: u32, version: u32 },
    /// A wake-up the policy asked for.
    Timer { token: u64 },
    /// CoDDL: the GPUs a job is expanding onto are ready (if `token` is
    /// still the job's current reconfiguration).
    Reconfig { job: u32, token: u32 },
    /// Measurement mode: the job's throughput on `gpus` GPUs is now known.
    Measured { job: u32, token: u32, gpus: u32 },
    /// A decision held back by the scheduler delay takes effect (if `token`
    /// is still the pending one).
    Decision { token: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: f64,
    seq: u64,
    kind: EventKind,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .total_cmp(&self.time)
            .then(other.seq.cmp(&self.seq))
    }
}

/// Min-heap of future events.
#[derive(Debug, Clone, Default)]
pub struct EventQueue {
    heap: Arc<BinaryHeap<Entry>>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: f64, kind: EventKind) {
        self.seq += 1;
        Arc::make_mut(&mut self.heap).push(Entry {
            time,
            seq: self.seq,
            kind,
        });
    }

    pub fn peek_time(&self) -> Option<f64> {
        self.heap.peek().map(|e| e.time)
    }

    /// A copy holding only the events `keep` accepts, each with its time
    /// and sequence number (so equal times keep their order), and the same
    /// numbering for later events.
    pub fn retained(&self, keep: impl Fn(&EventKind) -> bool) -> EventQueue {
        EventQueue {
            heap: Arc::new(
                self.heap
                    .iter()
                    .filter(|e| keep(&e.kind))
                    .copied()
                    .collect(),
            ),
            seq: self.seq,
        }
    }

    /// Drops events from the front while `stale` says they are.
    pub fn drop_stale_front(&mut self, stale: impl Fn(&EventKind) -> bool) {
        while self.heap.peek().is_some_and(|e| stale(&e.kind)) {
            Arc::make_mut(&mut self.heap).pop();
        }
    }

    /// Pops the earliest event if it is due at or before `t`.
    pub fn pop_due(&mut self, t: f64) -> Option<(f64, EventKind)> {
        if self.heap.peek().is_some_and(|e| e.time <= t) {
            Arc::make_mut(&mut self.heap)
                .pop()
                .map(|e| (e.time, e.kind))
        } else {
            None
        }
    }
}

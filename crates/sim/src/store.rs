//! Per-job engine state in copy-on-write chunks.
//!
//! A fork (PCS predicts every arrival's completion by one) shares every
//! chunk with its parent and copies a chunk only when it first changes one
//! of that chunk's jobs. Finished and not-yet-arrived jobs are never
//! touched by a fork, so forking costs the live jobs' chunks plus one
//! pointer per `CHUNK` jobs instead of a copy of every job.

use super::state::JobState;
use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// Jobs per chunk: small enough that a first write copies little, large
/// enough that cloning the chunk list is cheap.
const CHUNK: usize = 64;

/// Every job's [`JobState`], indexed by job id.
#[derive(Debug, Clone, Default)]
pub struct JobStore {
    chunks: Vec<Arc<Vec<JobState>>>,
    len: usize,
}

impl JobStore {
    pub fn from_vec(jobs: Vec<JobState>) -> JobStore {
        let len = jobs.len();
        let mut chunks = Vec::with_capacity(len.div_ceil(CHUNK));
        let mut rest = jobs.into_iter();
        loop {
            let chunk: Vec<JobState> = rest.by_ref().take(CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            chunks.push(Arc::new(chunk));
        }
        JobStore { chunks, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, id: usize) -> Option<&JobState> {
        (id < self.len).then(|| &self.chunks[id / CHUNK][id % CHUNK])
    }

    /// Jobs in id order.
    pub fn iter(&self) -> impl Iterator<Item = &JobState> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Chunks this store shares with another (a fork or its parent): the
    /// test of "a fork copies only what it changes".
    pub fn shared_chunks(&self, other: &JobStore) -> usize {
        self.chunks
            .iter()
            .zip(&other.chunks)
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count()
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

impl Index<usize> for JobStore {
    type Output = JobState;
    fn index(&self, id: usize) -> &JobState {
        &self.chunks[id / CHUNK][id % CHUNK]
    }
}

impl IndexMut<usize> for JobStore {
    /// Copies the job's chunk first if a fork still shares it.
    fn index_mut(&mut self, id: usize) -> &mut JobState {
        &mut Arc::make_mut(&mut self.chunks[id / CHUNK])[id % CHUNK]
    }
}

impl<'a> IntoIterator for &'a JobStore {
    type Item = &'a JobState;
    type IntoIter = Box<dyn Iterator<Item = &'a JobState> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

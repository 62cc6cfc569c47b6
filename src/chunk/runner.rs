//! A caller-provided way to run a context's parallel work (c-blosc2's
//! `blosc2_set_threads_callback`): when one is installed, contexts with several threads hand
//! their jobs to it instead of to their worker pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::{Error, Result};

/// Runs `njobs` jobs, `job(0)` .. `job(njobs - 1)`, in any order or concurrently, and returns
/// when all have run.
pub trait JobRunner: Send + Sync {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync));
}

static RUNNER: RwLock<Option<Arc<dyn JobRunner>>> = RwLock::new(None);

/// Installs (or with None removes) the process-wide job runner.
pub fn set_job_runner(runner: Option<Arc<dyn JobRunner>>) {
    *RUNNER.write().unwrap_or_else(|e| e.into_inner()) = runner;
}

/// The installed job runner.
pub fn job_runner() -> Option<Arc<dyn JobRunner>> {
    RUNNER.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Runs `f(item, worker)` for every item in `0..nitems` on `workers` jobs of `runner` (each job
/// takes items until none is left); the results in item order. Fails with `ThreadCreate` when
/// the runner did not run every job it was given.
pub fn run_items<T: Send>(
    runner: &dyn JobRunner,
    workers: usize,
    nitems: usize,
    f: impl Fn(usize, usize) -> T + Sync,
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<T>>> = (0..nitems).map(|_| Mutex::new(None)).collect();
    runner.run(workers.max(1), &|worker| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= nitems {
            break;
        }
        let r = f(i, worker);
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect::<Option<Vec<T>>>()
        .ok_or(Error::ThreadCreate)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Serial;
    impl JobRunner for Serial {
        fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
            for i in 0..njobs {
                job(i);
            }
        }
    }

    struct Lazy;
    impl JobRunner for Lazy {
        fn run(&self, _: usize, _: &(dyn Fn(usize) + Sync)) {}
    }

    #[test]
    fn items_in_order_and_missing_jobs_detected() {
        let r = run_items(&Serial, 3, 10, |i, w| (i * 2, w)).unwrap();
        assert_eq!(
            r.iter().map(|x| x.0).collect::<Vec<_>>(),
            (0..10).map(|i| i * 2).collect::<Vec<_>>()
        );
        // The first job drains all items when jobs run one after the other.
        assert!(r.iter().all(|x| x.1 == 0));
        assert_eq!(run_items(&Lazy, 2, 3, |i, _| i), Err(Error::ThreadCreate));
        assert_eq!(run_items(&Lazy, 2, 0, |i, _| i), Ok(vec![]));
    }
}

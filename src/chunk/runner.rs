//! A caller-provided way to run a context's parallel work (c-blosc2's
//! `blosc2_set_threads_callback`): when one is installed, contexts with several threads hand
//! their jobs to it instead of to their worker pool.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

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

/// The threads a context with `nthreads` > 1 runs blocks on: the calling thread plus
/// `nthreads - 1` pool threads (the caller works instead of sleeping until the pool is done, so
/// `nthreads` threads run, not `nthreads + 1` competing for the cores).
pub struct Pool {
    helpers: rayon::ThreadPool,
    nthreads: usize,
}

impl Pool {
    /// A pool for `nthreads` (> 1) threads, the caller being one of them.
    pub fn new(nthreads: usize) -> Result<Pool> {
        let helpers = rayon::ThreadPoolBuilder::new()
            .num_threads(nthreads.max(2) - 1)
            .thread_name(|i| format!("blosc2-worker-{i}"))
            .build()
            .map_err(|_| Error::ThreadCreate)?;
        Ok(Pool {
            helpers,
            nthreads: nthreads.max(2),
        })
    }

    /// The number of jobs [`run`](Self::run) runs, the caller's included.
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }

    /// Runs `job(0)` .. `job(nthreads - 1)` concurrently and returns when all have run: job 0
    /// on the calling thread, the others on the pool's threads, or all of them on the installed
    /// job runner.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        self.run_on(job_runner().as_deref(), job)
    }

    fn run_on(&self, runner: Option<&dyn JobRunner>, job: &(dyn Fn(usize) + Sync)) {
        if let Some(runner) = runner {
            runner.run(self.nthreads, job);
            return;
        }
        let running = AtomicUsize::new(self.nthreads - 1);
        self.helpers.in_place_scope(|scope| {
            for worker in 1..self.nthreads {
                let running = &running;
                scope.spawn(move |_| {
                    job(worker);
                    running.fetch_sub(1, Ordering::Release);
                });
            }
            job(0);
            // The scope's end puts the caller to sleep until the pool's jobs are done, and
            // waking it again costs more than the last block of a fast codec takes: wait for
            // them awake for a while first.
            spin_until(SPIN_BEFORE_SLEEP, || running.load(Ordering::Acquire) == 0);
        });
    }
}

/// How long the caller waits awake for the pool's threads to finish before sleeping.
const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(100);

/// Waits awake until `done()` or until `budget` has passed, before a caller that still finds
/// nothing done goes to sleep: waking a sleeping thread costs about as long as the short waits
/// between threads' blocks. It yields between looks, so that on a busy machine the thread it
/// waits for (or anyone else) gets the core rather than a spinner.
pub(crate) fn spin_until(budget: Duration, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() && start.elapsed() < budget {
        std::thread::yield_now();
    }
}

/// Runs `f(item, worker)` for every item in `0..nitems` on the workers of `pool`, each taking the
/// next item until none is left, and stops handing out items after the first error. Returns the
/// error of the lowest item that failed (every item before it has run, as in a serial loop), or
/// `ThreadCreate` when a job runner did not run every job it was given.
pub fn for_each_item(
    pool: &Pool,
    nitems: usize,
    f: impl Fn(usize, usize) -> Result<()> + Sync,
) -> Result<()> {
    for_each_item_on(pool, job_runner().as_deref(), nitems, f)
}

/// Runs `f(i, piece, worker)` for every piece of `dst` cut into `piece_len`-byte pieces (the
/// last may be shorter) on the workers of `pool`, each piece once, as [`for_each_item`] runs
/// items: the workers take the next piece until none is left, so a worker that starts late
/// (woken after the caller began) takes fewer pieces rather than holding the others up.
pub fn for_each_piece<'d>(
    pool: &Pool,
    dst: &'d mut [u8],
    piece_len: usize,
    f: impl Fn(usize, &'d mut [u8], usize) -> Result<()> + Sync,
) -> Result<()> {
    for_each_piece_on(pool, job_runner().as_deref(), dst, piece_len, f)
}

fn for_each_piece_on<'d>(
    pool: &Pool,
    runner: Option<&dyn JobRunner>,
    dst: &'d mut [u8],
    piece_len: usize,
    f: impl Fn(usize, &'d mut [u8], usize) -> Result<()> + Sync,
) -> Result<()> {
    let pieces: Vec<Mutex<Option<&'d mut [u8]>>> = dst
        .chunks_mut(piece_len.max(1))
        .map(|p| Mutex::new(Some(p)))
        .collect();
    for_each_item_on(pool, runner, pieces.len(), |i, worker| {
        let piece = pieces[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        f(i, piece.ok_or(Error::ThreadCreate)?, worker)
    })
}

fn for_each_item_on(
    pool: &Pool,
    runner: Option<&dyn JobRunner>,
    nitems: usize,
    f: impl Fn(usize, usize) -> Result<()> + Sync,
) -> Result<()> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let first_error: Mutex<Option<(usize, Error)>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    pool.run_on(runner, &|worker| {
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= nitems {
                break;
            }
            if let Err(e) = f(i, worker) {
                let mut slot = first_error.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none_or(|(j, _)| i < j) {
                    *slot = Some((i, e));
                }
                failed.store(true, Ordering::Relaxed);
            }
            done.fetch_add(1, Ordering::Relaxed);
        }
    });
    if let Some((_, e)) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    if done.into_inner() != nitems {
        return Err(Error::ThreadCreate);
    }
    Ok(())
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
    fn every_item_runs_once_and_the_lowest_error_wins() {
        let pool = Pool::new(3).unwrap();
        for runner in [None, Some(&Serial as &dyn JobRunner)] {
            let seen: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
            let workers = Mutex::new(std::collections::BTreeSet::new());
            for_each_item_on(&pool, runner, 100, |i, w| {
                seen[i].fetch_add(1, Ordering::Relaxed);
                workers.lock().unwrap().insert(w);
                Ok(())
            })
            .unwrap();
            assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
            assert!(workers.into_inner().unwrap().iter().all(|&w| w < 3));
            let r = for_each_item_on(&pool, runner, 100, |i, _| match i {
                7 => Err(Error::Data),
                5 => Err(Error::CodecParam),
                _ => Ok(()),
            });
            assert_eq!(r, Err(Error::CodecParam));
        }
        for runner in [None, Some(&Serial as &dyn JobRunner)] {
            let mut buf = vec![0u8; 1000];
            for_each_piece_on(&pool, runner, &mut buf, 64, |i, piece, _| {
                assert!(piece.len() == 64 || (i == 15 && piece.len() == 1000 - 15 * 64));
                piece.fill(i as u8 + 1);
                Ok(())
            })
            .unwrap();
            assert!(buf
                .iter()
                .enumerate()
                .all(|(k, &b)| b as usize == k / 64 + 1));
            let r = for_each_piece_on(&pool, runner, &mut buf, 64, |i, _, _| match i {
                9 => Err(Error::Data),
                3 => Err(Error::CodecParam),
                _ => Ok(()),
            });
            assert_eq!(r, Err(Error::CodecParam));
        }
        // A runner that runs no job leaves the items undone.
        assert_eq!(
            for_each_item_on(&pool, Some(&Lazy), 3, |_, _| Ok(())),
            Err(Error::ThreadCreate)
        );
        assert_eq!(
            for_each_item_on(&pool, Some(&Lazy), 0, |_, _| Ok(())),
            Ok(())
        );
    }
}

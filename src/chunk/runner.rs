//! A caller-provided way to run a context's parallel work (c-blosc2's
//! `blosc2_set_threads_callback`): when one is installed, contexts with several threads hand
//! their jobs to it instead of to their worker pool.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
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

/// The threads a context with `nthreads` > 1 runs blocks on: `nthreads` pool threads, while the
/// caller sleeps until they are done, as c-blosc2's callers do.
///
/// The pool threads sleep on a condition variable between runs, and none of them (nor the
/// caller) polls or yields the core. On a loaded machine that is what keeps a run fast: a thread
/// that sleeps between short bursts of work is put back on a core as soon as it wakes, while
/// one that keeps its core (a caller that ran a share of the blocks itself and spun until the
/// pool was done, idle pool threads calling `sched_yield`) gets only its fair share of the
/// machine, and each `sched_yield` gave the core away for another process's time slice.
/// python-blosc2's 2-thread reads were 3-10x slower than on c-blosc2 so (a 1 MiB LZ4 chunk:
/// 3-5 ms against 0.8 ms, at a load of 14 on 2 cores).
pub struct Pool {
    shared: Arc<Shared>,
    nthreads: usize,
}

/// What a pool's threads and its callers share.
struct Shared {
    state: Mutex<PoolState>,
    /// Signalled when a job is posted and when the pool shuts down.
    posted: Condvar,
    /// Signalled when a posted job has been run by as many threads as it asked for.
    idle: Condvar,
    /// A caller owns the pool (posted a job and has not collected it yet).
    busy: AtomicBool,
}

struct PoolState {
    /// The posted job, while its caller waits for it.
    job: Option<PostedJob>,
    /// The next job number to hand to a pool thread; `end`: the number of jobs.
    next: usize,
    end: usize,
    /// Pool threads inside a job.
    running: usize,
    /// Pool threads alive (a thread whose job panicked ends).
    alive: usize,
    /// A pool thread panicked in a job (the caller panics too).
    panicked: bool,
    shutdown: bool,
}

/// A caller's job, its lifetime erased: valid until its caller has seen every job number handed
/// out and no pool thread running it (see [`Pool::run_on`]).
#[derive(Clone, Copy)]
struct PostedJob(&'static (dyn Fn(usize) + Sync));

fn lock_state(shared: &Shared) -> MutexGuard<'_, PoolState> {
    shared.state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pool {
    /// A pool of `nthreads` (> 1) threads.
    pub fn new(nthreads: usize) -> Result<Pool> {
        let nthreads = nthreads.max(2);
        let shared = Arc::new(Shared {
            state: Mutex::new(PoolState {
                job: None,
                next: 0,
                end: 0,
                running: 0,
                alive: 0,
                panicked: false,
                shutdown: false,
            }),
            posted: Condvar::new(),
            idle: Condvar::new(),
            busy: AtomicBool::new(false),
        });
        let pool = Pool { shared, nthreads };
        for i in 0..nthreads {
            let shared = Arc::clone(&pool.shared);
            lock_state(&shared).alive += 1;
            let started = std::thread::Builder::new()
                .name(format!("blosc2-worker-{i}"))
                .spawn(move || pool_thread(&shared));
            if started.is_err() {
                lock_state(&pool.shared).alive -= 1;
                return Err(Error::ThreadCreate);
            }
        }
        Ok(pool)
    }

    /// The number of jobs [`run`](Self::run) runs.
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }

    /// Runs `job(0)` .. `job(nthreads - 1)` concurrently on the pool's threads (or on the
    /// installed job runner) and returns when all have run. When another caller is using the
    /// pool, they run one after the other on the calling thread.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        self.run_on(job_runner().as_deref(), job)
    }

    fn run_on(&self, runner: Option<&dyn JobRunner>, job: &(dyn Fn(usize) + Sync)) {
        if let Some(runner) = runner {
            runner.run(self.nthreads, job);
            return;
        }
        let shared = &*self.shared;
        if shared
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            (0..self.nthreads).for_each(job);
            return;
        }
        // SAFETY: only the lifetime is changed. A pool thread calls the job only between taking
        // a job number (under the lock, while the job is posted) and counting itself out of
        // `running` (under the lock); `collect` unposts the job only once every number is taken
        // and no thread is running, and this frame, which outlives `job`'s borrow, is left only
        // after it (nothing between posting and collecting can unwind).
        let erased: &'static (dyn Fn(usize) + Sync) = unsafe {
            std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(job)
        };
        let mut st = lock_state(shared);
        st.job = Some(PostedJob(erased));
        st.next = 0;
        st.end = self.nthreads;
        shared.posted.notify_all();
        let panicked = collect(shared, st);
        shared.busy.store(false, Ordering::Release);
        if panicked {
            panic!("a blosc2 worker thread panicked");
        }
    }
}

/// Sleeps until every job number of the posted job has been taken and run, runs those left when
/// no pool thread is alive any more, unposts the job and says whether a pool thread panicked.
fn collect<'a>(shared: &'a Shared, mut st: MutexGuard<'a, PoolState>) -> bool {
    loop {
        if st.next >= st.end && st.running == 0 {
            break;
        }
        if st.alive == 0 && st.next < st.end {
            let k = st.next;
            st.next += 1;
            let Some(PostedJob(job)) = st.job else { break };
            drop(st);
            job(k);
            st = lock_state(shared);
            continue;
        }
        st = shared.idle.wait(st).unwrap_or_else(|e| e.into_inner());
    }
    st.job = None;
    std::mem::take(&mut st.panicked)
}

impl Drop for Pool {
    fn drop(&mut self) {
        lock_state(&self.shared).shutdown = true;
        self.shared.posted.notify_all();
    }
}

/// A pool thread: runs the jobs posted until the pool shuts down.
fn pool_thread(shared: &Shared) {
    let mut st = lock_state(shared);
    loop {
        if st.shutdown {
            st.alive -= 1;
            return;
        }
        match st.job {
            Some(PostedJob(job)) if st.next < st.end => {
                let k = st.next;
                st.next += 1;
                st.running += 1;
                drop(st);
                let out = Finished(shared);
                job(k);
                drop(out);
                st = lock_state(shared);
            }
            _ => st = shared.posted.wait(st).unwrap_or_else(|e| e.into_inner()),
        }
    }
}

/// Counts a pool thread out of `running` when its job returns, and out of the living threads
/// too when it panics; wakes the caller when the job is done.
struct Finished<'a>(&'a Shared);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let mut st = lock_state(self.0);
        st.running -= 1;
        if std::thread::panicking() {
            st.panicked = true;
            st.alive -= 1;
        }
        if st.running == 0 && (st.next >= st.end || st.alive == 0) {
            self.0.idle.notify_all();
        }
    }
}

/// Waits awake until `done()` or until `budget` has passed, before a caller that still finds
/// nothing done goes to sleep: waking a sleeping thread costs about as long as the short waits
/// between threads' blocks. It spins without system calls: on a busy machine a
/// `sched_yield` gives the core away for a whole time slice of another process.
pub(crate) fn spin_until(budget: Duration, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        for _ in 0..64 {
            std::hint::spin_loop();
        }
        if start.elapsed() >= budget {
            return;
        }
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

    #[test]
    fn jobs_run_on_the_pool_threads_while_the_caller_sleeps() {
        let pool = Pool::new(3).unwrap();
        let caller = std::thread::current().id();
        for _ in 0..50 {
            let seen = Mutex::new(Vec::new());
            pool.run(&|k| seen.lock().unwrap().push((k, std::thread::current().id())));
            let mut seen = seen.into_inner().unwrap();
            seen.sort_by_key(|&(k, _)| k);
            assert_eq!(seen.iter().map(|&(k, _)| k).collect::<Vec<_>>(), [0, 1, 2]);
            assert!(seen.iter().all(|&(_, t)| t != caller));
        }
    }

    #[test]
    fn a_run_inside_a_job_and_concurrent_callers_do_not_wait_for_each_other() {
        let pool = Pool::new(2).unwrap();
        let inner = AtomicUsize::new(0);
        pool.run(&|_| {
            pool.run(&|_| {
                inner.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert_eq!(inner.into_inner(), 4);
        let total = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..200 {
                        for_each_item(&pool, 10, |_, _| {
                            total.fetch_add(1, Ordering::Relaxed);
                            Ok(())
                        })
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(total.into_inner(), 4 * 200 * 10);
    }

    #[test]
    fn a_panic_in_a_pool_job_reaches_the_caller_and_the_pool_goes_on() {
        let pool = Pool::new(2).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(&|k| assert!(k != 1, "job 1 fails"))
        }));
        assert!(r.is_err());
        for _ in 0..3 {
            let n = AtomicUsize::new(0);
            pool.run(&|_| {
                n.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(n.into_inner(), 2);
        }
    }
}

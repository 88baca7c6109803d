//! A small persistent thread pool for the batched step (std only): the calling thread works
//! alongside `threads - 1` workers, each taking its own range of emulators first and then helping
//! with the others' one at a time, and idle workers poll for a while before they sleep.
//!
//! Why not Rayon's `install`: a skip-1 step of 32 emulators lasts about a millisecond; with
//! `install` the calling thread sleeps on a lock while the pool runs, and the workers fall asleep
//! between steps, so each step cost about three context switches, two wake-up latencies and one
//! idle core (measured: 2-2.8 voluntary context switches per step, and near idle 32 emulators on
//! 2 threads did 26 % fewer frames per CPU second than on 1). Here Python's back-to-back steps
//! find the workers still polling, and the caller's core does its share.
//!
//! Results do not depend on the thread count: `for_each` calls the body exactly once per index, and
//! whatever the body writes per index is independent of which thread ran it.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicPtr;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle worker polls for the next job before it sleeps. Longer than the gap between two
/// steps of a Python loop (binding, observation handling, reward: ~5-100 µs), short enough that a
/// batch left alone costs nothing measurable.
const WORKER_POLL: Duration = Duration::from_micros(300);
/// Busy-wait iterations before a waiting thread starts yielding its core (so that on an
/// oversubscribed machine the thread it waits for can run).
const SPINS_BEFORE_YIELD: u32 = 256;

/// The work of one `for_each` call, on the caller's stack for the duration of the call.
struct Job<'a> {
    body: &'a (dyn Fn(usize) + Sync),
}

/// Indices are cut into one contiguous range per participant (the caller has range 0, worker k range
/// k); each participant claims its own range first, in order, then helps with the others'. So with
/// back-to-back steps each emulator mostly runs on the same core (its state stays in that core's
/// cache), and the threads still finish within one emulator of each other.
///
/// Each range's cursor packs (job number << 32 | indices of the range not yet claimed). Claiming is
/// a compare-exchange on the whole word, so a worker that wakes late can never take an index of a
/// later job while holding the earlier job's number; and the caller returns only when every claimed
/// index is finished, so after a successful claim the job (body and length) is alive.
struct Shared {
    cursors: Box<[Cursor]>,
    job: AtomicPtr<Job<'static>>,
    /// Indices of the current job.
    len: AtomicUsize,
    /// Indices of the current job finished (whether the body returned or panicked).
    finished: AtomicUsize,
    /// First panic of the current job, re-raised on the calling thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    shutdown: AtomicBool,
    /// Workers asleep (or about to be) on `wake`; the caller takes the lock only when this is non-zero.
    sleepers: AtomicUsize,
    sleep_lock: Mutex<()>,
    wake: Condvar,
}

/// One range's cursor on its own cache line (the threads claim from different ranges at once).
#[repr(align(128))]
struct Cursor(AtomicU64);

const INDEX_BITS: u32 = 32;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

fn job_number(cursor: u64) -> u64 {
    cursor >> INDEX_BITS
}

/// Range `r` of `ranges` over `0..len`.
fn range_bounds(r: usize, ranges: usize, len: usize) -> (usize, usize) {
    (r * len / ranges, (r + 1) * len / ranges)
}

impl Shared {
    /// Participant `me` claims and runs indices of job `number`, its own range first, until none
    /// is left. Returns at once if `number` is no longer the current job.
    fn work(&self, me: usize, number: u64) {
        let ranges = self.cursors.len();
        for r in (me..ranges).chain(0..me) {
            let cursor = &self.cursors[r].0;
            loop {
                let current = cursor.load(Acquire);
                let unclaimed = current & INDEX_MASK;
                if job_number(current) != number || unclaimed == 0 {
                    break;
                }
                if cursor.compare_exchange_weak(current, current - 1, Acquire, Relaxed).is_err() {
                    continue;
                }
                // SAFETY: an index of job `number` is claimed and not finished, so the caller of
                // `for_each` is still waiting: its `Job` and `len` are those of job `number`.
                let (job, len) = unsafe { (&*self.job.load(Relaxed), self.len.load(Relaxed)) };
                let index = range_bounds(r, ranges, len).1 - unclaimed as usize;
                if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (job.body)(index))) {
                    self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(payload);
                }
                self.finished.fetch_add(1, Release);
            }
        }
    }

    /// Worker thread: waits for each new job (polling, then sleeping) and helps with it, until the
    /// pool is dropped.
    fn worker_loop(&self, me: usize) {
        // Job numbers start at 1. A worker may start late: it joins the job in progress, if any (the
        // claims keep that safe), and checks `shutdown` in every wait, even after the pool is dropped.
        let mut seen = 0;
        while let Some(number) = self.wait_for_job_after(me, seen) {
            self.work(me, number);
            seen = number;
        }
    }

    /// The next job's number, or None once the pool is shutting down.
    fn wait_for_job_after(&self, me: usize, seen: u64) -> Option<u64> {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            if self.shutdown.load(Acquire) {
                return None;
            }
            let number = job_number(self.cursors[me].0.load(Acquire));
            if number != seen {
                return Some(number);
            }
            spins = spins.wrapping_add(1);
            if spins < SPINS_BEFORE_YIELD {
                std::hint::spin_loop();
            } else if !spins.is_multiple_of(64) || start.elapsed() < WORKER_POLL {
                std::thread::yield_now();
            } else {
                break;
            }
        }
        // Sleep. The caller publishes a job (or `shutdown`), then reads `sleepers`; we count
        // ourselves, then read both (all SeqCst): one of the two sees the other, and the caller
        // notifies under the lock we hold until `wait` releases it, so no wake-up is lost.
        let mut guard = self.sleep_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, SeqCst);
        let next = loop {
            if self.shutdown.load(SeqCst) {
                break None;
            }
            let number = job_number(self.cursors[me].0.load(SeqCst));
            if number != seen {
                break Some(number);
            }
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        self.sleepers.fetch_sub(1, SeqCst);
        next
    }
}

/// `threads` participants: the thread calling `for_each` plus `threads - 1` persistent workers.
pub struct StepPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Process that started the workers: in a forked child they do not exist, so `for_each` runs
    /// everything on the calling thread there instead of waiting for them forever.
    owner_pid: u32,
}

impl StepPool {
    /// `threads`: participants including the caller (0 = one per available core).
    pub fn new(threads: usize) -> Result<StepPool, String> {
        let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
        let shared = Arc::new(Shared {
            cursors: (0..threads).map(|_| Cursor(AtomicU64::new(0))).collect(),
            len: AtomicUsize::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            sleep_lock: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut pool = StepPool { shared, workers: Vec::new(), owner_pid: std::process::id() };
        for i in 1..threads {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("emurust-{i}"))
                .spawn(move || shared.worker_loop(i))
                .map_err(|e| format!("cannot start worker thread {i} of {threads}: {e}"))?;
            pool.workers.push(handle);
        }
        Ok(pool)
    }

    /// Participants, the calling thread included.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Calls `body(i)` exactly once for every `i` in `0..len`, spread over the calling thread and
    /// the workers; returns when all calls have returned. A panic in any call is re-raised here
    /// (after all calls have finished).
    pub fn for_each(&mut self, len: usize, body: &(dyn Fn(usize) + Sync)) {
        if len <= 1 || self.workers.is_empty() || std::process::id() != self.owner_pid {
            (0..len).for_each(body);
            return;
        }
        assert!(len as u64 <= INDEX_MASK, "too many items for one job");
        let shared = &*self.shared;
        let job = Job { body };
        // 1, 2, ..., 2^32 - 1, then 1 again: the number must fit the cursor's upper 32 bits and
        // never be 0, the number a worker has seen before the first job.
        let number = job_number(shared.cursors[0].0.load(Relaxed)) % INDEX_MASK + 1;
        shared.job.store((&job as *const Job<'_>).cast::<Job<'static>>().cast_mut(), Relaxed);
        shared.len.store(len, Relaxed);
        shared.finished.store(0, Relaxed);
        // Publishing the job number with each range's size releases the job, its length and the
        // reset count. Every range is published before the caller claims anything.
        let ranges = shared.cursors.len();
        for (r, cursor) in shared.cursors.iter().enumerate() {
            let (start, end) = range_bounds(r, ranges, len);
            cursor.0.store(number << INDEX_BITS | (end - start) as u64, SeqCst);
        }
        if shared.sleepers.load(SeqCst) > 0 {
            let _guard = shared.sleep_lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.wake.notify_all();
        }
        shared.work(0, number);
        // Every index is claimed; wait for the ones still running on workers.
        let mut spins = 0u32;
        while shared.finished.load(Acquire) != len {
            spins = spins.saturating_add(1);
            if spins < SPINS_BEFORE_YIELD {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        if let Some(payload) = shared.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(payload);
        }
    }
}

impl Drop for StepPool {
    fn drop(&mut self) {
        if std::process::id() != self.owner_pid {
            return; // a forked child has no workers to stop
        }
        let shared = &*self.shared;
        shared.shutdown.store(true, SeqCst);
        {
            let _guard = shared.sleep_lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.wake.notify_all();
        }
        for handle in self.workers.drain(..) {
            let _ = handle.join();
        }
    }
}

/// Hands out disjoint mutable chunks of one slice by index, for bodies run by `StepPool::for_each`
/// (which calls each index once, so no two threads ever hold the same chunk).
pub struct Chunks<'a, T> {
    ptr: *mut T,
    chunk_len: usize,
    count: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: `Chunks` only hands out disjoint `&mut` chunks (see `get`), like `chunks_mut` sent to threads.
unsafe impl<T: Send> Send for Chunks<'_, T> {}
unsafe impl<T: Send> Sync for Chunks<'_, T> {}

impl<'a, T> Chunks<'a, T> {
    /// `slice` cut into `count` chunks of `chunk_len` (`chunk_len` may be 0: empty chunks).
    pub fn new(slice: &'a mut [T], chunk_len: usize, count: usize) -> Chunks<'a, T> {
        assert_eq!(slice.len(), chunk_len * count, "slice length is not chunk_len * count");
        Chunks { ptr: slice.as_mut_ptr(), chunk_len, count, _slice: std::marker::PhantomData }
    }

    /// Chunk `i`.
    ///
    /// # Safety
    /// No two live references to the same chunk may exist: call it at most once per index while
    /// the result is alive (as a `StepPool::for_each` body called with index `i` does).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &'a mut [T] {
        assert!(i < self.count, "chunk index out of range");
        std::slice::from_raw_parts_mut(self.ptr.add(i * self.chunk_len), self.chunk_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_index_runs_exactly_once_for_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            let mut pool = StepPool::new(threads).unwrap();
            assert_eq!(pool.threads(), threads);
            for len in [0, 1, 2, 7, 64, 1000] {
                for _ in 0..20 {
                    let counts: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
                    pool.for_each(len, &|i| {
                        counts[i].fetch_add(1, Relaxed);
                    });
                    assert!(counts.iter().all(|c| c.load(Relaxed) == 1), "threads {threads} len {len}");
                }
            }
        }
    }

    #[test]
    fn a_worker_takes_from_a_busy_callers_range() {
        // The caller is stuck in its first index until another thread has run one of the caller's
        // range: the worker must finish its own range and then help with the caller's.
        let mut pool = StepPool::new(2).unwrap();
        let caller = std::thread::current().id();
        let helped = AtomicBool::new(false);
        let runs: Vec<AtomicU32> = (0..40).map(|_| AtomicU32::new(0)).collect();
        pool.for_each(40, &|i| {
            runs[i].fetch_add(1, Relaxed);
            if i < 20 && std::thread::current().id() != caller {
                helped.store(true, SeqCst);
            }
            if i == 0 {
                let start = Instant::now();
                while !helped.load(SeqCst) && start.elapsed() < Duration::from_secs(20) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        });
        assert!(helped.load(SeqCst), "the worker never took an index of the caller's range");
        assert!(runs.iter().all(|r| r.load(Relaxed) == 1));
    }

    #[test]
    fn a_pool_dropped_before_its_workers_start_stops_them() {
        for _ in 0..50 {
            drop(StepPool::new(4).unwrap());
        }
    }

    #[test]
    fn jobs_after_the_workers_sleep_still_run() {
        let mut pool = StepPool::new(2).unwrap();
        for _ in 0..5 {
            std::thread::sleep(WORKER_POLL * 4);
            let sum = AtomicUsize::new(0);
            pool.for_each(100, &|i| {
                sum.fetch_add(i, Relaxed);
            });
            assert_eq!(sum.load(Relaxed), 4950);
        }
    }

    #[test]
    fn a_panic_in_a_body_reaches_the_caller_and_the_pool_keeps_working() {
        let mut pool = StepPool::new(2).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.for_each(64, &|i| {
                if i == 40 {
                    panic!("body panicked");
                }
            })
        }));
        assert!(result.is_err());
        let count = AtomicUsize::new(0);
        pool.for_each(64, &|_| {
            count.fetch_add(1, Relaxed);
        });
        assert_eq!(count.load(Relaxed), 64);
    }

    #[test]
    fn chunks_cover_the_slice() {
        let mut data = vec![0u8; 12];
        let mut pool = StepPool::new(2).unwrap();
        {
            let chunks = Chunks::new(&mut data, 3, 4);
            // SAFETY: for_each calls each index once.
            pool.for_each(4, &|i| unsafe { chunks.get(i) }.fill(i as u8 + 1));
        }
        assert_eq!(data, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
    }
}

//! Parallel passes for a step loop: the pool's threads claim chunks of work,
//! each from its own share first, and stay awake between passes.
//!
//! A step runs one parallel pass between short sequential phases (a tenth of
//! a millisecond for 10,000 agents). Rayon's idle workers go to sleep within
//! microseconds, and waking one costs from 0.05 ms to over 2 ms on a virtual
//! machine: a helper that sleeps between passes joins each pass late, and a
//! caller that sleeps while the last chunk finishes returns late. So here the
//! caller spins until every chunk is done, and each helper, once out of
//! chunks, keeps looking for rayon work for a while ([`HOLD`]) before it may
//! sleep: the spin-then-sleep policy of OpenMP runtimes. Which thread runs a
//! chunk never changes what the chunk computes, so results do not depend on it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Agents per chunk of a parallel pass: small enough that the threads end a
/// pass together, large enough that handing out chunks costs little.
pub(super) const CHUNK: usize = 128;

/// Below this many items a pass of light work per item (a few nanoseconds)
/// costs more to hand out than it saves: it runs as one chunk, on the
/// caller. The spatial index sorts on one thread below the same count.
const LIGHT: usize = crate::world::grid::PARALLEL_KEYS;

/// Items per chunk of a pass over `n` items of light work: [`CHUNK`], or
/// all of them in one chunk below [`LIGHT`].
pub(crate) fn light_chunk(n: usize) -> usize {
    if n < LIGHT {
        n.max(1)
    } else {
        CHUNK
    }
}

/// How many parts to cut light work over `n` items into: one per thread of
/// the pool, or one below [`LIGHT`].
pub(crate) fn light_parts(n: usize) -> usize {
    if n < LIGHT {
        1
    } else {
        rayon::current_num_threads().max(1)
    }
}

/// How long a helper stays awake without work after a pass: several times
/// the sequential gap between two passes.
const HOLD: Duration = Duration::from_millis(2);

/// Runs passes on the current rayon pool. One per simulation.
#[derive(Debug)]
pub struct Workers {
    /// Counts passes started; a waiting helper stops waiting when it moves.
    epoch: Arc<AtomicU64>,
    keep_awake: bool,
    /// Wall-clock time spent in passes so far, ns.
    in_passes: AtomicU64,
}

impl Default for Workers {
    fn default() -> Self {
        Workers { epoch: Arc::default(), keep_awake: true, in_passes: AtomicU64::new(0) }
    }
}

/// Measures the time a phase spends outside parallel passes: the part that
/// more threads cannot shorten.
pub struct Sequential {
    since: Instant,
    in_passes: u64,
}

impl Sequential {
    /// The time since the measure started, less the passes run since.
    pub fn elapsed(&self, workers: &Workers) -> Duration {
        let passes = workers.in_passes.load(Ordering::Relaxed) - self.in_passes;
        self.since.elapsed().saturating_sub(Duration::from_nanos(passes))
    }
}

impl Workers {
    /// Starts measuring the sequential time of a phase that starts at `since`.
    pub fn sequential_since(&self, since: Instant) -> Sequential {
        Sequential { since, in_passes: self.in_passes.load(Ordering::Relaxed) }
    }

    /// Calls `f(k, chunk)` for every chunk, on every thread of the pool, and
    /// returns when all have returned.
    pub fn for_each<T: Send>(&self, chunks: Vec<T>, f: impl Fn(usize, T) + Sync) {
        let t0 = Instant::now();
        self.run(chunks, f);
        self.in_passes.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    fn run<T: Send>(&self, chunks: Vec<T>, f: impl Fn(usize, T) + Sync) {
        let helpers = rayon::current_num_threads().saturating_sub(1);
        if helpers == 0 || chunks.len() < 2 {
            chunks.into_iter().enumerate().for_each(|(k, c)| f(k, c));
            return;
        }
        let epoch = self.epoch.fetch_add(1, Ordering::AcqRel) + 1;
        let caller = rayon::current_thread_index();
        let n = chunks.len();
        let slots: Vec<Mutex<Option<T>>> = chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        // Thread r works through its own share of consecutive chunks first, so
        // from one pass to the next each thread mostly touches the agents it
        // touched before and finds them in its own cache; then it helps the others.
        let shares = helpers + 1;
        let ends: Vec<usize> = (1..=shares).map(|r| r * n / shares).collect();
        let next: Vec<AtomicUsize> = (0..shares).map(|r| AtomicUsize::new(r * n / shares)).collect();
        let done = AtomicUsize::new(0);
        let work = |home: usize| {
            for r in (home..shares).chain(0..home) {
                loop {
                    let k = next[r].fetch_add(1, Ordering::Relaxed);
                    if k >= ends[r] {
                        break;
                    }
                    // Counted even if `f` unwinds, so the caller's wait ends and the panic reaches it.
                    let _done = Done(&done);
                    // Each index is claimed once, so the lock is never contended and the chunk is there.
                    let chunk = slots[k].lock().ok().and_then(|mut c| c.take());
                    if let Some(chunk) = chunk {
                        f(k, chunk);
                    }
                }
            }
        };
        rayon::in_place_scope(|scope| {
            for home in 1..shares {
                scope.spawn(move |_| work(home));
            }
            work(0);
            while done.load(Ordering::Acquire) < n {
                std::hint::spin_loop();
            }
        });
        if self.keep_awake {
            self.stay_awake(epoch, caller);
        }
    }

    /// Gives every other thread of the pool a job that runs other rayon work,
    /// or spins, until the next pass starts or it has been idle for [`HOLD`]. A
    /// broadcast job sits in its own thread's queue, where no other thread can
    /// take it away.
    fn stay_awake(&self, epoch: u64, caller: Option<usize>) {
        let current = Arc::clone(&self.epoch);
        rayon::spawn_broadcast(move |ctx| {
            if Some(ctx.index()) == caller {
                return;
            }
            let mut idle_since = Instant::now();
            while current.load(Ordering::Acquire) == epoch && idle_since.elapsed() < HOLD {
                match rayon::yield_now() {
                    Some(rayon::Yield::Executed) => idle_since = Instant::now(),
                    // Lets a thread outside the pool (the trace writer) have the core.
                    _ => std::thread::yield_now(),
                }
            }
        });
    }

    /// Lets helpers sleep as soon as they are out of work, for when other
    /// simulations share the pool and need its threads.
    pub fn share_pool(&mut self) {
        self.keep_awake = false;
    }
}

struct Done<'a>(&'a AtomicUsize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Releases helpers still waiting for a next pass.
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a pool")
    }

    #[test]
    fn every_chunk_runs_once_with_its_index() {
        for threads in [1, 2, 8] {
            let workers = Workers::default();
            let mut out = vec![0u32; 1000];
            pool(threads).install(|| {
                for pass in 1..=5 {
                    let chunks: Vec<&mut [u32]> = out.chunks_mut(7).collect();
                    workers.for_each(chunks, |k, c| {
                        for (j, x) in c.iter_mut().enumerate() {
                            *x += (k * 7 + j) as u32 * pass;
                        }
                    });
                }
            });
            assert!(out.iter().enumerate().all(|(i, &x)| x == i as u32 * 15), "{threads} threads");
        }
    }

    #[test]
    fn a_panic_in_a_chunk_reaches_the_caller() {
        let workers = Workers::default();
        let caught = pool(2).install(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                workers.for_each((0..64).collect(), |k, _: usize| assert!(k != 40, "chunk 40"));
            }))
        });
        assert!(caught.is_err());
    }
}

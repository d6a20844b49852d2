//! Timing spans of a corpus run, printed to stderr when `FORGE_REPLAY_TIMINGS` is set (to see
//! where a warm run's time goes; never part of the output otherwise).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// Whether spans are printed.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FORGE_REPLAY_TIMINGS").is_some_and(|v| !v.is_empty()))
}

/// A span of wall time, printed as it ends.
pub struct Span {
    name: &'static str,
    start: Option<Instant>,
}

impl Span {
    pub fn start(name: &'static str) -> Span {
        Span {
            name,
            start: enabled().then(Instant::now),
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(t) = self.start {
            eprintln!(
                "forge-replay: timing: {}: {:.2} ms",
                self.name,
                t.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// Time summed over the workers (CPU-side wall time of a step done on every file).
#[derive(Default)]
pub struct Sum(AtomicU64);

impl Sum {
    /// Runs `f`, adding its time.
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        if !enabled() {
            return f();
        }
        let t = Instant::now();
        let v = f();
        self.0
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        v
    }

    pub fn report(&self, name: &str) {
        if enabled() {
            eprintln!(
                "forge-replay: timing: {name} (summed over workers): {:.2} ms",
                self.0.load(Ordering::Relaxed) as f64 / 1e6
            );
        }
    }
}

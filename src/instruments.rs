//! Self-instrumentation, the MySQL Performance Schema way: every stage of the pipeline is an
//! [`Instrument`] with a count and a total time, listed at `GET /api/v1/instruments`, each with
//! `enabled` and `timed` flags that `PATCH /api/v1/instruments` changes at run time.
//!
//! Stages: `receive` (recvmmsg calls; count = datagrams), `decode` (datagrams decoded into a
//! batch), `intern` and `pool` (the merger's phases; count = requests), one `report:NAME` per
//! report (its update each round: count = requests, time = the report's share of the merge, like
//! pinba_engine's `ru_utime_per_packet` per report), `sweep` (dictionary sweeps) and `query`
//! (report queries). Instruments are updated once per call or round, never per datagram, so a
//! timed instrument costs two clock reads per batch of datagrams or requests, and an untimed one
//! a relaxed atomic add; a disabled one, one relaxed load.
//!
//! The clock is `std::time::Instant` (CLOCK_MONOTONIC through the vDSO on Linux); its cost per
//! read and its resolution are measured at start-up ([`TimerInfo::measure`]) and shown with the
//! instruments, as Performance Schema shows `performance_timers`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// One instrumented stage. Aligned to a cache line: receivers and merger update different
/// instruments without sharing lines.
#[derive(Debug)]
#[repr(align(64))]
pub struct Instrument {
    name: String,
    enabled: AtomicBool,
    timed: AtomicBool,
    count: AtomicU64,
    ns: AtomicU64,
}

impl Instrument {
    /// Enabled and timed.
    pub fn new(name: impl Into<String>) -> Instrument {
        Instrument {
            name: name.into(),
            enabled: AtomicBool::new(true),
            timed: AtomicBool::new(true),
            count: AtomicU64::new(0),
            ns: AtomicU64::new(0),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts a timing: the clock when enabled and timed, else nothing (no clock read).
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        (self.enabled.load(Relaxed) && self.timed.load(Relaxed)).then(Instant::now)
    }

    /// Records `n` events (datagrams, requests) since `started` (from [`Instrument::start`]).
    #[inline]
    pub fn record(&self, started: Option<Instant>, n: u64) {
        if !self.enabled.load(Relaxed) {
            return;
        }
        self.count.fetch_add(n, Relaxed);
        if let Some(t) = started {
            self.ns.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        }
    }

    pub fn count(&self) -> u64 {
        self.count.load(Relaxed)
    }

    pub fn total_ns(&self) -> u64 {
        self.ns.load(Relaxed)
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Relaxed)
    }

    pub fn timed(&self) -> bool {
        self.timed.load(Relaxed)
    }

    /// Applies a `PATCH`: each flag that is given.
    pub fn set(&self, enabled: Option<bool>, timed: Option<bool>) {
        if let Some(e) = enabled {
            self.enabled.store(e, Relaxed);
        }
        if let Some(t) = timed {
            self.timed.store(t, Relaxed);
        }
    }

    /// Mean time per event in nanoseconds (0 before the first timed event).
    pub fn mean_ns(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.total_ns() as f64 / n as f64,
        }
    }

    /// As the API lists it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "enabled": self.enabled(),
            "timed": self.timed(),
            "count": self.count(),
            "total_ns": self.total_ns(),
            "mean_ns": self.mean_ns(),
        })
    }
}

/// The clock the instruments use, measured at start-up.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct TimerInfo {
    pub name: &'static str,
    /// Mean cost of one clock read, nanoseconds.
    pub overhead_ns: f64,
    /// Smallest non-zero step seen between two reads, nanoseconds.
    pub resolution_ns: u64,
}

impl TimerInfo {
    /// Reads the clock 20,000 times: mean cost per read and the smallest step.
    pub fn measure() -> TimerInfo {
        const N: u32 = 20_000;
        let start = Instant::now();
        let mut prev = start;
        let mut resolution = u64::MAX;
        for _ in 0..N {
            let now = Instant::now();
            let step = now.duration_since(prev).as_nanos() as u64;
            if step > 0 {
                resolution = resolution.min(step);
            }
            prev = now;
        }
        TimerInfo {
            name: "CLOCK_MONOTONIC (std::time::Instant)",
            overhead_ns: prev.duration_since(start).as_nanos() as f64 / N as f64,
            resolution_ns: if resolution == u64::MAX {
                0
            } else {
                resolution
            },
        }
    }
}

/// The pipeline's fixed instruments (reports carry their own, see `ReportCell`).
#[derive(Debug)]
pub struct Instruments {
    pub receive: Instrument,
    pub decode: Instrument,
    pub intern: Instrument,
    pub pool: Instrument,
    pub sweep: Instrument,
    pub query: Instrument,
    pub timer: TimerInfo,
}

impl Default for Instruments {
    fn default() -> Instruments {
        Instruments {
            receive: Instrument::new("receive"),
            decode: Instrument::new("decode"),
            intern: Instrument::new("intern"),
            pool: Instrument::new("pool"),
            sweep: Instrument::new("sweep"),
            query: Instrument::new("query"),
            timer: TimerInfo::measure(),
        }
    }
}

impl Instruments {
    /// The fixed instruments, in pipeline order.
    pub fn stages(&self) -> [&Instrument; 6] {
        [
            &self.receive,
            &self.decode,
            &self.intern,
            &self.pool,
            &self.sweep,
            &self.query,
        ]
    }
}

/// Whether a `PATCH` name selects an instrument: the exact name, `*` for all, or a prefix
/// ending in `*` (`report:*`).
pub fn selects(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_counts_nothing_untimed_counts_without_time() {
        let i = Instrument::new("decode");
        let t = i.start();
        assert!(t.is_some());
        i.record(t, 3);
        assert_eq!(i.count(), 3);
        i.set(None, Some(false));
        let t = i.start();
        assert!(t.is_none(), "untimed: no clock read");
        let before = i.total_ns();
        i.record(t, 2);
        assert_eq!((i.count(), i.total_ns()), (5, before));
        i.set(Some(false), None);
        i.record(i.start(), 7);
        assert_eq!(i.count(), 5);
        assert!(!i.enabled() && !i.timed());
    }

    #[test]
    fn the_clock_is_measured() {
        let t = TimerInfo::measure();
        assert!(t.overhead_ns > 0.0 && t.overhead_ns < 100_000.0, "{t:?}");
        assert!(t.resolution_ns > 0, "{t:?}");
    }

    #[test]
    fn patterns_select_by_name_or_prefix() {
        assert!(selects("decode", "decode"));
        assert!(!selects("decode", "decoder"));
        assert!(selects("report:*", "report:info"));
        assert!(!selects("report:*", "query"));
        assert!(selects("*", "query"));
    }
}

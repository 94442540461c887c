//! Self-instrumentation, the MySQL Performance Schema way: every stage of the pipeline is an
//! [`Instrument`] with a count and a total time, listed at `GET /api/v1/instruments`, each with
//! `enabled` and `timed` flags that `PATCH /api/v1/instruments` changes at run time.
//!
//! Stages: `receive` (recvmmsg calls; count = datagrams), `decode` (datagrams decoded into a
//! batch), `intern` and `pool` (the merger's phases; count = requests), one `report:NAME` per
//! report (its update each round: count = requests, time = the report's share of the merge, like
//! pinba_engine's `ru_utime_per_packet` per report), `sweep` (dictionary sweeps), `evict` (its
//! evictions while the memory budget is tight) and `query` (report queries). Instruments are
//! updated once per call or round, never per datagram, so a timed instrument costs two clock
//! reads per batch of datagrams or requests, and an untimed one a relaxed atomic add; a disabled
//! one, one relaxed load.
//!
//! The `query` instrument also keeps the distribution of its calls' times (a histogram, 1 %
//! buckets, bounded), shown as `call_ns` percentiles: a query's p99 as the server sees it,
//! without the client's own scheduling.
//!
//! The clock is `std::time::Instant` (CLOCK_MONOTONIC through the vDSO on Linux); its cost per
//! read and its resolution are measured at start-up ([`TimerInfo::measure`]) and shown with the
//! instruments, as Performance Schema shows `performance_timers`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use parking_lot::Mutex;

use crate::histogram::Histogram;

/// One instrumented stage. Aligned to a cache line: receivers and merger update different
/// instruments without sharing lines.
#[derive(Debug)]
#[repr(align(64))]
pub struct Instrument {
    name: String,
    enabled: AtomicBool,
    timed: AtomicBool,
    count: AtomicU64,
    /// Events counted with a time (`count` also holds those counted while untimed): what
    /// `mean_ns` divides by.
    timed_count: AtomicU64,
    ns: AtomicU64,
    /// Each timed call's duration, for instruments whose calls are few (queries): see
    /// [`Instrument::with_call_times`].
    calls: Option<Mutex<Histogram>>,
}

impl Instrument {
    /// Enabled and timed.
    pub fn new(name: impl Into<String>) -> Instrument {
        Instrument {
            name: name.into(),
            enabled: AtomicBool::new(true),
            timed: AtomicBool::new(true),
            count: AtomicU64::new(0),
            timed_count: AtomicU64::new(0),
            ns: AtomicU64::new(0),
            calls: None,
        }
    }

    /// Also keeps the distribution of each timed call's duration (a mutex and a histogram
    /// update per call: for instruments called at most a few thousand times a second).
    pub fn with_call_times(mut self) -> Instrument {
        self.calls = Some(Mutex::new(Histogram::new()));
        self
    }

    /// The `p`-th percentile of the timed calls' durations, in ns (`None` without call times or
    /// before the first timed call).
    pub fn call_percentile_ns(&self, p: f64) -> Option<f64> {
        self.calls.as_ref()?.lock().percentile_ns(p)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts a timing: the clock when enabled and timed, else nothing (no clock read).
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        (self.enabled.load(Relaxed) && self.timed.load(Relaxed)).then(Instant::now)
    }

    /// Records `n` events (datagrams, requests) since `started` (from [`Instrument::start`]);
    /// returns the time recorded (ns; 0 when untimed).
    #[inline]
    pub fn record(&self, started: Option<Instant>, n: u64) -> u64 {
        self.record_less(started, 0, n)
    }

    /// [`Instrument::record`] less `less_ns` of the time, already counted elsewhere (a family
    /// leader's step hands stages to members, timed on theirs).
    #[inline]
    pub fn record_less(&self, started: Option<Instant>, less_ns: u64, n: u64) -> u64 {
        if !self.enabled.load(Relaxed) {
            return 0;
        }
        self.count.fetch_add(n, Relaxed);
        let Some(t) = started else { return 0 };
        let ns = (t.elapsed().as_nanos() as u64).saturating_sub(less_ns);
        self.timed_count.fetch_add(n, Relaxed);
        self.ns.fetch_add(ns, Relaxed);
        if let Some(calls) = &self.calls {
            calls.lock().add(ns, 1);
        }
        ns
    }

    /// Counts `n` events whose time is recorded apart, later (`record(t, 0)`): a family
    /// member's requests, whose cost is its turns at the family's stage. Counted as timed while
    /// the instrument is, so that `mean_ns` is the member's time per request (with the requests
    /// counted untimed, a timed member showed `total_ns` growing and a mean of 0).
    #[inline]
    pub fn count_timed_apart(&self, n: u64) {
        if !self.enabled.load(Relaxed) {
            return;
        }
        self.count.fetch_add(n, Relaxed);
        if self.timed.load(Relaxed) {
            self.timed_count.fetch_add(n, Relaxed);
        }
    }

    pub fn count(&self) -> u64 {
        self.count.load(Relaxed)
    }

    pub fn total_ns(&self) -> u64 {
        self.ns.load(Relaxed)
    }

    /// Events counted with a time.
    pub fn timed_count(&self) -> u64 {
        self.timed_count.load(Relaxed)
    }

    /// Its figures now, to compare with a later reading ([`Reading::cost_since`]).
    pub fn reading(&self) -> Reading {
        Reading {
            ns: self.total_ns(),
            count: self.count(),
            timed_count: self.timed_count(),
        }
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

    /// Mean time per timed event in nanoseconds (0 before the first timed event). Events counted
    /// while untimed are left out: they added no time, and counting them would drag the mean
    /// down for as long as timing stays off.
    pub fn mean_ns(&self) -> f64 {
        match self.timed_count() {
            0 => 0.0,
            n => self.total_ns() as f64 / n as f64,
        }
    }

    /// As the API lists it; with call times, `call_ns`: the calls' p50, p90, p99 and p99.9
    /// (null before the first timed call).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "name": self.name,
            "enabled": self.enabled(),
            "timed": self.timed(),
            "count": self.count(),
            "timed_count": self.timed_count(),
            "total_ns": self.total_ns(),
            "mean_ns": self.mean_ns(),
        });
        if self.calls.is_some() {
            let p = |q| self.call_percentile_ns(q).map(|ns| ns.round() as u64);
            v["call_ns"] = serde_json::json!({
                "p50": p(50.0), "p90": p(90.0), "p99": p(99.0), "p99.9": p(99.9),
            });
        }
        v
    }
}

/// An instrument's figures at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub ns: u64,
    pub count: u64,
    pub timed_count: u64,
}

impl Reading {
    /// The time spent between `before` and this reading, the events counted untimed meanwhile
    /// priced at `mean_ns` (the timed events' mean): what the merge threads' balancing compares,
    /// so that a report whose timing was switched off (`PATCH … {"timed": false}`) keeps its
    /// weight instead of looking free (0 ns) and piling onto one thread with the heavy reports.
    /// Only the events between the readings are priced: a mean that moves does not reprice the
    /// events counted untimed before.
    pub fn cost_since(&self, before: &Reading, mean_ns: f64) -> u64 {
        let counted = self.count.saturating_sub(before.count);
        let timed = self.timed_count.saturating_sub(before.timed_count);
        let untimed = counted.saturating_sub(timed);
        self.ns
            .saturating_sub(before.ns)
            .saturating_add((untimed as f64 * mean_ns) as u64)
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
    /// The dictionary's evictions while the memory budget is tight (one event per pass: the
    /// walk of every report's rows and the pass over the entries).
    pub evict: Instrument,
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
            evict: Instrument::new("evict"),
            query: Instrument::new("query").with_call_times(),
            timer: TimerInfo::measure(),
        }
    }
}

impl Instruments {
    /// The fixed instruments, in pipeline order.
    pub fn stages(&self) -> [&Instrument; 7] {
        [
            &self.receive,
            &self.decode,
            &self.intern,
            &self.pool,
            &self.sweep,
            &self.evict,
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
        let (before, mean) = (i.reading(), i.mean_ns());
        i.record(t, 2);
        assert_eq!(
            (i.count(), i.timed_count(), i.total_ns()),
            (5, 3, before.ns)
        );
        assert_eq!(i.mean_ns(), mean, "the untimed events leave the mean alone");
        assert_eq!(
            i.reading().cost_since(&before, mean),
            (2.0 * mean) as u64,
            "the untimed events priced at the timed mean"
        );
        // Timed again: only the events between two readings count, the time measured as is.
        i.set(None, Some(true));
        let before = i.reading();
        i.record(
            Instant::now().checked_sub(std::time::Duration::from_millis(1)),
            4,
        );
        let cost = i.reading().cost_since(&before, 1e9);
        assert!((1_000_000..1_000_000_000).contains(&cost), "{cost}");
        i.set(Some(false), None);
        i.record(i.start(), 7);
        assert_eq!(i.count(), 9, "disabled: nothing counted");
        assert!(!i.enabled() && i.timed());
    }

    #[test]
    fn call_times_give_percentiles_of_timed_calls_only() {
        let i = Instrument::new("query").with_call_times();
        assert_eq!(i.call_percentile_ns(50.0), None);
        assert_eq!(i.to_json()["call_ns"]["p99"], serde_json::Value::Null);
        // Calls timed from instants 1 ms and 50 ms in the past: at least that long each.
        let now = Instant::now();
        for back_ms in [1, 1, 1, 50] {
            i.record(
                now.checked_sub(std::time::Duration::from_millis(back_ms)),
                1,
            );
        }
        let (p50, p99) = (
            i.call_percentile_ns(50.0).unwrap(),
            i.call_percentile_ns(99.0).unwrap(),
        );
        assert!((1e6..50e6).contains(&p50), "{p50}");
        assert!(p99 >= 49.5e6, "{p99}");
        assert_eq!(
            i.to_json()["call_ns"]["p99"].as_u64(),
            Some(p99.round() as u64)
        );
        // Untimed calls count but add no duration.
        i.set(None, Some(false));
        i.record(i.start(), 1);
        assert_eq!(i.count(), 5);
        assert!(
            i.call_percentile_ns(0.0).unwrap() >= 0.99e6,
            "no 0 ns call added"
        );
        assert!(Instrument::new("decode").to_json().get("call_ns").is_none());
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

//! Integer sums: what a row (or a report's totals) adds up, and what one request or one timer
//! adds to it.
//!
//! In: a request's record or a timer, converted once per merge round ([`Contribution`],
//! [`TimerContribution`], see `batch`). Out: [`Sums`], added and subtracted exactly: every time
//! is integer nanoseconds ([`ns`]) and every time or byte sum is 96 bits wide ([`Sum96`]), so a
//! tick leaving the window takes out exactly what it put in. Pure arithmetic: no allocation, no
//! state.

use crate::histogram::bucket_of;
use crate::record::{Record, Timer};

/// Seconds as received (f32) → integer nanoseconds, rounded half away from zero. add and subtract
/// both use this, so sums are exact. Negative and NaN become 0 (the decoder already refuses them).
///
/// Exactly `(x * 1e9).round() as u64`, without `f64::round`: unless the target has SSE4.1 that is
/// a libm call, several per request. `x - trunc(x)` is exact in f64 (for x ≥ 1 by
/// Sterbenz's lemma, for x < 1 trivially), so comparing it with 0.5 rounds exactly like `round`;
/// the `as` casts saturate (negative, NaN → 0; huge → `u64::MAX`) like `round() as u64` does.
#[inline]
pub(crate) fn ns(seconds: f32) -> u64 {
    let x = seconds as f64 * 1e9;
    let t = x as u64;
    t.saturating_add((x - t as f64 >= 0.5) as u64)
}

/// Integer sums of one row (or of the totals). Request reports use `req_count`, `time_ns`
/// (request_time), `ru_*`, `traffic_bytes`, `memory_footprint_bytes`, `memory_peak_bytes` and
/// `memory_peak_max`; timer reports use `req_count`, `hit_count`, `time_ns` (timer value) and
/// `ru_*`.
///
/// Times and bytes are summed in 96 bits ([`Sum96`]); the counts stay 64-bit (one per request,
/// or per hit of a `u32` hit count). `memory_peak_max` is the one field that is not a sum: the
/// largest `memory_peak` of the requests counted. [`Sums::add`] takes the larger;
/// [`Sums::subtract`] cannot take a request's peak out of it and leaves it: the window's closed
/// part recomputes it from its per-tick maxima when a tick leaves (see `window`).
///
/// Public for the history store, which keeps them per step (see `history`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub req_count: u64,
    pub hit_count: u64,
    pub time_ns: Sum96,
    pub ru_utime_ns: Sum96,
    pub ru_stime_ns: Sum96,
    pub traffic_bytes: Sum96,
    pub memory_footprint_bytes: Sum96,
    pub memory_peak_bytes: Sum96,
    pub memory_peak_max: u32,
}

const _: () = assert!(std::mem::size_of::<Sums>() == 96);

/// A time (ns) or byte sum of a row: 96 bits, in 12 bytes aligned to 4.
///
/// In 64 bits, nanoseconds hold 584 years in all, which a 30-day window's totals reach at ~7,100
/// request-seconds a second (35k requests/s at 200 ms), and 19 requests at the decoder's bound
/// ([`crate::decode::MAX_SECONDS`]) in one row; a `memory_footprint` sum gets there at 24 MB a
/// request at 300k/s. A wrapped sum stays consistent (a tick leaves `agg` by subtracting what it
/// added) and is wrong on every read. 96 bits hold 2.5 million years of request time: 79 billion
/// requests at the decoder's bound in one row of one window (past that it wraps, never panics).
/// Not a `u128`: 16 bytes aligned to 16 would make a row 160 bytes instead of 136 and a table
/// entry 176 instead of 152, for no faster update.
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
pub struct Sum96 {
    lo: u64,
    hi: u32,
}

impl Sum96 {
    pub const MAX: Sum96 = Sum96 {
        lo: u64::MAX,
        hi: u32::MAX,
    };

    #[inline(always)]
    pub fn get(self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }

    /// `v`, or [`Sum96::MAX`] when it does not fit.
    pub fn saturating_from(v: u128) -> Sum96 {
        if v > Sum96::MAX.get() {
            return Sum96::MAX;
        }
        Sum96 {
            lo: v as u64,
            hi: (v >> 64) as u32,
        }
    }

    #[inline(always)]
    fn add_u64(&mut self, v: u64) {
        let (lo, carry) = self.lo.overflowing_add(v);
        self.lo = lo;
        self.hi = self.hi.wrapping_add(carry as u32);
    }

    #[inline(always)]
    pub(super) fn add(&mut self, o: Sum96) {
        let (lo, carry) = self.lo.overflowing_add(o.lo);
        self.lo = lo;
        self.hi = self.hi.wrapping_add(o.hi).wrapping_add(carry as u32);
    }

    #[inline(always)]
    fn sub(&mut self, o: Sum96) {
        let (lo, borrow) = self.lo.overflowing_sub(o.lo);
        self.lo = lo;
        self.hi = self.hi.wrapping_sub(o.hi).wrapping_sub(borrow as u32);
    }

    /// `self + o`, stopping at [`Sum96::MAX`].
    pub fn saturating_add(self, o: Sum96) -> Sum96 {
        Sum96::saturating_from(self.get() + o.get())
    }
}

impl From<u64> for Sum96 {
    fn from(v: u64) -> Sum96 {
        Sum96 { lo: v, hi: 0 }
    }
}

impl PartialEq for Sum96 {
    fn eq(&self, o: &Sum96) -> bool {
        self.get() == o.get()
    }
}

impl Eq for Sum96 {}

impl PartialOrd for Sum96 {
    fn partial_cmp(&self, o: &Sum96) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Sum96 {
    fn cmp(&self, o: &Sum96) -> std::cmp::Ordering {
        self.get().cmp(&o.get())
    }
}

impl std::fmt::Debug for Sum96 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}

impl Sums {
    #[inline]
    pub fn add(&mut self, o: &Sums) {
        self.req_count += o.req_count;
        self.hit_count += o.hit_count;
        self.time_ns.add(o.time_ns);
        self.ru_utime_ns.add(o.ru_utime_ns);
        self.ru_stime_ns.add(o.ru_stime_ns);
        self.traffic_bytes.add(o.traffic_bytes);
        self.memory_footprint_bytes.add(o.memory_footprint_bytes);
        self.memory_peak_bytes.add(o.memory_peak_bytes);
        self.memory_peak_max = self.memory_peak_max.max(o.memory_peak_max);
    }

    /// Whether [`Sums::subtract`] of `o` leaves no field below zero.
    pub(super) fn covers(&self, o: &Sums) -> bool {
        self.req_count >= o.req_count
            && self.hit_count >= o.hit_count
            && self.time_ns >= o.time_ns
            && self.ru_utime_ns >= o.ru_utime_ns
            && self.ru_stime_ns >= o.ru_stime_ns
            && self.traffic_bytes >= o.traffic_bytes
            && self.memory_footprint_bytes >= o.memory_footprint_bytes
            && self.memory_peak_bytes >= o.memory_peak_bytes
    }

    #[inline]
    pub(super) fn subtract(&mut self, o: &Sums) {
        self.req_count -= o.req_count;
        self.hit_count -= o.hit_count;
        self.time_ns.sub(o.time_ns);
        self.ru_utime_ns.sub(o.ru_utime_ns);
        self.ru_stime_ns.sub(o.ru_stime_ns);
        self.traffic_bytes.sub(o.traffic_bytes);
        self.memory_footprint_bytes.sub(o.memory_footprint_bytes);
        self.memory_peak_bytes.sub(o.memory_peak_bytes);
    }
}

/// What one request adds to a request report's row (besides its count of 1): each value fits
/// 64 bits (see [`ns`]), and the batch's contributions stay half the size of [`Sums`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Contribution {
    time_ns: u64,
    ru_utime_ns: u64,
    ru_stime_ns: u64,
    traffic_bytes: u32,
    memory_footprint_bytes: u32,
    memory_peak_bytes: u32,
    /// Histogram bucket of the sample.
    bucket: u16,
}

const _: () = assert!(std::mem::size_of::<Contribution>() == 40);

impl Contribution {
    #[inline]
    pub(super) fn of_request(r: &Record) -> Contribution {
        let time_ns = ns(r.request_time);
        Contribution {
            time_ns,
            ru_utime_ns: ns(r.ru_utime),
            ru_stime_ns: ns(r.ru_stime),
            traffic_bytes: r.document_size,
            memory_footprint_bytes: r.memory_footprint,
            memory_peak_bytes: r.memory_peak,
            bucket: bucket_of(time_ns),
        }
    }
}

/// What one timer adds to a timer report's row: only the sums a timer has (its request is
/// counted once per row, separately). 32 bytes, where a [`Contribution`] is 40: a table-order
/// update reads a round's timers' contributions in row order, not in batch order.
#[derive(Clone, Copy, Debug)]
pub(super) struct TimerContribution {
    time_ns: u64,
    ru_utime_ns: u64,
    ru_stime_ns: u64,
    hit_count: u32,
    /// Histogram bucket of its per-hit value (`hit_count` samples).
    bucket: u16,
}

const _: () = assert!(std::mem::size_of::<TimerContribution>() == 32);

impl TimerContribution {
    #[inline]
    pub(super) fn of(t: &Timer) -> TimerContribution {
        let time_ns = ns(t.value);
        let hits = t.hit_count as u64;
        let per_hit = time_ns
            .saturating_add(hits / 2)
            .checked_div(hits)
            .unwrap_or(0);
        TimerContribution {
            time_ns,
            ru_utime_ns: ns(t.ru_utime),
            ru_stime_ns: ns(t.ru_stime),
            hit_count: t.hit_count,
            bucket: bucket_of(per_hit),
        }
    }

    /// The same contribution with its whole value as the sample (`hit_count` of them):
    /// pinba_engine's timer histogram ([`Compat::PinbaEngine`](super::Compat::PinbaEngine)).
    pub(super) fn whole_value(&self) -> TimerContribution {
        TimerContribution {
            bucket: bucket_of(self.time_ns),
            ..*self
        }
    }
}

/// A request's or a timer's contribution, as a row counts it: its sums, and its histogram
/// bucket with the number of samples in it.
pub(super) trait Counted {
    fn add_to(&self, sums: &mut Sums);
    fn sample(&self) -> (u16, u64);
}

impl Counted for Contribution {
    #[inline(always)]
    fn add_to(&self, sums: &mut Sums) {
        sums.req_count += 1;
        sums.time_ns.add_u64(self.time_ns);
        sums.ru_utime_ns.add_u64(self.ru_utime_ns);
        sums.ru_stime_ns.add_u64(self.ru_stime_ns);
        sums.traffic_bytes.add_u64(self.traffic_bytes as u64);
        sums.memory_footprint_bytes
            .add_u64(self.memory_footprint_bytes as u64);
        sums.memory_peak_bytes
            .add_u64(self.memory_peak_bytes as u64);
        sums.memory_peak_max = sums.memory_peak_max.max(self.memory_peak_bytes);
    }
    #[inline(always)]
    fn sample(&self) -> (u16, u64) {
        (self.bucket, 1)
    }
}

impl Counted for TimerContribution {
    #[inline(always)]
    fn add_to(&self, sums: &mut Sums) {
        sums.hit_count += self.hit_count as u64;
        sums.time_ns.add_u64(self.time_ns);
        sums.ru_utime_ns.add_u64(self.ru_utime_ns);
        sums.ru_stime_ns.add_u64(self.ru_stime_ns);
    }
    #[inline(always)]
    fn sample(&self) -> (u16, u64) {
        (self.bucket, self.hit_count as u64)
    }
}

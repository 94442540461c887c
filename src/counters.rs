//! Self-instrumentation: every place where data can be lost or rejected has a named counter here.
//!
//! Two layers, so that the per-packet path never touches a shared cache line:
//! - [`DecodeStats`]: plain integers owned by one receiver thread, filled by the decoder;
//! - [`Counters`]: the process-wide atomics, one instance per running app (no globals, so every
//!   test app has its own). Receivers fold their `DecodeStats` in once per receive batch; the
//!   merger and the API update the rest. `/api/v1/status` reads them.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Why a request (or a whole datagram) was rejected. The names are the keys of
/// `rejected_by_reason` in `/api/v1/status`, and the `rejected` lists of the decoder fixtures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reject {
    /// Not a well-formed protobuf message: truncated, bad wire type for a known field, varint > 10 B.
    Malformed,
    /// One of the required fields 1–9 is missing (strict mode).
    MissingRequired,
    /// Fields 10, 11, 12 have different lengths.
    TimerArrayMismatch,
    /// Σ timer_tag_count ≠ len(13) or ≠ len(14).
    TimerTagMismatch,
    /// len(20) ≠ len(21).
    RequestTagMismatch,
    /// A tag name or value index outside the request's dictionary.
    BadDictionaryIndex,
    /// NaN or ±Inf in a time.
    NonFinite,
    /// A time beyond `decode::MAX_SECONDS` (a client's garbage: it would overflow the sums).
    TimeOutOfRange,
    /// The source address is outside `udp.allow` (whole datagram).
    SourceNotAllowed,
    /// The datagram filled the whole receive buffer, so it may have been cut (whole datagram).
    Truncated,
}

impl Reject {
    pub const ALL: [Reject; 10] = [
        Reject::Malformed,
        Reject::MissingRequired,
        Reject::TimerArrayMismatch,
        Reject::TimerTagMismatch,
        Reject::RequestTagMismatch,
        Reject::BadDictionaryIndex,
        Reject::NonFinite,
        Reject::TimeOutOfRange,
        Reject::SourceNotAllowed,
        Reject::Truncated,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reject::Malformed => "malformed",
            Reject::MissingRequired => "missing_required",
            Reject::TimerArrayMismatch => "timer_array_mismatch",
            Reject::TimerTagMismatch => "timer_tag_mismatch",
            Reject::RequestTagMismatch => "request_tag_mismatch",
            Reject::BadDictionaryIndex => "bad_dictionary_index",
            Reject::NonFinite => "non_finite",
            Reject::TimeOutOfRange => "time_out_of_range",
            Reject::SourceNotAllowed => "source_not_allowed",
            Reject::Truncated => "truncated",
        }
    }

    fn index(self) -> usize {
        Reject::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }
}

/// What one receiver thread's decoder saw since its last flush. Plain integers: owned by one thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Datagrams read from the socket (folded into `packets_received`).
    pub packets_received: u64,
    /// Their bytes (folded into `bytes_received`).
    pub bytes_received: u64,
    /// Datagrams handed to the decoder.
    pub packets: u64,
    /// Datagrams that parsed as a protobuf message (whatever became of their requests).
    pub packets_decoded: u64,
    /// Logical requests accepted (a nested batch counts each accepted request).
    pub requests_accepted: u64,
    /// Rejections by reason, indexed like [`Reject::ALL`].
    pub rejected: [u64; 10],
    /// Timers with hit_count 0, skipped.
    pub timers_skipped: u64,
    /// Timers beyond `limits.max_timers_per_request`, dropped.
    pub timers_dropped: u64,
    /// Timer tags beyond `limits.max_tags_per_timer`, dropped.
    pub timer_tags_dropped: u64,
    /// Request tags beyond `limits.max_tags_per_request`, dropped.
    pub request_tags_dropped: u64,
    /// Strings cut to `limits.max_string_bytes`.
    pub strings_truncated: u64,
    /// Nested requests below the first level (grandchildren), counted and ignored.
    pub nested_ignored: u64,
    /// Datagrams decoded through the v1 header (LZ4 or plain).
    pub v1_decoded: u64,
    /// Datagrams that looked like v1 but decoded as v0 after the v1 path failed.
    pub v1_fallback: u64,
}

impl DecodeStats {
    pub fn reject(&mut self, reason: Reject) {
        self.rejected[reason.index()] += 1;
    }

    pub fn rejected(&self, reason: Reject) -> u64 {
        self.rejected[reason.index()]
    }

    pub fn rejected_total(&self) -> u64 {
        self.rejected.iter().sum()
    }
}

/// The SQL front end's figures (see [`Counters::sql`]).
#[derive(Debug, Default)]
pub struct SqlCounters {
    pub sessions: AtomicU64,
    pub current_sessions: AtomicU64,
    /// The most sessions open at once (MySQL's `Max_used_connections`).
    pub peak_sessions: AtomicU64,
    pub sessions_refused: AtomicU64,
    /// Connections refused before their handshake: their address guesses passwords (1129).
    pub hosts_blocked: AtomicU64,
    /// Logins refused without their password checked: another of their address was being
    /// checked, or the answer to its last failure was not out yet.
    pub auth_unchecked: AtomicU64,
    pub auth_failed: AtomicU64,
    pub statements: AtomicU64,
    pub errors: AtomicU64,
    pub killed: AtomicU64,
    pub busy: AtomicU64,
    /// Statements waiting for a query slot now, at most `mysql.max_queued_queries`.
    pub queued: AtomicU64,
    pub rows_sent: AtomicU64,
    /// Statements stopped for SQL's memory cap (`mysql.max_memory`).
    pub out_of_memory: AtomicU64,
}

/// Process-wide counters, shared by `Arc` between receivers (fold in `DecodeStats`), the merger
/// (pool and dictionary figures) and the API (reads). Relaxed atomics: each is an independent
/// statistic; nobody synchronises on them.
#[derive(Debug, Default)]
pub struct Counters {
    pub packets_received: AtomicU64,
    pub bytes_received: AtomicU64,
    pub packets_decoded: AtomicU64,
    /// Requests decoded and kept; a datagram queued undecoded ([`crate::record::Batch::raw`])
    /// counts as one until the merger decodes it.
    pub requests_accepted: AtomicU64,
    pub rejected: [AtomicU64; 10],
    pub timers_skipped: AtomicU64,
    pub timers_dropped: AtomicU64,
    pub timer_tags_dropped: AtomicU64,
    pub request_tags_dropped: AtomicU64,
    pub strings_truncated: AtomicU64,
    pub nested_ignored: AtomicU64,
    pub v1_decoded: AtomicU64,
    pub v1_fallback: AtomicU64,
    /// Requests dropped because the temp ring was full when a receiver pushed a batch.
    pub temp_pool_dropped: AtomicU64,
    /// Requests the merger took from the temp ring, stored in the pool and applied to every
    /// report (counted once the last merge thread applied the round). Once traffic stops,
    /// `requests_accepted == requests_merged + temp_pool_dropped`.
    pub requests_merged: AtomicU64,
    /// Requests evicted from the pool before they expired, to make room.
    pub pool_overwritten: AtomicU64,
    /// Requests that left the pool by age.
    pub pool_expired: AtomicU64,
    /// Timers cut because one request had more than the whole timer ring can hold.
    pub timers_lost: AtomicU64,
    /// HTTP connections closed at once: `http.max_connections` were open and busy with requests
    /// (and the health connections too).
    pub http_connections_refused: AtomicU64,
    /// HTTP connections closed at once because their client held
    /// `http.max_connections_per_client`, all busy with requests.
    pub http_connections_refused_per_client: AtomicU64,
    /// HTTP connections closed to make room for a new one: those that had waited longest for a
    /// request (slow, silent or idle) when a cap was reached.
    pub http_connections_evicted: AtomicU64,
    /// Heavy API requests answered 503 because `http.max_concurrent_queries` were running.
    pub http_queries_refused: AtomicU64,
    /// API requests refused with 401 (missing or wrong bearer token).
    pub http_unauthorized: AtomicU64,
    /// The SQL front end (`sql`): sessions opened, open now, and refused (`mysql.max_connections`
    /// open, or a wrong password); statements run, answered with an error, stopped at
    /// `mysql.max_query_time`, and refused because every query slot was taken; rows sent.
    pub sql: SqlCounters,
    /// Pool and dictionary figures, published by the merger every round.
    pub gauges: Gauges,
    /// Per-stage counts and times (see `instruments`).
    pub instruments: crate::instruments::Instruments,
    /// Report series exported on `/metrics` now, and those not created for want of room
    /// (`limits.max_metric_series`), published by the metrics thread.
    pub metric_series: AtomicU64,
    pub metric_series_lost: AtomicU64,
    /// Report rows counted in `(other)` series over the last rank period (`metrics.max_report_rows`),
    /// and the contributions counted there since start, published by the metrics thread.
    pub metric_rows_folded: AtomicU64,
    pub metric_requests_folded: AtomicU64,
    /// Merge rounds the metrics thread could not take (queue full, or too far behind), and
    /// their requests, which the report series do not count.
    pub metric_rounds_dropped: AtomicU64,
    pub metric_requests_dropped: AtomicU64,
    /// Last and worst merge round, microseconds.
    pub merge_last_us: AtomicU64,
    pub merge_max_us: AtomicU64,
    /// Time the merger waited for a merge thread's queue to have room, microseconds: the merge
    /// threads behind it. It holds the temp ring's batches meanwhile; where the ring then drops
    /// requests while no merge thread uses a whole core, the threads wait on one another.
    pub merge_waited_us: AtomicU64,
    /// Time the merge shards waited for their turn to hand a round on, microseconds: another
    /// shard's hand-off before theirs (its admissions into the merge threads' queues, merge
    /// thread 0's reports). 0 with one shard.
    pub merge_turn_waited_us: AtomicU64,
}

/// Figures that live behind the pool's and the dictionary's locks, copied out by the merger after
/// every round (the only writer), so that `/api/v1/status` and `/healthz` never wait on a lock:
/// a status read during a long scan or a slow round answers at once, with figures at most one
/// round old.
#[derive(Debug, Default)]
pub struct Gauges {
    /// Set once at start-up (the rings never change size).
    pub pool_capacity: AtomicU64,
    pub timer_pool_capacity: AtomicU64,
    pub tag_pool_capacity: AtomicU64,
    pub pool_memory_bytes: AtomicU64,
    pub pool_used: AtomicU64,
    pub timer_pool_used: AtomicU64,
    pub tag_pool_used: AtomicU64,
    /// Pool time (ms since start) of the oldest pooled request; `u64::MAX` when the pool is empty.
    pub pool_oldest_ms: AtomicU64,
    pub dictionary_size: AtomicU64,
    pub dictionary_bytes: AtomicU64,
    pub dictionary_lost: AtomicU64,
}

impl Counters {
    /// Folds one receiver's stats in and resets them.
    pub fn absorb(&self, stats: &mut DecodeStats) {
        self.packets_received
            .fetch_add(stats.packets_received, Relaxed);
        self.bytes_received.fetch_add(stats.bytes_received, Relaxed);
        self.packets_decoded
            .fetch_add(stats.packets_decoded, Relaxed);
        self.requests_accepted
            .fetch_add(stats.requests_accepted, Relaxed);
        for (shared, local) in self.rejected.iter().zip(stats.rejected.iter()) {
            if *local != 0 {
                shared.fetch_add(*local, Relaxed);
            }
        }
        self.timers_skipped.fetch_add(stats.timers_skipped, Relaxed);
        self.timers_dropped.fetch_add(stats.timers_dropped, Relaxed);
        self.timer_tags_dropped
            .fetch_add(stats.timer_tags_dropped, Relaxed);
        self.request_tags_dropped
            .fetch_add(stats.request_tags_dropped, Relaxed);
        self.strings_truncated
            .fetch_add(stats.strings_truncated, Relaxed);
        self.nested_ignored.fetch_add(stats.nested_ignored, Relaxed);
        self.v1_decoded.fetch_add(stats.v1_decoded, Relaxed);
        self.v1_fallback.fetch_add(stats.v1_fallback, Relaxed);
        *stats = DecodeStats::default();
    }

    pub fn rejected(&self, reason: Reject) -> u64 {
        self.rejected[reason.index()].load(Relaxed)
    }

    pub fn rejected_total(&self) -> u64 {
        self.rejected.iter().map(|c| c.load(Relaxed)).sum()
    }

    pub fn add_rejected(&self, reason: Reject, n: u64) {
        self.rejected[reason.index()].fetch_add(n, Relaxed);
    }

    pub fn record_merge(&self, micros: u64) {
        self.merge_last_us.store(micros, Relaxed);
        self.merge_max_us.fetch_max(micros, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorb_moves_and_resets() {
        let c = Counters::default();
        let mut s = DecodeStats {
            requests_accepted: 3,
            ..Default::default()
        };
        s.reject(Reject::NonFinite);
        s.reject(Reject::NonFinite);
        c.absorb(&mut s);
        assert_eq!(c.requests_accepted.load(Relaxed), 3);
        assert_eq!(c.rejected(Reject::NonFinite), 2);
        assert_eq!(c.rejected_total(), 2);
        assert_eq!(s, DecodeStats::default());
    }

    #[test]
    fn reject_names_are_unique() {
        let mut names: Vec<_> = Reject::ALL.iter().map(|r| r.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Reject::ALL.len());
    }
}

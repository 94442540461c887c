//! The exported reports' series: rows keyed by their key ids, counters since each row's series
//! were created, the series bound, idle removal, label pins, and the report series' encoding.
//! Pure: time is an argument and the dictionary is passed in (the metrics thread drives it).
//!
//! Per report, at most `metrics.max_report_rows` rows have series of their own. The rest count
//! in `(other)` rows, one per status value left (every other key reads `(other)`), so that a
//! sum over a report's series, also by status, counts every request. Which rows keep their own
//! is ranked every [`RANK_EVERY_MS`] of merge time by their recent requests (halved each rank),
//! errors first (status >= 500) in a report keyed by status, so that an alert on error pages
//! sees the pages with the most errors: a folded row that counts more than twice the weakest
//! shown row's takes its place. The row it replaces loses its series (as an idle row does),
//! the one admitted starts from 0 at its next request: counters never decrease, so `rate()`
//! and `increase()` summed over the series stay exact; what a row counted in `(other)` stays there.

use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabel, EncodeLabelSet, EncodeMetric, LabelSetEncoder, MetricEncoder,
    NoLabelSet,
};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::dictionary::{Dictionary, LOST, LOST_TEXT};
use crate::record::{Record, RequestView, Timer, NO_SCHEMA};
use crate::report::{ns, Kind, RowSelector};

/// How often (merge time) the rows with series of their own are ranked again.
pub const RANK_EVERY_MS: u64 = 10_000;
/// A key position of an `(other)` row that reads `(other)` (never a dictionary id: the
/// dictionary holds far fewer strings; `NO_SCHEMA` is `u32::MAX`).
const OTHER: u32 = u32::MAX - 1;
/// The label value of such a position.
pub const OTHER_TEXT: &str = "(other)";
/// `(other)` rows of one report, by status; beyond them one row whose status reads `(other)`
/// too (statuses are few; a sender of random ones must not grow the export).
const MAX_OTHER_ROWS: usize = 32;
/// A folded row is admitted when its rank is above this many times the weakest shown row's:
/// two rows of about the same traffic do not take turns (each turn is a new series).
const DISPLACE_FACTOR: u64 = 2;

/// The default upper bounds (seconds) of the histogram buckets of `pinba_request_time_seconds`
/// and `pinba_timer_seconds` (`+Inf` added), for a report without `prometheus_buckets`: ten per
/// decade from 0.1 ms to 10 s (the R10 preferred numbers 1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8:
/// each 1.25 to 1.28 times the one before), the same for every report and daemon, so
/// `histogram_quantile()` can sum them across rows, reports and restarts. Fine enough that its
/// linear interpolation inside a bucket lands within 10 % of the report's own percentile for
/// request times and timer values, also where the density changes within a bucket (docs/prometheus.md,
/// "Buckets").
pub const DEFAULT_BUCKETS_SECONDS: [f64; 51] = [
    0.0001, 0.000125, 0.00016, 0.0002, 0.00025, 0.000315, 0.0004, 0.0005, 0.00063, 0.0008, //
    0.001, 0.00125, 0.0016, 0.002, 0.0025, 0.00315, 0.004, 0.005, 0.0063, 0.008, //
    0.01, 0.0125, 0.016, 0.02, 0.025, 0.0315, 0.04, 0.05, 0.063, 0.08, //
    0.1, 0.125, 0.16, 0.2, 0.25, 0.315, 0.4, 0.5, 0.63, 0.8, //
    1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0, //
    10.0,
];
/// Prometheus series of one row of a request report with the default buckets (see
/// [`crate::config::metric_row_series`]).
pub const REQUEST_ROW_SERIES: usize =
    crate::config::metric_row_series(false, DEFAULT_BUCKETS_SECONDS.len());
// The config refuses a `limits.max_metric_series` below one default row's series: the same figure.
const _: () = assert!(REQUEST_ROW_SERIES == crate::config::MIN_METRIC_SERIES);
/// Prometheus series of one row of a timer report with the default buckets.
pub const TIMER_ROW_SERIES: usize =
    crate::config::metric_row_series(true, DEFAULT_BUCKETS_SECONDS.len());

/// The bucket bounds a report exports: its `prometheus_buckets`, or [`DEFAULT_BUCKETS_SECONDS`].
pub fn buckets_of(def: &crate::report::ReportDef) -> Vec<f64> {
    def.prometheus_buckets
        .clone()
        .unwrap_or_else(|| DEFAULT_BUCKETS_SECONDS.to_vec())
}

/// A report's bucket bounds: as seconds (what `le` shows) and as nanoseconds (what samples are
/// compared with; a sample of exactly a bound counts in its bucket: `le`).
#[derive(Debug)]
struct Buckets {
    seconds: Box<[f64]>,
    ns: Box<[u64]>,
}

impl Buckets {
    fn new(seconds: &[f64]) -> Buckets {
        Buckets {
            seconds: seconds.into(),
            ns: seconds.iter().map(|s| (s * 1e9).round() as u64).collect(),
        }
    }

    /// Buckets with `+Inf`.
    fn len(&self) -> usize {
        self.ns.len() + 1
    }

    /// The bucket of a sample.
    #[inline]
    fn of(&self, time_ns: u64) -> usize {
        self.ns.partition_point(|&b| b < time_ns)
    }
}

/// The counters of one row, since its series were created. Times and bytes are summed in 128
/// bits: a busy row's request time (100k requests/s at 200 ms) passes 64 bits of nanoseconds in
/// ten days, and a counter that wraps reads as a reset.
#[derive(Debug, Default)]
struct SeriesRow {
    /// Label values in key order; empty until the row is labelled (same lock hold as its
    /// creation, so a scrape never sees an unlabelled row).
    values: Box<[String]>,
    labelled: bool,
    requests: u64,
    hits: u64,
    time_ns: u128,
    ru_utime_ns: u128,
    ru_stime_ns: u128,
    document_bytes: u128,
    memory_peak_bytes: u128,
    /// The largest memory_peak of the row's requests in the minute of merge time numbered
    /// `peak_minute` and in the one before it (see [`SeriesRow::peak_max`]).
    peak_now: u32,
    peak_before: u32,
    peak_minute: u64,
    /// Samples per bucket (not cumulative; the report's bounds, then `+Inf`): requests, or timer
    /// hits at their mean time per hit.
    buckets: Box<[u64]>,
    /// Merger time of the last request counted in it (idle removal).
    last_ms: u64,
    /// The request that last counted in it: a timer report counts a request once per row.
    mark: u64,
    /// The row with the same label values that this one's requests count into, when two keys
    /// are labelled alike (an absent schema and an empty one, two byte strings that are not
    /// UTF-8 and read as the same replacement characters): a scrape may show a label set only
    /// once. Such a row keeps its pins (its ids must keep naming its strings) and no counters.
    into: Option<Arc<[u32]>>,
    /// An `(other)` row: the requests of rows without series of their own.
    other: bool,
    /// Requests (and those with status >= 500) since the last rank, and the rank: each rank
    /// halves it and adds the period's score (see [`score`]).
    period: Tally,
    rank: u64,
}

/// Requests and errors (status >= 500) of a row since the last rank.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    requests: u64,
    errors: u64,
    /// The request that last counted (a timer report counts a request once per row).
    mark: u64,
}

impl Tally {
    #[inline]
    fn add(&mut self, r: &Record, mark: u64) {
        if self.mark != mark {
            self.mark = mark;
            self.requests += 1;
            self.errors += u64::from(r.status >= 500);
        }
    }

    /// The period's score: requests, or errors first when `by_errors` (a report keyed by
    /// status: a row of 5xx then outranks any row of other statuses).
    fn score(&self, by_errors: bool) -> u64 {
        if by_errors {
            (self.errors << 20).saturating_add(self.requests)
        } else {
            self.requests
        }
    }

    /// Ends a period: the new rank.
    fn roll(&mut self, rank: u64, by_errors: bool) -> u64 {
        let r = (rank / 2).saturating_add(self.score(by_errors));
        *self = Tally::default();
        r
    }
}

/// A row without series of its own, as the ranking sees it.
#[derive(Clone, Copy, Debug, Default)]
struct Candidate {
    period: Tally,
    rank: u64,
}

impl SeriesRow {
    /// A row counting into `buckets` buckets.
    fn new(buckets: usize) -> SeriesRow {
        SeriesRow {
            buckets: vec![0; buckets].into_boxed_slice(),
            ..SeriesRow::default()
        }
    }

    #[inline]
    fn count(
        &mut self,
        r: &Record,
        timer: Option<&Timer>,
        mark: u64,
        now_ms: u64,
        bounds: &Buckets,
    ) {
        self.last_ms = now_ms;
        self.period.add(r, mark);
        match timer {
            None => {
                let time_ns = ns(r.request_time);
                self.requests += 1;
                self.time_ns += time_ns as u128;
                self.ru_utime_ns += ns(r.ru_utime) as u128;
                self.ru_stime_ns += ns(r.ru_stime) as u128;
                self.document_bytes += r.document_size as u128;
                self.memory_peak_bytes += r.memory_peak as u128;
                self.roll_peak(now_ms);
                self.peak_now = self.peak_now.max(r.memory_peak);
                self.buckets[bounds.of(time_ns)] += 1;
            }
            Some(t) => {
                if self.mark != mark {
                    self.mark = mark;
                    self.requests += 1;
                }
                let time_ns = ns(t.value);
                let hits = t.hit_count as u64;
                self.hits += hits;
                self.time_ns += time_ns as u128;
                let per_hit = time_ns
                    .saturating_add(hits / 2)
                    .checked_div(hits)
                    .unwrap_or(0);
                self.buckets[bounds.of(per_hit)] += hits;
            }
        }
    }

    /// Moves the memory_peak maxima to the minute of `now_ms`: the current minute's becomes the
    /// one before, or both empty after an idle minute.
    fn roll_peak(&mut self, now_ms: u64) {
        let minute = now_ms / 60_000;
        if minute != self.peak_minute {
            self.peak_before = if minute == self.peak_minute + 1 {
                self.peak_now
            } else {
                0
            };
            self.peak_now = 0;
            self.peak_minute = minute;
        }
    }

    /// The largest memory_peak of the row's requests over the last one to two minutes of merge
    /// time at `now_ms` (the current minute and the one before): what the gauge shows.
    fn peak_max(&self, now_ms: u64) -> u32 {
        let minute = now_ms / 60_000;
        match minute.saturating_sub(self.peak_minute) {
            0 => self.peak_now.max(self.peak_before),
            1 => self.peak_now,
            _ => 0,
        }
    }

    /// Takes `other`'s counters (a row labelled like this one: see [`SeriesRow::into`]).
    fn absorb(&mut self, other: &SeriesRow) {
        self.requests += other.requests;
        self.hits += other.hits;
        self.time_ns += other.time_ns;
        self.ru_utime_ns += other.ru_utime_ns;
        self.ru_stime_ns += other.ru_stime_ns;
        self.document_bytes += other.document_bytes;
        self.memory_peak_bytes += other.memory_peak_bytes;
        if other.peak_minute == self.peak_minute {
            self.peak_now = self.peak_now.max(other.peak_now);
            self.peak_before = self.peak_before.max(other.peak_before);
        }
        for (b, o) in self.buckets.iter_mut().zip(&other.buckets) {
            *b += o;
        }
        self.last_ms = self.last_ms.max(other.last_ms);
    }
}

/// A report whose rows are exported, as [`SeriesSet::set_reports`] takes it.
#[derive(Clone, Debug)]
pub struct ExportedReport {
    /// Identity of the live report: a report dropped and created again under the same name is
    /// another report, whose series start again.
    pub id: usize,
    pub name: String,
    pub selector: RowSelector,
    /// The report's key column names (`script_name`, `country`), made label names here.
    pub key_columns: Vec<String>,
    /// The upper bounds of its histogram's buckets, seconds (its `prometheus_buckets`, or
    /// [`DEFAULT_BUCKETS_SECONDS`]).
    pub buckets: Vec<f64>,
}

#[derive(Debug)]
struct ReportSeries {
    id: usize,
    name: String,
    selector: RowSelector,
    /// Label names of the keys, after `report`.
    labels: Vec<String>,
    buckets: Buckets,
    per_row: usize,
    /// Rows with series of their own (at most `max_rows`, not counting `(other)` rows), and
    /// the `(other)` rows (`others` of them).
    rows: FxHashMap<Box<[u32]>, SeriesRow>,
    others: usize,
    max_rows: usize,
    /// Whether the key has a status: rank errors first.
    by_errors: bool,
    /// Which key positions are a status (kept in `(other)` rows).
    status_at: Box<[bool]>,
    /// Folded rows seen lately (bounded: see [`SeriesSet::fold`]), ranked against the shown.
    candidates: FxHashMap<Box<[u32]>, Candidate>,
    /// Folded rows the last rank admitted: they get their row at their next request, slots
    /// kept for them until the next rank.
    admitted: rustc_hash::FxHashSet<Box<[u32]>>,
    /// Folded rows with requests in the last rank period.
    folded_rows: usize,
    /// Rows created since the last [`SeriesSet::label_new_rows`].
    unlabelled: Vec<Box<[u32]>>,
    /// The labelled rows that show their series, by label values (see [`SeriesRow::into`]).
    by_labels: FxHashMap<Box<[String]>, Arc<[u32]>>,
}

impl ReportSeries {
    /// Removes a row: its pins released, its label set free again.
    fn remove_row(&mut self, key: &[u32], dict: &mut Dictionary) {
        let Some(row) = self.rows.remove(key) else {
            return;
        };
        if row.labelled && !row.other {
            release_key(&self.selector, key, dict);
        }
        if row.labelled && row.into.is_none() {
            self.by_labels.remove(&row.values);
        }
        if row.other {
            self.others -= 1;
        }
    }

    /// Removes the rows that counted into a row removed.
    fn remove_orphans(&mut self, dict: &mut Dictionary) {
        let orphans: Vec<Box<[u32]>> = self
            .rows
            .iter()
            .filter(|(_, row)| {
                row.into
                    .as_ref()
                    .is_some_and(|i| !self.rows.contains_key(&**i))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in orphans {
            self.remove_row(&key, dict);
        }
    }
}

/// The exported reports' rows and their counters. Pure: time is an argument, the dictionary is
/// passed in; the metrics thread (`metrics::run`) drives it and the scrape (`metrics::render`) reads it.
#[derive(Debug)]
pub struct SeriesSet {
    reports: Vec<ReportSeries>,
    max_series: usize,
    idle_ms: u64,
    /// Prometheus series in use.
    series: usize,
    /// Series that could not be created, counted each time a request needed them.
    lost: u64,
    /// `metrics.max_report_rows`.
    max_rows: usize,
    /// Contributions counted in `(other)` rows, since start.
    requests_folded: u64,
    /// Merge time of the next rank.
    next_rank_ms: u64,
    /// Requests folded so far (the marks of timer rows).
    sequence: u64,
    /// Merger time of the last fold: what the memory_peak gauges are read at.
    now_ms: u64,
}

impl SeriesSet {
    pub fn new(max_series: usize, idle: Duration) -> SeriesSet {
        SeriesSet {
            reports: Vec::new(),
            max_series,
            idle_ms: idle.as_millis() as u64,
            series: 0,
            lost: 0,
            max_rows: crate::config::DEFAULT_MAX_REPORT_ROWS,
            requests_folded: 0,
            next_rank_ms: 0,
            sequence: 0,
            now_ms: 0,
        }
    }

    /// Sets `metrics.max_report_rows` (for the reports set from now on).
    pub fn with_max_rows(mut self, max_rows: usize) -> SeriesSet {
        self.max_rows = max_rows.max(1);
        self
    }

    /// Rows counted in `(other)` rows over the last rank period, all reports.
    pub fn rows_folded(&self) -> usize {
        self.reports.iter().map(|r| r.folded_rows).sum()
    }

    /// Contributions (requests; timer rows of a request) counted in `(other)` rows, since start.
    pub fn requests_folded(&self) -> u64 {
        self.requests_folded
    }

    /// Prometheus series in use.
    pub fn series(&self) -> usize {
        self.series
    }

    /// Series not created for want of room, since start.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Whether any report is exported.
    pub fn exports_any(&self) -> bool {
        !self.reports.is_empty()
    }

    /// The identities of the exported reports, in order.
    pub fn report_ids(&self) -> Vec<usize> {
        self.reports.iter().map(|r| r.id).collect()
    }

    /// Makes `reports` the exported ones: new ones start with no series, those no longer listed
    /// lose theirs (their pins released).
    pub fn set_reports(&mut self, reports: Vec<ExportedReport>, dict: &mut Dictionary) {
        let mut old = std::mem::take(&mut self.reports);
        for e in reports {
            if let Some(i) = old.iter().position(|r| r.id == e.id) {
                self.reports.push(old.swap_remove(i));
                continue;
            }
            let timer = e.selector.kind() == Kind::Timer;
            let per_row = crate::config::metric_row_series(timer, e.buckets.len());
            let status_at: Box<[bool]> = (0..e.key_columns.len())
                .map(|i| e.selector.key_is_status(i))
                .collect();
            self.reports.push(ReportSeries {
                others: 0,
                max_rows: self.max_rows,
                by_errors: status_at.iter().any(|&s| s),
                status_at,
                candidates: FxHashMap::default(),
                admitted: Default::default(),
                folded_rows: 0,
                id: e.id,
                name: e.name,
                labels: label_names(&e.key_columns),
                buckets: Buckets::new(&e.buckets),
                selector: e.selector,
                per_row,
                rows: FxHashMap::default(),
                unlabelled: Vec::new(),
                by_labels: FxHashMap::default(),
            });
        }
        for r in old {
            for (key, row) in &r.rows {
                if row.labelled {
                    release_key(&r.selector, key, dict);
                }
            }
            self.series -= r.rows.len() * r.per_row;
        }
    }

    /// Counts `requests`, merged at `now_ms`, into the rows of every exported report; rows it
    /// creates wait for [`SeriesSet::label_new_rows`]. A row that has none and may not get one
    /// (the report's `max_rows`, or `max_series` in use) counts in its `(other)` row and among
    /// the candidates of the next rank (at most 16 times `max_rows` of them, at least 4,096).
    pub fn fold<'a>(&mut self, now_ms: u64, requests: impl Iterator<Item = RequestView<'a>>) {
        self.now_ms = self.now_ms.max(now_ms);
        let SeriesSet {
            reports,
            max_series,
            series,
            lost,
            sequence,
            requests_folded,
            ..
        } = self;
        let mut other_key: Vec<u32> = Vec::new();
        for v in requests {
            *sequence += 1;
            let mark = *sequence;
            for rep in reports.iter_mut() {
                let ReportSeries {
                    selector,
                    rows,
                    unlabelled,
                    per_row,
                    buckets,
                    others,
                    max_rows,
                    status_at,
                    candidates,
                    admitted,
                    by_labels,
                    ..
                } = rep;
                selector.rows(&v, |key, timer| {
                    if count_in(rows, key, v.record, timer, mark, now_ms, buckets) {
                        return;
                    }
                    let shown = rows.len() - *others;
                    let room = if admitted.contains(key) {
                        shown < *max_rows
                    } else {
                        shown + admitted.len() < *max_rows
                    };
                    if room && *series + *per_row <= *max_series {
                        *series += *per_row;
                        unlabelled.push(key.into());
                        admitted.remove(key);
                        let rank = candidates.remove(key).map_or(0, |c| c.rank);
                        let row = rows
                            .entry(key.into())
                            .or_insert_with(|| SeriesRow::new(buckets.len()));
                        row.rank = rank;
                        row.count(v.record, timer, mark, now_ms, buckets);
                        return;
                    }
                    // Folded: a candidate of the next rank, counted in its `(other)` row.
                    let bound = max_rows.saturating_mul(16).max(4096);
                    if candidates.len() < bound || candidates.contains_key(key) {
                        candidates
                            .entry(key.into())
                            .or_default()
                            .period
                            .add(v.record, mark);
                    }
                    other_key.clear();
                    other_key.extend(key.iter().zip(status_at.iter()).map(|(&id, &status)| {
                        if status {
                            id
                        } else {
                            OTHER
                        }
                    }));
                    if !rows.contains_key(&other_key[..]) && *others >= MAX_OTHER_ROWS {
                        other_key.iter_mut().for_each(|id| *id = OTHER);
                    }
                    if !rows.contains_key(&other_key[..]) {
                        if *series + *per_row > *max_series {
                            *lost += *per_row as u64;
                            return;
                        }
                        *series += *per_row;
                        *others += 1;
                        let mut row = SeriesRow::new(buckets.len());
                        row.other = true;
                        row.labelled = true;
                        let values: Box<[String]> = other_key
                            .iter()
                            .zip(status_at.iter())
                            .map(|(&id, &status)| match id {
                                OTHER => OTHER_TEXT.to_string(),
                                _ if status => id.to_string(),
                                _ => OTHER_TEXT.to_string(),
                            })
                            .collect();
                        // A row of its own already shows these labels (a script named
                        // "(other)"): this one counts into it.
                        match by_labels.get(&values) {
                            Some(into) => row.into = Some(Arc::clone(into)),
                            None => {
                                by_labels.insert(values.clone(), other_key[..].into());
                                row.values = values;
                            }
                        }
                        rows.insert(other_key[..].into(), row);
                    }
                    *requests_folded += 1;
                    count_in(rows, &other_key, v.record, timer, mark, now_ms, buckets);
                });
            }
        }
    }

    /// Whether rows wait for their labels.
    pub fn needs_labels(&self) -> bool {
        self.reports.iter().any(|r| !r.unlabelled.is_empty())
    }

    /// Gives the rows created since the last call their label values, pinning the strings in
    /// `dict` so that their ids keep naming them while the series exist. A row whose id no longer
    /// names a string (it cannot happen for a round processed in time, see `metrics::run`) is removed,
    /// its series counted as lost.
    pub fn label_new_rows(&mut self, dict: &mut Dictionary) {
        for rep in &mut self.reports {
            for key in std::mem::take(&mut rep.unlabelled) {
                let Some(row) = rep.rows.get_mut(&key) else {
                    continue;
                };
                let mut values = Vec::with_capacity(key.len());
                let mut pinned = Vec::new();
                let mut ok = true;
                for (i, &id) in key.iter().enumerate() {
                    let sel = &rep.selector;
                    values.push(if is_string(sel, i, id) {
                        let bytes = dict.get(id).to_vec();
                        let got = dict.pin(&bytes);
                        if got == id {
                            pinned.push(id);
                        } else {
                            dict.release(got);
                            ok = false;
                        }
                        String::from_utf8_lossy(&bytes).into_owned()
                    } else if sel.key_is_status(i) {
                        id.to_string()
                    } else if id == LOST {
                        String::from_utf8_lossy(LOST_TEXT).into_owned()
                    } else {
                        String::new() // no schema
                    });
                }
                if ok {
                    row.labelled = true;
                    let values = values.into_boxed_slice();
                    match rep.by_labels.get(&values) {
                        Some(into) if **into != *key => {
                            let into = Arc::clone(into);
                            let mine = std::mem::take(row);
                            row.labelled = true;
                            row.last_ms = mine.last_ms;
                            row.into = Some(Arc::clone(&into));
                            if let Some(shown) = rep.rows.get_mut(&*into) {
                                shown.absorb(&mine);
                            }
                        }
                        _ => {
                            rep.by_labels.insert(values.clone(), key.clone().into());
                            row.values = values;
                        }
                    }
                } else {
                    for id in pinned {
                        dict.release(id);
                    }
                    rep.rows.remove(&key);
                    self.series -= rep.per_row;
                    self.lost += rep.per_row as u64;
                }
            }
        }
    }

    /// Whether some row has been idle for `series_idle` at `now_ms` (checked before taking the
    /// dictionary for [`SeriesSet::remove_idle`]).
    pub fn has_idle(&self, now_ms: u64) -> bool {
        self.reports.iter().any(|r| {
            r.rows
                .values()
                .any(|row| row.last_ms + self.idle_ms <= now_ms)
        })
    }

    /// Removes the rows not updated for `series_idle` at `now_ms`, releasing their pins; returns
    /// the series removed. A row counting into another is removed with it (it cannot be idle for
    /// less: each of its requests counts in both).
    pub fn remove_idle(&mut self, now_ms: u64, dict: &mut Dictionary) -> usize {
        let idle_ms = self.idle_ms;
        let mut removed = 0;
        for rep in &mut self.reports {
            let before = rep.rows.len();
            let keys: Vec<Box<[u32]>> = rep
                .rows
                .iter()
                .filter(|(_, row)| row.last_ms + idle_ms <= now_ms)
                .map(|(key, _)| key.clone())
                .collect();
            for key in keys {
                rep.remove_row(&key, dict);
            }
            rep.remove_orphans(dict);
            removed += (before - rep.rows.len()) * rep.per_row;
        }
        self.series -= removed;
        removed
    }

    /// Whether the rows with series of their own are due to be ranked at `now_ms` (checked
    /// before taking the dictionary for [`SeriesSet::rank`]).
    pub fn needs_rank(&self, now_ms: u64) -> bool {
        now_ms >= self.next_rank_ms
    }

    /// Ranks every report's rows (see the module's doc): ends the period of each row and
    /// candidate, admits the best candidates to the free slots, then each candidate ranked
    /// above [`DISPLACE_FACTOR`] times the weakest shown row in its place (the row removed, its
    /// pins released, itself a candidate again). Candidates with no rank left are forgotten.
    pub fn rank(&mut self, now_ms: u64, dict: &mut Dictionary) {
        self.next_rank_ms = now_ms + RANK_EVERY_MS;
        let mut removed = 0;
        for rep in &mut self.reports {
            let by_errors = rep.by_errors;
            for row in rep.rows.values_mut() {
                row.rank = row.period.roll(row.rank, by_errors);
            }
            let mut folded = 0;
            rep.candidates.retain(|_, c| {
                folded += usize::from(c.period.requests > 0);
                c.rank = c.period.roll(c.rank, by_errors);
                c.rank > 0
            });
            rep.folded_rows = folded;
            rep.admitted.clear();
            let mut best: Vec<(u64, Box<[u32]>)> = rep
                .candidates
                .iter()
                .filter(|(key, _)| !rep.rows.contains_key(*key))
                .map(|(key, c)| (c.rank, key.clone()))
                .collect();
            best.sort_unstable_by_key(|b| std::cmp::Reverse(b.0));
            let mut best = best.into_iter();
            let free = rep.max_rows.saturating_sub(rep.rows.len() - rep.others);
            rep.admitted
                .extend(best.by_ref().take(free).map(|(_, k)| k));
            let mut weakest: Vec<(u64, Box<[u32]>)> = rep
                .rows
                .iter()
                .filter(|(_, r)| !r.other && r.into.is_none() && r.labelled)
                .map(|(key, r)| (r.rank, key.clone()))
                .collect();
            weakest.sort_unstable_by_key(|w| w.0);
            let mut weakest = weakest.into_iter();
            let before = rep.rows.len();
            for (rank, key) in best {
                let Some((weak_rank, weak)) = weakest.next() else {
                    break;
                };
                if rank <= weak_rank.saturating_mul(DISPLACE_FACTOR) {
                    break;
                }
                rep.remove_row(&weak, dict);
                rep.candidates.insert(
                    weak,
                    Candidate {
                        period: Tally::default(),
                        rank: weak_rank,
                    },
                );
                rep.admitted.insert(key);
            }
            rep.remove_orphans(dict);
            removed += (before - rep.rows.len()) * rep.per_row;
        }
        self.series -= removed;
    }

    /// Writes the report series (prometheus-client's encoder; see `metrics::render`).
    pub(super) fn encode(&self, enc: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for kind in [Kind::Request, Kind::Timer] {
            let reports: Vec<&ReportSeries> = self
                .reports
                .iter()
                .filter(|r| (r.selector.kind() == Kind::Timer) == (kind == Kind::Timer))
                .collect();
            if reports.is_empty() {
                continue;
            }
            let (counters, histogram) = families(kind);
            for c in &counters {
                let mut m =
                    enc.encode_descriptor(c.name, c.help, c.unit.as_ref(), MetricType::Counter)?;
                encode_rows(&reports, &mut m, |r, m| {
                    let v = (c.value)(r);
                    match u64::try_from(v) {
                        _ if c.ns => ConstCounter::new(v as f64 / 1e9).encode(m),
                        Ok(v) => ConstCounter::new(v).encode(m),
                        Err(_) => ConstCounter::new(v as f64).encode(m),
                    }
                })?;
            }
            if kind == Kind::Request {
                let mut m = enc.encode_descriptor(
                    "pinba_memory_peak_max",
                    "The largest memory_peak of the row's requests over the last one to two minutes \
                     (the current minute of merge time and the one before).",
                    Some(&Unit::Bytes),
                    MetricType::Gauge,
                )?;
                let now_ms = self.now_ms;
                encode_rows(&reports, &mut m, |r, m| {
                    ConstGauge::new(i64::from(r.peak_max(now_ms))).encode(m)
                })?;
            }
            let mut m = enc.encode_descriptor(
                histogram.name,
                histogram.help,
                Some(&Unit::Seconds),
                MetricType::Histogram,
            )?;
            for rep in &reports {
                encode_rows(&[*rep], &mut m, |r, m| {
                    // A histogram's count is `requests` or `hits`: 64 bits.
                    encode_histogram(
                        m,
                        r,
                        &rep.buckets,
                        u64::try_from((histogram.value)(r)).unwrap_or(u64::MAX),
                    )
                })?;
            }
        }
        Ok(())
    }
}

/// Counts a contribution in the row of `key`, or in the row it counts into (see
/// [`SeriesRow::into`]); false when there is no such row.
#[inline]
fn count_in(
    rows: &mut FxHashMap<Box<[u32]>, SeriesRow>,
    key: &[u32],
    r: &Record,
    timer: Option<&Timer>,
    mark: u64,
    now_ms: u64,
    buckets: &Buckets,
) -> bool {
    let Some(row) = rows.get_mut(key) else {
        return false;
    };
    let Some(into) = &row.into else {
        row.count(r, timer, mark, now_ms, buckets);
        return true;
    };
    // Its idle time still counts (its pins), its requests go to the other.
    row.last_ms = now_ms;
    let into = Arc::clone(into);
    if let Some(row) = rows.get_mut(&*into) {
        row.count(r, timer, mark, now_ms, buckets);
    }
    true
}

/// A family of the report series: its name (before the unit and `_total`), help, unit, and the
/// row's value (nanoseconds shown as seconds when `ns`; a histogram's sample count).
struct Family {
    name: &'static str,
    help: &'static str,
    unit: Option<Unit>,
    value: fn(&SeriesRow) -> u128,
    ns: bool,
}

/// The counter families and the histogram of request reports (and `info`), or of timer reports.
fn families(kind: Kind) -> (Vec<Family>, Family) {
    let f = |name, help, unit, value, ns| Family {
        name,
        help,
        unit,
        value,
        ns,
    };
    let seconds = || Some(Unit::Seconds);
    if kind == Kind::Timer {
        return (
            vec![
                f(
                    "pinba_timer_hits",
                    "Timer hits (hit_count) counted in the row.",
                    None,
                    |r| r.hits.into(),
                    false,
                ),
                f(
                    "pinba_timer_requests",
                    "Requests with at least one timer in the row.",
                    None,
                    |r| r.requests.into(),
                    false,
                ),
                f(
                    "pinba_timer",
                    "Sum of the timer values of the row.",
                    seconds(),
                    |r| r.time_ns,
                    true,
                ),
            ],
            f(
                "pinba_timer",
                "Timer time per hit (a timer's value / hit_count, once per hit), in fixed buckets.",
                seconds(),
                |r| r.hits.into(),
                false,
            ),
        );
    }
    (
        vec![
            f(
                "pinba_requests",
                "Requests counted in the row since its series were created.",
                None,
                |r| r.requests.into(),
                false,
            ),
            f(
                "pinba_request_time",
                "Sum of the request times of the row's requests.",
                seconds(),
                |r| r.time_ns,
                true,
            ),
            f(
                "pinba_ru_utime",
                "Sum of the user CPU time (ru_utime) of the row's requests.",
                seconds(),
                |r| r.ru_utime_ns,
                true,
            ),
            f(
                "pinba_ru_stime",
                "Sum of the system CPU time (ru_stime) of the row's requests.",
                seconds(),
                |r| r.ru_stime_ns,
                true,
            ),
            f(
                "pinba_document",
                "Sum of the document sizes of the row's requests.",
                Some(Unit::Bytes),
                |r| r.document_bytes,
                false,
            ),
            f(
                "pinba_memory_peak",
                "Sum of the memory peaks (memory_peak) of the row's requests.",
                Some(Unit::Bytes),
                |r| r.memory_peak_bytes,
                false,
            ),
        ],
        f(
            "pinba_request_time",
            "Request times of the row's requests, in fixed buckets.",
            seconds(),
            |r| r.requests.into(),
            false,
        ),
    )
}

fn encode_histogram(
    mut m: MetricEncoder,
    r: &SeriesRow,
    bounds: &Buckets,
    count: u64,
) -> Result<(), std::fmt::Error> {
    let buckets: Vec<(f64, u64)> = (0..bounds.len())
        .map(|i| {
            (
                bounds.seconds.get(i).copied().unwrap_or(f64::INFINITY),
                r.buckets.get(i).copied().unwrap_or(0),
            )
        })
        .collect();
    m.encode_histogram::<NoLabelSet>(r.time_ns as f64 / 1e9, count, &buckets, None)
}

/// Every labelled row of `reports`, each as one sample (or sample group) of the family `m`.
fn encode_rows(
    reports: &[&ReportSeries],
    m: &mut MetricEncoder,
    mut f: impl FnMut(&SeriesRow, MetricEncoder) -> Result<(), std::fmt::Error>,
) -> Result<(), std::fmt::Error> {
    for rep in reports {
        for row in rep.rows.values().filter(|r| r.labelled && r.into.is_none()) {
            let labels = RowLabels {
                report: &rep.name,
                names: &rep.labels,
                values: &row.values,
            };
            f(row, m.encode_family(&labels)?)?;
        }
    }
    Ok(())
}

/// Whether key position `i` of value `id` is a dictionary string (not a status number, an
/// absent schema or the "dictionary full" id): what [`SeriesSet::label_new_rows`] pins.
fn is_string(selector: &RowSelector, i: usize, id: u32) -> bool {
    let number = selector.key_is_status(i);
    let absent = selector.key_is_schema(i) && id == NO_SCHEMA;
    !number && !absent && id != LOST && id != OTHER
}

/// Releases the pins [`SeriesSet::label_new_rows`] took for a row's key.
fn release_key(selector: &RowSelector, key: &[u32], dict: &mut Dictionary) {
    for (i, &id) in key.iter().enumerate() {
        if is_string(selector, i, id) {
            dict.release(id);
        }
    }
}

/// Label names for key columns: characters outside `[A-Za-z0-9_]` become `_`, a leading digit or
/// a reserved name (`report`, `le`, `__…`) gets a `key_` prefix, a repeated name a `_2`, `_3` suffix.
pub fn label_names(columns: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(columns.len());
    for c in columns {
        let mut name: String = c
            .chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() || ch == '_' {
                    ch
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty()
            || name.starts_with(|ch: char| ch.is_ascii_digit())
            || name == "report"
            || name == "le"
            || name.starts_with("__")
        {
            name = format!("key_{name}");
        }
        let base = name.clone();
        let mut n = 1;
        while out.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        out.push(name);
    }
    out
}

/// A row's labels: `report`, then its keys.
struct RowLabels<'a> {
    report: &'a str,
    names: &'a [String],
    values: &'a [String],
}

impl EncodeLabelSet for RowLabels<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        ("report", self.report).encode(encoder.encode_label())?;
        for (n, v) in self.names.iter().zip(self.values.iter()) {
            (n.as_str(), v.as_str()).encode(encoder.encode_label())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::to_prometheus_text;
    use crate::record::TagPair;
    use crate::report::{Report, ReportDef};
    use parking_lot::Mutex;
    use prometheus_client::collector::Collector;
    use prometheus_client::registry::Registry;

    /// A request of `script` taking `seconds`, with one timer per `(group, seconds, hits)`.
    struct Req {
        record: Record,
        tags: Vec<TagPair>,
        timers: Vec<Timer>,
    }

    fn req(dict: &mut Dictionary, script: &str, seconds: f32, timers: &[(&str, f32, u32)]) -> Req {
        let group = dict.intern(b"group");
        let record = Record {
            script_name: dict.intern(script.as_bytes()),
            hostname: dict.intern(b"host"),
            server_name: dict.intern(b"server"),
            schema: NO_SCHEMA,
            status: 200,
            request_time: seconds,
            ru_utime: seconds / 2.0,
            document_size: 1000,
            ..Record::default()
        };
        let mut tags = Vec::new();
        let mut ts = Vec::new();
        for (g, s, hits) in timers {
            tags.push(TagPair {
                name: group,
                value: dict.intern(g.as_bytes()),
            });
            ts.push(Timer {
                value: *s,
                hit_count: *hits,
                tag_count: 1,
                ..Timer::default()
            });
        }
        Req {
            record,
            tags,
            timers: ts,
        }
    }

    fn view(r: &Req) -> RequestView<'_> {
        RequestView {
            id: 0,
            record: &r.record,
            tag_block: &r.tags,
            timers: &r.timers,
        }
    }

    fn exported(report: &Report, id: usize) -> ExportedReport {
        ExportedReport {
            id,
            name: report.def().name.clone(),
            selector: report.row_selector(),
            key_columns: report.key_columns().to_vec(),
            buckets: buckets_of(report.def()),
        }
    }

    fn report(dict: &mut Dictionary, name: &str, keys: &[&str]) -> Report {
        Report::new(ReportDef::new(name, keys), dict, 1000).unwrap()
    }

    /// The exposition of `set` alone, through the scrape's encoder and conversion.
    fn text(set: SeriesSet) -> String {
        #[derive(Debug)]
        struct Only(Mutex<SeriesSet>);
        impl Collector for Only {
            fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
                self.0.lock().encode(&mut enc)
            }
        }
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Only(Mutex::new(set))));
        let mut om = String::new();
        prometheus_client::encoding::text::encode_registry(&mut om, &registry).unwrap();
        to_prometheus_text(&om)
    }

    /// The value of the sample `name{labels}` (labels as written, in order).
    fn sample(text: &str, name_and_labels: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name_and_labels)?.strip_prefix(' '))
            .and_then(|v| v.parse().ok())
    }

    /// The memory_peak gauge shows the largest of the current and the previous minute: a peak
    /// two minutes old is gone, also from a row that saw no request since.
    #[test]
    fn the_memory_peak_gauge_covers_the_current_and_the_previous_minute() {
        let mut row = SeriesRow::new(1);
        let mut see = |ms: u64, peak: u32| {
            row.roll_peak(ms);
            row.peak_now = row.peak_now.max(peak);
        };
        see(10_000, 900);
        see(50_000, 100);
        see(70_000, 300);
        let row = row;
        assert_eq!(row.peak_max(70_000), 900, "minute 0's 900, minute 1's 300");
        assert_eq!(row.peak_max(125_000), 300, "minute 2: minute 1's 300 only");
        assert_eq!(row.peak_max(185_000), 0, "minute 3: both gone");
        let mut row = row;
        row.roll_peak(200_000);
        assert_eq!(
            row.peak_max(200_000),
            0,
            "an idle minute between: nothing carried"
        );
    }

    #[test]
    fn buckets_are_inclusive_upper_bounds() {
        let b = Buckets::new(&DEFAULT_BUCKETS_SECONDS);
        let n = DEFAULT_BUCKETS_SECONDS.len();
        assert_eq!(b.of(0), 0);
        assert_eq!(b.of(100_000), 0);
        assert_eq!(b.of(100_001), 1);
        assert_eq!(b.of(125_000), 1);
        assert_eq!(b.of(125_001), 2);
        assert_eq!(b.of(10_000_000_000), n - 1);
        assert_eq!(b.of(10_000_000_001), n);
        assert_eq!(b.len(), n + 1);
        // Ten a decade, each 1.25 to 1.28 times the one before.
        for w in DEFAULT_BUCKETS_SECONDS.windows(2) {
            let r = w[1] / w[0];
            assert!((1.249..=1.281).contains(&r), "{w:?}");
        }
    }

    #[test]
    fn counters_never_decrease_when_the_reports_window_expires() {
        let mut dict = Dictionary::new(1000);
        let mut rep = report(&mut dict, "by_script", &["script_name"]);
        rep = rep.with_window(Duration::from_secs(2), 2, 0);
        let mut set = SeriesSet::new(1000, Duration::from_secs(3600));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let a = req(&mut dict, "/a.php", 0.003, &[]);
        let mut seen = Vec::new();
        for t in 0..10u64 {
            let now = t * 1000;
            rep.advance(now);
            rep.add(&view(&a));
            set.fold(now, [view(&a)].into_iter());
            set.label_new_rows(&mut dict);
            let row = set.reports[0].rows.values().next().unwrap();
            seen.push((row.requests, rep.total_requests()));
        }
        // The report's window holds 2 s of requests at most; the counter holds all 10.
        assert!(seen.iter().all(|&(_, window)| window <= 3), "{seen:?}");
        let counts: Vec<u64> = seen.iter().map(|s| s.0).collect();
        assert_eq!(counts, (1..=10).collect::<Vec<u64>>());
        let row = set.reports[0].rows.values().next().unwrap();
        assert_eq!(row.time_ns, 10 * ns(0.003) as u128);
        let b = Buckets::new(&DEFAULT_BUCKETS_SECONDS);
        assert_eq!(row.buckets[b.of(ns(0.003))], 10);
        assert_eq!(&*row.values, ["/a.php".to_string()]);
        let t = text(set);
        let labels = r#"{report="by_script",script_name="/a.php"}"#;
        assert_eq!(
            sample(&t, &format!("pinba_requests_total{labels}")),
            Some(10.0)
        );
        assert_eq!(
            sample(&t, &format!("pinba_request_time_seconds_total{labels}")),
            Some(0.03)
        );
        assert_eq!(
            sample(&t, &format!("pinba_document_bytes_total{labels}")),
            Some(10000.0)
        );
        let bucket = |le: &str| {
            sample(
                &t,
                &format!(
                    r#"pinba_request_time_seconds_bucket{{le="{le}",report="by_script",script_name="/a.php"}}"#
                ),
            )
        };
        assert_eq!(bucket("0.0025"), Some(0.0), "{t}");
        assert_eq!(bucket("0.00315"), Some(10.0));
        assert_eq!(bucket("+Inf"), Some(10.0));
        assert!(
            t.contains("# TYPE pinba_request_time_seconds_total counter\n"),
            "{t}"
        );
        assert!(
            t.contains("# TYPE pinba_request_time_seconds histogram\n"),
            "{t}"
        );
    }

    /// A report's own buckets: its bounds on `le`, its series per row; `[]`: `+Inf` alone.
    #[test]
    fn a_reports_own_buckets_are_its_bounds_and_its_cost() {
        let mut dict = Dictionary::new(1000);
        let mut def = ReportDef::new("coarse", &["script_name"]);
        def.prometheus = true;
        def.prometheus_buckets = Some(vec![0.01, 0.1]);
        let coarse = Report::new(def.clone(), &mut dict, 1000).unwrap();
        def.name = "counts".into();
        def.prometheus_buckets = Some(Vec::new());
        let counts = Report::new(def, &mut dict, 1000).unwrap();
        let mut set = SeriesSet::new(1000, Duration::from_secs(60));
        set.set_reports(vec![exported(&coarse, 1), exported(&counts, 2)], &mut dict);
        let reqs = [0.005, 0.01, 0.05, 2.0].map(|t| req(&mut dict, "/a", t, &[]));
        set.fold(0, reqs.iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(
            set.series(),
            crate::config::metric_row_series(false, 2) + crate::config::metric_row_series(false, 0)
        );
        let t = text(set);
        let bucket = |report: &str, le: &str| {
            sample(
                &t,
                &format!(
                    r#"pinba_request_time_seconds_bucket{{le="{le}",report="{report}",script_name="/a"}}"#
                ),
            )
        };
        assert_eq!(bucket("coarse", "0.01"), Some(2.0), "{t}");
        assert_eq!(bucket("coarse", "0.1"), Some(3.0), "{t}");
        assert_eq!(bucket("coarse", "+Inf"), Some(4.0), "{t}");
        assert_eq!(bucket("counts", "+Inf"), Some(4.0), "{t}");
        assert_eq!(bucket("counts", "0.01"), None, "{t}");
    }

    #[test]
    fn series_beyond_the_limit_are_not_created_and_counted() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "by_script", &["script_name"]);
        // Room for two rows.
        let mut set = SeriesSet::new(2 * REQUEST_ROW_SERIES + 1, Duration::from_secs(3600));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let reqs: Vec<Req> = ["/a", "/b", "/c", "/a", "/c"]
            .iter()
            .map(|s| req(&mut dict, s, 0.01, &[]))
            .collect();
        set.fold(0, reqs.iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(set.series(), 2 * REQUEST_ROW_SERIES);
        // "/c" was refused twice.
        assert_eq!(set.lost(), 2 * REQUEST_ROW_SERIES as u64);
        let mut names: Vec<&str> = set.reports[0]
            .rows
            .values()
            .map(|r| r.values[0].as_str())
            .collect();
        names.sort();
        assert_eq!(names, ["/a", "/b"]);
        let a = set.reports[0]
            .rows
            .values()
            .find(|r| &*r.values[0] == "/a")
            .unwrap();
        assert_eq!(a.requests, 2);
    }

    /// The requests of a row of `set`'s first report whose labels read `values`.
    fn requests_of(set: &SeriesSet, values: &[&str]) -> Option<u64> {
        set.reports[0]
            .rows
            .values()
            .find(|r| r.into.is_none() && r.labelled && *r.values == *values)
            .map(|r| r.requests)
    }

    /// Rows beyond `max_rows` count in an `(other)` row per status, so sums over the series stay
    /// exact; the rank admits the folded row with the most errors in place of the weakest
    /// shown row, which loses its series; the admitted row starts at its next request.
    #[test]
    fn rows_beyond_the_cap_fold_into_other_per_status_and_the_rank_keeps_the_most_errors() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "pages", &["script_name", "status"]);
        let mut set = SeriesSet::new(100_000, Duration::from_secs(3600)).with_max_rows(2);
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let with_status = |dict: &mut Dictionary, s: &str, status: u32| {
            let mut r = req(dict, s, 0.01, &[]);
            r.record.status = status;
            r
        };
        let a = with_status(&mut dict, "/a", 200);
        let b = with_status(&mut dict, "/b", 200);
        let c = with_status(&mut dict, "/c", 500);
        let d = with_status(&mut dict, "/d", 200);
        let e = with_status(&mut dict, "/e", 503);
        set.fold(0, [&a, &b, &c, &c, &c, &d, &e].into_iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(requests_of(&set, &["/a", "200"]), Some(1));
        assert_eq!(requests_of(&set, &["/c", "500"]), None);
        assert_eq!(requests_of(&set, &["(other)", "500"]), Some(3));
        assert_eq!(requests_of(&set, &["(other)", "503"]), Some(1));
        assert_eq!(requests_of(&set, &["(other)", "200"]), Some(1));
        assert_eq!(set.requests_folded(), 5);
        assert_eq!(set.series(), 5 * REQUEST_ROW_SERIES);
        let t = text(set);
        let all: f64 = t
            .lines()
            .filter_map(|l| l.strip_prefix("pinba_requests_total{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        assert_eq!(all, 7.0, "{t}");

        // Again, and ranked: /c (3 errors) and /e (1 error) take the places of /a and /b.
        let mut set = SeriesSet::new(100_000, Duration::from_secs(3600)).with_max_rows(2);
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        set.fold(0, [&a, &b, &c, &c, &c, &d, &e].into_iter().map(view));
        set.label_new_rows(&mut dict);
        // (The first set, dropped, kept its pins.)
        let pins = dict.pins(a.record.script_name);
        set.rank(0, &mut dict);
        assert_eq!(set.rows_folded(), 3, "/c, /d, /e");
        assert_eq!(requests_of(&set, &["/a", "200"]), None, "lost its series");
        assert_eq!(dict.pins(a.record.script_name), pins - 1);
        assert_eq!(set.series(), 3 * REQUEST_ROW_SERIES, "the (other) rows");
        // Slots kept for /c and /e: /d does not take one.
        set.fold(1_000, [&d, &a, &c, &e].into_iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(requests_of(&set, &["/c", "500"]), Some(1));
        assert_eq!(requests_of(&set, &["/e", "503"]), Some(1));
        assert_eq!(requests_of(&set, &["(other)", "500"]), Some(3), "kept");
        assert_eq!(requests_of(&set, &["(other)", "200"]), Some(3));
        assert_eq!(set.series(), 5 * REQUEST_ROW_SERIES);
        // /a comes back with 2 requests a period: not more than twice /e's 1 error.
        set.fold(2_000, [&a, &a, &e].into_iter().map(view));
        set.rank(RANK_EVERY_MS, &mut dict);
        assert_eq!(requests_of(&set, &["/e", "503"]), Some(2));
        assert!(requests_of(&set, &["/a", "200"]).is_none());
    }

    /// A report without a status key ranks by requests; a busy folded row displaces an idle
    /// shown one, and statuses past [`MAX_OTHER_ROWS`] share one `(other)` row.
    #[test]
    fn a_report_without_status_ranks_by_requests_and_other_rows_are_bounded() {
        let mut dict = Dictionary::new(10_000);
        let rep = report(&mut dict, "scripts", &["script_name"]);
        let mut set = SeriesSet::new(100_000, Duration::from_secs(3600)).with_max_rows(1);
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let a = req(&mut dict, "/a", 0.01, &[]);
        let b = req(&mut dict, "/b", 0.01, &[]);
        set.fold(0, [&a, &b, &b, &b].into_iter().map(view));
        set.label_new_rows(&mut dict);
        set.rank(0, &mut dict);
        set.fold(1_000, [&b].into_iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(requests_of(&set, &["/b"]), Some(1));
        assert_eq!(requests_of(&set, &["/a"]), None);
        assert_eq!(requests_of(&set, &["(other)"]), Some(3));

        let rep = report(&mut dict, "statuses", &["script_name", "status"]);
        let mut set = SeriesSet::new(1_000_000, Duration::from_secs(3600)).with_max_rows(1);
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let reqs: Vec<Req> = (0..100u32)
            .map(|i| {
                let mut r = req(&mut dict, &format!("/{i}"), 0.01, &[]);
                r.record.status = 100 + i;
                r
            })
            .collect();
        set.fold(0, reqs.iter().map(view));
        set.label_new_rows(&mut dict);
        assert_eq!(set.reports[0].others, MAX_OTHER_ROWS + 1);
        let shown = 99 - MAX_OTHER_ROWS as u64;
        assert_eq!(requests_of(&set, &["(other)", "(other)"]), Some(shown));
    }

    #[test]
    fn idle_series_are_removed_and_their_strings_unpinned() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "by_script", &["script_name"]);
        let mut set = SeriesSet::new(1000, Duration::from_secs(60));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let a = req(&mut dict, "/a", 0.01, &[]);
        let b = req(&mut dict, "/b", 0.01, &[]);
        set.fold(0, [view(&a), view(&b)].into_iter());
        set.label_new_rows(&mut dict);
        assert_eq!(dict.pins(a.record.script_name), 1);
        set.fold(30_000, [view(&b)].into_iter());
        assert!(!set.has_idle(59_999));
        assert!(set.has_idle(60_000));
        assert_eq!(set.remove_idle(60_000, &mut dict), REQUEST_ROW_SERIES);
        assert_eq!(set.series(), REQUEST_ROW_SERIES);
        assert_eq!(dict.pins(a.record.script_name), 0);
        assert_eq!(dict.pins(b.record.script_name), 1);
        // "/b" goes 60 s after its last request; a request that comes back starts from 0.
        set.remove_idle(90_000, &mut dict);
        assert_eq!(set.series(), 0);
        set.fold(100_000, [view(&a)].into_iter());
        set.label_new_rows(&mut dict);
        let row = set.reports[0].rows.values().next().unwrap();
        assert_eq!(row.requests, 1);
        // Dropping the report drops its series and pins.
        set.set_reports(Vec::new(), &mut dict);
        assert_eq!(set.series(), 0);
        assert_eq!(dict.pins(a.record.script_name), 0);
    }

    #[test]
    fn keys_labelled_alike_show_one_series_with_both_counts() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "by_script", &["script_name", "schema"]);
        let mut set = SeriesSet::new(1000, Duration::from_secs(60));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        // An absent schema and an empty one; two scripts that are not UTF-8, both read as "/\u{FFFD}".
        let absent = req(&mut dict, "/a", 0.01, &[]);
        let mut empty = req(&mut dict, "/a", 0.02, &[]);
        empty.record.schema = dict.intern(b"");
        let mut ff = req(&mut dict, "/a", 0.01, &[]);
        ff.record.script_name = dict.intern(b"/\xff");
        let mut fe = req(&mut dict, "/a", 0.01, &[]);
        fe.record.script_name = dict.intern(b"/\xfe");
        set.fold(0, [&absent, &empty, &ff, &fe].into_iter().map(view));
        set.label_new_rows(&mut dict);
        // After labelling, each key of a pair still counts in the one series.
        set.fold(1_000, [&empty, &fe].into_iter().map(view));
        let t = text(set);
        let a = r#"pinba_requests_total{report="by_script",script_name="/a",schema=""}"#;
        let u = "pinba_requests_total{report=\"by_script\",script_name=\"/\u{FFFD}\",schema=\"\"}";
        for (labels, count) in [(a, 3.0), (u, 3.0)] {
            assert_eq!(t.matches(&format!("{labels} ")).count(), 1, "{t}");
            assert_eq!(sample(&t, labels), Some(count), "{t}");
        }
        let time =
            r#"pinba_request_time_seconds_total{report="by_script",script_name="/a",schema=""}"#;
        assert_eq!(sample(&t, time), Some(0.05), "{t}");
    }

    #[test]
    fn a_row_counting_into_another_goes_with_it_and_releases_its_pins() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "by_script", &["script_name"]);
        let mut set = SeriesSet::new(1000, Duration::from_secs(60));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let mut ff = req(&mut dict, "/a", 0.01, &[]);
        ff.record.script_name = dict.intern(b"\xff");
        let mut fe = req(&mut dict, "/a", 0.01, &[]);
        fe.record.script_name = dict.intern(b"\xfe");
        set.fold(0, [view(&ff)].into_iter());
        set.label_new_rows(&mut dict);
        set.fold(10_000, [view(&fe)].into_iter());
        set.label_new_rows(&mut dict);
        assert_eq!(set.series(), 2 * REQUEST_ROW_SERIES);
        assert_eq!(
            dict.pins(fe.record.script_name),
            1,
            "its id keeps naming its string"
        );
        // The shown row was counted at 10 s too: neither is idle before 70 s.
        assert_eq!(set.remove_idle(69_999, &mut dict), 0);
        assert_eq!(set.remove_idle(70_000, &mut dict), 2 * REQUEST_ROW_SERIES);
        assert_eq!(set.series(), 0);
        assert_eq!(dict.pins(ff.record.script_name), 0);
        assert_eq!(dict.pins(fe.record.script_name), 0);
        // Created again, each starts from its own requests.
        set.fold(80_000, [view(&fe)].into_iter());
        set.label_new_rows(&mut dict);
        assert_eq!(
            sample(
                &text(set),
                "pinba_requests_total{report=\"by_script\",script_name=\"\u{FFFD}\"}"
            ),
            Some(1.0)
        );
    }

    #[test]
    fn timer_reports_count_hits_time_and_requests_once_per_row() {
        let mut dict = Dictionary::new(1000);
        let rep = report(&mut dict, "by_group", &["timer_tag:group"]);
        let mut set = SeriesSet::new(1000, Duration::from_secs(60));
        set.set_reports(vec![exported(&rep, 1)], &mut dict);
        let r = req(
            &mut dict,
            "/a",
            0.1,
            &[("db", 0.004, 2), ("db", 0.002, 1), ("cache", 0.0001, 1)],
        );
        set.fold(0, [view(&r)].into_iter());
        set.label_new_rows(&mut dict);
        let rows = &set.reports[0].rows;
        let db = rows.values().find(|r| &*r.values[0] == "db").unwrap();
        assert_eq!((db.requests, db.hits), (1, 3));
        assert_eq!(db.time_ns, (ns(0.004) + ns(0.002)) as u128);
        // 0.004 s over 2 hits: two samples at 2 ms; one at 2 ms.
        let b = Buckets::new(&DEFAULT_BUCKETS_SECONDS);
        assert_eq!(db.buckets[b.of(2_000_000)], 3);
        assert_eq!(set.series(), 2 * TIMER_ROW_SERIES);
    }

    #[test]
    fn label_names_are_valid_and_distinct() {
        let cols: Vec<String> = [
            "script_name",
            "tag:country",
            "report",
            "le",
            "9x",
            "tag:co-untry",
            "tag_country",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            label_names(&cols),
            [
                "script_name",
                "tag_country",
                "key_report",
                "key_le",
                "key_9x",
                "tag_co_untry",
                "tag_country_2"
            ]
        );
    }
}

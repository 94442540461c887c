//! Comparing two ranges of a report's history (`GET /api/v1/compare`): which rows changed most
//! between range A (before) and range B (after) in rate, p50/p95/p99, error ratio, CPU and memory
//! per request, with the counts behind each, whether each change is more than noise
//! ([`super::stats`]), ranked by the size of the significant changes.
//!
//! Each range is read from the report's fine steps where they cover it, else from its own (so
//! "now against yesterday" reads the last hour's fine steps beside yesterday's coarser ones:
//! rates are per second and percentiles come from the merged histograms, whatever the step),
//! each taken to whole steps: a step belongs to the range its start is in,
//! counted from the step holding `from` to the one before the step holding `to`, so that a step
//! is never counted on both sides of a boundary. Rates divide by the part of that span that has
//! passed (a range reaching past now is not diluted by the future).
//!
//! Error ratios need statuses, which the steps' sums do not hold: a report with a `status` key
//! is compared by its other keys, each row's error ratio the share of its requests with a status
//! of 500 or more; a report without one answers no error ratio.
//!
//! Bounded: each side reads at most [`MAX_KEYS`] rows (its top by time; the rest summed into
//! "(other)"), so the work and what it holds do not grow with the store.

use std::collections::HashMap;

use rusqlite::Connection;
use serde::Serialize;

use super::query::{self, parse_time, ParamError};
use super::stats::{self, Moments};
use super::step::{Part, OTHER};
use super::store::{StoreError, OTHER_ROW};
use crate::report::{csv_field, Kind};

/// Rows each side reads at most: the top by time over its range, the rest into "(other)". A
/// histogram takes from a few dozen bytes to 32 KiB, so a side holds at most some 16 MB.
pub const MAX_KEYS: usize = 500;
/// Rows answered unless `limit` says.
pub const DEFAULT_LIMIT: usize = 20;
/// The p-value below which a change is called significant unless `alpha` says. Low, because a
/// comparison runs up to seven tests on each of hundreds of rows: at 0.05, an unchanged report
/// of 100 rows would flag some 35 changes by chance alone.
pub const DEFAULT_ALPHA: f64 = 0.001;
/// Requests each side needs before its percentiles and error ratio are tested: the
/// two-proportion test's normal approximation is poor below it.
pub const MIN_TESTED: u64 = 10;
/// The range each side spans when `vs` or `at` is given without `span`.
pub const DEFAULT_SPAN_S: i64 = 3600;
/// The longest `span` or `vs`: ten years, as a history's retention.
const MAX_DURATION_S: i64 = 10 * 366 * 86_400;
/// The size given to a change from or to zero (a new row, a row gone, errors from none):
/// `|ln(b/a)|` of a change by a factor of e¹⁰ ≈ 22,000, so such changes rank first, by size.
pub const MAX_EFFECT: f64 = 10.0;
/// What a report whose only key is `status` shows as its one row's key.
pub const ALL: &str = "(all)";

/// A range of time, unix seconds, `from` inclusive, `to` exclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Range {
    pub from: i64,
    pub to: i64,
}

/// A figure compared, in the order answers list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Rate,
    P50,
    P95,
    P99,
    ErrorRatio,
    Cpu,
    Memory,
}

impl Metric {
    pub const ALL: [Metric; 7] = [
        Metric::Rate,
        Metric::P50,
        Metric::P95,
        Metric::P99,
        Metric::ErrorRatio,
        Metric::Cpu,
        Metric::Memory,
    ];

    /// Its name in answers and in `by`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Rate => "rate",
            Metric::P50 => "p50",
            Metric::P95 => "p95",
            Metric::P99 => "p99",
            Metric::ErrorRatio => "error_ratio",
            Metric::Cpu => "cpu_per_request",
            Metric::Memory => "memory_per_request",
        }
    }

    fn percentile(self) -> Option<f64> {
        match self {
            Metric::P50 => Some(50.0),
            Metric::P95 => Some(95.0),
            Metric::P99 => Some(99.0),
            _ => None,
        }
    }
}

/// A parsed comparison.
#[derive(Debug, PartialEq)]
pub struct CompareQuery {
    /// Before.
    pub a: Range,
    /// After.
    pub b: Range,
    pub limit: usize,
    pub alpha: f64,
    /// The figure rows are ranked by; `None`: the largest significant change of any.
    pub by: Option<Metric>,
    pub csv: bool,
}

fn bad(param: &str, why: impl Into<String>) -> ParamError {
    ParamError {
        param: param.to_string(),
        why: why.into(),
    }
}

/// A `span` or `vs`: a duration of whole seconds, more than zero, at most ten years.
fn parse_duration(param: &str, v: &str) -> Result<i64, ParamError> {
    let d = humantime::parse_duration(v)
        .map_err(|e| bad(param, format!("`{v}` is not a duration like \"1h\" ({e})")))?;
    let s = d.as_secs();
    if s == 0 || d.subsec_nanos() != 0 {
        return Err(bad(
            param,
            format!("`{v}` is not a whole number of seconds above 0"),
        ));
    }
    if s > MAX_DURATION_S as u64 {
        return Err(bad(param, format!("`{v}` is longer than ten years")));
    }
    Ok(s as i64)
}

/// Parses the comparison's parameters (`report` is the caller's; see the API contract):
/// explicit ranges (`a_from`, `a_to`, `b_from`, `b_to`), or `vs` (B as given or the last
/// `span`, A the same range `vs` earlier), or `at` (A the `span` before the moment, B the `span`
/// from it: a mark's time fills it). `now_s` for relative times and defaults.
pub fn parse(
    params: &[(String, String)],
    now_s: i64,
    max_limit: usize,
) -> Result<CompareQuery, ParamError> {
    let mut seen: Vec<&str> = Vec::new();
    let mut times: HashMap<&str, i64> = HashMap::new();
    let (mut vs, mut at, mut span, mut limit, mut alpha, mut by, mut csv) =
        (None, None, None, None, None, None, false);
    for (name, value) in params {
        let name = name.as_str();
        if seen.contains(&name) {
            return Err(bad(name, "given twice"));
        }
        seen.push(name);
        match name {
            "report" => {}
            "a_from" | "a_to" | "b_from" | "b_to" => {
                times.insert(name, parse_time(name, value, now_s)?);
            }
            "at" => at = Some(parse_time(name, value, now_s)?),
            "vs" => vs = Some(parse_duration(name, value)?),
            "span" => span = Some(parse_duration(name, value)?),
            "limit" => limit = Some(query::parse_limit(value, max_limit)?),
            "alpha" => {
                let a: f64 = value
                    .parse()
                    .ok()
                    .filter(|a: &f64| *a > 0.0 && *a <= 0.5)
                    .ok_or_else(|| {
                        bad(
                            "alpha",
                            format!("`{value}` is not a number above 0, at most 0.5"),
                        )
                    })?;
                alpha = Some(a);
            }
            "by" => {
                by = match value.as_str() {
                    "any" => None,
                    v => Some(
                        Metric::ALL
                            .into_iter()
                            .find(|m| {
                                m.name() == v
                                    || (v == "cpu" && *m == Metric::Cpu)
                                    || (v == "memory" && *m == Metric::Memory)
                            })
                            .ok_or_else(|| {
                                bad(
                                    "by",
                                    format!(
                                        "`{v}`: expected any, {}",
                                        Metric::ALL.map(Metric::name).join(", ")
                                    ),
                                )
                            })?,
                    ),
                }
            }
            "format" => csv = query::parse_csv(value)?,
            _ => {
                return Err(bad(
                    name,
                    "unknown parameter (expected report, a_from, a_to, b_from, b_to, vs, at, \
                     span, by, alpha, limit, format)",
                ))
            }
        }
    }
    let given = |n: &str| times.get(n).copied();
    let (a, b) = if let Some(at) = at {
        if let Some(n) = ["vs", "a_from", "a_to", "b_from", "b_to"]
            .into_iter()
            .find(|n| seen.contains(n))
        {
            return Err(bad(
                n,
                "`at` sets both ranges: give `at` (and `span`), or the ranges",
            ));
        }
        let span = span.unwrap_or(DEFAULT_SPAN_S);
        (
            Range {
                from: at.saturating_sub(span),
                to: at,
            },
            Range {
                from: at,
                to: at.saturating_add(span),
            },
        )
    } else if let Some(vs) = vs {
        if let Some(n) = ["a_from", "a_to"].into_iter().find(|n| seen.contains(n)) {
            return Err(bad(
                n,
                "`vs` sets range A from range B: give `vs` or `a_from` and `a_to`",
            ));
        }
        let to = given("b_to").unwrap_or(now_s);
        let from = match (given("b_from"), span) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "span",
                    "`b_from` and `span` both set where range B starts",
                ))
            }
            (Some(f), None) => f,
            (None, span) => to.saturating_sub(span.unwrap_or(DEFAULT_SPAN_S)),
        };
        let b = Range { from, to };
        (
            Range {
                from: from.saturating_sub(vs),
                to: to.saturating_sub(vs),
            },
            b,
        )
    } else {
        if span.is_some() {
            return Err(bad("span", "`span` goes with `vs` or `at`"));
        }
        let need = |n: &str| {
            given(n).ok_or_else(|| {
                bad(
                    n,
                    "missing: give `a_from`, `a_to`, `b_from` and `b_to`, or `vs` (with `span`), \
                     or `at` (with `span`)",
                )
            })
        };
        (
            Range {
                from: need("a_from")?,
                to: need("a_to")?,
            },
            Range {
                from: need("b_from")?,
                to: need("b_to")?,
            },
        )
    };
    for (side, r) in [("a", a), ("b", b)] {
        if r.from >= r.to {
            let own = format!("{side}_from");
            let param = if at.is_some() {
                "at"
            } else if vs.is_none() || seen.contains(&own.as_str()) {
                own.as_str()
            } else {
                "b_from"
            };
            return Err(bad(
                param,
                format!(
                    "range {} from {} to {} holds no time (`from` must be before `to`)",
                    side.to_uppercase(),
                    r.from,
                    r.to
                ),
            ));
        }
    }
    Ok(CompareQuery {
        a,
        b,
        limit: limit.unwrap_or(DEFAULT_LIMIT.min(max_limit)),
        alpha: alpha.unwrap_or(DEFAULT_ALPHA),
        by,
        csv,
    })
}

/// What the comparison knows of the report.
#[derive(Clone, Debug)]
pub struct Shape {
    pub name: String,
    pub kind: Kind,
    /// Column names of the report's keys, `status` included.
    pub key_columns: Vec<String>,
}

impl Shape {
    /// The index of the `status` key column, by which error ratios are counted.
    fn status_at(&self) -> Option<usize> {
        self.key_columns.iter().position(|c| c == "status")
    }

    /// The key columns the answer's rows have: the report's, `status` left out.
    pub fn row_columns(&self) -> Vec<String> {
        let at = self.status_at();
        (0..self.key_columns.len())
            .filter(|i| Some(*i) != at)
            .map(|i| self.key_columns[i].clone())
            .collect()
    }
}

/// `r` taken to whole steps of `step_s` (see the module docs), and the seconds of it that have
/// passed by `now_s`.
pub fn align(r: Range, step_s: i64, now_s: i64) -> (Range, i64) {
    let step = step_s.max(1);
    let down = |t: i64| t.div_euclid(step) * step;
    let aligned = Range {
        from: down(r.from),
        to: down(r.to),
    };
    let passed = (aligned.to.min(down(now_s)) - aligned.from).max(0);
    (aligned, passed)
}

/// A row's figures on one side: its sums and histogram, and its errors when counted.
#[derive(Clone, Debug)]
pub struct Acc {
    pub part: Part,
    /// Requests with a status of 500 or more; `None` when not known (no `status` key, or the
    /// "(other)" row, whose statuses were summed away, or the totals).
    pub errors: Option<u64>,
    /// CPU (`ru_utime + ru_stime`, seconds) per request of each stored step of the row, and
    /// `memory_peak` per request (bytes): what their changes are tested on (see
    /// `stats::welch`).
    pub cpu: Moments,
    pub memory: Moments,
}

impl Default for Acc {
    /// Nothing yet: no errors among no requests, known until a part without them is added.
    fn default() -> Acc {
        Acc {
            part: Part::default(),
            errors: Some(0),
            cpu: Moments::default(),
            memory: Moments::default(),
        }
    }
}

impl Acc {
    /// Adds a stored step of the row: its sums and histogram, its errors, and its CPU and memory
    /// per request as one observation each (a step without requests has none).
    fn add(&mut self, part: &Part, errors: Option<u64>) {
        self.part.add_part(part);
        self.errors = self.errors.zip(errors).map(|(a, e)| a.saturating_add(e));
        let s = &part.sums;
        if s.req_count > 0 {
            let n = s.req_count as f64;
            let cpu_ns = s.ru_utime_ns.get().saturating_add(s.ru_stime_ns.get());
            self.cpu.push(cpu_ns as f64 / n / 1e9);
            self.memory.push(s.memory_peak_bytes.get() as f64 / n);
        }
    }
}

/// One side's rows, read from the store.
#[derive(Debug, Default)]
pub struct Side {
    pub rows: HashMap<Vec<String>, Acc>,
    pub other: Option<Acc>,
    pub totals: Acc,
    /// Seconds of the range that have passed: what its rates divide by.
    pub seconds: i64,
    pub range: Range,
    /// The step of the stored steps read, seconds.
    pub step: i64,
    pub damaged_rows: u64,
}

impl Side {
    /// Heap bytes the side holds (what its answer counts in the memory budget while built).
    pub fn bytes(&self) -> usize {
        let slot = std::mem::size_of::<(Vec<String>, Acc)>();
        let rows: usize = self
            .rows
            .iter()
            .map(|(k, a)| {
                slot + k.iter().map(|s| s.capacity() + 24).sum::<usize>() + a.part.hist.heap_bytes()
            })
            .sum();
        rows + self.other.as_ref().map_or(0, |o| o.part.hist.heap_bytes())
            + self.totals.part.hist.heap_bytes()
    }
}

/// Bytes a row of a side is counted at before it is read beside its key's text and histogram:
/// its slot in the rows' map, its figures, and what the key's strings take beyond their text.
const ROW_BYTES: u64 = 512;

/// What reading the side of `range` of the report stored as `report_id` holds at most, known
/// before a row is read (for the memory budget): a row per key (at most the stored rows in the
/// range, counted in the index alone, and at most [`MAX_KEYS`]), each with its key's text
/// three times (the stored text and the parsed key in the top keys' map, the parsed key again
/// in the rows'), each of its strings at `max_string_bytes` (`limits.max_string_bytes`, which
/// the strings are cut to), and its histogram at its largest; and the "(other)" row's and the
/// totals' histograms. Why before: a side is read whole (its top keys are known only once the
/// range is), up to tens of MB, so it is counted at this bound first, a 503 before any row is
/// read when the budget has no room for it, then at what it holds ([`Side::bytes`]).
pub fn estimate(
    conn: &Connection,
    report_id: i64,
    shape: &Shape,
    range: Range,
    max_string_bytes: usize,
) -> Result<u64, StoreError> {
    let rows: i64 = if shape.key_columns.is_empty() {
        0
    } else {
        conn.prepare_cached(&query::count_sql(false))?
            .query_row(rusqlite::params![report_id, range.from, range.to], |r| {
                r.get(0)
            })?
    };
    let keys = (rows.max(0) as u64).min(MAX_KEYS as u64);
    let key = 3 * shape.key_columns.len() as u64 * (max_string_bytes as u64 + 32);
    let row = ROW_BYTES + key + query::HIST_BYTES;
    Ok(keys
        .saturating_mul(row)
        .saturating_add(2 * (ROW_BYTES + query::HIST_BYTES)))
}

/// Reads the side of `range` (aligned to `step`, `seconds` passed) of the report stored as
/// `report_id`.
pub fn read_side(
    conn: &Connection,
    report_id: i64,
    shape: &Shape,
    (range, seconds, step): (Range, i64, i64),
) -> Result<Side, StoreError> {
    let mut side = Side {
        seconds,
        range,
        step,
        ..Side::default()
    };
    // The totals hold every status: their errors are not known.
    side.totals.errors = None;
    let (lo, hi) = (range.from, range.to);
    {
        let mut stmt = conn.prepare_cached(&query::totals_sql())?;
        let mut rows = stmt.query(rusqlite::params![report_id, lo, hi])?;
        while let Some(row) = rows.next()? {
            if let Some(part) = query::part_or_skip(row, 1, true, &mut side.damaged_rows)? {
                side.totals.add(&part, None);
            }
        }
    }
    if shape.key_columns.is_empty() {
        return Ok(side);
    }
    let top: Vec<Option<String>> = conn
        .prepare_cached(&query::top_sql("", 4))?
        .query_map(rusqlite::params![report_id, lo, hi, MAX_KEYS as i64], |r| {
            Ok(r.get(0).ok())
        })?
        .collect::<Result<_, _>>()?;
    // Stored key text → the row's key (status left out) and whether it counts as an error.
    let status_at = shape.status_at();
    let mut keys: HashMap<String, (Vec<String>, Option<bool>)> = HashMap::new();
    for k in top {
        let parsed = k
            .as_deref()
            .and_then(|k| serde_json::from_str::<Vec<String>>(k).ok())
            .filter(|v| v.len() == shape.key_columns.len());
        let (Some(k), Some(mut key)) = (k, parsed) else {
            side.damaged_rows += 1;
            continue;
        };
        let error = status_at.map(|i| {
            let status = key.remove(i);
            status.parse::<u32>().is_ok_and(|s| s >= 500)
        });
        if key.is_empty() {
            key.push(ALL.to_string());
        }
        keys.insert(k, (key, error));
    }
    let mut stmt = conn.prepare_cached(&query::rows_sql())?;
    let mut rows = stmt.query(rusqlite::params![report_id, lo, hi])?;
    while let Some(row) = rows.next()? {
        let kind: i64 = row.get(1)?;
        let found = if kind == OTHER_ROW {
            None
        } else {
            let Ok(key) = row.get_ref(2)?.as_str() else {
                continue;
            };
            keys.get(key)
        };
        let Some(part) = query::part_or_skip(row, 3, true, &mut side.damaged_rows)? else {
            continue;
        };
        match found {
            Some((key, error)) => {
                let errors = error.map(|e| if e { part.sums.req_count } else { 0 });
                side.rows.entry(key.clone()).or_default().add(&part, errors);
            }
            None => side.other.get_or_insert_with(Acc::default).add(&part, None),
        }
    }
    Ok(side)
}

/// A row's figures on one side, as answered.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub requests: u64,
    /// Requests a second over the part of the range that has passed.
    pub rate: Option<f64>,
    /// Seconds.
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    /// Requests with a status of 500 or more; null when the report has no `status` key.
    pub errors: Option<u64>,
    pub error_ratio: Option<f64>,
    /// `ru_utime + ru_stime` per request, seconds.
    pub cpu_per_request: Option<f64>,
    /// `memory_peak` per request, bytes.
    pub memory_per_request: Option<f64>,
}

fn figures(acc: Option<&Acc>, seconds: i64) -> Figures {
    let Some(acc) = acc else {
        return Figures {
            rate: (seconds > 0).then_some(0.0),
            ..Figures::default()
        };
    };
    let s = &acc.part.sums;
    let n = s.req_count;
    let per = |v: u128| (n > 0).then(|| v as f64 / n as f64);
    let pct = |p| acc.part.hist.percentile_ns(p).map(|ns| ns / 1e9);
    Figures {
        requests: n,
        rate: (seconds > 0).then(|| n as f64 / seconds as f64),
        p50: pct(50.0),
        p95: pct(95.0),
        p99: pct(99.0),
        errors: acc.errors,
        error_ratio: acc.errors.and_then(|e| per(e as u128)),
        cpu_per_request: per(s.ru_utime_ns.get().saturating_add(s.ru_stime_ns.get()))
            .map(|ns| ns / 1e9),
        memory_per_request: per(s.memory_peak_bytes.get()),
    }
}

impl Figures {
    fn value(&self, m: Metric) -> Option<f64> {
        match m {
            Metric::Rate => self.rate,
            Metric::P50 => self.p50,
            Metric::P95 => self.p95,
            Metric::P99 => self.p99,
            Metric::ErrorRatio => self.error_ratio,
            Metric::Cpu => self.cpu_per_request,
            Metric::Memory => self.memory_per_request,
        }
    }
}

/// One figure's change from A to B.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub metric: &'static str,
    /// B − A.
    pub change: Option<f64>,
    /// B / A (null when A is 0).
    pub ratio: Option<f64>,
    /// The test's two-sided p-value; null when untested: too few requests, CPU or memory with
    /// fewer than two steps on a side (their test is over the steps' means), or a side without
    /// the figure.
    pub p_value: Option<f64>,
    /// `p_value < alpha`; null when untested.
    pub significant: Option<bool>,
    /// `|ln(B/A)|`, at most [`MAX_EFFECT`] (a change from or to 0): how large the change is,
    /// whatever its direction; what rows are ranked by.
    pub effect: f64,
}

/// The size of a change from `a` to `b` (see [`Change::effect`]).
pub fn effect(a: Option<f64>, b: Option<f64>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => (b / a).ln().abs().min(MAX_EFFECT),
        (Some(a), Some(b)) if a == b => 0.0,
        (Some(_), Some(_)) => MAX_EFFECT,
        _ => 0.0,
    }
}

/// The p-value of `m`'s change between sides `a` and `b` (see [`Change::p_value`]).
fn p_value(m: Metric, a: Option<&Acc>, b: Option<&Acc>, (ta, tb): (i64, i64)) -> Option<f64> {
    let count = |x: Option<&Acc>| x.map_or(0, |x| x.part.sums.req_count);
    let (na, nb) = (count(a), count(b));
    let enough = na >= MIN_TESTED && nb >= MIN_TESTED;
    match m {
        Metric::Rate => stats::poisson_rates(na, ta as f64, nb, tb as f64),
        Metric::P50 | Metric::P95 | Metric::P99 if enough => {
            stats::quantile_test(&a?.part.hist, &b?.part.hist, m.percentile()?)
        }
        Metric::ErrorRatio if enough => stats::two_proportions(a?.errors?, na, b?.errors?, nb),
        Metric::Cpu if enough => stats::welch(&a?.cpu, &b?.cpu),
        Metric::Memory if enough => stats::welch(&a?.memory, &b?.memory),
        _ => None,
    }
}

/// A compared row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub key: Vec<String>,
    pub other: bool,
    /// Whether a change counted in its rank is significant (any figure's, or `by`'s).
    pub significant: bool,
    /// What it is ranked by: the largest effect among its significant changes (or `by`'s
    /// effect when significant, or untested); 0 when none.
    pub score: f64,
    pub a: Figures,
    pub b: Figures,
    pub changes: Vec<Change>,
}

/// Compares a row's sides.
pub fn compare_row(
    key: Vec<String>,
    other: bool,
    (a, b): (Option<&Acc>, Option<&Acc>),
    seconds: (i64, i64),
    alpha: f64,
    by: Option<Metric>,
) -> Row {
    let (fa, fb) = (figures(a, seconds.0), figures(b, seconds.1));
    let changes: Vec<Change> = Metric::ALL
        .into_iter()
        .map(|m| {
            let (va, vb) = (fa.value(m), fb.value(m));
            let p = p_value(m, a, b, seconds);
            Change {
                metric: m.name(),
                change: va.zip(vb).map(|(a, b)| b - a),
                ratio: va.zip(vb).filter(|(a, _)| *a != 0.0).map(|(a, b)| b / a),
                p_value: p,
                significant: p.map(|p| p < alpha),
                effect: effect(va, vb),
            }
        })
        .collect();
    let counted = |c: &&Change| by.is_none_or(|m| c.metric == m.name());
    let significant = changes
        .iter()
        .filter(counted)
        .any(|c| c.significant == Some(true));
    let score = changes
        .iter()
        .filter(counted)
        .filter(|c| c.significant == Some(true) || (by.is_some() && c.significant.is_none()))
        .map(|c| c.effect)
        .fold(0.0, f64::max);
    Row {
        key,
        other,
        significant,
        score,
        a: fa,
        b: fb,
        changes,
    }
}

/// The order of the answer: significant rows first, by score (largest first), then by requests
/// on both sides, then by key; the first `limit` are kept.
pub fn rank(rows: &mut Vec<Row>, limit: usize) {
    rows.sort_by(|x, y| {
        y.significant
            .cmp(&x.significant)
            .then(y.score.total_cmp(&x.score))
            .then((y.a.requests + y.b.requests).cmp(&(x.a.requests + x.b.requests)))
            .then_with(|| x.key.cmp(&y.key))
    });
    rows.truncate(limit);
}

/// The comparison's answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    pub report: String,
    pub kind: Kind,
    /// The rows' key columns (the report's, `status` left out).
    pub key_columns: Vec<String>,
    /// `status` when error ratios are counted (the report has the key), else null.
    pub errors_from: Option<&'static str>,
    pub alpha: f64,
    pub by: &'static str,
    pub a: SideOut,
    pub b: SideOut,
    /// Rows compared (both sides' keys), before `limit`.
    pub rows_compared: usize,
    /// Of them, those with a significant change (as ranked).
    pub significant_rows: usize,
    pub damaged_rows: u64,
    /// The report's totals, compared (all requests, whatever row they were in).
    pub total: Row,
    pub rows: Vec<Row>,
}

/// A side of the answer: its range as read (whole steps), the seconds of it passed, and the
/// step of the stored steps read (each side its own: the fine steps where they cover it).
#[derive(Debug, Serialize)]
pub struct SideOut {
    pub from: i64,
    pub to: i64,
    pub seconds: i64,
    pub step: i64,
}

/// Compares two sides read for `shape` under `q`.
pub fn compare(shape: &Shape, q: &CompareQuery, a: &Side, b: &Side) -> Answer {
    let seconds = (a.seconds, b.seconds);
    let mut rows: Vec<Row> = Vec::with_capacity(a.rows.len() + b.rows.len() + 1);
    for (key, acc) in &a.rows {
        rows.push(compare_row(
            key.clone(),
            false,
            (Some(acc), b.rows.get(key)),
            seconds,
            q.alpha,
            q.by,
        ));
    }
    for (key, acc) in b.rows.iter().filter(|(k, _)| !a.rows.contains_key(*k)) {
        rows.push(compare_row(
            key.clone(),
            false,
            (None, Some(acc)),
            seconds,
            q.alpha,
            q.by,
        ));
    }
    if a.other.is_some() || b.other.is_some() {
        let width = shape.row_columns().len().max(1);
        rows.push(compare_row(
            vec![OTHER.to_string(); width],
            true,
            (a.other.as_ref(), b.other.as_ref()),
            seconds,
            q.alpha,
            q.by,
        ));
    }
    let rows_compared = rows.len();
    let significant_rows = rows.iter().filter(|r| r.significant).count();
    rank(&mut rows, q.limit);
    let total = compare_row(
        Vec::new(),
        false,
        (Some(&a.totals), Some(&b.totals)),
        seconds,
        q.alpha,
        q.by,
    );
    let side = |s: &Side| SideOut {
        from: s.range.from,
        to: s.range.to,
        seconds: s.seconds,
        step: s.step,
    };
    Answer {
        report: shape.name.clone(),
        kind: shape.kind,
        key_columns: shape.row_columns(),
        errors_from: shape.status_at().map(|_| "status"),
        alpha: q.alpha,
        by: q.by.map_or("any", Metric::name),
        a: side(a),
        b: side(b),
        rows_compared,
        significant_rows,
        damaged_rows: a.damaged_rows + b.damaged_rows,
        total,
        rows,
    }
}

/// The CSV answer: a line per ranked row: its key columns, `other`, `significant`, `score`,
/// the requests of each side, then for each figure its value on each side, change, ratio and
/// p-value (`a_rate,b_rate,rate_change,rate_ratio,rate_p_value`, ...).
pub fn to_csv(answer: &Answer) -> String {
    let (mut out, width) = csv_header(answer);
    for r in &answer.rows {
        csv_line(&mut out, r, width);
    }
    out
}

/// The CSV answer's header line, and how many key columns its lines have.
fn csv_header(answer: &Answer) -> (String, usize) {
    let mut header: Vec<String> = answer.key_columns.clone();
    if header.is_empty() && answer.rows.iter().any(|r| !r.key.is_empty()) {
        header.push("key".into());
    }
    let width = header.len();
    header.extend(["other", "significant", "score", "a_requests", "b_requests"].map(String::from));
    for m in Metric::ALL {
        let n = m.name();
        header.extend([
            format!("a_{n}"),
            format!("b_{n}"),
            format!("{n}_change"),
            format!("{n}_ratio"),
            format!("{n}_p_value"),
        ]);
    }
    let mut out = String::new();
    csv_cells(&mut out, &header);
    (out, width)
}

/// A CSV line of `cells`.
fn csv_cells(out: &mut String, cells: &[String]) {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        csv_field(out, c);
    }
    out.push_str("\r\n");
}

/// Row `r`'s CSV line, with `width` key columns.
fn csv_line(out: &mut String, r: &Row, width: usize) {
    let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let mut cells: Vec<String> = (0..width)
        .map(|i| r.key.get(i).cloned().unwrap_or_default())
        .collect();
    cells.extend([
        r.other.to_string(),
        r.significant.to_string(),
        r.score.to_string(),
        r.a.requests.to_string(),
        r.b.requests.to_string(),
    ]);
    for (m, c) in Metric::ALL.into_iter().zip(&r.changes) {
        cells.extend([
            num(r.a.value(m)),
            num(r.b.value(m)),
            num(c.change),
            num(c.ratio),
            num(c.p_value),
        ]);
    }
    csv_cells(out, &cells);
}

/// Heap bytes a ranked row holds: its place in the answer's list, its key and its changes.
fn row_bytes(r: &Row) -> u64 {
    let key: usize = r.key.iter().map(|k| k.capacity() + BLOCK_OVERHEAD).sum();
    (std::mem::size_of::<Row>()
        + key
        + r.key.capacity() * std::mem::size_of::<String>()
        + r.changes.capacity() * std::mem::size_of::<Change>()
        + 2 * BLOCK_OVERHEAD) as u64
}

/// What the allocator adds to each block (glibc: a size word, and 16-byte rounding).
const BLOCK_OVERHEAD: usize = 16;

/// A comparison's answer being rendered a chunk at a time, JSON or CSV (see `query::Chunked`),
/// its bytes exactly those of `serde_json::to_string` or [`to_csv`] of the whole. Why: as a
/// history answer, it is counted in the memory budget while its client reads it, and the text
/// of the whole is never held.
pub type Rendering = query::Chunked<RowPieces>;

/// What is left of a comparison's rows: a piece is a row.
pub struct RowPieces {
    rows: std::vec::IntoIter<Row>,
    /// Key columns of a CSV line.
    width: usize,
    rendered: usize,
    /// Scratch for a CSV line.
    line: String,
}

impl Rendering {
    /// `answer` rendered as CSV (`csv`) or JSON.
    pub fn new(mut answer: Answer, csv: bool) -> Rendering {
        let rows = std::mem::take(&mut answer.rows);
        let held = rows.iter().map(row_bytes).sum::<u64>()
            + (rows.capacity() * std::mem::size_of::<Row>()) as u64;
        let (head, width) = if csv {
            // The header names a `key` column when the rows have keys and the report none.
            answer.rows = rows
                .iter()
                .find(|r| !r.key.is_empty())
                .cloned()
                .into_iter()
                .collect();
            let (head, width) = csv_header(&answer);
            (head.into_bytes(), width)
        } else {
            let mut head =
                serde_json::to_vec(&answer).expect("strings, numbers and options always serialize");
            // The rows' list is filled by the chunks: it is the last field.
            debug_assert!(head.ends_with(b"[]}"));
            head.truncate(head.len() - 2);
            (head, 0)
        };
        let pieces = RowPieces {
            rows: rows.into_iter(),
            width,
            rendered: 0,
            line: String::new(),
        };
        query::Chunked::of_pieces(csv, head, pieces, held)
    }
}

impl query::Pieces for RowPieces {
    fn next_piece(&mut self, out: &mut Vec<u8>, csv: bool) -> Option<u64> {
        let r = self.rows.next()?;
        if csv {
            self.line.clear();
            csv_line(&mut self.line, &r, self.width);
            out.extend_from_slice(self.line.as_bytes());
        } else {
            if self.rendered > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, &r).expect("rows always serialize");
        }
        self.rendered += 1;
        Some(row_bytes(&r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::Histogram;
    use crate::report::Sums;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const NOW: i64 = 1_000_000;

    fn parsed(v: &[(&str, &str)]) -> Result<CompareQuery, ParamError> {
        parse(&pairs(v), NOW, 1000)
    }

    fn param_of(v: &[(&str, &str)]) -> String {
        parsed(v).unwrap_err().param
    }

    #[test]
    fn the_ranges_come_from_vs_at_or_the_four_bounds() {
        let q = parsed(&[("report", "r"), ("vs", "1d")]).unwrap();
        assert_eq!(
            q.b,
            Range {
                from: NOW - 3600,
                to: NOW
            }
        );
        assert_eq!(
            q.a,
            Range {
                from: NOW - 86_400 - 3600,
                to: NOW - 86_400
            }
        );
        assert_eq!((q.limit, q.alpha, q.by, q.csv), (20, 0.001, None, false));
        let q = parsed(&[("vs", "7d"), ("span", "10m"), ("b_to", "-5m")]).unwrap();
        assert_eq!(
            q.b,
            Range {
                from: NOW - 900,
                to: NOW - 300
            }
        );
        assert_eq!(q.a.to, NOW - 300 - 7 * 86_400);
        let q = parsed(&[
            ("at", "-30s"),
            ("span", "20s"),
            ("by", "p95"),
            ("format", "csv"),
        ])
        .unwrap();
        assert_eq!(
            q.a,
            Range {
                from: NOW - 50,
                to: NOW - 30
            }
        );
        assert_eq!(
            q.b,
            Range {
                from: NOW - 30,
                to: NOW - 10
            }
        );
        assert_eq!((q.by, q.csv), (Some(Metric::P95), true));
        let q = parsed(&[
            ("a_from", "100"),
            ("a_to", "200"),
            ("b_from", "1970-01-01T00:05:00Z"),
            ("b_to", "now"),
            ("limit", "3"),
            ("alpha", "0.05"),
            ("by", "cpu"),
        ])
        .unwrap();
        assert_eq!(q.a, Range { from: 100, to: 200 });
        assert_eq!(q.b, Range { from: 300, to: NOW });
        assert_eq!((q.limit, q.alpha, q.by), (3, 0.05, Some(Metric::Cpu)));
    }

    #[test]
    fn bad_parameters_are_named() {
        assert_eq!(param_of(&[]), "a_from");
        assert_eq!(
            param_of(&[("a_from", "-2h"), ("a_to", "-1h"), ("b_from", "-1h")]),
            "b_to"
        );
        assert_eq!(param_of(&[("vs", "1h"), ("at", "-1m")]), "vs");
        assert_eq!(param_of(&[("at", "-1m"), ("a_from", "-1h")]), "a_from");
        assert_eq!(param_of(&[("vs", "1h"), ("a_to", "-1h")]), "a_to");
        assert_eq!(param_of(&[("vs", "soon")]), "vs");
        assert_eq!(param_of(&[("vs", "0s")]), "vs");
        assert_eq!(param_of(&[("vs", "1500ms")]), "vs");
        assert_eq!(param_of(&[("vs", "20y")]), "vs");
        assert_eq!(param_of(&[("at", "yesterday")]), "at");
        assert_eq!(
            param_of(&[("vs", "1h"), ("span", "1h"), ("b_from", "-1h")]),
            "span"
        );
        assert_eq!(
            param_of(&[
                ("a_from", "-1h"),
                ("a_to", "-1h"),
                ("b_from", "-1h"),
                ("b_to", "now")
            ]),
            "a_from"
        );
        assert_eq!(
            param_of(&[("vs", "1h"), ("b_from", "now"), ("b_to", "-1h")]),
            "b_from"
        );
        assert_eq!(param_of(&[("vs", "1h"), ("limit", "1001")]), "limit");
        assert_eq!(param_of(&[("vs", "1h"), ("limit", "-1")]), "limit");
        assert_eq!(param_of(&[("vs", "1h"), ("alpha", "0")]), "alpha");
        assert_eq!(param_of(&[("vs", "1h"), ("alpha", "NaN")]), "alpha");
        assert_eq!(param_of(&[("vs", "1h"), ("by", "speed")]), "by");
        assert_eq!(param_of(&[("vs", "1h"), ("format", "xml")]), "format");
        assert_eq!(param_of(&[("vs", "1h"), ("vs", "1d")]), "vs");
        assert_eq!(param_of(&[("vs", "1h"), ("colour", "red")]), "colour");
        assert_eq!(param_of(&[("span", "1h"), ("a_from", "-1h")]), "span");
    }

    #[test]
    fn ranges_are_taken_to_whole_steps_and_rates_to_the_time_passed() {
        // The step holding `from` in, the one holding `to` out.
        let (r, s) = align(Range { from: 130, to: 250 }, 60, 10_000);
        assert_eq!((r, s), (Range { from: 120, to: 240 }, 120));
        // Reaching past now: only the steps passed count.
        let (r, s) = align(Range { from: 120, to: 600 }, 60, 301);
        assert_eq!((r, s), (Range { from: 120, to: 600 }, 180));
        // All in the future.
        assert_eq!(align(Range { from: 500, to: 600 }, 60, 301).1, 0);
    }

    fn acc(n: u64, ms: u64, errors: Option<u64>) -> Acc {
        let mut hist = Histogram::new();
        // Spread over ±20 % so that the percentiles differ.
        for i in 0..n {
            hist.add((ms * 1_000_000) * (80 + (i % 41)) / 100, 1);
        }
        let sums = Sums {
            req_count: n,
            ..Sums::default()
        };
        Acc {
            part: Part { sums, hist },
            errors,
            ..Acc::default()
        }
    }

    /// A row's side of `steps` stored steps of 20 requests of 10 ms each, whose CPU per request
    /// is `cpu_ms` (plus 0 to 2 ms by step: a spread to test against) and memory 2 MB per
    /// request.
    fn stepped(steps: u64, cpu_ms: f64) -> Acc {
        stepped_from(0, steps, cpu_ms)
    }

    /// [`stepped`], its spread starting `shift` steps on.
    fn stepped_from(shift: u64, steps: u64, cpu_ms: f64) -> Acc {
        let mut acc = Acc::default();
        for i in shift..shift + steps {
            let n = 20;
            let mut hist = Histogram::new();
            hist.add(10_000_000, n);
            let cpu_ns = ((cpu_ms + 0.5 * (i % 5) as f64) * 1e6) as u64 * n;
            let sums = Sums {
                req_count: n,
                time_ns: (10_000_000 * n).into(),
                ru_utime_ns: (cpu_ns / 2).into(),
                ru_stime_ns: (cpu_ns - cpu_ns / 2).into(),
                memory_peak_bytes: (2_000_000 * n).into(),
                ..Sums::default()
            };
            acc.add(&Part { sums, hist }, Some(0));
        }
        acc
    }

    /// CPU per request doubled (10 → 20 ms, the steps' means spread over 2 ms): Welch's test of
    /// the steps' means says so (p far below alpha) and ranks the row by it, while the memory
    /// (unchanged) and an unchanged CPU are not flagged; a side of one step is not tested.
    #[test]
    fn cpu_and_memory_are_tested_over_the_steps_means_and_ranked() {
        let row = |name: &str, a: &Acc, b: &Acc| {
            compare_row(
                vec![name.into()],
                false,
                (Some(a), Some(b)),
                (30, 30),
                DEFAULT_ALPHA,
                None,
            )
        };
        let heavier = row("/heavier", &stepped(30, 10.0), &stepped(30, 20.0));
        let cpu = &heavier.changes[5];
        assert_eq!(cpu.metric, "cpu_per_request");
        assert_eq!(cpu.significant, Some(true), "{cpu:?}");
        assert!(cpu.p_value.unwrap() < 1e-10, "{cpu:?}");
        assert!(close(cpu.ratio.unwrap(), 21.0 / 11.0, 1e-6), "{cpu:?}");
        let memory = &heavier.changes[6];
        assert_eq!(memory.metric, "memory_per_request");
        assert_eq!(
            (memory.p_value, memory.significant),
            (Some(1.0), Some(false))
        );
        // Only the CPU changed: it is what the row is ranked by.
        assert!(heavier.significant);
        assert!(close(heavier.score, (21.0f64 / 11.0).ln(), 1e-6));
        // The same CPU, its steps' spread in another order: not flagged.
        let same = row("/same", &stepped(30, 10.0), &stepped_from(2, 30, 10.0));
        let c = &same.changes[5];
        assert!(c.p_value.unwrap() > 0.5, "{c:?}");
        assert!(!same.significant, "{same:?}");
        let mut rows = vec![same.clone(), heavier.clone()];
        rank(&mut rows, 10);
        assert_eq!(rows[0].key[0], "/heavier");
        // One step a side: no spread of the steps to test against.
        let one = row("/one", &stepped(1, 10.0), &stepped(1, 20.0));
        assert_eq!(one.changes[5].p_value, None);
        assert_eq!(one.changes[6].p_value, None);
    }

    #[test]
    fn a_slowed_row_is_significant_and_an_unchanged_one_is_not() {
        let slowed = compare_row(
            vec!["/slow".into()],
            false,
            (Some(&acc(200, 10, None)), Some(&acc(200, 30, None))),
            (10, 10),
            DEFAULT_ALPHA,
            None,
        );
        assert!(slowed.significant);
        let p95 = &slowed.changes[2];
        assert_eq!(p95.metric, "p95");
        assert_eq!(p95.significant, Some(true));
        assert!(close(p95.ratio.unwrap(), 3.0, 0.02), "{p95:?}");
        assert!(close(slowed.score, 3f64.ln(), 0.02), "{}", slowed.score);
        // The rate did not change: tested, not significant; no errors counted: untested.
        assert!(slowed.changes[0].p_value.unwrap() > 0.99);
        assert_eq!(slowed.changes[0].significant, Some(false));
        assert_eq!(slowed.changes[4].p_value, None);
        let same = compare_row(
            vec!["/same".into()],
            false,
            (Some(&acc(200, 10, None)), Some(&acc(200, 10, None))),
            (10, 10),
            DEFAULT_ALPHA,
            None,
        );
        assert!(!same.significant);
        assert_eq!(same.score, 0.0);
        assert!(same.changes.iter().all(|c| c.significant != Some(true)));
        // Too few requests to test percentiles.
        let few = compare_row(
            vec!["/few".into()],
            false,
            (Some(&acc(5, 10, None)), Some(&acc(5, 50, None))),
            (10, 10),
            DEFAULT_ALPHA,
            None,
        );
        assert_eq!(few.changes[2].p_value, None);
        assert!(!few.significant);
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn errors_rates_and_new_rows_are_tested_and_ranked_by_size() {
        let seconds = (100, 100);
        let row = |name: &str, a: Option<Acc>, b: Option<Acc>, by| {
            compare_row(
                vec![name.into()],
                false,
                (a.as_ref(), b.as_ref()),
                seconds,
                DEFAULT_ALPHA,
                by,
            )
        };
        // Errors from 1 % to 20 %: significant, ratio 20.
        let errors = row(
            "/errors",
            Some(acc(1000, 10, Some(10))),
            Some(acc(1000, 10, Some(200))),
            None,
        );
        let e = &errors.changes[4];
        assert_eq!((e.metric, e.significant), ("error_ratio", Some(true)));
        assert!(close(e.ratio.unwrap(), 20.0, 1e-9));
        assert!(close(errors.score, 20f64.ln(), 1e-9));
        // Twice the rate.
        let busier = row(
            "/busier",
            Some(acc(1000, 10, Some(0))),
            Some(acc(2000, 10, Some(0))),
            None,
        );
        assert!(busier.significant);
        assert!(close(busier.score, 2f64.ln(), 1e-9), "{}", busier.score);
        // A new row: from no requests to 100.
        let new = row("/new", None, Some(acc(100, 10, Some(0))), None);
        assert!(new.significant);
        assert_eq!(new.score, MAX_EFFECT);
        let quiet = row(
            "/quiet",
            Some(acc(1000, 10, Some(0))),
            Some(acc(1000, 10, Some(0))),
            None,
        );
        let slight = row(
            "/slight",
            Some(acc(100, 10, Some(0))),
            Some(acc(103, 10, Some(0))),
            None,
        );
        assert!(!slight.significant, "{slight:?}");
        let mut rows = vec![
            quiet.clone(),
            busier.clone(),
            slight.clone(),
            new.clone(),
            errors.clone(),
        ];
        rank(&mut rows, 10);
        let order: Vec<&str> = rows.iter().map(|r| r.key[0].as_str()).collect();
        // Significant by size, then the others by requests.
        assert_eq!(order, ["/new", "/errors", "/busier", "/quiet", "/slight"]);
        rank(&mut rows, 2);
        assert_eq!(rows.len(), 2);
        // Ranked by one figure: the rate's change only.
        let by = Some(Metric::Rate);
        let mut rows = vec![
            row(
                "/errors",
                Some(acc(1000, 10, Some(10))),
                Some(acc(1000, 10, Some(200))),
                by,
            ),
            row(
                "/busier",
                Some(acc(1000, 10, Some(0))),
                Some(acc(2000, 10, Some(0))),
                by,
            ),
        ];
        rank(&mut rows, 10);
        assert_eq!(rows[0].key[0], "/busier");
        assert!(!rows[1].significant);
    }

    #[test]
    fn effects_are_symmetric_and_bounded() {
        assert!(close(effect(Some(10.0), Some(30.0)), 3f64.ln(), 1e-12));
        assert_eq!(
            effect(Some(30.0), Some(10.0)),
            effect(Some(10.0), Some(30.0))
        );
        assert_eq!(effect(Some(0.0), Some(1.0)), MAX_EFFECT);
        assert_eq!(effect(Some(1.0), Some(0.0)), MAX_EFFECT);
        assert_eq!(effect(Some(0.0), Some(0.0)), 0.0);
        assert_eq!(effect(None, Some(1.0)), 0.0);
        assert_eq!(effect(Some(1.0), Some(1e30)), MAX_EFFECT);
    }

    #[test]
    fn a_status_key_gives_error_ratios_by_the_other_keys() {
        let shape = Shape {
            name: "r".into(),
            kind: Kind::Request,
            key_columns: vec!["script_name".into(), "status".into()],
        };
        assert_eq!(shape.row_columns(), ["script_name"]);
        assert_eq!(shape.status_at(), Some(1));
        // Errors add while every part of the row counted them; a part that did not makes the
        // row's unknown.
        let mut a = Acc::default();
        a.add(&acc(10, 10, None).part, Some(10));
        a.add(&acc(30, 10, None).part, Some(0));
        assert_eq!(a.errors, Some(10));
        assert_eq!(figures(Some(&a), 10).error_ratio, Some(0.25));
        a.add(&acc(10, 10, None).part, None);
        assert_eq!(a.errors, None);
    }

    #[test]
    fn the_csv_has_a_line_per_ranked_row() {
        let shape = Shape {
            name: "r".into(),
            kind: Kind::Request,
            key_columns: vec!["script_name".into()],
        };
        let (mut a, mut b) = ten_seconds();
        a.rows.insert(vec!["/a,b".into()], acc(100, 10, None));
        b.rows.insert(vec!["/a,b".into()], acc(100, 40, None));
        b.rows.insert(vec!["/new".into()], acc(50, 10, None));
        let q = parsed(&[("vs", "1h")]).unwrap();
        let answer = compare(&shape, &q, &a, &b);
        assert_eq!((answer.rows_compared, answer.significant_rows), (2, 2));
        let csv = to_csv(&answer);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(lines[0].starts_with("script_name,other,significant,score,a_requests,b_requests,a_rate,b_rate,rate_change,rate_ratio,rate_p_value,a_p50"), "{}", lines[0]);
        assert_eq!(lines[0].split(',').count(), 1 + 5 + 7 * 5);
        assert!(
            lines[1].starts_with("/new,false,true,10,0,50,0,5,5,,"),
            "{}",
            lines[1]
        );
        assert!(lines[2].starts_with("\"/a,b\",false,true,"), "{}", lines[2]);
        // JSON: the totals and the rows.
        let json = serde_json::to_value(&answer).unwrap();
        assert_eq!(json["rows"][0]["key"], serde_json::json!(["/new"]));
        assert_eq!(json["rows"][0]["changes"][0]["metric"], "rate");
        assert_eq!(json["errors_from"], serde_json::Value::Null);
    }

    /// Issue 83: a side is counted before it is read (`estimate`, from the index alone) at
    /// least at what reading it holds, histograms of every width among its rows.
    #[test]
    fn a_side_is_counted_before_it_is_read_at_least_at_what_it_holds() {
        // 40 keys over 3 steps of 60 s, each with values from 1 µs to ~500 s: block histograms
        // spanning most pages.
        let values: Vec<u64> = (0..60).map(|i| (1e3 * 1.4f64.powi(i)) as u64).collect();
        let keys: Vec<String> = (0..40).map(|k| format!("/s{k}")).collect();
        let mut steps: Vec<(i64, &str, Vec<u64>)> = Vec::new();
        for t in 0..3 {
            for k in &keys {
                steps.push((t * 60, k.as_str(), values.clone()));
            }
        }
        let (_dir, conn, id) = query::tests::store_keeping(60, &steps, 100);
        let shape = Shape {
            name: "r".into(),
            kind: Kind::Request,
            key_columns: vec!["script_name".into(), "country".into()],
        };
        let range = Range { from: 0, to: 180 };
        let bound = estimate(&conn, id, &shape, range, 1024).unwrap();
        let side = read_side(&conn, id, &shape, (range, 180, 60)).unwrap();
        assert_eq!(side.rows.len(), 40);
        assert!(side.bytes() > 40 * 4096, "{}", side.bytes());
        assert!(bound >= side.bytes() as u64, "{bound} < {}", side.bytes());
        // A row per stored row (the index knows no keys: 40 keys × 3 steps), each at its key's
        // strings' longest; a range without steps, the totals and the "(other)" row.
        let row = ROW_BYTES + 3 * 2 * (1024 + 32) + query::HIST_BYTES;
        assert_eq!(bound, 120 * row + 2 * (ROW_BYTES + query::HIST_BYTES));
        let empty = estimate(&conn, id, &shape, Range { from: 600, to: 900 }, 1024).unwrap();
        assert_eq!(empty, 2 * (ROW_BYTES + query::HIST_BYTES));
    }

    /// Issue 83: the answer rendered a chunk at a time is, byte for byte, the one rendered
    /// whole (JSON as serde writes it, CSV as `to_csv`), each chunk about the size asked, and
    /// what it holds goes down to 0 as its rows are rendered.
    #[test]
    fn an_answer_rendered_in_chunks_is_the_whole_answer() {
        // With key columns, and with `status` alone (the CSV then names a `key` column when
        // there are rows).
        for keys in [&["script_name", "status"][..], &["status"]] {
            rendered_in_chunks(Shape {
                name: "r".into(),
                kind: Kind::Request,
                key_columns: keys.iter().map(|k| k.to_string()).collect(),
            });
        }
    }

    /// Two empty sides of 10 s.
    fn ten_seconds() -> (Side, Side) {
        let side = || Side {
            seconds: 10,
            ..Side::default()
        };
        (side(), side())
    }

    fn rendered_in_chunks(shape: Shape) {
        let (mut a, mut b) = ten_seconds();
        for k in 0..300u64 {
            let key = vec![format!("/s,\"{k}\"")];
            a.rows.insert(key.clone(), acc(100 + k, 10, Some(k % 7)));
            b.rows
                .insert(key, acc(100 + 2 * k, 10 + k % 5, Some(k % 3)));
        }
        b.other = Some(acc(50, 10, None));
        let q = parsed(&[("vs", "1h"), ("limit", "1000")]).unwrap();
        for csv in [false, true] {
            for rows in [0, 1, 301] {
                let mut answer = compare(&shape, &q, &a, &b);
                answer.rows.truncate(rows);
                let whole = if csv {
                    to_csv(&answer)
                } else {
                    serde_json::to_string(&answer).unwrap()
                };
                let mut r = Rendering::new(answer, csv);
                assert_eq!(r.csv(), csv);
                assert!(r.held() >= (rows * std::mem::size_of::<Row>()) as u64);
                let (mut all, mut chunks, mut held) = (Vec::new(), 0, r.held());
                while let Some(chunk) = r.next_chunk(4096) {
                    assert!(chunk.len() < 4096 + 4096, "{}", chunk.len());
                    assert!(r.held() <= held);
                    held = r.held();
                    all.extend_from_slice(&chunk);
                    chunks += 1;
                }
                assert!(r.done());
                assert_eq!(r.held(), 0);
                assert_eq!(
                    String::from_utf8(all).unwrap(),
                    whole,
                    "csv {csv}, {rows} rows"
                );
                if rows == 301 {
                    assert!(chunks > 10, "{chunks} chunks");
                }
            }
        }
    }
}

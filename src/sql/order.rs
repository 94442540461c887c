//! The order a full scan of the raw `request` table hands its rows in, when the statement groups
//! or sorts by the columns that hold dictionary ids (`hostname`, `server_name`, `script_name`,
//! `schema`): SQLite then skips its own sort of the whole pool (the cost of a `GROUP BY
//! script_name` over the raw pool, which it otherwise sorts row by row under the columns'
//! collation) and evaluates the rest as it would.
//!
//! Exactly SQLite's order: the texts compared as the columns' collation (`collation`, MySQL's
//! utf8mb4_general_ci) does, NULL first, a
//! descending term reversed. Rows of equal keys come in the pool's order, the order a plain
//! scan gives them, so an aggregate of a group adds the same values in the same order. Called by
//! `vtab` on the thread that steps the statement; reads the pool in chunks under short locks as
//! a scan does.

use std::cmp::Ordering;
use std::ffi::c_int;
use std::time::Instant;

use rusqlite::vtab::IndexInfo;
use rusqlite::{Error, Result};

use super::vtab::{Tables, CHUNK, CHUNK_TIME};
use crate::record::{Record, NO_SCHEMA};

/// The `request` columns that hold a dictionary id (`hostname`, `server_name`, `script_name`,
/// `schema`): a scan orders by them without reading their texts but once per distinct value.
const ID_COLUMNS: [c_int; 4] = [1, 3, 4, 13];

/// The order a full scan of `request` can give the statement, as `idx_str` carries it
/// (`4,1-`: `script_name`, then `hostname` descending): its GROUP BY (only rows of one group
/// need be together, SQLite says, but they come in order, as SQLite's own sort gives them) or
/// ORDER BY, when every term is one of [`ID_COLUMNS`]. None otherwise (SQLite sorts).
pub fn scan_order(info: &IndexInfo) -> Option<String> {
    use rusqlite::vtab::DistinctMode;
    if !matches!(
        info.distinct(),
        DistinctMode::Ordered | DistinctMode::Grouped
    ) || !(1..=ID_COLUMNS.len()).contains(&info.num_of_order_by())
    {
        return None;
    }
    let mut terms = Vec::new();
    for o in info.order_bys() {
        if !ID_COLUMNS.contains(&o.column()) {
            return None;
        }
        terms.push(format!(
            "{}{}",
            o.column(),
            if o.is_order_by_desc() { "-" } else { "" }
        ));
    }
    Some(terms.join(","))
}

/// An order's terms from `idx_str`: column, descending.
pub fn parse_order(order: &str) -> Option<Vec<(c_int, bool)>> {
    order
        .split(',')
        .map(|t| {
            let (column, desc) = match t.strip_suffix('-') {
                Some(c) => (c, true),
                None => (t, false),
            };
            let column: c_int = column.parse().ok()?;
            ID_COLUMNS.contains(&column).then_some((column, desc))
        })
        .collect()
}

/// The dictionary id a request holds in `column` (one of [`ID_COLUMNS`]); None for NULL (no
/// schema).
fn id_in(r: &Record, column: c_int) -> Option<u32> {
    match column {
        1 => Some(r.hostname),
        3 => Some(r.server_name),
        4 => Some(r.script_name),
        _ => (r.schema != NO_SCHEMA).then_some(r.schema),
    }
}

/// The requests `oldest..end`, as offsets from `oldest`, in the order of `terms` (columns of
/// [`ID_COLUMNS`], each ascending or descending): by the texts as the columns' collation
/// compares them, NULL first (as SQLite sorts), requests of equal keys in the pool's order.
///
/// Two passes: the pool read in chunks (as a scan reads it, under short locks) gives each
/// request its key's group, keyed by dictionary ids; the groups (as many as distinct keys)
/// are sorted by their texts, read once each; a counting sort then places the requests. Holds
/// 8 bytes per pooled request while it runs, 4 for the scan after. A request gone from the pool
/// meanwhile is left out (as a plain scan leaves it).
pub fn order_of(
    tables: &Tables,
    oldest: u64,
    end: u64,
    terms: &[(c_int, bool)],
) -> Result<Vec<u32>> {
    /// A request no longer pooled.
    const GONE: u32 = u32::MAX;
    type Key = [Option<u32>; ID_COLUMNS.len()];
    let core = &tables.core;
    let n = usize::try_from(end.saturating_sub(oldest)).unwrap_or(usize::MAX);
    if u32::try_from(n).is_err() {
        return Err(Error::ModuleError("the pool is too large to order".into()));
    }
    let mut group_of: Vec<u32> = Vec::with_capacity(n);
    let mut groups: rustc_hash::FxHashMap<Key, u32> = Default::default();
    let mut keys: Vec<Key> = Vec::new();
    while group_of.len() < n {
        tables.check_deadline()?;
        let next = oldest + group_of.len() as u64;
        let stop = end.min(next + CHUNK);
        let started = Instant::now();
        let pool = core.pool().read();
        for id in next..stop {
            let group = match pool.record(id) {
                Some(r) => {
                    let mut key: Key = [None; ID_COLUMNS.len()];
                    for (k, (column, _)) in key.iter_mut().zip(terms) {
                        *k = id_in(r, *column);
                    }
                    *groups.entry(key).or_insert_with(|| {
                        keys.push(key);
                        (keys.len() - 1) as u32
                    })
                }
                None => GONE,
            };
            group_of.push(group);
            if group_of.len().is_multiple_of(64) && started.elapsed() >= CHUNK_TIME {
                break;
            }
        }
    }
    drop(groups);
    // The groups' texts, then their order.
    let mut texts: Vec<Vec<Option<String>>> = Vec::with_capacity(keys.len());
    for part in keys.chunks(CHUNK as usize) {
        tables.check_deadline()?;
        let dict = core.dictionary().read();
        texts.extend(part.iter().map(|key| {
            terms
                .iter()
                .zip(key)
                .map(|(_, id)| id.map(|id| dict.text(id).into_owned()))
                .collect()
        }));
    }
    let compare = |a: u32, b: u32| {
        let (ta, tb) = (&texts[a as usize], &texts[b as usize]);
        for (i, (_, desc)) in terms.iter().enumerate() {
            let o = match (&ta[i], &tb[i]) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) => super::collation::compare(x, y),
            };
            let o = if *desc { o.reverse() } else { o };
            if o.is_ne() {
                return o;
            }
        }
        Ordering::Equal
    };
    let mut sorted: Vec<u32> = (0..keys.len() as u32).collect();
    sorted.sort_by(|&a, &b| compare(a, b));
    // Groups whose texts are equal under the collation (but for case, accents or trailing
    // spaces) share a rank: their requests mingle in the
    // pool's order, as SQLite's sort (a stable one) mingles them.
    let mut rank = vec![0u32; keys.len()];
    let mut ranks = 0u32;
    for (i, &g) in sorted.iter().enumerate() {
        if i > 0 && compare(sorted[i - 1], g).is_ne() {
            ranks += 1;
        }
        rank[g as usize] = ranks;
    }
    drop((texts, sorted, keys));
    for g in &mut group_of {
        if *g != GONE {
            *g = rank[*g as usize];
        }
    }
    // Each rank's first place, then the requests into their places.
    let mut start = vec![0u32; ranks as usize + 1];
    for &r in &group_of {
        if r != GONE {
            start[r as usize] += 1;
        }
    }
    let mut at = 0u32;
    for s in &mut start {
        let n = *s;
        *s = at;
        at += n;
    }
    let mut order = vec![0u32; at as usize];
    for (offset, &r) in group_of.iter().enumerate() {
        if r != GONE {
            order[start[r as usize] as usize] = offset as u32;
            start[r as usize] += 1;
        }
    }
    Ok(order)
}

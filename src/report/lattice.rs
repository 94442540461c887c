//! The lattice stage: one stage for a family of timer reports keyed by different timer tags.
//!
//! pinba_engine's and pinba2's configurations hold a `tag_info`, `tag_report` and `tag2_*` table
//! for each timer tag (or pair) they care about, by script, server or host: each a different key
//! set. A family whose members differ only in request fields shares one stage (see `family`);
//! members keyed by different timer tags would each need their own stage, and every timer of
//! every request would update each of them. A lattice stage is keyed by the union of the
//! members' timer tags (and request fields): each timer updates one row, keyed by the values of
//! every tag of the union it carries and [`ABSENT`] for the others, so the per-request work
//! follows the timers, not the reports. At a fold, a member keyed by a subset of the tags takes
//! the stage rows that carry all of its tags, projected on its keys.
//!
//! What a projection cannot give by summing is a timer report's `req_count`, a request counted
//! once per row: two timers of one request on different stage rows (another `op`, say) may fall
//! on one row of a member without `op`. So the stage counts, per row and per distinct tag subset
//! of its members, the requests whose **first** timer with that subset's values lands in the row
//! (`firsts`: for each timer, the subsets whose values no earlier timer of its request had); a
//! member's row sums those of its subset, which is exactly its requests. The request fields are
//! the same for every timer of a request, so dropping them keeps this exact too. The totals are
//! per subset as well (the requests with a timer carrying the subset's tags, and the sums and
//! histograms of those timers), summed from the rows at each fold ([`Report::seal_stage`]); the
//! timers the stage had no row for go to a per-subset "(other)" row.
//!
//! Exact, whatever the requests (tested against the same reports updated one by one:
//! `report::tests::families::lattice_members_equal_standalone_reports`).

use super::hist_log::count_into;
use super::keys::{first_tag, KeyBuf};
use super::rows::Row;
use super::sums::TimerContribution;
use super::*;

/// A lattice stage's key id for a timer tag the timer does not carry. Never a dictionary id
/// (ids are dense from 0), so never a member's key: rows holding it for one of a member's tags
/// are not the member's.
pub(super) const ABSENT: u32 = u32::MAX;

/// Most timer tags a lattice stage keys on: its presence masks index a table of 2^n entries,
/// and a timer's values are kept on the stack while its request is counted.
pub(super) const MAX_TAGS: usize = 8;

/// Most distinct timer-tag subsets (members' key sets) a lattice stage serves: each is a bit of
/// a timer's classification.
pub(super) const MAX_SUBSETS: usize = 32;

/// Timers of one request that [`Lattice::classify`] compares a timer with one by one (a PHP
/// request has ~3–15); past them, it looks each subset's values up in a hash set, so that a
/// request of thousands of timers costs a lookup per timer and subset, not a scan.
const SCAN_TIMERS: usize = 16;

/// A lattice stage's per-subset counts (see the module docs); in its stage [`Report`].
#[derive(Clone, Debug)]
pub(super) struct Lattice {
    /// Each distinct members' timer-tag set, as a mask over the stage's `timer_keys`.
    subsets: Vec<u32>,
    /// Per presence mask (bit `b`: the timer carries `timer_keys[b]`): whether some subset is
    /// within it, so that the timer counts for some member.
    useful: Vec<bool>,
    /// Per open row (by its slot) and subset (`slot * subsets + s`): the requests whose first
    /// timer with the subset's values landed in the row.
    firsts: Vec<u32>,
    /// Per subset: the requests with a timer carrying its tags.
    requests: Vec<u64>,
    /// Per subset: the timers the stage had no row for ("(other)").
    others: Vec<Row>,
    /// Per subset: the totals its members take (sealed at each fold).
    totals: Vec<Row>,
    /// The request being counted: each counted timer's presence mask and values.
    seen: Vec<(u32, [u32; MAX_TAGS])>,
    /// Past [`SCAN_TIMERS`] timers of the request: each subset's values seen (mask, values
    /// outside the mask zeroed).
    seen_set: rustc_hash::FxHashSet<(u32, [u32; MAX_TAGS])>,
}

impl Lattice {
    /// A lattice over `subsets` (masks over `tags` timer tags, distinct).
    pub(super) fn new(tags: usize, subsets: Vec<u32>) -> Lattice {
        debug_assert!(tags <= MAX_TAGS && subsets.len() <= MAX_SUBSETS);
        let useful = (0..1u32 << tags)
            .map(|present| subsets.iter().any(|&m| m & !present == 0))
            .collect();
        let n = subsets.len();
        Lattice {
            subsets,
            useful,
            firsts: Vec::new(),
            requests: vec![0; n],
            others: vec![Row::other(); n],
            totals: vec![Row::default(); n],
            seen: Vec::new(),
            seen_set: Default::default(),
        }
    }

    /// The same lattice, empty (a fresh stage's).
    pub(super) fn fresh(&self) -> Lattice {
        Lattice::new(
            self.useful.len().trailing_zeros() as usize,
            self.subsets.clone(),
        )
    }

    /// Empties it with its stage (see `Report::empty_stage`), keeping its buffers.
    pub(super) fn reset(&mut self) {
        self.firsts.clear();
        self.requests.iter_mut().for_each(|r| *r = 0);
        self.others.iter_mut().for_each(Row::zero);
        self.totals.iter_mut().for_each(Row::zero);
    }

    /// Heap bytes (the memory budget's figure).
    pub(super) fn bytes(&self) -> usize {
        self.firsts.capacity() * 4
            + self.useful.capacity()
            + (self.seen.capacity() + self.seen_set.capacity())
                * std::mem::size_of::<(u32, [u32; MAX_TAGS])>()
            + self
                .others
                .iter()
                .chain(&self.totals)
                .map(|r| std::mem::size_of::<Row>() + r.hist.heap_bytes())
                .sum::<usize>()
    }

    /// For a timer of the request being counted (`present`, `values`): the subsets it counts in,
    /// and those for which it is the request's first timer with its values.
    #[inline]
    fn classify(&mut self, present: u32, values: &[u32; MAX_TAGS]) -> (u32, u32) {
        let (mut inside, mut firsts) = (0, 0);
        let scan = self.seen.len() < SCAN_TIMERS;
        if !scan && self.seen_set.is_empty() {
            for (p, v) in &self.seen {
                for &m in self.subsets.iter().filter(|&&m| p & m == m) {
                    self.seen_set.insert((m, masked(m, v)));
                }
            }
        }
        for (s, &m) in self.subsets.iter().enumerate() {
            if present & m != m {
                continue;
            }
            inside |= 1 << s;
            let first = if scan {
                !self
                    .seen
                    .iter()
                    .any(|(p, v)| p & m == m && same_on(m, v, values))
            } else {
                self.seen_set.insert((m, masked(m, values)))
            };
            if first {
                firsts |= 1 << s;
            }
        }
        self.seen.push((present, *values));
        (inside, firsts)
    }

    /// Readies it for the next request's timers.
    #[inline]
    fn next_request(&mut self) {
        self.seen.clear();
        if self.seen_set.capacity() > 1 << 12 {
            // A request of thousands of timers: its set is not kept for the next.
            self.seen_set = Default::default();
        } else if !self.seen_set.is_empty() {
            self.seen_set.clear();
        }
    }

    /// Counts a classified timer: its firsts into its row's (`slot`), or, when the stage had no
    /// row for it, the timer into each subset's "(other)".
    #[inline]
    fn count(&mut self, slot: Option<u32>, inside: u32, firsts: u32, c: &TimerContribution) {
        let n = self.subsets.len();
        match slot {
            Some(slot) => {
                let at = slot as usize * n;
                if self.firsts.len() < at + n {
                    self.firsts.resize(at + n, 0);
                }
                for s in bits(firsts) {
                    self.firsts[at + s] += 1;
                }
            }
            None => {
                for s in bits(inside) {
                    let other = &mut self.others[s];
                    other.add(c);
                    other.sums.req_count += (firsts >> s & 1) as u64;
                }
            }
        }
    }

    /// The subset of a member whose keys sit at `projection` in `stage`'s keys.
    fn subset_of(&self, stage: &Report, projection: &[usize]) -> usize {
        let mask = mask_of(&stage.timer_keys, |pos| projection.contains(&pos));
        self.subsets
            .iter()
            .position(|&m| m == mask)
            .expect("a member's timer tags are a subset of its lattice stage")
    }
}

/// `v` with the values outside mask `m` zeroed.
#[inline]
fn masked(m: u32, v: &[u32; MAX_TAGS]) -> [u32; MAX_TAGS] {
    let mut out = [0; MAX_TAGS];
    for t in bits(m) {
        out[t] = v[t];
    }
    out
}

/// Whether `a` and `b` hold the same values on the tags of mask `m`.
#[inline]
fn same_on(m: u32, a: &[u32; MAX_TAGS], b: &[u32; MAX_TAGS]) -> bool {
    bits(m).all(|t| a[t] == b[t])
}

/// The bits set in `m`, lowest first.
#[inline]
fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            b
        })
    })
}

/// The mask over a stage's `timer_keys` of those whose key position `has` accepts.
#[inline]
fn mask_of(timer_keys: &[(usize, u32)], has: impl Fn(usize) -> bool) -> u32 {
    timer_keys
        .iter()
        .enumerate()
        .filter(|(_, &(pos, _))| has(pos))
        .fold(0, |m, (b, _)| m | 1 << b)
}

impl Report {
    /// A lattice stage for members with these keys (see the module docs): keyed by `keys` (their
    /// union, in canonical order), requests skipped only when they lack a timer tag name every
    /// member needs.
    pub(super) fn make_lattice(&mut self, members: &[&Report]) {
        let subsets: Vec<u32> = members.iter().fold(Vec::new(), |mut out, m| {
            let mask = mask_of(&self.timer_keys, |pos| m.keys.contains(&self.keys[pos]));
            if !out.contains(&mask) {
                out.push(mask);
            }
            out
        });
        self.needed_timer_tags = members
            .iter()
            .fold(u64::MAX, |bits, m| bits & m.needed_timer_tags);
        self.lattice = Some(Box::new(Lattice::new(self.timer_keys.len(), subsets)));
    }

    /// [`Report::update`] of a request that passed the filters, in a lattice stage: each timer
    /// that carries some member's tags into its row, classified (see the module docs).
    /// `key` holds the request's fields; the timer tags are set per timer.
    pub(super) fn update_lattice(&mut self, p: &super::batch::Prepared<'_>, mut key: KeyBuf) {
        let Some(mut l) = self.lattice.take() else {
            return;
        };
        self.update_number += 1;
        let mark = self.update_number;
        l.next_request();
        let mut counted = 0u32;
        let timer_filters = !self.filters.timer_tags.is_empty();
        for ((_, tags), c) in p.view.timers_with_tags().zip(p.timers) {
            if timer_filters && !self.filters.pass_timer(tags) {
                continue;
            }
            let mut values = [ABSENT; MAX_TAGS];
            let mut present = 0u32;
            for (b, &(pos, name)) in self.timer_keys.iter().enumerate() {
                if let Some(id) = first_tag(tags, name) {
                    values[b] = id;
                    present |= 1 << b;
                }
                key.ids[pos] = values[b];
            }
            if !l.useful[present as usize] {
                continue;
            }
            let (inside, firsts) = l.classify(present, &values);
            counted |= inside;
            self.open_totals.add(c);
            let slot = self.apply_at(&key, c, mark);
            l.count(slot, inside, firsts, c);
        }
        if counted != 0 {
            self.open_totals.sums.req_count += 1;
            for s in bits(counted) {
                l.requests[s] += 1;
            }
        }
        self.lattice = Some(l);
    }

    /// Counts timer `c` of request `mark` into its row of the open tick; returns the row's slot,
    /// `None` when it got no row (counted in "(other)", see [`Report::new_row`]).
    #[inline]
    fn apply_at(&mut self, key: &KeyBuf, c: &TimerContribution, mark: u64) -> Option<u32> {
        let log = self.log_histograms.then_some(&mut self.hist_log);
        if let Some(row) = self.open.get_mut(key) {
            let slot = row.slot;
            self.open_hist_bytes += count_into(row, c, Some(mark), log);
            return Some(slot);
        }
        let before = self.open_slots;
        self.new_row(key, Row::first(c, Some(mark)));
        (self.open_slots != before).then_some(before)
    }

    /// Readies a stage for a fold: its histogram log applied and, in a lattice stage, each
    /// subset's totals summed from the rows.
    pub(super) fn seal_stage(&mut self) {
        self.flush_hist();
        let Report {
            lattice,
            open,
            keys,
            timer_keys,
            ..
        } = self;
        let Some(l) = lattice.as_mut() else {
            return;
        };
        l.totals.iter_mut().for_each(Row::zero);
        for (ids, row) in open.iter(keys.len()).filter(|(_, r)| r.contribs > 0) {
            let present = row_presence(timer_keys, ids);
            for (s, &m) in l.subsets.iter().enumerate() {
                if present & m == m {
                    l.totals[s].add_row(row);
                }
            }
        }
        for s in 0..l.subsets.len() {
            let t = &mut l.totals[s];
            t.add_row(&l.others[s]);
            t.sums.req_count = l.requests[s];
        }
    }
}

/// Which of a lattice stage's timer keys (`timer_keys`) a row's key (`ids`) carries.
#[inline]
fn row_presence(timer_keys: &[(usize, u32)], ids: &[u32]) -> u32 {
    mask_of(timer_keys, |pos| ids[pos] != ABSENT)
}

/// A member's fold of a sealed lattice stage (see [`Report::seal_stage`]): its subset's totals
/// and "(other)", then each stage row carrying its tags, projected on its keys
/// (`projection`), counting the requests of the row's firsts.
pub(super) fn absorb_lattice(stage: &Report, r: &mut Report, projection: &[usize]) {
    let Some(l) = stage.lattice.as_deref() else {
        return;
    };
    let s = l.subset_of(stage, projection);
    let mask = l.subsets[s];
    r.open_totals.add_row(&l.totals[s]);
    if l.others[s].contribs > 0 {
        r.lose(Row {
            mark: 0,
            ..l.others[s].clone()
        });
    }
    let n = l.subsets.len();
    let rows = super::family::projected(stage, projection)
        .filter(|(_, ids, _)| row_presence(&stage.timer_keys, ids) & mask == mask)
        .map(|(key, _, row)| {
            let req = l
                .firsts
                .get(row.slot as usize * n + s)
                .copied()
                .unwrap_or(0);
            (key, row, req as u64)
        });
    super::rows::with_lookahead(
        r,
        rows,
        |r, (key, _, _)| r.open.prefetch_ids(key.slice()),
        |r, (key, row, req)| r.absorb(&key, row, req),
    );
}

//! Report families: reports that are projections of one aggregate share the per-request work.
//!
//! pinba_engine's tag report families (`tagN_info`, `tagN_report`, `tagN_report2` over the same
//! tags) are projections of one aggregate keyed by the request fields they use plus the tags, and
//! the 21 built-ins are projections of one (hostname, server_name, script_name, schema, status)
//! cube. Updating each report per request (per timer) costs one random row update per report; a
//! family instead updates one **stage** per request (or matching timer), keyed by the union of its
//! members' keys, and folds the stage into every member (a **drain**): each stage row becomes one
//! row update per member, however many requests or timers it summed.
//!
//! Reports are in one family when they have the same kind (request or timer), the same filters,
//! the same window and the same request-tag keys, and differ only in which request fields
//! (hostname, server_name, script_name, schema, status) they key on and, timer reports, in their
//! timer-tag keys (then the stage is a lattice, see `lattice`, which says how a member's rows
//! and `req_count` are folded from timers counted under tags it does not key on). Dropping request
//! fields is exact, also for a timer report's `req_count` (a request counts once per row): the
//! fields are the same for every timer of a request, so the timers of one request that share a
//! member row also share the stage row, where the request was counted once. Each member keeps its
//! own row limit (a stage row a member has no room for is lost to that member, its contributions
//! counted in its `rows_lost`).
//!
//! A stage is drained before any member's window moves into a new tick (members share one phase,
//! so that is once per tick), [`DRAIN_EVERY_MS`] after the last drain within longer ticks, and
//! when it holds [`STAGE_MAX_ROWS`] rows. At a tick and within long ticks, the stage is frozen
//! and handed to one member per round (each absorbs it and, at a tick, then closes its tick), so
//! that no round holds its thread for a drain into every member; while the merger is behind,
//! the turns wait for the first half of the tick (see [`Family::update`]'s `behind`). A frozen
//! stage reaches every member before any member's window moves on.
//!
//! A member that queries read is **detached**: the query first makes it take what the stages
//! hold for it ([`Family::detach_for_query`]), and from then on the merge thread updates it
//! directly, request by request, like a report of its own ([`Family::update`] returns it), so it
//! holds every request merged before the query and its queries read nothing of the stage.
//! (Reading the stage at each query instead would overlay up to 5 s of the built-ins' 5-tuple
//! rows on every query.) A member not queried for [`QUERIED_FOR_MS`] rejoins
//! the stage at the first round the stage is empty (right after a drain or a tick), so no
//! request reaches it twice or never. Tests drain explicitly.
//!
//! A stop does not drain: the snapshot keeps the stages as they are and the next start puts
//! them back ([`SavedFamily`], [`restore_stages`]).
//!
//! The family is updated by the thread that owns its first member in the round (its leader,
//! see [`round_leaders`]): it counts each round into the stage and updates the detached members.
//! A frozen stage is handed to the members on the leader's thread by the leader, one per round,
//! and members on another merge thread take it themselves there ([`Family::take_turn`], one per
//! thread and round, whatever the family: a turn can take tens of ms), so that a family's drains
//! spread over the threads as its members do: with one unit of work per family, the built-ins'
//! stage would be the largest piece the balancer has, and two threads could not even out.
//!
//! Locks: the stage's mutex, then the handout's, then members' write locks, one after another in
//! member order; nobody takes the stage or the handout while holding a member's lock. A member
//! absorbing the frozen stage on its own thread holds only its own write lock (taken before it
//! lets the handout go), so whoever must see it done takes that lock.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use rustc_hash::FxHashMap;

use crate::budget::Account;

use super::keys::{Key, KeyBuf};
use super::lattice::{absorb_lattice, MAX_SUBSETS, MAX_TAGS};
use super::rows::{with_lookahead, Row};
use super::snapshot::SavedStage;
use super::split::StageSplit;
use super::*;
use crate::codec::{Reader, SnapshotError, Writer};

/// Most rows a stage holds before it is drained early (bounds its memory between ticks).
pub const STAGE_MAX_ROWS: usize = 1 << 20;

/// How long a stage counts without a drain when its members' ticks are longer: bounds what a
/// query's detach absorbs and how long a member no longer queried waits to rejoin. A drain costs
/// one row update per stage row and member whatever the requests the row sums, so drains are
/// rare: at ticks only up to ticks of this length (the default 15 s ticks among them), since
/// the rows a stage holds recur from one drain to the next and each drain within a tick would
/// pay for them again (with tens of timer reports in families, draining every second saturates
/// the merge thread).
pub const DRAIN_EVERY_MS: u64 = 30_000;

/// What must be equal for reports to share a stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FamilyKey {
    timer: bool,
    /// The filters, as the definition spells them (a `BTreeMap`: order-independent).
    filters: String,
    /// The keys that are not request fields, sorted (timer tags left out for a lattice).
    others: Vec<String>,
    history_ms: u64,
    tick_ms: u64,
    compat: Option<Compat>,
}

fn is_field(k: &Key) -> bool {
    matches!(
        k,
        Key::Hostname | Key::ServerName | Key::ScriptName | Key::Schema | Key::Status
    )
}

/// Canonical order of the stage's keys: the request fields first, then the others.
fn rank(k: &Key) -> (u8, u32) {
    match *k {
        Key::Hostname => (0, 0),
        Key::ServerName => (1, 0),
        Key::ScriptName => (2, 0),
        Key::Schema => (3, 0),
        Key::Status => (4, 0),
        Key::Tag(id) => (5, id),
        Key::TimerTag(id) => (6, id),
    }
}

impl Report {
    /// What must be equal for reports to share a stage; `timer_tags`: their timer tags too
    /// (without: a lattice stage serves different ones).
    fn family_key(&self, timer_tags: bool) -> FamilyKey {
        let mut others: Vec<String> = self
            .keys
            .iter()
            .zip(&self.key_names)
            .filter(|(k, _)| !is_field(k))
            .filter(|(k, _)| timer_tags || !matches!(k, Key::TimerTag(_)))
            .map(|(_, n)| n.clone())
            .collect();
        others.sort();
        FamilyKey {
            timer: self.kind == Kind::Timer,
            filters: serde_json::to_string(&self.def.filters).unwrap_or_default(),
            others,
            history_ms: self.window.history_ms,
            tick_ms: self.window.tick_ms,
            compat: self.def.compat,
        }
    }

    /// The timer tag names it keys on, sorted.
    fn timer_tag_set(&self) -> Vec<u32> {
        let mut tags: Vec<u32> = self
            .keys
            .iter()
            .filter_map(|k| match *k {
                Key::TimerTag(name) => Some(name),
                _ => None,
            })
            .collect();
        tags.sort_unstable();
        tags
    }

    /// What a report's phase is derived from ([`Window::phased`]): what must be equal for
    /// reports to be one family, less the window (the phase is taken within the tick). So every
    /// report a family could hold has the family's phase whatever else exists: one created at
    /// run time (in no family until the next start), one whose family lost its first member, or
    /// gained a report ahead of it in the config, keeps its window's ticks across a restart, and
    /// the snapshot restores it (a changed phase would be a changed window). Timer tags count:
    /// a lattice family's members, whose tags differ, take its first member's phase when it
    /// forms (the same at every start with the same configuration).
    pub(super) fn phase_seed(&self) -> String {
        let k = self.family_key(true);
        format!("{}|{}|{}", k.timer, k.filters, k.others.join("\u{1f}"))
    }

    /// A stage for `members`: the union of their keys in canonical order, their filters, no row
    /// limit (it is drained instead), no pins of its own (its ids are the members' pins).
    fn stage_for(members: &[&Report]) -> Report {
        let first = members[0];
        let mut keys: Vec<Key> = Vec::new();
        for m in members {
            for k in &m.keys {
                if !keys.contains(k) {
                    keys.push(*k);
                }
            }
        }
        keys.sort_by_key(rank);
        let kind = if first.kind == Kind::Timer {
            Kind::Timer
        } else {
            Kind::Request
        };
        let mut stage = Report::empty(
            first.def.clone(),
            kind,
            keys,
            first.filters.clone(),
            first.window,
        );
        stage.filtered = first.filtered;
        stage.account = Account::new(first.account.budget().clone());
        stage
    }

    /// An empty stage over the same keys, filters and window.
    pub(super) fn stage_like(&self) -> Report {
        let mut stage = Report::empty(
            self.def.clone(),
            self.kind,
            self.keys.clone(),
            self.filters.clone(),
            self.window,
        );
        stage.filtered = self.filtered;
        stage.account = Account::new(self.account.budget().clone());
        stage.needed_timer_tags = self.needed_timer_tags;
        stage.lattice = self.lattice.as_ref().map(|l| Box::new(l.fresh()));
        stage
    }

    /// Where each of this report's keys sits in `stage`'s keys.
    fn projection_from(&self, stage: &Report) -> Vec<usize> {
        self.keys
            .iter()
            .map(|k| {
                stage
                    .keys
                    .iter()
                    .position(|s| s == k)
                    .expect("a member's keys are in its stage")
            })
            .collect()
    }

    /// Sets the window's phase (before the first request): a family's members share one.
    pub(crate) fn set_phase(&mut self, phase_ms: u64) {
        self.window.phase_ms = phase_ms % self.window.tick_ms;
        self.open_index = self.window.tick_of(self.now_ms);
    }

    /// Empties a drained stage: rows are zeroed in place (keeping their histograms' memory) and,
    /// when `sweep`, rows idle since the last drain go.
    pub(super) fn empty_stage(&mut self, sweep: bool) {
        debug_assert!(self.hist_log.is_empty());
        // A stage never closes a tick: no closed part, so no links to its renumbered rows.
        debug_assert_eq!(self.agg.len(), 0);
        let n = self.keys.len();
        let mut slots = 0;
        let mut hist_bytes = 0;
        self.open.retain_each(n, |_, row| {
            if sweep && row.contribs == 0 {
                return false;
            }
            row.slot = slots;
            slots += 1;
            row.sums = Sums::default();
            row.hist.clear();
            row.contribs = 0;
            row.only_open = true;
            hist_bytes += row.hist.heap_bytes();
            true
        });
        self.open_hist_bytes = hist_bytes;
        self.open_slots = slots;
        self.open_only = self.open.len();
        self.open_totals = Row::default();
        self.open_other.zero();
        if let Some(l) = &mut self.lattice {
            l.reset();
        }
        self.settle_memory();
    }

    /// Counts what a stage holds besides its rows into this member's open tick: its totals, and
    /// its "(other)" row (contributions the stage had no row for, lost to the member too).
    pub(super) fn absorb_totals(&mut self, stage: &Report) {
        self.open_totals.add_row(&stage.open_totals);
        if stage.open_other.contribs > 0 {
            self.lose(Row {
                mark: 0,
                ..stage.open_other.clone()
            });
        }
    }

    /// Counts a stage row into this member's open tick (see [`Report::new_row`] for the limit),
    /// as `req_count` requests (a lattice stage's rows count them per member's subset).
    /// Before absorbing a large stage (a flood of new names within a tick): room in the open
    /// table for the rows it will add, made at once. Grown row by row, the table doubles its way
    /// there, and each doubling writes every row into memory the kernel must first clear (at a
    /// stop after a million new names, most of the drain's time). The rows to come are
    /// estimated from a sample of the stage's (in table order, so at random): those whose
    /// projected key is new to the member, once each. Made only where the budget fits it
    /// (what row-by-row growth would have asked for the same rows), and bounded by the row
    /// limit; a wrong estimate only costs memory or doublings, never a row.
    pub(super) fn reserve_for_stage(&mut self, stage: &Report, projection: &[usize]) {
        const SAMPLE: usize = 4096;
        let stage_rows = stage.open.len();
        if stage_rows < 16 * SAMPLE {
            return;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let (mut sampled, mut new) = (0, 0);
        for (key, _, _) in projected(stage, projection).take(SAMPLE) {
            sampled += 1;
            if self.open.get(key.slice()).is_none() && seen.insert(key.ids) {
                new += 1;
            }
        }
        let expected =
            (stage_rows * new / sampled.max(1)).min(self.max_rows.saturating_sub(self.rows()));
        if expected < SAMPLE {
            return;
        }
        let budget = self.account.budget();
        let grows = self
            .open
            .table_bytes_for(self.open.len() + expected)
            .saturating_sub(self.open.table_bytes());
        if budget.tight() || !budget.fits(grows as u64) {
            return;
        }
        self.open.reserve(expected);
        self.account_ahead();
    }

    pub(super) fn absorb(&mut self, key: &KeyBuf, src: &Row, req_count: u64) {
        match self.open.get_mut(key) {
            Some(row) => {
                self.open_hist_bytes += row.add_row(src);
                row.sums.req_count = row.sums.req_count - src.sums.req_count + req_count;
            }
            None => {
                let mut sums = src.sums;
                sums.req_count = req_count;
                let row = Row {
                    sums,
                    hist: src.hist.compact_clone(),
                    contribs: src.contribs,
                    ..Row::default()
                };
                self.new_row(key, row);
            }
        }
    }
}

/// A member: its cell (weak: dropping a report from the set does not wait for its family),
/// where its keys sit in the stage's, and whether it is detached (see [`Family::update`]).
struct Member {
    cell: Weak<ReportCell>,
    projection: Vec<usize>,
    /// Updated directly, request by request, instead of through the stage: a member queries
    /// read. Changed only with the stages locked; read without the lock by its queries.
    detached: AtomicBool,
    /// In [`Handout::pending`] (changed with the handout locked): lets a member's own thread
    /// skip the handout's lock in the rounds it has nothing to take.
    pending: AtomicBool,
}

impl Member {
    fn is_detached(&self) -> bool {
        self.detached.load(Relaxed)
    }
}

/// A stage and the reports it feeds (see the module docs).
pub struct Family {
    /// The stage being counted into. Locked by the leader's thread each round and by the first
    /// query of a member (to detach it).
    stages: Mutex<Stages>,
    /// The frozen stage being handed out. Locked for short steps (never while the stage counts
    /// a round), so that members on other threads take their turn meanwhile.
    handout: Mutex<Handout>,
    members: Vec<Member>,
    /// The stage's parts on other merge threads while it is split (see `split`, "split
    /// stages"); set and cleared by the merger's balancing while no round is in flight.
    split: Mutex<Option<Arc<StageSplit>>>,
}

/// The stage being counted into.
struct Stages {
    current: Report,
    /// When `current` was last drained (merger ms).
    drained_ms: u64,
}

/// The stage being handed to the members.
struct Handout {
    /// When the members' ticks end, the stage as it was (everything merged before the tick's
    /// end) is frozen and handed to the members one per round and thread, each absorbing it and
    /// then moving into the new tick, so that no round holds a thread for every member's tick
    /// close at once; meanwhile `current` counts the new tick and is not drained. Core with
    /// the members absorbing it on their own threads.
    frozen: Option<Arc<Report>>,
    /// Members (indices into `members`) still to get `frozen`, in order.
    pending: Vec<usize>,
    /// The round that froze it (merger ms): members move to its tick when they get it.
    frozen_ms: u64,
    /// When the tick after `frozen_ms`'s begins (merger ms): every member must have `frozen`
    /// by then (see [`Family::update`]).
    due_ms: u64,
    /// Whether `frozen` ends a tick (members move into the next one after absorbing it) or is a
    /// periodic drain (members only absorb it: it is handed out the same way, one member per
    /// round, so that no round holds its thread for a drain into every member).
    frozen_at_tick: bool,
    /// An emptied stage kept for the next freeze.
    spare: Option<Report>,
}

impl Handout {
    /// The tick the members move into after absorbing `frozen`, if it ends one (merger ms).
    fn tick_ms(&self) -> Option<u64> {
        self.frozen_at_tick.then_some(self.frozen_ms)
    }

    /// Whether turns wait this round (see [`Family::update`]'s `behind`): the merger is behind
    /// at `behind` (ms), and less than half the time the frozen stage has to reach every member
    /// has passed.
    fn paced(&self, behind: Option<u64>) -> bool {
        behind.is_some_and(|now| {
            now < self.frozen_ms + self.due_ms.saturating_sub(self.frozen_ms) / 2
        })
    }
}

/// What the leader's round step ([`Family::update`]) leaves to its caller.
pub struct LeaderRound {
    /// The detached members: the caller counts the round into each, with the stage unlocked.
    pub detached: Vec<Arc<ReportCell>>,
    /// Whether the frozen stage was handed to a member on the leader's thread (its turn).
    pub handed: bool,
    /// Time spent handing the frozen stage to members, already counted on their instruments
    /// (ns; 0 when untimed): the caller leaves it out of the leader's.
    pub handed_ns: u64,
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family")
            .field("members", &self.members.len())
            .finish()
    }
}

impl Family {
    /// A family of `cells` (already in the set) over `stage`.
    pub fn new(stage: Report, cells: &[Arc<ReportCell>]) -> Family {
        let members = cells
            .iter()
            .map(|c| Member {
                cell: Arc::downgrade(c),
                projection: c.report.read().projection_from(&stage),
                detached: AtomicBool::new(false),
                pending: AtomicBool::new(false),
            })
            .collect();
        Family {
            stages: Mutex::new(Stages {
                current: stage,
                drained_ms: 0,
            }),
            handout: Mutex::new(Handout {
                frozen: None,
                pending: Vec::new(),
                frozen_ms: 0,
                due_ms: 0,
                frozen_at_tick: false,
                spare: None,
            }),
            members,
            split: Mutex::new(None),
        }
    }

    /// Whether the stage may be split over merge threads: not a lattice stage (its rows count
    /// requests per member subset, which folding one stage into another would not keep).
    pub fn can_split(&self) -> bool {
        self.stages.lock().current.lattice.is_none()
    }

    /// Whether `cell` is the family's first live member: the one that leads every round (see
    /// [`round_leaders`]), so the one whose thread counts the stage.
    pub fn is_led_by(&self, cell: &ReportCell) -> bool {
        let first = self.members.iter().find(|m| m.cell.strong_count() > 0);
        first.is_some_and(|m| std::ptr::eq(m.cell.as_ptr(), cell))
    }

    /// `f` of the stage being counted (to make parts like it).
    pub fn with_stage<T>(&self, f: impl FnOnce(&Report) -> T) -> T {
        f(&self.stages.lock().current)
    }

    /// The stage's parts while it is split.
    pub fn split(&self) -> Option<Arc<StageSplit>> {
        self.split.lock().clone()
    }

    /// Splits the stage (`Some`) or ends its split (`None`), what the old parts held folded into
    /// the stage first. Only while no merge round is in flight (the merger's balancing).
    pub fn set_split(&self, split: Option<Arc<StageSplit>>) {
        let mut st = self.stages.lock();
        let mut held = self.split.lock();
        if let Some(old) = held.take() {
            old.settle_into(&mut st.current);
        }
        *held = split;
    }

    /// Folds a split stage's parts into `st.current` once they counted every round booked (see
    /// `split`): before the stage is frozen, drained or detached from, it holds exactly the
    /// rounds booked. Call with the stages locked.
    fn settle_parts(&self, st: &mut Stages) {
        if let Some(split) = self.split() {
            split.settle_into(&mut st.current);
        }
    }

    /// A part that grew past its bound, folded by its own thread (see
    /// [`StageSplit::count_part`]).
    pub fn fold_parts(&self) {
        let mut st = self.stages.lock();
        if let Some(split) = self.split() {
            split.fold_into(&mut st.current);
        }
    }

    /// Calls `mark` with every id the stage being counted and the frozen one hold (see
    /// [`Report::mark_key_ids`]). Rows move from the stages to the members only: marking the
    /// stages before the members misses no row that moves meanwhile.
    pub fn mark_stage_key_ids(&self, mark: &mut dyn FnMut(u32)) {
        let st = self.stages.lock();
        // Parts first: their rows move into the stage, as the stage's into the members.
        if let Some(split) = self.split() {
            split.mark_key_ids(mark);
        }
        st.current.mark_key_ids(mark);
        drop(st);
        let handout = self.handout.lock();
        if let Some(frozen) = &handout.frozen {
            frozen.mark_key_ids(mark);
        }
    }

    /// Where `cell` is among the members (see [`ReportCell::join`]).
    pub(crate) fn index_of(&self, cell: &ReportCell) -> Option<usize> {
        self.members
            .iter()
            .position(|m| std::ptr::eq(m.cell.as_ptr(), cell))
    }

    /// Whether the member `cell` is detached from the stage (see [`Family::update`]).
    pub fn is_detached(&self, cell: &ReportCell) -> bool {
        cell.member_index()
            .is_some_and(|i| self.members[i].is_detached())
    }

    /// Counts a round's `n` requests on every attached member, the leader too (their time is
    /// recorded when they take their turn at the stage, the leader's as its step). Called by
    /// [`Family::update`] with the stages locked, which a query's detachment
    /// ([`Family::detach_for_query`]) takes too: so each member's requests of a round are
    /// counted once, here or by a detached member's own update. (Counted after the leader's step
    /// let the lock go, a member a query detached in between would be counted by neither.)
    fn count_attached(&self, n: u64) {
        for m in self.members.iter().filter(|m| !m.is_detached()) {
            if let Some(cell) = m.cell.upgrade() {
                cell.instrument.count_timed_apart(n);
            }
        }
    }

    /// The live members the stage feeds (not detached), in order.
    fn attached(&self) -> Vec<(Arc<ReportCell>, &[usize])> {
        self.members
            .iter()
            .filter(|m| !m.is_detached())
            .filter_map(|m| m.cell.upgrade().map(|c| (c, &m.projection[..])))
            .collect()
    }

    /// Brings the family up to `now_ms` and counts `batch` into the stage (the leader's
    /// per-round step). When the members' tick ends, the stage is frozen (it holds exactly what
    /// was merged before) and handed to one member per round, each then moving into the new
    /// tick; `batch` goes into a fresh stage. A periodic drain is handed out the same way.
    ///
    /// A member that `queried` says is read by queries is **detached** if a query has not done
    /// it already (see the module docs). Returns the detached members: the caller counts `batch`
    /// into each (advance, then add) after this returns, with the stages unlocked. A detached
    /// member no longer queried rejoins the stage the first round the stage is empty (after a
    /// drain or a tick), so no request reaches it twice.
    ///
    /// `worker` is the leader's merge thread: the leader hands the frozen stage to a member on it
    /// (or a dropped one) per round; the others take it on their own thread
    /// ([`Family::take_turn`]). `None`: the thread had a member's turn this round already.
    ///
    /// `behind`: `Some(now_ms)` when the merger is behind (its ring of received batches filling
    /// up). Turns then wait while less than half the time the frozen stage has to reach every
    /// member has passed: a turn (a member absorbing the stage and closing its tick) can take
    /// 100 ms and more for a wide report, and tens of members taking theirs back to back after a
    /// tick would hold the merge threads for seconds while the ring fills and drops requests.
    /// Paced, the turns fill the time the threads have to spare over the first half of the tick.
    ///
    /// `round`: the merger's round number. While the stage is split (see `split`), this thread
    /// counts only slice 0 of `batch` into it and the parts' threads the rest; the steps above
    /// (freeze, drain, detach, rejoin) come first and are the round's booking, after which the
    /// parts count it.
    pub fn update(
        &self,
        now_ms: u64,
        batch: &PreparedBatch,
        queried: impl Fn(&ReportCell) -> bool,
        worker: Option<usize>,
        behind: Option<u64>,
        round: u64,
    ) -> LeaderRound {
        let mut st = self.stages.lock();
        let mut h = self.handout.lock();
        let split = self.split();
        let mut handed_ns = 0;
        // Members share one phase: any member's tick ending (a detached one's too, moved to the
        // last round's time) ends every member's.
        let ended = |m: &Member| m.cell.upgrade().is_some_and(|c| c.next_tick_ms() <= now_ms);
        // The frozen stage must reach every member before the tick after the one it was frozen
        // in begins (a periodic drain's before any member's tick ends, a tick's before another
        // tick ends: rounds slower than ticks, or turns still waiting). The rest get it now, so
        // that `current` never spans two ticks.
        if h.frozen.is_some() && now_ms >= h.due_ms {
            handed_ns += self.hand_all(&mut h);
        }
        if h.frozen.is_none() && self.members.iter().any(ended) {
            self.settle_parts(&mut st);
            self.freeze(&mut st, &mut h, now_ms, true);
            st.drained_ms = now_ms;
        }
        // A split stage's periodic drain is frozen here, at the round's booking, where the parts
        // are awaited only for the rounds before (at the round's end it would wait for this
        // round's parts: see `split` for why that could deadlock).
        if split.is_some() && h.frozen.is_none() && drain_due(&st, split.as_deref(), now_ms) {
            self.settle_parts(&mut st);
            self.freeze(&mut st, &mut h, now_ms, false);
            st.drained_ms = now_ms;
        }
        let waiting = h.pending.len();
        if let Some(worker) = worker.filter(|_| !h.paced(behind)) {
            handed_ns += self.hand_frozen(&mut h, 1, |m| {
                m.cell.upgrade().is_none_or(|c| c.worker() == worker)
            });
        }
        let handed = h.pending.len() < waiting;
        let (detached, attached) = self.detach_or_rejoin(&mut st, &mut h, now_ms, queried);
        // Members on other threads take their turn while the stage counts the round.
        drop(h);
        let mut range = 0..batch.len();
        if let Some(split) = &split {
            split.book(round, attached);
            range = split.slice(batch.len(), 0);
        }
        if !range.is_empty() && attached {
            Report::add_slice_in_steps(&mut &mut st.current, batch, range, |_| {});
            st.current.settle_memory();
        }
        self.count_attached(batch.len() as u64);
        if st.current.rows() >= STAGE_MAX_ROWS {
            let mut h = self.handout.lock();
            handed_ns += self.hand_all(&mut h);
            drain(&mut st.current, &self.attached(), true);
            st.drained_ms = now_ms;
        }
        if split.is_none() && drain_due(&st, None, now_ms) {
            let mut h = self.handout.lock();
            if h.frozen.is_none() {
                self.freeze(&mut st, &mut h, now_ms, false);
                st.drained_ms = now_ms;
            }
        }
        LeaderRound {
            detached,
            handed,
            handed_ns,
        }
    }

    /// A member's own step in a round on a merge thread other than its leader's: if the frozen
    /// stage waits for it, it absorbs the stage there (timed by its own instrument) and, when the
    /// stage ends a tick, moves into the new one. Returns whether it did: the caller lets one
    /// member do so per round and thread (a turn can take tens of ms). `behind`: see
    /// [`Family::update`].
    pub fn take_turn(&self, cell: &ReportCell, behind: Option<u64>) -> bool {
        let Some(i) = cell.member_index() else {
            return false;
        };
        let member = &self.members[i];
        if !member.pending.load(Relaxed) {
            return false;
        }
        // Not while the leader holds the handout to hand the stage to a member on its thread
        // (tens of ms): this thread would wait for that thread's work. It tries next round.
        let Some(mut h) = self.handout.try_lock() else {
            return false;
        };
        if !h.pending.contains(&i) || h.paced(behind) {
            return false;
        }
        let Some(frozen) = h.frozen.clone() else {
            return false;
        };
        h.pending.retain(|&p| p != i);
        member.pending.store(false, Relaxed);
        let tick_ms = h.tick_ms();
        // The last turn lets the handout's stage go (this thread keeps it to absorb): the next
        // stage may be frozen meanwhile.
        self.finish_if_handed(&mut h);
        let t = cell.instrument.start();
        // Taken before the handout is let go: whoever hands this member its next stage, or reads
        // it, waits for this turn, so its stages reach it in order.
        let r = cell.report.write();
        drop(h);
        absorb_frozen(cell, r, &frozen, &member.projection, tick_ms, t);
        // Held last here: emptied and kept for the next freeze, unless the leader is handing.
        if let Ok(mut f) = Arc::try_unwrap(frozen) {
            f.empty_stage(true);
            if let Some(mut h) = self.handout.try_lock() {
                h.spare.get_or_insert(f);
            }
        }
        true
    }

    /// Once every member has the frozen stage, lets it go: emptied and kept for the next freeze,
    /// or, while a member's thread still absorbs it, left to that thread (see
    /// [`Family::take_turn`]).
    fn finish_if_handed(&self, h: &mut Handout) {
        if !h.pending.is_empty() {
            return;
        }
        if let Some(Ok(mut f)) = h.frozen.take().map(Arc::try_unwrap) {
            f.empty_stage(true);
            h.spare = Some(f);
        }
    }

    /// Detaches the members queries read lately and rejoins the others where it is exact (see
    /// [`Family::update`]); returns the detached ones, and whether any live member still takes
    /// the stage (if none does, the stage is kept empty).
    fn detach_or_rejoin(
        &self,
        st: &mut Stages,
        h: &mut Handout,
        now_ms: u64,
        queried: impl Fn(&ReportCell) -> bool,
    ) -> (Vec<Arc<ReportCell>>, bool) {
        let mut direct = Vec::new();
        let mut attached = false;
        // Whether the stage holds nothing, its parts included (which must have counted every
        // round booked: a part still counting one would hand a rejoined member requests it was
        // given directly).
        let empty = |st: &Stages| {
            st.current.open_totals.contribs == 0 && self.split().is_none_or(|s| s.is_idle())
        };
        for (i, m) in self.members.iter().enumerate() {
            let Some(cell) = m.cell.upgrade() else {
                continue;
            };
            let wanted = queried(&cell);
            if wanted && !m.is_detached() {
                self.detach(st, h, i, &cell);
            } else if !wanted && m.is_detached() && empty(st) {
                // It holds every request merged so far; the stage holds none. Into the round's
                // tick, as the members the stage feeds.
                let mut r = cell.report.write();
                r.advance(now_ms);
                cell.publish(&r);
                m.detached.store(false, Relaxed);
            }
            if m.is_detached() {
                direct.push(cell);
            } else {
                attached = true;
            }
        }
        if !attached && st.current.open_totals.contribs > 0 {
            // Every member has what the stage holds: nobody needs it.
            st.current.flush_hist();
            st.current.empty_stage(true);
        }
        (direct, attached)
    }

    /// Freezes the current stage for handing out (see [`Handout::frozen`]); a fresh one counts
    /// on. Call with nothing frozen.
    fn freeze(&self, st: &mut Stages, h: &mut Handout, now_ms: u64, at_tick: bool) {
        debug_assert!(h.frozen.is_none());
        let fresh = h.spare.take().unwrap_or_else(|| st.current.stage_like());
        let mut frozen = std::mem::replace(&mut st.current, fresh);
        frozen.seal_stage();
        frozen.settle_memory();
        let w = frozen.window;
        h.due_ms = w.tick_start(w.tick_of(now_ms) + 1);
        h.frozen_ms = now_ms;
        h.frozen_at_tick = at_tick;
        h.pending = (0..self.members.len())
            .filter(|&i| !self.members[i].is_detached())
            .collect();
        for &i in &h.pending {
            self.members[i].pending.store(true, Relaxed);
        }
        if h.pending.is_empty() {
            frozen.empty_stage(true);
            h.spare = Some(frozen);
        } else {
            h.frozen = Some(Arc::new(frozen));
        }
    }

    /// Hands the frozen stage to up to `n` pending members that `pick` accepts, in order (see
    /// [`Family::hand_to`]). Returns the time it took, counted on the members' instruments.
    fn hand_frozen(&self, h: &mut Handout, n: usize, pick: impl Fn(&Member) -> bool) -> u64 {
        let mut ns = 0;
        for _ in 0..n {
            let Some(&i) = h.pending.iter().find(|&&i| pick(&self.members[i])) else {
                break;
            };
            ns += self.hand_to(h, i);
        }
        ns
    }

    /// Hands the frozen stage to every member still waiting for it (see [`Family::hand_to`]).
    fn hand_all(&self, h: &mut Handout) -> u64 {
        self.hand_frozen(h, usize::MAX, |_| true)
    }

    /// Hands the frozen stage to member `i` if it is still waiting for it: it absorbs it and,
    /// when it ends a tick, moves into the tick of the round that froze it. Once every member
    /// has it, it is emptied and kept for the next freeze. Returns the time it took (ns; 0 when
    /// untimed), counted on the member's instrument.
    fn hand_to(&self, h: &mut Handout, i: usize) -> u64 {
        let Some(at) = h.pending.iter().position(|&p| p == i) else {
            return 0;
        };
        h.pending.remove(at);
        let member = &self.members[i];
        member.pending.store(false, Relaxed);
        let mut ns = 0;
        if let (Some(f), Some(cell)) = (h.frozen.as_ref(), member.cell.upgrade()) {
            let t = cell.instrument.start();
            let r = cell.report.write();
            ns = absorb_frozen(&cell, r, f, &member.projection, h.tick_ms(), t);
        }
        self.finish_if_handed(h);
        ns
    }

    /// Detaches `cell` at once, before a query reads it: it takes what the stages hold for it, so
    /// the query reads it complete, and the merge thread updates it directly from its next round
    /// on (see [`Family::update`]; the query marked it as queried, so it is not rejoined before
    /// [`QUERIED_FOR_MS`] without queries). Costs one pass over the stage, once: later queries
    /// find it detached and take no lock here.
    pub fn detach_for_query(&self, cell: &ReportCell) {
        let Some(index) = cell.member_index() else {
            return;
        };
        if self.members[index].is_detached() {
            return;
        }
        let mut st = self.stages.lock();
        let mut h = self.handout.lock();
        if !self.members[index].is_detached() {
            self.detach(&mut st, &mut h, index, cell);
        }
    }

    /// Member `i` (`cell`) takes everything the stages hold for it, the frozen one first (it may
    /// end a tick; `current` then only holds requests of the member's open tick), and is
    /// detached: the stage no longer feeds it. (If it is absorbing the frozen stage on its own
    /// thread, the write lock below waits for that.)
    fn detach(&self, st: &mut Stages, h: &mut Handout, i: usize, cell: &ReportCell) {
        let m = &self.members[i];
        self.hand_to(h, i);
        self.settle_parts(st);
        st.current.seal_stage();
        let mut r = cell.report.write();
        absorb_stage(&st.current, &mut r, &m.projection);
        cell.publish(&r);
        m.detached.store(true, Relaxed);
    }

    /// Folds everything the stages hold into every member the stage feeds, members still waiting
    /// for a frozen stage getting it first (tests, snapshots, history at shutdown).
    pub fn drain(&self) {
        self.drain_on(1);
    }

    /// [`Family::drain`] with the members' absorbs of the current stage spread over `threads`
    /// threads (each member is independent, the stage only read meanwhile): at a stop, for a
    /// stage the snapshot does not keep (a lattice's, see [`SavedFamily`]), which after a flood
    /// of new names may hold a million rows.
    pub fn drain_on(&self, threads: usize) {
        let mut st = self.stages.lock();
        let mut h = self.handout.lock();
        self.hand_all(&mut h);
        self.settle_parts(&mut st);
        drain_spread(&mut st.current, &self.attached(), false, threads);
    }
}

/// Whether a stage (and its parts, `split`) is due for a periodic drain (see
/// [`DRAIN_EVERY_MS`]).
fn drain_due(st: &Stages, split: Option<&StageSplit>, now_ms: u64) -> bool {
    now_ms.saturating_sub(st.drained_ms) >= DRAIN_EVERY_MS
        && (st.current.open_totals.contribs > 0 || split.is_some_and(|s| s.holds_requests()))
}

/// For each of a round's reports (`cells`), the index in `cells` of its family's leader in the
/// round: the first of the family's members among them (usize::MAX for a report in no family).
/// Decided per round, so that when a member is dropped exactly one of the others takes over from
/// the next round on. One pass: a per-member scan of the round would be quadratic in the reports.
pub fn round_leaders(cells: &[Arc<ReportCell>]) -> Vec<usize> {
    let family_of = |c: &ReportCell| c.family().map(|f| Arc::as_ptr(f) as usize);
    let mut first: FxHashMap<usize, (usize, usize)> = FxHashMap::default();
    for (at, c) in cells.iter().enumerate() {
        if let (Some(f), Some(i)) = (family_of(c), c.member_index()) {
            let e = first.entry(f).or_insert((i, at));
            if i < e.0 {
                *e = (i, at);
            }
        }
    }
    cells
        .iter()
        .map(|c| family_of(c).map_or(usize::MAX, |f| first[&f].1))
        .collect()
}

/// Counts a (flushed) stage's totals and rows into one member's open tick; what the stage
/// counted in its "(other)" row (rows it had no memory for) goes to the member's.
pub(super) fn absorb_stage(stage: &Report, r: &mut Report, projection: &[usize]) {
    if stage.open_totals.contribs == 0 {
        return;
    }
    if stage.lattice.is_some() {
        return absorb_lattice(stage, r, projection);
    }
    r.absorb_totals(stage);
    r.reserve_for_stage(stage, projection);
    // Each stage row is a random row of the member: fetched a few rows ahead.
    let rows = projected(stage, projection);
    with_lookahead(
        r,
        rows,
        |r, (key, _, _)| r.open.prefetch_ids(key.slice()),
        |r, (key, _, row)| r.absorb(&key, row, row.sums.req_count),
    );
}

/// A member's turn at a frozen stage, its write lock held (`r`): absorbs the stage, moves into
/// the tick it ends (`tick_ms`; a member whose keys are the stage's closes that tick straight
/// from the stage when it can, see `Report::advance_from_stage`), publishes, and records the
/// turn on the member's instrument (started at `t`). Returns the time recorded (ns).
fn absorb_frozen(
    cell: &ReportCell,
    mut r: parking_lot::RwLockWriteGuard<'_, Report>,
    frozen: &Report,
    projection: &[usize],
    tick_ms: Option<u64>,
    t: Option<std::time::Instant>,
) -> u64 {
    match tick_ms {
        Some(ms) if r.closes_from_stage(frozen, projection, ms) => {
            r.advance_from_stage(ms, frozen, projection)
        }
        _ => {
            absorb_stage(frozen, &mut r, projection);
            if let Some(ms) = tick_ms {
                r.advance(ms);
            }
        }
    }
    cell.publish(&r);
    drop(r);
    cell.instrument.record(t, 0)
}

/// Every stage row that counted something since the last drain, keyed by a member's key
/// (`projection`: where each of the member's keys sits in the stage's).
pub(super) fn projected<'a>(
    stage: &'a Report,
    projection: &'a [usize],
) -> impl Iterator<Item = (KeyBuf, &'a [u32], &'a Row)> + 'a {
    stage
        .open
        .iter(stage.keys.len())
        .filter(|(_, row)| row.contribs > 0)
        .map(move |(ids, row)| {
            let mut key = KeyBuf {
                ids: [0; MAX_KEYS],
                len: projection.len(),
            };
            for (slot, &at) in key.ids.iter_mut().zip(projection) {
                *slot = ids[at];
            }
            (key, ids, row)
        })
}

/// The drain: the stage's totals and rows into each member, member after member (one member's
/// map stays in cache while every stage row is counted into it), then the stage emptied.
fn drain(stage: &mut Report, members: &[(Arc<ReportCell>, &[usize])], sweep: bool) {
    drain_spread(stage, members, sweep, 1)
}

/// [`drain`] over `threads` threads (scoped, named `pinbad-drain-N`; 1: this thread). Each
/// thread takes the next member not taken yet, the members with the most keys first (a
/// member's share of the work is its rows, which its keys bound): fixed shares would leave a
/// thread waiting while another folds the heaviest members.
fn drain_spread(
    stage: &mut Report,
    members: &[(Arc<ReportCell>, &[usize])],
    sweep: bool,
    threads: usize,
) {
    stage.seal_stage();
    if stage.open_totals.contribs > 0 {
        let stage: &Report = stage;
        let absorb = |(cell, projection): &(Arc<ReportCell>, &[usize])| {
            let mut r = cell.report.write();
            absorb_stage(stage, &mut r, projection);
            cell.publish(&r);
        };
        if threads <= 1 || members.len() <= 1 {
            members.iter().for_each(absorb);
        } else {
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(members[i].1.len()));
            let next = std::sync::atomic::AtomicUsize::new(0);
            let work = || {
                while let Some(&i) = order.get(next.fetch_add(1, Relaxed)) {
                    absorb(&members[i]);
                }
            };
            std::thread::scope(|s| {
                let mut started = 0;
                for t in 0..threads.min(members.len()) {
                    started += std::thread::Builder::new()
                        .name(format!("pinbad-drain-{t}"))
                        .spawn_scoped(s, work)
                        .is_ok() as usize;
                }
                if started == 0 {
                    work();
                }
            });
        }
    }
    stage.empty_stage(sweep);
}

/// Groups `reports` into families (two or more members each). The members share one phase
/// already (see [`Report::phase_seed`]), but for a lattice family's: it is set here, the first
/// member's.
/// Returns, per family, the indices of its members and its stage. Call before any request was
/// counted.
///
/// Request reports form families only when `request_families` (`merge.request_families`, on by
/// default): with PHP-like traffic (Zipf-popular scripts over tens of hosts) the built-ins'
/// 5-tuples repeat within a drain, so the stage saves CPU per packet, and queries cost what they
/// cost without it because a queried member is detached (see the module docs). Where the 5-tuples
/// hardly repeat within a drain, a stage row sums one request and the stage costs a little more
/// than direct updates. Timer reports, ~9 timers a request over few tag values, gain either way.
/// BENCHMARKS.md has the figures.
///
/// With `lattice` (`merge.lattice`, off by default), timer reports form families around a
/// **top**: a report whose keys include every member's, fields and timer tags alike ([`tops`]),
/// and the stage is keyed like the top (a lattice stage, see `lattice`, where the members' timer
/// tags differ). So a stage never holds more rows than a report the configuration asked for:
/// keyed by the union of fields and tags of different reports, it could be near one row per
/// timer (5 request fields by 3 tags of 50 values, say), and cost more than it saves. Without
/// `lattice`, timer reports form families as request reports do, over one set of timer tags.
pub fn form_families(
    reports: &mut [Report],
    request_families: bool,
    lattice: bool,
) -> Vec<(Vec<usize>, Report)> {
    let mut groups: Vec<(FamilyKey, Vec<usize>)> = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        let key = r.family_key(!(lattice && r.kind == Kind::Timer));
        if !key.timer && !request_families {
            continue;
        }
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut out = Vec::new();
    for (key, group) in groups {
        let families = if key.timer && lattice {
            tops(reports, &group)
        } else {
            vec![group]
        };
        for members in families.into_iter().filter(|m| m.len() > 1) {
            let phase = reports[members[0]].window.phase_ms;
            for &i in &members {
                reports[i].set_phase(phase);
            }
            let refs: Vec<&Report> = members.iter().map(|&i| &reports[i]).collect();
            let mut stage = Report::stage_for(&refs);
            if refs
                .iter()
                .any(|r| r.timer_tag_set() != refs[0].timer_tag_set())
            {
                stage.make_lattice(&refs);
            }
            out.push((members, stage));
        }
    }
    out
}

/// Timer reports of one group (equal filters, window and request tags) in families around tops:
/// the reports with most keys first, each joins the top with the fewest keys that includes all
/// of its keys (the fewest rows to fold from), or is a top itself. A top's family holds at most
/// [`MAX_SUBSETS`] sets of timer tags, over at most [`MAX_TAGS`] tags. Members in config order.
fn tops(reports: &[Report], group: &[usize]) -> Vec<Vec<usize>> {
    let tags: FxHashMap<usize, Vec<u32>> = group
        .iter()
        .map(|&i| (i, reports[i].timer_tag_set()))
        .collect();
    let mut order = group.to_vec();
    order.sort_by_key(|&i| std::cmp::Reverse(reports[i].keys.len()));
    // Each family: its members (the top first) and its distinct sets of timer tags.
    let mut families: Vec<(Vec<usize>, Vec<&Vec<u32>>)> = Vec::new();
    for i in order {
        let (keys, set) = (&reports[i].keys, &tags[&i]);
        let fits = |(members, sets): &&mut (Vec<usize>, Vec<&Vec<u32>>)| {
            let top = members[0];
            keys.iter().all(|k| reports[top].keys.contains(k))
                && tags[&top].len() <= MAX_TAGS
                && (sets.contains(&set) || sets.len() < MAX_SUBSETS)
        };
        match families
            .iter_mut()
            .filter(fits)
            .min_by_key(|(members, _)| reports[members[0]].keys.len())
        {
            Some((members, sets)) => {
                members.push(i);
                if !sets.contains(&set) {
                    sets.push(set);
                }
            }
            None => families.push((vec![i], vec![set])),
        }
    }
    let mut families: Vec<Vec<usize>> = families
        .into_iter()
        .map(|(mut members, _)| {
            members.sort_unstable();
            members
        })
        .collect();
    families.sort();
    families
}

/// What a family's stages hold at a stop, as the snapshot keeps them (see `snapshot`), so that
/// the stop does not fold them into every member (after a flood of new names, a million rows
/// into each member: most of a stop's time and memory). The next start puts them back into the
/// family as it was ([`restore_stages`]), where the next fold moves them into the members as it
/// would have without the restart; a family the configuration changed gets them folded into
/// its members at once.
///
/// Written: its members (for each, the names reading its table, its own first; where its keys
/// sit in the stage's; whether the stage feeds it; whether the frozen stage waits for it), the
/// stage's keys (which hold dictionary ids), when it was last drained, the stage being counted
/// and, while one is handed out, the frozen stage with its round and due time. A split stage's
/// parts are folded into it first ([`Family::prepare_save`]); a lattice stage is drained into
/// its members instead (it keeps per-subset counts not saved: `merge.lattice` is off by
/// default).
#[derive(Debug)]
pub struct SavedFamily {
    members: Vec<SavedMember>,
    id_keys: Vec<bool>,
    drained_ms: u64,
    current: SavedStage,
    frozen: Option<SavedFrozen>,
}

#[derive(Debug)]
struct SavedMember {
    /// The names that read its table (the member's own first, then its twins'): a restore
    /// fills the table from whichever of them comes first (see `snapshot`).
    names: Vec<String>,
    projection: Vec<usize>,
    detached: bool,
    /// Whether the frozen stage waits for it.
    pending: bool,
}

#[derive(Debug)]
struct SavedFrozen {
    stage: SavedStage,
    frozen_ms: u64,
    due_ms: u64,
    at_tick: bool,
}

impl Family {
    /// Readies the family's stages for the snapshot, once nothing merges any more: a split
    /// stage's parts folded into it, a lattice stage drained into its members (`threads`: see
    /// [`Family::drain_on`]). Returns whether the stages hold anything to save
    /// ([`Family::save`]): requests some member is yet to take, or a frozen stage some member
    /// waits for (it may end their tick).
    pub fn prepare_save(&self, threads: usize) -> bool {
        if !self.can_split() {
            self.drain_on(threads);
            return false;
        }
        let mut st = self.stages.lock();
        self.settle_parts(&mut st);
        st.current.flush_hist();
        // Every member detached (queried lately): what the stage holds, each has already.
        let fed = self
            .members
            .iter()
            .any(|m| !m.is_detached() && m.cell.strong_count() > 0);
        fed && (st.current.open_totals.contribs > 0 || self.handout.lock().frozen.is_some())
    }

    /// Writes the stages (see [`SavedFamily`]) after [`Family::prepare_save`], their rows in
    /// `layout` (the snapshot version's).
    pub fn save<W: std::io::Write>(
        &self,
        w: &mut Writer<W>,
        layout: super::Layout,
    ) -> std::io::Result<()> {
        let st = self.stages.lock();
        let h = self.handout.lock();
        w.u32(self.members.len() as u32)?;
        for (i, m) in self.members.iter().enumerate() {
            // A member dropped at run time: only its twins' names, if any still read its table.
            let names: Vec<String> = m.cell.upgrade().map_or_else(Vec::new, |c| {
                c.sharers().iter().map(|c| c.name().to_string()).collect()
            });
            w.u32(names.len() as u32)?;
            for n in &names {
                w.blob(n.as_bytes())?;
            }
            w.u32(m.projection.len() as u32)?;
            for &at in &m.projection {
                w.u32(at as u32)?;
            }
            let pending = h.frozen.is_some() && h.pending.contains(&i);
            w.u16(m.is_detached() as u16 | (pending as u16) << 1)?;
        }
        let ids = st.current.id_keys();
        w.u32(ids.len() as u32)?;
        for id in ids {
            w.u16(id as u16)?;
        }
        w.u64(st.drained_ms)?;
        st.current.save_stage(w, layout)?;
        match &h.frozen {
            Some(f) => {
                w.u16(1)?;
                w.u64(h.frozen_ms)?;
                w.u64(h.due_ms)?;
                w.u16(h.frozen_at_tick as u16)?;
                f.save_stage(w, layout)
            }
            None => w.u16(0),
        }
    }

    /// Puts `saved` back, this family being the one that saved it (same members in the same
    /// order, same stage keys: see [`SavedFamily::saved_by`]), at start before anything
    /// merges. Its members were restored from the same snapshot.
    fn put_back(&self, saved: SavedFamily) {
        let mut st = self.stages.lock();
        let mut h = self.handout.lock();
        st.current.put_back_stage(saved.current);
        st.drained_ms = saved.drained_ms;
        for (m, s) in self.members.iter().zip(&saved.members) {
            m.detached.store(s.detached, Relaxed);
        }
        let Some(f) = saved.frozen else {
            return;
        };
        h.pending = (0..self.members.len())
            .filter(|&i| saved.members[i].pending)
            .collect();
        if h.pending.is_empty() {
            return;
        }
        for &i in &h.pending {
            self.members[i].pending.store(true, Relaxed);
        }
        let mut frozen = st.current.stage_like();
        frozen.put_back_stage(f.stage);
        h.frozen = Some(Arc::new(frozen));
        h.frozen_ms = f.frozen_ms;
        h.due_ms = f.due_ms;
        h.frozen_at_tick = f.at_tick;
    }
}

#[cfg(test)]
impl Family {
    /// Requests the stages hold (the one counted into and the frozen one), not yet in the
    /// members they feed.
    pub(crate) fn staged_requests(&self) -> u64 {
        let current = self.stages.lock().current.open_totals.sums.req_count;
        let h = self.handout.lock();
        current
            + h.frozen
                .as_ref()
                .map_or(0, |f| f.open_totals.sums.req_count)
    }
}

impl SavedFamily {
    /// What [`Family::save`] wrote (in `layout`), key ids remapped (`remap`: old id → this
    /// run's).
    pub fn read(
        r: &mut Reader<'_>,
        remap: &dyn Fn(u32) -> u32,
        layout: super::Layout,
    ) -> Result<SavedFamily, SnapshotError> {
        let bad = |what: &str| SnapshotError::invalid(&format!("a family's stage: {what}"));
        let count = r.count(10)?;
        let mut members = Vec::with_capacity(count);
        for _ in 0..count {
            let names = (0..r.count(8)?)
                .map(|_| Ok(String::from_utf8_lossy(r.blob()?).into_owned()))
                .collect::<Result<Vec<_>, SnapshotError>>()?;
            let projection = (0..r.count(4)?)
                .map(|_| Ok(r.u32()? as usize))
                .collect::<Result<Vec<_>, SnapshotError>>()?;
            let flags = r.u16()?;
            members.push(SavedMember {
                names,
                projection,
                detached: flags & 1 != 0,
                pending: flags & 2 != 0,
            });
        }
        let n = r.count(2)?;
        if n > MAX_KEYS {
            return Err(bad("too many keys"));
        }
        let id_keys = (0..n)
            .map(|_| Ok(r.u16()? != 0))
            .collect::<Result<Vec<_>, SnapshotError>>()?;
        if members
            .iter()
            .any(|m| m.projection.len() > n || m.projection.iter().any(|&at| at >= n))
        {
            return Err(bad("a member's keys are not in it"));
        }
        let drained_ms = r.u64()?;
        let current = SavedStage::read(r, &id_keys, remap, layout)?;
        let frozen = match r.u16()? {
            0 => None,
            1 => {
                let (frozen_ms, due_ms, at_tick) = (r.u64()?, r.u64()?, r.u16()? != 0);
                Some(SavedFrozen {
                    stage: SavedStage::read(r, &id_keys, remap, layout)?,
                    frozen_ms,
                    due_ms,
                    at_tick,
                })
            }
            _ => return Err(bad("a bad frozen flag")),
        };
        Ok(SavedFamily {
            members,
            id_keys,
            drained_ms,
            current,
            frozen,
        })
    }

    /// The family that saved it, if this run has it unchanged: `targets` (each member's table,
    /// see [`restore_stages`]) are all there, members of one family in the same places, with
    /// the same keys in the stage, which is not a lattice.
    fn saved_by(&self, targets: &[Option<Arc<ReportCell>>]) -> Option<Arc<Family>> {
        let first = targets.first()?.as_ref()?;
        let family = Arc::clone(first.family()?);
        let same = family.members.len() == self.members.len()
            && family.can_split()
            && family.with_stage(|s| s.id_keys()) == self.id_keys
            && targets
                .iter()
                .zip(&self.members)
                .enumerate()
                .all(|(i, (t, s))| {
                    t.as_ref().is_some_and(|t| {
                        t.family().is_some_and(|f| Arc::ptr_eq(f, &family))
                            && t.member_index() == Some(i)
                            && family.members[i].projection == s.projection
                    })
                });
        same.then_some(family)
    }

    /// Folds the saved stages into `targets` (each member's table, where restored) as the
    /// family would have: the frozen stage into the members it waited for (each then moving
    /// into the tick it ended), then the stage into the members it fed. For a family this run
    /// does not have as it was; each table then holds what it would have held without the
    /// restart, and its own family's stage (empty) takes it from here.
    fn fold_into(self, targets: &[Option<Arc<ReportCell>>]) {
        let covered: Vec<Option<Key>> = (0..self.id_keys.len())
            .map(|at| {
                self.members.iter().zip(targets).find_map(|(m, t)| {
                    let j = m.projection.iter().position(|&p| p == at)?;
                    t.as_ref()?.report.read().keys.get(j).copied()
                })
            })
            .collect();
        let Some(model) = targets.iter().flatten().next() else {
            return;
        };
        // A stage to fold from, keyed like the saved one where any target reads it (a key no
        // target reads is never looked at: `Status` holds its place).
        let stage_of = |saved: SavedStage| {
            let model = model.report.read();
            let keys = covered.iter().map(|k| k.unwrap_or(Key::Status)).collect();
            let mut stage = Report::empty(
                model.def.clone(),
                model.kind,
                keys,
                model.filters.clone(),
                model.window,
            );
            stage.account = Account::new(model.account.budget().clone());
            stage.put_back_stage(saved);
            stage
        };
        let current = stage_of(self.current);
        let frozen = self
            .frozen
            .map(|f| (stage_of(f.stage), f.frozen_ms, f.at_tick));
        for (m, t) in self.members.iter().zip(targets) {
            let Some(cell) = t else {
                continue;
            };
            let mut r = cell.report.write();
            // Only a damaged file that passed its checksum says otherwise (a target's
            // definition is the saved one's).
            if m.projection.len() != r.keys.len() {
                tracing::warn!(report = %cell.name(), "Snapshot: its family's saved stage does not fit it; not folded");
                continue;
            }
            if let Some((stage, frozen_ms, at_tick)) = frozen.as_ref().filter(|_| m.pending) {
                absorb_stage(stage, &mut r, &m.projection);
                if *at_tick {
                    r.advance(*frozen_ms);
                }
            }
            if !m.detached {
                absorb_stage(&current, &mut r, &m.projection);
            }
            cell.publish(&r);
        }
    }
}

/// At start, after the reports' windows were restored: puts each saved family's stages back
/// ([`SavedFamily`]). `filled_from(name)`: the report `name`, if its table was restored from
/// the snapshot's entry of that name (each restored table is filled from one entry). A member's
/// share of the stages goes to the table of the first of its names that filled one: a table
/// holding that member's window at the stop, which the stage's rows were yet to reach. Where
/// none did (the report was dropped, or its definition or window changed: it starts empty), its
/// share goes with the rest of its window. Returns the families put back as they were and those
/// folded into their members at once (see [`SavedFamily::fold_into`]).
pub fn restore_stages(
    saved: Vec<SavedFamily>,
    filled_from: &dyn Fn(&str) -> Option<Arc<ReportCell>>,
) -> (u64, u64) {
    let (mut put_back, mut folded) = (0, 0);
    for s in saved {
        let targets: Vec<Option<Arc<ReportCell>>> = s
            .members
            .iter()
            .map(|m| m.names.iter().find_map(|n| filled_from(n)))
            .collect();
        for (m, t) in s.members.iter().zip(&targets) {
            if t.is_none() && !m.names.is_empty() {
                tracing::info!(report = %m.names[0], "Snapshot: the report was not restored; its part of its family's stage is not either");
            }
        }
        match s.saved_by(&targets) {
            Some(family) => {
                family.put_back(s);
                put_back += 1;
            }
            None => {
                s.fold_into(&targets);
                folded += 1;
            }
        }
    }
    (put_back, folded)
}

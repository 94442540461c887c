//! The pipeline's core, which the threads share behind one `Arc`: the config, the counters, the
//! clock, the raw pool, the dictionary, the reports, the temp ring's handle and the taps.
//!
//! Only what the pipeline itself needs lives here; the services beside it (history, metrics,
//! sinks, the stream's subscribers, what the snapshot restored) are built by `app` and handed to
//! the front ends and taps that use them. Fields are private: readers get each part through a
//! method, and only start-up (restoring a snapshot) replaces a part.
//!
//! Its own module so that the stages (merger, api) use it without importing `app`, the module that
//! starts them. Building it allocates the pool and creates the start-up reports; it binds nothing
//! and starts no thread, which is also what `pinbad check-config` runs.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::RwLock;

use crate::budget::{Account, Budget};
use crate::config::Config;
use crate::counters::Counters;
use crate::dictionary::Dictionary;
use crate::durable::{OnDamage, SetAside};
use crate::pool::Pool;
use crate::report::{Query, Report, ReportCell, ReportDef, ReportError, ReportSet, Table};
use crate::ring::Ring;
use crate::tap::Taps;

/// The pool's clock: milliseconds since the app's epoch, as the u32 the pool stores, and the wall
/// time they correspond to. The epoch is the daemon's start, or the start of the run whose
/// snapshot was restored ([`Clock::resume`]), so that restored timestamps stay valid as they are.
/// Only the merger and the API read it; the pure stages get time as an argument.
#[derive(Debug)]
pub struct Clock {
    /// When this process started (uptime).
    started: Instant,
    /// Milliseconds since the epoch at `started` (0 unless resumed).
    base_ms: u64,
    epoch_unix_ms: u64,
}

/// Wall-clock time, Unix milliseconds (0 if the system clock is before 1970).
pub fn unix_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Clock {
    pub fn new() -> Clock {
        Clock {
            started: Instant::now(),
            base_ms: 0,
            epoch_unix_ms: unix_now_ms(),
        }
    }

    /// A clock that continues the epoch of an earlier run (Unix ms): now is the wall time elapsed
    /// since that epoch, and never less than `at_least_ms` (the earlier run's last reading), so
    /// time does not go back if the wall clock did.
    pub fn resume(epoch_unix_ms: u64, at_least_ms: u64) -> Clock {
        let elapsed = unix_now_ms().saturating_sub(epoch_unix_ms);
        Clock {
            started: Instant::now(),
            base_ms: elapsed.max(at_least_ms),
            epoch_unix_ms,
        }
    }

    /// Unix time in milliseconds of the epoch (merger time 0).
    pub fn epoch_unix_ms(&self) -> u64 {
        self.epoch_unix_ms
    }

    /// Now, in pool milliseconds (wraps after 49 days; the pool compares with `wrapping_sub`).
    pub fn now_ms(&self) -> u32 {
        self.now_ms64() as u32
    }

    /// Now, in milliseconds since the epoch, without wrapping (report windows).
    pub fn now_ms64(&self) -> u64 {
        self.base_ms + self.started.elapsed().as_millis() as u64
    }

    /// Unix time in milliseconds of a merger timestamp from [`Clock::now_ms64`].
    pub fn unix_ms64(&self, ms: u64) -> u64 {
        self.epoch_unix_ms + ms
    }

    /// Unix time in milliseconds of a pool timestamp no older than 49 days.
    pub fn unix_ms(&self, pool_ms: u32) -> u64 {
        self.unix_ms_at(pool_ms, self.now_ms64())
    }

    /// [`Clock::unix_ms`] with the time now given (read once for many timestamps).
    pub fn unix_ms_at(&self, pool_ms: u32, now_ms64: u64) -> u64 {
        let age = (now_ms64 as u32).wrapping_sub(pool_ms) as u64;
        (self.epoch_unix_ms + now_ms64).saturating_sub(age)
    }

    /// Time since this process started.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

/// The pipeline's core, behind one `Arc`. Lock order: pool → dictionary → a report. The merger
/// takes them in that order too and never holds the dictionary with another lock.
pub struct Core {
    config: Config,
    /// Core with the receivers, which fold their decode stats in.
    counters: Arc<Counters>,
    clock: Clock,
    /// Written by the merger once per merge round; read by the raw-data API and by report
    /// creation (which holds it to fill a new report consistently).
    pool: RwLock<Pool>,
    /// Written by the merger (interning a batch, releasing removed requests) and by report
    /// creation/drop (pinning names); read by the API to render ids.
    /// Shared with the receivers, which intern as they receive ([`Core::dictionary_handle`]).
    dictionary: Arc<RwLock<Dictionary>>,
    /// The reports; each has its own lock.
    reports: ReportSet,
    /// The temp ring (the API shows how full it is; start and stop drain it).
    ring: Arc<Ring>,
    /// Consumers of merged rounds (stream, sinks, metrics), fed by the merger (see `tap`).
    taps: Taps,
    /// The UDP addresses actually bound (port 0 resolved).
    udp_addrs: Vec<SocketAddr>,
    /// Receive buffer the kernel granted the first UDP socket (clamped by `net.core.rmem_max`).
    receive_buffer_bytes: u64,
    /// The memory budget (`limits.max_memory`), which the dictionary and the reports count
    /// against; `reserved` holds what is counted from the start (the pool, the buffers).
    budget: Arc<Budget>,
    reserved: Account,
    /// From when (merger ms) the raw pool held every request it was given, as start-up left it:
    /// 0 on a fresh start; a restore sets it (see [`Core::set_pool_complete_from`]). A report
    /// filled from the pool is complete from no earlier (see `Merger::fill`).
    pool_complete_from_ms: u64,
    /// `reports.json`, when start-up found it damaged and set it aside (status).
    set_aside: Vec<SetAside>,
    /// The `[[rewrite]]` rules (the merger applies them; the status reads their hits).
    rewrite: Arc<crate::rewrite::Rules>,
    /// Where the pool's request ids start and how far they are reserved (start-up sets it).
    ids: Arc<crate::ids::Ids>,
    /// The marks of `{state_dir}/marks.json` (the API changes them; charts, SQL and the
    /// comparison read them).
    marks: Arc<crate::marks::Marks>,
}

impl Core {
    /// Allocates the pool and creates the start-up reports (built-ins, `[[report]]` tables, and
    /// what the state directory says was created or dropped at run time). No sockets, no threads.
    pub fn new(
        config: Config,
        ring: Arc<Ring>,
        udp_addrs: Vec<SocketAddr>,
        receive_buffer_bytes: u64,
    ) -> Result<Core, CoreError> {
        check_state_dir(&config.state_dir, true)?;
        Core::build(
            config,
            ring,
            udp_addrs,
            receive_buffer_bytes,
            OnDamage::SetAside,
        )
    }

    /// The state `check-config` judges: as [`Core::new`] builds it, but a missing state
    /// directory is not created (whether it could be is probed in its nearest existing parent).
    pub fn for_check(config: Config) -> Result<Core, CoreError> {
        check_state_dir(&config.state_dir, false)?;
        Core::build(
            config,
            Arc::new(Ring::new(1)),
            Vec::new(),
            0,
            OnDamage::Warn,
        )
    }

    fn build(
        config: Config,
        ring: Arc<Ring>,
        udp_addrs: Vec<SocketAddr>,
        receive_buffer_bytes: u64,
        on_damage: OnDamage,
    ) -> Result<Core, CoreError> {
        let (budget, reserved) = memory_budget(&config);
        let (dictionary, reports, set_aside) = start_reports(&config, &budget, on_damage)?;
        let rewrite = Arc::new(config.rewrite_rules().map_err(CoreError::Config)?);
        let pool = Pool::try_new(
            config.request_pool_size,
            config.timer_pool_size,
            config.tag_pool_size,
        )
        .map_err(|ring| {
            use std::mem::size_of;
            let (key, n, each) = match ring {
                "requests" => (
                    "request_pool_size",
                    config.request_pool_size,
                    size_of::<crate::record::Record>(),
                ),
                "timers" => (
                    "timer_pool_size",
                    config.timer_pool_size,
                    size_of::<crate::record::Timer>(),
                ),
                _ => (
                    "tag_pool_size",
                    config.tag_pool_size,
                    size_of::<crate::record::TagPair>(),
                ),
            };
            CoreError::Config(crate::config::ConfigError::Invalid {
                key: key.into(),
                message: format!(
                    "{n} entries need {:.1} GiB ({each} B each), which this machine cannot give",
                    (n as f64 * each as f64) / (1u64 << 30) as f64
                ),
            })
        })?;
        let counters = Counters::default();
        {
            let g = &counters.gauges;
            g.pool_capacity.store(pool.capacity() as u64, Relaxed);
            g.timer_pool_capacity
                .store(pool.timer_capacity() as u64, Relaxed);
            g.tag_pool_capacity
                .store(pool.tag_capacity() as u64, Relaxed);
            g.pool_memory_bytes
                .store(pool.memory_bytes() as u64, Relaxed);
            g.pool_oldest_ms.store(u64::MAX, Relaxed);
        }
        Ok(Core {
            counters: Arc::new(counters),
            clock: Clock::new(),
            pool: RwLock::new(pool),
            dictionary: Arc::new(RwLock::new(dictionary)),
            reports,
            ring,
            taps: Taps::default(),
            udp_addrs,
            receive_buffer_bytes,
            budget,
            reserved,
            pool_complete_from_ms: 0,
            set_aside,
            rewrite,
            ids: Arc::new(crate::ids::Ids::unbacked()),
            marks: Arc::new(crate::marks::Marks::open(&config.state_dir, on_damage)),
            config,
        })
    }

    /// The memory budget (see `budget`).
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// What is counted against the budget from the start (bytes).
    pub fn reserved_memory(&self) -> u64 {
        self.reserved.accounted()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The counters, shared with the receivers (`Arc`), which fold their decode stats in.
    pub fn counters(&self) -> &Arc<Counters> {
        &self.counters
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The `[[rewrite]]` rules and their hit counters.
    pub fn rewrite(&self) -> &Arc<crate::rewrite::Rules> {
        &self.rewrite
    }

    /// Replaces the clock: a restored snapshot's, which continues the saved epoch (start-up).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// From when the raw pool holds every request it was given (merger ms; see the field).
    pub fn pool_complete_from_ms(&self) -> u64 {
        self.pool_complete_from_ms
    }

    /// Sets from when the raw pool is complete (start-up, restoring): a restored pool holds
    /// what the last run's pool held, which may have overwritten or expired requests the
    /// reports' windows still cover, and a pool lost in a crash holds nothing from before now.
    pub fn set_pool_complete_from(&mut self, ms: u64) {
        self.pool_complete_from_ms = ms;
    }

    /// The request ids' reservation (see [`crate::ids`]).
    pub fn ids(&self) -> &Arc<crate::ids::Ids> {
        &self.ids
    }

    /// Sets the request ids' reservation (start-up, before the snapshot is restored).
    pub fn set_ids(&mut self, ids: crate::ids::Ids) {
        self.ids = Arc::new(ids);
    }

    /// The marks (see [`crate::marks`]).
    pub fn marks(&self) -> &Arc<crate::marks::Marks> {
        &self.marks
    }

    pub fn pool(&self) -> &RwLock<Pool> {
        &self.pool
    }

    /// The pool, to replace it at start-up (a restored snapshot's) while no thread shares it.
    pub fn pool_mut(&mut self) -> &mut Pool {
        self.pool.get_mut()
    }

    pub fn dictionary(&self) -> &RwLock<Dictionary> {
        &self.dictionary
    }

    /// The dictionary for a receiver thread, the one handle it needs of the core.
    pub fn dictionary_handle(&self) -> Arc<RwLock<Dictionary>> {
        Arc::clone(&self.dictionary)
    }

    pub fn reports(&self) -> &ReportSet {
        &self.reports
    }

    /// The temp ring between the receivers and the merger.
    pub fn ring(&self) -> &Arc<Ring> {
        &self.ring
    }

    /// Where merged rounds leave the pipeline (see `tap`).
    pub fn taps(&self) -> &Taps {
        &self.taps
    }

    /// The UDP addresses bound (port 0 resolved).
    pub fn udp_addrs(&self) -> &[SocketAddr] {
        &self.udp_addrs
    }

    /// Receive buffer the kernel granted the first UDP socket.
    pub fn receive_buffer_bytes(&self) -> u64 {
        self.receive_buffer_bytes
    }

    /// The state files start-up found damaged and set aside (`reports.json`; see
    /// `durable::set_aside`).
    pub fn set_aside(&self) -> &[SetAside] {
        &self.set_aside
    }

    /// A report's current answer to `q`, with the span its window covers now and since when it
    /// is complete; the front ends' one way to read a report (locks in the API's order:
    /// dictionary, then the report). Counted in the `query` instrument.
    pub fn query_report(&self, cell: &ReportCell, q: &Query) -> Result<Table, ReportError> {
        let timing = self.counters.instruments.query.start();
        cell.mark_queried(self.clock.now_ms64());
        // A family member is detached from its stage first (once), so that it holds every
        // request merged before the query (the stage's lock, then the member's; none held here).
        if let Some(family) = cell.family() {
            family.detach_for_query(cell.owner());
        }
        // A split report's parts are folded in (see `report::split`): the same.
        cell.fold_parts();
        // pinba_engine's rates need the raw pool's span over the window, read before the
        // dictionary and the report are (the locks' order), the report only glanced at first.
        let (compat, start) = {
            let report = cell.report.read();
            (report.def().compat, report.window_start_ms())
        };
        let pool = match compat {
            Some(crate::report::Compat::PinbaEngine) => self.pool_span_since(start),
            _ => None,
        };
        // Percentiles include every sample merged before the query: the query reads the report's
        // histogram log for the rows it shows (applying it would take the write lock, and a pass
        // over every open row).
        let table = {
            let dict = self.dictionary.read();
            let report = cell.report.read();
            let interval =
                report.rate_interval(self.clock.now_ms64(), pool, |ms| self.clock.unix_ms64(ms));
            report.query(q, &dict, interval).map(|mut table| {
                // A shared table answers under the name asked for.
                if cell.shares_table_with().is_some() {
                    table.report = cell.name().to_string();
                }
                table.complete_from = Some(self.unix_secs(report.window_start_ms()));
                table
            })
        };
        self.counters.instruments.query.record(timing, 1);
        table
    }

    /// The raw pool's oldest request at or after `start_ms` and its newest (merger ms), if it
    /// holds one: the span of the requests a window from `start_ms` holds (see
    /// [`Report::rate_interval`]). Two lookups under the pool's read lock.
    fn pool_span_since(&self, start_ms: u64) -> Option<(u64, u64)> {
        let pool = self.pool.read();
        let now = self.clock.now_ms64();
        let newest = pool.record(pool.next_id().checked_sub(1)?)?.time_ms;
        // Requests are in time order: those older than `start_ms` are a prefix.
        let before = pool.count_expired(now as u32, (now.saturating_sub(start_ms) + 1) as u32);
        let oldest = pool.record(pool.oldest_id() + before as u64)?.time_ms;
        let at = |t: u32| now.saturating_sub((now as u32).wrapping_sub(t) as u64);
        Some((at(oldest), at(newest)))
    }

    /// Creates a report at run time and records it in the state file (`reports.json`), so that
    /// it stays across restarts; the merger fills it from the raw pool before its next round (so
    /// it is consistent with the rounds that follow), and this waits up to `fill_wait` for that.
    /// The front ends' one way to create a report (an HTTP POST, an SQL `CREATE TABLE`).
    ///
    /// The whole creation is one step under the set's change lock: a racing creation or drop
    /// waits, so the name check, the `limits.max_reports` check, the set and the state file
    /// always agree.
    pub fn create_report(
        &self,
        def: ReportDef,
        fill_wait: Duration,
    ) -> Result<Arc<ReportCell>, ReportChangeError> {
        let changes = self.reports.lock_changes();
        if self.reports.get(&def.name).is_some() {
            return Err(ReportChangeError::Exists(def.name));
        }
        let max_reports = self.config.limits.max_reports;
        if self.reports.len() >= max_reports {
            return Err(ReportChangeError::TooMany(max_reports));
        }
        if self.budget.tight() {
            self.budget.refused_report();
            return Err(ReportChangeError::NoMemory {
                limit_mib: self.budget.limit() >> 20,
                used_mib: self.budget.used() >> 20,
            });
        }
        let name = def.name.clone();
        let report = {
            let mut dict = self.dictionary.write();
            new_report(&self.config, def.clone(), &mut dict).map_err(ReportChangeError::Refused)?
        };
        let cell = match self.reports.try_insert(report) {
            Ok(cell) => cell,
            Err((e, mut report)) => {
                report.release(&mut self.dictionary.write());
                return Err(ReportChangeError::Refused(e));
            }
        };
        if let Err(e) = self
            .reports
            .persist_change(&changes, &self.config.state_dir, |s| s.record_create(&def))
        {
            tracing::warn!(report = %name, error = %e, "Cannot save report state; creation undone");
            self.release_removed(&name);
            return Err(ReportChangeError::NotSaved(e.to_string()));
        }
        if !cell.wait_filled(fill_wait) {
            tracing::warn!(report = %name, "Report created; not filled from the pool yet (the merger is busy)");
        }
        Ok(cell)
    }

    /// Drops a report (built-ins too) and records it in the state file first: if that cannot be
    /// written, nothing changes. One step under the set's change lock (see
    /// [`Core::create_report`]). The caller tells history to forget the report.
    pub fn drop_report(&self, name: &str) -> Result<(), ReportChangeError> {
        let changes = self.reports.lock_changes();
        if self.reports.get(name).is_none() {
            return Err(ReportChangeError::NotFound(name.to_string()));
        }
        let is_static =
            crate::report::static_defs(self.config.builtin_reports, &self.config.report)
                .iter()
                .any(|d| d.name == name);
        self.reports
            .persist_change(&changes, &self.config.state_dir, |s| {
                s.record_delete(name, is_static)
            })
            .map_err(|e| ReportChangeError::NotSaved(e.to_string()))?;
        if !self.release_removed(name) {
            return Err(ReportChangeError::NotFound(name.to_string()));
        }
        Ok(())
    }

    /// Removes a report from the set and releases its dictionary pins (dictionary, then report),
    /// unless another report still reads its table (see `report::set`, "shared tables").
    fn release_removed(&self, name: &str) -> bool {
        let Some((cell, unread)) = self.reports.remove(name) else {
            return false;
        };
        if unread {
            let mut dict = self.dictionary.write();
            cell.report.write().release(&mut dict);
        }
        true
    }

    /// Copies the dictionary's figures out for `/api/v1/status` (see [`crate::counters::Gauges`]),
    /// and tells the memory budget what it holds.
    pub fn publish_dictionary(&self, dict: &Dictionary) {
        dict.settle_memory();
        let g = &self.counters.gauges;
        g.dictionary_size.store(dict.len() as u64, Relaxed);
        g.dictionary_bytes.store(dict.bytes() as u64, Relaxed);
        g.dictionary_lost.store(dict.lost(), Relaxed);
    }

    /// Copies the pool's figures out for `/api/v1/status` (see [`crate::counters::Gauges`]).
    pub fn publish_pool(&self, pool: &Pool) {
        let g = &self.counters.gauges;
        g.pool_used.store(pool.len() as u64, Relaxed);
        g.timer_pool_used.store(pool.timers_used() as u64, Relaxed);
        g.tag_pool_used.store(pool.tags_used() as u64, Relaxed);
        g.pool_oldest_ms
            .store(pool.oldest_time_ms().map_or(u64::MAX, u64::from), Relaxed);
    }

    /// Unix time in seconds of a report's `complete_from` (merger milliseconds).
    pub fn unix_secs(&self, ms: u64) -> f64 {
        self.clock.unix_ms64(ms) as f64 / 1000.0
    }
}

/// The memory budget `config` asks for (`limits.max_memory` resolved against this host), and
/// the account of what is reserved against it from the start (see
/// [`Config::reserved_memory`]). Logged once.
fn memory_budget(config: &Config) -> (Arc<Budget>, Account) {
    let reserved = config.reserved_memory();
    let host = crate::budget::host_memory();
    let limit = config.limits.max_memory.resolve(reserved, host);
    let mib = |b: u64| b >> 20;
    if config.limits.max_memory == crate::config::MaxMemory::Auto
        && host.is_some_and(|h| limit > h / 2)
    {
        tracing::warn!(
            limit_mib = mib(limit),
            reserved_mib = mib(reserved),
            host_mib = host.map(mib),
            "The raw pool and the buffers take more than half of this host's memory: the memory \
             budget (limits.max_memory = \"auto\") is what they reserve plus 256 MiB"
        );
    }
    tracing::info!(
        limit_mib = mib(limit),
        reserved_mib = mib(reserved),
        host_mib = host.map(mib),
        "Memory budget (limits.max_memory)"
    );
    let budget = Budget::new(limit);
    let account = Account::new(Arc::clone(&budget));
    account.settle(reserved);
    (budget, account)
}

/// The start-up reports: the configured ones (built-ins and `[[report]]` tables) with the
/// run-time changes of `{state_dir}/reports.json` replayed over them (`report::initial_defs`).
/// Whatever in that file would stop the start (a damaged file, a definition that no longer
/// builds against this config, more reports than `limits.max_reports` with it) sets it aside
/// (`durable::set_aside`; `on_damage`) and the start goes on with the configured reports: a
/// restart loop would lose more than the run-time changes, which stay in `reports.json.damaged`.
/// What fails with the configured reports alone is an error, as ever.
fn start_reports(
    config: &Config,
    budget: &Arc<Budget>,
    on_damage: OnDamage,
) -> Result<(Dictionary, ReportSet, Vec<SetAside>), CoreError> {
    use crate::report::{apply_state, read_state, state_path, static_defs, SavedState};
    warn_if_rounded(
        &crate::report::Window::new(config.stats_history.0, config.report_ticks),
        config.report_ticks,
        "stats_history",
        None,
    );
    for name in crate::report::replaced_builtins(config.builtin_reports, &config.report) {
        tracing::info!(report = %name, "A configured report takes the place of the built-in of its name");
    }
    let statics = || static_defs(config.builtin_reports, &config.report);
    let path = state_path(&config.state_dir);
    let instead = "starting with the configured reports (its run-time changes are not applied)";
    let saved = read_state(&config.state_dir).map_err(|e| CoreError::Report {
        name: "(state_dir)".into(),
        message: e.to_string(),
    })?;
    let state = match saved {
        SavedState::Absent => {
            tracing::info!(path = %path.display(), "No run-time report changes saved yet");
            None
        }
        SavedState::Read(state) => {
            tracing::info!(
                path = %path.display(),
                created = state.created.len(),
                deleted = state.deleted.len(),
                "Loaded run-time report changes"
            );
            Some(state)
        }
        SavedState::Damaged(why) => {
            let aside = on_damage.handle(&path, &why, instead);
            let (dictionary, reports) = build_reports(config, budget, statics())?;
            return Ok((dictionary, reports, aside.into_iter().collect()));
        }
    };
    let Some(state) = state else {
        let (dictionary, reports) = build_reports(config, budget, statics())?;
        return Ok((dictionary, reports, Vec::new()));
    };
    match build_reports(config, budget, apply_state(statics(), &state)) {
        Ok((dictionary, reports)) => Ok((dictionary, reports, Vec::new())),
        Err(e) => {
            // The configured reports alone: if they build, the saved changes were what failed.
            let Ok((dictionary, reports)) = build_reports(config, budget, statics()) else {
                return Err(e);
            };
            let aside = on_damage.handle(&path, &e.to_string(), instead);
            Ok((dictionary, reports, aside.into_iter().collect()))
        }
    }
}

/// The dictionary and the report set of `defs` (checked against `limits.max_reports`), with
/// their families formed.
fn build_reports(
    config: &Config,
    budget: &Arc<Budget>,
    defs: Vec<crate::report::ReportDef>,
) -> Result<(Dictionary, ReportSet), CoreError> {
    let mut dictionary = Dictionary::new(config.limits.max_dictionary_entries)
        .with_max_bytes(config.limits.max_dictionary_bytes.0 as usize)
        .with_budget(Arc::clone(budget));
    let reports = ReportSet::default();
    if defs.len() > config.limits.max_reports {
        return Err(CoreError::Config(crate::config::ConfigError::Invalid {
            key: "limits.max_reports".into(),
            message: format!(
                "{} reports would exist at start-up (built-ins, [[report]] tables and run-time \
                 changes in the state directory), above the limit of {}",
                defs.len(),
                config.limits.max_reports
            ),
        }));
    }
    let mut built = Vec::with_capacity(defs.len());
    for def in defs {
        let name = def.name.clone();
        let report = new_report(config, def, &mut dictionary).map_err(|e| CoreError::Report {
            name: name.clone(),
            message: e.to_string(),
        })?;
        built.push(report);
    }
    // Reports equal but for their names share one table (the first one's): only the owners
    // are reports of their own, in families or alone.
    let twin_of = if config.merge.share_tables {
        crate::report::find_twins(&built)
    } else {
        vec![None; built.len()]
    };
    // Each report in order: an owner (its place among `owners`), or a twin (its definition,
    // its owner's place).
    let mut owners = Vec::with_capacity(built.len());
    let mut slots: Vec<Result<usize, (ReportDef, usize)>> = Vec::with_capacity(built.len());
    let mut owner_at = Vec::with_capacity(built.len());
    for (mut report, twin) in built.into_iter().zip(twin_of) {
        match twin {
            None => {
                owner_at.push(owners.len());
                slots.push(Ok(owners.len()));
                owners.push(report);
            }
            Some(owner) => {
                let at = owner_at[owner];
                owner_at.push(at);
                // What the twin's ticks go to (history, the tick log, a sink naming it), the
                // owner hands over.
                if report.keeps_closed_ticks() {
                    owners[at].keep_closed_ticks();
                }
                slots.push(Err((report.def().clone(), at)));
                report.release(&mut dictionary);
            }
        }
    }
    let families = if config.merge.families {
        crate::report::form_families(
            &mut owners,
            config.merge.request_families,
            config.merge.lattice,
        )
    } else {
        Vec::new()
    };
    let mut owners: Vec<Option<crate::report::Report>> = owners.into_iter().map(Some).collect();
    let mut cells: Vec<Arc<crate::report::ReportCell>> = Vec::with_capacity(owners.len());
    let refused = |name: String, e: crate::report::ReportError| CoreError::Report {
        name,
        message: e.to_string(),
    };
    for slot in slots {
        match slot {
            Ok(at) => {
                let report = owners[at].take().expect("each owner is inserted once");
                let name = report.def().name.clone();
                let cell = reports
                    .try_insert(report)
                    .map_err(|(e, _)| refused(name, e))?;
                cells.push(cell);
            }
            Err((def, at)) => {
                reports
                    .insert_twin(&def, &cells[at])
                    .map_err(|e| refused(def.name.clone(), e))?;
            }
        }
    }
    reports.seal_twins();
    for (members, stage) in families {
        let member_cells: Vec<_> = members.iter().map(|&i| Arc::clone(&cells[i])).collect();
        let family = Arc::new(crate::report::Family::new(stage, &member_cells));
        for c in &member_cells {
            c.join(Arc::clone(&family));
        }
    }
    Ok((dictionary, reports))
}

/// A report as the configuration shapes it: the row limit, the window (`stats_history` unless
/// the definition sets its own `history`, in `report_ticks` ticks), its history settings checked
/// against that window (see `config::HistorySpec`). It joins the merge rounds
/// once the merger filled it (see `Merger::fill`).
pub fn new_report(
    config: &Config,
    def: crate::report::ReportDef,
    dict: &mut Dictionary,
) -> Result<Report, crate::report::ReportError> {
    refuse_unmatchable_strings(&def, config.limits.max_string_bytes)?;
    let mut report = Report::new(def, dict, config.limits.max_rows_per_report)?.with_window(
        config.stats_history.0,
        config.report_ticks,
        0,
    );
    // The configured window's rounding is said once at start-up (see `Core::new`); a report's
    // own `history` here.
    if report.def().history.is_some() {
        warn_if_rounded(
            &report.window(),
            config.report_ticks,
            "history",
            Some(&report.def().name),
        );
    }
    // A report with history keeps its closed ticks for the history writer, and every report
    // does for the tick log; a report a sink writes the ticks of, for that sink.
    let for_sinks = crate::config::writes_ticks_of(&config.sink, &report.def().name);
    match crate::config::HistorySpec::of_report(&report) {
        Ok(Some(_)) if config.history.enabled => report.keep_closed_ticks(),
        Ok(_) if config.ticklog.enabled || for_sinks => report.keep_closed_ticks(),
        Ok(_) => {}
        Err(e) => {
            report.release(dict);
            return Err(e);
        }
    }
    Ok(report)
}

/// Refuses a tag name or a filter value longer than any string the decoder keeps (it cuts them at
/// `limits.max_string_bytes`): such a report could never count anything, and stayed empty
/// without a word. (A 400 from the API; a start-up error naming the report from the config.)
fn refuse_unmatchable_strings(
    def: &crate::report::ReportDef,
    max: usize,
) -> Result<(), crate::report::ReportError> {
    let too_long = |what: String, s: &str| {
        (s.len() > max).then(|| {
            crate::report::ReportError::invalid(format!(
                "{what}: {} bytes, longer than any string pinbad keeps (limits.max_string_bytes \
                 = {max}): it could never match",
                s.len()
            ))
        })
    };
    fn tag(k: &str) -> Option<&str> {
        k.strip_prefix("tag:")
            .or_else(|| k.strip_prefix("timer_tag:"))
    }
    for k in def.keys.iter().chain(def.filters.keys()) {
        if let Some(e) = tag(k).and_then(|name| too_long(format!("`{k}`: the tag name"), name)) {
            return Err(e);
        }
    }
    for (k, v) in &def.filters {
        if let crate::report::FilterValue::Text(s) = v {
            if let Some(e) = too_long(format!("filter `{k}`"), s) {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Warns when `report_ticks` does not cut the window `key` sets into whole milliseconds, or into
/// as many ticks as asked (a window under `report_ticks` ms): see [`window_rounding`].
fn warn_if_rounded(
    window: &crate::report::Window,
    asked_ticks: u32,
    key: &str,
    report: Option<&str>,
) {
    if let Some(what) = window_rounding(window, asked_ticks) {
        tracing::warn!(
            report = report.unwrap_or("(all)"),
            key,
            history_ms = window.history_ms,
            ticks = window.ticks,
            tick_ms = window.tick_ms,
            "{what}"
        );
    }
}

/// What a window cut into `asked_ticks` ticks of whole milliseconds loses, if anything: the ticks
/// are floored, so the window covers a little less than set, and a window of fewer milliseconds
/// than ticks asked gets one tick a millisecond. Accepted rather than refused, because
/// `time_interval` says the span really covered, and refusing would refuse the short windows
/// tests and trials use (`stats_history = "1s"` in 60 ticks).
fn window_rounding(window: &crate::report::Window, asked_ticks: u32) -> Option<String> {
    let covers_ms = window.tick_ms * window.ticks;
    if window.ticks < asked_ticks as u64 {
        Some(format!(
            "report_ticks {asked_ticks} is more than the window's {} ms: it is cut into {} ticks \
             of 1 ms",
            window.history_ms, window.ticks
        ))
    } else if covers_ms != window.history_ms {
        Some(format!(
            "report_ticks does not cut this window into whole milliseconds: a window covers \
             {covers_ms} ms of the {} ms set (choose report_ticks dividing it to cover it all)",
            window.history_ms
        ))
    } else {
        None
    }
}

/// Creates the state directory if needed (`create`; else only asks whether it could be) and
/// proves it writable with a probe file, so that a bad `state_dir` stops start-up naming it,
/// instead of failing every later report change.
fn check_state_dir(dir: &std::path::Path, create: bool) -> Result<(), CoreError> {
    let result = if create {
        std::fs::create_dir_all(dir).and_then(|()| crate::durable::probe_dir(dir))
    } else {
        crate::durable::could_create(dir)
    };
    result.map_err(|source| CoreError::StateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    tracing::info!(state_dir = %dir.display(), "State directory");
    Ok(())
}

/// Why a report could not be created or dropped at run time.
#[derive(Debug, thiserror::Error)]
pub enum ReportChangeError {
    #[error("report `{0}` already exists")]
    Exists(String),
    #[error("there are already {0} reports (limits.max_reports): drop one first")]
    TooMany(usize),
    /// The memory budget is tight: no report is created until memory frees.
    #[error(
        "the memory budget is nearly used ({used_mib} of {limit_mib} MiB, limits.max_memory): no \
         report can be created until memory frees (the window moves on, unused strings are \
         swept), or raise limits.max_memory"
    )]
    NoMemory { limit_mib: u64, used_mib: u64 },
    /// The definition is refused (invalid), or the dictionary has no room for a name it needs.
    #[error("{0}")]
    Refused(ReportError),
    #[error("no report named `{0}`")]
    NotFound(String),
    /// The state file could not be written: nothing changed.
    #[error("cannot save the state file: {0}")]
    NotSaved(String),
}

/// Why the shared state could not be built. Each message says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("report `{name}`: {message}")]
    Report { name: String, message: String },
    #[error("{0}")]
    Config(crate::config::ConfigError),
    #[error("state_dir {path} is not writable ({source}); set `state_dir` or --state-dir")]
    StateDir {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Window;
    use std::time::Duration;

    /// A window cut into whole-millisecond ticks covering it all says nothing; one floored, or cut
    /// into fewer ticks than asked, says so.
    #[test]
    fn a_rounded_window_is_told() {
        let ms = Duration::from_millis;
        assert_eq!(window_rounding(&Window::new(ms(900_000), 60), 60), None);
        let floored = window_rounding(&Window::new(ms(900_000), 7), 7).unwrap();
        assert!(
            floored.contains("covers 899997 ms of the 900000"),
            "{floored}"
        );
        let short = window_rounding(&Window::new(ms(30), 60), 60).unwrap();
        assert!(
            short.contains("report_ticks 60 is more than the window's 30 ms"),
            "{short}"
        );
        assert!(short.contains("30 ticks of 1 ms"), "{short}");
    }
}

//! The app: builds the shared state (`shared`), binds the sockets, starts the threads, and stops
//! them. It only wires: what the threads share lives in `shared`.
//!
//! Threads: one "pinbad-recv-N" per UDP socket, one "pinbad-merger" (which starts and stops its
//! follower shards, "pinbad-shard-N", and the report workers), one "pinbad-metrics", one
//! "pinbad-history" (when history is on), one "pinbad-reqlog" (when the request logs are on), and the tokio runtime's "pinbad-http" workers. Any panic in any of them ends the process with a
//! non-zero code (a panic hook set by `main`), so pinbad is never half alive.

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::api::{ApiState, AppState};
use crate::config::Config;
use crate::durable::{Access, DirLock, OnDamage};
use crate::history::History;
use crate::merger::Merger;
use crate::receiver::{self, Receiver};
use crate::ring::Ring;
use crate::shutdown::Shutdown;
use crate::sink::Sinks;
pub use crate::state::{Clock, Core, CoreError};

/// Why the app could not start. Each message says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot bind UDP {addr}: {source} (is another pinbad or Pinba server running on it?)")]
    BindUdp {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot bind HTTP {addr}: {source}")]
    BindHttp {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot bind the SQL front end (mysql.listen) {addr}: {source} (set mysql.listen = \"\" to turn it off)")]
    BindMysql {
        addr: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error("cannot start threads: {0}")]
    Thread(std::io::Error),
    #[error("{0}")]
    Sink(std::io::Error),
    #[error(transparent)]
    Activation(#[from] crate::activation::ActivationError),
    #[error(transparent)]
    Lock(crate::durable::LockError),
    #[error(transparent)]
    Ids(#[from] crate::ids::IdsError),
    #[error("state_dir_group `{group}`: {source}")]
    Group {
        group: String,
        source: std::io::Error,
    },
}

/// Everything [`start`] checks except binding sockets (for `pinbad check-config`): the reports
/// the daemon would start with (built-ins, `[[report]]` tables, the state directory's run-time
/// changes), their limit, the state directory, the token, and that each file sink could open
/// its file.
pub fn check(config: &Config) -> Result<(), StartError> {
    access(config)?;
    Core::for_check(config.clone())?;
    config.token().map_err(CoreError::Config)?;
    Sinks::new(&config.sink, &config.state_dir, OnDamage::Warn)
        .map_err(CoreError::Config)?
        .check()
        .map_err(StartError::Sink)
}

/// Who may read the state files (`state_dir_group` resolved).
fn access(config: &Config) -> Result<Access, StartError> {
    let name = &config.state_dir_group;
    if name.is_empty() {
        return Ok(Access::default());
    }
    let group = crate::durable::group_id(name).map_err(|source| StartError::Group {
        group: name.clone(),
        source,
    })?;
    Ok(Access { group: Some(group) })
}

/// Takes the state directory for this daemon before anything in it is read or written: the
/// files' mode (see `durable`), the lock that keeps a second daemon out, the directory's group.
fn take_state_dir(config: &Config) -> Result<DirLock, StartError> {
    let access = access(config)?;
    crate::durable::set_file_mode(access);
    let dir = &config.state_dir;
    let lock = crate::durable::lock_dir(dir).map_err(|e| match e {
        // Named as every other state directory failure: `state_dir` and its path.
        crate::durable::LockError::Io { source, .. } => StartError::Core(CoreError::StateDir {
            path: dir.clone(),
            source,
        }),
        held => StartError::Lock(held),
    })?;
    crate::durable::restrict(dir, access).map_err(|source| StartError::Group {
        group: config.state_dir_group.clone(),
        source,
    })?;
    Ok(lock)
}

/// A running app: its threads, bound addresses, the pipeline's core and the API's state (the
/// core with the services beside it).
pub struct Running {
    pub core: Arc<Core>,
    api: AppState,
    pub http_addr: SocketAddr,
    /// The SQL front end's address (none when it is off).
    pub mysql_addr: Option<SocketAddr>,
    /// Taken by `serve`.
    mysql: Option<std::net::TcpListener>,
    /// Taken by `serve`, so the port is released as soon as the server stops.
    http: Option<TcpListener>,
    shutdown: Shutdown,
    /// The receivers' own stop signal (see [`Running::serve`]).
    receiving: Shutdown,
    receivers: Vec<JoinHandle<()>>,
    merger: Option<JoinHandle<()>>,
    merger_stop: Arc<AtomicBool>,
    metrics: Option<JoinHandle<()>>,
    history: Option<crate::history::WriterHandle>,
    ticklog: Option<crate::ticklog::WriterHandle>,
    request_log: Option<crate::reqlog::WriterHandle>,
    /// The state directory's lock, released when the process ends (after the stop's writes).
    _state_lock: DirLock,
}

/// Binds every socket (failing fast; or takes those the service manager passed, see
/// [`crate::activation`]), allocates the pool, creates the start-up reports and starts
/// the receiver and merger threads. The HTTP server is started by [`Running::serve`].
pub fn start(config: Config, shutdown: Shutdown) -> Result<Running, StartError> {
    // Before SQLite is first used (history, the request logs, SQL): its allocator, which counts
    // and bounds the SQL sessions' memory apart from the rest.
    if !crate::sqlite_heap::install() {
        tracing::warn!(
            "SQLite was in use before pinbad could install its allocator: SQL statements' memory \
             is neither counted nor bounded (mysql.max_memory)"
        );
    }
    // Before anything in the state directory is read or written: a second daemon on it stops
    // here, naming the first.
    let state_lock = take_state_dir(&config)?;
    // Sockets the service manager holds for us across restarts (a `.socket` unit) replace the
    // configured addresses of their kind.
    let passed = crate::activation::take()?;
    // HTTP first: a start that fails on it must not have taken any datagram.
    let http_addr = config.http_addr();
    let http = match passed.http {
        Some(listener) => Ok(listener),
        None => TcpListener::bind(http_addr),
    };
    let http = http
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|source| StartError::BindHttp {
            addr: http_addr,
            source,
        })?;
    let http_addr = http.local_addr().unwrap_or(http_addr);
    let mysql = crate::sql::bind(&config.mysql).map_err(|source| StartError::BindMysql {
        addr: config.mysql.listen.clone(),
        source,
    })?;

    // A socket per reader (see receiver::bind_group).
    let sockets = udp_sockets(&config, passed.udp)?;

    let ring = Arc::new(Ring::new(config.temp_pool_memory.0 as usize));
    // The addresses received on, each once (its readers' sockets share it).
    let mut udp_addrs: Vec<SocketAddr> = Vec::new();
    for s in &sockets {
        if !udp_addrs.contains(&s.local_addr) {
            udp_addrs.push(s.local_addr);
        }
    }
    let receive_buffer_bytes = sockets.first().map_or(0, |s| s.recv_buffer_bytes as u64);
    let mut shared = Core::new(config, Arc::clone(&ring), udp_addrs, receive_buffer_bytes)?;
    let config = shared.config();
    // The services beside the pipeline, handed to what uses them (see `api::ApiState`).
    let token = config.token().map_err(CoreError::Config)?;
    let sinks = Arc::new(
        Sinks::new(&config.sink, &config.state_dir, OnDamage::SetAside)
            .map_err(CoreError::Config)?,
    );
    let history = Arc::new(History::new(config));
    let ticklog = Arc::new(crate::ticklog::TickLog::new(config));
    let request_log = Arc::new(crate::reqlog::RequestLog::new(config));
    let metrics = Arc::new(crate::metrics::Metrics::new(config));
    let query_slots = Arc::new(tokio::sync::Semaphore::new(
        config.http.max_concurrent_queries,
    ));
    // The sinks' outputs before the receivers and before anything is consumed below: a sink that
    // cannot start fails the start having taken no datagram, with the snapshot and the saved
    // requests still on disk for the next one (see `Sinks::open`).
    let outputs = sinks.open().map_err(StartError::Sink)?;
    // The receivers before the restore, which takes seconds with a full pool (BENCHMARKS.md,
    // "Restarts under load"): what clients send meanwhile waits in the temp ring for the merger,
    // undecoded until it has caught up (raw batches: ~4 s of 100k/s in the default 256 MiB), as
    // well as in the socket buffer (~370 ms), instead of in the socket buffer alone. They have
    // their own stop signal: at shutdown they go on until the snapshot is written.
    let receiving = Shutdown::new();
    ring.set_raw(true);
    let receivers = start_receivers(sockets, &shared, &ring, &receiving)?;
    // What the last run received while it stopped, for the merger to merge first (read once the
    // sockets are being read: the file can hold a whole temp ring's worth).
    let mut restored = crate::snapshot::Restored::default();
    // A damaged `ids.json` is set aside (the ids then start past the clock's floor): no state
    // file stops a start.
    shared.set_ids(crate::ids::Ids::open(&shared.config().state_dir));
    let pending = crate::pending::take_at_start(&mut shared, &mut restored);
    // Before the merger: the pool, the reports' windows and the clock as the last run left them.
    crate::snapshot::restore_at_start(&mut shared, &mut restored);
    // What a crash lost of the windows, when the snapshot restored nothing.
    crate::ticklog::restore_at_start(&mut shared, &restored, &ticklog);
    // Request ids past every one an earlier run used, reserved before the merger hands any out.
    let first_unused = shared.ids().first_unused();
    let pool = shared.pool_mut();
    pool.resume_ids(pool.next_id().max(first_unused));
    let next_id = pool.next_id();
    if let Err(e) = shared.ids().begin(next_id) {
        stop_receivers(&receiving, receivers);
        return Err(e.into());
    }
    let shared = Arc::new(shared);
    // Sinks before the merger: they see every request merged from the first round on.
    if let Err(e) = sinks.start(&shared, outputs) {
        stop_receivers(&receiving, receivers);
        return Err(StartError::Sink(e));
    }

    if !http_addr.ip().is_loopback() && token.is_none() {
        tracing::warn!(
            http = %http_addr,
            "The API listens beyond loopback without a token: anyone who reaches it can create \
             and drop reports (set http.token or http.token_file)"
        );
    }
    let metrics_thread =
        crate::metrics::start(Arc::clone(&shared), Arc::clone(&metrics), shutdown.clone())
            .map_err(StartError::Thread)?;
    // History before the merger: it takes every tick the reports close.
    let history_writer = crate::history::start(&shared, &history).map_err(StartError::Thread)?;
    let ticklog_writer = crate::ticklog::start(&shared, &ticklog).map_err(StartError::Thread)?;
    // The request logs before the merger too: they see every round from the first on.
    let request_log_writer =
        crate::reqlog::start(&shared, &request_log).map_err(StartError::Thread)?;
    let merger_stop = Arc::new(AtomicBool::new(false));
    let merger = {
        let mut taps = vec![
            Arc::clone(&history) as Arc<dyn crate::tap::TickTap>,
            Arc::clone(&ticklog) as Arc<dyn crate::tap::TickTap>,
        ];
        // The sinks that write report ticks (`reports` of a ClickHouse sink).
        taps.extend(sinks.tick_taps());
        let ticks = crate::tap::TickFanOut::new(taps);
        let m = Merger::new(Arc::clone(&shared), ring)
            .merge_first(pending)
            .with_ticks(Arc::new(ticks));
        let stop = Arc::clone(&merger_stop);
        // With the snapshot on, the receivers outlive the merger at shutdown (see `serve`).
        let drain = !shared.config().snapshot.enabled;
        std::thread::Builder::new()
            .name("pinbad-merger".into())
            .spawn(move || m.run(&stop, drain))
            .map_err(StartError::Thread)?
    };
    let api = Arc::new(ApiState {
        core: Arc::clone(&shared),
        history,
        ticklog,
        request_log,
        metrics,
        sinks,
        stream: Default::default(),
        restored: Arc::new(restored),
        shutdown: shutdown.clone(),
        query_slots,
        scrape_slot: Arc::new(tokio::sync::Semaphore::new(1)),
        token,
    });
    let (mysql, mysql_addr) = match mysql {
        Some((l, a)) => (Some(l), Some(a)),
        None => (None, None),
    };
    Ok(Running {
        core: shared,
        api,
        http_addr,
        mysql_addr,
        mysql,
        http: Some(http),
        shutdown,
        receiving,
        receivers,
        merger: Some(merger),
        merger_stop,
        metrics: Some(metrics_thread),
        history: history_writer,
        ticklog: ticklog_writer,
        request_log: request_log_writer,
        _state_lock: state_lock,
    })
}

/// The UDP sockets to receive on, one per receiver thread: `udp.readers` bound per configured
/// address (a `SO_REUSEPORT` group of their own, see [`receiver::bind_group`]), else each socket
/// the service manager passed, read by one thread, or by `udp.readers` sharing it when that is
/// set (not automatic). Not a group with sockets of pinbad's own: those would close with the
/// process, and what the kernel had queued in them would be lost at each restart, which is what
/// passed sockets are for.
fn udp_sockets(
    config: &Config,
    passed: Vec<(std::net::UdpSocket, SocketAddr)>,
) -> Result<Vec<receiver::Bound>, StartError> {
    let recv_buffer = config.udp.recv_buffer.0 as usize;
    let readers = config.udp.readers();
    let failed = |addr| move |source| StartError::BindUdp { addr, source };
    let mut sockets = Vec::new();
    if passed.is_empty() {
        for addr in config.udp_addrs() {
            sockets.extend(receiver::bind_group(addr, readers, recv_buffer).map_err(failed(addr))?);
        }
        return Ok(sockets);
    }
    let sharing = config.udp.readers.max(1);
    for (socket, addr) in passed {
        let b = receiver::adopt(socket, recv_buffer).map_err(failed(addr))?;
        for _ in 1..sharing {
            let socket = b.socket.try_clone().map_err(failed(addr))?;
            sockets.push(receiver::Bound { socket, ..b });
        }
        sockets.push(b);
    }
    Ok(sockets)
}

/// Starts one "pinbad-recv-N" thread per socket, each decoding into the temp ring.
fn start_receivers(
    sockets: Vec<receiver::Bound>,
    shared: &Core,
    ring: &Arc<Ring>,
    receiving: &Shutdown,
) -> Result<Vec<JoinHandle<()>>, StartError> {
    // One line per address: its sockets (one per receiving thread, SO_REUSEPORT) counted.
    let mut addrs: Vec<(std::net::SocketAddr, usize)> = Vec::new();
    for bound in &sockets {
        match addrs.iter_mut().find(|(a, _)| *a == bound.local_addr) {
            Some((_, n)) => *n += 1,
            None => addrs.push((bound.local_addr, 1)),
        }
    }
    for (addr, n) in addrs {
        tracing::info!(udp = %addr, sockets = n, "Listening");
    }
    let mut receivers = Vec::new();
    for (i, bound) in sockets.into_iter().enumerate() {
        let r = Receiver {
            socket: bound.socket,
            ring: Arc::clone(ring),
            counters: Arc::clone(shared.counters()),
            shutdown: receiving.clone(),
            policy: shared.config().decode_policy(),
            allow: shared.config().allow_nets(),
            batch_size: shared.config().udp.batch,
            dictionary: shared.dictionary_handle(),
            interned: crate::intern::Interned::with_rewrite(Arc::clone(shared.rewrite())),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("pinbad-recv-{i}"))
            .spawn(move || r.run());
        match spawned {
            Ok(handle) => receivers.push(handle),
            Err(e) => {
                stop_receivers(receiving, receivers);
                return Err(StartError::Thread(e));
            }
        }
    }
    Ok(receivers)
}

/// Stops the receivers (they notice within [`receiver`]'s idle wait, 100 ms) and waits for them.
fn stop_receivers(receiving: &Shutdown, receivers: Vec<JoinHandle<()>>) {
    receiving.trigger();
    for r in receivers {
        let _ = r.join();
    }
}

impl Running {
    /// Serves HTTP until shutdown is triggered, then stops the threads and returns. Blocks the
    /// calling thread.
    ///
    /// With the snapshot on, the receivers stop last: the merger stops after its round (asked at
    /// the signal, and its threads given back the daemon's priority: see
    /// [`crate::shutdown::raise_merge_threads`]), the snapshot is written (seconds with a full pool) while they go on decoding into the temp
    /// ring, and then what the ring holds is saved for the next start (`pending`), so a restart
    /// does not lose what clients sent while this run stopped. With it off, the receivers stop
    /// first and the merger drains the ring into the pool and the reports.
    pub fn serve(mut self) -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("pinbad-http")
            .enable_all()
            .build()
            .map_err(|e| std::io::Error::other(format!("cannot start the HTTP runtime: {e}")))?;
        let router = crate::api::router(Arc::clone(&self.api));
        let shutdown = self.shutdown.clone();
        let limits = crate::api::server::ServerLimits::of(&self.core.config().http);
        let counters = Arc::clone(self.core.counters());
        let sql = self.mysql.take().map(|listener| {
            let config = self.core.config();
            if config.http.reads_need_token() && config.mysql.password.is_empty() {
                tracing::warn!(
                    "HTTP reads need the token, but the SQL front end has no password: anyone who \
                     reaches mysql.listen reads the reports and the raw requests (set \
                     mysql.user and mysql.password, or mysql.listen = \"\")"
                );
            }
            let ctx = crate::sql::SqlContext::new(
                Arc::clone(&self.core),
                Arc::clone(&self.api.history),
                self.api.token.is_some(),
            );
            (listener, Arc::new(ctx))
        });
        let snapshot_on = self.core.config().snapshot.enabled;
        // With the snapshot on, the merger stops at the signal (see above): its last round
        // overlaps the HTTP server's closing instead of following it.
        let merger_stop = snapshot_on.then(|| Arc::clone(&self.merger_stop));
        let std_listener = self
            .http
            .take()
            .ok_or_else(|| std::io::Error::other("already served"))?;
        tracing::info!(http = %self.http_addr, "Listening");
        let served = runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener)?;
            // The handlers are installed here, before the first request is served: a SIGTERM
            // that comes as soon as the daemon answers (a test, a quick `systemctl stop`) takes
            // the orderly way out (history, snapshot, sinks) rather than the default action,
            // which ends the process at once.
            let signals = termination_signals();
            // Held since `main` began (see `hold_stop_signals`): those that came during start-up
            // are delivered now, to this thread alone (every other one was started holding them).
            crate::shutdown::release_stop_signals();
            let trigger = shutdown.clone();
            tokio::spawn(async move {
                let signal = wait_for_signal(signals).await;
                crate::shutdown::stop_at_once_on_the_next_signal();
                let raised = crate::shutdown::raise_merge_threads();
                tracing::info!(
                    signal,
                    merge_threads_raised = raised,
                    "Stopping (another stop signal ends pinbad at once, without the snapshot)"
                );
                if let Some(stop) = merger_stop {
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                trigger.trigger();
            });
            if let Some((listener, ctx)) = sql {
                tokio::spawn(crate::sql::serve(listener, ctx, shutdown.clone()));
            }
            crate::api::server::serve(listener, router, limits, counters, shutdown).await;
            Ok::<(), std::io::Error>(())
        });
        runtime.shutdown_timeout(Duration::from_millis(200));
        self.shutdown.trigger();
        let signalled = self.shutdown.triggered_at().unwrap_or_else(Instant::now);
        // A stop not from a signal (a failed thread) raises them here.
        crate::shutdown::raise_merge_threads();
        if snapshot_on {
            // The snapshot is written first: the history writer and the tick log wait meanwhile
            // (their last pass, with a bound, comes after).
            self.api.history.hold();
            self.api.ticklog.hold();
            self.api.request_log.hold();
        }
        let counters = Arc::clone(self.core.counters());
        let dropped = || counters.temp_pool_dropped.load(Relaxed);
        let dropped_before_stop = dropped();
        if !snapshot_on {
            stop_receivers(&self.receiving, std::mem::take(&mut self.receivers));
        }
        self.stop_merger();
        // Nothing merges any more: what the pool and the reports hold is final. Saved before
        // anything else waits: the history writer's last pass and the sinks' deliveries have a
        // deadline, the snapshot has none (a service manager's stop timeout must leave room for
        // it: contrib/systemd/pinbad.service).
        let writing = Instant::now();
        let snapshot = crate::snapshot::write_at_shutdown(&self.core);
        let ids = self.core.ids().finish(self.core.pool().read().next_id());
        stop_receivers(&self.receiving, std::mem::take(&mut self.receivers));
        let pending =
            crate::pending::write_at_shutdown(&self.core, dropped() - dropped_before_stop);
        let writes = writing.elapsed();
        self.stop_taps(signalled + STOP_BUDGET + writes);
        // The process ends next: the pool, the reports and the dictionary are left to it rather
        // than freed one allocation at a time (seconds, with millions of rows and strings).
        let core = Arc::clone(&self.core);
        let stopping = self.shutdown.clone();
        std::mem::forget(self);
        std::mem::forget(core);
        // The stop is complete either way; a state file that could not be written makes the
        // exit status say that the next start will not have it.
        let failed: Vec<String> = [snapshot, pending, ids]
            .into_iter()
            .filter_map(Result::err)
            .collect();
        // Last, the whole stop: from the signal's receipt (the handler's; one that came during
        // start-up is received when start-up is done) to the return, after which the process
        // only exits. A parent that reaps it late (a container's init) sees it end later.
        tracing::info!(
            stop_ms = signalled.elapsed().as_secs_f64() * 1000.0,
            state_files_ms = writes.as_secs_f64() * 1000.0,
            cpu_ms = stopping.cpu_ms_since_trigger(),
            "Stopped"
        );
        served.map_err(|e| std::io::Error::other(format!("HTTP server failed: {e}")))?;
        if !failed.is_empty() {
            return Err(std::io::Error::other(format!(
                "stopped, but {}",
                failed.join("; ")
            )));
        }
        Ok(())
    }

    /// Stops the merger (see [`Merger::run`]): it finishes its round and hands over its last
    /// ticks.
    fn stop_merger(&mut self) {
        self.merger_stop
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(m) = self.merger.take() {
            let _ = m.join();
        }
    }

    /// Once the merger has stopped and the state files are written: the history writer's and
    /// the tick log's last passes and the sinks' deliveries, side by side, all by `deadline` (what is not written by
    /// then is dropped, counted and logged by each), and the metrics tap ends. A thread still
    /// busy a moment after the deadline is not waited for: it ends with the process.
    fn stop_taps(&mut self, deadline: Instant) {
        let history = self.history.take();
        if let Some(h) = &history {
            if !self.core.config().snapshot.enabled {
                self.api.history.hand_open_ticks(&self.core);
            }
            h.request_stop(&self.api.history, deadline);
        }
        self.api.sinks.request_stop(deadline);
        let ticklog = self.ticklog.take();
        if let Some(t) = &ticklog {
            t.request_stop(&self.api.ticklog, deadline);
        }
        let request_log = self.request_log.take();
        if let Some(r) = &request_log {
            r.request_stop(&self.api.request_log, deadline);
        }
        let until = deadline + STOP_GRACE;
        if let Some(h) = history {
            if !h.wait(until) {
                tracing::warn!("The history writer did not end by the stop's deadline (a write that hangs); what it held is lost");
            }
        }
        if let Some(t) = ticklog {
            if !t.wait(until) {
                tracing::warn!("The tick log's writer did not end by the stop's deadline (a write that hangs); what it held is lost");
            }
        }
        if let Some(r) = request_log {
            if !r.wait(&self.core, until) {
                tracing::warn!("The request log's writer did not end by the stop's deadline (a write that hangs); what it held is lost");
            }
        }
        self.api.sinks.wait(until);
        if let Some(m) = self.metrics.take() {
            crate::shutdown::join_until(m, until);
        }
    }
}

/// How long after the stop signal the history writer and the sinks must be done, on top of the
/// state files' write time (the snapshot and `pending.bin`, which have no deadline): the stop's
/// bound is 5 s plus that write time, and the rest is left for the threads that met the
/// deadline to say so ([`STOP_GRACE`]) and for the process to end (the kernel takes about a
/// second to free 10 GB, and 1.5 s on a busy machine, and the writers that missed the deadline
/// to be given up on).
const STOP_BUDGET: Duration = Duration::from_millis(2500);

/// How long after the deadline a thread that met it may take to count and log what it dropped.
const STOP_GRACE: Duration = Duration::from_millis(250);

/// The stop signals' streams, with their numbers.
type Termination = Vec<(libc::c_int, tokio::signal::unix::Signal)>;

/// Installs the handlers of [`crate::shutdown::stop_signals`] (at once: tokio registers a handler
/// when its stream is made), `None` if it cannot.
fn termination_signals() -> Option<Termination> {
    use tokio::signal::unix::{signal, SignalKind};
    let streams: std::io::Result<Termination> = crate::shutdown::stop_signals()
        .into_iter()
        .map(|s| Ok((s, signal(SignalKind::from_raw(s))?)))
        .collect();
    match streams {
        Ok(streams) => Some(streams),
        Err(e) => {
            tracing::warn!(error = %e, "Cannot install signal handlers");
            None
        }
    }
}

/// The first stop signal to come, by number (never, without handlers).
async fn wait_for_signal(signals: Option<Termination>) -> libc::c_int {
    let Some(mut streams) = signals else {
        return std::future::pending().await;
    };
    let waits = streams.iter_mut().map(|(n, s)| {
        let n = *n;
        Box::pin(async move {
            s.recv().await;
            n
        })
    });
    let (first, ..) = futures_util::future::select_all(waits).await;
    first
}

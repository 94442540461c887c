//! The app: builds the shared state, binds the sockets, starts the threads, and stops them.
//!
//! Threads: one "pinbad-recv-N" per UDP socket, one "pinbad-merger", and the tokio runtime's
//! "pinbad-http" workers. Any panic in any of them ends the process with a non-zero code (a panic
//! hook set by `main`), so pinbad is never half alive.

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::RwLock;

use crate::config::Config;
use crate::counters::Counters;
use crate::dictionary::Dictionary;
use crate::merger::Merger;
use crate::pool::Pool;
use crate::receiver::{self, Receiver};
use crate::report::{Report, ReportSet};
use crate::ring::Ring;
use crate::shutdown::Shutdown;

/// The pool's clock: milliseconds since the app started, as the u32 the pool stores, and the wall
/// time they correspond to. Only the merger and the API read it; the pure stages get time as an
/// argument.
#[derive(Debug)]
pub struct Clock {
    epoch: Instant,
    epoch_unix_ms: u64,
}

impl Clock {
    pub fn new() -> Clock {
        let epoch_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        Clock {
            epoch: Instant::now(),
            epoch_unix_ms,
        }
    }

    /// Now, in pool milliseconds (wraps after 49 days; the pool compares with `wrapping_sub`).
    pub fn now_ms(&self) -> u32 {
        self.epoch.elapsed().as_millis() as u32
    }

    /// Unix time in milliseconds of a pool timestamp no older than 49 days.
    pub fn unix_ms(&self, pool_ms: u32) -> u64 {
        let now = self.now_ms();
        let age = now.wrapping_sub(pool_ms) as u64;
        (self.epoch_unix_ms + self.epoch.elapsed().as_millis() as u64).saturating_sub(age)
    }

    pub fn uptime(&self) -> Duration {
        self.epoch.elapsed()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

/// Everything the threads share, behind one `Arc`. Lock order: pool → dictionary → a report.
/// The merger takes them in that order too and never holds the dictionary with another lock.
pub struct Shared {
    pub config: Config,
    /// Shared with the receivers, which fold their decode stats in.
    pub counters: Arc<Counters>,
    pub clock: Clock,
    /// Written by the merger once per merge round; read by the raw-data API and by report
    /// creation (which holds it to fill a new report consistently).
    pub pool: RwLock<Pool>,
    /// Written by the merger (interning a batch, releasing removed requests) and by report
    /// creation/drop (pinning names); read by the API to render ids.
    pub dictionary: RwLock<Dictionary>,
    /// The reports; each has its own lock.
    pub reports: ReportSet,
    /// The temp ring (the API shows how full it is).
    pub ring: Arc<Ring>,
    /// The UDP addresses actually bound (port 0 resolved).
    pub udp_addrs: Vec<SocketAddr>,
    /// Receive buffer the kernel granted the first UDP socket (clamped by `net.core.rmem_max`).
    pub receive_buffer_bytes: u64,
    /// Slots for heavy API requests (`http.max_concurrent_queries`): taken by the API handlers
    /// that scan or lock (api::blocking); none left means a 503, never a queue that grows.
    pub query_slots: Arc<tokio::sync::Semaphore>,
    /// The API bearer token (`http.token` or the content of `http.token_file`), if any.
    pub token: Option<String>,
}

impl Shared {
    /// Allocates the pool and creates the start-up reports (built-ins, `[[report]]` tables, and
    /// what the state directory says was created or dropped at run time). No sockets, no threads.
    pub fn new(
        config: Config,
        ring: Arc<Ring>,
        udp_addrs: Vec<SocketAddr>,
        receive_buffer_bytes: u64,
    ) -> Result<Shared, StartError> {
        check_state_dir(&config.state_dir)?;
        let mut dictionary = Dictionary::new(config.limits.max_dictionary_entries)
            .with_max_bytes(config.limits.max_dictionary_bytes.0 as usize);
        let reports = ReportSet::default();
        let defs = crate::report::initial_defs(&config).map_err(|e| StartError::Report {
            name: "(state_dir)".into(),
            message: e.to_string(),
        })?;
        if defs.len() > config.limits.max_reports {
            return Err(StartError::Config(crate::config::ConfigError::Invalid {
                key: "limits.max_reports".into(),
                message: format!(
                    "{} reports would exist at start-up (built-ins, [[report]] tables and run-time \
                     changes in the state directory), above the limit of {}",
                    defs.len(),
                    config.limits.max_reports
                ),
            }));
        }
        for def in defs {
            let name = def.name.clone();
            let report = Report::new(def, &mut dictionary, config.limits.max_rows_per_report)
                .map_err(|e| StartError::Report {
                    name: name.clone(),
                    message: e.to_string(),
                })?;
            reports.insert(report).map_err(|e| StartError::Report {
                name,
                message: e.to_string(),
            })?;
        }
        let pool = Pool::new(
            config.request_pool_size,
            config.timer_pool_size,
            config.tag_pool_size,
        );
        let counters = Counters::default();
        {
            use std::sync::atomic::Ordering::Relaxed;
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
        Ok(Shared {
            counters: Arc::new(counters),
            clock: Clock::new(),
            pool: RwLock::new(pool),
            dictionary: RwLock::new(dictionary),
            reports,
            ring,
            udp_addrs,
            receive_buffer_bytes,
            query_slots: Arc::new(tokio::sync::Semaphore::new(
                config.http.max_concurrent_queries,
            )),
            token: config.token().map_err(StartError::Config)?,
            config,
        })
    }

    /// Seconds covered by the pool now: now − oldest request, at least 1, at most `stats_history`.
    pub fn time_interval_secs(&self, pool: &Pool) -> f64 {
        let history = self.config.stats_history.0.as_secs_f64();
        let covered = match pool.oldest_time_ms() {
            Some(t) => self.clock.now_ms().wrapping_sub(t) as f64 / 1000.0,
            None => 0.0,
        };
        covered.clamp(1.0, history.max(1.0))
    }
}

/// Creates the state directory if needed and proves it writable with a probe file, so that a
/// bad `state_dir` stops start-up naming it, instead of failing every later report change.
fn check_state_dir(dir: &std::path::Path) -> Result<(), StartError> {
    let probe = dir.join(".pinbad-write-check");
    let result = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&probe, b"ok"))
        .and_then(|()| std::fs::remove_file(&probe));
    result.map_err(|source| StartError::StateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    tracing::info!(state_dir = %dir.display(), "State directory");
    Ok(())
}

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
    #[error("report `{name}`: {message}")]
    Report { name: String, message: String },
    #[error("{0}")]
    Config(crate::config::ConfigError),
    #[error("state_dir {path} is not writable ({source}); set `state_dir` or --state-dir")]
    StateDir {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start threads: {0}")]
    Thread(std::io::Error),
}

/// Everything [`start`] checks except binding sockets (for `pinbad check-config`): the reports
/// the daemon would start with (built-ins, `[[report]]` tables, the state directory's run-time
/// changes), their limit, the state directory, and the token.
pub fn check(config: &Config) -> Result<(), StartError> {
    Shared::new(config.clone(), Arc::new(Ring::new(1)), Vec::new(), 0).map(|_| ())
}

/// A running app: its threads, bound addresses and shared state.
pub struct Running {
    pub shared: Arc<Shared>,
    pub http_addr: SocketAddr,
    /// Taken by `serve`, so the port is released as soon as the server stops.
    http: Option<TcpListener>,
    shutdown: Shutdown,
    receivers: Vec<JoinHandle<()>>,
    merger: Option<JoinHandle<()>>,
    merger_stop: Arc<AtomicBool>,
}

/// Binds every socket (failing fast), allocates the pool, creates the start-up reports and starts
/// the receiver and merger threads. The HTTP server is started by [`Running::serve`].
pub fn start(config: Config, shutdown: Shutdown) -> Result<Running, StartError> {
    // HTTP first: a start that fails on it must not have taken any datagram.
    let http_addr = config.http_addr();
    let http = TcpListener::bind(http_addr).map_err(|source| StartError::BindHttp {
        addr: http_addr,
        source,
    })?;
    http.set_nonblocking(true)
        .map_err(|source| StartError::BindHttp {
            addr: http_addr,
            source,
        })?;
    let http_addr = http.local_addr().unwrap_or(http_addr);

    // One exclusive socket per address (see receiver::bind); its readers share it.
    let mut sockets = Vec::new();
    for addr in config.udp_addrs() {
        let bound = receiver::bind(addr, config.udp.recv_buffer.0 as usize)
            .map_err(|source| StartError::BindUdp { addr, source })?;
        for _ in 1..config.udp.readers {
            let socket = bound.socket.try_clone().map_err(StartError::Thread)?;
            sockets.push(receiver::Bound { socket, ..bound });
        }
        sockets.push(bound);
    }

    let ring = Arc::new(Ring::new(config.temp_pool_memory.0 as usize));
    let udp_addrs = sockets.iter().map(|s| s.local_addr).collect();
    let receive_buffer_bytes = sockets.first().map_or(0, |s| s.recv_buffer_bytes as u64);
    let shared = Arc::new(Shared::new(
        config,
        Arc::clone(&ring),
        udp_addrs,
        receive_buffer_bytes,
    )?);

    if !http_addr.ip().is_loopback() && shared.token.is_none() {
        tracing::warn!(
            http = %http_addr,
            "The API listens beyond loopback without a token: anyone who reaches it can create \
             and drop reports (set http.token or http.token_file)"
        );
    }
    let mut receivers = Vec::new();
    for (i, bound) in sockets.into_iter().enumerate() {
        tracing::info!(udp = %bound.local_addr, "Listening");
        let r = Receiver {
            socket: bound.socket,
            ring: Arc::clone(&ring),
            counters: Arc::clone(&shared.counters),
            shutdown: shutdown.clone(),
            policy: shared.config.decode_policy(),
            allow: shared.config.allow_nets(),
            batch_size: shared.config.udp.batch,
        };
        let handle = std::thread::Builder::new()
            .name(format!("pinbad-recv-{i}"))
            .spawn(move || r.run())
            .map_err(StartError::Thread)?;
        receivers.push(handle);
    }
    let merger_stop = Arc::new(AtomicBool::new(false));
    let merger = {
        let m = Merger::new(Arc::clone(&shared), ring);
        let stop = Arc::clone(&merger_stop);
        std::thread::Builder::new()
            .name("pinbad-merger".into())
            .spawn(move || m.run(&stop))
            .map_err(StartError::Thread)?
    };
    Ok(Running {
        shared,
        http_addr,
        http: Some(http),
        shutdown,
        receivers,
        merger: Some(merger),
        merger_stop,
    })
}

impl Running {
    /// Serves HTTP until shutdown is triggered, then stops the receivers, lets the merger drain
    /// the ring into the pool, and returns. Blocks the calling thread.
    pub fn serve(mut self) -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("pinbad-http")
            .enable_all()
            .build()?;
        let router = crate::api::router(Arc::clone(&self.shared));
        let shutdown = self.shutdown.clone();
        let http = &self.shared.config.http;
        let limits = crate::api::server::ServerLimits {
            max_connections: http.max_connections,
            header_timeout: http.header_timeout.0,
            idle_timeout: http.idle_timeout.0,
        };
        let counters = Arc::clone(&self.shared.counters);
        let std_listener = self
            .http
            .take()
            .ok_or_else(|| std::io::Error::other("already served"))?;
        tracing::info!(http = %self.http_addr, "Listening");
        let served = runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener)?;
            let signals = shutdown.clone();
            tokio::spawn(async move {
                wait_for_signal().await;
                tracing::info!("Stopping");
                signals.trigger();
            });
            crate::api::server::serve(listener, router, limits, counters, shutdown).await;
            Ok::<(), std::io::Error>(())
        });
        runtime.shutdown_timeout(Duration::from_millis(200));
        self.shutdown.trigger();
        self.stop_threads();
        served
    }

    fn stop_threads(&mut self) {
        for r in self.receivers.drain(..) {
            let _ = r.join();
        }
        self.merger_stop
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(m) = self.merger.take() {
            let _ = m.join();
        }
    }
}

/// SIGINT or SIGTERM.
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::warn!("Cannot install signal handlers");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {},
        _ = int.recv() => {},
    }
}

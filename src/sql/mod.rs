//! The SQL front end: the MySQL protocol on `[mysql] listen` (default `127.0.0.1:30306`),
//! database `pinba`, with pinba_engine's tables, so that the tools that query pinba_engine and
//! pinba2 (the `mysql` client, cron jobs, Grafana's MySQL data source, Pinboard) query pinbad
//! unchanged.
//!
//! In: TCP connections, MySQL commands. Out: result sets, read from the reports and the raw pool
//! (never written: `CREATE TABLE … ENGINE=PINBA` and `DROP TABLE` create and drop reports, as the
//! HTTP API does, through the same code paths). The stages, in the order a statement meets them:
//! - this file: the listener ("pinbad-http" runtime), the session cap, the handshake's bound,
//!   the password check and its delays, the query slots and their queue;
//! - `wire`: a connection's bytes (packet size, UTF-8, idle and write bounds);
//! - `session`: one client's commands (the `opensrv_mysql` protocol shim), a query of several
//!   statements (`CLIENT_MULTI_STATEMENTS`) answered one result after another;
//! - `ddl`: `CREATE TABLE` and `DROP TABLE` (a DROP followed by a CREATE of the same
//!   definition keeps the report);
//! - `prepared`: server-side prepared statements, their parameters written in as literals;
//! - `statement`: a statement classified by its first words;
//! - `translate`, `dialect`, `typing`: a query parsed in MySQL's dialect (sqlparser's, with
//!   MySQL's precedences) and its syntax tree translated to SQLite's, bounded before it is
//!   parsed, with its result columns' DECIMAL scales; `windows`: the window functions MySQL
//!   refuses where they are, with its errors; `resolution`: the order MySQL resolves clauses
//!   in, which decides which fault of a statement its error names, and where;
//! - `engine`: the session's SQLite, which evaluates the query (SQLite, already linked for
//!   history, is the SQL engine: nothing here evaluates SQL itself);
//! - `memory`: what the sessions' engines and rows hold, in the memory budget and under a cap;
//! - `vtab`: the pinba tables as SQLite virtual tables over the reports and the raw pool;
//! - `order`: the order a scan of `request` gives a statement's GROUP BY or ORDER BY, so that
//!   SQLite need not sort the pool;
//! - `layout`: which columns a report's table has (pinba_engine's or pinba2's) and what each
//!   holds;
//! - `functions`, `dates`, `aggregates`, `scalars`: MySQL's functions SQLite lacks or computes
//!   otherwise;
//! - `decimal`: exact DECIMAL values, as MySQL computes them (the functions' arithmetic);
//! - `collation`: MySQL's default collation (utf8mb4_general_ci), which text compares under,
//!   and the others pinbad has (`_bin`, `binary`, `uca`'s utf8mb4_unicode_ci).
//!
//! Bounded: statements take `mysql.max_concurrent_queries` slots of their own (never the HTTP
//! API's), wait for one in a queue of `mysql.max_queued_queries`, stop at `mysql.max_query_time`
//! (the wait and a client that stopped reading included), scan the raw pool in chunks under
//! short locks; at most `mysql.max_connections` sessions, each closed when it has not logged in
//! within `mysql.handshake_timeout` or sent nothing for `mysql.wait_timeout`; a command longer
//! than `mysql.max_allowed_packet` is refused unread, and no value or row may be longer; the
//! statements' memory together (SQLite's: sorts, groupings, temporary tables, which never go to
//! disk; and the rows not yet sent) is counted in `limits.max_memory` and capped at
//! `mysql.max_memory` (error 1041 past it). Everything is counted in `Counters::sql`
//! (status `mysql`, `/metrics` `pinbad_sql_*`). Never touches the ingest path.

mod aggregates;
mod coercibility;
pub mod collation;
mod coldef;
mod dates;
mod decimal;
mod dialect;
mod ddl;
mod engine;
mod information_schema;
mod functions;
pub mod layout;
mod locks;
mod memory;
mod order;
mod prepared;
mod resolution;
mod scalars;
mod session;
mod status;
mod temporal_wire;
mod translate;
mod variables;
pub mod statement;
mod typing;
pub mod uca;
mod vtab;
mod windows;
mod wire;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::MysqlConfig;
use crate::history::History;
use crate::shutdown::Shutdown;
use crate::state::Core;

/// What the server says it is (`@@version`, `VERSION()`, the handshake): a MySQL 8 version, so
/// that clients speak their modern dialect, and pinbad's.
pub const VERSION: &str = concat!("8.0.30-pinbad-", env!("CARGO_PKG_VERSION"));

/// What every session shares.
pub struct SqlContext {
    pub core: Arc<Core>,
    /// A dropped report's history goes with it.
    pub history: Arc<History>,
    /// `mysql.max_concurrent_queries` slots: a statement holds one on the blocking pool while it
    /// runs. SQL's own, so that no SQL load makes an HTTP query wait; a semaphore because
    /// sessions wait for a slot (fairly, in their order) up to their deadline.
    query_slots: Arc<Semaphore>,
    /// Failed logins per client address (see [`SqlContext::login_failed`]).
    failures: Arc<parking_lot::Mutex<HashMap<IpAddr, Failures>>>,
    pub config: MysqlConfig,
    /// Whether sessions may `CREATE` and `DROP TABLE`: with a password (only authenticated
    /// sessions exist), or without an `http.token` (the HTTP API allows changes without one).
    pub ddl_allowed: bool,
    /// What the sessions' engines and rows hold (`memory`).
    memory: Arc<memory::SqlMemory>,
    next_id: AtomicU32,
    /// The sessions open now, by id: what `SHOW PROCESSLIST` lists (at most
    /// `mysql.max_connections`).
    pub processes: parking_lot::Mutex<std::collections::BTreeMap<u32, session::Process>>,
    /// The named locks the sessions share (`GET_LOCK`): a session's are released as it ends.
    pub locks: Arc<locks::Locks>,
}

impl SqlContext {
    pub fn new(core: Arc<Core>, history: Arc<History>, http_token: bool) -> SqlContext {
        let config = core.config().mysql.clone();
        SqlContext {
            memory: Arc::new(memory::SqlMemory::new(
                Arc::clone(core.budget()),
                config.max_memory.0,
            )),
            ddl_allowed: !config.password.is_empty() || !http_token,
            core,
            history,
            query_slots: Arc::new(Semaphore::new(config.max_concurrent_queries)),
            failures: Default::default(),
            config,
            next_id: AtomicU32::new(1),
            processes: Default::default(),
            locks: Default::default(),
        }
    }

    /// A query slot: a free one, else one that frees before `deadline`, waiting in the queue.
    async fn slot(&self, deadline: Instant) -> Result<OwnedSemaphorePermit, NoSlot> {
        if let Ok(slot) = Arc::clone(&self.query_slots).try_acquire_owned() {
            return Ok(slot);
        }
        // Statements waiting for a slot now (`mysql.queued`), at most `mysql.max_queued_queries`.
        let queued = &self.core.counters().sql.queued;
        let max = self.config.max_queued_queries as u64;
        if queued
            .fetch_update(Relaxed, Relaxed, |n| (n < max).then_some(n + 1))
            .is_err()
        {
            return Err(NoSlot::QueueFull);
        }
        /// Leaves the queue however the wait ends (a session's task may be dropped in it).
        struct Queued<'a>(&'a AtomicU64);
        impl Drop for Queued<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Relaxed);
            }
        }
        let _queued = Queued(queued);
        let acquire = Arc::clone(&self.query_slots).acquire_owned();
        match tokio::time::timeout_at(deadline.into(), acquire).await {
            Ok(Ok(slot)) => Ok(slot),
            Ok(Err(_)) | Err(_) => Err(NoSlot::TimedOut),
        }
    }

    /// The delay before a failed login from `ip` is answered, and whether to log it. An
    /// address's checked failures are answered one after another, however many connections it
    /// opens: each [`login_delay`] after the address's previous answer (100 ms, doubling with
    /// each failure up to 5 s), and no other login of the address is checked before that
    /// answer is out ([`SqlContext::admit`]). A login refused unchecked (`checked` false) is
    /// answered with the address's next answer (100 ms at least) and is not a failure: it
    /// neither makes the delays longer nor pushes the answers later, so that a client retrying
    /// one login at a time gets its turn once the guessing stops; it waits, and past
    /// [`MAX_WAITING`] waiting the address's new connections are refused before their handshake
    /// ([`SqlContext::blocked`]). An address quiet for a minute starts again. A line is due at
    /// the first failure and then once a minute per address (`Some(failures since the last
    /// line)`).
    fn login_failed(&self, ip: IpAddr, checked: bool) -> LoginFailure {
        let now = Instant::now();
        let mut failures = self.failures.lock();
        let f = self.failures_entry(&mut failures, ip, now);
        if now.duration_since(f.last) >= FAILURES_FORGOTTEN {
            f.count = 0;
        }
        f.last = now;
        let waiting = if checked {
            f.checking = false;
            f.count = f.count.saturating_add(1);
            f.answer_at = f.answer_at.max(now) + login_delay(f.count);
            None
        } else {
            f.waiting += 1;
            Some(Waiting {
                failures: Arc::clone(&self.failures),
                ip,
            })
        };
        let delay = f.answer_at.saturating_duration_since(now);
        LoginFailure {
            failures: f.count,
            delay: if checked {
                delay
            } else {
                delay.max(LOGIN_DELAY_FIRST)
            },
            log: f.line.note(1),
            _waiting: waiting,
        }
    }

    /// `ip`'s line in `failures`, made if it has none. The map is bounded
    /// ([`MAX_FAILING_ADDRESSES`]): when full, the addresses quiet for a minute go, then the
    /// longest-quiet one.
    fn failures_entry<'a>(
        &self,
        failures: &'a mut HashMap<IpAddr, Failures>,
        ip: IpAddr,
        now: Instant,
    ) -> &'a mut Failures {
        if failures.len() >= MAX_FAILING_ADDRESSES && !failures.contains_key(&ip) {
            failures.retain(|_, f| {
                now.duration_since(f.last) < FAILURES_FORGOTTEN || f.checking || f.waiting > 0
            });
            if failures.len() >= MAX_FAILING_ADDRESSES {
                if let Some(oldest) = failures.iter().min_by_key(|(_, f)| f.last).map(|(a, _)| *a) {
                    failures.remove(&oldest);
                }
            }
        }
        failures.entry(ip).or_insert(Failures {
            count: 0,
            last: now,
            answer_at: now,
            checking: false,
            waiting: 0,
            line: crate::logging::Throttle::new(FAILURES_LOGGED_EVERY),
        })
    }

    /// Whether a connection from `ip` is refused before its handshake (MySQL's 1129, host
    /// blocked): [`MAX_WAITING`] of its logins wait for their answer already, so that its
    /// attempts in flight stay a few whatever the connections it opens.
    fn blocked(&self, ip: IpAddr) -> bool {
        self.failures
            .lock()
            .get(&ip)
            .is_some_and(|f| f.waiting >= MAX_WAITING)
    }

    /// Whether `user` may connect from `ip` with `auth_data` (mysql_native_password's scramble
    /// of the password with `salt`): always without a configured password; else what the
    /// failure is ([`SqlContext::login_failed`]). The password is checked, for an address that
    /// failed of late, only for one login at a time, and only once the answer to its last
    /// failure is out: others are refused unchecked (1045 all the same, so that a guesser learns
    /// nothing; counted in `mysql.auth_unchecked`), so that an address checks one guess per
    /// delay however many connections it opens. A success forgets the address's failures.
    fn login(
        &self,
        ip: IpAddr,
        user: &str,
        salt: &[u8],
        auth_data: &[u8],
    ) -> Result<(), LoginFailure> {
        if self.config.password.is_empty() {
            return Ok(());
        }
        if !self.admit(ip) {
            self.core
                .counters()
                .sql
                .auth_unchecked
                .fetch_add(1, Relaxed);
            return Err(self.login_failed(ip, false));
        }
        if self.password_matches(user, salt, auth_data) {
            self.failures.lock().remove(&ip);
            Ok(())
        } else {
            Err(self.login_failed(ip, true))
        }
    }

    fn password_matches(&self, user: &str, salt: &[u8], auth_data: &[u8]) -> bool {
        if user != self.config.user {
            return false;
        }
        // The salt opensrv_mysql hands over may carry the handshake's trailing NUL.
        let salt = salt.strip_suffix(&[0]).unwrap_or(salt);
        match mysql_common::scramble::scramble_native(salt, self.config.password.as_bytes()) {
            Some(want) => subtle::ConstantTimeEq::ct_eq(&want[..], auth_data).into(),
            None => false,
        }
    }

    /// Whether a login from `ip` may have its password checked now: the address has no failure
    /// of late, or none of its logins is being checked and the answer to its last failure is
    /// out. Marks it checking (a failure
    /// clears the mark in [`SqlContext::login_failed`], a success forgets the address).
    fn admit(&self, ip: IpAddr) -> bool {
        let now = Instant::now();
        let mut failures = self.failures.lock();
        let f = self.failures_entry(&mut failures, ip, now);
        // An address with no failure of late is never held up: its concurrent logins (a
        // client's pool) are checked side by side.
        let failing = f.count > 0 && now.duration_since(f.last) < FAILURES_FORGOTTEN;
        if failing && (f.checking || f.answer_at > now) {
            return false;
        }
        f.checking = true;
        true
    }
}

/// Why a statement got no query slot.
#[derive(Debug, PartialEq)]
enum NoSlot {
    /// `mysql.max_queued_queries` statements wait already.
    QueueFull,
    /// None freed before the statement's deadline.
    TimedOut,
}

/// A client address's failed logins: how many in a row, the last one's time, when its latest
/// failure is answered, and its log lines.
struct Failures {
    count: u32,
    last: Instant,
    answer_at: Instant,
    /// A login of the address is having its password checked.
    checking: bool,
    /// Its logins refused unchecked and not yet answered.
    waiting: u32,
    line: crate::logging::Throttle,
}

/// What [`SqlContext::login_failed`] says of a failed login.
struct LoginFailure {
    /// Failures in a row from the address, this one included.
    failures: u32,
    /// How long to wait before answering.
    delay: Duration,
    /// `Some(failures since the address's last line)` when a line is due.
    log: Option<u64>,
    /// For a login refused unchecked: counted as waiting until the failure is dropped (after
    /// its answer).
    _waiting: Option<Waiting>,
}

/// A login refused unchecked, waiting for its answer (see [`SqlContext::blocked`]).
struct Waiting {
    failures: Arc<parking_lot::Mutex<HashMap<IpAddr, Failures>>>,
    ip: IpAddr,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(f) = self.failures.lock().get_mut(&self.ip) {
            f.waiting = f.waiting.saturating_sub(1);
        }
    }
}

/// Client addresses whose failed logins are remembered (each ~64 bytes).
const MAX_FAILING_ADDRESSES: usize = 4096;
/// An address with no failed login for this long starts again from the first delay.
const FAILURES_FORGOTTEN: Duration = Duration::from_secs(60);
const LOGIN_DELAY_FIRST: Duration = Duration::from_millis(100);
/// Below `mysql.handshake_timeout`'s default, so the client reads its error.
const LOGIN_DELAY_MAX: Duration = Duration::from_secs(5);
/// An address's logins refused unchecked and waiting for their answer at most; past it its
/// connections are refused before their handshake (1129).
const MAX_WAITING: u32 = 8;
/// An address's failed logins are logged once in this long at most.
const FAILURES_LOGGED_EVERY: Duration = Duration::from_secs(60);

/// The delay before the `failures`-th failed login in a row from one address is answered.
fn login_delay(failures: u32) -> Duration {
    LOGIN_DELAY_FIRST
        .saturating_mul(1 << failures.saturating_sub(1).min(16))
        .min(LOGIN_DELAY_MAX)
}

/// A fresh random salt for a handshake (20 bytes, no NUL and no `$`, as MySQL's), from the
/// process's randomly seeded hasher keys.
fn salt() -> [u8; 20] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0u8; 20];
    let state = std::collections::hash_map::RandomState::new();
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = state.build_hasher();
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        let bytes = h.finish().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
    for b in &mut out {
        *b = (*b % 94) + 33;
        if *b == b'$' {
            *b += 1;
        }
    }
    out
}

/// The error packet a connection beyond `mysql.max_connections` gets before it is closed, in
/// place of the handshake (as a full MySQL server answers): ER_CON_COUNT_ERROR (1040).
fn too_many_connections() -> Vec<u8> {
    error_packet(
        1040,
        b"08004",
        "Too many connections (mysql.max_connections)",
    )
}

/// The error packet a connection from an address that guesses passwords gets in place of the
/// handshake (see [`SqlContext::blocked`]): ER_HOST_IS_BLOCKED (1129), as MySQL answers a host
/// past `max_connect_errors`; here the block lifts by itself once its logins are answered.
fn host_blocked(ip: IpAddr) -> Vec<u8> {
    error_packet(
        1129,
        b"HY000",
        &format!(
            "Host '{ip}' is blocked because of many failed logins; it may try again in a few seconds"
        ),
    )
}

/// An error packet (sequence 0): `0xff`, the code, `#` and the SQL state, the message.
fn error_packet(code: u16, state: &[u8; 5], msg: &str) -> Vec<u8> {
    let mut payload = vec![0xff];
    payload.extend_from_slice(&code.to_le_bytes());
    payload.push(b'#');
    payload.extend_from_slice(state);
    payload.extend_from_slice(msg.as_bytes());
    let mut packet = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    packet.push(0);
    packet.extend_from_slice(&payload);
    packet
}

/// Serves sessions on `listener` until `shutdown`; each session is its own task, ended by the
/// runtime's shutdown (a half-sent packet never holds the stop up).
pub async fn serve(listener: std::net::TcpListener, ctx: Arc<SqlContext>, shutdown: Shutdown) {
    let listener = match TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(error = %e, "SQL front end: cannot use its socket");
            return;
        }
    };
    // The address as its value (`mysql=127.0.0.1:3306`, not `Some(…)`); left out if unknown.
    let addr = listener.local_addr().ok();
    tracing::info!(mysql = addr.map(tracing::field::display), "Listening");
    let sessions = Arc::new(Semaphore::new(ctx.config.max_connections));
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "SQL front end: accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = shutdown.wait() => return,
        };
        let counters = &ctx.core.counters().sql;
        if ctx.blocked(peer.ip()) {
            counters.hosts_blocked.fetch_add(1, Relaxed);
            let mut stream = stream;
            tokio::spawn(async move {
                let _ = stream.write_all(&host_blocked(peer.ip())).await;
                let _ = stream.shutdown().await;
            });
            continue;
        }
        let Ok(permit) = Arc::clone(&sessions).try_acquire_owned() else {
            counters.sessions_refused.fetch_add(1, Relaxed);
            let mut stream = stream;
            tokio::spawn(async move {
                let _ = stream.write_all(&too_many_connections()).await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        counters.sessions.fetch_add(1, Relaxed);
        let open = counters.current_sessions.fetch_add(1, Relaxed) + 1;
        counters.peak_sessions.fetch_max(open, Relaxed);
        let _ = stream.set_nodelay(true);
        let ctx = Arc::clone(&ctx);
        tokio::spawn(async move {
            let _permit = permit;
            let id = ctx.next_id.fetch_add(1, Relaxed);
            if let Err(e) = run_session(&ctx, stream, peer, id).await {
                tracing::debug!(client = %peer, error = %e, "SQL session ended");
            }
            ctx.locks.release_all(id);
            // Its engine is gone: the budget and SQL's cap know.
            ctx.memory.settle();
            ctx.core
                .counters()
                .sql
                .current_sessions
                .fetch_sub(1, Relaxed);
        });
    }
}

/// One connection, from the greeting to its end: the protocol library reads what the pump
/// (`wire`) hands it and writes through [`wire::Guarded`]; one that has not logged in within
/// `mysql.handshake_timeout` is closed.
async fn run_session(
    ctx: &Arc<SqlContext>,
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    id: u32,
) -> std::io::Result<()> {
    let wire = Arc::new(wire::Wire::new(&ctx.config));
    let (socket_in, socket_out) = stream.into_split();
    // The library reads one command at a time (see `wire::Commands`).
    let (library_in, pumped) = wire::pipe(Arc::clone(&wire));
    let session = session::Session::new(Arc::clone(ctx), id, peer, Arc::clone(&wire));
    let output = wire::Guarded::new(socket_out, Arc::clone(&wire));
    let run = opensrv_mysql::AsyncMysqlIntermediary::run_on(session, library_in, output);
    let pump = wire::pump(socket_in, pumped, Arc::clone(&wire));
    let handshake_deadline = tokio::time::Instant::now() + ctx.config.handshake_timeout.0;
    let handshake = async {
        tokio::time::sleep_until(handshake_deadline).await;
        if wire.authenticated() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(run, pump, handshake);
    let mut pumping = true;
    loop {
        tokio::select! {
            ended = &mut run => return ended,
            // The pump's end (the client closed, idled or sent what cannot be read) drops the
            // library's input: the library ends after the commands it has.
            pumped = &mut pump, if pumping => {
                pumping = false;
                if let Err(e) = pumped {
                    tracing::debug!(client = %peer, error = %e, "SQL session's input ended");
                }
            }
            _ = &mut handshake => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "no login within mysql.handshake_timeout",
                ));
            }
        }
    }
}

/// Binds the SQL front end's socket (at start-up, failing fast as HTTP's does), `None` when it is
/// off.
pub fn bind(config: &MysqlConfig) -> std::io::Result<Option<(std::net::TcpListener, SocketAddr)>> {
    let Some(addr) = config.addr() else {
        return Ok(None);
    };
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr().unwrap_or(addr);
    Ok(Some((listener, bound)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_logins_wait_longer_each_time_up_to_five_seconds() {
        let ms: Vec<u128> = (1..=9).map(|n| login_delay(n).as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
        assert_eq!(login_delay(u32::MAX), LOGIN_DELAY_MAX);
    }
}

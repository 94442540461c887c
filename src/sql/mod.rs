//! The SQL front end: the MySQL protocol on `[mysql] listen` (default `127.0.0.1:30306`),
//! database `pinba`, with pinba_engine's tables, so that the tools that query pinba_engine and
//! pinba2 (the `mysql` client, cron jobs, Grafana's MySQL data source, Pinboard) query pinbad
//! unchanged.
//!
//! In: TCP connections, MySQL commands. Out: result sets, read from the reports and the raw pool
//! (never written: `CREATE TABLE … ENGINE=PINBA` and `DROP TABLE` create and drop reports, as the
//! HTTP API does, through the same code paths). The stages, in the order a statement meets them:
//! - this file: the listener ("pinbad-http" runtime), the session cap, the password check;
//! - `session`: one client's commands (the `opensrv_mysql` protocol shim);
//! - `statement`: a statement classified, a query rewritten from MySQL's dialect to SQLite's;
//! - `engine`: the session's SQLite, which evaluates the query (SQLite, already linked for
//!   history, is the SQL engine: nothing here evaluates SQL itself);
//! - `vtab`: the pinba tables as SQLite virtual tables over the reports and the raw pool;
//! - `layout`: which columns a report's table has (pinba_engine's or pinba2's) and what each
//!   holds;
//! - `functions`: MySQL's functions SQLite lacks.
//!
//! Bounded like the HTTP queries: statements take `http.max_concurrent_queries` slots (none
//! free: an error at once, never a queue), stop at `mysql.max_query_time`, scan the raw pool in
//! chunks under short locks; at most `mysql.max_connections` sessions. Everything is counted in
//! `Counters::sql` (status `mysql`, `/metrics` `pinbad_sql_*`). Never touches the ingest path.

mod engine;
mod functions;
pub mod layout;
mod session;
pub mod statement;
mod vtab;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

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
    /// The HTTP API's `http.max_concurrent_queries` slots, which statements take too.
    pub query_slots: Arc<Semaphore>,
    pub config: MysqlConfig,
    /// Whether sessions may `CREATE` and `DROP TABLE`: with a password (only authenticated
    /// sessions exist), or without an `http.token` (the HTTP API allows changes without one).
    pub ddl_allowed: bool,
    next_id: AtomicU32,
}

impl SqlContext {
    pub fn new(
        core: Arc<Core>,
        history: Arc<History>,
        query_slots: Arc<Semaphore>,
        http_token: bool,
    ) -> SqlContext {
        let config = core.config().mysql.clone();
        SqlContext {
            ddl_allowed: !config.password.is_empty() || !http_token,
            core,
            history,
            query_slots,
            config,
            next_id: AtomicU32::new(1),
        }
    }

    /// A query slot, if one is free.
    fn slot(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.query_slots).try_acquire_owned().ok()
    }

    /// Whether `user` may connect with `auth_data` (mysql_native_password's scramble of the
    /// password with `salt`): always without a configured password.
    fn authenticate(&self, user: &str, salt: &[u8], auth_data: &[u8]) -> bool {
        if self.config.password.is_empty() {
            return true;
        }
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
    let msg = b"Too many connections (mysql.max_connections)";
    let mut payload = vec![0xff];
    payload.extend_from_slice(&1040u16.to_le_bytes());
    payload.extend_from_slice(b"#08004");
    payload.extend_from_slice(msg);
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
        counters.current_sessions.fetch_add(1, Relaxed);
        let _ = stream.set_nodelay(true);
        let ctx = Arc::clone(&ctx);
        tokio::spawn(async move {
            let _permit = permit;
            let id = ctx.next_id.fetch_add(1, Relaxed);
            let (r, w) = stream.into_split();
            let session = session::Session::new(Arc::clone(&ctx), id);
            let ended = opensrv_mysql::AsyncMysqlIntermediary::run_on(session, r, w).await;
            if let Err(e) = ended {
                tracing::debug!(client = %peer, error = %e, "SQL session ended");
            }
            ctx.core
                .counters()
                .sql
                .current_sessions
                .fetch_sub(1, Relaxed);
        });
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

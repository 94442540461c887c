//! The HTTP server: connections in, the API's router served on each, with bounds no client can get
//! around.
//!
//! Runs on the tokio runtime ("pinbad-http"). `axum::serve` has no header-read timeout and no
//! connection cap, so one half-sent request kept the process alive for minutes after SIGTERM,
//! and a few hundred connections sending a header line a second ("slowloris") made `/healthz`
//! unreachable. Here:
//! - each connection is *waiting* (for a request's header: a new one, a slow one, an idle
//!   keep-alive one) or *busy* (a request is being read, handled or answered) ([`Table`]);
//! - a client (an IP address) holds at most `http.max_connections_per_client` connections and
//!   all clients together `http.max_connections`. A new connection beyond either takes the place
//!   of the one that has waited longest for a request within that bound (the client's own, or
//!   anyone's), which is closed (counted, `http_connections_evicted`): a slow client can never
//!   keep a quick one out, whose whole request comes in its first packet and which is busy
//!   before it could be chosen: a connection is chosen only once it has been polled (read) once,
//!   so a flood of new connections cannot push out one whose request is waiting to be read;
//! - when every connection within the bound is busy, a new one takes one of
//!   `http.health_connections` kept beside them, on which only `GET`/`HEAD` of `/healthz` and
//!   `/metrics` are answered (anything else a 503), one request each; with those taken too (and
//!   none of them waiting), it is closed at once and counted (`http_connections_refused`, or
//!   `http_connections_refused_per_client` when its client's bound was the one reached);
//! - a client must send each request's header within `http.header_timeout` (hyper's timer, which
//!   also runs while a keep-alive connection waits for its next request), so slow or silent
//!   connections give their slot back even when nobody needs it;
//! - a connection where no byte moves in either direction for `http.idle_timeout` is closed
//!   ([`IdleTimeout`]): a half-sent body, or a client that stops reading its response; a body
//!   trickled byte by byte meets `http.header_timeout` instead (`api::read_body`, a 408);
//! - an answer not taken whole within `http.answer_timeout` of its request is cut, its
//!   connection closed, once a write to the client waits ([`AnswerDeadline`]): a client reading
//!   a byte now and then would otherwise hold what the answer holds (a report query's table,
//!   counted in the memory budget: `api::answer`) for as long as it liked. `/api/v1/stream`,
//!   endless by design, has none;
//! - on shutdown the listener is closed at once, connections get [`SHUTDOWN_GRACE`] to finish what
//!   they are doing, and whatever is left is dropped with the runtime: the process exits within
//!   about a second, whatever the clients do.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{header, Method, StatusCode};
use axum::response::IntoResponse;
use axum::Router;
use hyper::body::{Frame, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use parking_lot::Mutex;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::time::{Instant, Sleep};

use crate::counters::Counters;
use crate::shutdown::Shutdown;

/// How long open connections may go on after shutdown was asked for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(800);

/// How long a connection closed to make room may take to go, once it has answered a request: an
/// idle one goes at once, one still sending its last answer's end gets this long, a half-sent
/// next request is dropped after it. One that never answered goes at once.
const EVICT_GRACE: Duration = Duration::from_millis(200);

/// How often, at most, the server logs that connections are being closed to make room or
/// refused (the counters have every one).
const PRESSURE_LOG_EVERY: Duration = Duration::from_secs(60);

/// The bounds of [`serve`], from `[http]` in the config.
#[derive(Clone, Copy, Debug)]
pub struct ServerLimits {
    pub max_connections: usize,
    /// At most `max_connections` (the smaller one applies).
    pub max_connections_per_client: usize,
    pub health_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub answer_timeout: Duration,
}

impl ServerLimits {
    /// The bounds `[http]` sets.
    pub fn of(http: &crate::config::HttpConfig) -> ServerLimits {
        ServerLimits {
            max_connections: http.max_connections,
            max_connections_per_client: http.max_connections_per_client.min(http.max_connections),
            health_connections: http.health_connections,
            header_timeout: http.header_timeout.0,
            idle_timeout: http.idle_timeout.0,
            answer_timeout: http.answer_timeout.0,
        }
    }
}

/// Serves `router` on `listener` until `shutdown` is triggered, then closes the listener, gives
/// open connections [`SHUTDOWN_GRACE`] and returns.
///
/// The accepting runs as a task on the runtime's workers, beside the connections' tasks, not on
/// the thread that awaits this (`block_on`'s): there it accepted a burst of connections at full
/// speed while the workers, short of CPU, had not read the requests that came first.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    counters: Arc<Counters>,
    shutdown: Shutdown,
) {
    let accepting = tokio::spawn(accept(listener, router, limits, counters, shutdown));
    if let Err(e) = accepting.await {
        tracing::error!(error = %e, "The HTTP server's task failed");
    }
}

/// [`serve`]'s task: accepts connections and serves each on a task of its own.
async fn accept(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    counters: Arc<Counters>,
    shutdown: Shutdown,
) {
    let table = Arc::new(Mutex::new(Table::new(limits)));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    // The health connections: one request each.
    let mut health_builder = builder.clone();
    health_builder.keep_alive(false);
    // Every connection's task holds a sender: when all are gone, every connection has ended.
    let (open_tx, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    let mut last_pressure_log: Option<Instant> = None;
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.wait() => break,
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // EMFILE and the like: back off instead of spinning; never fatal.
                    tracing::warn!(error = %e, "Cannot accept an HTTP connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let client = peer.ip().to_canonical();
        let admitted = table.lock().admit(client, &counters);
        let conn = match admitted {
            Ok(conn) => conn,
            Err(refusal) => {
                let counter = match refusal {
                    Refusal::Full => &counters.http_connections_refused,
                    Refusal::PerClient => &counters.http_connections_refused_per_client,
                };
                counter.fetch_add(1, Relaxed);
                drop(stream);
                log_pressure(&mut last_pressure_log, &counters);
                continue;
            }
        };
        if conn.evicted_one {
            log_pressure(&mut last_pressure_log, &counters);
        }
        let _ = stream.set_nodelay(true);
        let answer = Arc::new(AnswerDeadline::default());
        let io = TokioIo::new(
            IdleTimeout::new(stream, limits.idle_timeout).with_answer(Arc::clone(&answer)),
        );
        let service = ConnService {
            router: TowerToHyperService::new(router.clone()),
            table: Arc::clone(&table),
            id: conn.id,
            peer,
            health_only: conn.health,
            answer,
            answer_timeout: limits.answer_timeout,
        };
        let connection = if conn.health {
            health_builder.serve_connection(io, service)
        } else {
            builder.serve_connection(io, service)
        };
        let (table, shutdown, open) = (Arc::clone(&table), shutdown.clone(), open_tx.clone());
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            // One poll first: a request that came with the connection is read (and its
            // connection busy) before the connection can be chosen to make room.
            let first = std::future::poll_fn(|cx| Poll::Ready(connection.as_mut().poll(cx))).await;
            table.lock().heard(conn.id);
            let mut evicted_at: Option<Instant> = None;
            let mut stopping = false;
            let ended = if let Poll::Ready(ended) = first {
                ended
            } else {
                loop {
                    let drop_at = evicted_at.map(|t| t + EVICT_GRACE);
                    tokio::select! {
                        r = connection.as_mut() => break r,
                        _ = conn.evict.notify.notified(), if evicted_at.is_none() => {
                            // Never answered a request: nothing of an answer to finish.
                            if conn.evict.at_once.load(Relaxed) {
                                break Ok(());
                            }
                            evicted_at = Some(Instant::now());
                            connection.as_mut().graceful_shutdown();
                        }
                        _ = shutdown.wait(), if !stopping => {
                            stopping = true;
                            connection.as_mut().graceful_shutdown();
                        }
                        _ = tokio::time::sleep_until(drop_at.unwrap_or_else(Instant::now)), if drop_at.is_some() => {
                            break Ok(());
                        }
                    }
                }
            };
            // A connection's errors (timeouts, resets) are the client's business: not logged
            // above debug, never fatal.
            if let Err(e) = ended {
                tracing::debug!(error = %e, "HTTP connection ended");
            }
            table.lock().closed(conn.id);
            drop(open);
        });
        // The new connection's task (and every other ready one) runs before the next accept: a
        // burst of connections must not keep the requests already sent from being read, which
        // would leave their connections waiting, and so the first to be chosen to make room.
        tokio::task::yield_now().await;
    }
    drop(listener);
    drop(open_tx);
    if tokio::time::timeout(SHUTDOWN_GRACE, all_closed.recv())
        .await
        .is_err()
    {
        tracing::info!("Closing HTTP connections that did not finish in time");
    }
}

/// Logs, at most once per [`PRESSURE_LOG_EVERY`], that connections are being closed to make room
/// or refused, with the counts so far.
fn log_pressure(last: &mut Option<Instant>, counters: &Counters) {
    if last.is_some_and(|t| t.elapsed() < PRESSURE_LOG_EVERY) {
        return;
    }
    *last = Some(Instant::now());
    tracing::warn!(
        evicted = counters.http_connections_evicted.load(Relaxed),
        refused = counters.http_connections_refused.load(Relaxed),
        refused_per_client = counters.http_connections_refused_per_client.load(Relaxed),
        "HTTP connection bounds reached: connections waiting longest for a request are closed to make room, \
         new ones refused when all are busy (http.max_connections, http.max_connections_per_client; \
         a slow or flooding client?)"
    );
}

/// Why a new connection was closed at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// `max_connections` busy connections, and the health connections taken.
    Full,
    /// Its client's `max_connections_per_client`, all busy, and the health connections taken.
    PerClient,
}

/// A connection [`Table::admit`] let in.
struct Admitted {
    id: u64,
    /// One of the health connections (only `/healthz` and `/metrics` answered).
    health: bool,
    /// Notified when the connection is to make room for another.
    evict: Arc<Evict>,
    /// Whether another connection was closed to make room for this one.
    evicted_one: bool,
}

/// One open connection.
struct Entry {
    client: IpAddr,
    health: bool,
    /// Requests in progress (0 or 1 with HTTP/1).
    busy: u32,
    /// Since when (the table's sequence) it waits for a request, if it does.
    waiting_since: Option<u64>,
    /// Whether its task has polled it once (read what had come).
    heard: bool,
    /// Chosen to make room: closing, counted in no bound.
    evicted: bool,
    /// Whether a request has been answered on it (the end of an answer may still be on its way).
    answered: bool,
    evict: Arc<Evict>,
}

/// How a connection is told to make room.
#[derive(Default)]
struct Evict {
    notify: Notify,
    /// Close at once: no answer was ever sent on it, so none can be cut. Otherwise it closes as
    /// soon as it is idle, or after [`EVICT_GRACE`].
    at_once: std::sync::atomic::AtomicBool,
}

/// The open connections, each client's count, and which ones wait for a request in the order
/// they began to: what a connection beyond a bound is weighed against. One lock, held for a few
/// map operations per connection and per request.
struct Table {
    limits: ServerLimits,
    /// Ids, and the order in which connections begin to wait.
    seq: u64,
    conns: HashMap<u64, Entry>,
    /// Connections within `max_connections` (not the health ones, not the evicted).
    general: usize,
    per_client: HashMap<IpAddr, usize>,
    health: usize,
    /// Evicted connections not closed yet.
    evicting: usize,
    /// Waiting connections within `max_connections`, by when they began to wait.
    waiting: BTreeMap<u64, u64>,
    waiting_by_client: HashMap<IpAddr, BTreeMap<u64, u64>>,
    waiting_health: BTreeMap<u64, u64>,
}

impl Table {
    fn new(limits: ServerLimits) -> Table {
        Table {
            limits,
            seq: 0,
            conns: HashMap::new(),
            general: 0,
            per_client: HashMap::new(),
            health: 0,
            evicting: 0,
            waiting: BTreeMap::new(),
            waiting_by_client: HashMap::new(),
            waiting_health: BTreeMap::new(),
        }
    }

    fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Lets a new connection from `client` in (see the module's doc), closing the one that has
    /// waited longest where a bound is reached, or says why not.
    fn admit(&mut self, client: IpAddr, counters: &Counters) -> Result<Admitted, Refusal> {
        let l = self.limits;
        let at_client_cap =
            self.per_client.get(&client).copied().unwrap_or(0) >= l.max_connections_per_client;
        // No more evictions while as many are still closing as the bounds hold: a flood of
        // connections cannot make the closing ones pile up.
        let can_evict = self.evicting < l.max_connections + l.health_connections;
        let mut evicted_one = false;
        let general = if at_client_cap {
            let victim = self
                .waiting_by_client
                .get(&client)
                .and_then(|w| self.oldest_heard(w));
            match victim.filter(|_| can_evict) {
                Some(v) => {
                    self.evict(v, counters);
                    evicted_one = true;
                    true
                }
                None => false,
            }
        } else if self.general >= l.max_connections {
            match self.oldest_heard(&self.waiting).filter(|_| can_evict) {
                Some(v) => {
                    self.evict(v, counters);
                    evicted_one = true;
                    true
                }
                None => false,
            }
        } else {
            true
        };
        let health = !general && {
            if self.health < l.health_connections {
                true
            } else {
                match self
                    .oldest_heard(&self.waiting_health)
                    .filter(|_| can_evict)
                {
                    Some(v) => {
                        self.evict(v, counters);
                        evicted_one = true;
                        true
                    }
                    None => false,
                }
            }
        };
        if !general && !health {
            return Err(if at_client_cap {
                Refusal::PerClient
            } else {
                Refusal::Full
            });
        }
        let id = self.next();
        let evict = Arc::new(Evict::default());
        self.conns.insert(
            id,
            Entry {
                client,
                health,
                busy: 0,
                waiting_since: None,
                heard: false,
                evicted: false,
                answered: false,
                evict: Arc::clone(&evict),
            },
        );
        if health {
            self.health += 1;
        } else {
            self.general += 1;
            *self.per_client.entry(client).or_insert(0) += 1;
        }
        self.start_waiting(id);
        Ok(Admitted {
            id,
            health,
            evict,
            evicted_one,
        })
    }

    /// The connection of `waiting` that began to wait first and has been read once.
    fn oldest_heard(&self, waiting: &BTreeMap<u64, u64>) -> Option<u64> {
        waiting
            .values()
            .copied()
            .find(|id| self.conns.get(id).is_some_and(|e| e.heard))
    }

    /// Closes `id` to make room: out of every bound at once, its task told.
    fn evict(&mut self, id: u64, counters: &Counters) {
        self.stop_waiting(id);
        let Some(e) = self.conns.get_mut(&id) else {
            return;
        };
        e.evicted = true;
        e.evict.at_once.store(!e.answered, Relaxed);
        e.evict.notify.notify_one();
        let (client, health) = (e.client, e.health);
        self.release(client, health);
        self.evicting += 1;
        counters.http_connections_evicted.fetch_add(1, Relaxed);
    }

    /// Takes a connection out of its bound's counts.
    fn release(&mut self, client: IpAddr, health: bool) {
        if health {
            self.health -= 1;
            return;
        }
        self.general -= 1;
        if let Some(n) = self.per_client.get_mut(&client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&client);
            }
        }
    }

    fn start_waiting(&mut self, id: u64) {
        let since = self.next();
        let Some(e) = self.conns.get_mut(&id) else {
            return;
        };
        e.waiting_since = Some(since);
        if e.health {
            self.waiting_health.insert(since, id);
        } else {
            self.waiting.insert(since, id);
            self.waiting_by_client
                .entry(e.client)
                .or_default()
                .insert(since, id);
        }
    }

    fn stop_waiting(&mut self, id: u64) {
        let Some(e) = self.conns.get_mut(&id) else {
            return;
        };
        let Some(since) = e.waiting_since.take() else {
            return;
        };
        if e.health {
            self.waiting_health.remove(&since);
            return;
        }
        self.waiting.remove(&since);
        if let Some(w) = self.waiting_by_client.get_mut(&e.client) {
            w.remove(&since);
            if w.is_empty() {
                self.waiting_by_client.remove(&e.client);
            }
        }
    }

    /// The connection's task has polled it once.
    fn heard(&mut self, id: u64) {
        if let Some(e) = self.conns.get_mut(&id) {
            e.heard = true;
        }
    }

    /// A request's header has come on `id`: busy until its answer is sent. `false` when the
    /// connection was chosen to make room meanwhile (the request is then answered 503).
    fn busy(&mut self, id: u64) -> bool {
        match self.conns.get_mut(&id) {
            Some(e) if !e.evicted => e.busy += 1,
            _ => return false,
        }
        self.stop_waiting(id);
        true
    }

    /// A request's answer on `id` is sent (or dropped).
    fn idle(&mut self, id: u64) {
        let Some(e) = self.conns.get_mut(&id) else {
            return;
        };
        e.busy = e.busy.saturating_sub(1);
        e.answered = true;
        if e.busy == 0 && !e.evicted {
            self.start_waiting(id);
        }
    }

    /// The connection `id` has ended.
    fn closed(&mut self, id: u64) {
        self.stop_waiting(id);
        let Some(e) = self.conns.remove(&id) else {
            return;
        };
        if e.evicted {
            self.evicting -= 1;
        } else {
            self.release(e.client, e.health);
        }
    }
}

/// The service of one connection: marks it busy while a request is handled and answered, puts
/// the client's address in every request (`ConnectInfo`, for the logs of changes and errors:
/// `api::Client`), and on a health connection answers only `/healthz` and `/metrics`.
#[derive(Clone)]
struct ConnService {
    router: TowerToHyperService<Router>,
    table: Arc<Mutex<Table>>,
    id: u64,
    peer: std::net::SocketAddr,
    health_only: bool,
    /// When the answer being sent on the connection must be sent by.
    answer: Arc<AnswerDeadline>,
    answer_timeout: Duration,
}

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for ConnService {
    type Response = hyper::Response<Tracked>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut req: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        if !self.table.lock().busy(self.id) {
            return Box::pin(std::future::ready(Ok(refused(
                "this connection was closed to make room for another (http.max_connections, \
                 http.max_connections_per_client); retry on a new one",
            ))));
        }
        let endless = req.uri().path() == "/api/v1/stream";
        let guard = BusyGuard {
            table: Arc::clone(&self.table),
            id: self.id,
            answer: (!endless).then(|| {
                self.answer.set(Some(Instant::now() + self.answer_timeout));
                Arc::clone(&self.answer)
            }),
        };
        let health_path = matches!(*req.method(), Method::GET | Method::HEAD)
            && matches!(req.uri().path(), "/healthz" | "/metrics");
        if self.health_only && !health_path {
            drop(guard);
            return Box::pin(std::future::ready(Ok(refused(
                "every connection is busy (http.max_connections, http.max_connections_per_client); \
                 this one, kept for /healthz and /metrics, answers nothing else: retry shortly",
            ))));
        }
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(self.peer));
        let answer = hyper::service::Service::call(&self.router, req);
        Box::pin(async move {
            let resp = match answer.await {
                Ok(resp) => resp,
                Err(never) => match never {},
            };
            Ok(resp.map(|body| Tracked {
                inner: body,
                _guard: Some(guard),
            }))
        })
    }
}

/// A 503 that closes its connection (`detail` says why), for a request the connection cannot
/// take.
fn refused(detail: &str) -> hyper::Response<Tracked> {
    let mut resp = super::ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        error: "busy",
        detail: detail.into(),
    }
    .into_response();
    resp.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    resp.map(|body| Tracked {
        inner: body,
        _guard: None,
    })
}

/// Keeps a connection busy (see [`Table::busy`]) until dropped with the answer's body, and its
/// answer's deadline set until then.
struct BusyGuard {
    table: Arc<Mutex<Table>>,
    id: u64,
    answer: Option<Arc<AnswerDeadline>>,
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        if let Some(a) = &self.answer {
            a.set(None);
        }
        self.table.lock().idle(self.id);
    }
}

/// When the answer a connection is sending must be taken by (`http.answer_timeout` after its
/// request came), shared by the connection's service, which sets it, and its stream
/// ([`IdleTimeout`]), which cuts a write that waits past it.
#[derive(Default)]
pub struct AnswerDeadline {
    by: Mutex<Option<Instant>>,
}

impl AnswerDeadline {
    fn set(&self, by: Option<Instant>) {
        *self.by.lock() = by;
    }

    fn get(&self) -> Option<Instant> {
        *self.by.lock()
    }
}

/// An answer's body, keeping its connection busy until hyper has taken all of it (and drops it).
struct Tracked {
    inner: axum::body::Body,
    _guard: Option<BusyGuard>,
}

impl hyper::body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A stream that fails with `TimedOut` once no byte has moved in either direction for `timeout`
/// while someone waits on it. Every read or write that moves bytes pushes the deadline back, so
/// a slow but live transfer is never cut.
///
/// With [`IdleTimeout::with_answer`], a write that waits also fails once the answer's deadline
/// has passed (see [`AnswerDeadline`]).
pub struct IdleTimeout<T> {
    inner: T,
    timeout: Duration,
    deadline: Pin<Box<Sleep>>,
    answer: Option<Arc<AnswerDeadline>>,
    /// Armed at the answer's deadline while a write waits.
    answer_timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
}

impl<T> IdleTimeout<T> {
    pub fn new(inner: T, timeout: Duration) -> IdleTimeout<T> {
        IdleTimeout {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            answer: None,
            answer_timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            armed: None,
        }
    }

    /// Writes that wait fail once `answer`'s deadline, when it has one, has passed.
    pub fn with_answer(mut self, answer: Arc<AnswerDeadline>) -> IdleTimeout<T> {
        self.answer = Some(answer);
        self
    }

    /// After a pending write: an error if the answer's deadline has passed (the waker is
    /// registered with it too, so a client that reads nothing more is noticed at the deadline).
    fn answer_late(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        let by = self.answer.as_ref()?.get()?;
        if self.armed != Some(by) {
            self.armed = Some(by);
            self.answer_timer.as_mut().reset(by);
        }
        self.answer_timer.as_mut().poll(cx).is_ready().then(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "the answer was not taken within http.answer_timeout",
            )
        })
    }

    /// [`IdleTimeout::settle`] for a write: a pending one also meets the answer's deadline.
    fn settle_write<R>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<R>>,
        moved: bool,
    ) -> Poll<io::Result<R>> {
        if poll.is_pending() {
            if let Some(e) = self.answer_late(cx) {
                return Poll::Ready(Err(e));
            }
        }
        self.settle(cx, poll, moved)
    }

    fn moved(&mut self) {
        let next = Instant::now() + self.timeout;
        self.deadline.as_mut().reset(next);
    }

    /// After a pending poll: an error if the deadline has passed (the waker is registered with
    /// the deadline too, so a silent peer is noticed without any other event).
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        self.deadline.as_mut().poll(cx).is_ready().then(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "no data moved within http.idle_timeout",
            )
        })
    }

    fn settle<R>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<R>>,
        moved: bool,
    ) -> Poll<io::Result<R>> {
        match poll {
            Poll::Ready(Ok(r)) => {
                if moved {
                    self.moved();
                }
                Poll::Ready(Ok(r))
            }
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
            other => other,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleTimeout<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        let moved = buf.filled().len() > before;
        this.settle(cx, poll, moved)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, data);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        this.settle_write(cx, poll, moved)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        this.settle_write(cx, poll, moved)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.settle_write(cx, poll, false)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.settle(cx, poll, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn table(max: usize, per_client: usize, health: usize) -> Table {
        Table::new(ServerLimits {
            max_connections: max,
            max_connections_per_client: per_client,
            health_connections: health,
            header_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(60),
            answer_timeout: Duration::from_secs(120),
        })
    }

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    /// Admits a connection from `ip(client)` and lets its task poll it once.
    fn open(t: &mut Table, c: &Counters, client: u8) -> Result<Admitted, Refusal> {
        let a = t.admit(ip(client), c)?;
        t.heard(a.id);
        Ok(a)
    }

    /// A client at its bound loses its own longest-waiting connection to a new one, never a busy
    /// one nor another client's; with all of its own busy, the new one gets a health connection,
    /// then is refused as the client's.
    #[test]
    fn a_client_at_its_bound_makes_room_from_its_own_waiting_connections() {
        let c = Counters::default();
        let mut t = table(100, 2, 1);
        let other = open(&mut t, &c, 9).unwrap();
        let a = open(&mut t, &c, 1).unwrap();
        let b = open(&mut t, &c, 1).unwrap();
        assert!(t.busy(b.id), "b has a request");
        let n = open(&mut t, &c, 1).unwrap();
        assert!(!n.health && n.evicted_one);
        assert!(t.conns[&a.id].evicted, "the waiting one made room");
        assert!(!t.conns[&b.id].evicted && !t.conns[&other.id].evicted);
        assert!(!t.busy(a.id), "an evicted connection takes no request");
        assert!(t.busy(n.id));
        let h = open(&mut t, &c, 1).unwrap();
        assert!(h.health, "all busy: a health connection");
        assert!(t.busy(h.id));
        assert_eq!(open(&mut t, &c, 1).err(), Some(Refusal::PerClient));
        assert_eq!(c.http_connections_evicted.load(Relaxed), 1);
        // Answers sent: the connections wait again, the oldest first to go.
        t.idle(b.id);
        t.idle(n.id);
        open(&mut t, &c, 1).unwrap();
        assert!(t.conns[&b.id].evicted && !t.conns[&n.id].evicted);
        t.closed(a.id);
        t.closed(b.id);
        assert_eq!((t.evicting, t.general, t.per_client[&ip(1)]), (0, 3, 2));
    }

    /// At `max_connections` the longest-waiting connection of any client makes room; one not yet
    /// read never does; when none waits, health connections, then refusal.
    #[test]
    fn the_server_at_its_bound_makes_room_from_the_longest_waiting() {
        let c = Counters::default();
        let mut t = table(3, 3, 1);
        let a = open(&mut t, &c, 1).unwrap();
        let b = t.admit(ip(2), &c).unwrap(); // never read yet
        let d = open(&mut t, &c, 3).unwrap();
        let n = open(&mut t, &c, 4).unwrap();
        assert!(t.conns[&a.id].evicted && !n.health);
        let m = open(&mut t, &c, 5).unwrap();
        assert!(!t.conns[&b.id].evicted, "not read yet: kept");
        assert!(t.conns[&d.id].evicted && !m.health);
        t.heard(b.id);
        for id in [b.id, n.id, m.id] {
            assert!(t.busy(id));
        }
        let h = open(&mut t, &c, 6).unwrap();
        assert!(h.health);
        // A waiting health connection makes room for the next one.
        let h2 = open(&mut t, &c, 7).unwrap();
        assert!(h2.health && t.conns[&h.id].evicted);
        assert!(t.busy(h2.id));
        assert_eq!(open(&mut t, &c, 8).err(), Some(Refusal::Full));
        for id in [a.id, d.id, h.id] {
            t.closed(id);
        }
        for id in [b.id, n.id, m.id, h2.id] {
            t.idle(id);
            t.closed(id);
        }
        assert!(t.conns.is_empty() && t.waiting.is_empty() && t.waiting_health.is_empty());
        assert!(t.per_client.is_empty() && t.waiting_by_client.is_empty());
        assert_eq!((t.general, t.health, t.evicting), (0, 0, 0));
    }

    /// A silent peer is cut after the timeout; a peer that keeps sending is not.
    #[tokio::test(start_paused = true)]
    async fn idle_streams_time_out_and_live_ones_do_not() {
        let (a, mut b) = tokio::io::duplex(64);
        let mut idle = IdleTimeout::new(a, Duration::from_secs(5));
        let mut buf = [0u8; 8];
        for _ in 0..4 {
            tokio::time::advance(Duration::from_secs(3)).await;
            b.write_all(b"x").await.unwrap();
            assert_eq!(idle.read(&mut buf).await.unwrap(), 1, "data keeps it alive");
        }
        let e = idle.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    }

    /// A write that waits on a peer that reads now and then (so the idle timeout never comes)
    /// fails at the answer's deadline; without one it goes on waiting.
    #[tokio::test(start_paused = true)]
    async fn a_waiting_write_fails_at_the_answers_deadline() {
        let (a, mut b) = tokio::io::duplex(16);
        let answer = Arc::new(AnswerDeadline::default());
        let mut conn = IdleTimeout::new(a, Duration::from_secs(5)).with_answer(Arc::clone(&answer));
        answer.set(Some(Instant::now() + Duration::from_secs(12)));
        let started = Instant::now();
        let mut buf = [0u8; 4];
        let e = loop {
            match tokio::time::timeout(Duration::from_secs(3), conn.write_all(&[7u8; 64])).await {
                Ok(Ok(())) => continue,
                Ok(Err(e)) => break e,
                // Waiting: the peer takes a few bytes, as a trickling client does.
                Err(_) => {
                    b.read_exact(&mut buf).await.unwrap();
                }
            }
        };
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(e.to_string().contains("http.answer_timeout"), "{e}");
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(12) && took < Duration::from_secs(16),
            "{took:?}"
        );
        // No answer being sent: a waiting write meets only the idle timeout.
        let (a, _b) = tokio::io::duplex(16);
        let mut conn = IdleTimeout::new(a, Duration::from_secs(30))
            .with_answer(Arc::new(AnswerDeadline::default()));
        let started = Instant::now();
        let e = conn.write_all(&[7u8; 64]).await.unwrap_err();
        assert!(e.to_string().contains("http.idle_timeout"), "{e}");
        assert!(started.elapsed() >= Duration::from_secs(30));
    }
}

//! The live stream: every merged request as it arrives, one JSON object per line (NDJSON), or as
//! Server-Sent Events, to each subscriber of `GET /api/v1/stream` (whose HTTP half, parsing the
//! query and answering, is `api::stream`). The filters of `/api/v1/requests` apply, plus
//! `sample=RATE`.
//!
//! In: merge rounds, through one [`Tap`] per subscriber (the merger offers each round; the tap
//! keeps the `Arc` in a bounded queue or counts the round's requests as dropped). Out: bytes of
//! the HTTP response. Each subscriber has one tokio task ("pinbad-http" threads) that filters and
//! renders its rounds and hands the lines to the response through a buffer bounded in bytes
//! (`limits.stream_buffer`). A client that reads slower than requests arrive loses lines, never
//! slows ingestion or the other subscribers: what it lost is counted (per subscriber in
//! `/api/v1/status`) and told to it by a `{"dropped": N}` line as soon as lines flow again.
//!
//! Never blocks the merger; never holds the dictionary lock longer than rendering one round.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};

pub use crate::ndjson::sampled;
use crate::ndjson::{write_request, RequestFilter, ENCODE_CHUNK};
use crate::shutdown::Shutdown;
use crate::state::Core;
use crate::tap::{Round, Tap};

/// Rounds a subscriber's task may be behind the merger before rounds are dropped (and counted).
/// A round holds at most `merger::ROUND_REQUESTS` requests.
const ROUND_QUEUE: usize = 64;

/// With nothing to send for this long, a keep-alive goes out (a blank line, or an SSE comment),
/// so that `http.idle_timeout` does not close a quiet stream and a gone client is noticed; half
/// of `http.idle_timeout` when that is shorter (see [`keep_alive`]).
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// How long a quiet stream waits before its keep-alive: [`KEEP_ALIVE`], or half of
/// `http.idle_timeout` (at least 100 ms, see the config) when that would close it first.
fn keep_alive(idle_timeout: Duration) -> Duration {
    KEEP_ALIVE.min(idle_timeout / 2)
}

/// The subscribers, for `limits.max_stream_clients` and `/api/v1/status`. Built by `app`;
/// a subscriber adds itself when its stream starts and removes itself when it ends.
#[derive(Default)]
pub struct Subscribers {
    list: Mutex<Vec<Arc<Subscriber>>>,
    next_id: AtomicU64,
    /// Lines sent and lost by subscribers that have gone (the live ones report their own).
    gone_sent: AtomicU64,
    gone_dropped: AtomicU64,
}

/// One client of `/api/v1/stream`: its tap, its figures.
pub struct Subscriber {
    id: u64,
    /// The query string it asked with (for status).
    query: String,
    sse: bool,
    started_unix_ms: u64,
    /// The merger's end of the round queue; the subscriber's task holds the receiver.
    rounds: tokio::sync::mpsc::Sender<Arc<Round>>,
    /// Requests (before filtering) of rounds the queue had no room for.
    rounds_dropped: AtomicU64,
    /// Lines rendered that the response buffer had no room for.
    lines_dropped: AtomicU64,
    lines_sent: AtomicU64,
    /// Bytes handed to the response and not yet taken by hyper: bounded by `limits.stream_buffer`.
    buffered_bytes: AtomicUsize,
}

impl Tap for Subscriber {
    fn name(&self) -> &str {
        "stream"
    }

    fn offer(&self, round: &Arc<Round>) {
        if self.rounds.try_send(Arc::clone(round)).is_err() {
            self.rounds_dropped
                .fetch_add(round.batch().len() as u64, Relaxed);
        }
    }
}

impl Subscriber {
    fn dropped(&self) -> u64 {
        self.rounds_dropped.load(Relaxed) + self.lines_dropped.load(Relaxed)
    }

    fn status(&self) -> Value {
        json!({
            "id": self.id,
            "query": self.query,
            "format": if self.sse { "sse" } else { "ndjson" },
            "since": self.started_unix_ms as f64 / 1000.0,
            "sent": self.lines_sent.load(Relaxed),
            "dropped": self.dropped(),
            "current_buffered_bytes": self.buffered_bytes.load(Relaxed),
        })
    }
}

impl Subscribers {
    pub fn len(&self) -> usize {
        self.list.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `stream` object of `/api/v1/status`.
    pub fn status(&self, max_clients: usize) -> Value {
        let list = self.list.lock();
        let (mut sent, mut dropped) = (
            self.gone_sent.load(Relaxed),
            self.gone_dropped.load(Relaxed),
        );
        for s in list.iter() {
            sent += s.lines_sent.load(Relaxed);
            dropped += s.dropped();
        }
        json!({
            "current_clients": list.len(),
            "max_clients": max_clients,
            "sent": sent,
            "dropped": dropped,
            "clients": list.iter().map(|s| s.status()).collect::<Vec<_>>(),
        })
    }

    fn remove(&self, sub: &Arc<Subscriber>) {
        // Its figures move to the gone totals under the lock `status` reads them under: in
        // between, a reading saw neither, and `pinbad_stream_sent_total` dipped (a counter reset
        // to Prometheus).
        let mut list = self.list.lock();
        list.retain(|s| !Arc::ptr_eq(s, sub));
        self.gone_sent
            .fetch_add(sub.lines_sent.load(Relaxed), Relaxed);
        self.gone_dropped.fetch_add(sub.dropped(), Relaxed);
    }
}

/// Unregisters a subscriber's tap and entry when its task ends, however it ends.
struct Registration {
    ctx: StreamContext,
    sub: Arc<Subscriber>,
    tap: Arc<dyn Tap>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.ctx.core.taps().remove(&self.tap);
        self.ctx.subscribers.remove(&self.sub);
    }
}

/// What a subscriber's task reads: the pipeline's core (dictionary, clock, config, taps), the
/// subscriber list and the app's shutdown signal (which ends every stream).
#[derive(Clone)]
pub struct StreamContext {
    pub core: Arc<Core>,
    pub subscribers: Arc<Subscribers>,
    pub shutdown: Shutdown,
}

/// Why a client could not subscribe: `limits.max_stream_clients` are connected.
#[derive(Debug)]
pub struct Full {
    pub max_clients: usize,
}

/// The bytes of one client's response: lines (or SSE events) as its task renders them.
pub type Lines = std::pin::Pin<
    Box<dyn futures_util::Stream<Item = Result<Vec<u8>, std::convert::Infallible>> + Send>,
>;

/// Registers a client asking with `query` (for status) for the requests `filter` and `sample`
/// pass, as SSE events if `sse`, and starts its task (on the current tokio runtime). The client
/// sees every request merged from now on until it goes or the app stops.
pub fn subscribe(
    ctx: StreamContext,
    query: String,
    sse: bool,
    filter: RequestFilter,
    sample: f64,
) -> Result<Lines, Full> {
    let max_clients = ctx.core.config().limits.max_stream_clients;
    let (round_tx, round_rx) = tokio::sync::mpsc::channel(ROUND_QUEUE);
    let sub = {
        let mut list = ctx.subscribers.list.lock();
        if list.len() >= max_clients {
            return Err(Full { max_clients });
        }
        let clock = ctx.core.clock();
        let sub = Arc::new(Subscriber {
            id: ctx.subscribers.next_id.fetch_add(1, Relaxed) + 1,
            query,
            sse,
            started_unix_ms: clock.unix_ms64(clock.now_ms64()),
            rounds: round_tx,
            rounds_dropped: AtomicU64::new(0),
            lines_dropped: AtomicU64::new(0),
            lines_sent: AtomicU64::new(0),
            buffered_bytes: AtomicUsize::new(0),
        });
        list.push(Arc::clone(&sub));
        sub
    };
    let tap: Arc<dyn Tap> = sub.clone();
    ctx.core.taps().add(Arc::clone(&tap));
    tracing::info!(client = sub.id, query = %sub.query, sse, "Stream client connected");
    let registration = Registration {
        ctx: ctx.clone(),
        sub: Arc::clone(&sub),
        tap,
    };
    // Unbounded in chunks, bounded in bytes: the task checks `buffered_bytes` before sending.
    let (body_tx, body_rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let task = Pump {
        ctx,
        sub: Arc::clone(&sub),
        filter,
        sample,
        body: body_tx,
        reported_dropped: 0,
    };
    tokio::spawn(task.run(round_rx, registration));
    Ok(Box::pin(futures_util::stream::unfold(
        (body_rx, sub),
        |(mut rx, sub)| async move {
            let chunk = rx.recv().await?;
            sub.buffered_bytes.fetch_sub(chunk.len(), Relaxed);
            Some((Ok(chunk), (rx, sub)))
        },
    )))
}

/// Bytes a `{"dropped": N}` notice takes at most (SSE's event form with a 20-digit N: 48).
const NOTICE_BYTES: usize = 64;

/// A subscriber's task: rounds in, rendered lines out.
struct Pump {
    ctx: StreamContext,
    sub: Arc<Subscriber>,
    filter: RequestFilter,
    sample: f64,
    body: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    /// How much of `sub.dropped()` the client has been told about.
    reported_dropped: u64,
}

impl Pump {
    async fn run(
        mut self,
        mut rounds: tokio::sync::mpsc::Receiver<Arc<Round>>,
        _registration: Registration,
    ) {
        let shutdown = self.ctx.shutdown.clone();
        let keep_alive = keep_alive(self.ctx.core.config().http.idle_timeout.0);
        let mut last_sent = tokio::time::Instant::now();
        loop {
            tokio::select! {
                round = rounds.recv() => match round {
                    Some(round) => {
                        // Room for the lines and the `{"dropped": N}` notice before them.
                        let max = self.ctx.core.config().limits.stream_buffer.0 as usize;
                        let buffered = self.sub.buffered_bytes.load(Relaxed);
                        let room = max.saturating_sub(buffered + NOTICE_BYTES);
                        let (chunk, lines, lost) = self.render(&round, room);
                        drop(round);
                        if !chunk.is_empty() {
                            last_sent = tokio::time::Instant::now();
                        }
                        if !self.send((chunk, lines)) {
                            break;
                        }
                        // Lost after the lines just sent: told before the next ones.
                        self.sub.lines_dropped.fetch_add(lost, Relaxed);
                    }
                    None => break,
                },
                _ = self.body.closed() => break,
                _ = shutdown.wait() => break,
                // Nothing sent for a while (no traffic, or none that passes the filters).
                _ = tokio::time::sleep_until(last_sent + keep_alive) => {
                    last_sent = tokio::time::Instant::now();
                    let alive = if self.sub.sse { &b": keep-alive\n\n"[..] } else { b"\n" };
                    if !self.send((alive.to_vec(), 0)) {
                        break;
                    }
                }
            }
        }
        tracing::info!(
            client = self.sub.id,
            sent = self.sub.lines_sent.load(Relaxed),
            dropped = self.sub.dropped(),
            "Stream client gone"
        );
    }

    /// The round's matching requests as lines (or SSE events) in at most `room` bytes (the
    /// client's buffer's free space), how many, and how many did not fit (not rendered). A round
    /// with timers can be tens of MB: rendered whole, it went into the buffer whenever that was
    /// empty, whatever `limits.stream_buffer` said.
    fn render(&self, round: &Round, room: usize) -> (Vec<u8>, u64, u64) {
        let mut out = Vec::new();
        let mut lines = 0u64;
        let mut lost = 0u64;
        let unix_ms = self.ctx.core.clock().unix_ms64(round.now_ms());
        // The dictionary's read lock per chunk (see `ndjson::ENCODE_CHUNK`): the merger never
        // waits long for it.
        let mut views = round.batch().views().peekable();
        while views.peek().is_some() {
            let dict = self.ctx.core.dictionary().read();
            // A string the dictionary does not hold matches nothing in this chunk.
            let filter = self.filter.resolve(&dict);
            for v in views.by_ref().take(ENCODE_CHUNK) {
                let Some(filter) = &filter else {
                    continue;
                };
                if !sampled(v.id, self.sample) || !filter.matches(&v) {
                    continue;
                }
                if lost > 0 {
                    lost += 1;
                    continue;
                }
                let before = out.len();
                if self.sub.sse {
                    out.extend_from_slice(b"data: ");
                }
                write_request(&mut out, &v, &dict, unix_ms, self.filter.timers);
                out.extend_from_slice(if self.sub.sse { b"\n\n" } else { b"\n" });
                if out.len() > room {
                    out.truncate(before);
                    lost += 1;
                    continue;
                }
                lines += 1;
            }
        }
        (out, lines, lost)
    }

    /// Hands a chunk of `lines` lines to the response, preceded by a `{"dropped": N}` line if
    /// lines were lost since the client was last told. The buffer's bound was kept when the
    /// lines were rendered (into its room, less [`NOTICE_BYTES`]: only this task
    /// adds to it); a keep-alive passes it by its few bytes. False once the client is gone.
    fn send(&mut self, (chunk, lines): (Vec<u8>, u64)) -> bool {
        if chunk.is_empty() {
            return !self.body.is_closed();
        }
        let dropped = self.sub.dropped() - self.reported_dropped;
        let mut out = if dropped > 0 {
            let mut notice = if self.sub.sse {
                format!("event: dropped\ndata: {{\"dropped\":{dropped}}}\n\n").into_bytes()
            } else {
                format!("{{\"dropped\":{dropped}}}\n").into_bytes()
            };
            notice.extend_from_slice(&chunk);
            notice
        } else {
            chunk
        };
        let len = out.len();
        self.sub.buffered_bytes.fetch_add(len, Relaxed);
        out.shrink_to_fit();
        if self.body.send(out).is_err() {
            self.sub.buffered_bytes.fetch_sub(len, Relaxed);
            return false;
        }
        self.reported_dropped += dropped;
        self.sub.lines_sent.fetch_add(lines, Relaxed);
        true
    }
}

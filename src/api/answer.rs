//! An answer on its way to the client (a report query's table, a history query's, a
//! comparison's or a fleet's series, a raw scan's or a request log page's chunks): counted in
//! the memory budget
//! (`limits.max_memory`) while it waits, and sent a bounded chunk at a time as the connection
//! takes it.
//!
//! In: the [`Table`] a report query built (whole, under the report's read lock: a sorted,
//! filtered selection cannot be taken piecemeal without holding the lock while the client
//! reads), the work an answer was built from ([`Held`]: counted at its bound before it was
//! read, rendered by its [`Render`]), or the [`Chunks`] of an answer made a chunk at a time as its client
//! takes it, each counted before it is made ([`ChunkedAnswer`], [`send_chunks`]). Out: an HTTP body. Why: an answer rendered whole is held, by a
//! client that never reads it, for as long as its connection lives (a 100,000-row report answer
//! is ~100 MB of JSON), so a few such clients could take the process far past the budget. Here an
//! answer is measured once built ([`table_bytes`]); one that would take the budget past its limit
//! is a 503 `memory_full` (the query's slot held it only for the moment); one that fits is
//! accounted (an [`Account`] of its own, which leaves the budget with the body) and sent
//! [`CHUNK_BYTES`] at a time when hyper asks for more; a table's rows are rendered then, each
//! freed, and taken out of the account, once rendered. A client that does not read holds its
//! answer, counted, plus a chunk, until `http.answer_timeout` (`api::server`) closes its
//! connection.

use std::convert::Infallible;

use axum::body::Body;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use tokio::sync::OwnedSemaphorePermit;

use super::{ApiError, AppState};
use crate::budget::{Account, Budget};
use crate::report::{csv_row, Cell, Table};

/// Bytes of rendered JSON or CSV one chunk holds (a row more at most).
const CHUNK_BYTES: usize = 128 << 10;

/// What an answer holds on its way beside what is left of it, counted until its last chunk:
/// the chunk being rendered and hyper's write buffer (which takes chunks until it holds ~400 KiB).
const IN_FLIGHT: u64 = 512 << 10;

/// An answer this small is given even when the budget is tight (counted all the same): the
/// queries of a dashboard, a check, a first page; the socket's buffers take it whole at once.
const ALWAYS_ANSWERED: u64 = 1 << 20;

/// What the allocator adds to each block (glibc: a size word, and 16-byte rounding).
const BLOCK_OVERHEAD: usize = 16;

/// The format an answer is rendered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// Bytes `table` holds on the heap: its rows (each a block of cells, each text cell a block of its
/// own) and what they are listed in.
pub fn table_bytes(table: &Table) -> u64 {
    let rows = table.rows.capacity() * std::mem::size_of::<Vec<Cell>>() + BLOCK_OVERHEAD;
    (rows + table.rows.iter().map(row_bytes).sum::<usize>()) as u64
}

fn row_bytes(row: &Vec<Cell>) -> usize {
    let texts: usize = row
        .iter()
        .map(|c| match c {
            Cell::Text(t) if t.capacity() > 0 => t.capacity() + BLOCK_OVERHEAD,
            _ => 0,
        })
        .sum();
    row.capacity() * std::mem::size_of::<Cell>() + BLOCK_OVERHEAD + texts
}

/// `table` as a streamed body of `format`, accounted in `budget` until it is sent or dropped;
/// a 503 `memory_full` when it would take what the budget counts past the limit (and it is above
/// [`ALWAYS_ANSWERED`], and another answer is being sent: see [`SENDING`]). Up to the limit, not to where the budget turns tight: a query answered
/// while the budget is tight is what an operator looks at then; an answer that makes it tight
/// has the reports refuse new rows until it is sent, as any holder would.
pub fn stream(
    table: Table,
    format: Format,
    budget: &std::sync::Arc<Budget>,
) -> Result<Body, ApiError> {
    let bytes = table_bytes(&table);
    // What the query sorted and selected the rows with is freed: at least the table's size.
    crate::memory::freed_in_bulk(bytes);
    let (account, sending) = match admit(bytes + IN_FLIGHT, budget) {
        Ok(admitted) => admitted,
        Err(refused) => {
            drop(table);
            crate::memory::freed_in_bulk(bytes);
            return Err(refused);
        }
    };
    Ok(Streamed::new(Rendering::new(table, format, bytes), account, sending).body())
}

/// What renders an answer a chunk at a time from what it holds (a table's rows, a history
/// answer's points), freeing what it has rendered: see [`Streamed`].
pub trait Render: Send + 'static {
    /// The next chunk, `bytes` at least (a row more at most) unless it is the last; `None` once
    /// all is rendered.
    fn next_chunk(&mut self, bytes: usize) -> Option<Vec<u8>>;
    /// Heap bytes of what is left to render.
    fn held(&self) -> u64;
    /// Whether the last chunk has been rendered.
    fn done(&self) -> bool;
}

/// An answer rendered a chunk at a time as hyper asks for one, counted in its account at what
/// is left of it and a chunk in flight until its last chunk.
struct Streamed<R> {
    render: R,
    account: Account,
    /// Its share of [`SENDING`], until the last chunk.
    sending: Option<Sending>,
    /// What it held when admitted, freed once sent, or cut with the rest of its rows.
    _freed: FreedWhenDropped,
}

impl<R: Render> Streamed<R> {
    fn new(render: R, account: Account, sending: Sending) -> Streamed<R> {
        let admitted = render.held();
        account.settle(admitted + IN_FLIGHT);
        Streamed {
            render,
            account,
            sending: Some(sending),
            _freed: FreedWhenDropped(admitted),
        }
    }

    fn next(&mut self) -> Option<Vec<u8>> {
        let chunk = self.render.next_chunk(CHUNK_BYTES)?;
        if self.render.done() {
            self.account.settle(0);
            self.sending = None;
        } else {
            self.account.settle(self.render.held() + IN_FLIGHT);
        }
        Some(chunk)
    }

    fn body(self) -> Body {
        Body::from_stream(futures_util::stream::unfold(self, |mut s| async move {
            s.next().map(|c| (Ok::<_, Infallible>(c), s))
        }))
    }
}

/// Bytes an answer held, noted as freed in bulk when dropped: after what held them, a field
/// declared before it (fields drop in order).
struct FreedWhenDropped(u64);

impl Drop for FreedWhenDropped {
    fn drop(&mut self) {
        crate::memory::freed_in_bulk(self.0);
    }
}

/// A chunked answer's memory (`/api/v1/requests`, whose scan renders its chunks as it goes; a
/// request log's page, read from the store a chunk at a time): the room it was admitted with
/// (`most`: the chunk being built and those its queue and hyper hold), kept for it until its
/// last chunk is made, and beyond that room what it holds when it holds more (the chunk being
/// built, counted before it is built: [`ChunkedAnswer::next`]; each chunk built, counted until
/// hyper lets go of it once written to the socket: [`ChunkedAnswer::counted`]). So a client that
/// does not read holds, counted, the chunks its answer's queue and hyper hold; and an answer
/// once admitted is never starved of room by answers admitted after it (a 503 is only given
/// before the first byte).
pub struct ChunkedAnswer {
    room: std::sync::Arc<Room>,
    /// Its share of [`SENDING`], until the answer is dropped.
    _sending: Sending,
    /// The bound a chunk is counted at before it is built.
    chunk: u64,
}

/// What a [`ChunkedAnswer`] counts: the most of the room it keeps and what it holds.
struct Room {
    account: Account,
    held: parking_lot::Mutex<RoomHeld>,
}

#[derive(Default)]
struct RoomHeld {
    /// The room kept (`most` until the last chunk is made, then 0).
    kept: u64,
    /// The chunk being built, at its bound.
    building: u64,
    /// The chunks built and not yet let go of.
    chunks: u64,
}

impl Room {
    /// Changes what is held, and settles the account under the same lock so that changes from
    /// the answer's task and from hyper's drops are counted in the order they happen.
    fn change(&self, f: impl FnOnce(&mut RoomHeld)) {
        let mut held = self.held.lock();
        f(&mut held);
        self.account
            .settle(held.kept.max(held.building + held.chunks));
    }
}

impl ChunkedAnswer {
    /// Admits an answer whose chunks are about `chunk` bytes (a request more), `most` of them
    /// held at once (its queue's and hyper's): a 503 `memory_full`, as [`stream`] refuses a
    /// table, when those would take the budget past its limit while another answer is being
    /// sent.
    pub fn admit(
        chunk: u64,
        most: u64,
        budget: &std::sync::Arc<Budget>,
    ) -> Result<ChunkedAnswer, ApiError> {
        let (account, sending) = admit(most, budget)?;
        let room = Room {
            account,
            held: parking_lot::Mutex::new(RoomHeld {
                kept: most,
                ..RoomHeld::default()
            }),
        };
        room.change(|_| {});
        Ok(ChunkedAnswer {
            room: std::sync::Arc::new(room),
            _sending: sending,
            chunk,
        })
    }

    /// The next chunk is being built (`true`) or none is being built (`false`): its bound is
    /// counted, or no longer.
    pub fn next(&self, building: bool) {
        let bound = if building { self.chunk } else { 0 };
        self.room.change(|h| h.building = bound);
    }

    /// The last chunk is made: the room kept for the ones to come is given back; the chunks
    /// not yet written stay counted.
    pub fn finished(&self) {
        self.room.change(|h| {
            h.kept = 0;
            h.building = 0;
        });
    }

    /// A chunk built: counted until hyper drops it.
    pub fn counted(&self, chunk: Vec<u8>) -> axum::body::Bytes {
        let bytes = (chunk.capacity() + BLOCK_OVERHEAD) as u64;
        self.room.change(|h| h.chunks += bytes);
        axum::body::Bytes::from_owner(Counted {
            chunk,
            bytes,
            room: std::sync::Arc::clone(&self.room),
        })
    }
}

impl Drop for ChunkedAnswer {
    fn drop(&mut self) {
        self.finished();
    }
}

/// What a [`ChunkedAnswer`]'s chunks are made by (a raw scan, a request log's page), a chunk at a
/// time on the blocking pool under a query slot.
pub trait Chunks: Send + 'static {
    /// The next chunk, within what its answer counts a chunk at; or why the answer cannot go on.
    fn next_chunk(&mut self, state: &AppState) -> Result<Vec<u8>, String>;
    /// Whether the last chunk has been made.
    fn done(&self) -> bool;
}

/// The body of `chunks`' answer: each chunk made once the queue (`queue` chunks) has room for
/// it, in the room the answer was admitted with; each on the blocking pool under a slot
/// (`first` for the first one, when the caller took it to answer 503 while none is free), until
/// the answer is complete or the client is gone. A chunk that fails cuts the connection (its
/// status line is sent): its client never takes a part of an answer for the whole.
pub fn send_chunks<C: Chunks>(
    state: AppState,
    chunks: C,
    first: Option<OwnedSemaphorePermit>,
    answer: ChunkedAnswer,
    queue: usize,
) -> Body {
    type Sent = Result<axum::body::Bytes, std::io::Error>;
    let (tx, rx) = tokio::sync::mpsc::channel::<Sent>(queue);
    tokio::spawn(async move {
        let (mut chunks, mut first) = (chunks, first);
        loop {
            // Room for the chunk first, then a slot: no slot waits on the client.
            let Ok(room) = tx.reserve().await else { return };
            answer.next(true);
            let slot = match first.take() {
                Some(slot) => slot,
                None => match std::sync::Arc::clone(&state.query_slots)
                    .acquire_owned()
                    .await
                {
                    Ok(slot) => slot,
                    Err(_) => return,
                },
            };
            let st = std::sync::Arc::clone(&state);
            let made = tokio::task::spawn_blocking(move || {
                let chunk = chunks.next_chunk(&st);
                drop(slot);
                (chunks, chunk)
            })
            .await;
            let Ok((next, chunk)) = made else { return };
            answer.next(false);
            match chunk {
                Ok(chunk) => room.send(Ok(answer.counted(chunk))),
                Err(why) => {
                    tracing::warn!(%why, "An answer was cut: its next chunk failed");
                    room.send(Err(std::io::Error::other(why)));
                    return;
                }
            }
            if next.done() {
                return;
            }
            chunks = next;
        }
    });
    Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    }))
}

/// A chunk of a [`ChunkedAnswer`], counted in its room until dropped.
struct Counted {
    chunk: Vec<u8>,
    bytes: u64,
    room: std::sync::Arc<Room>,
}

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.chunk
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let bytes = self.bytes;
        self.room.change(|h| h.chunks -= bytes);
    }
}

/// Bytes of the answers being sent now (in their accounts too): while none is, one is given
/// whatever the budget says, so that a client asking alone, an operator while the budget is
/// tight, always gets its answer; RSS may then pass the limit by that one answer at most.
static SENDING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// An answer's share of [`SENDING`], given back when it is sent or dropped.
struct Sending(u64);

impl Drop for Sending {
    fn drop(&mut self) {
        SENDING.fetch_sub(self.0, std::sync::atomic::Ordering::Relaxed);
    }
}

/// An account of `bytes` in `budget` for an answer, or the 503 that refuses it. Counted first,
/// then looked at, so that answers asked at once are never all admitted into the same room.
fn admit(bytes: u64, budget: &std::sync::Arc<Budget>) -> Result<(Account, Sending), ApiError> {
    use std::sync::atomic::Ordering::Relaxed;
    let alone = SENDING.fetch_add(bytes, Relaxed) == 0;
    let sending = Sending(bytes);
    let account = Account::new(std::sync::Arc::clone(budget));
    account.settle(bytes);
    if !alone && bytes > ALWAYS_ANSWERED && budget.used() > budget.limit() {
        return Err(ApiError {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            error: "memory_full",
            detail: format!(
                "the answer ({} MiB) does not fit in the memory budget now (limits.max_memory): \
                 ask for less (limit), or retry once answers being read are sent",
                bytes >> 20
            ),
        });
    }
    Ok((account, sending))
}

/// Memory an answer's work holds while it is built (a comparison's rows and histograms, a
/// history query's points, counted at their bound before they are read), counted and refused
/// as an answer is ([`admit`]); given back when dropped, or counted on as the answer it built
/// ([`Held::stream`]).
pub struct Held {
    account: Account,
    sending: Sending,
}

/// Counts `bytes` of an answer's work in `budget`, or the 503 `memory_full` that refuses it.
pub fn hold(bytes: u64, budget: &std::sync::Arc<Budget>) -> Result<Held, ApiError> {
    let (account, sending) = admit(bytes, budget)?;
    Ok(Held { account, sending })
}

impl Held {
    /// The work held measured once built (`bytes`, in place of the bound it was held at): what it
    /// counts until it is streamed or dropped.
    pub fn measured(&self, bytes: u64) {
        self.account.settle(bytes);
    }

    /// The answer `render` makes of the work held, as a body sent a chunk at a time: counted from
    /// now at what it holds (measured, in place of the bound it was held at) and a chunk in
    /// flight, less as it is sent.
    pub fn stream(self, render: impl Render) -> Body {
        Streamed::new(render, self.account, self.sending).body()
    }

    /// [`Held::stream`] of `table` rendered as `format` (as [`stream`] renders it).
    pub fn stream_table(self, table: Table, format: Format) -> Body {
        let bytes = table_bytes(&table);
        self.stream(Rendering::new(table, format, bytes))
    }
}

/// A history answer's or a comparison's rendering (`history::query::Chunked`) as a [`Render`].
impl<P: crate::history::query::Pieces> Render for crate::history::query::Chunked<P> {
    fn next_chunk(&mut self, bytes: usize) -> Option<Vec<u8>> {
        crate::history::query::Chunked::next_chunk(self, bytes)
    }

    fn held(&self) -> u64 {
        crate::history::query::Chunked::held(self)
    }

    fn done(&self) -> bool {
        crate::history::query::Chunked::done(self)
    }
}

/// A table being rendered: what is left of its rows, and their bytes in the budget.
struct Rendering {
    columns: Vec<String>,
    format: Format,
    rows: std::vec::IntoIter<Vec<Cell>>,
    /// The header (JSON: the table's fields up to `"rows":[`), until the first chunk takes it.
    head: Option<Vec<u8>>,
    /// Rows rendered so far.
    rendered: usize,
    done: bool,
    /// Bytes of rows not rendered yet, and of the list that held them (freed at the end).
    held: u64,
}

impl Rendering {
    fn new(mut table: Table, format: Format, held: u64) -> Rendering {
        let rows = std::mem::take(&mut table.rows);
        let mut head = Vec::with_capacity(4096);
        match format {
            Format::Json => {
                // Every field but the rows, whose list the chunks fill: the table serialises
                // `"rows":[]` last.
                let _ = serde_json::to_writer(&mut head, &table);
                debug_assert!(head.ends_with(b"[]}"));
                head.truncate(head.len().saturating_sub(2));
            }
            // The header line alone: the rows are taken.
            Format::Csv => head.extend_from_slice(table.to_csv().as_bytes()),
        }
        Rendering {
            columns: std::mem::take(&mut table.columns),
            format,
            rows: rows.into_iter(),
            head: Some(head),
            rendered: 0,
            done: false,
            held,
        }
    }
}

impl Render for Rendering {
    fn next_chunk(&mut self, bytes: usize) -> Option<Vec<u8>> {
        if self.done {
            return None;
        }
        let mut out = self.head.take().unwrap_or_default();
        out.reserve(bytes.min(CHUNK_BYTES) + 4096);
        let (mut line, mut cell) = (String::new(), String::new());
        while out.len() < bytes {
            let Some(row) = self.rows.next() else {
                if self.format == Format::Json {
                    out.extend_from_slice(b"]}");
                }
                self.done = true;
                break;
            };
            match self.format {
                Format::Json => {
                    if self.rendered > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut out, &RowObject(&self.columns, &row));
                }
                Format::Csv => {
                    line.clear();
                    csv_row(&mut line, &row, &mut cell);
                    out.extend_from_slice(line.as_bytes());
                }
            }
            self.held = self.held.saturating_sub(row_bytes(&row) as u64);
            self.rendered += 1;
        }
        Some(out)
    }

    fn held(&self) -> u64 {
        self.held
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// One row as a JSON object, `columns[i] → cells[i]` in column order (as the table serialises its
/// rows).
struct RowObject<'a>(&'a [String], &'a [Cell]);

impl Serialize for RowObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.1.len()))?;
        for (n, c) in self.0.iter().zip(self.1) {
            map.serialize_entry(n, c)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: usize) -> Table {
        Table {
            report: "r".into(),
            kind: crate::report::Kind::Request,
            keys: vec!["script_name".into()],
            time_interval: 1.0,
            history: 60.0,
            tick: 1.0,
            complete_from: Some(12.5),
            rows_total: rows,
            columns: vec!["script_name".into(), "req_count".into(), "p50".into()],
            key_columns: 1,
            totals: vec![Cell::Int(rows as u128), Cell::Null],
            rows: (0..rows)
                .map(|i| {
                    vec![
                        Cell::Text(format!("/s,\"{i}\"")),
                        Cell::Int(i as u128),
                        Cell::Float(i as f64 / 8.0),
                    ]
                })
                .collect(),
        }
    }

    /// Every chunk but the last within a row of the bound, the whole as the table renders at
    /// once, and the account back to 0 at the end.
    fn rendered(t: &Table, format: Format) -> (Vec<u8>, Vec<usize>) {
        let budget = Budget::new(1 << 30);
        let bytes = table_bytes(t);
        let (account, sending) = admit(bytes, &budget).unwrap();
        let mut r = Streamed::new(Rendering::new(t.clone(), format, bytes), account, sending);
        let bytes = bytes + IN_FLIGHT;
        assert_eq!(budget.used(), bytes);
        let (mut all, mut sizes) = (Vec::new(), Vec::new());
        while let Some(c) = r.next() {
            assert!(c.len() < CHUNK_BYTES + 4096, "{}", c.len());
            assert!(budget.used() <= bytes);
            sizes.push(c.len());
            all.extend_from_slice(&c);
        }
        assert_eq!(budget.used(), 0, "the account empties once all is sent");
        (all, sizes)
    }

    #[test]
    fn a_streamed_answer_is_the_whole_answer_in_bounded_chunks() {
        for rows in [0, 1, 20_000] {
            let t = table(rows);
            let (json, sizes) = rendered(&t, Format::Json);
            let whole = serde_json::to_vec(&t).unwrap();
            assert_eq!(
                String::from_utf8(json).unwrap(),
                String::from_utf8(whole).unwrap()
            );
            if rows == 20_000 {
                assert!(sizes.len() > 2, "{sizes:?}");
            }
            let (csv, _) = rendered(&t, Format::Csv);
            assert_eq!(String::from_utf8(csv).unwrap(), t.to_csv());
        }
    }

    #[test]
    fn a_chunked_answer_keeps_its_room_and_counts_each_chunk_until_it_is_written() {
        let budget = Budget::new(64 << 20);
        let most = 5 * (256 << 10);
        let answer = ChunkedAnswer::admit(256 << 10, most, &budget).unwrap();
        assert_eq!(budget.used(), most, "its room, before a chunk is built");
        answer.next(true);
        let chunk = answer.counted(vec![7u8; 300 << 10]);
        let one = (300 << 10) + BLOCK_OVERHEAD as u64;
        assert_eq!(budget.used(), most, "within its room");
        answer.next(false);
        // Past its room, what it holds.
        let more: Vec<_> = (0..4)
            .map(|_| answer.counted(vec![7u8; 300 << 10]))
            .collect();
        answer.next(true);
        assert_eq!(budget.used(), 5 * one + (256 << 10));
        answer.next(false);
        drop(more);
        assert_eq!(budget.used(), most, "written: back to its room");
        answer.finished();
        let copy = chunk.clone();
        drop(chunk);
        assert_eq!(budget.used(), one, "made: a clone holds the last chunk");
        drop(copy);
        assert_eq!(budget.used(), 0, "written: out of the budget");
        drop(answer);
        assert_eq!(budget.used(), 0);
        // Beside another answer being sent, no room past the limit; the one admitted keeps its
        // room whatever is asked after it (it is never starved).
        let full = Budget::new(4 << 20);
        let first = ChunkedAnswer::admit(256 << 10, 3 << 20, &full).unwrap();
        let e = ChunkedAnswer::admit(256 << 10, 1200 << 10, &full)
            .err()
            .unwrap();
        assert_eq!((e.status.as_u16(), e.error), (503, "memory_full"));
        assert_eq!(full.used(), 3 << 20);
        first.next(true);
        let written = first.counted(vec![0u8; 200 << 10]);
        first.next(false);
        drop(written);
        assert_eq!(full.used(), 3 << 20, "its room kept while its client reads");
        let e = ChunkedAnswer::admit(256 << 10, 1200 << 10, &full)
            .err()
            .unwrap();
        assert_eq!((e.status.as_u16(), e.error), (503, "memory_full"));
        drop(first);
        assert_eq!(full.used(), 0);
    }

    #[test]
    fn an_answer_the_budget_has_no_room_for_is_refused_and_one_it_has_is_counted() {
        let t = table(20_000);
        let bytes = table_bytes(&t);
        // The cells alone, at the least.
        assert!(bytes >= 20_000 * 3 * std::mem::size_of::<Cell>() as u64);
        assert!(bytes > ALWAYS_ANSWERED);
        // A copy's strings hold no spare capacity: measured apart.
        let copy = t.clone();
        let small = Budget::new(table_bytes(&copy) + IN_FLIGHT - 1);
        // Beside another answer being sent (a small one, always given), refused.
        let first = stream(table(100), Format::Json, &small).unwrap();
        let used = small.used();
        let e = stream(copy, Format::Json, &small).unwrap_err();
        assert_eq!((e.status.as_u16(), e.error), (503, "memory_full"));
        assert_eq!(small.used(), used);
        drop(first);
        assert_eq!(small.used(), 0);
        let large = Budget::new(bytes * 4);
        let body = stream(t, Format::Json, &large).unwrap();
        assert_eq!(large.used(), bytes + IN_FLIGHT);
        drop(body);
        assert_eq!(large.used(), 0, "a dropped answer leaves the budget");
    }
}

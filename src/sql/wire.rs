//! A connection's bytes between its socket and `opensrv_mysql`, where the bounds the protocol
//! library lacks are kept: it reads a whole packet into memory whatever its announced length,
//! drops the connection on a statement that is not UTF-8, waits for the next command for ever,
//! and blocks for ever on a client that stopped reading.
//!
//! In: the socket's two halves. Out: the same packets, to the library one command per read
//! ([`Commands`], which keeps its packet reader from a use after free: `pump`), and its answers
//! to the socket (`Guarded`), except that
//! - a command longer than `mysql.max_allowed_packet` is read past, never kept, and reaches the
//!   library as an empty query with [`Notice::TooLarge`] for the session to answer (error 1153,
//!   and the session goes on, as the client can read the answer only once it has sent it all);
//! - a statement that is not UTF-8 reaches it as an empty query with [`Notice::NotUtf8`];
//! - a session that sends nothing for `mysql.wait_timeout` ends (the pump ends, the library reads
//!   the end of its input); a write blocked longer than `mysql.max_query_time` fails;
//! - a refused login's error packet is replaced by MySQL's own (1045), the library having no
//!   way to choose it.
//!
//! Runs inside the session's task; never holds more than one packet of `max_allowed_packet`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use crate::config::MysqlConfig;

/// The longest payload of one physical packet; a longer command continues in the next one.
const MAX_PHYSICAL: usize = 0xff_ffff;

/// A handshake response (user name, scramble, database, attributes) is short: one longer than
/// this, before the login, ends the connection (an unauthenticated client never makes the server
/// hold `max_allowed_packet`).
const MAX_HANDSHAKE_PACKET: u64 = 64 << 10;

const COM_INIT_DB: u8 = 0x02;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;

/// What the pump did to a command, for the session to answer in its place.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// It was `bytes` long, over `max_allowed_packet`.
    TooLarge { bytes: u64 },
    /// Its text is not UTF-8 from byte `at`.
    NotUtf8 { at: usize },
    /// A `COM_STMT_EXECUTE` whose parameters cannot be read (what is wrong with them).
    BadExecute(String),
    /// A `COM_STMT_EXECUTE` of a statement not prepared (or closed): the library would end the
    /// connection, MySQL answers error 1243.
    UnknownStatement(u32),
    /// A `COM_SET_OPTION` with this option (0: several statements per query on, 1: off), which
    /// the library answers with an OK where the client reads an EOF packet.
    SetOption(u16),
}

/// What a connection's pump, its writer and its session share (one per connection: the
/// session's task holds all three).
pub struct Wire {
    max_packet: u64,
    wait_timeout: Duration,
    write_timeout: Duration,
    /// Set by the session once the client has logged in: from then on packets are commands.
    authenticated: AtomicBool,
    /// Whether the session is answering a statement (the client waits: it is not idle).
    running: AtomicBool,
    /// When the session last finished answering a statement (the idle time counts from then).
    answered: parking_lot::Mutex<Option<std::time::Instant>>,
    /// Set when the library begins reading the empty query that stands for a command (see
    /// [`Commands`]), taken by the session when it answers it.
    notice: parking_lot::Mutex<Option<Notice>>,
    /// The error message that replaces the library's for a refused login.
    denied: parking_lot::Mutex<Option<String>>,
    /// The session's prepared statements as executions need them (see [`check_execute`]).
    statements: parking_lot::Mutex<std::collections::HashMap<u32, Parameters>>,
    /// Whether a query may hold several statements: the client's `CLIENT_MULTI_STATEMENTS` at
    /// the login (read by the pump), then what `COM_SET_OPTION` set (by the session).
    multi_statements: AtomicBool,
    /// Whether the client's login packet is still to come (the pump reads its capabilities).
    login_packet: AtomicBool,
    /// The collation the client's login packet names (its character set byte; 0 before it).
    login_collation: std::sync::atomic::AtomicU8,
}

/// What the pump knows of a prepared statement's parameters.
#[derive(Default)]
struct Parameters {
    count: u16,
    /// Their types as the last execution that sent them gave them (two bytes each).
    types: Option<Vec<u8>>,
    /// Parameters sent apart (`COM_STMT_SEND_LONG_DATA`) since the last execution: their values
    /// are not in the execution's packet.
    long_data: std::collections::HashSet<u16>,
}

impl Wire {
    pub fn new(config: &MysqlConfig) -> Wire {
        Wire {
            max_packet: config.max_allowed_packet.0,
            wait_timeout: config.wait_timeout.0,
            write_timeout: config.max_query_time.0,
            authenticated: AtomicBool::new(false),
            running: AtomicBool::new(false),
            answered: Default::default(),
            notice: Default::default(),
            statements: Default::default(),
            denied: Default::default(),
            multi_statements: AtomicBool::new(false),
            login_packet: AtomicBool::new(true),
            login_collation: Default::default(),
        }
    }

    /// The collation id the client's login packet named (0 where it named none).
    pub fn login_collation(&self) -> u8 {
        self.login_collation.load(Relaxed)
    }

    /// Whether a query may hold several statements (see [`Wire::multi_statements`]'s field).
    pub fn multi_statements(&self) -> bool {
        self.multi_statements.load(Relaxed)
    }

    /// `COM_SET_OPTION`'s MYSQL_OPTION_MULTI_STATEMENTS_ON (`true`) or _OFF.
    pub fn set_multi_statements(&self, on: bool) {
        self.multi_statements.store(on, Relaxed);
    }

    pub fn set_authenticated(&self) {
        self.authenticated.store(true, Relaxed);
    }

    pub fn authenticated(&self) -> bool {
        self.authenticated.load(Relaxed)
    }

    /// The session begins answering a statement.
    pub fn begin_statement(&self) {
        self.running.store(true, Relaxed);
    }

    /// The session has answered its statement: the client may be idle from now.
    pub fn end_statement(&self) {
        *self.answered.lock() = Some(std::time::Instant::now());
        self.running.store(false, Relaxed);
    }

    /// When the session became idle, given that the client last sent a packet at `sent`;
    /// `None` while a statement is being answered.
    fn idle_since(&self, sent: std::time::Instant) -> Option<std::time::Instant> {
        if self.running.load(Relaxed) {
            return None;
        }
        Some(self.answered.lock().map_or(sent, |a| a.max(sent)))
    }

    /// What the pump did to the command now being answered, if anything.
    pub fn take_notice(&self) -> Option<Notice> {
        self.notice.lock().take()
    }

    /// Makes the login's error packet say `message` with MySQL's code for it (1045).
    pub fn deny(&self, message: String) {
        *self.denied.lock() = Some(message);
    }
}

fn u24(header: &[u8; 4]) -> usize {
    header[0] as usize | (header[1] as usize) << 8 | (header[2] as usize) << 16
}

/// The library's input, which hands it one command per read and never a byte of the next: its
/// packet reader (opensrv-mysql 0.7.0, `PacketReader::next_async`), when one read brings a
/// command and the start of the next, keeps the rest in a new buffer and frees the one the
/// command it returns still points into. The command is then read from freed memory (a
/// `COM_STMT_CLOSE` sent with the next statement in one segment, as mysqlnd sends them, read
/// as a command it does not know, answered with an OK the client takes for the statement's
/// answer; a freed large buffer can be unmapped). One command per read leaves it no rest.
///
/// The pump's end is [`Handoff`]: one command at a time, taken whole before the next is handed.
pub struct Commands(
    std::sync::Arc<parking_lot::Mutex<Slot>>,
    std::sync::Arc<Wire>,
);

/// The pump's end of [`Commands`]; dropping it ends the library's input.
pub struct Handoff(std::sync::Arc<parking_lot::Mutex<Slot>>);

/// What the two ends share.
#[derive(Default)]
struct Slot {
    /// The command handed and not yet read whole.
    command: Option<Framed>,
    /// The pump has ended (no more commands) / the library has ended (none will be read).
    pump_gone: bool,
    library_gone: bool,
    reader: Option<std::task::Waker>,
    writer: Option<std::task::Waker>,
}

/// A command's payload as MySQL packets numbered from `seq` (a payload of a multiple of the
/// physical size ends with an empty packet, as the protocol wants), framed as it is read.
struct Framed {
    payload: Vec<u8>,
    seq: u8,
    /// How many framed bytes have been read.
    read: usize,
    /// What the session is to answer in its place (see [`Notice`]): published when the library
    /// begins reading it, so never while an earlier command is being answered.
    notice: Option<Notice>,
}

impl Framed {
    fn len(&self) -> usize {
        self.payload.len() + 4 * (self.payload.len() / MAX_PHYSICAL + 1)
    }

    /// Copies the next framed bytes into `buf`, as many as fit.
    fn copy_to(&mut self, buf: &mut tokio::io::ReadBuf<'_>) {
        while buf.remaining() > 0 && self.read < self.len() {
            let k = self.read / (MAX_PHYSICAL + 4);
            let at = self.read % (MAX_PHYSICAL + 4);
            let start = k * MAX_PHYSICAL;
            let len = (self.payload.len() - start).min(MAX_PHYSICAL);
            let n = if at < 4 {
                let l = (len as u32).to_le_bytes();
                let header = [l[0], l[1], l[2], self.seq.wrapping_add(k as u8)];
                let n = (4 - at).min(buf.remaining());
                buf.put_slice(&header[at..at + n]);
                n
            } else {
                let from = start + at - 4;
                let n = (start + len - from).min(buf.remaining());
                buf.put_slice(&self.payload[from..from + n]);
                n
            };
            self.read += n;
        }
    }
}

/// The library's input and the pump's end of it, for the connection of `wire`.
pub fn pipe(wire: std::sync::Arc<Wire>) -> (Commands, Handoff) {
    let slot = std::sync::Arc::new(parking_lot::Mutex::new(Slot::default()));
    (Commands(std::sync::Arc::clone(&slot), wire), Handoff(slot))
}

impl Handoff {
    /// Hands the library an empty query numbered `seq` in a command's place, for the session to
    /// answer as `notice` says.
    async fn notice(&mut self, notice: Notice, seq: u8) -> io::Result<()> {
        self.send(vec![COM_QUERY], seq, Some(notice)).await
    }

    /// Hands `payload` (one command, its packets numbered from `seq`) to the library and waits
    /// until it has read it whole: the pump holds one command at most.
    async fn send(&mut self, payload: Vec<u8>, seq: u8, notice: Option<Notice>) -> io::Result<()> {
        {
            let mut slot = self.0.lock();
            slot.command = Some(Framed {
                payload,
                seq,
                read: 0,
                notice,
            });
            if let Some(w) = slot.reader.take() {
                w.wake();
            }
        }
        std::future::poll_fn(|cx| {
            let mut slot = self.0.lock();
            if slot.command.is_none() {
                Poll::Ready(Ok(()))
            } else if slot.library_gone {
                Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
            } else {
                slot.writer = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }
}

impl Slot {
    /// One end has gone: `gone` marks it, and the other end, waiting on it, wakes.
    fn end(&mut self, gone: fn(&mut Slot) -> (&mut bool, &mut Option<std::task::Waker>)) {
        let (flag, waiting) = gone(self);
        *flag = true;
        if let Some(w) = waiting.take() {
            w.wake();
        }
    }
}

impl Drop for Handoff {
    fn drop(&mut self) {
        self.0.lock().end(|s| (&mut s.pump_gone, &mut s.reader));
    }
}

impl Drop for Commands {
    fn drop(&mut self) {
        self.0.lock().end(|s| (&mut s.library_gone, &mut s.writer));
    }
}

impl AsyncRead for Commands {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut slot = self.0.lock();
        let slot = &mut *slot;
        match slot.command.as_mut() {
            Some(command) => {
                if let Some(notice) = command.notice.take() {
                    *self.1.notice.lock() = Some(notice);
                }
                command.copy_to(buf);
                if command.read == command.len() {
                    slot.command = None;
                    if let Some(w) = slot.writer.take() {
                        w.wake();
                    }
                }
                Poll::Ready(Ok(()))
            }
            // The end of the input.
            None if slot.pump_gone => Poll::Ready(Ok(())),
            None => {
                slot.reader = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Copies the client's packets from `socket` to `out` (the library's input), bounded as the
/// module says, until the client closes or idles past `wait_timeout`; then `out` is dropped,
/// which the library reads as the end of the session.
pub async fn pump<R>(mut socket: R, mut out: Handoff, wire: std::sync::Arc<Wire>) -> io::Result<()>
where
    R: AsyncRead + Unpin,
{
    let mut sent = std::time::Instant::now();
    loop {
        let mut header = [0u8; 4];
        // Between two commands: the idle bound, counted from the client's last packet or the
        // session's last answer, whichever came later, and never while a statement is being
        // answered (before the login, the handshake's bound, which is shorter, ends the
        // connection first). One byte at a time, which a timeout cannot cut in two.
        loop {
            let wait = wire.wait_timeout;
            let until = wire
                .idle_since(sent)
                .map_or_else(|| std::time::Instant::now() + wait, |since| since + wait);
            match tokio::time::timeout_at(until.into(), socket.read(&mut header[..1])).await {
                Ok(Ok(0)) => return Ok(()),
                Ok(Ok(_)) => break,
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    let now = std::time::Instant::now();
                    if wire
                        .idle_since(sent)
                        .is_some_and(|since| since + wait <= now)
                    {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "idle past mysql.wait_timeout",
                        ));
                    }
                }
            }
        }
        tokio::time::timeout(wire.wait_timeout, socket.read_exact(&mut header[1..]))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "a packet stalled"))??;
        let commands = wire.authenticated();
        let limit = if commands {
            wire.max_packet
        } else {
            MAX_HANDSHAKE_PACKET
        };
        let first_seq = header[3];
        let mut last_seq = first_seq;
        let mut payload: Vec<u8> = Vec::new();
        let mut total = 0u64;
        let mut skipping = false;
        let read = async {
            loop {
                let len = u24(&header);
                total += len as u64;
                if total > limit && !skipping {
                    skipping = true;
                    payload = Vec::new();
                }
                if skipping {
                    let skipped = tokio::io::copy(
                        &mut (&mut socket).take(len as u64),
                        &mut tokio::io::sink(),
                    )
                    .await?;
                    if skipped < len as u64 {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                } else {
                    let start = payload.len();
                    payload.resize(start + len, 0);
                    socket.read_exact(&mut payload[start..]).await?;
                }
                if len < MAX_PHYSICAL {
                    return Ok::<(), io::Error>(());
                }
                socket.read_exact(&mut header).await?;
                // The library asserts this (a panic on the client's input): checked here.
                if header[3] != last_seq.wrapping_add(1) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "packets out of order",
                    ));
                }
                last_seq = header[3];
            }
        };
        // A packet begun must go on arriving: a stall as long as the idle bound ends it too.
        tokio::time::timeout(wire.wait_timeout, read)
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "a packet stalled"))??;
        sent = std::time::Instant::now();
        if skipping {
            if !commands {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "handshake packet over 64 KiB",
                ));
            }
            out.notice(Notice::TooLarge { bytes: total }, last_seq)
                .await?;
            continue;
        }
        // The login packet (HandshakeResponse41): its capabilities' `CLIENT_MULTI_STATEMENTS`, its
        // character set.
        if !commands && wire.login_packet.swap(false, Relaxed) {
            if let Some(caps) = payload.get(..4) {
                use mysql_common::constants::CapabilityFlags as C;
                let caps =
                    C::from_bits_truncate(u32::from_le_bytes(caps.try_into().expect("4 bytes")));
                let multi = caps.contains(C::CLIENT_PROTOCOL_41 | C::CLIENT_MULTI_STATEMENTS);
                wire.multi_statements.store(multi, Relaxed);
            }
            // After the capabilities and the largest packet: the client's character set.
            if let Some(&id) = payload.get(8) {
                wire.login_collation.store(id, Relaxed);
            }
        }
        let statement_id = |payload: &[u8]| {
            payload
                .get(1..5)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        };
        if commands && payload.first() == Some(&COM_STMT_EXECUTE) {
            if let Some(id) =
                statement_id(&payload).filter(|id| !wire.statements.lock().contains_key(id))
            {
                out.notice(Notice::UnknownStatement(id), last_seq).await?;
                continue;
            }
            let checked = check_execute(&payload, &mut wire.statements.lock());
            match checked {
                Ok(None) => {}
                Ok(Some(with_types)) => payload = with_types,
                Err(what) => {
                    out.notice(Notice::BadExecute(what), last_seq).await?;
                    continue;
                }
            }
        }
        if commands {
            if let Some((&command, text)) = payload.split_first() {
                let textual = matches!(command, COM_QUERY | COM_INIT_DB | COM_STMT_PREPARE);
                if textual {
                    if let Err(e) = std::str::from_utf8(text) {
                        out.notice(
                            Notice::NotUtf8 {
                                at: e.valid_up_to(),
                            },
                            last_seq,
                        )
                        .await?;
                        continue;
                    }
                }
                if command == COM_STMT_SEND_LONG_DATA {
                    // It has no answer. One for a statement the library does not know would end
                    // the connection, a short one get an OK: as MySQL, neither gets anything.
                    let known = match (statement_id(&payload), text.get(4..6)) {
                        (Some(id), Some(param)) => {
                            let param = u16::from_le_bytes(param.try_into().expect("2 bytes"));
                            wire.statements
                                .lock()
                                .get_mut(&id)
                                .map(|st| st.long_data.insert(param))
                                .is_some()
                        }
                        _ => false,
                    };
                    if !known {
                        continue;
                    }
                }
                if command == COM_SET_OPTION {
                    let option = text.get(..2).map_or(u16::MAX, |b| {
                        u16::from_le_bytes(b.try_into().expect("2 bytes"))
                    });
                    out.notice(Notice::SetOption(option), last_seq).await?;
                    continue;
                }
                // The library answers exactly this text itself, with 64 MiB whatever the
                // bound; a trailing space sends it to the session, which answers the bound.
                if command == COM_QUERY
                    && (text == b"SELECT @@max_allowed_packet"
                        || text == b"select @@max_allowed_packet")
                {
                    payload.push(b' ');
                }
            }
        }
        out.send(payload, first_seq, None).await?;
    }
}

impl Wire {
    /// The session prepared statement `id` with `count` parameters (before it tells the client).
    pub fn prepared(&self, id: u32, count: u16) {
        self.statements.lock().insert(
            id,
            Parameters {
                count,
                ..Default::default()
            },
        );
    }

    /// The session closed statement `id`.
    pub fn closed(&self, id: u32) {
        self.statements.lock().remove(&id);
    }
}

const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
const COM_SET_OPTION: u8 = 0x1b;

/// Checks a `COM_STMT_EXECUTE` (`payload`, its command byte first) before the library reads it,
/// which panics on parameters it cannot read, and reads an execution that does not resend its
/// parameters' types (as mysqlnd sends a statement executed again) from the wrong byte: the
/// types of the last execution that sent them are put back in. Returns the packet to hand over
/// (`None`: as it is), or what is wrong with it.
fn check_execute(
    payload: &[u8],
    statements: &mut std::collections::HashMap<u32, Parameters>,
) -> Result<Option<Vec<u8>>, String> {
    use mysql_common::constants::ColumnType as T;
    let truncated = || "the parameters end before their values do".to_string();
    if payload.len() < 10 {
        return Err("a COM_STMT_EXECUTE shorter than its header".into());
    }
    let id = u32::from_le_bytes(payload[1..5].try_into().expect("4 bytes"));
    // An unknown statement: the pump answers it (error 1243) before asking.
    let Some(st) = statements.get_mut(&id) else {
        return Ok(None);
    };
    let n = st.count as usize;
    let long_data = std::mem::take(&mut st.long_data);
    if n == 0 {
        return Ok(None);
    }
    let nullmap_at = 10;
    let flag_at = nullmap_at + n.div_ceil(8);
    let Some(&flag) = payload.get(flag_at) else {
        return Err(truncated());
    };
    let (types, values_at, rebuilt) = if flag != 0 {
        let end = flag_at + 1 + 2 * n;
        let types = payload
            .get(flag_at + 1..end)
            .ok_or_else(truncated)?
            .to_vec();
        st.types = Some(types.clone());
        (types, end, None)
    } else {
        let types = st
            .types
            .clone()
            .ok_or("parameters sent without their types, and none sent before")?;
        let mut with_types = payload[..flag_at].to_vec();
        with_types.push(1);
        with_types.extend_from_slice(&types);
        let values_at = with_types.len();
        with_types.extend_from_slice(&payload[flag_at + 1..]);
        (types, values_at, Some(with_types))
    };
    let packet = rebuilt.as_deref().unwrap_or(payload);
    let mut at = values_at;
    let take = |at: &mut usize, len: usize| -> Result<(), String> {
        *at = at
            .checked_add(len)
            .filter(|&e| e <= packet.len())
            .ok_or_else(truncated)?;
        Ok(())
    };
    for i in 0..n {
        let null = packet[nullmap_at + i / 8] & (1 << (i % 8)) != 0;
        if null || long_data.contains(&(i as u16)) {
            continue;
        }
        let ty = T::try_from(types[2 * i]).map_err(|_| {
            format!(
                "parameter {} has an unknown type 0x{:x}",
                i + 1,
                types[2 * i]
            )
        })?;
        match ty {
            T::MYSQL_TYPE_NULL => {}
            T::MYSQL_TYPE_TINY => take(&mut at, 1)?,
            T::MYSQL_TYPE_SHORT | T::MYSQL_TYPE_YEAR => take(&mut at, 2)?,
            T::MYSQL_TYPE_LONG | T::MYSQL_TYPE_INT24 | T::MYSQL_TYPE_FLOAT => take(&mut at, 4)?,
            T::MYSQL_TYPE_LONGLONG | T::MYSQL_TYPE_DOUBLE => take(&mut at, 8)?,
            T::MYSQL_TYPE_TIMESTAMP
            | T::MYSQL_TYPE_DATETIME
            | T::MYSQL_TYPE_DATE
            | T::MYSQL_TYPE_TIME => {
                let len = *packet.get(at).ok_or_else(truncated)? as usize;
                take(&mut at, 1 + len)?
            }
            T::MYSQL_TYPE_STRING
            | T::MYSQL_TYPE_VAR_STRING
            | T::MYSQL_TYPE_BLOB
            | T::MYSQL_TYPE_TINY_BLOB
            | T::MYSQL_TYPE_MEDIUM_BLOB
            | T::MYSQL_TYPE_LONG_BLOB
            | T::MYSQL_TYPE_SET
            | T::MYSQL_TYPE_ENUM
            | T::MYSQL_TYPE_DECIMAL
            | T::MYSQL_TYPE_VARCHAR
            | T::MYSQL_TYPE_BIT
            | T::MYSQL_TYPE_NEWDECIMAL
            | T::MYSQL_TYPE_GEOMETRY
            | T::MYSQL_TYPE_JSON => {
                // A length-encoded integer, then that many bytes.
                let first = *packet.get(at).ok_or_else(truncated)?;
                let (head, len) = match first {
                    0xfc => (3, 2),
                    0xfd => (4, 3),
                    0xfe => (9, 8),
                    0xfb | 0xff => return Err(format!("parameter {} has a bad length", i + 1)),
                    _ => (1, 0),
                };
                let bytes = packet.get(at + 1..at + 1 + len).ok_or_else(truncated)?;
                let mut le = [0u8; 8];
                le[..len].copy_from_slice(bytes);
                let value = if len == 0 {
                    first as u64
                } else {
                    u64::from_le_bytes(le)
                };
                take(&mut at, head)?;
                take(&mut at, usize::try_from(value).map_err(|_| truncated())?)?
            }
            other => {
                return Err(format!(
                    "parameter {} has type {other:?}, which pinbad does not read",
                    i + 1
                ))
            }
        }
    }
    Ok(rebuilt)
}

/// The socket's writing half as the library writes to it: a write that cannot go on for
/// `max_query_time` (a client that stopped reading) fails, and a refused login's error packet
/// is MySQL's (see [`Wire::deny`]).
pub struct Guarded<W> {
    inner: W,
    wire: std::sync::Arc<Wire>,
    /// Since when the current write is blocked.
    stall: Option<Pin<Box<tokio::time::Sleep>>>,
    /// A refused login: the first bytes of the library's error packet (for its sequence number),
    /// then the packet that replaces it and how much of it is written.
    swallowed: Vec<u8>,
    replacement: Option<(Vec<u8>, usize)>,
}

impl<W> Guarded<W> {
    pub fn new(inner: W, wire: std::sync::Arc<Wire>) -> Guarded<W> {
        Guarded {
            inner,
            wire,
            stall: None,
            swallowed: Vec::new(),
            replacement: None,
        }
    }

    /// `polled`, failing once it has been pending for the write bound.
    fn bounded<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(r) => {
                self.stall = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.wire.write_timeout;
                let stall = self
                    .stall
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                if stall.as_mut().poll(cx).is_ready() {
                    self.stall = None;
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client stopped reading (mysql.max_query_time)",
                    )));
                }
                Poll::Pending
            }
        }
    }

    fn denying(&self) -> bool {
        self.replacement.is_some() || self.wire.denied.lock().is_some()
    }
}

/// MySQL's ER_ACCESS_DENIED_ERROR packet with `message`, numbered `seq`.
fn access_denied(message: &str, seq: u8) -> Vec<u8> {
    let mut payload = vec![0xff];
    payload.extend_from_slice(&1045u16.to_le_bytes());
    payload.extend_from_slice(b"#28000");
    payload.extend_from_slice(message.as_bytes());
    let mut packet = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    packet.push(seq);
    packet.extend_from_slice(&payload);
    packet
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Guarded<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.denying() {
            // The library's error packet: only its header is kept, for its number.
            let room = 4usize.saturating_sub(self.swallowed.len()).min(buf.len());
            self.swallowed.extend_from_slice(&buf[..room]);
            return Poll::Ready(Ok(buf.len()));
        }
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.bounded(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.denying() {
            let mut n = 0;
            for b in bufs {
                let room = 4usize.saturating_sub(self.swallowed.len()).min(b.len());
                self.swallowed.extend_from_slice(&b[..room]);
                n += b.len();
            }
            return Poll::Ready(Ok(n));
        }
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.bounded(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.denying() && self.swallowed.len() == 4 {
            if self.replacement.is_none() {
                let message = self.wire.denied.lock().clone().unwrap_or_default();
                let seq = self.swallowed[3];
                self.replacement = Some((access_denied(&message, seq), 0));
            }
            loop {
                let this = &mut *self;
                let Some((packet, done)) = this.replacement.as_mut() else {
                    break;
                };
                if *done == packet.len() {
                    break;
                }
                let polled = Pin::new(&mut this.inner).poll_write(cx, &packet[*done..]);
                match this.bounded(cx, polled) {
                    Poll::Ready(Ok(n)) => {
                        if let Some((_, done)) = self.replacement.as_mut() {
                            *done += n;
                        }
                        if n == 0 {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                        }
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
        }
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.bounded(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::io::AsyncWriteExt;

    /// An execution of statement 7 with two parameters (a LONGLONG 5 and the string "ab"),
    /// with or without their types.
    fn execute(with_types: bool) -> Vec<u8> {
        let mut p = vec![COM_STMT_EXECUTE, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0b00];
        if with_types {
            p.extend_from_slice(&[1, 0x08, 0, 0xfd, 0]);
        } else {
            p.push(0);
        }
        p.extend_from_slice(&5i64.to_le_bytes());
        p.extend_from_slice(&[2, b'a', b'b']);
        p
    }

    #[test]
    fn an_execution_without_types_gets_the_last_ones_back() {
        let mut statements = std::collections::HashMap::new();
        statements.insert(
            7,
            Parameters {
                count: 2,
                ..Default::default()
            },
        );
        // Before any types were sent, one without is refused (nothing to read it by).
        assert!(check_execute(&execute(false), &mut statements).is_err());
        assert_eq!(check_execute(&execute(true), &mut statements), Ok(None));
        assert_eq!(
            check_execute(&execute(false), &mut statements),
            Ok(Some(execute(true)))
        );
        // An unknown statement is answered before this check (by the pump).
        let mut other = execute(false);
        other[1] = 8;
        assert_eq!(check_execute(&other, &mut statements), Ok(None));
    }

    #[test]
    fn an_execution_the_library_would_panic_on_is_refused() {
        let mut statements = std::collections::HashMap::new();
        statements.insert(
            7,
            Parameters {
                count: 2,
                ..Default::default()
            },
        );
        let good = execute(true);
        for cut in 0..good.len() {
            assert!(
                check_execute(&good[..cut], &mut statements).is_err(),
                "cut at {cut}"
            );
        }
        let mut unknown_type = good.clone();
        unknown_type[12] = 0x50;
        assert!(check_execute(&unknown_type, &mut statements)
            .unwrap_err()
            .contains("unknown type"));
        let mut long = good.clone();
        let n = long.len();
        long[n - 3] = 0xfe;
        assert!(check_execute(&long, &mut statements).is_err());
        // Parameters sent apart are not in the packet; NULLs neither.
        let mut nulls = vec![
            COM_STMT_EXECUTE,
            7,
            0,
            0,
            0,
            0,
            1,
            0,
            0,
            0,
            0b11,
            1,
            0x08,
            0,
            0xfd,
            0,
        ];
        assert_eq!(check_execute(&nulls, &mut statements), Ok(None));
        nulls[10] = 0b01;
        statements.get_mut(&7).unwrap().long_data.insert(1);
        assert_eq!(check_execute(&nulls, &mut statements), Ok(None));
    }

    fn logged_in(max_packet: u64) -> Arc<Wire> {
        let config = MysqlConfig {
            max_allowed_packet: crate::units::ByteSize(max_packet),
            ..Default::default()
        };
        let wire = Wire::new(&config);
        wire.set_authenticated();
        Arc::new(wire)
    }

    /// What the pump hands on for `input`.
    async fn pumped(wire: Arc<Wire>, input: Vec<u8>) -> Vec<u8> {
        let (r, out) = pumped_reads(wire, input, 1 << 20).await;
        r.unwrap();
        out.concat()
    }

    /// How the pump ended on `input`, and the library's reads of `room` bytes at most.
    async fn pumped_reads(
        wire: Arc<Wire>,
        input: Vec<u8>,
        room: usize,
    ) -> (io::Result<()>, Vec<Vec<u8>>) {
        let (mut commands, handoff) = pipe(Arc::clone(&wire));
        let read = async {
            let mut reads = Vec::new();
            let mut buf = vec![0u8; room];
            loop {
                let n = commands.read(&mut buf).await.unwrap();
                if n == 0 {
                    return reads;
                }
                reads.push(buf[..n].to_vec());
            }
        };
        tokio::join!(pump(&input[..], handoff, wire), read)
    }

    /// `payload` framed as MySQL packets from `seq` (written here as the protocol says, to check
    /// the pipe's framing against).
    fn framed(payload: &[u8], seq: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut seq = seq;
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_PHYSICAL);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
            out.push(seq);
            out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            seq = seq.wrapping_add(1);
            if n < MAX_PHYSICAL {
                return out;
            }
        }
    }

    #[test]
    fn a_notice_comes_when_its_command_is_read_and_not_before() {
        let wire = logged_in(1024);
        let query = framed(b"\x03SELECT 1", 0);
        let input = [query.clone(), framed(&[0x17, 9, 0, 0, 0, 0, 1, 0, 0, 0], 0)].concat();
        let (mut commands, handoff) = pipe(Arc::clone(&wire));
        let read = async {
            let mut buf = vec![0u8; 4096];
            let n = commands.read(&mut buf).await.unwrap();
            assert_eq!(buf[..n], query[..]);
            // The pump goes on to the next command meanwhile; the session, still answering the
            // first, must not see the second's notice.
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            assert_eq!(wire.take_notice(), None);
            let n = commands.read(&mut buf).await.unwrap();
            assert_eq!(buf[..n], framed(&[COM_QUERY], 0)[..]);
            assert_eq!(wire.take_notice(), Some(Notice::UnknownStatement(9)));
            assert_eq!(commands.read(&mut buf).await.unwrap(), 0);
        };
        let (r, ()) =
            block_on(async { tokio::join!(pump(&input[..], handoff, Arc::clone(&wire)), read) });
        r.unwrap();
    }

    #[test]
    fn each_read_brings_one_command_and_never_a_byte_of_the_next() {
        let wire = logged_in(64 << 20);
        // A statement closed (no answer) and the next statement in one segment, as mysqlnd
        // sends them, then a ping.
        let close = framed(&[0x19, 1, 0, 0, 0], 0);
        let query = framed(b"\x03SELECT 1", 0);
        let ping = framed(&[0x0e], 0);
        let input = [close.clone(), query.clone(), ping.clone()].concat();
        let (r, reads) = block_on(pumped_reads(wire, input, 4096));
        r.unwrap();
        assert_eq!(reads, [close, query, ping]);
        // A command longer than a read, and one over a physical packet, come in reads of it alone.
        let wire = logged_in(64 << 20);
        let mut long = vec![COM_QUERY];
        long.resize(MAX_PHYSICAL + 10, b'z');
        let input = [framed(&long, 0), framed(b"\x03SELECT 2", 0)].concat();
        let (r, reads) = block_on(pumped_reads(wire, input, 4096));
        r.unwrap();
        let last = reads.last().unwrap().clone();
        assert_eq!(last, framed(b"\x03SELECT 2", 0));
        assert_eq!(reads[..reads.len() - 1].concat(), framed(&long, 0));
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_command_within_the_bound_passes_unchanged_and_a_longer_one_is_skipped() {
        let wire = logged_in(1024);
        let small = framed(b"\x03SELECT 1", 3);
        let mut big = vec![COM_QUERY];
        big.resize(5000, b'x');
        let mut input = small.clone();
        input.extend(framed(&big, 5));
        input.extend(small.clone());
        let out = block_on(pumped(Arc::clone(&wire), input));
        let mut want = small.clone();
        want.extend(framed(&[COM_QUERY], 5));
        want.extend(small);
        assert_eq!(out, want);
        assert_eq!(wire.take_notice(), Some(Notice::TooLarge { bytes: 5000 }));
    }

    #[test]
    fn a_command_over_one_physical_packet_keeps_its_framing_and_its_last_number() {
        let wire = logged_in(64 << 20);
        let mut long = vec![COM_QUERY];
        long.resize(MAX_PHYSICAL, b'y');
        let input = framed(&long, 0);
        assert_eq!(
            input.len(),
            MAX_PHYSICAL + 8,
            "a full packet then an empty one"
        );
        assert_eq!(block_on(pumped(Arc::clone(&wire), input.clone())), input);
        let skipped = logged_in(1024);
        let out = block_on(pumped(skipped, input));
        assert_eq!(out, framed(&[COM_QUERY], 1), "numbered as the last packet");
    }

    #[test]
    fn a_login_passes_unchanged_and_only_a_short_one() {
        let config = MysqlConfig {
            max_allowed_packet: crate::units::ByteSize(1 << 20),
            ..Default::default()
        };
        let wire = Arc::new(Wire::new(&config));
        let login = framed(b"\x85\xa6\xff\x01 not UTF-8 \xff", 1);
        assert_eq!(block_on(pumped(Arc::clone(&wire), login.clone())), login);
        assert_eq!(wire.take_notice(), None);
        let long = framed(&vec![1u8; 100 << 10], 1);
        let (r, out) = block_on(pumped_reads(wire, long, 4096));
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::InvalidData);
        assert!(out.is_empty());
    }

    #[test]
    fn text_that_is_not_utf8_becomes_a_notice() {
        let wire = logged_in(1024);
        let out = block_on(pumped(
            Arc::clone(&wire),
            framed(b"\x03SELECT '\xff\xfe'", 0),
        ));
        assert_eq!(out, framed(&[COM_QUERY], 0));
        assert_eq!(wire.take_notice(), Some(Notice::NotUtf8 { at: 8 }));
    }

    #[test]
    fn continuation_packets_out_of_order_end_the_connection() {
        let wire = logged_in(64 << 20);
        let mut long = vec![COM_QUERY];
        long.resize(MAX_PHYSICAL + 10, b'y');
        let mut input = framed(&long, 0);
        input[MAX_PHYSICAL + 4 + 3] = 7;
        let (r, _) = block_on(pumped_reads(wire, input, 4096));
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_refused_login_is_answered_with_1045() {
        let wire = logged_in(1024);
        wire.deny("Access denied for user 'u'@'127.0.0.1' (using password: YES)".into());
        let mut sink = Vec::new();
        let mut guarded = Guarded::new(&mut sink, Arc::clone(&wire));
        block_on(async {
            // What the library writes: its own error (1698) as header and payload.
            let written = guarded
                .write_vectored(&[
                    io::IoSlice::new(&[10, 0, 0, 2]),
                    io::IoSlice::new(b"\xff\xa2\x06#28000x"),
                ])
                .await
                .unwrap();
            assert_eq!(written, 4 + 10, "taken whole");
            guarded.flush().await.unwrap();
        });
        assert_eq!(
            sink,
            access_denied(
                "Access denied for user 'u'@'127.0.0.1' (using password: YES)",
                2
            )
        );
        assert_eq!(&sink[5..7], &1045u16.to_le_bytes());
    }
}
